//! The derived codec of the e-commerce `Order` against serde_dynamo and hand-written
//! `AttributeValue` code, side by side in one run: encode (`to_item`) and decode (`from_item`).
//!
//! - `derived`: `#[derive(Entity)]`'s `to_item`/`from_item` (key attributes encoded from the fields
//!   on every call).
//! - `serde_dynamo`: `serde_dynamo::to_item`/`from_item` on a serde mirror of `Order` with the same
//!   fields and attribute names; its PK/SK/GSI1PK/GSI1SK/_type strings are precomputed fields (so
//!   serde_dynamo does no key formatting), `total` is stored as a string (serde_dynamo has no
//!   exact-decimal number form), the date as `YYYY-MM-DD`, the TTL as epoch seconds.
//!   serde_dynamo's `from_item` consumes the item; the clone that a reader holding `&Item` needs
//!   is made outside the timing (`decode/serde_dynamo`) and inside it (`decode/serde_dynamo+clone`).
//! - `hand`: hand-written code producing the same item as `derived` (same escaping, same forms).
//!
//! Inputs are made and outputs dropped outside the timing in every case (`iter_batched` in
//! batches of 64, small enough that the batch's outputs stay in warm memory: with criterion's
//! `SmallInput` batches the outputs pile up into megabytes and page faults dominate the timing).
//!
//! `cargo bench -p dyno-tests --bench codec` (or `scripts/bench codec`)

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use dyno_core::{AttributeValue, Entity, Item};
use dyno_tests::ecommerce::{self, Order, OrderStatus};
use dyno_tests::hand::{hand_from_item, hand_to_item};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use time::{Date, OffsetDateTime};

/// Iterations per `iter_batched` batch.
const BATCH: BatchSize = BatchSize::NumIterations(64);

/// The order every case encodes and decodes: all fields set, two products.
pub fn sample() -> Order {
    ecommerce::full_order()
}

// ---------------------------------------------------------------------------------------------
// serde_dynamo: a serde mirror of `Order`.

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
enum SerdeStatus {
    Pending,
    Shipped,
    Delivered,
    Cancelled,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SerdeOrder {
    #[serde(rename = "PK")]
    pk: String,
    #[serde(rename = "SK")]
    sk: String,
    #[serde(rename = "GSI1PK")]
    gsi1pk: String,
    #[serde(rename = "GSI1SK")]
    gsi1sk: String,
    #[serde(rename = "_type")]
    entity_type: String,
    user_id: String,
    order_id: String,
    status: SerdeStatus,
    #[serde(with = "ymd")]
    order_date: Date,
    #[serde(with = "decimal_text")]
    total: Decimal,
    product_ids: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    note: Option<String>,
    version: u64,
    #[serde(
        rename = "ttl",
        default,
        skip_serializing_if = "Option::is_none",
        with = "epoch"
    )]
    expires_at: Option<OffsetDateTime>,
}

mod ymd {
    use serde::{de::Error as _, Deserialize, Deserializer, Serializer};
    use time::Date;

    pub fn serialize<S: Serializer>(d: &Date, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!(
            "{:04}-{:02}-{:02}",
            d.year(),
            u8::from(d.month()),
            d.day()
        ))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Date, D::Error> {
        let s = String::deserialize(d)?;
        dyno_tests::hand::parse_ymd(&s)
            .ok_or_else(|| D::Error::custom(format!("not YYYY-MM-DD: {s:?}")))
    }
}

mod decimal_text {
    use rust_decimal::Decimal;
    use serde::{de::Error as _, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &Decimal, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&d.normalize())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
        let s = String::deserialize(d)?;
        Decimal::from_str_exact(&s).map_err(D::Error::custom)
    }
}

mod epoch {
    use serde::{de::Error as _, Deserialize, Deserializer, Serializer};
    use time::OffsetDateTime;

    pub fn serialize<S: Serializer>(t: &Option<OffsetDateTime>, s: S) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => s.serialize_some(&t.unix_timestamp()),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<OffsetDateTime>, D::Error> {
        Option::<i64>::deserialize(d)?
            .map(|s| OffsetDateTime::from_unix_timestamp(s).map_err(D::Error::custom))
            .transpose()
    }
}

/// The mirror of `o`, its key strings taken from the derived item (so they are identical).
pub fn mirror(o: &Order) -> SerdeOrder {
    let item = o.to_item().unwrap();
    let key = |name: &str| match item.get(name) {
        Some(AttributeValue::S(s)) => s.clone(),
        other => panic!("{name}: {other:?}"),
    };
    SerdeOrder {
        pk: key("PK"),
        sk: key("SK"),
        gsi1pk: key("GSI1PK"),
        gsi1sk: key("GSI1SK"),
        entity_type: key("_type"),
        user_id: o.user_id.clone(),
        order_id: o.order_id.clone(),
        status: match o.status {
            OrderStatus::Pending => SerdeStatus::Pending,
            OrderStatus::Shipped => SerdeStatus::Shipped,
            OrderStatus::Delivered => SerdeStatus::Delivered,
            OrderStatus::Cancelled => SerdeStatus::Cancelled,
        },
        order_date: o.order_date,
        total: o.total,
        product_ids: o.product_ids.clone(),
        note: o.note.clone(),
        version: o.version,
        expires_at: o.expires_at,
    }
}

// ---------------------------------------------------------------------------------------------

/// Every case must produce and read the same data before it is timed.
fn check(order: &Order, serde_order: &SerdeOrder) {
    let derived = order.to_item().unwrap();
    assert_eq!(
        hand_to_item(order),
        derived,
        "hand-written item differs from the derived one"
    );
    assert_eq!(&Order::from_item(&derived).unwrap(), order);
    assert_eq!(&hand_from_item(&derived).unwrap(), order);
    let serde_item: Item = serde_dynamo::to_item(serde_order).unwrap();
    let mut names: Vec<_> = serde_item.keys().collect();
    let mut derived_names: Vec<_> = derived.keys().collect();
    names.sort();
    derived_names.sort();
    assert_eq!(names, derived_names, "serde mirror writes other attributes");
    for (name, value) in &serde_item {
        if name != "total" {
            assert_eq!(
                Some(value),
                derived.get(name),
                "serde mirror differs on {name}"
            );
        }
    }
    let back: SerdeOrder = serde_dynamo::from_item(serde_item).unwrap();
    assert_eq!(&back, serde_order);
}

fn benches(c: &mut Criterion) {
    let order = sample();
    let serde_order = mirror(&order);
    check(&order, &serde_order);
    let item = order.to_item().unwrap();
    let serde_item: Item = serde_dynamo::to_item(&serde_order).unwrap();

    let mut g = c.benchmark_group("codec/encode");
    g.bench_function("derived", |b| {
        b.iter_batched(|| (), |()| black_box(&order).to_item().unwrap(), BATCH)
    });
    g.bench_function("serde_dynamo", |b| {
        b.iter_batched(
            || (),
            |()| -> Item { serde_dynamo::to_item(black_box(&serde_order)).unwrap() },
            BATCH,
        )
    });
    g.bench_function("hand", |b| {
        b.iter_batched(|| (), |()| hand_to_item(black_box(&order)), BATCH)
    });
    g.finish();

    let mut g = c.benchmark_group("codec/decode");
    g.bench_function("derived", |b| {
        b.iter_batched(
            || (),
            |()| Order::from_item(black_box(&item)).unwrap(),
            BATCH,
        )
    });
    g.bench_function("serde_dynamo", |b| {
        b.iter_batched(
            || serde_item.clone(),
            |owned| -> SerdeOrder { serde_dynamo::from_item(black_box(owned)).unwrap() },
            BATCH,
        )
    });
    g.bench_function("serde_dynamo+clone", |b| {
        b.iter_batched(
            || (),
            |()| -> SerdeOrder { serde_dynamo::from_item(black_box(&serde_item).clone()).unwrap() },
            BATCH,
        )
    });
    g.bench_function("hand", |b| {
        b.iter_batched(|| (), |()| hand_from_item(black_box(&item)).unwrap(), BATCH)
    });
    g.finish();
}

criterion_group!(codec, benches);
criterion_main!(codec);
