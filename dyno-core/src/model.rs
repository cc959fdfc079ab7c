//! The model as data: a table's entities, key templates, indexes, fields, stamps, collections
//! and named access patterns, as the derives declare them, at run time.
//!
//! [`Model`] is built from the types themselves ([`Model::builder`], or `Table::model()`, which
//! `#[derive(Table)]` generates when the table lists its entities with `#[dyno(entities(..),
//! collections(..))]`), so it cannot drift from the code. From it:
//!
//! - [`Model::design_document`]: the entity chart (each entity's primary and index keys) and the
//!   access-pattern table, in Markdown, in the form *The DynamoDB Book* uses;
//! - [`Model::to_workbench_json`]: a NoSQL Workbench data model (format version
//!   [`WORKBENCH_FORMAT_VERSION`]: tables, key attributes, global secondary indexes, one facet per
//!   entity with sample items) to import into NoSQL Workbench and see the table per access pattern;
//! - [`Model::to_create_table_json`] and [`Model::to_cloudformation_json`]: the table's
//!   definition, as [`TableDef`] exports it.
//!
//! ```
//! use dyno_core::prelude::*;
//! use dyno_core::{Entity, Table};
//!
//! #[derive(Table)]
//! #[dyno(name = "Shop", pk = "PK", sk = "SK")]
//! #[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
//! #[dyno(entities(Order, Product))]
//! struct Shop;
//!
//! #[derive(Entity)]
//! #[dyno(table = Shop, pk = "USER#{user_id}", sk = "ORDER#{order_id}")]
//! #[dyno(index(GSI1, pk = "STATUS#{status}", sk = "{order_id}", query = "by_status"))]
//! struct Order {
//!     user_id: String,
//!     order_id: String,
//!     status: String,
//! }
//!
//! #[derive(Entity)]
//! #[dyno(table = Shop, pk = "PRODUCT#{sku}", sk = "PRODUCT")]
//! #[dyno(index(GSI1, pk = "CATEGORY#{category}", sk = "{sku}"))]
//! struct Product {
//!     sku: String,
//!     category: String,
//! }
//!
//! let model = Shop::model();
//! let patterns = model.access_patterns();
//! let by_status = patterns.iter().find(|p| p.name == "Order::by_status").unwrap();
//! assert_eq!(by_status.index.as_deref(), Some("GSI1"));
//! assert_eq!(by_status.key_condition, "GSI1PK = STATUS#{status}");
//! let doc = model.design_document();
//! assert!(doc.contains("| Order | USER#{user_id} | ORDER#{order_id} |"));
//! let workbench = model.to_workbench_json(&[]);
//! assert_eq!(workbench["DataModel"][0]["TableFacets"].as_array().unwrap().len(), 2);
//! ```

use std::fmt::Write as _;

use serde_json::{json, Value};

#[doc(hidden)]
pub use crate::entity::EntityParts;
pub use crate::entity::FieldRole;

use crate::entity::Entity;
use crate::error::Result;
use crate::store::{ScanRequest, Store};
use crate::table::{IndexDef, KeyAttribute, Projection, Table, TableDef};
use crate::value::{AttributeValue, Item};

/// The NoSQL Workbench data-model format [`Model::to_workbench_json`] writes
/// (`ModelMetadata.Version`): the shape of AWS's published sample models (for instance
/// aws-samples/amazon-dynamodb-design-patterns, `AnOnlineShop_facets.json`), which NoSQL
/// Workbench imports with *Import data model*.
pub const WORKBENCH_FORMAT_VERSION: &str = "1.0";

/// A table's whole model: its definition, its entities and its collections.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Model {
    /// The physical table (what CreateTable needs).
    pub table: TableDef,
    /// The attribute holding each item's entity type.
    pub entity_attribute: String,
    /// The entities stored in the table, in the order given.
    pub entities: Vec<EntityModel>,
    /// The collections (several entities read with one query), in the order given.
    pub collections: Vec<CollectionModel>,
}

/// One entity: its key templates, index keys, fields and stamps.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct EntityModel {
    /// The entity type name (written to the entity-type attribute).
    pub name: String,
    /// The partition key template (`USER#{user_id}`).
    pub pk: String,
    /// The sort key template, when the table has a sort key.
    pub sk: Option<String>,
    /// The entity's keys in each index it is in, in declaration order.
    pub indexes: Vec<EntityIndex>,
    /// The stored fields, in declaration order (fields marked `skip` are left out).
    pub fields: Vec<FieldModel>,
    /// The optimistic-locking version attribute.
    pub version: Option<String>,
    /// The TTL attribute (epoch seconds).
    pub ttl: Option<String>,
    /// The `created_at` stamp's attribute.
    pub created_at: Option<String>,
    /// The `updated_at` stamp's attribute.
    pub updated_at: Option<String>,
}

/// An entity's keys in one index, and the query that reads them.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct EntityIndex {
    /// The index name.
    pub index: String,
    /// The query's name: the access pattern's (`query = "by_status"`), else the index name in
    /// snake case (`gsi1`): the constructor `Order::<query>(..)`.
    pub query: String,
    /// True when the mapping names its query (`query = "..."`).
    pub named: bool,
    /// How the entity keys the index.
    pub keys: IndexKeys,
}

/// How an entity keys an index.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum IndexKeys {
    /// Key templates written to the index's key attributes.
    Templates {
        /// The partition key template (the table's, for a local index).
        pk: String,
        /// The sort key template.
        sk: Option<String>,
        /// Shard suffixes on the partition key (`#<n>`), or 0.
        shards: u32,
    },
    /// A multi-attribute key: the entity's fields are the index's key attributes.
    Attributes {
        /// The fields stored as the partition attributes, in key order.
        partition: Vec<String>,
        /// The fields stored as the sort attributes, in key order.
        sort: Vec<String>,
    },
}

/// One stored field.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct FieldModel {
    /// The Rust field name.
    pub name: String,
    /// The attribute it is stored under.
    pub attribute: String,
    /// The Rust type, as written (`Option<String>`).
    pub rust_type: String,
    /// What the field is.
    pub role: FieldRole,
    /// True when a key template uses the field.
    pub in_key: bool,
}

/// A `#[derive(Collection)]`: several entities of one partition read with one query.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CollectionModel {
    /// The collection's type name.
    pub name: String,
    /// The query's name (`query = "..."`, else `query`).
    pub query: String,
    /// The index it reads; the table when `None`.
    pub index: Option<String>,
    /// The entity whose partition key the query takes.
    pub partition: String,
    /// The member entities, in order.
    pub members: Vec<String>,
}

/// One access pattern: a typed query the code can run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AccessPattern {
    /// The query as called: `Entity::query` or `Collection::query` (`Order::by_status`); a
    /// collection on a multi-attribute index, `Task::by_status(..).collection::<Work>()`.
    pub name: String,
    /// The index read; the table when `None`.
    pub index: Option<String>,
    /// The key condition, templates in place of values (`GSI1PK = STATUS#{status}`), with the
    /// sort key's template when the query can range over it.
    pub key_condition: String,
    /// The sort key's template, which sort-key conditions range over.
    pub sort_key: Option<String>,
    /// The entities it returns.
    pub returns: Vec<String>,
}

#[doc(hidden)]
/// What `#[derive(Collection)]` generates for the model. Not public API.
pub trait DescribeCollection {
    /// The collection's description.
    fn describe() -> CollectionModel;
}

#[doc(hidden)]
/// A collection's description from its parts (for generated code). Not public API.
pub fn collection_model(
    name: &str,
    query: &str,
    index: Option<&str>,
    partition: &str,
    members: &[&str],
) -> CollectionModel {
    CollectionModel {
        name: name.to_owned(),
        query: query.to_owned(),
        index: index.map(str::to_owned),
        partition: partition.to_owned(),
        members: members.iter().map(|m| (*m).to_owned()).collect(),
    }
}

impl EntityModel {
    /// The description of entity `E`, from its `Entity` impl.
    pub fn of<E: Entity>() -> EntityModel {
        let parts = E::MODEL;
        let query_of = |index: &str| {
            parts
                .queries
                .iter()
                .find(|(i, _, _)| *i == index)
                .map_or_else(
                    || (snake(index), false),
                    |(_, q, named)| ((*q).to_owned(), *named),
                )
        };
        let mut indexes: Vec<EntityIndex> = E::INDEXES
            .iter()
            .map(|ix| {
                let (query, named) = query_of(ix.index);
                EntityIndex {
                    index: ix.index.to_owned(),
                    query,
                    named,
                    keys: IndexKeys::Templates {
                        pk: ix.pk.to_string(),
                        sk: ix.sk.map(|t| t.to_string()),
                        shards: ix.shards,
                    },
                }
            })
            .collect();
        let def = <E::Table as Table>::definition();
        for name in E::MAPPED_INDEXES {
            let (query, named) = query_of(name);
            let (partition, sort) = match parts.mapped.iter().find(|(i, _, _)| i == name) {
                Some((_, p, s)) => (
                    p.iter().map(|a| (*a).to_owned()).collect(),
                    s.iter().map(|a| (*a).to_owned()).collect(),
                ),
                None => def.index(name).map_or_else(Default::default, |i| {
                    (
                        i.partition_keys().map(|k| k.name.clone()).collect(),
                        i.sort_keys().map(|k| k.name.clone()).collect(),
                    )
                }),
            };
            indexes.push(EntityIndex {
                index: (*name).to_owned(),
                query,
                named,
                keys: IndexKeys::Attributes { partition, sort },
            });
        }
        let fields: Vec<FieldModel> = parts
            .fields
            .iter()
            .map(|&(name, attribute, ty, role, in_key)| FieldModel {
                name: name.to_owned(),
                attribute: attribute.to_owned(),
                rust_type: ty.to_owned(),
                role,
                in_key,
            })
            .collect();
        let stamp = |role: FieldRole| {
            fields
                .iter()
                .find(|f| f.role == role)
                .map(|f| f.attribute.clone())
        };
        EntityModel {
            name: E::ENTITY_TYPE.to_owned(),
            pk: E::PK.to_string(),
            sk: E::SK.map(|t| t.to_string()),
            indexes,
            version: E::VERSION_ATTRIBUTE.map(str::to_owned),
            ttl: E::TTL_ATTRIBUTE.map(str::to_owned),
            created_at: E::CREATED_AT
                .map(|(_, a)| a.to_owned())
                .or_else(|| stamp(FieldRole::CreatedAt)),
            updated_at: stamp(FieldRole::UpdatedAt),
            fields,
        }
    }

    /// The entity's keys in `index`, if it is in it.
    pub fn index(&self, index: &str) -> Option<&EntityIndex> {
        self.indexes.iter().find(|i| i.index == index)
    }
}

/// Builds a [`Model`] from the table's, entities' and collections' types.
#[derive(Debug)]
#[must_use = "call `build()` for the model"]
pub struct ModelBuilder<T: Table> {
    model: Model,
    _table: std::marker::PhantomData<fn() -> T>,
}

impl<T: Table> ModelBuilder<T> {
    /// Adds entity `E` (an entity of this table: another table's does not compile).
    pub fn entity<E: Entity<Table = T>>(mut self) -> Self {
        self.model.entities.push(EntityModel::of::<E>());
        self
    }

    /// Adds collection `C` (a `#[derive(Collection)]`).
    pub fn collection<C: DescribeCollection>(mut self) -> Self {
        self.model.collections.push(C::describe());
        self
    }

    /// The model.
    pub fn build(self) -> Model {
        self.model
    }
}

impl Model {
    /// A model of table `T`, to which entities and collections are added. `#[derive(Table)]`
    /// with `#[dyno(entities(..), collections(..))]` generates `T::model()`, which calls this.
    pub fn builder<T: Table>() -> ModelBuilder<T> {
        ModelBuilder {
            model: Model {
                table: T::definition().clone(),
                entity_attribute: T::ENTITY_ATTRIBUTE.to_owned(),
                entities: Vec::new(),
                collections: Vec::new(),
            },
            _table: std::marker::PhantomData,
        }
    }

    /// The entity called `name`.
    pub fn entity(&self, name: &str) -> Option<&EntityModel> {
        self.entities.iter().find(|e| e.name == name)
    }

    /// The table's `CreateTable` request body ([`TableDef::to_create_table_json`]).
    pub fn to_create_table_json(&self) -> Value {
        self.table.to_create_table_json()
    }

    /// The table as a CloudFormation resource ([`TableDef::to_cloudformation_json`]).
    pub fn to_cloudformation_json(&self) -> Value {
        self.table.to_cloudformation_json()
    }

    /// Every access pattern: for each entity, the table query and one query per index; then
    /// each collection. (Each entity's `get`, `put`, `update` and `delete` by its primary key
    /// are in the entity chart, not repeated here.)
    pub fn access_patterns(&self) -> Vec<AccessPattern> {
        let table = &self.table;
        let pk_name = &table.partition_key.name;
        let sk_name = table.sort_key.as_ref().map(|k| k.name.as_str());
        let mut out = Vec::new();
        for e in &self.entities {
            out.push(AccessPattern {
                name: format!("{}::query", e.name),
                index: None,
                key_condition: format!("{pk_name} = {}", e.pk),
                sort_key: sk_name.zip(e.sk.as_ref()).map(|(n, t)| format!("{n}: {t}")),
                returns: vec![e.name.clone()],
            });
            for ix in &e.indexes {
                let def = table.index(&ix.index);
                let (key_condition, sort_key) = match &ix.keys {
                    IndexKeys::Templates { pk, sk, shards } => {
                        let ipk = def.map_or("?", |d| d.partition_key.name.as_str());
                        let isk = def
                            .and_then(|d| d.sort_key.as_ref())
                            .map(|k| k.name.as_str());
                        let shard = if *shards > 0 {
                            format!("#<shard 0..{shards}>")
                        } else {
                            String::new()
                        };
                        (
                            format!("{ipk} = {pk}{shard}"),
                            isk.zip(sk.as_ref()).map(|(n, t)| format!("{n}: {t}")),
                        )
                    }
                    IndexKeys::Attributes { partition, sort } => {
                        let attrs: Vec<String> = partition
                            .iter()
                            .zip(def.iter().flat_map(|d| d.partition_keys()))
                            .map(|(field, attr)| format!("{} = {{{field}}}", attr.name))
                            .collect();
                        let sorts: Vec<String> = sort
                            .iter()
                            .zip(def.iter().flat_map(|d| d.sort_keys()))
                            .map(|(field, attr)| format!("{}: {{{field}}}", attr.name))
                            .collect();
                        (
                            attrs.join(" AND "),
                            (!sorts.is_empty()).then(|| sorts.join(", ")),
                        )
                    }
                };
                out.push(AccessPattern {
                    name: format!("{}::{}", e.name, ix.query),
                    index: Some(ix.index.clone()),
                    key_condition,
                    sort_key,
                    returns: vec![e.name.clone()],
                });
            }
        }
        for c in &self.collections {
            let partition = self.entity(&c.partition);
            let (key_condition, sort_key) = match (&c.index, partition) {
                (None, Some(p)) => (format!("{pk_name} = {}", p.pk), None),
                (Some(index), Some(p)) => match p.index(index).map(|i| &i.keys) {
                    Some(IndexKeys::Templates { pk, .. }) => {
                        let ipk = table
                            .index(index)
                            .map_or("?", |d| d.partition_key.name.as_str());
                        (format!("{ipk} = {pk}"), None)
                    }
                    Some(IndexKeys::Attributes { partition, .. }) => {
                        let attrs: Vec<String> = partition
                            .iter()
                            .zip(table.index(index).iter().flat_map(|d| d.partition_keys()))
                            .map(|(field, attr)| format!("{} = {{{field}}}", attr.name))
                            .collect();
                        (attrs.join(" AND "), None)
                    }
                    None => (String::from("?"), None),
                },
                // The partition entity is not in the model: the condition is not known here.
                (_, None) => (format!("the partition key of {}", c.partition), None),
            };
            // On a multi-attribute index a collection is read from its partition entity's
            // typed query (`Task::by_status(..).collection::<Work>()`).
            let from_member = match (&c.index, partition) {
                (Some(index), Some(p)) => p
                    .index(index)
                    .filter(|i| matches!(i.keys, IndexKeys::Attributes { .. }))
                    .map(|i| format!("{}::{}(..).collection::<{}>()", p.name, i.query, c.name)),
                _ => None,
            };
            out.push(AccessPattern {
                name: from_member.unwrap_or_else(|| format!("{}::{}", c.name, c.query)),
                index: c.index.clone(),
                key_condition,
                sort_key,
                returns: c.members.clone(),
            });
        }
        out
    }

    /// The design document, in Markdown: the table, the entity chart (each entity's primary
    /// key and index keys, one column per key attribute) and the access-pattern table (name,
    /// index, key condition, entities returned), then each entity's attributes.
    pub fn design_document(&self) -> String {
        let t = &self.table;
        let mut out = String::new();
        let _ = writeln!(out, "# Table `{}`\n", t.name);
        let _ = writeln!(
            out,
            "Partition key `{}`{}; entity type in `{}`{}.\n",
            t.partition_key.name,
            t.sort_key
                .as_ref()
                .map(|k| format!(", sort key `{}`", k.name))
                .unwrap_or_default(),
            self.entity_attribute,
            t.ttl_attribute
                .as_ref()
                .map(|a| format!("; TTL attribute `{a}`"))
                .unwrap_or_default(),
        );
        let indexes: Vec<(&IndexDef, bool)> = t
            .global_indexes
            .iter()
            .map(|i| (i, false))
            .chain(t.local_indexes.iter().map(|i| (i, true)))
            .collect();
        if !indexes.is_empty() {
            out.push_str(
                "| Index | Kind | Partition key | Sort key | Projection |\n|---|---|---|---|---|\n",
            );
            for (i, local) in &indexes {
                let names = |keys: &mut dyn Iterator<Item = &KeyAttribute>| {
                    keys.map(|k| format!("{} ({})", k.name, k.ty.name()))
                        .collect::<Vec<_>>()
                        .join(" + ")
                };
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} |",
                    i.name,
                    if *local { "local" } else { "global" },
                    names(&mut i.partition_keys()),
                    names(&mut i.sort_keys()),
                    projection_text(&i.projection),
                );
            }
            out.push('\n');
        }

        // The entity chart: one column per key attribute of the table and its indexes.
        out.push_str("## Entity chart\n\n");
        let mut columns: Vec<String> = vec![t.partition_key.name.clone()];
        columns.extend(t.sort_key.as_ref().map(|k| k.name.clone()));
        for (i, _) in &indexes {
            for k in i.key_attributes() {
                if !columns.contains(&k.name) {
                    columns.push(k.name.clone());
                }
            }
        }
        let _ = writeln!(out, "| Entity | {} |", columns.join(" | "));
        let _ = writeln!(out, "|---|{}", "---|".repeat(columns.len()));
        for e in &self.entities {
            let cells: Vec<String> = columns.iter().map(|c| cell(&key_cell(t, e, c))).collect();
            let _ = writeln!(out, "| {} | {} |", e.name, cells.join(" | "));
        }
        out.push('\n');

        out.push_str("## Access patterns\n\n| Access pattern | Index | Key condition | Sort key | Returns |\n|---|---|---|---|---|\n");
        for p in self.access_patterns() {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} | {} |",
                p.name,
                p.index.as_deref().unwrap_or("table"),
                cell(&p.key_condition),
                cell(p.sort_key.as_deref().unwrap_or("")),
                p.returns.join(", "),
            );
        }
        out.push('\n');

        out.push_str("## Entities\n");
        for e in &self.entities {
            let _ = writeln!(out, "\n### {}\n", e.name);
            let mut notes = Vec::new();
            if let Some(v) = &e.version {
                notes.push(format!("version `{v}`"));
            }
            if let Some(a) = &e.created_at {
                notes.push(format!("created at `{a}`"));
            }
            if let Some(a) = &e.updated_at {
                notes.push(format!("updated at `{a}`"));
            }
            if let Some(a) = &e.ttl {
                notes.push(format!("TTL `{a}`"));
            }
            if !notes.is_empty() {
                let _ = writeln!(out, "Stamps: {}.\n", notes.join(", "));
            }
            if e.fields.is_empty() {
                out.push_str("(fields not described: a hand-written `Entity` impl)\n");
                continue;
            }
            out.push_str("| Field | Attribute | Type | Key | Role |\n|---|---|---|---|---|\n");
            for f in &e.fields {
                let _ = writeln!(
                    out,
                    "| {} | {} | `{}` | {} | {} |",
                    f.name,
                    f.attribute,
                    f.rust_type,
                    if f.in_key { "yes" } else { "" },
                    role_text(f.role),
                );
            }
        }
        out
    }

    /// The model as a NoSQL Workbench data model (format [`WORKBENCH_FORMAT_VERSION`]): the
    /// table's key attributes, its global secondary indexes, every non-key attribute with its
    /// type, and one facet per entity holding its sample items from `samples` (items of any
    /// entity, as read from a store: each goes to the facet its entity-type attribute names;
    /// items of no entity of the model are left out). Import it in NoSQL Workbench with
    /// *Data modeler*, *Import data model*.
    pub fn to_workbench_json(&self, samples: &[Item]) -> Value {
        let t = &self.table;
        let key_names: Vec<&str> = t.key_names().collect();
        let key = |k: &KeyAttribute| json!({"AttributeName": k.name, "AttributeType": k.ty.name()});
        let key_attributes = |pk: &KeyAttribute, sk: Option<&KeyAttribute>| {
            let mut v = json!({"PartitionKey": key(pk)});
            if let Some(sk) = sk {
                v["SortKey"] = key(sk);
            }
            v
        };
        // Every attribute besides the table's keys, with a type: index keys, the entity-type
        // attribute, then fields (their type from a sample item when there is one).
        let mut non_key: Vec<(String, String)> = Vec::new();
        let mut add = |name: &str, ty: String| {
            if !key_names.contains(&name) && !non_key.iter().any(|(n, _)| n == name) {
                non_key.push((name.to_owned(), ty));
            }
        };
        for k in t.attribute_definitions() {
            add(&k.name, k.ty.name().to_owned());
        }
        add(&self.entity_attribute, "S".to_owned());
        if let Some(ttl) = &t.ttl_attribute {
            add(ttl, "N".to_owned());
        }
        for e in &self.entities {
            for f in &e.fields {
                let sampled = samples
                    .iter()
                    .filter(|i| self.entity_of(i) == Some(e.name.as_str()))
                    .find_map(|i| i.get(&f.attribute))
                    .map(type_name);
                add(
                    &f.attribute,
                    sampled
                        .unwrap_or_else(|| guess_type(&f.rust_type))
                        .to_owned(),
                );
            }
        }
        let facets: Vec<Value> = self
            .entities
            .iter()
            .map(|e| {
                let data: Vec<Value> = samples
                    .iter()
                    .filter(|i| self.entity_of(i) == Some(e.name.as_str()))
                    .map(|i| {
                        let mut names: Vec<&String> = i.keys().collect();
                        names.sort();
                        let map: serde_json::Map<String, Value> = names
                            .into_iter()
                            .map(|n| (n.clone(), attribute_json(&i[n])))
                            .collect();
                        Value::Object(map)
                    })
                    .collect();
                let mut attributes: Vec<String> = Vec::new();
                let mut push = |a: &str| {
                    if !key_names.contains(&a) && !attributes.iter().any(|x| x == a) {
                        attributes.push(a.to_owned());
                    }
                };
                for ix in &e.indexes {
                    if let Some(def) = t.index(&ix.index) {
                        for k in def.key_attributes() {
                            push(&k.name);
                        }
                    }
                }
                for f in &e.fields {
                    push(&f.attribute);
                }
                push(&self.entity_attribute);
                let mut alias = json!({"PartitionKeyAlias": e.pk});
                if let Some(sk) = &e.sk {
                    alias["SortKeyAlias"] = json!(sk);
                }
                json!({
                    "FacetName": e.name,
                    "KeyAttributeAlias": alias,
                    "TableData": data,
                    "NonKeyAttributes": attributes,
                    "DataAccess": {"MySql": {}},
                })
            })
            .collect();
        let gsis: Vec<Value> = t
            .global_indexes
            .iter()
            .map(|i| {
                // The format has one partition and one sort attribute per index: a
                // multi-attribute key shows its first ones.
                json!({
                    "IndexName": i.name,
                    "KeyAttributes": key_attributes(&i.partition_key, i.sort_key.as_ref()),
                    "Projection": {"ProjectionType": match i.projection {
                        Projection::All => "ALL",
                        Projection::KeysOnly => "KEYS_ONLY",
                        Projection::Include(_) => "INCLUDE",
                    }},
                })
            })
            .collect();
        let mut table = json!({
            "TableName": t.name,
            "KeyAttributes": key_attributes(&t.partition_key, t.sort_key.as_ref()),
            "NonKeyAttributes": non_key
                .iter()
                .map(|(n, ty)| json!({"AttributeName": n, "AttributeType": ty}))
                .collect::<Vec<_>>(),
            "TableFacets": facets,
        });
        if !gsis.is_empty() {
            table["GlobalSecondaryIndexes"] = Value::Array(gsis);
        }
        table["DataAccess"] = json!({"MySql": {}});
        json!({
            "ModelName": t.name,
            "ModelMetadata": {
                "Author": "dyno",
                "DateCreated": "",
                "DateLastModified": "",
                "Description": format!("The {} table's model, exported by dyno from its entity declarations.", t.name),
                "Version": WORKBENCH_FORMAT_VERSION,
            },
            "DataModel": [table],
        })
    }

    /// Up to `per_entity` items of each entity of the model, read from the table in `store` (a
    /// scan, page by page, stopping once every entity has its share): sample items for
    /// [`Model::to_workbench_json`]. The table is read under its name in the model; a store
    /// that maps names (`dyno_core::store::TableNames`) maps it.
    pub async fn sample_items<S: Store + ?Sized>(
        &self,
        store: &S,
        per_entity: usize,
    ) -> Result<Vec<Item>> {
        let mut out: Vec<Item> = Vec::new();
        let mut counts = vec![0usize; self.entities.len()];
        let mut start = None;
        loop {
            let page = store
                .scan(ScanRequest {
                    table: self.table.name.clone(),
                    exclusive_start_key: start.take(),
                    ..ScanRequest::default()
                })
                .await?;
            for item in page.items {
                let Some(name) = self.entity_of(&item) else {
                    continue;
                };
                let Some(i) = self.entities.iter().position(|e| e.name == name) else {
                    continue;
                };
                if counts[i] < per_entity {
                    counts[i] += 1;
                    out.push((*item).clone());
                }
            }
            match page.last_evaluated_key {
                Some(key) if counts.iter().any(|c| *c < per_entity) => start = Some(key),
                _ => return Ok(out),
            }
        }
    }

    /// The entity of the model an item belongs to, by its entity-type attribute.
    fn entity_of<'i>(&self, item: &'i Item) -> Option<&'i str> {
        match item.get(&self.entity_attribute) {
            Some(AttributeValue::S(name)) if self.entity(name).is_some() => Some(name),
            _ => None,
        }
    }
}

/// What an entity writes to key attribute `column`: its template, or a multi-attribute key's
/// field; empty when it writes nothing there.
fn key_cell(t: &TableDef, e: &EntityModel, column: &str) -> String {
    if column == t.partition_key.name {
        return e.pk.clone();
    }
    if t.sort_key.as_ref().is_some_and(|k| k.name == column) {
        return e.sk.clone().unwrap_or_default();
    }
    let mut cells = Vec::new();
    for ix in &e.indexes {
        let Some(def) = t.index(&ix.index) else {
            continue;
        };
        match &ix.keys {
            IndexKeys::Templates { pk, sk, shards } => {
                if def.partition_key.name == column && !t.is_local_index(&def.name) {
                    let shard = if *shards > 0 { "#<shard>" } else { "" };
                    cells.push(format!("{pk}{shard}"));
                }
                if def.sort_key.as_ref().is_some_and(|k| k.name == column)
                    && let Some(sk) = sk
                {
                    cells.push(sk.clone());
                }
            }
            IndexKeys::Attributes { partition, sort } => {
                let fields = partition
                    .iter()
                    .zip(def.partition_keys())
                    .chain(sort.iter().zip(def.sort_keys()));
                for (field, attr) in fields {
                    if attr.name == column {
                        cells.push(format!("{{{field}}}"));
                    }
                }
            }
        }
    }
    cells.dedup();
    cells.join(", ")
}

/// Escapes a table cell's `|`.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

fn projection_text(p: &Projection) -> String {
    match p {
        Projection::All => "all".to_owned(),
        Projection::KeysOnly => "keys only".to_owned(),
        Projection::Include(a) => format!("keys + {}", a.join(", ")),
    }
}

fn role_text(role: FieldRole) -> &'static str {
    match role {
        FieldRole::Plain => "",
        FieldRole::Version => "version",
        FieldRole::CreatedAt => "created at",
        FieldRole::UpdatedAt => "updated at",
        FieldRole::Ttl => "TTL",
        FieldRole::Generated => "generated id",
    }
}

/// `GSI1` → `gsi1`, `ByStatus` → `by_status`: the derive's method name for an index.
fn snake(name: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev_lower =
                i > 0 && (chars[i - 1].is_lowercase() || chars[i - 1].is_ascii_digit());
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if i > 0 && (prev_lower || (next_lower && chars[i - 1].is_uppercase())) {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else if *c == '-' || *c == ' ' || *c == '.' {
            out.push('_');
        } else {
            out.push(*c);
        }
    }
    out
}

/// DynamoDB's type name of a value (`S`, `N`, `BOOL`, `M`, ...).
fn type_name(v: &AttributeValue) -> &'static str {
    match v {
        AttributeValue::S(_) => "S",
        AttributeValue::N(_) => "N",
        AttributeValue::B(_) => "B",
        AttributeValue::Bool(_) => "BOOL",
        AttributeValue::Null(_) => "NULL",
        AttributeValue::M(_) => "M",
        AttributeValue::L(_) => "L",
        AttributeValue::Ss(_) => "SS",
        AttributeValue::Ns(_) => "NS",
        AttributeValue::Bs(_) => "BS",
        _ => "S",
    }
}

/// A field's DynamoDB type from its Rust type, when no sample shows it.
fn guess_type(rust: &str) -> &'static str {
    let inner = rust
        .strip_prefix("Option<")
        .and_then(|s| s.strip_suffix('>'))
        .unwrap_or(rust);
    let base = inner.rsplit("::").next().unwrap_or(inner);
    match base {
        "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "i8" | "i16" | "i32" | "i64" | "i128"
        | "isize" | "f32" | "f64" | "Decimal" => "N",
        "bool" => "BOOL",
        "Vec<u8>" | "Bytes" => "B",
        _ if base.starts_with("Vec<") => "L",
        _ if base.starts_with("HashMap<") || base.starts_with("BTreeMap<") => "M",
        _ if base.starts_with("HashSet<") || base.starts_with("BTreeSet<") => "SS",
        _ => "S",
    }
}

/// A value in DynamoDB's JSON form (`{"S": "..."}`), as Workbench's `TableData` holds it.
fn attribute_json(v: &AttributeValue) -> Value {
    use base64::Engine as _;
    let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
    match v {
        AttributeValue::S(s) => json!({"S": s}),
        AttributeValue::N(n) => json!({"N": n}),
        AttributeValue::B(b) => json!({"B": b64(b.as_ref())}),
        AttributeValue::Bool(b) => json!({"BOOL": b}),
        AttributeValue::Null(_) => json!({"NULL": true}),
        AttributeValue::M(m) => {
            let mut names: Vec<&String> = m.keys().collect();
            names.sort();
            let map: serde_json::Map<String, Value> = names
                .into_iter()
                .map(|n| (n.clone(), attribute_json(&m[n])))
                .collect();
            json!({"M": map})
        }
        AttributeValue::L(l) => json!({"L": l.iter().map(attribute_json).collect::<Vec<_>>()}),
        AttributeValue::Ss(s) => json!({"SS": s}),
        AttributeValue::Ns(n) => json!({"NS": n}),
        AttributeValue::Bs(b) => {
            json!({"BS": b.iter().map(|b| b64(b.as_ref())).collect::<Vec<_>>()})
        }
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_names_indexes_as_the_derive_does() {
        assert_eq!(snake("GSI1"), "gsi1");
        assert_eq!(snake("ByStatus"), "by_status");
        assert_eq!(snake("gsi1pk-gsi1sk-index"), "gsi1pk_gsi1sk_index");
    }

    #[test]
    fn guessed_types_follow_the_codec() {
        assert_eq!(guess_type("Option<u64>"), "N");
        assert_eq!(guess_type("String"), "S");
        assert_eq!(guess_type("Vec<String>"), "L");
        assert_eq!(guess_type("bool"), "BOOL");
        assert_eq!(guess_type("rust_decimal::Decimal"), "N");
    }
}
