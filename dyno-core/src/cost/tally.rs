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
        let space = (table, index);
        let at = match self.spaces.iter().position(|(s, _)| *s == space) {
            Some(at) => at,
            None => {
                self.spaces.push((space, Partitions::default()));
                self.spaces.len() - 1
            }
        };
        let p = &mut self.spaces[at].1;
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
    #[inline]
    fn add(&self, n: u64) {
        self.0
            .store(self.0.load(Ordering::Relaxed) + n, Ordering::Relaxed);
    }

    #[inline]
    fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// Capacity units (an `f64`'s bits), added to by one thread as a [`Count`] is, read by any.
#[derive(Debug, Default)]
pub(super) struct Units(AtomicU64);

impl Units {
    #[inline]
    fn get(&self) -> f64 {
        f64::from_bits(self.0.load(Ordering::Relaxed))
    }

    #[inline]
    fn set(&self, units: f64) {
        self.0.store(units.to_bits(), Ordering::Relaxed);
    }

    #[inline]
    fn add(&self, units: f64) {
        self.set(self.get() + units);
    }

    #[inline]
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
    /// A call that consumed `units` (`table` of them in the table), items (read, returned).
    #[inline]
    fn add_call(&self, units: f64, table: f64, read: bool, items: (u64, u64)) {
        self.calls.add(1);
        self.table.add(table);
        if read {
            self.read.add(units);
            self.max_read.raise(units);
        } else {
            self.write.add(units);
            self.max_write.raise(units);
        }
        self.items_read.add(items.0);
        self.items_returned.add(items.1);
    }

    /// A call that failed, or whose answer carried no capacity.
    fn count_unmeasured(&self, measured: Measured<'_>) {
        self.calls.add(1);
        if matches!(measured, Measured::Failed) {
            self.failed.add(1);
        } else {
            self.unreported.add(1);
        }
    }

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
    /// One touch of a call whose units all land here (see [`whole_share`]): the table's share,
    /// then the index's, in that order.
    #[inline]
    fn charge_whole(&self, table: f64, index: Option<f64>, read: bool) {
        self.touches.add(1);
        self.charge(table, read);
        if let Some(units) = index {
            self.charge(units, read);
        }
    }

    #[inline]
    fn charge(&self, units: f64, read: bool) {
        if read {
            self.read.add(units);
        } else {
            self.write.add(units);
        }
    }
}

/// Where the units of a call to one partition land when they all land there (see
/// [`whole_share`]).
#[derive(Debug, Clone, Copy)]
enum Whole {
    /// The table alone has units (a get, a query of the table).
    Table,
    /// The queried index alone has units besides the table's share (a query of the index):
    /// `units` of them, in a local index or a global one.
    Index { units: f64, local: bool },
}

impl Whole {
    fn index_units(self) -> Option<f64> {
        match self {
            Whole::Table => None,
            Whole::Index { units, .. } => Some(units),
        }
    }
}

/// How the units of a call to one partition of `space` (a table's, or index `space`'s) land
/// there whole, or `None` when they do not (they are shared among partitions, see
/// [`Local::charge_partitions`]).
#[inline]
fn whole_share(c: &Capacity, space: Name, name: &impl Fn(&str) -> Name) -> Option<Whole> {
    let (units, local) = match (&c.global_indexes[..], &c.local_indexes[..]) {
        ([], []) => return Some(Whole::Table),
        ([(index, units)], []) if space != 0 && name(index) == space => (*units, false),
        ([], [(index, units)]) if space != 0 && name(index) == space => (*units, true),
        _ => return None,
    };
    Some(Whole::Index { units, local })
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

/// Where a thread's counters of a call to one partition are, found before the call is sent
/// ([`Local::slot`]): good for the [`Local`] that found them, at its generation.
#[derive(Debug, Clone, Copy)]
pub(super) struct Slot {
    owner: u64,
    generation: u64,
    pattern: u32,
    partition: u32,
}

/// One partition's counters in a thread's [`Local`], and which partition it is.
#[derive(Debug)]
struct PartitionSlot {
    space: Space,
    key: Box<str>,
    cells: Arc<PartitionCells>,
    /// The next slot whose partition hashes the same ([`NO_SLOT`]: none).
    next: u32,
}

const NO_SLOT: u32 = u32::MAX;

/// The hash of partition `key` of `space`, as [`Local`]'s table keeps it: Fx's, its well mixed
/// high bits turned down to where the table takes its bucket from.
fn partition_hash(space: Space, key: &str) -> u64 {
    let mut h = Fx::default();
    h.add(u64::from(space.0) << 32 | u64::from(space.1));
    h.write(key.as_bytes());
    h.finish().rotate_left(26)
}

/// A hasher for keys that are hashes already ([`partition_hash`]).
#[derive(Debug, Default, Clone, Copy)]
struct Hashed(u64);

impl Hasher for Hashed {
    fn write(&mut self, _: &[u8]) {
        unreachable!("only hashes are hashed again")
    }
    #[inline]
    fn write_u64(&mut self, hash: u64) {
        self.0 = hash;
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
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
    /// Every partition of every space (a table, or one of its indexes).
    partitions: Vec<PartitionSlot>,
    /// The first slot in `partitions` of each [`partition_hash`]: one hash and one probe find
    /// a partition, whatever its space.
    by_hash: HashMap<u64, u32, BuildHasherDefault<Hashed>>,
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

    /// Drops every counter of an older generation than `shared`'s (a reset happened).
    #[inline]
    fn refresh(&mut self, shared: &Shared) {
        let generation = shared.generation.load(Ordering::Acquire);
        if generation != self.generation {
            self.restart(generation);
        }
    }

    #[cold]
    fn restart(&mut self, generation: u64) {
        *self = Local {
            owner: self.owner,
            generation,
            ..Local::default()
        };
    }

    /// The position of pattern `key`.
    #[inline]
    fn pattern(&mut self, shared: &Shared, key: PatternKey) -> usize {
        match self.patterns.get(self.last) {
            Some((k, _)) if *k == key => self.last,
            _ => self.pattern_found(shared, key),
        }
    }

    /// [`Local::pattern`] of a pattern other than the last one.
    fn pattern_found(&mut self, shared: &Shared, key: PatternKey) -> usize {
        let i = match self.positions.get(&key) {
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

    /// The position in `partitions` of partition `key` of `table` (or of its index `index`,
    /// not 0). Looked up by `&str`, so that a known partition costs no allocation.
    fn partition_at(&mut self, shared: &Shared, table: Name, index: Name, key: &str) -> usize {
        let space = (table, index);
        self.partition_hashed(shared, space, key, partition_hash(space, key))
    }

    /// [`Local::partition_at`] of a key whose hash is `hash`.
    fn partition_hashed(&mut self, shared: &Shared, space: Space, key: &str, hash: u64) -> usize {
        let first = self.by_hash.get(&hash).copied().unwrap_or(NO_SLOT);
        let mut at = first;
        while at != NO_SLOT {
            let slot = &self.partitions[at as usize];
            if slot.space == space && *slot.key == *key {
                return at as usize;
            }
            at = slot.next;
        }
        let cells = Arc::<PartitionCells>::default();
        let owner = self.owner;
        shared.register(self.generation, |r| {
            r.partitions.push((owner, space, key.into(), cells.clone()));
        });
        let at = u32::try_from(self.partitions.len()).expect("fewer than 2^32 partitions");
        self.partitions.push(PartitionSlot {
            space,
            key: key.into(),
            cells,
            next: first,
        });
        self.by_hash.insert(hash, at);
        at as usize
    }

    /// The counters of partition `key` of `table` (or of its index `index`, not 0).
    fn partition(
        &mut self,
        shared: &Shared,
        table: Name,
        index: Name,
        key: &str,
    ) -> &PartitionCells {
        let at = self.partition_at(shared, table, index, key);
        &self.partitions[at].cells
    }

    /// Finds, before the call is sent, the counters of a call of pattern `key` to partition
    /// `partition` of `space`, for [`Local::add`] once it answers: the request need not be kept
    /// (or its key copied) for the time of the call.
    #[inline]
    pub(super) fn slot(
        &mut self,
        shared: &Shared,
        key: PatternKey,
        space: Space,
        partition: &str,
    ) -> Slot {
        self.refresh(shared);
        let pattern = self.pattern(shared, key);
        let at = self.partition_at(shared, space.0, space.1, partition);
        Slot {
            owner: self.owner,
            generation: self.generation,
            // Fewer than 2^32 of each: `partition_at` checks.
            pattern: pattern as u32,
            partition: at as u32,
        }
    }

    /// True when `slot` was found by this `Local`, at its current generation (after a reset
    /// it is not: the call raced the reset, and is not counted).
    #[inline]
    fn owns(&mut self, shared: &Shared, slot: Slot) -> bool {
        self.refresh(shared);
        slot.owner == self.owner && slot.generation == self.generation
    }

    /// The call `slot` was found for, as a plan that owns its partition's key: what a call
    /// that answers later (perhaps on another thread) is recorded with. `None` when the slot
    /// is no longer good (a reset).
    pub(super) fn plan_of(&mut self, shared: &Shared, slot: Slot) -> Option<Plan<'static>> {
        if !self.owns(shared, slot) {
            return None;
        }
        let key = self.patterns[slot.pattern as usize].0;
        let p = &self.partitions[slot.partition as usize];
        Some(Plan {
            table: key.table,
            entities: key.entities,
            op: key.op,
            index: key.index,
            touches: Touches::One(Touch {
                table: p.space.0,
                space: p.space.1,
                partition: Cow::Owned(p.key.to_string()),
                index_partitions: Vec::new(),
            }),
        })
    }

    /// Adds a call found at `slot` (by this thread, before it was sent): as [`Local::record`]
    /// would with its plan, without finding the pattern and the partition again.
    #[inline]
    pub(super) fn add(
        &mut self,
        shared: &Shared,
        slot: Slot,
        measured: Measured<'_>,
        items: (u64, u64),
        name: &impl Fn(&str) -> Name,
    ) {
        if !self.owns(shared, slot) {
            return;
        }
        let (i, at) = (slot.pattern as usize, slot.partition as usize);
        self.last = i;
        let key = self.patterns[i].0;
        let read = key.op.is_read();
        let space = self.partitions[at].space;
        // The call's units all land in its partition (a get, a query): nothing to look up.
        let whole = match measured {
            Measured::One(c) if space.0 == key.table => {
                whole_share(c, space.1, name).map(|whole| (c, whole))
            }
            _ => None,
        };
        match (measured, whole) {
            (Measured::Failed | Measured::Unreported, _) => {
                self.partitions[at].cells.touches.add(1);
                self.patterns[i].1.count_unmeasured(measured);
            }
            (_, Some((c, whole))) => {
                if let Whole::Index { units, local } = whole {
                    self.index(shared, i, space.1, local).add(units);
                }
                self.patterns[i].1.add_call(c.units, c.table, read, items);
                let cells = &self.partitions[at].cells;
                cells.charge_whole(c.table, whole.index_units(), read);
            }
            _ => self.add_shared(shared, slot, measured, items, name),
        }
    }

    /// [`Local::add`] of a call whose units are shared among partitions: recorded by its plan.
    #[cold]
    fn add_shared(
        &mut self,
        shared: &Shared,
        slot: Slot,
        measured: Measured<'_>,
        items: (u64, u64),
        name: &impl Fn(&str) -> Name,
    ) {
        let plan = self
            .plan_of(shared, slot)
            .expect("the slot is this Local's");
        self.record(shared, &plan, measured, items, name);
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
        self.refresh(shared);
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
                self.patterns[i].1.count_unmeasured(measured);
            }
            Measured::One(c) => {
                let tables = [(plan.table, c)];
                let i = self.pattern(shared, key);
                self.add_units(shared, i, &tables, read, items, name);
                self.charge_partitions(shared, plan, &tables, read, name);
            }
            Measured::Tables(list) => {
                let tables: Vec<(Name, &Capacity)> =
                    list.iter().map(|t| (name(&t.table), &t.capacity)).collect();
                let i = self.pattern(shared, key);
                self.add_units(shared, i, &tables, read, items, name);
                self.charge_partitions(shared, plan, &tables, read, name);
            }
        }
    }

    /// Adds a call's units in `tables` and its items to the pattern at `i`.
    fn add_units(
        &mut self,
        shared: &Shared,
        i: usize,
        tables: &[(Name, &Capacity)],
        read: bool,
        items: (u64, u64),
        name: &impl Fn(&str) -> Name,
    ) {
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
        self.patterns[i].1.add_call(units, table, read, items);
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
        if let ([t], [(table, c)]) = (touches, tables)
            && t.table == *table
            && let Some(whole) = whole_share(c, t.space, name)
        {
            self.partition(shared, t.table, t.space, &t.partition)
                .charge_whole(c.table, whole.index_units(), read);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn key(op: Operation) -> PatternKey {
        PatternKey {
            table: 1,
            entities: 1,
            op,
            index: 0,
        }
    }

    fn no_name(_: &str) -> Name {
        0
    }

    /// A slot found before a reset is not used after it: the call is not added to the new
    /// generation's counters at another pattern's or partition's position, and no plan is
    /// made of it.
    #[test]
    fn a_slot_found_before_a_reset_adds_nothing_after_it() {
        let shared = Shared::default();
        let mut local = Local::new(&shared);
        let capacity = Capacity::table(0.5);
        let stale = local.slot(&shared, key(Operation::Get), (1, 0), "USER#1");
        shared.reset();
        // The new generation's first pattern and partition are at the stale slot's positions.
        let fresh = local.slot(&shared, key(Operation::Query), (1, 0), "USER#2");
        assert!(local.plan_of(&shared, stale).is_none());
        local.add(&shared, stale, Measured::One(&capacity), (1, 1), &no_name);
        local.add(&shared, fresh, Measured::One(&capacity), (3, 2), &no_name);
        let tally = shared.registry.lock().unwrap().sum();
        let rows: Vec<_> = tally
            .patterns
            .iter()
            .map(|(k, t)| (k.op, t.calls, t.read))
            .collect();
        assert_eq!(rows, [(Operation::Query, 1, 0.5)]);
        let (space, parts) = &tally.spaces[0];
        assert_eq!(*space, (1, 0));
        assert_eq!(
            parts.keys.keys().map(|k| &**k).collect::<Vec<_>>(),
            ["USER#2"]
        );
    }

    /// Partitions whose keys hash alike stay apart, in every space: the table's and each
    /// index's partitions of one key are different partitions.
    #[test]
    fn partitions_are_found_by_space_and_key() {
        let shared = Shared::default();
        let mut local = Local::new(&shared);
        let spaces = [(1, 0), (1, 2), (3, 0)];
        for round in 0..2 {
            for (s, space) in spaces.iter().enumerate() {
                for k in 0..500 {
                    let at = local.partition_at(&shared, space.0, space.1, &format!("K#{k}"));
                    assert_eq!(at, s * 500 + k, "round {round}");
                }
            }
        }
        // Keys whose hashes collide: one chain, each found through it.
        let first = local.partitions.len();
        for round in 0..2 {
            for k in 0..4 {
                let key = format!("collides {k}");
                assert_eq!(local.partition_hashed(&shared, (9, 9), &key, 7), first + k);
            }
            let other_space = local.partition_hashed(&shared, (9, 8), "collides 0", 7);
            assert_eq!(other_space, first + 4, "round {round}");
        }
        assert_eq!(shared.registry.lock().unwrap().partitions.len(), first + 5);
    }
}
