//! Differential testing: seeded random request sequences run on MemoryStore and on dynoxide (the
//! reference backend, over HTTP through `DynamoStore`), every response compared (items, their
//! order, pagination keys, counts, error kinds and messages, the old item of a failed condition,
//! cancellation reasons, and consumed capacity wherever both report it), and a disagreement
//! shrunk to a minimal sequence by delta debugging.
//!
//! dynoxide joins when `DYNO_DYNOXIDE_ENDPOINT` is set (`scripts/test` starts it); without it the
//! test is skipped, unless `DYNO_REQUIRE_BACKENDS=1`, and then it fails. Knobs:
//! - `DYNO_DIFF_REQUESTS`: requests to send to each store at least (default 20,000);
//! - `DYNO_DIFF_SEED`: the first sequence's seed (default 0xD1FF); sequence `i` uses seed + i;
//! - `DYNO_DIFF_SHRINK`: how many disagreeing sequences to shrink and print (default 3).
//!
//! A disagreement is a MemoryStore bug unless [`deviations::explain`] documents it as a deviation
//! of dynoxide from DynamoDB's documentation, or records it as an open MemoryStore gap (the
//! `OPEN` entries: counted and printed on every run, and the run fails on any). Consumed capacity is compared
//! wherever both stores report it, per table and split between the table and each index (as
//! `ReturnConsumedCapacity = INDEXES` gives it); the run prints how many responses carried
//! dynoxide's figure alone.

#[path = "differential/deviations.rs"]
mod deviations;
#[path = "differential/generator.rs"]
mod generator;
#[path = "differential/run.rs"]
mod run;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Instant;

use dyno_core::store::{
    BatchGetOutput, BatchGetRequest, BatchWriteOutput, BatchWriteRequest, DeleteRequest, GetOutput,
    GetRequest, Page, PutRequest, QueryRequest, Reply, ScanRequest, TableDescription,
    TransactGetOutput, TransactGetRequest, TransactWriteOutput, TransactWriteRequest,
    UpdateRequest, UpdateTableRequest, WriteOutput,
};
use dyno_core::table::TableDef;
use dyno_core::{AttributeValue, DynamoStore, MemoryStore, Result, Store};
use dyno_tests::backend::{DYNOXIDE_ENDPOINT_VAR, REQUIRE_BACKENDS_VAR};
use generator::{Gen, Op};
use run::{Engines, Outcome};

/// Steps per sequence: long enough for state to build up (replaced items, grown sets and lists,
/// several pages per query), short enough to shrink quickly.
const SEQUENCE_LEN: usize = 250;
/// Sequences run at once (each on tables of its own), to overlap HTTP round trips.
const PARALLEL: usize = 8;
/// Replays one shrink may make.
const SHRINK_BUDGET: u32 = 400;

fn env_u64(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => {
            let v = v.trim();
            let parsed = match v.strip_prefix("0x") {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => v.parse(),
            };
            parsed.unwrap_or_else(|_| panic!("{name}={v:?} is not a number"))
        }
        Err(_) => default,
    }
}

fn memory() -> Arc<dyn Store> {
    Arc::new(MemoryStore::new())
}

/// What a differential run found over many sequences.
#[derive(Debug, Default)]
struct Summary {
    sequences: u64,
    requests: u64,
    capacity_unreported: u64,
    explained: BTreeMap<&'static str, u64>,
    /// The seeds of the sequences that met each open gap (an `OPEN` entry of [`deviations`]).
    open: BTreeMap<&'static str, Vec<u64>>,
    /// Seeds whose sequence disagreed, with the failing prefix.
    failing: Vec<(u64, Vec<Op>)>,
}

/// Runs sequences from `seed` on `engines`, `PARALLEL` at a time, until each store has had
/// `target` requests. A sequence stops at its first disagreement, so how many sequences that
/// takes depends on what they find; it is fixed by the seed and the stores' behaviour.
async fn differential(engines: &Engines, seed: u64, target: u64) -> Summary {
    let mut summary = Summary::default();
    let mut next = seed;
    while summary.requests < target {
        let runs = (0..PARALLEL as u64).map(|i| {
            let engines = engines.clone();
            let seed = next.wrapping_add(i);
            tokio::spawn(async move {
                let ops = Gen::new(seed).sequence(SEQUENCE_LEN);
                let report = engines.run(&ops).await;
                (seed, ops, report)
            })
        });
        let results = futures::future::join_all(runs).await;
        next = next.wrapping_add(PARALLEL as u64);
        for joined in results {
            let (seed, mut ops, report) = joined.expect("a sequence task panicked");
            summary.sequences += 1;
            summary.requests += report.requests;
            summary.capacity_unreported += report.capacity_unreported;
            for (why, n) in report.explained {
                *summary.explained.entry(why).or_default() += n;
                if deviations::is_open(why) {
                    summary.open.entry(why).or_default().push(seed);
                }
            }
            if let Some(d) = report.disagreement {
                ops.truncate(d.step + 1);
                summary.failing.push((seed, ops));
            }
        }
    }
    summary
}

fn show(outcome: &Outcome) -> String {
    outcome
        .iter()
        .map(|r| {
            let reasons = if r.reasons.is_empty() {
                String::new()
            } else {
                format!(" reasons {:?}", r.reasons)
            };
            format!("    {} (capacity {:?}){reasons}", r.text, r.capacity)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Shrinks and prints up to `shrink` failing sequences; the text of the failure.
async fn explain_failures(engines: &Engines, failing: &[(u64, Vec<Op>)], shrink: usize) -> String {
    let mut text = format!(
        "{} sequence(s) disagreed; seeds {:?}\n",
        failing.len(),
        failing.iter().map(|(s, _)| *s).collect::<Vec<_>>()
    );
    for (seed, ops) in failing.iter().take(shrink) {
        let (minimal, d) = engines.shrink(ops, SHRINK_BUDGET).await;
        text.push_str(&format!(
            "\nseed {seed}: disagreement at step {} of {}, shrunk to {} step(s):\n",
            ops.len() - 1,
            ops.len(),
            minimal.len()
        ));
        for (i, op) in minimal.iter().enumerate() {
            text.push_str(&format!("  [{i}] {op:?}\n"));
        }
        text.push_str(&format!(
            "  memory:\n{}\n  reference:\n{}\n",
            show(&d.subject),
            show(&d.reference)
        ));
    }
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_store_agrees_with_dynoxide() {
    let require = std::env::var(REQUIRE_BACKENDS_VAR).is_ok_and(|v| v == "1");
    let Some(endpoint) = std::env::var(DYNOXIDE_ENDPOINT_VAR)
        .ok()
        .filter(|v| !v.trim().is_empty())
    else {
        assert!(
            !require,
            "{REQUIRE_BACKENDS_VAR}=1 but {DYNOXIDE_ENDPOINT_VAR} is not set: differential \
             testing needs dynoxide (scripts/test starts it)"
        );
        eprintln!("differential: skipped, {DYNOXIDE_ENDPOINT_VAR} is not set");
        return;
    };
    let target = env_u64("DYNO_DIFF_REQUESTS", 20_000);
    let seed = env_u64("DYNO_DIFF_SEED", 0xD1FF);
    let shrink = env_u64("DYNO_DIFF_SHRINK", 3) as usize;
    let engines = Engines {
        subject: memory,
        reference: Arc::new(DynamoStore::local(endpoint.trim()).await),
        explain: deviations::explain,
        diverges: deviations::diverges,
    };
    let started = Instant::now();
    let summary = differential(&engines, seed, target).await;
    let elapsed = started.elapsed();
    let explained: u64 = summary.explained.values().sum();
    println!(
        "differential: {} requests to each of memory and dynoxide ({} sequences of up to \
         {SEQUENCE_LEN} steps from seed {seed}), {:.1} s, {} disagreement(s), {explained} \
         explained or open, {} response(s) with consumed capacity from dynoxide only (not compared)",
        summary.requests,
        summary.sequences,
        elapsed.as_secs_f64(),
        summary.failing.len(),
        summary.capacity_unreported,
    );
    for (why, n) in &summary.explained {
        println!("  explained x{n}: {why}");
    }
    if !summary.failing.is_empty() {
        panic!(
            "{}",
            explain_failures(&engines, &summary.failing, shrink).await
        );
    }
    // An open gap is a MemoryStore bug that is known, not one that is explained: none may come
    // back unnoticed.
    assert!(
        summary.open.is_empty(),
        "MemoryStore gaps met (OPEN entries of differential/deviations.rs), by the seeds of the \
         sequences that met them; rerun one with DYNO_DIFF_SEED=<seed> DYNO_DIFF_REQUESTS=1 \
         DYNO_DIFF_DUMP=1 to see each response:\n{}",
        summary
            .open
            .iter()
            .map(|(why, seeds)| format!("  {why}: seeds {seeds:?}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        summary.requests >= target,
        "only {} requests",
        summary.requests
    );
}

/// MemoryStore against itself: every response agrees, so the comparison is deterministic (no
/// hash order leaks into the canonical texts).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_store_agrees_with_itself() {
    let engines = Engines {
        subject: memory,
        reference: memory(),
        explain: |_: &Op, _: &Outcome, _: &Outcome| None,
        diverges: |_: &Op| None,
    };
    let summary = differential(&engines, 7, 2_000).await;
    assert!(summary.requests >= 2_000);
    assert!(summary.explained.is_empty());
    assert!(
        summary.failing.is_empty(),
        "{}",
        explain_failures(&engines, &summary.failing, 1).await
    );
}

/// A store that loses one attribute on PutItem: `c` when it holds `true`.
#[derive(Debug)]
struct Lossy(MemoryStore);

impl Store for Lossy {
    fn get_item<'a>(&'a self, r: GetRequest<'a>) -> Reply<'a, Result<GetOutput>> {
        Reply::new(async move { self.0.get_item(r).await })
    }
    fn put_item(&self, mut r: PutRequest) -> Reply<'_, Result<WriteOutput>> {
        Reply::new(async move {
            if r.item.get("c") == Some(&AttributeValue::Bool(true)) {
                r.item.remove("c");
            }
            self.0.put_item(r).await
        })
    }
    fn update_item(&self, r: UpdateRequest) -> Reply<'_, Result<WriteOutput>> {
        Reply::new(async move { self.0.update_item(r).await })
    }
    fn delete_item(&self, r: DeleteRequest) -> Reply<'_, Result<WriteOutput>> {
        Reply::new(async move { self.0.delete_item(r).await })
    }
    fn query(&self, r: QueryRequest) -> Reply<'_, Result<Page>> {
        Reply::new(async move { self.0.query(r).await })
    }
    fn scan(&self, r: ScanRequest) -> Reply<'_, Result<Page>> {
        Reply::new(async move { self.0.scan(r).await })
    }
    fn batch_get(&self, r: BatchGetRequest) -> Reply<'_, Result<BatchGetOutput>> {
        Reply::new(async move { self.0.batch_get(r).await })
    }
    fn batch_write(&self, r: BatchWriteRequest) -> Reply<'_, Result<BatchWriteOutput>> {
        Reply::new(async move { self.0.batch_write(r).await })
    }
    fn transact_get(&self, r: TransactGetRequest) -> Reply<'_, Result<TransactGetOutput>> {
        Reply::new(async move { self.0.transact_get(r).await })
    }
    fn transact_write(&self, r: TransactWriteRequest) -> Reply<'_, Result<TransactWriteOutput>> {
        Reply::new(async move { self.0.transact_write(r).await })
    }
    fn create_table<'a>(&'a self, d: &'a TableDef) -> Reply<'a, Result<()>> {
        Reply::new(async move { self.0.create_table(d).await })
    }
    fn delete_table<'a>(&'a self, n: &'a str) -> Reply<'a, Result<()>> {
        Reply::new(async move { self.0.delete_table(n).await })
    }
    fn describe_table<'a>(&'a self, n: &'a str) -> Reply<'a, Result<TableDescription>> {
        Reply::new(async move { self.0.describe_table(n).await })
    }
    fn update_ttl<'a>(&'a self, t: &'a str, a: &'a str, e: bool) -> Reply<'a, Result<()>> {
        Reply::new(async move { self.0.update_ttl(t, a, e).await })
    }
    fn update_table(&self, r: UpdateTableRequest) -> Reply<'_, Result<TableDescription>> {
        Reply::new(async move { self.0.update_table(r).await })
    }
}

/// The comparison catches a planted bug and the shrinker cuts the sequence down to the two steps
/// that show it: a put of `c = true`, then a read of that item.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_planted_bug_is_found_and_shrunk_to_two_steps() {
    let engines = Engines {
        subject: memory,
        reference: Arc::new(Lossy(MemoryStore::new())),
        explain: |_: &Op, _: &Outcome, _: &Outcome| None,
        diverges: |_: &Op| None,
    };
    let summary = differential(&engines, 1, 100).await;
    let (seed, ops) = summary
        .failing
        .first()
        .expect("the lossy store disagrees with MemoryStore");
    assert!(
        ops.len() > 2,
        "seed {seed}: failed at step {}",
        ops.len() - 1
    );
    let (minimal, d) = engines.shrink(ops, SHRINK_BUDGET).await;
    assert_eq!(minimal.len(), 2, "not minimal: {minimal:#?}");
    let writes_c_true = |item: &dyno_core::Item| item.get("c") == Some(&AttributeValue::Bool(true));
    assert!(
        matches!(&minimal[0], Op::Put(p) if writes_c_true(&p.item)),
        "{minimal:#?}"
    );
    assert!(d
        .subject
        .iter()
        .any(|r| r.text.contains("\"c\": BOOL(true)")));
    assert!(!d
        .reference
        .iter()
        .any(|r| r.text.contains("\"c\": BOOL(true)")));
}

/// The generator covers every request kind and the features the issue lists: every attribute
/// type (sets included, nested maps and lists), numbers of varied precision, all four update
/// actions with conditions, queries both ways with limits and filters, segmented scans.
#[test]
fn the_generator_covers_every_request_kind_and_feature() {
    let ops = Gen::new(0xD1FF).sequence(2_000);
    let kinds: BTreeSet<&str> = ops.iter().map(generator::kind).collect();
    assert_eq!(kinds.len(), 10, "{kinds:?}");
    let mut types = BTreeSet::new();
    let mut visit = |item: &dyno_core::Item| {
        fn walk(v: &AttributeValue, types: &mut BTreeSet<&'static str>) {
            let name = match v {
                AttributeValue::S(_) => "S",
                AttributeValue::N(_) => "N",
                AttributeValue::B(_) => "B",
                AttributeValue::Bool(_) => "BOOL",
                AttributeValue::Null(_) => "NULL",
                AttributeValue::Ss(_) => "SS",
                AttributeValue::Ns(_) => "NS",
                AttributeValue::Bs(_) => "BS",
                AttributeValue::L(l) => {
                    l.iter().for_each(|v| walk(v, types));
                    "L"
                }
                AttributeValue::M(m) => {
                    m.values().for_each(|v| walk(v, types));
                    "M"
                }
                _ => "other",
            };
            types.insert(name);
        }
        item.values().for_each(|v| walk(v, &mut types));
    };
    let (mut set, mut remove, mut add, mut delete, mut nested, mut conditional) =
        (0, 0, 0, 0, 0, 0);
    let (mut backward, mut limited, mut filtered, mut segmented) = (0, 0, 0, 0);
    for op in &ops {
        match op {
            Op::Put(p) => visit(&p.item),
            Op::Update(u) => {
                set += u.update.set.len();
                remove += u.update.remove.len();
                add += u.update.add.len();
                delete += u.update.delete.len();
                nested += u.update.paths().filter(|p| generator::is_nested(p)).count();
                conditional += usize::from(u.condition.is_some());
            }
            Op::Query { request, .. } => {
                backward += usize::from(!request.scan_forward);
                limited += usize::from(request.limit.is_some());
                filtered += usize::from(request.filter.is_some());
            }
            Op::Scan(s) => segmented += usize::from(s.segment.is_some_and(|(_, n)| n > 1)),
            _ => {}
        }
    }
    assert_eq!(
        types.into_iter().collect::<Vec<_>>(),
        ["B", "BOOL", "BS", "L", "M", "N", "NS", "NULL", "S", "SS"]
    );
    for (what, n) in [
        ("set", set),
        ("remove", remove),
        ("add", add),
        ("delete", delete),
        ("nested paths", nested),
        ("conditional updates", conditional),
        ("backward queries", backward),
        ("limited queries", limited),
        ("filtered queries", filtered),
        ("segmented scans", segmented),
    ] {
        assert!(n >= 20, "only {n} {what} in 2,000 steps");
    }
    // The same seed gives the same sequence.
    assert_eq!(Gen::new(0xD1FF).sequence(50), ops[..50]);
}
