include!("common/tracker.rs");

// The index's sort key has two attributes; one field is mapped.
#[derive(Debug, Entity)]
#[dyno(table = Tracker, pk = "T#{tenant}", sk = "I#{id}")]
#[dyno(index(ByStatus, pk = [tenant, status], sk = [priority]))]
struct Issue {
    tenant: String,
    id: String,
    status: Status,
    priority: u32,
}

fn main() {}
