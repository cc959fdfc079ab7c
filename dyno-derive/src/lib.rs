//! Derive macros for dyno. Use them through `dyno_core`.
