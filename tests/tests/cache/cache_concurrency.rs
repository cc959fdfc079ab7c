//! CachedStore under concurrency: single flight (items and query pages), the stale-fill guard for items and query pages,
//! racing writes, cancelled loads. Interleavings are forced with FaultStore's pause barriers, so
//! every test is deterministic: no sleeps, no timing assumptions.

use std::sync::Arc;

use crate::cache_util::*;
use dyno_core::store::{ReturnValues, Store};
use dyno_core::{AttributeValue, Error, Item};
use dyno_tests::fault::{self, Op};

/// Polls until `cond` holds. The bound (a minute of polling) only turns a broken cache into a
/// failure instead of a hang; it is not a timing assertion.
async fn until(what: &str, mut cond: impl FnMut() -> bool) {
    for _ in 0..60_000 {
        if cond() {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    }
    panic!("gave up waiting for: {what}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_concurrent_gets_of_a_cold_key_make_one_backend_call() {
    let (c, _) = cached().await;
    let c = Arc::new(c);
    c.inner()
        .inner()
        .put_item(put(item("U#1", "HOT", &[("v", "1")])))
        .await
        .unwrap();
    let gate = c.inner().pause_next(Op::GetItem);
    let tasks: Vec<_> = (0..1000)
        .map(|_| {
            let c = c.clone();
            tokio::spawn(async move { c.get_item(get(key("U#1", "HOT"))).await })
        })
        .collect();
    gate.reached().await;
    // Hold the one load until every other caller has joined it.
    until("999 waiters", || c.metrics().coalesced_waiters == 999).await;
    gate.release();
    for t in tasks {
        let item = t.await.unwrap().unwrap().item.unwrap();
        assert_eq!(attr(&item, "v").as_deref(), Some("1"));
    }
    assert_eq!(c.inner().calls(Op::GetItem), 1);
    let m = c.metrics();
    assert_eq!(
        (m.item.misses, m.item.loads, m.coalesced_waiters),
        (1000, 1, 999)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_load_error_reaches_every_waiter_and_is_not_cached() {
    let (c, _) = cached().await;
    let c = Arc::new(c);
    c.inner()
        .inner()
        .put_item(put(item("U#1", "A", &[])))
        .await
        .unwrap();
    let gate = c.inner().pause_next(Op::GetItem);
    c.inner().fail_next(Op::GetItem, 1, fault::throttled);
    let tasks: Vec<_> = (0..100)
        .map(|_| {
            let c = c.clone();
            tokio::spawn(async move { c.get_item(get(key("U#1", "A"))).await })
        })
        .collect();
    gate.reached().await;
    until("99 waiters", || c.metrics().coalesced_waiters == 99).await;
    gate.release();
    for t in tasks {
        let err = t.await.unwrap().unwrap_err();
        assert!(err.is_throttled(), "every waiter gets the error, got {err}");
    }
    assert_eq!(c.inner().calls(Op::GetItem), 1);
    // Not cached: the next get loads and succeeds.
    assert!(read(&c, key("U#1", "A")).await.is_some());
    assert_eq!(c.inner().calls(Op::GetItem), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_concurrent_queries_of_a_cold_page_make_one_backend_call() {
    let (c, _) = cached().await;
    let c = Arc::new(c);
    for sk in ["O#1", "O#2"] {
        write(c.inner().inner(), item("U#1", sk, &[])).await;
    }
    let gate = c.inner().pause_next(Op::Query);
    let tasks: Vec<_> = (0..100)
        .map(|_| {
            let c = c.clone();
            tokio::spawn(async move { c.query(partition("U#1")).await })
        })
        .collect();
    gate.reached().await;
    // Hold the one load until every other caller has joined it.
    until("99 waiters", || c.metrics().coalesced_waiters == 99).await;
    gate.release();
    for t in tasks {
        let page = t.await.unwrap().unwrap();
        assert_eq!(sks(&page), ["O#1", "O#2"]);
    }
    assert_eq!(c.inner().calls(Op::Query), 1);
    let m = c.metrics();
    assert_eq!(
        (m.query.misses, m.query.loads, m.coalesced_waiters),
        (100, 1, 99)
    );
    // The shared page was installed once: the next query is a hit.
    c.query(partition("U#1")).await.unwrap();
    assert_eq!(c.inner().calls(Op::Query), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_load_error_reaches_every_waiter_and_is_not_cached() {
    let (c, _) = cached().await;
    let c = Arc::new(c);
    write(c.inner().inner(), item("U#1", "O#1", &[])).await;
    let gate = c.inner().pause_next(Op::Query);
    c.inner().fail_next(Op::Query, 1, fault::throttled);
    let tasks: Vec<_> = (0..50)
        .map(|_| {
            let c = c.clone();
            tokio::spawn(async move { c.query(partition("U#1")).await })
        })
        .collect();
    gate.reached().await;
    until("49 waiters", || c.metrics().coalesced_waiters == 49).await;
    gate.release();
    for t in tasks {
        let err = t.await.unwrap().unwrap_err();
        assert!(err.is_throttled(), "every waiter gets the error, got {err}");
    }
    assert_eq!(c.inner().calls(Op::Query), 1);
    // Not cached: the next query loads and succeeds.
    assert_eq!(sks(&c.query(partition("U#1")).await.unwrap()), ["O#1"]);
    assert_eq!(c.inner().calls(Op::Query), 2);
}

#[tokio::test]
async fn a_query_after_a_write_does_not_join_a_page_load_that_began_before_it() {
    let (c, _) = cached().await;
    let c = Arc::new(c);
    write(c.inner().inner(), item("U#1", "O#1", &[])).await;
    let early = c.inner().pause_next_after(Op::Query);
    let first = tokio::spawn({
        let c = c.clone();
        async move { c.query(partition("U#1")).await }
    });
    early.reached().await;
    // The pre-write load holds a page without O#2; the write adds it.
    write(&*c, item("U#1", "O#2", &[])).await;
    let second = tokio::spawn({
        let c = c.clone();
        async move { c.query(partition("U#1")).await }
    });
    until("the second query to finish or join", || {
        second.is_finished() || c.metrics().coalesced_waiters > 0
    })
    .await;
    assert_eq!(
        c.metrics().coalesced_waiters,
        0,
        "the query joined a load older than the write"
    );
    assert_eq!(sks(&second.await.unwrap().unwrap()), ["O#1", "O#2"]);
    early.release();
    assert_eq!(sks(&first.await.unwrap().unwrap()), ["O#1"]);
    assert_eq!(c.inner().calls(Op::Query), 2);
    // The older page was not installed: a third query reads the write.
    assert_eq!(
        sks(&c.query(partition("U#1")).await.unwrap()),
        ["O#1", "O#2"]
    );
}

#[tokio::test]
async fn a_read_that_began_before_a_write_cannot_install_its_older_item() {
    let (c, _) = cached().await;
    let c = Arc::new(c);
    c.inner()
        .inner()
        .put_item(put(item("U#1", "A", &[("v", "old")])))
        .await
        .unwrap();
    // The read fetches "old" from the backend and is held before it returns to the cache.
    let held = c.inner().pause_next_after(Op::GetItem);
    let reader = tokio::spawn({
        let c = c.clone();
        async move { c.get_item(get(key("U#1", "A"))).await }
    });
    held.reached().await;
    write(&c, item("U#1", "A", &[("v", "new")])).await;
    held.release();
    let seen = reader.await.unwrap().unwrap().item.unwrap();
    assert_eq!(
        attr(&seen, "v").as_deref(),
        Some("old"),
        "the read overlapped the write: either answer is fine"
    );
    let now = read(&c, key("U#1", "A")).await.unwrap();
    assert_eq!(
        attr(&now, "v").as_deref(),
        Some("new"),
        "the older image was not installed over the write"
    );
    assert_eq!(c.inner().calls(Op::GetItem), 1);
    assert_eq!(c.metrics().rejected_stale_fills, 1);
}

#[tokio::test]
async fn a_stale_replica_read_after_a_write_is_not_installed_either() {
    // An eventually consistent read may hit a replica that has not seen the write yet: the
    // FaultStore serves the pre-write image while the read is in flight across the write.
    let (c, _) = cached().await;
    let c = Arc::new(c);
    c.inner()
        .inner()
        .put_item(put(item("U#1", "A", &[("v", "old")])))
        .await
        .unwrap();
    c.inner().hold_stale(TABLE, key("U#1", "A")).await.unwrap();
    let gate = c.inner().pause_next(Op::GetItem);
    let reader = tokio::spawn({
        let c = c.clone();
        async move { c.get_item(get(key("U#1", "A"))).await }
    });
    gate.reached().await;
    write(&c, item("U#1", "A", &[("v", "new")])).await;
    gate.release();
    let seen = reader.await.unwrap().unwrap().item.unwrap();
    assert_eq!(attr(&seen, "v").as_deref(), Some("old"));
    let now = read(&c, key("U#1", "A")).await.unwrap();
    assert_eq!(attr(&now, "v").as_deref(), Some("new"));
    assert_eq!(c.metrics().rejected_stale_fills, 1);
}

#[tokio::test]
async fn a_query_that_began_before_a_write_cannot_install_its_older_page() {
    let (c, _) = cached().await;
    let c = Arc::new(c);
    write(&c, item("U#1", "A", &[])).await;
    let held = c.inner().pause_next_after(Op::Query);
    let reader = tokio::spawn({
        let c = c.clone();
        async move { c.query(partition("U#1")).await }
    });
    held.reached().await;
    write(&c, item("U#1", "B", &[])).await;
    held.release();
    assert_eq!(sks(&reader.await.unwrap().unwrap()), ["A"]);
    assert_eq!(sks(&c.query(partition("U#1")).await.unwrap()), ["A", "B"]);
    assert_eq!(c.inner().calls(Op::Query), 2);
    assert_eq!(c.metrics().rejected_stale_fills, 1);
}

#[tokio::test]
async fn a_write_to_another_partition_does_not_reject_a_page() {
    let (c, _) = cached().await;
    let c = Arc::new(c);
    write(&c, item("U#1", "A", &[])).await;
    let held = c.inner().pause_next_after(Op::Query);
    let reader = tokio::spawn({
        let c = c.clone();
        async move { c.query(partition("U#1")).await }
    });
    held.reached().await;
    write(&c, item("U#2", "B", &[])).await;
    held.release();
    reader.await.unwrap().unwrap();
    c.query(partition("U#1")).await.unwrap();
    assert_eq!(c.inner().calls(Op::Query), 1);
    assert_eq!(c.metrics().rejected_stale_fills, 0);
}

#[tokio::test]
async fn a_get_after_a_write_does_not_join_a_load_that_began_before_it() {
    let (c, _) = cached().await;
    let c = Arc::new(c);
    c.inner()
        .inner()
        .put_item(put(item("U#1", "A", &[("v", "old")])))
        .await
        .unwrap();
    let early = c.inner().pause_next_after(Op::GetItem);
    let first = tokio::spawn({
        let c = c.clone();
        async move { c.get_item(get(key("U#1", "A"))).await }
    });
    early.reached().await;
    // A write whose new image the cache cannot keep (the caller wants the old values).
    let mut w = set(key("U#1", "A"), &[("v", "new")]);
    w.return_values = ReturnValues::UpdatedOld;
    c.update_item(w).await.unwrap();
    // Read-your-writes: this get must not wait for the pre-write load and take its answer.
    let second = tokio::spawn({
        let c = c.clone();
        async move { c.get_item(get(key("U#1", "A"))).await }
    });
    until("the second get to finish or join", || {
        second.is_finished() || c.metrics().coalesced_waiters > 0
    })
    .await;
    assert_eq!(
        c.metrics().coalesced_waiters,
        0,
        "the get joined a load older than the write"
    );
    let second = second.await.unwrap().unwrap().item.unwrap();
    assert_eq!(attr(&second, "v").as_deref(), Some("new"));
    early.release();
    first.await.unwrap().unwrap();
    assert_eq!(c.inner().calls(Op::GetItem), 2);
}

#[tokio::test]
async fn writes_completing_out_of_order_leave_no_stale_image() {
    let (c, _) = cached().await;
    let c = Arc::new(c);
    write(&c, item("U#1", "A", &[("v", "0")])).await;
    // W1 is applied by the backend first, but its response is held.
    let held = c.inner().pause_next_after(Op::PutItem);
    let w1 = tokio::spawn({
        let c = c.clone();
        async move { c.put_item(put(item("U#1", "A", &[("v", "1")]))).await }
    });
    held.reached().await;
    // W2 is applied after W1 and completes first.
    write(&c, item("U#1", "A", &[("v", "2")])).await;
    held.release();
    w1.await.unwrap().unwrap();
    // The backend holds "2". W1 completing last must not leave "1" in the cache.
    let got = read(&c, key("U#1", "A")).await.unwrap();
    assert_eq!(attr(&got, "v").as_deref(), Some("2"));
    assert_eq!(
        c.inner().calls(Op::GetItem),
        1,
        "the raced key was invalidated, then loaded"
    );
}

#[tokio::test]
async fn waiters_of_a_cancelled_load_load_again() {
    let (c, _) = cached().await;
    let c = Arc::new(c);
    c.inner()
        .inner()
        .put_item(put(item("U#1", "A", &[])))
        .await
        .unwrap();
    let gate = c.inner().pause_next(Op::GetItem);
    let leader = tokio::spawn({
        let c = c.clone();
        async move { c.get_item(get(key("U#1", "A"))).await }
    });
    gate.reached().await;
    let waiter = tokio::spawn({
        let c = c.clone();
        async move { c.get_item(get(key("U#1", "A"))).await }
    });
    until("1 waiter", || c.metrics().coalesced_waiters == 1).await;
    leader.abort();
    assert!(leader.await.unwrap_err().is_cancelled());
    let got: Result<_, Error> = waiter.await.unwrap();
    assert!(got.unwrap().item.is_some(), "the waiter led a new load");
    assert_eq!(c.inner().calls(Op::GetItem), 2);
}

/// Two writes to one key, the second begun while the first was in flight and applied before
/// it: the second completing first must not install its image, or a read that has seen the
/// first write's state is followed by reads of the older one (a race found before).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_begun_while_another_was_in_flight_does_not_install_its_image() {
    use dyno_core::MemoryStore;
    use dyno_tests::fault::FaultStore;
    let memory = MemoryStore::new();
    memory.create_table(&table()).await.unwrap();
    // Outer pauses hold calls before (or after) the inner store; inner ones after it applied.
    let c = Arc::new(
        dyno_cache::CachedStore::builder(FaultStore::new(FaultStore::new(memory)))
            .table(table())
            .build(),
    );
    write(&c, item("U#1", "A", &[("v", "0")])).await;
    let outer = || c.inner();
    let inner = || c.inner().inner();
    // W1 (a put of "1") is held before it reaches the table.
    let w1_before = outer().pause_next(Op::PutItem);
    let w1 = tokio::spawn({
        let c = c.clone();
        async move { c.put_item(put(item("U#1", "A", &[("v", "1")]))).await }
    });
    w1_before.reached().await;
    // W2 (an update to "2") applies, and its response is held.
    let w2_after = outer().pause_next_after(Op::UpdateItem);
    let w2 = tokio::spawn({
        let c = c.clone();
        async move { c.update_item(set(key("U#1", "A"), &[("v", "2")])).await }
    });
    w2_after.reached().await;
    // W1 applies after W2 (the table holds "1"), and its response is held.
    let w1_after = inner().pause_next_after(Op::PutItem);
    w1_before.release();
    w1_after.reached().await;
    // A strongly consistent read sees "1".
    let seen = c.get_item(consistent_get(key("U#1", "A"))).await.unwrap();
    assert_eq!(attr(seen.item.as_ref().unwrap(), "v").as_deref(), Some("1"));
    // W2 completes while W1 is still in flight: no later read may return "2".
    w2_after.release();
    w2.await.unwrap().unwrap();
    let got = read(c.as_ref(), key("U#1", "A")).await.unwrap();
    assert_eq!(
        attr(&got, "v").as_deref(),
        Some("1"),
        "went back to an older state"
    );
    w1_after.release();
    w1.await.unwrap().unwrap();
    let got = read(c.as_ref(), key("U#1", "A")).await.unwrap();
    assert_eq!(attr(&got, "v").as_deref(), Some("1"));
}

/// A read that reaches the table while a write is in flight (here: after it applied) may see
/// the write's state; the cached entry from before the write must then not be served again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_that_saw_an_in_flight_write_drops_the_older_entry() {
    let (c, _) = cached().await;
    let c = Arc::new(c);
    write(&c, item("U#1", "A", &[("v", "0")])).await;
    c.query(partition("U#1")).await.unwrap();
    let held = c.inner().pause_next_after(Op::PutItem);
    let w = tokio::spawn({
        let c = c.clone();
        async move { c.put_item(put(item("U#1", "A", &[("v", "1")]))).await }
    });
    held.reached().await;
    // While the write is in flight the cached "0" may still be served (it has not completed)...
    let before = read(c.as_ref(), key("U#1", "A")).await.unwrap();
    assert_eq!(attr(&before, "v").as_deref(), Some("0"));
    // ...until a read returns the table's "1": a query (pages of the partition are not served
    // while a write to it is in flight, so it reads the table).
    let page = c.query(partition("U#1")).await.unwrap();
    assert_eq!(attr(&page.items[0], "v").as_deref(), Some("1"));
    let after = read(c.as_ref(), key("U#1", "A")).await.unwrap();
    assert_eq!(
        attr(&after, "v").as_deref(),
        Some("1"),
        "went back to an older state"
    );
    held.release();
    w.await.unwrap().unwrap();
    // The write, alone on its key, installed its image.
    let done = read(c.as_ref(), key("U#1", "A")).await.unwrap();
    assert_eq!(attr(&done, "v").as_deref(), Some("1"));
    assert_eq!(
        c.inner().calls(Op::GetItem),
        1,
        "one load, after the drop; the last read was a hit"
    );
}

/// While a write to a hot key is in flight, gets that miss still share one load (the flash-sale
/// case: the TTL runs out during a slow write); a get that arrives after a read of the key has
/// returned does not join a load that began before it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gets_that_miss_while_a_write_is_in_flight_still_share_one_load() {
    let (c, _) = cached_with(|b| b.negative_ttl(std::time::Duration::ZERO)).await;
    let c = Arc::new(c);
    c.inner()
        .inner()
        .put_item(put(item("U#1", "A", &[("v", "0")])))
        .await
        .unwrap();
    // A write is in flight (applied, response held); the key is not cached.
    let held = c.inner().pause_next_after(Op::PutItem);
    let w = tokio::spawn({
        let c = c.clone();
        async move { c.put_item(put(item("U#1", "A", &[("v", "1")]))).await }
    });
    held.reached().await;
    let gate = c.inner().pause_next(Op::GetItem);
    let tasks: Vec<_> = (0..100)
        .map(|_| {
            let c = c.clone();
            tokio::spawn(async move { c.get_item(get(key("U#1", "A"))).await })
        })
        .collect();
    gate.reached().await;
    until("99 waiters", || c.metrics().coalesced_waiters == 99).await;
    gate.release();
    for t in tasks {
        let got = t.await.unwrap().unwrap().item.unwrap();
        assert_eq!(attr(&got, "v").as_deref(), Some("1"));
    }
    assert_eq!(c.inner().calls(Op::GetItem), 1, "one load for 100 gets");
    // That load returned while the write was in flight: it cached nothing, and the next get
    // leads a load of its own.
    read(c.as_ref(), key("U#1", "A")).await.unwrap();
    assert_eq!(c.inner().calls(Op::GetItem), 2);
    held.release();
    w.await.unwrap().unwrap();
    let got = read(c.as_ref(), key("U#1", "A")).await.unwrap();
    assert_eq!(attr(&got, "v").as_deref(), Some("1"));
    assert_eq!(
        c.inner().calls(Op::GetItem),
        2,
        "the write installed its image"
    );
}

/// `ADD n 1` on `k`, through the cache.
fn increment(k: Item) -> dyno_core::store::UpdateRequest {
    let mut u = set(k, &[]);
    u.update.add.push((
        dyno_core::expr::Path::attr("n"),
        AttributeValue::N("1".into()),
    ));
    u
}

fn n_of(item: &Item) -> u64 {
    match item.get("n") {
        Some(AttributeValue::N(n)) => n.parse().unwrap(),
        None => 0,
        other => panic!("n is not a number: {other:?}"),
    }
}

/// A write cancelled after the backend applied it (its outcome unknown to the cache) drops its
/// own key's entry and nothing else: the table's other entries keep being served, and the key
/// reads the applied state. (Failed before the fix: the cancelled ticket bumped the table's
/// item generation, so every other item of the table was loaded again.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_write_drops_its_key_only() {
    let (c, _) = cached_with(|b| b.stripe_bits(24)).await;
    let c = Arc::new(c);
    for i in 0..5 {
        write(&*c, item("U#1", &format!("K{i}"), &[("v", "1")])).await;
    }
    let gate = c.inner().pause_next_after(Op::PutItem);
    let writer = tokio::spawn({
        let c = c.clone();
        async move { c.put_item(put(item("U#1", "K0", &[("v", "2")]))).await }
    });
    gate.reached().await;
    writer.abort();
    assert!(writer.await.unwrap_err().is_cancelled());
    for i in 1..5 {
        let got = read(&*c, key("U#1", &format!("K{i}"))).await.unwrap();
        assert_eq!(attr(&got, "v").as_deref(), Some("1"));
    }
    assert_eq!(
        c.inner().calls(Op::GetItem),
        0,
        "the table's other items are still served from the cache"
    );
    let got = read(&*c, key("U#1", "K0")).await.unwrap();
    assert_eq!(attr(&got, "v").as_deref(), Some("2"), "the applied state");
    assert_eq!(
        c.inner().calls(Op::GetItem),
        1,
        "the cancelled key was loaded"
    );
}

/// Writers increment three hot keys through the cache, and one task in three is aborted at a
/// random await point (before, during or after the backend call); readers check that no read
/// returns less than what a completed read or write had already seen (the key's floor). Bounded
/// at 2 seconds and 20,000 writes. Afterwards the cold keys, written before the race, are still
/// served from the cache, and every hot key reads its backend state.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelled_writes_racing_reads_on_hot_keys_leave_the_cache_coherent_and_serving() {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    const HOT: usize = 3;
    let (c, _) = cached_with(|b| b.stripe_bits(24)).await;
    let c = Arc::new(c);
    for i in 0..8 {
        write(&*c, item("U#1", &format!("COLD{i}"), &[("v", "1")])).await;
    }
    for k in 0..HOT {
        write(&*c, item("U#1", &format!("HOT{k}"), &[])).await;
    }
    let floors: Arc<Vec<AtomicU64>> = Arc::new((0..HOT).map(|_| AtomicU64::new(0)).collect());
    let stop = Arc::new(AtomicBool::new(false));
    let violations = Arc::new(AtomicU64::new(0));
    let cancelled = Arc::new(AtomicU64::new(0));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let (c, floors, stop, cancelled) =
                (c.clone(), floors.clone(), stop.clone(), cancelled.clone());
            tokio::spawn(async move {
                let mut rng = fastrand::Rng::with_seed(w);
                for i in 0..5_000u64 {
                    if stop.load(Ordering::Relaxed) || std::time::Instant::now() > deadline {
                        break;
                    }
                    let k = rng.usize(..HOT);
                    let task = tokio::spawn({
                        let c = c.clone();
                        async move {
                            c.update_item(increment(key("U#1", &format!("HOT{k}"))))
                                .await
                        }
                    });
                    if i % 3 == 0 {
                        for _ in 0..rng.usize(..4) {
                            tokio::task::yield_now().await;
                        }
                        task.abort();
                        if task.await.is_err() {
                            cancelled.fetch_add(1, Ordering::Relaxed);
                        }
                    } else {
                        task.await.unwrap().unwrap();
                        // A completed increment: read it back to raise the floor.
                        let got = read(&*c, key("U#1", &format!("HOT{k}"))).await;
                        floors[k].fetch_max(n_of(&got.unwrap()), Ordering::SeqCst);
                    }
                }
            })
        })
        .collect();
    let readers: Vec<_> = (0..4)
        .map(|_| {
            let (c, floors, stop, violations) =
                (c.clone(), floors.clone(), stop.clone(), violations.clone());
            tokio::spawn(async move {
                let mut k = 0;
                while !stop.load(Ordering::Relaxed) && std::time::Instant::now() < deadline {
                    k = (k + 1) % HOT;
                    let floor = floors[k].load(Ordering::SeqCst);
                    let got = n_of(&read(&*c, key("U#1", &format!("HOT{k}"))).await.unwrap());
                    if got < floor {
                        violations.fetch_add(1, Ordering::Relaxed);
                    }
                    floors[k].fetch_max(got, Ordering::SeqCst);
                    tokio::task::yield_now().await;
                }
            })
        })
        .collect();
    for w in writers {
        w.await.unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    for r in readers {
        r.await.unwrap();
    }
    assert!(
        cancelled.load(Ordering::Relaxed) > 0,
        "no write was cancelled"
    );
    assert_eq!(
        violations.load(Ordering::Relaxed),
        0,
        "reads went back in time"
    );
    let before = c.inner().calls(Op::GetItem);
    for i in 0..8 {
        assert!(read(&*c, key("U#1", &format!("COLD{i}"))).await.is_some());
    }
    assert_eq!(
        c.inner().calls(Op::GetItem),
        before,
        "the cold keys are still served after {} cancelled writes",
        cancelled.load(Ordering::Relaxed)
    );
    for k in 0..HOT {
        let k = key("U#1", &format!("HOT{k}"));
        let truth = c
            .inner()
            .inner()
            .get_item(get(k.clone()))
            .await
            .unwrap()
            .item;
        let cached = read(&*c, k).await;
        assert_eq!(
            cached.as_deref(),
            truth.as_deref(),
            "the cache agrees with the table"
        );
    }
}
