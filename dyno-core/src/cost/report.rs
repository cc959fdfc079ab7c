//! The report: a row per access pattern, and the partitions by units.

use std::fmt;

use super::model::{Model, UNATTRIBUTED};
use super::tally::Tally;
use super::Names;
use super::Operation;

/// What one access pattern consumed: the sum of the consumed capacity its calls reported.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PatternReport {
    /// The pattern's name: entities, operation and named query or index (`Order query GSI1`,
    /// `Order+User query`, `(Shop: unattributed) get`, `(Shop) scan`).
    pub name: String,
    /// The table (for a batch or transaction over several, the first item's).
    pub table: String,
    /// The registered entities the calls touched, in registration order.
    pub entities: Vec<String>,
    /// Some item, key or query matched no registered entity.
    pub unattributed: bool,
    /// The operation.
    pub operation: Operation,
    /// The index a query or scan read.
    pub index: Option<String>,
    /// The access pattern's name, when [`Metered::query_names`](super::Metered::query_names)
    /// gives one for the entity and index.
    pub query: Option<String>,
    /// Calls made.
    pub calls: u64,
    /// Calls that failed (no capacity reported).
    pub failed: u64,
    /// Calls answered without consumed capacity.
    pub unreported: u64,
    /// Read units consumed (reads).
    pub read_units: f64,
    /// Write units consumed (writes).
    pub write_units: f64,
    /// The most read units one call consumed.
    pub max_read_units: f64,
    /// The most write units one call consumed.
    pub max_write_units: f64,
    /// The tables' share of the units.
    pub table_units: f64,
    /// Each global secondary index's share, by name.
    pub global_indexes: Vec<(String, f64)>,
    /// Each local secondary index's share, by name.
    pub local_indexes: Vec<(String, f64)>,
    /// Items read: evaluated by queries and scans before their filter (`ScannedCount`), keys
    /// asked for by gets (processed ones, for a batch).
    pub items_read: u64,
    /// Items returned: after the filter (`Count`), found by gets.
    pub items_returned: u64,
}

impl PatternReport {
    /// Calls that reported their consumed capacity: what the means divide by.
    pub fn measured_calls(&self) -> u64 {
        self.calls - self.failed - self.unreported
    }

    /// Read units per measured call.
    pub fn mean_read_units(&self) -> f64 {
        per(self.read_units, self.measured_calls())
    }

    /// Write units per measured call.
    pub fn mean_write_units(&self) -> f64 {
        per(self.write_units, self.measured_calls())
    }

    /// Units of the indexes (global and local).
    pub fn index_units(&self) -> f64 {
        self.global_indexes
            .iter()
            .chain(&self.local_indexes)
            .fold(0.0, |sum, (_, u)| sum + u)
    }

    /// Index write amplification of a write pattern: the index write units per table write
    /// unit (`None` for reads, or when the table's share is nothing).
    pub fn write_amplification(&self) -> Option<f64> {
        (!self.operation.is_read() && self.table_units > 0.0)
            .then(|| self.index_units() / self.table_units)
    }

    /// The share of the items read that the filter threw away (`None` when nothing was read).
    pub fn filtered_out(&self) -> Option<f64> {
        (self.items_read > 0).then(|| {
            self.items_read.saturating_sub(self.items_returned) as f64 / self.items_read as f64
        })
    }
}

fn per(units: f64, calls: u64) -> f64 {
    if calls == 0 {
        0.0
    } else {
        units / calls as f64
    }
}

/// What one partition was charged.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PartitionReport {
    /// The table.
    pub table: String,
    /// The index, for a partition of an index.
    pub index: Option<String>,
    /// The partition key value (a multi-attribute key's values joined with `, `).
    pub key: String,
    /// Requests that addressed it by its key: an item's partition, a query's (a batch or a
    /// transaction counts once per item). Index partitions a write reached count none.
    pub touches: u64,
    /// Read units charged to it.
    pub read_units: f64,
    /// Write units charged to it.
    pub write_units: f64,
}

impl PartitionReport {
    /// Read and write units.
    pub fn units(&self) -> f64 {
        self.read_units + self.write_units
    }
}

/// The units of every pattern together.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct Totals {
    /// Calls made.
    pub calls: u64,
    /// Read units.
    pub read_units: f64,
    /// Write units.
    pub write_units: f64,
    /// The tables' share.
    pub table_units: f64,
    /// Each global index's share, by name.
    pub global_indexes: Vec<(String, f64)>,
    /// Each local index's share, by name.
    pub local_indexes: Vec<(String, f64)>,
}

/// What a [`Metered`](super::Metered) store measured: a row per access pattern, and the
/// partitions by units.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Report {
    /// The patterns, by table and name.
    pub patterns: Vec<PatternReport>,
    /// Every partition charged, the most units first.
    pub partitions: Vec<PartitionReport>,
}

fn add(list: &mut Vec<(String, f64)>, name: &str, units: f64) {
    match list.binary_search_by(|(n, _)| n.as_str().cmp(name)) {
        Ok(i) => list[i].1 += units,
        Err(i) => list.insert(i, (name.to_owned(), units)),
    }
}

impl Report {
    pub(super) fn new(
        tally: &Tally,
        names: &Names<'_>,
        model: &Model,
        query_names: Option<&super::QueryNamesFn>,
    ) -> Self {
        let mut patterns: Vec<PatternReport> = tally
            .patterns
            .iter()
            .map(|(key, t)| {
                let table = names.get(key.table).to_owned();
                let entities: Vec<String> = model
                    .entities
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| key.entities & (1u128 << i) != 0)
                    .map(|(_, e)| e.name.to_owned())
                    .collect();
                let unattributed = key.entities & UNATTRIBUTED != 0;
                let index = (key.index != 0).then(|| names.get(key.index).to_owned());
                let query = match (key.op, &entities[..], &index) {
                    (Operation::Query, [entity], Some(index)) if !unattributed => query_names
                        .and_then(|names| names(entity, index))
                        .or_else(|| model.query_name(entity, index).map(str::to_owned)),
                    _ => None,
                };
                let mut who = entities.join("+");
                if unattributed {
                    who = if who.is_empty() {
                        format!("({table}: unattributed)")
                    } else {
                        format!("{who}+(unattributed)")
                    };
                } else if who.is_empty() {
                    who = format!("({table})");
                }
                let mut name = format!("{who} {}", key.op);
                if let Some(via) = query.as_ref().or(index.as_ref()) {
                    name.push(' ');
                    name.push_str(via);
                }
                let mut global_indexes = Vec::new();
                let mut local_indexes = Vec::new();
                for (id, local, units) in &t.indexes {
                    let list = if *local {
                        &mut local_indexes
                    } else {
                        &mut global_indexes
                    };
                    add(list, names.get(*id), *units);
                }
                PatternReport {
                    name,
                    table,
                    entities,
                    unattributed,
                    operation: key.op,
                    index,
                    query,
                    calls: t.calls,
                    failed: t.failed,
                    unreported: t.unreported,
                    read_units: t.read,
                    write_units: t.write,
                    max_read_units: t.max_read,
                    max_write_units: t.max_write,
                    table_units: t.table,
                    global_indexes,
                    local_indexes,
                    items_read: t.items_read,
                    items_returned: t.items_returned,
                }
            })
            .collect();
        patterns.sort_by(|a, b| (&a.table, &a.name).cmp(&(&b.table, &b.name)));
        let mut partitions: Vec<PartitionReport> = tally
            .spaces
            .iter()
            .flat_map(|&((table, index), ref space)| {
                space
                    .keys
                    .iter()
                    .map(move |(key, &i)| (key, &space.tallies[i]))
                    .map(move |(key, p)| PartitionReport {
                        table: names.get(table).to_owned(),
                        index: (index != 0).then(|| names.get(index).to_owned()),
                        key: key.to_string(),
                        touches: p.touches,
                        read_units: p.read,
                        write_units: p.write,
                    })
            })
            .collect();
        partitions.sort_by(|a, b| {
            b.units()
                .total_cmp(&a.units())
                .then_with(|| (&a.table, &a.index, &a.key).cmp(&(&b.table, &b.index, &b.key)))
        });
        Report {
            patterns,
            partitions,
        }
    }

    /// The pattern named `name` (see [`PatternReport::name`]).
    pub fn pattern(&self, name: &str) -> Option<&PatternReport> {
        self.patterns.iter().find(|p| p.name == name)
    }

    /// The `n` partitions charged the most units.
    pub fn hottest(&self, n: usize) -> &[PartitionReport] {
        &self.partitions[..n.min(self.partitions.len())]
    }

    /// The units of every pattern together.
    pub fn totals(&self) -> Totals {
        let mut t = Totals::default();
        for p in &self.patterns {
            t.calls += p.calls;
            t.read_units += p.read_units;
            t.write_units += p.write_units;
            t.table_units += p.table_units;
            for (n, u) in &p.global_indexes {
                add(&mut t.global_indexes, n, *u);
            }
            for (n, u) in &p.local_indexes {
                add(&mut t.local_indexes, n, *u);
            }
        }
        t
    }
}

/// Units as the report prints them: up to two decimals, no trailing zeros.
pub(super) fn units(u: f64) -> String {
    let s = format!("{u:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_owned()
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self
            .patterns
            .iter()
            .map(|p| p.name.len())
            .max()
            .unwrap_or(7)
            .max(7);
        writeln!(
            f,
            "{:<width$} {:>6} {:>8} {:>8} {:>8} {:>8} {:>14} {:>9}",
            "pattern",
            "calls",
            "RU/call",
            "max RU",
            "WU/call",
            "max WU",
            "read/returned",
            "index WU"
        )?;
        for p in &self.patterns {
            let amplification = p
                .write_amplification()
                .map_or_else(|| "-".to_owned(), |a| format!("{}x", units(a)));
            let items = if p.items_read > 0 || p.items_returned > 0 {
                format!("{}/{}", p.items_read, p.items_returned)
            } else {
                "-".to_owned()
            };
            write!(
                f,
                "{:<width$} {:>6} {:>8} {:>8} {:>8} {:>8} {:>14} {:>9}",
                p.name,
                p.calls,
                units(p.mean_read_units()),
                units(p.max_read_units),
                units(p.mean_write_units()),
                units(p.max_write_units),
                items,
                amplification,
            )?;
            if p.failed > 0 || p.unreported > 0 {
                write!(
                    f,
                    "  ({} failed, {} without capacity)",
                    p.failed, p.unreported
                )?;
            }
            writeln!(f)?;
        }
        let hottest = self.hottest(10);
        if !hottest.is_empty() {
            writeln!(f, "\nhottest partitions (units charged):")?;
            let named: Vec<String> = hottest
                .iter()
                .map(|p| match &p.index {
                    Some(i) => format!("{}.{i} {}", p.table, p.key),
                    None => format!("{} {}", p.table, p.key),
                })
                .collect();
            let width = named.iter().map(String::len).max().unwrap_or(0);
            for (p, name) in hottest.iter().zip(&named) {
                write!(
                    f,
                    "  {name:<width$} {:>8} RU {:>8} WU",
                    units(p.read_units),
                    units(p.write_units),
                )?;
                if p.touches > 0 {
                    write!(f, "  ({} requests)", p.touches)?;
                }
                writeln!(f)?;
            }
            if self.partitions.len() > hottest.len() {
                writeln!(f, "  ({} more)", self.partitions.len() - hottest.len())?;
            }
        }
        Ok(())
    }
}
