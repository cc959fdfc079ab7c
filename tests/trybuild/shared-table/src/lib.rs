//! Tables kept in a crate of their own, as users share one table between the crates of their
//! entities: `tests/table_in_another_crate.rs` of dyno-ui-tests declares entities on them
//! (issue 10, item 3).

#![deny(missing_docs, unreachable_pub)]

use dyno_core::Table;

/// Tables in a module, re-exported at the root.
pub mod tables {
    use super::Table;

    /// The shared table, with two GSIs.
    #[derive(Debug, Table)]
    #[dyno(name = "Shared", pk = "PK", sk = "SK")]
    #[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
    #[dyno(index(name = "GSI2", pk = "GSI2PK", sk = "GSI2SK"))]
    pub struct Shared;
}

pub use tables::Shared;

/// A table at the crate root, with one GSI.
#[derive(Debug, Table)]
#[dyno(name = "Root", pk = "PK", sk = "SK")]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
pub struct RootTable;

/// An entity of the shared table in its own crate: the table's macro also works where it is
/// declared, through the module path and the re-export.
#[derive(Debug, Clone, PartialEq, dyno_core::Entity)]
#[dyno(table = crate::tables::Shared, pk = "TEAM#{team}", sk = "TEAM")]
#[dyno(index(GSI2, pk = "TEAMS", sk = "{team}"))]
pub struct Team {
    /// The team's name.
    pub team: String,
}
