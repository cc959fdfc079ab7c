//! Monotonic reads through one `CachedStore`: a read never returns an older
//! state of an item than a read or write that completed before it began.
//!
//! Writers increment the stock of a few hot products (typed updates, untyped updates asking for
//! old values, transactions) while readers read them every way the cache serves: typed and
//! untyped gets, strongly consistent gets, batch gets, queries and transactional gets. Every
//! value a completed operation observed raises the key's floor; a read that returns less than
//! the floor it saw when it began is a violation. Bounded in time: `DYNO_MONOTONIC_SECS` seconds
//! per backend (default 2). MemoryStore and every configured server with atomic writes
//! (dynalite, dynoxide); moto is skipped: its updates are not atomic under concurrent requests,
//! so it loses increments itself and the floor means nothing there.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dyno_cache::CachedStore;
use dyno_core::expr::{KeyCondition, Path};
use dyno_core::ops::{BatchGet, EntityExt, TransactGet, Transaction};
use dyno_core::store::{GetRequest, QueryRequest, ReturnValues, TableNames};
use dyno_core::{AttributeValue, Item, Store};
use dyno_tests::backend::{
    atomic_conditional_writes, backends, supports_transactions, unique_table_name,
};
use dyno_tests::model::{ecommerce_table, Product, User, TABLE};

type Cached = CachedStore<Arc<dyn Store>>;

/// Hot products: few enough that every key sees constant contention.
const HOT: usize = 3;
const WRITERS: usize = 4;
const READERS: usize = 4;

fn duration() -> Duration {
    let secs = std::env::var("DYNO_MONOTONIC_SECS")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or(2.0);
    Duration::from_secs_f64(secs)
}

fn product_id(k: usize) -> String {
    format!("hot{k}")
}

fn product(k: usize) -> Product {
    Product {
        product_id: product_id(k),
        name: format!("hot product {k}"),
        category: "hot".into(),
        price_cents: 100,
        stock: 0,
    }
}

fn stock_of(item: &Item) -> u64 {
    match item.get("stock") {
        Some(AttributeValue::N(n)) => n.parse().expect("stock is an integer"),
        other => panic!("stock missing: {other:?}"),
    }
}

/// The highest stock each hot key is known to have reached by a completed operation, and which
/// kind of operation observed it (for the failure message).
struct Floors([AtomicU64; HOT], [std::sync::Mutex<&'static str>; HOT]);

impl Floors {
    fn new() -> Self {
        Floors(
            std::array::from_fn(|_| AtomicU64::new(0)),
            std::array::from_fn(|_| std::sync::Mutex::new("seed")),
        )
    }
    fn get(&self, k: usize) -> u64 {
        self.0[k].load(Ordering::SeqCst)
    }
    fn raise(&self, k: usize, v: u64, by: &'static str) {
        if self.0[k].fetch_max(v, Ordering::SeqCst) < v {
            *self.1[k].lock().unwrap() = by;
        }
    }
    fn by(&self, k: usize) -> &'static str {
        *self.1[k].lock().unwrap()
    }
}

#[derive(Default)]
struct Tally {
    ops: AtomicU64,
    violations: AtomicU64,
    first: std::sync::Mutex<Vec<String>>,
}

impl Tally {
    /// Checks a read of key `k` that returned `got`, against the floor taken when it began.
    fn check(&self, how: &'static str, k: usize, floor: u64, got: u64, floors: &Floors) {
        if got < floor {
            self.violations.fetch_add(1, Ordering::Relaxed);
            let mut first = self.first.lock().unwrap();
            if first.len() < 8 {
                first.push(format!(
                    "{how} of hot{k}: got {got}, floor {floor} (latest raise by: {})",
                    floors.by(k)
                ));
            }
        }
        floors.raise(k, got, how);
    }
}

async fn writer(store: Arc<dyn Store>, floors: Arc<Floors>, deadline: Instant, transactions: bool) {
    while Instant::now() < deadline {
        let k = fastrand::usize(..HOT);
        let increment = || {
            Product::update(Product::key(&product_id(k)).unwrap())
                .add(Path::attr("stock"), AttributeValue::N("1".into()))
        };
        match fastrand::u8(..10) {
            // Typed update: the new state comes back.
            0..=5 => {
                let p = increment()
                    .send(store.as_ref())
                    .await
                    .expect("typed update");
                floors.raise(k, u64::from(p.stock), "typed update");
            }
            // Untyped update asking for the old image: the cache cannot know the new one.
            6..=7 => {
                let mut request = increment().into_request().unwrap();
                request.return_values = ReturnValues::AllOld;
                let out = store.update_item(request).await.expect("untyped update");
                floors.raise(
                    k,
                    stock_of(&out.attributes.expect("old image")) + 1,
                    "untyped update",
                );
            }
            // A transaction: applied, value unknown to the writer.
            _ if transactions => {
                Transaction::new()
                    .update(increment())
                    .send(store.as_ref())
                    .await
                    .expect("transaction");
            }
            _ => {
                let p = increment()
                    .send(store.as_ref())
                    .await
                    .expect("typed update");
                floors.raise(k, u64::from(p.stock), "typed update");
            }
        }
        tokio::task::yield_now().await;
    }
}

async fn reader(
    store: Arc<dyn Store>,
    shared: Option<Arc<Cached>>,
    floors: Arc<Floors>,
    tally: Arc<Tally>,
    deadline: Instant,
    transactions: bool,
) {
    while Instant::now() < deadline {
        let k = fastrand::usize(..HOT);
        let key = Product::key(&product_id(k)).unwrap();
        let floor = floors.get(k);
        match fastrand::u8(..12) {
            0..=1 => {
                let p = Product::get(key)
                    .send(store.as_ref())
                    .await
                    .unwrap()
                    .unwrap();
                tally.check("typed get", k, floor, u64::from(p.stock), &floors);
            }
            2..=3 => {
                let (how, p) = match &shared {
                    Some(cached) => ("shared typed get", cached.get_shared(&key).await),
                    None => (
                        "typed get",
                        Product::get(key)
                            .send(store.as_ref())
                            .await
                            .map(|p| p.map(Arc::new)),
                    ),
                };
                let p = p.unwrap().unwrap();
                tally.check(how, k, floor, u64::from(p.stock), &floors);
            }
            4..=5 => {
                let out = store
                    .get_item(GetRequest::borrowed(TABLE, key.try_as_item().unwrap()))
                    .await
                    .unwrap();
                tally.check(
                    "untyped get",
                    k,
                    floor,
                    stock_of(&out.item.unwrap()),
                    &floors,
                );
            }
            6 => {
                let p = Product::get(key)
                    .consistent()
                    .send(store.as_ref())
                    .await
                    .unwrap()
                    .unwrap();
                tally.check("consistent get", k, floor, u64::from(p.stock), &floors);
            }
            7..=8 => {
                let before: Vec<u64> = (0..HOT).map(|i| floors.get(i)).collect();
                let keys = (0..HOT).map(|i| Product::key(&product_id(i)).unwrap());
                // A User key too: batch gets mix entities of the table.
                let got = BatchGet::new(keys).send(store.as_ref()).await.unwrap();
                let _ = User::get(User::key("nobody").unwrap())
                    .send(store.as_ref())
                    .await
                    .unwrap();
                assert_eq!(got.len(), HOT);
                for p in got {
                    let i = (0..HOT).find(|i| product_id(*i) == p.product_id).unwrap();
                    tally.check("batch get", i, before[i], u64::from(p.stock), &floors);
                }
            }
            9..=10 => {
                let pk = key.try_as_item().unwrap()["PK"].clone();
                let page = store
                    .query(QueryRequest::new(
                        TABLE,
                        None,
                        KeyCondition::partition("PK", pk),
                    ))
                    .await
                    .unwrap();
                assert_eq!(page.items.len(), 1);
                tally.check("query", k, floor, stock_of(&page.items[0]), &floors);
            }
            _ if transactions => {
                let mut tx = TransactGet::new();
                let h = tx.get(key);
                let got = tx.send(store.as_ref()).await.unwrap();
                let p = got.get(&h).unwrap().unwrap();
                tally.check("transactional get", k, floor, u64::from(p.stock), &floors);
            }
            _ => {
                let p = Product::get(key)
                    .send(store.as_ref())
                    .await
                    .unwrap()
                    .unwrap();
                tally.check("typed get", k, floor, u64::from(p.stock), &floors);
            }
        }
        tally.ops.fetch_add(1, Ordering::Relaxed);
        tokio::task::yield_now().await;
    }
}

/// Races writers and readers through `store` until the deadline; returns (reads, violations,
/// the first few violations).
/// `shared` is the cache behind `store` when there is one, for its shared typed gets.
async fn race(
    store: Arc<dyn Store>,
    shared: Option<Arc<Cached>>,
    transactions: bool,
) -> (u64, u64, Vec<String>) {
    for k in 0..HOT {
        product(k).put().send(store.as_ref()).await.unwrap();
    }
    let floors = Arc::new(Floors::new());
    let tally = Arc::new(Tally::default());
    let deadline = Instant::now() + duration();
    let mut tasks = Vec::new();
    for _ in 0..WRITERS {
        tasks.push(tokio::spawn(writer(
            store.clone(),
            floors.clone(),
            deadline,
            transactions,
        )));
    }
    for _ in 0..READERS {
        tasks.push(tokio::spawn(reader(
            store.clone(),
            shared.clone(),
            floors.clone(),
            tally.clone(),
            deadline,
            transactions,
        )));
    }
    for t in tasks {
        // Bounded: every task stops at the deadline; the timeout turns a hang into a failure.
        tokio::time::timeout(duration() + Duration::from_secs(60), t)
            .await
            .expect("a task hung past the deadline")
            .expect("a task panicked");
    }
    let first = tally.first.lock().unwrap().clone();
    (
        tally.ops.load(Ordering::Relaxed),
        tally.violations.load(Ordering::Relaxed),
        first,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn reads_through_the_cache_never_go_back_in_time_on_every_atomic_backend() {
    for backend in backends().await {
        if !atomic_conditional_writes(backend.kind) {
            eprintln!(
                "{}: skipped, its writes are not atomic under concurrency",
                backend.name
            );
            continue;
        }
        let names =
            TableNames::new(backend.store.clone()).map(TABLE, unique_table_name("cache-monotonic"));
        names.create_table(&ecommerce_table(TABLE)).await.unwrap();
        let plain: Arc<dyn Store> = Arc::new(names);
        let cached = Arc::new(CachedStore::new(plain.clone()));
        let transactions = supports_transactions(backend.kind);
        let (reads, violations, first) = race(cached.clone(), Some(cached), transactions).await;
        eprintln!(
            "{}+cache: {reads} reads, {violations} went back in time",
            backend.name
        );
        let _ = plain.delete_table(TABLE).await;
        assert!(reads > 0, "{}: no reads ran", backend.name);
        assert_eq!(
            violations, 0,
            "{}+cache: {violations} of {reads} reads returned an older state than one already \
             observed; first: {first:#?}",
            backend.name
        );
    }
}

/// The control: the same race straight on MemoryStore reports nothing, so what the cached run
/// counts is the cache's doing.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_race_itself_reports_nothing_without_a_cache() {
    let memory = dyno_core::MemoryStore::new();
    memory.create_table(&ecommerce_table(TABLE)).await.unwrap();
    let (reads, violations, first) = race(Arc::new(memory), None, true).await;
    eprintln!("memory: {reads} reads, {violations} went back in time");
    assert!(reads > 0);
    assert_eq!(violations, 0, "first: {first:#?}");
}
