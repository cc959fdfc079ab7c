include!("common/tracker.rs");

#[derive(Debug, Entity)]
#[dyno(table = Tracker, pk = "T#{tenant}", sk = "I#{id}")]
// A template mixed with a field list, and a field that does not exist.
#[dyno(index(ByStatus, pk = [tenant, nope], sk = "{created}"))]
struct Issue {
    tenant: String,
    id: String,
    status: Status,
    #[dyno(skip)]
    created: String,
}

fn main() {}
