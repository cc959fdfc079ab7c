//! MemoryStore's stream: a per-table log of changes, appended under the table's write lock (so
//! in commit order), and [`MemoryFeed`], its reader.

use std::collections::VecDeque;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use tokio::sync::Notify;

use crate::error::{Error, Result};
use crate::feed::{
    ChangeFeed, ChangeKind, ChangeRecord, Checkpoint, FeedBatch, Gap, SequenceNumber,
    StartingPosition, StreamView, UserIdentity,
};
use crate::table::TableDef;
use crate::value::{Item, SharedItem};

/// Most records one poll returns (DynamoDB Streams' `GetRecords` limit).
const MAX_BATCH: usize = 1000;

/// Distinguishes the streams of successive tables of one name.
static NEXT_STREAM: AtomicU64 = AtomicU64::new(1);

/// How long a MemoryStore stream keeps its records: DynamoDB keeps them 24 hours; an in-process
/// engine also needs a bound on memory, so the oldest records beyond `max_records` are trimmed
/// too. A reader whose next record was trimmed gets a [`Gap::Trimmed`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamRetention {
    /// Records older than this (by the store's clock) are trimmed.
    pub max_age: Duration,
    /// At most this many records are kept per table.
    pub max_records: usize,
}

impl Default for StreamRetention {
    /// 24 hours, 100,000 records per table.
    fn default() -> Self {
        StreamRetention {
            max_age: Duration::from_secs(24 * 60 * 60),
            max_records: 100_000,
        }
    }
}

/// Why an item changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChangeCause {
    /// A request (put, update, delete, batch, transaction).
    Request,
    /// TTL expiry.
    Ttl,
}

type Clock = Arc<dyn Fn() -> SystemTime + Send + Sync>;

/// One table's stream. Appended to while the table's write lock is held, so records are in
/// commit order; read by any number of [`MemoryFeed`]s.
pub(crate) struct StreamLog {
    table: String,
    stream: String,
    shard: String,
    view: StreamView,
    key_names: Vec<String>,
    clock: Clock,
    retention: StreamRetention,
    state: Mutex<LogState>,
    appended: Notify,
}

#[derive(Debug, Default)]
struct LogState {
    records: VecDeque<ChangeRecord>,
    /// The last sequence number given (0: none yet).
    last: u64,
    /// The last sequence number trimmed (0: none).
    trimmed: u64,
    /// The table was deleted: no record will come.
    closed: bool,
}

impl fmt::Debug for StreamLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StreamLog")
            .field("stream", &self.stream)
            .field("view", &self.view)
            .finish_non_exhaustive()
    }
}

fn lock(state: &Mutex<LogState>) -> std::sync::MutexGuard<'_, LogState> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

fn sequence(n: u64) -> SequenceNumber {
    SequenceNumber::new(format!("{n:021}"))
}

impl StreamLog {
    /// The stream of a table being created, when its definition asks for one.
    pub(crate) fn for_table(
        def: &TableDef,
        clock: Clock,
        retention: StreamRetention,
    ) -> Option<Arc<StreamLog>> {
        let view = def.stream?;
        let id = NEXT_STREAM.fetch_add(1, AtomicOrdering::Relaxed);
        Some(Arc::new(StreamLog {
            table: def.name.clone(),
            stream: format!("memory:{}:stream/{id}", def.name),
            shard: format!("shardId-{id:020}"),
            view,
            key_names: def.key_names().map(str::to_owned).collect(),
            clock,
            retention,
            state: Mutex::default(),
            appended: Notify::new(),
        }))
    }

    /// Records a change of one item from `old` to `new` (`None`: absent). A write that leaves
    /// the item as it was records nothing, as on DynamoDB.
    pub(crate) fn record(
        &self,
        old: Option<&SharedItem>,
        new: Option<&SharedItem>,
        cause: ChangeCause,
    ) {
        let kind = match (old, new) {
            (None, None) => return,
            (Some(o), Some(n)) if o == n => return,
            (None, Some(_)) => ChangeKind::Insert,
            (Some(_), Some(_)) => ChangeKind::Modify,
            (Some(_), None) => ChangeKind::Remove,
        };
        let Some(any) = new.or(old) else { return };
        let keys: Item = self
            .key_names
            .iter()
            .filter_map(|k| Some((k.clone(), any.get(k)?.clone())))
            .collect();
        let now = (self.clock)();
        let mut state = lock(&self.state);
        state.last += 1;
        let record = ChangeRecord {
            table: self.table.clone(),
            shard: self.shard.clone(),
            sequence: sequence(state.last),
            kind,
            keys,
            old_image: old.filter(|_| self.view.has_old()).cloned(),
            new_image: new.filter(|_| self.view.has_new()).cloned(),
            user_identity: (cause == ChangeCause::Ttl).then(UserIdentity::ttl),
            created_at: now,
        };
        state.records.push_back(record);
        self.trim(&mut state, now);
        drop(state);
        self.appended.notify_waiters();
    }

    /// Ends the stream (its table was deleted): readers get what is left, then an error.
    pub(crate) fn close(&self) {
        lock(&self.state).closed = true;
        self.appended.notify_waiters();
    }

    fn trim(&self, state: &mut LogState, now: SystemTime) {
        let horizon = now.checked_sub(self.retention.max_age);
        while let Some(front) = state.records.front() {
            let too_many = state.records.len() > self.retention.max_records;
            let too_old = horizon.is_some_and(|h| front.created_at < h);
            if !(too_many || too_old) {
                break;
            }
            state.records.pop_front();
            state.trimmed += 1;
        }
    }

    /// Records after `after`, and whether some were trimmed before they could be read.
    fn read_after(&self, after: u64) -> std::result::Result<(u64, Vec<ChangeRecord>), ()> {
        let mut state = lock(&self.state);
        let now = (self.clock)();
        self.trim(&mut state, now);
        let start = after.max(state.trimmed);
        // Records are numbered from 1 without holes: record n sits at index n - 1 - trimmed.
        let skip = usize::try_from(start - state.trimmed).unwrap_or(usize::MAX);
        let records: Vec<ChangeRecord> = state
            .records
            .iter()
            .skip(skip)
            .take(MAX_BATCH)
            .cloned()
            .collect();
        if records.is_empty() && state.closed {
            return Err(());
        }
        Ok((start, records))
    }
}

/// A reader of a MemoryStore table's stream; see [`MemoryStore::change_feed`](crate::MemoryStore::change_feed).
#[derive(Debug)]
pub struct MemoryFeed {
    log: Arc<StreamLog>,
    /// The last sequence number returned (or skipped by the starting position).
    after: u64,
    /// A gap found when the reader was opened, reported by the first poll.
    pending: Vec<Gap>,
}

impl MemoryFeed {
    pub(crate) fn open(log: Arc<StreamLog>, start: StartingPosition) -> Result<Self> {
        let (last, trimmed) = {
            let state = lock(&log.state);
            (state.last, state.trimmed)
        };
        let mut pending = Vec::new();
        let after = match start {
            StartingPosition::TrimHorizon => trimmed,
            StartingPosition::Latest => last,
            StartingPosition::After(checkpoint) => {
                if checkpoint.stream.as_deref() != Some(log.stream.as_str()) {
                    pending.push(Gap::StreamChanged {
                        was: checkpoint.stream.clone(),
                        now: log.stream.clone(),
                    });
                    trimmed
                } else {
                    match checkpoint.shards.get(&log.shard) {
                        None => 0,
                        Some(seq) => seq.as_str().parse::<u64>().map_err(|_| {
                            Error::validation(format!(
                                "sequence number {seq} is not one of stream {}",
                                log.stream
                            ))
                        })?,
                    }
                }
            }
        };
        if after > last {
            return Err(Error::validation(format!(
                "sequence number {after} is beyond the end of stream {}",
                log.stream
            )));
        }
        Ok(MemoryFeed {
            log,
            after,
            pending,
        })
    }

    /// The stream's identifier (new for each table created).
    pub fn stream(&self) -> &str {
        &self.log.stream
    }

    /// The stream's view type.
    pub fn view(&self) -> StreamView {
        self.log.view
    }

    /// Takes what is there now, moving the position.
    fn take(&mut self) -> Result<FeedBatch> {
        let mut gaps = std::mem::take(&mut self.pending);
        let (start, records) =
            self.log
                .read_after(self.after)
                .map_err(|()| Error::ResourceNotFound {
                    message: format!(
                        "the stream {} has ended: table {} was deleted",
                        self.log.stream, self.log.table
                    ),
                })?;
        if start > self.after {
            gaps.push(Gap::Trimmed {
                shard: self.log.shard.clone(),
            });
        }
        self.after = start + records.len() as u64;
        let more = records.len() >= MAX_BATCH;
        Ok(FeedBatch {
            gaps,
            records,
            more,
        })
    }
}

#[async_trait]
impl ChangeFeed for MemoryFeed {
    fn table(&self) -> &str {
        &self.log.table
    }

    async fn poll(&mut self, wait: Duration) -> Result<FeedBatch> {
        let deadline = tokio::time::Instant::now() + wait;
        let log = Arc::clone(&self.log);
        loop {
            let appended = log.appended.notified();
            tokio::pin!(appended);
            appended.as_mut().enable();
            let batch = self.take()?;
            if !batch.records.is_empty() || !batch.gaps.is_empty() {
                return Ok(batch);
            }
            if tokio::time::timeout_at(deadline, appended).await.is_err() {
                return Ok(batch);
            }
        }
    }

    fn checkpoint(&self) -> Checkpoint {
        let mut checkpoint = Checkpoint {
            stream: Some(self.log.stream.clone()),
            ..Checkpoint::default()
        };
        if self.after > 0 {
            checkpoint.advance(&self.log.shard, &sequence(self.after));
        }
        checkpoint
    }
}
