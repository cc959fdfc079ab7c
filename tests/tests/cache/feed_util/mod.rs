//! Shared fixtures of the change-feed tests: the backends with a change feed (MemoryStore and
//! the servers that implement DynamoDB Streams), and a reader that collects records with a
//! bounded wait.

#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use dyno_core::feed::{ChangeFeed, ChangeRecord, Gap, StartingPosition, StreamsFeed};
use dyno_core::store::PutRequest;
use dyno_core::{DynamoStore, Entity, Item, MemoryStore, Store};
use dyno_tests::backend::{
    supports_streams, BackendKind, DYNOXIDE_ENDPOINT_VAR, MOTO_ENDPOINT_VAR,
};
use dyno_tests::model::{Order, OrderStatus, User};

mod replica;
pub use self::replica::LaggingStore;
use rust_decimal::Decimal;
use time::macros::date;

/// A backend whose changes can be followed.
#[derive(Debug, Clone)]
pub struct FeedBackend {
    pub name: &'static str,
    pub kind: BackendKind,
    pub store: Arc<dyn Store>,
    memory: Option<Arc<MemoryStore>>,
    endpoint: Option<String>,
}

impl FeedBackend {
    pub fn memory(store: Arc<MemoryStore>) -> Self {
        FeedBackend {
            name: "memory",
            kind: BackendKind::Memory,
            store: store.clone(),
            memory: Some(store),
            endpoint: None,
        }
    }

    /// A reader of `table`'s changes (polling a server's stream every 20 ms).
    pub async fn feed(&self, table: &str, start: StartingPosition) -> Box<dyn ChangeFeed> {
        match (&self.memory, &self.endpoint) {
            (Some(m), _) => Box::new(m.change_feed(table, start).unwrap()),
            (_, Some(endpoint)) => Box::new(
                StreamsFeed::local(endpoint, table, start)
                    .await
                    .unwrap()
                    .with_poll_interval(Duration::from_millis(20)),
            ),
            _ => unreachable!(),
        }
    }

    /// Another client of the same database (a second service instance).
    pub async fn second_client(&self) -> Arc<dyn Store> {
        match &self.endpoint {
            Some(e) => Arc::new(DynamoStore::local(e).await),
            None => self.store.clone(),
        }
    }

    /// The server's endpoint (`None` on MemoryStore).
    pub fn endpoint(&self) -> Option<&str> {
        self.endpoint.as_deref()
    }

    /// True for the servers (timing is looser there).
    pub fn is_server(&self) -> bool {
        self.kind.is_server()
    }
}

/// MemoryStore, then each configured server that implements streams (moto, dynoxide).
pub async fn feed_backends() -> Vec<FeedBackend> {
    let mut out = vec![FeedBackend::memory(Arc::new(MemoryStore::new()))];
    for (name, kind, var) in [
        ("moto", BackendKind::Moto, MOTO_ENDPOINT_VAR),
        ("dynoxide", BackendKind::Dynoxide, DYNOXIDE_ENDPOINT_VAR),
    ] {
        assert!(supports_streams(kind));
        if let Some(endpoint) = std::env::var(var).ok().filter(|v| !v.trim().is_empty()) {
            let endpoint = endpoint.trim().to_owned();
            out.push(FeedBackend {
                name,
                kind,
                store: Arc::new(DynamoStore::local(&endpoint).await),
                memory: None,
                endpoint: Some(endpoint),
            });
        }
    }
    out
}

/// Reads until `n` records have come (or 10 s have passed), returning them and the gaps met.
pub async fn collect(feed: &mut dyn ChangeFeed, n: usize) -> (Vec<ChangeRecord>, Vec<Gap>) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let (mut records, mut gaps) = (Vec::new(), Vec::new());
    while records.len() < n && tokio::time::Instant::now() < deadline {
        let batch = feed.poll(Duration::from_millis(200)).await.unwrap();
        records.extend(batch.records);
        gaps.extend(batch.gaps);
    }
    (records, gaps)
}

/// The model's user `id` as an item.
pub fn user(id: &str, name: &str) -> Item {
    User {
        user_id: id.into(),
        name: name.into(),
        email: format!("{id}@example.com"),
    }
    .to_item()
    .unwrap()
}

/// The model's order `id` of `user` as an item (in GSI1 under its status).
pub fn order(user: &str, id: &str, status: OrderStatus) -> Item {
    Order::new(
        user,
        id,
        status,
        date!(2024 - 05 - 01),
        Decimal::new(1999, 2),
    )
    .to_item()
    .unwrap()
}

/// The primary key of an item of the model.
pub fn key_of(item: &Item) -> Item {
    item.iter()
        .filter(|(k, _)| *k == "PK" || *k == "SK")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// An unconditional put.
pub fn put(table: &str, item: Item) -> PutRequest {
    PutRequest::new(table, item)
}
