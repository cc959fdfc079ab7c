include!("common/tracker_issue.rs");

use dyno_core::Collection;

/// Declared on the table's partition, not on ByStatus.
#[derive(Debug, Collection)]
enum TenantItem {
    Issue(Issue),
}

fn main() {
    // A collection reads only the index it was declared (and checked) for.
    let _ = Issue::by_status("acme", Status::Open).collection::<TenantItem>();
}
