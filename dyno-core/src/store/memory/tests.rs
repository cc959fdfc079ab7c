//! MemoryStore-specific behaviour: TTL with an injected clock, purging, index bookkeeping, and
//! internal invariants that the cross-backend conformance suite cannot see.

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use futures::executor::block_on;

use super::*;
use crate::expr::{KeyCondition, Path, SetValue, Update};
use crate::store::{
    BatchGetRequest, BatchWriteRequest, TableKey, TransactGetItem, TransactWriteItem, WriteRequest,
};
use crate::table::{IndexDef, Projection};
use crate::value::AttributeValue;

pub(super) fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

pub(super) fn n(v: impl ToString) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

pub(super) fn item(pairs: &[(&str, AttributeValue)]) -> Item {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect()
}

pub(super) fn key(pk: &str, sk: &str) -> Item {
    item(&[("PK", s(pk)), ("SK", s(sk))])
}

/// A store whose clock the test moves.
struct Timed {
    store: MemoryStore,
    now: Arc<Mutex<SystemTime>>,
}

const T0: u64 = 1_700_000_000;

impl Timed {
    fn new() -> Self {
        let now = Arc::new(Mutex::new(SystemTime::UNIX_EPOCH + Duration::from_secs(T0)));
        let clock = Arc::clone(&now);
        let store = MemoryStore::with_clock(Arc::new(move || *clock.lock().unwrap()));
        Timed { store, now }
    }

    fn advance(&self, secs: u64) {
        *self.now.lock().unwrap() += Duration::from_secs(secs);
    }
}

fn table_def() -> TableDef {
    TableDef::new("Tbl", "PK", Some("SK"))
        .global_index(IndexDef::new("Gsi", "GPK", Some("GSK")).projection(Projection::KeysOnly))
        .local_index(IndexDef::new("Lsi", "PK", Some("LSK")))
        .ttl("expires")
}

fn put(store: &MemoryStore, it: Item) -> Result<WriteOutput> {
    block_on(store.put_item(PutRequest {
        table: "Tbl".into(),
        item: it,
        condition: None,
        return_values: ReturnValues::None,
        return_old_on_condition_failure: false,
    }))
}

fn get(store: &MemoryStore, k: Item) -> Option<SharedItem> {
    block_on(store.get_item(GetRequest::borrowed("Tbl", &k)))
        .unwrap()
        .item
}

fn query_count(store: &MemoryStore, index: Option<&str>, pk_name: &str, pk: &str) -> usize {
    block_on(store.query(QueryRequest::new(
        "Tbl",
        index,
        KeyCondition::partition(pk_name, s(pk)),
    )))
    .unwrap()
    .count
}

fn scan_count(store: &MemoryStore, index: Option<&str>) -> usize {
    block_on(store.scan(ScanRequest {
        table: "Tbl".into(),
        index: index.map(str::to_owned),
        ..ScanRequest::default()
    }))
    .unwrap()
    .count
}

/// Every index entry has its item and every indexable item its entries; counts agree.
fn check_invariants(store: &MemoryStore) {
    let tables = read_lock(&store.tables);
    for table in tables.values() {
        let data = read_lock(&table.data);
        let schema = &table.schema;
        // The hashed partitions and their ordered keys agree, for the table and every index, and
        // the point entries with the table's partitions.
        data.check();
        let items: usize = data.partitions.values().map(|p| p.len()).sum();
        assert_eq!(items, data.len, "item count");
        for (i, index) in schema.indexes.iter().enumerate() {
            let mut expected = 0;
            for (pk, partition) in &data.partitions {
                for (sk, stored) in partition {
                    let key = schema.index_key(index, &stored.entry.item, pk, sk);
                    assert_eq!(
                        stored.index_keys[i],
                        key.as_ref().map(|(ipk, pos)| (ipk.clone(), pos.sk.clone())),
                        "the {} key kept with the item is the item's",
                        index.name
                    );
                    if let Some((ipk, pos)) = key {
                        expected += 1;
                        let found = data.indexes[i].get(&ipk).and_then(|p| p.get(&pos));
                        let found = found.expect("item without its index entry");
                        assert_eq!(found.expires, stored.entry.expires, "index entry expiry");
                        if index.projected.is_none() {
                            assert!(
                                Arc::ptr_eq(&found.item, &stored.entry.item),
                                "an ALL index entry shares the item"
                            );
                        }
                    }
                }
            }
            let actual: usize = data.indexes[i].values().map(|p| p.len()).sum();
            assert_eq!(
                actual, expected,
                "{}: index entries without items",
                index.name
            );
            assert!(
                data.indexes[i].values().all(|p| !p.is_empty()),
                "empty index partitions are dropped"
            );
        }
        assert!(
            data.partitions.values().all(|p| !p.is_empty()),
            "empty partitions are dropped"
        );
    }
}

#[test]
fn expired_items_disappear_from_every_read_at_once() {
    let t = Timed::new();
    block_on(t.store.create_table(&table_def())).unwrap();
    let exp = T0 + 10;
    put(
        &t.store,
        item(&[
            ("PK", s("p")),
            ("SK", s("1")),
            ("expires", n(exp)),
            ("GPK", s("g")),
            ("GSK", s("x")),
            ("LSK", s("l")),
        ]),
    )
    .unwrap();
    put(
        &t.store,
        item(&[
            ("PK", s("p")),
            ("SK", s("2")),
            ("GPK", s("g")),
            ("GSK", s("y")),
        ]),
    )
    .unwrap();
    assert!(get(&t.store, key("p", "1")).is_some());
    t.advance(10);
    assert!(
        get(&t.store, key("p", "1")).is_some(),
        "an item expiring now is still live"
    );
    t.advance(1);
    assert!(get(&t.store, key("p", "1")).is_none(), "get");
    assert_eq!(query_count(&t.store, None, "PK", "p"), 1, "query");
    assert_eq!(
        query_count(&t.store, Some("Gsi"), "GPK", "g"),
        1,
        "GSI query (KEYS_ONLY: no TTL attribute in the index)"
    );
    assert_eq!(
        query_count(&t.store, Some("Lsi"), "PK", "p"),
        0,
        "LSI query"
    );
    assert_eq!(scan_count(&t.store, None), 1, "scan");
    assert_eq!(scan_count(&t.store, Some("Gsi")), 1, "index scan");
    let batch = block_on(t.store.batch_get(BatchGetRequest {
        keys: vec![
            TableKey {
                table: "Tbl".into(),
                key: key("p", "1"),
            },
            TableKey {
                table: "Tbl".into(),
                key: key("p", "2"),
            },
        ],
        consistent_read: false,
    }))
    .unwrap();
    assert_eq!(batch.items.len(), 1, "batch get");
    let tx = block_on(t.store.transact_get(TransactGetRequest {
        gets: vec![TransactGetItem {
            table: "Tbl".into(),
            key: key("p", "1"),
            projection: None,
        }],
    }))
    .unwrap();
    assert!(tx.items[0].is_none(), "transact get");
    let described = block_on(t.store.describe_table("Tbl")).unwrap();
    assert_eq!(described.item_count, Some(1), "item count");
    assert_eq!(
        described.definition.ttl_attribute.as_deref(),
        Some("expires")
    );
}

#[test]
fn expired_items_count_as_absent_for_writes_and_are_purged_on_write() {
    let t = Timed::new();
    block_on(t.store.create_table(&table_def())).unwrap();
    put(
        &t.store,
        item(&[
            ("PK", s("p")),
            ("SK", s("1")),
            ("expires", n(T0 + 5)),
            ("v", n(1)),
            ("GPK", s("g")),
            ("GSK", s("a")),
        ]),
    )
    .unwrap();
    put(
        &t.store,
        item(&[("PK", s("q")), ("SK", s("1")), ("expires", n(T0 + 5))]),
    )
    .unwrap();
    t.advance(60);
    // The write sees no item: create-if-absent succeeds and returns no old item.
    let out = block_on(t.store.put_item(PutRequest {
        table: "Tbl".into(),
        item: item(&[("PK", s("p")), ("SK", s("1")), ("v", n(2))]),
        condition: Some(Condition::not_exists("PK")),
        return_values: ReturnValues::AllOld,
        return_old_on_condition_failure: false,
    }))
    .unwrap();
    assert_eq!(out.attributes, None);
    // The write purged every expired item of the table, with its index entries.
    {
        let tables = read_lock(&t.store.tables);
        let data = read_lock(&tables["Tbl"].data);
        assert_eq!(data.len, 1, "expired items removed on the next write");
        assert!(data.indexes[0].is_empty(), "their index entries too");
    }
    check_invariants(&t.store);
}

#[test]
fn sweep_removes_expired_items_and_ttl_changes_recompute_expiry() {
    let t = Timed::new();
    let mut def = table_def();
    def.ttl_attribute = None;
    block_on(t.store.create_table(&def)).unwrap();
    put(
        &t.store,
        item(&[
            ("PK", s("p")),
            ("SK", s("1")),
            ("expires", n(T0 - 1)),
            ("GPK", s("g")),
            ("GSK", s("a")),
        ]),
    )
    .unwrap();
    put(
        &t.store,
        item(&[
            ("PK", s("p")),
            ("SK", s("2")),
            ("expires", s("not a number")),
        ]),
    )
    .unwrap();
    put(
        &t.store,
        item(&[
            ("PK", s("p")),
            ("SK", s("3")),
            ("expires", n("1700000000.5")),
        ]),
    )
    .unwrap();
    assert_eq!(
        query_count(&t.store, None, "PK", "p"),
        3,
        "TTL disabled: nothing expires"
    );
    block_on(t.store.update_ttl("Tbl", "expires", true)).unwrap();
    assert_eq!(
        query_count(&t.store, None, "PK", "p"),
        2,
        "past expiry hidden once TTL is on"
    );
    assert_eq!(
        query_count(&t.store, Some("Gsi"), "GPK", "g"),
        0,
        "index entries follow the new expiry"
    );
    t.advance(1);
    assert_eq!(
        query_count(&t.store, None, "PK", "p"),
        1,
        "fractional expiry"
    );
    t.store.sweep_expired();
    {
        let tables = read_lock(&t.store.tables);
        assert_eq!(
            read_lock(&tables["Tbl"].data).len,
            1,
            "sweep removed both expired items"
        );
    }
    check_invariants(&t.store);
    assert!(
        block_on(t.store.update_ttl("Tbl", "other", false)).is_err(),
        "disable with another attribute"
    );
    block_on(t.store.update_ttl("Tbl", "expires", false)).unwrap();
    assert!(
        block_on(t.store.update_ttl("Tbl", "expires", false)).is_err(),
        "already disabled"
    );
}

#[test]
fn idempotency_tokens_expire_after_ten_minutes() {
    let t = Timed::new();
    block_on(t.store.create_table(&table_def())).unwrap();
    let request = TransactWriteRequest {
        actions: vec![TransactWriteItem::update(
            "Tbl",
            key("p", "c"),
            Update {
                add: vec![(Path::attr("count"), n(1))],
                ..Update::default()
            },
        )],
        client_request_token: Some("tok".into()),
    };
    let count =
        |store: &MemoryStore| get(store, key("p", "c")).and_then(|i| i.get("count").cloned());
    block_on(t.store.transact_write(request.clone())).unwrap();
    t.advance(599);
    block_on(t.store.transact_write(request.clone())).unwrap();
    assert_eq!(
        count(&t.store),
        Some(n(1)),
        "retry within 10 minutes is not applied"
    );
    t.advance(2);
    block_on(t.store.transact_write(request)).unwrap();
    assert_eq!(
        count(&t.store),
        Some(n(2)),
        "after 10 minutes the token is forgotten"
    );
}

#[test]
fn writes_keep_indexes_consistent() {
    let store = MemoryStore::new();
    block_on(store.create_table(&table_def())).unwrap();
    for i in 0..50 {
        let mut it = key(&format!("p{}", i % 5), &format!("{i}"));
        if i % 3 != 0 {
            it.insert("GPK".into(), s(&format!("g{}", i % 4)));
            it.insert("GSK".into(), s(&format!("{}", i % 7)));
        }
        if i % 2 == 0 {
            it.insert("LSK".into(), s(&format!("{}", 50 - i)));
        }
        put(&store, it).unwrap();
    }
    check_invariants(&store);
    for i in (0..50).step_by(4) {
        let update = Update {
            set: vec![
                (Path::attr("GPK"), SetValue::value(s("moved"))),
                (Path::attr("GSK"), SetValue::value(s("m"))),
            ],
            remove: vec![Path::attr("LSK")],
            ..Update::default()
        };
        block_on(store.update_item(UpdateRequest {
            table: "Tbl".into(),
            key: key(&format!("p{}", i % 5), &format!("{i}")),
            update,
            condition: None,
            return_values: ReturnValues::None,
            return_old_on_condition_failure: false,
        }))
        .unwrap();
    }
    check_invariants(&store);
    let writes = (0..25)
        .map(|i| WriteRequest::delete("Tbl", key(&format!("p{}", i % 5), &format!("{i}"))))
        .collect();
    block_on(store.batch_write(BatchWriteRequest { writes })).unwrap();
    check_invariants(&store);
    assert_eq!(scan_count(&store, None), 25);
    assert_eq!(
        query_count(&store, Some("Gsi"), "GPK", "moved"),
        6,
        "items 28..=48 step 4 remain moved"
    );
}

#[test]
fn batch_get_returns_at_most_16_mb_and_the_rest_as_unprocessed() {
    let store = MemoryStore::new();
    block_on(store.create_table(&TableDef::new("Tbl", "PK", Some("SK")))).unwrap();
    let big = "x".repeat(390 * 1024);
    for i in 0..50 {
        let mut it = key("p", &format!("{i:02}"));
        it.insert("data".into(), s(&big));
        put(&store, it).unwrap();
    }
    let keys: Vec<TableKey> = (0..50)
        .map(|i| TableKey {
            table: "Tbl".into(),
            key: key("p", &format!("{i:02}")),
        })
        .collect();
    let out = block_on(store.batch_get(BatchGetRequest {
        keys: keys.clone(),
        consistent_read: false,
    }))
    .unwrap();
    let returned: usize = out
        .items
        .iter()
        .map(|(_, i)| crate::value::item_size(i))
        .sum();
    assert!(
        returned <= 16 * 1024 * 1024,
        "response within 16 MB, got {returned} bytes"
    );
    assert_eq!(out.items.len(), 42, "as many 390 KB items as fit in 16 MB");
    assert_eq!(
        out.items.len() + out.unprocessed_keys.len(),
        50,
        "every key is returned or unprocessed"
    );
    let unprocessed = block_on(store.batch_get(BatchGetRequest {
        keys: out.unprocessed_keys,
        consistent_read: false,
    }))
    .unwrap();
    assert_eq!(unprocessed.items.len(), 8, "the retry reads the rest");
    assert!(unprocessed.unprocessed_keys.is_empty());
    let dup = vec![keys[0].clone(), keys[0].clone()];
    assert!(matches!(
        block_on(store.batch_get(BatchGetRequest {
            keys: dup,
            consistent_read: false
        })),
        Err(Error::Validation { .. })
    ));
}

#[test]
fn reads_share_items_without_copying() {
    let store = MemoryStore::new();
    block_on(store.create_table(&TableDef::new("Tbl", "PK", Some("SK")))).unwrap();
    block_on(store.put_item(PutRequest {
        table: "Tbl".into(),
        item: key("p", "1"),
        condition: None,
        return_values: ReturnValues::None,
        return_old_on_condition_failure: false,
    }))
    .unwrap();
    let a = get(&store, key("p", "1")).unwrap();
    let b = get(&store, key("p", "1")).unwrap();
    assert!(Arc::ptr_eq(&a, &b), "two gets return the same shared item");
    let page = block_on(store.query(QueryRequest::new(
        "Tbl",
        None,
        KeyCondition::partition("PK", s("p")),
    )))
    .unwrap();
    assert!(Arc::ptr_eq(&a, &page.items[0]), "queries too");
}

#[test]
fn table_definitions_are_validated() {
    let store = MemoryStore::new();
    let too_many_lsis = (0..6).fold(TableDef::new("Tbl", "PK", Some("SK")), |d, i| {
        d.local_index(IndexDef::new(
            format!("L{i}x"),
            "PK",
            Some(&format!("A{i}")),
        ))
    });
    assert!(matches!(
        block_on(store.create_table(&too_many_lsis)),
        Err(Error::Validation { .. })
    ));
    let include_nothing = TableDef::new("Tbl", "PK", Some("SK"))
        .global_index(IndexDef::new("Gxx", "A", None).projection(Projection::Include(vec![])));
    assert!(matches!(
        block_on(store.create_table(&include_nothing)),
        Err(Error::Validation { .. })
    ));
    // One attribute typed S by the table and N by an index: CreateTable cannot express it, so
    // it is refused rather than silently typed one way.
    let mut conflict = TableDef::new("Tbl", "PK", Some("SK"));
    conflict.global_indexes.push(IndexDef {
        name: "Idx".into(),
        partition_key: crate::table::KeyAttribute::new("SK", crate::table::ScalarType::N),
        sort_key: None,
        extra_partition_keys: Vec::new(),
        extra_sort_keys: Vec::new(),
        projection: Projection::All,
    });
    assert!(matches!(
        block_on(store.create_table(&conflict)),
        Err(Error::Validation { .. })
    ));
    let same_keys = TableDef::new("Tbl", "PK", Some("PK"));
    assert!(matches!(
        block_on(store.create_table(&same_keys)),
        Err(Error::Validation { .. })
    ));
    block_on(store.create_table(&table_def())).unwrap();
    assert!(matches!(
        block_on(store.create_table(&table_def())),
        Err(Error::ResourceInUse { .. })
    ));
    assert!(
        format!("{store:?}").contains("\"Tbl\""),
        "Debug lists the tables"
    );
}

/// A cancelled transaction as a validation error carrying its reasons' messages (to check them
/// as a single write's message is checked).
fn reasons_as_validation(e: Error) -> Error {
    match e {
        Error::TransactionCanceled { reasons } => Error::validation(
            reasons
                .iter()
                .filter_map(|r| r.message.clone())
                .collect::<Vec<_>>()
                .join("; "),
        ),
        other => other,
    }
}

/// A global index partition key value may be 2,048 bytes and no more, on every path that writes
/// one: put, update, batch write, and a transaction's put and update. Nothing over the limit is
/// stored, in the table or the index.
#[test]
fn index_partition_keys_are_limited_to_2048_bytes_on_every_write_path() {
    let store = MemoryStore::new();
    block_on(store.create_table(&table_def())).unwrap();
    let with_gpk = |sk: &str, len: usize| {
        item(&[
            ("PK", s("p")),
            ("SK", s(sk)),
            ("GPK", s(&"g".repeat(len))),
            ("GSK", s("x")),
        ])
    };
    let set_gpk = |len: usize| Update {
        set: vec![
            (Path::attr("GPK"), SetValue::value(s(&"g".repeat(len)))),
            (Path::attr("GSK"), SetValue::value(s("x"))),
        ],
        ..Update::default()
    };
    let too_long = |r: Result<()>, path: &str| match r {
        Err(Error::Validation { message }) => assert!(
            message.contains("2048") && message.contains("GPK"),
            "{path}: {message}"
        ),
        other => panic!("{path}: a 2,049-byte index partition key was {other:?}"),
    };
    /// A write of `GPK` at a given length to the item with a given sort key.
    type Write<'a> = &'a dyn Fn(&str, usize) -> Result<()>;
    let paths: [(&str, Write<'_>); 5] = [
        ("put", &|sk, len| put(&store, with_gpk(sk, len)).map(drop)),
        ("update", &|sk, len| {
            block_on(store.update_item(UpdateRequest {
                table: "Tbl".into(),
                key: key("p", sk),
                update: set_gpk(len),
                condition: None,
                return_values: ReturnValues::None,
                return_old_on_condition_failure: false,
            }))
            .map(drop)
        }),
        ("batch write", &|sk, len| {
            block_on(store.batch_write(BatchWriteRequest {
                writes: vec![WriteRequest::put("Tbl", with_gpk(sk, len))],
            }))
            .map(drop)
        }),
        ("transaction put", &|sk, len| {
            block_on(store.transact_write(TransactWriteRequest {
                actions: vec![TransactWriteItem::put("Tbl", with_gpk(sk, len))],
                client_request_token: None,
            }))
            .map(drop)
            .map_err(reasons_as_validation)
        }),
        ("transaction update", &|sk, len| {
            block_on(store.transact_write(TransactWriteRequest {
                actions: vec![TransactWriteItem::update("Tbl", key("p", sk), set_gpk(len))],
                client_request_token: None,
            }))
            .map(drop)
            .map_err(reasons_as_validation)
        }),
    ];
    for (path, write) in paths {
        let sk = path.to_owned();
        write(&sk, 2048).unwrap_or_else(|e| panic!("{path}: 2,048 bytes refused: {e}"));
        too_long(write(&sk, 2049), path);
        let stored = get(&store, key("p", &sk)).expect("the 2,048-byte write");
        assert_eq!(
            stored["GPK"],
            s(&"g".repeat(2048)),
            "{path}: nothing over the limit stored"
        );
    }
    assert_eq!(
        query_count(&store, Some("Gsi"), "GPK", &"g".repeat(2048)),
        5
    );
    check_invariants(&store);
}

/// A set with a repeated member is worded as DynamoDB's two validation layers word it (as
/// dynoxide records them): PutItem quotes the members in the order it read them, BatchWriteItem
/// lists them as sent, a number set names none (bare on the older layer); each message then says
/// where the set sits.
#[test]
fn duplicate_set_members_are_worded_per_operation() {
    let store = MemoryStore::new();
    block_on(store.create_table(&table_def())).unwrap();
    let with = |sk: &str, name: &str, set: AttributeValue| {
        let mut it = key("p", sk);
        it.insert(name.to_owned(), set);
        it
    };
    let ss = AttributeValue::Ss(["b", "a", "b", "C"].map(str::to_owned).to_vec());
    let bs = AttributeValue::Bs(vec![
        aws_smithy_types::Blob::new(vec![127, 0, 1]),
        aws_smithy_types::Blob::new(vec![127, 0, 1]),
    ]);
    let ns = AttributeValue::Ns(vec!["100".into(), "1e2".into()]);
    let message = |r: Result<()>| match r {
        Err(Error::Validation { message }) => message,
        other => panic!("expected a validation error, got {other:?}"),
    };
    let put_one = |it: Item| put(&store, it).map(drop);
    let batch_one = |it: Item| {
        block_on(store.batch_write(BatchWriteRequest {
            writes: vec![WriteRequest::put("Tbl", it)],
        }))
        .map(drop)
    };
    let invalid = "One or more parameter values were invalid: ";
    assert_eq!(
        message(put_one(with("1", "ss", ss.clone()))),
        format!(
            "{invalid}Input collection [\"a\", \"b\", \"b\", \"C\"] contains duplicates. (at ss)"
        )
    );
    assert_eq!(
        message(batch_one(with("1", "ss", ss))),
        format!("{invalid}Input collection [b, a, b, C] contains duplicates. (at ss)")
    );
    assert_eq!(
        message(put_one(with("1", "bs", bs.clone()))),
        format!(
            "{invalid}Input collection [\"fwAB\",\"fwAB\"]of type BS contains duplicates. (at bs)"
        )
    );
    assert_eq!(
        message(batch_one(with("1", "bs", bs))),
        format!("{invalid}Input collection [fwAB, fwAB]of type BS contains duplicates. (at bs)")
    );
    assert_eq!(
        message(put_one(with("1", "ns", ns.clone()))),
        format!("{invalid}Input collection contains duplicates. (at ns)")
    );
    assert_eq!(
        message(batch_one(with("1", "ns", ns))),
        "Input collection contains duplicates (at ns)"
    );
    assert!(get(&store, key("p", "1")).is_none(), "nothing written");
}

/// Faults named in dynoxide's order: a binary operand in base64, a key given twice before a key
/// that does not fit the schema, an invalid value in any put of a batch before a put without its
/// key.
#[test]
fn faults_are_named_in_the_reference_order_and_words() {
    let store = MemoryStore::new();
    let mut bin = TableDef::new("Bin", "PK", Some("SK"));
    bin.partition_key = crate::table::KeyAttribute::new("PK", crate::table::ScalarType::B);
    bin.sort_key = Some(crate::table::KeyAttribute::new(
        "SK",
        crate::table::ScalarType::B,
    ));
    block_on(store.create_table(&bin)).unwrap();
    block_on(store.create_table(&table_def())).unwrap();
    let blob = |b: &[u8]| AttributeValue::B(aws_smithy_types::Blob::new(b.to_vec()));
    let mut q = QueryRequest::new("Bin", None, KeyCondition::partition("PK", blob(&[0])));
    q.key_condition = q.key_condition.sort(
        "SK",
        crate::expr::SortCondition::Between(blob(&[2, 1]), blob(&[0])),
    );
    let message = |e: Error| match e {
        Error::Validation { message } => message,
        other => panic!("expected a validation error, got {other:?}"),
    };
    assert_eq!(
        message(block_on(store.query(q)).unwrap_err()),
        "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {B:AgE=}, upper bound operand: AttributeValue: {B:AA==}"
    );
    let table_key = |k: Item| TableKey {
        table: "Tbl".into(),
        key: k,
    };
    let keys = vec![
        table_key(key("p", "a")),
        table_key(item(&[("PK", s("p"))])),
        table_key(key("p", "a")),
    ];
    let got = block_on(store.batch_get(BatchGetRequest {
        keys,
        consistent_read: false,
    }));
    assert_eq!(
        message(got.unwrap_err()),
        "Provided list of item keys contains duplicates"
    );
    let mut dup = key("p", "b");
    dup.insert(
        "ns".into(),
        AttributeValue::Ns(vec!["100".into(), "1e2".into()]),
    );
    let got = block_on(store.batch_write(BatchWriteRequest {
        writes: vec![
            WriteRequest::put("Tbl", item(&[("PK", s("p"))])),
            WriteRequest::put("Tbl", dup),
        ],
    }));
    assert_eq!(
        message(got.unwrap_err()),
        "Input collection contains duplicates (at ns)"
    );
}

/// Every page of a scan of `index` (or the table), `limit` items a page, with the keys each item
/// came back with, in the order they came.
fn scan_keys(
    store: &MemoryStore,
    index: Option<&str>,
    segment: Option<(u32, u32)>,
    names: &[&str],
) -> Vec<Vec<String>> {
    let mut keys = Vec::new();
    let mut start = None;
    loop {
        let page = block_on(store.scan(ScanRequest {
            table: "Tbl".into(),
            index: index.map(str::to_owned),
            limit: Some(7),
            exclusive_start_key: start.take(),
            segment,
            ..ScanRequest::default()
        }))
        .unwrap();
        for it in &page.items {
            keys.push(
                names
                    .iter()
                    .map(|n| match &it[*n] {
                        AttributeValue::S(v) => v.clone(),
                        other => panic!("{n} is {other:?}"),
                    })
                    .collect(),
            );
        }
        match page.last_evaluated_key {
            Some(k) => start = Some(k),
            None => return keys,
        }
    }
}

/// The store holds what `model` says, its partition maps agree with their ordered keys (table and
/// indexes), and scans walk partitions in key order across pages and segments.
fn agrees_with(store: &MemoryStore, model: &std::collections::BTreeMap<(String, String), Item>) {
    check_invariants(store);
    let table: Vec<Vec<String>> = model
        .keys()
        .map(|(p, s)| vec![p.clone(), s.clone()])
        .collect();
    assert_eq!(
        scan_keys(store, None, None, &["PK", "SK"]),
        table,
        "table scan"
    );
    let mut index: Vec<Vec<String>> = model
        .values()
        .filter_map(|it| {
            let text = |n: &str| match it.get(n)? {
                AttributeValue::S(v) => Some(v.clone()),
                _ => None,
            };
            Some(vec![text("GPK")?, text("GSK")?, text("PK")?, text("SK")?])
        })
        .collect();
    index.sort();
    let names = ["GPK", "GSK", "PK", "SK"];
    assert_eq!(
        scan_keys(store, Some("Gsi"), None, &names),
        index,
        "index scan"
    );
    let mut segments: Vec<Vec<String>> = Vec::new();
    for segment in 0..3 {
        let keys = scan_keys(store, None, Some((segment, 3)), &["PK", "SK"]);
        assert!(keys.is_sorted(), "segment {segment} in key order");
        segments.extend(keys);
    }
    segments.sort();
    assert_eq!(segments, table, "the segments together are the table");
    // Point reads (the point entries) see every item as it is, and nothing else.
    for ((p, sk), it) in model {
        let got = block_on(store.get_item(GetRequest::new("Tbl", key(p, sk)))).unwrap();
        assert_eq!(got.item.as_deref(), Some(it), "get {p} {sk}");
    }
    // Every key the test writes at some point (users 0-7 and 100-500, a profile and five
    // orders each) that the model does not hold reads as absent: deleted, purged or never put.
    let users = (0..8).chain([100, 200, 300, 400, 500]);
    for p in users.map(|u| format!("U#{u}")) {
        for sk in std::iter::once("PROFILE".to_owned()).chain((0..5).map(|o| format!("O#{o}"))) {
            if model.contains_key(&(p.clone(), sk.clone())) {
                continue;
            }
            let got = block_on(store.get_item(GetRequest::new("Tbl", key(&p, &sk)))).unwrap();
            assert_eq!(got.item, None, "{p} {sk} is not in the model");
        }
    }
}

/// The partition maps (hashed, for lookups, beside their keys in order, for scans) stay in step
/// through every write path: put, update, delete, batch, transaction, TTL purge and UpdateTable's
/// backfill, in a table where users and their orders share partitions and a GSI, partitions
/// empty out and come back.
#[test]
fn partition_lookups_and_scan_order_agree_after_every_write_path() {
    let t = Timed::new();
    let store = &t.store;
    block_on(store.create_table(&table_def())).unwrap();
    let mut model = std::collections::BTreeMap::new();
    let profile = |u: u32| {
        item(&[
            ("PK", s(&format!("U#{u}"))),
            ("SK", s("PROFILE")),
            ("GPK", s(&format!("EMAIL#{u}"))),
            ("GSK", s("PROFILE")),
        ])
    };
    let order = |u: u32, o: u32| {
        let mut it = item(&[
            ("PK", s(&format!("U#{u}"))),
            ("SK", s(&format!("O#{o}"))),
            ("GPK", s(&format!("STATUS#{}", o % 3))),
            ("GSK", s(&format!("2024-0{}", 9 - o))),
        ]);
        if o == 4 {
            it.insert("expires".into(), n(T0 + 10));
        }
        it
    };
    let keyed = |it: &Item| {
        let text = |n: &str| match &it[n] {
            AttributeValue::S(v) => v.clone(),
            _ => unreachable!(),
        };
        (text("PK"), text("SK"))
    };
    // Put.
    for u in 0..8 {
        for it in std::iter::once(profile(u)).chain((0..5).map(|o| order(u, o))) {
            model.insert(keyed(&it), it.clone());
            put(store, it).unwrap();
        }
    }
    agrees_with(store, &model);
    // Update: moved to another index partition, and an update that makes an item (and its
    // partition).
    let set_gpk = |model: &mut std::collections::BTreeMap<_, _>, pk: &str, sk: &str, gpk: &str| {
        let out = block_on(store.update_item(UpdateRequest {
            table: "Tbl".into(),
            key: key(pk, sk),
            update: Update {
                set: vec![(Path::attr("GPK"), SetValue::value(s(gpk)))],
                ..Update::default()
            },
            condition: None,
            return_values: ReturnValues::AllNew,
            return_old_on_condition_failure: false,
        }))
        .unwrap();
        let new = out.attributes.unwrap();
        model.insert(keyed(&new), new);
    };
    for u in 0..8 {
        set_gpk(&mut model, &format!("U#{u}"), "O#1", "STATUS#MOVED");
    }
    set_gpk(&mut model, "U#100", "O#0", "STATUS#NEW");
    agrees_with(store, &model);
    // Delete: user 0's partition empties, user 1 loses its profile.
    let doomed: Vec<(String, String)> = model
        .keys()
        .filter(|(p, s)| p == "U#0" || (p == "U#1" && s == "PROFILE"))
        .cloned()
        .collect();
    for (p, sk) in doomed {
        block_on(store.delete_item(DeleteRequest {
            table: "Tbl".into(),
            key: key(&p, &sk),
            condition: None,
            return_values: ReturnValues::None,
            return_old_on_condition_failure: false,
        }))
        .unwrap();
        model.remove(&(p, sk));
    }
    agrees_with(store, &model);
    // Batch: a new partition, and user 2's emptied.
    let mut writes = Vec::new();
    for o in 0..3 {
        let it = order(200, o);
        model.insert(keyed(&it), it.clone());
        writes.push(WriteRequest::put("Tbl", it));
    }
    let doomed: Vec<(String, String)> = model.keys().filter(|(p, _)| p == "U#2").cloned().collect();
    for (p, sk) in doomed {
        writes.push(WriteRequest::delete("Tbl", key(&p, &sk)));
        model.remove(&(p, sk));
    }
    let out = block_on(store.batch_write(BatchWriteRequest { writes })).unwrap();
    assert!(out.unprocessed.is_empty());
    agrees_with(store, &model);
    // Transaction: a new partition, an item leaving the index, user 3's partition emptied.
    let mut actions = vec![TransactWriteItem::put("Tbl", order(300, 0))];
    model.insert(keyed(&order(300, 0)), order(300, 0));
    actions.push(TransactWriteItem::update(
        "Tbl",
        key("U#4", "O#0"),
        Update {
            remove: vec![Path::attr("GPK")],
            ..Update::default()
        },
    ));
    let moved = model
        .get_mut(&("U#4".to_owned(), "O#0".to_owned()))
        .unwrap();
    moved.remove("GPK");
    let doomed: Vec<(String, String)> = model.keys().filter(|(p, _)| p == "U#3").cloned().collect();
    for (p, sk) in doomed {
        actions.push(TransactWriteItem::delete("Tbl", key(&p, &sk)));
        model.remove(&(p, sk));
    }
    block_on(store.transact_write(TransactWriteRequest {
        actions,
        client_request_token: None,
    }))
    .unwrap();
    agrees_with(store, &model);
    // TTL: the orders 4 expire; the next write purges them.
    t.advance(60);
    let it = order(400, 0);
    model.insert(keyed(&it), it.clone());
    put(store, it).unwrap();
    model.retain(|(_, sk), _| sk != "O#4");
    agrees_with(store, &model);
    {
        let tables = read_lock(&store.tables);
        let data = read_lock(&tables["Tbl"].data);
        assert_eq!(data.len, model.len(), "expired items purged");
    }
    // TTL off and on again: every entry's expiry is recomputed (an item expiring later keeps
    // it through the toggle, and has none while TTL is off).
    let it = item(&[
        ("PK", s("U#500")),
        ("SK", s("O#0")),
        ("expires", n(T0 + 1000)),
    ]);
    model.insert(keyed(&it), it.clone());
    put(store, it).unwrap();
    block_on(store.update_ttl("Tbl", "expires", false)).unwrap();
    agrees_with(store, &model);
    block_on(store.update_ttl("Tbl", "expires", true)).unwrap();
    agrees_with(store, &model);
    // UpdateTable: a GSI backfilled from the items, then dropped.
    block_on(
        store.update_table(crate::store::UpdateTableRequest::create_index(
            "Tbl",
            IndexDef::new("Late", "GSK", Some("PK")),
        )),
    )
    .unwrap();
    agrees_with(store, &model);
    let late = block_on(store.scan(ScanRequest {
        table: "Tbl".into(),
        index: Some("Late".into()),
        ..ScanRequest::default()
    }))
    .unwrap();
    let with_gsk = model.values().filter(|it| it.contains_key("GSK")).count();
    assert_eq!(
        late.count, with_gsk,
        "every item with a GSK is in the new index"
    );
    block_on(
        store.update_table(crate::store::UpdateTableRequest::delete_index(
            "Tbl", "Late",
        )),
    )
    .unwrap();
    agrees_with(store, &model);
    // Every partition emptied: nothing left in either structure.
    let keys: Vec<(String, String)> = model.keys().cloned().collect();
    let writes: Vec<WriteRequest> = keys
        .iter()
        .map(|(p, sk)| WriteRequest::delete("Tbl", key(p, sk)))
        .collect();
    for chunk in writes.chunks(25) {
        block_on(store.batch_write(BatchWriteRequest {
            writes: chunk.to_vec(),
        }))
        .unwrap();
    }
    model.clear();
    agrees_with(store, &model);
    let tables = read_lock(&store.tables);
    let data = read_lock(&tables["Tbl"].data);
    assert!(data.partitions.is_empty() && data.indexes.iter().all(|m| m.is_empty()));
}
