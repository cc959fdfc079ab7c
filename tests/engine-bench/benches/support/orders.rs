//! The order items and puts the store, scale and profile benchmarks share.

use dyno_core::store::PutRequest;
use dyno_core::{AttributeValue, Item};

pub fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

/// An order-like item of ten attributes.
pub fn order(user: u32, order: u32) -> Item {
    Item::from([
        ("PK".to_owned(), s(&format!("USER#{user}"))),
        ("SK".to_owned(), s(&format!("ORDER#{order:08}"))),
        ("GSI1PK".to_owned(), s("STATUS#PENDING")),
        ("GSI1SK".to_owned(), s("2024-05-01")),
        ("_type".to_owned(), s("Order")),
        ("user_id".to_owned(), s(&user.to_string())),
        ("order_id".to_owned(), s(&order.to_string())),
        ("status".to_owned(), s("PENDING")),
        ("total".to_owned(), AttributeValue::N("129.99".to_owned())),
        ("version".to_owned(), AttributeValue::N("1".to_owned())),
    ])
}

pub fn put(table: &str, item: Item) -> PutRequest {
    PutRequest::new(table.to_owned(), item)
}
