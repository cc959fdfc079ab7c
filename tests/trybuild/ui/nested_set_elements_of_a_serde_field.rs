use std::collections::BTreeSet;

use dyno_core::prelude::*;
use dyno_core::{Entity, Table};

#[derive(Table)]
#[dyno(name = "T", pk = "PK", sk = "SK")]
struct T;

#[derive(Debug, Entity)]
#[dyno(table = T, pk = "A#{id}", sk = "A")]
struct A {
    id: String,
    /// Stored through serde_dynamo, which writes a set as a list.
    #[dyno(serde)]
    tags: BTreeSet<String>,
}

fn main() {
    // ADD of set elements does not apply to a list: refused at compile time.
    let _ = A::update(A::key("x")).at(A::TAGS).add_elements(["rust"]);
}
