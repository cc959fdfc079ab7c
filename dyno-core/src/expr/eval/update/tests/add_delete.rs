//! ADD and DELETE: numbers and sets.

use super::*;

#[test]
fn add_numbers() {
    let it = with(vec![("a", n("3")), ("b", s("hi"))]);
    assert_eq!(run(&it, &adds("a", n("4"))).unwrap()["a"], n("7"));
    assert_eq!(run(&it, &adds("a", n("-3.5"))).unwrap()["a"], n("-0.5"));
    assert_eq!(
        run(&it, &adds("c", n("7.0"))).unwrap()["c"],
        n("7"),
        "a missing number counts as 0"
    );
    let mut fresh = base();
    apply_update(&adds("c", n("8")), KEYS, &mut fresh).unwrap();
    assert_eq!(fresh["c"], n("8"), "ADD creates the item's attribute");
    let nested = with(vec![("m", m(vec![("count", n("1"))]))]);
    assert_eq!(
        run(&nested, &adds("m.count", n("1"))).unwrap()["m"],
        m(vec![("count", n("2"))])
    );
    assert!(fails(&nested, &adds("zz.count", n("1"))).contains("invalid for update"));

    let err = fails(&it, &adds("b", n("1")));
    assert!(
        err.starts_with("An operand in the update expression has an incorrect data type"),
        "{err}"
    );
    let err = fails(&it, &adds("a", s("hello")));
    assert_eq!(err, "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING, typeSet: ALLOWED_FOR_ADD_OPERAND");
    for operand in [
        l(vec![]),
        m(vec![]),
        b(b"x"),
        AttributeValue::Bool(true),
        AttributeValue::Null(true),
    ] {
        assert!(fails(&it, &adds("a", operand)).contains("operator: ADD"));
    }
}

#[test]
fn add_sets() {
    let it = with(vec![
        ("a", ss(&["dog", "cat", "mouse"])),
        ("n", ns(&["1", "2"])),
        ("b", bs(&[b"x"])),
        ("s", s("hi")),
    ]);
    let got = run(&it, &adds("a", ss(&["pig", "cat"]))).unwrap();
    assert!(crate::expr::eval::values_equal(
        &got["a"],
        &ss(&["dog", "cat", "mouse", "pig"])
    ));
    let AttributeValue::Ss(elements) = &got["a"] else {
        panic!()
    };
    assert_eq!(elements.len(), 4, "no duplicates");
    let got = run(&it, &adds("n", ns(&["2.0", "3"]))).unwrap();
    assert_eq!(got["n"], ns(&["1", "2", "3"]), "numbers compared by value");
    assert_eq!(
        run(&it, &adds("b", bs(&[b"y", b"x"]))).unwrap()["b"],
        bs(&[b"x", b"y"])
    );
    assert_eq!(
        run(&it, &adds("new", ss(&["dog"]))).unwrap()["new"],
        ss(&["dog"]),
        "ADD creates a set"
    );

    assert!(fails(&it, &adds("a", ns(&["1"]))).contains("incorrect data type"));
    assert!(fails(&it, &adds("s", ss(&["x"]))).contains("incorrect data type"));
    assert!(fails(&it, &adds("n", n("1"))).contains("incorrect data type"));
    assert!(
        fails(&it, &adds("a", ss(&[]))).contains("may not be empty"),
        "ADD never leaves an empty set"
    );
    assert!(fails(&it, &adds("a", ss(&["x", "x"]))).contains("duplicates"));
}

#[test]
fn delete_from_sets() {
    let it = with(vec![
        ("a", ss(&["dog", "cat", "mouse"])),
        ("n", ns(&["1", "2.5"])),
        ("b", bs(&[b"x", b"y"])),
        ("s", s("hi")),
    ]);
    assert_eq!(
        run(&it, &deletes("a", ss(&["cat", "mouse"]))).unwrap()["a"],
        ss(&["dog"])
    );
    assert_eq!(
        run(&it, &deletes("a", ss(&["pig"]))).unwrap()["a"],
        it["a"],
        "absent elements are ignored"
    );
    assert_eq!(
        run(&it, &deletes("n", ns(&["2.50"]))).unwrap()["n"],
        ns(&["1"])
    );
    assert_eq!(
        run(&it, &deletes("b", bs(&[b"x"]))).unwrap()["b"],
        bs(&[b"y"])
    );
    let got = run(&it, &deletes("a", ss(&["dog", "cat", "mouse"]))).unwrap();
    assert!(!got.contains_key("a"), "an emptied set is removed");
    assert_eq!(
        run(&it, &deletes("missing", ss(&["dog"]))).unwrap(),
        it,
        "deleting from nothing does nothing"
    );

    assert!(fails(&it, &deletes("a", ss(&[]))).contains("may not be empty"));
    let err = fails(&it, &deletes("a", s("dog")));
    assert_eq!(err, "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: STRING, typeSet: ALLOWED_FOR_DELETE_OPERAND");
    assert!(fails(&it, &deletes("a", n("1"))).contains("operator: DELETE, operand type: N"));
    assert!(fails(&it, &deletes("a", ns(&["1"]))).contains("incorrect data type"));
    assert!(fails(&it, &deletes("s", ss(&["hi"]))).contains("incorrect data type"));
    assert!(fails(&it, &deletes("zz.y", ss(&["hi"]))).contains("invalid for update"));
}

#[test]
fn delete_emptying_a_set_in_a_list_shifts_like_remove() {
    let it = with(vec![("l", l(vec![s("a"), ss(&["x"]), s("b"), s("c")]))]);
    let mut update = deletes("l[1]", ss(&["x"]));
    update.remove.push(path("l[3]"));
    assert_eq!(run(&it, &update).unwrap()["l"], l(vec![s("a"), s("b")]));
}
