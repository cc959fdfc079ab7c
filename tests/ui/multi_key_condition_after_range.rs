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
    // A range on `priority` ends the condition.
    let _ = Issue::by_status("acme", Status::Open).priority().lt(3u32).created().eq("2025");
}
