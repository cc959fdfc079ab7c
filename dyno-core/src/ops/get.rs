//! Typed GetItem.

use std::fmt;

use tracing::Instrument;

use super::entity_rules::{decode, table_def, Owner};
use super::Key;
use crate::entity::Entity;
use crate::error::Result;
use crate::store::{GetRequest, Store, Tag};
use crate::value::SharedItem;

/// Reads one `E` by key; built by [`super::EntityExt::get`]. An item whose TTL attribute is in the
/// past reads as absent, and so does another entity's item at the same key (entities sharing a key
/// shape): its entity-type attribute names another type.
#[must_use = "a get does nothing until it is sent"]
pub struct Get<E: Entity> {
    key: Key<E>,
    consistent: bool,
}

impl<E: Entity> fmt::Debug for Get<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Get")
            .field("entity", &E::ENTITY_TYPE)
            .field("key", &self.key)
            .field("consistent", &self.consistent)
            .finish()
    }
}

impl<E: Entity> Get<E> {
    /// A get of `key`.
    pub fn new(key: Key<E>) -> Self {
        Get {
            key,
            consistent: false,
        }
    }

    /// A strongly consistent read.
    pub fn consistent(mut self) -> Self {
        self.consistent = true;
        self
    }

    /// The request this get sends (borrowing the key), or the error of an invalid key.
    pub fn request(&self) -> Result<GetRequest<'_>> {
        Ok(GetRequest {
            consistent_read: self.consistent,
            tag: Tag::entity::<E>(),
            ..GetRequest::borrowed(
                &table_def::<E>().name,
                super::key_limits::key_ref(&self.key)?,
            )
        })
    }

    /// The request this get sends, owning the key: the store hands it to the server without
    /// copying it.
    fn into_request(self) -> Result<GetRequest<'static>> {
        super::key_limits::key_ref(&self.key)?;
        Ok(GetRequest {
            consistent_read: self.consistent,
            tag: Tag::entity::<E>(),
            ..GetRequest::new(table_def::<E>().name.as_str(), self.key.into_item())
        })
    }

    /// Reads the item: `None` when absent, expired or another entity's.
    pub async fn send<S: Store + ?Sized>(self, store: &S) -> Result<Option<E>> {
        let request = self.into_request()?;
        match read_one(store, Owner::of::<E>(), request).await? {
            Some(item) => decode::<E>(&item).map(Some),
            None => Ok(None),
        }
    }
}

/// [`Get::send`] up to decoding, compiled once per store type: the item read, unless absent,
/// expired or another entity's.
async fn read_one<S: Store + ?Sized>(
    store: &S,
    owner: Owner,
    request: GetRequest<'static>,
) -> Result<Option<SharedItem>> {
    let span = tracing::debug_span!("dyno.get", entity = owner.entity());
    let out = store
        .get_item(request)
        .instrument(span)
        .await
        .map_err(|e| e.for_entity(owner.entity()))?;
    Ok(out.item.filter(|item| owner.readable(item)))
}

#[cfg(all(test, feature = "derive", feature = "memory"))]
mod tests {
    use std::borrow::Cow;
    use std::sync::atomic::{AtomicBool, Ordering};

    use crate::prelude::*;
    use crate::store::{GetOutput, GetRequest};

    #[derive(Table)]
    #[dyno(name = "Notes", pk = "PK", sk = "SK")]
    struct Notes;

    #[derive(Debug, Clone, PartialEq, Entity)]
    #[dyno(table = Notes, pk = "USER#{user}", sk = "NOTE#{n}")]
    struct Note {
        user: String,
        n: u32,
    }

    /// A MemoryStore that notes whether the last get's key came owned or lent.
    #[derive(Debug)]
    struct KeyOwnership {
        inner: MemoryStore,
        owned: AtomicBool,
    }

    #[async_trait::async_trait]
    impl crate::store::forward::Forward for KeyOwnership {
        type Inner = MemoryStore;
        fn inner(&self) -> &MemoryStore {
            &self.inner
        }
        async fn get_item(&self, r: GetRequest<'_>) -> Result<GetOutput> {
            self.owned
                .store(matches!(r.key, Cow::Owned(_)), Ordering::SeqCst);
            self.inner.get_item(r).await
        }
    }

    /// `send` gives the store the key it owns: the SDK-backed store moves it into the request
    /// instead of copying a lent one (a map and its strings per get).
    #[tokio::test]
    async fn a_sent_get_hands_its_key_to_the_store() {
        let store = KeyOwnership {
            inner: MemoryStore::new(),
            owned: AtomicBool::new(false),
        };
        store.create_table(Notes::definition()).await.unwrap();
        let note = Note {
            user: "u".into(),
            n: 1,
        };
        note.put().send(&store).await.unwrap();
        let read = Note::get(Note::key("u", 1u32)).send(&store).await.unwrap();
        assert_eq!(read, Some(note));
        assert!(
            store.owned.load(Ordering::SeqCst),
            "the typed get lent its key to the store"
        );
    }
}
