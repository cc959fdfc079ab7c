//! `EntityExt`: the typed operations as associated functions and methods of every entity.

use super::{Delete, Get, Key, Put, PutMode, Scan, UpdateBuilder};
use crate::entity::Entity;
use crate::table::Table;

/// Typed operations on every [`Entity`] (blanket impl): `User::get(key).send(&store)`,
/// `user.create().send(&store)`, `Order::update(key).set(...).send(&store)`.
pub trait EntityExt: Entity {
    /// Reads the item at `key`.
    fn get(key: Key<Self>) -> Get<Self> {
        Get::new(key)
    }

    /// Writes this entity whether or not it exists (optimistically locked when versioned, see
    /// [`Put`]).
    fn put(&self) -> Put<'_, Self> {
        Put::new(self, PutMode::Upsert)
    }

    /// Writes this entity; fails with [`crate::Error::ConditionFailed`] if an item with its key
    /// exists.
    fn create(&self) -> Put<'_, Self> {
        Put::new(self, PutMode::Create)
    }

    /// Overwrites this entity; fails with [`crate::Error::ConditionFailed`] if no item with its
    /// key exists.
    fn replace(&self) -> Put<'_, Self> {
        Put::new(self, PutMode::Replace)
    }

    /// Deletes the item at `key`, returning it as it was.
    fn delete(key: Key<Self>) -> Delete<Self> {
        Delete::new(key)
    }

    /// Updates the item at `key` (which must exist unless [`UpdateBuilder::upsert`]).
    fn update(key: Key<Self>) -> UpdateBuilder<Self> {
        UpdateBuilder::new(key)
    }

    /// Scans the entity's table, decoding this entity's items and skipping the others.
    fn scan() -> Scan<Self> {
        Scan::new(<Self::Table as Table>::definition().name.clone())
    }
}

impl<E: Entity> EntityExt for E {}
