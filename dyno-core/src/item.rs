//! The vocabulary every layer names, the error included: an item, an item shared without
//! copying, the key of an item in a table and one write of a batch. It sits below
//! [`error`](crate::error) so that an error can carry them; users find each where it belongs
//! (`dyno_core::value::Item`, `dyno_core::store::WriteRequest`, ...), re-exported from here.

use std::collections::HashMap;
use std::sync::Arc;

pub use aws_sdk_dynamodb::types::AttributeValue;

/// One DynamoDB item: attribute name to value.
pub type Item = HashMap<String, AttributeValue>;

/// An item shared without copying, as stores and caches hand them out.
pub type SharedItem = Arc<Item>;

/// The short name of an attribute value's type (`S`, `N`, `B`, `BOOL`, `NULL`, `L`, `M`, `SS`,
/// `NS`, `BS`), for error messages.
#[doc(hidden)]
pub fn type_name(value: &AttributeValue) -> &'static str {
    match value {
        AttributeValue::S(_) => "S",
        AttributeValue::N(_) => "N",
        AttributeValue::B(_) => "B",
        AttributeValue::Bool(_) => "BOOL",
        AttributeValue::Null(_) => "NULL",
        AttributeValue::L(_) => "L",
        AttributeValue::M(_) => "M",
        AttributeValue::Ss(_) => "SS",
        AttributeValue::Ns(_) => "NS",
        AttributeValue::Bs(_) => "BS",
        _ => "unknown",
    }
}

/// A short description of what was found, for decode errors: the type and, for scalars, a
/// truncated value.
#[doc(hidden)]
pub fn describe(value: &AttributeValue) -> String {
    fn cut(s: &str) -> String {
        let mut out: String = s.chars().take(40).collect();
        if out.len() < s.len() {
            out.push('…');
        }
        out
    }
    match value {
        AttributeValue::S(s) => format!("S {:?}", cut(s)),
        AttributeValue::N(n) => format!("N {}", cut(n)),
        AttributeValue::Bool(b) => format!("BOOL {b}"),
        other => type_name(other).to_owned(),
    }
}

/// A key in a named table (batch and transactional reads).
#[derive(Debug, Clone, PartialEq)]
pub struct TableKey {
    /// Table name.
    pub table: String,
    /// The primary key.
    pub key: Item,
}

impl TableKey {
    /// The item at `key` in `table`.
    pub fn new(table: impl Into<String>, key: Item) -> Self {
        TableKey {
            table: table.into(),
            key,
        }
    }
}

/// One write of a batch. Build it with [`WriteRequest::put`] or [`WriteRequest::delete`]; the
/// variants are `#[non_exhaustive]`, so a field DynamoDB adds later is not a breaking change
/// (match them with `..`).
///
/// ```
/// use dyno_core::store::WriteRequest;
/// use dyno_core::{AttributeValue, Item};
///
/// let key = Item::from([("PK".to_owned(), AttributeValue::S("USER#1".into()))]);
/// let write = WriteRequest::delete("Shop", key.clone());
/// assert!(matches!(&write, WriteRequest::Delete { key: k, .. } if *k == key));
/// assert_eq!(write.table(), "Shop");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum WriteRequest {
    /// Put a whole item.
    #[non_exhaustive]
    Put {
        /// Table name.
        table: String,
        /// The item.
        item: Item,
    },
    /// Delete by key.
    #[non_exhaustive]
    Delete {
        /// Table name.
        table: String,
        /// The primary key.
        key: Item,
    },
}

impl WriteRequest {
    /// A put of `item` (keys included) into `table`.
    pub fn put(table: impl Into<String>, item: Item) -> Self {
        WriteRequest::Put {
            table: table.into(),
            item,
        }
    }

    /// A delete of the item at `key` in `table`.
    pub fn delete(table: impl Into<String>, key: Item) -> Self {
        WriteRequest::Delete {
            table: table.into(),
            key,
        }
    }

    /// The table written.
    pub fn table(&self) -> &str {
        match self {
            WriteRequest::Put { table, .. } | WriteRequest::Delete { table, .. } => table,
        }
    }
}
