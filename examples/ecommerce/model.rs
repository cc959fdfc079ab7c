//! The tutorial's e-commerce model, written with derives only: users, their orders and products
//! in one table, with an overloaded GSI1 (orders by status and date, products by category and
//! price). The walkthrough (`examples/ecommerce.rs`) and the workspace's tests
//! (`tests/src/ecommerce.rs`) both use this file, so the tests prove the model the walkthrough
//! shows.
//!
//! | entity  | PK             | SK              | GSI1PK               | GSI1SK         |
//! |---------|----------------|-----------------|----------------------|----------------|
//! | User    | `USER#<id>`    | `PROFILE`       |                      |                |
//! | Order   | `USER#<id>`    | `ORDER#<id>`    | `STATUS#<status>`    | `<order_date>` |
//! | Product | `PRODUCT#<id>` | `PRODUCT`       | `CATEGORY#<category>`| `<price>`      |

use dyno_core::{Collection, Entity, KeyPart, Projection, Table};
use rust_decimal::Decimal;
use time::{Date, OffsetDateTime};

/// The one table.
#[derive(Debug, Table)]
#[dyno(name = "ECommerce", pk = "PK", sk = "SK", ttl = "ttl")]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
#[dyno(entities(User, Order, Product), collections(UserItem, UserWithOrders))]
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
