//! `DynamoStore`: the `Store` on aws-sdk-dynamodb.
//!
//! Requests are converted in [`convert`] (expressions rendered with one set of placeholders per
//! request, item sizes checked before anything is sent) and errors mapped in [`error`]. Every call
//! runs in a `dynamodb` tracing span with OpenTelemetry's semantic conventions for DynamoDB:
//! `db.system.name = "aws.dynamodb"`, `db.operation.name`, `aws.dynamodb.table_names`,
//! `aws.dynamodb.index_name` (queries and scans of an index), `aws.dynamodb.consistent_read`,
//! `aws.dynamodb.consumed_capacity` (every request asks for `ReturnConsumedCapacity = INDEXES`: the
//! outputs carry the split between the table and its indexes, the span the total) and,
//! on failure, `error.type` (the [`Error`] variant) and `error.message`. A typed operation's
//! call is a child of its `dyno.*` span (`dyno.get`, `dyno.query`...), which carries dyno's own
//! fields: `entity` and, for queries and scans, the `index` and the operation (`op`).
//!
//! Time: every call is bounded by [`Timeouts`] (connect 3 s, attempt 10 s, whole call 30 s by
//! default; see [`DynamoStore::builder`]). A call that exceeds them fails with
//! [`Error::OutcomeUnknown`]: a server that accepts connections and never answers cannot hang a
//! caller.
//!
//! Retries: the SDK's standard retry mode stays on (3 attempts, exponential backoff with jitter,
//! for throttling, 5xx and transient transport errors). It retries a whole request; dyno's batch
//! engine retries the unprocessed part of a successful batch itself, so the two do not overlap.
//! An error that survives the SDK's attempts reaches the caller typed ([`Error::Throttled`],
//! [`Error::OutcomeUnknown`]...) for the batch engine or the application to decide. A call that
//! could not be sent at all (no credentials, no region, an endpoint that does not resolve) fails
//! with [`Error::Configuration`], which nothing retries.
//!
//! Missing tables: [`Error::ResourceNotFound`] names the table (and the index, for a query or
//! scan of one), whatever the server's message says.
//!
//! TTL: `create_table` of a definition with a TTL attribute enables TTL after the table is
//! active. Against a server without TTL (dynalite answers `UnknownOperationException`) the table is
//! still created, a warning is logged, and [`Store::describe_table`] then reports no TTL attribute;
//! an explicit [`Store::update_ttl`] on such a server fails with [`Error::Service`].

mod config;
mod convert;
mod error;

use std::future::Future;
use std::time::Duration;

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::types as sdk;
use aws_smithy_runtime_api::client::orchestrator::HttpResponse;
use tracing::field::Empty;
use tracing::{Instrument, Span};

pub use self::config::{DynamoStoreBuilder, Timeouts};
use self::error::{from_sdk, is_unsupported_code, is_unsupported_operation, OperationError};
use super::{
    BatchGetOutput, BatchGetRequest, BatchWriteOutput, BatchWriteRequest, Capacity, DeleteRequest,
    GetOutput, GetRequest, Page, PutRequest, QueryRequest, Reply, ScanRequest, Store,
    TableCapacity, TableDescription, TransactGetOutput, TransactGetRequest, TransactWriteOutput,
    TransactWriteRequest, UpdateRequest, UpdateTableRequest, WriteOutput,
};
use crate::error::{Error, Result};
use crate::table::TableDef;
use crate::value::Item;

/// How long `create_table` and `delete_table` wait for the table to become active or gone.
const TABLE_WAIT: Duration = Duration::from_secs(120);

/// The store on Amazon DynamoDB (or any server that speaks its API).
///
/// ```no_run
/// # async fn demo() -> dyno_core::Result<()> {
/// use dyno_core::{DynamoStore, Store};
/// // Region, credentials and AWS_ENDPOINT_URL_DYNAMODB from the environment; default timeouts.
/// let store = DynamoStore::from_env().await;
/// let table = store.describe_table("ECommerce").await?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct DynamoStore {
    client: aws_sdk_dynamodb::Client,
    /// The key its pagination cursors are sealed with; `None`: the process's default.
    cursor_key: Option<crate::store::CursorKey>,
}

impl DynamoStore {
    /// A store on an SDK client configured by the caller: its timeouts and retries are the
    /// caller's (the SDK sets no operation timeout by default; see [`DynamoStore::builder`] for
    /// bounded defaults). A zero time limit means no time, as in [`Timeouts`]: every call fails
    /// at once, nothing sent.
    pub fn new(client: aws_sdk_dynamodb::Client) -> Self {
        let mut config = client
            .config()
            .to_builder()
            .interceptor(config::TransmissionMarker);
        if let Some(refuse) = config::zero_timeout(client.config()) {
            config = config.interceptor(refuse);
        }
        let config = config.build();
        DynamoStore {
            client: aws_sdk_dynamodb::Client::from_conf(config),
            cursor_key: None,
        }
    }

    /// Seals this store's pagination cursors with `key` instead of the process's default (see
    /// [`CursorKey`](crate::store::CursorKey)): give every instance of a service the same key, so
    /// that a cursor minted by one is accepted by another.
    #[must_use]
    pub fn with_cursor_key(mut self, key: crate::store::CursorKey) -> Self {
        self.cursor_key = Some(key);
        self
    }

    /// A builder: endpoint, region, credentials, [`Timeouts`] and attempts, the rest from the
    /// environment.
    pub fn builder() -> DynamoStoreBuilder {
        DynamoStoreBuilder::default()
    }

    /// A store configured from the standard AWS environment (region, credentials, and
    /// `AWS_ENDPOINT_URL_DYNAMODB`), with the SDK's standard retries and the default
    /// [`Timeouts`].
    pub async fn from_env() -> Self {
        Self::builder().build().await
    }

    /// A store on a local DynamoDB-compatible server (dynalite, moto, dynoxide, DynamoDB Local)
    /// at `endpoint`, with fixed dummy credentials and region `us-east-1` whatever the
    /// environment says, so tests never pick up real credentials. Standard retries and the
    /// default [`Timeouts`], as on AWS.
    pub async fn local(endpoint: &str) -> Self {
        Self::builder()
            .endpoint(endpoint)
            .region("us-east-1")
            .static_credentials("dyno-local", "dyno-local")
            .build()
            .await
    }

    /// The SDK client, for calls the `Store` trait does not cover.
    pub fn client(&self) -> &aws_sdk_dynamodb::Client {
        &self.client
    }

    /// Polls DescribeTable until the table and its global indexes are active.
    async fn wait_until_active(&self, table: &str) -> Result<()> {
        let deadline = tokio::time::Instant::now() + TABLE_WAIT;
        let mut delay = Duration::from_millis(20);
        loop {
            let status = match call("DescribeTable", || {
                self.client.describe_table().table_name(table).send()
            })
            .await
            {
                Ok(out) => out.table.map(|t| {
                    let table_active =
                        matches!(t.table_status(), None | Some(sdk::TableStatus::Active));
                    let indexes_active = t
                        .global_secondary_indexes()
                        .iter()
                        .all(|g| matches!(g.index_status(), None | Some(sdk::IndexStatus::Active)));
                    (
                        table_active && indexes_active,
                        t.table_status().map(|s| s.as_str().to_owned()),
                    )
                }),
                // Right after CreateTable, DynamoDB may not describe the table yet.
                Err(e) => match e {
                    Error::ResourceNotFound { .. } => None,
                    other => return Err(other),
                },
            };
            if let Some((true, _)) = status {
                return Ok(());
            }
            if tokio::time::Instant::now() >= deadline {
                let found = status
                    .and_then(|s| s.1)
                    .unwrap_or_else(|| "not found".to_owned());
                return Err(Error::Service {
                    code: None,
                    message: format!(
                        "table {table} is not active after {} s (status: {found})",
                        TABLE_WAIT.as_secs()
                    ),
                    source: None,
                });
            }
            tokio::time::sleep(delay).await;
            delay = (delay * 2).min(Duration::from_millis(500));
        }
    }

    /// Polls DescribeTable until the table is gone, so its name can be reused at once.
    async fn wait_until_deleted(&self, table: &str) -> Result<()> {
        let deadline = tokio::time::Instant::now() + TABLE_WAIT;
        let mut delay = Duration::from_millis(20);
        loop {
            match call("DescribeTable", || {
                self.client.describe_table().table_name(table).send()
            })
            .await
            {
                Ok(_) => {}
                Err(e) => match e {
                    Error::ResourceNotFound { .. } => return Ok(()),
                    other => return Err(other),
                },
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(Error::Service {
                    code: None,
                    message: format!(
                        "table {table} still exists {} s after DeleteTable",
                        TABLE_WAIT.as_secs()
                    ),
                    source: None,
                });
            }
            tokio::time::sleep(delay).await;
            delay = (delay * 2).min(Duration::from_millis(500));
        }
    }

    async fn set_ttl(&self, table: &str, attribute: &str, enabled: bool) -> Result<()> {
        let spec = sdk::TimeToLiveSpecification::builder()
            .attribute_name(attribute)
            .enabled(enabled)
            .build()
            .map_err(|e| error::build_error("TimeToLiveSpecification", e))?;
        let request = self
            .client
            .update_time_to_live()
            .table_name(table)
            .time_to_live_specification(spec);
        match call("UpdateTimeToLive", || request.send()).await {
            Ok(_) => Ok(()),
            Err(e) => Err(match e {
                Error::Service { code: Some(code), source, .. } if is_unsupported_code(&code) => Error::Service {
                    code: Some(code),
                    message: format!(
                        "this server does not implement UpdateTimeToLive, so TTL cannot be {} on table {table} \
                         (dynalite has no TTL; DynamoDB and moto do)",
                        if enabled { "enabled" } else { "disabled" }
                    ),
                    source,
                },
                other => other,
            }),
        }
    }

    /// DescribeTimeToLive: the TTL attribute when TTL is enabled (or being enabled).
    async fn ttl_attribute(&self, table: &str) -> Result<Option<String>> {
        match call("DescribeTimeToLive", || {
            self.client.describe_time_to_live().table_name(table).send()
        })
        .await
        {
            Ok(out) => Ok(out.time_to_live_description.and_then(|d| {
                let on = matches!(
                    d.time_to_live_status(),
                    Some(sdk::TimeToLiveStatus::Enabled | sdk::TimeToLiveStatus::Enabling)
                );
                on.then_some(d.attribute_name).flatten()
            })),
            Err(e) => match e {
                // A server without TTL has no TTL attribute to report.
                e if is_unsupported_operation(&e) => Ok(None),
                e => Err(e),
            },
        }
    }
}

/// DynamoDB refuses a batch or transaction with nothing in it; say so, in its words, without a
/// round trip (moto answers an empty transaction with an HTTP 500).
fn empty_request(member: &str) -> Error {
    crate::store::empty_list_error(member)
}

/// What one call targets: its tables and, for a query or scan, its index. Names the missing
/// resource in [`Error::ResourceNotFound`] and fills the span.
struct Target {
    operation: &'static str,
    tables: String,
    index: Option<String>,
    consistent_read: Option<bool>,
}

impl Target {
    fn new(operation: &'static str, tables: impl Into<String>) -> Self {
        Target {
            operation,
            tables: tables.into(),
            index: None,
            consistent_read: None,
        }
    }

    fn index(mut self, index: Option<&str>) -> Self {
        self.index = index.map(str::to_owned);
        self
    }

    fn consistent(mut self, consistent_read: bool) -> Self {
        self.consistent_read = Some(consistent_read);
        self
    }

    /// The span of the call, with OpenTelemetry's DynamoDB attributes.
    fn span(&self) -> Span {
        let span = tracing::info_span!(
            "dynamodb",
            otel.kind = "client",
            db.system.name = "aws.dynamodb",
            db.operation.name = self.operation,
            aws.dynamodb.table_names = self.tables.as_str(),
            aws.dynamodb.index_name = Empty,
            aws.dynamodb.consistent_read = Empty,
            aws.dynamodb.consumed_capacity = Empty,
            error.type = Empty,
            error.message = Empty,
        );
        if let Some(index) = &self.index {
            span.record("aws.dynamodb.index_name", index.as_str());
        }
        if let Some(consistent) = self.consistent_read {
            span.record("aws.dynamodb.consistent_read", consistent);
        }
        span
    }

    /// `ResourceNotFound` says which table (or index) is missing.
    fn name_missing(&self, err: Error) -> Error {
        match err {
            Error::ResourceNotFound { message } => {
                let what = match &self.index {
                    Some(index) => format!("table {} or its index {index}", self.tables),
                    None if self.tables.contains(',') => {
                        format!("one of the tables {}", self.tables)
                    }
                    None => format!("table {}", self.tables),
                };
                Error::ResourceNotFound {
                    message: format!("{what} does not exist ({} said: {message})", self.operation),
                }
            }
            other => other,
        }
    }
}

/// Runs one SDK call, noting whether it was sent, and maps its error.
///
/// The SDK's future is boxed first, once: it is several kilobytes (the orchestrator's states),
/// and every future that holds it by value (the transmission tracking, the span, the `Store`
/// method's) would copy all of it each time it is created or moved, which cost a typed put more
/// client instructions than the SDK's request signing (the `overhead`
/// benchmark). `send` makes it straight into its box: made by the caller and handed in, it was built
/// in a stack temporary of the caller's poll (several kilobytes of frame on every poll) and then
/// copied into the box.
fn call<'a, O, E, F>(
    operation: &'static str,
    send: impl FnOnce() -> F,
) -> impl Future<Output = Result<O>> + Send + 'a
where
    F: Future<Output = std::result::Result<O, SdkError<E, HttpResponse>>> + Send + 'a,
    E: OperationError + 'a,
    O: 'a,
{
    let request = Box::into_pin(Box::write(Box::new_uninit(), send()));
    async move {
        let (result, sent) = config::track_transmission(request).await;
        result.map_err(|e| from_sdk(operation, e, sent))
    }
}

fn capacity(cc: Option<&sdk::ConsumedCapacity>) -> Option<Capacity> {
    cc.and_then(convert::capacity)
}

/// A single-item write's output (an empty returned item means none), with its capacity for the span.
fn write_output(
    attributes: Option<Item>,
    cc: Option<&sdk::ConsumedCapacity>,
) -> (WriteOutput, Option<f64>) {
    let consumed_capacity = capacity(cc);
    let units = consumed_capacity.as_ref().map(|c| c.units);
    let attributes = attributes.filter(|a| !a.is_empty());
    (
        WriteOutput {
            attributes,
            consumed_capacity,
        },
        units,
    )
}

/// A query's or scan's page, with its capacity for the span.
fn page_output(
    items: Option<Vec<Item>>,
    count: i32,
    scanned_count: i32,
    last_evaluated_key: Option<Item>,
    cc: Option<&sdk::ConsumedCapacity>,
) -> (Page, Option<f64>) {
    let consumed_capacity = capacity(cc);
    let units = consumed_capacity.as_ref().map(|c| c.units);
    let page = convert::page(
        items,
        count,
        scanned_count,
        last_evaluated_key,
        consumed_capacity,
    );
    (page, units)
}

/// The tables of a batch or transaction, for the span (`A` or `A,B`).
fn table_names<'a>(tables: impl Iterator<Item = &'a str>) -> String {
    let mut names: Vec<&str> = Vec::new();
    for t in tables {
        if !names.contains(&t) {
            names.push(t);
        }
    }
    names.join(",")
}

/// Runs one call in its span and records on it the capacity the call consumed, or its failure.
async fn traced<T>(
    target: Target,
    call: impl Future<Output = Result<(T, Option<f64>)>>,
) -> Result<T> {
    let span = target.span();
    match call.instrument(span.clone()).await {
        Ok((out, units)) => {
            if let Some(units) = units {
                span.record("aws.dynamodb.consumed_capacity", units);
            }
            Ok(out)
        }
        Err(e) => {
            let e = target.name_missing(e);
            span.record("error.type", e.kind());
            span.record("error.message", tracing::field::display(&e));
            Err(e)
        }
    }
}

impl Store for DynamoStore {
    fn cursor_key(&self) -> &crate::store::CursorKey {
        self.cursor_key
            .as_ref()
            .unwrap_or_else(|| crate::store::CursorKey::process_default())
    }

    fn get_item<'a>(&'a self, r: GetRequest<'a>) -> Reply<'a, Result<GetOutput>> {
        Reply::new(async move {
            traced(
                Target::new("GetItem", r.table.as_ref()).consistent(r.consistent_read),
                async {
                    let request = convert::get(r)?;
                    let out = call("GetItem", || request.send_with(&self.client)).await?;
                    let consumed_capacity = capacity(out.consumed_capacity.as_ref());
                    let units = consumed_capacity.as_ref().map(|c| c.units);
                    Ok((
                        GetOutput {
                            item: out.item.map(std::sync::Arc::new),
                            consumed_capacity,
                        },
                        units,
                    ))
                },
            )
            .await
        })
    }

    fn put_item(&self, r: PutRequest) -> Reply<'_, Result<WriteOutput>> {
        Reply::new(async move {
            traced(Target::new("PutItem", r.table.as_str()), async {
                let request = convert::put(r)?;
                let out = call("PutItem", || request.send_with(&self.client)).await?;
                Ok(write_output(out.attributes, out.consumed_capacity.as_ref()))
            })
            .await
        })
    }

    fn update_item(&self, r: UpdateRequest) -> Reply<'_, Result<WriteOutput>> {
        Reply::new(async move {
            traced(Target::new("UpdateItem", r.table.as_str()), async {
                let out = call("UpdateItem", || convert::update(r).send_with(&self.client)).await?;
                Ok(write_output(out.attributes, out.consumed_capacity.as_ref()))
            })
            .await
        })
    }

    fn delete_item(&self, r: DeleteRequest) -> Reply<'_, Result<WriteOutput>> {
        Reply::new(async move {
            traced(Target::new("DeleteItem", r.table.as_str()), async {
                let out = call("DeleteItem", || convert::delete(r).send_with(&self.client)).await?;
                Ok(write_output(out.attributes, out.consumed_capacity.as_ref()))
            })
            .await
        })
    }

    fn query(&self, r: QueryRequest) -> Reply<'_, Result<Page>> {
        Reply::new(async move {
            traced(
                Target::new("Query", r.table.as_str())
                    .index(r.index.as_deref())
                    .consistent(r.consistent_read),
                async {
                    let request = convert::query(r)?;
                    let out = call("Query", || request.send_with(&self.client)).await?;
                    Ok(page_output(
                        out.items,
                        out.count,
                        out.scanned_count,
                        out.last_evaluated_key,
                        out.consumed_capacity.as_ref(),
                    ))
                },
            )
            .await
        })
    }

    fn scan(&self, r: ScanRequest) -> Reply<'_, Result<Page>> {
        Reply::new(async move {
            traced(
                Target::new("Scan", r.table.as_str())
                    .index(r.index.as_deref())
                    .consistent(r.consistent_read),
                async {
                    let request = convert::scan(r)?;
                    let out = call("Scan", || request.send_with(&self.client)).await?;
                    Ok(page_output(
                        out.items,
                        out.count,
                        out.scanned_count,
                        out.last_evaluated_key,
                        out.consumed_capacity.as_ref(),
                    ))
                },
            )
            .await
        })
    }

    fn batch_get(&self, r: BatchGetRequest) -> Reply<'_, Result<BatchGetOutput>> {
        Reply::new(async move {
            let tables = table_names(r.keys.iter().map(|k| k.table.as_str()));
            traced(
                Target::new("BatchGetItem", tables).consistent(r.consistent_read),
                async {
                    if r.keys.is_empty() {
                        return Err(empty_request("requestItems"));
                    }
                    let request = convert::batch_get(r)?;
                    let out = call("BatchGetItem", || request.send_with(&self.client)).await?;
                    let cc = convert::table_capacities(out.consumed_capacity.as_deref());
                    let units = cc.as_deref().map(TableCapacity::total);
                    Ok((
                        convert::batch_get_output(out.responses, out.unprocessed_keys, cc),
                        units,
                    ))
                },
            )
            .await
        })
    }

    fn batch_write(&self, r: BatchWriteRequest) -> Reply<'_, Result<BatchWriteOutput>> {
        Reply::new(async move {
            let tables = table_names(r.writes.iter().map(|w| w.table()));
            traced(Target::new("BatchWriteItem", tables), async {
                if r.writes.is_empty() {
                    return Err(empty_request("requestItems"));
                }
                let request = convert::batch_write(r)?;
                let out = call("BatchWriteItem", || request.send_with(&self.client)).await?;
                let cc = convert::table_capacities(out.consumed_capacity.as_deref());
                let units = cc.as_deref().map(TableCapacity::total);
                Ok((
                    convert::batch_write_output(out.unprocessed_items, cc),
                    units,
                ))
            })
            .await
        })
    }

    fn transact_get(&self, r: TransactGetRequest) -> Reply<'_, Result<TransactGetOutput>> {
        Reply::new(async move {
            let tables = table_names(r.gets.iter().map(|g| g.table.as_str()));
            traced(Target::new("TransactGetItems", tables), async {
                if r.gets.is_empty() {
                    return Err(empty_request("transactItems"));
                }
                let expected = r.gets.len();
                let request = convert::transact_get(r)?;
                let out = call("TransactGetItems", || request.send_with(&self.client)).await?;
                let cc = convert::table_capacities(out.consumed_capacity.as_deref());
                let units = cc.as_deref().map(TableCapacity::total);
                let items: Vec<_> = out
                    .responses
                    .unwrap_or_default()
                    .into_iter()
                    // An absent item comes back as an empty response (every item has its key).
                    .map(|r| r.item.filter(|i| !i.is_empty()).map(std::sync::Arc::new))
                    .collect();
                if items.len() != expected {
                    return Err(Error::Service {
                        code: None,
                        message: format!(
                            "TransactGetItems returned {} responses for {expected} reads",
                            items.len()
                        ),
                        source: None,
                    });
                }
                Ok((
                    TransactGetOutput {
                        items,
                        consumed_capacity: cc,
                    },
                    units,
                ))
            })
            .await
        })
    }

    fn transact_write(&self, r: TransactWriteRequest) -> Reply<'_, Result<TransactWriteOutput>> {
        Reply::new(async move {
            let tables = table_names(r.actions.iter().map(|a| a.table()));
            traced(Target::new("TransactWriteItems", tables), async {
                if r.actions.is_empty() {
                    return Err(empty_request("transactItems"));
                }
                let request = convert::transact_write(r)?;
                let out = call("TransactWriteItems", || request.send_with(&self.client)).await?;
                let cc = convert::table_capacities(out.consumed_capacity.as_deref());
                let units = cc.as_deref().map(TableCapacity::total);
                Ok((
                    TransactWriteOutput {
                        consumed_capacity: cc,
                    },
                    units,
                ))
            })
            .await
        })
    }

    fn create_table<'a>(&'a self, definition: &'a TableDef) -> Reply<'a, Result<()>> {
        Reply::new(async move {
            traced(Target::new("CreateTable", definition.name.as_str()), async {
                let request = convert::create_table(definition)?;
                call("CreateTable", || request.send_with(&self.client))
                .await?;
                self.wait_until_active(&definition.name).await?;
                if let Some(attribute) = &definition.ttl_attribute {
                    match self.set_ttl(&definition.name, attribute, true).await {
                        Err(e) if is_unsupported_operation(&e) => tracing::warn!(
                            table = %definition.name,
                            ttl_attribute = %attribute,
                            "table created without TTL: this server does not implement UpdateTimeToLive"
                        ),
                        other => other?,
                    }
                }
                Ok(((), None))
            })
            .await
        })
    }

    fn delete_table<'a>(&'a self, name: &'a str) -> Reply<'a, Result<()>> {
        Reply::new(async move {
            traced(Target::new("DeleteTable", name), async {
                call("DeleteTable", || {
                    self.client.delete_table().table_name(name).send()
                })
                .await?;
                self.wait_until_deleted(name).await.map(|()| ((), None))
            })
            .await
        })
    }

    fn describe_table<'a>(&'a self, name: &'a str) -> Reply<'a, Result<TableDescription>> {
        Reply::new(async move {
            traced(Target::new("DescribeTable", name), async {
                let out = call("DescribeTable", || {
                    self.client.describe_table().table_name(name).send()
                })
                .await?;
                let table = out.table.ok_or_else(|| Error::Service {
                    code: None,
                    message: format!("DescribeTable of {name} returned no table"),
                    source: None,
                })?;
                let ttl = self.ttl_attribute(name).await?;
                let description = TableDescription {
                    definition: convert::table_def(&table, ttl)?,
                    item_count: table.item_count.and_then(|c| u64::try_from(c).ok()),
                    index_status: convert::index_status(&table),
                };
                Ok((description, None))
            })
            .await
        })
    }

    fn update_table(&self, request: UpdateTableRequest) -> Reply<'_, Result<TableDescription>> {
        Reply::new(async move {
            traced(Target::new("UpdateTable", request.table.as_str()), async {
                let update = convert::update_table(&request)?;
                let out = call("UpdateTable", || update.send_with(&self.client)).await?;
                let table = out.table_description.ok_or_else(|| Error::Service {
                    code: None,
                    message: format!("UpdateTable of {} returned no table", request.table),
                    source: None,
                })?;
                let ttl = self.ttl_attribute(&request.table).await?;
                let description = TableDescription {
                    definition: convert::table_def(&table, ttl)?,
                    item_count: table.item_count.and_then(|c| u64::try_from(c).ok()),
                    index_status: convert::index_status(&table),
                };
                Ok((description, None))
            })
            .await
        })
    }

    fn update_ttl<'a>(
        &'a self,
        table: &'a str,
        attribute: &'a str,
        enabled: bool,
    ) -> Reply<'a, Result<()>> {
        Reply::new(async move {
            traced(Target::new("UpdateTimeToLive", table), async {
                self.set_ttl(table, attribute, enabled)
                    .await
                    .map(|()| ((), None))
            })
            .await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::ReturnValues;
    use crate::value::AttributeValue;

    fn put_request() -> PutRequest {
        PutRequest {
            table: "T".into(),
            item: Item::new(),
            condition: None,
            return_values: ReturnValues::None,
            return_old_on_condition_failure: false,
        }
    }

    /// The SDK's future is several kilobytes: a `DynamoStore` call boxes it once instead of
    /// holding it by value in each of its own futures, each of which would copy it whenever it
    /// is created or moved (a typed put spent more client instructions in those copies than in
    /// signing its request). Nothing is sent: the futures are built, measured and dropped.
    #[tokio::test]
    async fn calls_hold_the_sdk_future_boxed() {
        let store = DynamoStore::local("http://127.0.0.1:9").await;
        let sdk = convert::put(put_request())
            .unwrap()
            .send_with(&store.client);
        let sdk_size = std::mem::size_of_val(&sdk);
        drop(sdk);
        let one = call("PutItem", || {
            convert::put(put_request())
                .unwrap()
                .send_with(&store.client)
        });
        assert!(
            std::mem::size_of_val(&one) < 256,
            "call holds {} bytes (the SDK's future: {sdk_size})",
            std::mem::size_of_val(&one)
        );
        drop(one);
        let put = store.put_item(put_request());
        let get = store.get_item(GetRequest::new("T", Item::new()));
        let query = store.query(QueryRequest::new(
            "T",
            None,
            crate::expr::KeyCondition::partition("P", AttributeValue::S("p".into())),
        ));
        for (what, size) in [
            ("put_item", put.boxed_size().unwrap()),
            ("get_item", get.boxed_size().unwrap()),
            ("query", query.boxed_size().unwrap()),
        ] {
            assert!(
                size < sdk_size,
                "{what}'s future is {size} bytes, the SDK's {sdk_size}: it holds the SDK's future by value"
            );
        }
    }
}
