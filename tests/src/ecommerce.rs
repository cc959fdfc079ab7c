//! The tutorial's e-commerce model (users, their orders and products in one table with an
//! overloaded GSI1), defined once in `examples/ecommerce/model.rs` and used here by the derive
//! tests, the cache tests and the benchmarks, plus fixtures: table creation and constructors.

use dyno_core::{Store, Table, TableDef};
use rust_decimal::Decimal;
use time::{Date, OffsetDateTime};

#[path = "../../examples/ecommerce/model.rs"]
mod model;

pub use model::*;

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

/// An order with every field set (two products, a note, version 3, a TTL in 2096): the one the
/// codec and cache benchmarks measure.
pub fn full_order() -> Order {
    Order {
        user_id: "alice".into(),
        order_id: "2024-05-01-0042".into(),
        status: OrderStatus::Shipped,
        order_date: time::macros::date!(2024 - 05 - 01),
        total: Decimal::new(12999, 2),
        product_ids: vec!["PRD-1001".into(), "PRD-2002".into()],
        note: Some("leave at the door".into()),
        version: 3,
        expires_at: Some(
            OffsetDateTime::from_unix_timestamp(4_000_000_000).expect("a valid timestamp"),
        ),
    }
}
