//! Created/updated timestamps and TTL fields.
//!
//! Both go through autoref specialization like key parts (see `keys.rs`): the only compile
//! error for an unsupported field type is the one the derive spans on the field.

pub use crate::entity::stamps::{GeneratedId, Timestamp, TtlField};
use crate::error::{Error, Result};
use crate::value::{AttributeValue, FromAttribute, Item};

/// A timestamp field's value, for autoref specialization.
#[derive(Debug)]
pub struct Stamp<T>(std::marker::PhantomData<fn() -> T>);

impl<T> Stamp<T> {
    /// The helper for `T`.
    pub const fn new() -> Self {
        Stamp(std::marker::PhantomData)
    }
}

impl<T> Default for Stamp<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// "Now" for timestamp types.
pub trait StampNow<T> {
    /// The current time as `T`, or `None` when the type has no notion of it.
    fn now(&self) -> Option<T>;
    /// `clock` (the one reading of a write) as `T`.
    fn at(&self, clock: std::time::SystemTime) -> Option<T>;
    /// True when `value` is unset (`None`).
    fn is_unset(&self, value: &T) -> bool;
}

impl<T: Timestamp> StampNow<T> for Stamp<T> {
    fn now(&self) -> Option<T> {
        Some(T::now())
    }
    fn at(&self, clock: std::time::SystemTime) -> Option<T> {
        Some(T::at(clock))
    }
    fn is_unset(&self, value: &T) -> bool {
        value.is_unset()
    }
}

/// Fallback: only reached in code that does not compile anyway.
pub trait StampNowFallback<T> {
    /// Always `None`.
    fn now(&self) -> Option<T> {
        None
    }
    /// Always `None`.
    fn at(&self, _clock: std::time::SystemTime) -> Option<T> {
        None
    }
    /// Always false.
    fn is_unset(&self, _value: &T) -> bool {
        false
    }
}

impl<T> StampNowFallback<T> for &Stamp<T> {}

/// Fails to compile unless `T` is a timestamp.
pub const fn assert_timestamp<T: Timestamp>() {}

/// Fails to compile unless `T` can be a TTL field.
pub const fn assert_ttl<T: TtlField>() {}

/// A TTL field's value, for autoref specialization.
#[derive(Debug)]
pub struct Ttl<T>(std::marker::PhantomData<fn() -> T>);

impl<T> Ttl<T> {
    /// The helper for `T`.
    pub const fn new() -> Self {
        Ttl(std::marker::PhantomData)
    }
}

impl<T> Default for Ttl<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// TTL encoding for [`TtlField`] types.
pub trait TtlCodec<T> {
    /// Writes `value` as epoch seconds into `attribute` (left out when `None`).
    fn put(&self, item: &mut Item, entity: &'static str, attribute: &str, value: &T) -> Result<()>;
    /// Reads the field from the value of `attribute`, already looked up (`None`: absent).
    fn get_in(
        &self,
        value: Option<&AttributeValue>,
        entity: &'static str,
        attribute: &str,
    ) -> Result<T>;
    /// The attribute value for `value` (`None`: no expiry).
    fn value(&self, value: &T) -> Result<Option<AttributeValue>>;
}

impl<T: TtlField> TtlCodec<T> for Ttl<T> {
    fn put(&self, item: &mut Item, entity: &'static str, attribute: &str, value: &T) -> Result<()> {
        if let Some(v) = self.value(value).map_err(|e| e.at(entity, attribute))? {
            item.insert(attribute.to_owned(), v);
        }
        Ok(())
    }
    fn get_in(
        &self,
        value: Option<&AttributeValue>,
        entity: &'static str,
        attribute: &str,
    ) -> Result<T> {
        let seconds = match value {
            None | Some(AttributeValue::Null(true)) => None,
            Some(v) => Some(i64::from_attribute(v).map_err(|e| e.at(entity, attribute))?),
        };
        T::from_ttl(seconds).map_err(|e| e.at(entity, attribute))
    }
    fn value(&self, value: &T) -> Result<Option<AttributeValue>> {
        Ok(value.to_ttl()?.map(|s| AttributeValue::N(s.to_string())))
    }
}

/// Fallback: only reached in code that does not compile anyway.
pub trait TtlCodecFallback<T> {
    /// Always an error.
    fn put(
        &self,
        _item: &mut Item,
        entity: &'static str,
        attribute: &str,
        _value: &T,
    ) -> Result<()> {
        Err(Error::encode("not a TTL type").at(entity, attribute))
    }
    /// Always an error.
    fn get_in(
        &self,
        _value: Option<&AttributeValue>,
        entity: &'static str,
        attribute: &str,
    ) -> Result<T> {
        Err(Error::decode("a TTL type", "another type").at(entity, attribute))
    }
    /// Always an error.
    fn value(&self, _value: &T) -> Result<Option<AttributeValue>> {
        Err(Error::encode("not a TTL type"))
    }
}

impl<T> TtlCodecFallback<T> for &Ttl<T> {}

/// A `#[dyno(generated)]` field's value, for autoref specialization.
#[derive(Debug)]
pub struct Generate<T>(std::marker::PhantomData<fn() -> T>);

impl<T> Generate<T> {
    /// The helper for `T`.
    pub const fn new() -> Self {
        Generate(std::marker::PhantomData)
    }
}

impl<T> Default for Generate<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Deciding a generated id for `Option<T: GeneratedId>` fields.
pub trait GenerateId<T> {
    /// `Some(new id)` when `value` is unset (`None`), else `None` (the value stays).
    fn decide(&self, value: &T) -> Option<T>;
}

impl<T: GeneratedId> GenerateId<Option<T>> for Generate<Option<T>> {
    fn decide(&self, value: &Option<T>) -> Option<Option<T>> {
        value.is_none().then(|| Some(T::generate()))
    }
}

/// Fallback: only reached in code that does not compile anyway.
pub trait GenerateIdFallback<T> {
    /// Always `None`.
    fn decide(&self, _value: &T) -> Option<T> {
        None
    }
}

impl<T> GenerateIdFallback<T> for &Generate<T> {}

/// Fails to compile unless `T` is a generated id type.
pub const fn assert_generated<T: GeneratedId>() {}

/// The id of a `#[dyno(generated)]` key field, which a key needs: an unset one (`None`, before
/// the write that generates it) is an `Error::Key` naming the entity and field.
pub fn generated_key<'a, T>(
    value: &'a Option<T>,
    entity: &'static str,
    field: &str,
) -> Result<&'a T> {
    value.as_ref().ok_or_else(|| {
        Error::key(
            Some(entity),
            format!(
                "field `{field}` is a generated id that is still unset (`None`): the write \
                 generates it (create, put), or give the id"
            ),
        )
    })
}
