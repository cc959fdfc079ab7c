//! The fixed-width text forms that keys and attributes share: zero-padded numbers, and (behind
//! their features) timestamps as `2024-01-02T03:04:05.000000000Z` in UTC and dates as
//! `YYYY-MM-DD`, so that string order is time order. A key segment and a stored attribute of
//! the same value are the same text; the key layer owns them, the codec borrows them.

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
pub(crate) mod time_text {
    use time::format_description::well_known::Rfc3339;
    use time::{Date, Month, OffsetDateTime, UtcOffset};

    use super::*;

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
}

#[cfg(feature = "chrono")]
pub(crate) mod chrono_text {
    use chrono::{DateTime, Datelike, NaiveDate, Timelike, Utc};

    use super::*;

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
}
