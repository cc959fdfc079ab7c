//! Disagreements that are no MemoryStore bug: where dynoxide deviates from DynamoDB's
//! documentation. Each entry names the documentation it relies on and matches as narrowly as it
//! can, so that a MemoryStore bug of the same shape is not excused.

use super::gen::Op;
use super::run::Outcome;

/// Why the subject's and the reference's responses to `op` may differ, or `None`.
pub fn explain(_op: &Op, _ours: &Outcome, _theirs: &Outcome) -> Option<&'static str> {
    None
}
