//! The expression renderer: every operator, function and update action renders to DynamoDB's
//! syntax with `#n`/`:v` placeholders, and no attribute name or value from the input ever
//! appears in the expression text.

use std::collections::HashMap;

use dyno_core::expr::{
    render_condition, render_key_condition, render_projection, render_update, AttributeType,
    Comparator, Condition, KeyCondition, Operand, Path, Placeholders, SetValue, SortCondition,
    Update, UpdateOperand,
};
use dyno_core::value::AttributeValue;
use proptest::prelude::*;

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

fn path(p: &str) -> Operand {
    Operand::Path(Path::attr(p))
}

fn val(v: AttributeValue) -> Operand {
    Operand::Value(v)
}

/// Asserts the exact expression and placeholder maps.
#[track_caller]
fn assert_rendered(
    expr: &str,
    ph: &Placeholders,
    expected: &str,
    names: &[(&str, &str)],
    values: &[(&str, AttributeValue)],
) {
    assert_eq!(expr, expected);
    let names: HashMap<String, String> = names
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    assert_eq!(ph.names, names, "names of {expr}");
    let values: HashMap<String, AttributeValue> = values
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect();
    assert_eq!(ph.values, values, "values of {expr}");
    assert_grammar(expr, ph);
}

#[track_caller]
fn cond(c: &Condition) -> (String, Placeholders) {
    let mut ph = Placeholders::new();
    let e = render_condition(c, &mut ph);
    (e, ph)
}

/// The tokens an expression may consist of: placeholders, DynamoDB's keywords, functions,
/// operators, list indexes and punctuation. Anything else would be input text spliced in.
fn tokens_ok(expr: &str) -> Result<(), String> {
    const WORDS: &[&str] = &[
        "AND",
        "OR",
        "NOT",
        "BETWEEN",
        "IN",
        "SET",
        "REMOVE",
        "ADD",
        "DELETE",
        "size",
        "attribute_exists",
        "attribute_not_exists",
        "attribute_type",
        "begins_with",
        "contains",
        "if_not_exists",
        "list_append",
    ];
    let b = expr.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let digits_from = |j: usize| {
            let mut k = j;
            while k < b.len() && b[k].is_ascii_digit() {
                k += 1;
            }
            k
        };
        if expr[i..].starts_with("#n") || expr[i..].starts_with(":v") {
            let end = digits_from(i + 2);
            if end == i + 2 {
                return Err(format!("bare placeholder prefix at {i} in {expr:?}"));
            }
            i = end;
        } else if c == b'[' {
            let end = digits_from(i + 1);
            if end == i + 1 || b.get(end) != Some(&b']') {
                return Err(format!("bad list index at {i} in {expr:?}"));
            }
            i = end + 1;
        } else if b" (),.=+-<>".contains(&c) {
            i += 1;
        } else if c.is_ascii_alphabetic() {
            let mut end = i;
            while end < b.len() && (b[end].is_ascii_alphabetic() || b[end] == b'_') {
                end += 1;
            }
            let word = &expr[i..end];
            if !WORDS.contains(&word) {
                return Err(format!("unexpected word {word:?} in {expr:?}"));
            }
            i = end;
        } else {
            return Err(format!(
                "unexpected character {:?} at {i} in {expr:?}",
                c as char
            ));
        }
    }
    Ok(())
}

/// Every token is from the grammar and every placeholder used is defined (and vice versa).
#[track_caller]
fn assert_grammar(expr: &str, ph: &Placeholders) {
    tokens_ok(expr).unwrap();
    for k in ph.names.keys().chain(ph.values.keys()) {
        assert!(
            contains_token(expr, k),
            "placeholder {k} defined but unused in {expr:?}"
        );
    }
}

/// `expr` contains placeholder `p` as a whole token (`#n1` is not inside `#n10`).
fn contains_token(expr: &str, p: &str) -> bool {
    expr.match_indices(p)
        .any(|(i, _)| !expr[i + p.len()..].starts_with(|c: char| c.is_ascii_digit()))
}

#[test]
fn each_comparator() {
    for (cmp, sym) in [
        (Comparator::Eq, "="),
        (Comparator::Ne, "<>"),
        (Comparator::Lt, "<"),
        (Comparator::Le, "<="),
        (Comparator::Gt, ">"),
        (Comparator::Ge, ">="),
    ] {
        let (e, ph) = cond(&Condition::Compare(path("price"), cmp, val(n("10"))));
        assert_rendered(
            &e,
            &ph,
            &format!("#n0 {sym} :v0"),
            &[("#n0", "price")],
            &[(":v0", n("10"))],
        );
    }
    // Path against path, and a value on the left.
    let (e, ph) = cond(&Condition::Compare(path("a"), Comparator::Lt, path("b")));
    assert_rendered(&e, &ph, "#n0 < #n1", &[("#n0", "a"), ("#n1", "b")], &[]);
    let (e, ph) = cond(&Condition::Compare(val(n("1")), Comparator::Ge, path("a")));
    assert_rendered(&e, &ph, ":v0 >= #n0", &[("#n0", "a")], &[(":v0", n("1"))]);
    let (e, ph) = cond(&Condition::eq("a", s("x")));
    assert_rendered(&e, &ph, "#n0 = :v0", &[("#n0", "a")], &[(":v0", s("x"))]);
}

#[test]
fn between_and_in() {
    let (e, ph) = cond(&Condition::Between(path("price"), val(n("1")), val(n("9"))));
    assert_rendered(
        &e,
        &ph,
        "#n0 BETWEEN :v0 AND :v1",
        &[("#n0", "price")],
        &[(":v0", n("1")), (":v1", n("9"))],
    );
    let (e, ph) = cond(&Condition::In(
        path("state"),
        vec![val(s("a")), val(s("b")), path("other")],
    ));
    assert_rendered(
        &e,
        &ph,
        "#n0 IN (:v0, :v1, #n1)",
        &[("#n0", "state"), ("#n1", "other")],
        &[(":v0", s("a")), (":v1", s("b"))],
    );
    let (e, ph) = cond(&Condition::In(path("state"), vec![val(s("only"))]));
    assert_rendered(
        &e,
        &ph,
        "#n0 IN (:v0)",
        &[("#n0", "state")],
        &[(":v0", s("only"))],
    );
}

#[test]
fn an_empty_in_list_is_left_for_dynamodb_to_refuse() {
    // MemoryStore refuses an empty IN with a validation error; DynamoDB refuses `IN ()` the same
    // way. Rendering it as anything valid would make the two stores disagree.
    let (e, ph) = cond(&Condition::In(path("state"), vec![]));
    assert_rendered(&e, &ph, "#n0 IN ()", &[("#n0", "state")], &[]);
}

#[test]
fn functions() {
    let (e, ph) = cond(&Condition::exists("a"));
    assert_rendered(&e, &ph, "attribute_exists(#n0)", &[("#n0", "a")], &[]);
    let (e, ph) = cond(&Condition::not_exists("a"));
    assert_rendered(&e, &ph, "attribute_not_exists(#n0)", &[("#n0", "a")], &[]);
    for (t, name) in [
        (AttributeType::S, "S"),
        (AttributeType::Ss, "SS"),
        (AttributeType::N, "N"),
        (AttributeType::Ns, "NS"),
        (AttributeType::B, "B"),
        (AttributeType::Bs, "BS"),
        (AttributeType::Bool, "BOOL"),
        (AttributeType::Null, "NULL"),
        (AttributeType::L, "L"),
        (AttributeType::M, "M"),
    ] {
        let (e, ph) = cond(&Condition::AttributeType(Path::attr("a"), t));
        assert_rendered(
            &e,
            &ph,
            "attribute_type(#n0, :v0)",
            &[("#n0", "a")],
            &[(":v0", s(name))],
        );
    }
    let (e, ph) = cond(&Condition::BeginsWith(Path::attr("sk"), val(s("ORDER#"))));
    assert_rendered(
        &e,
        &ph,
        "begins_with(#n0, :v0)",
        &[("#n0", "sk")],
        &[(":v0", s("ORDER#"))],
    );
    let (e, ph) = cond(&Condition::Contains(Path::attr("tags"), val(s("red"))));
    assert_rendered(
        &e,
        &ph,
        "contains(#n0, :v0)",
        &[("#n0", "tags")],
        &[(":v0", s("red"))],
    );
    let (e, ph) = cond(&Condition::Contains(Path::attr("tags"), path("color")));
    assert_rendered(
        &e,
        &ph,
        "contains(#n0, #n1)",
        &[("#n0", "tags"), ("#n1", "color")],
        &[],
    );
    let (e, ph) = cond(&Condition::Compare(
        Operand::Size(Path::attr("items")),
        Comparator::Gt,
        val(n("3")),
    ));
    assert_rendered(
        &e,
        &ph,
        "size(#n0) > :v0",
        &[("#n0", "items")],
        &[(":v0", n("3"))],
    );
    let (e, ph) = cond(&Condition::Between(
        Operand::Size(Path::attr("a").key("b")),
        val(n("1")),
        Operand::Size(Path::attr("c")),
    ));
    assert_rendered(
        &e,
        &ph,
        "size(#n0.#n1) BETWEEN :v0 AND size(#n2)",
        &[("#n0", "a"), ("#n1", "b"), ("#n2", "c")],
        &[(":v0", n("1"))],
    );
}

#[test]
fn and_or_not_nest_with_parentheses() {
    let c = Condition::eq("a", n("1"))
        .and(Condition::eq("b", n("2")).or(Condition::exists("c").negate()))
        .and(Condition::not_exists("d"));
    let (e, ph) = cond(&c);
    assert_rendered(
        &e,
        &ph,
        "#n0 = :v0 AND (#n1 = :v1 OR NOT (attribute_exists(#n2))) AND attribute_not_exists(#n3)",
        &[("#n0", "a"), ("#n1", "b"), ("#n2", "c"), ("#n3", "d")],
        &[(":v0", n("1")), (":v1", n("2"))],
    );
    // OR of ANDs keeps each AND grouped.
    let c = Condition::Or(vec![
        Condition::And(vec![Condition::exists("a"), Condition::exists("b")]),
        Condition::Not(Box::new(Condition::Or(vec![
            Condition::exists("c"),
            Condition::exists("a"),
        ]))),
    ]);
    let (e, ph) = cond(&c);
    assert_rendered(
        &e,
        &ph,
        "attribute_exists(#n0) AND attribute_exists(#n1) OR \
         NOT (attribute_exists(#n2) OR attribute_exists(#n0))",
        &[("#n0", "a"), ("#n1", "b"), ("#n2", "c")],
        &[],
    );
    // and() flattens, and_opt() combines.
    let flat = Condition::exists("a")
        .and(Condition::exists("b"))
        .and(Condition::exists("c"));
    assert!(
        matches!(&flat, Condition::And(v) if v.len() == 3),
        "{flat:?}"
    );
    assert_eq!(
        Condition::and_opt(None, Condition::exists("a")),
        Condition::exists("a")
    );
}

#[test]
fn empty_and_is_true_and_empty_or_is_false() {
    let (e, ph) = cond(&Condition::And(vec![]));
    assert_rendered(
        &e,
        &ph,
        "(attribute_not_exists(#n0) OR attribute_exists(#n0))",
        &[("#n0", "dyno:none")],
        &[],
    );
    let (e, _) = cond(&Condition::Or(vec![]));
    assert_eq!(e, "(attribute_exists(#n0) AND attribute_not_exists(#n0))");
}

#[test]
fn key_conditions_with_each_sort_condition() {
    let base = || KeyCondition::partition("PK", s("USER#1"));
    let mut ph = Placeholders::new();
    let e = render_key_condition(&base(), &mut ph);
    assert_rendered(
        &e,
        &ph,
        "#n0 = :v0",
        &[("#n0", "PK")],
        &[(":v0", s("USER#1"))],
    );

    for (sort, op) in [
        (SortCondition::Eq(s("x")), "="),
        (SortCondition::Lt(s("x")), "<"),
        (SortCondition::Le(s("x")), "<="),
        (SortCondition::Gt(s("x")), ">"),
        (SortCondition::Ge(s("x")), ">="),
    ] {
        let mut ph = Placeholders::new();
        let e = render_key_condition(&base().sort("SK", sort), &mut ph);
        assert_rendered(
            &e,
            &ph,
            &format!("#n0 = :v0 AND #n1 {op} :v1"),
            &[("#n0", "PK"), ("#n1", "SK")],
            &[(":v0", s("USER#1")), (":v1", s("x"))],
        );
    }
    let mut ph = Placeholders::new();
    let e = render_key_condition(
        &base().sort("SK", SortCondition::Between(s("a"), s("b"))),
        &mut ph,
    );
    assert_rendered(
        &e,
        &ph,
        "#n0 = :v0 AND #n1 BETWEEN :v1 AND :v2",
        &[("#n0", "PK"), ("#n1", "SK")],
        &[(":v0", s("USER#1")), (":v1", s("a")), (":v2", s("b"))],
    );
    let mut ph = Placeholders::new();
    let e = render_key_condition(
        &base().sort("SK", SortCondition::BeginsWith(s("ORDER#"))),
        &mut ph,
    );
    assert_rendered(
        &e,
        &ph,
        "#n0 = :v0 AND begins_with(#n1, :v1)",
        &[("#n0", "PK"), ("#n1", "SK")],
        &[(":v0", s("USER#1")), (":v1", s("ORDER#"))],
    );
}

#[test]
fn key_condition_and_filter_share_placeholders() {
    let mut ph = Placeholders::new();
    let k = render_key_condition(
        &KeyCondition::partition("PK", s("P")).sort("SK", SortCondition::Gt(n("1"))),
        &mut ph,
    );
    let f = render_condition(
        &Condition::eq("SK", n("5")).and(Condition::eq("status", s("x"))),
        &mut ph,
    );
    assert_eq!(k, "#n0 = :v0 AND #n1 > :v1");
    assert_eq!(f, "#n1 = :v2 AND #n2 = :v3");
    assert_eq!(ph.names.len(), 3);
    assert_eq!(ph.values.len(), 4);
    assert_eq!(ph.names["#n2"], "status");
}

fn update(u: &Update) -> (Option<String>, Placeholders) {
    let mut ph = Placeholders::new();
    let e = render_update(u, &mut ph);
    (e, ph)
}

#[test]
fn set_actions() {
    let u = Update {
        set: vec![(Path::attr("a"), SetValue::value(n("1")))],
        ..Update::default()
    };
    let (e, ph) = update(&u);
    assert_rendered(
        &e.unwrap(),
        &ph,
        "SET #n0 = :v0",
        &[("#n0", "a")],
        &[(":v0", n("1"))],
    );

    let u = Update {
        set: vec![
            (
                Path::attr("count"),
                SetValue::Plus(
                    UpdateOperand::Path(Path::attr("count")),
                    UpdateOperand::Value(n("1")),
                ),
            ),
            (
                Path::attr("stock"),
                SetValue::Minus(
                    UpdateOperand::Path(Path::attr("stock")),
                    UpdateOperand::Value(n("2")),
                ),
            ),
            (
                Path::attr("created"),
                SetValue::Operand(UpdateOperand::IfNotExists(
                    Path::attr("created"),
                    Box::new(UpdateOperand::Value(s("now"))),
                )),
            ),
            (
                Path::attr("log"),
                SetValue::Operand(UpdateOperand::ListAppend(
                    Box::new(UpdateOperand::Path(Path::attr("log"))),
                    Box::new(UpdateOperand::Value(AttributeValue::L(vec![s("e")]))),
                )),
            ),
            (
                Path::attr("log2"),
                SetValue::Operand(UpdateOperand::ListAppend(
                    Box::new(UpdateOperand::Value(AttributeValue::L(vec![]))),
                    Box::new(UpdateOperand::IfNotExists(
                        Path::attr("log2"),
                        Box::new(UpdateOperand::Value(AttributeValue::L(vec![]))),
                    )),
                )),
            ),
            (
                Path::attr("views"),
                SetValue::Plus(
                    UpdateOperand::IfNotExists(
                        Path::attr("views"),
                        Box::new(UpdateOperand::Value(n("0"))),
                    ),
                    UpdateOperand::Value(n("1")),
                ),
            ),
            (
                Path::attr("copy"),
                SetValue::Operand(UpdateOperand::Path(Path::attr("a").index(0))),
            ),
        ],
        ..Update::default()
    };
    let (e, ph) = update(&u);
    assert_rendered(
        &e.unwrap(),
        &ph,
        "SET #n0 = #n0 + :v0, #n1 = #n1 - :v1, #n2 = if_not_exists(#n2, :v2), \
         #n3 = list_append(#n3, :v3), #n4 = list_append(:v4, if_not_exists(#n4, :v5)), \
         #n5 = if_not_exists(#n5, :v6) + :v7, #n6 = #n7[0]",
        &[
            ("#n0", "count"),
            ("#n1", "stock"),
            ("#n2", "created"),
            ("#n3", "log"),
            ("#n4", "log2"),
            ("#n5", "views"),
            ("#n6", "copy"),
            ("#n7", "a"),
        ],
        &[
            (":v0", n("1")),
            (":v1", n("2")),
            (":v2", s("now")),
            (":v3", AttributeValue::L(vec![s("e")])),
            (":v4", AttributeValue::L(vec![])),
            (":v5", AttributeValue::L(vec![])),
            (":v6", n("0")),
            (":v7", n("1")),
        ],
    );
}

#[test]
fn set_on_nested_paths() {
    let u = Update {
        set: vec![(
            Path::attr("a").key("b").index(2).key("c"),
            SetValue::value(s("x")),
        )],
        ..Update::default()
    };
    let (e, ph) = update(&u);
    assert_rendered(
        &e.unwrap(),
        &ph,
        "SET #n0.#n1[2].#n2 = :v0",
        &[("#n0", "a"), ("#n1", "b"), ("#n2", "c")],
        &[(":v0", s("x"))],
    );
}

#[test]
fn remove_add_delete_and_combined_clauses() {
    let u = Update {
        remove: vec![
            Path::attr("a"),
            Path::attr("list").index(3),
            Path::attr("m").key("k"),
        ],
        ..Update::default()
    };
    let (e, ph) = update(&u);
    assert_rendered(
        &e.unwrap(),
        &ph,
        "REMOVE #n0, #n1[3], #n2.#n3",
        &[("#n0", "a"), ("#n1", "list"), ("#n2", "m"), ("#n3", "k")],
        &[],
    );

    let u = Update {
        add: vec![(Path::attr("n"), n("5"))],
        ..Update::default()
    };
    let (e, ph) = update(&u);
    assert_rendered(
        &e.unwrap(),
        &ph,
        "ADD #n0 :v0",
        &[("#n0", "n")],
        &[(":v0", n("5"))],
    );

    let tags = AttributeValue::Ss(vec!["x".into()]);
    let u = Update {
        delete: vec![(Path::attr("tags"), tags.clone())],
        ..Update::default()
    };
    let (e, ph) = update(&u);
    assert_rendered(
        &e.unwrap(),
        &ph,
        "DELETE #n0 :v0",
        &[("#n0", "tags")],
        &[(":v0", tags.clone())],
    );

    let u = Update {
        set: vec![
            (Path::attr("status"), SetValue::value(s("done"))),
            (Path::attr("b"), SetValue::value(n("2"))),
        ],
        remove: vec![Path::attr("c"), Path::attr("status")],
        add: vec![
            (Path::attr("n"), n("1")),
            (Path::attr("ids"), AttributeValue::Ns(vec!["7".into()])),
        ],
        delete: vec![
            (Path::attr("tags"), tags.clone()),
            (Path::attr("b2"), tags.clone()),
        ],
    };
    let (e, ph) = update(&u);
    assert_rendered(
        &e.unwrap(),
        &ph,
        "SET #n0 = :v0, #n1 = :v1 REMOVE #n2, #n0 ADD #n3 :v2, #n4 :v3 DELETE #n5 :v4, #n6 :v5",
        &[
            ("#n0", "status"),
            ("#n1", "b"),
            ("#n2", "c"),
            ("#n3", "n"),
            ("#n4", "ids"),
            ("#n5", "tags"),
            ("#n6", "b2"),
        ],
        &[
            (":v0", s("done")),
            (":v1", n("2")),
            (":v2", n("1")),
            (":v3", AttributeValue::Ns(vec!["7".into()])),
            (":v4", tags.clone()),
            (":v5", tags),
        ],
    );
    // Clauses are joined by single spaces when earlier ones are absent.
    let u = Update {
        remove: vec![Path::attr("r")],
        delete: vec![(Path::attr("d"), AttributeValue::Ss(vec!["x".into()]))],
        ..Update::default()
    };
    assert_eq!(update(&u).0.unwrap(), "REMOVE #n0 DELETE #n1 :v0");
    let u = Update {
        add: vec![(Path::attr("a"), n("1"))],
        delete: vec![(Path::attr("d"), n("1"))],
        ..Update::default()
    };
    assert_eq!(update(&u).0.unwrap(), "ADD #n0 :v0 DELETE #n1 :v1");
}

#[test]
fn an_empty_update_renders_nothing() {
    let (e, ph) = update(&Update::default());
    assert_eq!(e, None);
    assert!(ph.names_or_none().is_none());
    assert!(ph.values_or_none().is_none());
    assert!(Update::default().is_empty());
}

#[test]
fn update_and_condition_share_placeholders() {
    let mut ph = Placeholders::new();
    let u = Update {
        set: vec![(Path::attr("version"), SetValue::value(n("2")))],
        ..Update::default()
    };
    let e = render_update(&u, &mut ph).unwrap();
    let c = render_condition(&Condition::eq("version", n("1")), &mut ph);
    assert_eq!(e, "SET #n0 = :v0");
    assert_eq!(c, "#n0 = :v1");
    assert_eq!(ph.names_or_none().unwrap().len(), 1);
    assert_eq!(ph.values_or_none().unwrap().len(), 2);
}

#[test]
fn projections() {
    let mut ph = Placeholders::new();
    let e = render_projection(
        &[
            Path::attr("PK"),
            Path::attr("a").key("b").index(0),
            Path::attr("name"),
            Path::attr("PK"),
        ],
        &mut ph,
    );
    assert_rendered(
        &e,
        &ph,
        "#n0, #n1.#n2[0], #n3, #n0",
        &[("#n0", "PK"), ("#n1", "a"), ("#n2", "b"), ("#n3", "name")],
        &[],
    );
}

#[test]
fn reserved_words_are_placeholders() {
    let c = Condition::eq("status", s("x"))
        .and(Condition::eq("name", s("y")))
        .and(Condition::exists("date"))
        .and(Condition::exists(Path::attr("size")))
        .and(Condition::eq("AND", s("z")));
    let (e, ph) = cond(&c);
    assert_rendered(
        &e,
        &ph,
        "#n0 = :v0 AND #n1 = :v1 AND attribute_exists(#n2) AND attribute_exists(#n3) AND #n4 = :v2",
        &[
            ("#n0", "status"),
            ("#n1", "name"),
            ("#n2", "date"),
            ("#n3", "size"),
            ("#n4", "AND"),
        ],
        &[(":v0", s("x")), (":v1", s("y")), (":v2", s("z"))],
    );
    for word in ["status", "name", "date"] {
        assert!(!e.contains(word), "{word} spliced into {e}");
    }
}

#[test]
fn nested_paths_and_names_with_dots_and_hashes() {
    let (e, ph) = cond(&Condition::exists(
        Path::attr("a").key("b").index(2).key("c"),
    ));
    assert_rendered(
        &e,
        &ph,
        "attribute_exists(#n0.#n1[2].#n2)",
        &[("#n0", "a"), ("#n1", "b"), ("#n2", "c")],
        &[],
    );
    // A name containing a dot is one attribute, not a path.
    let (e, ph) = cond(&Condition::exists("a.b"));
    assert_rendered(&e, &ph, "attribute_exists(#n0)", &[("#n0", "a.b")], &[]);
    // Names with '#', ':', brackets, spaces and placeholder look-alikes.
    let (e, ph) = cond(
        &Condition::eq("USER#1", s("v")).and(Condition::exists(Path::attr("x[0]").key("#n0"))),
    );
    assert_rendered(
        &e,
        &ph,
        "#n0 = :v0 AND attribute_exists(#n1.#n2)",
        &[("#n0", "USER#1"), ("#n1", "x[0]"), ("#n2", "#n0")],
        &[(":v0", s("v"))],
    );
    let (e, ph) = cond(&Condition::eq(":v0", s(":v1")).and(Condition::eq("a b", s(""))));
    assert_rendered(
        &e,
        &ph,
        "#n0 = :v0 AND #n1 = :v1",
        &[("#n0", ":v0"), ("#n1", "a b")],
        &[(":v0", s(":v1")), (":v1", s(""))],
    );
}

#[test]
fn one_name_gets_one_placeholder() {
    let c = Condition::eq("status", s("a"))
        .or(Condition::eq("status", s("b")))
        .or(Condition::Compare(
            Operand::Size(Path::attr("status")),
            Comparator::Gt,
            path("status"),
        ));
    let (e, ph) = cond(&c);
    assert_rendered(
        &e,
        &ph,
        "#n0 = :v0 OR #n0 = :v1 OR size(#n0) > #n0",
        &[("#n0", "status")],
        &[(":v0", s("a")), (":v1", s("b"))],
    );
    // The same name as a map key inside a path shares the placeholder too.
    let (e, ph) = cond(&Condition::exists(Path::attr("a").key("a").key("b")));
    assert_rendered(
        &e,
        &ph,
        "attribute_exists(#n0.#n0.#n1)",
        &[("#n0", "a"), ("#n1", "b")],
        &[],
    );
}

#[test]
fn many_placeholders_stay_distinct() {
    let c = Condition::And(
        (0..12)
            .map(|i| Condition::eq(format!("f{i}").as_str(), n(&i.to_string())))
            .collect(),
    );
    let (e, ph) = cond(&c);
    assert_grammar(&e, &ph);
    assert_eq!(ph.names.len(), 12);
    assert_eq!(ph.values.len(), 12);
    assert!(e.ends_with("#n10 = :v10 AND #n11 = :v11"), "{e}");
}

// ---- property: no input text in any expression ----

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[a-zA-Z_#:.\\[\\]() 0-9]{1,8}",
        Just("status".to_owned()),
        Just("#n0".to_owned()),
        Just(":v0".to_owned()),
    ]
}

fn attr_value() -> impl Strategy<Value = AttributeValue> {
    prop_oneof![
        any::<String>().prop_map(AttributeValue::S),
        any::<i64>().prop_map(|i| AttributeValue::N(i.to_string())),
        any::<bool>().prop_map(AttributeValue::Bool),
        prop::collection::vec(any::<String>(), 0..3)
            .prop_map(|v| AttributeValue::L(v.into_iter().map(AttributeValue::S).collect())),
    ]
}

fn a_path() -> impl Strategy<Value = Path> {
    (
        name(),
        prop::collection::vec(
            prop_oneof![name().prop_map(Some), (0usize..20).prop_map(|_| None)],
            0..3,
        ),
        0usize..20,
    )
        .prop_map(|(top, rest, i)| {
            rest.into_iter().fold(Path::attr(top), |p, el| match el {
                Some(k) => p.key(k),
                None => p.index(i),
            })
        })
}

fn operand() -> impl Strategy<Value = Operand> {
    prop_oneof![
        a_path().prop_map(Operand::Path),
        attr_value().prop_map(Operand::Value),
        a_path().prop_map(Operand::Size),
    ]
}

fn comparator() -> impl Strategy<Value = Comparator> {
    prop_oneof![
        Just(Comparator::Eq),
        Just(Comparator::Ne),
        Just(Comparator::Lt),
        Just(Comparator::Le),
        Just(Comparator::Gt),
        Just(Comparator::Ge),
    ]
}

fn condition() -> impl Strategy<Value = Condition> {
    let leaf = prop_oneof![
        (operand(), comparator(), operand()).prop_map(|(a, c, b)| Condition::Compare(a, c, b)),
        (operand(), operand(), operand()).prop_map(|(a, b, c)| Condition::Between(a, b, c)),
        (operand(), prop::collection::vec(operand(), 0..4)).prop_map(|(a, l)| Condition::In(a, l)),
        a_path().prop_map(Condition::AttributeExists),
        a_path().prop_map(Condition::AttributeNotExists),
        a_path().prop_map(|p| Condition::AttributeType(p, AttributeType::Ss)),
        (a_path(), operand()).prop_map(|(p, o)| Condition::BeginsWith(p, o)),
        (a_path(), operand()).prop_map(|(p, o)| Condition::Contains(p, o)),
    ];
    leaf.prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Condition::And),
            prop::collection::vec(inner.clone(), 0..3).prop_map(Condition::Or),
            inner.prop_map(|c| Condition::Not(Box::new(c))),
        ]
    })
}

fn update_operand() -> impl Strategy<Value = UpdateOperand> {
    let leaf = prop_oneof![
        a_path().prop_map(UpdateOperand::Path),
        attr_value().prop_map(UpdateOperand::Value),
    ];
    leaf.prop_recursive(2, 6, 2, |inner| {
        prop_oneof![
            (a_path(), inner.clone()).prop_map(|(p, o)| UpdateOperand::IfNotExists(p, Box::new(o))),
            (inner.clone(), inner)
                .prop_map(|(a, b)| UpdateOperand::ListAppend(Box::new(a), Box::new(b))),
        ]
    })
}

fn an_update() -> impl Strategy<Value = Update> {
    let set_value = prop_oneof![
        update_operand().prop_map(SetValue::Operand),
        (update_operand(), update_operand()).prop_map(|(a, b)| SetValue::Plus(a, b)),
        (update_operand(), update_operand()).prop_map(|(a, b)| SetValue::Minus(a, b)),
    ];
    (
        prop::collection::vec((a_path(), set_value), 0..3),
        prop::collection::vec(a_path(), 0..3),
        prop::collection::vec((a_path(), attr_value()), 0..3),
        prop::collection::vec((a_path(), attr_value()), 0..3),
    )
        .prop_map(|(set, remove, add, delete)| Update {
            set,
            remove,
            add,
            delete,
        })
}

/// Every input name is in the names map and every input value in the values map, and the
/// expression is made only of grammar tokens: no name or value text is spliced in.
fn check_no_splicing(expr: &str, ph: &Placeholders, paths: &[&Path]) -> Result<(), TestCaseError> {
    tokens_ok(expr).map_err(TestCaseError::fail)?;
    let named: std::collections::HashSet<&String> = ph.names.values().collect();
    for p in paths {
        for el in &p.0 {
            if let dyno_core::expr::PathElement::Attr(a) = el {
                prop_assert!(named.contains(a), "name {:?} has no placeholder", a);
            }
        }
    }
    for k in ph.names.keys().chain(ph.values.keys()) {
        prop_assert!(
            contains_token(expr, k),
            "placeholder {} unused in {:?}",
            k,
            expr
        );
    }
    Ok(())
}

fn condition_paths(c: &Condition, out: &mut Vec<Path>) {
    let op = |o: &Operand, out: &mut Vec<Path>| {
        if let Operand::Path(p) | Operand::Size(p) = o {
            out.push(p.clone());
        }
    };
    match c {
        Condition::Compare(a, _, b) => {
            op(a, out);
            op(b, out);
        }
        Condition::Between(a, b, d) => {
            op(a, out);
            op(b, out);
            op(d, out);
        }
        Condition::In(a, l) => {
            op(a, out);
            l.iter().for_each(|o| op(o, out));
        }
        Condition::AttributeExists(p)
        | Condition::AttributeNotExists(p)
        | Condition::AttributeType(p, _) => {
            out.push(p.clone());
        }
        Condition::BeginsWith(p, o) | Condition::Contains(p, o) => {
            out.push(p.clone());
            op(o, out);
        }
        Condition::And(cs) | Condition::Or(cs) => cs.iter().for_each(|c| condition_paths(c, out)),
        Condition::Not(c) => condition_paths(c, out),
    }
}

proptest! {
    #[test]
    fn conditions_never_splice_input(c in condition()) {
        let (e, ph) = cond(&c);
        let mut paths = Vec::new();
        condition_paths(&c, &mut paths);
        check_no_splicing(&e, &ph, &paths.iter().collect::<Vec<_>>())?;
    }

    #[test]
    fn updates_never_splice_input(u in an_update(), sort in prop::option::of((name(), attr_value()))) {
        let mut ph = Placeholders::new();
        let e = render_update(&u, &mut ph);
        prop_assert_eq!(e.is_none(), u.is_empty());
        let e = e.unwrap_or_default();
        let paths: Vec<&Path> = u.paths().collect();
        check_no_splicing(&e, &ph, &paths)?;
        // Each literal value is one placeholder (ADD, DELETE and SET values).
        let literal_count = u.add.len() + u.delete.len();
        prop_assert!(ph.values.len() >= literal_count);

        // Key conditions and projections too.
        let mut ph = Placeholders::new();
        let mut k = KeyCondition::partition(paths.first().and_then(|p| p.top()).unwrap_or("PK"), AttributeValue::S("v".into()));
        if let Some((sk, v)) = sort {
            k = k.sort(sk, SortCondition::BeginsWith(v));
        }
        let ke = render_key_condition(&k, &mut ph);
        let pe = render_projection(&paths.iter().map(|p| (*p).clone()).collect::<Vec<_>>(), &mut ph);
        tokens_ok(&ke).map_err(TestCaseError::fail)?;
        tokens_ok(&pe).map_err(TestCaseError::fail)?;
        prop_assert!(ph.names.values().any(|n| *n == k.partition_name));
    }
}
