//! The point index: every item's entry by its full key, for point reads (GetItem, and the
//! current item of a write). Each slot is one 64-byte cache line, aligned: the full key's bytes
//! (inline when short) and a copy of the item's [`Entry`], so that a read that finds its key has
//! its entry in the line it compared, and a lookup in a table far larger than the CPU's caches
//! misses on the hash table's control bytes, that one line and the item's `Arc` (the `profile`
//! benchmark's cache simulation; a slot of two `KeyBytes` and an entry was 72
//! bytes, straddling two lines in five slots of eight).

use std::hash::{BuildHasher, Hasher};

use hashbrown::hash_table;
use hashbrown::HashTable;

use super::data::Entry;

/// Every item's entry by its full key (partition key bytes, sort key bytes).
#[derive(Default)]
pub(super) struct Points {
    slots: HashTable<Slot>,
    hasher: foldhash::fast::RandomState,
}

/// One item's full key and a copy of its entry: one cache line.
#[repr(C, align(64))]
struct Slot {
    key: FullKey,
    entry: Entry,
}

const _: () = assert!(std::mem::size_of::<Slot>() == 64);

/// A full key's bytes, the partition key's then the sort key's: inline up to
/// [`FullKey::INLINE`] bytes in all (most keys), else on the heap.
struct FullKey {
    /// The bytes when they do not fit inline (`bytes` then unused).
    heap: Option<Box<HeapKey>>,
    /// The partition key's length, inline.
    pk_len: u8,
    /// Both keys' length, inline.
    len: u8,
    bytes: [u8; FullKey::INLINE],
}

const _: () = assert!(std::mem::size_of::<FullKey>() == 40);

/// A full key too long to sit inline.
struct HeapKey {
    pk_len: usize,
    bytes: Box<[u8]>,
}

impl FullKey {
    /// The longest full key kept inline.
    const INLINE: usize = 30;

    fn new(pk: &[u8], sk: &[u8]) -> Self {
        let len = pk.len() + sk.len();
        if len <= Self::INLINE {
            let mut bytes = [0; Self::INLINE];
            bytes[..pk.len()].copy_from_slice(pk);
            bytes[pk.len()..len].copy_from_slice(sk);
            // Both lengths are at most INLINE (30), so they fit a byte.
            FullKey {
                heap: None,
                pk_len: pk.len() as u8,
                len: len as u8,
                bytes,
            }
        } else {
            FullKey {
                heap: Some(Box::new(HeapKey {
                    pk_len: pk.len(),
                    bytes: [pk, sk].concat().into_boxed_slice(),
                })),
                pk_len: 0,
                len: 0,
                bytes: [0; Self::INLINE],
            }
        }
    }

    /// The partition key's bytes and the sort key's.
    #[inline]
    fn parts(&self) -> (&[u8], &[u8]) {
        match &self.heap {
            None => self.bytes[..usize::from(self.len)].split_at(usize::from(self.pk_len)),
            Some(heap) => heap.bytes.split_at(heap.pk_len),
        }
    }

    #[inline]
    fn is(&self, pk: &[u8], sk: &[u8]) -> bool {
        self.parts() == (pk, sk)
    }
}

/// The hash of a full key: the partition key's length, then both keys' bytes (the length keeps
/// `("ab", "c")` and `("a", "bc")` apart).
#[inline]
fn hash(hasher: &foldhash::fast::RandomState, pk: &[u8], sk: &[u8]) -> u64 {
    let mut h = hasher.build_hasher();
    h.write_usize(pk.len());
    h.write(pk);
    h.write(sk);
    h.finish()
}

impl Points {
    /// The entry at a full key.
    #[inline]
    pub(super) fn get(&self, pk: &[u8], sk: &[u8]) -> Option<&Entry> {
        let hash = hash(&self.hasher, pk, sk);
        self.slots
            .find(hash, |slot| slot.key.is(pk, sk))
            .map(|slot| &slot.entry)
    }

    /// The entry at a full key, to change in place.
    pub(super) fn get_mut(&mut self, pk: &[u8], sk: &[u8]) -> Option<&mut Entry> {
        let hash = hash(&self.hasher, pk, sk);
        self.slots
            .find_mut(hash, |slot| slot.key.is(pk, sk))
            .map(|slot| &mut slot.entry)
    }

    /// Sets the entry at a full key, replacing the one there.
    pub(super) fn insert(&mut self, pk: &[u8], sk: &[u8], entry: Entry) {
        let Points { slots, hasher } = self;
        let found = slots.entry(
            hash(hasher, pk, sk),
            |slot| slot.key.is(pk, sk),
            |slot| {
                let (pk, sk) = slot.key.parts();
                hash(hasher, pk, sk)
            },
        );
        match found {
            hash_table::Entry::Occupied(mut slot) => slot.get_mut().entry = entry,
            hash_table::Entry::Vacant(slot) => {
                slot.insert(Slot {
                    key: FullKey::new(pk, sk),
                    entry,
                });
            }
        }
    }

    /// Removes the entry at a full key.
    pub(super) fn remove(&mut self, pk: &[u8], sk: &[u8]) -> Option<Entry> {
        let hash = hash(&self.hasher, pk, sk);
        let slot = self
            .slots
            .find_entry(hash, |slot| slot.key.is(pk, sk))
            .ok()?;
        Some(slot.remove().0.entry)
    }

    /// Number of entries.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.slots.len()
    }
}

impl std::fmt::Debug for Points {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Points")
            .field("len", &self.slots.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::store::memory::data::Expiry;

    fn entry(size: usize) -> Entry {
        Entry {
            item: Arc::new(crate::Item::new()),
            size,
            expires: Expiry::NEVER,
        }
    }

    /// Keys inline and on the heap, and two splits of the same bytes, are told apart; a key is
    /// found, replaced and removed by its parts.
    #[test]
    fn full_keys_are_found_by_both_parts_inline_or_not() {
        let long = "L".repeat(2048);
        let keys: [(&[u8], &[u8]); 6] = [
            (b"ab", b"c"),
            (b"a", b"bc"),
            (b"abc", b""),
            (b"USER#0123456789", b"ORDER#01234567"),
            (b"USER#0123456789", b"ORDER#012345678"),
            (long.as_bytes(), b"x"),
        ];
        let mut points = Points::default();
        for (i, (pk, sk)) in keys.iter().enumerate() {
            points.insert(pk, sk, entry(i));
        }
        assert_eq!(points.len(), keys.len());
        for (i, (pk, sk)) in keys.iter().enumerate() {
            assert_eq!(points.get(pk, sk).map(|e| e.size), Some(i), "{i}");
        }
        assert!(points.get(b"abc", b"x").is_none());
        points.insert(b"a", b"bc", entry(10));
        assert_eq!(points.len(), keys.len(), "replaced, not added");
        assert_eq!(points.get(b"a", b"bc").map(|e| e.size), Some(10));
        points.get_mut(long.as_bytes(), b"x").unwrap().size = 11;
        assert_eq!(
            points.remove(long.as_bytes(), b"x").map(|e| e.size),
            Some(11)
        );
        assert!(points.get(long.as_bytes(), b"x").is_none());
        assert!(points.remove(long.as_bytes(), b"x").is_none());
        assert_eq!(points.len(), keys.len() - 1);
    }
}
