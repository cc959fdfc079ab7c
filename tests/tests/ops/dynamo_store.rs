//! `DynamoStore` against the DynamoDB-compatible servers (dynalite, moto) that `scripts/test`
//! starts, and the same scenarios on MemoryStore wherever the scenario is about DynamoDB's
//! semantics rather than about the SDK (so plain `cargo test` still exercises them). Without the
//! server endpoints in the environment the server parts have nothing to run on, and
//! `DYNO_REQUIRE_BACKENDS=1` makes that a failure. The size checks and the transport error
//! mapping are proven without any server.
//!
//! Where a server deviates from DynamoDB's documented behaviour, the test says which one and
//! asserts what it actually does, so a change in the server shows up here.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use dyno_core::error::Error;
use dyno_core::expr::{Condition, KeyCondition, Path, SetValue, SortCondition, Update};
use dyno_core::store::{
    BatchGetRequest, BatchWriteRequest, DeleteRequest, GetRequest, QueryRequest, ReturnValues,
    ScanRequest, TableKey, TransactGetItem, TransactGetRequest, TransactWriteItem,
    TransactWriteRequest, UpdateRequest, WriteRequest,
};
use dyno_core::table::{IndexDef, Projection};
use dyno_core::value::{item_size, MAX_ITEM_SIZE};
use dyno_core::{AttributeValue, DynamoStore, Item, Store, TableDef};
use dyno_tests::backend::{
    backends, put, server_backends, supports_transactions, supports_ttl, Backend, BackendKind,
};

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn n(v: i64) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

fn item(attrs: &[(&str, AttributeValue)]) -> Item {
    attrs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect()
}

fn key(pk: &str, sk: &str) -> Item {
    item(&[("PK", s(pk)), ("SK", s(sk))])
}

/// A table with a string key, one GSI and the given TTL attribute.
fn def(prefix: &str) -> TableDef {
    TableDef::new(
        dyno_tests::backend::unique_table_name(prefix),
        "PK",
        Some("SK"),
    )
    .global_index(IndexDef::new("GSI1", "GSI1PK", Some("GSI1SK")))
}

async fn create(b: &Backend, prefix: &str) -> String {
    let d = def(prefix);
    b.store
        .create_table(&d)
        .await
        .unwrap_or_else(|e| panic!("{}: create_table: {e}", b.name));
    d.name
}

async fn drop_table(b: &Backend, table: &str) {
    b.store
        .delete_table(table)
        .await
        .unwrap_or_else(|e| panic!("{}: delete_table: {e}", b.name));
}

fn get(table: &str, key: Item) -> GetRequest<'static> {
    GetRequest::new(table.to_owned(), key).consistent()
}

async fn fetch(b: &Backend, table: &str, k: Item) -> Option<Arc<Item>> {
    b.store
        .get_item(get(table, k))
        .await
        .unwrap_or_else(|e| panic!("{}: get_item: {e}", b.name))
        .item
}

#[tokio::test]
async fn harness_lists_memory_then_configured_servers() {
    let all = backends().await;
    assert_eq!(all[0].kind, BackendKind::Memory);
    let servers: Vec<_> = server_backends().await.iter().map(|b| b.kind).collect();
    assert_eq!(all[1..].iter().map(|b| b.kind).collect::<Vec<_>>(), servers);
    assert!(servers.iter().all(|k| k.is_server()));
}

#[tokio::test]
async fn get_put_update_delete_with_conditions_and_return_values() {
    for b in backends().await {
        let t = create(&b, "crud").await;
        let who = b.name;

        // Put, then read back (projection and consistent read).
        let first = item(&[
            ("PK", s("u1")),
            ("SK", s("profile")),
            ("name", s("Ann")),
            ("n", n(1)),
        ]);
        let out = b.store.put_item(put(&t, first.clone())).await.unwrap();
        assert_eq!(out.attributes, None, "{who}");
        assert_eq!(
            fetch(&b, &t, key("u1", "profile")).await.as_deref(),
            Some(&first),
            "{who}"
        );
        let mut projected = get(&t, key("u1", "profile"));
        projected.projection = Some(vec![Path::attr("name")]);
        let got = b.store.get_item(projected).await.unwrap().item.unwrap();
        assert_eq!(*got, item(&[("name", s("Ann"))]), "{who}: projection");
        assert!(fetch(&b, &t, key("u1", "nothing")).await.is_none(), "{who}");

        // A put that must create fails on an existing item; the old item comes back when asked.
        let mut create_only = put(
            &t,
            item(&[("PK", s("u1")), ("SK", s("profile")), ("name", s("Bob"))]),
        );
        create_only.condition = Some(Condition::not_exists("PK"));
        let err = b.store.put_item(create_only.clone()).await.unwrap_err();
        assert!(
            matches!(err, Error::ConditionFailed { item: None, .. }),
            "{who}: {err:?}"
        );
        create_only.return_old_on_condition_failure = true;
        match b.store.put_item(create_only).await.unwrap_err() {
            Error::ConditionFailed { item: old, .. } => match b.kind {
                // dynalite 3.2.2 predates ReturnValuesOnConditionCheckFailure (2023) and ignores it.
                BackendKind::Dynalite => assert_eq!(old, None, "{who}"),
                _ => assert_eq!(
                    old.as_ref(),
                    Some(&first),
                    "{who}: old item on condition failure"
                ),
            },
            other => panic!("{who}: expected ConditionFailed, got {other:?}"),
        }

        // Replace with ReturnValues ALL_OLD.
        let mut replace = put(
            &t,
            item(&[
                ("PK", s("u1")),
                ("SK", s("profile")),
                ("name", s("Cy")),
                ("n", n(5)),
            ]),
        );
        replace.condition = Some(Condition::exists("PK"));
        replace.return_values = ReturnValues::AllOld;
        let out = b.store.put_item(replace).await.unwrap();
        assert_eq!(
            out.attributes.as_ref(),
            Some(&first),
            "{who}: ALL_OLD on put"
        );

        // Update: SET, ADD, REMOVE with each ReturnValues.
        let update = |rv: ReturnValues, u: Update| {
            UpdateRequest::new(t.clone(), key("u1", "profile"), u).with_return_values(rv)
        };
        let set_city = Update {
            set: vec![(Path::attr("city"), SetValue::value(s("Oslo")))],
            ..Update::default()
        };
        let out = b
            .store
            .update_item(update(ReturnValues::UpdatedNew, set_city))
            .await
            .unwrap();
        assert_eq!(
            out.attributes,
            Some(item(&[("city", s("Oslo"))])),
            "{who}: UPDATED_NEW"
        );
        let add = Update {
            add: vec![(Path::attr("n"), n(2))],
            ..Update::default()
        };
        let out = b
            .store
            .update_item(update(ReturnValues::UpdatedOld, add))
            .await
            .unwrap();
        assert_eq!(
            out.attributes,
            Some(item(&[("n", n(5))])),
            "{who}: UPDATED_OLD"
        );
        let remove = Update {
            remove: vec![Path::attr("city")],
            ..Update::default()
        };
        let out = b
            .store
            .update_item(update(ReturnValues::AllNew, remove))
            .await
            .unwrap();
        let now = item(&[
            ("PK", s("u1")),
            ("SK", s("profile")),
            ("name", s("Cy")),
            ("n", n(7)),
        ]);
        assert_eq!(out.attributes.as_ref(), Some(&now), "{who}: ALL_NEW");
        let noop = Update {
            set: vec![(Path::attr("name"), SetValue::value(s("Cy")))],
            ..Update::default()
        };
        let out = b
            .store
            .update_item(update(ReturnValues::AllOld, noop.clone()))
            .await
            .unwrap();
        assert_eq!(
            out.attributes.as_ref(),
            Some(&now),
            "{who}: ALL_OLD on update"
        );
        let out = b
            .store
            .update_item(update(ReturnValues::None, noop))
            .await
            .unwrap();
        assert_eq!(out.attributes, None, "{who}");

        // A conditional update that fails leaves the item alone and reports it.
        let mut guarded = update(
            ReturnValues::AllNew,
            Update {
                add: vec![(Path::attr("n"), n(1))],
                ..Update::default()
            },
        );
        guarded.condition = Some(Condition::eq("n", n(0)));
        guarded.return_old_on_condition_failure = true;
        match b.store.update_item(guarded).await.unwrap_err() {
            Error::ConditionFailed { item: old, .. } => {
                let expected = (b.kind != BackendKind::Dynalite).then(|| now.clone());
                assert_eq!(old, expected, "{who}: old item on failed update");
            }
            other => panic!("{who}: expected ConditionFailed, got {other:?}"),
        }
        assert_eq!(
            fetch(&b, &t, key("u1", "profile")).await.as_deref(),
            Some(&now),
            "{who}"
        );

        // Delete: a failing condition, then ALL_OLD.
        let delete = |condition: Option<Condition>| {
            DeleteRequest::new(t.clone(), key("u1", "profile"))
                .with_condition(condition)
                .with_return_values(ReturnValues::AllOld)
                .with_return_old_on_condition_failure(true)
        };
        match b
            .store
            .delete_item(delete(Some(Condition::eq("name", s("Zed")))))
            .await
            .unwrap_err()
        {
            Error::ConditionFailed { item: old, .. } => {
                assert_eq!(
                    old.is_some(),
                    b.kind != BackendKind::Dynalite,
                    "{who}: old item on failed delete"
                );
            }
            other => panic!("{who}: expected ConditionFailed, got {other:?}"),
        }
        let out = b
            .store
            .delete_item(delete(Some(Condition::eq("name", s("Cy")))))
            .await
            .unwrap();
        assert_eq!(
            out.attributes.as_ref(),
            Some(&now),
            "{who}: ALL_OLD on delete"
        );
        assert!(fetch(&b, &t, key("u1", "profile")).await.is_none(), "{who}");
        // Deleting what is not there is not an error, and returns nothing.
        assert_eq!(
            b.store.delete_item(delete(None)).await.unwrap().attributes,
            None,
            "{who}"
        );

        drop_table(&b, &t).await;
    }
}

#[tokio::test]
async fn consumed_capacity_is_surfaced() {
    for b in server_backends().await {
        let t = create(&b, "capacity").await;
        let put = b.store.put_item(put(&t, key("a", "1"))).await.unwrap();
        let got = b.store.get_item(get(&t, key("a", "1"))).await.unwrap();
        let page = b
            .store
            .query(QueryRequest::new(
                &t,
                None,
                KeyCondition::partition("PK", s("a")),
            ))
            .await
            .unwrap();
        // Both servers report capacity for single-item writes and reads.
        assert!(
            put.consumed_capacity
                .as_ref()
                .is_some_and(|c| c.units > 0.0),
            "{}: put {:?}",
            b.name,
            put.consumed_capacity
        );
        assert!(
            got.consumed_capacity
                .as_ref()
                .is_some_and(|c| c.units > 0.0),
            "{}: get {:?}",
            b.name,
            got.consumed_capacity
        );
        assert!(
            page.consumed_capacity
                .as_ref()
                .is_some_and(|c| c.units > 0.0),
            "{}: query {:?}",
            b.name,
            page.consumed_capacity
        );
        drop_table(&b, &t).await;
    }
}

/// Order items of one user, with a GSI on status.
fn order(user: &str, i: usize) -> Item {
    let status = if i.is_multiple_of(2) {
        "shipped"
    } else {
        "pending"
    };
    item(&[
        ("PK", s(&format!("USER#{user}"))),
        ("SK", s(&format!("ORDER#{i:03}"))),
        ("GSI1PK", s(&format!("STATUS#{status}"))),
        ("GSI1SK", s(&format!("2024-01-{:02}", i + 1))),
        ("total", n(i as i64 * 10)),
    ])
}

/// Every page of a query, following `last_evaluated_key`.
async fn query_all(b: &Backend, mut q: QueryRequest) -> (Vec<Arc<Item>>, usize) {
    let mut items = Vec::new();
    let mut pages = 0;
    loop {
        let page = b
            .store
            .query(q.clone())
            .await
            .unwrap_or_else(|e| panic!("{}: query: {e}", b.name));
        pages += 1;
        assert_eq!(page.count, page.items.len(), "{}", b.name);
        items.extend(page.items);
        match page.last_evaluated_key {
            Some(k) => q.exclusive_start_key = Some(k),
            None => return (items, pages),
        }
        assert!(pages < 100, "{}: pagination does not end", b.name);
    }
}

fn sks(items: &[Arc<Item>], attr: &str) -> Vec<String> {
    items
        .iter()
        .map(|i| match i.get(attr) {
            Some(AttributeValue::S(v)) => v.clone(),
            other => panic!("{attr} is {other:?}"),
        })
        .collect()
}

#[tokio::test]
async fn query_on_table_and_gsi_with_pagination() {
    for b in backends().await {
        let t = create(&b, "query").await;
        let who = b.name;
        for i in 0..10 {
            b.store.put_item(put(&t, order("u1", i))).await.unwrap();
        }
        b.store.put_item(put(&t, order("u2", 0))).await.unwrap();

        // Forward, three per page.
        let mut q = QueryRequest::new(&t, None, KeyCondition::partition("PK", s("USER#u1")));
        q.limit = Some(3);
        let (items, pages) = query_all(&b, q.clone()).await;
        let expected: Vec<String> = (0..10).map(|i| format!("ORDER#{i:03}")).collect();
        assert_eq!(sks(&items, "SK"), expected, "{who}");
        assert!(
            pages >= 4,
            "{who}: {pages} pages for 10 items at 3 per page"
        );

        // Backward, with a sort-key condition.
        q.scan_forward = false;
        q.key_condition = q
            .key_condition
            .sort("SK", SortCondition::Between(s("ORDER#002"), s("ORDER#005")));
        let (items, _) = query_all(&b, q.clone()).await;
        assert_eq!(
            sks(&items, "SK"),
            ["ORDER#005", "ORDER#004", "ORDER#003", "ORDER#002"],
            "{who}"
        );

        // begins_with; a filter counts what it keeps but scans everything read.
        let mut f = QueryRequest::new(
            &t,
            None,
            KeyCondition::partition("PK", s("USER#u1"))
                .sort("SK", SortCondition::BeginsWith(s("ORDER#00"))),
        );
        f.filter = Some(Condition::eq("GSI1PK", s("STATUS#shipped")));
        let page = b.store.query(f.clone()).await.unwrap();
        assert_eq!((page.count, page.scanned_count), (5, 10), "{who}: filter");
        f.count_only = true;
        let page = b.store.query(f).await.unwrap();
        assert!(page.items.is_empty(), "{who}: COUNT returns no items");
        assert_eq!(page.count, 5, "{who}: COUNT");

        // The GSI, paginated, in GSI sort-key order.
        let mut g = QueryRequest::new(
            &t,
            Some("GSI1"),
            KeyCondition::partition("GSI1PK", s("STATUS#shipped")),
        );
        g.limit = Some(2);
        let (items, _) = query_all(&b, g.clone()).await;
        assert_eq!(
            sks(&items, "GSI1SK"),
            [
                "2024-01-01",
                "2024-01-01",
                "2024-01-03",
                "2024-01-05",
                "2024-01-07",
                "2024-01-09"
            ],
            "{who}: GSI"
        );
        g.key_condition = g
            .key_condition
            .sort("GSI1SK", SortCondition::Gt(s("2024-01-04")));
        g.projection = Some(vec![Path::attr("SK"), Path::attr("total")]);
        let (items, _) = query_all(&b, g).await;
        assert_eq!(
            sks(&items, "SK"),
            ["ORDER#004", "ORDER#006", "ORDER#008"],
            "{who}: GSI range"
        );
        assert!(
            items.iter().all(|i| i.len() == 2),
            "{who}: projection on a GSI"
        );

        // Strongly consistent reads on a GSI are refused.
        let mut bad = QueryRequest::new(
            &t,
            Some("GSI1"),
            KeyCondition::partition("GSI1PK", s("STATUS#shipped")),
        );
        bad.consistent_read = true;
        let err = b.store.query(bad).await.unwrap_err();
        assert!(matches!(err, Error::Validation { .. }), "{who}: {err:?}");

        drop_table(&b, &t).await;
    }
}

#[tokio::test]
async fn scan_with_segments_covers_every_item_once() {
    for b in backends().await {
        let t = create(&b, "scan").await;
        for u in 0..6 {
            for i in 0..4 {
                b.store
                    .put_item(put(&t, order(&format!("u{u}"), i)))
                    .await
                    .unwrap();
            }
        }
        let mut seen = Vec::new();
        for segment in 0..3 {
            let mut req = ScanRequest::new(t.clone())
                .with_segment(Some((segment, 3)))
                .with_limit(Some(5))
                .with_consistent_read(true);
            loop {
                let page = b.store.scan(req.clone()).await.unwrap();
                seen.extend(
                    page.items
                        .iter()
                        .map(|i| format!("{:?}{:?}", i["PK"], i["SK"])),
                );
                match page.last_evaluated_key {
                    Some(k) => req.exclusive_start_key = Some(k),
                    None => break,
                }
            }
        }
        let distinct: BTreeSet<_> = seen.iter().cloned().collect();
        assert_eq!(seen.len(), 24, "{}: every item exactly once", b.name);
        assert_eq!(distinct.len(), 24, "{}", b.name);

        let filtered = ScanRequest::new(t.clone())
            .with_filter(Some(Condition::eq("GSI1PK", s("STATUS#shipped"))))
            .with_count_only(true);
        let page = b.store.scan(filtered).await.unwrap();
        assert_eq!((page.count, page.scanned_count), (12, 24), "{}", b.name);
        drop_table(&b, &t).await;
    }
}

#[tokio::test]
async fn batch_get_and_write() {
    for b in backends().await {
        let t = create(&b, "batch").await;
        let who = b.name;
        let writes: Vec<_> = (0..25)
            .map(|i| WriteRequest::put(t.clone(), order("u1", i)))
            .collect();
        let out = b
            .store
            .batch_write(BatchWriteRequest::new(writes))
            .await
            .unwrap();
        assert!(out.unprocessed.is_empty(), "{who}: {:?}", out.unprocessed);

        let keys: Vec<_> = (0..30)
            .map(|i| TableKey {
                table: t.clone(),
                key: key("USER#u1", &format!("ORDER#{i:03}")),
            })
            .collect();
        let out = b
            .store
            .batch_get(BatchGetRequest::new(keys).with_consistent_read(true))
            .await
            .unwrap();
        assert!(out.unprocessed_keys.is_empty(), "{who}");
        let mut found: Vec<_> = out
            .items
            .iter()
            .map(|(table, i)| (table.clone(), i["SK"].clone()))
            .collect();
        found.sort_by_key(|(_, sk)| format!("{sk:?}"));
        let expected: Vec<_> = (0..25)
            .map(|i| (t.clone(), s(&format!("ORDER#{i:03}"))))
            .collect();
        assert_eq!(found, expected, "{who}: the 25 present of 30 asked");

        // Mixed puts and deletes in one batch.
        let writes = vec![
            WriteRequest::delete(t.clone(), key("USER#u1", "ORDER#000")),
            WriteRequest::put(t.clone(), order("u2", 1)),
        ];
        assert!(b
            .store
            .batch_write(BatchWriteRequest::new(writes))
            .await
            .unwrap()
            .unprocessed
            .is_empty());
        assert!(
            fetch(&b, &t, key("USER#u1", "ORDER#000")).await.is_none(),
            "{who}"
        );
        assert!(
            fetch(&b, &t, key("USER#u2", "ORDER#001")).await.is_some(),
            "{who}"
        );

        // Two writes on one key in one batch: DynamoDB refuses the whole batch.
        let dup = vec![
            WriteRequest::put(t.clone(), order("u3", 1)),
            WriteRequest::delete(t.clone(), key("USER#u3", "ORDER#001")),
        ];
        let result = b.store.batch_write(BatchWriteRequest::new(dup)).await;
        match b.kind {
            // moto accepts duplicate keys in a batch and applies both writes in order.
            BackendKind::Moto => assert!(result.is_ok(), "{who}: {result:?}"),
            _ => assert!(
                matches!(result, Err(Error::Validation { .. })),
                "{who}: {result:?}"
            ),
        }

        // An empty batch is refused.
        let err = b
            .store
            .batch_write(BatchWriteRequest::default())
            .await
            .unwrap_err();
        assert!(matches!(err, Error::Validation { .. }), "{who}: {err:?}");
        let err = b
            .store
            .batch_get(BatchGetRequest::default())
            .await
            .unwrap_err();
        assert!(matches!(err, Error::Validation { .. }), "{who}: {err:?}");

        // 26 writes is over the limit.
        let writes: Vec<_> = (0..26)
            .map(|i| WriteRequest::put(t.clone(), order("u4", i)))
            .collect();
        let result = b.store.batch_write(BatchWriteRequest::new(writes)).await;
        match b.kind {
            // moto does not enforce the 25-write limit.
            BackendKind::Moto => assert!(result.is_ok(), "{who}: {result:?}"),
            _ => assert!(
                matches!(result, Err(Error::Validation { .. })),
                "{who}: {result:?}"
            ),
        }
        drop_table(&b, &t).await;
    }
}

#[tokio::test]
async fn transactions_where_supported() {
    for b in backends().await {
        let t = create(&b, "txn").await;
        let who = b.name;
        b.store
            .put_item(put(
                &t,
                item(&[
                    ("PK", s("acct#1")),
                    ("SK", s("balance")),
                    ("amount", n(100)),
                ]),
            ))
            .await
            .unwrap();
        b.store
            .put_item(put(
                &t,
                item(&[
                    ("PK", s("acct#2")),
                    ("SK", s("profile")),
                    ("open", AttributeValue::Bool(true)),
                ]),
            ))
            .await
            .unwrap();

        let transfer = |amount: i64| {
            TransactWriteRequest::new(vec![
                TransactWriteItem::update(
                    t.clone(),
                    key("acct#1", "balance"),
                    Update {
                        add: vec![(Path::attr("amount"), n(-amount))],
                        ..Update::default()
                    },
                )
                .with_condition(Condition::Compare(
                    dyno_core::expr::Operand::Path(Path::attr("amount")),
                    dyno_core::expr::Comparator::Ge,
                    dyno_core::expr::Operand::Value(n(amount)),
                ))
                .with_return_old_on_condition_failure(true),
                TransactWriteItem::put(
                    t.clone(),
                    item(&[
                        ("PK", s("acct#2")),
                        ("SK", s(&format!("credit#{amount}"))),
                        ("amount", n(amount)),
                    ]),
                )
                .with_condition(Condition::not_exists("PK")),
                TransactWriteItem::condition_check(
                    t.clone(),
                    key("acct#2", "profile"),
                    Condition::eq("open", AttributeValue::Bool(true)),
                ),
            ])
        };
        let reads = TransactGetRequest::new(vec![
            TransactGetItem::new(t.clone(), key("acct#1", "balance")),
            TransactGetItem::new(t.clone(), key("acct#2", "credit#30")),
            TransactGetItem::new(t.clone(), key("acct#9", "missing")),
        ]);

        // Empty transactions are refused (before sending: moto would answer HTTP 500).
        let err = b
            .store
            .transact_write(TransactWriteRequest::default())
            .await
            .unwrap_err();
        assert!(matches!(err, Error::Validation { .. }), "{who}: {err:?}");
        let err = b
            .store
            .transact_get(TransactGetRequest::default())
            .await
            .unwrap_err();
        assert!(matches!(err, Error::Validation { .. }), "{who}: {err:?}");

        if !supports_transactions(b.kind) {
            // dynalite has no TransactWriteItems/TransactGetItems: the server does not know the
            // operation, and the error says so with its code.
            for err in [
                b.store.transact_write(transfer(30)).await.unwrap_err(),
                b.store.transact_get(reads).await.unwrap_err(),
            ] {
                match err {
                    Error::Service {
                        code: Some(code), ..
                    } => assert_eq!(code, "UnknownOperationException", "{who}"),
                    other => {
                        panic!("{who}: expected an unknown-operation Service error, got {other:?}")
                    }
                }
            }
            drop_table(&b, &t).await;
            continue;
        }

        b.store
            .transact_write(transfer(30))
            .await
            .unwrap_or_else(|e| panic!("{who}: {e}"));
        let out = b.store.transact_get(reads.clone()).await.unwrap();
        assert_eq!(out.items.len(), 3, "{who}");
        assert_eq!(
            out.items[0].as_ref().map(|i| i["amount"].clone()),
            Some(n(70)),
            "{who}"
        );
        assert_eq!(
            out.items[1].as_ref().map(|i| i["amount"].clone()),
            Some(n(30)),
            "{who}"
        );
        assert!(out.items[2].is_none(), "{who}: absent item");

        // Not enough money: cancelled, with a reason per action in order, nothing applied.
        match b.store.transact_write(transfer(500)).await.unwrap_err() {
            Error::TransactionCanceled { reasons } => {
                assert_eq!(reasons.len(), 3, "{who}: {reasons:?}");
                assert!(reasons[0].is_condition_failed(), "{who}: {reasons:?}");
                assert_eq!(
                    reasons[1].code.as_deref(),
                    Some("None"),
                    "{who}: {reasons:?}"
                );
                assert_eq!(
                    reasons[2].code.as_deref(),
                    Some("None"),
                    "{who}: {reasons:?}"
                );
                let old = reasons[0].item.as_ref().map(|i| i["amount"].clone());
                assert_eq!(
                    old,
                    Some(n(70)),
                    "{who}: old item in the cancellation reason"
                );
            }
            other => panic!("{who}: expected TransactionCanceled, got {other:?}"),
        }
        assert!(
            fetch(&b, &t, key("acct#2", "credit#500")).await.is_none(),
            "{who}: nothing applied"
        );
        assert_eq!(
            fetch(&b, &t, key("acct#1", "balance")).await.unwrap()["amount"],
            n(70),
            "{who}"
        );
        drop_table(&b, &t).await;
    }
}

#[tokio::test]
async fn table_admin_round_trips_the_definition_and_ttl() {
    for b in backends().await {
        let who = b.name;
        let d = TableDef::new(
            dyno_tests::backend::unique_table_name("admin"),
            "PK",
            Some("SK"),
        )
        .global_index(IndexDef::new("GSI1", "GSI1PK", Some("GSI1SK")))
        .global_index(IndexDef::new("GSI2", "GSI2PK", None).projection(Projection::KeysOnly))
        .local_index(
            IndexDef::new("LSI1", "PK", Some("LSI1SK"))
                .projection(Projection::Include(vec!["total".into()])),
        )
        .ttl("expires_at");
        b.store
            .create_table(&d)
            .await
            .unwrap_or_else(|e| panic!("{who}: {e}"));
        let desc = b.store.describe_table(&d.name).await.unwrap();
        let mut got = desc.definition;
        if supports_ttl(b.kind) {
            assert_eq!(got, d, "{who}");
        } else {
            // dynalite: the table is created, TTL is not (and DescribeTimeToLive says DISABLED).
            assert_eq!(got.ttl_attribute, None, "{who}");
            got.ttl_attribute = d.ttl_attribute.clone();
            assert_eq!(got, d, "{who}");
            let err = b
                .store
                .update_ttl(&d.name, "expires_at", true)
                .await
                .unwrap_err();
            match err {
                Error::Service {
                    code: Some(code),
                    message,
                    ..
                } => {
                    assert_eq!(code, "UnknownOperationException", "{who}");
                    assert!(
                        message.contains("does not implement UpdateTimeToLive"),
                        "{who}: {message}"
                    );
                }
                other => panic!("{who}: expected Service, got {other:?}"),
            }
        }
        assert_eq!(desc.item_count, Some(0), "{who}");

        if supports_ttl(b.kind) {
            b.store
                .update_ttl(&d.name, "expires_at", false)
                .await
                .unwrap_or_else(|e| panic!("{who}: {e}"));
            let after = b.store.describe_table(&d.name).await.unwrap();
            assert_eq!(after.definition.ttl_attribute, None, "{who}: TTL disabled");
        }

        // Creating it again: ResourceInUse.
        let err = b.store.create_table(&d).await.unwrap_err();
        assert!(matches!(err, Error::ResourceInUse { .. }), "{who}: {err:?}");
        b.store.delete_table(&d.name).await.unwrap();
        // Gone when delete_table returns: describe fails and the name can be reused.
        let err = b.store.describe_table(&d.name).await.unwrap_err();
        assert!(
            matches!(err, Error::ResourceNotFound { .. }),
            "{who}: {err:?}"
        );
        let plain = TableDef::new(d.name.clone(), "PK", None);
        b.store
            .create_table(&plain)
            .await
            .unwrap_or_else(|e| panic!("{who}: reuse name: {e}"));
        assert_eq!(
            b.store.describe_table(&d.name).await.unwrap().definition,
            plain,
            "{who}"
        );
        b.store.delete_table(&d.name).await.unwrap();
    }
}

#[tokio::test]
async fn typed_errors_for_validation_and_missing_tables() {
    for b in backends().await {
        let t = create(&b, "errors").await;
        let who = b.name;

        // A key with a missing sort key.
        let err = b
            .store
            .get_item(get(&t, item(&[("PK", s("a"))])))
            .await
            .unwrap_err();
        assert!(matches!(err, Error::Validation { .. }), "{who}: {err:?}");
        // A put with the wrong key type.
        let err = b
            .store
            .put_item(put(&t, item(&[("PK", n(1)), ("SK", s("x"))])))
            .await
            .unwrap_err();
        assert!(matches!(err, Error::Validation { .. }), "{who}: {err:?}");
        // A key condition on an attribute that is not the key.
        let q = QueryRequest::new(&t, None, KeyCondition::partition("total", n(1)));
        let err = b.store.query(q).await.unwrap_err();
        assert!(matches!(err, Error::Validation { .. }), "{who}: {err:?}");
        // An update that sets a key attribute.
        let u = UpdateRequest::new(
            t.clone(),
            key("a", "1"),
            Update {
                set: vec![(Path::attr("SK"), SetValue::value(s("2")))],
                ..Update::default()
            },
        );
        let err = b.store.update_item(u).await.unwrap_err();
        assert!(matches!(err, Error::Validation { .. }), "{who}: {err:?}");
        // ADD on a string.
        b.store
            .put_item(put(
                &t,
                item(&[("PK", s("a")), ("SK", s("1")), ("name", s("x"))]),
            ))
            .await
            .unwrap();
        let u = UpdateRequest::new(
            t.clone(),
            key("a", "1"),
            Update {
                add: vec![(Path::attr("name"), n(1))],
                ..Update::default()
            },
        );
        let err = b.store.update_item(u).await.unwrap_err();
        assert!(matches!(err, Error::Validation { .. }), "{who}: {err:?}");

        // A table or index that does not exist.
        let missing = dyno_tests::backend::unique_table_name("missing");
        let err = b
            .store
            .get_item(get(&missing, key("a", "1")))
            .await
            .unwrap_err();
        assert!(
            matches!(err, Error::ResourceNotFound { .. }),
            "{who}: {err:?}"
        );
        let err = b.store.delete_table(&missing).await.unwrap_err();
        assert!(
            matches!(err, Error::ResourceNotFound { .. }),
            "{who}: {err:?}"
        );
        let err = b.store.describe_table(&missing).await.unwrap_err();
        assert!(
            matches!(err, Error::ResourceNotFound { .. }),
            "{who}: {err:?}"
        );
        let err = b
            .store
            .update_ttl(&missing, "expires", true)
            .await
            .unwrap_err();
        if supports_ttl(b.kind) {
            // moto sends the code "ResourceNotFound" here (no "Exception"): mapped all the same.
            assert!(
                matches!(err, Error::ResourceNotFound { .. }),
                "{who}: {err:?}"
            );
        } else {
            assert!(matches!(err, Error::Service { .. }), "{who}: {err:?}");
        }
        let q = QueryRequest::new(
            &t,
            Some("NoSuchIndex"),
            KeyCondition::partition("PK", s("a")),
        );
        let err = b.store.query(q).await.unwrap_err();
        // DynamoDB: ValidationException "The table does not have the specified index".
        match b.kind {
            // moto answers ResourceNotFoundException ("Invalid index").
            BackendKind::Moto => assert!(
                matches!(err, Error::ResourceNotFound { .. }),
                "{who}: {err:?}"
            ),
            _ => assert!(matches!(err, Error::Validation { .. }), "{who}: {err:?}"),
        }

        drop_table(&b, &t).await;
    }
}

fn oversized() -> Item {
    let mut i = key("big", "1");
    i.insert(
        "blob".into(),
        AttributeValue::B(vec![7u8; MAX_ITEM_SIZE].into()),
    );
    assert!(item_size(&i) > MAX_ITEM_SIZE);
    i
}

/// Every way to write an oversized item; `table` does not exist.
async fn assert_refused_before_sending(store: &dyn Store, table: &str, who: &str) {
    let too_large = |r: Result<(), Error>, what: &str| match r {
        Err(Error::ItemTooLarge { size, limit, .. }) => {
            assert_eq!(limit, MAX_ITEM_SIZE);
            assert_eq!(size, item_size(&oversized()), "{who}: {what}");
        }
        other => panic!("{who}: {what}: expected ItemTooLarge (no request made), got {other:?}"),
    };
    too_large(
        store.put_item(put(table, oversized())).await.map(drop),
        "put",
    );
    let writes = vec![
        WriteRequest::delete(table.to_owned(), key("a", "1")),
        WriteRequest::put(table.to_owned(), oversized()),
    ];
    too_large(
        store
            .batch_write(BatchWriteRequest::new(writes))
            .await
            .map(drop),
        "batch write",
    );
    let actions = vec![TransactWriteItem::put(table.to_owned(), oversized())];
    too_large(
        store
            .transact_write(TransactWriteRequest::new(actions))
            .await
            .map(drop),
        "transaction",
    );
}

#[tokio::test]
async fn oversized_items_are_refused_before_any_request() {
    // No server at all: any request would fail with OutcomeUnknown (connection refused).
    let nowhere = DynamoStore::local("http://127.0.0.1:9").await;
    assert_refused_before_sending(&nowhere, "NoSuchTable", "unreachable endpoint").await;
    // On the servers, with a table that does not exist: any request would be ResourceNotFound.
    for b in server_backends().await {
        let missing = dyno_tests::backend::unique_table_name("missing");
        assert_refused_before_sending(&*b.store, &missing, b.name).await;
    }
}

#[tokio::test]
async fn an_unreachable_endpoint_is_an_unknown_outcome() {
    let nowhere = DynamoStore::local("http://127.0.0.1:9").await;
    let err = nowhere.put_item(put("T", key("a", "1"))).await.unwrap_err();
    assert!(err.is_outcome_unknown(), "{err:?}");
    assert!(
        std::error::Error::source(&err).is_some(),
        "the SDK error is kept as the source"
    );
}

/// An item of exactly `size` bytes by DynamoDB's formula.
fn item_of_size(size: usize) -> Item {
    let mut i = key("big", "1");
    let room = size - item_size(&i) - "blob".len();
    i.insert("blob".into(), s(&"x".repeat(room)));
    assert_eq!(item_size(&i), size);
    i
}

#[tokio::test]
async fn items_at_the_size_limit_are_accepted() {
    for b in backends().await {
        let t = create(&b, "size").await;
        let at_limit = item_of_size(MAX_ITEM_SIZE);
        let result = b.store.put_item(put(&t, at_limit.clone())).await;
        match b.kind {
            // moto caps items at 405,000 bytes (its own guess at the limit), not 409,600.
            BackendKind::Moto => {
                assert!(
                    matches!(result, Err(Error::Validation { .. })),
                    "{}: {result:?}",
                    b.name
                );
                let under = item_of_size(405_000);
                b.store
                    .put_item(put(&t, under.clone()))
                    .await
                    .unwrap_or_else(|e| panic!("{}: {e}", b.name));
                assert_eq!(
                    fetch(&b, &t, key("big", "1")).await.as_deref(),
                    Some(&under),
                    "{}",
                    b.name
                );
            }
            _ => {
                result.unwrap_or_else(|e| panic!("{}: {e}", b.name));
                assert_eq!(
                    fetch(&b, &t, key("big", "1")).await.as_deref(),
                    Some(&at_limit),
                    "{}",
                    b.name
                );
            }
        }
        drop_table(&b, &t).await;
    }
}

#[tokio::test]
async fn names_and_values_that_look_like_expressions_are_data() {
    for b in backends().await {
        let t = create(&b, "hostile").await;
        let who = b.name;
        let weird: HashMap<&str, AttributeValue> = [
            ("size", s("reserved word")),
            ("a.b", s("dot in a name")),
            ("#n0", s("placeholder-looking name")),
            (":v0", s(") OR attribute_exists(PK")),
        ]
        .into();
        let mut it = key("x", "1");
        it.extend(weird.iter().map(|(k, v)| ((*k).to_owned(), v.clone())));
        b.store.put_item(put(&t, it.clone())).await.unwrap();
        let mut cond = Condition::eq(":v0", s(") OR attribute_exists(PK"));
        for (k, v) in &weird {
            cond = cond.and(Condition::eq(*k, v.clone()));
        }
        let mut guarded = put(&t, it.clone());
        guarded.condition = Some(cond.clone());
        b.store
            .put_item(guarded)
            .await
            .unwrap_or_else(|e| panic!("{who}: {e}"));
        let mut wrong = put(&t, it.clone());
        wrong.condition = Some(Condition::eq("#n0", s("something else")));
        let err = b.store.put_item(wrong).await.unwrap_err();
        assert!(err.is_condition_failed(), "{who}: {err:?}");
        let mut projected = get(&t, key("x", "1"));
        projected.projection = Some(vec![Path::attr("a.b"), Path::attr("size")]);
        let got = b.store.get_item(projected).await.unwrap().item.unwrap();
        assert_eq!(
            *got,
            item(&[("a.b", s("dot in a name")), ("size", s("reserved word"))]),
            "{who}"
        );
        drop_table(&b, &t).await;
    }
}

/// A tracing subscriber that keeps every span's name and fields.
mod capture {
    use std::collections::HashMap;
    use std::fmt::Debug;
    use std::sync::{Arc, Mutex};

    use tracing::field::{Field, Visit};
    use tracing::span::{Attributes, Id, Record};
    use tracing::{Event, Metadata, Subscriber};

    /// One span: its name and its fields as text.
    pub type Span = (String, HashMap<String, String>);

    /// Every span, plus the stack of entered spans (the parent of a new contextual span). Each
    /// span's fields gain `_parent` (its parent's name) and `_parent.<field>` (its parent's fields).
    #[derive(Clone, Default)]
    pub struct Capture(pub Arc<Mutex<Vec<Span>>>, Arc<Mutex<Vec<u64>>>);

    struct Fields<'a>(&'a mut HashMap<String, String>);

    impl Visit for Fields<'_> {
        fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
            self.0.insert(field.name().to_owned(), format!("{value:?}"));
        }
        fn record_str(&mut self, field: &Field, value: &str) {
            self.0.insert(field.name().to_owned(), value.to_owned());
        }
        fn record_f64(&mut self, field: &Field, value: f64) {
            self.0.insert(field.name().to_owned(), value.to_string());
        }
    }

    impl Subscriber for Capture {
        fn enabled(&self, _: &Metadata<'_>) -> bool {
            true
        }
        fn new_span(&self, attrs: &Attributes<'_>) -> Id {
            let mut spans = self.0.lock().unwrap();
            let mut fields = HashMap::new();
            attrs.record(&mut Fields(&mut fields));
            let parent = match attrs.parent() {
                Some(id) => Some(id.into_u64()),
                None if attrs.is_contextual() => self.1.lock().unwrap().last().copied(),
                None => None,
            };
            if let Some(p) = parent {
                let (name, parent_fields) = spans[usize::try_from(p).unwrap() - 1].clone();
                fields.insert("_parent".to_owned(), name);
                for (k, v) in parent_fields {
                    if !k.starts_with('_') {
                        fields.insert(format!("_parent.{k}"), v);
                    }
                }
            }
            spans.push((attrs.metadata().name().to_owned(), fields));
            Id::from_u64(spans.len() as u64)
        }
        fn record(&self, id: &Id, values: &Record<'_>) {
            let mut spans = self.0.lock().unwrap();
            let i = usize::try_from(id.into_u64()).unwrap() - 1;
            values.record(&mut Fields(&mut spans[i].1));
        }
        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, _: &Event<'_>) {}
        fn enter(&self, id: &Id) {
            self.1.lock().unwrap().push(id.into_u64());
        }
        fn exit(&self, id: &Id) {
            let mut stack = self.1.lock().unwrap();
            if let Some(i) = stack.iter().rposition(|x| *x == id.into_u64()) {
                stack.remove(i);
            }
        }
    }
}

#[tokio::test]
async fn every_call_has_a_span_with_its_consumed_capacity() {
    for b in server_backends().await {
        let t = create(&b, "spans").await;
        let capture = capture::Capture::default();
        let guard = tracing::subscriber::set_default(capture.clone());
        b.store.put_item(put(&t, key("a", "1"))).await.unwrap();
        let missing = dyno_tests::backend::unique_table_name("missing");
        b.store
            .get_item(get(&missing, key("a", "1")))
            .await
            .unwrap_err();
        b.store
            .query(QueryRequest::new(
                t.clone(),
                Some("GSI1"),
                KeyCondition::partition("GSI1PK", s("nobody")),
            ))
            .await
            .unwrap();
        drop(guard);

        // OpenTelemetry's semantic conventions for DynamoDB.
        let spans = capture.0.lock().unwrap().clone();
        let ours: Vec<_> = spans
            .iter()
            .filter(|(name, _)| name == "dynamodb")
            .collect();
        assert_eq!(ours.len(), 3, "{}: one span per call: {spans:?}", b.name);
        let (_, put_span) = ours[0];
        assert_eq!(put_span["db.system.name"], "aws.dynamodb");
        assert_eq!(put_span["db.operation.name"], "PutItem");
        assert_eq!(put_span["aws.dynamodb.table_names"], t);
        let units: f64 = put_span["aws.dynamodb.consumed_capacity"].parse().unwrap();
        assert!(units > 0.0, "{}: {put_span:?}", b.name);
        assert!(
            !put_span.contains_key("error.type"),
            "{}: {put_span:?}",
            b.name
        );
        let (_, get_span) = ours[1];
        assert_eq!(get_span["db.operation.name"], "GetItem");
        assert_eq!(get_span["aws.dynamodb.table_names"], missing);
        assert_eq!(get_span["aws.dynamodb.consistent_read"], "true");
        assert_eq!(get_span["error.type"], "ResourceNotFound", "{}", b.name);
        assert!(
            get_span["error.message"].contains(&missing),
            "{}: the missing table is named: {get_span:?}",
            b.name
        );
        assert!(
            !get_span.contains_key("aws.dynamodb.consumed_capacity"),
            "{}: nothing consumed",
            b.name
        );
        let (_, query_span) = ours[2];
        assert_eq!(query_span["db.operation.name"], "Query");
        assert_eq!(query_span["aws.dynamodb.index_name"], "GSI1");
        assert_eq!(query_span["aws.dynamodb.consistent_read"], "false");
        drop_table(&b, &t).await;
    }
}

/// The `dynamodb` span of a typed operation is a child of the operation's `dyno.*` span, which
/// carries dyno's own fields: the entity and, for a query, the index and how it was run.
#[tokio::test]
async fn typed_operations_put_their_entity_and_access_pattern_on_the_parent_span() {
    use dyno_core::ops::EntityExt;
    use dyno_tests::model::{ecommerce_table, Product};
    for b in server_backends().await {
        // The model's entities live in table `ECommerce`: make it, unless a run left it.
        let table = ecommerce_table(dyno_tests::model::TABLE);
        match b.store.create_table(&table).await {
            Ok(()) | Err(Error::ResourceInUse { .. }) => {}
            Err(e) => panic!("{}: {e}", b.name),
        }
        let capture = capture::Capture::default();
        let guard = tracing::subscriber::set_default(capture.clone());
        Product::get(Product::key("span-probe").unwrap())
            .send(&*b.store)
            .await
            .unwrap();
        Product::by_category("span-probe")
            .unwrap()
            .all(&*b.store)
            .await
            .unwrap();
        drop(guard);
        let spans = capture.0.lock().unwrap().clone();
        let ours: Vec<_> = spans
            .iter()
            .filter(|(name, _)| name == "dynamodb")
            .map(|(_, f)| f)
            .collect();
        assert_eq!(ours.len(), 2, "{}: {spans:?}", b.name);
        assert_eq!(ours[0]["_parent"], "dyno.get", "{}", b.name);
        assert_eq!(ours[0]["_parent.entity"], "Product", "{}", b.name);
        assert_eq!(ours[0]["db.operation.name"], "GetItem");
        assert_eq!(ours[1]["_parent"], "dyno.query", "{}", b.name);
        assert!(
            ours[1]["_parent.entity"].ends_with("Product"),
            "{}: {:?}",
            b.name,
            ours[1]
        );
        assert_eq!(ours[1]["_parent.index"], "GSI1", "{}", b.name);
        assert_eq!(ours[1]["aws.dynamodb.index_name"], "GSI1", "{}", b.name);
    }
}
