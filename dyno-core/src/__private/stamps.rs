//! Created/updated timestamps and TTL fields.
//!
//! Both go through autoref specialization like key parts (see `keys.rs`): the only compile
//! error for an unsupported field type is the one the derive spans on the field.

use crate::error::{Error, Result};
use crate::value::{AttributeValue, EpochTime, FromAttribute, Item};

/// A `#[dyno(created_at)]` / `#[dyno(updated_at)]` field type: something that knows "now".
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a created/updated timestamp",
    label = "no `Timestamp` impl",
    note = "use `time::OffsetDateTime` (feature `time`), `chrono::DateTime<Utc>` (feature `chrono`), `std::time::SystemTime`, `u64`/`i64` epoch seconds, or an `Option` of one"
)]
pub trait Timestamp: Sized {
    /// The current time.
    fn now() -> Self;
    /// True when the value was never set (`None`), so a write fills in "now".
    fn is_unset(&self) -> bool {
        false
    }
}

impl Timestamp for std::time::SystemTime {
    fn now() -> Self {
        std::time::SystemTime::now()
    }
}

fn epoch_now() -> i64 {
    match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_secs()).unwrap_or(i64::MAX),
    }
}

impl Timestamp for u64 {
    fn now() -> Self {
        u64::try_from(epoch_now()).unwrap_or(0)
    }
}

impl Timestamp for i64 {
    fn now() -> Self {
        epoch_now()
    }
}

#[cfg(feature = "time")]
impl Timestamp for time::OffsetDateTime {
    fn now() -> Self {
        time::OffsetDateTime::now_utc()
    }
}

#[cfg(feature = "chrono")]
impl Timestamp for chrono::DateTime<chrono::Utc> {
    fn now() -> Self {
        chrono::Utc::now()
    }
}

impl<T: Timestamp> Timestamp for Option<T> {
    fn now() -> Self {
        Some(T::now())
    }
    fn is_unset(&self) -> bool {
        self.is_none()
    }
}

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
    /// True when `value` is unset (`None`).
    fn is_unset(&self, value: &T) -> bool;
}

impl<T: Timestamp> StampNow<T> for Stamp<T> {
    fn now(&self) -> Option<T> {
        Some(T::now())
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
    /// Always false.
    fn is_unset(&self, _value: &T) -> bool {
        false
    }
}

impl<T> StampNowFallback<T> for &Stamp<T> {}

/// Fails to compile unless `T` is a timestamp.
pub const fn assert_timestamp<T: Timestamp>() {}

/// A `#[dyno(ttl)]` field type: a point in time (or an optional one), stored as epoch seconds.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a TTL field",
    label = "DynamoDB's TTL needs a point in time stored as epoch seconds",
    note = "use `time::OffsetDateTime`, `chrono::DateTime<Utc>`, `SystemTime`, `u64`/`i64` epoch seconds, or an `Option` of one"
)]
pub trait TtlField: Sized {
    /// Epoch seconds, `None` for "never expires".
    fn to_ttl(&self) -> Result<Option<i64>>;
    /// From epoch seconds (`None`: attribute absent).
    fn from_ttl(seconds: Option<i64>) -> Result<Self>;
}

impl<T: EpochTime> TtlField for T {
    fn to_ttl(&self) -> Result<Option<i64>> {
        self.to_epoch_seconds().map(Some)
    }
    fn from_ttl(seconds: Option<i64>) -> Result<Self> {
        match seconds {
            Some(s) => T::from_epoch_seconds(s),
            None => Err(Error::decode("N of epoch seconds", "no attribute")),
        }
    }
}

impl<T: EpochTime> TtlField for Option<T> {
    fn to_ttl(&self) -> Result<Option<i64>> {
        self.as_ref().map(EpochTime::to_epoch_seconds).transpose()
    }
    fn from_ttl(seconds: Option<i64>) -> Result<Self> {
        seconds.map(T::from_epoch_seconds).transpose()
    }
}

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
