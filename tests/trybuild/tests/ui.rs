//! Compile-time checks of the derives: each case under `ui/` must fail to compile with the
//! message pinned in its `.stderr` (generated with `TRYBUILD=overwrite` on the pinned toolchain,
//! reviewed by hand). The cases build against this package's dependencies only (dyno-core), not
//! the integration tests' dev-dependency tree.

use std::path::Path;

#[test]
fn ui() {
    // Cases left in the directory they lived in before this package would never run.
    let old = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui");
    assert!(
        !old.exists(),
        "{} exists: move its cases to tests/trybuild/ui/",
        old.display()
    );
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*.rs");
}
