//! Generated code passes strict lints in the user's crate: every public item it adds has docs and
//! a `Debug` impl, and nothing it generates warns.
#![deny(
    warnings,
    missing_docs,
    missing_debug_implementations,
    unreachable_pub,
    unused_qualifications
)]

use dyno_core::ops::{QueryDsl, UpdateDsl};
use dyno_core::{Collection, Entity, KeyPart, Projection, Table};

/// The table.
#[derive(Debug, Table)]
#[dyno(name = "Lints", pk = "PK", sk = "SK", ttl = "ttl")]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
#[dyno(index(name = "LSI1", local, sk = "LSI1SK"))]
pub struct Lints;

/// A key part.
#[derive(Debug, Clone, Copy, PartialEq, KeyPart)]
pub enum Colour {
    /// Red.
    Red,
    /// Blue.
    Blue,
}

/// An entity using every feature.
#[derive(Debug, Clone, PartialEq, Entity)]
#[dyno(table = Lints, pk = "A#{a}", sk = "B#{b}#{c}")]
#[dyno(index(GSI1, pk = "COLOUR#{colour}#{shade}", sk = "{n}", shards = 2))]
#[dyno(index(LSI1, sk = "N#{n}"))]
pub struct Thing {
    /// a
    pub a: String,
    /// b
    pub b: u32,
    /// c
    pub c: String,
    /// colour
    pub colour: Option<Colour>,
    /// shade
    pub shade: u8,
    /// n
    pub n: i64,
    /// tags
    pub tags: Vec<String>,
    /// set
    pub set: std::collections::BTreeSet<String>,
    /// version
    #[dyno(version)]
    pub version: u64,
    /// ttl
    #[dyno(ttl)]
    pub ttl: Option<u64>,
}

/// A projection.
#[derive(Debug, Projection)]
#[dyno(entity = Thing)]
pub struct ThingName {
    /// a
    pub a: String,
}

/// A collection.
#[derive(Debug, Collection)]
pub enum AnyThing {
    /// The thing.
    Thing(Thing),
}

/// A grouped collection.
#[derive(Debug, Collection)]
pub struct Things {
    /// The things.
    pub things: Vec<Thing>,
}

#[test]
fn strict_lints_hold() {
    let q = Thing::query("x")
        .b()
        .eq(1u32)
        .c()
        .begins_with("y")
        .consistent()
        .into_query();
    assert!(q.is_ok());
    let u = Thing::update(Thing::key("x", 1u32, "y"))
        .set_colour_and_shade_and_n(Colour::Red, 1u8, 5i64)
        .add_to_set(
            ["z".to_owned()]
                .into_iter()
                .collect::<std::collections::BTreeSet<_>>(),
        );
    assert!(u.into_update().is_ok());
}
