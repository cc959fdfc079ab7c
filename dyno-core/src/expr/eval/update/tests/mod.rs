//! The update evaluator's tests, by action; the helpers they share.

mod add_delete;
mod remove;
mod rules;
mod set;

use super::*;
use crate::expr::eval::apply_update;
use crate::expr::eval::tests::{b, bs, item, l, m, message, n, ns, path, s, ss};

const KEYS: &[&str] = &["pk", "sk"];

fn base() -> Item {
    item(vec![("pk", s("P")), ("sk", s("S"))])
}

fn with(attrs: Vec<(&str, AttributeValue)>) -> Item {
    let mut it = base();
    it.extend(item(attrs));
    it
}

fn set(p: &str, value: SetValue) -> (Path, SetValue) {
    (path(p), value)
}
fn val(v: AttributeValue) -> UpdateOperand {
    UpdateOperand::Value(v)
}
fn at(p: &str) -> UpdateOperand {
    UpdateOperand::Path(path(p))
}
fn set_to(p: &str, v: AttributeValue) -> (Path, SetValue) {
    set(p, SetValue::value(v))
}

/// Applies the update to a copy and returns the new item.
fn run(it: &Item, update: &Update) -> Result<Item> {
    let mut copy = it.clone();
    apply_update(update, KEYS, &mut copy)?;
    Ok(copy)
}

/// The validation message, checking the item is untouched.
fn fails(it: &Item, update: &Update) -> String {
    let mut copy = it.clone();
    let err = apply_update(update, KEYS, &mut copy).expect_err("expected an error");
    assert_eq!(&copy, it, "a failed update leaves the item as it was");
    message(err)
}

fn sets(actions: Vec<(Path, SetValue)>) -> Update {
    Update {
        set: actions,
        ..Update::default()
    }
}
fn removes(paths: &[&str]) -> Update {
    Update {
        remove: paths.iter().map(|p| path(p)).collect(),
        ..Update::default()
    }
}
fn adds(p: &str, v: AttributeValue) -> Update {
    Update {
        add: vec![(path(p), v)],
        ..Update::default()
    }
}
fn deletes(p: &str, v: AttributeValue) -> Update {
    Update {
        delete: vec![(path(p), v)],
        ..Update::default()
    }
}
