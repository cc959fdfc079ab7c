//! Keys that interoperate: items written by other clients in the conventional
//! key format (`USER#123`, `STATUS#shipped`) are found, decoded and rewritten in place by typed
//! operations, on every backend. The model shares its partitions and GSI1 between entities.

use std::sync::Arc;

use dyno_core::prelude::*;
use dyno_core::{AttributeValue, Entity, Error, FromAttribute, Item, KeyPart, Store, Table};
use dyno_tests::backend::{self, backends, fresh_table, Backend};

#[derive(Debug, Table)]
#[dyno(name = "Interop", pk = "PK", sk = "SK")]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
struct Interop;

/// Statuses as other clients spell them: `shipped`, `SHIPPED`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, KeyPart)]
enum Status {
    Pending,
    #[dyno(alias = "shipped", alias = "SHIPPED")]
    Shipped,
}

/// Carriers in any ASCII case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, KeyPart)]
#[dyno(case_insensitive)]
enum Carrier {
    Ups,
    #[dyno(alias = "fed-ex")]
    Fedex,
}

/// A user: an integer id in the partition key.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Interop, pk = "USER#{user_id}", sk = "PROFILE")]
struct User {
    user_id: u64,
    name: String,
}

/// A user's order, in the user's partition: an integer id in the sort key (ordered), GSI1 by
/// status (a key part) and the placing user.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Interop, pk = "USER#{user_id}", sk = "ORDER#{order_id}")]
#[dyno(index(GSI1, pk = "STATUS#{status}", sk = "{user_id}#{order_id}"))]
struct Order {
    user_id: u64,
    order_id: u32,
    status: Status,
    carrier: Carrier,
}

/// A product in GSI1 by category: the index is shared with orders.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Interop, pk = "PRODUCT#{sku}", sk = "PRODUCT")]
#[dyno(index(GSI1, pk = "CATEGORY#{category}", sk = "{price}"))]
struct Product {
    sku: i64,
    category: String,
    price: u32,
}

/// A table written by an earlier dyno: its integer ids padded in the partition key too.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Interop, pk = "LEGACY#{id}", sk = "LEGACY")]
struct Legacy {
    #[dyno(key_format = "ordered")]
    id: u64,
}

/// Tickets whose sort keys other clients write in plain text (`TICKET#456`).
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Interop, pk = "USER#{user_id}", sk = "TICKET#{number}")]
struct Ticket {
    user_id: u64,
    #[dyno(key_format = "plain")]
    number: u32,
}

/// A shipping queue keyed by status: a `KeyPart` enum in the partition key, whose aliases
/// (`shipped`) are other spellings of the key `STATUS#Shipped` (also GSI1's prefix for orders).
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Interop, pk = "STATUS#{status}", sk = "QUEUE#{position}")]
struct Queue {
    status: Status,
    position: u32,
    label: String,
}

async fn fresh(backend: &Backend, prefix: &str) -> Arc<dyn Store> {
    fresh_table(backend, Interop::definition(), prefix).await
}

/// Writes `item` as another client would: a plain PutItem, no entity-type attribute.
async fn raw_put(store: &dyn Store, item: Item) {
    backend::raw_put(store, "Interop", item).await;
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

async fn raw_count(store: &dyn Store) -> usize {
    let mut count = 0;
    let mut request =
        dyno_core::store::ScanRequest::new("Interop".to_owned()).with_consistent_read(true);
    loop {
        let page = store.scan(request.clone()).await.unwrap();
        count += page.items.len();
        match page.last_evaluated_key {
            Some(k) => request.exclusive_start_key = Some(k),
            None => return count,
        }
    }
}

#[test]
fn key_part_enums_read_their_aliases_and_write_their_names() {
    assert_eq!(Status::decode_key("shipped").unwrap(), Status::Shipped);
    assert_eq!(Status::decode_key("SHIPPED").unwrap(), Status::Shipped);
    assert_eq!(Status::decode_key("Shipped").unwrap(), Status::Shipped);
    // Aliases are exact: without case_insensitive, another case is an error naming the value.
    let err = Status::decode_key("sHipped").unwrap_err();
    assert!(err.to_string().contains("\"sHipped\""), "{err}");
    assert!(Status::decode_key("pending").is_err());
    assert_eq!(
        Status::from_attribute(&s("shipped")).unwrap(),
        Status::Shipped
    );
    assert_eq!(
        dyno_core::key::encode_part(&Status::Shipped).unwrap(),
        "Shipped"
    );
    // case_insensitive: names and aliases in any ASCII case.
    for spelling in ["Ups", "UPS", "ups", "uPs"] {
        assert_eq!(Carrier::decode_key(spelling).unwrap(), Carrier::Ups);
    }
    for spelling in ["Fedex", "FEDEX", "fed-ex", "FED-EX"] {
        assert_eq!(
            Carrier::from_attribute(&s(spelling)).unwrap(),
            Carrier::Fedex
        );
    }
    assert!(Carrier::decode_key("dhl").is_err());
    assert_eq!(dyno_core::key::encode_part(&Carrier::Ups).unwrap(), "Ups");
}

/// An order written by another client with lowercase spellings reads as the typed value, on
/// every backend; a typed rewrite keeps it one item and writes the names.
#[tokio::test]
async fn an_item_with_aliased_enum_values_is_read_and_rewritten_in_place() {
    for backend in backends().await {
        let who = backend.name;
        let store = fresh(&backend, "keys-alias").await;
        let store = &*store;
        raw_put(
            store,
            Item::from([
                ("PK".to_owned(), s("USER#7")),
                ("SK".to_owned(), s("ORDER#0000000042")),
                ("GSI1PK".to_owned(), s("STATUS#shipped")),
                ("GSI1SK".to_owned(), s("7#0000000042")),
                ("user_id".to_owned(), n("7")),
                ("order_id".to_owned(), n("42")),
                ("status".to_owned(), s("shipped")),
                ("carrier".to_owned(), s("FED-EX")),
            ]),
        )
        .await;
        let order = Order::get(Order::key(7u64, 42u32))
            .send(store)
            .await
            .unwrap_or_else(|e| panic!("{who}: {e}"))
            .unwrap_or_else(|| panic!("{who}: the order is found"));
        assert_eq!(
            (order.status, order.carrier),
            (Status::Shipped, Carrier::Fedex),
            "{who}"
        );
        order.put().send(store).await.unwrap();
        assert_eq!(raw_count(store).await, 1, "{who}: rewritten in place");
        let shipped = Order::gsi1(Status::Shipped).all(store).await.unwrap();
        assert_eq!(shipped, vec![order], "{who}: the rewrite wrote the name");
    }
}

/// Regression: integer ids in partition keys were zero-padded
/// (`USER#00000000000000000123`), so `User::get(User::key(123))` missed the `USER#123` item other
/// clients write, `scan()` decoded it, and a typed rewrite created a second item.
#[tokio::test]
async fn a_typed_get_finds_an_item_written_with_a_conventional_integer_key() {
    for backend in backends().await {
        let who = backend.name;
        let store = fresh(&backend, "keys-int").await;
        let store = &*store;
        raw_put(
            store,
            Item::from([
                ("PK".to_owned(), s("USER#123")),
                ("SK".to_owned(), s("PROFILE")),
                ("user_id".to_owned(), n("123")),
                ("name".to_owned(), s("Ann")),
            ]),
        )
        .await;
        raw_put(
            store,
            Item::from([
                ("PK".to_owned(), s("PRODUCT#-5")),
                ("SK".to_owned(), s("PRODUCT")),
                ("GSI1PK".to_owned(), s("CATEGORY#pens")),
                ("GSI1SK".to_owned(), s("0000000150")),
                ("sku".to_owned(), n("-5")),
                ("category".to_owned(), s("pens")),
                ("price".to_owned(), n("150")),
            ]),
        )
        .await;
        let ann = User::get(User::key(123u64))
            .send(store)
            .await
            .unwrap()
            .unwrap_or_else(|| panic!("{who}: User::get(User::key(123)) finds USER#123"));
        assert_eq!(ann.name, "Ann", "{who}");
        assert_eq!(
            User::scan().all(store).await.unwrap(),
            vec![ann.clone()],
            "{who}"
        );
        let pen = Product::get(Product::key(-5i64))
            .send(store)
            .await
            .unwrap()
            .unwrap_or_else(|| panic!("{who}: Product::get(Product::key(-5)) finds PRODUCT#-5"));
        let pens = Product::gsi1("pens".to_owned()).all(store).await.unwrap();
        assert_eq!(pens, vec![pen.clone()], "{who}");
        // Typed rewrites land on the same items.
        ann.put().send(store).await.unwrap();
        pen.put().send(store).await.unwrap();
        assert_eq!(raw_count(store).await, 2, "{who}: no second item");
        // What dyno writes: plain decimals in partition keys, fixed width in sort keys (ranges
        // of order ids stay ordered), so a conventional reader finds dyno's items too.
        let order = Order {
            user_id: 123,
            order_id: 42,
            status: Status::Pending,
            carrier: Carrier::Ups,
        };
        order.create().send(store).await.unwrap();
        let key = Item::from([
            ("PK".to_owned(), s("USER#123")),
            ("SK".to_owned(), s("ORDER#0000000042")),
        ]);
        let stored = store
            .get_item(dyno_core::store::GetRequest::new("Interop", key))
            .await
            .unwrap()
            .item
            .unwrap_or_else(|| panic!("{who}: the order is at USER#123 / ORDER#0000000042"));
        assert_eq!(stored.get("GSI1PK"), Some(&s("STATUS#Pending")), "{who}");
        assert_eq!(
            stored.get("GSI1SK"),
            Some(&s("00000000000000000123#0000000042")),
            "{who}"
        );
        let mine = Order::query(123u64).all(store).await.unwrap();
        assert_eq!(mine, vec![order], "{who}");
    }
}

/// `key_format` chooses the form per field: `ordered` keeps data written padded by earlier
/// versions reachable, `plain` matches sort keys other clients write (queries included).
#[tokio::test]
async fn key_format_keeps_padded_partition_keys_or_matches_plain_sort_keys() {
    for backend in backends().await {
        let who = backend.name;
        let store = fresh(&backend, "keys-format").await;
        let store = &*store;
        Legacy { id: 7 }.put().send(store).await.unwrap();
        let key = Item::from([
            ("PK".to_owned(), s("LEGACY#00000000000000000007")),
            ("SK".to_owned(), s("LEGACY")),
        ]);
        let stored = store
            .get_item(dyno_core::store::GetRequest::new("Interop", key))
            .await
            .unwrap();
        assert!(stored.item.is_some(), "{who}: written padded, as before");
        assert_eq!(
            Legacy::get(Legacy::key(7u64)).send(store).await.unwrap(),
            Some(Legacy { id: 7 }),
            "{who}"
        );
        raw_put(
            store,
            Item::from([
                ("PK".to_owned(), s("USER#5")),
                ("SK".to_owned(), s("TICKET#456")),
                ("user_id".to_owned(), n("5")),
                ("number".to_owned(), n("456")),
            ]),
        )
        .await;
        let t = Ticket {
            user_id: 5,
            number: 456,
        };
        assert_eq!(
            Ticket::get(Ticket::key(5u64, 456u32))
                .send(store)
                .await
                .unwrap(),
            Some(t.clone()),
            "{who}"
        );
        assert_eq!(
            Ticket::query(5u64)
                .number()
                .eq(456u32)
                .all(store)
                .await
                .unwrap(),
            vec![t.clone()],
            "{who}"
        );
        t.put().send(store).await.unwrap();
        assert_eq!(raw_count(store).await, 2, "{who}: rewritten in place");
    }
}

/// A wrong spelling is still an error, naming the value (not a silent miss).
#[test]
fn an_unknown_spelling_is_a_key_error() {
    let err = Status::decode_key("lost").unwrap_err();
    assert!(matches!(err, Error::Key { .. }), "{err:?}");
}

/// Regression: an item whose key field attribute disagrees with its key
/// (`PK = USER#2`, `user_id = 3`, as a buggy or hostile writer leaves it) used to decode with
/// `user_id = 3`, so that a put of what was read wrote to `USER#3`. Now reading it is an error
/// naming the field and both values, on every backend; attributes that agree with their key in
/// another spelling (padded or plain integers, enum aliases) still decode, and so do items
/// without the attribute.
///
/// Since the decode no longer compares each primary-key field's attribute with the key (the
/// stored key is compared with the one the decoded fields encode to, one check for all of
/// them), a disagreement is first seen as a key mismatch and the item is decoded again with the
/// field-by-field comparison, so the error stays `Error::Decode` naming both values, not
/// `Error::KeyMismatch`: `decode_rekeyed` moves a mismatched item to its canonical key, and must
/// not move this one to the key its attribute names.
#[tokio::test]
async fn a_key_field_whose_attribute_disagrees_with_the_key_is_an_error_naming_both() {
    use dyno_core::entity::recover::decode_rekeyed;
    use dyno_core::value::describe;
    for backend in backends().await {
        let who = backend.name;
        let store = fresh(&backend, "keys-agree").await;
        let store = &*store;
        let bad_user = Item::from([
            ("PK".to_owned(), s("USER#2")),
            ("SK".to_owned(), s("PROFILE")),
            ("user_id".to_owned(), n("3")),
            ("name".to_owned(), s("eve")),
        ]);
        let err = decode_rekeyed::<User>(&bad_user).unwrap_err();
        assert!(matches!(err, Error::Decode { .. }), "{who}: {err:?}");
        raw_put(store, bad_user).await;
        let err = User::get(User::key(2u64)).send(store).await.unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, Error::Decode { .. }), "{who}: {err:?}");
        for part in ["User.user_id", &describe(&n("2")), &describe(&n("3"))] {
            assert!(text.contains(part), "{who}: {text} lacks {part}");
        }
        assert!(
            User::scan().all(store).await.is_err(),
            "{who}: scan decoded it"
        );
        assert!(
            User::get(User::key(3u64))
                .send(store)
                .await
                .unwrap()
                .is_none(),
            "{who}"
        );
        // A sort-key field, and a padded partition key whose attribute says another number.
        raw_put(
            store,
            Item::from([
                ("PK".to_owned(), s("USER#7")),
                ("SK".to_owned(), s("ORDER#0000000042")),
                ("user_id".to_owned(), n("7")),
                ("order_id".to_owned(), n("43")),
                ("status".to_owned(), s("Pending")),
                ("carrier".to_owned(), s("UPS")),
            ]),
        )
        .await;
        let err = Order::get(Order::key(7u64, 42u32))
            .send(store)
            .await
            .unwrap_err();
        assert!(err.to_string().contains("Order.order_id"), "{who}: {err}");
        raw_put(
            store,
            Item::from([
                ("PK".to_owned(), s("LEGACY#00000000000000000008")),
                ("SK".to_owned(), s("LEGACY")),
                ("id".to_owned(), n("9")),
            ]),
        )
        .await;
        let err = Legacy::get(Legacy::key(8u64))
            .send(store)
            .await
            .unwrap_err();
        assert!(err.to_string().contains("Legacy.id"), "{who}: {err}");

        // The same values in other spellings agree: a padded key and a plain attribute, an
        // alias in the index key and another in the attribute, a plain sort key.
        raw_put(
            store,
            Item::from([
                ("PK".to_owned(), s("LEGACY#00000000000000000005")),
                ("SK".to_owned(), s("LEGACY")),
                ("id".to_owned(), n("5")),
            ]),
        )
        .await;
        assert_eq!(
            Legacy::get(Legacy::key(5u64)).send(store).await.unwrap(),
            Some(Legacy { id: 5 }),
            "{who}"
        );
        raw_put(
            store,
            Item::from([
                ("PK".to_owned(), s("USER#7")),
                ("SK".to_owned(), s("ORDER#0000000050")),
                ("GSI1PK".to_owned(), s("STATUS#shipped")),
                ("GSI1SK".to_owned(), s("7#0000000050")),
                ("user_id".to_owned(), n("7")),
                ("order_id".to_owned(), n("50")),
                ("status".to_owned(), s("SHIPPED")),
                ("carrier".to_owned(), s("ups")),
            ]),
        )
        .await;
        let order = Order::get(Order::key(7u64, 50u32))
            .send(store)
            .await
            .unwrap_or_else(|e| panic!("{who}: {e}"))
            .unwrap();
        assert_eq!(order.status, Status::Shipped, "{who}");
        raw_put(
            store,
            Item::from([
                ("PK".to_owned(), s("USER#7")),
                ("SK".to_owned(), s("TICKET#456")),
                ("user_id".to_owned(), n("7")),
                ("number".to_owned(), n("456")),
            ]),
        )
        .await;
        let ticket = Ticket::get(Ticket::key(7u64, 456u32))
            .send(store)
            .await
            .unwrap_or_else(|e| panic!("{who}: {e}"))
            .unwrap();
        assert_eq!(ticket.number, 456, "{who}");
        // Key only: decoded from the key, as before.
        raw_put(
            store,
            Item::from([
                ("PK".to_owned(), s("USER#11")),
                ("SK".to_owned(), s("PROFILE")),
                ("name".to_owned(), s("kim")),
            ]),
        )
        .await;
        let kim = User::get(User::key(11u64))
            .send(store)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(kim.user_id, 11, "{who}");
    }
}

/// The key field of `err`, when it is a [`Error::KeyMismatch`] with these stored and canonical
/// keys.
fn mismatch_field(err: &Error, stored: &str, canonical: &str) -> Option<&'static str> {
    match err {
        Error::KeyMismatch {
            stored: s,
            canonical: c,
            field,
            ..
        } if s == stored && c == canonical => *field,
        _ => None,
    }
}

/// Regression: an item whose primary key is another spelling of the key its
/// fields are written to (a padded integer where the plain one is written, a plain one where
/// the padded one is, a `KeyPart` alias, an escape written otherwise) used to decode, and a put
/// of what was read wrote a second item at the canonical key, the original left behind. Now
/// every typed read refuses it with `Error::KeyMismatch` naming the stored key, the canonical
/// key and the field (a lenient read reports it), on every backend; items at their canonical
/// keys in the same partitions decode as before, and `decode_rekeyed` moves the others on
/// purpose.
#[tokio::test]
async fn an_item_at_another_spelling_of_its_key_is_refused_not_moved() {
    use dyno_core::entity::recover::decode_rekeyed;
    for backend in backends().await {
        let who = backend.name;
        let store = fresh(&backend, "keys-spelling").await;
        let store = &*store;
        let strays = [
            // A padded partition key (User writes USER#123).
            Item::from([
                ("PK".to_owned(), s("USER#00000000000000000123")),
                ("SK".to_owned(), s("PROFILE")),
                ("user_id".to_owned(), n("123")),
                ("name".to_owned(), s("Ann")),
            ]),
            // A plain sort key (Order writes ORDER#0000000042), in the same partition as a
            // canonical order and profile.
            Item::from([
                ("PK".to_owned(), s("USER#7")),
                ("SK".to_owned(), s("ORDER#42")),
                ("status".to_owned(), s("Pending")),
                ("carrier".to_owned(), s("UPS")),
            ]),
            // An alias in the partition key (Queue writes STATUS#Shipped).
            Item::from([
                ("PK".to_owned(), s("STATUS#shipped")),
                ("SK".to_owned(), s("QUEUE#0000000001")),
                ("label".to_owned(), s("first")),
            ]),
        ];
        for item in &strays {
            raw_put(store, item.clone()).await;
        }
        let fine = Order {
            user_id: 7,
            order_id: 43,
            status: Status::Shipped,
            carrier: Carrier::Ups,
        };
        fine.create().send(store).await.unwrap();
        User {
            user_id: 7,
            name: "Bo".into(),
        }
        .create()
        .send(store)
        .await
        .unwrap();
        let second = Queue {
            status: Status::Shipped,
            position: 2,
            label: "second".into(),
        };
        second.create().send(store).await.unwrap();

        // Strict reads refuse each stray, naming both keys and the field.
        let err = User::scan().all(store).await.unwrap_err();
        assert_eq!(
            mismatch_field(&err, "USER#00000000000000000123", "USER#123"),
            Some("user_id"),
            "{who}: {err:?}"
        );
        let text = err.to_string();
        for part in [
            "User",
            "PK",
            "USER#00000000000000000123",
            "USER#123",
            "user_id",
        ] {
            assert!(text.contains(part), "{who}: {text} lacks {part}");
        }
        let err = Order::query(7u64).all(store).await.unwrap_err();
        assert_eq!(
            mismatch_field(&err, "ORDER#42", "ORDER#0000000042"),
            Some("order_id"),
            "{who}: {err:?}"
        );
        let err = Queue::query(Status::Shipped).all(store).await;
        // STATUS#shipped is another partition than STATUS#Shipped: the query does not see it.
        assert_eq!(err.unwrap(), vec![second.clone()], "{who}");
        let err = Queue::scan().all(store).await.unwrap_err();
        assert_eq!(
            mismatch_field(&err, "STATUS#shipped", "STATUS#Shipped"),
            Some("status"),
            "{who}: {err:?}"
        );
        // Typed gets by the canonical key do not see the strays (another key) and read the
        // canonical items.
        assert_eq!(
            User::get(User::key(123u64)).send(store).await.unwrap(),
            None,
            "{who}"
        );
        assert_eq!(
            Order::get(Order::key(7u64, 43u32))
                .send(store)
                .await
                .unwrap(),
            Some(fine.clone()),
            "{who}"
        );

        // A lenient read reports each stray with its key and the mismatch, and returns the rest.
        let results = Order::query(7u64).lenient().all(store).await.unwrap();
        let (ok, bad): (Vec<_>, Vec<_>) = results.into_iter().partition(Result::is_ok);
        assert_eq!(
            ok.into_iter().map(Result::unwrap).collect::<Vec<_>>(),
            vec![fine.clone()],
            "{who}"
        );
        assert_eq!(bad.len(), 1, "{who}");
        let bad = bad.into_iter().next().unwrap().unwrap_err();
        assert_eq!(bad.key.get("SK"), Some(&s("ORDER#42")), "{who}");
        assert!(
            matches!(bad.error, Error::KeyMismatch { .. }),
            "{who}: {:?}",
            bad.error
        );
        assert_eq!(raw_count(store).await, 6, "{who}: nothing was written");

        // A migration moves the strays on purpose: decode as if at the canonical key, write,
        // delete the stored key.
        let lenient = User::scan().lenient().all(store).await.unwrap();
        let orders = Order::scan().lenient().all(store).await.unwrap();
        let queues = Queue::scan().lenient().all(store).await.unwrap();
        let mut moved = 0;
        for stray in lenient.into_iter().filter_map(Result::err) {
            let user: User = decode_rekeyed(&stray.item).unwrap();
            user.put().send(store).await.unwrap();
            User::delete(dyno_core::ops::Key::from_item(stray.key.clone()))
                .send(store)
                .await
                .unwrap();
            moved += 1;
        }
        for stray in orders.into_iter().filter_map(Result::err) {
            let order: Order = decode_rekeyed(&stray.item).unwrap();
            assert_eq!((order.user_id, order.order_id), (7, 42), "{who}");
            order.put().send(store).await.unwrap();
            Order::delete(dyno_core::ops::Key::from_item(stray.key.clone()))
                .send(store)
                .await
                .unwrap();
            moved += 1;
        }
        for stray in queues.into_iter().filter_map(Result::err) {
            let queue: Queue = decode_rekeyed(&stray.item).unwrap();
            queue.put().send(store).await.unwrap();
            Queue::delete(dyno_core::ops::Key::from_item(stray.key.clone()))
                .send(store)
                .await
                .unwrap();
            moved += 1;
        }
        assert_eq!(moved, 3, "{who}");
        assert_eq!(raw_count(store).await, 6, "{who}: moved, not copied");
        assert_eq!(
            User::get(User::key(123u64))
                .send(store)
                .await
                .unwrap()
                .map(|u| u.name),
            Some("Ann".to_owned()),
            "{who}"
        );
        assert_eq!(
            Order::query(7u64).all(store).await.unwrap().len(),
            2,
            "{who}"
        );
        assert_eq!(
            Queue::query(Status::Shipped)
                .all(store)
                .await
                .unwrap()
                .len(),
            2,
            "{who}"
        );
    }
}
