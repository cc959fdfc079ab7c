//! [`BatchWriter`]: puts and deletes, typed ones carrying the entity check.

use super::retry::*;
use super::*;
use crate::entity::Entity;
use crate::error::{Error, RefusedWrite, Result};
use crate::ops::entity_rules::{key_of, owned_by_type, table_def, table_name};
use crate::ops::{Key, Put, PutMode};
use crate::store::{
    BatchWriteRequest, DeleteRequest, GetRequest, PutRequest, ReturnValues, Store, WriteRequest,
};
use crate::table::Table;
use crate::table::TableDef;
use crate::value::{check_item_size, item_size, Item};
use futures::StreamExt;
use std::collections::HashSet;
use std::fmt;
use std::time::Duration;
use tracing::Instrument;

/// A conservative estimate of a write's share of the request body: DynamoDB's item size, a third
/// more for base64 binaries, and JSON overhead per attribute.
pub(super) fn request_bytes(write: &WriteRequest) -> usize {
    let item = match write {
        WriteRequest::Put { item, .. } => item,
        WriteRequest::Delete { key, .. } => key,
    };
    item_size(item) * 4 / 3 + 32 * item.len() + write.table().len() + 64
}

/// Writes any number of items in batches, accounting for every one.
///
/// # Ownership
///
/// A typed put or delete of `E` never overwrites or removes another entity's item (entities sharing
/// a key shape, such as users and organizations at `ACCOUNT#{name}`), as a single
/// [`EntityExt::put`](crate::ops::EntityExt::put) or
/// [`EntityExt::delete`](crate::ops::EntityExt::delete) does not. DynamoDB's `BatchWriteItem` takes
/// no condition, so typed writes are not sent in it: each is its own PutItem or DeleteItem carrying
/// the entity check (the item's entity-type attribute is `E`'s, or absent), in the same request, so
/// nothing can slip in between a check and the write. A chunk of 25 is sent at once, so the batch
/// takes about as long as 25 writes per `BatchWriteItem` would, and the same write capacity
/// (DynamoDB charges a batch write as the single writes it holds); it makes one request per item
/// instead of one per 25 (more request overhead on the client). A write that finds another entity's
/// item at its key changes nothing and is returned in [`BatchWriteReport::refused`], a
/// [`RefusedWrite`] whose reason is [`Error::WrongEntity`] (from [`Self::send`]: that error, when
/// it is the only outcome, else [`Error::BatchIncomplete`] listing it in `refused`). Resending it
/// cannot succeed, and it is not a [`WriteRequest`]: [`Self::write`] would send it without the
/// check. The other writes are applied.
///
/// Where no other entity's item can be at the keys (a bulk load into keys only `E` uses, a
/// restore), [`Self::without_entity_check`] sends typed writes 25 per `BatchWriteItem`, without
/// the check, in so many words. Raw writes ([`Self::write`]) name no entity and are always sent
/// in `BatchWriteItem`.
///
/// A batch cannot check an optimistic-locking version: [`BatchWriter::put`] refuses entities
/// with a version field, and [`BatchWriter::put_ignoring_version`] writes them without the
/// version check, in so many words.
///
/// ```no_run
/// # use dyno_core::{Entity, MemoryStore, Result};
/// # async fn f<E: Entity>(store: &MemoryStore, items: &[E]) -> Result<()> {
/// use dyno_core::ops::BatchWriter;
/// let mut batch = BatchWriter::new();
/// batch.put_all(items)?;
/// let report = batch.send(store).await?; // Err(BatchIncomplete) lists what was not written
/// # Ok(()) }
/// ```
#[must_use = "a batch does nothing until it is sent"]
pub struct BatchWriter {
    writes: Vec<Write>,
    seen: HashSet<Vec<u8>>,
    concurrency: usize,
    retry: RetryPolicy,
    deadline: Option<Duration>,
    /// Typed writes carry their entity check (see "Ownership"); false after
    /// [`BatchWriter::without_entity_check`].
    entity_check: bool,
}

/// One write of a batch, with the entity that owns the item when it is a typed write.
#[derive(Debug, Clone)]
struct Write {
    request: WriteRequest,
    /// The item's primary key.
    key: Item,
    owner: Option<Owner>,
}

/// The entity a typed write is for, and its table's entity-type attribute.
#[derive(Debug, Clone, Copy)]
struct Owner {
    entity: &'static str,
    attribute: &'static str,
}

impl Owner {
    fn of<E: Entity>() -> Self {
        Owner {
            entity: E::ENTITY_TYPE,
            attribute: <E::Table as Table>::ENTITY_ATTRIBUTE,
        }
    }
}

/// A chunk of writes: sent in one `BatchWriteItem`, or as single writes with their entity check.
enum WriteChunk {
    Batch(Vec<WriteRequest>),
    Checked(Vec<Write>),
}

/// Sends one typed write as a single PutItem or DeleteItem conditioned on the item being its
/// entity's (or absent). A failed condition is [`Error::WrongEntity`] naming the type found.
async fn send_checked<S: Store + ?Sized>(store: &S, write: &Write, owner: Owner) -> Result<()> {
    let condition = Some(owned_by_type(owner.attribute, owner.entity));
    let result = match &write.request {
        WriteRequest::Put { table, item } => store
            .put_item(PutRequest {
                table: table.clone(),
                item: item.clone(),
                condition,
                return_values: ReturnValues::None,
                return_old_on_condition_failure: true,
            })
            .await
            .map(drop),
        WriteRequest::Delete { table, key } => store
            .delete_item(DeleteRequest {
                table: table.clone(),
                key: key.clone(),
                condition,
                return_values: ReturnValues::None,
                return_old_on_condition_failure: true,
            })
            .await
            .map(drop),
    };
    let err = match result {
        Err(e @ Error::ConditionFailed { .. }) => e,
        other => return other,
    };
    let Error::ConditionFailed { item: old, .. } = &err else {
        return Err(err);
    };
    // The item as it was: from the error, or else a consistent read, which only names the
    // cause (the write changed nothing either way).
    let read;
    let old = match old {
        Some(old) => Some(old),
        None => {
            let request = GetRequest::borrowed(write.request.table(), &write.key).consistent();
            read = store.get_item(request).await.ok().and_then(|out| out.item);
            read.as_deref()
        }
    };
    match old.and_then(|o| o.get(owner.attribute)) {
        Some(crate::value::AttributeValue::S(found)) if found != owner.entity => {
            Err(Error::WrongEntity {
                entity: owner.entity,
                found: found.clone(),
            })
        }
        _ => Err(err.for_entity(owner.entity)),
    }
}

impl fmt::Debug for BatchWriter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BatchWriter")
            .field("writes", &self.writes.len())
            .field("concurrency", &self.concurrency)
            .field("retry", &self.retry)
            .field("deadline", &self.deadline)
            .field("entity_check", &self.entity_check)
            .finish()
    }
}

impl Default for BatchWriter {
    fn default() -> Self {
        BatchWriter {
            writes: Vec::new(),
            seen: HashSet::new(),
            concurrency: 4,
            retry: RetryPolicy::default(),
            deadline: None,
            entity_check: true,
        }
    }
}

/// What a batch write did: every write given is either written, listed in `unprocessed` or
/// listed in `refused`.
#[derive(Debug)]
pub struct BatchWriteReport {
    /// Writes applied.
    pub written: usize,
    /// Writes not applied that may be sent again: their retries ran out (throttling, unprocessed
    /// items), their request failed or the batch stopped (the causes in `errors`).
    pub unprocessed: Vec<WriteRequest>,
    /// Typed writes refused for good, each with its reason: the item at the key is another
    /// entity's ([`Error::WrongEntity`]), or the single write failed in a way a retry cannot
    /// change. They changed nothing, and resending them cannot succeed; they are not
    /// [`WriteRequest`]s, so they cannot go back through [`BatchWriter::write`], which would
    /// skip the entity check (see [`BatchWriter`]'s "Ownership").
    pub refused: Vec<RefusedWrite>,
    /// Errors that left writes unprocessed: one that stopped a chunk without retrying (a
    /// validation error, a missing table...), the last error of a chunk whose retries ran out,
    /// the error that stopped the batch when the backend kept failing. A refused write's reason
    /// is in its [`RefusedWrite::reason`].
    pub errors: Vec<Error>,
    /// Requests made: `BatchWriteItem`s, and the single conditional writes of typed puts and
    /// deletes (see [`BatchWriter`]'s "Ownership").
    pub requests: usize,
    /// The most attempts any chunk made.
    pub attempts: u32,
}

impl BatchWriteReport {
    /// True when every write was applied.
    pub fn is_complete(&self) -> bool {
        self.unprocessed.is_empty() && self.refused.is_empty() && self.errors.is_empty()
    }
}

impl BatchWriter {
    /// An empty batch: concurrency 4, [`RetryPolicy::default`].
    pub fn new() -> Self {
        Self::default()
    }

    /// At most `n` chunks in flight (at least 1): a chunk is one `BatchWriteItem` of up to 25
    /// writes, or up to 25 typed writes sent at once as single conditional requests (see
    /// "Ownership").
    pub fn concurrency(mut self, n: usize) -> Self {
        self.concurrency = n.max(1);
        self
    }

    /// Sends typed puts and deletes 25 per `BatchWriteItem`, without the entity check (see
    /// "Ownership"): a put overwrites and a delete removes whatever item is at its key,
    /// another entity's included. For bulk loads and restores into keys no other entity uses,
    /// where one request per 25 items matters.
    pub fn without_entity_check(mut self) -> Self {
        self.entity_check = false;
        self
    }

    /// The retry policy.
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// Returns within `deadline` of being run, whatever the backend does (see the module docs):
    /// what is not written by then is returned with [`Error::DeadlineExceeded`]. Without it the
    /// batch is bounded by its [`RetryPolicy`] and each request's own time limits.
    /// A zero deadline gives the batch no time, as zero means everywhere in dyno: nothing is
    /// sent and every write is returned with [`Error::DeadlineExceeded`]; `Duration::MAX` is no
    /// deadline in practice.
    pub fn deadline(mut self, deadline: Duration) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// The number of writes.
    pub fn len(&self) -> usize {
        self.writes.len()
    }

    /// True when there is no write.
    pub fn is_empty(&self) -> bool {
        self.writes.is_empty()
    }

    fn add(
        &mut self,
        write: WriteRequest,
        key: Item,
        owner: Option<Owner>,
        what: &str,
    ) -> Result<&mut Self> {
        if !self.seen.insert(identity(write.table(), &key)) {
            return Err(Error::validation(format!(
                "batch write: two writes on one item of table {} ({what}, key {}); a batch may write each item once",
                write.table(),
                describe_key(&key)
            )));
        }
        self.writes.push(Write {
            request: write,
            key,
            owner,
        });
        Ok(self)
    }

    /// Adds a put of `entity` (refused when over 400 KB or already in the batch).
    ///
    /// Like [`EntityExt::put`](crate::ops::EntityExt::put), it never overwrites another entity's
    /// item: it is sent as a PutItem with the entity check (see "Ownership" above), and a write
    /// that finds another entity's item changes nothing and is returned in
    /// [`BatchWriteReport::refused`] with [`Error::WrongEntity`]; unless the batch is
    /// [`Self::without_entity_check`].
    ///
    /// Nor can a batch write update an item in place: where a put or replace keeps the stored
    /// `created_at` of an entity whose field is unset (see [`Put`](crate::ops::Put)), a batch put
    /// writes the item whole, stamped with the time of the write (equal to its `updated_at`). Give
    /// the field its stored value, or use a put, to keep it.
    ///
    /// An entity with a version field (`#[dyno(version)]`) is refused with [`Error::Validation`],
    /// before anything is sent: the batch could not check the version, so a stale copy would
    /// silently overwrite a newer one. Write it with a put or in a
    /// [`Transaction`](crate::ops::Transaction) (both check the version), or say in the code that
    /// the check is not wanted (a bulk load, a restore) with [`Self::put_ignoring_version`].
    pub fn put<E: Entity>(&mut self, entity: &E) -> Result<&mut Self> {
        if let Some(attr) = E::VERSION_ATTRIBUTE {
            return Err(Error::validation(format!(
                "batch put of {entity}: {entity} has a version field (`{attr}`) and a batch write \
                 cannot check it, so a stale copy would overwrite a newer one; write it with \
                 put()/replace() or in a Transaction (both check the version), or use \
                 BatchWriter::put_ignoring_version to overwrite without the check",
                entity = E::ENTITY_TYPE
            )));
        }
        self.put_unchecked(entity)
    }

    /// Adds a put of `entity` without checking its version: whatever is stored at the key is
    /// overwritten, and the item is written with `version + 1` (the version a checked put would
    /// store), whatever the stored version was. For bulk loads and restores, where no other
    /// writer can hold a newer copy. For entities without a version field it is
    /// [`Self::put`].
    pub fn put_ignoring_version<E: Entity>(&mut self, entity: &E) -> Result<&mut Self> {
        self.put_unchecked(entity)
    }

    fn put_unchecked<E: Entity>(&mut self, entity: &E) -> Result<&mut Self> {
        let (item, _) = Put::new(entity, PutMode::Upsert).into_parts()?;
        let key = key_of(&item, table_def::<E>()).map_err(|e| e.for_entity(E::ENTITY_TYPE))?;
        self.add(
            WriteRequest::put(table_name::<E>(), item),
            key,
            Some(Owner::of::<E>()),
            E::ENTITY_TYPE,
        )
    }

    /// Adds a put of each entity (see [`Self::put`]: entities with a version field are refused).
    pub fn put_all<'a, E: Entity>(
        &mut self,
        entities: impl IntoIterator<Item = &'a E>,
    ) -> Result<&mut Self> {
        for e in entities {
            self.put(e)?;
        }
        Ok(self)
    }

    /// Adds a put of each entity without checking versions (see
    /// [`Self::put_ignoring_version`]).
    pub fn put_all_ignoring_version<'a, E: Entity>(
        &mut self,
        entities: impl IntoIterator<Item = &'a E>,
    ) -> Result<&mut Self> {
        for e in entities {
            self.put_ignoring_version(e)?;
        }
        Ok(self)
    }

    /// Adds a delete of the item at `key`.
    ///
    /// Like [`EntityExt::delete`](crate::ops::EntityExt::delete), it never removes another entity's
    /// item (entities sharing a key shape, such as users and organizations at `ACCOUNT#{name}`): it
    /// is sent as a DeleteItem with the entity check (see "Ownership" above), and a write that
    /// finds another entity's item changes nothing and is returned in
    /// [`BatchWriteReport::refused`] with [`Error::WrongEntity`]; unless the batch is
    /// [`Self::without_entity_check`]. A missing item is not an error.
    pub fn delete<E: Entity>(&mut self, key: Key<E>) -> Result<&mut Self> {
        let key =
            crate::ops::key_limits::key_item(key).map_err(|e| e.for_entity(E::ENTITY_TYPE))?;
        let k = key.clone();
        self.add(
            WriteRequest::delete(table_name::<E>(), key),
            k,
            Some(Owner::of::<E>()),
            E::ENTITY_TYPE,
        )
    }

    /// Adds a raw write to a table described by `table` (whose key attributes identify the item).
    pub fn write(&mut self, table: &TableDef, write: WriteRequest) -> Result<&mut Self> {
        let key = match &write {
            WriteRequest::Put { item, .. } => {
                check_item_size(item, None)?;
                key_of(item, table)?
            }
            WriteRequest::Delete { key, .. } => key_of(key, table)?,
        };
        self.add(write, key, None, "raw write")
    }

    /// Splits the writes into requests: at most 25 writes and 16 MB each.
    pub(super) fn chunks(writes: Vec<WriteRequest>) -> Vec<Vec<WriteRequest>> {
        let mut out = Vec::new();
        let mut cur: Vec<WriteRequest> = Vec::new();
        let mut bytes = 0;
        for w in writes {
            let b = request_bytes(&w);
            if cur.len() == MAX_BATCH_WRITES
                || (!cur.is_empty() && bytes + b > MAX_BATCH_REQUEST_BYTES)
            {
                out.push(std::mem::take(&mut cur));
                bytes = 0;
            }
            bytes += b;
            cur.push(w);
        }
        if !cur.is_empty() {
            out.push(cur);
        }
        out
    }

    /// The old name of [`send_report`](Self::send_report).
    #[deprecated(
        note = "renamed `send_report`: `send` and `send_report` are the batch's two sends"
    )]
    pub async fn run<S: Store + ?Sized>(self, store: &S) -> BatchWriteReport {
        self.send_report(store).await
    }

    /// Writes everything it can and reports what it could not; never fails as a whole
    /// ([`send`](Self::send) fails unless everything was written).
    pub async fn send_report<S: Store + ?Sized>(self, store: &S) -> BatchWriteReport {
        let span = tracing::debug_span!("dyno.batch_write", writes = self.writes.len());
        let budget = Budget::new(self.retry, self.deadline);
        let budget = &budget;
        let entity_check = self.entity_check;
        let (checked, batched): (Vec<Write>, Vec<Write>) =
            (self.writes.into_iter()).partition(|w| entity_check && w.owner.is_some());
        let mut chunks: Vec<WriteChunk> =
            Self::chunks(batched.into_iter().map(|w| w.request).collect())
                .into_iter()
                .map(WriteChunk::Batch)
                .collect();
        let mut checked = checked.into_iter().peekable();
        while checked.peek().is_some() {
            chunks.push(WriteChunk::Checked(
                checked.by_ref().take(MAX_BATCH_WRITES).collect(),
            ));
        }
        // Single conditional writes sent, counted apart: one chunk attempt sends several.
        let singles = std::sync::atomic::AtomicUsize::new(0);
        let singles = &singles;
        type Outcome = (bool, ChunkOutcome<WriteRequest>, Vec<RefusedWrite>);
        let outcomes: Vec<Outcome> = futures::stream::iter(chunks)
            .map(|chunk| async move {
                match chunk {
                    WriteChunk::Batch(chunk) => {
                        let out = run_chunk(chunk, budget, |pending| async move {
                            let out = store
                                .batch_write(BatchWriteRequest { writes: pending })
                                .await?;
                            Ok(Answer::new(Vec::new(), out.unprocessed))
                        })
                        .await;
                        (false, out, Vec::new())
                    }
                    WriteChunk::Checked(chunk) => {
                        let mut out = run_chunk(chunk, budget, |pending| async move {
                            singles.fetch_add(pending.len(), std::sync::atomic::Ordering::Relaxed);
                            send_checked_chunk(store, budget, pending).await
                        })
                        .await;
                        let refused = std::mem::take(&mut out.refused)
                            .into_iter()
                            .zip(std::mem::take(&mut out.refusals))
                            .map(|(w, reason)| {
                                let entity = w.owner.map_or("raw write", |o| o.entity);
                                RefusedWrite::new(entity, w.key, w.request, reason)
                            })
                            .collect();
                        (true, out.map(|w| w.request), refused)
                    }
                }
            })
            .buffer_unordered(self.concurrency)
            .collect()
            .instrument(span)
            .await;
        let mut report = BatchWriteReport {
            written: 0,
            unprocessed: Vec::new(),
            refused: Vec::new(),
            errors: Vec::new(),
            requests: singles.load(std::sync::atomic::Ordering::Relaxed),
            attempts: 0,
        };
        for (single, o, refused) in outcomes {
            report.written += o.done;
            report.unprocessed.extend(o.pending);
            report.refused.extend(refused);
            report.errors.extend(o.error);
            if !single {
                report.requests += o.attempts as usize;
            }
            report.attempts = report.attempts.max(o.attempts);
        }
        if !report.is_complete() {
            tracing::warn!(
                unprocessed = report.unprocessed.len(),
                refused = report.refused.len(),
                errors = report.errors.len(),
                "batch write incomplete"
            );
        }
        report
    }

    /// Writes everything, or fails listing what was not written: [`Error::BatchIncomplete`] with
    /// every unwritten write and the causes. When nothing at all was written because the
    /// requests failed with one error that retrying cannot fix (a missing table, a configuration
    /// error), that error is returned instead.
    pub async fn send<S: Store + ?Sized>(self, store: &S) -> Result<BatchWriteReport> {
        let total = self.writes.len();
        let report = self.send_report(store).await;
        if report.is_complete() {
            return Ok(report);
        }
        let untouched =
            report.written == 0 && report.unprocessed.len() + report.refused.len() == total;
        // One error that nothing got past (a missing table; the one write refused) is that
        // error; anything else lists what is left, apart from what was refused.
        let every = (report.errors.iter().cloned())
            .chain(report.refused.iter().map(|r| r.reason.clone()))
            .collect();
        incomplete(untouched, every)?;
        Err(Error::BatchIncomplete {
            unprocessed_writes: report.unprocessed,
            refused: report.refused,
            unprocessed_keys: Vec::new(),
            attempts: report.attempts,
            causes: incomplete(false, report.errors)?,
        })
    }
}

/// Sends a chunk of typed writes at once, each as a single conditional write. Writes that fail
/// with a retryable error are sent again (the whole answer is that error when every write did,
/// so the budget counts a failed request); any other failure refuses its write for good (an
/// error that stops the batch stops it).
async fn send_checked_chunk<S: Store + ?Sized>(
    store: &S,
    budget: &Budget,
    pending: Vec<Write>,
) -> Result<Answer<Write>> {
    let sent = futures::future::join_all(pending.into_iter().map(|w| async move {
        let result = match w.owner {
            Some(owner) => send_checked(store, &w, owner).await,
            None => Ok(()),
        };
        (w, result)
    }))
    .await;
    let mut answer = Answer::new(Vec::new(), Vec::new());
    let mut settled = false;
    let mut retry = None;
    for (w, result) in sent {
        match result {
            Ok(()) => settled = true,
            Err(e) if retryable(&e) => {
                retry.get_or_insert(e);
                answer.unprocessed.push(w);
            }
            Err(e) => {
                settled = true;
                if stops_the_batch(&e) {
                    budget.stop();
                }
                answer.refused.push((w, e));
            }
        }
    }
    match retry {
        Some(e) if !settled => Err(e),
        _ => Ok(answer),
    }
}
