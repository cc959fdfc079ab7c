include!("common/tracker_issue.rs");

fn main() {
    // A range on `priority` ends the condition.
    let _ = Issue::by_status("acme", Status::Open).priority().lt(3u32).created().eq("2025");
}
