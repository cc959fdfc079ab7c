//! The page engine behind [`super::Query`] and [`super::Scan`]: one or more lanes (the shards of a
//! sharded query, the segments of a parallel scan, or a single request) read concurrently, page by
//! page, and merged.
//!
//! Merging sharded queries in sort-key order across pages: each round reads one page from every
//! lane that is not finished. A lane that has more to read bounds what is safe to emit by its
//! `LastEvaluatedKey`'s sort key (its *frontier*): items beyond the smallest frontier (largest,
//! descending) could be preceded by items not read yet, so they are not emitted; their lane resumes
//! after its last emitted item next round. The lane with the smallest frontier always advances, so
//! every round makes progress. The price: a lane can read the same page more than once (a round
//! reads up to one page per shard and may emit less), which cursors make unavoidable, since they
//! carry positions, never buffered items.

use std::cmp::Ordering;
use std::collections::VecDeque;
use std::future::Future;

use futures::stream::{self, Stream};

use super::canon::Writer;
use super::cursor::{Cursor, CursorKey, LanePos, PageState};
use super::entity_rules::page_hider;
use super::query::PageOf;
use super::sort_key::PartRange;
use super::FromItem;
use crate::error::{Error, Result};
use crate::store::{Page, QueryRequest, ScanRequest, Store};
use crate::value::{AttributeValue, Item, SharedItem};

/// A typed read that pages with cursors ([`super::Query`], [`super::Scan`]): what [`pages`] and
/// [`first`] need of it, so that both reads share one page stream and one `first`.
pub(crate) trait Paged: Sized + Send + Sync {
    /// What the read decodes.
    type Out: Send;

    /// The read capped at `n` results overall.
    fn with_limit(self, n: usize) -> Self;

    /// Every result, reading all pages.
    fn read_all<S: Store + ?Sized>(
        self,
        store: &S,
    ) -> impl Future<Output = Result<Vec<Self::Out>>> + Send;

    /// One page starting at `cursor` (`None`: the first page), with the next page's cursor.
    fn read_page<'a, S: Store + ?Sized>(
        &'a self,
        store: &'a S,
        cursor: Option<&'a Cursor>,
    ) -> impl Future<Output = Result<PageOf<Self::Out>>> + Send + 'a;
}

/// The pages of `read` as a stream, one `Vec` of results per page (possibly empty), each read
/// when the stream is polled: it ends after the last page or the first error.
pub(crate) fn pages<'s, R: Paged + 's, S: Store + ?Sized>(
    read: R,
    store: &'s S,
) -> impl Stream<Item = Result<Vec<R::Out>>> + Send + 's {
    // (the read, the next page's cursor, done)
    stream::unfold(
        (read, None::<Cursor>, false),
        move |(read, cursor, done)| async move {
            if done {
                return None;
            }
            match read.read_page(store, cursor.as_ref()).await {
                Ok(page) => {
                    let last = page.cursor.is_none();
                    Some((Ok(page.items), (read, page.cursor, last)))
                }
                Err(e) => Some((Err(e), (read, None, true))),
            }
        },
    )
}

/// The first result of `read`, if any: `read` capped at one result, read whole.
pub(crate) async fn first<R: Paged, S: Store + ?Sized>(
    read: R,
    store: &S,
) -> Result<Option<R::Out>> {
    Ok(read.with_limit(1).read_all(store).await?.into_iter().next())
}

/// The requests of a paginated read, one per lane.
#[derive(Debug, Clone)]
pub(crate) enum Lanes {
    Query(Vec<QueryRequest>),
    Scan(Vec<ScanRequest>),
}

impl Lanes {
    pub(crate) fn len(&self) -> usize {
        match self {
            Lanes::Query(q) => q.len(),
            Lanes::Scan(s) => s.len(),
        }
    }

    async fn fetch<S: Store + ?Sized>(
        &self,
        store: &S,
        lane: usize,
        start: Option<Item>,
    ) -> Result<Page> {
        match self {
            Lanes::Query(q) => {
                let mut r = q[lane].clone();
                r.exclusive_start_key = start;
                store.query(r).await
            }
            Lanes::Scan(s) => {
                let mut r = s[lane].clone();
                r.exclusive_start_key = start;
                store.scan(r).await
            }
        }
    }

    /// Counts, in every lane concurrently, the items a read of `T` would return: items `T`
    /// accepts whose TTL has not passed. It reads the items rather than asking the store for
    /// `Select = COUNT`, because a server-side count cannot tell entities apart on a shared
    /// partition or index, nor skip expired items DynamoDB has not deleted yet.
    ///
    /// `accepts` is the reader's [`FromItem::accepts`]: the count is compiled once per store, not
    /// once per type read.
    pub(crate) async fn count<S: Store + ?Sized>(
        &self,
        store: &S,
        ttl: Option<&str>,
        range: Option<&(String, PartRange)>,
        only: &[fn(&Item) -> bool],
        accepts: fn(&Item) -> bool,
    ) -> Result<usize> {
        let counts = futures::future::try_join_all((0..self.len()).map(|lane| async move {
            let mut total = 0usize;
            let mut start = None;
            loop {
                let page = self.fetch(store, lane, start).await?;
                let hidden = page_hider(ttl);
                total += page
                    .items
                    .iter()
                    .filter(|it| {
                        !hidden(it)
                            && in_range(it, range)
                            && only.iter().all(|keep| keep(it))
                            && accepts(it)
                    })
                    .count();
                match page.last_evaluated_key {
                    Some(k) => start = Some(k),
                    None => return Ok::<_, Error>(total),
                }
            }
        }))
        .await?;
        Ok(counts.into_iter().sum())
    }

    /// Writes what identifies this read for cursors: everything but start keys, limits, page sizes
    /// and consistency.
    pub(crate) fn fingerprint_into(&self, w: &mut Writer) {
        match self {
            Lanes::Query(q) => {
                w.u8(b'Q');
                w.len(q.len());
                for r in q {
                    w.str(&r.table);
                    w.opt_str(r.index.as_deref());
                    w.key_condition(&r.key_condition);
                    w.opt_condition(r.filter.as_ref());
                    w.paths(r.projection.as_deref());
                    w.u8(u8::from(r.scan_forward));
                }
            }
            Lanes::Scan(s) => {
                w.u8(b'S');
                w.len(s.len());
                for r in s {
                    w.str(&r.table);
                    w.opt_str(r.index.as_deref());
                    w.opt_condition(r.filter.as_ref());
                    w.paths(r.projection.as_deref());
                    match r.segment {
                        Some((i, n)) => {
                            w.u8(1);
                            w.u32(i);
                            w.u32(n);
                        }
                        None => w.u8(0),
                    }
                }
            }
        }
    }
}

/// How a paginated read is run.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub(crate) lanes: Lanes,
    /// The sort-key attribute to merge lanes by (sharded queries); `None`: lanes are concatenated.
    pub(crate) sort_key: Option<String>,
    /// Ascending merge.
    pub(crate) forward: bool,
    /// At most this many results overall.
    pub(crate) limit: Option<usize>,
    /// Items whose TTL attribute is in the past are skipped.
    pub(crate) ttl: Option<&'static str>,
    /// Items whose sort key (this attribute) is outside this range are skipped.
    pub(crate) range: Option<(String, PartRange)>,
    /// Items that one of these rejects are skipped (a collection narrowed to some of its
    /// members: see [`super::Query::only`]), before they count towards the limit.
    pub(crate) only: Vec<fn(&Item) -> bool>,
}

/// True when `item`'s sort key is in `range` (or there is no range). An item without the
/// attribute as a string is outside.
fn in_range(item: &Item, range: Option<&(String, PartRange)>) -> bool {
    match range {
        None => true,
        Some((attr, r)) => matches!(item.get(attr), Some(AttributeValue::S(k)) if r.holds(k)),
    }
}

/// What one round produced.
pub(crate) struct Round<T> {
    pub(crate) items: Vec<T>,
    /// `None` when the read is finished.
    pub(crate) next: Option<PageState>,
}

impl<T> Round<T> {
    /// The round as a page, with the cursor of the next one (sealed for the read of
    /// `fingerprint` with `key`) unless the read is finished.
    pub(crate) fn into_page(self, fingerprint: u64, key: &CursorKey) -> PageOf<T> {
        PageOf {
            items: self.items,
            cursor: self.next.map(|s| Cursor::new(fingerprint, s, key)),
        }
    }
}

impl Plan {
    /// Reads one round: a page from every unfinished lane, merged, filtered and decoded.
    ///
    /// Only the decoding is compiled per type read: reading, merging, sorting and the frontier
    /// are [`Plan::round_items`], compiled once per store type.
    pub(crate) async fn round<T: FromItem, S: Store + ?Sized>(
        &self,
        store: &S,
        state: &PageState,
    ) -> Result<Round<T>> {
        let round = self.round_items(store, state, T::accepts).await?;
        Ok(Round {
            items: decode_all(&round.items)?,
            next: round.next,
        })
    }

    /// [`Plan::round`] up to decoding: the raw items of the round that `accepts` (the reader's
    /// [`FromItem::accepts`]) and the filters keep, in order, at most the limit's remainder.
    pub(crate) async fn round_items<S: Store + ?Sized>(
        &self,
        store: &S,
        state: &PageState,
        accepts: fn(&Item) -> bool,
    ) -> Result<Round<SharedItem>> {
        let remaining = match self.limit {
            Some(l) => l.saturating_sub(usize::try_from(state.returned).unwrap_or(usize::MAX)),
            None => usize::MAX,
        };
        if remaining == 0 {
            return Ok(Round {
                items: Vec::new(),
                next: None,
            });
        }
        let active: Vec<usize> = (0..state.lanes.len())
            .filter(|i| state.lanes[*i] != LanePos::Done)
            .collect();
        if active.is_empty() {
            return Ok(Round {
                items: Vec::new(),
                next: None,
            });
        }
        let pages = futures::future::try_join_all(active.iter().map(|&lane| {
            let start = match &state.lanes[lane] {
                LanePos::At(k) => Some(k.clone()),
                _ => None,
            };
            self.lanes.fetch(store, lane, start)
        }))
        .await?;

        let mut lanes = state.lanes.clone();
        let mut raw: Vec<SharedItem> = Vec::new();
        let merge_by = self.sort_key.as_deref().filter(|_| self.lanes.len() > 1);
        match merge_by {
            None => {
                for (&lane, page) in active.iter().zip(pages) {
                    raw.extend(page.items);
                    lanes[lane] = page.last_evaluated_key.map_or(LanePos::Done, LanePos::At);
                }
            }
            Some(sk) => {
                let frontier = self.frontier(sk, &pages)?;
                // Key attribute names, from any LastEvaluatedKey of this round (all lanes read the
                // same index). Needed only when a lane stops mid-page, which requires a frontier,
                // which requires a LastEvaluatedKey.
                let key_names: Vec<String> = pages
                    .iter()
                    .find_map(|p| p.last_evaluated_key.as_ref())
                    .map(|k| k.keys().cloned().collect())
                    .unwrap_or_default();
                let mut tagged: Vec<(usize, SharedItem)> = Vec::new();
                for (slot, (&lane, page)) in active.iter().zip(pages).enumerate() {
                    let take = match &frontier {
                        None => page.items.len(),
                        Some(f) => page
                            .items
                            .iter()
                            .take_while(|it| self.within(sk, it, f))
                            .count(),
                    };
                    let all_taken = take == page.items.len();
                    if all_taken {
                        lanes[lane] = page.last_evaluated_key.map_or(LanePos::Done, LanePos::At);
                    } else if take > 0 {
                        let last = &page.items[take - 1];
                        lanes[lane] = LanePos::At(resume_key(last, &key_names, sk)?);
                    } // else: nothing emitted, resume where this round started.
                    tagged.extend(page.items.into_iter().take(take).map(|it| (slot, it)));
                }
                // Stable: items with equal sort keys keep lane order, and each lane's own order.
                tagged.sort_by(|(la, a), (lb, b)| {
                    let o = sort_value_cmp(a.get(sk), b.get(sk));
                    (if self.forward { o } else { o.reverse() }).then(la.cmp(lb))
                });
                raw.extend(tagged.into_iter().map(|(_, it)| it));
            }
        }

        let mut items = Vec::new();
        let hidden = page_hider(self.ttl);
        for it in raw {
            if hidden(&it)
                || !in_range(&it, self.range.as_ref())
                || !self.only.iter().all(|keep| keep(&it))
                || !accepts(&it)
            {
                continue;
            }
            if items.len() == remaining {
                // The limit is reached with items left over: the read is finished.
                return Ok(Round { items, next: None });
            }
            items.push(it);
        }
        let finished = items.len() == remaining || lanes.iter().all(|l| *l == LanePos::Done);
        let next = (!finished).then(|| PageState {
            lanes,
            returned: state.returned + items.len() as u64,
        });
        Ok(Round { items, next })
    }

    /// The smallest (largest, descending) sort key among the lanes that have more to read.
    fn frontier(&self, sk: &str, pages: &[Page]) -> Result<Option<AttributeValue>> {
        let mut out: Option<AttributeValue> = None;
        for p in pages {
            let Some(lek) = &p.last_evaluated_key else {
                continue;
            };
            let v = lek.get(sk).ok_or_else(|| {
                Error::validation(format!(
                    "sharded query: sort key attribute {sk:?} is not in the LastEvaluatedKey; pass the index's \
                     sort key attribute to Query::sharded"
                ))
            })?;
            let better = match &out {
                None => true,
                Some(cur) => {
                    let o = sort_value_cmp(Some(v), Some(cur));
                    if self.forward {
                        o == Ordering::Less
                    } else {
                        o == Ordering::Greater
                    }
                }
            };
            if better {
                out = Some(v.clone());
            }
        }
        Ok(out)
    }

    fn within(&self, sk: &str, item: &Item, frontier: &AttributeValue) -> bool {
        let o = sort_value_cmp(item.get(sk), Some(frontier));
        if self.forward {
            o != Ordering::Greater
        } else {
            o != Ordering::Less
        }
    }

    /// Every result, reading page after page.
    pub(crate) async fn all<T: FromItem, S: Store + ?Sized>(&self, store: &S) -> Result<Vec<T>> {
        let mut out = Vec::new();
        self.each_round(store, T::accepts, &mut |items| {
            decode_into(&mut out, &items)
        })
        .await?;
        Ok(out)
    }

    /// Reads page after page, handing the raw items of each round ([`Plan::round_items`]) to
    /// `decode`; the first error (reading or decoding) stops. Only `decode` is compiled per type
    /// read: the loop is compiled once per store type.
    pub(crate) async fn each_round<S: Store + ?Sized>(
        &self,
        store: &S,
        accepts: fn(&Item) -> bool,
        decode: &mut (dyn FnMut(Vec<SharedItem>) -> Result<()> + Send),
    ) -> Result<()> {
        let mut state = PageState::start(self.lanes.len());
        loop {
            let round = self.round_items(store, &state, accepts).await?;
            decode(round.items)?;
            match round.next {
                Some(next) => state = next,
                None => return Ok(()),
            }
        }
    }

    /// Every result as a stream that reads pages as it is polled. It ends after the first error.
    pub(crate) fn stream<'s, T: FromItem, S: Store + ?Sized>(
        self,
        store: &'s S,
    ) -> impl Stream<Item = Result<T>> + Send + 's {
        struct St<'s, S: ?Sized, T> {
            plan: Plan,
            store: &'s S,
            state: Option<PageState>,
            buffer: VecDeque<T>,
        }
        let start = PageState::start(self.lanes.len());
        let st = St {
            plan: self,
            store,
            state: Some(start),
            buffer: VecDeque::new(),
        };
        stream::unfold(st, |mut st| async move {
            loop {
                if let Some(item) = st.buffer.pop_front() {
                    return Some((Ok(item), st));
                }
                let state = st.state.take()?;
                match st.plan.round::<T, S>(st.store, &state).await {
                    Ok(round) => {
                        st.buffer.extend(round.items);
                        st.state = round.next;
                    }
                    Err(e) => return Some((Err(e), st)),
                }
            }
        })
    }
}

/// Decodes the items of a round as `T` onto `out`, in order; the first error stops.
pub(crate) fn decode_into<T: FromItem>(out: &mut Vec<T>, items: &[SharedItem]) -> Result<()> {
    out.reserve(items.len());
    for it in items {
        out.push(T::from_item(it)?);
    }
    Ok(())
}

/// Decodes the items of a round as `T`, in order; the first error stops.
fn decode_all<T: FromItem>(items: &[SharedItem]) -> Result<Vec<T>> {
    let mut out = Vec::with_capacity(items.len());
    for it in items {
        out.push(T::from_item(it)?);
    }
    Ok(out)
}

/// The `ExclusiveStartKey` that resumes a lane right after `item`: its key attributes (the names
/// of a `LastEvaluatedKey` of the same index).
fn resume_key(item: &Item, names: &[String], sk: &str) -> Result<Item> {
    if names.is_empty() {
        return Err(Error::validation(format!(
            "sharded query: cannot resume after an item without knowing the index's key attributes (sort key {sk:?})"
        )));
    }
    names
        .iter()
        .map(|n| {
            item.get(n).map(|v| (n.clone(), v.clone())).ok_or_else(|| {
                Error::validation(format!(
                    "sharded query: item has no key attribute {n:?}; a projection must include the table's and the \
                     index's key attributes"
                ))
            })
        })
        .collect()
}

/// DynamoDB's order of sort-key values: S and B bytewise, N numerically. Missing values sort first.
pub(crate) fn sort_value_cmp(a: Option<&AttributeValue>, b: Option<&AttributeValue>) -> Ordering {
    match (a, b) {
        (Some(AttributeValue::S(a)), Some(AttributeValue::S(b))) => a.as_bytes().cmp(b.as_bytes()),
        (Some(AttributeValue::B(a)), Some(AttributeValue::B(b))) => a.as_ref().cmp(b.as_ref()),
        (Some(AttributeValue::N(a)), Some(AttributeValue::N(b))) => compare_numbers(a, b),
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(a), Some(b)) => crate::value::type_name(a).cmp(crate::value::type_name(b)),
    }
}

/// A decimal number as sign, exponent and significant digits: value = 0.d1d2... × 10^exp.
fn parse_decimal(n: &str) -> Option<(bool, i64, Vec<u8>)> {
    let n = n.trim();
    let (negative, rest) = match n.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, n.strip_prefix('+').unwrap_or(n)),
    };
    let (mantissa, exp) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], rest[i + 1..].parse::<i64>().ok()?),
        None => (rest, 0),
    };
    let (int, frac) = match mantissa.find('.') {
        Some(i) => (&mantissa[..i], &mantissa[i + 1..]),
        None => (mantissa, ""),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let mut digits: Vec<u8> = Vec::with_capacity(int.len() + frac.len());
    for c in int.bytes().chain(frac.bytes()) {
        if !c.is_ascii_digit() {
            return None;
        }
        digits.push(c - b'0');
    }
    let mut exponent = int.len() as i64 + exp;
    let lead = digits.iter().take_while(|d| **d == 0).count();
    digits.drain(..lead);
    exponent -= lead as i64;
    while digits.last() == Some(&0) {
        digits.pop();
    }
    if digits.is_empty() {
        return Some((false, 0, digits));
    }
    Some((negative, exponent, digits))
}

/// Numeric order of two DynamoDB number strings (exact, no float rounding).
pub(crate) fn compare_numbers(a: &str, b: &str) -> Ordering {
    let (Some(a), Some(b)) = (parse_decimal(a), parse_decimal(b)) else {
        return a.cmp(b);
    };
    let sign = |d: &(bool, i64, Vec<u8>)| {
        if d.2.is_empty() {
            0
        } else if d.0 {
            -1
        } else {
            1
        }
    };
    let (sa, sb) = (sign(&a), sign(&b));
    if sa != sb || sa == 0 {
        return sa.cmp(&sb);
    }
    let magnitude = a.1.cmp(&b.1).then_with(|| a.2.cmp(&b.2));
    if sa < 0 {
        magnitude.reverse()
    } else {
        magnitude
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_compare_numerically() {
        let c = compare_numbers;
        assert_eq!(c("2", "10"), Ordering::Less);
        assert_eq!(c("-2", "-10"), Ordering::Greater);
        assert_eq!(c("1.50", "1.5"), Ordering::Equal);
        assert_eq!(c("0", "-0.0"), Ordering::Equal);
        assert_eq!(c("-1", "0"), Ordering::Less);
        assert_eq!(c("1e3", "999"), Ordering::Greater);
        assert_eq!(c("0.001", "0.01"), Ordering::Less);
        assert_eq!(
            c(
                "123456789012345678901234567890",
                "123456789012345678901234567891"
            ),
            Ordering::Less
        );
    }
}
