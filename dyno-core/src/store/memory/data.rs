//! One table's contents: the primary map, the index maps and the TTL expiry index, changed
//! together so that an index entry never exists without its item (every change happens under the
//! table's write lock, in one call).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::keys::{IndexPos, KeyBytes, Schema};
use crate::value::{item_size, AttributeValue, Item, SharedItem};

/// A stored item (or index entry) with what reads need without looking inside it.
#[derive(Debug, Clone)]
pub(super) struct Entry {
    /// The item, shared with readers.
    pub item: SharedItem,
    /// Its size by DynamoDB's formula (for the 1 MB page rule).
    pub size: usize,
    /// When it expires (TTL attribute, epoch seconds), if TTL is enabled and it has one.
    pub expires: Option<f64>,
}

impl Entry {
    /// True when the item has not expired at `now` (epoch seconds).
    pub fn is_live(&self, now: f64) -> bool {
        self.expires.is_none_or(|t| t >= now)
    }
}

/// One partition of the table: sort key bytes to entry.
pub(super) type Partition = BTreeMap<KeyBytes, Entry>;
/// One partition of an index.
pub(super) type IndexPartition = BTreeMap<IndexPos, Entry>;

/// A table's mutable state.
#[derive(Debug, Default)]
pub(super) struct TableData {
    /// The TTL attribute, when TTL is enabled.
    pub ttl_attribute: Option<String>,
    /// Partition key bytes to partition.
    pub partitions: BTreeMap<KeyBytes, Partition>,
    /// Number of stored items (expired ones not yet purged included).
    pub len: usize,
    /// One map per index, in `Schema::indexes` order: index partition key to entries.
    pub indexes: Vec<BTreeMap<KeyBytes, IndexPartition>>,
    /// Items with an expiry: (whole seconds, partition key, sort key), oldest first.
    expiry: BTreeSet<(i64, KeyBytes, KeyBytes)>,
}

impl TableData {
    /// An empty table.
    pub fn new(schema: &Schema) -> Self {
        TableData {
            ttl_attribute: schema.def.ttl_attribute.clone(),
            indexes: schema.indexes.iter().map(|_| BTreeMap::new()).collect(),
            ..TableData::default()
        }
    }

    /// The stored entry at a key, expired or not.
    pub fn get(&self, pk: &[u8], sk: &[u8]) -> Option<&Entry> {
        self.partitions.get(pk)?.get(sk)
    }

    /// The entry at a key unless it has expired at `now`.
    pub fn live(&self, pk: &[u8], sk: &[u8], now: f64) -> Option<&Entry> {
        self.get(pk, sk).filter(|e| e.is_live(now))
    }

    /// Stores `item` at its key, replacing (and returning) what was there, and updates every index.
    /// `size` is the item's size and `index_keys` its index keys as `Schema::index_keys` computed
    /// them.
    pub fn insert(
        &mut self,
        schema: &Schema,
        pk: KeyBytes,
        sk: KeyBytes,
        item: SharedItem,
        size: usize,
        index_keys: Vec<Option<(KeyBytes, IndexPos)>>,
    ) -> Option<Entry> {
        let old = self.remove(schema, &pk, &sk);
        let expires = expiry_of(&item, self.ttl_attribute.as_deref());
        for ((index, map), key) in schema.indexes.iter().zip(&mut self.indexes).zip(index_keys) {
            let Some((ipk, pos)) = key else { continue };
            let entry = match schema.project_for_index(index, &item) {
                Some(projected) => Entry {
                    size: item_size(&projected),
                    item: Arc::new(projected),
                    expires,
                },
                None => Entry {
                    item: Arc::clone(&item),
                    size,
                    expires,
                },
            };
            map.entry(ipk).or_default().insert(pos, entry);
        }
        if let Some(t) = expires {
            self.expiry
                .insert((expiry_second(t), pk.clone(), sk.clone()));
        }
        self.partitions.entry(pk).or_default().insert(
            sk,
            Entry {
                item,
                size,
                expires,
            },
        );
        self.len += 1;
        old
    }

    /// Removes the item at a key with its index entries, returning it.
    pub fn remove(&mut self, schema: &Schema, pk: &[u8], sk: &[u8]) -> Option<Entry> {
        let partition = self.partitions.get_mut(pk)?;
        let old = partition.remove(sk)?;
        if partition.is_empty() {
            self.partitions.remove(pk);
        }
        self.len -= 1;
        for (index, map) in schema.indexes.iter().zip(&mut self.indexes) {
            let Some((ipk, pos)) = schema.index_key(index, &old.item, pk, sk) else {
                continue;
            };
            if let Some(part) = map.get_mut(&ipk) {
                part.remove(&pos);
                if part.is_empty() {
                    map.remove(&ipk);
                }
            }
        }
        if let Some(t) = old.expires {
            self.expiry
                .remove(&(expiry_second(t), pk.to_vec(), sk.to_vec()));
        }
        Some(old)
    }

    /// Deletes every item expired at `now` (epoch seconds). Cheap when nothing has expired.
    pub fn purge_expired(&mut self, schema: &Schema, now: f64) {
        let cutoff = expiry_second(now);
        if self.expiry.first().is_none_or(|(s, _, _)| *s > cutoff) {
            return;
        }
        let due: Vec<(KeyBytes, KeyBytes)> = self
            .expiry
            .range(..(cutoff.saturating_add(1), Vec::new(), Vec::new()))
            .filter(|(_, pk, sk)| self.get(pk, sk).is_some_and(|e| !e.is_live(now)))
            .map(|(_, pk, sk)| (pk.clone(), sk.clone()))
            .collect();
        for (pk, sk) in due {
            self.remove(schema, &pk, &sk);
        }
    }

    /// Enables TTL on `attribute` (or disables it with `None`), recomputing every expiry.
    pub fn set_ttl(&mut self, attribute: Option<String>) {
        self.ttl_attribute = attribute;
        self.expiry.clear();
        let ttl = self.ttl_attribute.as_deref();
        for (pk, partition) in &mut self.partitions {
            for (sk, entry) in partition.iter_mut() {
                entry.expires = expiry_of(&entry.item, ttl);
                if let Some(t) = entry.expires {
                    self.expiry
                        .insert((expiry_second(t), pk.clone(), sk.clone()));
                }
            }
        }
        let partitions = &self.partitions;
        for map in &mut self.indexes {
            for entry_map in map.values_mut() {
                for (pos, entry) in entry_map.iter_mut() {
                    entry.expires = partitions
                        .get(&pos.table_pk)
                        .and_then(|p| p.get(&pos.table_sk))
                        .and_then(|base| base.expires);
                }
            }
        }
    }

    /// Number of items not expired at `now`.
    pub fn live_count(&self, now: f64) -> usize {
        if self.expiry.is_empty() {
            return self.len;
        }
        self.partitions
            .values()
            .flat_map(|p| p.values())
            .filter(|e| e.is_live(now))
            .count()
    }
}

/// The expiry of an item: its TTL attribute as epoch seconds, when it is a number.
fn expiry_of(item: &Item, ttl: Option<&str>) -> Option<f64> {
    match item.get(ttl?)? {
        AttributeValue::N(n) => n.parse::<f64>().ok().filter(|t| t.is_finite()),
        _ => None,
    }
}

/// Whole seconds of an expiry, for the expiry index (saturating).
fn expiry_second(t: f64) -> i64 {
    t.floor() as i64
}
