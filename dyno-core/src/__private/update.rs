//! The state behind the generated update builders: actions on top-level attributes (a later
//! action on an attribute replaces an earlier one, so setting a field twice is not a DynamoDB
//! "overlapping paths" error), conditions and options, turned into an `ops::UpdateBuilder` when
//! sent. Errors met while building are kept and returned by `send`.

use std::fmt;

use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::expr::{Condition, Path, SetValue, UpdateOperand};
use crate::ops::{Key, UpdateBuilder};
use crate::value::{AttributeValue, Item};

#[derive(Debug)]
enum Action {
    Set(SetValue),
    Remove,
    Add(AttributeValue),
    Delete(AttributeValue),
}

/// An index key attribute that an item created by an upsert must hold, and that only the
/// update's own values can give (its template has fields outside the primary key).
#[derive(Debug, Clone, Copy)]
pub struct IndexKeyNeed {
    /// The index key attribute (`GSI1PK`).
    pub attribute: &'static str,
    /// The index.
    pub index: &'static str,
    /// `"partition"` or `"sort"`.
    pub role: &'static str,
    /// The template (`STATUS#{status}`).
    pub template: &'static str,
    /// The fields outside the primary key that the template needs.
    pub fields: &'static [&'static str],
}

/// What a generated update builder has gathered so far.
pub struct UpdateCore<E> {
    key: Key<E>,
    actions: Vec<(String, Action)>,
    condition: Option<Condition>,
    version: Option<u64>,
    upsert: bool,
    needs: &'static [IndexKeyNeed],
    error: Option<Error>,
}

impl<E> fmt::Debug for UpdateCore<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UpdateCore")
            .field("key", &self.key)
            .field("actions", &self.actions)
            .field("condition", &self.condition)
            .field("version", &self.version)
            .field("upsert", &self.upsert)
            .field("needs", &self.needs)
            .field("error", &self.error)
            .finish()
    }
}

impl<E: Entity> UpdateCore<E> {
    /// An update of the item with `key`.
    pub fn new(key: Key<E>) -> Self {
        UpdateCore {
            key,
            actions: Vec::new(),
            condition: None,
            version: None,
            upsert: false,
            needs: &[],
            error: None,
        }
    }

    /// The key attributes (to recompute shards and read primary-key segments).
    pub fn key(&self) -> &Item {
        self.key.as_item()
    }

    /// Keeps the first error.
    pub fn record(&mut self, r: Result<()>) {
        if let Err(e) = r {
            if self.error.is_none() {
                self.error = Some(e.for_entity(E::ENTITY_TYPE));
            }
        }
    }

    fn push(&mut self, name: &str, action: Action) {
        self.actions.retain(|(n, _)| n != name);
        self.actions.push((name.to_owned(), action));
    }

    fn with<T>(&mut self, name: &str, value: Result<T>) -> Option<T> {
        match value {
            Ok(v) => Some(v),
            Err(e) => {
                self.record(Err(e.at(E::ENTITY_TYPE, name)));
                None
            }
        }
    }

    /// `SET name = :value`, or `REMOVE name` when the value has no attribute form (`None`).
    pub fn set_attr(&mut self, name: &str, value: Option<AttributeValue>) {
        match value {
            Some(v) => self.push(name, Action::Set(SetValue::value(v))),
            None => self.push(name, Action::Remove),
        }
    }

    /// [`Self::set_attr`] with an encoding result.
    pub fn set_attr_result(&mut self, name: &str, value: Result<Option<AttributeValue>>) {
        if let Some(v) = self.with(name, value) {
            self.set_attr(name, v);
        }
    }

    /// [`Self::set_attr`], or with `if_absent` [`Self::set_if_absent`] (a created-at stamp and the
    /// index keys made from it are written only where the item has none).
    pub fn set_attr_as(&mut self, name: &str, value: Option<AttributeValue>, if_absent: bool) {
        if if_absent {
            self.set_if_absent(name, Ok(value));
        } else {
            self.set_attr(name, value);
        }
    }

    /// `REMOVE name`
    pub fn remove_attr(&mut self, name: &str) {
        self.push(name, Action::Remove);
    }

    /// `SET name = if_not_exists(name, :value)` (nothing for a value without attribute form).
    pub fn set_if_absent(&mut self, name: &str, value: Result<Option<AttributeValue>>) {
        if let Some(Some(v)) = self.with(name, value) {
            let path = Path::attr(name);
            self.push(
                name,
                Action::Set(SetValue::Operand(UpdateOperand::IfNotExists(
                    path,
                    Box::new(UpdateOperand::Value(v)),
                ))),
            );
        }
    }

    /// [`Self::set_if_absent`], named like the other `_result` methods.
    pub fn set_if_absent_result(&mut self, name: &str, value: Result<Option<AttributeValue>>) {
        self.set_if_absent(name, value);
    }

    /// `ADD name :value` (numbers and sets).
    pub fn add_result(&mut self, name: &str, value: Result<Option<AttributeValue>>) {
        if let Some(Some(v)) = self.with(name, value) {
            self.push(name, Action::Add(v));
        }
    }

    /// `SET name = if_not_exists(name, 0) - :value`
    pub fn subtract_result(&mut self, name: &str, value: Result<Option<AttributeValue>>) {
        if let Some(Some(v)) = self.with(name, value) {
            let current = UpdateOperand::IfNotExists(
                Path::attr(name),
                Box::new(UpdateOperand::Value(AttributeValue::N("0".into()))),
            );
            self.push(
                name,
                Action::Set(SetValue::Minus(current, UpdateOperand::Value(v))),
            );
        }
    }

    /// `SET name = list_append(if_not_exists(name, []), :value)`
    pub fn append_result(&mut self, name: &str, value: Result<Option<AttributeValue>>) {
        if let Some(Some(v)) = self.with(name, value) {
            let current = UpdateOperand::IfNotExists(
                Path::attr(name),
                Box::new(UpdateOperand::Value(AttributeValue::L(Vec::new()))),
            );
            self.push(
                name,
                Action::Set(SetValue::Operand(UpdateOperand::ListAppend(
                    Box::new(current),
                    Box::new(UpdateOperand::Value(v)),
                ))),
            );
        }
    }

    /// `DELETE name :value` (set elements).
    pub fn delete_elements_result(&mut self, name: &str, value: Result<Option<AttributeValue>>) {
        if let Some(Some(v)) = self.with(name, value) {
            self.push(name, Action::Delete(v));
        }
    }

    /// Adds a condition (ANDed).
    pub fn condition(&mut self, condition: Result<Condition>) {
        match condition {
            Ok(c) => self.condition = Some(Condition::and_opt(self.condition.take(), c)),
            Err(e) => self.record(Err(e)),
        }
    }

    /// Optimistic lock on `version`.
    pub fn if_version(&mut self, version: u64) {
        self.version = Some(version);
    }

    /// Creates the item when absent. `needs` are the index key attributes of non-sparse indexes
    /// that the update must set for a created item to be in its indexes (those computed from the
    /// primary key alone are set by the caller).
    pub fn upsert(&mut self, needs: &'static [IndexKeyNeed]) {
        self.upsert = true;
        self.needs = needs;
    }

    /// An upsert must not create an item that is silently missing from a non-sparse index: the
    /// index key attributes it cannot write are an error, listed with the fields to set.
    fn check_index_keys(&self) -> Result<()> {
        if !self.upsert {
            return Ok(());
        }
        let sets = |name: &str| {
            self.actions
                .iter()
                .any(|(n, a)| n == name && matches!(a, Action::Set(_)))
        };
        let missing: Vec<String> = self
            .needs
            .iter()
            .filter(|need| !sets(need.attribute))
            .map(|need| {
                format!(
                    "{} (the {} key of index {}, `{}`, needs {})",
                    need.attribute,
                    need.role,
                    need.index,
                    need.template,
                    need.fields
                        .iter()
                        .map(|f| format!("`{f}`"))
                        .collect::<Vec<_>>()
                        .join(" and ")
                )
            })
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        Err(Error::validation(format!(
            "upsert of {}: an item it creates would lack index key attribute(s) {}, so it would never \
             appear in those indexes; set those fields in this update, or write the whole item with \
             put/create, or update without upsert",
            E::ENTITY_TYPE,
            missing.join(", ")
        )))
    }

    /// The `ops` builder, or the first error met building.
    pub fn into_builder(self) -> Result<UpdateBuilder<E>> {
        // An invalid key explains any later error (its segments read as missing), so it comes first.
        let index_keys = self.check_index_keys();
        let key = self.key.check().map_err(|e| e.for_entity(E::ENTITY_TYPE))?;
        if let Some(e) = self.error {
            return Err(e);
        }
        index_keys?;
        let mut b = UpdateBuilder::new(key);
        for (name, action) in self.actions {
            let path = Path::attr(name);
            b = match action {
                Action::Set(v) => b.set(path, v),
                Action::Remove => b.remove(path),
                Action::Add(v) => b.add(path, v),
                Action::Delete(v) => b.delete_elements(path, v),
            };
        }
        if let Some(c) = self.condition {
            b = b.condition(crate::expr::Cond::raw(c));
        }
        if let Some(v) = self.version {
            b = b.if_version(v);
        }
        if self.upsert {
            b = b.upsert();
        }
        Ok(b)
    }
}
