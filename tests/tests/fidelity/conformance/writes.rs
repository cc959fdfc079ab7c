//! Conditional writes, update actions and ReturnValues.

use futures::future::BoxFuture;

use super::support::*;
use super::{BackendKind, MAIN};

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "conditional put",
            tables: &[MAIN],
            run: conditional_put,
            deviations: vec![],
        },
        Scenario {
            name: "conditional update and delete",
            tables: &[MAIN],
            run: conditional_update_delete,
            deviations: vec![],
        },
        Scenario {
            name: "update actions: SET, REMOVE, ADD, DELETE",
            tables: &[MAIN],
            run: update_actions,
            deviations: vec![],
        },
        Scenario {
            name: "ReturnValues on update",
            tables: &[MAIN],
            run: update_return_values,
            deviations: vec![],
        },
        Scenario {
            name: "UPDATED_OLD and UPDATED_NEW return nested paths only",
            tables: &[MAIN],
            run: updated_nested,
            deviations: vec![
                differs(
                    BackendKind::Moto,
                    "moto returns the whole top-level attribute for UPDATED_OLD of a nested SET",
                ),
                differs(
                    BackendKind::Dynoxide,
                    "dynoxide returns the whole list for UPDATED_OLD/UPDATED_NEW of a SET on a list element (it narrows map paths only); UpdateItem's reference says only the updated attributes are returned",
                ),
            ],
        },
        Scenario {
            name: "UPDATED_NEW of a list element SET past the end returns it where it landed",
            tables: &[MAIN],
            run: updated_new_appended,
            deviations: vec![differs(
                BackendKind::Dynalite,
                "dynalite looks for l[3] after the update, where the element landed at l[0], and returns nothing for UPDATED_NEW",
            )],
        },
        Scenario {
            name: "ReturnValues on put and delete",
            tables: &[MAIN],
            run: put_delete_return_values,
            deviations: vec![],
        },
        Scenario {
            name: "ReturnValues other than NONE and ALL_OLD are rejected on put and delete",
            tables: &[MAIN],
            run: invalid_return_values,
            deviations: vec![differs(
                BackendKind::Dynalite,
                "dynalite accepts ALL_NEW on DeleteItem (and deletes the item)",
            )],
        },
        Scenario {
            name: "ReturnValuesOnConditionCheckFailure returns the old item",
            tables: &[MAIN],
            run: return_old_on_failure,
            deviations: vec![differs(
                BackendKind::Dynalite,
                "dynalite 3.2.2 predates ReturnValuesOnConditionCheckFailure and returns no item",
            )],
        },
        Scenario {
            name: "update errors",
            tables: &[MAIN],
            run: update_errors,
            deviations: vec![],
        },
    ]
}

fn doc(sk: &str, version: i64) -> Item {
    item! {"PK" => s("p"), "SK" => s(sk), "version" => n(version), "name" => s("n")}
}

fn conditional_put(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let mut r = put("main", doc("a", 1));
        r.condition = Some(Condition::not_exists("PK"));
        let o = c.put_req("create if absent", r.clone()).await;
        c.ok(&o, "first create");
        let o = c.put_req("create again fails", r.clone()).await;
        c.fails(&o, Failure::ConditionFailed(None), "second create");
        let mut v = put("main", doc("a", 2));
        v.condition = Some(Condition::eq("version", n(1)));
        let o = c
            .put_req("optimistic lock: version 1 -> 2", v.clone())
            .await;
        c.ok(&o, "version matches");
        let o = c.put_req("optimistic lock with a stale version", v).await;
        c.fails(&o, Failure::ConditionFailed(None), "stale version");
        let mut missing = put("main", doc("b", 1));
        missing.condition = Some(Condition::exists("PK"));
        let o = c.put_req("replace-only on a missing item", missing).await;
        c.fails(&o, Failure::ConditionFailed(None), "replace-only");
        let mut complex = put("main", doc("a", 3));
        complex.condition = Some(
            cmp("version", Comparator::Lt, n(3))
                .and(Condition::BeginsWith(
                    Path::attr("name"),
                    Operand::Value(s("n")),
                ))
                .and(Condition::Not(Box::new(Condition::exists("deleted")))),
        );
        let o = c.put_req("a compound condition", complex).await;
        c.ok(&o, "compound condition holds");
        let o = c
            .get("after the conditional puts", "main", key("p", "a"))
            .await;
        c.eq(o.item(), Some(doc("a", 3)), "final item");
    })
}

fn conditional_update_delete(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let mut u = update("main", key("p", "a"), set(&[("name", s("m"))]));
        u.condition = Some(Condition::exists("PK"));
        let o = c
            .update("update-if-exists on a missing item", u.clone())
            .await;
        c.fails(&o, Failure::ConditionFailed(None), "no item");
        let o = c.get("nothing was created", "main", key("p", "a")).await;
        c.eq(o, Out::Item(None), "failed update creates nothing");
        c.put("create", "main", doc("a", 1)).await;
        let o = c.update("update-if-exists", u).await;
        c.ok(&o, "update applies");
        let mut d = delete("main", key("p", "a"));
        d.condition = Some(Condition::eq("version", n(9)));
        let o = c.delete("delete with a failing condition", d.clone()).await;
        let mut now = doc("a", 1);
        now.insert("name".into(), s("m"));
        c.fails(&o, Failure::ConditionFailed(None), "failed delete");
        d.condition = Some(Condition::eq("version", n(1)));
        d.return_values = ReturnValues::AllOld;
        let o = c.delete("delete with a holding condition", d).await;
        c.eq(o, Out::Written(Some(now)), "ALL_OLD on delete");
        let o = c.get("gone", "main", key("p", "a")).await;
        c.eq(o, Out::Item(None), "deleted");
        let o = c
            .delete(
                "delete of a missing item succeeds",
                delete("main", key("p", "a")),
            )
            .await;
        c.eq(o, Out::Written(None), "idempotent delete");
    })
}

fn update_actions(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let o = c
            .update(
                "update creates a missing item",
                update(
                    "main",
                    key("p", "u"),
                    set(&[
                        ("name", s("x")),
                        ("tags", ss(&["a", "b"])),
                        ("list", l(vec![n(1)])),
                    ]),
                ),
            )
            .await;
        c.ok(&o, "upsert");
        let add = |v: AttributeValue| Update {
            add: vec![(Path::attr("count"), v)],
            ..Update::default()
        };
        c.update(
            "ADD to a missing number starts at 0",
            update("main", key("p", "u"), add(n(5))),
        )
        .await;
        c.update("ADD again", update("main", key("p", "u"), add(n("-1.5"))))
            .await;
        let sets = Update {
            add: vec![(Path::attr("tags"), ss(&["c"]))],
            delete: vec![(Path::attr("tags"), ss(&["a", "zz"]))],
            ..Update::default()
        };
        let o = c
            .update(
                "ADD and DELETE on different sets",
                update(
                    "main",
                    key("p", "u"),
                    Update {
                        delete: vec![],
                        ..sets.clone()
                    },
                ),
            )
            .await;
        c.ok(&o, "ADD to a set");
        c.update(
            "DELETE from a set",
            update(
                "main",
                key("p", "u"),
                Update {
                    add: vec![],
                    ..sets
                },
            ),
        )
        .await;
        let nested = Update {
            set: vec![
                (Path::attr("meta"), SetValue::value(m(item! {"a" => n(1)}))),
                (
                    Path::attr("list"),
                    SetValue::Operand(UpdateOperand::ListAppend(
                        Box::new(UpdateOperand::Path(Path::attr("list"))),
                        Box::new(UpdateOperand::Value(l(vec![n(2), n(3)]))),
                    )),
                ),
                (
                    Path::attr("first"),
                    SetValue::Operand(UpdateOperand::IfNotExists(
                        Path::attr("first"),
                        Box::new(UpdateOperand::Value(s("v1"))),
                    )),
                ),
                (
                    Path::attr("total"),
                    SetValue::Plus(
                        UpdateOperand::Path(Path::attr("count")),
                        UpdateOperand::Value(n(10)),
                    ),
                ),
            ],
            remove: vec![Path::attr("name")],
            ..Update::default()
        };
        let o = c
            .update(
                "SET with list_append, if_not_exists, arithmetic; REMOVE",
                update("main", key("p", "u"), nested),
            )
            .await;
        c.ok(&o, "compound update");
        let again = Update {
            set: vec![
                (Path::attr("meta").key("b"), SetValue::value(s("nested"))),
                (
                    Path::attr("first"),
                    SetValue::Operand(UpdateOperand::IfNotExists(
                        Path::attr("first"),
                        Box::new(UpdateOperand::Value(s("v2"))),
                    )),
                ),
                (Path::attr("list").index(0), SetValue::value(s("replaced"))),
                (
                    Path::attr("total"),
                    SetValue::Minus(
                        UpdateOperand::Path(Path::attr("total")),
                        UpdateOperand::Value(n("0.25")),
                    ),
                ),
            ],
            remove: vec![Path::attr("list").index(2)],
            ..Update::default()
        };
        let o = c
            .update(
                "nested SET, list index, REMOVE of a list element",
                update("main", key("p", "u"), again),
            )
            .await;
        c.ok(&o, "nested update");
        let o = c.get("the result", "main", key("p", "u")).await;
        let want = item! {
            "PK" => s("p"), "SK" => s("u"),
            "tags" => ss(&["b", "c"]),
            "count" => n("3.5"),
            "list" => l(vec![s("replaced"), n(2)]),
            "meta" => m(item! {"a" => n(1), "b" => s("nested")}),
            "first" => s("v1"),
            "total" => n("13.25"),
        };
        c.eq(
            o.item().map(|i| show(&i)),
            Some(show(&want)),
            "every action applied",
        );
        let o = c
            .update(
                "DELETE the last elements removes the set",
                update(
                    "main",
                    key("p", "u"),
                    Update {
                        delete: vec![(Path::attr("tags"), ss(&["b", "c"]))],
                        ..Update::default()
                    },
                ),
            )
            .await;
        c.ok(&o, "empty the set");
        let o = c.get("the set is gone", "main", key("p", "u")).await;
        c.check(
            o.item().is_some_and(|i| !i.contains_key("tags")),
            "an emptied set is removed",
        );
    })
}

fn update_return_values(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        c.put(
            "start",
            "main",
            item! {"PK" => s("p"), "SK" => s("r"), "a" => n(1), "b" => s("x")},
        )
        .await;
        let step = |rv: ReturnValues, v: i64| {
            let mut u = update(
                "main",
                key("p", "r"),
                set(&[("a", n(v)), ("c", s(format!("c{v}")))]),
            );
            u.return_values = rv;
            u
        };
        let o = c.update("NONE", step(ReturnValues::None, 2)).await;
        c.eq(o, Out::Written(None), "NONE");
        let o = c.update("ALL_OLD", step(ReturnValues::AllOld, 3)).await;
        c.eq(
            o.item(),
            Some(
                item! {"PK" => s("p"), "SK" => s("r"), "a" => n(2), "b" => s("x"), "c" => s("c2")},
            ),
            "ALL_OLD",
        );
        let o = c
            .update("UPDATED_OLD", step(ReturnValues::UpdatedOld, 4))
            .await;
        c.eq(
            o.item(),
            Some(item! {"a" => n(3), "c" => s("c3")}),
            "UPDATED_OLD",
        );
        let o = c.update("ALL_NEW", step(ReturnValues::AllNew, 5)).await;
        c.eq(
            o.item(),
            Some(
                item! {"PK" => s("p"), "SK" => s("r"), "a" => n(5), "b" => s("x"), "c" => s("c5")},
            ),
            "ALL_NEW",
        );
        let o = c
            .update("UPDATED_NEW", step(ReturnValues::UpdatedNew, 6))
            .await;
        c.eq(
            o.item(),
            Some(item! {"a" => n(6), "c" => s("c6")}),
            "UPDATED_NEW",
        );
        let mut fresh = update("main", key("p", "fresh"), set(&[("a", n(1))]));
        fresh.return_values = ReturnValues::UpdatedOld;
        let o = c.update("UPDATED_OLD on a new item", fresh).await;
        c.eq(o, Out::Written(None), "nothing old");
        let mut rm = update(
            "main",
            key("p", "r"),
            Update {
                remove: vec![Path::attr("b")],
                ..Update::default()
            },
        );
        rm.return_values = ReturnValues::UpdatedNew;
        let o = c.update("UPDATED_NEW after a REMOVE", rm).await;
        c.eq(
            o,
            Out::Written(None),
            "removed attributes are not returned as new",
        );
    })
}

fn updated_nested(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        c.put("start", "main", item! {"PK" => s("p"), "SK" => s("n"), "m" => m(item! {"a" => n(1), "b" => n(2)}), "l" => l(vec![n(1), n(2)])}).await;
        let nested = |v: i64, rv: ReturnValues| {
            let mut u = update(
                "main",
                key("p", "n"),
                Update {
                    set: vec![
                        (Path::attr("m").key("a"), SetValue::value(n(v))),
                        (Path::attr("l").index(1), SetValue::value(n(v))),
                    ],
                    ..Update::default()
                },
            );
            u.return_values = rv;
            u
        };
        let o = c
            .update(
                "UPDATED_OLD of nested paths",
                nested(5, ReturnValues::UpdatedOld),
            )
            .await;
        c.eq(
            o.item(),
            Some(item! {"m" => m(item! {"a" => n(1)}), "l" => l(vec![n(2)])}),
            "old nested values",
        );
        let o = c
            .update(
                "UPDATED_NEW of nested paths",
                nested(6, ReturnValues::UpdatedNew),
            )
            .await;
        c.eq(
            o.item(),
            Some(item! {"m" => m(item! {"a" => n(6)}), "l" => l(vec![n(6)])}),
            "new nested values",
        );
    })
}

/// `SET l[3]` on an empty list appends the element at `l[0]`; UPDATED_NEW returns the updated
/// attributes "as they appear after the UpdateItem operation" (API reference, UpdateItem): the
/// element where it landed, not nothing for the index the update named.
fn updated_new_appended(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        c.put(
            "start",
            "main",
            item! {"PK" => s("p"), "SK" => s("e"), "l" => l(vec![])},
        )
        .await;
        let mut u = update(
            "main",
            key("p", "e"),
            Update {
                set: vec![(Path::attr("l").index(3), SetValue::value(n(7)))],
                ..Update::default()
            },
        );
        u.return_values = ReturnValues::UpdatedNew;
        let o = c.update("UPDATED_NEW of SET l[3] on []", u).await;
        c.eq(
            o.item(),
            Some(item! {"l" => l(vec![n(7)])}),
            "the element at l[0]",
        );
        let o = c.get("where it landed", "main", key("p", "e")).await;
        c.eq(
            o.item(),
            Some(item! {"PK" => s("p"), "SK" => s("e"), "l" => l(vec![n(7)])}),
            "appended",
        );
    })
}

fn put_delete_return_values(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let mut r = put("main", doc("a", 1));
        r.return_values = ReturnValues::AllOld;
        let o = c.put_req("ALL_OLD on a new item", r.clone()).await;
        c.eq(o, Out::Written(None), "nothing old");
        r.item = doc("a", 2);
        let o = c.put_req("ALL_OLD on a replace", r.clone()).await;
        c.eq(o, Out::Written(Some(doc("a", 1))), "old item");
        let mut d = delete("main", key("p", "a"));
        d.return_values = ReturnValues::AllOld;
        let o = c.delete("delete with ALL_OLD", d).await;
        c.eq(o, Out::Written(Some(doc("a", 2))), "deleted item returned");
    })
}

fn invalid_return_values(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        c.put("start", "main", doc("a", 1)).await;
        let mut r = put("main", doc("a", 2));
        r.return_values = ReturnValues::UpdatedNew;
        let o = c
            .put_req("UPDATED_NEW is not valid on put", r.clone())
            .await;
        c.invalid(&o, "put UPDATED_NEW");
        r.return_values = ReturnValues::AllNew;
        let o = c.put_req("ALL_NEW is not valid on put", r).await;
        c.invalid(&o, "put ALL_NEW");
        let mut d = delete("main", key("p", "a"));
        d.return_values = ReturnValues::AllNew;
        let o = c.delete("ALL_NEW is not valid on delete", d.clone()).await;
        c.invalid(&o, "delete ALL_NEW");
        let o = c.get("the item is unchanged", "main", key("p", "a")).await;
        c.eq(
            o.item(),
            Some(doc("a", 1)),
            "rejected writes change nothing",
        );
    })
}

fn return_old_on_failure(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        c.put("start", "main", doc("a", 1)).await;
        let mut r = put("main", doc("a", 2));
        r.condition = Some(Condition::not_exists("PK"));
        r.return_old_on_condition_failure = true;
        let o = c.put_req("create again, asking for the old item", r).await;
        c.fails(
            &o,
            Failure::ConditionFailed(Some(doc("a", 1))),
            "put returns the old item",
        );
        let mut u = update("main", key("p", "a"), set(&[("name", s("z"))]));
        u.condition = Some(Condition::eq("version", n(7)));
        u.return_old_on_condition_failure = true;
        let o = c
            .update("a failed update, asking for the old item", u)
            .await;
        c.fails(
            &o,
            Failure::ConditionFailed(Some(doc("a", 1))),
            "update returns the old item",
        );
        let mut d = delete("main", key("p", "a"));
        d.condition = Some(Condition::eq("version", n(9)));
        d.return_old_on_condition_failure = true;
        let o = c
            .delete("a failed delete, asking for the old item", d)
            .await;
        c.fails(
            &o,
            Failure::ConditionFailed(Some(doc("a", 1))),
            "delete returns the old item",
        );
        let mut missing = update("main", key("p", "none"), set(&[("name", s("z"))]));
        missing.condition = Some(Condition::exists("PK"));
        missing.return_old_on_condition_failure = true;
        let o = c.update("a failed update on a missing item", missing).await;
        c.fails(&o, Failure::ConditionFailed(None), "no old item to return");
    })
}

fn update_errors(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        c.put("start", "main", item! {"PK" => s("p"), "SK" => s("e"), "name" => s("x"), "count" => n(1), "list" => l(vec![])}).await;
        let cases = [
            ("SET on the partition key", set(&[("PK", s("q"))])),
            (
                "REMOVE the sort key",
                Update {
                    remove: vec![Path::attr("SK")],
                    ..Update::default()
                },
            ),
            (
                "ADD a number to a string",
                Update {
                    add: vec![(Path::attr("name"), n(1))],
                    ..Update::default()
                },
            ),
            (
                "ADD a string",
                Update {
                    add: vec![(Path::attr("count"), s("1"))],
                    ..Update::default()
                },
            ),
            (
                "arithmetic on a missing attribute",
                Update {
                    set: vec![(
                        Path::attr("x"),
                        SetValue::Plus(
                            UpdateOperand::Path(Path::attr("missing")),
                            UpdateOperand::Value(n(1)),
                        ),
                    )],
                    ..Update::default()
                },
            ),
            (
                "list_append to a non-list",
                Update {
                    set: vec![(
                        Path::attr("name"),
                        SetValue::Operand(UpdateOperand::ListAppend(
                            Box::new(UpdateOperand::Path(Path::attr("name"))),
                            Box::new(UpdateOperand::Value(l(vec![n(1)]))),
                        )),
                    )],
                    ..Update::default()
                },
            ),
            (
                "SET inside a missing map",
                set(&[]).clone_with_set(Path::attr("nomap").key("a"), n(1)),
            ),
            (
                "two actions on one path",
                Update {
                    set: vec![(Path::attr("a"), SetValue::value(n(1)))],
                    remove: vec![Path::attr("a")],
                    ..Update::default()
                },
            ),
            (
                "overlapping paths",
                Update {
                    set: vec![
                        (Path::attr("m"), SetValue::value(n(1))),
                        (Path::attr("m").key("x"), SetValue::value(n(2))),
                    ],
                    ..Update::default()
                },
            ),
            (
                "DELETE on a number",
                Update {
                    delete: vec![(Path::attr("count"), ns(&["1"]))],
                    ..Update::default()
                },
            ),
        ];
        for (what, u) in cases {
            let o = c.update(what, update("main", key("p", "e"), u)).await;
            c.invalid(&o, what);
        }
        let o = c.get("the item is unchanged", "main", key("p", "e")).await;
        c.eq(o.item(), Some(item! {"PK" => s("p"), "SK" => s("e"), "name" => s("x"), "count" => n(1), "list" => l(vec![])}), "unchanged");
        let o = c
            .update(
                "update with an incomplete key",
                update("main", item! {"PK" => s("p")}, set(&[("a", n(1))])),
            )
            .await;
        c.invalid(&o, "incomplete key");
        let o = c
            .update(
                "update on a missing table",
                update("no-such-table", key("p", "e"), set(&[("a", n(1))])),
            )
            .await;
        c.fails(&o, Failure::NotFound, "missing table");
    })
}

trait UpdateExt {
    fn clone_with_set(&self, path: Path, v: AttributeValue) -> Update;
}

impl UpdateExt for Update {
    fn clone_with_set(&self, path: Path, v: AttributeValue) -> Update {
        let mut u = self.clone();
        u.set.push((path, SetValue::value(v)));
        u
    }
}
