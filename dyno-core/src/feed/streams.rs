//! DynamoDB Streams through `aws-sdk-dynamodbstreams`: [`StreamsFeed`].
//!
//! A stream is a tree of shards: a shard closes (after about four hours, or when its partition
//! splits) and one or two children continue it. Records of one item are ordered within a shard,
//! and a child's records come after its parent's, so a reader that mirrors the table must finish a
//! parent before reading its children. The feed keeps every known shard with its position,
//! reads the shards whose parent is finished (or gone), describes the stream again when a shard
//! closes (and every few seconds) to find new children, and renews an iterator that expired
//! (they last 15 minutes) from the last sequence number it fetched.
//!
//! Nothing fetched is lost: records a `GetRecords` answer carried go into the feed's buffer at
//! once (in the same step that moves the shard's iterator past them), and leave it only when a
//! poll returns them; the checkpoint moves then, past exactly the records returned. A round
//! that fails after fetching (a throttled `DescribeStream`, a `GetRecords` on another shard) or
//! a poll cancelled at any await keeps the buffer for the next poll.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
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
use crate::timeouts::Timeouts;
use crate::value::{AttributeValue, Item};

/// How often the shard list is described again while no shard closes (new shards appear when
/// a partition splits).
const REFRESH_EVERY: Duration = Duration::from_secs(5);

/// Most records one `GetRecords` returns (DynamoDB's limit).
const PAGE: i32 = 1000;

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
    /// The newest sequence number fetched from the shard (never moves back, even when the
    /// position does after a trim): records at or before it are not fetched twice.
    fetched: Option<SequenceNumber>,
    /// The service said the shard does not exist: the next description decides (gone: a gap;
    /// still listed: read on from the position).
    unsure: bool,
    /// Read to its end (closed and drained), or lost: never read again.
    done: bool,
}

impl ShardState {
    fn new(parent: Option<String>, position: ShardPosition, done: bool) -> Self {
        ShardState {
            parent,
            position,
            iterator: None,
            fetched: None,
            unsure: false,
            done,
        }
    }
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
/// checkpoint is another stream's.
///
/// Each record is returned once: fetched records wait in a buffer until a poll returns them,
/// and the checkpoint moves past exactly the records returned, so a failed round or a poll
/// dropped before it completes loses nothing (`poll` is cancel safe). Resuming from a
/// checkpoint is at least once: a shard that had returned no record when the checkpoint was
/// taken is read again from its start.
///
/// Every call is bounded in time ([`StreamsFeed::DEFAULT_TIMEOUTS`], or
/// [`StreamsFeed::with_timeouts`]): a request the service never answers fails like any other
/// error, and the poll returns it (what it fetched before stays buffered).
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
    /// The position after the records returned.
    checkpoint: Checkpoint,
    /// Records fetched and not yet returned, in the order they are to be returned.
    ready: VecDeque<ChangeRecord>,
    pending: Vec<Gap>,
    /// When the shard list was last described.
    described_at: Option<Instant>,
    /// A shard closed since the last description: its children are to be learned.
    describe_due: bool,
    /// The last round's `GetRecords` on some shard returned a full page.
    more: bool,
    poll_interval: Duration,
    /// How often the shard list is described while no shard closes.
    describe_every: Duration,
}

impl StreamsFeed {
    /// The time limits [`StreamsFeed::open`] gives a client that sets no operation timeout: 3 s
    /// to connect, 2 s per attempt, 6 s per call with its retries. A `GetRecords` answers in
    /// milliseconds; a stalled one is retried within 2 s and fails within 6.
    pub const DEFAULT_TIMEOUTS: Timeouts = Timeouts {
        connect: Duration::from_secs(3),
        attempt: Duration::from_secs(2),
        operation: Duration::from_secs(6),
    };

    /// A reader of `table`'s latest stream, found with DescribeTable through `dynamo` and read
    /// through `streams`. Fails when the table has no stream enabled. A `streams` client
    /// without an operation timeout gets [`StreamsFeed::DEFAULT_TIMEOUTS`].
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
        let unbounded = streams
            .config()
            .timeout_config()
            .is_none_or(|t| t.operation_timeout().is_none());
        let streams = if unbounded {
            bounded(&streams, StreamsFeed::DEFAULT_TIMEOUTS)
        } else {
            streams
        };
        let mut feed = StreamsFeed {
            client: streams,
            table: table.to_owned(),
            stream_arn: arn.clone(),
            shards: BTreeMap::new(),
            checkpoint: Checkpoint {
                stream: Some(arn.clone()),
                ..Checkpoint::default()
            },
            ready: VecDeque::new(),
            pending: Vec::new(),
            described_at: None,
            describe_due: false,
            more: false,
            poll_interval: Duration::from_millis(250),
            describe_every: REFRESH_EVERY,
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
            feed.shards
                .insert(shard.id, ShardState::new(shard.parent, position, done));
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
                None if !state.unsure => state.done = true,
                None => {}
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

    /// How often the shard list is described again while no shard closes, to learn the
    /// children of a split (default 5 s).
    #[must_use]
    pub fn with_describe_interval(mut self, interval: Duration) -> Self {
        self.describe_every = interval;
        self
    }

    /// Replaces the time limits of every call the feed makes (default
    /// [`StreamsFeed::DEFAULT_TIMEOUTS`]): a call past `operation` fails with
    /// [`Error::OutcomeUnknown`], which the poll returns (a follower retries it with a backoff).
    #[must_use]
    pub fn with_timeouts(mut self, timeouts: Timeouts) -> Self {
        self.client = bounded(&self.client, timeouts);
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
        let described = self.describe().await?;
        for state in self.shards.iter_mut().filter(|(_, s)| s.unsure) {
            let (id, state) = state;
            state.unsure = false;
            if !described.iter().any(|d| d.id == *id) {
                state.done = true;
                self.pending.push(Gap::ShardLost { shard: id.clone() });
            }
        }
        for shard in described {
            self.shards.entry(shard.id).or_insert_with(|| {
                ShardState::new(shard.parent, ShardPosition::TrimHorizon, false)
            });
        }
        self.described_at = Some(Instant::now());
        self.describe_due = false;
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
                    // Gone for good only if the next description no longer lists it.
                    self.shards.get_mut(shard).expect("known shard").unsure = true;
                    self.describe_due = true;
                    Ok(None)
                }
                _ => Err(service("GetShardIterator", SdkError::ServiceError(e))),
            },
            Err(e) => Err(service("GetShardIterator", e)),
        }
    }

    /// One round: a `GetRecords` on every readable shard, in lineage order, each answer's
    /// records buffered (and the shard's iterator moved past them) as soon as it arrives; then
    /// the shard list described again when a shard closed or the last description is old.
    /// An error leaves every record fetched before it in the buffer.
    async fn read_round(&mut self) -> Result<()> {
        let mut more = false;
        for shard in readable(&self.shards) {
            if self.shards[&shard].iterator.is_none() {
                match self.iterator(&shard).await? {
                    Some(it) => self.shards.get_mut(&shard).expect("known").iterator = Some(it),
                    None => {
                        let state = self.shards.get_mut(&shard).expect("known");
                        if !state.unsure {
                            // No iterator: the shard is closed and was read to its end.
                            state.done = true;
                        }
                        self.describe_due = true;
                        continue;
                    }
                }
            }
            let iterator = self.shards[&shard].iterator.clone().expect("set above");
            let resp = self
                .client
                .get_records()
                .shard_iterator(iterator)
                .limit(PAGE)
                .send()
                .await;
            // From here to the end of the iteration nothing awaits: the answer's records and
            // the shard's next iterator are taken together, or not at all.
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
                    GetRecordsError::ResourceNotFoundException(_) => {
                        // Gone for good only if the next description no longer lists it (the
                        // stream is gone if describing it fails so).
                        let s = self.shards.get_mut(&shard).expect("known");
                        s.iterator = None;
                        s.unsure = true;
                        self.describe_due = true;
                        continue;
                    }
                    _ => return Err(service("GetRecords", SdkError::ServiceError(e))),
                },
                Err(e) => return Err(service("GetRecords", e)),
            };
            let records = resp
                .records()
                .iter()
                .map(|r| convert_record(&self.table, &shard, r))
                .collect::<Result<Vec<_>>>()?;
            more |= records.len() >= PAGE as usize;
            let state = self.shards.get_mut(&shard).expect("known");
            for record in records {
                if state
                    .fetched
                    .as_ref()
                    .is_some_and(|f| record.sequence <= *f)
                {
                    // Read again after the position moved back (a trim): returned already.
                    continue;
                }
                state.fetched = Some(record.sequence.clone());
                state.position = ShardPosition::After(record.sequence.clone());
                self.ready.push_back(record);
            }
            match resp.next_shard_iterator() {
                Some(next) => state.iterator = Some(next.to_owned()),
                None => {
                    // The shard is closed and drained: its children may be read now.
                    state.iterator = None;
                    state.done = true;
                    self.describe_due = true;
                }
            }
        }
        self.more = more;
        let stale = self
            .described_at
            .is_none_or(|t| t.elapsed() >= self.describe_every);
        // The records fetched stay buffered if the description fails. A periodic one is tried
        // again after the interval (the shards known are still read meanwhile); one a closed
        // shard needs, on the next round.
        if (self.describe_due || stale)
            && let Err(e) = self.refresh().await
        {
            self.described_at = Some(Instant::now());
            return Err(e);
        }
        Ok(())
    }

    /// Returns what is buffered and the gaps met, moving the checkpoint past those records.
    fn hand_out(&mut self) -> FeedBatch {
        let records: Vec<ChangeRecord> = self.ready.drain(..).collect();
        for r in &records {
            self.checkpoint.advance(&r.shard, &r.sequence);
        }
        FeedBatch {
            gaps: std::mem::take(&mut self.pending),
            records,
            more: self.more,
        }
    }

    fn has_news(&self) -> bool {
        !self.ready.is_empty() || !self.pending.is_empty()
    }
}

/// `client` with `timeouts` on every call.
fn bounded(
    client: &aws_sdk_dynamodbstreams::Client,
    timeouts: Timeouts,
) -> aws_sdk_dynamodbstreams::Client {
    let config = aws_smithy_types::timeout::TimeoutConfig::builder()
        .connect_timeout(timeouts.connect)
        .read_timeout(timeouts.attempt)
        .operation_attempt_timeout(timeouts.attempt)
        .operation_timeout(timeouts.operation)
        .build();
    let conf = client.config().to_builder().timeout_config(config).build();
    aws_sdk_dynamodbstreams::Client::from_conf(conf)
}

#[async_trait]
impl ChangeFeed for StreamsFeed {
    fn table(&self) -> &str {
        &self.table
    }

    /// Cancel safe: every await is a single service call whose answer is taken whole in the
    /// step after it, and the buffer is handed out without awaiting.
    async fn poll(&mut self, wait: Duration) -> Result<FeedBatch> {
        let deadline = Instant::now() + wait;
        loop {
            if self.has_news() {
                return Ok(self.hand_out());
            }
            if let Err(e) = self.read_round().await {
                if self.has_news() {
                    // Returned now; the failing call is retried by the next poll.
                    return Ok(self.hand_out());
                }
                return Err(e);
            }
            if self.has_news() || Instant::now() >= deadline {
                return Ok(self.hand_out());
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
        .filter(|(_, s)| !s.done && !s.unsure)
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
                let state = ShardState::new(s.parent, position, done);
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
