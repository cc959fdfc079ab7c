//! Upserts write an item their entity reads back, or nothing; a write that happened is never
//! reported as a failure. On MemoryStore and every server, with the code forge of `forge.rs`.

use std::collections::BTreeSet;

use dyno_core::ops::EntityExt;
use dyno_core::prelude::*;
use dyno_core::{Entity, Error, Table};
use dyno_tests::backend::backends;
use dyno_tests::fault::FaultStore;
use time::OffsetDateTime;

use crate::forge::{forge, key, pr, raw, read, Forge, PrStatus, PullRequest};

fn reviewers() -> BTreeSet<String> {
    BTreeSet::from(["rev".to_owned()])
}

#[tokio::test]
async fn an_upsert_missing_required_fields_is_refused_before_sending() {
    for backend in backends().await {
        let name = backend.name;
        let store = FaultStore::new(forge(&backend).await);
        let calls = store.counts().total();
        let err = PullRequest::update(key(9))
            .set_reviewers(reviewers())
            .upsert()
            .send(&store)
            .await
            .unwrap_err();
        let msg = err.to_string();
        assert!(matches!(err, Error::Validation { .. }), "{name}: {err:?}");
        for needed in [
            "`username`",
            "`status`",
            "`title`",
            "could not read it back",
            "nothing was sent",
            // An `Option` stamp in a key does not make its index sparse: the keys are needed.
            "GSI1SK",
            "GSI2SK",
        ] {
            assert!(msg.contains(needed), "{name}: {needed} in {msg}");
        }
        // `reviewers` has a default, `created_at` is stamped: neither is asked for.
        assert!(
            !msg.contains("`reviewers`") && !msg.contains("`created_at` ("),
            "{name}: {msg}"
        );
        assert_eq!(
            store.counts().total(),
            calls,
            "{name}: refused before any call"
        );
        assert_eq!(
            PullRequest::get(key(9))
                .consistent()
                .send(&store)
                .await
                .unwrap(),
            None,
            "{name}"
        );
        // The whole partition still reads (no undecodable item was left in it).
        assert_eq!(
            PullRequest::query("dyno").count(&store).await.unwrap(),
            3,
            "{name}"
        );
    }
}

#[tokio::test]
async fn an_upsert_with_every_required_field_creates_a_readable_item() {
    for backend in backends().await {
        let name = backend.name;
        let store = forge(&backend).await;
        let created_at = OffsetDateTime::from_unix_timestamp(1_700_000_000).unwrap();
        let created = PullRequest::update(key(9))
            .set_reviewers(reviewers())
            .set_username_and_status_given("eve", PrStatus::Open, created_at)
            .set_if_absent_title("draft")
            .upsert()
            .send(&*store)
            .await
            .unwrap();
        assert_eq!(
            (
                created.username.as_str(),
                created.status,
                created.title.as_str()
            ),
            ("eve", PrStatus::Open, "draft"),
            "{name}"
        );
        assert_eq!(
            created.created_at,
            Some(created_at),
            "{name}: the stamp its keys hold"
        );
        assert_eq!(read(&*store, 9).await, created, "{name}");
        let full = created.to_item().unwrap();
        let stored = raw(&*store, key(9).into_item()).await;
        for attr in ["GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK"] {
            assert_eq!(stored.get(attr), full.get(attr), "{name}: {attr}");
        }
        let eves = PullRequest::gsi2("dyno").username().eq("eve").all(&*store);
        assert_eq!(eves.await.unwrap(), vec![created.clone()], "{name}");

        // On the existing item, the same upsert keeps the title and refuses another stamp.
        let again = PullRequest::update(key(9))
            .set_username_and_status_given("eve", PrStatus::Closed, created_at)
            .set_if_absent_title("other")
            .upsert()
            .send(&*store)
            .await
            .unwrap();
        assert_eq!(
            (again.status, again.title.as_str()),
            (PrStatus::Closed, "draft")
        );
        let err = PullRequest::update(key(9))
            .set_username_and_status_given("eve", PrStatus::Open, OffsetDateTime::now_utc())
            .set_title("t")
            .upsert()
            .send(&*store)
            .await
            .unwrap_err();
        assert!(
            matches!(
                err,
                Error::StaleKeyField {
                    field: "created_at",
                    ..
                }
            ),
            "{name}: {err:?}"
        );
        PullRequest::delete(key(9)).send(&*store).await.unwrap();
    }
}

#[tokio::test]
async fn an_update_whose_result_does_not_decode_says_it_was_written() {
    for backend in backends().await {
        let name = backend.name;
        let store = forge(&backend).await;
        // Another client (or an older schema) wrote pull request 7 without a title.
        let mut item = pr(7, "zed").to_item().unwrap();
        item.remove("title");
        store
            .put_item(dyno_tests::backend::put(&Forge::definition().name, item))
            .await
            .unwrap();
        let err = PullRequest::update(key(7))
            .set_reviewers(reviewers())
            .send(&*store)
            .await
            .unwrap_err();
        let Error::WrittenUndecodable { error, .. } = &err else {
            panic!("{name}: {err:?}");
        };
        assert!(matches!(**error, Error::Decode { .. }), "{name}: {error:?}");
        let msg = err.to_string();
        assert!(
            msg.contains("PullRequest was written") && msg.contains("title"),
            "{name}: {msg}"
        );
        assert!(!err.is_condition_failed(), "{name}");
        let stored = raw(&*store, key(7).into_item()).await;
        assert!(
            stored.contains_key("reviewers"),
            "{name}: the write happened"
        );
    }
}

#[tokio::test]
async fn the_upsert_entry_takes_every_required_field_and_keeps_an_existing_items() {
    for backend in backends().await {
        let name = backend.name;
        let store = forge(&backend).await;
        // A missing item: created from the arguments, in both indexes, readable.
        let created = PullRequest::upsert(key(10), "fay", PrStatus::Open, "first")
            .set_reviewers(reviewers())
            .send(&*store)
            .await
            .unwrap();
        assert_eq!(
            (
                created.username.as_str(),
                created.status,
                created.title.as_str()
            ),
            ("fay", PrStatus::Open, "first"),
            "{name}"
        );
        assert!(created.created_at.is_some(), "{name}: stamped");
        assert_eq!(read(&*store, 10).await, created, "{name}");
        let full = created.to_item().unwrap();
        let stored = raw(&*store, key(10).into_item()).await;
        for attr in ["GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK"] {
            assert_eq!(stored.get(attr), full.get(attr), "{name}: {attr}");
        }
        // An existing item keeps its values and keys; the setters still apply.
        let before = read(&*store, 1).await;
        let kept = PullRequest::upsert(key(1), "other", PrStatus::Merged, "other")
            .set_reviewers(reviewers())
            .send(&*store)
            .await
            .unwrap();
        assert_eq!(
            (kept.username.as_str(), kept.status, kept.title.as_str()),
            (
                before.username.as_str(),
                before.status,
                before.title.as_str()
            ),
            "{name}"
        );
        assert_eq!(kept.created_at, before.created_at, "{name}");
        assert_eq!(kept.reviewers, reviewers(), "{name}");
        let stored = raw(&*store, key(1).into_item()).await;
        assert_eq!(
            stored.get("GSI2SK"),
            kept.to_item().unwrap().get("GSI2SK"),
            "{name}"
        );
    }
}
