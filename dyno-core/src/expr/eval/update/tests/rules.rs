//! What holds across actions: the key, overlapping paths, depth, what is reported, all or nothing, the order faults are named in.

use super::*;

/// dynoxide's order (the differential's reference): an ADD or DELETE that does not fit what
/// the item holds is named before a SET's missing operand or bad path; each SET's operands
/// are read and type-checked before the next SET's; paths are checked after every operand;
/// a literal inside a nested list_append is checked when applied, in the item's words.
#[test]
fn faults_are_named_in_dynoxides_order() {
    let it = with(vec![("str", s("x")), ("list", l(vec![n("1")]))]);
    let missing_then_misfit = Update {
        set: vec![set("a", SetValue::Operand(at("missing")))],
        add: vec![(path("str"), n("1"))],
        ..Update::default()
    };
    assert!(fails(&it, &missing_then_misfit)
        .starts_with("An operand in the update expression has an incorrect data type; ADD"));
    let misfit_delete = Update {
        remove: vec![path("nope.deeper")],
        delete: vec![(path("list"), ss(&["a"]))],
        ..Update::default()
    };
    assert!(fails(&it, &misfit_delete)
        .starts_with("An operand in the update expression has an incorrect data type; DELETE"));
    // The first SET's wrong operand type comes before the second SET's missing attribute.
    let sum_then_missing = sets(vec![
        set("a", SetValue::Plus(at("str"), val(n("1")))),
        set("b", SetValue::Operand(at("missing"))),
    ]);
    assert!(fails(&it, &sum_then_missing)
        .starts_with("An operand in the update expression has an incorrect data type; +"));
    // A bad path is named only once every operand has been read.
    let path_then_missing = sets(vec![
        set_to("str.x", n("1")),
        set("b", SetValue::Operand(at("missing"))),
    ]);
    assert!(fails(&it, &path_then_missing)
        .starts_with("The provided expression refers to an attribute that does not exist"));
    // A nested list_append's literal passes the static check and fails when applied.
    let nested = sets(vec![set(
        "list",
        SetValue::Operand(UpdateOperand::ListAppend(
            Box::new(UpdateOperand::ListAppend(
                Box::new(val(s("no list"))),
                Box::new(val(l(vec![]))),
            )),
            Box::new(at("list")),
        )),
    )]);
    assert!(check(&nested).is_ok());
    // Reading the request comes first: a number it cannot read in any value, even nested,
    // before an ADD operand of the wrong type; a repeated member of a set inside a list is
    // left to the update's own checks.
    use crate::expr::eval::{check_values, Layer};
    let unreadable = Update {
        set: vec![set_to("a", l(vec![m(vec![("k", n("abc"))])]))],
        add: vec![(path("b"), s("no number"))],
        ..Update::default()
    };
    assert!(check(&unreadable).is_err());
    assert!(
        message(check_values(Some(&unreadable), None, Layer::Current).unwrap_err())
            .starts_with("The parameter cannot be converted to a numeric value: abc")
    );
    let nested_duplicate = sets(vec![set_to("a", l(vec![ss(&["x", "x"])]))]);
    assert!(check_values(Some(&nested_duplicate), None, Layer::Current).is_ok());
    let top_duplicate = sets(vec![set_to("a", ss(&["x", "x"]))]);
    assert!(
        message(check_values(Some(&top_duplicate), None, Layer::Current).unwrap_err())
            .contains("contains duplicates")
    );
    assert!(fails(&it, &nested).starts_with(
        "An operand in the update expression has an incorrect data type; list_append"
    ));
}

#[test]
fn key_attributes_cannot_be_updated() {
    let it = with(vec![("a", n("1"))]);
    let expected = "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key";
    assert_eq!(fails(&it, &sets(vec![set_to("pk", s("other"))])), expected);
    assert!(
        fails(&it, &sets(vec![set_to("sk", s("other"))])).contains("Cannot update attribute sk.")
    );
    assert_eq!(fails(&it, &removes(&["pk"])), expected);
    assert_eq!(fails(&it, &adds("pk", n("1"))), expected);
    assert_eq!(fails(&it, &deletes("pk", ss(&["x"]))), expected);
    assert_eq!(
        fails(&it, &sets(vec![set_to("pk.x", s("other"))])),
        expected
    );
    // Reading a key is fine; so is a non-key attribute.
    assert!(run(&it, &sets(vec![set("a", SetValue::Operand(at("sk")))])).is_ok());
}

#[test]
fn overlapping_and_conflicting_paths_are_refused() {
    let it = with(vec![
        ("a", m(vec![("b", n("1"))])),
        ("l", l(vec![n("1"), n("2")])),
    ]);
    let mut set_and_remove = removes(&["a"]);
    set_and_remove.set.push(set_to("a", n("1")));
    assert!(fails(&it, &set_and_remove).contains("Two document paths overlap with each other"));
    assert!(fails(&it, &sets(vec![set_to("a", n("1")), set_to("a", n("2"))])).contains("overlap"));
    assert!(
        fails(&it, &sets(vec![set_to("a", n("1")), set_to("a.b", n("2"))])).contains("overlap")
    );
    assert!(fails(
        &it,
        &sets(vec![set_to("l[1]", n("1")), set_to("l", n("2"))])
    )
    .contains("overlap"));
    let mut add_and_delete = adds("s", ss(&["x"]));
    add_and_delete.delete.push((path("s"), ss(&["y"])));
    assert!(fails(&it, &add_and_delete).contains("overlap"));
    let err = fails(
        &it,
        &sets(vec![set_to("a.b", n("1")), set_to("a[1]", n("2"))]),
    );
    assert!(err.contains("Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a, [1]]"), "{err}");
    // Several disjoint changes to one attribute are fine.
    let it = with(vec![
        (
            "a",
            m(vec![
                ("x", n("3")),
                ("y", n("4")),
                ("c", m(vec![("y", n("3"))])),
            ]),
        ),
        ("b", m(vec![("x", n("1")), ("y", n("2"))])),
    ]);
    let mut update = sets(vec![
        set_to("a.b", n("10")),
        set_to("a.c.d", s("dog")),
        set_to("b.x", n("17")),
    ]);
    update.remove = vec![path("a.x"), path("b.y")];
    let got = run(&it, &update).unwrap();
    assert_eq!(
        got["a"],
        m(vec![
            ("y", n("4")),
            ("b", n("10")),
            ("c", m(vec![("y", n("3")), ("d", s("dog"))]))
        ])
    );
    assert_eq!(got["b"], m(vec![("x", n("17"))]));
}

#[test]
fn paths_deeper_than_32_levels_are_refused() {
    let deep = Path(
        std::iter::once(PathElement::Attr("a".into()))
            .chain((0..32).map(|_| PathElement::Attr("b".into())))
            .collect(),
    );
    let update = Update {
        set: vec![(deep, SetValue::value(n("1")))],
        ..Update::default()
    };
    assert!(fails(&base(), &update).contains("nesting levels: 33"));
}

#[test]
fn returns_the_touched_top_level_names_in_action_order() {
    let it = with(vec![
        ("a", m(vec![("x", n("1")), ("y", n("2"))])),
        ("b", n("1")),
        ("s", ss(&["x"])),
    ]);
    let update = Update {
        set: vec![set_to("a.x", n("5")), set_to("c", n("1"))],
        remove: vec![path("a.y"), path("b")],
        add: vec![(path("d"), n("1"))],
        delete: vec![(path("s"), ss(&["x"]))],
    };
    let mut copy = it.clone();
    let touched = apply_update(&update, KEYS, &mut copy).unwrap().touched;
    assert_eq!(touched, ["a", "c", "b", "d", "s"]);
    assert_eq!(
        copy,
        with(vec![
            ("a", m(vec![("x", n("5"))])),
            ("c", n("1")),
            ("d", n("1"))
        ])
    );
    assert_eq!(
        apply_update(&Update::default(), KEYS, &mut copy)
            .unwrap()
            .touched,
        Vec::<String>::new()
    );
}

#[test]
fn a_failing_action_leaves_every_other_action_unapplied() {
    let it = with(vec![("a", n("1")), ("s", s("dog"))]);
    let update = Update {
        set: vec![
            set_to("x", n("1")),
            set("y", SetValue::Plus(at("s"), val(n("1")))),
        ],
        remove: vec![path("a")],
        ..Update::default()
    };
    fails(&it, &update);
    let update = Update {
        set: vec![set_to("x", n("1"))],
        add: vec![(path("s"), n("1"))],
        ..Update::default()
    };
    fails(&it, &update);
}
