//! Typed single-item operations, versioning, item size, TTL, key escaping and transactions, on the
//! hand-written e-commerce model.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use dyno_core::expr::{Cond, Condition, Path, SetValue};
use dyno_core::ops::{BatchWriter, EntityExt, TransactGet, Transaction};
use dyno_core::store::forward::Call;
use dyno_core::store::*;
use dyno_core::{AttributeValue, Error, MemoryStore, Result, Store};
use dyno_tests::model::{
    ecommerce_table, memory_store as store, order, user, Order, OrderStatus, Product, User, TABLE,
};
use futures::future::BoxFuture;
use rust_decimal::Decimal;

/// A store wrapper counting every call, to prove that some checks happen before any request.
#[derive(Debug)]
struct Counting<S> {
    inner: S,
    calls: AtomicUsize,
}

impl<S> Counting<S> {
    fn new(inner: S) -> Self {
        Counting {
            inner,
            calls: AtomicUsize::new(0),
        }
    }
    fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
    fn tick(&self) {
        self.calls.fetch_add(1, Ordering::SeqCst);
    }
}

#[async_trait]
impl<S: Store> dyno_core::store::forward::Forward for Counting<S> {
    type Inner = S;
    fn inner(&self) -> &S {
        &self.inner
    }
    async fn around<T: Send>(&self, call: Call, inner: BoxFuture<'_, Result<T>>) -> Result<T> {
        if !call.is_admin() {
            self.tick();
        }
        inner.await
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

#[tokio::test]
async fn put_get_delete_round_trip() {
    let store = store().await;
    let alice = user("alice");
    alice.put().send(&store).await.unwrap();
    assert_eq!(
        User::get(User::key("alice").unwrap())
            .send(&store)
            .await
            .unwrap(),
        Some(alice.clone())
    );
    assert_eq!(
        User::get(User::key("alice").unwrap())
            .consistent()
            .send(&store)
            .await
            .unwrap(),
        Some(alice.clone())
    );
    assert_eq!(
        User::get(User::key("bob").unwrap())
            .send(&store)
            .await
            .unwrap(),
        None
    );

    // put is an upsert for unversioned entities.
    let renamed = User {
        name: "Alice A.".into(),
        ..alice.clone()
    };
    renamed.put().send(&store).await.unwrap();
    let old = User::delete(User::key("alice").unwrap())
        .send(&store)
        .await
        .unwrap();
    assert_eq!(old, Some(renamed));
    assert_eq!(
        User::get(User::key("alice").unwrap())
            .send(&store)
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        User::delete(User::key("alice").unwrap())
            .send(&store)
            .await
            .unwrap(),
        None
    );
}

#[tokio::test]
async fn create_fails_if_present_and_replace_fails_if_absent() {
    let store = store().await;
    let bob = user("bob");
    let err = bob.replace().send(&store).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::ConditionFailed {
                entity: Some("User"),
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        User::get(User::key("bob").unwrap())
            .send(&store)
            .await
            .unwrap(),
        None,
        "a failed replace wrote"
    );

    bob.create().send(&store).await.unwrap();
    let other = User {
        name: "impostor".into(),
        ..bob.clone()
    };
    let err = other.create().send(&store).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::ConditionFailed {
                entity: Some("User"),
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        User::get(User::key("bob").unwrap())
            .send(&store)
            .await
            .unwrap(),
        Some(bob.clone())
    );

    other.replace().send(&store).await.unwrap();
    assert_eq!(
        User::get(User::key("bob").unwrap())
            .send(&store)
            .await
            .unwrap(),
        Some(other)
    );
}

#[tokio::test]
async fn conditions_are_anded_with_the_mode() {
    let store = store().await;
    let carol = user("carol");
    carol.create().send(&store).await.unwrap();
    let changed = User {
        email: "new@example.com".into(),
        ..carol.clone()
    };
    let err = changed
        .replace()
        .condition(Cond::raw(Condition::eq(
            "email",
            AttributeValue::S("wrong@example.com".into()),
        )))
        .send(&store)
        .await
        .unwrap_err();
    assert!(err.is_condition_failed(), "{err:?}");
    changed
        .replace()
        .condition(Cond::raw(Condition::eq(
            "email",
            AttributeValue::S(carol.email.clone()),
        )))
        .send(&store)
        .await
        .unwrap();
    assert_eq!(
        User::get(User::key("carol").unwrap())
            .send(&store)
            .await
            .unwrap(),
        Some(changed)
    );
}

#[tokio::test]
async fn versioned_puts_reject_stale_versions() {
    let store = store().await;
    let key = || Order::key("u1", "o1").unwrap();
    let o = order("u1", "o1");
    assert_eq!(o.version, 0);
    o.create().send(&store).await.unwrap();
    let stored = Order::get(key()).send(&store).await.unwrap().unwrap();
    assert_eq!(stored.version, 1, "create writes version 1");

    // Version 0 means "never stored": a put of it must not overwrite the stored order.
    let err = o.put().send(&store).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::ConditionFailed {
                entity: Some("Order"),
                ..
            }
        ),
        "{err:?}"
    );

    let mut fresh = stored.clone();
    fresh.total = Decimal::new(2500, 2);
    fresh.put().send(&store).await.unwrap();
    let after = Order::get(key()).send(&store).await.unwrap().unwrap();
    assert_eq!((after.version, after.total), (2, Decimal::new(2500, 2)));

    // `stored` still says version 1: stale for both put and replace.
    assert!(stored
        .put()
        .send(&store)
        .await
        .unwrap_err()
        .is_condition_failed());
    assert!(stored
        .replace()
        .send(&store)
        .await
        .unwrap_err()
        .is_condition_failed());
    assert_eq!(
        Order::get(key()).send(&store).await.unwrap().unwrap(),
        after
    );
}

#[tokio::test]
async fn updates_require_the_item_bump_the_version_and_check_it() {
    let store = store().await;
    let key = || Order::key("u2", "o1").unwrap();
    let err = Order::update(key())
        .set(
            Path::attr("status"),
            SetValue::value(AttributeValue::S("SHIPPED".into())),
        )
        .send(&store)
        .await
        .unwrap_err();
    assert!(err.is_not_found(), "{err:?}");
    assert_eq!(
        Order::get(key()).send(&store).await.unwrap(),
        None,
        "an update created a partial item"
    );

    order("u2", "o1").create().send(&store).await.unwrap();
    let updated = Order::update(key())
        .set(
            Path::attr("status"),
            SetValue::value(AttributeValue::S("SHIPPED".into())),
        )
        .if_version(1)
        .send(&store)
        .await
        .unwrap();
    assert_eq!((updated.status, updated.version), (OrderStatus::Shipped, 2));

    let err = Order::update(key())
        .add(Path::attr("total"), AttributeValue::N("1".into()))
        .if_version(1)
        .send(&store)
        .await;
    assert!(
        matches!(
            err,
            Err(Error::ConditionFailed {
                entity: Some("Order"),
                ..
            })
        ),
        "{err:?}"
    );

    // Without if_version the update still bumps the version.
    let updated = Order::update(key())
        .add(Path::attr("total"), AttributeValue::N("1".into()))
        .send(&store)
        .await
        .unwrap();
    assert_eq!((updated.version, updated.total), (3, Decimal::new(2099, 2)));

    // Entities without a version refuse if_version before sending.
    let err = User::update(User::key("x").unwrap())
        .if_version(1)
        .send(&store)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Validation { .. }), "{err:?}");
}

#[tokio::test]
async fn upsert_creates_an_item_that_decodes() {
    let store = store().await;
    let created = User::update(User::key("dave").unwrap())
        .set(
            Path::attr("name"),
            SetValue::value(AttributeValue::S("Dave".into())),
        )
        .set(
            Path::attr("email"),
            SetValue::value(AttributeValue::S("dave@example.com".into())),
        )
        .upsert()
        .send(&store)
        .await
        .unwrap();
    assert_eq!(
        created,
        User {
            user_id: "dave".into(),
            name: "Dave".into(),
            email: "dave@example.com".into()
        }
    );
    let raw = store
        .get_item(GetRequest::new(TABLE, User::key("dave").unwrap().into_item()).consistent())
        .await
        .unwrap()
        .item
        .unwrap();
    assert_eq!(
        raw.get("_type"),
        Some(&AttributeValue::S("User".into())),
        "upsert writes the entity type"
    );
}

#[tokio::test]
async fn deletes_can_be_version_checked() {
    let store = store().await;
    let key = || Order::key("u3", "o1").unwrap();
    order("u3", "o1").create().send(&store).await.unwrap();
    let err = Order::delete(key())
        .if_version(7)
        .send(&store)
        .await
        .unwrap_err();
    assert!(err.is_condition_failed(), "{err:?}");
    assert!(Order::get(key()).send(&store).await.unwrap().is_some());
    let old = Order::delete(key())
        .if_version(1)
        .send(&store)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(old.version, 1);
    assert_eq!(Order::get(key()).send(&store).await.unwrap(), None);
    // A version check on a missing item fails rather than passing as "no version".
    assert!(Order::delete(key())
        .if_version(0)
        .send(&store)
        .await
        .unwrap_err()
        .is_condition_failed());
}

/// Read-modify-write with optimistic locking from 8 tasks × 25 increments: every increment lands
/// exactly once. Without the version check, concurrent read-modify-writes would lose updates.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_read_modify_write_loses_no_update() {
    let store = Arc::new(store().await);
    let mut o = order("u4", "counter");
    o.total = Decimal::ZERO;
    o.create().send(&*store).await.unwrap();

    let tasks: Vec<_> = (0..8)
        .map(|_| {
            let store = Arc::clone(&store);
            tokio::spawn(async move {
                let mut conflicts = 0u32;
                for _ in 0..25 {
                    loop {
                        let key = Order::key("u4", "counter").unwrap();
                        let mut current = Order::get(key)
                            .consistent()
                            .send(&*store)
                            .await
                            .unwrap()
                            .unwrap();
                        tokio::task::yield_now().await; // let other writers in between read and write
                        current.total += Decimal::ONE;
                        match current.replace().send(&*store).await {
                            Ok(()) => break,
                            Err(Error::ConditionFailed { .. }) => conflicts += 1,
                            Err(e) => panic!("unexpected error: {e}"),
                        }
                    }
                }
                conflicts
            })
        })
        .collect();
    let mut conflicts = 0;
    for t in tasks {
        conflicts += t.await.unwrap();
    }
    let last = Order::get(Order::key("u4", "counter").unwrap())
        .send(&*store)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        last.total,
        Decimal::from(200),
        "{conflicts} conflicts retried"
    );
    assert_eq!(last.version, 201);
}

#[tokio::test]
async fn items_over_400_kb_are_refused_before_any_request() {
    let store = Counting::new(store().await);
    let big = User {
        name: "x".repeat(401 * 1024),
        ..user("big")
    };

    for err in [
        big.put().send(&store).await.unwrap_err(),
        big.create().send(&store).await.unwrap_err(),
        big.replace().send(&store).await.unwrap_err(),
        Transaction::new().put(&big).send(&store).await.unwrap_err(),
        BatchWriter::new().put(&big).map(|_| ()).unwrap_err(),
        User::update(User::key("big").unwrap())
            .set(
                Path::attr("name"),
                SetValue::value(AttributeValue::S(big.name.clone())),
            )
            .send(&store)
            .await
            .unwrap_err(),
    ] {
        match err {
            Error::ItemTooLarge {
                entity,
                size,
                limit,
            } => {
                assert_eq!(entity, Some("User"));
                assert!(size > limit && limit == 400 * 1024, "{size} {limit}");
            }
            other => panic!("expected ItemTooLarge, got {other:?}"),
        }
    }
    assert_eq!(store.calls(), 0, "a request was made for an oversized item");

    // Just under the limit goes through.
    let fits = User {
        name: "x".repeat(399 * 1024),
        ..user("big")
    };
    fits.put().send(&store).await.unwrap();
    assert_eq!(store.calls(), 1);
}

/// DynamoDB deletes expired items up to days late, and a table without TTL enabled keeps them:
/// either way typed reads must not return them. The table here has no TTL, so the store returns
/// expired items and only the typed layer hides them.
#[tokio::test]
async fn expired_items_are_hidden_from_typed_reads() {
    let store = MemoryStore::new();
    let mut def = ecommerce_table(TABLE);
    def.ttl_attribute = None;
    store.create_table(&def).await.unwrap();

    let mut expired = order("u5", "expired");
    expired.ttl = Some(now() - 3600);
    let mut live = order("u5", "live");
    live.ttl = Some(now() + 3600);
    let forever = order("u5", "forever");
    for o in [&expired, &live, &forever] {
        o.put().send(&store).await.unwrap();
    }

    let raw = store
        .get_item(GetRequest::new(
            TABLE,
            Order::key("u5", "expired").unwrap().into_item(),
        ))
        .await
        .unwrap();
    assert!(
        raw.item.is_some(),
        "the store itself returns the expired item; the test would prove nothing"
    );

    assert_eq!(
        Order::get(Order::key("u5", "expired").unwrap())
            .send(&store)
            .await
            .unwrap(),
        None
    );
    assert!(Order::get(Order::key("u5", "live").unwrap())
        .send(&store)
        .await
        .unwrap()
        .is_some());

    let ids = |v: Vec<Order>| {
        let mut ids: Vec<String> = v.into_iter().map(|o| o.order_id).collect();
        ids.sort();
        ids
    };
    assert_eq!(
        ids(Order::query("u5").unwrap().all(&store).await.unwrap()),
        ["forever", "live"]
    );
    assert_eq!(
        ids(Order::scan().all(&store).await.unwrap()),
        ["forever", "live"]
    );
    assert_eq!(
        ids(Order::by_status(OrderStatus::Pending)
            .unwrap()
            .all(&store)
            .await
            .unwrap()),
        ["forever", "live"]
    );
    let keys = ["expired", "live", "forever"].map(|id| Order::key("u5", id).unwrap());
    assert_eq!(
        ids(dyno_core::ops::BatchGet::new(keys)
            .send(&store)
            .await
            .unwrap()),
        ["forever", "live"]
    );

    let mut tx = TransactGet::new();
    let h_expired = tx.get(Order::key("u5", "expired").unwrap());
    let h_live = tx.get(Order::key("u5", "live").unwrap());
    let results = tx.send(&store).await.unwrap();
    assert_eq!(results.get(&h_expired).unwrap(), None);
    assert_eq!(
        results.get(&h_live).unwrap().map(|o| o.order_id),
        Some("live".to_owned())
    );
}

/// A user id containing the delimiter cannot name or read another user's items, and keys with
/// `#` and `%` round-trip.
#[tokio::test]
async fn key_values_containing_hash_cannot_reach_other_items() {
    let store = store().await;
    user("1").put().send(&store).await.unwrap();
    order("1", "2").put().send(&store).await.unwrap();

    // Unescaped, "USER#" + "1#ORDER#2" would be user 1's order partition and sort key prefix.
    let tricky = "1#ORDER#2";
    assert_eq!(
        User::get(User::key(tricky).unwrap())
            .send(&store)
            .await
            .unwrap(),
        None
    );
    assert!(Order::query(tricky)
        .unwrap()
        .all(&store)
        .await
        .unwrap()
        .is_empty());
    assert!(User::partition::<Order>(tricky)
        .unwrap()
        .all(&store)
        .await
        .unwrap()
        .is_empty());
    assert_ne!(
        User::key(tricky).unwrap().as_item()["PK"],
        Order::key("1", "2").unwrap().as_item()["PK"]
    );

    let t = User {
        user_id: tricky.into(),
        name: "t".into(),
        email: "t@example.com".into(),
    };
    t.create().send(&store).await.unwrap();
    let o = order(tricky, "50%#off");
    o.create().send(&store).await.unwrap();
    assert_eq!(
        User::get(User::key(tricky).unwrap())
            .send(&store)
            .await
            .unwrap(),
        Some(t)
    );
    assert_eq!(
        Order::query(tricky).unwrap().all(&store).await.unwrap(),
        vec![{
            let mut s = o.clone();
            s.version = 1;
            s
        }]
    );
    // User 1 still sees exactly their own order.
    let mine = Order::query("1").unwrap().all(&store).await.unwrap();
    assert_eq!(
        mine.iter()
            .map(|o| (o.user_id.as_str(), o.order_id.as_str()))
            .collect::<Vec<_>>(),
        [("1", "2")]
    );
}

#[tokio::test]
async fn transactions_are_all_or_nothing() {
    let store = Counting::new(store().await);
    let erin = user("erin");
    Transaction::new()
        .create(&erin)
        .create(&order("erin", "o1"))
        .send(&store)
        .await
        .unwrap();
    assert!(User::get(User::key("erin").unwrap())
        .send(&store)
        .await
        .unwrap()
        .is_some());

    // The create of an existing user cancels the whole transaction.
    let err = Transaction::new()
        .create(&order("erin", "o2"))
        .create(&erin)
        .send(&store)
        .await
        .unwrap_err();
    match &err {
        Error::TransactionCanceled { reasons } => {
            assert_eq!(reasons.len(), 2);
            assert!(!reasons[0].is_condition_failed());
            assert!(reasons[1].is_condition_failed());
        }
        other => panic!("expected TransactionCanceled, got {other:?}"),
    }
    assert_eq!(
        Order::get(Order::key("erin", "o2").unwrap())
            .send(&store)
            .await
            .unwrap(),
        None
    );

    // Update, check and delete in one transaction, with versions.
    Transaction::new()
        .update(
            Order::update(Order::key("erin", "o1").unwrap())
                .if_version(1)
                .add(Path::attr("total"), AttributeValue::N("1".into())),
        )
        .check(
            User::key("erin").unwrap(),
            Cond::raw(Condition::exists("email")),
        )
        .token("tx-erin-1")
        .send(&store)
        .await
        .unwrap();
    let o1 = Order::get(Order::key("erin", "o1").unwrap())
        .send(&store)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(o1.version, 2);

    // Checks made before sending: no request.
    let before = store.calls();
    let too_many = (0..101).fold(Transaction::new(), |t, i| t.put(&user(&format!("bulk{i}"))));
    assert!(matches!(
        too_many.send(&store).await,
        Err(Error::Validation { .. })
    ));
    let twice = Transaction::new()
        .put(&user("same"))
        .delete(User::key("same").unwrap());
    assert!(matches!(
        twice.send(&store).await,
        Err(Error::Validation { .. })
    ));
    assert!(matches!(
        Transaction::new().send(&store).await,
        Err(Error::Validation { .. })
    ));
    assert!(matches!(
        Transaction::new().put(&erin).token("").send(&store).await,
        Err(Error::Validation { .. })
    ));
    assert_eq!(store.calls(), before);

    // 100 actions are fine.
    let hundred = (0..100).fold(Transaction::new(), |t, i| t.put(&user(&format!("bulk{i}"))));
    assert_eq!(hundred.len(), 100);
    hundred.send(&store).await.unwrap();
}

#[tokio::test]
async fn transactional_reads_return_typed_results_per_handle() {
    let store = store().await;
    user("fay").put().send(&store).await.unwrap();
    let p = Product {
        product_id: "p1".into(),
        name: "Pen".into(),
        category: "office".into(),
        price_cents: 250,
        stock: 9,
    };
    p.put().send(&store).await.unwrap();

    let mut tx = TransactGet::new();
    let h_user = tx.get(User::key("fay").unwrap());
    let h_product = tx.get(Product::key("p1").unwrap());
    let h_missing = tx.get(Order::key("fay", "none").unwrap());
    let results = tx.send(&store).await.unwrap();
    assert_eq!(results.get(&h_user).unwrap(), Some(user("fay")));
    assert_eq!(results.get(&h_product).unwrap(), Some(p));
    assert_eq!(results.get(&h_missing).unwrap(), None);

    let mut other = TransactGet::new();
    let foreign = other.get(User::key("fay").unwrap());
    assert!(matches!(
        results.get(&foreign),
        Err(Error::Validation { .. })
    ));
    assert!(matches!(
        TransactGet::new().send(&store).await,
        Err(Error::Validation { .. })
    ));
}
