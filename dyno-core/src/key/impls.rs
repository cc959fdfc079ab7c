//! `KeyPart` for strings, integers, bools and, behind features, uuid, dates and timestamps.

use super::{escape_into, unescape, KeyPart};
use crate::error::{Error, Result};

impl KeyPart for String {
    fn encode_key(&self, out: &mut String) -> Result<()> {
        if self.is_empty() {
            return Err(Error::key(None, "key value is empty"));
        }
        escape_into(self, out);
        Ok(())
    }
    fn encode_prefix(&self, out: &mut String) -> Result<()> {
        escape_into(self, out);
        Ok(())
    }
    fn decode_key(segment: &str) -> Result<Self> {
        if segment.is_empty() {
            return Err(Error::key(None, "key segment is empty"));
        }
        unescape(segment)
    }
    // A map key is the string itself, as maps of strings have always been stored.
    fn encode_map_key(&self) -> Result<String> {
        Ok(self.clone())
    }
    fn decode_map_key(name: &str) -> Result<Self> {
        Ok(name.to_owned())
    }
    // A string names its entry one way only.
    fn other_map_key_spellings(&self) -> Vec<String> {
        Vec::new()
    }
}

impl KeyPart for bool {
    fn encode_key(&self, out: &mut String) -> Result<()> {
        out.push_str(if *self { "true" } else { "false" });
        Ok(())
    }
    fn decode_key(segment: &str) -> Result<Self> {
        match segment {
            "true" => Ok(true),
            "false" => Ok(false),
            other => Err(Error::key(
                None,
                format!("expected true or false, found {other:?}"),
            )),
        }
    }
}

// Unsigned integers: zero-padded to the width of the type's maximum, so string order is numeric
// order; plain decimals where order is not queried (`KeyFormat::Plain`). Both parse.
macro_rules! unsigned {
    ($($t:ty),*) => {$(
        impl KeyPart for $t {
            fn encode_key(&self, out: &mut String) -> Result<()> {
                use std::fmt::Write;
                const WIDTH: usize = <$t>::MAX.ilog10() as usize + 1;
                let _ = write!(out, "{:0width$}", self, width = WIDTH);
                Ok(())
            }
            fn encode_plain(&self, out: &mut String) -> Result<()> {
                use std::fmt::Write;
                let _ = write!(out, "{self}");
                Ok(())
            }
            fn encode_plain_prefix(&self, out: &mut String) -> Result<()> {
                self.encode_plain(out)
            }
            fn decode_key(segment: &str) -> Result<Self> {
                if segment.is_empty() || !segment.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(Error::key(None, format!(
                        concat!("expected a ", stringify!($t), " key segment, found {:?}"), segment
                    )));
                }
                segment.parse().map_err(|_| Error::key(None, format!(
                    concat!("key segment {:?} does not fit ", stringify!($t)), segment
                )))
            }
        }
    )*};
}
unsigned!(u8, u16, u32, u64, u128, usize);

// Signed integers: offset by the type's minimum into the unsigned range, then zero-padded to one
// digit more than the unsigned width. The extra digit keeps the form apart from plain decimals:
// a conventional key of the type (`-12`, `1000000000` for an i32) never has that many digits, so
// it is read as the plain decimal it is, not as an offset value.
macro_rules! signed {
    ($($t:ty => $u:ty),*) => {$(
        impl KeyPart for $t {
            fn encode_key(&self, out: &mut String) -> Result<()> {
                use std::fmt::Write;
                const WIDTH: usize = <$u>::MAX.ilog10() as usize + 2;
                let shifted = (*self as $u) ^ (1 << (<$u>::BITS - 1));
                let _ = write!(out, "{:0width$}", shifted, width = WIDTH);
                Ok(())
            }
            fn encode_plain(&self, out: &mut String) -> Result<()> {
                use std::fmt::Write;
                let _ = write!(out, "{self}");
                Ok(())
            }
            fn encode_plain_prefix(&self, out: &mut String) -> Result<()> {
                self.encode_plain(out)
            }
            fn decode_key(segment: &str) -> Result<Self> {
                const WIDTH: usize = <$u>::MAX.ilog10() as usize + 2;
                if segment.len() == WIDTH && segment.bytes().all(|b| b.is_ascii_digit()) {
                    let shifted = <$u>::decode_key(segment)?;
                    return Ok((shifted ^ (1 << (<$u>::BITS - 1))) as $t);
                }
                let plain = segment.strip_prefix('-').unwrap_or(segment);
                if plain.is_empty() || !plain.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(Error::key(None, format!(
                        concat!("expected a ", stringify!($t), " key segment, found {:?}"), segment
                    )));
                }
                segment.parse().map_err(|_| Error::key(None, format!(
                    concat!("key segment {:?} does not fit ", stringify!($t)), segment
                )))
            }
        }
    )*};
}
signed!(i8 => u8, i16 => u16, i32 => u32, i64 => u64, i128 => u128, isize => usize);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::encode_part;

    #[test]
    fn delimiter_and_escape_char_are_escaped() {
        assert_eq!(
            encode_part(&"1#ORDER#2".to_owned()).unwrap(),
            "1%23ORDER%232"
        );
        assert_eq!(encode_part(&"50%".to_owned()).unwrap(), "50%25");
        assert_eq!(String::decode_key("1%23ORDER%232").unwrap(), "1#ORDER#2");
    }

    #[test]
    fn empty_string_is_refused() {
        assert!(encode_part(&String::new()).is_err());
    }

    #[test]
    fn integers_are_fixed_width_and_ordered() {
        assert_eq!(encode_part(&7u32).unwrap(), "0000000007");
        assert!(encode_part(&-1i32).unwrap() < encode_part(&0i32).unwrap());
        assert_eq!(
            i64::decode_key(&encode_part(&i64::MIN).unwrap()).unwrap(),
            i64::MIN
        );
        assert_eq!(u64::decode_key("456").unwrap(), 456);
        assert_eq!(i64::decode_key("-12").unwrap(), -12);
        assert_eq!(encode_part(&0i8).unwrap(), "0128");
        assert_eq!(encode_part(&i32::MIN).unwrap(), "00000000000");
        // A plain decimal as wide as the unsigned form is read as the plain decimal it is.
        assert_eq!(i32::decode_key("1000000000").unwrap(), 1_000_000_000);
        assert_eq!(i8::decode_key("100").unwrap(), 100);
        assert!(i8::decode_key("+5").is_err());
        assert!(i8::decode_key("0300").is_err());
    }

    #[test]
    fn plain_integers_are_decimal_text_and_both_forms_decode_to_one_value() {
        use crate::key::KeyFormat::{Ordered, Plain};
        fn both<T: KeyPart + PartialEq + std::fmt::Debug + Copy>(v: T, plain: &str) {
            let (mut p, mut o) = (String::new(), String::new());
            v.encode_as(Plain, &mut p).unwrap();
            v.encode_as(Ordered, &mut o).unwrap();
            assert_eq!(p, plain);
            assert_eq!(T::decode_key(&p).unwrap(), v, "{p}");
            assert_eq!(T::decode_key(&o).unwrap(), v, "{o}");
        }
        both(123u64, "123");
        both(0u32, "0");
        both(u128::MAX, "340282366920938463463374607431768211455");
        both(-12i64, "-12");
        both(i64::MIN, "-9223372036854775808");
        both(i8::MAX, "127");
        both(i8::MIN, "-128");
        // A plain i32 whose text is as long as the offset form cannot be: no plain i32 has 11
        // digits, so the two forms never meet.
        both(i32::MAX, "2147483647");
        // Strings and bools have one form.
        let mut p = String::new();
        "a#b".to_owned().encode_as(Plain, &mut p).unwrap();
        assert_eq!(p, "a%23b");
    }

    #[cfg(feature = "rust_decimal")]
    #[test]
    fn plain_decimals_are_normalized_text() {
        use rust_decimal::Decimal;
        for (v, plain) in [
            (Decimal::new(1950, 2), "19.5"),
            (Decimal::new(-300, 2), "-3"),
            (Decimal::new(0, 3), "0"),
            (Decimal::new(-0, 3), "0"),
        ] {
            let mut p = String::new();
            v.encode_plain(&mut p).unwrap();
            assert_eq!(p, plain);
            assert_eq!(Decimal::decode_key(&p).unwrap(), v);
        }
    }
}
