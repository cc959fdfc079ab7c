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

use super::number::{Decimal, NumberError};
use super::{check_disjoint, check_path, display_path, resolve, resolve_elements, type_name, validate_value};
use crate::error::{Error, Result};
use crate::expr::{Path, PathElement, SetValue, Update, UpdateOperand};
use crate::value::{AttributeValue, Item};

const EXPRESSION: &str = "UpdateExpression";

/// Applies `update` to `item`; see [`super::apply_update`].
pub(super) fn apply(update: &Update, key_names: &[&str], item: &mut Item, exists: bool) -> Result<Vec<String>> {
    let paths: Vec<&Path> = update.paths().collect();
    for path in &paths {
        check_path(path, EXPRESSION)?;
    }
    if let Some(key) = paths.iter().filter_map(|p| p.top()).find(|top| key_names.contains(top)) {
        return Err(Error::validation(format!(
            "One or more parameter values were invalid: Cannot update attribute {key}. This attribute is part of the key"
        )));
    }
    check_disjoint(paths.iter().copied(), EXPRESSION)?;
    for (_, value) in &update.set {
        check_set_value(value)?;
    }

    // Everything is computed from the original item before anything is written.
    let original: &Item = item;
    let mut writes: Vec<(&Path, AttributeValue)> = Vec::new();
    let mut removals: Vec<&Path> = Vec::new();
    for (path, value) in &update.set {
        writes.push((path, set_value(value, original)?));
    }
    for (path, value) in &update.add {
        writes.push((path, add(path, value, original)?));
    }
    for (path, value) in &update.delete {
        match delete(path, value, original)? {
            Deleted::Left(rest) => writes.push((path, rest)),
            Deleted::Emptied => removals.push(path),
            Deleted::Nothing => {}
        }
    }
    for path in &writes {
        check_parent(original, path.0)?;
    }
    // On an item that did not exist there is nothing to remove or delete from, and DynamoDB
    // ignores such paths, nested ones included, instead of calling them invalid.
    if exists {
        for path in &update.remove {
            check_parent(original, path)?;
        }
        for (path, _) in &update.delete {
            check_parent(original, path)?;
        }
        removals.extend(&update.remove);
    }

    // Writes in path order, so that several SETs past the end of one list append in index
    // order; then removals from the highest list index down, so that indexes stay original.
    writes.sort_by(|a, b| cmp_paths(a.0, b.0));
    for (path, value) in writes {
        write(item, path, value);
    }
    removals.sort_by(|a, b| cmp_paths(b, a));
    for path in removals {
        remove(item, path);
    }

    let mut touched: Vec<String> = Vec::new();
    for top in paths.iter().filter_map(|p| p.top()) {
        if !touched.iter().any(|t| t == top) {
            touched.push(top.to_owned());
        }
    }
    Ok(touched)
}

/// Static checks of a SET value: operand paths are valid, literals are valid values, and
/// `list_append` is not an argument of another function (DynamoDB refuses
/// `list_append(list_append(..), ..)`).
fn check_set_value(value: &SetValue) -> Result<()> {
    match value {
        SetValue::Operand(op) => check_operand(op, false),
        SetValue::Plus(a, b) | SetValue::Minus(a, b) => {
            check_operand(a, false)?;
            check_operand(b, false)
        }
    }
}

fn check_operand(op: &UpdateOperand, in_function: bool) -> Result<()> {
    match op {
        UpdateOperand::Path(p) => check_path(p, EXPRESSION),
        UpdateOperand::Value(v) => validate_value(v, &mut "expression value".to_owned(), 1).map(drop),
        UpdateOperand::IfNotExists(p, default) => {
            check_path(p, EXPRESSION)?;
            check_operand(default, true)
        }
        UpdateOperand::ListAppend(a, b) => {
            if in_function {
                return Err(Error::validation(
                    "Invalid UpdateExpression: The function is not allowed to be used this way in an expression; function: list_append",
                ));
            }
            check_operand(a, true)?;
            check_operand(b, true)
        }
    }
}

/// The value a SET action writes.
fn set_value(value: &SetValue, item: &Item) -> Result<AttributeValue> {
    let (a, b, symbol) = match value {
        SetValue::Operand(op) => return operand(op, item),
        SetValue::Plus(a, b) => (a, b, "+"),
        SetValue::Minus(a, b) => (a, b, "-"),
    };
    let (x, y) = (operand(a, item)?, operand(b, item)?);
    let number = |v: &AttributeValue| match v {
        AttributeValue::N(n) => Decimal::parse_checked(n).map_err(|e| number_error(e, n)),
        other => Err(incorrect_operand(symbol, other)),
    };
    let (dx, dy) = (number(&x)?, number(&y)?);
    let result = if symbol == "+" { dx.add(&dy) } else { dx.sub(&dy) };
    checked(result, || format!("{dx} {symbol} {dy}"))
}

/// The value of an operand, read from the original item.
fn operand(op: &UpdateOperand, item: &Item) -> Result<AttributeValue> {
    match op {
        UpdateOperand::Path(p) => resolve(item, p).cloned().ok_or_else(|| {
            Error::validation(format!(
                "The provided expression refers to an attribute that does not exist in the item; path: {}",
                display_path(p)
            ))
        }),
        UpdateOperand::Value(v) => validate_value(v, &mut "expression value".to_owned(), 1),
        UpdateOperand::IfNotExists(p, default) => match resolve(item, p) {
            Some(v) => Ok(v.clone()),
            None => operand(default, item),
        },
        UpdateOperand::ListAppend(a, b) => match (operand(a, item)?, operand(b, item)?) {
            (AttributeValue::L(mut a), AttributeValue::L(b)) => {
                a.extend(b);
                Ok(AttributeValue::L(a))
            }
            (AttributeValue::L(_), other) | (other, _) => Err(incorrect_operand("list_append", &other)),
        },
    }
}

/// The value an ADD action writes: a sum, a union, or the operand itself on a missing attribute.
fn add(path: &Path, value: &AttributeValue, item: &Item) -> Result<AttributeValue> {
    if !matches!(value, AttributeValue::N(_) | AttributeValue::Ss(_) | AttributeValue::Ns(_) | AttributeValue::Bs(_)) {
        return Err(incorrect_action_operand("ADD", value));
    }
    let value = validate_value(value, &mut "expression value".to_owned(), 1)?;
    let Some(existing) = resolve(item, path) else { return Ok(value) };
    Ok(match (existing, &value) {
        (AttributeValue::N(e), AttributeValue::N(v)) => {
            let (de, dv) = (Decimal::parse_checked(e).map_err(|err| number_error(err, e))?, Decimal::parse_checked(v).map_err(|err| number_error(err, v))?);
            checked(de.add(&dv), || format!("{de} + {dv}"))?
        }
        (AttributeValue::Ss(e), AttributeValue::Ss(v)) => AttributeValue::Ss(union(e, v, |x| x.clone())),
        (AttributeValue::Bs(e), AttributeValue::Bs(v)) => AttributeValue::Bs(union(e, v, |x| x.as_ref().to_vec())),
        (AttributeValue::Ns(e), AttributeValue::Ns(v)) => AttributeValue::Ns(union(e, v, number_key)),
        (existing, _) => return Err(incorrect_data_type("ADD", path, existing, &value)),
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

fn delete(path: &Path, value: &AttributeValue, item: &Item) -> Result<Deleted> {
    if !matches!(value, AttributeValue::Ss(_) | AttributeValue::Ns(_) | AttributeValue::Bs(_)) {
        return Err(incorrect_action_operand("DELETE", value));
    }
    let value = validate_value(value, &mut "expression value".to_owned(), 1)?;
    let Some(existing) = resolve(item, path) else { return Ok(Deleted::Nothing) };
    let left = match (existing, &value) {
        (AttributeValue::Ss(e), AttributeValue::Ss(v)) => AttributeValue::Ss(difference(e, v, |x| x.clone())),
        (AttributeValue::Bs(e), AttributeValue::Bs(v)) => AttributeValue::Bs(difference(e, v, |x| x.as_ref().to_vec())),
        (AttributeValue::Ns(e), AttributeValue::Ns(v)) => AttributeValue::Ns(difference(e, v, number_key)),
        (existing, _) => return Err(incorrect_data_type("DELETE", path, existing, &value)),
    };
    let empty = match &left {
        AttributeValue::Ss(v) | AttributeValue::Ns(v) => v.is_empty(),
        AttributeValue::Bs(v) => v.is_empty(),
        _ => false,
    };
    Ok(if empty { Deleted::Emptied } else { Deleted::Left(left) })
}

/// Set elements compare by value: numbers numerically.
fn number_key(n: &String) -> String {
    Decimal::parse(n).map(|d| d.to_string()).unwrap_or_else(|_| n.clone())
}

fn union<T: Clone, K: std::hash::Hash + Eq>(existing: &[T], added: &[T], key: impl Fn(&T) -> K) -> Vec<T> {
    let mut seen: HashSet<K> = existing.iter().map(&key).collect();
    let mut out = existing.to_vec();
    out.extend(added.iter().filter(|x| seen.insert(key(x))).cloned());
    out
}

fn difference<T: Clone, K: std::hash::Hash + Eq>(existing: &[T], removed: &[T], key: impl Fn(&T) -> K) -> Vec<T> {
    let removed: HashSet<K> = removed.iter().map(&key).collect();
    existing.iter().filter(|x| !removed.contains(&key(x))).cloned().collect()
}

/// An arithmetic result as DynamoDB stores it, or its error.
fn checked(result: Decimal, operation: impl FnOnce() -> String) -> Result<AttributeValue> {
    match result.check() {
        Ok(()) => Ok(AttributeValue::N(result.to_string())),
        Err(NumberError::Precision) => Err(Error::validation(format!(
            "{}: the exact result of {} has {} significant digits",
            NumberError::Precision.message(),
            operation(),
            result.significant_digits()
        ))),
        Err(e) => Err(Error::validation(format!("{}: result of {}", e.message(), operation()))),
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

fn incorrect_action_operand(action: &str, value: &AttributeValue) -> Error {
    Error::validation(format!(
        "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: {action}, operand type: {}",
        type_name(value)
    ))
}

fn incorrect_data_type(action: &str, path: &Path, existing: &AttributeValue, value: &AttributeValue) -> Error {
    Error::validation(format!(
        "An operand in the update expression has an incorrect data type; {action} of {} to {} holding {}",
        type_name(value),
        display_path(path),
        type_name(existing)
    ))
}

/// A nested path can only be written or removed inside an existing map (for a key) or list
/// (for an index).
fn check_parent(item: &Item, path: &Path) -> Result<()> {
    let Some((last, parent)) = path.0.split_last() else { return Ok(()) };
    if parent.is_empty() {
        return Ok(());
    }
    match (resolve_elements(item, parent), last) {
        (Some(AttributeValue::M(_)), PathElement::Attr(_)) | (Some(AttributeValue::L(_)), PathElement::Index(_)) => Ok(()),
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
    let (PathElement::Attr(name), rest) = elements.split_first()? else { return None };
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
/// past the end appends.
fn write(item: &mut Item, path: &Path, value: AttributeValue) {
    match path.0.split_last() {
        Some((PathElement::Attr(name), [])) => {
            item.insert(name.clone(), value);
        }
        Some((last, parent)) => match (navigate(item, parent), last) {
            (Some(AttributeValue::M(map)), PathElement::Attr(key)) => {
                map.insert(key.clone(), value);
            }
            (Some(AttributeValue::L(list)), PathElement::Index(i)) => match list.get_mut(*i) {
                Some(slot) => *slot = value,
                None => list.push(value),
            },
            _ => debug_assert!(false, "parent of {path:?} was checked"),
        },
        None => {}
    }
}

/// Removes the value at `path`, if any: a removed list element shifts the ones after it.
fn remove(item: &mut Item, path: &Path) {
    match path.0.split_last() {
        Some((PathElement::Attr(name), [])) => {
            item.remove(name);
        }
        Some((last, parent)) => match (navigate(item, parent), last) {
            (Some(AttributeValue::M(map)), PathElement::Attr(key)) => {
                map.remove(key);
            }
            (Some(AttributeValue::L(list)), PathElement::Index(i)) if *i < list.len() => {
                list.remove(*i);
            }
            _ => {}
        },
        None => {}
    }
}
