//! Typed operations over any `S: Store + ?Sized`: get, put, create, replace, update, delete,
//! query, scan, batches and transactions, with pagination as a `futures::Stream` and as pages with
//! an opaque cursor bound to its query.
//!
//! Entry points: [`EntityExt`] (get, put, create, replace, update, delete, scan on any entity),
//! [`Query`] and [`Scan`] (built by the derive's typed query builders or by hand), the batch engine
//! in [`batch`], and [`Transaction`] / [`TransactGet`].
//!
//! Reads never return items whose TTL attribute is in the past (DynamoDB deletes expired items up
//! to days late), and writes refuse items over DynamoDB's 400 KB limit before sending anything.

use std::marker::PhantomData;
use std::sync::Arc;

use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::value::Item;

pub mod batch;
mod bounds;
mod canon;
mod cursor;
mod delete;
mod dsl;
mod entity_rules;
mod ext;
mod get;
mod idempotent;
mod key_limits;
mod lenient;
mod paging;
mod path;
mod put;
mod query;
mod scan;
#[doc(hidden)]
pub mod shard;
pub mod sort_key;
mod transact;
mod update;

pub use self::batch::{BatchGet, BatchGetReport, BatchWriteReport, BatchWriter, RetryPolicy};
pub use self::bounds::{Arithmetic, Counter};
pub use self::cursor::{Cursor, CursorKey, CURSOR_KEY_ENV};
pub use self::delete::Delete;
pub use self::dsl::{ConsistentRead, Global, Local, QueryDsl, UpdateDsl, Versioned};
pub use self::ext::EntityExt;
pub use self::get::Get;
pub use self::idempotent::IdempotentWrite;
pub use self::lenient::{Decoded, Undecodable};
pub use self::path::PathUpdate;
pub use self::put::{Put, PutMode, PutWriteRequest};
#[doc(hidden)]
pub use self::query::ReadByCollectionQuery;
#[doc(hidden)]
pub use self::query::{sort_template, CollectionMember, CollectionOn};
pub use self::query::{PageOf, Query};
pub use self::scan::Scan;
pub use self::transact::{
    TransactGet, TransactGetHandle, TransactGetResults, TransactWritten, Transaction, WriteHandle,
};
#[doc(hidden)]
pub use self::update::IndexKeyNeed;
pub use self::update::UpdateBuilder;
pub use crate::error::RefusedWrite;
pub use crate::ttl::is_expired;

/// A typed primary key: the key attributes of one `E`. Built by the derive's `E::key(...)`.
///
/// A key whose fields could not be encoded (an empty string, say) still exists, so that the
/// infallible `E::key(...)` stays infallible, but it carries the encoding error instead of key
/// attributes: every request built from it (get, update, delete, batch, transaction) fails with
/// that error before anything is sent, and `Debug` shows it.
pub struct Key<E> {
    item: Item,
    error: Option<Arc<Error>>,
    _entity: PhantomData<fn() -> E>,
}

impl<E> Key<E> {
    /// Wraps key attributes already encoded for `E` (generated code and hand-written entities).
    pub fn from_item(item: Item) -> Self {
        Key {
            item,
            error: None,
            _entity: PhantomData,
        }
    }

    /// A key that could not be built: every request using it fails with `error`.
    pub fn invalid(error: Error) -> Self {
        Key {
            item: Item::new(),
            error: Some(Arc::new(error)),
            _entity: PhantomData,
        }
    }

    /// The key attributes (empty for an [invalid](Self::invalid) key; see [`Self::try_as_item`]).
    pub fn as_item(&self) -> &Item {
        &self.item
    }

    /// The key attributes, owned (empty for an [invalid](Self::invalid) key; see
    /// [`Self::try_into_item`]).
    pub fn into_item(self) -> Item {
        self.item
    }

    /// The encoding error of an invalid key.
    pub fn error(&self) -> Option<&Error> {
        self.error.as_deref()
    }

    /// The key attributes, or the error that kept the key from being built.
    pub fn try_as_item(&self) -> Result<&Item> {
        match &self.error {
            None => Ok(&self.item),
            Some(e) => Err(Error::clone(e)),
        }
    }

    /// The key attributes, owned, or the error that kept the key from being built.
    pub fn try_into_item(self) -> Result<Item> {
        self.check().map(Key::into_item)
    }

    /// This key if it is valid, else the error that kept it from being built.
    pub fn check(self) -> Result<Self> {
        match self.error {
            None => Ok(self),
            Some(e) => Err(Arc::try_unwrap(e).unwrap_or_else(|shared| Error::clone(&shared))),
        }
    }
}

impl<E> Clone for Key<E> {
    fn clone(&self) -> Self {
        Key {
            item: self.item.clone(),
            error: self.error.clone(),
            _entity: PhantomData,
        }
    }
}

impl<E> std::fmt::Debug for Key<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.debug_view().fmt(f)
    }
}

impl<E> Key<E> {
    /// This key's `Debug`, not generic over the entity.
    pub(crate) fn debug_view(&self) -> KeyDebug<'_> {
        KeyDebug {
            item: &self.item,
            error: self.error.as_deref(),
        }
    }
}

/// A [`Key`] as `Debug` shows it: compiled once for every entity.
pub(crate) struct KeyDebug<'a> {
    item: &'a Item,
    error: Option<&'a Error>,
}

impl std::fmt::Debug for KeyDebug<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.error {
            None => f.debug_tuple("Key").field(self.item).finish(),
            Some(e) => f
                .debug_struct("Key")
                .field("invalid", &format_args!("{e}"))
                .finish(),
        }
    }
}

/// Valid keys are equal when their attributes are; invalid keys when their errors read the same.
impl<E> PartialEq for Key<E> {
    fn eq(&self, other: &Self) -> bool {
        match (&self.error, &other.error) {
            (None, None) => self.item == other.item,
            (Some(a), Some(b)) => a.to_string() == b.to_string(),
            _ => false,
        }
    }
}

/// `Self`'s items can be filtered by conditions on `E`'s fields: `E` itself (every [`FromItem`]
/// type), a projection of `E` (`#[derive(Projection)]`), a collection holding `E`
/// (`#[derive(Collection)]`).
#[diagnostic::on_unimplemented(
    message = "a query returning `{Self}` cannot be filtered by a condition on `{E}`'s fields",
    label = "a condition on another entity's fields",
    note = "build the filter from the fields of the entity the query reads (`Cond::raw` takes an untyped `expr::Condition`)"
)]
pub trait FilterBy<E> {}

impl<T: FromItem> FilterBy<T> for T {}

/// What a query or scan decodes its items into: an entity, a projection of one, or a collection
/// of several entities sharing a partition.
pub trait FromItem: Sized + Send + 'static {
    /// True when `item` is one of ours; others (other entities on an overloaded index) are
    /// skipped, never mis-decoded.
    fn accepts(item: &Item) -> bool;
    /// Decodes an accepted item.
    fn from_item(item: &Item) -> Result<Self>;
    /// The attributes to project, when only some are needed (`None`: all).
    fn projection() -> Option<&'static [&'static str]> {
        None
    }
    /// The TTL attribute (epoch seconds) of the items, so that reads hide expired ones
    /// (`None`: no TTL). Entities return theirs, falling back to their table's.
    fn ttl_attribute() -> Option<&'static str> {
        None
    }
    /// The key attributes of the items' table, to name an item that does not decode (see
    /// [`Decoded`]); empty when the type does not name one table.
    fn key_attributes() -> Vec<&'static str> {
        Vec::new()
    }
}

impl<E: Entity> FromItem for E {
    fn accepts(item: &Item) -> bool {
        E::is_entity(item)
    }
    fn from_item(item: &Item) -> Result<Self> {
        <E as Entity>::from_item(item)
    }
    fn ttl_attribute() -> Option<&'static str> {
        entity_rules::ttl_attribute::<E>()
    }
    fn key_attributes() -> Vec<&'static str> {
        entity_rules::table_def::<E>().key_names().collect()
    }
}
