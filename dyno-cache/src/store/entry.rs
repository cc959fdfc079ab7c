//! What the two caches hold: item entries and query pages, how much each weighs against the
//! byte budget, when it expires, and when an entry may be served.

use super::*;

/// Bytes charged per entry on top of its key and item, for moka's and our bookkeeping.
pub(super) const ENTRY_OVERHEAD: usize = 96;

/// An item-cache entry: the item, or `None` for "not found" (a tombstone).
#[derive(Clone)]
pub(super) struct ItemEntry {
    pub(super) item: Option<SharedItem>,
    pub(super) expires_at: Duration,
    pub(super) ttl: Duration,
    pub(super) weight: u32,
    /// The table's item generation (slot, value) when installed: the entry is dead once it
    /// moves ([`CachedStore::invalidate_table`]).
    pub(super) table: (usize, u64),
    /// The key's kill counter (slot, value) when installed: the entry is dead once it moves (a
    /// write to the key cancelled mid-flight, whose outcome is unknown).
    pub(super) kill: (usize, u64),
    /// The item decoded by [`CachedStore::get_shared`], once it has been (its bytes are in
    /// `weight`).
    pub(super) decoded: Option<Decoded>,
}

/// The query-cache generations a page was read under.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct Deps {
    pub(super) epoch: u64,
    pub(super) len: usize,
    pub(super) slots: [(usize, u64); 2],
}

impl Deps {
    /// No write to what the page depends on was in flight.
    pub(super) fn quiet(&self) -> bool {
        self.slots[..self.len].iter().all(|(_, g)| pending(*g) == 0)
    }

    /// One number that moves whenever any of the counters moves (they only grow).
    pub(super) fn version(&self) -> u64 {
        self.slots[..self.len]
            .iter()
            .fold(self.epoch, |v, (_, g)| v.wrapping_add(*g))
    }
}

/// A query-cache entry: one page and the generations it is valid for.
#[derive(Clone)]
pub(super) struct PageEntry {
    pub(super) page: Arc<Page>,
    pub(super) expires_at: Duration,
    pub(super) ttl: Duration,
    pub(super) weight: u32,
    pub(super) deps: Deps,
    /// The table's item-generation slot: its lease decides whether the page may be served.
    pub(super) table_slot: usize,
}

pub(super) trait Expiring {
    fn ttl(&self) -> Duration;
}

impl Expiring for ItemEntry {
    fn ttl(&self) -> Duration {
        self.ttl
    }
}

impl Expiring for PageEntry {
    fn ttl(&self) -> Duration {
        self.ttl
    }
}

/// Lets moka drop entries when their TTL passes by its own clock, so expired entries do not
/// hold memory; freshness on read is decided by the injected clock.
pub(super) struct EntryExpiry;

impl<V: Expiring> Expiry<CacheKey, V> for EntryExpiry {
    fn expire_after_create(&self, _: &CacheKey, value: &V, _: Instant) -> Option<Duration> {
        Some(value.ttl())
    }

    fn expire_after_update(
        &self,
        _: &CacheKey,
        value: &V,
        _: Instant,
        _: Option<Duration>,
    ) -> Option<Duration> {
        Some(value.ttl())
    }
}

pub(super) fn weight(key_len: usize, bytes: usize) -> u32 {
    u32::try_from(key_len + bytes + ENTRY_OVERHEAD).unwrap_or(u32::MAX)
}

impl<S: Store> CachedStore<S> {
    /// An entry may be served: fresh by the injected clock, its table not invalidated and no
    /// write to its key cancelled since it was installed.
    pub(super) fn live(&self, entry: &ItemEntry, now: Duration) -> bool {
        entry.expires_at > now
            && self.tracks.generations.load(entry.table.0) == entry.table.1
            && self.leases.serves(entry.table.0, now)
            && self.tracks.kills.load(entry.kill.0) == entry.kill.1
    }

    /// When an item (or a tombstone, `None`) installed now should expire, and its TTL; `None`
    /// when it should not be cached at all (zero TTL, or its TTL attribute has passed).
    pub(super) fn item_expiry(
        &self,
        item: Option<&Item>,
        info: Option<&TableInfo>,
        ttl_override: Option<Duration>,
    ) -> Option<(Duration, Duration)> {
        let base = ttl_override.unwrap_or_else(|| match item {
            None => self.ttls.negative,
            Some(item) => self.entity_ttl(item).unwrap_or(self.ttls.item),
        });
        let ttl = self.ttls.jittered(base);
        if ttl.is_zero() {
            return None;
        }
        let now = self.clock.now();
        let mut expires = now + ttl;
        if let (Some(item), Some(info)) = (item, info)
            && let Some(deadline) = info.ttl_deadline(item, now)
        {
            if deadline <= now {
                return None;
            }
            expires = expires.min(deadline);
        }
        Some((expires, expires - now))
    }

    pub(super) fn entity_ttl(&self, item: &Item) -> Option<Duration> {
        if self.ttls.entity.is_empty() {
            return None;
        }
        match item.get(&self.ttls.entity_attribute)? {
            AttributeValue::S(entity) => self.ttls.entity.get(entity).copied(),
            _ => None,
        }
    }

    pub(super) fn item_entry(
        &self,
        key_len: usize,
        item: Option<SharedItem>,
        expiry: (Duration, Duration),
        version: &ItemVersion,
    ) -> ItemEntry {
        let bytes = item.as_deref().map_or(0, item_size);
        ItemEntry {
            item,
            expires_at: expiry.0,
            ttl: expiry.1,
            weight: weight(key_len, bytes),
            table: (version.table_slot, version.table_gen),
            kill: (version.slot, version.kill),
            decoded: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::*;
    use super::*;

    #[test]
    fn an_entry_weighs_its_key_its_item_and_the_overhead_saturating() {
        assert_eq!(weight(10, 100), 110 + ENTRY_OVERHEAD as u32);
        assert_eq!(weight(u32::MAX as usize, 10), u32::MAX);
    }

    #[test]
    fn deps_are_quiet_without_writes_in_flight_and_their_version_moves_with_any_counter() {
        let stripes = Stripes::new(4);
        let snap = |len| Deps {
            epoch: 7,
            len,
            slots: [(1, stripes.load(1)), (2, stripes.load(2))],
        };
        let before = snap(2);
        assert!(before.quiet());
        stripes.begin(2);
        let during = snap(2);
        assert!(!during.quiet());
        assert!(
            snap(1).quiet(),
            "a page of one dependency ignores the second slot"
        );
        assert_ne!(during.version(), before.version());
        stripes.end(2);
        assert!(snap(2).quiet());
        assert_ne!(snap(2).version(), before.version(), "the end moved it too");
    }

    #[tokio::test]
    async fn an_entry_is_live_until_it_expires_its_table_is_invalidated_or_its_key_killed() {
        let (c, _) = cache().await;
        c.put_item(put(item("a", "1"))).await.unwrap();
        c.put_item(put(item("b", "1"))).await.unwrap();
        let (a, b) = (entry(&c, "a").await.unwrap(), entry(&c, "b").await.unwrap());
        let now = c.clock.now();
        assert!(c.live(&a, now) && c.live(&b, now));
        assert!(!c.live(&a, a.expires_at), "expired at its deadline");
        c.tracks.kills.bump(a.kill.0);
        assert!(!c.live(&a, now), "its key's kill counter moved");
        if b.kill.0 != a.kill.0 {
            assert!(c.live(&b, now), "another key's entry is not killed");
        }
        c.invalidate_table(T).await.unwrap();
        assert!(!c.live(&b, now), "the table was invalidated");
    }

    #[tokio::test]
    async fn an_items_ttl_attribute_caps_its_expiry_and_a_passed_one_is_not_cached() {
        let (c, clock) = cache().await;
        clock.set(Duration::from_secs(1_000_000));
        let info = c.known_table(T).unwrap();
        let mut soon = item("a", "1");
        soon.insert("ttl".into(), AttributeValue::N("1000010".into()));
        assert_eq!(
            c.item_expiry(Some(&soon), Some(&info), None),
            Some((Duration::from_secs(1_000_010), Duration::from_secs(10)))
        );
        let mut gone = item("a", "1");
        gone.insert("ttl".into(), AttributeValue::N("999999".into()));
        assert_eq!(c.item_expiry(Some(&gone), Some(&info), None), None);
        let plain = c.item_expiry(Some(&item("a", "1")), Some(&info), None);
        assert_eq!(plain.map(|e| e.1), Some(c.ttls.item));
        let tombstone = c.item_expiry(None, Some(&info), None);
        assert_eq!(tombstone.map(|e| e.1), Some(c.ttls.negative));
        let overridden = c.item_expiry(None, Some(&info), Some(Duration::from_secs(3)));
        assert_eq!(overridden.map(|e| e.1), Some(Duration::from_secs(3)));
        assert_eq!(c.item_expiry(None, None, Some(Duration::ZERO)), None);
    }
}
