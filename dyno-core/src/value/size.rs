//! Item size by DynamoDB's formula, so that a too-large item is refused before it is sent.

use super::{AttributeValue, Item};
use crate::error::{Error, Result};

/// DynamoDB's maximum item size: 400 KB, names and values included.
pub const MAX_ITEM_SIZE: usize = 400 * 1024;

/// Refuses an item over [`MAX_ITEM_SIZE`] before any request is made, naming the entity when
/// the caller knows it: one check for the typed writes, the batch engine and the SDK-backed store.
pub(crate) fn check_item_size(item: &Item, entity: Option<&'static str>) -> Result<()> {
    // Nearly every item is far below the limit, and a bound that counts each number by its
    // text's length (not its significant digits) settles it; only an item the bound cannot
    // clear is sized exactly. A put sizes its item twice (the typed layer, then the store).
    let bound: usize = item
        .iter()
        .map(|(name, value)| name.len() + sized(value, number_size_bound))
        .sum();
    if bound <= MAX_ITEM_SIZE {
        return Ok(());
    }
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

/// DynamoDB's limit on document nesting: a top-level attribute's value is level 1, each map or
/// list adds one, and nothing may sit deeper than level 32.
pub(crate) const MAX_NESTING: usize = 32;

/// Refuses an item holding a value nested deeper than [`MAX_NESTING`] levels before anything is
/// sent, naming the entity, the attribute and the path to the first such value (DynamoDB's own
/// refusal names neither).
pub(crate) fn check_nesting(item: &Item, entity: Option<&'static str>) -> Result<()> {
    /// The path below a value to its first element deeper than the limit, innermost first.
    fn too_deep(value: &AttributeValue, depth: usize, path: &mut Vec<String>) -> bool {
        if depth > MAX_NESTING {
            return true;
        }
        match value {
            AttributeValue::M(m) => {
                // Sorted, so that the same item always names the same path.
                let mut names: Vec<&String> = m.keys().collect();
                names.sort_unstable();
                names.into_iter().any(|k| {
                    too_deep(&m[k], depth + 1, path) && {
                        path.push(format!(".{k}"));
                        true
                    }
                })
            }
            AttributeValue::L(l) => l.iter().enumerate().any(|(i, v)| {
                too_deep(v, depth + 1, path) && {
                    path.push(format!("[{i}]"));
                    true
                }
            }),
            _ => false,
        }
    }
    for (name, value) in item {
        if !matches!(value, AttributeValue::M(_) | AttributeValue::L(_)) {
            continue;
        }
        let mut below = Vec::new();
        if too_deep(value, 1, &mut below) {
            let at: String = std::iter::once(name.clone())
                .chain(below.into_iter().rev())
                .collect();
            return Err(Error::Encode {
                entity,
                attribute: Some(name.clone()),
                message: format!(
                    "the value at {at} is nested deeper than DynamoDB's limit of {MAX_NESTING} \
                     levels (a top-level attribute is level 1, each map or list adds one); \
                     nothing was written. Store the deep part flatter, or as one string (JSON)"
                ),
                source: None,
            });
        }
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
    sized(value, number_size)
}

/// [`attribute_size`]'s rule, with `number` measuring each number: the exact [`number_size`],
/// or [`number_size_bound`].
fn sized(value: &AttributeValue, number: fn(&str) -> usize) -> usize {
    match value {
        AttributeValue::S(s) => s.len(),
        AttributeValue::N(n) => number(n),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        AttributeValue::Ss(v) => v.iter().map(String::len).sum(),
        AttributeValue::Ns(v) => v.iter().map(|n| number(n)).sum(),
        AttributeValue::Bs(v) => v.iter().map(|b| b.as_ref().len()).sum(),
        AttributeValue::L(v) => 3 + v.iter().map(|e| 1 + sized(e, number)).sum::<usize>(),
        AttributeValue::M(m) => {
            3 + m
                .iter()
                .map(|(k, e)| 1 + k.len() + sized(e, number))
                .sum::<usize>()
        }
        _ => 0,
    }
}

/// At least [`number_size`], from the text's length alone: its significant digits are at most
/// its characters (less the sign), and their pairs, the byte and the sign's byte are at most two
/// more.
fn number_size_bound(n: &str) -> usize {
    n.len() + 2
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

    /// The bound the size check clears most items with is never below the exact size, so it
    /// refuses nothing the exact check would pass and passes nothing it would refuse.
    #[test]
    fn the_number_bound_is_never_below_the_exact_size() {
        let fixed = [
            "", "-", "0", "-0", "7", "-7", "12", "-1.5e-10", "0.000", "1E+38",
        ];
        for n in fixed {
            assert!(number_size_bound(n) >= number_size(n), "{n:?}");
        }
        let mut rng = fastrand::Rng::with_seed(11);
        let alphabet = b"0123456789-.eE+";
        for _ in 0..20_000 {
            let len = rng.usize(0..45);
            let n: String = (0..len)
                .map(|_| char::from(alphabet[rng.usize(..alphabet.len())]))
                .collect();
            assert!(number_size_bound(&n) >= number_size(&n), "{n:?}");
        }
    }

    /// An item just over the limit by the exact size is refused, and one exactly at it passes,
    /// numbers included (the bound cannot clear either, so the exact size decides).
    #[test]
    fn the_limit_is_decided_by_the_exact_size() {
        let item = |filler: usize| {
            Item::from([
                ("n".to_owned(), AttributeValue::N("1000000".into())),
                ("s".to_owned(), AttributeValue::S("x".repeat(filler))),
            ])
        };
        // "n" + 2 bytes for the number, "s" + the filler.
        let at_limit = MAX_ITEM_SIZE - 1 - 2 - 1;
        assert_eq!(item_size(&item(at_limit)), MAX_ITEM_SIZE);
        assert!(check_item_size(&item(at_limit), None).is_ok());
        assert!(matches!(
            check_item_size(&item(at_limit + 1), Some("E")),
            Err(Error::ItemTooLarge { entity: Some("E"), size, .. }) if size == MAX_ITEM_SIZE + 1
        ));
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
