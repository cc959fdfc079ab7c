//! UpdateExpression: SET, REMOVE, ADD and DELETE actions on one item.
//!
//! DynamoDB's model, which this follows step by step: every action reads the item as it was
//! before the update (`SET a = b, b = a` swaps; `SET x = :v, y = x` fails when `x` did not
//! exist); list indexes name positions in the original list (`REMOVE a[1] SET a[3] = :v` sets
//! the original fourth element); no two actions may touch overlapping paths. So the update is
//! computed in full against the original item, validated, and only then written, which also
//! leaves the item untouched when any action fails.

use std::cmp::Ordering;
use std::collections::HashSet;

use super::{
    check_path, display_path, resolve, resolve_elements, type_name, validate_value, Layer,
};
use crate::error::{Error, Result};
use crate::expr::{Path, PathElement, SetValue, Update, UpdateOperand};
use crate::value::{AttributeValue, Item};
use crate::value::{Number, NumberError};

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

/// Checks an update as DynamoDB does before it looks at the table or the item, in its order:
/// every path, the literal operands of ADD and DELETE (a number or a set, a set), those of SET
/// (`+` and `-` take numbers, `list_append` lists), then that no two paths overlap. That the
/// update leaves the key alone needs the table's schema: [`apply`] checks it.
pub(super) fn check(update: &Update) -> Result<()> {
    for path in update.paths() {
        check_path(path, EXPRESSION)?;
    }
    for (_, value) in &update.add {
        if !matches!(
            value,
            AttributeValue::N(_)
                | AttributeValue::Ss(_)
                | AttributeValue::Ns(_)
                | AttributeValue::Bs(_)
        ) {
            return Err(incorrect_action_operand("ADD", value));
        }
        validate_value(value, "expression value")?;
    }
    for (_, value) in &update.delete {
        if !matches!(
            value,
            AttributeValue::Ss(_) | AttributeValue::Ns(_) | AttributeValue::Bs(_)
        ) {
            return Err(incorrect_action_operand("DELETE", value));
        }
        validate_value(value, "expression value")?;
    }
    for (_, value) in &update.set {
        check_set_value(value)?;
    }
    super::check_update_overlap(update)
}

/// Static checks of a SET value: operand paths are valid, literals are valid values of a type
/// their operator takes (`+` and `-` numbers, `list_append` lists). Functions nest
/// (`list_append(if_not_exists(l, :empty), :v)`, `list_append(list_append(a, b), c)`), as the
/// UpdateExpression grammar's `operand ::= path | function` allows.
fn check_set_value(value: &SetValue) -> Result<()> {
    match value {
        SetValue::Operand(op) => check_operand(op, None),
        SetValue::Plus(a, b) => {
            check_operand(a, Some("+"))?;
            check_operand(b, Some("+"))
        }
        SetValue::Minus(a, b) => {
            check_operand(a, Some("-"))?;
            check_operand(b, Some("-"))
        }
    }
}

/// `arithmetic`: the operator (`+`, `-`) whose operand this is, which takes numbers.
///
/// A literal's own validity is not checked here: what DynamoDB checks as it reads the request
/// (numbers, NULL, a set at the top of a value) was checked before ([`super::check_values`]),
/// and a set deeper in it (an empty one inside a list) is found only in the item the update
/// leaves, if the literal lands there: after the paths overlap check and the condition, as
/// dynoxide answers (UpdateItem validates the updated item's values; a transaction checks every
/// set of its values up front).
fn check_operand(op: &UpdateOperand, arithmetic: Option<&str>) -> Result<()> {
    match op {
        UpdateOperand::Path(p) => check_path(p, EXPRESSION),
        UpdateOperand::Value(v) => match (arithmetic, v) {
            (Some(symbol), v) if !matches!(v, AttributeValue::N(_)) => {
                Err(incorrect_operand(symbol, v))
            }
            _ => Ok(()),
        },
        UpdateOperand::IfNotExists(p, default) => {
            check_path(p, EXPRESSION)?;
            check_operand(default, None)
        }
        UpdateOperand::ListAppend(a, b) => {
            for operand in [a, b] {
                if let UpdateOperand::Value(v) = &**operand
                    && !matches!(v, AttributeValue::L(_))
                {
                    return Err(incorrect_operand("list_append", v));
                }
            }
            check_nested(a)?;
            check_nested(b)
        }
    }
}

/// An operand of a `list_append`: its paths and values are checked, but a `list_append` inside
/// it has its literals' types checked only when the update is applied (dynoxide's order).
fn check_nested(op: &UpdateOperand) -> Result<()> {
    match op {
        UpdateOperand::ListAppend(a, b) => {
            check_nested(a)?;
            check_nested(b)
        }
        other => check_operand(other, None),
    }
}

/// A SET action's operands, read from the original item: its value, or the two sides of a sum or
/// difference with their operator.
enum SetOperands<'u> {
    Value(AttributeValue),
    Arithmetic {
        symbol: &'static str,
        a: &'u UpdateOperand,
        b: &'u UpdateOperand,
        x: AttributeValue,
        y: AttributeValue,
    },
}

/// A SET action's operands read from the item, their types checked (dynoxide reads and checks
/// one action's operands before the next action's).
fn set_operands<'u>(
    value: &'u SetValue,
    item: &Item,
    deep_literal: &mut Option<Error>,
) -> Result<SetOperands<'u>> {
    let (a, b, symbol) = match value {
        SetValue::Operand(op) => return operand(op, item, deep_literal).map(SetOperands::Value),
        SetValue::Plus(a, b) => (a, b, "+"),
        SetValue::Minus(a, b) => (a, b, "-"),
    };
    let (x, y) = (
        operand(a, item, deep_literal)?,
        operand(b, item, deep_literal)?,
    );
    for (op, v) in [(a, &x), (b, &y)] {
        if !matches!(v, AttributeValue::N(_)) {
            return Err(wrong_operand(op, symbol, v));
        }
    }
    Ok(SetOperands::Arithmetic { symbol, a, b, x, y })
}

/// The value a SET action writes.
fn set_value(operands: SetOperands<'_>) -> Result<AttributeValue> {
    let (symbol, a, b, x, y) = match operands {
        SetOperands::Value(v) => return Ok(v),
        SetOperands::Arithmetic { symbol, a, b, x, y } => (symbol, a, b, x, y),
    };
    let number = |op: &UpdateOperand, v: &AttributeValue| match v {
        AttributeValue::N(n) => Number::parse_checked(n).map_err(|e| number_error(e, n)),
        other => Err(wrong_operand(op, symbol, other)),
    };
    let (dx, dy) = (number(a, &x)?, number(b, &y)?);
    let result = if symbol == "+" {
        dx.add(&dy)
    } else {
        dx.sub(&dy)
    };
    checked(result, || format!("{dx} {symbol} {dy}"))
}

/// The value of an operand, read from the original item. A literal's fault deep inside it is kept
/// in `deep_literal` (the first one met) and the literal read as sent: DynamoDB names it only
/// once the update has been applied (see [`apply`]).
fn operand(
    op: &UpdateOperand,
    item: &Item,
    deep_literal: &mut Option<Error>,
) -> Result<AttributeValue> {
    match op {
        UpdateOperand::Path(p) => resolve(item, p).cloned().ok_or_else(|| {
            Error::validation(format!(
                "The provided expression refers to an attribute that does not exist in the item; path: {}",
                display_path(p)
            ))
        }),
        // Its request-time checks were made before (see `check_operand`); what is left is a set
        // deep inside it, which DynamoDB finds in the updated item, in the older layer's words.
        UpdateOperand::Value(v) => Ok(
            match super::validate_value_on(v, "expression value", Layer::Older) {
                Ok(valid) => valid,
                Err(e) => {
                    deep_literal.get_or_insert(e);
                    v.clone()
                }
            },
        ),
        UpdateOperand::IfNotExists(p, default) => match resolve(item, p) {
            Some(v) => Ok(v.clone()),
            None => operand(default, item, deep_literal),
        },
        UpdateOperand::ListAppend(a, b) => match (
            operand(a, item, deep_literal)?,
            operand(b, item, deep_literal)?,
        ) {
            (AttributeValue::L(mut a), AttributeValue::L(b)) => {
                a.extend(b);
                Ok(AttributeValue::L(a))
            }
            (AttributeValue::L(_), other) => Err(wrong_operand(b, "list_append", &other)),
            (other, _) => Err(wrong_operand(a, "list_append", &other)),
        },
    }
}

/// The value an ADD action writes: a sum, a union, or the operand itself on a missing attribute.
/// The operand's type was checked by [`check`].
fn add(path: &Path, value: &AttributeValue, item: &Item) -> Result<AttributeValue> {
    let value = validate_value(value, "expression value")?;
    let Some(existing) = resolve(item, path) else {
        return Ok(value);
    };
    Ok(match (existing, &value) {
        (AttributeValue::N(e), AttributeValue::N(v)) => {
            let (de, dv) = (
                Number::parse_checked(e).map_err(|err| number_error(err, e))?,
                Number::parse_checked(v).map_err(|err| number_error(err, v))?,
            );
            checked(de.add(&dv), || format!("{de} + {dv}"))?
        }
        (AttributeValue::Ss(e), AttributeValue::Ss(v)) => {
            AttributeValue::Ss(union(e, v, |x| x.clone()))
        }
        (AttributeValue::Bs(e), AttributeValue::Bs(v)) => {
            AttributeValue::Bs(union(e, v, |x| x.as_ref().to_vec()))
        }
        (AttributeValue::Ns(e), AttributeValue::Ns(v)) => {
            AttributeValue::Ns(union(e, v, |x| number_key(x)))
        }
        (existing, _) => return Err(incorrect_data_type("ADD", path, Some(existing), &value)),
    })
}

/// What a DELETE action leaves.
enum Deleted {
    /// The remaining elements.
    Left(AttributeValue),
    /// No element remains: the attribute goes, as DynamoDB keeps no empty set.
    Emptied,
    /// The attribute does not exist.
    Nothing,
}

/// The operand's type was checked by [`check`].
fn delete(path: &Path, value: &AttributeValue, item: &Item) -> Result<Deleted> {
    let value = validate_value(value, "expression value")?;
    let Some(existing) = resolve(item, path) else {
        return Ok(Deleted::Nothing);
    };
    let left = match (existing, &value) {
        (AttributeValue::Ss(e), AttributeValue::Ss(v)) => {
            AttributeValue::Ss(difference(e, v, |x| x.clone()))
        }
        (AttributeValue::Bs(e), AttributeValue::Bs(v)) => {
            AttributeValue::Bs(difference(e, v, |x| x.as_ref().to_vec()))
        }
        (AttributeValue::Ns(e), AttributeValue::Ns(v)) => {
            AttributeValue::Ns(difference(e, v, |x| number_key(x)))
        }
        (existing, _) => return Err(incorrect_data_type("DELETE", path, Some(existing), &value)),
    };
    let empty = match &left {
        AttributeValue::Ss(v) | AttributeValue::Ns(v) => v.is_empty(),
        AttributeValue::Bs(v) => v.is_empty(),
        _ => false,
    };
    Ok(if empty {
        Deleted::Emptied
    } else {
        Deleted::Left(left)
    })
}

/// Set elements compare by value: numbers numerically.
fn number_key(n: &str) -> String {
    Number::parse(n)
        .map(|d| d.to_string())
        .unwrap_or_else(|_| n.to_owned())
}

fn union<T: Clone, K: std::hash::Hash + Eq>(
    existing: &[T],
    added: &[T],
    key: impl Fn(&T) -> K,
) -> Vec<T> {
    let mut seen: HashSet<K> = existing.iter().map(&key).collect();
    let mut out = existing.to_vec();
    out.extend(added.iter().filter(|x| seen.insert(key(x))).cloned());
    out
}

fn difference<T: Clone, K: std::hash::Hash + Eq>(
    existing: &[T],
    removed: &[T],
    key: impl Fn(&T) -> K,
) -> Vec<T> {
    let removed: HashSet<K> = removed.iter().map(&key).collect();
    existing
        .iter()
        .filter(|x| !removed.contains(&key(x)))
        .cloned()
        .collect()
}

/// An arithmetic result as DynamoDB stores it, or its error.
fn checked(result: Number, operation: impl FnOnce() -> String) -> Result<AttributeValue> {
    match result.check() {
        Ok(()) => Ok(AttributeValue::N(result.to_string())),
        Err(NumberError::Precision) => Err(Error::validation(format!(
            "{}: the exact result of {} has {} significant digits",
            NumberError::Precision.message(),
            operation(),
            result.significant_digits()
        ))),
        Err(e) => Err(Error::validation(format!(
            "{}: result of {}",
            e.message(),
            operation()
        ))),
    }
}

fn number_error(e: NumberError, n: &str) -> Error {
    Error::validation(format!("{}: {n}", e.message()))
}

fn incorrect_operand(function: &str, value: &AttributeValue) -> Error {
    Error::validation(format!(
        "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: {function}, operand type: {}",
        type_name(value)
    ))
}

/// An operand of the wrong type met while the update is applied: a value read from the item, or
/// a literal the static check leaves to this point (one inside a nested `list_append`, as
/// dynoxide checks only the outer function's literals before reading the item).
fn wrong_operand(_op: &UpdateOperand, function: &str, value: &AttributeValue) -> Error {
    Error::validation(format!(
        "An operand in the update expression has an incorrect data type; {function} of {}",
        type_name(value)
    ))
}

fn incorrect_action_operand(action: &str, value: &AttributeValue) -> Error {
    // DynamoDB names the operand's type in its own spelling here (dynoxide agrees).
    let operand = match value {
        AttributeValue::S(_) => "STRING",
        AttributeValue::N(_) => "NUMBER",
        AttributeValue::B(_) => "Binary",
        AttributeValue::Bool(_) => "BOOL",
        AttributeValue::Null(_) => "NULL",
        AttributeValue::L(_) => "LIST",
        AttributeValue::M(_) => "MAP",
        other => type_name(other),
    };
    Error::validation(format!(
        "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: {action}, operand type: {operand}, typeSet: ALLOWED_FOR_{action}_OPERAND"
    ))
}

fn incorrect_data_type(
    action: &str,
    path: &Path,
    existing: Option<&AttributeValue>,
    value: &AttributeValue,
) -> Error {
    Error::validation(format!(
        "An operand in the update expression has an incorrect data type; {action} of {} to {} holding {}",
        type_name(value),
        display_path(path),
        existing.map_or("nothing", type_name)
    ))
}

/// Whether ADD can apply `value` to what the item holds at its path (dynoxide's rule): a number
/// to a number, a set to a set of its kind, either to nothing.
fn add_fits(existing: Option<&AttributeValue>, value: &AttributeValue) -> bool {
    use AttributeValue as V;
    matches!(
        (existing, value),
        (Some(V::N(_)) | None, V::N(_))
            | (Some(V::Ss(_)) | None, V::Ss(_))
            | (Some(V::Ns(_)) | None, V::Ns(_))
            | (Some(V::Bs(_)) | None, V::Bs(_))
    )
}

/// Whether DELETE can apply `value` to what the item holds at its path: a set from a set of its
/// kind, anything from nothing (which it leaves alone).
fn delete_fits(existing: Option<&AttributeValue>, value: &AttributeValue) -> bool {
    use AttributeValue as V;
    matches!(
        (existing, value),
        (None, _)
            | (Some(V::Ss(_)), V::Ss(_))
            | (Some(V::Ns(_)), V::Ns(_))
            | (Some(V::Bs(_)), V::Bs(_))
    )
}

/// A nested path can only be written or removed inside an existing map (for a key) or list
/// (for an index).
fn check_parent(item: &Item, path: &Path) -> Result<()> {
    let Some((last, parent)) = path.0.split_last() else {
        return Ok(());
    };
    if parent.is_empty() {
        return Ok(());
    }
    match (resolve_elements(item, parent), last) {
        (Some(AttributeValue::M(_)), PathElement::Attr(_))
        | (Some(AttributeValue::L(_)), PathElement::Index(_)) => Ok(()),
        _ => Err(Error::validation(format!(
            "The document path provided in the update expression is invalid for update; path: {}",
            display_path(path)
        ))),
    }
}

/// Path order: element by element, map keys by name, list indexes by number.
fn cmp_paths(a: &Path, b: &Path) -> Ordering {
    for (x, y) in a.0.iter().zip(&b.0) {
        let order = match (x, y) {
            (PathElement::Attr(x), PathElement::Attr(y)) => x.cmp(y),
            (PathElement::Index(x), PathElement::Index(y)) => x.cmp(y),
            (PathElement::Attr(_), PathElement::Index(_)) => Ordering::Less,
            (PathElement::Index(_), PathElement::Attr(_)) => Ordering::Greater,
        };
        if order != Ordering::Equal {
            return order;
        }
    }
    a.0.len().cmp(&b.0.len())
}

/// The value at a path, for writing.
fn navigate<'a>(item: &'a mut Item, elements: &[PathElement]) -> Option<&'a mut AttributeValue> {
    let (PathElement::Attr(name), rest) = elements.split_first()? else {
        return None;
    };
    let mut current = item.get_mut(name)?;
    for element in rest {
        current = match (current, element) {
            (AttributeValue::M(map), PathElement::Attr(key)) => map.get_mut(key)?,
            (AttributeValue::L(list), PathElement::Index(i)) => list.get_mut(*i)?,
            _ => return None,
        };
    }
    Some(current)
}

/// Writes `value` at `path` (parent checked): a map key is inserted or replaced; a list index
/// past the end appends. The index it landed at when it wrote a list element.
fn write(item: &mut Item, path: &Path, value: AttributeValue) -> Option<usize> {
    match path.0.split_last() {
        Some((PathElement::Attr(name), [])) => {
            item.insert(name.clone(), value);
            None
        }
        Some((last, parent)) => match (navigate(item, parent), last) {
            (Some(AttributeValue::M(map)), PathElement::Attr(key)) => {
                map.insert(key.clone(), value);
                None
            }
            (Some(AttributeValue::L(list)), PathElement::Index(i)) => match list.get_mut(*i) {
                Some(slot) => {
                    *slot = value;
                    Some(*i)
                }
                None => {
                    list.push(value);
                    Some(list.len() - 1)
                }
            },
            _ => {
                debug_assert!(false, "parent of {path:?} was checked");
                None
            }
        },
        None => None,
    }
}

/// Removes the value at `path`, if any: a removed list element shifts the ones after it. The
/// index of the list element it removed.
fn remove(item: &mut Item, path: &Path) -> Option<usize> {
    match path.0.split_last() {
        Some((PathElement::Attr(name), [])) => {
            item.remove(name);
            None
        }
        Some((last, parent)) => match (navigate(item, parent), last) {
            (Some(AttributeValue::M(map)), PathElement::Attr(key)) => {
                map.remove(key);
                None
            }
            (Some(AttributeValue::L(list)), PathElement::Index(i)) if *i < list.len() => {
                list.remove(*i);
                Some(*i)
            }
            _ => None,
        },
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::apply_update;
    use super::super::tests::{b, bs, item, l, m, message, n, ns, path, s, ss};
    use super::*;

    const KEYS: &[&str] = &["pk", "sk"];

    fn base() -> Item {
        item(vec![("pk", s("P")), ("sk", s("S"))])
    }

    fn with(attrs: Vec<(&str, AttributeValue)>) -> Item {
        let mut it = base();
        it.extend(item(attrs));
        it
    }

    fn set(p: &str, value: SetValue) -> (Path, SetValue) {
        (path(p), value)
    }
    fn val(v: AttributeValue) -> UpdateOperand {
        UpdateOperand::Value(v)
    }
    fn at(p: &str) -> UpdateOperand {
        UpdateOperand::Path(path(p))
    }
    fn set_to(p: &str, v: AttributeValue) -> (Path, SetValue) {
        set(p, SetValue::value(v))
    }

    /// Applies the update to a copy and returns the new item.
    fn run(it: &Item, update: &Update) -> Result<Item> {
        let mut copy = it.clone();
        apply_update(update, KEYS, &mut copy)?;
        Ok(copy)
    }

    /// The validation message, checking the item is untouched.
    fn fails(it: &Item, update: &Update) -> String {
        let mut copy = it.clone();
        let err = apply_update(update, KEYS, &mut copy).expect_err("expected an error");
        assert_eq!(&copy, it, "a failed update leaves the item as it was");
        message(err)
    }

    fn sets(actions: Vec<(Path, SetValue)>) -> Update {
        Update {
            set: actions,
            ..Update::default()
        }
    }
    fn removes(paths: &[&str]) -> Update {
        Update {
            remove: paths.iter().map(|p| path(p)).collect(),
            ..Update::default()
        }
    }
    fn adds(p: &str, v: AttributeValue) -> Update {
        Update {
            add: vec![(path(p), v)],
            ..Update::default()
        }
    }
    fn deletes(p: &str, v: AttributeValue) -> Update {
        Update {
            delete: vec![(path(p), v)],
            ..Update::default()
        }
    }

    /// dynoxide's order (the differential's reference): an ADD or DELETE that does not fit what
    /// the item holds is named before a SET's missing operand or bad path; each SET's operands
    /// are read and type-checked before the next SET's; paths are checked after every operand;
    /// a literal inside a nested list_append is checked when applied, in the item's words.
    #[test]
    fn faults_are_named_in_dynoxides_order() {
        let it = with(vec![("str", s("x")), ("list", l(vec![n("1")]))]);
        let missing_then_misfit = Update {
            set: vec![set("a", SetValue::Operand(at("missing")))],
            add: vec![(path("str"), n("1"))],
            ..Update::default()
        };
        assert!(fails(&it, &missing_then_misfit)
            .starts_with("An operand in the update expression has an incorrect data type; ADD"));
        let misfit_delete = Update {
            remove: vec![path("nope.deeper")],
            delete: vec![(path("list"), ss(&["a"]))],
            ..Update::default()
        };
        assert!(fails(&it, &misfit_delete)
            .starts_with("An operand in the update expression has an incorrect data type; DELETE"));
        // The first SET's wrong operand type comes before the second SET's missing attribute.
        let sum_then_missing = sets(vec![
            set("a", SetValue::Plus(at("str"), val(n("1")))),
            set("b", SetValue::Operand(at("missing"))),
        ]);
        assert!(fails(&it, &sum_then_missing)
            .starts_with("An operand in the update expression has an incorrect data type; +"));
        // A bad path is named only once every operand has been read.
        let path_then_missing = sets(vec![
            set_to("str.x", n("1")),
            set("b", SetValue::Operand(at("missing"))),
        ]);
        assert!(fails(&it, &path_then_missing)
            .starts_with("The provided expression refers to an attribute that does not exist"));
        // A nested list_append's literal passes the static check and fails when applied.
        let nested = sets(vec![set(
            "list",
            SetValue::Operand(UpdateOperand::ListAppend(
                Box::new(UpdateOperand::ListAppend(
                    Box::new(val(s("no list"))),
                    Box::new(val(l(vec![]))),
                )),
                Box::new(at("list")),
            )),
        )]);
        assert!(check(&nested).is_ok());
        // Reading the request comes first: a number it cannot read in any value, even nested,
        // before an ADD operand of the wrong type; a repeated member of a set inside a list is
        // left to the update's own checks.
        use super::super::{check_values, Layer};
        let unreadable = Update {
            set: vec![set_to("a", l(vec![m(vec![("k", n("abc"))])]))],
            add: vec![(path("b"), s("no number"))],
            ..Update::default()
        };
        assert!(check(&unreadable).is_err());
        assert!(
            message(check_values(Some(&unreadable), None, Layer::Current).unwrap_err())
                .starts_with("The parameter cannot be converted to a numeric value: abc")
        );
        let nested_duplicate = sets(vec![set_to("a", l(vec![ss(&["x", "x"])]))]);
        assert!(check_values(Some(&nested_duplicate), None, Layer::Current).is_ok());
        let top_duplicate = sets(vec![set_to("a", ss(&["x", "x"]))]);
        assert!(
            message(check_values(Some(&top_duplicate), None, Layer::Current).unwrap_err())
                .contains("contains duplicates")
        );
        assert!(fails(&it, &nested).starts_with(
            "An operand in the update expression has an incorrect data type; list_append"
        ));
    }

    #[test]
    fn set_literal_values_normalizes_numbers() {
        let got = run(
            &base(),
            &sets(vec![
                set_to("a", n("1.50")),
                set_to("b", s("x")),
                set_to("c", ns(&["1e1", "2"])),
            ]),
        )
        .unwrap();
        assert_eq!(
            got,
            with(vec![
                ("a", n("1.5")),
                ("b", s("x")),
                ("c", ns(&["10", "2"]))
            ])
        );
        let got = run(
            &got,
            &sets(vec![
                set_to("a", l(vec![])),
                set_to("b", m(vec![])),
                set_to("c", s("")),
            ]),
        )
        .unwrap();
        assert_eq!(
            got,
            with(vec![("a", l(vec![])), ("b", m(vec![])), ("c", s(""))]),
            "empty lists, maps and strings are values"
        );
    }

    #[test]
    fn set_rejects_invalid_literals() {
        assert!(fails(&base(), &sets(vec![set_to("a", ss(&[]))])).contains("may not be empty"));
        assert!(fails(&base(), &sets(vec![set_to("a", n("1e126"))])).contains("Number overflow"));
        assert!(fails(
            &base(),
            &sets(vec![set_to(
                "a",
                n("12345678901234567890123456789012345678901")
            )])
        )
        .contains("38 significant digits"));
        assert!(fails(&base(), &sets(vec![set_to("a", n("one"))])).contains("numeric value: one"));
    }

    #[test]
    fn set_copies_paths_from_the_original_item() {
        let it = with(vec![
            ("a", s("hello")),
            ("n", m(vec![("c", l(vec![n("7")]))])),
        ]);
        let got = run(
            &it,
            &sets(vec![
                set("b", SetValue::Operand(at("a"))),
                set("z", SetValue::Operand(at("n.c[0]"))),
            ]),
        )
        .unwrap();
        assert_eq!(got["b"], s("hello"));
        assert_eq!(got["z"], n("7"));
        // Operands read the item before the update: `SET x = :v, y = x` finds no x.
        let err = fails(
            &it,
            &sets(vec![
                set_to("x", n("4")),
                set("y", SetValue::Operand(at("x"))),
            ]),
        );
        assert!(
            err.starts_with(
                "The provided expression refers to an attribute that does not exist in the item"
            ),
            "{err}"
        );
        assert!(
            fails(&it, &sets(vec![set("c", SetValue::Operand(at("zz")))])).contains("path: [zz]")
        );
        // So two SETs can swap values.
        let it = with(vec![("a", n("1")), ("b", n("2"))]);
        let got = run(
            &it,
            &sets(vec![
                set("a", SetValue::Operand(at("b"))),
                set("b", SetValue::Operand(at("a"))),
            ]),
        )
        .unwrap();
        assert_eq!((got["a"].clone(), got["b"].clone()), (n("2"), n("1")));
        // And `REMOVE a SET b = a` moves a value.
        let mut update = removes(&["a"]);
        update.set.push(set("c", SetValue::Operand(at("a"))));
        assert_eq!(
            run(&it, &update).unwrap(),
            with(vec![("b", n("2")), ("c", n("1"))])
        );
        // Key attributes can be read.
        assert_eq!(
            run(
                &base(),
                &sets(vec![set("copy", SetValue::Operand(at("pk")))])
            )
            .unwrap()["copy"],
            s("P")
        );
    }

    #[test]
    fn set_nested_paths() {
        let it = with(vec![(
            "a",
            m(vec![
                ("b", n("3")),
                (
                    "c",
                    l(vec![
                        s("hi"),
                        m(vec![("x", m(vec![("y", l(vec![n("3"), n("5"), n("7")]))]))]),
                    ]),
                ),
            ]),
        )]);
        let got = run(
            &it,
            &sets(vec![
                set_to("a.c[1].x.y[1]", n("9")),
                set_to("a.d", s("new")),
            ]),
        )
        .unwrap();
        assert_eq!(
            got["a"],
            m(vec![
                ("b", n("3")),
                (
                    "c",
                    l(vec![
                        s("hi"),
                        m(vec![("x", m(vec![("y", l(vec![n("3"), n("9"), n("7")]))]))])
                    ])
                ),
                ("d", s("new")),
            ])
        );
        // Replacing a nested value with one of another type.
        assert_eq!(
            run(&it, &sets(vec![set_to("a.c", n("7"))])).unwrap()["a"],
            m(vec![("b", n("3")), ("c", n("7"))])
        );
    }

    #[test]
    fn set_needs_an_existing_parent() {
        let it = with(vec![
            ("a", s("hello")),
            ("b", l(vec![s("hi")])),
            ("m", m(vec![])),
        ]);
        for p in [
            "a.c", "b.c", "c.c", "m.x.y", "a[0]", "c[0]", "m[0]", "b[3].x",
        ] {
            let err = fails(&it, &sets(vec![set_to(p, n("7"))]));
            assert!(
                err.starts_with(
                    "The document path provided in the update expression is invalid for update"
                ),
                "{p}: {err}"
            );
        }
        // Also when the item does not exist yet (the engine passes the key alone).
        let mut fresh = base();
        let err = apply_update(&sets(vec![set_to("c.c", n("7"))]), KEYS, &mut fresh).unwrap_err();
        assert!(message(err).contains("invalid for update"));
    }

    #[test]
    fn set_list_index_replaces_or_appends_in_index_order() {
        let it = with(vec![("a", l(vec![s("one"), s("two"), s("three")]))]);
        assert_eq!(
            run(&it, &sets(vec![set_to("a[1]", s("hello"))])).unwrap()["a"],
            l(vec![s("one"), s("hello"), s("three")])
        );
        let got = run(&it, &sets(vec![set_to("a[7]", s("hello"))])).unwrap();
        assert_eq!(
            got["a"],
            l(vec![s("one"), s("two"), s("three"), s("hello")]),
            "past the end appends"
        );
        let got = run(
            &got,
            &sets(vec![
                set_to("a[84]", s("a1")),
                set_to("a[37]", s("a2")),
                set_to("a[17]", s("a3")),
                set_to("a[50]", s("a4")),
            ]),
        )
        .unwrap();
        let expected = ["one", "two", "three", "hello", "a3", "a2", "a4", "a1"];
        assert_eq!(
            got["a"],
            l(expected.iter().map(|x| s(x)).collect()),
            "appended in index order"
        );
        let got = run(
            &it,
            &sets(vec![
                set_to("a[4]", s("x")),
                set_to("a[3]", s("y")),
                set_to("a[0]", s("z")),
            ]),
        )
        .unwrap();
        assert_eq!(
            got["a"],
            l(vec![s("z"), s("two"), s("three"), s("y"), s("x")])
        );
        let empty = with(vec![("a", l(vec![]))]);
        assert_eq!(
            run(&empty, &sets(vec![set_to("a[0]", n("1"))])).unwrap()["a"],
            l(vec![n("1")])
        );
    }

    #[test]
    fn plus_and_minus_are_exact() {
        let it = with(vec![("a", n("2")), ("b", n("0.1")), ("s", s("dog"))]);
        let plus = |x, y| SetValue::Plus(x, y);
        let minus = |x, y| SetValue::Minus(x, y);
        assert_eq!(
            run(&it, &sets(vec![set("a", plus(at("a"), val(n("3"))))])).unwrap()["a"],
            n("5")
        );
        assert_eq!(
            run(&it, &sets(vec![set("a", plus(val(n("4")), at("a")))])).unwrap()["a"],
            n("6")
        );
        assert_eq!(
            run(&it, &sets(vec![set("c", minus(val(n("7")), at("a")))])).unwrap()["c"],
            n("5")
        );
        assert_eq!(
            run(&it, &sets(vec![set("c", plus(at("b"), val(n("0.2"))))])).unwrap()["c"],
            n("0.3")
        );
        assert_eq!(
            run(&it, &sets(vec![set("c", minus(at("a"), val(n("2.00"))))])).unwrap()["c"],
            n("0")
        );
        let big = sets(vec![set(
            "c",
            plus(val(n("1")), val(n("10000000000000000000000"))),
        )]);
        assert_eq!(run(&it, &big).unwrap()["c"], n("10000000000000000000001"));
        let big = sets(vec![set(
            "c",
            minus(val(n("10000000000000000000000")), val(n("1"))),
        )]);
        assert_eq!(run(&it, &big).unwrap()["c"], n("9999999999999999999999"));
    }

    #[test]
    fn arithmetic_on_38_digit_numbers() {
        let nines = "99999999999999999999999999999999999999";
        let it = with(vec![("a", n(nines))]);
        // The exact result 1E+38 has one significant digit (trailing zeros do not count), so
        // DynamoDB stores it; one more digit of precision is what fails.
        let got = run(
            &it,
            &sets(vec![set("a", SetValue::Plus(at("a"), val(n("1"))))]),
        )
        .unwrap();
        assert_eq!(got["a"], n("100000000000000000000000000000000000000"));
        let err = fails(
            &it,
            &sets(vec![set("a", SetValue::Plus(at("a"), val(n("0.1"))))]),
        );
        assert!(
            err.starts_with("Attempting to store more than 38 significant digits in a Number"),
            "{err}"
        );
        assert!(err.contains("has 39 significant digits"), "{err}");
        let err = fails(&it, &adds("a", n("0.5")));
        assert!(err.contains("38 significant digits"), "{err}");
        let err = fails(
            &base(),
            &sets(vec![set("x", SetValue::Minus(val(n("1e50")), val(n("1"))))]),
        );
        assert!(err.contains("38 significant digits"), "{err}");
        let max = "9.9999999999999999999999999999999999999E+125";
        // 1.09999999999999999999999999999999999999E+126: out of range with 39 significant
        // digits, refused for its digits (dynoxide checks them first).
        let err = fails(
            &base(),
            &sets(vec![set(
                "x",
                SetValue::Plus(val(n(max)), val(n("1E+125"))),
            )]),
        );
        assert!(err.contains("38 significant digits"), "{err}");
        let err = fails(
            &base(),
            &sets(vec![set(
                "x",
                SetValue::Plus(val(n("9e125")), val(n("9e125"))),
            )]),
        );
        assert!(err.starts_with("Number overflow"), "{err}");
        let err = fails(
            &base(),
            &sets(vec![set(
                "x",
                SetValue::Minus(val(n("-9e125")), val(n("9e125"))),
            )]),
        );
        assert!(err.starts_with("Number overflow"), "{err}");
        let err = fails(
            &base(),
            &sets(vec![set(
                "x",
                SetValue::Minus(val(n("1e-130")), val(n("1.1e-130"))),
            )]),
        );
        assert!(err.starts_with("Number underflow"), "{err}");
    }

    #[test]
    fn arithmetic_needs_numbers_that_exist() {
        let it = with(vec![("a", n("2")), ("s", s("dog")), ("l", l(vec![]))]);
        let err = fails(
            &it,
            &sets(vec![set("c", SetValue::Plus(at("s"), val(n("1"))))]),
        );
        // An attribute's value is checked when the item is read: the item's error, not the
        // expression's.
        assert_eq!(
            err,
            "An operand in the update expression has an incorrect data type; + of S"
        );
        assert!(fails(
            &it,
            &sets(vec![set("c", SetValue::Minus(at("a"), at("l")))])
        )
        .contains("incorrect data type; - of L"));
        assert!(fails(
            &it,
            &sets(vec![set("c", SetValue::Plus(val(ss(&["a"])), val(n("1"))))])
        )
        .contains("operand type: SS"));
        assert!(fails(
            &it,
            &sets(vec![set("c", SetValue::Plus(at("missing"), val(n("1"))))])
        )
        .contains("does not exist"));
    }

    #[test]
    fn if_not_exists_picks_the_existing_value_or_the_default() {
        let it = with(vec![("a", n("2"))]);
        let ine = |p: &str, default| UpdateOperand::IfNotExists(path(p), Box::new(default));
        assert_eq!(
            run(
                &it,
                &sets(vec![set("a", SetValue::Operand(ine("a", val(n("3")))))])
            )
            .unwrap()["a"],
            n("2")
        );
        assert_eq!(
            run(
                &it,
                &sets(vec![set("b", SetValue::Operand(ine("c", val(n("4")))))])
            )
            .unwrap()["b"],
            n("4")
        );
        assert_eq!(
            run(
                &it,
                &sets(vec![set("b", SetValue::Operand(ine("a", val(n("6")))))])
            )
            .unwrap()["b"],
            n("2")
        );
        // The counter idiom: SET c = if_not_exists(c, 0) + 1.
        let counter = sets(vec![set(
            "c",
            SetValue::Plus(ine("c", val(n("0"))), val(n("1"))),
        )]);
        let once = run(&it, &counter).unwrap();
        assert_eq!(once["c"], n("1"));
        assert_eq!(run(&once, &counter).unwrap()["c"], n("2"));
        // A default that reads another path.
        assert_eq!(
            run(
                &it,
                &sets(vec![set("b", SetValue::Operand(ine("zz", at("a"))))])
            )
            .unwrap()["b"],
            n("2")
        );
        assert!(fails(
            &it,
            &sets(vec![set("b", SetValue::Operand(ine("zz", at("yy"))))])
        )
        .contains("does not exist"));
    }

    #[test]
    fn list_append_concatenates_lists() {
        let it = with(vec![("a", l(vec![s("hi"), n("2")])), ("s", s("str"))]);
        let append = |x, y| SetValue::Operand(UpdateOperand::ListAppend(Box::new(x), Box::new(y)));
        let got = run(
            &it,
            &sets(vec![set(
                "a",
                append(at("a"), val(l(vec![n("4"), s("hello")]))),
            )]),
        )
        .unwrap();
        assert_eq!(got["a"], l(vec![s("hi"), n("2"), n("4"), s("hello")]));
        let got = run(
            &it,
            &sets(vec![set("a", append(val(l(vec![s("dog")])), at("a")))]),
        )
        .unwrap();
        assert_eq!(got["a"], l(vec![s("dog"), s("hi"), n("2")]));
        let got = run(&it, &sets(vec![set("b", append(at("a"), at("a")))])).unwrap();
        assert_eq!(got["b"], l(vec![s("hi"), n("2"), s("hi"), n("2")]));
        // Appending to a list that may not exist yet.
        let ine = UpdateOperand::IfNotExists(path("new"), Box::new(val(l(vec![]))));
        let got = run(
            &it,
            &sets(vec![set("new", append(ine, val(l(vec![n("1")]))))]),
        )
        .unwrap();
        assert_eq!(got["new"], l(vec![n("1")]));

        let err = fails(&it, &sets(vec![set("a", append(at("a"), val(s("hi"))))]));
        assert_eq!(
            err,
            "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: list_append, operand type: S"
        );
        assert!(fails(&it, &sets(vec![set("a", append(at("s"), at("a")))]))
            .contains("incorrect data type; list_append of S"));
        assert!(
            fails(&it, &sets(vec![set("a", append(at("missing"), at("a")))]))
                .contains("does not exist")
        );
        // Functions nest: list_append(list_append([], [n]), a).
        let nested =
            UpdateOperand::ListAppend(Box::new(val(l(vec![]))), Box::new(val(l(vec![n("7")]))));
        let got = run(&it, &sets(vec![set("a", append(nested, at("a")))])).unwrap();
        assert_eq!(got["a"], l(vec![n("7"), s("hi"), n("2")]));
    }

    #[test]
    fn remove_top_level_and_nested() {
        let it = with(vec![
            ("a", s("hello")),
            ("b", s("hi")),
            (
                "n",
                m(vec![
                    ("b", n("3")),
                    (
                        "c",
                        l(vec![
                            s("hi"),
                            m(vec![
                                ("x", m(vec![("y", l(vec![n("3"), n("5"), n("7")]))])),
                                ("q", n("2")),
                            ]),
                        ]),
                    ),
                ]),
            ),
        ]);
        let got = run(&it, &removes(&["a", "missing"])).unwrap();
        assert!(!got.contains_key("a"));
        assert_eq!(got["b"], s("hi"));
        let got = run(&it, &removes(&["n.c[1].x.y[1]", "n.c[1].q", "n.zz"])).unwrap();
        assert_eq!(
            got["n"],
            m(vec![
                ("b", n("3")),
                (
                    "c",
                    l(vec![
                        s("hi"),
                        m(vec![("x", m(vec![("y", l(vec![n("3"), n("7")]))]))])
                    ])
                )
            ])
        );
        let single = with(vec![("m", m(vec![("b", n("1"))])), ("l", l(vec![n("1")]))]);
        let got = run(&single, &removes(&["m.b", "l[0]"])).unwrap();
        assert_eq!(
            (got["m"].clone(), got["l"].clone()),
            (m(vec![]), l(vec![])),
            "empty maps and lists stay"
        );
    }

    #[test]
    fn remove_list_indexes_shift_and_refer_to_the_original_list() {
        let it = with(vec![(
            "a",
            l(["2", "3", "4", "5", "6", "7"]
                .iter()
                .map(|x| n(x))
                .collect()),
        )]);
        let nums = |xs: &[&str]| l(xs.iter().map(|x| n(x)).collect());
        assert_eq!(
            run(&it, &removes(&["a[0]"])).unwrap()["a"],
            nums(&["3", "4", "5", "6", "7"])
        );
        assert_eq!(
            run(&it, &removes(&["a[1]", "a[3]"])).unwrap()["a"],
            nums(&["2", "4", "6", "7"])
        );
        assert_eq!(
            run(&it, &removes(&["a[3]", "a[1]"])).unwrap()["a"],
            nums(&["2", "4", "6", "7"]),
            "order does not matter"
        );
        assert_eq!(
            run(&it, &removes(&["a[17]"])).unwrap()["a"],
            it["a"],
            "past the end is ignored"
        );
        let mut update = removes(&["a[1]"]);
        update.set.push(set_to("a[3]", n("17")));
        assert_eq!(
            run(&it, &update).unwrap()["a"],
            nums(&["2", "4", "17", "6", "7"])
        );
        let mut update = removes(&["a[1]"]);
        update.set.push(set_to("a[9]", n("8")));
        assert_eq!(
            run(&it, &update).unwrap()["a"],
            nums(&["2", "4", "5", "6", "7", "8"])
        );
        let nested = with(vec![(
            "a",
            l(vec![
                m(vec![("x", n("1"))]),
                m(vec![("x", n("2"))]),
                m(vec![("x", n("3"))]),
            ]),
        )]);
        let got = run(&nested, &removes(&["a[0]", "a[2].x"])).unwrap();
        assert_eq!(got["a"], l(vec![m(vec![("x", n("2"))]), m(vec![])]));
    }

    #[test]
    fn remove_through_a_missing_or_wrong_parent_is_invalid_on_a_new_item_too() {
        let it = with(vec![("a", s("hello")), ("b", l(vec![s("hi")]))]);
        for p in ["a.c", "b.c", "c.c", "a[0]", "c[0]"] {
            let err = fails(&it, &removes(&[p]));
            assert!(err.contains("invalid for update"), "{p}: {err}");
        }
        // An item the update creates holds its key alone: `x.y` and `w[0]` have no parent there
        // either (dynoxide, the reference, refuses them; DynamoDB's documentation is silent),
        // while removing a missing top-level attribute is no error.
        for p in ["x.y", "w[0]"] {
            let mut fresh = base();
            let err = apply_update(&removes(&[p, "z"]), KEYS, &mut fresh).unwrap_err();
            assert!(message(err).contains("invalid for update"), "{p}");
            assert_eq!(fresh, base());
        }
        let mut fresh = base();
        assert_eq!(
            apply_update(&removes(&["z"]), KEYS, &mut fresh)
                .unwrap()
                .touched,
            ["z"]
        );
    }

    #[test]
    fn add_numbers() {
        let it = with(vec![("a", n("3")), ("b", s("hi"))]);
        assert_eq!(run(&it, &adds("a", n("4"))).unwrap()["a"], n("7"));
        assert_eq!(run(&it, &adds("a", n("-3.5"))).unwrap()["a"], n("-0.5"));
        assert_eq!(
            run(&it, &adds("c", n("7.0"))).unwrap()["c"],
            n("7"),
            "a missing number counts as 0"
        );
        let mut fresh = base();
        apply_update(&adds("c", n("8")), KEYS, &mut fresh).unwrap();
        assert_eq!(fresh["c"], n("8"), "ADD creates the item's attribute");
        let nested = with(vec![("m", m(vec![("count", n("1"))]))]);
        assert_eq!(
            run(&nested, &adds("m.count", n("1"))).unwrap()["m"],
            m(vec![("count", n("2"))])
        );
        assert!(fails(&nested, &adds("zz.count", n("1"))).contains("invalid for update"));

        let err = fails(&it, &adds("b", n("1")));
        assert!(
            err.starts_with("An operand in the update expression has an incorrect data type"),
            "{err}"
        );
        let err = fails(&it, &adds("a", s("hello")));
        assert_eq!(err, "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING, typeSet: ALLOWED_FOR_ADD_OPERAND");
        for operand in [
            l(vec![]),
            m(vec![]),
            b(b"x"),
            AttributeValue::Bool(true),
            AttributeValue::Null(true),
        ] {
            assert!(fails(&it, &adds("a", operand)).contains("operator: ADD"));
        }
    }

    #[test]
    fn add_sets() {
        let it = with(vec![
            ("a", ss(&["dog", "cat", "mouse"])),
            ("n", ns(&["1", "2"])),
            ("b", bs(&[b"x"])),
            ("s", s("hi")),
        ]);
        let got = run(&it, &adds("a", ss(&["pig", "cat"]))).unwrap();
        assert!(super::super::values_equal(
            &got["a"],
            &ss(&["dog", "cat", "mouse", "pig"])
        ));
        let AttributeValue::Ss(elements) = &got["a"] else {
            panic!()
        };
        assert_eq!(elements.len(), 4, "no duplicates");
        let got = run(&it, &adds("n", ns(&["2.0", "3"]))).unwrap();
        assert_eq!(got["n"], ns(&["1", "2", "3"]), "numbers compared by value");
        assert_eq!(
            run(&it, &adds("b", bs(&[b"y", b"x"]))).unwrap()["b"],
            bs(&[b"x", b"y"])
        );
        assert_eq!(
            run(&it, &adds("new", ss(&["dog"]))).unwrap()["new"],
            ss(&["dog"]),
            "ADD creates a set"
        );

        assert!(fails(&it, &adds("a", ns(&["1"]))).contains("incorrect data type"));
        assert!(fails(&it, &adds("s", ss(&["x"]))).contains("incorrect data type"));
        assert!(fails(&it, &adds("n", n("1"))).contains("incorrect data type"));
        assert!(
            fails(&it, &adds("a", ss(&[]))).contains("may not be empty"),
            "ADD never leaves an empty set"
        );
        assert!(fails(&it, &adds("a", ss(&["x", "x"]))).contains("duplicates"));
    }

    #[test]
    fn delete_from_sets() {
        let it = with(vec![
            ("a", ss(&["dog", "cat", "mouse"])),
            ("n", ns(&["1", "2.5"])),
            ("b", bs(&[b"x", b"y"])),
            ("s", s("hi")),
        ]);
        assert_eq!(
            run(&it, &deletes("a", ss(&["cat", "mouse"]))).unwrap()["a"],
            ss(&["dog"])
        );
        assert_eq!(
            run(&it, &deletes("a", ss(&["pig"]))).unwrap()["a"],
            it["a"],
            "absent elements are ignored"
        );
        assert_eq!(
            run(&it, &deletes("n", ns(&["2.50"]))).unwrap()["n"],
            ns(&["1"])
        );
        assert_eq!(
            run(&it, &deletes("b", bs(&[b"x"]))).unwrap()["b"],
            bs(&[b"y"])
        );
        let got = run(&it, &deletes("a", ss(&["dog", "cat", "mouse"]))).unwrap();
        assert!(!got.contains_key("a"), "an emptied set is removed");
        assert_eq!(
            run(&it, &deletes("missing", ss(&["dog"]))).unwrap(),
            it,
            "deleting from nothing does nothing"
        );

        assert!(fails(&it, &deletes("a", ss(&[]))).contains("may not be empty"));
        let err = fails(&it, &deletes("a", s("dog")));
        assert_eq!(err, "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: STRING, typeSet: ALLOWED_FOR_DELETE_OPERAND");
        assert!(fails(&it, &deletes("a", n("1"))).contains("operator: DELETE, operand type: N"));
        assert!(fails(&it, &deletes("a", ns(&["1"]))).contains("incorrect data type"));
        assert!(fails(&it, &deletes("s", ss(&["hi"]))).contains("incorrect data type"));
        assert!(fails(&it, &deletes("zz.y", ss(&["hi"]))).contains("invalid for update"));
    }

    #[test]
    fn delete_emptying_a_set_in_a_list_shifts_like_remove() {
        let it = with(vec![("l", l(vec![s("a"), ss(&["x"]), s("b"), s("c")]))]);
        let mut update = deletes("l[1]", ss(&["x"]));
        update.remove.push(path("l[3]"));
        assert_eq!(run(&it, &update).unwrap()["l"], l(vec![s("a"), s("b")]));
    }

    #[test]
    fn key_attributes_cannot_be_updated() {
        let it = with(vec![("a", n("1"))]);
        let expected = "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key";
        assert_eq!(fails(&it, &sets(vec![set_to("pk", s("other"))])), expected);
        assert!(fails(&it, &sets(vec![set_to("sk", s("other"))]))
            .contains("Cannot update attribute sk."));
        assert_eq!(fails(&it, &removes(&["pk"])), expected);
        assert_eq!(fails(&it, &adds("pk", n("1"))), expected);
        assert_eq!(fails(&it, &deletes("pk", ss(&["x"]))), expected);
        assert_eq!(
            fails(&it, &sets(vec![set_to("pk.x", s("other"))])),
            expected
        );
        // Reading a key is fine; so is a non-key attribute.
        assert!(run(&it, &sets(vec![set("a", SetValue::Operand(at("sk")))])).is_ok());
    }

    #[test]
    fn overlapping_and_conflicting_paths_are_refused() {
        let it = with(vec![
            ("a", m(vec![("b", n("1"))])),
            ("l", l(vec![n("1"), n("2")])),
        ]);
        let mut set_and_remove = removes(&["a"]);
        set_and_remove.set.push(set_to("a", n("1")));
        assert!(fails(&it, &set_and_remove).contains("Two document paths overlap with each other"));
        assert!(
            fails(&it, &sets(vec![set_to("a", n("1")), set_to("a", n("2"))])).contains("overlap")
        );
        assert!(
            fails(&it, &sets(vec![set_to("a", n("1")), set_to("a.b", n("2"))])).contains("overlap")
        );
        assert!(fails(
            &it,
            &sets(vec![set_to("l[1]", n("1")), set_to("l", n("2"))])
        )
        .contains("overlap"));
        let mut add_and_delete = adds("s", ss(&["x"]));
        add_and_delete.delete.push((path("s"), ss(&["y"])));
        assert!(fails(&it, &add_and_delete).contains("overlap"));
        let err = fails(
            &it,
            &sets(vec![set_to("a.b", n("1")), set_to("a[1]", n("2"))]),
        );
        assert!(err.contains("Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a, [1]]"), "{err}");
        // Several disjoint changes to one attribute are fine.
        let it = with(vec![
            (
                "a",
                m(vec![
                    ("x", n("3")),
                    ("y", n("4")),
                    ("c", m(vec![("y", n("3"))])),
                ]),
            ),
            ("b", m(vec![("x", n("1")), ("y", n("2"))])),
        ]);
        let mut update = sets(vec![
            set_to("a.b", n("10")),
            set_to("a.c.d", s("dog")),
            set_to("b.x", n("17")),
        ]);
        update.remove = vec![path("a.x"), path("b.y")];
        let got = run(&it, &update).unwrap();
        assert_eq!(
            got["a"],
            m(vec![
                ("y", n("4")),
                ("b", n("10")),
                ("c", m(vec![("y", n("3")), ("d", s("dog"))]))
            ])
        );
        assert_eq!(got["b"], m(vec![("x", n("17"))]));
    }

    #[test]
    fn paths_deeper_than_32_levels_are_refused() {
        let deep = Path(
            std::iter::once(PathElement::Attr("a".into()))
                .chain((0..32).map(|_| PathElement::Attr("b".into())))
                .collect(),
        );
        let update = Update {
            set: vec![(deep, SetValue::value(n("1")))],
            ..Update::default()
        };
        assert!(fails(&base(), &update).contains("nesting levels: 33"));
    }

    #[test]
    fn returns_the_touched_top_level_names_in_action_order() {
        let it = with(vec![
            ("a", m(vec![("x", n("1")), ("y", n("2"))])),
            ("b", n("1")),
            ("s", ss(&["x"])),
        ]);
        let update = Update {
            set: vec![set_to("a.x", n("5")), set_to("c", n("1"))],
            remove: vec![path("a.y"), path("b")],
            add: vec![(path("d"), n("1"))],
            delete: vec![(path("s"), ss(&["x"]))],
        };
        let mut copy = it.clone();
        let touched = apply_update(&update, KEYS, &mut copy).unwrap().touched;
        assert_eq!(touched, ["a", "c", "b", "d", "s"]);
        assert_eq!(
            copy,
            with(vec![
                ("a", m(vec![("x", n("5"))])),
                ("c", n("1")),
                ("d", n("1"))
            ])
        );
        assert_eq!(
            apply_update(&Update::default(), KEYS, &mut copy)
                .unwrap()
                .touched,
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_failing_action_leaves_every_other_action_unapplied() {
        let it = with(vec![("a", n("1")), ("s", s("dog"))]);
        let update = Update {
            set: vec![
                set_to("x", n("1")),
                set("y", SetValue::Plus(at("s"), val(n("1")))),
            ],
            remove: vec![path("a")],
            ..Update::default()
        };
        fails(&it, &update);
        let update = Update {
            set: vec![set_to("x", n("1"))],
            add: vec![(path("s"), n("1"))],
            ..Update::default()
        };
        fails(&it, &update);
    }
}
