//! What the cache needs to know of a table: its key attributes (to find an item's key in a put),
//! its indexes (to find the partitions a write touches) and its TTL attribute.

use std::time::Duration;

use dyno_core::table::TableDef;
use dyno_core::value::{AttributeValue, Item};

use crate::key::{index_hash, partition_hash, partition_parts_hash, scan_hash};

/// A global secondary index's key attributes, in key order (several of each for a
/// multi-attribute key).
#[derive(Debug)]
pub(crate) struct Gsi {
    name: String,
    pk: Vec<String>,
    sk: Vec<String>,
}

/// The parts of a [`TableDef`] the cache uses.
#[derive(Debug)]
pub(crate) struct TableInfo {
    pub(crate) name: String,
    pk: String,
    sk: Option<String>,
    gsis: Vec<Gsi>,
    lsis: Vec<String>,
    ttl: Option<String>,
}

/// What is known of an item's image before or after a write: what
/// [`crate::CachedStore::apply_change`] takes from a change record.
#[derive(Debug, Clone, Copy)]
pub enum Image<'a> {
    /// The item does not exist.
    Absent,
    /// The item, whole.
    Present(&'a Item),
    /// Not known (the backend did not say and the cache has no fresh copy).
    Unknown,
}

impl<'a> Image<'a> {
    /// `Present` for `Some`, `Absent` for `None`.
    pub fn from_option(item: Option<&'a Item>) -> Self {
        item.map_or(Image::Absent, Image::Present)
    }
}

impl TableInfo {
    pub(crate) fn from_def(def: &TableDef) -> Self {
        TableInfo {
            name: def.name.clone(),
            pk: def.partition_key.name.clone(),
            sk: def.sort_key.as_ref().map(|k| k.name.clone()),
            gsis: def
                .global_indexes
                .iter()
                .map(|i| Gsi {
                    name: i.name.clone(),
                    pk: i.partition_keys().map(|k| k.name.clone()).collect(),
                    sk: i.sort_keys().map(|k| k.name.clone()).collect(),
                })
                .collect(),
            lsis: def.local_indexes.iter().map(|i| i.name.clone()).collect(),
            ttl: def.ttl_attribute.clone(),
        }
    }

    /// The same schema under the name requests use.
    pub(crate) fn named(mut self, name: &str) -> Self {
        name.clone_into(&mut self.name);
        self
    }

    /// The names of the table's secondary indexes, and `""` for the table itself.
    pub(crate) fn index_names(&self) -> impl Iterator<Item = &str> {
        std::iter::once("")
            .chain(self.gsis.iter().map(|g| g.name.as_str()))
            .chain(self.lsis.iter().map(String::as_str))
    }

    /// The primary key of `item`, or `None` when a key attribute is missing (the backend will
    /// reject the write).
    pub(crate) fn key_of(&self, item: &Item) -> Option<Item> {
        let mut key = Item::with_capacity(2);
        key.insert(self.pk.clone(), item.get(&self.pk)?.clone());
        if let Some(sk) = &self.sk {
            key.insert(sk.clone(), item.get(sk)?.clone());
        }
        Some(key)
    }

    /// When `item` expires by its TTL attribute (since the epoch), as read at `now`: `None` when
    /// it never will (see [`dyno_core::ttl::expiry`]), or so late that a `Duration` cannot say.
    pub(crate) fn ttl_deadline(&self, item: &Item, now: Duration) -> Option<Duration> {
        let at = dyno_core::ttl::expiry(item, self.ttl.as_ref()?, now.as_secs_f64())?;
        Duration::try_from_secs_f64(at.max(0.0)).ok()
    }

    /// The stripe hashes of every query-cache generation a write to `key` invalidates, given
    /// what is known of the item before and after it. `touched` lists the top-level attributes
    /// an update writes (`None`: the whole item may change, as with a put or delete).
    ///
    /// - the table partition of the key, and the same partition of every LSI;
    /// - for each GSI, the partition of the old image and that of the new image; where an image
    ///   is unknown, the whole index, unless the write cannot have moved the item between
    ///   partitions (an update that leaves the index keys alone) and the other image is known;
    /// - the table's scan generation.
    pub(crate) fn affected(
        &self,
        key: &Item,
        old: Image<'_>,
        new: Image<'_>,
        touched: Option<&[String]>,
    ) -> Vec<u64> {
        let table = &self.name;
        let mut out = vec![scan_hash(table)];
        match key.get(&self.pk) {
            Some(pk) => {
                out.push(partition_hash(table, "", pk));
                out.extend(self.lsis.iter().map(|l| partition_hash(table, l, pk)));
            }
            None => {
                out.push(index_hash(table, ""));
                out.extend(self.lsis.iter().map(|l| index_hash(table, l)));
            }
        }
        for gsi in &self.gsis {
            let keys_untouched = touched
                .is_some_and(|t| !t.iter().any(|a| gsi.pk.contains(a) || gsi.sk.contains(a)));
            for (this, other) in [(old, new), (new, old)] {
                match this {
                    Image::Present(item) => {
                        // In the index only with every partition attribute.
                        let parts: Option<Vec<(&str, &AttributeValue)>> = gsi
                            .pk
                            .iter()
                            .map(|a| Some((a.as_str(), item.get(a)?)))
                            .collect();
                        if let Some(mut parts) = parts {
                            out.push(partition_parts_hash(table, &gsi.name, &mut parts));
                        }
                    }
                    Image::Absent => {}
                    // Same partition as the other image, which is pushed on its own turn.
                    Image::Unknown if keys_untouched && !matches!(other, Image::Unknown) => {}
                    Image::Unknown => out.push(index_hash(table, &gsi.name)),
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use dyno_core::table::IndexDef;
    use dyno_core::value::AttributeValue;

    use super::*;

    fn def() -> TableDef {
        TableDef::new("T", "PK", Some("SK"))
            .global_index(IndexDef::new("GSI1", "GSI1PK", Some("GSI1SK")))
            .local_index(IndexDef::new("LSI1", "PK", Some("LSI1SK")))
            .ttl("ttl")
    }

    fn item(pairs: &[(&str, &str)]) -> Item {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), AttributeValue::S((*v).to_owned())))
            .collect()
    }

    #[test]
    fn a_put_that_moves_an_item_between_gsi_partitions_touches_both() {
        let info = TableInfo::from_def(&def());
        let key = item(&[("PK", "U#1"), ("SK", "O#1")]);
        let old = item(&[("PK", "U#1"), ("SK", "O#1"), ("GSI1PK", "STATUS#new")]);
        let new = item(&[("PK", "U#1"), ("SK", "O#1"), ("GSI1PK", "STATUS#shipped")]);
        let got = info.affected(&key, Image::Present(&old), Image::Present(&new), None);
        let pk = AttributeValue::S("U#1".into());
        let mut want = vec![
            scan_hash("T"),
            partition_hash("T", "", &pk),
            partition_hash("T", "LSI1", &pk),
            partition_hash("T", "GSI1", &AttributeValue::S("STATUS#new".into())),
            partition_hash("T", "GSI1", &AttributeValue::S("STATUS#shipped".into())),
        ];
        want.sort_unstable();
        assert_eq!(got, want);
    }

    #[test]
    fn an_unknown_image_costs_the_whole_index_unless_the_update_leaves_its_keys_alone() {
        let info = TableInfo::from_def(&def());
        let key = item(&[("PK", "U#1"), ("SK", "O#1")]);
        let new = item(&[("PK", "U#1"), ("SK", "O#1"), ("GSI1PK", "A")]);
        let whole = index_hash("T", "GSI1");
        assert!(info
            .affected(&key, Image::Unknown, Image::Present(&new), None)
            .contains(&whole));
        let touched = vec!["total".to_owned()];
        assert!(!info
            .affected(&key, Image::Unknown, Image::Present(&new), Some(&touched))
            .contains(&whole));
        let touched = vec!["GSI1SK".to_owned()];
        assert!(info
            .affected(&key, Image::Unknown, Image::Present(&new), Some(&touched))
            .contains(&whole));
        assert!(info
            .affected(
                &key,
                Image::Unknown,
                Image::Unknown,
                Some(&["x".to_owned()])
            )
            .contains(&whole));
    }

    #[test]
    fn multi_attribute_partitions_hash_every_part_in_any_order() {
        use dyno_core::table::KeyAttribute;
        let def = TableDef::new("T", "PK", Some("SK")).global_index(
            IndexDef::multi(
                "M",
                [
                    KeyAttribute::string("tenant"),
                    KeyAttribute::string("status"),
                ],
                [KeyAttribute::string("created")],
            )
            .unwrap(),
        );
        let info = TableInfo::from_def(&def);
        let key = item(&[("PK", "U#1"), ("SK", "O#1")]);
        let old = item(&[
            ("PK", "U#1"),
            ("SK", "O#1"),
            ("tenant", "a"),
            ("status", "open"),
        ]);
        let new = item(&[
            ("PK", "U#1"),
            ("SK", "O#1"),
            ("tenant", "a"),
            ("status", "done"),
        ]);
        let (a, open, done) = (
            AttributeValue::S("a".into()),
            AttributeValue::S("open".into()),
            AttributeValue::S("done".into()),
        );
        let got = info.affected(&key, Image::Present(&old), Image::Present(&new), None);
        // What a query giving the parts in either order looks up.
        for parts in [
            vec![("tenant", &a), ("status", &open)],
            vec![("status", &open), ("tenant", &a)],
            vec![("status", &done), ("tenant", &a)],
        ] {
            let mut parts = parts;
            assert!(got.contains(&partition_parts_hash("T", "M", &mut parts)));
        }
        // Not the first attribute alone, which names no partition of this index.
        assert!(!got.contains(&partition_hash("T", "M", &a)));
        // An item without every partition attribute is in no partition of the index.
        let partial = item(&[("PK", "U#1"), ("SK", "O#1"), ("tenant", "a")]);
        let got = info.affected(&key, Image::Absent, Image::Present(&partial), None);
        assert_eq!(
            got.len(),
            2,
            "scan, table partition, nothing for M: {got:?}"
        );
        // An update of the second partition attribute with the old image unknown costs the
        // whole index.
        let touched = vec!["status".to_owned()];
        assert!(info
            .affected(&key, Image::Unknown, Image::Present(&new), Some(&touched))
            .contains(&index_hash("T", "M")));
    }

    #[test]
    fn key_of_and_ttl_deadline() {
        let info = TableInfo::from_def(&def());
        let mut it = item(&[("PK", "a"), ("SK", "b"), ("x", "y")]);
        assert_eq!(info.key_of(&it), Some(item(&[("PK", "a"), ("SK", "b")])));
        assert_eq!(info.key_of(&item(&[("PK", "a")])), None);
        let now = Duration::from_secs(1_000);
        it.insert("ttl".into(), AttributeValue::N("100".into()));
        assert_eq!(info.ttl_deadline(&it, now), Some(Duration::from_secs(100)));
        // Before the fix: `from_secs_f64` panicked on a number this large.
        it.insert("ttl".into(), AttributeValue::N("1e300".into()));
        assert_eq!(info.ttl_deadline(&it, now), None, "too late to say: never");
        // More than five years past: DynamoDB never deletes the item.
        let later = now + dyno_core::ttl::MAX_AGE + Duration::from_secs(1_000);
        it.insert("ttl".into(), AttributeValue::N("100".into()));
        assert_eq!(info.ttl_deadline(&it, later), None);
    }
}
