//! The running tally: per access pattern and per partition. Each thread records into counters
//! of its own ([`Local`], one per thread and wrapper), which it finds without a lock and adds to
//! with plain loads and stores: no lock and no read-modify-write on a call's path. A counter is
//! registered once, when the thread first needs it, in the wrapper's [`Registry`], where the
//! report reads and adds them up (the counters of threads that have exited included). Tables
//! and indexes are numbers here ([`Name`]): what a call costs is its pattern's and partition's
//! lookups and a few additions.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

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
        let mut rest = bytes;
        while let Some((word, tail)) = rest.split_first_chunk::<8>() {
            self.add(u64::from_le_bytes(*word));
            rest = tail;
        }
        // The last bytes by 4, 2 and 1, not copied into a word (a call to memcpy).
        if let Some((word, tail)) = rest.split_first_chunk::<4>() {
            self.add(u64::from(u32::from_le_bytes(*word)));
            rest = tail;
        }
        if let Some((word, tail)) = rest.split_first_chunk::<2>() {
            self.add(u64::from(u16::from_le_bytes(*word)));
            rest = tail;
        }
        if let [byte] = rest {
            self.add(u64::from(*byte));
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

/// Where partitions are: `(table, index)`, index 0 for the table's own.
pub(super) type Space = (Name, Name);

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
#[derive(Debug, Clone, Copy)]
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

/// What `spaces` (a few, found by a scan) holds for `space`, added empty when new.
fn space_entry<T: Default>(spaces: &mut Vec<(Space, T)>, space: Space) -> &mut T {
    let i = match spaces.iter().position(|(s, _)| *s == space) {
        Some(i) => i,
        None => {
            spaces.push((space, T::default()));
            spaces.len() - 1
        }
    };
    &mut spaces[i].1
}

/// The sum of every thread's counters, which the report is made from.
#[derive(Debug, Default)]
pub(super) struct Tally {
    /// The patterns, in the order first seen.
    pub patterns: Vec<(PatternKey, PatternTally)>,
    /// Each pattern's position in `patterns`.
    positions: FxMap<PatternKey, usize>,
    /// `((table, index or 0), partitions)`: a few spaces, found by a scan.
    pub spaces: Vec<(Space, Partitions)>,
}

impl Tally {
    /// The tally of pattern `key`.
    fn pattern(&mut self, key: PatternKey) -> &mut PatternTally {
        let i = match self.positions.get(&key) {
            Some(&i) => i,
            None => {
                self.patterns.push((key, PatternTally::default()));
                self.positions.insert(key, self.patterns.len() - 1);
                self.patterns.len() - 1
            }
        };
        &mut self.patterns[i].1
    }

    /// The tally of partition `key` of `table` (or of its index `index`, not 0).
    fn partition(&mut self, table: Name, index: Name, key: &str) -> &mut PartitionTally {
        let p = space_entry(&mut self.spaces, (table, index));
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

    /// Adds `other` to this tally.
    fn merge(&mut self, other: &Tally) {
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

/// A count that one thread adds to and any thread reads. Its owner adds with a load and a
/// store, not a read-modify-write (which costs as much as the rest of a call): only the thread
/// whose [`Local`] holds it adds to it.
#[derive(Debug, Default)]
pub(super) struct Count(AtomicU64);

impl Count {
    fn add(&self, n: u64) {
        self.0
            .store(self.0.load(Ordering::Relaxed) + n, Ordering::Relaxed);
    }

    fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// Capacity units (an `f64`'s bits), added to by one thread as a [`Count`] is, read by any.
#[derive(Debug, Default)]
pub(super) struct Units(AtomicU64);

impl Units {
    fn get(&self) -> f64 {
        f64::from_bits(self.0.load(Ordering::Relaxed))
    }

    fn set(&self, units: f64) {
        self.0.store(units.to_bits(), Ordering::Relaxed);
    }

    fn add(&self, units: f64) {
        self.set(self.get() + units);
    }

    fn raise(&self, units: f64) {
        if units > self.get() {
            self.set(units);
        }
    }
}

/// One thread's counters of one pattern (its units per index apart, see [`Local`]).
#[derive(Debug, Default)]
pub(super) struct PatternCells {
    calls: Count,
    failed: Count,
    unreported: Count,
    read: Units,
    write: Units,
    max_read: Units,
    max_write: Units,
    table: Units,
    items_read: Count,
    items_returned: Count,
}

impl PatternCells {
    fn add_to(&self, t: &mut PatternTally) {
        t.calls += self.calls.get();
        t.failed += self.failed.get();
        t.unreported += self.unreported.get();
        t.read += self.read.get();
        t.write += self.write.get();
        t.max_read = t.max_read.max(self.max_read.get());
        t.max_write = t.max_write.max(self.max_write.get());
        t.table += self.table.get();
        t.items_read += self.items_read.get();
        t.items_returned += self.items_returned.get();
    }
}

/// One thread's counters of one partition.
#[derive(Debug, Default)]
pub(super) struct PartitionCells {
    touches: Count,
    read: Units,
    write: Units,
}

impl PartitionCells {
    fn charge(&self, units: f64, read: bool) {
        if read {
            self.read.add(units);
        } else {
            self.write.add(units);
        }
    }
}

/// Every counter the threads made for one wrapper since its last reset: what the report adds
/// up.
#[derive(Debug, Default)]
pub(super) struct Registry {
    /// `(owner, pattern, counters)`: the owner is the [`Local`] that adds to them.
    patterns: Vec<(u64, PatternKey, Arc<PatternCells>)>,
    /// `(owner, pattern, index, local, units)`.
    indexes: Vec<(u64, PatternKey, Name, bool, Arc<Units>)>,
    /// `(owner, (table, index or 0), key, counters)`.
    partitions: Vec<(u64, Space, Box<str>, Arc<PartitionCells>)>,
    /// What the threads that have ended counted, added up when they ended: a program that
    /// runs each call on a new thread keeps one tally, not one per thread.
    retired: Tally,
}

impl Registry {
    /// The sum of every thread's counters.
    pub(super) fn sum(&self) -> Tally {
        let mut all = Tally::default();
        all.merge(&self.retired);
        self.add_to(&mut all, |_| true);
        all
    }

    /// Adds the counters of the owners `mine` picks to `all`.
    fn add_to(&self, all: &mut Tally, mine: impl Fn(u64) -> bool) {
        for (_, key, cells) in self.patterns.iter().filter(|e| mine(e.0)) {
            cells.add_to(all.pattern(*key));
        }
        for (_, key, index, local, units) in self.indexes.iter().filter(|e| mine(e.0)) {
            add_index(&mut all.pattern(*key).indexes, *index, *local, units.get());
        }
        for (_, (table, index), key, cells) in self.partitions.iter().filter(|e| mine(e.0)) {
            let p = all.partition(*table, *index, key);
            p.touches += cells.touches.get();
            p.read += cells.read.get();
            p.write += cells.write.get();
        }
    }

    /// Folds the counters of `owner`, a thread's that ended, into the retired tally.
    fn retire(&mut self, owner: u64) {
        let mut retired = std::mem::take(&mut self.retired);
        self.add_to(&mut retired, |o| o == owner);
        self.retired = retired;
        self.patterns.retain(|e| e.0 != owner);
        self.indexes.retain(|e| e.0 != owner);
        self.partitions.retain(|e| e.0 != owner);
    }

    /// The number of counters of threads still running.
    #[cfg(test)]
    pub(super) fn live(&self) -> usize {
        self.patterns.len() + self.indexes.len() + self.partitions.len()
    }
}

/// What a thread's counters are registered in: the wrapper's [`Registry`], and the generation
/// it is at (a reset starts a new one, and a thread's counters of an older one are dropped).
#[derive(Debug, Default)]
pub(super) struct Shared {
    pub registry: Mutex<Registry>,
    pub generation: AtomicU64,
}

impl Shared {
    fn register(&self, generation: u64, add: impl FnOnce(&mut Registry)) {
        let mut registry = self.registry.lock().unwrap_or_else(PoisonError::into_inner);
        // Counters made by a call that raced a reset are not the new generation's.
        if self.generation.load(Ordering::Acquire) == generation {
            add(&mut registry);
        }
    }

    /// Folds the counters of `local`, whose thread is ending, into the retired tally.
    pub(super) fn retire(&self, local: &Local) {
        let mut registry = self.registry.lock().unwrap_or_else(PoisonError::into_inner);
        if self.generation.load(Ordering::Acquire) == local.generation {
            registry.retire(local.owner);
        }
    }

    /// Forgets every counter: each thread makes new ones at its next call.
    pub(super) fn reset(&self) {
        let mut registry = self.registry.lock().unwrap_or_else(PoisonError::into_inner);
        *registry = Registry::default();
        self.generation.fetch_add(1, Ordering::Release);
    }
}

/// One thread's counters of one wrapper, and how it finds them: read and written by that
/// thread alone, but for the counters' values, which the report reads.
#[derive(Debug, Default)]
pub(super) struct Local {
    /// This `Local`'s number, unique in the process: its counters' owner in the registry.
    owner: u64,
    generation: u64,
    patterns: Vec<(PatternKey, Arc<PatternCells>)>,
    /// Each pattern's position in `patterns`.
    positions: FxMap<PatternKey, usize>,
    /// The position of the pattern last recorded: a thread's calls tend to repeat one pattern
    /// (a loop, a page after page), which this finds without hashing.
    last: usize,
    /// `(pattern position, index, local)`: the pattern's units in that index.
    indexes: FxMap<(usize, Name, bool), Arc<Units>>,
    /// `((table, index or 0), partitions)`: a few spaces, found by a scan; a partition's
    /// position in `partitions` by its key.
    spaces: Vec<(Space, FxMap<Box<str>, usize>)>,
    partitions: Vec<Arc<PartitionCells>>,
}

impl Local {
    /// Counters for `shared`'s current generation.
    pub(super) fn new(shared: &Shared) -> Self {
        static NEXT_OWNER: AtomicU64 = AtomicU64::new(1);
        Local {
            owner: NEXT_OWNER.fetch_add(1, Ordering::Relaxed),
            generation: shared.generation.load(Ordering::Acquire),
            ..Local::default()
        }
    }

    /// The position of pattern `key`.
    fn pattern(&mut self, shared: &Shared, key: PatternKey) -> usize {
        let i = match self.patterns.get(self.last) {
            Some((k, _)) if *k == key => self.last,
            _ => match self.positions.get(&key) {
                Some(&i) => i,
                None => {
                    let cells = Arc::<PatternCells>::default();
                    let owner = self.owner;
                    shared.register(self.generation, |r| {
                        r.patterns.push((owner, key, cells.clone()));
                    });
                    self.patterns.push((key, cells));
                    self.positions.insert(key, self.patterns.len() - 1);
                    self.patterns.len() - 1
                }
            },
        };
        self.last = i;
        i
    }

    /// The units of the pattern at `pattern` in index `index`.
    fn index(&mut self, shared: &Shared, pattern: usize, index: Name, local: bool) -> &Units {
        let (owner, generation) = (self.owner, self.generation);
        let key = self.patterns[pattern].0;
        self.indexes
            .entry((pattern, index, local))
            .or_insert_with(|| {
                let units = Arc::<Units>::default();
                shared.register(generation, |r| {
                    r.indexes.push((owner, key, index, local, units.clone()));
                });
                units
            })
    }

    /// The counters of partition `key` of `table` (or of its index `index`, not 0).
    fn partition(
        &mut self,
        shared: &Shared,
        table: Name,
        index: Name,
        key: &str,
    ) -> &PartitionCells {
        let keys = space_entry(&mut self.spaces, (table, index));
        // Looked up by `&str`, so that a known partition costs no allocation.
        let i = match keys.get(key) {
            Some(&i) => i,
            None => {
                let cells = Arc::<PartitionCells>::default();
                let owner = self.owner;
                shared.register(self.generation, |r| {
                    r.partitions
                        .push((owner, (table, index), key.into(), cells.clone()));
                });
                keys.insert(key.into(), self.partitions.len());
                self.partitions.push(cells);
                self.partitions.len() - 1
            }
        };
        &self.partitions[i]
    }

    /// Adds one call: `items` are (read, returned); `name` numbers a table or index name the
    /// answer carries.
    pub(super) fn record(
        &mut self,
        shared: &Shared,
        plan: &Plan<'_>,
        measured: Measured<'_>,
        items: (u64, u64),
        name: &impl Fn(&str) -> Name,
    ) {
        let generation = shared.generation.load(Ordering::Acquire);
        if generation != self.generation {
            *self = Local {
                owner: self.owner,
                generation,
                ..Local::default()
            };
        }
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
                    self.partition(shared, t.table, t.space, &t.partition)
                        .touches
                        .add(1);
                }
                let i = self.pattern(shared, key);
                let p = &self.patterns[i].1;
                p.calls.add(1);
                if matches!(measured, Measured::Failed) {
                    p.failed.add(1);
                } else {
                    p.unreported.add(1);
                }
            }
            Measured::One(c) => {
                self.record_tables(shared, key, plan, &[(plan.table, c)], read, items, name);
            }
            Measured::Tables(list) => {
                let v: Vec<(Name, &Capacity)> =
                    list.iter().map(|t| (name(&t.table), &t.capacity)).collect();
                self.record_tables(shared, key, plan, &v, read, items, name);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn record_tables(
        &mut self,
        shared: &Shared,
        key: PatternKey,
        plan: &Plan<'_>,
        tables: &[(Name, &Capacity)],
        read: bool,
        items: (u64, u64),
        name: &impl Fn(&str) -> Name,
    ) {
        let i = self.pattern(shared, key);
        let mut units = 0.0;
        let mut table = 0.0;
        for (_, c) in tables {
            units += c.units;
            table += c.table;
            for (index, u) in &c.global_indexes {
                self.index(shared, i, name(index), false).add(*u);
            }
            for (index, u) in &c.local_indexes {
                self.index(shared, i, name(index), true).add(*u);
            }
        }
        let p = &self.patterns[i].1;
        p.calls.add(1);
        p.table.add(table);
        if read {
            p.read.add(units);
            p.max_read.raise(units);
        } else {
            p.write.add(units);
            p.max_write.raise(units);
        }
        p.items_read.add(items.0);
        p.items_returned.add(items.1);
        self.charge_partitions(shared, plan, tables, read, name);
    }

    fn charge(&mut self, shared: &Shared, at: (Name, Name, &str), units: f64, read: bool) {
        self.partition(shared, at.0, at.1, at.2).charge(units, read);
    }

    /// Shares each table's units among the partitions the call addressed in it: the table's
    /// share evenly among its touches, each index's among the touches in that index (a query
    /// of it, or a write that names the item's partition there), else to
    /// [`UNKNOWN_PARTITION`] of the index.
    fn charge_partitions(
        &mut self,
        shared: &Shared,
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
            let entry = self.partition(shared, t.table, t.space, &t.partition);
            entry.touches.add(1);
            entry.charge(c.table, read);
            return;
        }
        // One partition of one index, which alone has units (a query of the index): the
        // table's share and the index's units there, in that order, found once.
        if let ([t], [(table, c)]) = (touches, tables)
            && t.table == *table
            && t.space != 0
            && let ([(index, units)], []) | ([], [(index, units)]) =
                (&c.global_indexes[..], &c.local_indexes[..])
            && name(index) == t.space
        {
            let entry = self.partition(shared, t.table, t.space, &t.partition);
            entry.touches.add(1);
            entry.charge(c.table, read);
            entry.charge(*units, read);
            return;
        }
        for t in touches {
            if !tables.iter().any(|(table, _)| *table == t.table) {
                self.partition(shared, t.table, t.space, &t.partition)
                    .touches
                    .add(1);
            }
        }
        for &(table, c) in tables {
            let n = touches.iter().filter(|t| t.table == table).count();
            if n == 0 && c.table > 0.0 {
                self.charge(shared, (table, 0, UNKNOWN_PARTITION), c.table, read);
            }
            let share = c.table / n.max(1) as f64;
            for t in touches.iter().filter(|t| t.table == table) {
                let entry = self.partition(shared, table, t.space, &t.partition);
                entry.touches.add(1);
                entry.charge(share, read);
            }
            for (index, units) in c.global_indexes.iter().chain(&c.local_indexes) {
                let index = name(index);
                let mine = || touches.iter().filter(|t| t.table == table);
                let queried = mine().filter(|t| t.space == index).count();
                if queried > 0 {
                    let share = units / queried as f64;
                    for t in mine().filter(|t| t.space == index) {
                        self.charge(shared, (table, index, &t.partition), share, read);
                    }
                    continue;
                }
                let written = mine()
                    .flat_map(|t| &t.index_partitions)
                    .filter(|(i, _)| *i == index)
                    .count();
                if written == 0 {
                    self.charge(shared, (table, index, UNKNOWN_PARTITION), *units, read);
                    continue;
                }
                let share = units / written as f64;
                for t in mine() {
                    for (i, key) in &t.index_partitions {
                        if *i == index {
                            self.charge(shared, (table, index, key), share, read);
                        }
                    }
                }
            }
        }
    }
}
