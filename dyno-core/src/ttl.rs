//! DynamoDB's Time to Live rules, in one place: how the TTL process reads an item's TTL
//! attribute, and when an item has expired. MemoryStore's TTL, the typed reads (which hide
//! expired items DynamoDB has not deleted yet) and dyno-cache's entry lifetimes all ask here.
//!
//! The rules, from DynamoDB's developer guide:
//! - the TTL attribute holds a Number of seconds since the Unix epoch; an item whose attribute
//!   is missing or of another type (a string, say) never expires;
//! - an item has expired when that time is less than the current time;
//! - an item whose time is more than five years in the past is not deleted (a `0` or a negative
//!   number, used as "never" by some applications, keeps the item).
//!
//! A number that is not finite as an `f64` (beyond DynamoDB's range) never expires either.
//!
//! ```
//! use dyno_core::{ttl, AttributeValue, Item};
//!
//! let now = 1_700_000_000.0;
//! let item = |at: &str| Item::from([("ttl".to_owned(), AttributeValue::N(at.to_owned()))]);
//! assert!(ttl::is_expired_at(&item("1699999999"), "ttl", now));
//! assert!(!ttl::is_expired_at(&item("1700000000"), "ttl", now));
//! assert!(!ttl::is_expired_at(&item("0"), "ttl", now), "more than five years ago: kept");
//! ```

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::value::{AttributeValue, Item};

/// How far in the past a TTL may lie and still delete its item: five years (of 365 days).
pub const MAX_AGE: Duration = Duration::from_secs(5 * 365 * 24 * 60 * 60);

/// The time a TTL attribute value names, in epoch seconds, as the TTL process reads it: a Number
/// that is finite as an `f64`; `None` for any other value.
pub fn seconds(value: &AttributeValue) -> Option<f64> {
    match value {
        AttributeValue::N(n) => n.parse::<f64>().ok().filter(|s| s.is_finite()),
        _ => None,
    }
}

/// True when a TTL of `at` epoch seconds has expired at `now` (epoch seconds): `at` is less than
/// `now`, and not more than [`MAX_AGE`] before it.
pub fn expired_at(at: f64, now: f64) -> bool {
    at < now && at >= now - MAX_AGE.as_secs_f64()
}

/// When `item` expires by its TTL attribute `attribute`, in epoch seconds, as read at `now`:
/// `None` when it never will (no attribute, not a number, or more than [`MAX_AGE`] in the past).
pub fn expiry(item: &Item, attribute: &str, now: f64) -> Option<f64> {
    seconds(item.get(attribute)?).filter(|at| *at >= now - MAX_AGE.as_secs_f64())
}

/// True when `item` has expired at `now` (epoch seconds) by its TTL attribute `attribute`.
pub fn is_expired_at(item: &Item, attribute: &str, now: f64) -> bool {
    expiry(item, attribute, now).is_some_and(|at| expired_at(at, now))
}

/// [`is_expired_at`] now, by the system clock.
pub fn is_expired(item: &Item, attribute: &str) -> bool {
    // The clock is read only for an item that carries the attribute.
    item.contains_key(attribute) && is_expired_at(item, attribute, now())
}

/// The system clock in epoch seconds.
pub(crate) fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: f64 = 1_700_000_000.0;

    fn item(ttl: &str) -> Item {
        Item::from([("ttl".to_owned(), AttributeValue::N(ttl.to_owned()))])
    }

    fn expired(ttl: &str) -> bool {
        is_expired_at(&item(ttl), "ttl", NOW)
    }

    #[test]
    fn an_item_expires_once_its_time_is_less_than_now() {
        assert!(expired("1699999999"));
        assert!(!expired("1700000000"));
        assert!(!expired("1800000000"));
        assert!(expired("1699999999.5"));
        assert!(!expired("1700000000.5"));
        assert!(expired("1.6e9"), "exponent form");
        assert!(!expired("1.7e9"));
        assert_eq!(
            expiry(&item("1700000060"), "ttl", NOW),
            Some(1_700_000_060.0)
        );
    }

    /// The old readers differed here: ops' typed reads hid items with `0`, `1` or a negative TTL,
    /// MemoryStore deleted them; DynamoDB keeps them (more than five years in the past).
    #[test]
    fn a_time_more_than_five_years_ago_never_expires() {
        let five_years = MAX_AGE.as_secs_f64();
        assert!(!expired("0"));
        assert!(!expired("1"));
        assert!(!expired("-5"));
        assert!(!expired(&(NOW - five_years - 1.0).to_string()));
        assert!(expired(&(NOW - five_years + 1.0).to_string()));
        assert_eq!(expiry(&item("0"), "ttl", NOW), None);
    }

    /// The old readers differed here: the cache turned `1e300` into a `Duration` and panicked,
    /// ops hid `-1e400` (negative infinity); none of these can expire.
    #[test]
    fn numbers_beyond_f64_and_non_numbers_never_expire() {
        assert!(!expired("1e400"));
        assert!(!expired("-1e400"));
        assert!(!expired("99999999999999999999"));
        assert_eq!(seconds(&AttributeValue::N("NaN".into())), None);
        assert_eq!(seconds(&AttributeValue::N("inf".into())), None);
        assert_eq!(seconds(&AttributeValue::N("soon".into())), None);
        assert_eq!(seconds(&AttributeValue::S("1".into())), None);
        let s = Item::from([("ttl".to_owned(), AttributeValue::S("1".to_owned()))]);
        assert!(!is_expired_at(&s, "ttl", NOW));
        assert!(!is_expired_at(&Item::new(), "ttl", NOW));
    }

    #[test]
    fn the_wall_clock_version_agrees() {
        let recent = (now() - 60.0).floor().to_string();
        assert!(is_expired(&item(&recent), "ttl"));
        assert!(!is_expired(&item("99999999999"), "ttl"));
        assert!(!is_expired(&Item::new(), "ttl"));
    }
}
