//! The tutorial's e-commerce model, written with derives only: users, their orders and products
//! in one table, with an overloaded GSI1 (orders by status and date, products by category and
//! price). Shared by the derive tests, the cache tests and the examples.
//!
//! | entity  | PK             | SK              | GSI1PK               | GSI1SK         |
//! |---------|----------------|-----------------|----------------------|----------------|
//! | User    | `USER#<id>`    | `PROFILE`       |                      |                |
//! | Order   | `USER#<id>`    | `ORDER#<id>`    | `STATUS#<status>`    | `<order_date>` |
//! | Product | `PRODUCT#<id>` | `PRODUCT`       | `CATEGORY#<category>`| `<price>`      |

use dyno_core::{Collection, Entity, KeyPart, Projection, Store, Table, TableDef};
use rust_decimal::Decimal;
use time::{Date, OffsetDateTime};

/// The one table.
#[derive(Debug, Table)]
#[dyno(name = "ECommerce", pk = "PK", sk = "SK", ttl = "ttl")]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
pub struct ECommerce;

/// A customer's profile.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = ECommerce, pk = "USER#{user_id}", sk = "PROFILE")]
pub struct User {
    pub user_id: String,
    pub name: String,
    pub email: String,
    #[dyno(version)]
    pub version: u64,
}

/// Where an order is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, KeyPart)]
#[dyno(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OrderStatus {
    Pending,
    Shipped,
    Delivered,
    Cancelled,
}

/// An order of a user, also listed by status and date in GSI1.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = ECommerce, pk = "USER#{user_id}", sk = "ORDER#{order_id}")]
#[dyno(index(GSI1, pk = "STATUS#{status}", sk = "{order_date}"))]
pub struct Order {
    pub user_id: String,
    pub order_id: String,
    pub status: OrderStatus,
    pub order_date: Date,
    pub total: Decimal,
    pub product_ids: Vec<String>,
    pub note: Option<String>,
    #[dyno(version)]
    pub version: u64,
    /// Unpaid orders expire.
    #[dyno(ttl)]
    pub expires_at: Option<OffsetDateTime>,
}

/// A product, also listed by category and price in GSI1.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = ECommerce, pk = "PRODUCT#{product_id}", sk = "PRODUCT")]
#[dyno(index(GSI1, pk = "CATEGORY#{category}", sk = "{price}"))]
pub struct Product {
    pub product_id: String,
    pub name: String,
    pub category: String,
    pub price: Decimal,
    pub stock: u32,
}

/// Everything in a user's partition, one item at a time.
#[derive(Debug, Clone, PartialEq, Collection)]
pub enum UserItem {
    User(User),
    Order(Order),
}

/// A user's partition, grouped: the profile and the orders, from one query.
#[derive(Debug, Clone, PartialEq, Collection)]
pub struct UserWithOrders {
    pub user: Option<User>,
    pub orders: Vec<Order>,
}

/// The order fields a listing needs.
#[derive(Debug, Clone, PartialEq, Projection)]
#[dyno(entity = Order)]
pub struct OrderSummary {
    pub order_id: String,
    pub status: OrderStatus,
    pub total: Decimal,
}

/// Creates the table on `store` under its default name (`ECommerce`).
pub async fn create_table<S: Store + ?Sized>(store: &S) -> dyno_core::Result<()> {
    store.create_table(<ECommerce as Table>::definition()).await
}

/// The table's definition under another name (per-test tables on shared servers).
pub fn definition() -> &'static TableDef {
    <ECommerce as Table>::definition()
}

/// A user.
pub fn user(id: &str, name: &str) -> User {
    User {
        user_id: id.into(),
        name: name.into(),
        email: format!("{}@example.com", name.to_lowercase()),
        version: 0,
    }
}

/// An order of `user` on `date` (`YYYY-MM-DD`).
pub fn order(user: &str, id: &str, status: OrderStatus, date: Date, total: Decimal) -> Order {
    Order {
        user_id: user.into(),
        order_id: id.into(),
        status,
        order_date: date,
        total,
        product_ids: Vec::new(),
        note: None,
        version: 0,
        expires_at: None,
    }
}

/// A product.
pub fn product(id: &str, category: &str, price: Decimal, stock: u32) -> Product {
    Product {
        product_id: id.into(),
        name: format!("Product {id}"),
        category: category.into(),
        price,
        stock,
    }
}
