//! Running a [`Query`]: all its results, a stream of them, pages with a cursor, a count.

use std::future::Future;

use futures::Stream;
use tracing::Instrument;

use super::super::cursor::{Cursor, PageState};
use super::super::paging::{self, Lanes, Paged};
use super::super::FromItem;
use super::core::QueryCore;
use super::{PageOf, Query};
use crate::error::Result;
use crate::expr::KeyCondition;
use crate::store::{QueryRequest, Store};
use crate::value::{Item, SharedItem};

impl<T: FromItem> Query<T> {
    /// The first shard's request (the only one of an unsharded query), for inspection.
    pub fn request(&self) -> &QueryRequest {
        // An empty sharded query keeps a placeholder so that there is always a request to show.
        first_or_placeholder(&self.core.requests)
    }

    /// Every result (up to the limit), reading all pages.
    pub async fn all<S: Store + ?Sized>(self, store: &S) -> Result<Vec<T>> {
        let mut out = Vec::new();
        let read = Read {
            entity: std::any::type_name::<T>(),
            ttl: T::ttl_attribute(),
            accepts: T::accepts,
        };
        all_rounds(self.core, store, read, &mut |items| {
            paging::decode_into(&mut out, &items)
        })
        .await?;
        Ok(out)
    }

    /// The results as a stream that reads pages lazily, as it is polled. The stream ends after
    /// the first error.
    pub fn stream<'s, S: Store + ?Sized>(
        self,
        store: &'s S,
    ) -> impl Stream<Item = Result<T>> + Send + 's {
        let span = self.core.span("stream", std::any::type_name::<T>());
        let inner = match self.core.built() {
            Ok(()) => {
                let mut plan = self.core.plan(T::ttl_attribute());
                if self.core.requests.is_empty() {
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
        self.core.built()?;
        if self.core.requests.is_empty() {
            return Ok(PageOf {
                items: Vec::new(),
                cursor: None,
            });
        }
        let fingerprint = self.core.fingerprint();
        let lanes = self.core.requests.len();
        let state = PageState::resume(cursor, fingerprint, lanes, store.cursor_key())?;
        let span = self.core.span("page", std::any::type_name::<T>());
        let round = self
            .core
            .plan(T::ttl_attribute())
            .round::<T, S>(store, &state)
            .instrument(span)
            .await?;
        Ok(round.into_page(fingerprint, store.cursor_key()))
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
        paging::pages(self, store)
    }

    /// The first result, if any.
    pub async fn first<S: Store + ?Sized>(self, store: &S) -> Result<Option<T>> {
        paging::first(self, store).await
    }

    /// The number of results [`Query::all`] would return (capped at the limit): items matching
    /// the key condition and the filter that are `T`'s and not expired. The items are read, page
    /// after page on every shard, but not decoded; a store-side `Select = COUNT` could not tell
    /// the entities of an overloaded index apart.
    pub async fn count<S: Store + ?Sized>(self, store: &S) -> Result<usize> {
        self.core.built()?;
        if self.core.requests.is_empty() {
            return Ok(0);
        }
        let span = self.core.span("count", std::any::type_name::<T>());
        let ttl = T::ttl_attribute();
        let n = Lanes::Query(self.core.requests)
            .count(
                store,
                ttl,
                self.core.range.as_ref(),
                &self.core.only,
                T::accepts,
            )
            .instrument(span)
            .await?;
        Ok(self.core.limit.map_or(n, |l| n.min(l)))
    }
}

impl<T: FromItem> Paged for Query<T> {
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

/// What a read needs of the type it decodes into.
struct Read {
    /// The type's name, for tracing.
    entity: &'static str,
    ttl: Option<&'static str>,
    accepts: fn(&Item) -> bool,
}

/// [`Query::all`] up to decoding, compiled once per store type: every round of `core`, its raw
/// items handed to `decode`.
async fn all_rounds<S: Store + ?Sized>(
    core: QueryCore,
    store: &S,
    read: Read,
    decode: &mut (dyn FnMut(Vec<SharedItem>) -> Result<()> + Send),
) -> Result<()> {
    let this = core.check()?;
    if this.requests.is_empty() {
        return Ok(());
    }
    let span = this.span("all", read.entity);
    this.plan(read.ttl)
        .each_round(store, read.accepts, decode)
        .instrument(span)
        .await
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
