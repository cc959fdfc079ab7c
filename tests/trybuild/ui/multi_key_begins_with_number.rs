include!("common/tracker_issue.rs");

fn main() {
    // `priority` is a number: no `begins_with`.
    let _ = Issue::by_status("acme", Status::Open).priority().begins_with(1u32);
}
