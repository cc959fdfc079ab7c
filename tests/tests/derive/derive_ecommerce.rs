//! The tutorial's access patterns on the e-commerce model written with derives only
//! (`dyno_tests::ecommerce`), run on every backend: a user's profile; a user's orders; the
//! profile and the orders in one query; orders by status within a date range; products by
//! category under a price; placing an order in a transaction that decrements stock under a
//! condition (where the backend has transactions).
//!
//! The derived table is named `ECommerce`; each test runs on its own table through
//! `TableNames`, so tests can share a server.

use std::future::Future;
use std::sync::Arc;

use dyno_core::ops::{BatchGet, BatchWriter, EntityExt, TransactGet, Transaction};
use dyno_core::ops::{QueryDsl, UpdateDsl};
use dyno_core::store::{PutRequest, TableNames};
use dyno_core::{Entity, Error, MemoryStore, Store};
use dyno_tests::ecommerce::*;
use dyno_tests::fault::FaultStore;
use futures::StreamExt;
use rust_decimal::Decimal;
use time::macros::date;
use time::Date;

use dyno_tests::backend::{backends, supports_transactions, unique_table_name, BackendKind};

/// Runs `scenario` on a fresh e-commerce table on every backend.
async fn on_every_backend<F, Fut>(scenario: F)
where
    F: Fn(Arc<dyn Store>, BackendKind) -> Fut,
    Fut: Future<Output = ()>,
{
    for backend in backends().await {
        let name = unique_table_name("derive-ecommerce");
        let store: Arc<dyn Store> =
            Arc::new(TableNames::new(backend.store.clone()).map("ECommerce", name));
        create_table(&*store)
            .await
            .unwrap_or_else(|e| panic!("{}: create table: {e}", backend.name));
        scenario(store.clone(), backend.kind).await;
        let _ = store.delete_table("ECommerce").await;
    }
}

fn d(s: &str) -> Date {
    Date::parse(s, &time::format_description::well_known::Iso8601::DATE).unwrap()
}

fn dec(units: i64) -> Decimal {
    Decimal::new(units, 0)
}

#[tokio::test]
async fn user_profile() {
    on_every_backend(|store, _| async move {
        let ann = user("u1", "Ann");
        ann.create().send(&*store).await.unwrap();
        let got = User::get(User::key("u1"))
            .send(&*store)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(got.name, "Ann");
        assert_eq!(got.version, 1);
        // Creating it again fails: the profile exists.
        let err = user("u1", "Impostor")
            .create()
            .send(&*store)
            .await
            .unwrap_err();
        assert!(err.is_condition_failed(), "{err}");
        assert!(User::get(User::key("nobody"))
            .send(&*store)
            .await
            .unwrap()
            .is_none());
        // The profile query reads the profile only.
        order("u1", "o1", OrderStatus::Pending, d("2024-01-01"), dec(5))
            .put()
            .send(&*store)
            .await
            .unwrap();
        let profiles = User::query("u1").all(&*store).await.unwrap();
        assert_eq!(profiles, vec![got.clone()]);
        // Renaming the user with optimistic locking.
        let renamed = User::update(User::key("u1"))
            .set_name("Anna")
            .if_version(1)
            .send(&*store)
            .await
            .unwrap();
        assert_eq!((renamed.name.as_str(), renamed.version), ("Anna", 2));
        let stale = User::update(User::key("u1"))
            .set_name("Annie")
            .if_version(1)
            .send(&*store)
            .await
            .unwrap_err();
        assert!(stale.is_condition_failed(), "{stale}");
    })
    .await;
}

async fn seed_orders(store: &dyn Store) -> Vec<Order> {
    user("u1", "Ann").put().send(store).await.unwrap();
    user("u2", "Bob").put().send(store).await.unwrap();
    let orders = vec![
        order(
            "u1",
            "2024-001",
            OrderStatus::Pending,
            d("2024-01-05"),
            dec(10),
        ),
        order(
            "u1",
            "2024-002",
            OrderStatus::Shipped,
            d("2024-01-20"),
            dec(25),
        ),
        order(
            "u1",
            "2024-003",
            OrderStatus::Shipped,
            d("2024-02-11"),
            dec(40),
        ),
        order(
            "u1",
            "2023-900",
            OrderStatus::Delivered,
            d("2023-12-30"),
            dec(7),
        ),
        order(
            "u2",
            "2024-004",
            OrderStatus::Shipped,
            d("2024-01-25"),
            dec(99),
        ),
    ];
    for o in &orders {
        o.put().send(store).await.unwrap();
    }
    for p in [
        product("p1", "books", dec(12), 3),
        product("p2", "books", dec(30), 0),
        product("p3", "books", dec(19), 8),
        product("p4", "games", dec(15), 2),
    ] {
        p.put().send(store).await.unwrap();
    }
    orders
}

fn ids(orders: &[Order]) -> Vec<&str> {
    orders.iter().map(|o| o.order_id.as_str()).collect()
}

#[tokio::test]
async fn a_users_orders() {
    on_every_backend(|store, _| async move {
        seed_orders(&*store).await;
        let orders = Order::query("u1").all(&*store).await.unwrap();
        assert_eq!(
            ids(&orders),
            vec!["2023-900", "2024-001", "2024-002", "2024-003"],
            "in sort-key order, orders only"
        );
        let orders = Order::query("u1")
            .order_id()
            .begins_with("2024")
            .descending()
            .all(&*store)
            .await
            .unwrap();
        assert_eq!(ids(&orders), vec!["2024-003", "2024-002", "2024-001"]);
        let orders = Order::query("u1")
            .order_id()
            .between("2024-001", "2024-002")
            .all(&*store)
            .await
            .unwrap();
        assert_eq!(ids(&orders), vec!["2024-001", "2024-002"]);
        let orders = Order::query("u1")
            .order_id()
            .gt("2024-002")
            .all(&*store)
            .await
            .unwrap();
        assert_eq!(
            ids(&orders),
            vec!["2024-003"],
            "a range never reaches the PROFILE item"
        );
        let big = Order::query("u1")
            .filter(Order::TOTAL.ge(dec(25)))
            .all(&*store)
            .await
            .unwrap();
        assert_eq!(ids(&big), vec!["2024-002", "2024-003"]);
        let first = Order::query("u1").first(&*store).await.unwrap().unwrap();
        assert_eq!(first.order_id, "2023-900");
        assert_eq!(
            Order::query("u1")
                .limit(2)
                .all(&*store)
                .await
                .unwrap()
                .len(),
            2
        );
        assert_eq!(Order::query("u1").count(&*store).await.unwrap(), 4);
        let one = Order::query("u1")
            .order_id()
            .eq("2024-002")
            .consistent()
            .all(&*store)
            .await
            .unwrap();
        assert_eq!(ids(&one), vec!["2024-002"]);

        // Pages with a cursor, and the same items as a stream.
        let mut seen = Vec::new();
        let mut cursor = None;
        loop {
            let page = Order::query("u1")
                .page_size(2)
                .page(&*store, cursor.as_ref())
                .await
                .unwrap();
            seen.extend(page.items.into_iter().map(|o| o.order_id));
            match page.cursor {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        assert_eq!(seen, vec!["2023-900", "2024-001", "2024-002", "2024-003"]);
        let streamed: Vec<String> = Order::query("u1")
            .page_size(1)
            .stream(&*store)
            .map(|o| o.unwrap().order_id)
            .collect()
            .await;
        assert_eq!(streamed, seen);

        // A projection reads only the listed attributes.
        let summaries = Order::query("u1")
            .order_id()
            .begins_with("2024")
            .project::<OrderSummary>()
            .all(&*store)
            .await
            .unwrap();
        assert_eq!(
            summaries,
            vec![
                OrderSummary {
                    order_id: "2024-001".into(),
                    status: OrderStatus::Pending,
                    total: dec(10)
                },
                OrderSummary {
                    order_id: "2024-002".into(),
                    status: OrderStatus::Shipped,
                    total: dec(25)
                },
                OrderSummary {
                    order_id: "2024-003".into(),
                    status: OrderStatus::Shipped,
                    total: dec(40)
                },
            ]
        );
    })
    .await;
}

/// Every read builder answers the same names with the same meaning: `all`, `first`, `count` and
/// `stream` are items, `page` and `pages` are pages; a typed query, a scan and a struct
/// collection agree with each other on what they read.
#[tokio::test]
async fn every_read_builder_speaks_one_vocabulary() {
    use futures::TryStreamExt;
    on_every_backend(|store, _| async move {
        seed_orders(&*store).await;
        let store = &*store;

        // A typed query: items and pages of u1's four orders, two per page.
        let query = || Order::query("u1").page_size(2);
        let all = query().all(store).await.unwrap();
        assert_eq!(all.len(), 4);
        assert_eq!(query().first(store).await.unwrap().as_ref(), all.first());
        assert_eq!(query().count(store).await.unwrap(), 4);
        let streamed: Vec<Order> = query().stream(store).try_collect().await.unwrap();
        assert_eq!(streamed, all);
        let pages: Vec<Vec<Order>> = query().pages(store).try_collect().await.unwrap();
        assert!(pages.len() >= 2, "two per page: {} pages", pages.len());
        assert_eq!(pages.concat(), all);
        let first_page = query().page(store, None).await.unwrap();
        assert_eq!(first_page.items, pages[0]);

        // A scan: the same names, products only (the scan decodes one entity).
        let mut products = Product::scan().all(store).await.unwrap();
        products.sort_by(|a, b| a.product_id.cmp(&b.product_id));
        assert_eq!(products.len(), 4);
        let first = Product::scan()
            .first(store)
            .await
            .unwrap()
            .expect("a product");
        assert!(products.contains(&first));
        assert_eq!(Product::scan().count(store).await.unwrap(), 4);
        let mut streamed: Vec<Product> = Product::scan().stream(store).try_collect().await.unwrap();
        streamed.sort_by(|a, b| a.product_id.cmp(&b.product_id));
        assert_eq!(streamed, products);
        let pages: Vec<Vec<Product>> = Product::scan()
            .page_size(1)
            .pages(store)
            .try_collect()
            .await
            .unwrap();
        let mut paged = pages.concat();
        paged.sort_by(|a, b| a.product_id.cmp(&b.product_id));
        assert_eq!(
            paged,
            products,
            "every product once, over {} pages",
            pages.len()
        );

        // A struct collection: `all` groups everything; `pages` groups each page.
        let grouped = UserWithOrders::query("u1").all(store).await.unwrap();
        assert_eq!(grouped.orders.len(), 4);
        let groups: Vec<UserWithOrders> = UserWithOrders::query("u1")
            .page_size(2)
            .pages(store)
            .try_collect()
            .await
            .unwrap();
        assert!(groups.len() >= 2);
        let orders: Vec<Order> = groups.into_iter().flat_map(|g| g.orders).collect();
        assert_eq!(orders, grouped.orders);
    })
    .await;
}

#[tokio::test]
async fn profile_and_orders_in_one_query() {
    on_every_backend(|store, _| async move {
        seed_orders(&*store).await;
        let items = UserItem::query("u1").all(&*store).await.unwrap();
        assert_eq!(items.len(), 5);
        assert!(
            matches!(items.last(), Some(UserItem::User(u)) if u.name == "Ann"),
            "PROFILE sorts after ORDER#"
        );
        assert_eq!(
            items
                .iter()
                .filter(|i| matches!(i, UserItem::Order(_)))
                .count(),
            4
        );
        let grouped = UserWithOrders::query("u1").all(&*store).await.unwrap();
        assert_eq!(grouped.user.map(|u| u.name).as_deref(), Some("Ann"));
        assert_eq!(
            ids(&grouped.orders),
            vec!["2023-900", "2024-001", "2024-002", "2024-003"]
        );
        let shipped_only = UserItem::query("u1")
            .filter(Order::STATUS.eq(OrderStatus::Shipped))
            .all(&*store)
            .await
            .unwrap();
        assert_eq!(shipped_only.len(), 2);
        let empty = UserWithOrders::query("nobody").all(&*store).await.unwrap();
        assert_eq!(
            empty,
            UserWithOrders {
                user: None,
                orders: vec![]
            }
        );
    })
    .await;
}

#[tokio::test]
async fn orders_by_status_within_a_date_range() {
    on_every_backend(|store, _| async move {
        seed_orders(&*store).await;
        let january = Order::gsi1(OrderStatus::Shipped)
            .order_date()
            .between(date!(2024 - 01 - 01), date!(2024 - 01 - 31))
            .all(&*store)
            .await
            .unwrap();
        assert_eq!(
            ids(&january),
            vec!["2024-002", "2024-004"],
            "both users, by date, no products"
        );
        let recent = Order::gsi1(OrderStatus::Shipped)
            .order_date()
            .ge(date!(2024 - 01 - 21))
            .descending()
            .all(&*store)
            .await
            .unwrap();
        assert_eq!(ids(&recent), vec!["2024-003", "2024-004"]);
        // Shipping an order moves it between the status partitions in the same request.
        Order::update(Order::key("u1", "2024-001"))
            .set_status(OrderStatus::Shipped)
            .send(&*store)
            .await
            .unwrap();
        assert!(Order::gsi1(OrderStatus::Pending)
            .all(&*store)
            .await
            .unwrap()
            .is_empty());
        let shipped = Order::gsi1(OrderStatus::Shipped)
            .order_date()
            .lt(date!(2024 - 01 - 10))
            .all(&*store)
            .await
            .unwrap();
        assert_eq!(ids(&shipped), vec!["2024-001"]);
    })
    .await;
}

#[tokio::test]
async fn products_by_category_under_a_price() {
    on_every_backend(|store, _| async move {
        seed_orders(&*store).await;
        let cheap = Product::gsi1("books")
            .price()
            .lt(dec(20))
            .all(&*store)
            .await
            .unwrap();
        assert_eq!(
            cheap
                .iter()
                .map(|p| p.product_id.as_str())
                .collect::<Vec<_>>(),
            vec!["p1", "p3"],
            "by price"
        );
        let in_stock = Product::gsi1("books")
            .filter(Product::STOCK.gt(0u32))
            .descending()
            .all(&*store)
            .await
            .unwrap();
        assert_eq!(
            in_stock
                .iter()
                .map(|p| p.product_id.as_str())
                .collect::<Vec<_>>(),
            vec!["p3", "p1"]
        );
        let exact = Product::gsi1("books")
            .price()
            .eq(dec(30))
            .all(&*store)
            .await
            .unwrap();
        assert_eq!(exact.len(), 1);
        assert!(Product::gsi1("toys").all(&*store).await.unwrap().is_empty());
    })
    .await;
}

#[tokio::test]
async fn place_an_order_in_a_transaction_that_decrements_stock() {
    on_every_backend(|store, kind| async move {
        if !supports_transactions(kind) {
            return; // dynalite has no transactions
        }
        seed_orders(&*store).await;
        let place = |order_id: &'static str, product_id: &'static str| {
            let mut o = order(
                "u2",
                order_id,
                OrderStatus::Pending,
                d("2024-03-01"),
                dec(12),
            );
            o.product_ids = vec![product_id.into()];
            let decrement = Product::update(Product::key(product_id))
                .subtract_stock(1u32)
                .condition(Product::STOCK.ge(1u32))
                .into_update()
                .unwrap();
            Transaction::new().create(&o).update(decrement)
        };
        place("t1", "p1").send(&*store).await.unwrap();
        let p1 = Product::get(Product::key("p1"))
            .send(&*store)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(p1.stock, 2);
        assert!(Order::get(Order::key("u2", "t1"))
            .send(&*store)
            .await
            .unwrap()
            .is_some());

        // Out of stock: the whole transaction is cancelled, the order is not written.
        let err = place("t2", "p2").send(&*store).await.unwrap_err();
        match &err {
            Error::TransactionCanceled { reasons } => {
                assert_eq!(reasons.len(), 2);
                assert!(reasons[1].is_condition_failed(), "{reasons:?}");
            }
            other => panic!("expected a cancelled transaction, got {other}"),
        }
        assert!(Order::get(Order::key("u2", "t2"))
            .send(&*store)
            .await
            .unwrap()
            .is_none());
        let p2 = Product::get(Product::key("p2"))
            .send(&*store)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(p2.stock, 0);
    })
    .await;
}

#[tokio::test]
async fn items_written_by_other_clients_are_read() {
    on_every_backend(|store, _| async move {
        use dyno_core::AttributeValue::{L, N, S};
        // Conventional keys, no entity type, no separate key attributes.
        let raw = |pairs: &[(&str, dyno_core::AttributeValue)]| -> dyno_core::Item {
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect()
        };
        for item in [
            raw(&[
                ("PK", S("USER#123".into())),
                ("SK", S("PROFILE".into())),
                ("name", S("Legacy".into())),
                ("email", S("l@x".into())),
            ]),
            raw(&[
                ("PK", S("USER#123".into())),
                ("SK", S("ORDER#456".into())),
                ("GSI1PK", S("STATUS#SHIPPED".into())),
                ("GSI1SK", S("2022-05-05".into())),
                ("total", N("3".into())),
                ("product_ids", L(vec![])),
            ]),
        ] {
            store
                .put_item(PutRequest::new("ECommerce", item))
                .await
                .unwrap();
        }
        let grouped = UserWithOrders::query("123").all(&*store).await.unwrap();
        assert_eq!(grouped.user.map(|u| u.user_id).as_deref(), Some("123"));
        assert_eq!(grouped.orders.len(), 1);
        assert_eq!(
            (
                grouped.orders[0].order_id.as_str(),
                grouped.orders[0].status
            ),
            ("456", OrderStatus::Shipped)
        );
        let by_status = Order::gsi1(OrderStatus::Shipped)
            .order_date()
            .eq(date!(2022 - 05 - 05))
            .all(&*store)
            .await
            .unwrap();
        assert_eq!(ids(&by_status), vec!["456"]);
    })
    .await;
}

#[tokio::test]
async fn an_invalid_key_fails_instead_of_reaching_another_item() {
    on_every_backend(|store, kind| async move {
        seed_orders(&*store).await;
        // An empty id cannot be encoded ("USER#" would match every user): the key is refused.
        assert!(Order::try_key("", "2024-001").is_err());
        let get = Order::get(Order::key("", "2024-001")).send(&*store).await;
        assert!(get.is_err(), "{kind:?}: {get:?}");
        let upsert = Order::update(Order::key("", "x"))
            .set_note("n")
            .upsert()
            .send(&*store)
            .await;
        assert!(upsert.is_err(), "{kind:?}: {upsert:?}");
        let query = Order::query("").all(&*store).await;
        assert!(query.is_err(), "{kind:?}: {query:?}");
        assert_eq!(
            Order::query("u1").count(&*store).await.unwrap(),
            4,
            "nothing was written"
        );
    })
    .await;
}

#[tokio::test]
async fn an_upsert_never_creates_an_order_missing_from_its_index() {
    on_every_backend(|store, kind| async move {
        // The note alone cannot give GSI1PK (`STATUS#{status}`) or GSI1SK (`{order_date}`): a
        // created order would never be listed by status, so the upsert is refused unsent.
        let err = Order::update(Order::key("u9", "o9"))
            .set_note("n")
            .upsert()
            .send(&*store)
            .await
            .unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, Error::Validation { .. }), "{kind:?}: {err:?}");
        for needed in [
            "upsert of Order",
            "GSI1PK",
            "`status`",
            "GSI1SK",
            "`order_date`",
        ] {
            assert!(msg.contains(needed), "{kind:?}: {needed} in {msg}");
        }
        // The status alone still leaves the sort key out.
        let err = Order::update(Order::key("u9", "o9"))
            .upsert()
            .set_status(OrderStatus::Pending)
            .send(&*store)
            .await
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("GSI1SK") && !err.contains("GSI1PK"),
            "{kind:?}: {err}"
        );
        assert_eq!(
            Order::get(Order::key("u9", "o9"))
                .send(&*store)
                .await
                .unwrap(),
            None
        );

        // Setting every index field creates an order that its index lists.
        let created = Order::update(Order::key("u9", "o9"))
            .upsert()
            .set_status(OrderStatus::Pending)
            .set_order_date(d("2024-02-01"))
            .set_total(dec(5))
            .set_product_ids(Vec::<String>::new())
            .send(&*store)
            .await
            .unwrap();
        assert_eq!(created.status, OrderStatus::Pending);
        let listed = Order::gsi1(OrderStatus::Pending)
            .order_date()
            .eq(d("2024-02-01"))
            .all(&*store)
            .await
            .unwrap();
        assert_eq!(listed, vec![created], "{kind:?}");
        // Without upsert, an update of an existing order needs no index field.
        Order::update(Order::key("u9", "o9"))
            .set_note("gift")
            .send(&*store)
            .await
            .unwrap();
    })
    .await;
}

/// The error every request built from `Order::key("", ..)` must fail with: the key encoding
/// error, naming the entity and the field, not a generic validation error from the store.
fn assert_key_error<T: std::fmt::Debug>(what: &str, r: dyno_core::Result<T>) {
    match r {
        Err(e @ Error::Key { .. }) => {
            let msg = e.to_string();
            assert!(
                msg.contains("Order") && msg.contains("user_id") && msg.contains("empty"),
                "{what}: {msg}"
            );
        }
        other => panic!("{what}: expected the key's encoding error, got {other:?}"),
    }
}

#[tokio::test]
async fn every_request_from_an_invalid_key_fails_with_its_encoding_error_before_any_call() {
    let store = FaultStore::new(MemoryStore::new());
    create_table(&store).await.unwrap();
    let encoding = Order::try_key("", "2024-001").unwrap_err().to_string();
    let key = Order::key("", "2024-001");
    let debug = format!("{key:?}");
    assert!(
        debug.contains("invalid") && debug.contains("user_id"),
        "{debug}"
    );
    assert_eq!(key.error().map(ToString::to_string), Some(encoding.clone()));
    assert_key_error("try_as_item", key.try_as_item());
    assert_ne!(key, Order::key("u1", "2024-001"));
    let before = store.counts();

    assert_key_error("get", Order::get(key.clone()).send(&store).await);
    assert_key_error("get request", Order::get(key.clone()).request());
    assert_key_error("delete", Order::delete(key.clone()).send(&store).await);
    assert_key_error(
        "delete with version",
        Order::delete(key.clone()).if_version(1).send(&store).await,
    );
    assert_key_error(
        "typed update",
        Order::update(key.clone()).set_note("n").send(&store).await,
    );
    assert_key_error(
        "typed upsert",
        Order::update(key.clone())
            .set_note("n")
            .upsert()
            .send(&store)
            .await,
    );
    assert_key_error(
        "untyped update",
        dyno_core::ops::UpdateBuilder::new(key.clone())
            .remove(dyno_core::expr::Path::attr("note"))
            .send(&store)
            .await,
    );
    let mut writes = BatchWriter::new();
    assert_key_error("batch delete", writes.delete(key.clone()).map(|_| ()));
    assert!(writes.is_empty());
    assert_key_error(
        "batch get",
        BatchGet::new([Order::key("u1", "2024-001"), key.clone()])
            .send_report(&store)
            .await,
    );
    assert_key_error(
        "transaction delete",
        Transaction::new().delete(key.clone()).send(&store).await,
    );
    assert_key_error(
        "transaction check",
        Transaction::new()
            .check(key.clone(), Order::STATUS.eq(OrderStatus::Pending))
            .send(&store)
            .await,
    );
    assert_key_error(
        "typed update builder",
        Order::update(key.clone()).set_note("n").into_update(),
    );
    assert_key_error(
        "transaction update",
        Transaction::new()
            .update(
                dyno_core::ops::UpdateBuilder::new(key.clone())
                    .remove(dyno_core::expr::Path::attr("note")),
            )
            .send(&store)
            .await,
    );
    let mut tx = TransactGet::new();
    tx.get(User::key("u1"));
    tx.get(key.clone());
    assert_key_error("transactional get", tx.send(&store).await);
    // The last use of the only key hands back the original error itself.
    let last = Order::key("", "2024-001").try_into_item().unwrap_err();
    assert_eq!(last.to_string(), encoding);

    assert_eq!(
        store.counts().since(&before).total(),
        0,
        "nothing reached the store"
    );
}

#[test]
fn the_model_is_an_entity_of_the_ecommerce_table() {
    fn table_of<E: Entity<Table = ECommerce>>() {}
    table_of::<User>();
    table_of::<Order>();
    table_of::<Product>();
}

/// A typed sort-key condition whose value is no key segment (an empty `order_id`) fails with
/// the key's encoding error naming the entity and the field, whether the value is the whole
/// segment or a `begins_with` prefix of one's part, and nothing is sent.
#[tokio::test]
async fn a_sort_key_condition_on_an_invalid_value_names_the_entity_and_field() {
    let store = FaultStore::new(MemoryStore::new());
    create_table(&store).await.unwrap();
    let before = store.counts();
    let errors = [
        Order::query("u1").order_id().eq("").all(&store).await,
        Order::query("u1").order_id().lt("").all(&store).await,
        Order::query("u1")
            .order_id()
            .between("", "z")
            .all(&store)
            .await,
    ];
    for (i, r) in errors.into_iter().enumerate() {
        match r {
            Err(e @ Error::Key { .. }) => {
                let msg = e.to_string();
                assert!(
                    msg.contains("Order") && msg.contains("field `order_id`"),
                    "#{i}: {msg}"
                );
            }
            other => panic!("#{i}: expected the key's encoding error, got {other:?}"),
        }
    }
    assert_eq!(
        store.counts().since(&before).total(),
        0,
        "nothing reached the store"
    );
}
