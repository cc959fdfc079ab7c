//! `DynamoStore`: the `Store` on aws-sdk-dynamodb.

/// The store on Amazon DynamoDB (or any server that speaks its API).
#[derive(Debug, Clone)]
pub struct DynamoStore {
    client: aws_sdk_dynamodb::Client,
}
