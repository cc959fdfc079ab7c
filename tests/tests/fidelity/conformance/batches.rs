//! BatchGetItem and BatchWriteItem: limits, duplicates, all-or-nothing validation, several tables.

use futures::future::BoxFuture;

use super::support::*;
use super::{BackendKind, HASH, MAIN};

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "batch and transactional reads and batch writes report the capacity they consume",
            tables: &[MAIN],
            run: batch_capacity,
            deviations: vec![
                differs(BackendKind::Dynalite, "dynalite reports no consumed capacity for batches and transactional reads"),
                differs(BackendKind::Moto, "moto reports other consumed capacity for batches and transactional reads"),
            ],
        },
        Scenario {
            name: "25 writes and 100 keys per batch",
            tables: &[MAIN],
            run: full_batches,
            deviations: vec![],
        },
        Scenario {
            name: "batch sizes outside 1..=25 writes and 1..=100 keys are rejected",
            tables: &[MAIN],
            run: batch_limits,
            deviations: vec![
                differs(
                    BackendKind::Moto,
                    "moto accepts a BatchWriteItem of 26 writes and a BatchGetItem of 101 keys",
                ),
                words(
                    BackendKind::Dynoxide,
                    "dynoxide answers 101 keys with a length-constraint message; BatchGetItem's reference says DynamoDB answers \"Too many items requested for the BatchGetItem call\"",
                ),
            ],
        },
        Scenario {
            name: "a BatchGetItem response holds at most 16 MB",
            tables: &[MAIN],
            run: sixteen_megabytes,
            deviations: vec![
                differs(BackendKind::Dynalite, "dynalite returns about 1 MB per BatchGetItem (4 of the 42 items) and leaves the rest unprocessed"),
                differs(BackendKind::Moto, "moto refuses a 409,009-byte item as over 400 KB (it measures item sizes otherwise)"),
            ],
        },
        Scenario {
            name: "duplicate keys in a batch are rejected",
            tables: &[MAIN],
            run: batch_duplicates,
            deviations: vec![differs(
                BackendKind::Moto,
                "moto accepts two writes on one key in a BatchWriteItem",
            )],
        },
        Scenario {
            name: "one invalid write rejects the whole batch",
            tables: &[MAIN],
            run: batch_atomic_validation,
            deviations: vec![differs(
                BackendKind::Moto,
                "moto writes the valid items of a batch it rejects",
            )],
        },
        Scenario {
            name: "a batch delete whose key has an extra attribute is rejected",
            tables: &[MAIN],
            run: batch_delete_extra_attribute,
            deviations: vec![
                crashes(
                    BackendKind::Dynalite,
                    "dynalite 3.2.2 exits with an uncaught exception on this request",
                ),
                differs(
                    BackendKind::Moto,
                    "moto accepts the key and writes the batch",
                ),
            ],
        },
        Scenario {
            name: "batches across tables; missing tables",
            tables: &[MAIN, HASH],
            run: batch_tables,
            deviations: vec![],
        },
    ]
}

fn put_w(table: &str, pk: &str, sk: &str) -> WriteRequest {
    WriteRequest::put(table, item! {"PK" => s(pk), "SK" => s(sk), "v" => s("x")})
}

fn key_of(table: &str, pk: &str, sk: &str) -> TableKey {
    TableKey {
        table: table.into(),
        key: key(pk, sk),
    }
}

fn full_batches(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        for chunk in 0..4 {
            let writes = (0..25)
                .map(|i| put_w("main", "p", &format!("{:03}", chunk * 25 + i)))
                .collect();
            let o = c
                .batch_write("25 puts", BatchWriteRequest::new(writes))
                .await;
            c.eq(o, Out::Unprocessed(0), "25 puts");
        }
        let keys = (0..100)
            .map(|i| key_of("main", "p", &format!("{i:03}")))
            .collect();
        let o = c.batch_get("100 keys", BatchGetRequest::new(keys)).await;
        c.eq(o.items().len(), 100, "100 items");
        let keys = vec![
            key_of("main", "p", "000"),
            key_of("main", "p", "missing"),
            key_of("main", "q", "000"),
        ];
        let o = c
            .batch_get(
                "missing keys are left out",
                BatchGetRequest::new(keys).with_consistent_read(true),
            )
            .await;
        c.eq(
            o,
            Out::Batch {
                items: vec![(
                    "main".into(),
                    item! {"PK" => s("p"), "SK" => s("000"), "v" => s("x")},
                )],
                unprocessed: 0,
            },
            "only present items",
        );
        let writes = (0..25)
            .map(|i| WriteRequest::delete("main", key("p", &format!("{i:03}"))))
            .collect();
        let o = c
            .batch_write("25 deletes", BatchWriteRequest::new(writes))
            .await;
        c.eq(o, Out::Unprocessed(0), "25 deletes");
        let o = c
            .query("75 items remain", query("main", None, "PK", s("p")))
            .await;
        c.eq(o.counts(), (75, 75), "deleted 25");
    })
}

fn batch_limits(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let writes = (0..26)
            .map(|i| put_w("main", "p", &format!("{i}")))
            .collect();
        let o = c
            .batch_write("26 writes", BatchWriteRequest::new(writes))
            .await;
        c.invalid(&o, "26 writes");
        let o = c
            .batch_write("no writes", BatchWriteRequest::new(vec![]))
            .await;
        c.invalid(&o, "0 writes");
        let keys = (0..101)
            .map(|i| key_of("main", "p", &format!("{i}")))
            .collect();
        let o = c.batch_get("101 keys", BatchGetRequest::new(keys)).await;
        c.invalid(&o, "101 keys");
        let o = c.batch_get("no keys", BatchGetRequest::new(vec![])).await;
        c.invalid(&o, "0 keys");
        let o = c.scan("nothing written", scan("main")).await;
        c.eq(o.counts(), (0, 0), "rejected batches write nothing");
    })
}

fn batch_duplicates(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let o = c
            .batch_write(
                "two puts on one key",
                BatchWriteRequest::new(vec![put_w("main", "p", "1"), put_w("main", "p", "1")]),
            )
            .await;
        c.invalid(&o, "duplicate puts");
        let writes = vec![
            put_w("main", "p", "1"),
            WriteRequest::delete("main", key("p", "1")),
        ];
        let o = c
            .batch_write(
                "a put and a delete on one key",
                BatchWriteRequest::new(writes),
            )
            .await;
        c.invalid(&o, "put and delete on one key");
        let keys = vec![key_of("main", "p", "1"), key_of("main", "p", "1")];
        let o = c
            .batch_get("one key twice", BatchGetRequest::new(keys))
            .await;
        c.invalid(&o, "duplicate keys");
        let o = c
            .batch_write(
                "same sort key, other partitions",
                BatchWriteRequest::new(vec![put_w("main", "p", "1"), put_w("main", "q", "1")]),
            )
            .await;
        c.eq(o, Out::Unprocessed(0), "distinct keys");
    })
}

fn batch_atomic_validation(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let writes = vec![
            put_w("main", "p", "1"),
            WriteRequest::put("main", item! {"PK" => s("p")}),
            put_w("main", "p", "3"),
        ];
        let o = c
            .batch_write("a put without its sort key", BatchWriteRequest::new(writes))
            .await;
        c.invalid(&o, "missing key");
        let writes = vec![
            put_w("main", "p", "1"),
            WriteRequest::put(
                "main",
                item! {"PK" => s("p"), "SK" => s("2"), "v" => s(big(400 * 1024))},
            ),
        ];
        let o = c
            .batch_write("an item over 400 KB", BatchWriteRequest::new(writes))
            .await;
        c.fails(&o, Failure::TooLarge, "item too large");
        let o = c.scan("nothing written", scan("main")).await;
        c.eq(o.counts(), (0, 0), "an invalid batch writes nothing");
        let keys = vec![
            key_of("main", "p", "1"),
            TableKey {
                table: "main".into(),
                key: item! {"PK" => s("p")},
            },
        ];
        let o = c
            .batch_get("a key without its sort key", BatchGetRequest::new(keys))
            .await;
        c.invalid(&o, "invalid key in batch get");
    })
}

fn batch_delete_extra_attribute(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let writes = vec![
            put_w("main", "p", "1"),
            WriteRequest::delete(
                "main",
                item! {"PK" => s("p"), "SK" => s("2"), "v" => s("x")},
            ),
        ];
        let o = c
            .batch_write(
                "a delete with an extra attribute",
                BatchWriteRequest::new(writes),
            )
            .await;
        c.invalid(&o, "extra key attribute");
        let o = c.scan("nothing written", scan("main")).await;
        c.eq(o.counts(), (0, 0), "an invalid batch writes nothing");
    })
}

fn batch_tables(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let writes = vec![
            put_w("main", "p", "1"),
            WriteRequest::put(
                "hash",
                item! {"PK" => s("h1"), "email" => s("a@x"), "name" => s("A")},
            ),
            WriteRequest::put("hash", item! {"PK" => s("h2")}),
        ];
        let o = c
            .batch_write("writes to two tables", BatchWriteRequest::new(writes))
            .await;
        c.eq(o, Out::Unprocessed(0), "two tables");
        let keys = vec![
            key_of("main", "p", "1"),
            TableKey {
                table: "hash".into(),
                key: item! {"PK" => s("h1")},
            },
            TableKey {
                table: "hash".into(),
                key: item! {"PK" => s("h2")},
            },
        ];
        let o = c
            .batch_get("reads from two tables", BatchGetRequest::new(keys))
            .await;
        c.eq(o.items().len(), 3, "three items");
        let o = c
            .batch_write(
                "a write to a missing table",
                BatchWriteRequest::new(vec![put_w("no-such-table", "p", "1")]),
            )
            .await;
        c.fails(&o, Failure::NotFound, "missing table");
        let keys = vec![key_of("main", "p", "1"), key_of("no-such-table", "p", "1")];
        let o = c
            .batch_get("a read from a missing table", BatchGetRequest::new(keys))
            .await;
        c.fails(&o, Failure::NotFound, "missing table");
    })
}

/// BatchGetItem returns at most 16 MB of items and leaves the rest in UnprocessedKeys, at the
/// exact boundary: 42 items of 16,777,216 bytes in all (DynamoDB's item size formula) come back
/// whole; one byte more leaves the last key unprocessed.
fn sixteen_megabytes(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        // Each item: "PK" + "bg" (4) + "SK" + two digits (4) + "x" + the padding (1 + pad); 41
        // items of 409,009 bytes and the last of 7,847 make 16,777,216.
        let item = |i: usize, pad: usize| {
            item! {"PK" => s("bg"), "SK" => s(format!("{i:02}")), "x" => s("x".repeat(pad))}
        };
        for i in 0..41 {
            c.put("a 409,009-byte item", "main", item(i, 409_000)).await;
        }
        let keys = || {
            (0..42)
                .map(|i| key_of("main", "bg", &format!("{i:02}")))
                .collect()
        };
        let get = |label| (label, BatchGetRequest::new(keys()));
        c.put("the last item, to exactly 16 MB", "main", item(41, 7_838))
            .await;
        let (label, request) = get("exactly 16 MB");
        let o = c.batch_get(label, request).await;
        c.eq(
            (o.items().len(), o.unprocessed()),
            (42, 0),
            "16,777,216 bytes returned whole",
        );
        c.put("the last item, one byte more", "main", item(41, 7_839))
            .await;
        let (label, request) = get("16 MB and one byte");
        let o = c.batch_get(label, request).await;
        c.eq(
            (o.items().len(), o.unprocessed()),
            (41, 1),
            "the key past 16 MB is left unprocessed",
        );
    })
}

/// Each batch write charged as the single-item write it is (one unit per KB of the item, and one
/// per index entry written or removed), each batch key as a GetItem (a missing item the minimum,
/// half when eventually consistent), each transactional read twice a strongly consistent read,
/// a missing item too (Developer Guide, "Read and write capacity units" and "Capacity management
/// for transactions"). dynoxide's figures are compared with these on every request.
fn batch_capacity(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let indexed =
            item! {"PK" => s("u1"), "SK" => s("a"), "GSI1PK" => s("G"), "GSI1SK" => s("1")};
        let plain = item! {"PK" => s("u1"), "SK" => s("b")};
        let big = item! {"PK" => s("u2"), "SK" => s("c"), "blob" => s(big(5000))};
        let puts = [indexed, plain, big]
            .into_iter()
            .map(|item| WriteRequest::put("main", item))
            .collect();
        let o = c
            .batch_write("three puts", BatchWriteRequest::new(puts))
            .await;
        c.eq(o, Out::Unprocessed(0), "written");
        // 1 + 1 (GSI1 entry), 1, 5 (5,0xx bytes).
        c.eq(c.units(), Some(8.0), "write units of the puts");
        let keys = |ks: &[(&str, &str)]| {
            ks.iter()
                .map(|(p, s)| TableKey {
                    table: "main".into(),
                    key: key(p, s),
                })
                .collect()
        };
        let o = c
            .batch_get(
                "two items and a missing one, eventually consistent",
                BatchGetRequest::new(keys(&[("u1", "a"), ("u2", "c"), ("u9", "z")])),
            )
            .await;
        c.check(o.is_ok(), format!("read: {o}"));
        // 0.5 + 1 (5 KB: two 4 KB units, halved) + 0.5.
        c.eq(c.units(), Some(2.0), "read units, eventually consistent");
        let o = c
            .batch_get(
                "the same, strongly consistent",
                BatchGetRequest::new(keys(&[("u1", "a"), ("u2", "c"), ("u9", "z")]))
                    .with_consistent_read(true),
            )
            .await;
        c.check(o.is_ok(), format!("read: {o}"));
        c.eq(c.units(), Some(4.0), "read units, strongly consistent");
        let gets = [("u1", "a"), ("u2", "c"), ("u9", "z")]
            .iter()
            .map(|(p, s)| TransactGetItem::new("main", key(p, s)))
            .collect();
        let o = c
            .transact_get(
                "a transactional read of the three",
                TransactGetRequest::new(gets),
            )
            .await;
        c.check(o.is_ok(), format!("read: {o}"));
        // 2 x (1 + 2 + 1).
        c.eq(c.units(), Some(8.0), "transactional read units");
        let deletes = [("u1", "a"), ("u9", "z")]
            .iter()
            .map(|(p, s)| WriteRequest::delete("main", key(p, s)))
            .collect();
        let o = c
            .batch_write(
                "delete an indexed item and a missing one",
                BatchWriteRequest::new(deletes),
            )
            .await;
        c.eq(o, Out::Unprocessed(0), "deleted");
        // 1 + 1 (its GSI1 entry removed), 1 (a delete of nothing).
        c.eq(c.units(), Some(3.0), "write units of the deletes");
    })
}
