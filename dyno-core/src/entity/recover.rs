//! Recovering key fields from key attributes: the key is the source of truth, and items written
//! by other clients in the conventional format (`PK = "USER#42"`, no `user_id` attribute) decode
//! from it.

use crate::error::{Error, Result};
use crate::key::{KeyPart, Template, DELIMITER};
use crate::value::{describe, AttributeValue, Item, ToAttribute};

/// Where a key field can be read back from: a key attribute and its template.
#[derive(Debug, Clone, Copy)]
pub struct KeySource {
    /// The key attribute (`PK`, `GSI1SK`).
    pub attribute: &'static str,
    /// Its template for this entity.
    pub template: Template,
    /// Shard count when the attribute carries a `#<n>` shard suffix, else 0.
    pub shards: u32,
}

impl KeySource {
    /// The source `attribute`, written from `template` (with `shards` shard suffixes, or 0).
    pub const fn new(attribute: &'static str, template: Template, shards: u32) -> Self {
        KeySource {
            attribute,
            template,
            shards,
        }
    }
}

fn strip_shard(key: &str, shards: u32) -> &str {
    if shards == 0 {
        return key;
    }
    match key.rfind(DELIMITER) {
        Some(i) if key[i + 1..].parse::<u32>().is_ok_and(|n| n < shards) => &key[..i],
        _ => key,
    }
}

/// Field `field` of `entity`, read from the first key attribute in `sources` whose template
/// holds it (`USER#{user_id}` holds `user_id`), decoded with its [`KeyPart`]; `None` when no such
/// attribute is present or its value does not have the template's form. A value of the form that
/// does not decode is an error naming the entity, the attribute, the template and the key.
///
/// This is how dyno reads items written by other clients in the conventional format (only key
/// attributes, no field attributes), and projections without the field's attribute.
///
/// ```
/// use dyno_core::entity::recover::{recover_field, KeySource};
/// use dyno_core::key::{Segment, Template};
/// use dyno_core::{AttributeValue, Item};
///
/// const PK: Template = Template::new(&[Segment::Literal("USER#"), Segment::Field("user_id")]);
/// let sources = [KeySource { attribute: "PK", template: PK, shards: 0 }];
/// let item = Item::from([("PK".to_owned(), AttributeValue::S("USER#42".into()))]);
/// let id: Option<u32> = recover_field(&item, "User", "user_id", &sources)?;
/// assert_eq!(id, Some(42));
/// # Ok::<(), dyno_core::Error>(())
/// ```
pub fn recover_field<T: KeyPart>(
    item: &Item,
    entity: &'static str,
    field: &str,
    sources: &[KeySource],
) -> Result<Option<T>> {
    let decode = |s: &str| T::decode_key(s);
    for source in sources {
        let Some(position) = source.template.fields().position(|f| f == field) else {
            continue;
        };
        let Some(value) = item.get(source.attribute) else {
            continue;
        };
        let AttributeValue::S(key) = value else {
            return Err(Error::decode(
                format!("S key in the form {}", source.template),
                describe(value),
            )
            .at(entity, source.attribute));
        };
        let Some(parts) = source.template.split(strip_shard(key, source.shards)) else {
            continue;
        };
        return decode(parts[position]).map(Some).map_err(|e| {
            let message = match e {
                Error::Key { message, .. } => message,
                other => other.to_string(),
            };
            Error::Decode {
                entity: Some(entity),
                attribute: Some(source.attribute.to_owned()),
                expected: format!("{{{field}}} of {}", source.template),
                found: format!("{key:?} ({message})"),
                source: None,
            }
        });
    }
    Ok(None)
}

/// A key field's value read from its own attribute (`stored`), checked against the value its
/// key holds (`from_key`, `None` when the item has no key attribute holding it): they must
/// denote the same value, compared by their attribute encodings (so `00000123` and `123`, an
/// alias and its variant, compare equal once decoded). A mismatch is an error naming the field
/// and both values: the key is the source of truth, and an item whose attribute says otherwise
/// (written by a buggy or hostile client) must not decode as if it lived at another key, where
/// a write of what was read would then go.
///
/// ```
/// use dyno_core::entity::recover::agree;
/// assert_eq!(agree(7u32, Some(7), "User", "user_id")?, 7);
/// assert_eq!(agree(7u32, None, "User", "user_id")?, 7);
/// let err = agree("attacker2".to_owned(), Some("victim2".to_owned()), "User", "user_id").unwrap_err();
/// assert!(err.to_string().contains("attacker2") && err.to_string().contains("victim2"));
/// # Ok::<(), dyno_core::Error>(())
/// ```
pub fn agree<T: ToAttribute>(
    stored: T,
    from_key: Option<T>,
    entity: &'static str,
    field: &str,
) -> Result<T> {
    let Some(from_key) = from_key else {
        return Ok(stored);
    };
    let (a, k) = (stored.to_attribute()?, from_key.to_attribute()?);
    if a == k {
        return Ok(stored);
    }
    let show =
        |v: &Option<AttributeValue>| v.as_ref().map_or_else(|| "nothing".to_owned(), describe);
    Err(Error::Decode {
        entity: Some(entity),
        attribute: Some(field.to_owned()),
        expected: format!("the value the item's key holds, {}", show(&k)),
        found: format!(
            "{} (the attribute disagrees with the key: the item was not written by this entity's \
             code, and decoding it would move it to another key)",
            show(&a)
        ),
        source: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_suffixes_are_stripped_only_below_the_shard_count() {
        assert_eq!(strip_shard("DAY#x#3", 8), "DAY#x");
        assert_eq!(strip_shard("DAY#x#9", 8), "DAY#x#9");
        assert_eq!(strip_shard("DAY#x#3", 0), "DAY#x#3");
    }
}
