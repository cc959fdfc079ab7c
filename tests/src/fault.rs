//! `FaultStore`: a [`Store`] wrapper that counts, delays, fails, truncates, pauses and lies, for
//! the batch, cache and reliability tests.
//!
//! Every call goes through the same steps, in this order, so that a test can combine knobs:
//!
//! 1. **count**: the call is counted under its [`Op`] ([`FaultStore::calls`],
//!    [`FaultStore::counts`]), whatever happens next;
//! 2. **pause before** ([`FaultStore::pause_next`]): the call waits at a barrier before it reaches
//!    the inner store;
//! 3. **latency** ([`FaultStore::set_latency`]): `tokio::time::sleep` (so paused-clock tests with
//!    `tokio::time::pause` stay instant);
//! 4. **fail before** ([`FaultStore::fail_next`], [`FaultStore::throttle_next`]): the call returns
//!    an injected error without reaching the inner store;
//! 5. **unprocessed** ([`FaultStore::unprocessed_writes`], [`FaultStore::unprocessed_keys`]): some
//!    batch writes or keys are held back, not sent, and returned as unprocessed;
//! 6. **stale reads** ([`FaultStore::serve_stale`], [`FaultStore::hold_stale`]): an eventually
//!    consistent read of a held key answers the held image instead of asking the inner store;
//! 7. the inner store is called;
//! 8. **fail after** ([`FaultStore::fail_next_after`]): the inner call happened (a write was
//!    applied) but the caller gets an error, as with a timeout on the response;
//! 9. **pause after** ([`FaultStore::pause_next_after`]): the inner call is done and its result is
//!    held at a barrier before it is returned (a read that fetched an old image and has not
//!    returned it yet).
//!
//! The two knobs the batch engine's retry tests need most are one call each:
//!
//! ```
//! # use dyno_tests::fault::{FaultStore, Op, Pick};
//! # fn demo<S: dyno_core::Store>(inner: S) {
//! let store = FaultStore::new(inner);
//! // The first 2 BatchWriteItem calls leave every other write unprocessed, then all succeed.
//! store.unprocessed_writes(Pick::EveryNth(2), Some(2));
//! // The next 3 BatchGetItem calls are throttled.
//! store.throttle_next(Op::BatchGet, 3);
//! # }
//! ```

use std::collections::VecDeque;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use dyno_core::error::{Error, Result};
use dyno_core::store::{
    BatchGetOutput, BatchGetRequest, BatchWriteOutput, BatchWriteRequest, DeleteRequest, GetOutput,
    GetRequest, Page, PutRequest, QueryRequest, Reply, ScanRequest, Store, TableDescription,
    TableKey, TransactGetOutput, TransactGetRequest, TransactWriteOutput, TransactWriteRequest,
    UpdateRequest, UpdateTableRequest, WriteOutput, WriteRequest,
};
use dyno_core::table::TableDef;
use dyno_core::value::{Item, SharedItem};
use tokio::sync::watch;

/// One operation of the [`Store`] trait: dyno-core's [`Call`](dyno_core::store::forward::Call),
/// with its `is_read` and `is_write`.
pub use dyno_core::store::forward::Call as Op;

/// Every operation, in declaration order.
pub const OPS: [Op; 15] = [
    Op::GetItem,
    Op::PutItem,
    Op::UpdateItem,
    Op::DeleteItem,
    Op::Query,
    Op::Scan,
    Op::BatchGet,
    Op::BatchWrite,
    Op::TransactGet,
    Op::TransactWrite,
    Op::CreateTable,
    Op::DeleteTable,
    Op::DescribeTable,
    Op::UpdateTtl,
    Op::UpdateTable,
];

/// `op`'s slot in per-operation tables: its place in [`OPS`].
fn index(op: Op) -> usize {
    OPS.iter()
        .position(|o| *o == op)
        .expect("OPS lists every operation")
}

/// Calls counted per operation: a snapshot taken by [`FaultStore::counts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CallCounts([u64; OPS.len()]);

impl CallCounts {
    /// Calls of `op`.
    pub fn get(&self, op: Op) -> u64 {
        self.0[index(op)]
    }

    /// Calls of every operation.
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }

    /// Data-plane reads (see [`Op::is_read`]).
    pub fn reads(&self) -> u64 {
        OPS.iter()
            .filter(|o| o.is_read())
            .map(|o| self.get(*o))
            .sum()
    }

    /// Data-plane writes (see [`Op::is_write`]).
    pub fn writes(&self) -> u64 {
        OPS.iter()
            .filter(|o| o.is_write())
            .map(|o| self.get(*o))
            .sum()
    }

    /// Calls made since `earlier` (per operation).
    #[must_use]
    pub fn since(&self, earlier: &CallCounts) -> CallCounts {
        let mut out = [0; OPS.len()];
        for (i, slot) in out.iter_mut().enumerate() {
            *slot = self.0[i].saturating_sub(earlier.0[i]);
        }
        CallCounts(out)
    }
}

/// Which batch writes (or batch-get keys) a [`FaultStore`] holds back as unprocessed, per call.
#[derive(Debug, Clone, PartialEq)]
pub enum Pick {
    /// Every item.
    All,
    /// The first `n` items of each call.
    First(usize),
    /// The last `n` items of each call.
    Last(usize),
    /// Every k-th item of each call (the k-th, 2k-th, ...; 1-based). `EveryNth(1)` is `All`;
    /// `EveryNth(0)` holds back nothing.
    EveryNth(usize),
    /// Each item independently with probability `ratio`, from a generator seeded once with
    /// `seed` when the rule is set (so a run is reproducible).
    Fraction {
        /// Probability in `[0, 1]`.
        ratio: f64,
        /// Seed for `fastrand`.
        seed: u64,
    },
}

/// An [`Error::Throttled`] as the service sends it (for [`FaultStore::fail_next`]).
pub fn throttled() -> Error {
    Error::Throttled {
        message: "injected by FaultStore: rate exceeded".into(),
        source: None,
    }
}

/// An [`Error::OutcomeUnknown`]: a timeout, the write may or may not have happened.
pub fn outcome_unknown() -> Error {
    Error::OutcomeUnknown {
        message: "injected by FaultStore: request timed out".into(),
        source: None,
        write: None,
    }
}

/// An [`Error::Service`]: an internal server error.
pub fn service_error() -> Error {
    Error::Service {
        code: Some("InternalServerError".into()),
        message: "injected by FaultStore".into(),
        source: None,
    }
}

/// An error factory: [`Error`] is not `Clone`, so an injected error is made anew per call.
type MakeError = Arc<dyn Fn() -> Error + Send + Sync>;

struct FailRule {
    /// Calls still to fail; `None` = every call until cleared.
    remaining: Option<u64>,
    /// Fail after the inner call (the write happened) instead of before.
    after: bool,
    make: MakeError,
}

struct UnprocessedRule {
    pick: Pick,
    /// Calls still affected; `None` = every call until cleared.
    remaining: Option<u64>,
    rng: fastrand::Rng,
}

impl UnprocessedRule {
    /// Uses up one call of the rule.
    fn take_call(&mut self) {
        if let Some(n) = &mut self.remaining {
            *n = n.saturating_sub(1);
        }
    }

    /// Splits `items` into (sent, held back).
    fn split<T>(&mut self, items: Vec<T>) -> (Vec<T>, Vec<T>) {
        let len = items.len();
        let mut sent = Vec::with_capacity(len);
        let mut held = Vec::new();
        for (i, item) in items.into_iter().enumerate() {
            let hold = match &self.pick {
                Pick::All => true,
                Pick::First(n) => i < *n,
                Pick::Last(n) => i + *n >= len,
                Pick::EveryNth(k) => *k > 0 && (i + 1) % *k == 0,
                Pick::Fraction { ratio, .. } => self.rng.f64() < *ratio,
            };
            if hold {
                held.push(item);
            } else {
                sent.push(item);
            }
        }
        (sent, held)
    }
}

/// Applies `rule` (if set and not used up) to one call's items: (sent, held back).
fn split_or_pass<T>(rule: &mut Option<UnprocessedRule>, items: Vec<T>) -> (Vec<T>, Vec<T>) {
    match rule {
        Some(rule) if rule.remaining != Some(0) => {
            rule.take_call();
            rule.split(items)
        }
        _ => (items, Vec::new()),
    }
}

struct Pause {
    reached: watch::Sender<bool>,
    release: watch::Receiver<bool>,
}

impl Pause {
    async fn wait(mut self) {
        let _ = self.reached.send(true);
        // A dropped handle releases the call (`Err` = sender gone), so a failing test cannot hang.
        let _ = self.release.wait_for(|released| *released).await;
    }
}

/// Test-side end of a paused call; see [`FaultStore::pause_next`].
///
/// Dropping the handle releases the call.
#[derive(Debug)]
pub struct PauseHandle {
    reached: watch::Receiver<bool>,
    release: watch::Sender<bool>,
}

impl PauseHandle {
    /// Resolves once a call has arrived at the barrier (it is in flight and waiting).
    pub async fn reached(&self) {
        let mut rx = self.reached.clone();
        // The sender lives in the store until a call takes it; if the store is dropped first
        // nothing will ever arrive, and we return rather than hang.
        let _ = rx.wait_for(|r| *r).await;
    }

    /// True when a call has arrived at the barrier.
    pub fn is_reached(&self) -> bool {
        *self.reached.borrow()
    }

    /// Lets the paused call go on (also before it arrives: it will then not wait).
    pub fn release(&self) {
        let _ = self.release.send(true);
    }
}

/// Stale image held for one key: what eventually consistent reads of it answer.
struct Stale {
    table: String,
    key: Item,
    image: Option<SharedItem>,
}

#[derive(Default)]
struct State {
    fail: Vec<VecDeque<FailRule>>,
    latency: Vec<Option<Duration>>,
    pause_before: Vec<VecDeque<Pause>>,
    pause_after: Vec<VecDeque<Pause>>,
    unprocessed_writes: Option<UnprocessedRule>,
    unprocessed_keys: Option<UnprocessedRule>,
    stale: Vec<Stale>,
}

impl State {
    fn new() -> Self {
        State {
            fail: (0..OPS.len()).map(|_| VecDeque::new()).collect(),
            latency: vec![None; OPS.len()],
            pause_before: (0..OPS.len()).map(|_| VecDeque::new()).collect(),
            pause_after: (0..OPS.len()).map(|_| VecDeque::new()).collect(),
            ..State::default()
        }
    }

    /// Takes one injected error for `op` at the given stage, if a rule is queued for it.
    fn take_error(&mut self, op: Op, after: bool) -> Option<Error> {
        let queue = &mut self.fail[index(op)];
        let rule = queue.front_mut()?;
        if rule.after != after {
            return None;
        }
        let err = (rule.make)();
        if let Some(n) = &mut rule.remaining {
            *n -= 1;
            if *n == 0 {
                queue.pop_front();
            }
        }
        Some(err)
    }

    fn stale_for(&self, table: &str, key: &Item) -> Option<Option<SharedItem>> {
        self.stale
            .iter()
            .find(|s| s.table == table && &s.key == key)
            .map(|s| s.image.clone())
    }
}

/// A [`Store`] wrapper for fault injection; see the [module docs](self) for the order in which
/// its knobs apply. All knobs take `&self`, so a test can change them while calls are in flight.
pub struct FaultStore<S> {
    inner: S,
    counts: [AtomicU64; OPS.len()],
    state: Mutex<State>,
}

impl<S: fmt::Debug> fmt::Debug for FaultStore<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FaultStore")
            .field("inner", &self.inner)
            .field("counts", &self.counts())
            .finish()
    }
}

impl<S: Store> FaultStore<S> {
    /// Wraps `inner` with every knob off: calls pass through, counted.
    pub fn new(inner: S) -> Self {
        FaultStore {
            inner,
            counts: Default::default(),
            state: Mutex::new(State::new()),
        }
    }

    /// The wrapped store (calls made on it directly are neither counted nor faulted).
    pub fn inner(&self) -> &S {
        &self.inner
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panicking test thread must not turn every later call into a second panic.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl<S> FaultStore<S> {
    // ---- counting ----

    /// Calls of `op` so far (every call, including failed and paused ones).
    pub fn calls(&self, op: Op) -> u64 {
        self.counts[index(op)].load(Ordering::SeqCst)
    }

    /// A snapshot of every counter.
    pub fn counts(&self) -> CallCounts {
        let mut out = [0; OPS.len()];
        for (slot, c) in out.iter_mut().zip(&self.counts) {
            *slot = c.load(Ordering::SeqCst);
        }
        CallCounts(out)
    }

    /// Sets every counter back to zero.
    pub fn reset_counts(&self) {
        for c in &self.counts {
            c.store(0, Ordering::SeqCst);
        }
    }
}

impl<S: Store> FaultStore<S> {
    // ---- errors ----

    /// The next `n` calls of `op` fail with `make()` before reaching the inner store (nothing is
    /// applied). Rules queue up: a second call to `fail_next` applies after the first is used up.
    pub fn fail_next(&self, op: Op, n: u64, make: impl Fn() -> Error + Send + Sync + 'static) {
        if n > 0 {
            self.state().fail[index(op)].push_back(FailRule {
                remaining: Some(n),
                after: false,
                make: Arc::new(make),
            });
        }
    }

    /// The next `n` calls of `op` reach the inner store (a write is applied) and then fail with
    /// `make()`: a lost response. Use with [`outcome_unknown`] for timeouts.
    pub fn fail_next_after(
        &self,
        op: Op,
        n: u64,
        make: impl Fn() -> Error + Send + Sync + 'static,
    ) {
        if n > 0 {
            self.state().fail[index(op)].push_back(FailRule {
                remaining: Some(n),
                after: true,
                make: Arc::new(make),
            });
        }
    }

    /// Every call of `op` fails with `make()` before reaching the inner store, until
    /// [`FaultStore::clear_failures`].
    pub fn fail_always(&self, op: Op, make: impl Fn() -> Error + Send + Sync + 'static) {
        self.state().fail[index(op)].push_back(FailRule {
            remaining: None,
            after: false,
            make: Arc::new(make),
        });
    }

    /// The next `n` calls of `op` are throttled ([`Error::Throttled`]), without reaching the
    /// inner store.
    pub fn throttle_next(&self, op: Op, n: u64) {
        self.fail_next(op, n, throttled);
    }

    /// Drops every queued error rule.
    pub fn clear_failures(&self) {
        for q in &mut self.state().fail {
            q.clear();
        }
    }

    // ---- unprocessed batch items ----

    /// BatchWriteItem calls hold back the writes chosen by `pick` and return them as
    /// unprocessed (they are not applied); the rest are sent to the inner store. `calls` limits
    /// the rule to that many calls (`None`: until cleared). Replaces any previous write rule.
    pub fn unprocessed_writes(&self, pick: Pick, calls: Option<u64>) {
        self.state().unprocessed_writes = Some(Self::rule(pick, calls));
    }

    /// BatchGetItem calls hold back the keys chosen by `pick` and return them as unprocessed
    /// keys (not read); see [`FaultStore::unprocessed_writes`].
    pub fn unprocessed_keys(&self, pick: Pick, calls: Option<u64>) {
        self.state().unprocessed_keys = Some(Self::rule(pick, calls));
    }

    /// Turns both unprocessed rules off.
    pub fn clear_unprocessed(&self) {
        let mut s = self.state();
        s.unprocessed_writes = None;
        s.unprocessed_keys = None;
    }

    fn rule(pick: Pick, calls: Option<u64>) -> UnprocessedRule {
        let seed = match &pick {
            Pick::Fraction { seed, .. } => *seed,
            _ => 0,
        };
        UnprocessedRule {
            pick,
            remaining: calls,
            rng: fastrand::Rng::with_seed(seed),
        }
    }

    // ---- latency ----

    /// Every call of `op` sleeps `delay` (tokio time) before it reaches the inner store;
    /// `None` removes it.
    pub fn set_latency(&self, op: Op, delay: Option<Duration>) {
        self.state().latency[index(op)] = delay;
    }

    /// [`FaultStore::set_latency`] for every operation.
    pub fn set_latency_all(&self, delay: Option<Duration>) {
        for l in &mut self.state().latency {
            *l = delay;
        }
    }

    // ---- stale reads ----

    /// Eventually consistent reads of `key` in `table` (GetItem and BatchGetItem) answer `image`
    /// (`None`: not found) without asking the inner store, until [`FaultStore::clear_stale`].
    /// Strongly consistent reads are not affected, as in DynamoDB.
    pub fn serve_stale(&self, table: &str, key: Item, image: Option<Item>) {
        let mut s = self.state();
        s.stale.retain(|e| !(e.table == table && e.key == key));
        s.stale.push(Stale {
            table: table.to_owned(),
            key,
            image: image.map(Arc::new),
        });
    }

    /// Reads `key` from the inner store now (strongly consistent, not counted) and serves that
    /// image to later eventually consistent reads, as [`FaultStore::serve_stale`]: writes made
    /// afterwards stay invisible to them.
    pub async fn hold_stale(&self, table: &str, key: Item) -> Result<()> {
        let now = self
            .inner
            .get_item(GetRequest::borrowed(table, &key).consistent())
            .await?;
        let mut s = self.state();
        s.stale.retain(|e| !(e.table == table && e.key == key));
        s.stale.push(Stale {
            table: table.to_owned(),
            key,
            image: now.item,
        });
        Ok(())
    }

    /// Stops serving stale images (all keys).
    pub fn clear_stale(&self) {
        self.state().stale.clear();
    }

    // ---- pauses ----

    /// The next call of `op` stops before reaching the inner store until the handle is released
    /// (or dropped). Several pauses queue up, one per call.
    pub fn pause_next(&self, op: Op) -> PauseHandle {
        let (handle, pause) = Self::barrier();
        self.state().pause_before[index(op)].push_back(pause);
        handle
    }

    /// The next call of `op` runs against the inner store, then holds its result until the
    /// handle is released: a read that has fetched an image but not yet returned it.
    pub fn pause_next_after(&self, op: Op) -> PauseHandle {
        let (handle, pause) = Self::barrier();
        self.state().pause_after[index(op)].push_back(pause);
        handle
    }

    fn barrier() -> (PauseHandle, Pause) {
        let (reached_tx, reached_rx) = watch::channel(false);
        let (release_tx, release_rx) = watch::channel(false);
        (
            PauseHandle {
                reached: reached_rx,
                release: release_tx,
            },
            Pause {
                reached: reached_tx,
                release: release_rx,
            },
        )
    }

    // ---- the pipeline ----

    /// Steps 1 to 4: count, pause, sleep, injected error.
    async fn enter(&self, op: Op) -> Result<()> {
        self.counts[index(op)].fetch_add(1, Ordering::SeqCst);
        let pause = self.state().pause_before[index(op)].pop_front();
        if let Some(p) = pause {
            p.wait().await;
        }
        let latency = self.state().latency[index(op)];
        if let Some(d) = latency {
            tokio::time::sleep(d).await;
        }
        match self.state().take_error(op, false) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Steps 8 and 9: error after the inner call, pause with the result held.
    async fn leave<T>(&self, op: Op, result: Result<T>) -> Result<T> {
        let injected = self.state().take_error(op, true);
        let result = match injected {
            Some(e) => Err(e),
            None => result,
        };
        let pause = self.state().pause_after[index(op)].pop_front();
        if let Some(p) = pause {
            p.wait().await;
        }
        result
    }
}

impl<S: Store> Store for FaultStore<S> {
    fn get_item<'a>(&'a self, request: GetRequest<'a>) -> Reply<'a, Result<GetOutput>> {
        Reply::new(async move {
            self.enter(Op::GetItem).await?;
            let stale = if request.consistent_read {
                None
            } else {
                self.state().stale_for(&request.table, &request.key)
            };
            let result = match stale {
                Some(item) => Ok(GetOutput {
                    item,
                    consumed_capacity: None,
                }),
                None => self.inner.get_item(request).await,
            };
            self.leave(Op::GetItem, result).await
        })
    }

    fn put_item(&self, request: PutRequest) -> Reply<'_, Result<WriteOutput>> {
        Reply::new(async move {
            self.enter(Op::PutItem).await?;
            let result = self.inner.put_item(request).await;
            self.leave(Op::PutItem, result).await
        })
    }

    fn update_item(&self, request: UpdateRequest) -> Reply<'_, Result<WriteOutput>> {
        Reply::new(async move {
            self.enter(Op::UpdateItem).await?;
            let result = self.inner.update_item(request).await;
            self.leave(Op::UpdateItem, result).await
        })
    }

    fn delete_item(&self, request: DeleteRequest) -> Reply<'_, Result<WriteOutput>> {
        Reply::new(async move {
            self.enter(Op::DeleteItem).await?;
            let result = self.inner.delete_item(request).await;
            self.leave(Op::DeleteItem, result).await
        })
    }

    fn query(&self, request: QueryRequest) -> Reply<'_, Result<Page>> {
        Reply::new(async move {
            self.enter(Op::Query).await?;
            let result = self.inner.query(request).await;
            self.leave(Op::Query, result).await
        })
    }

    fn scan(&self, request: ScanRequest) -> Reply<'_, Result<Page>> {
        Reply::new(async move {
            self.enter(Op::Scan).await?;
            let result = self.inner.scan(request).await;
            self.leave(Op::Scan, result).await
        })
    }

    fn batch_get(&self, request: BatchGetRequest) -> Reply<'_, Result<BatchGetOutput>> {
        Reply::new(async move {
            self.enter(Op::BatchGet).await?;
            let BatchGetRequest {
                keys,
                consistent_read,
                ..
            } = request;
            let (keys, mut unprocessed) = {
                let mut s = self.state();
                split_or_pass(&mut s.unprocessed_keys, keys)
            };
            // Stale images answer their keys here; the rest go to the inner store.
            let mut items: Vec<(String, SharedItem)> = Vec::new();
            let mut to_send: Vec<TableKey> = Vec::with_capacity(keys.len());
            {
                let s = self.state();
                for k in keys {
                    match (consistent_read, s.stale_for(&k.table, &k.key)) {
                        (false, Some(image)) => items.extend(image.map(|i| (k.table.clone(), i))),
                        _ => to_send.push(k),
                    }
                }
            }
            let result = if to_send.is_empty() {
                Ok(BatchGetOutput {
                    items,
                    unprocessed_keys: unprocessed,
                    consumed_capacity: None,
                })
            } else {
                match self
                    .inner
                    .batch_get(BatchGetRequest::new(to_send).with_consistent_read(consistent_read))
                    .await
                {
                    Ok(mut out) => {
                        out.items.extend(items);
                        unprocessed.append(&mut out.unprocessed_keys);
                        out.unprocessed_keys = unprocessed;
                        Ok(out)
                    }
                    Err(e) => Err(e),
                }
            };
            self.leave(Op::BatchGet, result).await
        })
    }

    fn batch_write(&self, request: BatchWriteRequest) -> Reply<'_, Result<BatchWriteOutput>> {
        Reply::new(async move {
            self.enter(Op::BatchWrite).await?;
            let writes = request.writes;
            let (send, mut held): (Vec<WriteRequest>, Vec<WriteRequest>) = {
                let mut s = self.state();
                split_or_pass(&mut s.unprocessed_writes, writes)
            };
            let result = if send.is_empty() {
                Ok(BatchWriteOutput {
                    unprocessed: held,
                    consumed_capacity: None,
                })
            } else {
                match self.inner.batch_write(BatchWriteRequest::new(send)).await {
                    Ok(mut out) => {
                        held.append(&mut out.unprocessed);
                        out.unprocessed = held;
                        Ok(out)
                    }
                    Err(e) => Err(e),
                }
            };
            self.leave(Op::BatchWrite, result).await
        })
    }

    fn transact_get(&self, request: TransactGetRequest) -> Reply<'_, Result<TransactGetOutput>> {
        Reply::new(async move {
            self.enter(Op::TransactGet).await?;
            let result = self.inner.transact_get(request).await;
            self.leave(Op::TransactGet, result).await
        })
    }

    fn transact_write(
        &self,
        request: TransactWriteRequest,
    ) -> Reply<'_, Result<TransactWriteOutput>> {
        Reply::new(async move {
            self.enter(Op::TransactWrite).await?;
            let result = self.inner.transact_write(request).await;
            self.leave(Op::TransactWrite, result).await
        })
    }

    fn create_table<'a>(&'a self, definition: &'a TableDef) -> Reply<'a, Result<()>> {
        Reply::new(async move {
            self.enter(Op::CreateTable).await?;
            let result = self.inner.create_table(definition).await;
            self.leave(Op::CreateTable, result).await
        })
    }

    fn delete_table<'a>(&'a self, name: &'a str) -> Reply<'a, Result<()>> {
        Reply::new(async move {
            self.enter(Op::DeleteTable).await?;
            let result = self.inner.delete_table(name).await;
            self.leave(Op::DeleteTable, result).await
        })
    }

    fn describe_table<'a>(&'a self, name: &'a str) -> Reply<'a, Result<TableDescription>> {
        Reply::new(async move {
            self.enter(Op::DescribeTable).await?;
            let result = self.inner.describe_table(name).await;
            self.leave(Op::DescribeTable, result).await
        })
    }

    fn update_ttl<'a>(
        &'a self,
        table: &'a str,
        attribute: &'a str,
        enabled: bool,
    ) -> Reply<'a, Result<()>> {
        Reply::new(async move {
            self.enter(Op::UpdateTtl).await?;
            let result = self.inner.update_ttl(table, attribute, enabled).await;
            self.leave(Op::UpdateTtl, result).await
        })
    }
    /// Forwarded without faults (no test injects them into UpdateTable).
    fn update_table(&self, r: UpdateTableRequest) -> Reply<'_, Result<TableDescription>> {
        Reply::new(async move { self.inner.update_table(r).await })
    }
    fn cursor_key(&self) -> &dyno_core::ops::CursorKey {
        self.inner.cursor_key()
    }
}

#[cfg(test)]
mod tests {
    //! The knobs, checked against a recording inner store (no engine needed).

    use std::sync::Mutex;

    use dyno_core::value::AttributeValue;

    use super::*;

    /// Answers every key of a batch get with the key itself as the item, records batch writes and
    /// puts, and returns a fixed item for gets.
    #[derive(Debug, Default)]
    struct Echo {
        written: Mutex<Vec<WriteRequest>>,
        puts: Mutex<u32>,
    }

    fn key(i: u32) -> Item {
        Item::from([("PK".to_owned(), AttributeValue::S(format!("K{i}")))])
    }

    fn put(i: u32) -> WriteRequest {
        WriteRequest::put("T", key(i))
    }

    impl Store for Echo {
        fn get_item<'a>(&'a self, r: GetRequest<'a>) -> Reply<'a, Result<GetOutput>> {
            Reply::new(async move {
                let mut item = r.key.into_owned();
                item.insert("fresh".into(), AttributeValue::Bool(true));
                Ok(GetOutput {
                    item: Some(Arc::new(item)),
                    consumed_capacity: None,
                })
            })
        }
        fn put_item(&self, _: PutRequest) -> Reply<'_, Result<WriteOutput>> {
            Reply::new(async move {
                *self.puts.lock().unwrap() += 1;
                Ok(WriteOutput::default())
            })
        }
        fn update_item(&self, _: UpdateRequest) -> Reply<'_, Result<WriteOutput>> {
            Reply::new(async move { Ok(WriteOutput::default()) })
        }
        fn delete_item(&self, _: DeleteRequest) -> Reply<'_, Result<WriteOutput>> {
            Reply::new(async move { Ok(WriteOutput::default()) })
        }
        fn query(&self, _: QueryRequest) -> Reply<'_, Result<Page>> {
            Reply::new(async move { Ok(Page::default()) })
        }
        fn scan(&self, _: ScanRequest) -> Reply<'_, Result<Page>> {
            Reply::new(async move { Ok(Page::default()) })
        }
        fn batch_get(&self, r: BatchGetRequest) -> Reply<'_, Result<BatchGetOutput>> {
            Reply::new(async move {
                Ok(BatchGetOutput {
                    items: r
                        .keys
                        .into_iter()
                        .map(|k| (k.table, Arc::new(k.key)))
                        .collect(),
                    unprocessed_keys: Vec::new(),
                    consumed_capacity: None,
                })
            })
        }
        fn batch_write(&self, r: BatchWriteRequest) -> Reply<'_, Result<BatchWriteOutput>> {
            Reply::new(async move {
                self.written.lock().unwrap().extend(r.writes);
                Ok(BatchWriteOutput::default())
            })
        }
        fn transact_get(&self, _: TransactGetRequest) -> Reply<'_, Result<TransactGetOutput>> {
            Reply::new(async move { Ok(TransactGetOutput::default()) })
        }
        fn transact_write(
            &self,
            _: TransactWriteRequest,
        ) -> Reply<'_, Result<TransactWriteOutput>> {
            Reply::new(async move { Ok(TransactWriteOutput::default()) })
        }
        fn create_table<'a>(&'a self, _: &'a TableDef) -> Reply<'a, Result<()>> {
            Reply::new(async move { Ok(()) })
        }
        fn delete_table<'a>(&'a self, _: &'a str) -> Reply<'a, Result<()>> {
            Reply::new(async move { Ok(()) })
        }
        fn describe_table<'a>(&'a self, name: &'a str) -> Reply<'a, Result<TableDescription>> {
            Reply::new(async move {
                Ok(TableDescription {
                    definition: TableDef::new(name, "PK", None),
                    item_count: None,
                    index_status: Vec::new(),
                })
            })
        }
        fn update_ttl<'a>(&'a self, _: &'a str, _: &'a str, _: bool) -> Reply<'a, Result<()>> {
            Reply::new(async move { Ok(()) })
        }
        fn update_table(&self, r: UpdateTableRequest) -> Reply<'_, Result<TableDescription>> {
            Reply::new(async move { self.describe_table(&r.table).await })
        }
    }

    fn get(i: u32, consistent: bool) -> GetRequest<'static> {
        GetRequest::new("T", key(i)).with_consistent_read(consistent)
    }

    fn put_req() -> PutRequest {
        PutRequest::new("T", key(1)).with_return_values(Default::default())
    }

    #[tokio::test]
    async fn counts_every_call_including_failed_ones() {
        let s = FaultStore::new(Echo::default());
        s.throttle_next(Op::GetItem, 1);
        assert!(s.get_item(get(1, false)).await.unwrap_err().is_throttled());
        s.get_item(get(1, false)).await.unwrap();
        s.put_item(put_req()).await.unwrap();
        assert_eq!(s.calls(Op::GetItem), 2);
        assert_eq!(s.calls(Op::PutItem), 1);
        let c = s.counts();
        assert_eq!((c.reads(), c.writes(), c.total()), (2, 1, 3));
        s.reset_counts();
        assert_eq!(s.counts().total(), 0);
    }

    #[tokio::test]
    async fn fail_next_applies_n_times_then_passes_and_rules_queue() {
        let s = FaultStore::new(Echo::default());
        s.throttle_next(Op::PutItem, 2);
        s.fail_next(Op::PutItem, 1, service_error);
        assert!(s.put_item(put_req()).await.unwrap_err().is_throttled());
        assert!(s.put_item(put_req()).await.unwrap_err().is_throttled());
        assert!(matches!(
            s.put_item(put_req()).await.unwrap_err(),
            Error::Service { .. }
        ));
        s.put_item(put_req()).await.unwrap();
        assert_eq!(
            *s.inner().puts.lock().unwrap(),
            1,
            "failed-before calls never reach the inner store"
        );
    }

    #[tokio::test]
    async fn fail_after_applies_the_write_then_reports_unknown_outcome() {
        let s = FaultStore::new(Echo::default());
        s.fail_next_after(Op::PutItem, 1, outcome_unknown);
        assert!(s
            .put_item(put_req())
            .await
            .unwrap_err()
            .is_outcome_unknown());
        assert_eq!(*s.inner().puts.lock().unwrap(), 1);
        s.fail_always(Op::PutItem, throttled);
        for _ in 0..3 {
            assert!(s.put_item(put_req()).await.is_err());
        }
        s.clear_failures();
        s.put_item(put_req()).await.unwrap();
    }

    #[tokio::test]
    async fn unprocessed_writes_every_nth_for_a_number_of_calls() {
        let s = FaultStore::new(Echo::default());
        s.unprocessed_writes(Pick::EveryNth(3), Some(1));
        let out = s
            .batch_write(BatchWriteRequest::new((1..=7).map(put).collect()))
            .await
            .unwrap();
        assert_eq!(out.unprocessed, vec![put(3), put(6)]);
        assert_eq!(
            *s.inner().written.lock().unwrap(),
            vec![put(1), put(2), put(4), put(5), put(7)]
        );
        // The rule was for one call only.
        let out = s
            .batch_write(BatchWriteRequest::new(vec![put(8), put(9), put(10)]))
            .await
            .unwrap();
        assert!(out.unprocessed.is_empty());
    }

    #[tokio::test]
    async fn unprocessed_all_makes_no_inner_call_and_first_last_pick_ends() {
        let s = FaultStore::new(Echo::default());
        s.unprocessed_writes(Pick::All, None);
        let out = s
            .batch_write(BatchWriteRequest::new(vec![put(1), put(2)]))
            .await
            .unwrap();
        assert_eq!(out.unprocessed.len(), 2);
        assert!(s.inner().written.lock().unwrap().is_empty());
        s.unprocessed_writes(Pick::First(1), None);
        let out = s
            .batch_write(BatchWriteRequest::new(vec![put(1), put(2), put(3)]))
            .await
            .unwrap();
        assert_eq!(out.unprocessed, vec![put(1)]);
        s.unprocessed_writes(Pick::Last(2), None);
        let out = s
            .batch_write(BatchWriteRequest::new(vec![put(1), put(2), put(3)]))
            .await
            .unwrap();
        assert_eq!(out.unprocessed, vec![put(2), put(3)]);
    }

    #[tokio::test]
    async fn unprocessed_fraction_is_reproducible_from_its_seed() {
        let run = || async {
            let s = FaultStore::new(Echo::default());
            s.unprocessed_keys(
                Pick::Fraction {
                    ratio: 0.5,
                    seed: 42,
                },
                None,
            );
            let keys = (0..100)
                .map(|i| TableKey {
                    table: "T".into(),
                    key: key(i),
                })
                .collect();
            let out = s.batch_get(BatchGetRequest::new(keys)).await.unwrap();
            assert_eq!(out.items.len() + out.unprocessed_keys.len(), 100);
            out.unprocessed_keys
        };
        let a = run().await;
        let b = run().await;
        assert_eq!(a, b);
        assert!(
            a.len() > 20 && a.len() < 80,
            "about half held back, got {}",
            a.len()
        );
    }

    #[tokio::test]
    async fn stale_images_answer_eventual_reads_only_until_cleared() {
        let s = FaultStore::new(Echo::default());
        s.serve_stale("T", key(1), None);
        assert!(s.get_item(get(1, false)).await.unwrap().item.is_none());
        assert!(
            s.get_item(get(1, true)).await.unwrap().item.is_some(),
            "consistent reads see the truth"
        );
        assert!(
            s.get_item(get(2, false)).await.unwrap().item.is_some(),
            "other keys are untouched"
        );
        s.hold_stale("T", key(2)).await.unwrap();
        let held = s.get_item(get(2, false)).await.unwrap().item.unwrap();
        assert_eq!(held.get("fresh"), Some(&AttributeValue::Bool(true)));
        let keys = vec![
            TableKey {
                table: "T".into(),
                key: key(1),
            },
            TableKey {
                table: "T".into(),
                key: key(3),
            },
        ];
        let out = s.batch_get(BatchGetRequest::new(keys)).await.unwrap();
        assert_eq!(
            out.items.len(),
            1,
            "key 1 answered as missing from the stale image"
        );
        s.clear_stale();
        assert!(s.get_item(get(1, false)).await.unwrap().item.is_some());
    }

    #[tokio::test]
    async fn pause_next_holds_the_call_until_released() {
        let s = Arc::new(FaultStore::new(Echo::default()));
        let h = s.pause_next(Op::PutItem);
        let task = tokio::spawn({
            let s = s.clone();
            async move { s.put_item(put_req()).await }
        });
        h.reached().await;
        assert!(h.is_reached());
        assert_eq!(
            *s.inner().puts.lock().unwrap(),
            0,
            "paused before the inner store"
        );
        assert!(!task.is_finished());
        h.release();
        task.await.unwrap().unwrap();
        assert_eq!(*s.inner().puts.lock().unwrap(), 1);
    }

    #[tokio::test]
    async fn pause_after_holds_a_result_already_fetched() {
        let s = Arc::new(FaultStore::new(Echo::default()));
        let h = s.pause_next_after(Op::PutItem);
        let task = tokio::spawn({
            let s = s.clone();
            async move { s.put_item(put_req()).await }
        });
        h.reached().await;
        assert_eq!(*s.inner().puts.lock().unwrap(), 1, "the inner call is done");
        assert!(!task.is_finished());
        drop(h); // dropping the handle releases
        task.await.unwrap().unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn latency_sleeps_on_tokio_time() {
        let s = FaultStore::new(Echo::default());
        s.set_latency(Op::GetItem, Some(Duration::from_secs(5)));
        let start = tokio::time::Instant::now();
        s.get_item(get(1, false)).await.unwrap();
        assert!(start.elapsed() >= Duration::from_secs(5));
        s.set_latency_all(None);
        let start = tokio::time::Instant::now();
        s.get_item(get(1, false)).await.unwrap();
        assert_eq!(start.elapsed(), Duration::ZERO);
    }
}
