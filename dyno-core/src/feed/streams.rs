//! DynamoDB Streams through `aws-sdk-dynamodbstreams`: [`StreamsFeed`].
//!
//! A stream is a tree of shards: a shard closes (after about four hours, or when its partition
//! splits) and one or two children continue it. Records of one item are ordered within a shard,
//! and a child's records come after its parent's, so a reader that mirrors the table must finish a
//! parent before reading its children. The feed keeps every known shard with its position,
//! reads the shards whose parent is finished (or gone), describes the stream again when a shard
//! closes (and every few seconds) to find new children, and renews an iterator that expired
//! (they last 15 minutes) from the last sequence number it returned.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use aws_sdk_dynamodbstreams::error::SdkError;
use aws_sdk_dynamodbstreams::operation::get_records::GetRecordsError;
use aws_sdk_dynamodbstreams::operation::get_shard_iterator::GetShardIteratorError;
use aws_sdk_dynamodbstreams::types as st;
use aws_smithy_types::error::metadata::ProvideErrorMetadata;
use tokio::time::Instant;

use super::{
    ChangeFeed, ChangeKind, ChangeRecord, Checkpoint, FeedBatch, Gap, SequenceNumber,
    StartingPosition, UserIdentity,
};
use crate::error::{Error, Result};
use crate::value::{AttributeValue, Item};

/// How often the shard list is described again while no shard closes (new shards appear when
/// a partition splits).
const REFRESH_EVERY: Duration = Duration::from_secs(5);

/// Where a shard is read from next.
#[derive(Debug, Clone, PartialEq, Eq)]
enum ShardPosition {
    TrimHorizon,
    Latest,
    After(SequenceNumber),
}

#[derive(Debug)]
struct ShardState {
    parent: Option<String>,
    position: ShardPosition,
    iterator: Option<String>,
    /// Read to its end (closed and drained), or lost: never read again.
    done: bool,
}

/// A reader of a table's DynamoDB stream.
///
/// A stream is a tree of shards: a shard closes (after about four hours, or when its partition
/// splits) and one or two children continue it. Records of one item are ordered within a
/// shard, and a child's records come after its parent's, so the feed finishes a parent before
/// it reads its children. It keeps every known shard with its position, describes the stream
/// again when a shard closes (and every 5 seconds) to find new children, renews an iterator
/// that expired (they last 15 minutes) from the last sequence number it returned, and reports a
/// [`Gap`] when records it needed were trimmed, a shard of its checkpoint is gone, or the
/// checkpoint is another stream's. Delivery is at least once: a shard that had returned no
/// record when the checkpoint was taken is read again from its start on resume.
///
/// ```no_run
/// # async fn demo() -> dyno_core::Result<()> {
/// use std::time::Duration;
/// use dyno_core::feed::{ChangeFeed, StartingPosition, StreamsFeed};
///
/// let mut feed = StreamsFeed::local("http://127.0.0.1:8000", "Shop", StartingPosition::Latest).await?;
/// let batch = feed.poll(Duration::from_secs(1)).await?;
/// for record in &batch.records {
///     println!("{:?} {:?}", record.kind, record.keys);
/// }
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct StreamsFeed {
    client: aws_sdk_dynamodbstreams::Client,
    table: String,
    stream_arn: String,
    shards: BTreeMap<String, ShardState>,
    checkpoint: Checkpoint,
    pending: Vec<Gap>,
    /// When the shard list was last described.
    described_at: Option<Instant>,
    poll_interval: Duration,
}

impl StreamsFeed {
    /// A reader of `table`'s latest stream, found with DescribeTable through `dynamo` and read
    /// through `streams`. Fails when the table has no stream enabled.
    pub async fn open(
        streams: aws_sdk_dynamodbstreams::Client,
        dynamo: &aws_sdk_dynamodb::Client,
        table: &str,
        start: StartingPosition,
    ) -> Result<Self> {
        let out = dynamo
            .describe_table()
            .table_name(table)
            .send()
            .await
            .map_err(|e| service("DescribeTable", e))?;
        let arn = out
            .table()
            .filter(|t| t.stream_specification().is_some_and(|s| s.stream_enabled))
            .and_then(|t| t.latest_stream_arn())
            .ok_or_else(|| {
                Error::validation(format!(
                    "table {table} has no stream: create it with a stream specification"
                ))
            })?
            .to_owned();
        let mut feed = StreamsFeed {
            client: streams,
            table: table.to_owned(),
            stream_arn: arn.clone(),
            shards: BTreeMap::new(),
            checkpoint: Checkpoint {
                stream: Some(arn.clone()),
                ..Checkpoint::default()
            },
            pending: Vec::new(),
            described_at: None,
            poll_interval: Duration::from_millis(250),
        };
        let described = feed.describe().await?;
        let (positions, gaps) = plan_start(&arn, &described, &start);
        feed.pending = gaps;
        if let StartingPosition::After(c) = &start
            && c.stream.as_deref() == Some(arn.as_str())
        {
            feed.checkpoint.shards = c.shards.clone();
        }
        for shard in described {
            let (position, done) = positions
                .get(&shard.id)
                .cloned()
                .unwrap_or((ShardPosition::TrimHorizon, false));
            feed.shards.insert(
                shard.id,
                ShardState {
                    parent: shard.parent,
                    position,
                    iterator: None,
                    done,
                },
            );
        }
        feed.described_at = Some(Instant::now());
        // LATEST means now, not the first poll: pin those iterators at once.
        let latest: Vec<String> = feed
            .shards
            .iter()
            .filter(|(_, s)| !s.done && s.position == ShardPosition::Latest)
            .map(|(id, _)| id.clone())
            .collect();
        for id in latest {
            let iterator = feed.iterator(&id).await?;
            let state = feed.shards.get_mut(&id).expect("known shard");
            match iterator {
                Some(it) => state.iterator = Some(it),
                None => state.done = true,
            }
        }
        Ok(feed)
    }

    /// A reader of `table`'s stream on a local DynamoDB-compatible server at `endpoint` (dummy
    /// credentials, region `us-east-1`, as [`DynamoStore::local`](crate::DynamoStore::local)).
    pub async fn local(endpoint: &str, table: &str, start: StartingPosition) -> Result<Self> {
        use aws_config::BehaviorVersion;
        use aws_sdk_dynamodb::config::{Credentials, Region};
        let config = aws_config::defaults(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .credentials_provider(Credentials::new(
                "dyno-local",
                "dyno-local",
                None,
                None,
                "dyno-local",
            ))
            .endpoint_url(endpoint)
            .load()
            .await;
        let streams = aws_sdk_dynamodbstreams::Client::new(&config);
        let dynamo = aws_sdk_dynamodb::Client::new(&config);
        StreamsFeed::open(streams, &dynamo, table, start).await
    }

    /// A reader of `table`'s stream configured from the standard AWS environment (region,
    /// credentials). The endpoints are the SDK's (`AWS_ENDPOINT_URL_DYNAMODB` for DescribeTable,
    /// `AWS_ENDPOINT_URL_DYNAMODB_STREAMS` for the stream); when only the first is set (a local
    /// server, which serves both APIs on one port), the stream is read there too.
    pub async fn from_env(table: &str, start: StartingPosition) -> Result<Self> {
        let config = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
        let dynamo = aws_sdk_dynamodb::Client::new(&config);
        let mut streams = aws_sdk_dynamodbstreams::config::Builder::from(&config);
        let own = std::env::var("AWS_ENDPOINT_URL_DYNAMODB_STREAMS").ok();
        if own.as_deref().is_none_or(str::is_empty)
            && let Some(endpoint) = std::env::var("AWS_ENDPOINT_URL_DYNAMODB")
                .ok()
                .filter(|e| !e.is_empty())
        {
            streams = streams.endpoint_url(endpoint);
        }
        let streams = aws_sdk_dynamodbstreams::Client::from_conf(streams.build());
        StreamsFeed::open(streams, &dynamo, table, start).await
    }

    /// How long to wait between two rounds of `GetRecords` that found nothing (default 250 ms;
    /// DynamoDB allows about five reads per second per shard).
    #[must_use]
    pub fn with_poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// The stream's ARN.
    pub fn stream_arn(&self) -> &str {
        &self.stream_arn
    }

    /// Every shard of the stream (DescribeStream, all pages).
    async fn describe(&self) -> Result<Vec<Described>> {
        let mut out = Vec::new();
        let mut start: Option<String> = None;
        loop {
            let resp = self
                .client
                .describe_stream()
                .stream_arn(&self.stream_arn)
                .set_exclusive_start_shard_id(start.take())
                .send()
                .await
                .map_err(|e| service("DescribeStream", e))?;
            let Some(desc) = resp.stream_description() else {
                break;
            };
            for s in desc.shards() {
                let Some(id) = s.shard_id() else { continue };
                out.push(Described {
                    id: id.to_owned(),
                    parent: s.parent_shard_id().map(str::to_owned),
                });
            }
            match desc.last_evaluated_shard_id() {
                Some(last) => start = Some(last.to_owned()),
                None => break,
            }
        }
        Ok(out)
    }

    /// Learns shards created since the last description (children of a split or a closing);
    /// they start at their beginning.
    async fn refresh(&mut self) -> Result<()> {
        for shard in self.describe().await? {
            self.shards.entry(shard.id).or_insert(ShardState {
                parent: shard.parent,
                position: ShardPosition::TrimHorizon,
                iterator: None,
                done: false,
            });
        }
        self.described_at = Some(Instant::now());
        Ok(())
    }

    /// An iterator for `shard` at its position; `Ok(None)` when the shard is gone.
    async fn iterator(&mut self, shard: &str) -> Result<Option<String>> {
        let position = self.shards[shard].position.clone();
        let (kind, seq) = match &position {
            ShardPosition::TrimHorizon => (st::ShardIteratorType::TrimHorizon, None),
            ShardPosition::Latest => (st::ShardIteratorType::Latest, None),
            ShardPosition::After(s) => (
                st::ShardIteratorType::AfterSequenceNumber,
                Some(s.as_str().to_owned()),
            ),
        };
        let resp = self
            .client
            .get_shard_iterator()
            .stream_arn(&self.stream_arn)
            .shard_id(shard)
            .shard_iterator_type(kind)
            .set_sequence_number(seq)
            .send()
            .await;
        match resp {
            Ok(out) => Ok(out.shard_iterator().map(str::to_owned)),
            Err(SdkError::ServiceError(e)) => match e.err() {
                GetShardIteratorError::TrimmedDataAccessException(_) => {
                    self.pending.push(Gap::Trimmed {
                        shard: shard.to_owned(),
                    });
                    let state = self.shards.get_mut(shard).expect("known shard");
                    state.position = ShardPosition::TrimHorizon;
                    Box::pin(self.iterator(shard)).await
                }
                GetShardIteratorError::ResourceNotFoundException(_) => {
                    self.pending.push(Gap::ShardLost {
                        shard: shard.to_owned(),
                    });
                    Ok(None)
                }
                _ => Err(service("GetShardIterator", SdkError::ServiceError(e))),
            },
            Err(e) => Err(service("GetShardIterator", e)),
        }
    }

    /// One round: a `GetRecords` on every readable shard, in lineage order.
    async fn read_round(&mut self) -> Result<Vec<ChangeRecord>> {
        let mut out = Vec::new();
        let mut closed_one = false;
        for shard in readable(&self.shards) {
            if self.shards[&shard].iterator.is_none() {
                match self.iterator(&shard).await? {
                    Some(it) => self.shards.get_mut(&shard).expect("known").iterator = Some(it),
                    None => {
                        self.shards.get_mut(&shard).expect("known").done = true;
                        closed_one = true;
                        continue;
                    }
                }
            }
            let iterator = self.shards[&shard].iterator.clone().expect("set above");
            let resp = self
                .client
                .get_records()
                .shard_iterator(iterator)
                .limit(1000)
                .send()
                .await;
            let resp = match resp {
                Ok(r) => r,
                Err(SdkError::ServiceError(e)) => match e.err() {
                    GetRecordsError::ExpiredIteratorException(_) => {
                        // Renewed from the position on the next round; an iterator at LATEST
                        // that never returned a record has no position to renew from.
                        let s = self.shards.get_mut(&shard).expect("known");
                        s.iterator = None;
                        if s.position == ShardPosition::Latest {
                            s.position = ShardPosition::TrimHorizon;
                            self.pending.push(Gap::PositionLost {
                                shard: shard.clone(),
                            });
                        }
                        continue;
                    }
                    GetRecordsError::TrimmedDataAccessException(_) => {
                        self.pending.push(Gap::Trimmed {
                            shard: shard.clone(),
                        });
                        let s = self.shards.get_mut(&shard).expect("known");
                        s.iterator = None;
                        s.position = ShardPosition::TrimHorizon;
                        continue;
                    }
                    _ => return Err(service("GetRecords", SdkError::ServiceError(e))),
                },
                Err(e) => return Err(service("GetRecords", e)),
            };
            for r in resp.records() {
                let record = convert_record(&self.table, &shard, r)?;
                self.checkpoint.advance(&shard, &record.sequence);
                self.shards.get_mut(&shard).expect("known").position =
                    ShardPosition::After(record.sequence.clone());
                out.push(record);
            }
            let state = self.shards.get_mut(&shard).expect("known");
            match resp.next_shard_iterator() {
                Some(next) => state.iterator = Some(next.to_owned()),
                None => {
                    // The shard is closed and drained: its children may be read now.
                    state.iterator = None;
                    state.done = true;
                    closed_one = true;
                }
            }
        }
        let stale = self
            .described_at
            .is_none_or(|t| t.elapsed() >= REFRESH_EVERY);
        if closed_one || stale {
            self.refresh().await?;
        }
        Ok(out)
    }
}

#[async_trait]
impl ChangeFeed for StreamsFeed {
    fn table(&self) -> &str {
        &self.table
    }

    async fn poll(&mut self, wait: Duration) -> Result<FeedBatch> {
        let deadline = Instant::now() + wait;
        loop {
            let records = self.read_round().await?;
            if !records.is_empty() || !self.pending.is_empty() || Instant::now() >= deadline {
                return Ok(FeedBatch {
                    gaps: std::mem::take(&mut self.pending),
                    records,
                });
            }
            tokio::time::sleep_until(deadline.min(Instant::now() + self.poll_interval)).await;
        }
    }

    fn checkpoint(&self) -> Checkpoint {
        self.checkpoint.clone()
    }
}

/// Shards to read now, in lineage order: not finished, and whose parent is finished or unknown
/// (trimmed from the stream's description).
fn readable(shards: &BTreeMap<String, ShardState>) -> Vec<String> {
    shards
        .iter()
        .filter(|(_, s)| !s.done)
        .filter(|(_, s)| {
            s.parent
                .as_ref()
                .and_then(|p| shards.get(p))
                .is_none_or(|p| p.done)
        })
        .map(|(id, _)| id.clone())
        .collect()
}

/// A shard as DescribeStream lists it.
#[derive(Debug, Clone)]
struct Described {
    id: String,
    parent: Option<String>,
}

/// Where each listed shard starts (and whether it is already finished), and the gaps the
/// starting position implies.
fn plan_start(
    arn: &str,
    shards: &[Described],
    start: &StartingPosition,
) -> (BTreeMap<String, (ShardPosition, bool)>, Vec<Gap>) {
    let mut gaps = Vec::new();
    let plan = match start {
        StartingPosition::TrimHorizon => shards
            .iter()
            .map(|s| (s.id.clone(), (ShardPosition::TrimHorizon, false)))
            .collect(),
        // Shards with children are closed and hold only what came before now; the leaves are
        // where new records go. (Not `EndingSequenceNumber`: dynoxide sets it on open shards.)
        StartingPosition::Latest => shards
            .iter()
            .map(|s| {
                let has_children = shards.iter().any(|c| c.parent.as_ref() == Some(&s.id));
                (s.id.clone(), (ShardPosition::Latest, has_children))
            })
            .collect(),
        StartingPosition::After(c) if c.stream.as_deref() != Some(arn) => {
            gaps.push(Gap::StreamChanged {
                was: c.stream.clone(),
                now: arn.to_owned(),
            });
            plan_start(arn, shards, &StartingPosition::TrimHorizon).0
        }
        StartingPosition::After(c) => {
            for id in c.shards.keys() {
                if !shards.iter().any(|s| &s.id == id) {
                    gaps.push(Gap::ShardLost { shard: id.clone() });
                }
            }
            // A shard the checkpoint has moved past: an ancestor of one it has read from.
            let parent_of = |id: &str| {
                shards
                    .iter()
                    .find(|s| s.id == id)
                    .and_then(|s| s.parent.clone())
            };
            let mut finished = BTreeSet::new();
            for id in c.shards.keys() {
                let mut p = parent_of(id);
                while let Some(pid) = p {
                    p = parent_of(&pid);
                    finished.insert(pid);
                }
            }
            shards
                .iter()
                .map(|s| {
                    let plan = match c.shards.get(&s.id) {
                        Some(seq) => (ShardPosition::After(seq.clone()), false),
                        None if finished.contains(&s.id) => (ShardPosition::TrimHorizon, true),
                        None => (ShardPosition::TrimHorizon, false),
                    };
                    (s.id.clone(), plan)
                })
                .collect()
        }
    };
    (plan, gaps)
}

fn convert_record(table: &str, shard: &str, r: &st::Record) -> Result<ChangeRecord> {
    let malformed = |what: &str| Error::Service {
        code: None,
        message: format!("a stream record of {table} has no {what}"),
        source: None,
    };
    let d = r.dynamodb().ok_or_else(|| malformed("dynamodb field"))?;
    let kind = match r.event_name().ok_or_else(|| malformed("eventName"))? {
        st::OperationType::Insert => ChangeKind::Insert,
        st::OperationType::Modify => ChangeKind::Modify,
        st::OperationType::Remove => ChangeKind::Remove,
        other => {
            return Err(Error::Service {
                code: None,
                message: format!("a stream record of {table} has an unknown eventName {other}"),
                source: None,
            })
        }
    };
    let sequence = d
        .sequence_number()
        .ok_or_else(|| malformed("SequenceNumber"))?;
    let created_at = d
        .approximate_creation_date_time()
        .and_then(|t| {
            let secs = u64::try_from(t.secs()).ok()?;
            Some(UNIX_EPOCH + Duration::new(secs, t.subsec_nanos()))
        })
        .unwrap_or_else(SystemTime::now);
    Ok(ChangeRecord {
        table: table.to_owned(),
        shard: shard.to_owned(),
        sequence: SequenceNumber::new(sequence),
        kind,
        keys: d.keys().map(convert_item).transpose()?.unwrap_or_default(),
        old_image: d.old_image().map(convert_item).transpose()?.map(Arc::new),
        new_image: d.new_image().map(convert_item).transpose()?.map(Arc::new),
        user_identity: r.user_identity().map(|u| UserIdentity {
            kind: u.r#type().unwrap_or_default().to_owned(),
            principal_id: u.principal_id().unwrap_or_default().to_owned(),
        }),
        created_at,
    })
}

fn convert_item(item: &HashMap<String, st::AttributeValue>) -> Result<Item> {
    item.iter()
        .map(|(k, v)| Ok((k.clone(), convert_value(v)?)))
        .collect()
}

/// A Streams attribute value as the DynamoDB SDK's (the two SDKs have one type each).
fn convert_value(v: &st::AttributeValue) -> Result<AttributeValue> {
    Ok(match v {
        st::AttributeValue::S(s) => AttributeValue::S(s.clone()),
        st::AttributeValue::N(n) => AttributeValue::N(n.clone()),
        st::AttributeValue::B(b) => AttributeValue::B(b.clone()),
        st::AttributeValue::Bool(b) => AttributeValue::Bool(*b),
        st::AttributeValue::Null(n) => AttributeValue::Null(*n),
        st::AttributeValue::Ss(s) => AttributeValue::Ss(s.clone()),
        st::AttributeValue::Ns(n) => AttributeValue::Ns(n.clone()),
        st::AttributeValue::Bs(b) => AttributeValue::Bs(b.clone()),
        st::AttributeValue::L(l) => {
            AttributeValue::L(l.iter().map(convert_value).collect::<Result<_>>()?)
        }
        st::AttributeValue::M(m) => AttributeValue::M(convert_item(m)?),
        other => {
            return Err(Error::Service {
                code: None,
                message: format!(
                    "a stream record holds an attribute value of unknown type: {other:?}"
                ),
                source: None,
            })
        }
    })
}

/// A Streams (or DescribeTable) error: a missing stream or table is
/// [`Error::ResourceNotFound`], an error with no answer from the service
/// [`Error::OutcomeUnknown`] (a read changes nothing, so it can simply be retried), anything else
/// [`Error::Service`] with the service's code.
fn service<E, R>(operation: &str, e: SdkError<E, R>) -> Error
where
    E: std::error::Error + ProvideErrorMetadata + Send + Sync + 'static,
    R: std::fmt::Debug + Send + Sync + 'static,
{
    let (code, said) = match &e {
        SdkError::ServiceError(s) => (
            s.err().code().map(str::to_owned),
            s.err().message().unwrap_or_default().to_owned(),
        ),
        _ => (None, String::new()),
    };
    match code.as_deref() {
        Some("ResourceNotFoundException") => Error::ResourceNotFound {
            message: format!("{operation}: {said}"),
        },
        Some(_) => Error::Service {
            code,
            message: format!("{operation} failed: {said}"),
            source: Some(Arc::new(e)),
        },
        None => Error::OutcomeUnknown {
            message: format!("{operation} got no answer from the service"),
            source: Some(Arc::new(e)),
            write: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// root splits into left and right; left closes and continues as leaf.
    fn tree() -> Vec<Described> {
        let d = |id: &str, parent: Option<&str>| Described {
            id: id.to_owned(),
            parent: parent.map(str::to_owned),
        };
        vec![
            d("root", Some("trimmed-long-ago")),
            d("left", Some("root")),
            d("right", Some("root")),
            d("leaf", Some("left")),
        ]
    }

    fn states(plan: &BTreeMap<String, (ShardPosition, bool)>) -> BTreeMap<String, ShardState> {
        tree()
            .into_iter()
            .map(|s| {
                let (position, done) = plan[&s.id].clone();
                let state = ShardState {
                    parent: s.parent,
                    position,
                    iterator: None,
                    done,
                };
                (s.id, state)
            })
            .collect()
    }

    #[test]
    fn parents_are_read_before_their_children() {
        let (plan, gaps) = plan_start("arn", &tree(), &StartingPosition::TrimHorizon);
        assert!(gaps.is_empty());
        let mut shards = states(&plan);
        // The root's parent was trimmed away: the root is readable.
        assert_eq!(readable(&shards), ["root"]);
        shards.get_mut("root").unwrap().done = true;
        assert_eq!(
            readable(&shards),
            ["left", "right"],
            "both halves of a split"
        );
        shards.get_mut("left").unwrap().done = true;
        assert_eq!(readable(&shards), ["leaf", "right"]);
        shards.get_mut("right").unwrap().done = true;
        shards.get_mut("leaf").unwrap().done = true;
        assert!(readable(&shards).is_empty());
    }

    #[test]
    fn latest_reads_only_the_open_leaves() {
        let (plan, _) = plan_start("arn", &tree(), &StartingPosition::Latest);
        let open: Vec<&str> = plan
            .iter()
            .filter(|(_, (_, done))| !done)
            .map(|(id, _)| id.as_str())
            .collect();
        assert_eq!(open, ["leaf", "right"]);
        assert!(plan.values().all(|(p, _)| *p == ShardPosition::Latest));
        assert_eq!(readable(&states(&plan)), ["leaf", "right"]);
    }

    #[test]
    fn a_checkpoint_resumes_its_shards_skips_their_ancestors_and_reads_the_rest() {
        let seq = SequenceNumber::new("42");
        let mut checkpoint = Checkpoint::after("arn", "left", seq.clone());
        checkpoint.advance("gone", &SequenceNumber::new("7"));
        let (plan, gaps) = plan_start("arn", &tree(), &StartingPosition::After(checkpoint.clone()));
        assert_eq!(plan["left"], (ShardPosition::After(seq), false));
        assert_eq!(
            plan["root"],
            (ShardPosition::TrimHorizon, true),
            "an ancestor: finished"
        );
        assert_eq!(
            plan["right"],
            (ShardPosition::TrimHorizon, false),
            "never read: from its start"
        );
        assert_eq!(plan["leaf"], (ShardPosition::TrimHorizon, false));
        assert_eq!(
            gaps,
            [Gap::ShardLost {
                shard: "gone".into()
            }]
        );
        let (_, gaps) = plan_start("other-arn", &tree(), &StartingPosition::After(checkpoint));
        assert!(matches!(gaps.as_slice(), [Gap::StreamChanged { .. }]));
    }

    #[test]
    fn stream_values_convert_exactly() {
        let nested = st::AttributeValue::M(HashMap::from([(
            "l".to_owned(),
            st::AttributeValue::L(vec![
                st::AttributeValue::N("1.5".into()),
                st::AttributeValue::Ss(vec!["a".into()]),
                st::AttributeValue::Null(true),
            ]),
        )]));
        let want = AttributeValue::M(HashMap::from([(
            "l".to_owned(),
            AttributeValue::L(vec![
                AttributeValue::N("1.5".into()),
                AttributeValue::Ss(vec!["a".into()]),
                AttributeValue::Null(true),
            ]),
        )]));
        assert_eq!(convert_value(&nested).unwrap(), want);
    }
}
