//! Table administration beyond create and delete: descriptions, index status, UpdateTable.

use std::time::Duration;

use super::Store;
use crate::error::{Error, Result};
use crate::table::{IndexDef, TableDef};

/// A table's description.
#[derive(Debug, Clone, PartialEq)]
pub struct TableDescription {
    /// The definition (TTL attribute included when TTL is enabled). A global index being
    /// deleted is still listed, with [`IndexStatus::Deleting`].
    pub definition: TableDef,
    /// Approximate number of items.
    pub item_count: Option<u64>,
    /// The status of each global secondary index, by name, in the definition's order (DynamoDB
    /// reports none for local indexes, which exist as long as their table).
    pub index_status: Vec<(String, IndexStatus)>,
}

impl TableDescription {
    /// The status of global index `name`, if the table has it.
    pub fn status_of(&self, name: &str) -> Option<IndexStatus> {
        self.index_status
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| *s)
    }

    /// True when every global index is [`IndexStatus::Active`]: none is being built or deleted.
    pub fn indexes_active(&self) -> bool {
        self.index_status
            .iter()
            .all(|(_, s)| *s == IndexStatus::Active)
    }
}

/// The state of a global secondary index, as DescribeTable reports it (`IndexStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IndexStatus {
    /// Being created: DynamoDB fills it from the table's items (backfilling) and refuses
    /// queries on it until it is active.
    Creating,
    /// Its settings are changing; it can be read.
    Updating,
    /// Being deleted.
    Deleting,
    /// Ready to be queried.
    Active,
}

impl IndexStatus {
    /// The name DynamoDB gives the status (`CREATING`, `ACTIVE`...).
    pub fn as_str(self) -> &'static str {
        match self {
            IndexStatus::Creating => "CREATING",
            IndexStatus::Updating => "UPDATING",
            IndexStatus::Deleting => "DELETING",
            IndexStatus::Active => "ACTIVE",
        }
    }
}

/// One change of UpdateTable's `GlobalSecondaryIndexUpdates`.
#[derive(Debug, Clone, PartialEq)]
pub enum IndexChange {
    /// Adds a global secondary index, filled from the items already in the table. An item whose
    /// value for one of the index's key attributes has another type, is empty, or is over the key
    /// size limit is left out of the index (DynamoDB's "index key violations"), not refused.
    Create(IndexDef),
    /// Removes a global secondary index (by name).
    Delete(String),
}

/// UpdateTable, for what dyno manages: a global secondary index added to or removed from a table,
/// populated or not. DynamoDB accepts one create or delete per request (API Reference,
/// UpdateTable, `GlobalSecondaryIndexUpdates`: "You can create or delete only one global
/// secondary index per UpdateTable operation").
///
/// ```
/// # futures::executor::block_on(async {
/// use dyno_core::store::{IndexStatus, Store, UpdateTableRequest};
/// use dyno_core::table::IndexDef;
/// use dyno_core::{MemoryStore, TableDef};
///
/// let store = MemoryStore::new();
/// store.create_table(&TableDef::new("Shop", "PK", Some("SK"))).await?;
/// let answer = store
///     .update_table(UpdateTableRequest::create_index(
///         "Shop",
///         IndexDef::new("ByEmail", "email", None),
///     ))
///     .await?;
/// // As DynamoDB answers: the new index is being created...
/// assert_eq!(answer.status_of("ByEmail"), Some(IndexStatus::Creating));
/// // ...and active once described again (MemoryStore fills it before answering).
/// let now = store.describe_table("Shop").await?;
/// assert!(now.indexes_active() && now.definition.index("ByEmail").is_some());
/// # Ok::<(), dyno_core::Error>(()) }).unwrap();
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct UpdateTableRequest {
    /// Table name.
    pub table: String,
    /// The index changes (DynamoDB takes exactly one create or delete).
    pub index_changes: Vec<IndexChange>,
}

impl UpdateTableRequest {
    /// The changes `index_changes` to `table` (DynamoDB takes exactly one create or delete; a
    /// request with another count is refused, by every store).
    pub fn new(table: impl Into<String>, index_changes: Vec<IndexChange>) -> Self {
        UpdateTableRequest {
            table: table.into(),
            index_changes,
        }
    }

    /// Adds global index `index` to `table`.
    pub fn create_index(table: impl Into<String>, index: IndexDef) -> Self {
        UpdateTableRequest {
            table: table.into(),
            index_changes: vec![IndexChange::Create(index)],
        }
    }

    /// Removes global index `name` from `table`.
    pub fn delete_index(table: impl Into<String>, name: impl Into<String>) -> Self {
        UpdateTableRequest {
            table: table.into(),
            index_changes: vec![IndexChange::Delete(name.into())],
        }
    }
}

/// Describes `table` until every global index is active and none is being deleted (after
/// [`Store::update_table`]: DynamoDB builds a new index in the background, from minutes to hours
/// on a large table), polling with a delay that grows to 5 s, for at most `timeout`. Returns the
/// last description; an index still changing at the deadline is [`Error::DeadlineExceeded`].
pub async fn wait_for_indexes<S: Store + ?Sized>(
    store: &S,
    table: &str,
    timeout: Duration,
) -> Result<TableDescription> {
    let deadline = tokio::time::Instant::now() + timeout;
    let mut delay = Duration::from_millis(20);
    loop {
        let description = store.describe_table(table).await?;
        if description.indexes_active() {
            return Ok(description);
        }
        let now = tokio::time::Instant::now();
        if now >= deadline {
            let changing: Vec<String> = description
                .index_status
                .iter()
                .filter(|(_, s)| *s != IndexStatus::Active)
                .map(|(n, s)| format!("{n} {}", s.as_str()))
                .collect();
            return Err(Error::DeadlineExceeded {
                message: format!(
                    "the indexes of table {table} are still changing after {timeout:?}: {}",
                    changing.join(", ")
                ),
            });
        }
        tokio::time::sleep(delay.min(deadline - now)).await;
        delay = (delay * 2).min(Duration::from_secs(5));
    }
}
