//! What most programs import: `use dyno_core::prelude::*;`.
//!
//! The typed operations on every entity ([`EntityExt`]: `get`, `put`, `create`, `replace`,
//! `update`, `delete`, `scan`), the methods every generated query and update builder shares
//! ([`QueryDsl`]: `filter`, `limit`, `all`, `stream`, `page`...; [`UpdateDsl`]: `condition`,
//! `if_version`, `upsert`, `send`...), typed conditions ([`Cond`], built from the field handles the
//! derive generates, with [`Cond::raw`] as the explicit way in for an untyped
//! [`Condition`](crate::expr::Condition)), the traits the derives implement and the stores.

pub use crate::error::{Error, Result};
pub use crate::expr::Cond;
pub use crate::ops::{EntityExt, Key, QueryDsl, UpdateDsl};
#[cfg(feature = "memory")]
pub use crate::store::MemoryStore;
pub use crate::store::Store;
/// The traits, and with feature `derive` the derives of the same names.
pub use crate::{Entity, KeyPart, Table};
