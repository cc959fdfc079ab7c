//! CachedStore memory and metrics: the byte budget holds under a re-insert soak, evictions are
//! counted by cause, and every counter has its exact value in a deterministic scenario.

use crate::cache_util::*;
use dyno_cache::{CacheMetrics, Evictions};
use dyno_core::store::{ReturnValues, Store};
use dyno_tests::fault::Op;

#[tokio::test]
async fn weighted_size_stays_within_the_byte_budget_under_a_reinsert_soak() {
    const BUDGET: u64 = 256 * 1024;
    let (c, _) = cached_with(|b| b.item_capacity_bytes(BUDGET).query_capacity_bytes(BUDGET)).await;
    let payload = "x".repeat(2000);
    // 400 keys of ~2 KB: about three times the budget, written again and again.
    for round in 0..8 {
        let version = round.to_string();
        for i in 0..400 {
            let it = item(
                "U#1",
                &format!("K{i:03}"),
                &[("payload", &payload), ("round", &version)],
            );
            write(&c, it).await;
        }
        c.run_pending_tasks().await;
        let m = c.metrics();
        assert!(
            m.item.current_bytes <= BUDGET,
            "round {round}: {} bytes cached",
            m.item.current_bytes
        );
        assert!(m.item.entries > 0);
    }
    // Whatever survived is the latest round, and what did not is loaded correctly.
    for i in 0..400 {
        let got = read(&c, key("U#1", &format!("K{i:03}"))).await.unwrap();
        assert_eq!(attr(&got, "round").as_deref(), Some("7"));
    }
    c.run_pending_tasks().await;
    let m = c.metrics();
    assert!(m.item.current_bytes <= BUDGET);
    assert!(
        m.item.evictions.size > 0,
        "the budget forced evictions: {m:?}"
    );
    assert!(m.item.evicted_bytes > 0);
    // Every read was either served from the cache or loaded from the store. Which entries are
    // still cached when a read arrives depends on moka's admission policy (each miss inserts and
    // may evict a survivor), so only the totals are exact; `entries > 0` after every round above
    // shows that the budget keeps entries rather than dropping everything.
    assert_eq!(m.item.hits + m.item.misses, 400, "{m:?}");
    assert!(m.item.loads > 0, "evicted entries were loaded again: {m:?}");
}

#[tokio::test]
async fn query_pages_are_held_to_their_own_budget() {
    const BUDGET: u64 = 64 * 1024;
    let (c, _) = cached_with(|b| b.query_capacity_bytes(BUDGET)).await;
    let payload = "y".repeat(3000);
    for p in 0..60 {
        write(&c, item(&format!("U#{p}"), "A", &[("payload", &payload)])).await;
        c.query(partition(&format!("U#{p}"))).await.unwrap();
    }
    c.run_pending_tasks().await;
    let m = c.metrics();
    assert!(
        m.query.current_bytes <= BUDGET,
        "{} bytes of pages",
        m.query.current_bytes
    );
    assert!(m.query.evictions.size > 0);
}

#[tokio::test]
async fn every_counter_has_its_exact_value_in_a_deterministic_scenario() {
    let (c, clock) = cached_with(|b| b.item_ttl(60 * SECOND).negative_ttl(600 * SECOND)).await;
    // put A: one write-through; generations of the table partition and the table scan.
    write(&c, item("U#1", "A", &[("v", "1")])).await;
    // get A: hit.
    c.get_item(get(key("U#1", "A"))).await.unwrap();
    // get B twice: a miss with one load (a tombstone), then a negative hit.
    c.get_item(get(key("U#1", "B"))).await.unwrap();
    c.get_item(get(key("U#1", "B"))).await.unwrap();
    // query U#1 twice: a miss with one load, then a hit.
    c.query(partition("U#1")).await.unwrap();
    c.query(partition("U#1")).await.unwrap();
    // update A asking for old values: A is invalidated (explicitly, while fresh); 2 generations.
    let mut u = set(key("U#1", "A"), &[("v", "2")]);
    u.return_values = ReturnValues::AllOld;
    c.update_item(u).await.unwrap();
    // put C twice: two write-throughs, the second replacing a fresh entry; 4 generations.
    write(&c, item("U#1", "C", &[("v", "1")])).await;
    write(&c, item("U#1", "C", &[("v", "1")])).await;
    // 61s later C has expired: a miss, a load, and the refill replaces an expired entry.
    clock.advance(61 * SECOND);
    c.get_item(get(key("U#1", "C"))).await.unwrap();
    c.run_pending_tasks().await;

    let m = c.metrics();
    let item_bytes = m.item.current_bytes;
    let evicted = m.item.evicted_bytes;
    let page_bytes = m.query.current_bytes;
    assert!(evicted > 0 && item_bytes > evicted, "{m:?}");
    assert!(page_bytes > 0);
    let want = CacheMetrics {
        item: dyno_cache::TierMetrics {
            hits: 1,
            negative_hits: 1,
            misses: 2,
            loads: 2,
            bypasses: 0,
            evictions: Evictions {
                size: 0,
                expired: 1,
                replaced: 1,
                explicit: 1,
            },
            evicted_bytes: evicted,
            current_bytes: item_bytes,
            entries: 2, // B's tombstone and C
        },
        query: dyno_cache::TierMetrics {
            hits: 1,
            negative_hits: 0,
            misses: 1,
            loads: 1,
            bypasses: 0,
            // The page went stale by generation, not by removal: it is still held.
            evictions: Evictions::default(),
            evicted_bytes: 0,
            current_bytes: page_bytes,
            entries: 1,
        },
        coalesced_waiters: 0,
        write_through_updates: 3,
        invalidations: 1,
        generation_bumps: 8,
        rejected_stale_fills: 0,
    };
    assert_eq!(m, want);
    assert_eq!(c.inner().calls(Op::GetItem), 2);
    assert_eq!(c.inner().calls(Op::Query), 1);
}

#[tokio::test]
async fn the_same_item_weighs_the_same_and_a_bigger_item_weighs_more() {
    let (c, _) = cached().await;
    write(&c, item("U#1", "A", &[("v", "small")])).await;
    c.run_pending_tasks().await;
    let small = c.metrics().item.current_bytes;
    write(&c, item("U#1", "A", &[("v", "small")])).await;
    c.run_pending_tasks().await;
    assert_eq!(
        c.metrics().item.current_bytes,
        small,
        "a re-insert does not grow the cache"
    );
    let big = "z".repeat(10_000);
    write(&c, item("U#1", "A", &[("v", &big)])).await;
    c.run_pending_tasks().await;
    assert_eq!(
        c.metrics().item.current_bytes,
        small + 10_000 - "small".len() as u64
    );
}
