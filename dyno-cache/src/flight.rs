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
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use dyno_core::error::Error;
use tokio::sync::watch;

/// What a load produced (the item or its absence; a page), or the error every waiter gets.
pub(crate) type Loaded<T> = Result<T, Arc<Error>>;

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
        if let Some(f) = map.get(key) {
            if f.version == version {
                return Role::Waiter(f.result.clone());
            }
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

/// One caller's copy of a shared error: same variant and fields, the original kept as the
/// source chain. (`Error` is not `Clone`: its sources are boxed trait objects.)
pub(crate) fn share_error(shared: Arc<Error>) -> Error {
    let shared = match Arc::try_unwrap(shared) {
        Ok(own) => return own,
        Err(shared) => shared,
    };
    let source = || -> Option<dyno_core::error::SourceError> {
        std::error::Error::source(&*shared)
            .map(|_| Arc::new(SharedSource(shared.clone())) as dyno_core::error::SourceError)
    };
    match &*shared {
        Error::ConditionFailed { entity, item } => Error::ConditionFailed {
            entity: *entity,
            item: item.clone(),
        },
        Error::TransactionCanceled { reasons } => Error::TransactionCanceled {
            reasons: reasons.clone(),
        },
        Error::Throttled { message, .. } => Error::Throttled {
            message: message.clone(),
            source: source(),
        },
        Error::Validation { message } => Error::Validation {
            message: message.clone(),
        },
        Error::ResourceNotFound { message } => Error::ResourceNotFound {
            message: message.clone(),
        },
        Error::ResourceInUse { message } => Error::ResourceInUse {
            message: message.clone(),
        },
        Error::ItemTooLarge {
            entity,
            size,
            limit,
        } => Error::ItemTooLarge {
            entity: *entity,
            size: *size,
            limit: *limit,
        },
        Error::Encode {
            entity,
            attribute,
            message,
            ..
        } => Error::Encode {
            entity: *entity,
            attribute: attribute.clone(),
            message: message.clone(),
            source: source(),
        },
        Error::Decode {
            entity,
            attribute,
            expected,
            found,
            ..
        } => Error::Decode {
            entity: *entity,
            attribute: attribute.clone(),
            expected: expected.clone(),
            found: found.clone(),
            source: source(),
        },
        Error::Key { entity, message } => Error::Key {
            entity: *entity,
            message: message.clone(),
        },
        Error::InvalidCursor { message } => Error::InvalidCursor {
            message: message.clone(),
        },
        // The batch engine's error: no single-flight call shares it, so its causes (not Clone)
        // are not copied.
        Error::BatchIncomplete {
            unprocessed_writes,
            unprocessed_keys,
            attempts,
            ..
        } => Error::BatchIncomplete {
            unprocessed_writes: unprocessed_writes.clone(),
            unprocessed_keys: unprocessed_keys.clone(),
            attempts: *attempts,
            causes: Vec::new(),
        },
        Error::OutcomeUnknown { message, .. } => Error::OutcomeUnknown {
            message: message.clone(),
            source: source(),
        },
        Error::Service { code, message, .. } => Error::Service {
            code: code.clone(),
            message: message.clone(),
            source: source(),
        },
        other => Error::Service {
            code: None,
            message: other.to_string(),
            source: Some(Arc::new(SharedSource(shared.clone()))),
        },
    }
}

/// The source of a shared error: displays as the original's source and continues its chain.
struct SharedSource(Arc<Error>);

impl SharedSource {
    fn inner(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&*self.0)
    }
}

impl fmt::Debug for SharedSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.inner() {
            Some(s) => fmt::Debug::fmt(s, f),
            None => fmt::Debug::fmt(&*self.0, f),
        }
    }
}

impl fmt::Display for SharedSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.inner() {
            Some(s) => fmt::Display::fmt(s, f),
            None => fmt::Display::fmt(&*self.0, f),
        }
    }
}

impl std::error::Error for SharedSource {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.inner().and_then(std::error::Error::source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_errors_keep_variant_message_and_source_chain() {
        let original = Error::Throttled {
            message: "slow down".into(),
            source: Some(Arc::new(std::io::Error::other("socket said no"))),
        };
        let shared = Arc::new(original);
        let copy = share_error(shared.clone());
        assert!(copy.is_throttled());
        assert_eq!(copy.to_string(), shared.to_string());
        let src = std::error::Error::source(&copy).expect("source kept");
        assert_eq!(src.to_string(), "socket said no");
        drop(copy);
        // The last holder gets the original back.
        assert!(share_error(shared).is_throttled());
    }
}
