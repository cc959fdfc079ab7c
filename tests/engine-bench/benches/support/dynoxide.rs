//! dynoxide embedded, as the store and scale benchmarks drive it: requests read from DynamoDB's
//! JSON, and the order table both create (string keys, one GSI projecting everything).

use dyno_core::{AttributeValue, Item};

/// An item in DynamoDB's JSON (what dynoxide's requests are read from).
pub fn wire(item: &Item) -> serde_json::Value {
    item.iter()
        .map(|(k, v)| {
            let v = match v {
                AttributeValue::S(x) => serde_json::json!({ "S": x }),
                AttributeValue::N(x) => serde_json::json!({ "N": x }),
                other => unreachable!("the bench items hold S and N only, found {other:?}"),
            };
            (k.clone(), v)
        })
        .collect::<serde_json::Map<_, _>>()
        .into()
}

/// A dynoxide request from its JSON.
pub fn request<T: serde::de::DeserializeOwned>(json: serde_json::Value) -> T {
    serde_json::from_value(json).expect("a valid dynoxide request")
}

/// Creates the order table `name`: PK and SK strings, GSI1 (GSI1PK, GSI1SK) projecting all.
pub fn create_table(db: &dynoxide::Database, name: &str) {
    db.create_table(request(serde_json::json!({
        "TableName": name,
        "KeySchema": [
            {"AttributeName": "PK", "KeyType": "HASH"},
            {"AttributeName": "SK", "KeyType": "RANGE"}
        ],
        "AttributeDefinitions": [
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": "S"},
            {"AttributeName": "GSI1PK", "AttributeType": "S"},
            {"AttributeName": "GSI1SK", "AttributeType": "S"}
        ],
        "GlobalSecondaryIndexes": [{
            "IndexName": "GSI1",
            "KeySchema": [
                {"AttributeName": "GSI1PK", "KeyType": "HASH"},
                {"AttributeName": "GSI1SK", "KeyType": "RANGE"}
            ],
            "Projection": {"ProjectionType": "ALL"}
        }],
        "BillingMode": "PAY_PER_REQUEST"
    })))
    .expect("create dynoxide table");
}
