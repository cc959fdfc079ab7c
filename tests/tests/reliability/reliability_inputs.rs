//! The bad-input table: each row of `docs/bad-inputs.md` is a test here (or, for
//! faults over the wire, in the file the table names). Each test gives one bad input or fault the
//! way a new user would, and asserts what the user gets: the error variant, what its message
//! names, and whether anything was written.

use std::sync::Arc;
use std::time::Duration;

use dyno_core::expr::{Condition, KeyCondition, Path};
use dyno_core::ops::{BatchGet, BatchWriter, Cursor, EntityExt, Transaction};
use dyno_core::store::{
    BatchWriteRequest, GetRequest, PutRequest, QueryRequest, TableNames, TransactWriteRequest,
    WriteRequest,
};
use dyno_core::value::{get_attr, item_size, to_value, MAX_ITEM_SIZE};
use dyno_core::{AttributeValue, Error, Item, MemoryStore, Store, TableDef};
use dyno_tests::backend::{backends, unique_table_name, Backend};
use dyno_tests::model::{
    ecommerce_table, memory_store as store, order, user, Order, OrderStatus, Product, User, TABLE,
};
use rust_decimal::Decimal;

/// A TTL a minute in the past, in epoch seconds: expired. (A time more than five years past
/// never expires, by DynamoDB's TTL rule, so tests of expiry use a recent one.)
fn a_minute_ago() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        - 60
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn raw_put(item: Item) -> PutRequest {
    PutRequest::new(TABLE.to_owned(), item)
}

fn raw_key(pk: &str, sk: &str) -> Item {
    Item::from([("PK".to_owned(), s(pk)), ("SK".to_owned(), s(sk))])
}

/// Items of every entity in the table.
async fn count(store: &MemoryStore) -> usize {
    User::scan().all(store).await.map(|v| v.len()).unwrap_or(0)
        + Order::scan().all(store).await.map(|v| v.len()).unwrap_or(0)
        + Product::scan()
            .all(store)
            .await
            .map(|v| v.len())
            .unwrap_or(0)
}

// ---- keys ----

#[tokio::test]
async fn row01_delimiter_in_an_id_cannot_reach_another_users_items() {
    let store = store().await;
    user("victim").put().send(&store).await.unwrap();
    order("victim", "1").put().send(&store).await.unwrap();
    // An id that spells another user's key after the prefix.
    let hostile = user("victim#PROFILE");
    hostile.put().send(&store).await.unwrap();
    let victim = User::get(User::key("victim").unwrap())
        .send(&store)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(victim.user_id, "victim");
    assert_eq!(
        Order::query("victim")
            .unwrap()
            .all(&store)
            .await
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        Order::query("victim#ORDER#")
            .unwrap()
            .all(&store)
            .await
            .unwrap()
            .len(),
        0
    );
    let back = User::get(User::key("victim#PROFILE").unwrap())
        .send(&store)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(back, hostile, "the id round-trips exactly");
}

#[tokio::test]
async fn row02_empty_key_field_is_a_key_error_naming_the_field() {
    let err = User::key("").unwrap_err();
    assert!(matches!(err, Error::Key { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("User") && text.contains("`user_id`"),
        "{text}"
    );
    let store = store().await;
    assert!(user("").put().send(&store).await.is_err());
    assert_eq!(count(&store).await, 0, "nothing written");
}

#[tokio::test]
async fn row03_key_over_dynamodbs_size_limits_is_refused_before_sending_naming_entity_and_field() {
    let store = dyno_tests::fault::FaultStore::new(store().await);
    let long = "k".repeat(3000);
    // A put, a get, an update, a delete and a batch: each refused before any call.
    let errors = [
        user(&long).put().send(&store).await.unwrap_err(),
        User::get(User::key(&long).unwrap())
            .send(&store)
            .await
            .unwrap_err(),
        User::update(User::key(&long).unwrap())
            .set(Path::attr("name"), dyno_core::expr::SetValue::value(s("x")))
            .send(&store)
            .await
            .unwrap_err(),
        User::delete(User::key(&long).unwrap())
            .send(&store)
            .await
            .unwrap_err(),
        BatchWriter::new().put(&user(&long)).unwrap_err(),
        order("u", &"o".repeat(1100))
            .put()
            .send(&store)
            .await
            .unwrap_err(),
    ];
    for (i, err) in errors.iter().enumerate() {
        assert!(matches!(err, Error::Key { .. }), "#{i}: {err:?}");
        let text = err.to_string();
        let (entity, field, limit) = if i == 5 {
            ("Order", "`order_id`", "1024")
        } else {
            ("User", "`user_id`", "2048")
        };
        assert!(
            text.contains(entity) && text.contains(field) && text.contains(limit),
            "#{i}: {text}"
        );
    }
    assert_eq!(store.counts().total(), 0, "nothing was sent");
}

/// Index keys are checked like primary keys: before sending, naming the entity, the index and
/// the field (the store used to refuse them naming only `GSI1PK`).
#[tokio::test]
async fn row57_index_key_over_dynamodbs_size_limits_is_refused_before_sending_naming_entity_index_and_field(
) {
    let store = dyno_tests::fault::FaultStore::new(store().await);
    let product = |category: String| Product {
        product_id: "p1".into(),
        name: "Pen".into(),
        category,
        price_cents: 150,
        stock: 3,
    };
    let long = product("c".repeat(3000));
    let errors = [
        long.put().send(&store).await.unwrap_err(),
        long.create().send(&store).await.unwrap_err(),
        BatchWriter::new().put(&long).map(|_| ()).unwrap_err(),
        Transaction::new()
            .put(&long)
            .send(&store)
            .await
            .unwrap_err(),
        Product::update(Product::key("p1").unwrap())
            .set(
                Path::attr("GSI1PK"),
                dyno_core::expr::SetValue::value(s(&format!("CATEGORY#{}", "c".repeat(3000)))),
            )
            .send(&store)
            .await
            .unwrap_err(),
    ];
    for (i, err) in errors.iter().enumerate() {
        assert!(matches!(err, Error::Key { .. }), "#{i}: {err:?}");
        let text = err.to_string();
        for says in ["Product", "GSI1PK of index GSI1", "`category`", "2048"] {
            assert!(text.contains(says), "#{i}: {text}");
        }
    }
    assert_eq!(store.counts().total(), 0, "nothing was sent");
    // At the limit it is accepted: "CATEGORY#" and 2,039 bytes.
    product("c".repeat(2048 - "CATEGORY#".len()))
        .put()
        .send(&store)
        .await
        .unwrap();
}

#[tokio::test]
async fn row04_ids_differing_only_in_case_are_distinct_items() {
    let store = store().await;
    user("Abc").put().send(&store).await.unwrap();
    assert!(User::get(User::key("abc").unwrap())
        .send(&store)
        .await
        .unwrap()
        .is_none());
}

#[tokio::test]
async fn row05_unicode_ids_round_trip() {
    let store = store().await;
    let u = user("zoë-東京-🦀");
    u.put().send(&store).await.unwrap();
    let back = User::get(User::key("zoë-東京-🦀").unwrap())
        .send(&store)
        .await
        .unwrap();
    assert_eq!(back, Some(u));
}

// ---- values ----

#[test]
fn row06_nan_is_an_encode_error() {
    let err = to_value(&f64::NAN).unwrap_err();
    assert!(matches!(err, Error::Encode { .. }), "{err:?}");
    assert!(err.to_string().to_lowercase().contains("nan"), "{err}");
}

#[test]
fn row07_infinity_is_an_encode_error() {
    for v in [f64::INFINITY, f64::NEG_INFINITY] {
        assert!(matches!(to_value(&v), Err(Error::Encode { .. })), "{v}");
    }
}

#[tokio::test]
async fn row08_number_with_39_significant_digits_is_refused() {
    let store = store().await;
    let mut item = raw_key("N#1", "N");
    item.insert("n".into(), AttributeValue::N("1".repeat(39)));
    let err = store.put_item(raw_put(item)).await.unwrap_err();
    assert!(matches!(err, Error::Validation { .. }), "{err:?}");
    let mut item = raw_key("N#1", "N");
    item.insert("n".into(), AttributeValue::N("1".repeat(38)));
    store.put_item(raw_put(item)).await.unwrap();
}

#[test]
fn row09_number_too_large_for_the_field_is_a_decode_error() {
    let item = Item::from([("stock".to_owned(), AttributeValue::N("300".into()))]);
    let err = get_attr::<u8>(&item, "Product", "stock").unwrap_err();
    assert!(matches!(err, Error::Decode { .. }), "{err:?}");
    assert!(err.to_string().contains("300"), "{err}");
}

#[test]
fn row10_negative_number_into_unsigned_field_is_a_decode_error() {
    let item = Item::from([("stock".to_owned(), AttributeValue::N("-1".into()))]);
    assert!(matches!(
        get_attr::<u32>(&item, "Product", "stock"),
        Err(Error::Decode { .. })
    ));
}

#[tokio::test]
async fn row11_wrong_attribute_type_is_a_decode_error_naming_entity_and_attribute() {
    let store = store().await;
    user("u1").put().send(&store).await.unwrap();
    let mut item = raw_key("USER#u1", "PROFILE");
    item.insert("_type".into(), s("User"));
    item.insert("name".into(), AttributeValue::N("5".into()));
    item.insert("email".into(), s("e"));
    store.put_item(raw_put(item)).await.unwrap();
    let err = User::get(User::key("u1").unwrap())
        .send(&store)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Decode { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("User") && text.contains("name"), "{text}");
}

#[tokio::test]
async fn row12_missing_required_attribute_is_a_decode_error() {
    let store = store().await;
    let mut item = raw_key("USER#u2", "PROFILE");
    item.insert("_type".into(), s("User"));
    item.insert("name".into(), s("Ann"));
    store.put_item(raw_put(item)).await.unwrap();
    let err = User::get(User::key("u2").unwrap())
        .send(&store)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Decode { .. }), "{err:?}");
    assert!(err.to_string().contains("email"), "{err}");
}

#[test]
fn row13_empty_set_is_an_encode_error() {
    let empty: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    assert!(matches!(to_value(&empty), Err(Error::Encode { .. })));
}

#[tokio::test]
async fn row14_item_over_400_kb_is_refused_before_sending_naming_entity_and_size() {
    let store = store().await;
    let mut u = user("big");
    u.name = "x".repeat(MAX_ITEM_SIZE);
    let err = u.put().send(&store).await.unwrap_err();
    match &err {
        Error::ItemTooLarge { entity, size, .. } => {
            assert_eq!(*entity, Some("User"));
            assert!(*size > MAX_ITEM_SIZE);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(count(&store).await, 0);
}

#[tokio::test]
async fn row15_item_of_exactly_400_kb_is_accepted() {
    let store = store().await;
    let mut u = user("edge");
    u.name = String::new();
    let base = {
        let mut item = dyno_core::Entity::to_item(&u).unwrap();
        item.remove("name");
        item_size(&item) + "name".len()
    };
    u.name = "x".repeat(MAX_ITEM_SIZE - base);
    u.put().send(&store).await.unwrap();
    u.name.push('x');
    assert!(matches!(
        u.put().send(&store).await,
        Err(Error::ItemTooLarge { .. })
    ));
}

#[tokio::test]
async fn row16_empty_string_attribute_is_stored_and_read_back() {
    let store = store().await;
    let mut u = user("empty");
    u.email = String::new();
    u.put().send(&store).await.unwrap();
    let back = User::get(User::key("empty").unwrap())
        .send(&store)
        .await
        .unwrap();
    assert_eq!(back, Some(u));
}

#[tokio::test]
async fn row17_expression_text_in_values_is_stored_verbatim() {
    let store = store().await;
    let mut u = user("inject");
    u.name = "x) OR attribute_exists(PK) OR (#n = :v".to_owned();
    u.email = "#name :value ;-- REMOVE PK".to_owned();
    u.put().send(&store).await.unwrap();
    let back = User::get(User::key("inject").unwrap())
        .send(&store)
        .await
        .unwrap();
    assert_eq!(back, Some(u));
    assert_eq!(count(&store).await, 1);
}

#[tokio::test]
async fn row18_attribute_names_with_dots_and_reserved_words_work() {
    let store = store().await;
    let mut item = raw_key("RAW#1", "R");
    item.insert("a.b".into(), s("dot"));
    item.insert("size".into(), s("reserved"));
    store.put_item(raw_put(item.clone())).await.unwrap();
    let mut get = GetRequest::new(TABLE.to_owned(), raw_key("RAW#1", "R"));
    get.projection = Some(vec![Path::attr("a.b"), Path::attr("size")]);
    let got = store.get_item(get).await.unwrap().item.unwrap();
    assert_eq!(got.len(), 2);
    assert_eq!(got["a.b"], s("dot"));
}

// ---- writes ----

#[tokio::test]
async fn row19_create_over_an_existing_item_is_a_condition_failure_for_the_entity() {
    let store = store().await;
    user("u").create().send(&store).await.unwrap();
    let mut other = user("u");
    other.name = "Bob".into();
    let err = other.create().send(&store).await.unwrap_err();
    assert!(matches!(err, Error::ConditionFailed { .. }), "{err:?}");
    let kept = User::get(User::key("u").unwrap())
        .send(&store)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(kept.name, "name u", "nothing written");
}

#[tokio::test]
async fn row20_replace_of_a_missing_item_is_a_condition_failure_and_writes_nothing() {
    let store = store().await;
    let err = user("ghost").replace().send(&store).await.unwrap_err();
    assert!(matches!(err, Error::ConditionFailed { .. }), "{err:?}");
    assert_eq!(count(&store).await, 0);
}

#[tokio::test]
async fn row21_stale_version_is_a_condition_failure_and_keeps_the_newer_item() {
    let store = store().await;
    let mut o = order("u", "o1");
    o.put().send(&store).await.unwrap(); // version 1
    let stale = o.clone();
    o.total = Decimal::new(1, 0);
    o.version = 1;
    o.put().send(&store).await.unwrap(); // version 2
    let err = Order::delete(Order::key("u", "o1").unwrap())
        .if_version(stale.version)
        .send(&store)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::ConditionFailed { .. }), "{err:?}");
    let kept = Order::get(Order::key("u", "o1").unwrap())
        .send(&store)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(kept.version, 2);
}

#[tokio::test]
async fn row22_duplicate_keys_in_a_batch_are_refused_before_sending() {
    let mut batch = BatchWriter::new();
    batch.put(&user("dup")).unwrap();
    let err = batch.put(&user("dup")).unwrap_err();
    assert!(matches!(err, Error::Validation { .. }), "{err:?}");
    let keys = [User::key("a").unwrap(), User::key("a").unwrap()];
    let store = store().await;
    let err = BatchGet::new(keys).send(&store).await.unwrap_err();
    assert!(matches!(err, Error::Validation { .. }), "{err:?}");
}

#[tokio::test]
async fn row23_transaction_of_101_actions_is_refused_before_sending() {
    let store = store().await;
    let mut tx = Transaction::new();
    for i in 0..101 {
        tx = tx.put(&user(&format!("t{i}")));
    }
    let err = tx.send(&store).await.unwrap_err();
    assert!(matches!(err, Error::Validation { .. }), "{err:?}");
    assert!(err.to_string().contains("101"), "{err}");
    assert_eq!(count(&store).await, 0);
}

#[tokio::test]
async fn row24_two_actions_on_one_item_in_a_transaction_are_refused() {
    let store = store().await;
    let err = Transaction::new()
        .put(&user("same"))
        .delete(User::key("same").unwrap())
        .send(&store)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Validation { .. }), "{err:?}");
    assert_eq!(count(&store).await, 0);
}

#[tokio::test]
async fn row25_empty_transaction_and_empty_batch_are_validation_errors() {
    let store = store().await;
    assert!(matches!(
        Transaction::new().send(&store).await,
        Err(Error::Validation { .. })
    ));
    let err = store
        .transact_write(TransactWriteRequest::new(Vec::new()))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Validation { .. }), "{err:?}");
    let err = store
        .batch_write(BatchWriteRequest::new(Vec::new()))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Validation { .. }), "{err:?}");
}

#[tokio::test]
async fn row26_client_request_token_over_36_characters_is_refused() {
    let store = store().await;
    let err = Transaction::new()
        .put(&user("tok"))
        .token("x".repeat(37))
        .send(&store)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Validation { .. }), "{err:?}");
    assert!(err.to_string().contains("36"), "{err}");
}

#[tokio::test]
async fn row27_batch_write_of_an_item_over_400_kb_is_refused_when_added() {
    let mut batch = BatchWriter::new();
    let mut u = user("huge");
    u.name = "x".repeat(MAX_ITEM_SIZE);
    assert!(matches!(batch.put(&u), Err(Error::ItemTooLarge { .. })));
    assert!(batch.is_empty());
}

/// A fresh table of the e-commerce model (users, orders and products sharing keys and GSI1) on
/// `backend`, under a name of its own.
async fn fresh(backend: &Backend, prefix: &str) -> Arc<dyn Store> {
    let store: Arc<dyn Store> =
        Arc::new(TableNames::new(backend.store.clone()).map(TABLE, unique_table_name(prefix)));
    store
        .create_table(&ecommerce_table(TABLE))
        .await
        .unwrap_or_else(|e| panic!("{}: create table: {e}", backend.name));
    store
}

/// Regression: a batch put of a stale copy (v1 over v2) used to succeed,
/// losing the newer change and leaving two contents with version 2.
#[tokio::test]
async fn row56_batch_put_of_a_versioned_entity_is_refused_unless_the_code_opts_out() {
    for backend in backends().await {
        let who = backend.name;
        let store = fresh(&backend, "batch-version").await;
        let store = &*store;
        order("ann", "1").put().send(store).await.unwrap(); // version 1
        let stale = Order::get(Order::key("ann", "1").unwrap())
            .send(store)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(stale.version, 1, "{who}");
        let mut newer = stale.clone();
        newer.status = OrderStatus::Shipped;
        newer.put().send(store).await.unwrap(); // version 2

        // Users and products (no version field) in the same batch, the user in the order's
        // partition: still accepted.
        let mut batch = BatchWriter::new();
        batch.put(&user("ann")).unwrap();
        batch
            .put(&Product {
                product_id: "p1".into(),
                name: "Pen".into(),
                category: "office".into(),
                price_cents: 150,
                stock: 3,
            })
            .unwrap();
        let err = batch.put(&stale).map(|_| ()).unwrap_err();
        let Error::Validation { message } = &err else {
            panic!("{who}: {err:?}")
        };
        for says in ["Order", "`version`", "put_ignoring_version", "Transaction"] {
            assert!(message.contains(says), "{who}: {message}");
        }
        assert_eq!(batch.len(), 2, "{who}: the refused put is not in the batch");
        let err = BatchWriter::new()
            .put_all([&order("bob", "9"), &stale])
            .map(|_| ())
            .unwrap_err();
        assert!(matches!(err, Error::Validation { .. }), "{who}: {err:?}");
        batch.send(store).await.unwrap();
        let stored = Order::get(Order::key("ann", "1").unwrap())
            .send(store)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (stored.status, stored.version),
            (OrderStatus::Shipped, 2),
            "{who}: the newer change is kept"
        );
        assert!(User::get(User::key("ann").unwrap())
            .send(store)
            .await
            .unwrap()
            .is_some());

        // The explicit opt-out writes without the check, as its name says.
        let mut restore = BatchWriter::new();
        restore.put_ignoring_version(&stale).unwrap();
        restore.send(store).await.unwrap();
        let stored = Order::get(Order::key("ann", "1").unwrap())
            .send(store)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (stored.status, stored.version),
            (OrderStatus::Pending, 2),
            "{who}"
        );
    }
}

// ---- reads, queries, cursors ----

#[tokio::test]
async fn row28_tampered_cursor_is_refused() {
    let store = store().await;
    for i in 0..5 {
        order("c", &format!("o{i}"))
            .put()
            .send(&store)
            .await
            .unwrap();
    }
    let q = Order::query("c").unwrap().page_size(2);
    let page = q.page(&store, None).await.unwrap();
    let cursor = page.cursor.unwrap().to_string();
    let mut tampered = cursor.into_bytes();
    let last = tampered.len() - 3;
    tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
    let err = Cursor::parse(&String::from_utf8(tampered).unwrap()).unwrap_err();
    assert!(matches!(err, Error::InvalidCursor { .. }), "{err:?}");
}

#[tokio::test]
async fn row29_cursor_of_another_query_is_refused() {
    let store = store().await;
    for i in 0..5 {
        order("c1", &format!("o{i}"))
            .put()
            .send(&store)
            .await
            .unwrap();
    }
    let page = Order::query("c1")
        .unwrap()
        .page_size(2)
        .page(&store, None)
        .await
        .unwrap();
    let cursor = page.cursor.unwrap();
    let err = Order::query("c2")
        .unwrap()
        .page_size(2)
        .page(&store, Some(&cursor))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::InvalidCursor { .. }), "{err:?}");
}

#[test]
fn row30_garbage_cursor_is_refused() {
    for garbage in ["", "not-a-cursor", "AAAA", "%%%"] {
        assert!(
            matches!(Cursor::parse(garbage), Err(Error::InvalidCursor { .. })),
            "{garbage:?}"
        );
    }
}

#[tokio::test]
async fn row31_missing_table_is_resource_not_found_naming_it() {
    let store = MemoryStore::new();
    let err = User::get(User::key("u").unwrap())
        .send(&store)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::ResourceNotFound { .. }), "{err:?}");
    assert!(err.to_string().contains(TABLE), "{err}");
}

#[tokio::test]
async fn row32_creating_a_table_twice_is_resource_in_use() {
    let store = store().await;
    let err = store
        .create_table(&ecommerce_table(TABLE))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::ResourceInUse { .. }), "{err:?}");
}

#[tokio::test]
async fn row33_query_of_an_undeclared_index_names_it() {
    let store = store().await;
    let err = store
        .query(QueryRequest::new(
            TABLE,
            Some("NOPE"),
            KeyCondition::partition("X", s("x")),
        ))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::ResourceNotFound { .. } | Error::Validation { .. }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("NOPE"), "{err}");
}

#[tokio::test]
async fn row34_attribute_names_that_look_like_placeholders_are_names() {
    let store = store().await;
    let mut item = raw_key("RAW#3", "R");
    item.insert("#n".into(), s("hash"));
    item.insert(":v".into(), s("colon"));
    store.put_item(raw_put(item.clone())).await.unwrap();
    let mut cond = raw_put(item.clone());
    cond.condition = Some(Condition::eq("#n", s("hash")).and(Condition::eq(":v", s("colon"))));
    store.put_item(cond).await.unwrap();
    let mut get = GetRequest::new(TABLE.to_owned(), raw_key("RAW#3", "R"));
    get.projection = Some(vec![Path::attr("#n")]);
    let got = store.get_item(get).await.unwrap().item.unwrap();
    assert_eq!(*got, Item::from([("#n".to_owned(), s("hash"))]));
}

#[tokio::test]
async fn row35_expired_item_reads_as_absent() {
    let store = store().await;
    let mut o = order("ttl", "o1");
    o.ttl = Some(a_minute_ago());
    o.put().send(&store).await.unwrap();
    assert!(Order::get(Order::key("ttl", "o1").unwrap())
        .send(&store)
        .await
        .unwrap()
        .is_none());
    assert!(Order::query("ttl")
        .unwrap()
        .all(&store)
        .await
        .unwrap()
        .is_empty());
}

#[tokio::test]
async fn row36_other_entities_in_a_shared_partition_are_skipped_not_misdecoded() {
    let store = store().await;
    user("mix").put().send(&store).await.unwrap();
    order("mix", "o1").put().send(&store).await.unwrap();
    let orders = Order::query("mix").unwrap().all(&store).await.unwrap();
    assert_eq!(orders.len(), 1);
}

#[tokio::test]
async fn row37_unknown_enum_value_in_a_stored_item_is_a_decode_error() {
    let store = store().await;
    let o = order("enum", "o1");
    o.put().send(&store).await.unwrap();
    let mut item = dyno_core::Entity::to_item(&o).unwrap();
    item.insert("status".into(), s("shipped"));
    item.insert("version".into(), AttributeValue::N("1".into()));
    store.put_item(raw_put(item)).await.unwrap();
    let err = Order::get(Order::key("enum", "o1").unwrap())
        .send(&store)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Decode { .. }), "{err:?}");
    assert!(err.to_string().contains("shipped"), "{err}");
}

#[tokio::test]
async fn row38_condition_on_a_raw_write_that_fails_returns_the_old_item_when_asked() {
    let store = store().await;
    let mut item = raw_key("RAW#2", "R");
    item.insert("v".into(), AttributeValue::N("1".into()));
    store.put_item(raw_put(item.clone())).await.unwrap();
    let mut again = raw_put(item.clone());
    again.condition = Some(Condition::not_exists("PK"));
    again.return_old_on_condition_failure = true;
    match store.put_item(again).await {
        Err(Error::ConditionFailed {
            item: Some(old), ..
        }) => assert_eq!(old, item),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn row39_raw_write_with_a_key_of_the_wrong_type_is_a_validation_error() {
    let store = store().await;
    let item = Item::from([
        ("PK".to_owned(), AttributeValue::N("1".into())),
        ("SK".to_owned(), s("x")),
    ]);
    let err = store.put_item(raw_put(item)).await.unwrap_err();
    assert!(matches!(err, Error::Validation { .. }), "{err:?}");
    let err = store
        .put_item(raw_put(Item::from([("PK".to_owned(), s("only-pk"))])))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Validation { .. }), "{err:?}");
}

#[tokio::test]
async fn row40_batch_write_of_a_raw_item_without_its_key_is_refused_when_added() {
    let mut batch = BatchWriter::new();
    let err = batch
        .write(
            &ecommerce_table(TABLE),
            WriteRequest::put(
                TABLE.to_owned(),
                Item::from([("name".to_owned(), s("no key"))]),
            ),
        )
        .unwrap_err();
    assert!(
        matches!(err, Error::Key { .. } | Error::Validation { .. }),
        "{err:?}"
    );
    assert!(batch.is_empty());
}

#[tokio::test]
async fn row41_every_call_is_bounded_even_on_a_paused_store() {
    // A store that never answers is bounded by the caller's own timeout; DynamoStore's own
    // bounds are rows 42-43.
    let store = dyno_tests::fault::FaultStore::new(store().await);
    let _pause = store.pause_next(dyno_tests::fault::Op::GetItem);
    let r = tokio::time::timeout(
        Duration::from_millis(200),
        User::get(User::key("p").unwrap()).send(&store),
    )
    .await;
    assert!(
        r.is_err(),
        "the paused call is still waiting, and the timeout returns"
    );
}

#[tokio::test]
async fn row42_invalid_table_names_are_refused() {
    // A table name DynamoDB refuses (too short, bad characters).
    let store = MemoryStore::new();
    for bad in ["ab", "has space", "slash/name"] {
        let err = store
            .create_table(&TableDef::new(bad, "PK", None))
            .await
            .unwrap_err();
        assert!(matches!(err, Error::Validation { .. }), "{bad}: {err:?}");
    }
}

/// Regression: a put of an entity whose version is `u64::MAX` overflowed
/// `version + 1` (a panic in debug builds, version 0 in release).
#[tokio::test]
async fn row60_put_of_a_version_at_u64_max_is_out_of_range_and_writes_nothing() {
    for backend in backends().await {
        let who = backend.name;
        let store = fresh(&backend, "version-max").await;
        let store = &*store;
        let mut o = order("ann", "1");
        o.version = u64::MAX;
        for err in [
            o.put().send(store).await.unwrap_err(),
            o.replace().send(store).await.unwrap_err(),
            BatchWriter::new()
                .put_ignoring_version(&o)
                .map(|_| ())
                .unwrap_err(),
        ] {
            let Error::OutOfRange { entity, field, .. } = &err else {
                panic!("{who}: {err:?}")
            };
            assert_eq!(
                (*entity, field.as_str()),
                (Some("Order"), "version"),
                "{who}"
            );
            assert!(
                err.to_string().contains("nothing was written"),
                "{who}: {err}"
            );
        }
        assert!(Order::get(Order::key("ann", "1").unwrap())
            .send(store)
            .await
            .unwrap()
            .is_none());
    }
}

#[tokio::test]
async fn row54_update_of_a_missing_item_says_it_does_not_exist() {
    let store = store().await;
    let err = User::update(User::key("nobody").unwrap())
        .set(
            Path::attr("name"),
            dyno_core::expr::SetValue::value(s("Bob")),
        )
        .send(&store)
        .await
        .unwrap_err();
    assert!(err.is_not_found(), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("User") && text.contains("USER#nobody") && text.contains("upsert"),
        "{text}"
    );
    assert_eq!(count(&store).await, 0, "nothing written");
    // An existing item whose own condition fails is still a condition failure.
    user("somebody").put().send(&store).await.unwrap();
    let err = User::update(User::key("somebody").unwrap())
        .set(
            Path::attr("name"),
            dyno_core::expr::SetValue::value(s("Bob")),
        )
        .condition(dyno_core::expr::Cond::raw(Condition::eq("name", s("Zed"))))
        .send(&store)
        .await
        .unwrap_err();
    assert!(err.is_condition_failed(), "{err:?}");
}

#[tokio::test]
async fn row55_create_over_an_expired_item_treats_it_as_absent() {
    let store = store().await;
    let mut expired = order("exp", "o1");
    // Expired, not yet deleted.
    expired.ttl = Some(a_minute_ago());
    expired.put().send(&store).await.unwrap();
    assert!(Order::get(Order::key("exp", "o1").unwrap())
        .send(&store)
        .await
        .unwrap()
        .is_none());
    let fresh = order("exp", "o1");
    fresh.create().send(&store).await.unwrap();
    let back = Order::get(Order::key("exp", "o1").unwrap())
        .send(&store)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((back.ttl, back.version), (None, 1));
    // A live item still blocks a create.
    let err = fresh.create().send(&store).await.unwrap_err();
    assert!(err.is_condition_failed(), "{err:?}");
}

/// One spelling per map key, values that never vanish inside maps,
/// multi-attribute key parts checked before sending, cursors that cannot be forged, durations
/// that cannot panic or mean two things, and messages that name the fix. Rows 74 to 79.
mod newer_inputs {
    use std::collections::{BTreeMap, BTreeSet, HashMap};

    use base64::Engine as _;
    use dyno_cache::{CachedStore, ManualClock};
    use dyno_core::ops::{BatchWriter, CursorKey};
    use dyno_core::prelude::*;
    use dyno_core::store::{PutRequest, Store, TableNames};
    use dyno_core::{AttributeValue, DynamoStore, Entity, Error, Item, MemoryStore, Table};
    use dyno_tests::backend::{
        backends, fresh_table, raw_put, unique_table_name, Backend, BackendKind,
    };
    use dyno_tests::fault::{FaultStore, Op};

    #[derive(Debug, Table)]
    #[dyno(name = "Boards", pk = "PK", sk = "SK")]
    #[dyno(index(name = "ByState", pk = ["tenant", "state"], sk = ["rank:N", "title"]))]
    pub struct Boards;

    /// A board with maps of every shape the codec has: integer keys, `Option` values, set
    /// values; and a serde document that can be nested arbitrarily deep.
    #[derive(Debug, Clone, PartialEq, Entity)]
    #[dyno(table = Boards, pk = "BOARD#{id}", sk = "BOARD")]
    pub struct Board {
        pub id: String,
        pub counts: BTreeMap<u32, u64>,
        pub notes: HashMap<String, Option<String>>,
        pub labels: HashMap<String, BTreeSet<String>>,
        pub lanes: BTreeMap<Lane, u64>,
        #[dyno(serde)]
        pub deep: serde_json::Value,
    }

    /// A board's lane: a map key with an alias another client wrote (`todo`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, dyno_core::KeyPart)]
    pub enum Lane {
        #[dyno(alias = "todo")]
        Todo,
        Done,
    }

    /// A ticket in the multi-attribute index `ByState` (partition `tenant` + `state`, sort
    /// `rank` + `title`), beside boards in the same table.
    #[derive(Debug, Clone, PartialEq, Entity)]
    #[dyno(table = Boards, pk = "TENANT#{tenant}", sk = "TICKET#{id}")]
    #[dyno(index(ByState, pk = [tenant, state], sk = [rank, title]))]
    pub struct Ticket {
        pub tenant: String,
        pub id: String,
        pub state: String,
        pub rank: u32,
        pub title: String,
    }

    fn board(id: &str) -> Board {
        Board {
            id: id.into(),
            counts: BTreeMap::new(),
            notes: HashMap::new(),
            labels: HashMap::new(),
            lanes: BTreeMap::new(),
            deep: serde_json::Value::Null,
        }
    }

    fn ticket(id: &str, state: &str, title: &str) -> Ticket {
        Ticket {
            tenant: "acme".into(),
            id: id.into(),
            state: state.into(),
            rank: 1,
            title: title.into(),
        }
    }

    /// The table without its multi-attribute index, which dynalite lacks (row 76 creates it
    /// where it exists).
    async fn table(backend: &Backend, prefix: &str) -> std::sync::Arc<dyn Store> {
        let mut def = Boards::definition().clone();
        def.global_indexes.retain(|i| !i.is_multi_attribute());
        fresh_table(backend, &def, prefix).await
    }

    fn key_of(id: &str) -> Item {
        Item::from([
            ("PK".to_owned(), AttributeValue::S(format!("BOARD#{id}"))),
            ("SK".to_owned(), AttributeValue::S("BOARD".into())),
        ])
    }

    /// Row 74. A `BTreeMap<u32, u64>` entry stored as `0000000007` by an earlier writer is read
    /// as key 7; `.entry(7).add(1)` on it is refused naming both spellings, nothing written (it
    /// used to add an entry `7` beside it); and a map holding both spellings of one key (as such
    /// a write, or another client, left it) is a decode error naming both, never a silent pick
    /// of one (every backend).
    #[tokio::test]
    async fn row74_one_key_has_one_spelling_in_a_map_or_the_conflict_names_both() {
        for backend in backends().await {
            let who = backend.name;
            let store = table(&backend, "spellings").await;
            let store = &*store;
            let stored = |entries: &[(&str, &str)]| {
                let mut item = board("b1").to_item().unwrap();
                item.insert(
                    "counts".into(),
                    AttributeValue::M(
                        entries
                            .iter()
                            .map(|(k, v)| ((*k).to_owned(), AttributeValue::N((*v).to_owned())))
                            .collect(),
                    ),
                );
                item
            };
            raw_put(store, "Boards", stored(&[("0000000007", "1")])).await;
            let get = || Board::get(Board::key("b1")).send(store);
            let read = get().await.unwrap().unwrap();
            assert_eq!(read.counts, BTreeMap::from([(7, 1)]), "{who}");

            for _ in 0..2 {
                let err = Board::update(Board::key("b1"))
                    .at(Board::COUNTS.entry(7u32))
                    .add(1u64)
                    .send(store)
                    .await
                    .unwrap_err();
                let text = err.to_string();
                for says in ["counts.7", "counts.0000000007", "nothing was written"] {
                    assert!(text.contains(says), "{who}: {says} in {text}");
                }
            }
            let err = Board::update(Board::key("b1"))
                .at(Board::COUNTS.entry(7u32))
                .set(5u64)
                .send(store)
                .await
                .unwrap_err();
            assert!(
                err.to_string().contains("counts.0000000007"),
                "{who}: {err}"
            );
            let read = get().await.unwrap().unwrap();
            assert_eq!(read.counts, BTreeMap::from([(7, 1)]), "{who}: unchanged");
            // An entry stored under its own name is updated as before.
            Board::update(Board::key("b1"))
                .at(Board::COUNTS.entry(8u32))
                .add(2u64)
                .send(store)
                .await
                .unwrap();

            // A removal removes the entry under whichever name it is stored.
            Board::update(Board::key("b1"))
                .at(Board::COUNTS.entry(7u32))
                .remove()
                .send(store)
                .await
                .unwrap();
            let read = get().await.unwrap().unwrap();
            assert_eq!(read.counts, BTreeMap::from([(8, 2)]), "{who}: 7 removed");

            // An enum key stored under a declared alias (`todo` for `Lane::Todo`): read as the
            // variant, a write under the name refused naming both, a removal removes it.
            let mut item = board("b1").to_item().unwrap();
            item.insert(
                "lanes".into(),
                AttributeValue::M([("todo".to_owned(), AttributeValue::N("3".into()))].into()),
            );
            raw_put(store, "Boards", item).await;
            let read = get().await.unwrap().unwrap();
            assert_eq!(read.lanes, BTreeMap::from([(Lane::Todo, 3)]), "{who}");
            let err = Board::update(Board::key("b1"))
                .at(Board::LANES.entry(Lane::Todo))
                .add(1u64)
                .send(store)
                .await
                .unwrap_err();
            let text = err.to_string();
            for says in ["lanes.Todo", "lanes.todo", "nothing was written"] {
                assert!(text.contains(says), "{who}: {says} in {text}");
            }
            Board::update(Board::key("b1"))
                .at(Board::LANES.entry(Lane::Todo))
                .remove()
                .send(store)
                .await
                .unwrap();
            let read = get().await.unwrap().unwrap();
            assert!(read.lanes.is_empty(), "{who}: {:?}", read.lanes);

            raw_put(store, "Boards", stored(&[("0000000007", "1"), ("7", "5")])).await;
            for _ in 0..3 {
                let err = get().await.unwrap_err();
                assert!(matches!(err, Error::Decode { .. }), "{who}: {err:?}");
                let text = err.to_string();
                for says in ["Board.counts", "\"7\"", "\"0000000007\"", "Merge them"] {
                    assert!(text.contains(says), "{who}: {says} in {text}");
                }
            }
        }
    }

    /// Row 75. `None` values inside a map are written as NULL and read back as `None`; an empty
    /// set inside a map is an encode error as a top-level one is (row 13); an empty map key is an
    /// encode error naming the field, in a put and in a typed path, and a raw write of one is
    /// refused by MemoryStore as DynamoDB refuses it ("Empty attribute name", every backend).
    #[tokio::test]
    async fn row75_values_inside_maps_are_kept_or_refused_never_dropped() {
        for backend in backends().await {
            let who = backend.name;
            let store = table(&backend, "map-values").await;
            let store = &*store;
            let mut b = board("b2");
            b.notes = HashMap::from([("a".into(), None), ("b".into(), Some("x".into()))]);
            b.put().send(store).await.unwrap();
            let back = Board::get(Board::key("b2"))
                .send(store)
                .await
                .unwrap()
                .unwrap();
            assert_eq!(back.notes, b.notes, "{who}: the None entry is kept");
            // A typed entry write of `None` keeps the entry as NULL too; an empty set is refused.
            let back = Board::update(Board::key("b2"))
                .at(Board::NOTES.entry("c"))
                .set(None)
                .send(store)
                .await
                .unwrap();
            assert_eq!(back.notes.get("c"), Some(&None), "{who}: {:?}", back.notes);
            let err = Board::update(Board::key("b2"))
                .at(Board::LABELS.entry("bug"))
                .set(BTreeSet::new())
                .send(store)
                .await
                .unwrap_err();
            assert!(
                matches!(err, Error::Encode { .. }) && err.to_string().contains("empty set"),
                "{who}: {err:?}"
            );

            let mut with_empty_set = board("b3");
            with_empty_set.labels = HashMap::from([("bug".into(), BTreeSet::new())]);
            let err = with_empty_set.put().send(store).await.unwrap_err();
            let text = err.to_string();
            assert!(matches!(err, Error::Encode { .. }), "{who}: {err:?}");
            assert!(
                text.contains("Board.labels") && text.contains("empty set"),
                "{who}: {text}"
            );

            let mut with_empty_key = board("b3");
            with_empty_key.notes = HashMap::from([(String::new(), Some("x".into()))]);
            let err = with_empty_key.put().send(store).await.unwrap_err();
            let text = err.to_string();
            assert!(matches!(err, Error::Encode { .. }), "{who}: {err:?}");
            assert!(
                text.contains("Board.notes") && text.contains("empty"),
                "{who}: {text}"
            );
            let err = Board::update(Board::key("b2"))
                .at(Board::NOTES.entry(""))
                .set(Some("x".to_owned()))
                .send(store)
                .await
                .unwrap_err();
            assert!(
                matches!(err, Error::Encode { .. }) && err.to_string().contains("notes"),
                "{who}: {err:?}"
            );
            assert!(
                Board::get(Board::key("b3"))
                    .send(store)
                    .await
                    .unwrap()
                    .is_none(),
                "{who}: nothing written"
            );

            // What DynamoDB refuses, MemoryStore refuses too: a raw item with an empty map key.
            if matches!(backend.kind, BackendKind::Moto | BackendKind::Dynalite) {
                println!("deviation: {who} accepts an empty map key (see the conformance suite)");
                continue;
            }
            let mut raw = key_of("b4");
            raw.insert(
                "notes".into(),
                AttributeValue::M(Item::from([(String::new(), AttributeValue::S("x".into()))])),
            );
            let err = store
                .put_item(PutRequest::new("Boards", raw))
                .await
                .unwrap_err();
            assert!(
                matches!(&err, Error::Validation { message } if message.contains("Empty attribute name")),
                "{who}: {err:?}"
            );
        }
    }

    /// Row 76. Multi-attribute index key parts are checked before sending, as template keys are
    /// (rows 2 and 57): an empty part, a sort part over 1,024 bytes or a partition part over
    /// 2,048 is `Error::Key` naming the entity, the index and the attribute, in a put, a batch
    /// put, a typed update and a typed query; at the limits it is stored (every backend that has
    /// multi-attribute keys).
    #[tokio::test]
    async fn row76_multi_attribute_key_parts_are_checked_before_sending() {
        for backend in backends().await {
            let who = backend.name;
            let inner: std::sync::Arc<dyn Store> = std::sync::Arc::new(
                TableNames::new(backend.store.clone())
                    .map("Boards", unique_table_name("multi-parts")),
            );
            if let Err(e) = inner.create_table(Boards::definition()).await {
                println!("deviation: {who} lacks multi-attribute GSI keys, skipped: {e}");
                continue;
            }
            let store = FaultStore::new(inner);
            let long_title = "t".repeat(1100);
            let long_state = "s".repeat(2100);
            let errors = [
                ticket("t1", "", "a").put().send(&store).await.unwrap_err(),
                ticket("t1", "open", &long_title)
                    .put()
                    .send(&store)
                    .await
                    .unwrap_err(),
                ticket("t1", &long_state, "a")
                    .create()
                    .send(&store)
                    .await
                    .unwrap_err(),
                BatchWriter::new()
                    .put(&ticket("t1", "open", ""))
                    .map(|_| ())
                    .unwrap_err(),
                Ticket::update(Ticket::key("acme", "t1"))
                    .set_state(String::new())
                    .send(&store)
                    .await
                    .unwrap_err(),
                Ticket::by_state("acme", "").all(&store).await.unwrap_err(),
            ];
            let attributes = ["state", "title", "state", "title", "state", "state"];
            for (i, (err, attribute)) in errors.iter().zip(attributes).enumerate() {
                assert!(matches!(err, Error::Key { .. }), "{who} #{i}: {err:?}");
                let text = err.to_string();
                for says in ["Ticket", "ByState", &format!("`{attribute}`")] {
                    assert!(text.contains(says), "{who} #{i}: {says} in {text}");
                }
            }
            assert!(errors[1].to_string().contains("1024"), "{who}");
            assert!(errors[2].to_string().contains("2048"), "{who}");
            assert_eq!(store.counts().total(), 0, "{who}: nothing was sent");

            let at_limit = ticket("t2", &"s".repeat(2048), &"t".repeat(1024));
            at_limit.put().send(&store).await.unwrap();
            let found = Ticket::by_state("acme", "s".repeat(2048))
                .all(&store)
                .await
                .unwrap();
            assert_eq!(found, vec![at_limit], "{who}");
        }
    }

    /// The bytes of a cursor string, the `returned` count (after the version byte and the
    /// 8-byte fingerprint) set to 0, and its trailing 8-byte FNV-1a checksum recomputed: what a
    /// client can do knowing the format and no secret.
    fn forge(cursor: &str) -> String {
        let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let mut bytes = engine.decode(cursor).unwrap();
        bytes[9..17].copy_from_slice(&0u64.to_be_bytes());
        let n = bytes.len() - 8;
        let sum = dyno_core::hash::fnv1a(&bytes[..n]);
        bytes[n..].copy_from_slice(&sum.to_be_bytes());
        engine.encode(bytes)
    }

    /// Row 77. A cursor edited to forget how many results it returned, its public checksum
    /// recomputed, is refused: `limit(2)` returns 2 items whatever the client sends back. A
    /// cursor minted under another key (another process) is refused; stores sharing a key
    /// accept each other's cursors (instances of one service).
    #[tokio::test]
    async fn row77_a_forged_cursor_cannot_lift_a_limit() {
        for backend in backends().await {
            let who = backend.name;
            let store = table(&backend, "cursors").await;
            let store = &*store;
            for i in 0..6 {
                Ticket {
                    rank: i,
                    ..ticket(&format!("c{i}"), "open", "x")
                }
                .put()
                .send(store)
                .await
                .unwrap();
            }
            let q = Ticket::query("acme").limit(2).page_size(1);
            let first = q.page(store, None).await.unwrap();
            assert_eq!(first.items.len(), 1, "{who}");
            let cursor = first.cursor.unwrap().to_string();
            let forged = dyno_core::ops::Cursor::parse(&forge(&cursor)).unwrap();
            let err = q.page(store, Some(&forged)).await.unwrap_err();
            assert!(matches!(err, Error::InvalidCursor { .. }), "{who}: {err:?}");
            // Honest paging stops at the limit.
            let mut total = first.items.len();
            let mut next = Some(dyno_core::ops::Cursor::parse(&cursor).unwrap());
            while let Some(c) = next {
                let page = q.page(store, Some(&c)).await.unwrap();
                total += page.items.len();
                next = page.cursor;
            }
            assert_eq!(total, 2, "{who}");
        }

        // Instances: two stores sharing a key accept each other's cursors; a third does not.
        let shared = CursorKey::new(b"a shared secret of the service").unwrap();
        let data = std::sync::Arc::new(MemoryStore::new());
        data.create_table(Boards::definition()).await.unwrap();
        for i in 0..4 {
            ticket(&format!("m{i}"), "open", "x")
                .put()
                .send(&*data)
                .await
                .unwrap();
        }
        let a = KeyedView(data.clone(), shared.clone());
        let b = KeyedView(data.clone(), shared);
        let other = KeyedView(data, CursorKey::random());
        let q = Ticket::query("acme").page_size(2);
        let page = q.page(&a, None).await.unwrap();
        let cursor = page.cursor.unwrap();
        assert_eq!(q.page(&b, Some(&cursor)).await.unwrap().items.len(), 2);
        let err = q.page(&other, Some(&cursor)).await.unwrap_err();
        assert!(
            matches!(&err, Error::InvalidCursor { message } if message.contains("DYNO_CURSOR_KEY")),
            "{err:?}"
        );
    }

    /// A view of one store with its own cursor key, as an instance of a service is.
    #[derive(Debug)]
    struct KeyedView(std::sync::Arc<MemoryStore>, CursorKey);

    #[async_trait::async_trait]
    impl dyno_core::store::forward::Forward for KeyedView {
        type Inner = MemoryStore;
        fn inner(&self) -> &MemoryStore {
            &self.0
        }
        fn cursor_key(&self) -> &CursorKey {
            &self.1
        }
    }

    /// Row 78. Durations cannot panic, and zero means no time everywhere: a cache TTL of
    /// `Duration::MAX` (item, negative, per entity, per write) caches until evicted instead of
    /// panicking on the first fill; a manual clock advanced by `Duration::MAX` stops at its end;
    /// a batch deadline of `Duration::MAX` is no deadline, one of zero sends nothing and returns
    /// every item; a DynamoStore timeout of zero fails every call at once with
    /// `Error::Configuration` naming it, nothing sent.
    #[tokio::test]
    async fn row78_durations_cannot_panic_and_zero_means_no_time() {
        let max = std::time::Duration::MAX;
        let clock = ManualClock::new();
        let inner = FaultStore::new(MemoryStore::new());
        inner.create_table(Boards::definition()).await.unwrap();
        let cached = CachedStore::builder(inner)
            .item_ttl(max)
            .negative_ttl(max)
            .entity_ttl("Board", max)
            .clock(clock.clone())
            .build();
        board("d1").put().send(&cached).await.unwrap();
        cached
            .with_ttl(max)
            .put_item(PutRequest::new("Boards", board("d2").to_item().unwrap()))
            .await
            .unwrap();
        for id in ["d1", "d2", "d3"] {
            Board::get(Board::key(id)).send(&cached).await.unwrap();
        }
        let reads = cached.inner().counts().get(Op::GetItem);
        // A year later every entry is still served from memory (item, per write, negative).
        clock.advance(std::time::Duration::from_secs(3600 * 24 * 365));
        for id in ["d1", "d2", "d3"] {
            Board::get(Board::key(id)).send(&cached).await.unwrap();
        }
        assert_eq!(cached.inner().counts().get(Op::GetItem), reads);
        let before = dyno_cache::Clock::now(&clock);
        clock.advance(max);
        assert!(
            dyno_cache::Clock::now(&clock) >= before,
            "the clock does not wrap"
        );

        let store = FaultStore::new(MemoryStore::new());
        store.create_table(Boards::definition()).await.unwrap();
        let items: Vec<Board> = (0..30).map(|i| board(&format!("k{i}"))).collect();
        let mut none = BatchWriter::new().deadline(std::time::Duration::ZERO);
        let before = store.counts().total();
        none.put_all(&items).unwrap();
        let Err(Error::BatchIncomplete {
            unprocessed_writes,
            causes,
            ..
        }) = none.send(&store).await
        else {
            panic!("a zero deadline returns every item")
        };
        assert_eq!(unprocessed_writes.len(), 30);
        assert!(causes
            .iter()
            .all(|c| matches!(c, Error::DeadlineExceeded { .. })));
        assert_eq!(store.counts().total(), before, "nothing sent");
        let mut unbounded = BatchWriter::new().deadline(max);
        unbounded.put_all(&items).unwrap();
        unbounded.send(&store).await.unwrap();

        for (name, builder) in [
            (
                "operation timeout",
                DynamoStore::builder().operation_timeout(std::time::Duration::ZERO),
            ),
            (
                "attempt timeout",
                DynamoStore::builder().attempt_timeout(std::time::Duration::ZERO),
            ),
            (
                "connect timeout",
                DynamoStore::builder().connect_timeout(std::time::Duration::ZERO),
            ),
        ] {
            let dynamo = builder
                .endpoint("http://127.0.0.1:9")
                .region("us-east-1")
                .static_credentials("test", "test")
                .build()
                .await;
            let err = Board::get(Board::key("x")).send(&dynamo).await.unwrap_err();
            assert!(
                matches!(&err, Error::Configuration { message, .. } if message.contains(name) && message.contains("zero")),
                "{name}: {err:?}"
            );
        }
    }

    /// Row 79. Messages name what happened and the fix: a nested write whose parent exists but is
    /// a string or a list says so (not "missing"), and says to replace it whole; an item nested
    /// past DynamoDB's 32 levels is refused before sending, naming the entity and the path
    /// (every backend).
    #[tokio::test]
    async fn row79_messages_name_the_parent_type_and_the_path_too_deep() {
        for backend in backends().await {
            let who = backend.name;
            let store = table(&backend, "messages").await;
            let store = &*store;
            for (stored, kind) in [
                (AttributeValue::S("x".into()), "a string (S), not a map"),
                (AttributeValue::L(vec![]), "a list (L), not a map"),
            ] {
                if backend.kind == BackendKind::Moto {
                    println!("deviation: moto writes inside a parent of another type");
                    break;
                }
                let mut item = board("p1").to_item().unwrap();
                item.insert("counts".into(), stored);
                raw_put(store, "Boards", item).await;
                let err = Board::update(Board::key("p1"))
                    .at(Board::COUNTS.entry(7u32))
                    .add(1u64)
                    .send(store)
                    .await
                    .unwrap_err();
                let text = err.to_string();
                assert!(matches!(err, Error::Validation { .. }), "{who}: {err:?}");
                for says in ["`counts` exists but is", kind, "replaced whole"] {
                    assert!(text.contains(says), "{who}: {says} in {text}");
                }
                assert!(!text.contains("is missing"), "{who}: {text}");
            }
            // A parent that is absent is still named as absent.
            let mut item = board("p2").to_item().unwrap();
            item.remove("counts");
            raw_put(store, "Boards", item).await;
            let err = Board::update(Board::key("p2"))
                .at(Board::COUNTS.entry(7u32))
                .add(1u64)
                .send(store)
                .await
                .unwrap_err();
            assert!(
                err.to_string()
                    .contains("`counts`, on the way to counts.7, is absent"),
                "{who}: {err}"
            );

            let mut deep = board("p3");
            let mut v = serde_json::json!(1);
            for _ in 0..40 {
                v = serde_json::json!([v]);
            }
            deep.deep = v;
            let err = deep.put().send(store).await.unwrap_err();
            let text = err.to_string();
            assert!(matches!(err, Error::Encode { .. }), "{who}: {err:?}");
            for says in [
                "Board.deep",
                "deep[0][0]",
                "32 levels",
                "nothing was written",
            ] {
                assert!(text.contains(says), "{who}: {says} in {text}");
            }
            assert!(
                Board::get(Board::key("p3"))
                    .send(store)
                    .await
                    .unwrap()
                    .is_none(),
                "{who}"
            );
        }
    }
}
