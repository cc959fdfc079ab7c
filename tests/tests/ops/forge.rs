//! The code-forge model the key-group and upsert tests share: pull requests listed by status
//! (`{status}#{created_at}`) and by author (`{username}#{status}#{created_at}`) in one
//! repository partition, beside the repository item; and tallies whose index key is made of two
//! counters and a stamp.

use std::collections::BTreeSet;
use std::sync::Arc;

use dyno_core::ops::EntityExt;
use dyno_core::{Entity, KeyPart, Store, Table};
use dyno_tests::backend::{fresh_table, Backend};
use time::OffsetDateTime;

#[derive(Table)]
#[dyno(name = "Forge", pk = "PK", sk = "SK")]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
#[dyno(index(name = "GSI2", pk = "GSI2PK", sk = "GSI2SK"))]
pub(crate) struct Forge;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, KeyPart)]
pub(crate) enum PrStatus {
    Open,
    Closed,
    Merged,
}

#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Forge, pk = "REPO#{repo}", sk = "REPO")]
pub(crate) struct Repo {
    pub(crate) repo: String,
    pub(crate) description: String,
}

/// The DynamoDB Book's pull request: listed by status and by author, newest last.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Forge, pk = "REPO#{repo}", sk = "PR#{number}")]
#[dyno(index(GSI1, pk = "PRS#{repo}", sk = "{status}#{created_at}"))]
#[dyno(index(GSI2, pk = "AUTHORS#{repo}", sk = "{username}#{status}#{created_at}"))]
pub(crate) struct PullRequest {
    pub(crate) repo: String,
    pub(crate) number: u32,
    pub(crate) username: String,
    pub(crate) status: PrStatus,
    pub(crate) title: String,
    #[dyno(default)]
    pub(crate) reviewers: BTreeSet<String>,
    #[dyno(default)]
    pub(crate) labels: BTreeSet<PrStatus>,
    #[dyno(created_at)]
    pub(crate) created_at: Option<OffsetDateTime>,
    #[dyno(updated_at)]
    pub(crate) updated_at: Option<OffsetDateTime>,
}

/// Two counters that make up one index key with a stamp: the race's hot items.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Forge, pk = "TALLY#{id}", sk = "TALLY")]
#[dyno(index(GSI1, pk = "TALLIES", sk = "{left}#{right}#{created_at}"))]
pub(crate) struct Tally {
    pub(crate) id: u32,
    pub(crate) left: u32,
    pub(crate) right: u32,
    #[dyno(default)]
    pub(crate) notes: u32,
    #[dyno(created_at)]
    pub(crate) created_at: Option<OffsetDateTime>,
}

pub(crate) fn pr(number: u32, username: &str) -> PullRequest {
    PullRequest {
        repo: "dyno".into(),
        number,
        username: username.into(),
        status: PrStatus::Open,
        title: format!("pr {number}"),
        reviewers: BTreeSet::new(),
        labels: BTreeSet::new(),
        created_at: None,
        updated_at: None,
    }
}

pub(crate) fn key(number: u32) -> dyno_core::ops::Key<PullRequest> {
    PullRequest::key("dyno", number)
}

pub(crate) async fn read(store: &dyn Store, number: u32) -> PullRequest {
    PullRequest::get(key(number))
        .consistent()
        .send(store)
        .await
        .unwrap()
        .expect("the pull request exists")
}

pub(crate) async fn raw(store: &dyn Store, item_key: dyno_core::Item) -> dyno_core::Item {
    store
        .get_item(dyno_core::store::GetRequest::new("Forge", item_key).consistent())
        .await
        .unwrap()
        .item
        .map(|i| (*i).clone())
        .expect("the item exists")
}

/// A forge with the repository and three pull requests, on `backend`.
pub(crate) async fn forge(backend: &Backend) -> Arc<dyn Store> {
    let store = fresh_table(backend, Forge::definition(), "key_groups").await;
    Repo {
        repo: "dyno".into(),
        description: "ORM".into(),
    }
    .create()
    .send(&*store)
    .await
    .unwrap();
    for (n, user) in [(1, "ann"), (2, "bob"), (3, "ann")] {
        pr(n, user).create().send(&*store).await.unwrap();
    }
    store
}
