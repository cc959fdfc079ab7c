//! The conformance suite: one list of scenarios, each run through the `Store` trait against
//! MemoryStore and every server backend that is configured (dynalite, moto), with DynamoDB's
//! documented outcomes checked on each and the transcripts (items, order, pagination keys, error
//! kinds) compared between backends.
//!
//! Where a server deviates from DynamoDB's documentation, the scenario says so in its
//! `deviations` list; the deviation must be observed (a listed deviation that disappears fails
//! the suite, so the list stays true).
//!
//! Plain `cargo test` runs it on MemoryStore alone; `scripts/test` starts the servers.

#[path = "conformance/support.rs"]
#[macro_use]
mod support;

#[path = "conformance/batches.rs"]
mod batches;
#[path = "conformance/indexes.rs"]
mod indexes;
#[path = "conformance/items.rs"]
mod items;
#[path = "conformance/queries.rs"]
mod queries;
#[path = "conformance/tables.rs"]
mod tables;
#[path = "conformance/transactions.rs"]
mod transactions;
#[path = "conformance/writes.rs"]
mod writes;

use dyno_tests::backend::{self, backends, unique_table_name, BackendKind};
use support::{
    Ctx, IndexDef, KeyAttribute, Out, Projection, ScalarType, Scenario, TableDef, TableSpec,
};

/// The main table: string keys, an overloaded GSI with everything projected, a keys-only GSI
/// without a sort key, and an LSI projecting one attribute.
pub fn main_table() -> TableDef {
    TableDef::new("main", "PK", Some("SK"))
        .global_index(IndexDef::new("GSI1", "GSI1PK", Some("GSI1SK")))
        .global_index(IndexDef::new("GSI2", "GSI2PK", None).projection(Projection::KeysOnly))
        .local_index(
            IndexDef::new("LSI1", "PK", Some("LSK"))
                .projection(Projection::Include(vec!["inc".into()])),
        )
}

/// Numeric sort key, and a GSI with a numeric sort key.
pub fn num_table() -> TableDef {
    let mut def = TableDef::new("num", "PK", None);
    def.sort_key = Some(KeyAttribute::new("SK", ScalarType::N));
    def.global_index(IndexDef {
        name: "ByScore".into(),
        partition_key: KeyAttribute::string("G"),
        sort_key: Some(KeyAttribute::new("score", ScalarType::N)),
        projection: Projection::All,
    })
}

/// Binary keys.
pub fn bin_table() -> TableDef {
    let mut def = TableDef::new("bin", "PK", None);
    def.partition_key = KeyAttribute::new("PK", ScalarType::B);
    def.sort_key = Some(KeyAttribute::new("SK", ScalarType::B));
    def
}

/// A partition key only, with a GSI without sort key projecting one attribute.
pub fn hash_table() -> TableDef {
    TableDef::new("hash", "PK", None).global_index(
        IndexDef::new("ByEmail", "email", None)
            .projection(Projection::Include(vec!["name".into()])),
    )
}

/// String keys and TTL on `expires`.
pub fn ttl_table() -> TableDef {
    TableDef::new("ttl", "PK", Some("SK")).ttl("expires")
}

pub const MAIN: TableSpec = ("main", main_table);
pub const NUM: TableSpec = ("num", num_table);
pub const BIN: TableSpec = ("bin", bin_table);
pub const HASH: TableSpec = ("hash", hash_table);
pub const TTL: TableSpec = ("ttl", ttl_table);

fn scenarios() -> Vec<Scenario> {
    let mut all = Vec::new();
    all.extend(tables::scenarios());
    all.extend(items::scenarios());
    all.extend(queries::scenarios());
    all.extend(indexes::scenarios());
    all.extend(writes::scenarios());
    all.extend(batches::scenarios());
    all.extend(transactions::scenarios());
    all
}

/// Runs one scenario on one backend: creates its tables under unique names, runs it, drops them.
async fn run_on(scenario: &Scenario, backend: &backend::Backend) -> Result<Ctx, String> {
    let mut tables = Vec::new();
    for (logical, def) in scenario.tables {
        let real = unique_table_name(logical);
        backend
            .store
            .create_table(&def().named(real.clone()))
            .await
            .map_err(|e| format!("creating table {logical} on {}: {e}", backend.name))?;
        tables.push((*logical, real));
    }
    let mut ctx = Ctx::new(backend.name, backend.store.clone(), tables.clone());
    (scenario.run)(&mut ctx).await;
    for (_, real) in tables {
        // Best effort: a failed drop leaves a uniquely named table behind on a scratch server.
        let _ = backend.store.delete_table(&real).await;
    }
    Ok(ctx)
}

fn transcript_diff(reference: &Ctx, other: &Ctx) -> Option<String> {
    let len = reference.transcript.len().max(other.transcript.len());
    for i in 0..len {
        let a = reference.transcript.get(i);
        let b = other.transcript.get(i);
        if a.map(|(_, o)| o) != b.map(|(_, o)| o) {
            let show = |x: Option<&(String, Out)>| {
                x.map_or("(nothing)".to_owned(), |(l, o)| format!("{l}: {o}"))
            };
            return Some(format!(
                "request {} differs:\n      {}: {}\n      {}: {}",
                i + 1,
                reference.backend,
                show(a),
                other.backend,
                show(b)
            ));
        }
    }
    None
}

/// What one scenario found on every backend.
#[derive(Default)]
struct Findings {
    problems: Vec<String>,
    notes: Vec<String>,
    requests: usize,
}

/// Runs one scenario on MemoryStore (the reference transcript), then on the servers at once, and
/// judges each server's run against the reference and the scenario's recorded deviations.
async fn judge(scenario: &Scenario, backends: &[backend::Backend]) -> Findings {
    let mut found = Findings::default();
    let (memory, servers): (Vec<_>, Vec<_>) =
        backends.iter().partition(|b| b.kind == BackendKind::Memory);
    let reference = match run_on(scenario, memory[0]).await {
        Ok(ctx) => ctx,
        Err(e) => {
            found.problems.push(format!("[{}] {e}", scenario.name));
            return found;
        }
    };
    found.requests = reference.transcript.len();
    if scenario
        .deviations
        .iter()
        .any(|d| d.backend == BackendKind::Memory)
    {
        found.problems.push(format!(
            "[{}] MemoryStore must not deviate from DynamoDB",
            scenario.name
        ));
    }
    if !reference.failures.is_empty() {
        found.problems.push(format!(
            "[{}] on memory:\n    check failed: {}",
            scenario.name,
            reference.failures.join("\n    check failed: ")
        ));
    }
    let runs = servers.iter().map(|backend| async move {
        let deviation = scenario
            .deviations
            .iter()
            .find(|d| d.backend == backend.kind);
        match deviation {
            Some(d) if d.skip => (backend, deviation, None),
            _ => (backend, deviation, Some(run_on(scenario, backend).await)),
        }
    });
    for (backend, deviation, run) in futures::future::join_all(runs).await {
        let ctx = match run {
            None => {
                let why = deviation.map_or("", |d| d.why);
                found.notes.push(format!(
                    "[{}] not run on {}: {why}",
                    scenario.name, backend.name
                ));
                continue;
            }
            Some(Err(e)) => {
                found.problems.push(format!("[{}] {e}", scenario.name));
                continue;
            }
            Some(Ok(ctx)) => ctx,
        };
        let diff = transcript_diff(&reference, &ctx);
        let deviates = !ctx.failures.is_empty() || diff.is_some();
        match (deviation.map(|d| d.why), deviates) {
            (None, false) => {}
            (None, true) => {
                let mut msg = format!("[{}] on {}:", scenario.name, backend.name);
                for f in &ctx.failures {
                    msg.push_str(&format!("\n    check failed: {f}"));
                }
                if let Some(d) = diff {
                    msg.push_str(&format!("\n    {d}"));
                }
                found.problems.push(msg);
            }
            (Some(why), true) => found.notes.push(format!(
                "[{}] {} deviates as recorded: {why}",
                scenario.name, backend.name
            )),
            (Some(why), false) => found.problems.push(format!(
                "[{}] {} was recorded as deviating ({why}) but now conforms: remove the deviation",
                scenario.name, backend.name
            )),
        }
    }
    found
}

#[tokio::test]
async fn conformance() {
    use futures::StreamExt;

    let backends = backends().await;
    let scenarios = scenarios();
    // A few scenarios at a time: the servers answer in milliseconds, not microseconds.
    let findings: Vec<Findings> = futures::stream::iter(&scenarios)
        .map(|s| judge(s, &backends))
        .buffered(4)
        .collect()
        .await;
    let requests: usize = findings.iter().map(|f| f.requests).sum();
    let names: Vec<&str> = backends.iter().map(|b| b.name).collect();
    println!(
        "conformance: {} scenarios, {requests} requests each, on {names:?}",
        scenarios.len()
    );
    for n in findings.iter().flat_map(|f| &f.notes) {
        println!("  {n}");
    }
    let problems: Vec<&String> = findings.iter().flat_map(|f| &f.problems).collect();
    assert!(
        requests >= 150,
        "the suite should make at least 150 requests, made {requests}"
    );
    assert!(
        problems.is_empty(),
        "{} conformance problem(s):\n{}",
        problems.len(),
        problems
            .iter()
            .map(|p| p.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}
