//! The time limits of a call to DynamoDB, shared by the stores and the feeds that make them
//! (re-exported as `store::Timeouts`).

use std::time::Duration;

/// The time limits of every call a [`DynamoStore`](crate::DynamoStore) makes (and a
/// `StreamsFeed`, feature `streams`).
///
/// - `connect`: establishing a TCP (and TLS) connection;
/// - `attempt`: one HTTP request, from sending it to reading the whole response;
/// - `operation`: the whole call, every retry and backoff included. A call that exceeds it fails
///   with [`Error::OutcomeUnknown`](crate::Error::OutcomeUnknown) (a write may or may not have
///   been applied), so an endpoint that accepts connections and never answers fails within it.
///
/// A limit of zero gives a call no time at all, as zero means everywhere in dyno (a zero cache
/// TTL caches nothing, a zero batch deadline sends nothing): every call of the store then fails
/// at once with [`Error::Configuration`](crate::Error::Configuration) naming the limit, and
/// nothing is sent. A very long limit (`Duration::MAX`) is no limit in practice; nothing panics.
///
/// The defaults (3 s, 10 s, 30 s) leave DynamoDB's slowest normal responses (a 1 MB query page,
/// a 100-action transaction) far inside the attempt limit, and give the SDK's three attempts
/// room inside the operation limit.
///
/// ```
/// use std::time::Duration;
/// use dyno_core::store::Timeouts;
///
/// let t = Timeouts::default();
/// assert_eq!((t.connect, t.attempt, t.operation), (Duration::from_secs(3), Duration::from_secs(10), Duration::from_secs(30)));
/// let tight = Timeouts { operation: Duration::from_secs(5), ..Timeouts::default() };
/// # let _ = tight;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// Connection establishment.
    pub connect: Duration,
    /// One HTTP attempt, response included.
    pub attempt: Duration,
    /// The whole call, retries included.
    pub operation: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_secs(3),
            attempt: Duration::from_secs(10),
            operation: Duration::from_secs(30),
        }
    }
}
