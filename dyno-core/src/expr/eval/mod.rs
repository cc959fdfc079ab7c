//! What an expression means on an item: conditions, update actions, projections, and
//! DynamoDB's value ordering, with the checks DynamoDB makes of an expression and its values
//! before it evaluates one. Pure functions over the tree of [`crate::expr`]; MemoryStore's engine
//! calls them under its locks, typed operations evaluate a condition's bounds with them, and a
//! cache can project the items it holds.
//!
//! The semantics are DynamoDB's documented ones, refined where the documentation is silent by
//! what the service does (the Alternator and DynamoDB-emulator test suites that run against it
//! record those cases): a missing attribute is unequal to everything (`<>` is true, every other
//! comparison false), ordering only exists within S, N and B, literal operands of the wrong type
//! are validation errors while item values of the wrong type only make a condition false, and
//! every update action reads the item as it was before the update.
//!
//! User API: [`eval_condition`], [`project`], [`compare`] and [`resolve`]. The rest (marked
//! hidden) is the engine's seam: the checks MemoryStore makes of a request, in DynamoDB's
//! words and order, and the evaluators as it calls them under its locks. It is public only so
//! that the engine stays behind its boundary (it uses dyno-core's public API alone); it is not
//! documented, not covered by semver, and may change in any release.
//!
//! Files: `condition.rs`, `update/`, `projection.rs` (each evaluator and its checks),
//! `values.rs` (which attribute values DynamoDB accepts), `literals.rs` (the checks of a
//! request's expression values, in DynamoDB's order); this file holds the entry points and what
//! they share (resolution, equality, path checks).

mod condition;
pub use condition::{describe, Clause};
mod literals;
pub use literals::*;
mod projection;
mod update;
pub use update::Applied;
mod values;
pub use values::*;

use std::cmp::Ordering;
use std::collections::HashSet;

use crate::error::{Error, Result};
use crate::expr::{Condition, Path, PathElement, Update};
use crate::value::number::Number;
use crate::value::{AttributeValue, Item};

/// DynamoDB's limit on document nesting: a path or a value at most 32 levels deep.
pub(crate) const MAX_NESTING: usize = 32;

/// DynamoDB's order between two values of one scalar type: S and B bytewise, N numerically
/// (38 digits of precision). `None` for values of different or non-scalar types.
pub fn compare(a: &AttributeValue, b: &AttributeValue) -> Option<Ordering> {
    match (a, b) {
        // `str` and `[u8]` order bytewise, unsigned: UTF-8 byte order for strings.
        (AttributeValue::S(a), AttributeValue::S(b)) => Some(a.as_bytes().cmp(b.as_bytes())),
        (AttributeValue::B(a), AttributeValue::B(b)) => Some(a.as_ref().cmp(b.as_ref())),
        (AttributeValue::N(a), AttributeValue::N(b)) => {
            Some(Number::parse(a).ok()?.cmp(&Number::parse(b).ok()?))
        }
        _ => None,
    }
}

/// The value at `path` in `item`.
pub fn resolve<'a>(item: &'a Item, path: &Path) -> Option<&'a AttributeValue> {
    resolve_elements(item, &path.0)
}

/// The value at a path given as its elements.
fn resolve_elements<'a>(item: &'a Item, elements: &[PathElement]) -> Option<&'a AttributeValue> {
    let (first, rest) = elements.split_first()?;
    let PathElement::Attr(name) = first else {
        return None;
    };
    rest.iter()
        .try_fold(item.get(name)?, |value, element| match (value, element) {
            (AttributeValue::M(map), PathElement::Attr(key)) => map.get(key),
            (AttributeValue::L(list), PathElement::Index(i)) => list.get(*i),
            _ => None,
        })
}

/// Evaluates a condition against an item (`None`: the item does not exist). Errors are
/// DynamoDB's validation errors (for example an invalid operand type for a function).
pub fn eval_condition(cond: &Condition, item: Option<&Item>) -> Result<bool> {
    condition::check(cond, Clause::Condition)?;
    Ok(condition::eval(cond, item))
}

/// Evaluates a filter that [`check_condition`] has accepted (Query and Scan check theirs once,
/// before reading any item).
#[doc(hidden)]
pub fn eval_filter(cond: &Condition, item: &Item) -> bool {
    condition::eval(cond, Some(item))
}

/// The validation half of [`eval_condition`]: DynamoDB rejects an invalid expression before it
/// looks at the table, whether or not it gets to evaluate it (a Query or Scan whose
/// FilterExpression meets an empty page, a write whose item is absent).
#[doc(hidden)]
pub fn check_condition(cond: &Condition, clause: Clause) -> Result<()> {
    condition::check(cond, clause)
}

/// That no two paths of an update overlap (`a` and `a.b`) or conflict (`a.b` and `a[1]`).
#[doc(hidden)]
pub fn check_update_overlap(update: &Update) -> Result<()> {
    let paths: Vec<&Path> = update.paths().collect();
    check_disjoint(paths.iter().copied(), "UpdateExpression")
}

/// The validation half of [`apply_update`] that needs no schema: paths, literal operands, no
/// overlapping paths. DynamoDB makes these checks before it looks at the table.
#[doc(hidden)]
pub fn check_update(update: &Update) -> Result<()> {
    update::check(update)
}

/// Applies an update to `item` (the existing item, or the key alone when creating). Returns the
/// top-level attribute names the update touched and where its writes landed (for ReturnValues
/// UPDATED_OLD/UPDATED_NEW).
/// Errors as DynamoDB's: key attributes in the update, overlapping or conflicting paths, ADD or
/// arithmetic on the wrong type, list_append on a non-list, an index into a non-list, etc.
///
/// On error `item` is left unchanged. An item the update creates (`item` holds its key alone) is
/// treated as any other: `REMOVE a.b` through a missing `a` is an invalid path there too, as
/// dynoxide (the reference) answers.
#[doc(hidden)]
pub fn apply_update(update: &Update, key_names: &[&str], item: &mut Item) -> Result<Applied> {
    update::apply(update, key_names, item)
}

/// The item restricted to `paths` (ProjectionExpression semantics, nested paths included).
pub fn project(item: &Item, paths: &[Path]) -> Item {
    projection::project(item, paths)
}

/// Validates a ProjectionExpression's paths as DynamoDB does before reading: each starts with an
/// attribute name, none is deeper than 32 levels, no two overlap (`a` and `a.b`) or conflict
/// (`a.b` and `a[1]`). The engine's one projection check (MemoryStore's validation of a read
/// adds the empty projection).
#[doc(hidden)]
pub fn check_projection(paths: &[Path]) -> Result<()> {
    for path in paths {
        check_path(path, "ProjectionExpression")?;
    }
    check_disjoint(paths.iter(), "ProjectionExpression")
}

/// DynamoDB's name for a value's type, as `attribute_type` and error messages use it.
#[doc(hidden)]
pub use crate::item::type_name;

/// Deep equality as DynamoDB's `=` sees it: same type, numbers by value, sets regardless of
/// order, lists element by element, maps key by key.
#[doc(hidden)]
pub fn values_equal(a: &AttributeValue, b: &AttributeValue) -> bool {
    match (a, b) {
        (AttributeValue::S(a), AttributeValue::S(b)) => a == b,
        (AttributeValue::N(a), AttributeValue::N(b)) => numbers_equal(a, b),
        (AttributeValue::B(a), AttributeValue::B(b)) => a.as_ref() == b.as_ref(),
        (AttributeValue::Bool(a), AttributeValue::Bool(b)) => a == b,
        (AttributeValue::Null(_), AttributeValue::Null(_)) => true,
        (AttributeValue::Ss(a), AttributeValue::Ss(b)) => same_set(a.iter(), b.iter()),
        (AttributeValue::Bs(a), AttributeValue::Bs(b)) => {
            same_set(a.iter().map(|x| x.as_ref()), b.iter().map(|x| x.as_ref()))
        }
        (AttributeValue::Ns(a), AttributeValue::Ns(b)) => match (number_set(a), number_set(b)) {
            (Some(a), Some(b)) => a == b,
            // Unparseable numbers never come from a validated item; fall back to the text.
            _ => same_set(a.iter(), b.iter()),
        },
        (AttributeValue::L(a), AttributeValue::L(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| values_equal(x, y))
        }
        (AttributeValue::M(a), AttributeValue::M(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(k, x)| b.get(k).is_some_and(|y| values_equal(x, y)))
        }
        _ => false,
    }
}

/// Numeric equality of two number strings (text equality if either does not parse).
pub(crate) fn numbers_equal(a: &str, b: &str) -> bool {
    match (Number::parse(a), Number::parse(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

fn same_set<T: std::hash::Hash + Eq>(
    a: impl Iterator<Item = T>,
    b: impl Iterator<Item = T>,
) -> bool {
    a.collect::<HashSet<_>>() == b.collect::<HashSet<_>>()
}

fn number_set(set: &[String]) -> Option<HashSet<Number>> {
    set.iter().map(|n| Number::parse(n).ok()).collect()
}

/// Checks one document path of an expression: it starts with an attribute name and is at most
/// 32 levels deep.
pub(crate) fn check_path(path: &Path, expression: &str) -> Result<()> {
    match path.0.first() {
        Some(PathElement::Attr(_)) => {}
        _ => {
            return Err(Error::validation(format!(
                "Invalid {expression}: a document path must start with an attribute name; path: {}",
                display_path(path)
            )))
        }
    }
    if path.0.len() > MAX_NESTING {
        return Err(Error::validation(format!(
            "Invalid {expression}: The document path has too many nesting levels; nesting levels: {}",
            path.0.len()
        )));
    }
    Ok(())
}

/// DynamoDB refuses two paths of one expression where one contains the other ("overlap": `a` and
/// `a.b`, or the same path twice) or where one treats as a map what the other indexes as a list
/// ("conflict": `a.b` and `a[1]`).
pub(crate) fn check_disjoint<'a>(
    paths: impl Iterator<Item = &'a Path> + Clone,
    expression: &str,
) -> Result<()> {
    for (i, one) in paths.clone().enumerate() {
        for two in paths.clone().skip(i + 1) {
            let mut diverged = false;
            for (a, b) in one.0.iter().zip(&two.0) {
                match (a, b) {
                    (PathElement::Attr(x), PathElement::Attr(y)) if x == y => {}
                    (PathElement::Index(x), PathElement::Index(y)) if x == y => {}
                    (PathElement::Attr(_), PathElement::Index(_))
                    | (PathElement::Index(_), PathElement::Attr(_)) => {
                        return Err(Error::validation(format!(
                            "Invalid {expression}: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: {}, path two: {}",
                            display_path(one),
                            display_path(two)
                        )));
                    }
                    _ => {
                        diverged = true;
                        break;
                    }
                }
            }
            if !diverged {
                return Err(Error::validation(format!(
                    "Invalid {expression}: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: {}, path two: {}",
                    display_path(one),
                    display_path(two)
                )));
            }
        }
    }
    Ok(())
}

/// A path as DynamoDB prints it in messages: `[a, b, [1]]`.
pub(crate) fn display_path(path: &Path) -> String {
    let parts: Vec<String> = path
        .0
        .iter()
        .map(|e| match e {
            PathElement::Attr(a) => a.clone(),
            PathElement::Index(i) => format!("[{i}]"),
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodb::primitives::Blob;
    use proptest::prelude::*;

    use super::*;

    pub(super) fn s(v: &str) -> AttributeValue {
        AttributeValue::S(v.to_owned())
    }
    pub(super) fn n(v: &str) -> AttributeValue {
        AttributeValue::N(v.to_owned())
    }
    pub(super) fn b(v: &[u8]) -> AttributeValue {
        AttributeValue::B(Blob::new(v.to_vec()))
    }
    pub(super) fn ss(v: &[&str]) -> AttributeValue {
        AttributeValue::Ss(v.iter().map(|x| (*x).to_owned()).collect())
    }
    pub(super) fn ns(v: &[&str]) -> AttributeValue {
        AttributeValue::Ns(v.iter().map(|x| (*x).to_owned()).collect())
    }
    pub(super) fn bs(v: &[&[u8]]) -> AttributeValue {
        AttributeValue::Bs(v.iter().map(|x| Blob::new(x.to_vec())).collect())
    }
    pub(super) fn l(v: Vec<AttributeValue>) -> AttributeValue {
        AttributeValue::L(v)
    }
    pub(super) fn m(v: Vec<(&str, AttributeValue)>) -> AttributeValue {
        AttributeValue::M(v.into_iter().map(|(k, x)| (k.to_owned(), x)).collect())
    }
    pub(super) fn item(v: Vec<(&str, AttributeValue)>) -> Item {
        v.into_iter().map(|(k, x)| (k.to_owned(), x)).collect()
    }
    pub(super) fn path(text: &str) -> Path {
        // Test shorthand: `a.b[2].c` (names without dots or brackets).
        let mut elements = Vec::new();
        for part in text.split('.') {
            let mut pieces = part.split('[');
            let name = pieces.next().unwrap_or_default();
            if !name.is_empty() {
                elements.push(PathElement::Attr(name.to_owned()));
            }
            for index in pieces {
                let index = index
                    .trim_end_matches(']')
                    .parse()
                    .unwrap_or_else(|_| panic!("bad index in {text}"));
                elements.push(PathElement::Index(index));
            }
        }
        Path(elements)
    }
    pub(super) fn message(err: Error) -> String {
        match err {
            Error::Validation { message } => message,
            other => panic!("expected a validation error, got {other:?}"),
        }
    }

    #[test]
    fn compare_orders_each_scalar_type_and_nothing_across_types() {
        assert_eq!(compare(&s("a"), &s("b")), Some(Ordering::Less));
        assert_eq!(compare(&s("b"), &s("a")), Some(Ordering::Greater));
        assert_eq!(
            compare(&s("Z"), &s("a")),
            Some(Ordering::Less),
            "bytewise, not case folded"
        );
        // UTF-8 byte order: U+FFFD (EF BF BD) sorts after U+10000 (F0 90 80 80) in UTF-16 but
        // before it in UTF-8, which is DynamoDB's order.
        assert_eq!(
            compare(&s("\u{FFFD}"), &s("\u{10000}")),
            Some(Ordering::Less)
        );
        assert_eq!(
            compare(&b(&[127]), &b(&[128])),
            Some(Ordering::Less),
            "bytes are unsigned"
        );
        assert_eq!(compare(&b(&[1, 2]), &b(&[1, 2, 0])), Some(Ordering::Less));
        assert_eq!(
            compare(&n("10"), &n("9")),
            Some(Ordering::Greater),
            "numeric, not textual"
        );
        assert_eq!(compare(&n("-1"), &n("-10")), Some(Ordering::Greater));
        assert_eq!(compare(&n("1.0"), &n("1")), Some(Ordering::Equal));
        assert_eq!(
            compare(
                &n("12345678901234567890123456789012345678"),
                &n("12345678901234567890123456789012345679")
            ),
            Some(Ordering::Less),
            "all 38 digits count"
        );
        assert_eq!(compare(&n("1e-130"), &n("0")), Some(Ordering::Greater));
        for (x, y) in [
            (s("1"), n("1")),
            (n("1"), b(b"1")),
            (s("a"), b(b"a")),
            (ss(&["a"]), ss(&["a"])),
        ] {
            assert_eq!(compare(&x, &y), None, "{x:?} vs {y:?}");
        }
        assert_eq!(
            compare(&AttributeValue::Bool(false), &AttributeValue::Bool(true)),
            None
        );
        assert_eq!(compare(&n("dog"), &n("1")), None);
    }

    #[test]
    fn resolve_walks_maps_and_lists() {
        let it = item(vec![
            (
                "a",
                m(vec![("b", l(vec![n("1"), m(vec![("c", s("deep"))])]))]),
            ),
            ("x", s("top")),
        ]);
        assert_eq!(resolve(&it, &path("x")), Some(&s("top")));
        assert_eq!(resolve(&it, &path("a.b[0]")), Some(&n("1")));
        assert_eq!(resolve(&it, &path("a.b[1].c")), Some(&s("deep")));
        assert_eq!(resolve(&it, &path("a.b[2]")), None, "past the end");
        assert_eq!(resolve(&it, &path("a[0]")), None, "index into a map");
        assert_eq!(resolve(&it, &path("a.b.c")), None, "key into a list");
        assert_eq!(resolve(&it, &path("x.y")), None, "key into a string");
        assert_eq!(resolve(&it, &path("missing.y")), None);
        assert_eq!(resolve(&it, &Path(vec![])), None);
        assert_eq!(resolve(&it, &Path(vec![PathElement::Index(0)])), None);
        // A dot inside a name is part of the name.
        let dotted = item(vec![("a.b", s("literal"))]);
        assert_eq!(resolve(&dotted, &Path::attr("a.b")), Some(&s("literal")));
    }

    #[test]
    fn values_equal_is_deep_and_order_insensitive_for_sets() {
        assert!(values_equal(&ss(&["a", "b"]), &ss(&["b", "a"])));
        assert!(values_equal(&ns(&["1", "2.0"]), &ns(&["2", "1.00"])));
        assert!(values_equal(&bs(&[b"x", b"y"]), &bs(&[b"y", b"x"])));
        assert!(!values_equal(&ss(&["a", "b"]), &ss(&["a", "c"])));
        assert!(values_equal(&n("1e2"), &n("100")));
        assert!(values_equal(
            &l(vec![s("a"), ns(&["1", "2"])]),
            &l(vec![s("a"), ns(&["2", "1"])])
        ));
        assert!(
            !values_equal(&l(vec![s("a"), s("b")]), &l(vec![s("b"), s("a")])),
            "lists keep order"
        );
        assert!(values_equal(
            &m(vec![("k", ss(&["x", "y"]))]),
            &m(vec![("k", ss(&["y", "x"]))])
        ));
        assert!(!values_equal(
            &m(vec![("k", s("x"))]),
            &m(vec![("k", s("x")), ("j", s("y"))])
        ));
        assert!(values_equal(
            &AttributeValue::Null(true),
            &AttributeValue::Null(true)
        ));
        assert!(!values_equal(&AttributeValue::Bool(true), &n("1")));
        assert!(!values_equal(&s("1"), &n("1")));
        assert!(!values_equal(&ss(&["1"]), &ns(&["1"])));
    }

    #[test]
    fn normalize_number_canonicalizes_and_rejects() {
        for (text, canonical) in [
            ("1.50", "1.5"),
            ("0.0", "0"),
            ("-0", "0"),
            ("1e3", "1000"),
            ("+5", "5"),
            ("-007.100", "-7.1"),
            ("1E+2", "100"),
        ] {
            assert_eq!(normalize_number(text).unwrap(), canonical, "{text}");
        }
        let syntax = message(normalize_number("NaN").unwrap_err());
        assert_eq!(
            syntax,
            "The parameter cannot be converted to a numeric value: NaN"
        );
        for text in [
            "",
            "Infinity",
            "-Infinity",
            "abc",
            " 1",
            "1 ",
            "1e",
            "1.2.3",
        ] {
            assert!(
                message(normalize_number(text).unwrap_err()).contains("numeric value"),
                "{text:?}"
            );
        }
        assert!(message(normalize_number("1e126").unwrap_err()).starts_with("Number overflow"));
        assert!(message(normalize_number("1e-131").unwrap_err()).starts_with("Number underflow"));
        assert!(
            message(normalize_number("1234567890123456789012345678901234567890").unwrap_err())
                .contains("38 significant digits")
        );
        assert_eq!(
            normalize_number("9.9999999999999999999999999999999999999E+125")
                .unwrap()
                .len(),
            126
        );
    }

    #[test]
    fn validate_item_normalizes_numbers_everywhere() {
        let raw = item(vec![
            ("n", n("1.50")),
            ("set", ns(&["1e1", "2.0"])),
            (
                "deep",
                m(vec![("list", l(vec![n("+3"), m(vec![("x", n("-0.0"))])]))]),
            ),
            ("s", s("")),
            ("b", b(b"")),
        ]);
        let mut got = raw.clone();
        let size = validate_item(&mut got).unwrap();
        assert_eq!(
            size,
            crate::value::item_size(&got),
            "size of the normalized item"
        );
        assert_eq!(got["n"], n("1.5"));
        assert_eq!(got["set"], ns(&["10", "2"]));
        assert_eq!(
            got["deep"],
            m(vec![("list", l(vec![n("3"), m(vec![("x", n("0"))])]))])
        );
        assert_eq!(got["s"], s(""), "empty strings are fine outside keys");
    }

    #[test]
    fn validate_item_rejects_bad_values_and_says_where() {
        let cases: Vec<(AttributeValue, &str)> = vec![
            (ss(&[]), "string set  may not be empty"),
            (ns(&[]), "number set  may not be empty"),
            (bs(&[]), "Binary sets should not be empty"),
            (ss(&["a", "a"]), "contains duplicates"),
            (ns(&["1", "1.0"]), "contains duplicates"),
            (bs(&[b"x", b"x"]), "contains duplicates"),
            (n("twelve"), "numeric value: twelve"),
            (ns(&["1", "NaN"]), "numeric value: NaN"),
            (m(vec![("inner", l(vec![n("1e200")]))]), "at v.inner[0]"),
            (
                AttributeValue::Null(false),
                "Null attribute value types must have the value of true",
            ),
        ];
        for (value, expected) in cases {
            let err = message(validate_item(&mut item(vec![("v", value.clone())])).unwrap_err());
            assert!(err.contains(expected), "{value:?}: {err}");
        }
    }

    #[test]
    fn validate_item_limits_nesting_to_32_levels() {
        let mut deep = s("leaf");
        for _ in 0..31 {
            deep = l(vec![deep]);
        }
        assert!(
            validate_item(&mut item(vec![("a", deep.clone())])).is_ok(),
            "32 levels"
        );
        let err = message(validate_item(&mut item(vec![("a", l(vec![deep]))])).unwrap_err());
        assert!(
            err.contains("Nesting Levels have exceeded supported limits"),
            "{err}"
        );
    }

    #[test]
    fn disjoint_paths_overlap_and_conflict_like_dynamodb() {
        let check = |texts: &[&str]| {
            let paths: Vec<Path> = texts.iter().map(|t| path(t)).collect();
            check_disjoint(paths.iter(), "UpdateExpression").map_err(message)
        };
        for overlapping in [
            &["a", "a"][..],
            &["a", "a.b"],
            &["a.b", "a"],
            &["a.b", "a.b.c.d.e"],
            &["a[1]", "a"],
            &["a[1][1]", "a[1]"],
            &["a[1]", "a[1][1][1][1]"],
        ] {
            let err = check(overlapping).unwrap_err();
            assert!(err.contains("overlap"), "{overlapping:?}: {err}");
        }
        let err = check(&["x", "a.b", "a[1]"]).unwrap_err();
        assert_eq!(
            err,
            "Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a, [1]]"
        );
        assert!(check(&["a.b.c", "a.b[2]"])
            .unwrap_err()
            .contains("conflict"));
        for fine in [
            &["a", "b"][..],
            &["a.b", "a.c"],
            &["a.b.d", "a.b.e"],
            &["a[1]", "a[2]"],
            &["a.b", "a.c[2]"],
        ] {
            assert!(check(fine).is_ok(), "{fine:?}");
        }
    }

    #[test]
    fn check_projection_validates_paths() {
        assert!(check_projection(&[path("a.b[0]"), path("a.c")]).is_ok());
        assert!(
            message(check_projection(&[path("a"), path("a.b[0]")]).unwrap_err())
                .starts_with("Invalid ProjectionExpression: Two document paths overlap")
        );
        let too_deep = Path(
            std::iter::once(PathElement::Attr("a".into()))
                .chain((0..32).map(|_| PathElement::Attr("b".into())))
                .collect(),
        );
        assert!(message(check_projection(&[too_deep]).unwrap_err()).contains("nesting levels: 33"));
        assert!(
            message(check_projection(&[Path(vec![PathElement::Index(0)])]).unwrap_err())
                .contains("must start with an attribute name")
        );
    }

    proptest! {
        #[test]
        fn compare_on_numbers_agrees_with_i128(a in any::<i64>(), b in any::<i64>()) {
            prop_assert_eq!(
                compare(&n(&a.to_string()), &n(&b.to_string())),
                Some(i128::from(a).cmp(&i128::from(b)))
            );
        }

        #[test]
        fn compare_on_short_decimals_agrees_with_f64(a in -1_000_000i32..1_000_000, b in -1_000_000i32..1_000_000) {
            // Three decimals from integers: f64 represents each to well within their spacing,
            // so its order is exact here.
            let (fa, fb) = (f64::from(a) / 1000.0, f64::from(b) / 1000.0);
            let (ta, tb) = (format!("{fa:.3}"), format!("{fb:.3}"));
            prop_assert_eq!(compare(&n(&ta), &n(&tb)), fa.partial_cmp(&fb), "{} vs {}", ta, tb);
            prop_assert_eq!(values_equal(&n(&ta), &n(&tb)), fa == fb);
        }

        #[test]
        fn normalized_numbers_keep_their_value(a in any::<i64>(), exp in -100i32..100) {
            let text = format!("{a}e{exp}");
            let canonical = normalize_number(&text).unwrap();
            prop_assert_eq!(compare(&n(&text), &n(&canonical)), Some(Ordering::Equal));
            prop_assert_eq!(normalize_number(&canonical).unwrap(), canonical);
        }
    }
}
