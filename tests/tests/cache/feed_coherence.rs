//! Coherence across instances: two `CachedStore`s over one database (MemoryStore, or separate
//! clients of one server with streams), writes through one and reads through the other, with a
//! follower applying the table's change feed to the reader's cache. Once the follower has
//! applied a write's record, no read of the other instance returns an older value; without a
//! follower the other instance serves its stale entry until its TTL.
//!
//! `soak_counts_stale_reads_and_measures_the_staleness_window` runs for
//! `DYNO_FEED_SOAK_SECS` seconds per backend (default 2) and prints the staleness window (write
//! acknowledged through one instance to the record applied in the other): p50, p99, max.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::feed_util::*;
use async_trait::async_trait;
use dyno_cache::{CachedStore, Follower, OnApplied};
use dyno_core::expr::{KeyCondition, Path, SetValue, Update};
use dyno_core::feed::{
    ChangeFeed, ChangeRecord, Checkpoint, FeedBatch, Gap, StartingPosition, StreamView,
};
use dyno_core::store::{
    GetRequest, QueryRequest, ReturnValues, TransactWriteItem, TransactWriteRequest, UpdateRequest,
};
use dyno_core::{AttributeValue, Error, Item, MemoryStore, Store};
use dyno_tests::backend::{supports_transactions, unique_table_name};
use dyno_tests::model::{ecommerce_table, OrderStatus, Product};
use tokio::sync::mpsc;
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

async fn name_in(cache: &Cache, table: &str, id: &str) -> Option<String> {
    let key = key_of(&user(id, ""));
    let got = cache
        .get_item(GetRequest::new(table.to_owned(), key))
        .await
        .unwrap();
    got.item.and_then(|i| text(&i, "name"))
}

/// The orders in one GSI1 partition (status), as the model lays them out.
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

/// Waits (at most 10 s) for the follower to apply a record about `pk`/`sk`.
async fn applied(rx: &mut mpsc::UnboundedReceiver<ChangeRecord>, pk: &str, sk: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let r = tokio::time::timeout_at(deadline, rx.recv())
            .await
            .unwrap_or_else(|_| panic!("no record for {pk}/{sk} applied within 10 s"))
            .unwrap();
        if text(&r.keys, "PK").as_deref() == Some(pk) && text(&r.keys, "SK").as_deref() == Some(sk)
        {
            return;
        }
    }
}

async fn setup(b: &FeedBackend, prefix: &str) -> (String, Cache, Cache) {
    let table = if b.is_server() {
        unique_table_name(prefix)
    } else {
        format!("{prefix}-{}", fastrand::u32(..))
    };
    b.store
        .create_table(&ecommerce_table(&table).stream(StreamView::NewAndOldImages))
        .await
        .unwrap();
    let a: Cache = Arc::new(CachedStore::new(b.store.clone()));
    let other: Cache = Arc::new(CachedStore::new(b.second_client().await));
    (table, a, other)
}

#[tokio::test]
async fn a_follower_makes_one_instances_writes_visible_in_the_other() {
    for b in feed_backends().await {
        let (t, a, other) = setup(&b, "coherent").await;
        // A third instance without a follower: its staleness is bounded by its TTL only.
        let unfollowed: Cache = Arc::new(CachedStore::new(b.second_client().await));
        let (tx, mut rx) = mpsc::unbounded_channel();
        let on_applied: OnApplied = Arc::new(move |r: &ChangeRecord| {
            let _ = tx.send(r.clone());
        });
        let feed = b.feed(&t, StartingPosition::Latest).await;
        let follower = Follower::spawn_with(other.clone(), feed, Some(on_applied));

        a.put_item(put(&t, user("1", "Ann"))).await.unwrap();
        a.put_item(put(&t, order("1", "A", OrderStatus::Pending)))
            .await
            .unwrap();
        applied(&mut rx, "USER#1", "ORDER#A").await;
        assert_eq!(
            name_in(&other, &t, "1").await.as_deref(),
            Some("Ann"),
            "{}",
            b.name
        );
        assert_eq!(name_in(&unfollowed, &t, "1").await.as_deref(), Some("Ann"));
        assert_eq!(
            orders_with(&other, &t, OrderStatus::Pending).await,
            ["ORDER#A"],
            "{}",
            b.name
        );
        assert!(orders_with(&other, &t, OrderStatus::Shipped)
            .await
            .is_empty());

        // An update of the item, and of an order that moves between GSI1 partitions.
        a.put_item(put(&t, user("1", "Bea"))).await.unwrap();
        let shipped = order("1", "A", OrderStatus::Shipped);
        let ship = UpdateRequest::new(
            t.clone(),
            key_of(&order("1", "A", OrderStatus::Pending)),
            Update {
                set: vec![
                    (
                        Path::attr("status"),
                        SetValue::value(shipped["status"].clone()),
                    ),
                    (
                        Path::attr("GSI1PK"),
                        SetValue::value(shipped["GSI1PK"].clone()),
                    ),
                ],
                ..Update::default()
            },
        );
        a.update_item(ship).await.unwrap();
        applied(&mut rx, "USER#1", "ORDER#A").await;
        assert_eq!(
            name_in(&other, &t, "1").await.as_deref(),
            Some("Bea"),
            "{}",
            b.name
        );
        assert!(
            orders_with(&other, &t, OrderStatus::Pending)
                .await
                .is_empty(),
            "{}: old partition",
            b.name
        );
        assert_eq!(
            orders_with(&other, &t, OrderStatus::Shipped).await,
            ["ORDER#A"],
            "{}: new partition",
            b.name
        );
        assert_eq!(
            name_in(&unfollowed, &t, "1").await.as_deref(),
            Some("Ann"),
            "{}: without a follower the other instance keeps its stale entry (TTL bound)",
            b.name
        );

        // A transaction (a deletion and an insert) through the writer.
        if supports_transactions(b.kind) {
            let tx = TransactWriteRequest::new(vec![
                TransactWriteItem::delete(t.clone(), key_of(&user("1", ""))),
                TransactWriteItem::put(t.clone(), order("1", "B", OrderStatus::Shipped)),
            ]);
            a.transact_write(tx).await.unwrap();
            applied(&mut rx, "USER#1", "PROFILE").await;
            applied(&mut rx, "USER#1", "ORDER#B").await;
            assert_eq!(name_in(&other, &t, "1").await, None, "{}", b.name);
            assert_eq!(
                orders_with(&other, &t, OrderStatus::Shipped).await,
                ["ORDER#A", "ORDER#B"],
                "{}",
                b.name
            );
        }
        let m = follower.shutdown().await;
        assert!(m.records_applied >= 4, "{}: {m:?}", b.name);
        assert!(
            !m.checkpoint.shards.is_empty() && m.lag.is_some(),
            "{}: {m:?}",
            b.name
        );
        assert_eq!(
            (m.gaps, m.errors, m.invalidations),
            (0, 0, 1),
            "{}: only the start invalidates",
            b.name
        );
        b.store.delete_table(&t).await.unwrap();
    }
}

/// A feed the test drives: each batch (or error) it is given is what the next poll returns.
#[derive(Debug)]
struct Scripted {
    table: String,
    rx: mpsc::UnboundedReceiver<dyno_core::Result<FeedBatch>>,
}

#[async_trait]
impl ChangeFeed for Scripted {
    fn table(&self) -> &str {
        &self.table
    }

    async fn poll(&mut self, wait: Duration) -> dyno_core::Result<FeedBatch> {
        match tokio::time::timeout(wait, self.rx.recv()).await {
            Ok(Some(next)) => next,
            _ => Ok(FeedBatch::default()),
        }
    }

    fn checkpoint(&self) -> Checkpoint {
        Checkpoint::default()
    }
}

async fn until(mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(Instant::now() < deadline, "condition not met within 10 s");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test]
async fn a_gap_or_a_lost_stream_invalidates_the_table_and_a_transient_error_does_not() {
    let memory = Arc::new(MemoryStore::new());
    memory
        .create_table(&ecommerce_table("gap").stream(StreamView::KeysOnly))
        .await
        .unwrap();
    memory
        .create_table(&ecommerce_table("other"))
        .await
        .unwrap();
    let backend: Arc<dyn Store> = memory.clone();
    let cache: Cache = Arc::new(CachedStore::new(backend.clone()));
    let (tx, rx) = mpsc::unbounded_channel();
    let follower = Follower::spawn(
        cache.clone(),
        Scripted {
            table: "gap".into(),
            rx,
        },
    );
    until(|| follower.metrics().invalidations == 1).await;
    // Both instances' view: the cache holds Ann, in the followed table and in another one.
    for t in ["gap", "other"] {
        backend.put_item(put(t, user("1", "Ann"))).await.unwrap();
        assert_eq!(name_in(&cache, t, "1").await.as_deref(), Some("Ann"));
        // Changed behind the cache, with no record delivered.
        backend.put_item(put(t, user("1", "Bea"))).await.unwrap();
        assert_eq!(
            name_in(&cache, t, "1").await.as_deref(),
            Some("Ann"),
            "stale until told"
        );
    }
    // A transient error loses no record: nothing is invalidated.
    tx.send(Err(Error::Throttled {
        message: "slow down".into(),
        source: None,
    }))
    .unwrap();
    until(|| follower.metrics().errors == 1).await;
    assert_eq!(name_in(&cache, "gap", "1").await.as_deref(), Some("Ann"));
    // A gap: the followed table's entries go, the other table's stay.
    tx.send(Ok(FeedBatch::new(
        vec![Gap::Trimmed { shard: "s".into() }],
        vec![],
        false,
    )))
    .unwrap();
    until(|| follower.metrics().gaps == 1).await;
    assert_eq!(name_in(&cache, "gap", "1").await.as_deref(), Some("Bea"));
    assert_eq!(name_in(&cache, "other", "1").await.as_deref(), Some("Ann"));
    // The stream ended (table deleted): invalidated too.
    backend.put_item(put("gap", user("1", "Cy"))).await.unwrap();
    tx.send(Err(Error::ResourceNotFound {
        message: "stream ended".into(),
    }))
    .unwrap();
    until(|| follower.metrics().errors == 2).await;
    until(|| follower.metrics().invalidations == 3).await;
    assert_eq!(name_in(&cache, "gap", "1").await.as_deref(), Some("Cy"));
    let m = follower.shutdown().await;
    assert_eq!((m.gaps, m.errors, m.invalidations), (1, 2, 3), "{m:?}");
}

#[tokio::test]
async fn shutdown_is_bounded_and_a_restart_from_the_checkpoint_misses_nothing() {
    let memory = Arc::new(MemoryStore::new());
    memory
        .create_table(&ecommerce_table("restart").stream(StreamView::NewAndOldImages))
        .await
        .unwrap();
    let backend: Arc<dyn Store> = memory.clone();
    let (a, b): (Cache, Cache) = (
        Arc::new(CachedStore::new(backend.clone())),
        Arc::new(CachedStore::new(backend.clone())),
    );
    let count = Arc::new(AtomicU64::new(0));
    let counter = count.clone();
    let on: OnApplied = Arc::new(move |_: &ChangeRecord| {
        counter.fetch_add(1, Ordering::SeqCst);
    });
    let feed = memory
        .change_feed("restart", StartingPosition::Latest)
        .unwrap();
    let follower = Follower::spawn_with(b.clone(), feed, Some(on.clone()));
    a.put_item(put("restart", user("1", "Ann"))).await.unwrap();
    until(|| count.load(Ordering::SeqCst) == 1).await;
    let started = Instant::now();
    let m = follower.shutdown().await;
    assert!(started.elapsed() < Duration::from_secs(6));
    // Written while nobody follows; b still caches Ann.
    assert_eq!(name_in(&b, "restart", "1").await.as_deref(), Some("Ann"));
    a.put_item(put("restart", user("1", "Bea"))).await.unwrap();
    let feed = memory
        .change_feed("restart", StartingPosition::After(m.checkpoint))
        .unwrap();
    let follower = Follower::spawn_with(b.clone(), feed, Some(on));
    until(|| count.load(Ordering::SeqCst) == 2).await;
    assert_eq!(name_in(&b, "restart", "1").await.as_deref(), Some("Bea"));
    assert_eq!(follower.shutdown().await.records_applied, 1);
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn stock(item: &Item) -> u64 {
    match item.get("stock") {
        Some(AttributeValue::N(n)) => n.parse().unwrap(),
        _ => 0,
    }
}

/// Writers increment a few hot counters through instance A; readers read them through instance
/// B, whose follower applies the feed. A read that returns a value older than one whose record
/// B's follower had applied before the read began is a stale read: there must be none.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn soak_counts_stale_reads_and_measures_the_staleness_window() {
    let secs: u64 = std::env::var("DYNO_FEED_SOAK_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2);
    for b in feed_backends().await {
        if b.kind == dyno_tests::backend::BackendKind::Moto {
            continue; // not atomic under concurrent writes: counters would not be a history
        }
        let (t, a, other) = setup(&b, "soak").await;
        const KEYS: usize = 4;
        let keys: Vec<String> = (0..KEYS).map(|i| format!("HOT{i}")).collect();
        let applied_max: Arc<Vec<AtomicU64>> =
            Arc::new((0..KEYS).map(|_| AtomicU64::new(0)).collect());
        let applied_at: Arc<Mutex<HashMap<(String, u64), Instant>>> = Arc::default();
        let on: OnApplied = {
            let (max, at) = (applied_max.clone(), applied_at.clone());
            Arc::new(move |r: &ChangeRecord| {
                let (Some(pk), Some(new)) = (text(&r.keys, "PK"), r.new_image.as_deref()) else {
                    return;
                };
                let Some(i) = pk
                    .strip_prefix("PRODUCT#HOT")
                    .and_then(|i| i.parse::<usize>().ok())
                else {
                    return;
                };
                let v = stock(new);
                at.lock().unwrap().insert((pk, v), Instant::now());
                max[i].fetch_max(v, Ordering::SeqCst);
            })
        };
        let feed = b.feed(&t, StartingPosition::Latest).await;
        let follower = Follower::spawn_with(other.clone(), feed, Some(on));
        let acked: Arc<Mutex<HashMap<(String, u64), Instant>>> = Arc::default();
        let deadline = Instant::now() + Duration::from_secs(secs);
        let mut tasks = Vec::new();
        for w in 0..2 {
            let (a, t, keys, acked) = (a.clone(), t.clone(), keys.clone(), acked.clone());
            tasks.push(tokio::spawn(async move {
                let mut i = w;
                while Instant::now() < deadline {
                    let k = &keys[i % KEYS];
                    i += 1;
                    let request = UpdateRequest::new(
                        t.clone(),
                        product_key(k),
                        Update {
                            add: vec![(Path::attr("stock"), AttributeValue::N("1".into()))],
                            ..Update::default()
                        },
                    )
                    .with_return_values(ReturnValues::UpdatedNew);
                    let out = a.update_item(request).await.unwrap();
                    let v = stock(out.attributes.as_ref().unwrap());
                    acked
                        .lock()
                        .unwrap()
                        .insert((format!("PRODUCT#{k}"), v), Instant::now());
                    // A service's request handler awaits I/O between requests; without this a
                    // loop over in-memory hits never yields and starves the follower's task.
                    tokio::task::yield_now().await;
                }
                0u64
            }));
        }
        let reads = Arc::new(AtomicU64::new(0));
        for r in 0..4 {
            let (other, t, keys, max, reads) = (
                other.clone(),
                t.clone(),
                keys.clone(),
                applied_max.clone(),
                reads.clone(),
            );
            tasks.push(tokio::spawn(async move {
                let mut stale = 0u64;
                let mut i = r;
                while Instant::now() < deadline {
                    let k = i % KEYS;
                    i += 1;
                    let floor = max[k].load(Ordering::SeqCst);
                    let got = other
                        .get_item(GetRequest::new(t.clone(), product_key(&keys[k])))
                        .await
                        .unwrap();
                    let v = got.item.as_deref().map_or(0, stock);
                    reads.fetch_add(1, Ordering::Relaxed);
                    if v < floor {
                        stale += 1;
                    }
                    tokio::task::yield_now().await;
                }
                stale
            }));
        }
        let mut stale = 0;
        for task in tasks {
            stale += tokio::time::timeout(Duration::from_secs(secs + 30), task)
                .await
                .unwrap()
                .unwrap();
        }
        // Let the follower apply the last records (bounded).
        let writes = acked.lock().unwrap().len();
        let settle = Instant::now() + Duration::from_secs(10);
        while applied_at.lock().unwrap().len() < writes && Instant::now() < settle {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let m = follower.shutdown().await;
        let mut windows: Vec<Duration> = {
            let (acked, at) = (acked.lock().unwrap(), applied_at.lock().unwrap());
            acked
                .iter()
                .filter_map(|(k, ack)| Some(at.get(k)?.saturating_duration_since(*ack)))
                .collect()
        };
        windows.sort();
        println!(
            "feed soak {} ({secs} s): {writes} writes, {} reads, {stale} stale reads; \
             staleness window (write ack through A to record applied in B) over {} writes: \
             p50 {:?}, p99 {:?}, max {:?}; follower: {} records, {} gaps, max lag {:?}",
            b.name,
            reads.load(Ordering::Relaxed),
            windows.len(),
            percentile(&windows, 0.50),
            percentile(&windows, 0.99),
            windows.last().copied().unwrap_or_default(),
            m.records_applied,
            m.gaps,
            m.max_lag,
        );
        assert_eq!(stale, 0, "{}: reads older than an applied record", b.name);
        assert_eq!(
            windows.len(),
            writes,
            "{}: every write's record was applied",
            b.name
        );
        assert_eq!(m.gaps, 0);
        b.store.delete_table(&t).await.unwrap();
    }
}
