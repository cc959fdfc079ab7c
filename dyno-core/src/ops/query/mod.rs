//! Typed queries: on the table or an index, plain or sharded, as a whole, a stream or pages.
//!
//! [`Query`] is a thin shell over `core::QueryCore`, which holds the requests and builds them
//! (compiled once); the shell adds the type its items decode into. Running a query is in `run`,
//! the traits that tie collections to their members in `members`.

mod core;
mod members;
mod run;

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use self::core::QueryCore;
pub use self::members::{sort_template, CollectionMember, CollectionOn, ReadByCollectionQuery};
pub(crate) use self::run::tracing_futures_stream;
use super::cursor::Cursor;
use super::entity_rules::EntityShape;
use super::sort_key::{self, SkOp};
use super::{FilterBy, FromItem};
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::expr::{Cond, Condition, KeyCondition, Path, SortCondition};
use crate::store::Tag;
use crate::table::Table;
use crate::value::AttributeValue;

/// A query decoding its items into `T`: the one builder behind the derive's typed query builders
/// (`Order::query(&user_id)`, which add the sort-key methods named after fields), and what a
/// hand-written entity builds with [`Query::of`] and the `sk_*` methods, or by hand from a
/// [`KeyCondition`] with [`Query::new`].
///
/// Errors met while building (a key value that cannot be encoded, a filter that failed to build)
/// are kept, and the first method that runs the query returns the first of them, before
/// anything is sent.
///
/// The sort-key methods build the condition part by part, as the entity's sort-key template
/// (`{day}#{order_id}`) lays it out: [`Query::sk_fix`] fixes the next part (the query reads keys
/// beginning with the text so far), then one of [`Query::sk_eq`], [`Query::sk_compare`],
/// [`Query::sk_between`] or [`Query::sk_begins_with`] ends the condition. Their segments are the
/// parts' encoded values ([`crate::KeyPart`]).
///
/// Items are decoded only when [`FromItem::accepts`] them: other entities sharing an overloaded
/// index are skipped (and do not count towards [`Query::limit`]); items whose TTL attribute is in
/// the past are skipped too. So are items outside a typed range on one part of a composite sort
/// key (`.category().gt(..)` on `"{category}#{name}"`), which DynamoDB's key condition cannot always
/// express exactly: the query reads a key range covering it and checks each item's part, so, as
/// with a DynamoDB filter, a page (and a request's `Limit`) can hold fewer results than items
/// read.
#[must_use = "a query does nothing until it is run with all, first, count, stream, page or pages"]
pub struct Query<T: FromItem> {
    core: QueryCore,
    _t: PhantomData<fn() -> T>,
}

impl<T: FromItem> Clone for Query<T> {
    fn clone(&self) -> Self {
        Query::from_core(self.core.clone())
    }
}

impl<T: FromItem> fmt::Debug for Query<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Query")
            .field("type", &std::any::type_name::<T>())
            .field("requests", &self.core.requests)
            .field("sort_key", &self.core.sort_key)
            .field("limit", &self.core.limit)
            .field("range", &self.core.range)
            .field("only", &self.core.only.len())
            .field("error", &self.core.error)
            .finish()
    }
}

/// One page of results and the cursor of the next page (`None` on the last page).
#[derive(Debug, Clone)]
pub struct PageOf<T> {
    /// The decoded items of this page (possibly none, even when more pages follow: DynamoDB
    /// pages are counted before filters).
    pub items: Vec<T>,
    /// Where the next page starts.
    pub cursor: Option<Cursor>,
}

impl<T: FromItem> Query<T> {
    /// A query of `core`, as it is.
    fn from_core(core: QueryCore) -> Self {
        Query {
            core,
            _t: PhantomData,
        }
    }

    /// A new query of `core`, reading `T`'s projection.
    fn wrap(core: QueryCore) -> Self {
        match T::projection() {
            Some(attrs) => Query::from_core(core.with_projection(
                attrs.iter().map(|a| Path::attr(*a)).collect(),
                T::ttl_attribute(),
            )),
            None => Query::from_core(core),
        }
    }

    /// A query on `table`, or on its index `index`, with the key condition `key`.
    pub fn new(table: impl Into<String>, index: Option<&str>, key: KeyCondition) -> Self {
        Query::wrap(QueryCore::new(table.into(), index, key))
    }

    /// A query on a sharded index (hot partitions written across several partition keys): one key
    /// condition per shard. Pages are read from all shards concurrently and merged in the order of
    /// `sort_key`, the index's sort key attribute (`None`: no order across shards).
    ///
    /// An empty `keys` gives a query that returns nothing.
    #[doc(hidden)]
    pub fn sharded(
        table: impl Into<String>,
        index: Option<&str>,
        sort_key: Option<&str>,
        keys: Vec<KeyCondition>,
    ) -> Self {
        Query::wrap(QueryCore::sharded(table.into(), index, sort_key, keys))
    }

    /// A query of entity `E`'s items in one partition of the table (`index: None`) or of one of
    /// its indexes: `partition` is the encoded partition key (for a sharded index, without the
    /// shard suffix: every shard is read). The sort key is bounded by the literal text its
    /// template starts with (`begins_with "ORDER#"`, or `=` for a constant sort key), so other
    /// entities sharing the partition are not read; the `sk_*` methods narrow it.
    ///
    /// The key attribute names come from the table's definition, the sort-key template and the
    /// shard count from `E`'s [`Entity::SK`] or [`Entity::INDEXES`]: an index the table does not
    /// declare, or in which `E` has no key, is an error when the query runs.
    ///
    /// ```
    /// # use dyno_core::{Entity, Item, Result, Table, TableDef};
    /// # use dyno_core::key::{Segment, Template};
    /// # use dyno_core::ops::Query;
    /// # struct Shop;
    /// # impl Table for Shop {
    /// #     fn definition() -> &'static TableDef {
    /// #         static D: std::sync::OnceLock<TableDef> = std::sync::OnceLock::new();
    /// #         D.get_or_init(|| TableDef::new("Shop", "PK", Some("SK")))
    /// #     }
    /// # }
    /// /// Stored as `PK = "USER#{user}"`, `SK = "VISIT#{day}#{page}"`; hand-written.
    /// struct Visit { user: String, day: String, page: String }
    /// impl Entity for Visit {
    ///     type Table = Shop;
    ///     const ENTITY_TYPE: &'static str = "Visit";
    ///     const PK: Template = Template::new(&[Segment::Literal("USER#"), Segment::Field("user")]);
    ///     const SK: Option<Template> = Some(Template::new(&[
    ///         Segment::Literal("VISIT#"),
    ///         Segment::Field("day"),
    ///         Segment::Literal("#"),
    ///         Segment::Field("page"),
    ///     ]));
    ///     # fn key(&self) -> Result<Item> { unimplemented!() }
    ///     # fn to_item(&self) -> Result<Item> { unimplemented!() }
    ///     # fn from_item(_: &Item) -> Result<Self> { unimplemented!() }
    /// }
    ///
    /// // Visits of user 42 on 2024-05-01, pages from "b" on.
    /// let q = Query::<Visit>::of::<Visit>(None, Ok("USER#42".into()))
    ///     .sk_fix(Ok("2024-05-01".into()), "#")
    ///     .sk_compare(Ok("b".into()), true, dyno_core::ops::sort_key::SkOp::Ge);
    /// let request = q.request();
    /// assert_eq!(request.key_condition.sort.as_ref().map(|(name, _)| name.as_str()), Some("SK"));
    /// ```
    pub fn of<E: Entity>(index: Option<&str>, partition: Result<String>) -> Self {
        let core = QueryCore::of(&EntityShape::of::<E>(), index, partition);
        Query::wrap(core.each(|r| r.tag = Tag::entity::<E>()))
    }

    /// A collection's query: the partition `partition` of `E` (the entity whose partition
    /// fields the collection takes) in the table (`index: None`) or in index `index`, reading
    /// the range of sort keys the members' templates `members` can write (see
    /// [`sort_key::members_range`]), not the whole partition when they share literal prefixes.
    /// `T` (the collection) decodes each member and skips the rest.
    #[doc(hidden)]
    pub fn collection<E: Entity>(
        index: Option<&str>,
        partition: Result<String>,
        members: &[Option<crate::key::Template>],
    ) -> Self {
        Query::wrap(QueryCore::of(&EntityShape::of::<E>(), index, partition).collection(members))
    }

    /// Reads only member `E`'s items (a sub-collection), on the table, a template index or a
    /// multi-attribute index, in every form of the collection:
    ///
    /// - by key range where `E`'s sort-key template starts with literal text: the sort keys
    ///   beginning with it (`=` for a constant key), instead of the collection's range;
    /// - always by entity type, in the store: a filter keeps the items whose entity-type
    ///   attribute is `E`'s (or that have none: items written by other clients, which `E` then
    ///   recognises by their key), so that other members sharing `E`'s prefix (`C#R#{id}`
    ///   inside `C#{id}`), or read with it when `E`'s key starts with a field, are left out
    ///   before [`Query::limit`] counts and pages are cut.
    ///
    /// `only::<A>().only::<B>()` reads the items that are both (none, for two members).
    pub fn only<E: Entity>(mut self) -> Self
    where
        T: CollectionMember<E>,
    {
        let index = self.core.requests.first().and_then(|r| r.index.clone());
        if let Some(Some(t)) = sort_template::<E>(index.as_deref())
            && !t.prefix().is_empty()
        {
            self.core.set_sort(sort_key::members_range(&[Some(t)]));
        }
        self.core.only.push(<E as FromItem>::accepts);
        let owned = super::entity_rules::owned_by::<E>();
        let core = self.core.and_filter(owned);
        Query::from_core(core.each(|r| r.tag = Tag::entity::<E>()))
    }

    /// Adds a filter for member `E` only: `E`'s items must match `condition`, the other
    /// members' items are left alone. Rendered as "not `E`, or the condition"
    /// (`(attribute_exists(#t) AND #t <> :E) OR (condition)`, `#t` the entity-type attribute,
    /// values as placeholders), ANDed with earlier filters. Items without an entity-type
    /// attribute (written by other clients) are held to the condition.
    ///
    /// A plain [`Query::filter`] on a collection applies to every item the query reads, whatever
    /// its entity: a condition on one member's field (`Comment::SCORE.ge(3)`) removes every
    /// item of the members that lack the attribute (DynamoDB evaluates a comparison with a
    /// missing attribute as false).
    pub fn filter_member<E: Entity>(self, condition: Cond<E>) -> Self
    where
        T: CollectionMember<E>,
    {
        match condition.into_condition() {
            Ok(c) => {
                let attribute = <E::Table as Table>::ENTITY_ATTRIBUTE;
                let other = Condition::exists(attribute).and(Condition::Compare(
                    crate::expr::Operand::Path(Path::attr(attribute)),
                    crate::expr::Comparator::Ne,
                    crate::expr::Operand::Value(AttributeValue::S(E::ENTITY_TYPE.to_owned())),
                ));
                let c = other.or(c);
                Query::from_core(self.core.and_filter(c))
            }
            Err(e) => {
                let mut q = self;
                q.core.fail(e);
                q
            }
        }
    }

    /// A query of entity `E`'s items in one partition of index `index` whose key attributes are
    /// ordinary attributes (a multi-attribute key, `IndexDef::multi`): `partition` gives every
    /// partition attribute and its value, in key order. [`Query::sk_attribute`] adds the sort
    /// attributes' conditions, left to right. The table must declare the index; the store
    /// checks that every partition attribute is given.
    ///
    /// ```
    /// # use dyno_core::{AttributeValue, Entity};
    /// # use dyno_core::ops::Query;
    /// # use dyno_core::expr::SortCondition;
    /// # #[derive(dyno_core::Table)]
    /// # #[dyno(name = "Tracker", pk = "PK", sk = "SK")]
    /// # #[dyno(index(name = "ByStatus", pk = ["tenant", "status"], sk = ["priority:N"]))]
    /// # struct Tracker;
    /// # #[derive(Debug, Entity)]
    /// # #[dyno(table = Tracker, pk = "T#{tenant}", sk = "I#{id}")]
    /// # struct Issue { tenant: String, id: String, status: String, priority: u32 }
    /// let q = Query::<Issue>::of_attributes::<Issue>(
    ///     "ByStatus",
    ///     vec![("tenant", Ok(AttributeValue::S("acme".into()))), ("status", Ok(AttributeValue::S("open".into())))],
    /// )
    /// .sk_attribute("priority", Ok(SortCondition::Le(AttributeValue::N("2".into()))));
    /// assert_eq!(q.request().key_condition.sort_parts().count(), 1);
    /// ```
    #[doc(hidden)]
    pub fn of_attributes<E: Entity>(
        index: &str,
        partition: Vec<(&str, Result<AttributeValue>)>,
    ) -> Self {
        let def = <E::Table as Table>::definition();
        let mut error = def.index(index).is_none().then(|| {
            Error::validation(format!(
                "query of {}: table {} declares no index {index}",
                E::ENTITY_TYPE,
                def.name
            ))
        });
        let mut key: Option<KeyCondition> = None;
        for (name, value) in partition {
            // An empty or oversized part is refused as a write's would be: DynamoDB would answer
            // nothing (empty) or refuse the request.
            let value = value.and_then(|v| {
                super::key_limits::check_index_part(E::ENTITY_TYPE, index, name, &v, true)
                    .map(|()| v)
            });
            let value = match value {
                Ok(v) => v,
                Err(e) => {
                    error.get_or_insert(e);
                    AttributeValue::Null(true)
                }
            };
            key = Some(match key {
                None => KeyCondition::partition(name, value),
                Some(k) => k.and_partition(name, value),
            });
        }
        let key = key.unwrap_or_else(|| {
            error.get_or_insert_with(|| {
                Error::validation(format!(
                    "query of {} on {index}: no partition attribute",
                    E::ENTITY_TYPE
                ))
            });
            KeyCondition::partition("", AttributeValue::Null(true))
        });
        let mut q = Query::new(def.name.as_str(), Some(index), key);
        q.core = q.core.each(|r| r.tag = Tag::entity::<E>());
        q.core.error = error.map(Arc::new);
        q
    }

    /// Adds a condition on the next sort attribute of a multi-attribute key (see
    /// [`Query::of_attributes`]): equality on every attribute but the last one given.
    pub fn sk_attribute(self, name: &str, condition: Result<SortCondition>) -> Self {
        Query::from_core(self.core.sk_attribute(name, condition))
    }

    /// A query of a whole partition of `E`'s table, without sort-key condition: every entity
    /// sharing the partition is read (collections).
    pub fn partition<E: Entity>(partition: Result<String>) -> Self {
        let def = <E::Table as Table>::definition();
        let (pk, error) = match partition {
            Ok(pk) => (pk, None),
            Err(e) => (String::new(), Some(Arc::new(e))),
        };
        let mut q = Query::new(
            def.name.as_str(),
            None,
            KeyCondition::partition(def.partition_key.name.as_str(), AttributeValue::S(pk)),
        );
        q.core.error = error;
        q
    }

    /// This query, or the first error met building it (the original error when this query was
    /// not cloned).
    pub fn check(self) -> Result<Self> {
        self.core.check().map(Query::from_core)
    }

    /// Adds a filter, ANDed with earlier ones: a typed condition on the fields of `E` (the
    /// entity, the entity a projection reads, or one of a collection's entities), or an untyped
    /// one through [`Cond::raw`]. Filters run after items are read: they do not reduce the
    /// capacity consumed or the 1 MB page.
    ///
    /// On a collection the filter applies to every item read, whatever its entity: a condition
    /// on one member's field also removes the items of the members without that attribute.
    /// [`Query::filter_member`] filters one member and leaves the others alone.
    pub fn filter<E>(mut self, c: Cond<E>) -> Self
    where
        T: FilterBy<E>,
    {
        match c.into_condition() {
            Ok(c) => Query::from_core(self.core.and_filter(c)),
            Err(e) => {
                self.core.fail(e);
                self
            }
        }
    }

    /// Fixes the next part of the sort key to `segment` (an encoded value), followed by the
    /// template's literal text up to the part after it (`following`, `"#"`): the query reads
    /// keys beginning with the text so far.
    pub fn sk_fix(self, segment: Result<String>, following: &str) -> Self {
        Query::from_core(self.core.sk_fix(segment, following))
    }

    /// The whole sort key: the text so far, `segment` (the last part) and the template's
    /// `trailing` literal text.
    pub fn sk_eq(self, segment: Result<String>, trailing: &str) -> Self {
        Query::from_core(self.core.sk_eq(segment, trailing))
    }

    /// The next part compared with `segment`; `last` is true when the part ends the key (no
    /// literal text after it). Exact even where a key condition alone cannot be: see
    /// [`sort_key`](super::sort_key).
    pub fn sk_compare(self, segment: Result<String>, last: bool, op: SkOp) -> Self {
        Query::from_core(self.core.sk_compare(segment, last, op, T::ttl_attribute()))
    }

    /// The next part between `low` and `high` (inclusive); `last` as for [`Query::sk_compare`].
    pub fn sk_between(self, low: Result<String>, high: Result<String>, last: bool) -> Self {
        Query::from_core(self.core.sk_between(low, high, last, T::ttl_attribute()))
    }

    /// The next part begins with `partial` (a prefix of an encoded value).
    pub fn sk_begins_with(self, partial: Result<String>) -> Self {
        Query::from_core(self.core.sk_begins_with(partial))
    }

    /// The same query decoding into `U` (a projection of the same entity, say): `U`'s
    /// projection, if it has one, replaces this query's.
    pub fn project<U: FromItem>(self) -> Query<U> {
        match U::projection() {
            Some(attrs) => Query::from_core(self.core.with_projection(
                attrs.iter().map(|a| Path::attr(*a)).collect(),
                U::ttl_attribute(),
            )),
            None => Query::from_core(self.core),
        }
    }

    /// [`Query::project`] into a collection of several entities: the requests lose the tag of
    /// the entity whose typed query this was, since they read every member (metering then
    /// attributes them by their keys). Generated code's.
    #[doc(hidden)]
    pub fn into_members<U: FromItem>(self) -> Query<U> {
        let mut q = self.project::<U>();
        q.core = q.core.each(|r| r.tag = Tag::default());
        q
    }

    /// This query in lenient form (see [`super::QueryDsl::lenient`]).
    pub fn lenient(self) -> Query<super::Decoded<T>> {
        self.project()
    }

    /// At most `n` decoded results overall (across pages, and across calls to [`Query::page`]
    /// with the cursors it returns).
    pub fn limit(mut self, n: usize) -> Self {
        self.core.limit = Some(n);
        self
    }

    /// Items read per request (DynamoDB's `Limit`, counted before filters).
    pub fn page_size(self, n: u32) -> Self {
        Query::from_core(self.core.each(|r| r.limit = Some(n)))
    }

    /// Descending sort-key order.
    pub fn descending(self) -> Self {
        Query::from_core(self.core.each(|r| r.scan_forward = false))
    }

    /// Strongly consistent reads (the store answers with a validation error on a GSI).
    pub fn consistent(self) -> Self {
        Query::from_core(self.core.each(|r| r.consistent_read = true))
    }

    /// Reads only these attributes, instead of `T::projection()`. Keep the attributes `T` needs to
    /// recognise and decode its items (the entity-type attribute or the keys). The TTL attribute
    /// (and, on a sharded query, the sort key) are added when missing.
    pub fn projection(self, paths: Vec<Path>) -> Self {
        Query::from_core(self.core.with_projection(paths, T::ttl_attribute()))
    }
}
