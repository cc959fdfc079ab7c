include!("common/tracker_issue.rs");

fn main() {
    // Every partition attribute is required.
    let _ = Issue::by_status("acme");
}
