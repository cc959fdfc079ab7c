//! ADD and DELETE: sums, set unions and differences, and what each can apply to.

use super::*;

/// The value an ADD action writes: a sum, a union, or the operand itself on a missing attribute.
/// The operand's type was checked by [`check`].
pub(super) fn add(path: &Path, value: &AttributeValue, item: &Item) -> Result<AttributeValue> {
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
pub(super) enum Deleted {
    /// The remaining elements.
    Left(AttributeValue),
    /// No element remains: the attribute goes, as DynamoDB keeps no empty set.
    Emptied,
    /// The attribute does not exist.
    Nothing,
}

/// The operand's type was checked by [`check`].
pub(super) fn delete(path: &Path, value: &AttributeValue, item: &Item) -> Result<Deleted> {
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
pub(super) fn number_key(n: &str) -> String {
    Number::parse(n)
        .map(|d| d.to_string())
        .unwrap_or_else(|_| n.to_owned())
}

pub(super) fn union<T: Clone, K: std::hash::Hash + Eq>(
    existing: &[T],
    added: &[T],
    key: impl Fn(&T) -> K,
) -> Vec<T> {
    let mut seen: HashSet<K> = existing.iter().map(&key).collect();
    let mut out = existing.to_vec();
    out.extend(added.iter().filter(|x| seen.insert(key(x))).cloned());
    out
}

pub(super) fn difference<T: Clone, K: std::hash::Hash + Eq>(
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

/// Whether ADD can apply `value` to what the item holds at its path (dynoxide's rule): a number
/// to a number, a set to a set of its kind, either to nothing.
pub(super) fn add_fits(existing: Option<&AttributeValue>, value: &AttributeValue) -> bool {
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
pub(super) fn delete_fits(existing: Option<&AttributeValue>, value: &AttributeValue) -> bool {
    use AttributeValue as V;
    matches!(
        (existing, value),
        (None, _)
            | (Some(V::Ss(_)), V::Ss(_))
            | (Some(V::Ns(_)), V::Ns(_))
            | (Some(V::Bs(_)), V::Bs(_))
    )
}
