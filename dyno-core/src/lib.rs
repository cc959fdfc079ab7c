#![warn(missing_docs, unreachable_pub)]
#![doc = include_str!("lib.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[allow(unused_extern_crates)]
extern crate self as dyno_core;

#[doc(hidden)]
pub mod __private;
#[doc(hidden)]
pub mod canon;
mod capacity;
pub mod cost;
pub mod entity;
pub mod error;
pub mod expr;
pub mod feed;
#[cfg(any(doc, doctest))]
pub mod guide;
#[doc(hidden)]
pub mod hash;
pub mod hot;
mod item;
pub mod key;
pub mod model;
pub mod ops;
pub mod prelude;
pub mod store;
pub mod table;
mod timeouts;
pub mod ttl;
pub mod value;

// The README's examples are doc tests too, so the front page cannot fall behind the API.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub use crate::entity::Entity;
pub use crate::error::{Error, RefusedWrite, Result, UnknownWrite};
pub use crate::key::KeyPart;
#[cfg(feature = "memory")]
#[cfg_attr(docsrs, doc(cfg(feature = "memory")))]
pub use crate::store::MemoryStore;
pub use crate::store::{DynamoStore, Store};
pub use crate::table::{Table, TableDef};
pub use crate::value::{AttributeValue, FromAttribute, Item, ToAttribute};

/// `#[derive(Table)]`, `#[derive(Entity)]`, `#[derive(KeyPart)]`, `#[derive(Projection)]`,
/// `#[derive(Collection)]` and `#[derive(Document)]`: see the `dyno_derive` crate docs and
/// [`entity`].
#[cfg(feature = "derive")]
#[cfg_attr(docsrs, doc(cfg(feature = "derive")))]
pub use dyno_derive::{Collection, Document, Entity, KeyPart, Projection, Table};
