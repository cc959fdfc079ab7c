//! Single flight: concurrent misses on one key share one backend load (an item of the item
//! cache, or a page of the query cache).
//!
//! The first caller to miss becomes the leader and registers a flight; later callers that miss
//! the same key while it is in the air wait for its result instead of calling the backend. A
//! flight remembers the key's version when it began (the item's version stripe, or the sum of
//! the generations a page depends on, which only grow): a caller that arrives after a write to
//! the key (the version moved) does not join it, since its answer may predate that write.
//! If the leader is cancelled, its waiters wake and one of them leads a new flight.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use dyno_core::error::Error;
use tokio::sync::watch;

/// What a load produced (the item or its absence; a page), or the error every waiter gets (a
/// clone: `Error` shares its sources).
pub(crate) type Loaded<T> = Result<T, Error>;

struct Flight<T> {
    id: u64,
    version: u64,
    result: watch::Receiver<Option<Loaded<T>>>,
}

const SHARDS: usize = 64;

/// The flights of the keys hashing to one shard.
type Shard<T> = Mutex<HashMap<Box<[u8]>, Flight<T>>>;

/// The loads in the air, by cache key; `T` is what one load yields to every caller.
pub(crate) struct Flights<T> {
    shards: Box<[Shard<T>]>,
    next_id: AtomicU64,
}

/// What a caller that missed should do.
pub(crate) enum Role<'a, T> {
    /// Load, then [`Leader::finish`].
    Leader(Leader<'a, T>),
    /// Wait for the leader's result.
    Waiter(watch::Receiver<Option<Loaded<T>>>),
}

/// The leader's duty: publish a result. Dropping it unpublished (a cancelled leader) removes the
/// flight, which wakes the waiters to try again.
pub(crate) struct Leader<'a, T> {
    flights: &'a Flights<T>,
    shard: usize,
    key: Box<[u8]>,
    id: u64,
    tx: watch::Sender<Option<Loaded<T>>>,
}

impl<T> Flights<T> {
    pub(crate) fn new() -> Self {
        Flights {
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
            next_id: AtomicU64::new(0),
        }
    }

    /// Joins the flight for `key` if one is in the air and began at `version`; otherwise
    /// starts one (replacing a flight that began before a write).
    pub(crate) fn join(&self, key: &[u8], hash: u64, version: u64) -> Role<'_, T> {
        let shard = (hash >> 32) as usize % SHARDS;
        let mut map = self.shards[shard].lock().unwrap_or_else(|e| e.into_inner());
        if let Some(f) = map.get(key)
            && f.version == version
        {
            return Role::Waiter(f.result.clone());
        }
        let (tx, rx) = watch::channel(None);
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let key: Box<[u8]> = key.into();
        map.insert(
            key.clone(),
            Flight {
                id,
                version,
                result: rx,
            },
        );
        Role::Leader(Leader {
            flights: self,
            shard,
            key,
            id,
            tx,
        })
    }
}

impl<T> Leader<'_, T> {
    /// Publishes the result to every waiter and retires the flight.
    pub(crate) fn finish(self, result: Loaded<T>) {
        let _ = self.tx.send(Some(result));
        // `Drop` removes the flight.
    }
}

impl<T> Drop for Leader<'_, T> {
    fn drop(&mut self) {
        let mut map = self.flights.shards[self.shard]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if map.get(&self.key).is_some_and(|f| f.id == self.id) {
            map.remove(&self.key);
        }
    }
}

/// Waits for a leader's result; `None` when the leader was cancelled.
pub(crate) async fn wait<T: Clone>(
    mut rx: watch::Receiver<Option<Loaded<T>>>,
) -> Option<Loaded<T>> {
    match rx.wait_for(Option::is_some).await {
        Ok(v) => v.clone(),
        Err(_) => None,
    }
}
