//! dyno-cache's CachedStore and the change feeds that keep caches coherent: semantics,
//! concurrency, memory, monotonic reads, feeds and the follower. One test binary; each module
//! was its own binary before (test names keep the module as their prefix, e.g.
//! `cache_semantics::`).

mod cache_access_patterns;
mod cache_concurrency;
mod cache_memory;
mod cache_monotonic;
mod cache_semantics;
mod cache_util;
mod feed;
mod feed_coherence;
mod feed_faults;
mod feed_figures;
mod feed_util;
