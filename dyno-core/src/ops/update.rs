//! Typed UpdateItem.

use std::fmt;

use tracing::Instrument;

use super::bounds::{Arithmetic, Bound, Bounds, Given, Op};
use super::entity_rules::{
    condition_failure_of, decode, number, table_name, version_is, EntityShape, Owner,
};
use super::Key;
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::expr::typed::{encode_value, FieldValue};
use crate::expr::{self, Cond, Condition, Path, SetValue, UpdateOperand};
use crate::store::{GetRequest, ReturnValues, Store, TransactWriteItem, UpdateRequest};
use crate::value::{attribute_size, AttributeValue, MAX_ITEM_SIZE};

/// An index key attribute that an item created by an upsert must hold, and that only the
/// update's own values can give (its template has fields outside the primary key): see
/// [`UpdateBuilder::require_index_keys`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

impl IndexKeyNeed {
    /// Index key `attribute` of `index` (its `role`, `"partition"` or `"sort"`), written from
    /// `template`, which needs `fields` outside the primary key.
    pub const fn new(
        attribute: &'static str,
        index: &'static str,
        role: &'static str,
        template: &'static str,
        fields: &'static [&'static str],
    ) -> Self {
        IndexKeyNeed {
            attribute,
            index,
            role,
            template,
            fields,
        }
    }
}

#[derive(Debug, Clone)]
enum Action {
    Set(SetValue),
    Remove,
    Add(AttributeValue),
    Delete(AttributeValue),
}

/// Updates one `E` in place and returns it as it is after the update; built by
/// [`super::EntityExt::update`], and wrapped by the derive's typed update builders
/// (`Order::update(key).set_status(..)`), which add one method per field and action.
///
/// Actions name attribute paths; a later action on a path replaces an earlier one, so setting a
/// field twice keeps the last value (DynamoDB would refuse the two as overlapping paths).
/// Errors met while building (a value that cannot be encoded, a condition that failed to build,
/// an invalid key) are kept, and sending (or [`UpdateBuilder::into_request`]) returns the first,
/// before anything is sent.
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
///
/// A hand-written entity uses it directly:
///
/// ```
/// use dyno_core::expr::{Path, SetValue};
/// use dyno_core::ops::{Key, UpdateBuilder};
/// use dyno_core::{AttributeValue, Entity, Item, Result, Table, TableDef};
/// # struct Shop;
/// # impl Table for Shop {
/// #     fn definition() -> &'static TableDef {
/// #         static D: std::sync::OnceLock<TableDef> = std::sync::OnceLock::new();
/// #         D.get_or_init(|| TableDef::new("Shop", "PK", Some("SK")))
/// #     }
/// # }
/// # struct Counter;
/// # impl Entity for Counter {
/// #     type Table = Shop;
/// #     const ENTITY_TYPE: &'static str = "Counter";
/// #     const PK: dyno_core::key::Template = dyno_core::key::Template::new(&[]);
/// #     const SK: Option<dyno_core::key::Template> = None;
/// #     fn key(&self) -> Result<Item> { unimplemented!() }
/// #     fn to_item(&self) -> Result<Item> { unimplemented!() }
/// #     fn from_item(_: &Item) -> Result<Self> { Ok(Counter) }
/// # }
/// let key: Key<Counter> = Key::from_item(Item::from([
///     ("PK".to_owned(), AttributeValue::S("COUNTER#home".into())),
///     ("SK".to_owned(), AttributeValue::S("COUNTER".into())),
/// ]));
/// let mut update = UpdateBuilder::new(key).add(Path::attr("views"), AttributeValue::N("1".into()));
/// update.set_value("label", Ok(Some(AttributeValue::S("first".into()))));
/// update.set_value("label", Ok(Some(AttributeValue::S("home".into())))); // replaces the first
/// let request = update.into_request()?;
/// assert_eq!(request.update.set.len(), 1);
/// # Ok::<(), dyno_core::Error>(())
/// ```
#[must_use = "an update does nothing until it is sent"]
pub struct UpdateBuilder<E: Entity> {
    key: Key<E>,
    /// Everything but the key: not generic over the entity, so that building an update is
    /// compiled once rather than once per entity (the methods here are thin shells over it).
    s: UpdateState,
}

/// What an [`UpdateBuilder`] holds besides its key.
#[derive(Debug)]
struct UpdateState {
    /// The entity's type name, for errors.
    entity: &'static str,
    actions: Vec<(Path, Action)>,
    condition: Option<Condition>,
    /// The first error met building: sending fails with it.
    error: Option<Error>,
    version: Option<u64>,
    upsert: bool,
    needs: &'static [IndexKeyNeed],
    /// The range conditions of typed arithmetic ([`UpdateBuilder::add_number`]), one per
    /// attribute.
    bounds: Vec<Bound>,
    /// [`UpdateBuilder::keep_updated_at`]: the typed update leaves `updated_at` as it is.
    keep_updated_at: bool,
    /// [`UpdateBuilder::given_value`]: values the stored item must hold (conditions, not
    /// writes).
    givens: Vec<Given>,
    /// [`UpdateBuilder::require_fields`]: `(attribute, field)` an upsert must write.
    required: Vec<(&'static str, &'static str)>,
}

impl<E: Entity> fmt::Debug for UpdateBuilder<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.s.debug(&self.key.debug_view(), f)
    }
}

impl<E: Entity> UpdateBuilder<E> {
    /// An update of the item at `key`, with no action yet.
    pub fn new(key: Key<E>) -> Self {
        UpdateBuilder {
            key,
            s: UpdateState::new(E::ENTITY_TYPE),
        }
    }

    /// Asks the typed update built on this builder not to bump the entity's `#[dyno(updated_at)]`
    /// field (generated updates stamp it when they are finished: sent, or turned into a builder
    /// or a transaction action). The typed `keep_updated_at()` calls it.
    pub fn keep_updated_at(mut self) -> Self {
        self.s.keep_updated_at = true;
        self
    }

    /// True after [`Self::keep_updated_at`].
    #[doc(hidden)]
    pub fn keeps_updated_at(&self) -> bool {
        self.s.keep_updated_at
    }

    /// The key attributes (empty for an invalid key), to read primary-key segments from.
    pub fn key(&self) -> &crate::value::Item {
        self.key.as_item()
    }

    /// Keeps the first error: sending fails with it.
    #[doc(hidden)]
    pub fn record(&mut self, r: Result<()>) {
        self.s.record(r)
    }

    /// `SET path = value`.
    pub fn set(mut self, path: Path, value: SetValue) -> Self {
        self.s.push(path, Action::Set(value));
        self
    }

    /// `REMOVE path`.
    pub fn remove(mut self, path: Path) -> Self {
        self.s.push(path, Action::Remove);
        self
    }

    /// `ADD path value`: adds to a number (starting from 0) or to a set.
    pub fn add(mut self, path: Path, value: AttributeValue) -> Self {
        self.s.push(path, Action::Add(value));
        self
    }

    /// `DELETE path value`: removes elements from a set.
    pub fn delete_elements(mut self, path: Path, value: AttributeValue) -> Self {
        self.s.push(path, Action::Delete(value));
        self
    }

    /// `SET name = value` on a top-level attribute, from an encoding result: `REMOVE name` when
    /// the value has no attribute form (`None`), the error recorded when encoding failed.
    #[doc(hidden)]
    pub fn set_value(&mut self, name: &str, value: Result<Option<AttributeValue>>) {
        self.s.set_value(name, value)
    }

    /// `SET path = value`, from an encoding result: without an attribute form (`None`),
    /// `REMOVE path`, or in a list, where an element cannot be absent, `NULL` (as the codec
    /// writes `None` inside a list); the error recorded when encoding failed.
    #[doc(hidden)]
    pub fn set_path_value(&mut self, path: Path, value: Result<Option<AttributeValue>>) {
        self.s.set_path_value(path, value)
    }

    /// [`Self::set_value`], or with `if_absent` [`Self::set_if_absent_value`] (a created-at stamp
    /// and the index keys made from it are written only where the item has none).
    #[doc(hidden)]
    pub fn set_value_as(
        &mut self,
        name: &str,
        value: Result<Option<AttributeValue>>,
        if_absent: bool,
    ) {
        self.s.set_value_as(name, value, if_absent)
    }

    /// Writes index key attributes (`keys`) computed from the values this update sets, and
    /// removes those in `removes` (the keys of a sparse index whose field is now `None`); with
    /// `if_absent`, the keys are written only where the item has none, and nothing is removed.
    #[doc(hidden)]
    pub fn set_index_keys(&mut self, keys: crate::value::Item, removes: &[&str], if_absent: bool) {
        self.s.set_index_keys(keys, removes, if_absent)
    }

    /// Field `field` (attribute `name`) holds `value`, given to rebuild the index key attribute(s)
    /// `rebuilds` rather than to be written: the update is conditioned on the stored item holding
    /// it (`name = :value`, or `attribute_not_exists(name)` for a value without attribute form),
    /// so that an update built from a stale read fails with [`Error::StaleKeyField`] and writes
    /// nothing, instead of reverting a concurrent change. With [`Self::upsert`], an item the
    /// update creates is written with it (`if_not_exists`), the key it rebuilds being made of it.
    ///
    /// The typed `set_<field>_given` setters of a multi-field index key call it for the key's
    /// other fields and for a created-at stamp, which no update rewrites. A value this update
    /// writes itself is not a condition: given the same value, nothing is added; given another,
    /// the update fails before sending (the key would not match the item).
    ///
    /// ```
    /// use dyno_core::expr::{Path, SetValue, UpdateOperand};
    /// use dyno_core::ops::{Key, UpdateBuilder};
    /// use dyno_core::{AttributeValue, Entity, Item, Result, Table, TableDef};
    /// # struct Shop;
    /// # impl Table for Shop {
    /// #     fn definition() -> &'static TableDef {
    /// #         static D: std::sync::OnceLock<TableDef> = std::sync::OnceLock::new();
    /// #         D.get_or_init(|| TableDef::new("Shop", "PK", Some("SK")))
    /// #     }
    /// # }
    /// # struct Pr;
    /// # impl Entity for Pr {
    /// #     type Table = Shop;
    /// #     const ENTITY_TYPE: &'static str = "Pr";
    /// #     const PK: dyno_core::key::Template = dyno_core::key::Template::new(&[]);
    /// #     const SK: Option<dyno_core::key::Template> = None;
    /// #     fn key(&self) -> Result<Item> { unimplemented!() }
    /// #     fn to_item(&self) -> Result<Item> { unimplemented!() }
    /// #     fn from_item(_: &Item) -> Result<Self> { Ok(Pr) }
    /// # }
    /// let s = |v: &str| AttributeValue::S(v.into());
    /// let key: Key<Pr> = Key::from_item(Item::from([("PK".to_owned(), s("PR#1")), ("SK".to_owned(), s("PR"))]));
    /// let mut update = UpdateBuilder::new(key);
    /// update.set_value("status", Ok(Some(s("closed"))));
    /// update.given_value("username", "username", Ok(Some(s("ann"))), "GSI2SK");
    /// update.set_value("GSI2SK", Ok(Some(s("ann#closed"))));
    /// let request = update.into_request()?;
    /// // `username` is a condition, and written only where absent (an item an upsert creates).
    /// let username = request.update.set.iter().find(|(p, _)| *p == Path::attr("username"));
    /// assert!(matches!(username, Some((_, SetValue::Operand(UpdateOperand::IfNotExists(..))))));
    /// assert!(format!("{:?}", request.condition).contains("username"));
    /// # Ok::<(), dyno_core::Error>(())
    /// ```
    #[doc(hidden)]
    pub fn given_value(
        &mut self,
        field: &'static str,
        name: &str,
        value: Result<Option<AttributeValue>>,
        rebuilds: &str,
    ) {
        self.s.given_value(field, name, value, rebuilds)
    }

    /// `REMOVE name` on a top-level attribute.
    #[doc(hidden)]
    pub fn remove_attr(&mut self, name: &str) {
        self.s.remove_attr(name)
    }

    /// `REMOVE path`: an attribute, a map entry, a document's field, or a list element (the
    /// elements after it move down one place).
    #[doc(hidden)]
    pub fn remove_path(&mut self, path: Path) {
        self.s.remove_path(path)
    }

    /// `SET name = if_not_exists(name, :value)` (nothing for a value without attribute form).
    #[doc(hidden)]
    pub fn set_if_absent_value(&mut self, name: &str, value: Result<Option<AttributeValue>>) {
        self.s.set_if_absent_value(name, value)
    }

    /// `SET path = if_not_exists(path, :value)` (nothing for a value without attribute form).
    #[doc(hidden)]
    pub fn set_if_absent_path(&mut self, path: Path, value: Result<Option<AttributeValue>>) {
        self.s.set_if_absent_path(path, value)
    }

    /// `ADD name :value` (numbers and sets).
    #[doc(hidden)]
    pub fn add_value(&mut self, name: &str, value: Result<Option<AttributeValue>>) {
        self.s.add_value(name, value)
    }

    /// `ADD path :value` (numbers and sets), on an attribute or a path inside one.
    #[doc(hidden)]
    pub fn add_path(&mut self, path: Path, value: Result<Option<AttributeValue>>) {
        self.s.add_path(path, value)
    }

    /// `ADD name :delta` on a number field of type `T`, with a condition in the same request
    /// that keeps the result inside `T` (an absent value counts as 0): otherwise the update
    /// fails with [`Error::OutOfRange`] naming the field, the stored value and the delta, and
    /// writes nothing. The typed `add_<field>` setters call it.
    #[doc(hidden)]
    pub fn add_number<T: Arithmetic>(&mut self, name: &str, delta: impl FieldValue<T>) {
        self.s.add_number::<T>(name, delta)
    }

    /// Requires that the map entry written at `path` is not stored under `other`, another name
    /// of its key ([`Field::entry`](crate::expr::Field::entry)): sent as a condition, and a
    /// failure of it explained naming both.
    pub(crate) fn guard_spelling(&mut self, path: &Path, other: Path) {
        self.s.guard_spelling(path, other)
    }

    /// [`Self::add_number`] on a path inside an attribute (a map entry, a document's field): the
    /// result is kept inside `T` the same way.
    #[doc(hidden)]
    pub fn add_number_at<T: Arithmetic>(&mut self, path: Path, delta: impl FieldValue<T>) {
        self.s.add_number_at::<T>(path, delta)
    }

    /// `SET name = if_not_exists(name, 0) - :delta`, kept inside `T` as [`Self::add_number`].
    #[doc(hidden)]
    pub fn subtract_number<T: Arithmetic>(&mut self, name: &str, delta: impl FieldValue<T>) {
        self.s.subtract_number::<T>(name, delta)
    }

    /// [`Self::subtract_number`] on a path inside an attribute.
    #[doc(hidden)]
    pub fn subtract_number_at<T: Arithmetic>(&mut self, path: Path, delta: impl FieldValue<T>) {
        self.s.subtract_number_at::<T>(path, delta)
    }

    /// `SET name = if_not_exists(name, 0) - :value`.
    #[doc(hidden)]
    pub fn subtract_value(&mut self, name: &str, value: Result<Option<AttributeValue>>) {
        self.s.subtract_value(name, value)
    }

    /// `SET path = if_not_exists(path, 0) - :value`.
    #[doc(hidden)]
    pub fn subtract_path(&mut self, path: Path, value: Result<Option<AttributeValue>>) {
        self.s.subtract_path(path, value)
    }

    /// `SET name = list_append(if_not_exists(name, []), :value)`.
    #[doc(hidden)]
    pub fn append_value(&mut self, name: &str, value: Result<Option<AttributeValue>>) {
        self.s.append_value(name, value)
    }

    /// `SET path = list_append(if_not_exists(path, []), :items)`, or with `prepend`
    /// `list_append(:items, if_not_exists(path, []))`: the list is created when absent.
    #[doc(hidden)]
    pub fn append_path(
        &mut self,
        path: Path,
        items: Result<Option<AttributeValue>>,
        prepend: bool,
    ) {
        self.s.append_path(path, items, prepend)
    }

    /// `DELETE name :value` (set elements).
    #[doc(hidden)]
    pub fn delete_value(&mut self, name: &str, value: Result<Option<AttributeValue>>) {
        self.s.delete_value(name, value)
    }

    /// `DELETE path :value` (set elements), on an attribute or a path inside one.
    #[doc(hidden)]
    pub fn delete_path(&mut self, path: Path, value: Result<Option<AttributeValue>>) {
        self.s.delete_path(path, value)
    }

    /// Adds a condition on the existing item, ANDed with the others: a typed condition on `E`'s
    /// fields, or an untyped one through [`Cond::raw`]. A condition that failed to build makes
    /// sending fail with its error.
    pub fn condition(mut self, c: Cond<E>) -> Self {
        self.add_condition(c);
        self
    }

    /// [`Self::condition`] in place.
    #[doc(hidden)]
    pub fn add_condition(&mut self, c: Cond<E>) {
        match c.into_condition() {
            Ok(c) => self.s.condition = Some(Condition::and_opt(self.s.condition.take(), c)),
            Err(e) => self.record(Err(e)),
        }
    }

    /// Optimistic lock: the stored version must be `v` (0: no version stored yet). Failing is
    /// [`Error::ConditionFailed`]; entities without a version attribute refuse it when sent.
    pub fn if_version(mut self, v: u64) -> Self {
        self.s.version = Some(v);
        self
    }

    /// Allows the update to create the item when it does not exist (it then holds only the key,
    /// the updated attributes and the entity type, and may not decode as `E`).
    ///
    /// This builder writes exactly the attributes it is given: index key attributes included, so
    /// an item it creates is in an index only if the update sets that index's key attributes
    /// (see [`Self::require_index_keys`]). The derive's typed `upsert` writes the index keys the
    /// primary key determines and requires the others.
    pub fn upsert(mut self) -> Self {
        self.s.upsert = true;
        self
    }

    /// With [`Self::upsert`]: the index key attributes an item created by this update must hold
    /// (those of non-sparse indexes that only the update's values can give). Sending an upsert
    /// that sets none of an attribute listed here fails with [`Error::Validation`] naming the
    /// attributes and the fields to set, before anything is sent (whether or not the item
    /// exists): such an item would silently never appear in that index.
    #[doc(hidden)]
    pub fn require_index_keys(&mut self, needs: &'static [IndexKeyNeed]) {
        self.s.needs = needs;
    }

    /// With [`Self::upsert`]: the fields (`(attribute, field)`) an item created by this update
    /// must hold to decode as `E` (its fields that are not `Option`, not `#[dyno(default)]` and
    /// not part of the primary key). Sending an upsert that writes none of an attribute listed
    /// here fails with [`Error::Validation`] naming the fields, before anything is sent
    /// (whether or not the item exists): an item it created would not be readable. The derive's
    /// typed `upsert` lists them.
    #[doc(hidden)]
    pub fn require_fields(&mut self, fields: Vec<(&'static str, &'static str)>) {
        self.s.required = fields;
    }

    /// True when [`Self::upsert`] was called.
    #[doc(hidden)]
    pub fn is_upsert(&self) -> bool {
        self.s.upsert
    }

    /// The actions so far (without the version increment and entity type added when sent).
    pub fn update_expr(&self) -> expr::Update {
        self.s.update_expr()
    }

    /// An upsert must not create an item that its entity cannot decode, or that is silently
    /// missing from a non-sparse index: the required fields and the index key attributes it
    /// does not write are an error, listed with the fields to set.
    fn check_index_keys(&self) -> Result<()> {
        self.s.check_index_keys()
    }

    /// The request parts: actions (with version and entity type), condition (with the range
    /// conditions of the arithmetic, returned too); size checked.
    fn parts(self) -> Result<(crate::value::Item, expr::Update, Option<Condition>, Bounds)> {
        let key = super::key_limits::key_item(self.key);
        self.s.parts(&EntityShape::of::<E>(), key)
    }

    /// This update, or the first error met building it (an invalid key, a value or condition
    /// that failed to encode, an upsert missing index keys).
    pub fn check(mut self) -> Result<Self> {
        let index_keys = self.check_index_keys();
        if let Some(e) = self.key.error() {
            return Err(Error::clone(e).for_entity(E::ENTITY_TYPE));
        }
        if let Some(e) = self.s.error.take() {
            return Err(e);
        }
        index_keys.map(|()| self)
    }

    /// The request this update sends.
    pub fn into_request(self) -> Result<UpdateRequest> {
        self.request_and_bounds().map(|(request, _)| request)
    }

    /// The request, and the range conditions it carries (to explain a failure).
    fn request_and_bounds(self) -> Result<(UpdateRequest, Bounds)> {
        let (key, update, condition, bounds) = self.parts()?;
        let request = UpdateRequest {
            table: table_name::<E>(),
            key,
            update,
            condition,
            return_values: ReturnValues::AllNew,
            // The item as it was explains a failed condition without another read.
            return_old_on_condition_failure: true,
        };
        Ok((request, bounds))
    }

    /// The same update as an action of a [`super::Transaction`].
    pub fn into_transact(self) -> Result<TransactWriteItem> {
        self.transact_and_bounds().map(|(action, _)| action)
    }

    /// [`Self::into_transact`], and the range conditions the action carries.
    pub(crate) fn transact_and_bounds(self) -> Result<(TransactWriteItem, Bounds)> {
        let (key, update, condition, bounds) = self.parts()?;
        let action = TransactWriteItem::update(table_name::<E>(), key, update)
            .with_condition(condition)
            .with_return_old_on_condition_failure(!bounds.is_empty());
        Ok((action, bounds))
    }

    /// Applies the update and returns the item as it is now, decoded.
    pub async fn send<S: Store + ?Sized>(self, store: &S) -> Result<E> {
        let upsert = self.s.upsert;
        let (request, bounds) = self.request_and_bounds()?;
        let attributes = send_update(store, Owner::of::<E>(), upsert, request, bounds).await?;
        // The write happened: an image that does not decode must not read as a failed write.
        let decoded = match attributes {
            Some(item) => decode::<E>(&item),
            None => Err(Error::decode(
                format!("the updated {} (ReturnValues ALL_NEW)", E::ENTITY_TYPE),
                "no attributes",
            )
            .for_entity(E::ENTITY_TYPE)),
        };
        decoded.map_err(|e| Error::WrittenUndecodable {
            entity: Some(E::ENTITY_TYPE),
            error: Box::new(e),
        })
    }
}

impl UpdateState {
    /// [`UpdateBuilder`]'s `Debug`, compiled once for every entity.
    fn debug(&self, key: &dyn fmt::Debug, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UpdateBuilder")
            .field("entity", &self.entity)
            .field("key", key)
            .field("actions", &self.actions)
            .field("condition", &self.condition)
            .field("error", &self.error)
            .field("version", &self.version)
            .field("upsert", &self.upsert)
            .field("givens", &self.givens)
            .field("required", &self.required)
            .finish()
    }

    /// [`UpdateBuilder::parts`], with the key's item (or why it is invalid).
    fn parts(
        self,
        shape: &EntityShape,
        key: Result<crate::value::Item>,
    ) -> Result<(crate::value::Item, expr::Update, Option<Condition>, Bounds)> {
        // An invalid key explains any later error (its segments read as missing), so it comes first.
        let index_keys = self.check_index_keys();
        let update = self.update_expr();
        let entity = self.entity;
        let UpdateState {
            condition,
            error,
            version,
            upsert,
            bounds,
            givens,
            ..
        } = self;
        let key = key.map_err(|e| e.for_entity(entity))?;
        update_parts(
            shape,
            UpdateParts {
                key,
                update,
                index_keys,
                condition,
                error,
                version,
                upsert,
                bounds,
                givens,
            },
        )
    }

    /// Nothing to do yet, on an item of `entity`.
    fn new(entity: &'static str) -> Self {
        UpdateState {
            entity,
            actions: Vec::new(),
            condition: None,
            error: None,
            version: None,
            upsert: false,
            needs: &[],
            bounds: Vec::new(),
            keep_updated_at: false,
            givens: Vec::new(),
            required: Vec::new(),
        }
    }

    /// See [`UpdateBuilder::record`].
    fn record(&mut self, r: Result<()>) {
        if let Err(e) = r {
            self.error.get_or_insert_with(|| e.for_entity(self.entity));
        }
    }

    /// Adds `action` on `path`, replacing an earlier action on it (and its range condition).
    fn push(&mut self, path: Path, action: Action) {
        self.actions.retain(|(p, _)| *p != path);
        self.bounds.retain(|b| *b.path() != path);
        self.actions.push((path, action));
    }

    /// The value, or `None` with its error (naming the entity and `path`) recorded.
    fn value(
        &mut self,
        path: &Path,
        value: Result<Option<AttributeValue>>,
    ) -> Option<Option<AttributeValue>> {
        match value {
            Ok(v) => Some(v),
            Err(e) => {
                self.record(Err(e.at(self.entity, &path.to_string())));
                None
            }
        }
    }

    /// See [`UpdateBuilder::set_value`].
    fn set_value(&mut self, name: &str, value: Result<Option<AttributeValue>>) {
        self.set_path_value(Path::attr(name), value);
    }

    /// See [`UpdateBuilder::set_path_value`].
    fn set_path_value(&mut self, path: Path, value: Result<Option<AttributeValue>>) {
        match self.value(&path, value) {
            Some(Some(v)) => self.push(path, Action::Set(SetValue::value(v))),
            Some(None) if path.ends_in_index() => {
                self.push(
                    path,
                    Action::Set(SetValue::value(AttributeValue::Null(true))),
                );
            }
            Some(None) => self.push(path, Action::Remove),
            None => {}
        }
    }

    /// See [`UpdateBuilder::set_value_as`].
    fn set_value_as(&mut self, name: &str, value: Result<Option<AttributeValue>>, if_absent: bool) {
        if if_absent {
            self.set_if_absent_value(name, value);
        } else {
            self.set_value(name, value);
        }
    }

    /// See [`UpdateBuilder::set_index_keys`].
    fn set_index_keys(&mut self, keys: crate::value::Item, removes: &[&str], if_absent: bool) {
        for (name, value) in keys {
            self.set_value_as(&name, Ok(Some(value)), if_absent);
        }
        if !if_absent {
            for name in removes {
                self.remove_attr(name);
            }
        }
    }

    /// See [`UpdateBuilder::given_value`].
    fn given_value(
        &mut self,
        field: &'static str,
        name: &str,
        value: Result<Option<AttributeValue>>,
        rebuilds: &str,
    ) {
        let path = Path::attr(name);
        let Some(value) = self.value(&path, value) else {
            return;
        };
        let written = self.actions.iter().find_map(|(p, a)| match a {
            _ if *p != path => None,
            Action::Set(SetValue::Operand(UpdateOperand::Value(v))) => Some(Some(v.clone())),
            Action::Remove => Some(None),
            _ => None,
        });
        if let Some(written) = written {
            if written != value {
                let show = |v: &Option<AttributeValue>| {
                    v.as_ref()
                        .map_or_else(|| "absent".to_owned(), crate::value::describe)
                };
                self.record(Err(Error::validation(format!(
                    "update of {}: `{field}` is set to {} by this update but given as {} to \
                     rebuild {rebuilds}; nothing was sent. Give the value this update writes",
                    self.entity,
                    show(&written),
                    show(&value)
                ))));
            }
            return;
        }
        let given = Given {
            attribute: name.to_owned(),
            field,
            value,
            rebuilds: rebuilds.to_owned(),
        };
        if let Some(earlier) = self.givens.iter().find(|g| g.attribute == name) {
            if earlier.value != given.value {
                self.record(Err(Error::validation(format!(
                    "update of {}: `{field}` is given two values to rebuild {} and {rebuilds}; \
                     nothing was sent. Give the value the item holds",
                    self.entity, earlier.rebuilds
                ))));
            }
            return;
        }
        // An item an upsert creates holds the value its keys are made of; on an existing item
        // the condition makes this write a no-op. It replaces a stamp's own `if_not_exists`.
        if let Some(v) = &given.value {
            let set = SetValue::Operand(UpdateOperand::IfNotExists(
                path.clone(),
                Box::new(UpdateOperand::Value(v.clone())),
            ));
            self.push(path, Action::Set(set));
        }
        self.givens.push(given);
    }

    /// See [`UpdateBuilder::remove_attr`].
    fn remove_attr(&mut self, name: &str) {
        self.push(Path::attr(name), Action::Remove);
    }

    /// See [`UpdateBuilder::remove_path`].
    fn remove_path(&mut self, path: Path) {
        self.push(path, Action::Remove);
    }

    /// See [`UpdateBuilder::set_if_absent_value`].
    fn set_if_absent_value(&mut self, name: &str, value: Result<Option<AttributeValue>>) {
        self.set_if_absent_path(Path::attr(name), value);
    }

    /// See [`UpdateBuilder::set_if_absent_path`].
    fn set_if_absent_path(&mut self, path: Path, value: Result<Option<AttributeValue>>) {
        if let Some(Some(v)) = self.value(&path, value) {
            let set = SetValue::Operand(UpdateOperand::IfNotExists(
                path.clone(),
                Box::new(UpdateOperand::Value(v)),
            ));
            self.push(path, Action::Set(set));
        }
    }

    /// See [`UpdateBuilder::add_value`].
    fn add_value(&mut self, name: &str, value: Result<Option<AttributeValue>>) {
        self.add_path(Path::attr(name), value);
    }

    /// See [`UpdateBuilder::add_path`].
    fn add_path(&mut self, path: Path, value: Result<Option<AttributeValue>>) {
        if let Some(Some(v)) = self.value(&path, value) {
            self.push(path, Action::Add(v));
        }
    }

    /// See [`UpdateBuilder::add_number`].
    fn add_number<T: Arithmetic>(&mut self, name: &str, delta: impl FieldValue<T>) {
        self.add_number_at::<T>(Path::attr(name), delta);
    }

    /// See [`UpdateBuilder::guard_spelling`].
    fn guard_spelling(&mut self, path: &Path, other: Path) {
        self.bounds.push(Bound::spelling(path, other));
    }

    /// See [`UpdateBuilder::add_number_at`].
    fn add_number_at<T: Arithmetic>(&mut self, path: Path, delta: impl FieldValue<T>) {
        self.arithmetic::<T>(path, Op::Add, encode_value::<T, _>(delta));
    }

    /// See [`UpdateBuilder::subtract_number`].
    fn subtract_number<T: Arithmetic>(&mut self, name: &str, delta: impl FieldValue<T>) {
        self.subtract_number_at::<T>(Path::attr(name), delta);
    }

    /// See [`UpdateBuilder::subtract_number_at`].
    fn subtract_number_at<T: Arithmetic>(&mut self, path: Path, delta: impl FieldValue<T>) {
        self.arithmetic::<T>(path, Op::Subtract, encode_value::<T, _>(delta));
    }

    /// `ADD` or subtract `delta` at `path`, with the range condition that keeps the result
    /// inside `T`.
    fn arithmetic<T: Arithmetic>(
        &mut self,
        path: Path,
        op: Op,
        delta: Result<Option<AttributeValue>>,
    ) {
        let Some(Some(delta)) = self.value(&path, delta) else {
            return;
        };
        let bound = Bound::new::<T>(&path, op, &delta);
        let at = path.to_string();
        match op {
            Op::Add => self.add_path(path, Ok(Some(delta))),
            Op::Subtract => self.subtract_path(path, Ok(Some(delta))),
        }
        match bound {
            Some(Ok(bound)) => self.bounds.push(bound),
            Some(Err(e)) => self.record(Err(e.at(self.entity, &at))),
            None => {}
        }
    }

    /// See [`UpdateBuilder::subtract_value`].
    fn subtract_value(&mut self, name: &str, value: Result<Option<AttributeValue>>) {
        self.subtract_path(Path::attr(name), value);
    }

    /// See [`UpdateBuilder::subtract_path`].
    fn subtract_path(&mut self, path: Path, value: Result<Option<AttributeValue>>) {
        if let Some(Some(v)) = self.value(&path, value) {
            let current =
                UpdateOperand::IfNotExists(path.clone(), Box::new(UpdateOperand::Value(number(0))));
            self.push(
                path,
                Action::Set(SetValue::Minus(current, UpdateOperand::Value(v))),
            );
        }
    }

    /// See [`UpdateBuilder::append_value`].
    fn append_value(&mut self, name: &str, value: Result<Option<AttributeValue>>) {
        self.append_path(Path::attr(name), value, false);
    }

    /// See [`UpdateBuilder::append_path`].
    fn append_path(&mut self, path: Path, items: Result<Option<AttributeValue>>, prepend: bool) {
        if let Some(Some(v)) = self.value(&path, items) {
            let current = Box::new(UpdateOperand::IfNotExists(
                path.clone(),
                Box::new(UpdateOperand::Value(AttributeValue::L(Vec::new()))),
            ));
            let items = Box::new(UpdateOperand::Value(v));
            let joined = if prepend {
                UpdateOperand::ListAppend(items, current)
            } else {
                UpdateOperand::ListAppend(current, items)
            };
            self.push(path, Action::Set(SetValue::Operand(joined)));
        }
    }

    /// See [`UpdateBuilder::delete_value`].
    fn delete_value(&mut self, name: &str, value: Result<Option<AttributeValue>>) {
        self.delete_path(Path::attr(name), value);
    }

    /// See [`UpdateBuilder::delete_path`].
    fn delete_path(&mut self, path: Path, value: Result<Option<AttributeValue>>) {
        if let Some(Some(v)) = self.value(&path, value) {
            self.push(path, Action::Delete(v));
        }
    }

    /// See [`UpdateBuilder::update_expr`].
    fn update_expr(&self) -> expr::Update {
        let mut u = expr::Update::default();
        for (path, action) in &self.actions {
            let path = path.clone();
            match action {
                Action::Set(v) => u.set.push((path, v.clone())),
                Action::Remove => u.remove.push(path),
                Action::Add(v) => u.add.push((path, v.clone())),
                Action::Delete(v) => u.delete.push((path, v.clone())),
            }
        }
        u
    }

    /// See [`UpdateBuilder::check_index_keys`].
    fn check_index_keys(&self) -> Result<()> {
        check_upsert_writes(
            self.entity,
            self.upsert,
            &self.actions,
            &self.required,
            self.needs,
        )
    }
}

/// [`UpdateBuilder::send`] up to decoding, compiled once per store type: sends `request` and
/// explains its failure; the item as it is after the update.
async fn send_update<S: Store + ?Sized>(
    store: &S,
    owner: Owner,
    upsert: bool,
    request: UpdateRequest,
    bounds: Bounds,
) -> Result<Option<crate::value::Item>> {
    let span = tracing::debug_span!("dyno.update", entity = owner.entity());
    let key = request.key.clone();
    let table = request.table.clone();
    let nested = nested_paths(&request.update);
    let request_paths: Vec<Path> = request
        .update
        .paths()
        .filter(|p| p.0.len() > 1)
        .cloned()
        .collect();
    match store.update_item(request).instrument(span).await {
        Ok(out) => Ok(out.attributes),
        Err(Error::Validation { message }) if is_missing_parent(&message, &nested) => {
            // Nothing was written: the item as it is tells which parent is absent or of
            // another type (DynamoDB's words are the same for both).
            let old = store
                .get_item(GetRequest::new(table, key.clone()).consistent())
                .await
                .ok()
                .and_then(|o| o.item);
            let what = format!("update of {}", owner.entity());
            Err(match parent_problems(old.as_deref(), &request_paths) {
                Some(found) => wrong_parent(&what, message, &found),
                None => missing_parent(&what, message, &nested),
            })
        }
        // Not another entity's item: absent (without upsert), a result out of its field's
        // range, or the caller's condition.
        Err(e) => {
            let entity = owner.entity();
            let mut explain = |old: Option<&crate::value::Item>| match old {
                None if !upsert => Some(not_found(entity, &key)),
                old => bounds.violation(entity, old),
            };
            Err(condition_failure_of(store, owner, &key, e, &mut explain).await)
        }
    }
}

/// The nested paths (below a top-level attribute) `update` writes, as messages write them.
pub(super) fn nested_paths(update: &expr::Update) -> Vec<String> {
    update
        .paths()
        .filter(|p| p.0.len() > 1)
        .map(ToString::to_string)
        .collect()
}

/// True for DynamoDB's refusal of a nested path whose parent map or list is missing, in an
/// update that writes nested paths.
pub(super) fn is_missing_parent(message: &str, nested: &[String]) -> bool {
    !nested.is_empty()
        && message.contains("The document path provided in the update expression is invalid")
}

/// [`Error::Validation`] for a nested write whose parent is missing or of another type, in a
/// single update or a transaction's update action (`what` says which), when the item is not at
/// hand to tell which: DynamoDB's message, the nested paths the update writes, and the ways out
/// (see [`crate::expr::path`]).
pub(super) fn missing_parent(what: &str, message: String, nested: &[String]) -> Error {
    Error::validation(format!(
        "{message} ({what}: a map or list on the way to {} is missing, or is not a map or list, \
         and DynamoDB writes inside one only when it exists; nothing was written. Write the \
         parent first, where absent, in an earlier update (`set_if_absent_<field>`, or \
         `.at(parent).set_if_absent(..)`): one update cannot write a path and its parent; a \
         parent of another type is replaced by setting it whole)",
        nested.join(", ")
    ))
}

/// What [`super::path::parent_problem`] finds for each nested path of an update in the item as
/// it is, joined; `None` when it finds nothing (the caller falls back to [`missing_parent`]).
fn parent_problems(item: Option<&crate::value::Item>, paths: &[Path]) -> Option<Vec<String>> {
    let found: Vec<String> = paths
        .iter()
        .filter_map(|p| super::path::parent_problem(item, p))
        .collect();
    (!found.is_empty()).then_some(found)
}

/// [`Error::Validation`] for a nested write under a parent found absent or of another type in
/// the item (see [`parent_problems`]), naming it and the fix for each case.
fn wrong_parent(what: &str, message: String, found: &[String]) -> Error {
    let absent = found.iter().any(|f| !f.contains(" exists but is "));
    let other_type = found.iter().any(|f| f.contains(" exists but is "));
    let mut fixes = Vec::new();
    if absent {
        fixes.push(
            "write an absent parent first, in an earlier update (`set_if_absent_<field>`, or \
             `.at(parent).set_if_absent(..)`): one update cannot write a path and its parent",
        );
    }
    if other_type {
        fixes.push(
            "a parent of another type (as another client may write it) must be replaced whole \
             first (`set_<field>(..)` or `.at(parent).set(..)` with a map or list), which drops \
             what it held",
        );
    }
    Error::validation(format!(
        "{message} ({what}: {}; nothing was written. To fix: {})",
        found.join("; "),
        fixes.join("; ")
    ))
}

/// The error of an update (without upsert) whose condition failed on a missing item.
fn not_found(entity: &'static str, key: &crate::value::Item) -> Error {
    Error::NotFound {
        entity: Some(entity),
        message: format!(
            "no item at key {}: an update without upsert() changes only an existing item, \
             and nothing was written",
            super::batch::describe_key(key)
        ),
    }
}

/// The key plus the literal values an update writes is a lower bound of the item's size after
/// the update: over the limit, the update cannot succeed, so it is refused before sending.
fn check_update_size(
    shape: &EntityShape,
    key: &crate::value::Item,
    update: &expr::Update,
) -> Result<()> {
    fn operand_size(o: &UpdateOperand) -> usize {
        match o {
            UpdateOperand::Value(v) => attribute_size(v),
            UpdateOperand::IfNotExists(_, o) => operand_size(o),
            UpdateOperand::ListAppend(a, b) => operand_size(a) + operand_size(b),
            UpdateOperand::Path(_) => 0,
        }
    }
    // Index keys the update sets (a typed update rewrites them with the fields they are made of).
    let set_value = |name: &str| {
        update.set.iter().find_map(|(path, value)| match value {
            SetValue::Operand(UpdateOperand::Value(v)) if *path == Path::attr(name) => Some(v),
            _ => None,
        })
    };
    super::key_limits::check_key_attributes_of(
        shape,
        &set_value,
        super::key_limits::KeysChecked::TableAndIndexes,
    )?;
    // The attributes of multi-attribute index keys the update sets, part by part.
    super::key_limits::check_mapped_index_parts_of(shape, &set_value)?;
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
            entity: Some(shape.entity),
            size,
            limit: MAX_ITEM_SIZE,
        });
    }
    Ok(())
}

/// [`UpdateBuilder`]'s check of an upsert's writes (see its `check_index_keys`), compiled once.
fn check_upsert_writes(
    entity: &'static str,
    upsert: bool,
    actions: &[(Path, Action)],
    required: &[(&'static str, &'static str)],
    needs: &[IndexKeyNeed],
) -> Result<()> {
    if !upsert {
        return Ok(());
    }
    let writes = |name: &str, add: bool| {
        actions.iter().any(|(p, a)| {
            p.top() == Some(name)
                && p.0.len() == 1
                && (matches!(a, Action::Set(_)) || (add && matches!(a, Action::Add(_))))
        })
    };
    let absent: Vec<String> = required
        .iter()
        .filter(|(attr, _)| !writes(attr, true))
        .map(|(_, field)| format!("`{field}`"))
        .collect();
    let missing: Vec<String> = needs
        .iter()
        .filter(|need| !writes(need.attribute, false))
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
    let mut lacks = Vec::new();
    if !absent.is_empty() {
        lacks.push(format!(
            "required field(s) {} (not `Option`, not `#[dyno(default)]`), so {} could not \
             read it back",
            absent.join(", "),
            entity
        ));
    }
    if !missing.is_empty() {
        lacks.push(format!(
            "index key attribute(s) {}, so it would never appear in those indexes",
            missing.join(", ")
        ));
    }
    if lacks.is_empty() {
        return Ok(());
    }
    Err(Error::validation(format!(
        "upsert of {}: an item it creates would lack {}; nothing was sent. Set those fields \
         in this update (`set_<field>`, or `set_if_absent_<field>` to keep an existing \
         item's), or write the whole item with put/create, or update without upsert",
        entity,
        lacks.join(", and ")
    )))
}

/// What [`UpdateBuilder::parts`] works from: the builder's pieces, the key checked.
struct UpdateParts {
    key: crate::value::Item,
    update: expr::Update,
    /// The upsert's check of its writes (its error comes after the key's).
    index_keys: Result<()>,
    condition: Option<Condition>,
    error: Option<Error>,
    version: Option<u64>,
    upsert: bool,
    bounds: Vec<Bound>,
    givens: Vec<Given>,
}

/// [`UpdateBuilder::parts`]: the request parts of an update of the entity `shape` describes,
/// compiled once.
#[allow(clippy::type_complexity)]
fn update_parts(
    shape: &EntityShape,
    parts: UpdateParts,
) -> Result<(crate::value::Item, expr::Update, Option<Condition>, Bounds)> {
    let UpdateParts {
        key,
        mut update,
        index_keys,
        condition,
        error,
        version,
        upsert,
        mut bounds,
        givens,
    } = parts;
    if let Some(e) = error {
        return Err(e);
    }
    index_keys?;
    let touches = |u: &expr::Update, name: &str| u.paths().any(|p| p.top() == Some(name));
    let mut cond = Some(if upsert {
        shape.owned_by()
    } else {
        shape.item_exists().and(shape.owned_by())
    });
    match (shape.version, version) {
        (Some(attr), v) => {
            if !touches(&update, attr) {
                update.add.push((Path::attr(attr), number(1)));
                bounds.push(Bound::version(attr)?);
            }
            if let Some(v) = v {
                cond = Some(Condition::and_opt(cond, version_is(attr, v)));
            }
        }
        (None, Some(v)) => {
            return Err(Error::validation(format!(
                "update of {}: if_version({v}) needs a version attribute, and {} has none",
                shape.entity, shape.entity
            )))
        }
        (None, None) => {}
    }
    if upsert {
        let type_attr = shape.type_attribute;
        if !touches(&update, type_attr) {
            update.set.push((
                Path::attr(type_attr),
                SetValue::Operand(UpdateOperand::IfNotExists(
                    Path::attr(type_attr),
                    Box::new(UpdateOperand::Value(AttributeValue::S(
                        shape.entity.to_owned(),
                    ))),
                )),
            ));
        }
    }
    for bound in &bounds {
        cond = Some(Condition::and_opt(cond, bound.condition()));
    }
    let given = givens
        .iter()
        .map(Given::condition)
        .reduce(Condition::and)
        .map(|c| {
            if upsert {
                // A missing item has none of the values yet: the upsert writes them.
                let pk = &shape.def.partition_key.name;
                Condition::not_exists(Path::attr(pk)).or(c)
            } else {
                c
            }
        });
    if let Some(c) = given {
        cond = Some(Condition::and_opt(cond, c));
    }
    if let Some(c) = &condition {
        cond = Some(Condition::and_opt(cond, c.clone()));
    }
    check_update_size(shape, &key, &update)?;
    Ok((
        key,
        update,
        cond,
        Bounds {
            bounds,
            givens,
            condition,
        },
    ))
}
