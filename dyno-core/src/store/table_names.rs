//! `TableNames`: a store wrapper that maps the table names entities declare to the physical names
//! of one environment (a `staging-` prefix, a per-test table), in every request and back in every
//! response.

use std::borrow::Cow;
use std::collections::HashMap;

use super::{
    BatchGetOutput, BatchGetRequest, BatchWriteOutput, BatchWriteRequest, DeleteRequest, GetOutput,
    GetRequest, Page, PutRequest, QueryRequest, Reply, ScanRequest, Store, TableCapacity,
    TableDescription, TableKey, TransactGetOutput, TransactGetRequest, TransactWriteItem,
    TransactWriteOutput, TransactWriteRequest, UpdateRequest, UpdateTableRequest, WriteOutput,
    WriteRequest,
};
use crate::error::Result;
use crate::table::TableDef;

/// Maps logical table names to physical ones around an inner store.
///
/// ```
/// # use dyno_core::store::{MemoryStore, TableNames};
/// // `ECommerce` becomes `staging-ECommerce`; an explicit mapping wins over the prefix.
/// let store = TableNames::new(MemoryStore::new()).prefix("staging-").map("Audit", "audit-log-v2");
/// assert_eq!(store.physical("ECommerce"), "staging-ECommerce");
/// assert_eq!(store.logical("audit-log-v2"), "Audit");
/// ```
#[derive(Debug, Clone)]
pub struct TableNames<S> {
    inner: S,
    prefix: String,
    to_physical: HashMap<String, String>,
    to_logical: HashMap<String, String>,
}

impl<S> TableNames<S> {
    /// No mapping yet: names pass through unchanged.
    pub fn new(inner: S) -> Self {
        TableNames {
            inner,
            prefix: String::new(),
            to_physical: HashMap::new(),
            to_logical: HashMap::new(),
        }
    }

    /// Prefixes every table name not mapped explicitly.
    #[must_use]
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Maps one logical name to a physical one.
    #[must_use]
    pub fn map(mut self, logical: impl Into<String>, physical: impl Into<String>) -> Self {
        let (logical, physical) = (logical.into(), physical.into());
        self.to_logical.insert(physical.clone(), logical.clone());
        self.to_physical.insert(logical, physical);
        self
    }

    /// The wrapped store.
    pub fn inner(&self) -> &S {
        &self.inner
    }

    /// The physical name of logical table `name`.
    pub fn physical(&self, name: &str) -> String {
        match self.to_physical.get(name) {
            Some(p) => p.clone(),
            None => format!("{}{name}", self.prefix),
        }
    }

    /// The logical name of physical table `name` (names this wrapper did not produce pass through).
    pub fn logical(&self, name: &str) -> String {
        if let Some(l) = self.to_logical.get(name) {
            return l.clone();
        }
        name.strip_prefix(self.prefix.as_str())
            .unwrap_or(name)
            .to_owned()
    }

    fn rename(&self, table: &mut String) {
        *table = self.physical(table);
    }

    fn unrename(&self, table: &mut String) {
        *table = self.logical(table);
    }

    /// The logical names of the tables a response's capacity lists, kept in name order.
    fn unrename_capacity(&self, capacity: &mut Option<Vec<TableCapacity>>) {
        if let Some(tables) = capacity {
            tables.iter_mut().for_each(|t| self.unrename(&mut t.table));
            tables.sort_by(|a, b| a.table.cmp(&b.table));
        }
    }

    fn write_table(w: &mut WriteRequest) -> &mut String {
        match w {
            WriteRequest::Put { table, .. } | WriteRequest::Delete { table, .. } => table,
        }
    }
}

impl<S: Store> Store for TableNames<S> {
    fn get_item<'a>(&'a self, mut r: GetRequest<'a>) -> Reply<'a, Result<GetOutput>> {
        r.table = Cow::Owned(self.physical(&r.table));
        self.inner.get_item(r)
    }
    fn put_item(&self, mut r: PutRequest) -> Reply<'_, Result<WriteOutput>> {
        self.rename(&mut r.table);
        self.inner.put_item(r)
    }
    fn update_item(&self, mut r: UpdateRequest) -> Reply<'_, Result<WriteOutput>> {
        self.rename(&mut r.table);
        self.inner.update_item(r)
    }
    fn delete_item(&self, mut r: DeleteRequest) -> Reply<'_, Result<WriteOutput>> {
        self.rename(&mut r.table);
        self.inner.delete_item(r)
    }
    fn query(&self, mut r: QueryRequest) -> Reply<'_, Result<Page>> {
        self.rename(&mut r.table);
        self.inner.query(r)
    }
    fn scan(&self, mut r: ScanRequest) -> Reply<'_, Result<Page>> {
        self.rename(&mut r.table);
        self.inner.scan(r)
    }
    fn batch_get(&self, mut r: BatchGetRequest) -> Reply<'_, Result<BatchGetOutput>> {
        r.keys.iter_mut().for_each(|k| self.rename(&mut k.table));
        self.inner.batch_get(r).map(|out| {
            let mut out = out?;
            out.items.iter_mut().for_each(|(t, _)| self.unrename(t));
            out.unprocessed_keys
                .iter_mut()
                .for_each(|k: &mut TableKey| self.unrename(&mut k.table));
            self.unrename_capacity(&mut out.consumed_capacity);
            Ok(out)
        })
    }
    fn batch_write(&self, mut r: BatchWriteRequest) -> Reply<'_, Result<BatchWriteOutput>> {
        r.writes
            .iter_mut()
            .for_each(|w| self.rename(Self::write_table(w)));
        self.inner.batch_write(r).map(|out| {
            let mut out = out?;
            out.unprocessed
                .iter_mut()
                .for_each(|w| self.unrename(Self::write_table(w)));
            self.unrename_capacity(&mut out.consumed_capacity);
            Ok(out)
        })
    }
    fn transact_get(&self, mut r: TransactGetRequest) -> Reply<'_, Result<TransactGetOutput>> {
        r.gets.iter_mut().for_each(|g| self.rename(&mut g.table));
        self.inner.transact_get(r).map(|out| {
            let mut out = out?;
            self.unrename_capacity(&mut out.consumed_capacity);
            Ok(out)
        })
    }
    fn transact_write(
        &self,
        mut r: TransactWriteRequest,
    ) -> Reply<'_, Result<TransactWriteOutput>> {
        for a in &mut r.actions {
            match a {
                TransactWriteItem::Put { table, .. }
                | TransactWriteItem::Update { table, .. }
                | TransactWriteItem::Delete { table, .. }
                | TransactWriteItem::ConditionCheck { table, .. } => self.rename(table),
            }
        }
        self.inner.transact_write(r).map(|out| {
            let mut out = out?;
            self.unrename_capacity(&mut out.consumed_capacity);
            Ok(out)
        })
    }
    fn create_table<'a>(&'a self, definition: &'a TableDef) -> Reply<'a, Result<()>> {
        let def = definition.clone().named(self.physical(&definition.name));
        Reply::new(async move { self.inner.create_table(&def).await })
    }
    fn delete_table<'a>(&'a self, name: &'a str) -> Reply<'a, Result<()>> {
        Reply::new(async move { self.inner.delete_table(&self.physical(name)).await })
    }
    fn describe_table<'a>(&'a self, name: &'a str) -> Reply<'a, Result<TableDescription>> {
        Reply::new(async move {
            let mut d = self.inner.describe_table(&self.physical(name)).await?;
            self.unrename(&mut d.definition.name);
            Ok(d)
        })
    }
    fn update_ttl<'a>(
        &'a self,
        table: &'a str,
        attribute: &'a str,
        enabled: bool,
    ) -> Reply<'a, Result<()>> {
        Reply::new(async move {
            self.inner
                .update_ttl(&self.physical(table), attribute, enabled)
                .await
        })
    }
    fn update_table(&self, mut r: UpdateTableRequest) -> Reply<'_, Result<TableDescription>> {
        self.rename(&mut r.table);
        self.inner.update_table(r).map(|d| {
            let mut d = d?;
            self.unrename(&mut d.definition.name);
            Ok(d)
        })
    }
    fn cursor_key(&self) -> &crate::store::CursorKey {
        self.inner.cursor_key()
    }
}

#[cfg(all(test, feature = "memory"))]
mod tests {
    use super::*;
    use crate::store::MemoryStore;
    use crate::value::{AttributeValue, Item};

    #[tokio::test]
    async fn every_request_reaches_the_physical_table() {
        let store = TableNames::new(MemoryStore::new()).prefix("t1-");
        store
            .create_table(&TableDef::new("Shop", "PK", None))
            .await
            .unwrap();
        assert!(store.inner().describe_table("t1-Shop").await.is_ok());
        assert!(store.inner().describe_table("Shop").await.is_err());

        let key = Item::from([("PK".to_owned(), AttributeValue::S("a".into()))]);
        let put = PutRequest {
            table: "Shop".into(),
            item: key.clone(),
            condition: None,
            return_values: Default::default(),
            return_old_on_condition_failure: false,
        };
        store.put_item(put).await.unwrap();
        let got = store
            .batch_get(BatchGetRequest {
                keys: vec![TableKey {
                    table: "Shop".into(),
                    key,
                }],
                consistent_read: false,
            })
            .await
            .unwrap();
        assert_eq!(got.items.len(), 1);
        assert_eq!(got.items[0].0, "Shop", "responses carry logical names");
        assert_eq!(
            store.describe_table("Shop").await.unwrap().definition.name,
            "Shop"
        );
    }
}
