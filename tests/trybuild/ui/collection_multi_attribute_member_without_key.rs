use dyno_core::{Collection, Entity, Table};

#[derive(Table)]
#[dyno(name = "Tracker", pk = "PK", sk = "SK")]
#[dyno(index(name = "ByStatus", pk = ["tenant", "status"], sk = ["priority:N"]))]
struct Tracker;

#[derive(Debug, Entity)]
#[dyno(table = Tracker, pk = "TENANT#{tenant}", sk = "TASK#{id}")]
#[dyno(index(ByStatus, pk = [tenant, status], sk = [priority]))]
struct Task {
    tenant: String,
    id: String,
    status: String,
    priority: u32,
}

/// Comments map nothing onto ByStatus: they are never in it.
#[derive(Debug, Entity)]
#[dyno(table = Tracker, pk = "TENANT#{tenant}", sk = "COMMENT#{id}")]
struct Comment {
    tenant: String,
    id: String,
}

#[derive(Debug, Collection)]
#[dyno(index = ByStatus)]
enum Work {
    Task(Task),
    Comment(Comment),
}

fn main() {}
