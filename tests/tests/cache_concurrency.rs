//! CachedStore under concurrency: single flight (items and query pages), the stale-fill guard for items and query pages,
//! racing writes, cancelled loads. Interleavings are forced with FaultStore's pause barriers, so
//! every test is deterministic: no sleeps, no timing assumptions.

mod cache_util;

use std::sync::Arc;

use cache_util::*;
use dyno_core::store::{ReturnValues, Store};
use dyno_core::Error;
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
/// first write's state is followed by reads of the older one (the race issue #13 item 0 found).
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
