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

use crate::entity::Entity;
use crate::error::Result;
use crate::value::Item;

pub mod batch;
mod canon;
mod cursor;
mod delete;
mod ext;
mod get;
mod paging;
mod put;
mod query;
mod scan;
mod support;
mod transact;
mod update;

pub use self::batch::{BatchGet, BatchGetReport, BatchWriteReport, BatchWriter, RetryPolicy};
pub use self::cursor::Cursor;
pub use self::delete::Delete;
pub use self::ext::EntityExt;
pub use self::get::Get;
pub use self::put::{Put, PutMode};
pub use self::query::{PageOf, Query};
pub use self::scan::Scan;
pub use self::support::is_expired;
pub use self::transact::{TransactGet, TransactGetHandle, TransactGetResults, Transaction};
pub use self::update::UpdateBuilder;

/// A typed primary key: the key attributes of one `E`. Built by the derive's `E::key(...)`.
pub struct Key<E> {
    item: Item,
    _entity: PhantomData<fn() -> E>,
}

impl<E> Key<E> {
    /// Wraps key attributes already encoded for `E` (generated code and hand-written entities).
    pub fn from_item(item: Item) -> Self {
        Key {
            item,
            _entity: PhantomData,
        }
    }

    /// The key attributes.
    pub fn as_item(&self) -> &Item {
        &self.item
    }

    /// The key attributes, owned.
    pub fn into_item(self) -> Item {
        self.item
    }
}

impl<E> Clone for Key<E> {
    fn clone(&self) -> Self {
        Key::from_item(self.item.clone())
    }
}

impl<E> std::fmt::Debug for Key<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Key").field(&self.item).finish()
    }
}

impl<E> PartialEq for Key<E> {
    fn eq(&self, other: &Self) -> bool {
        self.item == other.item
    }
}

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
}

impl<E: Entity> FromItem for E {
    fn accepts(item: &Item) -> bool {
        E::is_entity(item)
    }
    fn from_item(item: &Item) -> Result<Self> {
        <E as Entity>::from_item(item)
    }
    fn ttl_attribute() -> Option<&'static str> {
        support::ttl_attribute::<E>()
    }
}
