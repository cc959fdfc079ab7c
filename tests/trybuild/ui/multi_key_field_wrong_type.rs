include!("common/tracker.rs");

// `priority` is declared N; a String field is stored as S.
#[derive(Debug, Entity)]
#[dyno(table = Tracker, pk = "T#{tenant}", sk = "I#{id}")]
#[dyno(index(ByStatus, pk = [tenant, status], sk = [priority, created]))]
struct Issue {
    tenant: String,
    id: String,
    status: Status,
    priority: String,
    created: String,
}

fn main() {}
