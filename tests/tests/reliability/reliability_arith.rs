//! Typed arithmetic stays inside the field's type: `add_<field>` and
//! `subtract_<field>` on every integer type carry a condition that keeps the result in range, in
//! plain updates, upserts and transactions, on every backend. Before, the write committed and
//! the item could no longer be decoded. The model shares a partition, a key shape and GSI1
//! between three entities.

use std::sync::Arc;

use dyno_core::ops::Transaction;
use dyno_core::prelude::*;
use dyno_core::{AttributeValue, Entity, Error, Store, Table};
use dyno_tests::backend::{
    atomic_conditional_writes, backends, fresh_table, raw_put, supports_transactions, Backend,
};

#[derive(Debug, Table)]
#[dyno(name = "Arith", pk = "PK", sk = "SK")]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
struct Arith;

/// A stock line with a counter of every integer type.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Arith, pk = "WH#{warehouse}", sk = "ITEM#{sku}")]
#[dyno(index(GSI1, pk = "SKU#{sku}", sk = "WH#{warehouse}"))]
struct Stock {
    warehouse: String,
    sku: String,
    c_u8: u8,
    c_u16: u16,
    c_u32: u32,
    c_u64: u64,
    c_u128: u128,
    c_usize: usize,
    c_i8: i8,
    c_i16: i16,
    c_i32: i32,
    c_i64: i64,
    c_i128: i128,
    c_isize: isize,
    reserved: Option<u32>,
    weight: f64,
    #[dyno(version)]
    version: u64,
}

/// Another entity with the same key shape (and a `c_u32` of its own).
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Arith, pk = "WH#{warehouse}", sk = "ITEM#{sku}")]
struct Pallet {
    warehouse: String,
    sku: String,
    c_u32: u32,
}

/// A bin in the warehouse's partition, in GSI1 by SKU like stock lines.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Arith, pk = "WH#{warehouse}", sk = "BIN#{bin}")]
#[dyno(index(GSI1, pk = "SKU#{sku}", sk = "BIN#{bin}"))]
struct Bin {
    warehouse: String,
    bin: String,
    sku: String,
    count: u8,
}

fn line(sku: &str) -> Stock {
    Stock {
        warehouse: "north".to_owned(),
        sku: sku.to_owned(),
        c_u8: 0,
        c_u16: 0,
        c_u32: 0,
        c_u64: 0,
        c_u128: 0,
        c_usize: 0,
        c_i8: 0,
        c_i16: 0,
        c_i32: 0,
        c_i64: 0,
        c_i128: 0,
        c_isize: 0,
        reserved: None,
        weight: 0.0,
        version: 0,
    }
}

fn key(sku: &str) -> Key<Stock> {
    Stock::key("north", sku)
}

async fn fresh(backend: &Backend, prefix: &str) -> Arc<dyn Store> {
    fresh_table(backend, Arith::definition(), prefix).await
}

async fn read(store: &dyn Store, sku: &str) -> Stock {
    Stock::get(key(sku)).send(store).await.unwrap().unwrap()
}

/// `err` is OutOfRange for `Stock.<field>`, and its message has each of `parts`.
fn assert_out_of_range(who: &str, err: &Error, field: &str, parts: &[&str]) {
    let Error::OutOfRange {
        entity,
        field: f,
        message,
    } = err
    else {
        panic!("{who}: {field}: expected OutOfRange, got {err:?}")
    };
    assert_eq!(
        (*entity, f.as_str()),
        (Some("Stock"), field),
        "{who}: {err}"
    );
    for part in parts {
        assert!(message.contains(part), "{who}: {field}: {err} lacks {part}");
    }
    assert!(
        err.to_string().contains("nothing was written"),
        "{who}: {err}"
    );
}

/// For each integer field: the stored value near a bound, a delta that stays in range, one that
/// leaves it, both for add and for subtract. The 128-bit ones keep to 38 digits (DynamoDB's).
macro_rules! edges {
    ($store:expr, $who:expr, $($field:ident $add:ident $sub:ident: $t:ty, $high:expr, $add_ok:expr, $add_bad:expr, $low:expr, $sub_ok:expr, $sub_bad:expr;)*) => {$(
        edge!($store, $who, $field, $add, $sub, $t, $high, $add_ok, $add_bad, $low, $sub_ok, $sub_bad);
    )*};
}

macro_rules! edge {
    ($store:expr, $who:expr, $field:ident, $add:ident, $sub:ident, $t:ty, $high:expr, $add_ok:expr, $add_bad:expr, $low:expr, $sub_ok:expr, $sub_bad:expr) => {{
        let (store, who): (&dyn Store, &str) = ($store, $who);
        let field = stringify!($field);
        let sku = format!("sku-{field}");
        let mut s = line(&sku);
        s.$field = $high;
        s.put()
            .send(store)
            .await
            .unwrap_or_else(|e| panic!("{who}: {field}: {e}"));
        let before = read(store, &sku).await;
        let update = |f: fn(StockUpdate) -> StockUpdate| f(Stock::update(key(&sku)));
        // Over the top: refused, nothing written, the item still decodes.
        let err = update(|u| u.$add($add_bad)).send(store).await.unwrap_err();
        let high: $t = $high;
        let bad: $t = $add_bad;
        assert_out_of_range(
            who,
            &err,
            field,
            &[&high.to_string(), &format!("+ {bad}"), stringify!($t)],
        );
        assert_eq!(read(store, &sku).await, before, "{who}: {field}: written");
        let after = update(|u| u.$add($add_ok))
            .send(store)
            .await
            .unwrap_or_else(|e| panic!("{who}: {field}: in range: {e}"));
        assert_eq!(after.$field, $high + $add_ok, "{who}: {field}");
        // Under the bottom.
        let mut s = read(store, &sku).await;
        s.$field = $low;
        s.put().send(store).await.unwrap();
        let before = read(store, &sku).await;
        let err = update(|u| u.$sub($sub_bad)).send(store).await.unwrap_err();
        let low: $t = $low;
        let bad: $t = $sub_bad;
        assert_out_of_range(who, &err, field, &[&low.to_string(), &format!("- {bad}")]);
        assert_eq!(read(store, &sku).await, before, "{who}: {field}: written");
        let after = update(|u| u.$sub($sub_ok))
            .send(store)
            .await
            .unwrap_or_else(|e| panic!("{who}: {field}: in range: {e}"));
        assert_eq!(after.$field, $low - $sub_ok, "{who}: {field}");
    }};
}

/// Regression: `add_c_u32(5)` at `u32::MAX - 1` used to commit 4294967299,
/// after which the item could not be read. Every integer type, both directions, every backend.
#[tokio::test]
async fn typed_add_and_subtract_stay_inside_every_integer_type() {
    for backend in backends().await {
        let store = fresh(&backend, "arith-edges").await;
        let store: &dyn Store = &*store;
        let who = backend.name;
        edges!(store, who,
            c_u8 add_c_u8 subtract_c_u8: u8, u8::MAX - 1, 1, 5, 1, 1, 2;
            c_u16 add_c_u16 subtract_c_u16: u16, u16::MAX - 1, 1, 5, 1, 1, 2;
            c_u32 add_c_u32 subtract_c_u32: u32, u32::MAX - 1, 1, 5, 1, 1, 2;
            c_u64 add_c_u64 subtract_c_u64: u64, u64::MAX - 1, 1, 5, 1, 1, 2;
            c_usize add_c_usize subtract_c_usize: usize, usize::MAX - 1, 1, 5, 1, 1, 2;
            c_i8 add_c_i8 subtract_c_i8: i8, i8::MAX - 1, 1, 5, i8::MIN + 1, 1, 2;
            c_i16 add_c_i16 subtract_c_i16: i16, i16::MAX - 1, 1, 5, i16::MIN + 1, 1, 2;
            c_i32 add_c_i32 subtract_c_i32: i32, i32::MAX - 1, 1, 5, i32::MIN + 1, 1, 2;
            c_i64 add_c_i64 subtract_c_i64: i64, i64::MAX - 1, 1, 5, i64::MIN + 1, 1, 2;
            c_isize add_c_isize subtract_c_isize: isize, isize::MAX - 1, 1, 5, isize::MIN + 1, 1, 2;
            c_u128 add_c_u128 subtract_c_u128: u128, 340_282_366_920_938_463_463_374_607_431_768_210_000, 1_000, 10_000, 1_000, 1_000, 1_001;
            c_i128 add_c_i128 subtract_c_i128: i128, 170_141_183_460_469_231_731_687_303_715_884_100_000, 5_000, 10_000,
                -170_141_183_460_469_231_731_687_303_715_884_100_000, 5_000, 10_000;
        );
        // A negative delta on a signed field is bounded the other way.
        let err = Stock::update(key("sku-c_i8"))
            .add_c_i8(i8::MIN)
            .send(store)
            .await
            .unwrap_err();
        assert!(err.is_out_of_range(), "{who}: {err:?}");
        // 0 - (-128) = 128 is no i8 (the line of `c_u8` has `c_i8` = 0).
        let err = Stock::update(key("sku-c_u8"))
            .subtract_c_i8(-1)
            .subtract_c_i8(i8::MIN) // the last action on a field wins, and its bound with it
            .send(store)
            .await
            .unwrap_err();
        assert!(err.is_out_of_range(), "{who}: {err:?}");
        // Floats have no type bound: their results only need to be DynamoDB numbers.
        let s = Stock::update(key("sku-c_u8"))
            .add_weight(1.5)
            .send(store)
            .await
            .unwrap();
        assert_eq!(s.weight, 1.5, "{who}");
    }
}

/// An absent attribute counts as 0: subtracting from it on an unsigned field leaves the type
/// (in an upsert that creates the item too), adding to it does not.
#[tokio::test]
async fn subtract_from_an_absent_unsigned_field_is_out_of_range_and_an_upsert_creates_nothing() {
    for backend in backends().await {
        let store = fresh(&backend, "arith-absent").await;
        let store: &dyn Store = &*store;
        let who = backend.name;
        line("a").put().send(store).await.unwrap();
        let err = Stock::update(key("a"))
            .subtract_reserved(1u32)
            .send(store)
            .await
            .unwrap_err();
        assert_out_of_range(
            who,
            &err,
            "reserved",
            &["absent (counts as 0) - 1 = -1", "u32"],
        );
        assert_eq!(read(store, "a").await.reserved, None, "{who}");
        let s = Stock::update(key("a"))
            .add_reserved(3u32)
            .send(store)
            .await
            .unwrap();
        assert_eq!(s.reserved, Some(3), "{who}");

        // An upsert of a missing item (with every field a created item needs, else it is
        // refused before sending): nothing created.
        let err = Stock::upsert(
            key("new"),
            0u8,
            0u16,
            0u32,
            0u64,
            0u128,
            0usize,
            0i8,
            0i16,
            0i32,
            0i64,
            0i128,
            0isize,
            1.0,
        )
        .subtract_c_u16(7)
        .send(store)
        .await
        .unwrap_err();
        assert_out_of_range(who, &err, "c_u16", &["absent (counts as 0) - 7 = -7"]);
        assert!(
            Stock::get(key("new")).send(store).await.unwrap().is_none(),
            "{who}: the upsert created an item"
        );
    }
}

/// The caller's own condition failing stays `ConditionFailed`; a missing item stays `NotFound`;
/// another entity's item at the key stays `WrongEntity`, even when its attribute of the same
/// name would be out of range.
#[tokio::test]
async fn other_failures_keep_their_own_errors() {
    for backend in backends().await {
        let store = fresh(&backend, "arith-other").await;
        let store: &dyn Store = &*store;
        let who = backend.name;
        let mut s = line("a");
        s.c_u32 = 10;
        s.put().send(store).await.unwrap();
        let err = Stock::update(key("a"))
            .add_c_u32(1)
            .condition(Stock::C_U32.gt(100u32))
            .send(store)
            .await
            .unwrap_err();
        assert!(
            matches!(err, Error::ConditionFailed { .. }),
            "{who}: {err:?}"
        );
        // The caller's guard and the range both false: the caller's guard is the answer.
        let err = Stock::update(key("a"))
            .subtract_c_u32(11)
            .condition(Stock::C_U32.ge(11u32))
            .send(store)
            .await
            .unwrap_err();
        assert!(
            matches!(err, Error::ConditionFailed { .. }),
            "{who}: {err:?}"
        );
        // The caller's guard true, the range false: out of range.
        let err = Stock::update(key("a"))
            .subtract_c_u32(11)
            .condition(Stock::C_U32.ge(1u32))
            .send(store)
            .await
            .unwrap_err();
        assert!(err.is_out_of_range(), "{who}: {err:?}");
        let err = Stock::update(key("missing"))
            .add_c_u32(1)
            .send(store)
            .await
            .unwrap_err();
        assert!(err.is_not_found(), "{who}: {err:?}");

        Pallet {
            warehouse: "north".to_owned(),
            sku: "p".to_owned(),
            c_u32: u32::MAX,
        }
        .put()
        .send(store)
        .await
        .unwrap();
        let err = Stock::update(key("p"))
            .add_c_u32(1)
            .send(store)
            .await
            .unwrap_err();
        assert!(matches!(err, Error::WrongEntity { .. }), "{who}: {err:?}");
        // Bins in the same partition and index are untouched by all of it.
        let bin = Bin {
            warehouse: "north".to_owned(),
            bin: "b1".to_owned(),
            sku: "a".to_owned(),
            count: u8::MAX,
        };
        bin.put().send(store).await.unwrap();
        let err = Bin::update(Bin::key("north", "b1"))
            .add_count(1)
            .send(store)
            .await
            .unwrap_err();
        assert!(err.is_out_of_range(), "{who}: {err:?}");
        let bins = Bin::query("north").all(store).await.unwrap();
        assert_eq!(bins, vec![bin.clone()], "{who}");
        let by_sku = Bin::gsi1("a").all(store).await.unwrap();
        assert_eq!(by_sku, vec![bin], "{who}");
        let lines = Stock::gsi1("a").all(store).await.unwrap();
        assert_eq!(lines.len(), 1, "{who}");
        assert_eq!(lines[0].c_u32, 10, "{who}");
    }
}

/// The version increment every update makes is bounded too: a stored version at `u64::MAX`
/// (written by another client) makes an update `OutOfRange` naming `version`.
#[tokio::test]
async fn an_update_of_a_version_at_u64_max_is_out_of_range() {
    for backend in backends().await {
        let store = fresh(&backend, "arith-version").await;
        let store: &dyn Store = &*store;
        let who = backend.name;
        let mut item = line("v").to_item().unwrap();
        item.insert(
            "version".to_owned(),
            AttributeValue::N(u64::MAX.to_string()),
        );
        raw_put(store, "Arith", item).await;
        let err = Stock::update(key("v"))
            .add_c_u8(1)
            .send(store)
            .await
            .unwrap_err();
        assert_out_of_range(who, &err, "version", &["18446744073709551615 + 1"]);
        assert_eq!(read(store, "v").await.c_u8, 0, "{who}");
    }
}

/// In a transaction, the bound cancels the whole transaction and the error names the field.
#[tokio::test]
async fn a_transaction_update_out_of_range_is_out_of_range_and_writes_nothing() {
    for backend in backends().await {
        if !supports_transactions(backend.kind) {
            continue;
        }
        let store = fresh(&backend, "arith-tx").await;
        let store: &dyn Store = &*store;
        let who = backend.name;
        let mut s = line("a");
        s.c_u8 = 250;
        s.put().send(store).await.unwrap();
        line("b").put().send(store).await.unwrap();
        let err = Transaction::new()
            .update(Stock::update(key("b")).add_c_u16(1))
            .update(Stock::update(key("a")).add_c_u8(6))
            .send(store)
            .await
            .unwrap_err();
        assert_out_of_range(who, &err, "c_u8", &["250 + 6 = 256", "u8"]);
        assert_eq!(
            read(store, "b").await.c_u16,
            0,
            "{who}: the transaction wrote"
        );
        assert_eq!(read(store, "a").await.c_u8, 250, "{who}");
        Transaction::new()
            .update(Stock::update(key("a")).add_c_u8(5))
            .send(store)
            .await
            .unwrap();
        assert_eq!(read(store, "a").await.c_u8, 255, "{who}");
        // Another entity's item at the key (a Pallet at u32::MAX): its ownership condition
        // cancelled the transaction, not the range of a field it happens to share.
        Pallet {
            warehouse: "north".to_owned(),
            sku: "p".to_owned(),
            c_u32: u32::MAX,
        }
        .put()
        .send(store)
        .await
        .unwrap();
        let err = Transaction::new()
            .update(Stock::update(key("p")).add_c_u32(1))
            .send(store)
            .await
            .unwrap_err();
        assert!(
            matches!(err, Error::TransactionCanceled { .. }),
            "{who}: {err:?}"
        );
    }
}

/// 16 tasks x 20 increments of a `u8` from 0 on two hot keys: exactly 255 apply on each, every
/// other one is `OutOfRange`, and the items still decode (atomic backends).
#[tokio::test]
async fn concurrent_increments_stop_exactly_at_the_types_maximum() {
    for backend in backends().await {
        if !atomic_conditional_writes(backend.kind) {
            continue;
        }
        let store = fresh(&backend, "arith-race").await;
        let who = backend.name;
        for sku in ["h1", "h2"] {
            line(sku).put().send(&*store).await.unwrap();
        }
        let mut tasks = Vec::new();
        for t in 0..16 {
            let store = store.clone();
            tasks.push(tokio::spawn(async move {
                let sku = if t % 2 == 0 { "h1" } else { "h2" };
                let (mut applied, mut refused) = (0u32, 0u32);
                for _ in 0..40 {
                    match Stock::update(key(sku)).add_c_u8(1).send(&*store).await {
                        Ok(_) => applied += 1,
                        Err(Error::OutOfRange { .. }) => refused += 1,
                        Err(e) => panic!("{e:?}"),
                    }
                }
                (sku, applied, refused)
            }));
        }
        let mut applied = std::collections::HashMap::new();
        for task in tasks {
            let (sku, a, r) = tokio::time::timeout(std::time::Duration::from_secs(120), task)
                .await
                .expect("bounded")
                .unwrap();
            assert_eq!(a + r, 40, "{who}");
            *applied.entry(sku).or_insert(0) += a;
        }
        for sku in ["h1", "h2"] {
            assert_eq!(applied[sku], 255, "{who}: {sku}");
            let s = read(&*store, sku).await;
            assert_eq!((s.c_u8, s.version), (255, 256), "{who}: {sku}");
        }
    }
}

/// A 128-bit delta of 39 significant digits (beyond DynamoDB's 38) is refused before anything is
/// sent, naming the field, in plain updates, upserts and transactions, on every backend; 39
/// digits with one significant digit (10^38) are a number DynamoDB keeps, and are sent.
#[tokio::test]
async fn a_39_digit_128_bit_delta_is_refused_before_sending() {
    use dyno_tests::fault::FaultStore;
    for backend in backends().await {
        let who = backend.name;
        let store = FaultStore::new(fresh(&backend, "arith-39").await);
        line("a").create().send(&store).await.unwrap();
        let before = store.counts();
        let refusals = [
            Stock::update(key("a"))
                .add_c_u128(u128::MAX)
                .send(&store)
                .await
                .unwrap_err(),
            Stock::update(key("a"))
                .subtract_c_u128(u128::MAX - 7)
                .send(&store)
                .await
                .unwrap_err(),
            Stock::update(key("a"))
                .add_c_i128(i128::MIN)
                .upsert()
                .send(&store)
                .await
                .unwrap_err(),
            Stock::update(key("a"))
                .subtract_c_i128(i128::MAX)
                .send(&store)
                .await
                .unwrap_err(),
        ];
        for err in &refusals {
            let text = err.to_string();
            assert!(
                matches!(err, Error::Encode { .. }) && text.contains("Stock.c_"),
                "{who}: {err:?}"
            );
            assert!(text.contains("38"), "{who}: {text} says the limit");
        }
        if supports_transactions(backend.kind) {
            let err = Transaction::new()
                .update(Stock::update(key("a")).add_c_u128(u128::MAX))
                .send(&store)
                .await
                .unwrap_err();
            assert!(matches!(err, Error::Encode { .. }), "{who}: {err:?}");
        }
        assert_eq!(
            store.counts().since(&before).total(),
            0,
            "{who}: nothing was sent"
        );
        let ten_to_38 = 10u128.pow(38);
        Stock::update(key("a"))
            .add_c_u128(ten_to_38)
            .send(&store)
            .await
            .unwrap_or_else(|e| panic!("{who}: 10^38 is 1 significant digit: {e}"));
        assert_eq!(read(&store, "a").await.c_u128, ten_to_38, "{who}");
    }
}
