//! `Store` for `MemoryStore`: each request goes to the engine ([`Engine`], `mod.rs`), through
//! the partition limits' throttle (`throttle.rs`) when the store enforces them.

use super::throttle::*;
use super::MemoryStore;
use crate::error::{Error, Result};
use crate::store::{
    read_units, write_units, BatchGetOutput, BatchGetRequest, BatchWriteOutput, BatchWriteRequest,
    Capacity, DeleteRequest, GetOutput, GetRequest, Page, PutRequest, QueryRequest, Reply,
    ScanRequest, Store, TableDescription, TransactGetOutput, TransactGetRequest, TransactWriteItem,
    TransactWriteOutput, TransactWriteRequest, UpdateRequest, UpdateTableRequest, WriteOutput,
    WriteRequest,
};
use crate::table::TableDef;
use crate::value::item_size;

/// MemoryStore through the partition limits' throttle, when it enforces them: the engine's
/// requests ([`Engine`]) again, synchronous, so that `Store` for `MemoryStore` answers with
/// [`Reply::ready`] and allocates no future.
struct Throttled<'a>(&'a MemoryStore);

impl std::ops::Deref for Throttled<'_> {
    type Target = MemoryStore;
    fn deref(&self) -> &MemoryStore {
        self.0
    }
}

impl Store for MemoryStore {
    fn cursor_key(&self) -> &crate::store::CursorKey {
        self.cursor_key
            .as_ref()
            .unwrap_or_else(|| crate::store::CursorKey::process_default())
    }
    fn get_item<'a>(&'a self, r: GetRequest<'a>) -> Reply<'a, Result<GetOutput>> {
        Reply::ready(Engine::get_item(&Throttled(self), r))
    }
    fn put_item(&self, r: PutRequest) -> Reply<'_, Result<WriteOutput>> {
        Reply::ready(Engine::put_item(&Throttled(self), r))
    }
    fn update_item(&self, r: UpdateRequest) -> Reply<'_, Result<WriteOutput>> {
        Reply::ready(Engine::update_item(&Throttled(self), r))
    }
    fn delete_item(&self, r: DeleteRequest) -> Reply<'_, Result<WriteOutput>> {
        Reply::ready(Engine::delete_item(&Throttled(self), r))
    }
    fn query(&self, r: QueryRequest) -> Reply<'_, Result<Page>> {
        Reply::ready(Engine::query(&Throttled(self), r))
    }
    fn scan(&self, r: ScanRequest) -> Reply<'_, Result<Page>> {
        Reply::ready(Engine::scan(&Throttled(self), r))
    }
    fn batch_get(&self, r: BatchGetRequest) -> Reply<'_, Result<BatchGetOutput>> {
        Reply::ready(Engine::batch_get(&Throttled(self), r))
    }
    fn batch_write(&self, r: BatchWriteRequest) -> Reply<'_, Result<BatchWriteOutput>> {
        Reply::ready(Engine::batch_write(&Throttled(self), r))
    }
    fn transact_get(&self, r: TransactGetRequest) -> Reply<'_, Result<TransactGetOutput>> {
        Reply::ready(Engine::transact_get(&Throttled(self), r))
    }
    fn transact_write(&self, r: TransactWriteRequest) -> Reply<'_, Result<TransactWriteOutput>> {
        Reply::ready(Engine::transact_write(&Throttled(self), r))
    }
    fn create_table<'a>(&'a self, d: &'a TableDef) -> Reply<'a, Result<()>> {
        Reply::ready(Engine::create_table(&Throttled(self), d))
    }
    fn delete_table<'a>(&'a self, n: &'a str) -> Reply<'a, Result<()>> {
        Reply::ready(Engine::delete_table(&Throttled(self), n))
    }
    fn describe_table<'a>(&'a self, n: &'a str) -> Reply<'a, Result<TableDescription>> {
        Reply::ready(Engine::describe_table(&Throttled(self), n))
    }
    fn update_ttl<'a>(&'a self, t: &'a str, a: &'a str, e: bool) -> Reply<'a, Result<()>> {
        Reply::ready(Engine::update_ttl(&Throttled(self), t, a, e))
    }
    fn update_table(&self, r: UpdateTableRequest) -> Reply<'_, Result<TableDescription>> {
        Reply::ready(Engine::update_table(&Throttled(self), r))
    }
}

impl Engine for Throttled<'_> {
    fn get_item(&self, r: GetRequest<'_>) -> Result<GetOutput> {
        let Some(throttle) = &self.throttle else {
            return Engine::get_item(self.0, r);
        };
        let now = self.now();
        let parts = self.read_parts(&r.table, &r.key, r.consistent_read);
        throttle.admit(now, &parts).map_err(|p| throttle.error(p))?;
        let out = Engine::get_item(self.0, r)?;
        throttle.settle(now, &parts, out.consumed_capacity.as_ref());
        Ok(out)
    }

    fn put_item(&self, r: PutRequest) -> Result<WriteOutput> {
        let Some(throttle) = &self.throttle else {
            return Engine::put_item(self.0, r);
        };
        let now = self.now();
        let units = write_units(item_size(&r.item));
        let parts = self.write_parts(&r.table, &r.item, Some(&r.item), units);
        throttle.admit(now, &parts).map_err(|p| throttle.error(p))?;
        let out = Engine::put_item(self.0, r)?;
        throttle.settle(now, &parts, out.consumed_capacity.as_ref());
        Ok(out)
    }

    fn update_item(&self, r: UpdateRequest) -> Result<WriteOutput> {
        let Some(throttle) = &self.throttle else {
            return Engine::update_item(self.0, r);
        };
        let now = self.now();
        let parts = self.write_parts(&r.table, &r.key, None, 1.0);
        throttle.admit(now, &parts).map_err(|p| throttle.error(p))?;
        let (table, key) = (r.table.clone(), r.key.clone());
        let out = Engine::update_item(self.0, r)?;
        let Some(consumed) = out.consumed_capacity.as_ref() else {
            return Ok(out);
        };
        // The index partitions the item moved into are known now: a move is a delete from the
        // old partition and a put into the new one, each half of the index's units.
        let moved: Vec<Part> = self
            .write_parts(&table, &key, None, 0.0)
            .into_iter()
            .filter(|p| p.index.is_some() && !parts.iter().any(|q| q.id == p.id))
            .map(|p| Part { units: 0.0, ..p })
            .collect();
        let mut shares = consumed.clone();
        for (name, units) in &mut shares.global_indexes {
            let moved_here = moved
                .iter()
                .any(|p| p.index.as_deref() == Some(name.as_str()));
            let left = parts
                .iter()
                .any(|p| p.index.as_deref() == Some(name.as_str()));
            if moved_here && left {
                *units /= 2.0;
            }
        }
        throttle.settle(now, &parts, Some(&shares));
        throttle.settle(now, &moved, Some(&shares));
        Ok(out)
    }

    fn delete_item(&self, r: DeleteRequest) -> Result<WriteOutput> {
        let Some(throttle) = &self.throttle else {
            return Engine::delete_item(self.0, r);
        };
        let now = self.now();
        let parts = self.write_parts(&r.table, &r.key, None, 1.0);
        throttle.admit(now, &parts).map_err(|p| throttle.error(p))?;
        let out = Engine::delete_item(self.0, r)?;
        throttle.settle(now, &parts, out.consumed_capacity.as_ref());
        Ok(out)
    }

    fn query(&self, r: QueryRequest) -> Result<Page> {
        let Some(throttle) = &self.throttle else {
            return Engine::query(self.0, r);
        };
        let now = self.now();
        let mut values = vec![&r.key_condition.partition_value];
        values.extend(r.key_condition.extra_partition.iter().map(|(_, v)| v));
        let shown: Vec<String> = values.iter().map(|v| show(v)).collect();
        let parts = [Part {
            id: match &r.index {
                // The table's partition: the same id its item reads and writes use.
                None => format!("{}\u{0}\u{0}{:?}", r.table, values[0]),
                Some(index) => format!("{}\u{0}{index}\u{0}{values:?}", r.table),
            },
            name: format!(
                "the partition of {}{} {} = {}",
                r.table,
                r.index
                    .as_deref()
                    .map_or(String::new(), |i| format!(" index {i}")),
                r.key_condition.partition_name,
                shown.join(", ")
            ),
            index: None,
            units: read_units(0, r.consistent_read),
            read: true,
        }];
        throttle.admit(now, &parts).map_err(|p| throttle.error(p))?;
        let page = Engine::query(self.0, r)?;
        // A query's units are its table's or its index's share, whichever it read.
        let units = page
            .consumed_capacity
            .as_ref()
            .map(|c| Capacity::table(c.units));
        throttle.settle(now, &parts, units.as_ref());
        Ok(page)
    }

    fn scan(&self, r: ScanRequest) -> Result<Page> {
        Engine::scan(self.0, r)
    }

    fn batch_get(&self, r: BatchGetRequest) -> Result<BatchGetOutput> {
        let Some(throttle) = &self.throttle else {
            return Engine::batch_get(self.0, r);
        };
        // Requests the engine refuses whole keep its error.
        if r.keys.is_empty() || r.keys.len() > 100 {
            return Engine::batch_get(self.0, r);
        }
        let now = self.now();
        let (mut admitted, mut unprocessed, mut first) = (Vec::new(), Vec::new(), None);
        for key in r.keys {
            let parts = self.read_parts(&key.table, &key.key, r.consistent_read);
            match throttle.admit(now, &parts) {
                Ok(()) => admitted.push(key),
                Err(p) => {
                    first.get_or_insert_with(|| throttle.error(p));
                    unprocessed.push(key);
                }
            }
        }
        if admitted.is_empty() {
            return Err(first.unwrap_or_else(|| Error::validation("no keys")));
        }
        let mut out = Engine::batch_get(
            self.0,
            BatchGetRequest {
                keys: admitted,
                consistent_read: r.consistent_read,
            },
        )?;
        out.unprocessed_keys.extend(unprocessed);
        Ok(out)
    }

    fn batch_write(&self, r: BatchWriteRequest) -> Result<BatchWriteOutput> {
        let Some(throttle) = &self.throttle else {
            return Engine::batch_write(self.0, r);
        };
        if r.writes.is_empty() || r.writes.len() > 25 {
            return Engine::batch_write(self.0, r);
        }
        let now = self.now();
        let (mut admitted, mut unprocessed, mut first) = (Vec::new(), Vec::new(), None);
        for write in r.writes {
            let parts = self.write_parts_of(&write, 1.0);
            match throttle.admit(now, &parts) {
                Ok(()) => admitted.push(write),
                Err(p) => {
                    first.get_or_insert_with(|| throttle.error(p));
                    unprocessed.push(write);
                }
            }
        }
        if admitted.is_empty() {
            return Err(first.unwrap_or_else(|| Error::validation("no writes")));
        }
        let mut out = Engine::batch_write(self.0, BatchWriteRequest { writes: admitted })?;
        out.unprocessed.extend(unprocessed);
        Ok(out)
    }

    fn transact_get(&self, r: TransactGetRequest) -> Result<TransactGetOutput> {
        let Some(throttle) = &self.throttle else {
            return Engine::transact_get(self.0, r);
        };
        let now = self.now();
        let parts: Vec<Vec<Part>> = r
            .gets
            .iter()
            .map(|g| {
                let mut parts = self.read_parts(&g.table, &g.key, true);
                parts.iter_mut().for_each(|p| p.units *= 2.0);
                parts
            })
            .collect();
        admit_all(throttle, now, &parts)?;
        Engine::transact_get(self.0, r)
    }

    fn transact_write(&self, r: TransactWriteRequest) -> Result<TransactWriteOutput> {
        let Some(throttle) = &self.throttle else {
            return Engine::transact_write(self.0, r);
        };
        let now = self.now();
        let parts: Vec<Vec<Part>> = r
            .actions
            .iter()
            .map(|action| match action {
                TransactWriteItem::Put { table, item, .. } => {
                    self.write_parts_of(&WriteRequest::put(table.clone(), item.clone()), 2.0)
                }
                TransactWriteItem::Update { table, key, .. }
                | TransactWriteItem::Delete { table, key, .. } => {
                    self.write_parts(table, key, None, 2.0)
                }
                TransactWriteItem::ConditionCheck { table, key, .. } => {
                    let mut parts = self.read_parts(table, key, true);
                    parts.iter_mut().for_each(|p| p.units *= 2.0);
                    parts
                }
            })
            .collect();
        admit_all(throttle, now, &parts)?;
        Engine::transact_write(self.0, r)
    }

    fn create_table(&self, d: &TableDef) -> Result<()> {
        Engine::create_table(self.0, d)
    }

    fn delete_table(&self, n: &str) -> Result<()> {
        Engine::delete_table(self.0, n)
    }

    fn describe_table(&self, n: &str) -> Result<TableDescription> {
        Engine::describe_table(self.0, n)
    }

    fn update_ttl(&self, t: &str, a: &str, e: bool) -> Result<()> {
        Engine::update_ttl(self.0, t, a, e)
    }

    fn update_table(&self, r: UpdateTableRequest) -> Result<TableDescription> {
        Engine::update_table(self.0, r)
    }
}
