//! Changes made elsewhere: the follower's [`CachedStore::apply_change`] and the explicit
//! invalidations (an item, a partition, an index, a table).

use super::*;

impl<S: Store> CachedStore<S> {
    /// Applies a change made elsewhere (another process's write, seen in a change feed such as
    /// DynamoDB Streams), as a local write with an unknown outcome would: the query pages of the
    /// item's old and new partitions (of the table, its LSIs and every GSI; the whole index where
    /// an image is [`Image::Unknown`]) and the table's scans become unservable, reads in flight on
    /// the key cannot install what they fetched, and the item's entry is dropped (the next read
    /// loads the item).
    ///
    /// The entry is never replaced by `new`, even when it holds exactly `old`: the cache cannot
    /// tell whether its entry predates the change or repeats an older state. Say the item went
    /// `A -> B -> A` and the cache filled the second `A`: the record `A -> B`, applied late,
    /// would install `B`, older than what a read has already returned. Entries from reads and
    /// local writes carry no feed position to order them against the record.
    pub async fn apply_change(
        &self,
        table: &str,
        key: &Item,
        old: Image<'_>,
        new: Image<'_>,
    ) -> Result<()> {
        let info = self.table_info(table).await?;
        self.bump(&info, key, old, new, None);
        let Some(mut ticket) = self.register(table, key) else {
            return Ok(());
        };
        let seen = match new {
            Image::Present(item) => Some(Some(Arc::new(item.clone()))),
            Image::Absent => Some(None),
            Image::Unknown => None,
        };
        self.saw(&ticket.key, ticket.start.table_slot, seen);
        self.drop_entry(ticket.key.clone()).await;
        ticket.end_item();
        inc(&self.counters.invalidations);
        Ok(())
    }

    /// Removes the entry at `key`, under moka's lock of the key.
    pub(super) async fn drop_entry(&self, key: CacheKey) {
        self.items
            .entry(key)
            .and_compute_with(|existing| {
                ready(if existing.is_some() {
                    Op::Remove
                } else {
                    Op::Nop
                })
            })
            .await;
    }

    /// Drops an item's entry, and makes reads of it in flight unable to install what they
    /// fetched. Query pages are left alone (see [`CachedStore::invalidate_partition`]).
    pub async fn invalidate_item(&self, table: &str, key: &Item) {
        let Some(mut ticket) = self.register(table, key) else {
            return;
        };
        self.drop_entry(ticket.key.clone()).await;
        ticket.end_item();
        inc(&self.counters.invalidations);
    }

    /// Makes the cached query pages of one partition unservable, and those being filled
    /// uninstallable: `index` `None` is the table itself (its LSIs are partitioned by the same
    /// value: name them to include them), `Some(name)` a secondary index. The table's scan pages
    /// go too, as any changed item changes them.
    ///
    /// A partition of a multi-attribute index key is named by all its parts: see
    /// [`CachedStore::invalidate_partition_parts`].
    pub fn invalidate_partition(&self, table: &str, index: Option<&str>, value: &AttributeValue) {
        self.bump_hash(partition_hash(table, index.unwrap_or(""), value));
        self.bump_hash(scan_hash(table));
    }

    /// [`CachedStore::invalidate_partition`] for a global secondary index with a multi-attribute
    /// partition key: `parts` gives every partition attribute and its value, in any order.
    pub fn invalidate_partition_parts(
        &self,
        table: &str,
        index: &str,
        parts: &[(&str, &AttributeValue)],
    ) {
        let mut parts = parts.to_vec();
        self.bump_hash(partition_parts_hash(table, index, &mut parts));
        self.bump_hash(scan_hash(table));
    }

    /// Makes every cached query page of one index (`None`: the table) unservable, with the
    /// table's scan pages.
    pub fn invalidate_index(&self, table: &str, index: Option<&str>) {
        self.bump_hash(index_hash(table, index.unwrap_or("")));
        self.bump_hash(scan_hash(table));
    }

    /// Makes every item entry and query page of one table unservable, and every read of it in
    /// flight unable to install what it fetched: what a follower does when it cannot bridge a
    /// gap in a change feed. Other tables stay cached. Describes the table when it was neither
    /// registered nor written through this cache (to learn its indexes).
    pub async fn invalidate_table(&self, table: &str) -> Result<()> {
        let info = self.table_info(table).await?;
        let table_slot = self.table_slot(table);
        self.tracks.generations.bump(table_slot);
        self.touched_pages.touch(table_slot, self.clock.now());
        for index in info.index_names() {
            self.bump_hash(index_hash(table, index));
        }
        self.bump_hash(scan_hash(table));
        inc(&self.counters.invalidations);
        Ok(())
    }

    pub(super) fn bump_hash(&self, hash: u64) {
        let slot = self.tracks.generations.slot(hash);
        self.tracks.generations.bump(slot);
        self.touched_pages.touch(slot, self.clock.now());
        inc(&self.counters.generation_bumps);
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::*;

    #[tokio::test]
    async fn apply_change_drops_the_entry_even_when_it_holds_the_old_image() {
        let (c, _) = cache().await;
        let (old, new) = (item("a", "1"), item("a", "2"));
        c.put_item(put(old.clone())).await.unwrap();
        c.put_item(put(item("b", "1"))).await.unwrap();
        let before = c.metrics().invalidations;
        c.apply_change(T, &key("a"), Image::Present(&old), Image::Present(&new))
            .await
            .unwrap();
        assert!(entry(&c, "a").await.is_none());
        assert!(entry(&c, "b").await.is_some(), "other keys stay");
        assert_eq!(c.metrics().invalidations, before + 1);
    }

    #[tokio::test]
    async fn invalidate_item_drops_one_key_and_invalidate_table_every_entry() {
        let (c, _) = cache().await;
        c.put_item(put(item("a", "1"))).await.unwrap();
        c.put_item(put(item("b", "1"))).await.unwrap();
        c.invalidate_item(T, &key("a")).await;
        assert!(entry(&c, "a").await.is_none());
        let b = entry(&c, "b").await.unwrap();
        assert!(c.live(&b, c.clock.now()));
        c.invalidate_table(T).await.unwrap();
        assert!(!c.live(&b, c.clock.now()));
    }
}
