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
