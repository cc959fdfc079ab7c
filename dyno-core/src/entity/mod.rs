//! The `Entity` trait: what `#[derive(Entity)]` implements, and what hand-written entities
//! implement for odd cases.

mod parts;
pub mod recover;
pub mod stamps;

#[doc(hidden)]
pub use self::parts::EntityParts;
pub use self::parts::FieldRole;

use crate::error::{Error, Result, UnknownWrite};
use crate::key::Template;
use crate::table::Table;
use crate::value::{AttributeValue, Item};

/// The key templates of one index for one entity.
#[derive(Debug, Clone, Copy)]
pub struct IndexTemplate {
    /// Index name, as declared on the table.
    pub index: &'static str,
    /// Partition key template.
    pub pk: Template,
    /// Sort key template.
    pub sk: Option<Template>,
    /// Shard count when the partition key carries a `#<n>` shard suffix (`n` below
    /// `shards`), else 0.
    pub shards: u32,
}

impl IndexTemplate {
    /// The entity's templates in index `index` (`shards` shard suffixes on the partition key,
    /// or 0).
    pub const fn new(index: &'static str, pk: Template, sk: Option<Template>, shards: u32) -> Self {
        IndexTemplate {
            index,
            pk,
            sk,
            shards,
        }
    }
}

/// A type stored as items of one table.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a dyno entity",
    label = "no `Entity` impl",
    note = "add `#[derive(Entity)]` with `#[dyno(table = ..., pk = \"...\")]` to the struct"
)]
pub trait Entity: Sized + Send + Sync + 'static {
    /// The table the entity lives in.
    type Table: Table;

    /// The entity type name, written to the table's entity-type attribute.
    const ENTITY_TYPE: &'static str;

    /// Partition key template (`USER#{user_id}`).
    const PK: Template;

    /// Sort key template (`ORDER#{order_id}`), when the table has a sort key.
    const SK: Option<Template>;

    /// Index key templates, one per index the entity appears in.
    const INDEXES: &'static [IndexTemplate] = &[];

    /// The multi-attribute indexes the entity maps fields onto (`index(ByStatus, pk = [tenant,
    /// status], ...)`): keyed by the fields' own attributes, so they have no templates.
    const MAPPED_INDEXES: &'static [&'static str] = &[];

    /// The optimistic-locking version attribute, when the entity has one.
    const VERSION_ATTRIBUTE: Option<&'static str> = None;

    /// The TTL attribute (epoch seconds), when the entity has one.
    const TTL_ATTRIBUTE: Option<&'static str> = None;

    /// The `#[dyno(created_at)]` field: `(field name, attribute name)`. A put or replace of an
    /// existing item keeps the stored value when the entity's is unset (see
    /// [`crate::ops::Put`]). Generated.
    #[doc(hidden)]
    const CREATED_AT: Option<(&'static str, &'static str)> = None;

    /// Every attribute [`Entity::to_item`] can write besides the primary key and the
    /// entity-type attribute: fields, index keys, TTL. A put that goes through UpdateItem removes
    /// those the item leaves out (`None` fields, sparse index keys). Generated.
    #[doc(hidden)]
    const ATTRIBUTES: &'static [&'static str] = &[];

    /// What the model as data needs beyond the constants above: fields, their roles, query
    /// names (see [`crate::model::EntityModel::of`]). Generated; a hand-written entity leaves it
    /// empty and its model lists no fields.
    #[doc(hidden)]
    const MODEL: EntityParts = EntityParts::NONE;

    /// True when the `#[dyno(created_at)]` field is unset (`None`), so a write stamps it.
    /// Generated.
    #[doc(hidden)]
    fn created_at_unset(&self) -> bool {
        false
    }

    /// The primary key of this value: the table's partition (and sort) key attributes only.
    fn key(&self) -> Result<Item>;

    /// The whole item: fields, primary key, index keys and the entity-type attribute.
    fn to_item(&self) -> Result<Item>;

    /// Decodes an item; errors name the entity and the attribute.
    fn from_item(item: &Item) -> Result<Self>;

    /// The current version, when the entity has a version field.
    fn version(&self) -> Option<u64> {
        None
    }

    /// Sets the version field (after a successful versioned write).
    fn set_version(&mut self, _version: u64) {}

    /// True when `item` is one of this entity's: by the entity-type attribute when present,
    /// otherwise (items written by other clients) by the shape of its primary key.
    fn is_entity(item: &Item) -> bool {
        let def = <Self::Table as Table>::definition();
        if let Some(AttributeValue::S(t)) = item.get(<Self::Table as Table>::ENTITY_ATTRIBUTE) {
            return t == Self::ENTITY_TYPE;
        }
        let key_matches = |name: Option<&str>, template: Option<Template>| match (name, template) {
            (Some(name), Some(t)) => {
                matches!(item.get(name), Some(AttributeValue::S(k)) if t.matches(k))
            }
            (None, None) => true,
            _ => false,
        };
        key_matches(Some(&def.partition_key.name), Some(Self::PK))
            && key_matches(def.sort_key.as_ref().map(|k| k.name.as_str()), Self::SK)
    }
}

/// Defined here rather than beside [`UnknownWrite`], so that the error layer names no entity.
impl UnknownWrite {
    /// The entity the write tried to store, decoded from the item it sent: the generated ids
    /// and stamps it carries are the ones stored if the write was applied.
    pub fn entity<E: Entity>(&self) -> Result<E> {
        if self.entity != E::ENTITY_TYPE {
            return Err(Error::validation(format!(
                "the unknown write was of {}, not of {}",
                self.entity,
                E::ENTITY_TYPE
            )));
        }
        E::from_item(&self.item).map_err(|e| e.for_entity(E::ENTITY_TYPE))
    }
}
