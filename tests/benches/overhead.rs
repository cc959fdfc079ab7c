//! What dyno's typed operations cost over hand-written aws-sdk-dynamodb calls, on the same server
//! through the same SDK client, and what the batch engine gains over sequential puts.
//!
//! Servers: dynalite when `DYNO_DYNALITE_ENDPOINT` is set, dynoxide when `DYNO_DYNOXIDE_ENDPOINT`
//! is set (`scripts/bench overhead` starts both). Without either, nothing is measured.
//!
//! Cases, each on the e-commerce `Order` (`dyno_tests::ecommerce`, every field set), typed and
//! hand-written side by side:
//! - `get`: `Order::get(Order::key(..)).send(&store)` against `client.get_item()` with the key
//!   built by hand, the item decoded by `dyno_tests::hand::hand_from_item` and hidden when its
//!   TTL has passed (what the typed get does);
//! - `put`: `order.put().send(&store)` (optimistic locking: the stored version must be the
//!   order's, the item is written with `version + 1`) against `client.put_item()` with the same
//!   item (`hand_to_item`) and the same condition; both cycle over [`PUT_KEYS`] keys of their
//!   own, whose stored versions the benchmark tracks. `put/hand_same` is the hand-written put
//!   with what the typed put sends on top of that: the ownership condition (`attribute_not_exists
//!   (_type) OR _type = :t`, so that a put never overwrites another entity's item at the same key)
//!   and `ReturnConsumedCapacity = INDEXES` (the capacity the store reports and traces): the
//!   same safety and the same request, written by hand;
//! - `query100`: `Order::query(user).all(&store)` against `client.query()` with the same key
//!   condition, reading every page, keeping the items whose `_type` is `Order` and whose TTL has
//!   not passed, decoded by hand. Both read the same 100 orders (checked before timing).
//!
//! Two measurements of the same cases: `overhead/...` is wall time, `overhead_cpu/...` the CPU
//! time of this process (every thread: the runtime, the SDK, the decode) per operation, from
//! `CLOCK_PROCESS_CPUTIME_ID`. The server runs in another process, so its CPU is not counted: the
//! CPU figure is what the client side costs, the part dyno adds to.
//!
//! `overhead/<server>/server_cpu`: the server's own CPU time per put (typed, hand, hand_same),
//! from `/proc/<pid>/stat` of the server's process group (`$DYNO_BACKEND_RUN_DIR/<server>.pid`,
//! written by `scripts/backend`) before and after [`SERVER_CPU_PUTS`] sequential puts of each
//! kind: what the condition and the capacity report cost the server, fair under load because it
//! counts only the server's CPU. Printed, not a criterion benchmark.
//!
//! `overhead/<server>/batch5000`: 5,000 new orders written by [`BatchWriter`] without the
//! entity check (25 per `BatchWriteItem`, 4 requests in flight) against 5,000 sequential
//! `order.put().send(&store)`, each [`ROUNDS`] times, alternating; the medians of wall and CPU time and their ratio are printed, with the server's
//! CPU per item of each side and the wall time of the same batch with [`WIDE`] requests in flight
//! (no faster when the server bounds the batch). Not a criterion benchmark: one sequential round
//! takes seconds, and criterion needs ten samples at least. Runs when no filter is given or the
//! filter mentions `batch`; with `--test`, one round of 100.
//!
//! `overhead/<server>/round_trip`: the same comparison (one round, [`BatchWriter`] with its
//! default 4 requests in flight against sequential puts) through a loopback
//! [`FaultProxy`](dyno_tests::proxy::FaultProxy) that holds every request for [`ROUND_TRIP`]
//! (`DYNO_ROUND_TRIP_MS` to change it) before forwarding it: a stand-in for the network between
//! a client and DynamoDB, which the loopback servers lack. Where a round trip costs more than the
//! server's work, the ratio measures the engine (requests saved and overlapped), not the local
//! server's CPU. Only when the filter names `round_trip` (the sequential side takes `n` round
//! trips: about 15 s per server for 5,000 items).
//!
//! `overhead/<server>/paired`: puts and gets of each kind interleaved round by round (a random
//! order each round), each call timed by the wall clock and by the thread's CPU clock, medians
//! and their ratios printed ([`paired`]): ratios that a change of load between criterion's cases
//! cannot move. The kinds are a ladder from the hand-written call to the typed one ([`KINDS`]:
//! `hand`, `hand_same`, `alloc`, `wrapped`, `store`, `typed`), so that the rung where the time
//! appears names the layer that adds it.
//!
//! `DYNO_OVERHEAD_LOOP=<kind>:<n>`: no benchmark, `n` calls of one kind in a loop for callgrind
//! ([`client_loop`]); `DYNO_OVERHEAD_SIZES=1` also prints the sizes of the futures involved.
//!
//! `scripts/bench overhead` (or `scripts/bench overhead -- --warm-up-time 2 --measurement-time 5`)

use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::AttributeValue;
use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{criterion_group, BatchSize, Criterion};
use dyno_core::ops::{BatchWriter, EntityExt, QueryDsl};
use dyno_core::{DynamoStore, Item, Store};
use dyno_tests::ecommerce::{self, Order};
use dyno_tests::hand::{escape, hand_from_item, hand_to_item};
use dyno_tests::proxy::{Fault, FaultProxy};
use time::OffsetDateTime;

/// Requests are built, and outputs dropped, outside the timing, in batches of this many.
const BATCH: BatchSize = BatchSize::NumIterations(64);

/// Distinct keys each put case cycles over.
const PUT_KEYS: usize = 500;

/// Puts of each kind per server-CPU measurement.
const SERVER_CPU_PUTS: usize = 2_000;

/// Orders in the queried partition.
const QUERY_ITEMS: usize = 100;

/// Items of the batch comparison.
const BATCH_ITEMS: usize = 5_000;

/// Rounds of the batch comparison (each: one batch write and one sequential run).
const ROUNDS: usize = 3;

/// Requests in flight of the batch comparison's second `BatchWriter` (the default is 4).
const WIDE: usize = 16;
/// The delay [`round_trip`] adds to every request: the low single-digit milliseconds a request to
/// DynamoDB takes from a client in the same region.
const ROUND_TRIP: Duration = Duration::from_millis(2);

/// The table every typed operation on `Order` uses.
fn table() -> &'static str {
    ecommerce::definition().name.as_str()
}

// ---------------------------------------------------------------------------------------------
// CPU time as a criterion measurement.

/// The CPU time of this process (all threads), as criterion's measured value.
struct CpuTime;

fn process_cpu() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

impl Measurement for CpuTime {
    type Intermediate = Duration;
    type Value = Duration;

    fn start(&self) -> Duration {
        process_cpu()
    }
    fn end(&self, start: Duration) -> Duration {
        process_cpu().saturating_sub(start)
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        // Nanoseconds, like wall time: the same units and scaling.
        static WALL: WallTime = WallTime;
        WALL.formatter()
    }
}

// ---------------------------------------------------------------------------------------------
// The servers and their data.

/// One server, its table seeded: a `DynamoStore` and its SDK client (the same connection pool).
struct Server {
    name: &'static str,
    endpoint: String,
    store: DynamoStore,
    client: aws_sdk_dynamodb::Client,
}

fn servers(rt: &tokio::runtime::Runtime) -> Vec<Server> {
    let mut out = Vec::new();
    for (name, var) in [
        ("dynalite", "DYNO_DYNALITE_ENDPOINT"),
        ("dynoxide", "DYNO_DYNOXIDE_ENDPOINT"),
    ] {
        match std::env::var(var) {
            Ok(endpoint) => {
                let store = rt.block_on(DynamoStore::local(&endpoint));
                let client = store.client().clone();
                out.push(Server {
                    name,
                    endpoint,
                    store,
                    client,
                });
            }
            Err(_) => eprintln!("{var} unset: {name} skipped (scripts/bench overhead starts it)"),
        }
    }
    out
}

/// The orders one put case writes: its user's [`PUT_KEYS`] keys in turn, each carrying the
/// version stored for its key. Every key was seeded with version 1 and each timed put raises it
/// by one (a failed put panics, so the count stays exact).
struct PutKeys {
    user: String,
    versions: Vec<u64>,
    i: usize,
}

impl PutKeys {
    fn new(user: &str) -> Self {
        PutKeys {
            user: user.to_owned(),
            versions: vec![1; PUT_KEYS],
            i: 0,
        }
    }

    fn next(&mut self) -> Order {
        self.i = (self.i + 1) % PUT_KEYS;
        let mut order = full(&self.user, self.i);
        order.version = self.versions[self.i];
        self.versions[self.i] += 1;
        order
    }
}

/// An order of `user` with every field set (two products, a note, a TTL in 2096).
fn full(user: &str, i: usize) -> Order {
    Order {
        user_id: user.to_owned(),
        order_id: format!("{i:08}"),
        version: 0,
        ..ecommerce::full_order()
    }
}

/// The user whose partition a case reads or writes, per process (a rerun on the same server
/// starts from empty partitions).
fn user(case: &str) -> String {
    format!("{case}-{}", std::process::id())
}

/// Creates the table if needed and writes what the cases read: the orders of the query
/// partition (one of them the get's), and version 1 of every put key.
fn seed(rt: &tokio::runtime::Runtime, server: &Server) -> Fixture {
    let fixture = Fixture {
        read_user: user("read"),
        typed_put_user: user("put-typed"),
        hand_put_user: user("put-hand"),
        same_put_user: user("put-hand-same"),
    };
    rt.block_on(async {
        if let Err(e) = ecommerce::create_table(&server.store).await {
            // A table left by an earlier run on the same server is fine.
            if !matches!(e, dyno_core::Error::ResourceInUse { .. }) {
                panic!("create table on {}: {e}", server.name);
            }
        }
        let mut batch = BatchWriter::new().without_entity_check();
        let reads: Vec<Order> = (0..QUERY_ITEMS)
            .map(|i| full(&fixture.read_user, i))
            .collect();
        let typed: Vec<Order> = (0..PUT_KEYS)
            .map(|i| full(&fixture.typed_put_user, i))
            .collect();
        let hand: Vec<Order> = (0..PUT_KEYS)
            .map(|i| full(&fixture.hand_put_user, i))
            .collect();
        let same: Vec<Order> = (0..PUT_KEYS)
            .map(|i| full(&fixture.same_put_user, i))
            .collect();
        batch.put_all_ignoring_version(&reads).unwrap();
        batch.put_all_ignoring_version(&typed).unwrap();
        batch.put_all_ignoring_version(&hand).unwrap();
        batch.put_all_ignoring_version(&same).unwrap();
        batch.send(&server.store).await.expect("seed");
    });
    fixture
}

struct Fixture {
    read_user: String,
    typed_put_user: String,
    hand_put_user: String,
    same_put_user: String,
}

// ---------------------------------------------------------------------------------------------
// The hand-written side: what a careful engineer writes with the SDK alone.

/// `PK` and `SK` of an order, as the derive writes them.
fn hand_key(user: &str, order_id: &str) -> (String, String) {
    let mut pk = String::with_capacity(5 + user.len());
    pk.push_str("USER#");
    escape(user, &mut pk);
    let mut sk = String::with_capacity(6 + order_id.len());
    sk.push_str("ORDER#");
    escape(order_id, &mut sk);
    (pk, sk)
}

/// True when the item's TTL (epoch seconds) has passed: DynamoDB deletes such items lazily, and a
/// read must not return them.
fn expired(item: &Item, now: i64) -> bool {
    match item.get("ttl") {
        Some(AttributeValue::N(n)) => n.parse::<f64>().is_ok_and(|t| t <= now as f64),
        _ => false,
    }
}

async fn hand_get(client: &aws_sdk_dynamodb::Client, user: &str, id: &str) -> Option<Order> {
    hand_get_with(client, user, id, None).await
}

/// [`hand_get`] asking for `capacity` too: with `INDEXES`, the request the typed get sends
/// (every dyno request reports its consumed capacity), so the paired case compares like with like
/// as `put/hand_same` does for puts.
async fn hand_get_with(
    client: &aws_sdk_dynamodb::Client,
    user: &str,
    id: &str,
    capacity: Option<aws_sdk_dynamodb::types::ReturnConsumedCapacity>,
) -> Option<Order> {
    let (pk, sk) = hand_key(user, id);
    let out = client
        .get_item()
        .table_name(table())
        .key("PK", AttributeValue::S(pk))
        .key("SK", AttributeValue::S(sk))
        .set_return_consumed_capacity(capacity)
        .send()
        .await
        .expect("hand get");
    let item = out.item?;
    if expired(&item, OffsetDateTime::now_utc().unix_timestamp()) {
        return None;
    }
    Some(hand_from_item(&item).expect("hand decode"))
}

/// `order`'s item as the next version writes it: `version + 1`.
fn next_version_item(order: &Order) -> Item {
    let mut item = hand_to_item(order);
    item.insert(
        "version".to_owned(),
        AttributeValue::N((order.version + 1).to_string()),
    );
    item
}

/// Writes `order` with `version + 1` if the stored version is `order.version` (at least 1).
async fn hand_put(client: &aws_sdk_dynamodb::Client, order: &Order) {
    let item = next_version_item(order);
    client
        .put_item()
        .table_name(table())
        .set_item(Some(item))
        .condition_expression("#v = :v")
        .expression_attribute_names("#v", "version")
        .expression_attribute_values(":v", AttributeValue::N(order.version.to_string()))
        .send()
        .await
        .expect("hand put");
}

/// [`hand_put`] with the typed put's ownership condition and `ReturnConsumedCapacity = INDEXES`.
async fn hand_put_same(client: &aws_sdk_dynamodb::Client, order: &Order) {
    let item = next_version_item(order);
    client
        .put_item()
        .table_name(table())
        .set_item(Some(item))
        .condition_expression("(attribute_not_exists(#t) OR #t = :t) AND #v = :v")
        .expression_attribute_names("#t", "_type")
        .expression_attribute_names("#v", "version")
        .expression_attribute_values(":t", AttributeValue::S("Order".to_owned()))
        .expression_attribute_values(":v", AttributeValue::N(order.version.to_string()))
        .return_consumed_capacity(aws_sdk_dynamodb::types::ReturnConsumedCapacity::Indexes)
        .send()
        .await
        .expect("hand put (same condition)");
}

async fn hand_query(client: &aws_sdk_dynamodb::Client, user: &str) -> Vec<Order> {
    hand_query_with(client, user, None).await
}

/// [`hand_query`] asking for `capacity` too (`INDEXES`: what the typed query sends).
async fn hand_query_with(
    client: &aws_sdk_dynamodb::Client,
    user: &str,
    capacity: Option<aws_sdk_dynamodb::types::ReturnConsumedCapacity>,
) -> Vec<Order> {
    let (pk, _) = hand_key(user, "");
    let now = OffsetDateTime::now_utc().unix_timestamp();
    let mut orders = Vec::new();
    let mut start = None;
    loop {
        let page = client
            .query()
            .table_name(table())
            .key_condition_expression("#pk = :pk AND begins_with(#sk, :sk)")
            .expression_attribute_names("#pk", "PK")
            .expression_attribute_names("#sk", "SK")
            .expression_attribute_values(":pk", AttributeValue::S(pk.clone()))
            .expression_attribute_values(":sk", AttributeValue::S("ORDER#".to_owned()))
            .set_exclusive_start_key(start)
            .set_return_consumed_capacity(capacity.clone())
            .send()
            .await
            .expect("hand query");
        for item in page.items() {
            let is_order = matches!(item.get("_type"), Some(AttributeValue::S(t)) if t == "Order");
            if is_order && !expired(item, now) {
                orders.push(hand_from_item(item).expect("hand decode"));
            }
        }
        start = page.last_evaluated_key;
        if start.is_none() {
            return orders;
        }
    }
}

/// Both sides read the same data before anything is timed.
fn check(rt: &tokio::runtime::Runtime, server: &Server, fixture: &Fixture) {
    rt.block_on(async {
        let id = format!("{:08}", 7);
        let typed = Order::get(Order::key(fixture.read_user.as_str(), id.as_str()))
            .send(&server.store)
            .await
            .unwrap();
        let hand = hand_get(&server.client, &fixture.read_user, &id).await;
        assert!(typed.is_some(), "{}: seeded order missing", server.name);
        assert_eq!(
            typed, hand,
            "{}: typed and hand-written gets differ",
            server.name
        );
        let typed = Order::query(fixture.read_user.as_str())
            .all(&server.store)
            .await
            .unwrap();
        let hand = hand_query(&server.client, &fixture.read_user).await;
        assert_eq!(typed.len(), QUERY_ITEMS, "{}: typed query", server.name);
        assert_eq!(
            typed, hand,
            "{}: typed and hand-written queries differ",
            server.name
        );
    });
}

// ---------------------------------------------------------------------------------------------
// The cases, for any measurement.

fn cases<M: Measurement + 'static>(
    c: &mut Criterion<M>,
    group: &str,
    rt: &tokio::runtime::Runtime,
    server: &Server,
    fixture: &Fixture,
) {
    let store = &server.store;
    let client = &server.client;
    let read_user = fixture.read_user.as_str();
    let get_id = format!("{:08}", 7);
    let mut g = c.benchmark_group(format!("{group}/{}", server.name));

    g.bench_function("get/typed", |b| {
        b.to_async(rt).iter_batched(
            || (),
            |()| async {
                let order = Order::get(Order::key(read_user, get_id.as_str()))
                    .send(store)
                    .await
                    .unwrap();
                assert!(order.is_some());
                order
            },
            BATCH,
        );
    });
    g.bench_function("get/hand", |b| {
        b.to_async(rt).iter_batched(
            || (),
            |()| async {
                let order = hand_get(client, read_user, &get_id).await;
                assert!(order.is_some());
                order
            },
            BATCH,
        );
    });

    let mut keys = PutKeys::new(&fixture.typed_put_user);
    g.bench_function("put/typed", |b| {
        b.to_async(rt).iter_batched(
            || keys.next(),
            |order| async move { order.put().send(store).await.unwrap() },
            BATCH,
        );
    });
    let mut keys = PutKeys::new(&fixture.hand_put_user);
    g.bench_function("put/hand", |b| {
        b.to_async(rt).iter_batched(
            || keys.next(),
            |order| async move { hand_put(client, &order).await },
            BATCH,
        );
    });
    let mut keys = PutKeys::new(&fixture.same_put_user);
    g.bench_function("put/hand_same", |b| {
        b.to_async(rt).iter_batched(
            || keys.next(),
            |order| async move { hand_put_same(client, &order).await },
            BATCH,
        );
    });

    g.bench_function("query100/typed", |b| {
        b.to_async(rt).iter_batched(
            || (),
            |()| async {
                let orders = Order::query(read_user).all(store).await.unwrap();
                assert_eq!(orders.len(), QUERY_ITEMS);
                orders
            },
            BATCH,
        );
    });
    g.bench_function("query100/hand", |b| {
        b.to_async(rt).iter_batched(
            || (),
            |()| async {
                let orders = hand_query(client, read_user).await;
                assert_eq!(orders.len(), QUERY_ITEMS);
                orders
            },
            BATCH,
        );
    });
    g.finish();
}

// ---------------------------------------------------------------------------------------------
// The server's CPU per put.

/// CPU time (user + system) of every live process in the process group of `server`'s pid file
/// (`scripts/backend` starts each server as a group leader), or `None` without one.
fn server_cpu_time(server: &str) -> Option<Duration> {
    let dir = std::env::var("DYNO_BACKEND_RUN_DIR").ok()?;
    let leader: u64 = std::fs::read_to_string(format!("{dir}/{server}.pid"))
        .ok()?
        .trim()
        .parse()
        .ok()?;
    // Linux's USER_HZ: /proc/<pid>/stat counts CPU time in hundredths of a second.
    const TICK: Duration = Duration::from_millis(10);
    let mut ticks = 0u64;
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // After the command's closing parenthesis: state, ppid, pgrp, ..., utime (12th), stime.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.get(2).and_then(|g| g.parse::<u64>().ok()) == Some(leader) {
            ticks +=
                fields[11].parse::<u64>().unwrap_or(0) + fields[12].parse::<u64>().unwrap_or(0);
        }
    }
    Some(TICK * u32::try_from(ticks).ok()?)
}

/// Writes version 1 of `keys` orders of a user of its own (named after `case`) and returns them.
fn seed_orders(
    rt: &tokio::runtime::Runtime,
    server: &Server,
    case: &str,
    keys: usize,
) -> Vec<Order> {
    let who = user(case);
    let orders: Vec<Order> = (0..keys).map(|i| full(&who, i)).collect();
    rt.block_on(async {
        let mut batch = BatchWriter::new().without_entity_check();
        batch.put_all_ignoring_version(&orders).unwrap();
        batch.send(&server.store).await.expect("seed");
    });
    orders
}

/// One put of `order`, the way `kind` writes it (a rung of [`KINDS`]):
/// - `typed`: `order.put().send(&store)`;
/// - `store`: `Store::put_item` of the request the typed put builds (`into_request`: the derived
///   encoding, the conditions, the size checks), without the typed layer around the call (its
///   span, the key kept for the failure path, the error naming);
/// - `wrapped`: [`hand_put_same`]'s SDK call inside what `DynamoStore` puts around every call
///   ([`wrapped`]), without dyno's conversion of the request and the output;
/// - `alloc`: [`hand_put_same`] holding two heap blocks the sizes of `DynamoStore::put_item`'s
///   boxed futures (release build, `DYNO_OVERHEAD_SIZES`): a control, what those two allocations
///   cost on their own;
/// - `hand_same`, `hand`: [`hand_put_same`], [`hand_put`].
async fn put_one(server: &Server, kind: &str, order: &Order) {
    match kind {
        "typed" => order.put().send(&server.store).await.unwrap(),
        "store" => {
            let request = order.put().into_request().unwrap();
            server.store.put_item(request).await.unwrap();
        }
        "wrapped" => wrapped("PutItem", hand_put_same(&server.client, order)).await,
        "hand" => hand_put(&server.client, order).await,
        "hand_same" => hand_put_same(&server.client, order).await,
        "alloc" => {
            let boxes = (Box::new([1u8; 2200]), Box::new([2u8; 6160]));
            hand_put_same(&server.client, order).await;
            std::hint::black_box(boxes);
        }
        _ => panic!("unknown put kind {kind}"),
    }
}

/// The rungs between the hand-written call and the typed one, for puts and gets alike
/// ([`put_one`], [`get_one`]): where the typed call's extra time appears, the layer added on
/// that rung is the one to look inside.
const KINDS: [&str; 6] = ["typed", "store", "wrapped", "alloc", "hand_same", "hand"];

/// One get of the order `id` of `user`, the way `kind` reads it (a rung of [`KINDS`]):
/// - `typed`: `Order::get(Order::key(user, id)).send(&store)`;
/// - `store`: `Store::get_item` of a ready request (`key`, built beforehand), the item checked
///   for expiry and decoded by hand as [`hand_get`] does: `DynamoStore` without the typed layer;
/// - `wrapped`: [`hand_get_with`] (`INDEXES`) inside [`wrapped`];
/// - `alloc`: `hand_same` holding two heap blocks the sizes of `DynamoStore::get_item`'s boxed
///   futures (a control, as for puts);
/// - `hand_same`: [`hand_get_with`] asking for `INDEXES`, as every dyno request does;
/// - `hand`: [`hand_get`].
async fn get_one(server: &Server, kind: &str, user: &str, id: &str, key: &Item) -> Option<Order> {
    let indexes = aws_sdk_dynamodb::types::ReturnConsumedCapacity::Indexes;
    match kind {
        "typed" => Order::get(Order::key(user, id))
            .send(&server.store)
            .await
            .unwrap(),
        "store" => {
            let out = server
                .store
                .get_item(dyno_core::store::GetRequest::borrowed(table(), key))
                .await
                .unwrap();
            let item = out.item?;
            if expired(&item, OffsetDateTime::now_utc().unix_timestamp()) {
                return None;
            }
            Some(hand_from_item(&item).expect("hand decode"))
        }
        "wrapped" => {
            wrapped(
                "GetItem",
                hand_get_with(&server.client, user, id, Some(indexes)),
            )
            .await
        }
        "hand_same" => hand_get_with(&server.client, user, id, Some(indexes)).await,
        "alloc" => {
            let boxes = (Box::new([1u8; 1304]), Box::new([2u8; 5520]));
            let out = hand_get_with(&server.client, user, id, Some(indexes)).await;
            std::hint::black_box(boxes);
            out
        }
        "hand" => hand_get(&server.client, user, id).await,
        _ => panic!("unknown get kind {kind}"),
    }
}

/// One 100-item query of `user`'s orders, the way `kind` reads them (`typed`: `Order::query(user)
/// .all(&store)`; `hand_same`: [`hand_query_with`] `INDEXES`; `hand`: [`hand_query`]); the
/// number of orders read.
async fn query_one(server: &Server, kind: &str, user: &str) -> usize {
    match kind {
        "typed" => Order::query(user).all(&server.store).await.unwrap().len(),
        "hand_same" => {
            let indexes = aws_sdk_dynamodb::types::ReturnConsumedCapacity::Indexes;
            hand_query_with(&server.client, user, Some(indexes))
                .await
                .len()
        }
        "hand" => hand_query(&server.client, user).await.len(),
        _ => panic!("unknown query kind {kind}"),
    }
}

tokio::task_local! {
    /// [`wrapped`]'s stand-in for `DynamoStore`'s transmission record.
    static WIRE: std::cell::Cell<(bool, u32, bool)>;
}

/// `call`, as `DynamoStore` runs every SDK call, written out here: the call boxed, run inside a
/// task-local scope (the transmission record its interceptor marks) and inside a `dynamodb`
/// span with OpenTelemetry's fields, the capacity recorded on the span afterwards.
async fn wrapped<T>(operation: &'static str, call: impl std::future::Future<Output = T>) -> T {
    use tracing::field::Empty;
    use tracing::Instrument;
    let span = tracing::info_span!(
        "dynamodb",
        otel.kind = "client",
        db.system.name = "aws.dynamodb",
        db.operation.name = operation,
        aws.dynamodb.table_names = table(),
        aws.dynamodb.index_name = Empty,
        aws.dynamodb.consistent_read = Empty,
        aws.dynamodb.consumed_capacity = Empty,
        error.type = Empty,
        error.message = Empty,
    );
    let call = Box::pin(call);
    let (out, _wire) = WIRE
        .scope(std::cell::Cell::new((false, 0, false)), async {
            let out = call.await;
            (out, WIRE.with(std::cell::Cell::get))
        })
        .instrument(span.clone())
        .await;
    span.record("aws.dynamodb.consumed_capacity", 1.0);
    out
}

/// Prints the server's CPU per put of each kind: [`SERVER_CPU_PUTS`] sequential puts each, on
/// keys of their own (version 1 seeded), the server's CPU read before and after.
fn server_cpu(rt: &tokio::runtime::Runtime, server: &Server) {
    if server_cpu_time(server.name).is_none() {
        eprintln!(
            "overhead/{}/server_cpu: skipped (no pid file in $DYNO_BACKEND_RUN_DIR)",
            server.name
        );
        return;
    }
    let n = SERVER_CPU_PUTS;
    let keys = 200;
    let mut line = format!("overhead/{}/server_cpu per put ({n} each):", server.name);
    // A warm-up pass of every kind first (dynalite's JavaScript is compiled as it runs), then
    // the measured one.
    for (pass, n) in [(0, n / 4), (1, n)] {
        for kind in ["typed", "hand", "hand_same"] {
            let orders = seed_orders(rt, server, &format!("cpu-{kind}-{pass}"), keys);
            let mut versions = vec![1u64; keys];
            let before = server_cpu_time(server.name).unwrap_or_default();
            rt.block_on(async {
                for j in 0..n {
                    let i = j % keys;
                    let mut order = orders[i].clone();
                    order.version = versions[i];
                    versions[i] += 1;
                    put_one(server, kind, &order).await;
                }
            });
            let spent = server_cpu_time(server.name).unwrap_or_default() - before;
            if pass == 1 {
                line += &format!(" {kind} {:.0} us", spent.as_secs_f64() * 1e6 / n as f64);
            }
        }
    }
    eprintln!("{line}");
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Runs `cases` on every configured server with measurement `M`.
fn on_servers<M: Measurement + 'static>(c: &mut Criterion<M>, group: &str) {
    let rt = runtime();
    for server in servers(&rt) {
        let fixture = seed(&rt, &server);
        check(&rt, &server, &fixture);
        if group == "overhead" && wants("server_cpu") {
            server_cpu(&rt, &server);
        }
        cases(c, group, &rt, &server, &fixture);
    }
}

fn wall(c: &mut Criterion) {
    on_servers(c, "overhead");
}

fn cpu(c: &mut Criterion<CpuTime>) {
    on_servers(c, "overhead_cpu");
}

// ---------------------------------------------------------------------------------------------
// The batch engine against sequential puts.

/// What the command line asks of the batch comparison: `None` to skip it, else the items per
/// write.
fn batch_items() -> Option<usize> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--test") {
        return Some(100);
    }
    if args.iter().any(|a| a == "--list") {
        return None;
    }
    wants("batch").then_some(BATCH_ITEMS)
}

/// Whether a part measured outside criterion (`batch`, `server_cpu`, `paired`) runs: no filter on the
/// command line, or one that names it; never with `--list` or `--test`.
fn wants(part: &str) -> bool {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--list" || a == "--test") {
        return false;
    }
    // Criterion's options that take a value; the filter is any other bare word.
    const VALUED: &[&str] = &[
        "--warm-up-time",
        "--measurement-time",
        "--sample-size",
        "--profile-time",
        "--save-baseline",
        "--baseline",
        "--baseline-lenient",
        "--load-baseline",
        "--significance-level",
        "--noise-threshold",
        "--confidence-level",
        "--nresamples",
        "--plotting-backend",
        "--output-format",
        "--color",
        "--format",
    ];
    let mut filter = None;
    let mut skip = false;
    for a in &args {
        if skip {
            skip = false;
        } else if VALUED.contains(&a.as_str()) {
            skip = true;
        } else if !a.starts_with('-') {
            filter = Some(a.as_str());
        }
    }
    filter.is_none_or(|f| f.contains(part))
}

/// Whether the command line's filter names `part` (a part that is too slow for the default run).
fn named(part: &str) -> bool {
    wants(part) && std::env::args().skip(1).any(|a| a.contains(part))
}

/// One timed run: wall and process CPU time.
async fn timed<F: std::future::Future<Output = ()>>(f: F) -> (Duration, Duration) {
    let (wall, cpu) = (Instant::now(), process_cpu());
    f.await;
    (wall.elapsed(), process_cpu().saturating_sub(cpu))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// `n` new orders of `user`, each with every field set.
fn orders_of(user: &str, n: usize) -> Vec<Order> {
    (0..n).map(|i| full(user, i)).collect()
}

/// `orders` written by a [`BatchWriter`] with `concurrency` requests in flight (its default when
/// `None`), every one of them.
async fn batch_write(store: &DynamoStore, orders: &[Order], concurrency: Option<usize>) {
    let mut writer = match concurrency {
        Some(c) => BatchWriter::new().without_entity_check().concurrency(c),
        None => BatchWriter::new().without_entity_check(),
    };
    writer.put_all_ignoring_version(orders).unwrap();
    let report = writer.send(store).await.unwrap();
    assert_eq!(report.written, orders.len());
}

/// `orders` written by typed puts, one after the other.
async fn sequential_puts(store: &DynamoStore, orders: &[Order]) {
    for order in orders {
        order.put().send(store).await.unwrap();
    }
}

/// Panics unless each of `users` holds `n` orders on `server`.
async fn assert_stored(store: &DynamoStore, server: &str, users: &[&String], n: usize) {
    for u in users {
        let stored = Order::query(u.as_str()).count(store).await.unwrap();
        assert_eq!(stored, n, "{server}: {u} holds {stored} orders");
    }
}

fn batch() {
    let Some(n) = batch_items() else {
        return;
    };
    let rounds = if n == BATCH_ITEMS { ROUNDS } else { 1 };
    let rt = runtime();
    for server in servers(&rt) {
        let store = &server.store;
        let (mut batch_wall, mut batch_cpu, mut seq_wall, mut seq_cpu) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        // The same batch with WIDE requests in flight instead of 4: as fast as with 4 when the
        // server, not the engine's concurrency, bounds it.
        let mut wide_wall = Vec::new();
        let mut wide_server = Duration::ZERO;
        // The server's CPU over each side's runs: a batch whose server CPU is close to its wall
        // time is bound by the server, not by the engine's concurrency.
        let (mut batch_server, mut seq_server) = (Duration::ZERO, Duration::ZERO);
        let server_now = || server_cpu_time(server.name).unwrap_or_default();
        rt.block_on(async {
            if let Err(e) = ecommerce::create_table(store).await {
                assert!(matches!(e, dyno_core::Error::ResourceInUse { .. }), "{e}");
            }
            for round in 0..rounds {
                // Fresh partitions each round, so every put of either side creates its item.
                let batch_user = user(&format!("batch{round}"));
                let seq_user = user(&format!("seq{round}"));
                let (batch_orders, seq_orders) =
                    (orders_of(&batch_user, n), orders_of(&seq_user, n));
                let before = server_now();
                let (w, c) = timed(batch_write(store, &batch_orders, None)).await;
                batch_wall.push(w);
                batch_cpu.push(c);
                batch_server += server_now() - before;
                let wide_user = user(&format!("wide{round}"));
                let wide_orders = orders_of(&wide_user, n);
                let before = server_now();
                let (w, _) = timed(batch_write(store, &wide_orders, Some(WIDE))).await;
                wide_wall.push(w);
                wide_server += server_now() - before;
                let before = server_now();
                let (w, c) = timed(sequential_puts(store, &seq_orders)).await;
                seq_wall.push(w);
                seq_cpu.push(c);
                seq_server += server_now() - before;
                assert_stored(store, server.name, &[&batch_user, &wide_user, &seq_user], n).await;
            }
        });
        let (bw, bc, sw, sc) = (
            median(batch_wall),
            median(batch_cpu),
            median(seq_wall),
            median(seq_cpu),
        );
        println!(
            "overhead/{}/batch{n}: BatchWriter {:.3} s wall, {:.3} s CPU; sequential puts {:.3} s wall, {:.3} s CPU; sequential / batch = {:.1}x wall, {:.1}x CPU (median of {rounds})",
            server.name,
            bw.as_secs_f64(),
            bc.as_secs_f64(),
            sw.as_secs_f64(),
            sc.as_secs_f64(),
            sw.as_secs_f64() / bw.as_secs_f64(),
            sc.as_secs_f64() / bc.as_secs_f64().max(1e-9),
        );
        println!(
            "overhead/{}/batch{n}: server CPU (all {rounds} rounds, 0 without a pid file): BatchWriter {:.3} s, sequential puts {:.3} s; per item: BatchWriter {:.0} us, sequential put {:.0} us",
            server.name,
            batch_server.as_secs_f64(),
            seq_server.as_secs_f64(),
            batch_server.as_secs_f64() * 1e6 / (rounds * n) as f64,
            seq_server.as_secs_f64() * 1e6 / (rounds * n) as f64,
        );
        println!(
            "overhead/{}/batch{n}: BatchWriter with {WIDE} requests in flight {:.3} s wall (median), server CPU per item {:.0} us",
            server.name,
            median(wide_wall).as_secs_f64(),
            wide_server.as_secs_f64() * 1e6 / (rounds * n) as f64,
        );
    }
}

/// `overhead/<server>/round_trip`: [`BATCH_ITEMS`] orders by [`BatchWriter`] against as many
/// sequential typed puts, every request held for the round trip by a loopback proxy.
fn round_trip() {
    if !named("round_trip") {
        return;
    }
    let delay = std::env::var("DYNO_ROUND_TRIP_MS")
        .ok()
        .map(|ms| Duration::from_millis(ms.parse().expect("DYNO_ROUND_TRIP_MS: milliseconds")))
        .unwrap_or(ROUND_TRIP);
    let n = BATCH_ITEMS;
    let rt = runtime();
    for server in servers(&rt) {
        rt.block_on(async {
            let proxy = FaultProxy::start(&server.endpoint).await;
            proxy.set_default(Fault::Delay(delay));
            let store = DynamoStore::local(proxy.endpoint()).await;
            if let Err(e) = ecommerce::create_table(&store).await {
                assert!(matches!(e, dyno_core::Error::ResourceInUse { .. }), "{e}");
            }
            let batch_user = user("rtt-batch");
            let seq_user = user("rtt-seq");
            let (batch_orders, seq_orders) = (orders_of(&batch_user, n), orders_of(&seq_user, n));
            let (bw, _) = timed(batch_write(&store, &batch_orders, None)).await;
            let (sw, _) = timed(sequential_puts(&store, &seq_orders)).await;
            assert_stored(&server.store, server.name, &[&batch_user, &seq_user], n).await;
            println!(
                "overhead/{}/round_trip: {} ms added to every request: BatchWriter {:.3} s, sequential puts {:.3} s ({:.2} ms per put) for {n} items; sequential / batch = {:.1}x wall ({} requests through the proxy)",
                server.name,
                delay.as_millis(),
                bw.as_secs_f64(),
                sw.as_secs_f64(),
                sw.as_secs_f64() * 1e3 / n as f64,
                sw.as_secs_f64() / bw.as_secs_f64(),
                proxy.seen("BatchWriteItem") + proxy.seen("PutItem"),
            );
        });
    }
}

// ---------------------------------------------------------------------------------------------
// A client loop for instruction counts.

/// `DYNO_OVERHEAD_LOOP=<kind>:<n>`: instead of the benchmarks, `n` sequential calls of one kind
/// on the first configured server, after a warm-up of `n / 10` (the connection, the SDK's lazy
/// state), the measured ones inside [`measured_calls`], so that `valgrind --tool=callgrind
/// --collect-atstart=no --toggle-collect='*measured_calls*'` counts the client's instructions of
/// exactly those calls: dyno, the SDK, the HTTP client and the runtime. Instructions are
/// repeatable on a loaded machine, where CPU time is not. Kinds: a rung of [`KINDS`] for puts
/// (`typed`, `store`, `wrapped`, `hand_same`, `hand`), or `get_` and a rung for gets
/// (`get_typed`...), or `query_` and `typed`, `hand_same` or `hand` for 100-item queries
/// ([`query_one`]). At the end, the thread's CPU time per measured call is printed.
fn client_loop(spec: &str) {
    let (kind, n) = spec
        .split_once(':')
        .and_then(|(k, n)| Some((k.to_owned(), n.parse::<usize>().ok()?)))
        .expect("DYNO_OVERHEAD_LOOP=<[get_|query_]typed|store|wrapped|hand_same|hand>:<calls>");
    let rung = kind
        .strip_prefix("get_")
        .or_else(|| kind.strip_prefix("query_"))
        .unwrap_or(&kind);
    assert!(KINDS.contains(&rung), "unknown kind {kind}");
    let rt = runtime();
    let server = servers(&rt)
        .into_iter()
        .next()
        .expect("no server configured");
    let fixture = seed(&rt, &server);
    let work = if kind.starts_with("query_") {
        Work::Queries {
            user: fixture.read_user.clone(),
        }
    } else if kind.starts_with("get_") {
        let key = Order::key(fixture.read_user.as_str(), format!("{:08}", 7).as_str()).into_item();
        Work::Gets {
            user: fixture.read_user.clone(),
            key,
        }
    } else {
        let orders = seed_orders(&rt, &server, &format!("loop-{kind}"), PUT_KEYS);
        let mut versions = vec![1u64; PUT_KEYS];
        let mut next = 0;
        let take = (0..n + n / 10)
            .map(|_| {
                let i = next % PUT_KEYS;
                next += 1;
                let mut order = orders[i].clone();
                order.version = versions[i];
                versions[i] += 1;
                order
            })
            .collect();
        Work::Puts(take)
    };
    if std::env::var("DYNO_OVERHEAD_SIZES").is_ok() {
        let key = Order::key("u", "1").into_item();
        let store_get = server
            .store
            .get_item(dyno_core::store::GetRequest::borrowed(table(), &key));
        let sdk_get = server.client.get_item().table_name(table()).send();
        let order = full("u", 1);
        let store_put = server.store.put_item(order.put().into_request().unwrap());
        let sdk_put = server.client.put_item().table_name(table()).send();
        let typed_get = Order::get(Order::key("u", "1")).send(&server.store);
        let typed_put = order.put().send(&server.store);
        eprintln!(
            "sizes: store get reply {} sdk get {} store put reply {} sdk put {} typed get {} typed put {}",
            std::mem::size_of_val(&store_get),
            std::mem::size_of_val(&sdk_get),
            std::mem::size_of_val(&store_put),
            std::mem::size_of_val(&sdk_put),
            std::mem::size_of_val(&typed_get),
            std::mem::size_of_val(&typed_put),
        );
    }
    // The warm-up outside `measured_calls`, so that callgrind's toggle leaves it out.
    rt.block_on(run_calls(&server, rung, &work, 0..n / 10));
    let (start, cpu) = (Instant::now(), scheduled_cpu());
    measured_calls(&rt, &server, rung, &work, n / 10..n / 10 + n);
    let (wall, cpu) = (start.elapsed(), scheduled_cpu().saturating_sub(cpu));
    eprintln!(
        "overhead loop: {n} {kind} on {} in {wall:?}, thread CPU {:.1} us per call",
        server.name,
        cpu.as_secs_f64() * 1e6 / n as f64
    );
}

/// The calling thread's time on a CPU, from `/proc/thread-self/schedstat` (nanoseconds): the
/// loop's CPU clock, because rustix's `clock_gettime` reads the vDSO, which crashes under
/// valgrind.
fn scheduled_cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    let ns = stat.split_whitespace().next().and_then(|n| n.parse().ok());
    Duration::from_nanos(ns.unwrap_or(0))
}

/// What [`client_loop`] calls: puts of these orders in turn, or gets of one order.
enum Work {
    Puts(Vec<Order>),
    Gets { user: String, key: Item },
    Queries { user: String },
}

/// The measured calls of [`client_loop`]; not inlined, so callgrind can toggle on it.
#[inline(never)]
fn measured_calls(
    rt: &tokio::runtime::Runtime,
    server: &Server,
    kind: &str,
    work: &Work,
    calls: std::ops::Range<usize>,
) {
    rt.block_on(run_calls(server, kind, work, calls));
}

/// Calls `calls` of `work` one after the other, the way `kind` makes them.
async fn run_calls(server: &Server, kind: &str, work: &Work, calls: std::ops::Range<usize>) {
    let id = format!("{:08}", 7);
    for i in calls {
        match work {
            Work::Puts(orders) => put_one(server, kind, &orders[i]).await,
            Work::Gets { user, key } => {
                assert!(get_one(server, kind, user, &id, key).await.is_some());
            }
            Work::Queries { user } => {
                assert_eq!(query_one(server, kind, user).await, QUERY_ITEMS);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Interleaved: each side's wall time under the same load.

/// Rounds of the interleaved comparison: one operation of each kind per round.
const PAIRED_ROUNDS: usize = 2_000;

/// The CPU time of the calling thread: the benchmark's runtime is current-thread, so this is
/// the client's whole CPU for a call (the SDK, the HTTP client, the runtime, the decode).
fn thread_cpu() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// Wall and CPU times of each call of one kind.
#[derive(Default)]
struct Samples {
    wall: Vec<Duration>,
    cpu: Vec<Duration>,
}

impl Samples {
    fn median_us(v: &[Duration]) -> f64 {
        median(v.to_vec()).as_secs_f64() * 1e6
    }

    /// `kind wall p10/p50/p90, CPU p50`, in µs: a ratio of medians hides a second mode.
    fn spread(&self, kind: &str) -> String {
        let mut v = self.wall.clone();
        v.sort();
        let at = |q: usize| v[(v.len() - 1) * q / 100].as_secs_f64() * 1e6;
        format!(
            "{kind} {:.0}/{:.0}/{:.0} cpu {:.1}",
            at(10),
            at(50),
            at(90),
            Self::median_us(&self.cpu)
        )
    }
}

/// `overhead/<server>/paired`: [`PAIRED_ROUNDS`] rounds of one put and one get of each of
/// [`KINDS`] (the rungs from the hand-written call to the typed one), the kinds in a random
/// order each round, each call timed on its own by the wall clock and by the thread's CPU clock; prints each
/// kind's percentiles and each rung's ratio of medians to `hand_same`. Criterion measures one
/// case after the other, so on a shared machine a change of load between two cases moves their
/// ratio; interleaved, all kinds see the same load. Runs when no filter is given or the filter
/// mentions `paired`.
fn paired() {
    if !wants("paired") {
        return;
    }
    let rt = runtime();
    for server in servers(&rt) {
        let fixture = seed(&rt, &server);
        check(&rt, &server, &fixture);
        for block in PAIRED_BLOCKS {
            ladder(&rt, &server, &fixture, block);
        }
    }
}

/// How many calls of one kind follow each other in [`paired`]: 1, each call after calls of
/// other kinds, which leave the CPU's caches holding their code and data, not its own; 8, as in
/// a loop of one kind (criterion's cases, an application making the same call repeatedly), with
/// the load still shared evenly between the kinds.
const PAIRED_BLOCKS: [usize; 2] = [1, 8];

/// One [`paired`] run: [`PAIRED_ROUNDS`] puts and gets of each kind, `block` of one kind at a
/// time, the kinds in a random order each round, then a quarter as many 100-item queries of
/// each of `typed`, `hand_same` and `hand` ([`query_one`]) the same way; prints each kind's
/// figures and each rung's ratios to `hand_same`.
fn ladder(rt: &tokio::runtime::Runtime, server: &Server, fixture: &Fixture, block: usize) {
    let keys: Vec<Vec<Order>> = KINDS
        .iter()
        .map(|kind| seed_orders(rt, server, &format!("paired{block}-{kind}"), PUT_KEYS))
        .collect();
    let mut versions = vec![vec![1u64; PUT_KEYS]; KINDS.len()];
    let mut puts: Vec<Samples> = KINDS.iter().map(|_| Samples::default()).collect();
    let mut gets: Vec<Samples> = KINDS.iter().map(|_| Samples::default()).collect();
    let id = format!("{:08}", 7);
    let read_user = fixture.read_user.as_str();
    let key = Order::key(read_user, id.as_str()).into_item();
    // Each round's kinds in a random order of its own: every kind follows every other equally
    // often (in a fixed rotation, each kind follows the same one, and what the call before left
    // the server and the client doing moves its figure).
    let mut rng = fastrand::Rng::with_seed(0x0e4d);
    let mut order: Vec<usize> = (0..KINDS.len()).collect();
    let rounds = PAIRED_ROUNDS / block;
    let mut next_key = 0;
    rt.block_on(async {
        // A warm-up tenth, not recorded.
        for round in 0..rounds + rounds / 10 {
            let record = round >= rounds / 10;
            rng.shuffle(&mut order);
            for &k in &order {
                for j in 0..block {
                    let i = (next_key + j) % PUT_KEYS;
                    let mut order = keys[k][i].clone();
                    order.version = versions[k][i];
                    versions[k][i] += 1;
                    let (start, cpu) = (Instant::now(), thread_cpu());
                    put_one(server, KINDS[k], &order).await;
                    let (wall, cpu) = (start.elapsed(), thread_cpu().saturating_sub(cpu));
                    if record {
                        puts[k].wall.push(wall);
                        puts[k].cpu.push(cpu);
                    }
                }
            }
            next_key += block;
            rng.shuffle(&mut order);
            for &k in &order {
                for _ in 0..block {
                    let (start, cpu) = (Instant::now(), thread_cpu());
                    let found = get_one(server, KINDS[k], read_user, &id, &key).await;
                    let (wall, cpu) = (start.elapsed(), thread_cpu().saturating_sub(cpu));
                    assert!(found.is_some());
                    if record {
                        gets[k].wall.push(wall);
                        gets[k].cpu.push(cpu);
                    }
                }
            }
        }
    });
    // 100-item queries, typed against hand-written (with and without `INDEXES`): a quarter as
    // many (each reads 100 items).
    let query_kinds = ["typed", "hand_same", "hand"];
    let mut queries: Vec<Samples> = query_kinds.iter().map(|_| Samples::default()).collect();
    let mut qorder: Vec<usize> = (0..query_kinds.len()).collect();
    rt.block_on(async {
        let query_rounds = rounds / 4;
        for round in 0..query_rounds + query_rounds / 10 {
            let record = round >= query_rounds / 10;
            rng.shuffle(&mut qorder);
            for &k in &qorder {
                for _ in 0..block {
                    let (start, cpu) = (Instant::now(), thread_cpu());
                    let found = query_one(server, query_kinds[k], read_user).await;
                    let (wall, cpu) = (start.elapsed(), thread_cpu().saturating_sub(cpu));
                    assert_eq!(found, QUERY_ITEMS);
                    if record {
                        queries[k].wall.push(wall);
                        queries[k].cpu.push(cpu);
                    }
                }
            }
        }
    });
    let label = if block == 1 {
        format!("overhead/{}/paired", server.name)
    } else {
        format!("overhead/{}/paired_block{block}", server.name)
    };
    let query_kinds: Vec<&str> = query_kinds.to_vec();
    for (op, kinds, samples) in [
        ("put", KINDS.to_vec(), &puts),
        ("get", KINDS.to_vec(), &gets),
        ("query100", query_kinds, &queries),
    ] {
        let spread: Vec<String> = kinds
            .iter()
            .zip(samples)
            .map(|(k, s)| s.spread(k))
            .collect();
        println!(
            "{label} {op} p10/p50/p90 wall, p50 thread CPU (us): {}",
            spread.join(", ")
        );
        let same = &samples[kinds.iter().position(|k| *k == "hand_same").unwrap()];
        let (same_wall, same_cpu) = (
            Samples::median_us(&same.wall),
            Samples::median_us(&same.cpu),
        );
        let ratios: Vec<String> = kinds
            .iter()
            .zip(samples)
            .map(|(k, s)| {
                format!(
                    "{k} {:.3}x ({:+.1} us) cpu {:.3}x ({:+.1} us)",
                    Samples::median_us(&s.wall) / same_wall,
                    Samples::median_us(&s.wall) - same_wall,
                    Samples::median_us(&s.cpu) / same_cpu,
                    Samples::median_us(&s.cpu) - same_cpu,
                )
            })
            .collect();
        println!(
            "{label} {op} ({} calls of each kind, medians) / hand_same: {}",
            samples[0].wall.len(),
            ratios.join(", ")
        );
    }
}

criterion_group!(overhead, wall);
criterion_group! {
    name = overhead_cpu;
    config = Criterion::default().with_measurement(CpuTime);
    targets = cpu
}

fn main() {
    if let Ok(spec) = std::env::var("DYNO_OVERHEAD_LOOP") {
        client_loop(&spec);
        return;
    }
    overhead();
    overhead_cpu();
    paired();
    batch();
    round_trip();
    Criterion::default().configure_from_args().final_summary();
}
