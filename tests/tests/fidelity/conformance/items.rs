//! Items: round trips, projections, key validation, number precision, sets, the 400 KB limit.

use futures::future::BoxFuture;

use super::support::*;
use super::{BackendKind, BIN, MAIN, NUM};

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "put then get round-trips every type",
            tables: &[MAIN],
            run: round_trip,
            deviations: vec![],
        },
        Scenario {
            name: "get with a projection",
            tables: &[MAIN],
            run: projection,
            deviations: vec![differs(BackendKind::Moto, "moto rejects projections with list indexes or absent paths and accepts overlapping paths")],
        },
        Scenario {
            name: "put replaces the whole item",
            tables: &[MAIN],
            run: replace,
            deviations: vec![],
        },
        Scenario {
            name: "key attributes are validated on put",
            tables: &[MAIN],
            run: put_keys,
            deviations: vec![],
        },
        Scenario {
            name: "keys are validated on get and delete",
            tables: &[MAIN],
            run: lookup_keys,
            deviations: vec![differs(BackendKind::Moto, "moto answers a get whose key has the wrong type with no item")],
        },
        Scenario {
            name: "key size limits: 2048-byte partition, 1024-byte sort key",
            tables: &[MAIN],
            run: key_sizes,
            deviations: vec![differs(BackendKind::Moto, "moto answers a get with a 1025-byte sort key with no item")],
        },
        Scenario {
            name: "400 KB item limit by DynamoDB's size formula",
            tables: &[MAIN],
            run: item_size,
            deviations: vec![differs(BackendKind::Moto, "moto sizes items differently: it rejects an item of exactly 400 KB and accepts an update past it")],
        },
        Scenario {
            name: "numbers: 38 digits of precision, magnitude limits",
            tables: &[MAIN],
            run: numbers,
            deviations: vec![differs(BackendKind::Moto, "moto keeps numbers as sent (1.50, 25E-1, -0) and accepts 39 digits and 1e126")],
        },
        Scenario {
            name: "number keys compare by value",
            tables: &[NUM],
            run: number_keys,
            deviations: vec![differs(BackendKind::Moto, "moto returns a number key as sent (1e3) instead of normalized (1000)")],
        },
        Scenario {
            name: "sets must be non-empty and without duplicates",
            tables: &[MAIN],
            run: sets,
            deviations: vec![differs(BackendKind::Moto, "moto accepts duplicate set elements and an empty binary set")],
        },
        Scenario {
            name: "an empty attribute name is refused anywhere in a write; NULL and empty maps stay",
            tables: &[MAIN],
            run: empty_names,
            deviations: vec![
                differs(BackendKind::Moto, "moto accepts an empty map key"),
                differs(BackendKind::Dynalite, "dynalite accepts an empty map key"),
            ],
        },
        Scenario {
            name: "binary keys round-trip and sort bytewise",
            tables: &[BIN],
            run: binary_keys,
            deviations: vec![differs(BackendKind::Moto, "moto accepts an empty binary partition key")],
        },
    ]
}

fn full_item() -> Item {
    item! {
        "PK" => s("p"), "SK" => s("all-types"),
        "str" => s("héllo"), "num" => n("-12.5"), "bin" => b(&[0, 1, 255]),
        "yes" => AttributeValue::Bool(true), "nothing" => AttributeValue::Null(true),
        "list" => l(vec![s("a"), n(1), l(vec![AttributeValue::Bool(false)])]),
        "map" => m(item! {"inner" => m(item! {"deep" => s("x")}), "n" => n(2)}),
        "ss" => ss(&["b", "a"]), "ns" => ns(&["3", "1"]),
        "bs" => AttributeValue::Bs(vec![aws_sdk_dynamodb::primitives::Blob::new(vec![1]), aws_sdk_dynamodb::primitives::Blob::new(vec![2])]),
    }
}

fn round_trip(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let o = c.put("put all types", "main", full_item()).await;
        c.ok(&o, "put all types");
        let o = c.get("get it back", "main", key("p", "all-types")).await;
        c.eq(
            o.item().map(|i| show(&i)),
            Some(show(&full_item())),
            "round trip",
        );
        let o = c
            .get("get a missing key", "main", key("p", "missing"))
            .await;
        c.eq(o, Out::Item(None), "missing item");
        let o = c
            .get("get from another partition", "main", key("q", "all-types"))
            .await;
        c.eq(o, Out::Item(None), "other partition");
    })
}

fn projection(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        c.put("put", "main", full_item()).await;
        let mut r = GetRequest::new("main", key("p", "all-types")).consistent();
        r.projection = Some(vec![
            Path::attr("str"),
            Path::attr("map").key("inner").key("deep"),
            Path::attr("list").index(1),
            Path::attr("absent"),
        ]);
        let o = c.get_req("projected get", r.clone()).await;
        let want = item! {
            "str" => s("héllo"),
            "map" => m(item! {"inner" => m(item! {"deep" => s("x")})}),
            "list" => l(vec![n(1)]),
        };
        c.eq(
            o.item().map(|i| show(&i)),
            Some(show(&want)),
            "projection keeps only the paths",
        );
        r.projection = Some(vec![Path::attr("map"), Path::attr("map").key("n")]);
        let o = c.get_req("overlapping projection paths", r).await;
        c.invalid(&o, "overlapping paths");
    })
}

fn replace(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        c.put(
            "first",
            "main",
            item! {"PK" => s("p"), "SK" => s("s"), "a" => s("1"), "b" => s("2")},
        )
        .await;
        let o = c
            .put(
                "second",
                "main",
                item! {"PK" => s("p"), "SK" => s("s"), "c" => s("3")},
            )
            .await;
        c.eq(o, Out::Written(None), "no return values by default");
        let o = c.get("get", "main", key("p", "s")).await;
        c.eq(
            o.item(),
            Some(item! {"PK" => s("p"), "SK" => s("s"), "c" => s("3")}),
            "old attributes are gone",
        );
    })
}

fn put_keys(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let cases = [
            ("missing sort key", item! {"PK" => s("p"), "a" => s("x")}),
            ("missing partition key", item! {"SK" => s("s")}),
            (
                "partition key of the wrong type",
                item! {"PK" => n(1), "SK" => s("s")},
            ),
            (
                "sort key of the wrong type",
                item! {"PK" => s("p"), "SK" => b(b"s")},
            ),
            ("empty partition key", item! {"PK" => s(""), "SK" => s("s")}),
            ("empty sort key", item! {"PK" => s("p"), "SK" => s("")}),
        ];
        for (what, item) in cases {
            let o = c.put(what, "main", item).await;
            c.invalid(&o, what);
        }
        let o = c.scan("nothing was written", scan("main")).await;
        c.eq(o.counts(), (0, 0), "no item written");
        let o = c
            .put("put on a missing table", "no-such-table", key("p", "s"))
            .await;
        c.fails(&o, Failure::NotFound, "missing table");
    })
}

fn lookup_keys(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        c.put(
            "put",
            "main",
            item! {"PK" => s("p"), "SK" => s("s"), "a" => s("x")},
        )
        .await;
        let cases = [
            ("get without the sort key", item! {"PK" => s("p")}),
            (
                "get with an extra attribute",
                item! {"PK" => s("p"), "SK" => s("s"), "a" => s("x")},
            ),
            (
                "get with a key of the wrong type",
                item! {"PK" => s("p"), "SK" => n(1)},
            ),
            (
                "get with an empty partition key",
                item! {"PK" => s(""), "SK" => s("s")},
            ),
            (
                "get with a non-key attribute instead of the sort key",
                item! {"PK" => s("p"), "a" => s("x")},
            ),
        ];
        for (what, k) in cases {
            let o = c.get(what, "main", k).await;
            c.invalid(&o, what);
        }
        let o = c
            .delete(
                "delete with an extra attribute",
                delete(
                    "main",
                    item! {"PK" => s("p"), "SK" => s("s"), "a" => s("x")},
                ),
            )
            .await;
        c.invalid(&o, "delete with an extra attribute");
        let o = c
            .delete(
                "delete without the sort key",
                delete("main", item! {"PK" => s("p")}),
            )
            .await;
        c.invalid(&o, "delete without the sort key");
        let o = c
            .get("the item is still there", "main", key("p", "s"))
            .await;
        c.check(o.item().is_some(), "item survives invalid deletes");
        let o = c
            .get("get on a missing table", "no-such-table", key("p", "s"))
            .await;
        c.fails(&o, Failure::NotFound, "missing table");
    })
}

fn key_sizes(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let o = c
            .put("partition key of 2048 bytes", "main", key(&big(2048), "s"))
            .await;
        c.ok(&o, "2048-byte partition key");
        let o = c
            .put("partition key of 2049 bytes", "main", key(&big(2049), "s"))
            .await;
        c.invalid(&o, "2049-byte partition key");
        let o = c
            .put("sort key of 1024 bytes", "main", key("p", &big(1024)))
            .await;
        c.ok(&o, "1024-byte sort key");
        let o = c
            .put("sort key of 1025 bytes", "main", key("p", &big(1025)))
            .await;
        c.invalid(&o, "1025-byte sort key");
        let o = c
            .get(
                "get with a sort key of 1025 bytes",
                "main",
                key("p", &big(1025)),
            )
            .await;
        c.invalid(&o, "get with 1025-byte sort key");
        let o = c
            .get("get the 2048-byte partition", "main", key(&big(2048), "s"))
            .await;
        c.check(o.item().is_some(), "2048-byte partition key readable");
    })
}

fn item_size(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        // Names count: "PK" + "p", "SK" + "s", "data" + value.
        let fixed = 2 + 1 + 2 + 1 + 4;
        let at_limit = item! {"PK" => s("p"), "SK" => s("s"), "data" => s(big(400 * 1024 - fixed))};
        let o = c.put("item of exactly 400 KB", "main", at_limit).await;
        c.ok(&o, "400 KB item");
        let over = item! {"PK" => s("p"), "SK" => s("t"), "data" => s(big(400 * 1024 - fixed + 1))};
        let o = c.put("item of 400 KB + 1 byte", "main", over).await;
        c.fails(&o, Failure::TooLarge, "item over 400 KB");
        let grow = update("main", key("p", "s"), set(&[("more", s("x"))]));
        let o = c
            .update("an update growing the item past 400 KB", grow)
            .await;
        c.invalid(&o, "updated item over 400 KB");
        let o = c
            .get("the big item reads back", "main", key("p", "s"))
            .await;
        c.eq(
            o.item()
                .and_then(|i| i.get("data").map(text).map(|t| t.len())),
            Some(400 * 1024 - fixed),
            "size kept",
        );
        let o = c
            .get("the oversized item was not written", "main", key("p", "t"))
            .await;
        c.eq(o, Out::Item(None), "oversized not written");
    })
}

fn numbers(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let digits38 = "12345678901234567890123456789012345678";
        let o = c
            .put(
                "38 significant digits",
                "main",
                item! {"PK" => s("p"), "SK" => s("38"), "v" => n(digits38)},
            )
            .await;
        c.ok(&o, "38 digits");
        let o = c.get("read 38 digits", "main", key("p", "38")).await;
        c.eq(
            o.item().and_then(|i| i.get("v").map(text)),
            Some(digits38.to_owned()),
            "38 digits kept exactly",
        );
        let o = c.put("39 significant digits", "main", item! {"PK" => s("p"), "SK" => s("39"), "v" => n("1234567890123456789012345678901234567891")}).await;
        c.invalid(&o, "39 digits");
        let o = c
            .put(
                "magnitude above 1e126",
                "main",
                item! {"PK" => s("p"), "SK" => s("big"), "v" => n("1e126")},
            )
            .await;
        c.invalid(&o, "1e126");
        let o = c
            .put(
                "magnitude below 1e-130",
                "main",
                item! {"PK" => s("p"), "SK" => s("small"), "v" => n("1e-131")},
            )
            .await;
        c.invalid(&o, "1e-131");
        let o = c
            .put(
                "not a number",
                "main",
                item! {"PK" => s("p"), "SK" => s("nan"), "v" => n("12abc")},
            )
            .await;
        c.invalid(&o, "not a number");
        let o = c.put("trailing zeros and exponent", "main", item! {"PK" => s("p"), "SK" => s("norm"), "v" => n("1.50"), "w" => n("25E-1"), "z" => n("-0")}).await;
        c.ok(&o, "numbers in other forms");
        let o = c
            .get("numbers come back normalized", "main", key("p", "norm"))
            .await;
        let got = o
            .item()
            .map(|i| (text(&i["v"]), text(&i["w"]), text(&i["z"])));
        c.eq(
            got,
            Some(("1.5".to_owned(), "2.5".to_owned(), "0".to_owned())),
            "normalized numbers",
        );
    })
}

fn number_keys(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let values = [
            "10", "-1.5", "2", "0", "-10", "0.5", "100", "-1", "1e3", "1.25",
        ];
        let writes = values
            .iter()
            .map(|v| WriteRequest::put("num", item! {"PK" => s("p"), "SK" => n(v)}))
            .collect();
        let o = c
            .batch_write("write numeric sort keys", BatchWriteRequest::new(writes))
            .await;
        c.eq(o, Out::Unprocessed(0), "batch write");
        let o = c
            .query("ascending numeric order", query("num", None, "PK", s("p")))
            .await;
        c.values(
            &o,
            "SK",
            &[
                "-10", "-1.5", "-1", "0", "0.5", "1.25", "2", "10", "100", "1000",
            ],
            "numeric order",
        );
        let mut q = query("num", None, "PK", s("p"));
        q.scan_forward = false;
        q.limit = Some(3);
        let o = c.query("descending, limit 3", q).await;
        c.values(&o, "SK", &["1000", "100", "10"], "descending");
        let o = c
            .get(
                "get 1.0 finds 1 (no such item)",
                "num",
                item! {"PK" => s("p"), "SK" => n("1.0")},
            )
            .await;
        c.eq(o, Out::Item(None), "1 absent");
        let o = c
            .get(
                "get 2.00 finds 2",
                "num",
                item! {"PK" => s("p"), "SK" => n("2.00")},
            )
            .await;
        c.check(o.item().is_some(), "2.00 equals 2");
        let o = c
            .get(
                "get 10E2 finds 1e3",
                "num",
                item! {"PK" => s("p"), "SK" => n("10E2")},
            )
            .await;
        c.check(o.item().is_some(), "10E2 equals 1e3");
        let mut q = query("num", None, "PK", s("p"));
        q.key_condition = q
            .key_condition
            .sort("SK", SortCondition::Between(n("-1.5"), n("1")));
        let o = c.query("between -1.5 and 1", q).await;
        c.values(&o, "SK", &["-1.5", "-1", "0", "0.5"], "numeric between");
    })
}

fn sets(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let cases = [
            ("empty string set", ss(&[])),
            ("duplicate strings in a set", ss(&["a", "a"])),
            ("empty number set", ns(&[])),
            ("duplicate numbers in a set", ns(&["1", "1"])),
            ("empty binary set", AttributeValue::Bs(vec![])),
            ("empty set inside a map", m(item! {"inner" => ss(&[])})),
        ];
        for (what, v) in cases {
            let o = c
                .put(
                    what,
                    "main",
                    item! {"PK" => s("p"), "SK" => s("set"), "v" => v},
                )
                .await;
            c.invalid(&o, what);
        }
        let o = c.put("valid sets", "main", item! {"PK" => s("p"), "SK" => s("set"), "v" => ss(&["x", "y"]), "w" => ns(&["1", "2.5"])}).await;
        c.ok(&o, "valid sets");
        let o = c.get("sets read back", "main", key("p", "set")).await;
        c.eq(o.item().map(|i| show(&i)), Some(show(&item! {"PK" => s("p"), "SK" => s("set"), "v" => ss(&["x", "y"]), "w" => ns(&["1", "2.5"])})), "sets");
    })
}

fn binary_keys(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let sks: [&[u8]; 6] = [&[0x80], &[0x00], &[0xff], &[0x7f], &[0x00, 0x00], &[0x01]];
        for sk in sks {
            let o = c
                .put(
                    "put binary key",
                    "bin",
                    item! {"PK" => b(b"p"), "SK" => b(sk)},
                )
                .await;
            c.ok(&o, "binary put");
        }
        let o = c
            .query("bytewise order", query("bin", None, "PK", b(b"p")))
            .await;
        let got: Vec<Vec<u8>> = o
            .items()
            .iter()
            .filter_map(|i| match i.get("SK") {
                Some(AttributeValue::B(b)) => Some(b.as_ref().to_vec()),
                _ => None,
            })
            .collect();
        c.eq(
            got,
            vec![
                vec![0x00],
                vec![0x00, 0x00],
                vec![0x01],
                vec![0x7f],
                vec![0x80],
                vec![0xff],
            ],
            "binary order",
        );
        let mut q = query("bin", None, "PK", b(b"p"));
        q.key_condition = q
            .key_condition
            .sort("SK", SortCondition::BeginsWith(b(&[0x00])));
        let o = c.query("begins_with on a binary sort key", q).await;
        c.eq(o.counts(), (2, 2), "binary prefix");
        let o = c
            .put(
                "empty binary partition key",
                "bin",
                item! {"PK" => b(b""), "SK" => b(b"x")},
            )
            .await;
        c.invalid(&o, "empty binary key");
    })
}

/// DynamoDB refuses an empty attribute name wherever a write carries one (a map key at any
/// depth: "Empty attribute name"), before it looks at the table; MemoryStore accepted it, so a
/// test passed locally and failed in production. NULL values and empty maps are stored as they
/// are (a typed map writes `None` values as NULL).
fn empty_names(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let empty_key = || m(item! {"" => n("1")});
        let cases = [
            ("a map with an empty key", empty_key()),
            (
                "an empty key deep in a map",
                m(item! {"a" => m(item! {"" => s("x")})}),
            ),
            (
                "an empty key in a map inside a list",
                l(vec![s("x"), empty_key()]),
            ),
        ];
        for (what, v) in cases {
            let o = c
                .put(
                    what,
                    "main",
                    item! {"PK" => s("p"), "SK" => s("e"), "v" => v},
                )
                .await;
            c.invalid(&o, what);
        }
        let set = |v: AttributeValue| Update {
            set: vec![(Path::attr("v"), SetValue::value(v))],
            ..Update::default()
        };
        let o = c
            .update(
                "an update setting a map with an empty key",
                update("main", key("p", "e"), set(empty_key())),
            )
            .await;
        c.invalid(&o, "update value with an empty key");
        let mut d = delete("main", key("p", "e"));
        d.condition = Some(Condition::eq("v", empty_key()));
        let o = c
            .delete("a delete whose condition value has an empty key", d)
            .await;
        c.invalid(&o, "condition value with an empty key");
        let o = c
            .batch_write(
                "a batch put of an item with an empty map key",
                BatchWriteRequest::new(vec![WriteRequest::put(
                    "main",
                    item! {"PK" => s("p"), "SK" => s("e"), "v" => empty_key()},
                )]),
            )
            .await;
        c.invalid(&o, "batch put with an empty key");
        let o = c
            .transact_write(
                "a transaction putting an item with an empty map key",
                TransactWriteRequest::new(vec![TransactWriteItem::put(
                    "main",
                    item! {"PK" => s("p"), "SK" => s("e"), "v" => empty_key()},
                )]),
            )
            .await;
        c.invalid(&o, "transaction put with an empty key");
        let o = c
            .transact_write(
                "a transaction update whose value has an empty map key",
                TransactWriteRequest::new(vec![TransactWriteItem::update(
                    "main",
                    key("p", "e"),
                    set(empty_key()),
                )]),
            )
            .await;
        c.invalid(&o, "transaction value with an empty key");
        let o = c.scan("nothing written", scan("main")).await;
        c.eq(o.counts(), (0, 0), "refused writes write nothing");

        // What a typed map with `None` values and an empty map writes: kept as they are.
        let kept = item! {"PK" => s("p"), "SK" => s("e"), "v" => m(item! {"a" => AttributeValue::Null(true), "b" => n("2"), "c" => m(Item::new())})};
        let o = c
            .put(
                "NULL values and an empty map inside a map",
                "main",
                kept.clone(),
            )
            .await;
        c.ok(&o, "NULL and empty map");
        let o = c.get("read back", "main", key("p", "e")).await;
        c.eq(
            o.item().map(|i| show(&i)),
            Some(show(&kept)),
            "NULL and the empty map kept",
        );
    })
}
