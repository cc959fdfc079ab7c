//! The e-commerce model of the tutorial, with HAND-WRITTEN `Entity` impls (no derive): what the
//! derive generates, spelled out, so the runtime can be tested on its own.
//!
//! Table `ECommerce`: `PK`, `SK`; `GSI1` on `GSI1PK`/`GSI1SK` (overloaded: orders by status and
//! date, products by category and price); TTL attribute `ttl`; entity-type attribute `_type`.
//!
//! | entity  | PK                | SK                 | GSI1PK               | GSI1SK                    |
//! |---------|-------------------|--------------------|----------------------|---------------------------|
//! | User    | `USER#{user_id}`  | `PROFILE`          |                      |                           |
//! | Order   | `USER#{user_id}`  | `ORDER#{order_id}` | `STATUS#{status}`    | `{order_date}` YYYY-MM-DD |
//! | Product | `PRODUCT#{id}`    | `PRODUCT`          | `CATEGORY#{category}`| `{price_cents}` 10 digits |

use std::sync::OnceLock;

use dyno_core::entity::IndexTemplate;
use dyno_core::expr::{KeyCondition, SortCondition};
use dyno_core::key::{Segment, Template};
use dyno_core::ops::{Key, Query};
use dyno_core::table::IndexDef;
use dyno_core::value::{get_attr, put_attr};
use dyno_core::{AttributeValue, Entity, Error, Item, KeyPart, Result, Table, TableDef};
use rust_decimal::Decimal;
use time::Date;

/// The name of the table the entities live in.
pub const TABLE: &str = "ECommerce";
/// The overloaded index.
pub const GSI1: &str = "GSI1";

/// The e-commerce table's definition under `name`.
pub fn ecommerce_table(name: &str) -> TableDef {
    TableDef::new(name, "PK", Some("SK"))
        .global_index(IndexDef::new(GSI1, "GSI1PK", Some("GSI1SK")))
        .ttl("ttl")
}

/// The table as a type.
#[derive(Debug, Clone, Copy)]
pub struct ECommerce;

impl Table for ECommerce {
    fn definition() -> &'static TableDef {
        static DEF: OnceLock<TableDef> = OnceLock::new();
        DEF.get_or_init(|| ecommerce_table(TABLE))
    }
}

/// Fills a template's fields with already encoded segments, in order.
fn fill(template: Template, encoded: &[String]) -> Result<String> {
    let mut out = String::new();
    let mut values = encoded.iter();
    for seg in template.segments() {
        match seg {
            Segment::Literal(l) => out.push_str(l),
            Segment::Field(f) => out.push_str(values.next().ok_or_else(|| {
                Error::key(None, format!("template {template}: no value for {f}"))
            })?),
        }
    }
    Ok(out)
}

/// Encodes one key part, naming the entity and attribute on error.
fn part<T: KeyPart>(v: &T, entity: &'static str, attr: &str) -> Result<String> {
    dyno_core::key::encode_part(v).map_err(|e| e.at(entity, attr))
}

/// Splits the string key attribute `attr` of `item` by `template` into its raw segments.
fn split_key<'i>(
    item: &'i Item,
    entity: &'static str,
    attr: &str,
    template: Template,
) -> Result<Vec<&'i str>> {
    match item.get(attr) {
        Some(AttributeValue::S(s)) => template.split(s).ok_or_else(|| {
            Error::key(
                Some(entity),
                format!("{attr} {s:?} does not match the template {template}"),
            )
        }),
        Some(other) => Err(Error::decode("S", dyno_core::value::describe(other)).at(entity, attr)),
        None => Err(Error::decode("S", "no attribute").at(entity, attr)),
    }
}

fn decode_part<T: KeyPart>(segment: &str, entity: &'static str, attr: &str) -> Result<T> {
    T::decode_key(segment).map_err(|e| e.at(entity, attr))
}

fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

fn key_item(pk: String, sk: String) -> Item {
    Item::from([("PK".to_owned(), s(pk)), ("SK".to_owned(), s(sk))])
}

// ---------------------------------------------------------------------------------------------
// User

const USER_PK: Template = Template::new(&[Segment::Literal("USER#"), Segment::Field("user_id")]);
const USER_SK: Template = Template::new(&[Segment::Literal("PROFILE")]);

/// A customer: `PK = USER#<id>`, `SK = PROFILE`.
#[derive(Debug, Clone, PartialEq)]
pub struct User {
    /// Key field.
    pub user_id: String,
    /// Display name.
    pub name: String,
    /// Email address.
    pub email: String,
}

impl User {
    /// The key of the user `user_id`.
    pub fn key(user_id: &str) -> Result<Key<User>> {
        let pk = fill(USER_PK, &[part(&user_id.to_owned(), "User", "user_id")?])?;
        Ok(Key::from_item(key_item(pk, fill(USER_SK, &[])?)))
    }

    /// Everything in the user's partition (profile and orders), decoded as `T`.
    pub fn partition<T: dyno_core::ops::FromItem>(user_id: &str) -> Result<Query<T>> {
        let pk = fill(USER_PK, &[part(&user_id.to_owned(), "User", "user_id")?])?;
        Ok(Query::new(
            TABLE,
            None,
            KeyCondition::partition("PK", s(pk)),
        ))
    }
}

impl Entity for User {
    type Table = ECommerce;
    const ENTITY_TYPE: &'static str = "User";
    const PK: Template = USER_PK;
    const SK: Option<Template> = Some(USER_SK);

    fn key(&self) -> Result<Item> {
        User::key(&self.user_id).map(Key::into_item)
    }

    fn to_item(&self) -> Result<Item> {
        let mut item = self.key()?;
        item.insert("_type".into(), s("User"));
        put_attr(&mut item, "User", "name", &self.name)?;
        put_attr(&mut item, "User", "email", &self.email)?;
        Ok(item)
    }

    fn from_item(item: &Item) -> Result<Self> {
        let pk = split_key(item, "User", "PK", USER_PK)?;
        Ok(User {
            user_id: decode_part(pk[0], "User", "user_id")?,
            name: get_attr(item, "User", "name")?,
            email: get_attr(item, "User", "email")?,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Order

/// An order's status: a unit enum stored and keyed by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OrderStatus {
    /// Placed, not paid.
    Pending,
    /// On its way.
    Shipped,
    /// Arrived.
    Delivered,
}

impl OrderStatus {
    /// The name stored and used in keys.
    pub fn name(self) -> &'static str {
        match self {
            OrderStatus::Pending => "PENDING",
            OrderStatus::Shipped => "SHIPPED",
            OrderStatus::Delivered => "DELIVERED",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        match s {
            "PENDING" => Some(OrderStatus::Pending),
            "SHIPPED" => Some(OrderStatus::Shipped),
            "DELIVERED" => Some(OrderStatus::Delivered),
            _ => None,
        }
    }
}

impl KeyPart for OrderStatus {
    fn encode_key(&self, out: &mut String) -> Result<()> {
        out.push_str(self.name());
        Ok(())
    }
    fn decode_key(segment: &str) -> Result<Self> {
        OrderStatus::parse(segment).ok_or_else(|| {
            Error::key(
                None,
                format!("expected PENDING, SHIPPED or DELIVERED, found {segment:?}"),
            )
        })
    }
}

impl dyno_core::ToAttribute for OrderStatus {
    fn to_attribute(&self) -> Result<Option<AttributeValue>> {
        Ok(Some(s(self.name())))
    }
}

impl dyno_core::FromAttribute for OrderStatus {
    fn from_attribute(value: &AttributeValue) -> Result<Self> {
        match value {
            AttributeValue::S(v) => OrderStatus::parse(v),
            _ => None,
        }
        .ok_or_else(|| {
            Error::decode(
                "S PENDING, SHIPPED or DELIVERED",
                dyno_core::value::describe(value),
            )
        })
    }
}

const ORDER_PK: Template = USER_PK;
const ORDER_SK: Template = Template::new(&[Segment::Literal("ORDER#"), Segment::Field("order_id")]);
const ORDER_GSI1PK: Template =
    Template::new(&[Segment::Literal("STATUS#"), Segment::Field("status")]);
const ORDER_GSI1SK: Template = Template::new(&[Segment::Field("order_date")]);

/// An order: `PK = USER#<user_id>`, `SK = ORDER#<order_id>`, in GSI1 by status and date;
/// versioned (optimistic locking) and optionally expiring.
#[derive(Debug, Clone, PartialEq)]
pub struct Order {
    /// Key field.
    pub user_id: String,
    /// Key field.
    pub order_id: String,
    /// GSI1 partition.
    pub status: OrderStatus,
    /// GSI1 sort key, `YYYY-MM-DD`.
    pub order_date: Date,
    /// Amount, stored as a number.
    pub total: Decimal,
    /// Optimistic-locking version (0: never stored).
    pub version: u64,
    /// Expiry, epoch seconds.
    pub ttl: Option<u64>,
}

impl Order {
    /// A new order (version 0, no expiry).
    pub fn new(
        user_id: &str,
        order_id: &str,
        status: OrderStatus,
        order_date: Date,
        total: Decimal,
    ) -> Self {
        Order {
            user_id: user_id.to_owned(),
            order_id: order_id.to_owned(),
            status,
            order_date,
            total,
            version: 0,
            ttl: None,
        }
    }

    /// The key of an order.
    pub fn key(user_id: &str, order_id: &str) -> Result<Key<Order>> {
        let pk = fill(ORDER_PK, &[part(&user_id.to_owned(), "Order", "user_id")?])?;
        let sk = fill(
            ORDER_SK,
            &[part(&order_id.to_owned(), "Order", "order_id")?],
        )?;
        Ok(Key::from_item(key_item(pk, sk)))
    }

    /// A user's orders (`SK` begins with `ORDER#`), by order id.
    pub fn query(user_id: &str) -> Result<Query<Order>> {
        let pk = fill(ORDER_PK, &[part(&user_id.to_owned(), "Order", "user_id")?])?;
        Ok(Query::new(
            TABLE,
            None,
            KeyCondition::partition("PK", s(pk))
                .sort("SK", SortCondition::BeginsWith(s(ORDER_SK.prefix()))),
        ))
    }

    /// Orders with `status`, by date (GSI1).
    pub fn by_status(status: OrderStatus) -> Result<Query<Order>> {
        let pk = fill(ORDER_GSI1PK, &[part(&status, "Order", "status")?])?;
        Ok(Query::new(
            TABLE,
            Some(GSI1),
            KeyCondition::partition("GSI1PK", s(pk)),
        ))
    }

    /// Orders with `status` placed between `from` and `to` inclusive (GSI1).
    pub fn by_status_between(status: OrderStatus, from: Date, to: Date) -> Result<Query<Order>> {
        let pk = fill(ORDER_GSI1PK, &[part(&status, "Order", "status")?])?;
        let (a, b) = (
            part(&from, "Order", "order_date")?,
            part(&to, "Order", "order_date")?,
        );
        Ok(Query::new(
            TABLE,
            Some(GSI1),
            KeyCondition::partition("GSI1PK", s(pk))
                .sort("GSI1SK", SortCondition::Between(s(a), s(b))),
        ))
    }
}

impl Entity for Order {
    type Table = ECommerce;
    const ENTITY_TYPE: &'static str = "Order";
    const PK: Template = ORDER_PK;
    const SK: Option<Template> = Some(ORDER_SK);
    const INDEXES: &'static [IndexTemplate] = &[IndexTemplate {
        index: GSI1,
        pk: ORDER_GSI1PK,
        sk: Some(ORDER_GSI1SK),
        shards: 0,
    }];
    const VERSION_ATTRIBUTE: Option<&'static str> = Some("version");
    const TTL_ATTRIBUTE: Option<&'static str> = Some("ttl");

    fn key(&self) -> Result<Item> {
        Order::key(&self.user_id, &self.order_id).map(Key::into_item)
    }

    fn to_item(&self) -> Result<Item> {
        let mut item = self.key()?;
        item.insert("_type".into(), s("Order"));
        item.insert(
            "GSI1PK".into(),
            s(fill(
                ORDER_GSI1PK,
                &[part(&self.status, "Order", "status")?],
            )?),
        );
        item.insert(
            "GSI1SK".into(),
            s(fill(
                ORDER_GSI1SK,
                &[part(&self.order_date, "Order", "order_date")?],
            )?),
        );
        put_attr(&mut item, "Order", "status", &self.status)?;
        put_attr(&mut item, "Order", "order_date", &self.order_date)?;
        put_attr(&mut item, "Order", "total", &self.total)?;
        put_attr(&mut item, "Order", "version", &self.version)?;
        put_attr(&mut item, "Order", "ttl", &self.ttl)?;
        Ok(item)
    }

    fn from_item(item: &Item) -> Result<Self> {
        let pk = split_key(item, "Order", "PK", ORDER_PK)?;
        let sk = split_key(item, "Order", "SK", ORDER_SK)?;
        Ok(Order {
            user_id: decode_part(pk[0], "Order", "user_id")?,
            order_id: decode_part(sk[0], "Order", "order_id")?,
            status: get_attr(item, "Order", "status")?,
            order_date: get_attr(item, "Order", "order_date")?,
            total: get_attr(item, "Order", "total")?,
            version: get_attr::<Option<u64>>(item, "Order", "version")?.unwrap_or(0),
            ttl: get_attr(item, "Order", "ttl")?,
        })
    }

    fn version(&self) -> Option<u64> {
        Some(self.version)
    }

    fn set_version(&mut self, version: u64) {
        self.version = version;
    }
}

// ---------------------------------------------------------------------------------------------
// Product

const PRODUCT_PK: Template =
    Template::new(&[Segment::Literal("PRODUCT#"), Segment::Field("product_id")]);
const PRODUCT_SK: Template = Template::new(&[Segment::Literal("PRODUCT")]);
const PRODUCT_GSI1PK: Template =
    Template::new(&[Segment::Literal("CATEGORY#"), Segment::Field("category")]);
const PRODUCT_GSI1SK: Template = Template::new(&[Segment::Field("price_cents")]);

/// A product: `PK = PRODUCT#<id>`, `SK = PRODUCT`, in GSI1 by category and price (fixed-width
/// cents, so string order is price order).
#[derive(Debug, Clone, PartialEq)]
pub struct Product {
    /// Key field.
    pub product_id: String,
    /// Display name.
    pub name: String,
    /// GSI1 partition.
    pub category: String,
    /// GSI1 sort key.
    pub price_cents: u32,
    /// Units in stock.
    pub stock: u32,
}

impl Product {
    /// The key of a product.
    pub fn key(product_id: &str) -> Result<Key<Product>> {
        let pk = fill(
            PRODUCT_PK,
            &[part(&product_id.to_owned(), "Product", "product_id")?],
        )?;
        Ok(Key::from_item(key_item(pk, fill(PRODUCT_SK, &[])?)))
    }

    /// Products of a category, by price (GSI1).
    pub fn by_category(category: &str) -> Result<Query<Product>> {
        let pk = fill(
            PRODUCT_GSI1PK,
            &[part(&category.to_owned(), "Product", "category")?],
        )?;
        Ok(Query::new(
            TABLE,
            Some(GSI1),
            KeyCondition::partition("GSI1PK", s(pk)),
        ))
    }
}

impl Entity for Product {
    type Table = ECommerce;
    const ENTITY_TYPE: &'static str = "Product";
    const PK: Template = PRODUCT_PK;
    const SK: Option<Template> = Some(PRODUCT_SK);
    const INDEXES: &'static [IndexTemplate] = &[IndexTemplate {
        index: GSI1,
        pk: PRODUCT_GSI1PK,
        sk: Some(PRODUCT_GSI1SK),
        shards: 0,
    }];

    fn key(&self) -> Result<Item> {
        Product::key(&self.product_id).map(Key::into_item)
    }

    fn to_item(&self) -> Result<Item> {
        let mut item = self.key()?;
        item.insert("_type".into(), s("Product"));
        item.insert(
            "GSI1PK".into(),
            s(fill(
                PRODUCT_GSI1PK,
                &[part(&self.category, "Product", "category")?],
            )?),
        );
        item.insert(
            "GSI1SK".into(),
            s(fill(
                PRODUCT_GSI1SK,
                &[part(&self.price_cents, "Product", "price_cents")?],
            )?),
        );
        put_attr(&mut item, "Product", "name", &self.name)?;
        put_attr(&mut item, "Product", "category", &self.category)?;
        put_attr(&mut item, "Product", "price_cents", &self.price_cents)?;
        put_attr(&mut item, "Product", "stock", &self.stock)?;
        Ok(item)
    }

    fn from_item(item: &Item) -> Result<Self> {
        let pk = split_key(item, "Product", "PK", PRODUCT_PK)?;
        Ok(Product {
            product_id: decode_part(pk[0], "Product", "product_id")?,
            name: get_attr(item, "Product", "name")?,
            category: get_attr(item, "Product", "category")?,
            price_cents: get_attr(item, "Product", "price_cents")?,
            stock: get_attr(item, "Product", "stock")?,
        })
    }
}

/// A fresh MemoryStore holding the e-commerce table ([`TABLE`]): the store of the single-store
/// tests (ops_crud, reliability_inputs).
pub async fn memory_store() -> dyno_core::MemoryStore {
    let store = dyno_core::MemoryStore::new();
    dyno_core::Store::create_table(&store, &ecommerce_table(TABLE))
        .await
        .expect("create the e-commerce table");
    store
}

/// A user with id `id`, named `name {id}`, email `{id}@example.com`.
pub fn user(id: &str) -> User {
    User {
        user_id: id.into(),
        name: format!("name {id}"),
        email: format!("{id}@example.com"),
    }
}

/// A pending order `id` of `user`, placed 2024-01-15, total 19.99.
pub fn order(user: &str, id: &str) -> Order {
    Order::new(
        user,
        id,
        OrderStatus::Pending,
        time::macros::date!(2024 - 01 - 15),
        Decimal::new(1999, 2),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_are_valid_and_keys_round_trip() {
        for t in [
            USER_PK,
            USER_SK,
            ORDER_SK,
            ORDER_GSI1PK,
            ORDER_GSI1SK,
            PRODUCT_PK,
            PRODUCT_GSI1PK,
            PRODUCT_GSI1SK,
        ] {
            t.validate().unwrap();
        }
        let order = Order::new(
            "1#ORDER#2",
            "o%1",
            OrderStatus::Shipped,
            Date::from_calendar_date(2024, time::Month::March, 5).unwrap(),
            Decimal::new(1999, 2),
        );
        let item = order.to_item().unwrap();
        assert_eq!(item["PK"], s("USER#1%23ORDER%232"));
        assert_eq!(item["SK"], s("ORDER#o%251"));
        assert_eq!(item["GSI1PK"], s("STATUS#SHIPPED"));
        assert_eq!(item["GSI1SK"], s("2024-03-05"));
        assert_eq!(Order::from_item(&item).unwrap(), order);
        assert!(Order::is_entity(&item));
        assert!(!User::is_entity(&item));
        let p = Product {
            product_id: "p".into(),
            name: "n".into(),
            category: "c".into(),
            price_cents: 250,
            stock: 1,
        };
        assert_eq!(p.to_item().unwrap()["GSI1SK"], s("0000000250"));
    }
}
