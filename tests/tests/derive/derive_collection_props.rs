//! Collections, by construction: a generated test that every collection query
//! returns exactly the union of its members' own queries, in sort order, respecting
//! `descending`, `limit`, page sizes, cursors, `.only::<E>()` and filters.
//!
//! Derives are compile-time, so the model space is laid out once, to hold the prefix shapes a
//! collection meets: nested (`C#{id}` and `C#R#{id}`), equal (`N#{id}` twice), a field first
//! (`{day}#{id}`, whose days spell other members' prefixes), a constant key (`PROFILE`), and
//! non-members inside and around the members' ranges (`C#S#{id}`, `A#{id}`, `Z#{id}`). Every
//! entity has keys in the table, in GSI1 (templates of the same shapes) and in the
//! multi-attribute index ByP, and the collections read them in enum and struct forms. The data
//! (items of members and non-members in two partitions, ids that sort around the prefixes'
//! letters) and the queries are random.
//!
//! The property: for each query, the collection's result equals the members' own typed
//! queries (`Comment::query(board)`, `Comment::gsi1(board)`, `Comment::by_p(board)`; only `E`'s
//! for `.only::<E>()`; with the same filter for a plain filter, with it on `E`'s query only for
//! `.filter_member`), merged by sort key, reversed when descending, cut at the limit (struct
//! forms compare each member's list).
//!
//! Cases: `PROPTEST_CASES` on MemoryStore (48 by default, a few seconds), and
//! `DYNO_SERVER_CASES` on dynoxide (8 by default) when `DYNO_DYNOXIDE_ENDPOINT` is set.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use dyno_core::prelude::*;
use dyno_core::store::TableNames;
use dyno_core::{AttributeValue, Collection, Entity, Item, MemoryStore, Store, Table};
use dyno_tests::backend::{backends, unique_table_name, BackendKind};
use futures::TryStreamExt;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

#[derive(Table)]
#[dyno(name = "Props", pk = "PK", sk = "SK")]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
#[dyno(index(name = "ByP", pk = ["board"], sk = ["id"]))]
pub struct Props;

/// A comment: `C#{id}`.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Props, pk = "P#{board}", sk = "C#{id}")]
#[dyno(index(GSI1, pk = "G#{board}", sk = "X#{id}"))]
#[dyno(index(ByP, pk = [board], sk = [id]))]
pub struct Comment {
    pub board: String,
    pub id: String,
    pub day: String,
    pub score: u8,
}

/// A reply, nested inside the comments' prefix: `C#R#{id}`.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Props, pk = "P#{board}", sk = "C#R#{id}")]
#[dyno(index(GSI1, pk = "G#{board}", sk = "X#R#{id}"))]
#[dyno(index(ByP, pk = [board], sk = [id]))]
pub struct Reply {
    pub board: String,
    pub id: String,
    pub day: String,
    pub score: u8,
}

/// A note: `N#{id}`.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Props, pk = "P#{board}", sk = "N#{id}")]
#[dyno(index(GSI1, pk = "G#{board}", sk = "Y#{id}"))]
#[dyno(index(ByP, pk = [board], sk = [id]))]
pub struct Note {
    pub board: String,
    pub id: String,
    pub day: String,
    pub score: u8,
}

/// Another entity with the notes' key shape (an equal prefix).
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Props, pk = "P#{board}", sk = "N#{id}")]
#[dyno(index(GSI1, pk = "G#{board}", sk = "Y#{id}"))]
#[dyno(index(ByP, pk = [board], sk = [id]))]
pub struct NoteTwin {
    pub board: String,
    pub id: String,
    pub day: String,
    pub score: u8,
}

/// A field first: `{day}#{id}` (days such as `C`, `N`, `X` sort among the other prefixes).
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Props, pk = "P#{board}", sk = "{day}#{id}")]
#[dyno(index(GSI1, pk = "G#{board}", sk = "{day}#{id}"))]
#[dyno(index(ByP, pk = [board], sk = [id]))]
pub struct Dated {
    pub board: String,
    pub id: String,
    pub day: String,
    pub score: u8,
}

/// A constant sort key: one per board.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Props, pk = "P#{board}", sk = "PROFILE")]
#[dyno(index(GSI1, pk = "G#{board}", sk = "PROFILE"))]
#[dyno(index(ByP, pk = [board], sk = [id]))]
pub struct Profile {
    pub board: String,
    pub id: String,
    pub day: String,
    pub score: u8,
}

/// Not a member of any collection, inside the comments' prefix: `C#S#{id}`.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Props, pk = "P#{board}", sk = "C#S#{id}")]
#[dyno(index(GSI1, pk = "G#{board}", sk = "X#S#{id}"))]
#[dyno(index(ByP, pk = [board], sk = [id]))]
pub struct Star {
    pub board: String,
    pub id: String,
    pub day: String,
    pub score: u8,
}

/// Not a member, below the members' prefixes (and field first in GSI1).
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Props, pk = "P#{board}", sk = "A#{id}")]
#[dyno(index(GSI1, pk = "G#{board}", sk = "{day}#{id}"))]
#[dyno(index(ByP, pk = [board], sk = [id]))]
pub struct Early {
    pub board: String,
    pub id: String,
    pub day: String,
    pub score: u8,
}

/// Not a member, above the members' prefixes.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Props, pk = "P#{board}", sk = "Z#{id}")]
#[dyno(index(GSI1, pk = "G#{board}", sk = "Z#{id}"))]
#[dyno(index(ByP, pk = [board], sk = [id]))]
pub struct Late {
    pub board: String,
    pub id: String,
    pub day: String,
    pub score: u8,
}

/// Nested prefixes.
#[derive(Debug, Clone, PartialEq, Collection)]
pub enum Thread {
    Comment(Comment),
    Reply(Reply),
}

/// Equal prefixes.
#[derive(Debug, Clone, PartialEq, Collection)]
pub enum Twins {
    Note(Note),
    NoteTwin(NoteTwin),
}

/// A field first and a constant key, struct form.
#[derive(Debug, Clone, PartialEq, Collection)]
pub struct Mixed {
    pub comments: Vec<Comment>,
    pub dated: Vec<Dated>,
    pub profile: Option<Profile>,
}

/// Every shape at once.
#[derive(Debug, Clone, PartialEq, Collection)]
pub enum Board {
    Comment(Comment),
    Reply(Reply),
    Note(Note),
    NoteTwin(NoteTwin),
    Dated(Dated),
    Profile(Profile),
}

/// Nested prefixes in a template index.
#[derive(Debug, Clone, PartialEq, Collection)]
#[dyno(index = GSI1)]
pub enum GThread {
    Comment(Comment),
    Reply(Reply),
}

/// Every shape in a template index, struct form.
#[derive(Debug, Clone, PartialEq, Collection)]
#[dyno(index = GSI1)]
pub struct GBoard {
    pub comments: Vec<Comment>,
    pub replies: Vec<Reply>,
    pub notes: Vec<Note>,
    pub twins: Vec<NoteTwin>,
    pub dated: Vec<Dated>,
    pub profile: Option<Profile>,
}

/// On the multi-attribute index, read from `Comment::by_p(board).collection::<Ranked>()`.
#[derive(Debug, Clone, PartialEq, Collection)]
#[dyno(index = ByP)]
pub enum Ranked {
    Comment(Comment),
    Reply(Reply),
    Dated(Dated),
}

/// One item: its entity type and the item as the entity writes it.
type Row = (&'static str, Item);

/// An item to write: which entity (0..9), board, id, day, score.
#[derive(Debug, Clone)]
struct Spec {
    kind: usize,
    board: usize,
    id: String,
    day: String,
    score: u8,
}

const BOARDS: [&str; 2] = ["b0", "b1"];

#[derive(Debug, Clone, Copy, PartialEq)]
enum Read {
    All,
    Pages,
    Stream,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum RawFilter {
    None,
    /// A plain filter `score >= k`: it applies to every item.
    Plain(u8),
    /// `.filter_member` on the member at this index: `score >= k` for it only.
    Member(usize, u8),
}

/// A query, before it is fitted to a collection's members.
#[derive(Debug, Clone)]
struct RawQuery {
    collection: usize,
    board: usize,
    descending: bool,
    limit: Option<usize>,
    page_size: Option<u32>,
    read: Read,
    only: Option<usize>,
    filter: RawFilter,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Filter {
    None,
    Plain(u8),
    Member(&'static str, u8),
}

/// A query fitted to a collection: members named by entity type.
#[derive(Debug, Clone)]
struct Params {
    board: &'static str,
    descending: bool,
    limit: Option<usize>,
    page_size: Option<u32>,
    read: Read,
    only: Option<&'static str>,
    filter: Filter,
}

impl RawQuery {
    fn fit(&self, members: &[&'static str]) -> Params {
        Params {
            board: BOARDS[self.board],
            descending: self.descending,
            limit: self.limit,
            page_size: self.page_size,
            read: self.read,
            only: self.only.map(|i| members[i % members.len()]),
            filter: match self.filter {
                RawFilter::None => Filter::None,
                RawFilter::Plain(k) => Filter::Plain(k),
                RawFilter::Member(i, k) => Filter::Member(members[i % members.len()], k),
            },
        }
    }
}

/// Applies the options to a collection's query, in any of its forms.
macro_rules! options {
    ($q:expr, $p:expr, $first:ident, [$($m:ident),+]) => {{
        let p: &Params = $p;
        let mut q = $q;
        if p.descending {
            q = q.descending();
        }
        if let Some(n) = p.limit {
            q = q.limit(n);
        }
        if let Some(n) = p.page_size {
            q = q.page_size(n);
        }
        $(if p.only == Some($m::ENTITY_TYPE) {
            q = q.only::<$m>();
        })+
        match p.filter {
            Filter::None => {}
            Filter::Plain(k) => q = q.filter($first::SCORE.ge(k)),
            Filter::Member(name, k) => {
                $(if name == $m::ENTITY_TYPE {
                    q = q.filter_member($m::SCORE.ge(k));
                })+
            }
        }
        q
    }};
}

/// Reads an enum collection's query (or a multi-attribute one) as `p.read` says.
macro_rules! read_items {
    ($q:expr, $store:expr, $read:expr) => {{
        let q = $q;
        match $read {
            Read::All => q.all($store).await.unwrap(),
            Read::Pages => {
                let (mut out, mut cursor) = (Vec::new(), None);
                loop {
                    let page = q.page($store, cursor.as_ref()).await.unwrap();
                    out.extend(page.items);
                    match page.cursor {
                        Some(c) => cursor = Some(c),
                        None => break out,
                    }
                }
            }
            Read::Stream => q.stream($store).try_collect::<Vec<_>>().await.unwrap(),
        }
    }};
}

/// The rows of an enum collection's items (variants are named after their entities).
macro_rules! enum_rows {
    ($items:expr, $c:ident, [$($m:ident),+]) => {
        $items
            .into_iter()
            .map(|x| match x {
                $($c::$m(e) => ($m::ENTITY_TYPE, e.to_item().unwrap()),)+
            })
            .collect::<Vec<Row>>()
    };
}

/// Reads a struct collection's query as `p.read` says, into rows (grouped per page).
macro_rules! struct_rows {
    ($q:expr, $store:expr, $read:expr, [$($f:ident: $m:ident),+]) => {{
        let q = $q;
        let groups = match $read {
            Read::All => vec![q.all($store).await.unwrap()],
            Read::Pages => {
                let (mut out, mut cursor) = (Vec::new(), None);
                loop {
                    let (group, next) = q.page($store, cursor.as_ref()).await.unwrap();
                    out.push(group);
                    match next {
                        Some(c) => cursor = Some(c),
                        None => break out,
                    }
                }
            }
            Read::Stream => q.pages($store).try_collect::<Vec<_>>().await.unwrap(),
        };
        let mut rows: Vec<Row> = Vec::new();
        for g in groups {
            // A `Vec` field, or an `Option` one.
            $(g.$f.into_iter().for_each(|e: $m| {
                rows.push(($m::ENTITY_TYPE, e.to_item().unwrap()));
            });)+
        }
        rows
    }};
}

/// The union of the members' own queries (`$m::$own(board)`), sorted by `$sk`, reversed when
/// descending, cut at the limit.
macro_rules! expected {
    ($store:expr, $p:expr, $own:ident, $sk:literal, [$($m:ident),+]) => {{
        let p: &Params = $p;
        let mut rows: Vec<Row> = Vec::new();
        $(if p.only.is_none_or(|o| o == $m::ENTITY_TYPE) {
            let mut q = $m::$own(p.board);
            match p.filter {
                Filter::Plain(k) => q = q.filter($m::SCORE.ge(k)),
                Filter::Member(name, k) if name == $m::ENTITY_TYPE => q = q.filter($m::SCORE.ge(k)),
                _ => {}
            }
            for e in q.all($store).await.unwrap() {
                rows.push(($m::ENTITY_TYPE, e.to_item().unwrap()));
            }
        })+
        rows.sort_by(|a, b| sort_key(&a.1, $sk).cmp(sort_key(&b.1, $sk)));
        if p.descending {
            rows.reverse();
        }
        if let Some(n) = p.limit {
            rows.truncate(n);
        }
        rows
    }};
}

fn sort_key<'a>(item: &'a Item, attribute: &str) -> &'a str {
    match item.get(attribute) {
        Some(AttributeValue::S(s)) => s,
        other => panic!("sort key {attribute}: {other:?} in {item:?}"),
    }
}

/// Each member's rows, in order (what a struct form can be compared by).
fn grouped(rows: &[Row]) -> BTreeMap<&'static str, Vec<Item>> {
    let mut out: BTreeMap<&'static str, Vec<Item>> = BTreeMap::new();
    for (t, item) in rows {
        out.entry(t).or_default().push(item.clone());
    }
    out
}

fn show(rows: &[Row], sk: &str) -> Vec<String> {
    rows.iter()
        .map(|(t, item)| format!("{t} {}", sort_key(item, sk)))
        .collect()
}

fn compare(
    name: &str,
    p: &Params,
    sk: &str,
    got: &[Row],
    want: &[Row],
    grouped_only: bool,
) -> Result<(), String> {
    let same = if grouped_only {
        grouped(got) == grouped(want)
    } else {
        got == want
    };
    if same {
        Ok(())
    } else {
        Err(format!(
            "{name} {p:?}:\n  collection: {:?}\n  members:    {:?}",
            show(got, sk),
            show(want, sk)
        ))
    }
}

/// Runs one query on the collection it names and compares it with its members' queries.
async fn check(store: &dyn Store, q: &RawQuery) -> Result<(), String> {
    match q.collection {
        0 => {
            let p = q.fit(&[Comment::ENTITY_TYPE, Reply::ENTITY_TYPE]);
            let query = options!(Thread::query(p.board), &p, Comment, [Comment, Reply]);
            let got = enum_rows!(read_items!(query, store, p.read), Thread, [Comment, Reply]);
            let want = expected!(store, &p, query, "SK", [Comment, Reply]);
            compare("Thread", &p, "SK", &got, &want, false)
        }
        1 => {
            let p = q.fit(&[Note::ENTITY_TYPE, NoteTwin::ENTITY_TYPE]);
            let query = options!(Twins::query(p.board), &p, Note, [Note, NoteTwin]);
            let got = enum_rows!(read_items!(query, store, p.read), Twins, [Note, NoteTwin]);
            let want = expected!(store, &p, query, "SK", [Note, NoteTwin]);
            compare("Twins", &p, "SK", &got, &want, false)
        }
        2 => {
            let p = q.fit(&[
                Comment::ENTITY_TYPE,
                Dated::ENTITY_TYPE,
                Profile::ENTITY_TYPE,
            ]);
            let query = options!(
                Mixed::query(p.board),
                &p,
                Comment,
                [Comment, Dated, Profile]
            );
            let got = struct_rows!(
                query,
                store,
                p.read,
                [comments: Comment, dated: Dated, profile: Profile]
            );
            let want = expected!(store, &p, query, "SK", [Comment, Dated, Profile]);
            compare("Mixed", &p, "SK", &got, &want, true)
        }
        3 => {
            let p = q.fit(&[
                Comment::ENTITY_TYPE,
                Reply::ENTITY_TYPE,
                Note::ENTITY_TYPE,
                NoteTwin::ENTITY_TYPE,
                Dated::ENTITY_TYPE,
                Profile::ENTITY_TYPE,
            ]);
            let query = options!(
                Board::query(p.board),
                &p,
                Comment,
                [Comment, Reply, Note, NoteTwin, Dated, Profile]
            );
            let got = enum_rows!(
                read_items!(query, store, p.read),
                Board,
                [Comment, Reply, Note, NoteTwin, Dated, Profile]
            );
            let want = expected!(
                store,
                &p,
                query,
                "SK",
                [Comment, Reply, Note, NoteTwin, Dated, Profile]
            );
            compare("Board", &p, "SK", &got, &want, false)
        }
        4 => {
            let p = q.fit(&[Comment::ENTITY_TYPE, Reply::ENTITY_TYPE]);
            let query = options!(GThread::query(p.board), &p, Comment, [Comment, Reply]);
            let got = enum_rows!(read_items!(query, store, p.read), GThread, [Comment, Reply]);
            let want = expected!(store, &p, gsi1, "GSI1SK", [Comment, Reply]);
            compare("GThread", &p, "GSI1SK", &got, &want, false)
        }
        5 => {
            let p = q.fit(&[
                Comment::ENTITY_TYPE,
                Reply::ENTITY_TYPE,
                Note::ENTITY_TYPE,
                NoteTwin::ENTITY_TYPE,
                Dated::ENTITY_TYPE,
                Profile::ENTITY_TYPE,
            ]);
            let query = options!(
                GBoard::query(p.board),
                &p,
                Comment,
                [Comment, Reply, Note, NoteTwin, Dated, Profile]
            );
            let got = struct_rows!(
                query,
                store,
                p.read,
                [comments: Comment, replies: Reply, notes: Note, twins: NoteTwin, dated: Dated, profile: Profile]
            );
            let want = expected!(
                store,
                &p,
                gsi1,
                "GSI1SK",
                [Comment, Reply, Note, NoteTwin, Dated, Profile]
            );
            compare("GBoard", &p, "GSI1SK", &got, &want, true)
        }
        _ => {
            let p = q.fit(&[Comment::ENTITY_TYPE, Reply::ENTITY_TYPE, Dated::ENTITY_TYPE]);
            let query = options!(
                Comment::by_p(p.board).collection::<Ranked>(),
                &p,
                Comment,
                [Comment, Reply, Dated]
            );
            let got = enum_rows!(
                read_items!(query, store, p.read),
                Ranked,
                [Comment, Reply, Dated]
            );
            let want = expected!(store, &p, by_p, "id", [Comment, Reply, Dated]);
            compare("Ranked", &p, "id", &got, &want, false)
        }
    }
}

/// Writes the items (the first of each id: ids are unique, so index sort keys never tie).
async fn write(store: &dyn Store, specs: &[Spec]) {
    let mut seen = HashSet::new();
    for s in specs {
        if !seen.insert(s.id.clone()) {
            continue;
        }
        let (board, id, day, score) = (
            BOARDS[s.board].to_owned(),
            s.id.clone(),
            s.day.clone(),
            s.score,
        );
        macro_rules! put {
            ($t:ident) => {
                $t {
                    board,
                    id,
                    day,
                    score,
                }
                .put()
                .send(store)
                .await
                .unwrap()
            };
        }
        match s.kind {
            0 => put!(Comment),
            1 => put!(Reply),
            2 => put!(Note),
            3 => put!(NoteTwin),
            4 => put!(Dated),
            5 => put!(Profile),
            6 => put!(Star),
            7 => put!(Early),
            _ => put!(Late),
        }
    }
}

/// Ids and days from characters that sort around the prefixes' letters (`R` and `S` around the
/// replies' and stars' `C#R#` and `C#S#`; `C`, `N`, `X`, `Y` as days spell members' prefixes).
fn spec() -> impl Strategy<Value = Spec> {
    let id = proptest::collection::vec(
        prop::sample::select(vec!['0', 'A', 'Q', 'R', 'S', 'a', 'z', '~']),
        1..4,
    )
    .prop_map(|cs| cs.into_iter().collect::<String>());
    let day = prop::sample::select(vec!["0", "A", "C", "N", "PROFILE", "R", "X", "Y", "Z", "~"]);
    (0..9usize, 0..2usize, id, day, 0..5u8).prop_map(|(kind, board, id, day, score)| Spec {
        kind,
        board,
        id,
        day: day.to_owned(),
        score,
    })
}

fn query() -> impl Strategy<Value = RawQuery> {
    let read = prop::sample::select(vec![Read::All, Read::Pages, Read::Stream]);
    let filter = prop_oneof![
        2 => Just(RawFilter::None),
        1 => (0..5u8).prop_map(RawFilter::Plain),
        1 => (0..6usize, 0..5u8).prop_map(|(i, k)| RawFilter::Member(i, k)),
    ];
    (
        0..7usize,
        0..2usize,
        any::<bool>(),
        prop::option::of(0..12usize),
        prop::option::of(1..6u32),
        read,
        prop::option::of(0..6usize),
        filter,
    )
        .prop_map(
            |(collection, board, descending, limit, page_size, read, only, filter)| RawQuery {
                collection,
                board,
                descending,
                limit,
                page_size,
                read,
                only,
                filter,
            },
        )
}

fn cases(var: &str, default: u32) -> u32 {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn every_collection_query_is_the_union_of_its_members_queries() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let servers: Vec<_> = rt
        .block_on(backends())
        .into_iter()
        .filter(|b| b.kind == BackendKind::Dynoxide)
        .collect();
    let strategy = (
        proptest::collection::vec(spec(), 0..40),
        proptest::collection::vec(query(), 1..10),
    );
    // (backend, its server (MemoryStore: a fresh one per case), cases)
    type Run<'a> = (&'a str, Option<Arc<dyn Store>>, u32);
    let mut runs: Vec<Run<'_>> = vec![("memory", None, cases("PROPTEST_CASES", 48))];
    for b in &servers {
        runs.push((b.name, Some(b.store.clone()), cases("DYNO_SERVER_CASES", 8)));
    }
    for (name, server, cases) in runs {
        let mut runner = TestRunner::new(Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        });
        let result = runner.run(&strategy, |(specs, queries)| {
            rt.block_on(async {
                let (store, table): (Arc<dyn Store>, Option<String>) = match &server {
                    None => (Arc::new(MemoryStore::new()), None),
                    Some(s) => {
                        let table = unique_table_name("props");
                        let mapped = TableNames::new(s.clone()).map("Props", table.clone());
                        (Arc::new(mapped), Some(table))
                    }
                };
                store.create_table(Props::definition()).await.unwrap();
                write(&*store, &specs).await;
                let mut outcome = Ok(());
                for q in &queries {
                    if let Err(e) = check(&*store, q).await {
                        outcome = Err(TestCaseError::fail(e));
                        break;
                    }
                }
                if table.is_some() {
                    let _ = store.delete_table("Props").await;
                }
                outcome
            })
        });
        if let Err(e) = result {
            panic!("{name}: {e}");
        }
    }
}
