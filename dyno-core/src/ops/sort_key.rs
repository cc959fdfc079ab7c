//! Sort-key conditions on one part of a composite sort key (`{day}#{order_id}`): what the
//! derive's typed sort-key conditions (`.day().lt(..)`, `.day().between(..)`,
//! `.day().begins_with(..)`, all from [`SortKeyPart`]) build, and what a hand-written entity's
//! query uses through [`Query::sk_compare`](super::Query::sk_compare) and friends.
//!
//! A derived query builder carries its progress in its `State` parameter: `Sk<N>` when the
//! first `N` parts of a composite sort key are fixed by `eq`, `SkDone` once the condition is
//! complete. Each part's accessor (`.day()`) exists in the state where the part comes next, so
//! parts are given in order and nothing follows a range; a call out of order is a compile error
//! saying which part to fix first.
//!
//! A sort key is `prefix + segment + rest`: `prefix` is the template's literal text plus the
//! parts already fixed by `*_eq`, `segment` is the encoded value of the part being compared, and
//! `rest` is empty for the template's last part or starts with `#` otherwise.
//!
//! `begins_with` and `=` on a part are exact key conditions. A range on a part is not always one:
//! on an inner part, a segment with a character below `#` (`' '`, `'!'`...) sorts differently
//! inside the key than alone (`"a!x" > "a"`, but `"a!x#1" < "a#1"`). So a range is a
//! `PartRange`: a key condition that holds for every matching key (bounded by the prefix, so it
//! never leaks into other entities or other values of the fixed parts), plus an exact check of
//! the segment that the typed query applies to each item it reads. The check only drops items
//! the key condition could not exclude; results stay in sort-key order.
//!
//! Ranges compare encoded segments: the field's order for numbers, dates and timestamps (fixed
//! width), and byte order of the escaped text for strings.

use std::fmt;
use std::marker::PhantomData;

use super::{Query, QueryDsl};
use crate::error::Result;
use crate::expr::typed::FieldValue;
use crate::expr::SortCondition;
use crate::key::{KeyFormat, Template};
use crate::value::{AttributeValue, ToAttribute};

/// Query builder state: the first `N` parts of a composite sort key are fixed by `eq`.
#[derive(Debug)]
#[doc(hidden)]
pub struct Sk<const N: usize>(PhantomData<()>);

/// Query builder state: the sort-key condition is complete.
#[derive(Debug)]
#[doc(hidden)]
pub struct SkDone(PhantomData<()>);

/// How a sort-key part's condition values are encoded (`.day().lt(v)`): the value as the key
/// segment in a format, or with `true` as a prefix of one (`begins_with` on a partial value).
/// A `fn` pointer per field type, from `__private::Recover`, so the derive generates no
/// function for it.
#[doc(hidden)]
pub type SegmentFn<T> = fn(&T, KeyFormat, bool) -> Result<String>;

/// The conditions on one part of a typed query's sort key, typed by the part's field `T`:
/// `order_date().between(a, b)`. What the derive's accessor returns (`OrderQuery::order_date`),
/// for the builder `Q`: `eq` fixes the part and moves the builder to state `Next` (the next
/// part's `Sk`, or `SkDone` for the last part); a range or `begins_with` completes the
/// condition (`SkDone`).
///
/// ```
/// use dyno_core::prelude::*;
/// # use dyno_core::Entity;
/// # #[derive(dyno_core::Table)]
/// # #[dyno(name = "Shop", pk = "PK", sk = "SK")]
/// # struct Shop;
/// #[derive(Debug, Entity)]
/// #[dyno(table = Shop, pk = "USER#{user_id}", sk = "ORDER#{day}#{order_id}")]
/// struct Order {
///     user_id: String,
///     day: String,
///     order_id: String,
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> dyno_core::Result<()> {
/// let store = MemoryStore::new();
/// store.create_table(Shop::definition()).await?;
/// for (day, id) in [("2024-05-01", "a"), ("2024-05-01", "b"), ("2024-05-02", "c")] {
///     Order { user_id: "u".into(), day: day.into(), order_id: id.into() }.create().send(&store).await?;
/// }
/// // `day` is fixed first, then a range on `order_id` completes the condition.
/// let later = Order::query("u").day().eq("2024-05-01").order_id().ge("b").all(&store).await?;
/// assert_eq!(later.len(), 1);
/// let may = Order::query("u").day().begins_with("2024-05").count(&store).await?;
/// assert_eq!(may, 3);
/// # Ok(())
/// # }
/// ```
#[must_use = "a sort-key part does nothing until a condition (`eq`, `lt`, `between`, ...) is chosen"]
pub struct SortKeyPart<Q: QueryDsl, T, Next> {
    query: Query<Q::Out>,
    encode: SegmentFn<T>,
    format: KeyFormat,
    entity: &'static str,
    field: &'static str,
    following: &'static str,
    is_final: bool,
    _state: PhantomData<fn() -> Next>,
}

/// The state of a query without sort-key condition: the first part's accessor requires it.
#[diagnostic::on_unimplemented(
    message = "this query has its sort-key condition already",
    label = "the sort-key condition already covers this part",
    note = "a query has one sort-key condition: `eq` on leading parts, then at most one of `eq`, `lt`, `le`, `gt`, `ge`, `between`, `begins_with` on the next"
)]
#[doc(hidden)]
pub trait NoSortCondition {}

impl NoSortCondition for Sk<0> {}

impl<Q: QueryDsl, T, Next> fmt::Debug for SortKeyPart<Q, T, Next> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SortKeyPart")
            .field("query", &self.query)
            .field("following", &self.following)
            .field("is_final", &self.is_final)
            .finish()
    }
}

impl<Q: QueryDsl, T, Next> SortKeyPart<Q, T, Next> {
    /// The part of `query`'s sort key that is field `field` of `entity`, written by `encode` in
    /// `format` (the field's key segment; with `true`, of a partial value for `begins_with`),
    /// followed in the template by the literal `following`; `is_final` when no part follows it.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        query: Query<Q::Out>,
        encode: SegmentFn<T>,
        format: KeyFormat,
        entity: &'static str,
        field: &'static str,
        following: &'static str,
        is_final: bool,
    ) -> Self {
        SortKeyPart {
            query,
            encode,
            format,
            entity,
            field,
            following,
            is_final,
            _state: PhantomData,
        }
    }

    /// The condition value's segment; an error names the entity and field.
    fn segment(&self, value: impl FieldValue<T>, prefix: bool) -> Result<String> {
        value
            .with_value(|v| (self.encode)(v, self.format, prefix))
            .map_err(|e| e.in_key_field(self.entity, self.field))
    }

    /// True when the part ends the key (no literal text after it).
    fn last(&self) -> bool {
        self.is_final && self.following.is_empty()
    }

    fn compare(self, value: impl FieldValue<T>, op: SkOp) -> Q::In<SkDone> {
        let (segment, last) = (self.segment(value, false), self.last());
        <Q::In<SkDone>>::from_query(self.query.sk_compare(segment, last, op))
    }

    /// `part = value`: on the last part, the whole sort key; otherwise it fixes this part (the
    /// query reads keys beginning with the key so far) and conditions on the next part follow.
    pub fn eq(self, value: impl FieldValue<T>) -> Q::In<Next> {
        let segment = self.segment(value, false);
        <Q::In<Next>>::from_query(if self.is_final {
            self.query.sk_eq(segment, self.following)
        } else {
            self.query.sk_fix(segment, self.following)
        })
    }

    /// `part < value`.
    pub fn lt(self, value: impl FieldValue<T>) -> Q::In<SkDone> {
        self.compare(value, SkOp::Lt)
    }

    /// `part <= value`.
    pub fn le(self, value: impl FieldValue<T>) -> Q::In<SkDone> {
        self.compare(value, SkOp::Le)
    }

    /// `part > value`.
    pub fn gt(self, value: impl FieldValue<T>) -> Q::In<SkDone> {
        self.compare(value, SkOp::Gt)
    }

    /// `part >= value`.
    pub fn ge(self, value: impl FieldValue<T>) -> Q::In<SkDone> {
        self.compare(value, SkOp::Ge)
    }

    /// `part BETWEEN low AND high` (both inclusive).
    pub fn between(self, low: impl FieldValue<T>, high: impl FieldValue<T>) -> Q::In<SkDone> {
        let (low, high) = (self.segment(low, false), self.segment(high, false));
        let last = self.last();
        <Q::In<SkDone>>::from_query(self.query.sk_between(low, high, last))
    }

    /// The part starts with `value` (a partial value: a string's first characters, say).
    pub fn begins_with(self, value: impl FieldValue<T>) -> Q::In<SkDone> {
        let partial = self.segment(value, true);
        <Q::In<SkDone>>::from_query(self.query.sk_begins_with(partial))
    }
}

/// The conditions on one sort attribute of a multi-attribute index key (an index declared with
/// `sk = ["priority:N", "created"]`), typed by the entity's field `T` mapped onto it: what the
/// derive's accessor returns (`.priority()` on `Issue::by_status(..)`). The attribute keeps its
/// own type (a number compares numerically). `eq` fixes the attribute and moves the builder to
/// state `Next` (the next attribute's `Sk`, or `SkDone` after the last); a range or
/// `begins_with` completes the condition (`SkDone`), as DynamoDB requires: equality on the
/// leading attributes, at most one range, on the last one given.
#[must_use = "a sort attribute does nothing until a condition (`eq`, `lt`, `between`, ...) is chosen"]
pub struct AttributePart<Q: QueryDsl, T, Next> {
    query: Query<Q::Out>,
    attribute: &'static str,
    _state: PhantomData<fn() -> (T, Next)>,
}

impl<Q: QueryDsl, T, Next> fmt::Debug for AttributePart<Q, T, Next> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AttributePart")
            .field("query", &self.query)
            .field("attribute", &self.attribute)
            .finish()
    }
}

/// Types whose attribute `begins_with` applies to: strings and binary (not numbers).
#[diagnostic::on_unimplemented(
    message = "`begins_with` needs a string or binary key attribute, and `{Self}` is stored as neither",
    label = "not a string or binary attribute",
    note = "compare a number with `eq`, `lt`, `le`, `gt`, `ge` or `between`"
)]
pub trait BeginsWith: ToAttribute {}

impl BeginsWith for String {}
impl BeginsWith for crate::value::Bytes {}
impl BeginsWith for aws_sdk_dynamodb::primitives::Blob {}

/// The attribute of a key value: every key attribute has one.
#[doc(hidden)]
pub fn key_attribute<T: ToAttribute>(
    value: impl FieldValue<T>,
    attribute: &str,
) -> Result<AttributeValue> {
    value.with_value(|v| v.to_attribute()).and_then(|v| {
        v.ok_or_else(|| {
            crate::Error::validation(format!(
                "key attribute {attribute}: the value has no attribute form (an empty value?)"
            ))
        })
    })
}

impl<Q: QueryDsl, T: ToAttribute, Next> AttributePart<Q, T, Next> {
    /// Sort attribute `attribute` of `query`'s index key.
    #[doc(hidden)]
    pub fn new(query: Query<Q::Out>, attribute: &'static str) -> Self {
        AttributePart {
            query,
            attribute,
            _state: PhantomData,
        }
    }

    fn with(self, condition: Result<SortCondition>) -> Query<Q::Out> {
        self.query.sk_attribute(self.attribute, condition)
    }

    fn value(&self, value: impl FieldValue<T>) -> Result<AttributeValue> {
        key_attribute(value, self.attribute)
    }

    fn range(
        self,
        value: impl FieldValue<T>,
        op: fn(AttributeValue) -> SortCondition,
    ) -> Q::In<SkDone> {
        let c = self.value(value).map(op);
        <Q::In<SkDone>>::from_query(self.with(c))
    }

    /// `attribute = value`; conditions on the next sort attribute follow.
    pub fn eq(self, value: impl FieldValue<T>) -> Q::In<Next> {
        let c = self.value(value).map(SortCondition::Eq);
        <Q::In<Next>>::from_query(self.with(c))
    }

    /// `attribute < value`.
    pub fn lt(self, value: impl FieldValue<T>) -> Q::In<SkDone> {
        self.range(value, SortCondition::Lt)
    }

    /// `attribute <= value`.
    pub fn le(self, value: impl FieldValue<T>) -> Q::In<SkDone> {
        self.range(value, SortCondition::Le)
    }

    /// `attribute > value`.
    pub fn gt(self, value: impl FieldValue<T>) -> Q::In<SkDone> {
        self.range(value, SortCondition::Gt)
    }

    /// `attribute >= value`.
    pub fn ge(self, value: impl FieldValue<T>) -> Q::In<SkDone> {
        self.range(value, SortCondition::Ge)
    }

    /// `attribute BETWEEN low AND high` (both inclusive).
    pub fn between(self, low: impl FieldValue<T>, high: impl FieldValue<T>) -> Q::In<SkDone> {
        let c = self
            .value(low)
            .and_then(|l| Ok(SortCondition::Between(l, self.value(high)?)));
        <Q::In<SkDone>>::from_query(self.with(c))
    }

    /// `begins_with(attribute, value)`: strings and binary only.
    pub fn begins_with(self, value: impl FieldValue<T>) -> Q::In<SkDone>
    where
        T: BeginsWith,
    {
        self.range(value, SortCondition::BeginsWith)
    }
}

/// The highest character.
const MAX: char = '\u{10FFFF}';

/// A comparison on one sort-key part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkOp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

fn s(v: String) -> AttributeValue {
    AttributeValue::S(v)
}

/// The smallest string above every string that starts with `prefix`; `None` if there is none.
#[doc(hidden)]
pub fn successor(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(c) = chars.pop() {
        let next = match c {
            MAX => continue,
            '\u{D7FF}' => '\u{E000}',
            c => char::from_u32(c as u32 + 1).unwrap_or(MAX),
        };
        chars.push(next);
        return Some(chars.into_iter().collect());
    }
    None
}

/// A range on one part of a sort key: the keys `prefix + segment + rest` whose `segment` lies
/// between the bounds (`(encoded value, inclusive)`; `None`: unbounded).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[doc(hidden)]
pub struct PartRange {
    /// Literal text and fixed parts before the part.
    pub prefix: String,
    /// True when the part ends the key; otherwise it ends at the next `#`.
    pub last: bool,
    /// Lower bound.
    pub low: Option<(String, bool)>,
    /// Upper bound.
    pub high: Option<(String, bool)>,
}

impl PartRange {
    /// A key condition holding for every key in the range (and, under a non-empty prefix, only
    /// for keys starting with it or equal to its successor); `None` when every key may match. It
    /// is exact for a range on the last part without prefix, and for ranges on parts whose
    /// bounds hold no character below `#`, but for bounds a key dyno writes never equals.
    pub fn key_condition(&self) -> Option<SortCondition> {
        let p = &self.prefix;
        // (bound, inclusive)
        let low = match &self.low {
            // A key whose part is above `c` is above `prefix + c`, whatever follows the part.
            Some((c, inclusive)) => Some((format!("{p}{c}"), *inclusive)),
            None => (!p.is_empty()).then(|| (p.clone(), true)),
        };
        let high = match &self.high {
            Some((c, inclusive)) if self.last => Some((format!("{p}{c}"), *inclusive)),
            // Below `c`, a part followed by `#` stays below `prefix + c` unless it is a prefix
            // of `c` followed by a character below `#`: from there on, every key under
            // `prefix + c[..j]` may match.
            Some((c, inclusive)) => match c.find(|ch: char| ch < crate::key::DELIMITER) {
                Some(j) => successor(&format!("{p}{}", &c[..j])).map(|h| (h, false)),
                None if *inclusive => {
                    successor(&format!("{p}{c}{}", crate::key::DELIMITER)).map(|h| (h, false))
                }
                None => Some((format!("{p}{c}"), false)),
            },
            None => successor(p).filter(|_| !p.is_empty()).map(|h| (h, false)),
        };
        match (low, high) {
            (Some((l, li)), Some((h, _))) => {
                // BETWEEN is inclusive: an exclusive low bound moves to the next string, an
                // exclusive high bound stays (the exact check drops a key equal to it).
                let l = if li { l } else { format!("{l}\0") };
                Some(if l > h {
                    SortCondition::Eq(s(l))
                } else {
                    SortCondition::Between(s(l), s(h))
                })
            }
            (Some((l, true)), None) => Some(SortCondition::Ge(s(l))),
            (Some((l, false)), None) => Some(SortCondition::Gt(s(l))),
            (None, Some((h, true))) => Some(SortCondition::Le(s(h))),
            (None, Some((h, false))) => Some(SortCondition::Lt(s(h))),
            (None, None) => None,
        }
    }

    /// True when `key` starts with the prefix and its part is in the range (exact).
    pub fn holds(&self, key: &str) -> bool {
        let Some(rest) = key.strip_prefix(self.prefix.as_str()) else {
            return false;
        };
        let part = if self.last {
            rest
        } else {
            rest.split(crate::key::DELIMITER).next().unwrap_or(rest)
        };
        let above = match &self.low {
            Some((c, true)) => part >= c.as_str(),
            Some((c, false)) => part > c.as_str(),
            None => true,
        };
        let below = match &self.high {
            Some((c, true)) => part <= c.as_str(),
            Some((c, false)) => part < c.as_str(),
            None => true,
        };
        above && below
    }
}

impl PartRange {
    /// `part <op> segment` under `prefix`; `last` is true when the part ends the template.
    pub fn compare(prefix: &str, segment: &str, last: bool, op: SkOp) -> PartRange {
        let bound = |inclusive| Some((segment.to_owned(), inclusive));
        let (low, high) = match op {
            SkOp::Lt => (None, bound(false)),
            SkOp::Le => (None, bound(true)),
            SkOp::Gt => (bound(false), None),
            SkOp::Ge => (bound(true), None),
        };
        PartRange {
            prefix: prefix.to_owned(),
            last,
            low,
            high,
        }
    }

    /// `part BETWEEN low AND high` (inclusive) under `prefix`.
    pub fn between(prefix: &str, low: &str, high: &str, last: bool) -> PartRange {
        PartRange {
            prefix: prefix.to_owned(),
            last,
            low: Some((low.to_owned(), true)),
            high: Some((high.to_owned(), true)),
        }
    }
}

/// The tightest sort-key condition holding every key the sort-key templates `members` can
/// write (a collection's members in one partition), whatever their literal prefixes:
/// `begins_with` the shortest prefix when every other starts with it (`C#` for `C#{id}` and
/// `C#R#{id}`; `=` for one constant key), else `BETWEEN` the smallest prefix and the largest
/// successor of any prefix (`ISSUE#` to `REPO$`); `None` (the whole partition) when a member
/// has no sort key or one starting with a field. Items of other entities inside the range are
/// read and skipped; outside it, they are not read.
///
/// Every key a member writes starts with its prefix `p`, so it lies in `[p, successor(p))`: the
/// range runs from the smallest prefix to the largest successor. (The largest successor is not
/// the successor of the largest prefix: with nested prefixes, `C#` and `C#R#`, a comment at
/// `C#S1` is above `C#R$` but below `C$`.)
#[doc(hidden)]
pub fn members_range(members: &[Option<Template>]) -> Option<SortCondition> {
    let mut prefixes = Vec::with_capacity(members.len());
    for t in members {
        let t = (*t)?;
        if t.prefix().is_empty() {
            return None;
        }
        prefixes.push(t);
    }
    let low = prefixes.iter().map(Template::prefix).min()?;
    if prefixes.iter().all(|t| t.prefix().starts_with(low)) {
        let constant = prefixes
            .iter()
            .all(|t| t.is_constant() && t.prefix() == low);
        return Some(if constant {
            SortCondition::Eq(s(low.to_owned()))
        } else {
            SortCondition::BeginsWith(s(low.to_owned()))
        });
    }
    // `None` when a prefix has no successor (all of it U+10FFFF): nothing bounds it above.
    let high: Option<Vec<String>> = prefixes.iter().map(|t| successor(t.prefix())).collect();
    Some(match high.and_then(|h| h.into_iter().max()) {
        Some(h) => SortCondition::Between(s(low.to_owned()), s(h)),
        None => SortCondition::Ge(s(low.to_owned())),
    })
}

/// `begins_with(sk, prefix + partial)`.
#[doc(hidden)]
pub fn begins_with(prefix: &str, partial: &str) -> SortCondition {
    SortCondition::BeginsWith(s(format!("{prefix}{partial}")))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Evaluates a sort condition on a key as DynamoDB does (UTF-8 byte order).
    fn holds(c: &SortCondition, k: &str) -> bool {
        let v = |a: &AttributeValue| match a {
            AttributeValue::S(s) => s.clone(),
            _ => unreachable!(),
        };
        let k = k.to_owned();
        match c {
            SortCondition::Eq(a) => k == v(a),
            SortCondition::Lt(a) => k < v(a),
            SortCondition::Le(a) => k <= v(a),
            SortCondition::Gt(a) => k > v(a),
            SortCondition::Ge(a) => k >= v(a),
            SortCondition::Between(a, b) => k >= v(a) && k <= v(b),
            SortCondition::BeginsWith(a) => k.starts_with(&v(a)),
        }
    }

    /// What a typed query returns: keys the store selects with the key condition, then the
    /// exact check.
    fn select<'k>(r: &PartRange, keys: &[&'k str]) -> Vec<&'k str> {
        let c = r.key_condition();
        keys.iter()
            .copied()
            .filter(|k| c.as_ref().is_none_or(|c| holds(c, k)) && r.holds(k))
            .collect()
    }

    #[test]
    fn ranges_on_the_last_part_stay_under_the_prefix() {
        let keys = [
            "ORDER#a", "ORDER#b", "ORDER#ba", "ORDER#c", "ORDEQ", "ORDER", "PROFILE", "ORDER$",
        ];
        let pick = |r: PartRange| select(&r, &keys);
        assert_eq!(
            pick(PartRange::compare("ORDER#", "b", true, SkOp::Lt)),
            vec!["ORDER#a"]
        );
        assert_eq!(
            pick(PartRange::compare("ORDER#", "b", true, SkOp::Le)),
            vec!["ORDER#a", "ORDER#b"]
        );
        assert_eq!(
            pick(PartRange::compare("ORDER#", "b", true, SkOp::Gt)),
            vec!["ORDER#ba", "ORDER#c"]
        );
        assert_eq!(
            pick(PartRange::compare("ORDER#", "b", true, SkOp::Ge)),
            vec!["ORDER#b", "ORDER#ba", "ORDER#c"]
        );
        assert_eq!(
            pick(PartRange::between("ORDER#", "a", "b", true)),
            vec!["ORDER#a", "ORDER#b"]
        );
        // The key condition alone is exact on the last part, but for `ORDER$` (the bound).
        let ge = PartRange::compare("ORDER#", "b", true, SkOp::Ge)
            .key_condition()
            .unwrap();
        assert_eq!(
            SortCondition::Between(s("ORDER#b".into()), s("ORDER$".into())),
            ge
        );
    }

    #[test]
    fn ranges_on_an_inner_part_include_the_rest_of_the_key() {
        let keys = [
            "2024-01-01#x",
            "2024-01-02#a",
            "2024-01-02#zz",
            "2024-01-03#b",
        ];
        let pick = |r: PartRange| select(&r, &keys);
        assert_eq!(
            pick(PartRange::compare("", "2024-01-02", false, SkOp::Lt)),
            vec!["2024-01-01#x"]
        );
        assert_eq!(
            pick(PartRange::compare("", "2024-01-02", false, SkOp::Le)),
            vec!["2024-01-01#x", "2024-01-02#a", "2024-01-02#zz"]
        );
        assert_eq!(
            pick(PartRange::compare("", "2024-01-02", false, SkOp::Gt)),
            vec!["2024-01-03#b"]
        );
        assert_eq!(
            pick(PartRange::between("", "2024-01-02", "2024-01-02", false)),
            vec!["2024-01-02#a", "2024-01-02#zz"]
        );
    }

    /// The failing case users met: `"a!x"` is above `"a"` as a part, below it in the key.
    #[test]
    fn inner_parts_with_characters_below_the_delimiter_are_exact() {
        let keys = ["P#a!x#1", "P#a#1", "P#a #2", "P#b#1", "P#\"#1", "Q#a!x#1"];
        let pick = |r: PartRange| select(&r, &keys);
        assert_eq!(
            pick(PartRange::compare("P#", "a", false, SkOp::Gt)),
            vec!["P#a!x#1", "P#a #2", "P#b#1"]
        );
        assert_eq!(
            pick(PartRange::compare("P#", "a", false, SkOp::Le)),
            vec!["P#a#1", "P#\"#1"]
        );
        assert_eq!(
            pick(PartRange::compare("P#", "a!", false, SkOp::Lt)),
            vec!["P#a#1", "P#a #2", "P#\"#1"]
        );
        assert_eq!(
            pick(PartRange::between("P#", "b", "a", false)),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn members_read_their_range_only() {
        use crate::key::Segment::{Field, Literal};
        const ISSUE: Template = Template::new(&[Literal("ISSUE#"), Field("n")]);
        const REPO: Template = Template::new(&[Literal("REPO#"), Field("o")]);
        const PROFILE: Template = Template::new(&[Literal("PROFILE")]);
        const OPEN: Template = Template::new(&[Field("day")]);
        let range = members_range(&[Some(REPO), Some(ISSUE)]).unwrap();
        assert_eq!(
            range,
            SortCondition::Between(s("ISSUE#".into()), s("REPO$".into()))
        );
        let keys = ["ISSUE#1", "PR#2", "REPO#a", "STAR#b", "FORK#c", "REPO$"];
        let read: Vec<&str> = keys.iter().copied().filter(|k| holds(&range, k)).collect();
        // Stars and forks sort outside: never read. PR#2 sorts inside: read, then skipped.
        assert_eq!(read, ["ISSUE#1", "PR#2", "REPO#a", "REPO$"]);
        assert_eq!(
            members_range(&[Some(ISSUE), Some(ISSUE)]),
            Some(SortCondition::BeginsWith(s("ISSUE#".into())))
        );
        assert_eq!(
            members_range(&[Some(PROFILE)]),
            Some(SortCondition::Eq(s("PROFILE".into())))
        );
        assert_eq!(members_range(&[Some(REPO), Some(OPEN)]), None);
        assert_eq!(members_range(&[Some(REPO), None]), None);
    }

    #[test]
    fn prefix_bounds() {
        assert_eq!(successor("ORDER#").as_deref(), Some("ORDER$"));
        assert_eq!(successor("A\u{10FFFF}").as_deref(), Some("B"));
        assert_eq!(successor("\u{10FFFF}"), None);
    }

    /// Segments as encoded keys hold them: no `#`, any other character, low ones included.
    fn segment() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop::sample::select(vec![
                '\0',
                '\u{1}',
                ' ',
                '!',
                '"',
                '$',
                '%',
                '0',
                '9',
                'a',
                'b',
                'z',
                '~',
                '\u{7f}',
                'é',
                '\u{FFFF}',
                '\u{10FFFF}',
            ]),
            1..5,
        )
        .prop_map(|cs| cs.into_iter().collect())
    }

    fn op() -> impl Strategy<Value = SkOp> {
        prop::sample::select(vec![SkOp::Lt, SkOp::Le, SkOp::Gt, SkOp::Ge])
    }

    /// Literal prefixes of members' sort-key templates: nested (`C#`, `C#R#`, `C#R#X#`), equal,
    /// adjacent, at the top of the character range, and empty (a field first).
    fn literal() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "",
            "C",
            "C#",
            "C#R#",
            "C#R#X#",
            "C#S",
            "CX",
            "N#",
            "PROFILE",
            "PROFILE#",
            "Z#",
            "\u{10FFFF}",
            "A\u{10FFFF}",
            "A",
            "a#",
        ])
    }

    fn template(prefix: &'static str, constant: bool) -> Template {
        use crate::key::Segment::{Field, Literal};
        let segments: Vec<crate::key::Segment> = match (prefix.is_empty(), constant) {
            (true, true) => vec![Literal("K")],
            (true, false) => vec![Field("id")],
            (false, true) => vec![Literal(prefix)],
            (false, false) => vec![Literal(prefix), Field("id")],
        };
        Template::new(Box::leak(segments.into_boxed_slice()))
    }

    /// A key `t` writes, with `segment` as its field's value.
    fn key_of(t: &Template, segment: &str) -> String {
        t.encode(|_, out| {
            out.push_str(segment);
            Ok(())
        })
        .unwrap()
    }

    /// The failing case users met: `C#{id}` and `C#R#{id}` lost the comments after `C#R$`.
    #[test]
    fn nested_prefixes_read_every_member() {
        let comment = template("C#", false);
        let reply = template("C#R#", false);
        let range = members_range(&[Some(comment), Some(reply)]).unwrap();
        assert_eq!(range, SortCondition::BeginsWith(s("C#".into())));
        for k in ["C#A", "C#R", "C#R#1", "C#S1", "C#z"] {
            assert!(holds(&range, k), "{k}");
        }
        let range = members_range(&[Some(template("C#R#", false)), Some(template("D#", false))]);
        assert_eq!(
            range,
            Some(SortCondition::Between(s("C#R#".into()), s("D$".into())))
        );
        let range = members_range(&[Some(template("C#", false)), Some(template("B#R#", false))]);
        assert_eq!(
            range,
            Some(SortCondition::Between(s("B#R#".into()), s("C$".into())))
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(
            std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(2048)
        ))]

        /// Every key any member writes is in the members' range, whatever their prefixes; the
        /// range of one member is exactly its prefix (`begins_with`, or `=` for a constant key).
        #[test]
        fn a_members_range_holds_every_key_they_write(
            shapes in proptest::collection::vec((literal(), any::<bool>()), 1..6),
            keys in proptest::collection::vec((0..6usize, segment()), 0..40),
            others in proptest::collection::vec((literal(), segment(), any::<bool>()), 0..8),
        ) {
            let templates: Vec<Template> = shapes.iter().map(|(p, c)| template(p, *c)).collect();
            let members: Vec<Option<Template>> = templates.iter().copied().map(Some).collect();
            let range = members_range(&members);
            for (i, segment) in &keys {
                let t = &templates[i % templates.len()];
                let key = key_of(t, segment);
                prop_assert!(
                    range.as_ref().is_none_or(|c| holds(c, &key)),
                    "key {:?} of {:?} is outside {:?}", key, t, range
                );
            }
            // Alone, a member's range is its prefix: a key outside it is never read.
            for t in &templates {
                let own = members_range(&[Some(*t)]);
                for (p, seg, bare) in &others {
                    let o = &if *bare { (*p).to_owned() } else { format!("{p}{seg}") };
                    let read = own.as_ref().is_none_or(|c| holds(c, o));
                    let mine = t.prefix().is_empty()
                        || if t.is_constant() { o == t.prefix() } else { o.starts_with(t.prefix()) };
                    prop_assert_eq!(read, mine, "{:?} under {:?}", o, own);
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Against a reference filter on the parts: the key condition keeps every matching key
        /// (it is a superset), and with the exact check the result is exactly the matching keys.
        #[test]
        fn every_range_on_every_part_is_exact(
            prefix in prop::sample::select(vec!["", "T#", "T#a#", "T#!#"]),
            parts in proptest::collection::vec((segment(), segment()), 1..24),
            others in proptest::collection::vec(segment(), 0..4),
            bound in segment(),
            bound2 in segment(),
            op in op(),
            last in any::<bool>(),
            between in any::<bool>(),
        ) {
            // Keys of this prefix, plus keys of other entities in the partition.
            let mut keys: Vec<String> = parts
                .iter()
                .map(|(part, rest)| {
                    if last { format!("{prefix}{part}") } else { format!("{prefix}{part}#{rest}") }
                })
                .collect();
            keys.extend(others.iter().map(|o| format!("U#{o}")));
            let range = if between {
                PartRange::between(prefix, &bound, &bound2, last)
            } else {
                PartRange::compare(prefix, &bound, last, op)
            };
            let reference = |key: &str| -> bool {
                let Some(rest) = key.strip_prefix(prefix) else { return false };
                let part = if last { rest } else { rest.split('#').next().unwrap() };
                if between {
                    part >= bound.as_str() && part <= bound2.as_str()
                } else {
                    match op {
                        SkOp::Lt => part < bound.as_str(),
                        SkOp::Le => part <= bound.as_str(),
                        SkOp::Gt => part > bound.as_str(),
                        SkOp::Ge => part >= bound.as_str(),
                    }
                }
            };
            let condition = range.key_condition();
            for k in &keys {
                let expected = reference(k);
                let read = condition.as_ref().is_none_or(|c| holds(c, k));
                prop_assert!(!expected || read, "key {k:?} matches but the key condition {condition:?} misses it");
                prop_assert_eq!(read && range.holds(k), expected, "key {:?}", k);
            }
        }
    }
}
