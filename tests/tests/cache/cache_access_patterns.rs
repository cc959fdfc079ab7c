//! The e-commerce access patterns, end to end through the typed operations, run on every backend
//! (MemoryStore, and dynalite and moto when configured) plain and behind a CachedStore
//! (`dyno_tests::cached`): every read is recorded, and the cached
//! run must observe exactly what the plain run observes, while actually serving reads from the
//! cache. Reads are interleaved with writes, so a stale entry anywhere shows up as a difference.

use std::sync::Arc;

use dyno_cache::CachedStore;
use dyno_core::expr::{Path, SetValue};
use dyno_core::ops::{BatchWriter, EntityExt, Transaction};
use dyno_core::store::TableNames;
use dyno_core::{AttributeValue, MemoryStore, Result, Store};
use dyno_tests::backend::{backends, supports_transactions, unique_table_name};
use dyno_tests::cached::cached;
use dyno_tests::model::{ecommerce_table, Order, OrderStatus, Product, User, TABLE};
use rust_decimal::Decimal;
use time::macros::date;

fn user(id: &str) -> User {
    User {
        user_id: id.into(),
        name: format!("name {id}"),
        email: format!("{id}@example.com"),
    }
}

fn order(user: &str, id: &str, status: OrderStatus) -> Order {
    Order::new(
        user,
        id,
        status,
        date!(2024 - 01 - 15),
        Decimal::new(1999, 2),
    )
}

fn product(id: &str, category: &str, cents: u32) -> Product {
    Product {
        product_id: id.into(),
        name: format!("product {id}"),
        category: category.into(),
        price_cents: cents,
        stock: 3,
    }
}

/// Runs the scenario, recording every read as a line.
async fn scenario(store: &dyn Store, transactions: bool) -> Result<Vec<String>> {
    let mut log = Vec::new();
    macro_rules! read {
        ($label:expr, $e:expr) => {
            log.push(format!("{}: {:?}", $label, $e))
        };
    }
    for u in ["alice", "bob"] {
        user(u).put().send(store).await?;
    }
    let mut batch = BatchWriter::new();
    batch.put(&product("p1", "books", 1500))?;
    batch.put(&product("p2", "books", 900))?;
    batch.put(&product("p3", "toys", 2500))?;
    batch.send(store).await?;
    for (u, o, s) in [
        ("alice", "o1", OrderStatus::Pending),
        ("alice", "o2", OrderStatus::Pending),
        ("alice", "o3", OrderStatus::Shipped),
        ("bob", "o4", OrderStatus::Pending),
    ] {
        order(u, o, s).create().send(store).await?;
    }

    // Every pattern twice: the second read is the cache's to answer.
    for round in 0..2 {
        read!(
            format!("user alice #{round}"),
            User::get(User::key("alice")?).send(store).await?
        );
        read!(
            format!("user carol #{round}"),
            User::get(User::key("carol")?).send(store).await?
        );
        read!(
            format!("orders of alice #{round}"),
            Order::query("alice")?.all(store).await?
        );
        read!(
            format!("pending #{round}"),
            Order::by_status(OrderStatus::Pending)?.all(store).await?
        );
        read!(
            format!("books #{round}"),
            Product::by_category("books")?.all(store).await?
        );
    }

    // Ship o1: an update that moves it between GSI1 partitions.
    let shipped = Order::update(Order::key("alice", "o1")?)
        .set(
            Path::attr("status"),
            SetValue::value(AttributeValue::S("SHIPPED".into())),
        )
        .send(store)
        .await?;
    read!("shipped o1", shipped);
    read!(
        "o1 after update",
        Order::get(Order::key("alice", "o1")?).send(store).await?
    );
    read!(
        "pending after update",
        Order::by_status(OrderStatus::Pending)?.all(store).await?
    );
    read!(
        "shipped after update",
        Order::by_status(OrderStatus::Shipped)?.all(store).await?
    );
    read!(
        "orders of alice after update",
        Order::query("alice")?.all(store).await?
    );

    // Rename a user, reprice a product, delete an order.
    User {
        name: "Alice A.".into(),
        ..user("alice")
    }
    .put()
    .send(store)
    .await?;
    product("p2", "books", 1100).put().send(store).await?;
    read!(
        "deleted o2",
        Order::delete(Order::key("alice", "o2")?)
            .send(store)
            .await?
    );
    read!(
        "user alice after rename",
        User::get(User::key("alice")?).send(store).await?
    );
    read!(
        "books after reprice",
        Product::by_category("books")?.all(store).await?
    );
    read!(
        "o2 after delete",
        Order::get(Order::key("alice", "o2")?).send(store).await?
    );
    read!(
        "orders of alice after delete",
        Order::query("alice")?.all(store).await?
    );

    // Ship bob's order and create carol: in one transaction where the backend has them.
    let ship_o4 = Order::update(Order::key("bob", "o4")?).set(
        Path::attr("status"),
        SetValue::value(AttributeValue::S("SHIPPED".into())),
    );
    if transactions {
        Transaction::new()
            .update(ship_o4)
            .create(&user("carol"))
            .send(store)
            .await?;
    } else {
        ship_o4.send(store).await?;
        user("carol").create().send(store).await?;
    }
    read!(
        "user carol after shipping",
        User::get(User::key("carol")?).send(store).await?
    );
    read!(
        "o4 after shipping",
        Order::get(Order::key("bob", "o4")?).send(store).await?
    );
    read!(
        "pending after shipping",
        Order::by_status(OrderStatus::Pending)?.all(store).await?
    );
    read!(
        "shipped after shipping",
        Order::by_status(OrderStatus::Shipped)?.all(store).await?
    );

    // A failing conditional write changes nothing.
    let err = user("carol")
        .create()
        .send(store)
        .await
        .map(|_| ())
        .unwrap_err();
    read!("create existing carol", err.is_condition_failed());
    read!(
        "user carol after failed create",
        User::get(User::key("carol")?).send(store).await?
    );
    // Batch get across entities.
    read!(
        "batch users",
        dyno_core::ops::BatchGet::new([User::key("alice")?, User::key("bob")?, User::key("dave")?])
            .send(store)
            .await?
            .len()
    );
    Ok(log)
}

/// A fresh e-commerce table on `store`, under a name no other test uses.
async fn fresh(store: Arc<dyn Store>) -> Arc<dyn Store> {
    let names = TableNames::new(store).map(TABLE, unique_table_name("cache-patterns"));
    names.create_table(&ecommerce_table(TABLE)).await.unwrap();
    Arc::new(names)
}

#[tokio::test]
async fn access_patterns_observe_the_same_results_plain_and_cached_on_every_backend() {
    for backend in backends().await {
        let transactions = supports_transactions(backend.kind);
        let plain = fresh(backend.store.clone()).await;
        let through_cache = cached(fresh(backend.store.clone()).await);
        let expected = scenario(plain.as_ref(), transactions)
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", backend.name));
        let observed = scenario(through_cache.as_ref(), transactions)
            .await
            .unwrap_or_else(|e| panic!("{}+cache: {e}", backend.name));
        assert_eq!(expected.len(), observed.len());
        for (a, b) in expected.iter().zip(&observed) {
            assert_eq!(a, b, "{}+cache differs from {}", backend.name, backend.name);
        }
        for store in [plain, through_cache] {
            let _ = store.delete_table(TABLE).await;
        }
    }
}

#[tokio::test]
async fn the_cached_run_is_served_from_the_cache() {
    let plain = scenario(fresh(Arc::new(MemoryStore::new())).await.as_ref(), true)
        .await
        .unwrap();
    let cached = CachedStore::new(fresh(Arc::new(MemoryStore::new())).await);
    let through_cache = scenario(&cached, true).await.unwrap();
    assert_eq!(plain, through_cache);
    let m = cached.metrics();
    assert!(
        m.item.hits + m.item.negative_hits >= 2,
        "second-round gets were hits: {m:?}"
    );
    assert!(m.query.hits >= 3, "second-round queries were hits: {m:?}");
    assert!(
        m.write_through_updates > 0 && m.generation_bumps > 0,
        "{m:?}"
    );
}

/// Records the entity tag of every get that reaches it.
#[derive(Debug)]
struct GetTags {
    inner: Arc<dyn Store>,
    seen: std::sync::Mutex<Vec<Option<std::any::TypeId>>>,
}

#[async_trait::async_trait]
impl dyno_core::store::forward::Forward for GetTags {
    type Inner = dyn Store;
    fn inner(&self) -> &(dyn Store + 'static) {
        &*self.inner
    }
    async fn get_item(
        &self,
        r: dyno_core::store::GetRequest<'_>,
    ) -> Result<dyno_core::store::GetOutput> {
        self.seen.lock().unwrap().push(r.tag.entity_id());
        self.inner.get_item(r).await
    }
}

/// A typed get the cache misses reaches the store below it as the typed call it was (with its
/// entity's tag), so a metering wrapper under the cache attributes it as it would without the
/// cache; a raw get stays untagged.
#[tokio::test]
async fn a_missed_typed_get_reaches_the_store_below_with_its_entity() {
    let tags = Arc::new(GetTags {
        inner: fresh(Arc::new(MemoryStore::new())).await,
        seen: std::sync::Mutex::new(Vec::new()),
    });
    let cached = CachedStore::new(tags.clone() as Arc<dyn Store>);
    user("alice").put().send(&cached).await.unwrap();
    cached.invalidate_all();
    let got = User::get(User::key("alice").unwrap())
        .send(&cached)
        .await
        .unwrap();
    assert_eq!(got, Some(user("alice")));
    let raw = dyno_core::store::GetRequest::new(TABLE, User::key("bob").unwrap().into_item());
    assert!(cached.get_item(raw).await.unwrap().item.is_none());
    assert_eq!(
        *tags.seen.lock().unwrap(),
        [Some(std::any::TypeId::of::<User>()), None]
    );
}
