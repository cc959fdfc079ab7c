//! Evaluating the expression tree on items: conditions, update actions, projections, and
//! DynamoDB's value ordering. Pure functions; the engine in `mod.rs` calls them under its locks.
//!
//! The semantics are DynamoDB's documented ones, refined where the documentation is silent by
//! what the service does (the Alternator and DynamoDB-emulator test suites that run against it
//! record those cases): a missing attribute is unequal to everything (`<>` is true, every other
//! comparison false), ordering only exists within S, N and B, literal operands of the wrong type
//! are validation errors while item values of the wrong type only make a condition false, and
//! every update action reads the item as it was before the update.
//!
//! Files: [`number`] (exact decimals), [`condition`], [`update`], [`projection`]; this file holds
//! the entry points and what they share (resolution, equality, value validation, path checks).

mod condition;
pub(crate) use condition::{describe, Clause};
mod projection;
mod update;
pub(crate) use update::Applied;

use std::cmp::Ordering;
use std::collections::HashSet;

use crate::error::{Error, Result};
use crate::expr::{value_placeholder, Condition, Path, PathElement, Update};
use crate::value::number::{self, Number};
use crate::value::{AttributeValue, Item};

/// DynamoDB's limit on document nesting: a path or a value at most 32 levels deep.
pub(crate) const MAX_NESTING: usize = 32;

/// DynamoDB's order between two values of one scalar type: S and B bytewise, N numerically
/// (38 digits of precision). `None` for values of different or non-scalar types.
pub(crate) fn compare(a: &AttributeValue, b: &AttributeValue) -> Option<Ordering> {
    match (a, b) {
        // `str` and `[u8]` order bytewise, unsigned: UTF-8 byte order for strings.
        (AttributeValue::S(a), AttributeValue::S(b)) => Some(a.as_bytes().cmp(b.as_bytes())),
        (AttributeValue::B(a), AttributeValue::B(b)) => Some(a.as_ref().cmp(b.as_ref())),
        (AttributeValue::N(a), AttributeValue::N(b)) => {
            Some(Number::parse(a).ok()?.cmp(&Number::parse(b).ok()?))
        }
        _ => None,
    }
}

/// The value at `path` in `item`.
pub(crate) fn resolve<'a>(item: &'a Item, path: &Path) -> Option<&'a AttributeValue> {
    resolve_elements(item, &path.0)
}

/// The value at a path given as its elements.
fn resolve_elements<'a>(item: &'a Item, elements: &[PathElement]) -> Option<&'a AttributeValue> {
    let (first, rest) = elements.split_first()?;
    let PathElement::Attr(name) = first else {
        return None;
    };
    rest.iter()
        .try_fold(item.get(name)?, |value, element| match (value, element) {
            (AttributeValue::M(map), PathElement::Attr(key)) => map.get(key),
            (AttributeValue::L(list), PathElement::Index(i)) => list.get(*i),
            _ => None,
        })
}

/// Evaluates a condition against an item (`None`: the item does not exist). Errors are
/// DynamoDB's validation errors (for example an invalid operand type for a function).
pub(crate) fn eval_condition(cond: &Condition, item: Option<&Item>) -> Result<bool> {
    condition::check(cond, Clause::Condition)?;
    Ok(condition::eval(cond, item))
}

/// Evaluates a filter that [`check_condition`] has accepted (Query and Scan check theirs once,
/// before reading any item).
pub(crate) fn eval_filter(cond: &Condition, item: &Item) -> bool {
    condition::eval(cond, Some(item))
}

/// The validation half of [`eval_condition`]: DynamoDB rejects an invalid expression before it
/// looks at the table, whether or not it gets to evaluate it (a Query or Scan whose
/// FilterExpression meets an empty page, a write whose item is absent).
pub(crate) fn check_condition(cond: &Condition, clause: Clause) -> Result<()> {
    condition::check(cond, clause)
}

/// That every literal value of an update and a condition is a valid value (numbers in range,
/// sets not empty and without duplicates...): DynamoDB checks its ExpressionAttributeValues as
/// it reads the request.
pub(crate) fn check_literals(update: Option<&Update>, condition: Option<&Condition>) -> Result<()> {
    check_values(update, condition, Layer::Older)
}

/// The part of [`check_literals`] that reading the request makes (a number it cannot read or
/// store, a NULL that is not true), in the same words: a transaction's first pass, over every
/// action, before any action's other checks (dynoxide reads the whole request first).
pub(crate) fn check_literal_reads(
    update: Option<&Update>,
    condition: Option<&Condition>,
) -> Result<()> {
    first_invalid_value(&[], 0, update, condition, Layer::Older, true)
}

/// Checks the literal values of an update and a condition (their ExpressionAttributeValues) as
/// DynamoDB does before it reads the expressions. A value DynamoDB names by its placeholder is
/// named by the one DynamoStore gives it (`:v0`, `:v1`... in rendering order: the update's
/// values, then the condition's, as [`literals`] walks them), the first in the placeholders' text
/// order, as dynoxide checks them.
///
/// On the older layer (transactions) every invalid value is named so: "ExpressionAttributeValues
/// contains invalid value: ... for key :vN" (a number out of range, a repeated set member, an
/// empty set). On the current layer (PutItem, UpdateItem, DeleteItem, the reads) the checks come
/// in dynoxide's two passes: first what reading the request refuses anywhere in a value (a number
/// it cannot read or store, a NULL that is not true), in DynamoDB's bare words; then a value too
/// deep, an empty set (named by its placeholder) or a set with a repeated member, at the top of a
/// value. What lies deeper (a repeated member in a set inside a list) is left to the checks of
/// the expression that holds it ([`check_update`], [`check_condition`]).
pub(crate) fn check_values(
    update: Option<&Update>,
    condition: Option<&Condition>,
    layer: Layer,
) -> Result<()> {
    check_values_from(0, update, condition, layer)
}

/// [`check_values`] for values whose placeholders start at `:v{first}` (a Query's filter: its
/// key condition's values take the first ones).
pub(crate) fn check_values_from(
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
pub(crate) fn check_query_values(
    key_condition: &crate::expr::KeyCondition,
    filter: Option<&Condition>,
) -> Result<()> {
    let keys = key_condition_values(key_condition);
    first_invalid_value(&keys, keys.len(), None, filter, Layer::Current, false)
}

/// A key condition's values in the order DynamoStore gives them placeholders (`:v0`...): each
/// partition attribute's, then each sort condition's (BETWEEN's two bounds).
pub(crate) fn key_condition_values(
    key_condition: &crate::expr::KeyCondition,
) -> Vec<&AttributeValue> {
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

/// The first of an item's attributes that reading the request refuses (see [`read_problem`]), as
/// its error on `layer`.
pub(crate) fn read_error(item: &Item, layer: Layer) -> Option<Error> {
    item.iter()
        .find_map(|(name, value)| Some(read_problem(value)?.into_error(name, layer)))
}

/// `e`, a fault of a PutItem's condition or its values, unless the item's own values come first
/// in dynoxide's order: what reading the request refuses in the item (an unreadable number, a
/// NULL that is not true), then in the expression values; then the item's values (an empty set,
/// a repeated member), then the expression values' and the condition's. Called on the
/// expressions' error path only.
pub(crate) fn item_first(item: &Item, condition: Option<&Condition>, e: Error) -> Error {
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
pub(crate) fn literal_bytes(update: Option<&Update>, condition: Option<&Condition>) -> usize {
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
pub(crate) const EMPTY_NAME: &str = "Empty attribute name";

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
pub(crate) fn item_has_empty_name(item: &Item) -> bool {
    item.iter()
        .any(|(name, v)| name.is_empty() || value_has_empty_name(v))
}

/// True when a literal of `update` or `condition` holds an empty name.
pub(crate) fn literals_have_empty_name(
    update: Option<&Update>,
    condition: Option<&Condition>,
) -> bool {
    let mut found = false;
    let _ = literals(update, condition, &mut |v| {
        found |= value_has_empty_name(v);
        Ok(())
    });
    found
}

/// The placeholder (`:vN`, as DynamoStore renders them) of the first literal of `update` or
/// `condition` holding an empty name, in the placeholders' text order, as DynamoDB names it.
pub(crate) fn first_value_with_empty_name(
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
pub(crate) fn check_empty_names(
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

/// That no two paths of an update overlap (`a` and `a.b`) or conflict (`a.b` and `a[1]`).
pub(crate) fn check_update_overlap(update: &Update) -> Result<()> {
    let paths: Vec<&Path> = update.paths().collect();
    check_disjoint(paths.iter().copied(), "UpdateExpression")
}

/// The validation half of [`apply_update`] that needs no schema: paths, literal operands, no
/// overlapping paths. DynamoDB makes these checks before it looks at the table.
pub(crate) fn check_update(update: &Update) -> Result<()> {
    update::check(update)
}

/// Applies an update to `item` (the existing item, or the key alone when creating). Returns the
/// top-level attribute names the update touched and where its writes landed (for ReturnValues
/// UPDATED_OLD/UPDATED_NEW).
/// Errors as DynamoDB's: key attributes in the update, overlapping or conflicting paths, ADD or
/// arithmetic on the wrong type, list_append on a non-list, an index into a non-list, etc.
///
/// On error `item` is left unchanged. An item the update creates (`item` holds its key alone) is
/// treated as any other: `REMOVE a.b` through a missing `a` is an invalid path there too, as
/// dynoxide (the reference) answers.
pub(crate) fn apply_update(
    update: &Update,
    key_names: &[&str],
    item: &mut Item,
) -> Result<Applied> {
    update::apply(update, key_names, item)
}

/// The item restricted to `paths` (ProjectionExpression semantics, nested paths included).
pub(crate) fn project(item: &Item, paths: &[Path]) -> Item {
    projection::project(item, paths)
}

/// Validates a ProjectionExpression's paths as DynamoDB does before reading: each starts with an
/// attribute name, none is deeper than 32 levels, no two overlap (`a` and `a.b`) or conflict
/// (`a.b` and `a[1]`). The engine's one projection check ([`super::read::validate_projection`]
/// adds the empty projection).
pub(crate) fn check_projection(paths: &[Path]) -> Result<()> {
    for path in paths {
        check_path(path, "ProjectionExpression")?;
    }
    check_disjoint(paths.iter(), "ProjectionExpression")
}

/// Validates and normalizes a number string as DynamoDB stores it (38 significant digits,
/// magnitude between 1e-130 and 1e126, canonical form). Errors are validation errors.
pub(crate) fn normalize_number(n: &str) -> Result<String> {
    Number::parse_checked(n)
        .map(|d| d.to_string())
        .map_err(|e| Error::validation(format!("{}: {n}", e.message())))
}

/// Validates the attribute values of an item as DynamoDB does on write: numbers valid, sets
/// non-empty and without duplicates, nested values too, numbers normalized in place. Returns the
/// item's size by DynamoDB's formula.
#[cfg(test)]
pub(crate) fn validate_item(item: &mut Item) -> Result<usize> {
    let mut size = 0;
    for (name, value) in item.iter_mut() {
        size += name.len() + validate_attribute(name, value, Layer::Current)?;
    }
    Ok(size)
}

/// Which of DynamoDB's two validation layers checks an operation's attribute values: they word
/// a set with a repeated member differently (as dynoxide, the reference, records them from
/// DynamoDB's responses: PutItem and UpdateItem on the current layer, BatchWriteItem and
/// TransactWriteItems on the older one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layer {
    /// PutItem, UpdateItem, DeleteItem, and the reads.
    Current,
    /// BatchWriteItem, TransactWriteItems, TransactGetItems.
    Older,
}

/// Validates one attribute of an item being written, normalizing its numbers in place (only
/// those whose text is not already canonical are rewritten). Returns the value's size by
/// DynamoDB's formula (`attribute_size` of the normalized value). Error messages say where the
/// bad value sits (`name.key[2]`); they are only built on error.
pub(crate) fn validate_attribute(
    name: &str,
    value: &mut AttributeValue,
    layer: Layer,
) -> Result<usize> {
    check_value(value, 1).map_err(|e| e.into_error(name, layer))
}

/// Validates one value of an expression (`root` names it in messages) and returns it with its
/// numbers normalized.
pub(crate) fn validate_value(value: &AttributeValue, root: &str) -> Result<AttributeValue> {
    validate_value_on(value, root, Layer::Current)
}

/// [`validate_value`] in `layer`'s words.
pub(crate) fn validate_value_on(
    value: &AttributeValue,
    root: &str,
    layer: Layer,
) -> Result<AttributeValue> {
    let mut value = value.clone();
    check_value(&mut value, 1).map_err(|e| e.into_error(root, layer))?;
    Ok(value)
}

/// Why a value is invalid, and where (built on the way out of the recursion, only on error).
struct Invalid {
    problem: Problem,
    /// The path below the attribute, innermost first.
    path: Vec<Step>,
}

enum Problem {
    TooDeep,
    Number(number::NumberError, String),
    NullFalse,
    EmptySet(&'static str),
    Duplicate(Members),
    Unsupported(String),
}

/// The members of a set with a repeated one, as sent (numbers are not shown).
enum Members {
    Strings(Vec<String>),
    Binaries(Vec<Vec<u8>>),
    Numbers,
}

impl Members {
    /// DynamoDB's words for the set on `layer`: the current layer quotes the members (binaries in
    /// base64) in the order it read them (sorted up to the first repeat, the repeat, then the rest
    /// as sent); the older one lists them as sent, unquoted; a number set's members are not shown,
    /// and the older layer words it bare.
    fn message(&self, layer: Layer) -> String {
        use base64::engine::general_purpose::STANDARD;
        use base64::Engine as _;
        const INVALID: &str = "One or more parameter values were invalid: ";
        fn read_order<T: Ord + Clone>(members: &[T]) -> Vec<T> {
            let mut read = std::collections::BTreeSet::new();
            for (i, member) in members.iter().enumerate() {
                if !read.insert(member.clone()) {
                    let mut out: Vec<T> = read.into_iter().collect();
                    out.push(member.clone());
                    out.extend(members[i + 1..].iter().cloned());
                    return out;
                }
            }
            members.to_vec()
        }
        match (self, layer) {
            (Members::Strings(m), Layer::Current) => {
                let quoted: Vec<String> = read_order(m)
                    .iter()
                    .map(|s| serde_json::to_string(s).unwrap_or_default())
                    .collect();
                format!(
                    "{INVALID}Input collection [{}] contains duplicates.",
                    quoted.join(", ")
                )
            }
            (Members::Strings(m), Layer::Older) => {
                format!(
                    "{INVALID}Input collection [{}] contains duplicates.",
                    m.join(", ")
                )
            }
            (Members::Binaries(m), Layer::Current) => {
                let quoted: Vec<String> = read_order(m)
                    .iter()
                    .map(|b| format!("\"{}\"", STANDARD.encode(b)))
                    .collect();
                format!(
                    "{INVALID}Input collection [{}]of type BS contains duplicates.",
                    quoted.join(",")
                )
            }
            (Members::Binaries(m), Layer::Older) => {
                let shown: Vec<String> = m.iter().map(|b| STANDARD.encode(b)).collect();
                format!(
                    "{INVALID}Input collection [{}]of type BS contains duplicates.",
                    shown.join(", ")
                )
            }
            (Members::Numbers, Layer::Current) => {
                format!("{INVALID}Input collection contains duplicates.")
            }
            (Members::Numbers, Layer::Older) => "Input collection contains duplicates".to_owned(),
        }
    }
}

enum Step {
    Key(String),
    Index(usize),
}

impl Invalid {
    fn new(problem: Problem) -> Self {
        Invalid {
            problem,
            path: Vec::new(),
        }
    }

    fn at(mut self, step: Step) -> Self {
        self.path.push(step);
        self
    }

    /// The words DynamoDB puts before `for key :vN` when it names an invalid expression value by
    /// its placeholder (dynoxide's records), or `None` where it does not.
    fn keyed(&self, layer: Layer) -> Option<String> {
        const INVALID: &str = "One or more parameter values were invalid: ";
        match &self.problem {
            Problem::EmptySet("binary") => {
                Some(format!("{INVALID}Binary sets should not be empty"))
            }
            Problem::EmptySet(kind) => Some(format!("{INVALID}An {kind} set  may not be empty")),
            Problem::Duplicate(members) if layer == Layer::Older => Some(members.message(layer)),
            // The value is quoted when it is text that is no number, not when it is out of range.
            Problem::Number(e, n) if layer == Layer::Older => Some(
                if matches!(e, number::NumberError::Syntax) && !n.is_empty() {
                    format!("{}: {n}", e.message())
                } else {
                    e.message().to_owned()
                },
            ),
            _ => None,
        }
    }

    fn into_error(self, root: &str, layer: Layer) -> Error {
        let mut at = root.to_owned();
        for step in self.path.iter().rev() {
            match step {
                Step::Key(key) => {
                    at.push('.');
                    at.push_str(key);
                }
                Step::Index(i) => at.push_str(&format!("[{i}]")),
            }
        }
        let invalid = |what: String| {
            Error::validation(format!("One or more parameter values were invalid: {what}"))
        };
        match self.problem {
            Problem::TooDeep => Error::validation(format!(
                "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit (at {at}, deeper than {MAX_NESTING} levels)"
            )),
            Problem::Number(e, n) => Error::validation(format!("{}: {n} (at {at})", e.message())),
            Problem::NullFalse => invalid(format!(
                "Null attribute value types must have the value of true (at {at})"
            )),
            // DynamoDB's words, the odd double space and article included.
            Problem::EmptySet("binary") => {
                invalid(format!("Binary sets should not be empty (at {at})"))
            }
            Problem::EmptySet(kind) => {
                invalid(format!("An {kind} set  may not be empty (at {at})"))
            }
            Problem::Duplicate(members) => {
                Error::validation(format!("{} (at {at})", members.message(layer)))
            }
            Problem::Unsupported(other) => invalid(format!(
                "unsupported attribute value type {other} (at {at})"
            )),
        }
    }
}

/// Checks a value in place (numbers normalized) and returns its size by DynamoDB's formula.
/// `depth` is its nesting level (1: top level).
fn check_value(value: &mut AttributeValue, depth: usize) -> Result<usize, Invalid> {
    if depth > MAX_NESTING {
        return Err(Invalid::new(Problem::TooDeep));
    }
    Ok(match value {
        AttributeValue::S(s) => s.len(),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Bool(_) | AttributeValue::Null(true) => 1,
        AttributeValue::N(n) => check_number(n)?,
        AttributeValue::Null(false) => return Err(Invalid::new(Problem::NullFalse)),
        AttributeValue::Ss(set) => {
            check_set(set, "string", || Members::Strings(set.clone()))?;
            set.iter().map(String::len).sum()
        }
        AttributeValue::Bs(set) => {
            let bytes: Vec<&[u8]> = set.iter().map(|b| b.as_ref()).collect();
            check_set(&bytes, "binary", || {
                Members::Binaries(bytes.iter().map(|b| b.to_vec()).collect())
            })?;
            bytes.iter().map(|b| b.len()).sum()
        }
        AttributeValue::Ns(set) => {
            let mut size = 0;
            for n in set.iter_mut() {
                size += check_number(n)?;
            }
            // Canonical text is unique per value, so duplicates compare numerically.
            check_set(set, "number", || Members::Numbers)?;
            size
        }
        AttributeValue::L(list) => {
            let mut size = 3;
            for (i, element) in list.iter_mut().enumerate() {
                size += 1 + check_value(element, depth + 1).map_err(|e| e.at(Step::Index(i)))?;
            }
            size
        }
        AttributeValue::M(map) => {
            let mut size = 3;
            for (key, element) in map.iter_mut() {
                size += 1
                    + key.len()
                    + check_value(element, depth + 1).map_err(|e| e.at(Step::Key(key.clone())))?;
            }
            size
        }
        other => return Err(Invalid::new(Problem::Unsupported(format!("{other:?}")))),
    })
}

/// Checks a number, rewriting it in canonical form unless it already is; returns its size.
fn check_number(n: &mut String) -> Result<usize, Invalid> {
    let significant = match number::canonical_digits(n) {
        Some(digits) => digits,
        None => {
            let d = Number::parse_checked(n)
                .map_err(|e| Invalid::new(Problem::Number(e, n.clone())))?;
            *n = d.to_string();
            d.significant_digits()
        }
    };
    // `value::attribute_size` of the canonical text: base-100 digits plus one byte, one more
    // when negative.
    Ok(significant.max(1).div_ceil(2) + 1 + usize::from(n.starts_with('-')))
}

/// A set must be non-empty and without duplicates (numbers compared by canonical text).
fn check_set<T: std::hash::Hash + Eq>(
    elements: &[T],
    kind: &'static str,
    members: impl FnOnce() -> Members,
) -> Result<(), Invalid> {
    if elements.is_empty() {
        return Err(Invalid::new(Problem::EmptySet(kind)));
    }
    let duplicate = if elements.len() <= 16 {
        // Small sets (nearly all): pairwise, no hashing.
        (1..elements.len())
            .find(|&i| elements[..i].contains(&elements[i]))
            .map(|i| &elements[i])
    } else {
        let mut seen = HashSet::with_capacity(elements.len());
        elements.iter().find(|e| !seen.insert(*e))
    };
    match duplicate {
        Some(_) => Err(Invalid::new(Problem::Duplicate(members()))),
        None => Ok(()),
    }
}

/// DynamoDB's name for a value's type, as `attribute_type` and error messages use it.
pub(crate) fn type_name(value: &AttributeValue) -> &'static str {
    match value {
        AttributeValue::S(_) => "S",
        AttributeValue::N(_) => "N",
        AttributeValue::B(_) => "B",
        AttributeValue::Ss(_) => "SS",
        AttributeValue::Ns(_) => "NS",
        AttributeValue::Bs(_) => "BS",
        AttributeValue::Bool(_) => "BOOL",
        AttributeValue::Null(_) => "NULL",
        AttributeValue::L(_) => "L",
        AttributeValue::M(_) => "M",
        _ => "unknown",
    }
}

/// Deep equality as DynamoDB's `=` sees it: same type, numbers by value, sets regardless of
/// order, lists element by element, maps key by key.
pub(crate) fn values_equal(a: &AttributeValue, b: &AttributeValue) -> bool {
    match (a, b) {
        (AttributeValue::S(a), AttributeValue::S(b)) => a == b,
        (AttributeValue::N(a), AttributeValue::N(b)) => numbers_equal(a, b),
        (AttributeValue::B(a), AttributeValue::B(b)) => a.as_ref() == b.as_ref(),
        (AttributeValue::Bool(a), AttributeValue::Bool(b)) => a == b,
        (AttributeValue::Null(_), AttributeValue::Null(_)) => true,
        (AttributeValue::Ss(a), AttributeValue::Ss(b)) => same_set(a.iter(), b.iter()),
        (AttributeValue::Bs(a), AttributeValue::Bs(b)) => {
            same_set(a.iter().map(|x| x.as_ref()), b.iter().map(|x| x.as_ref()))
        }
        (AttributeValue::Ns(a), AttributeValue::Ns(b)) => match (number_set(a), number_set(b)) {
            (Some(a), Some(b)) => a == b,
            // Unparseable numbers never come from a validated item; fall back to the text.
            _ => same_set(a.iter(), b.iter()),
        },
        (AttributeValue::L(a), AttributeValue::L(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| values_equal(x, y))
        }
        (AttributeValue::M(a), AttributeValue::M(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, x)| b.get(k).is_some_and(|y| values_equal(x, y)))
        }
        _ => false,
    }
}

/// Numeric equality of two number strings (text equality if either does not parse).
pub(crate) fn numbers_equal(a: &str, b: &str) -> bool {
    match (Number::parse(a), Number::parse(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

fn same_set<T: std::hash::Hash + Eq>(
    a: impl Iterator<Item = T>,
    b: impl Iterator<Item = T>,
) -> bool {
    a.collect::<HashSet<_>>() == b.collect::<HashSet<_>>()
}

fn number_set(set: &[String]) -> Option<HashSet<Number>> {
    set.iter().map(|n| Number::parse(n).ok()).collect()
}

/// Checks one document path of an expression: it starts with an attribute name and is at most
/// 32 levels deep.
pub(crate) fn check_path(path: &Path, expression: &str) -> Result<()> {
    match path.0.first() {
        Some(PathElement::Attr(_)) => {}
        _ => {
            return Err(Error::validation(format!(
                "Invalid {expression}: a document path must start with an attribute name; path: {}",
                display_path(path)
            )))
        }
    }
    if path.0.len() > MAX_NESTING {
        return Err(Error::validation(format!(
            "Invalid {expression}: The document path has too many nesting levels; nesting levels: {}",
            path.0.len()
        )));
    }
    Ok(())
}

/// DynamoDB refuses two paths of one expression where one contains the other ("overlap": `a` and
/// `a.b`, or the same path twice) or where one treats as a map what the other indexes as a list
/// ("conflict": `a.b` and `a[1]`).
pub(crate) fn check_disjoint<'a>(
    paths: impl Iterator<Item = &'a Path> + Clone,
    expression: &str,
) -> Result<()> {
    for (i, one) in paths.clone().enumerate() {
        for two in paths.clone().skip(i + 1) {
            let mut diverged = false;
            for (a, b) in one.0.iter().zip(&two.0) {
                match (a, b) {
                    (PathElement::Attr(x), PathElement::Attr(y)) if x == y => {}
                    (PathElement::Index(x), PathElement::Index(y)) if x == y => {}
                    (PathElement::Attr(_), PathElement::Index(_))
                    | (PathElement::Index(_), PathElement::Attr(_)) => {
                        return Err(Error::validation(format!(
                            "Invalid {expression}: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: {}, path two: {}",
                            display_path(one),
                            display_path(two)
                        )));
                    }
                    _ => {
                        diverged = true;
                        break;
                    }
                }
            }
            if !diverged {
                return Err(Error::validation(format!(
                    "Invalid {expression}: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: {}, path two: {}",
                    display_path(one),
                    display_path(two)
                )));
            }
        }
    }
    Ok(())
}

/// A path as DynamoDB prints it in messages: `[a, b, [1]]`.
pub(crate) fn display_path(path: &Path) -> String {
    let parts: Vec<String> = path
        .0
        .iter()
        .map(|e| match e {
            PathElement::Attr(a) => a.clone(),
            PathElement::Index(i) => format!("[{i}]"),
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodb::primitives::Blob;
    use proptest::prelude::*;

    use super::*;

    pub(super) fn s(v: &str) -> AttributeValue {
        AttributeValue::S(v.to_owned())
    }
    pub(super) fn n(v: &str) -> AttributeValue {
        AttributeValue::N(v.to_owned())
    }
    pub(super) fn b(v: &[u8]) -> AttributeValue {
        AttributeValue::B(Blob::new(v.to_vec()))
    }
    pub(super) fn ss(v: &[&str]) -> AttributeValue {
        AttributeValue::Ss(v.iter().map(|x| (*x).to_owned()).collect())
    }
    pub(super) fn ns(v: &[&str]) -> AttributeValue {
        AttributeValue::Ns(v.iter().map(|x| (*x).to_owned()).collect())
    }
    pub(super) fn bs(v: &[&[u8]]) -> AttributeValue {
        AttributeValue::Bs(v.iter().map(|x| Blob::new(x.to_vec())).collect())
    }
    pub(super) fn l(v: Vec<AttributeValue>) -> AttributeValue {
        AttributeValue::L(v)
    }
    pub(super) fn m(v: Vec<(&str, AttributeValue)>) -> AttributeValue {
        AttributeValue::M(v.into_iter().map(|(k, x)| (k.to_owned(), x)).collect())
    }
    pub(super) fn item(v: Vec<(&str, AttributeValue)>) -> Item {
        v.into_iter().map(|(k, x)| (k.to_owned(), x)).collect()
    }
    pub(super) fn path(text: &str) -> Path {
        // Test shorthand: `a.b[2].c` (names without dots or brackets).
        let mut elements = Vec::new();
        for part in text.split('.') {
            let mut pieces = part.split('[');
            let name = pieces.next().unwrap_or_default();
            if !name.is_empty() {
                elements.push(PathElement::Attr(name.to_owned()));
            }
            for index in pieces {
                let index = index
                    .trim_end_matches(']')
                    .parse()
                    .unwrap_or_else(|_| panic!("bad index in {text}"));
                elements.push(PathElement::Index(index));
            }
        }
        Path(elements)
    }
    pub(super) fn message(err: Error) -> String {
        match err {
            Error::Validation { message } => message,
            other => panic!("expected a validation error, got {other:?}"),
        }
    }

    #[test]
    fn compare_orders_each_scalar_type_and_nothing_across_types() {
        assert_eq!(compare(&s("a"), &s("b")), Some(Ordering::Less));
        assert_eq!(compare(&s("b"), &s("a")), Some(Ordering::Greater));
        assert_eq!(
            compare(&s("Z"), &s("a")),
            Some(Ordering::Less),
            "bytewise, not case folded"
        );
        // UTF-8 byte order: U+FFFD (EF BF BD) sorts after U+10000 (F0 90 80 80) in UTF-16 but
        // before it in UTF-8, which is DynamoDB's order.
        assert_eq!(
            compare(&s("\u{FFFD}"), &s("\u{10000}")),
            Some(Ordering::Less)
        );
        assert_eq!(
            compare(&b(&[127]), &b(&[128])),
            Some(Ordering::Less),
            "bytes are unsigned"
        );
        assert_eq!(compare(&b(&[1, 2]), &b(&[1, 2, 0])), Some(Ordering::Less));
        assert_eq!(
            compare(&n("10"), &n("9")),
            Some(Ordering::Greater),
            "numeric, not textual"
        );
        assert_eq!(compare(&n("-1"), &n("-10")), Some(Ordering::Greater));
        assert_eq!(compare(&n("1.0"), &n("1")), Some(Ordering::Equal));
        assert_eq!(
            compare(
                &n("12345678901234567890123456789012345678"),
                &n("12345678901234567890123456789012345679")
            ),
            Some(Ordering::Less),
            "all 38 digits count"
        );
        assert_eq!(compare(&n("1e-130"), &n("0")), Some(Ordering::Greater));
        for (x, y) in [
            (s("1"), n("1")),
            (n("1"), b(b"1")),
            (s("a"), b(b"a")),
            (ss(&["a"]), ss(&["a"])),
        ] {
            assert_eq!(compare(&x, &y), None, "{x:?} vs {y:?}");
        }
        assert_eq!(
            compare(&AttributeValue::Bool(false), &AttributeValue::Bool(true)),
            None
        );
        assert_eq!(compare(&n("dog"), &n("1")), None);
    }

    #[test]
    fn resolve_walks_maps_and_lists() {
        let it = item(vec![
            (
                "a",
                m(vec![("b", l(vec![n("1"), m(vec![("c", s("deep"))])]))]),
            ),
            ("x", s("top")),
        ]);
        assert_eq!(resolve(&it, &path("x")), Some(&s("top")));
        assert_eq!(resolve(&it, &path("a.b[0]")), Some(&n("1")));
        assert_eq!(resolve(&it, &path("a.b[1].c")), Some(&s("deep")));
        assert_eq!(resolve(&it, &path("a.b[2]")), None, "past the end");
        assert_eq!(resolve(&it, &path("a[0]")), None, "index into a map");
        assert_eq!(resolve(&it, &path("a.b.c")), None, "key into a list");
        assert_eq!(resolve(&it, &path("x.y")), None, "key into a string");
        assert_eq!(resolve(&it, &path("missing.y")), None);
        assert_eq!(resolve(&it, &Path(vec![])), None);
        assert_eq!(resolve(&it, &Path(vec![PathElement::Index(0)])), None);
        // A dot inside a name is part of the name.
        let dotted = item(vec![("a.b", s("literal"))]);
        assert_eq!(resolve(&dotted, &Path::attr("a.b")), Some(&s("literal")));
    }

    #[test]
    fn values_equal_is_deep_and_order_insensitive_for_sets() {
        assert!(values_equal(&ss(&["a", "b"]), &ss(&["b", "a"])));
        assert!(values_equal(&ns(&["1", "2.0"]), &ns(&["2", "1.00"])));
        assert!(values_equal(&bs(&[b"x", b"y"]), &bs(&[b"y", b"x"])));
        assert!(!values_equal(&ss(&["a", "b"]), &ss(&["a", "c"])));
        assert!(values_equal(&n("1e2"), &n("100")));
        assert!(values_equal(
            &l(vec![s("a"), ns(&["1", "2"])]),
            &l(vec![s("a"), ns(&["2", "1"])])
        ));
        assert!(
            !values_equal(&l(vec![s("a"), s("b")]), &l(vec![s("b"), s("a")])),
            "lists keep order"
        );
        assert!(values_equal(
            &m(vec![("k", ss(&["x", "y"]))]),
            &m(vec![("k", ss(&["y", "x"]))])
        ));
        assert!(!values_equal(
            &m(vec![("k", s("x"))]),
            &m(vec![("k", s("x")), ("j", s("y"))])
        ));
        assert!(values_equal(
            &AttributeValue::Null(true),
            &AttributeValue::Null(true)
        ));
        assert!(!values_equal(&AttributeValue::Bool(true), &n("1")));
        assert!(!values_equal(&s("1"), &n("1")));
        assert!(!values_equal(&ss(&["1"]), &ns(&["1"])));
    }

    #[test]
    fn normalize_number_canonicalizes_and_rejects() {
        for (text, canonical) in [
            ("1.50", "1.5"),
            ("0.0", "0"),
            ("-0", "0"),
            ("1e3", "1000"),
            ("+5", "5"),
            ("-007.100", "-7.1"),
            ("1E+2", "100"),
        ] {
            assert_eq!(normalize_number(text).unwrap(), canonical, "{text}");
        }
        let syntax = message(normalize_number("NaN").unwrap_err());
        assert_eq!(
            syntax,
            "The parameter cannot be converted to a numeric value: NaN"
        );
        for text in [
            "",
            "Infinity",
            "-Infinity",
            "abc",
            " 1",
            "1 ",
            "1e",
            "1.2.3",
        ] {
            assert!(
                message(normalize_number(text).unwrap_err()).contains("numeric value"),
                "{text:?}"
            );
        }
        assert!(message(normalize_number("1e126").unwrap_err()).starts_with("Number overflow"));
        assert!(message(normalize_number("1e-131").unwrap_err()).starts_with("Number underflow"));
        assert!(
            message(normalize_number("1234567890123456789012345678901234567890").unwrap_err())
                .contains("38 significant digits")
        );
        assert_eq!(
            normalize_number("9.9999999999999999999999999999999999999E+125")
                .unwrap()
                .len(),
            126
        );
    }

    #[test]
    fn validate_item_normalizes_numbers_everywhere() {
        let raw = item(vec![
            ("n", n("1.50")),
            ("set", ns(&["1e1", "2.0"])),
            (
                "deep",
                m(vec![("list", l(vec![n("+3"), m(vec![("x", n("-0.0"))])]))]),
            ),
            ("s", s("")),
            ("b", b(b"")),
        ]);
        let mut got = raw.clone();
        let size = validate_item(&mut got).unwrap();
        assert_eq!(
            size,
            crate::value::item_size(&got),
            "size of the normalized item"
        );
        assert_eq!(got["n"], n("1.5"));
        assert_eq!(got["set"], ns(&["10", "2"]));
        assert_eq!(
            got["deep"],
            m(vec![("list", l(vec![n("3"), m(vec![("x", n("0"))])]))])
        );
        assert_eq!(got["s"], s(""), "empty strings are fine outside keys");
    }

    #[test]
    fn validate_item_rejects_bad_values_and_says_where() {
        let cases: Vec<(AttributeValue, &str)> = vec![
            (ss(&[]), "string set  may not be empty"),
            (ns(&[]), "number set  may not be empty"),
            (bs(&[]), "Binary sets should not be empty"),
            (ss(&["a", "a"]), "contains duplicates"),
            (ns(&["1", "1.0"]), "contains duplicates"),
            (bs(&[b"x", b"x"]), "contains duplicates"),
            (n("twelve"), "numeric value: twelve"),
            (ns(&["1", "NaN"]), "numeric value: NaN"),
            (m(vec![("inner", l(vec![n("1e200")]))]), "at v.inner[0]"),
            (
                AttributeValue::Null(false),
                "Null attribute value types must have the value of true",
            ),
        ];
        for (value, expected) in cases {
            let err = message(validate_item(&mut item(vec![("v", value.clone())])).unwrap_err());
            assert!(err.contains(expected), "{value:?}: {err}");
        }
    }

    #[test]
    fn validate_item_limits_nesting_to_32_levels() {
        let mut deep = s("leaf");
        for _ in 0..31 {
            deep = l(vec![deep]);
        }
        assert!(
            validate_item(&mut item(vec![("a", deep.clone())])).is_ok(),
            "32 levels"
        );
        let err = message(validate_item(&mut item(vec![("a", l(vec![deep]))])).unwrap_err());
        assert!(
            err.contains("Nesting Levels have exceeded supported limits"),
            "{err}"
        );
    }

    #[test]
    fn disjoint_paths_overlap_and_conflict_like_dynamodb() {
        let check = |texts: &[&str]| {
            let paths: Vec<Path> = texts.iter().map(|t| path(t)).collect();
            check_disjoint(paths.iter(), "UpdateExpression").map_err(message)
        };
        for overlapping in [
            &["a", "a"][..],
            &["a", "a.b"],
            &["a.b", "a"],
            &["a.b", "a.b.c.d.e"],
            &["a[1]", "a"],
            &["a[1][1]", "a[1]"],
            &["a[1]", "a[1][1][1][1]"],
        ] {
            let err = check(overlapping).unwrap_err();
            assert!(err.contains("overlap"), "{overlapping:?}: {err}");
        }
        let err = check(&["x", "a.b", "a[1]"]).unwrap_err();
        assert_eq!(
            err,
            "Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a, [1]]"
        );
        assert!(check(&["a.b.c", "a.b[2]"])
            .unwrap_err()
            .contains("conflict"));
        for fine in [
            &["a", "b"][..],
            &["a.b", "a.c"],
            &["a.b.d", "a.b.e"],
            &["a[1]", "a[2]"],
            &["a.b", "a.c[2]"],
        ] {
            assert!(check(fine).is_ok(), "{fine:?}");
        }
    }

    #[test]
    fn check_projection_validates_paths() {
        assert!(check_projection(&[path("a.b[0]"), path("a.c")]).is_ok());
        assert!(
            message(check_projection(&[path("a"), path("a.b[0]")]).unwrap_err())
                .starts_with("Invalid ProjectionExpression: Two document paths overlap")
        );
        let too_deep = Path(
            std::iter::once(PathElement::Attr("a".into()))
                .chain((0..32).map(|_| PathElement::Attr("b".into())))
                .collect(),
        );
        assert!(message(check_projection(&[too_deep]).unwrap_err()).contains("nesting levels: 33"));
        assert!(
            message(check_projection(&[Path(vec![PathElement::Index(0)])]).unwrap_err())
                .contains("must start with an attribute name")
        );
    }

    proptest! {
        #[test]
        fn compare_on_numbers_agrees_with_i128(a in any::<i64>(), b in any::<i64>()) {
            prop_assert_eq!(
                compare(&n(&a.to_string()), &n(&b.to_string())),
                Some(i128::from(a).cmp(&i128::from(b)))
            );
        }

        #[test]
        fn compare_on_short_decimals_agrees_with_f64(a in -1_000_000i32..1_000_000, b in -1_000_000i32..1_000_000) {
            // Three decimals from integers: f64 represents each to well within their spacing,
            // so its order is exact here.
            let (fa, fb) = (f64::from(a) / 1000.0, f64::from(b) / 1000.0);
            let (ta, tb) = (format!("{fa:.3}"), format!("{fb:.3}"));
            prop_assert_eq!(compare(&n(&ta), &n(&tb)), fa.partial_cmp(&fb), "{} vs {}", ta, tb);
            prop_assert_eq!(values_equal(&n(&ta), &n(&tb)), fa == fb);
        }

        #[test]
        fn normalized_numbers_keep_their_value(a in any::<i64>(), exp in -100i32..100) {
            let text = format!("{a}e{exp}");
            let canonical = normalize_number(&text).unwrap();
            prop_assert_eq!(compare(&n(&text), &n(&canonical)), Some(Ordering::Equal));
            prop_assert_eq!(normalize_number(&canonical).unwrap(), canonical);
        }
    }
}
