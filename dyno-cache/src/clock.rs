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
    /// A time past what it holds (about 584 years after the epoch) stops at its end.
    pub fn at(since_epoch: Duration) -> Self {
        ManualClock {
            nanos: Arc::new(AtomicU64::new(nanos(since_epoch))),
        }
    }

    /// Moves the clock forward, stopping at its end rather than wrapping around.
    pub fn advance(&self, by: Duration) {
        let by = nanos(by);
        // Never fails: the closure always returns a value.
        let _ = self
            .nanos
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |t| {
                Some(t.saturating_add(by))
            });
    }

    /// Sets the clock (saturated as [`ManualClock::at`]).
    pub fn set(&self, since_epoch: Duration) {
        self.nanos.store(nanos(since_epoch), Ordering::SeqCst);
    }
}

/// `d` in nanoseconds, saturated to what a `u64` holds.
fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
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
