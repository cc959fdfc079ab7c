//! Typed PutItem: upsert, create and replace, with optimistic locking.

use std::collections::HashSet;
use std::fmt;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tracing::Instrument;

use super::entity_rules::{
    condition_failure_of, decode, key_of, number, version_is, EntityShape, Owner,
};
use super::key_limits::check_item_keys;
use crate::entity::Entity;
use crate::error::{Error, Result, UnknownWrite};
use crate::expr::{Cond, Condition, Path, SetValue, Update, UpdateOperand};
use crate::store::{GetRequest, PutRequest, ReturnValues, Store, TransactWriteItem, UpdateRequest};
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
/// # Decided once, resent the same
///
/// The item is made when the builder is built: ids of `#[dyno(generated)]` fields left `None`,
/// the `created_at`/`updated_at` stamps (from one clock reading, so a new item's `created_at`
/// equals its `updated_at`) and the incremented version. [`Put::send`] takes `&self`, so after
/// an [`Error::OutcomeUnknown`] (a timeout: the write may have been applied) sending the same
/// builder again writes the same item under the same key, never a second item under a new id;
/// and the error carries what was tried ([`Error::unknown_write`]: the key and the item), so the
/// caller can read that key instead.
///
/// # Stamps
///
/// A put or replace of an item that may exist, with its `#[dyno(created_at)]` field unset
/// (`None`), keeps the stored creation time: it is sent as one UpdateItem that sets every
/// attribute of the entity, `created_at = if_not_exists(created_at, :now)`, and removes the
/// entity's attributes the item leaves out (`None` fields, sparse index keys), with the same
/// conditions as the put (ownership, version). Attributes the entity does not know (written by
/// other clients) are kept by that form, where a PutItem drops them. A `created_at` the code
/// sets is written as given; a create, and an upsert of a versioned entity at version 0 (which
/// requires that the item does not exist), are a plain PutItem. When an index key is made from
/// `created_at` (with other fields), one request cannot rebuild it from the stored time: the
/// write then requires that the stored item has no `created_at`, and an existing stamped item
/// fails with [`Error::Validation`] naming the fix (set the field, or use an update), nothing
/// written. A [`super::BatchWriter`] put has no UpdateItem: it stamps an unset `created_at` with
/// the time of the write, replacing the stored one.
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
    /// Everything the put holds, not generic over the entity: its bodies are compiled once,
    /// with `E`'s constants passed as a [`PutShape`].
    w: PutState,
    _e: PhantomData<fn() -> &'a E>,
}

/// A [`Put`]'s state.
#[derive(Clone)]
struct PutState {
    /// The item as written, decided when the builder was built, or the error met making it.
    item: std::result::Result<Arc<Item>, Arc<Error>>,
    /// The entity's version before the write (0 when unversioned or never stored).
    version: u64,
    /// True when the write keeps a stored `created_at` (sent as UpdateItem).
    keep_created: bool,
    mode: PutMode,
    condition: Option<Condition>,
    /// The first condition that failed to build: sending fails with it.
    condition_error: Option<Arc<Error>>,
    /// Set when a send of this builder ended in an unknown outcome: a later send whose
    /// condition fails on exactly the item this builder writes was applied by that send.
    /// Shared by clones of the builder.
    unknown: Arc<AtomicBool>,
}

/// The constants of an entity that a put needs, as values.
#[derive(Clone, Copy)]
struct PutShape {
    shape: EntityShape,
    owner: Owner,
    /// The entity's `created_at` field and attribute.
    created_at: Option<(&'static str, &'static str)>,
    /// Every attribute the entity writes.
    attributes: &'static [&'static str],
}

impl PutShape {
    /// `E`'s.
    #[inline]
    fn of<E: Entity>() -> Self {
        PutShape {
            shape: EntityShape::of::<E>(),
            owner: Owner::of::<E>(),
            created_at: E::CREATED_AT,
            attributes: E::ATTRIBUTES,
        }
    }

    fn entity(&self) -> &'static str {
        self.shape.entity
    }
}

impl<E: Entity> Clone for Put<'_, E> {
    fn clone(&self) -> Self {
        Put {
            w: self.w.clone(),
            _e: PhantomData,
        }
    }
}

impl<E: Entity> fmt::Debug for Put<'_, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Put")
            .field("entity", &E::ENTITY_TYPE)
            .field("mode", &self.w.mode)
            .field("keeps_created_at", &self.w.keep_created)
            .field("condition", &self.w.condition)
            .finish()
    }
}

/// The request a [`Put`] sends: a PutItem, or an UpdateItem when it keeps a stored
/// `created_at` (see [`Put`]'s "Stamps").
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum PutWriteRequest {
    /// A PutItem.
    Put(PutRequest),
    /// An UpdateItem that writes the whole entity and keeps the stored `created_at`.
    Update(UpdateRequest),
}

impl<'a, E: Entity> Put<'a, E> {
    /// A put of `entity` in `mode`. The item is made now: its generated ids, stamps and version
    /// are fixed for every send of this builder.
    pub fn new(entity: &'a E, mode: PutMode) -> Self {
        let version = entity.version().unwrap_or(0);
        let item = entity.to_item();
        let created_at_unset = entity.created_at_unset();
        Put {
            w: PutState::new(&PutShape::of::<E>(), item, version, mode, created_at_unset),
            _e: PhantomData,
        }
    }

    /// Adds a condition on the existing item, ANDed with the others: a typed condition on `E`'s
    /// fields (`Order::TOTAL.gt(..)`), or an untyped one through [`Cond::raw`]. A condition that
    /// failed to build (a value that does not encode) makes sending fail with its error.
    pub fn condition(mut self, c: Cond<E>) -> Self {
        match c.into_condition() {
            Ok(c) => self.w.condition = Some(Condition::and_opt(self.w.condition, c)),
            Err(e) => {
                self.w.condition_error.get_or_insert_with(|| Arc::new(e));
            }
        }
        self
    }

    /// The item this put writes, as decided when it was built (ids, stamps, version).
    pub fn item(&self) -> Result<&Item> {
        self.w.item(E::ENTITY_TYPE)
    }

    /// The entity as this put writes it (decoded from [`Self::item`]).
    pub fn entity(&self) -> Result<E> {
        decode::<E>(self.item()?).map_err(|e| {
            Error::validation(format!(
                "put of {}: the item to write does not decode back ({e}); nothing was written",
                E::ENTITY_TYPE
            ))
        })
    }

    /// The attributes this put keeps when the item exists (sent as UpdateItem, they are set
    /// with `if_not_exists`): `created_at` and the index keys made of it alone. Empty when it
    /// keeps nothing.
    pub(crate) fn kept_attributes(&self) -> Vec<String> {
        self.w.kept_attributes(&PutShape::of::<E>())
    }

    /// The item and condition of the PutItem form (the size checks included), moved out.
    pub(crate) fn into_parts(self) -> Result<(Item, Option<Condition>)> {
        self.w.into_parts(&PutShape::of::<E>())
    }

    /// The request this put sends: a PutItem, or an UpdateItem when it keeps a stored
    /// `created_at` (see "Stamps" above).
    pub fn write_request(&self) -> Result<PutWriteRequest> {
        self.w.write_request(&PutShape::of::<E>())
    }

    /// The PutItem this put sends. A put that keeps a stored `created_at` is an UpdateItem
    /// instead: [`Error::Validation`] here, use [`Self::write_request`].
    pub fn into_request(self) -> Result<PutRequest> {
        self.w.into_request(&PutShape::of::<E>())
    }

    /// The same write as an action of a [`super::Transaction`].
    pub fn into_transact(self) -> Result<TransactWriteItem> {
        Ok(match self.write_request()? {
            PutWriteRequest::Put(r) => {
                TransactWriteItem::put(r.table, r.item).with_condition(r.condition)
            }
            PutWriteRequest::Update(r) => {
                TransactWriteItem::update(r.table, r.key, r.update).with_condition(r.condition)
            }
        })
    }

    /// Writes the item. An item over 400 KB is refused with [`crate::Error::ItemTooLarge`] before
    /// any request is made. Sending the same builder again repeats the same write (same ids,
    /// stamps and version): the way to retry after [`Error::OutcomeUnknown`]. A resend whose
    /// condition fails on exactly the item this builder writes (an earlier send of it was
    /// applied, its response lost) succeeds. The future borrows the store only.
    pub fn send<'s, S: Store + ?Sized>(
        &self,
        store: &'s S,
    ) -> impl Future<Output = Result<()>> + Send + use<'s, S, E> {
        let prepared = self.prepare();
        async move { prepared?.write(store).await.map(drop) }
    }

    /// Writes the item as [`Self::send`] does and returns the entity as written, with the
    /// values the write decided: ids of `#[dyno(generated)]` fields left `None`, the
    /// `created_at`/`updated_at` stamps, the incremented version. They are decided once, when
    /// the builder is built, for the attributes and every key made from them, so the returned
    /// entity's [`key`](Entity::key) is the stored item's key; no second read is needed. A put
    /// that keeps a stored `created_at` (an UpdateItem) asks for the item as written
    /// (`ReturnValues::AllNew`) and returns it, so its `created_at` is the stored one.
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
    pub fn send_returning<'s, S: Store + ?Sized>(
        &self,
        store: &'s S,
    ) -> impl Future<Output = Result<E>> + Send + use<'s, S, E> {
        // Decoded before sending: a write whose item does not decode back is not sent.
        let prepared = self.entity().and_then(|e| Ok((e, self.prepare()?)));
        async move {
            let (written, mut prepared) = prepared?;
            prepared.returning = true;
            match prepared.write(store).await? {
                // The item as stored: the kept `created_at` is not the one the builder decided.
                Some(stored) => E::from_item(&stored),
                None => Ok(written),
            }
        }
    }

    /// What one send needs, owned.
    fn prepare(&self) -> Result<Prepared> {
        self.w.prepare(&PutShape::of::<E>())
    }
}

impl PutState {
    /// A put in `mode` of the entity whose item (`to_item`'s result) is `item` at `version`:
    /// the item is made now (the version incremented, the sizes checked).
    fn new(
        s: &PutShape,
        item: Result<Item>,
        version: u64,
        mode: PutMode,
        created_at_unset: bool,
    ) -> Self {
        let item = Self::make_item(s, item, version)
            .map(Arc::new)
            .map_err(Arc::new);
        let maybe_existing = match mode {
            PutMode::Create => false,
            PutMode::Upsert => s.shape.version.is_none() || version > 0,
            PutMode::Replace => true,
        };
        PutState {
            item,
            version,
            keep_created: maybe_existing && s.created_at.is_some() && created_at_unset,
            mode,
            condition: None,
            condition_error: None,
            unknown: Arc::new(AtomicBool::new(false)),
        }
    }

    fn make_item(s: &PutShape, item: Result<Item>, v: u64) -> Result<Item> {
        let entity = s.entity();
        let mut item = item.map_err(|e| e.for_entity(entity))?;
        if let Some(attr) = s.shape.version {
            let next = v.checked_add(1).ok_or_else(|| Error::OutOfRange {
                entity: Some(entity),
                field: attr.to_owned(),
                message: format!(
                    "version {v} is the largest a u64 holds, so a write cannot increment it"
                ),
            })?;
            item.insert(attr.to_owned(), number(next));
        }
        check_item_keys(&s.shape, &item)?;
        check_item_size(&item, Some(entity))?;
        Ok(item)
    }

    /// [`Put::item`].
    fn item(&self, entity: &'static str) -> Result<&Item> {
        if let Some(e) = &self.condition_error {
            return Err(Error::clone(e).for_entity(entity));
        }
        self.item.as_deref().map_err(|e| Error::clone(e))
    }

    /// The condition this put sends.
    fn conditions(&self, s: &PutShape) -> Option<Condition> {
        let owner = &s.owner;
        let mut cond = Some(match self.mode {
            PutMode::Upsert => owner.owned_by(),
            PutMode::Create => owner.item_absent(),
            PutMode::Replace => owner.item_exists().and(owner.owned_by()),
        });
        if let Some(attr) = s.shape.version {
            let check = match (self.mode, self.version) {
                (PutMode::Create, _) => None,
                (PutMode::Upsert, 0) => Some(owner.item_absent()),
                (PutMode::Upsert, v) => Some(version_is(attr, v)),
                (PutMode::Replace, v) => Some(version_is(attr, v)),
            };
            if let Some(check) = check {
                cond = Some(Condition::and_opt(cond, check));
            }
        }
        if let (true, Some((_, created))) = (self.keep_created, s.created_at) {
            for (attr, only) in created_keys(s) {
                // A key made of the stamp alone is kept with it (`if_not_exists`), which is
                // right when the stored key was made from the stored stamp; one made with
                // other fields cannot be rebuilt in one request.
                let c = if only {
                    Condition::not_exists(created).or(Condition::exists(attr.as_str()))
                } else {
                    Condition::not_exists(created)
                };
                cond = Some(Condition::and_opt(cond, c));
            }
        }
        if let Some(c) = &self.condition {
            cond = Some(Condition::and_opt(cond, c.clone()));
        }
        cond
    }

    /// [`Put::kept_attributes`].
    fn kept_attributes(&self, s: &PutShape) -> Vec<String> {
        let Some((_, created)) = s.created_at.filter(|_| self.keep_created) else {
            return Vec::new();
        };
        let keys = created_keys(s).into_iter();
        std::iter::once(created.to_owned())
            .chain(keys.filter_map(|(attr, only)| only.then_some(attr)))
            .collect()
    }

    /// True when this put keeps a stored `created_at` and an index key is made from it with
    /// other fields.
    fn created_in_index_key(&self, s: &PutShape) -> bool {
        self.keep_created && created_keys(s).iter().any(|(_, only)| !only)
    }

    /// [`Put::into_parts`].
    fn into_parts(self, s: &PutShape) -> Result<(Item, Option<Condition>)> {
        if let Some(e) = &self.condition_error {
            return Err(Error::clone(e).for_entity(s.entity()));
        }
        let cond = self.conditions(s);
        let item = self.item.map_err(|e| Error::clone(&e))?;
        Ok((Arc::unwrap_or_clone(item), cond))
    }

    /// The UpdateItem that writes `item` whole and keeps a stored `created_at`.
    fn keeping_update(s: &PutShape, item: &Item) -> Result<(Item, Update)> {
        let key = key_of(item, s.shape.def)?;
        let created = s.created_at.map(|(_, a)| a);
        let kept: Vec<String> = (created_keys(s).into_iter())
            .filter_map(|(attr, only)| only.then_some(attr))
            .collect();
        let mut update = Update::default();
        let mut names: Vec<&String> = item
            .keys()
            .filter(|n| !key.contains_key(n.as_str()))
            .collect();
        names.sort();
        for name in names {
            let value = item[name].clone();
            let set = if Some(name.as_str()) == created || kept.contains(name) {
                SetValue::Operand(UpdateOperand::IfNotExists(
                    Path::attr(name.as_str()),
                    Box::new(UpdateOperand::Value(value)),
                ))
            } else {
                SetValue::value(value)
            };
            update.set.push((Path::attr(name.as_str()), set));
        }
        let mut removed = HashSet::new();
        for attr in s.attributes {
            if !item.contains_key(*attr) && !key.contains_key(*attr) && removed.insert(*attr) {
                update.remove.push(Path::attr(*attr));
            }
        }
        Ok((key, update))
    }

    /// [`Put::write_request`].
    fn write_request(&self, s: &PutShape) -> Result<PutWriteRequest> {
        let item = self.item(s.entity())?;
        let condition = self.conditions(s);
        let table = s.shape.def.name.clone();
        if self.keep_created {
            let (key, update) = Self::keeping_update(s, item)?;
            return Ok(PutWriteRequest::Update(UpdateRequest {
                table,
                key,
                update,
                condition,
                return_values: ReturnValues::None,
                return_old_on_condition_failure: self.created_in_index_key(s),
            }));
        }
        Ok(PutWriteRequest::Put(PutRequest {
            table,
            item: Item::clone(item),
            condition,
            return_values: ReturnValues::None,
            return_old_on_condition_failure: false,
        }))
    }

    /// [`Put::into_request`].
    fn into_request(self, s: &PutShape) -> Result<PutRequest> {
        if self.keep_created {
            return Err(Error::validation(format!(
                "put of {}: it keeps the stored created_at, so it is an UpdateItem: use write_request()",
                s.entity()
            )));
        }
        let (item, condition) = self.into_parts(s)?;
        Ok(PutRequest {
            table: s.shape.def.name.clone(),
            item,
            condition,
            return_values: ReturnValues::None,
            return_old_on_condition_failure: false,
        })
    }

    /// [`Put::prepare`].
    fn prepare(&self, s: &PutShape) -> Result<Prepared> {
        let request = self.write_request(s)?;
        let item = match &self.item {
            Ok(item) => item.clone(),
            Err(e) => return Err(Error::clone(e)),
        };
        let key = key_of(&item, s.shape.def)?;
        Ok(Prepared {
            request: Some(request),
            item,
            key,
            unknown: self.unknown.clone(),
            create: self.mode == PutMode::Create,
            mode: self.mode,
            kept: s.created_at.filter(|_| self.keep_created).map(|(_, a)| a),
            stamped_index: self.created_in_index_key(s),
            returning: false,
            owner: s.owner,
            created_at: s.created_at,
        })
    }
}

/// One send of a [`Put`], owned so that its future borrows only the store. Not generic over the
/// entity (its constants are fields): the send is compiled once per store type.
struct Prepared {
    /// Taken by the send.
    request: Option<PutWriteRequest>,
    item: Arc<Item>,
    key: Item,
    unknown: Arc<AtomicBool>,
    create: bool,
    mode: PutMode,
    /// The `created_at` attribute the write keeps, when it does.
    kept: Option<&'static str>,
    stamped_index: bool,
    /// `send_returning`: an UpdateItem that keeps `created_at` asks for the item as written.
    returning: bool,
    /// The entity written.
    owner: Owner,
    /// The entity's `created_at` field and attribute.
    created_at: Option<(&'static str, &'static str)>,
}

impl Prepared {
    /// True when `stored` is exactly the item this write sends (its stamps and generated ids
    /// included; a kept `created_at` aside): an earlier send of it was applied.
    fn is_own(&self, stored: &Item) -> bool {
        let kept = self.kept;
        let same = |(name, value): (&String, &crate::AttributeValue)| {
            Some(name.as_str()) == kept || stored.get(name) == Some(value)
        };
        self.item.iter().all(same)
            && (stored.keys())
                .all(|name| self.item.contains_key(name) || Some(name.as_str()) == kept)
    }

    /// Sends the write. Returns the item as stored when the write kept a stored `created_at`
    /// and [`Self::returning`] asked for it (`None` otherwise).
    async fn write<S: Store + ?Sized>(mut self, store: &S) -> Result<Option<Item>> {
        let span =
            tracing::debug_span!("dyno.put", entity = self.owner.entity(), mode = ?self.mode);
        let resent = self.unknown.load(Ordering::Relaxed);
        let Some(mut request) = self.request.take() else {
            return Ok(None);
        };
        if let (true, PutWriteRequest::Update(r)) = (self.returning, &mut request) {
            r.return_values = ReturnValues::AllNew;
        }
        let kept = self.kept.is_some() && self.returning;
        if resent {
            match &mut request {
                PutWriteRequest::Put(r) => r.return_old_on_condition_failure = true,
                PutWriteRequest::Update(r) => r.return_old_on_condition_failure = true,
            }
        }
        let result = match request {
            PutWriteRequest::Put(r) => store.put_item(r).instrument(span).await.map(|_| None),
            PutWriteRequest::Update(r) => (store.update_item(r).instrument(span).await)
                .map(|out| out.attributes.filter(|_| kept)),
        };
        match result {
            Ok(stored) => Ok(stored),
            Err(Error::OutcomeUnknown {
                message, source, ..
            }) => {
                self.unknown.store(true, Ordering::Relaxed);
                Err(Error::OutcomeUnknown {
                    message,
                    source,
                    write: Some(Box::new(UnknownWrite::new(
                        self.owner.entity(),
                        self.owner.table().name.clone(),
                        self.key.clone(),
                        Item::clone(&self.item),
                    ))),
                })
            }
            // A resend after an unknown outcome whose condition fails on the very item this
            // builder writes: the earlier send was applied, and this one changed nothing.
            Err(Error::ConditionFailed { item: old, entity }) if resent => {
                let stored = match old {
                    Some(old) => Some(old),
                    None => {
                        let request =
                            GetRequest::borrowed(&self.owner.table().name, &self.key).consistent();
                        (store.get_item(request).await.ok())
                            .and_then(|o| o.item)
                            .map(|i| Item::clone(&i))
                    }
                };
                match stored {
                    Some(stored) if self.is_own(&stored) => Ok(kept.then_some(stored)),
                    item => Err(self
                        .failed(store, Error::ConditionFailed { entity, item })
                        .await),
                }
            }
            Err(e) => Err(self.failed(store, e).await),
        }
    }

    /// The error of a failed write.
    async fn failed<S: Store + ?Sized>(&self, store: &S, e: Error) -> Error {
        // A create fails on any existing item: the key is taken, whoever holds it.
        let entity = self.owner.entity();
        if self.create {
            return e.for_entity(entity);
        }
        let stamped_index = self.stamped_index;
        let created_at = self.created_at;
        condition_failure_of(store, self.owner, &self.key, e, &mut |old| {
            let (field, attr) = created_at?;
            (stamped_index && old?.contains_key(attr)).then(|| {
                Error::validation(format!(
                    "put of {entity}: the stored item has a `{field}` (created_at) and an index key of {entity} is made from it \
                     with other fields, which one request cannot rebuild from the stored time; nothing was written. Set \
                     `{field}` to the stored value (from a get) to replace the item, or change it with an update",
                ))
            })
        })
        .await
    }
}

/// The index key attributes of the entity made from its `created_at` field, each with `true`
/// when the stamp is its template's only field.
fn created_keys(s: &PutShape) -> Vec<(String, bool)> {
    let Some((field, _)) = s.created_at else {
        return Vec::new();
    };
    let def = s.shape.def;
    let mut out = Vec::new();
    for ix in s.shape.indexes {
        let Some(d) = (def.global_indexes.iter())
            .chain(&def.local_indexes)
            .find(|d| d.name == ix.index)
        else {
            continue;
        };
        let keys = [
            (Some(ix.pk), Some(&d.partition_key)),
            (ix.sk, d.sort_key.as_ref()),
        ];
        for (template, attr) in keys {
            let (Some(t), Some(attr)) = (template, attr) else {
                continue;
            };
            if t.fields().any(|f| f == field) && !def.key_names().any(|k| k == attr.name) {
                out.push((attr.name.clone(), t.fields().all(|f| f == field)));
            }
        }
    }
    out
}
