//! The order-preserving byte encoding of key values.
//!
//! Every key value becomes a byte string whose bytewise order is DynamoDB's order for its type:
//! S as its UTF-8 bytes, B as its bytes, N as a sign/exponent/digits encoding. A key attribute has
//! one type per table, so the engine's `BTreeMap`s keyed by these bytes iterate in DynamoDB order.

use super::key_bytes::KeyBytes;
use crate::value::{AttributeValue, Number};

/// The order-preserving bytes of a scalar value (`None` for other types or an unparsable number).
pub(super) fn encode_value(value: &AttributeValue) -> Option<KeyBytes> {
    match value {
        AttributeValue::S(s) => Some(KeyBytes::from(s.as_bytes())),
        AttributeValue::B(b) => Some(KeyBytes::from(b.as_ref())),
        AttributeValue::N(n) => encode_number(n),
        _ => None,
    }
}

/// A number's order-preserving bytes ([`Number::key_bytes`]); `None` when `n` is not a number.
pub(super) fn encode_number(n: &str) -> Option<KeyBytes> {
    Number::parse(n).ok().map(|d| KeyBytes::from(d.key_bytes()))
}

/// Ends each part of a multi-attribute key. It sorts below every escaped byte, so a part sorts
/// before a longer one it is a prefix of, as the value does on its own.
const PART_END: [u8; 2] = [0x00, 0x00];

/// Appends one part of a multi-attribute key: its bytes with `0x00` escaped as `0x00 0xff`,
/// then [`PART_END`]. Comparing two such keys bytewise compares their parts one after another,
/// each in its own order, and no part's bytes can reach into the next.
pub(super) fn push_key_part(out: &mut Vec<u8>, part: &[u8]) {
    push_escaped(out, part);
    out.extend_from_slice(&PART_END);
}

/// Appends bytes with `0x00` escaped as `0x00 0xff` (no terminator): the prefix that every
/// part beginning with `part` starts with, for `begins_with` on a part.
pub(super) fn push_escaped(out: &mut Vec<u8>, part: &[u8]) {
    for &b in part {
        out.push(b);
        if b == 0 {
            out.push(0xff);
        }
    }
}

/// The smallest byte string greater than every string starting with `prefix` (`None` when there
/// is none: the prefix is all `0xff`).
pub(super) fn prefix_successor(prefix: &[u8]) -> Option<KeyBytes> {
    let mut out = prefix.to_vec();
    while let Some(last) = out.pop() {
        if last < 0xff {
            out.push(last + 1);
            return Some(KeyBytes::from(out));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(a: &str, b: &str) -> std::cmp::Ordering {
        encode_number(a).unwrap().cmp(&encode_number(b).unwrap())
    }

    #[test]
    fn numbers_encode_in_numeric_order() {
        let sorted = [
            "-1e10", "-100", "-99.5", "-10", "-1.23", "-1.2", "-1", "-0.5", "-0.0001", "0",
            "0.0001", "0.5", "1", "1.2", "1.23", "9", "10", "10.5", "99", "100", "1e10", "1.5e10",
        ];
        for pair in sorted.windows(2) {
            assert_eq!(
                order(pair[0], pair[1]),
                std::cmp::Ordering::Less,
                "{} < {}",
                pair[0],
                pair[1]
            );
        }
    }

    #[test]
    fn equal_numbers_encode_equally() {
        for (a, b) in [
            ("1.50", "1.5"),
            ("15e-1", "1.5"),
            ("0.0", "-0"),
            ("+7", "7"),
            ("100", "1E2"),
            ("007", "7.000"),
        ] {
            assert_eq!(encode_number(a), encode_number(b), "{a} = {b}");
        }
    }

    /// The one difference between the engine's two number grammars: the key encoder read an
    /// exponent as an `i64` and called `1e99999999999999999999` no number at all; the evaluator
    /// (now `value::Number`, used by both) reads it and reports an overflow, as DynamoDB does for
    /// any number whose magnitude is out of range.
    #[test]
    fn an_absurd_exponent_is_a_number_out_of_range() {
        let huge = "1e99999999999999999999";
        assert!(encode_number(huge).is_some());
        assert!(order("1e125", huge).is_lt());
        assert_eq!(
            Number::parse_checked(huge),
            Err(crate::value::NumberError::Overflow)
        );
    }

    #[test]
    fn malformed_numbers_are_rejected() {
        for bad in ["", "-", "abc", "1.2.3", "1e", "e5", "."] {
            assert_eq!(encode_number(bad), None, "{bad:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn key_bytes_order_and_equality_are_bytewise(
            a in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..40),
            b in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..40),
            cut in 0usize..40,
        ) {
            // Shared prefixes and zero bytes are where a padded comparison could go wrong.
            let c: Vec<u8> = a[..cut.min(a.len())].iter().copied().chain([0, 0]).collect();
            for (x, y) in [(&a, &b), (&a, &c), (&c, &a), (&a, &a)] {
                let (kx, ky) = (KeyBytes::from(x.as_slice()), KeyBytes::from(y.clone()));
                proptest::prop_assert_eq!(kx.cmp(&ky), x.cmp(y));
                proptest::prop_assert_eq!(kx == ky, x == y);
                proptest::prop_assert_eq!(kx.as_slice(), x.as_slice());
            }
        }
    }

    fn composite(parts: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for p in parts {
            push_key_part(&mut out, p);
        }
        out
    }

    proptest::proptest! {
        /// Multi-attribute keys order as their parts do, one after another (zero bytes and
        /// prefixes included), and two keys are equal only when every part is.
        #[test]
        fn composite_keys_order_part_by_part(
            a in proptest::collection::vec(proptest::collection::vec(0u8..3, 0..4), 2),
            b in proptest::collection::vec(proptest::collection::vec(0u8..3, 0..4), 2),
        ) {
            let ka = composite(&[&a[0], &a[1]]);
            let kb = composite(&[&b[0], &b[1]]);
            proptest::prop_assert_eq!(ka.cmp(&kb), a.cmp(&b));
            // begins_with on the second part: an escaped prefix of the first part's closed bytes.
            let mut prefix = Vec::new();
            push_key_part(&mut prefix, &a[0]);
            push_escaped(&mut prefix, &b[1][..b[1].len().min(2)]);
            let begins = a[1].starts_with(&b[1][..b[1].len().min(2)]);
            proptest::prop_assert_eq!(ka.starts_with(&prefix), begins);
        }
    }

    #[test]
    fn prefix_successor_bounds_prefix_ranges() {
        assert_eq!(prefix_successor(b"ab").as_deref(), Some(&b"ac"[..]));
        assert_eq!(
            prefix_successor(&[0x61, 0xff]).as_deref(),
            Some(&[0x62][..])
        );
        assert_eq!(prefix_successor(&[0xff, 0xff]), None);
    }
}
