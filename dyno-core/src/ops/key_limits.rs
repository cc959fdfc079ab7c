//! DynamoDB's limits on keys, checked before anything is sent: the size of partition and sort
//! key values (the table's and every index key an item carries), the parts of multi-attribute
//! index keys, and the nesting depth of a whole item. Errors name the entity, the key attribute
//! and the fields it is made of.

use super::entity_rules::EntityShape;
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::value::{AttributeValue, Item};

/// DynamoDB's limit on a partition key value, in bytes.
pub(crate) const MAX_PARTITION_KEY_BYTES: usize = 2048;
/// DynamoDB's limit on a sort key value, in bytes.
pub(crate) const MAX_SORT_KEY_BYTES: usize = 1024;

/// An item's attribute values by name (an item, a key, or the values an update sets).
pub(crate) type ValueOf<'a, 'v> = &'a dyn Fn(&str) -> Option<&'v AttributeValue>;

/// Refuses a key (or an item's key) whose partition or sort key value is over DynamoDB's limits
/// (2,048 and 1,024 bytes), naming the entity and the fields the key is made of, before anything
/// is sent. The index keys an item carries are checked too (DynamoDB applies the same limits to
/// them and refuses the whole write).
///
/// The key attributes of the entity's multi-attribute indexes are checked part by part
/// ([`check_mapped_index_parts_of`]), and the item's nesting depth (DynamoDB's 32 levels) too: what
/// every typed write of a whole item (put, create, replace, batch put, transaction put) sends.
/// Compiled once: the entity is `shape`, not a type parameter.
pub(crate) fn check_item_keys(shape: &EntityShape, item: &Item) -> Result<()> {
    let value_of = |name: &str| item.get(name);
    check_key_attributes_of(shape, &value_of, KeysChecked::TableAndIndexes)?;
    check_mapped_index_parts_of(shape, &value_of)?;
    crate::value::check_nesting(item, Some(shape.entity))
}

/// Checks the attributes of `E`'s multi-attribute index keys (`index(ByStatus, pk = [tenant,
/// status], ..)`) that `value_of` gives, as template keys are checked: a string or binary part
/// may not be empty (DynamoDB refuses the write; a query with an empty partition part would
/// answer nothing), and each part keeps to DynamoDB's key limits (2,048 bytes for a partition
/// attribute, 1,024 for a sort attribute). DynamoDB documents no limit on a whole
/// multi-attribute key beyond its parts' (and the item's 400 KB). The error names the entity, the
/// index and the attribute, before anything is sent.
pub(crate) fn check_mapped_index_parts_of(
    shape: &EntityShape,
    value_of: ValueOf<'_, '_>,
) -> Result<()> {
    if shape.mapped_indexes.is_empty() {
        return Ok(());
    }
    for index in shape.mapped_indexes {
        let Some(index) = shape.def.index(index) else {
            continue;
        };
        let parts = index
            .partition_keys()
            .map(|a| (a, true))
            .chain(index.sort_keys().map(|a| (a, false)));
        for (attribute, partition) in parts {
            if let Some(value) = value_of(attribute.name.as_str()) {
                check_index_part(shape.entity, &index.name, &attribute.name, value, partition)?;
            }
        }
    }
    Ok(())
}

/// One attribute of a multi-attribute index key of `entity` (see
/// [`check_mapped_index_parts_of`]): `partition` says which half of the key it is in.
pub(crate) fn check_index_part(
    entity: &'static str,
    index: &str,
    attribute: &str,
    value: &AttributeValue,
    partition: bool,
) -> Result<()> {
    let (which, limit) = if partition {
        ("partition", MAX_PARTITION_KEY_BYTES)
    } else {
        ("sort", MAX_SORT_KEY_BYTES)
    };
    let size = match value {
        AttributeValue::S(v) => v.len(),
        AttributeValue::B(v) => v.as_ref().len(),
        _ => return Ok(()),
    };
    if size == 0 {
        return Err(Error::key(
            Some(entity),
            format!(
                "{which} key attribute `{attribute}` of index {index} is empty: DynamoDB refuses \
                 an empty key value (a write fails, a query finds nothing); nothing was sent. \
                 Give the field a value, or make it an `Option` left `None` to keep the item out \
                 of the index"
            ),
        ));
    }
    if size > limit {
        return Err(Error::key(
            Some(entity),
            format!(
                "{which} key attribute `{attribute}` of index {index} is {size} bytes, over \
                 DynamoDB's limit of {limit} bytes for each {which} key attribute; nothing was \
                 sent"
            ),
        ));
    }
    Ok(())
}

/// Which of `E`'s key attributes [`check_key_attributes_of`] checks.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeysChecked {
    /// The table's: all a key carries (a get, update, delete or condition check).
    Table,
    /// The table's, then each index key of `E`: what a write of attributes carries.
    TableAndIndexes,
}

/// [`check_item_keys`] on the key attributes `value_of` gives (an item's, a key's, or the values
/// an update sets), those `which` says.
pub(crate) fn check_key_attributes_of(
    shape: &EntityShape,
    value_of: ValueOf<'_, '_>,
    which: KeysChecked,
) -> Result<()> {
    let def = shape.def;
    let table_keys = [
        (
            Some(&def.partition_key),
            Some(&shape.pk),
            "partition",
            MAX_PARTITION_KEY_BYTES,
            None,
        ),
        (
            def.sort_key.as_ref(),
            shape.sk.as_ref(),
            "sort",
            MAX_SORT_KEY_BYTES,
            None,
        ),
    ];
    let indexes = match which {
        KeysChecked::Table => &[][..],
        KeysChecked::TableAndIndexes => shape.indexes,
    };
    let index_keys = indexes.iter().flat_map(|t| {
        let index = def
            .global_indexes
            .iter()
            .chain(&def.local_indexes)
            .find(|i| i.name == t.index);
        let local = def.local_indexes.iter().any(|i| i.name == t.index);
        [
            // A local index's partition key is the table's, checked above.
            (
                index.filter(|_| !local).map(|i| &i.partition_key),
                Some(&t.pk),
                "partition",
                MAX_PARTITION_KEY_BYTES,
                Some(t.index),
            ),
            (
                index.and_then(|i| i.sort_key.as_ref()),
                t.sk.as_ref(),
                "sort",
                MAX_SORT_KEY_BYTES,
                Some(t.index),
            ),
        ]
    });
    for (attribute, template, which, limit, index) in table_keys.into_iter().chain(index_keys) {
        let Some(attribute) = attribute else { continue };
        let Some(value) = value_of(attribute.name.as_str()) else {
            continue;
        };
        let size = crate::value::attribute_size(value);
        if size > limit {
            let fields: Vec<String> = template
                .iter()
                .flat_map(|t| t.fields())
                .map(|f| format!("`{f}`"))
                .collect();
            return Err(Error::key(
                Some(shape.entity),
                format!(
                    "{which} key {}{} (from field{} {}) is {size} bytes, over DynamoDB's limit of \
                     {limit} bytes",
                    attribute.name,
                    index.map(|i| format!(" of index {i}")).unwrap_or_default(),
                    if fields.len() == 1 { "" } else { "s" },
                    fields.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// The attributes of `key`, or the error that kept it from being built, or a key over
/// DynamoDB's size limits (its table key attributes, as [`check_item_keys`] checks them): what
/// every typed operation sends.
pub(crate) fn key_item<E: Entity>(key: super::Key<E>) -> Result<Item> {
    let item = key.try_into_item()?;
    check_table_key::<E>(&item)?;
    Ok(item)
}

/// [`key_item`], borrowed.
pub(crate) fn key_ref<E: Entity>(key: &super::Key<E>) -> Result<&Item> {
    let item = key.try_as_item()?;
    check_table_key::<E>(item)?;
    Ok(item)
}

/// [`check_item_keys`] of a key: its table key attributes, all a key carries (an entity's index
/// keys are attributes of their own, written from its index templates), so no index key is
/// looked for in it.
#[inline]
fn check_table_key<E: Entity>(key: &Item) -> Result<()> {
    check_table_key_of(&EntityShape::of::<E>(), key)
}

/// [`check_table_key`], compiled once.
fn check_table_key_of(shape: &EntityShape, key: &Item) -> Result<()> {
    check_key_attributes_of(shape, &|name| key.get(name), KeysChecked::Table)
}
