//! `ToAttribute`/`FromAttribute` for uuid, time, chrono and rust_decimal, each behind its
//! feature. Timestamps and dates are stored in the fixed-width text forms of their key
//! segments (`crate::key::text`), so an attribute and a key of one value are the same text.
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

#[cfg(feature = "time")]
#[cfg_attr(docsrs, doc(cfg(feature = "time")))]
mod time_impls {
    use time::{Date, OffsetDateTime};

    use super::*;
    use crate::key::text::time_text::{format_date, format_datetime, parse_date, parse_datetime};
    use crate::value::EpochTime;

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
#[cfg(feature = "chrono")]
#[cfg_attr(docsrs, doc(cfg(feature = "chrono")))]
mod chrono_impls {
    use chrono::{DateTime, NaiveDate, Utc};

    use super::*;
    use crate::key::text::chrono_text::{format_date, format_datetime, parse_date, parse_datetime};
    use crate::value::EpochTime;

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
