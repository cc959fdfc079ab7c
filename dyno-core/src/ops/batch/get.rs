//! [`BatchGet`]: reads by key in batches of 100.

use super::retry::*;
use super::*;
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::ops::entity_rules::{decode, key_of, readable, table_def, table_name};
use crate::ops::Key;
use crate::store::{BatchGetRequest, Store, TableKey};
use crate::value::SharedItem;
use futures::StreamExt;
use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;
use std::time::Duration;
use tracing::Instrument;

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
            let key =
                crate::ops::key_limits::key_item(key).map_err(|e| e.for_entity(E::ENTITY_TYPE))?;
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
            refused: Vec::new(),
            unprocessed_keys: report.unprocessed,
            attempts: report.attempts,
            causes,
        })
    }
}
