//! The batch engine: any number of writes and reads, split into DynamoDB's batch limits, run
//! concurrently (bounded), retried with jittered exponential backoff, and accounted for one by
//! one. It never silently drops an item: what could not be written or read after the bounded
//! attempts is returned to the caller.
//!
//! - [`BatchWriter`]: typed puts and deletes (and raw
//!   [`WriteRequest`](crate::store::WriteRequest)s). Typed writes keep off other entities' items:
//!   each is sent as its own conditional PutItem or DeleteItem carrying the entity check, 25 at
//!   once per chunk (see [`BatchWriter`]'s "Ownership"); [`BatchWriter::without_entity_check`] and
//!   raw writes go 25 per `BatchWriteItem`, at most 16 MB per request.
//! - [`BatchGet`]: typed keys, 100 per `BatchGetItem`; returns decoded entities in the order of the
//!   keys, missing ones simply absent, expired ones and other entities' items hidden.
//!
//! Duplicate keys in one batch are refused with [`Error::Validation`](crate::Error::Validation)
//! before anything is sent: DynamoDB rejects them within one request, and across requests their
//! order would be undefined.
//!
//! Retried: unprocessed items and keys, throttling, outcome-unknown errors (batch puts and deletes
//! are idempotent) and 5xx service errors. Any other error stops that chunk, and its items are
//! reported as not processed.
//!
//! One budget for the whole batch: the chunks share the [`RetryPolicy`]. When requests fail
//! `max_attempts` times in a row, whichever chunks they came from, the backend is taken as
//! unreachable and the batch stops: requests in flight finish, nothing more is sent, and every item
//! not written is returned with the cause. A dead server thus costs about one chunk's retries
//! ([`RetryPolicy::total_backoff`] plus the requests' own time limits), not every chunk's. A
//! configuration error ([`Error::Configuration`](crate::Error::Configuration)) or a missing table
//! stops the batch at once: every other request would fail the same way.
//!
//! A deadline in time, beside the budget in attempts: with [`BatchWriter::deadline`] (or
//! [`BatchGet::deadline`]) the batch returns within that time whatever the backend does. When it
//! passes, nothing more is sent, backoff waits end, and requests still in flight are abandoned:
//! their items are returned as not processed, with
//! [`Error::DeadlineExceeded`](crate::Error::DeadlineExceeded) as the cause (a write in flight may
//! or may not have been applied; batch puts and deletes are idempotent, so sending them again is
//! safe).

mod get;
mod retry;
mod write;

use crate::ops::canon::{item_bytes, Writer};
use crate::value::Item;

pub use self::get::{BatchGet, BatchGetReport};
pub use self::retry::RetryPolicy;
pub use self::write::{BatchWriteReport, BatchWriter};

/// DynamoDB's maximum writes per `BatchWriteItem`.
pub const MAX_BATCH_WRITES: usize = 25;

/// DynamoDB's maximum keys per `BatchGetItem`.
pub const MAX_BATCH_KEYS: usize = 100;

/// DynamoDB's maximum request size of a `BatchWriteItem`.
pub const MAX_BATCH_REQUEST_BYTES: usize = 16 * 1024 * 1024;

/// The identity of an item: table and canonical key bytes.
fn identity(table: &str, key: &Item) -> Vec<u8> {
    let mut w = Writer::default();
    w.str(table);
    w.buf.extend(item_bytes(key));
    w.buf
}

/// `A=v, B=w`: a key for messages, attributes in name order.
pub(crate) fn describe_key(key: &Item) -> String {
    let mut parts: Vec<String> = key
        .iter()
        .map(|(k, v)| format!("{k}={}", crate::value::describe(v)))
        .collect();
    parts.sort();
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::retry::*;
    use super::write::*;
    use super::*;
    use crate::store::WriteRequest;
    use crate::value::AttributeValue;

    #[test]
    fn delays_grow_exponentially_with_jitter_and_cap() {
        let p = RetryPolicy {
            max_attempts: 5,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(1),
        };
        for _ in 0..100 {
            let d0 = p.delay(0);
            assert!(
                d0 >= Duration::from_millis(50) && d0 <= Duration::from_millis(100),
                "{d0:?}"
            );
            let d3 = p.delay(3);
            assert!(
                d3 >= Duration::from_millis(400) && d3 <= Duration::from_millis(800),
                "{d3:?}"
            );
            let d9 = p.delay(40);
            assert!(
                d9 >= Duration::from_millis(500) && d9 <= Duration::from_secs(1),
                "{d9:?}"
            );
        }
    }

    #[test]
    fn chunks_respect_count_and_size_limits() {
        let small = |i: usize| {
            WriteRequest::put(
                "T",
                Item::from([("PK".to_owned(), AttributeValue::S(format!("K{i}")))]),
            )
        };
        let chunks = BatchWriter::chunks((0..60).map(small).collect());
        assert_eq!(
            chunks.iter().map(Vec::len).collect::<Vec<_>>(),
            vec![25, 25, 10]
        );
        // Larger than DynamoDB allows per item, to exercise the request-size split.
        let big = |i: usize| {
            WriteRequest::put(
                "T",
                Item::from([
                    ("PK".to_owned(), AttributeValue::S(format!("K{i}"))),
                    (
                        "blob".to_owned(),
                        AttributeValue::S("x".repeat(1024 * 1024)),
                    ),
                ]),
            )
        };
        let chunks = BatchWriter::chunks((0..50).map(big).collect());
        for c in &chunks {
            assert!(c.iter().map(request_bytes).sum::<usize>() <= MAX_BATCH_REQUEST_BYTES);
        }
        assert_eq!(chunks.iter().map(Vec::len).sum::<usize>(), 50);
        assert!(chunks.iter().all(|c| c.len() < MAX_BATCH_WRITES));
        assert!(chunks.len() >= 4);
    }
}
