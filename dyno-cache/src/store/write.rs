//! Write-through: puts, updates, deletes, batch writes and transactions register before they
//! are sent, then install, drop or keep entries by their outcome.

use super::*;

/// What a write that (maybe) applied changed: its key, the item's images before and after as
/// far as known, and the top-level attributes an update touched (`None`: the whole item).
pub(super) struct Changed<'a> {
    pub(super) key: &'a Item,
    pub(super) old: Image<'a>,
    pub(super) new: Image<'a>,
    pub(super) touched: Option<&'a [String]>,
}

/// What a cache lookup tells of an item: `None` is unknown.
pub(super) fn image_of(cached: &Option<Option<SharedItem>>) -> Image<'_> {
    match cached {
        Some(Some(item)) => Image::Present(item),
        Some(None) => Image::Absent,
        None => Image::Unknown,
    }
}

/// A put or a delete in flight: both replace the whole item, so one path completes them.
struct WholeItemWrite<'a> {
    info: &'a TableInfo,
    key: &'a Item,
    ticket: Ticket<'a>,
    cached_old: Option<Option<SharedItem>>,
    /// The item put, or `None` for a delete.
    new: Option<SharedItem>,
    asked: Asked,
    ttl_override: Option<Duration>,
}

/// What the caller of a put or a delete asked for, before the request was rewritten.
struct Asked {
    return_values: ReturnValues,
    old_on_failure: bool,
    /// Whether `return_values` was rewritten to ALL_OLD.
    rewrite: bool,
}

impl Asked {
    /// Asks a put or a delete for the old image when that costs nothing (ALL_OLD tells which
    /// index partitions the item leaves), and for the item on a condition failure; returns what
    /// the caller had asked for.
    fn old_image(return_values: &mut ReturnValues, old_on_failure: &mut bool) -> Self {
        let asked = Asked {
            return_values: *return_values,
            old_on_failure: *old_on_failure,
            rewrite: matches!(*return_values, ReturnValues::None | ReturnValues::AllOld),
        };
        if asked.rewrite {
            *return_values = ReturnValues::AllOld;
        }
        *old_on_failure = true;
        asked
    }
}

impl<S: Store> CachedStore<S> {
    /// Registers a write before it is sent: on its key's counter, and on the generations of the
    /// partitions it may change (from the cached image, unless another write to the key is in
    /// flight, and `new` where the request tells it). Returns the ticket and the cached image.
    pub(super) async fn begin_write(
        &self,
        info: &TableInfo,
        key: &Item,
        new: Image<'_>,
        touched: Option<&[String]>,
    ) -> Option<(Ticket<'_>, Option<Option<SharedItem>>)> {
        let mut ticket = self.register(&info.name, key)?;
        let cached = self.cached_image(ticket.key.as_ref()).await;
        let old = if pending(ticket.start.state) > 1 {
            Image::Unknown
        } else {
            image_of(&cached)
        };
        for hash in info.affected(key, old, new, touched) {
            let slot = self.tracks.generations.slot(hash);
            self.tracks.generations.begin(slot);
            self.touched_pages.touch(slot, self.clock.now());
            ticket.pages.push(slot);
        }
        Some((ticket, cached))
    }

    /// Completes a write: bumps the generations of what it `changed` (when it may have
    /// applied), then, under moka's lock of the key, installs `image` (`Some(new state)`: an
    /// item, or `None` for deleted) if no other write overlapped it, and drops the key
    /// otherwise or when `image` is `None` (the new state is not known).
    pub(super) async fn finish_write(
        &self,
        mut ticket: Ticket<'_>,
        changed: Option<Changed<'_>>,
        image: Option<Option<SharedItem>>,
        info: Option<&TableInfo>,
        ttl_override: Option<Duration>,
    ) {
        self.saw(&ticket.key, ticket.start.table_slot, image.clone());
        let mut moved = Vec::new();
        if let (Some(info), Some(c)) = (info, changed) {
            // Another write racing this one makes the cached old image unreliable.
            let racing = pending(ticket.start.state) > 1
                || self.tracks.versions.load(ticket.slot) != ticket.start.state;
            let old = if racing { Image::Unknown } else { c.old };
            for hash in info.affected(c.key, old, c.new, c.touched) {
                let slot = self.tracks.generations.slot(hash);
                if !ticket.pages.contains(&slot) && !moved.contains(&slot) {
                    self.tracks.generations.bump(slot);
                    self.touched_pages.touch(slot, self.clock.now());
                }
                moved.push(slot);
                inc(&self.counters.generation_bumps);
            }
        }
        // Generations registered at the start that the write turned out not to change (an
        // update that stayed in its GSI partition) are taken back.
        ticket.end_pages_except(&moved);
        let entry = image.map(|image| {
            self.item_expiry(image.as_deref(), info, ttl_override)
                .map(|exp| self.item_entry(ticket.key.bytes.len(), image, exp, &ticket.start))
        });
        let mut installed = false;
        self.items
            .entry(ticket.key.clone())
            .and_compute_with(|existing| {
                let clean = self.is_clean(&ticket);
                let op = match entry {
                    Some(entry) if clean => {
                        installed = true;
                        match entry {
                            Some(e) => Op::Put(e),
                            None if existing.is_some() => Op::Remove,
                            None => Op::Nop,
                        }
                    }
                    _ if existing.is_some() => Op::Remove,
                    _ => Op::Nop,
                };
                ready(op)
            })
            .await;
        // Only now, with the entry set: until then the write counts as in flight, so a read
        // that meanwhile returns a newer state drops the entry (under the key's lock, after
        // this write's) rather than leave an older image to be served after it.
        ticket.end_item();
        inc(if installed {
            &self.counters.write_through_updates
        } else {
            &self.counters.invalidations
        });
    }

    /// Bumps the query generations a write to `key` invalidates (see [`TableInfo::affected`]).
    pub(super) fn bump(
        &self,
        info: &TableInfo,
        key: &Item,
        old: Image<'_>,
        new: Image<'_>,
        touched: Option<&[String]>,
    ) {
        for hash in info.affected(key, old, new, touched) {
            self.bump_hash(hash);
        }
    }

    /// Handles a failed write: a definite failure changes nothing; a condition failure that
    /// returned the item installs it (it is the current state, unless another write raced);
    /// an unknown outcome invalidates the key and the partitions the write would have touched.
    pub(super) async fn write_failed(
        &self,
        error: Error,
        ticket: Ticket<'_>,
        info: &TableInfo,
        changed: Changed<'_>,
        caller_wants_old: bool,
        ttl_override: Option<Duration>,
    ) -> Error {
        match error {
            Error::ConditionFailed { entity, item } => {
                match &item {
                    Some(current) => {
                        let image = Some(Some(Arc::new(current.clone())));
                        self.finish_write(ticket, None, image, Some(info), ttl_override)
                            .await;
                    }
                    None => ticket.abandon(),
                }
                Error::ConditionFailed {
                    entity,
                    item: if caller_wants_old { item } else { None },
                }
            }
            e if e.is_outcome_unknown() => {
                let old = self.cached_image(ticket.key.as_ref()).await;
                let changed = Changed {
                    old: image_of(&old),
                    ..changed
                };
                self.finish_write(ticket, Some(changed), None, Some(info), None)
                    .await;
                e
            }
            e => {
                ticket.abandon();
                e
            }
        }
    }

    pub(super) async fn put(
        &self,
        mut request: PutRequest,
        ttl_override: Option<Duration>,
    ) -> Result<WriteOutput> {
        let info = self.table_info(&request.table).await?;
        let new = Arc::new(request.item.clone());
        let begun = match info.key_of(&request.item) {
            Some(key) => self
                .begin_write(&info, &key, Image::Present(&new), None)
                .await
                .map(|(ticket, cached)| (key, ticket, cached)),
            None => None,
        };
        let Some((key, ticket, cached_old)) = begun else {
            // No key attributes: the backend rejects it; nothing to cache.
            return self.inner.put_item(request).await;
        };
        let write = WholeItemWrite {
            info: &info,
            key: &key,
            ticket,
            cached_old,
            new: Some(new),
            asked: Asked::old_image(
                &mut request.return_values,
                &mut request.return_old_on_condition_failure,
            ),
            ttl_override,
        };
        let sent = self.inner.put_item(request).await;
        self.whole_item_written(write, sent).await
    }

    pub(super) async fn update(
        &self,
        mut request: UpdateRequest,
        ttl_override: Option<Duration>,
    ) -> Result<WriteOutput> {
        let info = self.table_info(&request.table).await?;
        let touched: Vec<String> = request
            .update
            .paths()
            .filter_map(|p| p.top().map(str::to_owned))
            .collect();
        let Some((ticket, cached_old)) = self
            .begin_write(&info, &request.key, Image::Unknown, Some(&touched))
            .await
        else {
            return self.inner.update_item(request).await;
        };
        let key = request.key.clone();
        let asked = request.return_values;
        let wants_old = request.return_old_on_condition_failure;
        // ALL_NEW gives the image to cache; a caller asking for old values gets them, and the
        // key is invalidated instead.
        let send = match asked {
            ReturnValues::None | ReturnValues::AllNew => ReturnValues::AllNew,
            other => other,
        };
        request.return_values = send;
        request.return_old_on_condition_failure = true;
        match self.inner.update_item(request).await {
            Ok(mut out) => {
                let mut attrs = out.attributes.take();
                let new_item = match send {
                    ReturnValues::AllNew => attrs.take().map(Arc::new),
                    _ => None,
                };
                let (old, new) = match send {
                    ReturnValues::AllNew => (
                        image_of(&cached_old),
                        new_item.as_deref().map_or(Image::Unknown, Image::Present),
                    ),
                    ReturnValues::AllOld => (Image::from_option(attrs.as_ref()), Image::Unknown),
                    _ => (image_of(&cached_old), Image::Unknown),
                };
                let changed = Changed {
                    key: &key,
                    old,
                    new,
                    touched: Some(&touched),
                };
                let image = new_item.clone().map(Some);
                self.finish_write(ticket, Some(changed), image, Some(&info), ttl_override)
                    .await;
                if asked == send {
                    out.attributes = match new_item {
                        Some(new) => Some(Arc::unwrap_or_clone(new)),
                        None => attrs,
                    };
                }
                Ok(out)
            }
            Err(e) => {
                let changed = Changed {
                    key: &key,
                    old: Image::Unknown,
                    new: Image::Unknown,
                    touched: Some(&touched),
                };
                Err(self
                    .write_failed(e, ticket, &info, changed, wants_old, ttl_override)
                    .await)
            }
        }
    }

    pub(super) async fn delete(
        &self,
        mut request: DeleteRequest,
        ttl_override: Option<Duration>,
    ) -> Result<WriteOutput> {
        let info = self.table_info(&request.table).await?;
        let Some((ticket, cached_old)) = self
            .begin_write(&info, &request.key, Image::Absent, None)
            .await
        else {
            return self.inner.delete_item(request).await;
        };
        let key = request.key.clone();
        let write = WholeItemWrite {
            info: &info,
            key: &key,
            ticket,
            cached_old,
            new: None,
            asked: Asked::old_image(
                &mut request.return_values,
                &mut request.return_old_on_condition_failure,
            ),
            ttl_override,
        };
        let sent = self.inner.delete_item(request).await;
        self.whole_item_written(write, sent).await
    }

    /// Completes a put or a delete from its response: installs the new state (the item put, or
    /// absent) and bumps the partitions it left and entered, or handles the failure.
    async fn whole_item_written(
        &self,
        w: WholeItemWrite<'_>,
        sent: Result<WriteOutput>,
    ) -> Result<WriteOutput> {
        let new = w.new.as_deref().map_or(Image::Absent, Image::Present);
        match sent {
            Ok(mut out) => {
                let attrs = out.attributes.take();
                let old = if w.asked.rewrite {
                    Image::from_option(attrs.as_ref())
                } else {
                    image_of(&w.cached_old)
                };
                let changed = Changed {
                    key: w.key,
                    old,
                    new,
                    touched: None,
                };
                let image = Some(w.new.clone());
                self.finish_write(w.ticket, Some(changed), image, Some(w.info), w.ttl_override)
                    .await;
                if !w.asked.rewrite || w.asked.return_values == ReturnValues::AllOld {
                    out.attributes = attrs;
                }
                Ok(out)
            }
            Err(e) => {
                let changed = Changed {
                    key: w.key,
                    old: Image::Unknown,
                    new,
                    touched: None,
                };
                Err(self
                    .write_failed(
                        e,
                        w.ticket,
                        w.info,
                        changed,
                        w.asked.old_on_failure,
                        w.ttl_override,
                    )
                    .await)
            }
        }
    }

    pub(super) async fn batch_write_items(
        &self,
        request: BatchWriteRequest,
        ttl_override: Option<Duration>,
    ) -> Result<BatchWriteOutput> {
        // Per write: the request, schema, key, new state, ticket and cached old image.
        let mut plan = Vec::with_capacity(request.writes.len());
        for w in &request.writes {
            let info = self.table_info(w.table()).await?;
            let (key, new) = match w {
                WriteRequest::Put { item, .. } => (info.key_of(item), Some(Arc::new(item.clone()))),
                WriteRequest::Delete { key, .. } => (Some(key.clone()), None),
            };
            let Some(key) = key else { continue };
            let Some((ticket, old)) = self
                .begin_write(&info, &key, Image::from_option(new.as_deref()), None)
                .await
            else {
                continue;
            };
            plan.push((w.clone(), info, key, new, ticket, old));
        }
        let result = self.inner.batch_write(request).await;
        for (w, info, key, new, ticket, old) in plan {
            let changed = Changed {
                key: &key,
                old: image_of(&old),
                new: Image::from_option(new.as_deref()),
                touched: None,
            };
            match &result {
                // Written: install the new state.
                Ok(out) if !out.unprocessed.contains(&w) => {
                    self.finish_write(
                        ticket,
                        Some(changed),
                        Some(new.clone()),
                        Some(&info),
                        ttl_override,
                    )
                    .await;
                }
                // Not written: nothing to bump, but the key is dropped rather than trusted.
                Ok(_) => {
                    self.finish_write(ticket, None, None, Some(&info), ttl_override)
                        .await;
                }
                Err(e) if e.is_outcome_unknown() => {
                    self.finish_write(ticket, Some(changed), None, Some(&info), ttl_override)
                        .await;
                }
                Err(_) => ticket.abandon(),
            }
        }
        result
    }

    pub(super) async fn transact_write_items(
        &self,
        request: TransactWriteRequest,
        ttl_override: Option<Duration>,
    ) -> Result<TransactWriteOutput> {
        struct Action<'a> {
            info: Arc<TableInfo>,
            key: Item,
            ticket: Ticket<'a>,
            /// The new state when known: `Some(Some)` put, `Some(None)` delete, `None` update or
            /// condition check.
            new: Option<Option<SharedItem>>,
            touched: Option<Vec<String>>,
            writes: bool,
            old: Option<Option<SharedItem>>,
        }
        let mut plan = Vec::with_capacity(request.actions.len());
        for a in &request.actions {
            let info = self.table_info(a.table()).await?;
            let (key, new, touched, writes) = match a {
                TransactWriteItem::Put { item, .. } => (
                    info.key_of(item),
                    Some(Some(Arc::new(item.clone()))),
                    None,
                    true,
                ),
                TransactWriteItem::Update { key, update, .. } => (
                    Some(key.clone()),
                    None,
                    Some(
                        update
                            .paths()
                            .filter_map(|p| p.top().map(str::to_owned))
                            .collect::<Vec<_>>(),
                    ),
                    true,
                ),
                TransactWriteItem::Delete { key, .. } => {
                    (Some(key.clone()), Some(None), None, true)
                }
                TransactWriteItem::ConditionCheck { key, .. } => {
                    (Some(key.clone()), None, None, false)
                }
            };
            let Some(key) = key else { continue };
            let new_image = match &new {
                Some(n) => Image::from_option(n.as_deref()),
                None => Image::Unknown,
            };
            // A condition check changes nothing: it registers on its key only (its pages stay).
            let begun = if writes {
                self.begin_write(&info, &key, new_image, touched.as_deref())
                    .await
            } else {
                self.register(a.table(), &key).map(|t| (t, None))
            };
            let Some((ticket, old)) = begun else {
                continue;
            };
            plan.push(Action {
                info,
                key,
                ticket,
                new,
                touched,
                writes,
                old,
            });
        }
        let result = self.inner.transact_write(request).await;
        let (applied, unknown) = match &result {
            Ok(_) => (true, false),
            Err(e) => (false, e.is_outcome_unknown()),
        };
        let cancelled = matches!(result, Err(Error::TransactionCanceled { .. }));
        for a in plan {
            let changed = (a.writes && (applied || unknown)).then(|| Changed {
                key: &a.key,
                old: image_of(&a.old),
                new: match &a.new {
                    Some(n) => Image::from_option(n.as_deref()),
                    None => Image::Unknown,
                },
                touched: a.touched.as_deref(),
            });
            if applied && !a.writes {
                // A condition check that held: the item did not change.
                a.ticket.abandon();
            } else if applied {
                let image = a.new.clone();
                self.finish_write(a.ticket, changed, image, Some(&a.info), ttl_override)
                    .await;
            } else if unknown || cancelled {
                // Cancelled: the reasons may mean the cache disagrees with the table; unknown:
                // it may have applied. Either way the keys are dropped.
                self.finish_write(a.ticket, changed, None, Some(&a.info), ttl_override)
                    .await;
            } else {
                a.ticket.abandon();
            }
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::*;

    #[test]
    fn a_cache_lookup_tells_present_absent_or_unknown() {
        let it = Arc::new(item("a", "1"));
        assert!(matches!(image_of(&Some(Some(it.clone()))), Image::Present(i) if *i == *it));
        assert!(matches!(image_of(&Some(None)), Image::Absent));
        assert!(matches!(image_of(&None), Image::Unknown));
    }

    #[tokio::test]
    async fn a_write_installs_its_image_unless_another_write_overlapped_it() {
        let (c, _) = cache().await;
        let info = c.known_table(T).unwrap();
        let new = Some(Some(Arc::new(item("a", "1"))));
        let (t, cached) = c
            .begin_write(&info, &key("a"), Image::Unknown, None)
            .await
            .unwrap();
        assert!(cached.is_none(), "nothing cached yet");
        c.finish_write(t, None, new.clone(), Some(&info), None)
            .await;
        assert!(entry(&c, "a").await.is_some());

        let (t, cached) = c
            .begin_write(&info, &key("a"), Image::Unknown, None)
            .await
            .unwrap();
        assert!(cached.is_some(), "the cached image is returned");
        let (other, _) = c
            .begin_write(&info, &key("a"), Image::Unknown, None)
            .await
            .unwrap();
        c.finish_write(t, None, new.clone(), Some(&info), None)
            .await;
        assert!(entry(&c, "a").await.is_none(), "overlapped: dropped");
        other.abandon();
        assert_eq!(c.metrics().invalidations, 1);
    }
}
