//! The conformance harness: scenarios, the context they run in, and the normalized outcome of
//! every request, so that transcripts from different backends can be compared.

use std::collections::BTreeMap;
use std::fmt::{self, Display};
use std::sync::Arc;

pub use dyno_core::expr::{
    Comparator, Condition, KeyCondition, Operand, Path, SetValue, SortCondition, Update,
    UpdateOperand,
};
pub use dyno_core::store::*;
pub use dyno_core::table::{IndexDef, KeyAttribute, Projection, ScalarType, TableDef};
pub use dyno_core::{AttributeValue, Error, Item};
pub use dyno_tests::backend::BackendKind;
use futures::future::BoxFuture;

/// A table a scenario needs: its logical name and its definition (renamed per run).
pub type TableSpec = (&'static str, fn() -> TableDef);

/// One scenario: tables it needs, the requests it makes (with the outcomes DynamoDB documents,
/// checked on every backend), and the backends known to deviate from DynamoDB in it.
pub struct Scenario {
    /// What it covers.
    pub name: &'static str,
    /// Tables created before it runs: logical name and definition (renamed per run).
    pub tables: &'static [TableSpec],
    /// The requests and checks.
    pub run: for<'a> fn(&'a mut Ctx) -> BoxFuture<'a, ()>,
    /// Backends that deviate from DynamoDB's documented behaviour here, and how.
    pub deviations: Vec<Deviation>,
}

/// How a backend deviates from DynamoDB's documentation in a scenario.
#[derive(Debug, Clone, Copy)]
pub struct Deviation {
    /// The backend.
    pub backend: BackendKind,
    /// What it does instead.
    pub why: &'static str,
    /// The scenario is not run on it (a request would bring the server down).
    pub skip: bool,
    /// Only its error messages differ from DynamoDB's words: its outcomes are still compared.
    pub words_only: bool,
}

/// `backend` answers differently from DynamoDB here (the difference must be observed).
pub const fn differs(backend: BackendKind, why: &'static str) -> Deviation {
    Deviation {
        backend,
        why,
        skip: false,
        words_only: false,
    }
}

/// `backend` crashes on a request of this scenario, which therefore does not run on it.
pub const fn crashes(backend: BackendKind, why: &'static str) -> Deviation {
    Deviation {
        backend,
        why,
        skip: true,
        words_only: false,
    }
}

/// `backend` words an error of this scenario differently from DynamoDB (and MemoryStore); every
/// outcome is still compared.
pub const fn words(backend: BackendKind, why: &'static str) -> Deviation {
    Deviation {
        backend,
        why,
        skip: false,
        words_only: true,
    }
}

/// The normalized result of one request.
#[derive(Debug, Clone, PartialEq)]
pub enum Out {
    /// Success without data (table admin, transactions, batch writes fully processed).
    Done,
    /// GetItem's item.
    Item(Option<Item>),
    /// The attributes a write returned.
    Written(Option<Item>),
    /// A query page.
    Page {
        items: Vec<Item>,
        count: usize,
        scanned: usize,
        lek: Option<Item>,
    },
    /// A scan page: items sorted by key (scan order is the backend's hash order), and whether
    /// there is a next page.
    ScanPage {
        items: Vec<Item>,
        count: usize,
        scanned: usize,
        more: bool,
    },
    /// A whole paginated read: every page's items in order (scans: sorted), and the page count.
    AllPages { items: Vec<Item>, pages: usize },
    /// BatchGetItem: items (sorted) and the number of unprocessed keys.
    Batch {
        items: Vec<(String, Item)>,
        unprocessed: usize,
    },
    /// BatchWriteItem's unprocessed writes.
    Unprocessed(usize),
    /// TransactGetItems.
    Items(Vec<Option<Item>>),
    /// DescribeTable: key names, index names and TTL attribute.
    Table {
        keys: Vec<String>,
        indexes: Vec<String>,
        ttl: Option<String>,
    },
    /// The shape of a page whose order DynamoDB leaves open: counts and the LastEvaluatedKey's
    /// attribute names.
    Shape {
        count: usize,
        scanned: usize,
        lek: Option<Vec<String>>,
    },
    /// An error, by kind.
    Err(Failure),
}

/// An error's kind, as compared between backends (messages differ between servers).
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    Validation,
    /// An item over 400 KB, refused before it is written (`Error::ItemTooLarge`).
    TooLarge,
    ConditionFailed(Option<Item>),
    /// Reason codes in order, with the item returned for a failed condition.
    Canceled(Vec<(String, Option<Item>)>),
    NotFound,
    InUse,
    /// Another service error, by its code (`LimitExceededException`).
    Service(Option<String>),
    Other(String),
}

impl Out {
    fn from_error(e: &Error) -> Out {
        Out::Err(match e {
            Error::Validation { .. } => Failure::Validation,
            Error::ItemTooLarge { .. } => Failure::TooLarge,
            Error::ConditionFailed { item, .. } => Failure::ConditionFailed(item.clone()),
            Error::TransactionCanceled { reasons } => Failure::Canceled(
                reasons
                    .iter()
                    .map(|r| {
                        (
                            r.code.clone().unwrap_or_else(|| "None".to_owned()),
                            r.item.clone(),
                        )
                    })
                    .collect(),
            ),
            Error::ResourceNotFound { .. } => Failure::NotFound,
            Error::ResourceInUse { .. } => Failure::InUse,
            Error::Service { code, .. } => Failure::Service(code.clone()),
            other => Failure::Other(format!("{other:?}")),
        })
    }

    /// The items of a page, a whole read, a get or a transactional read.
    pub fn items(&self) -> Vec<Item> {
        match self {
            Out::Page { items, .. } | Out::ScanPage { items, .. } | Out::AllPages { items, .. } => {
                items.clone()
            }
            Out::Item(i) | Out::Written(i) => i.iter().cloned().collect(),
            Out::Batch { items, .. } => items.iter().map(|(_, i)| i.clone()).collect(),
            Out::Items(items) => items.iter().flatten().cloned().collect(),
            _ => Vec::new(),
        }
    }

    /// The one item of a get or write result.
    pub fn item(&self) -> Option<Item> {
        match self {
            Out::Item(i) | Out::Written(i) => i.clone(),
            _ => None,
        }
    }

    /// A page's LastEvaluatedKey.
    pub fn lek(&self) -> Option<Item> {
        match self {
            Out::Page { lek, .. } => lek.clone(),
            _ => None,
        }
    }

    /// (Count, ScannedCount) of a page.
    pub fn counts(&self) -> (usize, usize) {
        match self {
            Out::Page { count, scanned, .. } | Out::ScanPage { count, scanned, .. } => {
                (*count, *scanned)
            }
            _ => (usize::MAX, usize::MAX),
        }
    }

    /// The keys or writes a batch left unprocessed (`usize::MAX` for another outcome).
    pub fn unprocessed(&self) -> usize {
        match self {
            Out::Batch { unprocessed, .. } | Out::Unprocessed(unprocessed) => *unprocessed,
            _ => usize::MAX,
        }
    }

    /// True for a success.
    pub fn is_ok(&self) -> bool {
        !matches!(self, Out::Err(_))
    }
}

impl Display for Out {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let items = |items: &[Item]| items.iter().map(show).collect::<Vec<_>>().join(", ");
        match self {
            Out::Done => write!(f, "done"),
            Out::Item(i) => write!(f, "item {}", i.as_ref().map_or("none".into(), show)),
            Out::Written(i) => write!(
                f,
                "written, returned {}",
                i.as_ref().map_or("none".into(), show)
            ),
            Out::Page {
                items: i,
                count,
                scanned,
                lek,
            } => write!(
                f,
                "page count={count} scanned={scanned} lek={} [{}]",
                lek.as_ref().map_or("none".into(), show),
                items(i)
            ),
            Out::ScanPage {
                items: i,
                count,
                scanned,
                more,
            } => {
                write!(
                    f,
                    "scan page count={count} scanned={scanned} more={more} [{}]",
                    items(i)
                )
            }
            Out::AllPages { items: i, pages } => write!(f, "{pages} pages [{}]", items(i)),
            Out::Batch {
                items: i,
                unprocessed,
            } => write!(
                f,
                "batch unprocessed={unprocessed} [{}]",
                i.iter()
                    .map(|(t, i)| format!("{t}: {}", show(i)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Out::Unprocessed(n) => write!(f, "batch write, {n} unprocessed"),
            Out::Items(i) => write!(
                f,
                "items [{}]",
                i.iter()
                    .map(|i| i.as_ref().map_or("none".into(), show))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Out::Table { keys, indexes, ttl } => {
                write!(f, "table keys={keys:?} indexes={indexes:?} ttl={ttl:?}")
            }
            Out::Shape {
                count,
                scanned,
                lek,
            } => write!(f, "page count={count} scanned={scanned} lek names={lek:?}"),
            Out::Err(e) => write!(f, "error {e:?}"),
        }
    }
}

/// An item as sorted, compact text.
pub fn show(item: &Item) -> String {
    let sorted: BTreeMap<&String, String> = item.iter().map(|(k, v)| (k, show_value(v))).collect();
    let parts: Vec<String> = sorted
        .into_iter()
        .map(|(k, v)| format!("{k}: {v}"))
        .collect();
    format!("{{{}}}", parts.join(", "))
}

fn show_value(v: &AttributeValue) -> String {
    match v {
        AttributeValue::S(s) if s.len() > 40 => format!("S({} bytes)", s.len()),
        AttributeValue::S(s) => format!("{s:?}"),
        AttributeValue::N(n) => format!("N({n})"),
        AttributeValue::B(b) => format!("B({:?})", b.as_ref()),
        AttributeValue::Bool(b) => format!("{b}"),
        AttributeValue::Null(_) => "null".into(),
        AttributeValue::Ss(v) => {
            let mut v = v.clone();
            v.sort();
            format!("SS{v:?}")
        }
        AttributeValue::Ns(v) => {
            let mut v = v.clone();
            v.sort();
            format!("NS{v:?}")
        }
        AttributeValue::Bs(v) => format!("BS({} values)", v.len()),
        AttributeValue::L(l) => format!(
            "[{}]",
            l.iter().map(show_value).collect::<Vec<_>>().join(", ")
        ),
        AttributeValue::M(m) => show(m),
        other => format!("{other:?}"),
    }
}

/// A sort key for items: their key attributes as text.
fn item_order(item: &Item) -> String {
    show(item)
}

/// Sets compare as sets: sort their elements so that two backends' orders agree.
fn canonical(item: &Item) -> Item {
    item.iter()
        .map(|(k, v)| (k.clone(), canonical_value(v)))
        .collect()
}

fn canonical_value(v: &AttributeValue) -> AttributeValue {
    match v {
        AttributeValue::Ss(s) => {
            let mut s = s.clone();
            s.sort();
            AttributeValue::Ss(s)
        }
        AttributeValue::Ns(s) => {
            let mut s = s.clone();
            s.sort();
            AttributeValue::Ns(s)
        }
        AttributeValue::Bs(s) => {
            let mut s = s.clone();
            s.sort_by(|a, b| a.as_ref().cmp(b.as_ref()));
            AttributeValue::Bs(s)
        }
        AttributeValue::L(l) => AttributeValue::L(l.iter().map(canonical_value).collect()),
        AttributeValue::M(m) => AttributeValue::M(canonical(m)),
        other => other.clone(),
    }
}

fn canonical_items(items: impl IntoIterator<Item = impl AsRef<Item>>) -> Vec<Item> {
    items.into_iter().map(|i| canonical(i.as_ref())).collect()
}

fn sorted(mut items: Vec<Item>) -> Vec<Item> {
    items.sort_by_cached_key(item_order);
    items
}

/// Where a scenario runs: one backend, its tables, the transcript of outcomes, and the checks
/// that failed.
pub struct Ctx {
    /// Backend name.
    pub backend: &'static str,
    store: Arc<dyn Store>,
    tables: Vec<(&'static str, String)>,
    /// Every request's label and outcome, in order.
    pub transcript: Vec<(String, Out)>,
    /// For each transcript entry, the error message the backend gave (validation errors and
    /// cancellation reasons), compared between MemoryStore and the reference backend.
    pub messages: Vec<Option<String>>,
    /// For each transcript entry, the capacity the backend reported per (logical) table, split
    /// between the table and its indexes (a single-table request's under `-`), compared between
    /// MemoryStore and the reference backend.
    pub capacity: Vec<Option<Vec<TableCapacity>>>,
    /// Requests sent to the backend (a paginated read counts each page).
    pub requests: usize,
    /// Checks that did not hold.
    pub failures: Vec<String>,
    message: Option<String>,
    units: Option<Vec<TableCapacity>>,
    /// The index statuses the last successful UpdateTable answered with.
    pub index_status: Vec<(String, IndexStatus)>,
}

impl Ctx {
    /// A context on `store` whose logical table names map to real ones.
    pub fn new(
        backend: &'static str,
        store: Arc<dyn Store>,
        tables: Vec<(&'static str, String)>,
    ) -> Self {
        Ctx {
            backend,
            store,
            tables,
            transcript: Vec::new(),
            messages: Vec::new(),
            capacity: Vec::new(),
            requests: 0,
            failures: Vec::new(),
            message: None,
            units: None,
            index_status: Vec::new(),
        }
    }

    /// The store, for one request the helpers do not cover (counted as sent).
    pub fn store(&mut self) -> &Arc<dyn Store> {
        self.requests += 1;
        &self.store
    }

    /// `e` as an outcome; its message is kept for the comparison with the reference backend.
    fn fail(&mut self, e: &Error) -> Out {
        self.message = match e {
            Error::Validation { message } => Some(message.clone()),
            Error::TransactionCanceled { reasons } => Some(
                reasons
                    .iter()
                    .map(|r| r.message.as_deref().unwrap_or("-"))
                    .collect::<Vec<_>>()
                    .join(" | "),
            ),
            _ => None,
        };
        Out::from_error(e)
    }

    /// The error message the last recorded request answered with, if any.
    pub fn message(&self) -> Option<String> {
        self.messages.last().cloned().flatten()
    }

    /// The capacity units the last recorded request reported.
    pub fn units(&self) -> Option<f64> {
        self.split().as_deref().map(TableCapacity::total)
    }

    /// The capacity the last recorded request reported, per table (`-` for a single-table
    /// request) with its split between the table and its indexes.
    pub fn split(&self) -> Option<Vec<TableCapacity>> {
        self.capacity.last().cloned().flatten()
    }

    /// Adds what a single-table request (or one page of it) reported.
    fn consumed(&mut self, capacity: Option<Capacity>) {
        if let Some(c) = capacity {
            TableCapacity::charge(self.units.get_or_insert_with(Vec::new), "-", &c);
        }
    }

    /// Adds what a request over several tables reported, under the tables' logical names.
    fn consumed_tables(&mut self, capacity: Option<Vec<TableCapacity>>) {
        for t in capacity.into_iter().flatten() {
            let table = self.logical(&t.table);
            TableCapacity::charge(self.units.get_or_insert_with(Vec::new), &table, &t.capacity);
        }
    }

    /// The real name of logical table `t` (names that are not logical pass through: missing
    /// tables).
    pub fn t(&self, t: &str) -> String {
        self.tables
            .iter()
            .find(|(l, _)| *l == t)
            .map_or_else(|| t.to_owned(), |(_, r)| r.clone())
    }

    fn logical(&self, real: &str) -> String {
        self.tables
            .iter()
            .find(|(_, r)| r == real)
            .map_or_else(|| real.to_owned(), |(l, _)| (*l).to_owned())
    }

    fn record(&mut self, label: &str, out: Out) -> Out {
        self.transcript.push((label.to_owned(), out.clone()));
        self.messages.push(self.message.take());
        self.capacity.push(self.units.take());
        out
    }

    /// Records a failed check unless `ok`.
    pub fn check(&mut self, ok: bool, what: impl Display) {
        if !ok {
            self.failures.push(format!("{what}"));
        }
    }

    /// Checks `got == want`.
    pub fn eq<T: PartialEq + fmt::Debug>(&mut self, got: T, want: T, what: impl Display) {
        if got != want {
            self.failures
                .push(format!("{what}: got {got:?}, want {want:?}"));
        }
    }

    /// Checks that `out` succeeded.
    pub fn ok(&mut self, out: &Out, what: impl Display) {
        if !out.is_ok() {
            self.failures
                .push(format!("{what}: expected success, got {out}"));
        }
    }

    /// Checks that `out` failed with `failure`.
    pub fn fails(&mut self, out: &Out, failure: Failure, what: impl Display) {
        if *out != Out::Err(failure.clone()) {
            self.failures
                .push(format!("{what}: expected {failure:?}, got {out}"));
        }
    }

    /// Checks that `out` is a validation error.
    pub fn invalid(&mut self, out: &Out, what: impl Display) {
        self.fails(out, Failure::Validation, what);
    }

    /// Checks the values of attribute `attr` in `out`'s items, in order.
    pub fn values(&mut self, out: &Out, attr: &str, want: &[&str], what: impl Display) {
        let got: Vec<String> = out
            .items()
            .iter()
            .map(|i| i.get(attr).map_or("-".into(), text))
            .collect();
        if got != want {
            self.failures.push(format!(
                "{what}: {attr} values {got:?}, want {want:?} (from {out})"
            ));
        }
    }

    pub async fn get(&mut self, label: &str, table: &str, key: Item) -> Out {
        self.get_req(label, GetRequest::borrowed(table, &key)).await
    }

    pub async fn get_req(&mut self, label: &str, mut r: GetRequest<'_>) -> Out {
        r.table = self.t(&r.table).into();
        let res = self.store().get_item(r).await;
        let out = match res {
            Ok(o) => {
                self.consumed(o.consumed_capacity);
                Out::Item(o.item.map(|i| canonical(&i)))
            }
            Err(e) => self.fail(&e),
        };
        self.record(label, out)
    }

    pub async fn put(&mut self, label: &str, table: &str, item: Item) -> Out {
        self.put_req(label, put(table, item)).await
    }

    pub async fn put_req(&mut self, label: &str, mut r: PutRequest) -> Out {
        r.table = self.t(&r.table);
        let r = self.store().put_item(r).await;
        let out = self.written(r);
        self.record(label, out)
    }

    pub async fn update(&mut self, label: &str, mut r: UpdateRequest) -> Out {
        r.table = self.t(&r.table);
        let r = self.store().update_item(r).await;
        let out = self.written(r);
        self.record(label, out)
    }

    pub async fn delete(&mut self, label: &str, mut r: DeleteRequest) -> Out {
        r.table = self.t(&r.table);
        let r = self.store().delete_item(r).await;
        let out = self.written(r);
        self.record(label, out)
    }

    pub async fn query(&mut self, label: &str, mut r: QueryRequest) -> Out {
        r.table = self.t(&r.table);
        let res = self.store().query(r).await;
        let out = match res {
            Ok(p) => {
                self.consumed(p.consumed_capacity);
                Out::Page {
                    items: canonical_items(&p.items),
                    count: p.count,
                    scanned: p.scanned_count,
                    lek: p.last_evaluated_key,
                }
            }
            Err(e) => self.fail(&e),
        };
        self.record(label, out)
    }

    /// One query page, recorded by its shape only (for pages whose order is unspecified).
    pub async fn query_shape(&mut self, label: &str, mut r: QueryRequest) -> Out {
        r.table = self.t(&r.table);
        let res = self.store().query(r).await;
        let out = match res {
            Ok(p) => {
                self.consumed(p.consumed_capacity);
                Out::Shape {
                    count: p.count,
                    scanned: p.scanned_count,
                    lek: p.last_evaluated_key.map(|k| {
                        let mut names: Vec<String> = k.into_keys().collect();
                        names.sort();
                        names
                    }),
                }
            }
            Err(e) => self.fail(&e),
        };
        self.record(label, out)
    }

    /// Every page of a query with the items sorted (for orders DynamoDB does not specify).
    pub async fn query_all_unordered(&mut self, label: &str, r: QueryRequest) -> Out {
        let out = match self.query_all(label, r).await {
            Out::AllPages { items, pages } => Out::AllPages {
                items: sorted(items),
                pages,
            },
            other => other,
        };
        if let Some(last) = self.transcript.last_mut() {
            last.1 = out.clone();
        }
        out
    }

    /// Every page of a query, following LastEvaluatedKey (at most 50 pages).
    pub async fn query_all(&mut self, label: &str, mut r: QueryRequest) -> Out {
        r.table = self.t(&r.table);
        let mut items = Vec::new();
        let mut pages = 0;
        let out = loop {
            pages += 1;
            let res = self.store().query(r.clone()).await;
            match res {
                Ok(p) => {
                    self.consumed(p.consumed_capacity);
                    items.extend(canonical_items(&p.items));
                    match p.last_evaluated_key {
                        Some(k) if pages < 50 => r.exclusive_start_key = Some(k),
                        _ => break Out::AllPages { items, pages },
                    }
                }
                Err(e) => break self.fail(&e),
            }
        };
        self.record(label, out)
    }

    pub async fn scan(&mut self, label: &str, mut r: ScanRequest) -> Out {
        r.table = self.t(&r.table);
        let res = self.store().scan(r).await;
        let out = match res {
            Ok(p) => {
                self.consumed(p.consumed_capacity);
                Out::ScanPage {
                    items: sorted(canonical_items(&p.items)),
                    count: p.count,
                    scanned: p.scanned_count,
                    more: p.last_evaluated_key.is_some(),
                }
            }
            Err(e) => self.fail(&e),
        };
        self.record(label, out)
    }

    /// Every page of a scan (items sorted, since scan order is the backend's).
    pub async fn scan_all(&mut self, label: &str, mut r: ScanRequest) -> Out {
        r.table = self.t(&r.table);
        let mut items = Vec::new();
        let mut pages = 0;
        let out = loop {
            pages += 1;
            let res = self.store().scan(r.clone()).await;
            match res {
                Ok(p) => {
                    self.consumed(p.consumed_capacity);
                    items.extend(canonical_items(&p.items));
                    match p.last_evaluated_key {
                        Some(k) if pages < 200 => r.exclusive_start_key = Some(k),
                        _ => {
                            break Out::AllPages {
                                items: sorted(items),
                                pages,
                            }
                        }
                    }
                }
                Err(e) => break self.fail(&e),
            }
        };
        self.record(label, out)
    }

    pub async fn batch_get(&mut self, label: &str, mut r: BatchGetRequest) -> Out {
        for k in &mut r.keys {
            k.table = self.t(&k.table);
        }
        let res = self.store().batch_get(r).await;
        let out = match res {
            Ok(o) => {
                self.consumed_tables(o.consumed_capacity);
                let mut items: Vec<(String, Item)> = o
                    .items
                    .iter()
                    .map(|(t, i)| (self.logical(t), canonical(i)))
                    .collect();
                items.sort_by_cached_key(|(t, i)| format!("{t} {}", item_order(i)));
                Out::Batch {
                    items,
                    unprocessed: o.unprocessed_keys.len(),
                }
            }
            Err(e) => self.fail(&e),
        };
        self.record(label, out)
    }

    pub async fn batch_write(&mut self, label: &str, mut r: BatchWriteRequest) -> Out {
        for w in &mut r.writes {
            match w {
                WriteRequest::Put { table, .. } | WriteRequest::Delete { table, .. } => {
                    *table = self.t(table)
                }
            }
        }
        let res = self.store().batch_write(r).await;
        let out = match res {
            Ok(o) => {
                self.consumed_tables(o.consumed_capacity);
                Out::Unprocessed(o.unprocessed.len())
            }
            Err(e) => self.fail(&e),
        };
        self.record(label, out)
    }

    pub async fn transact_get(&mut self, label: &str, mut r: TransactGetRequest) -> Out {
        for g in &mut r.gets {
            g.table = self.t(&g.table);
        }
        let res = self.store().transact_get(r).await;
        let out = match res {
            Ok(o) => {
                self.consumed_tables(o.consumed_capacity);
                Out::Items(
                    o.items
                        .iter()
                        .map(|i| i.as_ref().map(|i| canonical(i)))
                        .collect(),
                )
            }
            Err(e) => self.fail(&e),
        };
        self.record(label, out)
    }

    pub async fn transact_write(&mut self, label: &str, mut r: TransactWriteRequest) -> Out {
        for a in &mut r.actions {
            match a {
                TransactWriteItem::Put { table, .. }
                | TransactWriteItem::Update { table, .. }
                | TransactWriteItem::Delete { table, .. }
                | TransactWriteItem::ConditionCheck { table, .. } => *table = self.t(table),
            }
        }
        let res = self.store().transact_write(r).await;
        let out = match res {
            Ok(o) => {
                self.consumed_tables(o.consumed_capacity);
                Out::Done
            }
            Err(e) => self.fail(&e),
        };
        self.record(label, out)
    }

    pub async fn create_table(&mut self, label: &str, def: TableDef) -> Out {
        let r = self.store().create_table(&def).await;
        let out = self.done(r);
        self.record(label, out)
    }

    pub async fn delete_table(&mut self, label: &str, table: &str) -> Out {
        let real = self.t(table);
        let r = self.store().delete_table(&real).await;
        let out = self.done(r);
        self.record(label, out)
    }

    pub async fn describe(&mut self, label: &str, table: &str) -> Out {
        let real = self.t(table);
        let res = self.store().describe_table(&real).await;
        let out = match res {
            Ok(d) => described(d),
            Err(e) => self.fail(&e),
        };
        self.record(label, out)
    }

    /// UpdateTable with `changes` on logical table `table`: `Done` on success, with the statuses
    /// it answered kept in [`Ctx::index_status`] (servers answer differently while they build).
    pub async fn update_table(
        &mut self,
        label: &str,
        table: &str,
        index_changes: Vec<IndexChange>,
    ) -> Out {
        let request = UpdateTableRequest::new(self.t(table), index_changes);
        let res = self.store().update_table(request).await;
        let out = match res {
            Ok(d) => {
                self.index_status = d.index_status;
                Out::Done
            }
            Err(e) => self.fail(&e),
        };
        self.record(label, out)
    }

    /// Describes `table` until its indexes are active (at most 60 s), as DescribeTable's outcome.
    pub async fn wait_for_indexes(&mut self, label: &str, table: &str) -> Out {
        let real = self.t(table);
        let store = Arc::clone(self.store());
        let res = wait_for_indexes(&*store, &real, std::time::Duration::from_secs(60)).await;
        let out = match res {
            Ok(d) => described(d),
            Err(e) => self.fail(&e),
        };
        self.record(label, out)
    }

    fn written(&mut self, r: dyno_core::Result<WriteOutput>) -> Out {
        match r {
            // An empty Attributes map (what the servers send when nothing matched ReturnValues)
            // means the same as none.
            Ok(o) => {
                self.consumed(o.consumed_capacity);
                Out::Written(
                    o.attributes
                        .filter(|a| !a.is_empty())
                        .map(|a| canonical(&a)),
                )
            }
            Err(e) => self.fail(&e),
        }
    }

    fn done(&mut self, r: dyno_core::Result<()>) -> Out {
        match r {
            Ok(()) => Out::Done,
            Err(e) => self.fail(&e),
        }
    }

    pub async fn update_ttl(
        &mut self,
        label: &str,
        table: &str,
        attribute: &str,
        enabled: bool,
    ) -> Out {
        let real = self.t(table);
        let r = self.store().update_ttl(&real, attribute, enabled).await;
        let out = self.done(r);
        self.record(label, out)
    }
}

/// A description as compared between backends: key names, index names (sorted), TTL attribute.
fn described(d: TableDescription) -> Out {
    let def = d.definition;
    let mut indexes: Vec<String> = def
        .global_indexes
        .iter()
        .chain(&def.local_indexes)
        .map(|i| i.name.clone())
        .collect();
    indexes.sort();
    Out::Table {
        keys: def.key_names().map(str::to_owned).collect(),
        indexes,
        ttl: def.ttl_attribute,
    }
}

/// A scalar as text, for value checks.
pub fn text(v: &AttributeValue) -> String {
    match v {
        AttributeValue::S(s) => s.clone(),
        AttributeValue::N(n) => n.clone(),
        AttributeValue::B(b) => format!("{:?}", b.as_ref()),
        other => show_value(other),
    }
}

// ---- values and requests ----

/// `S`
pub fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

/// `N`
pub fn n(v: impl Display) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

/// `B`
pub fn b(v: &[u8]) -> AttributeValue {
    AttributeValue::B(aws_sdk_dynamodb::primitives::Blob::new(v.to_vec()))
}

/// `SS`
pub fn ss(v: &[&str]) -> AttributeValue {
    AttributeValue::Ss(v.iter().map(|s| (*s).to_owned()).collect())
}

/// `NS`
pub fn ns(v: &[&str]) -> AttributeValue {
    AttributeValue::Ns(v.iter().map(|s| (*s).to_owned()).collect())
}

/// `L`
pub fn l(v: Vec<AttributeValue>) -> AttributeValue {
    AttributeValue::L(v)
}

/// `M`
pub fn m(v: Item) -> AttributeValue {
    AttributeValue::M(v)
}

/// An item from pairs.
#[macro_export]
macro_rules! item {
    ($($k:expr => $v:expr),* $(,)?) => {{
        #[allow(unused_mut)]
        let mut m = $crate::conformance::support::Item::new();
        $(m.insert(::std::string::ToString::to_string(&$k), $v);)*
        m
    }};
}

/// A main-table key.
pub fn key(pk: &str, sk: &str) -> Item {
    item! {"PK" => s(pk), "SK" => s(sk)}
}

/// PutItem with defaults.
pub fn put(table: &str, item: Item) -> PutRequest {
    PutRequest::new(table, item)
}

/// UpdateItem with defaults.
pub fn update(table: &str, key: Item, update: Update) -> UpdateRequest {
    UpdateRequest::new(table, key, update)
}

/// DeleteItem with defaults.
pub fn delete(table: &str, key: Item) -> DeleteRequest {
    DeleteRequest::new(table, key)
}

/// A query on a partition.
pub fn query(table: &str, index: Option<&str>, pk_name: &str, pk: AttributeValue) -> QueryRequest {
    QueryRequest::new(table, index, KeyCondition::partition(pk_name, pk))
}

/// A scan with defaults.
pub fn scan(table: &str) -> ScanRequest {
    ScanRequest::new(table)
}

/// `SET path = value` actions.
pub fn set(pairs: &[(&str, AttributeValue)]) -> Update {
    Update {
        set: pairs
            .iter()
            .map(|(p, v)| (Path::attr(*p), SetValue::value(v.clone())))
            .collect(),
        ..Update::default()
    }
}

/// `path <op> value`
pub fn cmp(path: &str, op: Comparator, v: AttributeValue) -> Condition {
    Condition::Compare(Operand::Path(Path::attr(path)), op, Operand::Value(v))
}

/// A string of `len` bytes.
pub fn big(len: usize) -> String {
    "x".repeat(len)
}
