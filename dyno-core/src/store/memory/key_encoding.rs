//! The order-preserving byte encoding of key values.
//!
//! Every key value becomes a byte string whose bytewise order is DynamoDB's order for its type:
//! S as its UTF-8 bytes, B as its bytes, N as a sign/exponent/digits encoding. A key attribute has
//! one type per table, so the engine's `BTreeMap`s keyed by these bytes iterate in DynamoDB order.

use super::key_bytes::KeyBytes;
use crate::value::AttributeValue;

/// The order-preserving bytes of a scalar value (`None` for other types or an unparsable number).
pub(super) fn encode_value(value: &AttributeValue) -> Option<KeyBytes> {
    match value {
        AttributeValue::S(s) => Some(KeyBytes::from(s.as_bytes())),
        AttributeValue::B(b) => Some(KeyBytes::from(b.as_ref())),
        AttributeValue::N(n) => encode_number(n),
        _ => None,
    }
}

/// A number as bytes whose order is numeric order: a sign byte, the decimal exponent (inverted
/// for negatives), then the significant digits (inverted and terminated for negatives, so that a
/// shorter negative mantissa sorts after a longer one: -1.2 > -1.23). Equal numbers written
/// differently (`1.50`, `1.5`, `15e-1`) encode identically. `None` when `n` is not a number.
pub(super) fn encode_number(n: &str) -> Option<KeyBytes> {
    encode_number_vec(n).map(KeyBytes::from)
}

fn encode_number_vec(n: &str) -> Option<Vec<u8>> {
    let (negative, body) = match n.as_bytes().first()? {
        b'-' => (true, &n[1..]),
        b'+' => (false, &n[1..]),
        _ => (false, n),
    };
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(at) => (&body[..at], body[at + 1..].parse::<i64>().ok()?),
        None => (body, 0),
    };
    let (int_part, frac_part) = match mantissa.find('.') {
        Some(at) => (&mantissa[..at], &mantissa[at + 1..]),
        None => (mantissa, ""),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    if !int_part
        .bytes()
        .chain(frac_part.bytes())
        .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let digits = || int_part.bytes().chain(frac_part.bytes()).map(|b| b - b'0');
    let leading = digits().take_while(|d| *d == 0).count();
    let total = int_part.len() + frac_part.len();
    if leading == total {
        return Some(vec![0x02]);
    }
    let trailing = digits().rev().take_while(|d| *d == 0).count();
    // Scientific exponent of the first significant digit.
    let sci = (int_part.len() as i64 - leading as i64 - 1).saturating_add(exponent);
    let sci = sci.clamp(-0x3fff, 0x3fff) as i16;
    let biased = (i32::from(sci) + 0x4000) as u16;
    let significant = digits().skip(leading).take(total - leading - trailing);
    let mut out = Vec::with_capacity(4 + total);
    if negative {
        out.push(0x01);
        out.extend_from_slice(&(!biased).to_be_bytes());
        out.extend(significant.map(|d| 10 - d));
        out.push(0xff);
    } else {
        out.push(0x03);
        out.extend_from_slice(&biased.to_be_bytes());
        out.extend(significant.map(|d| d + 1));
    }
    Some(out)
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
