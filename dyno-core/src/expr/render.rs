//! Rendering expression trees into DynamoDB's expression strings. Every attribute name becomes a
//! `#nN` placeholder and every value a `:vN` placeholder, so reserved words, dots, `#` and any
//! user input are always safe.

use std::collections::HashMap;
use std::fmt::Write;

use super::{
    Condition, KeyCondition, Operand, Path, PathElement, SetValue, SortCondition, Update,
    UpdateOperand,
};
use crate::key::text::push_padded;
use crate::value::AttributeValue;

/// The placeholder maps shared by all expressions of one request
/// (`ExpressionAttributeNames`, `ExpressionAttributeValues`).
#[derive(Debug, Default, Clone)]
pub struct Placeholders {
    /// `#nN` to attribute name.
    pub names: HashMap<String, String>,
    /// `:vN` to value.
    pub values: HashMap<String, AttributeValue>,
    /// Attribute name to the number of its `#nN` placeholder.
    by_name: HashMap<String, usize>,
}

/// Prefix of attribute name placeholders (`#n0`...).
const NAME: &str = "#n";
/// Prefix of value placeholders (`:v0`...).
const VALUE: &str = ":v";

/// The placeholder `prefix` followed by `n` (`#n0`, `:v3`).
fn placeholder(prefix: &str, n: usize) -> String {
    let mut p = String::with_capacity(prefix.len() + 3);
    p.push_str(prefix);
    push_padded(&mut p, n as u64, 1);
    p
}

/// The placeholder of a request's `n`-th expression value (`:v0`, `:v1`...), as DynamoStore
/// sends it: MemoryStore names an invalid value by it, as DynamoDB names what was sent.
pub(crate) fn value_placeholder(n: usize) -> String {
    placeholder(VALUE, n)
}

/// `map`, or `None` when empty: DynamoDB rejects empty placeholder maps.
fn non_empty<V>(map: HashMap<String, V>) -> Option<HashMap<String, V>> {
    (!map.is_empty()).then_some(map)
}

impl Placeholders {
    /// Empty maps.
    pub fn new() -> Self {
        Self::default()
    }

    /// The placeholder for attribute name `name` (one per distinct name).
    pub fn name(&mut self, name: &str) -> String {
        let mut p = String::new();
        self.push_name(name, &mut p);
        p
    }

    /// A new placeholder for `value`.
    pub fn value(&mut self, value: AttributeValue) -> String {
        let mut p = String::new();
        self.push_value(value, &mut p);
        p
    }

    /// [`Self::name`], appended to `out`.
    fn push_name(&mut self, name: &str, out: &mut String) {
        let n = match self.by_name.get(name) {
            Some(&n) => n,
            None => {
                let n = self.by_name.len();
                self.by_name.insert(name.to_owned(), n);
                self.names.insert(placeholder(NAME, n), name.to_owned());
                n
            }
        };
        out.push_str(NAME);
        push_padded(out, n as u64, 1);
    }

    /// [`Self::value`], appended to `out`.
    fn push_value(&mut self, value: AttributeValue, out: &mut String) {
        let p = value_placeholder(self.values.len());
        out.push_str(&p);
        self.values.insert(p, value);
    }

    /// The names map, or `None` when empty (DynamoDB rejects empty maps).
    pub fn names_or_none(&self) -> Option<HashMap<String, String>> {
        non_empty(self.names.clone())
    }

    /// The values map, or `None` when empty.
    pub fn values_or_none(&self) -> Option<HashMap<String, AttributeValue>> {
        non_empty(self.values.clone())
    }

    /// [`Self::names_or_none`], moved out instead of copied (the map is left empty): for the
    /// request being built, which is the map's last use.
    pub fn take_names(&mut self) -> Option<HashMap<String, String>> {
        non_empty(std::mem::take(&mut self.names))
    }

    /// [`Self::values_or_none`], moved out instead of copied (the map is left empty).
    pub fn take_values(&mut self) -> Option<HashMap<String, AttributeValue>> {
        non_empty(std::mem::take(&mut self.values))
    }

    fn path(&mut self, path: &Path, out: &mut String) {
        for (i, el) in path.0.iter().enumerate() {
            match el {
                PathElement::Attr(a) => {
                    if i > 0 {
                        out.push('.');
                    }
                    self.push_name(a, out);
                }
                PathElement::Index(n) => {
                    let _ = write!(out, "[{n}]");
                }
            }
        }
    }

    fn operand(&mut self, op: &Operand, out: &mut String) {
        match op {
            Operand::Path(p) => self.path(p, out),
            Operand::Value(v) => self.push_value(v.clone(), out),
            Operand::Size(p) => {
                out.push_str("size(");
                self.path(p, out);
                out.push(')');
            }
        }
    }

    fn condition(&mut self, c: &Condition, out: &mut String) {
        match c {
            Condition::Compare(a, op, b) => {
                self.operand(a, out);
                let _ = write!(out, " {} ", op.symbol());
                self.operand(b, out);
            }
            Condition::Between(a, lo, hi) => {
                self.operand(a, out);
                out.push_str(" BETWEEN ");
                self.operand(lo, out);
                out.push_str(" AND ");
                self.operand(hi, out);
            }
            // An empty list renders as `a IN ()`, which DynamoDB refuses as a validation error,
            // as MemoryStore does: the same tree fails the same way on every store.
            Condition::In(a, list) => {
                self.operand(a, out);
                out.push_str(" IN (");
                for (i, v) in list.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.operand(v, out);
                }
                out.push(')');
            }
            Condition::AttributeExists(p) => self.function("attribute_exists", p, None, out),
            Condition::AttributeNotExists(p) => self.function("attribute_not_exists", p, None, out),
            Condition::AttributeType(p, t) => {
                let v = Operand::Value(AttributeValue::S(t.name().to_owned()));
                self.function("attribute_type", p, Some(&v), out);
            }
            Condition::BeginsWith(p, v) => self.function("begins_with", p, Some(v), out),
            Condition::Contains(p, v) => self.function("contains", p, Some(v), out),
            Condition::And(cs) => self.junction(cs, " AND ", out),
            Condition::Or(cs) => self.junction(cs, " OR ", out),
            Condition::Not(c) => {
                out.push_str("NOT (");
                self.condition(c, out);
                out.push(')');
            }
        }
    }

    fn function(&mut self, name: &str, p: &Path, arg: Option<&Operand>, out: &mut String) {
        out.push_str(name);
        out.push('(');
        self.path(p, out);
        if let Some(a) = arg {
            out.push_str(", ");
            self.operand(a, out);
        }
        out.push(')');
    }

    fn junction(&mut self, cs: &[Condition], sep: &str, out: &mut String) {
        if cs.is_empty() {
            // An empty AND is true and an empty OR is false. DynamoDB has no boolean literals, so
            // write a tautology (or contradiction) on one attribute name.
            let n = self.name("dyno:none");
            let _ = if sep == " AND " {
                write!(out, "(attribute_not_exists({n}) OR attribute_exists({n}))")
            } else {
                write!(out, "(attribute_exists({n}) AND attribute_not_exists({n}))")
            };
            return;
        }
        for (i, c) in cs.iter().enumerate() {
            if i > 0 {
                out.push_str(sep);
            }
            // Parentheses only where DynamoDB's precedence (NOT, then AND, then OR) needs them,
            // and around BETWEEN, whose own AND would read as a junction's: parsers pay for
            // each level (dynalite's PutItem took 2.5 ms with every operand parenthesized and
            // 1.75 ms without, measured 2026-12-02).
            let wrap = match c {
                Condition::Or(_) => sep == " AND ",
                Condition::Between(..) => true,
                _ => false,
            };
            if wrap {
                out.push('(');
            }
            self.condition(c, out);
            if wrap {
                out.push(')');
            }
        }
    }

    fn update_operand(&mut self, op: &UpdateOperand, out: &mut String) {
        match op {
            UpdateOperand::Path(p) => self.path(p, out),
            UpdateOperand::Value(v) => self.push_value(v.clone(), out),
            UpdateOperand::IfNotExists(p, v) => {
                out.push_str("if_not_exists(");
                self.path(p, out);
                out.push_str(", ");
                self.update_operand(v, out);
                out.push(')');
            }
            UpdateOperand::ListAppend(a, b) => {
                out.push_str("list_append(");
                self.update_operand(a, out);
                out.push_str(", ");
                self.update_operand(b, out);
                out.push(')');
            }
        }
    }
}

/// Renders a condition (ConditionExpression, FilterExpression).
pub fn render_condition(c: &Condition, ph: &mut Placeholders) -> String {
    let mut out = String::new();
    ph.condition(c, &mut out);
    out
}

/// Renders a KeyConditionExpression: the partition equalities, then the sort conditions, each
/// in the order given, joined by AND.
pub fn render_key_condition(k: &KeyCondition, ph: &mut Placeholders) -> String {
    let mut out = String::new();
    for (name, value) in k.partition_parts() {
        if !out.is_empty() {
            out.push_str(" AND ");
        }
        out.push_str(&ph.name(name));
        out.push_str(" = ");
        out.push_str(&ph.value(value.clone()));
    }
    for (name, sort) in k.sort_parts() {
        out.push_str(" AND ");
        let n = ph.name(name);
        let cmp = |op: &str, v: &AttributeValue, ph: &mut Placeholders| {
            let v = ph.value(v.clone());
            format!("{n} {op} {v}")
        };
        let s = match sort {
            SortCondition::Eq(v) => cmp("=", v, ph),
            SortCondition::Lt(v) => cmp("<", v, ph),
            SortCondition::Le(v) => cmp("<=", v, ph),
            SortCondition::Gt(v) => cmp(">", v, ph),
            SortCondition::Ge(v) => cmp(">=", v, ph),
            SortCondition::Between(a, b) => {
                let a = ph.value(a.clone());
                let b = ph.value(b.clone());
                format!("{n} BETWEEN {a} AND {b}")
            }
            SortCondition::BeginsWith(v) => {
                let v = ph.value(v.clone());
                format!("begins_with({n}, {v})")
            }
        };
        out.push_str(&s);
    }
    out
}

/// Renders an UpdateExpression; `None` when the update has no action.
pub fn render_update(u: &Update, ph: &mut Placeholders) -> Option<String> {
    let mut out = String::new();
    let clause = |keyword: &str, out: &mut String, n: usize| {
        if n > 0 {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(keyword);
            out.push(' ');
        }
    };
    clause("SET", &mut out, u.set.len());
    for (i, (path, value)) in u.set.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        ph.path(path, &mut out);
        out.push_str(" = ");
        match value {
            SetValue::Operand(o) => ph.update_operand(o, &mut out),
            SetValue::Plus(a, b) | SetValue::Minus(a, b) => {
                ph.update_operand(a, &mut out);
                out.push_str(if matches!(value, SetValue::Plus(..)) {
                    " + "
                } else {
                    " - "
                });
                ph.update_operand(b, &mut out);
            }
        }
    }
    clause("REMOVE", &mut out, u.remove.len());
    for (i, path) in u.remove.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        ph.path(path, &mut out);
    }
    for (keyword, actions) in [("ADD", &u.add), ("DELETE", &u.delete)] {
        clause(keyword, &mut out, actions.len());
        for (i, (path, v)) in actions.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            ph.path(path, &mut out);
            out.push(' ');
            ph.push_value(v.clone(), &mut out);
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Renders a ProjectionExpression.
pub fn render_projection(paths: &[Path], ph: &mut Placeholders) -> String {
    let mut out = String::new();
    for (i, p) in paths.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        ph.path(p, &mut out);
    }
    out
}
