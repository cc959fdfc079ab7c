include!("common/tracker.rs");

#[derive(Debug, Entity)]
#[dyno(table = Tracker, pk = "T#{tenant}", sk = "I#{id}")]
#[dyno(index(ByStatus, pk = [tenant, status], sk = [priority, created]))]
struct Issue {
    tenant: String,
    id: String,
    status: Status,
    priority: u32,
    created: String,
}

fn main() {
    // Every partition attribute is required.
    let _ = Issue::by_status("acme");
}
