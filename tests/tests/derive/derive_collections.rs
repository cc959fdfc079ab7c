//! Collections on any index, with sort-key conditions, in The DynamoDB Book's
//! GitHub model, on every backend: repos, issues and stars share the repo's partition of the
//! table; pull requests join their repo in GSI1 and forks in GSI2 (each with a partition of its
//! own in the table); issues sort by status in the local index LSI1.
//!
//! A collection reads the range of sort keys its members can have, not the whole partition:
//! the tests check the key condition sent and, on each backend, that the items the store read
//! (`ScannedCount`) are the members' (stars are never read for "a repo and its issues").

use std::sync::Arc;

use dyno_core::expr::SortCondition;
use dyno_core::prelude::*;
use dyno_core::store::{Store, TableNames};
use dyno_core::{AttributeValue, Collection, Entity, Table};
use dyno_tests::backend::{backends, unique_table_name};
use futures::TryStreamExt;

#[derive(Table)]
#[dyno(name = "GitHub", pk = "PK", sk = "SK")]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
#[dyno(index(name = "GSI2", pk = "GSI2PK", sk = "GSI2SK"))]
#[dyno(index(name = "LSI1", local, sk = "LSI1SK"))]
pub struct GitHub;

// clippy's duplicated_attributes reads the two indexes' equal `pk = "..."` as one attribute
// given twice (rust-clippy issues 12923 and 13238; the derive's docs say so for users).
#[allow(clippy::duplicated_attributes)]
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = GitHub, pk = "REPO#{owner}#{name}", sk = "REPO#{owner}#{name}")]
#[dyno(
    index(GSI1, pk = "REPO#{owner}#{name}", sk = "#REPO#{owner}#{name}"),
    index(GSI2, pk = "REPO#{owner}#{name}", sk = "#REPO#{name}")
)]
pub struct Repo {
    pub owner: String,
    pub name: String,
    pub description: String,
}

#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = GitHub, pk = "REPO#{owner}#{repo}", sk = "ISSUE#{number}")]
#[dyno(index(LSI1, sk = "ISSUE#{status}#{number}"))]
pub struct Issue {
    pub owner: String,
    pub repo: String,
    pub number: u32,
    pub status: String,
    pub title: String,
}

#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = GitHub, pk = "REPO#{owner}#{repo}", sk = "STAR#{user}")]
pub struct Star {
    pub owner: String,
    pub repo: String,
    pub user: String,
}

#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = GitHub, pk = "PR#{owner}#{repo}#{number}", sk = "PR#{owner}#{repo}#{number}")]
#[dyno(index(GSI1, pk = "REPO#{owner}#{repo}", sk = "PR#{number}"))]
pub struct PullRequest {
    pub owner: String,
    pub repo: String,
    pub number: u32,
    pub title: String,
}

#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = GitHub, pk = "REPO#{fork_owner}#{repo}", sk = "FORK#{owner}")]
#[dyno(index(GSI2, pk = "REPO#{owner}#{repo}", sk = "FORK#{fork_owner}"))]
pub struct Fork {
    pub owner: String,
    pub repo: String,
    pub fork_owner: String,
}

/// A repo and its issues: the table's partition, without the stars.
#[derive(Debug, Clone, PartialEq, Collection)]
#[dyno(partition = Repo)]
pub enum RepoItem {
    Repo(Repo),
    Issue(Issue),
}

/// A repo and its pull requests, through GSI1.
#[derive(Debug, Clone, PartialEq, Collection)]
#[dyno(index = GSI1, partition = Repo)]
pub struct RepoAndPulls {
    pub repo: Option<Repo>,
    pub pulls: Vec<PullRequest>,
}

/// A repo and its forks, through GSI2.
#[derive(Debug, Clone, PartialEq, Collection)]
#[dyno(index = GSI2, partition = Repo)]
pub struct RepoAndForks {
    pub repo: Option<Repo>,
    pub forks: Vec<Fork>,
}

/// Issues by status, through the local index.
#[derive(Debug, Clone, PartialEq, Collection)]
#[dyno(index = "LSI1")]
pub enum IssueByStatus {
    Issue(Issue),
}

const ISSUES: u32 = 7;
const STARS: usize = 12;

fn repo() -> Repo {
    Repo {
        owner: "octo".into(),
        name: "cat".into(),
        description: "a repo".into(),
    }
}

fn issue(number: u32) -> Issue {
    Issue {
        owner: "octo".into(),
        repo: "cat".into(),
        number,
        status: if number.is_multiple_of(2) {
            "closed"
        } else {
            "open"
        }
        .into(),
        title: format!("issue {number}"),
    }
}

fn pull(number: u32) -> PullRequest {
    PullRequest {
        owner: "octo".into(),
        repo: "cat".into(),
        number,
        title: format!("pr {number}"),
    }
}

fn fork(owner: &str) -> Fork {
    Fork {
        owner: "octo".into(),
        repo: "cat".into(),
        fork_owner: owner.into(),
    }
}

async fn loaded() -> Vec<(&'static str, Arc<dyn Store>)> {
    let mut out = Vec::new();
    for backend in backends().await {
        let store: Arc<dyn Store> = Arc::new(
            TableNames::new(backend.store.clone()).map("GitHub", unique_table_name("github")),
        );
        store.create_table(GitHub::definition()).await.unwrap();
        repo().create().send(&*store).await.unwrap();
        // Another repo of the same owner: another partition everywhere.
        Repo {
            name: "dog".into(),
            ..repo()
        }
        .create()
        .send(&*store)
        .await
        .unwrap();
        for n in 1..=ISSUES {
            issue(n).create().send(&*store).await.unwrap();
        }
        for i in 0..STARS {
            let star = Star {
                owner: "octo".into(),
                repo: "cat".into(),
                user: format!("u{i:02}"),
            };
            star.create().send(&*store).await.unwrap();
        }
        for n in 1..=3 {
            pull(n).create().send(&*store).await.unwrap();
        }
        for owner in ["ann", "bob"] {
            fork(owner).create().send(&*store).await.unwrap();
        }
        out.push((backend.name, store));
    }
    out
}

fn numbers(items: &[RepoItem]) -> Vec<u32> {
    items
        .iter()
        .filter_map(|i| match i {
            RepoItem::Issue(i) => Some(i.number),
            RepoItem::Repo(_) => None,
        })
        .collect()
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.into())
}

#[test]
fn the_key_condition_reads_the_members_range() {
    // Issues (ISSUE#...) and the repo (REPO#...): stars (STAR#...) sort outside.
    let q = RepoItem::query(("octo", "cat"));
    let key = &q.request().key_condition;
    assert_eq!(key.partition_value, s("REPO#octo#cat"));
    assert_eq!(
        key.sort,
        Some((
            "SK".to_owned(),
            SortCondition::Between(s("ISSUE#"), s("REPO$"))
        ))
    );
    // A sub-collection: issues only.
    let q = RepoItem::query(("octo", "cat")).only::<Issue>();
    assert_eq!(
        q.request().key_condition.sort,
        Some(("SK".to_owned(), SortCondition::BeginsWith(s("ISSUE#"))))
    );
    // GSI1: "#REPO#..." and "PR#...".
    let q = RepoAndPulls::query(("octo", "cat")).into_query().unwrap();
    let r = q.request();
    assert_eq!(r.index.as_deref(), Some("GSI1"));
    assert_eq!(r.key_condition.partition_name, "GSI1PK");
    assert_eq!(
        r.key_condition.sort,
        Some((
            "GSI1SK".to_owned(),
            SortCondition::Between(s("#REPO#"), s("PR$"))
        ))
    );
    let q = IssueByStatus::query(("octo", "cat"));
    assert_eq!(q.request().index.as_deref(), Some("LSI1"));
    assert_eq!(
        q.request().key_condition.sort,
        Some(("LSI1SK".to_owned(), SortCondition::BeginsWith(s("ISSUE#"))))
    );
}

#[tokio::test]
async fn collections_read_their_members_on_any_index_on_every_backend() {
    for (who, store) in loaded().await {
        let store = &*store;
        // The table: the repo and its issues, in sort-key order; the stars are not read.
        let items = RepoItem::query(("octo", "cat")).all(store).await.unwrap();
        assert_eq!(items.len(), 1 + ISSUES as usize, "{who}");
        assert_eq!(items.last(), Some(&RepoItem::Repo(repo())), "{who}");
        assert_eq!(numbers(&items), (1..=ISSUES).collect::<Vec<_>>(), "{who}");
        let request = RepoItem::query(("octo", "cat")).request().clone();
        let read = store.query(request).await.unwrap();
        assert_eq!(read.scanned_count, 1 + ISSUES as usize, "{who}: items read");
        let whole = store
            .query(dyno_core::store::QueryRequest::new(
                "GitHub",
                None,
                dyno_core::expr::KeyCondition::partition("PK", s("REPO#octo#cat")),
            ))
            .await
            .unwrap();
        assert_eq!(
            whole.scanned_count,
            1 + ISSUES as usize + STARS,
            "{who}: the partition"
        );
        // Sub-collection, descending, limit, pages with cursors, stream.
        let issues = RepoItem::query(("octo", "cat")).only::<Issue>();
        let read = store.query(issues.request().clone()).await.unwrap();
        assert_eq!(read.scanned_count, ISSUES as usize, "{who}");
        let last_two = issues
            .clone()
            .descending()
            .limit(2)
            .all(store)
            .await
            .unwrap();
        assert_eq!(numbers(&last_two), [7, 6], "{who}");
        let q = RepoItem::query(("octo", "cat")).page_size(3);
        let (mut cursor, mut paged) = (None, Vec::new());
        loop {
            let page = q.page(store, cursor.as_ref()).await.unwrap();
            paged.extend(page.items);
            match page.cursor {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        assert_eq!(paged, items, "{who}");
        let streamed: Vec<RepoItem> = RepoItem::query(("octo", "cat"))
            .stream(store)
            .try_collect()
            .await
            .unwrap();
        assert_eq!(streamed, items, "{who}");

        // GSI1: the repo and its pull requests.
        let pulls = RepoAndPulls::query(("octo", "cat"))
            .all(store)
            .await
            .unwrap();
        assert_eq!(pulls.repo, Some(repo()), "{who}");
        assert_eq!(pulls.pulls, (1..=3).map(pull).collect::<Vec<_>>(), "{who}");
        let newest = RepoAndPulls::query(("octo", "cat"))
            .only::<PullRequest>()
            .descending()
            .limit(1)
            .all(store)
            .await
            .unwrap();
        assert_eq!((newest.repo, newest.pulls), (None, vec![pull(3)]), "{who}");
        let q = RepoAndPulls::query(("octo", "cat")).page_size(2);
        let (first, cursor) = q.page(store, None).await.unwrap();
        assert_eq!(
            (first.repo.is_some(), first.pulls.len()),
            (true, 1),
            "{who}"
        );
        let (second, _) = q.page(store, cursor.as_ref()).await.unwrap();
        assert_eq!(second.pulls, vec![pull(2), pull(3)], "{who}");
        let pages: Vec<RepoAndPulls> = RepoAndPulls::query(("octo", "cat"))
            .page_size(2)
            .pages(store)
            .try_collect()
            .await
            .unwrap();
        let streamed: usize = pages.iter().map(|p| p.pulls.len()).sum();
        assert_eq!(streamed, 3, "{who}");

        // GSI2: the repo and its forks; the other repo's partition is apart.
        let forks = RepoAndForks::query(("octo", "cat"))
            .all(store)
            .await
            .unwrap();
        assert_eq!(forks.repo, Some(repo()), "{who}");
        assert_eq!(forks.forks, vec![fork("ann"), fork("bob")], "{who}");
        let dog = RepoAndForks::query(("octo", "dog"))
            .all(store)
            .await
            .unwrap();
        assert_eq!(
            (dog.repo.map(|r| r.name), dog.forks.len()),
            (Some("dog".into()), 0),
            "{who}"
        );

        // LSI1: issues by status.
        let by_status = IssueByStatus::query(("octo", "cat"))
            .descending()
            .all(store)
            .await
            .unwrap();
        let order: Vec<(String, u32)> = by_status
            .into_iter()
            .map(|IssueByStatus::Issue(i)| (i.status, i.number))
            .collect();
        assert_eq!(order.first(), Some(&("open".to_owned(), 7)), "{who}");
        assert_eq!(order.last(), Some(&("closed".to_owned(), 2)), "{who}");
    }
}

/// A topic's comments at `C#{id}` and their replies at `C#R#{id}`: the replies' prefix extends
/// the comments'.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = GitHub, pk = "TOPIC#{topic}", sk = "C#{id}")]
pub struct TopicComment {
    pub topic: String,
    pub id: String,
    pub votes: u32,
}

#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = GitHub, pk = "TOPIC#{topic}", sk = "C#R#{id}")]
pub struct TopicReply {
    pub topic: String,
    pub id: String,
    pub votes: u32,
}

#[derive(Debug, Clone, PartialEq, Collection)]
pub enum TopicThread {
    TopicComment(TopicComment),
    TopicReply(TopicReply),
}

#[tokio::test]
async fn nested_prefixes_read_every_member_and_only_narrows_to_one() {
    for backend in backends().await {
        let who = backend.name;
        let store: Arc<dyn Store> = Arc::new(
            TableNames::new(backend.store.clone()).map("GitHub", unique_table_name("topics")),
        );
        let store = &*store;
        store.create_table(GitHub::definition()).await.unwrap();
        // Comment ids sort on both sides of the replies' `R`: `C#A` < `C#R#..` < `C#S`.
        for (id, votes) in [("A", 1), ("Q", 2), ("S", 3), ("z", 4)] {
            let c = TopicComment {
                topic: "t".into(),
                id: id.into(),
                votes,
            };
            c.create().send(store).await.unwrap();
        }
        for (id, votes) in [("1", 5), ("2", 0)] {
            let r = TopicReply {
                topic: "t".into(),
                id: id.into(),
                votes,
            };
            r.create().send(store).await.unwrap();
        }
        let comments = |items: &[TopicThread]| -> Vec<String> {
            items
                .iter()
                .filter_map(|i| match i {
                    TopicThread::TopicComment(c) => Some(c.id.clone()),
                    TopicThread::TopicReply(_) => None,
                })
                .collect()
        };
        let all = TopicThread::query("t").all(store).await.unwrap();
        assert_eq!(all.len(), 6, "{who}: {all:?}");
        assert_eq!(comments(&all), ["A", "Q", "S", "z"], "{who}");

        // Only the comments (the replies share their prefix), counted by the limit.
        let only = TopicThread::query("t").only::<TopicComment>();
        assert_eq!(comments(&only.clone().all(store).await.unwrap()).len(), 4);
        let last = only.clone().descending().limit(2).all(store).await.unwrap();
        assert_eq!(
            (last.len(), comments(&last)),
            (2, vec!["z".to_owned(), "S".to_owned()]),
            "{who}"
        );
        assert_eq!(only.count(store).await.unwrap(), 4, "{who}");
        let replies = TopicThread::query("t")
            .only::<TopicReply>()
            .all(store)
            .await
            .unwrap();
        assert_eq!((replies.len(), comments(&replies).len()), (2, 0), "{who}");

        // A filter for the comments only keeps every reply; a plain one applies to all.
        let q = TopicThread::query("t").filter_member(TopicComment::VOTES.ge(3u32));
        let filtered = q.all(store).await.unwrap();
        assert_eq!(comments(&filtered), ["S", "z"], "{who}");
        assert_eq!(filtered.len(), 4, "{who}: both replies kept");
        let plain = TopicThread::query("t")
            .filter(TopicComment::VOTES.ge(3u32))
            .all(store)
            .await
            .unwrap();
        assert_eq!(plain.len(), 3, "{who}: S, z and the reply with 5 votes");
    }
}
