//! Encoding key fields into key attributes and recovering them from keys.
//!
//! The encoders and decoders are reached through autoref specialization
//! (`(&Part(&v)).encode_part()`): when a field's type has no `KeyPart`, the fallback impl is
//! picked, so the only compile error is the one `assert_key_part` spans on the field's type.

pub use crate::entity::recover::KeySource;
use crate::error::{Error, Result};
use crate::key::{KeyFormat, KeyPart, Template, DELIMITER};
use crate::ops::sort_key::SegmentFn;
use crate::value::{AttributeValue, FromAttribute, Item, ToAttribute};

/// A key field's value, to encode as one key segment.
#[derive(Debug)]
pub struct Part<'a, T>(pub &'a T);

/// Encoding of a [`Part`] whose type has `KeyPart`.
pub trait EncodePart {
    /// The value as one key segment in `format`.
    fn encode_part(&self, format: KeyFormat) -> Result<String>;
    /// The value as a key-segment prefix in `format` (`begins_with` on a partial value).
    fn encode_part_prefix(&self, format: KeyFormat) -> Result<String>;
    /// [`EncodePart::encode_part_prefix`] when `prefix`, else [`EncodePart::encode_part`].
    fn encode_segment(&self, format: KeyFormat, prefix: bool) -> Result<String> {
        if prefix {
            self.encode_part_prefix(format)
        } else {
            self.encode_part(format)
        }
    }
    /// Appends the value's segment in `format` to `out`, the key being built from `template`:
    /// the appended segment must be non-empty and free of the delimiter. Errors name the entity
    /// and field.
    fn write_part(
        &self,
        out: &mut String,
        format: KeyFormat,
        template: &Template,
        entity: &'static str,
        field: &'static str,
    ) -> Result<()>;
}

impl<T: KeyPart> EncodePart for Part<'_, T> {
    fn encode_part(&self, format: KeyFormat) -> Result<String> {
        let mut out = String::new();
        self.0.encode_as(format, &mut out)?;
        Ok(out)
    }
    fn encode_part_prefix(&self, format: KeyFormat) -> Result<String> {
        let mut out = String::new();
        self.0.encode_prefix_as(format, &mut out)?;
        Ok(out)
    }
    #[inline]
    fn write_part(
        &self,
        out: &mut String,
        format: KeyFormat,
        template: &Template,
        entity: &'static str,
        field: &'static str,
    ) -> Result<()> {
        let start = out.len();
        match self.0.encode_as(format, out) {
            Ok(()) => check_segment(&out[start..], template, entity, field),
            Err(e) => Err(e.in_key_field(entity, field)),
        }
    }
}

/// Fallback when the type has no `KeyPart`; only reached in code that does not compile anyway.
pub trait EncodePartFallback {
    /// Always an error.
    fn encode_part(&self, _format: KeyFormat) -> Result<String> {
        Err(Error::key(None, "type has no KeyPart impl"))
    }
    /// Always an error.
    fn encode_part_prefix(&self, _format: KeyFormat) -> Result<String> {
        Err(Error::key(None, "type has no KeyPart impl"))
    }
    /// Always an error.
    fn encode_segment(&self, _format: KeyFormat, _prefix: bool) -> Result<String> {
        Err(Error::key(None, "type has no KeyPart impl"))
    }
    /// Always an error.
    fn write_part(
        &self,
        _out: &mut String,
        _format: KeyFormat,
        _template: &Template,
        entity: &'static str,
        field: &'static str,
    ) -> Result<()> {
        Err(Error::key(None, "type has no KeyPart impl").in_key_field(entity, field))
    }
}

impl<T> EncodePartFallback for &Part<'_, T> {}

/// The length a key segment of a [`Part`] likely has, to size the key string once: exact for
/// strings without `#` or `%`.
pub trait PartLen {
    /// Bytes the segment likely takes.
    fn len_hint(&self) -> usize;
}

impl PartLen for Part<'_, String> {
    #[inline]
    fn len_hint(&self) -> usize {
        self.0.len()
    }
}

/// [`PartLen`] for other types: room for a number, date or timestamp.
pub trait PartLenFallback {
    /// Bytes the segment likely takes.
    #[inline]
    fn len_hint(&self) -> usize {
        24
    }
}

impl<T> PartLenFallback for &Part<'_, T> {}

/// Refuses an empty segment or one holding the delimiter (a `KeyPart` impl breaking its
/// contract would make the key ambiguous), as `Template::encode` does.
#[inline]
fn check_segment(
    segment: &str,
    template: &Template,
    entity: &'static str,
    field: &'static str,
) -> Result<()> {
    if segment.is_empty() || segment.as_bytes().contains(&(DELIMITER as u8)) {
        return Err(bad_segment(segment, template, entity, field));
    }
    Ok(())
}

#[cold]
fn bad_segment(segment: &str, template: &Template, entity: &'static str, field: &str) -> Error {
    Error::key(
        None,
        format!(
            "template {template}: encoded as {segment:?}, which is empty or contains the \
             delimiter '{DELIMITER}'"
        ),
    )
    .in_key_field(entity, field)
}

/// A key field's type: to decode it from a key segment ([`RecoverKey::recover`]), or to encode
/// a sort-key condition value as one ([`RecoverKey::segment_fn`]).
#[derive(Debug)]
pub struct Recover<T>(std::marker::PhantomData<fn() -> T>);

impl<T> Recover<T> {
    /// The codec for `T`.
    pub const fn new() -> Self {
        Recover(std::marker::PhantomData)
    }
}

impl<T> Default for Recover<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// How a key field of type `T` is read back from an item's key attributes (see
/// [`RecoverKey::recover`]): a `fn` pointer, so a derived `from_item` passes one per field type
/// rather than a closure per field.
pub type RecoverFn<T> = fn(&Item, &'static str, &str, &[KeySource]) -> Result<Option<T>>;

/// How a key field is read back from an item's key attributes as its attribute value (see
/// [`RecoverKey::recover`] and [`recovered_attr`]), for an upsert writing it where absent.
pub type RecoverAttrFn =
    fn(&Item, &'static str, &str, &[KeySource]) -> Result<Option<AttributeValue>>;

/// Decoding from keys for types with `KeyPart`.
pub trait RecoverKey<T> {
    /// [`Self::recover`] as a [`RecoverFn`].
    fn recover_fn(&self) -> RecoverFn<T>;

    /// [`Self::recover`] then [`recovered_attr`], as a [`RecoverAttrFn`].
    fn recover_attr_fn(&self) -> RecoverAttrFn
    where
        T: ToAttribute;

    /// `T`'s encoder of sort-key condition values, as a [`SegmentFn`].
    fn segment_fn(&self) -> SegmentFn<T>;

    /// The field's value read from the first key attribute whose template holds it; `None` when
    /// no such attribute is present.
    fn recover(
        &self,
        item: &Item,
        entity: &'static str,
        field: &str,
        sources: &[KeySource],
    ) -> Result<Option<T>>;
}

impl<T: KeyPart> RecoverKey<T> for Recover<T> {
    fn recover_fn(&self) -> RecoverFn<T> {
        crate::entity::recover::recover_field::<T>
    }

    fn segment_fn(&self) -> SegmentFn<T> {
        |v, format, prefix| Part(v).encode_segment(format, prefix)
    }

    fn recover_attr_fn(&self) -> RecoverAttrFn
    where
        T: ToAttribute,
    {
        |item, entity, field, sources| {
            recovered_attr(crate::entity::recover::recover_field::<T>(
                item, entity, field, sources,
            ))
        }
    }

    fn recover(
        &self,
        item: &Item,
        entity: &'static str,
        field: &str,
        sources: &[KeySource],
    ) -> Result<Option<T>> {
        crate::entity::recover::recover_field(item, entity, field, sources)
    }
}

/// Fallback for types without `KeyPart` (non-key fields of a projection): nothing to recover.
pub trait RecoverNone<T> {
    /// [`Self::recover`] as a [`RecoverFn`].
    fn recover_fn(&self) -> RecoverFn<T> {
        |_, _, _, _| Ok(None)
    }

    /// [`Self::recover`] as a [`RecoverAttrFn`].
    fn recover_attr_fn(&self) -> RecoverAttrFn {
        |_, _, _, _| Ok(None)
    }

    /// Always an error: only code that does not compile anyway reaches it (a sort-key field's
    /// type without `KeyPart` is the error `assert_key_part` reports).
    fn segment_fn(&self) -> SegmentFn<T> {
        |_, _, _| Err(Error::key(None, "type has no KeyPart impl"))
    }

    /// Always `None`.
    fn recover(
        &self,
        _item: &Item,
        _entity: &'static str,
        _field: &str,
        _sources: &[KeySource],
    ) -> Result<Option<T>> {
        Ok(None)
    }
}

impl<T> RecoverNone<T> for &Recover<T> {}

/// Decodes a key field: from its own attribute when present (items dyno writes), otherwise from
/// the key attributes (items written by other clients in the conventional format). When both
/// are present they must agree ([`crate::entity::recover::agree`]).
pub fn key_field<T: FromAttribute + ToAttribute>(
    item: &Item,
    entity: &'static str,
    attribute: &str,
    recover: impl FnOnce() -> Result<Option<T>>,
) -> Result<T> {
    let mut recover = Some(recover);
    key_field_in(
        item.get(attribute),
        entity,
        attribute,
        &mut || match recover.take() {
            Some(f) => f(),
            None => Ok(None),
        },
    )
}

/// [`key_field`] on the attribute's value, already looked up (`None`: absent); `recover` is
/// called once. It is a `dyn` closure, so the function is compiled once per field type rather
/// than once per field (each call site's closure is a type of its own).
pub fn key_field_in<T: FromAttribute + ToAttribute>(
    value: Option<&AttributeValue>,
    entity: &'static str,
    attribute: &str,
    recover: &mut dyn FnMut() -> Result<Option<T>>,
) -> Result<T> {
    let recovered = recover()?;
    if let Some(v) = value {
        let v = T::from_attribute(v).map_err(|e| e.at(entity, attribute))?;
        return crate::entity::recover::agree(v, recovered, entity, attribute);
    }
    match recovered {
        Some(v) => Ok(v),
        None => T::from_missing().map_err(|_| Error::Decode {
            entity: Some(entity),
            attribute: Some(attribute.to_owned()),
            expected: format!("attribute {attribute}, or a key attribute holding it"),
            found: "neither".into(),
            source: None,
        }),
    }
}

/// [`key_field_in`] for a derived `from_item`: `recover` reads field `field` from `item`'s
/// key attributes (`sources`), when needed.
pub fn key_field_at<T: FromAttribute + ToAttribute>(
    value: Option<&AttributeValue>,
    item: &Item,
    entity: &'static str,
    field: &str,
    attribute: &str,
    sources: &[KeySource],
    recover: RecoverFn<T>,
) -> Result<T> {
    key_field_in(value, entity, attribute, &mut || {
        recover(item, entity, field, sources)
    })
}

/// Decodes a key field from its attribute's value, already looked up (`None`: absent), else
/// from the key, for a field whose key [`super::at_stored_key`] compares whole: the primary key,
/// or an index key all of whose fields are required. An attribute that is present is not
/// compared with the key here, as [`key_field_in`] does (parsing the key, then comparing values
/// through their attribute encodings): `at_stored_key` compares the stored key with the key the
/// decoded fields encode to, one key encoding for all the fields in it. Only when that differs
/// is the item decoded again with [`key_field_in`]'s comparison, which tells a disagreeing
/// attribute (`Error::Decode` naming both values) from another spelling of the key (refused as
/// `Error::KeyMismatch` in the primary key, accepted in an index key).
///
/// `recover` reads field `field` from `item`'s key attributes (`sources`), when needed.
pub fn key_field_attr_at<T: FromAttribute + ToAttribute>(
    value: Option<&AttributeValue>,
    item: &Item,
    entity: &'static str,
    field: &str,
    attribute: &str,
    sources: &[KeySource],
    recover: RecoverFn<T>,
) -> Result<T> {
    match value {
        Some(v) if !super::rechecking() => {
            T::from_attribute(v).map_err(|e| e.at(entity, attribute))
        }
        _ => key_field_at(value, item, entity, field, attribute, sources, recover),
    }
}

/// Decodes an optional key field (sparse index) from its attribute's value, already looked up
/// (`None`: absent), else the index key (`recover` reads field `field` from `item`'s key
/// attributes, `sources`), else `None`.
pub fn key_field_opt_at<T: FromAttribute + ToAttribute>(
    value: Option<&AttributeValue>,
    item: &Item,
    entity: &'static str,
    field: &str,
    attribute: &str,
    sources: &[KeySource],
    recover: RecoverFn<T>,
) -> Result<Option<T>> {
    let recovered = recover(item, entity, field, sources)?;
    match value {
        Some(AttributeValue::Null(true)) | None => Ok(recovered),
        Some(v) => {
            let v = T::from_attribute(v).map_err(|e| e.at(entity, attribute))?;
            crate::entity::recover::agree(v, recovered, entity, attribute).map(Some)
        }
    }
}

/// Decodes a non-key field, with `Default` when the attribute is absent.
pub fn get_attr_or_default<T: FromAttribute + Default>(
    item: &Item,
    entity: &'static str,
    attribute: &str,
) -> Result<T> {
    attr_or_default_in(item.get(attribute), entity, attribute)
}

/// [`get_attr_or_default`] on the attribute's value, already looked up (`None`: absent).
#[inline]
pub fn attr_or_default_in<T: FromAttribute + Default>(
    value: Option<&AttributeValue>,
    entity: &'static str,
    attribute: &str,
) -> Result<T> {
    match value {
        Some(v) => T::from_attribute(v).map_err(|e| e.at(entity, attribute)),
        None => Ok(T::default()),
    }
}

/// A non-key field from its attribute's value, already looked up, or `default()` when the
/// attribute is absent (`#[dyno(default = path)]`).
#[inline]
pub fn attr_or_else_in<T: FromAttribute>(
    value: Option<&AttributeValue>,
    entity: &'static str,
    attribute: &str,
    default: impl FnOnce() -> T,
) -> Result<T> {
    match value {
        Some(v) => T::from_attribute(v).map_err(|e| e.at(entity, attribute)),
        None => Ok(default()),
    }
}

/// [`get_attr`](crate::value::get_attr) on the attribute's value, already looked up (`None`:
/// absent, which only `Option` fields accept).
#[inline]
pub fn attr_in<T: FromAttribute>(
    value: Option<&AttributeValue>,
    entity: &'static str,
    attribute: &str,
) -> Result<T> {
    match value {
        Some(v) => T::from_attribute(v),
        None => T::from_missing(),
    }
    .map_err(|e| e.at(entity, attribute))
}

/// The attribute value of a key field recovered from a key (`Recover`), for an upsert that
/// writes it where absent: `None` when the key does not hold it.
pub fn recovered_attr<T: crate::value::ToAttribute>(
    recovered: Result<Option<T>>,
) -> Result<Option<AttributeValue>> {
    Ok(recovered?.map(|v| v.to_attribute()).transpose()?.flatten())
}

/// A primary-key field of an update's key, as recovered from it (`Recover`): the value the
/// update's index keys are encoded from.
pub fn primary_field<T>(
    recovered: Result<Option<T>>,
    entity: &'static str,
    field: &str,
) -> Result<T> {
    recovered?.ok_or_else(|| {
        Error::key(
            Some(entity),
            format!("field `{field}` could not be read from the update's key"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::Segment;

    const PK: Template = Template::new(&[Segment::Literal("USER#"), Segment::Field("user_id")]);
    const DAY: Template = Template::new(&[Segment::Literal("DAY#"), Segment::Field("day")]);

    fn item(pairs: &[(&str, &str)]) -> Item {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), AttributeValue::S((*v).to_owned())))
            .collect()
    }

    #[test]
    fn recovers_fields_from_keys_and_shards() {
        let sources = [
            KeySource {
                attribute: "PK",
                template: PK,
                shards: 0,
            },
            KeySource {
                attribute: "GSI2PK",
                template: DAY,
                shards: 8,
            },
        ];
        let it = item(&[("PK", "USER#a%23b"), ("GSI2PK", "DAY#2024-01-01#7")]);
        let user: Option<String> = Recover::<String>::new()
            .recover(&it, "User", "user_id", &sources)
            .unwrap();
        assert_eq!(user.as_deref(), Some("a#b"));
        let day: Option<String> = Recover::<String>::new()
            .recover(&it, "User", "day", &sources)
            .unwrap();
        assert_eq!(day.as_deref(), Some("2024-01-01"));
        let none: Option<String> = Recover::<String>::new()
            .recover(&Item::new(), "User", "user_id", &sources)
            .unwrap();
        assert!(none.is_none());
        let bad: Result<Option<u32>> =
            Recover::<u32>::new().recover(&item(&[("PK", "USER#x")]), "User", "user_id", &sources);
        let err = bad.unwrap_err().to_string();
        assert!(err.contains("User.PK") && err.contains("user_id"), "{err}");
    }

    #[test]
    fn key_field_prefers_the_attribute() {
        let sources = [KeySource {
            attribute: "PK",
            template: PK,
            shards: 0,
        }];
        let it = item(&[("PK", "USER#1"), ("user_id", "1")]);
        let v: String = key_field(&it, "User", "user_id", || {
            Recover::<String>::new().recover(&it, "User", "user_id", &sources)
        })
        .unwrap();
        assert_eq!(v, "1");
        let err = key_field::<String>(&Item::new(), "User", "user_id", || Ok(None))
            .unwrap_err()
            .to_string();
        assert!(err.contains("User.user_id"), "{err}");
    }

    /// A `KeyPart` breaking its contract: its segment holds the delimiter, or is empty.
    struct Raw(&'static str);

    impl KeyPart for Raw {
        fn encode_key(&self, out: &mut String) -> Result<()> {
            out.push_str(self.0);
            Ok(())
        }
        fn decode_key(_: &str) -> Result<Self> {
            Err(Error::key(None, "not decodable"))
        }
    }

    #[test]
    fn write_part_appends_and_checks_the_segment() {
        let mut key = String::from("USER#");
        Part(&"a#b".to_owned())
            .write_part(&mut key, KeyFormat::Plain, &PK, "User", "user_id")
            .unwrap();
        assert_eq!(key, "USER#a%23b");
        assert_eq!(Part(&"abc".to_owned()).len_hint(), 3);
        assert_eq!((&Part(&7u32)).len_hint(), 24);

        let err = Part(&Raw("x#y"))
            .write_part(
                &mut String::from("USER#"),
                KeyFormat::Plain,
                &PK,
                "User",
                "user_id",
            )
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("User") && err.contains("user_id") && err.contains("\"x#y\""),
            "{err}"
        );
        let err = Part(&Raw(""))
            .write_part(
                &mut String::from("USER#"),
                KeyFormat::Plain,
                &PK,
                "User",
                "user_id",
            )
            .unwrap_err()
            .to_string();
        assert!(err.contains("empty") && err.contains("user_id"), "{err}");
        // The type's own refusal is kept, with the entity and field added.
        let err = Part(&String::new())
            .write_part(&mut String::new(), KeyFormat::Plain, &PK, "User", "user_id")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("key value is empty") && err.contains("user_id"),
            "{err}"
        );
    }

    #[test]
    fn decoders_on_looked_up_values() {
        let s = AttributeValue::S("x".into());
        assert_eq!(attr_in::<String>(Some(&s), "E", "a").unwrap(), "x");
        assert_eq!(attr_in::<Option<String>>(None, "E", "a").unwrap(), None);
        let err = attr_in::<String>(None, "E", "a").unwrap_err().to_string();
        assert!(err.contains("E.a"), "{err}");
        let err = attr_in::<u32>(Some(&s), "E", "a").unwrap_err().to_string();
        assert!(err.contains("E.a"), "{err}");
        assert_eq!(attr_or_default_in::<u32>(None, "E", "a").unwrap(), 0);
        // `recover` stands for the key attributes holding `k`.
        let k: RecoverFn<String> = |_, _, _, _| Ok(Some("k".into()));
        let item = Item::new();
        let opt = |v: Option<&AttributeValue>| key_field_opt_at(v, &item, "E", "a", "a", &[], k);
        assert_eq!(
            opt(Some(&AttributeValue::Null(true))).unwrap().as_deref(),
            Some("k")
        );
        // The attribute and the key agree, or the key does not hold the field: the attribute.
        assert_eq!(
            key_field_in::<String>(Some(&s), "E", "a", &mut || Ok(Some("x".into()))).unwrap(),
            "x"
        );
        assert_eq!(
            key_field_in::<String>(Some(&s), "E", "a", &mut || Ok(None)).unwrap(),
            "x"
        );
        // They disagree: an error naming both (the key is the source of truth).
        let err = key_field_in::<String>(Some(&s), "E", "a", &mut || Ok(Some("k".into())))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("E.a") && err.contains("\"x\"") && err.contains("\"k\""),
            "{err}"
        );
        let err = opt(Some(&s)).unwrap_err().to_string();
        assert!(err.contains("E.a"), "{err}");
    }
}
