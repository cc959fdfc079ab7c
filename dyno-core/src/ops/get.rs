//! Typed GetItem.

use std::fmt;

use tracing::Instrument;

use super::support::{decode, readable, table_def};
use super::Key;
use crate::entity::Entity;
use crate::error::Result;
use crate::store::{GetRequest, Store};

/// Reads one `E` by key; built by [`super::EntityExt::get`]. An item whose TTL attribute is in the
/// past reads as absent, and so does another entity's item at the same key (entities sharing a key
/// shape): its entity-type attribute names another type.
#[must_use = "a get does nothing until it is sent"]
pub struct Get<E: Entity> {
    key: Key<E>,
    consistent: bool,
}

impl<E: Entity> fmt::Debug for Get<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Get")
            .field("entity", &E::ENTITY_TYPE)
            .field("key", &self.key)
            .field("consistent", &self.consistent)
            .finish()
    }
}

impl<E: Entity> Get<E> {
    /// A get of `key`.
    pub fn new(key: Key<E>) -> Self {
        Get {
            key,
            consistent: false,
        }
    }

    /// A strongly consistent read.
    pub fn consistent(mut self) -> Self {
        self.consistent = true;
        self
    }

    /// The request this get sends (borrowing the key), or the error of an invalid key.
    pub fn request(&self) -> Result<GetRequest<'_>> {
        Ok(GetRequest {
            consistent_read: self.consistent,
            ..GetRequest::borrowed(&table_def::<E>().name, super::support::key_ref(&self.key)?)
        })
    }

    /// The request this get sends, owning the key: the store hands it to the server without
    /// copying it.
    fn into_request(self) -> Result<GetRequest<'static>> {
        super::support::key_ref(&self.key)?;
        Ok(GetRequest {
            consistent_read: self.consistent,
            ..GetRequest::new(table_def::<E>().name.as_str(), self.key.into_item())
        })
    }

    /// Reads the item: `None` when absent, expired or another entity's.
    pub async fn send<S: Store + ?Sized>(self, store: &S) -> Result<Option<E>> {
        let span = tracing::debug_span!("dyno.get", entity = E::ENTITY_TYPE);
        let request = self.into_request()?;
        let out = store
            .get_item(request)
            .instrument(span)
            .await
            .map_err(|e| e.for_entity(E::ENTITY_TYPE))?;
        match out.item {
            Some(item) if readable::<E>(&item) => decode::<E>(&item).map(Some),
            _ => Ok(None),
        }
    }
}
