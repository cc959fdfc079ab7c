//! The field types of `#[dyno(created_at)]`, `#[dyno(updated_at)]` ([`Timestamp`]: a type that
//! knows "now"), `#[dyno(generated)]` ([`GeneratedId`]: a time-ordered id a write creates) and
//! `#[dyno(ttl)]` ([`TtlField`]: a point in time stored as epoch seconds).
//! Implement them for your own time types; the derive decides a stamp once per write and uses it
//! for the attribute and every key made from it.

use crate::error::{Error, Result};
use crate::value::EpochTime;

/// A `#[dyno(created_at)]` / `#[dyno(updated_at)]` field type: something that knows "now".
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a created/updated timestamp",
    label = "no `Timestamp` impl",
    note = "use `time::OffsetDateTime` (feature `time`), `chrono::DateTime<Utc>` (feature `chrono`), `std::time::SystemTime`, `u64`/`i64` epoch seconds, or an `Option` of one"
)]
pub trait Timestamp: Sized {
    /// The current time.
    fn now() -> Self;
    /// `time` as this type. A write reads the clock once and stamps every field from that one
    /// reading, so a new item's `created_at` equals its `updated_at` (when both have the same
    /// type or precision). The default ignores `time` and calls [`Timestamp::now`]: implement
    /// it for your own types so that they agree too.
    fn at(time: std::time::SystemTime) -> Self {
        let _ = time;
        Self::now()
    }
    /// True when the value was never set (`None`), so a write fills in "now".
    fn is_unset(&self) -> bool {
        false
    }
}

impl Timestamp for std::time::SystemTime {
    fn now() -> Self {
        std::time::SystemTime::now()
    }
    fn at(time: std::time::SystemTime) -> Self {
        time
    }
}

fn epoch_now() -> i64 {
    epoch_at(std::time::SystemTime::now())
}

fn epoch_at(time: std::time::SystemTime) -> i64 {
    match time.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_secs()).unwrap_or(i64::MAX),
    }
}

impl Timestamp for u64 {
    fn now() -> Self {
        u64::try_from(epoch_now()).unwrap_or(0)
    }
    fn at(time: std::time::SystemTime) -> Self {
        u64::try_from(epoch_at(time)).unwrap_or(0)
    }
}

impl Timestamp for i64 {
    fn now() -> Self {
        epoch_now()
    }
    fn at(time: std::time::SystemTime) -> Self {
        epoch_at(time)
    }
}

#[cfg(feature = "time")]
impl Timestamp for time::OffsetDateTime {
    fn now() -> Self {
        time::OffsetDateTime::now_utc()
    }
    fn at(time: std::time::SystemTime) -> Self {
        time::OffsetDateTime::from(time)
    }
}

#[cfg(feature = "chrono")]
impl Timestamp for chrono::DateTime<chrono::Utc> {
    fn now() -> Self {
        chrono::Utc::now()
    }
    fn at(time: std::time::SystemTime) -> Self {
        chrono::DateTime::<chrono::Utc>::from(time)
    }
}

impl<T: Timestamp> Timestamp for Option<T> {
    fn now() -> Self {
        Some(T::now())
    }
    fn at(time: std::time::SystemTime) -> Self {
        Some(T::at(time))
    }
    fn is_unset(&self) -> bool {
        self.is_none()
    }
}

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

/// The id type of a `#[dyno(generated)]` field, declared `Option<T>`: a write of a value whose
/// field is `None` (unset) generates a new id, once per write, and uses it for the attribute and
/// every key made from the field, as for timestamps. Ids are time-ordered, so a sort key made
/// of one lists items in creation order.
///
/// Implemented for `ulid::Ulid` (feature `ulid`; monotonic within a process) and `uuid::Uuid`
/// (feature `uuid`; version 7).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a generated id",
    label = "no `GeneratedId` impl",
    note = "declare the field `Option<Ulid>` (feature `ulid`) or `Option<Uuid>` (feature `uuid`, UUID v7)"
)]
pub trait GeneratedId: Sized {
    /// A new id, later in order than the ones this process generated before.
    fn generate() -> Self;
}

#[cfg(feature = "ulid")]
#[cfg_attr(docsrs, doc(cfg(feature = "ulid")))]
impl GeneratedId for ulid::Ulid {
    fn generate() -> Self {
        static GENERATOR: std::sync::Mutex<ulid::Generator> =
            std::sync::Mutex::new(ulid::Generator::new());
        let mut generator = GENERATOR.lock().unwrap_or_else(|e| e.into_inner());
        // The random part overflows only after 2^80 ids in one millisecond.
        generator
            .generate()
            .unwrap_or_else(|_| ulid::Ulid::generate())
    }
}

#[cfg(feature = "uuid")]
#[cfg_attr(docsrs, doc(cfg(feature = "uuid")))]
impl GeneratedId for uuid::Uuid {
    fn generate() -> Self {
        uuid::Uuid::now_v7()
    }
}
