//! `KeyPart` for uuid, time, chrono and rust_decimal, each behind its feature.
//!
//! Every encoding here is fixed-form and order-preserving, and decoding is strict: a segment
//! parses only if encoding the parsed value gives back the same segment. A lenient parse (an
//! uppercase UUID, a timestamp with an offset) would hand the caller a value whose key is a
//! *different* item, and a later write through that value would miss the original.
//!
//! - `uuid::Uuid`: hyphenated lowercase, 36 characters.
//! - timestamps (`time::OffsetDateTime`, `chrono::DateTime<Utc>`): RFC 3339 in UTC with nine
//!   fractional digits, `2024-01-02T03:04:05.000000000Z`; years 0000-9999.
//! - dates (`time::Date`, `chrono::NaiveDate`): `YYYY-MM-DD`; years 0000-9999.
//! - `rust_decimal::Decimal`: an order-preserving form, described below.
//!
//! # Decimal keys
//!
//! A decimal's plain text does not sort numerically (`"10" < "9"`, `"-1" < "-2"`), so a decimal
//! key segment is written as a sign letter, a two-digit exponent and the significant digits:
//!
//! | value       | form                                   | example (`19.95`, `-19.95`) |
//! |-------------|----------------------------------------|-----------------------------|
//! | negative    | `N`, `49 - e`, digits as `9 - d`, `~`  | `N478004~`                  |
//! | zero        | `O`                                    | `O`                         |
//! | positive    | `P`, `e + 50`, digits                  | `P521995`                   |
//!
//! where the value is `0.d1d2...dk × 10^e` with `d1 != 0` and no trailing zero (so `1.50` and
//! `1.5` are one key). Exponents of `Decimal` lie in -27..=29, so two digits suffice. Complementing
//! the digits of negatives and ending them with `~` (above every digit) reverses their order.
//! Plain decimal text written by other clients (`PRICE#19.95`) also parses.

#[cfg(any(
    feature = "uuid",
    feature = "ulid",
    feature = "time",
    feature = "chrono",
    feature = "rust_decimal"
))]
use super::KeyPart;
#[cfg(any(
    feature = "uuid",
    feature = "ulid",
    feature = "time",
    feature = "chrono",
    feature = "rust_decimal"
))]
use crate::error::{Error, Result};

/// Decodes `segment` with `parse`, then insists that encoding the value gives `segment` back.
#[cfg(any(
    feature = "uuid",
    feature = "ulid",
    feature = "time",
    feature = "chrono"
))]
fn strict<T: KeyPart>(
    segment: &str,
    parse: impl FnOnce(&str) -> Option<T>,
    expected: &str,
) -> Result<T> {
    let fail = || {
        Error::key(
            None,
            format!("expected {expected} key segment, found {segment:?}"),
        )
    };
    let value = parse(segment).ok_or_else(fail)?;
    let mut again = String::with_capacity(segment.len());
    value.encode_key(&mut again).map_err(|_| fail())?;
    if again == segment {
        Ok(value)
    } else {
        Err(fail())
    }
}

#[cfg(any(feature = "time", feature = "chrono"))]
const EXPECTED_TIMESTAMP: &str =
    "a fixed-width UTC timestamp (like 2024-01-02T03:04:05.000000000Z)";
#[cfg(any(feature = "time", feature = "chrono"))]
const EXPECTED_DATE: &str = "a YYYY-MM-DD date";

/// Hyphenated lowercase (36 characters); only that form decodes.
#[cfg(feature = "uuid")]
#[cfg_attr(docsrs, doc(cfg(feature = "uuid")))]
impl KeyPart for uuid::Uuid {
    fn encode_key(&self, out: &mut String) -> Result<()> {
        out.push_str(
            self.hyphenated()
                .encode_lower(&mut uuid::Uuid::encode_buffer()),
        );
        Ok(())
    }
    fn decode_key(segment: &str) -> Result<Self> {
        strict(
            segment,
            |s| uuid::Uuid::try_parse(s).ok(),
            "a lowercase hyphenated UUID",
        )
    }
}

/// 26 characters of uppercase Crockford base32: fixed width, so string order is time order;
/// only that form decodes.
#[cfg(feature = "ulid")]
#[cfg_attr(docsrs, doc(cfg(feature = "ulid")))]
impl KeyPart for ulid::Ulid {
    fn encode_key(&self, out: &mut String) -> Result<()> {
        out.push_str(self.array_to_str(&mut [0; ulid::ULID_LEN]));
        Ok(())
    }
    fn decode_key(segment: &str) -> Result<Self> {
        strict(
            segment,
            |s| ulid::Ulid::from_string(s).ok(),
            "a 26-character uppercase ULID",
        )
    }
}

#[cfg(feature = "time")]
#[cfg_attr(docsrs, doc(cfg(feature = "time")))]
mod time_impls {
    use time::{Date, OffsetDateTime};

    use super::*;
    use crate::key::text::time_text::{
        parse_date as parse_time_date, parse_datetime as parse_time_datetime,
        write_date as write_time_date, write_datetime as write_time_datetime,
    };

    /// `2024-01-02T03:04:05.000000000Z`: UTC, nine fractional digits, years 0000-9999.
    impl KeyPart for OffsetDateTime {
        fn encode_key(&self, out: &mut String) -> Result<()> {
            write_time_datetime(self, out).map_err(|m| Error::key(None, m))
        }
        fn decode_key(segment: &str) -> Result<Self> {
            strict(segment, parse_time_datetime, EXPECTED_TIMESTAMP)
        }
    }

    /// `YYYY-MM-DD`, years 0000-9999.
    impl KeyPart for Date {
        fn encode_key(&self, out: &mut String) -> Result<()> {
            write_time_date(self, out).map_err(|m| Error::key(None, m))
        }
        fn decode_key(segment: &str) -> Result<Self> {
            strict(segment, parse_time_date, EXPECTED_DATE)
        }
    }
}

#[cfg(feature = "chrono")]
#[cfg_attr(docsrs, doc(cfg(feature = "chrono")))]
mod chrono_impls {
    use chrono::{DateTime, NaiveDate, Utc};

    use super::*;
    use crate::key::text::chrono_text::{
        parse_date as parse_chrono_date, parse_datetime as parse_chrono_datetime,
        write_date as write_chrono_date, write_datetime as write_chrono_datetime,
    };

    /// `2024-01-02T03:04:05.000000000Z`: UTC, nine fractional digits, years 0000-9999; a leap
    /// second is second 60.
    impl KeyPart for DateTime<Utc> {
        fn encode_key(&self, out: &mut String) -> Result<()> {
            write_chrono_datetime(self, out).map_err(|m| Error::key(None, m))
        }
        fn decode_key(segment: &str) -> Result<Self> {
            strict(segment, parse_chrono_datetime, EXPECTED_TIMESTAMP)
        }
    }

    /// `YYYY-MM-DD`, years 0000-9999.
    impl KeyPart for NaiveDate {
        fn encode_key(&self, out: &mut String) -> Result<()> {
            write_chrono_date(self, out).map_err(|m| Error::key(None, m))
        }
        fn decode_key(segment: &str) -> Result<Self> {
            strict(segment, parse_chrono_date, EXPECTED_DATE)
        }
    }
}

#[cfg(feature = "rust_decimal")]
#[cfg_attr(docsrs, doc(cfg(feature = "rust_decimal")))]
mod decimal_impls {
    use std::fmt::Write;

    use rust_decimal::Decimal;

    use super::*;

    /// Added to the exponent so that it is two digits (exponents lie in -27..=29).
    const EXP_OFFSET: i32 = 50;
    /// Ends the complemented digits of a negative; above every digit.
    const NEGATIVE_END: char = '~';

    fn fail(segment: &str) -> Error {
        Error::key(
            None,
            format!(
                "expected a decimal key segment (like P521995 for 19.95, or plain decimal text), \
                 found {segment:?}"
            ),
        )
    }

    /// Order-preserving: a sign letter (`N` < `O` < `P`), a two-digit exponent and the
    /// significant digits, complemented and ended by `~` for negatives (`19.95` is `P521995`,
    /// `-19.95` is `N478004~`, zero is `O`). Equal values (`1.5`, `1.50`) have one key; plain
    /// decimal text written by other clients also parses.
    impl KeyPart for Decimal {
        fn encode_key(&self, out: &mut String) -> Result<()> {
            let d = self.normalize();
            if d.is_zero() {
                out.push('O');
                return Ok(());
            }
            let all = d.mantissa().unsigned_abs().to_string();
            // value = 0.<digits> × 10^exp; a mantissa has at most 29 digits, the scale at most 28.
            let exp = all.len() as i32 - d.scale() as i32;
            let digits = all.trim_end_matches('0');
            if d.is_sign_positive() {
                let _ = write!(out, "P{:02}{digits}", exp + EXP_OFFSET);
            } else {
                let _ = write!(out, "N{:02}", EXP_OFFSET - 1 - exp);
                out.extend(digits.bytes().map(|b| char::from(b'9' - b + b'0')));
                out.push(NEGATIVE_END);
            }
            Ok(())
        }

        /// Plain decimal text of the normalized value (`19.95`, `-3`, `0`): one spelling per
        /// value, as `1.50` and `1.5` are one key.
        fn encode_plain(&self, out: &mut String) -> Result<()> {
            let _ = write!(out, "{}", self.normalize());
            Ok(())
        }

        fn encode_plain_prefix(&self, out: &mut String) -> Result<()> {
            self.encode_plain(out)
        }

        fn decode_key(segment: &str) -> Result<Self> {
            let negative = match segment.as_bytes().first() {
                Some(b'O') if segment.len() == 1 => return Ok(Decimal::ZERO),
                Some(b'P') => false,
                Some(b'N') => true,
                // Plain decimal text, as other clients write it.
                Some(_)
                    if segment
                        .bytes()
                        .all(|b| b.is_ascii_digit() || b == b'.' || b == b'-') =>
                {
                    return Decimal::from_str_exact(segment).map_err(|_| fail(segment));
                }
                _ => return Err(fail(segment)),
            };
            let body = if negative {
                segment[1..]
                    .strip_suffix(NEGATIVE_END)
                    .ok_or_else(|| fail(segment))?
            } else {
                &segment[1..]
            };
            if body.len() < 3 || !body.bytes().all(|b| b.is_ascii_digit()) {
                return Err(fail(segment));
            }
            let stored: i32 = body[..2].parse().map_err(|_| fail(segment))?;
            let exp = if negative {
                EXP_OFFSET - 1 - stored
            } else {
                stored - EXP_OFFSET
            };
            let digits: String = if negative {
                body[2..]
                    .bytes()
                    .map(|b| char::from(b'9' - b + b'0'))
                    .collect()
            } else {
                body[2..].to_owned()
            };
            if digits.len() > 29 {
                return Err(fail(segment));
            }
            let mut mantissa: i128 = digits.parse().map_err(|_| fail(segment))?;
            let mut scale = digits.len() as i32 - exp;
            while scale < 0 {
                mantissa = mantissa.checked_mul(10).ok_or_else(|| fail(segment))?;
                scale += 1;
            }
            if negative {
                mantissa = -mantissa;
            }
            let value = u32::try_from(scale)
                .ok()
                .and_then(|s| Decimal::try_from_i128_with_scale(mantissa, s).ok())
                .ok_or_else(|| fail(segment))?;
            // Leading or trailing zero digits, or an exponent out of range, would give a second
            // spelling of one value: only the canonical one parses.
            let mut again = String::with_capacity(segment.len());
            value.encode_key(&mut again)?;
            if again == segment {
                Ok(value)
            } else {
                Err(fail(segment))
            }
        }
    }
}
