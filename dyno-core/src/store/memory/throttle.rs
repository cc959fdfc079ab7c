//! Partition limits enforced in real time ([`MemoryStore::with_partition_limits`]): a small layer
//! at the engine's request entry. Each request is charged to the partitions it touches (the
//! table's partition key value, and for writes the global secondary index partitions the item
//! is in) in token buckets refilled on the store's clock, by [`crate::hot`]'s rules; a request
//! that finds one of them spent is answered as DynamoDB answers it: `Error::Throttled`
//! (`ProvisionedThroughputExceededException`), unprocessed items or keys in a batch (or the
//! error when none could be processed), a cancelled transaction with `ThrottlingError` reasons.
//!
//! The engine's own methods are the [`Engine`] trait (implemented in `mod.rs`); `Store` for
//! `MemoryStore` (`store.rs`) calls them through the throttle here, or directly without limits.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use super::{read_lock, MemoryStore};
use crate::error::{CancellationReason, Error, Result};
use crate::hot::{Bucket, PartitionLimits};
use crate::store::{
    read_units, write_units, BatchGetOutput, BatchGetRequest, BatchWriteOutput, BatchWriteRequest,
    Capacity, DeleteRequest, GetOutput, GetRequest, Page, PutRequest, QueryRequest, ScanRequest,
    TableDescription, TransactGetOutput, TransactGetRequest, TransactWriteOutput,
    TransactWriteRequest, UpdateRequest, UpdateTableRequest, WriteOutput, WriteRequest,
};
use crate::table::TableDef;
use crate::value::{item_size, AttributeValue, Item, SharedItem};

/// The engine's requests, synchronous: `MemoryStore`'s own (`mod.rs`), and the same through
/// the throttle (`Throttled`, `store.rs`), which is what `Store` for `MemoryStore` calls.
pub(super) trait Engine {
    fn get_item(&self, r: GetRequest<'_>) -> Result<GetOutput>;
    fn put_item(&self, r: PutRequest) -> Result<WriteOutput>;
    fn update_item(&self, r: UpdateRequest) -> Result<WriteOutput>;
    fn delete_item(&self, r: DeleteRequest) -> Result<WriteOutput>;
    fn query(&self, r: QueryRequest) -> Result<Page>;
    fn scan(&self, r: ScanRequest) -> Result<Page>;
    fn batch_get(&self, r: BatchGetRequest) -> Result<BatchGetOutput>;
    fn batch_write(&self, r: BatchWriteRequest) -> Result<BatchWriteOutput>;
    fn transact_get(&self, r: TransactGetRequest) -> Result<TransactGetOutput>;
    fn transact_write(&self, r: TransactWriteRequest) -> Result<TransactWriteOutput>;
    fn create_table(&self, d: &TableDef) -> Result<()>;
    fn delete_table(&self, n: &str) -> Result<()>;
    fn describe_table(&self, n: &str) -> Result<TableDescription>;
    fn update_ttl(&self, t: &str, a: &str, e: bool) -> Result<()>;
    fn update_table(&self, r: UpdateTableRequest) -> Result<TableDescription>;
}

/// The partitions' buckets, by partition.
#[derive(Debug)]
pub(super) struct Throttle {
    limits: PartitionLimits,
    buckets: Mutex<HashMap<String, Bucket>>,
}

/// One partition a request touches, with the units it is expected to take there.
#[derive(Debug, Clone)]
pub(super) struct Part {
    /// The bucket's id: table, index and key value.
    pub(super) id: String,
    /// How an error names it.
    pub(super) name: String,
    /// The index, `None` for the table.
    pub(super) index: Option<String>,
    /// Units charged at entry (settled against the consumed capacity after single-item calls).
    pub(super) units: f64,
    pub(super) read: bool,
}

impl Throttle {
    pub(super) fn cost(&self, part: &Part, units: f64) -> f64 {
        if part.read {
            self.limits.cost(units, 0.0)
        } else {
            self.limits.cost(0.0, units)
        }
    }

    /// Charges `parts` when every one of them has the capacity; otherwise charges nothing and
    /// names the first that has not.
    pub(super) fn admit<'p>(
        &self,
        now: f64,
        parts: &'p [Part],
    ) -> std::result::Result<(), &'p Part> {
        let mut buckets = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        for part in parts {
            let bucket = buckets
                .entry(part.id.clone())
                .or_insert_with(|| Bucket::partition(now));
            if !bucket.has(now, self.cost(part, part.units)) {
                return Err(part);
            }
        }
        for part in parts {
            if let Some(bucket) = buckets.get_mut(&part.id) {
                bucket.take(now, self.cost(part, part.units));
            }
        }
        Ok(())
    }

    /// Charges what a single-item call consumed beyond (or short of) what `admit` took.
    pub(super) fn settle(&self, now: f64, parts: &[Part], consumed: Option<&Capacity>) {
        let Some(consumed) = consumed else { return };
        let mut buckets = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        for part in parts {
            let actual = match &part.index {
                None => consumed.table,
                Some(index) => consumed
                    .global_indexes
                    .iter()
                    .find(|(name, _)| name == index)
                    .map_or(0.0, |(_, units)| *units),
            };
            buckets
                .entry(part.id.clone())
                .or_insert_with(|| Bucket::partition(now))
                .take(now, self.cost(part, actual - part.units));
        }
    }

    pub(super) fn error(&self, part: &Part) -> Error {
        let limits = self.limits;
        Error::Throttled {
            message: format!(
                "ProvisionedThroughputExceededException: {} is over one partition's limit \
                 ({} read units or {} write units per second, as MemoryStore::with_partition_limits \
                 enforces); nothing was {}. Retry after a backoff, or spread the key over shards",
                part.name,
                limits.read_units_per_second,
                limits.write_units_per_second,
                if part.read { "read" } else { "written" },
            ),
            source: None,
        }
    }
}

/// A key value as an error names it.
pub(super) fn show(value: &AttributeValue) -> String {
    match value {
        AttributeValue::S(s) => format!("{s:?}"),
        AttributeValue::N(n) => n.clone(),
        AttributeValue::B(b) => format!("({} bytes)", b.as_ref().len()),
        other => format!("{other:?}"),
    }
}

impl MemoryStore {
    /// Enforces per-partition throughput limits in real time, on the store's clock: a request
    /// over a partition's limits is answered as DynamoDB answers it, so that retry paths and
    /// the batch engine can be tested against throttling on a laptop. Off by default.
    ///
    /// Each request is charged, by DynamoDB's capacity rules, to the partition key value it
    /// reads or writes, and a write also to the global secondary index partitions its item is
    /// in (a hot index key throttles the table's writes, as on DynamoDB). Each partition key
    /// value gets `limits` (a partition's second, "3,000 read units or 1,000 write units, or a
    /// combination"), refilled continuously: [`crate::hot`] explains the rules and simulates
    /// them. A throttled request does nothing:
    ///
    /// - a single-item call, a query: [`Error::Throttled`] (`is_throttled()`), the error
    ///   `DynamoStore` maps `ProvisionedThroughputExceededException` to;
    /// - a batch: the writes or keys on spent partitions come back unprocessed (the batch engine
    ///   retries them with backoff), or the error when none could be processed;
    /// - a transaction: [`Error::TransactionCanceled`] with `ThrottlingError` at the actions on
    ///   spent partitions and `None` at the others.
    ///
    /// Single-item calls and queries are charged what they consumed (`ConsumedCapacity`);
    /// batch and transaction items are charged at entry, by item size (a delete or an update
    /// one unit, twice that in a transaction). Scans and table administration are not
    /// throttled. An update is admitted on the
    /// partitions its item is in before it; the index partitions it moves the item into are
    /// known only after it, and are charged then (the next request there finds them spent).
    ///
    /// ```
    /// # futures::executor::block_on(async {
    /// use dyno_core::hot::PartitionLimits;
    /// use dyno_core::store::{PutRequest, Store};
    /// use dyno_core::{AttributeValue, Item, MemoryStore, TableDef};
    ///
    /// // 10 write units per second per partition, so that a few writes reach it.
    /// let store = MemoryStore::new().with_partition_limits(PartitionLimits::new(30.0, 10.0));
    /// store.create_table(&TableDef::new("Counters", "PK", None)).await?;
    /// let put = |pk: &str| {
    ///     let item = Item::from([("PK".to_owned(), AttributeValue::S(pk.into()))]);
    ///     store.put_item(PutRequest::new("Counters", item))
    /// };
    /// for _ in 0..10 {
    ///     put("HOT").await?;
    /// }
    /// let err = put("HOT").await.unwrap_err();
    /// assert!(err.is_throttled());
    /// put("COLD").await?; // another partition key value has its own limit
    /// # Ok::<(), dyno_core::Error>(()) }).unwrap();
    /// ```
    #[must_use]
    pub fn with_partition_limits(mut self, limits: PartitionLimits) -> Self {
        self.throttle = Some(Throttle {
            limits,
            buckets: Mutex::default(),
        });
        self
    }

    /// The stored item at `key`, when there is one (to find the index partitions a write
    /// leaves).
    pub(super) fn stored(&self, table: &str, key: &Item) -> Option<SharedItem> {
        let state = self.table(table).ok()?;
        let (pk, sk) = state.schema.key(key).ok()?;
        let data = read_lock(&state.data);
        data.get(&pk, &sk).map(|e| Arc::clone(&e.item))
    }

    /// The definition of `table`, when it exists (a missing table is the engine's error).
    pub(super) fn definition(&self, table: &str) -> Option<TableDef> {
        self.table(table).ok().map(|t| t.schema.def.clone())
    }

    /// The partitions a read of `key` in `table` touches.
    pub(super) fn read_parts(&self, table: &str, key: &Item, consistent: bool) -> Vec<Part> {
        let mut parts = Vec::new();
        if let Some(def) = self.definition(table) {
            base_part(&def, key, read_units(0, consistent), true, &mut parts);
        }
        parts
    }

    /// The partitions a write of `item` (or of the item stored at `key`) touches: the table's
    /// and those of the indexes the item is in, each charged `units` at entry.
    pub(super) fn write_parts(
        &self,
        table: &str,
        key: &Item,
        item: Option<&Item>,
        units: f64,
    ) -> Vec<Part> {
        let mut parts = Vec::new();
        let Some(def) = self.definition(table) else {
            return parts;
        };
        base_part(&def, key, units, false, &mut parts);
        let stored = match item {
            Some(_) => None,
            None => self.stored(table, key),
        };
        if let Some(item) = item.or(stored.as_deref()) {
            index_parts(&def, item, &mut parts);
        }
        parts
    }

    pub(super) fn write_parts_of(&self, write: &WriteRequest, factor: f64) -> Vec<Part> {
        match write {
            WriteRequest::Put { table, item } => self.write_parts(
                table,
                item,
                Some(item),
                factor * write_units(item_size(item)),
            ),
            WriteRequest::Delete { table, key } => self.write_parts(table, key, None, factor),
        }
    }
}

/// The table's partition of `key`, charged `units`.
pub(super) fn base_part(def: &TableDef, key: &Item, units: f64, read: bool, out: &mut Vec<Part>) {
    if let Some(value) = key.get(&def.partition_key.name) {
        out.push(Part {
            id: format!("{}\u{0}\u{0}{value:?}", def.name),
            name: format!(
                "the partition of {} {} = {}",
                def.name,
                def.partition_key.name,
                show(value)
            ),
            index: None,
            units,
            read,
        });
    }
}

/// The partitions of the global secondary indexes `item` is in, charged one write unit each at
/// entry.
pub(super) fn index_parts(def: &TableDef, item: &Item, out: &mut Vec<Part>) {
    for index in &def.global_indexes {
        let values: Option<Vec<&AttributeValue>> = std::iter::once(&index.partition_key)
            .chain(&index.extra_partition_keys)
            .map(|k| item.get(&k.name))
            .collect();
        let Some(values) = values else { continue };
        let shown: Vec<String> = values.iter().map(|v| show(v)).collect();
        out.push(Part {
            id: format!("{}\u{0}{}\u{0}{values:?}", def.name, index.name),
            name: format!(
                "the partition of {} index {} {} = {}",
                def.name,
                index.name,
                index.partition_key.name,
                shown.join(", ")
            ),
            index: Some(index.name.clone()),
            units: 1.0,
            read: false,
        });
    }
}

/// A transaction's admission: all its actions' partitions, or none of them and the transaction
/// cancelled with `ThrottlingError` at each action on a spent partition.
pub(super) fn admit_all(throttle: &Throttle, now: f64, actions: &[Vec<Part>]) -> Result<()> {
    let all: Vec<Part> = actions.iter().flatten().cloned().collect();
    if throttle.admit(now, &all).is_ok() {
        return Ok(());
    }
    // Which actions are over: each checked alone, charging nothing.
    let reasons = actions
        .iter()
        .map(|parts| {
            let over = {
                let mut buckets = throttle
                    .buckets
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                parts
                    .iter()
                    .find(|p| {
                        let cost = throttle.cost(p, p.units);
                        buckets
                            .entry(p.id.clone())
                            .or_insert_with(|| Bucket::partition(now))
                            .has(now, cost)
                            .then_some(())
                            .is_none()
                    })
                    .cloned()
            };
            match over {
                Some(p) => throttled_reason(throttle, &p),
                None => CancellationReason::code(Some("None")),
            }
        })
        .collect::<Vec<_>>();
    // Spent only together (two actions on one partition): every action is over.
    let reasons = if reasons.iter().all(|r| r.code.as_deref() == Some("None")) {
        actions
            .iter()
            .map(|parts| match parts.first() {
                Some(p) => throttled_reason(throttle, p),
                None => CancellationReason::code(Some("None")),
            })
            .collect()
    } else {
        reasons
    };
    Err(Error::TransactionCanceled { reasons })
}

pub(super) fn throttled_reason(throttle: &Throttle, part: &Part) -> CancellationReason {
    CancellationReason {
        code: Some("ThrottlingError".into()),
        message: Some(throttle.error(part).to_string()),
        item: None,
    }
}
