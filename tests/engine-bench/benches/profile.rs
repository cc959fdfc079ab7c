//! MemoryStore's put, get and 100-item query for an instruction profiler: the store benchmark's
//! table (one GSI) and order items, each operation run `N` times inside one function that
//! callgrind can isolate (`--toggle-collect`), with the requests built before it and the outputs
//! dropped inside it (freeing what a put replaced is part of the put). Instruction counts are
//! repeatable on a loaded machine, where wall times are not.
//!
//! ```text
//! # from tests/engine-bench
//! cargo bench --bench profile --no-run          # prints the binary's path
//! valgrind --tool=callgrind --toggle-collect='profile::measured*' <binary> put 10000
//! # operations: put (replacing items of the same size), put-new, get, query
//! ```
//!
//! Without valgrind it prints how long the measured part took (a sanity check, not a figure).

use std::hint::black_box;
use std::time::Instant;

use dyno_core::expr::KeyCondition;
use dyno_core::store::{GetRequest, PutRequest, QueryRequest};
use dyno_core::table::{IndexDef, TableDef};
use dyno_core::{Item, MemoryStore, Store};

#[path = "support/orders.rs"]
mod orders;
use orders::{order, put, s};

const TABLE: &str = "profile";
/// Items per key space: puts cycle over them, so after the first round every put replaces.
const KEYS: u32 = 10_000;

/// Runs a MemoryStore future, which completes on its first poll (no runtime in the counts).
fn now<F: std::future::Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    match f
        .as_mut()
        .poll(&mut std::task::Context::from_waker(std::task::Waker::noop()))
    {
        std::task::Poll::Ready(out) => out,
        std::task::Poll::Pending => unreachable!("MemoryStore does not wait"),
    }
}

#[inline(never)]
fn measured_puts(store: &MemoryStore, requests: Vec<PutRequest>) {
    for r in requests {
        black_box(now(store.put_item(r)).expect("put"));
    }
}

#[inline(never)]
fn measured_gets(store: &MemoryStore, keys: &[Item]) {
    for k in keys {
        black_box(now(store.get_item(GetRequest::borrowed(TABLE, k))).expect("get"));
    }
}

#[inline(never)]
fn measured_queries(store: &MemoryStore, requests: Vec<QueryRequest>) {
    for r in requests {
        black_box(now(store.query(r)).expect("query"));
    }
}

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let op = args.next().unwrap_or_else(|| "put".to_owned());
    let n: u32 = args.next().map_or(10_000, |a| a.parse().expect("a count"));
    let store = MemoryStore::new();
    let def = TableDef::new(TABLE, "PK", Some("SK")).global_index(IndexDef::new(
        "GSI1",
        "GSI1PK",
        Some("GSI1SK"),
    ));
    now(store.create_table(&def)).expect("create table");
    // The table as the store benchmark has it: 100 orders of user 1, and a full round of the
    // put keys of user 2 (so measured puts replace).
    for i in 0..100 {
        now(store.put_item(put(TABLE, order(1, i)))).expect("seed");
    }
    if op != "put-new" {
        for i in 0..KEYS {
            now(store.put_item(put(TABLE, order(2, i)))).expect("seed");
        }
    }
    let started = Instant::now();
    match op.as_str() {
        "put" | "put-new" => {
            let requests: Vec<PutRequest> =
                (0..n).map(|i| put(TABLE, order(2, i % KEYS))).collect();
            measured_puts(&store, requests);
        }
        "get" => {
            let keys: Vec<Item> = (0..n)
                .map(|i| {
                    let mut k = order(1, i % 100);
                    k.retain(|name, _| name == "PK" || name == "SK");
                    k
                })
                .collect();
            measured_gets(&store, &keys);
        }
        "query" => {
            let requests: Vec<QueryRequest> = (0..n)
                .map(|_| QueryRequest::new(TABLE, None, KeyCondition::partition("PK", s("USER#1"))))
                .collect();
            measured_queries(&store, requests);
        }
        other => panic!("unknown operation {other}: put, put-new, get or query"),
    }
    eprintln!("{n} {op}: {:?} in all", started.elapsed());
}
