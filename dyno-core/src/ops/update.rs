//! Typed UpdateItem.

use std::fmt;

use tracing::Instrument;

use super::support::{decode, item_exists, number, owned_by, table_name, version_is, write_result};
use super::Key;
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::expr::{self, Cond, Condition, Path, SetValue, UpdateOperand};
use crate::store::{ReturnValues, Store, TransactWriteItem, UpdateRequest};
use crate::table::Table;
use crate::value::{attribute_size, AttributeValue, MAX_ITEM_SIZE};

/// Updates one `E` in place and returns it as it is after the update; built by
/// [`super::EntityExt::update`] or by the derive's typed update builders.
///
/// By default the item must exist (`attribute_exists` on the partition key), so that an update
/// never creates a partial item that would not decode; [`UpdateBuilder::upsert`] lifts that.
/// When `E` has a version attribute, every update adds 1 to it, and
/// [`UpdateBuilder::if_version`] makes the update conditional on the stored version.
///
/// An update never modifies another entity's item (entities sharing a key shape): it is
/// conditioned on the item's entity-type attribute being `E`'s or absent, in the same request,
/// and fails with [`Error::WrongEntity`] otherwise, changing nothing (in a
/// [`super::Transaction`], the same condition cancels the transaction).
#[must_use = "an update does nothing until it is sent"]
pub struct UpdateBuilder<E: Entity> {
    key: Key<E>,
    update: expr::Update,
    condition: Option<Condition>,
    /// The first condition that failed to build: sending fails with it.
    condition_error: Option<Error>,
    version: Option<u64>,
    upsert: bool,
}

impl<E: Entity> fmt::Debug for UpdateBuilder<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UpdateBuilder")
            .field("entity", &E::ENTITY_TYPE)
            .field("key", &self.key)
            .field("update", &self.update)
            .field("condition", &self.condition)
            .field("version", &self.version)
            .field("upsert", &self.upsert)
            .finish()
    }
}

impl<E: Entity> UpdateBuilder<E> {
    /// An update of the item at `key`, with no action yet.
    pub fn new(key: Key<E>) -> Self {
        UpdateBuilder {
            key,
            update: expr::Update::default(),
            condition: None,
            condition_error: None,
            version: None,
            upsert: false,
        }
    }

    /// `SET path = value`.
    pub fn set(mut self, path: Path, value: SetValue) -> Self {
        self.update.set.push((path, value));
        self
    }

    /// `REMOVE path`.
    pub fn remove(mut self, path: Path) -> Self {
        self.update.remove.push(path);
        self
    }

    /// `ADD path value`: adds to a number (starting from 0) or to a set.
    pub fn add(mut self, path: Path, value: AttributeValue) -> Self {
        self.update.add.push((path, value));
        self
    }

    /// `DELETE path value`: removes elements from a set.
    pub fn delete_elements(mut self, path: Path, value: AttributeValue) -> Self {
        self.update.delete.push((path, value));
        self
    }

    /// Adds a condition on the existing item, ANDed with the others: a typed condition on `E`'s
    /// fields, or an untyped one through [`Cond::raw`]. A condition that failed to build makes
    /// sending fail with its error.
    pub fn condition(mut self, c: Cond<E>) -> Self {
        match c.into_condition() {
            Ok(c) => self.condition = Some(Condition::and_opt(self.condition, c)),
            Err(e) => {
                self.condition_error.get_or_insert(e);
            }
        }
        self
    }

    /// Optimistic lock: the stored version must be `v` (0: no version stored yet). Failing is
    /// [`Error::ConditionFailed`]; entities without a version attribute refuse it when sent.
    pub fn if_version(mut self, v: u64) -> Self {
        self.version = Some(v);
        self
    }

    /// Allows the update to create the item when it does not exist (it then holds only the key,
    /// the updated attributes and the entity type, and may not decode as `E`).
    ///
    /// This untyped builder writes exactly the attributes it is given: index key attributes
    /// included, so an item it creates is in an index only if the update sets that index's key
    /// attributes. The derive's typed `upsert` computes those keys and refuses an upsert that
    /// would create an item missing from a non-sparse index.
    pub fn upsert(mut self) -> Self {
        self.upsert = true;
        self
    }

    /// The actions so far (without the version increment added when sent).
    pub fn update_expr(&self) -> &expr::Update {
        &self.update
    }

    /// The request parts: actions (with version and entity type), condition; size checked.
    fn parts(self) -> Result<(crate::value::Item, expr::Update, Option<Condition>)> {
        let UpdateBuilder {
            key,
            mut update,
            condition,
            condition_error,
            version,
            upsert,
        } = self;
        if let Some(e) = condition_error {
            return Err(e.for_entity(E::ENTITY_TYPE));
        }
        let key = super::support::key_item(key)?;
        let touches = |u: &expr::Update, name: &str| u.paths().any(|p| p.top() == Some(name));
        let mut cond = Some(if upsert {
            owned_by::<E>()
        } else {
            item_exists::<E>().and(owned_by::<E>())
        });
        match (E::VERSION_ATTRIBUTE, version) {
            (Some(attr), v) => {
                if !touches(&update, attr) {
                    update.add.push((Path::attr(attr), number(1)));
                }
                if let Some(v) = v {
                    cond = Some(Condition::and_opt(cond, version_is(attr, v)));
                }
            }
            (None, Some(v)) => {
                return Err(Error::validation(format!(
                    "update of {}: if_version({v}) needs a version attribute, and {} has none",
                    E::ENTITY_TYPE,
                    E::ENTITY_TYPE
                )))
            }
            (None, None) => {}
        }
        if upsert {
            let type_attr = <E::Table as Table>::ENTITY_ATTRIBUTE;
            if !touches(&update, type_attr) {
                update.set.push((
                    Path::attr(type_attr),
                    SetValue::Operand(UpdateOperand::IfNotExists(
                        Path::attr(type_attr),
                        Box::new(UpdateOperand::Value(AttributeValue::S(
                            E::ENTITY_TYPE.to_owned(),
                        ))),
                    )),
                ));
            }
        }
        if let Some(c) = condition {
            cond = Some(Condition::and_opt(cond, c));
        }
        check_update_size::<E>(&key, &update)?;
        Ok((key, update, cond))
    }

    /// The request this update sends.
    pub fn into_request(self) -> Result<UpdateRequest> {
        let (key, update, condition) = self.parts()?;
        Ok(UpdateRequest {
            table: table_name::<E>(),
            key,
            update,
            condition,
            return_values: ReturnValues::AllNew,
            return_old_on_condition_failure: false,
        })
    }

    /// The same update as an action of a [`super::Transaction`].
    pub fn into_transact(self) -> Result<TransactWriteItem> {
        let (key, update, condition) = self.parts()?;
        Ok(TransactWriteItem::Update {
            table: table_name::<E>(),
            key,
            update,
            condition,
            return_old_on_condition_failure: false,
        })
    }

    /// Applies the update and returns the item as it is now, decoded.
    pub async fn send<S: Store + ?Sized>(self, store: &S) -> Result<E> {
        let span = tracing::debug_span!("dyno.update", entity = E::ENTITY_TYPE);
        let upsert = self.upsert;
        let request = self.into_request()?;
        let key = request.key.clone();
        let result = store.update_item(request).instrument(span).await;
        let out = match write_result::<E, S, _>(store, &key, result).await {
            Ok(out) => out,
            // Not another entity's item: absent (without upsert), or a failed condition.
            Err(Error::ConditionFailed { item: None, .. }) if !upsert => {
                return Err(missing_or_failed::<E, S>(store, key).await);
            }
            Err(e) => return Err(e),
        };
        match out.attributes {
            Some(item) => decode::<E>(&item),
            None => Err(Error::decode(
                format!("the updated {} (ReturnValues ALL_NEW)", E::ENTITY_TYPE),
                "no attributes",
            )
            .for_entity(E::ENTITY_TYPE)),
        }
    }
}

/// The error of an update (without upsert) whose condition failed: [`Error::NotFound`] when the
/// item does not exist (a strongly consistent read tells, since servers need not return the old
/// item), else the condition failure itself.
async fn missing_or_failed<E: Entity, S: Store + ?Sized>(
    store: &S,
    key: crate::value::Item,
) -> Error {
    let failed = Error::ConditionFailed {
        entity: Some(E::ENTITY_TYPE),
        item: None,
    };
    let read = crate::store::GetRequest::new(table_name::<E>(), key.clone()).consistent();
    match store.get_item(read).await {
        Ok(out) if out.item.is_none() => Error::NotFound {
            entity: Some(E::ENTITY_TYPE),
            message: format!(
                "no item at key {}: an update without upsert() changes only an existing item, \
                 and nothing was written",
                super::batch::describe_key(&key)
            ),
        },
        // Present, or unknown: the condition failure stands.
        _ => failed,
    }
}

/// The key plus the literal values an update writes is a lower bound of the item's size after
/// the update: over the limit, the update cannot succeed, so it is refused before sending.
fn check_update_size<E: Entity>(key: &crate::value::Item, update: &expr::Update) -> Result<()> {
    fn operand_size(o: &UpdateOperand) -> usize {
        match o {
            UpdateOperand::Value(v) => attribute_size(v),
            UpdateOperand::IfNotExists(_, o) => operand_size(o),
            UpdateOperand::ListAppend(a, b) => operand_size(a) + operand_size(b),
            UpdateOperand::Path(_) => 0,
        }
    }
    // Index keys the update sets (a typed update rewrites them with the fields they are made of).
    super::support::check_key_attributes::<E>(|name| {
        update.set.iter().find_map(|(path, value)| match value {
            SetValue::Operand(UpdateOperand::Value(v)) if *path == Path::attr(name) => Some(v),
            _ => None,
        })
    })?;
    let mut size = crate::value::item_size(key);
    for (path, value) in &update.set {
        let name = path.top().map_or(0, str::len);
        size += name
            + match value {
                SetValue::Operand(o) => operand_size(o),
                SetValue::Plus(..) | SetValue::Minus(..) => 0,
            };
    }
    if size > MAX_ITEM_SIZE {
        return Err(Error::ItemTooLarge {
            entity: Some(E::ENTITY_TYPE),
            size,
            limit: MAX_ITEM_SIZE,
        });
    }
    Ok(())
}
