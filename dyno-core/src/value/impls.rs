//! `ToAttribute`/`FromAttribute` for std types (the feature-gated ones are in `third_party.rs`).
//!
//! Collections (lists, maps, sets) read an absent attribute as empty: DynamoDB cannot store an
//! empty set at all, and items written before a collection field existed still decode.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::hash::{BuildHasher, Hash};

use aws_sdk_dynamodb::primitives::Blob;

use super::number::MAX_DIGITS;
use super::ScalarType;
use super::{describe, AttributeValue, Decimal, FromAttribute, Item, ToAttribute};
use crate::error::{Error, Result};
use crate::key::KeyPart;

fn mismatch<T>(expected: &str, found: &AttributeValue) -> Result<T> {
    Err(Error::decode(expected, describe(found)))
}

impl<T: ToAttribute + ?Sized> ToAttribute for &T {
    const SCALAR: Option<ScalarType> = T::SCALAR;
    fn to_attribute(&self) -> Result<Option<AttributeValue>> {
        (**self).to_attribute()
    }
    fn to_element(&self) -> Result<AttributeValue> {
        (**self).to_element()
    }
}

impl<T: ToAttribute + ?Sized> ToAttribute for Box<T> {
    const SCALAR: Option<ScalarType> = T::SCALAR;
    fn to_attribute(&self) -> Result<Option<AttributeValue>> {
        (**self).to_attribute()
    }
    fn to_element(&self) -> Result<AttributeValue> {
        (**self).to_element()
    }
}

impl<T: FromAttribute> FromAttribute for Box<T> {
    fn from_attribute(value: &AttributeValue) -> Result<Self> {
        T::from_attribute(value).map(Box::new)
    }
    fn from_missing() -> Result<Self> {
        T::from_missing().map(Box::new)
    }
}

impl ToAttribute for str {
    const SCALAR: Option<ScalarType> = Some(ScalarType::S);
    fn to_attribute(&self) -> Result<Option<AttributeValue>> {
        Ok(Some(AttributeValue::S(self.to_owned())))
    }
}

impl ToAttribute for String {
    const SCALAR: Option<ScalarType> = Some(ScalarType::S);
    fn to_attribute(&self) -> Result<Option<AttributeValue>> {
        Ok(Some(AttributeValue::S(self.clone())))
    }
}

impl FromAttribute for String {
    fn from_attribute(value: &AttributeValue) -> Result<Self> {
        match value {
            AttributeValue::S(s) => Ok(s.clone()),
            other => mismatch("S (string)", other),
        }
    }
    fn from_missing() -> Result<Self> {
        Err(Error::decode("S (string)", "no attribute"))
    }
}

impl ToAttribute for bool {
    fn to_attribute(&self) -> Result<Option<AttributeValue>> {
        Ok(Some(AttributeValue::Bool(*self)))
    }
}

impl FromAttribute for bool {
    fn from_attribute(value: &AttributeValue) -> Result<Self> {
        match value {
            AttributeValue::Bool(b) => Ok(*b),
            other => mismatch("BOOL", other),
        }
    }
    fn from_missing() -> Result<Self> {
        Err(Error::decode("BOOL", "no attribute"))
    }
}

/// A type stored as a DynamoDB number (`N`), and so also usable in number sets (`NS`).
pub trait NumberValue: Sized {
    /// The number's decimal text.
    fn to_number(&self) -> Result<String>;
    /// Parses the number's decimal text.
    fn from_number(text: &str) -> Result<Self>;
}

/// DynamoDB keeps at most 38 significant digits; only 128-bit integers can have more.
fn check_precision(text: String) -> Result<String> {
    let digits = Decimal::parse(&text).map_or(0, |d| d.digit_count());
    if digits > MAX_DIGITS {
        return Err(Error::encode(format!(
            "{text} has {digits} significant digits; DynamoDB numbers hold at most {MAX_DIGITS}"
        )));
    }
    Ok(text)
}

macro_rules! integer {
    ($($t:ty),*) => {$(
        impl NumberValue for $t {
            fn to_number(&self) -> Result<String> {
                if <$t>::BITS > 64 {
                    check_precision(self.to_string())
                } else {
                    Ok(self.to_string())
                }
            }
            fn from_number(text: &str) -> Result<Self> {
                text.parse().map_err(|_| {
                    Error::decode(concat!("N fitting ", stringify!($t)), format!("N {text}"))
                })
            }
        }
    )*};
}
integer!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

macro_rules! float {
    ($($t:ty),*) => {$(
        impl NumberValue for $t {
            fn to_number(&self) -> Result<String> {
                if !self.is_finite() {
                    return Err(Error::encode(format!(
                        "DynamoDB numbers must be finite, found {self}"
                    )));
                }
                // DynamoDB's range: magnitudes from 1e-130 up to (not including) 1e126.
                let magnitude = f64::from(self.abs());
                if magnitude >= 1e126 || (magnitude != 0.0 && magnitude < 1e-130) {
                    return Err(Error::encode(format!(
                        "{self:e} is outside DynamoDB's number range (magnitudes 1e-130 to 1e126)"
                    )));
                }
                Ok(self.to_string())
            }
            fn from_number(text: &str) -> Result<Self> {
                // `parse` turns out-of-range text into an infinity; that is no number of this type.
                text.parse::<$t>().ok().filter(|v| v.is_finite()).ok_or_else(|| {
                    Error::decode(concat!("N fitting ", stringify!($t)), format!("N {text}"))
                })
            }
        }
    )*};
}
float!(f32, f64);

macro_rules! number_attribute {
    ($($t:ty),*) => {$(
        impl ToAttribute for $t {
            const SCALAR: Option<ScalarType> = Some(ScalarType::N);
            fn to_attribute(&self) -> Result<Option<AttributeValue>> {
                Ok(Some(AttributeValue::N(self.to_number()?)))
            }
        }
        impl FromAttribute for $t {
            fn from_attribute(value: &AttributeValue) -> Result<Self> {
                match value {
                    AttributeValue::N(n) => <$t>::from_number(n),
                    other => mismatch(concat!("N (", stringify!($t), ")"), other),
                }
            }
            fn from_missing() -> Result<Self> {
                Err(Error::decode(concat!("N (", stringify!($t), ")"), "no attribute"))
            }
        }
    )*};
}
number_attribute!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64);

impl<T: ToAttribute> ToAttribute for Option<T> {
    const SCALAR: Option<ScalarType> = T::SCALAR;
    fn to_attribute(&self) -> Result<Option<AttributeValue>> {
        match self {
            Some(v) => v.to_attribute(),
            None => Ok(None),
        }
    }
    fn to_element(&self) -> Result<AttributeValue> {
        match self {
            Some(v) => v.to_element(),
            None => Ok(AttributeValue::Null(true)),
        }
    }
}

impl<T: FromAttribute> FromAttribute for Option<T> {
    fn from_attribute(value: &AttributeValue) -> Result<Self> {
        match value {
            // Other clients write NULL for "no value"; read it as absent.
            AttributeValue::Null(true) => Ok(None),
            v => T::from_attribute(v).map(Some),
        }
    }
    fn from_missing() -> Result<Self> {
        Ok(None)
    }
}

/// Bytes, stored as `B`. `Vec<u8>` is a list of numbers like any `Vec`; wrap bytes in `Bytes`
/// (or use `Blob`) to store them as binary.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Bytes(pub Vec<u8>);

impl ToAttribute for Bytes {
    const SCALAR: Option<ScalarType> = Some(ScalarType::B);
    fn to_attribute(&self) -> Result<Option<AttributeValue>> {
        Ok(Some(AttributeValue::B(Blob::new(self.0.clone()))))
    }
}

impl FromAttribute for Bytes {
    fn from_attribute(value: &AttributeValue) -> Result<Self> {
        match value {
            AttributeValue::B(b) => Ok(Bytes(b.as_ref().to_vec())),
            other => mismatch("B (binary)", other),
        }
    }
    fn from_missing() -> Result<Self> {
        Err(Error::decode("B (binary)", "no attribute"))
    }
}

impl ToAttribute for Blob {
    const SCALAR: Option<ScalarType> = Some(ScalarType::B);
    fn to_attribute(&self) -> Result<Option<AttributeValue>> {
        Ok(Some(AttributeValue::B(self.clone())))
    }
}

impl FromAttribute for Blob {
    fn from_attribute(value: &AttributeValue) -> Result<Self> {
        match value {
            AttributeValue::B(b) => Ok(b.clone()),
            other => mismatch("B (binary)", other),
        }
    }
    fn from_missing() -> Result<Self> {
        Err(Error::decode("B (binary)", "no attribute"))
    }
}

impl<T: ToAttribute> ToAttribute for Vec<T> {
    fn to_attribute(&self) -> Result<Option<AttributeValue>> {
        let mut out = Vec::with_capacity(self.len());
        for (i, v) in self.iter().enumerate() {
            // A list cannot hold an absent element: None is NULL, an empty set an error.
            out.push(v.to_element().map_err(|e| nested(e, i))?);
        }
        Ok(Some(AttributeValue::L(out)))
    }
}

impl<T: FromAttribute> FromAttribute for Vec<T> {
    fn from_attribute(value: &AttributeValue) -> Result<Self> {
        match value {
            AttributeValue::L(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| T::from_attribute(v).map_err(|e| nested(e, i)))
                .collect(),
            other => mismatch("L (list)", other),
        }
    }
    fn from_missing() -> Result<Self> {
        Ok(Vec::new())
    }
}

/// Adds the position inside a list or map to an error from one of its elements, outermost first:
/// `expected ["tags"][1] to be N (u32), found S "x"`.
fn nested(err: Error, index: impl std::fmt::Display) -> Error {
    let at = |text: String| {
        if text.starts_with('[') {
            format!("[{index}]{text}")
        } else {
            format!("[{index}] to be {text}")
        }
    };
    let at_encode = |text: String| {
        if text.starts_with('[') {
            format!("[{index}]{text}")
        } else {
            format!("[{index}]: {text}")
        }
    };
    match err {
        Error::Decode {
            entity,
            attribute,
            expected,
            found,
            source,
        } => Error::Decode {
            entity,
            attribute,
            expected: at(expected),
            found,
            source,
        },
        Error::Encode {
            entity,
            attribute,
            message,
            source,
        } => Error::Encode {
            entity,
            attribute,
            message: at_encode(message),
            source,
        },
        other => other,
    }
}

/// An element type of a DynamoDB set: strings (`SS`), numbers (`NS`) or binaries (`BS`), and
/// unit enums deriving `KeyPart` (a string set of their names).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an element of a DynamoDB set",
    label = "a set holds strings, numbers or bytes",
    note = "a unit enum is a set element when it derives `KeyPart` (stored as a string set of its names): `#[derive(KeyPart)]`; for other types, store a `Vec<{Self}>` (a list) or mark the field `#[dyno(serde)]`"
)]
pub trait SetElement: Sized {
    /// Builds the set attribute; DynamoDB rejects empty sets, so callers leave those out.
    fn to_set<'a>(items: impl Iterator<Item = &'a Self>) -> Result<AttributeValue>
    where
        Self: 'a;
    /// Reads a set attribute.
    fn from_set(value: &AttributeValue) -> Result<Vec<Self>>;
}

impl SetElement for String {
    fn to_set<'a>(items: impl Iterator<Item = &'a Self>) -> Result<AttributeValue> {
        Ok(AttributeValue::Ss(items.cloned().collect()))
    }
    fn from_set(value: &AttributeValue) -> Result<Vec<Self>> {
        match value {
            AttributeValue::Ss(v) => Ok(v.clone()),
            other => mismatch("SS (string set)", other),
        }
    }
}

impl SetElement for Bytes {
    fn to_set<'a>(items: impl Iterator<Item = &'a Self>) -> Result<AttributeValue> {
        Ok(AttributeValue::Bs(
            items.map(|b| Blob::new(b.0.clone())).collect(),
        ))
    }
    fn from_set(value: &AttributeValue) -> Result<Vec<Self>> {
        match value {
            AttributeValue::Bs(v) => Ok(v.iter().map(|b| Bytes(b.as_ref().to_vec())).collect()),
            other => mismatch("BS (binary set)", other),
        }
    }
}

macro_rules! number_set {
    ($($t:ty),*) => {$(
        impl SetElement for $t {
            fn to_set<'a>(items: impl Iterator<Item = &'a Self>) -> Result<AttributeValue> {
                Ok(AttributeValue::Ns(items.map(NumberValue::to_number).collect::<Result<_>>()?))
            }
            fn from_set(value: &AttributeValue) -> Result<Vec<Self>> {
                match value {
                    AttributeValue::Ns(v) => v.iter().map(|n| <$t>::from_number(n)).collect(),
                    other => mismatch("NS (number set)", other),
                }
            }
        }
    )*};
}
number_set!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

// Empty sets cannot be stored in DynamoDB: an empty set is an absent attribute, and an absent
// attribute reads back as an empty set.
macro_rules! set {
    ($set:ident, $($bound:tt)*) => {
        impl<T: SetElement + $($bound)*, H: BuildHasherBound> ToAttribute for $set<T, H> {
            fn to_attribute(&self) -> Result<Option<AttributeValue>> {
                if self.is_empty() {
                    return Ok(None);
                }
                T::to_set(self.iter()).map(Some)
            }
            fn to_element(&self) -> Result<AttributeValue> {
                self.to_attribute()?.ok_or_else(empty_set_element)
            }
        }
        impl<T: SetElement + $($bound)*, H: BuildHasherBound> FromAttribute for $set<T, H> {
            fn from_attribute(value: &AttributeValue) -> Result<Self> {
                Ok(T::from_set(value)?.into_iter().collect())
            }
            fn from_missing() -> Result<Self> {
                Ok(Self::default())
            }
        }
    };
}

/// `HashSet`'s hasher bound; `BTreeSet` has no hasher, so it gets its own impls below.
#[doc(hidden)]
pub trait BuildHasherBound: BuildHasher + Default {}
impl<H: BuildHasher + Default> BuildHasherBound for H {}

set!(HashSet, Eq + Hash);

impl<T: SetElement + Ord> ToAttribute for BTreeSet<T> {
    fn to_attribute(&self) -> Result<Option<AttributeValue>> {
        if self.is_empty() {
            return Ok(None);
        }
        T::to_set(self.iter()).map(Some)
    }
    fn to_element(&self) -> Result<AttributeValue> {
        self.to_attribute()?.ok_or_else(empty_set_element)
    }
}

/// An empty set as an element of a list or a map: DynamoDB stores no empty set, and leaving the
/// element out (or writing `NULL`) would not read back as what was written.
fn empty_set_element() -> Error {
    Error::encode(
        "an empty set cannot be stored inside a list or map (DynamoDB has no empty sets, and \
         leaving the entry out would lose it); nothing was written. Leave the entry out of the \
         collection, or store the set at the top level of the item, where empty means absent",
    )
}

impl<T: SetElement + Ord> FromAttribute for BTreeSet<T> {
    fn from_attribute(value: &AttributeValue) -> Result<Self> {
        Ok(T::from_set(value)?.into_iter().collect())
    }
    fn from_missing() -> Result<Self> {
        Ok(BTreeSet::new())
    }
}

fn map_to_attribute<'a, K: KeyPart + 'a, V: ToAttribute + 'a>(
    entries: impl Iterator<Item = (&'a K, &'a V)>,
) -> Result<Option<AttributeValue>> {
    let mut out = HashMap::new();
    for (k, v) in entries {
        let name = k.encode_map_key()?;
        if name.is_empty() {
            return Err(nested(
                Error::encode(
                    "a map key is empty: DynamoDB refuses an empty attribute name anywhere in an \
                     item (\"Empty attribute name\"); nothing was written. Give the entry a \
                     non-empty key",
                ),
                "\"\"",
            ));
        }
        // Every entry is kept: a `None` value as NULL, an empty set refused (see `to_element`).
        let a = v
            .to_element()
            .map_err(|e| nested(e, format_args!("{name:?}")))?;
        out.insert(name, a);
    }
    Ok(Some(AttributeValue::M(out)))
}

/// Reads a map. A key read from an entry name other than the one the key type writes (an
/// integer key stored padded, `0000000007`, by an earlier writer; an enum alias) is accepted, but
/// two entries that are spellings of one key (`7` and `0000000007`) are a decode error naming
/// both: keeping either would silently drop the other's value, and which one would vary with the
/// map's order.
fn map_from_attribute<K: KeyPart, V: FromAttribute, M: FromIterator<(K, V)>>(
    value: &AttributeValue,
) -> Result<M> {
    match value {
        AttributeValue::M(m) => {
            // Entries whose name is not the canonical one, with it: only these can collide.
            let mut respelled: Vec<(&str, String)> = Vec::new();
            let out = m
                .iter()
                .map(|(k, v)| {
                    let at = |e| nested(e, format_args!("{k:?}"));
                    let key = K::decode_map_key(k).map_err(|e| {
                        at(Error::decode(
                            format!("a map key for {}", std::any::type_name::<K>()),
                            e.to_string(),
                        ))
                    })?;
                    if let Ok(canonical) = key.encode_map_key()
                        && canonical != *k
                    {
                        respelled.push((k.as_str(), canonical));
                    }
                    V::from_attribute(v).map(|v| (key, v)).map_err(at)
                })
                .collect::<Result<M>>()?;
            if !respelled.is_empty() {
                check_one_spelling_per_key(m, &mut respelled)?;
            }
            Ok(out)
        }
        other => mismatch("M (map)", other),
    }
}

/// The error for a map holding two spellings of one key (see [`map_from_attribute`]):
/// `respelled` lists each entry whose name is not its key's canonical one, with that one.
fn check_one_spelling_per_key(
    m: &HashMap<String, AttributeValue>,
    respelled: &mut [(&str, String)],
) -> Result<()> {
    // Sorted, so that the same map always names the same pair.
    respelled.sort_unstable();
    for (i, (name, canonical)) in respelled.iter().enumerate() {
        let other = if m.contains_key(canonical) {
            Some(canonical.as_str())
        } else {
            respelled[..i]
                .iter()
                .find(|(_, c)| c == canonical)
                .map(|(n, _)| *n)
        };
        if let Some(other) = other {
            return Err(nested(
                Error::decode(
                    format!(
                        "one entry per key (the entry names {other:?} and {name:?} are two \
                         spellings of one key, written {canonical:?}): the map is not read, as \
                         keeping either entry would drop the other's value. Merge them into the \
                         entry {canonical:?} (rewrite the map whole) and remove the other"
                    ),
                    format!("both {other:?} and {name:?}"),
                ),
                format_args!("{canonical:?}"),
            ));
        }
    }
    Ok(())
}

/// Maps are keyed by any [`KeyPart`]: a `String` key is the entry's name as it is, other keys
/// their plain key form (see [`KeyPart::encode_map_key`]).
impl<K: KeyPart + Eq + Hash, V: ToAttribute, H: BuildHasherBound> ToAttribute for HashMap<K, V, H> {
    fn to_attribute(&self) -> Result<Option<AttributeValue>> {
        map_to_attribute(self.iter())
    }
}

impl<K: KeyPart + Eq + Hash, V: FromAttribute, H: BuildHasherBound> FromAttribute
    for HashMap<K, V, H>
{
    fn from_attribute(value: &AttributeValue) -> Result<Self> {
        map_from_attribute(value)
    }
    fn from_missing() -> Result<Self> {
        Ok(Self::default())
    }
}

impl<K: KeyPart + Ord, V: ToAttribute> ToAttribute for BTreeMap<K, V> {
    fn to_attribute(&self) -> Result<Option<AttributeValue>> {
        map_to_attribute(self.iter())
    }
}

impl<K: KeyPart + Ord, V: FromAttribute> FromAttribute for BTreeMap<K, V> {
    fn from_attribute(value: &AttributeValue) -> Result<Self> {
        map_from_attribute(value)
    }
    fn from_missing() -> Result<Self> {
        Ok(Self::default())
    }
}

/// One field of a document stored as a map (`#[derive(Document)]`): its value, or `None` to
/// leave it out; an error names the field as an element of the map (`["city"] ...`), so the
/// entity's field comes first in the message.
#[doc(hidden)]
pub fn put_member<T: ToAttribute + ?Sized>(map: &mut Item, name: &str, value: &T) -> Result<()> {
    if let Some(v) = value
        .to_attribute()
        .map_err(|e| nested(e, format_args!("{name:?}")))?
    {
        map.insert(name.to_owned(), v);
    }
    Ok(())
}

/// Reads one field of a document stored as a map (absent: `T`'s missing value), an error naming
/// the field as [`put_member`]'s does.
#[doc(hidden)]
pub fn get_member<T: FromAttribute>(map: &Item, name: &str) -> Result<T> {
    match map.get(name) {
        Some(v) => T::from_attribute(v),
        None => T::from_missing(),
    }
    .map_err(|e| nested(e, format_args!("{name:?}")))
}

/// The map a document is stored as, or the decode error naming `document`.
#[doc(hidden)]
pub fn document_map<'a>(value: &'a AttributeValue, document: &str) -> Result<&'a Item> {
    match value {
        AttributeValue::M(m) => Ok(m),
        other => mismatch(&format!("M (map, the document {document})"), other),
    }
}

impl ToAttribute for AttributeValue {
    fn to_attribute(&self) -> Result<Option<AttributeValue>> {
        Ok(Some(self.clone()))
    }
}

impl FromAttribute for AttributeValue {
    fn from_attribute(value: &AttributeValue) -> Result<Self> {
        Ok(value.clone())
    }
}

/// A value stored through serde_dynamo: what `#[dyno(serde)]` fields use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Serde<T>(pub T);

impl<T: serde::Serialize> ToAttribute for Serde<T> {
    fn to_attribute(&self) -> Result<Option<AttributeValue>> {
        serde_dynamo::to_attribute_value::<_, AttributeValue>(&self.0)
            // A value that serializes to NULL (`None`, `()`) is an absent attribute, as `Option`
            // is everywhere else; reading the absent attribute gives it back.
            .map(|v| (!matches!(v, AttributeValue::Null(_))).then_some(v))
            .map_err(|e| Error::Encode {
                entity: None,
                attribute: None,
                message: "serde_dynamo could not serialize the value".into(),
                source: Some(std::sync::Arc::new(e)),
            })
    }
}

impl<T: serde::de::DeserializeOwned> FromAttribute for Serde<T> {
    fn from_attribute(value: &AttributeValue) -> Result<Self> {
        serde_dynamo::from_attribute_value::<AttributeValue, T>(value.clone())
            .map(Serde)
            .map_err(|e| Error::Decode {
                entity: None,
                attribute: None,
                expected: std::any::type_name::<T>().to_owned(),
                found: describe(value),
                source: Some(std::sync::Arc::new(e)),
            })
    }
    fn from_missing() -> Result<Self> {
        serde_dynamo::from_attribute_value::<AttributeValue, T>(AttributeValue::Null(true))
            .map(Serde)
            .map_err(|_| Error::decode(std::any::type_name::<T>(), "no attribute"))
    }
}

#[cfg(test)]
mod tests {
    use super::NumberValue;
    use super::*;

    #[test]
    fn map_keys_are_strings_as_they_are_and_other_key_parts_in_plain_form() {
        // A string key is never escaped: maps written before KeyPart keys read back unchanged.
        let strings = HashMap::from([("a#b%c".to_owned(), 1u8)]);
        let Some(AttributeValue::M(m)) = strings.to_attribute().unwrap() else {
            panic!("not a map")
        };
        assert_eq!(m.keys().collect::<Vec<_>>(), ["a#b%c"]);
        let back: HashMap<String, u8> =
            FromAttribute::from_attribute(&AttributeValue::M(m)).unwrap();
        assert_eq!(back, strings);

        let days = BTreeMap::from([(7u32, "x".to_owned()), (4_000_000_000u32, "y".to_owned())]);
        let Some(attr @ AttributeValue::M(_)) = days.to_attribute().unwrap() else {
            panic!("not a map")
        };
        let AttributeValue::M(m) = &attr else {
            unreachable!()
        };
        assert!(m.contains_key("7"), "{m:?}");
        let back: BTreeMap<u32, String> = FromAttribute::from_attribute(&attr).unwrap();
        assert_eq!(back, days);

        // A name that is no key of the map's type names the entry.
        let bad = AttributeValue::M(HashMap::from([(
            "x".to_owned(),
            AttributeValue::N("1".into()),
        )]));
        let err = <HashMap<u32, u8>>::from_attribute(&bad)
            .unwrap_err()
            .to_string();
        assert!(err.contains("[\"x\"]") && err.contains("map key"), "{err}");
    }

    /// `None` values and empty sets inside a map were dropped without an error, and an
    /// empty map key was written for DynamoDB to refuse.
    #[test]
    fn map_values_are_kept_or_refused_never_dropped() {
        let m = BTreeMap::from([("a".to_owned(), None), ("b".to_owned(), Some(2u32))]);
        let attr = to_value_of(&m);
        let AttributeValue::M(stored) = &attr else {
            panic!("not a map")
        };
        assert_eq!(stored.get("a"), Some(&AttributeValue::Null(true)));
        let back: BTreeMap<String, Option<u32>> = FromAttribute::from_attribute(&attr).unwrap();
        assert_eq!(back, m, "None read back as None, the entry kept");

        let sets = HashMap::from([("tags".to_owned(), BTreeSet::<String>::new())]);
        let err = sets.to_attribute().unwrap_err().to_string();
        assert!(
            err.contains("[\"tags\"]") && err.contains("empty set"),
            "{err}"
        );
        let in_list = vec![HashSet::<u32>::new()];
        assert!(
            in_list.to_attribute().is_err(),
            "an empty set in a list too"
        );

        let empty_key = HashMap::from([(String::new(), 1u8)]);
        let err = empty_key.to_attribute().unwrap_err();
        let text = err.clone().at("Issue", "reaction_counts").to_string();
        assert!(
            text.contains("Issue.reaction_counts") && text.contains("empty"),
            "{text}"
        );
        assert!(matches!(err, Error::Encode { .. }));
    }

    /// A `BTreeMap<u32, _>` holding `7` and `0000000007` (an earlier writer's padded
    /// spelling) read one of them, which one varying with the map's order.
    #[test]
    fn a_map_holding_two_spellings_of_one_key_is_an_error_naming_both() {
        let padded = AttributeValue::M(HashMap::from([(
            "0000000007".to_owned(),
            AttributeValue::N("1".into()),
        )]));
        let back: BTreeMap<u32, u64> = FromAttribute::from_attribute(&padded).unwrap();
        assert_eq!(back, BTreeMap::from([(7, 1)]), "the other spelling is read");
        let both = AttributeValue::M(HashMap::from([
            ("0000000007".to_owned(), AttributeValue::N("1".into())),
            ("7".to_owned(), AttributeValue::N("5".into())),
            ("8".to_owned(), AttributeValue::N("2".into())),
        ]));
        for _ in 0..4 {
            let err = <BTreeMap<u32, u64>>::from_attribute(&both)
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("\"7\"") && err.contains("\"0000000007\""),
                "{err}"
            );
            assert!(<HashMap<u32, u64>>::from_attribute(&both).is_err());
        }
        // Two padded spellings of one key collide too.
        let two_padded = AttributeValue::M(HashMap::from([
            ("0000000007".to_owned(), AttributeValue::N("1".into())),
            ("07".to_owned(), AttributeValue::N("1".into())),
        ]));
        if <BTreeMap<u32, u64>>::decode_both(&two_padded) {
            assert!(<BTreeMap<u32, u64>>::from_attribute(&two_padded).is_err());
        }
    }

    trait DecodeBoth {
        fn decode_both(m: &AttributeValue) -> bool;
    }
    impl DecodeBoth for BTreeMap<u32, u64> {
        /// True when every name of `m` reads as a key (so that the collision is the only fault).
        fn decode_both(m: &AttributeValue) -> bool {
            let AttributeValue::M(m) = m else {
                return false;
            };
            m.keys().all(|k| u32::decode_map_key(k).is_ok())
        }
    }

    fn to_value_of<T: ToAttribute>(v: &T) -> AttributeValue {
        v.to_attribute().unwrap().unwrap()
    }

    #[test]
    fn a_128_bit_integer_is_refused_beyond_38_significant_digits() {
        // u128::MAX has 39 significant digits; 10^38 has one, however long its text.
        assert!(u128::MAX.to_number().is_err());
        assert!(i128::MIN.to_number().is_err());
        assert_eq!(
            10u128.pow(38).to_number().unwrap(),
            10u128.pow(38).to_string()
        );
        let err = u128::MAX.to_number().unwrap_err().to_string();
        assert!(err.contains("39 significant digits"), "{err}");
    }
}
