//! A scripted DynamoDB Streams endpoint on loopback: the JSON protocol (`X-Amz-Target`
//! `DynamoDB_20120810.DescribeTable`, `DynamoDBStreams_20120810.DescribeStream`,
//! `GetShardIterator`, `GetRecords`) over HTTP/1.1, serving a stream whose shards the test lays
//! out (parents, closings, records appended later, an iterator that expires), and logging every
//! call so the test can check the order in which the reader visited the shards.
//!
//! The servers at hand (dynoxide, moto) have one shard per stream and never split or expire an
//! iterator: this is how `StreamsFeed`'s lineage handling meets the real SDK and wire format.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, MutexGuard};

use dyno_tests::proxy::read_request;
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

pub const TABLE: &str = "Lineage";
pub const ARN: &str = "arn:aws:dynamodb:us-east-1:000000000000:table/Lineage/stream/fake";

/// One shard as the script lays it out.
#[derive(Debug, Default)]
pub struct Shard {
    pub parent: Option<String>,
    /// Sequence number and the record's JSON.
    pub records: Vec<(u64, Value)>,
    /// Closed: a reader at its end gets no next iterator.
    pub closed: bool,
    /// Listed by DescribeStream only once this shard has been read to its end (a child that
    /// appears when its parent closes).
    pub listed_after: Option<String>,
}

/// A call the server answered: operation and shard (for GetShardIterator, the iterator type and
/// sequence number too).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    pub op: String,
    pub shard: String,
    pub detail: String,
}

#[derive(Debug, Default)]
pub struct Script {
    pub shards: BTreeMap<String, Shard>,
    /// Shards whose next GetRecords answers ExpiredIteratorException (once).
    pub expire_next: BTreeSet<String>,
    /// Shards a reader has read to their end (closed and drained).
    pub drained: BTreeSet<String>,
    pub calls: Vec<Call>,
}

impl Script {
    /// A record of the item `id` at sequence `seq` with `v` in its new image.
    pub fn record(seq: u64, event: &str, id: &str, v: u64) -> (u64, Value) {
        let keys = json!({"PK": {"S": id}});
        let image = json!({"PK": {"S": id}, "v": {"N": v.to_string()}});
        let mut dynamodb = json!({
            "ApproximateCreationDateTime": 1_700_000_000.0 + seq as f64,
            "Keys": keys,
            "SequenceNumber": seq.to_string(),
            "SizeBytes": 20,
            "StreamViewType": "NEW_IMAGE",
        });
        if event != "REMOVE" {
            dynamodb["NewImage"] = image;
        }
        let record = json!({
            "eventID": format!("e{seq}"),
            "eventName": event,
            "eventVersion": "1.1",
            "eventSource": "aws:dynamodb",
            "awsRegion": "us-east-1",
            "dynamodb": dynamodb,
        });
        (seq, record)
    }
}

/// The running server; dropping it stops accepting connections.
pub struct FakeStreams {
    pub endpoint: String,
    script: Arc<Mutex<Script>>,
    task: JoinHandle<()>,
}

impl Drop for FakeStreams {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl FakeStreams {
    pub async fn start(script: Script) -> FakeStreams {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let endpoint = format!("http://{}", listener.local_addr().unwrap());
        let script = Arc::new(Mutex::new(script));
        let task = tokio::spawn({
            let script = script.clone();
            async move {
                while let Ok((socket, _)) = listener.accept().await {
                    tokio::spawn(serve(socket, script.clone()));
                }
            }
        });
        FakeStreams {
            endpoint,
            script,
            task,
        }
    }

    pub fn script(&self) -> MutexGuard<'_, Script> {
        self.script.lock().unwrap_or_else(|e| e.into_inner())
    }
}

async fn serve(mut socket: TcpStream, script: Arc<Mutex<Script>>) {
    while let Ok(Some(request)) = read_request(&mut socket).await {
        let target = request.header("x-amz-target").unwrap_or_default();
        let op = target.rsplit('.').next().unwrap_or_default().to_owned();
        let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
        let (status, answer) = {
            let mut script = script.lock().unwrap_or_else(|e| e.into_inner());
            answer(&mut script, &op, &body)
        };
        let text = answer.to_string();
        let response = format!(
            "HTTP/1.1 {status} {}\r\nContent-Type: application/x-amz-json-1.0\r\n\
             x-amzn-RequestId: fake\r\nContent-Length: {}\r\n\r\n{text}",
            if status == 200 { "OK" } else { "Bad Request" },
            text.len()
        );
        if socket.write_all(response.as_bytes()).await.is_err() {
            return;
        }
    }
}

fn error(code: &str) -> (u16, Value) {
    (
        400,
        json!({"__type": format!("com.amazonaws.dynamodb.v20120810#{code}"), "message": code}),
    )
}

fn answer(script: &mut Script, op: &str, body: &Value) -> (u16, Value) {
    let str_of = |name: &str| body[name].as_str().unwrap_or_default().to_owned();
    match op {
        "DescribeTable" => (
            200,
            json!({"Table": {
                "TableName": TABLE,
                "TableStatus": "ACTIVE",
                "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_IMAGE"},
                "LatestStreamArn": ARN,
            }}),
        ),
        "DescribeStream" => {
            script.calls.push(Call {
                op: op.into(),
                shard: String::new(),
                detail: String::new(),
            });
            let shards: Vec<Value> = script
                .shards
                .iter()
                .filter(|(_, s)| {
                    s.listed_after
                        .as_ref()
                        .is_none_or(|p| script.drained.contains(p))
                })
                .map(|(id, s)| {
                    let mut v = json!({"ShardId": id, "SequenceNumberRange": {}});
                    if let Some(p) = &s.parent {
                        v["ParentShardId"] = json!(p);
                    }
                    v
                })
                .collect();
            (
                200,
                json!({"StreamDescription": {
                    "StreamArn": ARN,
                    "StreamStatus": "ENABLED",
                    "StreamViewType": "NEW_IMAGE",
                    "TableName": TABLE,
                    "Shards": shards,
                }}),
            )
        }
        "GetShardIterator" => {
            let shard = str_of("ShardId");
            let kind = str_of("ShardIteratorType");
            let seq = str_of("SequenceNumber");
            script.calls.push(Call {
                op: op.into(),
                shard: shard.clone(),
                detail: format!("{kind} {seq}").trim().to_owned(),
            });
            let Some(s) = script.shards.get(&shard) else {
                return error("ResourceNotFoundException");
            };
            let index = match kind.as_str() {
                "TRIM_HORIZON" => 0,
                "LATEST" => s.records.len(),
                "AFTER_SEQUENCE_NUMBER" => {
                    let seq: u64 = seq.parse().unwrap_or(0);
                    s.records.iter().take_while(|(n, _)| *n <= seq).count()
                }
                _ => return error("ValidationException"),
            };
            (200, json!({"ShardIterator": format!("{shard}|{index}")}))
        }
        "GetRecords" => {
            let iterator = str_of("ShardIterator");
            let (shard, index) = iterator.split_once('|').unwrap_or_default();
            let (shard, index) = (shard.to_owned(), index.parse::<usize>().unwrap_or(0));
            script.calls.push(Call {
                op: op.into(),
                shard: shard.clone(),
                detail: index.to_string(),
            });
            if script.expire_next.remove(&shard) {
                return error("ExpiredIteratorException");
            }
            let Some(s) = script.shards.get(&shard) else {
                return error("ResourceNotFoundException");
            };
            let records: Vec<Value> = s.records[index.min(s.records.len())..]
                .iter()
                .map(|(_, r)| r.clone())
                .collect();
            let end = s.records.len();
            let mut out = json!({"Records": records});
            if s.closed {
                script.drained.insert(shard.clone());
            } else {
                out["NextShardIterator"] = json!(format!("{shard}|{end}"));
            }
            (200, out)
        }
        _ => error("UnknownOperationException"),
    }
}
