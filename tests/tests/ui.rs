//! Compile-time checks of the derives: each case under `tests/ui` must fail to compile with the
//! message pinned in its `.stderr` (generated with `TRYBUILD=overwrite` on the pinned toolchain,
//! reviewed by hand).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*.rs");
}
