//! The physical table: name, key attributes, indexes, TTL and entity-type attributes; creating it
//! and exporting its definition.

use crate::feed::StreamView;
use crate::value::AttributeValue;

/// The scalar types a key attribute can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScalarType {
    /// String.
    S,
    /// Number.
    N,
    /// Binary.
    B,
}

impl ScalarType {
    /// The name DynamoDB uses.
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::S => "S",
            ScalarType::N => "N",
            ScalarType::B => "B",
        }
    }

    /// True when `value` has this type.
    pub fn matches(self, value: &AttributeValue) -> bool {
        matches!(
            (self, value),
            (ScalarType::S, AttributeValue::S(_))
                | (ScalarType::N, AttributeValue::N(_))
                | (ScalarType::B, AttributeValue::B(_))
        )
    }
}

/// A key attribute: name and type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KeyAttribute {
    /// Attribute name.
    pub name: String,
    /// Attribute type.
    pub ty: ScalarType,
}

impl KeyAttribute {
    /// A string key attribute (what key templates produce).
    pub fn string(name: impl Into<String>) -> Self {
        KeyAttribute {
            name: name.into(),
            ty: ScalarType::S,
        }
    }

    /// A key attribute of any scalar type.
    pub fn new(name: impl Into<String>, ty: ScalarType) -> Self {
        KeyAttribute {
            name: name.into(),
            ty,
        }
    }
}

/// Which attributes an index holds.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Projection {
    /// Every attribute.
    All,
    /// Only the table's and the index's key attributes.
    KeysOnly,
    /// The keys plus these attributes.
    Include(Vec<String>),
}

/// A global or local secondary index.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IndexDef {
    /// Index name.
    pub name: String,
    /// Partition key (for an LSI, the table's partition key).
    pub partition_key: KeyAttribute,
    /// Sort key.
    pub sort_key: Option<KeyAttribute>,
    /// Projected attributes.
    pub projection: Projection,
}

impl IndexDef {
    /// An index with string keys projecting all attributes.
    pub fn new(name: impl Into<String>, pk: impl Into<String>, sk: Option<&str>) -> Self {
        IndexDef {
            name: name.into(),
            partition_key: KeyAttribute::string(pk),
            sort_key: sk.map(KeyAttribute::string),
            projection: Projection::All,
        }
    }

    /// The same index with another projection.
    #[must_use]
    pub fn projection(mut self, projection: Projection) -> Self {
        self.projection = projection;
        self
    }
}

/// An index a `#[derive(Table)]` declares, as a constant of the table named after the index in
/// upper snake case (`ECommerce::GSI1`, `Ledger::BY_DAY` for `ByDay`): its name and key
/// attributes. `#[derive(Entity)]` reads it to place the entity in the index, so an index the
/// table does not declare is a compile error at its name. It reads as the index name (`Deref` to
/// `str`, compares equal to it).
///
/// ```
/// use dyno_core::Table;
///
/// #[derive(Table)]
/// #[dyno(name = "Shop", pk = "PK", sk = "SK")]
/// #[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
/// struct Shop;
///
/// assert_eq!(Shop::GSI1, "GSI1");
/// assert_eq!((Shop::GSI1.partition_key, Shop::GSI1.sort_key), ("GSI1PK", Some("GSI1SK")));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TableIndex {
    /// Index name.
    pub name: &'static str,
    /// Partition key attribute (the table's, for a local index).
    pub partition_key: &'static str,
    /// Sort key attribute.
    pub sort_key: Option<&'static str>,
    /// True for a local secondary index.
    pub local: bool,
}

impl TableIndex {
    /// The sort key attribute, `""` when the index has none (for constant contexts).
    pub const fn sort_key_or_empty(&self) -> &'static str {
        match self.sort_key {
            Some(sk) => sk,
            None => "",
        }
    }
}

impl std::ops::Deref for TableIndex {
    type Target = str;

    fn deref(&self) -> &str {
        self.name
    }
}

impl AsRef<str> for TableIndex {
    fn as_ref(&self) -> &str {
        self.name
    }
}

impl std::fmt::Display for TableIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl PartialEq<str> for TableIndex {
    fn eq(&self, other: &str) -> bool {
        self.name == other
    }
}

impl PartialEq<&str> for TableIndex {
    fn eq(&self, other: &&str) -> bool {
        self.name == *other
    }
}

/// A table's definition, as `CreateTable` needs it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TableDef {
    /// Table name.
    pub name: String,
    /// Partition key.
    pub partition_key: KeyAttribute,
    /// Sort key.
    pub sort_key: Option<KeyAttribute>,
    /// Global secondary indexes.
    pub global_indexes: Vec<IndexDef>,
    /// Local secondary indexes (same partition key as the table).
    pub local_indexes: Vec<IndexDef>,
    /// The TTL attribute (epoch seconds), when TTL is enabled.
    pub ttl_attribute: Option<String>,
    /// The table's stream (`StreamSpecification`), when enabled: what each change record
    /// carries. See [`crate::feed`].
    pub stream: Option<StreamView>,
}

impl TableDef {
    /// A table with string partition and (optional) sort keys and no index.
    pub fn new(name: impl Into<String>, pk: impl Into<String>, sk: Option<&str>) -> Self {
        TableDef {
            name: name.into(),
            partition_key: KeyAttribute::string(pk),
            sort_key: sk.map(KeyAttribute::string),
            global_indexes: Vec::new(),
            local_indexes: Vec::new(),
            ttl_attribute: None,
            stream: None,
        }
    }

    /// Adds a global secondary index.
    #[must_use]
    pub fn global_index(mut self, index: IndexDef) -> Self {
        self.global_indexes.push(index);
        self
    }

    /// Adds a local secondary index.
    #[must_use]
    pub fn local_index(mut self, index: IndexDef) -> Self {
        self.local_indexes.push(index);
        self
    }

    /// Sets the TTL attribute.
    #[must_use]
    pub fn ttl(mut self, attribute: impl Into<String>) -> Self {
        self.ttl_attribute = Some(attribute.into());
        self
    }

    /// Enables the table's stream with the given view type (`StreamSpecification`).
    #[must_use]
    pub fn stream(mut self, view: StreamView) -> Self {
        self.stream = Some(view);
        self
    }

    /// The same definition under another name (per-test or per-environment tables).
    #[must_use]
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The index called `name`, global or local.
    pub fn index(&self, name: &str) -> Option<&IndexDef> {
        self.global_indexes
            .iter()
            .chain(&self.local_indexes)
            .find(|i| i.name == name)
    }

    /// True when `name` is a local secondary index.
    pub fn is_local_index(&self, name: &str) -> bool {
        self.local_indexes.iter().any(|i| i.name == name)
    }

    /// The key attributes of the table and of every index, each once, with their types
    /// (`AttributeDefinitions`).
    pub fn attribute_definitions(&self) -> Vec<KeyAttribute> {
        let mut out: Vec<KeyAttribute> = Vec::new();
        let all = std::iter::once(&self.partition_key)
            .chain(self.sort_key.as_ref())
            .chain(
                self.global_indexes
                    .iter()
                    .chain(&self.local_indexes)
                    .flat_map(|i| std::iter::once(&i.partition_key).chain(i.sort_key.as_ref())),
            );
        for k in all {
            if !out.iter().any(|o| o.name == k.name) {
                out.push(k.clone());
            }
        }
        out
    }

    /// The primary-key attribute names of the table (partition, then sort).
    pub fn key_names(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.partition_key.name.as_str())
            .chain(self.sort_key.as_ref().map(|k| k.name.as_str()))
    }

    /// The definition as the JSON body of a `CreateTable` request (on-demand billing), for the
    /// AWS CLI (`aws dynamodb create-table --cli-input-json`) or infrastructure tools.
    pub fn to_create_table_json(&self) -> serde_json::Value {
        use serde_json::json;
        let key_schema = |pk: &KeyAttribute, sk: Option<&KeyAttribute>| {
            let mut v = vec![json!({"AttributeName": pk.name, "KeyType": "HASH"})];
            if let Some(sk) = sk {
                v.push(json!({"AttributeName": sk.name, "KeyType": "RANGE"}));
            }
            v
        };
        let projection = |p: &Projection| match p {
            Projection::All => json!({"ProjectionType": "ALL"}),
            Projection::KeysOnly => json!({"ProjectionType": "KEYS_ONLY"}),
            Projection::Include(a) => json!({"ProjectionType": "INCLUDE", "NonKeyAttributes": a}),
        };
        let index = |i: &IndexDef| {
            json!({
                "IndexName": i.name,
                "KeySchema": key_schema(&i.partition_key, i.sort_key.as_ref()),
                "Projection": projection(&i.projection),
            })
        };
        let mut out = json!({
            "TableName": self.name,
            "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": self.attribute_definitions().iter()
                .map(|k| json!({"AttributeName": k.name, "AttributeType": k.ty.name()}))
                .collect::<Vec<_>>(),
            "KeySchema": key_schema(&self.partition_key, self.sort_key.as_ref()),
        });
        if !self.global_indexes.is_empty() {
            out["GlobalSecondaryIndexes"] = self.global_indexes.iter().map(index).collect();
        }
        if !self.local_indexes.is_empty() {
            out["LocalSecondaryIndexes"] = self.local_indexes.iter().map(index).collect();
        }
        if let Some(view) = self.stream {
            out["StreamSpecification"] =
                json!({"StreamEnabled": true, "StreamViewType": view.as_str()});
        }
        out
    }

    /// A CloudFormation `AWS::DynamoDB::Table` resource for this table, TTL included.
    pub fn to_cloudformation_json(&self) -> serde_json::Value {
        let mut props = self.to_create_table_json();
        if let Some(ttl) = &self.ttl_attribute {
            props["TimeToLiveSpecification"] =
                serde_json::json!({"AttributeName": ttl, "Enabled": true});
        }
        serde_json::json!({"Type": "AWS::DynamoDB::Table", "Properties": props})
    }
}

/// A table as a type: what `#[derive(Table)]` implements.
pub trait Table: Send + Sync + 'static {
    /// The table's definition. The name is the default; stores can map it (see
    /// [`crate::store::Store`]).
    fn definition() -> &'static TableDef;

    /// The attribute holding each item's entity type.
    const ENTITY_ATTRIBUTE: &'static str = "_type";
}
