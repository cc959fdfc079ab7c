//! Typed queries and scans: order, limits, cursors, streams, overloaded indexes, sharded indexes,
//! parallel scans, counts.

use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use dyno_core::expr::{Comparator, Cond, Condition, KeyCondition, Operand, Path};
use dyno_core::ops::{Cursor, EntityExt, Query, Scan};
use dyno_core::store::forward::Call;
use dyno_core::store::*;
use dyno_core::{AttributeValue, Entity, Error, MemoryStore, Result, Store};
use dyno_tests::backend::{backends, fresh_table};
use dyno_tests::model::{ecommerce_table, Order, OrderStatus, Product, User, GSI1, TABLE};
use futures::future::BoxFuture;
use futures::{StreamExt, TryStreamExt};
use rust_decimal::Decimal;
use time::{Date, Duration};

/// Counts query and scan requests.
#[derive(Debug)]
struct Counting {
    inner: MemoryStore,
    reads: AtomicUsize,
}

impl Counting {
    fn reads(&self) -> usize {
        self.reads.load(Ordering::SeqCst)
    }
}

#[async_trait]
impl dyno_core::store::forward::Forward for Counting {
    type Inner = MemoryStore;
    fn inner(&self) -> &MemoryStore {
        &self.inner
    }
    async fn around<T: Send>(&self, call: Call, inner: BoxFuture<'_, Result<T>>) -> Result<T> {
        if matches!(call, Call::Query | Call::Scan) {
            self.reads.fetch_add(1, Ordering::SeqCst);
        }
        inner.await
    }
}

fn day(n: i64) -> Date {
    Date::from_calendar_date(2024, time::Month::January, 1).unwrap() + Duration::days(n)
}

/// User "ann" with a profile and 20 orders o00..o19 (dates in reverse order of ids, statuses
/// alternating), user "ben" with 3 orders, 6 products in two categories, and a foreign entity
/// sharing GSI1's STATUS#PENDING partition.
async fn fixture() -> Counting {
    let store = MemoryStore::new();
    store.create_table(&ecommerce_table(TABLE)).await.unwrap();
    User {
        user_id: "ann".into(),
        name: "Ann".into(),
        email: "ann@example.com".into(),
    }
    .put()
    .send(&store)
    .await
    .unwrap();
    for i in 0..20 {
        let status = if i % 2 == 0 {
            OrderStatus::Pending
        } else {
            OrderStatus::Shipped
        };
        Order::new(
            "ann",
            &format!("o{i:02}"),
            status,
            day(40 - i),
            Decimal::from(i),
        )
        .put()
        .send(&store)
        .await
        .unwrap();
    }
    for i in 0..3 {
        Order::new(
            "ben",
            &format!("o{i:02}"),
            OrderStatus::Pending,
            day(100 + i),
            Decimal::ONE,
        )
        .put()
        .send(&store)
        .await
        .unwrap();
    }
    for (i, (cat, price)) in [
        ("pens", 300),
        ("pens", 120),
        ("pens", 9000),
        ("ink", 50),
        ("ink", 700),
        ("pens", 1000),
    ]
    .iter()
    .enumerate()
    {
        Product {
            product_id: format!("p{i}"),
            name: format!("product {i}"),
            category: (*cat).into(),
            price_cents: *price,
            stock: 1,
        }
        .put()
        .send(&store)
        .await
        .unwrap();
    }
    // Another entity type, written by another client, in the same GSI1 partition as pending orders.
    let review = dyno_core::Item::from([
        ("PK".to_owned(), AttributeValue::S("REVIEW#r1".into())),
        ("SK".to_owned(), AttributeValue::S("REVIEW".into())),
        (
            "GSI1PK".to_owned(),
            AttributeValue::S("STATUS#PENDING".into()),
        ),
        ("GSI1SK".to_owned(), AttributeValue::S("2024-01-20".into())),
        ("_type".to_owned(), AttributeValue::S("Review".into())),
    ]);
    store
        .put_item(PutRequest::new(TABLE, review))
        .await
        .unwrap();
    Counting {
        inner: store,
        reads: AtomicUsize::new(0),
    }
}

fn ids(orders: &[Order]) -> Vec<String> {
    orders.iter().map(|o| o.order_id.clone()).collect()
}

fn expected(range: impl Iterator<Item = usize>) -> Vec<String> {
    range.map(|i| format!("o{i:02}")).collect()
}

#[tokio::test]
async fn query_returns_a_partitions_entities_in_sort_key_order() {
    let store = fixture().await;
    let all = Order::query("ann").unwrap().all(&store).await.unwrap();
    assert_eq!(ids(&all), expected(0..20));
    assert!(all.iter().all(|o| o.user_id == "ann" && o.version == 1));
    let desc = Order::query("ann")
        .unwrap()
        .descending()
        .all(&store)
        .await
        .unwrap();
    assert_eq!(ids(&desc), expected((0..20).rev()));
    let limited = Order::query("ann")
        .unwrap()
        .descending()
        .limit(3)
        .all(&store)
        .await
        .unwrap();
    assert_eq!(ids(&limited), expected([19, 18, 17].into_iter()));
    let first = Order::query("ann")
        .unwrap()
        .first(&store)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first.order_id, "o00");
    assert!(Order::query("nobody")
        .unwrap()
        .first(&store)
        .await
        .unwrap()
        .is_none());
}

#[tokio::test]
async fn other_entities_in_a_partition_are_skipped_and_do_not_count_towards_the_limit() {
    let store = fixture().await;
    // The whole partition: the profile sorts after the orders (PROFILE > ORDER#...).
    let orders = User::partition::<Order>("ann")
        .unwrap()
        .all(&store)
        .await
        .unwrap();
    assert_eq!(orders.len(), 20);
    let users = User::partition::<User>("ann")
        .unwrap()
        .all(&store)
        .await
        .unwrap();
    assert_eq!(users.len(), 1);
    // Descending, the profile comes first: the limit counts decoded orders only.
    let two = User::partition::<Order>("ann")
        .unwrap()
        .descending()
        .limit(2)
        .all(&store)
        .await
        .unwrap();
    assert_eq!(ids(&two), expected([19, 18].into_iter()));
}

#[tokio::test]
async fn overloaded_gsi1_returns_only_the_asked_entity() {
    let store = fixture().await;
    let pending = Order::by_status(OrderStatus::Pending)
        .unwrap()
        .all(&store)
        .await
        .unwrap();
    // 10 of ann's and 3 of ben's, by date; the review in the same partition is skipped.
    assert_eq!(pending.len(), 13);
    assert!(pending.iter().all(|o| o.status == OrderStatus::Pending));
    assert!(pending
        .windows(2)
        .all(|w| w[0].order_date <= w[1].order_date));
    let raw = store
        .inner
        .query(QueryRequest::new(
            TABLE,
            Some(GSI1),
            KeyCondition::partition("GSI1PK", AttributeValue::S("STATUS#PENDING".into())),
        ))
        .await
        .unwrap();
    assert_eq!(
        raw.items.len(),
        14,
        "the partition really holds the foreign item"
    );

    let between = Order::by_status_between(OrderStatus::Shipped, day(25), day(31))
        .unwrap()
        .all(&store)
        .await
        .unwrap();
    assert!(between.iter().all(|o| o.order_date >= day(25)
        && o.order_date <= day(31)
        && o.status == OrderStatus::Shipped));
    assert_eq!(
        ids(&between),
        expected([15, 13, 11, 9].into_iter()),
        "shipped orders of days 25 to 31, by date"
    );

    let pens = Product::by_category("pens")
        .unwrap()
        .all(&store)
        .await
        .unwrap();
    assert_eq!(
        pens.iter().map(|p| p.price_cents).collect::<Vec<_>>(),
        [120, 300, 1000, 9000],
        "fixed-width prices sort numerically"
    );
    let dearest_ink = Product::by_category("ink")
        .unwrap()
        .descending()
        .first(&store)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(dearest_ink.price_cents, 700);
}

#[tokio::test]
async fn cursor_pages_concatenate_to_all() {
    let store = fixture().await;
    let query = || Order::query("ann").unwrap().page_size(3);
    let all = query().all(&store).await.unwrap();

    let mut paged = Vec::new();
    let mut cursor: Option<Cursor> = None;
    let mut pages = 0;
    loop {
        let page = query().page(&store, cursor.as_ref()).await.unwrap();
        assert!(page.items.len() <= 3);
        paged.extend(page.items);
        pages += 1;
        match page.cursor {
            // Cursors travel as strings (to a client and back).
            Some(c) => cursor = Some(Cursor::parse(&c.to_string()).unwrap()),
            None => break,
        }
    }
    assert_eq!(ids(&paged), ids(&all));
    assert!(pages >= 7, "{pages} pages");

    // With a filter and a limit across pages: shipped orders only, 4 of them in all.
    let filtered = || {
        Order::query("ann")
            .unwrap()
            .page_size(3)
            .filter(Cond::raw(Condition::eq(
                "status",
                AttributeValue::S("SHIPPED".into()),
            )))
            .limit(4)
    };
    let mut got = Vec::new();
    let mut cursor: Option<Cursor> = None;
    loop {
        let page = filtered().page(&store, cursor.as_ref()).await.unwrap();
        got.extend(page.items);
        match page.cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(ids(&got), expected([1, 3, 5, 7].into_iter()));
    assert_eq!(ids(&filtered().all(&store).await.unwrap()), ids(&got));
}

#[tokio::test]
async fn cursors_are_rejected_on_another_query_and_when_malformed() {
    let store = fixture().await;
    let page = Order::query("ann")
        .unwrap()
        .page_size(2)
        .page(&store, None)
        .await
        .unwrap();
    let cursor = page.cursor.unwrap();

    let others: Vec<Query<Order>> = vec![
        Order::query("ben").unwrap().page_size(2),
        Order::query("ann").unwrap().page_size(2).descending(),
        Order::query("ann")
            .unwrap()
            .page_size(2)
            .filter(Cond::raw(Condition::exists("total"))),
        Order::query("ann")
            .unwrap()
            .page_size(2)
            .projection(vec![Path::attr("PK"), Path::attr("SK")]),
        Order::by_status(OrderStatus::Pending).unwrap().page_size(2),
    ];
    for q in others {
        let err = q.page(&store, Some(&cursor)).await.unwrap_err();
        assert!(matches!(err, Error::InvalidCursor { .. }), "{err:?}");
    }
    let err = Product::scan()
        .page(&store, Some(&cursor))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::InvalidCursor { .. }), "{err:?}");

    // Page size, limit and consistency are not part of the query's identity.
    let next = Order::query("ann")
        .unwrap()
        .page_size(5)
        .consistent()
        .page(&store, Some(&cursor))
        .await
        .unwrap();
    assert_eq!(next.items.first().map(|o| o.order_id.as_str()), Some("o02"));

    let s = cursor.to_string();
    let mut flipped = s.clone().into_bytes();
    flipped[s.len() / 2] = if flipped[s.len() / 2] == b'x' {
        b'y'
    } else {
        b'x'
    };
    for bad in [
        String::new(),
        "garbage!".into(),
        s[..s.len() - 4].to_owned(),
        String::from_utf8(flipped).unwrap(),
        format!("{s}AA"),
    ] {
        assert!(
            matches!(Cursor::parse(&bad), Err(Error::InvalidCursor { .. })),
            "{bad:?} parsed"
        );
    }
}

#[tokio::test]
async fn streams_read_pages_lazily() {
    let store = fixture().await;
    let all: Vec<Order> = Order::query("ann")
        .unwrap()
        .page_size(4)
        .stream(&store)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(ids(&all), expected(0..20));
    let before = store.reads();
    let first_two: Vec<Order> = Order::query("ann")
        .unwrap()
        .page_size(4)
        .stream(&store)
        .take(2)
        .map(|r| r.unwrap())
        .collect()
        .await;
    assert_eq!(ids(&first_two), expected(0..2));
    assert_eq!(
        store.reads() - before,
        1,
        "taking 2 items of 4-item pages reads one page"
    );

    let limited: Vec<Order> = Order::query("ann")
        .unwrap()
        .page_size(4)
        .limit(6)
        .descending()
        .stream(&store)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(ids(&limited), expected((14..20).rev()));

    // An error ends the stream after it is yielded.
    let errors: Vec<Result<Order>> = Order::by_status(OrderStatus::Pending)
        .unwrap()
        .consistent()
        .stream(&store)
        .collect()
        .await;
    assert_eq!(errors.len(), 1);
    assert!(
        matches!(errors[0], Err(Error::Validation { .. })),
        "consistent read on a GSI: {:?}",
        errors[0]
    );
}

#[tokio::test]
async fn counts_are_what_all_returns() {
    let store = fixture().await;
    assert_eq!(
        Order::query("ann").unwrap().count(&store).await.unwrap(),
        20
    );
    assert_eq!(
        Order::query("ann")
            .unwrap()
            .page_size(3)
            .count(&store)
            .await
            .unwrap(),
        20
    );
    let shipped = Order::query("ann").unwrap().filter(Cond::raw(Condition::eq(
        "status",
        AttributeValue::S("SHIPPED".into()),
    )));
    assert_eq!(shipped.count(&store).await.unwrap(), 10);
    assert_eq!(
        Order::query("ann")
            .unwrap()
            .limit(5)
            .count(&store)
            .await
            .unwrap(),
        5
    );
    // The foreign review in STATUS#PENDING is not an order: it is not counted, as `all` skips it.
    let pending = Order::by_status(OrderStatus::Pending).unwrap();
    assert_eq!(pending.clone().count(&store).await.unwrap(), 13);
    assert_eq!(pending.all(&store).await.unwrap().len(), 13);
    let typed = Order::by_status(OrderStatus::Pending)
        .unwrap()
        .filter(Cond::raw(Condition::eq(
            "_type",
            AttributeValue::S("Order".into()),
        )));
    assert_eq!(typed.count(&store).await.unwrap(), 13);
}

#[tokio::test]
async fn scans_decode_one_entity_in_parallel_and_by_pages() {
    let store = fixture().await;
    let mut products = Product::scan().all(&store).await.unwrap();
    products.sort_by(|a, b| a.product_id.cmp(&b.product_id));
    assert_eq!(
        products
            .iter()
            .map(|p| p.product_id.as_str())
            .collect::<Vec<_>>(),
        ["p0", "p1", "p2", "p3", "p4", "p5"]
    );

    let mut parallel = Product::scan()
        .segments(4)
        .page_size(2)
        .all(&store)
        .await
        .unwrap();
    parallel.sort_by(|a, b| a.product_id.cmp(&b.product_id));
    assert_eq!(parallel, products);

    let mut orders = Vec::new();
    let mut cursor = None;
    let scan = || Order::scan().segments(3).page_size(5);
    loop {
        let page = scan().page(&store, cursor.as_ref()).await.unwrap();
        orders.extend(page.items);
        match page.cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(orders.len(), 23);
    let cheap = Product::scan()
        .filter(Cond::raw(Condition::Compare(
            Operand::Path(Path::attr("price_cents")),
            Comparator::Lt,
            Operand::Value(AttributeValue::N("500".into())),
        )))
        .count(&store)
        .await
        .unwrap();
    assert_eq!(cheap, 3);
    assert_eq!(Product::scan().limit(2).all(&store).await.unwrap().len(), 2);
    assert!(matches!(
        Product::scan().segments(0).all(&store).await,
        Err(Error::Validation { .. })
    ));
    let on_gsi: Vec<Order> = Scan::<Order>::new(TABLE)
        .index(GSI1)
        .all(&store)
        .await
        .unwrap();
    assert_eq!(on_gsi.len(), 23);
}

/// The streams of a query and a scan (items and pages) and their `first` are `Send` futures:
/// each runs in a task of its own on a multi-thread runtime, with the same results as in place,
/// other entities of the partition skipped. On MemoryStore and every server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn query_and_scan_streams_run_as_spawned_tasks() {
    for backend in backends().await {
        let store = fresh_table(&backend, &ecommerce_table(TABLE), "spawned_reads").await;
        let name = backend.name;
        User {
            user_id: "ann".into(),
            name: "Ann".into(),
            email: "ann@example.com".into(),
        }
        .put()
        .send(&*store)
        .await
        .unwrap();
        for i in 0..7 {
            Order::new(
                "ann",
                &format!("o{i}"),
                OrderStatus::Pending,
                day(10 - i),
                Decimal::ONE,
            )
            .put()
            .send(&*store)
            .await
            .unwrap();
        }
        let spawned = |store: std::sync::Arc<dyn Store>| {
            tokio::spawn(async move {
                let s = &*store;
                let query = || Order::query("ann").unwrap().page_size(3);
                let streamed: Vec<Order> = query().stream(s).try_collect().await?;
                let pages: Vec<Vec<Order>> = query().pages(s).try_collect().await?;
                let first = query().first(s).await?;
                let scan = || Order::scan().segments(2).page_size(2);
                let scanned: Vec<Order> = scan().stream(s).try_collect().await?;
                let scan_pages: Vec<Vec<Order>> = scan().pages(s).try_collect().await?;
                let scan_first = scan().first(s).await?;
                Ok::<_, Error>((streamed, pages, first, scanned, scan_pages, scan_first))
            })
        };
        let (streamed, pages, first, scanned, scan_pages, scan_first) =
            spawned(store.clone()).await.unwrap().unwrap();
        let all = ids(&streamed);
        assert_eq!(all, ["o0", "o1", "o2", "o3", "o4", "o5", "o6"], "{name}");
        assert!(pages.len() >= 3, "{name}: {} pages of 3", pages.len());
        assert_eq!(ids(&pages.concat()), all, "{name}");
        assert_eq!(first.map(|o| o.order_id).as_deref(), Some("o0"), "{name}");
        let mut scanned = ids(&scanned);
        scanned.sort();
        assert_eq!(scanned, all, "{name}");
        let mut scan_paged = ids(&scan_pages.concat());
        scan_paged.sort();
        assert_eq!(scan_paged, all, "{name}");
        assert!(
            scan_first.is_some_and(|o| all.contains(&o.order_id)),
            "{name}: the first of a scan is one of the orders"
        );
    }
}

/// Orders written across 3 shards of a hot status partition (`STATUS#SHIPPED#<n>`), merged back in
/// date order, ascending and descending, whole and by pages.
#[tokio::test]
async fn sharded_queries_merge_shards_in_sort_key_order() {
    let store = MemoryStore::new();
    store.create_table(&ecommerce_table(TABLE)).await.unwrap();
    let n = 30;
    for i in 0..n {
        // Dates repeat (i / 2) so that equal sort keys span shards.
        let o = Order::new(
            "hot",
            &format!("o{i:02}"),
            OrderStatus::Shipped,
            day(i / 2),
            Decimal::ONE,
        );
        let mut item = o.to_item().unwrap();
        item.insert(
            "GSI1PK".into(),
            AttributeValue::S(format!("STATUS#SHIPPED#{}", (i * 7) % 3)),
        );
        store.put_item(PutRequest::new(TABLE, item)).await.unwrap();
    }
    let keys = || {
        (0..3)
            .map(|s| {
                KeyCondition::partition("GSI1PK", AttributeValue::S(format!("STATUS#SHIPPED#{s}")))
            })
            .collect::<Vec<_>>()
    };
    let sharded =
        || Query::<Order>::sharded(TABLE, Some(GSI1), Some("GSI1SK"), keys()).page_size(2);

    let all = sharded().all(&store).await.unwrap();
    assert_eq!(all.len(), n as usize);
    assert!(
        all.windows(2).all(|w| w[0].order_date <= w[1].order_date),
        "{:?}",
        all.iter().map(|o| o.order_date).collect::<Vec<_>>()
    );
    let mut seen = ids(&all);
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), n as usize, "an item was returned twice");

    let desc = sharded().descending().all(&store).await.unwrap();
    assert_eq!(desc.len(), n as usize);
    assert!(desc.windows(2).all(|w| w[0].order_date >= w[1].order_date));

    let mut paged = Vec::new();
    let mut cursor = None;
    loop {
        let page = sharded().page(&store, cursor.as_ref()).await.unwrap();
        paged.extend(page.items);
        match page.cursor {
            Some(c) => cursor = Some(Cursor::parse(&c.to_string()).unwrap()),
            None => break,
        }
    }
    assert_eq!(ids(&paged), ids(&all));

    let streamed: Vec<Order> = sharded()
        .limit(7)
        .stream(&store)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(ids(&streamed), ids(&all[..7]));
    assert_eq!(sharded().count(&store).await.unwrap(), n as usize);
    assert!(
        Query::<Order>::sharded(TABLE, Some(GSI1), Some("GSI1SK"), vec![])
            .all(&store)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(sharded().request().index.as_deref(), Some(GSI1));
}

/// The encoded key segment of `v`.
fn seg(v: &impl dyno_core::KeyPart) -> Result<String> {
    let mut out = String::new();
    v.encode_key(&mut out)?;
    Ok(out)
}

/// A hand-written entity (no derive) reaches the same typed query and update the derive wraps:
/// `Query::of` with the `sk_*` methods, and `UpdateBuilder`'s attribute setters.
#[tokio::test]
async fn hand_written_entities_build_typed_queries_and_updates() {
    use dyno_core::ops::sort_key::SkOp;
    use dyno_core::ops::UpdateBuilder;

    let store = fixture().await;
    let shipped = format!("STATUS#{}", seg(&OrderStatus::Shipped).unwrap());
    // Shipped orders from day 25 on, by date: the table's own GSI1 key attributes and the
    // entity's GSI1 sort template come from the definitions.
    let from_25 = Query::<Order>::of::<Order>(Some(GSI1), Ok(shipped.clone()))
        .sk_compare(seg(&day(25)), true, SkOp::Ge)
        .all(&store)
        .await
        .unwrap();
    assert_eq!(
        ids(&from_25),
        expected([15, 13, 11, 9, 7, 5, 3, 1].into_iter())
    );
    let between = Query::<Order>::of::<Order>(Some(GSI1), Ok(shipped))
        .sk_between(seg(&day(25)), seg(&day(31)), true)
        .all(&store)
        .await
        .unwrap();
    let reference = Order::by_status_between(OrderStatus::Shipped, day(25), day(31))
        .unwrap()
        .all(&store)
        .await
        .unwrap();
    assert_eq!(between, reference);
    // On the table: the partition and the literal `ORDER#` bound the sort key.
    let mine = Query::<Order>::of::<Order>(None, Ok("USER#ben".into()))
        .sk_begins_with(Ok("o0".into())) // after the literal `ORDER#`
        .count(&store)
        .await
        .unwrap();
    assert_eq!(mine, 3);
    // An index the table does not declare, a key that failed to encode: errors when run.
    let err = Query::<Order>::of::<Order>(Some("GSI9"), Ok("x".into()))
        .all(&store)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("declares no index GSI9"), "{err}");
    // An index the table declares but the entity has no key in: the message lists its indexes.
    let err = Query::<User>::of::<User>(Some(GSI1), Ok("x".into()))
        .all(&store)
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("`User` has no key in GSI1; its indexes: none"),
        "{err}"
    );
    let err = Query::<Product>::of::<Product>(Some("GSI1"), Ok("x".into()))
        .first(&store)
        .await;
    assert!(err.is_ok(), "Product has a key in GSI1: {err:?}");
    let err = Query::<Order>::of::<Order>(None, seg(&String::new()))
        .first(&store)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Key { .. }), "{err}");

    // An update: attribute setters, a typed-or-raw condition and the version check.
    let key = Order::key("ann", "o03").unwrap();
    let mut update = UpdateBuilder::new(key.clone())
        .condition(Cond::raw(Condition::exists("total")))
        .if_version(1);
    update.set_value("total", Ok(Some(AttributeValue::N("99".into()))));
    update.add_value("total", Ok(Some(AttributeValue::N("1".into())))); // replaces the set
    let order = update.send(&store).await.unwrap();
    assert_eq!((order.total, order.version), (Decimal::from(4), 2));
    let stale = UpdateBuilder::new(key)
        .if_version(1)
        .send(&store)
        .await
        .unwrap_err();
    assert!(matches!(stale, Error::ConditionFailed { .. }), "{stale}");
}
