//! Item size by DynamoDB's formula, so that a too-large item is refused before it is sent.

use super::{AttributeValue, Item};
use crate::error::{Error, Result};

/// DynamoDB's maximum item size: 400 KB, names and values included.
pub const MAX_ITEM_SIZE: usize = 400 * 1024;

/// Refuses an item over [`MAX_ITEM_SIZE`] before any request is made, naming the entity when
/// the caller knows it: one check for the typed writes, the batch engine and the SDK-backed store.
pub(crate) fn check_item_size(item: &Item, entity: Option<&'static str>) -> Result<()> {
    let size = item_size(item);
    if size > MAX_ITEM_SIZE {
        return Err(Error::ItemTooLarge {
            entity,
            size,
            limit: MAX_ITEM_SIZE,
        });
    }
    Ok(())
}

/// The size of an item as DynamoDB counts it: for each attribute, the UTF-8 length of its name
/// plus the size of its value.
pub fn item_size(item: &Item) -> usize {
    item.iter()
        .map(|(name, value)| name.len() + attribute_size(value))
        .sum()
}

/// The size of one attribute value as DynamoDB counts it.
///
/// Strings and binaries: their length. Numbers: about one byte per two significant digits plus
/// one. Booleans and null: one byte. Lists and maps: three bytes plus one per element, plus the
/// elements (and, in maps, the keys). Sets: the sum of their elements.
pub fn attribute_size(value: &AttributeValue) -> usize {
    match value {
        AttributeValue::S(s) => s.len(),
        AttributeValue::N(n) => number_size(n),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        AttributeValue::Ss(v) => v.iter().map(String::len).sum(),
        AttributeValue::Ns(v) => v.iter().map(|n| number_size(n)).sum(),
        AttributeValue::Bs(v) => v.iter().map(|b| b.as_ref().len()).sum(),
        AttributeValue::L(v) => 3 + v.iter().map(|e| 1 + attribute_size(e)).sum::<usize>(),
        AttributeValue::M(m) => {
            3 + m
                .iter()
                .map(|(k, e)| 1 + k.len() + attribute_size(e))
                .sum::<usize>()
        }
        _ => 0,
    }
}

/// Numbers are stored as variable-length base-100 digits: one byte per two significant digits,
/// plus one byte (and one more for a negative number).
fn number_size(n: &str) -> usize {
    let negative = n.starts_with('-');
    let mantissa = n.split(['e', 'E']).next().unwrap_or("");
    // The digits from the first non-zero one to the last, counted without copying them (every
    // put sizes its item's numbers).
    let (mut first, mut last) = (None, 0);
    for (i, d) in mantissa.bytes().filter(u8::is_ascii_digit).enumerate() {
        if d != b'0' {
            first.get_or_insert(i);
            last = i;
        }
    }
    let count = first.map_or(0, |f| last - f + 1).max(1);
    count.div_ceil(2) + 1 + usize::from(negative)
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::primitives::Blob;

    #[test]
    fn strings_count_utf8_bytes_and_names() {
        let item = Item::from([("ab".to_owned(), AttributeValue::S("héllo".to_owned()))]);
        assert_eq!(item_size(&item), 2 + 6);
    }

    #[test]
    fn numbers_count_significant_digit_pairs() {
        assert_eq!(number_size("0"), 2);
        assert_eq!(number_size("12"), 2);
        assert_eq!(number_size("123"), 3);
        assert_eq!(number_size("1000000"), 2);
        assert_eq!(number_size("-12.5"), 4);
        assert_eq!(number_size("0.00120"), 2);
        assert_eq!(number_size("1.5e10"), 2);
        assert_eq!(number_size("129.99"), 4);
        assert_eq!(number_size("4000000000"), 2);
    }

    #[test]
    fn containers_add_overhead_per_element() {
        let list = AttributeValue::L(vec![
            AttributeValue::Bool(true),
            AttributeValue::S("x".into()),
        ]);
        assert_eq!(attribute_size(&list), 3 + (1 + 1) + (1 + 1));
        let blob = AttributeValue::B(Blob::new(vec![0u8; 10]));
        assert_eq!(attribute_size(&blob), 10);
    }
}
