//! Updates of index keys made of several fields, and of keys holding a created-at stamp, on
//! MemoryStore and every server.
//! The model is the code forge of `forge.rs`.
//!
//! - a stamp is read-only after the write that set it: no setter takes `created_at`, and the
//!   setters of a key holding it take it as a value given to rebuild the key (a condition, never
//!   a write);
//! - changing one field of a multi-field key writes only that field: the others are given, sent
//!   as conditions, so an update built from a stale read fails with `StaleKeyField` naming the
//!   field that changed, and writes nothing;
//! - a race of tasks changing different fields of one key group on a few hot items, each retrying
//!   from a fresh read on a condition failure, loses no write (on the backends whose conditional
//!   writes are atomic: moto's are not).

use std::collections::BTreeSet;
use std::sync::Arc;

use dyno_core::expr::{Condition, Operand, Path, SetValue, UpdateOperand};
use dyno_core::ops::{EntityExt, Transaction};
use dyno_core::prelude::*;
use dyno_core::{AttributeValue, Entity, Error, Table};
use dyno_tests::backend::{
    atomic_conditional_writes, backends, fresh_table, supports_transactions,
};
use time::OffsetDateTime;

use crate::forge::{forge, key, raw, read, Forge, PrStatus, PullRequest, Repo, Tally};

/// Every index key of the stored item is the one a put of the decoded item would write.
async fn assert_keys_consistent(store: &dyn Store, number: u32, name: &str) {
    let item = read(store, number).await;
    let stored = raw(store, key(number).into_item()).await;
    let full = item.to_item().unwrap();
    for attr in ["GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK"] {
        assert_eq!(stored.get(attr), full.get(attr), "{name}: {attr}");
    }
}

#[tokio::test]
async fn a_key_holding_the_stamp_is_rewritten_without_rewriting_the_stamp() {
    for backend in backends().await {
        let name = backend.name;
        let store = forge(&backend).await;
        let before = read(&*store, 1).await;
        let created = before.created_at.expect("stamped by create");
        let after = PullRequest::update(key(1))
            .set_status_given(PrStatus::Closed, &before.username, created)
            .send(&*store)
            .await
            .unwrap();
        assert_eq!(after.status, PrStatus::Closed, "{name}");
        assert_eq!(after.created_at, Some(created), "{name}: the stamp is kept");
        assert_keys_consistent(&*store, 1, name).await;
        // The item moved in both indexes, and left no stale key behind.
        let closed = PullRequest::gsi1("dyno").status().eq(PrStatus::Closed);
        assert_eq!(
            closed.all(&*store).await.unwrap(),
            vec![after.clone()],
            "{name}"
        );
        let open = PullRequest::gsi1("dyno").status().eq(PrStatus::Open);
        assert_eq!(open.count(&*store).await.unwrap(), 2, "{name}");
        let anns = PullRequest::gsi2("dyno").username().eq("ann").all(&*store);
        assert_eq!(anns.await.unwrap().len(), 2, "{name}");

        // Another stamp given (a typo, a value from another item) is refused, nothing written.
        let other = created + time::Duration::seconds(5);
        let err = PullRequest::update(key(1))
            .set_status_given(PrStatus::Merged, &before.username, other)
            .send(&*store)
            .await
            .unwrap_err();
        assert!(
            matches!(&err, Error::StaleKeyField { field: "created_at", key, .. } if key.contains("GSI1SK")),
            "{name}: {err:?}"
        );
        assert!(err.is_condition_failed(), "{name}");
        assert_eq!(read(&*store, 1).await, after, "{name}: nothing written");
    }
}

#[test]
fn no_update_writes_a_stamp_other_than_where_absent() {
    // The stamp a setter is given is a condition and, for an item an upsert creates, a write
    // where absent; never a plain SET.
    let created = OffsetDateTime::from_unix_timestamp(1_700_000_000).unwrap();
    let builders = [
        PullRequest::update(key(1)).set_status_given(PrStatus::Closed, "ann", created),
        PullRequest::update(key(1)).set_username_given("bob", PrStatus::Open, created),
        PullRequest::update(key(1)).set_username_and_status_given("bob", PrStatus::Open, created),
        PullRequest::update(key(1)).set_title("t"),
        PullRequest::update(key(1))
            .set_status_given(PrStatus::Closed, "ann", created)
            .set_title("t")
            .upsert(),
    ];
    for update in builders {
        let request = update.into_update().unwrap().into_request().unwrap();
        let stamp = request
            .update
            .set
            .iter()
            .find(|(p, _)| *p == Path::attr("created_at"))
            .map(|(_, v)| v.clone());
        assert!(
            matches!(
                stamp,
                Some(SetValue::Operand(UpdateOperand::IfNotExists(..)))
            ),
            "{stamp:?}"
        );
        assert!(!request.update.remove.contains(&Path::attr("created_at")));
    }
}

#[test]
fn changing_one_field_of_a_key_writes_only_that_field() {
    let created = OffsetDateTime::from_unix_timestamp(1_700_000_000).unwrap();
    let request = PullRequest::update(key(1))
        .set_status_given(PrStatus::Closed, "ann", created)
        .into_update()
        .unwrap()
        .into_request()
        .unwrap();
    let written: BTreeSet<String> = request
        .update
        .set
        .iter()
        .filter(|(_, v)| matches!(v, SetValue::Operand(UpdateOperand::Value(_))))
        .map(|(p, _)| p.to_string())
        .collect();
    assert!(written.contains("status"), "{written:?}");
    assert!(
        written.contains("GSI1SK") && written.contains("GSI2SK"),
        "{written:?}"
    );
    assert!(!written.contains("username"), "{written:?}");
    // The given username and stamp are conditions of the write.
    let condition = format!("{:?}", request.condition.unwrap());
    let eq = |attr: &str, v: AttributeValue| {
        format!(
            "{:?}",
            Condition::Compare(
                Operand::Path(Path::attr(attr)),
                dyno_core::expr::Comparator::Eq,
                Operand::Value(v)
            )
        )
    };
    assert!(
        condition.contains(&eq("username", AttributeValue::S("ann".into()))),
        "{condition}"
    );
    assert!(condition.contains("created_at"), "{condition}");
}

#[tokio::test]
async fn a_stale_read_cannot_revert_a_concurrent_change() {
    for backend in backends().await {
        let name = backend.name;
        let store = forge(&backend).await;
        // Two requests read the pull request; one renames its author (a transferred account)...
        let stale = read(&*store, 2).await;
        let created = stale.created_at.unwrap();
        PullRequest::update(key(2))
            .set_username_given("carol", stale.status, created)
            .send(&*store)
            .await
            .unwrap();
        // ...the other closes it from its stale read: the old author is given, not written.
        let err = PullRequest::update(key(2))
            .set_status_given(PrStatus::Closed, &stale.username, created)
            .send(&*store)
            .await
            .unwrap_err();
        let Error::StaleKeyField {
            field,
            key: rebuilt,
            ..
        } = &err
        else {
            panic!("{name}: {err:?}");
        };
        assert_eq!(*field, "username", "{name}");
        assert!(rebuilt.contains("GSI2SK"), "{name}: {rebuilt}");
        let message = err.to_string();
        assert!(
            message.contains("`username` is not the value given to rebuild")
                && message.contains("nothing was written"),
            "{name}: {message}"
        );
        let now = read(&*store, 2).await;
        assert_eq!(
            (now.username.as_str(), now.status),
            ("carol", PrStatus::Open),
            "{name}: the rename stands and nothing else was written"
        );
        // Retried from a fresh read, the close applies and keeps the rename.
        let done = PullRequest::update(key(2))
            .set_status_given(PrStatus::Closed, &now.username, created)
            .send(&*store)
            .await
            .unwrap();
        assert_eq!(
            (done.username.as_str(), done.status),
            ("carol", PrStatus::Closed)
        );
        assert_keys_consistent(&*store, 2, name).await;
        let carols = PullRequest::gsi2("dyno")
            .username()
            .eq("carol")
            .all(&*store);
        assert_eq!(carols.await.unwrap(), vec![done], "{name}");
        assert_eq!(
            PullRequest::gsi2("dyno")
                .username()
                .eq("bob")
                .count(&*store)
                .await
                .unwrap(),
            0,
            "{name}: no stale key left"
        );
    }
}

#[tokio::test]
async fn a_stale_given_value_cancels_a_transaction_and_says_which_field() {
    for backend in backends().await {
        if !supports_transactions(backend.kind) {
            continue;
        }
        let name = backend.name;
        let store = forge(&backend).await;
        let stale = read(&*store, 3).await;
        let created = stale.created_at.unwrap();
        PullRequest::update(key(3))
            .set_status_given(PrStatus::Merged, &stale.username, created)
            .send(&*store)
            .await
            .unwrap();
        let err = Transaction::new()
            .update(PullRequest::update(key(3)).set_username_given("dan", stale.status, created))
            .update(Repo::update(Repo::key("dyno")).set_description("renamed"))
            .send(&*store)
            .await
            .unwrap_err();
        assert!(
            matches!(
                &err,
                Error::StaleKeyField {
                    field: "status",
                    ..
                }
            ),
            "{name}: {err:?}"
        );
        let now = read(&*store, 3).await;
        assert_eq!(
            (now.username.as_str(), now.status),
            ("ann", PrStatus::Merged),
            "{name}"
        );
        let repo = Repo::get(Repo::key("dyno"))
            .consistent()
            .send(&*store)
            .await
            .unwrap();
        assert_eq!(
            repo.unwrap().description,
            "ORM",
            "{name}: the transaction wrote nothing"
        );
    }
}

#[test]
fn a_given_value_that_contradicts_the_update_is_refused_before_sending() {
    let created = OffsetDateTime::from_unix_timestamp(1_700_000_000).unwrap();
    // The status is written as Closed, then given as Open to rebuild the key: the key would
    // not be the item's.
    let err = PullRequest::update(key(1))
        .set_status_given(PrStatus::Closed, "ann", created)
        .set_username_given("bob", PrStatus::Open, created)
        .into_update()
        .unwrap_err();
    assert!(
        err.to_string().contains("`status` is set to")
            && err.to_string().contains("nothing was sent"),
        "{err}"
    );
    // Given the value it writes, the second setter adds no condition on it.
    let ok = PullRequest::update(key(1))
        .set_status_given(PrStatus::Closed, "ann", created)
        .set_username_given("bob", PrStatus::Closed, created)
        .into_update()
        .unwrap()
        .into_request()
        .unwrap();
    let condition = format!("{:?}", ok.condition.unwrap());
    assert!(!condition.contains("\"Closed\""), "{condition}");
}

#[tokio::test]
async fn a_set_of_a_key_part_enum_is_a_string_set_of_its_names() {
    for backend in backends().await {
        let name = backend.name;
        let store = forge(&backend).await;
        let labels = BTreeSet::from([PrStatus::Closed, PrStatus::Merged]);
        let after = PullRequest::update(key(1))
            .set_labels(labels.clone())
            .send(&*store)
            .await
            .unwrap();
        assert_eq!(after.labels, labels, "{name}");
        let stored = raw(&*store, key(1).into_item()).await;
        let AttributeValue::Ss(names) = &stored["labels"] else {
            panic!("{name}: {:?}", stored["labels"]);
        };
        assert_eq!(
            names.iter().cloned().collect::<BTreeSet<_>>(),
            BTreeSet::from(["Closed".to_owned(), "Merged".to_owned()]),
            "{name}"
        );
        PullRequest::update(key(1))
            .delete_from_labels(BTreeSet::from([PrStatus::Closed]))
            .send(&*store)
            .await
            .unwrap();
        let after = PullRequest::update(key(1))
            .add_to_labels(BTreeSet::from([PrStatus::Open]))
            .send(&*store)
            .await
            .unwrap();
        assert_eq!(
            after.labels,
            BTreeSet::from([PrStatus::Open, PrStatus::Merged]),
            "{name}"
        );
        let found = PullRequest::query("dyno")
            .filter(PullRequest::LABELS.contains(PrStatus::Open))
            .all(&*store)
            .await
            .unwrap();
        assert_eq!(found, vec![after], "{name}");
    }
}

/// How many increments each task of the race makes, and how many tasks per field and item.
const INCREMENTS: u32 = 4;
const TASKS_PER_FIELD: u32 = 4;
const HOT_ITEMS: u32 = 3;

/// One task of the race: `INCREMENTS` times, reads the tally and adds 1 to `left` (or `right`),
/// giving the other counter and the stamp; a condition failure retries from a fresh read.
/// Several tasks bump each counter, so each update is also conditioned on the counter it
/// writes (an optimistic lock of the caller's): a change of the other counter fails the given
/// value instead (`StaleKeyField`). Returns the retries after a stale given value.
async fn bump(store: Arc<dyn Store>, id: u32, left: bool) -> u32 {
    let mut stale = 0;
    for _ in 0..INCREMENTS {
        loop {
            let t = Tally::get(Tally::key(id))
                .consistent()
                .send(&*store)
                .await
                .unwrap()
                .unwrap();
            let created = t.created_at.unwrap();
            // Let the other tasks run between the read and the write (MemoryStore answers
            // without yielding).
            tokio::task::yield_now().await;
            let update = Tally::update(Tally::key(id));
            let update = if left {
                update
                    .set_left_given(t.left + 1, t.right, created)
                    .condition(Tally::LEFT.eq(t.left))
            } else {
                update
                    .set_right_given(t.right + 1, t.left, created)
                    .condition(Tally::RIGHT.eq(t.right))
            };
            match update.send(&*store).await {
                Ok(_) => break,
                Err(e @ Error::StaleKeyField { .. }) => {
                    let other = if left { "right" } else { "left" };
                    assert!(
                        matches!(e, Error::StaleKeyField { field, .. } if field == other),
                        "{e:?}"
                    );
                    stale += 1;
                }
                Err(e) if e.is_condition_failed() => {}
                Err(e) => panic!("{e:?}"),
            }
        }
    }
    stale
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_updates_of_one_key_group_lose_no_write() {
    for backend in backends().await {
        if !atomic_conditional_writes(backend.kind) {
            continue;
        }
        let name = backend.name;
        let store = fresh_table(&backend, Forge::definition(), "key_groups_race").await;
        for id in 0..HOT_ITEMS {
            let t = Tally {
                id,
                left: 0,
                right: 0,
                notes: 0,
                created_at: None,
            };
            t.create().send(&*store).await.unwrap();
        }
        let mut tasks = Vec::new();
        for id in 0..HOT_ITEMS {
            for task in 0..2 * TASKS_PER_FIELD {
                tasks.push(tokio::spawn(bump(store.clone(), id, task % 2 == 0)));
            }
            // A plain field beside the key changes concurrently and is never in the way.
            let store = store.clone();
            tasks.push(tokio::spawn(async move {
                for _ in 0..INCREMENTS {
                    Tally::update(Tally::key(id))
                        .add_notes(1u32)
                        .send(&*store)
                        .await
                        .unwrap();
                }
                0
            }));
        }
        let mut retries = 0;
        for t in tasks {
            retries += t.await.unwrap();
        }
        let expected = INCREMENTS * TASKS_PER_FIELD;
        for id in 0..HOT_ITEMS {
            let t = Tally::get(Tally::key(id))
                .consistent()
                .send(&*store)
                .await
                .unwrap()
                .unwrap();
            assert_eq!(
                (t.left, t.right, t.notes),
                (expected, expected, INCREMENTS),
                "{name}: tally {id} lost a write ({retries} stale given values in all)"
            );
            let stored = raw(&*store, Tally::key(id).into_item()).await;
            assert_eq!(
                stored.get("GSI1SK"),
                t.to_item().unwrap().get("GSI1SK"),
                "{name}: tally {id}'s index key"
            );
        }
        // Each tally is in the index once, at the key of its final counters.
        let listed = Tally::gsi1().all(&*store).await.unwrap();
        assert_eq!(listed.len(), HOT_ITEMS as usize, "{name}");
        println!("{name}: {retries} retries after a stale given value");
    }
}
