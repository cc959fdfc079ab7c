//! Transactions: typed write transactions (all or nothing) and typed transactional reads.

use std::collections::HashSet;
use std::fmt;
use std::marker::PhantomData;

use tracing::Instrument;

use super::canon::{item_bytes, Writer};
use super::entity_rules::{decode, key_of, readable, table_def, table_name};
use super::update::{is_missing_parent, missing_parent, nested_paths};
use super::{Delete, Key, Put, PutMode};
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::expr::Path;
use crate::store::{
    GetRequest, Store, TransactGetItem, TransactGetRequest, TransactWriteItem, TransactWriteOutput,
    TransactWriteRequest,
};
use crate::value::{item_size, Item, SharedItem};

/// DynamoDB's maximum number of actions in one transaction.
pub(super) const MAX_TRANSACTION_ACTIONS: usize = 100;
/// DynamoDB's maximum size of a transaction's items.
const MAX_TRANSACTION_BYTES: usize = 4 * 1024 * 1024;

/// A write transaction: up to 100 actions on distinct items, applied all or nothing.
///
/// Builder methods record the first error (an item that does not encode, is too large, a
/// version check on an unversioned entity, two actions on one item) and [`Transaction::send`]
/// returns it without sending anything. A cancelled transaction is
/// [`Error::TransactionCanceled`] with one reason per action, in order.
///
/// # Resending
///
/// Everything the request holds is decided when an action is added: generated ids, stamps,
/// versions, and the client request token (a random one unless [`Self::token`] gives one).
/// [`Self::send`] takes `&self`: after an [`Error::OutcomeUnknown`] (a timeout, a lost
/// response), sending the same `Transaction` again within ten minutes repeats the same request
/// with the same token, and DynamoDB applies it once (moto ignores tokens). A transaction
/// *rebuilt* from the same entities is a different request (new ids and stamps): with the same
/// token it is refused as an idempotency mismatch, explained in the error.
///
/// # What was written
///
/// [`Self::create_returning`], [`Self::put_returning`] and [`Self::replace_returning`] add a
/// write and return a typed handle; [`Self::send_returning`]'s result gives back each entity
/// as stored (generated ids, stamps, version), like [`super::Put::send_returning`]: a put that
/// kept the stored `created_at` of an existing item gives that time, read back after the commit.
#[must_use = "a transaction does nothing until it is sent"]
pub struct Transaction {
    actions: Vec<TransactWriteItem>,
    entities: Vec<Option<&'static str>>,
    /// The bytes each action counts toward DynamoDB's 4 MB per transaction: the item a put
    /// writes (in its PutItem or UpdateItem form), the key of other actions.
    sizes: Vec<usize>,
    items: HashSet<Vec<u8>>,
    token: Option<String>,
    error: Option<Error>,
    /// The range conditions of typed arithmetic in update actions, to explain a cancellation.
    bounds: Vec<ActionBounds>,
    /// The items written by actions added with a handle.
    written: Vec<Written>,
    /// Tells this transaction's handles from another's.
    id: u64,
}

impl Default for Transaction {
    fn default() -> Self {
        Transaction {
            actions: Vec::new(),
            entities: Vec::new(),
            sizes: Vec::new(),
            items: HashSet::new(),
            token: Some(format!("{:032x}", fastrand::u128(..))),
            error: None,
            bounds: Vec::new(),
            written: Vec::new(),
            id: fastrand::u64(..),
        }
    }
}

/// Where an entity written by a [`Transaction`] is in its results
/// ([`TransactWritten::get`]).
#[derive(Debug)]
pub struct WriteHandle<E> {
    index: usize,
    id: u64,
    _e: PhantomData<fn() -> E>,
}

impl<E> Clone for WriteHandle<E> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E> Copy for WriteHandle<E> {}

/// An entity written by an action added with a handle.
#[derive(Debug, Clone)]
struct Written {
    action: usize,
    entity: &'static str,
    /// The item as the action writes it.
    item: Item,
    /// The attributes a put or replace keeps when the item exists (an UpdateItem with
    /// `if_not_exists`: `created_at` and the index keys made of it alone): their stored values
    /// are read back after the commit.
    kept: Vec<String>,
    table: String,
    key: Item,
}

impl Written {
    /// The item as stored: [`Self::item`], with the values the kept attributes have in the
    /// store (one strongly consistent read of those attributes). A stamp is never rewritten
    /// once stored, so the read gives the value the transaction kept or stamped.
    async fn stored<S: Store + ?Sized>(&self, store: &S) -> Result<Item> {
        let Some(attr) = self.kept.first() else {
            return Ok(self.item.clone());
        };
        let request = GetRequest {
            projection: Some(self.kept.iter().map(|a| Path::attr(a.as_str())).collect()),
            ..GetRequest::borrowed(&self.table, &self.key).consistent()
        };
        let read = store.get_item(request).await;
        let stored = match &read {
            Ok(out) => out.item.as_ref().filter(|i| i.contains_key(attr.as_str())),
            Err(_) => None,
        };
        match stored {
            Some(stored) => {
                let mut item = self.item.clone();
                for a in &self.kept {
                    match stored.get(a) {
                        Some(v) => item.insert(a.clone(), v.clone()),
                        None => item.remove(a),
                    };
                }
                Ok(item)
            }
            None => Err(Error::validation(format!(
                "the transaction was written, but the {entity} it kept the stored `{attr}` of could not                  be read back to learn that time ({why}); the handle gives no creation time it cannot vouch                  for: read the item by its key",
                entity = self.entity,
                why = match read {
                    Ok(_) => "the item or its stamp is no longer stored".to_owned(),
                    Err(e) => format!("the read failed: {e}"),
                }
            ))),
        }
    }
}

/// The result of [`Transaction::send_returning`]: the entities written, by handle, and the
/// transaction's output.
#[derive(Debug)]
pub struct TransactWritten {
    /// The store's output (consumed capacity).
    pub output: TransactWriteOutput,
    written: Vec<(usize, Result<Item>)>,
    id: u64,
}

impl TransactWritten {
    /// The entity `handle` wrote, as stored: with the ids, stamps and version the transaction
    /// decided, and, for a put or replace that kept the stored `created_at` of an existing
    /// item, that stored time (read back after the commit, see
    /// [`Transaction::send_returning`]). An error when that read failed: the transaction was
    /// written all the same.
    pub fn get<E: Entity>(&self, handle: &WriteHandle<E>) -> Result<E> {
        if handle.id != self.id {
            return Err(Error::validation(
                "transaction: the handle belongs to another Transaction",
            ));
        }
        let (_, item) = self
            .written
            .iter()
            .find(|(i, _)| *i == handle.index)
            .ok_or_else(|| Error::validation("transaction: no write behind this handle"))?;
        match item {
            Ok(item) => decode::<E>(item),
            Err(e) => Err(e.clone()),
        }
    }
}

/// The range conditions one update action carries (see [`super::bounds`]).
#[derive(Debug)]
struct ActionBounds {
    action: usize,
    entity: &'static str,
    /// True for another entity's item: its failed ownership condition, not a range, cancelled.
    foreign: fn(&Item) -> bool,
    table: String,
    key: Item,
    bounds: super::bounds::Bounds,
}

impl fmt::Debug for Transaction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Transaction")
            .field("actions", &self.actions)
            .field("token", &self.token)
            .field("error", &self.error)
            .finish()
    }
}

/// The identity of an item: table and canonical key bytes.
fn identity(table: &str, key: &Item) -> Vec<u8> {
    let mut w = Writer::default();
    w.str(table);
    w.buf.extend(item_bytes(key));
    w.buf
}

impl Transaction {
    /// An empty transaction.
    pub fn new() -> Self {
        Self::default()
    }

    fn push(
        mut self,
        entity: Option<&'static str>,
        action: Result<TransactWriteItem>,
        key: Option<Result<Item>>,
    ) -> Self {
        if self.error.is_some() {
            return self;
        }
        let action = match action {
            Ok(a) => a,
            Err(e) => {
                self.error = Some(e);
                return self;
            }
        };
        let key = match (key, &action) {
            (Some(Ok(k)), _) => Some(k),
            (Some(Err(e)), _) => {
                self.error = Some(e);
                return self;
            }
            (None, TransactWriteItem::Update { key, .. })
            | (None, TransactWriteItem::Delete { key, .. })
            | (None, TransactWriteItem::ConditionCheck { key, .. }) => Some(key.clone()),
            (None, TransactWriteItem::Put { .. }) => None,
        };
        if let Some(key) = key
            && !self.items.insert(identity(action.table(), &key))
        {
            self.error = Some(Error::validation(format!(
                    "transaction: action {} touches an item of table {} ({}) that another action already touches; \
                     DynamoDB allows one action per item",
                    self.actions.len(),
                    action.table(),
                    entity.unwrap_or("raw action")
                )));
            return self;
        }
        self.sizes.push(match &action {
            TransactWriteItem::Put { item, .. } => item_size(item),
            TransactWriteItem::Update { key, .. }
            | TransactWriteItem::Delete { key, .. }
            | TransactWriteItem::ConditionCheck { key, .. } => item_size(key),
        });
        self.actions.push(action);
        self.entities.push(entity);
        self
    }

    fn put_mode<E: Entity>(self, entity: &E, mode: PutMode) -> Self {
        self.put_kept(entity, mode, false).0
    }

    /// Adds the put; with `keep`, returns what it writes (`None` when it failed).
    fn put_kept<E: Entity>(self, entity: &E, mode: PutMode, keep: bool) -> (Self, Option<Written>) {
        let put = Put::new(entity, mode);
        // The key of the item written: with the ids the write generated, which the entity
        // itself (still `None`) has no key for.
        let item = put.item().ok();
        let size = item.map(item_size);
        let key = item.map(|item| key_of(item, table_def::<E>()));
        let written = match (keep, item, &key) {
            (true, Some(item), Some(Ok(key))) => Some(Written {
                action: self.actions.len(),
                entity: E::ENTITY_TYPE,
                item: item.clone(),
                kept: put.kept_attributes(),
                table: table_name::<E>(),
                key: key.clone(),
            }),
            _ => None,
        };
        let before = self.actions.len();
        let mut this = self.push(Some(E::ENTITY_TYPE), put.into_transact(), key);
        let added = this.actions.len() > before;
        // A put sent as an UpdateItem (it keeps a stored `created_at`) writes its whole item:
        // it counts as such, not as its key.
        if let (true, Some(size)) = (added, size) {
            this.sizes[before] = size;
        }
        (this, written.filter(|_| added))
    }

    fn handle<E: Entity>(&mut self, entity: &E, mode: PutMode) -> WriteHandle<E> {
        let index = self.actions.len();
        let (this, written) = std::mem::take(self).put_kept(entity, mode, true);
        *self = this;
        if let Some(written) = written {
            self.written.push(written);
        }
        WriteHandle {
            index,
            id: self.id,
            _e: PhantomData,
        }
    }

    /// Adds a create of `entity` (as [`Self::create`]) and returns the handle to read it back
    /// as written from [`Self::send_returning`]'s result: with its generated ids, stamps and
    /// version.
    ///
    /// ```
    /// # use dyno_core::{Entity, Table, MemoryStore, Store};
    /// # use dyno_core::ops::{EntityExt, Transaction};
    /// # #[derive(Table)]
    /// # #[dyno(name = "Shop", pk = "PK", sk = "SK")]
    /// # struct Shop;
    /// #[derive(Debug, Clone, PartialEq, Entity)]
    /// #[dyno(table = Shop, pk = "NOTE#{n}", sk = "NOTE")]
    /// struct Note { n: u32, text: String, #[dyno(version)] version: u64 }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> dyno_core::Result<()> {
    /// # let store = MemoryStore::new();
    /// # store.create_table(Shop::definition()).await?;
    /// let mut tx = Transaction::new();
    /// let note = tx.create_returning(&Note { n: 1, text: "hi".into(), version: 0 });
    /// let written = tx.send_returning(&store).await?;
    /// assert_eq!(written.get(&note)?.version, 1);
    /// # Ok(()) }
    /// ```
    pub fn create_returning<E: Entity>(&mut self, entity: &E) -> WriteHandle<E> {
        self.handle(entity, PutMode::Create)
    }

    /// Adds a put of `entity` (as [`Self::put`]) and returns its handle (see
    /// [`Self::create_returning`]).
    pub fn put_returning<E: Entity>(&mut self, entity: &E) -> WriteHandle<E> {
        self.handle(entity, PutMode::Upsert)
    }

    /// Adds a replace of `entity` (as [`Self::replace`]) and returns its handle (see
    /// [`Self::create_returning`]).
    pub fn replace_returning<E: Entity>(&mut self, entity: &E) -> WriteHandle<E> {
        self.handle(entity, PutMode::Replace)
    }

    /// Writes `entity` whether or not it exists (version-checked when versioned, like
    /// [`super::EntityExt::put`]).
    pub fn put<E: Entity>(self, entity: &E) -> Self {
        self.put_mode(entity, PutMode::Upsert)
    }

    /// Writes `entity`, which must not exist.
    pub fn create<E: Entity>(self, entity: &E) -> Self {
        self.put_mode(entity, PutMode::Create)
    }

    /// Overwrites `entity`, which must exist.
    pub fn replace<E: Entity>(self, entity: &E) -> Self {
        self.put_mode(entity, PutMode::Replace)
    }

    /// Applies an update (its conditions and version check included): an
    /// [`UpdateBuilder`](super::UpdateBuilder) or
    /// a typed update builder (`Order::update(key).set_status(..)`); an error met building it
    /// fails [`Self::send`].
    pub fn update<U: super::UpdateDsl>(mut self, update: U) -> Self {
        let entity = <U::Entity as Entity>::ENTITY_TYPE;
        let (action, bounds) = match update.into_inner().transact_and_bounds() {
            Ok((action, bounds)) => (Ok(action), bounds),
            Err(e) => (Err(e), Default::default()),
        };
        if let (Ok(TransactWriteItem::Update { table, key, .. }), false) =
            (&action, bounds.is_empty())
        {
            let bounds = ActionBounds {
                action: self.actions.len(),
                entity,
                foreign: |item| super::entity_rules::foreign_type::<U::Entity>(item).is_some(),
                table: table.clone(),
                key: key.clone(),
                bounds,
            };
            self.bounds.push(bounds);
        }
        self.push(Some(entity), action, None)
    }

    /// Deletes the item at `key`.
    pub fn delete<E: Entity>(self, key: Key<E>) -> Self {
        self.push(Some(E::ENTITY_TYPE), Delete::new(key).into_transact(), None)
    }

    /// Applies a delete built with conditions or a version check.
    pub fn delete_with<E: Entity>(self, delete: Delete<E>) -> Self {
        self.push(Some(E::ENTITY_TYPE), delete.into_transact(), None)
    }

    /// Requires `condition` to hold on the item at `key`, without writing it: a typed condition
    /// on `E`'s fields (`Product::STOCK.ge(1u32)`), or an untyped one through
    /// [`Cond::raw`](crate::expr::Cond::raw). A condition that failed to build fails
    /// [`Self::send`] with its error. Like every typed write, the check also requires the item
    /// to be `E`'s (or to have no entity-type attribute): on another entity's item at the key it
    /// fails, and the transaction is cancelled.
    pub fn check<E: Entity>(self, key: Key<E>, condition: crate::expr::Cond<E>) -> Self {
        let action = super::key_limits::key_item(key)
            .and_then(|key| {
                let c = condition.into_condition()?;
                Ok((key, super::entity_rules::owned_by::<E>().and(c)))
            })
            .map(|(key, condition)| {
                TransactWriteItem::condition_check(table_name::<E>(), key, condition)
            });
        self.push(Some(E::ENTITY_TYPE), action, None)
    }

    /// Adds a raw action (duplicate puts among raw actions are left to the store to detect).
    pub fn action(self, action: TransactWriteItem) -> Self {
        self.push(None, Ok(action), None)
    }

    /// Idempotency token (1 to 36 characters), replacing the random one every transaction
    /// starts with: a resend with the same token within 10 minutes is not applied twice, so a
    /// transaction whose outcome is unknown can be resent safely, as long as the request is the
    /// same: resend the same `Transaction` value ([`Self::send`] takes `&self`). A transaction
    /// rebuilt from scratch generates new ids and stamps, and DynamoDB refuses it with the same
    /// token (an idempotency mismatch, whose error says so).
    pub fn token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// The client request token every send of this transaction carries.
    pub fn client_token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    /// The number of actions.
    pub fn len(&self) -> usize {
        self.actions.len()
    }

    /// True when there is no action.
    pub fn is_empty(&self) -> bool {
        self.actions.is_empty()
    }

    /// The request this transaction sends, after the checks made before sending.
    pub fn into_request(self) -> Result<TransactWriteRequest> {
        self.validate()?;
        Ok(TransactWriteRequest {
            actions: self.actions,
            client_request_token: self.token,
        })
    }

    /// The request, copied: what every send of this transaction repeats.
    pub fn request(&self) -> Result<TransactWriteRequest> {
        self.validate()?;
        Ok(TransactWriteRequest {
            actions: self.actions.clone(),
            client_request_token: self.token.clone(),
        })
    }

    /// The checks made before sending.
    fn validate(&self) -> Result<()> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if self.actions.is_empty() {
            return Err(Error::validation(
                "transaction: no action (DynamoDB needs 1 to 100)",
            ));
        }
        if self.actions.len() > MAX_TRANSACTION_ACTIONS {
            return Err(Error::validation(format!(
                "transaction: {} actions, over DynamoDB's limit of {MAX_TRANSACTION_ACTIONS}",
                self.actions.len()
            )));
        }
        if let Some(t) = &self.token {
            let n = t.chars().count();
            if n == 0 || n > 36 {
                return Err(Error::validation(format!(
                    "transaction: client request token must have 1 to 36 characters, found {n}"
                )));
            }
        }
        let bytes: usize = self.sizes.iter().sum();
        if bytes > MAX_TRANSACTION_BYTES {
            let mut largest: Vec<usize> = (0..self.sizes.len()).collect();
            largest.sort_by_key(|&i| std::cmp::Reverse(self.sizes[i]));
            let named: Vec<String> = (largest.iter().take(3))
                .map(|&i| {
                    let entity = self.entities[i].unwrap_or("raw action");
                    format!("action {i} ({entity}, {} bytes)", self.sizes[i])
                })
                .collect();
            return Err(Error::validation(format!(
                "transaction: items total {bytes} bytes, over DynamoDB's limit of {MAX_TRANSACTION_BYTES};                  the largest: {}; nothing was sent. Split the writes over several transactions",
                named.join(", ")
            )));
        }
        Ok(())
    }

    /// Runs the transaction. Its output carries the capacity it consumed per table, when the
    /// store reports it (each action's table write at twice a single write's units, index
    /// writes at their single-write cost; see [`TransactWriteOutput`]).
    ///
    /// ```
    /// # futures::executor::block_on(async {
    /// use dyno_core::ops::Transaction;
    /// use dyno_core::store::TransactWriteItem;
    /// use dyno_core::{AttributeValue::S, Item, MemoryStore, Store, TableDef};
    ///
    /// let store = MemoryStore::new();
    /// store.create_table(&TableDef::new("Shop", "PK", Some("SK"))).await?;
    /// let item = Item::from([("PK".to_owned(), S("USER#1".into())), ("SK".to_owned(), S("A".into()))]);
    /// let put = TransactWriteItem::put("Shop", item);
    /// let out = Transaction::new().action(put).send(&store).await?;
    /// let capacity = out.consumed_capacity.expect("MemoryStore reports capacity");
    /// assert_eq!(capacity[0].capacity.units, 2.0); // one 1 KB write, transactional
    /// # Ok::<(), dyno_core::Error>(()) }).unwrap();
    /// ```
    pub async fn send<S: Store + ?Sized>(&self, store: &S) -> Result<TransactWriteOutput> {
        let entities: Vec<&str> = self.entities.iter().map(|e| e.unwrap_or("raw")).collect();
        let span = tracing::debug_span!("dyno.transact_write", actions = self.actions.len(), entities = ?entities);
        let bounds = &self.bounds;
        let names = &self.entities;
        let request = self.request()?;
        // Each update action's nested paths, to explain a missing parent as a single update does.
        let nested: Vec<(usize, Vec<String>)> = (request.actions.iter().enumerate())
            .filter_map(|(i, a)| match a {
                TransactWriteItem::Update { update, .. } => Some((i, nested_paths(update))),
                _ => None,
            })
            .filter(|(_, paths)| !paths.is_empty())
            .collect();
        match store.transact_write(request).instrument(span).await {
            Err(Error::TransactionCanceled { reasons }) => {
                if let Some(e) = missing_parent_in(names, &nested, &reasons) {
                    return Err(e);
                }
                Err(out_of_range(store, bounds, &reasons)
                    .await
                    .unwrap_or(Error::TransactionCanceled { reasons }))
            }
            // Servers that refuse the whole request rather than one action: every action
            // writing nested paths is named.
            Err(Error::Validation { message })
                if nested
                    .iter()
                    .any(|(_, paths)| is_missing_parent(&message, paths)) =>
            {
                let what = nested
                    .iter()
                    .map(|(i, _)| action_name(names, *i))
                    .collect::<Vec<_>>()
                    .join(", ");
                let paths: Vec<String> = nested.into_iter().flat_map(|(_, p)| p).collect();
                Err(missing_parent(&what, message, &paths))
            }
            Err(Error::Validation { message }) if is_token_mismatch(&message) => {
                Err(Error::validation(format!(
                    "{message} -- this transaction's client request token {token:?} was sent within the last 10 minutes \
                     with a different request, so this one was refused and nothing of it was written (the earlier \
                     one may have been applied). A transaction rebuilt from scratch has new generated ids, stamps and \
                     expiry conditions: to retry after an unknown outcome, resend the same Transaction value \
                     (send takes &self), which repeats the request exactly; for a different transaction, use a new token",
                    token = self.token.as_deref().unwrap_or("")
                )))
            }
            other => other,
        }
    }

    /// Sends the transaction as [`Self::send`] does and returns what it wrote: read each
    /// entity added with [`Self::create_returning`], [`Self::put_returning`] or
    /// [`Self::replace_returning`] back by its handle.
    ///
    /// A put or replace whose `created_at` is unset keeps the stored creation time of an
    /// existing item (an UpdateItem with `if_not_exists`, see [`super::Put`]), and a
    /// transaction returns no item: after the commit, one strongly consistent read of that
    /// attribute alone learns the time stored (1 read unit for an item up to 4 KB, per such
    /// handle), so the handle never gives the time the write would have stamped in its place.
    /// Creates, and puts that set `created_at` or have none, need no read.
    pub async fn send_returning<S: Store + ?Sized>(&self, store: &S) -> Result<TransactWritten> {
        let output = self.send(store).await?;
        let written = futures::future::join_all(
            (self.written.iter()).map(|w| async move { (w.action, w.stored(store).await) }),
        )
        .await;
        Ok(TransactWritten {
            output,
            written,
            id: self.id,
        })
    }
}

/// True for DynamoDB's refusal of a client request token reused with another request
/// (`IdempotentParameterMismatchException`, which servers word in their own ways).
fn is_token_mismatch(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    m.contains("idempotentparametermismatch")
        || (m.contains("idempotent") && m.contains("mismatch"))
        || (m.contains("token") && m.contains("different request"))
}

/// "transaction action 1 (update of Issue)", for messages.
fn action_name(names: &[Option<&'static str>], action: usize) -> String {
    let entity = names.get(action).copied().flatten().unwrap_or("raw action");
    format!("transaction action {action} (update of {entity}), cancelled with the others")
}

/// The error a single update gives for a nested write under a missing parent, when a cancelled
/// transaction's reason says an update action wrote one.
fn missing_parent_in(
    names: &[Option<&'static str>],
    nested: &[(usize, Vec<String>)],
    reasons: &[crate::error::CancellationReason],
) -> Option<Error> {
    nested.iter().find_map(|(i, paths)| {
        let reason = reasons.get(*i)?;
        let message = reason.message.as_deref()?;
        (reason.code.as_deref() == Some("ValidationError") && is_missing_parent(message, paths))
            .then(|| missing_parent(&action_name(names, *i), message.to_owned(), paths))
    })
}

/// [`Error::OutOfRange`] when a cancelled update action's condition failed because its typed
/// arithmetic would leave its field's range: from the item as it was (returned with the
/// cancellation, or read strongly consistently after it).
async fn out_of_range<S: Store + ?Sized>(
    store: &S,
    bounds: &[ActionBounds],
    reasons: &[crate::error::CancellationReason],
) -> Option<Error> {
    for b in bounds {
        let Some(reason) = reasons.get(b.action).filter(|r| r.is_condition_failed()) else {
            continue;
        };
        let read;
        let old = match &reason.item {
            Some(old) => Some(old),
            None => {
                let request = crate::store::GetRequest::borrowed(&b.table, &b.key).consistent();
                read = store.get_item(request).await.ok()?.item;
                read.as_deref()
            }
        };
        if old.is_some_and(b.foreign) {
            continue;
        }
        if let Some(e) = b.bounds.violation(b.entity, old) {
            return Some(e);
        }
    }
    None
}

/// A transactional read of up to 100 items, isolated from concurrent transactions. Each
/// [`TransactGet::get`] returns a typed handle to read its result with.
#[must_use = "a transactional read does nothing until it is sent"]
#[derive(Debug)]
pub struct TransactGet {
    gets: Vec<TransactGetItem>,
    id: u64,
    /// The first invalid key added.
    error: Option<Error>,
}

/// Where one entity of a [`TransactGet`] is in its results.
#[derive(Debug)]
pub struct TransactGetHandle<E> {
    index: usize,
    id: u64,
    _e: PhantomData<fn() -> E>,
}

impl<E> Clone for TransactGetHandle<E> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E> Copy for TransactGetHandle<E> {}

/// The results of a [`TransactGet`].
#[derive(Debug)]
pub struct TransactGetResults {
    items: Vec<Option<SharedItem>>,
    id: u64,
}

impl Default for TransactGet {
    fn default() -> Self {
        TransactGet::new()
    }
}

impl TransactGet {
    /// An empty read.
    pub fn new() -> Self {
        TransactGet {
            gets: Vec::new(),
            id: fastrand::u64(..),
            error: None,
        }
    }

    /// Adds a read of `key`.
    /// An invalid key is recorded, and [`Self::send`] fails with its error without reading.
    pub fn get<E: Entity>(&mut self, key: Key<E>) -> TransactGetHandle<E> {
        let key = match super::key_limits::key_item(key) {
            Ok(key) => key,
            Err(e) => {
                self.error.get_or_insert(e.for_entity(E::ENTITY_TYPE));
                Item::new()
            }
        };
        self.gets.push(TransactGetItem {
            table: table_name::<E>(),
            key,
            projection: None,
        });
        TransactGetHandle {
            index: self.gets.len() - 1,
            id: self.id,
            _e: PhantomData,
        }
    }

    /// The number of reads.
    pub fn len(&self) -> usize {
        self.gets.len()
    }

    /// True when there is no read.
    pub fn is_empty(&self) -> bool {
        self.gets.is_empty()
    }

    /// Reads every item in one transaction.
    pub async fn send<S: Store + ?Sized>(self, store: &S) -> Result<TransactGetResults> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if self.gets.is_empty() || self.gets.len() > MAX_TRANSACTION_ACTIONS {
            return Err(Error::validation(format!(
                "transactional read: {} items, DynamoDB needs 1 to {MAX_TRANSACTION_ACTIONS}",
                self.gets.len()
            )));
        }
        let span = tracing::debug_span!("dyno.transact_get", items = self.gets.len());
        let n = self.gets.len();
        let out = store
            .transact_get(TransactGetRequest { gets: self.gets })
            .instrument(span)
            .await?;
        if out.items.len() != n {
            return Err(Error::Service {
                code: None,
                message: format!(
                    "transactional read of {n} items returned {} results",
                    out.items.len()
                ),
                source: None,
            });
        }
        Ok(TransactGetResults {
            items: out.items,
            id: self.id,
        })
    }
}

impl TransactGetResults {
    /// The entity read through `handle`: `None` when absent, expired or another entity's item.
    pub fn get<E: Entity>(&self, handle: &TransactGetHandle<E>) -> Result<Option<E>> {
        if handle.id != self.id {
            return Err(Error::validation(
                "transactional read: the handle belongs to another TransactGet",
            ));
        }
        match &self.items[handle.index] {
            Some(item) if readable::<E>(item) => decode::<E>(item).map(Some),
            _ => Ok(None),
        }
    }
}
