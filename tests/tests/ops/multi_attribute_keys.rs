//! Multi-attribute keys on a global secondary index, through the untyped API, on
//! every backend: up to four partition attributes and four sort attributes, each with its own
//! type. dynoxide (which implements them) is the reference; a server that lacks them is recorded
//! as a deviation and skipped, with the reason printed.
//!
//! The model: one table holding issues, tasks, comments and projects of several tenants. Issues
//! and tasks share the `ByStatus` index (partition `tenant` + `status`, sort `priority` (N) +
//! `created` (S)); comments and projects lack some of its attributes and stay out of it.
//! `ByBlob` (partition `tenant`, sort `digest` (B) + `seq` (N)) checks binary and number parts.

use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use dyno_core::expr::{KeyCondition, Path, SetValue, SortCondition, Update};
use dyno_core::store::{GetRequest, QueryRequest, ScanRequest, UpdateRequest};
use dyno_core::table::{IndexDef, KeyAttribute, ScalarType, TableDef};
use dyno_core::{AttributeValue, Error, Item, MemoryStore, Store};
use dyno_tests::backend::{
    backends, create_multi_attribute_table, put, unique_table_name, Backend, BackendKind,
};

const BY_STATUS: &str = "ByStatus";
const BY_BLOB: &str = "ByBlob";

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.into())
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.into())
}

fn b(v: &[u8]) -> AttributeValue {
    AttributeValue::B(v.to_vec().into())
}

fn by_status() -> IndexDef {
    IndexDef::multi(
        BY_STATUS,
        [
            KeyAttribute::string("tenant"),
            KeyAttribute::string("status"),
        ],
        [
            KeyAttribute::new("priority", ScalarType::N),
            KeyAttribute::string("created"),
        ],
    )
    .expect("a valid multi-attribute key schema")
}

fn by_blob() -> IndexDef {
    IndexDef::multi(
        BY_BLOB,
        [KeyAttribute::string("tenant")],
        [
            KeyAttribute::new("digest", ScalarType::B),
            KeyAttribute::new("seq", ScalarType::N),
        ],
    )
    .expect("a valid multi-attribute key schema")
}

fn table(name: &str) -> TableDef {
    TableDef::new(name, "PK", Some("SK"))
        .global_index(by_status())
        .global_index(by_blob())
}

/// An issue or a task (the two shapes in `ByStatus`), as the model knows it.
#[derive(Debug, Clone, PartialEq)]
struct Work {
    kind: &'static str,
    id: String,
    tenant: &'static str,
    status: &'static str,
    priority: &'static str,
    created: &'static str,
}

impl Work {
    fn item(&self) -> Item {
        let mut item = Item::from([
            ("PK".to_owned(), s(&format!("TENANT#{}", self.tenant))),
            ("SK".to_owned(), s(&format!("{}#{}", self.kind, self.id))),
            ("_type".to_owned(), s(self.kind)),
            ("tenant".to_owned(), s(self.tenant)),
            ("status".to_owned(), s(self.status)),
            ("priority".to_owned(), n(self.priority)),
            ("created".to_owned(), s(self.created)),
        ]);
        let extra = if self.kind == "ISSUE" {
            "title"
        } else {
            "assignee"
        };
        item.insert(extra.to_owned(), s(&format!("{} of {}", extra, self.id)));
        item
    }

    fn sk(&self) -> String {
        format!("{}#{}", self.kind, self.id)
    }

    fn priority(&self) -> f64 {
        self.priority.parse().expect("a number")
    }

    /// `ByStatus` order: priority numerically, then created bytewise, then (for equal index
    /// keys) the table key.
    fn cmp_index(&self, other: &Work) -> Ordering {
        self.priority()
            .total_cmp(&other.priority())
            .then_with(|| self.created.cmp(other.created))
            .then_with(|| {
                (format!("TENANT#{}", self.tenant), self.sk())
                    .cmp(&(format!("TENANT#{}", other.tenant), other.sk()))
            })
    }
}

/// The work items: priorities whose string order is not their numeric order (10 < 2 < 9.5 as
/// strings), negative and fractional ones, equal priorities with several dates, two tenants, two
/// statuses, and two index entries with equal keys (same priority and date).
fn work() -> Vec<Work> {
    let rows: [(&str, &str, &str, &str, &str, &str); 12] = [
        ("ISSUE", "1", "acme", "open", "2", "2025-01-10"),
        ("ISSUE", "2", "acme", "open", "10", "2025-01-05"),
        ("TASK", "3", "acme", "open", "2", "2025-02-01"),
        ("TASK", "4", "acme", "open", "-1", "2025-03-01"),
        ("ISSUE", "5", "acme", "open", "9.5", "2025-01-20"),
        ("TASK", "6", "acme", "open", "2", "2025-01-10"),
        ("ISSUE", "7", "acme", "closed", "2", "2025-01-10"),
        ("TASK", "8", "acme", "closed", "1", "2024-12-31"),
        ("ISSUE", "9", "globex", "open", "2", "2025-01-10"),
        ("TASK", "10", "acme", "open", "0.5", "2025-01-01"),
        ("ISSUE", "11", "acme", "open", "2", "2025-01-15"),
        ("TASK", "12", "acme", "open", "100", "2024-06-01"),
    ];
    rows.iter()
        .map(|&(kind, id, tenant, status, priority, created)| Work {
            kind,
            id: id.to_owned(),
            tenant,
            status,
            priority,
            created,
        })
        .collect()
}

/// Items that share the table's keys but not the whole index key: a comment (no status, no
/// priority) and a project (no priority), and an issue whose `created` is missing.
fn outsiders() -> Vec<Item> {
    vec![
        Item::from([
            ("PK".to_owned(), s("TENANT#acme")),
            ("SK".to_owned(), s("ISSUE#1#COMMENT#1")),
            ("_type".to_owned(), s("COMMENT")),
            ("tenant".to_owned(), s("acme")),
            ("created".to_owned(), s("2025-01-11")),
        ]),
        Item::from([
            ("PK".to_owned(), s("TENANT#acme")),
            ("SK".to_owned(), s("PROJECT#p1")),
            ("_type".to_owned(), s("PROJECT")),
            ("tenant".to_owned(), s("acme")),
            ("status".to_owned(), s("open")),
            ("created".to_owned(), s("2025-01-01")),
        ]),
        Item::from([
            ("PK".to_owned(), s("TENANT#acme")),
            ("SK".to_owned(), s("ISSUE#draft")),
            ("_type".to_owned(), s("ISSUE")),
            ("tenant".to_owned(), s("acme")),
            ("status".to_owned(), s("open")),
            ("priority".to_owned(), n("2")),
        ]),
    ]
}

/// Creates the table on `backend`, or says why the backend lacks multi-attribute keys: the
/// table is refused, or a query through the index does not answer as the key schema says.
async fn create(backend: &Backend, name: &str) -> Result<(), String> {
    let store = &backend.store;
    if let Err(e) = store.create_table(&table(name)).await {
        return Err(format!(
            "CreateTable with a multi-attribute GSI key fails: {e}"
        ));
    }
    let described = store
        .describe_table(name)
        .await
        .map_err(|e| format!("DescribeTable fails: {e}"))?;
    let index = described.definition.index(BY_STATUS).cloned();
    if index
        .as_ref()
        .map(|i| (i.partition_keys().count(), i.sort_keys().count()))
        != Some((2, 2))
    {
        return Err(format!("DescribeTable shows the index as {index:?}"));
    }
    Ok(())
}

/// The backends that implement multi-attribute keys, each with a fresh table; the others are
/// printed as deviations.
async fn tables(prefix: &str) -> Vec<(Backend, String)> {
    let mut out = Vec::new();
    for backend in backends().await {
        let name = unique_table_name(prefix);
        match create(&backend, &name).await {
            Ok(()) => out.push((backend, name)),
            Err(reason) => {
                assert!(
                    backend.kind != BackendKind::Memory && backend.kind != BackendKind::Dynoxide,
                    "{}: multi-attribute keys must work here: {reason}",
                    backend.name
                );
                println!(
                    "deviation: {} lacks multi-attribute GSI keys, skipped: {reason}",
                    backend.name
                );
                let _ = backend.store.delete_table(&name).await;
            }
        }
    }
    out
}

async fn load(store: &dyn Store, table: &str) {
    for w in work() {
        store.put_item(put(table, w.item())).await.expect("put");
    }
    for item in outsiders() {
        store.put_item(put(table, item)).await.expect("put");
    }
}

fn query(table: &str, key: KeyCondition) -> QueryRequest {
    QueryRequest::new(table, Some(BY_STATUS), key)
}

fn open_acme() -> KeyCondition {
    KeyCondition::partition("tenant", s("acme")).and_partition("status", s("open"))
}

/// Every page of a query, followed to the end; each page's `LastEvaluatedKey` checked to hold
/// exactly the index's and the table's key attributes.
async fn all_pages(store: &Arc<dyn Store>, request: QueryRequest) -> Vec<Item> {
    try_all_pages(store, request).await.expect("query")
}

/// [`all_pages`], handing back a failed request's error.
async fn try_all_pages(
    store: &Arc<dyn Store>,
    mut request: QueryRequest,
) -> dyno_core::Result<Vec<Item>> {
    let mut out = Vec::new();
    for _ in 0..100 {
        let page = store.query(request.clone()).await?;
        out.extend(page.items.iter().map(|i| (**i).clone()));
        match page.last_evaluated_key {
            None => return Ok(out),
            Some(key) => {
                let names: BTreeSet<&str> = key.keys().map(String::as_str).collect();
                let index = request.index.as_deref();
                let expected: BTreeSet<&str> = match index {
                    Some(BY_STATUS) => ["PK", "SK", "tenant", "status", "priority", "created"],
                    _ => unreachable!("only ByStatus is paged here"),
                }
                .into();
                assert_eq!(names, expected, "LastEvaluatedKey {key:?}");
                request.exclusive_start_key = Some(key);
            }
        }
    }
    panic!("a query of a dozen items did not end within 100 pages");
}

fn sks(items: &[Item]) -> Vec<String> {
    items
        .iter()
        .map(|i| match i.get("SK") {
            Some(AttributeValue::S(v)) => v.clone(),
            other => panic!("SK {other:?}"),
        })
        .collect()
}

/// The expected `ByStatus` result: the model's items in the partition that `keep` accepts, in
/// index order.
fn expected(tenant: &str, status: &str, keep: impl Fn(&Work) -> bool) -> Vec<String> {
    let mut rows: Vec<Work> = work()
        .into_iter()
        .filter(|w| w.tenant == tenant && w.status == status && keep(w))
        .collect();
    rows.sort_by(Work::cmp_index);
    rows.iter().map(Work::sk).collect()
}

#[tokio::test]
async fn items_are_indexed_by_every_attribute_and_ordered_part_by_part() {
    for (backend, t) in tables("multi-order").await {
        let store = &backend.store;
        load(store, &t).await;
        let who = backend.name;

        // The whole partition: both shapes, numbers in numeric order, equal priorities by date,
        // equal index keys by table key; the comment, the project and the dateless issue absent.
        let full = all_pages(store, query(&t, open_acme())).await;
        assert_eq!(sks(&full), expected("acme", "open", |_| true), "{who}");
        let types: BTreeSet<String> = full.iter().map(|i| format!("{:?}", i["_type"])).collect();
        assert_eq!(types.len(), 2, "{who}: issues and tasks share the index");

        // Descending.
        let mut desc = query(&t, open_acme());
        desc.scan_forward = false;
        let mut reversed = expected("acme", "open", |_| true);
        reversed.reverse();
        assert_eq!(sks(&all_pages(store, desc).await), reversed, "{who}");

        // Other partitions of the same index: another status, another tenant.
        let closed =
            KeyCondition::partition("tenant", s("acme")).and_partition("status", s("closed"));
        assert_eq!(
            sks(&all_pages(store, query(&t, closed)).await),
            expected("acme", "closed", |_| true),
            "{who}"
        );
        let globex =
            KeyCondition::partition("tenant", s("globex")).and_partition("status", s("open"));
        assert_eq!(
            sks(&all_pages(store, query(&t, globex)).await),
            expected("globex", "open", |_| true),
            "{who}"
        );

        // The partition attributes may be given in any order.
        let swapped =
            KeyCondition::partition("status", s("open")).and_partition("tenant", s("acme"));
        assert_eq!(
            sks(&all_pages(store, query(&t, swapped)).await),
            sks(&full),
            "{who}"
        );

        // A scan of the index sees every indexed item once, and nothing else.
        let mut scanned = Vec::new();
        let mut scan = ScanRequest::new(t.clone())
            .with_index(Some(BY_STATUS))
            .with_limit(Some(3));
        for _ in 0..50 {
            let page = store.scan(scan.clone()).await.expect("scan");
            scanned.extend(sks(&page
                .items
                .iter()
                .map(|i| (**i).clone())
                .collect::<Vec<_>>()));
            match page.last_evaluated_key {
                Some(k) => scan.exclusive_start_key = Some(k),
                None => break,
            }
        }
        scanned.sort();
        let mut all: Vec<String> = work().iter().map(Work::sk).collect();
        all.sort();
        assert_eq!(scanned, all, "{who}: the index scan");
        let _ = store.delete_table(&t).await;
    }
}

#[tokio::test]
async fn every_valid_key_condition_shape_reads_its_range() {
    type Keep = fn(&Work) -> bool;
    for (backend, t) in tables("multi-shapes").await {
        let store = &backend.store;
        load(store, &t).await;
        let who = backend.name;
        let shapes: Vec<(&str, KeyCondition, Keep)> = vec![
            (
                "priority = 2",
                open_acme().sort("priority", SortCondition::Eq(n("2"))),
                |w| w.priority() == 2.0,
            ),
            (
                "priority = 2.0 (numbers compare by value)",
                open_acme().sort("priority", SortCondition::Eq(n("2.0"))),
                |w| w.priority() == 2.0,
            ),
            (
                "priority < 2",
                open_acme().sort("priority", SortCondition::Lt(n("2"))),
                |w| w.priority() < 2.0,
            ),
            (
                "priority <= 2",
                open_acme().sort("priority", SortCondition::Le(n("2"))),
                |w| w.priority() <= 2.0,
            ),
            (
                "priority > 2",
                open_acme().sort("priority", SortCondition::Gt(n("2"))),
                |w| w.priority() > 2.0,
            ),
            (
                "priority >= 9.5",
                open_acme().sort("priority", SortCondition::Ge(n("9.5"))),
                |w| w.priority() >= 9.5,
            ),
            (
                "priority between 0 and 10",
                open_acme().sort("priority", SortCondition::Between(n("0"), n("10"))),
                |w| (0.0..=10.0).contains(&w.priority()),
            ),
            (
                "priority = 2 and created = 2025-01-10",
                open_acme()
                    .sort("priority", SortCondition::Eq(n("2")))
                    .sort("created", SortCondition::Eq(s("2025-01-10"))),
                |w| w.priority() == 2.0 && w.created == "2025-01-10",
            ),
            (
                "priority = 2 and created > 2025-01-10",
                open_acme()
                    .sort("priority", SortCondition::Eq(n("2")))
                    .sort("created", SortCondition::Gt(s("2025-01-10"))),
                |w| w.priority() == 2.0 && w.created > "2025-01-10",
            ),
            (
                "priority = 2 and created >= 2025-01-10",
                open_acme()
                    .sort("priority", SortCondition::Eq(n("2")))
                    .sort("created", SortCondition::Ge(s("2025-01-10"))),
                |w| w.priority() == 2.0 && w.created >= "2025-01-10",
            ),
            (
                "priority = 2 and created < 2025-01-15",
                open_acme()
                    .sort("priority", SortCondition::Eq(n("2")))
                    .sort("created", SortCondition::Lt(s("2025-01-15"))),
                |w| w.priority() == 2.0 && w.created < "2025-01-15",
            ),
            (
                "priority = 2 and created <= 2025-01-15",
                open_acme()
                    .sort("priority", SortCondition::Eq(n("2")))
                    .sort("created", SortCondition::Le(s("2025-01-15"))),
                |w| w.priority() == 2.0 && w.created <= "2025-01-15",
            ),
            (
                "priority = 2 and created between",
                open_acme()
                    .sort("priority", SortCondition::Eq(n("2")))
                    .sort(
                        "created",
                        SortCondition::Between(s("2025-01-11"), s("2025-02-01")),
                    ),
                |w| w.priority() == 2.0 && ("2025-01-11"..="2025-02-01").contains(&w.created),
            ),
            (
                "priority = 2 and begins_with(created, 2025-01)",
                open_acme()
                    .sort("priority", SortCondition::Eq(n("2")))
                    .sort("created", SortCondition::BeginsWith(s("2025-01"))),
                |w| w.priority() == 2.0 && w.created.starts_with("2025-01"),
            ),
            (
                "sort conditions given in any order",
                open_acme()
                    .sort("created", SortCondition::Lt(s("2025-02")))
                    .sort("priority", SortCondition::Eq(n("2"))),
                |w| w.priority() == 2.0 && w.created < "2025-02",
            ),
        ];
        for (what, key, keep) in shapes {
            let want = expected("acme", "open", keep);
            // Whole, then a page of 2 at a time, then backwards.
            let got = all_pages(store, query(&t, key.clone())).await;
            assert_eq!(sks(&got), want, "{who}: {what}");
            let mut paged = query(&t, key.clone());
            paged.limit = Some(2);
            assert_eq!(
                sks(&all_pages(store, paged).await),
                want,
                "{who}: {what}, paged"
            );
            let mut back = query(&t, key);
            back.scan_forward = false;
            back.limit = Some(3);
            let mut reversed = want.clone();
            reversed.reverse();
            assert_eq!(
                sks(&all_pages(store, back).await),
                reversed,
                "{who}: {what}, descending"
            );
        }
        let _ = store.delete_table(&t).await;
    }
}

#[tokio::test]
async fn binary_and_number_parts_order_by_their_types() {
    for (backend, t) in tables("multi-binary").await {
        let store = &backend.store;
        let who = backend.name;
        // Digests with zero bytes and prefixes of each other; seq numbers out of string order.
        let rows: [(&[u8], &str); 7] = [
            (&[1, 0], "10"),
            (&[1], "2"),
            (&[1, 0], "9"),
            (&[0xff], "1"),
            (&[1, 0, 0], "1"),
            (&[0], "-5"),
            (&[1], "-2.5"),
        ];
        for (i, (digest, seq)) in rows.iter().enumerate() {
            let item = Item::from([
                ("PK".to_owned(), s("BLOB")),
                ("SK".to_owned(), s(&format!("{i:02}"))),
                ("tenant".to_owned(), s("acme")),
                ("digest".to_owned(), b(digest)),
                ("seq".to_owned(), n(seq)),
            ]);
            store.put_item(put(&t, item)).await.expect("put");
        }
        let mut want: Vec<(Vec<u8>, f64, String)> = rows
            .iter()
            .enumerate()
            .map(|(i, (d, q))| (d.to_vec(), q.parse().unwrap(), format!("{i:02}")))
            .collect();
        want.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
        let run = |key: KeyCondition| QueryRequest::new(&t, Some(BY_BLOB), key);
        let page = store
            .query(run(KeyCondition::partition("tenant", s("acme"))))
            .await
            .expect("query");
        let order: Vec<String> = want.iter().map(|w| w.2.clone()).collect();
        assert_eq!(
            sks(&page.items.iter().map(|i| (**i).clone()).collect::<Vec<_>>()),
            order,
            "{who}"
        );
        // begins_with on the binary part, and a range on the number part after it.
        let page = store
            .query(run(KeyCondition::partition("tenant", s("acme"))
                .sort("digest", SortCondition::BeginsWith(b(&[1, 0])))))
            .await
            .expect("query");
        let prefixed: Vec<String> = want
            .iter()
            .filter(|w| w.0.starts_with(&[1, 0]))
            .map(|w| w.2.clone())
            .collect();
        assert_eq!(
            sks(&page.items.iter().map(|i| (**i).clone()).collect::<Vec<_>>()),
            prefixed,
            "{who}"
        );
        let page = store
            .query(run(KeyCondition::partition("tenant", s("acme"))
                .sort("digest", SortCondition::Eq(b(&[1, 0])))
                .sort("seq", SortCondition::Gt(n("9")))))
            .await
            .expect("query");
        let above: Vec<String> = want
            .iter()
            .filter(|w| w.0 == [1, 0] && w.1 > 9.0)
            .map(|w| w.2.clone())
            .collect();
        assert_eq!(
            sks(&page.items.iter().map(|i| (**i).clone()).collect::<Vec<_>>()),
            above,
            "{who}"
        );
        let _ = store.delete_table(&t).await;
    }
}

/// True for the backends that validate requests as DynamoDB does (MemoryStore and the
/// reference); a lax server's other answers are printed as deviations.
fn strict(kind: BackendKind) -> bool {
    matches!(kind, BackendKind::Memory | BackendKind::Dynoxide)
}

/// Checks that a request failed validation with a message starting with `want`; on a lax
/// server another answer is printed as a deviation.
fn refused<T: std::fmt::Debug>(
    backend: &Backend,
    what: &str,
    got: dyno_core::Result<T>,
    want: &str,
) {
    match got {
        Err(Error::Validation { message }) if message.starts_with(want) => {}
        other if !strict(backend.kind) => {
            println!("deviation: {} answers {what} with {other:?}", backend.name);
        }
        other => panic!("{}: {what}: {other:?} (expected {want:?})", backend.name),
    }
}

#[tokio::test]
async fn malformed_key_conditions_are_refused_with_dynamodbs_messages() {
    for (backend, t) in tables("multi-invalid").await {
        let store = &backend.store;
        load(store, &t).await;
        let acme = || KeyCondition::partition("tenant", s("acme"));
        let cases: Vec<(&str, KeyCondition, &str)> = vec![
            (
                "a partition attribute missing",
                acme(),
                "HASH key attributes status must have equality conditions specified in the query",
            ),
            (
                "a sort condition without the partition",
                acme().sort("priority", SortCondition::Eq(n("2"))),
                "HASH key attributes status must have equality conditions specified in the query",
            ),
            (
                "a range on a partition attribute",
                acme().sort("status", SortCondition::Gt(s("a"))),
                "HASH key attributes status must have equality conditions specified in the query",
            ),
            (
                "a sort attribute skipped",
                open_acme().sort("created", SortCondition::Ge(s("2025"))),
                "RANGE key attributes priority must have equality conditions specified in the query because a condition is present on key attribute created",
            ),
            (
                "a range on a sort attribute that is not the last",
                open_acme()
                    .sort("priority", SortCondition::Gt(n("1")))
                    .sort("created", SortCondition::Eq(s("2025-01-10"))),
                "RANGE key attributes priority must have equality conditions specified in the query because a condition is present on key attribute created",
            ),
            (
                "an attribute outside the key",
                open_acme().sort("title", SortCondition::Eq(s("x"))),
                "Query condition missed key schema element: priority",
            ),
            (
                "more conditions than key attributes",
                open_acme()
                    .and_partition("title", s("x"))
                    .sort("priority", SortCondition::Eq(n("2")))
                    .sort("created", SortCondition::Eq(s("x"))),
                "The number of query conditions (5) exceeds the number of key attributes defined in the schema (4)",
            ),
            (
                "two conditions on one attribute",
                open_acme()
                    .sort("priority", SortCondition::Gt(n("1")))
                    .sort("priority", SortCondition::Lt(n("5"))),
                "Invalid KeyConditionExpression: KeyConditionExpressions must only contain one condition per key",
            ),
            (
                "a string for a number attribute",
                open_acme().sort("priority", SortCondition::Eq(s("2"))),
                "One or more parameter values were invalid: Condition parameter type does not match schema type",
            ),
            (
                "a number for a string partition attribute",
                acme().and_partition("status", n("1")),
                "One or more parameter values were invalid: Condition parameter type does not match schema type",
            ),
        ];
        for (what, key, want) in cases {
            refused(&backend, what, store.query(query(&t, key)).await, want);
        }
        // A starting key from another partition of the index.
        let mut first = query(&t, open_acme());
        first.limit = Some(1);
        let page = store.query(first).await.expect("query");
        let start = page.last_evaluated_key.expect("more than one item");
        let mut other = query(
            &t,
            KeyCondition::partition("tenant", s("acme")).and_partition("status", s("closed")),
        );
        other.exclusive_start_key = Some(start.clone());
        refused(
            &backend,
            "a start key of another status",
            store.query(other).await,
            "The provided starting key is outside query boundaries",
        );
        let mut other = query(
            &t,
            KeyCondition::partition("tenant", s("globex")).and_partition("status", s("open")),
        );
        other.exclusive_start_key = Some(start);
        refused(
            &backend,
            "a start key of another tenant",
            store.query(other).await,
            "The query can return at most one row",
        );
        let _ = store.delete_table(&t).await;
    }
}

#[tokio::test]
async fn writes_check_each_key_attribute_and_keep_the_index_current() {
    for (backend, t) in tables("multi-writes").await {
        let store = &backend.store;
        let who = backend.name;
        let mut issue = work()[0].item();
        // A key attribute of the wrong type is refused, and nothing is written.
        issue.insert("priority".into(), s("high"));
        let got = store.put_item(put(&t, issue.clone())).await;
        refused(
            &backend,
            "a key part of another type",
            got,
            "One or more parameter values were invalid: Type mismatch for Index Key priority",
        );
        let key = Item::from([
            ("PK".to_owned(), issue["PK"].clone()),
            ("SK".to_owned(), issue["SK"].clone()),
        ]);
        let read = store
            .get_item(GetRequest::new(&t, key.clone()))
            .await
            .expect("get");
        assert!(
            read.item.is_none() || !strict(backend.kind),
            "{who}: the refused put wrote nothing"
        );
        // Each attribute has its own size limit: two partition parts of 2048 bytes each are
        // fine; one of 2049 bytes, or a sort part of 1025 bytes, is not.
        let big = "x".repeat(2048);
        let mut wide = work()[0].item();
        wide.insert("tenant".into(), s(&big));
        wide.insert("status".into(), s(&big));
        store
            .put_item(put(&t, wide))
            .await
            .unwrap_or_else(|e| panic!("{who}: {e}"));
        // dynoxide 3.2.0 checks no secondary index key's size (single-attribute ones neither):
        // a server that accepts these is a recorded deviation from DynamoDB's limits.
        let mut too_wide = work()[0].item();
        too_wide.insert("status".into(), s(&"x".repeat(2049)));
        let mut too_long = work()[0].item();
        too_long.insert("created".into(), s(&"x".repeat(1025)));
        for (what, item) in [
            ("a 2049-byte partition part", too_wide),
            ("a 1025-byte sort part", too_long),
        ] {
            match store.put_item(put(&t, item)).await {
                Err(Error::Validation { .. }) => {}
                Ok(_) if backend.kind.is_server() => {
                    println!("deviation: {who} accepts {what} of a multi-attribute index key");
                    store
                        .delete_item(dyno_core::store::DeleteRequest::new(t.clone(), key.clone()))
                        .await
                        .expect("delete");
                }
                other => panic!("{who}: {what}: {other:?}"),
            }
        }

        // An update of one key attribute moves the item to its new place in the index; removing
        // one takes it out.
        store
            .put_item(put(&t, work()[0].item()))
            .await
            .expect("put");
        let update = |u: Update| UpdateRequest::new(t.clone(), key.clone(), u);
        let in_partition = |status: &'static str| {
            let store = Arc::clone(store);
            let t = t.clone();
            async move {
                let q = QueryRequest::new(
                    &t,
                    Some(BY_STATUS),
                    KeyCondition::partition("tenant", s("acme")).and_partition("status", s(status)),
                );
                sks(&store
                    .query(q)
                    .await
                    .expect("query")
                    .items
                    .iter()
                    .map(|i| (**i).clone())
                    .collect::<Vec<_>>())
            }
        };
        assert_eq!(in_partition("open").await, ["ISSUE#1"], "{who}");
        store
            .update_item(update(Update {
                set: vec![(Path::attr("status"), SetValue::value(s("closed")))],
                ..Update::default()
            }))
            .await
            .expect("update");
        assert!(in_partition("open").await.is_empty(), "{who}");
        assert_eq!(in_partition("closed").await, ["ISSUE#1"], "{who}");
        store
            .update_item(update(Update {
                remove: vec![Path::attr("created")],
                ..Update::default()
            }))
            .await
            .expect("update");
        assert!(
            in_partition("closed").await.is_empty(),
            "{who}: a missing sort part"
        );
        let _ = store.delete_table(&t).await;
    }
}

#[tokio::test]
async fn create_table_checks_the_multi_attribute_key_schema() {
    let five = IndexDef {
        extra_partition_keys: ["b", "c", "d", "e"].map(KeyAttribute::string).to_vec(),
        ..IndexDef::new("Five", "a", None)
    };
    let twice = IndexDef {
        extra_sort_keys: vec![KeyAttribute::string("a")],
        ..IndexDef::new("Twice", "a", Some("s"))
    };
    let local = IndexDef {
        extra_sort_keys: vec![KeyAttribute::string("t")],
        ..IndexDef::new("Local", "PK", Some("s"))
    };
    assert!(IndexDef::multi("Five", five.partition_keys().cloned(), []).is_err());
    for backend in backends().await {
        for (what, def, want) in [
            (
                "five partition attributes",
                TableDef::new(unique_table_name("multi-five"), "PK", Some("SK"))
                    .global_index(five.clone()),
                "The KeySchema exceeds the maximum allowed number of HASH key attributes",
            ),
            (
                "an attribute twice",
                TableDef::new(unique_table_name("multi-twice"), "PK", Some("SK"))
                    .global_index(twice.clone()),
                "The KeySchema contains multiple key attributes with the same name",
            ),
            (
                "a multi-attribute local index",
                TableDef::new(unique_table_name("multi-local"), "PK", Some("SK"))
                    .local_index(local.clone()),
                "",
            ),
        ] {
            match backend.store.create_table(&def).await {
                Err(Error::Validation { message }) => {
                    if backend.kind == BackendKind::Memory || backend.kind == BackendKind::Dynoxide
                    {
                        assert!(
                            message.contains(want),
                            "{}: {what}: {message}",
                            backend.name
                        );
                    }
                }
                Ok(()) => {
                    let _ = backend.store.delete_table(&def.name).await;
                    assert!(
                        backend.kind != BackendKind::Memory
                            && backend.kind != BackendKind::Dynoxide,
                        "{}: {what} was accepted",
                        backend.name
                    );
                    println!(
                        "deviation: {} accepts a key schema with {what}",
                        backend.name
                    );
                }
                Err(other) => panic!("{}: {what}: {other:?}", backend.name),
            }
        }
    }
}

/// Many tasks move a few hot items between index partitions and sort positions while others
/// query: every query sees each item at most once, in order, and once the writers stop, the
/// index holds each item exactly where its last write put it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_moves_keep_each_item_once_in_the_index() {
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let t = "race";
    store.create_table(&table(t)).await.expect("create");
    const HOT: usize = 3;
    let statuses = ["open", "closed"];
    let item = |i: usize, status: &str, priority: u32| {
        Item::from([
            ("PK".to_owned(), s("TENANT#acme")),
            ("SK".to_owned(), s(&format!("TASK#{i}"))),
            ("tenant".to_owned(), s("acme")),
            ("status".to_owned(), s(status)),
            ("priority".to_owned(), n(&priority.to_string())),
            ("created".to_owned(), s("2025")),
        ])
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let mut writers = Vec::new();
    for w in 0..8u32 {
        let store = Arc::clone(&store);
        writers.push(tokio::spawn(async move {
            let mut last = Vec::new();
            for round in 0..200u32 {
                let i = (w as usize + round as usize) % HOT;
                let status = statuses[(round as usize + w as usize) % 2];
                let priority = (round * 7 + w) % 13;
                store
                    .put_item(put(t, item(i, status, priority)))
                    .await
                    .expect("put");
                last.push(i);
                if tokio::time::Instant::now() > deadline {
                    break;
                }
            }
            last
        }));
    }
    let mut readers = Vec::new();
    for r in 0..4 {
        let store = Arc::clone(&store);
        readers.push(tokio::spawn(async move {
            for _ in 0..200 {
                let q = QueryRequest::new(
                    t,
                    Some(BY_STATUS),
                    KeyCondition::partition("tenant", s("acme"))
                        .and_partition("status", s(statuses[r % 2])),
                );
                let page = store.query(q).await.expect("query");
                let seen = sks(&page.items.iter().map(|i| (**i).clone()).collect::<Vec<_>>());
                let unique: BTreeSet<&String> = seen.iter().collect();
                assert_eq!(
                    unique.len(),
                    seen.len(),
                    "an item twice in one partition: {seen:?}"
                );
                let priorities: Vec<u32> = page
                    .items
                    .iter()
                    .map(|i| match &i["priority"] {
                        AttributeValue::N(p) => p.parse().unwrap(),
                        _ => unreachable!(),
                    })
                    .collect();
                assert!(
                    priorities.windows(2).all(|w| w[0] <= w[1]),
                    "{priorities:?}"
                );
                if tokio::time::Instant::now() > deadline {
                    break;
                }
            }
        }));
    }
    for h in writers {
        tokio::time::timeout(Duration::from_secs(30), h)
            .await
            .expect("bounded")
            .expect("writer");
    }
    for h in readers {
        tokio::time::timeout(Duration::from_secs(30), h)
            .await
            .expect("bounded")
            .expect("reader");
    }
    // Quiescent: the index holds each item once, in the partition its stored status names.
    let mut indexed = Vec::new();
    for status in statuses {
        let q = QueryRequest::new(
            t,
            Some(BY_STATUS),
            KeyCondition::partition("tenant", s("acme")).and_partition("status", s(status)),
        );
        for i in store.query(q).await.expect("query").items {
            let key = Item::from([
                ("PK".to_owned(), i["PK"].clone()),
                ("SK".to_owned(), i["SK"].clone()),
            ]);
            let stored = store
                .get_item(GetRequest::new(t, key))
                .await
                .expect("get")
                .item;
            assert_eq!(
                stored.as_deref(),
                Some(&*i),
                "the index entry is the stored item"
            );
            assert_eq!(i["status"], s(status));
            indexed.push(sks(&[(*i).clone()])[0].clone());
        }
    }
    indexed.sort();
    let want: Vec<String> = {
        let mut v: Vec<String> = (0..HOT).map(|i| format!("TASK#{i}")).collect();
        v.sort();
        v
    };
    assert_eq!(indexed, want);
}

/// The query cache keys a multi-attribute partition by all its parts, whatever order a query
/// gives them in: a write that moves an item out of the partition invalidates the cached page.
#[tokio::test]
async fn the_query_cache_invalidates_multi_attribute_partitions() {
    let store = dyno_cache::CachedStore::new(MemoryStore::new());
    let t = "cached";
    store.create_table(&table(t)).await.expect("create");
    load(&store, t).await;
    // Two partitions that share their first part are two cache entries.
    let open = store.query(query(t, open_acme())).await.expect("query");
    let closed = KeyCondition::partition("tenant", s("acme")).and_partition("status", s("closed"));
    let closed = store.query(query(t, closed)).await.expect("query");
    assert_eq!(
        (open.items.len(), closed.items.len()),
        (
            expected("acme", "open", |_| true).len(),
            expected("acme", "closed", |_| true).len()
        )
    );
    for reversed in [false, true] {
        let key = || {
            if reversed {
                KeyCondition::partition("status", s("open")).and_partition("tenant", s("acme"))
            } else {
                open_acme()
            }
        };
        let before = store.query(query(t, key())).await.expect("query");
        let first = before.items[0].clone();
        // Cached now; move the first item to another status.
        let again = store.query(query(t, key())).await.expect("query");
        assert_eq!(again.items.len(), before.items.len());
        let pk_sk = Item::from([
            ("PK".to_owned(), first["PK"].clone()),
            ("SK".to_owned(), first["SK"].clone()),
        ]);
        store
            .update_item(UpdateRequest::new(
                t.to_owned(),
                pk_sk,
                Update {
                    set: vec![(Path::attr("status"), SetValue::value(s("archived")))],
                    ..Update::default()
                },
            ))
            .await
            .expect("update");
        let after = store.query(query(t, key())).await.expect("query");
        assert_eq!(
            after.items.len(),
            before.items.len() - 1,
            "reversed parts: {reversed}: a stale page was served"
        );
        assert!(!after.items.iter().any(|i| i["SK"] == first["SK"]));
    }
}

mod typed {
    //! `ops::Query` (the untyped query API over typed entities) on a multi-attribute index:
    //! entities decode, other entities sharing the index are skipped, pages and cursors work and
    //! a cursor is bound to its query's whole key condition.
    use dyno_core::ops::{EntityExt, Query};
    use dyno_core::{Entity, Table};

    use super::*;

    #[derive(Debug, Table)]
    #[dyno(name = "Tracker", pk = "PK", sk = "SK")]
    pub struct Tracker;

    #[derive(Debug, Clone, PartialEq, Entity)]
    #[dyno(table = Tracker, pk = "TENANT#{tenant}", sk = "ISSUE#{id}")]
    pub struct Issue {
        pub tenant: String,
        pub id: String,
        pub status: String,
        pub priority: i64,
        pub created: String,
    }

    #[derive(Debug, Clone, PartialEq, Entity)]
    #[dyno(table = Tracker, pk = "TENANT#{tenant}", sk = "TASK#{id}")]
    pub struct Task {
        pub tenant: String,
        pub id: String,
        pub status: String,
        pub priority: i64,
        pub created: String,
    }

    #[tokio::test]
    async fn entity_queries_read_a_multi_attribute_index() {
        let store = MemoryStore::new();
        let def = Tracker::definition().clone().global_index(by_status());
        store.create_table(&def).await.expect("create");
        let issue = |id: u32, status: &str, priority: i64| Issue {
            tenant: "acme".into(),
            id: id.to_string(),
            status: status.into(),
            priority,
            created: format!("2025-01-{id:02}"),
        };
        let mut want = Vec::new();
        for (id, status, priority) in [
            (1, "open", 10),
            (2, "open", 2),
            (3, "closed", 1),
            (4, "open", -3),
            (5, "open", 2),
        ] {
            let i = issue(id, status, priority);
            i.put().send(&store).await.expect("put");
            if status == "open" {
                want.push(i);
            }
        }
        for id in 10..13u32 {
            let task = Task {
                tenant: "acme".into(),
                id: id.to_string(),
                status: "open".into(),
                priority: 2,
                created: "2025-01-01".into(),
            };
            task.put().send(&store).await.expect("put");
        }
        want.sort_by(|a, b| (a.priority, &a.created).cmp(&(b.priority, &b.created)));
        let query = || Query::<Issue>::new("Tracker", Some(BY_STATUS), open_acme());
        assert_eq!(
            query().all(&store).await.expect("all"),
            want,
            "tasks skipped, issues in index order"
        );
        // Pages of two, followed by cursor to the end.
        let mut got = Vec::new();
        let mut cursor = None;
        for _ in 0..20 {
            let page = query()
                .page_size(2)
                .page(&store, cursor.as_ref())
                .await
                .expect("page");
            got.extend(page.items);
            cursor = page.cursor;
            if cursor.is_none() {
                break;
            }
        }
        assert_eq!(got, want);
        // A cursor of one partition does not resume another: the whole key condition binds it.
        let first = query().page_size(1).page(&store, None).await.expect("page");
        let cursor = first.cursor.expect("more pages");
        let closed = Query::<Issue>::new(
            "Tracker",
            Some(BY_STATUS),
            KeyCondition::partition("tenant", s("acme")).and_partition("status", s("closed")),
        );
        assert!(closed.page(&store, Some(&cursor)).await.is_err());
        // A sort condition on the leading attribute, then on both.
        let two = Query::<Issue>::new(
            "Tracker",
            Some(BY_STATUS),
            open_acme().sort("priority", SortCondition::Eq(n("2"))),
        )
        .all(&store)
        .await
        .expect("all");
        assert_eq!(
            two.iter().map(|i| i.id.as_str()).collect::<Vec<_>>(),
            ["2", "5"]
        );
        let later = Query::<Issue>::new(
            "Tracker",
            Some(BY_STATUS),
            open_acme()
                .sort("priority", SortCondition::Eq(n("2")))
                .sort("created", SortCondition::Gt(s("2025-01-02"))),
        )
        .descending()
        .all(&store)
        .await
        .expect("all");
        assert_eq!(
            later.iter().map(|i| i.id.as_str()).collect::<Vec<_>>(),
            ["5"]
        );
    }
}

/// UpdateTable adds a multi-attribute GSI to a table that already holds items: the backfill
/// indexes the items holding every key attribute with its type, leaves out the others (a
/// missing part, a part of another type), and writes from then on keep it current.
#[tokio::test]
async fn update_table_adds_a_multi_attribute_index() {
    for backend in backends().await {
        let store = &backend.store;
        let who = backend.name;
        let t = unique_table_name("multi-update");
        store
            .create_table(&TableDef::new(&t, "PK", Some("SK")))
            .await
            .expect("create");
        load(&**store, &t).await;
        // An item whose priority is a string: a key violation the backfill leaves out.
        let mut odd = work()[0].item();
        odd.insert("SK".into(), s("ISSUE#odd"));
        odd.insert("priority".into(), s("high"));
        store.put_item(put(&t, odd)).await.expect("put");
        let added = store
            .update_table(dyno_core::store::UpdateTableRequest::create_index(
                &t,
                by_status(),
            ))
            .await;
        if let Err(e) = added {
            assert!(
                backend.kind != BackendKind::Memory && backend.kind != BackendKind::Dynoxide,
                "{who}: {e}"
            );
            println!("deviation: {who} cannot add a multi-attribute GSI with UpdateTable: {e}");
            let _ = store.delete_table(&t).await;
            continue;
        }
        dyno_core::store::wait_for_indexes(&**store, &t, Duration::from_secs(30))
            .await
            .expect("the index becomes active");
        let backfilled = try_all_pages(store, query(&t, open_acme())).await;
        let mut backfilled = match backfilled {
            Ok(items) => sks(&items),
            Err(e) if !strict(backend.kind) => {
                println!("deviation: {who} fails a query of a GSI added by UpdateTable: {e}");
                let _ = store.delete_table(&t).await;
                continue;
            }
            Err(e) => panic!("{who}: {e}"),
        };
        if backend.kind.is_server() && backfilled.iter().any(|sk| sk == "ISSUE#odd") {
            // DynamoDB leaves index key violations out of a backfill (Developer Guide,
            // "Detecting and correcting index key violations"); dynoxide 3.2.0 indexes them.
            println!("deviation: {who} backfills an item whose index key part has another type");
            backfilled.retain(|sk| sk != "ISSUE#odd");
        }
        assert_eq!(
            backfilled,
            expected("acme", "open", |_| true),
            "{who}: backfilled"
        );
        let mut late = work()[0].clone();
        late.id = "late".into();
        late.priority = "-50";
        store.put_item(put(&t, late.item())).await.expect("put");
        let full = all_pages(store, query(&t, open_acme())).await;
        assert_eq!(
            sks(&full)[0],
            "ISSUE#late",
            "{who}: maintained after the backfill"
        );
        let _ = store.delete_table(&t).await;
    }
}

/// The typed API: `#[derive(Table)]` declares the multi-attribute index with typed
/// attribute lists, entities map fields onto it, and the generated queries take every partition
/// field and sort conditions left to right. Issues and tasks share `ByStatus` (a task stores its
/// optional state under `status`: sparse) and, as every entity here, the tenant's partition of
/// the table; comments share the partition and have no key in `ByStatus`; `GSI1` is a template
/// index beside it.
mod typed_api {
    use dyno_core::ops::sort_key::{AttributePart, Sk, SkDone};
    use dyno_core::prelude::*;
    use dyno_core::store::{QueryRequest, TableNames};
    use dyno_core::{Entity, KeyPart, Table};
    use futures::TryStreamExt;

    use super::*;

    #[derive(Table)]
    #[dyno(name = "Tracker", pk = "PK", sk = "SK")]
    #[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
    #[dyno(index(name = "ByStatus", pk = ["tenant", "status"], sk = ["priority:N", "created"]))]
    pub struct Tracker;

    #[derive(Debug, Clone, Copy, PartialEq, Eq, KeyPart)]
    pub enum Status {
        Open,
        Closed,
    }

    #[derive(Debug, Clone, PartialEq, Entity)]
    #[dyno(table = Tracker, pk = "TENANT#{tenant}", sk = "ISSUE#{id}")]
    #[dyno(index(ByStatus, pk = [tenant, status], sk = [priority, created]))]
    #[dyno(index(GSI1, pk = "AUTHOR#{author}", sk = "{created}"))]
    pub struct Issue {
        pub tenant: String,
        pub id: String,
        pub status: Status,
        pub priority: u32,
        pub created: String,
        pub author: String,
    }

    #[derive(Debug, Clone, PartialEq, Entity)]
    #[dyno(table = Tracker, pk = "TENANT#{tenant}", sk = "TASK#{id}")]
    #[dyno(index(ByStatus, pk = [tenant, state], sk = [rank, created]))]
    pub struct Task {
        pub tenant: String,
        pub id: String,
        /// `None`: a draft, not in `ByStatus`.
        #[dyno(rename = "status")]
        pub state: Option<Status>,
        #[dyno(rename = "priority")]
        pub rank: u8,
        pub created: String,
    }

    #[derive(Debug, Clone, PartialEq, Entity)]
    #[dyno(table = Tracker, pk = "TENANT#{tenant}", sk = "COMMENT#{id}")]
    pub struct Comment {
        pub tenant: String,
        pub id: String,
        /// Same attribute name as the index's, but no key in it: comments carry no `priority`
        /// or `created`, so they are never in `ByStatus`.
        pub status: String,
    }

    /// Issues and tasks in one partition of `ByStatus`: a collection on a multi-attribute
    /// index (DynamoDB indexes every item whose key attributes are present with their
    /// types, whatever its entity, so one query returns both).
    #[derive(Debug, Clone, PartialEq, dyno_core::Collection)]
    #[dyno(index = ByStatus)]
    pub enum Work {
        Issue(Issue),
        Task(Task),
    }

    fn issue(tenant: &str, id: &str, status: Status, priority: u32, created: &str) -> Issue {
        Issue {
            tenant: tenant.into(),
            id: id.into(),
            status,
            priority,
            created: created.into(),
            author: "ann".into(),
        }
    }

    fn task(id: &str, state: Option<Status>, rank: u8, created: &str) -> Task {
        Task {
            tenant: "acme".into(),
            id: id.into(),
            state,
            rank,
            created: created.into(),
        }
    }

    /// Each backend that implements multi-attribute keys, with the table created under a fresh
    /// name and the model loaded; the others are printed as deviations.
    async fn loaded() -> Vec<(&'static str, Arc<dyn Store>)> {
        let mut out = Vec::new();
        for backend in backends().await {
            let store: Arc<dyn Store> = Arc::new(
                TableNames::new(backend.store.clone())
                    .map("Tracker", unique_table_name("typed_multi")),
            );
            if !create_multi_attribute_table(&backend, &*store, Tracker::definition()).await {
                continue;
            }
            for (id, status, priority, created) in [
                ("1", Status::Open, 10, "2025-01-01"),
                ("2", Status::Open, 2, "2025-01-02"),
                ("3", Status::Open, 2, "2025-01-03"),
                ("4", Status::Closed, 2, "2025-01-04"),
                ("5", Status::Open, 2, "2025-02-01"),
            ] {
                issue("acme", id, status, priority, created)
                    .create()
                    .send(&*store)
                    .await
                    .unwrap();
            }
            // Same status and priorities in another tenant: another partition of the index.
            issue("initech", "1", Status::Open, 2, "2025-01-02")
                .create()
                .send(&*store)
                .await
                .unwrap();
            for t in [
                task("1", Some(Status::Open), 2, "2025-01-02"),
                task("2", None, 2, "2025-01-02"),
                task("3", Some(Status::Open), 3, "2025-01-01"),
            ] {
                t.create().send(&*store).await.unwrap();
            }
            let c = Comment {
                tenant: "acme".into(),
                id: "1".into(),
                status: "Open".into(),
            };
            c.create().send(&*store).await.unwrap();
            out.push((backend.name, store));
        }
        out
    }

    /// Acme's open issues at priority 2: a condition on `created` follows.
    fn at_priority_2() -> AttributePart<IssueByStatusQuery<Sk<1>>, String, SkDone> {
        Issue::by_status("acme", Status::Open)
            .priority()
            .eq(2u32)
            .created()
    }

    fn ids(issues: &[Issue]) -> Vec<&str> {
        issues.iter().map(|i| i.id.as_str()).collect()
    }

    #[test]
    fn the_table_declares_each_attribute_with_its_type() {
        let def = Tracker::definition();
        let index = def.index("ByStatus").expect("declared");
        let parts: Vec<(&str, ScalarType)> = index
            .partition_keys()
            .chain(index.sort_keys())
            .map(|k| (k.name.as_str(), k.ty))
            .collect();
        assert_eq!(
            parts,
            [
                ("tenant", ScalarType::S),
                ("status", ScalarType::S),
                ("priority", ScalarType::N),
                ("created", ScalarType::S)
            ]
        );
        assert_eq!(Tracker::BY_STATUS.partition_attributes.len(), 2);
        assert_eq!(
            Tracker::BY_STATUS.sort_attributes[0],
            ("priority", ScalarType::N)
        );
        // The template index is one string attribute each.
        assert_eq!(
            Tracker::GSI1.partition_attributes,
            &[("GSI1PK", ScalarType::S)]
        );
    }

    #[test]
    fn typed_queries_send_every_partition_attribute_and_the_sort_conditions_in_order() {
        let q = Issue::by_status("acme", Status::Open)
            .priority()
            .eq(2u32)
            .created()
            .ge("2025-01-03")
            .into_query()
            .unwrap();
        let key = &q.request().key_condition;
        let partition: Vec<(&String, &AttributeValue)> = key.partition_parts().collect();
        assert_eq!(
            partition,
            [
                (&"tenant".to_owned(), &s("acme")),
                (&"status".to_owned(), &s("Open"))
            ]
        );
        let sort: Vec<&(String, SortCondition)> = key.sort_parts().collect();
        assert_eq!(
            sort,
            [
                &("priority".to_owned(), SortCondition::Eq(n("2"))),
                &("created".to_owned(), SortCondition::Ge(s("2025-01-03")))
            ]
        );
        assert_eq!(q.request().index.as_deref(), Some("ByStatus"));
    }

    #[tokio::test]
    async fn typed_queries_read_the_index_part_by_part_on_every_backend() {
        for (who, store) in loaded().await {
            let store = &*store;
            // Every open issue of acme, by priority then created; tasks and comments skipped,
            // initech's issue in another partition.
            let open = Issue::by_status("acme", Status::Open)
                .all(store)
                .await
                .unwrap();
            assert_eq!(ids(&open), ["2", "3", "5", "1"], "{who}");
            // Equality on priority, a range on created.
            let from = at_priority_2().ge("2025-01-03").all(store).await.unwrap();
            assert_eq!(ids(&from), ["3", "5"], "{who}");
            let january = at_priority_2()
                .begins_with("2025-01")
                .all(store)
                .await
                .unwrap();
            assert_eq!(ids(&january), ["2", "3"], "{who}");
            let exact = at_priority_2().eq("2025-01-02").all(store).await.unwrap();
            assert_eq!(ids(&exact), ["2"], "{who}");
            // A range on the first sort attribute compares numbers: 2 < 10.
            let low = Issue::by_status("acme", Status::Open)
                .priority()
                .lt(10u32)
                .all(store)
                .await
                .unwrap();
            assert_eq!(ids(&low), ["2", "3", "5"], "{who}");
            let band = Issue::by_status("acme", Status::Open)
                .priority()
                .between(3u32, 10u32)
                .all(store)
                .await
                .unwrap();
            assert_eq!(ids(&band), ["1"], "{who}");
            // Descending, limited, paged with cursors, streamed.
            let last = Issue::by_status("acme", Status::Open)
                .descending()
                .limit(2)
                .all(store)
                .await
                .unwrap();
            assert_eq!(ids(&last), ["1", "5"], "{who}");
            // Pages of one item, each request resuming at the cursor of the one before.
            let pages: Vec<Vec<Issue>> = Issue::by_status("acme", Status::Open)
                .page_size(1)
                .into_query()
                .unwrap()
                .pages(store)
                .try_collect()
                .await
                .unwrap();
            assert!(pages.len() >= 4, "{who}: {} pages", pages.len());
            let paged: Vec<Issue> = pages.into_iter().flatten().collect();
            assert_eq!(ids(&paged), ["2", "3", "5", "1"], "{who}");
            let streamed: Vec<Issue> = Issue::by_status("acme", Status::Open)
                .stream(store)
                .try_collect()
                .await
                .unwrap();
            assert_eq!(streamed, open, "{who}");
            // Tasks: the draft (state None) is not in the index.
            let tasks = Task::by_status("acme", Status::Open)
                .all(store)
                .await
                .unwrap();
            let task_ids: Vec<&str> = tasks.iter().map(|t| t.id.as_str()).collect();
            assert_eq!(task_ids, ["1", "3"], "{who}");
            let raw = store
                .query(QueryRequest::new(
                    "Tracker",
                    Some("ByStatus"),
                    KeyCondition::partition("tenant", s("acme")).and_partition("status", s("Open")),
                ))
                .await
                .unwrap();
            // 4 open issues and 2 open tasks: no draft, no comment.
            assert_eq!(raw.items.len(), 6, "{who}");
            // The template index beside it still works.
            let by_ann = Issue::gsi1("ann")
                .created()
                .begins_with("2025-01")
                .count(store)
                .await
                .unwrap();
            // Ann's issues of January in both tenants (GSI1 is not partitioned by tenant).
            assert_eq!(by_ann, 5, "{who}");
        }
    }

    fn work_ids(items: &[Work]) -> Vec<String> {
        items
            .iter()
            .map(|w| match w {
                Work::Issue(i) => format!("I{}", i.id),
                Work::Task(t) => format!("T{}", t.id),
            })
            .collect()
    }

    /// `.collection::<Work>()` on a typed query of `ByStatus` reads issues and tasks together,
    /// in index order (priority, then created, then the table key), with the sort conditions
    /// given left to right; descending, limit, pages and stream as any query.
    #[tokio::test]
    async fn a_collection_reads_every_entity_of_a_multi_attribute_partition() {
        for (who, store) in loaded().await {
            let store = &*store;
            let all = Issue::by_status("acme", Status::Open)
                .collection::<Work>()
                .all(store)
                .await
                .unwrap();
            // The draft task (no status) and the comment are not in the index; initech's issue
            // is another partition.
            assert_eq!(
                work_ids(&all),
                ["I2", "T1", "I3", "I5", "T3", "I1"],
                "{who}"
            );
            let early = Issue::by_status("acme", Status::Open)
                .priority()
                .eq(2u32)
                .created()
                .lt("2025-01-03")
                .collection::<Work>()
                .all(store)
                .await
                .unwrap();
            assert_eq!(work_ids(&early), ["I2", "T1"], "{who}");
            let tasks_first = Task::by_status("acme", Status::Open)
                .rank()
                .ge(3u8)
                .collection::<Work>()
                .all(store)
                .await
                .unwrap();
            assert_eq!(work_ids(&tasks_first), ["T3", "I1"], "{who}");
            let last = Issue::by_status("acme", Status::Open)
                .collection::<Work>()
                .descending()
                .limit(2)
                .all(store)
                .await
                .unwrap();
            assert_eq!(work_ids(&last), ["I1", "T3"], "{who}");
            let q = Issue::by_status("acme", Status::Open)
                .collection::<Work>()
                .page_size(4);
            let (first, cursor) = {
                let page = q.page(store, None).await.unwrap();
                (page.items, page.cursor)
            };
            let second = q.page(store, cursor.as_ref()).await.unwrap();
            let mut paged = first;
            paged.extend(second.items);
            assert_eq!(paged, all, "{who}");
            let streamed: Vec<Work> = Issue::by_status("acme", Status::Open)
                .collection::<Work>()
                .stream(store)
                .try_collect()
                .await
                .unwrap();
            assert_eq!(streamed, all, "{who}");
        }
    }

    #[tokio::test]
    async fn updates_and_puts_move_items_in_the_index_and_none_leaves_it() {
        for (who, store) in loaded().await {
            let store = &*store;
            // Closing issue 2 moves it to the closed partition.
            Issue::update(Issue::key("acme", "2"))
                .set_status(Status::Closed)
                .send(store)
                .await
                .unwrap();
            let closed = Issue::by_status("acme", Status::Closed)
                .all(store)
                .await
                .unwrap();
            assert_eq!(ids(&closed), ["2", "4"], "{who}");
            // A new priority re-sorts it.
            Issue::update(Issue::key("acme", "4"))
                .set_priority(1u32)
                .send(store)
                .await
                .unwrap();
            let closed = Issue::by_status("acme", Status::Closed)
                .all(store)
                .await
                .unwrap();
            assert_eq!(ids(&closed), ["4", "2"], "{who}");
            // A task whose state becomes None leaves the index; set again, it returns.
            let mut t = task("1", None, 2, "2025-01-02");
            t.clone().put().send(store).await.unwrap();
            let tasks = Task::by_status("acme", Status::Open)
                .all(store)
                .await
                .unwrap();
            assert_eq!(
                tasks.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(),
                ["3"],
                "{who}"
            );
            t.state = Some(Status::Closed);
            t.put().send(store).await.unwrap();
            let closed_tasks = Task::by_status("acme", Status::Closed)
                .all(store)
                .await
                .unwrap();
            assert_eq!(closed_tasks.len(), 1, "{who}");
        }
    }
}
