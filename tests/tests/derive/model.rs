//! The model as data (`dyno_core::model`): what the derives describe at run time, the design
//! document, the NoSQL Workbench file (checked against AWS's published sample,
//! `tests/fixtures/workbench/`) and the CreateTable body, from one description. The model:
//! several entities sharing `GSI1` (named and unnamed queries), a multi-attribute index, stamps,
//! a version, TTL, and a named collection; items read back from MemoryStore and the servers.

use std::collections::BTreeMap;
use std::sync::Arc;

use dyno_core::model::{FieldRole, IndexKeys, Model, WORKBENCH_FORMAT_VERSION};
use dyno_core::prelude::*;
use dyno_core::store::TableNames;
use dyno_core::{Collection, Entity, KeyPart, Store, Table};
use dyno_tests::backend::{backends, create_multi_attribute_table, unique_table_name};
use serde_json::Value;
use time::OffsetDateTime;

#[derive(Table)]
#[dyno(name = "Studio", pk = "PK", sk = "SK", ttl = "ttl")]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
#[dyno(index(name = "ByTenant", pk = ["tenant", "state"], sk = ["rank:N"]))]
#[dyno(entities(Account, Project, Task, Comment), collections(ProjectItems))]
pub struct Studio;

#[derive(Debug, Clone, Copy, PartialEq, Eq, KeyPart)]
pub enum Stage {
    Draft,
    Live,
}

#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Studio, pk = "ACCOUNT#{account}", sk = "ACCOUNT")]
pub struct Account {
    pub account: String,
    pub email: String,
    #[dyno(created_at)]
    pub created: Option<OffsetDateTime>,
    #[dyno(updated_at)]
    pub updated: Option<OffsetDateTime>,
    #[dyno(version)]
    pub version: u64,
}

#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Studio, pk = "PROJECT#{project}", sk = "PROJECT")]
#[dyno(index(GSI1, pk = "STAGE#{stage}", sk = "{budget}", query = "by_stage"))]
pub struct Project {
    pub project: String,
    pub stage: Stage,
    pub budget: u32,
}

#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Studio, pk = "PROJECT#{project}", sk = "TASK#{task}")]
#[dyno(index(GSI1, pk = "OWNER#{owner}", sk = "{due}", query = "tasks_of_owner"))]
#[dyno(index(ByTenant, pk = [tenant, state], sk = [rank], query = "board"))]
pub struct Task {
    pub project: String,
    pub task: String,
    pub owner: String,
    pub due: String,
    pub tenant: String,
    pub state: String,
    pub rank: u32,
    pub labels: Vec<String>,
    #[dyno(ttl)]
    pub expires: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Studio, pk = "PROJECT#{project}", sk = "COMMENT#{id}")]
#[dyno(index(GSI1, pk = "AUTHOR#{author}", sk = "{id}"))]
pub struct Comment {
    pub project: String,
    pub id: String,
    pub author: String,
    pub done: bool,
}

/// A project with its tasks and comments.
#[derive(Debug, Clone, PartialEq, Collection)]
#[dyno(query = "project_page")]
pub enum ProjectItems {
    Project(Project),
    Task(Task),
    Comment(Comment),
}

fn model() -> Model {
    Studio::model()
}

#[test]
fn the_model_describes_every_entity_from_its_declaration() {
    let m = model();
    assert_eq!(m.table, *Studio::definition());
    assert_eq!(m.entity_attribute, "_type");
    let names: Vec<&str> = m.entities.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["Account", "Project", "Task", "Comment"]);

    let account = m.entity("Account").unwrap();
    assert_eq!(
        (account.pk.as_str(), account.sk.as_deref()),
        ("ACCOUNT#{account}", Some("ACCOUNT"))
    );
    assert_eq!(account.version.as_deref(), Some("version"));
    assert_eq!(account.created_at.as_deref(), Some("created"));
    assert_eq!(account.updated_at.as_deref(), Some("updated"));
    let roles: Vec<(&str, FieldRole, bool)> = account
        .fields
        .iter()
        .map(|f| (f.name.as_str(), f.role, f.in_key))
        .collect();
    assert_eq!(
        roles,
        [
            ("account", FieldRole::Plain, true),
            ("email", FieldRole::Plain, false),
            ("created", FieldRole::CreatedAt, false),
            ("updated", FieldRole::UpdatedAt, false),
            ("version", FieldRole::Version, false),
        ]
    );
    assert_eq!(account.fields[2].rust_type, "Option<OffsetDateTime>");

    let task = m.entity("Task").unwrap();
    assert_eq!(task.ttl.as_deref(), Some("ttl"));
    let expires = task.fields.iter().find(|f| f.name == "expires").unwrap();
    assert_eq!(
        (expires.attribute.as_str(), expires.role),
        ("ttl", FieldRole::Ttl)
    );
    let gsi1 = task.index("GSI1").unwrap();
    assert_eq!((gsi1.query.as_str(), gsi1.named), ("tasks_of_owner", true));
    assert_eq!(
        gsi1.keys,
        IndexKeys::Templates {
            pk: "OWNER#{owner}".into(),
            sk: Some("{due}".into()),
            shards: 0
        }
    );
    let board = task.index("ByTenant").unwrap();
    assert_eq!(board.query, "board");
    assert_eq!(
        board.keys,
        IndexKeys::Attributes {
            partition: vec!["tenant".into(), "state".into()],
            sort: vec!["rank".into()]
        }
    );
    // Unnamed: the index's own name, as the constructor is called.
    let comment = m.entity("Comment").unwrap().index("GSI1").unwrap();
    assert_eq!((comment.query.as_str(), comment.named), ("gsi1", false));

    let c = &m.collections[0];
    assert_eq!(
        (c.name.as_str(), c.query.as_str(), c.index.as_deref()),
        ("ProjectItems", "project_page", None)
    );
    assert_eq!(c.members, ["Project", "Task", "Comment"]);
}

#[test]
fn access_patterns_name_index_condition_and_entities() {
    /// Name, index, key condition, sort key, entities returned.
    type Row = (String, Option<String>, String, Option<String>, Vec<String>);
    let rows: Vec<Row> = model()
        .access_patterns()
        .into_iter()
        .map(|p| (p.name, p.index, p.key_condition, p.sort_key, p.returns))
        .collect();
    let row = |name: &str| {
        rows.iter()
            .find(|r| r.0 == name)
            .unwrap_or_else(|| panic!("{name}: {rows:?}"))
            .clone()
    };
    let s = |v: &str| v.to_owned();
    assert_eq!(
        row("Project::by_stage"),
        (
            s("Project::by_stage"),
            Some(s("GSI1")),
            s("GSI1PK = STAGE#{stage}"),
            Some(s("GSI1SK: {budget}")),
            vec![s("Project")]
        )
    );
    assert_eq!(
        row("Task::board"),
        (
            s("Task::board"),
            Some(s("ByTenant")),
            s("tenant = {tenant} AND state = {state}"),
            Some(s("rank: {rank}")),
            vec![s("Task")]
        )
    );
    assert_eq!(row("Comment::gsi1").2, "GSI1PK = AUTHOR#{author}");
    assert_eq!(
        row("ProjectItems::project_page"),
        (
            s("ProjectItems::project_page"),
            None,
            s("PK = PROJECT#{project}"),
            None,
            vec![s("Project"), s("Task"), s("Comment")]
        )
    );
    assert_eq!(
        row("Task::query"),
        (
            s("Task::query"),
            None,
            s("PK = PROJECT#{project}"),
            Some(s("SK: TASK#{task}")),
            vec![s("Task")]
        )
    );
    // Four entities' table queries, four index mappings, one collection.
    assert_eq!(rows.len(), 9);
}

#[test]
fn the_design_document_charts_entities_and_access_patterns() {
    let doc = model().design_document();
    for line in [
        "# Table `Studio`",
        "| Entity | PK | SK | GSI1PK | GSI1SK | tenant | state | rank |",
        "| Account | ACCOUNT#{account} | ACCOUNT |  |  |  |  |  |",
        "| Task | PROJECT#{project} | TASK#{task} | OWNER#{owner} | {due} | {tenant} | {state} | {rank} |",
        "| Comment | PROJECT#{project} | COMMENT#{id} | AUTHOR#{author} | {id} |  |  |  |",
        "| `Task::tasks_of_owner` | GSI1 | GSI1PK = OWNER#{owner} | GSI1SK: {due} | Task |",
        "| `ProjectItems::project_page` | table | PK = PROJECT#{project} |  | Project, Task, Comment |",
        "| ByTenant | global | tenant (S) + state (S) | rank (N) | all |",
        "Stamps: version `version`, created at `created`, updated at `updated`.",
        "| expires | ttl | `Option<u64>` |  | TTL |",
    ] {
        assert!(doc.lines().any(|l| l == line), "missing {line:?} in\n{doc}");
    }
}

#[test]
fn create_table_and_cloudformation_come_from_the_same_description() {
    let m = model();
    assert_eq!(
        m.to_create_table_json(),
        Studio::definition().to_create_table_json()
    );
    assert_eq!(
        m.to_cloudformation_json()["Properties"]["TimeToLiveSpecification"]["AttributeName"],
        "ttl"
    );
}

/// The shape of a JSON value: objects by key, arrays as the union of their elements' shapes,
/// scalars by type. `TableData` items are keyed by the model's attribute names, so they are
/// reduced to the shape of one typed value (`{"S": string}`).
#[derive(Debug, Clone, PartialEq)]
enum Shape {
    Object(BTreeMap<String, Shape>),
    Array(Option<Box<Shape>>),
    String,
    Number,
    Bool,
    Null,
    /// An item: attribute name to DynamoDB-JSON value.
    Item,
}

/// Keys the format leaves out where they do not apply (an index or table without a sort key).
const OPTIONAL: &[&str] = &["SortKey", "SortKeyAlias"];

fn merge(a: Shape, b: Shape) -> Shape {
    match (a, b) {
        (Shape::Object(mut a), Shape::Object(b)) => {
            // Elements of one array have the same keys, optional ones aside.
            for k in a
                .keys()
                .filter(|k| !b.contains_key(*k))
                .chain(b.keys().filter(|k| !a.contains_key(*k)))
            {
                assert!(
                    OPTIONAL.contains(&k.as_str()),
                    "`{k}` is in some elements of an array only"
                );
            }
            for (k, v) in b {
                let merged = match a.remove(&k) {
                    Some(old) => merge(old, v),
                    None => v,
                };
                a.insert(k, merged);
            }
            Shape::Object(a)
        }
        (Shape::Array(a), Shape::Array(b)) => Shape::Array(match (a, b) {
            (Some(a), Some(b)) => Some(Box::new(merge(*a, *b))),
            (a, b) => a.or(b),
        }),
        (a, b) => {
            assert_eq!(a, b, "one key holds values of two types");
            a
        }
    }
}

fn shape(v: &Value, key: &str) -> Shape {
    match v {
        Value::Object(_) if key == "TableData[]" => {
            for (name, typed) in v.as_object().unwrap() {
                let typed = typed
                    .as_object()
                    .unwrap_or_else(|| panic!("{name}: {typed}"));
                assert_eq!(typed.len(), 1, "{name}: one type per value");
                let ty = typed.keys().next().unwrap();
                assert!(
                    ["S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"]
                        .contains(&ty.as_str()),
                    "{name}: {ty}"
                );
            }
            Shape::Item
        }
        Value::Object(o) => {
            Shape::Object(o.iter().map(|(k, v)| (k.clone(), shape(v, k))).collect())
        }
        Value::Array(a) => Shape::Array(
            a.iter()
                .map(|e| shape(e, &format!("{key}[]")))
                .reduce(merge)
                .map(Box::new),
        ),
        Value::String(_) => Shape::String,
        Value::Number(_) => Shape::Number,
        Value::Bool(_) => Shape::Bool,
        Value::Null => Shape::Null,
    }
}

fn sample() -> Value {
    let text = include_str!("../../fixtures/workbench/AnOnlineShop_facets.json");
    serde_json::from_str(text).expect("the published sample parses")
}

async fn loaded() -> Vec<(&'static str, Arc<dyn Store>)> {
    let mut out = Vec::new();
    for backend in backends().await {
        let store: Arc<dyn Store> = Arc::new(
            TableNames::new(backend.store.clone()).map("Studio", unique_table_name("studio")),
        );
        if !create_multi_attribute_table(&backend, &*store, Studio::definition()).await {
            continue;
        }
        let account = Account {
            account: "a1".into(),
            email: "ann@example.com".into(),
            created: None,
            updated: None,
            version: 0,
        };
        account.create().send(&*store).await.unwrap();
        for (project, stage) in [("p1", Stage::Live), ("p2", Stage::Draft)] {
            Project {
                project: project.into(),
                stage,
                budget: 100,
            }
            .create()
            .send(&*store)
            .await
            .unwrap();
        }
        for (task, rank) in [("t1", 1), ("t2", 2), ("t3", 3)] {
            Task {
                project: "p1".into(),
                task: task.into(),
                owner: "ann".into(),
                due: "2025-03-01".into(),
                tenant: "acme".into(),
                state: "open".into(),
                rank,
                labels: vec!["ui".into()],
                expires: Some(4_000_000_000),
            }
            .create()
            .send(&*store)
            .await
            .unwrap();
        }
        Comment {
            project: "p1".into(),
            id: "c1".into(),
            author: "bob".into(),
            done: true,
        }
        .create()
        .send(&*store)
        .await
        .unwrap();
        out.push((backend.name, store));
    }
    out
}

#[test]
fn the_shape_check_tells_files_apart() {
    let sample = sample();
    let mut missing = sample.clone();
    missing["DataModel"][0]["TableFacets"][1]
        .as_object_mut()
        .unwrap()
        .remove("DataAccess");
    assert!(std::panic::catch_unwind(|| shape(&missing, "")).is_err());
    let mut everywhere = sample.clone();
    for facet in everywhere["DataModel"][0]["TableFacets"]
        .as_array_mut()
        .unwrap()
    {
        facet.as_object_mut().unwrap().remove("DataAccess");
    }
    assert_ne!(shape(&everywhere, ""), shape(&sample, ""));
    let mut retyped = sample.clone();
    retyped["DataModel"][0]["GlobalSecondaryIndexes"][0]["Projection"]["ProjectionType"] =
        Value::from(1);
    let retyped = std::panic::catch_unwind(|| shape(&retyped, ""));
    assert!(retyped.is_err() || retyped.unwrap() != shape(&sample, ""));
}

#[tokio::test]
async fn workbench_matches_the_published_sample() {
    let sample = sample();
    let m = model();
    for (name, store) in loaded().await {
        let items = m.sample_items(&*store, 2).await.unwrap();
        // Two of each entity at most: one account, two projects, two of three tasks, one comment.
        assert_eq!(items.len(), 6, "{name}");
        let exported = m.to_workbench_json(&items);
        assert_eq!(
            shape(&exported, ""),
            shape(&sample, ""),
            "{name}: the exported file's shape differs from the published sample's"
        );
        assert_eq!(
            exported["ModelMetadata"]["Version"],
            WORKBENCH_FORMAT_VERSION
        );
        let table = &exported["DataModel"][0];
        assert_eq!(table["TableName"], "Studio");
        assert_eq!(
            table["KeyAttributes"]["PartitionKey"]["AttributeName"],
            "PK"
        );
        let facets = table["TableFacets"].as_array().unwrap();
        let facet_rows: Vec<(&str, usize)> = facets
            .iter()
            .map(|f| {
                (
                    f["FacetName"].as_str().unwrap(),
                    f["TableData"].as_array().unwrap().len(),
                )
            })
            .collect();
        assert_eq!(
            facet_rows,
            [("Account", 1), ("Project", 2), ("Task", 2), ("Comment", 1)],
            "{name}"
        );
        let task = &facets[2];
        assert_eq!(
            task["KeyAttributeAlias"]["PartitionKeyAlias"],
            "PROJECT#{project}"
        );
        assert_eq!(task["TableData"][0]["PK"]["S"], "PROJECT#p1");
        assert_eq!(task["TableData"][0]["rank"]["N"], "1");
        assert_eq!(task["TableData"][0]["labels"]["L"][0]["S"], "ui");
        // Types from the samples: numbers, booleans, lists.
        let types: BTreeMap<&str, &str> = table["NonKeyAttributes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| {
                (
                    a["AttributeName"].as_str().unwrap(),
                    a["AttributeType"].as_str().unwrap(),
                )
            })
            .collect();
        for (attr, ty) in [
            ("budget", "N"),
            ("done", "BOOL"),
            ("labels", "L"),
            ("rank", "N"),
            ("GSI1PK", "S"),
            ("_type", "S"),
            ("ttl", "N"),
        ] {
            assert_eq!(types.get(attr), Some(&ty), "{name}: {attr} in {types:?}");
        }
        let gsis: Vec<&str> = table["GlobalSecondaryIndexes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["IndexName"].as_str().unwrap())
            .collect();
        assert_eq!(gsis, ["GSI1", "ByTenant"]);
    }
}
