//! Defaults and write-time values (issue #12 item 4), on every backend, in a project tracker
//! whose issues and members share a partition (`PROJECT#{project}`) and GSI1: attributes
//! missing on read filled by `#[dyno(default)]` / `#[dyno(default = path)]`, `created_at` /
//! `updated_at` stamps written as `None` in struct literals and used in index keys (a query by
//! them finds the item), and `keep_updated_at()` on typed updates, transactions included.

use std::sync::Arc;

use dyno_core::ops::Transaction;
use dyno_core::prelude::*;
use dyno_core::{AttributeValue, Entity, Item, Store, Table};
use dyno_tests::backend::{backends, fresh_table, raw_put, supports_transactions, Backend};
use time::OffsetDateTime;

#[derive(Debug, Table)]
#[dyno(name = "Tracker", pk = "PK", sk = "SK")]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
struct Tracker;

fn default_priority() -> u8 {
    3
}

fn default_role() -> String {
    "viewer".to_owned()
}

/// An issue; GSI1 lists a project's issues by when they last changed.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Tracker, pk = "PROJECT#{project}", sk = "ISSUE#{number}")]
#[dyno(index(GSI1, pk = "PROJECT#{project}", sk = "UPDATED#{updated}"))]
struct Issue {
    project: String,
    number: u32,
    title: String,
    #[dyno(default = default_priority)]
    priority: u8,
    #[dyno(default)]
    labels: Vec<String>,
    #[dyno(created_at)]
    created: Option<OffsetDateTime>,
    #[dyno(updated_at)]
    updated: Option<OffsetDateTime>,
}

/// A member of a project, in its partition; GSI1 lists a user's projects by when they joined.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Tracker, pk = "PROJECT#{project}", sk = "MEMBER#{user}")]
#[dyno(index(GSI1, pk = "USER#{user}", sk = "SINCE#{since}"))]
struct Member {
    project: String,
    user: String,
    #[dyno(default = default_role)]
    role: String,
    #[dyno(created_at)]
    since: Option<OffsetDateTime>,
}

async fn fresh(backend: &Backend, prefix: &str) -> Arc<dyn Store> {
    fresh_table(backend, Tracker::definition(), prefix).await
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn issue(number: u32, title: &str) -> Issue {
    Issue {
        project: "dyno".into(),
        number,
        title: title.into(),
        priority: 1,
        labels: vec!["bug".into()],
        created: None,
        updated: None,
    }
}

/// Attributes missing on read take the field's default: `Default::default()` for
/// `#[dyno(default)]`, the function's value for `#[dyno(default = path)]`; present attributes
/// are read as they are.
#[tokio::test]
async fn missing_attributes_take_their_defaults() {
    for backend in backends().await {
        let who = backend.name;
        let store = fresh(&backend, "defaults").await;
        let store = &*store;
        raw_put(
            store,
            "Tracker",
            Item::from([
                ("PK".to_owned(), s("PROJECT#dyno")),
                ("SK".to_owned(), s("ISSUE#0000000007")),
                ("title".to_owned(), s("old")),
            ]),
        )
        .await;
        raw_put(
            store,
            "Tracker",
            Item::from([
                ("PK".to_owned(), s("PROJECT#dyno")),
                ("SK".to_owned(), s("MEMBER#ann")),
            ]),
        )
        .await;
        let old = Issue::get(Issue::key("dyno", 7u32))
            .send(store)
            .await
            .unwrap_or_else(|e| panic!("{who}: {e}"))
            .unwrap();
        assert_eq!(
            (old.priority, old.labels.len(), old.created, old.updated),
            (3, 0, None, None),
            "{who}"
        );
        let ann = Member::get(Member::key("dyno", "ann"))
            .send(store)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(ann.role, "viewer", "{who}");
        // Present attributes win over the defaults.
        let mut admin = ann.clone();
        admin.user = "bo".into();
        admin.role = "admin".into();
        admin.create().send(store).await.unwrap();
        let bo = Member::get(Member::key("dyno", "bo"))
            .send(store)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(bo.role, "admin", "{who}");
        issue(8, "new").create().send(store).await.unwrap();
        let new = Issue::get(Issue::key("dyno", 8u32))
            .send(store)
            .await
            .unwrap()
            .unwrap();
        assert_eq!((new.priority, new.labels.len()), (1, 1), "{who}");
    }
}

/// `created_at` / `updated_at` written as `None` in the struct literal are stamped by the write,
/// one value for the attribute and the index key made from it: a query of GSI1 by the stamp
/// finds the item, in the range of times around the write.
#[tokio::test]
async fn stamps_need_no_placeholder_and_index_keys_carry_them() {
    for backend in backends().await {
        let who = backend.name;
        let store = fresh(&backend, "stamps").await;
        let store = &*store;
        let before = OffsetDateTime::now_utc();
        issue(1, "first").create().send(store).await.unwrap();
        Member {
            project: "dyno".into(),
            user: "ann".into(),
            role: "owner".into(),
            since: None,
        }
        .create()
        .send(store)
        .await
        .unwrap();
        let after = OffsetDateTime::now_utc();
        let stored = Issue::get(Issue::key("dyno", 1u32))
            .send(store)
            .await
            .unwrap()
            .unwrap();
        let (created, updated) = (stored.created.unwrap(), stored.updated.unwrap());
        assert!(before <= created && created <= after, "{who}");
        // Each stamp is decided once for the write (the fields read their own clocks).
        assert!(created <= updated && updated <= after, "{who}");
        let recent = Issue::gsi1("dyno")
            .updated()
            .between(before, after)
            .all(store)
            .await
            .unwrap();
        assert_eq!(recent, vec![stored.clone()], "{who}");
        let joined = Member::gsi1("ann")
            .since()
            .ge(before)
            .all(store)
            .await
            .unwrap();
        assert_eq!(joined.len(), 1, "{who}");
        assert!(joined[0].since.is_some_and(|t| t <= after), "{who}");
    }
}

/// Every typed update bumps `updated_at` and rewrites the index key made from it, unless the
/// update says `keep_updated_at()`: then neither moves (the issue keeps its place in GSI1),
/// in plain updates and in transactions.
#[tokio::test]
async fn keep_updated_at_leaves_the_stamp_and_its_index_key() {
    for backend in backends().await {
        let who = backend.name;
        let store = fresh(&backend, "keep-updated").await;
        let store = &*store;
        issue(1, "first").create().send(store).await.unwrap();
        let first = Issue::get(Issue::key("dyno", 1u32))
            .send(store)
            .await
            .unwrap()
            .unwrap();
        let stamp = first.updated.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;

        let kept = Issue::update(Issue::key("dyno", 1u32))
            .set_title("starred".to_owned())
            .keep_updated_at()
            .send(store)
            .await
            .unwrap();
        assert_eq!((kept.title.as_str(), kept.updated), ("starred", Some(stamp)), "{who}");
        let by_stamp = Issue::gsi1("dyno").updated().eq(stamp).all(store).await.unwrap();
        assert_eq!(by_stamp, vec![kept.clone()], "{who}: still at its place in GSI1");

        if supports_transactions(backend.kind) {
            Transaction::new()
                .update(
                    Issue::update(Issue::key("dyno", 1u32))
                        .add_priority(1u8)
                        .keep_updated_at(),
                )
                .send(store)
                .await
                .unwrap();
            let read = Issue::get(Issue::key("dyno", 1u32))
                .send(store)
                .await
                .unwrap()
                .unwrap();
            assert_eq!((read.priority, read.updated), (2, Some(stamp)), "{who}");
        }

        let bumped = Issue::update(Issue::key("dyno", 1u32))
            .set_title("edited".to_owned())
            .send(store)
            .await
            .unwrap();
        let new_stamp = bumped.updated.unwrap();
        assert!(new_stamp > stamp, "{who}: bumped");
        assert!(
            Issue::gsi1("dyno").updated().eq(stamp).all(store).await.unwrap().is_empty(),
            "{who}: the old index key is gone"
        );
        assert_eq!(
            Issue::gsi1("dyno").updated().eq(new_stamp).all(store).await.unwrap(),
            vec![bumped],
            "{who}"
        );
    }
}
