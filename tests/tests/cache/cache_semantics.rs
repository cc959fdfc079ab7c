//! CachedStore semantics, one test per guarantee: what reads hit, what writes do to the item and
//! query caches, how failures are handled, and how TTLs apply. Backend calls are counted by the
//! FaultStore under the cache; time moves on the cache's ManualClock, never by sleeping.

use std::sync::Arc;
use std::time::Duration;

use crate::cache_util::*;
use dyno_cache::{Clock, Image};
use dyno_core::expr::{Condition, Path};
use dyno_core::store::{
    BatchGetRequest, BatchWriteRequest, ReturnValues, ScanRequest, Store, TableKey,
    TransactGetItem, TransactGetRequest, TransactWriteItem, TransactWriteRequest, WriteRequest,
};
use dyno_core::{AttributeValue, Error, Item};
use dyno_tests::fault::{self, Op, Pick};

#[tokio::test]
async fn get_loads_once_then_hits() {
    let (c, _) = cached().await;
    c.inner()
        .inner()
        .put_item(put(item("U#1", "P", &[("name", "Ann")])))
        .await
        .unwrap();
    let first = read(&c, key("U#1", "P")).await.unwrap();
    let second = read(&c, key("U#1", "P")).await.unwrap();
    assert_eq!(attr(&first, "name").as_deref(), Some("Ann"));
    assert!(
        Arc::ptr_eq(&first, &second),
        "a hit hands out the cached Arc, not a copy"
    );
    assert_eq!(c.inner().calls(Op::GetItem), 1);
    let m = c.metrics();
    assert_eq!((m.item.misses, m.item.loads, m.item.hits), (1, 1, 1));
}

#[tokio::test]
async fn put_then_get_reads_the_write_without_a_backend_call() {
    let (c, _) = cached().await;
    write(&c, item("U#1", "P", &[("name", "Ann")])).await;
    let got = read(&c, key("U#1", "P")).await.unwrap();
    assert_eq!(attr(&got, "name").as_deref(), Some("Ann"));
    assert_eq!(c.inner().calls(Op::GetItem), 0);
}

#[tokio::test]
async fn put_asks_for_all_old_but_returns_only_what_the_caller_asked() {
    let (c, _) = cached().await;
    write(&c, item("U#1", "P", &[("v", "1")])).await;
    let out = write(&c, item("U#1", "P", &[("v", "2")])).await;
    assert_eq!(out.attributes, None, "the caller asked for nothing");
    let mut asked = put(item("U#1", "P", &[("v", "3")]));
    asked.return_values = ReturnValues::AllOld;
    let out = c.put_item(asked).await.unwrap();
    assert_eq!(
        out.attributes
            .as_ref()
            .and_then(|a| attr(a, "v"))
            .as_deref(),
        Some("2")
    );
}

#[tokio::test]
async fn update_caches_the_new_image_and_returns_what_was_asked() {
    let (c, _) = cached().await;
    write(&c, item("U#1", "P", &[("name", "Ann"), ("city", "Oslo")])).await;
    let out = c
        .update_item(set(key("U#1", "P"), &[("city", "Rome")]))
        .await
        .unwrap();
    assert_eq!(
        out.attributes, None,
        "ALL_NEW was asked of the backend, not given to the caller"
    );
    let got = read(&c, key("U#1", "P")).await.unwrap();
    assert_eq!(attr(&got, "city").as_deref(), Some("Rome"));
    assert_eq!(attr(&got, "name").as_deref(), Some("Ann"));
    let mut asked = set(key("U#1", "P"), &[("city", "Bern")]);
    asked.return_values = ReturnValues::AllNew;
    let out = c.update_item(asked).await.unwrap();
    assert_eq!(
        out.attributes
            .as_ref()
            .and_then(|a| attr(a, "city"))
            .as_deref(),
        Some("Bern")
    );
    let got = read(&c, key("U#1", "P")).await.unwrap();
    assert_eq!(attr(&got, "city").as_deref(), Some("Bern"));
    assert_eq!(c.inner().calls(Op::GetItem), 0);
}

#[tokio::test]
async fn update_asking_for_old_values_invalidates_and_the_next_get_loads_the_new_state() {
    let (c, _) = cached().await;
    write(&c, item("U#1", "P", &[("city", "Oslo")])).await;
    let mut asked = set(key("U#1", "P"), &[("city", "Rome")]);
    asked.return_values = ReturnValues::AllOld;
    let out = c.update_item(asked).await.unwrap();
    assert_eq!(
        out.attributes
            .as_ref()
            .and_then(|a| attr(a, "city"))
            .as_deref(),
        Some("Oslo")
    );
    let got = read(&c, key("U#1", "P")).await.unwrap();
    assert_eq!(attr(&got, "city").as_deref(), Some("Rome"));
    assert_eq!(c.inner().calls(Op::GetItem), 1);
    assert_eq!(c.metrics().invalidations, 1);
}

#[tokio::test]
async fn delete_caches_a_tombstone() {
    let (c, _) = cached().await;
    write(&c, item("U#1", "P", &[])).await;
    c.delete_item(delete(key("U#1", "P"))).await.unwrap();
    assert!(read(&c, key("U#1", "P")).await.is_none());
    assert_eq!(c.inner().calls(Op::GetItem), 0);
    assert_eq!(c.metrics().item.negative_hits, 1);
}

#[tokio::test]
async fn batch_write_caches_processed_writes_and_invalidates_unprocessed_ones() {
    let (c, _) = cached().await;
    // Old images of keys 0..6 in the cache.
    for i in 0..6 {
        write(&c, item("U#1", &format!("K{i}"), &[("v", "old")])).await;
    }
    // Every 2nd write comes back unprocessed (K1, K3, K5) and is not applied.
    c.inner().unprocessed_writes(Pick::EveryNth(2), Some(1));
    let writes = (0..6)
        .map(|i| WriteRequest::put(TABLE, item("U#1", &format!("K{i}"), &[("v", "new")])))
        .collect();
    let out = c.batch_write(BatchWriteRequest::new(writes)).await.unwrap();
    assert_eq!(out.unprocessed.len(), 3);
    for i in [0, 2, 4] {
        let got = read(&c, key("U#1", &format!("K{i}"))).await.unwrap();
        assert_eq!(attr(&got, "v").as_deref(), Some("new"));
    }
    assert_eq!(
        c.inner().calls(Op::GetItem),
        0,
        "processed writes are read from the cache"
    );
    for i in [1, 3, 5] {
        let got = read(&c, key("U#1", &format!("K{i}"))).await.unwrap();
        assert_eq!(
            attr(&got, "v").as_deref(),
            Some("old"),
            "an unprocessed write is not cached"
        );
    }
    assert_eq!(
        c.inner().calls(Op::GetItem),
        3,
        "unprocessed keys were invalidated"
    );
}

#[tokio::test]
async fn batch_write_deletes_leave_tombstones() {
    let (c, _) = cached().await;
    write(&c, item("U#1", "A", &[])).await;
    let writes = vec![WriteRequest::delete(TABLE, key("U#1", "A"))];
    c.batch_write(BatchWriteRequest::new(writes)).await.unwrap();
    assert!(read(&c, key("U#1", "A")).await.is_none());
    assert_eq!(c.inner().calls(Op::GetItem), 0);
}

#[tokio::test]
async fn transaction_writes_install_puts_and_deletes_and_invalidate_updates() {
    let (c, _) = cached().await;
    for sk in ["A", "B", "C"] {
        write(&c, item("U#1", sk, &[("v", "old")])).await;
    }
    let u = set(key("U#1", "C"), &[("v", "new")]);
    let actions = vec![
        TransactWriteItem::put(TABLE, item("U#1", "A", &[("v", "new")])),
        TransactWriteItem::delete(TABLE, key("U#1", "B")),
        TransactWriteItem::update(TABLE, u.key, u.update),
    ];
    c.transact_write(TransactWriteRequest::new(actions))
        .await
        .unwrap();
    let a = read(&c, key("U#1", "A")).await.unwrap();
    assert_eq!(attr(&a, "v").as_deref(), Some("new"));
    assert!(read(&c, key("U#1", "B")).await.is_none());
    assert_eq!(c.inner().calls(Op::GetItem), 0);
    // A transactional update returns no image: its key was invalidated, and is loaded fresh.
    let cc = read(&c, key("U#1", "C")).await.unwrap();
    assert_eq!(attr(&cc, "v").as_deref(), Some("new"));
    assert_eq!(c.inner().calls(Op::GetItem), 1);
}

#[tokio::test]
async fn batch_get_uses_the_item_cache_and_fills_misses_and_tombstones() {
    let (c, _) = cached().await;
    write(&c, item("U#1", "A", &[])).await;
    c.inner()
        .inner()
        .put_item(put(item("U#1", "B", &[])))
        .await
        .unwrap();
    let keys = ["A", "B", "C"]
        .map(|sk| TableKey {
            table: TABLE.into(),
            key: key("U#1", sk),
        })
        .to_vec();
    let out = c
        .batch_get(BatchGetRequest::new(keys.clone()))
        .await
        .unwrap();
    assert_eq!(out.items.len(), 2);
    assert_eq!(c.inner().calls(Op::BatchGet), 1);
    let m = c.metrics();
    assert_eq!(
        (m.item.hits, m.item.misses),
        (1, 2),
        "A from the cache, B and C loaded"
    );
    // Now all three are cached: B as an item, C as a tombstone.
    let out = c.batch_get(BatchGetRequest::new(keys)).await.unwrap();
    assert_eq!(out.items.len(), 2);
    assert_eq!(c.inner().calls(Op::BatchGet), 1);
    assert!(read(&c, key("U#1", "C")).await.is_none());
    assert_eq!(c.inner().calls(Op::GetItem), 0);
}

#[tokio::test]
async fn batch_get_does_not_cache_unprocessed_keys() {
    let (c, _) = cached().await;
    c.inner()
        .inner()
        .put_item(put(item("U#1", "A", &[])))
        .await
        .unwrap();
    c.inner().unprocessed_keys(Pick::All, Some(1));
    let keys = vec![TableKey {
        table: TABLE.into(),
        key: key("U#1", "A"),
    }];
    let out = c.batch_get(BatchGetRequest::new(keys)).await.unwrap();
    assert_eq!(out.unprocessed_keys.len(), 1);
    // Not cached as missing: the next get reads the backend and finds it.
    assert!(read(&c, key("U#1", "A")).await.is_some());
    assert_eq!(c.inner().calls(Op::GetItem), 1);
}

#[tokio::test]
async fn query_pages_are_cached_per_full_request() {
    let (c, _) = cached().await;
    for sk in ["A", "B", "C"] {
        write(&c, item("U#1", sk, &[("v", sk)])).await;
    }
    let first = c.query(partition("U#1")).await.unwrap();
    let again = c.query(partition("U#1")).await.unwrap();
    assert_eq!(sks(&first), ["A", "B", "C"]);
    assert_eq!(sks(&again), sks(&first));
    assert_eq!(c.inner().calls(Op::Query), 1);
    // Every other field makes another request: limit, start key, projection, filter, order.
    let mut limited = partition("U#1");
    limited.limit = Some(1);
    let page1 = c.query(limited.clone()).await.unwrap();
    assert_eq!(sks(&page1), ["A"]);
    let mut next = limited.clone();
    next.exclusive_start_key = page1.last_evaluated_key.clone();
    assert_eq!(sks(&c.query(next.clone()).await.unwrap()), ["B"]);
    let mut projected = partition("U#1");
    projected.projection = Some(vec![Path::attr("PK"), Path::attr("SK")]);
    assert!(c
        .query(projected)
        .await
        .unwrap()
        .items
        .iter()
        .all(|i| !i.contains_key("v")));
    let mut filtered = partition("U#1");
    filtered.filter = Some(Condition::eq("v", s("B")));
    assert_eq!(sks(&c.query(filtered).await.unwrap()), ["B"]);
    let mut backwards = partition("U#1");
    backwards.scan_forward = false;
    assert_eq!(sks(&c.query(backwards).await.unwrap()), ["C", "B", "A"]);
    assert_eq!(c.inner().calls(Op::Query), 6);
    // ... and each of them is now cached.
    assert_eq!(sks(&c.query(next).await.unwrap()), ["B"]);
    assert_eq!(c.inner().calls(Op::Query), 6);
}

/// A store whose reply is ready when the call is made (MemoryStore's, and a metering wrapper's
/// over it) is still called on a miss only: the cache makes its backend call when it needs the
/// answer, not when it builds the future.
#[tokio::test]
async fn a_store_that_answers_at_once_is_not_called_on_a_hit() {
    use dyno_core::cost::{Metered, Operation};
    let metered = Metered::new(dyno_core::MemoryStore::new());
    metered.create_table(&table()).await.unwrap();
    let c = dyno_cache::CachedStore::builder(metered)
        .replica_lag(Duration::ZERO)
        .table(table())
        .build();
    write(&c, item("U#1", "A", &[])).await;
    for _ in 0..3 {
        assert_eq!(sks(&c.query(partition("U#1")).await.unwrap()), ["A"]);
        assert_eq!(c.scan(ScanRequest::new(TABLE)).await.unwrap().count, 1);
        assert!(read(&c, key("U#1", "A")).await.is_some());
    }
    let report = c.inner().report();
    let calls = |op: Operation| {
        report
            .patterns
            .iter()
            .filter(|p| p.operation == op)
            .map(|p| p.calls)
            .sum::<u64>()
    };
    assert_eq!(calls(Operation::Query), 1, "{report:?}");
    assert_eq!(calls(Operation::Scan), 1, "{report:?}");
    // The put went through the cache: the gets are hits.
    assert_eq!(calls(Operation::Get), 0, "{report:?}");
}

#[tokio::test]
async fn a_write_invalidates_pages_of_its_partition_only() {
    let (c, _) = cached().await;
    write(&c, item("U#1", "A", &[])).await;
    write(&c, item("U#2", "A", &[])).await;
    c.query(partition("U#1")).await.unwrap();
    c.query(partition("U#2")).await.unwrap();
    assert_eq!(c.inner().calls(Op::Query), 2);
    write(&c, item("U#1", "B", &[])).await;
    assert_eq!(
        sks(&c.query(partition("U#1")).await.unwrap()),
        ["A", "B"],
        "the new item is seen"
    );
    assert_eq!(c.inner().calls(Op::Query), 3);
    c.query(partition("U#2")).await.unwrap();
    assert_eq!(
        c.inner().calls(Op::Query),
        3,
        "another partition's page stays cached"
    );
}

#[tokio::test]
async fn an_update_moving_an_item_between_gsi_partitions_invalidates_both() {
    let (c, _) = cached().await;
    write(
        &c,
        item("U#1", "O#1", &[("GSI1PK", "STATUS#new"), ("GSI1SK", "1")]),
    )
    .await;
    write(
        &c,
        item(
            "U#1",
            "O#2",
            &[("GSI1PK", "STATUS#shipped"), ("GSI1SK", "2")],
        ),
    )
    .await;
    write(
        &c,
        item("U#1", "O#3", &[("GSI1PK", "STATUS#lost"), ("GSI1SK", "3")]),
    )
    .await;
    for status in ["new", "shipped", "lost"] {
        c.query(gsi1(&format!("STATUS#{status}"))).await.unwrap();
    }
    assert_eq!(c.inner().calls(Op::Query), 3);
    // No ReturnValues from the caller: the cache asks ALL_NEW and has the old image cached.
    c.update_item(set(key("U#1", "O#1"), &[("GSI1PK", "STATUS#shipped")]))
        .await
        .unwrap();
    assert!(
        c.query(gsi1("STATUS#new")).await.unwrap().items.is_empty(),
        "old partition refreshed"
    );
    assert_eq!(
        sks(&c.query(gsi1("STATUS#shipped")).await.unwrap()),
        ["O#1", "O#2"],
        "new partition refreshed"
    );
    assert_eq!(c.inner().calls(Op::Query), 5);
    c.query(gsi1("STATUS#lost")).await.unwrap();
    assert_eq!(
        c.inner().calls(Op::Query),
        5,
        "an unrelated GSI partition stays cached"
    );
}

#[tokio::test]
async fn a_gsi_move_with_no_known_old_image_invalidates_the_whole_index() {
    let (c, _) = cached().await;
    // Written behind the cache's back: the cache has no old image of O#1.
    let inner = c.inner().inner();
    write(
        inner,
        item("U#1", "O#1", &[("GSI1PK", "STATUS#new"), ("GSI1SK", "1")]),
    )
    .await;
    c.query(gsi1("STATUS#new")).await.unwrap();
    c.update_item(set(key("U#1", "O#1"), &[("GSI1PK", "STATUS#shipped")]))
        .await
        .unwrap();
    assert!(c.query(gsi1("STATUS#new")).await.unwrap().items.is_empty());
    assert_eq!(c.inner().calls(Op::Query), 2);
}

#[tokio::test]
async fn scan_pages_are_invalidated_by_any_write_to_the_table() {
    let (c, _) = cached().await;
    write(&c, item("U#1", "A", &[])).await;
    let scan = ScanRequest::new(TABLE);
    assert_eq!(c.scan(scan.clone()).await.unwrap().items.len(), 1);
    assert_eq!(c.scan(scan.clone()).await.unwrap().items.len(), 1);
    assert_eq!(c.inner().calls(Op::Scan), 1);
    write(&c, item("U#9", "Z", &[])).await;
    assert_eq!(c.scan(scan).await.unwrap().items.len(), 2);
    assert_eq!(c.inner().calls(Op::Scan), 2);
}

#[tokio::test]
async fn a_failed_write_changes_nothing() {
    let (c, _) = cached().await;
    write(&c, item("U#1", "A", &[("v", "1")])).await;
    c.query(partition("U#1")).await.unwrap();
    let before = c.metrics();
    c.inner().throttle_next(Op::PutItem, 1);
    c.inner().fail_next(Op::UpdateItem, 1, fault::service_error);
    c.inner()
        .fail_next(Op::DeleteItem, 1, || Error::validation("no"));
    assert!(c
        .put_item(put(item("U#1", "A", &[("v", "2")])))
        .await
        .unwrap_err()
        .is_throttled());
    assert!(c
        .update_item(set(key("U#1", "A"), &[("v", "3")]))
        .await
        .is_err());
    assert!(c.delete_item(delete(key("U#1", "A"))).await.is_err());
    let got = read(&c, key("U#1", "A")).await.unwrap();
    assert_eq!(attr(&got, "v").as_deref(), Some("1"));
    c.query(partition("U#1")).await.unwrap();
    assert_eq!(
        (c.inner().calls(Op::GetItem), c.inner().calls(Op::Query)),
        (0, 1)
    );
    let after = c.metrics();
    assert_eq!(after.invalidations, before.invalidations);
    assert_eq!(after.generation_bumps, before.generation_bumps);
    assert_eq!(after.write_through_updates, before.write_through_updates);
}

#[tokio::test]
async fn a_condition_failure_installs_the_item_it_returns() {
    let (c, _) = cached().await;
    write(&c, item("U#1", "A", &[("v", "cached")])).await;
    // Another writer changes it behind the cache.
    c.inner()
        .inner()
        .put_item(put(item("U#1", "A", &[("v", "theirs")])))
        .await
        .unwrap();
    let err = c
        .put_item(put_if_absent(item("U#1", "A", &[("v", "mine")])))
        .await
        .unwrap_err();
    match err {
        Error::ConditionFailed { item, .. } => {
            assert_eq!(item, None, "the caller did not ask for the item")
        }
        other => panic!("expected a condition failure, got {other}"),
    }
    let got = read(&c, key("U#1", "A")).await.unwrap();
    assert_eq!(
        attr(&got, "v").as_deref(),
        Some("theirs"),
        "the returned item replaced the stale one"
    );
    assert_eq!(c.inner().calls(Op::GetItem), 0);
    // A caller who asked gets it.
    let mut asked = put_if_absent(item("U#1", "A", &[]));
    asked.return_old_on_condition_failure = true;
    match c.put_item(asked).await.unwrap_err() {
        Error::ConditionFailed {
            item: Some(old), ..
        } => assert_eq!(attr(&old, "v").as_deref(), Some("theirs")),
        other => panic!("expected a condition failure with the item, got {other}"),
    }
}

#[tokio::test]
async fn an_unknown_outcome_invalidates_the_key_and_its_partitions() {
    let (c, _) = cached().await;
    write(&c, item("U#1", "A", &[("v", "1")])).await;
    c.query(partition("U#1")).await.unwrap();
    // The write is applied, but the response is lost.
    c.inner()
        .fail_next_after(Op::PutItem, 1, fault::outcome_unknown);
    let err = c
        .put_item(put(item("U#1", "A", &[("v", "2")])))
        .await
        .unwrap_err();
    assert!(err.is_outcome_unknown());
    let got = read(&c, key("U#1", "A")).await.unwrap();
    assert_eq!(attr(&got, "v").as_deref(), Some("2"));
    assert_eq!(
        c.inner().calls(Op::GetItem),
        1,
        "the key was invalidated, not kept"
    );
    let page = c.query(partition("U#1")).await.unwrap();
    assert_eq!(attr(&page.items[0], "v").as_deref(), Some("2"));
    assert_eq!(
        c.inner().calls(Op::Query),
        2,
        "the partition's pages were invalidated"
    );
}

#[tokio::test]
async fn an_unknown_outcome_that_did_not_apply_still_leaves_no_wrong_entry() {
    let (c, _) = cached().await;
    write(&c, item("U#1", "A", &[("v", "1")])).await;
    c.inner()
        .fail_next(Op::UpdateItem, 1, fault::outcome_unknown);
    assert!(c
        .update_item(set(key("U#1", "A"), &[("v", "2")]))
        .await
        .unwrap_err()
        .is_outcome_unknown());
    let got = read(&c, key("U#1", "A")).await.unwrap();
    assert_eq!(attr(&got, "v").as_deref(), Some("1"));
    assert_eq!(c.inner().calls(Op::GetItem), 1);
}

#[tokio::test]
async fn a_cancelled_transaction_invalidates_its_keys() {
    let (c, _) = cached().await;
    write(&c, item("U#1", "A", &[("v", "1")])).await;
    write(&c, item("U#1", "B", &[("v", "1")])).await;
    let actions = vec![
        TransactWriteItem::put(TABLE, item("U#1", "A", &[("v", "2")])),
        TransactWriteItem::condition_check(TABLE, key("U#1", "B"), Condition::not_exists("PK")),
    ];
    let err = c
        .transact_write(TransactWriteRequest::new(actions))
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::TransactionCanceled { .. }),
        "got {err}"
    );
    let a = read(&c, key("U#1", "A")).await.unwrap();
    assert_eq!(attr(&a, "v").as_deref(), Some("1"), "nothing was applied");
    c.get_item(get(key("U#1", "B"))).await.unwrap();
    assert_eq!(
        c.inner().calls(Op::GetItem),
        2,
        "both keys were invalidated"
    );
}

#[tokio::test]
async fn strongly_consistent_reads_go_to_the_backend_and_refresh_the_cache() {
    let (c, _) = cached().await;
    write(&c, item("U#1", "A", &[("v", "1")])).await;
    c.inner()
        .inner()
        .put_item(put(item("U#1", "A", &[("v", "2")])))
        .await
        .unwrap();
    let cached_v = read(&c, key("U#1", "A")).await.unwrap();
    assert_eq!(
        attr(&cached_v, "v").as_deref(),
        Some("1"),
        "eventual reads may be stale up to the TTL"
    );
    let fresh = c
        .get_item(consistent_get(key("U#1", "A")))
        .await
        .unwrap()
        .item
        .unwrap();
    assert_eq!(attr(&fresh, "v").as_deref(), Some("2"));
    assert_eq!(c.inner().calls(Op::GetItem), 1);
    let after = read(&c, key("U#1", "A")).await.unwrap();
    assert_eq!(
        attr(&after, "v").as_deref(),
        Some("2"),
        "the consistent read refreshed the entry"
    );
    assert_eq!(c.inner().calls(Op::GetItem), 1);
    // Consistent queries bypass too.
    c.query(partition("U#1")).await.unwrap();
    let mut consistent = partition("U#1");
    consistent.consistent_read = true;
    c.query(consistent).await.unwrap();
    assert_eq!(c.inner().calls(Op::Query), 2);
}

#[tokio::test]
async fn transactional_reads_go_to_the_backend_and_refresh_the_cache() {
    let (c, _) = cached().await;
    write(&c, item("U#1", "A", &[("v", "1")])).await;
    c.inner()
        .inner()
        .put_item(put(item("U#1", "A", &[("v", "2")])))
        .await
        .unwrap();
    let gets = vec![
        TransactGetItem::new(TABLE, key("U#1", "A")),
        TransactGetItem::new(TABLE, key("U#1", "missing")),
    ];
    let out = c.transact_get(TransactGetRequest::new(gets)).await.unwrap();
    assert_eq!(
        attr(out.items[0].as_ref().unwrap(), "v").as_deref(),
        Some("2")
    );
    assert!(out.items[1].is_none());
    let after = read(&c, key("U#1", "A")).await.unwrap();
    assert_eq!(attr(&after, "v").as_deref(), Some("2"));
    assert!(read(&c, key("U#1", "missing")).await.is_none());
    assert_eq!(c.inner().calls(Op::GetItem), 0);
    assert_eq!(c.inner().calls(Op::TransactGet), 1);
}

#[tokio::test]
async fn projected_gets_are_answered_from_the_whole_cached_item() {
    let (c, _) = cached().await;
    write(&c, item("U#1", "A", &[("name", "Ann"), ("city", "Oslo")])).await;
    let mut req = get(key("U#1", "A"));
    req.projection = Some(vec![Path::attr("name")]);
    let got = c.get_item(req).await.unwrap().item.unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(attr(&got, "name").as_deref(), Some("Ann"));
    assert_eq!(c.inner().calls(Op::GetItem), 0);
    // A nested path is left to the backend.
    let mut nested = get(key("U#1", "A"));
    nested.projection = Some(vec![Path::attr("name").index(0)]);
    let _ = c.get_item(nested).await;
    assert_eq!(c.inner().calls(Op::GetItem), 1);
}

#[tokio::test]
async fn missing_items_are_cached_for_the_negative_ttl() {
    let (c, clock) = cached_with(|b| b.negative_ttl(10 * SECOND).item_ttl(300 * SECOND)).await;
    assert!(read(&c, key("U#1", "A")).await.is_none());
    clock.advance(9 * SECOND);
    assert!(read(&c, key("U#1", "A")).await.is_none());
    assert_eq!(c.inner().calls(Op::GetItem), 1);
    assert_eq!(c.metrics().item.negative_hits, 1);
    clock.advance(2 * SECOND);
    c.get_item(get(key("U#1", "A"))).await.unwrap();
    assert_eq!(
        c.inner().calls(Op::GetItem),
        2,
        "the tombstone expired after 10s, not 300s"
    );
}

#[tokio::test]
async fn negative_caching_can_be_turned_off() {
    let (c, _) = cached_with(|b| b.negative_ttl(Duration::ZERO)).await;
    c.get_item(get(key("U#1", "A"))).await.unwrap();
    c.get_item(get(key("U#1", "A"))).await.unwrap();
    assert_eq!(c.inner().calls(Op::GetItem), 2);
}

#[tokio::test]
async fn any_write_replaces_a_tombstone() {
    let (c, _) = cached().await;
    for sk in ["A", "B"] {
        assert!(read(&c, key("U#1", sk)).await.is_none());
    }
    write(&c, item("U#1", "A", &[("v", "put")])).await;
    c.update_item(set(key("U#1", "B"), &[("v", "upserted")]))
        .await
        .unwrap();
    let a = read(&c, key("U#1", "A")).await.unwrap();
    let b = read(&c, key("U#1", "B")).await.unwrap();
    assert_eq!(attr(&a, "v").as_deref(), Some("put"));
    assert_eq!(attr(&b, "v").as_deref(), Some("upserted"));
    assert_eq!(c.inner().calls(Op::GetItem), 2, "only the two first misses");
}

#[tokio::test]
async fn item_and_query_ttls_expire_by_the_injected_clock() {
    let (c, clock) = cached_with(|b| b.item_ttl(60 * SECOND).query_ttl(5 * SECOND)).await;
    write(&c, item("U#1", "A", &[])).await;
    c.query(partition("U#1")).await.unwrap();
    clock.advance(4 * SECOND);
    c.query(partition("U#1")).await.unwrap();
    assert_eq!(c.inner().calls(Op::Query), 1);
    clock.advance(2 * SECOND);
    c.query(partition("U#1")).await.unwrap();
    assert_eq!(c.inner().calls(Op::Query), 2, "the page expired after 5s");
    c.get_item(get(key("U#1", "A"))).await.unwrap();
    assert_eq!(c.inner().calls(Op::GetItem), 0, "the item lives 60s");
    clock.advance(55 * SECOND);
    c.get_item(get(key("U#1", "A"))).await.unwrap();
    assert_eq!(
        c.inner().calls(Op::GetItem),
        1,
        "the item expired after 60s"
    );
}

#[tokio::test]
async fn per_entity_ttls_override_the_item_ttl_and_cap_query_pages() {
    let (c, clock) = cached_with(|b| {
        b.item_ttl(300 * SECOND)
            .query_ttl(300 * SECOND)
            .entity_ttl("Order", 10 * SECOND)
    })
    .await;
    write(&c, item("U#1", "O#1", &[("_type", "Order")])).await;
    write(&c, item("U#1", "PROFILE", &[("_type", "User")])).await;
    write(&c, item("U#2", "PROFILE", &[("_type", "User")])).await;
    c.query(partition("U#1")).await.unwrap();
    c.query(partition("U#2")).await.unwrap();
    clock.advance(11 * SECOND);
    c.get_item(get(key("U#1", "PROFILE"))).await.unwrap();
    assert_eq!(c.inner().calls(Op::GetItem), 0, "users live 300s");
    c.get_item(get(key("U#1", "O#1"))).await.unwrap();
    assert_eq!(c.inner().calls(Op::GetItem), 1, "orders live 10s");
    c.query(partition("U#2")).await.unwrap();
    assert_eq!(
        c.inner().calls(Op::Query),
        2,
        "a page of users only lives 300s"
    );
    c.query(partition("U#1")).await.unwrap();
    assert_eq!(
        c.inner().calls(Op::Query),
        3,
        "a page holding an order lives 10s"
    );
}

#[tokio::test]
async fn with_ttl_overrides_the_ttl_of_what_a_write_caches() {
    let (c, clock) = cached_with(|b| b.item_ttl(300 * SECOND)).await;
    c.with_ttl(5 * SECOND)
        .put_item(put(item("U#1", "short", &[])))
        .await
        .unwrap();
    write(&c, item("U#1", "normal", &[])).await;
    // The view is a Store: typed code takes it like any other.
    let view: &dyn Store = &c.with_ttl(5 * SECOND);
    view.update_item(set(key("U#1", "upd"), &[("v", "1")]))
        .await
        .unwrap();
    clock.advance(6 * SECOND);
    c.get_item(get(key("U#1", "normal"))).await.unwrap();
    assert_eq!(c.inner().calls(Op::GetItem), 0);
    c.get_item(get(key("U#1", "short"))).await.unwrap();
    c.get_item(get(key("U#1", "upd"))).await.unwrap();
    assert_eq!(
        c.inner().calls(Op::GetItem),
        2,
        "both short-lived entries expired"
    );
}

#[tokio::test]
async fn ttl_jitter_shortens_entries_within_its_bound() {
    let (c, clock) = cached_with(|b| b.item_ttl(100 * SECOND).ttl_jitter(0.5)).await;
    for i in 0..50 {
        write(&c, item("U#1", &format!("K{i}"), &[])).await;
    }
    clock.advance(49 * SECOND);
    for i in 0..50 {
        c.get_item(get(key("U#1", &format!("K{i}")))).await.unwrap();
    }
    assert_eq!(
        c.inner().calls(Op::GetItem),
        0,
        "no entry lives less than 50s"
    );
    clock.advance(51 * SECOND);
    // Reading every key again refills it; count how many had expired by 100s: all.
    for i in 0..50 {
        c.get_item(get(key("U#1", &format!("K{i}")))).await.unwrap();
    }
    assert_eq!(
        c.inner().calls(Op::GetItem),
        50,
        "no entry lives more than 100s"
    );
}

#[tokio::test]
async fn an_item_ttl_attribute_caps_its_cache_lifetime() {
    let (c, clock) = cached_with(|b| b.item_ttl(300 * SECOND)).await;
    let now = clock.now().as_secs();
    let mut it = item("U#1", "A", &[]);
    it.insert("ttl".into(), AttributeValue::N((now + 20).to_string()));
    write(&c, it).await;
    clock.advance(19 * SECOND);
    c.get_item(get(key("U#1", "A"))).await.unwrap();
    assert_eq!(c.inner().calls(Op::GetItem), 0);
    clock.advance(2 * SECOND);
    c.get_item(get(key("U#1", "A"))).await.unwrap();
    assert_eq!(
        c.inner().calls(Op::GetItem),
        1,
        "the entry expired with the item's own TTL"
    );
}

#[tokio::test]
async fn the_cache_works_behind_arc_dyn_store() {
    let (c, _) = cached().await;
    let store: Arc<dyn Store> = Arc::new(c);
    write(&store, item("U#1", "A", &[("v", "1")])).await;
    let got = read(&store, key("U#1", "A")).await.unwrap();
    assert_eq!(attr(&got, "v").as_deref(), Some("1"));
}

#[tokio::test]
async fn tables_are_described_once_when_not_registered() {
    let memory = dyno_core::MemoryStore::new();
    memory.create_table(&table()).await.unwrap();
    let c = dyno_cache::CachedStore::new(dyno_tests::fault::FaultStore::new(memory));
    for i in 0..3 {
        write(&c, item("U#1", &format!("K{i}"), &[])).await;
    }
    assert_eq!(c.inner().calls(Op::DescribeTable), 1);
    let got: Item = (*read(&c, key("U#1", "K0")).await.unwrap()).clone();
    assert_eq!(got, item("U#1", "K0", &[]));
    assert_eq!(c.inner().calls(Op::GetItem), 0);
}

#[tokio::test]
async fn apply_change_invalidates_like_a_local_write() {
    // The hook a DynamoDB Streams consumer calls for changes made by other processes.
    let (c, _) = cached().await;
    let old = item("U#1", "O#1", &[("GSI1PK", "STATUS#new"), ("GSI1SK", "1")]);
    write(&c, old.clone()).await;
    c.query(partition("U#1")).await.unwrap();
    c.query(gsi1("STATUS#new")).await.unwrap();
    c.query(gsi1("STATUS#lost")).await.unwrap();
    let new = item(
        "U#1",
        "O#1",
        &[("GSI1PK", "STATUS#shipped"), ("GSI1SK", "1")],
    );
    c.inner().inner().put_item(put(new.clone())).await.unwrap();
    c.apply_change(
        TABLE,
        &key("U#1", "O#1"),
        Image::Present(&old),
        Image::Present(&new),
    )
    .await
    .unwrap();
    let got = read(&c, key("U#1", "O#1")).await.unwrap();
    assert_eq!(attr(&got, "GSI1PK").as_deref(), Some("STATUS#shipped"));
    assert_eq!(
        c.inner().calls(Op::GetItem),
        1,
        "the entry was dropped and loaded again, although it held the record's old image \
         (see apply_change_never_goes_back_on_an_a_b_a_history)"
    );
    assert!(c.query(gsi1("STATUS#new")).await.unwrap().items.is_empty());
    c.query(partition("U#1")).await.unwrap();
    assert_eq!(
        c.inner().calls(Op::Query),
        5,
        "the item's partitions were reloaded"
    );
    c.query(gsi1("STATUS#lost")).await.unwrap();
    assert_eq!(
        c.inner().calls(Op::Query),
        5,
        "other partitions stay cached"
    );
}

#[tokio::test]
async fn apply_change_drops_an_entry_that_is_not_the_records_old_image() {
    let (c, _) = cached().await;
    let cached_image = item("U#1", "O#1", &[("v", "cached")]);
    write(&c, cached_image).await;
    let elsewhere = item("U#1", "O#1", &[("v", "elsewhere")]);
    let newest = item("U#1", "O#1", &[("v", "newest")]);
    c.inner()
        .inner()
        .put_item(put(newest.clone()))
        .await
        .unwrap();
    // A record whose old image is not what the cache holds: which is newer cannot be told.
    c.apply_change(
        TABLE,
        &key("U#1", "O#1"),
        Image::Present(&elsewhere),
        Image::Present(&newest),
    )
    .await
    .unwrap();
    let got = read(&c, key("U#1", "O#1")).await.unwrap();
    assert_eq!(attr(&got, "v").as_deref(), Some("newest"));
    assert_eq!(c.inner().calls(Op::GetItem), 1, "dropped, then loaded");
    // Unknown images (a KEYS_ONLY stream) drop the entry too.
    c.apply_change(TABLE, &key("U#1", "O#1"), Image::Unknown, Image::Unknown)
        .await
        .unwrap();
    read(&c, key("U#1", "O#1")).await.unwrap();
    assert_eq!(c.inner().calls(Op::GetItem), 2);
    // A delete whose old image is the cached one drops the entry too; the load then caches
    // the tombstone.
    c.inner()
        .inner()
        .delete_item(delete(key("U#1", "O#1")))
        .await
        .unwrap();
    c.apply_change(
        TABLE,
        &key("U#1", "O#1"),
        Image::Present(&newest),
        Image::Absent,
    )
    .await
    .unwrap();
    assert!(read(&c, key("U#1", "O#1")).await.is_none());
    assert!(read(&c, key("U#1", "O#1")).await.is_none());
    assert_eq!(
        c.inner().calls(Op::GetItem),
        3,
        "loaded once, then a tombstone"
    );
}

/// The item went `A -> B -> A` in the table; the cache filled the second `A`; then the record
/// of `A -> B` arrives (a follower lagging behind the fill). Replacing an entry that holds the
/// record's old image would serve `B`, older than the `A` a read already returned: the entry
/// is dropped instead, and the next read loads `A` again. (Failed before the fix: `B` served.)
#[tokio::test]
async fn apply_change_never_goes_back_on_an_a_b_a_history() {
    let (c, _) = cached().await;
    let a = item("U#1", "O#1", &[("status", "open")]);
    let b = item("U#1", "O#1", &[("status", "closed")]);
    for image in [&a, &b, &a] {
        c.inner()
            .inner()
            .put_item(put(image.clone()))
            .await
            .unwrap();
    }
    let first = read(&c, key("U#1", "O#1")).await.unwrap();
    assert_eq!(attr(&first, "status").as_deref(), Some("open"));
    // The records, in order: the first one late, the second one later still.
    let records = [(&a, &b), (&b, &a)];
    for (old, new) in records {
        c.apply_change(
            TABLE,
            &key("U#1", "O#1"),
            Image::Present(old),
            Image::Present(new),
        )
        .await
        .unwrap();
        let got = read(&c, key("U#1", "O#1")).await.unwrap();
        assert_eq!(
            attr(&got, "status").as_deref(),
            Some("open"),
            "a read went back to an older state after a record applied late"
        );
    }
    assert_eq!(
        c.inner().calls(Op::GetItem),
        3,
        "each record dropped the entry"
    );
}

#[tokio::test]
async fn invalidate_table_drops_that_tables_items_and_pages_and_no_other() {
    let memory = dyno_core::MemoryStore::new();
    let other = dyno_core::TableDef::new("Other", "PK", Some("SK"));
    memory.create_table(&table()).await.unwrap();
    memory.create_table(&other).await.unwrap();
    let c = dyno_cache::CachedStore::builder(dyno_tests::fault::FaultStore::new(memory))
        .table(table())
        .table(other)
        .build();
    write(&c, item("U#1", "A", &[])).await;
    let mut elsewhere = put(item("U#1", "A", &[]));
    elsewhere.table = "Other".into();
    c.put_item(elsewhere).await.unwrap();
    c.query(partition("U#1")).await.unwrap();
    c.query(gsi1("X")).await.unwrap();
    c.invalidate_table(TABLE).await.unwrap();
    read(&c, key("U#1", "A")).await.unwrap();
    c.query(partition("U#1")).await.unwrap();
    c.query(gsi1("X")).await.unwrap();
    assert_eq!(c.inner().calls(Op::GetItem), 1, "the item was reloaded");
    assert_eq!(c.inner().calls(Op::Query), 4, "both pages were reloaded");
    let mut other_get = get(key("U#1", "A"));
    other_get.table = "Other".into();
    assert!(c.get_item(other_get).await.unwrap().item.is_some());
    assert_eq!(
        c.inner().calls(Op::GetItem),
        1,
        "the other table stays cached"
    );
}

#[tokio::test]
async fn invalidate_partition_and_index_make_just_those_pages_unservable() {
    let (c, _) = cached().await;
    write(&c, item("U#1", "A", &[("GSI1PK", "X")])).await;
    for q in [partition("U#1"), partition("U#2"), gsi1("X"), gsi1("Y")] {
        c.query(q).await.unwrap();
    }
    c.invalidate_partition(TABLE, None, &s("U#1"));
    c.query(partition("U#1")).await.unwrap();
    c.query(partition("U#2")).await.unwrap();
    assert_eq!(c.inner().calls(Op::Query), 5, "only U#1 was reloaded");
    c.invalidate_index(TABLE, Some("GSI1"));
    c.query(gsi1("X")).await.unwrap();
    c.query(gsi1("Y")).await.unwrap();
    c.query(partition("U#2")).await.unwrap();
    assert_eq!(
        c.inner().calls(Op::Query),
        7,
        "every GSI1 page was reloaded"
    );
    assert_eq!(c.inner().calls(Op::GetItem), 0, "items are untouched");
    read(&c, key("U#1", "A")).await.unwrap();
    assert_eq!(c.inner().calls(Op::GetItem), 0);
    c.invalidate_item(TABLE, &key("U#1", "A")).await;
    read(&c, key("U#1", "A")).await.unwrap();
    assert_eq!(c.inner().calls(Op::GetItem), 1);
}

/// A cache over a counted MemoryStore holding the e-commerce model's table.
async fn model_cache(
) -> dyno_cache::CachedStore<dyno_tests::fault::FaultStore<dyno_core::MemoryStore>> {
    use dyno_tests::model::{ecommerce_table, TABLE as MODEL};
    let memory = dyno_core::MemoryStore::new();
    memory.create_table(&ecommerce_table(MODEL)).await.unwrap();
    dyno_cache::CachedStore::builder(dyno_tests::fault::FaultStore::new(memory))
        .table(ecommerce_table(MODEL))
        .build()
}

#[tokio::test]
async fn shared_typed_hits_hand_out_one_decoded_copy_charged_to_the_budget() {
    use dyno_core::ops::EntityExt;
    use dyno_tests::model::{Order, OrderStatus, Product, User};
    let c = model_cache().await;
    let product = Product {
        product_id: "p1".into(),
        name: "lamp".into(),
        category: "home".into(),
        price_cents: 1999,
        stock: 5,
    };
    product.put().send(&c).await.unwrap();
    let user = User {
        user_id: "p1".into(),
        name: "shares nothing but an id".into(),
        email: "u@example.com".into(),
    };
    user.put().send(&c).await.unwrap();
    c.run_pending_tasks().await;
    let bytes_before = c.metrics().item.current_bytes;
    let key = Product::key("p1").unwrap();
    let first = c.get_shared(&key).await.unwrap().expect("stored");
    assert_eq!(*first, product);
    c.run_pending_tasks().await;
    let bytes_after = c.metrics().item.current_bytes;
    assert!(
        bytes_after > bytes_before,
        "the decoded copy is charged: {bytes_before} -> {bytes_after}"
    );
    for _ in 0..3 {
        let again = c.get_shared(&key).await.unwrap().unwrap();
        assert!(Arc::ptr_eq(&first, &again), "a hit decodes nothing");
    }
    // Another entity of the same table, and the owned API, are unaffected.
    let u = c
        .get_shared(&User::key("p1").unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(*u, user);
    assert_eq!(
        Product::get(key.clone()).send(&c).await.unwrap(),
        Some(product.clone())
    );
    assert_eq!(c.inner().calls(Op::GetItem), 0, "every read was a hit");
    // A write through the cache replaces the entry, decoded copy included.
    Product::update(key.clone())
        .add(Path::attr("stock"), AttributeValue::N("1".into()))
        .send(&c)
        .await
        .unwrap();
    let updated = c.get_shared(&key).await.unwrap().unwrap();
    assert_eq!(updated.stock, 6);
    assert!(!Arc::ptr_eq(&first, &updated));
    assert!(Arc::ptr_eq(
        &updated,
        &c.get_shared(&key).await.unwrap().unwrap()
    ));
    // Absent items: None, from a tombstone after the first miss.
    let missing = Product::key("nope").unwrap();
    assert!(c.get_shared(&missing).await.unwrap().is_none());
    assert!(c.get_shared(&missing).await.unwrap().is_none());
    assert_eq!(c.inner().calls(Op::GetItem), 1);
    // An item whose TTL attribute has passed reads as absent, as with the owned get.
    let mut order = Order::new(
        "ann",
        "o1",
        OrderStatus::Pending,
        time::macros::date!(2024 - 01 - 01),
        rust_decimal::Decimal::new(100, 2),
    );
    // A minute ago (a time more than five years past would never expire, as in DynamoDB).
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    order.ttl = Some(now - 60);
    order.put().send(&c).await.unwrap();
    let okey = Order::key("ann", "o1").unwrap();
    assert!(c.get_shared(&okey).await.unwrap().is_none());
    assert_eq!(Order::get(okey).send(&c).await.unwrap(), None);
}
