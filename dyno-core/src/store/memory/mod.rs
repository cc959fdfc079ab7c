//! `MemoryStore`: an embedded engine with DynamoDB's semantics.

/// The in-process engine.
#[derive(Debug, Default)]
pub struct MemoryStore {}
