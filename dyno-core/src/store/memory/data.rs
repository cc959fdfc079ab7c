//! One table's contents: the primary map, the index maps and the TTL expiry index, changed
//! together so that an index entry never exists without its item (every change happens under the
//! table's write lock, in one call).
//!
//! Layout, for cheap writes: keys are [`KeyBytes`] (inline when short, so B-tree searches compare
//! them in place), an index entry holds the item's `Arc` (or its projection), and each stored
//! item keeps its index keys, so that replacing or deleting it finds its index entries without
//! looking into the old item, and an entry whose index key did not change is overwritten in place.
//!
//! Layout, for reads that cost the same at any size: partitions are found by hashing their key
//! ([`Partitions`]: a few cache lines, where a B-tree of 100,000 partitions walks six or seven
//! levels of cold nodes), and kept in key order beside that for scans. A point read does not
//! search a partition at all: [`Points`] maps each full key to a copy of its entry (the item's
//! `Arc`, size and expiry), one hash probe and one cache line, where the partition's B-tree node
//! takes a linear search over several cold lines of keys. The copy is kept in step by
//! [`TableData`]'s write paths (`put`, `remove_by`, `set_ttl`); `TableData::check` proves it.

use std::collections::btree_map;
use std::collections::{btree_set, BTreeMap, BTreeSet, HashMap};
use std::ops::Bound;
use std::sync::Arc;

use super::key_bytes::KeyBytes;
use super::points::Points;
use super::schema::{IndexPos, IndexSchema, Schema};
use super::{ChangeCause, StreamLog};
use super::{Prepared, Side};
use crate::error::Result;
use crate::value::{item_size, AttributeValue, Item, SharedItem};

/// A stored item (or index entry) with what reads need without looking inside it.
#[derive(Debug, Clone)]
pub(super) struct Entry {
    /// The item, shared with readers.
    pub item: SharedItem,
    /// Its size by DynamoDB's formula (for the 1 MB page rule).
    pub size: usize,
    /// When it expires (TTL attribute, epoch seconds), if TTL is enabled and it has one.
    pub expires: Expiry,
}

impl Entry {
    /// True when the item has not expired at `now` (epoch seconds).
    pub(super) fn is_live(&self, now: f64) -> bool {
        // One integer comparison for an item without an expiry.
        self.expires == Expiry::NEVER
            || !crate::ttl::expired_at(f64::from_bits(self.expires.0), now)
    }
}

/// When an item expires, in epoch seconds, or never: an `Option<f64>` in 8 bytes instead of 16
/// (every entry of every map holds one), as the bits of the `f64`, with a NaN's bits for never
/// (a TTL is always a finite number).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Expiry(u64);

const _: () = assert!(std::mem::size_of::<Entry>() == 24);

impl Expiry {
    /// No expiry.
    pub(super) const NEVER: Expiry = Expiry(u64::MAX);

    /// The expiry time, if any.
    pub(super) fn get(self) -> Option<f64> {
        (self != Expiry::NEVER).then(|| f64::from_bits(self.0))
    }
}

/// An item's key in each index, in `Schema::indexes` order: the index partition and sort key
/// bytes, or `None` where the item is absent from a sparse index.
pub(super) type IndexKeys = Box<[Option<(KeyBytes, KeyBytes)>]>;

/// An item in the table's primary map.
#[derive(Debug)]
pub(super) struct Stored {
    /// The item as reads see it.
    pub entry: Entry,
    /// Where its index entries are.
    pub index_keys: IndexKeys,
}

impl Stored {
    /// The item as a side of a write, for its capacity.
    pub(super) fn side(&self) -> Side<'_> {
        Side {
            item: &self.entry.item,
            size: self.entry.size,
            index_keys: &self.index_keys,
        }
    }
}

/// One index's partitions: index partition key, then position, to entry.
pub(super) type IndexMap = Partitions<IndexPos, Entry>;

/// The partitions of a table or an index, by partition key: a hash map that point reads and
/// writes find a partition in (a few cache lines, whatever the number of partitions), and the
/// partition keys in order, which scans walk. Each partition is a B-tree in sort order (queries
/// read ranges of it); none is empty.
///
/// The two agree because only [`Partitions::insert`] adds a partition and only
/// [`Partitions::remove`] takes one away (when its last entry goes).
#[derive(Debug)]
pub(super) struct Partitions<K, V> {
    /// Partition key to partition.
    by_key: HashMap<KeyBytes, BTreeMap<K, V>, foldhash::fast::RandomState>,
    /// The same partition keys, in order.
    ordered: BTreeSet<KeyBytes>,
}

impl<K, V> Default for Partitions<K, V> {
    fn default() -> Self {
        Partitions {
            by_key: HashMap::default(),
            ordered: BTreeSet::new(),
        }
    }
}

impl<K: Ord, V> Partitions<K, V> {
    /// The partition at `pk`.
    #[inline]
    pub(super) fn get(&self, pk: &KeyBytes) -> Option<&BTreeMap<K, V>> {
        self.by_key.get(pk)
    }

    /// The entry at `key` of partition `pk`, to change in place.
    pub(super) fn get_mut(&mut self, pk: &KeyBytes, key: &K) -> Option<&mut V> {
        self.by_key.get_mut(pk)?.get_mut(key)
    }

    /// The slot of `key` in partition `pk`, when that partition exists (otherwise
    /// [`Partitions::insert`] makes it). Filling or replacing the slot keeps the partition
    /// non-empty; remove through [`Partitions::remove`].
    pub(super) fn slot(&mut self, pk: &KeyBytes, key: K) -> Option<btree_map::Entry<'_, K, V>> {
        Some(self.by_key.get_mut(pk)?.entry(key))
    }

    /// Stores `value` at `key` of partition `pk`, making the partition if there is none; returns
    /// what was there. The one place a partition is added.
    pub(super) fn insert(&mut self, pk: &KeyBytes, key: K, value: V) -> Option<V> {
        if let Some(partition) = self.by_key.get_mut(pk) {
            return partition.insert(key, value);
        }
        self.ordered.insert(pk.clone());
        self.by_key
            .insert(pk.clone(), BTreeMap::from([(key, value)]));
        None
    }

    /// Removes the entry at `key` of partition `pk`, and the partition with its last entry. The
    /// one place a partition is taken away.
    pub(super) fn remove(&mut self, pk: &KeyBytes, key: &K) -> Option<V> {
        let partition = self.by_key.get_mut(pk)?;
        let old = partition.remove(key)?;
        if partition.is_empty() {
            self.by_key.remove(pk);
            self.ordered.remove(pk);
        }
        Some(old)
    }

    /// True when there is no partition.
    #[cfg(test)]
    pub(super) fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }

    /// The partitions, in no particular order.
    pub(super) fn values(&self) -> impl Iterator<Item = &BTreeMap<K, V>> {
        self.by_key.values()
    }

    /// Every entry, to change in place, in no particular order: (partition key, key, entry).
    pub(super) fn entries_mut(&mut self) -> impl Iterator<Item = (&KeyBytes, &K, &mut V)> {
        self.by_key
            .iter_mut()
            .flat_map(|(pk, partition)| partition.iter_mut().map(move |(k, v)| (pk, k, v)))
    }

    /// The partitions from `first` on whose key `keep` accepts, in key order (a key refused is
    /// not looked up: a segment of a scan pays for its own partitions only).
    pub(super) fn range<F: FnMut(&KeyBytes) -> bool>(
        &self,
        first: Bound<KeyBytes>,
        keep: F,
    ) -> Iter<'_, K, V, F> {
        Iter {
            keys: self.ordered.range((first, Bound::Unbounded)),
            by_key: &self.by_key,
            keep,
        }
    }

    /// Panics unless the hash map and the ordered keys hold the same partitions, none empty.
    #[cfg(test)]
    pub(super) fn check(&self) {
        assert_eq!(
            self.by_key.len(),
            self.ordered.len(),
            "as many ordered partition keys as partitions"
        );
        for pk in &self.ordered {
            assert!(
                self.by_key.contains_key(pk),
                "ordered key {pk:?} without its partition"
            );
        }
        assert!(
            self.by_key.values().all(|p| !p.is_empty()),
            "empty partitions are dropped"
        );
    }
}

/// Partitions in key order: [`Partitions::range`].
#[derive(Debug)]
pub(super) struct Iter<'a, K, V, F = fn(&KeyBytes) -> bool> {
    keys: btree_set::Range<'a, KeyBytes>,
    by_key: &'a HashMap<KeyBytes, BTreeMap<K, V>, foldhash::fast::RandomState>,
    keep: F,
}

impl<'a, K, V, F: FnMut(&KeyBytes) -> bool> Iterator for Iter<'a, K, V, F> {
    type Item = (&'a KeyBytes, &'a BTreeMap<K, V>);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let pk = self.keys.next()?;
            if (self.keep)(pk) {
                let partition = self.by_key.get(pk).unwrap_or_else(|| {
                    unreachable!("an ordered partition key without its partition")
                });
                return Some((pk, partition));
            }
        }
    }
}

impl<'a, K: Ord, V> IntoIterator for &'a Partitions<K, V> {
    type Item = (&'a KeyBytes, &'a BTreeMap<K, V>);
    type IntoIter = Iter<'a, K, V>;

    fn into_iter(self) -> Self::IntoIter {
        self.range(Bound::Unbounded, |_| true)
    }
}

/// A table's mutable state.
#[derive(Debug, Default)]
pub(super) struct TableData {
    /// The TTL attribute, when TTL is enabled.
    pub ttl_attribute: Option<String>,
    /// Partition key bytes, then sort key bytes, to item.
    pub partitions: Partitions<KeyBytes, Stored>,
    /// The same items' entries by full key, for point reads.
    points: Points,
    /// Number of stored items (expired ones not yet purged included).
    pub len: usize,
    /// One map per index, in `Schema::indexes` order: index partition key to entries.
    pub indexes: Vec<IndexMap>,
    /// Items with an expiry: (whole seconds, partition key, sort key), oldest first.
    expiry: BTreeSet<(i64, KeyBytes, KeyBytes)>,
    /// The table's stream, when enabled: every change below is recorded there, in commit order.
    pub stream: Option<Arc<StreamLog>>,
}

impl TableData {
    /// An empty table.
    pub(super) fn new(schema: &Schema) -> Self {
        TableData {
            ttl_attribute: schema.def.ttl_attribute.clone(),
            indexes: schema.indexes.iter().map(|_| IndexMap::default()).collect(),
            ..TableData::default()
        }
    }

    /// The stored entry at a key, expired or not.
    #[inline]
    pub(super) fn get(&self, pk: &KeyBytes, sk: &KeyBytes) -> Option<&Entry> {
        self.points.get(pk, sk)
    }

    /// The entry at a key unless it has expired at the time `now` gives (read only for an
    /// item that has an expiry).
    pub(super) fn live(
        &self,
        pk: &KeyBytes,
        sk: &KeyBytes,
        now: impl FnOnce() -> f64,
    ) -> Option<&Entry> {
        self.get(pk, sk)
            .filter(|e| e.expires == Expiry::NEVER || e.is_live(now()))
    }

    /// True when some item has an expiry (only then can a write have expired items to purge).
    pub(super) fn has_expiring(&self) -> bool {
        !self.expiry.is_empty()
    }

    /// Stores a prepared item at its key unless `check` (given the current item) refuses,
    /// replacing what was there and updating every index. Returns the new item and what it
    /// replaced (with its size and index keys, for the write's capacity). On error nothing has
    /// changed.
    pub(super) fn put(
        &mut self,
        schema: &Schema,
        prepared: Prepared,
        check: impl FnOnce(Option<&SharedItem>) -> Result<()>,
    ) -> Result<(SharedItem, Option<Stored>)> {
        let Prepared {
            pk,
            sk,
            item,
            size,
            index_keys,
        } = prepared;
        let expires = expiry_of(&item, self.ttl_attribute.as_deref());
        let TableData {
            partitions,
            points,
            indexes,
            expiry,
            len,
            stream,
            ..
        } = self;
        let slot = partitions.slot(&pk, sk.clone());
        let old = match &slot {
            Some(btree_map::Entry::Occupied(o)) => Some(o.get()),
            _ => None,
        };
        check(old.map(|o| &o.entry.item))?;
        if let Some(o) = old {
            warm_for_drop(&o.entry.item);
        }
        let item = Arc::new(item);
        let new = NewEntry {
            item: &item,
            size,
            expires,
        };
        update_indexes(
            schema,
            indexes,
            &pk,
            &sk,
            old.map(|o| &*o.index_keys),
            Some((&index_keys, new)),
        );
        let old_expires = old.and_then(|o| o.entry.expires.get());
        if old_expires.map(expiry_second) != expires.get().map(expiry_second) {
            if let Some(t) = old_expires {
                expiry.remove(&(expiry_second(t), pk.clone(), sk.clone()));
            }
            if let Some(t) = expires.get() {
                expiry.insert((expiry_second(t), pk.clone(), sk.clone()));
            }
        }
        let entry = Entry {
            item: Arc::clone(&item),
            size,
            expires,
        };
        // One probe either way: the partition's slot told whether the item is new.
        points.insert(&pk, &sk, entry.clone());
        let stored = Stored { entry, index_keys };
        let old = match slot {
            Some(btree_map::Entry::Occupied(mut o)) => Some(std::mem::replace(o.get_mut(), stored)),
            Some(btree_map::Entry::Vacant(v)) => {
                v.insert(stored);
                None
            }
            None => partitions.insert(&pk, sk, stored),
        };
        if old.is_none() {
            *len += 1;
        }
        if let Some(log) = stream {
            log.record(
                old.as_ref().map(|o| &o.entry.item),
                Some(&item),
                ChangeCause::Request,
            );
        }
        Ok((item, old))
    }

    /// Stores a prepared item at its key, replacing what was there; returns the stored item.
    pub(super) fn insert(&mut self, schema: &Schema, prepared: Prepared) -> SharedItem {
        self.replace_stored(schema, prepared).0
    }

    /// Stores a prepared item at its key; returns the stored item and the one it replaced.
    pub(super) fn replace(
        &mut self,
        schema: &Schema,
        prepared: Prepared,
    ) -> (SharedItem, Option<SharedItem>) {
        let (new, old) = self.replace_stored(schema, prepared);
        (new, old.map(|o| o.entry.item))
    }

    /// [`TableData::replace`], returning what was replaced as it was stored.
    pub(super) fn replace_stored(
        &mut self,
        schema: &Schema,
        prepared: Prepared,
    ) -> (SharedItem, Option<Stored>) {
        match self.put(schema, prepared, |_| Ok(())) {
            Ok(stored) => stored,
            Err(_) => unreachable!("a put without a check cannot fail"),
        }
    }

    /// Removes the item at a key with its index entries, returning it.
    pub(super) fn remove(
        &mut self,
        schema: &Schema,
        pk: &KeyBytes,
        sk: &KeyBytes,
    ) -> Option<SharedItem> {
        self.take(schema, pk, sk).map(|o| o.entry.item)
    }

    /// [`TableData::remove`], returning the item as it was stored.
    pub(super) fn take(&mut self, schema: &Schema, pk: &KeyBytes, sk: &KeyBytes) -> Option<Stored> {
        self.remove_by(schema, pk, sk, ChangeCause::Request)
    }

    /// Removes the item at a key, for a request or by TTL (the stream tells them apart).
    fn remove_by(
        &mut self,
        schema: &Schema,
        pk: &KeyBytes,
        sk: &KeyBytes,
        cause: ChangeCause,
    ) -> Option<Stored> {
        let old = self.partitions.remove(pk, sk)?;
        self.points.remove(pk, sk);
        self.len -= 1;
        update_indexes(
            schema,
            &mut self.indexes,
            pk,
            sk,
            Some(&old.index_keys),
            None,
        );
        if let Some(t) = old.entry.expires.get() {
            self.expiry
                .remove(&(expiry_second(t), pk.clone(), sk.clone()));
        }
        if let Some(log) = &self.stream {
            log.record(Some(&old.entry.item), None, cause);
        }
        Some(old)
    }

    /// Deletes every item expired at `now` (epoch seconds). Cheap when nothing has expired.
    pub(super) fn purge_expired(&mut self, schema: &Schema, now: f64) {
        let cutoff = expiry_second(now);
        if self.expiry.first().is_none_or(|(s, _, _)| *s > cutoff) {
            return;
        }
        let due: Vec<(KeyBytes, KeyBytes)> = self
            .expiry
            .range(
                // Times more than five years past never expire: not looked at again.
                (
                    expiry_second(now - crate::ttl::MAX_AGE.as_secs_f64()),
                    KeyBytes::empty(),
                    KeyBytes::empty(),
                )
                    ..(
                        cutoff.saturating_add(1),
                        KeyBytes::empty(),
                        KeyBytes::empty(),
                    ),
            )
            .filter(|(_, pk, sk)| self.get(pk, sk).is_some_and(|e| !e.is_live(now)))
            .map(|(_, pk, sk)| (pk.clone(), sk.clone()))
            .collect();
        for (pk, sk) in due {
            self.remove_by(schema, &pk, &sk, ChangeCause::Ttl);
        }
    }

    /// Enables TTL on `attribute` (or disables it with `None`), recomputing every expiry.
    pub(super) fn set_ttl(&mut self, attribute: Option<String>) {
        self.ttl_attribute = attribute;
        self.expiry.clear();
        let ttl = self.ttl_attribute.as_deref();
        for (pk, sk, stored) in self.partitions.entries_mut() {
            stored.entry.expires = expiry_of(&stored.entry.item, ttl);
            if let Some(point) = self.points.get_mut(pk, sk) {
                point.expires = stored.entry.expires;
            }
            if let Some(t) = stored.entry.expires.get() {
                self.expiry
                    .insert((expiry_second(t), pk.clone(), sk.clone()));
            }
        }
        let partitions = &self.partitions;
        for map in &mut self.indexes {
            for (_, pos, entry) in map.entries_mut() {
                entry.expires = partitions
                    .get(&pos.table_pk)
                    .and_then(|p| p.get(&pos.table_sk))
                    .map_or(Expiry::NEVER, |base| base.entry.expires);
            }
        }
    }

    /// Moves this table's items under `schema`, whose global indexes differ from `old`'s
    /// (UpdateTable), and returns the table so made, leaving `self` empty: the entries of an index
    /// both schemas have are moved as they are, an index only `schema` has is filled from the
    /// items (see [`Schema::backfill_key`]), an index only `old` has is dropped.
    pub(super) fn reindex(&mut self, old: &Schema, schema: &Schema) -> TableData {
        // Where each index of `schema` comes from: its position in `old`, or `None` (new).
        let from: Vec<Option<usize>> = schema
            .indexes
            .iter()
            .map(|i| old.index(&i.name).map(|(at, _)| at))
            .collect();
        let mut old_maps: Vec<Option<IndexMap>> = std::mem::take(&mut self.indexes)
            .into_iter()
            .map(Some)
            .collect();
        let mut indexes: Vec<IndexMap> = from
            .iter()
            .map(|f| f.and_then(|at| old_maps[at].take()).unwrap_or_default())
            .collect();
        let mut partitions = std::mem::take(&mut self.partitions);
        for (pk, sk, stored) in partitions.entries_mut() {
            let mut keys = Vec::with_capacity(from.len());
            for (i, f) in from.iter().enumerate() {
                let key = match f {
                    Some(at) => stored.index_keys[*at].clone(),
                    None => schema.backfill_key(i, &stored.entry.item),
                };
                if let (None, Some((ipk, isk))) = (f, &key) {
                    let entry = NewEntry {
                        item: &stored.entry.item,
                        size: stored.entry.size,
                        expires: stored.entry.expires,
                    }
                    .for_index(schema, &schema.indexes[i]);
                    let pos = IndexPos {
                        sk: isk.clone(),
                        table_pk: pk.clone(),
                        table_sk: sk.clone(),
                    };
                    indexes[i].insert(ipk, pos, entry);
                }
                keys.push(key);
            }
            stored.index_keys = keys.into_boxed_slice();
        }
        TableData {
            ttl_attribute: self.ttl_attribute.clone(),
            partitions,
            points: std::mem::take(&mut self.points),
            len: std::mem::take(&mut self.len),
            indexes,
            expiry: std::mem::take(&mut self.expiry),
            stream: self.stream.take(),
        }
    }

    /// Panics unless the structures that hold the same items agree: each map's hashed partitions
    /// and ordered partition keys, and the point entries with the partitions' (same `Arc`, size,
    /// expiry; none missing, none extra).
    #[cfg(test)]
    pub(super) fn check(&self) {
        self.partitions.check();
        for map in &self.indexes {
            map.check();
        }
        let mut items = 0;
        for (pk, partition) in &self.partitions {
            for (sk, stored) in partition {
                items += 1;
                let point = self
                    .points
                    .get(pk, sk)
                    .unwrap_or_else(|| panic!("item {pk:?} {sk:?} without its point entry"));
                assert!(
                    Arc::ptr_eq(&point.item, &stored.entry.item),
                    "the point entry of {pk:?} {sk:?} is its item"
                );
                assert_eq!(point.size, stored.entry.size, "point entry size");
                assert_eq!(point.expires, stored.entry.expires, "point entry expiry");
            }
        }
        assert_eq!(self.points.len(), items, "point entries without items");
    }

    /// Number of items not expired at `now`.
    pub(super) fn live_count(&self, now: f64) -> usize {
        if self.expiry.is_empty() {
            return self.len;
        }
        self.partitions
            .values()
            .flat_map(|p| p.values())
            .filter(|s| s.entry.is_live(now))
            .count()
    }
}

/// The item an index entry is made from.
#[derive(Clone, Copy)]
struct NewEntry<'a> {
    item: &'a SharedItem,
    size: usize,
    expires: Expiry,
}

impl NewEntry<'_> {
    /// The entry `index` holds for this item: the item itself for `ALL`, else its projection.
    fn for_index(self, schema: &Schema, index: &IndexSchema) -> Entry {
        match schema.project_for_index(index, self.item) {
            Some(projected) => Entry {
                size: item_size(&projected),
                item: Arc::new(projected),
                expires: self.expires,
            },
            None => Entry {
                item: Arc::clone(self.item),
                size: self.size,
                expires: self.expires,
            },
        }
    }
}

/// Moves an item's index entries from its old keys to its new ones: an entry whose key did not
/// change is overwritten in place (one search), others are removed and inserted.
fn update_indexes(
    schema: &Schema,
    indexes: &mut [IndexMap],
    pk: &KeyBytes,
    sk: &KeyBytes,
    old: Option<&[Option<(KeyBytes, KeyBytes)>]>,
    new: Option<(&IndexKeys, NewEntry<'_>)>,
) {
    let pos = |isk: &KeyBytes| IndexPos {
        sk: isk.clone(),
        table_pk: pk.clone(),
        table_sk: sk.clone(),
    };
    for (i, (index, map)) in schema.indexes.iter().zip(indexes).enumerate() {
        let old_key = old.and_then(|k| k[i].as_ref());
        let new_key = new.and_then(|(k, e)| Some((k[i].as_ref()?, e)));
        if let (Some(o), Some((n, entry))) = (old_key, new_key)
            && o == n
        {
            let at = pos(&n.1);
            if let Some(slot) = map.get_mut(&n.0, &at) {
                *slot = entry.for_index(schema, index);
                continue;
            }
        }
        if let Some((ipk, isk)) = old_key {
            map.remove(ipk, &pos(isk));
        }
        if let Some(((ipk, isk), entry)) = new_key {
            map.insert(ipk, pos(isk), entry.for_index(schema, index));
        }
    }
}

/// Reads one byte of each heap block of an item that is about to be replaced, so that its
/// blocks are in the CPU cache by the time they are freed.
///
/// An item replaced long after it was written sits in cold memory, and freeing it touches
/// every block (names, values): one cache miss each, taken one after another inside the
/// allocator. These loads do not depend on each other, so the CPU has them in flight together,
/// while the index upkeep that follows runs.
fn warm_for_drop(item: &Item) {
    let mut seen = 0u8;
    for (name, value) in item {
        seen ^= first_byte(name.as_bytes());
        seen ^= match value {
            AttributeValue::S(s) | AttributeValue::N(s) => first_byte(s.as_bytes()),
            AttributeValue::B(b) => first_byte(b.as_ref()),
            _ => 0,
        };
    }
    std::hint::black_box(seen);
}

fn first_byte(bytes: &[u8]) -> u8 {
    bytes.first().copied().unwrap_or(0)
}

/// The expiry of an item: its TTL attribute as epoch seconds (see [`crate::ttl::seconds`]).
fn expiry_of(item: &Item, ttl: Option<&str>) -> Expiry {
    match ttl.and_then(|a| item.get(a)).and_then(crate::ttl::seconds) {
        Some(t) => Expiry(t.to_bits()),
        None => Expiry::NEVER,
    }
}

/// Whole seconds of an expiry, for the expiry index (saturating).
fn expiry_second(t: f64) -> i64 {
    t.floor() as i64
}
