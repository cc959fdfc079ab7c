//! Typed scans, optionally parallel (segments read concurrently and merged).

use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

use futures::Stream;
use tracing::Instrument;

use super::canon::{fnv1a, Writer};
use super::cursor::{Cursor, PageState};
use super::paging::{self, Lanes, Paged, Plan};
use super::query::{tracing_futures_stream, PageOf};
use super::{FilterBy, FromItem};
use crate::error::{Error, Result};
use crate::expr::{Cond, Condition, Path};
use crate::store::{ScanRequest, Store};

/// DynamoDB's maximum `TotalSegments`.
const MAX_SEGMENTS: u32 = 1_000_000;

/// A scan of a table or index, decoding the items `T` accepts and skipping the others (other
/// entities of the table, expired items).
#[must_use = "a scan does nothing until it is run with all, first, count, stream, page or pages"]
pub struct Scan<T: FromItem> {
    base: ScanRequest,
    segments: u32,
    limit: Option<usize>,
    /// The first filter that failed to build.
    error: Option<Arc<Error>>,
    _t: PhantomData<fn() -> T>,
}

impl<T: FromItem> Clone for Scan<T> {
    fn clone(&self) -> Self {
        Scan {
            base: self.base.clone(),
            segments: self.segments,
            limit: self.limit,
            error: self.error.clone(),
            _t: PhantomData,
        }
    }
}

impl<T: FromItem> fmt::Debug for Scan<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scan")
            .field("type", &std::any::type_name::<T>())
            .field("request", &self.base)
            .field("segments", &self.segments)
            .field("limit", &self.limit)
            .finish()
    }
}

impl<T: FromItem> Scan<T> {
    /// A scan of `table`.
    pub fn new(table: impl Into<String>) -> Self {
        let mut s = Scan {
            base: ScanRequest {
                table: table.into(),
                ..ScanRequest::default()
            },
            segments: 1,
            limit: None,
            error: None,
            _t: PhantomData,
        };
        if let Some(attrs) = T::projection() {
            s = s.projection(attrs.iter().map(|a| Path::attr(*a)).collect());
        }
        s
    }

    /// This scan in lenient form: each result is a [`super::Decoded`], the item or the
    /// [`super::Undecodable`] (its key and the decode error) for an item that does not decode,
    /// instead of the first such item failing the whole scan. Segments, limits, pages and
    /// streams work as on the strict form.
    pub fn lenient(self) -> Scan<super::Decoded<T>> {
        Scan {
            base: self.base,
            segments: self.segments,
            limit: self.limit,
            error: self.error,
            _t: PhantomData,
        }
    }

    /// Scans the index `name` instead of the table.
    pub fn index(mut self, name: &str) -> Self {
        self.base.index = Some(name.to_owned());
        self
    }

    /// Adds a filter, ANDed with earlier ones: a typed condition on the fields of `E` (the
    /// entity, or the entity a projection reads), or an untyped one through [`Cond::raw`]. A
    /// condition that failed to build makes running the scan fail with its error.
    pub fn filter<E>(mut self, c: Cond<E>) -> Self
    where
        T: FilterBy<E>,
    {
        match c.into_condition() {
            Ok(c) => self.base.filter = Some(Condition::and_opt(self.base.filter.take(), c)),
            Err(e) => {
                self.error.get_or_insert_with(|| Arc::new(e));
            }
        }
        self
    }

    /// At most `n` decoded results overall.
    pub fn limit(mut self, n: usize) -> Self {
        self.limit = Some(n);
        self
    }

    /// Items read per request (DynamoDB's `Limit`, counted before filters).
    pub fn page_size(mut self, n: u32) -> Self {
        self.base.limit = Some(n);
        self
    }

    /// Strongly consistent reads.
    pub fn consistent(mut self) -> Self {
        self.base.consistent_read = true;
        self
    }

    /// Reads only these attributes (the TTL attribute is added when missing).
    pub fn projection(mut self, mut paths: Vec<Path>) -> Self {
        if let Some(ttl) = T::ttl_attribute()
            && !paths.iter().any(|p| p.top() == Some(ttl) && p.0.len() == 1)
        {
            paths.push(Path::attr(ttl));
        }
        self.base.projection = Some(paths);
        self
    }

    /// Parallel scan: `total` segments (1 to 1,000,000) read concurrently, their pages merged.
    /// Out-of-range values are reported when the scan runs.
    pub fn segments(mut self, total: u32) -> Self {
        self.segments = total;
        self
    }

    /// The request of the first segment, for inspection.
    pub fn request(&self) -> &ScanRequest {
        &self.base
    }

    fn lanes(&self) -> Result<Lanes> {
        if let Some(e) = &self.error {
            return Err(Error::clone(e));
        }
        if self.segments == 0 || self.segments > MAX_SEGMENTS {
            return Err(Error::validation(format!(
                "scan of {}: segments must be between 1 and {MAX_SEGMENTS}, found {}",
                self.base.table, self.segments
            )));
        }
        if self.segments == 1 {
            return Ok(Lanes::Scan(vec![self.base.clone()]));
        }
        Ok(Lanes::Scan(
            (0..self.segments)
                .map(|i| ScanRequest {
                    segment: Some((i, self.segments)),
                    ..self.base.clone()
                })
                .collect(),
        ))
    }

    fn plan(&self) -> Result<Plan> {
        Ok(Plan {
            lanes: self.lanes()?,
            sort_key: None,
            forward: true,
            limit: self.limit,
            ttl: T::ttl_attribute(),
            range: None,
            only: Vec::new(),
        })
    }

    fn span(&self, op: &'static str) -> tracing::Span {
        tracing::debug_span!(
            "dyno.scan",
            op,
            entity = std::any::type_name::<T>(),
            table = self.base.table.as_str(),
            index = self.base.index.as_deref().unwrap_or(""),
            segments = self.segments,
        )
    }

    /// Every result (up to the limit).
    pub async fn all<S: Store + ?Sized>(self, store: &S) -> Result<Vec<T>> {
        let span = self.span("all");
        self.plan()?.all::<T, S>(store).instrument(span).await
    }

    /// The results as a stream reading pages lazily; it ends after the first error.
    pub fn stream<'s, S: Store + ?Sized>(
        self,
        store: &'s S,
    ) -> impl Stream<Item = Result<T>> + Send + 's {
        let span = self.span("stream");
        let inner = match self.plan() {
            Ok(plan) => futures::future::Either::Left(plan.stream::<T, S>(store)),
            Err(e) => futures::future::Either::Right(futures::stream::once(async move { Err(e) })),
        };
        tracing_futures_stream(inner, span)
    }

    /// One page (one request per segment) starting at `cursor`, and the cursor of the next one.
    pub async fn page<S: Store + ?Sized>(
        &self,
        store: &S,
        cursor: Option<&Cursor>,
    ) -> Result<PageOf<T>> {
        let plan = self.plan()?;
        let mut w = Writer::default();
        plan.lanes.fingerprint_into(&mut w);
        let fingerprint = fnv1a(&w.buf);
        let state = PageState::resume(cursor, fingerprint, plan.lanes.len(), store.cursor_key())?;
        let round = plan
            .round::<T, S>(store, &state)
            .instrument(self.span("page"))
            .await?;
        Ok(round.into_page(fingerprint, store.cursor_key()))
    }

    /// The pages as a stream, one `Vec` per [`Scan::page`] (one request per segment), read as it
    /// is polled; it ends after the last page or the first error.
    pub fn pages<'s, S: Store + ?Sized>(
        self,
        store: &'s S,
    ) -> impl Stream<Item = Result<Vec<T>>> + Send + 's
    where
        T: 's,
    {
        paging::pages(self, store)
    }

    /// The first result, if any (in a parallel scan, the first of any segment).
    pub async fn first<S: Store + ?Sized>(self, store: &S) -> Result<Option<T>> {
        paging::first(self, store).await
    }

    /// The number of results [`Scan::all`] would return (capped at the limit): `T`'s items
    /// matching the filter and not expired, read but not decoded (see [`super::Query::count`]).
    pub async fn count<S: Store + ?Sized>(self, store: &S) -> Result<usize> {
        let span = self.span("count");
        let n = self
            .lanes()?
            .count(store, T::ttl_attribute(), None, &[], T::accepts)
            .instrument(span)
            .await?;
        Ok(self.limit.map_or(n, |l| n.min(l)))
    }
}

impl<T: FromItem> Paged for Scan<T> {
    type Out = T;

    fn with_limit(self, n: usize) -> Self {
        self.limit(n)
    }

    fn read_all<S: Store + ?Sized>(self, store: &S) -> impl Future<Output = Result<Vec<T>>> + Send {
        self.all(store)
    }

    fn read_page<'a, S: Store + ?Sized>(
        &'a self,
        store: &'a S,
        cursor: Option<&'a Cursor>,
    ) -> impl Future<Output = Result<PageOf<T>>> + Send + 'a {
        self.page(store, cursor)
    }
}
