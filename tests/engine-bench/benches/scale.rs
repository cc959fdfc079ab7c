//! The scale run: one engine per process (so resident memory is its own), loaded with up to
//! 1,000,000 order items; at 1k, 10k, 100k and 1M items it prints the load time so far, get and
//! query latency (median and p99 over random keys and partitions), and resident memory per item.
//!
//! ```text
//! # from tests/engine-bench (its .cargo/config.toml builds into dyno's target directory)
//! cargo bench --bench scale -- memory     # MemoryStore
//! cargo bench --bench scale -- dynoxide   # dynoxide embedded (in-memory SQLite)
//! cargo bench --bench scale -- items      # the same items held in a Vec<Item>
//! cargo bench --bench scale -- memory-table-only   # MemoryStore without the GSI
//! DYNO_SCALE_MAX=100000 cargo bench --bench scale -- memory
//! ```
//!
//! `items` is the breakdown's first line: what the items cost as the SDK's `HashMap`s alone,
//! before any engine holds them; `memory-table-only` the second: the engine without the GSI
//! (its primary map and each item's `Arc`), so that the GSI's share is the difference. It also times an item clone, the cost a read would pay if the
//! engine kept items in a compact form and rebuilt the `HashMap` for every read.

#[path = "support/dynoxide.rs"]
mod dynoxide_support;
#[path = "support/orders.rs"]
mod orders;

use std::time::{Duration, Instant};

use dyno_core::expr::KeyCondition;
use dyno_core::store::{GetRequest, QueryRequest};
use dyno_core::table::TableDef;
use dyno_core::value::item_size;
use dyno_core::{Item, MemoryStore, Store};
use dynoxide_support::{create_table, request, wire};
use orders::{put, s};

/// Items per partition: a query reads one partition of this many items.
const PER_PARTITION: u32 = 10;
/// Random reads timed at each size.
const SAMPLES: usize = 20_000;

/// Item `i`: an order of ten attributes (193 bytes by DynamoDB's formula for small `i`), the
/// `i % PER_PARTITION`-th of user `i / PER_PARTITION`.
fn order(i: u32) -> Item {
    orders::order(i / PER_PARTITION, i % PER_PARTITION)
}

fn key(i: u32) -> Item {
    let mut item = order(i);
    item.retain(|k, _| k == "PK" || k == "SK");
    item
}

/// Resident memory of this process, in bytes.
fn rss() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .expect("resident pages");
    pages * 4096
}

/// Median and 99th percentile of `samples`.
fn percentiles(mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    (
        samples[samples.len() / 2],
        samples[samples.len() * 99 / 100],
    )
}

/// What the run measures on one engine.
trait Engine {
    fn put(&mut self, item: Item);
    fn get(&mut self, key: Item) -> bool;
    fn query(&mut self, partition: &str) -> usize;
}

struct Memory {
    rt: tokio::runtime::Runtime,
    store: MemoryStore,
}

impl Engine for Memory {
    fn put(&mut self, item: Item) {
        self.rt
            .block_on(self.store.put_item(put("scale", item)))
            .expect("put");
    }
    fn get(&mut self, key: Item) -> bool {
        let out = self
            .rt
            .block_on(self.store.get_item(GetRequest::new("scale", key)))
            .expect("get");
        out.item.is_some()
    }
    fn query(&mut self, partition: &str) -> usize {
        let request = QueryRequest::new("scale", None, KeyCondition::partition("PK", s(partition)));
        self.rt
            .block_on(self.store.query(request))
            .expect("query")
            .count
    }
}

struct Dynoxide(dynoxide::Database);

impl Engine for Dynoxide {
    fn put(&mut self, item: Item) {
        self.0
            .put_item(request(
                serde_json::json!({ "TableName": "scale", "Item": wire(&item) }),
            ))
            .expect("put");
    }
    fn get(&mut self, key: Item) -> bool {
        self.0
            .get_item(request(
                serde_json::json!({ "TableName": "scale", "Key": wire(&key) }),
            ))
            .expect("get")
            .item
            .is_some()
    }
    fn query(&mut self, partition: &str) -> usize {
        self.0
            .query(request(serde_json::json!({
                "TableName": "scale",
                "KeyConditionExpression": "PK = :p",
                "ExpressionAttributeValues": {":p": {"S": partition}}
            })))
            .expect("query")
            .count
    }
}

fn run(name: &str, engine: &mut dyn Engine, max: u32) {
    let base = rss();
    let mut rng = fastrand::Rng::with_seed(7);
    let mut loaded = 0u32;
    let mut load = Duration::ZERO;
    let mut size = 1_000u32;
    while size <= max {
        let started = Instant::now();
        while loaded < size {
            engine.put(order(loaded));
            loaded += 1;
        }
        load += started.elapsed();
        let per_item = (rss().saturating_sub(base)) as f64 / f64::from(loaded);
        let gets: Vec<Duration> = (0..SAMPLES)
            .map(|_| {
                let k = key(rng.u32(..loaded));
                let t = Instant::now();
                assert!(engine.get(k));
                t.elapsed()
            })
            .collect();
        let queries: Vec<Duration> = (0..SAMPLES / 10)
            .map(|_| {
                let p = format!("USER#{}", rng.u32(..loaded / PER_PARTITION));
                let t = Instant::now();
                assert_eq!(engine.query(&p), PER_PARTITION as usize);
                t.elapsed()
            })
            .collect();
        let ((g50, g99), (q50, q99)) = (percentiles(gets), percentiles(queries));
        println!(
            "scale {name}: {loaded:>9} items, loaded in {:>8.2} s, get p50 {g50:>9.2?} p99 {g99:>9.2?}, \
             query(10) p50 {q50:>9.2?} p99 {q99:>9.2?}, resident {per_item:>6.0} B/item",
            load.as_secs_f64()
        );
        size *= 10;
    }
}

fn main() {
    // `cargo bench` passes `--bench`; the engine is the first other argument.
    let engine = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .unwrap_or_else(|| "memory".to_owned());
    let max: u32 = std::env::var("DYNO_SCALE_MAX")
        .ok()
        .map(|v| v.parse().expect("DYNO_SCALE_MAX is a number"))
        .unwrap_or(1_000_000);
    println!(
        "scale: items of {} bytes (DynamoDB's formula), {PER_PARTITION} per partition, up to {max}",
        item_size(&order(0))
    );
    match engine.as_str() {
        "memory" | "memory-table-only" => {
            let rt = tokio::runtime::Builder::new_current_thread()
                .build()
                .expect("runtime");
            let store = MemoryStore::new();
            let mut def = TableDef::new("scale", "PK", Some("SK"));
            if engine == "memory" {
                def = def.global_index(dyno_core::table::IndexDef::new(
                    "GSI1",
                    "GSI1PK",
                    Some("GSI1SK"),
                ));
            }
            rt.block_on(store.create_table(&def)).expect("create");
            run(&engine, &mut Memory { rt, store }, max);
        }
        "dynoxide" => {
            let db = dynoxide::Database::memory().expect("dynoxide in-memory database");
            create_table(&db, "scale");
            run("dynoxide", &mut Dynoxide(db), max);
        }
        "items" => {
            let base = rss();
            let items: Vec<Item> = (0..max).map(order).collect();
            let per_item = (rss().saturating_sub(base)) as f64 / f64::from(max);
            let started = Instant::now();
            let mut kept = 0usize;
            for item in items.iter().take(100_000) {
                kept += item.clone().len();
            }
            let clone = started.elapsed() / 100_000;
            println!(
                "scale items: {max} items as Vec<HashMap<String, AttributeValue>>: resident \
                 {per_item:.0} B/item; one clone (a read that rebuilds the map) {clone:.2?} \
                 ({kept} attributes copied)"
            );
        }
        other => panic!("unknown engine {other:?}: memory, memory-table-only, dynoxide or items"),
    }
}
