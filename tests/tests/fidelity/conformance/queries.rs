//! Query and Scan: sort order, key conditions, direction, Limit and pagination, the 1 MB page
//! rule, filters and counts, validation, segments.

use futures::future::BoxFuture;

use super::support::*;
use super::{BackendKind, HASH, MAIN, NUM};

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "strings sort bytewise",
            tables: &[MAIN],
            run: string_order,
            deviations: vec![],
        },
        Scenario {
            name: "sort key conditions",
            tables: &[MAIN],
            run: sort_conditions,
            deviations: vec![],
        },
        Scenario {
            name: "direction, Limit and pagination",
            tables: &[MAIN],
            run: pagination,
            deviations: vec![differs(BackendKind::Moto, "moto omits LastEvaluatedKey when Limit is reached on the last item")],
        },
        Scenario {
            name: "query validation",
            tables: &[MAIN, NUM, HASH],
            run: query_validation,
            deviations: vec![differs(BackendKind::Moto, "moto answers ResourceNotFound for an unknown index, accepts filters on key attributes and start keys outside the partition")],
        },
        Scenario {
            name: "filters apply after Limit; Select COUNT",
            tables: &[MAIN],
            run: filters,
            deviations: vec![],
        },
        Scenario {
            name: "the 1 MB page rule applies before the filter",
            tables: &[MAIN],
            run: one_megabyte,
            deviations: vec![
                differs(BackendKind::Moto, "moto stops a page before the item that would pass 1 MB; DynamoDB documents that the page ends once the items read exceed 1 MB"),
                differs(BackendKind::Dynoxide, "dynoxide counts the item that passes 1 MB in ScannedCount but leaves it out of the page and names the item before it as LastEvaluatedKey, so the next page reads it again (Scan's reference: without a filter Count equals ScannedCount, and the page ends once the items read exceed 1 MB)"),
            ],
        },
        Scenario {
            name: "scan returns every item; segments partition them",
            tables: &[HASH],
            run: scan_segments,
            deviations: vec![],
        },
        Scenario {
            name: "ExclusiveStartKey must hold the keys of the table (and index)",
            tables: &[MAIN],
            run: bad_start_keys,
            deviations: vec![
                differs(BackendKind::Moto, "moto fails with HTTP 500 on a start key without the expected keys"),
                words(BackendKind::Dynoxide, "dynoxide answers a GSI query's start key whose table key has the wrong type as a type mismatch of an index key (naming the table's key PK as a key of GSI1); MemoryStore says the starting key is invalid"),
            ],
        },
        Scenario {
            name: "scan pagination, filter and count",
            tables: &[MAIN],
            run: scan_pages,
            deviations: vec![differs(BackendKind::Moto, "moto omits LastEvaluatedKey when Limit is reached on the last item")],
        },
    ]
}

async fn fill(c: &mut Ctx, pk: &str, sks: &[&str]) {
    for chunk in sks.chunks(25) {
        let writes = chunk
            .iter()
            .map(|sk| {
                WriteRequest::put(
                    "main",
                    item! {"PK" => s(pk), "SK" => s(*sk), "n" => n(sk.len())},
                )
            })
            .collect();
        let o = c
            .batch_write("fill a partition", BatchWriteRequest::new(writes))
            .await;
        c.eq(o, Out::Unprocessed(0), "fill");
    }
}

fn sk(table: &str, pk: &str, cond: SortCondition) -> QueryRequest {
    let mut q = query(table, None, "PK", s(pk));
    q.key_condition = q.key_condition.sort("SK", cond);
    q
}

fn string_order(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        fill(
            c,
            "p",
            &[
                "a", "B", "Z", "aa", "é", "~", "A", "a b", "ab", "0", "10", "9",
            ],
        )
        .await;
        let o = c
            .query("ascending", query("main", None, "PK", s("p")))
            .await;
        c.values(
            &o,
            "SK",
            &[
                "0", "10", "9", "A", "B", "Z", "a", "a b", "aa", "ab", "~", "é",
            ],
            "bytewise order",
        );
        let mut q = query("main", None, "PK", s("p"));
        q.scan_forward = false;
        let o = c.query("descending", q).await;
        c.values(
            &o,
            "SK",
            &[
                "é", "~", "ab", "aa", "a b", "a", "Z", "B", "A", "9", "10", "0",
            ],
            "reverse order",
        );
        let o = c
            .query("an empty partition", query("main", None, "PK", s("nobody")))
            .await;
        c.eq(
            o,
            Out::Page {
                items: vec![],
                count: 0,
                scanned: 0,
                lek: None,
            },
            "empty partition",
        );
    })
}

fn sort_conditions(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        fill(c, "p", &["a1", "a2", "b1", "b2", "b3", "c"]).await;
        fill(c, "other", &["b1"]).await;
        let cases: [(&str, SortCondition, &[&str]); 8] = [
            ("= b1", SortCondition::Eq(s("b1")), &["b1"]),
            ("< b1", SortCondition::Lt(s("b1")), &["a1", "a2"]),
            ("<= b1", SortCondition::Le(s("b1")), &["a1", "a2", "b1"]),
            ("> b1", SortCondition::Gt(s("b1")), &["b2", "b3", "c"]),
            (
                ">= b1",
                SortCondition::Ge(s("b1")),
                &["b1", "b2", "b3", "c"],
            ),
            (
                "between a2 and b2",
                SortCondition::Between(s("a2"), s("b2")),
                &["a2", "b1", "b2"],
            ),
            (
                "begins_with b",
                SortCondition::BeginsWith(s("b")),
                &["b1", "b2", "b3"],
            ),
            ("= missing", SortCondition::Eq(s("zz")), &[]),
        ];
        for (what, cond, want) in cases {
            let o = c.query(what, sk("main", "p", cond)).await;
            c.values(&o, "SK", want, what);
        }
        let mut q = sk("main", "p", SortCondition::BeginsWith(s("b")));
        q.scan_forward = false;
        let o = c.query("begins_with b, descending", q).await;
        c.values(&o, "SK", &["b3", "b2", "b1"], "descending prefix");
    })
}

fn pagination(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        fill(c, "p", &["1", "2", "3", "4", "5", "6", "7"]).await;
        let mut q = query("main", None, "PK", s("p"));
        q.limit = Some(3);
        let first = c.query("first page of 3", q.clone()).await;
        c.values(&first, "SK", &["1", "2", "3"], "first page");
        c.eq(
            first.lek(),
            Some(key("p", "3")),
            "LastEvaluatedKey is the last key read",
        );
        q.exclusive_start_key = first.lek();
        let second = c.query("second page", q.clone()).await;
        c.values(&second, "SK", &["4", "5", "6"], "second page");
        let all = c
            .query_all("all pages of 3", {
                let mut q = q.clone();
                q.exclusive_start_key = None;
                q
            })
            .await;
        c.eq(
            all,
            Out::AllPages {
                items: (1..=7)
                    .map(|i| item! {"PK" => s("p"), "SK" => s(i.to_string()), "n" => n(1)})
                    .collect(),
                pages: 3,
            },
            "3 pages",
        );
        let mut exact = query("main", None, "PK", s("p"));
        exact.limit = Some(7);
        let o = c
            .query(
                "Limit equal to the item count still returns a LastEvaluatedKey",
                exact.clone(),
            )
            .await;
        c.eq(
            o.lek(),
            Some(key("p", "7")),
            "LEK when the limit is reached",
        );
        exact.exclusive_start_key = o.lek();
        let o = c
            .query("the page after the last item is empty", exact)
            .await;
        c.eq(
            o,
            Out::Page {
                items: vec![],
                count: 0,
                scanned: 0,
                lek: None,
            },
            "empty last page",
        );
        let mut back = query("main", None, "PK", s("p"));
        back.scan_forward = false;
        back.limit = Some(2);
        let o = c.query("descending page", back.clone()).await;
        c.values(&o, "SK", &["7", "6"], "descending first page");
        back.exclusive_start_key = o.lek();
        let o = c.query("descending next page", back).await;
        c.values(&o, "SK", &["5", "4"], "descending second page");
        let mut bounded = sk("main", "p", SortCondition::Between(s("2"), s("5")));
        bounded.limit = Some(2);
        let o = c.query_all("pages within a sort condition", bounded).await;
        c.values(&o, "SK", &["2", "3", "4", "5"], "bounded pages");
    })
}

fn query_validation(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        fill(c, "p", &["a"]).await;
        let wrong_pk = QueryRequest::new("main", None, KeyCondition::partition("SK", s("a")));
        let o = c
            .query("partition condition on the sort key", wrong_pk)
            .await;
        c.invalid(&o, "partition condition on a non-partition attribute");
        let mut wrong_sk = query("main", None, "PK", s("p"));
        wrong_sk.key_condition = wrong_sk
            .key_condition
            .sort("other", SortCondition::Eq(s("a")));
        let o = c
            .query("sort condition on a non-key attribute", wrong_sk)
            .await;
        c.invalid(&o, "sort condition on a non-key attribute");
        let o = c
            .query(
                "partition value of the wrong type",
                query("main", None, "PK", n(1)),
            )
            .await;
        c.invalid(&o, "type mismatch");
        let o = c
            .query(
                "sort value of the wrong type",
                sk("main", "p", SortCondition::Gt(n(1))),
            )
            .await;
        c.invalid(&o, "sort type mismatch");
        let mut q = query("num", None, "PK", s("p"));
        q.key_condition = q.key_condition.sort("SK", SortCondition::BeginsWith(n(1)));
        let o = c.query("begins_with on a number sort key", q).await;
        c.invalid(&o, "begins_with on N");
        let mut q = query("hash", None, "PK", s("p"));
        q.key_condition = q.key_condition.sort("SK", SortCondition::Eq(s("a")));
        let o = c
            .query("sort condition on a table without sort key", q)
            .await;
        c.invalid(&o, "no sort key");
        let o = c
            .query(
                "BETWEEN with bounds inverted",
                sk("main", "p", SortCondition::Between(s("b"), s("a"))),
            )
            .await;
        c.invalid(&o, "inverted between");
        let mut q = query("main", None, "PK", s("p"));
        q.filter = Some(Condition::eq("SK", s("a")));
        let o = c.query("filter on the sort key", q).await;
        c.invalid(&o, "filter on key");
        let mut q = query("main", None, "PK", s("p"));
        q.limit = Some(0);
        let o = c.query("Limit 0", q).await;
        c.invalid(&o, "limit 0");
        let o = c
            .query(
                "unknown index",
                query("main", Some("NoSuchIndex"), "PK", s("p")),
            )
            .await;
        c.invalid(&o, "unknown index");
        let mut q = query("main", Some("GSI1"), "GSI1PK", s("g"));
        q.consistent_read = true;
        let o = c.query("consistent read on a GSI", q).await;
        c.invalid(&o, "consistent GSI read");
        let mut q = query("main", None, "PK", s("p"));
        q.exclusive_start_key = Some(key("elsewhere", "a"));
        let o = c.query("ExclusiveStartKey in another partition", q).await;
        c.invalid(&o, "start key outside the partition");
        let mut q = query("main", None, "PK", s("p"));
        q.exclusive_start_key = Some(item! {"PK" => s("p")});
        let o = c.query("ExclusiveStartKey without the sort key", q).await;
        c.invalid(&o, "incomplete start key");
        let o = c
            .query(
                "query on a missing table",
                query("no-such-table", None, "PK", s("p")),
            )
            .await;
        c.fails(&o, Failure::NotFound, "missing table");
    })
}

fn filters(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let writes = (1..=6)
            .map(|i| WriteRequest::put("main", item! {"PK" => s("p"), "SK" => s(format!("{i}")), "kind" => s(if i % 2 == 0 { "even" } else { "odd" })}))
            .collect();
        c.batch_write("fill", BatchWriteRequest::new(writes)).await;
        let mut q = query("main", None, "PK", s("p"));
        q.filter = Some(Condition::eq("kind", s("even")));
        let o = c.query("filter", q.clone()).await;
        c.values(&o, "SK", &["2", "4", "6"], "filtered");
        c.eq(
            o.counts(),
            (3, 6),
            "Count after, ScannedCount before the filter",
        );
        q.limit = Some(3);
        let o = c.query("filter with Limit 3", q.clone()).await;
        c.values(&o, "SK", &["2"], "limit counts items read, not matched");
        c.eq(o.counts(), (1, 3), "counts with limit");
        c.eq(o.lek(), Some(key("p", "3")), "LEK after 3 items read");
        q.limit = None;
        q.count_only = true;
        let o = c.query("Select COUNT", q.clone()).await;
        c.eq(
            o,
            Out::Page {
                items: vec![],
                count: 3,
                scanned: 6,
                lek: None,
            },
            "count only",
        );
        q.count_only = false;
        q.projection = Some(vec![Path::attr("SK")]);
        let o = c.query("filter with projection", q).await;
        c.eq(
            o.items(),
            vec![
                item! {"SK" => s("2")},
                item! {"SK" => s("4")},
                item! {"SK" => s("6")},
            ],
            "projected",
        );
    })
}

fn one_megabyte(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        for i in 0..5 {
            let o = c
                .put(
                    "put a 300 KB item",
                    "main",
                    item! {"PK" => s("p"), "SK" => s(format!("{i}")), "data" => s(big(300 * 1024))},
                )
                .await;
            c.ok(&o, "300 KB item");
        }
        let mut q = query("main", None, "PK", s("p"));
        q.filter = Some(Condition::eq("data", s("no match")));
        let o = c
            .query("a filtered page stops at 1 MB read", q.clone())
            .await;
        let (count, scanned) = o.counts();
        c.eq(count, 0, "nothing matches");
        c.check(
            scanned > 0 && scanned < 5,
            format!("a page stops once it has read 1 MB, read {scanned} of 5 items of 300 KB"),
        );
        c.check(
            o.lek().is_some(),
            "a LastEvaluatedKey follows a page cut by size",
        );
        let o = c.query_all("all pages, filtered", q).await;
        c.check(
            matches!(o, Out::AllPages { ref items, pages } if items.is_empty() && pages >= 2),
            format!("several empty pages, got {o}"),
        );
        let o = c
            .query_all("all pages, unfiltered", query("main", None, "PK", s("p")))
            .await;
        c.eq(o.items().len(), 5, "every item across pages");
    })
}

fn scan_segments(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let writes = (0..20)
            .map(|i| WriteRequest::put("hash", item! {"PK" => s(format!("user{i}")), "email" => s(format!("u{}@x", i % 7)), "name" => s(format!("n{i}")), "age" => n(i)}))
            .collect();
        c.batch_write("fill", BatchWriteRequest::new(writes)).await;
        let all = c.scan("scan everything", scan("hash")).await;
        c.eq(all.counts(), (20, 20), "all items");
        let mut union = Vec::new();
        for segment in 0..3 {
            let mut r = scan("hash");
            r.segment = Some((segment, 3));
            // Which items land in which segment is the backend's hashing: not compared.
            let store = std::sync::Arc::clone(c.store());
            r.table = c.t("hash");
            match store.scan(r).await {
                Ok(p) => union.extend(p.items.iter().map(|i| show(i))),
                Err(e) => c.check(false, format!("segment {segment}: {e}")),
            }
        }
        union.sort();
        let mut want: Vec<String> = all.items().iter().map(show).collect();
        want.sort();
        c.eq(
            union,
            want,
            "segments together hold every item exactly once",
        );
        let mut r = scan("hash");
        r.segment = Some((3, 3));
        let o = c.scan("Segment not below TotalSegments", r).await;
        c.invalid(&o, "segment 3 of 3");
        let mut r = scan("hash");
        r.segment = Some((0, 0));
        let o = c.scan("TotalSegments 0", r).await;
        c.invalid(&o, "0 segments");
        let o = c
            .scan("scan a GSI", scan("hash").with_index(Some("ByEmail")))
            .await;
        c.eq(o.counts(), (20, 20), "every item is in the GSI");
        c.check(
            o.items().iter().all(|i| i.len() == 3),
            "INCLUDE projection: PK, email, name",
        );
        let o = c.scan("scan a missing table", scan("no-such-table")).await;
        c.fails(&o, Failure::NotFound, "missing table");
    })
}

fn scan_pages(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        for p in ["a", "b", "c"] {
            fill(c, p, &["1", "2", "3", "4"]).await;
        }
        let mut r = scan("main");
        r.limit = Some(5);
        let o = c.scan_all("scan in pages of 5", r.clone()).await;
        c.eq(o.items().len(), 12, "all items");
        c.check(
            matches!(o, Out::AllPages { pages: 3, .. }),
            format!("3 pages of 5, got {o}"),
        );
        r.limit = Some(4);
        let o = c
            .scan_all(
                "pages of 4: the last full page has a LastEvaluatedKey",
                r.clone(),
            )
            .await;
        c.check(
            matches!(o, Out::AllPages { pages: 4, .. }),
            format!("4 pages, the last empty, got {o}"),
        );
        r.limit = None;
        r.filter = Some(cmp("SK", Comparator::Ge, s("3")));
        let o = c
            .scan("scan with a filter on a key attribute", r.clone())
            .await;
        c.eq(o.counts(), (6, 12), "scan filters may use keys");
        r.count_only = true;
        let o = c.scan("scan, Select COUNT", r).await;
        c.eq(
            o,
            Out::ScanPage {
                items: vec![],
                count: 6,
                scanned: 12,
                more: false,
            },
            "count only",
        );
    })
}

fn bad_start_keys(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        fill(c, "a", &["1", "2"]).await;
        let mut r = scan("main");
        r.exclusive_start_key = Some(item! {"PK" => s("a")});
        let o = c.scan("incomplete ExclusiveStartKey", r).await;
        c.invalid(&o, "incomplete start key");
        let mut r = scan("main").with_index(Some("GSI1"));
        r.exclusive_start_key = Some(key("a", "1"));
        let o = c.scan("index scan with a table key as start key", r).await;
        c.invalid(&o, "an index start key needs the index keys");
        let mut r = scan("main");
        r.exclusive_start_key = Some(item! {"PK" => n(1), "SK" => s("1")});
        let o = c.scan("start key of the wrong type", r).await;
        c.invalid(&o, "start key type");
    })
}
