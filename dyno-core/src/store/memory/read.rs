//! Query and Scan reading: one page of a planned request (`plan.rs`) under the table's read
//! lock, with DynamoDB's paging rules: `Limit` counts items evaluated, the 1 MB page rule
//! applies before the filter, and `LastEvaluatedKey` is set whenever a page stopped early.

use std::collections::{btree_map, BTreeMap};
use std::ops::Bound;
use std::sync::Arc;

use super::data::{Entry, TableData};
use super::key_bytes::KeyBytes;
use super::schema::{IndexPos, Schema};
use crate::error::Result;
use crate::expr::eval;
use crate::expr::{Condition, Path};
use crate::store::{Page, QueryRequest, ScanRequest};
use crate::value::Item;

use super::plan::*;

pub(super) const MAX_PAGE_BYTES: usize = 1024 * 1024;

/// The most items a page reserves room for before it has read them ([`Reader::expected`]).
const MAX_EXPECTED: usize = 1024;

/// Reads one page of a query.
pub(super) fn run_query(
    schema: &Schema,
    data: &TableData,
    plan: &QueryPlan<'_>,
    req: &QueryRequest,
    now: f64,
) -> Result<Page> {
    let reader = Reader::new(
        schema,
        data,
        &plan.target,
        req.filter.as_ref(),
        req.projection.as_deref(),
        req.limit,
        req.count_only,
        req.consistent_read,
        now,
    );
    let forward = req.scan_forward;
    match plan.target.index {
        None => {
            let Some(partition) = data.partitions.get(&plan.pk) else {
                return Ok(Page::default());
            };
            let (mut lower, mut upper) = (plan.range.lower.clone(), plan.range.upper.clone());
            if let Some(start) = &plan.start {
                if forward {
                    lower = Bound::Excluded(start.table_sk.clone());
                } else {
                    upper = Bound::Excluded(start.table_sk.clone());
                }
            }
            if !valid_range(&lower, &upper) {
                return Ok(Page::default());
            }
            let expected = reader.expected(&lower, &upper, partition.len());
            let range = partition
                .range((lower, upper))
                .map(|(_, s)| (&s.entry, &s.entry));
            if forward {
                reader.read(range, expected)
            } else {
                reader.read(range.rev(), expected)
            }
        }
        Some((pos, _)) => {
            let Some(partition) = data.indexes[pos].get(&plan.pk) else {
                return Ok(Page::default());
            };
            let mut lower = index_bound(&plan.range.lower, true);
            let mut upper = index_bound(&plan.range.upper, false);
            if let Some(start) = &plan.start {
                let at = IndexPos {
                    sk: start.sk.clone(),
                    table_pk: start.table_pk.clone(),
                    table_sk: start.table_sk.clone(),
                };
                if forward {
                    lower = Bound::Excluded(at);
                } else {
                    upper = Bound::Excluded(at);
                }
            }
            if !valid_range(&lower, &upper) {
                return Ok(Page::default());
            }
            let expected = reader.expected(&lower, &upper, partition.len());
            let range = partition
                .range((lower, upper))
                .map(|(pos, e)| (reader.base(pos, e), e));
            if forward {
                reader.read(range, expected)
            } else {
                reader.read(range.rev(), expected)
            }
        }
    }
}
/// Reads one page of a scan: partitions in key order (those of this segment), items in sort order.
pub(super) fn run_scan(
    schema: &Schema,
    data: &TableData,
    plan: &ScanPlan<'_>,
    req: &ScanRequest,
    now: f64,
) -> Result<Page> {
    let reader = Reader::new(
        schema,
        data,
        &plan.target,
        req.filter.as_ref(),
        req.projection.as_deref(),
        req.limit,
        req.count_only,
        req.consistent_read,
        now,
    );
    let in_segment = |pk: &KeyBytes| {
        plan.segment
            .is_none_or(|(s, t)| crate::hash::fnv1a(pk) % t == s)
    };
    match plan.target.index {
        None => {
            let first = plan
                .start
                .as_ref()
                .map_or(Bound::Unbounded, |s| Bound::Included(s.table_pk.clone()));
            let entries = data
                .partitions
                .range(first, in_segment)
                .flat_map(|(pk, partition)| {
                    let after = match &plan.start {
                        Some(s) if s.table_pk == *pk => Some(s.table_sk.clone()),
                        _ => None,
                    };
                    entries_after(partition, after).map(|(_, s)| (&s.entry, &s.entry))
                });
            reader.read(entries, 0)
        }
        Some((pos, _)) => {
            let first = plan
                .start
                .as_ref()
                .map_or(Bound::Unbounded, |s| Bound::Included(s.pk.clone()));
            let entries = data.indexes[pos]
                .range(first, in_segment)
                .flat_map(|(pk, partition)| {
                    let after = match &plan.start {
                        Some(s) if s.pk == *pk => Some(IndexPos {
                            sk: s.sk.clone(),
                            table_pk: s.table_pk.clone(),
                            table_sk: s.table_sk.clone(),
                        }),
                        _ => None,
                    };
                    entries_after(partition, after).map(|(pos, e)| (reader.base(pos, e), e))
                });
            reader.read(entries, 0)
        }
    }
}

/// The entries of a partition a scan reads: those after `after` (where the previous page
/// stopped) or all of them. A whole partition is iterated without a range search, which costs
/// more than a one-item partition's read.
fn entries_after<K: Ord, V>(
    partition: &BTreeMap<K, V>,
    after: Option<K>,
) -> EntriesAfter<'_, K, V> {
    match after {
        None => EntriesAfter::All(partition.iter()),
        Some(key) => EntriesAfter::After(partition.range((Bound::Excluded(key), Bound::Unbounded))),
    }
}

/// [`entries_after`]'s iterator.
enum EntriesAfter<'a, K, V> {
    All(btree_map::Iter<'a, K, V>),
    After(btree_map::Range<'a, K, V>),
}

impl<'a, K, V> Iterator for EntriesAfter<'a, K, V> {
    type Item = (&'a K, &'a V);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        match self {
            EntriesAfter::All(it) => it.next(),
            EntriesAfter::After(it) => it.next(),
        }
    }
}

/// Reads entries into a page: filter, projection, limit, the 1 MB rule, the start key of the
/// next page.
struct Reader<'a> {
    schema: &'a Schema,
    data: &'a TableData,
    target: &'a Target<'a>,
    filter: Option<&'a Condition>,
    projection: Option<&'a [Path]>,
    limit: Option<usize>,
    count_only: bool,
    /// Strongly consistent (full read units) or not (half).
    consistent: bool,
    now: f64,
    /// An LSI that does not project everything reads the table's item for filters and
    /// projections (DynamoDB fetches it from the table).
    fetch_base: bool,
}

impl<'a> Reader<'a> {
    #[allow(clippy::too_many_arguments)]
    fn new(
        schema: &'a Schema,
        data: &'a TableData,
        target: &'a Target<'a>,
        filter: Option<&'a Condition>,
        projection: Option<&'a [Path]>,
        limit: Option<u32>,
        count_only: bool,
        consistent: bool,
        now: f64,
    ) -> Self {
        let fetch_base = target.index.is_some_and(|(_, i)| {
            i.local && i.projected.is_some() && (filter.is_some() || projection.is_some())
        });
        Reader {
            schema,
            data,
            target,
            filter,
            projection,
            limit: limit.map(|l| l as usize),
            count_only,
            consistent,
            now,
            fetch_base,
        }
    }

    /// The item filters and projections see for an index entry.
    fn base(&self, pos: &IndexPos, entry: &'a Entry) -> &'a Entry {
        if self.fetch_base
            && let Some(base) = self.data.get(&pos.table_pk, &pos.table_sk)
        {
            return base;
        }
        entry
    }

    /// How many items a page that reads a whole partition of `len` entries (`lower..upper`
    /// unbounded) returns, to size its list once: its length, or the limit when smaller;
    /// nothing is guessed for a range of the partition or a filtered read (they may keep few of
    /// its items), and at most [`MAX_EXPECTED`] entries are reserved.
    fn expected<K>(&self, lower: &Bound<K>, upper: &Bound<K>, len: usize) -> usize {
        if self.count_only
            || self.filter.is_some()
            || !matches!((lower, upper), (Bound::Unbounded, Bound::Unbounded))
        {
            return 0;
        }
        len.min(self.limit.unwrap_or(usize::MAX)).min(MAX_EXPECTED)
    }

    /// Reads `(seen, stored)` pairs: `seen` is what the filter and projection look at, `stored`
    /// what the target holds (returned when there is no projection). `expected`: how many items
    /// the page will likely hold ([`Reader::expected`]).
    fn read(
        &self,
        entries: impl Iterator<Item = (&'a Entry, &'a Entry)>,
        expected: usize,
    ) -> Result<Page> {
        let mut page = Page {
            items: Vec::with_capacity(expected),
            ..Page::default()
        };
        let mut bytes = 0usize;
        for (seen, stored) in entries {
            if !stored.is_live(self.now) {
                continue;
            }
            page.scanned_count += 1;
            bytes += stored.size;
            let keep = match self.filter {
                Some(f) => eval::eval_filter(f, &seen.item),
                None => true,
            };
            if keep {
                page.count += 1;
                if !self.count_only {
                    page.items.push(match self.projection {
                        Some(paths) => Arc::new(eval::project(&seen.item, paths)),
                        None => Arc::clone(&stored.item),
                    });
                }
            }
            if self.limit.is_some_and(|l| page.scanned_count >= l) || bytes >= MAX_PAGE_BYTES {
                page.last_evaluated_key = Some(self.start_key_of(&stored.item));
                break;
            }
        }
        // Capacity is charged on everything read, filtered out or not, rounded up once per page.
        page.consumed_capacity = Some(super::read_capacity(
            self.target.index.map(|(_, i)| i),
            super::read_units(bytes, self.consistent),
        ));
        Ok(page)
    }

    fn start_key_of(&self, item: &Item) -> Item {
        self.target
            .start_key_names(self.schema)
            .into_iter()
            .filter_map(|n| item.get(n).map(|v| (n.to_owned(), v.clone())))
            .collect()
    }
}
