//! Conditions (ConditionExpression, FilterExpression). [`check`] finds what DynamoDB rejects with
//! a ValidationException before looking at any item (literal operands of the wrong type, an
//! inverted BETWEEN, a bad path); [`eval`] then cannot fail: a value from the item that does not
//! fit only makes the condition false.

use std::borrow::Cow;
use std::cmp::Ordering;

use super::{check_path, compare, resolve, type_name, values_equal};
use crate::error::{Error, Result};
use crate::expr::{Comparator, Condition, Operand, Path};
use crate::value::{AttributeValue, Item};

/// DynamoDB's limit on the values of one IN.
const MAX_IN_VALUES: usize = 100;

/// Validates a condition as DynamoDB does before evaluating it: a ConditionExpression of a
/// write, or a FilterExpression (`clause`).
pub(super) fn check(cond: &Condition, clause: Clause) -> Result<()> {
    match cond {
        Condition::Compare(a, op, b) => {
            let ordering = (!matches!(op, Comparator::Eq | Comparator::Ne)).then(|| op.symbol());
            check_operand(a, ordering, clause)?;
            check_operand(b, ordering, clause)
        }
        Condition::Between(a, lo, hi) => {
            for operand in [a, lo, hi] {
                check_operand(operand, Some("BETWEEN"), clause)?;
            }
            if let (Operand::Value(lo), Operand::Value(hi)) = (lo, hi) {
                if type_name(lo) != type_name(hi) {
                    return Err(Error::validation(format!(
                        "{}The BETWEEN operator requires same data type for lower and upper bounds; lower bound operand: {}, upper bound operand: {}",
                        clause.prefix(),
                        describe(lo),
                        describe(hi)
                    )));
                }
                // Bounds in decreasing order are refused in a write's condition (dynoxide's
                // capture); a filter evaluates them, to false, as the Developer Guide defines
                // `a BETWEEN b AND c` ("true if a is greater than or equal to b, and less than or
                // equal to c"), and dynoxide does.
                if clause == Clause::Condition && compare(lo, hi) == Some(Ordering::Greater) {
                    return Err(Error::validation(format!(
                        "{}The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: {}, upper bound operand: {}",
                        clause.prefix(),
                        describe(lo),
                        describe(hi)
                    )));
                }
            }
            Ok(())
        }
        Condition::In(a, list) => {
            if list.is_empty() || list.len() > MAX_IN_VALUES {
                return Err(Error::validation(format!(
                    "The IN operator takes 1 to {MAX_IN_VALUES} values; found {}",
                    list.len()
                )));
            }
            check_operand(a, None, clause)?;
            list.iter()
                .try_for_each(|operand| check_operand(operand, None, clause))
        }
        Condition::AttributeExists(p)
        | Condition::AttributeNotExists(p)
        | Condition::AttributeType(p, _) => check_path(p, "condition"),
        Condition::BeginsWith(p, operand) => {
            check_path(p, "condition")?;
            // A literal's type before what lies inside it (a repeated member of a set in a map),
            // as for the ordering comparisons (dynoxide).
            if let Operand::Value(v) = operand
                && !matches!(v, AttributeValue::S(_) | AttributeValue::B(_))
            {
                return Err(incorrect_operand("begins_with", v, clause));
            }
            check_operand(operand, None, clause)?;
            match operand {
                Operand::Size(_) => Err(incorrect_operand(
                    "begins_with",
                    &AttributeValue::N(String::new()),
                    clause,
                )),
                Operand::Value(_) | Operand::Path(_) => Ok(()),
            }
        }
        Condition::Contains(p, operand) => {
            check_path(p, "condition")?;
            check_operand(operand, None, clause)
        }
        Condition::And(conds) | Condition::Or(conds) => {
            conds.iter().try_for_each(|c| check(c, clause))
        }
        Condition::Not(cond) => check(cond, clause),
    }
}

/// Where a condition sits: its checks and their words differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(hidden)]
pub enum Clause {
    /// The ConditionExpression of a PutItem, UpdateItem or DeleteItem, or of a transaction's
    /// action.
    Condition,
    /// The FilterExpression of a Query or Scan.
    Filter,
}

impl Clause {
    /// What DynamoDB puts before a static check's message (dynoxide's records: a write's
    /// condition names its expression; a filter's messages are bare).
    fn prefix(self) -> &'static str {
        match self {
            Clause::Condition => "Invalid ConditionExpression: ",
            Clause::Filter => "",
        }
    }

    /// What DynamoDB puts before an operand's wrong type, which it finds as it parses the
    /// expression: the expression's name, in a filter too (dynoxide's `Invalid
    /// FilterExpression: ` / `Invalid ConditionExpression: `, as the key condition's and the
    /// update's are named).
    fn operand_prefix(self) -> &'static str {
        match self {
            Clause::Condition => "Invalid ConditionExpression: ",
            Clause::Filter => "Invalid FilterExpression: ",
        }
    }
}

/// A literal must be a valid value; in an ordering comparison (`ordering`: the operator) it
/// must also be a string, number or binary.
fn check_operand(operand: &Operand, ordering: Option<&str>, clause: Clause) -> Result<()> {
    match operand {
        Operand::Path(p) | Operand::Size(p) => check_path(p, "condition"),
        Operand::Value(v) => {
            // The operand's type only: the value was checked with the request's values already
            // (what reading it refuses anywhere, its depth, a set at its top). A set deeper inside
            // it (a repeated member in a map) is not refused: dynoxide, which records DynamoDB's
            // answers, checks expression values at their top and finds deeper sets only in an
            // item being stored, which a condition's literal never is. (A transaction checks
            // every set of its values up front: `check_literals`.)
            match (ordering, v) {
                (Some(op), v)
                    if !matches!(
                        v,
                        AttributeValue::S(_) | AttributeValue::N(_) | AttributeValue::B(_)
                    ) =>
                {
                    Err(incorrect_operand(op, v, clause))
                }
                _ => Ok(()),
            }
        }
    }
}

fn incorrect_operand(function: &str, value: &AttributeValue, clause: Clause) -> Error {
    Error::validation(format!(
        "{}Incorrect operand type for operator or function; operator or function: {function}, operand type: {}",
        clause.operand_prefix(),
        type_name(value)
    ))
}

/// `AttributeValue: {N:2}`, as DynamoDB prints operands in messages (a binary in base64:
/// `{B:AgE=}`, as dynoxide records it).
#[doc(hidden)]
pub fn describe(value: &AttributeValue) -> String {
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine as _;
    let text = match value {
        AttributeValue::S(s) | AttributeValue::N(s) => s.clone(),
        AttributeValue::B(b) => STANDARD.encode(b.as_ref()),
        other => format!("{other:?}"),
    };
    format!("AttributeValue: {{{}:{text}}}", type_name(value))
}

/// Evaluates a checked condition. `item: None` is a missing item: every path is missing.
pub(super) fn eval(cond: &Condition, item: Option<&Item>) -> bool {
    match cond {
        Condition::Compare(a, op, b) => {
            let (a, b) = (operand(a, item), operand(b, item));
            let (Some(a), Some(b)) = (a, b) else {
                // A missing value equals nothing, not even another missing value.
                return *op == Comparator::Ne;
            };
            match op {
                Comparator::Eq => values_equal(&a, &b),
                Comparator::Ne => !values_equal(&a, &b),
                Comparator::Lt => compare(&a, &b) == Some(Ordering::Less),
                Comparator::Le => matches!(compare(&a, &b), Some(Ordering::Less | Ordering::Equal)),
                Comparator::Gt => compare(&a, &b) == Some(Ordering::Greater),
                Comparator::Ge => {
                    matches!(compare(&a, &b), Some(Ordering::Greater | Ordering::Equal))
                }
            }
        }
        Condition::Between(a, lo, hi) => {
            let (Some(a), Some(lo), Some(hi)) =
                (operand(a, item), operand(lo, item), operand(hi, item))
            else {
                return false;
            };
            matches!(compare(&a, &lo), Some(Ordering::Greater | Ordering::Equal))
                && matches!(compare(&a, &hi), Some(Ordering::Less | Ordering::Equal))
        }
        Condition::In(a, list) => {
            let Some(a) = operand(a, item) else {
                return false;
            };
            list.iter()
                .any(|candidate| operand(candidate, item).is_some_and(|c| values_equal(&a, &c)))
        }
        Condition::AttributeExists(p) => at(p, item).is_some(),
        Condition::AttributeNotExists(p) => at(p, item).is_none(),
        Condition::AttributeType(p, t) => at(p, item).is_some_and(|v| type_name(v) == t.name()),
        Condition::BeginsWith(p, prefix) => match (at(p, item), operand(prefix, item).as_deref()) {
            (Some(AttributeValue::S(s)), Some(AttributeValue::S(prefix))) => {
                s.starts_with(prefix.as_str())
            }
            (Some(AttributeValue::B(b)), Some(AttributeValue::B(prefix))) => {
                b.as_ref().starts_with(prefix.as_ref())
            }
            _ => false,
        },
        Condition::Contains(p, needle) => match (at(p, item), operand(needle, item)) {
            (Some(haystack), Some(needle)) => contains(haystack, &needle),
            _ => false,
        },
        Condition::And(conds) => conds.iter().all(|c| eval(c, item)),
        Condition::Or(conds) => conds.iter().any(|c| eval(c, item)),
        Condition::Not(cond) => !eval(cond, item),
    }
}

fn at<'a>(path: &Path, item: Option<&'a Item>) -> Option<&'a AttributeValue> {
    item.and_then(|item| resolve(item, path))
}

/// The value of an operand; `None` when it names a missing attribute (or the size of one that
/// has no size).
fn operand<'a>(operand: &'a Operand, item: Option<&'a Item>) -> Option<Cow<'a, AttributeValue>> {
    match operand {
        Operand::Path(p) => at(p, item).map(Cow::Borrowed),
        Operand::Value(v) => Some(Cow::Borrowed(v)),
        Operand::Size(p) => at(p, item)
            .and_then(size)
            .map(|n| Cow::Owned(AttributeValue::N(n.to_string()))),
    }
}

/// `size()`: a string's length in UTF-16 code units (what DynamoDB counts: `size("é𝄞")` is 3),
/// a binary's bytes, the elements of a set, list or map. Numbers, booleans and null have none.
fn size(value: &AttributeValue) -> Option<usize> {
    Some(match value {
        AttributeValue::S(s) => s.encode_utf16().count(),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Ss(v) | AttributeValue::Ns(v) => v.len(),
        AttributeValue::Bs(v) => v.len(),
        AttributeValue::L(v) => v.len(),
        AttributeValue::M(v) => v.len(),
        _ => return None,
    })
}

/// `contains()`: a substring of a string, a byte run of a binary, a member of a set, an element
/// of a list (any type, compared deeply).
fn contains(haystack: &AttributeValue, needle: &AttributeValue) -> bool {
    match (haystack, needle) {
        (AttributeValue::S(h), AttributeValue::S(n)) => h.contains(n.as_str()),
        (AttributeValue::B(h), AttributeValue::B(n)) => {
            let (h, n) = (h.as_ref(), n.as_ref());
            n.is_empty() || h.windows(n.len()).any(|w| w == n)
        }
        (AttributeValue::Ss(h), AttributeValue::S(n)) => h.contains(n),
        (AttributeValue::Ns(h), AttributeValue::N(n)) => {
            h.iter().any(|x| super::numbers_equal(x, n))
        }
        (AttributeValue::Bs(h), AttributeValue::B(n)) => h.iter().any(|x| x.as_ref() == n.as_ref()),
        (AttributeValue::L(h), n) => h.iter().any(|x| values_equal(x, n)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::eval_condition;
    use super::super::tests::{b, bs, item, l, m, message, n, ns, path, s, ss};
    use super::*;
    use crate::expr::AttributeType;

    fn p(text: &str) -> Operand {
        Operand::Path(path(text))
    }
    fn v(value: AttributeValue) -> Operand {
        Operand::Value(value)
    }
    fn size_of(text: &str) -> Operand {
        Operand::Size(path(text))
    }
    fn cmp(a: Operand, op: Comparator, b: Operand) -> Condition {
        Condition::Compare(a, op, b)
    }

    fn sample() -> Item {
        item(vec![
            ("num", n("1")),
            ("str", s("cat")),
            ("bin", b(b"cat")),
            ("strs", ss(&["dog", "chinchilla"])),
            ("nums", ns(&["2", "4", "7"])),
            ("bins", bs(&[b"xyz", b"hi"])),
            (
                "list",
                l(vec![
                    n("2"),
                    s("dog"),
                    n("7"),
                    ns(&["1", "2"]),
                    l(vec![n("3"), n("4")]),
                ]),
            ),
            (
                "map",
                m(vec![("x", n("1")), ("y", l(vec![n("-1"), n("2"), n("0")]))]),
            ),
            ("yes", AttributeValue::Bool(true)),
            ("nothing", AttributeValue::Null(true)),
            ("unicode", s("é𝄞")),
        ])
    }

    fn holds(cond: Condition) -> bool {
        eval_condition(&cond, Some(&sample())).unwrap_or_else(|e| panic!("{cond:?}: {e}"))
    }

    fn invalid(cond: Condition) -> String {
        message(eval_condition(&cond, Some(&sample())).expect_err("expected a validation error"))
    }

    #[test]
    fn equality_works_on_every_type() {
        let it = sample();
        for (name, value) in &it {
            assert!(
                holds(cmp(p(name), Comparator::Eq, v(value.clone()))),
                "{name} = itself"
            );
            assert!(
                !holds(cmp(p(name), Comparator::Ne, v(value.clone()))),
                "{name} <> itself"
            );
            for (other, other_value) in &it {
                if other != name {
                    assert!(
                        !holds(cmp(p(name), Comparator::Eq, p(other))),
                        "{name} = {other}"
                    );
                    assert!(
                        holds(cmp(p(name), Comparator::Ne, v(other_value.clone()))),
                        "{name} <> {other}"
                    );
                }
            }
        }
        assert!(
            holds(cmp(
                p("strs"),
                Comparator::Eq,
                v(ss(&["chinchilla", "dog"]))
            )),
            "sets ignore order"
        );
        assert!(
            holds(cmp(p("nums"), Comparator::Eq, v(ns(&["7.0", "2", "4"])))),
            "numbers by value"
        );
        assert!(holds(cmp(p("num"), Comparator::Eq, v(n("1.000")))));
        assert!(
            !holds(cmp(p("num"), Comparator::Eq, v(s("1")))),
            "different types are unequal"
        );
        assert!(holds(cmp(p("num"), Comparator::Ne, v(s("1")))));
        assert!(holds(cmp(p("map.y[1]"), Comparator::Eq, v(n("2")))));
    }

    #[test]
    fn missing_attributes_are_unequal_to_everything() {
        assert!(!holds(cmp(p("missing"), Comparator::Eq, v(n("1")))));
        assert!(holds(cmp(p("missing"), Comparator::Ne, v(n("1")))));
        assert!(
            !holds(cmp(p("missing"), Comparator::Eq, p("other_missing"))),
            "not even to another"
        );
        assert!(holds(cmp(p("missing"), Comparator::Ne, p("other_missing"))));
        for op in [
            Comparator::Lt,
            Comparator::Le,
            Comparator::Gt,
            Comparator::Ge,
        ] {
            assert!(!holds(cmp(p("missing"), op, v(n("1")))), "{op:?}");
            assert!(!holds(cmp(v(n("1")), op, p("missing"))), "{op:?}");
            assert!(!holds(cmp(p("missing"), op, p("other_missing"))), "{op:?}");
        }
        // `item: None` is a missing item: every attribute is missing.
        let none = |cond: Condition| eval_condition(&cond, None).unwrap();
        assert!(none(Condition::not_exists("pk")));
        assert!(!none(Condition::exists("pk")));
        assert!(
            none(cmp(p("pk"), Comparator::Ne, v(s("k")))),
            "the `<>` create-if-absent idiom"
        );
        assert!(!none(cmp(p("pk"), Comparator::Eq, v(s("k")))));
        assert!(!none(Condition::Between(p("a"), v(n("1")), v(n("2")))));
        assert!(!none(Condition::In(p("a"), vec![v(n("1"))])));
    }

    #[test]
    fn ordering_comparators_on_strings_numbers_and_binaries() {
        let cases = [
            ("num", n("2"), [true, true, false, false]),
            ("num", n("1"), [false, true, false, true]),
            ("num", n("0"), [false, false, true, true]),
            ("num", n("-1e100"), [false, false, true, true]),
            ("str", s("dog"), [true, true, false, false]),
            ("str", s("cat"), [false, true, false, true]),
            ("str", s("aardvark"), [false, false, true, true]),
            ("bin", b(b"dog"), [true, true, false, false]),
            ("bin", b(b"cat"), [false, true, false, true]),
            ("bin", b(b"aardvark"), [false, false, true, true]),
        ];
        for (name, value, expected) in cases {
            for (op, want) in [
                Comparator::Lt,
                Comparator::Le,
                Comparator::Gt,
                Comparator::Ge,
            ]
            .into_iter()
            .zip(expected)
            {
                assert_eq!(
                    holds(cmp(p(name), op, v(value.clone()))),
                    want,
                    "{name} {} {value:?}",
                    op.symbol()
                );
            }
        }
        assert!(holds(cmp(p("map.x"), Comparator::Lt, p("map.y[1]"))));
        assert!(!holds(cmp(p("map.x"), Comparator::Lt, p("map.y[0]"))));
        assert!(!holds(cmp(p("map.z"), Comparator::Lt, p("map.y[100]"))));
        let bytes = item(vec![("b", b(&[127]))]);
        let lt = cmp(p("b"), Comparator::Lt, v(b(&[128])));
        assert!(
            eval_condition(&lt, Some(&bytes)).unwrap(),
            "binary compares unsigned bytes"
        );
    }

    #[test]
    fn ordering_across_types_is_false_not_an_error() {
        for op in [
            Comparator::Lt,
            Comparator::Le,
            Comparator::Gt,
            Comparator::Ge,
        ] {
            assert!(!holds(cmp(p("num"), op, v(s("1")))), "N vs S {op:?}");
            assert!(!holds(cmp(p("str"), op, v(b(b"cat")))), "S vs B {op:?}");
            assert!(!holds(cmp(p("bin"), op, v(n("1")))), "B vs N {op:?}");
            // An item value of an unordered type makes the comparison false...
            assert!(
                !holds(cmp(p("list"), op, v(n("1")))),
                "L from the item {op:?}"
            );
            assert!(
                !holds(cmp(v(n("1")), op, p("list"))),
                "L from the item {op:?}"
            );
            assert!(
                !holds(cmp(p("yes"), op, p("yes"))),
                "BOOL from the item {op:?}"
            );
        }
    }

    #[test]
    fn ordering_literals_of_unordered_types_are_validation_errors() {
        for literal in [
            l(vec![n("1"), n("2")]),
            m(vec![]),
            ss(&["a"]),
            AttributeValue::Bool(true),
            AttributeValue::Null(true),
        ] {
            for op in [
                Comparator::Lt,
                Comparator::Le,
                Comparator::Gt,
                Comparator::Ge,
            ] {
                let err = invalid(cmp(p("num"), op, v(literal.clone())));
                assert!(err.contains("Incorrect operand type"), "{err}");
                assert!(
                    err.contains(&format!("operand type: {}", type_name(&literal))),
                    "{err}"
                );
                invalid(cmp(v(literal.clone()), op, p("num")));
            }
        }
        // Equality accepts any literal.
        assert!(!holds(cmp(p("num"), Comparator::Eq, v(l(vec![])))));
    }

    #[test]
    fn literal_values_are_validated() {
        // With the request's values, before the expression is checked (`check_values`).
        let invalid = |cond: Condition| {
            message(
                super::super::check_values(None, Some(&cond), super::super::Layer::Current)
                    .expect_err("expected a validation error"),
            )
        };
        assert!(invalid(cmp(p("num"), Comparator::Eq, v(n("NaN")))).contains("numeric value: NaN"));
        assert!(invalid(cmp(p("num"), Comparator::Lt, v(n("1e200")))).contains("Number overflow"));
        assert!(invalid(cmp(p("strs"), Comparator::Eq, v(ss(&[])))).contains("may not be empty"));
        assert!(
            invalid(Condition::Contains(path("strs"), v(ss(&["a", "a"])))).contains("duplicates")
        );
    }

    #[test]
    fn size_compares_as_a_number() {
        for (name, expected) in [
            ("str", "3"),
            ("bin", "3"),
            ("strs", "2"),
            ("nums", "3"),
            ("bins", "2"),
            ("list", "5"),
            ("map", "2"),
        ] {
            assert!(
                holds(cmp(size_of(name), Comparator::Eq, v(n(expected)))),
                "size({name}) = {expected}"
            );
        }
        // DynamoDB counts a string's UTF-16 code units: é is one, 𝄞 (a surrogate pair) two.
        assert!(holds(cmp(size_of("unicode"), Comparator::Eq, v(n("3")))));
        assert!(holds(cmp(size_of("str"), Comparator::Lt, v(n("4")))));
        assert!(holds(cmp(size_of("str"), Comparator::Ge, v(n("3")))));
        assert!(holds(cmp(size_of("str"), Comparator::Ne, v(n("4")))));
        assert!(holds(
            cmp(size_of("map.y"), Comparator::Eq, p("map.y[0]").clone()).negate()
        ));
        assert!(holds(Condition::Between(
            size_of("list"),
            v(n("1")),
            v(n("5"))
        )));
        assert!(
            !holds(cmp(size_of("str"), Comparator::Eq, v(s("3")))),
            "size is a number, not a string"
        );
        for name in ["num", "yes", "nothing", "missing"] {
            for op in [Comparator::Eq, Comparator::Lt, Comparator::Ge] {
                assert!(
                    !holds(cmp(size_of(name), op, v(n("1")))),
                    "size({name}) {op:?}"
                );
            }
        }
    }

    #[test]
    fn between_is_inclusive_and_typed() {
        assert!(holds(Condition::Between(p("num"), v(n("0")), v(n("2")))));
        assert!(holds(Condition::Between(p("num"), v(n("1")), v(n("1")))));
        assert!(!holds(Condition::Between(p("num"), v(n("2")), v(n("7")))));
        assert!(holds(Condition::Between(
            p("str"),
            v(s("aardvark")),
            v(s("dog"))
        )));
        assert!(holds(Condition::Between(
            p("str"),
            v(s("cat")),
            v(s("cat"))
        )));
        assert!(!holds(Condition::Between(
            p("str"),
            v(s("dog")),
            v(s("zebra"))
        )));
        assert!(holds(Condition::Between(p("bin"), v(b(b"a")), v(b(b"d")))));
        assert!(
            !holds(Condition::Between(p("num"), v(s("0")), v(s("2")))),
            "other type: false"
        );
        assert!(!holds(Condition::Between(
            p("missing"),
            v(n("0")),
            v(n("2"))
        )));
        assert!(holds(Condition::Between(
            p("map.x"),
            p("map.y[2]"),
            p("map.y[1]")
        )));
        // Bounds from the item in the wrong order, or of the wrong type, only make it false.
        assert!(!holds(Condition::Between(
            p("num"),
            p("map.y[1]"),
            p("map.y[0]")
        )));
        assert!(!holds(Condition::Between(p("num"), p("list"), p("list"))));
        assert!(!holds(Condition::Between(
            p("num"),
            p("map.y[1]"),
            v(n("1"))
        )));
    }

    #[test]
    fn between_literal_bounds_are_validated() {
        let err = invalid(Condition::Between(p("num"), v(n("2")), v(n("1"))));
        assert_eq!(
            err,
            "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:2}, upper bound operand: AttributeValue: {N:1}"
        );
        assert!(
            invalid(Condition::Between(p("num"), v(n("2")), v(s("dog"))))
                .contains("same data type")
        );
        // An operand's type is named before a fault inside it (dynoxide's order).
        let inside = m(vec![("k", ns(&["1", "1.0"]))]);
        assert_eq!(
            invalid(Condition::Between(p("num"), v(inside), p("num"))),
            "Invalid ConditionExpression: Incorrect operand type for operator or function; operator or function: BETWEEN, operand type: M"
        );
        assert!(
            invalid(Condition::Between(p("num"), v(l(vec![])), v(l(vec![]))))
                .contains("operand type: L")
        );
        assert!(
            invalid(Condition::Between(v(m(vec![])), p("num"), p("num")))
                .contains("operand type: M")
        );
    }

    #[test]
    fn in_matches_any_listed_value() {
        assert!(
            holds(Condition::In(p("num"), vec![v(s("dog")), v(n("1.0"))])),
            "mixed types are allowed"
        );
        assert!(!holds(Condition::In(p("num"), vec![v(n("2")), v(n("3"))])));
        assert!(holds(Condition::In(
            p("strs"),
            vec![v(ss(&["chinchilla", "dog"]))]
        )));
        assert!(holds(Condition::In(p("map.x"), vec![p("num")])));
        assert!(!holds(Condition::In(
            p("missing"),
            vec![v(n("1")), p("other_missing")]
        )));
        let hundred = (0..100).map(|i| v(n(&i.to_string()))).collect();
        assert!(holds(Condition::In(p("num"), hundred)));
        assert!(invalid(Condition::In(p("num"), vec![])).contains("1 to 100 values; found 0"));
        let too_many = (0..101).map(|i| v(n(&i.to_string()))).collect();
        assert!(invalid(Condition::In(p("num"), too_many)).contains("found 101"));
    }

    #[test]
    fn attribute_exists_and_not_exists() {
        assert!(holds(Condition::exists("num")));
        assert!(holds(Condition::exists(path("map.y[2]"))));
        assert!(holds(Condition::exists("nothing")), "a NULL value exists");
        assert!(!holds(Condition::exists("missing")));
        assert!(!holds(Condition::exists(path("map.y[3]"))));
        assert!(holds(Condition::not_exists("missing")));
        assert!(holds(Condition::not_exists(path("map.z"))));
        assert!(!holds(Condition::not_exists(path("map.x"))));
    }

    #[test]
    fn attribute_type_checks_every_type() {
        let types = [
            ("str", AttributeType::S),
            ("strs", AttributeType::Ss),
            ("num", AttributeType::N),
            ("nums", AttributeType::Ns),
            ("bin", AttributeType::B),
            ("bins", AttributeType::Bs),
            ("yes", AttributeType::Bool),
            ("nothing", AttributeType::Null),
            ("list", AttributeType::L),
            ("map", AttributeType::M),
        ];
        for (i, (name, t)) in types.iter().enumerate() {
            assert!(
                holds(Condition::AttributeType(path(name), *t)),
                "{name} is {}",
                t.name()
            );
            let (_, wrong) = types[(i + 1) % types.len()];
            assert!(
                !holds(Condition::AttributeType(path(name), wrong)),
                "{name} is not {}",
                wrong.name()
            );
        }
        assert!(!holds(Condition::AttributeType(
            path("missing"),
            AttributeType::S
        )));
        assert!(holds(Condition::AttributeType(
            path("map.y[0]"),
            AttributeType::N
        )));
    }

    #[test]
    fn begins_with_on_strings_and_binaries() {
        assert!(holds(Condition::BeginsWith(path("str"), v(s("ca")))));
        assert!(holds(Condition::BeginsWith(path("str"), v(s("")))));
        assert!(!holds(Condition::BeginsWith(path("str"), v(s("dog")))));
        assert!(!holds(Condition::BeginsWith(path("str"), v(s("cats")))));
        assert!(holds(Condition::BeginsWith(path("bin"), v(b(b"ca")))));
        assert!(
            !holds(Condition::BeginsWith(path("bin"), v(s("ca")))),
            "binary vs string prefix"
        );
        assert!(!holds(Condition::BeginsWith(path("str"), v(b(b"ca")))));
        assert!(
            !holds(Condition::BeginsWith(path("num"), v(s("1")))),
            "item value of another type: false"
        );
        assert!(!holds(Condition::BeginsWith(path("missing"), v(s("a")))));
        let with_prefix = item(vec![("a", s("hello")), ("c", s("he"))]);
        let from_item = Condition::BeginsWith(path("a"), p("c"));
        assert!(
            eval_condition(&from_item, Some(&with_prefix)).unwrap(),
            "prefix from the item"
        );
        assert!(invalid(Condition::BeginsWith(path("str"), v(n("2"))))
            .contains("begins_with, operand type: N"));
        assert!(
            invalid(Condition::BeginsWith(path("str"), v(l(vec![])))).contains("operand type: L")
        );
    }

    #[test]
    fn contains_substrings_members_and_elements() {
        assert!(holds(Condition::Contains(path("str"), v(s("at")))));
        assert!(!holds(Condition::Contains(path("str"), v(s("dog")))));
        assert!(holds(Condition::Contains(path("bin"), v(b(b"at")))));
        assert!(!holds(Condition::Contains(path("bin"), v(b(b"dog")))));
        assert!(holds(Condition::Contains(path("strs"), v(s("dog")))));
        assert!(
            !holds(Condition::Contains(path("strs"), v(s("do")))),
            "members, not substrings"
        );
        assert!(
            holds(Condition::Contains(path("nums"), v(n("4.0")))),
            "numbers by value"
        );
        assert!(!holds(Condition::Contains(path("nums"), v(n("5")))));
        assert!(holds(Condition::Contains(path("bins"), v(b(b"hi")))));
        assert!(holds(Condition::Contains(path("list"), v(n("7")))));
        assert!(holds(Condition::Contains(path("list"), v(s("dog")))));
        assert!(
            holds(Condition::Contains(path("list"), v(ns(&["2", "1"])))),
            "a set element, deeply"
        );
        assert!(holds(Condition::Contains(
            path("list"),
            v(l(vec![n("3"), n("4")]))
        )));
        assert!(!holds(Condition::Contains(path("list"), v(s("do")))));
        assert!(
            !holds(Condition::Contains(path("bin"), v(ns(&["1"])))),
            "wrong needle type: false"
        );
        assert!(
            !holds(Condition::Contains(path("nums"), v(s("4")))),
            "S needle in an NS"
        );
        assert!(!holds(Condition::Contains(path("num"), v(n("1")))));
        assert!(!holds(Condition::Contains(path("missing"), v(s("a")))));
        assert!(
            holds(Condition::Contains(path("list"), p("map.y[1]"))),
            "needle from the item"
        );
        assert!(!holds(Condition::Contains(path("list"), p("missing"))));
    }

    #[test]
    fn boolean_logic() {
        let t = || cmp(p("num"), Comparator::Eq, v(n("1")));
        let f = || cmp(p("num"), Comparator::Eq, v(n("2")));
        assert!(holds(t().and(t())));
        assert!(!holds(t().and(f())));
        assert!(!holds(f().and(t())));
        assert!(holds(t().or(f())));
        assert!(holds(f().or(t())));
        assert!(!holds(f().or(f())));
        assert!(holds(f().negate()));
        assert!(!holds(t().negate()));
        assert!(holds(t().negate().negate()));
        assert!(holds(Condition::And(vec![])), "an empty AND is true");
        assert!(!holds(Condition::Or(vec![])), "an empty OR is false");
        assert!(
            holds(cmp(p("missing"), Comparator::Eq, v(n("1"))).negate()),
            "NOT of a missing comparison"
        );
        // (t OR f) AND NOT (f AND t)
        assert!(holds(t().or(f()).and(f().and(t()).negate())));
    }

    #[test]
    fn errors_in_branches_that_evaluation_would_skip_are_still_reported() {
        let bad = cmp(p("num"), Comparator::Lt, v(l(vec![])));
        let t = cmp(p("num"), Comparator::Eq, v(n("1")));
        invalid(t.clone().or(bad.clone()));
        invalid(cmp(p("num"), Comparator::Eq, v(n("2"))).and(bad.clone()));
        invalid(bad.negate());
    }

    #[test]
    fn check_condition_reports_errors_without_an_item() {
        use super::super::check_condition;
        let ordered = Condition::Between(p("a"), v(n("1")), v(n("2")));
        let reversed = Condition::Between(p("a"), v(n("2")), v(n("1")));
        assert!(check_condition(&ordered, Clause::Condition).is_ok());
        let err = check_condition(&reversed, Clause::Condition).unwrap_err();
        assert_eq!(
            message(err),
            "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower bound; lower bound operand: AttributeValue: {N:2}, upper bound operand: AttributeValue: {N:1}"
        );
    }

    /// A filter with bounds in decreasing order is evaluated (to false), as dynoxide does and as
    /// the Developer Guide defines BETWEEN; a write's condition refuses them (dynoxide's capture).
    #[test]
    fn a_filter_evaluates_reversed_between_bounds_to_false() {
        use super::super::{check_condition, eval_filter};
        let reversed = Condition::Between(p("num"), v(n("9")), v(n("0")));
        assert!(check_condition(&reversed, Clause::Filter).is_ok());
        assert!(!eval_filter(&reversed, &sample()));
        // Bounds of two types stay an error in both.
        let mixed = Condition::Between(p("num"), v(n("0")), v(s("9")));
        assert!(check_condition(&mixed, Clause::Filter).is_err());
        assert!(
            message(check_condition(&mixed, Clause::Condition).unwrap_err()).starts_with(
                "Invalid ConditionExpression: The BETWEEN operator requires same data type"
            )
        );
    }

    #[test]
    fn paths_are_checked() {
        let deep = Path(
            (0..33)
                .map(|i| crate::expr::PathElement::Attr(format!("a{i}")))
                .collect(),
        );
        assert!(invalid(Condition::AttributeExists(deep)).contains("nesting levels: 33"));
        let index_first = Path(vec![crate::expr::PathElement::Index(0)]);
        assert!(invalid(Condition::AttributeExists(index_first))
            .contains("must start with an attribute name"));
    }
}
