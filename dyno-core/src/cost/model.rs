//! What the metering wrapper knows of the application's model, and how it classifies a raw
//! request with it: the registered entities' key templates and index mappings.

use std::any::TypeId;
use std::borrow::Cow;

use crate::entity::Entity;
use crate::expr::{KeyCondition, SetValue, SortCondition, Update, UpdateOperand};
use crate::key::Template;
use crate::store::Tag;
use crate::table::{IndexDef, Table};
use crate::value::{AttributeValue, Item};

use super::tally::Name;

/// The bit of an entity set that stands for "an item or key no registered entity matches".
pub(super) const UNATTRIBUTED: u128 = 1 << 127;
/// Entities a wrapper can register (one bit each, [`UNATTRIBUTED`] excepted).
pub(super) const MAX_ENTITIES: usize = 127;

#[derive(Debug)]
pub(super) struct TableShape {
    /// The definition's own name: a typed request borrows this very string.
    pub name: &'static str,
    /// The name's number.
    pub id: Name,
    pub pk: String,
    pub sk: Option<String>,
    pub indexes: Vec<IndexShape>,
    pub entity_attribute: &'static str,
}

#[derive(Debug)]
pub(super) struct IndexShape {
    pub name: String,
    /// The name's number.
    pub id: Name,
    /// The partition key attributes, in key order (more than one for a multi-attribute key).
    pub pk: Vec<String>,
}

impl IndexShape {
    fn new(def: &IndexDef, id: Name) -> Self {
        let mut pk = vec![def.partition_key.name.clone()];
        pk.extend(def.extra_partition_keys.iter().map(|k| k.name.clone()));
        IndexShape {
            name: def.name.clone(),
            id,
            pk,
        }
    }
}

#[derive(Debug)]
pub(super) struct EntityShape {
    pub name: &'static str,
    /// The entity's type: what a typed request's [`Tag`](crate::store::Tag) names.
    pub type_id: TypeId,
    pub table: usize,
    pub pk: Template,
    pub sk: Option<Template>,
    /// `(position in the table's indexes, pk template, sk template, shard count)`.
    pub indexes: Vec<(usize, Template, Option<Template>, u32)>,
    /// Multi-attribute indexes the entity maps fields onto (no templates to match).
    pub mapped: Vec<usize>,
    /// `(index, query name)` of the index mappings named after their access pattern
    /// (`query = "by_status"`).
    pub named: Vec<(&'static str, &'static str)>,
    /// Literal characters of the primary key templates: the more, the more specific.
    pub specificity: usize,
}

fn literal_len(t: Template) -> usize {
    t.segments()
        .iter()
        .map(|s| match s {
            crate::key::Segment::Literal(l) => l.len(),
            crate::key::Segment::Field(_) => 0,
        })
        .sum()
}

/// The registered tables and entities. Built once, read without a lock on every call.
#[derive(Debug, Default)]
pub(super) struct Model {
    pub tables: Vec<TableShape>,
    pub entities: Vec<EntityShape>,
    /// The tables' and indexes' names: name `n` is `names[n - 1]`.
    pub names: Vec<String>,
}

/// A single-entity set.
#[inline]
pub(super) fn bit(entity: usize) -> u128 {
    1u128 << entity
}

impl Model {
    pub(super) fn add<E: Entity>(&mut self) {
        let def = <E::Table as Table>::definition();
        let table = match self.tables.iter().position(|t| t.name == def.name) {
            Some(i) => i,
            None => {
                let id = self.intern(&def.name);
                let indexes = def
                    .global_indexes
                    .iter()
                    .chain(&def.local_indexes)
                    .map(|i| IndexShape::new(i, self.intern(&i.name)))
                    .collect();
                self.tables.push(TableShape {
                    name: &def.name,
                    id,
                    pk: def.partition_key.name.clone(),
                    sk: def.sort_key.as_ref().map(|k| k.name.clone()),
                    indexes,
                    entity_attribute: <E::Table as Table>::ENTITY_ATTRIBUTE,
                });
                self.tables.len() - 1
            }
        };
        if self
            .entities
            .iter()
            .any(|e| e.table == table && e.name == E::ENTITY_TYPE)
        {
            return;
        }
        assert!(
            self.entities.len() < MAX_ENTITIES,
            "Metered::entity: at most {MAX_ENTITIES} entities can be registered (registering {})",
            E::ENTITY_TYPE
        );
        let shape = &self.tables[table];
        let position = |name: &str| shape.indexes.iter().position(|i| i.name == name);
        let indexes = E::INDEXES
            .iter()
            .filter_map(|t| Some((position(t.index)?, t.pk, t.sk, t.shards)))
            .collect();
        let mapped = E::MAPPED_INDEXES
            .iter()
            .filter_map(|name| position(name))
            .collect();
        self.entities.push(EntityShape {
            name: E::ENTITY_TYPE,
            type_id: TypeId::of::<E>(),
            table,
            pk: E::PK,
            sk: E::SK,
            specificity: literal_len(E::PK) + E::SK.map_or(0, literal_len),
            indexes,
            mapped,
            named: E::MODEL
                .queries
                .iter()
                .filter(|(_, _, named)| *named)
                .map(|&(index, query, _)| (index, query))
                .collect(),
        });
    }

    /// The name `entity`'s mapping of `index` gives its query (`query = ".."`), if any.
    pub(super) fn query_name(&self, entity: &str, index: &str) -> Option<&'static str> {
        self.entities
            .iter()
            .filter(|e| e.name == entity)
            .flat_map(|e| &e.named)
            .find(|(i, _)| *i == index)
            .map(|&(_, query)| query)
    }

    #[inline]
    pub(super) fn table(&self, name: &str) -> Option<usize> {
        // A typed request names its table with the definition's string: the same address.
        self.tables
            .iter()
            .position(|t| std::ptr::eq(t.name, name))
            .or_else(|| self.tables.iter().position(|t| t.name == name))
    }

    /// The number of a table's or index's name.
    fn intern(&mut self, name: &str) -> Name {
        self.name_id(name).unwrap_or_else(|| {
            self.names.push(name.to_owned());
            self.names.len() as Name
        })
    }

    /// The number of a registered table's or index's name.
    pub(super) fn name_id(&self, name: &str) -> Option<Name> {
        self.names
            .iter()
            .position(|n| n == name)
            .map(|i| i as Name + 1)
    }

    /// True when entity `entity` has a key in `index` (the table's, for `None`): a typed query
    /// of it reads there.
    pub(super) fn reads(&self, entity: usize, index: Option<&str>) -> bool {
        let Some(index) = index else { return true };
        let e = &self.entities[entity];
        let indexes = &self.tables[e.table].indexes;
        indexes
            .iter()
            .position(|i| i.name == index)
            .is_some_and(|ix| e.mapped.contains(&ix) || e.indexes.iter().any(|m| m.0 == ix))
    }

    /// The registered entity `tag` names, when it lives in table `table`.
    #[inline]
    pub(super) fn tagged(&self, tag: Tag, table: Option<usize>) -> Option<usize> {
        let (entity, table) = (tag.entity_id()?, table?);
        self.entities
            .iter()
            .position(|e| e.type_id == entity && e.table == table)
    }

    /// The entity set of an item (`whole`: it may carry the entity-type attribute) or a primary
    /// key in table `table`.
    pub(super) fn classify_item(&self, table: Option<usize>, item: &Item, whole: bool) -> u128 {
        let Some(table) = table else {
            return UNATTRIBUTED;
        };
        let shape = &self.tables[table];
        if let (true, Some(AttributeValue::S(ty))) = (whole, attr(item, shape.entity_attribute)) {
            return self
                .entities
                .iter()
                .position(|e| e.table == table && e.name == ty)
                .map_or(UNATTRIBUTED, bit);
        }
        let pk = attr_s(item, &shape.pk);
        let sk = shape.sk.as_deref().map(|n| attr_s(item, n));
        let mut best: Option<(usize, usize)> = None;
        for (i, e) in self.entities.iter().enumerate() {
            if e.table != table || !pk.is_some_and(|v| e.pk.matches(v)) {
                continue;
            }
            let sk_ok = match (sk, e.sk) {
                (None, None) => true,
                (Some(Some(v)), Some(t)) => t.matches(v),
                _ => false,
            };
            if sk_ok && best.is_none_or(|(_, s)| e.specificity > s) {
                best = Some((i, e.specificity));
            }
        }
        best.map_or(UNATTRIBUTED, |(i, _)| bit(i))
    }

    /// The entity set a query reads: the entities whose partition key template matches the
    /// partition value, narrowed by the sort-key condition to those whose sort key's literal
    /// prefix it can select (several left: a collection query).
    pub(super) fn classify_query(
        &self,
        table: Option<usize>,
        index: Option<&str>,
        condition: &KeyCondition,
    ) -> u128 {
        let Some(table) = table else {
            return UNATTRIBUTED;
        };
        let index = match index {
            None => None,
            Some(name) => match self.tables[table]
                .indexes
                .iter()
                .position(|i| i.name == name)
            {
                Some(i) => Some(i),
                None => return UNATTRIBUTED,
            },
        };
        let pk = match &condition.partition_value {
            AttributeValue::S(s) => Some(s.as_str()),
            _ => None,
        };
        let sort = condition.sort.as_ref().map(|(_, c)| c);
        let mut set = 0u128;
        for (i, e) in self.entities.iter().enumerate() {
            if e.table != table {
                continue;
            }
            let (pk_t, sk_t, shards) = match index {
                None => (e.pk, e.sk, 0),
                Some(ix) => {
                    if e.mapped.contains(&ix) {
                        set |= bit(i);
                        continue;
                    }
                    match e.indexes.iter().find(|m| m.0 == ix) {
                        Some(&(_, pk, sk, shards)) => (pk, sk, shards),
                        None => continue,
                    }
                }
            };
            let Some(pk) = pk else { continue };
            let pk = if shards > 0 { strip_shard(pk) } else { pk };
            if !pk_t.matches(pk) {
                continue;
            }
            if let (Some(cond), Some(sk_t)) = (sort, sk_t)
                && !can_select(sk_t.prefix(), cond)
            {
                continue;
            }
            set |= bit(i);
        }
        if set == 0 {
            UNATTRIBUTED
        } else {
            set
        }
    }
}

/// `key` without its shard suffix (`#<n>`), as a sharded index writes it.
fn strip_shard(key: &str) -> &str {
    match key.rfind('#') {
        Some(i) if i + 1 < key.len() && key[i + 1..].bytes().all(|b| b.is_ascii_digit()) => {
            &key[..i]
        }
        _ => key,
    }
}

/// True when some sort key starting with `prefix` satisfies `cond` (string keys compare
/// bytewise, as DynamoDB compares S keys). A non-string condition selects anything.
fn can_select(prefix: &str, cond: &SortCondition) -> bool {
    let s = |v: &AttributeValue| match v {
        AttributeValue::S(s) => Some(s.clone()),
        _ => None,
    };
    let p = prefix;
    match cond {
        SortCondition::Eq(v) => s(v).is_none_or(|v| v.starts_with(p)),
        SortCondition::BeginsWith(v) => s(v).is_none_or(|v| v.starts_with(p) || p.starts_with(&v)),
        SortCondition::Lt(v) => s(v).is_none_or(|v| p < v.as_str()),
        SortCondition::Le(v) => s(v).is_none_or(|v| p <= v.as_str()),
        SortCondition::Gt(v) | SortCondition::Ge(v) => {
            s(v).is_none_or(|v| v.as_str() < p || v.starts_with(p))
        }
        SortCondition::Between(a, b) => match (s(a), s(b)) {
            (Some(a), Some(b)) => (a.starts_with(p) || a.as_str() < p) && p <= b.as_str(),
            _ => true,
        },
    }
}

/// An attribute of a small item (a key: two entries) by a scan, which beats hashing the name.
#[inline]
pub(super) fn attr<'i>(item: &'i Item, name: &str) -> Option<&'i AttributeValue> {
    if item.len() <= 4 {
        item.iter().find(|(k, _)| *k == name).map(|(_, v)| v)
    } else {
        item.get(name)
    }
}

/// A string attribute; `Some(None)` when present with another type.
fn attr_s<'i>(item: &'i Item, name: &str) -> Option<&'i str> {
    match attr(item, name) {
        Some(AttributeValue::S(s)) => Some(s),
        _ => None,
    }
}

/// A key value as the report shows it: strings and numbers as they are, binary in hex.
#[inline]
pub(super) fn key_text(v: &AttributeValue) -> Cow<'_, str> {
    match v {
        AttributeValue::S(s) => Cow::Borrowed(s),
        AttributeValue::N(n) => Cow::Borrowed(n),
        other => Cow::Owned(other_key_text(other)),
    }
}

/// [`key_text`] of a value that is not a string or a number.
#[cold]
fn other_key_text(v: &AttributeValue) -> String {
    match v {
        AttributeValue::B(b) => {
            let mut out = String::with_capacity(2 + 2 * b.as_ref().len());
            out.push_str("0x");
            for byte in b.as_ref() {
                out.push_str(&format!("{byte:02x}"));
            }
            out
        }
        other => format!("{other:?}"),
    }
}

/// The partition of index `index` an item is in, when it has every partition attribute
/// (a multi-attribute key's values are joined with `, `).
pub(super) fn index_partition(item: &Item, index: &IndexShape) -> Option<String> {
    let mut out = String::new();
    for (i, name) in index.pk.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&key_text(attr(item, name)?));
    }
    Some(out)
}

/// The partition of index `index` an update moves the item to, when it sets every partition
/// attribute to a literal value.
pub(super) fn updated_partition(update: &Update, index: &IndexShape) -> Option<String> {
    let mut out = String::new();
    for (i, name) in index.pk.iter().enumerate() {
        let value = update.set.iter().find_map(|(path, value)| match value {
            SetValue::Operand(UpdateOperand::Value(v))
                if path.0.len() == 1 && path.top() == Some(name.as_str()) =>
            {
                Some(v)
            }
            _ => None,
        })?;
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&key_text(value));
    }
    Some(out)
}

/// The partition a query reads: its partition value (all of them, for a
/// multi-attribute key).
pub(super) fn query_partition(condition: &KeyCondition) -> Cow<'_, str> {
    let first = key_text(&condition.partition_value);
    if condition.extra_partition.is_empty() {
        return first;
    }
    let mut out = first.into_owned();
    for (_, v) in &condition.extra_partition {
        out.push_str(", ");
        out.push_str(&key_text(v));
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tag says which entity's code made a request, not what it asks: a tagged request
    /// equals the same raw one.
    #[test]
    fn a_tag_never_makes_two_requests_differ() {
        use crate::store::{GetRequest, QueryRequest};
        let key = Item::from([("PK".to_owned(), AttributeValue::S("USER#1".into()))]);
        let raw = GetRequest::borrowed("Shop", &key);
        let tagged = GetRequest {
            tag: Tag::entity::<u8>(),
            ..raw.clone()
        };
        assert_eq!(raw, tagged);
        assert_eq!(tagged.tag.entity_id(), Some(TypeId::of::<u8>()));
        assert_eq!(raw.tag.entity_id(), None);
        let condition = KeyCondition::partition("PK", AttributeValue::S("USER#1".into()));
        let raw = QueryRequest::new("Shop", None, condition);
        let mut tagged = raw.clone();
        tagged.tag = Tag::entity::<u8>();
        assert_eq!(raw, tagged);
        assert_eq!(format!("{:?}", tagged.tag), "Tag(typed)");
    }

    #[test]
    fn a_sort_condition_selects_the_templates_whose_prefix_it_can_reach() {
        let s = |v: &str| AttributeValue::S(v.to_owned());
        assert!(can_select(
            "ORDER#",
            &SortCondition::BeginsWith(s("ORDER#2024"))
        ));
        assert!(can_select("ORDER#", &SortCondition::BeginsWith(s("ORD"))));
        assert!(!can_select(
            "PROFILE",
            &SortCondition::BeginsWith(s("ORDER#"))
        ));
        assert!(can_select("ORDER#", &SortCondition::Eq(s("ORDER#1"))));
        assert!(!can_select("ORDER#", &SortCondition::Eq(s("PROFILE"))));
        let between = |a: &str, b: &str| SortCondition::Between(s(a), s(b));
        assert!(can_select("ORDER#", &between("ORDER#1", "ORDER#2")));
        assert!(can_select("ORDER#", &between("A", "Z")));
        assert!(!can_select("PROFILE", &between("ORDER#1", "ORDER#2")));
        assert!(can_select("ORDER#", &SortCondition::Gt(s("ORDER#5"))));
        assert!(!can_select("ORDER#", &SortCondition::Gt(s("P"))));
        assert!(can_select("ORDER#", &SortCondition::Lt(s("P"))));
        assert!(!can_select("ORDER#", &SortCondition::Lt(s("ORDER#"))));
        assert!(can_select("", &SortCondition::Lt(s("a"))));
        assert_eq!(strip_shard("STATUS#PENDING#3"), "STATUS#PENDING");
        assert_eq!(strip_shard("STATUS#PENDING"), "STATUS#PENDING");
    }
}
