//! Typed field handles: conditions, filters and update values checked against the field's type.
//!
//! `#[derive(Entity)]` gives every stored field a handle, `Order::TOTAL: Field<Order, u64>`, so
//! a condition names its attribute through the field and takes values of the field's type:
//!
//! ```
//! use dyno_core::expr::typed::{Cond, Field};
//!
//! struct Order;
//! const TOTAL: Field<Order, u64> = Field::new("total");
//! const NOTE: Field<Order, Option<String>> = Field::new("note");
//!
//! let c: Cond<Order> = TOTAL.gt(100) & NOTE.eq("gift");
//! assert!(c.into_condition().is_ok());
//! ```
//!
//! A condition carries its entity type, so a filter built from `Product`'s fields cannot be used
//! on an `Order` query. Encoding errors (a NaN float, say) are kept inside the [`Cond`] and
//! reported by the request that uses it.

use std::fmt;
use std::marker::PhantomData;

pub use super::path::{Depth, Element, Member, Top};
use super::{AttributeType, Comparator, Condition, Operand, Path};
use crate::error::{Error, Result};
use crate::value::{AttributeValue, ToAttribute};

/// A value accepted where a field of type `T` is expected: a `T`, a `&T`, a `&str` for a
/// `String`, and a bare value for an `Option` (`"x"` for an `Option<String>` field).
///
/// Key constructors, query builders, conditions and update setters take `impl FieldValue<T>`,
/// so their arguments are typed by the fields they fill.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a value for a `{T}` field",
    label = "expected a `{T}` (or a reference to one) here",
    note = "this argument is typed by the entity's field: pass a `{T}`, a `&{T}`, or a `&str` for a `String` field"
)]
pub trait FieldValue<T> {
    /// Calls `f` with the value seen as a `&T`.
    fn with_value<R>(self, f: impl FnOnce(&T) -> R) -> R;
}

impl<T> FieldValue<T> for T {
    fn with_value<R>(self, f: impl FnOnce(&T) -> R) -> R {
        f(&self)
    }
}

impl<T> FieldValue<T> for &T {
    fn with_value<R>(self, f: impl FnOnce(&T) -> R) -> R {
        f(self)
    }
}

impl FieldValue<String> for &str {
    fn with_value<R>(self, f: impl FnOnce(&String) -> R) -> R {
        f(&self.to_owned())
    }
}

impl<T> FieldValue<Option<T>> for T {
    fn with_value<R>(self, f: impl FnOnce(&Option<T>) -> R) -> R {
        f(&Some(self))
    }
}

impl<T: Clone> FieldValue<Option<T>> for &T {
    fn with_value<R>(self, f: impl FnOnce(&Option<T>) -> R) -> R {
        f(&Some(self.clone()))
    }
}

impl FieldValue<Option<String>> for &str {
    fn with_value<R>(self, f: impl FnOnce(&Option<String>) -> R) -> R {
        f(&Some(self.to_owned()))
    }
}

/// Encodes a field value as an attribute; `None` when it has no attribute form (an `Option`
/// that is `None`, an empty set).
#[doc(hidden)]
pub fn encode_value<T: ToAttribute, V: FieldValue<T>>(value: V) -> Result<Option<AttributeValue>> {
    value.with_value(|v| v.to_attribute())
}

/// A condition on the items of entity `E`, or the error met while building it.
///
/// Combine with [`Cond::and`], [`Cond::or`], [`Cond::not`] (or `&`, `|`, `!`).
#[must_use = "a condition does nothing until it is passed to a request"]
pub struct Cond<E> {
    inner: Result<Condition>,
    _entity: PhantomData<fn() -> E>,
}

impl<E> Cond<E> {
    /// Wraps an untyped condition (for what the typed handles cannot say).
    pub fn raw(condition: Condition) -> Self {
        Cond {
            inner: Ok(condition),
            _entity: PhantomData,
        }
    }

    /// A condition that failed to build; the request using it returns `error`.
    pub fn error(error: Error) -> Self {
        Cond {
            inner: Err(error),
            _entity: PhantomData,
        }
    }

    pub(crate) fn from_result(inner: Result<Condition>) -> Self {
        Cond {
            inner,
            _entity: PhantomData,
        }
    }

    /// Both conditions.
    pub fn and(self, other: Cond<E>) -> Self {
        Self::from_result(self.inner.and_then(|a| other.inner.map(|b| a.and(b))))
    }

    /// Either condition.
    pub fn or(self, other: Cond<E>) -> Self {
        Self::from_result(self.inner.and_then(|a| other.inner.map(|b| a.or(b))))
    }

    /// The negation.
    #[allow(clippy::should_implement_trait)]
    pub fn not(self) -> Self {
        Self::from_result(self.inner.map(Condition::negate))
    }

    /// The condition tree, or the error met while building it.
    pub fn into_condition(self) -> Result<Condition> {
        self.inner
    }
}

impl<E> fmt::Debug for Cond<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Cond").field(&self.inner).finish()
    }
}

impl<E> std::ops::BitAnd for Cond<E> {
    type Output = Cond<E>;
    fn bitand(self, rhs: Cond<E>) -> Cond<E> {
        self.and(rhs)
    }
}

impl<E> std::ops::BitOr for Cond<E> {
    type Output = Cond<E>;
    fn bitor(self, rhs: Cond<E>) -> Cond<E> {
        self.or(rhs)
    }
}

impl<E> std::ops::Not for Cond<E> {
    type Output = Cond<E>;
    fn not(self) -> Cond<E> {
        Cond::not(self)
    }
}

impl<E> TryFrom<Cond<E>> for Condition {
    type Error = Error;
    fn try_from(c: Cond<E>) -> Result<Condition> {
        c.inner
    }
}

/// A typed path into the items of entity `E` whose value has Rust type `T`: a stored field
/// (`D` = [`Top`], the default) or a place inside one ([`Member`]: a document's field,
/// [`Element`]: a map entry or list element; see [`super::path`]).
///
/// `#[derive(Entity)]` generates one per stored field as an associated constant
/// (`Order::STATUS`); conditions on it take values of type `T`. Maps, lists and documents lead
/// further in: `Repo::REACTION_COUNTS.entry("heart")` is a `Field<Repo, u64, Element>`, usable in
/// the same conditions and in the nested update actions of [`crate::ops::UpdateDsl`].
pub struct Field<E, T, D: Depth = Top> {
    name: &'static str,
    steps: D::Steps,
    _types: PhantomData<fn() -> (E, T)>,
}

impl<E, T, D: Depth> Clone for Field<E, T, D> {
    fn clone(&self) -> Self {
        Field {
            name: self.name,
            steps: self.steps.clone(),
            _types: PhantomData,
        }
    }
}

impl<E, T> Copy for Field<E, T, Top> {}

impl<E, T, D: Depth> fmt::Debug for Field<E, T, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Field({})", self.describe())
    }
}

impl<E, T> Field<E, T> {
    /// The handle for attribute `name`.
    pub const fn new(name: &'static str) -> Self {
        Field {
            name,
            steps: (),
            _types: PhantomData,
        }
    }

    /// The attribute as a document path.
    pub fn path(&self) -> Path {
        Path::attr(self.name)
    }
}

impl<E, T, D: Depth> Field<E, T, D> {
    /// A path below this one (`D` is its depth), from the steps built from this path.
    pub(crate) fn below<U, D2: Depth>(
        &self,
        step: impl FnOnce(Path) -> Result<Path>,
    ) -> Field<E, U, D2> {
        self.with_steps(D2::from_path(
            D::path(self.name, &self.steps).and_then(step),
        ))
    }

    /// A path below this one with its steps as given.
    pub(crate) fn with_steps<U, D2: Depth>(&self, steps: D2::Steps) -> Field<E, U, D2> {
        Field {
            name: self.name,
            steps,
            _types: PhantomData,
        }
    }

    /// This path's steps.
    pub(crate) fn steps(&self) -> &D::Steps {
        &self.steps
    }

    /// Other paths naming the same map entry (see [`Field::entry`]).
    pub(crate) fn other_spellings(&self) -> &[Path] {
        D::other_spellings(&self.steps)
    }

    /// The top-level attribute name (the stored field this path starts at).
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The whole path, or the error met building it (a map key that could not be encoded).
    pub fn try_path(&self) -> Result<Path> {
        D::path(self.name, &self.steps)
    }

    /// The path as messages write it (`reaction_counts.heart`).
    pub(crate) fn describe(&self) -> String {
        match D::path(self.name, &self.steps) {
            Ok(p) => p.to_string(),
            Err(_) => self.name.to_owned(),
        }
    }

    /// A condition on this path, or the path's own error.
    fn on_path(&self, f: impl FnOnce(Path) -> Result<Condition>) -> Cond<E> {
        Cond::from_result(self.try_path().and_then(f))
    }

    /// `attribute_exists(path)`
    pub fn exists(&self) -> Cond<E> {
        self.on_path(|p| Ok(Condition::AttributeExists(p)))
    }

    /// `attribute_not_exists(path)`
    pub fn not_exists(&self) -> Cond<E> {
        self.on_path(|p| Ok(Condition::AttributeNotExists(p)))
    }

    /// `size(path)`, to compare the length of a string, list, map, set or binary.
    pub fn size(&self) -> Size<E> {
        Size {
            path: self.try_path(),
            _entity: PhantomData,
        }
    }

    /// `attribute_type(path, type)`
    pub fn has_type(&self, ty: AttributeType) -> Cond<E> {
        self.on_path(|p| Ok(Condition::AttributeType(p, ty)))
    }

    /// `contains(path, element)` with an encoded element.
    fn contains_value<V: ToAttribute>(&self, element: impl FieldValue<V>) -> Cond<E> {
        let name = self.describe();
        let element = encode_value(element)
            .map_err(|e| e.at("condition", &name))
            .and_then(|v| {
                v.ok_or_else(|| {
                    Error::validation(format!(
                        "condition `contains({name}, ...)`: the element has no attribute form"
                    ))
                })
            });
        self.on_path(|p| Ok(Condition::Contains(p, Operand::Value(element?))))
    }
}

impl<E, T: ToAttribute, D: Depth> Field<E, T, D> {
    fn operand(&self, value: impl FieldValue<T>, op: &str) -> Result<Operand> {
        match encode_value(value).map_err(|e| e.at("condition", &self.describe()))? {
            Some(v) => Ok(Operand::Value(v)),
            None => Err(Error::validation(format!(
                "condition `{} {op} ...`: the value has no attribute form (None or an empty set); use `eq(None)`, `exists()` or `not_exists()`",
                self.describe()
            ))),
        }
    }

    fn compare(&self, op: Comparator, value: impl FieldValue<T>) -> Cond<E> {
        let v = self.operand(value, op.symbol());
        self.on_path(|p| Ok(Condition::Compare(Operand::Path(p), op, v?)))
    }

    /// `path = value`, or `absent` when the value has no attribute form.
    fn compare_or(&self, op: Comparator, value: impl FieldValue<T>, absent: Cond<E>) -> Cond<E> {
        match encode_value(value) {
            Ok(Some(v)) => {
                self.on_path(|p| Ok(Condition::Compare(Operand::Path(p), op, Operand::Value(v))))
            }
            Ok(None) => absent,
            Err(e) => Cond::error(e.at("condition", &self.describe())),
        }
    }

    /// `field = value`; a `None` value means the attribute is absent.
    pub fn eq(&self, value: impl FieldValue<T>) -> Cond<E> {
        self.compare_or(Comparator::Eq, value, self.not_exists())
    }

    /// `field <> value`; a `None` value means the attribute is present.
    pub fn ne(&self, value: impl FieldValue<T>) -> Cond<E> {
        self.compare_or(Comparator::Ne, value, self.exists())
    }

    /// `field < value`
    pub fn lt(&self, value: impl FieldValue<T>) -> Cond<E> {
        self.compare(Comparator::Lt, value)
    }

    /// `field <= value`
    pub fn le(&self, value: impl FieldValue<T>) -> Cond<E> {
        self.compare(Comparator::Le, value)
    }

    /// `field > value`
    pub fn gt(&self, value: impl FieldValue<T>) -> Cond<E> {
        self.compare(Comparator::Gt, value)
    }

    /// `field >= value`
    pub fn ge(&self, value: impl FieldValue<T>) -> Cond<E> {
        self.compare(Comparator::Ge, value)
    }

    /// `field BETWEEN low AND high` (both inclusive).
    pub fn between(&self, low: impl FieldValue<T>, high: impl FieldValue<T>) -> Cond<E> {
        let lo = self.operand(low, "BETWEEN");
        let hi = self.operand(high, "BETWEEN");
        self.on_path(|p| Ok(Condition::Between(Operand::Path(p), lo?, hi?)))
    }

    /// `field IN (v1, v2, ...)`: 1 to 100 values.
    pub fn is_in<V: FieldValue<T>>(&self, values: impl IntoIterator<Item = V>) -> Cond<E> {
        let built = values
            .into_iter()
            .map(|v| self.operand(v, "IN"))
            .collect::<Result<Vec<_>>>()
            .and_then(|vs| {
                if vs.is_empty() || vs.len() > 100 {
                    return Err(Error::validation(format!(
                        "condition `{} IN (...)` needs 1 to 100 values, found {}",
                        self.describe(),
                        vs.len()
                    )));
                }
                Ok(vs)
            });
        self.on_path(|p| Ok(Condition::In(Operand::Path(p), built?)))
    }

    /// `field = other` (another path of the same type).
    pub fn eq_field<D2: Depth>(&self, other: Field<E, T, D2>) -> Cond<E> {
        let other = other.try_path();
        self.on_path(|p| {
            Ok(Condition::Compare(
                Operand::Path(p),
                Comparator::Eq,
                Operand::Path(other?),
            ))
        })
    }
}

macro_rules! string_ops {
    ($t:ty) => {
        impl<E, D: Depth> Field<E, $t, D> {
            /// `begins_with(field, prefix)`
            pub fn begins_with(&self, prefix: &str) -> Cond<E> {
                let v = Operand::Value(AttributeValue::S(prefix.to_owned()));
                self.on_path(|p| Ok(Condition::BeginsWith(p, v)))
            }

            /// `contains(field, text)`: a substring.
            pub fn contains(&self, text: &str) -> Cond<E> {
                self.contains_value::<String>(text)
            }
        }
    };
}
string_ops!(String);
string_ops!(Option<String>);

impl<E, T: ToAttribute, D: Depth> Field<E, Vec<T>, D> {
    /// `contains(field, element)`: the list holds `element`.
    pub fn contains(&self, element: impl FieldValue<T>) -> Cond<E> {
        self.contains_value::<T>(element)
    }
}

impl<E, T: ToAttribute, D: Depth> Field<E, Option<Vec<T>>, D> {
    /// `contains(field, element)`: the list holds `element`.
    pub fn contains(&self, element: impl FieldValue<T>) -> Cond<E> {
        self.contains_value::<T>(element)
    }
}

macro_rules! set_ops {
    ($($set:ty),*) => {$(
        impl<E, T: crate::value::SetElement + ToAttribute, D: Depth> Field<E, $set, D> {
            /// `contains(field, element)`: the set holds `element`.
            pub fn contains(&self, element: impl FieldValue<T>) -> Cond<E> {
                self.contains_value::<T>(element)
            }
        }
    )*};
}
set_ops!(
    std::collections::BTreeSet<T>,
    Option<std::collections::BTreeSet<T>>
);

macro_rules! hash_set_ops {
    ($($set:ty),*) => {$(
        impl<E, T: crate::value::SetElement + ToAttribute, H, D: Depth> Field<E, $set, D> {
            /// `contains(field, element)`: the set holds `element`.
            pub fn contains(&self, element: impl FieldValue<T>) -> Cond<E> {
                self.contains_value::<T>(element)
            }
        }
    )*};
}
hash_set_ops!(
    std::collections::HashSet<T, H>,
    Option<std::collections::HashSet<T, H>>
);

/// `size(field)` of entity `E`, compared with a length.
#[derive(Debug, Clone)]
pub struct Size<E> {
    path: Result<Path>,
    _entity: PhantomData<fn() -> E>,
}

impl<E> Size<E> {
    fn compare(&self, op: Comparator, n: usize) -> Cond<E> {
        Cond::from_result(self.path.clone().map(|p| {
            Condition::Compare(
                Operand::Size(p),
                op,
                Operand::Value(AttributeValue::N(n.to_string())),
            )
        }))
    }

    /// `size(field) = n`
    pub fn eq(&self, n: usize) -> Cond<E> {
        self.compare(Comparator::Eq, n)
    }
    /// `size(field) <> n`
    pub fn ne(&self, n: usize) -> Cond<E> {
        self.compare(Comparator::Ne, n)
    }
    /// `size(field) < n`
    pub fn lt(&self, n: usize) -> Cond<E> {
        self.compare(Comparator::Lt, n)
    }
    /// `size(field) <= n`
    pub fn le(&self, n: usize) -> Cond<E> {
        self.compare(Comparator::Le, n)
    }
    /// `size(field) > n`
    pub fn gt(&self, n: usize) -> Cond<E> {
        self.compare(Comparator::Gt, n)
    }
    /// `size(field) >= n`
    pub fn ge(&self, n: usize) -> Cond<E> {
        self.compare(Comparator::Ge, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Order;
    const TOTAL: Field<Order, u64> = Field::new("total");
    const NOTE: Field<Order, Option<String>> = Field::new("note");
    const NAME: Field<Order, String> = Field::new("name");
    const RATIO: Field<Order, f64> = Field::new("ratio");
    const TAGS: Field<Order, Vec<String>> = Field::new("tags");

    fn n(s: &str) -> Operand {
        Operand::Value(AttributeValue::N(s.into()))
    }

    #[test]
    fn comparisons_name_the_field_and_encode_the_value() {
        let c = TOTAL.gt(5).into_condition().unwrap();
        assert_eq!(
            c,
            Condition::Compare(Operand::Path(Path::attr("total")), Comparator::Gt, n("5"))
        );
        let c = TOTAL.between(1, 9).into_condition().unwrap();
        assert_eq!(
            c,
            Condition::Between(Operand::Path(Path::attr("total")), n("1"), n("9"))
        );
        let c = NAME.eq("bob").into_condition().unwrap();
        assert_eq!(c, Condition::eq("name", AttributeValue::S("bob".into())));
    }

    #[test]
    fn optional_fields_take_bare_values_and_none_means_absent() {
        let c = NOTE.eq("gift").into_condition().unwrap();
        assert_eq!(c, Condition::eq("note", AttributeValue::S("gift".into())));
        assert_eq!(
            NOTE.eq(None).into_condition().unwrap(),
            Condition::not_exists("note")
        );
        assert_eq!(
            NOTE.ne(None).into_condition().unwrap(),
            Condition::exists("note")
        );
        assert!(NOTE.lt(None).into_condition().is_err());
    }

    #[test]
    fn encoding_errors_surface_when_the_condition_is_used() {
        let err = RATIO.gt(f64::NAN).into_condition().unwrap_err();
        assert!(err.to_string().contains("ratio"), "{err}");
        let combined = (TOTAL.gt(1) & RATIO.lt(f64::INFINITY)).into_condition();
        assert!(combined.is_err());
    }

    #[test]
    fn combinators_build_the_tree() {
        let c = (TOTAL.gt(1) & NAME.begins_with("a") | !TAGS.contains("x"))
            .into_condition()
            .unwrap();
        match c {
            Condition::Or(v) => {
                assert!(matches!(v[0], Condition::And(_)));
                assert!(matches!(v[1], Condition::Not(_)));
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(TOTAL.is_in(Vec::<u64>::new()).into_condition().is_err());
        assert!(
            matches!(TOTAL.is_in([1, 2]).into_condition().unwrap(), Condition::In(_, ref v) if v.len() == 2)
        );
        assert!(matches!(
            TAGS.size().gt(2).into_condition().unwrap(),
            Condition::Compare(Operand::Size(_), Comparator::Gt, _)
        ));
    }
}
