//! Sharded index keys, for hot partitions: an index partition key carries a shard suffix
//! (`STATUS#PENDING#3`) computed from the item's primary key, so writes of one logical partition
//! spread over several; a query reads every shard ([`shard_keys`]) and merges them in sort-key
//! order.
//!
//! ```
//! use dyno_core::ops::shard::{push_shard, shard_keys, shard_of};
//! use dyno_core::{AttributeValue, Item};
//!
//! let key = Item::from([("PK".to_owned(), AttributeValue::S("ORDER#1".into()))]);
//! let shard = shard_of(&key, "PK", None, 4);
//! assert!(shard < 4);
//! let mut pk = "STATUS#PENDING".to_owned();
//! push_shard(&mut pk, shard);
//! assert!(shard_keys("STATUS#PENDING", 4).contains(&pk));
//! ```

use crate::hash::Fnv1a;
use crate::key::DELIMITER;
use crate::value::{AttributeValue, Item};

/// The shard (`0..shards`) of an item, from a stable hash (FNV-1a) of its primary key
/// attributes `pk` and `sk`, so an item keeps its shard across writes and updates can recompute
/// it from the key alone.
pub fn shard_of(key: &Item, pk: &str, sk: Option<&str>, shards: u32) -> u32 {
    let mut hash = Fnv1a::new();
    for name in std::iter::once(pk).chain(sk) {
        match key.get(name) {
            Some(AttributeValue::S(s)) => hash.write(s.as_bytes()),
            Some(AttributeValue::N(n)) => hash.write(n.as_bytes()),
            Some(AttributeValue::B(b)) => hash.write(b.as_ref()),
            _ => {}
        }
        hash.write(&[0xff]);
    }
    (hash.finish() % u64::from(shards.max(1))) as u32
}

/// Appends the shard suffix `#<n>` to an index partition key.
pub fn push_shard(key: &mut String, shard: u32) {
    use std::fmt::Write;
    let _ = write!(key, "{DELIMITER}{shard}");
}

/// The partition key values of every shard of `base`.
pub fn shard_keys(base: &str, shards: u32) -> Vec<String> {
    (0..shards.max(1))
        .map(|n| {
            let mut k = base.to_owned();
            push_shard(&mut k, n);
            k
        })
        .collect()
}
