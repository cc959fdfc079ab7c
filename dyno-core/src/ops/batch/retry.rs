//! The chunk runner of a batch: retries with backoff, one budget of attempts and one deadline
//! for all chunks.

use crate::error::{Error, Result};
use crate::value::SharedItem;
use std::collections::HashSet;
use std::time::Duration;
use tokio::time::Instant;

/// How failed batch requests are retried: up to `max_attempts` requests per chunk, waiting
/// between them a jittered exponential delay (`base_delay × 2^retry`, capped at `max_delay`, of
/// which a random half is waited: "equal jitter", so concurrent chunks spread out).
///
/// ```
/// use std::time::Duration;
/// use dyno_core::ops::RetryPolicy;
///
/// let policy = RetryPolicy {
///     max_attempts: 5,
///     base_delay: Duration::from_millis(20),
///     max_delay: Duration::from_secs(1),
/// };
/// let third_retry = policy.delay(2); // between 40 and 80 ms
/// assert!(third_retry >= Duration::from_millis(40) && third_retry <= Duration::from_millis(80));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Requests per chunk, the first included (at least 1).
    pub max_attempts: u32,
    /// The delay before the first retry, before jitter.
    pub base_delay: Duration,
    /// The largest delay, before jitter.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    /// 10 attempts, from 50 ms up to 5 s: about 15 s of retrying in the worst case.
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 10,
            base_delay: Duration::from_millis(50),
            max_delay: Duration::from_secs(5),
        }
    }
}

impl RetryPolicy {
    /// A policy with `max_attempts` attempts and the default delays.
    pub fn attempts(max_attempts: u32) -> Self {
        RetryPolicy {
            max_attempts,
            ..RetryPolicy::default()
        }
    }

    /// The longest the policy waits between the first attempt and the last: the sum of its
    /// delays before jitter.
    ///
    /// ```
    /// use std::time::Duration;
    /// use dyno_core::ops::RetryPolicy;
    ///
    /// let p = RetryPolicy {
    ///     max_attempts: 4,
    ///     base_delay: Duration::from_millis(100),
    ///     max_delay: Duration::from_millis(300),
    /// };
    /// assert_eq!(p.total_backoff(), Duration::from_millis(100 + 200 + 300));
    /// ```
    pub fn total_backoff(&self) -> Duration {
        (0..self.max_attempts.max(1) - 1)
            .map(|retry| {
                self.base_delay
                    .saturating_mul(1u32.checked_shl(retry.min(31)).unwrap_or(u32::MAX))
                    .min(self.max_delay)
            })
            .fold(Duration::ZERO, Duration::saturating_add)
    }

    /// The delay before retry number `retry` (0 for the first retry).
    pub fn delay(&self, retry: u32) -> Duration {
        let exp = self
            .base_delay
            .saturating_mul(1u32.checked_shl(retry.min(31)).unwrap_or(u32::MAX));
        let capped = exp.min(self.max_delay);
        let half = capped / 2;
        let nanos = u64::try_from(half.as_nanos()).unwrap_or(u64::MAX);
        half + Duration::from_nanos(fastrand::u64(0..=nanos))
    }
}

/// True for errors that every other request of the batch would meet too: nothing more is sent.
pub(super) fn stops_the_batch(e: &Error) -> bool {
    matches!(
        e,
        Error::Configuration { .. } | Error::ResourceNotFound { .. }
    )
}

/// The longest deadline kept as it is (a century); a longer one is saturated to it.
pub(super) const LONGEST_DEADLINE: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

/// The retry budget every chunk of one batch draws from, and its deadline (see the module docs).
pub(super) struct Budget {
    pub(super) policy: RetryPolicy,
    /// When the batch must have returned, and the duration it was given (for messages).
    pub(super) deadline: Option<(Instant, Duration)>,
    pub(super) state: std::sync::Mutex<BudgetState>,
}

#[derive(Default)]
pub(super) struct BudgetState {
    /// Failed requests since the last one that succeeded, across chunks.
    pub(super) failures_in_a_row: u32,
    /// Set once the batch must send nothing more.
    pub(super) stopped: bool,
}

impl Budget {
    pub(super) fn new(policy: RetryPolicy, deadline: Option<Duration>) -> Self {
        Budget {
            policy,
            // A deadline past what an `Instant` can hold (`Duration::MAX`) is none in practice:
            // saturated at a century instead of overflowing.
            deadline: deadline.map(|d| (Instant::now() + d.min(LONGEST_DEADLINE), d)),
            state: std::sync::Mutex::default(),
        }
    }

    /// The error of work the deadline cut: `what` says what was left.
    pub(super) fn deadline_error(&self, what: String) -> Error {
        let given = self.deadline.map(|(_, d)| d).unwrap_or_default();
        Error::DeadlineExceeded {
            message: format!("the batch's deadline of {given:?} passed: {what}"),
        }
    }

    pub(super) fn expired(&self) -> bool {
        self.deadline.is_some_and(|(at, _)| Instant::now() >= at)
    }

    /// Runs `work`, or gives up on it when the deadline passes first (`None`).
    pub(super) async fn within<T>(&self, work: impl std::future::Future<Output = T>) -> Option<T> {
        match self.deadline {
            None => Some(work.await),
            Some((at, _)) => tokio::time::timeout_at(at, work).await.ok(),
        }
    }

    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, BudgetState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(super) fn stopped(&self) -> bool {
        self.lock().stopped
    }

    pub(super) fn stop(&self) {
        self.lock().stopped = true;
    }

    pub(super) fn succeeded(&self) {
        self.lock().failures_in_a_row = 0;
    }

    /// Counts a failed request; true when the batch must stop (`max_attempts` failures in a row).
    pub(super) fn failed(&self) -> bool {
        let mut s = self.lock();
        s.failures_in_a_row += 1;
        if s.failures_in_a_row >= self.policy.max_attempts.max(1) {
            s.stopped = true;
        }
        s.stopped
    }
}

/// True for errors a batch request is retried after.
pub(super) fn retryable(e: &Error) -> bool {
    match e {
        Error::Throttled { .. } | Error::OutcomeUnknown { .. } => true,
        Error::Service {
            code: Some(code), ..
        } => {
            matches!(
                code.as_str(),
                "InternalServerError" | "InternalFailure" | "ServiceUnavailable"
            )
        }
        _ => false,
    }
}

/// The causes of an incomplete batch (one per distinct message, oldest first), or the one error
/// to return instead: when nothing was done and a single kind of non-retryable error is why.
pub(super) fn incomplete(untouched: bool, mut errors: Vec<Error>) -> Result<Vec<Error>> {
    // A deadline leaves items, never a reason not to return them.
    let deadline = |e: &Error| matches!(e, Error::DeadlineExceeded { .. });
    if untouched
        && !errors.is_empty()
        && !errors.iter().any(deadline)
        && errors.iter().all(|e| !retryable(e))
        && errors.iter().all(|e| e.kind() == errors[0].kind())
    {
        return Err(errors.swap_remove(0));
    }
    let mut seen = HashSet::new();
    errors.retain(|e| seen.insert(e.to_string()));
    Ok(errors)
}

/// What one chunk did.
pub(super) struct ChunkOutcome<T> {
    /// Items processed.
    pub(super) done: usize,
    /// Items read (batch gets).
    pub(super) found: Vec<(String, SharedItem)>,
    /// Items not processed.
    pub(super) pending: Vec<T>,
    pub(super) error: Option<Error>,
    pub(super) attempts: u32,
    /// Items refused for good (a typed write that found another entity's item), not retried.
    pub(super) refused: Vec<T>,
    /// Why each refused item was refused.
    pub(super) refusals: Vec<Error>,
}

impl<T> ChunkOutcome<T> {
    pub(super) fn map<U>(self, f: impl Fn(T) -> U) -> ChunkOutcome<U> {
        ChunkOutcome {
            done: self.done,
            found: self.found,
            pending: self.pending.into_iter().map(&f).collect(),
            error: self.error,
            attempts: self.attempts,
            refused: self.refused.into_iter().map(&f).collect(),
            refusals: self.refusals,
        }
    }
}

/// The answer to one request of a chunk: items read, items to send again, items refused for
/// good with why.
pub(super) struct Answer<T> {
    pub(super) found: Vec<(String, SharedItem)>,
    pub(super) unprocessed: Vec<T>,
    pub(super) refused: Vec<(T, Error)>,
}

impl<T> Answer<T> {
    pub(super) fn new(found: Vec<(String, SharedItem)>, unprocessed: Vec<T>) -> Self {
        Answer {
            found,
            unprocessed,
            refused: Vec::new(),
        }
    }
}

/// Runs one chunk: sends it, then resends what comes back unprocessed (or the whole chunk after a
/// retryable error) with backoff, up to the policy's attempts, while the batch's shared budget
/// lasts. The error that ends the chunk (a non-retryable one, or the last retryable one when its
/// retries or the budget ran out) is its outcome's `error`.
pub(super) async fn run_chunk<T, F, Fut>(chunk: Vec<T>, budget: &Budget, send: F) -> ChunkOutcome<T>
where
    T: Clone,
    F: Fn(Vec<T>) -> Fut,
    Fut: std::future::Future<Output = Result<Answer<T>>>,
{
    let mut out = ChunkOutcome {
        done: 0,
        found: Vec::new(),
        pending: chunk,
        error: None,
        attempts: 0,
        refused: Vec::new(),
        refusals: Vec::new(),
    };
    let policy = budget.policy;
    let max = policy.max_attempts.max(1);
    let mut last_error = None;
    loop {
        if budget.expired() {
            budget.stop();
            out.error = Some(budget.deadline_error(format!(
                "{} item(s) of a chunk not sent{}",
                out.pending.len(),
                last_error
                    .map(|e| format!(" (its last error: {e})"))
                    .unwrap_or_default()
            )));
            return out;
        }
        if budget.stopped() {
            out.error = out.error.or(last_error);
            return out;
        }
        out.attempts += 1;
        let sent = out.pending.len();
        let Some(result) = budget.within(send(out.pending.clone())).await else {
            budget.stop();
            out.error = Some(budget.deadline_error(format!(
                "a request with {sent} item(s) was in flight and is abandoned: they are returned \
                 as not processed, and a write among them may or may not have been applied"
            )));
            return out;
        };
        match result {
            Ok(answer) => {
                budget.succeeded();
                last_error = None;
                out.found.extend(answer.found);
                out.done += sent.saturating_sub(answer.unprocessed.len() + answer.refused.len());
                for (item, why) in answer.refused {
                    out.refused.push(item);
                    out.refusals.push(why);
                }
                out.pending = answer.unprocessed;
                if out.pending.is_empty() {
                    return out;
                }
                tracing::debug!(
                    unprocessed = out.pending.len(),
                    attempt = out.attempts,
                    "batch: unprocessed items"
                );
            }
            Err(e) if retryable(&e) => {
                tracing::debug!(error = %e, attempt = out.attempts, "batch: retryable error");
                if budget.failed() {
                    tracing::warn!(error = %e, "batch: backend failing, stopping the batch");
                    out.error = Some(e);
                    return out;
                }
                last_error = Some(e);
            }
            Err(e) => {
                if stops_the_batch(&e) {
                    budget.stop();
                }
                out.error = Some(e);
                return out;
            }
        }
        if out.attempts >= max {
            out.error = last_error;
            return out;
        }
        // A backoff wait ends at the deadline; the loop then reports it.
        let _ = budget
            .within(tokio::time::sleep(policy.delay(out.attempts - 1)))
            .await;
    }
}
