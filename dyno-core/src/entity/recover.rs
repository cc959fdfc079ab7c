//! Recovering key fields from key attributes: the key is the source of truth, and items written
//! by other clients in the conventional format (`PK = "USER#42"`, no `user_id` attribute) decode
//! from it.

use super::Entity;
use crate::error::{Error, Result};
use crate::key::{KeyPart, Template, DELIMITER};
use crate::value::{describe, AttributeValue, Item, ToAttribute};

/// Where a key field can be read back from: a key attribute and its template.
#[derive(Debug, Clone, Copy)]
#[doc(hidden)]
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
#[doc(hidden)]
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
#[doc(hidden)]
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

/// Checks that key attribute `attribute` of a stored `item` is the key its decoded fields are
/// written to: `write` appends that key (the entity's key function for `template`, over the
/// decoded value) to an empty string, and the two must be equal. An item without the attribute
/// passes (nothing was read from a key).
///
/// Otherwise the item is another spelling of its key (`USER#00000000000000000123` where the
/// plain `USER#123` is written, `STATUS#shipped` for `STATUS#Shipped`, an escape written
/// otherwise) or not its key at all, and decoding it would hide that: a put of the value would
/// go to the canonical key, a second item, and leave this one behind. That is
/// [`Error::KeyMismatch`], naming the stored key, the canonical one and the first field whose
/// segment differs. `#[derive(Entity)]` calls it for the primary key in `from_item`; index keys
/// are not checked (a write rewrites them).
///
/// The key is written into a reused per-thread buffer: a stored key that is already canonical
/// costs its encoding and one comparison, no allocation.
///
/// ```
/// use dyno_core::entity::recover::check_key;
/// use dyno_core::key::{KeyFormat, KeyPart, Segment, Template};
/// use dyno_core::{AttributeValue, Error, Item};
///
/// const PK: Template = Template::new(&[Segment::Literal("USER#"), Segment::Field("user_id")]);
/// let write = |k: &mut String| {
///     k.push_str("USER#");
///     123u64.encode_as(KeyFormat::Plain, k)
/// };
/// let at = |key: &str| Item::from([("PK".to_owned(), AttributeValue::S(key.into()))]);
/// check_key(&at("USER#123"), "User", "PK", &PK, write)?;
/// let err = check_key(&at("USER#00000000000000000123"), "User", "PK", &PK, write).unwrap_err();
/// assert!(matches!(err, Error::KeyMismatch { field: Some("user_id"), .. }), "{err}");
/// # Ok::<(), dyno_core::Error>(())
/// ```
#[doc(hidden)]
pub fn check_key(
    item: &Item,
    entity: &'static str,
    attribute: &str,
    template: &Template,
    write: impl FnOnce(&mut String) -> Result<()>,
) -> Result<()> {
    check_stored_key(item.get(attribute), entity, attribute, template, write)
}

/// [`check_key`] on the value stored at `attribute` (`None`: absent), already looked up.
pub(crate) fn check_stored_key(
    stored: Option<&AttributeValue>,
    entity: &'static str,
    attribute: &str,
    template: &Template,
    write: impl FnOnce(&mut String) -> Result<()>,
) -> Result<()> {
    let Some(stored) = stored else {
        return Ok(());
    };
    with_scratch(|canonical| {
        write(canonical)?;
        match stored {
            AttributeValue::S(s) if s == canonical => Ok(()),
            _ => Err(key_mismatch(entity, attribute, template, stored, canonical)),
        }
    })
}

/// True when a key attribute's stored value (`None`: absent) is absent or is exactly the key
/// `write` appends (to an empty string; an encoding error is `false`): [`check_key`] without
/// the error, for index keys, which may be spelled otherwise.
pub(crate) fn is_canonical(
    stored: Option<&AttributeValue>,
    write: impl FnOnce(&mut String) -> Result<()>,
) -> bool {
    match stored {
        None => true,
        Some(AttributeValue::S(stored)) => {
            with_scratch(|canonical| write(canonical).is_ok() && stored == canonical)
        }
        Some(_) => false,
    }
}

/// `f` on an empty reused per-thread string: keys compared without an allocation.
fn with_scratch<R>(f: impl FnOnce(&mut String) -> R) -> R {
    thread_local! {
        static SCRATCH: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    SCRATCH.with(|cell| {
        // A `KeyPart` impl decoding an entity while encoding (unheard of, but possible) finds
        // the buffer taken and uses its own.
        let mut own = String::new();
        let mut shared = cell.try_borrow_mut();
        let buf = match &mut shared {
            Ok(buf) => &mut **buf,
            Err(_) => &mut own,
        };
        buf.clear();
        f(buf)
    })
}

#[cold]
fn key_mismatch(
    entity: &'static str,
    attribute: &str,
    template: &Template,
    stored: &AttributeValue,
    canonical: &str,
) -> Error {
    let (stored, field) = match stored {
        AttributeValue::S(s) => {
            let field = template
                .split(s)
                .zip(template.split(canonical))
                .and_then(|(a, b)| {
                    let differs = a.iter().zip(&b).position(|(x, y)| x != y)?;
                    template.fields().nth(differs)
                });
            (s.clone(), field)
        }
        other => (describe(other), None),
    };
    Error::KeyMismatch {
        entity,
        attribute: attribute.to_owned(),
        field,
        stored,
        canonical: canonical.to_owned(),
    }
}

/// Decodes an item whose primary key is another spelling of the key its fields are written to
/// (an [`Error::KeyMismatch`] for [`Entity::from_item`]) as if it were stored at that key: for
/// a migration that moves such items, written by other clients or by an earlier dyno, to their
/// canonical keys. Write the value (`put`), then delete the key it was read from; a write
/// without that delete leaves two items. Other decode errors are returned as they are.
///
/// ```
/// use dyno_core::entity::recover::decode_rekeyed;
/// use dyno_core::{AttributeValue, Entity, Error, Item, KeyPart, Table};
///
/// #[derive(Table)]
/// #[dyno(name = "T", pk = "PK", sk = "SK")]
/// struct T;
///
/// #[derive(Debug, PartialEq, Entity)]
/// #[dyno(table = T, pk = "USER#{user_id}", sk = "PROFILE")]
/// struct User {
///     user_id: u64,
/// }
///
/// // Written padded by an earlier dyno; `User` writes `USER#7`.
/// let item = Item::from([
///     ("PK".to_owned(), AttributeValue::S("USER#00000000000000000007".into())),
///     ("SK".to_owned(), AttributeValue::S("PROFILE".into())),
/// ]);
/// assert!(matches!(User::from_item(&item), Err(Error::KeyMismatch { .. })));
/// let user: User = decode_rekeyed(&item)?;
/// assert_eq!(user.key()?.get("PK"), Some(&AttributeValue::S("USER#7".into())));
/// # Ok::<(), dyno_core::Error>(())
/// ```
pub fn decode_rekeyed<E: Entity>(item: &Item) -> Result<E> {
    let mut moved: Option<Item> = None;
    // One replacement per key attribute at most: the partition key, then the sort key.
    for _ in 0..2 {
        match E::from_item(moved.as_ref().unwrap_or(item)) {
            Err(Error::KeyMismatch {
                attribute,
                canonical,
                ..
            }) => {
                moved
                    .get_or_insert_with(|| item.clone())
                    .insert(attribute, AttributeValue::S(canonical));
            }
            other => return other,
        }
    }
    E::from_item(moved.as_ref().unwrap_or(item))
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
