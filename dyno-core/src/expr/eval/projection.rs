//! ProjectionExpression: the parts of an item that a list of document paths selects, kept in
//! their place (`a.b` gives `{a: {b: ...}}`, `a.l[2]` gives `{a: {l: [third element]}}`).

use std::collections::{BTreeMap, HashMap};

use super::resolve;
use crate::expr::{Path, PathElement};
use crate::value::{AttributeValue, Item};

/// What a projection keeps of one value.
enum Node {
    /// The whole value.
    Whole(AttributeValue),
    /// Some keys of a map.
    Map(BTreeMap<String, Node>),
    /// Some elements of a list, by their original index (their order in the result).
    List(BTreeMap<usize, Node>),
}

/// The item restricted to `paths`. Paths that do not resolve (a missing attribute, an index
/// past the end, a key into a list) select nothing; paths that overlap select their union.
pub(super) fn project(item: &Item, paths: &[Path]) -> Item {
    let mut selected: HashMap<String, Node> = HashMap::new();
    for path in paths {
        let Some((PathElement::Attr(name), rest)) = path.0.split_first() else {
            continue;
        };
        let (Some(value), Some(_)) = (item.get(name), resolve(item, path)) else {
            continue;
        };
        let previous = selected.remove(name);
        selected.insert(name.clone(), select(value, rest, previous));
    }
    selected
        .into_iter()
        .map(|(name, node)| (name, node.into_value()))
        .collect()
}

/// Adds the part of `value` that `rest` selects to what `node` already holds. `rest` must
/// resolve in `value`.
fn select(value: &AttributeValue, rest: &[PathElement], node: Option<Node>) -> Node {
    let Some((element, rest)) = rest.split_first() else {
        return Node::Whole(value.clone());
    };
    match (value, element, node) {
        // Already selected whole: a sub-path adds nothing.
        (_, _, Some(whole @ Node::Whole(_))) => whole,
        (AttributeValue::M(map), PathElement::Attr(key), node) => {
            let mut children = match node {
                Some(Node::Map(children)) => children,
                _ => BTreeMap::new(),
            };
            if let Some(child) = map.get(key) {
                let previous = children.remove(key);
                children.insert(key.clone(), select(child, rest, previous));
            }
            Node::Map(children)
        }
        (AttributeValue::L(list), PathElement::Index(i), node) => {
            let mut children = match node {
                Some(Node::List(children)) => children,
                _ => BTreeMap::new(),
            };
            if let Some(child) = list.get(*i) {
                let previous = children.remove(i);
                children.insert(*i, select(child, rest, previous));
            }
            Node::List(children)
        }
        // Unreachable for a resolved path; keep what was selected.
        (_, _, Some(node)) => node,
        (value, _, None) => Node::Whole(value.clone()),
    }
}

impl Node {
    fn into_value(self) -> AttributeValue {
        match self {
            Node::Whole(value) => value,
            Node::Map(children) => AttributeValue::M(
                children
                    .into_iter()
                    .map(|(k, node)| (k, node.into_value()))
                    .collect(),
            ),
            Node::List(children) => {
                AttributeValue::L(children.into_values().map(Node::into_value).collect())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{item, l, m, n, path, s};
    use super::*;

    fn sample() -> Item {
        item(vec![
            ("p", s("key")),
            (
                "a",
                m(vec![
                    (
                        "b",
                        l(vec![
                            n("2"),
                            n("4"),
                            m(vec![("x", s("hi")), ("y", s("yo"))]),
                        ]),
                    ),
                    ("c", n("5")),
                ]),
            ),
            ("b", s("hello")),
        ])
    }

    fn proj(paths: &[&str]) -> Item {
        project(
            &sample(),
            &paths.iter().map(|p| path(p)).collect::<Vec<_>>(),
        )
    }

    #[test]
    fn top_level_attributes() {
        assert_eq!(proj(&["b"]), item(vec![("b", s("hello"))]));
        assert_eq!(
            proj(&["p", "b"]),
            item(vec![("p", s("key")), ("b", s("hello"))])
        );
        assert_eq!(proj(&["nonexistent"]), Item::new());
        assert_eq!(proj(&["a"])["a"], sample()["a"]);
    }

    #[test]
    fn nested_paths_keep_their_place() {
        assert_eq!(
            proj(&["a.b"]),
            item(vec![(
                "a",
                m(vec![(
                    "b",
                    l(vec![
                        n("2"),
                        n("4"),
                        m(vec![("x", s("hi")), ("y", s("yo"))])
                    ])
                )])
            )])
        );
        assert_eq!(
            proj(&["a.b[0]"]),
            item(vec![("a", m(vec![("b", l(vec![n("2")]))]))])
        );
        assert_eq!(
            proj(&["a.b[2]"]),
            item(vec![(
                "a",
                m(vec![(
                    "b",
                    l(vec![m(vec![("x", s("hi")), ("y", s("yo"))])])
                )])
            )])
        );
        assert_eq!(
            proj(&["a.b[2].y"]),
            item(vec![(
                "a",
                m(vec![("b", l(vec![m(vec![("y", s("yo"))])]))])
            )])
        );
    }

    #[test]
    fn list_elements_come_out_in_index_order() {
        assert_eq!(proj(&["a.b[2].x", "a.b[0]"]), proj(&["a.b[0]", "a.b[2].x"]));
        assert_eq!(
            proj(&["a.b[2].x", "a.b[0]"]),
            item(vec![(
                "a",
                m(vec![("b", l(vec![n("2"), m(vec![("x", s("hi"))])]))])
            )])
        );
    }

    #[test]
    fn several_paths_merge() {
        assert_eq!(
            proj(&["a.b[0]", "a.b[1]"]),
            item(vec![("a", m(vec![("b", l(vec![n("2"), n("4")]))]))])
        );
        assert_eq!(
            proj(&["a.b[0]", "a.c"]),
            item(vec![("a", m(vec![("b", l(vec![n("2")])), ("c", n("5"))]))])
        );
        assert_eq!(
            proj(&["a.c", "b"]),
            item(vec![("a", m(vec![("c", n("5"))])), ("b", s("hello"))])
        );
        // Overlapping paths (refused by check_projection) still select their union.
        assert_eq!(proj(&["a", "a.c"])["a"], sample()["a"]);
        assert_eq!(proj(&["a.c", "a"])["a"], sample()["a"]);
    }

    #[test]
    fn paths_that_do_not_resolve_select_nothing() {
        for p in [
            "x",
            "a.b[3]",
            "a.x",
            "a.x.y",
            "a.b[3].x",
            "a.b.x",
            "a[0]",
            "a.b[0].x",
            "a.b[0][0]",
        ] {
            assert_eq!(proj(&[p]), Item::new(), "{p}");
        }
        assert_eq!(
            proj(&["a.x", "a.b[0]", "x", "a.b[3].x"]),
            item(vec![("a", m(vec![("b", l(vec![n("2")]))]))])
        );
    }
}
