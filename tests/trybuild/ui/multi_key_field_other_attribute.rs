include!("common/tracker.rs");

// `state` is stored as `state`, not as the index's `status`.
#[derive(Debug, Entity)]
#[dyno(table = Tracker, pk = "T#{tenant}", sk = "I#{id}")]
#[dyno(index(ByStatus, pk = [tenant, state], sk = [priority, created]))]
struct Issue {
    tenant: String,
    id: String,
    state: Status,
    priority: u32,
    created: String,
}

fn main() {}
