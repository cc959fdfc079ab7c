//! A store wrapper that adds a fixed latency to every call and counts the reads that reach the
//! store behind it: a stand-in for a remote DynamoDB in benchmarks (`#[path =
//! "support/latency.rs"]`). Examples cannot use the tests package's `FaultStore`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use dyno_core::store::forward::{Call, Forward};
use dyno_core::{Result, Store};
use futures::future::BoxFuture;

/// `inner`, each call delayed by `delay` (a timer, not a busy wait: tasks keep running).
#[derive(Debug)]
pub struct Latency<S> {
    inner: S,
    delay: Duration,
    reads: AtomicU64,
}

impl<S: Store> Latency<S> {
    pub fn new(inner: S, delay: Duration) -> Self {
        Latency {
            inner,
            delay,
            reads: AtomicU64::new(0),
        }
    }

    /// Reads (gets, batch gets, queries, scans, transactional gets) that reached `inner`.
    pub fn reads(&self) -> u64 {
        self.reads.load(Ordering::Relaxed)
    }
}

#[async_trait]
impl<S: Store> Forward for Latency<S> {
    type Inner = S;
    fn inner(&self) -> &S {
        &self.inner
    }
    async fn around<T: Send>(&self, call: Call, inner: BoxFuture<'_, Result<T>>) -> Result<T> {
        if call.is_read() {
            self.reads.fetch_add(1, Ordering::Relaxed);
        }
        if !call.is_admin() {
            tokio::time::sleep(self.delay).await;
        }
        inner.await
    }
}
