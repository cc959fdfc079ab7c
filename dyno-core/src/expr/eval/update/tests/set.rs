//! SET: literals, copies, nested paths, list indexes, arithmetic, `if_not_exists`, `list_append`.

use super::*;

#[test]
fn set_literal_values_normalizes_numbers() {
    let got = run(
        &base(),
        &sets(vec![
            set_to("a", n("1.50")),
            set_to("b", s("x")),
            set_to("c", ns(&["1e1", "2"])),
        ]),
    )
    .unwrap();
    assert_eq!(
        got,
        with(vec![
            ("a", n("1.5")),
            ("b", s("x")),
            ("c", ns(&["10", "2"]))
        ])
    );
    let got = run(
        &got,
        &sets(vec![
            set_to("a", l(vec![])),
            set_to("b", m(vec![])),
            set_to("c", s("")),
        ]),
    )
    .unwrap();
    assert_eq!(
        got,
        with(vec![("a", l(vec![])), ("b", m(vec![])), ("c", s(""))]),
        "empty lists, maps and strings are values"
    );
}

#[test]
fn set_rejects_invalid_literals() {
    assert!(fails(&base(), &sets(vec![set_to("a", ss(&[]))])).contains("may not be empty"));
    assert!(fails(&base(), &sets(vec![set_to("a", n("1e126"))])).contains("Number overflow"));
    assert!(fails(
        &base(),
        &sets(vec![set_to(
            "a",
            n("12345678901234567890123456789012345678901")
        )])
    )
    .contains("38 significant digits"));
    assert!(fails(&base(), &sets(vec![set_to("a", n("one"))])).contains("numeric value: one"));
}

#[test]
fn set_copies_paths_from_the_original_item() {
    let it = with(vec![
        ("a", s("hello")),
        ("n", m(vec![("c", l(vec![n("7")]))])),
    ]);
    let got = run(
        &it,
        &sets(vec![
            set("b", SetValue::Operand(at("a"))),
            set("z", SetValue::Operand(at("n.c[0]"))),
        ]),
    )
    .unwrap();
    assert_eq!(got["b"], s("hello"));
    assert_eq!(got["z"], n("7"));
    // Operands read the item before the update: `SET x = :v, y = x` finds no x.
    let err = fails(
        &it,
        &sets(vec![
            set_to("x", n("4")),
            set("y", SetValue::Operand(at("x"))),
        ]),
    );
    assert!(
        err.starts_with(
            "The provided expression refers to an attribute that does not exist in the item"
        ),
        "{err}"
    );
    assert!(fails(&it, &sets(vec![set("c", SetValue::Operand(at("zz")))])).contains("path: [zz]"));
    // So two SETs can swap values.
    let it = with(vec![("a", n("1")), ("b", n("2"))]);
    let got = run(
        &it,
        &sets(vec![
            set("a", SetValue::Operand(at("b"))),
            set("b", SetValue::Operand(at("a"))),
        ]),
    )
    .unwrap();
    assert_eq!((got["a"].clone(), got["b"].clone()), (n("2"), n("1")));
    // And `REMOVE a SET b = a` moves a value.
    let mut update = removes(&["a"]);
    update.set.push(set("c", SetValue::Operand(at("a"))));
    assert_eq!(
        run(&it, &update).unwrap(),
        with(vec![("b", n("2")), ("c", n("1"))])
    );
    // Key attributes can be read.
    assert_eq!(
        run(
            &base(),
            &sets(vec![set("copy", SetValue::Operand(at("pk")))])
        )
        .unwrap()["copy"],
        s("P")
    );
}

#[test]
fn set_nested_paths() {
    let it = with(vec![(
        "a",
        m(vec![
            ("b", n("3")),
            (
                "c",
                l(vec![
                    s("hi"),
                    m(vec![("x", m(vec![("y", l(vec![n("3"), n("5"), n("7")]))]))]),
                ]),
            ),
        ]),
    )]);
    let got = run(
        &it,
        &sets(vec![
            set_to("a.c[1].x.y[1]", n("9")),
            set_to("a.d", s("new")),
        ]),
    )
    .unwrap();
    assert_eq!(
        got["a"],
        m(vec![
            ("b", n("3")),
            (
                "c",
                l(vec![
                    s("hi"),
                    m(vec![("x", m(vec![("y", l(vec![n("3"), n("9"), n("7")]))]))])
                ])
            ),
            ("d", s("new")),
        ])
    );
    // Replacing a nested value with one of another type.
    assert_eq!(
        run(&it, &sets(vec![set_to("a.c", n("7"))])).unwrap()["a"],
        m(vec![("b", n("3")), ("c", n("7"))])
    );
}

#[test]
fn set_needs_an_existing_parent() {
    let it = with(vec![
        ("a", s("hello")),
        ("b", l(vec![s("hi")])),
        ("m", m(vec![])),
    ]);
    for p in [
        "a.c", "b.c", "c.c", "m.x.y", "a[0]", "c[0]", "m[0]", "b[3].x",
    ] {
        let err = fails(&it, &sets(vec![set_to(p, n("7"))]));
        assert!(
            err.starts_with(
                "The document path provided in the update expression is invalid for update"
            ),
            "{p}: {err}"
        );
    }
    // Also when the item does not exist yet (the engine passes the key alone).
    let mut fresh = base();
    let err = apply_update(&sets(vec![set_to("c.c", n("7"))]), KEYS, &mut fresh).unwrap_err();
    assert!(message(err).contains("invalid for update"));
}

#[test]
fn set_list_index_replaces_or_appends_in_index_order() {
    let it = with(vec![("a", l(vec![s("one"), s("two"), s("three")]))]);
    assert_eq!(
        run(&it, &sets(vec![set_to("a[1]", s("hello"))])).unwrap()["a"],
        l(vec![s("one"), s("hello"), s("three")])
    );
    let got = run(&it, &sets(vec![set_to("a[7]", s("hello"))])).unwrap();
    assert_eq!(
        got["a"],
        l(vec![s("one"), s("two"), s("three"), s("hello")]),
        "past the end appends"
    );
    let got = run(
        &got,
        &sets(vec![
            set_to("a[84]", s("a1")),
            set_to("a[37]", s("a2")),
            set_to("a[17]", s("a3")),
            set_to("a[50]", s("a4")),
        ]),
    )
    .unwrap();
    let expected = ["one", "two", "three", "hello", "a3", "a2", "a4", "a1"];
    assert_eq!(
        got["a"],
        l(expected.iter().map(|x| s(x)).collect()),
        "appended in index order"
    );
    let got = run(
        &it,
        &sets(vec![
            set_to("a[4]", s("x")),
            set_to("a[3]", s("y")),
            set_to("a[0]", s("z")),
        ]),
    )
    .unwrap();
    assert_eq!(
        got["a"],
        l(vec![s("z"), s("two"), s("three"), s("y"), s("x")])
    );
    let empty = with(vec![("a", l(vec![]))]);
    assert_eq!(
        run(&empty, &sets(vec![set_to("a[0]", n("1"))])).unwrap()["a"],
        l(vec![n("1")])
    );
}

#[test]
fn plus_and_minus_are_exact() {
    let it = with(vec![("a", n("2")), ("b", n("0.1")), ("s", s("dog"))]);
    let plus = |x, y| SetValue::Plus(x, y);
    let minus = |x, y| SetValue::Minus(x, y);
    assert_eq!(
        run(&it, &sets(vec![set("a", plus(at("a"), val(n("3"))))])).unwrap()["a"],
        n("5")
    );
    assert_eq!(
        run(&it, &sets(vec![set("a", plus(val(n("4")), at("a")))])).unwrap()["a"],
        n("6")
    );
    assert_eq!(
        run(&it, &sets(vec![set("c", minus(val(n("7")), at("a")))])).unwrap()["c"],
        n("5")
    );
    assert_eq!(
        run(&it, &sets(vec![set("c", plus(at("b"), val(n("0.2"))))])).unwrap()["c"],
        n("0.3")
    );
    assert_eq!(
        run(&it, &sets(vec![set("c", minus(at("a"), val(n("2.00"))))])).unwrap()["c"],
        n("0")
    );
    let big = sets(vec![set(
        "c",
        plus(val(n("1")), val(n("10000000000000000000000"))),
    )]);
    assert_eq!(run(&it, &big).unwrap()["c"], n("10000000000000000000001"));
    let big = sets(vec![set(
        "c",
        minus(val(n("10000000000000000000000")), val(n("1"))),
    )]);
    assert_eq!(run(&it, &big).unwrap()["c"], n("9999999999999999999999"));
}

#[test]
fn arithmetic_on_38_digit_numbers() {
    let nines = "99999999999999999999999999999999999999";
    let it = with(vec![("a", n(nines))]);
    // The exact result 1E+38 has one significant digit (trailing zeros do not count), so
    // DynamoDB stores it; one more digit of precision is what fails.
    let got = run(
        &it,
        &sets(vec![set("a", SetValue::Plus(at("a"), val(n("1"))))]),
    )
    .unwrap();
    assert_eq!(got["a"], n("100000000000000000000000000000000000000"));
    let err = fails(
        &it,
        &sets(vec![set("a", SetValue::Plus(at("a"), val(n("0.1"))))]),
    );
    assert!(
        err.starts_with("Attempting to store more than 38 significant digits in a Number"),
        "{err}"
    );
    assert!(err.contains("has 39 significant digits"), "{err}");
    let err = fails(&it, &adds("a", n("0.5")));
    assert!(err.contains("38 significant digits"), "{err}");
    let err = fails(
        &base(),
        &sets(vec![set("x", SetValue::Minus(val(n("1e50")), val(n("1"))))]),
    );
    assert!(err.contains("38 significant digits"), "{err}");
    let max = "9.9999999999999999999999999999999999999E+125";
    // 1.09999999999999999999999999999999999999E+126: out of range with 39 significant
    // digits, refused for its digits (dynoxide checks them first).
    let err = fails(
        &base(),
        &sets(vec![set(
            "x",
            SetValue::Plus(val(n(max)), val(n("1E+125"))),
        )]),
    );
    assert!(err.contains("38 significant digits"), "{err}");
    let err = fails(
        &base(),
        &sets(vec![set(
            "x",
            SetValue::Plus(val(n("9e125")), val(n("9e125"))),
        )]),
    );
    assert!(err.starts_with("Number overflow"), "{err}");
    let err = fails(
        &base(),
        &sets(vec![set(
            "x",
            SetValue::Minus(val(n("-9e125")), val(n("9e125"))),
        )]),
    );
    assert!(err.starts_with("Number overflow"), "{err}");
    let err = fails(
        &base(),
        &sets(vec![set(
            "x",
            SetValue::Minus(val(n("1e-130")), val(n("1.1e-130"))),
        )]),
    );
    assert!(err.starts_with("Number underflow"), "{err}");
}

#[test]
fn arithmetic_needs_numbers_that_exist() {
    let it = with(vec![("a", n("2")), ("s", s("dog")), ("l", l(vec![]))]);
    let err = fails(
        &it,
        &sets(vec![set("c", SetValue::Plus(at("s"), val(n("1"))))]),
    );
    // An attribute's value is checked when the item is read: the item's error, not the
    // expression's.
    assert_eq!(
        err,
        "An operand in the update expression has an incorrect data type; + of S"
    );
    assert!(fails(
        &it,
        &sets(vec![set("c", SetValue::Minus(at("a"), at("l")))])
    )
    .contains("incorrect data type; - of L"));
    assert!(fails(
        &it,
        &sets(vec![set("c", SetValue::Plus(val(ss(&["a"])), val(n("1"))))])
    )
    .contains("operand type: SS"));
    assert!(fails(
        &it,
        &sets(vec![set("c", SetValue::Plus(at("missing"), val(n("1"))))])
    )
    .contains("does not exist"));
}

#[test]
fn if_not_exists_picks_the_existing_value_or_the_default() {
    let it = with(vec![("a", n("2"))]);
    let ine = |p: &str, default| UpdateOperand::IfNotExists(path(p), Box::new(default));
    assert_eq!(
        run(
            &it,
            &sets(vec![set("a", SetValue::Operand(ine("a", val(n("3")))))])
        )
        .unwrap()["a"],
        n("2")
    );
    assert_eq!(
        run(
            &it,
            &sets(vec![set("b", SetValue::Operand(ine("c", val(n("4")))))])
        )
        .unwrap()["b"],
        n("4")
    );
    assert_eq!(
        run(
            &it,
            &sets(vec![set("b", SetValue::Operand(ine("a", val(n("6")))))])
        )
        .unwrap()["b"],
        n("2")
    );
    // The counter idiom: SET c = if_not_exists(c, 0) + 1.
    let counter = sets(vec![set(
        "c",
        SetValue::Plus(ine("c", val(n("0"))), val(n("1"))),
    )]);
    let once = run(&it, &counter).unwrap();
    assert_eq!(once["c"], n("1"));
    assert_eq!(run(&once, &counter).unwrap()["c"], n("2"));
    // A default that reads another path.
    assert_eq!(
        run(
            &it,
            &sets(vec![set("b", SetValue::Operand(ine("zz", at("a"))))])
        )
        .unwrap()["b"],
        n("2")
    );
    assert!(fails(
        &it,
        &sets(vec![set("b", SetValue::Operand(ine("zz", at("yy"))))])
    )
    .contains("does not exist"));
}

#[test]
fn list_append_concatenates_lists() {
    let it = with(vec![("a", l(vec![s("hi"), n("2")])), ("s", s("str"))]);
    let append = |x, y| SetValue::Operand(UpdateOperand::ListAppend(Box::new(x), Box::new(y)));
    let got = run(
        &it,
        &sets(vec![set(
            "a",
            append(at("a"), val(l(vec![n("4"), s("hello")]))),
        )]),
    )
    .unwrap();
    assert_eq!(got["a"], l(vec![s("hi"), n("2"), n("4"), s("hello")]));
    let got = run(
        &it,
        &sets(vec![set("a", append(val(l(vec![s("dog")])), at("a")))]),
    )
    .unwrap();
    assert_eq!(got["a"], l(vec![s("dog"), s("hi"), n("2")]));
    let got = run(&it, &sets(vec![set("b", append(at("a"), at("a")))])).unwrap();
    assert_eq!(got["b"], l(vec![s("hi"), n("2"), s("hi"), n("2")]));
    // Appending to a list that may not exist yet.
    let ine = UpdateOperand::IfNotExists(path("new"), Box::new(val(l(vec![]))));
    let got = run(
        &it,
        &sets(vec![set("new", append(ine, val(l(vec![n("1")]))))]),
    )
    .unwrap();
    assert_eq!(got["new"], l(vec![n("1")]));

    let err = fails(&it, &sets(vec![set("a", append(at("a"), val(s("hi"))))]));
    assert_eq!(
        err,
        "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: list_append, operand type: S"
    );
    assert!(fails(&it, &sets(vec![set("a", append(at("s"), at("a")))]))
        .contains("incorrect data type; list_append of S"));
    assert!(
        fails(&it, &sets(vec![set("a", append(at("missing"), at("a")))]))
            .contains("does not exist")
    );
    // Functions nest: list_append(list_append([], [n]), a).
    let nested =
        UpdateOperand::ListAppend(Box::new(val(l(vec![]))), Box::new(val(l(vec![n("7")]))));
    let got = run(&it, &sets(vec![set("a", append(nested, at("a")))])).unwrap();
    assert_eq!(got["a"], l(vec![n("7"), s("hi"), n("2")]));
}
