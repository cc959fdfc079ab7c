//! The running tally: per access pattern and per partition. Each call updates one shard's, under
//! that shard's lock (a thread keeps to one shard, so the lock is not contended while there are
//! no more threads than shards); the report adds the shards up. Tables and indexes are numbers
//! here ([`Name`]): what a call costs is its partition key's lookup and a few additions.

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

/// A table or index name, numbered by the wrapper (see `Metered::name`); 0: none.
pub(super) type Name = u32;

/// One access pattern: a table, the entities a call touched, the operation, and the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct PatternKey {
    pub table: Name,
    pub entities: u128,
    pub op: Operation,
    /// The index read, 0 for the table.
    pub index: Name,
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
    /// `(index, local, units)`.
    pub indexes: Vec<(Name, bool, f64)>,
    pub items_read: u64,
    pub items_returned: u64,
}

impl PatternTally {
    fn merge(&mut self, o: &PatternTally) {
        self.calls += o.calls;
        self.failed += o.failed;
        self.unreported += o.unreported;
        self.read += o.read;
        self.write += o.write;
        self.max_read = self.max_read.max(o.max_read);
        self.max_write = self.max_write.max(o.max_write);
        self.table += o.table;
        for &(id, local, u) in &o.indexes {
            add_index(&mut self.indexes, id, local, u);
        }
        self.items_read += o.items_read;
        self.items_returned += o.items_returned;
    }
}

fn add_index(list: &mut Vec<(Name, bool, f64)>, id: Name, local: bool, units: f64) {
    match list.iter_mut().find(|(i, l, _)| *i == id && *l == local) {
        Some(e) => e.2 += units,
        None => list.push((id, local, units)),
    }
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
    pub table: Name,
    /// The index whose partition `partition` is (a query of an index), else 0: the table's.
    pub space: Name,
    pub partition: Cow<'a, str>,
    /// `(index, partition)` the write puts the item in.
    pub index_partitions: Vec<(Name, String)>,
}

/// What a call addresses, known before it is sent.
#[derive(Debug)]
pub(super) struct Plan<'a> {
    pub table: Name,
    pub entities: u128,
    pub op: Operation,
    pub index: Name,
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

/// The partitions of one space (a table, or one of its indexes): each key's position in
/// `tallies`.
#[derive(Debug, Default)]
pub(super) struct Partitions {
    pub keys: FxMap<Box<str>, usize>,
    pub tallies: Vec<PartitionTally>,
}

#[derive(Debug, Default)]
pub(super) struct Tally {
    /// The patterns, in the order first seen.
    pub patterns: Vec<(PatternKey, PatternTally)>,
    /// Each pattern's position in `patterns`.
    positions: FxMap<PatternKey, usize>,
    /// The position of the pattern last recorded: a thread's calls tend to repeat one pattern
    /// (a loop, a page after page), which this finds without hashing.
    last: usize,
    /// `((table, index or 0), partitions)`: a few spaces, found by a scan.
    pub spaces: Vec<((Name, Name), Partitions)>,
}

impl Tally {
    /// The tally of pattern `key`.
    fn pattern(&mut self, key: PatternKey) -> &mut PatternTally {
        let i = match self.patterns.get(self.last) {
            Some((k, _)) if *k == key => self.last,
            _ => match self.positions.get(&key) {
                Some(&i) => i,
                None => {
                    self.patterns.push((key, PatternTally::default()));
                    self.positions.insert(key, self.patterns.len() - 1);
                    self.patterns.len() - 1
                }
            },
        };
        self.last = i;
        &mut self.patterns[i].1
    }

    /// The tally of partition `key` of `table` (or of its index `index`, not 0).
    fn partition(&mut self, table: Name, index: Name, key: &str) -> &mut PartitionTally {
        let space = match self.spaces.iter().position(|(s, _)| *s == (table, index)) {
            Some(i) => i,
            None => {
                self.spaces.push(((table, index), Partitions::default()));
                self.spaces.len() - 1
            }
        };
        let p = &mut self.spaces[space].1;
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

    fn charge(&mut self, table: Name, index: Name, key: &str, units: f64, read: bool) {
        let entry = self.partition(table, index, key);
        if read {
            entry.read += units;
        } else {
            entry.write += units;
        }
    }

    /// Adds one call: `items` are (read, returned); `name` numbers a table or index name the
    /// answer carries.
    pub(super) fn record(
        &mut self,
        plan: &Plan<'_>,
        measured: Measured<'_>,
        items: (u64, u64),
        name: &impl Fn(&str) -> Name,
    ) {
        let key = PatternKey {
            table: plan.table,
            entities: plan.entities,
            op: plan.op,
            index: plan.index,
        };
        let read = plan.op.is_read();
        match measured {
            Measured::Failed | Measured::Unreported => {
                for t in plan.touches.as_slice() {
                    self.partition(t.table, t.space, &t.partition).touches += 1;
                }
                let p = self.pattern(key);
                p.calls += 1;
                if matches!(measured, Measured::Failed) {
                    p.failed += 1;
                } else {
                    p.unreported += 1;
                }
            }
            Measured::One(c) => {
                self.record_tables(key, plan, &[(plan.table, c)], read, items, name)
            }
            Measured::Tables(list) => {
                let v: Vec<(Name, &Capacity)> =
                    list.iter().map(|t| (name(&t.table), &t.capacity)).collect();
                self.record_tables(key, plan, &v, read, items, name);
            }
        }
    }

    fn record_tables(
        &mut self,
        key: PatternKey,
        plan: &Plan<'_>,
        tables: &[(Name, &Capacity)],
        read: bool,
        items: (u64, u64),
        name: &impl Fn(&str) -> Name,
    ) {
        let p = self.pattern(key);
        p.calls += 1;
        let mut units = 0.0;
        for (_, c) in tables {
            units += c.units;
            p.table += c.table;
            for (index, u) in &c.global_indexes {
                add_index(&mut p.indexes, name(index), false, *u);
            }
            for (index, u) in &c.local_indexes {
                add_index(&mut p.indexes, name(index), true, *u);
            }
        }
        if read {
            p.read += units;
            p.max_read = p.max_read.max(units);
        } else {
            p.write += units;
            p.max_write = p.max_write.max(units);
        }
        p.items_read += items.0;
        p.items_returned += items.1;
        self.charge_partitions(plan, tables, read, name);
    }

    /// Shares each table's units among the partitions the call addressed in it: the table's
    /// share evenly among its touches, each index's among the touches in that index (a query
    /// of it, or a write that names the item's partition there), else to
    /// [`UNKNOWN_PARTITION`] of the index.
    fn charge_partitions(
        &mut self,
        plan: &Plan<'_>,
        tables: &[(Name, &Capacity)],
        read: bool,
        name: &impl Fn(&str) -> Name,
    ) {
        let touches = plan.touches.as_slice();
        // One item or partition of one table, no index: all of it there (a get, a query of
        // the table).
        if let ([t], [(table, c)]) = (touches, tables)
            && t.table == *table
            && c.global_indexes.is_empty()
            && c.local_indexes.is_empty()
        {
            let entry = self.partition(t.table, t.space, &t.partition);
            entry.touches += 1;
            if read {
                entry.read += c.table;
            } else {
                entry.write += c.table;
            }
            return;
        }
        for t in touches {
            if !tables.iter().any(|(table, _)| *table == t.table) {
                self.partition(t.table, t.space, &t.partition).touches += 1;
            }
        }
        for &(table, c) in tables {
            let n = touches.iter().filter(|t| t.table == table).count();
            if n == 0 && c.table > 0.0 {
                self.charge(table, 0, UNKNOWN_PARTITION, c.table, read);
            }
            let share = c.table / n.max(1) as f64;
            for t in touches.iter().filter(|t| t.table == table) {
                let entry = self.partition(table, t.space, &t.partition);
                entry.touches += 1;
                if read {
                    entry.read += share;
                } else {
                    entry.write += share;
                }
            }
            for (index, units) in c.global_indexes.iter().chain(&c.local_indexes) {
                let index = name(index);
                let mine = || touches.iter().filter(|t| t.table == table);
                let queried = mine().filter(|t| t.space == index).count();
                if queried > 0 {
                    let share = units / queried as f64;
                    for t in mine().filter(|t| t.space == index) {
                        self.charge(table, index, &t.partition, share, read);
                    }
                    continue;
                }
                let written = mine()
                    .flat_map(|t| &t.index_partitions)
                    .filter(|(i, _)| *i == index)
                    .count();
                if written == 0 {
                    self.charge(table, index, UNKNOWN_PARTITION, *units, read);
                    continue;
                }
                let share = units / written as f64;
                for t in mine() {
                    for (i, key) in &t.index_partitions {
                        if *i == index {
                            self.charge(table, index, key, share, read);
                        }
                    }
                }
            }
        }
    }

    /// Adds `other` (another shard's tally) to this one.
    pub(super) fn merge(&mut self, other: &Tally) {
        for (key, t) in &other.patterns {
            self.pattern(*key).merge(t);
        }
        for ((table, index), parts) in &other.spaces {
            for (key, &i) in &parts.keys {
                let t = &parts.tallies[i];
                let p = self.partition(*table, *index, key);
                p.touches += t.touches;
                p.read += t.read;
                p.write += t.write;
            }
        }
    }
}
