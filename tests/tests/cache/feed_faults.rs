//! The change feed under faults: a loopback proxy ([`FaultProxy`]) in front of the Streams
//! endpoint throttles, stalls, drops, answers Streams errors and refuses connections, and the
//! reader, the follower and the cache must lose no record without a gap and serve no read older
//! than a record the follower has applied. Also: polls cancelled at random points, and a replica
//! that lags (`LaggingStore`), against which no fill may re-install an older image.
//!
//! Each test's servers are moto and dynoxide where configured (both implement streams); the
//! replica-lag tests run on MemoryStore under `LaggingStore` (both servers are strongly
//! consistent, so the lag is modelled).
//!
//! dynoxide 3.2.0 returns a deleted table's records from a re-created table's stream read at
//! `TRIM_HORIZON`: every test here uses a fresh table name (`unique_table_name`).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::feed_util::*;
use dyno_cache::{CachedStore, Follower, FollowerMetrics, FollowerOptions, OnApplied};
use dyno_core::expr::{KeyCondition, Path, Update};
use dyno_core::feed::{ChangeFeed, ChangeRecord, StartingPosition, StreamView, StreamsFeed};
use dyno_core::store::{
    BatchGetRequest, GetRequest, QueryRequest, ReturnValues, TableKey, Timeouts, UpdateRequest,
};
use dyno_core::{AttributeValue, Item, Store};
use dyno_tests::backend::unique_table_name;
use dyno_tests::model::{ecommerce_table, OrderStatus, Product};
use dyno_tests::proxy::{Fault, FaultProxy};
use tokio::time::Instant;

type Cache = Arc<CachedStore<Arc<dyn Store>>>;

fn product_key(id: &str) -> Item {
    Product::key(id).unwrap().into_item()
}

fn text(item: &Item, attr: &str) -> Option<String> {
    match item.get(attr)? {
        AttributeValue::S(s) => Some(s.clone()),
        _ => None,
    }
}

fn stock(item: &Item) -> u64 {
    match item.get("stock") {
        Some(AttributeValue::N(n)) => n.parse().unwrap(),
        _ => 0,
    }
}

fn add_stock(table: &str, id: &str) -> UpdateRequest {
    UpdateRequest::new(
        table,
        product_key(id),
        Update {
            add: vec![(Path::attr("stock"), AttributeValue::N("1".into()))],
            ..Update::default()
        },
    )
    .with_return_values(ReturnValues::UpdatedNew)
}

/// Tight limits, so that a stalled call fails (and is retried) within the test.
fn tight() -> Timeouts {
    Timeouts {
        connect: Duration::from_millis(500),
        attempt: Duration::from_millis(300),
        operation: Duration::from_secs(1),
    }
}

async fn server_table(b: &FeedBackend, prefix: &str) -> String {
    let t = unique_table_name(prefix);
    b.store
        .create_table(&ecommerce_table(&t).stream(StreamView::NewAndOldImages))
        .await
        .unwrap();
    t
}

fn servers(all: Vec<FeedBackend>) -> Vec<FeedBackend> {
    all.into_iter().filter(|b| b.is_server()).collect()
}

/// A fresh streamed table on `b`, a fault proxy in front of the server, and a feed read through
/// the proxy from `start`, polling every 20 ms.
async fn proxied_feed(
    b: &FeedBackend,
    prefix: &str,
    start: StartingPosition,
) -> (String, FaultProxy, StreamsFeed) {
    let t = server_table(b, prefix).await;
    let proxy = FaultProxy::start(b.endpoint().unwrap()).await;
    let feed = StreamsFeed::local(proxy.endpoint(), &t, start)
        .await
        .unwrap()
        .with_poll_interval(Duration::from_millis(20));
    (t, proxy, feed)
}

/// The stock values of `PRODUCT#<id>` records, per id. moto records an `ADD` that creates
/// its item twice (an INSERT of the key alone, then one with the attribute; DynamoDB records
/// one): records without a stock are left out.
fn values(records: &[ChangeRecord]) -> BTreeMap<String, Vec<u64>> {
    let mut out: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for r in records {
        let pk = text(&r.keys, "PK").unwrap_or_default();
        if let Some(new) = r.new_image.as_deref().filter(|i| i.contains_key("stock")) {
            out.entry(pk).or_default().push(stock(new));
        }
    }
    out
}

fn count(records: &[ChangeRecord], pk: &str) -> usize {
    values(records).get(pk).map_or(0, Vec::len)
}

/// With DescribeStream throttled, the records GetRecords delivered in a
/// round whose shard refresh failed were dropped (positions already advanced), with no gap.
/// The periodic refresh comes 5 s after the feed opened: this test runs past it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_throttled_describe_stream_loses_no_record() {
    let runs = servers(feed_backends().await)
        .into_iter()
        .map(|b| async move {
            let (t, proxy, mut feed) =
                proxied_feed(&b, "feed-throttle", StartingPosition::TrimHorizon).await;
            // Every DescribeStream from now on is throttled.
            proxy.inject(Some("DescribeStream"), Fault::limit_exceeded(), 1_000_000);
            let (mut got, mut gaps, mut errors) = (Vec::new(), 0, 0);
            let start = Instant::now();
            let mut written = 0u64;
            while Instant::now() < start + Duration::from_secs(9) && count(&got, "PRODUCT#T") < 8 {
                let since = start.elapsed();
                // The periodic refresh comes 5 s after the feed opened: write past it.
                if since > Duration::from_millis(5_100) && written < 8 {
                    b.store.update_item(add_stock(&t, "T")).await.unwrap();
                    written += 1;
                }
                match feed.poll(Duration::from_millis(100)).await {
                    Ok(batch) => {
                        gaps += batch.gaps.len();
                        got.extend(batch.records);
                    }
                    Err(_) => errors += 1,
                }
            }
            assert!(
                proxy.seen("DescribeStream") > 1,
                "{}: the refresh ran (and was throttled)",
                b.name
            );
            assert!(errors > 0, "{}: the throttled refresh surfaced", b.name);
            assert_eq!(gaps, 0, "{}", b.name);
            assert_eq!(
                values(&got)["PRODUCT#T"],
                (1..=8).collect::<Vec<u64>>(),
                "{}: every record, once, in order, despite {errors} throttled refreshes",
                b.name
            );
        });
    futures::future::join_all(runs).await;
}

/// A poll cancelled during the shard refresh lost the round's records.
/// Here every DescribeStream takes 300 ms and polls are cancelled after 0 to 250 ms: from the
/// periodic refresh on (5 s after the feed opened) every round that reaches the refresh is
/// cancelled in it, and others in a `GetRecords` or a sleep.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn polls_cancelled_at_random_points_lose_no_record() {
    let runs = servers(feed_backends().await)
        .into_iter()
        .map(|b| async move {
            let (t, proxy, mut feed) =
                proxied_feed(&b, "feed-cancel", StartingPosition::TrimHorizon).await;
            proxy.inject(
                Some("DescribeStream"),
                Fault::Delay(Duration::from_millis(300)),
                1_000_000,
            );
            proxy.inject(
                Some("GetRecords"),
                Fault::Delay(Duration::from_millis(10)),
                1_000_000,
            );
            let writer = {
                let (store, t) = (b.store.clone(), t.clone());
                tokio::spawn(async move {
                    // 6.5 s of writes: past the refresh at 5 s, and the next ones.
                    for _ in 0..65 {
                        store.update_item(add_stock(&t, "C")).await.unwrap();
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                })
            };
            let (mut got, mut cancelled) = (Vec::new(), 0u32);
            let deadline = Instant::now() + Duration::from_secs(20);
            while count(&got, "PRODUCT#C") < 65 && Instant::now() < deadline {
                let cut = Duration::from_millis(fastrand::u64(0..250));
                match tokio::time::timeout(cut, feed.poll(Duration::from_millis(50))).await {
                    Ok(Ok(batch)) => {
                        assert!(batch.gaps.is_empty(), "{}: {:?}", b.name, batch.gaps);
                        got.extend(batch.records);
                    }
                    Ok(Err(e)) => panic!("{}: {e}", b.name),
                    Err(_) => cancelled += 1,
                }
            }
            writer.await.unwrap();
            assert!(
                cancelled > 10,
                "{}: only {cancelled} polls cancelled",
                b.name
            );
            assert_eq!(
                values(&got)["PRODUCT#C"],
                (1..=65).collect::<Vec<u64>>(),
                "{}: every record once, in order, with {cancelled} polls cancelled",
                b.name
            );
        });
    futures::future::join_all(runs).await;
}

/// A `TrimmedDataAccessException` (here injected: nothing was trimmed) is a gap, and the shard
/// is read again from its oldest record; records returned before are not returned again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trim_is_a_gap_and_no_record_is_returned_twice() {
    let runs = servers(feed_backends().await)
        .into_iter()
        .map(|b| async move {
            let (t, proxy, mut feed) =
                proxied_feed(&b, "feed-trim", StartingPosition::TrimHorizon).await;
            let (mut got, mut gaps) = (Vec::new(), Vec::new());
            let deadline = Instant::now() + Duration::from_secs(10);
            for n in 1..=6u64 {
                if n == 4 {
                    proxy.inject(Some("GetRecords"), Fault::trimmed(), 1);
                }
                b.store.update_item(add_stock(&t, "R")).await.unwrap();
                while count(&got, "PRODUCT#R") < n as usize && Instant::now() < deadline {
                    let batch = feed.poll(Duration::from_millis(100)).await.unwrap();
                    gaps.extend(batch.gaps);
                    got.extend(batch.records);
                }
            }
            // Anything read again would come now.
            let batch = feed.poll(Duration::from_millis(300)).await.unwrap();
            got.extend(batch.records);
            assert_eq!(gaps.len(), 1, "{}: {gaps:?}", b.name);
            assert!(
                matches!(gaps[0], dyno_core::feed::Gap::Trimmed { .. }),
                "{}",
                b.name
            );
            assert_eq!(
                values(&got)["PRODUCT#R"],
                (1..=6).collect::<Vec<u64>>(),
                "{}: each record once",
                b.name
            );
        });
    futures::future::join_all(runs).await;
}

/// Records applied by a follower: the newest stock per product, and when each was applied.
#[derive(Default)]
struct Applied {
    newest: Mutex<HashMap<String, u64>>,
    at: Mutex<HashMap<(String, u64), Instant>>,
}

impl Applied {
    fn hook(self: &Arc<Self>) -> OnApplied {
        let me = self.clone();
        Arc::new(move |r: &ChangeRecord| {
            let (Some(pk), Some(new)) = (text(&r.keys, "PK"), r.new_image.as_deref()) else {
                return;
            };
            let v = stock(new);
            me.at
                .lock()
                .unwrap()
                .insert((pk.clone(), v), Instant::now());
            let mut newest = me.newest.lock().unwrap();
            let n = newest.entry(pk).or_default();
            *n = (*n).max(v);
        })
    }

    fn newest(&self, pk: &str) -> u64 {
        self.newest.lock().unwrap().get(pk).copied().unwrap_or(0)
    }

    fn has(&self, pk: &str, v: u64) -> bool {
        self.at.lock().unwrap().contains_key(&(pk.to_owned(), v))
    }
}

async fn stock_in(cache: &Cache, table: &str, id: &str) -> u64 {
    let got = cache
        .get_item(GetRequest::new(table.to_owned(), product_key(id)))
        .await
        .unwrap();
    got.item.as_deref().map_or(0, stock)
}

async fn until(what: &str, secs: u64, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !done() {
        assert!(Instant::now() < deadline, "{what}: not within {secs} s");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// One `GetRecords` that never answered hung the follower, and the other
/// instance served its stale entry for the length of the test. Now the call times out (and is
/// retried with a backoff), and past the lag budget the cache reads the table from the backend.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_get_records_degrades_to_uncached_reads_never_stale_ones() {
    let runs = servers(feed_backends().await)
        .into_iter()
        .map(|b| async move {
            let (t, proxy, feed) = proxied_feed(&b, "feed-stall", StartingPosition::Latest).await;
            let feed = feed.with_timeouts(tight());
            let writer: Cache = Arc::new(CachedStore::new(b.store.clone()));
            let reader: Cache = Arc::new(CachedStore::new(b.second_client().await));
            let applied = Arc::new(Applied::default());
            let budget = Duration::from_secs(1);
            let follower = Follower::spawn_with_options(
                reader.clone(),
                feed,
                FollowerOptions {
                    lag_budget: Some(budget),
                    on_applied: Some(applied.hook()),
                },
            );
            assert!(follower.started(Duration::from_secs(5)).await);
            writer.update_item(add_stock(&t, "S")).await.unwrap();
            until("first record", 10, || applied.has("PRODUCT#S", 1)).await;
            assert_eq!(stock_in(&reader, &t, "S").await, 1, "{}", b.name);
            // Every GetRecords from now on is read and never answered.
            proxy.inject(Some("GetRecords"), Fault::Stall, 1_000_000);
            tokio::time::sleep(Duration::from_millis(100)).await;
            writer.update_item(add_stock(&t, "S")).await.unwrap();
            let written = Instant::now();
            let (mut stale, mut reads) = (0, 0);
            while written.elapsed() < budget * 3 {
                let v = stock_in(&reader, &t, "S").await;
                // Within the budget the stale entry may still be served; past it, never.
                if written.elapsed() > budget + Duration::from_millis(300) {
                    reads += 1;
                    if v < 2 {
                        stale += 1;
                    }
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            let m: FollowerMetrics = follower.metrics();
            assert_eq!(
                stale, 0,
                "{}: {stale} of {reads} reads stale past the budget",
                b.name
            );
            assert!(
                !applied.has("PRODUCT#S", 2),
                "{}: the feed was stalled",
                b.name
            );
            assert!(!m.within_budget, "{}: {m:?}", b.name);
            assert!(m.errors > 0, "{}: stalled calls time out: {m:?}", b.name);
            proxy.heal();
            until("the stalled record", 15, || applied.has("PRODUCT#S", 2)).await;
            until("caught up again", 10, || follower.metrics().within_budget).await;
            let m = follower.shutdown().await;
            assert!(m.budget_lapses >= 1, "{}: {m:?}", b.name);
            assert_eq!(m.gaps, 0, "{}", b.name);
        });
    futures::future::join_all(runs).await;
}

/// The GSI1 partition of orders with `status`, through `cache`: the order ids.
async fn orders_with(cache: &Cache, table: &str, status: OrderStatus) -> Vec<String> {
    let partition = order("x", "x", status)["GSI1PK"].clone();
    let q = QueryRequest::new(
        table,
        Some("GSI1"),
        KeyCondition::partition("GSI1PK", partition),
    );
    let page = cache.query(q).await.unwrap();
    page.items.iter().filter_map(|i| text(i, "SK")).collect()
}

/// The user's partition, through `cache`: its sort keys.
async fn partition_of(cache: &Cache, table: &str, user_id: &str) -> Vec<String> {
    let pk = user(user_id, "")["PK"].clone();
    let page = cache
        .query(QueryRequest::new(
            table,
            None,
            KeyCondition::partition("PK", pk),
        ))
        .await
        .unwrap();
    page.items.iter().filter_map(|i| text(i, "SK")).collect()
}

async fn name_by_batch(cache: &Cache, table: &str, id: &str) -> Option<String> {
    let out = cache
        .batch_get(BatchGetRequest::new(vec![TableKey {
            table: table.into(),
            key: key_of(&user(id, "")),
        }]))
        .await
        .unwrap();
    out.items.first().and_then(|(_, i)| text(i, "name"))
}

async fn name_by_get(cache: &Cache, table: &str, id: &str) -> Option<String> {
    let got = cache
        .get_item(GetRequest::new(table.to_owned(), key_of(&user(id, ""))))
        .await
        .unwrap();
    got.item.and_then(|i| text(&i, "name"))
}

/// The fill after an applied record read a replica that had not caught up,
/// and re-cached the pre-write image for the TTL. Gets, batch gets, table queries and GSI
/// queries through the reader, once its follower applied the change and the replica caught up,
/// must all return the new state.
#[tokio::test]
async fn a_lagging_replica_never_gets_an_older_image_reinstalled() {
    let lag = Duration::from_millis(400);
    let store = LaggingStore::new(lag);
    let t = "lagging";
    store
        .create_table(&ecommerce_table(t).stream(StreamView::NewAndOldImages))
        .await
        .unwrap();
    let backend: Arc<dyn Store> = store.clone();
    let writer: Cache = Arc::new(CachedStore::new(backend.clone()));
    let reader: Cache = Arc::new(CachedStore::new(backend.clone()));
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<ChangeRecord>();
    let follower = Follower::spawn_with(
        reader.clone(),
        store
            .primary
            .change_feed(t, StartingPosition::Latest)
            .unwrap(),
        Some(Arc::new(move |r: &ChangeRecord| {
            let _ = tx.send(r.clone());
        })),
    );
    assert!(follower.started(Duration::from_secs(5)).await);
    writer.put_item(put(t, user("1", "Ann"))).await.unwrap();
    writer
        .put_item(put(t, order("1", "A", OrderStatus::Pending)))
        .await
        .unwrap();
    for _ in 0..2 {
        rx.recv().await.unwrap();
    }
    tokio::time::sleep(lag + Duration::from_millis(100)).await;
    // The reader caches the old state, every way it can be read.
    assert_eq!(name_by_get(&reader, t, "1").await.as_deref(), Some("Ann"));
    assert_eq!(name_by_batch(&reader, t, "1").await.as_deref(), Some("Ann"));
    assert_eq!(partition_of(&reader, t, "1").await.len(), 2);
    assert_eq!(
        orders_with(&reader, t, OrderStatus::Pending).await,
        ["ORDER#A"]
    );
    // The change: a new name, and the order moves to another GSI1 partition.
    writer.put_item(put(t, user("1", "Bea"))).await.unwrap();
    writer
        .put_item(put(t, order("1", "A", OrderStatus::Shipped)))
        .await
        .unwrap();
    for _ in 0..2 {
        tokio::time::timeout(Duration::from_secs(5), rx.recv())
            .await
            .unwrap()
            .unwrap();
    }
    // Applied in the reader while the replica still serves the old state: item reads are
    // consistent now, so they see the change at once.
    assert_eq!(name_by_get(&reader, t, "1").await.as_deref(), Some("Bea"));
    assert_eq!(name_by_batch(&reader, t, "1").await.as_deref(), Some("Bea"));
    // GSI pages cannot be read consistently: whatever the replica says now is not cached.
    let _ = orders_with(&reader, t, OrderStatus::Pending).await;
    let _ = orders_with(&reader, t, OrderStatus::Shipped).await;
    // Once the replica has caught up, nothing older is served.
    tokio::time::sleep(lag + Duration::from_millis(100)).await;
    assert_eq!(name_by_get(&reader, t, "1").await.as_deref(), Some("Bea"));
    assert_eq!(name_by_batch(&reader, t, "1").await.as_deref(), Some("Bea"));
    assert!(
        orders_with(&reader, t, OrderStatus::Pending)
            .await
            .is_empty(),
        "the old GSI partition"
    );
    assert_eq!(
        orders_with(&reader, t, OrderStatus::Shipped).await,
        ["ORDER#A"],
        "the new GSI partition"
    );
    let table_page = partition_of(&reader, t, "1").await;
    assert_eq!(table_page.len(), 2);
    let m = follower.shutdown().await;
    assert_eq!(m.gaps, 0);
}

/// Without the guard (`replica_lag` zero) the same sequence re-caches the old image: the
/// wrapper does lag, and the guard is what makes the difference.
#[tokio::test]
async fn without_the_guard_a_lagging_replica_recaches_the_old_image() {
    let lag = Duration::from_millis(300);
    let store = LaggingStore::new(lag);
    let t = "lagging-unguarded";
    store
        .create_table(&ecommerce_table(t).stream(StreamView::NewAndOldImages))
        .await
        .unwrap();
    let backend: Arc<dyn Store> = store.clone();
    let reader: Cache = Arc::new(
        CachedStore::builder(backend.clone())
            .replica_lag(Duration::ZERO)
            .build(),
    );
    store.put_item(put(t, user("1", "Ann"))).await.unwrap();
    tokio::time::sleep(lag + Duration::from_millis(100)).await;
    assert_eq!(name_by_get(&reader, t, "1").await.as_deref(), Some("Ann"));
    store.put_item(put(t, user("1", "Bea"))).await.unwrap();
    // What the follower does with the record.
    reader
        .apply_change(
            t,
            &key_of(&user("1", "")),
            dyno_cache::Image::Unknown,
            dyno_cache::Image::Unknown,
        )
        .await
        .unwrap();
    assert_eq!(name_by_get(&reader, t, "1").await.as_deref(), Some("Ann"));
    tokio::time::sleep(lag + Duration::from_millis(100)).await;
    assert_eq!(
        name_by_get(&reader, t, "1").await.as_deref(),
        Some("Ann"),
        "re-cached for the TTL"
    );
}

/// One fault of the suite: what the proxy does to which Streams operation while the writes run.
struct Scenario {
    name: &'static str,
    operation: Option<&'static str>,
    fault: Fault,
    /// How many requests meet it (`None`: all, as the default, until healed).
    times: Option<u32>,
}

fn scenarios() -> Vec<Scenario> {
    let s = |name, operation, fault, times| Scenario {
        name,
        operation,
        fault,
        times,
    };
    vec![
        s(
            "throttle DescribeStream",
            Some("DescribeStream"),
            Fault::limit_exceeded(),
            Some(1_000_000),
        ),
        s(
            "throttle GetShardIterator",
            Some("GetShardIterator"),
            Fault::limit_exceeded(),
            Some(1_000_000),
        ),
        s(
            "throttle GetRecords",
            Some("GetRecords"),
            Fault::limit_exceeded(),
            Some(1_000_000),
        ),
        s(
            "stall GetRecords",
            Some("GetRecords"),
            Fault::Stall,
            Some(1_000_000),
        ),
        s(
            "drop GetRecords unsent",
            Some("GetRecords"),
            Fault::DropBeforeForward,
            Some(1_000_000),
        ),
        s(
            "drop GetRecords answers",
            Some("GetRecords"),
            Fault::DropAfterForward,
            Some(1_000_000),
        ),
        s(
            "truncate GetRecords answers",
            Some("GetRecords"),
            Fault::Truncate(40),
            Some(5),
        ),
        s(
            "trimmed GetRecords",
            Some("GetRecords"),
            Fault::trimmed(),
            Some(2),
        ),
        s(
            "expired iterator",
            Some("GetRecords"),
            Fault::expired_iterator(),
            Some(3),
        ),
        s(
            "GetRecords: no such shard",
            Some("GetRecords"),
            Fault::not_found(),
            Some(2),
        ),
        s(
            "GetShardIterator: no such shard",
            Some("GetShardIterator"),
            Fault::not_found(),
            Some(2),
        ),
        s("server down and back", None, Fault::Refuse, None),
    ]
}

/// What one scenario counted.
#[derive(Debug, Default)]
struct Outcome {
    writes: usize,
    lost: usize,
    gaps: u64,
    reads: u64,
    stale: u64,
    errors: u64,
}

/// Writes through one instance (no follower) while the proxy injects the fault in front of the
/// other instance's feed, reads through the other instance all along, then heals and lets the
/// follower catch up. Lost: acknowledged writes whose record was never applied. Stale: reads
/// older than a record applied before the read began.
async fn run_scenario(b: &FeedBackend, scenario: &Scenario) -> Outcome {
    const KEYS: [&str; 2] = ["F0", "F1"];
    let (t, proxy, feed) = proxied_feed(b, "feed-fault", StartingPosition::Latest).await;
    let writer: Cache = Arc::new(CachedStore::new(b.store.clone()));
    let reader: Cache = Arc::new(CachedStore::new(b.second_client().await));
    let feed = feed
        .with_describe_interval(Duration::from_millis(200))
        .with_timeouts(tight());
    let applied = Arc::new(Applied::default());
    let follower = Follower::spawn_with_options(
        reader.clone(),
        feed,
        FollowerOptions {
            lag_budget: Some(Duration::from_secs(1)),
            on_applied: Some(applied.hook()),
        },
    );
    assert!(follower.started(Duration::from_secs(5)).await);
    // A first record, so the feed has a position past LATEST.
    for k in KEYS {
        writer.update_item(add_stock(&t, k)).await.unwrap();
        until("the warm-up records", 10, || {
            applied.has(&format!("PRODUCT#{k}"), 1)
        })
        .await;
    }
    match scenario.times {
        Some(n) => proxy.inject(scenario.operation, scenario.fault.clone(), n),
        None => proxy.set_default(scenario.fault.clone()),
    }
    let stop = Arc::new(AtomicU64::new(0));
    let reads = {
        let (reader, t, applied, stop) = (reader.clone(), t.clone(), applied.clone(), stop.clone());
        tokio::spawn(async move {
            let (mut reads, mut stale) = (0, 0);
            while stop.load(Ordering::SeqCst) == 0 {
                for k in KEYS {
                    let floor = applied.newest(&format!("PRODUCT#{k}"));
                    let v = stock_in(&reader, &t, k).await;
                    reads += 1;
                    if v < floor {
                        stale += 1;
                    }
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            (reads, stale)
        })
    };
    let mut acked = BTreeSet::new();
    for i in 0..12 {
        let k = KEYS[i % 2];
        let out = writer.update_item(add_stock(&t, k)).await.unwrap();
        acked.insert((
            format!("PRODUCT#{k}"),
            stock(out.attributes.as_ref().unwrap()),
        ));
        tokio::time::sleep(Duration::from_millis(60)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    proxy.heal();
    let settle = Instant::now() + Duration::from_secs(15);
    while acked.iter().any(|(k, v)| !applied.has(k, *v)) && Instant::now() < settle {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    stop.store(1, Ordering::SeqCst);
    let (reads, stale) = reads.await.unwrap();
    let m = follower.shutdown().await;
    let _ = b.store.delete_table(&t).await;
    Outcome {
        writes: acked.len(),
        lost: acked.iter().filter(|(k, v)| !applied.has(k, *v)).count(),
        gaps: m.gaps,
        reads,
        stale,
        errors: m.errors,
    }
}

/// Every fault, on every server with streams; each scenario reports the
/// records lost (0 unless a gap was reported), the gaps, and the stale reads after apply (0).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_feed_loses_no_record_and_serves_no_stale_read_under_faults() {
    let runs = servers(feed_backends().await).into_iter().map(|b| async move {
        let mut failures = Vec::new();
        for scenario in scenarios() {
            let o = run_scenario(&b, &scenario).await;
            println!(
                "feed fault {} / {}: {} writes, {} lost, {} gaps, {} reads, {} stale after apply, {} feed errors",
                b.name, scenario.name, o.writes, o.lost, o.gaps, o.reads, o.stale, o.errors
            );
            if (o.lost > 0 && o.gaps == 0) || o.stale > 0 {
                failures.push(format!("{} / {}: {o:?}", b.name, scenario.name));
            }
        }
        failures
    });
    let failures: Vec<String> = futures::future::join_all(runs)
        .await
        .into_iter()
        .flatten()
        .collect();
    assert!(failures.is_empty(), "{failures:#?}");
}
