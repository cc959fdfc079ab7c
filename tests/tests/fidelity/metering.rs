//! `cost::Metered`: the capacity it attributes to access patterns is DynamoDB's own. A small
//! application workload over the e-commerce model (users, orders and products; orders and
//! products share GSI1) runs through the wrapper, whose totals must equal an independent tally
//! of the raw responses' consumed capacity, kept by a wrapper below it ([`RawTally`], which
//! shares no code with the metering); on dynoxide (the reference) and on MemoryStore, whose
//! report must be the same as dynoxide's, pattern by pattern and partition by partition. Also:
//! each pattern lands in its row, what matches no entity in the unattributed row.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use dyno_core::cost::{Metered, Report};
use dyno_core::expr::{Condition, KeyCondition, Path};
use dyno_core::ops::{BatchGet, BatchWriter, TransactGet, Transaction};
use dyno_core::prelude::*;
use dyno_core::store::forward::Forward;
use dyno_core::store::{
    BatchGetOutput, BatchGetRequest, BatchWriteOutput, BatchWriteRequest, Capacity, DeleteRequest,
    GetOutput, GetRequest, Page, PutRequest, QueryRequest, ScanRequest, TableCapacity, TableKey,
    TableNames, TransactGetOutput, TransactGetRequest, TransactWriteOutput, TransactWriteRequest,
    UpdateRequest, WriteOutput,
};
use dyno_core::{AttributeValue, Item, Result, Store, Table};
use dyno_tests::backend::{
    backends, create_multi_attribute_table, unique_table_name, Backend, BackendKind,
};
use dyno_tests::ecommerce::{
    order, product, user, ECommerce, Order, OrderStatus, Product, User, UserWithOrders,
};
use rust_decimal::Decimal;
use time::macros::date;

/// Sums of the consumed capacity the store's answers carried, kept apart from the metering.
#[derive(Debug, Default, Clone, PartialEq)]
struct Sums {
    read: f64,
    write: f64,
    table: f64,
    indexes: BTreeMap<String, f64>,
}

/// A store wrapper that adds up every answer's consumed capacity, as it comes back.
#[derive(Debug)]
struct RawTally {
    inner: Arc<dyn Store>,
    sums: Arc<Mutex<Sums>>,
}

impl RawTally {
    fn add<'c>(&self, read: bool, capacities: impl IntoIterator<Item = &'c Capacity>) {
        let mut s = self.sums.lock().unwrap();
        for c in capacities {
            if read {
                s.read += c.units;
            } else {
                s.write += c.units;
            }
            s.table += c.table;
            for (name, units) in c.global_indexes.iter().chain(&c.local_indexes) {
                *s.indexes.entry(name.clone()).or_default() += units;
            }
        }
    }

    fn add_tables(&self, read: bool, tables: Option<&Vec<TableCapacity>>) {
        self.add(read, tables.into_iter().flatten().map(|t| &t.capacity));
    }
}

#[async_trait]
impl Forward for RawTally {
    type Inner = dyn Store;
    fn inner(&self) -> &(dyn Store + 'static) {
        &*self.inner
    }
    async fn get_item(&self, r: GetRequest<'_>) -> Result<GetOutput> {
        let out = self.inner.get_item(r).await?;
        self.add(true, &out.consumed_capacity);
        Ok(out)
    }
    async fn put_item(&self, r: PutRequest) -> Result<WriteOutput> {
        let out = self.inner.put_item(r).await?;
        self.add(false, &out.consumed_capacity);
        Ok(out)
    }
    async fn update_item(&self, r: UpdateRequest) -> Result<WriteOutput> {
        let out = self.inner.update_item(r).await?;
        self.add(false, &out.consumed_capacity);
        Ok(out)
    }
    async fn delete_item(&self, r: DeleteRequest) -> Result<WriteOutput> {
        let out = self.inner.delete_item(r).await?;
        self.add(false, &out.consumed_capacity);
        Ok(out)
    }
    async fn query(&self, r: QueryRequest) -> Result<Page> {
        let out = self.inner.query(r).await?;
        self.add(true, &out.consumed_capacity);
        Ok(out)
    }
    async fn scan(&self, r: ScanRequest) -> Result<Page> {
        let out = self.inner.scan(r).await?;
        self.add(true, &out.consumed_capacity);
        Ok(out)
    }
    async fn batch_get(&self, r: BatchGetRequest) -> Result<BatchGetOutput> {
        let out = self.inner.batch_get(r).await?;
        self.add_tables(true, out.consumed_capacity.as_ref());
        Ok(out)
    }
    async fn batch_write(&self, r: BatchWriteRequest) -> Result<BatchWriteOutput> {
        let out = self.inner.batch_write(r).await?;
        self.add_tables(false, out.consumed_capacity.as_ref());
        Ok(out)
    }
    async fn transact_get(&self, r: TransactGetRequest) -> Result<TransactGetOutput> {
        let out = self.inner.transact_get(r).await?;
        self.add_tables(true, out.consumed_capacity.as_ref());
        Ok(out)
    }
    async fn transact_write(&self, r: TransactWriteRequest) -> Result<TransactWriteOutput> {
        let out = self.inner.transact_write(r).await?;
        self.add_tables(false, out.consumed_capacity.as_ref());
        Ok(out)
    }
}

/// `Metered` over the table renaming over the raw tally over the backend; the table created.
async fn stack(backend: &Backend) -> (Metered<Arc<dyn Store>>, Arc<Mutex<Sums>>) {
    let sums = Arc::new(Mutex::new(Sums::default()));
    let raw: Arc<dyn Store> = Arc::new(RawTally {
        inner: backend.store.clone(),
        sums: sums.clone(),
    });
    let def = <ECommerce as Table>::definition();
    let renamed: Arc<dyn Store> =
        Arc::new(TableNames::new(raw).map(def.name.clone(), unique_table_name("meter")));
    renamed.create_table(def).await.expect("create table");
    let metered = Metered::new(renamed)
        .entity::<User>()
        .entity::<Order>()
        .entity::<Product>()
        .query_names(|entity, index| {
            (entity == "Order" && index == "GSI1").then(|| "by_status".to_owned())
        });
    (metered, sums)
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn key(pk: &str, sk: &str) -> Item {
    Item::from([("PK".to_owned(), s(pk)), ("SK".to_owned(), s(sk))])
}

/// The application: writes, reads, updates that move GSI1 keys, filtered and collection
/// queries, batches and transactions, and requests for items no entity owns.
async fn workload(store: &Metered<Arc<dyn Store>>) {
    let table = "ECommerce";
    for u in ["u1", "u2"] {
        user(u, "Ann").create().send(store).await.expect("user");
    }
    let d = date!(2024 - 03 - 01);
    for (u, o, total) in [
        ("u1", "o1", 10),
        ("u1", "o2", 50),
        ("u1", "o3", 90),
        ("u2", "o4", 20),
    ] {
        order(u, o, OrderStatus::Pending, d, Decimal::from(total))
            .create()
            .send(store)
            .await
            .expect("order");
    }
    for (p, category) in [("p1", "books"), ("p2", "books"), ("p3", "games")] {
        product(p, category, Decimal::from(12), 10)
            .create()
            .send(store)
            .await
            .expect("product");
    }

    // Gets, one of an item that is not there.
    assert!(User::get(User::key("u1"))
        .send(store)
        .await
        .unwrap()
        .is_some());
    assert!(Order::get(Order::key("u1", "o1"))
        .send(store)
        .await
        .unwrap()
        .is_some());
    assert!(Order::get(Order::key("u1", "o9"))
        .send(store)
        .await
        .unwrap()
        .is_none());

    // An update that moves the order in GSI1, one that changes a projected attribute only.
    Order::update(Order::key("u1", "o1"))
        .set_status(OrderStatus::Shipped)
        .send(store)
        .await
        .expect("ship");
    Product::update(Product::key("p1"))
        .set_stock(7)
        .send(store)
        .await
        .expect("stock");

    // A filtered query (reads 3 orders, returns 1), index queries, a collection query.
    let big = Order::query("u1")
        .filter(Order::TOTAL.gt(Decimal::from(60)))
        .all(store)
        .await
        .expect("query");
    assert_eq!(big.len(), 1);
    let pending = Order::gsi1(OrderStatus::Pending).all(store).await.unwrap();
    assert_eq!(pending.len(), 3);
    let books = Product::gsi1("books").all(store).await.unwrap();
    assert_eq!(books.len(), 2);
    let both = UserWithOrders::query("u1").all(store).await.unwrap();
    assert_eq!(both.orders.len(), 3);

    // Batches: typed, and a raw one over two entities.
    let read = BatchGet::new([Product::key("p1"), Product::key("p2"), Product::key("p9")])
        .send(store)
        .await
        .unwrap();
    assert_eq!(read.len(), 2);
    let mixed = store
        .batch_get(
            BatchGetRequest::new(vec![
                TableKey::new(table, key("USER#u1", "PROFILE")),
                TableKey::new(table, key("PRODUCT#p3", "PRODUCT")),
            ])
            .with_consistent_read(true),
        )
        .await
        .unwrap();
    assert_eq!(mixed.items.len(), 2);
    // A bulk load: 25 puts per BatchWriteItem (the checked form sends one PutItem each).
    let mut batch = BatchWriter::new().without_entity_check();
    for i in 0..3 {
        batch
            .put(&product(&format!("b{i}"), "stickers", Decimal::from(1), 5))
            .unwrap();
    }
    assert_eq!(batch.send(store).await.unwrap().written, 3);

    // Transactions: an order placed with the stock taken; two items read.
    let take = Product::update(Product::key("p2"))
        .subtract_stock(1)
        .condition(Product::STOCK.ge(1))
        .into_update()
        .unwrap();
    let placed = order("u2", "o5", OrderStatus::Pending, d, Decimal::from(12));
    Transaction::new()
        .create(&placed)
        .update(take)
        .send(store)
        .await
        .expect("transaction");
    let mut tg = TransactGet::new();
    let h_user = tg.get(User::key("u2"));
    let h_order = tg.get(Order::key("u2", "o5"));
    let got = tg.send(store).await.expect("transact get");
    assert!(got.get(&h_user).unwrap().is_some() && got.get(&h_order).unwrap().is_some());

    Order::delete(Order::key("u2", "o4"))
        .send(store)
        .await
        .expect("delete");

    // A scan, and items no registered entity owns.
    let all = store
        .scan(ScanRequest::new(table).with_filter(Condition::exists("GSI1PK")))
        .await
        .unwrap();
    assert!(all.count < all.scanned_count);
    let mut audit = key("AUDIT#1", "ENTRY#1");
    audit.insert("what".into(), s("a stranger's item"));
    store
        .put_item(dyno_tests::backend::put(table, audit))
        .await
        .unwrap();
    let page = store
        .query(QueryRequest::new(
            table,
            None,
            KeyCondition::partition("PK", s("AUDIT#1")),
        ))
        .await
        .unwrap();
    assert_eq!(page.count, 1);
    let _ = Path::attr("unused");
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// The wrapper's totals equal the raw tally's.
fn assert_equals_raw(name: &str, report: &Report, raw: &Sums) {
    let totals = report.totals();
    assert!(
        raw.read + raw.write > 0.0,
        "{name}: the backend reported capacity"
    );
    assert!(
        close(totals.read_units, raw.read),
        "{name}: read {} vs raw {}",
        totals.read_units,
        raw.read
    );
    assert!(
        close(totals.write_units, raw.write),
        "{name}: write {} vs raw {}",
        totals.write_units,
        raw.write
    );
    assert!(
        close(totals.table_units, raw.table),
        "{name}: table {} vs raw {}",
        totals.table_units,
        raw.table
    );
    let indexes: BTreeMap<String, f64> = totals
        .global_indexes
        .iter()
        .chain(&totals.local_indexes)
        .cloned()
        .collect();
    assert_eq!(indexes, raw.indexes, "{name}: index shares");
    for p in &report.patterns {
        assert_eq!(
            (p.failed, p.unreported),
            (0, 0),
            "{name}: {} all measured",
            p.name
        );
    }
}

#[tokio::test]
async fn the_metered_figures_are_the_consumed_capacity_dynoxide_reports_and_memory_agrees() {
    let mut reports: Vec<(&'static str, Report)> = Vec::new();
    for backend in backends().await {
        if !matches!(backend.kind, BackendKind::Memory | BackendKind::Dynoxide) {
            continue;
        }
        let (store, sums) = stack(&backend).await;
        workload(&store).await;
        let report = store.report();
        let raw = sums.lock().unwrap().clone();
        assert_equals_raw(backend.name, &report, &raw);
        reports.push((backend.name, report));
    }
    let memory = &reports[0].1;
    if let Some((_, dynoxide)) = reports.iter().find(|(n, _)| *n == "dynoxide") {
        for (m, d) in memory.patterns.iter().zip(&dynoxide.patterns) {
            assert_eq!(m, d, "pattern {} on memory and dynoxide", m.name);
        }
        assert_eq!(memory.patterns.len(), dynoxide.patterns.len());
        assert_eq!(memory.partitions, dynoxide.partitions, "partitions");
    }
    let names: Vec<&str> = reports.iter().map(|(n, _)| *n).collect();
    println!("measured on {names:?}\n{memory}");
}

#[tokio::test]
async fn each_access_pattern_lands_in_its_row() {
    let backend = backends().await.remove(0);
    let (store, _) = stack(&backend).await;
    workload(&store).await;
    let report = store.report();
    let row = |name: &str| {
        report
            .pattern(name)
            .unwrap_or_else(|| panic!("no row {name} in\n{report}"))
    };
    let names: Vec<&str> = report.patterns.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "(ECommerce) scan",
            "(ECommerce: unattributed) put",
            "(ECommerce: unattributed) query",
            "Order delete",
            "Order get",
            "Order put",
            "Order query",
            "Order query by_status",
            "Order update",
            "Order+Product transact write",
            "Product batch get",
            "Product batch write",
            "Product put",
            "Product query GSI1",
            "Product update",
            "User get",
            "User put",
            "User+Order query",
            "User+Order transact get",
            "User+Product batch get",
        ]
    );
    assert_eq!(row("User put").calls, 2);
    assert_eq!(row("Order put").calls, 4);
    assert_eq!(row("Product put").calls, 3);
    assert_eq!(
        (row("Order get").calls, row("Order get").items_returned),
        (2, 1)
    );
    // Every put of an order writes GSI1 too: one index unit per table unit.
    assert_eq!(row("Order put").write_amplification(), Some(1.0));
    assert_eq!(row("User put").write_amplification(), Some(0.0));
    // Moving the order in GSI1 deletes the old entry and writes the new one.
    let ship = row("Order update");
    assert_eq!((ship.table_units, ship.index_units()), (1.0, 2.0));
    assert_eq!(ship.write_amplification(), Some(2.0));
    // The filter read 3 orders and returned 1.
    let filtered = row("Order query");
    assert_eq!((filtered.items_read, filtered.items_returned), (3, 1));
    assert!((filtered.filtered_out().unwrap() - 2.0 / 3.0).abs() < 1e-9);
    let by_status = row("Order query by_status");
    assert_eq!(by_status.index.as_deref(), Some("GSI1"));
    assert_eq!(by_status.query.as_deref(), Some("by_status"));
    assert_eq!(by_status.global_indexes.len(), 1);
    assert_eq!(by_status.table_units, 0.0);
    let tx = row("Order+Product transact write");
    assert!(tx.operation.is_transactional());
    // Twice a 1 KB write for each of the two items, and their GSI1 entries once each.
    assert_eq!((tx.table_units, tx.index_units()), (4.0, 2.0));
    let unattributed = row("(ECommerce: unattributed) put");
    assert!(unattributed.unattributed && unattributed.entities.is_empty());

    // Partitions: u1's orders and profile are in USER#u1; the status index partitions carry
    // the order puts' index writes; the hottest first.
    let part = |index: Option<&str>, key: &str| {
        report
            .partitions
            .iter()
            .find(|p| p.index.as_deref() == index && p.key == key)
            .unwrap_or_else(|| panic!("no partition {index:?} {key}"))
    };
    let pending = part(Some("GSI1"), "STATUS#PENDING");
    assert!(pending.write_units >= 5.0, "{pending:?}");
    assert!(pending.read_units > 0.0, "the by_status query read it");
    // The profile and three orders written, the profile and two orders read, one order
    // updated, a filtered and a collection query, one key of the mixed batch.
    assert_eq!(part(None, "USER#u1").touches, 11);
    let hottest = report.hottest(3);
    assert!(hottest.windows(2).all(|w| w[0].units() >= w[1].units()));
    assert_eq!(report.hottest(1000).len(), report.partitions.len());
}

#[tokio::test]
async fn a_store_with_nothing_registered_reports_everything_unattributed() {
    let backend = backends().await.remove(0);
    let store = Metered::new(backend.store.clone());
    store
        .create_table(<ECommerce as Table>::definition())
        .await
        .unwrap();
    user("u1", "Ann").create().send(&store).await.unwrap();
    User::get(User::key("u1")).send(&store).await.unwrap();
    let report = store.report();
    let names: Vec<&str> = report.patterns.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "(ECommerce: unattributed) get",
            "(ECommerce: unattributed) put"
        ]
    );
    store.reset();
    assert!(store.report().patterns.is_empty());
}

#[tokio::test]
async fn a_failed_call_is_counted_without_units() {
    for backend in backends().await {
        if !matches!(backend.kind, BackendKind::Memory | BackendKind::Dynoxide) {
            continue;
        }
        let (store, sums) = stack(&backend).await;
        user("u1", "Ann").create().send(&store).await.unwrap();
        let again = user("u1", "Ann").create().send(&store).await;
        assert!(again.unwrap_err().is_condition_failed());
        let report = store.report();
        let puts = report.pattern("User put").expect("row");
        assert_eq!(
            (puts.calls, puts.failed, puts.unreported),
            (2, 1, 0),
            "{}",
            backend.name
        );
        assert_eq!(puts.measured_calls(), 1);
        // The failed put reported nothing, so only the first one's unit is counted.
        assert_eq!((puts.write_units, puts.mean_write_units()), (1.0, 1.0));
        assert_eq!(sums.lock().unwrap().write, 1.0, "{}", backend.name);
    }
}

/// A board whose tasks and bugs share a multi-attribute index: its keys are the items' own
/// attributes, with no prefix that tells one entity's from the other's.
mod board {
    use dyno_core::{Collection, Entity, Table};

    #[derive(Table)]
    #[dyno(name = "Board", pk = "PK", sk = "SK")]
    #[dyno(index(name = "ByStatus", pk = ["tenant", "status"], sk = ["rank:N"]))]
    pub struct Board;

    #[derive(Debug, Clone, PartialEq, Entity)]
    #[dyno(table = Board, pk = "TENANT#{tenant}", sk = "TASK#{id}")]
    #[dyno(index(ByStatus, pk = [tenant, status], sk = [rank]))]
    pub struct Task {
        pub tenant: String,
        pub id: String,
        pub status: String,
        pub rank: u32,
    }

    #[derive(Debug, Clone, PartialEq, Entity)]
    #[dyno(table = Board, pk = "TENANT#{tenant}", sk = "BUG#{id}")]
    #[dyno(index(ByStatus, pk = [tenant, status], sk = [severity]))]
    pub struct Bug {
        pub tenant: String,
        pub id: String,
        pub status: String,
        #[dyno(rename = "rank")]
        pub severity: u32,
    }

    /// Tasks and bugs of one status, read together.
    #[derive(Debug, Clone, PartialEq, Collection)]
    #[dyno(index = ByStatus)]
    pub enum Work {
        Task(Task),
        Bug(Bug),
    }
}

/// A typed query on a multi-attribute index is the access pattern of the entity whose code
/// made it (`Task::by_status` is `Task query ByStatus`, though bugs share the index and the
/// partition), and so is a typed get; a raw query on the index, and a collection read of both,
/// can be either entity's and are reported under both. The units are still DynamoDB's.
#[tokio::test]
async fn a_typed_query_on_a_shared_multi_attribute_index_is_its_entitys() {
    use board::{Board, Bug, Task, Work};
    for backend in backends().await {
        let sums = Arc::new(Mutex::new(Sums::default()));
        let raw: Arc<dyn Store> = Arc::new(RawTally {
            inner: backend.store.clone(),
            sums: sums.clone(),
        });
        let renamed: Arc<dyn Store> =
            Arc::new(TableNames::new(raw).map("Board", unique_table_name("board")));
        if !create_multi_attribute_table(&backend, &*renamed, Board::definition()).await {
            continue;
        }
        let store = Metered::new(renamed).entity::<Task>().entity::<Bug>();
        for (id, rank) in [("t1", 1), ("t2", 2)] {
            let task = Task {
                tenant: "acme".into(),
                id: id.into(),
                status: "open".into(),
                rank,
            };
            task.put().send(&store).await.unwrap();
        }
        let bug = Bug {
            tenant: "acme".into(),
            id: "b1".into(),
            status: "open".into(),
            severity: 1,
        };
        bug.put().send(&store).await.unwrap();
        store.reset();
        *sums.lock().unwrap() = Sums::default();

        let tasks = Task::by_status("acme", "open").all(&store).await.unwrap();
        assert_eq!(tasks.len(), 2, "{}", backend.name);
        let bugs = Bug::by_status("acme", "open").all(&store).await.unwrap();
        assert_eq!(bugs.len(), 1, "{}", backend.name);
        let work = Task::by_status("acme", "open")
            .collection::<Work>()
            .all(&store)
            .await
            .unwrap();
        assert_eq!(work.len(), 3, "{}", backend.name);
        let raw_query = QueryRequest::new(
            "Board",
            Some("ByStatus"),
            KeyCondition::partition("tenant", s("acme")).and_partition("status", s("open")),
        );
        let page = store.query(raw_query).await.unwrap();
        assert_eq!(page.count, 3, "{}", backend.name);
        Task::get(Task::key("acme", "t1"))
            .send(&store)
            .await
            .unwrap()
            .expect("stored");

        let report = store.report();
        let names: Vec<&str> = report.patterns.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "Bug query ByStatus",
                "Task get",
                "Task query ByStatus",
                "Task+Bug query ByStatus",
            ],
            "{}:\n{report}",
            backend.name
        );
        let row = |name: &str| report.pattern(name).expect("row");
        // The typed query read the whole partition, bugs and tasks alike (its units are the
        // partition's), and is still the task query the code made.
        let task_query = row("Task query ByStatus");
        assert_eq!(task_query.entities, ["Task"]);
        assert_eq!(
            (task_query.calls, task_query.items_read),
            (1, 3),
            "{}",
            backend.name
        );
        assert_eq!(row("Bug query ByStatus").entities, ["Bug"]);
        let both = row("Task+Bug query ByStatus");
        assert_eq!(both.entities, ["Task", "Bug"]);
        assert_eq!((both.calls, both.items_read), (2, 6), "{}", backend.name);
        let sums = sums.lock().unwrap().clone();
        assert!(
            close(report.totals().read_units, sums.read),
            "{}: metered {} RU, answered {} RU",
            backend.name,
            report.totals().read_units,
            sums.read
        );
        assert!(sums.read > 0.0, "{}", backend.name);
    }
}

/// Calls from many threads at once land in the wrapper's per-thread shards; the report adds
/// them up: every call counted once, every unit the answers carried.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn calls_from_many_threads_are_all_counted() {
    let backend = backends()
        .await
        .into_iter()
        .find(|b| matches!(b.kind, BackendKind::Memory))
        .expect("MemoryStore");
    let (store, sums) = stack(&backend).await;
    let store = Arc::new(store);
    for u in ["u1", "u2", "u3"] {
        user(u, "Ann").put().send(&*store).await.unwrap();
    }
    store.reset();
    *sums.lock().unwrap() = Sums::default();
    let tasks: Vec<_> = (0..16)
        .map(|i| {
            let store = store.clone();
            tokio::spawn(async move {
                for n in 0..50 {
                    let id = ["u1", "u2", "u3", "u4"][(i + n) % 4];
                    User::get(User::key(id)).send(&*store).await.unwrap();
                    tokio::task::yield_now().await;
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    let report = store.report();
    let gets = report.pattern("User get").expect("row");
    assert_eq!((gets.calls, gets.items_read), (800, 800), "{report}");
    assert_eq!(gets.items_returned, 600, "u4 was never stored");
    assert!(close(gets.read_units, sums.lock().unwrap().read));
    let u1 = report
        .partitions
        .iter()
        .find(|p| p.index.is_none() && p.key == "USER#u1")
        .expect("u1's partition");
    assert_eq!(u1.touches, 200);
}
