//! The query cache: query and scan pages, served while the generations they were read under
//! hold, loaded with single flight.

use super::*;

/// The table a page is of, and the partition its key condition fixes (`None` for a scan).
pub(super) type PageOf<'a> = (&'a str, Option<&'a [(String, AttributeValue)]>);

impl<S: Store> CachedStore<S> {
    pub(super) async fn query_page(
        &self,
        request: QueryRequest,
        ttl_override: Option<Duration>,
    ) -> Result<Page> {
        let key = self.hasher.lookup(query_key(&request));
        let index = request.index.as_deref().unwrap_or("");
        let mut parts: Vec<(&str, &AttributeValue)> = request
            .key_condition
            .partition_parts()
            .map(|(n, v)| (n.as_str(), v))
            .collect();
        let hashes = [
            partition_parts_hash(&request.table, index, &mut parts),
            index_hash(&request.table, index),
        ];
        let table = request.table.clone();
        let check: Vec<(String, AttributeValue)> = request
            .key_condition
            .partition_parts()
            .map(|(n, v)| (n.clone(), v.clone()))
            .collect();
        let consistent = request.consistent_read;
        let fetch: std::pin::Pin<Box<dyn std::future::Future<Output = Result<Page>> + Send + '_>> =
            if request.index.is_none() && !consistent && self.page_may_lag(&key, &hashes).await {
                // A replica may not have a change this instance saw: a page of the table that
                // disagrees with what it saw is read again, consistently (the cheapest answer
                // when the replica is current: one eventually consistent read).
                let strong = request.clone().with_consistent_read(true);
                let (t, parts) = (table.clone(), check.clone());
                Box::pin(async move {
                    let page = self.inner.query(request).await?;
                    if self.page_agrees(&t, &parts, &page) {
                        Ok(page)
                    } else {
                        self.inner.query(strong).await
                    }
                })
            } else {
                // Called when first polled: a store that answers at once would otherwise be
                // read on a hit as well.
                Box::pin(async move { self.inner.query(request).await })
            };
        self.page(
            key,
            &hashes,
            consistent,
            (&table, Some(&check)),
            ttl_override,
            fetch,
        )
        .await
    }

    /// No fresh page serves `key`, and a partition it depends on changed within the replica
    /// lag: an eventually consistent read of it may return an older image.
    async fn page_may_lag(&self, key: &Lookup, hashes: &[u64]) -> bool {
        !self.replica_lag.is_zero()
            && self.recently_moved_hashes(hashes)
            && self.fresh_page(key).await.is_none()
    }

    pub(super) async fn scan_page(
        &self,
        mut request: ScanRequest,
        ttl_override: Option<Duration>,
    ) -> Result<Page> {
        let key = self.hasher.lookup(scan_key(&request));
        let hashes = [scan_hash(&request.table)];
        let table = request.table.clone();
        if request.index.is_none()
            && !request.consistent_read
            && self.page_may_lag(&key, &hashes).await
        {
            request.consistent_read = true;
        }
        let consistent = request.consistent_read;
        self.page(
            key,
            &hashes,
            consistent,
            (&table, None),
            ttl_override,
            async move { self.inner.scan(request).await },
        )
        .await
    }

    /// A query or scan page through the query cache. `fetch` is the backend call, made only
    /// when polled (an `async` block around it) and only polled on a miss, and shared by concurrent misses of the same page (single flight).
    pub(super) async fn page(
        &self,
        key: Lookup,
        hashes: &[u64],
        consistent: bool,
        table: PageOf<'_>,
        ttl_override: Option<Duration>,
        fetch: impl std::future::Future<Output = Result<Page>>,
    ) -> Result<Page> {
        if consistent {
            inc(&self.counters.query.bypasses);
            // Taken before the backend call: a write completing after this point makes the page
            // unservable, whenever it is installed.
            let deps = self.snapshot(hashes);
            return self
                .fill_page(key, deps, true, table, ttl_override, fetch)
                .await;
        }
        if let Some(page) = self.fresh_page(&key).await {
            self.counters.query.hits.add(key.hash);
            return Ok((*page).clone());
        }
        inc(&self.counters.query.misses);
        let mut fetch = Some(fetch);
        loop {
            // Before the backend call, as above; its generations are also the flight's version,
            // so a caller that arrives after a write does not join a load that began before it.
            let deps = self.snapshot(hashes);
            if !deps.quiet() {
                // A write to a partition the page depends on is in flight: nobody joins a load
                // begun now (see `load`), and the page is not installed.
                inc(&self.counters.query.loads);
                let Some(fetch) = fetch.take() else {
                    unreachable!("a caller fetches once at most")
                };
                return self
                    .fill_page(key, deps, false, table, ttl_override, fetch)
                    .await;
            }
            match self
                .page_flights
                .join(key.as_slice(), key.hash, deps.version())
            {
                Role::Waiter(rx) => {
                    inc(&self.counters.coalesced_waiters);
                    match flight::wait(rx).await {
                        Some(Ok(page)) => return Ok((*page).clone()),
                        Some(Err(e)) => return Err(e),
                        // The leader was cancelled: lead or join a new flight.
                        None => continue,
                    }
                }
                Role::Leader(leader) => {
                    // The previous flight may have installed the page since our lookup.
                    if let Some(page) = self.fresh_page(&key).await {
                        leader.finish(Ok(page.clone()));
                        return Ok((*page).clone());
                    }
                    inc(&self.counters.query.loads);
                    // Every arm below returns, so a caller takes `fetch` once at most.
                    let Some(fetch) = fetch.take() else {
                        unreachable!("a caller leads one flight at most")
                    };
                    return match self
                        .fill_page(key, deps, false, table, ttl_override, fetch)
                        .await
                    {
                        Ok(page) => {
                            let page = Arc::new(page);
                            leader.finish(Ok(page.clone()));
                            Ok(Arc::unwrap_or_clone(page))
                        }
                        Err(e) => {
                            leader.finish(Err(e.clone()));
                            Err(e)
                        }
                    };
                }
            }
        }
    }

    /// The cached page at `key` if it is fresh and no write has touched what it depends on.
    pub(super) async fn fresh_page(&self, key: &Lookup) -> Option<Arc<Page>> {
        let entry = self.pages.get(&key.as_ref()).await?;
        let now = self.clock.now();
        (entry.expires_at > now
            && self.is_current(&entry.deps)
            && self.leases.serves(entry.table_slot, now))
        .then_some(entry.page)
    }

    /// Fetches a page and installs it unless a write since `deps` was taken makes it stale, or
    /// (read eventually consistently) a partition it depends on changed within the replica lag.
    pub(super) async fn fill_page(
        &self,
        key: Lookup,
        deps: Deps,
        consistent: bool,
        (table, parts): PageOf<'_>,
        ttl_override: Option<Duration>,
        fetch: impl std::future::Future<Output = Result<Page>>,
    ) -> Result<Page> {
        let page = fetch.await?;
        self.settle(table, &page.items).await;
        // Read eventually consistently soon after a change to what it depends on, the page may
        // come from a replica that has not caught up: cached only if it agrees with every image
        // seen since (a scan is not checked: not cached).
        let lagging = !consistent
            && self.recently_moved(&deps)
            && !parts.is_some_and(|p| self.page_agrees(table, p, &page));
        if !self.is_current(&deps) || lagging {
            inc(&self.counters.rejected_stale_fills);
            return Ok(page);
        }
        if let Some((expires_at, ttl)) = self.page_expiry(&page, table, ttl_override) {
            let bytes: usize = page.items.iter().map(|i| item_size(i) + 16).sum();
            let weight = weight(key.as_slice().len(), bytes);
            let entry = PageEntry {
                page: Arc::new(page.clone()),
                expires_at,
                ttl,
                weight,
                deps,
                table_slot: self.table_slot(table),
            };
            self.pages.insert(key.to_key(), entry).await;
        }
        Ok(page)
    }

    pub(super) fn page_expiry(
        &self,
        page: &Page,
        table: &str,
        ttl_override: Option<Duration>,
    ) -> Option<(Duration, Duration)> {
        let base = match ttl_override {
            Some(ttl) => ttl,
            None => page
                .items
                .iter()
                .filter_map(|i| self.entity_ttl(i))
                .fold(self.ttls.query, Duration::min),
        };
        let ttl = self.ttls.jittered(base);
        if ttl.is_zero() {
            return None;
        }
        let now = self.clock.now();
        let mut expires = now + ttl;
        if let Some(info) = self.known_table(table) {
            for item in &page.items {
                if let Some(deadline) = info.ttl_deadline(item, now) {
                    expires = expires.min(deadline);
                }
            }
        }
        (expires > now).then(|| (expires, expires - now))
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::*;

    fn page(items: Vec<Item>) -> Page {
        Page {
            items: items.into_iter().map(Arc::new).collect(),
            ..Page::default()
        }
    }

    #[tokio::test]
    async fn a_page_is_checked_against_the_newest_image_seen_of_each_changed_item() {
        let (c, _) = cache().await;
        let with = |pk: &str, gpk: &str, v: &str| {
            let mut i = item(pk, v);
            i.insert("GPK".into(), AttributeValue::S(gpk.into()));
            i
        };
        let parts = |gpk: &str| vec![("GPK".to_owned(), AttributeValue::S(gpk.into()))];
        let key_a = c.hasher.lookup(item_key(T, &key("a")).unwrap()).to_key();
        let slot = c.table_slot(T);
        assert!(
            c.page_agrees(T, &parts("x"), &page(vec![with("a", "x", "1")])),
            "nothing seen"
        );
        c.saw(&key_a, slot, Some(Some(Arc::new(with("a", "x", "2")))));
        let agrees = |gpk: &str, items: Vec<Item>| c.page_agrees(T, &parts(gpk), &page(items));
        assert!(!agrees("x", vec![with("a", "x", "1")]), "an older image");
        assert!(agrees("x", vec![with("a", "x", "2"), with("b", "x", "1")]));
        assert!(
            !agrees("x", vec![with("b", "x", "1")]),
            "missing where it belongs"
        );
        assert!(agrees("y", vec![with("b", "y", "1")]), "another partition");
        assert!(
            !agrees("y", vec![with("a", "y", "1")]),
            "where it no longer is"
        );
        c.saw(&key_a, slot, Some(None));
        assert!(
            agrees("x", vec![with("b", "x", "1")]),
            "deleted: absent everywhere"
        );
        assert!(
            !agrees("x", vec![with("a", "x", "2")]),
            "deleted, still listed"
        );
        c.saw(&key_a, slot, None);
        assert!(
            !agrees("y", vec![with("b", "y", "1")]),
            "an unknown result fails"
        );
    }

    #[tokio::test]
    async fn a_page_expires_with_its_soonest_ttl_attribute_and_not_at_all_once_one_passed() {
        let (c, clock) = cache().await;
        clock.set(Duration::from_secs(1_000_000));
        let plain = c.page_expiry(&page(vec![item("a", "1")]), T, None);
        assert_eq!(plain.map(|e| e.1), Some(c.ttls.query));
        let mut soon = item("b", "1");
        soon.insert("ttl".into(), AttributeValue::N("1000005".into()));
        let capped = c.page_expiry(&page(vec![item("a", "1"), soon]), T, None);
        assert_eq!(capped.map(|e| e.1), Some(Duration::from_secs(5)));
        let mut gone = item("c", "1");
        gone.insert("ttl".into(), AttributeValue::N("999999".into()));
        assert_eq!(c.page_expiry(&page(vec![gone]), T, None), None);
    }
}
