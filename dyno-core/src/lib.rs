#![warn(missing_docs, unreachable_pub)]
#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
//!
//! # Modules
//!
//! `dyno-core` is the runtime of dyno:
//!
//! - [`value`]: the codec between Rust values and DynamoDB attribute values;
//! - [`key`]: key segments and key templates (`USER#{user_id}`);
//! - [`expr`]: expressions as a typed tree, rendered with placeholders;
//! - [`table`] and [`entity`]: the traits the derives implement (and, in [`entity`], key
//!   recovery and the timestamp and TTL field types);
//! - [`store`]: the `Store` trait, `DynamoStore` and `MemoryStore`;
//! - [`ops`]: typed operations, the query and update builders (and [`ops::QueryDsl`] /
//!   [`ops::UpdateDsl`], what every generated builder shares), sort-key ranges, sharded keys,
//!   pagination and the batch engine;
//! - [`feed`]: change feeds (MemoryStore's stream, DynamoDB Streams);
//! - [`hash`]: FNV-1a, the stable hash behind shard numbers and cursors;
//! - [`prelude`]: what most programs import.

#[allow(unused_extern_crates)]
extern crate self as dyno_core;

#[doc(hidden)]
pub mod __private;
pub mod canon;
pub mod entity;
pub mod error;
pub mod expr;
pub mod feed;
pub mod hash;
pub mod key;
pub mod ops;
pub mod prelude;
pub mod store;
pub mod table;
pub mod ttl;
pub mod value;

pub use crate::entity::Entity;
pub use crate::error::{Error, Result, UnknownWrite};
pub use crate::key::KeyPart;
pub use crate::store::{DynamoStore, MemoryStore, Store};
pub use crate::table::{Table, TableDef};
pub use crate::value::{AttributeValue, FromAttribute, Item, ToAttribute};

/// `#[derive(Table)]`, `#[derive(Entity)]`, `#[derive(KeyPart)]`, `#[derive(Projection)]`,
/// `#[derive(Collection)]` and `#[derive(Document)]`: see the `dyno_derive` crate docs and
/// [`entity`].
#[cfg(feature = "derive")]
#[cfg_attr(docsrs, doc(cfg(feature = "derive")))]
pub use dyno_derive::{Collection, Document, Entity, KeyPart, Projection, Table};
