//! The follower: keeps a [`CachedStore`] coherent with writes made through other instances (or
//! by other clients) by applying a table's change feed to it.
//!
//! The feed is MemoryStore's own ([`MemoryStore::change_feed`](dyno_core::MemoryStore::change_feed))
//! or, on DynamoDB, `dyno_core::feed::StreamsFeed` (dyno-core's feature `streams`).
//!
//! Each record goes through [`CachedStore::apply_change`]: the query pages of the item's old and
//! new partitions (in the table and in every affected index; the whole index when the stream's
//! view type leaves an image out) become unservable, and the item's entry is dropped: the next
//! read loads the item. The entry is never replaced by the record's new image, even when it holds
//! the record's old one: the entry may be newer than the record (`A -> B -> A`, and the cache
//! filled the second `A`), and nothing orders a fill against a record.
//!
//! When the feed reports a gap (records trimmed before they were read, a shard or the stream
//! lost, the stream ended) the follower cannot know what changed, so it invalidates the table's
//! entries ([`CachedStore::invalidate_table`]) rather than let the cache serve possibly stale
//! ones; it does so too when it starts, since whatever the cache held before was not being
//! followed. Other feed errors (throttling, a server that does not answer) lose no record: the
//! feed keeps its position, and the follower retries with a backoff (50 ms doubling to 5 s).
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> dyno_core::Result<()> {
//! use std::sync::Arc;
//! use dyno_cache::{CachedStore, Follower};
//! use dyno_core::feed::{StartingPosition, StreamView};
//! use dyno_core::{MemoryStore, Store, TableDef};
//!
//! let backend = Arc::new(MemoryStore::new());
//! backend.create_table(&TableDef::new("Shop", "PK", None).stream(StreamView::KeysOnly)).await?;
//! // Two instances of a service, each with its cache, over one database.
//! let (a, b) = (Arc::new(CachedStore::new(backend.clone())), Arc::new(CachedStore::new(backend.clone())));
//! let follow_a = Follower::spawn(a.clone(), backend.change_feed("Shop", StartingPosition::Latest)?);
//! let follow_b = Follower::spawn(b.clone(), backend.change_feed("Shop", StartingPosition::Latest)?);
//! // ... writes through `a` reach `b`'s cache within the follower's lag.
//! let metrics = follow_b.shutdown().await;
//! assert_eq!(metrics.gaps, 0);
//! # follow_a.shutdown().await;
//! # Ok(()) }
//! ```

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use dyno_core::feed::{ChangeFeed, ChangeKind, ChangeRecord, Checkpoint, FeedBatch};
use dyno_core::value::SharedItem;
use dyno_core::Store;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::{CachedStore, Image};

/// What a record says of its item before and after: an insert's old image and a removal's new
/// image are absent whatever the view type; an image the view type leaves out is unknown.
fn images(record: &ChangeRecord) -> (Image<'_>, Image<'_>) {
    fn image(i: Option<&SharedItem>) -> Image<'_> {
        i.map_or(Image::Unknown, |i| Image::Present(i))
    }
    let old = match record.kind {
        ChangeKind::Insert => Image::Absent,
        _ => image(record.old_image.as_ref()),
    };
    let new = match record.kind {
        ChangeKind::Remove => Image::Absent,
        _ => image(record.new_image.as_ref()),
    };
    (old, new)
}

/// How long one poll of the feed waits for records before the follower checks for shutdown.
const POLL_WAIT: Duration = Duration::from_millis(500);
/// Backoff after a feed error: doubles from the first to the last.
const BACKOFF: (Duration, Duration) = (Duration::from_millis(50), Duration::from_secs(5));
/// How long [`Follower::shutdown`] waits for the task before aborting it.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(5);

/// A callback run after each record is applied (metrics, tests, logging).
pub type OnApplied = Arc<dyn Fn(&ChangeRecord) + Send + Sync>;

/// What a follower has done, and how far behind it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FollowerMetrics {
    /// Records applied to the cache.
    pub records_applied: u64,
    /// Gaps the feed reported (each invalidated the cache).
    pub gaps: u64,
    /// Times the follower invalidated the cache (start, gaps, unreadable feed).
    pub invalidations: u64,
    /// Feed errors (each retried after a backoff).
    pub errors: u64,
    /// The last feed error, as text.
    pub last_error: Option<String>,
    /// The position after the last record applied: a follower started after it misses nothing.
    pub checkpoint: Checkpoint,
    /// Between the last applied record's creation and its application (by the system clock).
    /// DynamoDB Streams rounds a record's creation time down to the second, so there the figure
    /// is over by up to a second.
    pub lag: Option<Duration>,
    /// The largest such lag seen.
    pub max_lag: Duration,
    /// True when the last poll found nothing left to apply.
    pub caught_up: bool,
}

/// A running follower: a task applying one table's feed to one cache. Dropping it stops the
/// task; [`Follower::shutdown`] stops it and waits (bounded) for it to finish.
pub struct Follower {
    table: String,
    metrics: Arc<Mutex<FollowerMetrics>>,
    stop: watch::Sender<bool>,
    task: Option<JoinHandle<()>>,
}

impl fmt::Debug for Follower {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Follower")
            .field("table", &self.table)
            .field("metrics", &self.metrics())
            .finish_non_exhaustive()
    }
}

impl Follower {
    /// Starts following `feed` into `cache` (on the current Tokio runtime).
    pub fn spawn<S, F>(cache: Arc<CachedStore<S>>, feed: F) -> Follower
    where
        S: Store + 'static,
        F: ChangeFeed + 'static,
    {
        Follower::spawn_with(cache, feed, None)
    }

    /// As [`Follower::spawn`], running `on_applied` after each record is applied to the cache
    /// (from then on, no read of this cache returns the item as it was before that change).
    pub fn spawn_with<S, F>(
        cache: Arc<CachedStore<S>>,
        feed: F,
        on_applied: Option<OnApplied>,
    ) -> Follower
    where
        S: Store + 'static,
        F: ChangeFeed + 'static,
    {
        let table = feed.table().to_owned();
        let metrics = Arc::new(Mutex::new(FollowerMetrics {
            checkpoint: feed.checkpoint(),
            ..FollowerMetrics::default()
        }));
        let (stop, stopped) = watch::channel(false);
        let run = Run {
            cache,
            metrics: metrics.clone(),
            on_applied,
        };
        let task = tokio::spawn(run.follow(feed, stopped));
        Follower {
            table,
            metrics,
            stop,
            task: Some(task),
        }
    }

    /// Waits, at most `timeout`, until the follower has started: its first step invalidates the
    /// table's entries (they were filled while nobody followed the table), so what the cache
    /// fills after this returns is kept until a change or a gap. Returns false on timeout.
    pub async fn started(&self, timeout: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            if lock(&self.metrics).invalidations > 0 {
                return true;
            }
            if tokio::time::Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }

    /// The table followed.
    pub fn table(&self) -> &str {
        &self.table
    }

    /// The counters, checkpoint and lag now.
    pub fn metrics(&self) -> FollowerMetrics {
        lock(&self.metrics).clone()
    }

    /// Stops the follower, waiting up to 5 seconds for its task (then aborting it), and returns
    /// its final metrics (with the checkpoint to resume from).
    pub async fn shutdown(mut self) -> FollowerMetrics {
        let _ = self.stop.send(true);
        if let Some(mut task) = self.task.take()
            && tokio::time::timeout(SHUTDOWN_WAIT, &mut task)
                .await
                .is_err()
        {
            task.abort();
        }
        self.metrics()
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

fn lock(m: &Mutex<FollowerMetrics>) -> std::sync::MutexGuard<'_, FollowerMetrics> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

struct Run<S> {
    cache: Arc<CachedStore<S>>,
    metrics: Arc<Mutex<FollowerMetrics>>,
    on_applied: Option<OnApplied>,
}

impl<S: Store + 'static> Run<S> {
    async fn follow<F: ChangeFeed>(self, mut feed: F, mut stopped: watch::Receiver<bool>) {
        // Whatever the cache holds was filled while nobody followed the table.
        self.invalidate(feed.table()).await;
        let mut backoff = BACKOFF.0;
        loop {
            let polled = tokio::select! {
                _ = stopped.changed() => return,
                polled = feed.poll(POLL_WAIT) => polled,
            };
            match polled {
                Ok(batch) => {
                    backoff = BACKOFF.0;
                    let caught_up = batch.records.is_empty();
                    self.apply(feed.table(), batch).await;
                    let mut m = lock(&self.metrics);
                    m.checkpoint = feed.checkpoint();
                    m.caught_up = caught_up;
                }
                Err(e) => {
                    {
                        let mut m = lock(&self.metrics);
                        m.errors += 1;
                        m.last_error = Some(e.to_string());
                        m.caught_up = false;
                    }
                    tracing::warn!(table = feed.table(), error = %e, "change feed unreadable");
                    if matches!(e, dyno_core::Error::ResourceNotFound { .. }) {
                        // The stream (or table) is gone: changes may be lost for good.
                        self.invalidate(feed.table()).await;
                    }
                    tokio::select! {
                        _ = stopped.changed() => return,
                        () = tokio::time::sleep(backoff) => {}
                    }
                    backoff = (backoff * 2).min(BACKOFF.1);
                }
            }
        }
    }

    async fn apply(&self, table: &str, batch: FeedBatch) {
        if !batch.gaps.is_empty() {
            tracing::warn!(table, gaps = ?batch.gaps, "change feed gap: cache invalidated");
            lock(&self.metrics).gaps += batch.gaps.len() as u64;
            self.invalidate(table).await;
        }
        for record in &batch.records {
            let (old, new) = images(record);
            let applied = self
                .cache
                .apply_change(&record.table, &record.keys, old, new)
                .await;
            if let Err(e) = applied {
                // The table's schema could not be read: invalidate rather than miss this change.
                tracing::warn!(table = %record.table, error = %e, "change not applied: cache invalidated");
                self.invalidate(&record.table).await;
            }
            let lag = SystemTime::now()
                .duration_since(record.created_at)
                .unwrap_or_default();
            {
                let mut m = lock(&self.metrics);
                m.records_applied += 1;
                m.lag = Some(lag);
                m.max_lag = m.max_lag.max(lag);
            }
            if let Some(f) = &self.on_applied {
                f(record);
            }
        }
    }

    /// Makes every entry of `table` unservable; the whole cache when even that fails (the
    /// table's indexes could not be learned).
    async fn invalidate(&self, table: &str) {
        if let Err(e) = self.cache.invalidate_table(table).await {
            tracing::warn!(table, error = %e, "table not described: whole cache invalidated");
            self.cache.invalidate_all();
        }
        lock(&self.metrics).invalidations += 1;
    }
}
