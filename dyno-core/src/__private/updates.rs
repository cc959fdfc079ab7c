//! What the derive's typed update builders call to rebuild an index key from its fields.

use crate::entity::Entity;
use crate::error::Result;
use crate::ops::UpdateBuilder;
use crate::value::AttributeValue;

/// How an index-key helper treats one field of the key it rebuilds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyField {
    /// The update writes the field (`set_<field>`).
    Write,
    /// The update writes the field where the item has none (a created-at stamp, stamped).
    IfAbsent,
    /// The value rebuilds the key only: a condition, not a write
    /// ([`UpdateBuilder::given_value`]).
    Given,
}

impl KeyField {
    /// Whether an index-key helper called with `modes` writes the keys where absent only: when
    /// every field is [`KeyField::IfAbsent`] (one closure here rather than one per helper).
    pub fn all_if_absent(modes: &[KeyField]) -> bool {
        modes.iter().all(|m| *m == KeyField::IfAbsent)
    }
}

/// Field `field` (attribute `name`) of an index key the update rebuilds (`rebuilds`: the key
/// attributes), as `mode` says.
pub fn rebuild_key_field<E: Entity>(
    update: &mut UpdateBuilder<E>,
    mode: KeyField,
    field: &'static str,
    name: &str,
    value: Result<Option<AttributeValue>>,
    rebuilds: &[&str],
) {
    match mode {
        KeyField::Write => update.set_value(name, value),
        KeyField::IfAbsent => update.set_if_absent_value(name, value),
        KeyField::Given => update.given_value(field, name, value, &rebuilds.join(" and ")),
    }
}

/// The end of an index-key helper: the key attributes `keys` (encoded from the group's values)
/// and the removal of `removes` (keys of a sparse index whose optional field is `None`), where
/// absent when every mode is [`KeyField::IfAbsent`].
pub fn set_index_keys<E: Entity>(
    update: &mut UpdateBuilder<E>,
    keys: crate::value::Item,
    removes: &[&str],
    modes: &[KeyField],
) -> Result<()> {
    update.set_index_keys(keys, removes, KeyField::all_if_absent(modes));
    Ok(())
}

/// With an upsert, a primary-key field (attribute `name`), `recovered` from the update's key
/// ([`super::Recover`]; first, so that it is read before the update is borrowed), written where
/// absent.
pub fn upsert_primary_field<E: Entity, T: crate::value::ToAttribute>(
    recovered: Result<Option<T>>,
    update: &mut UpdateBuilder<E>,
    name: &str,
) {
    update.set_if_absent_value(name, super::recovered_attr(recovered));
}

/// Whether a field of type `T` decodes from an absent attribute (a list, a set): as a `fn`
/// pointer, one per field type, for [`required_fields`].
pub fn decodes_absent<T: crate::value::FromAttribute>() -> bool {
    T::from_missing().is_ok()
}

/// [`decodes_absent`] for a field that always needs its attribute (serde, TTL).
pub fn never() -> bool {
    false
}

/// A field an upsert may have to write: its attribute, its name, and whether its type decodes
/// from an absent attribute ([`decodes_absent`], [`never`]).
pub type UpsertField = (&'static str, &'static str, fn() -> bool);

/// The fields (`(attribute, field)`) of `fields` that do not decode from an absent attribute:
/// what an upsert must write ([`UpdateBuilder::require_fields`]).
pub fn required_fields(fields: &[UpsertField]) -> Vec<(&'static str, &'static str)> {
    fields
        .iter()
        .filter(|(_, _, decodes_absent)| !decodes_absent())
        .map(|&(a, f, _)| (a, f))
        .collect()
}
