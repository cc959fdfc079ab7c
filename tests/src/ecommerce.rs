//! The tutorial's e-commerce model (users, their orders and products in one table with an
//! overloaded GSI1), defined once in `examples/ecommerce/model.rs` and used here by the derive
//! tests, the cache tests and the benchmarks, plus fixtures: table creation and constructors.

use dyno_core::{Store, Table, TableDef};
use rust_decimal::Decimal;
use time::Date;

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
