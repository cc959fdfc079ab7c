//! Typed arithmetic stays inside the field's type: `add_stock(5)` on a `u32` at
//! `u32::MAX - 1`, `subtract_stock(1)` on an unsigned field at 0, a version increment at
//! `u64::MAX`. Each typed `ADD`/subtract carries a condition, in the same request, that keeps the
//! result in the field's range; when the write fails, the item as it was tells whether that
//! condition is why, and the error is [`Error::OutOfRange`] naming the entity, the field, the
//! stored value and the delta. Nothing is written either way.
//!
//! The range is the type's: [`Arithmetic`] gives it for each integer type; floats and decimals
//! have none (DynamoDB's own number range applies to them).

use crate::error::Error;
use crate::expr::{Comparator, Condition, Operand, Path};
use crate::value::number::MAX_DIGITS;
use crate::value::{describe, AttributeValue, Item, Number, ToAttribute};

/// A number type typed updates add to and subtract from (`add_<field>`, `subtract_<field>`):
/// its range, which the result must stay in.
///
/// ```
/// use dyno_core::ops::Arithmetic;
/// assert_eq!(u8::range(), Some(("0".to_owned(), "255".to_owned())));
/// assert_eq!(f64::range(), None);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a number type typed updates can add to",
    label = "no `Arithmetic` impl",
    note = "the integer types, `f32`, `f64` and `rust_decimal::Decimal` implement it"
)]
pub trait Arithmetic: ToAttribute {
    /// The type's name, for messages (`u32`).
    const NAME: &'static str;

    /// The lowest and highest values of the type, as decimal text; `None` when results are
    /// bounded by DynamoDB's number range only (floats, decimals).
    fn range() -> Option<(String, String)>;
}

macro_rules! integer {
    ($($t:ty),*) => {$(
        impl Arithmetic for $t {
            const NAME: &'static str = stringify!($t);
            fn range() -> Option<(String, String)> {
                Some((<$t>::MIN.to_string(), <$t>::MAX.to_string()))
            }
        }
    )*};
}
integer!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

macro_rules! unbounded {
    ($($t:ty),*) => {$(
        impl Arithmetic for $t {
            const NAME: &'static str = stringify!($t);
            fn range() -> Option<(String, String)> {
                None
            }
        }
    )*};
}
unbounded!(f32, f64);
#[cfg(feature = "rust_decimal")]
unbounded!(rust_decimal::Decimal);

/// `+ delta` (`ADD`) or `- delta` (`SET f = if_not_exists(f, 0) - delta`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Add,
    Subtract,
}

/// A field type nested update actions add to ([`super::PathUpdate::add`]): a number type, or
/// an `Option` of one.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a number type typed updates can add to",
    label = "no `Counter` impl",
    note = "`.at(path).add(..)` and `.subtract(..)` take a path to an integer, `f32`, `f64` or `rust_decimal::Decimal` (or an `Option` of one)"
)]
pub trait Counter {
    /// The number type.
    type Number: Arithmetic;
}

impl<T: Arithmetic> Counter for T {
    type Number = T;
}

impl<T: Arithmetic> Counter for Option<T> {
    type Number = T;
}

/// The range condition of one typed `ADD`/subtract on an attribute or a path inside one (a map
/// entry, a document's field): the stored value `c` (absent counting as 0) must satisfy
/// `lo <= c <= hi`.
#[derive(Debug, Clone)]
pub(crate) struct Bound {
    path: Path,
    op: Op,
    delta: Number,
    ty: &'static str,
    range: (Number, Number),
    lo: Number,
    hi: Number,
    /// Not a range: the write of the map entry at `path` requires that the entry is not stored
    /// under this other name of its key (see [`Bound::spelling`]).
    respelled: Option<Path>,
}

impl Bound {
    /// The bound of `path op delta` for a field of type `T` (`delta` encoded as `T`'s `N`);
    /// `None` for a type without a range.
    pub(crate) fn new<T: Arithmetic>(
        path: &Path,
        op: Op,
        delta: &AttributeValue,
    ) -> Option<Result<Bound, Error>> {
        let (min, max) = T::range()?;
        let parse = |text: &str| {
            Number::parse(text)
                .map_err(|e| Error::validation(format!("{} {text}: {}", T::NAME, e.message())))
        };
        let bound = (|| {
            let AttributeValue::N(text) = delta else {
                return Err(Error::validation(format!(
                    "{path}: the delta of a typed {} is {}, not a number",
                    T::NAME,
                    describe(delta)
                )));
            };
            let (delta, min, max) = (parse(text)?, parse(&min)?, parse(&max)?);
            // c + d in [min, max] <=> c in [min - d, max - d]; c - d: c in [min + d, max + d].
            let (lo, hi) = match op {
                Op::Add => (min.sub(&delta), max.sub(&delta)),
                Op::Subtract => (min.add(&delta), max.add(&delta)),
            };
            Ok(Bound {
                path: path.clone(),
                op,
                delta,
                ty: T::NAME,
                range: (min, max),
                lo,
                hi,
                respelled: None,
            })
        })();
        Some(bound)
    }

    /// The bound on a version attribute: `+ 1` on a `u64`.
    pub(crate) fn version(attribute: &str) -> Result<Bound, Error> {
        let path = Path::attr(attribute);
        match Bound::new::<u64>(&path, Op::Add, &AttributeValue::N("1".to_owned())) {
            Some(bound) => bound,
            None => Err(Error::validation("u64 has a range")),
        }
    }

    /// The write of the map entry at `path` requires `attribute_not_exists(other)`: `other`
    /// names the same key otherwise (`counts.0000000007` beside `counts.7`), and writing `path`
    /// beside it would leave the map holding one key twice.
    pub(crate) fn spelling(path: &Path, other: Path) -> Bound {
        Bound {
            path: path.clone(),
            op: Op::Add,
            delta: Number::zero(),
            ty: "",
            range: (Number::zero(), Number::zero()),
            lo: Number::zero(),
            hi: Number::zero(),
            respelled: Some(other),
        }
    }

    /// The path the bound is on.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The condition sent with the write: `[attribute_not_exists(f) OR] (f >= :lo AND f <= :hi)`,
    /// the absent case allowed when 0 is in range. The bounds are rounded outward to DynamoDB's
    /// 38 digits (a 128-bit bound has 39), which no stored number can tell apart.
    pub(crate) fn condition(&self) -> Condition {
        if let Some(other) = &self.respelled {
            return Condition::not_exists(other.clone());
        }
        let path = || Operand::Path(self.path.clone());
        let value = |n: Number| Operand::Value(AttributeValue::N(n.to_string()));
        let within = Condition::Compare(
            path(),
            Comparator::Ge,
            value(self.lo.rounded(MAX_DIGITS, true)),
        )
        .and(Condition::Compare(
            path(),
            Comparator::Le,
            value(self.hi.rounded(MAX_DIGITS, false)),
        ));
        if self.admits(&Number::zero()) {
            Condition::not_exists(self.path.clone()).or(within)
        } else {
            within
        }
    }

    fn admits(&self, current: &Number) -> bool {
        *current >= self.lo && *current <= self.hi
    }

    /// [`Error::OutOfRange`] when `old` (the item as it was when the write failed; `None`:
    /// absent) breaks this bound, for `entity`.
    pub(crate) fn violation(&self, entity: &'static str, old: Option<&Item>) -> Option<Error> {
        if let Some(other) = &self.respelled {
            old.and_then(|item| other.get(item))?;
            return Some(Error::Validation {
                message: format!(
                    "update of {entity}: the map entry {} is stored as {other} (another \
                     spelling of the same key, written by an earlier writer); writing {} beside \
                     it would leave the map holding the key twice, so nothing was written. \
                     Rewrite the map whole (read it, which accepts the other spelling, and set \
                     it), then update the entry",
                    self.path, self.path
                ),
            });
        }
        let stored = old.and_then(|item| self.path.get(item));
        let current = match stored {
            None => Number::zero(),
            Some(AttributeValue::N(text)) => Number::parse(text).ok()?,
            Some(other) => {
                return Some(self.error(
                    entity,
                    format!("it holds {}, not a number", describe(other)),
                ))
            }
        };
        if self.admits(&current) {
            return None;
        }
        let (sign, result) = match self.op {
            Op::Add => ("+", current.add(&self.delta)),
            Op::Subtract => ("-", current.sub(&self.delta)),
        };
        let found = match stored {
            Some(_) => format!("stored value {current}"),
            None => "absent (counts as 0)".to_owned(),
        };
        Some(self.error(
            entity,
            format!(
                "{found} {sign} {} = {result}, outside {}'s range {}..={}",
                self.delta, self.ty, self.range.0, self.range.1
            ),
        ))
    }

    fn error(&self, entity: &'static str, message: String) -> Error {
        Error::OutOfRange {
            entity: Some(entity),
            field: self.path.to_string(),
            message,
        }
    }
}

/// A value a typed update was given to rebuild an index key, not to write (the other fields of
/// a multi-field key, a created-at stamp): the write is conditioned on the stored item holding
/// it, so that a stale read fails instead of reverting a concurrent change.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Given {
    /// The field's attribute.
    pub(crate) attribute: String,
    /// The field, for messages.
    pub(crate) field: &'static str,
    /// The value given (`None`: the field is absent).
    pub(crate) value: Option<AttributeValue>,
    /// The index key attribute(s) it rebuilds (`GSI2SK`), for messages.
    pub(crate) rebuilds: String,
}

impl Given {
    /// `attribute = :value`, or `attribute_not_exists(attribute)` for a value given as absent.
    pub(crate) fn condition(&self) -> Condition {
        match &self.value {
            Some(v) => Condition::eq(Path::attr(&self.attribute), v.clone()),
            None => Condition::not_exists(Path::attr(&self.attribute)),
        }
    }

    /// [`Error::StaleKeyField`] when `old` (the item as it was) holds another value.
    pub(crate) fn violation(&self, entity: &'static str, old: Option<&Item>) -> Option<Error> {
        let stored = old?.get(&self.attribute);
        if stored == self.value.as_ref() {
            return None;
        }
        let show = |v: Option<&AttributeValue>| v.map_or_else(|| "absent".to_owned(), describe);
        Some(Error::StaleKeyField {
            entity: Some(entity),
            field: self.field,
            key: self.rebuilds.clone(),
            message: format!(
                "stored {}, given {}",
                show(stored),
                show(self.value.as_ref())
            ),
        })
    }
}

/// The range conditions of one write, the values it was given to rebuild index keys, and the
/// caller's own condition, to tell which failed.
#[derive(Debug, Clone, Default)]
pub(crate) struct Bounds {
    pub(crate) bounds: Vec<Bound>,
    pub(crate) givens: Vec<Given>,
    /// The caller's condition: when it is false on the item as it was, the failure is the
    /// caller's ([`Error::ConditionFailed`]), whatever the ranges say.
    pub(crate) condition: Option<Condition>,
}

impl Bounds {
    /// True when the write carries no range condition and no given value.
    pub(crate) fn is_empty(&self) -> bool {
        self.bounds.is_empty() && self.givens.is_empty()
    }

    /// [`Error::StaleKeyField`] for the first given value `old` (the item as it was; `None`:
    /// absent) does not hold, else [`Error::OutOfRange`] for the first bound it breaks, unless the caller's own condition is false on it too.
    pub(crate) fn violation(&self, entity: &'static str, old: Option<&Item>) -> Option<Error> {
        if let Some(c) = &self.condition
            && matches!(crate::expr::eval::eval_condition(c, old), Ok(false))
        {
            return None;
        }
        self.givens
            .iter()
            .find_map(|g| g.violation(entity, old))
            .or_else(|| self.bounds.iter().find_map(|b| b.violation(entity, old)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(v: &str) -> AttributeValue {
        AttributeValue::N(v.to_owned())
    }

    fn stock() -> Path {
        Path::attr("stock")
    }

    fn item(v: &str) -> Item {
        Item::from([("stock".to_owned(), n(v))])
    }

    #[test]
    fn add_and_subtract_ranges_admit_exactly_the_results_in_the_type() {
        let add = Bound::new::<u32>(&stock(), Op::Add, &n("5"))
            .unwrap()
            .unwrap();
        assert!(add.violation("P", Some(&item("4294967290"))).is_none());
        let e = add.violation("P", Some(&item("4294967291"))).unwrap();
        assert!(e.to_string().contains("4294967291 + 5 = 4294967296"), "{e}");
        assert!(add.violation("P", None).is_none(), "absent counts as 0");

        let sub = Bound::new::<u32>(&stock(), Op::Subtract, &n("1"))
            .unwrap()
            .unwrap();
        assert!(sub.violation("P", Some(&item("1"))).is_none());
        assert!(sub.violation("P", Some(&item("0"))).is_some());
        let e = sub.violation("P", None).unwrap();
        assert!(
            e.to_string().contains("absent (counts as 0) - 1 = -1"),
            "{e}"
        );

        let neg = Bound::new::<i8>(&stock(), Op::Add, &n("-100"))
            .unwrap()
            .unwrap();
        assert!(neg.violation("P", Some(&item("-28"))).is_none());
        assert!(neg.violation("P", Some(&item("-29"))).is_some());
        let min = Bound::new::<i8>(&stock(), Op::Subtract, &n("-128"))
            .unwrap()
            .unwrap();
        assert!(
            min.violation("P", None).is_some(),
            "0 - (-128) = 128 is no i8"
        );
        assert!(min.violation("P", Some(&item("-1"))).is_none());
        assert!(Bound::new::<f64>(&stock(), Op::Add, &n("1")).is_none());
    }

    #[test]
    fn a_128_bit_bound_is_sent_with_38_digits_and_keeps_its_meaning() {
        let b = Bound::new::<u128>(&stock(), Op::Add, &n("1"))
            .unwrap()
            .unwrap();
        let text = format!("{:?}", b.condition());
        // u128::MAX - 1 = 340282366920938463463374607431768211454 (39 digits) rounds down.
        assert!(
            text.contains("340282366920938463463374607431768211450"),
            "{text}"
        );
        let b = Bound::new::<i128>(&stock(), Op::Subtract, &n("1"))
            .unwrap()
            .unwrap();
        let lo = b.lo.rounded(MAX_DIGITS, true);
        assert!(lo.significant_digits() <= MAX_DIGITS);
        assert!(lo >= b.lo);
    }
}
