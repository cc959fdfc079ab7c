//! `DynamoStore`: the `Store` on aws-sdk-dynamodb.

use async_trait::async_trait;
use aws_config::BehaviorVersion;
use aws_sdk_dynamodb::config::{Credentials, Region};

use super::{
    BatchGetOutput, BatchGetRequest, BatchWriteOutput, BatchWriteRequest, DeleteRequest, GetOutput, GetRequest, Page,
    PutRequest, QueryRequest, ScanRequest, Store, TableDescription, TransactGetOutput, TransactGetRequest,
    TransactWriteRequest, UpdateRequest, WriteOutput,
};
use crate::error::{Error, Result};
use crate::table::TableDef;

/// The store on Amazon DynamoDB (or any server that speaks its API).
#[derive(Debug, Clone)]
pub struct DynamoStore {
    client: aws_sdk_dynamodb::Client,
}

impl DynamoStore {
    /// A store on an SDK client configured by the caller.
    pub fn new(client: aws_sdk_dynamodb::Client) -> Self {
        DynamoStore { client }
    }

    /// A store configured from the standard AWS environment (region, credentials, and
    /// `AWS_ENDPOINT_URL_DYNAMODB`).
    pub async fn from_env() -> Self {
        let config = aws_config::load_defaults(BehaviorVersion::latest()).await;
        Self::new(aws_sdk_dynamodb::Client::new(&config))
    }

    /// A store on a local DynamoDB-compatible server (dynalite, moto, DynamoDB Local) at
    /// `endpoint`, with fixed dummy credentials and region `us-east-1`, whatever the environment.
    pub async fn local(endpoint: &str) -> Self {
        let config = aws_config::defaults(BehaviorVersion::latest())
            .region(Region::new("us-east-1"))
            .credentials_provider(Credentials::new("dyno-local", "dyno-local", None, None, "dyno-local"))
            .endpoint_url(endpoint)
            .load()
            .await;
        Self::new(aws_sdk_dynamodb::Client::new(&config))
    }

    /// The SDK client, for calls the `Store` trait does not cover.
    pub fn client(&self) -> &aws_sdk_dynamodb::Client {
        &self.client
    }
}

fn pending(op: &str) -> Error {
    Error::Service { code: None, message: format!("DynamoStore::{op} is not implemented yet"), source: None }
}

#[async_trait]
impl Store for DynamoStore {
    async fn get_item(&self, _r: GetRequest) -> Result<GetOutput> {
        Err(pending("get_item"))
    }
    async fn put_item(&self, _r: PutRequest) -> Result<WriteOutput> {
        Err(pending("put_item"))
    }
    async fn update_item(&self, _r: UpdateRequest) -> Result<WriteOutput> {
        Err(pending("update_item"))
    }
    async fn delete_item(&self, _r: DeleteRequest) -> Result<WriteOutput> {
        Err(pending("delete_item"))
    }
    async fn query(&self, _r: QueryRequest) -> Result<Page> {
        Err(pending("query"))
    }
    async fn scan(&self, _r: ScanRequest) -> Result<Page> {
        Err(pending("scan"))
    }
    async fn batch_get(&self, _r: BatchGetRequest) -> Result<BatchGetOutput> {
        Err(pending("batch_get"))
    }
    async fn batch_write(&self, _r: BatchWriteRequest) -> Result<BatchWriteOutput> {
        Err(pending("batch_write"))
    }
    async fn transact_get(&self, _r: TransactGetRequest) -> Result<TransactGetOutput> {
        Err(pending("transact_get"))
    }
    async fn transact_write(&self, _r: TransactWriteRequest) -> Result<()> {
        Err(pending("transact_write"))
    }
    async fn create_table(&self, _d: &TableDef) -> Result<()> {
        Err(pending("create_table"))
    }
    async fn delete_table(&self, _n: &str) -> Result<()> {
        Err(pending("delete_table"))
    }
    async fn describe_table(&self, _n: &str) -> Result<TableDescription> {
        Err(pending("describe_table"))
    }
    async fn update_ttl(&self, _t: &str, _a: &str, _e: bool) -> Result<()> {
        Err(pending("update_ttl"))
    }
}
