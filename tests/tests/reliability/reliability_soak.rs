//! Soak and concurrency: a bounded mixed workload through `CachedStore` over
//! MemoryStore and over dynoxide (when configured), and 16 tasks x 50 optimistic increments on
//! every backend.
//!
//! The workload runs for `DYNO_SOAK_SECS` seconds per backend (default 6; the test command stays
//! well under a minute), loopback only, with a byte-bounded cache. Tasks mix, on a few hot keys:
//! optimistic increments (read, then write `n + 1` if the version is unchanged), unconditional
//! atomic increments (`ADD n 1`), and puts and reads of a key of their own. Checked:
//! - read-your-writes: each task reads back, through the cache, what it has just written;
//! - global invariant: each hot counter's final value equals the increments its writers saw
//!   applied, and its version equals the optimistic ones;
//! - memory: the cache's bytes never exceed its bound.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dyno_cache::CachedStore;
use dyno_core::expr::{Condition, Path, SetValue, Update, UpdateOperand};
use dyno_core::store::{GetRequest, UpdateRequest};
use dyno_core::{AttributeValue, DynamoStore, Error, Item, MemoryStore, Store, TableDef};
use dyno_tests::backend::{
    atomic_conditional_writes, backends, put, unique_table_name, BackendKind, DYNOXIDE_ENDPOINT_VAR,
};
use tokio::time::timeout;

const HOT_KEYS: usize = 3;
/// The longest wait after a lost optimistic race (see [`increment`]).
const CONTENTION_WAIT_MS: u64 = 200;
const CACHE_BYTES: u64 = 16 * 1024;

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn n(v: u64) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

fn key(pk: &str) -> Item {
    Item::from([("PK".to_owned(), s(pk)), ("SK".to_owned(), s("x"))])
}

fn number(item: &Item, attr: &str) -> u64 {
    match item.get(attr) {
        Some(AttributeValue::N(v)) => v.parse().unwrap(),
        None => 0,
        other => panic!("{attr}: {other:?}"),
    }
}

/// Tokens of optimistic increments, one per [`increment`] call.
static TOKENS: AtomicU64 = AtomicU64::new(1);

/// `SET n = n + 1, ver = ver + 1, <writer> = token` if `ver` is still `version` and `<writer>`
/// does not hold `token` yet. Each writer (a task) keeps the token of its last applied increment
/// in an attribute of its own, so an increment whose outcome is unknown (its request timed out)
/// can be resolved by reading the item, and sent again without applying twice.
fn optimistic(table: &str, pk: &str, version: u64, writer: &str, token: u64) -> UpdateRequest {
    let plus_one = |a: &str| {
        SetValue::Plus(
            UpdateOperand::Path(Path::attr(a)),
            UpdateOperand::Value(n(1)),
        )
    };
    let fresh = Condition::not_exists(writer).or(Condition::eq(writer, n(token)).negate());
    UpdateRequest::new(
        table.to_owned(),
        key(pk),
        Update {
            set: vec![
                (Path::attr("n"), plus_one("n")),
                (Path::attr("ver"), plus_one("ver")),
                (
                    Path::attr(writer),
                    SetValue::Operand(UpdateOperand::Value(n(token))),
                ),
            ],
            ..Update::default()
        },
    )
    .with_condition(Some(Condition::eq("ver", n(version)).and(fresh)))
}

/// `ADD n 1`, unconditional.
fn atomic_add(table: &str, pk: &str) -> UpdateRequest {
    UpdateRequest::new(
        table.to_owned(),
        key(pk),
        Update {
            add: vec![(Path::attr("n"), n(1))],
            ..Update::default()
        },
    )
}

/// One optimistic increment: read (strongly consistent), write if unchanged; on a conflict,
/// retry with the version the failure returned (`ALL_OLD`), or read again where the server does
/// not return it. Returns the attempts it took.
async fn increment(store: &dyn Store, table: &str, pk: &str, writer: &str) -> u32 {
    let token = TOKENS.fetch_add(1, Ordering::Relaxed);
    let read = || async {
        store
            .get_item(GetRequest::new(table.to_owned(), key(pk)).consistent())
            .await
            .unwrap()
            .item
            .expect("the counter exists")
    };
    let mut attempts = 0;
    let mut known: Option<u64> = None;
    loop {
        attempts += 1;
        let version = match known.take() {
            Some(v) => v,
            None => {
                let current = read().await;
                number(&current, "ver")
            }
        };
        let mut request = optimistic(table, pk, version, writer, token);
        request.return_old_on_condition_failure = true;
        match store.update_item(request).await {
            Ok(_) => return attempts,
            Err(Error::ConditionFailed { item, .. }) => {
                // Servers without ReturnValuesOnConditionCheckFailure (dynalite) return no item.
                let item = match item {
                    Some(item) => Arc::new(item),
                    None => read().await,
                };
                if number(&item, writer) == token {
                    // An earlier attempt of this increment applied (its outcome was unknown).
                    return attempts;
                }
                known = Some(number(&item, "ver"));
                // A random wait of up to 16 contenders x ~12 ms (a loaded loopback server's
                // request time), so the 15 losers spread out instead of colliding again. Short,
                // growing waits (2 << attempt ms) made every round a stampede: 11.5 attempts per
                // increment on dynoxide (49 s for 16 x 50) against 2.4 (16 s) with this one.
                tokio::time::sleep(Duration::from_millis(fastrand::u64(0..=CONTENTION_WAIT_MS)))
                    .await;
            }
            // A request that timed out on a loaded machine may or may not have applied: the
            // writer's token says which, and a resend cannot apply twice.
            Err(e) if e.is_outcome_unknown() => {
                UNKNOWN_OUTCOMES.fetch_add(1, Ordering::Relaxed);
                let current = read().await;
                if number(&current, writer) == token {
                    return attempts;
                }
            }
            Err(e) => panic!("optimistic increment of {pk}: {e:?}"),
        }
    }
}

/// Increments whose request's outcome was unknown and was resolved by reading the item back.
static UNKNOWN_OUTCOMES: AtomicU64 = AtomicU64::new(0);

#[derive(Default)]
struct Applied {
    optimistic: [AtomicU64; HOT_KEYS],
    atomic: [AtomicU64; HOT_KEYS],
    read_your_writes: AtomicU64,
}

fn soak_duration() -> Duration {
    let secs = std::env::var("DYNO_SOAK_SECS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(6);
    Duration::from_secs(secs)
}

async fn mixed_workload(name: &str, inner: Arc<dyn Store>) {
    let table = unique_table_name("soak");
    inner
        .create_table(&TableDef::new(table.clone(), "PK", Some("SK")))
        .await
        .unwrap();
    let cached = Arc::new(
        CachedStore::builder(inner.clone())
            .item_capacity_bytes(CACHE_BYTES)
            .build(),
    );
    for k in 0..HOT_KEYS {
        let mut item = key(&format!("hot{k}"));
        item.insert("n".into(), n(0));
        item.insert("ver".into(), n(0));
        cached.put_item(put(&table, item)).await.unwrap();
    }
    let applied = Arc::new(Applied::default());
    let stop_at = Instant::now() + soak_duration();
    let mut tasks = Vec::new();
    for task in 0..8usize {
        let (cached, applied, table) = (cached.clone(), applied.clone(), table.clone());
        tasks.push(tokio::spawn(async move {
            let mut round = 0u64;
            while Instant::now() < stop_at {
                round += 1;
                let hot = (task + round as usize) % HOT_KEYS;
                let pk = format!("hot{hot}");
                match task % 3 {
                    // Optimistic writers.
                    0 => {
                        increment(&*cached, &table, &pk, &format!("w{task}")).await;
                        applied.optimistic[hot].fetch_add(1, Ordering::Relaxed);
                    }
                    // Unconditional writers.
                    1 => {
                        cached.update_item(atomic_add(&table, &pk)).await.unwrap();
                        applied.atomic[hot].fetch_add(1, Ordering::Relaxed);
                    }
                    // Writers of their own key, reading their writes back through the cache
                    // (eventually consistent reads, served from the cache when they can be),
                    // with a payload that makes the cache evict.
                    _ => {
                        let own = format!("own{task}-{}", round % 40);
                        let mut item = key(&own);
                        item.insert("seq".into(), n(round));
                        item.insert("pad".into(), s(&"x".repeat(512)));
                        cached.put_item(put(&table, item)).await.unwrap();
                        let got = cached
                            .get_item(GetRequest::new(table.clone(), key(&own)))
                            .await
                            .unwrap()
                            .item
                            .expect("read your write");
                        assert_eq!(number(&got, "seq"), round, "task {task} reads its write");
                        applied.read_your_writes.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        }));
    }
    for t in tasks {
        timeout(soak_duration() + Duration::from_secs(30), t)
            .await
            .expect("a soak task did not finish")
            .expect("a soak task failed");
    }
    cached.run_pending_tasks().await;
    let metrics = cached.metrics();
    assert!(
        metrics.item.current_bytes <= CACHE_BYTES,
        "{name}: cache holds {} bytes, bound {CACHE_BYTES}",
        metrics.item.current_bytes
    );
    let mut total = 0;
    for k in 0..HOT_KEYS {
        let item = inner
            .get_item(GetRequest::new(table.clone(), key(&format!("hot{k}"))).consistent())
            .await
            .unwrap()
            .item
            .unwrap();
        let optimistic = applied.optimistic[k].load(Ordering::Relaxed);
        let atomic = applied.atomic[k].load(Ordering::Relaxed);
        assert_eq!(
            number(&item, "n"),
            optimistic + atomic,
            "{name}: hot{k}'s total"
        );
        assert_eq!(number(&item, "ver"), optimistic, "{name}: hot{k}'s version");
        total += optimistic + atomic;
    }
    let ryw = applied.read_your_writes.load(Ordering::Relaxed);
    assert!(total > 0 && ryw > 0, "{name}: the workload ran");
    eprintln!(
        "soak {name}: {total} increments, {ryw} read-your-writes checks, {} evictions by size, \
         {} cached bytes",
        metrics.item.evictions.size, metrics.item.current_bytes
    );
    inner.delete_table(&table).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mixed_workload_through_the_cache_keeps_its_invariants() {
    let mut stores: Vec<(&str, Arc<dyn Store>)> = vec![("memory", Arc::new(MemoryStore::new()))];
    if let Some(endpoint) = std::env::var(DYNOXIDE_ENDPOINT_VAR)
        .ok()
        .filter(|e| !e.trim().is_empty())
    {
        stores.push((
            "dynoxide",
            Arc::new(DynamoStore::local(endpoint.trim()).await),
        ));
    }
    for (name, store) in stores {
        mixed_workload(name, store).await;
    }
}

/// 16 tasks x 50 optimistic increments of one counter, on every backend (MemoryStore also
/// through the cache). An atomic backend loses none.
///
/// moto is not atomic under concurrent conditional writes: it runs 16 x 8 (the same 16-way
/// contention on one item, fewer rounds) and what it loses is printed, not asserted (its counts
/// can drift apart: [`sixteen_by`]). The
/// servers run one after another, each bounded: a contended increment costs a few attempts of
/// two requests each, and the servers share this machine's cores (measured, alone, on a loaded
/// 2-core machine: dynalite 35 s, dynoxide 16 s for 16 x 50; all three at once took over 100 s
/// and timed requests out, which is why the count used to be 16 x 8 on every server).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixteen_tasks_of_fifty_optimistic_increments_lose_nothing() {
    for b in backends().await {
        let cached = Arc::new(CachedStore::new(b.store.clone())) as Arc<dyn Store>;
        let mut variants = vec![(b.name.to_owned(), b.store.clone())];
        if b.kind == BackendKind::Memory {
            variants.push((format!("{}+cache", b.name), cached));
        }
        let rounds = if atomic_conditional_writes(b.kind) {
            50
        } else {
            8
        };
        let runs: Vec<_> = variants
            .into_iter()
            .map(|(who, store)| tokio::spawn(sixteen_by(rounds, who, b.kind, store)))
            .collect();
        // A bound against a hang, not a speed check: on a slower 2-core machine with the other
        // test groups building beside it, dynalite's 16 x 50 took over 90 s (2026-12-02).
        for run in runs {
            timeout(Duration::from_secs(300), run)
                .await
                .unwrap_or_else(|_| panic!("{}: 16 x {rounds} increments took over 300 s", b.name))
                .unwrap();
        }
    }
}

async fn sixteen_by(rounds: u64, who: String, kind: BackendKind, store: Arc<dyn Store>) {
    let expected = 16 * rounds;
    let table = unique_table_name("increments");
    store
        .create_table(&TableDef::new(table.clone(), "PK", Some("SK")))
        .await
        .unwrap();
    let mut item = key("c");
    item.insert("n".into(), n(0));
    item.insert("ver".into(), n(0));
    store.put_item(put(&table, item)).await.unwrap();
    let attempts = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let tasks: Vec<_> = (0..16)
        .map(|task| {
            let (store, table, attempts) = (store.clone(), table.clone(), attempts.clone());
            tokio::spawn(async move {
                let writer = format!("w{task}");
                for _ in 0..rounds {
                    let a = increment(&*store, &table, "c", &writer).await;
                    attempts.fetch_add(u64::from(a), Ordering::Relaxed);
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    let item = store
        .get_item(GetRequest::new(table.clone(), key("c")).consistent())
        .await
        .unwrap()
        .item
        .unwrap();
    let (total, version) = (number(&item, "n"), number(&item, "ver"));
    if atomic_conditional_writes(kind) {
        assert_eq!((total, version), (expected, expected), "{who}");
    } else {
        // Nothing about the counts is asserted on moto: one update's `n = n + 1` and
        // `ver = ver + 1` are not applied atomically either, so the two can drift apart (seen:
        // n 127, ver 128), and a writer's token can be lost, which resends its increment. What
        // runs here is that every increment ends, without an error, within the bound.
        assert_eq!(kind, BackendKind::Moto);
        eprintln!(
            "{who}: n {total}, ver {version} of {expected} increments (moto's conditional writes \
             are not atomic: what differs from {expected} was lost or applied twice)"
        );
    }
    eprintln!(
        "{who}: {expected} increments in {} attempts, {:?} ({} outcomes unknown so far in this \
         binary, each resolved by its token)",
        attempts.load(Ordering::Relaxed),
        started.elapsed(),
        UNKNOWN_OUTCOMES.load(Ordering::Relaxed)
    );
    store.delete_table(&table).await.unwrap();
}
