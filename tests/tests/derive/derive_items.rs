//! The code `#[derive(Entity)]` generates, checked without a store: exact item contents, decoding
//! (including items written by other clients), keys, key conditions of the typed query builders,
//! update expressions, typed conditions, and the field attributes.

use std::collections::HashMap;

use dyno_core::expr::{
    Comparator, Condition, KeyCondition, Operand, Path, SetValue, SortCondition, UpdateOperand,
};
use dyno_core::ops::{FromItem, Key};
use dyno_core::ops::{QueryDsl, UpdateDsl};
use dyno_core::{AttributeValue, Entity, Item, KeyPart, Table};
use dyno_tests::ecommerce::*;
use rust_decimal::Decimal;
use time::macros::{date, datetime};

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

fn item(pairs: &[(&str, AttributeValue)]) -> Item {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect()
}

fn sample_order() -> Order {
    let mut o = order(
        "u1",
        "o1",
        OrderStatus::Shipped,
        date!(2024 - 03 - 05),
        Decimal::new(4250, 2),
    );
    o.product_ids = vec!["p1".into(), "p2".into()];
    o.note = Some("gift".into());
    o.version = 3;
    o.expires_at = Some(datetime!(2024-04-01 0:00 UTC));
    o
}

// ---------------------------------------------------------------------------------------------
// Items

#[test]
fn order_to_item_is_exact() {
    let got = sample_order().to_item().unwrap();
    let want = item(&[
        ("PK", s("USER#u1")),
        ("SK", s("ORDER#o1")),
        ("GSI1PK", s("STATUS#SHIPPED")),
        ("GSI1SK", s("2024-03-05")),
        ("_type", s("Order")),
        ("user_id", s("u1")),
        ("order_id", s("o1")),
        ("status", s("SHIPPED")),
        ("order_date", s("2024-03-05")),
        ("total", n("42.5")),
        ("product_ids", AttributeValue::L(vec![s("p1"), s("p2")])),
        ("note", s("gift")),
        ("version", n("3")),
        ("ttl", n("1711929600")),
    ]);
    assert_eq!(got, want);
    assert_eq!(Order::from_item(&got).unwrap(), sample_order());
    assert!(Order::is_entity(&got));
    assert!(!User::is_entity(&got) && !Product::is_entity(&got));
}

#[test]
fn entity_constants_describe_templates_and_attributes() {
    assert_eq!(Order::ENTITY_TYPE, "Order");
    assert_eq!(Order::PK.to_string(), "USER#{user_id}");
    assert_eq!(
        Order::SK.map(|t| t.to_string()).as_deref(),
        Some("ORDER#{order_id}")
    );
    assert_eq!(Order::INDEXES.len(), 1);
    assert_eq!(Order::INDEXES[0].index, "GSI1");
    assert_eq!(Order::INDEXES[0].pk.to_string(), "STATUS#{status}");
    assert_eq!(Order::VERSION_ATTRIBUTE, Some("version"));
    assert_eq!(Order::TTL_ATTRIBUTE, Some("ttl"));
    assert_eq!(User::TTL_ATTRIBUTE, None);
    assert_eq!(ECommerce::GSI1, "GSI1");
    let def = ECommerce::definition();
    assert_eq!(def.name, "ECommerce");
    assert_eq!(
        def.index("GSI1").map(|i| i.partition_key.name.as_str()),
        Some("GSI1PK")
    );
    assert_eq!(def.ttl_attribute.as_deref(), Some("ttl"));
    let mut o = sample_order();
    assert_eq!(o.version(), Some(3));
    o.set_version(4);
    assert_eq!(o.version, 4);
}

#[test]
fn the_key_holds_the_primary_key_only() {
    let k = sample_order().key().unwrap();
    assert_eq!(k, item(&[("PK", s("USER#u1")), ("SK", s("ORDER#o1"))]));
    assert_eq!(Order::key("u1", "o1").as_item(), &k);
    let owned = String::from("u1");
    assert_eq!(Order::key(&owned, String::from("o1")).into_item(), k);
    let user = User::key("u1");
    assert_eq!(
        user.as_item(),
        &item(&[("PK", s("USER#u1")), ("SK", s("PROFILE"))])
    );
}

#[test]
fn an_empty_key_value_is_an_error_not_a_key_matching_everything() {
    let err = Order::try_key("", "o1").unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("user_id") && msg.contains("Order"), "{msg}");
    // The infallible constructor gives a key carrying that error, and no key attributes.
    let key = Order::key("", "o1");
    assert!(key.as_item().is_empty());
    assert_eq!(key.error().map(ToString::to_string), Some(msg));
}

#[test]
fn key_values_containing_the_delimiter_round_trip_and_do_not_collide() {
    let mut o = sample_order();
    o.user_id = "1#ORDER#2".into();
    o.order_id = "50%#x".into();
    let it = o.to_item().unwrap();
    assert_eq!(it["PK"], s("USER#1%23ORDER%232"));
    assert_eq!(it["SK"], s("ORDER#50%25%23x"));
    assert_eq!(Order::from_item(&it).unwrap(), o);
    // Decoding from the keys alone gives the same values back.
    let mut keys_only = it.clone();
    keys_only.remove("user_id");
    keys_only.remove("order_id");
    assert_eq!(Order::from_item(&keys_only).unwrap(), o);
    // A user whose id looks like an order key is still a user, not an order.
    let u = user("1#ORDER#2", "Eve");
    let ui = u.to_item().unwrap();
    assert_eq!(ui["PK"], s("USER#1%23ORDER%232"));
    assert!(User::is_entity(&ui) && !Order::is_entity(&ui));
    // An unescaped key written by another client does not match the user template.
    let foreign = item(&[("PK", s("USER#1#ORDER#2")), ("SK", s("PROFILE"))]);
    assert!(!User::is_entity(&foreign));
}

#[test]
fn conventional_items_written_by_other_clients_decode_from_their_keys() {
    // Keys only for the key fields, no entity-type attribute, plain `USER#123`.
    let foreign = item(&[
        ("PK", s("USER#123")),
        ("SK", s("ORDER#456")),
        ("GSI1PK", s("STATUS#DELIVERED")),
        ("GSI1SK", s("2023-12-24")),
        ("total", n("10")),
        ("product_ids", AttributeValue::L(vec![])),
    ]);
    assert!(Order::is_entity(&foreign));
    assert!(<Order as FromItem>::accepts(&foreign));
    assert!(!User::is_entity(&foreign));
    let o = Order::from_item(&foreign).unwrap();
    assert_eq!(o.user_id, "123");
    assert_eq!(o.order_id, "456");
    assert_eq!(o.status, OrderStatus::Delivered, "recovered from GSI1PK");
    assert_eq!(o.order_date, date!(2023 - 12 - 24), "recovered from GSI1SK");
    assert_eq!(o.version, 0, "a missing version reads as 0");
    assert_eq!(o.note, None);

    let profile = item(&[
        ("PK", s("USER#123")),
        ("SK", s("PROFILE")),
        ("name", s("Ann")),
        ("email", s("a@x")),
    ]);
    assert!(User::is_entity(&profile) && !Order::is_entity(&profile));
    assert_eq!(User::from_item(&profile).unwrap().user_id, "123");

    // A key that cannot be parsed for a field says where and what.
    let bad = item(&[
        ("PK", s("USER#1")),
        ("SK", s("ORDER#2")),
        ("GSI1PK", s("STATUS#LOST")),
        ("GSI1SK", s("2023-12-24")),
        ("total", n("1")),
    ]);
    let err = Order::from_item(&bad).unwrap_err().to_string();
    assert!(
        err.contains("Order.GSI1PK") && err.contains("status"),
        "{err}"
    );
}

#[test]
fn decode_errors_name_the_entity_and_attribute() {
    let mut it = sample_order().to_item().unwrap();
    it.insert("total".into(), s("lots"));
    let err = Order::from_item(&it).unwrap_err().to_string();
    assert!(err.contains("Order.total"), "{err}");
    it.remove("total");
    let err = Order::from_item(&it).unwrap_err().to_string();
    assert!(err.contains("Order.total"), "{err}");
}

#[test]
fn the_entity_attribute_decides_when_present() {
    let mut it = sample_order().to_item().unwrap();
    it.insert("_type".into(), s("Invoice"));
    assert!(
        !Order::is_entity(&it),
        "an item typed as another entity is never decoded as an Order"
    );
}

// ---------------------------------------------------------------------------------------------
// Query builders

fn key_condition<T: FromItem>(
    q: dyno_core::Result<dyno_core::ops::Query<T>>,
) -> (Option<String>, KeyCondition) {
    let q = q.unwrap();
    let r = q.request();
    (r.index.clone(), r.key_condition.clone())
}

#[test]
fn table_query_reads_the_users_orders_only() {
    let (index, kc) = key_condition(Order::query("u1").into_query());
    assert_eq!(index, None);
    assert_eq!(kc.partition_name, "PK");
    assert_eq!(kc.partition_value, s("USER#u1"));
    assert_eq!(
        kc.sort,
        Some(("SK".into(), SortCondition::BeginsWith(s("ORDER#"))))
    );
    let (_, kc) = key_condition(
        Order::query("u1")
            .order_id()
            .begins_with("2024")
            .into_query(),
    );
    assert_eq!(
        kc.sort,
        Some(("SK".into(), SortCondition::BeginsWith(s("ORDER#2024"))))
    );
    let (_, kc) = key_condition(Order::query("u1").order_id().eq("o9").into_query());
    assert_eq!(
        kc.sort,
        Some(("SK".into(), SortCondition::Eq(s("ORDER#o9"))))
    );
    // Ranges stay under the prefix: other entities of the partition are outside the bounds.
    let (_, kc) = key_condition(Order::query("u1").order_id().ge("o5").into_query());
    assert_eq!(
        kc.sort,
        Some((
            "SK".into(),
            SortCondition::Between(s("ORDER#o5"), s("ORDER$"))
        ))
    );
    let (_, kc) = key_condition(User::query("u1").into_query());
    assert_eq!(
        kc.sort,
        Some(("SK".into(), SortCondition::Eq(s("PROFILE"))))
    );
}

#[test]
fn index_queries_are_typed_by_the_index_fields() {
    let (index, kc) = key_condition(
        Order::gsi1(OrderStatus::Shipped)
            .order_date()
            .between(date!(2024 - 01 - 01), date!(2024 - 01 - 31))
            .into_query(),
    );
    assert_eq!(index.as_deref(), Some("GSI1"));
    assert_eq!(kc.partition_name, "GSI1PK");
    assert_eq!(kc.partition_value, s("STATUS#SHIPPED"));
    assert_eq!(
        kc.sort,
        Some((
            "GSI1SK".into(),
            SortCondition::Between(s("2024-01-01"), s("2024-01-31"))
        ))
    );
    let (_, kc) = key_condition(
        Product::gsi1("books")
            .price()
            .lt(Decimal::new(20, 0))
            .into_query(),
    );
    assert_eq!(kc.partition_value, s("CATEGORY#books"));
    let mut bound = String::new();
    Decimal::new(20, 0).encode_key(&mut bound).unwrap();
    assert_eq!(
        kc.sort,
        Some(("GSI1SK".into(), SortCondition::Lt(s(&bound))))
    );
}

#[test]
fn query_options_reach_the_request() {
    let q = Order::query("u1")
        .filter(Order::TOTAL.gt(Decimal::new(10, 0)))
        .page_size(7)
        .descending()
        .consistent()
        .into_query()
        .unwrap();
    let r = q.request();
    assert_eq!(r.limit, Some(7));
    assert!(!r.scan_forward && r.consistent_read);
    assert_eq!(
        r.filter,
        Some(Condition::Compare(
            Operand::Path(Path::attr("total")),
            Comparator::Gt,
            Operand::Value(n("10"))
        ))
    );
    let q = Order::query("u1")
        .project::<OrderSummary>()
        .into_query()
        .unwrap();
    let projected: Vec<String> = q
        .request()
        .projection
        .clone()
        .unwrap()
        .iter()
        .filter_map(|p| p.top().map(str::to_owned))
        .collect();
    for a in ["order_id", "status", "total", "PK", "SK", "_type"] {
        assert!(
            projected.iter().any(|p| p == a),
            "{a} missing from {projected:?}"
        );
    }
}

#[test]
fn building_errors_surface_when_the_query_runs() {
    let err = Order::query("").into_query().unwrap_err();
    assert!(err.to_string().contains("user_id"), "{err}");
    let err = Order::query("u1")
        .filter(Order::NOTE.lt(None))
        .into_query()
        .unwrap_err();
    assert!(err.to_string().contains("note"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// Conditions and updates

#[test]
fn typed_conditions_use_the_field_attribute_and_encoding() {
    let c = Order::STATUS
        .eq(OrderStatus::Pending)
        .into_condition()
        .unwrap();
    assert_eq!(c, Condition::eq("status", s("PENDING")));
    let c = (Product::STOCK.ge(1u32) & Product::CATEGORY.begins_with("bo"))
        .into_condition()
        .unwrap();
    assert!(matches!(c, Condition::And(ref v) if v.len() == 2));
}

fn sets(u: &dyno_core::expr::Update) -> HashMap<String, SetValue> {
    u.set
        .iter()
        .map(|(p, v)| (p.top().unwrap().to_owned(), v.clone()))
        .collect()
}

#[test]
fn setting_an_index_key_field_rewrites_the_index_key() {
    let b = Order::update(Order::key("u1", "o1"))
        .set_status(OrderStatus::Delivered)
        .into_update()
        .unwrap();
    let set = sets(&b.update_expr());
    assert_eq!(set["status"], SetValue::value(s("DELIVERED")));
    assert_eq!(set["GSI1PK"], SetValue::value(s("STATUS#DELIVERED")));
    assert!(!set.contains_key("GSI1SK"), "the date did not change");
    let b = Order::update(Order::key("u1", "o1"))
        .set_order_date(date!(2024 - 02 - 02))
        .into_update()
        .unwrap();
    assert_eq!(
        sets(&b.update_expr())["GSI1SK"],
        SetValue::value(s("2024-02-02"))
    );
}

#[test]
fn update_actions_follow_the_field_types() {
    let b = Order::update(Order::key("u1", "o1"))
        .remove_note()
        .append_product_ids(vec!["p3".to_owned()])
        .add_total(Decimal::new(5, 0))
        .condition(Order::STATUS.eq(OrderStatus::Pending))
        .if_version(3)
        .into_update()
        .unwrap();
    let u = b.update_expr();
    assert_eq!(u.remove, vec![Path::attr("note")]);
    assert_eq!(u.add, vec![(Path::attr("total"), n("5"))]);
    assert_eq!(
        sets(&u)["product_ids"],
        SetValue::Operand(UpdateOperand::ListAppend(
            Box::new(UpdateOperand::IfNotExists(
                Path::attr("product_ids"),
                Box::new(UpdateOperand::Value(AttributeValue::L(vec![])))
            )),
            Box::new(UpdateOperand::Value(AttributeValue::L(vec![s("p3")]))),
        ))
    );
    let b = Product::update(Product::key("p1"))
        .subtract_stock(2u32)
        .set_if_absent_name("x")
        .into_update()
        .unwrap();
    let set = sets(&b.update_expr());
    assert_eq!(
        set["stock"],
        SetValue::Minus(
            UpdateOperand::IfNotExists(Path::attr("stock"), Box::new(UpdateOperand::Value(n("0")))),
            UpdateOperand::Value(n("2"))
        )
    );
    assert_eq!(
        set["name"],
        SetValue::Operand(UpdateOperand::IfNotExists(
            Path::attr("name"),
            Box::new(UpdateOperand::Value(s("x")))
        ))
    );
    // Setting a field twice keeps the last value (no overlapping paths).
    let b = Order::update(Order::key("u1", "o1"))
        .set_note("a")
        .set_note("b")
        .into_update()
        .unwrap();
    assert_eq!(b.update_expr().set.len(), 1);
    assert_eq!(sets(&b.update_expr())["note"], SetValue::value(s("b")));
    // `None` removes.
    let b = Order::update(Order::key("u1", "o1"))
        .set_note(None)
        .into_update()
        .unwrap();
    assert_eq!(b.update_expr().remove, vec![Path::attr("note")]);
}

#[test]
fn update_errors_surface_when_sent() {
    let err = Order::update(Order::key("u1", "o1"))
        .set_total(Decimal::MAX)
        .condition(Order::NOTE.gt(None))
        .into_update()
        .unwrap_err();
    assert!(err.to_string().contains("note"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// Projections and collections

#[test]
fn projections_decode_a_subset_and_skip_other_entities() {
    let it = sample_order().to_item().unwrap();
    assert!(OrderSummary::accepts(&it));
    let p = <OrderSummary as FromItem>::from_item(&it).unwrap();
    assert_eq!(
        p,
        OrderSummary {
            order_id: "o1".into(),
            status: OrderStatus::Shipped,
            total: Decimal::new(4250, 2)
        }
    );
    let user_item = user("u1", "Ann").to_item().unwrap();
    assert!(!OrderSummary::accepts(&user_item));
    // A key field missing as an attribute is read from the key.
    let projected = item(&[
        ("PK", s("USER#u1")),
        ("SK", s("ORDER#o7")),
        ("_type", s("Order")),
        ("status", s("PENDING")),
        ("total", n("1")),
    ]);
    assert_eq!(
        <OrderSummary as FromItem>::from_item(&projected)
            .unwrap()
            .order_id,
        "o7"
    );
    let attrs = <OrderSummary as FromItem>::projection().unwrap();
    assert_eq!(attrs, &["order_id", "status", "total", "PK", "SK", "_type"]);
}

#[test]
fn collections_pick_the_entity_of_each_item() {
    let o = sample_order();
    let u = user("u1", "Ann");
    let from_o = <UserItem as FromItem>::from_item(&o.to_item().unwrap()).unwrap();
    let from_u = <UserItem as FromItem>::from_item(&u.to_item().unwrap()).unwrap();
    assert_eq!(from_o, UserItem::Order(o));
    assert_eq!(from_u, UserItem::User(u));
    let p = product("p1", "books", Decimal::ONE, 1).to_item().unwrap();
    assert!(!UserItem::accepts(&p));
    let err = <UserItem as FromItem>::from_item(&p)
        .unwrap_err()
        .to_string();
    assert!(err.contains("Product"), "{err}");
    let (_, kc) = key_condition(UserItem::query("u1").check());
    assert_eq!(kc.partition_value, s("USER#u1"));
    // The members' range (ORDER#... and PROFILE), not the whole partition.
    assert_eq!(
        kc.sort,
        Some((
            "SK".to_owned(),
            dyno_core::expr::SortCondition::Between(s("ORDER#"), s("PROFILF"))
        )),
    );
}

// ---------------------------------------------------------------------------------------------
// KeyPart derive

#[derive(Debug, Clone, Copy, PartialEq, KeyPart)]
enum Priority {
    Low,
    #[dyno(rename = "hi")]
    High,
}

#[derive(Debug, Clone, PartialEq, KeyPart)]
struct Sku(String);

#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, KeyPart)]
struct Seq(u32);

#[test]
fn key_part_derive_encodes_by_name_and_delegates_newtypes() {
    use dyno_core::key::encode_part;
    use dyno_core::{FromAttribute, ToAttribute};
    assert_eq!(encode_part(&Priority::Low).unwrap(), "Low");
    assert_eq!(encode_part(&Priority::High).unwrap(), "hi");
    assert_eq!(Priority::decode_key("hi").unwrap(), Priority::High);
    let err = Priority::decode_key("High").unwrap_err().to_string();
    assert!(err.contains("\"Low\", \"hi\""), "{err}");
    assert_eq!(Priority::High.to_attribute().unwrap(), Some(s("hi")));
    assert_eq!(Priority::from_attribute(&s("Low")).unwrap(), Priority::Low);
    assert_eq!(OrderStatus::Cancelled.key_name(), "CANCELLED");
    assert_eq!(encode_part(&Sku("a#b".into())).unwrap(), "a%23b");
    assert_eq!(Sku::decode_key("a%23b").unwrap(), Sku("a#b".into()));
    assert_eq!(encode_part(&Seq(7)).unwrap(), "0000000007");
    assert_eq!(Seq(7).to_attribute().unwrap(), Some(n("7")));
}

#[test]
fn keys_of_hand_built_items_match_typed_keys() {
    let k: Key<Product> = Product::key("p1");
    assert_eq!(
        k.as_item(),
        &item(&[("PK", s("PRODUCT#p1")), ("SK", s("PRODUCT"))])
    );
}

#[test]
fn streams_and_futures_are_send() {
    fn send<T: Send>(_: T) {}
    let store = dyno_core::MemoryStore::new();
    send(Order::query("u1").stream(&store));
    send(Order::gsi1(OrderStatus::Pending).all(&store));
    send(
        Order::update(Order::key("u1", "o1"))
            .set_note("x")
            .send(&store),
    );
    send(UserItem::query("u1").stream(&store));
    send(UserWithOrders::query("u1").all(&store));
}
