//! What every typed operation applies to an entity's items: its table, TTL visibility (expired
//! items read as absent), ownership (another entity's item at the same key is neither read nor
//! overwritten), the existence and version conditions of writes, the explanation of a failed
//! condition, and decoding. DynamoDB's key limits are checked in [`super::key_limits`].

use std::time::{SystemTime, UNIX_EPOCH};

use crate::entity::{Entity, IndexTemplate};
use crate::error::{Error, Result};
use crate::expr::{Comparator, Condition, Operand, Path};
use crate::key::Template;
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
    Owner::of::<E>().readable(item)
}

/// The ownership condition of every typed write of `E` to an existing item: the item is `E`'s
/// (its entity-type attribute is `E`'s type) or has no entity-type attribute (absent items,
/// items written by other clients). Part of the write's own condition, so it is atomic.
pub(crate) fn owned_by<E: Entity>() -> Condition {
    EntityShape::of::<E>().owned_by()
}

/// [`owned_by`] for the entity type `entity` whose table's entity-type attribute is `attribute`.
pub(crate) fn owned_by_type(attribute: &str, entity: &str) -> Condition {
    Condition::not_exists(attribute).or(Condition::Compare(
        Operand::Path(Path::attr(attribute)),
        Comparator::Eq,
        Operand::Value(AttributeValue::S(entity.to_owned())),
    ))
}

/// Whose item a typed write is: the entity, its table and the table's entity-type attribute.
#[derive(Clone, Copy)]
pub(crate) struct Owner {
    entity: &'static str,
    def: &'static TableDef,
    attribute: &'static str,
    /// The entity's TTL attribute (see [`ttl_attribute`]).
    ttl: Option<&'static str>,
}

impl Owner {
    /// `E`'s.
    #[inline]
    pub(crate) fn of<E: Entity>() -> Self {
        Owner {
            entity: E::ENTITY_TYPE,
            def: table_def::<E>(),
            attribute: <E::Table as Table>::ENTITY_ATTRIBUTE,
            ttl: ttl_attribute::<E>(),
        }
    }

    /// [`readable`] for this entity.
    pub(crate) fn readable(&self, item: &Item) -> bool {
        if hidden(item, self.ttl) {
            return false;
        }
        if let Some(found) = self.foreign(item) {
            tracing::debug!(
                entity = self.entity,
                found,
                foreign_items = 1u64,
                "dyno.foreign_item: the item at the key belongs to another entity; read as absent"
            );
            return false;
        }
        true
    }

    /// The entity's type name.
    pub(crate) fn entity(&self) -> &'static str {
        self.entity
    }

    /// [`owned_by`] for this entity.
    pub(crate) fn owned_by(&self) -> Condition {
        owned_by_type(self.attribute, self.entity)
    }

    /// [`item_exists`] for this entity.
    pub(crate) fn item_exists(&self) -> Condition {
        Condition::exists(self.def.partition_key.name.as_str())
    }

    /// `attribute_not_exists(PK)` for this entity's table: the item does not exist. For an
    /// entity with a TTL attribute, `OR ttl < now` as well: an expired item reads as absent
    /// (DynamoDB deletes it up to days late), so a put-if-absent (`create`) treats it as absent
    /// too.
    pub(crate) fn item_absent(&self) -> Condition {
        let absent = Condition::not_exists(self.def.partition_key.name.as_str());
        match self.ttl {
            Some(ttl) => absent.or(Condition::Compare(
                Operand::Path(Path::attr(ttl)),
                Comparator::Lt,
                Operand::Value(AttributeValue::N(now_epoch_seconds().to_string())),
            )),
            None => absent,
        }
    }

    /// The entity's table.
    pub(crate) fn table(&self) -> &'static TableDef {
        self.def
    }

    /// [`foreign_type`] for this entity.
    fn foreign<'i>(&self, item: &'i Item) -> Option<&'i str> {
        match item.get(self.attribute) {
            Some(AttributeValue::S(t)) if t != self.entity => Some(t),
            _ => None,
        }
    }
}

/// Turns a failed condition of a typed write of `owner`'s entity at `key` into the error that
/// says why, from the item as it was: the item the error carries
/// (`ReturnValuesOnConditionCheckFailure = ALL_OLD`), or else a strongly consistent read made after the failure (the write itself
/// changed nothing either way; the read only names the cause). [`Error::WrongEntity`] when the
/// item belongs to another entity; else what `explain` makes of the item (`None`: absent), such
/// as [`Error::NotFound`] or [`Error::OutOfRange`]; else the condition failure itself. Other
/// errors pass through; the entity is filled in.
///
/// Compiled once per store type (the entity is `owner`, not a type parameter).
pub(crate) async fn condition_failure_of<S: Store + ?Sized>(
    store: &S,
    owner: Owner,
    key: &Item,
    err: Error,
    explain: &mut (dyn FnMut(Option<&Item>) -> Option<Error> + Send),
) -> Error {
    let Error::ConditionFailed { item, .. } = &err else {
        return err.for_entity(owner.entity);
    };
    let read;
    let old = match item {
        Some(old) => Some(old),
        None => {
            let request = GetRequest::borrowed(&owner.def.name, key).consistent();
            match store.get_item(request).await {
                Ok(out) => {
                    read = out.item;
                    read.as_deref()
                }
                // Unknown: the condition failure stands.
                Err(_) => return err.for_entity(owner.entity),
            }
        }
    };
    if let Some(found) = old.and_then(|o| owner.foreign(o)) {
        return Error::WrongEntity {
            entity: owner.entity,
            found: found.to_owned(),
        };
    }
    match explain(old) {
        Some(e) => e,
        None => err.for_entity(owner.entity),
    }
}

/// The result of a typed write of `E` at `key`, its error named: [`condition_failure_of`] (another
/// entity's item) and the entity filled in.
pub(crate) async fn write_result<E: Entity, S: Store + ?Sized, T>(
    store: &S,
    key: &Item,
    result: Result<T>,
) -> Result<T> {
    match result {
        Ok(v) => Ok(v),
        Err(e) => Err(condition_failure_of(store, Owner::of::<E>(), key, e, &mut |_| None).await),
    }
}

/// What the typed operations need of an entity: its constants, gathered once so that the code
/// using them (key checks, conditions) is compiled once, not once per entity (and per closure)
/// as generic code would be.
#[derive(Clone, Copy)]
pub(crate) struct EntityShape {
    pub(crate) entity: &'static str,
    pub(crate) def: &'static TableDef,
    pub(crate) pk: Template,
    pub(crate) sk: Option<Template>,
    pub(crate) indexes: &'static [IndexTemplate],
    pub(crate) mapped_indexes: &'static [&'static str],
    /// The table's entity-type attribute.
    pub(crate) type_attribute: &'static str,
    pub(crate) version: Option<&'static str>,
}

impl EntityShape {
    /// `E`'s.
    #[inline]
    pub(crate) fn of<E: Entity>() -> Self {
        EntityShape {
            entity: E::ENTITY_TYPE,
            def: table_def::<E>(),
            pk: E::PK,
            sk: E::SK,
            indexes: E::INDEXES,
            mapped_indexes: E::MAPPED_INDEXES,
            type_attribute: <E::Table as Table>::ENTITY_ATTRIBUTE,
            version: E::VERSION_ATTRIBUTE,
        }
    }

    /// [`owned_by`] for this entity.
    pub(crate) fn owned_by(&self) -> Condition {
        owned_by_type(self.type_attribute, self.entity)
    }

    /// [`item_exists`] for this entity.
    pub(crate) fn item_exists(&self) -> Condition {
        Condition::exists(self.def.partition_key.name.as_str())
    }
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
    EntityShape::of::<E>().item_exists()
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
