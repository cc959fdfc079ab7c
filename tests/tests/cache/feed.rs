//! Change feeds: MemoryStore's stream and DynamoDB Streams (moto, dynoxide) record every write
//! path in commit order with the images their view type asks for, resume from a checkpoint, and
//! report gaps. The model: the e-commerce table (users and their orders share a partition;
//! orders and products share the overloaded GSI1).
//!
//! Server deviations found (DynamoDB's documentation decides):
//! - dynoxide sets `EndingSequenceNumber` on its open shard (DynamoDB sets it only once a shard
//!   is closed), so `StreamsFeed` tells closed shards by their children instead;
//! - a put that leaves an item unchanged: DynamoDB writes no record; see
//!   `unchanged_writes_record_nothing` for what each server does.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use crate::feed_util::*;
use dyno_core::expr::{Condition, Path, SetValue, Update};
use dyno_core::feed::{
    ChangeFeed, ChangeKind, ChangeRecord, Checkpoint, Gap, StartingPosition, StreamView,
};
use dyno_core::store::{
    BatchWriteRequest, DeleteRequest, StreamRetention, TransactWriteItem, TransactWriteRequest,
    UpdateRequest, WriteRequest,
};
use dyno_core::{AttributeValue, Entity, Error, Item, MemoryStore, Store};
use dyno_tests::backend::{supports_transactions, unique_table_name, BackendKind};
use dyno_tests::model::{ecommerce_table, OrderStatus, Product};

fn product(id: &str, stock: u32) -> Item {
    Product {
        product_id: id.into(),
        name: format!("product {id}"),
        category: "books".into(),
        price_cents: 1999,
        stock,
    }
    .to_item()
    .unwrap()
}

fn del(table: &str, key: Item) -> DeleteRequest {
    DeleteRequest::new(table, key)
}

fn set_stock(table: &str, key: Item, stock: u32) -> UpdateRequest {
    UpdateRequest::new(
        table,
        key,
        Update {
            set: vec![(
                Path::attr("stock"),
                SetValue::value(AttributeValue::N(stock.to_string())),
            )],
            ..Update::default()
        },
    )
}

fn s(record: &ChangeRecord, attr: &str) -> Option<String> {
    match record.keys.get(attr) {
        Some(AttributeValue::S(v)) => Some(v.clone()),
        _ => None,
    }
}

fn summary(records: &[ChangeRecord]) -> Vec<(ChangeKind, String, String)> {
    records
        .iter()
        .map(|r| {
            (
                r.kind,
                s(r, "PK").unwrap_or_default(),
                s(r, "SK").unwrap_or_default(),
            )
        })
        .collect()
}

fn name_of(image: Option<&Arc<Item>>) -> Option<String> {
    match image?.get("name")? {
        AttributeValue::S(v) => Some(v.clone()),
        _ => None,
    }
}

async fn table_on(b: &FeedBackend, prefix: &str, view: StreamView) -> String {
    let name = if b.is_server() {
        unique_table_name(prefix)
    } else {
        format!("{prefix}-{}", fastrand::u32(..))
    };
    b.store
        .create_table(&ecommerce_table(&name).stream(view))
        .await
        .unwrap();
    name
}

#[tokio::test]
async fn every_write_path_is_recorded_in_commit_order() {
    use ChangeKind::{Insert, Modify, Remove};
    for b in feed_backends().await {
        let t = table_on(&b, "feed-paths", StreamView::NewAndOldImages).await;
        let store = &b.store;
        let mut feed = b.feed(&t, StartingPosition::TrimHorizon).await;
        store.put_item(put(&t, user("1", "Ann"))).await.unwrap();
        store
            .put_item(put(&t, order("1", "A", OrderStatus::Pending)))
            .await
            .unwrap();
        store.put_item(put(&t, user("1", "Bea"))).await.unwrap();
        store.put_item(put(&t, product("P1", 5))).await.unwrap();
        store
            .update_item(set_stock(&t, key_of(&product("P1", 0)), 4))
            .await
            .unwrap();
        store
            .delete_item(del(&t, key_of(&product("P1", 0))))
            .await
            .unwrap();
        // Deleting what is not there changes nothing and records nothing.
        store
            .delete_item(del(&t, key_of(&product("nothing", 0))))
            .await
            .unwrap();
        let batch = BatchWriteRequest::new(vec![
            WriteRequest::put(t.clone(), product("P2", 1)),
            WriteRequest::delete(t.clone(), key_of(&order("1", "A", OrderStatus::Pending))),
        ]);
        assert!(store
            .batch_write(batch)
            .await
            .unwrap()
            .unprocessed
            .is_empty());
        // A write whose condition fails changes nothing and records nothing.
        let mut refused = put(&t, user("1", "Cy"));
        refused.condition = Some(Condition::not_exists(Path::attr("PK")));
        let refused = store.put_item(refused).await.unwrap_err();
        assert!(refused.is_condition_failed(), "{}", b.name);
        let mut expected = vec![
            (Insert, "USER#1", "PROFILE"),
            (Insert, "USER#1", "ORDER#A"),
            (Modify, "USER#1", "PROFILE"),
            (Insert, "PRODUCT#P1", "PRODUCT"),
            (Modify, "PRODUCT#P1", "PRODUCT"),
            (Remove, "PRODUCT#P1", "PRODUCT"),
            (Insert, "PRODUCT#P2", "PRODUCT"),
            (Remove, "USER#1", "ORDER#A"),
        ];
        if supports_transactions(b.kind) {
            let tx = TransactWriteRequest::new(vec![
                TransactWriteItem::put(t.clone(), order("2", "B", OrderStatus::Shipped)),
                TransactWriteItem::delete(t.clone(), key_of(&product("P2", 0))),
            ]);
            // A cancelled transaction records none of its writes.
            let mut cancelled = tx.clone();
            cancelled.actions.push(TransactWriteItem::condition_check(
                t.clone(),
                key_of(&user("1", "")),
                Condition::not_exists(Path::attr("PK")),
            ));
            assert!(
                matches!(
                    store.transact_write(cancelled).await,
                    Err(Error::TransactionCanceled { .. })
                ),
                "{}",
                b.name
            );
            store.transact_write(tx).await.unwrap();
            expected.push((Insert, "USER#2", "ORDER#B"));
            expected.push((Remove, "PRODUCT#P2", "PRODUCT"));
        }
        let (records, gaps) = collect(&mut *feed, expected.len()).await;
        assert!(gaps.is_empty(), "{}: {gaps:?}", b.name);
        let mut got = summary(&records);
        let want: Vec<(ChangeKind, String, String)> = expected
            .iter()
            .map(|(k, p, s)| (*k, p.to_string(), s.to_string()))
            .collect();
        // Two writes of one transaction have no order between them; the rest is commit order.
        let n = got.len();
        if supports_transactions(b.kind) && n >= 2 {
            got[n - 2..].sort_by(|a, b| a.1.cmp(&b.1));
        }
        let mut want_sorted = want.clone();
        if supports_transactions(b.kind) {
            let m = want_sorted.len();
            want_sorted[m - 2..].sort_by(|a, b| a.1.cmp(&b.1));
        }
        assert_eq!(got, want_sorted, "{}", b.name);
        // Images as the view asks: the user's modify carries both names.
        let modify = &records[2];
        assert_eq!(
            name_of(modify.old_image.as_ref()).as_deref(),
            Some("Ann"),
            "{}",
            b.name
        );
        assert_eq!(
            name_of(modify.new_image.as_ref()).as_deref(),
            Some("Bea"),
            "{}",
            b.name
        );
        assert!(
            records[0].old_image.is_none() && records[5].new_image.is_none(),
            "{}",
            b.name
        );
        assert_eq!(
            records[5].old_image.as_deref(),
            None.or(records[5].old_image.as_deref())
        );
        // Sequence numbers grow within a shard.
        let mut last: BTreeMap<String, dyno_core::feed::SequenceNumber> = BTreeMap::new();
        for r in &records {
            if let Some(prev) = last.get(&r.shard) {
                assert!(
                    r.sequence > *prev,
                    "{}: {} after {}",
                    b.name,
                    r.sequence,
                    prev
                );
            }
            last.insert(r.shard.clone(), r.sequence.clone());
            assert!(
                r.user_identity.is_none(),
                "{}: requests carry no service identity",
                b.name
            );
        }
        b.store.delete_table(&t).await.unwrap();
    }
}

#[tokio::test]
async fn view_types_carry_the_images_they_name() {
    for b in feed_backends().await {
        for view in [
            StreamView::KeysOnly,
            StreamView::NewImage,
            StreamView::OldImage,
            StreamView::NewAndOldImages,
        ] {
            let t = table_on(&b, "feed-view", view).await;
            let described = b.store.describe_table(&t).await.unwrap().definition;
            assert_eq!(described.stream, Some(view), "{}: DescribeTable", b.name);
            let mut feed = b.feed(&t, StartingPosition::TrimHorizon).await;
            b.store.put_item(put(&t, user("7", "Ann"))).await.unwrap();
            b.store.put_item(put(&t, user("7", "Bea"))).await.unwrap();
            let (records, _) = collect(&mut *feed, 2).await;
            assert_eq!(records.len(), 2, "{} {view:?}", b.name);
            let modify = &records[1];
            assert_eq!(modify.kind, ChangeKind::Modify);
            assert_eq!(
                modify.keys,
                key_of(&user("7", "")),
                "{} {view:?}: keys are the primary key",
                b.name
            );
            let old = name_of(modify.old_image.as_ref());
            let new = name_of(modify.new_image.as_ref());
            assert_eq!(old.is_some(), view.has_old(), "{} {view:?}", b.name);
            assert_eq!(new.is_some(), view.has_new(), "{} {view:?}", b.name);
            if view.has_new() {
                assert_eq!(new.as_deref(), Some("Bea"));
            }
            if view.has_old() {
                assert_eq!(old.as_deref(), Some("Ann"));
            }
            b.store.delete_table(&t).await.unwrap();
        }
    }
}

#[tokio::test]
async fn readers_resume_after_a_checkpoint_and_latest_skips_the_past() {
    for b in feed_backends().await {
        let t = table_on(&b, "feed-resume", StreamView::KeysOnly).await;
        let mut first = b.feed(&t, StartingPosition::TrimHorizon).await;
        for i in 0..3 {
            b.store
                .put_item(put(&t, product(&format!("R{i}"), i)))
                .await
                .unwrap();
        }
        let (records, _) = collect(&mut *first, 3).await;
        assert_eq!(records.len(), 3, "{}", b.name);
        let checkpoint = first.checkpoint();
        assert!(!checkpoint.shards.is_empty(), "{}", b.name);
        let mut latest = b.feed(&t, StartingPosition::Latest).await;
        for i in 3..5 {
            b.store
                .put_item(put(&t, product(&format!("R{i}"), i)))
                .await
                .unwrap();
        }
        let mut resumed = b.feed(&t, StartingPosition::After(checkpoint)).await;
        let (after, gaps) = collect(&mut *resumed, 2).await;
        assert!(gaps.is_empty(), "{}: {gaps:?}", b.name);
        let pks: Vec<String> = after.iter().filter_map(|r| s(r, "PK")).collect();
        assert_eq!(pks, ["PRODUCT#R3", "PRODUCT#R4"], "{}", b.name);
        let (from_latest, _) = collect(&mut *latest, 2).await;
        let pks: Vec<String> = from_latest.iter().filter_map(|r| s(r, "PK")).collect();
        assert_eq!(
            pks,
            ["PRODUCT#R3", "PRODUCT#R4"],
            "{}: LATEST sees only later writes",
            b.name
        );
        // Nothing more comes.
        let more = resumed.poll(Duration::from_millis(100)).await.unwrap();
        assert!(more.records.is_empty(), "{}", b.name);
        b.store.delete_table(&t).await.unwrap();
    }
}

#[tokio::test]
async fn a_checkpoint_of_another_stream_is_a_gap() {
    for b in feed_backends().await {
        let t = table_on(&b, "feed-other", StreamView::KeysOnly).await;
        let foreign = Checkpoint::after(
            "not-this-stream",
            "shard",
            dyno_core::feed::SequenceNumber::new("1"),
        );
        b.store.put_item(put(&t, user("1", "Ann"))).await.unwrap();
        let mut feed = b.feed(&t, StartingPosition::After(foreign)).await;
        let (records, gaps) = collect(&mut *feed, 1).await;
        assert!(
            matches!(gaps.as_slice(), [Gap::StreamChanged { .. }]),
            "{}: {gaps:?}",
            b.name
        );
        assert_eq!(
            records.len(),
            1,
            "{}: read from the trim horizon after the gap",
            b.name
        );
        b.store.delete_table(&t).await.unwrap();
    }
}

#[tokio::test]
async fn unchanged_writes_record_nothing() {
    for b in feed_backends().await {
        let t = table_on(&b, "feed-same", StreamView::KeysOnly).await;
        let mut feed = b.feed(&t, StartingPosition::TrimHorizon).await;
        b.store.put_item(put(&t, user("1", "Ann"))).await.unwrap();
        b.store.put_item(put(&t, user("1", "Ann"))).await.unwrap();
        b.store.put_item(put(&t, user("2", "Bo"))).await.unwrap();
        let expected: &[&str] = match b.kind {
            BackendKind::Memory => &["USER#1", "USER#2"],
            _ => &["USER#1", "USER#1", "USER#2"],
        };
        let (mut records, _) = collect(&mut *feed, expected.len()).await;
        records.extend(feed.poll(Duration::from_millis(300)).await.unwrap().records);
        let pks: Vec<String> = records.iter().filter_map(|r| s(r, "PK")).collect();
        // DynamoDB: "If you perform a PutItem or UpdateItem operation that does not change any
        // data in an item, DynamoDB Streams does not write a stream record for that operation."
        // moto and dynoxide write one (a MODIFY with equal images): recorded here as their
        // deviation, harmless to a follower (it invalidates once more than needed).
        assert_eq!(pks, expected, "{}", b.name);
        b.store.delete_table(&t).await.unwrap();
    }
}

/// The manual clock of the MemoryStore tests below.
fn manual_clock() -> (Arc<Mutex<SystemTime>>, MemoryStore) {
    let now = Arc::new(Mutex::new(
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000),
    ));
    let clock = now.clone();
    let store = MemoryStore::with_clock(Arc::new(move || *clock.lock().unwrap()));
    (now, store)
}

#[tokio::test]
async fn memory_ttl_deletions_carry_the_service_identity() {
    let (now, store) = manual_clock();
    store
        .create_table(&ecommerce_table("ttl").stream(StreamView::OldImage))
        .await
        .unwrap();
    let mut feed = store
        .change_feed("ttl", StartingPosition::TrimHorizon)
        .unwrap();
    let mut expiring = order("1", "T", OrderStatus::Pending);
    expiring.insert("ttl".into(), AttributeValue::N("1000060".into()));
    store.put_item(put("ttl", expiring.clone())).await.unwrap();
    store.put_item(put("ttl", user("1", "Ann"))).await.unwrap();
    *now.lock().unwrap() += Duration::from_secs(120);
    // Expired: hidden at once, deleted (and recorded) on the next sweep or write.
    store.sweep_expired();
    store
        .delete_item(del("ttl", key_of(&user("1", ""))))
        .await
        .unwrap();
    let (records, _) = collect(&mut feed, 4).await;
    assert_eq!(records.len(), 4);
    let ttl = &records[2];
    assert!(ttl.is_ttl_deletion(), "{ttl:?}");
    let identity = ttl.user_identity.as_ref().unwrap();
    assert_eq!(
        (identity.kind.as_str(), identity.principal_id.as_str()),
        ("Service", "dynamodb.amazonaws.com")
    );
    assert_eq!(ttl.old_image.as_deref(), Some(&expiring));
    assert!(
        !records[3].is_ttl_deletion(),
        "a request's delete is not TTL's"
    );
    assert_eq!(records[3].kind, ChangeKind::Remove);
}

#[tokio::test]
async fn memory_retention_trims_and_the_reader_reports_the_gap() {
    let (now, store) = manual_clock();
    let store = store.with_stream_retention(StreamRetention {
        max_age: Duration::from_secs(3600),
        max_records: 3,
    });
    store
        .create_table(&ecommerce_table("keep").stream(StreamView::KeysOnly))
        .await
        .unwrap();
    let mut slow = store
        .change_feed("keep", StartingPosition::TrimHorizon)
        .unwrap();
    for i in 0..5 {
        store
            .put_item(put("keep", product(&format!("K{i}"), i)))
            .await
            .unwrap();
    }
    let batch = slow.poll(Duration::ZERO).await.unwrap();
    assert!(
        matches!(batch.gaps.as_slice(), [Gap::Trimmed { .. }]),
        "{:?}",
        batch.gaps
    );
    let pks: Vec<String> = batch.records.iter().filter_map(|r| s(r, "PK")).collect();
    assert_eq!(
        pks,
        ["PRODUCT#K2", "PRODUCT#K3", "PRODUCT#K4"],
        "the cap keeps the newest"
    );
    // By age: an hour later everything is trimmed, and a reader from an old checkpoint says so.
    let checkpoint = slow.checkpoint();
    store.put_item(put("keep", product("K5", 5))).await.unwrap();
    *now.lock().unwrap() += Duration::from_secs(3601);
    let mut late = store
        .change_feed("keep", StartingPosition::After(checkpoint))
        .unwrap();
    let batch = late.poll(Duration::ZERO).await.unwrap();
    assert!(
        matches!(batch.gaps.as_slice(), [Gap::Trimmed { .. }]),
        "{:?}",
        batch.gaps
    );
    assert!(batch.records.is_empty());
}

#[tokio::test]
async fn memory_feed_ends_when_its_table_is_deleted() {
    let store = MemoryStore::new();
    store
        .create_table(&ecommerce_table("gone").stream(StreamView::KeysOnly))
        .await
        .unwrap();
    assert!(matches!(
        store.change_feed("ECommerce-none", StartingPosition::Latest),
        Err(Error::ResourceNotFound { .. })
    ));
    let mut feed = store
        .change_feed("gone", StartingPosition::TrimHorizon)
        .unwrap();
    store.put_item(put("gone", user("1", "Ann"))).await.unwrap();
    store.delete_table("gone").await.unwrap();
    assert_eq!(
        feed.poll(Duration::ZERO).await.unwrap().records.len(),
        1,
        "what was written stays readable"
    );
    assert!(matches!(
        feed.poll(Duration::ZERO).await,
        Err(Error::ResourceNotFound { .. })
    ));
    // A table without a stream specification has no feed.
    store.create_table(&ecommerce_table("plain")).await.unwrap();
    assert!(matches!(
        store.change_feed("plain", StartingPosition::Latest),
        Err(Error::Validation { .. })
    ));
}

/// Many tasks on a few hot keys: each key's records form an unbroken chain (every old image is
/// the previous new image), so nothing is lost, doubled or reordered.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn memory_records_follow_commit_order_under_concurrency() {
    let store = Arc::new(MemoryStore::new());
    store
        .create_table(&ecommerce_table("hot").stream(StreamView::NewAndOldImages))
        .await
        .unwrap();
    let mut feed = store
        .change_feed("hot", StartingPosition::TrimHorizon)
        .unwrap();
    const TASKS: usize = 8;
    const WRITES: u32 = 200;
    let mut tasks = Vec::new();
    for t in 0..TASKS {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            for i in 0..WRITES {
                let key = key_of(&product(&format!("H{}", (t + i as usize) % 3), 0));
                let update = Update {
                    add: vec![(Path::attr("stock"), AttributeValue::N("1".into()))],
                    ..Update::default()
                };
                let request = UpdateRequest::new("hot", key.clone(), update);
                if i % 10 == 0 {
                    // Through a transaction now and then.
                    let tx = TransactWriteRequest::new(vec![TransactWriteItem::update(
                        "hot",
                        request.key,
                        request.update,
                    )]);
                    store.transact_write(tx).await.unwrap();
                } else {
                    store.update_item(request).await.unwrap();
                }
            }
        }));
    }
    for t in tasks {
        tokio::time::timeout(Duration::from_secs(30), t)
            .await
            .unwrap()
            .unwrap();
    }
    let total = TASKS * WRITES as usize;
    let (records, gaps) = collect(&mut feed, total).await;
    assert!(gaps.is_empty());
    assert_eq!(records.len(), total);
    let stock = |i: Option<&Arc<Item>>| match i.and_then(|i| i.get("stock")) {
        Some(AttributeValue::N(n)) => n.parse::<u64>().unwrap(),
        _ => 0,
    };
    let mut last: BTreeMap<String, u64> = BTreeMap::new();
    for r in &records {
        let pk = s(r, "PK").unwrap();
        let prev = last.get(&pk).copied().unwrap_or(0);
        assert_eq!(
            stock(r.old_image.as_ref()),
            prev,
            "{pk}: old image is the previous new one"
        );
        assert_eq!(stock(r.new_image.as_ref()), prev + 1, "{pk}");
        last.insert(pk, prev + 1);
    }
    assert_eq!(last.values().sum::<u64>(), total as u64);
}

#[path = "feed_util/fake_streams.rs"]
mod fake_streams;

/// Polls `feed` until `want` records have been collected in all (bounded: 10 seconds), checking
/// that no poll reports a gap.
async fn collect_until(
    feed: &mut dyno_core::feed::StreamsFeed,
    seen: &mut Vec<ChangeRecord>,
    want: usize,
) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while seen.len() < want {
        assert!(
            std::time::Instant::now() < deadline,
            "gave up after {} records of {want}: {seen:?}",
            seen.len()
        );
        let batch = feed.poll(Duration::from_millis(200)).await.unwrap();
        assert!(batch.gaps.is_empty(), "no gap expected: {:?}", batch.gaps);
        seen.extend(batch.records);
    }
}

/// A stream whose root shard (its own parent trimmed long ago) split in two, whose left half
/// closed and continued in a leaf that DescribeStream lists only once the left half is drained,
/// and whose right half stays open, gets a record appended later, and has its iterator expire.
/// StreamsFeed, through the real SDK and wire protocol against a scripted loopback endpoint,
/// must read each parent to its end before any child, find the leaf when its parent closes,
/// renew the expired iterator after its last sequence number (no record lost or repeated), and
/// report no gap. (Shard ids sort children before parents, so reading in id order would fail.)
#[tokio::test]
async fn streams_feed_reads_shards_in_lineage_order_and_renews_expired_iterators() {
    use fake_streams::{FakeStreams, Script, Shard, TABLE};
    let r = Script::record;
    let mut script = Script::default();
    let mut shard = |id: &str, parent: &str, records, closed, listed_after: Option<&str>| {
        let shard = Shard {
            parent: Some(parent.to_owned()),
            records,
            closed,
            listed_after: listed_after.map(str::to_owned),
        };
        script.shards.insert(id.to_owned(), shard);
    };
    shard(
        "shard-3-root",
        "shard-trimmed",
        vec![r(100, "INSERT", "a", 1), r(101, "MODIFY", "a", 2)],
        true,
        None,
    );
    shard(
        "shard-1-left",
        "shard-3-root",
        vec![r(200, "MODIFY", "a", 3)],
        true,
        None,
    );
    shard(
        "shard-2-right",
        "shard-3-root",
        vec![r(210, "INSERT", "b", 1)],
        false,
        None,
    );
    shard(
        "shard-0-leaf",
        "shard-1-left",
        vec![r(300, "MODIFY", "a", 4)],
        false,
        Some("shard-1-left"),
    );
    let server = FakeStreams::start(script).await;
    let mut feed =
        dyno_core::feed::StreamsFeed::local(&server.endpoint, TABLE, StartingPosition::TrimHorizon)
            .await
            .unwrap()
            .with_poll_interval(Duration::from_millis(10));
    let mut seen = Vec::new();
    collect_until(&mut feed, &mut seen, 5).await;
    {
        let mut s = server.script();
        s.expire_next.insert("shard-2-right".into());
        let right = s.shards.get_mut("shard-2-right").unwrap();
        right.records.push(r(211, "MODIFY", "b", 2));
    }
    collect_until(&mut feed, &mut seen, 6).await;
    let after = feed.poll(Duration::from_millis(300)).await.unwrap();
    assert!(
        after.gaps.is_empty() && after.records.is_empty(),
        "{after:?}"
    );

    let seqs: Vec<&str> = seen.iter().map(|r| r.sequence.as_str()).collect();
    let mut sorted = seqs.clone();
    sorted.sort_unstable();
    assert_eq!(
        sorted,
        ["100", "101", "200", "210", "211", "300"],
        "each record once"
    );
    let at = |s: &str| seqs.iter().position(|x| *x == s).unwrap();
    assert!(at("100") < at("101") && at("101") < at("200") && at("200") < at("300"));
    assert!(at("101") < at("210") && at("210") < at("211"));
    assert!(seen.iter().all(|r| r.shard.starts_with("shard-")));
    assert_eq!(seen[at("300")].shard, "shard-0-leaf");

    let calls = server.script().calls.clone();
    let first = |op: &str, shard: &str| calls.iter().position(|c| c.op == op && c.shard == shard);
    let last = |op: &str, shard: &str| calls.iter().rposition(|c| c.op == op && c.shard == shard);
    let root_drained = last("GetRecords", "shard-3-root").unwrap();
    for child in ["shard-1-left", "shard-2-right"] {
        assert!(
            first("GetShardIterator", child).unwrap() > root_drained,
            "{child} read before its parent was drained: {calls:?}"
        );
    }
    let left_drained = last("GetRecords", "shard-1-left").unwrap();
    assert!(first("GetShardIterator", "shard-0-leaf").unwrap() > left_drained);
    assert!(
        calls.iter().any(|c| c.op == "GetShardIterator"
            && c.shard == "shard-2-right"
            && c.detail == "AFTER_SEQUENCE_NUMBER 210"),
        "the expired iterator is renewed after its last record: {calls:?}"
    );
    let checkpoint = feed.checkpoint();
    let positions: Vec<(&str, &str)> = checkpoint
        .shards
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        positions,
        [
            ("shard-0-leaf", "300"),
            ("shard-1-left", "200"),
            ("shard-2-right", "211"),
            ("shard-3-root", "101"),
        ]
    );
}
