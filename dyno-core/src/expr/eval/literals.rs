//! The checks DynamoDB makes of a request's expression values (its ExpressionAttributeValues)
//! before it evaluates anything, in the order dynoxide (the reference) makes them, and their
//! sizes and empty names.

use super::values::*;
use crate::error::{Error, Result};
use crate::expr::{value_placeholder, Condition, Update};
use crate::value::{AttributeValue, Item};

/// That every literal value of an update and a condition is a valid value (numbers in range,
/// sets not empty and without duplicates...): DynamoDB checks its ExpressionAttributeValues as
/// it reads the request.
#[doc(hidden)]
pub fn check_literals(update: Option<&Update>, condition: Option<&Condition>) -> Result<()> {
    check_values(update, condition, Layer::Older)
}

/// The part of [`check_literals`] that reading the request makes (a number it cannot read or
/// store, a NULL that is not true), in the same words: a transaction's first pass, over every
/// action, before any action's other checks (dynoxide reads the whole request first).
#[doc(hidden)]
pub fn check_literal_reads(update: Option<&Update>, condition: Option<&Condition>) -> Result<()> {
    first_invalid_value(&[], 0, update, condition, Layer::Older, true)
}

/// Checks the literal values of an update and a condition (their ExpressionAttributeValues) as
/// DynamoDB does before it reads the expressions. A value DynamoDB names by its placeholder is
/// named by the one DynamoStore gives it (`:v0`, `:v1`... in rendering order: the update's
/// values, then the condition's, as `literals` walks them), the first in the placeholders' text
/// order, as dynoxide checks them.
///
/// On the older layer (transactions) every invalid value is named so: "ExpressionAttributeValues
/// contains invalid value: ... for key :vN" (a number out of range, a repeated set member, an
/// empty set). On the current layer (PutItem, UpdateItem, DeleteItem, the reads) the checks come
/// in dynoxide's two passes: first what reading the request refuses anywhere in a value (a number
/// it cannot read or store, a NULL that is not true), in DynamoDB's bare words; then a value too
/// deep, an empty set (named by its placeholder) or a set with a repeated member, at the top of a
/// value. What lies deeper (a repeated member in a set inside a list) is left to the checks of
/// the expression that holds it ([`check_update`](super::check_update), [`check_condition`](super::check_condition)).
pub(crate) fn check_values(
    update: Option<&Update>,
    condition: Option<&Condition>,
    layer: Layer,
) -> Result<()> {
    check_values_from(0, update, condition, layer)
}

/// [`check_values`] for values whose placeholders start at `:v{first}` (a Query's filter: its
/// key condition's values take the first ones).
#[doc(hidden)]
pub fn check_values_from(
    first: usize,
    update: Option<&Update>,
    condition: Option<&Condition>,
    layer: Layer,
) -> Result<()> {
    first_invalid_value(&[], first, update, condition, layer, false)
}

/// [`check_values_from`], the `leading` values first (see [`first_problem`]); `reads_only`: only
/// what reading the request refuses.
fn first_invalid_value(
    leading: &[&AttributeValue],
    first: usize,
    update: Option<&Update>,
    condition: Option<&Condition>,
    layer: Layer,
    reads_only: bool,
) -> Result<()> {
    let first_of = |problem: &mut dyn FnMut(&AttributeValue) -> Option<Invalid>| {
        first_problem(leading, first, update, condition, problem)
    };
    let found = match layer {
        _ if reads_only => first_of(&mut |v| read_problem(v)),
        Layer::Older => first_of(&mut |v| check_value(&mut v.clone(), 1).err()),
        Layer::Current => first_of(&mut |v| read_problem(v)).or_else(|| {
            first_of(&mut |v| match v {
                AttributeValue::Ss(_)
                | AttributeValue::Ns(_)
                | AttributeValue::Bs(_)
                | AttributeValue::L(_)
                | AttributeValue::M(_) => top_level_problem(v),
                _ => None,
            })
        }),
    };
    let Some((key, invalid)) = found else {
        return Ok(());
    };
    value_error(&key, invalid, layer)
}

/// A Query's expression attribute values checked as [`check_values`] checks a write's, its key
/// condition's among them (they take the first placeholders, `:v0`...): named before any other
/// check of the request, as dynoxide checks every ExpressionAttributeValue first. So a sort key
/// condition's `NULL(false)`, or its number set with a repeated member, is named as such, not as
/// an operand of the wrong type.
#[doc(hidden)]
pub fn check_query_values(
    key_condition: &crate::expr::KeyCondition,
    filter: Option<&Condition>,
) -> Result<()> {
    let keys = key_condition_values(key_condition);
    first_invalid_value(&keys, keys.len(), None, filter, Layer::Current, false)
}

/// A key condition's values in the order DynamoStore gives them placeholders (`:v0`...): each
/// partition attribute's, then each sort condition's (BETWEEN's two bounds).
#[doc(hidden)]
pub fn key_condition_values(key_condition: &crate::expr::KeyCondition) -> Vec<&AttributeValue> {
    use crate::expr::SortCondition as S;
    let mut values: Vec<&AttributeValue> =
        key_condition.partition_parts().map(|(_, v)| v).collect();
    for (_, sort) in key_condition.sort_parts() {
        match sort {
            S::Between(low, high) => values.extend([low, high]),
            S::Eq(v) | S::Lt(v) | S::Le(v) | S::Gt(v) | S::Ge(v) | S::BeginsWith(v) => {
                values.push(v)
            }
        }
    }
    values
}

/// The first of some values with a `problem`, in the text order of their placeholders, with its
/// placeholder: `leading` values take `:v0`..., then the literals of an update and a condition (as
/// [`literals`] walks them) from `:v{first}`.
fn first_problem(
    leading: &[&AttributeValue],
    first: usize,
    update: Option<&Update>,
    condition: Option<&Condition>,
    problem: &mut dyn FnMut(&AttributeValue) -> Option<Invalid>,
) -> Option<(String, Invalid)> {
    let mut found: Option<(String, Invalid)> = None;
    let mut offer = |key: String, v: &AttributeValue| {
        if found.as_ref().is_some_and(|(k, _)| *k < key) {
            return;
        }
        if let Some(invalid) = problem(v) {
            found = Some((key, invalid));
        }
    };
    for (n, v) in leading.iter().enumerate() {
        offer(value_placeholder(n), v);
    }
    let mut n = first;
    let _ = literals(update, condition, &mut |v| {
        offer(value_placeholder(n), v);
        n += 1;
        Ok(())
    });
    found
}

/// The error of an invalid expression value at placeholder `key`, as DynamoDB words it on `layer`.
fn value_error(key: &str, invalid: Invalid, layer: Layer) -> Result<()> {
    match invalid.keyed(layer) {
        Some(message) => Err(Error::validation(format!(
            "ExpressionAttributeValues contains invalid value: {message} for key {key}"
        ))),
        None => Err(invalid.into_error("expression value", Layer::Current)),
    }
}

/// The first of an item's attributes that reading the request refuses (see `read_problem`), as
/// its error on `layer`.
#[doc(hidden)]
pub fn read_error(item: &Item, layer: Layer) -> Option<Error> {
    item.iter()
        .find_map(|(name, value)| Some(read_problem(value)?.into_error(name, layer)))
}

/// `e`, a fault of a PutItem's condition or its values, unless the item's own values come first
/// in dynoxide's order: what reading the request refuses in the item (an unreadable number, a
/// NULL that is not true), then in the expression values; then the item's values (an empty set,
/// a repeated member), then the expression values' and the condition's. Called on the
/// expressions' error path only.
#[doc(hidden)]
pub fn item_first(item: &Item, condition: Option<&Condition>, e: Error) -> Error {
    if let Some(read) = read_error(item, Layer::Current) {
        return read;
    }
    if first_invalid_value(&[], 0, None, condition, Layer::Current, true).is_err() {
        return e;
    }
    item.iter()
        .find_map(|(name, value)| {
            validate_attribute(name, &mut value.clone(), Layer::Current).err()
        })
        .unwrap_or(e)
}

/// What reading a value refuses, anywhere in it (dynoxide's request parser): a number it cannot
/// read or store, a NULL that is not true.
fn read_problem(value: &AttributeValue) -> Option<Invalid> {
    match value {
        AttributeValue::N(n) => check_number(&mut n.clone()).err(),
        AttributeValue::Ns(set) => set.iter().find_map(|n| check_number(&mut n.clone()).err()),
        AttributeValue::Null(false) => Some(Invalid::new(Problem::NullFalse)),
        AttributeValue::L(list) => list
            .iter()
            .enumerate()
            .find_map(|(i, element)| read_problem(element).map(|e| e.at(Step::Index(i)))),
        AttributeValue::M(map) => {
            // In key order: the parser reads a map's members sorted.
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            keys.into_iter()
                .find_map(|key| read_problem(&map[key]).map(|e| e.at(Step::Key(key.clone()))))
        }
        _ => None,
    }
}

/// What the second pass refuses at the top of a value: nesting too deep anywhere, an empty set or
/// a set with a repeated member.
fn top_level_problem(value: &AttributeValue) -> Option<Invalid> {
    let problem = check_value(&mut value.clone(), 1).err()?;
    match problem.problem {
        Problem::TooDeep => Some(problem),
        Problem::EmptySet(_) | Problem::Duplicate(_) if problem.path.is_empty() => Some(problem),
        _ => None,
    }
}

/// The size of every literal value of an update and a condition (their
/// ExpressionAttributeValues), by DynamoDB's formula.
#[doc(hidden)]
pub fn literal_bytes(update: Option<&Update>, condition: Option<&Condition>) -> usize {
    let mut bytes = 0;
    let _ = literals(update, condition, &mut |v| {
        bytes += crate::value::attribute_size(v);
        Ok(())
    });
    bytes
}

/// Calls `f` on every literal value of an update and a condition, in request order, until it
/// fails.
fn literals(
    update: Option<&Update>,
    condition: Option<&Condition>,
    f: &mut dyn FnMut(&AttributeValue) -> Result<()>,
) -> Result<()> {
    fn operand(
        o: &crate::expr::UpdateOperand,
        f: &mut dyn FnMut(&AttributeValue) -> Result<()>,
    ) -> Result<()> {
        use crate::expr::UpdateOperand as U;
        match o {
            U::Path(_) => Ok(()),
            U::Value(v) => f(v),
            U::IfNotExists(_, d) => operand(d, f),
            U::ListAppend(a, b) => operand(a, f).and_then(|()| operand(b, f)),
        }
    }
    fn condition_values(
        c: &Condition,
        f: &mut dyn FnMut(&AttributeValue) -> Result<()>,
    ) -> Result<()> {
        use crate::expr::Operand as O;
        let mut value = |o: &O| match o {
            O::Value(v) => f(v),
            O::Path(_) | O::Size(_) => Ok(()),
        };
        match c {
            Condition::Compare(a, _, b) => value(a).and_then(|()| value(b)),
            Condition::Between(a, b, d) => [a, b, d].into_iter().try_for_each(value),
            Condition::In(a, list) => std::iter::once(a).chain(list).try_for_each(value),
            Condition::BeginsWith(_, o) | Condition::Contains(_, o) => value(o),
            // The type is sent as a value too (`attribute_type(#a, :v3)`, as DynamoStore renders
            // it): it takes a placeholder, and counts in the request's size.
            Condition::AttributeType(_, t) => f(&AttributeValue::S(t.name().to_owned())),
            Condition::AttributeExists(_) | Condition::AttributeNotExists(_) => Ok(()),
            Condition::And(cs) | Condition::Or(cs) => {
                cs.iter().try_for_each(|c| condition_values(c, f))
            }
            Condition::Not(c) => condition_values(c, f),
        }
    }
    if let Some(update) = update {
        for (_, set) in &update.set {
            match set {
                crate::expr::SetValue::Operand(o) => operand(o, f)?,
                crate::expr::SetValue::Plus(a, b) | crate::expr::SetValue::Minus(a, b) => {
                    operand(a, f)?;
                    operand(b, f)?;
                }
            }
        }
        for (_, v) in update.add.iter().chain(&update.delete) {
            f(v)?;
        }
    }
    condition.map_or(Ok(()), |c| condition_values(c, f))
}

/// DynamoDB's words for an empty attribute name, wherever a request carries one (an item's
/// attribute, a map key at any depth, a key, an expression's values).
#[doc(hidden)]
pub const EMPTY_NAME: &str = "Empty attribute name";

/// True when `value` holds a map with an empty key, at any depth.
pub(crate) fn value_has_empty_name(value: &AttributeValue) -> bool {
    match value {
        AttributeValue::M(m) => item_has_empty_name(m),
        AttributeValue::L(l) => l.iter().any(value_has_empty_name),
        _ => false,
    }
}

/// True when `item` (an item, a key, a document) names an empty attribute, at the top or inside
/// a value.
#[doc(hidden)]
pub fn item_has_empty_name(item: &Item) -> bool {
    item.iter()
        .any(|(name, v)| name.is_empty() || value_has_empty_name(v))
}

/// True when a literal of `update` or `condition` holds an empty name.
#[doc(hidden)]
pub fn literals_have_empty_name(update: Option<&Update>, condition: Option<&Condition>) -> bool {
    let mut found = false;
    let _ = literals(update, condition, &mut |v| {
        found |= value_has_empty_name(v);
        Ok(())
    });
    found
}

/// The placeholder (`:vN`, as DynamoStore renders them) of the first literal of `update` or
/// `condition` holding an empty name, in the placeholders' text order, as DynamoDB names it.
#[doc(hidden)]
pub fn first_value_with_empty_name(
    update: Option<&Update>,
    condition: Option<&Condition>,
) -> String {
    let mut n = 0;
    let mut found: Option<String> = None;
    let _ = literals(update, condition, &mut |v| {
        let key = value_placeholder(n);
        n += 1;
        if value_has_empty_name(v) && found.as_ref().is_none_or(|k| key < *k) {
            found = Some(key);
        }
        Ok(())
    });
    found.unwrap_or_default()
}

/// PutItem's, UpdateItem's and DeleteItem's refusal of an empty attribute name in the item or
/// key, or in the expressions' values, made as DynamoDB makes it: before anything else is read
/// (dynoxide, from DynamoDB's answers in ten regions).
#[doc(hidden)]
pub fn check_empty_names(
    item: &Item,
    update: Option<&Update>,
    condition: Option<&Condition>,
) -> Result<()> {
    if item_has_empty_name(item) || literals_have_empty_name(update, condition) {
        return Err(Error::validation(format!(
            "1 validation error detected: {EMPTY_NAME}"
        )));
    }
    Ok(())
}
