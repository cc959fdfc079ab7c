//! Change feeds: every change to a table's items, in commit order, for a reader that resumes
//! from a position.
//!
//! A table created with a stream specification ([`TableDef::stream`](crate::TableDef::stream))
//! records its changes. Two implementations of [`ChangeFeed`] read them:
//!
//! - [`MemoryFeed`](crate::store::MemoryFeed), MemoryStore's own stream ([`MemoryStore::change_feed`](crate::MemoryStore::change_feed)):
//!   one shard per table, records for puts, updates, deletes, batch writes, transactions and TTL
//!   deletions, bounded by a retention window and a record cap;
//! - `StreamsFeed` (feature `streams`), DynamoDB Streams through `aws-sdk-dynamodbstreams`: every shard in lineage
//!   order (a parent before its children), following splits and closings, renewing expired
//!   iterators.
//!
//! Both report a [`Gap`] when records the reader needed are gone (trimmed by retention, a shard
//! or stream lost): a consumer that mirrors the table (a cache) must then forget what it knows,
//! not guess.
//!
//! ```
//! # futures::executor::block_on(async {
//! use std::time::Duration;
//! use dyno_core::feed::{ChangeFeed, ChangeKind, StartingPosition, StreamView};
//! use dyno_core::store::{PutRequest, Store};
//! use dyno_core::{AttributeValue, Item, MemoryStore, TableDef};
//!
//! let store = MemoryStore::new();
//! let def = TableDef::new("Shop", "PK", None).stream(StreamView::NewAndOldImages);
//! store.create_table(&def).await?;
//! let mut feed = store.change_feed("Shop", StartingPosition::TrimHorizon)?;
//! let item = Item::from([("PK".to_owned(), AttributeValue::S("USER#1".into()))]);
//! store.put_item(PutRequest::new("Shop", item.clone())).await?;
//! let batch = feed.poll(Duration::from_secs(1)).await?;
//! assert_eq!(batch.records[0].kind, ChangeKind::Insert);
//! assert_eq!(batch.records[0].new_image.as_deref(), Some(&item));
//! let resume_from = feed.checkpoint(); // a later reader starts after it
//! # drop(resume_from);
//! # Ok::<(), dyno_core::Error>(()) }).unwrap();
//! ```

#[cfg(feature = "streams")]
mod streams;

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;
use std::time::{Duration, SystemTime};

use async_trait::async_trait;

#[cfg(feature = "streams")]
#[cfg_attr(docsrs, doc(cfg(feature = "streams")))]
pub use self::streams::StreamsFeed;
use crate::error::Result;
pub use crate::table::StreamView;
use crate::value::{Item, SharedItem};

/// What a change did to its item (`eventName`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChangeKind {
    /// The item did not exist (`INSERT`).
    Insert,
    /// The item existed and changed (`MODIFY`).
    Modify,
    /// The item was deleted (`REMOVE`), by a request or by TTL.
    Remove,
}

/// Who made a change, when it was not an application request (`userIdentity`). DynamoDB marks
/// TTL deletions with type `Service` and principal `dynamodb.amazonaws.com`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct UserIdentity {
    /// `Service` for TTL deletions.
    pub kind: String,
    /// `dynamodb.amazonaws.com` for TTL deletions.
    pub principal_id: String,
}

impl UserIdentity {
    /// The identity DynamoDB gives TTL deletions.
    pub fn ttl() -> Self {
        UserIdentity {
            kind: "Service".to_owned(),
            principal_id: "dynamodb.amazonaws.com".to_owned(),
        }
    }

    /// True for a TTL deletion's identity.
    pub fn is_ttl(&self) -> bool {
        self.kind == "Service" && self.principal_id == "dynamodb.amazonaws.com"
    }
}

/// A stream record's sequence number: decimal digits, compared as numbers (DynamoDB's are up
/// to 40 digits, more than `u128` holds).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SequenceNumber(String);

impl SequenceNumber {
    /// A sequence number from its decimal text.
    pub fn new(digits: impl Into<String>) -> Self {
        SequenceNumber(digits.into())
    }

    /// The decimal text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    fn significant(&self) -> &str {
        self.0.trim_start_matches('0')
    }
}

impl Ord for SequenceNumber {
    fn cmp(&self, other: &Self) -> Ordering {
        let (a, b) = (self.significant(), other.significant());
        a.len().cmp(&b.len()).then_with(|| a.cmp(b))
    }
}

impl PartialOrd for SequenceNumber {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for SequenceNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One change to one item.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangeRecord {
    /// The table changed.
    pub table: String,
    /// The shard the record came from (one per table on MemoryStore).
    pub shard: String,
    /// Its position in the shard.
    pub sequence: SequenceNumber,
    /// Insert, modify or remove.
    pub kind: ChangeKind,
    /// The item's primary key.
    pub keys: Item,
    /// The item before the change (with `OLD_IMAGE` and `NEW_AND_OLD_IMAGES`; absent on insert).
    pub old_image: Option<SharedItem>,
    /// The item after the change (with `NEW_IMAGE` and `NEW_AND_OLD_IMAGES`; absent on remove).
    pub new_image: Option<SharedItem>,
    /// Set for changes the service made itself (TTL deletions).
    pub user_identity: Option<UserIdentity>,
    /// When the change was made, approximately (`ApproximateCreationDateTime`).
    pub created_at: SystemTime,
}

impl ChangeRecord {
    /// True for a deletion by TTL.
    pub fn is_ttl_deletion(&self) -> bool {
        self.kind == ChangeKind::Remove && self.user_identity.as_ref().is_some_and(|u| u.is_ttl())
    }
}

/// Where a reader is: per shard, the last sequence number it returned, and the stream it reads
/// (a table deleted and created again has a new stream). A reader started
/// [`StartingPosition::After`] a checkpoint returns only later records.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Checkpoint {
    /// The stream (its ARN on DynamoDB Streams), when known.
    pub stream: Option<String>,
    /// Shard id to the last sequence number returned from it.
    pub shards: BTreeMap<String, SequenceNumber>,
}

impl Checkpoint {
    /// The position after `sequence` in `shard` of `stream`.
    pub fn after(
        stream: impl Into<String>,
        shard: impl Into<String>,
        sequence: SequenceNumber,
    ) -> Self {
        Checkpoint {
            stream: Some(stream.into()),
            shards: BTreeMap::from([(shard.into(), sequence)]),
        }
    }

    /// Moves the position in `shard` to `sequence` (never backwards).
    pub fn advance(&mut self, shard: &str, sequence: &SequenceNumber) {
        match self.shards.get_mut(shard) {
            Some(s) if *s >= *sequence => {}
            Some(s) => *s = sequence.clone(),
            None => {
                self.shards.insert(shard.to_owned(), sequence.clone());
            }
        }
    }
}

/// Where a new reader starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartingPosition {
    /// At the oldest record still retained.
    TrimHorizon,
    /// After the newest record: only changes made from now on.
    Latest,
    /// After a checkpoint (records it already returned are not returned again).
    After(Checkpoint),
}

/// Why records are missing between what a reader returned and what it returns next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gap {
    /// Records after the reader's position were trimmed (retention window or record cap)
    /// before it read them.
    Trimmed {
        /// The shard.
        shard: String,
    },
    /// The reader lost its place in a shard: an iterator opened at `LATEST` expired (15 minutes
    /// without a poll) before it returned any record.
    PositionLost {
        /// The shard.
        shard: String,
    },
    /// A shard of the checkpoint no longer exists in the stream.
    ShardLost {
        /// The shard.
        shard: String,
    },
    /// The checkpoint belongs to another stream (the table was deleted and created again, or
    /// its stream disabled and enabled).
    StreamChanged {
        /// The checkpoint's stream.
        was: Option<String>,
        /// The stream now.
        now: String,
    },
}

/// What one [`ChangeFeed::poll`] returns.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct FeedBatch {
    /// Gaps met before these records: changes were lost there.
    pub gaps: Vec<Gap>,
    /// Records in commit order within each shard (a parent shard's before its children's).
    pub records: Vec<ChangeRecord>,
    /// True when the reader knows of more records waiting (a read returned a full page): a
    /// consumer that measures how far behind it is should not count itself caught up.
    pub more: bool,
}

impl FeedBatch {
    /// A batch of `records`, after `gaps`; `more` when the reader knows more records wait.
    pub fn new(gaps: Vec<Gap>, records: Vec<ChangeRecord>, more: bool) -> Self {
        FeedBatch {
            gaps,
            records,
            more,
        }
    }
}

/// A reader of one table's changes.
///
/// Every record is returned once, in order within its shard, unless a [`Gap`] says records
/// were lost. `poll` is cancel safe: a poll dropped before it completes loses no record (what
/// it fetched is returned by the next poll, and the position moves only when a batch is
/// returned). A poll that fails loses no record either: the next one reads from where the
/// last returned record left off.
#[async_trait]
pub trait ChangeFeed: Send + fmt::Debug {
    /// The table read.
    fn table(&self) -> &str;

    /// The next records, waiting up to `wait` for some to appear; an empty batch when none did.
    async fn poll(&mut self, wait: Duration) -> Result<FeedBatch>;

    /// The position after the last record returned, to resume from.
    fn checkpoint(&self) -> Checkpoint;
}

#[async_trait]
impl<F: ChangeFeed + ?Sized> ChangeFeed for Box<F> {
    fn table(&self) -> &str {
        (**self).table()
    }

    async fn poll(&mut self, wait: Duration) -> Result<FeedBatch> {
        (**self).poll(wait).await
    }

    fn checkpoint(&self) -> Checkpoint {
        (**self).checkpoint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequence_numbers_compare_as_numbers() {
        let n = |s: &str| SequenceNumber::new(s);
        assert!(n("9") < n("10"));
        assert!(n("000000000000000000020") > n("19"));
        assert_eq!(n("007").cmp(&n("7")), Ordering::Equal);
        let long = n("4000000000000000000000000000000000000001");
        assert!(long > n("399999999999999999999999999999999999999"));
    }

    #[test]
    fn the_create_table_json_carries_the_stream_specification() {
        let def = crate::TableDef::new("T", "PK", None).stream(StreamView::NewImage);
        let json = def.to_create_table_json();
        assert_eq!(
            json["StreamSpecification"],
            serde_json::json!({"StreamEnabled": true, "StreamViewType": "NEW_IMAGE"})
        );
        let plain = crate::TableDef::new("T", "PK", None).to_create_table_json();
        assert!(plain.get("StreamSpecification").is_none());
    }

    #[test]
    fn checkpoints_never_move_back() {
        let mut c = Checkpoint::default();
        c.advance("s", &SequenceNumber::new("20"));
        c.advance("s", &SequenceNumber::new("3"));
        assert_eq!(c.shards["s"], SequenceNumber::new("20"));
    }
}
