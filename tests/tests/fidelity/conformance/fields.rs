//! Every request field the Store trait carries, validated on every request that carries it, and
//! DynamoDB's limits at their exact boundaries: key sizes, numbers, nesting depth, empty values,
//! ReturnValues and ReturnValuesOnConditionCheckFailure on every write.

use futures::future::BoxFuture;

use super::support::*;
use super::{BackendKind, HASH, MAIN};

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "an invalid expression value is named by its placeholder, as DynamoDB names it",
            tables: &[MAIN],
            run: values_named_by_placeholder,
            deviations: vec![
                differs(BackendKind::Dynalite, "dynalite does not implement TransactWriteItems"),
                differs(BackendKind::Moto, "moto accepts an empty set in an expression value and a transaction's number out of range"),
            ],
        },
        Scenario {
            name: "every operation on a missing table is ResourceNotFound",
            tables: &[MAIN],
            run: missing_table,
            deviations: vec![
                differs(BackendKind::Dynalite, "dynalite does not implement transactions or UpdateTimeToLive"),
            ],
        },
        Scenario {
            name: "keys are validated on every request that carries one",
            tables: &[MAIN],
            run: keys_everywhere,
            deviations: vec![
                differs(BackendKind::Moto, "moto answers a get or delete whose key has the wrong type, is empty or too long as if the item were missing, and updates with an empty key"),
            ],
        },
        Scenario {
            name: "key sizes at their boundaries on every write path",
            tables: &[MAIN],
            run: key_sizes_everywhere,
            deviations: vec![
                differs(BackendKind::Moto, "moto answers a transactional put with an oversized key with a plain ValidationException instead of a ValidationError reason, and a get with an oversized key as a missing item"),
differs(BackendKind::Dynalite, "dynalite does not implement TransactWriteItems")],
        },
        Scenario {
            name: "index key sizes at their boundaries",
            tables: &[MAIN],
            run: index_key_sizes,
            deviations: vec![
                differs(BackendKind::Dynalite, "dynalite accepts GSI key values over 2048/1024 bytes"),
differs(BackendKind::Dynoxide, "dynoxide accepts a GSI partition key over 2048 bytes and a GSI sort key over 1024 bytes; DynamoDB's limits on partition and sort key values apply to secondary index keys too (Service quotas: 'Secondary indexes')")],
        },
        Scenario {
            name: "UpdateItem ALL_OLD of an item it creates returns nothing",
            tables: &[MAIN],
            run: all_old_of_created,
            deviations: vec![differs(BackendKind::Dynoxide, "dynoxide returns the new item's key attributes for ALL_OLD of an update that creates the item; UpdateItem's reference: ALL_OLD returns the item as it appeared before the update, and there was none")],
        },
        Scenario {
            name: "a key condition may not hold an empty string",
            tables: &[MAIN],
            run: empty_key_condition,
            deviations: vec![
                differs(BackendKind::Dynalite, "dynalite answers a key condition on an empty string with an empty page"),
differs(BackendKind::Dynoxide, "dynoxide answers a query for an empty partition value with an empty page; DynamoDB refuses empty strings as key attribute values wherever a key is given ('Key attribute values cannot be empty', Working with items: empty strings)")],
        },
        Scenario {
            name: "ReturnValues on every write",
            tables: &[MAIN],
            run: return_values_everywhere,
            deviations: vec![
                differs(BackendKind::Dynalite, "dynalite accepts UPDATED_OLD, ALL_NEW and UPDATED_NEW on DeleteItem"),
                differs(BackendKind::Moto, "moto returns the key attributes with UPDATED_NEW of an update that creates the item"),
            ],
        },
        Scenario {
            name: "ReturnValuesOnConditionCheckFailure on every write",
            tables: &[MAIN],
            run: old_on_failure_everywhere,
            deviations: vec![differs(BackendKind::Dynalite, "dynalite 3.2.2 predates ReturnValuesOnConditionCheckFailure and has no transactions")],
        },
        Scenario {
            name: "numbers at the edges of their range and precision",
            tables: &[MAIN],
            run: number_edges,
            deviations: vec![
                differs(BackendKind::Moto, "moto keeps numbers as sent and accepts 39 significant digits and magnitudes past 1E+126"),
            ],
        },
        Scenario {
            name: "documents nest at most 32 levels",
            tables: &[MAIN],
            run: nesting,
            deviations: vec![
                differs(BackendKind::Dynalite, "dynalite accepts documents nested deeper than 32 levels"),
                differs(BackendKind::Moto, "moto accepts documents nested deeper than 32 levels"),
            ],
        },
        Scenario {
            name: "empty strings and binaries: allowed outside keys, refused in keys",
            tables: &[MAIN],
            run: empty_values,
            deviations: vec![
                differs(BackendKind::Dynalite, "dynalite 3.2.2 accepts empty strings as secondary index key values"),
                differs(BackendKind::Moto, "moto lets an update set a secondary index key to an empty string"),
            ],
        },
        Scenario {
            name: "read request fields: Limit, index, consistency, segments, count",
            tables: &[MAIN],
            run: read_fields,
            deviations: vec![
                differs(BackendKind::Dynalite, "dynalite accepts a strongly consistent scan of a GSI"),
                differs(BackendKind::Moto, "moto answers ResourceNotFound for an unknown index"),
            ],
        },
        Scenario {
            name: "GetItem's consumed capacity: 4 KB read units, eventually consistent halves",
            tables: &[MAIN],
            run: read_capacity,
            deviations: vec![
                differs(BackendKind::Moto, "moto reports 0.5 read units for every GetItem, whatever the item size and consistency"),
            ],
        },
        Scenario {
            name: "Query and Scan consumed capacity: everything read, rounded up per page",
            tables: &[MAIN],
            run: page_capacity,
            deviations: vec![
                differs(BackendKind::Dynalite, "dynalite charges 0 units for a page that read nothing and half units for a strongly consistent scan"),
                differs(BackendKind::Moto, "moto charges 1 unit for every query and scan page, whatever was read"),
            ],
        },
        Scenario {
            name: "every attribute type round-trips through put, update and get",
            tables: &[HASH],
            run: every_type,
            deviations: vec![
                differs(BackendKind::Moto, "moto returns the key attributes with UPDATED_NEW of an update that creates the item"),
            ],
        },
    ]
}

fn upd(k: Item, pairs: &[(&str, AttributeValue)]) -> UpdateRequest {
    update("main", k, set(pairs))
}

fn missing_table(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        const NONE: &str = "no-such-table-anywhere";
        let k = key("p", "s");
        let mut outs = vec![
            c.get("get", NONE, k.clone()).await,
            c.put("put", NONE, k.clone()).await,
            c.update("update", update(NONE, k.clone(), set(&[("a", n(1))])))
                .await,
            c.delete("delete", delete(NONE, k.clone())).await,
            c.query("query", query(NONE, None, "PK", s("p"))).await,
            c.scan("scan", scan(NONE)).await,
        ];
        let keys = vec![TableKey {
            table: NONE.into(),
            key: k.clone(),
        }];
        outs.push(c.batch_get("batch get", BatchGetRequest::new(keys)).await);
        let writes = vec![WriteRequest::put(NONE, k.clone())];
        outs.push(
            c.batch_write("batch write", BatchWriteRequest::new(writes))
                .await,
        );
        outs.push(c.describe("describe", NONE).await);
        outs.push(c.delete_table("delete table", NONE).await);
        for (i, o) in outs.iter().enumerate() {
            c.fails(
                o,
                Failure::NotFound,
                format!("request {} on a missing table", i + 1),
            );
        }
        let gets = vec![TransactGetItem::new(NONE, k.clone())];
        let o = c
            .transact_get("transact get", TransactGetRequest::new(gets))
            .await;
        c.fails(&o, Failure::NotFound, "transact get on a missing table");
        let actions = vec![TransactWriteItem::put(NONE, k)];
        let o = c
            .transact_write("transact write", TransactWriteRequest::new(actions))
            .await;
        c.fails(&o, Failure::NotFound, "transact write on a missing table");
        let o = c.update_ttl("update TTL", NONE, "exp", true).await;
        c.fails(&o, Failure::NotFound, "update TTL on a missing table");
    })
}

/// Keys that do not fit the main table (PK and SK, both S), with what is wrong.
fn bad_keys() -> Vec<(&'static str, Item)> {
    vec![
        ("without its sort key", item! {"PK" => s("p")}),
        (
            "with an extra attribute",
            item! {"PK" => s("p"), "SK" => s("s"), "x" => s("x")},
        ),
        (
            "with a number partition key",
            item! {"PK" => n(1), "SK" => s("s")},
        ),
        (
            "with a binary sort key",
            item! {"PK" => s("p"), "SK" => b(b"s")},
        ),
        (
            "with an empty partition key",
            item! {"PK" => s(""), "SK" => s("s")},
        ),
        (
            "with an empty sort key",
            item! {"PK" => s("p"), "SK" => s("")},
        ),
        (
            "with a 2049-byte partition key",
            item! {"PK" => s(big(2049)), "SK" => s("s")},
        ),
        (
            "with a 1025-byte sort key",
            item! {"PK" => s("p"), "SK" => s(big(1025))},
        ),
    ]
}

fn keys_everywhere(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        c.put("an item", "main", key("p", "s")).await;
        for (what, k) in bad_keys() {
            let o = c.get(&format!("get {what}"), "main", k.clone()).await;
            c.invalid(&o, format!("get {what}"));
            let o = c
                .delete(&format!("delete {what}"), delete("main", k.clone()))
                .await;
            c.invalid(&o, format!("delete {what}"));
            let o = c
                .update(&format!("update {what}"), upd(k.clone(), &[("a", n(1))]))
                .await;
            c.invalid(&o, format!("update {what}"));
        }
        let o = c.scan("nothing written", scan("main")).await;
        c.eq(o.counts(), (1, 1), "rejected writes write nothing");
    })
}

fn key_sizes_everywhere(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        // (partition length, sort length, accepted)
        let sizes = [
            (2048, 1, true),
            (2049, 1, false),
            (1, 1024, true),
            (1, 1025, false),
        ];
        for (i, (pl, sl, ok)) in sizes.into_iter().enumerate() {
            let pk = format!("{i}{}", big(pl - 1));
            let sk = format!("{i}{}", big(sl - 1));
            let k = item! {"PK" => s(pk.clone()), "SK" => s(sk.clone())};
            let outs = [
                c.put(&format!("put {pl}/{sl}"), "main", k.clone()).await,
                c.update(&format!("update {pl}/{sl}"), upd(k.clone(), &[("a", n(1))]))
                    .await,
                c.batch_write(
                    &format!("batch put {pl}/{sl}"),
                    BatchWriteRequest::new(vec![WriteRequest::put("main", k.clone())]),
                )
                .await,
                c.transact_write(
                    &format!("transactional put {pl}/{sl}"),
                    TransactWriteRequest::new(vec![TransactWriteItem::put("main", k.clone())]),
                )
                .await,
            ];
            for (j, o) in outs.iter().enumerate() {
                if ok {
                    c.ok(o, format!("write path {j} with key sizes {pl}/{sl}"));
                } else {
                    c.check(
                        !o.is_ok(),
                        format!("write path {j} refuses key sizes {pl}/{sl}: {o}"),
                    );
                }
            }
            let o = c.get(&format!("get {pl}/{sl}"), "main", k).await;
            if ok {
                c.eq(
                    o.items().len(),
                    1,
                    format!("the item with key sizes {pl}/{sl}"),
                );
            } else {
                c.invalid(&o, format!("get with key sizes {pl}/{sl}"));
            }
        }
    })
}

fn index_key_sizes(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        // Index keys: the same limits, checked when an item puts them in the index.
        let sizes = [
            (2048, 1, true),
            (2049, 1, false),
            (1, 1024, true),
            (1, 1025, false),
        ];
        for (i, (pl, sl, ok)) in sizes.into_iter().enumerate() {
            let item = item! {
                "PK" => s("g"), "SK" => s(format!("{i}")),
                "GSI1PK" => s(big(pl)), "GSI1SK" => s(big(sl)),
            };
            let o = c
                .put(&format!("GSI key sizes {pl}/{sl}"), "main", item)
                .await;
            if ok {
                c.ok(&o, format!("GSI key sizes {pl}/{sl}"));
            } else {
                c.invalid(&o, format!("GSI key sizes {pl}/{sl}"));
            }
        }
    })
}

fn return_values_everywhere(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let all = [
            ReturnValues::None,
            ReturnValues::AllOld,
            ReturnValues::UpdatedOld,
            ReturnValues::AllNew,
            ReturnValues::UpdatedNew,
        ];
        let old = item! {"PK" => s("p"), "SK" => s("rv"), "a" => n(1), "b" => s("keep")};
        for rv in all {
            let valid = matches!(rv, ReturnValues::None | ReturnValues::AllOld);
            // Put over an existing item, then on a fresh key.
            c.put("reset", "main", old.clone()).await;
            let mut r = put("main", item! {"PK" => s("p"), "SK" => s("rv"), "a" => n(2)});
            r.return_values = rv;
            let o = c.put_req(&format!("put {rv:?} over an item"), r).await;
            match rv {
                ReturnValues::None => c.eq(o, Out::Written(None), "put NONE"),
                ReturnValues::AllOld => c.eq(o, Out::Written(Some(old.clone())), "put ALL_OLD"),
                _ => c.invalid(&o, format!("put {rv:?}")),
            }
            let mut r = put(
                "main",
                item! {"PK" => s("p"), "SK" => s(format!("new-{rv:?}"))},
            );
            r.return_values = rv;
            let o = c.put_req(&format!("put {rv:?} on a new key"), r).await;
            if valid {
                c.eq(
                    o,
                    Out::Written(None),
                    format!("put {rv:?} of a new item returns nothing"),
                );
            } else {
                c.invalid(&o, format!("put {rv:?} on a new key"));
            }
            // Delete of an existing item, then of a missing one.
            c.put("reset", "main", old.clone()).await;
            let mut r = delete("main", key("p", "rv"));
            r.return_values = rv;
            let o = c.delete(&format!("delete {rv:?}"), r).await;
            match rv {
                ReturnValues::None => c.eq(o, Out::Written(None), "delete NONE"),
                ReturnValues::AllOld => c.eq(o, Out::Written(Some(old.clone())), "delete ALL_OLD"),
                _ => c.invalid(&o, format!("delete {rv:?}")),
            }
            let mut r = delete("main", key("p", "missing"));
            r.return_values = rv;
            let o = c
                .delete(&format!("delete {rv:?} of a missing item"), r)
                .await;
            if valid {
                c.eq(o, Out::Written(None), format!("delete {rv:?} of nothing"));
            } else {
                c.invalid(&o, format!("delete {rv:?} of a missing item"));
            }
            // Update of an existing item (SET a, ADD c), then of a missing one.
            c.put("reset", "main", old.clone()).await;
            let mut u = upd(key("p", "rv"), &[("a", n(5))]);
            u.update.add = vec![(Path::attr("c"), n(3))];
            u.return_values = rv;
            let o = c.update(&format!("update {rv:?}"), u.clone()).await;
            let want = match rv {
                ReturnValues::None => None,
                ReturnValues::AllOld => Some(old.clone()),
                ReturnValues::UpdatedOld => Some(item! {"a" => n(1)}),
                ReturnValues::AllNew => Some(
                    item! {"PK" => s("p"), "SK" => s("rv"), "a" => n(5), "b" => s("keep"), "c" => n(3)},
                ),
                ReturnValues::UpdatedNew => Some(item! {"a" => n(5), "c" => n(3)}),
            };
            c.eq(o, Out::Written(want), format!("update {rv:?}"));
            if rv == ReturnValues::AllOld {
                // Its own scenario: dynoxide deviates there.
                continue;
            }
            u.key = key("p", format!("upd-{rv:?}").as_str());
            let o = c
                .update(&format!("update {rv:?} creating the item"), u)
                .await;
            let key_new = format!("upd-{rv:?}");
            let want = match rv {
                ReturnValues::None | ReturnValues::AllOld | ReturnValues::UpdatedOld => None,
                ReturnValues::AllNew => {
                    Some(item! {"PK" => s("p"), "SK" => s(key_new), "a" => n(5), "c" => n(3)})
                }
                ReturnValues::UpdatedNew => Some(item! {"a" => n(5), "c" => n(3)}),
            };
            c.eq(
                o,
                Out::Written(want),
                format!("update {rv:?} of a new item"),
            );
        }
    })
}

fn old_on_failure_everywhere(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let old = item! {"PK" => s("p"), "SK" => s("c"), "v" => n(1)};
        c.put("the item", "main", old.clone()).await;
        let fails_on = || Some(cmp("v", Comparator::Eq, n(99)));
        for return_old in [false, true] {
            let want = Failure::ConditionFailed(return_old.then(|| old.clone()));
            let mut r = put("main", item! {"PK" => s("p"), "SK" => s("c"), "v" => n(2)});
            r.condition = fails_on();
            r.return_old_on_condition_failure = return_old;
            let o = c
                .put_req(&format!("put, old item on failure: {return_old}"), r)
                .await;
            c.fails(&o, want.clone(), "put");
            let mut u = upd(key("p", "c"), &[("v", n(2))]);
            u.condition = fails_on();
            u.return_old_on_condition_failure = return_old;
            let o = c
                .update(&format!("update, old item on failure: {return_old}"), u)
                .await;
            c.fails(&o, want.clone(), "update");
            let mut d = delete("main", key("p", "c"));
            d.condition = fails_on();
            d.return_old_on_condition_failure = return_old;
            let o = c
                .delete(&format!("delete, old item on failure: {return_old}"), d)
                .await;
            c.fails(&o, want, "delete");
            // On a missing item there is nothing to return.
            let mut d = delete("main", key("p", "missing"));
            d.condition = Some(Condition::exists("v"));
            d.return_old_on_condition_failure = return_old;
            let o = c
                .delete(
                    &format!("delete of nothing, old item on failure: {return_old}"),
                    d,
                )
                .await;
            c.fails(
                &o,
                Failure::ConditionFailed(None),
                "delete of a missing item",
            );
            let mut u = upd(key("p", "missing"), &[("v", n(2))]);
            u.condition = Some(Condition::exists("v"));
            u.return_old_on_condition_failure = return_old;
            let o = c
                .update(
                    &format!("update of nothing, old item on failure: {return_old}"),
                    u,
                )
                .await;
            c.fails(
                &o,
                Failure::ConditionFailed(None),
                "update of a missing item",
            );
        }
        // In a transaction, the item comes back in the failed action's reason.
        let condition = cmp("v", Comparator::Eq, n(99));
        let actions: Vec<TransactWriteItem> = vec![
            TransactWriteItem::put("main", old.clone())
                .with_condition(condition.clone())
                .with_return_old_on_condition_failure(true),
            TransactWriteItem::update("main", key("p", "c"), set(&[("v", n(3))]))
                .with_condition(condition.clone())
                .with_return_old_on_condition_failure(true),
            TransactWriteItem::delete("main", key("p", "c"))
                .with_condition(condition.clone())
                .with_return_old_on_condition_failure(true),
            TransactWriteItem::condition_check("main", key("p", "c"), condition.clone())
                .with_return_old_on_condition_failure(true),
        ];
        for (i, action) in actions.into_iter().enumerate() {
            let o = c
                .transact_write(
                    &format!("transactional action {i}, old item on failure"),
                    TransactWriteRequest::new(vec![action]),
                )
                .await;
            c.fails(
                &o,
                Failure::Canceled(vec![("ConditionalCheckFailed".into(), Some(old.clone()))]),
                format!("transactional action {i}"),
            );
        }
        let o = c.get("unchanged", "main", key("p", "c")).await;
        c.eq(o, Out::Item(Some(old)), "failed writes change nothing");
    })
}

fn number_edges(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        // (sent, stored as, or None when refused)
        let cases: &[(&str, Option<&str>)] = &[
            ("9.9999999999999999999999999999999999999E+125", Some("999999999999999999999999999999999999990000000000000000000000000000000000000000000000000000000000000000000000000000000000000000")),
            ("1E+126", None),
            ("-9.9999999999999999999999999999999999999E+125", Some("-999999999999999999999999999999999999990000000000000000000000000000000000000000000000000000000000000000000000000000000000000000")),
            ("-1E+126", None),
            ("1E-130", Some("0.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001")),
            ("1E-131", None),
            ("-1E-130", Some("-0.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001")),
            ("12345678901234567890123456789012345678", Some("12345678901234567890123456789012345678")),
            ("123456789012345678901234567890123456789", None),
            // 39 significant digits and past the range: named for its digits (dynoxide).
            ("1.00000000000000000000000000000000000001E+126", None),
            ("1234567890.1234567890123456789012345678", Some("1234567890.1234567890123456789012345678")),
            ("1234567890.12345678901234567890123456789", None),
            ("100000000000000000000000000000000000000000", Some("100000000000000000000000000000000000000000")),
            ("007", Some("7")),
            ("-0", Some("0")),
            ("1.50", Some("1.5")),
            ("0.000", Some("0")),
            ("abc", None),
            ("", None),
            ("1e", None),
        ];
        for (i, (sent, stored)) in cases.iter().enumerate() {
            let k = key("n", &format!("{i}"));
            let mut it = k.clone();
            it.insert("v".into(), n(sent));
            let o = c.put(&format!("put number {sent:?}"), "main", it).await;
            match stored {
                Some(want) => {
                    c.ok(&o, format!("{sent:?} is a valid number"));
                    let o = c.get(&format!("get number {sent:?}"), "main", k).await;
                    c.eq(
                        o.item().and_then(|i| i.get("v").map(text)),
                        Some((*want).to_owned()),
                        format!("{sent:?} stored"),
                    );
                }
                None => c.invalid(&o, format!("{sent:?} is refused")),
            }
        }
    })
}

/// A value of `depth` maps (or lists) one inside the other around a string.
fn nested(depth: usize, lists: bool) -> AttributeValue {
    let mut v = s("leaf");
    for _ in 0..depth {
        v = if lists {
            l(vec![v])
        } else {
            m(item! {"x" => v})
        };
    }
    v
}

fn nesting(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        for lists in [false, true] {
            // The attribute itself is the first of DynamoDB's 32 levels: 31 documents inside
            // it are the most an item may hold.
            for depth in [30, 31, 32] {
                let what = format!(
                    "{} nested {depth} deep",
                    if lists { "lists" } else { "maps" }
                );
                let it =
                    item! {"PK" => s("deep"), "SK" => s(what.clone()), "d" => nested(depth, lists)};
                let o = c.put(&format!("put {what}"), "main", it).await;
                if depth <= 31 {
                    c.ok(&o, &what);
                } else {
                    c.invalid(&o, &what);
                }
                let mut u = upd(key("deep", "by update"), &[("d", nested(depth, lists))]);
                u.return_values = ReturnValues::None;
                let o = c.update(&format!("update to {what}"), u).await;
                if depth <= 31 {
                    c.ok(&o, format!("update to {what}"));
                } else {
                    c.invalid(&o, format!("update to {what}"));
                }
            }
        }
    })
}

fn empty_values(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let fine = item! {
            "PK" => s("e"), "SK" => s("1"),
            "s" => s(""), "b" => b(b""),
            "m" => m(item! {"s" => s(""), "b" => b(b"")}),
            "l" => l(vec![s(""), b(b"")]),
            "ss" => ss(&[""]),
        };
        let o = c
            .put("empty values outside keys", "main", fine.clone())
            .await;
        c.ok(&o, "empty strings and binaries outside keys");
        let o = c.get("read them back", "main", key("e", "1")).await;
        c.eq(o, Out::Item(Some(fine)), "kept as sent");
        let o = c
            .update(
                "SET an empty string",
                upd(key("e", "1"), &[("t", s("")), ("u", b(b""))]),
            )
            .await;
        c.ok(&o, "SET of empty values outside keys");
        let refused = [
            (
                "an empty partition key",
                item! {"PK" => s(""), "SK" => s("1")},
            ),
            ("an empty sort key", item! {"PK" => s("e"), "SK" => s("")}),
            (
                "an empty GSI partition key",
                item! {"PK" => s("e"), "SK" => s("2"), "GSI1PK" => s("")},
            ),
            (
                "an empty GSI sort key",
                item! {"PK" => s("e"), "SK" => s("2"), "GSI1PK" => s("g"), "GSI1SK" => s("")},
            ),
            (
                "an empty keys-only GSI key",
                item! {"PK" => s("e"), "SK" => s("2"), "GSI2PK" => s("")},
            ),
            (
                "an empty LSI sort key",
                item! {"PK" => s("e"), "SK" => s("2"), "LSK" => s("")},
            ),
        ];
        for (what, it) in refused {
            let o = c.put(&format!("put {what}"), "main", it).await;
            c.invalid(&o, format!("put with {what}"));
        }
        for attr in ["GSI1PK", "GSI2PK", "LSK"] {
            let o = c
                .update(
                    &format!("SET {attr} to an empty string"),
                    upd(key("e", "1"), &[(attr, s(""))]),
                )
                .await;
            c.invalid(&o, format!("SET {attr} to an empty string"));
        }
        let o = c.scan("two items", scan("main")).await;
        c.eq(o.counts(), (1, 1), "only the valid item was written");
    })
}

fn all_old_of_created(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let mut u = upd(key("p", "created"), &[("a", n(1))]);
        u.return_values = ReturnValues::AllOld;
        let o = c.update("ALL_OLD of an update creating the item", u).await;
        c.eq(o, Out::Written(None), "nothing was there before");
        let o = c.get("created", "main", key("p", "created")).await;
        c.eq(o.items().len(), 1, "the update created the item");
    })
}

fn empty_key_condition(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let o = c
            .query("query an empty partition", query("main", None, "PK", s("")))
            .await;
        c.invalid(&o, "an empty partition value in a key condition");
        let o = c
            .query(
                "query an empty GSI partition",
                query("main", Some("GSI1"), "GSI1PK", s("")),
            )
            .await;
        c.invalid(&o, "an empty GSI partition value in a key condition");
        let mut q = query("main", None, "PK", s("p"));
        q.key_condition = q.key_condition.sort("SK", SortCondition::Eq(s("")));
        let o = c.query("query an empty sort key value", q).await;
        c.invalid(&o, "an empty sort key value in a key condition");
    })
}

fn read_fields(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        for i in 0..3 {
            c.put(
                "fill",
                "main",
                item! {"PK" => s("r"), "SK" => s(format!("{i}")), "GSI1PK" => s("g"), "GSI1SK" => s(format!("{i}")), "LSK" => s(format!("{i}"))},
            )
            .await;
        }
        let mut q = query("main", None, "PK", s("r"));
        q.limit = Some(0);
        let o = c.query("query Limit 0", q).await;
        c.invalid(&o, "query Limit 0");
        let mut r = scan("main");
        r.limit = Some(0);
        let o = c.scan("scan Limit 0", r).await;
        c.invalid(&o, "scan Limit 0");
        let o = c
            .query(
                "query an unknown index",
                query("main", Some("NOPE"), "PK", s("r")),
            )
            .await;
        c.invalid(&o, "unknown index");
        let mut r = scan("main");
        r.index = Some("NOPE".into());
        let o = c.scan("scan an unknown index", r).await;
        c.invalid(&o, "unknown index");
        let mut q = query("main", Some("GSI1"), "GSI1PK", s("g"));
        q.consistent_read = true;
        let o = c.query("strongly consistent GSI query", q).await;
        c.invalid(&o, "no consistent reads on a GSI");
        let mut r = scan("main");
        r.index = Some("GSI1".into());
        r.consistent_read = true;
        let o = c.scan("strongly consistent GSI scan", r).await;
        c.invalid(&o, "no consistent reads on a GSI");
        let mut q = query("main", Some("LSI1"), "PK", s("r"));
        q.consistent_read = true;
        let o = c.query("strongly consistent LSI query", q).await;
        c.eq(o.counts(), (3, 3), "consistent reads on an LSI");
        let mut q = query("main", None, "PK", s("r"));
        q.consistent_read = true;
        let o = c.query("strongly consistent table query", q).await;
        c.eq(o.counts(), (3, 3), "consistent reads on the table");
        let mut q = query("main", None, "PK", s("r"));
        q.count_only = true;
        let o = c.query("Select COUNT", q).await;
        c.eq(o.counts(), (3, 3), "counts without items");
        c.eq(o.items().len(), 0, "no items with Select COUNT");
        let mut r = scan("main");
        r.count_only = true;
        r.filter = Some(Condition::eq("SK", s("1")));
        let o = c.scan("Select COUNT with a filter", r).await;
        c.eq(o.counts(), (1, 3), "filtered count");
        for (segment, total, ok) in [
            (0, 1, true),
            (1, 1, false),
            (0, 0, false),
            (0, 1_000_000, true),
            (0, 1_000_001, false),
        ] {
            let mut r = scan("main");
            r.segment = Some((segment, total));
            let o = c.scan(&format!("segment {segment} of {total}"), r).await;
            if ok {
                c.ok(&o, format!("segment {segment} of {total}"));
            } else {
                c.invalid(&o, format!("segment {segment} of {total}"));
            }
        }
        let mut g = GetRequest::new("main", key("r", "1"));
        g.projection = Some(vec![Path::attr("SK"), Path::attr("SK")]);
        let o = c.get_req("a projection naming one path twice", g).await;
        c.invalid(&o, "overlapping projection paths");
        let mut g = GetRequest::new("main", key("r", "1"));
        g.consistent_read = true;
        g.projection = Some(vec![Path::attr("LSK")]);
        let o = c.get_req("a consistent projected get", g).await;
        c.eq(o, Out::Item(Some(item! {"LSK" => s("1")})), "projected");
    })
}

fn every_type(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let values = [
            ("S", s("text")),
            ("N", n("-12.5")),
            ("B", b(&[0, 1, 255])),
            ("BOOL", AttributeValue::Bool(false)),
            ("NULL", AttributeValue::Null(true)),
            ("SS", ss(&["a", "b"])),
            ("NS", ns(&["-1", "2.5", "3"])),
            (
                "BS",
                AttributeValue::Bs(vec![
                    aws_sdk_dynamodb::primitives::Blob::new(vec![1]),
                    aws_sdk_dynamodb::primitives::Blob::new(vec![2]),
                ]),
            ),
            ("L", l(vec![s("x"), n(1), l(vec![]), m(item! {})])),
            (
                "M",
                m(item! {"a" => s("x"), "b" => m(item! {"c" => AttributeValue::Bool(true)})}),
            ),
        ];
        for (ty, v) in values {
            let k = item! {"PK" => s(format!("put-{ty}"))};
            let mut it = k.clone();
            it.insert("v".into(), v.clone());
            let o = c.put(&format!("put a {ty}"), "hash", it.clone()).await;
            c.ok(&o, format!("put {ty}"));
            let o = c.get(&format!("get a {ty}"), "hash", k).await;
            c.eq(
                o,
                Out::Item(Some(it)),
                format!("{ty} round-trips through put"),
            );
            let k = item! {"PK" => s(format!("update-{ty}"))};
            let mut u = update("hash", k.clone(), set(&[("v", v.clone())]));
            u.return_values = ReturnValues::UpdatedNew;
            let o = c.update(&format!("SET a {ty}"), u).await;
            c.eq(
                o.item().and_then(|i| i.get("v").cloned()).is_some(),
                true,
                format!("{ty} returned by UPDATED_NEW"),
            );
            let o = c
                .get(&format!("get the updated {ty}"), "hash", k.clone())
                .await;
            let mut want = k;
            want.insert("v".into(), v);
            c.eq(
                o,
                Out::Item(Some(want)),
                format!("{ty} round-trips through update"),
            );
        }
    })
}

fn read_capacity(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        // (value bytes, read units of a strongly consistent get): one unit per 4 KB started.
        let sizes = [
            (10, 1.0),
            (4000, 1.0),
            (4100, 2.0),
            (9000, 3.0),
            (300 * 1024, 76.0),
        ];
        for (i, (len, units)) in sizes.into_iter().enumerate() {
            let k = key("cap", &format!("{i}"));
            let mut it = k.clone();
            it.insert("d".into(), s(big(len)));
            c.put(&format!("a {len}-byte value"), "main", it).await;
            let o = c
                .get(
                    &format!("eventually consistent get of {len} bytes"),
                    "main",
                    k.clone(),
                )
                .await;
            c.ok(&o, "get");
            c.eq(
                c.units(),
                Some(units / 2.0),
                format!("eventually consistent read of {len} bytes"),
            );
            let o = c
                .get_req(
                    &format!("strongly consistent get of {len} bytes"),
                    GetRequest::new("main", k.clone()).consistent(),
                )
                .await;
            c.ok(&o, "get");
            c.eq(
                c.units(),
                Some(units),
                format!("strongly consistent read of {len} bytes"),
            );
            let mut g = GetRequest::new("main", k);
            g.projection = Some(vec![Path::attr("PK")]);
            c.get_req(&format!("projected get of {len} bytes"), g).await;
            c.eq(
                c.units(),
                Some(units / 2.0),
                format!("a projection reads the whole item ({len} bytes)"),
            );
        }
        c.get("a missing item", "main", key("cap", "missing")).await;
        c.eq(c.units(), Some(0.5), "reading nothing costs half a unit");
    })
}

fn page_capacity(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        // Ten items of about 1.5 KB: 15 KB read, 4 units (2 eventually consistent), whatever the
        // filter keeps.
        for i in 0..10 {
            c.put(
                "a 1.5 KB item",
                "main",
                item! {"PK" => s("q"), "SK" => s(format!("{i}")), "i" => n(i), "d" => s(big(1500))},
            )
            .await;
        }
        let o = c
            .query("query ten items", query("main", None, "PK", s("q")))
            .await;
        c.eq(o.counts(), (10, 10), "all read");
        c.eq(c.units(), Some(2.0), "15 KB eventually consistent: 2 units");
        let mut q = query("main", None, "PK", s("q"));
        q.consistent_read = true;
        q.filter = Some(Condition::eq("i", n(3)));
        let o = c.query("a consistent filtered query", q).await;
        c.eq(o.counts(), (1, 10), "filtered");
        c.eq(c.units(), Some(4.0), "a filter does not lower the capacity");
        let mut q = query("main", None, "PK", s("q"));
        q.limit = Some(2);
        c.query("two items", q).await;
        c.eq(c.units(), Some(0.5), "3 KB: one unit, halved");
        c.query("an empty partition", query("main", None, "PK", s("none")))
            .await;
        c.eq(c.units(), Some(0.5), "reading nothing costs the minimum");
        let mut r = scan("main");
        r.consistent_read = true;
        c.scan("scan the table", r).await;
        c.eq(c.units(), Some(4.0), "a scan is charged like a query");
    })
}

/// DynamoDB names an invalid ExpressionAttributeValues entry by its placeholder: "ExpressionAttributeValues
/// contains invalid value: ... for key :v1" for an empty set (UpdateItem, Scan), and in a
/// transaction for a number out of range or a repeated set member too (dynoxide's records of
/// DynamoDB's answers, compared on every request). dyno renders the update's values first, then
/// the condition's, so the placeholders here are known: the second value is `:v1`.
fn values_named_by_placeholder(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let mine = |c: &Ctx, want: &str| {
            c.backend != "memory" || c.message().is_some_and(|m| m.ends_with(want))
        };
        c.put("an item", "main", item! {"PK" => s("p"), "SK" => s("1")})
            .await;
        let empty = AttributeValue::Ss(Vec::new());
        let mut r = update(
            "main",
            key("p", "1"),
            set(&[("a", s("x")), ("b", empty.clone())]),
        );
        r.condition = Some(Condition::exists("PK"));
        let o = c.update("SET b = an empty set", r).await;
        c.eq(o, Out::Err(Failure::Validation), "refused");
        let ok = mine(
            c,
            "ExpressionAttributeValues contains invalid value: One or more parameter values were invalid: An string set  may not be empty for key :v1",
        );
        c.check(ok, format!("the empty set named :v1: {:?}", c.message()));

        let mut r = scan("main");
        r.filter = Some(Condition::Or(vec![
            Condition::eq("a", s("x")),
            Condition::eq("b", AttributeValue::Ns(Vec::new())),
        ]));
        let o = c.scan("a filter with an empty number set", r).await;
        c.eq(o, Out::Err(Failure::Validation), "refused");
        let ok = mine(c, "An number set  may not be empty for key :v1");
        c.check(ok, format!("the empty set named :v1: {:?}", c.message()));

        let overflow = TransactWriteRequest::new(vec![TransactWriteItem::update(
            "main",
            key("p", "1"),
            set(&[("a", s("x")), ("n", n("1E+126"))]),
        )]);
        let o = c
            .transact_write("a transaction setting 1E+126", overflow)
            .await;
        c.eq(o, Out::Err(Failure::Validation), "refused");
        let ok = mine(
            c,
            "ExpressionAttributeValues contains invalid value: Number overflow. Attempting to store a number with magnitude larger than supported range for key :v1",
        );
        c.check(ok, format!("the number named :v1: {:?}", c.message()));
        let o = c.get("unchanged", "main", key("p", "1")).await;
        c.eq(o.item().map(|i| i.len()), Some(2), "nothing written");
    })
}
