//! REMOVE: top-level and nested attributes, list elements and their shifts.

use super::*;

#[test]
fn remove_top_level_and_nested() {
    let it = with(vec![
        ("a", s("hello")),
        ("b", s("hi")),
        (
            "n",
            m(vec![
                ("b", n("3")),
                (
                    "c",
                    l(vec![
                        s("hi"),
                        m(vec![
                            ("x", m(vec![("y", l(vec![n("3"), n("5"), n("7")]))])),
                            ("q", n("2")),
                        ]),
                    ]),
                ),
            ]),
        ),
    ]);
    let got = run(&it, &removes(&["a", "missing"])).unwrap();
    assert!(!got.contains_key("a"));
    assert_eq!(got["b"], s("hi"));
    let got = run(&it, &removes(&["n.c[1].x.y[1]", "n.c[1].q", "n.zz"])).unwrap();
    assert_eq!(
        got["n"],
        m(vec![
            ("b", n("3")),
            (
                "c",
                l(vec![
                    s("hi"),
                    m(vec![("x", m(vec![("y", l(vec![n("3"), n("7")]))]))])
                ])
            )
        ])
    );
    let single = with(vec![("m", m(vec![("b", n("1"))])), ("l", l(vec![n("1")]))]);
    let got = run(&single, &removes(&["m.b", "l[0]"])).unwrap();
    assert_eq!(
        (got["m"].clone(), got["l"].clone()),
        (m(vec![]), l(vec![])),
        "empty maps and lists stay"
    );
}

#[test]
fn remove_list_indexes_shift_and_refer_to_the_original_list() {
    let it = with(vec![(
        "a",
        l(["2", "3", "4", "5", "6", "7"]
            .iter()
            .map(|x| n(x))
            .collect()),
    )]);
    let nums = |xs: &[&str]| l(xs.iter().map(|x| n(x)).collect());
    assert_eq!(
        run(&it, &removes(&["a[0]"])).unwrap()["a"],
        nums(&["3", "4", "5", "6", "7"])
    );
    assert_eq!(
        run(&it, &removes(&["a[1]", "a[3]"])).unwrap()["a"],
        nums(&["2", "4", "6", "7"])
    );
    assert_eq!(
        run(&it, &removes(&["a[3]", "a[1]"])).unwrap()["a"],
        nums(&["2", "4", "6", "7"]),
        "order does not matter"
    );
    assert_eq!(
        run(&it, &removes(&["a[17]"])).unwrap()["a"],
        it["a"],
        "past the end is ignored"
    );
    let mut update = removes(&["a[1]"]);
    update.set.push(set_to("a[3]", n("17")));
    assert_eq!(
        run(&it, &update).unwrap()["a"],
        nums(&["2", "4", "17", "6", "7"])
    );
    let mut update = removes(&["a[1]"]);
    update.set.push(set_to("a[9]", n("8")));
    assert_eq!(
        run(&it, &update).unwrap()["a"],
        nums(&["2", "4", "5", "6", "7", "8"])
    );
    let nested = with(vec![(
        "a",
        l(vec![
            m(vec![("x", n("1"))]),
            m(vec![("x", n("2"))]),
            m(vec![("x", n("3"))]),
        ]),
    )]);
    let got = run(&nested, &removes(&["a[0]", "a[2].x"])).unwrap();
    assert_eq!(got["a"], l(vec![m(vec![("x", n("2"))]), m(vec![])]));
}

#[test]
fn remove_through_a_missing_or_wrong_parent_is_invalid_on_a_new_item_too() {
    let it = with(vec![("a", s("hello")), ("b", l(vec![s("hi")]))]);
    for p in ["a.c", "b.c", "c.c", "a[0]", "c[0]"] {
        let err = fails(&it, &removes(&[p]));
        assert!(err.contains("invalid for update"), "{p}: {err}");
    }
    // An item the update creates holds its key alone: `x.y` and `w[0]` have no parent there
    // either (dynoxide, the reference, refuses them; DynamoDB's documentation is silent),
    // while removing a missing top-level attribute is no error.
    for p in ["x.y", "w[0]"] {
        let mut fresh = base();
        let err = apply_update(&removes(&[p, "z"]), KEYS, &mut fresh).unwrap_err();
        assert!(message(err).contains("invalid for update"), "{p}");
        assert_eq!(fresh, base());
    }
    let mut fresh = base();
    assert_eq!(
        apply_update(&removes(&["z"]), KEYS, &mut fresh)
            .unwrap()
            .touched,
        ["z"]
    );
}
