//! Typed queries: on the table or an index, plain or sharded, as a whole, a stream or pages.

use std::fmt;
use std::marker::PhantomData;

use futures::Stream;
use tracing::Instrument;

use super::canon::{fnv1a, Writer};
use super::cursor::{Cursor, PageState};
use super::paging::{Lanes, Plan};
use super::FromItem;
use crate::__private::PartRange;
use crate::error::Result;
use crate::expr::{Condition, KeyCondition, Path};
use crate::store::{QueryRequest, Store};

/// A query decoding its items into `T`. Built by the derive's typed query builders
/// (`Order::query(&user_id)`) or by hand from a [`KeyCondition`].
///
/// Items are decoded only when [`FromItem::accepts`] them: other entities sharing an overloaded
/// index are skipped (and do not count towards [`Query::limit`]); items whose TTL attribute is in
/// the past are skipped too. So are items outside a typed range on one part of a composite sort
/// key (`category_gt(..)` on `"{category}#{name}"`), which DynamoDB's key condition cannot always
/// express exactly: the query reads a key range covering it and checks each item's part, so, as
/// with a DynamoDB filter, a page (and a request's `Limit`) can hold fewer results than items
/// read.
#[must_use = "a query does nothing until it is run with all, stream, page, first or count"]
pub struct Query<T: FromItem> {
    /// One request per shard (one for an unsharded query).
    requests: Vec<QueryRequest>,
    sort_key: Option<String>,
    limit: Option<usize>,
    /// The exact check of a range on a sort-key part: the attribute and the range.
    range: Option<(String, PartRange)>,
    _t: PhantomData<fn() -> T>,
}

impl<T: FromItem> Clone for Query<T> {
    fn clone(&self) -> Self {
        Query {
            requests: self.requests.clone(),
            sort_key: self.sort_key.clone(),
            limit: self.limit,
            range: self.range.clone(),
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

    fn from_requests(requests: Vec<QueryRequest>, sort_key: Option<String>) -> Self {
        let mut q = Query {
            requests,
            sort_key,
            limit: None,
            range: None,
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

    /// Adds a filter, ANDed with earlier ones. Filters run after items are read: they do not
    /// reduce the capacity consumed or the 1 MB page.
    pub fn filter(self, c: Condition) -> Self {
        self.each(|r| r.filter = Some(Condition::and_opt(r.filter.take(), c.clone())))
    }

    /// Keeps only items whose sort key `attribute` is in `range` (exact), and reads the attribute
    /// when a projection would leave it out.
    pub(crate) fn sort_range(mut self, attribute: &str, range: PartRange) -> Self {
        self.range = Some((attribute.to_owned(), range));
        let projection = self.requests.first().and_then(|r| r.projection.clone());
        match projection {
            Some(paths) => self.with_projection(paths),
            None => self,
        }
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
        if self.requests.is_empty() {
            return Ok(Vec::new());
        }
        let span = self.span("all");
        self.plan().all::<T, S>(store).instrument(span).await
    }

    /// The results as a stream that reads pages lazily, as it is polled. The stream ends after
    /// the first error.
    pub fn stream<'s, S: Store + ?Sized>(
        self,
        store: &'s S,
    ) -> impl Stream<Item = Result<T>> + Send + 's {
        let span = self.span("stream");
        let mut plan = self.plan();
        if self.requests.is_empty() {
            plan.limit = Some(0);
        }
        tracing_futures_stream(plan.stream::<T, S>(store), span)
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
        if self.requests.is_empty() {
            return Ok(PageOf {
                items: Vec::new(),
                cursor: None,
            });
        }
        let fingerprint = self.fingerprint();
        let state = match cursor {
            Some(c) => c.state_for(fingerprint, self.requests.len())?.clone(),
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
            cursor: round.next.map(|s| Cursor::new(fingerprint, s)),
        })
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
        if self.requests.is_empty() {
            return Ok(0);
        }
        let span = self.span("count");
        let ttl = T::ttl_attribute();
        let n = Lanes::Query(self.requests)
            .count::<T, S>(store, ttl, self.range.as_ref())
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
