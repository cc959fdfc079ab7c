//! Expressions as a typed tree: paths, operands, conditions, key conditions, update actions and
//! projections.
//!
//! `DynamoStore` renders the tree into DynamoDB's expression strings with `#n`/`:v` placeholders;
//! `MemoryStore` evaluates the same tree ([`eval`]: what an expression means on an item). No user
//! value or attribute name is ever spliced into expression text, and there is no expression
//! parser anywhere.

pub mod eval;
pub mod path;
mod render;
pub mod typed;

pub(crate) use self::render::value_placeholder;
#[doc(hidden)]
pub use self::render::{
    render_condition, render_key_condition, render_projection, render_update, Placeholders,
};
pub use self::typed::{Cond, Field};
use crate::value::{AttributeValue, Item};

/// One step of a document path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PathElement {
    /// A top-level attribute or a map key.
    Attr(String),
    /// A list index.
    Index(usize),
}

/// A document path such as `a.b[2].c`. Names are taken as they are (dots inside a name do not
/// split it).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Path(pub Vec<PathElement>);

impl Path {
    /// A top-level attribute.
    pub fn attr(name: impl Into<String>) -> Self {
        Path(vec![PathElement::Attr(name.into())])
    }

    /// This path followed by a map key.
    #[must_use]
    pub fn key(mut self, name: impl Into<String>) -> Self {
        self.0.push(PathElement::Attr(name.into()));
        self
    }

    /// This path followed by a list index.
    #[must_use]
    pub fn index(mut self, i: usize) -> Self {
        self.0.push(PathElement::Index(i));
        self
    }

    /// The top-level attribute name, when the path starts with one.
    pub fn top(&self) -> Option<&str> {
        match self.0.first() {
            Some(PathElement::Attr(a)) => Some(a),
            _ => None,
        }
    }

    /// The value at this path in `item`, if every step exists (a map key in a map, an index
    /// inside a list).
    ///
    /// ```
    /// use dyno_core::expr::Path;
    /// use dyno_core::{AttributeValue, Item};
    /// let counts = AttributeValue::M([("heart".to_owned(), AttributeValue::N("2".into()))].into());
    /// let item = Item::from([("counts".to_owned(), counts)]);
    /// assert_eq!(Path::attr("counts").key("heart").get(&item), Some(&AttributeValue::N("2".into())));
    /// assert_eq!(Path::attr("counts").key("smile").get(&item), None);
    /// ```
    pub fn get<'a>(&self, item: &'a Item) -> Option<&'a AttributeValue> {
        let (first, rest) = self.0.split_first()?;
        let PathElement::Attr(name) = first else {
            return None;
        };
        rest.iter()
            .try_fold(item.get(name)?, |value, step| match (step, value) {
                (PathElement::Attr(k), AttributeValue::M(m)) => m.get(k),
                (PathElement::Index(i), AttributeValue::L(l)) => l.get(*i),
                _ => None,
            })
    }
}

/// The path as DynamoDB's documents write it (`reaction_counts.heart`, `tags[2]`), for messages
/// only: expressions never contain it (names go through `#n` placeholders).
impl std::fmt::Display for Path {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, step) in self.0.iter().enumerate() {
            match step {
                PathElement::Attr(a) if i == 0 => write!(f, "{a}")?,
                PathElement::Attr(a) => write!(f, ".{a}")?,
                PathElement::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

impl From<&str> for Path {
    fn from(name: &str) -> Self {
        Path::attr(name)
    }
}

/// A value in a condition: an attribute, a literal value, or `size(path)`.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    /// The value at a path.
    Path(Path),
    /// A literal value (always sent as a `:v` placeholder).
    Value(AttributeValue),
    /// `size(path)`.
    Size(Path),
}

/// Comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Comparator {
    /// `=`
    Eq,
    /// `<>`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Comparator {
    /// The operator as DynamoDB writes it.
    pub fn symbol(self) -> &'static str {
        match self {
            Comparator::Eq => "=",
            Comparator::Ne => "<>",
            Comparator::Lt => "<",
            Comparator::Le => "<=",
            Comparator::Gt => ">",
            Comparator::Ge => ">=",
        }
    }
}

/// The type names `attribute_type` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AttributeType {
    /// String.
    S,
    /// String set.
    Ss,
    /// Number.
    N,
    /// Number set.
    Ns,
    /// Binary.
    B,
    /// Binary set.
    Bs,
    /// Boolean.
    Bool,
    /// Null.
    Null,
    /// List.
    L,
    /// Map.
    M,
}

impl AttributeType {
    /// The name DynamoDB uses.
    pub fn name(self) -> &'static str {
        match self {
            AttributeType::S => "S",
            AttributeType::Ss => "SS",
            AttributeType::N => "N",
            AttributeType::Ns => "NS",
            AttributeType::B => "B",
            AttributeType::Bs => "BS",
            AttributeType::Bool => "BOOL",
            AttributeType::Null => "NULL",
            AttributeType::L => "L",
            AttributeType::M => "M",
        }
    }
}

/// A condition (ConditionExpression or FilterExpression).
#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    /// `a <op> b`
    Compare(Operand, Comparator, Operand),
    /// `a BETWEEN lo AND hi`
    Between(Operand, Operand, Operand),
    /// `a IN (b, c, ...)` (1 to 100 values)
    In(Operand, Vec<Operand>),
    /// `attribute_exists(path)`
    AttributeExists(Path),
    /// `attribute_not_exists(path)`
    AttributeNotExists(Path),
    /// `attribute_type(path, :t)`
    AttributeType(Path, AttributeType),
    /// `begins_with(path, operand)`
    BeginsWith(Path, Operand),
    /// `contains(path, operand)`
    Contains(Path, Operand),
    /// All of these (empty: always true, rendered as nothing by callers).
    And(Vec<Condition>),
    /// Any of these.
    Or(Vec<Condition>),
    /// `NOT c`
    Not(Box<Condition>),
}

impl Condition {
    /// `path = value`
    pub fn eq(path: impl Into<Path>, value: AttributeValue) -> Self {
        Condition::Compare(
            Operand::Path(path.into()),
            Comparator::Eq,
            Operand::Value(value),
        )
    }

    /// `attribute_exists(path)`
    pub fn exists(path: impl Into<Path>) -> Self {
        Condition::AttributeExists(path.into())
    }

    /// `attribute_not_exists(path)`
    pub fn not_exists(path: impl Into<Path>) -> Self {
        Condition::AttributeNotExists(path.into())
    }

    /// `self AND other`, flattening nested ANDs.
    #[must_use]
    pub fn and(self, other: Condition) -> Self {
        match (self, other) {
            (Condition::And(mut a), Condition::And(b)) => {
                a.extend(b);
                Condition::And(a)
            }
            (Condition::And(mut a), c) => {
                a.push(c);
                Condition::And(a)
            }
            (c, Condition::And(mut b)) => {
                b.insert(0, c);
                Condition::And(b)
            }
            (a, b) => Condition::And(vec![a, b]),
        }
    }

    /// `self OR other`
    #[must_use]
    pub fn or(self, other: Condition) -> Self {
        match self {
            Condition::Or(mut a) => {
                a.push(other);
                Condition::Or(a)
            }
            a => Condition::Or(vec![a, other]),
        }
    }

    /// `NOT self`
    #[must_use]
    pub fn negate(self) -> Self {
        Condition::Not(Box::new(self))
    }

    /// Combines an optional condition with another.
    pub fn and_opt(a: Option<Condition>, b: Condition) -> Condition {
        match a {
            Some(a) => a.and(b),
            None => b,
        }
    }
}

/// The sort-key part of a key condition.
#[derive(Debug, Clone, PartialEq)]
pub enum SortCondition {
    /// `sk = v`
    Eq(AttributeValue),
    /// `sk < v`
    Lt(AttributeValue),
    /// `sk <= v`
    Le(AttributeValue),
    /// `sk > v`
    Gt(AttributeValue),
    /// `sk >= v`
    Ge(AttributeValue),
    /// `sk BETWEEN a AND b`
    Between(AttributeValue, AttributeValue),
    /// `begins_with(sk, v)`
    BeginsWith(AttributeValue),
}

/// A query's KeyConditionExpression: equality on the partition key, optionally a condition on
/// the sort key.
///
/// On a global secondary index with a multi-attribute key (see
/// [`IndexDef::multi`](crate::table::IndexDef::multi)) it gives equality on every partition
/// attribute ([`KeyCondition::and_partition`]) and conditions on the sort attributes left to
/// right ([`KeyCondition::sort`] once per attribute): equality on each but the last one given,
/// which may be any condition. Other shapes are sent as they are and refused by the store as
/// DynamoDB refuses them.
///
/// ```
/// use dyno_core::expr::{KeyCondition, SortCondition};
/// use dyno_core::AttributeValue;
///
/// let s = |v: &str| AttributeValue::S(v.into());
/// // tenant = "acme" AND status = "open" AND priority = 1 AND created >= "2025-01"
/// let k = KeyCondition::partition("tenant", s("acme"))
///     .and_partition("status", s("open"))
///     .sort("priority", SortCondition::Eq(AttributeValue::N("1".into())))
///     .sort("created", SortCondition::Ge(s("2025-01")));
/// assert_eq!(k.partition_parts().count(), 2);
/// let sorts: Vec<&str> = k.sort_parts().map(|(name, _)| name.as_str()).collect();
/// assert_eq!(sorts, ["priority", "created"]);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct KeyCondition {
    /// Partition key attribute name (the first of a multi-attribute key).
    pub partition_name: String,
    /// Partition key value.
    pub partition_value: AttributeValue,
    /// Equality on the other attributes of a multi-attribute partition key, in the order given.
    pub extra_partition: Vec<(String, AttributeValue)>,
    /// Sort key attribute name and condition (the first one given on a multi-attribute key).
    pub sort: Option<(String, SortCondition)>,
    /// Conditions on further sort attributes of a multi-attribute key, in the order given,
    /// after `sort`.
    pub extra_sort: Vec<(String, SortCondition)>,
}

impl KeyCondition {
    /// `pk = value`
    pub fn partition(name: impl Into<String>, value: AttributeValue) -> Self {
        KeyCondition {
            partition_name: name.into(),
            partition_value: value,
            extra_partition: Vec::new(),
            sort: None,
            extra_sort: Vec::new(),
        }
    }

    /// Adds equality on another attribute of a multi-attribute partition key.
    #[must_use]
    pub fn and_partition(mut self, name: impl Into<String>, value: AttributeValue) -> Self {
        self.extra_partition.push((name.into(), value));
        self
    }

    /// Adds a sort-key condition: the sort key's, or on a multi-attribute sort key the next
    /// attribute's (left to right).
    #[must_use]
    pub fn sort(mut self, name: impl Into<String>, cond: SortCondition) -> Self {
        let part = (name.into(), cond);
        if self.sort.is_none() {
            self.sort = Some(part);
        } else {
            self.extra_sort.push(part);
        }
        self
    }

    /// Every partition attribute and its value, in the order given.
    pub fn partition_parts(&self) -> impl Iterator<Item = (&String, &AttributeValue)> {
        std::iter::once((&self.partition_name, &self.partition_value))
            .chain(self.extra_partition.iter().map(|(n, v)| (n, v)))
    }

    /// Every sort attribute condition, in the order given.
    pub fn sort_parts(&self) -> impl Iterator<Item = &(String, SortCondition)> {
        self.sort.iter().chain(&self.extra_sort)
    }
}

/// An operand of a SET action's value.
#[derive(Debug, Clone, PartialEq)]
pub enum UpdateOperand {
    /// The value at a path (of the item before the update).
    Path(Path),
    /// A literal value.
    Value(AttributeValue),
    /// `if_not_exists(path, operand)`
    IfNotExists(Path, Box<UpdateOperand>),
    /// `list_append(a, b)`
    ListAppend(Box<UpdateOperand>, Box<UpdateOperand>),
}

/// The right-hand side of a SET action.
#[derive(Debug, Clone, PartialEq)]
pub enum SetValue {
    /// `path = operand`
    Operand(UpdateOperand),
    /// `path = a + b`
    Plus(UpdateOperand, UpdateOperand),
    /// `path = a - b`
    Minus(UpdateOperand, UpdateOperand),
}

impl SetValue {
    /// `path = :value`
    pub fn value(v: AttributeValue) -> Self {
        SetValue::Operand(UpdateOperand::Value(v))
    }
}

/// An UpdateExpression: SET, REMOVE, ADD and DELETE actions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Update {
    /// `SET path = value, ...`
    pub set: Vec<(Path, SetValue)>,
    /// `REMOVE path, ...`
    pub remove: Vec<Path>,
    /// `ADD path :v, ...` (numbers and sets)
    pub add: Vec<(Path, AttributeValue)>,
    /// `DELETE path :v, ...` (sets)
    pub delete: Vec<(Path, AttributeValue)>,
}

impl Update {
    /// True when there is no action.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
            && self.remove.is_empty()
            && self.add.is_empty()
            && self.delete.is_empty()
    }

    /// Every path the update writes, in action order (SET, REMOVE, ADD, DELETE).
    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.set
            .iter()
            .map(|(p, _)| p)
            .chain(self.remove.iter())
            .chain(self.add.iter().map(|(p, _)| p))
            .chain(self.delete.iter().map(|(p, _)| p))
    }
}
