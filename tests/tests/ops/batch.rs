//! The batch engine through the fault-injecting store: 1,000 items written and read with
//! unprocessed items, throttling and lost responses, every item accounted for, whether retries
//! succeed or run out.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use dyno_core::ops::{BatchGet, BatchWriter, EntityExt, RetryPolicy};
use dyno_core::store::forward::Call;
use dyno_core::store::*;
use dyno_core::{AttributeValue, Error, Item, MemoryStore, Result, Store};
use dyno_tests::fault::{outcome_unknown, service_error, FaultStore, Op, Pick};
use dyno_tests::model::{ecommerce_table, Product, TABLE};
use futures::future::BoxFuture;

async fn faulty() -> FaultStore<MemoryStore> {
    let inner = MemoryStore::new();
    inner.create_table(&ecommerce_table(TABLE)).await.unwrap();
    FaultStore::new(inner)
}

fn write_key(w: &WriteRequest) -> &Item {
    match w {
        WriteRequest::Put { item, .. } => item,
        WriteRequest::Delete { key, .. } => key,
    }
}

fn product(i: usize) -> Product {
    Product {
        product_id: format!("p{i:04}"),
        name: format!("product {i}"),
        category: format!("c{}", i % 10),
        price_cents: i as u32,
        stock: 1,
    }
}

fn fast(attempts: u32) -> RetryPolicy {
    RetryPolicy {
        max_attempts: attempts,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(4),
    }
}

/// The product number in a key or item (`PK = PRODUCT#p0042`).
fn number_of(item: &Item) -> usize {
    match item.get("PK") {
        Some(AttributeValue::S(pk)) => pk.trim_start_matches("PRODUCT#p").parse().unwrap(),
        other => panic!("no PK: {other:?}"),
    }
}

/// The product numbers stored in the inner store (read without faults).
async fn stored(store: &FaultStore<MemoryStore>) -> BTreeSet<usize> {
    Product::scan()
        .all(store.inner())
        .await
        .unwrap()
        .iter()
        .map(|p| p.price_cents as usize)
        .collect()
}

fn keys(range: impl Iterator<Item = usize>) -> Vec<dyno_core::ops::Key<Product>> {
    range
        .map(|i| Product::key(&format!("p{i:04}")).unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_and_reads_1000_items_through_unprocessed_items_and_throttling() {
    let store = faulty().await;
    // Every call leaves every 3rd write unprocessed; the first calls are throttled, time out
    // (nothing applied), lose their response (applied, then an error) or fail with a 5xx.
    store.unprocessed_writes(Pick::EveryNth(3), None);
    store.throttle_next(Op::BatchWrite, 5);
    store.fail_next(Op::BatchWrite, 2, outcome_unknown);
    store.fail_next_after(Op::BatchWrite, 2, outcome_unknown);
    store.fail_next(Op::BatchWrite, 1, service_error);
    let products: Vec<Product> = (0..1000).map(product).collect();

    let mut batch = BatchWriter::new()
        .without_entity_check()
        .retry(fast(20))
        .concurrency(4);
    batch.put_all(&products).unwrap();
    assert_eq!(batch.len(), 1000);
    let report = batch.send(&store).await.unwrap();
    assert_eq!(report.written, 1000);
    assert!(report.unprocessed.is_empty() && report.errors.is_empty());
    // 40 chunks of 25, each needing 3 calls (every 3rd held back: 25 → 8 → 2 → done), plus the 10
    // calls that failed.
    assert_eq!(report.requests as u64, store.calls(Op::BatchWrite));
    assert_eq!(store.calls(Op::BatchWrite), 40 * 3 + 10);
    assert_eq!(stored(&store).await, (0..1000).collect());

    // Read them back through the same kind of faults, in the order asked (reversed here).
    store.unprocessed_keys(
        Pick::Fraction {
            ratio: 0.4,
            seed: 42,
        },
        None,
    );
    store.throttle_next(Op::BatchGet, 3);
    let got = BatchGet::new(keys((0..1000).rev()))
        .retry(fast(30))
        .send(&store)
        .await
        .unwrap();
    assert_eq!(got.len(), 1000);
    assert!(
        got.iter()
            .zip((0..1000).rev())
            .all(|(p, i)| *p == product(i)),
        "items out of order or wrong"
    );
    assert!(store.calls(Op::BatchGet) > 10 + 3, "no key was retried");

    // Missing keys are simply absent.
    let got = BatchGet::new(keys([5, 5000, 7].into_iter()))
        .retry(fast(30))
        .send(&store)
        .await
        .unwrap();
    assert_eq!(
        got.iter().map(|p| p.price_cents).collect::<Vec<_>>(),
        [5, 7]
    );

    // Deletes (and puts mixed in) go through the same engine.
    let mut batch = BatchWriter::new().without_entity_check().retry(fast(20));
    for key in keys((0..1000).filter(|i| i % 2 == 0)) {
        batch.delete(key).unwrap();
    }
    batch.put(&product(1000)).unwrap();
    let report = batch.send(&store).await.unwrap();
    assert_eq!(report.written, 501);
    let expected: BTreeSet<usize> = (0..=1000).filter(|i| i % 2 == 1 || *i == 1000).collect();
    assert_eq!(stored(&store).await, expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn items_left_when_attempts_run_out_are_returned_never_dropped() {
    let store = faulty().await;
    // Each attempt holds back about 60% of what it is sent: after 3 attempts about a fifth of the
    // items are still unwritten.
    store.unprocessed_writes(
        Pick::Fraction {
            ratio: 0.6,
            seed: 7,
        },
        None,
    );
    // Two throttled requests: fewer failures in a row than the shared budget allows (3).
    store.throttle_next(Op::BatchWrite, 2);
    let all: BTreeSet<usize> = (0..1000).collect();

    let mut batch = BatchWriter::new().without_entity_check().retry(fast(3));
    batch
        .put_all(&(0..1000).map(product).collect::<Vec<_>>())
        .unwrap();
    let returned = match batch.send(&store).await {
        Err(Error::BatchIncomplete {
            unprocessed_writes,
            unprocessed_keys,
            attempts,
            ..
        }) => {
            assert!(unprocessed_keys.is_empty());
            assert_eq!(attempts, 3);
            let numbers: Vec<usize> = unprocessed_writes
                .iter()
                .map(|w| number_of(write_key(w)))
                .collect();
            let set: BTreeSet<usize> = numbers.iter().copied().collect();
            assert_eq!(set.len(), numbers.len(), "an item was returned twice");
            set
        }
        other => panic!("expected BatchIncomplete, got {other:?}"),
    };
    assert!(
        !returned.is_empty() && returned.len() < 1000,
        "{} returned",
        returned.len()
    );
    // Every item is either stored or returned, never both, never neither.
    let written = stored(&store).await;
    assert!(written.is_disjoint(&returned));
    assert_eq!(
        written.union(&returned).copied().collect::<BTreeSet<_>>(),
        all
    );

    // run() reports instead of failing: written + unprocessed = everything given.
    let mut batch = BatchWriter::new().without_entity_check().retry(fast(3));
    batch
        .put_all(&(0..1000).map(product).collect::<Vec<_>>())
        .unwrap();
    let report = batch.send_report(&store).await;
    assert_eq!(report.written + report.unprocessed.len(), 1000);
    assert!(!report.unprocessed.is_empty());

    // Reads: keys still unread after the attempts are returned; run() keeps the items read.
    store.clear_unprocessed();
    let mut fill = BatchWriter::new().without_entity_check();
    fill.put_all(&(0..1000).map(product).collect::<Vec<_>>())
        .unwrap();
    fill.send(&store).await.unwrap();
    store.unprocessed_keys(
        Pick::Fraction {
            ratio: 0.6,
            seed: 9,
        },
        None,
    );
    let unread = match BatchGet::new(keys(0..1000))
        .retry(fast(3))
        .send(&store)
        .await
    {
        Err(Error::BatchIncomplete {
            unprocessed_keys,
            unprocessed_writes,
            ..
        }) => {
            assert!(unprocessed_writes.is_empty());
            let set: BTreeSet<usize> = unprocessed_keys.iter().map(|k| number_of(&k.key)).collect();
            assert_eq!(set.len(), unprocessed_keys.len());
            set
        }
        other => panic!("expected BatchIncomplete, got {other:?}"),
    };
    assert!(!unread.is_empty() && unread.len() < 1000);
    let report = BatchGet::new(keys(0..1000))
        .retry(fast(3))
        .send_report(&store)
        .await
        .unwrap();
    let read: BTreeSet<usize> = report
        .items
        .iter()
        .map(|p| p.price_cents as usize)
        .collect();
    let left: BTreeSet<usize> = report
        .unprocessed
        .iter()
        .map(|k| number_of(&k.key))
        .collect();
    assert!(read.is_disjoint(&left));
    assert_eq!(read.union(&left).copied().collect::<BTreeSet<_>>(), all);
}

#[tokio::test]
async fn persistent_throttling_exhausts_attempts_and_returns_everything() {
    let store = faulty().await;
    store.fail_always(Op::BatchWrite, dyno_tests::fault::throttled);
    let mut batch = BatchWriter::new()
        .without_entity_check()
        .retry(fast(3))
        .concurrency(2);
    batch
        .put_all(&(0..60).map(product).collect::<Vec<_>>())
        .unwrap();
    match batch.send(&store).await {
        Err(Error::BatchIncomplete {
            unprocessed_writes,
            causes,
            ..
        }) => {
            assert_eq!(unprocessed_writes.len(), 60);
            assert!(
                !causes.is_empty() && causes.iter().all(Error::is_throttled),
                "the throttling is the cause: {causes:?}"
            );
        }
        other => panic!("expected BatchIncomplete, got {other:?}"),
    }
    // The chunks share one budget of 3 failures in a row: the third failure stops the batch
    // (a fourth may already be in flight with concurrency 2); the third chunk is never sent.
    let calls = store.calls(Op::BatchWrite);
    assert!(
        (3..=4).contains(&calls),
        "{calls} calls, not 3 chunks × 3 attempts"
    );
    assert!(stored(&store).await.is_empty());
}

#[tokio::test]
async fn non_retryable_errors_stop_their_chunk_and_are_reported() {
    let store = faulty().await;
    // With concurrency 1 chunks run in order: the first chunk's call fails for good.
    store.fail_next(Op::BatchWrite, 1, || {
        Error::validation("injected: item invalid")
    });
    let mut batch = BatchWriter::new()
        .without_entity_check()
        .retry(fast(5))
        .concurrency(1);
    batch
        .put_all(&(0..100).map(product).collect::<Vec<_>>())
        .unwrap();
    let report = batch.send_report(&store).await;
    assert_eq!(report.errors.len(), 1);
    assert!(matches!(report.errors[0], Error::Validation { .. }));
    let left: BTreeSet<usize> = report
        .unprocessed
        .iter()
        .map(|w| number_of(write_key(w)))
        .collect();
    assert_eq!(
        left,
        (0..25).collect(),
        "the failed chunk's writes are returned"
    );
    assert_eq!(report.written, 75);
    assert_eq!(
        store.calls(Op::BatchWrite),
        4,
        "a non-retryable error is not retried"
    );
    assert_eq!(stored(&store).await, (25..100).collect());

    // send(): the same, as BatchIncomplete.
    store.fail_next(Op::BatchWrite, 1, || {
        Error::validation("injected: item invalid")
    });
    let mut batch = BatchWriter::new()
        .without_entity_check()
        .retry(fast(5))
        .concurrency(1);
    batch
        .put_all(&(0..100).map(product).collect::<Vec<_>>())
        .unwrap();
    let err = batch.send(&store).await.unwrap_err();
    assert!(
        matches!(&err, Error::BatchIncomplete { unprocessed_writes, .. } if unprocessed_writes.len() == 25),
        "{err:?}"
    );

    // When every request fails with a non-retryable error, that error is returned.
    store.fail_always(Op::BatchWrite, || Error::ResourceNotFound {
        message: "injected: no table".into(),
    });
    let mut batch = BatchWriter::new().without_entity_check();
    batch
        .put_all(&(0..60).map(product).collect::<Vec<_>>())
        .unwrap();
    assert!(matches!(
        batch.send(&store).await,
        Err(Error::ResourceNotFound { .. })
    ));
}

/// Counts the batch calls in flight at once; each call yields before it finishes so that the
/// engine has every call it allows in flight.
#[derive(Debug)]
struct InFlight {
    inner: MemoryStore,
    now: AtomicUsize,
    max: AtomicUsize,
}

impl InFlight {
    async fn track<T>(&self, call: impl std::future::Future<Output = T>) -> T {
        let n = self.now.fetch_add(1, Ordering::SeqCst) + 1;
        self.max.fetch_max(n, Ordering::SeqCst);
        tokio::task::yield_now().await;
        let out = call.await;
        self.now.fetch_sub(1, Ordering::SeqCst);
        out
    }
}

#[async_trait]
impl dyno_core::store::forward::Forward for InFlight {
    type Inner = MemoryStore;
    fn inner(&self) -> &MemoryStore {
        &self.inner
    }
    async fn around<T: Send>(&self, call: Call, inner: BoxFuture<'_, Result<T>>) -> Result<T> {
        match call {
            Call::BatchGet | Call::BatchWrite => self.track(inner).await,
            _ => inner.await,
        }
    }
}

#[tokio::test]
async fn requests_in_flight_are_bounded_by_the_concurrency() {
    let store = InFlight {
        inner: MemoryStore::new(),
        now: AtomicUsize::new(0),
        max: AtomicUsize::new(0),
    };
    store.create_table(&ecommerce_table(TABLE)).await.unwrap();
    let mut batch = BatchWriter::new().without_entity_check().concurrency(3);
    batch
        .put_all(&(0..250).map(product).collect::<Vec<_>>())
        .unwrap();
    let report = batch.send(&store).await.unwrap();
    assert_eq!((report.written, report.requests), (250, 10));
    assert_eq!(store.max.load(Ordering::SeqCst), 3);

    store.max.store(0, Ordering::SeqCst);
    let got = BatchGet::new(keys(0..250))
        .concurrency(2)
        .send(&store)
        .await
        .unwrap();
    assert_eq!(got.len(), 250);
    assert_eq!(store.max.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn duplicate_keys_are_refused_before_sending() {
    let store = faulty().await;
    let mut batch = BatchWriter::new().without_entity_check();
    batch.put(&product(1)).unwrap();
    let err = batch
        .put(&Product {
            name: "other".into(),
            ..product(1)
        })
        .map(|_| ())
        .unwrap_err();
    assert!(
        matches!(&err, Error::Validation { message } if message.contains("PRODUCT#p0001")),
        "{err}"
    );
    let err = batch
        .delete(Product::key("p0001").unwrap())
        .map(|_| ())
        .unwrap_err();
    assert!(matches!(err, Error::Validation { .. }));
    assert_eq!(batch.len(), 1);

    let err = BatchGet::new(keys([1, 2, 1].into_iter()))
        .send(&store)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Validation { .. }), "{err}");
    assert_eq!(store.counts().total(), 0);
}

/// The batch's deadline in time, beside its budget in attempts: on a backend that stalls (every
/// BatchWriteItem waits forever) a 300-item batch returns at its deadline with every item and
/// `DeadlineExceeded`, where without a deadline it would wait as long as the stall.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_backend_returns_every_item_at_the_batch_deadline() {
    let store = faulty().await;
    // Held pauses: every request the batch could make (12 chunks x 3 attempts) stalls.
    let stalls: Vec<_> = (0..40).map(|_| store.pause_next(Op::BatchWrite)).collect();
    let mut batch = BatchWriter::new()
        .without_entity_check()
        .retry(fast(3))
        .concurrency(4)
        .deadline(Duration::from_millis(300));
    batch
        .put_all(&(0..300).map(product).collect::<Vec<_>>())
        .unwrap();
    let started = std::time::Instant::now();
    let result = tokio::time::timeout(Duration::from_secs(10), batch.send(&store))
        .await
        .expect("the batch returns at its deadline, not when the stall ends");
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(2), "{elapsed:?}");
    assert!(elapsed >= Duration::from_millis(300), "{elapsed:?}");
    let Err(Error::BatchIncomplete {
        unprocessed_writes,
        causes,
        ..
    }) = result
    else {
        panic!("{result:?}")
    };
    let left: BTreeSet<usize> = unprocessed_writes
        .iter()
        .map(|w| number_of(write_key(w)))
        .collect();
    assert_eq!(left, (0..300).collect(), "every item is returned");
    assert!(
        causes
            .iter()
            .any(|c| matches!(c, Error::DeadlineExceeded { .. })
                && c.to_string().contains("300ms")),
        "{causes:?}"
    );
    // Only the first requests were made: nothing is sent after the deadline.
    assert_eq!(store.calls(Op::BatchWrite), 4);
    assert!(stored(&store).await.is_empty());
    drop(stalls);
}

/// On a slow backend the deadline cuts the batch part-way: what was written is stored, what was
/// not is returned, none lost, none both; a batch get on a stall returns every key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_backend_is_cut_at_the_deadline_with_every_item_accounted_for() {
    let store = faulty().await;
    store.set_latency(Op::BatchWrite, Some(Duration::from_millis(100)));
    let mut batch = BatchWriter::new()
        .without_entity_check()
        .retry(fast(3))
        .concurrency(2)
        .deadline(Duration::from_millis(450));
    batch
        .put_all(&(0..1000).map(product).collect::<Vec<_>>())
        .unwrap();
    let started = std::time::Instant::now();
    let report = tokio::time::timeout(Duration::from_secs(10), batch.send_report(&store))
        .await
        .unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    let left: BTreeSet<usize> = report
        .unprocessed
        .iter()
        .map(|w| number_of(write_key(w)))
        .collect();
    let written = stored(&store).await;
    assert!(
        !written.is_empty() && !left.is_empty(),
        "cut part-way: {} written",
        written.len()
    );
    assert_eq!(written.len(), report.written);
    assert!(written.is_disjoint(&left));
    assert_eq!(
        written.union(&left).count(),
        1000,
        "every item accounted for"
    );
    assert!(report
        .errors
        .iter()
        .all(|e| matches!(e, Error::DeadlineExceeded { .. })));

    let _stall = store.pause_next(Op::BatchGet);
    let get = BatchGet::new(keys(0..50))
        .retry(fast(3))
        .deadline(Duration::from_millis(200));
    let report = tokio::time::timeout(Duration::from_secs(10), get.send_report(&store))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(report.unprocessed.len(), 50);
    assert!(matches!(
        report.errors[..],
        [Error::DeadlineExceeded { .. }]
    ));
}
