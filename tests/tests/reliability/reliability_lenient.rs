//! Lenient queries and scans: one item that does not decode (a lowercase
//! `STATUS#shipped` written by another client, a number stored as a string) fails a strict
//! read; `.lenient()` returns the items that decode and reports each one that does not, with its
//! key and the error, through `all`, pages with cursors and `stream`, on every backend. The
//! model shares a partition and GSI1 between two entities.

use std::sync::Arc;

use dyno_core::ops::{Cursor, Decoded, Undecodable};
use dyno_core::prelude::*;
use dyno_core::{AttributeValue, Entity, KeyPart, Store, Table};
use dyno_tests::backend::{backends, fresh_table, raw_put, Backend};
use futures::StreamExt;

#[derive(Debug, Table)]
#[dyno(name = "Lenient", pk = "PK", sk = "SK")]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
struct LenientTable;

#[derive(Debug, Clone, Copy, PartialEq, Eq, KeyPart)]
enum Status {
    Pending,
    Shipped,
}

/// A customer's order, in the customer's partition, in GSI1 by status.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = LenientTable, pk = "CUST#{customer}", sk = "ORDER#{order_id}")]
#[dyno(index(GSI1, pk = "STATUS#{status}", sk = "{customer}#{order_id}"))]
struct Order {
    customer: String,
    order_id: String,
    status: Status,
    total: u32,
}

/// The customer's profile, in the same partition; in GSI1 by tier.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = LenientTable, pk = "CUST#{customer}", sk = "PROFILE")]
#[dyno(index(GSI1, pk = "TIER#{tier}", sk = "{customer}"))]
struct Customer {
    customer: String,
    tier: String,
}

async fn fresh(backend: &Backend, prefix: &str) -> Arc<dyn Store> {
    fresh_table(backend, LenientTable::definition(), prefix).await
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

/// Ten good orders of `c1`, its profile, and two bad orders written by another client: a
/// lowercase status (`ORDER#03`) and a total stored as a string (`ORDER#07`).
async fn seed(store: &dyn Store) {
    for i in 0..10 {
        Order {
            customer: "c1".into(),
            order_id: format!("{i:02}"),
            status: Status::Shipped,
            total: i,
        }
        .put()
        .send(store)
        .await
        .unwrap();
    }
    Customer {
        customer: "c1".into(),
        tier: "gold".into(),
    }
    .put()
    .send(store)
    .await
    .unwrap();
    let mut lowercase = Order {
        customer: "c1".into(),
        order_id: "03".into(),
        status: Status::Shipped,
        total: 3,
    }
    .to_item()
    .unwrap();
    lowercase.insert("status".into(), s("shipped"));
    lowercase.insert("GSI1PK".into(), s("STATUS#shipped"));
    let mut wrong_type = Order {
        customer: "c1".into(),
        order_id: "07".into(),
        status: Status::Shipped,
        total: 7,
    }
    .to_item()
    .unwrap();
    wrong_type.insert("total".into(), s("seven"));
    for item in [lowercase, wrong_type] {
        raw_put(store, "Lenient", item).await;
    }
}

/// The order ids decoded, and the sort keys of the items reported.
fn split(who: &str, results: Vec<Decoded<Order>>) -> (Vec<String>, Vec<String>) {
    let mut good = Vec::new();
    let mut bad = Vec::new();
    for r in results {
        match r {
            Ok(o) => good.push(o.order_id),
            Err(undecodable) => {
                let Undecodable { key, error, item } = *undecodable;
                assert!(
                    matches!(error, dyno_core::Error::Decode { .. }),
                    "{who}: {error:?}"
                );
                assert!(error.to_string().contains("Order."), "{who}: {error}");
                assert_eq!(key.get("PK"), Some(&s("CUST#c1")), "{who}");
                assert_eq!(key.len(), 2, "{who}: key {key:?}");
                assert!(item.len() > 2, "{who}: the whole item");
                match key.get("SK") {
                    Some(AttributeValue::S(sk)) => bad.push(sk.clone()),
                    other => panic!("{who}: {other:?}"),
                }
            }
        }
    }
    (good, bad)
}

fn good_ids() -> Vec<String> {
    (0..10)
        .filter(|i| *i != 3 && *i != 7)
        .map(|i| format!("{i:02}"))
        .collect()
}

#[tokio::test]
async fn a_lenient_query_returns_what_decodes_and_reports_the_rest_with_their_keys() {
    for backend in backends().await {
        let who = backend.name;
        let store = fresh(&backend, "lenient-query").await;
        let store = &*store;
        seed(store).await;
        // Strict: one bad item fails the read.
        let err = Order::query("c1").all(store).await.unwrap_err();
        assert!(
            matches!(err, dyno_core::Error::Decode { .. }),
            "{who}: {err:?}"
        );

        let all = Order::query("c1").lenient().all(store).await.unwrap();
        let (good, bad) = split(who, all);
        assert_eq!(good, good_ids(), "{who}");
        assert_eq!(bad, vec!["ORDER#03", "ORDER#07"], "{who}");

        // Page by page with cursors (2 items a page), and as a stream: the same results.
        let query = Order::query("c1").page_size(2).lenient();
        let mut paged = Vec::new();
        let mut cursor: Option<Cursor> = None;
        for _ in 0..20 {
            let page = query.page(store, cursor.as_ref()).await.unwrap();
            paged.extend(page.items);
            cursor = page.cursor;
            if cursor.is_none() {
                break;
            }
        }
        assert!(cursor.is_none(), "{who}: paging did not end");
        let (pg, pb) = split(who, paged);
        assert_eq!(
            (pg, pb),
            (good_ids(), vec!["ORDER#03".into(), "ORDER#07".into()]),
            "{who}"
        );
        let streamed: Vec<Decoded<Order>> = Order::query("c1")
            .page_size(3)
            .lenient()
            .stream(store)
            .map(|r| r.unwrap())
            .collect()
            .await;
        let (sg, sb) = split(who, streamed);
        assert_eq!((sg, sb.len()), (good_ids(), 2), "{who}");

        // A limit counts both kinds; a sort-key range reports only what it reads.
        let first = Order::query("c1")
            .limit(4)
            .lenient()
            .all(store)
            .await
            .unwrap();
        let (fg, fb) = split(who, first);
        assert_eq!(
            (fg, fb),
            (
                vec!["00".into(), "01".into(), "02".into()],
                vec!["ORDER#03".into()]
            ),
            "{who}"
        );
        let tail = Order::query("c1")
            .order_id()
            .ge("08")
            .lenient()
            .all(store)
            .await
            .unwrap();
        let (tg, tb) = split(who, tail);
        assert_eq!((tg.len(), tb.len()), (2, 0), "{who}");

        // On the index: the lowercase item is under STATUS#shipped, which no typed status
        // encodes; the wrong-typed one is reported among the shipped orders.
        let shipped = Order::gsi1(Status::Shipped)
            .lenient()
            .all(store)
            .await
            .unwrap();
        let (ig, ib) = split(who, shipped);
        assert_eq!((ig, ib), (good_ids(), vec!["ORDER#07".into()]), "{who}");
    }
}

#[tokio::test]
async fn a_lenient_scan_reports_undecodable_items_and_skips_other_entities() {
    for backend in backends().await {
        let who = backend.name;
        let store = fresh(&backend, "lenient-scan").await;
        let store = &*store;
        seed(store).await;
        assert!(Order::scan().all(store).await.is_err(), "{who}");
        let all = Order::scan().lenient().all(store).await.unwrap();
        let (mut good, mut bad) = split(who, all);
        good.sort();
        bad.sort();
        assert_eq!(
            (good, bad),
            (good_ids(), vec!["ORDER#03".into(), "ORDER#07".into()]),
            "{who}: the profile is skipped, not reported"
        );
        let streamed: Vec<Decoded<Order>> = Order::scan()
            .page_size(4)
            .lenient()
            .stream(store)
            .map(|r| r.unwrap())
            .collect()
            .await;
        assert_eq!(streamed.len(), 10, "{who}");
        // The profile reads strictly as before.
        let customers = Customer::scan().all(store).await.unwrap();
        assert_eq!(customers.len(), 1, "{who}");
        let gold = Customer::gsi1("gold").lenient().all(store).await.unwrap();
        assert!(
            matches!(gold.as_slice(), [Ok(c)] if c.customer == "c1"),
            "{who}: {gold:?}"
        );
        let errors: Vec<String> = Order::scan()
            .lenient()
            .all(store)
            .await
            .unwrap()
            .into_iter()
            .filter_map(Result::err)
            .map(|u| u.to_string())
            .collect();
        assert!(
            errors
                .iter()
                .any(|e| e.contains("ORDER#03") && e.contains("status")),
            "{who}: {errors:?}"
        );
        assert!(
            errors
                .iter()
                .any(|e| e.contains("ORDER#07") && e.contains("total")),
            "{who}: {errors:?}"
        );
    }
}
