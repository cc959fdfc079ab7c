//! The store an example runs on, shared by the examples (`#[path = "support/backend.rs"]`).
//!
//! By default: `MemoryStore`, the embedded engine. With `AWS_ENDPOINT_URL_DYNAMODB` set (plus the
//! usual AWS region and credentials): `DynamoStore::from_env()` on that server, behind
//! `TableNames` with a prefix of its own per run (`dyno-example-<unix millis>-<pid>-`), so that
//! reruns and other users of the server never see each other's tables; the example deletes its
//! tables at the end with [`Backend::delete_tables`].

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use dyno_core::store::TableNames;
use dyno_core::{DynamoStore, Error, MemoryStore, Store};

/// Where an example runs.
pub struct Backend {
    /// The store, with the run's table prefix on a server.
    pub store: Arc<dyn Store>,
    /// The server's endpoint, `None` on MemoryStore.
    pub endpoint: Option<String>,
    prefix: String,
}

impl Backend {
    /// MemoryStore, or the server named by `AWS_ENDPOINT_URL_DYNAMODB`.
    pub async fn from_env() -> Self {
        match std::env::var("AWS_ENDPOINT_URL_DYNAMODB") {
            Ok(endpoint) if !endpoint.is_empty() => {
                Self::server(DynamoStore::from_env().await, endpoint)
            }
            _ => Backend {
                store: Arc::new(MemoryStore::new()),
                endpoint: None,
                prefix: String::new(),
            },
        }
    }

    /// A local server (dynalite, moto) at `endpoint`, with test credentials: the examples' tests.
    #[allow(dead_code)] // used by the tests of some examples only
    pub async fn local(endpoint: &str) -> Self {
        Self::server(DynamoStore::local(endpoint).await, endpoint.to_owned())
    }

    fn server(store: DynamoStore, endpoint: String) -> Self {
        let millis = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let prefix = format!("dyno-example-{millis}-{}-", std::process::id());
        Backend {
            store: Arc::new(TableNames::new(store).prefix(&prefix)),
            endpoint: Some(endpoint),
            prefix,
        }
    }

    /// Whether the example runs on a server.
    pub fn is_remote(&self) -> bool {
        self.endpoint.is_some()
    }

    /// One line saying where the example runs.
    pub fn describe(&self) -> String {
        match &self.endpoint {
            Some(e) => format!(
                "the DynamoDB-compatible server at {e} (tables {}*)",
                self.prefix
            ),
            None => {
                "MemoryStore, the embedded engine (set AWS_ENDPOINT_URL_DYNAMODB to use a server)"
                    .to_owned()
            }
        }
    }

    /// The physical name of the logical table `table` on this backend.
    pub fn physical(&self, table: &str) -> String {
        match &self.endpoint {
            Some(_) => format!("{}{table}", self.prefix),
            None => table.to_owned(),
        }
    }

    /// On a server, deletes the run's tables (a table the run never created is not an error);
    /// on MemoryStore, nothing to do: it keeps nothing after exit.
    pub async fn delete_tables(&self, tables: &[&str]) -> Result<(), Error> {
        if !self.is_remote() {
            return Ok(());
        }
        for table in tables {
            match self.store.delete_table(table).await {
                Ok(()) | Err(Error::ResourceNotFound { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// [`Self::delete_tables`], with a failure reported on stderr (the run's result stands).
    #[allow(dead_code)] // used by some of the examples only
    pub async fn delete_tables_or_warn(&self, tables: &[&str]) {
        if let Err(e) = self.delete_tables(tables).await {
            let names: Vec<String> = tables.iter().map(|t| self.physical(t)).collect();
            eprintln!("warning: could not delete {}: {e}", names.join(", "));
        }
    }
}
