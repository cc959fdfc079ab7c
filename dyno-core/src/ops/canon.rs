//! A canonical binary encoding of values, items and expressions: the same input always gives the
//! same bytes (map keys sorted), in every process and version. Used for cursors (which carry a
//! `LastEvaluatedKey`), query fingerprints and duplicate-key detection. The encoding lives in
//! [`crate::canon`], shared with dyno-cache's keys.

pub(crate) use crate::canon::{item_bytes, Reader};

/// The canonical writer into a `Vec<u8>`.
pub(crate) type Writer = crate::canon::Writer<Vec<u8>>;

/// 64-bit FNV-1a: stable across processes and releases (std's hasher is not).
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}
