//! Typed shared hits: [`CachedStore::get_shared`] returns an `Arc<E>` the cache keeps decoded
//! beside the item, so a hit decodes nothing.

use std::any::Any;
use std::sync::Arc;

use dyno_core::error::Result;
use dyno_core::ops::{is_expired, Key};
use dyno_core::store::{GetRequest, Store};
use dyno_core::value::{item_size, Item, SharedItem};
use dyno_core::{Entity, Table};

use crate::store::CachedStore;

/// A decoded entity kept in an item entry, as `Arc<E>` behind `Any`.
pub(crate) type Decoded = Arc<dyn Any + Send + Sync>;

/// Bytes charged for keeping `E` decoded beside `item`: the struct, plus its heap data estimated
/// by the item's size (strings and numbers decode to about as many bytes as DynamoDB counts).
pub(crate) fn decoded_weight<E>(item: &Item) -> usize {
    std::mem::size_of::<E>() + item_size(item)
}

impl<S: Store> CachedStore<S> {
    /// Reads one `E` by key, like `E::get(key).send(&cached)`, but hands out the cache's own
    /// decoded copy: the first read of an item decodes it and keeps the `Arc<E>` beside the item
    /// (charged to the item cache's byte budget); every later hit returns a clone of that `Arc`
    /// without decoding. `None` when the item is absent or its TTL attribute has passed.
    ///
    /// Everything else is the plain get's: the same entry (a write through the cache replaces
    /// it, decoded copy included), the same misses, single flight and metrics. The owned
    /// `E::get(key).send(&cached)` still works and decodes on every call.
    ///
    /// ```
    /// # use dyno_cache::CachedStore;
    /// # use dyno_core::{Entity, MemoryStore, Store, Table};
    /// # use dyno_core::ops::EntityExt;
    /// # #[derive(Table)] #[dyno(name = "Shop", pk = "PK", sk = "SK")] struct Shop;
    /// # #[derive(Debug, Clone, PartialEq, Entity)]
    /// # #[dyno(table = Shop, pk = "PRODUCT#{id}", sk = "PRODUCT")]
    /// # struct Product { id: String, stock: u32 }
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// # let memory = MemoryStore::new();
    /// # memory.create_table(Shop::definition()).await?;
    /// let cached = CachedStore::new(memory);
    /// Product { id: "p1".into(), stock: 5 }.put().send(&cached).await?;
    /// let key = Product::key("p1");
    /// let a = cached.get_shared(&key).await?.expect("stored");
    /// let b = cached.get_shared(&key).await?.expect("stored");
    /// assert!(std::sync::Arc::ptr_eq(&a, &b)); // one decoded copy, shared
    /// assert_eq!(a.stock, 5);
    /// # Ok::<(), dyno_core::Error>(()) }).unwrap();
    /// ```
    pub async fn get_shared<E: Entity>(&self, key: &Key<E>) -> Result<Option<Arc<E>>> {
        let attrs = key.try_as_item()?;
        let table = &<E::Table as Table>::definition().name;
        let ttl =
            E::TTL_ATTRIBUTE.or_else(|| <E::Table as Table>::definition().ttl_attribute.as_deref());
        let visible = |item: &Item| !ttl.is_some_and(|t| is_expired(item, t));
        if let Some((item, decoded)) = self.shared_hit(table, attrs).await {
            return match item {
                Some(item) if visible(&item) => {
                    match decoded.and_then(|d| d.downcast::<E>().ok()) {
                        Some(shared) => Ok(Some(shared)),
                        // Not decoded yet (or kept as another type): decode once, keep it.
                        None => self.decode_and_keep(table, attrs, item).await.map(Some),
                    }
                }
                _ => Ok(None),
            };
        }
        let out = self
            .get_item(GetRequest::borrowed(table, attrs))
            .await
            .map_err(|e| e.for_entity(E::ENTITY_TYPE))?;
        match out.item {
            Some(item) if visible(&item) => {
                self.decode_and_keep(table, attrs, item).await.map(Some)
            }
            _ => Ok(None),
        }
    }

    /// Decodes `item` as `E` and keeps the result beside it, if the entry still holds it.
    async fn decode_and_keep<E: Entity>(
        &self,
        table: &str,
        attrs: &Item,
        item: SharedItem,
    ) -> Result<Arc<E>> {
        let decoded = Arc::new(E::from_item(&item).map_err(|e| e.for_entity(E::ENTITY_TYPE))?);
        let weight = decoded_weight::<E>(&item);
        self.keep_decoded(table, attrs, &item, decoded.clone(), weight)
            .await;
        Ok(decoded)
    }
}
