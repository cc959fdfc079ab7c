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
//! A **lag budget** bounds how stale a stuck feed can make the cache: the follower holds a
//! lease on serving the table's entries, renewed to "caught up at `t`, plus the budget" each
//! time a poll finds nothing more waiting. When the feed stalls, throttles or fails for longer
//! than the budget (default 5 s, [`FollowerOptions::lag_budget`]), the lease lapses and the
//! cache stops serving the table's items and pages from memory (every read goes to the
//! backend) until the follower has caught up again; [`FollowerMetrics::within_budget`] and
//! [`FollowerMetrics::budget_lapses`] say so. A stuck feed degrades to uncached reads, never to
//! stale ones for the TTL. Stopping the follower releases the lease (entries are then served
//! until their TTL, as without a follower).
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

use crate::store::Lease;
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

/// How a [`Follower`] runs.
///
/// ```
/// use std::time::Duration;
/// use dyno_cache::FollowerOptions;
///
/// let options = FollowerOptions { lag_budget: Some(Duration::from_secs(2)), ..FollowerOptions::default() };
/// assert_eq!(FollowerOptions::default().lag_budget, Some(Duration::from_secs(5)));
/// # let _ = options;
/// ```
#[derive(Clone)]
pub struct FollowerOptions {
    /// How long the follower may go without catching up before the cache stops serving the
    /// table's entries from memory (default 5 s; `None`: no bound, entries are served until
    /// their TTL whatever the feed does).
    pub lag_budget: Option<Duration>,
    /// Run after each record is applied.
    pub on_applied: Option<OnApplied>,
}

impl Default for FollowerOptions {
    fn default() -> Self {
        FollowerOptions {
            lag_budget: Some(DEFAULT_LAG_BUDGET),
            on_applied: None,
        }
    }
}

impl fmt::Debug for FollowerOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FollowerOptions")
            .field("lag_budget", &self.lag_budget)
            .field("on_applied", &self.on_applied.is_some())
            .finish()
    }
}

/// The default [`FollowerOptions::lag_budget`].
const DEFAULT_LAG_BUDGET: Duration = Duration::from_secs(5);

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
    /// True while the cache may serve the table's entries from memory: the follower caught up
    /// within its lag budget (always true without a budget).
    pub within_budget: bool,
    /// Times the follower caught up after its lag budget had run out (meanwhile the cache read
    /// the table from the backend); a lapse still going on shows as `within_budget` false.
    pub budget_lapses: u64,
}

/// A running follower: a task applying one table's feed to one cache. Dropping it stops the
/// task; [`Follower::shutdown`] stops it and waits (bounded) for it to finish.
pub struct Follower {
    table: String,
    metrics: Arc<Mutex<FollowerMetrics>>,
    /// The lease on serving the table's entries, and the cache's clock to judge it by.
    lease: Option<(Arc<Lease>, Clock)>,
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
        let options = FollowerOptions {
            on_applied,
            ..FollowerOptions::default()
        };
        Follower::spawn_with_options(cache, feed, options)
    }

    /// As [`Follower::spawn`], with `options` (lag budget, callback). The lease on serving the
    /// table's entries is taken at once, for the budget.
    pub fn spawn_with_options<S, F>(
        cache: Arc<CachedStore<S>>,
        feed: F,
        options: FollowerOptions,
    ) -> Follower
    where
        S: Store + 'static,
        F: ChangeFeed + 'static,
    {
        let table = feed.table().to_owned();
        let metrics = Arc::new(Mutex::new(FollowerMetrics {
            checkpoint: feed.checkpoint(),
            within_budget: true,
            ..FollowerMetrics::default()
        }));
        let lease = options.lag_budget.map(|budget| {
            let lease = Arc::new(cache.lease(&table, cache.clock_now() + budget));
            let clock: Clock = {
                let cache = cache.clone();
                Arc::new(move || cache.clock_now())
            };
            (lease, budget, clock)
        });
        let (stop, stopped) = watch::channel(false);
        let run = Run {
            cache,
            metrics: metrics.clone(),
            on_applied: options.on_applied,
            lease: lease.as_ref().map(|(l, b, _)| (l.clone(), *b)),
        };
        let task = tokio::spawn(run.follow(feed, stopped));
        Follower {
            table,
            metrics,
            lease: lease.map(|(l, _, c)| (l, c)),
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
        let mut m = lock(&self.metrics).clone();
        if let Some((lease, clock)) = &self.lease {
            m.within_budget = lease.serves(clock());
        }
        m
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

/// The cache's clock, for a follower's lease.
type Clock = Arc<dyn Fn() -> Duration + Send + Sync>;

struct Run<S> {
    cache: Arc<CachedStore<S>>,
    metrics: Arc<Mutex<FollowerMetrics>>,
    on_applied: Option<OnApplied>,
    /// The lease and the lag budget it is renewed for.
    lease: Option<(Arc<Lease>, Duration)>,
}

impl<S: Store + 'static> Run<S> {
    async fn follow<F: ChangeFeed>(self, mut feed: F, mut stopped: watch::Receiver<bool>) {
        // Whatever the cache holds was filled while nobody followed the table.
        self.invalidate(feed.table()).await;
        let mut backoff = BACKOFF.0;
        loop {
            // Everything in the stream before now is in this poll's batch or an earlier one,
            // unless the batch says more is waiting.
            let started = self.cache.clock_now();
            let polled = tokio::select! {
                _ = stopped.changed() => return,
                polled = feed.poll(POLL_WAIT) => polled,
            };
            match polled {
                Ok(batch) => {
                    backoff = BACKOFF.0;
                    let caught_up = batch.records.is_empty();
                    let at_head = !batch.more;
                    self.apply(feed.table(), batch).await;
                    let mut m = lock(&self.metrics);
                    m.checkpoint = feed.checkpoint();
                    m.caught_up = caught_up;
                    if let (Some((lease, budget)), true) = (&self.lease, at_head) {
                        if !lease.serves(self.cache.clock_now()) {
                            m.budget_lapses += 1;
                            tracing::info!(
                                table = feed.table(),
                                "change feed caught up: cache serves the table again"
                            );
                        }
                        lease.renew(started + *budget);
                    }
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
