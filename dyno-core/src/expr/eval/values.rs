//! Which attribute values DynamoDB accepts: numbers it can read and store (normalized to its
//! canonical text), non-empty sets without repeated members, NULL only as true, nesting at most
//! 32 levels deep; with DynamoDB's words for each refusal, on each of its two validation layers.

use std::collections::HashSet;

use super::MAX_NESTING;
use crate::error::{Error, Result};
use crate::value::number::{self, Number};
use crate::value::AttributeValue;
#[cfg(test)]
use crate::value::Item;

/// Validates and normalizes a number string as DynamoDB stores it (38 significant digits,
/// magnitude between 1e-130 and 1e126, canonical form). Errors are validation errors.
#[doc(hidden)]
pub fn normalize_number(n: &str) -> Result<String> {
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
#[doc(hidden)]
pub enum Layer {
    /// PutItem, UpdateItem, DeleteItem, and the reads.
    Current,
    /// BatchWriteItem, TransactWriteItems, TransactGetItems.
    Older,
}

/// Validates one attribute of an item being written, normalizing its numbers in place (only
/// those whose text is not already canonical are rewritten). Returns the value's size by
/// DynamoDB's formula (`attribute_size` of the normalized value). Error messages say where the
/// bad value sits (`name.key[2]`); they are only built on error.
#[doc(hidden)]
pub fn validate_attribute(name: &str, value: &mut AttributeValue, layer: Layer) -> Result<usize> {
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
pub(super) struct Invalid {
    pub(super) problem: Problem,
    /// The path below the attribute, innermost first.
    pub(super) path: Vec<Step>,
}

pub(super) enum Problem {
    TooDeep,
    Number(number::NumberError, String),
    NullFalse,
    EmptySet(&'static str),
    Duplicate(Members),
    Unsupported(String),
}

/// The members of a set with a repeated one, as sent (numbers are not shown).
pub(super) enum Members {
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

pub(super) enum Step {
    Key(String),
    Index(usize),
}

impl Invalid {
    pub(super) fn new(problem: Problem) -> Self {
        Invalid {
            problem,
            path: Vec::new(),
        }
    }

    pub(super) fn at(mut self, step: Step) -> Self {
        self.path.push(step);
        self
    }

    /// The words DynamoDB puts before `for key :vN` when it names an invalid expression value by
    /// its placeholder (dynoxide's records), or `None` where it does not.
    pub(super) fn keyed(&self, layer: Layer) -> Option<String> {
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

    pub(super) fn into_error(self, root: &str, layer: Layer) -> Error {
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
pub(super) fn check_value(value: &mut AttributeValue, depth: usize) -> Result<usize, Invalid> {
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
pub(super) fn check_number(n: &mut String) -> Result<usize, Invalid> {
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
pub(super) fn check_set<T: std::hash::Hash + Eq>(
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
