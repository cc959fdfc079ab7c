//! Regression tests of hangs and misleading errors: every wait is bounded, every
//! failure says what happened.
//!
//! Each test is bounded with `tokio::time::timeout`, so a regression fails instead of hanging.
//! The transport tests need no DynamoDB server: a silent endpoint is a loopback listener that
//! accepts connections and never answers, a dead server is a loopback port nobody listens on.

use std::time::{Duration, Instant};

use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use dyno_core::ops::{BatchWriter, RetryPolicy};
use dyno_core::store::{GetRequest, PutRequest, QueryRequest, Timeouts};
use dyno_core::{AttributeValue, DynamoStore, Error, Item, Store};
use dyno_tests::backend::{backends, unique_table_name};
use dyno_tests::model::Product;
use tokio::net::TcpListener;
use tokio::time::timeout;

fn product(i: usize) -> Product {
    Product {
        product_id: format!("p{i:05}"),
        name: format!("product {i}"),
        category: format!("c{}", i % 10),
        price_cents: i as u32,
        stock: 1,
    }
}

fn key(pk: &str) -> Item {
    Item::from([
        ("PK".to_owned(), AttributeValue::S(pk.to_owned())),
        ("SK".to_owned(), AttributeValue::S("x".to_owned())),
    ])
}

/// A loopback endpoint that accepts TCP connections and never answers (a wedged server or a
/// firewall that swallows packets after the handshake). Connections are held open until the
/// listener task is dropped with the runtime.
async fn silent_endpoint() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    format!("http://{addr}")
}

/// A loopback endpoint where nothing listens (a server that was killed): connections are refused.
async fn dead_endpoint() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    format!("http://{addr}")
}

/// `DynamoStore::local` against a silent endpoint: before the fix this had not returned after 92 s.
/// Now the default operation timeout (30 s) bounds it and the outcome is reported as unknown.
#[tokio::test]
async fn local_store_on_a_silent_endpoint_fails_within_the_default_operation_timeout() {
    let store = DynamoStore::local(&silent_endpoint().await).await;
    let started = Instant::now();
    let result = timeout(
        Duration::from_secs(45),
        store.get_item(GetRequest::new("T".to_owned(), key("a"))),
    )
    .await
    .expect("get_item on a silent endpoint did not return within 45 s");
    let err = result.expect_err("a silent endpoint cannot answer");
    assert!(err.is_outcome_unknown(), "{err:?}");
    eprintln!(
        "silent endpoint, DynamoStore::local: failed after {:?}",
        started.elapsed()
    );
    assert!(
        started.elapsed() < Duration::from_secs(40),
        "{:?}",
        started.elapsed()
    );
}

/// The builder's time limits apply: a silent endpoint fails within the operation timeout set.
#[tokio::test]
async fn configured_timeouts_bound_a_call_on_a_silent_endpoint() {
    let store = DynamoStore::builder()
        .endpoint(silent_endpoint().await)
        .region("us-east-1")
        .static_credentials("a", "b")
        .attempt_timeout(Duration::from_millis(300))
        .operation_timeout(Duration::from_secs(1))
        .build()
        .await;
    let config = store.client().config().timeout_config().unwrap().clone();
    assert_eq!(config.operation_timeout(), Some(Duration::from_secs(1)));
    assert_eq!(
        config.operation_attempt_timeout(),
        Some(Duration::from_millis(300))
    );
    assert_eq!(config.connect_timeout(), Some(Timeouts::default().connect));
    let started = Instant::now();
    let err = timeout(
        Duration::from_secs(10),
        store.get_item(GetRequest::new("T".to_owned(), key("a"))),
    )
    .await
    .expect("bounded by the operation timeout")
    .unwrap_err();
    assert!(err.is_outcome_unknown(), "{err:?}");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );

    // The defaults, on every constructor that configures the client itself.
    for store in [
        DynamoStore::local("http://127.0.0.1:1").await,
        DynamoStore::builder().build().await,
    ] {
        let config = store.client().config().timeout_config().unwrap().clone();
        let t = Timeouts::default();
        assert_eq!(config.operation_timeout(), Some(t.operation));
        assert_eq!(config.operation_attempt_timeout(), Some(t.attempt));
        assert_eq!(config.connect_timeout(), Some(t.connect));
    }
}

/// A killed server under a 2,000-item batch: before the fix every 25-item chunk spent its own ten
/// attempts (203 s). Now the chunks share one budget: the batch stops once the backend has failed
/// `max_attempts` times in a row, within the policy's total backoff plus the requests in flight,
/// and returns every item with the cause.
#[tokio::test]
async fn batch_on_a_dead_server_returns_every_item_with_the_cause_within_its_budget() {
    let store = DynamoStore::local(&dead_endpoint().await).await;
    let policy = RetryPolicy::default();
    let mut batch = BatchWriter::new().without_entity_check().retry(policy);
    batch
        .put_all(&(0..2000).map(product).collect::<Vec<_>>())
        .unwrap();
    let started = Instant::now();
    let report = timeout(Duration::from_secs(60), batch.send_report(&store))
        .await
        .expect("a batch on a dead server did not return within 60 s");
    let took = started.elapsed();
    eprintln!(
        "dead server, 2,000 puts: returned after {took:?}, {} requests, {} unprocessed",
        report.requests,
        report.unprocessed.len()
    );
    assert_eq!(report.written, 0);
    assert_eq!(report.unprocessed.len(), 2000, "every item is returned");
    assert!(
        !report.errors.is_empty(),
        "the cause is reported: {report:?}"
    );
    assert!(
        report.errors.iter().all(Error::is_outcome_unknown),
        "{:?}",
        report.errors
    );
    assert!(
        report.requests < 80,
        "{} requests: chunks did not share one retry budget",
        report.requests
    );
    assert!(took < Duration::from_secs(40), "{took:?}");

    // send(): BatchIncomplete with every item and the cause (not the bare transport error).
    let mut batch = BatchWriter::new().without_entity_check().retry(policy);
    batch
        .put_all(&(0..2000).map(product).collect::<Vec<_>>())
        .unwrap();
    match timeout(Duration::from_secs(60), batch.send(&store))
        .await
        .expect("bounded")
    {
        Err(Error::BatchIncomplete {
            unprocessed_writes,
            causes,
            ..
        }) => {
            assert_eq!(unprocessed_writes.len(), 2000);
            assert!(
                !causes.is_empty() && causes.iter().all(Error::is_outcome_unknown),
                "{causes:?}"
            );
        }
        other => panic!("expected BatchIncomplete, got {other:?}"),
    }
}

/// A store with no credentials provider: the SDK cannot sign, nothing is sent. Before the fix
/// this came back as `OutcomeUnknown` and the batch engine retried it.
#[tokio::test]
async fn missing_credentials_are_not_an_unknown_outcome_and_are_not_retried() {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .endpoint_url(dead_endpoint().await)
        .build();
    let store = DynamoStore::new(aws_sdk_dynamodb::Client::from_conf(config));
    let err = timeout(
        Duration::from_secs(20),
        store.get_item(GetRequest::new("T".to_owned(), key("a"))),
    )
    .await
    .expect("bounded")
    .unwrap_err();
    assert!(!err.is_outcome_unknown(), "nothing was sent: {err:?}");
    assert!(err.is_configuration(), "{err:?}");
    assert!(err.to_string().contains("GetItem was not sent"), "{err}");

    let mut batch = BatchWriter::new().without_entity_check();
    batch
        .put_all(&(0..100).map(product).collect::<Vec<_>>())
        .unwrap();
    let report = timeout(Duration::from_secs(20), batch.send_report(&store))
        .await
        .expect("bounded");
    assert_eq!(report.unprocessed.len(), 100);
    assert_eq!(
        report.requests, 1,
        "a configuration error is not retried, nor sent again for other chunks"
    );
    assert!(
        report.errors.len() == 1 && report.errors[0].is_configuration(),
        "{:?}",
        report.errors
    );
    // send() returns the configuration error itself: nothing was written, nothing can be.
    let mut batch = BatchWriter::new().without_entity_check();
    batch
        .put_all(&(0..100).map(product).collect::<Vec<_>>())
        .unwrap();
    let err = timeout(Duration::from_secs(20), batch.send(&store))
        .await
        .expect("bounded")
        .unwrap_err();
    assert!(err.is_configuration(), "{err:?}");
}

/// A store with credentials but no region.
#[tokio::test]
async fn missing_region_is_not_an_unknown_outcome() {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .credentials_provider(Credentials::new("a", "b", None, None, "test"))
        .endpoint_url(dead_endpoint().await)
        .build();
    let store = DynamoStore::new(aws_sdk_dynamodb::Client::from_conf(config));
    let err = timeout(
        Duration::from_secs(20),
        store.get_item(GetRequest::new("T".to_owned(), key("a"))),
    )
    .await
    .expect("bounded")
    .unwrap_err();
    assert!(!err.is_outcome_unknown(), "nothing was sent: {err:?}");
    assert!(err.is_configuration(), "{err:?}");
}

/// Every operation on a table that does not exist names the table, on every backend.
#[tokio::test]
async fn a_missing_table_is_named() {
    for b in backends().await {
        let table = unique_table_name("absent");
        let who = b.name;
        let errors = [
            b.store
                .get_item(GetRequest::new(table.clone(), key("a")))
                .await
                .map(drop),
            b.store
                .put_item(PutRequest::new(table.clone(), key("a")))
                .await
                .map(drop),
            b.store
                .query(QueryRequest::new(
                    table.clone(),
                    None,
                    dyno_core::expr::KeyCondition::partition("PK", AttributeValue::S("a".into())),
                ))
                .await
                .map(drop),
        ];
        for (i, result) in errors.into_iter().enumerate() {
            let err = timeout(Duration::from_secs(1), async { result })
                .await
                .unwrap()
                .unwrap_err();
            assert!(
                matches!(err, Error::ResourceNotFound { .. }),
                "{who} #{i}: {err:?}"
            );
            assert!(
                err.to_string().contains(&table),
                "{who} #{i}: the table is not named in {err}"
            );
        }
    }
}

/// IdempotentWrite on any store: responses lost twice (the write applied each time it reached
/// the store), resent with the same token, applied once.
#[tokio::test]
async fn an_idempotent_increment_applies_once_when_responses_are_lost() {
    use dyno_core::expr::{Path, Update};
    use dyno_core::ops::{IdempotentWrite, Transaction};
    use dyno_core::store::TransactWriteItem;
    use dyno_core::{MemoryStore, TableDef};
    use dyno_tests::fault::{outcome_unknown, FaultStore, Op};

    let inner = MemoryStore::new();
    inner
        .create_table(&TableDef::new("Counters", "PK", Some("SK")))
        .await
        .unwrap();
    let store = FaultStore::new(inner);
    let increment = TransactWriteItem::update(
        "Counters",
        key("views"),
        Update {
            add: vec![(Path::attr("n"), AttributeValue::N("1".into()))],
            ..Update::default()
        },
    );
    let write = IdempotentWrite::new(Transaction::new().action(increment))
        .unwrap()
        .retry(RetryPolicy {
            max_attempts: 4,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(4),
        });
    assert_eq!(write.token().len(), 32);
    store.fail_next_after(Op::TransactWrite, 2, outcome_unknown);
    timeout(Duration::from_secs(5), write.send(&store))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(store.calls(Op::TransactWrite), 3);
    let got = store
        .inner()
        .get_item(GetRequest::new("Counters".to_owned(), key("views")))
        .await
        .unwrap()
        .item
        .unwrap();
    assert_eq!(
        got["n"],
        AttributeValue::N("1".into()),
        "three sends, one increment"
    );

    // Sent again later (same token) with every response lost: the error says the outcome is
    // unknown, and the increment still counted once.
    store.fail_next_after(Op::TransactWrite, 4, outcome_unknown);
    let err = timeout(Duration::from_secs(5), write.send(&store))
        .await
        .unwrap()
        .unwrap_err();
    assert!(err.is_outcome_unknown(), "{err:?}");
    let got = store
        .inner()
        .get_item(GetRequest::new("Counters".to_owned(), key("views")))
        .await
        .unwrap()
        .item
        .unwrap();
    assert_eq!(got["n"], AttributeValue::N("1".into()));
}
