//! TEMPORARY stand-in for `dyno_tests::backend` (MemoryStore only) until the harness lands.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use dyno_core::{MemoryStore, Store};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BackendKind {
    Memory,
    Dynalite,
    Moto,
}

pub struct Backend {
    pub name: &'static str,
    pub kind: BackendKind,
    pub store: Arc<dyn Store>,
}

pub async fn backends() -> Vec<Backend> {
    vec![Backend {
        name: "memory",
        kind: BackendKind::Memory,
        store: Arc::new(MemoryStore::new()),
    }]
}

pub fn unique_table_name(prefix: &str) -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    format!(
        "{prefix}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}
