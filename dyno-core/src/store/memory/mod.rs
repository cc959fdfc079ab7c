//! `MemoryStore`: an embedded engine with DynamoDB's semantics.

mod eval;

/// The in-process engine.
#[derive(Debug, Default)]
pub struct MemoryStore {}

impl MemoryStore {
    /// An empty engine with no tables.
    pub fn new() -> Self {
        Self::default()
    }
}
