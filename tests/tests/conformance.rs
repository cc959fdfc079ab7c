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

#[path = "conformance/backend_shim.rs"]
mod backend;

use backend::{backends, unique_table_name, BackendKind};
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

#[tokio::test]
async fn conformance() {
    let backends = backends().await;
    let scenarios = scenarios();
    let mut problems = Vec::new();
    let mut notes = Vec::new();
    let mut requests = 0;
    for scenario in &scenarios {
        let mut reference: Option<Ctx> = None;
        for backend in &backends {
            let deviation = scenario
                .deviations
                .iter()
                .find(|(k, _)| *k == backend.kind)
                .map(|(_, why)| *why);
            let ctx = match run_on(scenario, backend).await {
                Ok(ctx) => ctx,
                Err(e) => {
                    problems.push(format!("[{}] {e}", scenario.name));
                    continue;
                }
            };
            if backend.kind == BackendKind::Memory {
                requests += ctx.transcript.len();
            }
            let diff = reference.as_ref().and_then(|r| transcript_diff(r, &ctx));
            let deviates = !ctx.failures.is_empty() || diff.is_some();
            match (deviation, deviates) {
                (None, false) => {}
                (None, true) => {
                    let mut msg = format!("[{}] on {}:", scenario.name, backend.name);
                    for f in &ctx.failures {
                        msg.push_str(&format!("\n    check failed: {f}"));
                    }
                    if let Some(d) = diff {
                        msg.push_str(&format!("\n    {d}"));
                    }
                    problems.push(msg);
                }
                (Some(why), true) => notes.push(format!("[{}] {} deviates as recorded: {why}", scenario.name, backend.name)),
                (Some(why), false) => problems.push(format!(
                    "[{}] {} was recorded as deviating ({why}) but now conforms: remove the deviation",
                    scenario.name, backend.name
                )),
            }
            if backend.kind == BackendKind::Memory {
                reference = Some(ctx);
            }
        }
    }
    let names: Vec<&str> = backends.iter().map(|b| b.name).collect();
    println!(
        "conformance: {} scenarios, {requests} requests each, on {names:?}",
        scenarios.len()
    );
    for n in &notes {
        println!("  {n}");
    }
    assert!(
        requests >= 150,
        "the suite should make at least 150 requests, made {requests}"
    );
    assert!(
        problems.is_empty(),
        "{} conformance problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}
