//! Derive macros for dyno: `#[derive(Table)]`, `#[derive(Entity)]`, `#[derive(KeyPart)]`,
//! `#[derive(Projection)]` and `#[derive(Collection)]`. Use them through `dyno_core`, which
//! re-exports them; the generated code refers to `::dyno_core::__private` only.
//!
//! Each entry point parses the input (`ast`, `attr`), checks the rules that span fields
//! (`check`), and generates code (`expand`); on error it emits every error found plus a stub
//! impl, so one mistake gives one message.
//!
//! ```
//! use dyno_core::{Entity, KeyPart, Table};
//!
//! #[derive(Table)]
//! #[dyno(name = "ECommerce", pk = "PK", sk = "SK", ttl = "ttl")]
//! #[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
//! struct ECommerce;
//!
//! #[derive(Debug, Clone, Copy, PartialEq, KeyPart)]
//! #[dyno(rename_all = "SCREAMING_SNAKE_CASE")]
//! enum OrderStatus {
//!     Pending,
//!     Shipped,
//! }
//!
//! #[derive(Debug, Entity)]
//! #[dyno(table = ECommerce, pk = "USER#{user_id}", sk = "ORDER#{order_id}")]
//! #[dyno(index(GSI1, pk = "STATUS#{status}", sk = "{placed_on}"))]
//! struct Order {
//!     user_id: String,
//!     order_id: String,
//!     status: OrderStatus,
//!     placed_on: String,
//!     total: u64,
//!     #[dyno(version)]
//!     version: u64,
//! }
//!
//! let order = Order {
//!     user_id: "u1".into(),
//!     order_id: "o1".into(),
//!     status: OrderStatus::Shipped,
//!     placed_on: "2024-05-01".into(),
//!     total: 42,
//!     version: 0,
//! };
//! let item = order.to_item()?;
//! assert_eq!(item["PK"], dyno_core::AttributeValue::S("USER#u1".into()));
//! assert_eq!(item["GSI1PK"], dyno_core::AttributeValue::S("STATUS#SHIPPED".into()));
//! assert_eq!(Order::key("u1", "o1").as_item(), &order.key()?);
//!
//! // Typed queries and updates (run them with `.all(&store)` / `.send(&store)`).
//! let shipped = Order::gsi1(OrderStatus::Shipped).placed_on_ge("2024-01-01").into_query()?;
//! assert_eq!(shipped.request().index.as_deref(), Some("GSI1"));
//! let update = Order::update(Order::key("u1", "o1"))
//!     .set_status(OrderStatus::Pending) // also rewrites GSI1PK
//!     .add_total(5u64)
//!     .condition(Order::STATUS.eq(OrderStatus::Shipped))
//!     .into_builder()?;
//! assert_eq!(update.update_expr().set.len(), 2);
//! # Ok::<(), dyno_core::Error>(())
//! ```

mod ast;
mod attr;
mod case;
mod check;
mod ctxt;
mod expand;
mod template;
mod ty;

#[cfg(test)]
mod snapshot;

use proc_macro::TokenStream;

/// Declares a physical table and implements `dyno_core::Table` for the (usually unit) struct.
///
/// ```text
/// #[dyno(name = "ECommerce", pk = "PK", sk = "SK", ttl = "ttl", entity_attribute = "_type")]
/// #[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]                 // global index
/// #[dyno(index(name = "GSI2", pk = "GSI2PK", keys_only))]                     // projection: keys only
/// #[dyno(index(name = "GSI3", pk = "GSI3PK", sk = "GSI3SK", include("total")))] // projection: include
/// #[dyno(index(name = "LSI1", local, sk = "LSI1SK"))]                         // local index
/// ```
///
/// - `name`, `pk` are required; `sk` when the table has a sort key; `ttl` names the TTL
///   attribute (epoch seconds); `entity_attribute` the attribute holding each item's entity type
///   (default `_type`).
/// - Each index becomes a `TableIndex` impl, which is how `#[derive(Entity)]` checks at compile
///   time that the indexes it names exist, and a constant with its name (`ECommerce::GSI1`).
#[proc_macro_derive(Table, attributes(dyno))]
pub fn derive_table(input: TokenStream) -> TokenStream {
    expand::table(input.into()).into()
}

/// Maps a struct with named fields to items of a `#[derive(Table)]` table.
///
/// Container attributes:
///
/// ```text
/// #[dyno(table = ECommerce, pk = "USER#{user_id}", sk = "ORDER#{order_id}", entity_type = "Order")]
/// #[dyno(index(GSI1, pk = "STATUS#{status}", sk = "{order_date}#{order_id}"))]
/// #[dyno(index(GSI2, pk = "DAY#{day}", sk = "{ts}", shards = 8))]   // sharded hot partition
/// #[dyno(index(LSI1, sk = "TOTAL#{total}"))]                       // local index: sk only
/// ```
///
/// Key templates are literal text with `{field}` placeholders; a placeholder is followed by the
/// end or by text starting with `#`. Key fields need `KeyPart`. An `Option` field in an index
/// template makes the index sparse: when it is `None`, the index attributes are left out.
/// `shards = n` appends `#<shard>` to the index partition key, computed from the item's primary
/// key; queries on it fan out over the shards and merge in sort-key order.
///
/// Field attributes: `rename = "attr"`, `skip` (not stored, `Default` on read), `default`
/// (`Default` when the attribute is missing), `serde` (stored through serde_dynamo), `version`
/// (optimistic locking, an unsigned integer), `created_at` / `updated_at` (timestamps filled in
/// on writes), `ttl` (stored as epoch seconds under the table's TTL attribute).
///
/// Generated, besides `impl Entity`:
/// - `Entity::key(..) -> Key<Entity>` / `try_key`, arguments typed by the key fields;
/// - a `Field` constant per stored field (`Order::TOTAL`) for typed conditions and filters;
/// - `Entity::query(partition fields)` and one method per index (`Order::gsi1(status)`)
///   returning typed query builders (`OrderQuery`, `OrderGsi1Query`) whose sort-key conditions
///   are methods named after the sort-key fields (`order_date_between(a, b)`); the parts of a
///   composite sort key are given in order; `consistent()` exists on the table and local indexes.
///   Ranges are exact on every part: where a key condition cannot express a range on an inner
///   part (values with characters below `#`), the query reads a key range covering it and drops
///   the items outside, so a page can hold fewer results than its `page_size`;
/// - `Entity::update(key)` returning `OrderUpdate`: `set_*`, `set_if_absent_*`, `remove_*`
///   (options), `add_*`/`subtract_*` (numbers), `append_*` (lists), `add_to_*`/`delete_from_*`
///   (sets). Primary-key fields have no setter; setting an index-key field rewrites the index
///   key in the same request (fields that make up one index key are set together:
///   `set_region_and_tier(region, tier)`). `upsert()` also writes the index keys the primary key
///   determines, and refuses (before sending) to create an item missing a key of a non-sparse
///   index whose fields the update does not set;
/// - `Entity::key(..)` with a value that cannot be encoded (an empty string) gives a key that
///   carries the error: every request built from it fails with it, before any store call.
#[proc_macro_derive(Entity, attributes(dyno))]
pub fn derive_entity(input: TokenStream) -> TokenStream {
    expand::entity(input.into()).into()
}

/// Makes a type usable in key templates, and storable as an attribute.
///
/// - A unit enum is encoded by variant name: `#[dyno(rename = "...")]` on a variant,
///   `#[dyno(rename_all = "SCREAMING_SNAKE_CASE")]` (or `lowercase`, `UPPERCASE`, `snake_case`,
///   `kebab-case`, `camelCase`, `PascalCase`) on the enum. Names may not contain `#`.
/// - A newtype (`struct UserId(String);`) delegates to its inner type.
///
/// Both also implement `ToAttribute`/`FromAttribute` (the same text, or the inner type's)
/// unless the type has `#[dyno(no_attribute)]`.
#[proc_macro_derive(KeyPart, attributes(dyno))]
pub fn derive_key_part(input: TokenStream) -> TokenStream {
    expand::key_part(input.into()).into()
}

/// A subset of an entity's fields, read with a ProjectionExpression:
/// `#[dyno(entity = Order)]` on a struct whose fields have the names and types of `Order`'s
/// (checked at compile time). Use it with the entity's query builders: `.project::<OrderSummary>()`.
/// Field attributes: `serde`, `default`, as on the entity.
#[proc_macro_derive(Projection, attributes(dyno))]
pub fn derive_projection(input: TokenStream) -> TokenStream {
    expand::projection(input.into()).into()
}

/// Several entities of one partition, read with one query.
///
/// - On an enum whose variants wrap one entity each (`enum UserItem { User(User), Order(Order) }`):
///   `UserItem::query(user_id).all(&store)` returns every entity of the partition, each decoded
///   as its own variant.
/// - On a struct of `Option<Entity>` / `Vec<Entity>` fields
///   (`struct UserWithOrders { user: Option<User>, orders: Vec<Order> }`):
///   `UserWithOrders::query(user_id).get(&store)` reads the partition and groups it.
///
/// The arguments of `query` are the partition key fields of the first entity (a tuple when there
/// are several), or of the entity named by `#[dyno(partition = Entity)]`. All entities must
/// live in the same table (checked at compile time).
#[proc_macro_derive(Collection, attributes(dyno))]
pub fn derive_collection(input: TokenStream) -> TokenStream {
    expand::collection(input.into()).into()
}
