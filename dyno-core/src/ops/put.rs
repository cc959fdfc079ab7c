//! Typed PutItem: upsert, create and replace, with optimistic locking.

use std::fmt;

use tracing::Instrument;

use super::support::{
    check_key_size, decode, item_absent, item_exists, key_of, number, owned_by, table_def,
    table_name, version_is, write_result,
};
use crate::entity::Entity;
use crate::error::Result;
use crate::expr::{Cond, Condition};
use crate::store::{PutRequest, ReturnValues, Store, TransactWriteItem};
use crate::value::{check_item_size, Item};

/// What a put requires of the existing item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PutMode {
    /// Write whether or not the item exists.
    Upsert,
    /// The item must not exist ([`crate::Error::ConditionFailed`] otherwise).
    Create,
    /// The item must exist ([`crate::Error::ConditionFailed`] otherwise).
    Replace,
}

/// Writes one whole `E`; built by [`super::EntityExt::put`], `create` and `replace`.
///
/// # Versioning
///
/// When `E` has a version attribute, the item is written with `version + 1`, and the write
/// requires the stored version to be the entity's current one:
/// - version 0 means "never stored": an upsert then requires that the item does not exist, a
///   replace that it exists without a version (written by another client) or with version 0;
/// - version `v > 0`: the stored version must be `v`;
/// - create always requires that the item does not exist.
///
/// A stale version fails with [`crate::Error::ConditionFailed`]. After a successful write the
/// stored version is `entity.version() + 1`.
///
/// # Ownership
///
/// A put or replace never overwrites another entity's item (entities sharing a key shape, such
/// as users and organizations at `ACCOUNT#{name}`): the write is conditioned on the item's
/// entity-type attribute being `E`'s or absent, in the same request, and fails with
/// [`crate::Error::WrongEntity`] otherwise, changing nothing. In a [`super::Transaction`] the
/// same condition cancels the transaction. A create fails with
/// [`crate::Error::ConditionFailed`] on any existing item.
#[must_use = "a put does nothing until it is sent"]
pub struct Put<'a, E: Entity> {
    entity: &'a E,
    mode: PutMode,
    condition: Option<Condition>,
    /// The first condition that failed to build: sending fails with it.
    condition_error: Option<std::sync::Arc<crate::Error>>,
}

impl<E: Entity> fmt::Debug for Put<'_, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Put")
            .field("entity", &E::ENTITY_TYPE)
            .field("mode", &self.mode)
            .field("condition", &self.condition)
            .finish()
    }
}

impl<'a, E: Entity> Put<'a, E> {
    /// A put of `entity` in `mode`.
    pub fn new(entity: &'a E, mode: PutMode) -> Self {
        Put {
            entity,
            mode,
            condition: None,
            condition_error: None,
        }
    }

    /// Adds a condition on the existing item, ANDed with the others: a typed condition on `E`'s
    /// fields (`Order::TOTAL.gt(..)`), or an untyped one through [`Cond::raw`]. A condition that
    /// failed to build (a value that does not encode) makes sending fail with its error.
    pub fn condition(mut self, c: Cond<E>) -> Self {
        match c.into_condition() {
            Ok(c) => self.condition = Some(Condition::and_opt(self.condition, c)),
            Err(e) => {
                self.condition_error
                    .get_or_insert_with(|| std::sync::Arc::new(e));
            }
        }
        self
    }

    /// The item and condition this put writes; the size check included.
    pub(crate) fn parts(&self) -> Result<(Item, Option<Condition>)> {
        if let Some(e) = &self.condition_error {
            return Err(crate::Error::clone(e).for_entity(E::ENTITY_TYPE));
        }
        let mut item = self
            .entity
            .to_item()
            .map_err(|e| e.for_entity(E::ENTITY_TYPE))?;
        let mut cond = match self.mode {
            PutMode::Upsert => Some(owned_by::<E>()),
            PutMode::Create => Some(item_absent::<E>()),
            PutMode::Replace => Some(item_exists::<E>().and(owned_by::<E>())),
        };
        if let Some(attr) = E::VERSION_ATTRIBUTE {
            let v = self.entity.version().unwrap_or(0);
            let next = v.checked_add(1).ok_or_else(|| crate::Error::OutOfRange {
                entity: Some(E::ENTITY_TYPE),
                field: attr.to_owned(),
                message: format!(
                    "version {v} is the largest a u64 holds, so a write cannot increment it"
                ),
            })?;
            item.insert(attr.to_owned(), number(next));
            let check = match (self.mode, v) {
                (PutMode::Create, _) => None,
                (PutMode::Upsert, 0) => Some(item_absent::<E>()),
                (PutMode::Upsert, v) => Some(version_is(attr, v)),
                (PutMode::Replace, v) => Some(version_is(attr, v)),
            };
            if let Some(check) = check {
                cond = Some(Condition::and_opt(cond, check));
            }
        }
        if let Some(c) = &self.condition {
            cond = Some(Condition::and_opt(cond, c.clone()));
        }
        check_key_size::<E>(&item)?;
        check_item_size(&item, Some(E::ENTITY_TYPE))?;
        Ok((item, cond))
    }

    /// The request this put sends.
    pub fn into_request(self) -> Result<PutRequest> {
        let (item, condition) = self.parts()?;
        Ok(PutRequest {
            table: table_name::<E>(),
            item,
            condition,
            return_values: ReturnValues::None,
            return_old_on_condition_failure: false,
        })
    }

    /// The same write as an action of a [`super::Transaction`].
    pub fn into_transact(self) -> Result<TransactWriteItem> {
        let (item, condition) = self.parts()?;
        Ok(TransactWriteItem::Put {
            table: table_name::<E>(),
            item,
            condition,
            return_old_on_condition_failure: false,
        })
    }

    /// Writes the item. An item over 400 KB is refused with [`crate::Error::ItemTooLarge`] before
    /// any request is made.
    pub async fn send<S: Store + ?Sized>(self, store: &S) -> Result<()> {
        self.write(store, false).await.map(drop)
    }

    /// Writes the item as [`Self::send`] does and returns the entity as written, with the
    /// values the write decided: ids of `#[dyno(generated)]` fields left `None`, the
    /// `created_at`/`updated_at` stamps, the incremented version. They are decided once, for
    /// the attributes and every key made from them, so the returned entity's
    /// [`key`](Entity::key) is the stored item's key; no second read is needed.
    ///
    /// ```
    /// # use dyno_core::prelude::*;
    /// # use dyno_core::Entity;
    /// # #[derive(dyno_core::Table)]
    /// # #[dyno(name = "Shop", pk = "PK", sk = "SK")]
    /// # struct Shop;
    /// #[derive(Debug, Clone, PartialEq, Entity)]
    /// #[dyno(table = Shop, pk = "USER#{user}", sk = "NOTE#{n}")]
    /// struct Note {
    ///     user: String,
    ///     n: u32,
    ///     #[dyno(version)]
    ///     version: u64,
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> dyno_core::Result<()> {
    /// let store = MemoryStore::new();
    /// store.create_table(Shop::definition()).await?;
    /// let note = Note { user: "u".into(), n: 1, version: 0 };
    /// let written = note.create().send_returning(&store).await?;
    /// assert_eq!(written.version, 1);
    /// assert_eq!(Note::get(Note::key("u", 1u32)).send(&store).await?, Some(written));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn send_returning<S: Store + ?Sized>(self, store: &S) -> Result<E> {
        self.write(store, true).await?.ok_or_else(|| {
            crate::Error::validation(format!(
                "put of {}: the written entity was not kept",
                E::ENTITY_TYPE
            ))
        })
    }

    /// Sends the put; with `returning`, the entity decoded from the item sent (decoded before
    /// sending, so the item is not copied; handed back only once written).
    async fn write<S: Store + ?Sized>(self, store: &S, returning: bool) -> Result<Option<E>> {
        let span = tracing::debug_span!("dyno.put", entity = E::ENTITY_TYPE, mode = ?self.mode);
        let create = self.mode == PutMode::Create;
        let request = self.into_request()?;
        let key = key_of(&request.item, table_def::<E>())?;
        let written = (returning.then(|| decode::<E>(&request.item)).transpose()).map_err(|e| {
            crate::Error::validation(format!(
                "put of {}: the item to write does not decode back ({e}); nothing was written",
                E::ENTITY_TYPE
            ))
        })?;
        match store.put_item(request).instrument(span).await {
            // A create fails on any existing item: the key is taken, whoever holds it.
            Err(e) if create => Err(e.for_entity(E::ENTITY_TYPE)),
            result => write_result::<E, S, _>(store, &key, result)
                .await
                .map(|_| written),
        }
    }
}
