//! MemoryStore against a reference model, and under concurrency.
//!
//! - `model_agrees`: random sequences of puts (numbers written in several equivalent forms),
//!   conditional puts, updates, deletes, paginated queries (both directions, sort-key ranges,
//!   limits) and GSI queries agree with a sorted map per partition; after every sequence the whole
//!   GSI matches the items that have both index keys.
//! - `concurrent_writers_never_tear_items_or_indexes`: many tasks put, update, delete and run
//!   transactions on shared and private items while readers check every item they see; afterwards
//!   every item is whole and the indexes hold exactly the items that carry their keys.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use dyno_core::expr::{Condition, KeyCondition, Path, SetValue, SortCondition, Update};
use dyno_core::store::*;
use dyno_core::table::{IndexDef, KeyAttribute, Projection, ScalarType};
use dyno_core::{AttributeValue, Error, Item, MemoryStore, TableDef};
use futures::executor::block_on;
use proptest::prelude::*;

fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

fn n(v: impl ToString) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

fn num(v: &AttributeValue) -> i64 {
    match v {
        AttributeValue::N(x) => x
            .parse::<f64>()
            .map(|f| f as i64)
            .unwrap_or_else(|_| panic!("bad number {x}")),
        other => panic!("expected N, found {other:?}"),
    }
}

fn text(v: &AttributeValue) -> String {
    match v {
        AttributeValue::S(x) => x.clone(),
        other => panic!("expected S, found {other:?}"),
    }
}

// ---------------------------------------------------------------- the model

const TABLE: &str = "model";

fn model_table() -> TableDef {
    let mut def = TableDef::new(TABLE, "PK", None);
    def.sort_key = Some(KeyAttribute::new("SK", ScalarType::N));
    def.global_index(IndexDef {
        name: "ByG".into(),
        partition_key: KeyAttribute::string("G"),
        sort_key: Some(KeyAttribute::new("GS", ScalarType::N)),
        extra_partition_keys: Vec::new(),
        extra_sort_keys: Vec::new(),
        projection: Projection::All,
    })
}

/// What the model keeps of an item.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Row {
    pk: String,
    sk: i64,
    v: Option<i64>,
    g: Option<String>,
    gs: Option<i64>,
}

impl Row {
    fn from_item(item: &Item) -> Row {
        Row {
            pk: text(&item["PK"]),
            sk: num(&item["SK"]),
            v: item.get("v").map(num),
            g: item.get("G").map(text),
            gs: item.get("GS").map(num),
        }
    }
}

#[derive(Debug, Clone)]
enum UpdateAction {
    SetV(i64),
    AddV(i64),
    SetG(String, i64),
    RemoveG,
}

#[derive(Debug, Clone)]
enum Op {
    Put {
        pk: String,
        sk: i64,
        form: u8,
        v: i64,
        g: Option<(String, Option<i64>)>,
    },
    PutIfAbsent {
        pk: String,
        sk: i64,
        v: i64,
    },
    Update {
        pk: String,
        sk: i64,
        action: UpdateAction,
    },
    Delete {
        pk: String,
        sk: i64,
    },
    Query {
        pk: String,
        range: Option<(i64, i64)>,
        forward: bool,
        limit: Option<u32>,
    },
    QueryIndex {
        g: String,
        forward: bool,
        limit: Option<u32>,
    },
}

/// A number in one of several equivalent spellings.
fn spelled(v: i64, form: u8) -> AttributeValue {
    match form % 4 {
        0 => n(v),
        1 => n(format!("{v}.0")),
        2 => n(format!("{v}0e-1")),
        _ => n(format!("{}E0", v)),
    }
}

fn arb_pk() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["a", "b", "c"]).prop_map(str::to_owned)
}

fn arb_g() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["x", "y"]).prop_map(str::to_owned)
}

fn arb_op() -> impl Strategy<Value = Op> {
    let sk = -3i64..7;
    prop_oneof![
        4 => (arb_pk(), sk.clone(), any::<u8>(), -5i64..5, prop::option::of((arb_g(), prop::option::of(-2i64..4))))
            .prop_map(|(pk, sk, form, v, g)| Op::Put { pk, sk, form, v, g }),
        1 => (arb_pk(), sk.clone(), -5i64..5).prop_map(|(pk, sk, v)| Op::PutIfAbsent { pk, sk, v }),
        3 => (arb_pk(), sk.clone(), prop_oneof![
                (-5i64..5).prop_map(UpdateAction::SetV),
                (-5i64..5).prop_map(UpdateAction::AddV),
                (arb_g(), -2i64..4).prop_map(|(g, gs)| UpdateAction::SetG(g, gs)),
                Just(UpdateAction::RemoveG),
            ]).prop_map(|(pk, sk, action)| Op::Update { pk, sk, action }),
        2 => (arb_pk(), sk.clone()).prop_map(|(pk, sk)| Op::Delete { pk, sk }),
        2 => (arb_pk(), prop::option::of((sk.clone(), sk)), any::<bool>(), prop::option::of(1u32..4))
            .prop_map(|(pk, range, forward, limit)| Op::Query { pk, range: range.map(|(a, b)| (a.min(b), a.max(b))), forward, limit }),
        1 => (arb_g(), any::<bool>(), prop::option::of(1u32..4)).prop_map(|(g, forward, limit)| Op::QueryIndex { g, forward, limit }),
    ]
}

fn key(pk: &str, sk: i64, form: u8) -> Item {
    Item::from([
        ("PK".to_owned(), s(pk)),
        ("SK".to_owned(), spelled(sk, form)),
    ])
}

/// Every page of a query, following LastEvaluatedKey.
fn query_all(store: &MemoryStore, mut q: QueryRequest) -> Vec<Row> {
    let mut rows = Vec::new();
    for _ in 0..100 {
        let page = block_on(store.query(q.clone())).expect("query");
        assert_eq!(page.count, page.items.len());
        assert!(
            q.limit.is_none_or(|l| page.scanned_count <= l as usize),
            "a page never reads more than Limit"
        );
        rows.extend(page.items.iter().map(|i| Row::from_item(i)));
        match page.last_evaluated_key {
            Some(k) => q.exclusive_start_key = Some(k),
            None => return rows,
        }
    }
    panic!("query did not finish in 100 pages");
}

/// The model's GSI: rows with both index keys, in (G, GS, PK, SK) order.
fn model_index(model: &BTreeMap<(String, i64), Row>, g: &str) -> Vec<Row> {
    let mut rows: Vec<Row> = model
        .values()
        .filter(|r| r.g.as_deref() == Some(g) && r.gs.is_some())
        .cloned()
        .collect();
    rows.sort_by(|a, b| (a.gs, &a.pk, a.sk).cmp(&(b.gs, &b.pk, b.sk)));
    rows
}

fn run_model(ops: &[Op]) {
    let store = MemoryStore::new();
    block_on(store.create_table(&model_table())).unwrap();
    let mut model: BTreeMap<(String, i64), Row> = BTreeMap::new();
    for (step, op) in ops.iter().enumerate() {
        match op {
            Op::Put { pk, sk, form, v, g } => {
                let mut item = key(pk, *sk, *form);
                item.insert("v".into(), spelled(*v, form.wrapping_add(1)));
                let mut row = Row {
                    pk: pk.clone(),
                    sk: *sk,
                    v: Some(*v),
                    g: None,
                    gs: None,
                };
                if let Some((g, gs)) = g {
                    item.insert("G".into(), s(g.clone()));
                    row.g = Some(g.clone());
                    if let Some(gs) = gs {
                        item.insert("GS".into(), n(gs));
                        row.gs = Some(*gs);
                    }
                }
                let req = PutRequest::new(TABLE, item).with_return_values(ReturnValues::AllOld);
                let out = block_on(store.put_item(req)).expect("put");
                let old = model.insert((pk.clone(), *sk), row);
                assert_eq!(
                    out.attributes.map(|i| Row::from_item(&i)),
                    old,
                    "step {step}: ALL_OLD of {op:?}"
                );
            }
            Op::PutIfAbsent { pk, sk, v } => {
                let mut item = key(pk, *sk, 0);
                item.insert("v".into(), n(v));
                let req = PutRequest::new(TABLE, item)
                    .with_condition(Some(Condition::not_exists("PK")))
                    .with_return_old_on_condition_failure(true);
                let out = block_on(store.put_item(req));
                match model.get(&(pk.clone(), *sk)) {
                    Some(existing) => match out {
                        Err(Error::ConditionFailed {
                            item: Some(old), ..
                        }) => {
                            assert_eq!(
                                &Row::from_item(&old),
                                existing,
                                "step {step}: old item on failure"
                            )
                        }
                        other => panic!("step {step}: {op:?} on an existing item gave {other:?}"),
                    },
                    None => {
                        out.expect("create if absent");
                        model.insert(
                            (pk.clone(), *sk),
                            Row {
                                pk: pk.clone(),
                                sk: *sk,
                                v: Some(*v),
                                g: None,
                                gs: None,
                            },
                        );
                    }
                }
            }
            Op::Update { pk, sk, action } => {
                let update = match action {
                    UpdateAction::SetV(v) => Update {
                        set: vec![(Path::attr("v"), SetValue::value(n(v)))],
                        ..Update::default()
                    },
                    UpdateAction::AddV(d) => Update {
                        add: vec![(Path::attr("v"), n(d))],
                        ..Update::default()
                    },
                    UpdateAction::SetG(g, gs) => Update {
                        set: vec![
                            (Path::attr("G"), SetValue::value(s(g.clone()))),
                            (Path::attr("GS"), SetValue::value(n(gs))),
                        ],
                        ..Update::default()
                    },
                    UpdateAction::RemoveG => Update {
                        remove: vec![Path::attr("G")],
                        ..Update::default()
                    },
                };
                let req = UpdateRequest::new(TABLE, key(pk, *sk, 3), update)
                    .with_return_values(ReturnValues::AllNew);
                let out = block_on(store.update_item(req)).expect("update");
                let row = model.entry((pk.clone(), *sk)).or_insert(Row {
                    pk: pk.clone(),
                    sk: *sk,
                    v: None,
                    g: None,
                    gs: None,
                });
                match action {
                    UpdateAction::SetV(v) => row.v = Some(*v),
                    UpdateAction::AddV(d) => row.v = Some(row.v.unwrap_or(0) + d),
                    UpdateAction::SetG(g, gs) => {
                        row.g = Some(g.clone());
                        row.gs = Some(*gs);
                    }
                    UpdateAction::RemoveG => row.g = None,
                }
                assert_eq!(
                    out.attributes.map(|i| Row::from_item(&i)).as_ref(),
                    Some(&*row),
                    "step {step}: ALL_NEW of {op:?}"
                );
            }
            Op::Delete { pk, sk } => {
                let req = DeleteRequest::new(TABLE, key(pk, *sk, 2))
                    .with_return_values(ReturnValues::AllOld);
                let out = block_on(store.delete_item(req)).expect("delete");
                let old = model.remove(&(pk.clone(), *sk));
                assert_eq!(
                    out.attributes.map(|i| Row::from_item(&i)),
                    old,
                    "step {step}: ALL_OLD of {op:?}"
                );
            }
            Op::Query {
                pk,
                range,
                forward,
                limit,
            } => {
                let mut kc = KeyCondition::partition("PK", s(pk.clone()));
                if let Some((lo, hi)) = range {
                    kc = kc.sort("SK", SortCondition::Between(n(lo), spelled(*hi, 1)));
                }
                let mut q = QueryRequest::new(TABLE, None, kc);
                q.scan_forward = *forward;
                q.limit = *limit;
                let got = query_all(&store, q);
                let mut want: Vec<Row> = model
                    .range((pk.clone(), i64::MIN)..=(pk.clone(), i64::MAX))
                    .filter(|((_, sk), _)| range.is_none_or(|(lo, hi)| (lo..=hi).contains(sk)))
                    .map(|(_, r)| r.clone())
                    .collect();
                if !forward {
                    want.reverse();
                }
                assert_eq!(got, want, "step {step}: {op:?}");
            }
            Op::QueryIndex { g, forward, limit } => {
                let mut q = QueryRequest::new(
                    TABLE,
                    Some("ByG"),
                    KeyCondition::partition("G", s(g.clone())),
                );
                q.scan_forward = *forward;
                q.limit = *limit;
                let got = query_all(&store, q);
                let mut want = model_index(&model, g);
                if !forward {
                    want.reverse();
                }
                assert_eq!(got, want, "step {step}: {op:?}");
            }
        }
    }
    // The whole table and the whole index agree with the model.
    let mut scan = ScanRequest::new(TABLE);
    let page = block_on(store.scan(scan.clone())).unwrap();
    let got: BTreeSet<Row> = page.items.iter().map(|i| Row::from_item(i)).collect();
    assert_eq!(
        got,
        model.values().cloned().collect::<BTreeSet<_>>(),
        "table contents"
    );
    scan.index = Some("ByG".into());
    let page = block_on(store.scan(scan)).unwrap();
    let got: BTreeSet<Row> = page.items.iter().map(|i| Row::from_item(i)).collect();
    let want: BTreeSet<Row> = ["x", "y"]
        .iter()
        .flat_map(|g| model_index(&model, g))
        .collect();
    assert_eq!(got, want, "index contents");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn model_agrees(ops in prop::collection::vec(arb_op(), 1..60)) {
        run_model(&ops);
    }
}

// ---------------------------------------------------------------- concurrency

const CONC: &str = "concurrent";

fn conc_table() -> TableDef {
    TableDef::new(CONC, "PK", Some("SK"))
        .global_index(IndexDef::new("ByTok", "GPK", Some("GSK")))
        .global_index(IndexDef::new("Even", "K2", None).projection(Projection::KeysOnly))
        .local_index(IndexDef::new("ByL", "PK", Some("LSK")).projection(Projection::KeysOnly))
}

/// An item whose every attribute is derived from one token: a torn write would show mixed
/// tokens.
fn whole(pk: &str, sk: &str, token: u64) -> Item {
    let mut item = Item::from([
        ("PK".to_owned(), s(pk)),
        ("SK".to_owned(), s(sk)),
        ("a".to_owned(), n(token)),
        ("b".to_owned(), n(token)),
        ("c".to_owned(), s(format!("{token:012}"))),
        ("GPK".to_owned(), s(format!("g{}", token % 3))),
        ("GSK".to_owned(), s(format!("{token:012}"))),
        ("LSK".to_owned(), s(format!("{token:012}"))),
    ]);
    if token.is_multiple_of(2) {
        item.insert("K2".into(), s("even"));
    }
    item
}

fn token_update(token: u64) -> Update {
    let mut set = vec![
        (Path::attr("a"), SetValue::value(n(token))),
        (Path::attr("b"), SetValue::value(n(token))),
        (Path::attr("c"), SetValue::value(s(format!("{token:012}")))),
        (
            Path::attr("GPK"),
            SetValue::value(s(format!("g{}", token % 3))),
        ),
        (
            Path::attr("GSK"),
            SetValue::value(s(format!("{token:012}"))),
        ),
        (
            Path::attr("LSK"),
            SetValue::value(s(format!("{token:012}"))),
        ),
    ];
    let mut remove = Vec::new();
    if token.is_multiple_of(2) {
        set.push((Path::attr("K2"), SetValue::value(s("even"))));
    } else {
        remove.push(Path::attr("K2"));
    }
    Update {
        set,
        remove,
        ..Update::default()
    }
}

/// Checks that an item read from the table is whole.
fn assert_whole(item: &Item) {
    let token = num(&item["a"]) as u64;
    assert_eq!(
        item,
        &whole(&text(&item["PK"]), &text(&item["SK"]), token),
        "torn item"
    );
}

fn ckey(pk: &str, sk: &str) -> Item {
    Item::from([("PK".to_owned(), s(pk)), ("SK".to_owned(), s(sk))])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_writers_never_tear_items_or_indexes() {
    let store = Arc::new(MemoryStore::new());
    store.create_table(&conc_table()).await.unwrap();
    for side in ["L", "R"] {
        store
            .put_item(PutRequest::new(CONC, whole("pair", side, 0)))
            .await
            .unwrap();
    }
    let mut tasks = Vec::new();
    for task in 0..12u64 {
        let store = Arc::clone(&store);
        tasks.push(tokio::spawn(async move {
            let mut rng = fastrand::Rng::with_seed(task);
            for i in 0..400u64 {
                let token = (task + 1) * 1_000_000 + i;
                let (pk, sk) = if rng.bool() {
                    ("hot".to_owned(), format!("{}", rng.u8(0..4)))
                } else {
                    (format!("own{task}"), format!("{}", rng.u8(0..6)))
                };
                match rng.u8(0..7) {
                    0 | 1 => {
                        store
                            .put_item(
                                PutRequest::new(CONC, whole(&pk, &sk, token))
                                    .with_return_values(ReturnValues::AllOld),
                            )
                            .await
                            .unwrap();
                    }
                    2 => {
                        let out = store
                            .update_item(
                                UpdateRequest::new(CONC, ckey(&pk, &sk), token_update(token))
                                    .with_condition(Some(Condition::exists("PK")))
                                    .with_return_values(ReturnValues::AllNew)
                                    .with_return_old_on_condition_failure(true),
                            )
                            .await;
                        match out {
                            Ok(o) => assert_whole(&o.attributes.expect("ALL_NEW")),
                            Err(Error::ConditionFailed { item: None, .. }) => {}
                            Err(e) => panic!("update: {e}"),
                        }
                    }
                    3 => {
                        store
                            .delete_item(DeleteRequest::new(CONC, ckey(&pk, &sk)))
                            .await
                            .unwrap();
                    }
                    4 => {
                        // Both halves of the pair always carry one token.
                        let actions = ["L", "R"]
                            .iter()
                            .map(|side| {
                                TransactWriteItem::update(
                                    CONC,
                                    ckey("pair", side),
                                    token_update(token),
                                )
                                .with_condition(Condition::exists("PK"))
                            })
                            .collect();
                        store
                            .transact_write(TransactWriteRequest::new(actions))
                            .await
                            .unwrap();
                    }
                    5 => {
                        let gets = ["L", "R"]
                            .iter()
                            .map(|side| TransactGetItem::new(CONC, ckey("pair", side)))
                            .collect();
                        let out = store
                            .transact_get(TransactGetRequest::new(gets))
                            .await
                            .unwrap();
                        let l = out.items[0].as_ref().expect("pair L");
                        let r = out.items[1].as_ref().expect("pair R");
                        assert_whole(l);
                        assert_whole(r);
                        assert_eq!(l["a"], r["a"], "a transaction's writes are seen together");
                    }
                    _ => {
                        let g = format!("g{}", rng.u8(0..3));
                        let page = store
                            .query(QueryRequest::new(
                                CONC,
                                Some("ByTok"),
                                KeyCondition::partition("GPK", s(g.clone())),
                            ))
                            .await
                            .unwrap();
                        for item in &page.items {
                            assert_whole(item);
                            assert_eq!(text(&item["GPK"]), g, "index entry under its own key");
                        }
                        let page = store
                            .query(QueryRequest::new(
                                CONC,
                                None,
                                KeyCondition::partition("PK", s("hot")),
                            ))
                            .await
                            .unwrap();
                        page.items.iter().for_each(|i| assert_whole(i));
                    }
                }
            }
        }));
    }
    for t in tasks {
        t.await.expect("task panicked");
    }

    // Quiescent: the table is whole and every index holds exactly the items with its keys.
    let scan = |index: Option<&str>| {
        let store = Arc::clone(&store);
        let index = index.map(str::to_owned);
        async move {
            let page = store
                .scan(ScanRequest::new(CONC).with_index(index.as_deref()))
                .await
                .unwrap();
            assert!(page.last_evaluated_key.is_none());
            page.items
        }
    };
    let items = scan(None).await;
    items.iter().for_each(|i| assert_whole(i));
    let keys = |items: &[Arc<Item>]| -> BTreeSet<(String, String)> {
        items
            .iter()
            .map(|i| (text(&i["PK"]), text(&i["SK"])))
            .collect()
    };
    let all = keys(&items);
    assert_eq!(
        keys(&scan(Some("ByTok")).await),
        all,
        "ByTok holds every item"
    );
    let by_tok = scan(Some("ByTok")).await;
    by_tok.iter().for_each(|i| assert_whole(i));
    let even: BTreeSet<_> = items
        .iter()
        .filter(|i| i.contains_key("K2"))
        .map(|i| (text(&i["PK"]), text(&i["SK"])))
        .collect();
    assert_eq!(
        keys(&scan(Some("Even")).await),
        even,
        "the sparse index holds exactly the even items"
    );
    assert_eq!(
        keys(&scan(Some("ByL")).await),
        all,
        "the LSI holds every item"
    );
    let pair = keys(&items);
    assert!(
        pair.contains(&("pair".to_owned(), "L".to_owned()))
            && pair.contains(&("pair".to_owned(), "R".to_owned()))
    );
}

// ---------------------------------------------------------------- UpdateTable under load

/// The index UpdateTable adds and removes: keyed by every item's `GPK` and `c`.
fn hot_index() -> IndexDef {
    IndexDef::new("Hot", "GPK", Some("c"))
}

/// UpdateTable adds and removes a global index again and again while writers (puts, updates,
/// deletes, batch writes, transactions) run on a few hot keys and on keys of their own, and
/// readers query the index: no write is lost across a schema change (each writer's own keys end
/// as it last wrote them), readers see whole items under their own index key (or DynamoDB's
/// error while the index is absent), and once quiet every index holds exactly the items with its
/// keys.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn indexes_added_and_removed_under_load_lose_no_write() {
    // A few rounds: a lost write shows in most rounds, not in every one.
    for round in 0..3 {
        index_churn(round).await;
    }
}

async fn index_churn(round: u64) {
    use std::sync::atomic::{AtomicBool, Ordering};

    let store = Arc::new(MemoryStore::new());
    store.create_table(&conc_table()).await.unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let run = async {
        let mut writers = Vec::new();
        for task in 0..6u64 {
            let store = Arc::clone(&store);
            writers.push(tokio::spawn(async move {
                let mut rng = fastrand::Rng::with_seed(100 + 10 * round + task);
                // What this writer last did to each of its own keys: Some(token) or deleted.
                let mut own: BTreeMap<String, Option<u64>> = BTreeMap::new();
                for i in 0..500u64 {
                    let token = (task + 1) * 1_000_000 + i;
                    let hot = format!("{}", rng.u8(0..3));
                    let mine = format!("{}", rng.u8(0..4));
                    let own_pk = format!("own{task}");
                    match rng.u8(0..5) {
                        0 => {
                            let (pk, sk) = if rng.bool() {
                                ("hot", hot.as_str())
                            } else {
                                own.insert(mine.clone(), Some(token));
                                (own_pk.as_str(), mine.as_str())
                            };
                            store
                                .put_item(PutRequest::new(CONC, whole(pk, sk, token)))
                                .await
                                .unwrap();
                        }
                        1 => {
                            let out = store
                                .update_item(
                                    UpdateRequest::new(
                                        CONC,
                                        ckey(&own_pk, &mine),
                                        token_update(token),
                                    )
                                    .with_condition(Some(Condition::exists("PK")))
                                    .with_return_values(ReturnValues::AllNew),
                                )
                                .await;
                            match out {
                                Ok(o) => {
                                    assert_whole(&o.attributes.expect("ALL_NEW"));
                                    own.insert(mine.clone(), Some(token));
                                }
                                Err(Error::ConditionFailed { .. }) => {
                                    assert_eq!(own.get(&mine).copied().flatten(), None);
                                }
                                Err(e) => panic!("update: {e}"),
                            }
                        }
                        2 => {
                            let (pk, sk) = if rng.bool() {
                                ("hot", hot.as_str())
                            } else {
                                own.insert(mine.clone(), None);
                                (own_pk.as_str(), mine.as_str())
                            };
                            store
                                .delete_item(DeleteRequest::new(CONC, ckey(pk, sk)))
                                .await
                                .unwrap();
                        }
                        3 => {
                            own.insert(mine.clone(), Some(token));
                            let writes = vec![
                                WriteRequest::put(CONC, whole(&own_pk, &mine, token)),
                                WriteRequest::put(CONC, whole("hot", &hot, token)),
                            ];
                            let out = store
                                .batch_write(BatchWriteRequest::new(writes))
                                .await
                                .unwrap();
                            assert!(out.unprocessed.is_empty());
                        }
                        _ => {
                            own.insert(mine.clone(), Some(token));
                            let put = |pk: &str, sk: &str| {
                                TransactWriteItem::put(CONC, whole(pk, sk, token))
                            };
                            store
                                .transact_write(TransactWriteRequest::new(vec![
                                    put(&own_pk, &mine),
                                    put("hot", &hot),
                                ]))
                                .await
                                .unwrap();
                        }
                    }
                    if i % 16 == 0 {
                        tokio::task::yield_now().await;
                    }
                }
                (task, own)
            }));
        }
        let mut readers = Vec::new();
        for r in 0..2u8 {
            let store = Arc::clone(&store);
            let done = Arc::clone(&done);
            readers.push(tokio::spawn(async move {
                let (mut seen, mut absent) = (0usize, 0usize);
                while !done.load(Ordering::Relaxed) {
                    let g = format!("g{}", (seen + absent + usize::from(r)) % 3);
                    let q = QueryRequest::new(
                        CONC,
                        Some("Hot"),
                        KeyCondition::partition("GPK", s(g.clone())),
                    );
                    match store.query(q).await {
                        Ok(page) => {
                            for item in &page.items {
                                assert_whole(item);
                                assert_eq!(text(&item["GPK"]), g, "entry under its own key");
                            }
                            seen += 1;
                        }
                        Err(Error::Validation { .. }) => absent += 1,
                        Err(e) => panic!("query: {e}"),
                    }
                    tokio::task::yield_now().await;
                }
                (seen, absent)
            }));
        }
        let changer = {
            let store = Arc::clone(&store);
            tokio::spawn(async move {
                for _ in 0..40 {
                    store
                        .update_table(UpdateTableRequest::create_index(CONC, hot_index()))
                        .await
                        .unwrap();
                    tokio::task::yield_now().await;
                    store
                        .update_table(UpdateTableRequest::delete_index(CONC, "Hot"))
                        .await
                        .unwrap();
                    tokio::task::yield_now().await;
                }
                store
                    .update_table(UpdateTableRequest::create_index(CONC, hot_index()))
                    .await
                    .unwrap();
            })
        };
        let mut owns = Vec::new();
        for w in writers {
            owns.push(w.await.expect("writer panicked"));
        }
        changer.await.expect("changer panicked");
        done.store(true, Ordering::Relaxed);
        let mut reads = (0, 0);
        for r in readers {
            let (seen, absent) = r.await.expect("reader panicked");
            reads = (reads.0 + seen, reads.1 + absent);
        }
        (owns, reads)
    };
    let (owns, (seen, _absent)) = tokio::time::timeout(std::time::Duration::from_secs(120), run)
        .await
        .expect("the load finished within 120 s");
    assert!(seen > 0, "readers queried the index while it existed");

    // No write lost: every writer's own keys hold what it last wrote.
    for (task, own) in owns {
        for (sk, last) in own {
            let got = store
                .get_item(GetRequest::new(CONC, ckey(&format!("own{task}"), &sk)))
                .await
                .unwrap()
                .item;
            let want = last.map(|t| whole(&format!("own{task}"), &sk, t));
            assert_eq!(got.as_deref(), want.as_ref(), "own{task}/{sk}");
        }
    }
    // Quiet: every index holds exactly the items with its keys.
    let scan = |index: Option<&str>| {
        let request = ScanRequest::new(CONC).with_index(index);
        let store = Arc::clone(&store);
        async move {
            let page = store.scan(request).await.unwrap();
            assert!(page.last_evaluated_key.is_none());
            page.items
                .iter()
                .map(|i| {
                    // ByL projects keys only; the others hold whole items.
                    if i.contains_key("a") {
                        assert_whole(i);
                    }
                    (text(&i["PK"]), text(&i["SK"]))
                })
                .collect::<BTreeSet<_>>()
        }
    };
    let all = scan(None).await;
    assert!(all.len() > 6, "the table holds the writers' items");
    assert_eq!(
        scan(Some("Hot")).await,
        all,
        "the re-added index holds every item"
    );
    assert_eq!(scan(Some("ByTok")).await, all, "ByTok kept every item");
    assert_eq!(scan(Some("ByL")).await, all, "the LSI kept every item");
    let description = store.describe_table(CONC).await.unwrap();
    assert_eq!(description.status_of("Hot"), Some(IndexStatus::Active));
}
