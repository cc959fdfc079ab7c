//! Writes that apply at most once however many responses are lost.
//!
//! A plain `UpdateItem` that increments a counter is not idempotent: when its response is lost
//! (a timeout, a dropped connection), resending it may count twice and not resending it may
//! count zero times. DynamoDB's `TransactWriteItems` takes a client request token: a resend with
//! the same token within ten minutes is recognised and not applied again. [`IdempotentWrite`]
//! sends a [`Transaction`] (one update, say) that way, and retries it with the same token while
//! its outcome is unknown.

use std::fmt;

use super::{RetryPolicy, Transaction};
use crate::error::{Error, Result};
use crate::store::{Store, TransactWriteRequest};

/// A transaction sent with a client request token and retried with the same token while its
/// outcome is unknown (timeouts, lost responses, 5xx) or it is throttled, so that it applies
/// exactly once when it succeeds, and at most once otherwise.
///
/// The token is the transaction's own: the random one it was built with, or the one
/// [`Transaction::token`] gave. DynamoDB remembers tokens for ten minutes: the retry policy must end well within that (the default,
/// [`RetryPolicy::default`], retries for about 15 s).
///
/// ```
/// # use dyno_core::{Entity, Table, MemoryStore, Store};
/// # use dyno_core::ops::{EntityExt, IdempotentWrite, Transaction, UpdateDsl};
/// # #[derive(Table)]
/// # #[dyno(name = "Shop", pk = "PK", sk = "SK")]
/// # struct Shop;
/// #[derive(Debug, Clone, PartialEq, Entity)]
/// #[dyno(table = Shop, pk = "PAGE#{page}", sk = "VIEWS")]
/// struct PageViews { page: String, views: u64 }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> dyno_core::Result<()> {
/// # let store = MemoryStore::new();
/// # store.create_table(Shop::definition()).await?;
/// # PageViews { page: "home".into(), views: 0 }.put().send(&store).await?;
/// let increment = PageViews::update(PageViews::key("home")).add_views(1u64).into_update()?;
/// let write = IdempotentWrite::new(Transaction::new().update(increment))?;
/// write.send(&store).await?; // applied once, even if a response was lost and it was resent
/// # assert_eq!(PageViews::get(PageViews::key("home")).send(&store).await?.unwrap().views, 1);
/// # Ok(()) }
/// ```
#[must_use = "an idempotent write does nothing until it is sent"]
#[derive(Clone)]
pub struct IdempotentWrite {
    request: TransactWriteRequest,
    retry: RetryPolicy,
}

impl fmt::Debug for IdempotentWrite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IdempotentWrite")
            .field("actions", &self.request.actions.len())
            .field("token", &self.token())
            .field("retry", &self.retry)
            .finish()
    }
}

impl IdempotentWrite {
    /// Prepares `transaction` (checked as [`Transaction::send`] would), with its token.
    pub fn new(transaction: Transaction) -> Result<Self> {
        let mut request = transaction.into_request()?;
        request
            .client_request_token
            .get_or_insert_with(|| format!("{:032x}", fastrand::u128(..)));
        Ok(IdempotentWrite {
            request,
            retry: RetryPolicy::default(),
        })
    }

    /// The retry policy (attempts and backoff).
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// The client request token every attempt carries.
    pub fn token(&self) -> &str {
        self.request.client_request_token.as_deref().unwrap_or("")
    }

    /// Sends the transaction, resending it with the same token after an unknown outcome or
    /// throttling. `Ok` means it was applied (once). An error that survives the attempts is
    /// returned: [`Error::OutcomeUnknown`] then means it was applied once or not at all, and
    /// sending this same `IdempotentWrite` again within ten minutes stays safe.
    pub async fn send<S: Store + ?Sized>(&self, store: &S) -> Result<()> {
        let attempts = self.retry.max_attempts.max(1);
        let mut attempt = 0;
        loop {
            attempt += 1;
            match store.transact_write(self.request.clone()).await {
                Ok(_) => return Ok(()),
                Err(e) if attempt < attempts && resend(&e) => {
                    tracing::debug!(error = %e, attempt, token = self.token(), "idempotent write: resending");
                    tokio::time::sleep(self.retry.delay(attempt - 1)).await;
                }
                Err(e) => return Err(e),
            }
        }
    }
}

/// True for the errors after which resending with the same token is both safe and useful.
fn resend(e: &Error) -> bool {
    match e {
        Error::OutcomeUnknown { .. } | Error::Throttled { .. } => true,
        // A conflict with a concurrent transaction changed nothing.
        Error::TransactionCanceled { reasons } => {
            !reasons.is_empty()
                && reasons.iter().all(|r| {
                    matches!(
                        r.code.as_deref(),
                        None | Some("None" | "TransactionConflict" | "ThrottlingError")
                    )
                })
        }
        _ => false,
    }
}
