//! Sort-key conditions on one part of a key template.
//!
//! A sort key is `prefix + segment + rest`: `prefix` is the template's literal text plus the
//! parts already fixed by `*_eq`, `segment` is the encoded value of the part being compared, and
//! `rest` is empty for the template's last part or starts with `#` otherwise. A range on the
//! part must not leak into keys outside `prefix` (other entities in the same partition, or other
//! values of the fixed parts), so ranges under a non-empty prefix become `BETWEEN` bounded by the
//! prefix. Ranges on the last part are exact; on an inner part they are exact for fixed-width
//! encodings (integers, dates, timestamps) and for segments without characters below `$`.

use crate::expr::SortCondition;
use crate::value::AttributeValue;

/// The highest character: a bound above every key that continues with ordinary text.
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

/// A string below `key` and above every key dyno writes that is below `key`.
fn before(key: &str) -> String {
    let mut chars: Vec<char> = key.chars().collect();
    match chars.pop() {
        None => String::new(),
        Some('\0') => chars.into_iter().collect(),
        Some(c) => {
            let prev = match c {
                '\u{E000}' => '\u{D7FF}',
                c => char::from_u32(c as u32 - 1).unwrap_or('\0'),
            };
            chars.push(prev);
            chars.push(MAX);
            chars.into_iter().collect()
        }
    }
}

/// `BETWEEN low AND` the end of `prefix` (or `>= low` when nothing follows the prefix).
fn bounded(prefix: &str, low: String) -> SortCondition {
    match successor(prefix) {
        Some(h) => SortCondition::Between(s(low), s(h)),
        None => SortCondition::Ge(s(low)),
    }
}

/// `part <op> segment` under `prefix`; `last` is true when the part ends the template.
pub fn sk_compare(prefix: &str, segment: &str, last: bool, op: SkOp) -> SortCondition {
    let key = format!("{prefix}{segment}");
    // The greatest key whose part equals `segment`, and the least key whose part is above it.
    let through = if last {
        key.clone()
    } else {
        format!("{key}{}{MAX}", crate::key::DELIMITER)
    };
    let above = if last {
        format!("{key}\0")
    } else {
        format!("{key}$")
    };
    if prefix.is_empty() {
        return match op {
            SkOp::Lt => SortCondition::Lt(s(key)),
            SkOp::Le => SortCondition::Le(s(through)),
            SkOp::Gt => SortCondition::Ge(s(above)),
            SkOp::Ge => SortCondition::Ge(s(key)),
        };
    }
    match op {
        SkOp::Lt => SortCondition::Between(s(prefix.to_owned()), s(before(&key))),
        SkOp::Le => SortCondition::Between(s(prefix.to_owned()), s(through)),
        SkOp::Gt => bounded(prefix, above),
        SkOp::Ge => bounded(prefix, key),
    }
}

/// `part BETWEEN low AND high` (inclusive) under `prefix`.
pub fn sk_between(prefix: &str, low: &str, high: &str, last: bool) -> SortCondition {
    let high = if last {
        format!("{prefix}{high}")
    } else {
        format!("{prefix}{high}{}{MAX}", crate::key::DELIMITER)
    };
    SortCondition::Between(s(format!("{prefix}{low}")), s(high))
}

/// `begins_with(sk, prefix + partial)`.
pub fn sk_begins_with(prefix: &str, partial: &str) -> SortCondition {
    SortCondition::BeginsWith(s(format!("{prefix}{partial}")))
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn ranges_on_the_last_part_are_exact_and_stay_under_the_prefix() {
        let keys = [
            "ORDER#a", "ORDER#b", "ORDER#ba", "ORDER#c", "ORDEQ", "ORDER", "PROFILE", "ORDER$",
        ];
        let pick = |c: SortCondition| {
            keys.iter()
                .filter(|k| holds(&c, k))
                .copied()
                .collect::<Vec<_>>()
        };
        assert_eq!(
            pick(sk_compare("ORDER#", "b", true, SkOp::Lt)),
            vec!["ORDER#a"]
        );
        assert_eq!(
            pick(sk_compare("ORDER#", "b", true, SkOp::Le)),
            vec!["ORDER#a", "ORDER#b"]
        );
        assert_eq!(
            pick(sk_compare("ORDER#", "b", true, SkOp::Gt)),
            vec!["ORDER#ba", "ORDER#c", "ORDER$"]
        );
        assert_eq!(
            pick(sk_compare("ORDER#", "b", true, SkOp::Ge)),
            vec!["ORDER#b", "ORDER#ba", "ORDER#c", "ORDER$"]
        );
        assert_eq!(
            pick(sk_between("ORDER#", "a", "b", true)),
            vec!["ORDER#a", "ORDER#b"]
        );
        // `ORDER$` is the successor bound itself: another entity's key there is skipped by the
        // entity check (it does not match `ORDER#{...}`).
    }

    #[test]
    fn ranges_on_an_inner_part_include_the_rest_of_the_key() {
        let keys = [
            "2024-01-01#x",
            "2024-01-02#a",
            "2024-01-02#zz",
            "2024-01-03#b",
            "2024-01-02",
        ];
        let pick = |c: SortCondition| {
            keys.iter()
                .filter(|k| holds(&c, k))
                .copied()
                .collect::<Vec<_>>()
        };
        assert_eq!(
            pick(sk_compare("", "2024-01-02", false, SkOp::Lt)),
            vec!["2024-01-01#x"]
        );
        assert_eq!(
            pick(sk_compare("", "2024-01-02", false, SkOp::Le)),
            vec![
                "2024-01-01#x",
                "2024-01-02#a",
                "2024-01-02#zz",
                "2024-01-02"
            ]
        );
        assert_eq!(
            pick(sk_compare("", "2024-01-02", false, SkOp::Gt)),
            vec!["2024-01-03#b"]
        );
        assert_eq!(
            pick(sk_between("", "2024-01-02", "2024-01-02", false)),
            vec!["2024-01-02#a", "2024-01-02#zz", "2024-01-02"]
        );
        assert_eq!(pick(sk_begins_with("2024-01-0", "")), keys.to_vec());
    }

    #[test]
    fn prefix_bounds() {
        assert_eq!(successor("ORDER#").as_deref(), Some("ORDER$"));
        assert_eq!(successor("A\u{10FFFF}").as_deref(), Some("B"));
        assert_eq!(successor("\u{10FFFF}"), None);
        assert!(before("ORDER#b").as_str() < "ORDER#b" && before("ORDER#b").as_str() > "ORDER#az");
    }
}
