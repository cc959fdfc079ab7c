//! The methods every typed builder shares, as traits (the pattern of diesel's `RunQueryDsl`):
//! the derive's query builders (`OrderQuery`, `OrderGsi1Query`) implement [`QueryDsl`] and its
//! update builders (`OrderUpdate`) implement [`UpdateDsl`], and add only the methods named after
//! fields. Both are in [`crate::prelude`].
//!
//! ```
//! use dyno_core::prelude::*;
//! # use dyno_core::Entity;
//! # #[derive(dyno_core::Table)]
//! # #[dyno(name = "Shop", pk = "PK", sk = "SK")]
//! # struct Shop;
//! #[derive(Debug, Clone, PartialEq, Entity)]
//! #[dyno(table = Shop, pk = "USER#{user_id}", sk = "ORDER#{order_id}")]
//! struct Order {
//!     user_id: String,
//!     order_id: String,
//!     total: u64,
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> dyno_core::Result<()> {
//! let store = MemoryStore::new();
//! store.create_table(Shop::definition()).await?;
//! for (id, total) in [("1", 10), ("2", 30), ("3", 50)] {
//!     let order = Order { user_id: "u".into(), order_id: id.into(), total };
//!     order.create().send(&store).await?;
//! }
//! // `filter`, `limit` and `all` come from `QueryDsl`; `order_id()` is generated.
//! let big = Order::query("u").order_id().ge("2").filter(Order::TOTAL.gt(20u64)).limit(1).all(&store).await?;
//! assert_eq!(big.len(), 1);
//! // `condition` and `send` come from `UpdateDsl`; `add_total` is generated.
//! let order = Order::update(Order::key("u", "1"))
//!     .add_total(5u64)
//!     .condition(Order::TOTAL.eq(10u64))
//!     .send(&store)
//!     .await?;
//! assert_eq!(order.total, 15);
//! # Ok(())
//! # }
//! ```

use std::future::Future;

use futures::Stream;

use super::{Cursor, FilterBy, FromItem, PageOf, PathUpdate, Query, UpdateBuilder};
use crate::entity::Entity;
use crate::error::Result;
use crate::expr::path::Depth;
use crate::expr::{Cond, Field};
use crate::store::Store;

/// Marker: an index kind that allows strongly consistent reads.
#[diagnostic::on_unimplemented(
    message = "consistent reads are not available on a global secondary index",
    label = "this query reads a global secondary index",
    note = "DynamoDB offers strongly consistent reads on the table and on local secondary indexes only"
)]
pub trait ConsistentRead {}

/// Index kind: a global secondary index (eventually consistent reads only).
#[derive(Debug, Clone, Copy)]
pub enum Global {}

/// Index kind: a local secondary index, or the table itself.
#[derive(Debug, Clone, Copy)]
pub enum Local {}

impl ConsistentRead for Local {}

/// An entity with a version field (`#[dyno(version)]`): [`UpdateDsl::if_version`] exists only
/// for these.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no version field, so an update of it cannot be conditioned on one",
    label = "no `#[dyno(version)]` field",
    note = "add `#[dyno(version)] version: u64` to `{Self}` for optimistic locking, or condition the update on a field with `.condition(...)`"
)]
pub trait Versioned: Entity {}

/// What every typed query builder has: filters, limits, order, consistency, and running the
/// query. Implementors give access to their [`Query`]; every method here works on it.
pub trait QueryDsl: Sized {
    /// The entity whose fields filters are built from.
    type Entity: Entity;
    /// What the query returns: the entity, or a projection of it.
    type Out: FromItem + FilterBy<Self::Entity>;
    /// [`Local`] (the table or a local index) or [`Global`].
    type Kind;
    /// The same builder in sort-key state `S` (see [`super::sort_key`]).
    type In<S>: QueryDsl<Entity = Self::Entity, Out = Self::Out, Kind = Self::Kind>;

    /// The builder around `query` (the derive's builders: in any state).
    fn from_query(query: Query<Self::Out>) -> Self;

    /// Applies `f` to the query being built.
    fn map_query(self, f: impl FnOnce(Query<Self::Out>) -> Query<Self::Out>) -> Self {
        Self::from_query(f(self.into_inner()))
    }

    /// The query being built.
    fn as_query(&self) -> &Query<Self::Out>;

    /// The query being built, with any error it holds (see [`QueryDsl::into_query`]).
    fn into_inner(self) -> Query<Self::Out>;

    /// Keeps only items matching `condition` (a FilterExpression, applied after the key
    /// condition; filtered items still count towards read capacity). [`Cond::raw`] takes an
    /// untyped [`Condition`](crate::expr::Condition).
    fn filter(self, condition: Cond<Self::Entity>) -> Self {
        self.map_query(|q| q.filter(condition))
    }

    /// Reads only member `E`'s items of a collection read from this query (a multi-attribute
    /// index's `.collection::<C>()`): see [`Query::only`].
    fn only<E: Entity>(self) -> Self
    where
        Self::Out: super::CollectionMember<E>,
    {
        self.map_query(Query::only::<E>)
    }

    /// A filter for member `E` of a collection read from this query, leaving the other
    /// members' items alone: see [`Query::filter_member`]. ([`QueryDsl::filter`] applies to
    /// every item.)
    fn filter_member<E: Entity>(self, condition: Cond<E>) -> Self
    where
        Self::Out: super::CollectionMember<E>,
    {
        self.map_query(|q| q.filter_member(condition))
    }

    /// Not callable: on the table and on indexes keyed by templates, a collection is read with
    /// its own constructor, `C::query(..)`; this method exists so that
    /// `.collection::<C>()` there says so (multi-attribute index queries have their own).
    #[doc(hidden)]
    fn collection<C>(self) -> Query<C>
    where
        C: FromItem + super::ReadByCollectionQuery,
    {
        self.into_inner().project()
    }

    /// Returns at most `n` items in total.
    fn limit(self, n: usize) -> Self {
        self.map_query(|q| q.limit(n))
    }

    /// Asks the store for at most `n` items per page (counted before filters).
    fn page_size(self, n: u32) -> Self {
        self.map_query(|q| q.page_size(n))
    }

    /// Returns items in descending sort-key order.
    fn descending(self) -> Self {
        self.map_query(Query::descending)
    }

    /// Strongly consistent read: on the table and local indexes only (on a global index this
    /// does not compile).
    fn consistent(self) -> Self
    where
        Self::Kind: ConsistentRead,
    {
        self.map_query(Query::consistent)
    }

    /// This query in lenient form: each result is a [`super::Decoded`], the item or the
    /// [`super::Undecodable`] (its key and the decode error) for an item that does not decode,
    /// instead of the first such item failing the whole read. Pages, cursors, limits and
    /// `stream` work as on the strict form; items of other entities are still skipped.
    fn lenient(self) -> Query<super::Decoded<Self::Out>> {
        self.into_inner().lenient()
    }

    /// The untyped query this builder describes, or the first error met building it.
    fn into_query(self) -> Result<Query<Self::Out>> {
        self.into_inner().check()
    }

    /// Every matching item, all pages.
    fn all<S: Store + ?Sized>(
        self,
        store: &S,
    ) -> impl Future<Output = Result<Vec<Self::Out>>> + Send {
        self.into_inner().all(store)
    }

    /// The matching items as a stream, fetching pages as it is polled; it ends after the first
    /// error.
    fn stream<'s, S: Store + ?Sized>(
        self,
        store: &'s S,
    ) -> impl Stream<Item = Result<Self::Out>> + Send + 's {
        self.into_inner().stream(store)
    }

    /// One page, starting at `cursor` (`None`: the first page); see [`Query::page`].
    fn page<'a, S: Store + ?Sized>(
        &'a self,
        store: &'a S,
        cursor: Option<&'a Cursor>,
    ) -> impl Future<Output = Result<PageOf<Self::Out>>> + Send + 'a
    where
        Self: Sync,
    {
        self.as_query().page(store, cursor)
    }

    /// The pages as a stream, one `Vec` of items per [`page`](QueryDsl::page), fetched as it is
    /// polled; it ends after the last page or the first error.
    fn pages<'s, S: Store + ?Sized>(
        self,
        store: &'s S,
    ) -> impl Stream<Item = Result<Vec<Self::Out>>> + Send + 's {
        self.into_inner().pages(store)
    }

    /// The first matching item.
    fn first<S: Store + ?Sized>(
        self,
        store: &S,
    ) -> impl Future<Output = Result<Option<Self::Out>>> + Send {
        self.into_inner().first(store)
    }

    /// The number of matching items (see [`Query::count`]).
    fn count<S: Store + ?Sized>(self, store: &S) -> impl Future<Output = Result<usize>> + Send {
        self.into_inner().count(store)
    }
}

/// What every typed update builder has: conditions, optimistic locking, upsert, and sending.
/// Implementors give access to their [`UpdateBuilder`]; every method here works on it.
pub trait UpdateDsl: Sized {
    /// The entity updated.
    type Entity: Entity;

    /// Applies `f` to the update being built.
    fn map_update(
        self,
        f: impl FnOnce(UpdateBuilder<Self::Entity>) -> UpdateBuilder<Self::Entity>,
    ) -> Self;

    /// The update being built, with any error it holds (see [`UpdateDsl::into_update`]), as
    /// [`QueryDsl::into_inner`] is for a query.
    fn into_inner(self) -> UpdateBuilder<Self::Entity>;

    /// What an upsert of this entity writes besides the update's own actions: the derive writes
    /// the key fields and the index keys the primary key determines, and lists the index keys
    /// the update must set. Called by [`UpdateDsl::upsert`]; nothing by default.
    fn prepare_upsert(self) -> Self {
        self
    }

    /// Applies only if `condition` holds on the stored item ([`Cond::raw`] takes an untyped
    /// [`Condition`](crate::expr::Condition)).
    fn condition(self, condition: Cond<Self::Entity>) -> Self {
        self.map_update(|u| u.condition(condition))
    }

    /// Applies only if the stored version is `version` (optimistic locking); the update
    /// increments it.
    fn if_version(self, version: u64) -> Self
    where
        Self::Entity: Versioned,
    {
        self.map_update(|u| u.if_version(version))
    }

    /// Creates the item when it does not exist, instead of failing; see
    /// [`UpdateBuilder::upsert`] and, for the derive's index keys,
    /// [`UpdateBuilder::require_index_keys`].
    fn upsert(self) -> Self {
        self.map_update(UpdateBuilder::upsert).prepare_upsert()
    }

    /// The untyped update builder (for a [`super::Transaction`]), or the first error met
    /// building it, as [`QueryDsl::into_query`] is for a query.
    fn into_update(self) -> Result<UpdateBuilder<Self::Entity>> {
        self.into_inner().check()
    }

    /// The old name of [`into_update`](UpdateDsl::into_update).
    #[deprecated(note = "renamed `into_update`, as `into_query` on a query")]
    fn into_builder(self) -> Result<UpdateBuilder<Self::Entity>> {
        self.into_update()
    }

    /// An action on a path, typed by what the path holds: a map entry
    /// (`Repo::REACTION_COUNTS.entry(Reaction::Heart)`), a list element (`Repo::TOPICS.at(0)`), a
    /// document's field (`Repo::OWNER.field(Owner::LOGIN)`), or a list or set field; finish it
    /// with [`PathUpdate::set`], [`PathUpdate::add`], [`PathUpdate::remove`],
    /// [`PathUpdate::append`] and the others, which return this builder:
    /// `.at(Repo::REACTION_COUNTS.entry(Reaction::Heart)).add(1)` is
    /// `reaction_counts.heart += 1`. See [`crate::expr::path`] for the paths and what a missing
    /// parent map does.
    fn at<T, D: Depth>(self, path: Field<Self::Entity, T, D>) -> PathUpdate<Self, T, D> {
        PathUpdate::new(self, path)
    }

    /// Sends the update; returns the item as it is afterwards.
    fn send<S: Store + ?Sized>(
        self,
        store: &S,
    ) -> impl Future<Output = Result<Self::Entity>> + Send {
        self.into_inner().send(store)
    }
}

impl<E: Entity> UpdateDsl for UpdateBuilder<E> {
    type Entity = E;

    fn map_update(self, f: impl FnOnce(UpdateBuilder<E>) -> UpdateBuilder<E>) -> Self {
        f(self)
    }

    fn into_inner(self) -> UpdateBuilder<E> {
        self
    }
}
