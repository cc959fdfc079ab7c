//! The batch engine: any number of writes and reads, split into DynamoDB's batch limits, run
//! concurrently (bounded), retried with jittered exponential backoff, and accounted for one by
//! one. It never silently drops an item: what could not be written or read after the bounded
//! attempts is returned to the caller.
//!
//! - [`BatchWriter`]: typed puts and deletes (and raw [`WriteRequest`]s). Typed writes keep off
//!   other entities' items: each is sent as its own conditional PutItem or DeleteItem carrying
//!   the entity check, 25 at once per chunk (see [`BatchWriter`]'s "Ownership");
//!   [`BatchWriter::without_entity_check`] and raw writes go 25 per `BatchWriteItem`, at most
//!   16 MB per request.
//! - [`BatchGet`]: typed keys, 100 per `BatchGetItem`; returns decoded entities in the order of the
//!   keys, missing ones simply absent, expired ones and other entities' items hidden.
//!
//! Duplicate keys in one batch are refused with [`Error::Validation`] before anything is sent:
//! DynamoDB rejects them within one request, and across requests their order would be undefined.
//!
//! Retried: unprocessed items and keys, throttling, outcome-unknown errors (batch puts and deletes
//! are idempotent) and 5xx service errors. Any other error stops that chunk, and its items are
//! reported as not processed.
//!
//! One budget for the whole batch: the chunks share the [`RetryPolicy`]. When requests fail
//! `max_attempts` times in a row, whichever chunks they came from, the backend is taken as
//! unreachable and the batch stops: requests in flight finish, nothing more is sent, and every
//! item not written is returned with the cause. A dead server thus costs about one chunk's
//! retries ([`RetryPolicy::total_backoff`] plus the requests' own time limits), not every
//! chunk's. A configuration error ([`Error::Configuration`]) or a missing table stops the batch
//! at once: every other request would fail the same way.
//!
//! A deadline in time, beside the budget in attempts: with [`BatchWriter::deadline`] (or
//! [`BatchGet::deadline`]) the batch returns within that time whatever the backend does. When it
//! passes, nothing more is sent, backoff waits end, and requests still in flight are abandoned:
//! their items are returned as not processed, with [`Error::DeadlineExceeded`] as the cause (a
//! write in flight may or may not have been applied; batch puts and deletes are idempotent, so
//! sending them again is safe).

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::marker::PhantomData;
use std::time::Duration;

use futures::StreamExt;
use tokio::time::Instant;
use tracing::Instrument;

use super::canon::{item_bytes, Writer};
use super::entity_rules::{decode, key_of, owned_by_type, readable, table_def, table_name};
use super::{Key, Put, PutMode};
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::store::{
    BatchGetRequest, BatchWriteRequest, DeleteRequest, GetRequest, PutRequest, ReturnValues, Store,
    TableKey, WriteRequest,
};
use crate::table::Table;
use crate::table::TableDef;
use crate::value::{check_item_size, item_size, Item, SharedItem};

/// DynamoDB's maximum writes per `BatchWriteItem`.
pub const MAX_BATCH_WRITES: usize = 25;
/// DynamoDB's maximum keys per `BatchGetItem`.
pub const MAX_BATCH_KEYS: usize = 100;
/// DynamoDB's maximum request size of a `BatchWriteItem`.
pub const MAX_BATCH_REQUEST_BYTES: usize = 16 * 1024 * 1024;

/// How failed batch requests are retried: up to `max_attempts` requests per chunk, waiting
/// between them a jittered exponential delay (`base_delay × 2^retry`, capped at `max_delay`, of
/// which a random half is waited: "equal jitter", so concurrent chunks spread out).
///
/// ```
/// use std::time::Duration;
/// use dyno_core::ops::RetryPolicy;
///
/// let policy = RetryPolicy { max_attempts: 5, base_delay: Duration::from_millis(20), max_delay: Duration::from_secs(1) };
/// let third_retry = policy.delay(2); // between 40 and 80 ms
/// assert!(third_retry >= Duration::from_millis(40) && third_retry <= Duration::from_millis(80));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Requests per chunk, the first included (at least 1).
    pub max_attempts: u32,
    /// The delay before the first retry, before jitter.
    pub base_delay: Duration,
    /// The largest delay, before jitter.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    /// 10 attempts, from 50 ms up to 5 s: about 15 s of retrying in the worst case.
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 10,
            base_delay: Duration::from_millis(50),
            max_delay: Duration::from_secs(5),
        }
    }
}

impl RetryPolicy {
    /// A policy with `max_attempts` attempts and the default delays.
    pub fn attempts(max_attempts: u32) -> Self {
        RetryPolicy {
            max_attempts,
            ..RetryPolicy::default()
        }
    }

    /// The longest the policy waits between the first attempt and the last: the sum of its
    /// delays before jitter.
    ///
    /// ```
    /// use std::time::Duration;
    /// use dyno_core::ops::RetryPolicy;
    ///
    /// let p = RetryPolicy { max_attempts: 4, base_delay: Duration::from_millis(100), max_delay: Duration::from_millis(300) };
    /// assert_eq!(p.total_backoff(), Duration::from_millis(100 + 200 + 300));
    /// ```
    pub fn total_backoff(&self) -> Duration {
        (0..self.max_attempts.max(1) - 1)
            .map(|retry| {
                self.base_delay
                    .saturating_mul(1u32.checked_shl(retry.min(31)).unwrap_or(u32::MAX))
                    .min(self.max_delay)
            })
            .fold(Duration::ZERO, Duration::saturating_add)
    }

    /// The delay before retry number `retry` (0 for the first retry).
    pub fn delay(&self, retry: u32) -> Duration {
        let exp = self
            .base_delay
            .saturating_mul(1u32.checked_shl(retry.min(31)).unwrap_or(u32::MAX));
        let capped = exp.min(self.max_delay);
        let half = capped / 2;
        let nanos = u64::try_from(half.as_nanos()).unwrap_or(u64::MAX);
        half + Duration::from_nanos(fastrand::u64(0..=nanos))
    }
}

/// True for errors that every other request of the batch would meet too: nothing more is sent.
fn stops_the_batch(e: &Error) -> bool {
    matches!(
        e,
        Error::Configuration { .. } | Error::ResourceNotFound { .. }
    )
}

/// The longest deadline kept as it is (a century); a longer one is saturated to it.
const LONGEST_DEADLINE: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

/// The retry budget every chunk of one batch draws from, and its deadline (see the module docs).
struct Budget {
    policy: RetryPolicy,
    /// When the batch must have returned, and the duration it was given (for messages).
    deadline: Option<(Instant, Duration)>,
    state: std::sync::Mutex<BudgetState>,
}

#[derive(Default)]
struct BudgetState {
    /// Failed requests since the last one that succeeded, across chunks.
    failures_in_a_row: u32,
    /// Set once the batch must send nothing more.
    stopped: bool,
}

impl Budget {
    fn new(policy: RetryPolicy, deadline: Option<Duration>) -> Self {
        Budget {
            policy,
            // A deadline past what an `Instant` can hold (`Duration::MAX`) is none in practice:
            // saturated at a century instead of overflowing.
            deadline: deadline.map(|d| (Instant::now() + d.min(LONGEST_DEADLINE), d)),
            state: std::sync::Mutex::default(),
        }
    }

    /// The error of work the deadline cut: `what` says what was left.
    fn deadline_error(&self, what: String) -> Error {
        let given = self.deadline.map(|(_, d)| d).unwrap_or_default();
        Error::DeadlineExceeded {
            message: format!("the batch's deadline of {given:?} passed: {what}"),
        }
    }

    fn expired(&self) -> bool {
        self.deadline.is_some_and(|(at, _)| Instant::now() >= at)
    }

    /// Runs `work`, or gives up on it when the deadline passes first (`None`).
    async fn within<T>(&self, work: impl std::future::Future<Output = T>) -> Option<T> {
        match self.deadline {
            None => Some(work.await),
            Some((at, _)) => tokio::time::timeout_at(at, work).await.ok(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BudgetState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn stopped(&self) -> bool {
        self.lock().stopped
    }

    fn stop(&self) {
        self.lock().stopped = true;
    }

    fn succeeded(&self) {
        self.lock().failures_in_a_row = 0;
    }

    /// Counts a failed request; true when the batch must stop (`max_attempts` failures in a row).
    fn failed(&self) -> bool {
        let mut s = self.lock();
        s.failures_in_a_row += 1;
        if s.failures_in_a_row >= self.policy.max_attempts.max(1) {
            s.stopped = true;
        }
        s.stopped
    }
}

/// True for errors a batch request is retried after.
fn retryable(e: &Error) -> bool {
    match e {
        Error::Throttled { .. } | Error::OutcomeUnknown { .. } => true,
        Error::Service {
            code: Some(code), ..
        } => {
            matches!(
                code.as_str(),
                "InternalServerError" | "InternalFailure" | "ServiceUnavailable"
            )
        }
        _ => false,
    }
}

/// The identity of an item: table and canonical key bytes.
fn identity(table: &str, key: &Item) -> Vec<u8> {
    let mut w = Writer::default();
    w.str(table);
    w.buf.extend(item_bytes(key));
    w.buf
}

/// A conservative estimate of a write's share of the request body: DynamoDB's item size, a third
/// more for base64 binaries, and JSON overhead per attribute.
fn request_bytes(write: &WriteRequest) -> usize {
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
/// A typed put or delete of `E` never overwrites or removes another entity's item (entities
/// sharing a key shape, such as users and organizations at `ACCOUNT#{name}`), as a single
/// [`super::EntityExt::put`] or [`super::EntityExt::delete`] does not. DynamoDB's
/// `BatchWriteItem` takes no condition, so typed writes are not sent in it: each is its own
/// PutItem or DeleteItem carrying the entity check (the item's entity-type attribute is `E`'s,
/// or absent), in the same request, so nothing can slip in between a check and the write. A
/// chunk of 25 is sent at once, so the batch takes about as long as 25 writes per
/// `BatchWriteItem` would, and the same write capacity (DynamoDB charges a batch write as the
/// single writes it holds); it makes one request per item instead of one per 25 (more request
/// overhead on the client). A write that finds another entity's item at its key changes
/// nothing and is returned in [`BatchWriteReport::unprocessed`] with [`Error::WrongEntity`]
/// among the errors (from [`Self::send`]: that error, when it is the only outcome, else
/// [`Error::BatchIncomplete`] listing the write); resending it cannot succeed. The other writes
/// are applied.
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
/// # async fn f<E: dyno_core::Entity>(store: &dyno_core::MemoryStore, items: &[E]) -> dyno_core::Result<()> {
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

/// What a batch write did: every write given is either written or listed in `unprocessed`.
#[derive(Debug)]
pub struct BatchWriteReport {
    /// Writes applied.
    pub written: usize,
    /// Writes not applied: their retries ran out, their chunk failed, or (a typed write with
    /// the entity check) the item at the key is another entity's, an [`Error::WrongEntity`] in
    /// `errors`, which resending cannot change (see [`BatchWriter`]'s "Ownership").
    pub unprocessed: Vec<WriteRequest>,
    /// Errors that left writes unprocessed: one that stopped a chunk without retrying (a
    /// validation error, a missing table...), the last error of a chunk whose retries ran out,
    /// the error that stopped the batch when the backend kept failing.
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
        self.unprocessed.is_empty() && self.errors.is_empty()
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
    /// Like [`super::EntityExt::put`], it never overwrites another entity's item: it is sent as
    /// a PutItem with the entity check (see "Ownership" above), and a write that finds another
    /// entity's item is returned with [`Error::WrongEntity`], changing nothing; unless the batch
    /// is [`Self::without_entity_check`].
    ///
    /// Nor can a batch write update an item in place: where a put or replace keeps the stored
    /// `created_at` of an entity whose field is unset (see [`super::Put`]), a batch put writes
    /// the item whole, stamped with the time of the write (equal to its `updated_at`). Give
    /// the field its stored value, or use a put, to keep it.
    ///
    /// An entity with a version field (`#[dyno(version)]`) is refused with
    /// [`Error::Validation`], before anything is sent: the batch could not check the version, so
    /// a stale copy would silently overwrite a newer one. Write it with a put or in a
    /// [`super::Transaction`] (both check the version), or say in the code that the check is not
    /// wanted (a bulk load, a restore) with [`Self::put_ignoring_version`].
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
            WriteRequest::Put {
                table: table_name::<E>(),
                item,
            },
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
    /// Like [`super::EntityExt::delete`], it never removes another entity's item (entities
    /// sharing a key shape, such as users and organizations at `ACCOUNT#{name}`): it is sent as
    /// a DeleteItem with the entity check (see "Ownership" above), and a write that finds
    /// another entity's item is returned with [`Error::WrongEntity`], changing nothing; unless
    /// the batch is [`Self::without_entity_check`]. A missing item is not an error.
    pub fn delete<E: Entity>(&mut self, key: Key<E>) -> Result<&mut Self> {
        let key = super::key_limits::key_item(key).map_err(|e| e.for_entity(E::ENTITY_TYPE))?;
        let k = key.clone();
        self.add(
            WriteRequest::Delete {
                table: table_name::<E>(),
                key,
            },
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
    fn chunks(writes: Vec<WriteRequest>) -> Vec<Vec<WriteRequest>> {
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
        let outcomes: Vec<(bool, ChunkOutcome<WriteRequest>)> = futures::stream::iter(chunks)
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
                        (false, out)
                    }
                    WriteChunk::Checked(chunk) => {
                        let out = run_chunk(chunk, budget, |pending| async move {
                            singles.fetch_add(pending.len(), std::sync::atomic::Ordering::Relaxed);
                            send_checked_chunk(store, budget, pending).await
                        })
                        .await;
                        (true, out.map(|w| w.request))
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
            errors: Vec::new(),
            requests: singles.load(std::sync::atomic::Ordering::Relaxed),
            attempts: 0,
        };
        for (single, o) in outcomes {
            report.written += o.done;
            report.unprocessed.extend(o.pending);
            report.unprocessed.extend(o.refused);
            report.errors.extend(o.error);
            report.errors.extend(o.refusals);
            if !single {
                report.requests += o.attempts as usize;
            }
            report.attempts = report.attempts.max(o.attempts);
        }
        if !report.is_complete() {
            tracing::warn!(
                unprocessed = report.unprocessed.len(),
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
        let untouched = report.written == 0 && report.unprocessed.len() == total;
        match incomplete(untouched, report.errors) {
            Ok(causes) => Err(Error::BatchIncomplete {
                unprocessed_writes: report.unprocessed,
                unprocessed_keys: Vec::new(),
                attempts: report.attempts,
                causes,
            }),
            Err(e) => Err(e),
        }
    }
}

/// The causes of an incomplete batch (one per distinct message, oldest first), or the one error
/// to return instead: when nothing was done and a single kind of non-retryable error is why.
fn incomplete(untouched: bool, mut errors: Vec<Error>) -> Result<Vec<Error>> {
    // A deadline leaves items, never a reason not to return them.
    let deadline = |e: &Error| matches!(e, Error::DeadlineExceeded { .. });
    if untouched
        && !errors.is_empty()
        && !errors.iter().any(deadline)
        && errors.iter().all(|e| !retryable(e))
        && errors.iter().all(|e| e.kind() == errors[0].kind())
    {
        return Err(errors.swap_remove(0));
    }
    let mut seen = HashSet::new();
    errors.retain(|e| seen.insert(e.to_string()));
    Ok(errors)
}

/// What one chunk did.
struct ChunkOutcome<T> {
    /// Items processed.
    done: usize,
    /// Items read (batch gets).
    found: Vec<(String, SharedItem)>,
    /// Items not processed.
    pending: Vec<T>,
    error: Option<Error>,
    attempts: u32,
    /// Items refused for good (a typed write that found another entity's item), not retried.
    refused: Vec<T>,
    /// Why each refused item was refused.
    refusals: Vec<Error>,
}

impl<T> ChunkOutcome<T> {
    fn map<U>(self, f: impl Fn(T) -> U) -> ChunkOutcome<U> {
        ChunkOutcome {
            done: self.done,
            found: self.found,
            pending: self.pending.into_iter().map(&f).collect(),
            error: self.error,
            attempts: self.attempts,
            refused: self.refused.into_iter().map(&f).collect(),
            refusals: self.refusals,
        }
    }
}

/// The answer to one request of a chunk: items read, items to send again, items refused for
/// good with why.
struct Answer<T> {
    found: Vec<(String, SharedItem)>,
    unprocessed: Vec<T>,
    refused: Vec<(T, Error)>,
}

impl<T> Answer<T> {
    fn new(found: Vec<(String, SharedItem)>, unprocessed: Vec<T>) -> Self {
        Answer {
            found,
            unprocessed,
            refused: Vec::new(),
        }
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

/// Runs one chunk: sends it, then resends what comes back unprocessed (or the whole chunk after a
/// retryable error) with backoff, up to the policy's attempts, while the batch's shared budget
/// lasts. The error that ends the chunk (a non-retryable one, or the last retryable one when its
/// retries or the budget ran out) is its outcome's `error`.
async fn run_chunk<T, F, Fut>(chunk: Vec<T>, budget: &Budget, send: F) -> ChunkOutcome<T>
where
    T: Clone,
    F: Fn(Vec<T>) -> Fut,
    Fut: std::future::Future<Output = Result<Answer<T>>>,
{
    let mut out = ChunkOutcome {
        done: 0,
        found: Vec::new(),
        pending: chunk,
        error: None,
        attempts: 0,
        refused: Vec::new(),
        refusals: Vec::new(),
    };
    let policy = budget.policy;
    let max = policy.max_attempts.max(1);
    let mut last_error = None;
    loop {
        if budget.expired() {
            budget.stop();
            out.error = Some(budget.deadline_error(format!(
                "{} item(s) of a chunk not sent{}",
                out.pending.len(),
                last_error
                    .map(|e| format!(" (its last error: {e})"))
                    .unwrap_or_default()
            )));
            return out;
        }
        if budget.stopped() {
            out.error = out.error.or(last_error);
            return out;
        }
        out.attempts += 1;
        let sent = out.pending.len();
        let Some(result) = budget.within(send(out.pending.clone())).await else {
            budget.stop();
            out.error = Some(budget.deadline_error(format!(
                "a request with {sent} item(s) was in flight and is abandoned: they are returned \
                 as not processed, and a write among them may or may not have been applied"
            )));
            return out;
        };
        match result {
            Ok(answer) => {
                budget.succeeded();
                last_error = None;
                out.found.extend(answer.found);
                out.done += sent.saturating_sub(answer.unprocessed.len() + answer.refused.len());
                for (item, why) in answer.refused {
                    out.refused.push(item);
                    out.refusals.push(why);
                }
                out.pending = answer.unprocessed;
                if out.pending.is_empty() {
                    return out;
                }
                tracing::debug!(
                    unprocessed = out.pending.len(),
                    attempt = out.attempts,
                    "batch: unprocessed items"
                );
            }
            Err(e) if retryable(&e) => {
                tracing::debug!(error = %e, attempt = out.attempts, "batch: retryable error");
                if budget.failed() {
                    tracing::warn!(error = %e, "batch: backend failing, stopping the batch");
                    out.error = Some(e);
                    return out;
                }
                last_error = Some(e);
            }
            Err(e) => {
                if stops_the_batch(&e) {
                    budget.stop();
                }
                out.error = Some(e);
                return out;
            }
        }
        if out.attempts >= max {
            out.error = last_error;
            return out;
        }
        // A backoff wait ends at the deadline; the loop then reports it.
        let _ = budget
            .within(tokio::time::sleep(policy.delay(out.attempts - 1)))
            .await;
    }
}

/// `A=v, B=w`: a key for messages, attributes in name order.
pub(crate) fn describe_key(key: &Item) -> String {
    let mut parts: Vec<String> = key
        .iter()
        .map(|(k, v)| format!("{k}={}", crate::value::describe(v)))
        .collect();
    parts.sort();
    parts.join(", ")
}

/// Reads any number of `E` by key in batches, returning them in the order of the keys (missing
/// and expired items simply absent).
#[must_use = "a batch does nothing until it is sent"]
pub struct BatchGet<E: Entity> {
    keys: Vec<Key<E>>,
    consistent: bool,
    concurrency: usize,
    retry: RetryPolicy,
    deadline: Option<Duration>,
    _e: PhantomData<fn() -> E>,
}

impl<E: Entity> fmt::Debug for BatchGet<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BatchGet")
            .field("entity", &E::ENTITY_TYPE)
            .field("keys", &self.keys.len())
            .field("consistent", &self.consistent)
            .field("concurrency", &self.concurrency)
            .field("retry", &self.retry)
            .finish()
    }
}

/// What a batch get did: every key asked is either read (found or absent) or in `unprocessed`.
#[derive(Debug)]
pub struct BatchGetReport<E> {
    /// The entities found, in the order of the keys.
    pub items: Vec<E>,
    /// Keys not read: their retries ran out, or their chunk failed (see `errors`).
    pub unprocessed: Vec<TableKey>,
    /// Errors that left keys unread (as [`BatchWriteReport::errors`]).
    pub errors: Vec<Error>,
    /// `BatchGetItem` requests made.
    pub requests: usize,
    /// The most attempts any chunk made.
    pub attempts: u32,
}

impl<E: Entity> BatchGet<E> {
    /// A batch read of `keys` (concurrency 4, [`RetryPolicy::default`]).
    pub fn new(keys: impl IntoIterator<Item = Key<E>>) -> Self {
        BatchGet {
            keys: keys.into_iter().collect(),
            consistent: false,
            concurrency: 4,
            retry: RetryPolicy::default(),
            deadline: None,
            _e: PhantomData,
        }
    }

    /// Adds a key.
    pub fn key(mut self, key: Key<E>) -> Self {
        self.keys.push(key);
        self
    }

    /// Strongly consistent reads.
    pub fn consistent(mut self) -> Self {
        self.consistent = true;
        self
    }

    /// At most `n` requests in flight (at least 1).
    pub fn concurrency(mut self, n: usize) -> Self {
        self.concurrency = n.max(1);
        self
    }

    /// The retry policy.
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// Returns within `deadline` of being run, whatever the backend does: keys not read by then
    /// are returned with [`Error::DeadlineExceeded`] (see [`BatchWriter::deadline`]).
    pub fn deadline(mut self, deadline: Duration) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// The old name of [`send_report`](Self::send_report).
    #[deprecated(
        note = "renamed `send_report`: `send` and `send_report` are the batch's two sends"
    )]
    pub async fn run<S: Store + ?Sized>(self, store: &S) -> Result<BatchGetReport<E>> {
        self.send_report(store).await
    }

    /// Reads everything it can and reports the keys it could not read. Fails only before
    /// sending (duplicate keys) or when a found item does not decode.
    pub async fn send_report<S: Store + ?Sized>(self, store: &S) -> Result<BatchGetReport<E>> {
        let table = table_name::<E>();
        let def = table_def::<E>();
        let mut position: HashMap<Vec<u8>, usize> = HashMap::with_capacity(self.keys.len());
        let mut keys = Vec::with_capacity(self.keys.len());
        for (i, key) in self.keys.into_iter().enumerate() {
            let key = super::key_limits::key_item(key).map_err(|e| e.for_entity(E::ENTITY_TYPE))?;
            if position.insert(identity(&table, &key), i).is_some() {
                return Err(Error::validation(format!(
                    "batch get of {}: key {} is asked twice; a batch may read each item once",
                    E::ENTITY_TYPE,
                    describe_key(&key)
                )));
            }
            keys.push(TableKey {
                table: table.clone(),
                key,
            });
        }
        let span =
            tracing::debug_span!("dyno.batch_get", entity = E::ENTITY_TYPE, keys = keys.len());
        let budget = Budget::new(self.retry, self.deadline);
        let budget = &budget;
        let consistent = self.consistent;
        let chunks: Vec<Vec<TableKey>> = keys
            .chunks(MAX_BATCH_KEYS)
            .map(<[TableKey]>::to_vec)
            .collect();
        let outcomes: Vec<ChunkOutcome<TableKey>> = futures::stream::iter(chunks)
            .map(|chunk| {
                run_chunk(chunk, budget, |pending| async move {
                    let out = store
                        .batch_get(BatchGetRequest {
                            keys: pending,
                            consistent_read: consistent,
                        })
                        .await?;
                    Ok(Answer::new(out.items, out.unprocessed_keys))
                })
            })
            .buffer_unordered(self.concurrency)
            .collect()
            .instrument(span)
            .await;

        let mut found: Vec<(usize, SharedItem)> = Vec::new();
        let mut report = BatchGetReport {
            items: Vec::new(),
            unprocessed: Vec::new(),
            errors: Vec::new(),
            requests: 0,
            attempts: 0,
        };
        for o in outcomes {
            report.unprocessed.extend(o.pending);
            report.errors.extend(o.error);
            report.requests += o.attempts as usize;
            report.attempts = report.attempts.max(o.attempts);
            for (_, item) in o.found {
                if !readable::<E>(&item) {
                    continue;
                }
                let key = key_of(&item, def).map_err(|e| e.for_entity(E::ENTITY_TYPE))?;
                let at = position
                    .get(&identity(&table, &key))
                    .copied()
                    .unwrap_or(usize::MAX);
                found.push((at, item));
            }
        }
        found.sort_by_key(|(at, _)| *at);
        report.items = found
            .iter()
            .map(|(_, item)| decode::<E>(item))
            .collect::<Result<_>>()?;
        Ok(report)
    }

    /// Reads every key: the entities found, in the order of the keys. Keys that could not be read
    /// after the retries fail the call with [`Error::BatchIncomplete`] listing them (use
    /// [`BatchGet::send_report`] to keep the items that were read).
    pub async fn send<S: Store + ?Sized>(self, store: &S) -> Result<Vec<E>> {
        let total = self.keys.len();
        let report = self.send_report(store).await?;
        if report.unprocessed.is_empty() && report.errors.is_empty() {
            return Ok(report.items);
        }
        let untouched = report.items.is_empty() && report.unprocessed.len() == total;
        let causes = incomplete(untouched, report.errors)?;
        Err(Error::BatchIncomplete {
            unprocessed_writes: Vec::new(),
            unprocessed_keys: report.unprocessed,
            attempts: report.attempts,
            causes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::AttributeValue;

    #[test]
    fn delays_grow_exponentially_with_jitter_and_cap() {
        let p = RetryPolicy {
            max_attempts: 5,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(1),
        };
        for _ in 0..100 {
            let d0 = p.delay(0);
            assert!(
                d0 >= Duration::from_millis(50) && d0 <= Duration::from_millis(100),
                "{d0:?}"
            );
            let d3 = p.delay(3);
            assert!(
                d3 >= Duration::from_millis(400) && d3 <= Duration::from_millis(800),
                "{d3:?}"
            );
            let d9 = p.delay(40);
            assert!(
                d9 >= Duration::from_millis(500) && d9 <= Duration::from_secs(1),
                "{d9:?}"
            );
        }
    }

    #[test]
    fn chunks_respect_count_and_size_limits() {
        let small = |i: usize| WriteRequest::Put {
            table: "T".into(),
            item: Item::from([("PK".to_owned(), AttributeValue::S(format!("K{i}")))]),
        };
        let chunks = BatchWriter::chunks((0..60).map(small).collect());
        assert_eq!(
            chunks.iter().map(Vec::len).collect::<Vec<_>>(),
            vec![25, 25, 10]
        );
        // Larger than DynamoDB allows per item, to exercise the request-size split.
        let big = |i: usize| WriteRequest::Put {
            table: "T".into(),
            item: Item::from([
                ("PK".to_owned(), AttributeValue::S(format!("K{i}"))),
                (
                    "blob".to_owned(),
                    AttributeValue::S("x".repeat(1024 * 1024)),
                ),
            ]),
        };
        let chunks = BatchWriter::chunks((0..50).map(big).collect());
        for c in &chunks {
            assert!(c.iter().map(request_bytes).sum::<usize>() <= MAX_BATCH_REQUEST_BYTES);
        }
        assert_eq!(chunks.iter().map(Vec::len).sum::<usize>(), 50);
        assert!(chunks.iter().all(|c| c.len() < MAX_BATCH_WRITES));
        assert!(chunks.len() >= 4);
    }
}
