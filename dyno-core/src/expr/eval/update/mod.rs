//! UpdateExpression: SET, REMOVE, ADD and DELETE actions on one item.
//!
//! DynamoDB's model, which this follows step by step: every action reads the item as it was
//! before the update (`SET a = b, b = a` swaps; `SET x = :v, y = x` fails when `x` did not
//! exist); list indexes name positions in the original list (`REMOVE a[1] SET a[3] = :v` sets
//! the original fourth element); no two actions may touch overlapping paths. So the update is
//! computed in full against the original item, validated, and only then written, which also
//! leaves the item untouched when any action fails.
//!
//! Files: this one applies an update ([`apply`]) and says what it touched ([`Applied`]);
//! `check.rs` holds the static checks made before the item is read, `operands.rs` reads SET's
//! operands and does its arithmetic, `add_delete.rs` computes ADD and DELETE, `paths.rs` writes
//! and removes at a path, `faults.rs` words the errors met on the way; `tests/` by action.

use std::cmp::Ordering;
use std::collections::HashSet;

use super::{
    check_path, display_path, resolve, resolve_elements, type_name, validate_value, Layer,
};
use crate::error::{Error, Result};
use crate::expr::{Path, PathElement, SetValue, Update, UpdateOperand};
use crate::value::{AttributeValue, Item};
use crate::value::{Number, NumberError};

mod add_delete;
mod check;
mod faults;
mod operands;
mod paths;
#[cfg(test)]
mod tests;

pub(super) use self::check::check;
use self::{add_delete::*, faults::*, operands::*, paths::*};

const EXPRESSION: &str = "UpdateExpression";

/// What an applied update reports for ReturnValues UPDATED_OLD/UPDATED_NEW.
#[derive(Debug, Default)]
#[doc(hidden)]
pub struct Applied {
    /// The top-level attribute names the update touched.
    pub touched: Vec<String>,
    /// The written paths (SET, ADD, DELETE) that are not where the update named them in the new
    /// item: a list element SET past the end lands at the end, a lower element's REMOVE shifts a
    /// written one down, a DELETE that empties its set removes it (`None`). Empty for most
    /// updates (no list index written), so the common case allocates nothing.
    pub moved: Vec<(Path, Option<Path>)>,
}

impl Applied {
    /// The paths UPDATED_NEW returns: every path the update wrote (SET, ADD, DELETE; a REMOVE
    /// leaves nothing to return), where it landed in the new item.
    pub fn new_paths(&self, update: &Update) -> Vec<Path> {
        update
            .set
            .iter()
            .map(|(p, _)| p)
            .chain(update.add.iter().chain(&update.delete).map(|(p, _)| p))
            .filter_map(|p| match self.moved.iter().find(|(from, _)| from == p) {
                Some((_, to)) => to.clone(),
                None => Some(p.clone()),
            })
            .collect()
    }
}

/// Applies `update` to `item`; see [`super::apply_update`].
pub(super) fn apply(update: &Update, key_names: &[&str], item: &mut Item) -> Result<Applied> {
    check(update)?;
    let paths: Vec<&Path> = update.paths().collect();
    if let Some(key) = paths
        .iter()
        .filter_map(|p| p.top())
        .find(|top| key_names.contains(top))
    {
        return Err(Error::validation(format!(
            "One or more parameter values were invalid: Cannot update attribute {key}. This attribute is part of the key"
        )));
    }

    // Everything is computed from the original item before anything is written, in dynoxide's
    // order: an ADD or DELETE operand that does not fit what the item holds is named first; then
    // each SET's value is read and its operands' types checked, action by action (a missing
    // attribute or an operand of the wrong type, whichever comes first); then every path the
    // update writes is checked in path order, and the paths it removes (a path through a missing
    // or non-container parent, on an item the update creates too); then the sums and differences
    // are computed (an overflow); last, a set deep inside a literal that lands in the item.
    let original: &Item = item;
    for (path, value) in &update.add {
        if !add_fits(resolve(original, path), value) {
            return Err(incorrect_data_type(
                "ADD",
                path,
                resolve(original, path),
                value,
            ));
        }
    }
    for (path, value) in &update.delete {
        if !delete_fits(resolve(original, path), value) {
            return Err(incorrect_data_type(
                "DELETE",
                path,
                resolve(original, path),
                value,
            ));
        }
    }
    let mut operands = Vec::with_capacity(update.set.len());
    // A set deep inside a literal that lands in the item (an empty one in a list) is found in
    // the updated item, after every other check of the update (the sums included): its error
    // waits here.
    let mut deep_literal: Option<Error> = None;
    for (path, value) in &update.set {
        operands.push((path, set_operands(value, original, &mut deep_literal)?));
    }
    let mut written: Vec<&Path> = update
        .set
        .iter()
        .map(|(p, _)| p)
        .chain(update.add.iter().chain(&update.delete).map(|(p, _)| p))
        .collect();
    written.sort_by(|a, b| cmp_paths(a, b));
    for path in written.into_iter().chain(&update.remove) {
        check_parent(original, path)?;
    }
    let mut writes: Vec<(&Path, AttributeValue)> = Vec::new();
    let mut removals: Vec<&Path> = Vec::new();
    for (path, operands) in operands {
        writes.push((path, set_value(operands)?));
    }
    for (path, value) in &update.add {
        writes.push((path, add(path, value, original)?));
    }
    // A DELETE that leaves no set (it emptied it, or there was none) wrote nothing to return.
    let mut moved: Vec<(Path, Option<Path>)> = Vec::new();
    for (path, value) in &update.delete {
        match delete(path, value, original)? {
            Deleted::Left(rest) => writes.push((path, rest)),
            Deleted::Emptied => {
                removals.push(path);
                moved.push((path.clone(), None));
            }
            Deleted::Nothing => moved.push((path.clone(), None)),
        }
    }
    removals.extend(&update.remove);
    if let Some(e) = deep_literal {
        return Err(e);
    }

    // Writes in path order, so that several SETs past the end of one list append in index
    // order; then removals from the highest list index down, so that indexes stay original.
    // Where a written list element lands is followed through both (`moved`).
    writes.sort_by(|a, b| cmp_paths(a.0, b.0));
    for (path, value) in writes {
        let landed = write(item, path, value);
        if path.0.iter().any(|e| matches!(e, PathElement::Index(_))) {
            let mut to = path.clone();
            if let (Some(at), Some(PathElement::Index(i))) = (landed, to.0.last_mut()) {
                *i = at;
            }
            moved.push((path.clone(), Some(to)));
        }
    }
    removals.sort_by(|a, b| cmp_paths(b, a));
    for path in removals {
        let Some(removed) = remove(item, path) else {
            continue;
        };
        // The elements after a removed one shift down by one.
        let depth = path.0.len() - 1;
        for (_, to) in moved.iter_mut() {
            if let Some(PathElement::Index(k)) = to
                .as_mut()
                .filter(|to| to.0.len() > depth && to.0[..depth] == path.0[..depth])
                .and_then(|to| to.0.get_mut(depth))
                && *k > removed
            {
                *k -= 1;
            }
        }
    }
    moved.retain(|(from, to)| to.as_ref() != Some(from));

    let mut touched: Vec<String> = Vec::new();
    for top in paths.iter().filter_map(|p| p.top()) {
        if !touched.iter().any(|t| t == top) {
            touched.push(top.to_owned());
        }
    }
    Ok(Applied { touched, moved })
}
