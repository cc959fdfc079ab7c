//! Properties of key segments and templates (DESIGN.md, `key`): exact round trips, a
//! prefix-preserving escape, no collisions between distinct field tuples, string order equal to
//! value order, exact `begins_with`, conventional keys of other clients, no case folding.

use std::fmt::Debug;

use dyno_core::key::{encode_part, escape_into, KeyPart, Segment, Template, DELIMITER};
use proptest::prelude::*;

fn escape(s: &str) -> String {
    let mut out = String::new();
    escape_into(s, &mut out);
    out
}

fn prefix(s: &str) -> String {
    let mut out = String::new();
    s.to_owned().encode_prefix(&mut out).unwrap();
    out
}

/// Encodes, checks the segment is delimiter-free, decodes, and checks the value came back.
fn round_trip<T: KeyPart + PartialEq + Debug>(value: &T) -> Result<String, TestCaseError> {
    let seg = encode_part(value).map_err(|e| TestCaseError::fail(format!("{value:?}: {e}")))?;
    prop_assert!(!seg.contains(DELIMITER), "{value:?} encoded as {seg:?}");
    prop_assert!(!seg.is_empty());
    let back = T::decode_key(&seg).map_err(|e| TestCaseError::fail(format!("{seg:?}: {e}")))?;
    prop_assert_eq!(&back, value, "segment {:?}", seg);
    Ok(seg)
}

/// String order of the encodings equals the order of the values.
fn same_order<T: KeyPart + Ord + Debug>(a: &T, b: &T) -> Result<(), TestCaseError> {
    let (ea, eb) = (encode_part(a).unwrap(), encode_part(b).unwrap());
    prop_assert_eq!(
        ea.cmp(&eb),
        a.cmp(b),
        "{:?} -> {:?}, {:?} -> {:?}",
        a,
        ea,
        b,
        eb
    );
    Ok(())
}

/// Strings drawn mostly from the characters that matter to the escape, so that collisions and
/// shared prefixes are likely; sometimes any unicode at all.
fn tricky_string() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[#%235aA]{0,8}",
        1 => any::<String>(),
        1 => "\\PC{0,12}",
    ]
}

fn nonempty_string() -> impl Strategy<Value = String> {
    tricky_string().prop_filter("key values are non-empty", |s| !s.is_empty())
}

const USER_ORDER: Template = Template::new(&[
    Segment::Literal("USER#"),
    Segment::Field("a"),
    Segment::Literal("#ORDER#"),
    Segment::Field("b"),
]);

/// `USER#{a}#ORDER#{b}` for any two key parts.
fn user_order_key<A: KeyPart, B: KeyPart>(a: &A, b: &B) -> String {
    USER_ORDER
        .encode(|field, out| match field {
            "a" => a.encode_key(out),
            _ => b.encode_key(out),
        })
        .unwrap()
}

/// Splits a `USER#{a}#ORDER#{b}` key and decodes both fields.
fn parse_user_order<A: KeyPart, B: KeyPart>(key: &str) -> Option<(A, B)> {
    let parts = USER_ORDER.split(key)?;
    Some((A::decode_key(parts[0]).ok()?, B::decode_key(parts[1]).ok()?))
}

macro_rules! integer_props {
    ($($name:ident: $t:ty),*) => {$(
        mod $name {
            use super::*;
            proptest! {
                #[test]
                fn round_trips_and_orders(a in any::<$t>(), b in any::<$t>()) {
                    let ea = round_trip(&a)?;
                    round_trip(&b)?;
                    same_order(&a, &b)?;
                    // Fixed width: every value of the type has one length.
                    prop_assert_eq!(ea.len(), encode_part(&<$t>::MAX).unwrap().len());
                    prop_assert!(ea.bytes().all(|c| c.is_ascii_digit()));
                }

                #[test]
                fn conventional_decimal_text_parses(a in any::<$t>()) {
                    // Other clients write plain decimals (`ORDER#456`).
                    prop_assert_eq!(<$t>::decode_key(&a.to_string()).unwrap(), a);
                }
            }

            #[test]
            fn extremes_round_trip_in_order() {
                let mut values = vec![<$t>::MIN, <$t>::MIN + 1, 0 as $t, 1 as $t, <$t>::MAX - 1, <$t>::MAX];
                values.sort_unstable();
                values.dedup();
                for v in &values {
                    round_trip(v).unwrap();
                }
                for w in values.windows(2) {
                    assert!(encode_part(&w[0]).unwrap() < encode_part(&w[1]).unwrap(), "{w:?}");
                }
            }
        }
    )*};
}

integer_props!(
    int_u8: u8, int_u16: u16, int_u32: u32, int_u64: u64, int_u128: u128, int_usize: usize,
    int_i8: i8, int_i16: i16, int_i32: i32, int_i64: i64, int_i128: i128, int_isize: isize
);

proptest! {
    #[test]
    fn strings_round_trip_and_never_contain_the_delimiter(s in nonempty_string()) {
        let seg = round_trip(&s)?;
        // Only '#' and '%' change; everything else, case included, is kept as it is.
        prop_assert_eq!(seg.replace("%23", "#").replace("%25", "%"), s.clone());
    }

    #[test]
    fn escape_preserves_concatenation(a in tricky_string(), b in tricky_string()) {
        prop_assert_eq!(escape(&format!("{a}{b}")), format!("{}{}", escape(&a), escape(&b)));
    }

    #[test]
    fn begins_with_on_escaped_values_is_exact(
        p in tricky_string(),
        rest in tricky_string(),
        other in tricky_string(),
        use_prefix in any::<bool>(),
    ) {
        // Half the values really extend the prefix, the others are arbitrary.
        let v = if use_prefix { format!("{p}{rest}") } else { other };
        prop_assert_eq!(
            escape(&v).starts_with(&prefix(&p)),
            v.starts_with(&p),
            "value {:?} ({:?}), prefix {:?} ({:?})", v, escape(&v), p, prefix(&p)
        );
        // The same inside a key: `begins_with(PK, "USER#" + prefix)`.
        if !v.is_empty() {
            let key = user_order_key(&v, &1u64);
            let head = format!("USER#{}", prefix(&p));
            prop_assert_eq!(key.starts_with(&head), v.starts_with(&p));
        }
    }

    #[test]
    fn distinct_string_pairs_never_share_a_key(
        a1 in nonempty_string(), b1 in nonempty_string(),
        a2 in nonempty_string(), b2 in nonempty_string(),
    ) {
        let k1 = user_order_key(&a1, &b1);
        let k2 = user_order_key(&a2, &b2);
        prop_assert_eq!(k1 == k2, (a1.clone(), b1.clone()) == (a2.clone(), b2.clone()), "{} vs {}", k1, k2);
        prop_assert_eq!(parse_user_order::<String, String>(&k1), Some((a1, b1)));
        prop_assert_eq!(parse_user_order::<String, String>(&k2), Some((a2, b2)));
    }

    #[test]
    fn values_that_look_like_keys_stay_inside_their_field(
        a in "[A-Z]{1,5}(#[A-Z0-9]{0,4}){0,3}",
        b in any::<u64>(),
    ) {
        // A user id such as "1#ORDER#2" cannot produce or match another entity's key.
        let key = user_order_key(&a, &b);
        prop_assert_eq!(key.matches(DELIMITER).count(), 3, "{}", key);
        prop_assert_eq!(parse_user_order::<String, u64>(&key), Some((a, b)));
    }

    #[test]
    fn mixed_field_types_split_and_decode(a in any::<i64>(), b in nonempty_string(), c in any::<i64>(), d in nonempty_string()) {
        let k1 = user_order_key(&a, &b);
        let k2 = user_order_key(&c, &d);
        prop_assert_eq!(k1 == k2, (a, b.clone()) == (c, d.clone()));
        prop_assert_eq!(parse_user_order::<i64, String>(&k1), Some((a, b)));
    }

    #[test]
    fn no_case_folding(s in "[a-zA-Z]{1,8}") {
        let upper = s.to_uppercase();
        let lower = s.to_lowercase();
        prop_assert_eq!(encode_part(&upper).unwrap() == encode_part(&lower).unwrap(), upper == lower);
        prop_assert_eq!(String::decode_key(&encode_part(&s).unwrap()).unwrap(), s);
    }
}

#[test]
fn bools_round_trip_in_order() {
    round_trip(&true).unwrap();
    round_trip(&false).unwrap();
    same_order(&false, &true).unwrap();
    assert!(bool::decode_key("TRUE").is_err());
}

#[test]
fn empty_strings_are_refused_as_keys_but_allowed_as_prefixes() {
    assert!(encode_part(&String::new()).is_err());
    assert!(String::decode_key("").is_err());
    assert_eq!(prefix(""), "");
    let err = USER_ORDER
        .encode(|f, out| {
            if f == "a" {
                String::new().encode_key(out)
            } else {
                1u8.encode_key(out)
            }
        })
        .unwrap_err();
    assert!(err.to_string().contains("key value is empty"), "{err}");
}

#[test]
fn templates_refuse_segments_that_would_not_split_back() {
    // A hand-written KeyPart that leaks the delimiter is caught when the key is built.
    let err = USER_ORDER.encode(|_, out| {
        out.push_str("x#y");
        Ok(())
    });
    let msg = err.unwrap_err().to_string();
    assert!(msg.contains("field {a} encoded as \"x#y\""), "{msg}");
    let err = USER_ORDER.encode(|_, _| Ok(())).unwrap_err();
    assert!(
        err.to_string().contains("field {a} encoded as \"\""),
        "{err}"
    );
}

#[test]
fn conventional_keys_of_other_clients_parse() {
    const USER: Template = Template::new(&[Segment::Literal("USER#"), Segment::Field("id")]);
    const ORDER: Template = Template::new(&[Segment::Literal("ORDER#"), Segment::Field("id")]);
    let user = USER.split("USER#123").unwrap();
    assert_eq!(String::decode_key(user[0]).unwrap(), "123");
    assert_eq!(u64::decode_key(user[0]).unwrap(), 123);
    let order = ORDER.split("ORDER#456").unwrap();
    assert_eq!(u64::decode_key(order[0]).unwrap(), 456);
    assert_eq!(u32::decode_key(order[0]).unwrap(), 456);
    assert_eq!(i64::decode_key(order[0]).unwrap(), 456);
    assert_eq!(i16::decode_key("-7").unwrap(), -7);
    // Full-width plain decimals of a signed type are plain decimals, not offset forms.
    assert_eq!(i32::decode_key("2147483647").unwrap(), i32::MAX);
    assert_eq!(i64::decode_key("9223372036854775807").unwrap(), i64::MAX);
    // A composite key written by hand.
    assert_eq!(
        parse_user_order::<String, u64>("USER#alice#ORDER#456"),
        Some(("alice".to_owned(), 456))
    );
    // A '%' that is not one of dyno's escapes is kept as it is.
    assert_eq!(String::decode_key("50%off").unwrap(), "50%off");
    assert_eq!(String::decode_key("%2").unwrap(), "%2");
    // Wrong shapes are refused, and say what was expected.
    assert!(
        USER.split("user#123").is_none(),
        "literals are case-sensitive"
    );
    assert!(USER.split("USER#").is_none());
    assert!(USER.split("USER#1#2").is_none());
    let err = u64::decode_key("12a").unwrap_err().to_string();
    assert!(
        err.contains("expected a u64 key segment, found \"12a\""),
        "{err}"
    );
    let err = u8::decode_key("256").unwrap_err().to_string();
    assert!(err.contains("does not fit u8"), "{err}");
    assert!(i64::decode_key("").is_err());
    assert!(i64::decode_key("-").is_err());
    assert!(i64::decode_key("1.5").is_err());
}

#[cfg(feature = "uuid")]
mod uuids {
    use super::*;
    use uuid::Uuid;

    proptest! {
        #[test]
        fn round_trip_lowercase_hyphenated_in_order(a in any::<u128>(), b in any::<u128>()) {
            let (ua, ub) = (Uuid::from_u128(a), Uuid::from_u128(b));
            let seg = round_trip(&ua)?;
            prop_assert_eq!(seg.len(), 36);
            prop_assert_eq!(seg.to_lowercase(), seg.clone());
            prop_assert_eq!(seg, ua.hyphenated().to_string());
            same_order(&ua, &ub)?;
        }
    }

    #[test]
    fn only_the_canonical_form_decodes() {
        let id = Uuid::from_u128(0xabcdef);
        let seg = encode_part(&id).unwrap();
        assert_eq!(seg, "00000000-0000-0000-0000-000000abcdef");
        let err = Uuid::decode_key(&seg.to_uppercase())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("expected a lowercase hyphenated UUID key segment"),
            "{err}"
        );
        assert!(Uuid::decode_key(&id.simple().to_string()).is_err());
        assert!(Uuid::decode_key("nope").is_err());
    }
}

#[cfg(feature = "time")]
mod time_keys {
    use super::*;
    use time::{Date, OffsetDateTime, UtcOffset};

    /// 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z in epoch seconds.
    const MIN_SECS: i64 = -62_167_219_200;
    const MAX_SECS: i64 = 253_402_300_799;

    fn timestamp() -> impl Strategy<Value = OffsetDateTime> {
        (MIN_SECS..=MAX_SECS, 0u32..1_000_000_000).prop_map(|(s, n)| {
            OffsetDateTime::from_unix_timestamp(s)
                .unwrap()
                .replace_nanosecond(n)
                .unwrap()
        })
    }

    fn date() -> impl Strategy<Value = Date> {
        let lo = Date::from_calendar_date(0, time::Month::January, 1)
            .unwrap()
            .to_julian_day();
        let hi = Date::from_calendar_date(9999, time::Month::December, 31)
            .unwrap()
            .to_julian_day();
        (lo..=hi).prop_map(|j| Date::from_julian_day(j).unwrap())
    }

    proptest! {
        #[test]
        fn timestamps_round_trip_fixed_width_in_time_order(
            a in timestamp(), b in timestamp(), offset in -86_399i32..=86_399,
        ) {
            let seg = round_trip(&a)?;
            prop_assert_eq!(seg.len(), "2024-01-02T03:04:05.000000000Z".len());
            prop_assert!(seg.ends_with('Z'));
            same_order(&a, &b)?;
            // The same instant in another offset has the same key (converted to UTC).
            let shifted = a.checked_to_offset(UtcOffset::from_whole_seconds(offset).unwrap());
            if let Some(shifted) = shifted {
                prop_assert_eq!(encode_part(&shifted).unwrap(), seg);
            }
        }

        #[test]
        fn dates_round_trip_in_order(a in date(), b in date()) {
            let seg = round_trip(&a)?;
            prop_assert_eq!(seg.len(), 10);
            same_order(&a, &b)?;
        }
    }

    #[test]
    fn only_dynos_form_decodes_and_years_are_four_digits() {
        let t = OffsetDateTime::from_unix_timestamp(1_704_164_645).unwrap();
        assert_eq!(encode_part(&t).unwrap(), "2024-01-02T03:04:05.000000000Z");
        for other in [
            "2024-01-02T03:04:05Z",
            "2024-01-02T04:04:05.000000000+01:00",
            "2024-01-02",
        ] {
            let err = OffsetDateTime::decode_key(other).unwrap_err().to_string();
            assert!(
                err.contains("expected a fixed-width UTC timestamp"),
                "{err}"
            );
        }
        let past = OffsetDateTime::from_unix_timestamp(MIN_SECS - 1).unwrap();
        let err = encode_part(&past).unwrap_err().to_string();
        assert!(err.contains("outside the years 0000-9999"), "{err}");
        assert!(Date::decode_key("2024-1-02").is_err());
        assert!(Date::decode_key("2023-02-29").is_err());
    }
}

#[cfg(feature = "chrono")]
mod chrono_keys {
    use super::*;
    use chrono::{DateTime, NaiveDate, Utc};

    const MIN_SECS: i64 = -62_167_219_200;
    const MAX_SECS: i64 = 253_402_300_799;

    fn timestamp() -> impl Strategy<Value = DateTime<Utc>> {
        prop_oneof![
            9 => (MIN_SECS..=MAX_SECS, 0u32..1_000_000_000)
                .prop_map(|(s, n)| DateTime::from_timestamp(s, n).unwrap()),
            // Leap seconds, which chrono represents in second 59 with nanoseconds past 1e9.
            1 => (MIN_SECS / 60..MAX_SECS / 60, 1_000_000_000u32..2_000_000_000)
                .prop_map(|(m, n)| DateTime::from_timestamp(m * 60 + 59, n).unwrap()),
        ]
    }

    fn date() -> impl Strategy<Value = NaiveDate> {
        let lo = NaiveDate::from_ymd_opt(0, 1, 1).unwrap();
        let hi = NaiveDate::from_ymd_opt(9999, 12, 31).unwrap();
        (0..=(hi - lo).num_days()).prop_map(move |d| lo + chrono::Days::new(d as u64))
    }

    proptest! {
        #[test]
        fn timestamps_round_trip_fixed_width_in_time_order(a in timestamp(), b in timestamp()) {
            let seg = round_trip(&a)?;
            prop_assert_eq!(seg.len(), 30);
            same_order(&a, &b)?;
        }

        #[test]
        fn dates_round_trip_in_order(a in date(), b in date()) {
            round_trip(&a)?;
            same_order(&a, &b)?;
        }
    }

    #[test]
    fn only_dynos_form_decodes() {
        assert!(DateTime::<Utc>::decode_key("2024-01-02T03:04:05Z").is_err());
        assert!(DateTime::<Utc>::decode_key("2024-01-02T03:04:05.000000000Z").is_ok());
        assert!(NaiveDate::decode_key("2024-02-30").is_err());
        let far = DateTime::from_timestamp(MAX_SECS + 1, 0).unwrap();
        assert!(encode_part(&far)
            .unwrap_err()
            .to_string()
            .contains("0000-9999"));
    }
}

#[cfg(feature = "rust_decimal")]
mod decimals {
    use super::*;
    use rust_decimal::Decimal;
    use std::str::FromStr;

    const MAX_MANTISSA: i128 = (1 << 96) - 1;

    fn decimal() -> impl Strategy<Value = Decimal> {
        prop_oneof![
            (-MAX_MANTISSA..=MAX_MANTISSA, 0u32..=28),
            // Small mantissas make equal values at different scales (1.5, 1.50) likely.
            (-2000i128..=2000, 0u32..=4),
        ]
        .prop_map(|(m, s)| Decimal::from_i128_with_scale(m, s))
    }

    proptest! {
        #[test]
        fn decimals_round_trip_in_numeric_order(a in decimal(), b in decimal()) {
            round_trip(&a)?;
            let (ea, eb) = (encode_part(&a).unwrap(), encode_part(&b).unwrap());
            prop_assert_eq!(ea.cmp(&eb), a.cmp(&b), "{} -> {}, {} -> {}", a, ea, b, eb);
            // Equal values (1.5 and 1.50) have one key.
            prop_assert_eq!(ea == eb, a == b);
            // Inside a template a following '#' does not disturb the order.
            let (ka, kb) = (user_order_key(&a, &1u8), user_order_key(&b, &1u8));
            if a != b {
                prop_assert_eq!(ka.cmp(&kb), a.cmp(&b), "{} vs {}", ka, kb);
            }
        }

        #[test]
        fn plain_decimal_text_parses(a in decimal()) {
            prop_assert_eq!(Decimal::decode_key(&a.to_string()).unwrap(), a);
        }
    }

    #[test]
    fn the_form_is_the_documented_one() {
        let d = |s: &str| encode_part(&Decimal::from_str(s).unwrap()).unwrap();
        assert_eq!(d("19.95"), "P521995");
        assert_eq!(d("-19.95"), "N478004~");
        assert_eq!(d("0"), "O");
        assert_eq!(d("-0.00"), "O");
        assert_eq!(d("1.50"), "P5115");
        assert_eq!(d("1"), "P511");
        assert_eq!(d("100"), "P531");
        assert!(d("-1") < d("-0.5"));
        assert!(d("-0.5") < d("0"));
        assert!(d("9") < d("10"));
        assert_eq!(
            d("79228162514264337593543950335"),
            "P7979228162514264337593543950335"
        );
        assert_eq!(d("0.0000000000000000000000000001"), "P231");
        // Non-canonical spellings of a value are refused.
        for bad in [
            "P5110", "P5201", "P", "P5", "N478004", "O0", "P99999", "P1", "Q511", "N51~",
        ] {
            assert!(Decimal::decode_key(bad).is_err(), "{bad} decoded");
        }
        let err = Decimal::decode_key("abc").unwrap_err().to_string();
        assert!(err.contains("expected a decimal key segment"), "{err}");
    }
}
