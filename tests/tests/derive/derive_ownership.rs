//! Entities that share key shapes and indexes, as in a GitHub-style single table: `User` and
//! `Organization` both live at `ACCOUNT#{name}` (one namespace of names), `Repo` shares GSI1 with
//! both. Regression tests for four silent bugs users met:
//!
//! 1. an `updated_at` field in an index key: the key must carry the stamped time;
//! 2. a `created_at: Option<_>` left `None` (stamped) in an index key: the item is in the index;
//! 3. `remove_<ttl field>()` removes the table's TTL attribute;
//! 4. typed get/update/delete/put of one entity never read or touch another entity's item.
//!
//! Every scenario runs on every backend (`dyno_tests::backend::backends()`).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use dyno_core::ops::{BatchGet, BatchWriter, EntityExt, TransactGet, Transaction};
use dyno_core::ops::{QueryDsl, UpdateDsl};
use dyno_core::store::{GetRequest, TableNames};
use dyno_core::{AttributeValue, Entity, Error, Item, Store, Table};
use time::OffsetDateTime;

use dyno_tests::backend::{backends, supports_transactions, unique_table_name, BackendKind};

#[derive(Debug, Table)]
#[dyno(name = "GitHub", pk = "PK", sk = "SK", ttl = "ttl")]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
#[dyno(index(name = "GSI2", pk = "GSI2PK", sk = "GSI2SK"))]
struct GitHub;

/// A user: its GSI1 sort key is its `updated_at` stamp (most recently active users).
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = GitHub, pk = "ACCOUNT#{name}", sk = "ACCOUNT#{name}")]
#[dyno(index(GSI1, pk = "USERS", sk = "#{updated}"))]
#[dyno(index(GSI2, pk = "EMAIL#{email}", sk = "USER"))]
struct User {
    name: String,
    email: String,
    #[dyno(updated_at)]
    updated: OffsetDateTime,
    #[dyno(ttl)]
    expires: Option<u64>,
    #[dyno(version)]
    version: u64,
}

/// An organization, in the same key namespace as users; its GSI1 sort key is its `created_at`
/// stamp, an `Option` left `None` so that the write stamps it.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = GitHub, pk = "ACCOUNT#{name}", sk = "ACCOUNT#{name}")]
#[dyno(index(GSI1, pk = "ORGS", sk = "{created}"))]
struct Organization {
    name: String,
    plan: String,
    #[dyno(created_at)]
    created: Option<OffsetDateTime>,
}

/// A repository, sharing GSI1 with the accounts (an owner's repositories).
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = GitHub, pk = "REPO#{owner}#{repo}", sk = "REPO#{owner}#{repo}")]
#[dyno(index(GSI1, pk = "ACCOUNT#{owner}", sk = "REPO#{repo}"))]
struct Repo {
    owner: String,
    repo: String,
    stars: u32,
}

/// Runs `scenario` on a fresh GitHub table on every backend.
async fn on_every_backend<F, Fut>(scenario: F)
where
    F: Fn(Arc<dyn Store>, BackendKind, &'static str) -> Fut,
    Fut: Future<Output = ()>,
{
    for backend in backends().await {
        let name = unique_table_name("derive-ownership");
        let store: Arc<dyn Store> =
            Arc::new(TableNames::new(backend.store.clone()).map("GitHub", name));
        store
            .create_table(GitHub::definition())
            .await
            .unwrap_or_else(|e| panic!("{}: create table: {e}", backend.name));
        scenario(store.clone(), backend.kind, backend.name).await;
        let _ = store.delete_table("GitHub").await;
    }
}

fn user(name: &str) -> User {
    User {
        name: name.into(),
        email: format!("{name}@example.com"),
        updated: OffsetDateTime::UNIX_EPOCH,
        expires: None,
        version: 0,
    }
}

fn org(name: &str) -> Organization {
    Organization {
        name: name.into(),
        plan: "free".into(),
        created: None,
    }
}

/// The raw stored item at `key`.
async fn raw<E: Entity>(store: &dyn Store, key: &dyno_core::ops::Key<E>) -> Option<Item> {
    store
        .get_item(GetRequest::borrowed("GitHub", key.as_item()).consistent())
        .await
        .unwrap()
        .item
        .map(|i| i.as_ref().clone())
}

fn s<'a>(item: &'a Item, name: &str) -> &'a str {
    match item.get(name) {
        Some(AttributeValue::S(s)) => s,
        other => panic!("{name}: {other:?}"),
    }
}

#[tokio::test]
async fn stamped_updated_at_is_the_time_in_the_index_key() {
    on_every_backend(|store, _, name| async move {
        let before = OffsetDateTime::now_utc() - Duration::from_secs(60);
        user("ann").create().send(&*store).await.unwrap();
        let stored = User::get(User::key("ann"))
            .consistent()
            .send(&*store)
            .await
            .unwrap()
            .unwrap();
        assert!(stored.updated > before, "{name}: stamped");
        // The index key is the stamped time, not the struct's placeholder (1970).
        let recent = User::gsi1()
            .updated()
            .gt(before)
            .all(&*store)
            .await
            .unwrap();
        assert_eq!(
            recent.iter().map(|u| &u.name).collect::<Vec<_>>(),
            ["ann"],
            "{name}: a range query on updated_at finds the new user"
        );
        let item = raw(&*store, &User::key("ann")).await.unwrap();
        let again = User::gsi1()
            .updated()
            .eq(stored.updated)
            .all(&*store)
            .await
            .unwrap();
        assert_eq!(again.len(), 1, "{name}: GSI1SK {}", s(&item, "GSI1SK"));

        // put stamps too, and moves the index key with it.
        let mut changed = stored.clone();
        changed.updated = OffsetDateTime::UNIX_EPOCH;
        changed.put().send(&*store).await.unwrap();
        let old = User::gsi1()
            .updated()
            .lt(before)
            .all(&*store)
            .await
            .unwrap();
        assert!(old.is_empty(), "{name}: nothing sorts as 1970: {old:?}");

        // An update stamps the attribute and the index key from the same value.
        let updated = User::update(User::key("ann"))
            .set_email("ann@new.example")
            .send(&*store)
            .await
            .unwrap();
        let eq = User::gsi1()
            .updated()
            .eq(updated.updated)
            .all(&*store)
            .await
            .unwrap();
        assert_eq!(eq.len(), 1, "{name}: update stamps key and attribute alike");
    })
    .await;
}

#[tokio::test]
async fn stamped_created_at_left_none_puts_the_item_in_the_index() {
    on_every_backend(|store, _, name| async move {
        let before = OffsetDateTime::now_utc() - Duration::from_secs(60);
        org("acme").create().send(&*store).await.unwrap();
        org("globex").put().send(&*store).await.unwrap();
        let got = Organization::get(Organization::key("acme"))
            .consistent()
            .send(&*store)
            .await
            .unwrap()
            .unwrap();
        let created = got.created.expect("stamped");
        assert!(created > before, "{name}");
        let orgs = Organization::gsi1().all(&*store).await.unwrap();
        let mut names: Vec<_> = orgs.iter().map(|o| o.name.as_str()).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            ["acme", "globex"],
            "{name}: both stamped orgs are indexed"
        );
        let exact = Organization::gsi1()
            .created()
            .eq(created)
            .all(&*store)
            .await
            .unwrap();
        assert_eq!(exact.len(), 1, "{name}: the index key is the stamp");
        let item = raw(&*store, &Organization::key("acme")).await.unwrap();
        assert!(item.contains_key("GSI1SK"), "{name}: {item:?}");

        // An upsert that creates the org stamps it and indexes it from the same value; a later
        // update keeps both.
        let made = Organization::update(Organization::key("initech"))
            .set_plan("pro")
            .upsert()
            .send(&*store)
            .await
            .unwrap();
        let stamp = made.created.expect("stamped by the upsert");
        let found = Organization::gsi1()
            .created()
            .eq(stamp)
            .all(&*store)
            .await
            .unwrap();
        assert_eq!(
            found.len(),
            1,
            "{name}: the upserted org is indexed by its stamp"
        );
        let again = Organization::update(Organization::key("initech"))
            .set_plan("team")
            .send(&*store)
            .await
            .unwrap();
        assert_eq!(again.created, Some(stamp), "{name}: created_at stays");
        let found = Organization::gsi1()
            .created()
            .eq(stamp)
            .all(&*store)
            .await
            .unwrap();
        assert_eq!(found.len(), 1, "{name}: and so does its index key");
    })
    .await;
}

#[tokio::test]
async fn removing_the_ttl_field_removes_the_ttl_attribute() {
    on_every_backend(|store, _, name| async move {
        let far = 4_000_000_000u64;
        let mut ann = user("ann");
        ann.expires = Some(far);
        ann.create().send(&*store).await.unwrap();
        let item = raw(&*store, &User::key("ann")).await.unwrap();
        assert_eq!(item.get("ttl"), Some(&AttributeValue::N(far.to_string())));
        assert!(!item.contains_key("expires"), "{name}: {item:?}");

        let after = User::update(User::key("ann"))
            .remove_expires()
            .send(&*store)
            .await
            .unwrap();
        assert_eq!(after.expires, None, "{name}");
        let item = raw(&*store, &User::key("ann")).await.unwrap();
        assert!(
            !item.contains_key("ttl"),
            "{name}: the item no longer expires: {item:?}"
        );

        let set = User::update(User::key("ann"))
            .set_expires(Some(far + 1))
            .send(&*store)
            .await
            .unwrap();
        assert_eq!(set.expires, Some(far + 1), "{name}");
    })
    .await;
}

#[tokio::test]
async fn reads_of_another_entitys_item_are_absent() {
    on_every_backend(|store, kind, name| async move {
        user("ann").create().send(&*store).await.unwrap();
        org("acme").create().send(&*store).await.unwrap();

        assert!(
            Organization::get(Organization::key("ann"))
                .send(&*store)
                .await
                .unwrap()
                .is_none(),
            "{name}: a user is not an organization"
        );
        assert!(User::get(User::key("acme"))
            .send(&*store)
            .await
            .unwrap()
            .is_none());
        assert!(User::get(User::key("ann"))
            .send(&*store)
            .await
            .unwrap()
            .is_some());
        let by_email = User::gsi2("ann@example.com").all(&*store).await.unwrap();
        assert_eq!(by_email.len(), 1, "{name}: GSI2 by email");

        let batch = BatchGet::new([Organization::key("ann"), Organization::key("acme")])
            .send(&*store)
            .await
            .unwrap();
        assert_eq!(
            batch.iter().map(|o| o.name.as_str()).collect::<Vec<_>>(),
            ["acme"],
            "{name}: batch get"
        );

        if supports_transactions(kind) {
            let mut tx = TransactGet::new();
            // (One action per item: DynamoDB refuses two reads of one item in a transaction.)
            let a = tx.get(Organization::key("ann"));
            let c = tx.get(Organization::key("acme"));
            let out = tx.send(&*store).await.unwrap();
            assert!(out.get(&a).unwrap().is_none(), "{name}: transactional get");
            assert!(out.get(&c).unwrap().is_some(), "{name}");
        }
        // Queries already skip other entities: GSI1 ACCOUNT#ann is repos only.
        Repo {
            owner: "ann".into(),
            repo: "dyno".into(),
            stars: 1,
        }
        .create()
        .send(&*store)
        .await
        .unwrap();
        assert_eq!(Repo::gsi1("ann").all(&*store).await.unwrap().len(), 1);
    })
    .await;
}

fn assert_wrong_entity(err: &Error, name: &str) {
    assert!(
        matches!(
            err,
            Error::WrongEntity {
                entity: "Organization",
                ..
            }
        ),
        "{name}: expected WrongEntity, got {err:?}"
    );
}

#[tokio::test]
async fn writes_never_touch_another_entitys_item() {
    on_every_backend(|store, kind, name| async move {
        user("ann").create().send(&*store).await.unwrap();
        let before = raw(&*store, &User::key("ann")).await.unwrap();

        let err = Organization::update(Organization::key("ann"))
            .set_plan("pro")
            .send(&*store)
            .await
            .unwrap_err();
        assert_wrong_entity(&err, name);
        let err = Organization::delete(Organization::key("ann"))
            .send(&*store)
            .await
            .unwrap_err();
        assert_wrong_entity(&err, name);
        let err = org("ann").put().send(&*store).await.unwrap_err();
        assert_wrong_entity(&err, name);
        let err = org("ann").replace().send(&*store).await.unwrap_err();
        assert_wrong_entity(&err, name);
        let err = Organization::update(Organization::key("ann"))
            .set_plan("pro")
            .upsert()
            .send(&*store)
            .await
            .unwrap_err();
        assert_wrong_entity(&err, name);
        // create: the key is taken, whoever holds it.
        let err = org("ann").create().send(&*store).await.unwrap_err();
        assert!(
            err.is_condition_failed() || matches!(err, Error::WrongEntity { .. }),
            "{name}: {err:?}"
        );

        if supports_transactions(kind) {
            let err = Transaction::new()
                .update(
                    Organization::update(Organization::key("ann"))
                        .set_plan("pro")
                        .into_update()
                        .unwrap(),
                )
                .send(&*store)
                .await
                .unwrap_err();
            assert!(
                matches!(err, Error::TransactionCanceled { .. }),
                "{name}: {err:?}"
            );
            let err = Transaction::new()
                .delete(Organization::key("ann"))
                .send(&*store)
                .await
                .unwrap_err();
            assert!(
                matches!(err, Error::TransactionCanceled { .. }),
                "{name}: {err:?}"
            );
            let err = Transaction::new()
                .put(&org("ann"))
                .send(&*store)
                .await
                .unwrap_err();
            assert!(
                matches!(err, Error::TransactionCanceled { .. }),
                "{name}: {err:?}"
            );
        }
        let after = raw(&*store, &User::key("ann")).await.unwrap();
        assert_eq!(before, after, "{name}: the user is untouched");

        // The entity's own writes still work, and absent items still upsert.
        org("acme").put().send(&*store).await.unwrap();
        Organization::update(Organization::key("acme"))
            .set_plan("pro")
            .send(&*store)
            .await
            .unwrap();
        Organization::update(Organization::key("initech"))
            .set_plan("pro")
            .upsert()
            .send(&*store)
            .await
            .unwrap();
        assert!(Organization::delete(Organization::key("acme"))
            .send(&*store)
            .await
            .unwrap()
            .is_some());
    })
    .await;
}

#[tokio::test]
async fn items_without_an_entity_type_keep_working() {
    on_every_backend(|store, _, name| async move {
        // Written by another client in the conventional format: no `_type` attribute.
        let mut item = org("hooli").to_item().unwrap();
        item.remove("_type");
        store
            .put_item(dyno_core::store::PutRequest::new("GitHub", item))
            .await
            .unwrap();
        let got = Organization::get(Organization::key("hooli"))
            .send(&*store)
            .await
            .unwrap();
        assert_eq!(got.map(|o| o.plan), Some("free".to_owned()), "{name}");
        let updated = Organization::update(Organization::key("hooli"))
            .set_plan("pro")
            .send(&*store)
            .await
            .unwrap();
        assert_eq!(updated.plan, "pro", "{name}");
        assert!(Organization::delete(Organization::key("hooli"))
            .send(&*store)
            .await
            .unwrap()
            .is_some());
    })
    .await;
}

#[tokio::test]
async fn racing_entities_on_one_key_never_mix() {
    on_every_backend(|store, kind, name| async move {
        if !dyno_tests::backend::atomic_conditional_writes(kind) {
            return; // moto: conditional writes are not atomic under concurrency
        }
        // 16 tasks, 8 rounds each, on 2 hot keys: users are created and deleted, organizations
        // put, updated and deleted, all on the same items.
        let hot = ["hot0", "hot1"];
        let tasks = (0..16u32).map(|t| {
            let store = store.clone();
            async move {
                for round in 0..8u32 {
                    let key = hot[((t + round) % 2) as usize];
                    let r = match (t + round) % 5 {
                        0 => user(key).create().send(&*store).await.map(|_| ()),
                        1 => User::delete(User::key(key)).send(&*store).await.map(|_| ()),
                        2 => org(key).put().send(&*store).await,
                        3 => Organization::update(Organization::key(key))
                            .set_plan(format!("p{t}"))
                            .send(&*store)
                            .await
                            .map(|_| ()),
                        _ => Organization::delete(Organization::key(key))
                            .send(&*store)
                            .await
                            .map(|_| ()),
                    };
                    match r {
                        Ok(()) => {}
                        Err(e)
                            if e.is_condition_failed()
                                || e.is_wrong_entity()
                                || e.is_not_found() => {}
                        Err(Error::TransactionCanceled { .. } | Error::Throttled { .. }) => {}
                        Err(e) => panic!("unexpected error: {e:?}"),
                    }
                }
            }
        });
        tokio::time::timeout(Duration::from_secs(60), futures::future::join_all(tasks))
            .await
            .expect("bounded");
        for key in hot {
            let Some(item) = raw(&*store, &User::key(key)).await else {
                continue;
            };
            match s(&item, "_type") {
                "User" => {
                    assert!(
                        !item.contains_key("plan"),
                        "{name}: an org write hit a user: {item:?}"
                    );
                    User::from_item(&item).unwrap();
                }
                "Organization" => {
                    assert!(
                        !item.contains_key("email"),
                        "{name}: a user write hit an org: {item:?}"
                    );
                    Organization::from_item(&item).unwrap();
                }
                other => panic!("{name}: {other}"),
            }
        }
    })
    .await;
}

/// Every typed operation that names an entity, run as `Organization` on the key
/// `ACCOUNT#ann`, where a `User` lives: reads skip the user (absent), writes refuse it and
/// change nothing, in a transaction the whole transaction is cancelled. The operations are an
/// exhaustive enum run by one `match`; [`api_surface`] reads the typed API's entry points from
/// dyno-core's sources, so that a method added there fails
/// [`every_typed_operation_is_listed`] until it is classified here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Op {
    Get,
    BatchGet,
    TransactGet,
    Scan,
    Create,
    CreateReturning,
    Put,
    PutReturning,
    Replace,
    Update,
    Upsert,
    Delete,
    DeleteConditioned,
    TxCreate,
    TxPut,
    TxReplace,
    TxCreateReturning,
    TxPutReturning,
    TxReplaceReturning,
    TxUpdate,
    TxUpsert,
    TxDelete,
    TxDeleteWith,
    TxCheck,
    BatchPut,
    BatchPutIgnoringVersion,
    BatchDelete,
}

impl Op {
    const ALL: [Op; 27] = [
        Op::Get,
        Op::BatchGet,
        Op::TransactGet,
        Op::Scan,
        Op::Create,
        Op::CreateReturning,
        Op::Put,
        Op::PutReturning,
        Op::Replace,
        Op::Update,
        Op::Upsert,
        Op::Delete,
        Op::DeleteConditioned,
        Op::TxCreate,
        Op::TxPut,
        Op::TxReplace,
        Op::TxCreateReturning,
        Op::TxPutReturning,
        Op::TxReplaceReturning,
        Op::TxUpdate,
        Op::TxUpsert,
        Op::TxDelete,
        Op::TxDeleteWith,
        Op::TxCheck,
        Op::BatchPut,
        Op::BatchPutIgnoringVersion,
        Op::BatchDelete,
    ];

    fn needs_transactions(self) -> bool {
        matches!(
            self,
            Op::TransactGet
                | Op::TxCreate
                | Op::TxPut
                | Op::TxReplace
                | Op::TxCreateReturning
                | Op::TxPutReturning
                | Op::TxReplaceReturning
                | Op::TxUpdate
                | Op::TxUpsert
                | Op::TxDelete
                | Op::TxDeleteWith
                | Op::TxCheck
        )
    }

    /// The typed writes of a `BatchWriter`: DynamoDB's `BatchWriteItem` takes no condition, so
    /// they are sent as single conditional writes (see `BatchWriter`'s "Ownership"). Run
    /// apart by `batch_writes_of_another_entitys_item`, which also checks a batch of several.
    fn batched(self) -> bool {
        matches!(
            self,
            Op::BatchPut | Op::BatchPutIgnoringVersion | Op::BatchDelete
        )
    }
}

/// What an operation did with the user's item.
#[derive(Debug)]
enum Outcome {
    /// A read: it returned this many organizations named `ann` (0: skipped).
    Read(usize),
    /// A write: its result.
    Wrote(Result<(), Error>),
}

/// The API's entry points that name an entity, and what each is in this test: the operation
/// that exercises it, or why it is not one (a setting, plumbing for raw requests, or a method
/// whose entity check is the operation's).
fn classify(method: &str) -> Result<Op, &'static str> {
    Ok(match method {
        "EntityExt::get" | "Get::send" => Op::Get,
        "BatchGet::new"
        | "BatchGet::key"
        | "BatchGet::send"
        | "BatchGet::send_report"
        | "BatchGet::run" => Op::BatchGet,
        "TransactGet::get" | "TransactGet::send" => Op::TransactGet,
        "EntityExt::scan" => Op::Scan,
        "EntityExt::create" | "Put::send" => Op::Create,
        "Put::send_returning" => Op::CreateReturning,
        "EntityExt::put" => Op::Put,
        "EntityExt::replace" => Op::Replace,
        "EntityExt::update" | "UpdateDsl::send" => Op::Update,
        "UpdateDsl::upsert" => Op::Upsert,
        "EntityExt::delete" | "Delete::send" => Op::Delete,
        "Delete::condition" | "Delete::if_version" => Op::DeleteConditioned,
        "Transaction::create" => Op::TxCreate,
        "Transaction::put" => Op::TxPut,
        "Transaction::replace" => Op::TxReplace,
        "Transaction::create_returning" | "Transaction::send_returning" => Op::TxCreateReturning,
        "Transaction::put_returning" => Op::TxPutReturning,
        "Transaction::replace_returning" => Op::TxReplaceReturning,
        "Transaction::update" | "Transaction::send" => Op::TxUpdate,
        "Transaction::delete" => Op::TxDelete,
        "Transaction::delete_with" => Op::TxDeleteWith,
        "Transaction::check" => Op::TxCheck,
        "BatchWriter::put"
        | "BatchWriter::put_all"
        | "BatchWriter::send"
        | "BatchWriter::send_report"
        | "BatchWriter::run" => Op::BatchPut,
        "BatchWriter::put_ignoring_version" | "BatchWriter::put_all_ignoring_version" => {
            Op::BatchPutIgnoringVersion
        }
        "BatchWriter::delete" => Op::BatchDelete,
        "Get::new" | "Put::new" | "Delete::new" | "BatchWriter::new" | "Transaction::new"
        | "TransactGet::new" => return Err("a constructor: the operation is its send"),
        "Get::consistent"
        | "BatchGet::consistent"
        | "BatchGet::concurrency"
        | "BatchGet::retry"
        | "BatchGet::deadline"
        | "BatchWriter::concurrency"
        | "BatchWriter::retry"
        | "BatchWriter::deadline"
        | "Transaction::token" => return Err("a setting"),
        "BatchWriter::without_entity_check" => {
            return Err("an opt-out said in the code: typed batch writes without the entity check")
        }
        "Put::item" | "Put::entity" | "Transaction::client_token" => {
            return Err("an accessor of what the write will send")
        }
        "Get::request"
        | "Put::into_request"
        | "Put::into_transact"
        | "Delete::into_request"
        | "Delete::into_transact"
        | "Transaction::into_request"
        | "Transaction::request"
        | "Put::write_request"
        | "UpdateDsl::into_builder"
        | "UpdateDsl::into_inner"
        | "UpdateDsl::into_update"
        | "UpdateDsl::map_update"
        | "UpdateDsl::prepare_upsert" => {
            return Err("plumbing: the request an operation sends (its condition included)")
        }
        "Put::condition" | "UpdateDsl::condition" | "UpdateDsl::if_version" | "UpdateDsl::at" => {
            return Err("a condition or action added to a write that carries the entity check")
        }
        "Transaction::action" | "BatchWriter::write" => {
            return Err("a raw (untyped) action: it names no entity")
        }
        "Transaction::len"
        | "Transaction::is_empty"
        | "TransactGet::len"
        | "TransactGet::is_empty"
        | "BatchWriter::len"
        | "BatchWriter::is_empty" => return Err("an accessor"),
        _ => return Err("UNLISTED"),
    })
}

/// The methods of the typed API's entry points, as `Type::method`, read from dyno-core's
/// sources (rustfmt's layout: methods at four spaces, the block closed by `}` alone).
fn api_surface() -> Vec<String> {
    let sources: [(&str, &str, &str); 9] = [
        (
            "EntityExt",
            include_str!("../../../dyno-core/src/ops/ext.rs"),
            "pub trait EntityExt",
        ),
        (
            "Get",
            include_str!("../../../dyno-core/src/ops/get.rs"),
            "impl<E: Entity> Get<E> {",
        ),
        (
            "Put",
            include_str!("../../../dyno-core/src/ops/put.rs"),
            "impl<'a, E: Entity> Put<'a, E> {",
        ),
        (
            "Delete",
            include_str!("../../../dyno-core/src/ops/delete.rs"),
            "impl<E: Entity> Delete<E> {",
        ),
        (
            "UpdateDsl",
            include_str!("../../../dyno-core/src/ops/dsl.rs"),
            "pub trait UpdateDsl",
        ),
        (
            "Transaction",
            include_str!("../../../dyno-core/src/ops/transact.rs"),
            "impl Transaction {",
        ),
        (
            "TransactGet",
            include_str!("../../../dyno-core/src/ops/transact.rs"),
            "impl TransactGet {",
        ),
        (
            "BatchWriter",
            include_str!("../../../dyno-core/src/ops/batch/write.rs"),
            "impl BatchWriter {",
        ),
        (
            "BatchGet",
            include_str!("../../../dyno-core/src/ops/batch/get.rs"),
            "impl<E: Entity> BatchGet<E> {",
        ),
    ];
    let mut out = Vec::new();
    for (ty, source, header) in sources {
        let start = source
            .lines()
            .position(|l| l.starts_with(header))
            .unwrap_or_else(|| panic!("{ty}: no `{header}` in its source: update api_surface"));
        let trait_block = header.starts_with("pub trait");
        for line in source.lines().skip(start + 1).take_while(|l| *l != "}") {
            let Some(rest) = line.strip_prefix("    ") else {
                continue;
            };
            let rest = if trait_block {
                rest
            } else {
                match rest.strip_prefix("pub ") {
                    Some(r) => r,
                    None => continue,
                }
            };
            let rest = rest.strip_prefix("async ").unwrap_or(rest);
            let Some(name) = rest.strip_prefix("fn ") else {
                continue;
            };
            let name: String = name
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            out.push(format!("{ty}::{name}"));
        }
    }
    out
}

#[test]
fn every_typed_operation_is_listed() {
    let surface = api_surface();
    assert!(surface.len() > 40, "the sources were read: {surface:?}");
    let unlisted: Vec<&String> = surface
        .iter()
        .filter(|m| classify(m) == Err("UNLISTED"))
        .collect();
    assert!(
        unlisted.is_empty(),
        "typed API methods not classified in derive_ownership::classify: {unlisted:?}; map each \
         to the Op that proves it skips or refuses another entity's item (add one if needed)"
    );
    // Every operation is reached from the API, and run by `run_op` below.
    for op in Op::ALL {
        assert!(
            surface.iter().any(|m| classify(m) == Ok(op))
                || matches!(op, Op::PutReturning | Op::TxUpsert),
            "{op:?} is reached by no API method"
        );
    }
}

/// Runs `op` as `Organization` on `ACCOUNT#ann` (a user's item).
async fn run_op(store: &dyn Store, op: Op) -> Outcome {
    let key = || Organization::key("ann");
    let ann = || org("ann");
    let wrote = |r: Result<(), Error>| Outcome::Wrote(r);
    let tx = |t: Transaction| async move { t.send(store).await.map(|_| ()) };
    match op {
        Op::Get => Outcome::Read(
            Organization::get(key())
                .send(store)
                .await
                .unwrap()
                .into_iter()
                .count(),
        ),
        Op::BatchGet => {
            let got = BatchGet::new([key()])
                .key(Organization::key("acme"))
                .send(store)
                .await
                .unwrap();
            Outcome::Read(got.iter().filter(|o| o.name == "ann").count())
        }
        Op::TransactGet => {
            let mut t = TransactGet::new();
            let h = t.get(key());
            let out = t.send(store).await.unwrap();
            Outcome::Read(out.get(&h).unwrap().into_iter().count())
        }
        Op::Scan => {
            let all = Organization::scan().all(store).await.unwrap();
            Outcome::Read(all.iter().filter(|o| o.name == "ann").count())
        }
        Op::Create => wrote(ann().create().send(store).await),
        Op::CreateReturning => wrote(ann().create().send_returning(store).await.map(|_| ())),
        Op::Put => wrote(ann().put().send(store).await),
        Op::PutReturning => wrote(ann().put().send_returning(store).await.map(|_| ())),
        Op::Replace => wrote(ann().replace().send(store).await),
        Op::Update => wrote(
            Organization::update(key())
                .set_plan("pro")
                .send(store)
                .await
                .map(|_| ()),
        ),
        Op::Upsert => wrote(
            Organization::update(key())
                .set_plan("pro")
                .upsert()
                .send(store)
                .await
                .map(|_| ()),
        ),
        Op::Delete => wrote(Organization::delete(key()).send(store).await.map(|_| ())),
        Op::DeleteConditioned => wrote(
            Organization::delete(key())
                .condition(Organization::NAME.eq("ann"))
                .send(store)
                .await
                .map(|_| ()),
        ),
        Op::TxCreate => wrote(tx(Transaction::new().create(&ann())).await),
        Op::TxPut => wrote(tx(Transaction::new().put(&ann())).await),
        Op::TxReplace => wrote(tx(Transaction::new().replace(&ann())).await),
        Op::TxCreateReturning | Op::TxPutReturning | Op::TxReplaceReturning => {
            let mut t = Transaction::new();
            let handle = match op {
                Op::TxCreateReturning => t.create_returning(&ann()),
                Op::TxPutReturning => t.put_returning(&ann()),
                _ => t.replace_returning(&ann()),
            };
            wrote(
                t.send_returning(store)
                    .await
                    .and_then(|written| written.get(&handle).map(|_| ())),
            )
        }
        Op::TxUpdate => {
            wrote(tx(Transaction::new().update(Organization::update(key()).set_plan("pro"))).await)
        }
        Op::TxUpsert => wrote(
            tx(Transaction::new().update(Organization::update(key()).set_plan("pro").upsert()))
                .await,
        ),
        Op::TxDelete => wrote(tx(Transaction::new().delete(key())).await),
        Op::TxDeleteWith => wrote(
            tx(Transaction::new()
                .delete_with(Organization::delete(key()).condition(Organization::NAME.eq("ann"))))
            .await,
        ),
        // A condition that holds on the user's item too (it has a `name`): only the entity
        // check can refuse it. The transaction's other action must not commit either.
        Op::TxCheck => wrote(
            tx(Transaction::new()
                .check(key(), Organization::NAME.eq("ann"))
                .put(&org("witness")))
            .await,
        ),
        Op::BatchPut => {
            let mut b = BatchWriter::new();
            b.put(&ann()).unwrap();
            wrote(b.send(store).await.map(|_| ()))
        }
        Op::BatchPutIgnoringVersion => {
            let mut b = BatchWriter::new();
            b.put_ignoring_version(&ann()).unwrap();
            wrote(b.send(store).await.map(|_| ()))
        }
        Op::BatchDelete => {
            let mut b = BatchWriter::new();
            b.delete(key()).unwrap();
            wrote(b.send(store).await.map(|_| ()))
        }
    }
}

/// Runs each operation of `ops` on a fresh user `ann`, and checks that it skipped or refused
/// the user's item and wrote nothing.
async fn every_op_keeps_off_the_users_item(ops: &[Op]) {
    on_every_backend(|store, kind, name| async move {
        org("acme").create().send(&*store).await.unwrap();
        for &op in ops {
            if op.needs_transactions() && !supports_transactions(kind) {
                continue;
            }
            let _ = User::delete(User::key("ann")).send(&*store).await;
            user("ann").create().send(&*store).await.unwrap();
            let before = raw(&*store, &User::key("ann")).await.unwrap();
            match run_op(&*store, op).await {
                Outcome::Read(n) => {
                    assert_eq!(n, 0, "{name}: {op:?} read the user as an organization")
                }
                Outcome::Wrote(Ok(())) => panic!("{name}: {op:?} succeeded on the user's item"),
                Outcome::Wrote(Err(e)) => assert!(
                    e.is_wrong_entity()
                        || e.is_condition_failed()
                        || matches!(e, Error::TransactionCanceled { .. }),
                    "{name}: {op:?}: {e:?}"
                ),
            }
            let after = raw(&*store, &User::key("ann")).await;
            assert_eq!(
                after.as_ref(),
                Some(&before),
                "{name}: {op:?} changed the user's item"
            );
            assert!(
                raw(&*store, &Organization::key("witness")).await.is_none(),
                "{name}: {op:?}: the transaction's other action committed"
            );
        }
    })
    .await;
}

#[tokio::test]
async fn every_typed_operation_skips_or_refuses_another_entitys_item() {
    let ops: Vec<Op> = Op::ALL.into_iter().filter(|op| !op.batched()).collect();
    every_op_keeps_off_the_users_item(&ops).await;
}

#[tokio::test]
async fn batch_writes_of_another_entitys_item() {
    let ops: Vec<Op> = Op::ALL.into_iter().filter(|op| op.batched()).collect();
    every_op_keeps_off_the_users_item(&ops).await;

    // In a batch of several, the write at the user's key is refused and returned; the others
    // are applied.
    on_every_backend(|store, _, name| async move {
        user("ann").create().send(&*store).await.unwrap();
        org("old").create().send(&*store).await.unwrap();
        let before = raw(&*store, &User::key("ann")).await.unwrap();
        let mut batch = BatchWriter::new();
        batch
            .put_all(&[org("acme"), org("ann"), org("globex")])
            .unwrap();
        batch.delete(Organization::key("old")).unwrap();
        let err = batch.send(&*store).await.unwrap_err();
        let Error::BatchIncomplete {
            unprocessed_writes,
            refused,
            causes,
            ..
        } = &err
        else {
            panic!("{name}: {err:?}");
        };
        // Refused, not unprocessed: nothing is left that a resend could write.
        assert!(unprocessed_writes.is_empty(), "{name}: {err}");
        assert!(causes.is_empty(), "{name}: {causes:?}");
        let [refused] = &refused[..] else {
            panic!("{name}: {refused:?}");
        };
        assert!(
            matches!(
                &refused.reason,
                Error::WrongEntity { entity: "Organization", found } if found == "User"
            ),
            "{name}: {refused:?}"
        );
        assert_eq!(refused.entity(), "Organization", "{name}");
        assert_eq!(s(refused.key(), "PK"), "ACCOUNT#ann", "{name}");
        let tried = refused.item().expect("a put's item");
        assert_eq!(s(tried, "PK"), "ACCOUNT#ann", "{name}");
        assert!(!refused.is_delete(), "{name}");
        let message = err.to_string();
        assert!(
            message.contains("0 write(s) and 0 key(s) unprocessed")
                && message.contains("refused 1 write(s) for good")
                && !message.contains("kept returning them unprocessed"),
            "{name}: {message}"
        );
        assert_eq!(
            raw(&*store, &User::key("ann")).await.as_ref(),
            Some(&before),
            "{name}: the user is untouched"
        );
        for (key, present) in [("acme", true), ("globex", true), ("old", false)] {
            assert_eq!(
                raw(&*store, &Organization::key(key)).await.is_some(),
                present,
                "{name}: {key}"
            );
        }

        // `run` reports the same; deletes of a user's key and of a missing item.
        let mut batch = BatchWriter::new();
        batch.delete(Organization::key("ann")).unwrap();
        batch.delete(Organization::key("nobody")).unwrap();
        batch.delete(Organization::key("acme")).unwrap();
        let report = batch.send_report(&*store).await;
        assert_eq!(report.written, 2, "{name}: {report:?}");
        assert!(report.unprocessed.is_empty(), "{name}: {report:?}");
        assert!(report.errors.is_empty(), "{name}: {report:?}");
        let [refused] = &report.refused[..] else {
            panic!("{name}: {report:?}");
        };
        assert!(refused.reason.is_wrong_entity(), "{name}: {refused:?}");
        assert!(refused.is_delete() && refused.item().is_none(), "{name}");
        assert_eq!(s(refused.key(), "PK"), "ACCOUNT#ann", "{name}");
        assert!(!report.is_complete(), "{name}");
        assert_eq!(
            raw(&*store, &User::key("ann")).await.as_ref(),
            Some(&before)
        );
        assert!(raw(&*store, &Organization::key("acme")).await.is_none());

        // Said in the code: without the entity check, the batch overwrites the user's item.
        let mut batch = BatchWriter::new().without_entity_check();
        batch.put(&org("ann")).unwrap();
        batch.send(&*store).await.unwrap();
        let now = raw(&*store, &User::key("ann")).await.unwrap();
        assert_eq!(s(&now, "_type"), "Organization", "{name}");
    })
    .await;
}
