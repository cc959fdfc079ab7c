//! The store an example runs on, shared by the examples (`#[path = "support/backend.rs"]`).
//!
//! By default: `MemoryStore`, the embedded engine. With `AWS_ENDPOINT_URL_DYNAMODB` set (plus the
//! usual AWS region and credentials): `DynamoStore::from_env()` on that server, behind
//! `TableNames` with a prefix of its own per run (`dyno-example-<unix millis>-<pid>-`), so that
//! reruns and other users of the server never see each other's tables; the example deletes its
//! tables at the end ([`Backend::finish`]), unless asked to keep them: `DYNO_KEEP_TABLES=1` or
//! the flag `--keep-tables` (`cargo run --example ecommerce -- --keep-tables`). A kept table
//! stays on the server for other tools to look at, and the example prints how to delete it.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use dyno_core::store::TableNames;
use dyno_core::{DynamoStore, Error, MemoryStore, Store};

/// Where an example runs.
pub struct Backend {
    /// The store, with the run's table prefix on a server.
    pub store: Arc<dyn Store>,
    /// The server's endpoint, `None` on MemoryStore.
    pub endpoint: Option<String>,
    prefix: String,
    keep: bool,
}

/// Whether the user asked to keep the tables: `DYNO_KEEP_TABLES` set to `1` (or `true`, `yes`),
/// or `--keep-tables` among the arguments.
pub fn keep_requested(var: Option<&str>, mut args: impl Iterator<Item = String>) -> bool {
    matches!(var, Some("1" | "true" | "yes")) || args.any(|a| a == "--keep-tables")
}

impl Backend {
    /// MemoryStore, or the server named by `AWS_ENDPOINT_URL_DYNAMODB` (its tables kept at the
    /// end when `DYNO_KEEP_TABLES=1` or `--keep-tables` asks so).
    pub async fn from_env() -> Self {
        match std::env::var("AWS_ENDPOINT_URL_DYNAMODB") {
            Ok(endpoint) if !endpoint.is_empty() => {
                let keep = keep_requested(
                    std::env::var("DYNO_KEEP_TABLES").ok().as_deref(),
                    std::env::args().skip(1),
                );
                Self::server(DynamoStore::from_env().await, endpoint).keep_tables(keep)
            }
            _ => Backend {
                store: Arc::new(MemoryStore::new()),
                endpoint: None,
                prefix: String::new(),
                keep: false,
            },
        }
    }

    /// Keeps the run's tables at the end ([`Self::finish`]) instead of deleting them.
    #[allow(dead_code)] // used by the tests of some examples only
    pub fn keep_tables(mut self, keep: bool) -> Self {
        self.keep = keep;
        self
    }

    /// A local server (dynalite, moto, dynoxide) at `endpoint`, with test credentials: the
    /// examples' tests. Each attempt may take 30 s and each call 2 minutes (the defaults are 10 s
    /// and 30 s): under `scripts/test` the single-threaded servers answer the whole suite on two
    /// cores, and a Scan of dynalite's has been seen there to outlast three 10 s attempts. A slow
    /// answer is load, not a hang; the wait stays bounded.
    #[allow(dead_code)] // used by the tests of some examples only
    pub async fn local(endpoint: &str) -> Self {
        let store = DynamoStore::builder()
            .endpoint(endpoint)
            .region("us-east-1")
            .static_credentials("dyno-local", "dyno-local")
            .attempt_timeout(Duration::from_secs(30))
            .operation_timeout(Duration::from_secs(120))
            .build()
            .await;
        Self::server(store, endpoint.to_owned())
    }

    /// For an example's test: the server `scripts/test` started, named by the environment
    /// variable `var` (`DYNO_DYNALITE_ENDPOINT`, ...). `None`, said on stderr, when it is unset;
    /// a panic then if `DYNO_REQUIRE_BACKENDS` is set (CI requires every server).
    #[allow(dead_code)] // used by the tests of some examples only
    pub async fn from_test_env(var: &str) -> Option<Self> {
        let Ok(endpoint) = std::env::var(var) else {
            assert!(
                std::env::var_os("DYNO_REQUIRE_BACKENDS").is_none(),
                "DYNO_REQUIRE_BACKENDS is set but {var} is not"
            );
            eprintln!("skipped: {var} is not set");
            return None;
        };
        Some(Self::local(&endpoint).await)
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
            keep: false,
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

    /// At the end of a run: on a server, deletes the run's tables, or keeps them when asked to;
    /// returns what to tell the user (which tables were deleted, or where the kept ones are and
    /// how to delete them). On MemoryStore, nothing to do or say: it keeps nothing after exit.
    pub async fn finish(&self, tables: &[&str]) -> Result<Option<String>, Error> {
        let Some(endpoint) = &self.endpoint else {
            return Ok(None);
        };
        let names: Vec<String> = tables.iter().map(|t| self.physical(t)).collect();
        if !self.keep {
            self.delete_tables(tables).await?;
            return Ok(Some(format!("Deleted the table(s) {}.", names.join(", "))));
        }
        let mut text = format!(
            "Kept the table(s) on {endpoint} (asked by DYNO_KEEP_TABLES=1 or --keep-tables), to look \
             at with other tools, e.g. `aws dynamodb scan --endpoint-url {endpoint} --table-name {}`.\n\
             Delete them when done:",
            names[0]
        );
        for name in &names {
            text.push_str(&format!(
                "\n  aws dynamodb delete-table --endpoint-url {endpoint} --table-name {name}"
            ));
        }
        Ok(Some(text))
    }

    /// On a server, deletes the run's tables (a table the run never created is not an error),
    /// whatever [`Self::keep_tables`] says: for tests and error paths. On MemoryStore, nothing to
    /// do.
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

    /// [`Self::finish`], printing what it says, with a failure reported on stderr (the run's
    /// result stands).
    #[allow(dead_code)] // used by some of the examples only
    pub async fn delete_tables_or_warn(&self, tables: &[&str]) {
        match self.finish(tables).await {
            Ok(Some(text)) => println!("{text}"),
            Ok(None) => {}
            Err(e) => {
                let names: Vec<String> = tables.iter().map(|t| self.physical(t)).collect();
                eprintln!("warning: could not delete {}: {e}", names.join(", "));
            }
        }
    }
}
