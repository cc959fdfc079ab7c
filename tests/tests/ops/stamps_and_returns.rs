//! Stamps as users mean them and transactions that hand back what they
//! wrote, on MemoryStore and every server (transactions: not on dynalite).
//!
//! - a new item's `created_at` equals its `updated_at` (one clock reading per write), through
//!   create, put, a transaction and a batch put;
//! - `replace()` and `put()` of an existing item with `created_at: None` keep the stored
//!   creation time, in one request (an UpdateItem with `if_not_exists`), remove the optional
//!   attributes the entity leaves out, keep version checks and ownership, in a transaction too;
//!   an index key made of the stamp alone keeps it, one made with other fields refuses the
//!   write with the fix; a batch put stamps anew (documented: a batch has no UpdateItem);
//! - a transaction that creates a comment and counts it on its issue returns the comment as
//!   written (its generated id), by a typed handle.

use std::sync::Arc;
use std::time::Duration;

use dyno_core::ops::{BatchWriter, Transaction, UpdateDsl};
use dyno_core::prelude::*;
use dyno_core::{AttributeValue, Entity, Error, Item, Store, Table};
use dyno_tests::backend::{backends, fresh_table, raw_put, supports_transactions, Backend};
use dyno_tests::fault::{FaultStore, Op};
use time::OffsetDateTime;
use ulid::Ulid;

#[derive(Debug, Table)]
#[dyno(name = "Tracker", pk = "PK", sk = "SK")]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
struct Tracker;

/// An issue, versioned; GSI1 lists a project's issues by creation time (a key made of the
/// stamp alone).
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Tracker, pk = "PROJECT#{project}", sk = "ISSUE#{number}")]
#[dyno(index(GSI1, pk = "PROJECT#{project}", sk = "CREATED#{created}"))]
struct Issue {
    project: String,
    number: u32,
    title: String,
    assignee: Option<String>,
    comments: u32,
    #[dyno(version)]
    version: u64,
    #[dyno(created_at)]
    created: Option<OffsetDateTime>,
    #[dyno(updated_at)]
    updated: Option<OffsetDateTime>,
}

/// A note, unversioned, in the same partition.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Tracker, pk = "PROJECT#{project}", sk = "NOTE#{n}")]
struct Note {
    project: String,
    n: u32,
    text: String,
    tag: Option<String>,
    #[dyno(created_at)]
    created: Option<OffsetDateTime>,
    #[dyno(updated_at)]
    updated: Option<OffsetDateTime>,
}

/// A member: GSI1's sort key combines the role with the join time.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Tracker, pk = "PROJECT#{project}", sk = "MEMBER#{user}")]
#[dyno(index(GSI1, pk = "USER#{user}", sk = "{role}#{since}"))]
struct Member {
    project: String,
    user: String,
    role: String,
    #[dyno(created_at)]
    since: Option<OffsetDateTime>,
}

/// A comment with a generated id, in the issue's partition.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Tracker, pk = "PROJECT#{project}", sk = "COMMENT#{number}#{id}")]
struct Comment {
    project: String,
    number: u32,
    #[dyno(generated)]
    id: Option<Ulid>,
    text: String,
    #[dyno(created_at)]
    created: Option<OffsetDateTime>,
    #[dyno(updated_at)]
    updated: Option<OffsetDateTime>,
}

async fn fresh(backend: &Backend, prefix: &str) -> Arc<dyn Store> {
    fresh_table(backend, Tracker::definition(), prefix).await
}

fn issue(number: u32, title: &str) -> Issue {
    Issue {
        project: "dyno".into(),
        number,
        title: title.into(),
        assignee: None,
        comments: 0,
        version: 0,
        created: None,
        updated: None,
    }
}

fn note(n: u32, text: &str, tag: Option<&str>) -> Note {
    Note {
        project: "dyno".into(),
        n,
        text: text.into(),
        tag: tag.map(Into::into),
        created: None,
        updated: None,
    }
}

fn comment(number: u32, text: &str) -> Comment {
    Comment {
        project: "dyno".into(),
        number,
        id: None,
        text: text.into(),
        created: None,
        updated: None,
    }
}

async fn get_issue(store: &dyn Store, n: u32) -> Issue {
    Issue::get(Issue::key("dyno", n))
        .send(store)
        .await
        .unwrap()
        .unwrap()
}

async fn get_note(store: &dyn Store, n: u32) -> Note {
    Note::get(Note::key("dyno", n))
        .send(store)
        .await
        .unwrap()
        .unwrap()
}

async fn raw_item(store: &dyn Store, pk: &str, sk: &str) -> Item {
    let key = Item::from([
        ("PK".to_owned(), AttributeValue::S(pk.into())),
        ("SK".to_owned(), AttributeValue::S(sk.into())),
    ]);
    let out = store
        .get_item(dyno_core::store::GetRequest::borrowed("Tracker", &key).consistent())
        .await
        .unwrap();
    Item::clone(&out.item.expect("stored"))
}

#[tokio::test]
async fn a_new_item_is_stamped_from_one_clock_reading() {
    for backend in backends().await {
        let who = backend.name;
        let store = fresh(&backend, "stamps-one-clock").await;
        let store = &*store;
        for n in 0..20 {
            let written = issue(n, "t").create().send_returning(store).await.unwrap();
            assert!(written.created.is_some(), "{who}");
            assert_eq!(written.created, written.updated, "{who}: create {n}");
            assert_eq!(get_issue(store, n).await, written, "{who}");
        }
        let put = note(1, "n", None)
            .put()
            .send_returning(store)
            .await
            .unwrap();
        assert_eq!(put.created, put.updated, "{who}: put of a new item");
        assert_eq!(get_note(store, 1).await.created, put.created, "{who}");
        let mut batch = BatchWriter::new();
        batch.put(&note(2, "batched", None)).unwrap();
        batch.send(store).await.unwrap();
        let batched = get_note(store, 2).await;
        assert_eq!(batched.created, batched.updated, "{who}: batch put");
        if supports_transactions(backend.kind) {
            let mut tx = Transaction::new();
            let h = tx.create_returning(&issue(100, "in a transaction"));
            let out = tx.send_returning(store).await.unwrap();
            let written = out.get(&h).unwrap();
            assert_eq!(written.created, written.updated, "{who}: transaction");
            assert_eq!(get_issue(store, 100).await, written, "{who}");
        }
    }
}

#[tokio::test]
async fn replace_and_put_keep_the_stored_creation_time_in_one_request() {
    for backend in backends().await {
        let who = backend.name;
        let inner = fresh(&backend, "stamps-kept").await;
        let counted = FaultStore::new(inner.clone());
        let store = &counted;
        let first = issue(1, "first")
            .create()
            .send_returning(store)
            .await
            .unwrap();
        let created = first.created.unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;

        // The content replaced by a value built from scratch, as a user replaces it: the
        // creation time is kept, the update time moves, the version is checked and bumped.
        let calls = counted.counts();
        let replaced = Issue {
            assignee: Some("ann".into()),
            version: first.version,
            ..issue(1, "replaced")
        }
        .replace()
        .send_returning(store)
        .await
        .unwrap();
        let after = counted.counts().since(&calls);
        assert_eq!(
            after.total(),
            1,
            "{who}: one request, no read before the write"
        );
        assert_eq!(after.get(Op::UpdateItem), 1, "{who}");
        let stored = get_issue(store, 1).await;
        assert_eq!(stored.created, Some(created), "{who}: creation time kept");
        assert!(stored.updated > Some(created), "{who}: update time moved");
        assert_eq!(
            (
                stored.title.as_str(),
                stored.assignee.as_deref(),
                stored.version
            ),
            ("replaced", Some("ann"), 2),
            "{who}"
        );
        // What send_returning hands back is the item as stored, its kept creation time included.
        assert_eq!(
            replaced, stored,
            "{who}: send_returning returns the stored item"
        );
        // The index key made of the stamp keeps it too: the issue is still found by it.
        let by_created = Issue::gsi1("dyno").all(store).await.unwrap();
        assert_eq!(by_created, vec![stored.clone()], "{who}");
        let at_creation = Issue::gsi1("dyno")
            .created()
            .between(created, created)
            .all(store)
            .await
            .unwrap();
        assert_eq!(
            at_creation,
            vec![stored.clone()],
            "{who}: GSI1SK holds the kept time"
        );

        // An optional attribute left out is removed, as a PutItem would.
        let cleared = Issue {
            assignee: None,
            version: stored.version,
            ..issue(1, "cleared")
        };
        cleared.put().send(store).await.unwrap();
        let stored = get_issue(store, 1).await;
        assert_eq!(
            (stored.assignee, stored.created),
            (None, Some(created)),
            "{who}"
        );
        assert!(
            !raw_item(store, "PROJECT#dyno", "ISSUE#0000000001")
                .await
                .contains_key("assignee"),
            "{who}: attribute removed"
        );

        // A stale version still fails, nothing written.
        let stale = Issue {
            version: 1,
            ..issue(1, "stale")
        };
        let e = stale.replace().send(store).await.unwrap_err();
        assert!(e.is_condition_failed(), "{who}: {e:?}");
        assert_eq!(get_issue(store, 1).await.title, "cleared", "{who}");
        // A replace of a missing item fails as before.
        let e = Issue {
            version: 1,
            ..issue(9, "x")
        }
        .replace()
        .send(store)
        .await
        .unwrap_err();
        assert!(e.is_condition_failed(), "{who}: {e:?}");

        // A creation time the code sets is written as given.
        let given = OffsetDateTime::from_unix_timestamp(1_600_000_000).unwrap();
        Issue {
            created: Some(given),
            version: 3,
            ..issue(1, "given")
        }
        .replace()
        .send(store)
        .await
        .unwrap();
        assert_eq!(get_issue(store, 1).await.created, Some(given), "{who}");

        // Unversioned upserts: put keeps it, on a new item it stamps both.
        let n1 = note(1, "one", Some("tag"))
            .put()
            .send_returning(store)
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        note(1, "two", None).put().send(store).await.unwrap();
        let n = get_note(store, 1).await;
        assert_eq!(
            (n.text.as_str(), n.tag, n.created),
            ("two", None, n1.created),
            "{who}"
        );
        assert!(n.updated > n1.updated, "{who}");

        // Ownership: another entity's item at the key is not overwritten.
        raw_put(
            store,
            "Tracker",
            Item::from([
                ("PK".to_owned(), AttributeValue::S("PROJECT#dyno".into())),
                ("SK".to_owned(), AttributeValue::S("NOTE#0000000005".into())),
                (
                    <Tracker as Table>::ENTITY_ATTRIBUTE.to_owned(),
                    AttributeValue::S("Other".into()),
                ),
            ]),
        )
        .await;
        let e = note(5, "mine", None).put().send(store).await.unwrap_err();
        assert!(e.is_wrong_entity(), "{who}: {e:?}");

        // A batch put has no UpdateItem: it stamps an unset creation time anew (documented).
        let mut batch = BatchWriter::new();
        batch.put(&note(1, "batched", None)).unwrap();
        batch.send(store).await.unwrap();
        let n = get_note(store, 1).await;
        assert_ne!(
            n.created, n1.created,
            "{who}: a batch put replaces the item whole"
        );

        if supports_transactions(backend.kind) {
            let before = get_note(store, 1).await;
            tokio::time::sleep(Duration::from_millis(20)).await;
            Transaction::new()
                .put(&note(1, "in a transaction", None))
                .replace(&Issue {
                    version: 4,
                    ..issue(1, "tx")
                })
                .send(store)
                .await
                .unwrap_or_else(|e| panic!("{who}: {e:?}"));
            let n = get_note(store, 1).await;
            assert_eq!(
                (n.text.as_str(), n.created),
                ("in a transaction", before.created),
                "{who}"
            );
            let i = get_issue(store, 1).await;
            assert_eq!(
                (i.title.as_str(), i.created, i.version),
                ("tx", Some(given), 5),
                "{who}"
            );
        }
    }
}

#[tokio::test]
async fn a_stamp_in_a_key_with_other_fields_is_kept_or_refused_with_the_fix() {
    for backend in backends().await {
        let who = backend.name;
        let store = fresh(&backend, "stamps-mixed-key").await;
        let store = &*store;
        let member = |role: &str| Member {
            project: "dyno".into(),
            user: "ann".into(),
            role: role.into(),
            since: None,
        };
        let first = member("dev").put().send_returning(store).await.unwrap();
        let e = member("lead").put().send(store).await.unwrap_err();
        let message = e.to_string();
        assert!(matches!(e, Error::Validation { .. }), "{who}: {e:?}");
        assert!(
            message.contains("nothing was written") && message.contains("`since`"),
            "{who}: {message}"
        );
        let stored = Member::get(Member::key("dyno", "ann"))
            .send(store)
            .await
            .unwrap();
        assert_eq!(stored, Some(first.clone()), "{who}: unchanged");
        // With the stored time given, the replace rebuilds the key.
        Member {
            since: first.since,
            ..member("lead")
        }
        .replace()
        .send(store)
        .await
        .unwrap();
        let found = Member::gsi1("ann").all(store).await.unwrap();
        assert_eq!(found.len(), 1, "{who}");
        assert_eq!(
            (found[0].role.as_str(), found[0].since),
            ("lead", first.since),
            "{who}"
        );
    }
}

#[tokio::test]
async fn a_transaction_hands_back_the_comment_it_created_and_counted() {
    for backend in backends().await {
        if !supports_transactions(backend.kind) {
            continue;
        }
        let who = backend.name;
        let store = fresh(&backend, "tx-returns").await;
        let store = &*store;
        let iss = issue(4, "counted")
            .create()
            .send_returning(store)
            .await
            .unwrap();
        let mut tx = Transaction::new();
        let c = tx.create_returning(&comment(4, "first!"));
        let n = tx.put_returning(&note(8, "side", None));
        let tx = tx.update(
            Issue::update(Issue::key("dyno", 4u32))
                .add_comments(1u32)
                .if_version(iss.version),
        );
        let out = tx.send_returning(store).await.unwrap();
        let written = out.get(&c).unwrap();
        let id = written.id.expect("the generated id comes back");
        let stored = Comment::get(Comment::key("dyno", 4u32, id))
            .send(store)
            .await
            .unwrap();
        assert_eq!(
            stored,
            Some(written),
            "{who}: the key the handle gives is the stored item's"
        );
        assert_eq!(
            Some(out.get(&n).unwrap()),
            Some(get_note(store, 8).await),
            "{who}"
        );
        assert_eq!(get_issue(store, 4).await.comments, 1, "{who}");
        // A handle of another transaction is refused, not misread.
        let mut other = Transaction::new();
        let foreign = other.create_returning(&comment(4, "other"));
        assert!(out.get(&foreign).is_err(), "{who}");
    }
}

#[tokio::test]
async fn a_transaction_hands_back_the_stored_creation_time_it_kept() {
    let old = OffsetDateTime::from_unix_timestamp(1_600_000_000).unwrap();
    for backend in backends().await {
        if !supports_transactions(backend.kind) {
            continue;
        }
        let who = backend.name;
        let inner = fresh(&backend, "tx-kept").await;
        let counted = FaultStore::new(inner.clone());
        let store = &counted;
        // Stored long ago: a note, and a versioned issue.
        Note {
            created: Some(old),
            ..note(8, "old text", Some("t"))
        }
        .put()
        .send(store)
        .await
        .unwrap();
        let iss = Issue {
            created: Some(old),
            ..issue(5, "old title")
        }
        .create()
        .send_returning(store)
        .await
        .unwrap();

        // Replaced with content built from scratch (`created: None`): the stored time is kept.
        let mut tx = Transaction::new();
        let n = tx.put_returning(&note(8, "new text", None));
        let i = tx.replace_returning(&Issue {
            version: iss.version,
            ..issue(5, "new title")
        });
        let fresh_note = tx.put_returning(&note(9, "brand new", None));
        let calls = counted.counts();
        let out = tx.send_returning(store).await.unwrap();
        let after = counted.counts().since(&calls);

        let note_back = out.get(&n).unwrap();
        assert_eq!(note_back.created, Some(old), "{who}: the stored time");
        assert_eq!(note_back, get_note(store, 8).await, "{who}");
        let issue_back = out.get(&i).unwrap();
        assert_eq!(issue_back.created, Some(old), "{who}: the stored time");
        assert_eq!(issue_back, get_issue(store, 5).await, "{who}");
        // A new item is stamped by the write: the read gives that stamp, which equals its
        // updated_at (one clock reading).
        let new = out.get(&fresh_note).unwrap();
        assert_eq!(new, get_note(store, 9).await, "{who}");
        assert_eq!(new.created, new.updated, "{who}");
        assert_eq!(after.get(Op::TransactWrite), 1, "{who}");
        assert_eq!(
            after.get(Op::GetItem),
            3,
            "{who}: one read of the stamp per handle that kept it"
        );
    }
}

#[tokio::test]
async fn an_oversized_transaction_of_puts_that_keep_the_stamp_is_refused_before_sending() {
    for backend in backends().await {
        if !supports_transactions(backend.kind) {
            continue;
        }
        let who = backend.name;
        let inner = fresh(&backend, "tx-size").await;
        let counted = FaultStore::new(inner.clone());
        let store = &counted;
        // 11 notes of 390 KB, each under the 400 KB item limit, together over the 4 MB of a
        // transaction. Left `created: None`, each put keeps a stored creation time: sent as an
        // UpdateItem, which writes the whole item all the same.
        let text = "x".repeat(390_000);
        let mut tx = Transaction::new();
        for n in 0..11 {
            tx = tx.put(&note(100 + n, &text, None));
        }
        let calls = counted.counts();
        let err = tx.send(store).await.unwrap_err();
        assert_eq!(
            counted.counts().since(&calls).total(),
            0,
            "{who}: nothing sent"
        );
        let message = err.to_string();
        assert!(matches!(err, Error::Validation { .. }), "{who}: {err:?}");
        assert!(
            message.contains("over DynamoDB's limit of 4194304")
                && message.contains("(Note, 390")
                && message.contains("nothing was sent"),
            "{who}: {message}"
        );
        assert!(
            Note::get(Note::key("dyno", 100u32))
                .send(store)
                .await
                .unwrap()
                .is_none(),
            "{who}"
        );
    }
}
