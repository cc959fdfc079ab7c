//! A hand-written codec of the e-commerce `Order`: what a careful engineer writes with
//! aws-sdk-dynamodb and no derive, producing exactly the item `#[derive(Entity)]` produces (same
//! key escaping, same number and date forms; the codec benchmark checks both directions before
//! timing). The codec benchmark times it against the derived codec, the overhead benchmark uses
//! it for the hand-written side of its SDK calls.

use dyno_core::value::describe;
use dyno_core::{AttributeValue, Error, Item, Result};
use rust_decimal::Decimal;
use time::{Date, Month, OffsetDateTime};

use crate::ecommerce::{Order, OrderStatus};

/// dyno's key escape (`#` as `%23`, `%` as `%25`), with the common no-escape case as one copy.
pub fn escape(value: &str, out: &mut String) {
    if !value.bytes().any(|b| b == b'#' || b == b'%') {
        out.push_str(value);
        return;
    }
    for c in value.chars() {
        match c {
            '#' => out.push_str("%23"),
            '%' => out.push_str("%25"),
            c => out.push(c),
        }
    }
}

fn unescape(segment: &str) -> String {
    if !segment.contains('%') {
        return segment.to_owned();
    }
    segment.replace("%23", "#").replace("%25", "%")
}

/// The name an `OrderStatus` is stored under.
pub fn status_name(s: OrderStatus) -> &'static str {
    match s {
        OrderStatus::Pending => "PENDING",
        OrderStatus::Shipped => "SHIPPED",
        OrderStatus::Delivered => "DELIVERED",
        OrderStatus::Cancelled => "CANCELLED",
    }
}

/// A `YYYY-MM-DD` date, or `None`.
pub fn parse_ymd(s: &str) -> Option<Date> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let year: i32 = s[0..4].parse().ok()?;
    let month = Month::try_from(s[5..7].parse::<u8>().ok()?).ok()?;
    Date::from_calendar_date(year, month, s[8..10].parse().ok()?).ok()
}

/// `order` as the item the derive writes.
#[inline(never)] // a call, as the derived methods are; and a symbol for profilers
pub fn hand_to_item(o: &Order) -> Item {
    let mut item = Item::with_capacity(14);
    let mut pk = String::with_capacity(5 + o.user_id.len());
    pk.push_str("USER#");
    escape(&o.user_id, &mut pk);
    let mut sk = String::with_capacity(6 + o.order_id.len());
    sk.push_str("ORDER#");
    escape(&o.order_id, &mut sk);
    let status = status_name(o.status);
    let d = o.order_date;
    let date = format!("{:04}-{:02}-{:02}", d.year(), u8::from(d.month()), d.day());
    item.insert("PK".to_owned(), AttributeValue::S(pk));
    item.insert("SK".to_owned(), AttributeValue::S(sk));
    item.insert(
        "GSI1PK".to_owned(),
        AttributeValue::S(format!("STATUS#{status}")),
    );
    item.insert("GSI1SK".to_owned(), AttributeValue::S(date.clone()));
    item.insert("_type".to_owned(), AttributeValue::S("Order".to_owned()));
    item.insert("user_id".to_owned(), AttributeValue::S(o.user_id.clone()));
    item.insert("order_id".to_owned(), AttributeValue::S(o.order_id.clone()));
    item.insert("status".to_owned(), AttributeValue::S(status.to_owned()));
    item.insert("order_date".to_owned(), AttributeValue::S(date));
    item.insert(
        "total".to_owned(),
        AttributeValue::N(o.total.normalize().to_string()),
    );
    item.insert(
        "product_ids".to_owned(),
        AttributeValue::L(
            o.product_ids
                .iter()
                .map(|p| AttributeValue::S(p.clone()))
                .collect(),
        ),
    );
    if let Some(note) = &o.note {
        item.insert("note".to_owned(), AttributeValue::S(note.clone()));
    }
    item.insert(
        "version".to_owned(),
        AttributeValue::N(o.version.to_string()),
    );
    if let Some(t) = o.expires_at {
        item.insert(
            "ttl".to_owned(),
            AttributeValue::N(t.unix_timestamp().to_string()),
        );
    }
    item
}

fn bad(name: &str, expected: &str, found: Option<&AttributeValue>) -> Error {
    Error::decode(
        expected.to_owned(),
        found.map_or_else(|| "nothing".to_owned(), describe),
    )
    .at("Order", name)
}

fn s<'a>(item: &'a Item, name: &str) -> Result<&'a str> {
    match item.get(name) {
        Some(AttributeValue::S(s)) => Ok(s),
        other => Err(bad(name, "S", other)),
    }
}

fn n<'a>(item: &'a Item, name: &str) -> Result<&'a str> {
    match item.get(name) {
        Some(AttributeValue::N(n)) => Ok(n),
        other => Err(bad(name, "N", other)),
    }
}

/// An `Order` read from the item the derive writes, with the derive's checks.
#[inline(never)]
pub fn hand_from_item(item: &Item) -> Result<Order> {
    let user_id = match item.get("user_id") {
        Some(AttributeValue::S(v)) => v.clone(),
        _ => unescape(
            s(item, "PK")?
                .strip_prefix("USER#")
                .ok_or_else(|| bad("PK", "USER#<id>", item.get("PK")))?,
        ),
    };
    let order_id = match item.get("order_id") {
        Some(AttributeValue::S(v)) => v.clone(),
        _ => unescape(
            s(item, "SK")?
                .strip_prefix("ORDER#")
                .ok_or_else(|| bad("SK", "ORDER#<id>", item.get("SK")))?,
        ),
    };
    let status = match s(item, "status")? {
        "PENDING" => OrderStatus::Pending,
        "SHIPPED" => OrderStatus::Shipped,
        "DELIVERED" => OrderStatus::Delivered,
        "CANCELLED" => OrderStatus::Cancelled,
        _ => return Err(bad("status", "an OrderStatus", item.get("status"))),
    };
    let order_date = parse_ymd(s(item, "order_date")?)
        .ok_or_else(|| bad("order_date", "YYYY-MM-DD", item.get("order_date")))?;
    let total = Decimal::from_str_exact(n(item, "total")?)
        .map_err(|_| bad("total", "a decimal", item.get("total")))?;
    let product_ids = match item.get("product_ids") {
        Some(AttributeValue::L(l)) => l
            .iter()
            .map(|v| match v {
                AttributeValue::S(s) => Ok(s.clone()),
                other => Err(bad("product_ids", "S", Some(other))),
            })
            .collect::<Result<_>>()?,
        other => return Err(bad("product_ids", "L", other)),
    };
    let note = match item.get("note") {
        None => None,
        Some(AttributeValue::S(v)) => Some(v.clone()),
        other => return Err(bad("note", "S", other)),
    };
    let version = match item.get("version") {
        None => 0,
        Some(_) => n(item, "version")?
            .parse()
            .map_err(|_| bad("version", "u64", item.get("version")))?,
    };
    let expires_at = match item.get("ttl") {
        None => None,
        Some(_) => {
            let secs: i64 = n(item, "ttl")?
                .parse()
                .map_err(|_| bad("ttl", "epoch seconds", item.get("ttl")))?;
            Some(
                OffsetDateTime::from_unix_timestamp(secs)
                    .map_err(|_| bad("ttl", "epoch seconds", item.get("ttl")))?,
            )
        }
    };
    Ok(Order {
        user_id,
        order_id,
        status,
        order_date,
        total,
        product_ids,
        note,
        version,
        expires_at,
    })
}
