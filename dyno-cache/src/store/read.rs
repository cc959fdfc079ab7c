//! Item reads: gets (served, loaded with single flight, or bypassed and refreshed), batch gets
//! and transactional gets, and the fills that install what they fetched.

use super::*;

impl<S: Store> CachedStore<S> {
    /// A hit for [`CachedStore::get_shared`]: the entry's item (`None`: a tombstone) and its
    /// decoded copy if it has one; `None` on a miss or an uncacheable key.
    pub(crate) async fn shared_hit(
        &self,
        table: &str,
        attrs: &Item,
    ) -> Option<(Option<SharedItem>, Option<Decoded>)> {
        let key = self.hasher.lookup(item_key(table, attrs)?);
        let entry = self.items.get(&key.as_ref()).await?;
        if !self.live(&entry, self.clock.now()) {
            return None;
        }
        match &entry.item {
            Some(_) => self.counters.item.hits.add(key.hash),
            None => self.counters.item.negative_hits.add(key.hash),
        }
        Some((entry.item, entry.decoded))
    }

    /// Keeps `decoded` (`extra` bytes) beside the entry of `attrs`, if the entry still holds
    /// `item` and nothing decoded: a write or fill since replaced it, and then the decoded copy
    /// is of an older image and is not kept.
    pub(crate) async fn keep_decoded(
        &self,
        table: &str,
        attrs: &Item,
        item: &SharedItem,
        decoded: Decoded,
        extra: usize,
    ) {
        let Some(key) = item_key(table, attrs) else {
            return;
        };
        let key = self.hasher.lookup(key).to_key();
        self.items
            .entry(key)
            .and_compute_with(|existing| {
                let now = self.clock.now();
                let op = match existing.map(moka::Entry::into_value) {
                    Some(e)
                        if e.decoded.is_none()
                            && self.live(&e, now)
                            && e.item.as_ref().is_some_and(|i| Arc::ptr_eq(i, item)) =>
                    {
                        let extra = u32::try_from(extra).unwrap_or(u32::MAX);
                        Op::Put(ItemEntry {
                            ttl: e.expires_at - now,
                            weight: e.weight.saturating_add(extra),
                            decoded: Some(decoded),
                            ..e
                        })
                    }
                    _ => Op::Nop,
                };
                ready(op)
            })
            .await;
    }

    /// A get: answered here when a fresh entry serves it. Everything else (bypasses, misses)
    /// runs in its own boxed future, so the future of a hit stays small.
    pub(super) async fn get(
        &self,
        request: GetRequest<'_>,
        ttl_override: Option<Duration>,
    ) -> Result<GetOutput> {
        let Some(key) = item_key(&request.table, &request.key) else {
            inc(&self.counters.item.bypasses);
            return self.inner.get_item(request).await;
        };
        let key = self.hasher.lookup(key);
        let servable = !request.consistent_read
            && request
                .projection
                .as_deref()
                .is_none_or(|p| p.iter().all(is_top_level));
        if servable {
            // moka's lookup future is boxed on its own: inline, it would make this future (boxed
            // by `Store`) larger than the allocator's fast size classes (about 1 KiB), and one
            // slow allocation costs more than two fast ones.
            let lookup = key.as_ref();
            if let Some(entry) = Box::pin(self.items.get(&lookup)).await
                && self.live(&entry, self.clock.now())
            {
                let item = match entry.item {
                    Some(item) => {
                        self.counters.item.hits.add(key.hash);
                        Some(project(item, request.projection.as_deref()))
                    }
                    None => {
                        self.counters.item.negative_hits.add(key.hash);
                        None
                    }
                };
                return Ok(GetOutput {
                    item,
                    consumed_capacity: None,
                });
            }
        }
        Box::pin(self.get_uncached(key, request, ttl_override)).await
    }

    /// A get the cache cannot answer: a bypass, or a miss.
    pub(super) async fn get_uncached(
        &self,
        key: Lookup,
        request: GetRequest<'_>,
        ttl_override: Option<Duration>,
    ) -> Result<GetOutput> {
        if let Some(p) = &request.projection
            && (!p.iter().all(is_top_level) || request.consistent_read)
        {
            // Nested projections are the backend's to evaluate; a consistent projected read
            // does not fetch a whole item to refresh with.
            inc(&self.counters.item.bypasses);
            let table = request.table.clone().into_owned();
            let key_attrs = request.key.clone().into_owned();
            let out = self.inner.get_item(request).await?;
            if out.item.is_some() {
                self.settle(&table, &[&key_attrs]).await;
            }
            return Ok(out);
        }
        if request.consistent_read {
            inc(&self.counters.item.bypasses);
            let fill = self.fill(&request.table, &key);
            let table = request.table.clone().into_owned();
            let out = self.inner.get_item(request).await?;
            self.install_fill(fill, out.item.clone(), &table, ttl_override)
                .await;
            return Ok(out);
        }
        inc(&self.counters.item.misses);
        let GetRequest {
            table,
            key: item_key_attrs,
            projection,
            tag,
            ..
        } = request;
        let item = self
            .load(key, (&table, &item_key_attrs, tag), ttl_override)
            .await?;
        Ok(GetOutput {
            item: item.map(|i| project(i, projection.as_deref())),
            consumed_capacity: None,
        })
    }

    /// Loads one item on a miss, sharing the load with concurrent misses on the same key. The
    /// load carries the caller's tag, so that a wrapper below the cache (`cost::Metered`) still
    /// knows which typed access pattern asked.
    pub(super) async fn load(
        &self,
        key: Lookup,
        (table, key_attrs, tag): (&str, &Item, Tag),
        ttl_override: Option<Duration>,
    ) -> Result<Option<SharedItem>> {
        loop {
            let fill = self.fill(table, &key);
            // While a write to the key is in flight, a load may return an older state than one
            // another read has returned since it began: every such read moves the key's read
            // counter before it returns, so a caller joins a load only if none has.
            let version = fill
                .version
                .flight()
                .wrapping_add(self.tracks.reads.load(fill.slot));
            match self.flights.join(key.as_slice(), key.hash, version) {
                Role::Waiter(rx) => {
                    inc(&self.counters.coalesced_waiters);
                    match flight::wait(rx).await {
                        Some(Ok(item)) => return Ok(item),
                        Some(Err(e)) => return Err(e),
                        // The leader was cancelled: lead or join a new flight.
                        None => continue,
                    }
                }
                Role::Leader(leader) => {
                    // The previous flight may have installed the item since our lookup.
                    if let Some(entry) = self.fresh_item(key.as_ref()).await {
                        leader.finish(Ok(entry.item.clone()));
                        return Ok(entry.item);
                    }
                    inc(&self.counters.item.loads);
                    let mut get = GetRequest::borrowed(table, key_attrs);
                    get.tag = tag;
                    // A replica may not have the change this instance saw yet.
                    get.consistent_read = self.recently_changed(fill.slot, fill.version.table_slot);
                    match self.inner.get_item(get).await {
                        Ok(out) => {
                            self.install_fill(fill, out.item.clone(), table, ttl_override)
                                .await;
                            leader.finish(Ok(out.item.clone()));
                            return Ok(out.item);
                        }
                        Err(e) => {
                            leader.finish(Err(e.clone()));
                            return Err(e);
                        }
                    }
                }
            }
        }
    }

    pub(super) async fn batch_get_items(
        &self,
        request: BatchGetRequest,
        ttl_override: Option<Duration>,
    ) -> Result<BatchGetOutput> {
        let BatchGetRequest {
            keys,
            consistent_read,
            ..
        } = request;
        let mut hits: Vec<(String, SharedItem)> = Vec::new();
        // Keys to read, each with its cache key, counter and version when it can be cached.
        let mut to_read: Vec<(TableKey, Option<Fill>)> = Vec::new();
        let now = self.clock.now();
        for k in keys {
            let Some(key) = item_key(&k.table, &k.key) else {
                inc(&self.counters.item.bypasses);
                to_read.push((k, None));
                continue;
            };
            let key = self.hasher.lookup(key);
            if !consistent_read {
                if let Some(entry) = self
                    .items
                    .get(&key.as_ref())
                    .await
                    .filter(|e| self.live(e, now))
                {
                    match entry.item {
                        Some(item) => {
                            self.counters.item.hits.add(key.hash);
                            hits.push((k.table, item));
                        }
                        None => self.counters.item.negative_hits.add(key.hash),
                    }
                    continue;
                }
                inc(&self.counters.item.misses);
            } else {
                inc(&self.counters.item.bypasses);
            }
            let fill = self.fill(&k.table, &key);
            to_read.push((k, Some(fill)));
        }
        if to_read.is_empty() {
            return Ok(BatchGetOutput {
                items: hits,
                unprocessed_keys: Vec::new(),
                // Served from the cache, as a cached get reports none.
                consumed_capacity: None,
            });
        }
        if !consistent_read {
            inc(&self.counters.item.loads);
        }
        // One key a replica may not have caught up on makes the whole read consistent: one
        // request either way.
        let consistent_read = consistent_read
            || to_read.iter().any(|(_, fill)| {
                fill.as_ref()
                    .is_some_and(|f| self.recently_changed(f.slot, f.version.table_slot))
            });
        let keys = to_read.iter().map(|(k, _)| k.clone()).collect();
        let mut out = self
            .inner
            .batch_get(BatchGetRequest::new(keys).with_consistent_read(consistent_read))
            .await?;
        for (k, cache) in to_read {
            let Some(fill) = cache else {
                continue;
            };
            if out.unprocessed_keys.contains(&k) {
                continue;
            }
            let found = out
                .items
                .iter()
                .find(|(t, item)| {
                    *t == k.table && k.key.iter().all(|(n, v)| item.get(n) == Some(v))
                })
                .map(|(_, item)| item.clone());
            self.install_fill(fill, found, &k.table, ttl_override).await;
        }
        out.items.extend(hits);
        Ok(out)
    }

    pub(super) async fn transact_get_items(
        &self,
        request: TransactGetRequest,
        ttl_override: Option<Duration>,
    ) -> Result<TransactGetOutput> {
        // Per get: its table, and its fill when it reads a whole item it can install; projected
        // gets keep their key, to settle what they return.
        let fills: Vec<_> = request
            .gets
            .iter()
            .map(|g| {
                inc(&self.counters.item.bypasses);
                let fill = (g.projection.is_none())
                    .then(|| item_key(&g.table, &g.key))
                    .flatten()
                    .map(|key| self.fill(&g.table, &self.hasher.lookup(key)));
                (g.table.clone(), fill, g.key.clone())
            })
            .collect();
        let out = self.inner.transact_get(request).await?;
        for ((table, fill, key), item) in fills.into_iter().zip(&out.items) {
            match fill {
                Some(fill) => {
                    self.install_fill(fill, item.clone(), &table, ttl_override)
                        .await;
                }
                None if item.is_some() => self.settle(&table, &[&key]).await,
                None => {}
            }
        }
        Ok(out)
    }

    /// The entry for `key` if it may be served now.
    pub(super) async fn fresh_item(&self, key: KeyRef<'_>) -> Option<ItemEntry> {
        let now = self.clock.now();
        self.items.get(&key).await.filter(|e| self.live(e, now))
    }

    /// What the cache knows of an item now: a fresh entry, or `Unknown`.
    pub(super) async fn cached_image(&self, key: KeyRef<'_>) -> Option<Option<SharedItem>> {
        self.fresh_item(key).await.map(|e| e.item)
    }

    /// Installs what a read fetched, if no write to the key was in flight when the read began
    /// and none began since (then what it fetched is the item's latest state). Otherwise, if a
    /// write is in flight now, the entry is dropped: what this read returns may be newer than
    /// the entry (the write may have applied), and a later read must not see the older one.
    pub(super) async fn install_fill(
        &self,
        fill: Fill,
        item: Option<SharedItem>,
        table: &str,
        ttl_override: Option<Duration>,
    ) {
        let Fill { key, slot, version } = fill;
        if ttl_override.is_none() && self.confirms(&key, item.as_ref(), slot, &version).await {
            return;
        }
        let info = self.known_table(table);
        let entry = self
            .item_expiry(item.as_deref(), info.as_deref(), ttl_override)
            .map(|exp| self.item_entry(key.bytes.len(), item, exp, &version));
        let mut rejected = false;
        self.items
            .entry(key)
            .and_compute_with(|existing| {
                // Runs under moka's per-key lock, serialized with every other install and write.
                let now = self.item_version(slot, version.table_slot);
                let op = if now == version && version.quiet() {
                    match entry {
                        Some(e) => Op::Put(e),
                        None if existing.is_some() => Op::Remove,
                        None => Op::Nop,
                    }
                } else {
                    rejected = true;
                    if now.quiet() {
                        Op::Nop
                    } else {
                        self.tracks.reads.bump(slot);
                        if existing.is_some() {
                            Op::Remove
                        } else {
                            Op::Nop
                        }
                    }
                };
                ready(op)
            })
            .await;
        if rejected {
            inc(&self.counters.rejected_stale_fills);
        }
    }

    /// True when what a read fetched confirms the entry at `key`: the same image, no write to
    /// the key since the read began, and at least half its TTL left. Installing it again would
    /// change nothing a reader sees, and costs a moka insert (write-buffer traffic, an eviction
    /// notification, the decoded copy dropped): on every strongly consistent read of a hot key,
    /// that made them many times slower through the cache than without it.
    async fn confirms(
        &self,
        key: &CacheKey,
        item: Option<&SharedItem>,
        slot: usize,
        version: &ItemVersion,
    ) -> bool {
        if !version.quiet() {
            return false;
        }
        let Some(entry) = self.items.get(&key.as_ref()).await else {
            return false;
        };
        let now = self.clock.now();
        let same = match (&entry.item, item) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b) || **a == **b,
            (None, None) => true,
            _ => false,
        };
        same && self.live(&entry, now)
            && entry.expires_at.saturating_sub(now) >= entry.ttl / 2
            // Checked last: no write began or ended since the read began, so the image fetched
            // is the item's latest state, and the entry's.
            && self.item_version(slot, version.table_slot) == *version
    }

    /// Items a backend read returned without installing them (a query or scan page, a bypassed
    /// get): where a write to one is in flight, its entry is dropped before the read returns,
    /// for the reason [`Self::install_fill`] gives.
    pub(super) async fn settle<I: std::borrow::Borrow<Item>>(&self, table: &str, items: &[I]) {
        if self.tracks.in_flight.load(Ordering::SeqCst) == 0 {
            return;
        }
        let Some(info) = self.known_table(table) else {
            // No write to the table has gone through this cache.
            return;
        };
        for item in items {
            let Some(key) = info.key_of(item.borrow()).and_then(|k| item_key(table, &k)) else {
                continue;
            };
            let key = self.hasher.lookup(key);
            let slot = self.tracks.versions.slot(key.hash);
            if pending(self.tracks.versions.load(slot)) == 0 {
                continue;
            }
            // Under the key's lock, like every install: a write that ended just before may
            // still be installing an image older than what this read returns.
            self.items
                .entry(key.to_key())
                .and_compute_with(|existing| {
                    let busy = pending(self.tracks.versions.load(slot)) > 0;
                    if busy {
                        self.tracks.reads.bump(slot);
                    }
                    ready(if busy && existing.is_some() {
                        Op::Remove
                    } else {
                        Op::Nop
                    })
                })
                .await;
        }
    }
}

pub(super) fn is_top_level(p: &Path) -> bool {
    matches!(p.0.as_slice(), [PathElement::Attr(_)])
}

/// The attributes of `item` named by a top-level projection (all of it when `None`).
pub(super) fn project(item: SharedItem, projection: Option<&[Path]>) -> SharedItem {
    match projection {
        None => item,
        Some(paths) => Arc::new(dyno_core::expr::eval::project(&item, paths)),
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::*;

    #[test]
    fn projection_keeps_the_named_top_level_attributes() {
        let item = Arc::new(item("a", "1"));
        assert!(Arc::ptr_eq(&project(item.clone(), None), &item));
        let paths = [Path::attr("v"), Path::attr("missing")];
        let got = project(item, Some(&paths));
        assert_eq!(got.keys().collect::<Vec<_>>(), ["v"]);
        assert!(is_top_level(&Path::attr("v")));
        assert!(!is_top_level(&Path::attr("m").index(0)));
    }

    /// Before the fix every strongly consistent read replaced the entry (a moka insert each).
    #[tokio::test]
    async fn a_fill_that_confirms_the_entry_leaves_it_in_place_until_half_its_ttl_is_gone() {
        let (c, clock) = cache().await;
        let lookup = || c.hasher.lookup(item_key(T, &key("a")).unwrap());
        let first = Arc::new(item("a", "1"));
        c.install_fill(c.fill(T, &lookup()), Some(first.clone()), T, None)
            .await;
        let held = || async { entry(&c, "a").await.unwrap().item.unwrap() };
        let equal = Arc::new(item("a", "1"));
        c.install_fill(c.fill(T, &lookup()), Some(equal.clone()), T, None)
            .await;
        assert!(Arc::ptr_eq(&held().await, &first), "confirmed: left alone");
        let changed = Arc::new(item("a", "2"));
        c.install_fill(c.fill(T, &lookup()), Some(changed.clone()), T, None)
            .await;
        assert!(
            Arc::ptr_eq(&held().await, &changed),
            "a new image replaces it"
        );
        clock.advance(c.ttls.item * 3 / 4);
        c.install_fill(c.fill(T, &lookup()), Some(equal.clone()), T, None)
            .await;
        assert!(
            Arc::ptr_eq(&held().await, &equal),
            "refreshed past half its TTL"
        );
    }

    #[tokio::test]
    async fn a_fill_overlapped_by_a_write_is_rejected_and_a_quiet_one_installed() {
        let (c, _) = cache().await;
        let lookup = || c.hasher.lookup(item_key(T, &key("a")).unwrap());
        let fill = c.fill(T, &lookup());
        let write = c.register(T, &key("a")).unwrap();
        c.install_fill(fill, Some(Arc::new(item("a", "old"))), T, None)
            .await;
        assert!(entry(&c, "a").await.is_none());
        assert_eq!(c.metrics().rejected_stale_fills, 1);
        write.abandon();
        let fill = c.fill(T, &lookup());
        c.install_fill(fill, Some(Arc::new(item("a", "new"))), T, None)
            .await;
        let installed = entry(&c, "a").await.unwrap();
        assert_eq!(installed.item.as_deref(), Some(&item("a", "new")));
        // A tombstone for a missing item.
        let fill = c.fill(T, &lookup());
        c.install_fill(fill, None, T, None).await;
        assert!(entry(&c, "a").await.unwrap().item.is_none());
    }
}
