//! `ToAttribute`/`FromAttribute` for uuid, time, chrono and rust_decimal, each behind its
//! feature, and the fixed-width text forms that keys share.
//!
//! - `uuid::Uuid`: `S`, hyphenated lowercase; any form `Uuid::parse_str` knows decodes.
//! - `ulid::Ulid`: `S`, 26 characters of uppercase Crockford base32; lowercase decodes too.
//! - timestamps (`time::OffsetDateTime`, `chrono::DateTime<Utc>`): `S`, RFC 3339 in UTC with
//!   exactly nine fractional digits (`2024-01-02T03:04:05.000000000Z`), so string order is time
//!   order. Years outside 0000-9999 cannot have that form and are refused. Any RFC 3339 string
//!   (other offsets, fewer digits) decodes. Use [`EpochSeconds`](super::EpochSeconds) for epoch
//!   seconds (`N`), as TTL attributes need.
//! - dates (`time::Date`, `chrono::NaiveDate`): `S`, `YYYY-MM-DD`.
//! - `rust_decimal::Decimal`: `N`, its exact normalized text (`1.50` is stored as `1.5`).

#[cfg(any(
    feature = "uuid",
    feature = "ulid",
    feature = "time",
    feature = "chrono",
    feature = "rust_decimal"
))]
use super::{describe, AttributeValue, FromAttribute, ToAttribute};
#[cfg(any(
    feature = "uuid",
    feature = "ulid",
    feature = "time",
    feature = "chrono",
    feature = "rust_decimal"
))]
use crate::error::{Error, Result};

/// What a timestamp decode error says it expected.
#[cfg(any(feature = "time", feature = "chrono"))]
const EXPECTED_TIMESTAMP: &str = "S in RFC 3339 (UTC)";
/// What a date decode error says it expected.
#[cfg(any(feature = "time", feature = "chrono"))]
const EXPECTED_DATE: &str = "S in YYYY-MM-DD";

/// Appends `n` zero-padded to `width` digits (more digits if `n` needs them; width 1 is the plain
/// decimal). Plain digit pushes: `format!("{n:02}")` costs several times more (formatter, padding,
/// a fresh `String`), and keys and attributes write dates on every encode, and DynamoStore writes
/// an expression placeholder's number for every name and value it sends.
pub(crate) fn push_padded(out: &mut String, n: impl Into<u64>, width: usize) {
    let mut n = n.into();
    let mut buf = [b'0'; 20];
    let mut start = buf.len();
    while n > 0 {
        start -= 1;
        buf[start] = b'0' + (n % 10) as u8;
        n /= 10;
    }
    let start = start.min(buf.len() - width.min(buf.len()));
    out.extend(buf[start..].iter().map(|&b| char::from(b)));
}

/// Appends dyno's fixed-width timestamp form: `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ`. `second` may be
/// 60 (a leap second, which chrono can represent); the string order stays the time order. Nothing
/// is written when the year is out of range.
#[cfg(any(feature = "time", feature = "chrono"))]
#[allow(clippy::too_many_arguments)]
fn fixed_timestamp(
    out: &mut String,
    year: i32,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
    nanos: u32,
    shown: &dyn std::fmt::Display,
) -> std::result::Result<(), String> {
    if !(0..=9999).contains(&year) {
        return Err(format!(
            "timestamp {shown} is outside the years 0000-9999 that the fixed-width RFC 3339 form \
             (2024-01-02T03:04:05.000000000Z) can hold"
        ));
    }
    out.reserve(30);
    push_ymd(out, year, month, day);
    out.push('T');
    push_padded(out, hour, 2);
    out.push(':');
    push_padded(out, minute, 2);
    out.push(':');
    push_padded(out, second, 2);
    out.push('.');
    push_padded(out, nanos, 9);
    out.push('Z');
    Ok(())
}

/// Appends `YYYY-MM-DD` for a year already checked to be in 0000-9999.
#[cfg(any(feature = "time", feature = "chrono"))]
fn push_ymd(out: &mut String, year: i32, month: u32, day: u32) {
    push_padded(out, year.unsigned_abs(), 4);
    out.push('-');
    push_padded(out, month, 2);
    out.push('-');
    push_padded(out, day, 2);
}

/// Appends `YYYY-MM-DD`; nothing is written when the year is out of range.
#[cfg(any(feature = "time", feature = "chrono"))]
fn fixed_date(
    out: &mut String,
    year: i32,
    month: u32,
    day: u32,
    shown: &dyn std::fmt::Display,
) -> std::result::Result<(), String> {
    if !(0..=9999).contains(&year) {
        return Err(format!(
            "date {shown} is outside the years 0000-9999 that YYYY-MM-DD can hold"
        ));
    }
    out.reserve(10);
    push_ymd(out, year, month, day);
    Ok(())
}

/// A fresh string filled by `write` (one allocation of the final size).
#[cfg(any(feature = "time", feature = "chrono"))]
fn written(
    capacity: usize,
    write: impl FnOnce(&mut String) -> std::result::Result<(), String>,
) -> std::result::Result<String, String> {
    let mut out = String::with_capacity(capacity);
    write(&mut out)?;
    Ok(out)
}

/// Parses exactly `YYYY-MM-DD` into its numbers (the calendar check is the caller's).
#[cfg(any(feature = "time", feature = "chrono"))]
fn parse_ymd(s: &str) -> Option<(i32, u32, u32)> {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    if b.len() != 10
        || b[4] != b'-'
        || b[7] != b'-'
        || !digits(0..4)
        || !digits(5..7)
        || !digits(8..10)
    {
        return None;
    }
    Some((
        s[0..4].parse().ok()?,
        s[5..7].parse().ok()?,
        s[8..10].parse().ok()?,
    ))
}

#[cfg(feature = "time")]
#[cfg_attr(docsrs, doc(cfg(feature = "time")))]
mod time_impls {
    use time::format_description::well_known::Rfc3339;
    use time::{Date, Month, OffsetDateTime, UtcOffset};

    use super::*;
    use crate::value::EpochTime;

    /// Appends dyno's fixed-width UTC form of `t`; the message says why it has none.
    pub(crate) fn write_datetime(
        t: &OffsetDateTime,
        out: &mut String,
    ) -> std::result::Result<(), String> {
        let utc = t
            .checked_to_offset(UtcOffset::UTC)
            .ok_or_else(|| format!("timestamp {t} cannot be converted to UTC"))?;
        let (year, month, day) = utc.to_calendar_date();
        let (hour, minute, second, nanos) = utc.to_hms_nano();
        fixed_timestamp(
            out,
            year,
            u32::from(u8::from(month)),
            u32::from(day),
            u32::from(hour),
            u32::from(minute),
            u32::from(second),
            nanos,
            t,
        )
    }

    /// dyno's fixed-width UTC form of `t`; the message says why it has none.
    pub(crate) fn format_datetime(t: &OffsetDateTime) -> std::result::Result<String, String> {
        written(30, |out| write_datetime(t, out))
    }

    /// Any RFC 3339 timestamp, converted to UTC.
    pub(crate) fn parse_datetime(s: &str) -> Option<OffsetDateTime> {
        OffsetDateTime::parse(s, &Rfc3339)
            .ok()?
            .checked_to_offset(UtcOffset::UTC)
    }

    /// Appends `YYYY-MM-DD`; the message says why `d` has none.
    pub(crate) fn write_date(d: &Date, out: &mut String) -> std::result::Result<(), String> {
        let (year, month, day) = d.to_calendar_date();
        fixed_date(out, year, u32::from(u8::from(month)), u32::from(day), d)
    }

    /// `YYYY-MM-DD`; the message says why `d` has none.
    pub(crate) fn format_date(d: &Date) -> std::result::Result<String, String> {
        written(10, |out| write_date(d, out))
    }

    /// Exactly `YYYY-MM-DD`, a real calendar date.
    pub(crate) fn parse_date(s: &str) -> Option<Date> {
        let (y, m, d) = parse_ymd(s)?;
        let month = Month::try_from(u8::try_from(m).ok()?).ok()?;
        Date::from_calendar_date(y, month, u8::try_from(d).ok()?).ok()
    }

    impl ToAttribute for OffsetDateTime {
        const SCALAR: Option<crate::table::ScalarType> = Some(crate::table::ScalarType::S);
        fn to_attribute(&self) -> Result<Option<AttributeValue>> {
            format_datetime(self)
                .map(|s| Some(AttributeValue::S(s)))
                .map_err(Error::encode)
        }
    }

    impl FromAttribute for OffsetDateTime {
        fn from_attribute(value: &AttributeValue) -> Result<Self> {
            match value {
                AttributeValue::S(s) => parse_datetime(s),
                _ => None,
            }
            .ok_or_else(|| Error::decode(EXPECTED_TIMESTAMP, describe(value)))
        }
    }

    impl ToAttribute for Date {
        const SCALAR: Option<crate::table::ScalarType> = Some(crate::table::ScalarType::S);
        fn to_attribute(&self) -> Result<Option<AttributeValue>> {
            format_date(self)
                .map(|s| Some(AttributeValue::S(s)))
                .map_err(Error::encode)
        }
    }

    impl FromAttribute for Date {
        fn from_attribute(value: &AttributeValue) -> Result<Self> {
            match value {
                AttributeValue::S(s) => parse_date(s),
                _ => None,
            }
            .ok_or_else(|| Error::decode(EXPECTED_DATE, describe(value)))
        }
    }

    impl EpochTime for OffsetDateTime {
        fn to_epoch_seconds(&self) -> Result<i64> {
            Ok(self.unix_timestamp())
        }
        fn from_epoch_seconds(seconds: i64) -> Result<Self> {
            OffsetDateTime::from_unix_timestamp(seconds).map_err(|_| {
                Error::decode(
                    "N of epoch seconds within time::OffsetDateTime's range",
                    format!("N {seconds}"),
                )
            })
        }
    }
}

#[cfg(feature = "time")]
pub(crate) use self::time_impls::{
    parse_date as parse_time_date, parse_datetime as parse_time_datetime,
    write_date as write_time_date, write_datetime as write_time_datetime,
};

#[cfg(feature = "chrono")]
#[cfg_attr(docsrs, doc(cfg(feature = "chrono")))]
mod chrono_impls {
    use chrono::{DateTime, Datelike, NaiveDate, Timelike, Utc};

    use super::*;
    use crate::value::EpochTime;

    /// Appends dyno's fixed-width UTC form of `t`; the message says why it has none.
    pub(crate) fn write_datetime(
        t: &DateTime<Utc>,
        out: &mut String,
    ) -> std::result::Result<(), String> {
        // chrono keeps a leap second as nanoseconds past 1e9 in second 59; RFC 3339 writes :60.
        let (second, nanos) = match t.nanosecond() {
            n if n >= 1_000_000_000 => (t.second() + 1, n - 1_000_000_000),
            n => (t.second(), n),
        };
        fixed_timestamp(
            out,
            t.year(),
            t.month(),
            t.day(),
            t.hour(),
            t.minute(),
            second,
            nanos,
            t,
        )
    }

    /// dyno's fixed-width UTC form of `t`; the message says why it has none.
    pub(crate) fn format_datetime(t: &DateTime<Utc>) -> std::result::Result<String, String> {
        written(30, |out| write_datetime(t, out))
    }

    /// Any RFC 3339 timestamp, converted to UTC.
    pub(crate) fn parse_datetime(s: &str) -> Option<DateTime<Utc>> {
        DateTime::parse_from_rfc3339(s)
            .ok()
            .map(|t| t.with_timezone(&Utc))
    }

    /// Appends `YYYY-MM-DD`; the message says why `d` has none.
    pub(crate) fn write_date(d: &NaiveDate, out: &mut String) -> std::result::Result<(), String> {
        fixed_date(out, d.year(), d.month(), d.day(), d)
    }

    /// `YYYY-MM-DD`; the message says why `d` has none.
    pub(crate) fn format_date(d: &NaiveDate) -> std::result::Result<String, String> {
        written(10, |out| write_date(d, out))
    }

    /// Exactly `YYYY-MM-DD`, a real calendar date.
    pub(crate) fn parse_date(s: &str) -> Option<NaiveDate> {
        let (y, m, d) = parse_ymd(s)?;
        NaiveDate::from_ymd_opt(y, m, d)
    }

    impl ToAttribute for DateTime<Utc> {
        const SCALAR: Option<crate::table::ScalarType> = Some(crate::table::ScalarType::S);
        fn to_attribute(&self) -> Result<Option<AttributeValue>> {
            format_datetime(self)
                .map(|s| Some(AttributeValue::S(s)))
                .map_err(Error::encode)
        }
    }

    impl FromAttribute for DateTime<Utc> {
        fn from_attribute(value: &AttributeValue) -> Result<Self> {
            match value {
                AttributeValue::S(s) => parse_datetime(s),
                _ => None,
            }
            .ok_or_else(|| Error::decode(EXPECTED_TIMESTAMP, describe(value)))
        }
    }

    impl ToAttribute for NaiveDate {
        const SCALAR: Option<crate::table::ScalarType> = Some(crate::table::ScalarType::S);
        fn to_attribute(&self) -> Result<Option<AttributeValue>> {
            format_date(self)
                .map(|s| Some(AttributeValue::S(s)))
                .map_err(Error::encode)
        }
    }

    impl FromAttribute for NaiveDate {
        fn from_attribute(value: &AttributeValue) -> Result<Self> {
            match value {
                AttributeValue::S(s) => parse_date(s),
                _ => None,
            }
            .ok_or_else(|| Error::decode(EXPECTED_DATE, describe(value)))
        }
    }

    impl EpochTime for DateTime<Utc> {
        fn to_epoch_seconds(&self) -> Result<i64> {
            Ok(self.timestamp())
        }
        fn from_epoch_seconds(seconds: i64) -> Result<Self> {
            DateTime::from_timestamp(seconds, 0).ok_or_else(|| {
                Error::decode(
                    "N of epoch seconds within chrono::DateTime's range",
                    format!("N {seconds}"),
                )
            })
        }
    }
}

#[cfg(feature = "chrono")]
pub(crate) use self::chrono_impls::{
    parse_date as parse_chrono_date, parse_datetime as parse_chrono_datetime,
    write_date as write_chrono_date, write_datetime as write_chrono_datetime,
};

#[cfg(feature = "ulid")]
#[cfg_attr(docsrs, doc(cfg(feature = "ulid")))]
mod ulid_impls {
    use ulid::Ulid;

    use super::*;

    impl ToAttribute for Ulid {
        fn to_attribute(&self) -> Result<Option<AttributeValue>> {
            Ok(Some(AttributeValue::S(self.to_string())))
        }
    }

    impl FromAttribute for Ulid {
        fn from_attribute(value: &AttributeValue) -> Result<Self> {
            match value {
                AttributeValue::S(s) => Ulid::from_string(s)
                    .map_err(|_| Error::decode("S holding a ULID", describe(value))),
                other => Err(Error::decode("S holding a ULID", describe(other))),
            }
        }
    }
}

#[cfg(feature = "uuid")]
#[cfg_attr(docsrs, doc(cfg(feature = "uuid")))]
mod uuid_impls {
    use uuid::Uuid;

    use super::*;
    use crate::value::SetElement;

    fn parse(value: &AttributeValue, s: &str) -> Result<Uuid> {
        Uuid::parse_str(s).map_err(|_| Error::decode("S holding a UUID", describe(value)))
    }

    impl ToAttribute for Uuid {
        const SCALAR: Option<crate::table::ScalarType> = Some(crate::table::ScalarType::S);
        fn to_attribute(&self) -> Result<Option<AttributeValue>> {
            Ok(Some(AttributeValue::S(self.hyphenated().to_string())))
        }
    }

    impl FromAttribute for Uuid {
        fn from_attribute(value: &AttributeValue) -> Result<Self> {
            match value {
                AttributeValue::S(s) => parse(value, s),
                other => Err(Error::decode("S holding a UUID", describe(other))),
            }
        }
    }

    /// UUIDs in a string set (`SS`).
    impl SetElement for Uuid {
        fn to_set<'a>(items: impl Iterator<Item = &'a Self>) -> Result<AttributeValue> {
            Ok(AttributeValue::Ss(
                items.map(|u| u.hyphenated().to_string()).collect(),
            ))
        }
        fn from_set(value: &AttributeValue) -> Result<Vec<Self>> {
            match value {
                AttributeValue::Ss(v) => v
                    .iter()
                    .map(|s| parse(&AttributeValue::S(s.clone()), s))
                    .collect(),
                other => Err(Error::decode("SS of UUIDs", describe(other))),
            }
        }
    }
}

#[cfg(feature = "rust_decimal")]
#[cfg_attr(docsrs, doc(cfg(feature = "rust_decimal")))]
mod decimal_impls {
    use rust_decimal::Decimal;

    use super::*;
    use crate::value::{NumberValue, SetElement};

    impl NumberValue for Decimal {
        fn to_number(&self) -> Result<String> {
            Ok(self.normalize().to_string())
        }
        fn from_number(text: &str) -> Result<Self> {
            let parsed = if text.contains(['e', 'E']) {
                Decimal::from_scientific(text)
            } else {
                Decimal::from_str_exact(text)
            };
            parsed.map_err(|_| {
                Error::decode(
                    "N fitting rust_decimal::Decimal (96-bit mantissa, at most 28 decimal places)",
                    format!("N {text}"),
                )
            })
        }
    }

    impl ToAttribute for Decimal {
        const SCALAR: Option<crate::table::ScalarType> = Some(crate::table::ScalarType::N);
        fn to_attribute(&self) -> Result<Option<AttributeValue>> {
            Ok(Some(AttributeValue::N(self.to_number()?)))
        }
    }

    impl FromAttribute for Decimal {
        fn from_attribute(value: &AttributeValue) -> Result<Self> {
            match value {
                AttributeValue::N(n) => Decimal::from_number(n),
                other => Err(Error::decode("N (rust_decimal::Decimal)", describe(other))),
            }
        }
    }

    /// Decimals in a number set (`NS`).
    impl SetElement for Decimal {
        fn to_set<'a>(items: impl Iterator<Item = &'a Self>) -> Result<AttributeValue> {
            Ok(AttributeValue::Ns(
                items.map(NumberValue::to_number).collect::<Result<_>>()?,
            ))
        }
        fn from_set(value: &AttributeValue) -> Result<Vec<Self>> {
            match value {
                AttributeValue::Ns(v) => v.iter().map(|n| Decimal::from_number(n)).collect(),
                other => Err(Error::decode("NS (number set)", describe(other))),
            }
        }
    }
}
