//! The codec: Rust values to and from DynamoDB's [`AttributeValue`], field by field.
//!
//! Items are the SDK's own `HashMap<String, AttributeValue>`; there is no second value type.
//! `Option<T>` maps to an absent attribute, never to `NULL`.
//!
//! | Rust                                   | attribute                                      |
//! |----------------------------------------|------------------------------------------------|
//! | `String`, `&str`                       | `S`                                            |
//! | `bool`                                 | `BOOL`                                         |
//! | integers, `f32`, `f64`                 | `N` (NaN, infinities, out-of-range refused)    |
//! | [`Bytes`], `Blob`                      | `B` (a plain `Vec<u8>` is a list of numbers)   |
//! | `Vec<T>`                               | `L` (`None` elements as `NULL`)                |
//! | `HashSet`/`BTreeSet` of strings, numbers, [`Bytes`] | `SS`/`NS`/`BS`, empty = absent (inside a list or map: an encode error) |
//! | `HashMap`/`BTreeMap<K, T>`, `K`: [`KeyPart`](crate::KeyPart) | `M` (a `String` key as it is, others in their plain key form; `None` values as `NULL`; an empty key is an encode error) |
//! | `#[derive(Document)]` structs          | `M`, one entry per field                       |
//! | `Option<T>`                            | absent when `None`                             |
//! | [`Serde<T>`]                           | through serde_dynamo (`#[dyno(serde)]`)        |
//! | [`EpochSeconds<T>`]                    | `N` of epoch seconds (TTL attributes)          |
//! | `uuid::Uuid` (feature `uuid`)          | `S`, hyphenated lowercase                      |
//! | `time::OffsetDateTime`, `chrono::DateTime<Utc>` | `S`, `2024-01-02T03:04:05.000000000Z` |
//! | `time::Date`, `chrono::NaiveDate`      | `S`, `YYYY-MM-DD`                              |
//! | `rust_decimal::Decimal`                | `N`, exact and normalized                      |

mod epoch;
mod impls;
pub(crate) mod number;
mod size;
pub(crate) mod third_party;

#[doc(hidden)]
pub use crate::item::{describe, type_name};
pub use crate::item::{AttributeValue, Item, SharedItem};

pub use self::epoch::{from_epoch_seconds, to_epoch_seconds, EpochSeconds, EpochTime};
pub use self::impls::{
    document_map, get_member, put_member, BuildHasherBound, Bytes, NumberValue, Serde, SetElement,
};
pub use self::number::{Decimal, Number, NumberError};
pub use self::size::{attribute_size, item_size, MAX_ITEM_SIZE};
pub(crate) use self::size::{check_item_size, check_nesting};
use crate::error::{Error, Result};

/// Converts a Rust value into one attribute value.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be stored as a DynamoDB attribute",
    label = "no `ToAttribute` impl",
    note = "implement `ToAttribute`/`FromAttribute`, or mark the field `#[dyno(serde)]` to store it through serde_dynamo"
)]
pub trait ToAttribute {
    /// The scalar type (`S`, `N` or `B`) every value of this type is stored as, when there is
    /// one: what lets a field be an attribute of a multi-attribute index key, whose declared
    /// type the derive checks at compile time. `None` (the default) for other types.
    const SCALAR: Option<ScalarType> = None;

    /// The attribute for this value; `None` leaves the attribute out of the item.
    fn to_attribute(&self) -> Result<Option<AttributeValue>>;

    /// This value as an element of a list or a map, where nothing can be left out without
    /// changing what is stored (a map would lose its entry, a list shift its elements): `None`
    /// is `NULL` (read back as `None`), and a value with no attribute form that `NULL` would not
    /// give back (an empty set) is an [`Error::Encode`]. The default: the attribute, or `NULL`.
    fn to_element(&self) -> Result<AttributeValue> {
        Ok(self.to_attribute()?.unwrap_or(AttributeValue::Null(true)))
    }
}

/// Converts one attribute value back into a Rust value.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be read from a DynamoDB attribute",
    label = "no `FromAttribute` impl",
    note = "implement `ToAttribute`/`FromAttribute`, or mark the field `#[dyno(serde)]` to store it through serde_dynamo"
)]
pub trait FromAttribute: Sized {
    /// Decodes a present attribute. Errors leave the location empty; callers add it with
    /// [`Error::at`].
    fn from_attribute(value: &AttributeValue) -> Result<Self>;

    /// The value for an absent attribute: an error unless the type has a natural "absent"
    /// (`Option`).
    fn from_missing() -> Result<Self> {
        Err(Error::decode(std::any::type_name::<Self>(), "no attribute"))
    }
}

/// Encodes `value` as an attribute that must be present (key attributes, conditions).
pub fn to_value<T: ToAttribute + ?Sized>(value: &T) -> Result<AttributeValue> {
    value
        .to_attribute()?
        .ok_or_else(|| Error::encode("value has no attribute form (None)"))
}

/// Decodes attribute `name` of `item` into `T`, with the entity and attribute named on error.
#[doc(hidden)]
pub fn get_attr<T: FromAttribute>(item: &Item, entity: &'static str, name: &str) -> Result<T> {
    match item.get(name) {
        Some(v) => T::from_attribute(v),
        None => T::from_missing(),
    }
    .map_err(|e| e.at(entity, name))
}

/// Encodes `value` into attribute `name` of `item` (leaving it out when it has no attribute form).
#[doc(hidden)]
pub fn put_attr<T: ToAttribute + ?Sized>(
    item: &mut Item,
    entity: &'static str,
    name: &str,
    value: &T,
) -> Result<()> {
    if let Some(v) = value.to_attribute().map_err(|e| e.at(entity, name))? {
        item.insert(name.to_owned(), v);
    }
    Ok(())
}

/// The scalar types a key attribute can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScalarType {
    /// String.
    S,
    /// Number.
    N,
    /// Binary.
    B,
}

impl ScalarType {
    /// The name DynamoDB uses.
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::S => "S",
            ScalarType::N => "N",
            ScalarType::B => "B",
        }
    }

    /// True when `value` has this type.
    pub fn matches(self, value: &AttributeValue) -> bool {
        matches!(
            (self, value),
            (ScalarType::S, AttributeValue::S(_))
                | (ScalarType::N, AttributeValue::N(_))
                | (ScalarType::B, AttributeValue::B(_))
        )
    }
}
