//! [`BatchWriter`]: puts and deletes in batches of 25.

use std::collections::HashSet;
use std::fmt;
use std::time::Duration;

use futures::StreamExt;
use tracing::Instrument;

use super::retry::{incomplete, run_chunk, Budget, ChunkOutcome, RetryPolicy};
use super::{describe_key, identity, MAX_BATCH_REQUEST_BYTES, MAX_BATCH_WRITES};
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::ops::entity_rules::{key_of, table_def, table_name};
use crate::ops::{Key, Put, PutMode};
use crate::store::{BatchWriteRequest, Store, WriteRequest};
use crate::table::TableDef;
use crate::value::{check_item_size, item_size, Item};

/// A conservative estimate of a write's share of the request body: DynamoDB's item size, a third
/// more for base64 binaries, and JSON overhead per attribute.
fn request_bytes(write: &WriteRequest) -> usize {
    let item = match write {
        WriteRequest::Put { item, .. } => item,
        WriteRequest::Delete { key, .. } => key,
    };
    item_size(item) * 4 / 3 + 32 * item.len() + write.table().len() + 64
}

/// Writes any number of items in batches. Puts and deletes are unconditional (DynamoDB's batch
/// writes take no condition), so a batch cannot check an optimistic-locking version:
/// [`BatchWriter::put`] refuses entities with a version field, and
/// [`BatchWriter::put_ignoring_version`] writes them without the check, in so many words.
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
    writes: Vec<WriteRequest>,
    seen: HashSet<Vec<u8>>,
    concurrency: usize,
    retry: RetryPolicy,
    deadline: Option<Duration>,
}

impl fmt::Debug for BatchWriter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BatchWriter")
            .field("writes", &self.writes.len())
            .field("concurrency", &self.concurrency)
            .field("retry", &self.retry)
            .field("deadline", &self.deadline)
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
        }
    }
}

/// What a batch write did: every write given is either written or listed in `unprocessed`.
#[derive(Debug)]
pub struct BatchWriteReport {
    /// Writes applied.
    pub written: usize,
    /// Writes not applied: their retries ran out, or their chunk failed (see `errors`).
    pub unprocessed: Vec<WriteRequest>,
    /// Errors that left writes unprocessed: one that stopped a chunk without retrying (a
    /// validation error, a missing table...), the last error of a chunk whose retries ran out,
    /// the error that stopped the batch when the backend kept failing.
    pub errors: Vec<Error>,
    /// `BatchWriteItem` requests made.
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

    fn add(&mut self, write: WriteRequest, key: &Item, what: &str) -> Result<&mut Self> {
        if !self.seen.insert(identity(write.table(), key)) {
            return Err(Error::validation(format!(
                "batch write: two writes on one item of table {} ({what}, key {}); a batch may write each item once",
                write.table(),
                describe_key(key)
            )));
        }
        self.writes.push(write);
        Ok(self)
    }

    /// Adds a put of `entity` (refused when over 400 KB or already in the batch).
    ///
    /// DynamoDB cannot condition batch writes: unlike [`super::EntityExt::put`], a batch put
    /// does not check the item's owner, and overwrites whatever item is at the key, another
    /// entity's included (entities sharing a key shape). Use a put or a [`super::Transaction`]
    /// where that matters.
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
            &key,
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
    /// DynamoDB cannot condition batch writes: a batch delete removes whatever item is at the key,
    /// whichever entity it belongs to (entities sharing a key shape, such as users and
    /// organizations at `ACCOUNT#{name}`), where [`super::EntityExt::delete`] would fail with
    /// [`crate::Error::WrongEntity`] and change nothing. Delete one by one, or in a
    /// [`super::Transaction`], when the key may hold another entity's item.
    pub fn delete<E: Entity>(&mut self, key: Key<E>) -> Result<&mut Self> {
        let key =
            crate::ops::key_limits::key_item(key).map_err(|e| e.for_entity(E::ENTITY_TYPE))?;
        let k = key.clone();
        self.add(
            WriteRequest::Delete {
                table: table_name::<E>(),
                key,
            },
            &k,
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
        self.add(write, &key, "raw write")
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

    /// Writes everything it can and reports what it could not; never fails as a whole.
    pub async fn run<S: Store + ?Sized>(self, store: &S) -> BatchWriteReport {
        let span = tracing::debug_span!("dyno.batch_write", writes = self.writes.len());
        let budget = Budget::new(self.retry, self.deadline);
        let budget = &budget;
        let chunks = Self::chunks(self.writes);
        let outcomes: Vec<ChunkOutcome<WriteRequest>> = futures::stream::iter(chunks)
            .map(|chunk| {
                run_chunk(chunk, budget, |pending| async move {
                    let out = store
                        .batch_write(BatchWriteRequest { writes: pending })
                        .await?;
                    Ok((Vec::new(), out.unprocessed))
                })
            })
            .buffer_unordered(self.concurrency)
            .collect()
            .instrument(span)
            .await;
        let mut report = BatchWriteReport {
            written: 0,
            unprocessed: Vec::new(),
            errors: Vec::new(),
            requests: 0,
            attempts: 0,
        };
        for o in outcomes {
            report.written += o.done;
            report.unprocessed.extend(o.pending);
            report.errors.extend(o.error);
            report.requests += o.attempts as usize;
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
        let report = self.run(store).await;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::AttributeValue;

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
