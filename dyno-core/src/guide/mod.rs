//! The dyno guide: from a table design to a program in production.
//!
//! Documentation only: these modules hold no code, and every example on their pages is a doc
//! test that runs on [`MemoryStore`](crate::MemoryStore), so the guide cannot fall behind the API.
//! They are compiled for `cargo doc` and `cargo test --doc` alone.
//!
//! Read in order, from a newcomer's first model to a service in production:
//!
//! 1. [`modelling`]: a single table for the e-commerce tutorial, starting from its access
//!    patterns;
//! 2. [`keys`]: key templates, escaping, sort order, composite and multi-attribute keys, shards;
//! 3. [`queries`]: queries, sort-key conditions, filters, pages and cursors, projections,
//!    collections, scans;
//! 4. [`writes`]: create, put, replace, update, upsert and delete, and their conditions;
//! 5. [`stamps`]: `created_at`/`updated_at`, generated ids, versions (optimistic locking) and
//!    time to live;
//! 6. [`documents`]: maps, lists and nested structs, with typed paths;
//! 7. [`transactions`]: transactions and the batch engine;
//! 8. [`testing`]: testing with `MemoryStore`;
//! 9. [`caching`]: `dyno-cache`, one process and several;
//! 10. [`production`]: timeouts, retries, capacity and telemetry;
//! 11. [`model_report`]: the model as a design document and a NoSQL Workbench file, named
//!     access patterns, and hot partitions found before production.
//!
//! Coming from elsewhere: [`from_sql`] (a relational schema onto one table) and
//! [`from_electrodb`] (ElectroDB, DynamoDB-Toolbox or the raw SDK, concept by concept).

#[doc = include_str!("modelling.md")]
pub mod modelling {}

#[doc = include_str!("keys.md")]
pub mod keys {}

#[doc = include_str!("queries.md")]
pub mod queries {}

#[doc = include_str!("writes.md")]
pub mod writes {}

#[doc = include_str!("stamps.md")]
pub mod stamps {}

#[doc = include_str!("documents.md")]
pub mod documents {}

#[doc = include_str!("transactions.md")]
pub mod transactions {}

#[doc = include_str!("testing.md")]
pub mod testing {}

#[doc = include_str!("caching.md")]
pub mod caching {}

#[doc = include_str!("production.md")]
pub mod production {}

#[doc = include_str!("model_report.md")]
pub mod model_report {}

#[doc = include_str!("from_sql.md")]
pub mod from_sql {}

#[doc = include_str!("from_electrodb.md")]
pub mod from_electrodb {}
