//! Runs the end-to-end suites through the cache: [`cached`] wraps any backend's store in a
//! [`CachedStore`], so a suite that takes `Arc<dyn Store>` from `backends()` can run each backend
//! twice, plain and cached, and compare what it observes.

use std::sync::Arc;

use dyno_cache::CachedStore;
use dyno_core::Store;

/// `store` behind a [`CachedStore`] with the default settings (tables are described on their
/// first write). Reads that a plain store answers must be answered the same through it.
pub fn cached(store: Arc<dyn Store>) -> Arc<dyn Store> {
    Arc::new(CachedStore::new(store))
}

/// Each `(name, store)` followed by its cached twin, named `"<name>+cache"`.
pub fn with_cached_twins(stores: Vec<(String, Arc<dyn Store>)>) -> Vec<(String, Arc<dyn Store>)> {
    stores
        .into_iter()
        .flat_map(|(name, store)| {
            let twin = (format!("{name}+cache"), cached(store.clone()));
            [(name, store), twin]
        })
        .collect()
}
