//! What ties a collection's query to its members: the member traits and the sort-key templates
//! a member reads by.

use crate::entity::Entity;

/// `E`'s sort-key template in the table (`index: None`) or in index `index`: `None` when `E` has
/// no key in the index, `Some(None)` when the key has no sort key.
pub fn sort_template<E: Entity>(index: Option<&str>) -> Option<Option<crate::key::Template>> {
    match index {
        None => Some(E::SK),
        Some(name) => E::INDEXES.iter().find(|t| t.index == name).map(|t| t.sk),
    }
}

/// A collection (`#[derive(Collection)]`, the type its query decodes) that lists entity `E`:
/// what [`super::Query::only`] needs.
#[diagnostic::on_unimplemented(
    message = "`{E}` is not one of this collection's entities",
    label = "not a member of the collection",
    note = "`only::<E>()` narrows a collection's query to one of the entities it lists"
)]
pub trait CollectionMember<E> {}

/// A collection (`#[derive(Collection)]`, the enum its query decodes) declared on the index
/// whose name hashes to `INDEX` (dyno-derive's `index_id`; 0: the table): what the
/// `.collection::<C>()` of a multi-attribute index's typed query needs, so that a collection
/// is read only through the index it was declared (and checked) for.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a collection of this multi-attribute index",
    label = "declared for another index, or not an enum collection",
    note = "declare the collection with `#[dyno(index = <the index>)]` as an enum of the entities mapping fields onto it: `.collection::<C>()` reads that index's partition into `C`"
)]
pub trait CollectionOn<const INDEX: u64> {}

/// Never implemented: what `.collection::<C>()` asks of `C` on a typed query of the table or of
/// an index keyed by templates, where collections are read by their own constructor,
/// `C::query(..)` (see [`QueryDsl`](crate::ops::QueryDsl)'s hidden `collection`). A multi-attribute index's
/// typed query has its own `collection`.
#[diagnostic::on_unimplemented(
    message = "`.collection::<{Self}>()` reads a multi-attribute index's query; on the table or an index keyed by templates, read `{Self}` with `{Self}::query(..)`",
    label = "a query on the table or on an index keyed by templates",
    note = "`{Self}::query(partition)` reads every member of one partition (the partition key fields, a tuple when there are several); `.only::<E>()` narrows it to one member"
)]
pub trait ReadByCollectionQuery {}
