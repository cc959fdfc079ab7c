//! UpdateTable: a global secondary index added to a populated table (backfilled, then queryable,
//! then maintained by writes) and removed again, the status DynamoDB answers while it builds, and
//! the errors of requests it refuses.

use futures::future::BoxFuture;

use super::support::*;
use super::{BackendKind, MAIN};

const NO_UPDATE_TABLE: Deviation = differs(
    BackendKind::Dynalite,
    "dynalite 3.2.2 refuses a GSI create on an on-demand table with a ValidationException, so the index never exists",
);

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "a GSI added to a populated table is backfilled, queryable and maintained; removed, it is gone",
            tables: &[MAIN],
            run: add_and_remove,
            deviations: vec![
                NO_UPDATE_TABLE,
                differs(BackendKind::Moto, "moto answers a query on a missing index with ResourceNotFoundException (DynamoDB: ValidationException), and accepts an index key value of the wrong type (so the order written with one also shows in LSI1)"),
            ],
        },
        Scenario {
            name: "a backfill leaves out items whose index key values violate the index's rules, at the exact size limits",
            tables: &[MAIN],
            run: violations,
            deviations: vec![
                differs(BackendKind::Dynoxide, "dynoxide 3.2.0 backfills items whose index key value has another type or is over the key size limit; DynamoDB's developer guide ('Detecting and correcting index key violations') says such items stay in the table without an index entry"),
                differs(BackendKind::Moto, "moto backfills items whose index key value has another type or is over the key size limit"),
                NO_UPDATE_TABLE,
            ],
        },
        Scenario {
            name: "UpdateTable answers CREATING for a new index and DELETING for a removed one",
            tables: &[MAIN],
            run: statuses,
            deviations: vec![
                differs(BackendKind::Dynoxide, "dynoxide answers UpdateTable with the new index ACTIVE and the removed one already gone (it builds synchronously); DynamoDB's developer guide ('Adding a global secondary index to an existing table': the index is CREATING while it is built and backfilled, and DELETING while it is removed) and its UpdateTable response say CREATING and DELETING"),
                differs(BackendKind::Moto, "moto answers UpdateTable with the new index ACTIVE"),
                NO_UPDATE_TABLE,
            ],
        },
        Scenario {
            name: "UpdateTable refuses duplicate, unknown and repeated index changes",
            tables: &[MAIN],
            run: refused,
            deviations: vec![
                differs(BackendKind::Moto, "moto accepts a create of an existing index name and a delete of an unknown one"),
                NO_UPDATE_TABLE,
            ],
        },
        Scenario {
            name: "UpdateTable creates or deletes one index per request",
            tables: &[MAIN],
            run: one_at_a_time,
            deviations: vec![
                differs(BackendKind::Dynoxide, "dynoxide 3.2.0 accepts up to five index creates in one UpdateTable; DynamoDB's API Reference (UpdateTable, GlobalSecondaryIndexUpdates) says 'You can create or delete only one global secondary index per UpdateTable operation' (LimitExceededException)"),
                differs(BackendKind::Moto, "moto accepts several index creates in one UpdateTable"),
                NO_UPDATE_TABLE,
            ],
        },
    ]
}

/// The index added: orders by status and date, projecting `total`.
fn by_status() -> IndexDef {
    IndexDef::new("ByStatus", "status", Some("placed"))
        .projection(Projection::Include(vec!["total".into()]))
}

/// The main table as described: its keys and indexes, with `extra` indexes.
fn described(extra: &[&str]) -> Out {
    let mut indexes: Vec<String> = ["GSI1", "GSI2", "LSI1"]
        .iter()
        .chain(extra)
        .map(|i| (*i).to_owned())
        .collect();
    indexes.sort();
    Out::Table {
        keys: vec!["PK".into(), "SK".into()],
        indexes,
        ttl: None,
    }
}

/// A scan of the added index.
fn index_scan() -> ScanRequest {
    let mut r = scan("main");
    r.index = Some("ByStatus".into());
    r
}

/// The shipped orders, by the added index.
fn shipped() -> QueryRequest {
    query("main", Some("ByStatus"), "status", s("SHIPPED"))
}

/// An order of user `user`, in the main table's overloaded layout (it also sits in GSI1 under
/// `GSI1PK = ORDERS`, and in LSI1 by `LSK`).
fn order(user: &str, id: &str, status: AttributeValue, placed: &str) -> Item {
    item! {
        "PK" => s(format!("USER#{user}")), "SK" => s(format!("ORDER#{id}")),
        "status" => status, "placed" => s(placed), "total" => n(10),
        "note" => s("not projected"),
        "GSI1PK" => s("ORDERS"), "GSI1SK" => s(placed), "LSK" => s(placed),
    }
}

/// A user's profile: same partition as its orders, no `status` (so not in the new index).
fn profile(user: &str) -> Item {
    item! {
        "PK" => s(format!("USER#{user}")), "SK" => s("PROFILE"),
        "email" => s(format!("{user}@example.com")),
        "GSI1PK" => s("USERS"), "GSI1SK" => s(user),
    }
}

fn add_and_remove(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        for u in ["u1", "u2"] {
            let o = c.put("a profile", "main", profile(u)).await;
            c.ok(&o, "profile");
        }
        let orders = [
            ("u1", "1", s("SHIPPED"), "2024-03"),
            ("u1", "2", s("PENDING"), "2024-01"),
            ("u2", "3", s("SHIPPED"), "2024-02"),
            ("u2", "4", s("RETURNED"), "2024-04"),
            ("u2", "5", s("RETURNED"), "2024-05"),
        ];
        for (u, id, status, placed) in orders {
            let o = c
                .put("an order", "main", order(u, id, status, placed))
                .await;
            c.ok(&o, "order");
        }
        let o = c.query("query the index before it exists", shipped()).await;
        c.invalid(&o, "no such index yet");
        let o = c
            .update_table(
                "add ByStatus",
                "main",
                vec![IndexChange::Create(by_status())],
            )
            .await;
        c.eq(o, Out::Done, "index added");
        let o = c.wait_for_indexes("until it is active", "main").await;
        c.eq(o, described(&["ByStatus"]), "described with the new index");
        let o = c.query("the backfilled orders by status", shipped()).await;
        c.values(
            &o,
            "placed",
            &["2024-02", "2024-03"],
            "backfilled, in index order",
        );
        c.check(
            o.items()
                .iter()
                .all(|i| i.contains_key("total") && !i.contains_key("note")),
            format!("INCLUDE projection: total kept, note left out ({o})"),
        );
        let o = c.scan_all("everything in the index", index_scan()).await;
        c.values(
            &o,
            "SK",
            &["ORDER#1", "ORDER#2", "ORDER#3", "ORDER#4", "ORDER#5"],
            "every order; the profiles (no status) absent",
        );
        // Writes from now on maintain it.
        let o = c
            .put(
                "a new shipped order",
                "main",
                order("u1", "6", s("SHIPPED"), "2024-06"),
            )
            .await;
        c.ok(&o, "put");
        let o = c
            .update(
                "ship the pending order",
                update(
                    "main",
                    key("USER#u1", "ORDER#2"),
                    set(&[("status", s("SHIPPED"))]),
                ),
            )
            .await;
        c.ok(&o, "update");
        let o = c
            .delete("delete an order", delete("main", key("USER#u2", "ORDER#3")))
            .await;
        c.ok(&o, "delete");
        let o = c
            .put(
                "a write with a status of the wrong type is now refused",
                "main",
                order("u1", "7", n(1), "2024-07"),
            )
            .await;
        c.invalid(&o, "index key type checked on write");
        let o = c.query("shipped orders after the writes", shipped()).await;
        c.values(
            &o,
            "placed",
            &["2024-01", "2024-03", "2024-06"],
            "index follows puts, updates and deletes",
        );
        // The table's other indexes are untouched.
        let o = c
            .query(
                "GSI1 still answers",
                query("main", Some("GSI1"), "GSI1PK", s("USERS")),
            )
            .await;
        c.values(&o, "SK", &["PROFILE", "PROFILE"], "GSI1 unchanged");
        let mut q = query("main", Some("LSI1"), "PK", s("USER#u1"));
        q.key_condition = q
            .key_condition
            .sort("LSK", SortCondition::BeginsWith(s("2024")));
        let o = c.query("LSI1 still answers", q).await;
        c.values(
            &o,
            "LSK",
            &["2024-01", "2024-03", "2024-06"],
            "LSI1 unchanged",
        );

        let o = c
            .update_table(
                "remove ByStatus",
                "main",
                vec![IndexChange::Delete("ByStatus".into())],
            )
            .await;
        c.eq(o, Out::Done, "index removed");
        let o = c.wait_for_indexes("until it is gone", "main").await;
        c.eq(o, described(&[]), "described without it");
        let o = c.query("query the removed index", shipped()).await;
        c.invalid(&o, "index gone");
        let o = c
            .put(
                "a status of any type is an ordinary attribute again",
                "main",
                order("u1", "7", n(1), "2024-07"),
            )
            .await;
        c.ok(&o, "put");
        let o = c
            .query(
                "GSI1 after the removal",
                query("main", Some("GSI1"), "GSI1PK", s("ORDERS")),
            )
            .await;
        c.values(
            &o,
            "GSI1SK",
            &[
                "2024-01", "2024-03", "2024-04", "2024-05", "2024-06", "2024-07",
            ],
            "GSI1 kept every order",
        );
    })
}

/// Items whose `status` / `placed` would be the new index's keys, at and past DynamoDB's limits.
fn violations(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let cases = [
            ("1", s("SHIPPED"), s("2024-01")),
            // Exactly at the limits: indexed.
            ("2", s(big(2048)), s("2024-02")),
            ("3", s("SHIPPED"), s(big(1024))),
            // One byte over, another type, empty: index key violations, left out.
            ("4", s(big(2049)), s("2024-04")),
            ("5", s("SHIPPED"), s(big(1025))),
            ("6", n(7), s("2024-06")),
            ("7", s("SHIPPED"), n(2024)),
        ];
        for (id, status, placed) in cases {
            let mut o = order("u1", id, status, "x");
            o.insert("placed".into(), placed);
            let o = c.put("an order", "main", o).await;
            c.ok(&o, "put");
        }
        let o = c
            .update_table(
                "add ByStatus",
                "main",
                vec![IndexChange::Create(by_status())],
            )
            .await;
        c.eq(o, Out::Done, "index added");
        c.wait_for_indexes("until it is active", "main").await;
        let o = c.scan_all("everything in the index", index_scan()).await;
        c.values(
            &o,
            "SK",
            &["ORDER#1", "ORDER#2", "ORDER#3"],
            "the orders within the limits; the violations left out",
        );
        let o = c
            .get(
                "a violating item is still in the table",
                "main",
                key("USER#u1", "ORDER#4"),
            )
            .await;
        c.check(o.item().is_some(), "ORDER#4 kept");
        // After the backfill, a write that would violate the index is refused.
        let mut over = order("u1", "8", s(big(2049)), "x");
        over.insert("placed".into(), s("2024-08"));
        let o = c
            .put("a partition key value of 2,049 bytes", "main", over)
            .await;
        c.invalid(&o, "over the index partition key limit");
        let mut at = order("u1", "8", s(big(2048)), "x");
        at.insert("placed".into(), s("2024-08"));
        let o = c
            .put("a partition key value of 2,048 bytes", "main", at)
            .await;
        c.ok(&o, "at the limit");
    })
}

fn statuses(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let o = c
            .put(
                "an order",
                "main",
                order("u1", "1", s("SHIPPED"), "2024-01"),
            )
            .await;
        c.ok(&o, "put");
        let o = c
            .update_table(
                "add ByStatus",
                "main",
                vec![IndexChange::Create(by_status())],
            )
            .await;
        c.eq(o, Out::Done, "added");
        let status = |c: &Ctx, name: &str| {
            c.index_status
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, s)| *s)
        };
        let answered = status(c, "ByStatus");
        c.eq(
            answered,
            Some(IndexStatus::Creating),
            "the new index as UpdateTable answers",
        );
        let others = status(c, "GSI1");
        c.eq(others, Some(IndexStatus::Active), "the other indexes");
        c.wait_for_indexes("until it is active", "main").await;
        let o = c
            .update_table(
                "remove ByStatus",
                "main",
                vec![IndexChange::Delete("ByStatus".into())],
            )
            .await;
        c.eq(o, Out::Done, "removed");
        let answered = status(c, "ByStatus");
        c.eq(
            answered,
            Some(IndexStatus::Deleting),
            "the removed index as UpdateTable answers",
        );
        c.wait_for_indexes("until it is gone", "main").await;
    })
}

fn refused(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let o = c
            .update_table(
                "create an index under an existing index's name",
                "main",
                vec![IndexChange::Create(IndexDef::new("GSI1", "other", None))],
            )
            .await;
        c.invalid(&o, "index exists");
        let o = c
            .update_table(
                "delete an index the table does not have",
                "main",
                vec![IndexChange::Delete("NoSuchIndex".into())],
            )
            .await;
        c.fails(&o, Failure::NotFound, "unknown index");
        let o = c
            .update_table(
                "create and delete one index in one request",
                "main",
                vec![
                    IndexChange::Create(IndexDef::new("Twice", "other", None)),
                    IndexChange::Delete("Twice".into()),
                ],
            )
            .await;
        c.invalid(&o, "one change per index");
        let o = c
            .update_table(
                "add an index to a missing table",
                "no-such-table",
                vec![IndexChange::Create(by_status())],
            )
            .await;
        c.fails(&o, Failure::NotFound, "missing table");
        let o = c.describe("nothing changed", "main").await;
        c.eq(o, described(&[]), "indexes as created");
    })
}

fn one_at_a_time(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let o = c
            .update_table(
                "create two indexes in one request",
                "main",
                vec![
                    IndexChange::Create(by_status()),
                    IndexChange::Create(IndexDef::new("ByEmail", "email", None)),
                ],
            )
            .await;
        c.fails(
            &o,
            Failure::Service(Some("LimitExceededException".into())),
            "one index per request",
        );
        let o = c
            .update_table(
                "create one and delete another",
                "main",
                vec![
                    IndexChange::Create(by_status()),
                    IndexChange::Delete("GSI2".into()),
                ],
            )
            .await;
        c.fails(
            &o,
            Failure::Service(Some("LimitExceededException".into())),
            "one index per request",
        );
        let o = c.describe("nothing changed", "main").await;
        c.eq(o, described(&[]), "indexes as created");
    })
}
