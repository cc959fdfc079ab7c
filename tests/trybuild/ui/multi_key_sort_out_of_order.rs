include!("common/tracker_issue.rs");

fn main() {
    // `created` comes after `priority` is fixed.
    let _ = Issue::by_status("acme", Status::Open).created().ge("2025");
}
