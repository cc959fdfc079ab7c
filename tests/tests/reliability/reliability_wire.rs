//! Faults over the wire: `DynamoStore` talks to dynalite, moto and dynoxide
//! through [`FaultProxy`], which loses requests and responses, stalls, answers 500/503/throttling
//! and truncates responses. For every write operation and every fault:
//! - success is never reported for a write that was not applied;
//! - a write whose response was lost is reported as an unknown outcome (never as a condition
//!   failure caused by its own retry), and it invalidates CachedStore's entries;
//! - the batch engine accounts for every item;
//! - a transaction resent with the same client request token applies once, and so does a counter
//!   increment sent through [`IdempotentWrite`].
//!
//! Without server endpoints in the environment these tests have nothing to run on (plain
//! `cargo test`); `scripts/test` provides them. Every call is bounded by the store's timeouts and
//! every test by `tokio::time::timeout`.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use dyno_cache::CachedStore;
use dyno_core::expr::{Condition, Path, SetValue, Update};
use dyno_core::ops::{BatchWriter, IdempotentWrite, RetryPolicy, Transaction};
use dyno_core::store::{
    BatchWriteRequest, DeleteRequest, GetRequest, ScanRequest, TransactWriteItem,
    TransactWriteRequest, UpdateRequest, WriteRequest,
};
use dyno_core::{AttributeValue, DynamoStore, Item, Store, TableDef};
use dyno_tests::backend::{
    put, supports_transactions, unique_table_name, BackendKind, DYNALITE_ENDPOINT_VAR,
    DYNOXIDE_ENDPOINT_VAR, MOTO_ENDPOINT_VAR,
};
use dyno_tests::proxy::{Fault, FaultProxy};
use tokio::time::timeout;

/// A configured server: name, kind, endpoint.
struct Server {
    name: &'static str,
    kind: BackendKind,
    endpoint: String,
}

fn servers() -> Vec<Server> {
    [
        ("dynalite", BackendKind::Dynalite, DYNALITE_ENDPOINT_VAR),
        ("moto", BackendKind::Moto, MOTO_ENDPOINT_VAR),
        ("dynoxide", BackendKind::Dynoxide, DYNOXIDE_ENDPOINT_VAR),
    ]
    .into_iter()
    .filter_map(|(name, kind, var)| {
        let endpoint = std::env::var(var).ok()?.trim().to_owned();
        (!endpoint.is_empty()).then_some(Server {
            name,
            kind,
            endpoint,
        })
    })
    .collect()
}

/// How long one attempt may take through the proxy.
#[derive(Clone, Copy)]
enum Attempt {
    /// 1.5 s, so an injected stall ends quickly. Only for tests whose every outcome accepts an
    /// attempt timed out under load (a timeout is an unknown outcome, like a lost response).
    EndsStalls,
    /// 20 s: no stall is injected, and a test that counts attempts or expects a specific error
    /// must not see a slow answer (the servers share two cores with the rest of the suite)
    /// turned into a timeout and a retry.
    Patient,
}

/// A store through the proxy: `attempts` SDK attempts, each bounded as `attempt` says.
async fn through(proxy: &FaultProxy, attempts: u32, attempt: Attempt) -> DynamoStore {
    let (attempt, operation) = match attempt {
        Attempt::EndsStalls => (Duration::from_millis(1500), Duration::from_secs(8)),
        Attempt::Patient => (Duration::from_secs(20), Duration::from_secs(60)),
    };
    DynamoStore::builder()
        .endpoint(proxy.endpoint())
        .region("us-east-1")
        .static_credentials("dyno-local", "dyno-local")
        .attempt_timeout(attempt)
        .operation_timeout(operation)
        .max_attempts(attempts)
        .build()
        .await
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn key(pk: &str) -> Item {
    Item::from([("PK".to_owned(), s(pk)), ("SK".to_owned(), s("x"))])
}

fn with(pk: &str, attr: &str, v: AttributeValue) -> Item {
    let mut item = key(pk);
    item.insert(attr.to_owned(), v);
    item
}

fn number(item: Option<&Item>, attr: &str) -> Option<i64> {
    match item?.get(attr)? {
        AttributeValue::N(n) => n.parse().ok(),
        _ => None,
    }
}

async fn table(direct: &DynamoStore, prefix: &str) -> String {
    let def = TableDef::new(unique_table_name(prefix), "PK", Some("SK"));
    direct.create_table(&def).await.unwrap();
    def.name
}

async fn read(direct: &DynamoStore, table: &str, pk: &str) -> Option<Item> {
    direct
        .get_item(GetRequest::new(table.to_owned(), key(pk)).consistent())
        .await
        .unwrap()
        .item
        .map(|i| (*i).clone())
}

fn set_v(table: &str, pk: &str, v: i64) -> UpdateRequest {
    UpdateRequest::new(
        table.to_owned(),
        key(pk),
        Update {
            set: vec![(
                Path::attr("v"),
                SetValue::value(AttributeValue::N(v.to_string())),
            )],
            ..Update::default()
        },
    )
}

fn add_n() -> Update {
    Update {
        add: vec![(Path::attr("n"), AttributeValue::N("1".into()))],
        ..Update::default()
    }
}

const WRITES: [&str; 5] = [
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "BatchWriteItem",
    "TransactWriteItems",
];

fn faults() -> Vec<Fault> {
    vec![
        Fault::DropBeforeForward,
        Fault::DropAfterForward,
        Fault::Stall,
        Fault::internal_error(),
        Fault::unavailable(),
        Fault::throttling(),
        Fault::Truncate(20),
        Fault::Truncate(200),
        Fault::Delay(Duration::from_millis(50)),
    ]
}

/// Sends one write of `operation` on item `pk` through `store`; for a delete the item is put
/// first (directly). Returns whether the write is visible afterwards on the server.
async fn write_once(
    store: &DynamoStore,
    direct: &DynamoStore,
    t: &str,
    operation: &str,
    pk: &str,
) -> (dyno_core::Result<()>, bool) {
    let item = with(pk, "v", AttributeValue::N("1".into()));
    let result = match operation {
        "PutItem" => store.put_item(put(t, item)).await.map(drop),
        "UpdateItem" => store.update_item(set_v(t, pk, 1)).await.map(drop),
        "DeleteItem" => {
            direct.put_item(put(t, item)).await.unwrap();
            store
                .delete_item(DeleteRequest::new(t.to_owned(), key(pk)))
                .await
                .map(drop)
        }
        "BatchWriteItem" => store
            .batch_write(BatchWriteRequest::new(vec![WriteRequest::put(
                t.to_owned(),
                item,
            )]))
            .await
            .map(|out| assert!(out.unprocessed.is_empty())),
        "TransactWriteItems" => store
            .transact_write(TransactWriteRequest::new(vec![TransactWriteItem::put(
                t.to_owned(),
                item,
            )]))
            .await
            .map(drop),
        other => unreachable!("{other}"),
    };
    let stored = read(direct, t, pk).await;
    let applied = if operation == "DeleteItem" {
        stored.is_none()
    } else {
        number(stored.as_ref(), "v") == Some(1)
    };
    (result, applied)
}

#[tokio::test]
async fn no_write_reports_success_unless_applied_and_lost_responses_are_unknown() {
    for server in servers() {
        let direct = DynamoStore::local(&server.endpoint).await;
        let t = table(&direct, "wire-writes").await;
        let proxy = FaultProxy::start(&server.endpoint).await;
        // One SDK attempt: the fault alone decides what the caller sees.
        let store = through(&proxy, 1, Attempt::EndsStalls).await;
        let who = server.name;
        let mut case = 0;
        for operation in WRITES {
            if operation == "TransactWriteItems" && !supports_transactions(server.kind) {
                continue;
            }
            for fault in faults() {
                case += 1;
                let pk = format!("case{case}");
                proxy.inject(Some(operation), fault.clone(), 1);
                let (result, applied) = timeout(
                    Duration::from_secs(20),
                    write_once(&store, &direct, &t, operation, &pk),
                )
                .await
                .unwrap_or_else(|_| panic!("{who} {operation} {fault:?}: not bounded"));
                assert!(proxy.rules_used_up(), "{who} {operation} {fault:?}");
                let what = format!("{who} {operation} {fault:?}: {result:?}, applied {applied}");
                match (&fault, &result) {
                    // Forwarded and answered: success, applied.
                    (Fault::Delay(_) | Fault::Truncate(200), _) if result.is_ok() => {
                        assert!(applied, "{what}")
                    }
                    (_, Ok(())) => panic!("success reported for an unapplied write: {what}"),
                    (
                        Fault::Error {
                            code: "ThrottlingException",
                            ..
                        },
                        Err(e),
                    ) => {
                        assert!(e.is_throttled() && !applied, "{what}")
                    }
                    (f, Err(e)) if f.forwards() => {
                        // Applied, response lost or cut: the outcome is unknown.
                        assert!(e.is_outcome_unknown() && applied, "{what}")
                    }
                    (_, Err(e)) => assert!(e.is_outcome_unknown() && !applied, "{what}"),
                }
            }
        }
        direct.delete_table(&t).await.unwrap();
    }
}

/// The classic trap: a create (put if absent) whose response is lost is retried by the SDK, and
/// the retry's condition fails because the first attempt created the item. Reporting "condition
/// failed" would tell the caller the item already existed when their own write created it.
#[tokio::test]
async fn a_create_retried_after_a_lost_response_is_an_unknown_outcome_not_a_condition_failure() {
    for server in servers() {
        let direct = DynamoStore::local(&server.endpoint).await;
        let t = table(&direct, "wire-create").await;
        let proxy = FaultProxy::start(&server.endpoint).await;
        let store = through(&proxy, 3, Attempt::Patient).await;
        for fault in [Fault::DropAfterForward, Fault::Truncate(20)] {
            let pk = format!("{fault:?}");
            proxy.inject(Some("PutItem"), fault.clone(), 1);
            let mut create = put(&t, with(&pk, "v", AttributeValue::N("1".into())));
            create.condition = Some(Condition::not_exists("PK"));
            let err = timeout(Duration::from_secs(90), store.put_item(create))
                .await
                .unwrap()
                .unwrap_err();
            assert_eq!(
                proxy.forwarded("PutItem") % 2,
                0,
                "{}: retried",
                server.name
            );
            assert!(
                err.is_outcome_unknown(),
                "{} {fault:?}: {err:?}",
                server.name
            );
            assert!(read(&direct, &t, &pk).await.is_some(), "{}", server.name);
        }
        // A create over an item that existed before still fails with its condition.
        let mut again = put(
            &t,
            with("DropAfterForward", "v", AttributeValue::N("2".into())),
        );
        again.condition = Some(Condition::not_exists("PK"));
        assert!(store
            .put_item(again)
            .await
            .unwrap_err()
            .is_condition_failed());
        direct.delete_table(&t).await.unwrap();
    }
}

#[tokio::test]
async fn an_unknown_outcome_invalidates_the_cache() {
    for server in servers() {
        let direct = DynamoStore::local(&server.endpoint).await;
        let t = table(&direct, "wire-cache").await;
        let proxy = FaultProxy::start(&server.endpoint).await;
        let cached = CachedStore::new(through(&proxy, 1, Attempt::Patient).await);
        let who = server.name;
        for (i, operation) in ["PutItem", "UpdateItem", "DeleteItem"]
            .into_iter()
            .enumerate()
        {
            let pk = format!("cached{i}");
            cached
                .put_item(put(&t, with(&pk, "v", AttributeValue::N("0".into()))))
                .await
                .unwrap();
            let get = || cached.get_item(GetRequest::new(t.clone(), key(&pk)));
            assert_eq!(number(get().await.unwrap().item.as_deref(), "v"), Some(0));
            let gets = proxy.seen("GetItem");
            assert_eq!(number(get().await.unwrap().item.as_deref(), "v"), Some(0));
            assert_eq!(proxy.seen("GetItem"), gets, "{who}: served from the cache");

            proxy.inject(Some(operation), Fault::DropAfterForward, 1);
            let err = match operation {
                "PutItem" => cached
                    .put_item(put(&t, with(&pk, "v", AttributeValue::N("1".into()))))
                    .await
                    .map(drop),
                "UpdateItem" => cached.update_item(set_v(&t, &pk, 1)).await.map(drop),
                _ => cached
                    .delete_item(DeleteRequest::new(t.clone(), key(&pk)))
                    .await
                    .map(drop),
            }
            .unwrap_err();
            assert!(err.is_outcome_unknown(), "{who} {operation}: {err:?}");
            // The cache does not serve its old image: the next read asks the server.
            let after = get().await.unwrap().item;
            assert_eq!(proxy.seen("GetItem"), gets + 1, "{who} {operation}");
            let expected = if operation == "DeleteItem" {
                None
            } else {
                Some(1)
            };
            assert_eq!(number(after.as_deref(), "v"), expected, "{who} {operation}");
        }
        direct.delete_table(&t).await.unwrap();
    }
}

#[tokio::test]
async fn the_batch_engine_accounts_for_every_item_through_wire_faults() {
    for server in servers() {
        let direct = DynamoStore::local(&server.endpoint).await;
        let t = table(&direct, "wire-batch").await;
        let def = TableDef::new(t.clone(), "PK", Some("SK"));
        let proxy = FaultProxy::start(&server.endpoint).await;
        let store = through(&proxy, 1, Attempt::Patient).await;
        let who = server.name;
        // More attempts than injected faults: one chunk may meet every fault (concurrency 2).
        let policy = RetryPolicy {
            max_attempts: 10,
            base_delay: Duration::from_millis(5),
            max_delay: Duration::from_millis(50),
        };
        // Faults interleaved with successes, fewer in a row than the budget allows: every item
        // ends up written.
        for fault in faults().into_iter().filter(|f| *f != Fault::Stall) {
            proxy.inject(Some("BatchWriteItem"), fault, 1);
            proxy.inject(Some("BatchWriteItem"), Fault::Forward, 1);
        }
        let all: BTreeSet<String> = (0..300).map(|i| format!("b{i:03}")).collect();
        let mut batch = BatchWriter::new().retry(policy).concurrency(2);
        for pk in &all {
            batch
                .write(&def, WriteRequest::put(t.clone(), key(pk)))
                .unwrap();
        }
        let report = timeout(Duration::from_secs(180), batch.send_report(&store))
            .await
            .expect("bounded");
        assert!(report.is_complete(), "{who}: {report:?}");
        let stored = scan_keys(&direct, &t).await;
        assert_eq!(stored, all, "{who}");

        // The server dies after three requests: a 2,000-item batch stops within its budget and
        // every item is either stored or returned.
        direct.delete_table(&t).await.unwrap();
        let t = table(&direct, "wire-batch-dead").await;
        let def = TableDef::new(t.clone(), "PK", Some("SK"));
        proxy.heal();
        proxy.inject(Some("BatchWriteItem"), Fault::Forward, 3);
        proxy.set_default(Fault::Refuse);
        let all: BTreeSet<String> = (0..2000).map(|i| format!("d{i:04}")).collect();
        let mut batch = BatchWriter::new().retry(policy);
        for pk in &all {
            batch
                .write(&def, WriteRequest::put(t.clone(), key(pk)))
                .unwrap();
        }
        let started = Instant::now();
        let report = timeout(Duration::from_secs(180), batch.send_report(&store))
            .await
            .expect("bounded");
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{who}: {:?}",
            started.elapsed()
        );
        proxy.heal();
        let stored = scan_keys(&direct, &t).await;
        let returned: BTreeSet<String> = report
            .unprocessed
            .iter()
            .map(|w| match w {
                WriteRequest::Put { item, .. } => match &item["PK"] {
                    AttributeValue::S(pk) => pk.clone(),
                    other => panic!("{other:?}"),
                },
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            returned.len(),
            report.unprocessed.len(),
            "{who}: no duplicates"
        );
        assert_eq!(stored.len(), 75, "{who}: three requests of 25 got through");
        assert!(stored.is_disjoint(&returned), "{who}");
        assert_eq!(
            stored.union(&returned).cloned().collect::<BTreeSet<_>>(),
            all,
            "{who}"
        );
        assert!(!report.errors.is_empty(), "{who}: the cause is reported");
        direct.delete_table(&t).await.unwrap();
    }
}

async fn scan_keys(direct: &DynamoStore, t: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut request = ScanRequest::new(t.to_owned()).with_consistent_read(true);
    loop {
        let page = direct.scan(request.clone()).await.unwrap();
        for item in &page.items {
            if let AttributeValue::S(pk) = &item["PK"] {
                out.insert(pk.clone());
            }
        }
        match page.last_evaluated_key {
            Some(k) => request.exclusive_start_key = Some(k),
            None => return out,
        }
    }
}

#[tokio::test]
async fn transactions_resent_with_their_token_and_idempotent_increments_apply_once() {
    for server in servers()
        .into_iter()
        .filter(|s| supports_transactions(s.kind))
    {
        let direct = DynamoStore::local(&server.endpoint).await;
        let t = table(&direct, "wire-token").await;
        let proxy = FaultProxy::start(&server.endpoint).await;
        let who = server.name;
        // moto ignores ClientRequestToken (a deviation from DynamoDB, which replays the first
        // result for 10 minutes): there every send applies, and this test records it.
        let honours_tokens = server.kind != BackendKind::Moto;
        let once_or = |sends: i64| if honours_tokens { 1 } else { sends };
        let increment = |pk: &str| TransactWriteItem::update(t.clone(), key(pk), add_n());

        // The SDK resends a transaction after a lost response with the same token.
        let sdk_retries = through(&proxy, 3, Attempt::Patient).await;
        proxy.inject(Some("TransactWriteItems"), Fault::DropAfterForward, 1);
        timeout(
            Duration::from_secs(90),
            sdk_retries.transact_write(
                TransactWriteRequest::new(vec![increment("sdk")])
                    .with_client_request_token(Some("wire-token-sdk".into())),
            ),
        )
        .await
        .unwrap()
        .unwrap_or_else(|e| panic!("{who}: {e:?}"));
        assert_eq!(
            proxy.forwarded("TransactWriteItems"),
            2,
            "{who}: resent once"
        );
        let n = number(read(&direct, &t, "sdk").await.as_ref(), "n");
        assert_eq!(n, Some(once_or(2)), "{who}: applied once");

        // IdempotentWrite resends it itself when the store reports the outcome unknown (one SDK
        // attempt here), losing the first two responses.
        let one_attempt = through(&proxy, 1, Attempt::Patient).await;
        proxy.inject(Some("TransactWriteItems"), Fault::DropAfterForward, 1);
        proxy.inject(Some("TransactWriteItems"), Fault::Truncate(30), 1);
        let write = IdempotentWrite::new(Transaction::new().action(increment("ours")))
            .unwrap()
            .retry(RetryPolicy {
                max_attempts: 5,
                base_delay: Duration::from_millis(10),
                max_delay: Duration::from_millis(50),
            });
        let before = proxy.forwarded("TransactWriteItems");
        timeout(Duration::from_secs(90), write.send(&one_attempt))
            .await
            .unwrap()
            .unwrap_or_else(|e| panic!("{who}: {e:?}"));
        assert_eq!(proxy.forwarded("TransactWriteItems") - before, 3, "{who}");
        let n = number(read(&direct, &t, "ours").await.as_ref(), "n");
        assert_eq!(n, Some(once_or(3)), "{who}: three sends, applied once");

        // The same increment as a plain UpdateItem, resent by the SDK after a lost response,
        // counts twice: why the idempotent path exists.
        proxy.inject(Some("UpdateItem"), Fault::DropAfterForward, 1);
        sdk_retries
            .update_item(UpdateRequest::new(t.clone(), key("plain"), add_n()))
            .await
            .unwrap();
        let n = number(read(&direct, &t, "plain").await.as_ref(), "n");
        assert_eq!(n, Some(2), "{who}: a plain update resent applies twice");
        direct.delete_table(&t).await.unwrap();
    }
}
