//! The clock entries expire by, injectable so that TTL tests advance time instead of sleeping.

use std::fmt::Debug;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Wall-clock time as a duration since the Unix epoch.
///
/// Wall time (not `Instant`) because items carry their DynamoDB TTL as epoch seconds, and a
/// cached item must not outlive its TTL attribute.
pub trait Clock: Send + Sync + Debug + 'static {
    /// The current time since the Unix epoch.
    fn now(&self) -> Duration;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Duration {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
    }
}

/// A clock that moves only when told to; clones share one time.
///
/// ```
/// use std::time::Duration;
/// use dyno_cache::{Clock, ManualClock};
///
/// let clock = ManualClock::new();
/// let t0 = clock.now();
/// clock.advance(Duration::from_secs(60));
/// assert_eq!(clock.now() - t0, Duration::from_secs(60));
/// ```
#[derive(Debug, Clone)]
pub struct ManualClock {
    nanos: Arc<AtomicU64>,
}

impl ManualClock {
    /// A clock stopped at the current system time.
    pub fn new() -> Self {
        Self::at(SystemClock.now())
    }

    /// A clock stopped at `since_epoch`.
    pub fn at(since_epoch: Duration) -> Self {
        ManualClock {
            nanos: Arc::new(AtomicU64::new(since_epoch.as_nanos() as u64)),
        }
    }

    /// Moves the clock forward.
    pub fn advance(&self, by: Duration) {
        self.nanos.fetch_add(by.as_nanos() as u64, Ordering::SeqCst);
    }

    /// Sets the clock.
    pub fn set(&self, since_epoch: Duration) {
        self.nanos
            .store(since_epoch.as_nanos() as u64, Ordering::SeqCst);
    }
}

impl Default for ManualClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Duration {
        Duration::from_nanos(self.nanos.load(Ordering::SeqCst))
    }
}
