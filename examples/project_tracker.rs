//! A multi-tenant project tracker on one DynamoDB table: the second walkthrough, after
//! `ecommerce`, showing the modelling features of the derive in an application
//! where several entities share each tenant's partition and the indexes.
//!
//! ```sh
//! cargo run --example project_tracker            # on MemoryStore, the embedded engine
//! AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:8000 AWS_REGION=us-east-1 \
//!   AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test cargo run --example project_tracker
//! ```
//!
//! Sections: 1 the table, 2 writes that decide values (generated ids, stamps) and hand them
//! back, 3 collections (a project's board through GSI1; a sub-collection; descending, limit,
//! pages with a cursor, a stream), 4 the multi-attribute index ByStatus, 5 typed nested
//! updates and conditions (a counter in a map entry, a list, a set, a document's field, a
//! missing parent and its fix), 6 defaults for items an older version wrote, `keep_updated_at`.
//!
//! Every step checks what it prints; a failed check names the step and the run exits with a
//! failure. A server that cannot run a section (dynalite refuses multi-attribute key schemas)
//! gets that section skipped with the reason printed.

#[path = "support/backend.rs"]
mod backend;
#[path = "support/check.rs"]
mod check;
#[path = "project_tracker/model.rs"]
mod model;
#[path = "support/report.rs"]
mod report;

use std::collections::{BTreeMap, BTreeSet};
use std::process::ExitCode;
use std::sync::Arc;

use backend::Backend;
use check::{check, BoxError};
use dyno_core::cost::{Metered, Rates};
use dyno_core::prelude::*;
use dyno_core::store::PutRequest;
use dyno_core::{Error, TableDef};
use futures::TryStreamExt;
use model::{
    Bug, Comment, Estimate, Member, Project, ProjectBoard, Reaction, Settings, Status, Task,
    Tenant, TenantItem, Tracker, Work,
};
use time::macros::date;
use time::Date;

/// The logical table name (a server run prefixes it, see `support/backend.rs`).
const TRACKER: &str = "Tracker";
const ACME: &str = "acme";

/// What a run could not do on its backend, and why.
#[derive(Debug, Default)]
struct Skipped(Vec<String>);

#[tokio::main]
async fn main() -> ExitCode {
    let backend = Backend::from_env().await;
    println!("dyno project tracker on {}", backend.describe());
    // `--report` (or `--report=<dir>`): the run goes through the metering wrapper, then the
    // report prints the model's design document, the capacity and cost of each access pattern
    // and the hot-partition check, and writes a NoSQL Workbench file, from the table as the run
    // left it.
    let report_dir = report::requested(std::env::args().skip(1));
    let metered = metered(backend.store.clone());
    let mut result = match report_dir {
        Some(_) => run(&metered).await,
        None => run(&*backend.store).await,
    };
    if let (Ok(_), Some(dir)) = (&result, report_dir) {
        let mut out = std::io::stdout().lock();
        let measured = metered.report();
        let capacity = report::Capacity {
            measured: &measured,
            rates: &rates(),
        };
        if let Err(e) = report::report(
            &mut out,
            &Tracker::model(),
            &*backend.store,
            Some(capacity),
            &workload(),
            &dir,
        )
        .await
        {
            result = Err(e);
        }
    }
    backend.delete_tables_or_warn(&[TRACKER]).await;
    match result {
        Ok(skipped) => {
            for s in &skipped.0 {
                println!("skipped: {s}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("project tracker failed: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `store` behind the metering wrapper, which knows every entity of the model.
fn metered(store: Arc<dyn Store>) -> Metered<Arc<dyn Store>> {
    Metered::new(store)
        .entity::<Tenant>()
        .entity::<Member>()
        .entity::<Project>()
        .entity::<Task>()
        .entity::<Bug>()
        .entity::<Comment>()
}

/// The request rates the report prices the measured patterns at (calls per second, by their
/// names in the capacity table).
fn rates() -> Rates {
    Rates::new()
        .rate("Task query ByStatus", 300.0)
        .rate("Task+Bug query ByStatus", 20.0)
        .rate("Project+Task+Comment query GSI1", 100.0)
        .rate("Task put", 50.0)
}

/// The load the report's hot-partition check replays, per access pattern (named as in the
/// design document): tenants of very different sizes (a Zipf distribution), so the largest
/// tenant's open tasks are one hot `ByStatus` partition.
fn workload() -> dyno_core::hot::Workload {
    use dyno_core::hot::{Keys, Pattern, Workload};
    Workload::new(60.0)
        .pattern(Pattern::reads(
            "Task::by_status",
            4_000.0,
            Keys::zipf("acme#OPEN#", 200, 1.3),
        ))
        .pattern(Pattern::writes(
            "Task (update): ByStatus",
            600.0,
            Keys::zipf("acme#OPEN#", 200, 1.3),
        ))
        .pattern(
            Pattern::reads(
                "ProjectBoard::query",
                900.0,
                Keys::uniform("PROJECT#", 5_000),
            )
            .eventually_consistent(),
        )
}

fn section(title: &str) {
    println!("\n== {title}");
}

/// The whole walkthrough on `store`.
async fn run(store: &dyn Store) -> Result<Skipped, BoxError> {
    let mut skipped = Skipped::default();
    section("1. The table");
    let multi = create_table(store, &mut skipped).await?;

    section("2. Writes that decide values, handed back");
    let tasks = writes(store).await?;

    section("3. Collections: a project's board through GSI1");
    collections(store, &tasks).await?;

    section("4. The multi-attribute index ByStatus (tenant + status, by priority then due date)");
    if multi {
        by_status(store, &tasks).await?;
    } else {
        println!("(skipped: this backend has no multi-attribute index, see above)");
    }

    section("5. Typed nested updates and conditions");
    nested(store, &tasks[0]).await?;

    section("6. Defaults for older items; keep_updated_at");
    defaults(store).await?;
    Ok(skipped)
}

/// Creates the table with ByStatus; a backend that refuses multi-attribute key schemas gets
/// the table without it (returns false, and the reason is recorded).
async fn create_table(store: &dyn Store, skipped: &mut Skipped) -> Result<bool, BoxError> {
    let def = Tracker::definition();
    let names: Vec<&str> = def.global_indexes.iter().map(|i| i.name.as_str()).collect();
    println!("table {} (PK, SK), global indexes {names:?}", def.name);
    let by_status = def.index("ByStatus").ok_or("ByStatus is declared")?;
    let parts: Vec<String> = (by_status.partition_keys().chain(by_status.sort_keys()))
        .map(|k| format!("{}:{:?}", k.name, k.ty))
        .collect();
    println!("ByStatus key attributes, in order: {parts:?}");
    check(
        parts == ["tenant:S", "status:S", "priority:N", "due:S"],
        "ByStatus: two partition attributes, then the sort attributes priority (N) and due (S)",
    )?;
    let refused = match store.create_table(def).await {
        Err(e) => Some(e.to_string()),
        Ok(()) => match store.describe_table(&def.name).await {
            Ok(d)
                if d.definition
                    .index("ByStatus")
                    .map(|i| i.sort_keys().count())
                    == Some(2) =>
            {
                None
            }
            Ok(d) => Some(format!(
                "the server describes ByStatus as {:?}",
                d.definition.index("ByStatus")
            )),
            Err(e) => Some(e.to_string()),
        },
    };
    let Some(reason) = refused else {
        check(true, "table created with GSI1 and ByStatus")?;
        return Ok(true);
    };
    let _ = store.delete_table(&def.name).await;
    let mut plain: TableDef = def.clone();
    plain.global_indexes.retain(|i| !i.is_multi_attribute());
    store.create_table(&plain).await?;
    skipped.0.push(format!(
        "section 4 (multi-attribute index): the backend refuses it: {reason}"
    ));
    check(
        true,
        "table created with GSI1 only (no multi-attribute index here)",
    )?;
    Ok(false)
}

fn task(title: &str, status: Status, priority: u8, due: Date) -> Task {
    Task {
        tenant: ACME.into(),
        project: "web".into(),
        id: None,
        title: title.into(),
        status,
        priority,
        due,
        reactions: BTreeMap::new(),
        labels: BTreeSet::new(),
        checklist: Vec::new(),
        estimate: None,
        created: None,
        updated: None,
    }
}

/// Creates the tenant, its members, a project, six tasks and two comments; returns the tasks
/// as written (with their generated ids and stamps).
async fn writes(store: &dyn Store) -> Result<Vec<Task>, BoxError> {
    let tenant = Tenant {
        tenant: ACME.into(),
        name: "Acme Corp".into(),
        plan: "team".into(),
        created: None,
    }
    .create()
    .send_returning(store)
    .await?;
    println!("tenant {:?}, created {:?}", tenant.name, tenant.created);
    check(
        tenant.created.is_some(),
        "create().send_returning(..) hands back the created_at stamp the write decided",
    )?;
    for (user, role) in [("ann", "owner"), ("bo", "member")] {
        let member = Member {
            tenant: ACME.into(),
            user: user.into(),
            role: role.into(),
            joined: None,
        };
        member.create().send(store).await?;
    }
    let project = Project {
        tenant: ACME.into(),
        slug: "web".into(),
        name: "Website".into(),
        color: "blue".into(),
        archived: false,
        settings: Settings {
            visibility: "internal".into(),
            wip_limits: BTreeMap::from([("Doing".to_owned(), 3)]),
        },
        updated: None,
    };
    project.create().send(store).await?;

    let specs = [
        (
            "Design the landing page",
            Status::Todo,
            2,
            date!(2026 - 12 - 20),
        ),
        (
            "Fix the login redirect",
            Status::Todo,
            1,
            date!(2026 - 12 - 10),
        ),
        (
            "Write the launch post",
            Status::Todo,
            3,
            date!(2026 - 12 - 05),
        ),
        ("Set up analytics", Status::Todo, 1, date!(2026 - 12 - 08)),
        ("Pick a font", Status::Done, 2, date!(2026 - 11 - 30)),
        ("Translate the FAQ", Status::Todo, 2, date!(2026 - 12 - 15)),
    ];
    let mut tasks = Vec::new();
    for (title, status, priority, due) in specs {
        let written = task(title, status, priority, due)
            .create()
            .send_returning(store)
            .await?;
        println!(
            "task {} {:?} {title:?} (priority {priority}, due {due})",
            written.id.map(|i| i.to_string()).unwrap_or_default(),
            written.status
        );
        tasks.push(written);
    }
    let ids: Vec<_> = tasks.iter().map(|t| t.id).collect();
    check(
        ids.iter().all(Option::is_some),
        "every task comes back with the ULID the write generated",
    )?;
    let mut sorted = ids.clone();
    sorted.sort();
    sorted.dedup();
    check(
        sorted == ids,
        "the ids are distinct and sort in creation order",
    )?;
    let first = &tasks[0];
    let read = Task::get(Task::key(ACME, first.id.ok_or("id")?))
        .send(store)
        .await?;
    check(
        read.as_ref() == Some(first),
        "a get by the returned id reads the task as it was returned (same id, same stamps)",
    )?;
    check(
        first.created.is_some() && first.created <= first.updated,
        "the created_at and updated_at stamps come back too",
    )?;

    for (author, text) in [("bo", "Which hero image?"), ("ann", "The blue one.")] {
        let comment = Comment {
            tenant: ACME.into(),
            project: "web".into(),
            task: first.id.ok_or("id")?,
            id: None,
            author: author.into(),
            text: text.into(),
        }
        .create()
        .send_returning(store)
        .await?;
        check(
            comment.id.is_some(),
            &format!("comment by {author} written with a generated id"),
        )?;
    }
    Ok(tasks)
}

async fn collections(store: &dyn Store, tasks: &[Task]) -> Result<(), BoxError> {
    let board = ProjectBoard::query((ACME, "web")).all(store).await?;
    println!(
        "board: project {:?}, {} tasks, {} comments",
        board.project.as_ref().map(|p| p.name.as_str()),
        board.tasks.len(),
        board.comments.len()
    );
    check(
        board.project.is_some() && board.tasks == tasks && board.comments.len() == 2,
        "one GSI1 query returns the project, its tasks (in id order) and the comments",
    )?;
    let query = ProjectBoard::query((ACME, "web")).into_query()?;
    let range = query.request().key_condition.sort.clone();
    println!("its sort-key condition: {range:?}");
    check(
        range.is_some(),
        "the board reads the range of its members' sort keys, not the whole GSI1 partition",
    )?;

    // A sub-collection: only the tasks (sort keys beginning with TASK#), newest first.
    let newest = ProjectBoard::query((ACME, "web"))
        .only::<Task>()
        .descending()
        .limit(2)
        .all(store)
        .await?;
    let titles: Vec<&str> = newest.tasks.iter().map(|t| t.title.as_str()).collect();
    println!("the two newest tasks: {titles:?}");
    check(
        newest.project.is_none()
            && newest.comments.is_empty()
            && titles == [tasks[5].title.as_str(), tasks[4].title.as_str()],
        "only::<Task>() reads the tasks alone; descending + limit(2) gives the newest two",
    )?;

    // Pages of 3 items, each resumed from the previous page's cursor.
    let paged = ProjectBoard::query((ACME, "web")).page_size(3);
    let (mut cursor, mut pages, mut seen) = (None, 0, 0);
    loop {
        let (page, next) = paged.page(store, cursor.as_ref()).await?;
        pages += 1;
        seen += page.tasks.len() + page.comments.len() + usize::from(page.project.is_some());
        match next {
            Some(c) if pages < 10 => cursor = Some(c),
            _ => break,
        }
    }
    println!("page_size(3): {seen} items in {pages} pages");
    check(
        seen == 9 && pages >= 3,
        "pages with a cursor read the 9 items of the board",
    )?;
    let streamed: Vec<ProjectBoard> = ProjectBoard::query((ACME, "web"))
        .page_size(4)
        .pages(store)
        .try_collect()
        .await?;
    let streamed_tasks: usize = streamed.iter().map(|b| b.tasks.len()).sum();
    check(
        streamed_tasks == tasks.len(),
        "stream() yields the board page by page, every task once",
    )?;

    // The table's partition of the tenant: only its members.
    let members = TenantItem::query(ACME).only::<Member>().all(store).await?;
    let users: Vec<String> = members
        .iter()
        .filter_map(|m| match m {
            TenantItem::Member(m) => Some(format!("{} ({})", m.user, m.role)),
            _ => None,
        })
        .collect();
    println!("members of {ACME}: {users:?}");
    check(
        users == ["ann (owner)", "bo (member)"],
        "only::<Member>() reads the MEMBER# range of the tenant's partition",
    )?;
    Ok(())
}

async fn by_status(store: &dyn Store, tasks: &[Task]) -> Result<(), BoxError> {
    let titles = |ts: &[Task]| ts.iter().map(|t| t.title.clone()).collect::<Vec<_>>();
    let todo = Task::by_status(ACME, Status::Todo).all(store).await?;
    println!("to do, by priority then due date: {:?}", titles(&todo));
    check(
        titles(&todo)
            == [
                "Set up analytics",
                "Fix the login redirect",
                "Translate the FAQ",
                "Design the landing page",
                "Write the launch post",
            ],
        "the partition (tenant, status) in order of priority (a number), then due date",
    )?;
    let urgent = Task::by_status(ACME, Status::Todo)
        .priority()
        .eq(1u8)
        .due()
        .le(date!(2026 - 12 - 09))
        .all(store)
        .await?;
    println!("priority 1, due by Dec 9: {:?}", titles(&urgent));
    check(
        titles(&urgent) == ["Set up analytics"],
        "sort conditions left to right: priority = 1, then due <= 2026-12-09",
    )?;
    // Bugs map their own fields onto the same attributes: one query reads both entities.
    let bug = Bug {
        tenant: ACME.into(),
        id: None,
        title: "Checkout crashes on Safari".into(),
        status: Status::Todo,
        severity: 1,
        fix_by: date!(2026 - 12 - 09),
    }
    .create()
    .send_returning(store)
    .await?;
    let work = Task::by_status(ACME, Status::Todo)
        .priority()
        .eq(1u8)
        .collection::<Work>()
        .all(store)
        .await?;
    let names: Vec<String> = work
        .iter()
        .map(|w| match w {
            Work::Task(t) => format!("task {:?}", t.title),
            Work::Bug(b) => format!("bug {:?}", b.title),
        })
        .collect();
    println!("priority 1, tasks and bugs, by due date: {names:?}");
    check(
        names
            == [
                "task \"Set up analytics\"",
                "bug \"Checkout crashes on Safari\"",
                "task \"Fix the login redirect\"",
            ],
        "a collection on the multi-attribute index: tasks and bugs of (acme, Todo), priority 1, by due date",
    )?;
    let newest = Task::by_status(ACME, Status::Todo)
        .collection::<Work>()
        .descending()
        .limit(1)
        .all(store)
        .await?;
    check(
        matches!(newest.as_slice(), [Work::Task(t)] if t.priority == 3),
        "descending + limit(1): the least urgent item of the partition",
    )?;
    Bug::delete(Bug::key(ACME, bug.id.ok_or("id")?))
        .send(store)
        .await?;

    // Starting a task moves it to another partition of the index.
    let started = Task::update(Task::key(ACME, tasks[1].id.ok_or("id")?))
        .set_status(Status::Doing)
        .send(store)
        .await?;
    let doing = Task::by_status(ACME, Status::Doing).all(store).await?;
    let todo = Task::by_status(ACME, Status::Todo).count(store).await?;
    check(
        doing == [started] && todo == 4,
        "set_status(Doing) moves the task from (acme, Todo) to (acme, Doing)",
    )?;
    Ok(())
}

async fn nested(store: &dyn Store, task: &Task) -> Result<(), BoxError> {
    let key = || Ok::<_, BoxError>(Task::key(ACME, task.id.ok_or("id")?));
    let heart = Task::REACTIONS.entry(Reaction::Heart);
    for _ in 0..2 {
        Task::update(key()?)
            .at(heart.clone())
            .add(1u32)
            .send(store)
            .await?;
    }
    let t = Task::update(key()?)
        .at(Task::CHECKLIST)
        .append(["draft", "review"])
        .at(Task::LABELS)
        .add_elements(["design", "urgent"])
        .send(store)
        .await?;
    println!(
        "reactions {:?}, checklist {:?}, labels {:?}",
        t.reactions, t.checklist, t.labels
    );
    check(
        t.reactions.get(&Reaction::Heart) == Some(&2)
            && t.checklist == ["draft", "review"]
            && t.labels.len() == 2,
        "ADD reactions.heart :1 (twice), list_append on checklist, ADD on the labels set",
    )?;
    let t = Task::update(key()?)
        .at(Task::LABELS)
        .delete_elements(["urgent"])
        .at(Task::CHECKLIST.at(0))
        .set("first draft")
        .condition(heart.ge(2u32))
        .send(store)
        .await?;
    check(
        t.labels == BTreeSet::from(["design".to_owned()]) && t.checklist[0] == "first draft",
        "DELETE from the set, SET checklist[0], under the condition reactions.heart >= 2",
    )?;
    let refused = Task::update(key()?)
        .at(Task::REACTIONS.entry(Reaction::Rocket))
        .add(1u32)
        .condition(heart.ge(10u32))
        .send(store)
        .await;
    check(
        matches!(refused, Err(Error::ConditionFailed { .. })),
        "the condition reactions.heart >= 10 fails: nothing is written",
    )?;

    // A document's field: the project's settings.
    let project = Project::update(Project::key(ACME, "web"))
        .at(Project::SETTINGS.field(Settings::VISIBILITY))
        .set("public")
        .at(Project::SETTINGS.field(Settings::WIP_LIMITS).entry("Doing"))
        .add(2u32)
        .send(store)
        .await?;
    check(
        project.settings.visibility == "public" && project.settings.wip_limits["Doing"] == 5,
        "SET settings.visibility, ADD settings.wip_limits.Doing",
    )?;

    // A missing parent: the task has no estimate yet, so estimate.points cannot be written.
    let points = Task::ESTIMATE.field(Estimate::POINTS);
    let err = Task::update(key()?)
        .at(points.clone())
        .set(5u32)
        .send(store)
        .await
        .err()
        .ok_or("writing inside a missing estimate succeeded")?;
    println!("estimate.points on a task without an estimate: {err}");
    let unchanged = Task::get(key()?).consistent().send(store).await?;
    check(
        matches!(err, Error::Validation { .. })
            && err.to_string().contains("estimate.points")
            && unchanged.is_some_and(|t| t.estimate.is_none()),
        "the missing parent fails as DynamoDB fails it, explained, and nothing is written",
    )?;
    // The fix: write the parent where absent first, then inside it.
    let first = Estimate {
        points: 3,
        by: "ann".into(),
    };
    Task::update(key()?)
        .set_if_absent_estimate(&first)
        .send(store)
        .await?;
    let t = Task::update(key()?)
        .at(points)
        .set(5u32)
        .send(store)
        .await?;
    check(
        t.estimate
            == Some(Estimate {
                points: 5,
                by: "ann".into(),
            }),
        "set_if_absent on the estimate, then SET estimate.points = 5",
    )?;
    Ok(())
}

async fn defaults(store: &dyn Store) -> Result<(), BoxError> {
    // A project an older version of the app wrote: no colour, no archived flag.
    let old = Project {
        tenant: ACME.into(),
        slug: "legacy".into(),
        name: "Old intranet".into(),
        color: String::new(),
        archived: false,
        settings: Settings {
            visibility: "internal".into(),
            wip_limits: BTreeMap::new(),
        },
        updated: None,
    };
    let mut item = old.to_item()?;
    item.remove("color");
    item.remove("archived");
    store.put_item(PutRequest::new(TRACKER, item)).await?;
    let read = Project::get(Project::key(ACME, "legacy"))
        .send(store)
        .await?
        .ok_or("the legacy project")?;
    println!(
        "legacy project read: color {:?}, archived {}",
        read.color, read.archived
    );
    check(
        read.color == "gray" && !read.archived,
        "missing attributes read as their defaults (default = default_color, default)",
    )?;

    // keep_updated_at: archiving does not count as an edit.
    let before = read.updated;
    tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    let archived = Project::update(Project::key(ACME, "legacy"))
        .set_archived(true)
        .keep_updated_at()
        .send(store)
        .await?;
    check(
        archived.archived && archived.updated == before,
        "keep_updated_at(): the update leaves the updated_at stamp as it was",
    )?;
    let renamed = Project::update(Project::key(ACME, "legacy"))
        .set_name("Intranet (archived)")
        .send(store)
        .await?;
    check(renamed.updated > before, "a plain update bumps updated_at")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the walkthrough on the server named by `var` (set by `scripts/test`); `full`: the
    /// server must run every section.
    async fn on_server(var: &str, full: bool) {
        let Some(backend) = Backend::from_test_env(var).await else {
            return;
        };
        let result = run(&*backend.store).await;
        backend.delete_tables_or_warn(&[TRACKER]).await;
        let skipped = result.unwrap_or_else(|e| panic!("{var}: {e}"));
        for s in &skipped.0 {
            println!("{var}: skipped {s}");
        }
        if full {
            assert!(skipped.0.is_empty(), "{var}: {skipped:?}");
        }
    }

    #[tokio::test]
    async fn the_report_charts_the_model_and_writes_a_workbench_file() {
        let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
        let metered = metered(store.clone());
        run(&metered).await.unwrap();
        let dir = std::env::temp_dir().join(format!("dyno-report-{}", std::process::id()));
        let mut out = Vec::new();
        let measured = metered.report();
        let capacity = report::Capacity {
            measured: &measured,
            rates: &rates(),
        };
        let path = report::report(
            &mut out,
            &Tracker::model(),
            &*store,
            Some(capacity),
            &workload(),
            &dir,
        )
        .await
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        for line in [
            "# Table `Tracker`",
            "| `Task::by_status` | ByStatus | tenant = {tenant} AND status = {status} | priority: {priority}, due: {due} | Task |",
            "| `ProjectBoard::query` | GSI1 | GSI1PK = PROJECT#{tenant}#{slug} |  | Project, Task, Comment |",
            "| `Task::by_status(..).collection::<Work>()` | ByStatus | tenant = {tenant} AND status = {status} |  | Task, Bug |",
            "## Capacity and cost per access pattern",
        ] {
            assert!(text.lines().any(|l| l == line), "missing {line:?} in\n{text}");
        }
        assert!(text.contains("Task::by_status"), "{text}");
        // The capacity table: the collection read on the board's index and the work queue, each
        // measured under its members' names, and priced at its rate.
        for pattern in [
            "Project+Task+Comment query GSI1",
            "Task query ByStatus",
            "Task+Bug query ByStatus",
        ] {
            let rows = text.lines().filter(|l| l.starts_with(pattern)).count();
            assert_eq!(rows, 2, "{pattern} measured and priced in\n{text}");
        }
        assert!(text.lines().any(|l| l.starts_with("total ")), "{text}");
        let file: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let facets = file["DataModel"][0]["TableFacets"].as_array().unwrap();
        assert_eq!(facets.len(), 6);
        let sizes: Vec<(&str, usize)> = facets
            .iter()
            .map(|f| {
                (
                    f["FacetName"].as_str().unwrap(),
                    f["TableData"].as_array().unwrap().len(),
                )
            })
            .collect();
        // Up to three samples of each entity as the run left the table (its bug was deleted).
        assert_eq!(
            sizes,
            [
                ("Tenant", 1),
                ("Member", 2),
                ("Project", 2),
                ("Task", 3),
                ("Bug", 0),
                ("Comment", 2)
            ]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_report_is_asked_by_a_flag() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(report::requested(args(&[])), None);
        assert_eq!(
            report::requested(args(&["--report"])),
            Some(report::default_dir())
        );
        assert_eq!(
            report::requested(args(&["--report=/tmp/x"])),
            Some(std::path::PathBuf::from("/tmp/x"))
        );
    }

    #[tokio::test]
    async fn runs_on_memory_store() {
        let skipped = run(&MemoryStore::new()).await.unwrap();
        assert!(skipped.0.is_empty(), "{skipped:?}");
    }

    #[tokio::test]
    async fn runs_on_dynoxide() {
        on_server("DYNO_DYNOXIDE_ENDPOINT", true).await;
    }

    #[tokio::test]
    async fn runs_on_dynalite() {
        on_server("DYNO_DYNALITE_ENDPOINT", false).await;
    }

    #[tokio::test]
    async fn runs_on_moto() {
        on_server("DYNO_MOTO_ENDPOINT", false).await;
    }
}
