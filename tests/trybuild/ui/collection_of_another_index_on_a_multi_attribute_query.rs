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

/// Declared on the table's partition, not on ByStatus.
#[derive(Debug, Collection)]
enum TenantItem {
    Task(Task),
}

fn main() {
    // A collection reads only the index it was declared (and checked) for.
    let _ = Task::by_status("acme", "open").collection::<TenantItem>();
}
