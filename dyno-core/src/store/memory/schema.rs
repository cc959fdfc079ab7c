//! Table schemas as the engine uses them: key attributes of the table and its indexes, and the
//! checks that turn an item's or a request's key values into key bytes (types, emptiness,
//! DynamoDB's size limits, names).

use std::collections::HashSet;
use std::fmt;

use super::data::IndexKeys;
use super::key_bytes::KeyBytes;
use super::key_encoding::{self, encode_number, encode_value};
use crate::error::{Error, Result};
use crate::expr::eval;
use crate::table::{IndexDef, KeyAttribute, Projection, ScalarType, TableDef};
use crate::value::{attribute_size, type_name, AttributeValue, Item};

/// DynamoDB's limit on a partition key value.
pub(super) const MAX_PARTITION_KEY: usize = 2048;
/// DynamoDB's limit on a sort key value.
pub(super) const MAX_SORT_KEY: usize = 1024;
/// Where an entry sits inside one index partition: the index sort key, then the table key (so that
/// entries with equal index sort keys have a stable order and pagination can resume exactly).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct IndexPos {
    /// The index sort key (empty when the index has none).
    pub sk: KeyBytes,
    /// The table's partition key.
    pub table_pk: KeyBytes,
    /// The table's sort key (empty when the table has none).
    pub table_sk: KeyBytes,
}

/// One secondary index of a table, as the engine uses it.
#[derive(Debug, Clone)]
pub(super) struct IndexSchema {
    /// Index name.
    pub name: String,
    /// True for a local secondary index.
    pub local: bool,
    /// Partition key attributes, in key order: one, or up to four for a multi-attribute key.
    pub pk: Vec<KeyAttribute>,
    /// Sort key attributes, in key order: none, one, or up to four.
    pub sk: Vec<KeyAttribute>,
    /// Projected attributes beyond the keys; `None` for `ALL`.
    pub projected: Option<HashSet<String>>,
    /// Where a write finds the partition and sort key values ([`KeyValues`] slots), in key order.
    pk_slots: Vec<usize>,
    sk_slots: Vec<usize>,
}

impl IndexSchema {
    /// Every key attribute with whether it is a partition attribute.
    pub(super) fn key_attributes(&self) -> impl Iterator<Item = (&KeyAttribute, bool)> {
        self.pk
            .iter()
            .map(|k| (k, true))
            .chain(self.sk.iter().map(|k| (k, false)))
    }

    /// True when `name` is one of the index's key attributes.
    pub(super) fn is_key(&self, name: &str) -> bool {
        self.key_attributes().any(|(k, _)| k.name == name)
    }
}

/// The immutable part of a table: its definition and key schema.
#[derive(Debug, Clone)]
pub(super) struct Schema {
    /// The definition as created (the current TTL attribute lives with the data).
    pub def: TableDef,
    /// The indexes, globals first, then locals (the order of the engine's index data).
    pub indexes: Vec<IndexSchema>,
    /// Every key attribute name of the table and its indexes, once each: the attributes a write
    /// picks out of the item while validating it (their position is their [`KeyValues`] slot).
    key_attributes: Vec<String>,
}

/// The distinct key attributes whose values a write keeps inline: the table's two and two per
/// index (20 global, 5 local). A table with more (multi-attribute index keys, up to eight per
/// global index) keeps the rest in a vector.
const INLINE_KEY_ATTRIBUTES: usize = 2 + 2 * 20 + 2 * 5;

/// The values of an item's key attributes (table and indexes), picked out in the one pass that
/// validates the item, so that computing its keys needs no further lookups.
pub(super) struct KeyValues<'a> {
    inline: [Option<&'a AttributeValue>; INLINE_KEY_ATTRIBUTES],
    /// Slots past the inline ones (empty, unallocated, unless the schema has that many).
    more: Vec<Option<&'a AttributeValue>>,
}

impl<'a> KeyValues<'a> {
    /// No values yet, with a slot for each key attribute of `schema`.
    pub(super) fn new(schema: &Schema) -> Self {
        KeyValues {
            inline: [None; INLINE_KEY_ATTRIBUTES],
            more: vec![
                None;
                schema
                    .key_attributes
                    .len()
                    .saturating_sub(INLINE_KEY_ATTRIBUTES)
            ],
        }
    }

    /// Records the value of attribute `name` if it is a key attribute of `schema`.
    #[inline]
    pub(super) fn offer(&mut self, schema: &Schema, name: &str, value: &'a AttributeValue) {
        if let Some(slot) = schema.key_attributes.iter().position(|k| k == name) {
            match self.inline.get_mut(slot) {
                Some(v) => *v = Some(value),
                None => self.more[slot - INLINE_KEY_ATTRIBUTES] = Some(value),
            }
        }
    }

    fn get(&self, slot: usize) -> Option<&'a AttributeValue> {
        match self.inline.get(slot) {
            Some(v) => *v,
            None => self.more[slot - INLINE_KEY_ATTRIBUTES],
        }
    }
}

impl Schema {
    /// Validates a definition as `CreateTable` does and builds the schema.
    pub(super) fn new(def: &TableDef) -> Result<Schema> {
        validate_name("tableName", &def.name, 3)?;
        // Every key attribute has one type across the table and its indexes.
        let mut types: Vec<&KeyAttribute> = Vec::new();
        def.check_key_schemas()?;
        let all_keys = std::iter::once(&def.partition_key)
            .chain(def.sort_key.as_ref())
            .chain(
                def.global_indexes
                    .iter()
                    .chain(&def.local_indexes)
                    .flat_map(IndexDef::key_attributes),
            );
        for k in all_keys {
            validate_name("attributeName", &k.name, 1)?;
            match types.iter().find(|t| t.name == k.name) {
                Some(t) if t.ty != k.ty => {
                    return Err(Error::validation(format!(
                        "One or more parameter values were invalid: attribute {} is defined as both {} and {}",
                        k.name,
                        t.ty.name(),
                        k.ty.name()
                    )))
                }
                Some(_) => {}
                None => types.push(k),
            }
        }
        if def
            .sort_key
            .as_ref()
            .is_some_and(|s| s.name == def.partition_key.name)
        {
            return Err(Error::validation(format!(
                "Invalid KeySchema: Some index key attribute have no definition; the partition and sort keys are both {}",
                def.partition_key.name
            )));
        }
        if def.global_indexes.len() > 20 {
            return Err(Error::validation(format!(
                "One or more parameter values were invalid: GlobalSecondaryIndex count exceeds the per-table limit of 20 (found {})",
                def.global_indexes.len()
            )));
        }
        if def.local_indexes.len() > 5 {
            return Err(Error::validation(format!(
                "One or more parameter values were invalid: Number of LocalSecondaryIndexes exceeds per-table limit of 5 (found {})",
                def.local_indexes.len()
            )));
        }
        if !def.local_indexes.is_empty() && def.sort_key.is_none() {
            return Err(Error::validation(
                "One or more parameter values were invalid: Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex",
            ));
        }
        let mut names: HashSet<&str> = HashSet::new();
        let mut indexes = Vec::new();
        let mut non_key_total = 0usize;
        for (index, local) in def
            .global_indexes
            .iter()
            .map(|i| (i, false))
            .chain(def.local_indexes.iter().map(|i| (i, true)))
        {
            validate_name("indexName", &index.name, 3)?;
            if !names.insert(&index.name) {
                return Err(Error::validation(format!(
                    "One or more parameter values were invalid: Duplicate index name: {}",
                    index.name
                )));
            }
            if local {
                if index.partition_key != def.partition_key {
                    return Err(Error::validation(format!(
                        "One or more parameter values were invalid: Index KeySchema does not have the same leading hash key as table KeySchema for index: {}. index hash key: {}, table hash key: {}",
                        index.name, index.partition_key.name, def.partition_key.name
                    )));
                }
                if index.sort_key.is_none() {
                    return Err(Error::validation(format!(
                        "One or more parameter values were invalid: Index KeySchema for local secondary index {} must have a range key",
                        index.name
                    )));
                }
            }
            if index
                .sort_key
                .as_ref()
                .is_some_and(|s| s.name == index.partition_key.name)
            {
                return Err(Error::validation(format!(
                    "Invalid KeySchema: index {} uses {} as both its partition and sort key",
                    index.name, index.partition_key.name
                )));
            }
            let projected = match &index.projection {
                Projection::All => None,
                Projection::KeysOnly => Some(HashSet::new()),
                Projection::Include(attrs) => {
                    if attrs.is_empty() {
                        return Err(Error::validation(format!(
                            "One or more parameter values were invalid: ProjectionType is INCLUDE, but NonKeyAttributes is not specified for index {}",
                            index.name
                        )));
                    }
                    non_key_total += attrs.len();
                    Some(attrs.iter().cloned().collect())
                }
            };
            indexes.push(IndexSchema {
                name: index.name.clone(),
                local,
                pk: index.partition_keys().cloned().collect(),
                sk: index.sort_keys().cloned().collect(),
                projected,
                pk_slots: Vec::new(),
                sk_slots: Vec::new(),
            });
        }
        if non_key_total > 100 {
            return Err(Error::validation(format!(
                "One or more parameter values were invalid: The sum of NonKeyAttributes across all secondary indexes ({non_key_total}) exceeds the limit of 100"
            )));
        }
        let mut key_attributes: Vec<String> = Vec::new();
        let mut slot = |name: &str| match key_attributes.iter().position(|k| k == name) {
            Some(at) => at,
            None => {
                key_attributes.push(name.to_owned());
                key_attributes.len() - 1
            }
        };
        slot(&def.partition_key.name);
        if let Some(sk) = &def.sort_key {
            slot(&sk.name);
        }
        for index in &mut indexes {
            index.pk_slots = index.pk.iter().map(|k| slot(&k.name)).collect();
            index.sk_slots = index.sk.iter().map(|k| slot(&k.name)).collect();
        }
        Ok(Schema {
            def: def.clone(),
            indexes,
            key_attributes,
        })
    }

    /// The table's partition key.
    pub(super) fn pk(&self) -> &KeyAttribute {
        &self.def.partition_key
    }

    /// The table's sort key.
    pub(super) fn sk(&self) -> Option<&KeyAttribute> {
        self.def.sort_key.as_ref()
    }

    /// The table's key attribute names.
    pub(super) fn key_names(&self) -> Vec<&str> {
        self.def.key_names().collect()
    }

    /// True when `name` is a key attribute of the table.
    pub(super) fn is_table_key(&self, name: &str) -> bool {
        self.pk().name == name || self.sk().is_some_and(|s| s.name == name)
    }

    /// The index called `name`, with its position.
    pub(super) fn index(&self, name: &str) -> Option<(usize, &IndexSchema)> {
        self.indexes
            .iter()
            .enumerate()
            .find(|(_, i)| i.name == name)
    }

    /// The primary key of a whole item being written (PutItem's checks and messages), from its
    /// key values.
    pub(super) fn item_key(&self, values: &KeyValues<'_>) -> Result<(KeyBytes, KeyBytes)> {
        // The table's keys take the first slots.
        let pk = item_key_part(self.pk(), values.get(0), true)?;
        let sk = match self.sk() {
            Some(s) => item_key_part(s, values.get(1), false)?,
            None => KeyBytes::empty(),
        };
        Ok((pk, sk))
    }

    /// True when `item` holds every key attribute with its type (BatchWriteItem answers a put
    /// without them with [`schema_mismatch`], where PutItem names the missing or mistyped key;
    /// [`Schema::batch_key_fault`] says which fault it names).
    pub(super) fn holds_key(&self, item: &Item) -> bool {
        let holds = |a: &KeyAttribute| item.get(&a.name).is_some_and(|v| a.ty.matches(v));
        holds(self.pk()) && self.sk().is_none_or(holds)
    }

    /// What BatchWriteItem says of a put whose item [`Schema::holds_key`] refused, in dynoxide's
    /// order: a missing key attribute is [`schema_mismatch`]; then attribute by attribute, the
    /// partition key first, a value of another type is [`schema_mismatch`] and an empty or
    /// oversized one its own error. So an empty partition key value is named before a sort key
    /// of the wrong type.
    pub(super) fn batch_key_fault(&self, item: &Item) -> Error {
        let attrs = std::iter::once((self.pk(), true)).chain(self.sk().map(|s| (s, false)));
        if attrs.clone().any(|(a, _)| !item.contains_key(&a.name)) {
            return schema_mismatch();
        }
        attrs
            .filter_map(|(a, partition)| {
                let value = &item[&a.name];
                if !a.ty.matches(value) {
                    return Some(schema_mismatch());
                }
                checked_key_bytes(a, value, partition).err()
            })
            .next()
            .unwrap_or_else(schema_mismatch)
    }

    /// The primary key given as a key (GetItem, DeleteItem, UpdateItem): exactly the key
    /// attributes, of the right types.
    pub(super) fn key(&self, key: &Item) -> Result<(KeyBytes, KeyBytes)> {
        let expected = 1 + usize::from(self.sk().is_some());
        if key.len() != expected {
            return Err(schema_mismatch());
        }
        // One or two attributes: matching their names beats hashing them for lookups.
        let (mut pk, mut sk) = (None, None);
        for (name, value) in key {
            if *name == self.pk().name {
                pk = Some(value);
            } else if self.sk().is_some_and(|s| s.name == *name) {
                sk = Some(value);
            }
        }
        let pk = lookup_key_part(self.pk(), pk, true)?;
        let sk = match self.sk() {
            Some(s) => lookup_key_part(s, sk, false)?,
            None => KeyBytes::empty(),
        };
        Ok((pk, sk))
    }

    /// The key `key` names (exactly the key attributes, of the right types), an empty string or
    /// binary value included: how a transaction finds one item named twice before it refuses an
    /// empty key value (dynoxide's order). `None` for a key that does not match the schema.
    pub(super) fn key_identity(&self, key: &Item) -> Option<(KeyBytes, KeyBytes)> {
        match self.key(key) {
            Ok(k) => Some(k),
            Err(e) if is_empty_key_value(&e) => {
                let part = |a: &KeyAttribute| encode_value(key.get(&a.name)?);
                let sk = match self.sk() {
                    Some(s) => part(s)?,
                    None => KeyBytes::empty(),
                };
                Some((part(self.pk())?, sk))
            }
            Err(_) => None,
        }
    }

    /// Checks the index key attributes of an item being written (from its key values): when
    /// present they must have the index's type and not be empty. Returns each index's key.
    ///
    /// `by_update`: the values come from an UpdateItem, which DynamoDB words differently.
    ///
    /// Every attribute of a multi-attribute key is checked so, and the item is in the index
    /// only when it holds all of them.
    pub(super) fn index_keys(&self, values: &KeyValues<'_>, by_update: bool) -> Result<IndexKeys> {
        // Sized up front: collecting through `Result` would grow and then shrink the buffer.
        let mut keys = Vec::with_capacity(self.indexes.len());
        for index in &self.indexes {
            let value = |slots: &[usize], i: usize| values.get(slots[i]);
            let pk = index_key_bytes(
                index,
                &index.pk,
                |i| value(&index.pk_slots, i),
                true,
                by_update,
            )?;
            let sk = index_key_bytes(
                index,
                &index.sk,
                |i| value(&index.sk_slots, i),
                false,
                by_update,
            )?;
            keys.push(pk.zip(sk));
        }
        Ok(keys.into_boxed_slice())
    }

    /// The key in index `at` of an item already stored when UpdateTable adds the index, or
    /// `None` when the item is not in it: it lacks a key attribute of the index, or its value has
    /// another type, is empty or is over the key size limit. DynamoDB's backfill leaves such an
    /// item out of the index instead of failing (Developer Guide, "Detecting and correcting index
    /// key violations"); writes from then on are checked as usual.
    pub(super) fn backfill_key(&self, at: usize, item: &Item) -> Option<(KeyBytes, KeyBytes)> {
        let index = &self.indexes[at];
        let value = |attrs: &[KeyAttribute], i: usize| item.get(&attrs[i].name);
        let pk = index_key_bytes(index, &index.pk, |i| value(&index.pk, i), true, false).ok()??;
        let sk =
            index_key_bytes(index, &index.sk, |i| value(&index.sk, i), false, false).ok()??;
        Some((pk, sk))
    }

    /// The key of an index entry for an item already validated on write (`None`: not indexed),
    /// looked up in the item (the engine keeps the keys it computed on write; this recomputes
    /// them to check it).
    #[cfg(test)]
    pub(super) fn index_key(
        &self,
        index: &IndexSchema,
        item: &Item,
        table_pk: &KeyBytes,
        table_sk: &KeyBytes,
    ) -> Option<(KeyBytes, IndexPos)> {
        let part = |attrs: &[KeyAttribute]| -> Option<KeyBytes> {
            let values: Vec<KeyBytes> = attrs
                .iter()
                .map(|a| encode_value(item.get(&a.name)?))
                .collect::<Option<_>>()?;
            Some(composite_key(&values))
        };
        let pk = part(&index.pk)?;
        let sk = part(&index.sk)?;
        Some((
            pk,
            IndexPos {
                sk,
                table_pk: table_pk.clone(),
                table_sk: table_sk.clone(),
            },
        ))
    }

    /// True when index `index` holds attribute `name` of its items: every attribute for `ALL`,
    /// otherwise the table and index keys and the included attributes.
    pub(super) fn projects(&self, index: &IndexSchema, name: &str) -> bool {
        index.projected.as_ref().is_none_or(|projected| {
            self.is_table_key(name) || index.is_key(name) || projected.contains(name)
        })
    }

    /// The item as index `index` holds it (`None` for `ALL`: the item itself), see
    /// [`Schema::projects`].
    pub(super) fn project_for_index(&self, index: &IndexSchema, item: &Item) -> Option<Item> {
        index.projected.as_ref()?;
        Some(
            item.iter()
                .filter(|(name, _)| self.projects(index, name))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        )
    }

    /// The size by DynamoDB's formula of the entry index `index` holds for `item`, whose own
    /// size is `size`, without building the entry.
    pub(super) fn entry_size(&self, index: &IndexSchema, item: &Item, size: usize) -> usize {
        if index.projected.is_none() {
            return size;
        }
        item.iter()
            .filter(|(name, _)| self.projects(index, name))
            .map(|(name, value)| name.len() + attribute_size(value))
            .sum()
    }

    /// True when `old` and `new` give index `index` the same entry, as DynamoDB compares values
    /// ([`eval::values_equal`]: sets regardless of their order), without building the entries.
    pub(super) fn same_entry(&self, index: &IndexSchema, old: &Item, new: &Item) -> bool {
        let mut held = 0;
        for (name, x) in old {
            if !self.projects(index, name) {
                continue;
            }
            held += 1;
            // Identical values (the common case, and always equal) skip the deep comparison.
            match new.get(name) {
                Some(y) if x == y || eval::values_equal(x, y) => {}
                _ => return false,
            }
        }
        held == match index.projected {
            None => new.len(),
            Some(_) => new.keys().filter(|n| self.projects(index, n)).count(),
        }
    }
}

/// The key of one index's partition or sort key from its attributes' values (`value(i)`: the
/// `i`-th attribute's; `None` when the item lacks one of them: not in the index), each checked
/// by [`index_key_part`].
fn index_key_bytes<'v>(
    index: &IndexSchema,
    attrs: &[KeyAttribute],
    value: impl Fn(usize) -> Option<&'v AttributeValue>,
    partition: bool,
    by_update: bool,
) -> Result<Option<KeyBytes>> {
    match attrs {
        [] => Ok(Some(KeyBytes::empty())),
        [attr] => index_key_part(index, attr, value(0), partition, by_update),
        _ => {
            // Every attribute is checked, present or not, before the item is left out.
            let mut parts = Vec::with_capacity(attrs.len());
            let mut missing = false;
            for (i, attr) in attrs.iter().enumerate() {
                match index_key_part(index, attr, value(i), partition, by_update)? {
                    Some(bytes) => parts.push(bytes),
                    None => missing = true,
                }
            }
            Ok((!missing).then(|| composite_key(&parts)))
        }
    }
}

/// The key bytes of a multi-attribute key from each attribute's order-preserving bytes: each
/// part escaped and terminated (see [`key_encoding::push_key_part`]), so that the bytes order as
/// the attributes do one after another, each by its own type. One part stays as it is, so
/// single-attribute keys are unchanged.
pub(super) fn composite_key(parts: &[KeyBytes]) -> KeyBytes {
    match parts {
        [one] => one.clone(),
        _ => {
            let mut out = Vec::new();
            for part in parts {
                key_encoding::push_key_part(&mut out, part);
            }
            KeyBytes::from(out)
        }
    }
}

/// "The provided key element does not match the schema": DynamoDB's answer to a key with missing,
/// extra or mistyped attributes.
pub(super) fn schema_mismatch() -> Error {
    Error::validation("The provided key element does not match the schema")
}

/// The words of DynamoDB's refusal of an empty string or binary key value, in each of its three
/// messages (a table key, an index key in a put, an index key set by an update): written here
/// once, for [`empty_key_value`] to build and [`is_empty_key_value`] to recognize.
const EMPTY_KEY_VALUE: &str = "The AttributeValue for a key attribute cannot contain an empty";

/// DynamoDB's refusal of an empty value of `ty` for a key attribute: `context` is what precedes
/// [`EMPTY_KEY_VALUE`] in its message, `names` what follows the value's type.
fn empty_key_value(context: &str, ty: ScalarType, names: fmt::Arguments<'_>) -> Error {
    let kind = if ty == ScalarType::S {
        "string"
    } else {
        "binary"
    };
    Error::validation(format!("{context}{EMPTY_KEY_VALUE} {kind} value. {names}"))
}

/// True for DynamoDB's refusal of an empty string or binary key value (a table's or a secondary
/// index's), which a write transaction answers as a request error rather than as its action's
/// cancellation reason, and which dynoxide's Query names after its other key checks.
pub(super) fn is_empty_key_value(e: &Error) -> bool {
    matches!(e, Error::Validation { message } if message.contains(EMPTY_KEY_VALUE))
}

/// Checks a name's length and characters, answering as DynamoDB does: `member` is where the
/// name sits in the request (`tableName`, `indexName`, `attributeName`).
fn validate_name(member: &str, name: &str, min: usize) -> Result<()> {
    let max = 255;
    let invalid = |constraint: String| {
        Error::validation(format!(
            "1 validation error detected: Value '{name}' at '{member}' failed to satisfy constraint: Member must {constraint}"
        ))
    };
    if name.len() < min {
        return Err(invalid(format!(
            "have length greater than or equal to {min}"
        )));
    }
    if name.len() > max {
        return Err(invalid(format!("have length less than or equal to {max}")));
    }
    if member != "attributeName"
        && !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        return Err(invalid(
            "satisfy regular expression pattern: [a-zA-Z0-9_.-]+".to_owned(),
        ));
    }
    Ok(())
}

fn item_key_part(
    attr: &KeyAttribute,
    value: Option<&AttributeValue>,
    partition: bool,
) -> Result<KeyBytes> {
    let value = value.ok_or_else(|| {
        Error::validation(format!(
            "One or more parameter values were invalid: Missing the key {} in the item",
            attr.name
        ))
    })?;
    if !attr.ty.matches(value) {
        return Err(Error::validation(format!(
            "One or more parameter values were invalid: Type mismatch for key {} expected: {} actual: {}",
            attr.name,
            attr.ty.name(),
            type_name(value)
        )));
    }
    checked_key_bytes(attr, value, partition)
}

fn lookup_key_part(
    attr: &KeyAttribute,
    value: Option<&AttributeValue>,
    partition: bool,
) -> Result<KeyBytes> {
    let value = value.ok_or_else(schema_mismatch)?;
    if !attr.ty.matches(value) {
        return Err(schema_mismatch());
    }
    if let AttributeValue::N(n) = value {
        let normalized = eval::normalize_number(n)?;
        return encode_number(&normalized).ok_or_else(|| invalid_number(n));
    }
    checked_key_bytes(attr, value, partition)
}

/// The bytes of a key value of the right type, checked for emptiness and DynamoDB's size limits.
pub(super) fn checked_key_bytes(
    attr: &KeyAttribute,
    value: &AttributeValue,
    partition: bool,
) -> Result<KeyBytes> {
    // A string or binary value is its own key bytes: checked as it is, then copied once.
    let bytes: &[u8] = match value {
        AttributeValue::S(s) => s.as_bytes(),
        AttributeValue::B(b) => b.as_ref(),
        other => {
            return encode_value(other).ok_or_else(|| match other {
                AttributeValue::N(n) => invalid_number(n),
                other => Error::validation(format!(
                    "key attribute {} has unsupported type {}",
                    attr.name,
                    type_name(other)
                )),
            });
        }
    };
    if bytes.is_empty() {
        return Err(empty_key_value(
            "One or more parameter values are not valid. ",
            attr.ty,
            format_args!("Key: {}", attr.name),
        ));
    }
    if partition && bytes.len() > MAX_PARTITION_KEY {
        return Err(Error::validation(format!(
            "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes (key {}, {} bytes)",
            attr.name,
            bytes.len()
        )));
    }
    if !partition && bytes.len() > MAX_SORT_KEY {
        return Err(Error::validation(format!(
            "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of 1024 bytes (key {}, {} bytes)",
            attr.name,
            bytes.len()
        )));
    }
    Ok(KeyBytes::from(bytes))
}

/// The bytes of a secondary index key value, or `None` when the item has none: its type, its
/// emptiness (worded for a put or for an update) and DynamoDB's size limits checked.
pub(super) fn index_key_part(
    index: &IndexSchema,
    attr: &KeyAttribute,
    value: Option<&AttributeValue>,
    partition: bool,
    by_update: bool,
) -> Result<Option<KeyBytes>> {
    let Some(value) = value else {
        return Ok(None);
    };
    if !attr.ty.matches(value) {
        return Err(Error::validation(format!(
            "One or more parameter values were invalid: Type mismatch for Index Key {} Expected: {} Actual: {} IndexName: {}",
            attr.name,
            attr.ty.name(),
            type_name(value),
            index.name
        )));
    }
    let bytes = encode_value(value).ok_or_else(|| match value {
        AttributeValue::N(n) => invalid_number(n),
        _ => schema_mismatch(),
    })?;
    if matches!(value, AttributeValue::S(_) | AttributeValue::B(_)) {
        if bytes.is_empty() && by_update {
            return Err(empty_key_value(
                "One or more parameter values are not valid. The update expression attempted to update a secondary index key to a value that is not supported. ",
                attr.ty,
                format_args!("(IndexName: {}, IndexKey: {})", index.name, attr.name),
            ));
        }
        if bytes.is_empty() {
            return Err(empty_key_value(
                "One or more parameter values are not valid. A value specified for a secondary index key is not supported. ",
                attr.ty,
                format_args!("IndexName: {}, IndexKey: {}", index.name, attr.name),
            ));
        }
        let limit = if partition {
            MAX_PARTITION_KEY
        } else {
            MAX_SORT_KEY
        };
        if bytes.len() > limit {
            return Err(Error::validation(format!(
                "One or more parameter values were invalid: Size of index key {} ({} bytes) has exceeded the maximum size limit of {limit} bytes. IndexName: {}",
                attr.name,
                bytes.len(),
                index.name
            )));
        }
    }
    Ok(Some(bytes))
}

fn invalid_number(n: &str) -> Error {
    Error::validation(format!(
        "A value provided cannot be converted into a number: {n:?}"
    ))
}
