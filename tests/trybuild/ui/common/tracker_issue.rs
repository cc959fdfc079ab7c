// The tracker table and an issue mapped onto its multi-attribute index, for the ui cases of
// typed queries on it.
include!("tracker.rs");

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
