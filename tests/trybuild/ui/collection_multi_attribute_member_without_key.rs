include!("common/tracker_issue.rs");

use dyno_core::Collection;

/// Comments map nothing onto ByStatus: they are never in it.
#[derive(Debug, Entity)]
#[dyno(table = Tracker, pk = "T#{tenant}", sk = "C#{id}")]
struct Comment {
    tenant: String,
    id: String,
}

#[derive(Debug, Collection)]
#[dyno(index = ByStatus)]
enum Work {
    Issue(Issue),
    Comment(Comment),
}

fn main() {}
