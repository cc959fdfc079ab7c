//! Writing and removing at a path of an item: parents, list positions, path order.

use super::*;

/// A nested path can only be written or removed inside an existing map (for a key) or list
/// (for an index).
pub(super) fn check_parent(item: &Item, path: &Path) -> Result<()> {
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
pub(super) fn cmp_paths(a: &Path, b: &Path) -> Ordering {
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
pub(super) fn navigate<'a>(
    item: &'a mut Item,
    elements: &[PathElement],
) -> Option<&'a mut AttributeValue> {
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
pub(super) fn write(item: &mut Item, path: &Path, value: AttributeValue) -> Option<usize> {
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
pub(super) fn remove(item: &mut Item, path: &Path) -> Option<usize> {
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
