//! A canonical binary encoding of values, items and expressions: the same input always gives the
//! same bytes (map keys sorted), in every process and version. Used for cursors (which carry a
//! `LastEvaluatedKey`), query fingerprints and duplicate-key detection. The encoding lives in
//! [`crate::canon`], shared with dyno-cache's keys.

pub(crate) use crate::canon::{item_bytes, Reader};

/// The canonical writer into a `Vec<u8>`.
pub(crate) type Writer = crate::canon::Writer<Vec<u8>>;

pub(crate) use crate::hash::fnv1a;
