//! The physical table: name, key attributes, indexes, TTL and entity-type attributes; creating it
//! and exporting its definition.

use crate::error::{Error, Result};
pub use crate::value::ScalarType;

/// `a == b`, in constant contexts.
pub(crate) const fn const_str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// What a stream record carries of the item (`StreamViewType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StreamView {
    /// The key attributes only.
    KeysOnly,
    /// The item as it is after the change.
    NewImage,
    /// The item as it was before the change.
    OldImage,
    /// Both.
    NewAndOldImages,
}

impl StreamView {
    /// DynamoDB's name for it (`NEW_AND_OLD_IMAGES`...).
    pub fn as_str(self) -> &'static str {
        match self {
            StreamView::KeysOnly => "KEYS_ONLY",
            StreamView::NewImage => "NEW_IMAGE",
            StreamView::OldImage => "OLD_IMAGE",
            StreamView::NewAndOldImages => "NEW_AND_OLD_IMAGES",
        }
    }

    /// True when records carry the new image.
    pub fn has_new(self) -> bool {
        matches!(self, StreamView::NewImage | StreamView::NewAndOldImages)
    }

    /// True when records carry the old image.
    pub fn has_old(self) -> bool {
        matches!(self, StreamView::OldImage | StreamView::NewAndOldImages)
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

/// The most attributes a multi-attribute partition key, or sort key, of a global secondary index
/// can have.
pub const MAX_KEY_ATTRIBUTES_PER_KIND: usize = 4;

/// A global or local secondary index.
///
/// A global secondary index can have a **multi-attribute key**: up to four attributes form its
/// partition key and up to four its sort key, each with its own type ([`IndexDef::multi`]).
/// `partition_key` and `sort_key` are then the first attribute of each, and
/// `extra_partition_keys` and `extra_sort_keys` the others in key order; read them together with
/// [`IndexDef::partition_keys`] and [`IndexDef::sort_keys`]. An item is in such an index only
/// when it holds every one of them; the index orders by each sort attribute in turn.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IndexDef {
    /// Index name.
    pub name: String,
    /// Partition key (for an LSI, the table's partition key); the first of a multi-attribute one.
    pub partition_key: KeyAttribute,
    /// Sort key; the first of a multi-attribute one.
    pub sort_key: Option<KeyAttribute>,
    /// The second to fourth attributes of a multi-attribute partition key, in key order (empty
    /// for a single-attribute key).
    pub extra_partition_keys: Vec<KeyAttribute>,
    /// The second to fourth attributes of a multi-attribute sort key, in key order (empty for a
    /// single-attribute key; `sort_key` is then set).
    pub extra_sort_keys: Vec<KeyAttribute>,
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
            extra_partition_keys: Vec::new(),
            extra_sort_keys: Vec::new(),
            projection: Projection::All,
        }
    }

    /// An index with typed keys projecting all attributes: a single-attribute key, or (on a
    /// global secondary index) a multi-attribute one of 1 to 4 partition attributes and 0 to 4
    /// sort attributes, each with its own type, in key order. Checked as DynamoDB's CreateTable
    /// checks a key schema ([`IndexDef::check_key_schema`]).
    ///
    /// ```
    /// use dyno_core::table::{IndexDef, KeyAttribute, ScalarType, TableDef};
    ///
    /// let by_status = IndexDef::multi(
    ///     "ByStatus",
    ///     [KeyAttribute::string("tenant"), KeyAttribute::string("status")],
    ///     [KeyAttribute::new("priority", ScalarType::N), KeyAttribute::string("created")],
    /// )?;
    /// let def = TableDef::new("Tracker", "PK", Some("SK")).global_index(by_status);
    /// let json = def.to_create_table_json();
    /// let key_types: Vec<&str> = json["GlobalSecondaryIndexes"][0]["KeySchema"]
    ///     .as_array().unwrap().iter().map(|k| k["KeyType"].as_str().unwrap()).collect();
    /// assert_eq!(key_types, ["HASH", "HASH", "RANGE", "RANGE"]);
    /// assert!(IndexDef::multi("Bad", [], [KeyAttribute::string("s")]).is_err());
    /// # Ok::<(), dyno_core::Error>(())
    /// ```
    pub fn multi(
        name: impl Into<String>,
        partition: impl IntoIterator<Item = KeyAttribute>,
        sort: impl IntoIterator<Item = KeyAttribute>,
    ) -> Result<Self> {
        let name = name.into();
        let mut partition = partition.into_iter();
        let mut sort = sort.into_iter();
        let Some(partition_key) = partition.next() else {
            return Err(Error::validation(format!(
                "One or more parameter values were invalid: the KeySchema of index {name} has no HASH key attribute"
            )));
        };
        let index = IndexDef {
            name,
            partition_key,
            sort_key: sort.next(),
            extra_partition_keys: partition.collect(),
            extra_sort_keys: sort.collect(),
            projection: Projection::All,
        };
        index.check_key_schema()?;
        Ok(index)
    }

    /// Every partition key attribute, in key order (one unless the key is multi-attribute).
    pub fn partition_keys(&self) -> impl Iterator<Item = &KeyAttribute> + Clone {
        std::iter::once(&self.partition_key).chain(&self.extra_partition_keys)
    }

    /// Every sort key attribute, in key order (none, one, or up to four).
    pub fn sort_keys(&self) -> impl Iterator<Item = &KeyAttribute> + Clone {
        self.sort_key.iter().chain(&self.extra_sort_keys)
    }

    /// Every key attribute of the index: partition attributes, then sort attributes.
    pub fn key_attributes(&self) -> impl Iterator<Item = &KeyAttribute> + Clone {
        self.partition_keys().chain(self.sort_keys())
    }

    /// True when the partition key or the sort key has more than one attribute.
    pub fn is_multi_attribute(&self) -> bool {
        !self.extra_partition_keys.is_empty() || !self.extra_sort_keys.is_empty()
    }

    /// True when `name` is one of the index's key attributes.
    pub fn has_key_attribute(&self, name: &str) -> bool {
        self.key_attributes().any(|k| k.name == name)
    }

    /// Checks the key schema's shape as DynamoDB's CreateTable does, with its messages: at most
    /// four partition and four sort attributes, no attribute twice, and sort attributes beyond
    /// the first only after a first one. Types are S, N or B by construction ([`ScalarType`]).
    /// (A single-attribute key's partition and sort key of one name are the table's check, with
    /// the message it has always had.)
    /// Whether a multi-attribute key is allowed at all (global indexes only) is the table's
    /// check ([`TableDef::check_key_schemas`]).
    pub fn check_key_schema(&self) -> Result<()> {
        if self.sort_key.is_none() && !self.extra_sort_keys.is_empty() {
            return Err(Error::validation(format!(
                "One or more parameter values were invalid: index {} has extra sort key attributes without a first one",
                self.name
            )));
        }
        if !self.is_multi_attribute() {
            return Ok(());
        }
        let keys: Vec<&KeyAttribute> = self.key_attributes().collect();
        if keys.len() > 2 * MAX_KEY_ATTRIBUTES_PER_KIND {
            return Err(Error::validation(format!(
                "1 validation error detected: Value '{}' at 'keySchema' failed to satisfy constraint: Member must have length less than or equal to {}",
                self.key_schema_text(),
                2 * MAX_KEY_ATTRIBUTES_PER_KIND
            )));
        }
        if keys
            .iter()
            .enumerate()
            .any(|(i, k)| keys[..i].iter().any(|e| e.name == k.name))
        {
            return Err(Error::validation(
                "The KeySchema contains multiple key attributes with the same name",
            ));
        }
        for (kind, count) in [
            ("HASH", 1 + self.extra_partition_keys.len()),
            ("RANGE", self.sort_keys().count()),
        ] {
            if count > MAX_KEY_ATTRIBUTES_PER_KIND {
                return Err(Error::validation(format!(
                    "One or more parameter values were invalid: The KeySchema exceeds the maximum allowed number of {kind} key attributes"
                )));
            }
        }
        Ok(())
    }

    /// The key schema as DynamoDB prints it in a validation message.
    fn key_schema_text(&self) -> String {
        let parts: Vec<String> = self
            .partition_keys()
            .map(|k| (k, "HASH"))
            .chain(self.sort_keys().map(|k| (k, "RANGE")))
            .map(|(k, ty)| format!("KeySchemaElement(attributeName={}, keyType={ty})", k.name))
            .collect();
        format!("[{}]", parts.join(", "))
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
    /// Every partition key attribute and its type, in key order (one, but for a multi-attribute
    /// key).
    pub partition_attributes: &'static [(&'static str, ScalarType)],
    /// Every sort key attribute and its type, in key order (none, one, or up to four for a
    /// multi-attribute key).
    pub sort_attributes: &'static [(&'static str, ScalarType)],
}

impl TableIndex {
    /// Attribute `position` of the partition key (`sort`: of the sort key) and its type, if the
    /// key has that many attributes.
    pub const fn key_attribute(
        &self,
        sort: bool,
        position: usize,
    ) -> Option<(&'static str, ScalarType)> {
        let attributes = if sort {
            self.sort_attributes
        } else {
            self.partition_attributes
        };
        if position < attributes.len() {
            Some(attributes[position])
        } else {
            None
        }
    }

    /// True when attribute `position` of the partition key (`sort`: of the sort key) is called
    /// `name`: what `#[derive(Entity)]` asserts, at compile time, for each field it maps onto a
    /// key attribute (`index(GSI3, pk = [tenant, status])`).
    pub const fn names(&self, sort: bool, position: usize, name: &str) -> bool {
        match self.key_attribute(sort, position) {
            Some((declared, _)) => const_str_eq(declared, name),
            None => false,
        }
    }

    /// True when attribute `position` of the partition key (`sort`: of the sort key) has type
    /// `ty` (`None`, a field type without a scalar form, never has).
    pub const fn types(&self, sort: bool, position: usize, ty: Option<ScalarType>) -> bool {
        match (self.key_attribute(sort, position), ty) {
            (Some((_, declared)), Some(ty)) => declared as u8 == ty as u8,
            _ => false,
        }
    }

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

    /// Checks every index's key schema ([`IndexDef::check_key_schema`]) and that only global
    /// secondary indexes have multi-attribute keys, with DynamoDB's messages.
    pub fn check_key_schemas(&self) -> Result<()> {
        for index in self.global_indexes.iter().chain(&self.local_indexes) {
            index.check_key_schema()?;
        }
        if let Some(local) = self.local_indexes.iter().find(|i| i.is_multi_attribute()) {
            return Err(Error::validation(format!(
                "1 validation error detected: Value '{}' at 'localSecondaryIndexes.member.keySchema' failed to satisfy constraint: Member must have length less than or equal to 2 (multi-attribute keys are for global secondary indexes only)",
                local.key_schema_text()
            )));
        }
        Ok(())
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
                    .flat_map(IndexDef::key_attributes),
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
        let key_schema = |pk: &mut dyn Iterator<Item = &KeyAttribute>,
                          sk: &mut dyn Iterator<Item = &KeyAttribute>| {
            pk.map(|k| json!({"AttributeName": k.name, "KeyType": "HASH"}))
                .chain(sk.map(|k| json!({"AttributeName": k.name, "KeyType": "RANGE"})))
                .collect::<Vec<_>>()
        };
        let projection = |p: &Projection| match p {
            Projection::All => json!({"ProjectionType": "ALL"}),
            Projection::KeysOnly => json!({"ProjectionType": "KEYS_ONLY"}),
            Projection::Include(a) => json!({"ProjectionType": "INCLUDE", "NonKeyAttributes": a}),
        };
        let index = |i: &IndexDef| {
            json!({
                "IndexName": i.name,
                "KeySchema": key_schema(&mut i.partition_keys(), &mut i.sort_keys()),
                "Projection": projection(&i.projection),
            })
        };
        let mut out = json!({
            "TableName": self.name,
            "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": self.attribute_definitions().iter()
                .map(|k| json!({"AttributeName": k.name, "AttributeType": k.ty.name()}))
                .collect::<Vec<_>>(),
            "KeySchema": key_schema(&mut std::iter::once(&self.partition_key), &mut self.sort_key.iter()),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn multi() -> IndexDef {
        IndexDef::multi(
            "ByStatus",
            [
                KeyAttribute::string("tenant"),
                KeyAttribute::string("status"),
            ],
            [
                KeyAttribute::new("priority", ScalarType::N),
                KeyAttribute::new("digest", ScalarType::B),
            ],
        )
        .unwrap()
    }

    #[test]
    fn multi_attribute_keys_export_every_attribute_with_its_type() {
        let def = TableDef::new("T", "PK", Some("SK"))
            .global_index(multi().projection(Projection::KeysOnly))
            .ttl("ttl");
        let cf = def.to_cloudformation_json();
        let props = &cf["Properties"];
        let gsi = &props["GlobalSecondaryIndexes"][0];
        let schema: Vec<(String, String)> = gsi["KeySchema"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| {
                (
                    k["AttributeName"].as_str().unwrap().to_owned(),
                    k["KeyType"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let pairs: Vec<(&str, &str)> = schema
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("tenant", "HASH"),
                ("status", "HASH"),
                ("priority", "RANGE"),
                ("digest", "RANGE")
            ]
        );
        let types: Vec<(String, String)> = props["AttributeDefinitions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| {
                (
                    a["AttributeName"].as_str().unwrap().to_owned(),
                    a["AttributeType"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        for (name, ty) in [
            ("tenant", "S"),
            ("status", "S"),
            ("priority", "N"),
            ("digest", "B"),
        ] {
            assert!(
                types.contains(&(name.to_owned(), ty.to_owned())),
                "{name}: {types:?}"
            );
        }
        assert_eq!(gsi["Projection"]["ProjectionType"], "KEYS_ONLY");
        assert_eq!(props["TimeToLiveSpecification"]["AttributeName"], "ttl");
    }

    #[test]
    fn key_schemas_are_checked_as_create_table_checks_them() {
        let message = |r: Result<IndexDef>| match r {
            Err(Error::Validation { message }) => message,
            other => panic!("{other:?}"),
        };
        let s = KeyAttribute::string;
        assert!(message(IndexDef::multi("I", [], [s("a")])).contains("no HASH key"));
        assert!(message(IndexDef::multi(
            "I",
            [s("a"), s("b"), s("c"), s("d"), s("e")],
            []
        ))
        .contains("maximum allowed number of HASH key attributes"));
        assert!(message(IndexDef::multi(
            "I",
            [s("a")],
            [s("b"), s("c"), s("d"), s("e"), s("f")]
        ))
        .contains("maximum allowed number of RANGE key attributes"));
        assert!(message(IndexDef::multi(
            "I",
            [s("a"), s("b"), s("c"), s("d"), s("e")],
            [s("f"), s("g"), s("h"), s("i")]
        ))
        .contains("Member must have length less than or equal to 8"));
        assert!(message(IndexDef::multi("I", [s("a"), s("b")], [s("a")]))
            .contains("multiple key attributes with the same name"));
        // Four and four is the most, and a single-attribute key stays as it was.
        let full = IndexDef::multi(
            "I",
            [s("a"), s("b"), s("c"), s("d")],
            [s("e"), s("f"), s("g"), s("h")],
        )
        .unwrap();
        assert_eq!(
            (full.partition_keys().count(), full.sort_keys().count()),
            (4, 4)
        );
        let single = IndexDef::multi("I", [s("a")], [s("b")]).unwrap();
        assert!(!single.is_multi_attribute());
        assert_eq!(single, IndexDef::new("I", "a", Some("b")));
        // Multi-attribute keys are for global indexes only.
        let local = TableDef::new("T", "PK", Some("SK")).local_index(IndexDef {
            extra_sort_keys: vec![s("x")],
            ..IndexDef::new("L", "PK", Some("s"))
        });
        assert!(local.check_key_schemas().is_err());
        assert!(TableDef::new("T", "PK", Some("SK"))
            .global_index(multi())
            .check_key_schemas()
            .is_ok());
    }
}
