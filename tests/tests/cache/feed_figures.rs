//! Figures: how long after a write is acknowledged through one instance
//! another instance, whose follower reads DynamoDB Streams with the default poll interval
//! (250 ms), can still return the older value, per kind of read (get, batch get, table query,
//! GSI query); and what the lag budget does to that window when the feed stalls.
//!
//! Printed, not asserted beyond the guarantees (no read older than an applied record; with a
//! budget, no read staler than the budget plus a margin). Run:
//! `DYNO_FEED_SOAK_SECS=10 cargo test -p dyno-tests --test cache feed_figures -- --nocapture`
//! with the servers' endpoints set (default 2 s per phase).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::feed_util::*;
use dyno_cache::{CachedStore, Follower, FollowerOptions, OnApplied};
use dyno_core::expr::{KeyCondition, Path, Update};
use dyno_core::feed::{ChangeRecord, StartingPosition, StreamView, StreamsFeed};
use dyno_core::store::{
    BatchGetRequest, GetRequest, QueryRequest, ReturnValues, TableKey, Timeouts, UpdateRequest,
};
use dyno_core::{AttributeValue, Entity, Item, Store};
use dyno_tests::backend::unique_table_name;
use dyno_tests::model::{ecommerce_table, Product};
use dyno_tests::proxy::{Fault, FaultProxy};
use tokio::time::Instant;

type Cache = Arc<CachedStore<Arc<dyn Store>>>;

const KEYS: usize = 4;

fn id(i: usize) -> String {
    format!("FIG{i}")
}

fn product(i: usize) -> Item {
    Product {
        product_id: id(i),
        name: format!("product {i}"),
        category: "figures".into(),
        price_cents: 100 + i as u32,
        stock: 0,
    }
    .to_item()
    .unwrap()
}

fn pk(item: &Item) -> String {
    match item.get("PK") {
        Some(AttributeValue::S(s)) => s.clone(),
        _ => String::new(),
    }
}

fn stock(item: &Item) -> u64 {
    match item.get("stock") {
        Some(AttributeValue::N(n)) => n.parse().unwrap(),
        _ => 0,
    }
}

/// What the instances did: acknowledgements of each (product, stock) through the writer, and
/// the newest stock the reader's follower applied per product.
#[derive(Default)]
struct History {
    acked: Mutex<HashMap<(String, u64), Instant>>,
    applied: Mutex<HashMap<String, u64>>,
}

impl History {
    fn hook(self: &Arc<Self>) -> OnApplied {
        let me = self.clone();
        Arc::new(move |r: &ChangeRecord| {
            if let Some(new) = r.new_image.as_deref() {
                let mut applied = me.applied.lock().unwrap();
                let n = applied.entry(pk(new)).or_default();
                *n = (*n).max(stock(new));
            }
        })
    }

    /// For a read begun at `start` that returned `items`: how long before `start` a newer
    /// value of one of them had been acknowledged (zero: none), and whether one was older than
    /// what the follower had applied when the read began.
    fn judge(
        &self,
        start: Instant,
        floor: &HashMap<String, u64>,
        items: &[Item],
    ) -> (Duration, bool) {
        let acked = self.acked.lock().unwrap();
        let mut stale_by = Duration::ZERO;
        let mut after_apply = false;
        for item in items {
            let (k, v) = (pk(item), stock(item));
            if let Some(at) = acked.get(&(k.clone(), v + 1)) {
                stale_by = stale_by.max(start.saturating_duration_since(*at));
            }
            after_apply |= floor.get(&k).is_some_and(|f| v < *f);
        }
        (stale_by, after_apply)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    Get,
    BatchGet,
    TableQuery,
    GsiQuery,
}

async fn read(cache: &Cache, table: &str, kind: Kind, i: usize) -> Vec<Item> {
    let key = |i: usize| Product::key(&id(i)).unwrap().into_item();
    match kind {
        Kind::Get => cache
            .get_item(GetRequest::new(table.to_owned(), key(i)))
            .await
            .unwrap()
            .item
            .map(|i| (*i).clone())
            .into_iter()
            .collect(),
        Kind::BatchGet => cache
            .batch_get(BatchGetRequest::new(
                (0..KEYS)
                    .map(|i| TableKey {
                        table: table.into(),
                        key: key(i),
                    })
                    .collect(),
            ))
            .await
            .unwrap()
            .items
            .into_iter()
            .map(|(_, i)| (*i).clone())
            .collect(),
        Kind::TableQuery => {
            let pk = product(i)["PK"].clone();
            let q = QueryRequest::new(table, None, KeyCondition::partition("PK", pk));
            let page = cache.query(q).await.unwrap();
            page.items.iter().map(|i| (**i).clone()).collect()
        }
        Kind::GsiQuery => {
            let gpk = product(0)["GSI1PK"].clone();
            let q = QueryRequest::new(table, Some("GSI1"), KeyCondition::partition("GSI1PK", gpk));
            let page = cache.query(q).await.unwrap();
            page.items.iter().map(|i| (**i).clone()).collect()
        }
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Writes through `writer` and reads each kind through each reader until `stop`; returns per
/// reader and kind the staleness of every stale read, and the reads older than applied records.
async fn run(
    table: &str,
    writer: Cache,
    readers: Vec<(Cache, Arc<History>)>,
    history: Arc<History>,
    secs: Duration,
) -> Vec<HashMap<Kind, (u64, Vec<Duration>, u64)>> {
    let stop = Arc::new(AtomicBool::new(false));
    let w = {
        let (t, stop, history) = (table.to_owned(), stop.clone(), history.clone());
        tokio::spawn(async move {
            let mut i = 0;
            while !stop.load(Ordering::SeqCst) {
                let request = UpdateRequest::new(
                    t.clone(),
                    Product::key(&id(i % KEYS)).unwrap().into_item(),
                    Update {
                        add: vec![(Path::attr("stock"), AttributeValue::N("1".into()))],
                        ..Update::default()
                    },
                )
                .with_return_values(ReturnValues::AllNew);
                let out = writer.update_item(request).await.unwrap();
                let item = out.attributes.unwrap();
                history
                    .acked
                    .lock()
                    .unwrap()
                    .insert((pk(&item), stock(&item)), Instant::now());
                i += 1;
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
    };
    let mut tasks = Vec::new();
    for (cache, own) in readers {
        let mut per_kind = Vec::new();
        for kind in [Kind::Get, Kind::BatchGet, Kind::TableQuery, Kind::GsiQuery] {
            let (cache, own, t, stop, history) = (
                cache.clone(),
                own.clone(),
                table.to_owned(),
                stop.clone(),
                history.clone(),
            );
            per_kind.push(tokio::spawn(async move {
                let (mut reads, mut stale, mut after_apply) = (0u64, Vec::new(), 0u64);
                let mut i = 0;
                while !stop.load(Ordering::SeqCst) {
                    let floor = own.applied.lock().unwrap().clone();
                    let start = Instant::now();
                    let items = read(&cache, &t, kind, i % KEYS).await;
                    i += 1;
                    reads += 1;
                    let (by, older) = history.judge(start, &floor, &items);
                    if by > Duration::ZERO {
                        stale.push(by);
                    }
                    after_apply += u64::from(older);
                    tokio::time::sleep(Duration::from_millis(2)).await;
                }
                (kind, (reads, stale, after_apply))
            }));
        }
        tasks.push(per_kind);
    }
    tokio::time::sleep(secs).await;
    stop.store(true, Ordering::SeqCst);
    w.await.unwrap();
    let mut out = Vec::new();
    for per_kind in tasks {
        let mut m = HashMap::new();
        for t in per_kind {
            let (kind, r) = t.await.unwrap();
            m.insert(kind, r);
        }
        out.push(m);
    }
    out
}

fn report(backend: &str, label: &str, m: &HashMap<Kind, (u64, Vec<Duration>, u64)>) -> Duration {
    let mut worst = Duration::ZERO;
    for kind in [Kind::Get, Kind::BatchGet, Kind::TableQuery, Kind::GsiQuery] {
        let (reads, stale, after_apply) = &m[&kind];
        let mut s = stale.clone();
        s.sort();
        let max = s.last().copied().unwrap_or_default();
        worst = worst.max(max);
        println!(
            "feed figures {backend} {label} {kind:?}: {reads} reads, {} older than an acknowledged \
             write (p50 {:?}, p99 {:?}, max {:?} after its ack), {after_apply} older than an applied record",
            s.len(),
            percentile(&s, 0.5),
            percentile(&s, 0.99),
            max,
        );
        assert_eq!(
            *after_apply, 0,
            "{backend} {label} {kind:?}: reads older than an applied record"
        );
    }
    worst
}

async fn setup(b: &FeedBackend) -> (String, Cache) {
    let t = unique_table_name("feed-figures");
    b.store
        .create_table(&ecommerce_table(&t).stream(StreamView::NewAndOldImages))
        .await
        .unwrap();
    for i in 0..KEYS {
        b.store.put_item(put(&t, product(i))).await.unwrap();
    }
    (t, Arc::new(CachedStore::new(b.store.clone())))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn feed_figures_staleness_window_by_read_kind_and_the_lag_budget() {
    let secs = Duration::from_secs(
        std::env::var("DYNO_FEED_SOAK_SECS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(2),
    );
    for b in feed_backends().await.into_iter().filter(|b| b.is_server()) {
        // Phase 1: the defaults (poll every 250 ms, lag budget 5 s), a healthy feed.
        let (t, writer) = setup(&b).await;
        let reader: Cache = Arc::new(CachedStore::new(b.second_client().await));
        let own = Arc::new(History::default());
        let feed = StreamsFeed::local(b.endpoint().unwrap(), &t, StartingPosition::Latest)
            .await
            .unwrap();
        let follower = Follower::spawn_with_options(
            reader.clone(),
            feed,
            FollowerOptions {
                on_applied: Some(own.hook()),
                ..FollowerOptions::default()
            },
        );
        assert!(follower.started(Duration::from_secs(5)).await);
        let history = Arc::new(History::default());
        let m = run(&t, writer, vec![(reader, own)], history, secs).await;
        report(b.name, "default poll 250 ms", &m[0]);
        follower.shutdown().await;

        // Phase 2: the feed stalls (every GetRecords unanswered) while writes go on; one
        // reader with a 1 s lag budget, one without a budget.
        let (t, writer) = setup(&b).await;
        let proxy = FaultProxy::start(b.endpoint().unwrap()).await;
        let budget = Duration::from_secs(1);
        let mut readers = Vec::new();
        let mut followers = Vec::new();
        for lag_budget in [Some(budget), None] {
            let reader: Cache = Arc::new(CachedStore::new(b.second_client().await));
            let own = Arc::new(History::default());
            let feed = StreamsFeed::local(proxy.endpoint(), &t, StartingPosition::Latest)
                .await
                .unwrap()
                .with_timeouts(Timeouts {
                    connect: Duration::from_millis(500),
                    attempt: Duration::from_millis(300),
                    operation: Duration::from_secs(1),
                });
            let follower = Follower::spawn_with_options(
                reader.clone(),
                feed,
                FollowerOptions {
                    lag_budget,
                    on_applied: Some(own.hook()),
                },
            );
            assert!(follower.started(Duration::from_secs(5)).await);
            // Cache every key before the stall.
            for i in 0..KEYS {
                read(&reader, &t, Kind::Get, i).await;
            }
            readers.push((reader, own));
            followers.push(follower);
        }
        proxy.inject(Some("GetRecords"), Fault::Stall, 1_000_000);
        let stall = secs.max(Duration::from_secs(3));
        let history = Arc::new(History::default());
        let m = run(&t, writer, readers, history, stall).await;
        let with = report(
            b.name,
            &format!("stalled {stall:?}, lag budget {budget:?}"),
            &m[0],
        );
        let without = report(b.name, &format!("stalled {stall:?}, no lag budget"), &m[1]);
        println!(
            "feed figures {}: worst staleness during a {stall:?} stall: {with:?} with a {budget:?} \
             lag budget, {without:?} without",
            b.name
        );
        assert!(
            with < budget + Duration::from_millis(800),
            "{}: a lag budget bounds staleness: {with:?}",
            b.name
        );
        assert!(without > with, "{}: {without:?} vs {with:?}", b.name);
        proxy.heal();
        for f in followers {
            f.shutdown().await;
        }
    }
}
