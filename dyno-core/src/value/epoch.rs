//! Timestamps stored as whole seconds since the Unix epoch (`N`), the form DynamoDB's TTL
//! attribute requires.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{describe, AttributeValue, FromAttribute, ToAttribute};
use crate::error::{Error, Result};

/// A point in time that can be stored as whole seconds since the Unix epoch.
///
/// DynamoDB's TTL only reads a number of epoch seconds; any other form (a string, milliseconds)
/// is silently ignored by the service and the item never expires. Implemented for `u64` and `i64`
/// (seconds as they are), [`SystemTime`], and behind features for `time::OffsetDateTime` and
/// `chrono::DateTime<Utc>`. Sub-second parts are dropped (rounded towards the past).
pub trait EpochTime: Sized {
    /// Whole seconds since 1970-01-01T00:00:00Z (negative before it).
    fn to_epoch_seconds(&self) -> Result<i64>;
    /// The point in time `seconds` after the epoch.
    fn from_epoch_seconds(seconds: i64) -> Result<Self>;
}

/// Stores `T` as epoch seconds (`N`) instead of its usual form: what a TTL field uses.
///
/// ```
/// use dyno_core::value::{EpochSeconds, ToAttribute, FromAttribute, AttributeValue};
/// let attr = EpochSeconds(1_700_000_000u64).to_attribute().unwrap().unwrap();
/// assert_eq!(attr, AttributeValue::N("1700000000".into()));
/// assert_eq!(EpochSeconds::<u64>::from_attribute(&attr).unwrap().0, 1_700_000_000);
/// ```
///
/// An optional TTL is `Option<EpochSeconds<T>>`: `None` leaves the attribute out, so the item
/// never expires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct EpochSeconds<T>(pub T);

/// Epoch seconds of `value`, for the TTL attribute and TTL filtering.
pub fn to_epoch_seconds<T: EpochTime>(value: &T) -> Result<i64> {
    value.to_epoch_seconds()
}

/// The value `seconds` after the epoch.
pub fn from_epoch_seconds<T: EpochTime>(seconds: i64) -> Result<T> {
    T::from_epoch_seconds(seconds)
}

impl<T: EpochTime> ToAttribute for EpochSeconds<T> {
    fn to_attribute(&self) -> Result<Option<AttributeValue>> {
        Ok(Some(AttributeValue::N(
            self.0.to_epoch_seconds()?.to_string(),
        )))
    }
}

impl<T: EpochTime> FromAttribute for EpochSeconds<T> {
    fn from_attribute(value: &AttributeValue) -> Result<Self> {
        const EXPECTED: &str = "N of whole epoch seconds";
        match value {
            AttributeValue::N(n) => {
                let seconds: i64 = n
                    .parse()
                    .map_err(|_| Error::decode(EXPECTED, describe(value)))?;
                T::from_epoch_seconds(seconds).map(EpochSeconds)
            }
            other => Err(Error::decode(EXPECTED, describe(other))),
        }
    }
}

impl EpochTime for i64 {
    fn to_epoch_seconds(&self) -> Result<i64> {
        Ok(*self)
    }
    fn from_epoch_seconds(seconds: i64) -> Result<Self> {
        Ok(seconds)
    }
}

impl EpochTime for u64 {
    fn to_epoch_seconds(&self) -> Result<i64> {
        i64::try_from(*self).map_err(|_| {
            Error::encode(format!(
                "epoch seconds {self} do not fit a DynamoDB TTL (i64)"
            ))
        })
    }
    fn from_epoch_seconds(seconds: i64) -> Result<Self> {
        u64::try_from(seconds).map_err(|_| {
            Error::decode(
                "N of epoch seconds at or after 1970 (u64)",
                format!("N {seconds}"),
            )
        })
    }
}

impl EpochTime for SystemTime {
    fn to_epoch_seconds(&self) -> Result<i64> {
        let out_of_range =
            || Error::encode(format!("{self:?} is out of the range of epoch seconds"));
        match self.duration_since(UNIX_EPOCH) {
            Ok(d) => i64::try_from(d.as_secs()).map_err(|_| out_of_range()),
            Err(e) => {
                // Before the epoch: round towards the past, like the other impls.
                let d = e.duration();
                let whole = i64::try_from(d.as_secs()).map_err(|_| out_of_range())?;
                Ok(-whole - i64::from(d.subsec_nanos() > 0))
            }
        }
    }
    fn from_epoch_seconds(seconds: i64) -> Result<Self> {
        let d = Duration::from_secs(seconds.unsigned_abs());
        let t = if seconds >= 0 {
            UNIX_EPOCH.checked_add(d)
        } else {
            UNIX_EPOCH.checked_sub(d)
        };
        t.ok_or_else(|| {
            Error::decode(
                "N of epoch seconds within SystemTime's range",
                format!("N {seconds}"),
            )
        })
    }
}
