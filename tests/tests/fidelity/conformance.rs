//! The conformance suite: one list of scenarios, each run through the `Store` trait against
//! MemoryStore and every server backend that is configured (dynalite, moto, dynoxide), with
//! DynamoDB's documented outcomes checked on each and the transcripts (items, order, pagination
//! keys, error kinds) compared between backends. dynoxide is the reference: MemoryStore's error
//! messages and consumed capacity are compared with its too.
//!
//! Where a server deviates from DynamoDB's documentation, the scenario says so in its
//! `deviations` list; the deviation must be observed (a listed deviation that disappears fails
//! the suite, so the list stays true). The suite ends with one line per backend: the requests it
//! sent and the deviations it recorded.
//!
//! Plain `cargo test` runs it on MemoryStore alone; `scripts/test` starts the servers.

#[path = "conformance/support.rs"]
#[macro_use]
mod support;

#[path = "conformance/batches.rs"]
mod batches;
#[path = "conformance/fields.rs"]
mod fields;
#[path = "conformance/index_updates.rs"]
mod index_updates;
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
        extra_partition_keys: Vec::new(),
        extra_sort_keys: Vec::new(),
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
    all.extend(index_updates::scenarios());
    all.extend(writes::scenarios());
    all.extend(batches::scenarios());
    all.extend(transactions::scenarios());
    all.extend(fields::scenarios());
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

/// True when MemoryStore's message `mine` says what the reference's `theirs` says, in the same
/// words. MemoryStore may append details (what it found, where) after DynamoDB's words. Both are
/// compared without the "1 validation error detected: " preamble and with the request's echoed
/// value (`Value '{...}' at 'member'`, a dump of the whole request in DynamoDB's answer) elided.
fn same_words(mine: &str, theirs: &str) -> bool {
    fn words(m: &str) -> String {
        let m = m.strip_prefix("1 validation error detected: ").unwrap_or(m);
        match (m.find("Value '"), m.find("' at '")) {
            (Some(start), Some(end)) if start < end => {
                format!("{}Value at '{}", &m[..start], &m[end + "' at '".len()..])
            }
            _ => m.to_owned(),
        }
    }
    words(mine).starts_with(&words(theirs))
}

/// Where MemoryStore and the reference backend (dynoxide) agree on every outcome, the first
/// request whose error message or consumed capacity differs between them. Messages are compared
/// where both produced one (MemoryStore words them as DynamoDB does); capacity where both report
/// it, per table and split between the table and each index.
fn detail_diff(memory: &Ctx, reference: &Ctx) -> Option<String> {
    let labels = memory.transcript.iter().map(|(label, _)| label);
    for (i, (label, (mine, theirs))) in labels
        .zip(memory.messages.iter().zip(&reference.messages))
        .enumerate()
    {
        if let (Some(mine), Some(theirs)) = (mine, theirs)
            && !same_words(mine, theirs)
        {
            return Some(format!(
                    "request {} ({label}): error messages differ:\n      {}: {mine}\n      {}: {theirs}",
                    i + 1,
                    memory.backend,
                    reference.backend
                ));
        }
    }
    let labels = memory.transcript.iter().map(|(label, _)| label);
    for (i, (label, (mine, theirs))) in labels
        .zip(memory.capacity.iter().zip(&reference.capacity))
        .enumerate()
    {
        if let (Some(mine), Some(theirs)) = (mine, theirs)
            && mine != theirs
        {
            return Some(format!(
                    "request {} ({label}): consumed capacity differs (per table, split as INDEXES gives it): {} {mine:?}, {} {theirs:?}",
                    i + 1,
                    memory.backend,
                    reference.backend
                ));
        }
    }
    None
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
    /// Per backend that ran it: requests sent, and whether it deviated as recorded.
    tally: Vec<(&'static str, usize, bool)>,
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
    found
        .tally
        .push((memory[0].name, reference.requests, false));
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
                found.tally.push((backend.name, 0, true));
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
        let outcome_diff = transcript_diff(&reference, &ctx);
        let words_diff = if backend.kind == BackendKind::Dynoxide {
            detail_diff(&reference, &ctx)
        } else {
            None
        };
        let words_only = deviation.is_some_and(|d| d.words_only);
        if words_only && (outcome_diff.is_some() || !ctx.failures.is_empty()) {
            // Recorded as a difference of wording only: any other difference is a problem.
            let mut msg = format!("[{}] on {}:", scenario.name, backend.name);
            for f in &ctx.failures {
                msg.push_str(&format!("\n    check failed: {f}"));
            }
            if let Some(d) = &outcome_diff {
                msg.push_str(&format!("\n    {d}"));
            }
            found.problems.push(msg);
        }
        let (deviates, diff) = if words_only {
            (words_diff.is_some(), words_diff)
        } else {
            let diff = outcome_diff.or(words_diff);
            (!ctx.failures.is_empty() || diff.is_some(), diff)
        };
        found
            .tally
            .push((backend.name, ctx.requests, deviation.is_some() && deviates));
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
    use std::io::Write;

    let backends = backends().await;
    let scenarios = scenarios();
    // A few scenarios at a time: the servers answer in milliseconds, not microseconds.
    let findings: Vec<Findings> = futures::stream::iter(&scenarios)
        .map(|s| judge(s, &backends))
        .buffered(4)
        .collect()
        .await;
    for n in findings.iter().flat_map(|f| &f.notes) {
        println!("  {n}");
    }
    println!("conformance: {} scenarios", scenarios.len());
    let mut memory_requests = 0;
    for b in &backends {
        let (requests, deviations) = findings
            .iter()
            .flat_map(|f| &f.tally)
            .filter(|(name, _, _)| *name == b.name)
            .fold((0, 0), |(r, d), (_, n, dev)| (r + n, d + usize::from(*dev)));
        if b.kind == BackendKind::Memory {
            memory_requests = requests;
        }
        // Straight to stdout, past the test harness's capture: the summary shows on success too.
        let _ = writeln!(
            std::io::stdout(),
            "conformance: {} {requests} requests, {deviations} recorded deviations",
            b.name
        );
    }
    let problems: Vec<&String> = findings.iter().flat_map(|f| &f.problems).collect();
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
    assert!(
        memory_requests >= 600,
        "the suite should make at least 600 requests, made {memory_requests}"
    );
}
