//! Typed queries: on the table or an index, plain or sharded, as a whole, a stream or pages.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use futures::Stream;
use tracing::Instrument;

use super::canon::{fnv1a, Writer};
use super::cursor::{Cursor, PageState};
use super::paging::{Lanes, Plan};
use super::shard::shard_keys;
use super::sort_key::{self, PartRange, SkOp};
use super::{FilterBy, FromItem};
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::expr::{Cond, Condition, KeyCondition, Path, SortCondition};
use crate::store::{QueryRequest, Store};
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
    /// One request per shard (one for an unsharded query).
    requests: Vec<QueryRequest>,
    sort_key: Option<String>,
    limit: Option<usize>,
    /// The exact check of a range on a sort-key part: the attribute and the range.
    range: Option<(String, PartRange)>,
    /// How the sort-key condition is being built (typed queries); `None`: as given.
    sort: Option<SortState>,
    /// The members a collection's query is narrowed to ([`Query::only`]): each item must be
    /// accepted by every one of these (the entity's own recognition, for items without an
    /// entity-type attribute, which the store-side filter lets through).
    only: Vec<fn(&crate::value::Item) -> bool>,
    /// The first error met building.
    error: Option<Arc<Error>>,
    _t: PhantomData<fn() -> T>,
}

/// The sort-key condition of a typed query, built part by part.
#[derive(Debug, Clone)]
struct SortState {
    /// The template's literal text and the parts fixed so far.
    prefix: String,
    /// The template has no field: the prefix is the whole key.
    constant: bool,
    /// The condition given by `sk_eq` or `sk_begins_with`.
    given: Option<SortCondition>,
}

impl<T: FromItem> Clone for Query<T> {
    fn clone(&self) -> Self {
        Query {
            requests: self.requests.clone(),
            sort_key: self.sort_key.clone(),
            limit: self.limit,
            range: self.range.clone(),
            sort: self.sort.clone(),
            only: self.only.clone(),
            error: self.error.clone(),
            _t: PhantomData,
        }
    }
}

impl<T: FromItem> fmt::Debug for Query<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Query")
            .field("type", &std::any::type_name::<T>())
            .field("requests", &self.requests)
            .field("sort_key", &self.sort_key)
            .field("limit", &self.limit)
            .field("range", &self.range)
            .field("only", &self.only.len())
            .field("error", &self.error)
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
    /// A query on `table`, or on its index `index`, with the key condition `key`.
    pub fn new(table: impl Into<String>, index: Option<&str>, key: KeyCondition) -> Self {
        Query::from_requests(vec![QueryRequest::new(table, index, key)], None)
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
        let table = table.into();
        let requests = keys
            .into_iter()
            .map(|k| QueryRequest::new(table.clone(), index, k))
            .collect();
        Query::from_requests(requests, sort_key.map(str::to_owned))
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
        let def = <E::Table as Table>::definition();
        let mut error = None;
        let (pk_name, sk_name, template, shards) = match index {
            None => (
                def.partition_key.name.as_str(),
                def.sort_key.as_ref().map(|k| k.name.as_str()),
                E::SK,
                0,
            ),
            Some(name) => {
                let declared = def.index(name);
                let mine = E::INDEXES.iter().find(|t| t.index == name);
                if declared.is_none() {
                    error = Some(Error::validation(format!(
                        "query of {}: table {} declares no index {name}",
                        E::ENTITY_TYPE,
                        def.name
                    )));
                } else if mine.is_none() {
                    let indexes: Vec<&str> = E::INDEXES.iter().map(|t| t.index).collect();
                    error = Some(Error::validation(format!(
                        "`{}` has no key in {name}; its indexes: {}",
                        E::ENTITY_TYPE,
                        if indexes.is_empty() {
                            "none".to_owned()
                        } else {
                            indexes.join(", ")
                        }
                    )));
                }
                (
                    declared.map_or("", |d| d.partition_key.name.as_str()),
                    declared.and_then(|d| d.sort_key.as_ref().map(|k| k.name.as_str())),
                    mine.and_then(|t| t.sk),
                    mine.map_or(0, |t| t.shards),
                )
            }
        };
        let pk = match partition {
            Ok(pk) => pk,
            Err(e) => {
                error.get_or_insert(e);
                String::new()
            }
        };
        let key = |pk: String| KeyCondition::partition(pk_name, AttributeValue::S(pk));
        let mut q = if shards > 0 {
            let keys = shard_keys(&pk, shards).into_iter().map(key).collect();
            Query::sharded(def.name.as_str(), index, sk_name, keys)
        } else {
            let mut q = Query::new(def.name.as_str(), index, key(pk));
            q.sort_key = sk_name.map(str::to_owned);
            q
        };
        q.error = error.map(Arc::new);
        if let Some(t) = template.filter(|_| sk_name.is_some()) {
            q.sort = Some(SortState {
                prefix: t.prefix().to_owned(),
                constant: t.is_constant(),
                given: None,
            });
            q.apply_sort();
        }
        q
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
        let mut q = Self::of::<E>(index, partition);
        q.sort = None;
        q.set_sort(sort_key::members_range(members));
        q
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
        let index = self.requests.first().and_then(|r| r.index.clone());
        if let Some(Some(t)) = sort_template::<E>(index.as_deref())
            && !t.prefix().is_empty()
        {
            self.set_sort(sort_key::members_range(&[Some(t)]));
        }
        self.only.push(<E as FromItem>::accepts);
        let owned = super::support::owned_by::<E>();
        self.each(|r| r.filter = Some(Condition::and_opt(r.filter.take(), owned.clone())))
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
                self.each(|r| r.filter = Some(Condition::and_opt(r.filter.take(), c.clone())))
            }
            Err(e) => {
                let mut q = self;
                q.fail(e);
                q
            }
        }
    }

    /// Writes `condition` on the sort key into every request.
    fn set_sort(&mut self, condition: Option<SortCondition>) {
        let Some(name) = self.sort_key.clone() else {
            return;
        };
        for r in &mut self.requests {
            r.key_condition.sort = condition.clone().map(|c| (name.clone(), c));
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
                super::support::check_index_part::<E>(index, name, &v, true).map(|()| v)
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
        q.error = error.map(Arc::new);
        q
    }

    /// Adds a condition on the next sort attribute of a multi-attribute key (see
    /// [`Query::of_attributes`]): equality on every attribute but the last one given.
    pub fn sk_attribute(mut self, name: &str, condition: Result<SortCondition>) -> Self {
        match condition {
            Ok(c) => self.each(|r| {
                let key = std::mem::replace(
                    &mut r.key_condition,
                    KeyCondition::partition("", AttributeValue::Null(true)),
                );
                r.key_condition = key.sort(name, c.clone());
            }),
            Err(e) => {
                self.fail(e);
                self
            }
        }
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
        q.error = error;
        q
    }

    fn from_requests(requests: Vec<QueryRequest>, sort_key: Option<String>) -> Self {
        let mut q = Query {
            requests,
            sort_key,
            limit: None,
            range: None,
            sort: None,
            only: Vec::new(),
            error: None,
            _t: PhantomData,
        };
        if let Some(attrs) = T::projection() {
            q = q.with_projection(attrs.iter().map(|a| Path::attr(*a)).collect());
        }
        q
    }

    fn each(mut self, f: impl Fn(&mut QueryRequest)) -> Self {
        self.requests.iter_mut().for_each(f);
        self
    }

    /// Keeps the first error met building: running the query returns it.
    fn fail(&mut self, e: Error) {
        if self.error.is_none() {
            self.error = Some(Arc::new(e));
        }
    }

    /// This query, or the first error met building it (the original error when this query was
    /// not cloned).
    pub fn check(self) -> Result<Self> {
        match self.error {
            None => Ok(self),
            Some(e) => Err(Arc::try_unwrap(e).unwrap_or_else(|shared| Error::clone(&shared))),
        }
    }

    /// The error met building, as a fresh value.
    fn built(&self) -> Result<()> {
        match &self.error {
            None => Ok(()),
            Some(e) => Err(Error::clone(e)),
        }
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
            Ok(c) => self.each(|r| r.filter = Some(Condition::and_opt(r.filter.take(), c.clone()))),
            Err(e) => {
                self.fail(e);
                self
            }
        }
    }

    /// The segment, or `None` with its error kept.
    fn segment(&mut self, segment: Result<String>) -> Option<String> {
        match segment {
            Ok(s) => Some(s),
            Err(e) => {
                self.fail(e);
                None
            }
        }
    }

    /// The sort-key state, or `None` with an error kept (a query not built by [`Query::of`], or
    /// on a table without sort key).
    fn sort_state(&mut self) -> Option<&mut SortState> {
        if self.sort.is_none() {
            self.fail(Error::validation(
                "sort-key conditions need a typed query (Query::of) on a key with a sort key",
            ));
        }
        self.sort.as_mut()
    }

    /// Writes the sort-key condition into every request: the one given (for a range, a key
    /// condition covering it: see `PartRange` in [`sort_key`](super::sort_key)), else the fixed prefix (`begins_with`, or `=`
    /// for a constant sort key), else none.
    fn apply_sort(&mut self) {
        let (Some(state), Some(name)) = (&self.sort, &self.sort_key) else {
            return;
        };
        let condition = if let Some(s) = &state.given {
            Some(s.clone())
        } else if let Some((_, r)) = &self.range {
            r.key_condition()
        } else if state.constant {
            Some(SortCondition::Eq(AttributeValue::S(state.prefix.clone())))
        } else {
            (!state.prefix.is_empty())
                .then(|| SortCondition::BeginsWith(AttributeValue::S(state.prefix.clone())))
        };
        for r in &mut self.requests {
            r.key_condition.sort = condition.clone().map(|c| (name.clone(), c));
        }
    }

    /// Fixes the next part of the sort key to `segment` (an encoded value), followed by the
    /// template's literal text up to the part after it (`following`, `"#"`): the query reads
    /// keys beginning with the text so far.
    pub fn sk_fix(mut self, segment: Result<String>, following: &str) -> Self {
        if let Some(s) = self.segment(segment) {
            if let Some(state) = self.sort_state() {
                state.prefix.push_str(&s);
                state.prefix.push_str(following);
            }
            self.apply_sort();
        }
        self
    }

    /// The whole sort key: the text so far, `segment` (the last part) and the template's
    /// `trailing` literal text.
    pub fn sk_eq(mut self, segment: Result<String>, trailing: &str) -> Self {
        if let Some(s) = self.segment(segment) {
            if let Some(state) = self.sort_state() {
                let key = format!("{}{s}{trailing}", state.prefix);
                state.given = Some(SortCondition::Eq(AttributeValue::S(key)));
            }
            self.apply_sort();
        }
        self
    }

    /// The next part compared with `segment`; `last` is true when the part ends the key (no
    /// literal text after it). Exact even where a key condition alone cannot be: see
    /// [`sort_key`](super::sort_key).
    pub fn sk_compare(mut self, segment: Result<String>, last: bool, op: SkOp) -> Self {
        if let Some(s) = self.segment(segment)
            && let Some(state) = self.sort_state()
        {
            let range = PartRange::compare(&state.prefix, &s, last, op);
            self = self.sort_range(range);
        }
        self
    }

    /// The next part between `low` and `high` (inclusive); `last` as for [`Query::sk_compare`].
    pub fn sk_between(mut self, low: Result<String>, high: Result<String>, last: bool) -> Self {
        if let (Some(lo), Some(hi)) = (self.segment(low), self.segment(high))
            && let Some(state) = self.sort_state()
        {
            let range = PartRange::between(&state.prefix, &lo, &hi, last);
            self = self.sort_range(range);
        }
        self
    }

    /// The next part begins with `partial` (a prefix of an encoded value).
    pub fn sk_begins_with(mut self, partial: Result<String>) -> Self {
        if let Some(s) = self.segment(partial) {
            if let Some(state) = self.sort_state() {
                state.given = Some(sort_key::begins_with(&state.prefix, &s));
            }
            self.apply_sort();
        }
        self
    }

    /// Keeps only items whose sort key is in `range` (exact), and reads the sort key attribute
    /// when a projection would leave it out.
    fn sort_range(mut self, range: PartRange) -> Self {
        let Some(name) = self.sort_key.clone() else {
            return self;
        };
        self.range = Some((name, range));
        self.apply_sort();
        let projection = self.requests.first().and_then(|r| r.projection.clone());
        match projection {
            Some(paths) => self.with_projection(paths),
            None => self,
        }
    }

    /// The same query decoding into `U` (a projection of the same entity, say): `U`'s
    /// projection, if it has one, replaces this query's.
    pub fn project<U: FromItem>(self) -> Query<U> {
        let q = Query {
            requests: self.requests,
            sort_key: self.sort_key,
            limit: self.limit,
            range: self.range,
            sort: self.sort,
            only: self.only,
            error: self.error,
            _t: PhantomData,
        };
        match U::projection() {
            Some(attrs) => q.with_projection(attrs.iter().map(|a| Path::attr(*a)).collect()),
            None => q,
        }
    }

    /// This query in lenient form (see [`super::QueryDsl::lenient`]).
    pub fn lenient(self) -> Query<super::Decoded<T>> {
        self.project()
    }

    /// At most `n` decoded results overall (across pages, and across calls to [`Query::page`]
    /// with the cursors it returns).
    pub fn limit(mut self, n: usize) -> Self {
        self.limit = Some(n);
        self
    }

    /// Items read per request (DynamoDB's `Limit`, counted before filters).
    pub fn page_size(self, n: u32) -> Self {
        self.each(|r| r.limit = Some(n))
    }

    /// Descending sort-key order.
    pub fn descending(self) -> Self {
        self.each(|r| r.scan_forward = false)
    }

    /// Strongly consistent reads (the store answers with a validation error on a GSI).
    pub fn consistent(self) -> Self {
        self.each(|r| r.consistent_read = true)
    }

    /// Reads only these attributes, instead of `T::projection()`. Keep the attributes `T` needs to
    /// recognise and decode its items (the entity-type attribute or the keys). The TTL attribute
    /// (and, on a sharded query, the sort key) are added when missing.
    pub fn projection(self, paths: Vec<Path>) -> Self {
        self.with_projection(paths)
    }

    fn with_projection(self, mut paths: Vec<Path>) -> Self {
        let extra = T::ttl_attribute()
            .into_iter()
            .chain(self.sort_key.as_deref().filter(|_| self.requests.len() > 1))
            .chain(self.range.as_ref().map(|(a, _)| a.as_str()));
        let extra: Vec<String> = extra.map(str::to_owned).collect();
        for name in extra {
            if !paths
                .iter()
                .any(|p| p.top() == Some(name.as_str()) && p.0.len() == 1)
            {
                paths.push(Path::attr(name));
            }
        }
        self.each(|r| r.projection = Some(paths.clone()))
    }

    /// The first shard's request (the only one of an unsharded query), for inspection.
    pub fn request(&self) -> &QueryRequest {
        // An empty sharded query keeps a placeholder so that there is always a request to show.
        first_or_placeholder(&self.requests)
    }

    fn plan(&self) -> Plan {
        Plan {
            lanes: Lanes::Query(self.requests.clone()),
            sort_key: self.sort_key.clone(),
            forward: self.requests.first().is_none_or(|r| r.scan_forward),
            limit: self.limit,
            ttl: T::ttl_attribute(),
            range: self.range.clone(),
            only: self.only.clone(),
        }
    }

    fn fingerprint(&self) -> u64 {
        let mut w = Writer::default();
        Lanes::Query(self.requests.clone()).fingerprint_into(&mut w);
        w.opt_str(self.sort_key.as_deref());
        match &self.range {
            None => w.u8(0),
            Some((attr, r)) => {
                w.u8(1);
                w.str(attr);
                w.str(&r.prefix);
                w.u8(u8::from(r.last));
                for bound in [&r.low, &r.high] {
                    w.opt_str(bound.as_ref().map(|(v, _)| v.as_str()));
                    w.u8(bound
                        .as_ref()
                        .map_or(2, |(_, inclusive)| u8::from(*inclusive)));
                }
            }
        }
        fnv1a(&w.buf)
    }

    fn span(&self, op: &'static str) -> tracing::Span {
        let r = self.requests.first();
        tracing::debug_span!(
            "dyno.query",
            op,
            entity = std::any::type_name::<T>(),
            table = r.map(|r| r.table.as_str()).unwrap_or(""),
            index = r.and_then(|r| r.index.as_deref()).unwrap_or(""),
            shards = self.requests.len(),
        )
    }

    /// Every result (up to the limit), reading all pages.
    pub async fn all<S: Store + ?Sized>(self, store: &S) -> Result<Vec<T>> {
        let this = self.check()?;
        if this.requests.is_empty() {
            return Ok(Vec::new());
        }
        let span = this.span("all");
        this.plan().all::<T, S>(store).instrument(span).await
    }

    /// The results as a stream that reads pages lazily, as it is polled. The stream ends after
    /// the first error.
    pub fn stream<'s, S: Store + ?Sized>(
        self,
        store: &'s S,
    ) -> impl Stream<Item = Result<T>> + Send + 's {
        let span = self.span("stream");
        let inner = match self.built() {
            Ok(()) => {
                let mut plan = self.plan();
                if self.requests.is_empty() {
                    plan.limit = Some(0);
                }
                futures::future::Either::Left(plan.stream::<T, S>(store))
            }
            Err(e) => futures::future::Either::Right(futures::stream::once(async move { Err(e) })),
        };
        tracing_futures_stream(inner, span)
    }

    /// One page, starting at `cursor` (`None`: the first page). The cursor returned with the page
    /// resumes this query only; with any other query it is [`crate::Error::InvalidCursor`].
    ///
    /// A page holds the items of one request per shard; it can be empty while more pages follow.
    pub async fn page<S: Store + ?Sized>(
        &self,
        store: &S,
        cursor: Option<&Cursor>,
    ) -> Result<PageOf<T>> {
        self.built()?;
        if self.requests.is_empty() {
            return Ok(PageOf {
                items: Vec::new(),
                cursor: None,
            });
        }
        let fingerprint = self.fingerprint();
        let state = match cursor {
            Some(c) => c
                .state_for(fingerprint, self.requests.len(), store.cursor_key())?
                .clone(),
            None => PageState::start(self.requests.len()),
        };
        let span = self.span("page");
        let round = self
            .plan()
            .round::<T, S>(store, &state)
            .instrument(span)
            .await?;
        Ok(PageOf {
            items: round.items,
            cursor: round
                .next
                .map(|s| Cursor::new(fingerprint, s, store.cursor_key())),
        })
    }

    /// The pages of [`Query::page`] as a stream, one `Vec` of results per page (possibly
    /// empty), read lazily as it is polled; it ends after the last page or the first error.
    pub fn pages<'s, S: Store + ?Sized>(
        self,
        store: &'s S,
    ) -> impl Stream<Item = Result<Vec<T>>> + Send + 's
    where
        T: 's,
    {
        // (query, the next page's cursor, done)
        futures::stream::unfold(
            (self, None::<Cursor>, false),
            move |(q, cursor, done)| async move {
                if done {
                    return None;
                }
                match q.page(store, cursor.as_ref()).await {
                    Ok(page) => {
                        let last = page.cursor.is_none();
                        Some((Ok(page.items), (q, page.cursor, last)))
                    }
                    Err(e) => Some((Err(e), (q, None, true))),
                }
            },
        )
    }

    /// The first result, if any.
    pub async fn first<S: Store + ?Sized>(self, store: &S) -> Result<Option<T>> {
        Ok(self.limit(1).all(store).await?.into_iter().next())
    }

    /// The number of results [`Query::all`] would return (capped at the limit): items matching
    /// the key condition and the filter that are `T`'s and not expired. The items are read, page
    /// after page on every shard, but not decoded; a store-side `Select = COUNT` could not tell
    /// the entities of an overloaded index apart.
    pub async fn count<S: Store + ?Sized>(self, store: &S) -> Result<usize> {
        self.built()?;
        if self.requests.is_empty() {
            return Ok(0);
        }
        let span = self.span("count");
        let ttl = T::ttl_attribute();
        let n = Lanes::Query(self.requests)
            .count::<T, S>(store, ttl, self.range.as_ref(), &self.only)
            .instrument(span)
            .await?;
        Ok(self.limit.map_or(n, |l| n.min(l)))
    }
}

fn first_or_placeholder(requests: &[QueryRequest]) -> &QueryRequest {
    use std::sync::OnceLock;
    static EMPTY: OnceLock<QueryRequest> = OnceLock::new();
    requests.first().unwrap_or_else(|| {
        EMPTY.get_or_init(|| {
            QueryRequest::new(
                "",
                None,
                KeyCondition::partition("", crate::value::AttributeValue::S(String::new())),
            )
        })
    })
}

/// Enters `span` each time the stream is polled.
pub(crate) fn tracing_futures_stream<'s, T: 's>(
    inner: impl Stream<Item = Result<T>> + Send + 's,
    span: tracing::Span,
) -> impl Stream<Item = Result<T>> + Send + 's {
    use futures::StreamExt;
    let inner = Box::pin(inner);
    futures::stream::unfold((inner, span), |(mut inner, span)| async move {
        let next = inner.next().instrument(span.clone()).await;
        next.map(|item| (item, (inner, span)))
    })
}

/// `E`'s sort-key template in the table (`index: None`) or in index `index`: `None` when `E` has
/// no key in the index, `Some(None)` when the key has no sort key.
pub fn sort_template<E: Entity>(index: Option<&str>) -> Option<Option<crate::key::Template>> {
    match index {
        None => Some(E::SK),
        Some(name) => E::INDEXES.iter().find(|t| t.index == name).map(|t| t.sk),
    }
}

/// A collection (`#[derive(Collection)]`, the type its query decodes) that lists entity `E`:
/// what [`Query::only`] needs.
#[diagnostic::on_unimplemented(
    message = "`{E}` is not one of this collection's entities",
    label = "not a member of the collection",
    note = "`only::<E>()` narrows a collection's query to one of the entities it lists"
)]
pub trait CollectionMember<E> {}

/// A collection (`#[derive(Collection)]`, the enum its query decodes) declared on the index
/// whose name hashes to `INDEX` (dyno-derive's `index_id`; 0: the table): what the
/// `.collection::<C>()` of a multi-attribute index's typed query needs, so that a collection
/// is read only through the index it was declared (and checked) for.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a collection of this multi-attribute index",
    label = "declared for another index, or not an enum collection",
    note = "declare the collection with `#[dyno(index = <the index>)]` as an enum of the entities mapping fields onto it: `.collection::<C>()` reads that index's partition into `C`"
)]
pub trait CollectionOn<const INDEX: u64> {}

/// Never implemented: what `.collection::<C>()` asks of `C` on a typed query of the table or of
/// an index keyed by templates, where collections are read by their own constructor,
/// `C::query(..)` (see [`super::QueryDsl`]'s hidden `collection`). A multi-attribute index's
/// typed query has its own `collection`.
#[diagnostic::on_unimplemented(
    message = "`.collection::<{Self}>()` reads a multi-attribute index's query; on the table or an index keyed by templates, read `{Self}` with `{Self}::query(..)`",
    label = "a query on the table or on an index keyed by templates",
    note = "`{Self}::query(partition)` reads every member of one partition (the partition key fields, a tuple when there are several); `.only::<E>()` narrows it to one member"
)]
pub trait ReadByCollectionQuery {}
