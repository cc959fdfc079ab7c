// A table with a multi-attribute index, for the ui cases of typed multi-attribute keys.
use dyno_core::{Entity, KeyPart, Table};

#[derive(Table)]
#[dyno(name = "Tracker", pk = "PK", sk = "SK")]
#[dyno(index(name = "ByStatus", pk = ["tenant", "status"], sk = ["priority:N", "created"]))]
pub struct Tracker;

#[derive(Debug, Clone, Copy, PartialEq, KeyPart)]
pub enum Status {
    Open,
    Closed,
}
