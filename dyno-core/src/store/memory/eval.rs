//! Evaluating the expression tree on items: conditions, update actions, projections, and
//! DynamoDB's value ordering. Pure functions; the engine in `mod.rs` calls them under its locks.
//!
//! SKELETON: signatures are the contract between the engine and the evaluator.
#![allow(dead_code, unused_variables)]

use std::cmp::Ordering;

use crate::error::Result;
use crate::expr::{Condition, Path, Update};
use crate::value::{AttributeValue, Item};

/// DynamoDB's order between two values of one scalar type: S and B bytewise, N numerically
/// (38 digits of precision). `None` for values of different or non-scalar types.
pub(crate) fn compare(a: &AttributeValue, b: &AttributeValue) -> Option<Ordering> {
    unimplemented!("eval helper")
}

/// The value at `path` in `item`.
pub(crate) fn resolve<'a>(item: &'a Item, path: &Path) -> Option<&'a AttributeValue> {
    unimplemented!("eval helper")
}

/// Evaluates a condition against an item (`None`: the item does not exist). Errors are
/// DynamoDB's validation errors (for example an invalid operand type for a function).
pub(crate) fn eval_condition(cond: &Condition, item: Option<&Item>) -> Result<bool> {
    unimplemented!("eval helper")
}

/// Applies an update to `item` (the existing item, or the key alone when creating). Returns the
/// top-level attribute names the update touched (for ReturnValues UPDATED_OLD/UPDATED_NEW).
/// Errors as DynamoDB's: key attributes in the update, overlapping or conflicting paths, ADD or
/// arithmetic on the wrong type, list_append on a non-list, an index into a non-list, etc.
pub(crate) fn apply_update(update: &Update, key_names: &[&str], item: &mut Item) -> Result<Vec<String>> {
    unimplemented!("eval helper")
}

/// The item restricted to `paths` (ProjectionExpression semantics, nested paths included).
pub(crate) fn project(item: &Item, paths: &[Path]) -> Item {
    unimplemented!("eval helper")
}

/// Validates and normalizes a number string as DynamoDB stores it (38 significant digits,
/// magnitude between 1e-130 and 1e126, canonical form). Errors are validation errors.
pub(crate) fn normalize_number(n: &str) -> Result<String> {
    unimplemented!("eval helper")
}

/// Validates the attribute values of an item as DynamoDB does on write: numbers valid, sets
/// non-empty and without duplicates, nested values too. Returns the item with numbers normalized.
pub(crate) fn validate_item(item: Item) -> Result<Item> {
    unimplemented!("eval helper")
}
