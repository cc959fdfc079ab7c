//! Typed DeleteItem.

use std::fmt;

use tracing::Instrument;

use super::entity_rules::{hidden, owned_by, table_name, ttl_attribute, version_is, write_result};
use super::Key;
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::expr::{Cond, Condition};
use crate::store::{DeleteRequest, ReturnValues, Store, TransactWriteItem};

/// Deletes one `E` and returns the item it deleted; built by [`super::EntityExt::delete`].
///
/// A delete never removes another entity's item (entities sharing a key shape): it is conditioned
/// on the item's entity-type attribute being `E`'s or absent, in the same request, and fails with
/// [`Error::WrongEntity`] otherwise, changing nothing (in a [`super::Transaction`], the same
/// condition cancels the transaction). A [`super::BatchWriter::delete`] carries the same
/// condition.
#[must_use = "a delete does nothing until it is sent"]
pub struct Delete<E: Entity> {
    key: Key<E>,
    condition: Option<Condition>,
    /// The first condition that failed to build: sending fails with it.
    condition_error: Option<Error>,
    version: Option<u64>,
}

impl<E: Entity> fmt::Debug for Delete<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Delete")
            .field("entity", &E::ENTITY_TYPE)
            .field("key", &self.key)
            .field("condition", &self.condition)
            .field("version", &self.version)
            .finish()
    }
}

impl<E: Entity> Delete<E> {
    /// A delete of the item at `key`.
    pub fn new(key: Key<E>) -> Self {
        Delete {
            key,
            condition: None,
            condition_error: None,
            version: None,
        }
    }

    /// Adds a condition on the existing item, ANDed with the others: a typed condition on `E`'s
    /// fields, or an untyped one through [`Cond::raw`]. A condition that failed to build makes
    /// sending fail with its error.
    pub fn condition(mut self, c: Cond<E>) -> Self {
        match c.into_condition() {
            Ok(c) => self.condition = Some(Condition::and_opt(self.condition, c)),
            Err(e) => {
                self.condition_error.get_or_insert(e);
            }
        }
        self
    }

    /// Optimistic lock: the stored version must be `v`.
    pub fn if_version(mut self, v: u64) -> Self {
        self.version = Some(v);
        self
    }

    fn condition_expr(&self) -> Result<Option<Condition>> {
        let mut cond = Some(Condition::and_opt(self.condition.clone(), owned_by::<E>()));
        if let Some(v) = self.version {
            let attr = E::VERSION_ATTRIBUTE.ok_or_else(|| {
                Error::validation(format!(
                    "delete of {}: if_version({v}) needs a version attribute, and {} has none",
                    E::ENTITY_TYPE,
                    E::ENTITY_TYPE
                ))
            })?;
            // A version check on a missing item must fail, not pass as "no version stored".
            let check = if v == 0 {
                version_is(attr, 0).and(super::entity_rules::item_exists::<E>())
            } else {
                version_is(attr, v)
            };
            cond = Some(Condition::and_opt(cond, check));
        }
        Ok(cond)
    }

    /// The key (or its error, first) and the condition.
    fn parts(mut self) -> Result<(crate::value::Item, Option<Condition>)> {
        if let Some(e) = self.condition_error.take() {
            return Err(e.for_entity(E::ENTITY_TYPE));
        }
        let condition = self.condition_expr();
        let key = super::key_limits::key_item(self.key)?;
        Ok((key, condition?))
    }

    /// The request this delete sends.
    pub fn into_request(self) -> Result<DeleteRequest> {
        let (key, condition) = self.parts()?;
        Ok(DeleteRequest {
            table: table_name::<E>(),
            key,
            condition,
            return_values: ReturnValues::AllOld,
            return_old_on_condition_failure: false,
        })
    }

    /// The same delete as an action of a [`super::Transaction`].
    pub fn into_transact(self) -> Result<TransactWriteItem> {
        let (key, condition) = self.parts()?;
        Ok(TransactWriteItem::delete(table_name::<E>(), key).with_condition(condition))
    }

    /// Deletes the item; returns it as it was (`None` when there was none, or it had expired).
    /// An item deleted from another spelling of its key (a key built with [`Key::from_item`]
    /// from a stored item, see [`Error::KeyMismatch`]) is returned as decoded at its canonical
    /// key: it is gone from where it was, so writing the value back moves it.
    pub async fn send<S: Store + ?Sized>(self, store: &S) -> Result<Option<E>> {
        let span = tracing::debug_span!("dyno.delete", entity = E::ENTITY_TYPE);
        let request = self.into_request()?;
        let key = request.key.clone();
        let result = store.delete_item(request).instrument(span).await;
        let out = write_result::<E, S, _>(store, &key, result).await?;
        match out.attributes {
            Some(item) if !item.is_empty() && !hidden(&item, ttl_attribute::<E>()) => {
                crate::entity::recover::decode_rekeyed::<E>(&item)
                    .map(Some)
                    .map_err(|e| e.for_entity(E::ENTITY_TYPE))
            }
            _ => Ok(None),
        }
    }
}
