// A set of an enum that does not derive `KeyPart`: the message names the derive.
use std::collections::BTreeSet;

use dyno_core::{Entity, Table};

#[derive(Table)]
#[dyno(name = "Shop", pk = "PK", sk = "SK")]
struct Shop;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Label {
    Bug,
    Feature,
}

#[derive(Debug, Entity)]
#[dyno(table = Shop, pk = "ISSUE#{id}", sk = "ISSUE")]
struct Issue {
    id: String,
    labels: BTreeSet<Label>,
}

fn main() {}
