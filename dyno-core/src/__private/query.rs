//! The state behind the generated query builders: partition key (one, or one per shard), the
//! sort-key condition built part by part, and the options, turned into an `ops::Query` when run.
//! Errors met while building (a key value that cannot be encoded, a condition that failed) are
//! kept and returned by the first method that runs the query.

use futures::Stream;

use super::sort::{sk_begins_with, sk_between, sk_compare, PartRange, SkOp};
use super::{shard_keys, TableKeys};
use crate::entity::Entity;
use crate::error::{Error, Result};
use crate::expr::{Condition, KeyCondition, SortCondition};
use crate::ops::{FromItem, Query};
use crate::table::Table;
use crate::value::AttributeValue;

/// What a generated query builder has gathered so far.
#[derive(Debug)]
pub struct QueryCore {
    error: Option<Error>,
    table: &'static str,
    index: Option<&'static str>,
    pk_name: &'static str,
    pk: String,
    shards: u32,
    sk_name: Option<&'static str>,
    prefix: String,
    constant: bool,
    sort: Option<SortCondition>,
    /// A range on a part: its key condition is `sort`'s place, its exact check runs on each item.
    range: Option<PartRange>,
    filter: Option<Condition>,
    limit: Option<usize>,
    page_size: Option<u32>,
    descending: bool,
    consistent: bool,
}

impl QueryCore {
    /// A query of entity `E` on the table (`index: None`) or one of its indexes.
    pub fn new<E: Entity>(
        index: Option<&'static str>,
        pk_name: &'static str,
        pk: Result<String>,
        shards: u32,
        sk_name: Option<&'static str>,
        sk_prefix: &'static str,
        sk_constant: bool,
    ) -> Self {
        let mut core = QueryCore {
            error: None,
            table: <E::Table as Table>::definition().name.as_str(),
            index,
            pk_name,
            pk: String::new(),
            shards,
            sk_name,
            prefix: sk_prefix.to_owned(),
            constant: sk_constant,
            sort: None,
            range: None,
            filter: None,
            limit: None,
            page_size: None,
            descending: false,
            consistent: false,
        };
        match pk {
            Ok(pk) => core.pk = pk,
            Err(e) => core.fail(e),
        }
        core
    }

    /// A whole partition of `E`'s table, without sort-key condition (collections).
    pub fn partition<E: Entity>(pk: Result<String>) -> Self
    where
        E::Table: TableKeys,
    {
        Self::new::<E>(None, <E::Table as TableKeys>::PK, pk, 0, None, "", false)
    }

    fn fail(&mut self, e: Error) {
        if self.error.is_none() {
            self.error = Some(e);
        }
    }

    fn segment(&mut self, segment: Result<String>) -> Option<String> {
        match segment {
            Ok(s) => Some(s),
            Err(e) => {
                self.fail(e);
                None
            }
        }
    }

    /// Fixes the next sort-key part (`*_eq` on a part that is not the last): the prefix grows by
    /// the part and the literal after it.
    pub fn sk_fix(mut self, segment: Result<String>, following: &str) -> Self {
        if let Some(s) = self.segment(segment) {
            self.prefix.push_str(&s);
            self.prefix.push_str(following);
        }
        self
    }

    /// The whole sort key (`*_eq` on the last part).
    pub fn sk_eq(mut self, segment: Result<String>, trailing: &str) -> Self {
        if let Some(s) = self.segment(segment) {
            self.sort = Some(SortCondition::Eq(AttributeValue::S(format!(
                "{}{s}{trailing}",
                self.prefix
            ))));
        }
        self
    }

    /// A range on the next part.
    pub fn sk_compare(mut self, segment: Result<String>, last: bool, op: SkOp) -> Self {
        if let Some(s) = self.segment(segment) {
            self.range = Some(sk_compare(&self.prefix, &s, last, op));
        }
        self
    }

    /// `BETWEEN` on the next part.
    pub fn sk_between(mut self, low: Result<String>, high: Result<String>, last: bool) -> Self {
        if let (Some(lo), Some(hi)) = (self.segment(low), self.segment(high)) {
            self.range = Some(sk_between(&self.prefix, &lo, &hi, last));
        }
        self
    }

    /// `begins_with` a partial value of the next part.
    pub fn sk_begins_with(mut self, partial: Result<String>) -> Self {
        if let Some(s) = self.segment(partial) {
            self.sort = Some(sk_begins_with(&self.prefix, &s));
        }
        self
    }

    /// Adds a filter (ANDed).
    pub fn filter(mut self, condition: Result<Condition>) -> Self {
        match condition {
            Ok(c) => self.filter = Some(Condition::and_opt(self.filter.take(), c)),
            Err(e) => self.fail(e),
        }
        self
    }

    /// At most `n` results.
    pub fn limit(mut self, n: usize) -> Self {
        self.limit = Some(n);
        self
    }

    /// Items per request.
    pub fn page_size(mut self, n: u32) -> Self {
        self.page_size = Some(n);
        self
    }

    /// Descending order.
    pub fn descending(mut self) -> Self {
        self.descending = true;
        self
    }

    /// Strongly consistent reads.
    pub fn consistent(mut self) -> Self {
        self.consistent = true;
        self
    }

    /// The sort-key condition: the one given (for a range, a key condition covering it: see
    /// [`PartRange`]), else the fixed prefix (`begins_with`, or `=` for a constant sort key),
    /// else none.
    pub fn sort_condition(&self) -> Option<SortCondition> {
        if let Some(s) = &self.sort {
            return Some(s.clone());
        }
        if let Some(r) = &self.range {
            return r.key_condition();
        }
        if self.constant {
            return Some(SortCondition::Eq(AttributeValue::S(self.prefix.clone())));
        }
        (!self.prefix.is_empty())
            .then(|| SortCondition::BeginsWith(AttributeValue::S(self.prefix.clone())))
    }

    /// The `ops::Query` this describes, or the first error met building it.
    pub fn build<T: FromItem>(mut self) -> Result<Query<T>> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let sort = self.sort_condition();
        let key = |pk: String| {
            let k = KeyCondition::partition(self.pk_name, AttributeValue::S(pk));
            match (&sort, self.sk_name) {
                (Some(s), Some(name)) => k.sort(name, s.clone()),
                _ => k,
            }
        };
        let mut q = if self.shards > 0 {
            let keys = shard_keys(&self.pk, self.shards)
                .into_iter()
                .map(key)
                .collect();
            Query::sharded(self.table, self.index, self.sk_name, keys)
        } else {
            Query::new(self.table, self.index, key(self.pk.clone()))
        };
        if let (Some(range), Some(name)) = (self.range, self.sk_name) {
            q = q.sort_range(name, range);
        }
        if let Some(f) = self.filter {
            q = q.filter(f);
        }
        if let Some(n) = self.limit {
            q = q.limit(n);
        }
        if let Some(n) = self.page_size {
            q = q.page_size(n);
        }
        if self.descending {
            q = q.descending();
        }
        if self.consistent {
            q = q.consistent();
        }
        Ok(q)
    }

    /// The stream of a built query, or a stream of its one error.
    pub fn stream<'s, T: FromItem, S: crate::store::Store + ?Sized>(
        query: Result<Query<T>>,
        store: &'s S,
    ) -> impl Stream<Item = Result<T>> + Send + 's {
        use futures::future::Either;
        match query {
            Ok(q) => Either::Left(q.stream(store)),
            Err(e) => Either::Right(futures::stream::once(futures::future::ready(Err(e)))),
        }
    }
}
