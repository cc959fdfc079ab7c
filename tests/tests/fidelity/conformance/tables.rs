//! Table administration: create, describe, delete, TTL settings.

use futures::future::BoxFuture;

use super::support::*;
use super::{main_table, BackendKind, MAIN, TTL};

const TTL_SETTINGS: &[Deviation] = &[
    differs(BackendKind::Dynalite, "dynalite does not implement UpdateTimeToLive or DescribeTimeToLive"),
    differs(BackendKind::Moto, "moto enables TTL twice without error and answers code ResourceNotFound (not ResourceNotFoundException) for a missing table"),
    differs(BackendKind::Dynoxide, "dynoxide enables TTL twice without error; DynamoDB's UpdateTimeToLive reference says the call is not idempotent and answers ValidationException when TTL is already enabled"),
];

const NO_TTL: &[Deviation] = &[differs(
    BackendKind::Dynalite,
    "dynalite does not implement UpdateTimeToLive or DescribeTimeToLive",
)];

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "create, describe and delete tables",
            tables: &[MAIN],
            run: lifecycle,
            deviations: vec![],
        },
        Scenario {
            name: "invalid table definitions are rejected",
            tables: &[],
            run: invalid_definitions,
            deviations: vec![differs(
                BackendKind::Moto,
                "moto creates tables with invalid index definitions",
            )],
        },
        Scenario {
            name: "TTL can be enabled and disabled",
            tables: &[MAIN],
            run: ttl_settings,
            deviations: TTL_SETTINGS.to_vec(),
        },
        Scenario {
            name: "a table created with TTL describes it",
            tables: &[TTL],
            run: ttl_at_creation,
            deviations: NO_TTL.to_vec(),
        },
    ]
}

fn lifecycle(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let o = c.describe("describe", "main").await;
        c.eq(
            o,
            Out::Table {
                keys: vec!["PK".into(), "SK".into()],
                indexes: vec!["GSI1".into(), "GSI2".into(), "LSI1".into()],
                ttl: None,
            },
            "description",
        );
        let real = c.t("main");
        let o = c
            .create_table("create an existing table", main_table().named(real))
            .await;
        c.fails(&o, Failure::InUse, "table exists");
        let o = c
            .describe("describe a missing table", "no-such-table")
            .await;
        c.fails(&o, Failure::NotFound, "missing table");
        let o = c
            .delete_table("delete a missing table", "no-such-table")
            .await;
        c.fails(&o, Failure::NotFound, "missing table");
        c.put("an item", "main", key("p", "s")).await;
        let o = c.delete_table("delete the table", "main").await;
        c.eq(o, Out::Done, "deleted");
        let o = c
            .get("get from the deleted table", "main", key("p", "s"))
            .await;
        c.fails(&o, Failure::NotFound, "deleted table");
        let o = c.describe("describe the deleted table", "main").await;
        c.fails(&o, Failure::NotFound, "deleted table");
    })
}

fn invalid_definitions(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let name = |_: &Ctx, n: &str| dyno_tests::backend::unique_table_name(n);
        let lsi_without_sort = TableDef::new(name(c, "bad-lsi"), "PK", None)
            .local_index(IndexDef::new("LSI", "PK", Some("X")));
        let o = c
            .create_table("an LSI on a table without sort key", lsi_without_sort)
            .await;
        c.invalid(&o, "LSI needs a table sort key");
        let lsi_other_pk = TableDef::new(name(c, "bad-lsi-pk"), "PK", Some("SK"))
            .local_index(IndexDef::new("LSI", "OTHER", Some("X")));
        let o = c
            .create_table("an LSI with another partition key", lsi_other_pk)
            .await;
        c.invalid(&o, "LSI partition key");
        let dup = TableDef::new(name(c, "bad-dup"), "PK", Some("SK"))
            .global_index(IndexDef::new("IDX", "A", None))
            .global_index(IndexDef::new("IDX", "B", None));
        let o = c.create_table("two indexes with one name", dup).await;
        c.invalid(&o, "duplicate index name");
        let o = c
            .create_table(
                "a table name with a character DynamoDB does not allow",
                TableDef::new(format!("{}#", name(c, "bad-name")), "PK", None),
            )
            .await;
        c.invalid(&o, "invalid name");
    })
}

fn ttl_settings(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let o = c.update_ttl("enable TTL", "main", "expires", true).await;
        c.eq(o, Out::Done, "enabled");
        let o = c.describe("describe with TTL", "main").await;
        c.check(
            matches!(&o, Out::Table { ttl: Some(t), .. } if t == "expires"),
            format!("TTL attribute described, got {o}"),
        );
        let o = c
            .update_ttl("enable TTL again", "main", "expires", true)
            .await;
        c.invalid(&o, "TTL already enabled");
        let o = c.update_ttl("disable TTL", "main", "expires", false).await;
        c.eq(o, Out::Done, "disabled");
        let o = c.describe("describe without TTL", "main").await;
        c.check(
            matches!(&o, Out::Table { ttl: None, .. }),
            format!("no TTL attribute, got {o}"),
        );
        let o = c
            .update_ttl("TTL on a missing table", "no-such-table", "expires", true)
            .await;
        c.fails(&o, Failure::NotFound, "missing table");
    })
}

fn ttl_at_creation(c: &mut Ctx) -> BoxFuture<'_, ()> {
    Box::pin(async move {
        let o = c.describe("describe", "ttl").await;
        c.check(
            matches!(&o, Out::Table { ttl: Some(t), .. } if t == "expires"),
            format!("TTL attribute described, got {o}"),
        );
        // DynamoDB keeps expired items readable until its background deletion; MemoryStore hides
        // them at once (tested on MemoryStore alone with an injected clock). An item with a
        // future expiry reads back everywhere.
        let o = c
            .put(
                "an item expiring in 2100",
                "ttl",
                item! {"PK" => s("p"), "SK" => s("s"), "expires" => n(4_102_444_800u64)},
            )
            .await;
        c.ok(&o, "put");
        let o = c.get("it reads back", "ttl", key("p", "s")).await;
        c.check(o.item().is_some(), "not expired");
    })
}
