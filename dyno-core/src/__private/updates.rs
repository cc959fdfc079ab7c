//! What the derive's typed update builders call to rebuild an index key from its fields.

use crate::entity::Entity;
use crate::error::Result;
use crate::ops::IndexKeyNeed;
use crate::ops::UpdateBuilder;
use crate::value::{AttributeValue, FromAttribute};

use super::{KeySource, RecoverAttrFn};

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

/// Calls the index-key helper of a single-field group with `value` seen as a `&T`: the helper
/// is then an ordinary function of the user's crate, compiled once, and no setter of the group
/// needs a closure of its own.
#[inline]
pub fn with_key_value<U, T>(
    update: &mut U,
    modes: [KeyField; 1],
    value: impl crate::expr::typed::FieldValue<T>,
    helper: fn(&mut U, [KeyField; 1], &T) -> Result<()>,
) -> Result<()> {
    value.with_value(|v| helper(update, modes, v))
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

/// What a derived `prepare_upsert` declares, as data read by [`prepare_upsert`] (compiled once
/// per entity as a short loop, rather than as code per field).
#[derive(Debug)]
pub struct UpsertPlan<'a> {
    /// The entity's type name, for errors.
    pub entity: &'static str,
    /// The entity's key attributes and templates, to read primary-key fields back from the key.
    pub sources: &'static [KeySource],
    /// The index keys only the update can give ([`UpdateBuilder::require_index_keys`]).
    pub needs: &'static [IndexKeyNeed],
    /// The primary-key fields (attribute, field, how it is read back from the key): written
    /// where absent, so that a created item holds them.
    pub primary: &'a [(&'static str, &'static str, RecoverAttrFn)],
    /// The fields an item the upsert creates needs ([`required_fields`]).
    pub fields: &'a [UpsertField],
}

/// A derived `prepare_upsert`: the update `plan` describes, on an upsert (see
/// [`UpdateBuilder::upsert`]). In place: the builder is large, and moving it in and out of a
/// call is code per entity.
pub fn prepare_upsert<E: Entity>(update: &mut UpdateBuilder<E>, plan: &UpsertPlan<'_>) {
    update.require_index_keys(plan.needs);
    for &(attribute, field, recover) in plan.primary {
        let value = recover(update.key(), plan.entity, field, plan.sources);
        update.set_if_absent_value(attribute, value);
    }
    update.require_fields(required_fields(plan.fields));
}

/// Whether a field of type `T` decodes from an absent attribute (a list, a set): as a `fn`
/// pointer, one per field type, for [`required_fields`].
pub fn decodes_absent<T: FromAttribute>() -> bool {
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
