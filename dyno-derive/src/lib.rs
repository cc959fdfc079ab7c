#![warn(missing_docs, unreachable_pub)]
//! Derive macros for dyno: `#[derive(Table)]`, `#[derive(Entity)]`, `#[derive(KeyPart)]`,
//! `#[derive(Projection)]`, `#[derive(Collection)]` and `#[derive(Document)]`. Use them through
//! `dyno_core`, which re-exports them; the generated code refers to `::dyno_core::__private` only.
//!
//! Each entry point parses the input (`ast`, `attr`), checks the rules that span fields
//! (`check`), and generates code (`expand`); on error it emits every error found plus a stub
//! impl, so one mistake gives one message.
//!
//! ```
//! use dyno_core::prelude::*;
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
//! let shipped = Order::gsi1(OrderStatus::Shipped).placed_on().ge("2024-01-01").into_query()?;
//! assert_eq!(shipped.request().index.as_deref(), Some("GSI1"));
//! let update = Order::update(Order::key("u1", "o1"))
//!     .set_status(OrderStatus::Pending) // also rewrites GSI1PK
//!     .add_total(5u64)
//!     .condition(Order::STATUS.eq(OrderStatus::Shipped))
//!     .into_update()?;
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
/// #[dyno(index(name = "ByStatus", pk = ["tenant", "status"], sk = ["priority:N", "created"]))]
/// ```
///
/// - `name`, `pk` are required; `sk` when the table has a sort key; `ttl` names the TTL
///   attribute (epoch seconds); `entity_attribute` the attribute holding each item's entity type
///   (default `_type`).
/// - Each index becomes a constant of the table named after it in upper snake case
///   (`ECommerce::GSI1`, `BY_DAY` for `ByDay`), a `dyno_core::table::TableIndex` holding its name
///   and key attributes: `#[derive(Entity)]` names it, so an index the table does not declare is
///   a compile error at the entity's index name.
/// - A global index's keys can be lists of one to four partition and up to four sort attributes,
///   each `"name"` (a string), `"name:N"` (a number) or `"name:B"` (binary): a multi-attribute
///   key, whose attributes are ordinary attributes of the items (entities map fields onto them:
///   see `Entity`). An attribute has one type across the table's keys (checked).
/// - `#[dyno(entities(Order, Product), collections(UserItem))]` lists the table's model: the
///   derive then generates `ECommerce::model()`, a `dyno_core::model::Model` describing the
///   table, each entity (key templates, index keys, fields, stamps, TTL, version, query names)
///   and each collection, from which the design document, the NoSQL Workbench file and the
///   CreateTable body come. An entity of another table in the list is a compile error.
/// - The derive also declares a macro named like the table (hidden, with the type's visibility,
///   exported under a hidden unique name so that other crates reach it beside the type):
///   entities' expansions call it to learn the table's indexes, so that `Issue::gsi1(..)` on an
///   index `Issue` has no key in is the compile error "`Issue` has no key in GSI1; its indexes:
///   GSI4". Entities can be declared in another crate than their table (`table =
///   shared::Shop`, or `Shop` imported with `use`), as long as the macro is imported with the
///   type (`use shared::Shop;` imports both).
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
/// #[dyno(index(ByStatus, pk = [tenant, status], sk = [priority, created]))] // multi-attribute
/// #[dyno(index(GSI3, pk = "CUSTOMER#{customer}", sk = "{day}", query = "by_customer"))] // named
/// ```
///
/// `query = "by_status"` on an index mapping names the access pattern it serves: the query
/// constructor is `Order::by_status(..)`, the same typed builder the index's own name gives
/// (`Order::gsi1(..)` without a name). Once named, the index's own name is no method:
/// `Order::gsi1(..)` is the compile error "`Order`'s query on GSI1 is named `by_status`", so
/// each access pattern has one name in code and in the model (`dyno_core::model`). A name that
/// clashes with another generated one (another index's query, a method every entity has such
/// as `get` or `update`, the method of an index of the table the entity is not in) is a compile
/// error naming both.
///
/// Key templates are literal text with `{field}` placeholders; a placeholder is followed by the
/// end or by text starting with `#`. Key fields need `KeyPart`. An `Option` field in an index
/// template makes the index sparse: when it is `None`, the index attributes are left out.
/// `shards = n` appends `#<shard>` to the index partition key, computed from the item's primary
/// key; queries on it fan out over the shards and merge in sort-key order.
///
/// An index the table declares with attribute lists (a multi-attribute key) takes field lists
/// instead of templates, one field per attribute in key order: each field is stored under the
/// attribute's name (`#[dyno(rename = "...")]` when the Rust name differs) and its type is
/// stored as the attribute's declared type (strings and `KeyPart` enums S, numbers N, `Bytes`
/// B); count, names and types are checked at compile time against the table. Nothing else is
/// written for such an index: updating a field moves the item in it, and an `Option` field that
/// is `None` leaves the item out (sparse). `Issue::by_status(tenant, status)` takes every
/// partition field; `.priority().eq(2u32).created().ge(day)` gives the sort attributes' conditions
/// left to right (`dyno_core::ops::sort_key::AttributePart`: `eq` on leading attributes, one of
/// `lt`, `le`, `gt`, `ge`, `between` or, for strings and binary, `begins_with` on the last one).
///
/// Clippy up to at least 1.95 reports `duplicated_attributes` when two `index(..)` entries of
/// one entity carry the same text (`pk = "REPO#{owner}"` in GSI1 and in GSI2): the lint reads
/// every attribute's arguments as a set of paths (rust-clippy issues 12923 and 13238; a later
/// change to the lint checks only lint-level attributes). Nothing is wrong with such an entity: put
/// `#[allow(clippy::duplicated_attributes)]` on it.
///
/// Field attributes: `rename = "attr"`, `skip` (not stored, `Default` on read), `default`
/// (`Default::default()` when the attribute is missing on read) or `default = path` (`path()`, a
/// function returning the field's type, when it is missing), `serde` (stored through
/// serde_dynamo), `version` (optimistic locking, an unsigned integer), `created_at` /
/// `updated_at` (timestamps filled in on writes; declared `Option<T>` they are written `None` in
/// a struct literal, no placeholder time, and read back `Some`), `generated` (an `Option<Ulid>`,
/// feature `ulid`, or `Option<Uuid>`, feature `uuid`, UUID v7: written `None`, a create or put
/// generates a time-ordered id, decided once per write for the attribute and every key made
/// from it, primary keys included; `key()` of a value whose id is still unset is an
/// `Error::Key`), `ttl` (stored as epoch seconds under the table's TTL attribute).
///
/// # What is generated
///
/// For `Order` above (table `ECommerce`; `pk = "USER#{user_id}"`, `sk = "ORDER#{order_id}"`,
/// index `GSI1`), every item below; `Order`, `OrderQuery`, `OrderGsi1Query` and `OrderUpdate` are
/// the only names added to your module.
///
/// **The `Entity` impl** (`dyno_core::Entity`): `ENTITY_TYPE` (the struct's name, or
/// `entity_type = "..."`), the key templates, `key(&self)`, `to_item`, `from_item`, `version`.
/// `to_item` decides the timestamps once per write: `updated_at` is now, `created_at` is now when
/// it is `None`; the attribute and every key segment made from the field hold that one value.
///
/// **Keys**
/// - `Order::key(user_id, order_id) -> Key<Order>`: one argument per field of the PK template,
///   then of the SK template, in order of first appearance, each duplicate once; each argument is
///   `impl FieldValue<T>` (the field's type, a reference to it, `&str` for a `String`).
///   `Order::try_key(..) -> Result<Key<Order>>` reports an unencodable value (an empty string)
///   instead of carrying it into the request.
/// - `impl PartitionKeyOf<A, INDEX> for Order`: the partition key from its fields, one value
///   or a tuple, in the table and in each index keyed by templates, for `#[derive(Collection)]`.
/// - For each index of the table `Order` has no key in, a hidden method named after it whose
///   call is the compile error "`Order` has no key in GSI2; its indexes: GSI1".
/// - `Order::from_item(&item)`: decode (items of other clients without the entity-type
///   attribute decode too: key fields are read back from the keys). The key is the source of
///   truth: a key field's attribute must agree with the value its key holds (`Error::Decode`
///   otherwise), and the stored primary key must be the one the decoded fields are written to.
///   An item at another spelling of its key (`USER#00000000000000000123` where `USER#123` is
///   written, a `KeyPart` alias such as `STATUS#shipped`, a plain integer in an ordered sort
///   key) is `Error::KeyMismatch`, naming the stored key, the canonical key and the field, on
///   every read (a `.lenient()` query or scan reports it): decoding it would let a put of the
///   value write a second item at the canonical key. Use `#[dyno(key_format = ...)]` to match
///   what other clients write, or move such items with
///   `dyno_core::entity::recover::decode_rekeyed` (put the value, delete the stored key). The
///   comparison writes the key into a reused buffer: no allocation when it matches.
///
/// **Field handles**: `Order::TOTAL: Field<Order, Decimal>`, one per stored field (TTL field
/// aside), for typed conditions and filters: `Order::TOTAL.gt(dec)`, `Order::NOTE.exists()`.
///
/// **Queries**: `Order::query(user_id) -> OrderQuery` (the arguments: the PK template's fields,
/// as for `key`), and one constructor per index, named after it in snake case:
/// `Order::gsi1(status) -> OrderGsi1Query` (a local index takes the table's partition fields).
/// - Without a sort-key condition, a query reads `begins_with(SK, "ORDER#")` when the sort-key
///   template starts with literal text, `SK = "PROFILE"` when it is constant: other entities of
///   the partition are not read. Items of other entities that are read anyway (an overloaded
///   index) are skipped, never mis-decoded.
/// - Sort-key conditions: one accessor per sort-key field, named after it (`.order_id()`),
///   returning `dyno_core::ops::sort_key::SortKeyPart`, whose conditions are typed by the field:
///   `.order_id().eq(v)`, `lt`, `le`, `gt`, `ge`, `between(low, high)`, `begins_with(partial)`.
///   For a composite sort key (`{status}#{number}`) the parts are given in order:
///   `.status().eq(s)` first, then any condition on `.number()`; a range ends the chain (out of
///   order, the compile error says which part to fix first).
/// - On every query builder, from the trait `dyno_core::ops::QueryDsl` (in
///   `dyno_core::prelude`): `filter(Cond<Order>)`, `limit(n)` (results, across pages),
///   `page_size(n)`, `descending()`, `consistent()` (table and local indexes only), and to run
///   it: `all(&store)`, `stream(&store)`, `page(&store, cursor)`, `first(&store)`,
///   `count(&store)`, or `into_query()` for the untyped `Query`; and, generated,
///   `project::<P>()` (a `#[derive(Projection)]`).
///
/// **Updates**: `Order::update(key) -> OrderUpdate`; `send(&store)` returns the item after the
/// update. Per field, by type: `set_<f>`, `set_if_absent_<f>`, `remove_<f>` (`Option`s, the TTL
/// field included: it removes the table's TTL attribute), `add_<f>` / `subtract_<f>` (numbers),
/// `append_<f>` (`Vec`s), `add_to_<f>` / `delete_from_<f>` (sets). Primary-key fields have no
/// setter (a key never changes: delete and re-create). A field in an index key is set together
/// with that index key, in the same request (`set_status(..)` rewrites GSI1PK). A field of an
/// index key made of several fields is set with the others given: `set_region_given(region,
/// tier)` writes `region` and the key, and sends `tier` as a condition (`tier = :given`), never a
/// write, so an update built from a stale read fails with `Error::StaleKeyField` naming the
/// field that changed instead of reverting it; `set_region_and_tier(region, tier)` writes both.
/// A created-at stamp in a key is always given (`set_status_given(status, created_at)`): no
/// setter writes or removes a stamp, and a plain `set_region(..)` or `set_created_at(..)` does
/// not compile, with a message naming the setter to use. `updated_at` is set on every update,
/// `created_at` where absent, with the index keys made from them;
/// `keep_updated_at()` (generated only for entities with an `updated_at` field) leaves
/// `updated_at` and its index keys as they are for this update, a `Transaction` action included
/// (the stamp is decided when the update is sent or turned into an action). Then, from
/// the trait `dyno_core::ops::UpdateDsl` (in `dyno_core::prelude`): `condition(Cond<Order>)`,
/// `if_version(v)` (versioned entities only), `upsert()` (creates the item if absent, with the
/// index keys its primary key determines; refuses before sending, naming them, an upsert that
/// would create an item lacking a required field (not `Option`, not `#[dyno(default)]`) or
/// missing from a non-sparse index; `Order::upsert(key, status, ..)` takes every such field as
/// an argument, written where absent), `into_update()` (the untyped `UpdateBuilder`; a
/// `Transaction` also takes the typed builder itself), `send(&store)`.
///
/// **Inside maps, lists and documents** (typed paths, `dyno_core::expr::path`): a field handle
/// leads into a map (`Repo::REACTION_COUNTS.entry("heart")`, keys of any `KeyPart` type), a list
/// (`Repo::TOPICS.at(0)`) or a `#[derive(Document)]` struct (`Repo::OWNER.field(Owner::LOGIN)`),
/// keeping the value's type. Conditions take these paths like fields, and so does
/// `UpdateDsl::at(path)`, finished by `set`, `set_if_absent`, `remove` (map entries, list
/// elements, `Option` document fields), `add` / `subtract` (numbers, kept inside their type),
/// `append` / `prepend` (lists), `add_elements` / `delete_elements` (sets):
/// `.at(Repo::REACTION_COUNTS.entry("heart")).add(1)`. Values are checked against the element
/// type at compile time. A nested write needs its parent
/// map to exist, as in DynamoDB (see `#[derive(Document)]`).
///
/// **Every other operation** comes from `dyno_core::ops::EntityExt` (blanket impl): `get`,
/// `put`, `create`, `replace`, `delete`, `update` (untyped), `scan`; batches (`BatchGet`,
/// `BatchWriter`) and transactions (`Transaction`, `TransactGet`).
///
/// **Entities sharing keys.** Entities may share a key shape (`User` and `Organization` both at
/// `ACCOUNT#{name}`): a typed read of a key holding another entity's item (its entity-type
/// attribute names another type) returns `None`; a typed put, replace, update, upsert or delete
/// of it fails with `Error::WrongEntity` and changes nothing (the check is a condition of the
/// write itself). Items without the entity-type attribute (other clients) are read and written
/// as before. Batch writes cannot be conditioned: a batch delete removes whatever is at the key.
///
/// **A cancelled transaction** fails with `Error::TransactionCanceled { reasons }`, one reason
/// per action in the order they were added: `code` is `None` for actions that were fine and
/// `ConditionalCheckFailed` for the action whose condition failed (a stale version, a create on
/// an existing item, a replace or update of an absent one, another entity's item, your own
/// `condition`), `TransactionConflict` when a concurrent write got there first.
///
/// **Compile-time checks**, each a spanned error: unknown field in a template, a key field
/// without `KeyPart`, malformed templates, an index the table does not declare, `sk` on a table
/// without a sort key (and the reverse), `ttl` on a table without a TTL attribute, arguments of
/// the wrong type, sort-key parts out of order, updates of primary-key fields.
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

/// A struct stored as one map attribute (a nested document), with typed paths to its fields.
///
/// Generates `ToAttribute`/`FromAttribute` (one map entry per field; `Option` fields absent
/// when `None`; documents nest) and one handle per stored field, relative to the document
/// (`Address::CITY: Field<Address, String>`), which an entity's paths lead into with
/// `.field(..)`: `Customer::ADDRESS.field(Address::CITY)`. Field attributes: `rename = "..."`
/// (the map key), `skip` (not stored; `Default` on read), `serde` (through serde_dynamo),
/// `default` (`Default` when the entry is absent).
///
/// A nested write needs its parent map to exist, as in DynamoDB: `.at(..).set(..)` on a field of an
/// `Option<Address>` that is `None` fails with `Error::Validation` ("The document path provided
/// in the update expression is invalid for update") and writes nothing. Write the parent first,
/// in an earlier update (`set_if_absent_address(..)`): one update cannot write a path and its
/// parent.
///
/// ```
/// use std::collections::HashMap;
/// use dyno_core::prelude::*;
/// use dyno_core::{Document, Entity, KeyPart, Table};
///
/// #[derive(Table)]
/// #[dyno(name = "GitHub", pk = "PK", sk = "SK")]
/// struct GitHub;
///
/// #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, KeyPart)]
/// #[dyno(rename_all = "lowercase")]
/// enum Reaction { Heart, Rocket }
///
/// #[derive(Debug, Clone, PartialEq, Document)]
/// struct Owner {
///     login: String,
///     #[dyno(rename = "twitter")]
///     twitter_handle: Option<String>,
/// }
///
/// #[derive(Debug, Clone, PartialEq, Entity)]
/// #[dyno(table = GitHub, pk = "REPO#{name}", sk = "REPO#{name}")]
/// struct Repo {
///     name: String,
///     owner: Owner,
///     reaction_counts: HashMap<Reaction, u32>,
///     topics: Vec<String>,
/// }
///
/// let owner = Owner { login: "alex".into(), twitter_handle: None };
/// let repo = Repo { name: "dyno".into(), owner, reaction_counts: HashMap::new(), topics: vec![] };
/// let item = repo.to_item()?; // the owner is a map, reaction_counts an empty map
/// assert_eq!(Repo::from_item(&item)?, repo);
///
/// // Run these with `.send(&store)`; the guide (`dyno_core::guide::documents`) does, on a store.
/// let update = Repo::update(Repo::key("dyno"))
///     .at(Repo::REACTION_COUNTS.entry(Reaction::Heart)).add(1u32)
///     .at(Repo::OWNER.field(Owner::TWITTER_HANDLE)).set("alexdebrie")
///     .at(Repo::TOPICS).append(["dynamodb", "rust"])
///     .condition(Repo::OWNER.field(Owner::LOGIN).eq("alex"))
///     .into_update()?;
/// let paths: Vec<String> = update.update_expr().paths().map(|p| p.to_string()).collect();
/// assert_eq!(paths, ["owner.twitter", "topics", "reaction_counts.heart"]);
/// # Ok::<(), dyno_core::Error>(())
/// ```
#[proc_macro_derive(Document, attributes(dyno))]
pub fn derive_document(input: TokenStream) -> TokenStream {
    expand::document(input.into()).into()
}

/// Several entities of one partition, read with one query.
///
/// - On an enum whose variants wrap one entity each (`enum UserItem { User(User), Order(Order) }`):
///   `UserItem::query(user_id).all(&store)` returns every entity of the partition, each decoded
///   as its own variant.
/// - On a struct of `Option<Entity>` / `Vec<Entity>` fields
///   (`struct UserWithOrders { user: Option<User>, orders: Vec<Order> }`):
///   `UserWithOrders::query(user_id).all(&store)` reads the partition and groups it
///   (`page` and `pages` group each page).
///
/// `#[dyno(query = "orders_of_user")]` names the access pattern: the constructor is
/// `UserItem::orders_of_user(..)` in place of `UserItem::query(..)` (a name every collection has
/// as a method, `from_item` or `accepts`, is a compile error).
///
/// `#[dyno(index = GSI1)]` reads a global or local index instead of the table. The arguments
/// of `query` are the partition key fields of the first entity there (a tuple when there are
/// several), or of the entity named by `#[dyno(partition = Entity)]`. Checked at compile time:
/// all entities live in the same table, each has a key in the index, and their partition key
/// templates agree (the same literal text between fields), so one query reads them all.
///
/// The query reads only the range of sort keys the entities' templates can have, whatever
/// their literal prefixes: `begins_with` the shortest when every other starts with it (comments
/// at `C#{id}` and replies at `C#R#{id}` read `begins_with C#`), else `BETWEEN` the smallest
/// prefix and the largest successor of any (a repo (`REPO#...`) and its issues (`ISSUE#...`)
/// never read the repo's stars (`STAR#...`)); the whole partition only when a template starts
/// with a field. Items of other entities read in that range are skipped.
///
/// `.only::<Issue>()` reads one member (a sub-collection), on the table, a template index or a
/// multi-attribute index: by its prefix where its sort key starts with one, and always by
/// entity type in the store (a filter on the entity-type attribute), so that a member whose
/// prefix extends another's, or any member when the key starts with a field, is left out before
/// `limit` counts and pages are cut.
///
/// Filters: a plain `.filter(cond)` applies to every item read, whatever its entity. A
/// condition on one member's field (`Comment::SCORE.ge(3u8)`) therefore also removes every item
/// of the members without that attribute (DynamoDB compares a missing attribute as false).
/// `.filter_member(cond)` filters that member only and leaves the others alone: it is sent as
/// "not this entity, or the condition" (`(attribute_exists(#t) AND #t <> :E) OR (cond)` on the
/// entity-type attribute).
///
/// The enum form's query is a `dyno_core::ops::Query<UserItem>` (`descending`, `limit`,
/// `page(&store, cursor)`, `stream(&store)`, `all`, `only`, `filter`, `filter_member`). The
/// struct form's has `filter`, `filter_member`, `consistent`, `page_size`, `descending`,
/// `limit`, `only`, `into_query`, and runs with `get(&store)` (every page, grouped),
/// `page(&store, cursor)` (one page grouped, with the cursor of the next, bound to this query)
/// and `stream(&store)` (the pages, grouped).
///
/// On a multi-attribute index (`#[dyno(index = ByStatus)]`, entities mapping fields onto its
/// attributes) DynamoDB indexes every item whose key attributes are present with their types,
/// whatever its entity, so the entities mapped onto it share its partitions. Checked at compile
/// time: every member maps fields onto the index (none keys it by templates). The enum form is
/// read from a member's typed query, which takes the partition fields and the sort conditions
/// left to right: `Task::by_status(tenant, status).priority().eq(1u8).collection::<Work>()`
/// returns the tasks and bugs of that range in index order, with `descending`, `limit`, pages
/// and `stream` as any query, and `.only::<Bug>()` and `.filter_member(..)` as above
/// (`.collection::<C>()` reads multi-attribute index queries only, for collections declared on
/// that index; a collection on a template index is read with `C::query(..)`).
#[proc_macro_derive(Collection, attributes(dyno))]
pub fn derive_collection(input: TokenStream) -> TokenStream {
    expand::collection(input.into()).into()
}

/// Not public API: the methods an entity gets for the indexes of its table it has no key in, so
/// that calling one says so (see `expand/index_stubs.rs`). Called by the macro each
/// `#[derive(Table)]` declares.
#[doc(hidden)]
#[proc_macro]
pub fn __index_stubs(input: TokenStream) -> TokenStream {
    expand::index_stubs(input.into()).into()
}
