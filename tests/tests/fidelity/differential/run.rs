//! Running a sequence on two stores, comparing every response, and shrinking a disagreement.
//!
//! Every response becomes a canonical text (items with their attributes sorted by name, set
//! members sorted, errors as kind and message), so two responses agree exactly when their texts
//! are equal. What DynamoDB leaves unspecified is left out of the text: the order of set members
//! and of BatchGetItem's items, and the order and page boundaries of a scan (a scan step compares
//! the union of every page of every segment).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use dyno_core::store::{
    BatchGetOutput, Capacity, GetOutput, Page, ScanRequest, Store, TableCapacity, TableNames,
    WriteOutput,
};
use dyno_core::value::SharedItem;
use dyno_core::{AttributeValue, Error, Item};

use super::generator::{tables, Op};

/// Pages a scan segment reads at most (a scan of these small tables ends far sooner).
const MAX_SCAN_PAGES: u32 = 200;

/// One request's response, as compared.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The canonical text of the result or error.
    pub text: String,
    /// Capacity consumed per table with its split between table and indexes, when the store
    /// reported it (a single-table request's under the table name `-`).
    pub capacity: Option<Vec<TableCapacity>>,
    /// The items of a query page, for explanations that look into them.
    pub items: Vec<SharedItem>,
    /// The messages of a cancelled transaction's reasons, in order (not compared: they are
    /// what explanations read).
    pub reasons: Vec<String>,
}

/// A step's responses: one per request it made (a query makes one per page).
pub type Outcome = Vec<Response>;

/// Two stores given the same steps.
#[derive(Debug, Clone)]
pub struct Engines {
    /// The store under test (MemoryStore), made fresh for every run.
    pub subject: fn() -> Arc<dyn Store>,
    /// The reference (dynoxide); every run uses tables of its own on it.
    pub reference: Arc<dyn Store>,
    /// Says why a disagreement is no MemoryStore bug (a documented deviation of the reference),
    /// or `None`.
    pub explain: fn(&Op, &Outcome, &Outcome) -> Option<Explained>,
    /// Says why a step both stores answer alike may still leave their tables different (a
    /// documented deviation of the reference in what it stores), or `None`: the sequence ends
    /// there, counted under that explanation.
    pub diverges: fn(&Op) -> Option<&'static str>,
}

/// A disagreement that is no MemoryStore bug.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Explained {
    /// Why, citing DynamoDB's documentation.
    pub why: &'static str,
    /// True when both stores changed their tables alike (or not at all), so the sequence can go
    /// on; otherwise it ends there.
    pub same_state: bool,
}

/// Where and how the two stores first disagreed in a run.
#[derive(Debug, Clone)]
pub struct Disagreement {
    /// Index of the step.
    pub step: usize,
    /// The subject's responses to it.
    pub subject: Outcome,
    /// The reference's responses to it.
    pub reference: Outcome,
}

/// What a run found.
#[derive(Debug, Clone, Default)]
pub struct RunReport {
    /// Requests sent to each store.
    pub requests: u64,
    /// The first disagreement, if any.
    pub disagreement: Option<Disagreement>,
    /// Responses where the reference reported consumed capacity and the subject did not.
    pub capacity_unreported: u64,
    /// Explained disagreements, by explanation.
    pub explained: BTreeMap<&'static str, u64>,
}

static RUNS: AtomicU64 = AtomicU64::new(0);

impl Engines {
    /// Runs `ops` on fresh tables of both stores, stopping at the first disagreement.
    pub async fn run(&self, ops: &[Op]) -> RunReport {
        let prefix = format!(
            "diff{}-{}-{:06x}-",
            std::process::id(),
            RUNS.fetch_add(1, Ordering::Relaxed),
            fastrand::u32(..1 << 24)
        );
        let subject = TableNames::new((self.subject)()).prefix(&prefix);
        let reference = TableNames::new(self.reference.clone()).prefix(&prefix);
        for def in tables() {
            subject
                .create_table(&def)
                .await
                .expect("create table on the subject");
            reference
                .create_table(&def)
                .await
                .expect("create table on the reference");
        }
        let mut report = RunReport::default();
        for (step, op) in ops.iter().enumerate() {
            let ours = execute(&subject, op).await;
            let theirs = execute(&reference, op).await;
            report.requests += theirs.len() as u64;
            report.capacity_unreported += ours
                .iter()
                .zip(&theirs)
                .filter(|(o, t)| o.capacity.is_none() && t.capacity.is_some())
                .count() as u64;
            if agree(&ours, &theirs) {
                if let Some(why) = (self.diverges)(op) {
                    *report.explained.entry(why).or_default() += 1;
                    break;
                }
                continue;
            }
            let explained = (self.explain)(op, &ours, &theirs);
            if dump() {
                eprintln!(
                    "differential: {} at step {step}: {op:?}\n  subject:   {:?}\n  reference: {:?}",
                    explained.as_ref().map_or("UNEXPLAINED", |e| e.why),
                    ours.iter()
                        .map(|r| (&r.text, &r.capacity))
                        .collect::<Vec<_>>(),
                    theirs
                        .iter()
                        .map(|r| (&r.text, &r.capacity))
                        .collect::<Vec<_>>(),
                );
            }
            if let Some(explained) = explained {
                *report.explained.entry(explained.why).or_default() += 1;
                let failed = |o: &Outcome| o.iter().all(|r| r.text.starts_with("err "));
                let unchanged = explained.same_state || (failed(&ours) && failed(&theirs));
                if !unchanged {
                    // Their tables may differ from here on.
                    break;
                }
            } else {
                report.disagreement = Some(Disagreement {
                    step,
                    subject: ours,
                    reference: theirs,
                });
                break;
            }
        }
        for def in tables() {
            // Best effort: the reference server outlives the test anyway.
            let _ = reference.delete_table(&def.name).await;
        }
        report
    }

    /// Shrinks a failing sequence (its disagreement at its last step) to a 1-minimal one by delta
    /// debugging: chunks of the steps before the last are dropped while the last step still
    /// disagrees, the chunk size halving down to single steps. At most `budget` runs.
    pub async fn shrink(&self, failing: &[Op], budget: u32) -> (Vec<Op>, Disagreement) {
        let (last, before) = failing
            .split_last()
            .expect("a failing sequence is not empty");
        let mut kept: Vec<Op> = before.to_vec();
        let mut best = None;
        let mut runs = 0;
        let mut chunk = kept.len().div_ceil(2).max(1);
        'outer: while !kept.is_empty() {
            let mut start = 0;
            let mut removed_any = false;
            while start < kept.len() {
                if runs >= budget {
                    break 'outer;
                }
                runs += 1;
                let end = (start + chunk).min(kept.len());
                let candidate: Vec<Op> =
                    kept[..start].iter().chain(&kept[end..]).cloned().collect();
                match self.fails_at_last(&candidate, last).await {
                    Some(d) => {
                        kept = candidate;
                        best = Some(d);
                        removed_any = true;
                    }
                    None => start = end,
                }
            }
            if chunk == 1 && !removed_any {
                break;
            }
            if !removed_any {
                chunk = chunk.div_ceil(2);
            }
            chunk = chunk.min(kept.len()).max(1);
        }
        let disagreement = match best {
            Some(d) => d,
            None => self
                .fails_at_last(&kept, last)
                .await
                .expect("the failing sequence fails when replayed"),
        };
        kept.push(last.clone());
        (kept, disagreement)
    }

    /// The disagreement at `last` after `before`, when that is where the run first disagrees.
    async fn fails_at_last(&self, before: &[Op], last: &Op) -> Option<Disagreement> {
        let mut ops = before.to_vec();
        ops.push(last.clone());
        self.run(&ops)
            .await
            .disagreement
            .filter(|d| d.step == before.len())
    }
}

/// True when the responses agree: the same texts (error messages compared by [`same_words`]),
/// and the same capacity wherever both report one: per table, split between the table and each
/// index as `ReturnConsumedCapacity = INDEXES` gives it.
pub fn agree(ours: &Outcome, theirs: &Outcome) -> bool {
    ours.len() == theirs.len()
        && ours.iter().zip(theirs).all(|(o, t)| {
            same_words(&o.text, &t.text)
                && match (&o.capacity, &t.capacity) {
                    (Some(a), Some(b)) => a == b,
                    _ => true,
                }
        })
}

/// A single-table request's capacity, as the per-table list responses are compared by.
fn one_table(capacity: Option<Capacity>) -> Option<Vec<TableCapacity>> {
    capacity.map(|capacity| {
        vec![TableCapacity {
            table: "-".to_owned(),
            capacity,
        }]
    })
}

/// DynamoDB wraps some request-validation errors of PutItem, UpdateItem and DeleteItem in this
/// envelope and not others (dynoxide follows captured responses); the words after it are what
/// is compared.
const ENVELOPE: &str = "1 validation error detected: ";

/// Two response texts agree when they are equal once the validation envelope is set aside, or
/// when ours is an error that says the reference's words and then where (`; path: [a]`,
/// `: 1E+126`, ` (at expression value)`): MemoryStore names the path or value at fault, which
/// DynamoDB leaves out.
pub fn same_words(ours: &str, theirs: &str) -> bool {
    if ours == theirs {
        return true;
    }
    let bare = |t: &str| t.replacen(ENVELOPE, "", 1);
    let (ours, theirs) = (bare(ours), bare(theirs));
    ours == theirs
        || (ours.starts_with("err ")
            && ours.strip_prefix(theirs.as_str()).is_some_and(|rest| {
                rest.starts_with("; ") || rest.starts_with(" (") || rest.starts_with(": ")
            }))
}

/// Sends one step's requests to `store`.
pub async fn execute(store: &dyn Store, op: &Op) -> Outcome {
    match op {
        Op::Put(r) => vec![write(store.put_item(r.clone()).await)],
        Op::Update(r) => vec![write(store.update_item(r.clone()).await)],
        Op::Delete(r) => vec![write(store.delete_item(r.clone()).await)],
        Op::Get(r) => vec![get(store.get_item(r.clone()).await)],
        Op::Query { request, max_pages } => {
            let mut request = request.clone();
            let mut out = Vec::new();
            for _ in 0..*max_pages {
                let result = store.query(request.clone()).await;
                let next = result
                    .as_ref()
                    .ok()
                    .and_then(|p| p.last_evaluated_key.clone());
                out.push(page(result));
                match next {
                    Some(key) => request.exclusive_start_key = Some(key),
                    None => break,
                }
            }
            out
        }
        Op::Scan(r) => vec![scan_all(store, r).await],
        Op::BatchGet(r) => vec![batch_get(store.batch_get(r.clone()).await)],
        Op::BatchWrite(r) => vec![match store.batch_write(r.clone()).await {
            Ok(out) => Response {
                capacity: out.consumed_capacity,
                ..plain(format!("ok unprocessed={}", out.unprocessed.len()))
            },
            Err(e) => plain(error(&e)),
        }],
        Op::TransactGet(r) => vec![match store.transact_get(r.clone()).await {
            Ok(out) => {
                let mut text = String::from("ok");
                for item in &out.items {
                    text.push_str(" | ");
                    match item {
                        Some(i) => text.push_str(&canon_item(i)),
                        None => text.push_str("absent"),
                    }
                }
                Response {
                    items: out.items.into_iter().flatten().collect(),
                    capacity: out.consumed_capacity,
                    ..plain(text)
                }
            }
            Err(e) => plain(error(&e)),
        }],
        Op::TransactWrite(r) => vec![match store.transact_write(r.clone()).await {
            Ok(out) => Response {
                capacity: out.consumed_capacity,
                ..plain("ok".into())
            },
            Err(e) => {
                let mut response = plain(error(&e));
                if let Error::TransactionCanceled { reasons } = &e {
                    response.reasons = reasons
                        .iter()
                        .map(|r| r.message.clone().unwrap_or_default())
                        .collect();
                }
                response
            }
        }],
    }
}

/// `DYNO_DIFF_DUMP=1`: print every disagreement met (explained or not) with both responses.
fn dump() -> bool {
    static DUMP: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *DUMP.get_or_init(|| std::env::var("DYNO_DIFF_DUMP").is_ok_and(|v| v == "1"))
}

/// Every segment of a scan, each paged to its end, as one response: the items of every page
/// (sorted), the counts summed, and the first error.
async fn scan_all(store: &dyn Store, request: &ScanRequest) -> Response {
    let segments = match request.segment {
        Some((_, total)) => (0..total).map(|s| Some((s, total))).collect(),
        None => vec![None],
    };
    let (mut items, mut count, mut scanned) = (Vec::new(), 0, 0);
    let mut all = Vec::new();
    let mut capacity: Option<Vec<TableCapacity>> = None;
    for segment in segments {
        let mut request = request.clone().with_segment(segment);
        for _ in 0..MAX_SCAN_PAGES {
            match store.scan(request.clone()).await {
                Ok(p) => {
                    items.extend(p.items.iter().map(|i| canon_item(i)));
                    all.extend(p.items);
                    count += p.count;
                    scanned += p.scanned_count;
                    if let Some(c) = p.consumed_capacity {
                        TableCapacity::charge(capacity.get_or_insert_with(Vec::new), "-", &c);
                    }
                    match p.last_evaluated_key {
                        Some(key) => request.exclusive_start_key = Some(key),
                        None => break,
                    }
                }
                Err(e) => return plain(error(&e)),
            }
        }
    }
    items.sort();
    Response {
        text: format!(
            "ok count={count} scanned={scanned} items=[{}]",
            items.join(", ")
        ),
        capacity,
        items: all,
        reasons: Vec::new(),
    }
}

fn plain(text: String) -> Response {
    Response {
        text,
        capacity: None,
        items: Vec::new(),
        reasons: Vec::new(),
    }
}

fn write(result: Result<WriteOutput, Error>) -> Response {
    match result {
        Ok(out) => Response {
            text: format!(
                "ok {}",
                out.attributes.as_ref().map_or("-".into(), canon_item)
            ),
            capacity: one_table(out.consumed_capacity),
            items: out.attributes.map(Arc::new).into_iter().collect(),
            reasons: Vec::new(),
        },
        Err(e) => plain(error(&e)),
    }
}

fn get(result: Result<GetOutput, Error>) -> Response {
    match result {
        Ok(out) => Response {
            text: format!(
                "ok {}",
                out.item.as_deref().map_or("absent".into(), canon_item)
            ),
            capacity: one_table(out.consumed_capacity),
            items: Vec::new(),
            reasons: Vec::new(),
        },
        Err(e) => plain(error(&e)),
    }
}

fn page(result: Result<Page, Error>) -> Response {
    match result {
        Ok(p) => {
            let items: Vec<String> = p.items.iter().map(|i| canon_item(i)).collect();
            Response {
                text: format!(
                    "ok count={} scanned={} items=[{}] last={}",
                    p.count,
                    p.scanned_count,
                    items.join(", "),
                    p.last_evaluated_key.as_ref().map_or("-".into(), canon_item)
                ),
                capacity: one_table(p.consumed_capacity),
                items: p.items,
                reasons: Vec::new(),
            }
        }
        Err(e) => plain(error(&e)),
    }
}

fn batch_get(result: Result<BatchGetOutput, Error>) -> Response {
    match result {
        Ok(out) => {
            let mut items: Vec<String> = out
                .items
                .iter()
                .map(|(t, i)| format!("{t}:{}", canon_item(i)))
                .collect();
            items.sort();
            Response {
                capacity: out.consumed_capacity,
                ..plain(format!(
                    "ok unprocessed={} items=[{}]",
                    out.unprocessed_keys.len(),
                    items.join(", ")
                ))
            }
        }
        Err(e) => plain(error(&e)),
    }
}

/// An error as kind and message (and the data a kind carries: the old item, the reasons).
pub fn error(e: &Error) -> String {
    match e {
        Error::ConditionFailed { item, .. } => format!(
            "err ConditionFailed item={}",
            item.as_ref().map_or("-".into(), canon_item)
        ),
        Error::TransactionCanceled { reasons } => {
            let mut text = String::from("err TransactionCanceled");
            for r in reasons {
                let _ = write!(
                    text,
                    " [{} {}]",
                    r.code.as_deref().unwrap_or("None"),
                    r.item.as_ref().map_or("-".into(), canon_item)
                );
            }
            text
        }
        Error::Validation { message } => format!("err Validation: {message}"),
        Error::ResourceNotFound { message } => format!("err ResourceNotFound: {message}"),
        Error::ItemTooLarge { .. } => "err ItemTooLarge".into(),
        other => format!("err {other}"),
    }
}

/// An item with its attributes sorted by name.
pub fn canon_item(item: &Item) -> String {
    let sorted: BTreeMap<&String, &AttributeValue> = item.iter().collect();
    let mut out = String::from("{");
    for (i, (k, v)) in sorted.into_iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{k:?}: {}", canon(v));
    }
    out.push('}');
    out
}

/// One value; set members sorted (DynamoDB keeps no order within a set).
pub fn canon(v: &AttributeValue) -> String {
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    match v {
        AttributeValue::S(s) => format!("S{s:?}"),
        AttributeValue::N(n) => format!("N({n})"),
        AttributeValue::B(b) => format!("B({})", hex(b.as_ref())),
        AttributeValue::Bool(b) => format!("BOOL({b})"),
        AttributeValue::Null(b) => format!("NULL({b})"),
        AttributeValue::Ss(xs) => {
            let mut xs: Vec<String> = xs.iter().map(|x| format!("{x:?}")).collect();
            xs.sort();
            format!("SS[{}]", xs.join(","))
        }
        AttributeValue::Ns(xs) => {
            let mut xs = xs.clone();
            xs.sort();
            format!("NS[{}]", xs.join(","))
        }
        AttributeValue::Bs(xs) => {
            let mut xs: Vec<String> = xs.iter().map(|x| hex(x.as_ref())).collect();
            xs.sort();
            format!("BS[{}]", xs.join(","))
        }
        AttributeValue::L(xs) => {
            let xs: Vec<String> = xs.iter().map(canon).collect();
            format!("L[{}]", xs.join(", "))
        }
        AttributeValue::M(m) => format!("M{}", canon_item(m)),
        other => format!("{other:?}"),
    }
}
