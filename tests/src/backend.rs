//! The backends every cross-backend test runs against: MemoryStore always, plus dynalite, moto and
//! dynoxide when their endpoints are in the environment.
//!
//! `scripts/test` starts the servers and exports `DYNO_DYNALITE_ENDPOINT`, `DYNO_MOTO_ENDPOINT` and
//! `DYNO_DYNOXIDE_ENDPOINT` (`http://127.0.0.1:PORT`); with `DYNO_REQUIRE_BACKENDS=1` (CI) a missing
//! endpoint is a failure, not a skip. Plain `cargo test` runs on MemoryStore alone.
//!
//! dynoxide is the reference: where backends disagree, a MemoryStore result that differs from
//! dynoxide's is a MemoryStore bug unless DynamoDB's documentation says otherwise.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use dyno_core::{DynamoStore, MemoryStore, Store};

/// Environment variable holding dynalite's endpoint.
pub const DYNALITE_ENDPOINT_VAR: &str = "DYNO_DYNALITE_ENDPOINT";
/// Environment variable holding moto's endpoint.
pub const MOTO_ENDPOINT_VAR: &str = "DYNO_MOTO_ENDPOINT";
/// Environment variable holding dynoxide's endpoint.
pub const DYNOXIDE_ENDPOINT_VAR: &str = "DYNO_DYNOXIDE_ENDPOINT";
/// Environment variable that, set to `1`, makes a missing server endpoint a failure.
pub const REQUIRE_BACKENDS_VAR: &str = "DYNO_REQUIRE_BACKENDS";

/// Which engine a backend runs on, for tests that must account for a server's gaps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BackendKind {
    /// dyno's in-process engine.
    Memory,
    /// dynalite (Node): no transactions, no TTL.
    Dynalite,
    /// moto (Python): transactions and TTL, lax validation, not atomic under concurrent writes.
    Moto,
    /// dynoxide (Rust, on SQLite): the reference; transactions, TTL and streams.
    Dynoxide,
}

impl BackendKind {
    /// True for the DynamoDB-compatible servers (everything but MemoryStore).
    pub fn is_server(self) -> bool {
        !matches!(self, BackendKind::Memory)
    }
}

/// One store to run a test on.
#[derive(Debug, Clone)]
pub struct Backend {
    /// Short name for assertion messages: `memory`, `dynalite`, `moto`, `dynoxide`.
    pub name: &'static str,
    /// The engine.
    pub kind: BackendKind,
    /// The store.
    pub store: Arc<dyn Store>,
}

/// MemoryStore, then every configured server (see [`server_backends`]).
pub async fn backends() -> Vec<Backend> {
    let mut out = vec![Backend {
        name: "memory",
        kind: BackendKind::Memory,
        store: Arc::new(MemoryStore::new()),
    }];
    out.extend(server_backends().await);
    out
}

/// A `DynamoStore` for each server whose endpoint variable is set: dynalite, moto, dynoxide.
///
/// # Panics
/// When `DYNO_REQUIRE_BACKENDS=1` and an endpoint variable is missing or empty.
pub async fn server_backends() -> Vec<Backend> {
    let require = std::env::var(REQUIRE_BACKENDS_VAR).is_ok_and(|v| v == "1");
    let mut out = Vec::new();
    for (name, kind, var) in [
        ("dynalite", BackendKind::Dynalite, DYNALITE_ENDPOINT_VAR),
        ("moto", BackendKind::Moto, MOTO_ENDPOINT_VAR),
        ("dynoxide", BackendKind::Dynoxide, DYNOXIDE_ENDPOINT_VAR),
    ] {
        match std::env::var(var).ok().filter(|v| !v.trim().is_empty()) {
            Some(endpoint) => {
                let store = DynamoStore::local(endpoint.trim()).await;
                out.push(Backend { name, kind, store: Arc::new(store) });
            }
            None if require => panic!(
                "{REQUIRE_BACKENDS_VAR}=1 but {var} is not set: the {name} backend is required. \
                 Run the tests through scripts/test, or start it with `scripts/backend start {name}` \
                 and export {var}=<the printed endpoint>"
            ),
            None => {}
        }
    }
    out
}

/// True when the backend implements TransactGetItems/TransactWriteItems (dynalite does not).
pub fn supports_transactions(kind: BackendKind) -> bool {
    !matches!(kind, BackendKind::Dynalite)
}

/// True when the backend implements UpdateTimeToLive/DescribeTimeToLive (dynalite does not).
pub fn supports_ttl(kind: BackendKind) -> bool {
    !matches!(kind, BackendKind::Dynalite)
}

/// True when the backend implements DynamoDB Streams (MemoryStore's own change feed aside).
pub fn supports_streams(kind: BackendKind) -> bool {
    matches!(kind, BackendKind::Moto | BackendKind::Dynoxide)
}

/// True when the backend implements multi-attribute index keys (MemoryStore and dynoxide do).
pub fn supports_multi_attribute_keys(kind: BackendKind) -> bool {
    matches!(kind, BackendKind::Memory | BackendKind::Dynoxide)
}

/// Creates `definition`, a table with multi-attribute index keys, through `store` (a view of
/// `backend`'s store): true when it was created; false, printed as a deviation, on a backend
/// without such keys. On one that has them (see [`supports_multi_attribute_keys`]) a refusal
/// fails the test.
pub async fn create_multi_attribute_table(
    backend: &Backend,
    store: &dyn Store,
    definition: &dyno_core::TableDef,
) -> bool {
    match store.create_table(definition).await {
        Ok(()) => true,
        Err(e) => {
            assert!(
                !supports_multi_attribute_keys(backend.kind),
                "{}: {e}",
                backend.name
            );
            println!(
                "deviation: {} lacks multi-attribute GSI keys, skipped: {e}",
                backend.name
            );
            false
        }
    }
}

/// True when concurrent conditional writes on one item are atomic (moto's are not).
pub fn atomic_conditional_writes(kind: BackendKind) -> bool {
    !matches!(kind, BackendKind::Moto)
}

/// A table name no other test (in this or a concurrent process) uses:
/// `prefix` + process id + counter + random suffix. Characters DynamoDB does not allow in table
/// names (anything but `[a-zA-Z0-9_.-]`) are replaced by `_`, and long prefixes are cut so the
/// name stays within 255 characters.
pub fn unique_table_name(prefix: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let suffix = format!("-{}-{n}-{:08x}", std::process::id(), fastrand::u32(..));
    let clean: String = prefix
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '_'
            }
        })
        .take(255 - suffix.len())
        .collect();
    let clean = if clean.is_empty() {
        "t".to_owned()
    } else {
        clean
    };
    format!("{clean}{suffix}")
}

/// A fresh table on `backend` for a test model: `def` created under a unique name (from
/// `prefix`), and a store that maps the model's table name (`def.name`) to it, so that tests
/// sharing a server never see each other's items.
pub async fn fresh_table(
    backend: &Backend,
    def: &dyno_core::TableDef,
    prefix: &str,
) -> Arc<dyn Store> {
    let store: Arc<dyn Store> = Arc::new(
        dyno_core::store::TableNames::new(backend.store.clone())
            .map(def.name.clone(), unique_table_name(prefix)),
    );
    store
        .create_table(def)
        .await
        .unwrap_or_else(|e| panic!("{}: create table {}: {e}", backend.name, def.name));
    store
}

/// The PutItem request another client would send: `item` into `table`, unconditionally, nothing
/// returned.
pub fn put(table: &str, item: dyno_core::Item) -> dyno_core::store::PutRequest {
    dyno_core::store::PutRequest::new(table.to_owned(), item)
}

/// Writes `item` to `table` as another client would: [`put`], sent.
pub async fn raw_put(store: &dyn Store, table: &str, item: dyno_core::Item) {
    store
        .put_item(put(table, item))
        .await
        .unwrap_or_else(|e| panic!("raw put to {table}: {e}"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unique_table_names_are_valid_and_distinct() {
        let valid = |s: &str| {
            (3..=255).contains(&s.len())
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
        };
        let a = unique_table_name("orders");
        let b = unique_table_name("orders");
        assert_ne!(a, b);
        assert!(a.starts_with("orders-"), "{a}");
        for name in [
            a,
            b,
            unique_table_name(""),
            unique_table_name("a b#c/d"),
            unique_table_name(&"x".repeat(400)),
        ] {
            assert!(valid(&name), "invalid table name {name:?}");
        }
        assert!(unique_table_name("a b#c").starts_with("a_b_c-"));
    }

    #[test]
    fn dynalite_lacks_transactions_and_ttl() {
        assert!(!supports_transactions(BackendKind::Dynalite));
        assert!(!supports_ttl(BackendKind::Dynalite));
        for kind in [
            BackendKind::Memory,
            BackendKind::Moto,
            BackendKind::Dynoxide,
        ] {
            assert!(supports_transactions(kind) && supports_ttl(kind));
        }
        assert!(
            supports_streams(BackendKind::Dynoxide) && !supports_streams(BackendKind::Dynalite)
        );
        assert!(!atomic_conditional_writes(BackendKind::Moto));
    }
}
