//! Update actions on typed paths: [`PathUpdate`], started by [`UpdateDsl::at`].

use std::fmt;

use super::{Counter, UpdateBuilder, UpdateDsl};
use crate::error::Result;
use crate::expr::path::{Depth, ListField, Nested, Removable, SetField};
use crate::expr::typed::{encode_value, FieldValue};
use crate::expr::{Field, Path};
use crate::value::{AttributeValue, SetElement, ToAttribute};

/// One action on a typed path of an update `U` (a derive's `RepoUpdate`, or an
/// [`UpdateBuilder`]): started by [`UpdateDsl::at`], finished by one of its methods, which
/// returns the update. Each exists where the path's type allows it, with values of that type:
///
/// | method | on | expression |
/// |---|---|---|
/// | [`set`](Self::set), [`set_if_absent`](Self::set_if_absent) | a path inside a field | `SET p = :v`, `SET p = if_not_exists(p, :v)` |
/// | [`remove`](Self::remove) | a map entry, a list element, an `Option` document field | `REMOVE p` |
/// | [`add`](Self::add), [`subtract`](Self::subtract) | a number inside a field | `ADD p :n`, `SET p = if_not_exists(p, 0) - :n` |
/// | [`append`](Self::append), [`prepend`](Self::prepend) | a list, at any depth | `SET p = list_append(...)` |
/// | [`add_elements`](Self::add_elements), [`delete_elements`](Self::delete_elements) | a set, at any depth | `ADD p :s`, `DELETE p :s` |
///
/// Top-level scalar fields are not set here but with the builder's own setters (`set_<field>`,
/// `add_<field>`), which keep index keys in step: `set`, `add` and `remove` on a top-level
/// [`Field`] do not compile. A path and its parent cannot both be written by one update
/// (DynamoDB refuses overlapping paths); a later action on the same path replaces an earlier one.
#[must_use = "finish the action with `.set(..)`, `.add(..)`, `.remove()`, ..., which returns the update"]
pub struct PathUpdate<U: UpdateDsl, T, D: Depth> {
    update: U,
    path: Field<U::Entity, T, D>,
}

impl<U: UpdateDsl + fmt::Debug, T, D: Depth> fmt::Debug for PathUpdate<U, T, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PathUpdate")
            .field("update", &self.update)
            .field("path", &self.path)
            .finish()
    }
}

impl<U: UpdateDsl, T, D: Depth> PathUpdate<U, T, D> {
    pub(crate) fn new(update: U, path: Field<U::Entity, T, D>) -> Self {
        PathUpdate { update, path }
    }

    /// Runs `f` on the update with the path, or records the path's error. Every action but
    /// `remove` may create a map entry, so each carries the condition that its key is stored
    /// under no other name ([`Field::entry`]).
    fn apply(self, f: impl FnOnce(&mut UpdateBuilder<U::Entity>, Path)) -> U {
        let path = self.path.try_path();
        let others = self.path.other_spellings().to_vec();
        self.update.map_update(|mut u| {
            match path {
                Ok(p) => {
                    f(&mut u, p.clone());
                    for other in others {
                        u.guard_spelling(&p, other);
                    }
                }
                Err(e) => u.record(Err(e)),
            }
            u
        })
    }

    /// `SET path = :value`. A `None` removes an `Option` field of a document, and is written as
    /// `NULL` into a map entry or a list element, as a whole map or list is written (the entry is
    /// kept, and read back as `None`); an empty set there is an encode error. The parent map or
    /// list must exist (see [`crate::expr::path`]); a list index past the end appends.
    pub fn set(self, value: impl FieldValue<T>) -> U
    where
        D: Nested,
        T: ToAttribute,
    {
        let value = encode_at::<T, D>(value);
        self.apply(|u, p| u.set_path_value(p, value))
    }

    /// `SET path = if_not_exists(path, :value)`: the value unless the item has one there. Use it
    /// on a parent map or document in one update before writing inside it in the next.
    pub fn set_if_absent(self, value: impl FieldValue<T>) -> U
    where
        D: Nested,
        T: ToAttribute,
    {
        let value = encode_at::<T, D>(value);
        self.apply(|u, p| u.set_if_absent_path(p, value))
    }

    /// `REMOVE path`: a map entry, a list element (the later elements move down one place) or an
    /// `Option` field of a document. A required document field cannot be removed (it does not
    /// compile): the item would no longer decode. A map entry is removed under every name its
    /// key may be stored under ([`Field::entry`]), so one stored by an earlier writer in another
    /// spelling does not survive its removal.
    pub fn remove(self) -> U
    where
        Field<U::Entity, T, D>: Removable<U::Entity>,
    {
        let path = self.path.removable_path();
        let others = self.path.other_spellings().to_vec();
        self.update.map_update(|mut u| {
            match path {
                Ok(p) => {
                    u.remove_path(p);
                    for other in others {
                        u.remove_path(other);
                    }
                }
                Err(e) => u.record(Err(e)),
            }
            u
        })
    }

    /// `ADD path :n` on a number (an absent one counting as 0), atomically. As `add_<field>`
    /// does, the result must stay inside the number type: otherwise the update fails with
    /// [`Error::OutOfRange`](crate::Error::OutOfRange) naming the path, and writes nothing.
    #[allow(clippy::should_implement_trait)] // DynamoDB's ADD, not `+` on the builder
    pub fn add(self, n: impl FieldValue<T::Number>) -> U
    where
        D: Nested,
        T: Counter,
    {
        self.apply(|u, p| u.add_number_at::<T::Number>(p, n))
    }

    /// `SET path = if_not_exists(path, 0) - :n`, kept inside the number type as [`Self::add`].
    pub fn subtract(self, n: impl FieldValue<T::Number>) -> U
    where
        D: Nested,
        T: Counter,
    {
        self.apply(|u, p| u.subtract_number_at::<T::Number>(p, n))
    }

    /// Appends `items` to a list (`SET path = list_append(if_not_exists(path, []), :items)`),
    /// created when absent (its parent must exist).
    pub fn append(self, items: impl IntoIterator<Item = impl FieldValue<T::Element>>) -> U
    where
        T: ListField,
        T::Element: ToAttribute,
    {
        let items = list_value::<T::Element>(items);
        self.apply(|u, p| u.append_path(p, items, false))
    }

    /// Puts `items` at the front of a list, as [`Self::append`] appends them.
    pub fn prepend(self, items: impl IntoIterator<Item = impl FieldValue<T::Element>>) -> U
    where
        T: ListField,
        T::Element: ToAttribute,
    {
        let items = list_value::<T::Element>(items);
        self.apply(|u, p| u.append_path(p, items, true))
    }

    /// Adds `elements` to a set (`ADD path :elements`), created when absent. No elements: no
    /// action.
    pub fn add_elements(self, elements: impl IntoIterator<Item = impl FieldValue<T::Element>>) -> U
    where
        T: SetField,
        T::Element: Clone,
    {
        let set = set_value::<T::Element>(elements);
        self.apply(|u, p| u.add_path(p, set))
    }

    /// Deletes `elements` from a set (`DELETE path :elements`); a set left empty is removed, as
    /// DynamoDB does. No elements: no action.
    pub fn delete_elements(
        self,
        elements: impl IntoIterator<Item = impl FieldValue<T::Element>>,
    ) -> U
    where
        T: SetField,
        T::Element: Clone,
    {
        let set = set_value::<T::Element>(elements);
        self.apply(|u, p| u.delete_path(p, set))
    }
}

/// A value written at a path of depth `D`: as an element ([`ToAttribute::to_element`]) inside a
/// map or list, as an attribute (absent for `None`) in a document's field.
fn encode_at<T: ToAttribute, D: Depth>(
    value: impl FieldValue<T>,
) -> Result<Option<AttributeValue>> {
    if D::ELEMENT {
        value.with_value(|v: &T| v.to_element().map(Some))
    } else {
        encode_value(value)
    }
}

/// A list of `items` as one `L` value, each element encoded as `Vec<T>` encodes it (`None` as
/// `NULL`).
fn list_value<T: ToAttribute>(
    items: impl IntoIterator<Item = impl FieldValue<T>>,
) -> Result<Option<AttributeValue>> {
    let items = items
        .into_iter()
        .map(|item| Ok(encode_value(item)?.unwrap_or(AttributeValue::Null(true))))
        .collect::<Result<Vec<_>>>()?;
    Ok(Some(AttributeValue::L(items)))
}

/// A set of `elements` as one `SS`/`NS`/`BS` value; `None` (no action) without elements.
fn set_value<T: SetElement + Clone>(
    elements: impl IntoIterator<Item = impl FieldValue<T>>,
) -> Result<Option<AttributeValue>> {
    let elements: Vec<T> = elements
        .into_iter()
        .map(|e| e.with_value(T::clone))
        .collect();
    if elements.is_empty() {
        return Ok(None);
    }
    T::to_set(elements.iter()).map(Some)
}

/// Why DynamoDB refused a nested write of `path` in `item` (the item as it is after the refusal,
/// `None` when absent): the first step on the way whose parent is absent, or is not the map or
/// list the step goes into. `None` when the item holds every parent as the path needs (the
/// refusal had another cause).
pub(crate) fn parent_problem(item: Option<&crate::value::Item>, path: &Path) -> Option<String> {
    use crate::expr::PathElement;
    use crate::value::type_name;
    let Some(item) = item else {
        return Some(format!(
            "the item does not exist, so nothing on the way to {path} does"
        ));
    };
    let steps = &path.0;
    let (Some(PathElement::Attr(top)), Some(rest)) = (steps.first(), steps.get(1..)) else {
        return None;
    };
    let mut at = Path(vec![PathElement::Attr(top.clone())]);
    let mut value = match item.get(top) {
        Some(v) => v,
        None => return Some(format!("`{at}`, on the way to {path}, is absent")),
    };
    // Every step but the last needs its parent to exist; the last one only its container.
    for (i, step) in rest.iter().enumerate() {
        let last = i + 1 == rest.len();
        let kind = |v: &AttributeValue| match v {
            AttributeValue::S(_) => "a string (S)".to_owned(),
            AttributeValue::N(_) => "a number (N)".to_owned(),
            AttributeValue::L(_) => "a list (L)".to_owned(),
            AttributeValue::M(_) => "a map (M)".to_owned(),
            AttributeValue::Null(_) => "NULL".to_owned(),
            other => format!("of type {}", type_name(other)),
        };
        let next = match (step, value) {
            (PathElement::Attr(k), AttributeValue::M(m)) => m.get(k),
            (PathElement::Index(n), AttributeValue::L(l)) => l.get(*n),
            (PathElement::Attr(_), other) => {
                return Some(format!(
                    "`{at}` exists but is {}, not a map, so {path} cannot be written inside it",
                    kind(other)
                ))
            }
            (PathElement::Index(_), other) => {
                return Some(format!(
                    "`{at}` exists but is {}, not a list, so {path} cannot be written inside it",
                    kind(other)
                ))
            }
        };
        at.0.push(step.clone());
        match next {
            Some(v) => value = v,
            None if last => return None,
            None => return Some(format!("`{at}`, on the way to {path}, is absent")),
        }
    }
    None
}
