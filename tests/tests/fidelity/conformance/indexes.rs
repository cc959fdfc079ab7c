//! Secondary indexes: maintained on every write, sparse, projected, paginated with index and
//! table keys, typed.

use futures::future::BoxFuture;

use super::support::*;
use super::{BackendKind, MAIN, NUM};

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "GSI query returns indexed items in index order; sparse items are absent",
            tables: &[MAIN],
            run: gsi_basics,
            deviations: vec![],
        },
        Scenario {
            name: "indexes follow updates and deletes",
            tables: &[MAIN],
            run: gsi_maintenance,
            deviations: vec![],
        },
        Scenario {
            name: "KEYS_ONLY and INCLUDE projections",
            tables: &[MAIN],
            run: projections,
            deviations: vec![],
        },
        Scenario {
            name: "index pagination keys hold index and table keys",
            tables: &[MAIN],
            run: index_pagination,
            deviations: vec![],
        },
        Scenario {
            name: "an LSI read fetches unprojected attributes from the table",
            tables: &[MAIN],
            run: lsi_fetch,
            deviations: vec![
                differs(BackendKind::Dynalite, "dynalite returns only projected attributes from an LSI (the documentation says DynamoDB fetches the others from the table)"),
                differs(BackendKind::Moto, "moto returns only projected attributes from an LSI (the documentation says DynamoDB fetches the others from the table)"),
                differs(BackendKind::Dynoxide, "dynoxide returns only projected attributes from an LSI and filters on them alone (the developer guide's 'Projected attributes' for LSIs says DynamoDB fetches the others from the table)"),
            ],
        },
        Scenario {
            name: "index key attributes may not be empty strings",
            tables: &[MAIN],
            run: empty_index_keys,
            deviations: vec![differs(BackendKind::Dynalite, "dynalite 3.2.2 accepts an empty string as a GSI key value")],
        },
        Scenario {
            name: "index key attributes must have the index's type",
            tables: &[MAIN],
            run: index_key_types,
            deviations: vec![differs(BackendKind::Moto, "moto accepts index key attributes of the wrong type")],
        },
        Scenario {
            name: "numeric GSI sort key",
            tables: &[NUM],
            run: numeric_gsi,
            deviations: vec![],
        },
    ]
}

fn order(pk: &str, sk: &str, gpk: Option<&str>, gsk: Option<&str>) -> Item {
    let mut i = item! {"PK" => s(pk), "SK" => s(sk), "total" => n(10)};
    if let Some(g) = gpk {
        i.insert("GSI1PK".into(), s(g));
    }
    if let Some(g) = gsk {
        i.insert("GSI1SK".into(), s(g));
    }
    i
}

fn gsi_basics(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        c.put("indexed c", "main", order("u1", "o1", Some("G"), Some("c")))
            .await;
        c.put("indexed a", "main", order("u2", "o1", Some("G"), Some("a")))
            .await;
        c.put("indexed b", "main", order("u1", "o2", Some("G"), Some("b")))
            .await;
        c.put("no index key", "main", order("u3", "o1", None, None))
            .await;
        c.put(
            "index partition key only",
            "main",
            order("u3", "o2", Some("G"), None),
        )
        .await;
        c.put(
            "other index partition",
            "main",
            order("u4", "o1", Some("H"), Some("a")),
        )
        .await;
        let o = c
            .query("query GSI1", query("main", Some("GSI1"), "GSI1PK", s("G")))
            .await;
        c.values(&o, "GSI1SK", &["a", "b", "c"], "index order");
        c.values(
            &o,
            "PK",
            &["u2", "u1", "u1"],
            "whole items (ALL projection)",
        );
        c.check(
            o.items().iter().all(|i| i.contains_key("total")),
            "ALL projection keeps every attribute",
        );
        let mut q = query("main", Some("GSI1"), "GSI1PK", s("G"));
        q.key_condition = q.key_condition.sort("GSI1SK", SortCondition::Gt(s("a")));
        q.scan_forward = false;
        let o = c
            .query("query GSI1 with a sort condition, descending", q)
            .await;
        c.values(&o, "GSI1SK", &["c", "b"], "descending index order");
        let o = c
            .scan("scan GSI1", scan("main").with_index(Some("GSI1")))
            .await;
        c.eq(o.counts(), (4, 4), "only items with both index keys");
        let mut q = query("main", Some("LSI1"), "PK", s("u1"));
        q.consistent_read = true;
        let o = c
            .query("consistent read on an LSI (no item has LSK)", q)
            .await;
        c.eq(
            o,
            Out::Page {
                items: vec![],
                count: 0,
                scanned: 0,
                lek: None,
            },
            "LSI is sparse too",
        );
    })
}

fn gsi_maintenance(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        c.put("a", "main", order("u1", "o1", Some("G"), Some("a")))
            .await;
        c.put("b", "main", order("u1", "o2", Some("G"), Some("b")))
            .await;
        let o = c
            .update(
                "move o1 after o2 in the index",
                update("main", key("u1", "o1"), set(&[("GSI1SK", s("z"))])),
            )
            .await;
        c.ok(&o, "update index sort key");
        let o = c
            .query(
                "index order follows the update",
                query("main", Some("GSI1"), "GSI1PK", s("G")),
            )
            .await;
        c.values(&o, "SK", &["o2", "o1"], "reordered");
        c.update(
            "move o2 to partition H",
            update("main", key("u1", "o2"), set(&[("GSI1PK", s("H"))])),
        )
        .await;
        let o = c
            .query(
                "G after the move",
                query("main", Some("GSI1"), "GSI1PK", s("G")),
            )
            .await;
        c.values(&o, "SK", &["o1"], "left G");
        let o = c
            .query(
                "H after the move",
                query("main", Some("GSI1"), "GSI1PK", s("H")),
            )
            .await;
        c.values(&o, "SK", &["o2"], "joined H");
        let remove = Update {
            remove: vec![Path::attr("GSI1PK")],
            ..Update::default()
        };
        c.update(
            "remove the index key",
            update("main", key("u1", "o1"), remove),
        )
        .await;
        let o = c
            .query(
                "G after removing the key",
                query("main", Some("GSI1"), "GSI1PK", s("G")),
            )
            .await;
        c.eq(o.counts(), (0, 0), "item left the index");
        c.put(
            "replace o2 without index keys",
            "main",
            order("u1", "o2", None, None),
        )
        .await;
        let o = c
            .query(
                "H after the replace",
                query("main", Some("GSI1"), "GSI1PK", s("H")),
            )
            .await;
        c.eq(o.counts(), (0, 0), "replaced item left the index");
        c.put(
            "o3 indexed",
            "main",
            order("u2", "o3", Some("H"), Some("x")),
        )
        .await;
        c.delete("delete o3", delete("main", key("u2", "o3"))).await;
        let o = c
            .query(
                "H after the delete",
                query("main", Some("GSI1"), "GSI1PK", s("H")),
            )
            .await;
        c.eq(o.counts(), (0, 0), "deleted item left the index");
    })
}

fn projections(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let item = item! {
            "PK" => s("u1"), "SK" => s("o1"), "GSI2PK" => s("K"), "LSK" => s("l1"),
            "inc" => s("included"), "other" => s("not projected"),
        };
        c.put("put", "main", item).await;
        let o = c
            .query(
                "KEYS_ONLY GSI",
                query("main", Some("GSI2"), "GSI2PK", s("K")),
            )
            .await;
        c.eq(
            o.items(),
            vec![item! {"PK" => s("u1"), "SK" => s("o1"), "GSI2PK" => s("K")}],
            "keys only",
        );
        let o = c
            .query("INCLUDE LSI", query("main", Some("LSI1"), "PK", s("u1")))
            .await;
        c.eq(
            o.items(),
            vec![
                item! {"PK" => s("u1"), "SK" => s("o1"), "LSK" => s("l1"), "inc" => s("included")},
            ],
            "keys and the included attribute",
        );
        let mut q = query("main", Some("GSI2"), "GSI2PK", s("K"));
        q.projection = Some(vec![Path::attr("SK")]);
        let o = c.query("projection on a GSI", q).await;
        c.eq(
            o.items(),
            vec![item! {"SK" => s("o1")}],
            "projected GSI read",
        );
    })
}

fn index_pagination(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        for (pk, sk) in [
            ("u1", "o1"),
            ("u2", "o1"),
            ("u1", "o2"),
            ("u3", "o1"),
            ("u2", "o2"),
        ] {
            c.put(
                "same index sort key",
                "main",
                order(pk, sk, Some("T"), Some("same")),
            )
            .await;
        }
        let mut q = query("main", Some("GSI1"), "GSI1PK", s("T"));
        q.limit = Some(2);
        // Entries with equal index sort keys come in an order DynamoDB does not specify: compare
        // the shape of the first page and the set of all pages.
        let o = c.query_shape("first index page", q.clone()).await;
        c.eq(
            o,
            Out::Shape {
                count: 2,
                scanned: 2,
                lek: Some(vec![
                    "GSI1PK".to_owned(),
                    "GSI1SK".to_owned(),
                    "PK".to_owned(),
                    "SK".to_owned(),
                ]),
            },
            "index LEK holds the index and table keys",
        );
        let o = c.query_all_unordered("every index page", q).await;
        let mut keys: Vec<String> = o
            .items()
            .iter()
            .map(|i| format!("{}/{}", text(&i["PK"]), text(&i["SK"])))
            .collect();
        keys.dedup();
        c.eq(keys.len(), 5, "all five items across pages, none twice");
        let r = scan("main").with_index(Some("GSI1")).with_limit(Some(2));
        let o = c.scan_all("scan the index in pages", r).await;
        c.eq(o.items().len(), 5, "index scan pages");
    })
}

fn lsi_fetch(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let item = item! {
            "PK" => s("u1"), "SK" => s("o1"), "LSK" => s("l1"),
            "inc" => s("included"), "other" => s("not projected"),
        };
        c.put("put", "main", item).await;
        let mut q = query("main", Some("LSI1"), "PK", s("u1"));
        q.projection = Some(vec![Path::attr("other"), Path::attr("inc")]);
        let o = c
            .query("an LSI fetches unprojected attributes from the table", q)
            .await;
        c.eq(
            o.items(),
            vec![item! {"other" => s("not projected"), "inc" => s("included")}],
            "LSI fetch",
        );
        let mut q = query("main", Some("LSI1"), "PK", s("u1"));
        q.filter = Some(Condition::eq("other", s("not projected")));
        let o = c
            .query("an LSI filter on an unprojected attribute", q)
            .await;
        c.eq(o.counts(), (1, 1), "filter sees the table's attributes");
        c.eq(
            o.items(),
            vec![
                item! {"PK" => s("u1"), "SK" => s("o1"), "LSK" => s("l1"), "inc" => s("included")},
            ],
            "without a projection, the index's attributes",
        );
    })
}

fn empty_index_keys(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let o = c
            .put(
                "empty GSI partition key",
                "main",
                item! {"PK" => s("u"), "SK" => s("3"), "GSI1PK" => s(""), "GSI1SK" => s("a")},
            )
            .await;
        c.invalid(&o, "empty GSI key");
        let o = c
            .put(
                "empty GSI partition key, no sort key",
                "main",
                item! {"PK" => s("u"), "SK" => s("4"), "GSI2PK" => s("")},
            )
            .await;
        c.invalid(&o, "empty GSI key");
        let o = c.scan("nothing written", scan("main")).await;
        c.eq(o.counts(), (0, 0), "nothing written");
    })
}

fn index_key_types(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let o = c
            .put(
                "GSI partition key as a number",
                "main",
                item! {"PK" => s("u"), "SK" => s("1"), "GSI1PK" => n(1), "GSI1SK" => s("a")},
            )
            .await;
        c.invalid(&o, "GSI key type");
        let o = c
            .put(
                "GSI sort key as a number, partition key absent",
                "main",
                item! {"PK" => s("u"), "SK" => s("2"), "GSI1SK" => n(1)},
            )
            .await;
        c.invalid(
            &o,
            "GSI sort key type is checked even when the item is not indexed",
        );
        let o = c
            .put(
                "LSI sort key as a number",
                "main",
                item! {"PK" => s("u"), "SK" => s("4"), "LSK" => n(1)},
            )
            .await;
        c.invalid(&o, "LSI key type");
        c.put(
            "valid",
            "main",
            item! {"PK" => s("u"), "SK" => s("5"), "GSI1PK" => s("G"), "GSI1SK" => s("a")},
        )
        .await;
        let o = c
            .update(
                "update an index key to the wrong type",
                update("main", key("u", "5"), set(&[("GSI1SK", n(5))])),
            )
            .await;
        c.invalid(&o, "update to a wrong index key type");
        let o = c
            .scan("only the valid item was written", scan("main"))
            .await;
        c.eq(o.counts(), (1, 1), "nothing else written");
        let o = c
            .get("the valid item is unchanged", "main", key("u", "5"))
            .await;
        c.eq(
            o.item().and_then(|i| i.get("GSI1SK").cloned()),
            Some(s("a")),
            "unchanged",
        );
    })
}

fn numeric_gsi(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        for (i, score) in ["10", "-3", "2.5", "100", "0"].iter().enumerate() {
            c.put("scored", "num", item! {"PK" => s(format!("p{i}")), "SK" => n(i), "G" => s("all"), "score" => n(score)}).await;
        }
        let o = c
            .query(
                "GSI in numeric order",
                query("num", Some("ByScore"), "G", s("all")),
            )
            .await;
        c.values(
            &o,
            "score",
            &["-3", "0", "2.5", "10", "100"],
            "numeric index order",
        );
        let mut q = query("num", Some("ByScore"), "G", s("all"));
        q.key_condition = q.key_condition.sort("score", SortCondition::Ge(n("2.50")));
        let o = c.query("score >= 2.50", q).await;
        c.values(&o, "score", &["2.5", "10", "100"], "numeric condition");
    })
}
