//! The counters that order fills and writes: per-key versions and kill counters, per-partition
//! generations, and the tickets writes hold while in flight (the stale-fill guard).

use super::*;

/// The counters that keep fills and writes in order: per-key item versions, per-partition query
/// generations (also per-table item generations), and how many writes are in flight at all.
pub(super) struct Tracks {
    pub(super) versions: Stripes,
    pub(super) generations: Stripes,
    /// Per key (striped like `versions`): moved by every read that reached the backend while a
    /// write to the key was in flight, before it returns (see `load`).
    pub(super) reads: Stripes,
    /// Per key (striped like `versions`): moved when a write to the key is cancelled mid-flight;
    /// entries installed before are dead (see [`ItemEntry::kill`]).
    pub(super) kills: Stripes,
    pub(super) in_flight: AtomicU64,
}

/// What an item fill or write depends on, read before the backend call: the key's counter, the
/// epoch and the table's item generation. Equal again at install, with no write in flight at
/// either point, it proves no write to the key began, ran or ended in between.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ItemVersion {
    pub(super) state: u64,
    pub(super) epoch: u64,
    pub(super) table_slot: usize,
    pub(super) table_gen: u64,
    /// The key's slot in `versions` and `kills`, and its kill counter.
    pub(super) slot: usize,
    pub(super) kill: u64,
}

impl ItemVersion {
    /// No write to the key was in flight.
    pub(super) fn quiet(&self) -> bool {
        pending(self.state) == 0
    }

    /// One number for single flight: every part only grows, so the sum moves when any does.
    pub(super) fn flight(&self) -> u64 {
        self.state
            .wrapping_add(self.epoch)
            .wrapping_add(self.table_gen)
            .wrapping_add(self.kill)
    }
}

/// A read's claim to install what it fetches for one key.
pub(super) struct Fill {
    pub(super) key: CacheKey,
    pub(super) slot: usize,
    pub(super) version: ItemVersion,
}

/// A write in flight on one item: registered on its key's counter (so that no fill installs
/// meanwhile, and reads that go to the backend drop the entry) and on the query generations it
/// may change (so that their pages are neither served nor filled meanwhile), from before it is
/// sent until it is finished. Dropped unfinished (a cancelled write, whose outcome is unknown),
/// it kills the key's entry through its kill counter (it cannot drop the entry from `Drop`, which
/// cannot await moka), and only it: keys sharing the counter's stripe cost one spurious miss.
pub(super) struct Ticket<'a> {
    pub(super) tracks: &'a Tracks,
    pub(super) key: CacheKey,
    pub(super) slot: usize,
    /// The item's version just after this write registered.
    pub(super) start: ItemVersion,
    /// The generation slots this write registered on.
    pub(super) pages: Vec<usize>,
    /// Still registered on the key's counter.
    pub(super) open: bool,
}

impl Ticket<'_> {
    /// Ends the registrations on generations: those in `changed` (slots) move on, the others
    /// are taken back (see [`Stripes::unwind`]).
    pub(super) fn end_pages_except(&mut self, changed: &[usize]) {
        for slot in self.pages.drain(..) {
            if changed.contains(&slot) {
                self.tracks.generations.end(slot);
            } else {
                self.tracks.generations.unwind(slot);
            }
        }
    }

    pub(super) fn end_pages(&mut self) {
        for slot in self.pages.drain(..) {
            self.tracks.generations.end(slot);
        }
    }

    /// Ends the registration on the key's counter; returns the counter's state before.
    pub(super) fn end_item(&mut self) -> u64 {
        debug_assert!(self.open);
        self.open = false;
        self.tracks.in_flight.fetch_sub(1, Ordering::SeqCst);
        self.tracks.versions.end(self.slot)
    }

    /// The write definitely did not apply: nothing to install or drop, and what was valid
    /// before it began is valid again.
    pub(super) fn abandon(mut self) {
        self.end_pages_except(&[]);
        self.open = false;
        self.tracks.in_flight.fetch_sub(1, Ordering::SeqCst);
        self.tracks.versions.unwind(self.slot);
    }
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        self.end_pages();
        if self.open {
            // Killed first: a read that begins before the kill sees the write still in flight.
            self.tracks.kills.bump(self.slot);
            self.end_item();
        }
    }
}

impl<S: Store> CachedStore<S> {
    pub(super) fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::SeqCst)
    }

    /// The generation slot of `table`'s item entries.
    pub(super) fn table_slot(&self, table: &str) -> usize {
        self.tracks.generations.slot(table_items_hash(table))
    }

    /// What a fill of the key at `slot`, of the table at `table_slot`, depends on now.
    pub(super) fn item_version(&self, slot: usize, table_slot: usize) -> ItemVersion {
        ItemVersion {
            state: self.tracks.versions.load(slot),
            epoch: self.epoch(),
            table_slot,
            table_gen: self.tracks.generations.load(table_slot),
            slot,
            kill: self.tracks.kills.load(slot),
        }
    }

    /// A read's claim on `key` of `table`, taken before its backend call.
    pub(super) fn fill(&self, table: &str, key: &Lookup) -> Fill {
        let slot = self.tracks.versions.slot(key.hash);
        Fill {
            key: key.to_key(),
            slot,
            version: self.item_version(slot, self.table_slot(table)),
        }
    }

    /// Registers a write (or a change made elsewhere) on its key's counter: `None` when the key
    /// cannot be cached (a non-scalar key attribute).
    pub(super) fn register(&self, table: &str, key: &Item) -> Option<Ticket<'_>> {
        let key = self.hasher.lookup(item_key(table, key)?);
        let slot = self.tracks.versions.slot(key.hash);
        let table_slot = self.table_slot(table);
        self.touched_items.touch(slot, self.clock.now());
        self.tracks.in_flight.fetch_add(1, Ordering::SeqCst);
        let state = self.tracks.versions.begin(slot);
        Some(Ticket {
            tracks: &self.tracks,
            key: key.to_key(),
            slot,
            start: ItemVersion {
                state,
                ..self.item_version(slot, table_slot)
            },
            pages: Vec::new(),
            open: true,
        })
    }

    /// True, under moka's lock of the key, when no other write to the key (or its counter)
    /// overlapped this one so far (none was in flight when it began, none began or ended since)
    /// and the epoch and table generation did not move: then its image is the item's latest
    /// state. The registration itself ends only after the entry is set (see
    /// [`Self::finish_write`]).
    pub(super) fn is_clean(&self, ticket: &Ticket<'_>) -> bool {
        pending(ticket.start.state) == 1
            && self.item_version(ticket.slot, ticket.start.table_slot) == ticket.start
    }

    /// The generations a query page depends on, as they are now.
    pub(super) fn snapshot(&self, hashes: &[u64]) -> Deps {
        let mut deps = Deps {
            epoch: self.epoch(),
            len: hashes.len(),
            slots: [(0, 0); 2],
        };
        for (i, h) in hashes.iter().enumerate() {
            let slot = self.tracks.generations.slot(*h);
            deps.slots[i] = (slot, self.tracks.generations.load(slot));
        }
        deps
    }

    /// A page read under `deps` may be served (or installed): no write to what it depends on
    /// was in flight then, and none began since.
    pub(super) fn is_current(&self, deps: &Deps) -> bool {
        deps.epoch == self.epoch()
            && deps.slots[..deps.len]
                .iter()
                .all(|(slot, g)| pending(*g) == 0 && self.tracks.generations.load(*slot) == *g)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::*;

    #[tokio::test]
    async fn an_abandoned_ticket_restores_the_version_and_a_dropped_one_kills_its_key_only() {
        let (c, _) = cache().await;
        let table_slot = c.table_slot(T);
        let slot = c
            .tracks
            .versions
            .slot(c.hasher.lookup(item_key(T, &key("a")).unwrap()).hash);
        let v0 = c.item_version(slot, table_slot);
        assert!(v0.quiet());
        let t = c.register(T, &key("a")).unwrap();
        assert_eq!(t.slot, slot);
        assert!(!c.item_version(slot, table_slot).quiet());
        assert!(c.is_clean(&t), "no other write overlapped");
        t.abandon();
        assert_eq!(c.item_version(slot, table_slot), v0, "as if it never began");

        let t = c.register(T, &key("a")).unwrap();
        let other = c.register(T, &key("a")).unwrap();
        assert!(!c.is_clean(&t) && !c.is_clean(&other), "they overlap");
        drop(other);
        drop(t);
        let after = c.item_version(slot, table_slot);
        assert!(after.quiet());
        assert_ne!(after.kill, v0.kill, "a dropped open ticket kills its key");
        assert_eq!(after.table_gen, v0.table_gen, "and leaves the table alone");
        assert_ne!(
            after.flight(),
            v0.flight(),
            "flights begun before are not joined"
        );
    }

    #[tokio::test]
    async fn a_page_snapshot_stops_being_current_when_a_dependency_moves_or_the_epoch_does() {
        let (c, _) = cache().await;
        let a = AttributeValue::S("a".into());
        let hashes = [partition_hash(T, "", &a), index_hash(T, "")];
        let deps = c.snapshot(&hashes);
        assert!(c.is_current(&deps));
        c.invalidate_partition(T, None, &a);
        assert!(!c.is_current(&deps));
        let deps = c.snapshot(&hashes);
        assert!(c.is_current(&deps));
        c.invalidate_all();
        assert!(!c.is_current(&deps));
    }
}
