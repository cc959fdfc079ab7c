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
//! # operations: put (replacing items of the same size), put-new, get, query, and scan (a whole
//! # table of 1,000 one-item partitions per call)
//! ```
//!
//! A third argument makes get and query read a large table, as the scale run fills it: that many
//! orders, ten per user, one GSI; the reads go to random keys (or partitions) of it, after as many
//! unmeasured reads to warm the caches. The load is not worth simulating: run with
//! `--instr-atstart=no`, and the program switches callgrind's instrumentation on once the table is
//! loaded (a client request, a no-op outside valgrind). Cache misses per call come from
//! callgrind's cache simulation (the counts are of touched cache lines that missed, not time):
//!
//! ```text
//! valgrind --tool=callgrind --instr-atstart=no --cache-sim=yes --D1=49152,12,64 \
//!     --LL=2097152,16,64 --toggle-collect='profile::measured*' <binary> get 10000 1000000
//! # Collected / count per event: Ir (instructions), D1mr + D1mw, DLmr + DLmw (last-level misses)
//! ```
//!
//! Without valgrind it prints how long the measured part took (a sanity check, not a figure).

use std::hint::black_box;
use std::time::Instant;

use dyno_core::expr::KeyCondition;
use dyno_core::store::{GetRequest, PutRequest, QueryRequest, ScanRequest};
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
    gets(store, keys);
}

#[inline(never)]
fn measured_queries(store: &MemoryStore, requests: Vec<QueryRequest>) {
    queries(store, requests);
}

#[inline(never)]
fn measured_scans(store: &MemoryStore, requests: Vec<ScanRequest>) {
    for r in requests {
        let page = now(store.scan(r)).expect("scan");
        assert_eq!(page.count, 1_000);
        black_box(page);
    }
}

/// The gets, measured or not (warm-up rounds call it directly).
fn gets(store: &MemoryStore, keys: &[Item]) {
    for k in keys {
        black_box(now(store.get_item(GetRequest::borrowed(TABLE, k))).expect("get"));
    }
}

/// The queries, measured or not.
fn queries(store: &MemoryStore, requests: Vec<QueryRequest>) {
    for r in requests {
        black_box(now(store.query(r)).expect("query"));
    }
}

/// Items per partition of the large table (as in the scale run).
const PER_PARTITION: u32 = 10;

/// Switches callgrind's instrumentation on (`CALLGRIND_START_INSTRUMENTATION` of callgrind.h:
/// valgrind's client-request sequence, which does nothing when the program runs natively).
fn start_instrumentation() {
    #[cfg(target_arch = "x86_64")]
    {
        // VG_USERREQ_TOOL_BASE('C', 'T') + 4, and five unused arguments.
        let request: [u64; 6] = [
            (u64::from(b'C') << 24 | u64::from(b'T') << 16) + 4,
            0,
            0,
            0,
            0,
            0,
        ];
        let mut result: u64 = 0;
        // SAFETY: the rotations of rdi add up to 128 bits (it ends as it began) and `xchg rbx,
        // rbx` changes nothing; valgrind recognises the sequence and reads `request` via rax.
        unsafe {
            std::arch::asm!(
                "rol rdi, 3", "rol rdi, 13", "rol rdi, 61", "rol rdi, 51", "xchg rbx, rbx",
                in("rax") request.as_ptr(),
                inout("rdx") result,
                options(nostack),
            );
        }
        black_box(result);
    }
}

/// Gets or queries random keys of a table of `items` orders: `n` unmeasured reads, then `n`
/// measured ones.
fn large(store: &MemoryStore, op: &str, n: u32, items: u32) {
    let started = Instant::now();
    for i in 0..items {
        now(store.put_item(put(TABLE, order(i / PER_PARTITION, i % PER_PARTITION)))).expect("load");
    }
    eprintln!("loaded {items} items in {:?}", started.elapsed());
    start_instrumentation();
    let mut rng = fastrand::Rng::with_seed(7);
    let users = items / PER_PARTITION;
    // Each request is built just before it is read (as the scale run does), so that requests
    // built ahead do not crowd the table out of the simulated cache.
    let mut round = |measured: bool| {
        for _ in 0..n {
            match op {
                "get" => {
                    let mut key = order(rng.u32(..users), rng.u32(..PER_PARTITION));
                    key.retain(|name, _| name == "PK" || name == "SK");
                    let key = std::slice::from_ref(&key);
                    if measured {
                        measured_gets(store, key);
                    } else {
                        gets(store, key);
                    }
                }
                "query" => {
                    let pk = s(&format!("USER#{}", rng.u32(..users)));
                    let request = vec![QueryRequest::new(
                        TABLE,
                        None,
                        KeyCondition::partition("PK", pk),
                    )];
                    if measured {
                        measured_queries(store, request);
                    } else {
                        queries(store, request);
                    }
                }
                other => panic!("a large table is read by get or query, not {other}"),
            }
        }
    };
    round(false);
    let started = Instant::now();
    round(true);
    eprintln!("{n} {op} of {items} items: {:?} in all", started.elapsed());
}

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| a != "--bench");
    let op = args.next().unwrap_or_else(|| "put".to_owned());
    let n: u32 = args.next().map_or(10_000, |a| a.parse().expect("a count"));
    let items: Option<u32> = args.next().map(|a| a.parse().expect("a table size"));
    let store = MemoryStore::new();
    let def = TableDef::new(TABLE, "PK", Some("SK")).global_index(IndexDef::new(
        "GSI1",
        "GSI1PK",
        Some("GSI1SK"),
    ));
    now(store.create_table(&def)).expect("create table");
    if let Some(items) = items {
        large(&store, &op, n, items);
        return;
    }
    if op == "scan" {
        // A table of 1,000 partitions of one item each (users 1000 to 1999): a scan's cost
        // per partition.
        for user in 1_000..2_000 {
            now(store.put_item(put(TABLE, order(user, 0)))).expect("seed");
        }
        let requests: Vec<ScanRequest> = (0..n)
            .map(|_| ScanRequest::new(TABLE.to_owned()))
            .collect();
        let started = Instant::now();
        measured_scans(&store, requests);
        eprintln!(
            "{n} scans of 1,000 partitions: {:?} in all",
            started.elapsed()
        );
        return;
    }
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
        other => panic!("unknown operation {other}: put, put-new, get, query or scan"),
    }
    eprintln!("{n} {op}: {:?} in all", started.elapsed());
}
