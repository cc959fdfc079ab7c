//! TransactWriteItems and TransactGetItems: all or nothing, cancellation reasons in order, one
//! action per item, 100 actions, idempotency tokens.

use futures::future::BoxFuture;

use super::support::*;
use super::{BackendKind, HASH, MAIN};

const NO_TRANSACTIONS: &[Deviation] = &[differs(
    BackendKind::Dynalite,
    "dynalite does not implement TransactWriteItems or TransactGetItems",
)];

const NO_TRANSACTIONS_NOR_TOKENS: &[Deviation] = &[
    differs(
        BackendKind::Dynalite,
        "dynalite does not implement TransactWriteItems",
    ),
    differs(
        BackendKind::Moto,
        "moto ignores ClientRequestToken: a retry is applied again",
    ),
];

const NO_TRANSACTIONAL_VALIDATION: &[Deviation] = &[
    differs(BackendKind::Dynalite, "dynalite does not implement TransactWriteItems"),
    differs(BackendKind::Moto, "moto answers a plain ValidationException where DynamoDB cancels with a ValidationError reason"),
];

const MALFORMED: &[Deviation] = &[
    differs(BackendKind::Dynalite, "dynalite does not implement TransactWriteItems"),
    differs(BackendKind::Moto, "moto fails with HTTP 500 on an empty transaction and cancels with reason KeyError on a malformed key"),
];

const TRANSACT_GET: &[Deviation] = &[
    differs(BackendKind::Dynalite, "dynalite does not implement TransactGetItems"),
    differs(BackendKind::Moto, "moto ignores ProjectionExpression in TransactGetItems and fails with HTTP 500 on an empty request"),
];

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "a transaction applies every action",
            tables: &[MAIN, HASH],
            run: commit,
            deviations: NO_TRANSACTIONS.to_vec(),
        },
        Scenario {
            name: "a write transaction reports its capacity per table: the table's share doubled, the indexes' not",
            tables: &[MAIN, HASH],
            run: transact_capacity,
            deviations: vec![
                differs(BackendKind::Dynalite, "dynalite does not implement TransactWriteItems"),
                differs(BackendKind::Moto, "moto reports other consumed capacity for TransactWriteItems"),
            ],
        },
        Scenario {
            name: "a failed condition cancels every action, reasons in order",
            tables: &[MAIN],
            run: cancel,
            deviations: NO_TRANSACTIONS.to_vec(),
        },
        Scenario {
            name: "an action failing at run time cancels with a ValidationError reason",
            tables: &[MAIN],
            run: runtime_validation,
            deviations: NO_TRANSACTIONAL_VALIDATION.to_vec(),
        },
        Scenario {
            name: "transaction limits: one action per item, 1..=100 actions",
            tables: &[MAIN],
            run: limits,
            deviations: NO_TRANSACTIONS.to_vec(),
        },
        Scenario {
            name: "a write transaction carries at most 4 MB of items",
            tables: &[MAIN],
            run: four_megabytes,
            deviations: vec![
                differs(BackendKind::Dynalite, "dynalite does not implement TransactWriteItems"),
                differs(BackendKind::Moto, "moto does not enforce the 4 MB limit of a transaction: it applies 4 MB and one byte"),
            ],
        },
        Scenario {
            name: "malformed transactions are rejected",
            tables: &[MAIN],
            run: malformed,
            deviations: MALFORMED.to_vec(),
        },
        Scenario {
            name: "idempotency tokens",
            tables: &[MAIN],
            run: idempotency,
            deviations: [
                NO_TRANSACTIONS_NOR_TOKENS,
                &[words(BackendKind::Dynoxide, "dynoxide's IdempotentParameterMismatchException carries only its code as message; MemoryStore (which reports it as a validation error) says which token was reused")],
            ]
            .concat(),
        },
        Scenario {
            name: "an empty key value fails a write transaction as a request, after the action's earlier key faults",
            tables: &[MAIN],
            run: empty_key_values,
            deviations: NO_TRANSACTIONAL_VALIDATION.to_vec(),
        },
        Scenario {
            name: "TransactGetItems",
            tables: &[MAIN, HASH],
            run: transact_get,
            deviations: TRANSACT_GET.to_vec(),
        },
        Scenario {
            name: "TransactGetItems honours ProjectionExpression",
            tables: &[MAIN],
            run: transact_get_projection,
            deviations: vec![
                differs(BackendKind::Dynalite, "dynalite does not implement TransactGetItems"),
                differs(BackendKind::Moto, "moto ignores ProjectionExpression in TransactGetItems"),
                differs(BackendKind::Dynoxide, "dynoxide adds the key attributes to a projected TransactGetItems read (and returns no item when the projection matches nothing); the TransactGetItems reference: Get's ProjectionExpression identifies the attributes to retrieve, and does not name the key"),
            ],
        },
    ]
}

fn tx(actions: Vec<TransactWriteItem>) -> TransactWriteRequest {
    TransactWriteRequest::new(actions)
}

fn tput(table: &str, item: Item, condition: Option<Condition>) -> TransactWriteItem {
    TransactWriteItem::put(table, item).with_condition(condition)
}

fn tupdate(key: Item, update: Update, condition: Option<Condition>) -> TransactWriteItem {
    TransactWriteItem::update("main", key, update).with_condition(condition)
}

fn tcheck(key: Item, condition: Condition, return_old: bool) -> TransactWriteItem {
    TransactWriteItem::condition_check("main", key, condition)
        .with_return_old_on_condition_failure(return_old)
}

fn tdelete(key: Item, condition: Option<Condition>) -> TransactWriteItem {
    TransactWriteItem::delete("main", key).with_condition(condition)
}

/// A cancellation with these reason codes (no items).
fn canceled(codes: &[&str]) -> Failure {
    Failure::Canceled(codes.iter().map(|c| ((*c).to_owned(), None)).collect())
}

fn counter_add(by: i64) -> Update {
    Update {
        add: vec![(Path::attr("count"), n(by))],
        ..Update::default()
    }
}

fn commit(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        c.put(
            "account",
            "main",
            item! {"PK" => s("acct"), "SK" => s("1"), "balance" => n(100)},
        )
        .await;
        c.put(
            "to delete",
            "main",
            item! {"PK" => s("old"), "SK" => s("1")},
        )
        .await;
        c.put(
            "config",
            "main",
            item! {"PK" => s("config"), "SK" => s("1"), "open" => AttributeValue::Bool(true)},
        )
        .await;
        let actions = vec![
            tupdate(
                key("acct", "1"),
                Update {
                    add: vec![(Path::attr("balance"), n(-30))],
                    ..Update::default()
                },
                Some(cmp("balance", Comparator::Ge, n(30))),
            ),
            tput(
                "main",
                item! {"PK" => s("order"), "SK" => s("1"), "amount" => n(30)},
                Some(Condition::not_exists("PK")),
            ),
            TransactWriteItem::delete("main", key("old", "1"))
                .with_condition(Condition::exists("PK")),
            tput(
                "hash",
                item! {"PK" => s("audit1"), "email" => s("a@x")},
                None,
            ),
            tcheck(
                key("config", "1"),
                Condition::eq("open", AttributeValue::Bool(true)),
                false,
            ),
        ];
        let o = c.transact_write("transfer", tx(actions)).await;
        c.eq(o, Out::Done, "committed");
        let o = c.get("balance", "main", key("acct", "1")).await;
        c.eq(
            o.item().and_then(|i| i.get("balance").map(text)),
            Some("70".to_owned()),
            "debited",
        );
        let o = c.get("order", "main", key("order", "1")).await;
        c.check(o.item().is_some(), "order created");
        let o = c.get("deleted", "main", key("old", "1")).await;
        c.eq(o, Out::Item(None), "deleted");
        let o = c
            .get("audit row", "hash", item! {"PK" => s("audit1")})
            .await;
        c.check(o.item().is_some(), "second table written");
    })
}

/// TransactWriteItems' consumed capacity (Developer Guide, "Capacity management for
/// transactions": two write units per KB of each item a transaction writes; a condition check is
/// charged as a write of the item it reads). The index shares are the single-item write's: the
/// factor of two applies to the table's share only, as dynoxide reports from its capture against
/// DynamoDB; dynoxide's split (per table, then table / GSI / LSI) is compared with these on every
/// request. A retry answered from its idempotency token costs a transactional read of each item.
fn transact_capacity(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let indexed = item! {"PK" => s("acct"), "SK" => s("1"), "balance" => n(100),
        "GSI1PK" => s("G"), "GSI1SK" => s("1")};
        c.put("an item in GSI1", "main", indexed).await;
        c.put(
            "to delete",
            "main",
            item! {"PK" => s("old"), "SK" => s("1")},
        )
        .await;
        let in_lsi = item! {"PK" => s("config"), "SK" => s("1"), "LSK" => s("x"), "open" => AttributeValue::Bool(true)};
        c.put("an item in LSI1", "main", in_lsi).await;
        let actions = vec![
            // Its GSI1 entry (projecting everything) changes: one index write.
            tupdate(
                key("acct", "1"),
                Update {
                    add: vec![(Path::attr("balance"), n(-30))],
                    ..Update::default()
                },
                None,
            ),
            // 5 KB, in no index: 2 x 5.
            tput(
                "main",
                item! {"PK" => s("big"), "SK" => s("1"), "blob" => s(big(5000))},
                None,
            ),
            TransactWriteItem::delete("main", key("old", "1")),
            // The other table, and its index.
            tput("hash", item! {"PK" => s("h1"), "email" => s("a@x")}, None),
            // A check writes nothing, and is charged as a write of the item it reads.
            tcheck(key("config", "1"), Condition::exists("PK"), false),
        ];
        let o = c.transact_write("five actions", tx(actions)).await;
        c.eq(o, Out::Done, "committed");
        c.eq(c.units(), Some(20.0), "write units of the transaction");
        let main = Capacity {
            units: 17.0,
            table: 16.0,
            global_indexes: vec![("GSI1".into(), 1.0)],
            local_indexes: Vec::new(),
        };
        let hash = Capacity {
            units: 3.0,
            table: 2.0,
            global_indexes: vec![("ByEmail".into(), 1.0)],
            local_indexes: Vec::new(),
        };
        let per_table = vec![
            TableCapacity {
                table: "hash".into(),
                capacity: hash,
            },
            TableCapacity {
                table: "main".into(),
                capacity: main,
            },
        ];
        c.eq(
            c.split(),
            Some(per_table),
            "per table, with the index shares",
        );

        // An item that leaves LSI1 and moves in GSI1: the LSI share, and a GSI1 delete and put.
        let moved = Update {
            set: vec![(Path::attr("GSI1PK"), SetValue::value(s("H")))],
            remove: vec![Path::attr("LSK")],
            ..Update::default()
        };
        let o = c
            .transact_write(
                "an index move and an LSI removal",
                tx(vec![
                    tupdate(key("acct", "1"), moved, None),
                    tupdate(
                        key("config", "1"),
                        Update {
                            remove: vec![Path::attr("LSK")],
                            ..Update::default()
                        },
                        None,
                    ),
                ]),
            )
            .await;
        c.eq(o, Out::Done, "committed");
        let main = Capacity {
            units: 7.0,
            table: 4.0,
            global_indexes: vec![("GSI1".into(), 2.0)],
            local_indexes: vec![("LSI1".into(), 1.0)],
        };
        c.eq(
            c.split(),
            Some(vec![TableCapacity {
                table: "main".into(),
                capacity: main,
            }]),
            "an index move is a delete and a put; LSI1 loses its entry",
        );

        let token = token(c, 9);
        let retried = || {
            TransactWriteRequest::new(vec![tput(
                "main",
                item! {"PK" => s("once"), "SK" => s("1"), "blob" => s(big(1500))},
                None,
            )])
            .with_client_request_token(Some(token.clone()))
        };
        let o = c.transact_write("with a token", retried()).await;
        c.eq(o, Out::Done, "committed");
        c.eq(c.units(), Some(4.0), "2 x 2 KB");
        let o = c.transact_write("the same again", retried()).await;
        c.eq(o, Out::Done, "answered from the token");
        // Read at 4 KB units: 2 x 1.
        c.eq(
            c.units(),
            Some(2.0),
            "a retry is charged as a transactional read",
        );
    })
}

fn cancel(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let current = item! {"PK" => s("p"), "SK" => s("locked"), "state" => s("locked")};
        c.put("locked item", "main", current.clone()).await;
        c.put(
            "counter",
            "main",
            item! {"PK" => s("p"), "SK" => s("counter"), "count" => n(1)},
        )
        .await;
        let actions = vec![
            tput("main", item! {"PK" => s("p"), "SK" => s("new")}, None),
            tcheck(key("p", "locked"), Condition::eq("state", s("open")), true),
            tupdate(key("p", "counter"), counter_add(1), None),
            tcheck(key("p", "absent"), Condition::exists("PK"), true),
        ];
        let o = c
            .transact_write("cancelled by two conditions", tx(actions))
            .await;
        c.fails(
            &o,
            Failure::Canceled(vec![
                ("None".into(), None),
                ("ConditionalCheckFailed".into(), Some(current)),
                ("None".into(), None),
                ("ConditionalCheckFailed".into(), None),
            ]),
            "reasons in order, old item where asked and present",
        );
        let o = c.get("nothing was put", "main", key("p", "new")).await;
        c.eq(o, Out::Item(None), "put rolled back");
        let o = c
            .get("nothing was updated", "main", key("p", "counter"))
            .await;
        c.eq(
            o.item().and_then(|i| i.get("count").map(text)),
            Some("1".to_owned()),
            "update rolled back",
        );
    })
}

fn runtime_validation(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        c.put(
            "locked item",
            "main",
            item! {"PK" => s("p"), "SK" => s("locked"), "state" => s("locked")},
        )
        .await;
        c.put(
            "counter",
            "main",
            item! {"PK" => s("p"), "SK" => s("counter"), "count" => n(1)},
        )
        .await;
        let actions = vec![
            tupdate(key("p", "counter"), counter_add(1), None),
            tupdate(
                key("p", "locked"),
                Update {
                    add: vec![(Path::attr("state"), n(1))],
                    ..Update::default()
                },
                None,
            ),
        ];
        let o = c
            .transact_write("an update that fails at run time", tx(actions))
            .await;
        c.fails(
            &o,
            Failure::Canceled(vec![
                ("None".into(), None),
                ("ValidationError".into(), None),
            ]),
            "validation reason",
        );
        let o = c.get("counter still 1", "main", key("p", "counter")).await;
        c.eq(
            o.item().and_then(|i| i.get("count").map(text)),
            Some("1".to_owned()),
            "rolled back",
        );
    })
}

fn malformed(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let o = c.transact_write("no actions", tx(vec![])).await;
        c.invalid(&o, "0 actions");
        let actions = vec![tput("main", item! {"PK" => s("p")}, None)];
        let o = c
            .transact_write("a put without its sort key", tx(actions))
            .await;
        // A user error in one action cancels the transaction with that action's reason
        // (TransactionCanceledException: "There is a user error, such as an invalid data format").
        c.fails(&o, canceled(&["ValidationError"]), "invalid key");
        let actions = vec![
            tput("main", item! {"PK" => s("p"), "SK" => s("ok")}, None),
            tdelete(item! {"PK" => n(1), "SK" => s("x")}, None),
            tcheck(
                item! {"PK" => s("p"), "SK" => s("x"), "X" => s("extra")},
                Condition::exists("a"),
                false,
            ),
        ];
        let o = c
            .transact_write("a mistyped key and an extra key attribute", tx(actions))
            .await;
        c.fails(
            &o,
            canceled(&["None", "ValidationError", "ValidationError"]),
            "a reason per action, in order",
        );
        let o = c.scan("nothing written", scan("main")).await;
        c.eq(o.counts(), (0, 0), "rejected transactions write nothing");
    })
}

fn limits(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let actions = vec![
            tput("main", item! {"PK" => s("p"), "SK" => s("1")}, None),
            tupdate(key("p", "1"), counter_add(1), None),
        ];
        let o = c
            .transact_write("two actions on one item", tx(actions))
            .await;
        c.invalid(&o, "one action per item");
        let actions = (0..101)
            .map(|i| {
                tput(
                    "main",
                    item! {"PK" => s("p"), "SK" => s(format!("{i}"))},
                    None,
                )
            })
            .collect();
        let o = c.transact_write("101 actions", tx(actions)).await;
        c.invalid(&o, "101 actions");
        let o = c.scan("nothing written", scan("main")).await;
        c.eq(o.counts(), (0, 0), "rejected transactions write nothing");
        let actions = (0..100)
            .map(|i| {
                tput(
                    "main",
                    item! {"PK" => s("p"), "SK" => s(format!("{i:03}"))},
                    None,
                )
            })
            .collect();
        let o = c.transact_write("100 actions", tx(actions)).await;
        c.eq(o, Out::Done, "100 actions");
        let o = c
            .query("100 items", query("main", None, "PK", s("p")))
            .await;
        c.eq(o.counts(), (100, 100), "all written");
        let actions = vec![tput(
            "no-such-table",
            item! {"PK" => s("p"), "SK" => s("1")},
            None,
        )];
        let o = c.transact_write("a missing table", tx(actions)).await;
        c.fails(&o, Failure::NotFound, "missing table");
    })
}

/// Idempotency token `n` of this run: DynamoDB remembers a token account-wide for 10 minutes,
/// so a token reused by another run (with another table name) would be a mismatch.
fn token(c: &Ctx, n: u32) -> String {
    let table = c.t("main");
    let tail = &table[table.len().saturating_sub(28)..];
    format!("{tail}-{n}")
}

fn idempotency(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let request = TransactWriteRequest::new(vec![tupdate(key("p", "c"), counter_add(1), None)])
            .with_client_request_token(Some(token(c, 1)));
        let o = c.transact_write("with a token", request.clone()).await;
        c.eq(o, Out::Done, "first");
        let o = c
            .transact_write("the same request and token again", request.clone())
            .await;
        c.eq(o, Out::Done, "retry succeeds");
        let o = c.get("applied once", "main", key("p", "c")).await;
        c.eq(
            o.item().and_then(|i| i.get("count").map(text)),
            Some("1".to_owned()),
            "not applied twice",
        );
        let mut other = request.clone();
        other.actions = vec![tupdate(key("p", "c"), counter_add(5), None)];
        let o = c
            .transact_write("the same token with another request", other)
            .await;
        c.invalid(&o, "IdempotentParameterMismatch");
        let mut fresh = request;
        fresh.client_request_token = Some(token(c, 2));
        let o = c.transact_write("another token applies again", fresh).await;
        c.eq(o, Out::Done, "new token");
        let o = c.get("applied twice in all", "main", key("p", "c")).await;
        c.eq(
            o.item().and_then(|i| i.get("count").map(text)),
            Some("2".to_owned()),
            "second token applied",
        );
    })
}

fn transact_get_projection(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        c.put(
            "a",
            "main",
            item! {"PK" => s("p"), "SK" => s("a"), "x" => n(1), "y" => n(2)},
        )
        .await;
        let gets = vec![TransactGetItem::new("main", key("p", "a"))
            .with_projection(Some(vec![Path::attr("y")]))];
        let o = c
            .transact_get("a projected read", TransactGetRequest::new(gets))
            .await;
        c.eq(o, Out::Items(vec![Some(item! {"y" => n(2)})]), "projected");
    })
}

fn transact_get(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        c.put(
            "a",
            "main",
            item! {"PK" => s("p"), "SK" => s("a"), "x" => n(1), "y" => n(2)},
        )
        .await;
        c.put("h", "hash", item! {"PK" => s("h")}).await;
        let gets = vec![
            TransactGetItem::new("main", key("p", "a")),
            TransactGetItem::new("main", key("p", "missing")),
            TransactGetItem::new("hash", item! {"PK" => s("h")}),
        ];
        let o = c
            .transact_get("three reads", TransactGetRequest::new(gets))
            .await;
        c.eq(
            o,
            Out::Items(vec![
                Some(item! {"PK" => s("p"), "SK" => s("a"), "x" => n(1), "y" => n(2)}),
                None,
                Some(item! {"PK" => s("h")}),
            ]),
            "reads in order",
        );
        let gets = vec![TransactGetItem::new("main", item! {"PK" => s("p")})];
        let o = c
            .transact_get("a key without its sort key", TransactGetRequest::new(gets))
            .await;
        c.fails(&o, canceled(&["ValidationError"]), "invalid key");
        let o = c
            .transact_get("no reads", TransactGetRequest::new(vec![]))
            .await;
        c.invalid(&o, "0 reads");
    })
}

/// TransactWriteItems: "The aggregate size of the items in the transaction cannot exceed 4 MB",
/// at the exact boundary: 11 puts of 4,194,304 bytes in all (DynamoDB's item size formula) are
/// applied, one byte more is refused whole.
fn four_megabytes(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        // Each item: "PK" + "big" (5) + "SK" + two digits (4) + "x" + the padding (1 + pad).
        let puts = |last_pad: usize| {
            let actions = (0..11)
                .map(|i| {
                    let pad = if i == 10 { last_pad } else { 381_290 };
                    tput(
                        "main",
                        item! {"PK" => s("big"), "SK" => s(format!("{i:02}")), "x" => s("x".repeat(pad))},
                        None,
                    )
                })
                .collect();
            tx(actions)
        };
        let o = c.transact_write("4 MB and one byte", puts(381_295)).await;
        c.invalid(&o, "4,194,305 bytes of items");
        let o = c
            .query("nothing written", query("main", None, "PK", s("big")))
            .await;
        c.eq(o.counts(), (0, 0), "a refused transaction writes nothing");
        let o = c.transact_write("exactly 4 MB", puts(381_294)).await;
        c.eq(o, Out::Done, "4,194,304 bytes of items");
        // Read back one by one: pages of items this large are where dynoxide's 1 MB rule
        // deviates (recorded in the scan scenarios).
        for i in 0..11 {
            let o = c
                .get("written", "main", key("big", &format!("{i:02}")))
                .await;
            c.check(o.items().len() == 1, format!("item {i} written"));
        }
    })
}

/// An empty string key value (the table's, a Put's index key, or one an Update sets) fails a
/// write transaction as a ValidationException of the request; the action's key checks run in
/// PutItem's order, so a sort key of the wrong type ahead of it is the action's ValidationError
/// reason, beside the other actions' (dynoxide, which records DynamoDB's answers; the
/// TransactionCanceledException reference lists index key faults among the ValidationError
/// reasons). Nothing is written.
fn empty_key_values(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        c.put(
            "an item to update",
            "main",
            item! {"PK" => s("p"), "SK" => s("there")},
        )
        .await;
        let absent = || tcheck(key("p", "absent"), Condition::exists("PK"), false);
        let actions = vec![
            absent(),
            tput(
                "main",
                item! {"PK" => s("p"), "SK" => b(b"x"), "GSI2PK" => s("")},
                None,
            ),
        ];
        let o = c
            .transact_write("a mistyped sort key before an empty index key", tx(actions))
            .await;
        c.fails(
            &o,
            canceled(&["ConditionalCheckFailed", "ValidationError"]),
            "the sort key's type is the action's reason",
        );
        let actions = vec![
            absent(),
            tput(
                "main",
                item! {"PK" => s("p"), "SK" => s("new"), "GSI2PK" => s("")},
                None,
            ),
        ];
        let o = c
            .transact_write("a put's empty index key value", tx(actions))
            .await;
        c.invalid(&o, "an empty index key value in a put");
        let actions = vec![
            absent(),
            tput("main", item! {"PK" => s(""), "SK" => s("new")}, None),
        ];
        let o = c
            .transact_write("a put's empty partition key value", tx(actions))
            .await;
        c.invalid(&o, "an empty partition key value in a put");
        let actions = vec![
            absent(),
            tupdate(
                key("p", "there"),
                Update {
                    set: vec![(
                        Path::attr("GSI2PK"),
                        SetValue::Operand(UpdateOperand::Value(s(""))),
                    )],
                    ..Update::default()
                },
                None,
            ),
        ];
        let o = c
            .transact_write(
                "an update setting an index key to an empty value",
                tx(actions),
            )
            .await;
        c.invalid(&o, "an empty index key value set by an update");
        let o = c.scan("nothing written", scan("main")).await;
        c.eq(o.counts(), (1, 1), "only the first item is there");
    })
}
