//! Helpers shared by the typed operations: table lookup, TTL, size and version checks.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::expr::{Comparator, Condition, Operand, Path};
use crate::store::{GetRequest, Store};
use crate::table::{Table, TableDef};
use crate::value::{AttributeValue, Item};

/// The definition of `E`'s table.
pub(crate) fn table_def<E: Entity>() -> &'static TableDef {
    <E::Table as Table>::definition()
}

/// The name of `E`'s table.
pub(crate) fn table_name<E: Entity>() -> String {
    table_def::<E>().name.clone()
}

/// `E`'s TTL attribute, falling back to its table's.
pub(crate) fn ttl_attribute<E: Entity>() -> Option<&'static str> {
    E::TTL_ATTRIBUTE.or_else(|| table_def::<E>().ttl_attribute.as_deref())
}

/// Seconds since the Unix epoch, now.
pub(crate) fn now_epoch_seconds() -> i64 {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        Err(_) => 0,
    }
}

/// True when `item` should be hidden from a typed read of items with TTL attribute `ttl`.
pub(crate) fn hidden(item: &Item, ttl: Option<&str>) -> bool {
    ttl.is_some_and(|t| crate::ttl::is_expired(item, t))
}

/// [`hidden`] for the items of one page: the clock is read once for the page (when there is a
/// TTL attribute), not once per item.
pub(crate) fn page_hider(ttl: Option<&str>) -> impl Fn(&Item) -> bool + '_ {
    let now = ttl.map(|_| crate::ttl::now());
    move |item| match (ttl, now) {
        (Some(t), Some(now)) => crate::ttl::is_expired_at(item, t, now),
        _ => false,
    }
}

/// The entity type of `item` when it belongs to another entity than `E`: its entity-type
/// attribute names another type. Items without the attribute (written by other clients in the
/// conventional format) belong to whoever reads them, as their key says.
pub(crate) fn foreign_type<E: Entity>(item: &Item) -> Option<&str> {
    match item.get(<E::Table as Table>::ENTITY_ATTRIBUTE) {
        Some(AttributeValue::S(t)) if t != E::ENTITY_TYPE => Some(t),
        _ => None,
    }
}

/// True when a typed read of `E` by key returns `item`: not expired, and not another entity's
/// (entities sharing a key shape, such as users and organizations at `ACCOUNT#{name}`). Another
/// entity's item reads as absent, counted in tracing (`dyno.foreign_item` events at debug level,
/// with the entity read and the type found).
pub(crate) fn readable<E: Entity>(item: &Item) -> bool {
    if hidden(item, ttl_attribute::<E>()) {
        return false;
    }
    if let Some(found) = foreign_type::<E>(item) {
        tracing::debug!(
            entity = E::ENTITY_TYPE,
            found,
            foreign_items = 1u64,
            "dyno.foreign_item: the item at the key belongs to another entity; read as absent"
        );
        return false;
    }
    true
}

/// The ownership condition of every typed write of `E` to an existing item: the item is `E`'s
/// (its entity-type attribute is `E`'s type) or has no entity-type attribute (absent items,
/// items written by other clients). Part of the write's own condition, so it is atomic.
pub(crate) fn owned_by<E: Entity>() -> Condition {
    let attribute = <E::Table as Table>::ENTITY_ATTRIBUTE;
    Condition::not_exists(attribute).or(Condition::Compare(
        Operand::Path(Path::attr(attribute)),
        Comparator::Eq,
        Operand::Value(AttributeValue::S(E::ENTITY_TYPE.to_owned())),
    ))
}

/// Turns a failed condition of a typed write of `E` at `key` into the error that says why, from
/// the item as it was: the item the error carries (`ReturnValuesOnConditionCheckFailure =
/// ALL_OLD`), or else a strongly consistent read made after the failure (the write itself
/// changed nothing either way; the read only names the cause). [`Error::WrongEntity`] when the
/// item belongs to another entity; else what `explain` makes of the item (`None`: absent), such
/// as [`Error::NotFound`] or [`Error::OutOfRange`]; else the condition failure itself. Other
/// errors pass through; the entity is filled in.
pub(crate) async fn condition_failure<E: Entity, S: Store + ?Sized>(
    store: &S,
    key: &Item,
    err: Error,
    explain: impl FnOnce(Option<&Item>) -> Option<Error>,
) -> Error {
    let Error::ConditionFailed { item, .. } = &err else {
        return err.for_entity(E::ENTITY_TYPE);
    };
    let read;
    let old = match item {
        Some(old) => Some(old),
        None => {
            let request = GetRequest::borrowed(&table_def::<E>().name, key).consistent();
            match store.get_item(request).await {
                Ok(out) => {
                    read = out.item;
                    read.as_deref()
                }
                // Unknown: the condition failure stands.
                Err(_) => return err.for_entity(E::ENTITY_TYPE),
            }
        }
    };
    if let Some(found) = old.and_then(foreign_type::<E>) {
        return Error::WrongEntity {
            entity: E::ENTITY_TYPE,
            found: found.to_owned(),
        };
    }
    match explain(old) {
        Some(e) => e,
        None => err.for_entity(E::ENTITY_TYPE),
    }
}

/// The result of a typed write of `E` at `key`, its error named: [`condition_failure`] (another
/// entity's item) and the entity filled in.
pub(crate) async fn write_result<E: Entity, S: Store + ?Sized, T>(
    store: &S,
    key: &Item,
    result: Result<T>,
) -> Result<T> {
    match result {
        Ok(v) => Ok(v),
        Err(e) => Err(condition_failure::<E, S>(store, key, e, |_| None).await),
    }
}

/// DynamoDB's limit on a partition key value, in bytes.
const MAX_PARTITION_KEY_BYTES: usize = 2048;
/// DynamoDB's limit on a sort key value, in bytes.
const MAX_SORT_KEY_BYTES: usize = 1024;

/// Refuses a key (or an item's key) whose partition or sort key value is over DynamoDB's limits
/// (2,048 and 1,024 bytes), naming the entity and the fields the key is made of, before anything
/// is sent. The index keys an item carries are checked too (DynamoDB applies the same limits to
/// them and refuses the whole write).
///
/// The key attributes of `E`'s multi-attribute indexes are checked part by part
/// ([`check_mapped_index_parts`]), and the item's nesting depth (DynamoDB's 32 levels) too: what
/// every typed write of a whole item (put, create, replace, batch put, transaction put) sends.
pub(crate) fn check_key_size<E: Entity>(item: &Item) -> Result<()> {
    check_key_attributes::<E>(|name| item.get(name), KeysChecked::TableAndIndexes)?;
    check_mapped_index_parts::<E>(|name| item.get(name))?;
    crate::value::check_nesting(item, Some(E::ENTITY_TYPE))
}

/// Checks the attributes of `E`'s multi-attribute index keys (`index(ByStatus, pk = [tenant,
/// status], ..)`) that `value_of` gives, as template keys are checked: a string or binary part
/// may not be empty (DynamoDB refuses the write; a query with an empty partition part would
/// answer nothing), and each part keeps to DynamoDB's key limits (2,048 bytes for a partition
/// attribute, 1,024 for a sort attribute). DynamoDB documents no limit on a whole
/// multi-attribute key beyond its parts' (and the item's 400 KB). The error names the entity, the
/// index and the attribute, before anything is sent.
pub(crate) fn check_mapped_index_parts<'v, E: Entity>(
    value_of: impl Fn(&str) -> Option<&'v AttributeValue>,
) -> Result<()> {
    if E::MAPPED_INDEXES.is_empty() {
        return Ok(());
    }
    let def = table_def::<E>();
    for index in E::MAPPED_INDEXES {
        let Some(index) = def.index(index) else {
            continue;
        };
        let parts = index
            .partition_keys()
            .map(|a| (a, true))
            .chain(index.sort_keys().map(|a| (a, false)));
        for (attribute, partition) in parts {
            if let Some(value) = value_of(attribute.name.as_str()) {
                check_index_part::<E>(&index.name, &attribute.name, value, partition)?;
            }
        }
    }
    Ok(())
}

/// One attribute of a multi-attribute index key (see [`check_mapped_index_parts`]): `partition`
/// says which half of the key it is in.
pub(crate) fn check_index_part<E: Entity>(
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
            Some(E::ENTITY_TYPE),
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
            Some(E::ENTITY_TYPE),
            format!(
                "{which} key attribute `{attribute}` of index {index} is {size} bytes, over \
                 DynamoDB's limit of {limit} bytes for each {which} key attribute; nothing was \
                 sent"
            ),
        ));
    }
    Ok(())
}

/// Which of `E`'s key attributes [`check_key_attributes`] checks.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeysChecked {
    /// The table's: all a key carries (a get, update, delete or condition check).
    Table,
    /// The table's, then each index key of `E`: what a write of attributes carries.
    TableAndIndexes,
}

/// [`check_key_size`] on the key attributes `value_of` gives (an item's, a key's, or the values
/// an update sets), those `which` says.
pub(crate) fn check_key_attributes<'v, E: Entity>(
    value_of: impl Fn(&str) -> Option<&'v AttributeValue>,
    which: KeysChecked,
) -> Result<()> {
    let def = table_def::<E>();
    let table_keys = [
        (
            Some(&def.partition_key),
            Some(E::PK),
            "partition",
            MAX_PARTITION_KEY_BYTES,
            None,
        ),
        (
            def.sort_key.as_ref(),
            E::SK,
            "sort",
            MAX_SORT_KEY_BYTES,
            None,
        ),
    ];
    let indexes = match which {
        KeysChecked::Table => &[][..],
        KeysChecked::TableAndIndexes => E::INDEXES,
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
                Some(t.pk),
                "partition",
                MAX_PARTITION_KEY_BYTES,
                Some(t.index),
            ),
            (
                index.and_then(|i| i.sort_key.as_ref()),
                t.sk,
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
                Some(E::ENTITY_TYPE),
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
/// DynamoDB's size limits (its table key attributes, as [`check_key_size`] checks them): what
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

/// [`check_key_size`] of a key: its table key attributes, all a key carries (an entity's index
/// keys are attributes of their own, written from its index templates), so no index key is
/// looked for in it.
fn check_table_key<E: Entity>(key: &Item) -> Result<()> {
    check_key_attributes::<E>(|name| key.get(name), KeysChecked::Table)
}

/// The version number as an attribute value.
pub(crate) fn number(v: u64) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

/// `version = v`; for `v = 0` ("no version seen"), the attribute is absent or 0.
pub(crate) fn version_is(attribute: &str, v: u64) -> Condition {
    let eq = Condition::Compare(
        Operand::Path(Path::attr(attribute)),
        Comparator::Eq,
        Operand::Value(number(v)),
    );
    if v == 0 {
        Condition::not_exists(attribute).or(eq)
    } else {
        eq
    }
}

/// `attribute_exists(PK)` for `E`'s table: the item exists.
pub(crate) fn item_exists<E: Entity>() -> Condition {
    Condition::exists(table_def::<E>().partition_key.name.as_str())
}

/// `attribute_not_exists(PK)` for `E`'s table: the item does not exist. For an entity with a
/// TTL attribute, `OR ttl < now` as well: an expired item reads as absent (DynamoDB deletes it
/// up to days late), so a put-if-absent (`create`) treats it as absent too.
pub(crate) fn item_absent<E: Entity>() -> Condition {
    let absent = Condition::not_exists(table_def::<E>().partition_key.name.as_str());
    match ttl_attribute::<E>() {
        Some(ttl) => absent.or(Condition::Compare(
            Operand::Path(Path::attr(ttl)),
            Comparator::Lt,
            Operand::Value(AttributeValue::N(now_epoch_seconds().to_string())),
        )),
        None => absent,
    }
}

/// The primary-key attributes of `item` for `def`; an error when one is missing.
pub(crate) fn key_of(item: &Item, def: &TableDef) -> Result<Item> {
    def.key_names()
        .map(|name| match item.get(name) {
            Some(v) => Ok((name.to_owned(), v.clone())),
            None => Err(Error::key(
                None,
                format!("item of table {} has no key attribute {name}", def.name),
            )),
        })
        .collect()
}

/// Decodes an item as `E`, naming the entity on errors.
pub(crate) fn decode<E: Entity>(item: &Item) -> Result<E> {
    E::from_item(item).map_err(|e| e.for_entity(E::ENTITY_TYPE))
}
