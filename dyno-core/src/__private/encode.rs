//! What a derived `to_item` (and every generated writer of key attributes) calls to write a
//! key attribute in place: compiled once here, so each key costs the expansion one call.

use crate::value::{AttributeValue, Item};

/// The string of key attribute `name` in `item`, set empty (a field stored under the same name
/// is replaced, as the key is written last): the generated key function writes the key into it,
/// reserving its exact length first. When the key function fails, the caller returns the error
/// and drops `item`.
#[inline]
pub fn key_buf<'a>(item: &'a mut Item, name: &str) -> &'a mut String {
    match item
        .entry(name.to_owned())
        .insert_entry(AttributeValue::S(String::new()))
        .into_mut()
    {
        AttributeValue::S(key) => key,
        // Just inserted as `S`.
        _ => unreachable!("a key attribute is a string"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_buffer_replaces_the_attribute_and_is_written_in_place() {
        let mut item = Item::from([("PK".to_owned(), AttributeValue::N("1".into()))]);
        key_buf(&mut item, "PK").push_str("USER#1");
        key_buf(&mut item, "SK").push_str("ORDER#1");
        assert_eq!(item["PK"], AttributeValue::S("USER#1".into()));
        assert_eq!(item["SK"], AttributeValue::S("ORDER#1".into()));
        assert_eq!(item.len(), 2);
    }
}
