//! The body of [`super::Query`], compiled once: everything a query is and does but decoding
//! its items into the type read. `Query<T>` is a thin shell over it (generic code is compiled
//! again for every type it is used with: for an application's entities, once each).

use std::sync::Arc;

use super::super::canon::{fnv1a, Writer};
use super::super::entity_rules::EntityShape;
use super::super::paging::{Lanes, Plan};
use super::super::shard::shard_keys;
use super::super::sort_key::{self, PartRange, SkOp};
use crate::error::{Error, Result};
use crate::expr::{Condition, KeyCondition, Path, SortCondition};
use crate::store::QueryRequest;
use crate::value::AttributeValue;

/// What a [`super::Query`] holds.
#[derive(Debug, Clone)]
pub(crate) struct QueryCore {
    /// One request per shard (one for an unsharded query).
    pub(super) requests: Vec<QueryRequest>,
    pub(super) sort_key: Option<String>,
    pub(super) limit: Option<usize>,
    /// The exact check of a range on a sort-key part: the attribute and the range.
    pub(super) range: Option<(String, PartRange)>,
    /// How the sort-key condition is being built (typed queries); `None`: as given.
    pub(super) sort: Option<SortState>,
    /// The members a collection's query is narrowed to ([`Query::only`]): each item must be
    /// accepted by every one of these (the entity's own recognition, for items without an
    /// entity-type attribute, which the store-side filter lets through).
    pub(super) only: Vec<fn(&crate::value::Item) -> bool>,
    /// The first error met building.
    pub(super) error: Option<Arc<Error>>,
}

/// The sort-key condition of a typed query, built part by part.
#[derive(Debug, Clone)]
pub(super) struct SortState {
    /// The template's literal text and the parts fixed so far.
    pub(super) prefix: String,
    /// The template has no field: the prefix is the whole key.
    pub(super) constant: bool,
    /// The condition given by `sk_eq` or `sk_begins_with`.
    pub(super) given: Option<SortCondition>,
}

impl QueryCore {
    /// A query on `table`, or on its index `index`, with the key condition `key` (without the
    /// projection of the type read: see `Query::wrap`).
    pub(super) fn new(table: String, index: Option<&str>, key: KeyCondition) -> Self {
        QueryCore::from_requests(vec![QueryRequest::new(table, index, key)], None)
    }

    /// [`QueryCore::new`] on a sharded index: one key condition per shard.
    pub(super) fn sharded(
        table: String,
        index: Option<&str>,
        sort_key: Option<&str>,
        keys: Vec<KeyCondition>,
    ) -> Self {
        let requests = keys
            .into_iter()
            .map(|k| QueryRequest::new(table.clone(), index, k))
            .collect();
        QueryCore::from_requests(requests, sort_key.map(str::to_owned))
    }

    pub(super) fn from_requests(requests: Vec<QueryRequest>, sort_key: Option<String>) -> Self {
        QueryCore {
            requests,
            sort_key,
            limit: None,
            range: None,
            sort: None,
            only: Vec::new(),
            error: None,
        }
    }

    /// `Query::of` for the entity `shape` describes, compiled once.
    pub(super) fn of(shape: &EntityShape, index: Option<&str>, partition: Result<String>) -> Self {
        let def = shape.def;
        let mut error = None;
        let (pk_name, sk_name, template, shards) = match index {
            None => (
                def.partition_key.name.as_str(),
                def.sort_key.as_ref().map(|k| k.name.as_str()),
                shape.sk,
                0,
            ),
            Some(name) => {
                let declared = def.index(name);
                let mine = shape.indexes.iter().find(|t| t.index == name);
                if declared.is_none() {
                    error = Some(Error::validation(format!(
                        "query of {}: table {} declares no index {name}",
                        shape.entity, def.name
                    )));
                } else if mine.is_none() {
                    let indexes: Vec<&str> = shape.indexes.iter().map(|t| t.index).collect();
                    error = Some(Error::validation(format!(
                        "`{}` has no key in {name}; its indexes: {}",
                        shape.entity,
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
            QueryCore::sharded(def.name.clone(), index, sk_name, keys)
        } else {
            let mut q = QueryCore::new(def.name.clone(), index, key(pk));
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

    /// `Query::collection`'s range of sort keys: the members' templates `members`.
    pub(super) fn collection(mut self, members: &[Option<crate::key::Template>]) -> Self {
        self.sort = None;
        self.set_sort(sort_key::members_range(members));
        self
    }

    /// Writes `condition` on the sort key into every request.
    pub(super) fn set_sort(&mut self, condition: Option<SortCondition>) {
        let Some(name) = self.sort_key.clone() else {
            return;
        };
        for r in &mut self.requests {
            r.key_condition.sort = condition.clone().map(|c| (name.clone(), c));
        }
    }

    /// Adds a condition on the next sort attribute of a multi-attribute key (see
    /// [`Query::of_attributes`]): equality on every attribute but the last one given.
    pub(super) fn sk_attribute(mut self, name: &str, condition: Result<SortCondition>) -> Self {
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

    pub(super) fn each(mut self, f: impl Fn(&mut QueryRequest)) -> Self {
        self.requests.iter_mut().for_each(f);
        self
    }

    /// Keeps the first error met building: running the query returns it.
    pub(super) fn fail(&mut self, e: Error) {
        if self.error.is_none() {
            self.error = Some(Arc::new(e));
        }
    }

    /// This query, or the first error met building it (the original error when this query was
    /// not cloned).
    pub(super) fn check(self) -> Result<Self> {
        match self.error {
            None => Ok(self),
            Some(e) => Err(Arc::try_unwrap(e).unwrap_or_else(|shared| Error::clone(&shared))),
        }
    }

    /// The error met building, as a fresh value.
    pub(super) fn built(&self) -> Result<()> {
        match &self.error {
            None => Ok(()),
            Some(e) => Err(Error::clone(e)),
        }
    }

    /// The segment, or `None` with its error kept.
    pub(super) fn segment(&mut self, segment: Result<String>) -> Option<String> {
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
    pub(super) fn sort_state(&mut self) -> Option<&mut SortState> {
        if self.sort.is_none() {
            self.fail(Error::validation(
                "sort-key conditions need a typed query (Query::of) on a key with a sort key",
            ));
        }
        self.sort.as_mut()
    }

    /// Writes the sort-key condition into every request: the one given (for a range, a key
    /// condition covering it: see `PartRange` in [`sort_key`](crate::ops::sort_key)), else the fixed prefix (`begins_with`, or `=`
    /// for a constant sort key), else none.
    pub(super) fn apply_sort(&mut self) {
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
    pub(super) fn sk_fix(mut self, segment: Result<String>, following: &str) -> Self {
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
    pub(super) fn sk_eq(mut self, segment: Result<String>, trailing: &str) -> Self {
        if let Some(s) = self.segment(segment) {
            if let Some(state) = self.sort_state() {
                let key = format!("{}{s}{trailing}", state.prefix);
                state.given = Some(SortCondition::Eq(AttributeValue::S(key)));
            }
            self.apply_sort();
        }
        self
    }

    /// The next part begins with `partial` (a prefix of an encoded value).
    pub(super) fn sk_begins_with(mut self, partial: Result<String>) -> Self {
        if let Some(s) = self.segment(partial) {
            if let Some(state) = self.sort_state() {
                state.given = Some(sort_key::begins_with(&state.prefix, &s));
            }
            self.apply_sort();
        }
        self
    }

    /// The next part compared with `segment`; `last` is true when the part ends the key (no
    /// literal text after it). Exact even where a key condition alone cannot be: see
    /// [`sort_key`](crate::ops::sort_key).
    pub(super) fn sk_compare(
        mut self,
        segment: Result<String>,
        last: bool,
        op: SkOp,
        ttl: Option<&'static str>,
    ) -> Self {
        if let Some(s) = self.segment(segment)
            && let Some(state) = self.sort_state()
        {
            let range = PartRange::compare(&state.prefix, &s, last, op);
            self = self.sort_range(range, ttl);
        }
        self
    }

    /// The next part between `low` and `high` (inclusive); `last` as for [`Query::sk_compare`].
    pub(super) fn sk_between(
        mut self,
        low: Result<String>,
        high: Result<String>,
        last: bool,
        ttl: Option<&'static str>,
    ) -> Self {
        if let (Some(lo), Some(hi)) = (self.segment(low), self.segment(high))
            && let Some(state) = self.sort_state()
        {
            let range = PartRange::between(&state.prefix, &lo, &hi, last);
            self = self.sort_range(range, ttl);
        }
        self
    }

    /// Keeps only items whose sort key is in `range` (exact), and reads the sort key attribute
    /// when a projection would leave it out.
    pub(super) fn sort_range(mut self, range: PartRange, ttl: Option<&'static str>) -> Self {
        let Some(name) = self.sort_key.clone() else {
            return self;
        };
        self.range = Some((name, range));
        self.apply_sort();
        let projection = self.requests.first().and_then(|r| r.projection.clone());
        match projection {
            Some(paths) => self.with_projection(paths, ttl),
            None => self,
        }
    }

    pub(super) fn with_projection(self, mut paths: Vec<Path>, ttl: Option<&'static str>) -> Self {
        let extra = ttl
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

    /// Adds `condition` to every request's filter, ANDed with earlier ones.
    pub(super) fn and_filter(self, condition: Condition) -> Self {
        self.each(|r| r.filter = Some(Condition::and_opt(r.filter.take(), condition.clone())))
    }

    /// How this query is read, items with TTL attribute `ttl` hidden.
    pub(super) fn plan(&self, ttl: Option<&'static str>) -> Plan {
        Plan {
            lanes: Lanes::Query(self.requests.clone()),
            sort_key: self.sort_key.clone(),
            forward: self.requests.first().is_none_or(|r| r.scan_forward),
            limit: self.limit,
            ttl,
            range: self.range.clone(),
            only: self.only.clone(),
        }
    }

    /// What identifies this query for cursors.
    pub(super) fn fingerprint(&self) -> u64 {
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

    /// The span of one run of this query, reading `entity` (a type name).
    pub(super) fn span(&self, op: &'static str, entity: &'static str) -> tracing::Span {
        let r = self.requests.first();
        tracing::debug_span!(
            "dyno.query",
            op,
            entity,
            table = r.map(|r| r.table.as_str()).unwrap_or(""),
            index = r.and_then(|r| r.index.as_deref()).unwrap_or(""),
            shards = self.requests.len(),
        )
    }
}
