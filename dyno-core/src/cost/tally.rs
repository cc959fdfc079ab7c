//! The running tally: per access pattern and per partition, updated under one lock per call.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::Operation;
use crate::store::{Capacity, TableCapacity};

/// A small multiply-and-rotate hasher (FxHash's): the tally's keys are integers and short key
/// strings, chosen by the application, so resistance to chosen keys buys nothing here, and
/// SipHash would cost a large share of the wrapper's time per call.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Fx(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Fx {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().unwrap_or_default()));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    fn write_u128(&mut self, i: u128) {
        self.add(i as u64);
        self.add((i >> 64) as u64);
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

pub(super) type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<Fx>>;

/// One access pattern: a table, the entities a call touched, the operation, and the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct PatternKey {
    pub table: u32,
    pub entities: u128,
    pub op: Operation,
    /// Interned index name, 0 for the table.
    pub index: u32,
}

#[derive(Debug, Default, Clone)]
pub(super) struct PatternTally {
    pub calls: u64,
    pub failed: u64,
    pub unreported: u64,
    pub read: f64,
    pub write: f64,
    pub max_read: f64,
    pub max_write: f64,
    pub table: f64,
    /// `(interned index name, local, units)`.
    pub indexes: Vec<(u32, bool, f64)>,
    pub items_read: u64,
    pub items_returned: u64,
}

#[derive(Debug, Default, Clone)]
pub(super) struct PartitionTally {
    pub touches: u64,
    pub read: f64,
    pub write: f64,
}

/// One item or partition a call addresses: the partition it is in (of the table, or of the
/// index a query reads), and for writes the index partitions it is written to, where the
/// request tells them.
#[derive(Debug)]
pub(super) struct Touch<'a> {
    pub table: Cow<'a, str>,
    /// The index whose partition `partition` is (a query of an index), else the table's.
    pub space: Option<Cow<'a, str>>,
    pub partition: Cow<'a, str>,
    /// `(index name, partition)` the write puts the item in.
    pub index_partitions: Vec<(Cow<'a, str>, String)>,
}

/// What a call addresses, known before it is sent.
#[derive(Debug)]
pub(super) struct Plan<'a> {
    pub table: Cow<'a, str>,
    pub entities: u128,
    pub op: Operation,
    pub index: Option<Cow<'a, str>>,
    pub touches: Touches<'a>,
}

/// One touch without a vector (a single-item call), or several.
#[derive(Debug)]
pub(super) enum Touches<'a> {
    One(Touch<'a>),
    Many(Vec<Touch<'a>>),
}

impl<'a> Touches<'a> {
    fn as_slice(&self) -> &[Touch<'a>] {
        match self {
            Touches::One(t) => std::slice::from_ref(t),
            Touches::Many(v) => v,
        }
    }
}

/// What came back.
#[derive(Debug)]
pub(super) enum Measured<'o> {
    /// An error: no capacity reported.
    Failed,
    /// An answer without consumed capacity.
    Unreported,
    /// The capacity consumed in the plan's table.
    One(&'o Capacity),
    /// The capacity consumed per table.
    Tables(&'o [TableCapacity]),
}

/// Where a table's or index's units go when the request does not name the partition.
pub(super) const UNKNOWN_PARTITION: &str = "(not in the request)";

/// The partitions of one space: each key's position in `tallies`.
#[derive(Debug, Default)]
pub(super) struct Partitions {
    pub keys: FxMap<Box<str>, usize>,
    pub tallies: Vec<PartitionTally>,
}

#[derive(Debug, Default)]
pub(super) struct Tally {
    /// Interned table and index names; a name's id is its position + 1.
    pub names: Vec<Box<str>>,
    pub patterns: FxMap<PatternKey, PatternTally>,
    /// `(table id, index id or 0)` of each partition space, in the order of `partitions`.
    pub spaces: Vec<(u32, u32)>,
    pub partitions: Vec<Partitions>,
}

impl Tally {
    pub(super) fn intern(&mut self, name: &str) -> u32 {
        match self.names.iter().position(|n| &**n == name) {
            Some(i) => i as u32 + 1,
            None => {
                self.names.push(name.into());
                self.names.len() as u32
            }
        }
    }

    pub(super) fn name(&self, id: u32) -> &str {
        &self.names[id as usize - 1]
    }

    fn space(&mut self, table: &str, index: Option<&str>) -> usize {
        let key = (self.intern(table), index.map_or(0, |i| self.intern(i)));
        match self.spaces.iter().position(|s| *s == key) {
            Some(i) => i,
            None => {
                self.spaces.push(key);
                self.partitions.push(Partitions::default());
                self.spaces.len() - 1
            }
        }
    }

    /// The tally of partition `key` of `table` (or of its index `index`).
    fn partition(&mut self, table: &str, index: Option<&str>, key: &str) -> &mut PartitionTally {
        let space = self.space(table, index);
        let p = &mut self.partitions[space];
        // Looked up by `&str`, so that a known partition costs no allocation.
        let i = match p.keys.get(key) {
            Some(&i) => i,
            None => {
                p.tallies.push(PartitionTally::default());
                p.keys.insert(key.into(), p.tallies.len() - 1);
                p.tallies.len() - 1
            }
        };
        &mut p.tallies[i]
    }

    fn charge(&mut self, table: &str, index: Option<&str>, key: &str, units: f64, read: bool) {
        let entry = self.partition(table, index, key);
        if read {
            entry.read += units;
        } else {
            entry.write += units;
        }
    }

    /// Adds one call: `items` are (read, returned).
    pub(super) fn record(&mut self, plan: &Plan<'_>, measured: Measured<'_>, items: (u64, u64)) {
        let key = PatternKey {
            table: self.intern(&plan.table),
            entities: plan.entities,
            op: plan.op,
            index: plan.index.as_deref().map_or(0, |i| self.intern(i)),
        };
        let read = plan.op.is_read();
        let one;
        let tables: &[(&str, &Capacity)] = match measured {
            Measured::Failed | Measured::Unreported => {
                for t in plan.touches.as_slice() {
                    self.partition(&t.table, t.space.as_deref(), &t.partition)
                        .touches += 1;
                }
                let p = self.patterns.entry(key).or_default();
                p.calls += 1;
                if matches!(measured, Measured::Failed) {
                    p.failed += 1;
                } else {
                    p.unreported += 1;
                }
                return;
            }
            Measured::One(c) => {
                one = [(&*plan.table, c)];
                &one
            }
            Measured::Tables(list) => {
                let v: Vec<(&str, &Capacity)> = list
                    .iter()
                    .map(|t| (t.table.as_str(), &t.capacity))
                    .collect();
                return self.record_tables(key, plan, &v, read, items);
            }
        };
        self.record_tables(key, plan, tables, read, items);
    }

    fn record_tables(
        &mut self,
        key: PatternKey,
        plan: &Plan<'_>,
        tables: &[(&str, &Capacity)],
        read: bool,
        items: (u64, u64),
    ) {
        let mut indexes: Vec<(u32, bool, f64)> = Vec::new();
        for (_, c) in tables {
            for (name, units) in &c.global_indexes {
                indexes.push((self.intern(name), false, *units));
            }
            for (name, units) in &c.local_indexes {
                indexes.push((self.intern(name), true, *units));
            }
        }
        let units: f64 = tables.iter().map(|(_, c)| c.units).sum();
        let table_units: f64 = tables.iter().map(|(_, c)| c.table).sum();
        let p = self.patterns.entry(key).or_default();
        p.calls += 1;
        if read {
            p.read += units;
            p.max_read = p.max_read.max(units);
        } else {
            p.write += units;
            p.max_write = p.max_write.max(units);
        }
        p.table += table_units;
        for (id, local, u) in indexes {
            match p
                .indexes
                .iter_mut()
                .find(|(i, l, _)| *i == id && *l == local)
            {
                Some(e) => e.2 += u,
                None => p.indexes.push((id, local, u)),
            }
        }
        p.items_read += items.0;
        p.items_returned += items.1;
        self.charge_partitions(plan, tables, read);
    }

    /// Shares each table's units among the partitions the call addressed in it: the table's
    /// share evenly among its touches, each index's among the touches in that index (a query
    /// of it, or a write that names the item's partition there), else to
    /// [`UNKNOWN_PARTITION`] of the index.
    fn charge_partitions(&mut self, plan: &Plan<'_>, tables: &[(&str, &Capacity)], read: bool) {
        let touches = plan.touches.as_slice();
        for t in touches {
            if !tables.iter().any(|(name, _)| *name == t.table) {
                self.partition(&t.table, t.space.as_deref(), &t.partition)
                    .touches += 1;
            }
        }
        for (table, c) in tables {
            let n = touches.iter().filter(|t| t.table == *table).count();
            if n == 0 && c.table > 0.0 {
                self.charge(table, None, UNKNOWN_PARTITION, c.table, read);
            }
            let share = c.table / n.max(1) as f64;
            for t in touches.iter().filter(|t| t.table == *table) {
                let entry = self.partition(table, t.space.as_deref(), &t.partition);
                entry.touches += 1;
                if read {
                    entry.read += share;
                } else {
                    entry.write += share;
                }
            }
            let mine = || touches.iter().filter(|t| t.table == *table);
            for (name, units) in c.global_indexes.iter().chain(&c.local_indexes) {
                let queried: Vec<&str> = mine()
                    .filter(|t| t.space.as_deref() == Some(name.as_str()))
                    .map(|t| &*t.partition)
                    .collect();
                let written: Vec<&str> = mine()
                    .flat_map(|t| &t.index_partitions)
                    .filter(|(i, _)| i == name)
                    .map(|(_, p)| p.as_str())
                    .collect();
                let targets = if queried.is_empty() { written } else { queried };
                if targets.is_empty() {
                    self.charge(table, Some(name), UNKNOWN_PARTITION, *units, read);
                } else {
                    let share = units / targets.len() as f64;
                    for key in targets {
                        self.charge(table, Some(name), key, share, read);
                    }
                }
            }
        }
    }
}
