use dyno_core::Table;

#[derive(Table)]
#[dyno(name = "T", pk = "PK", sk = "SK")]
// A type other than S, N, B.
#[dyno(index(name = "A", pk = ["tenant:X"]))]
// Five partition attributes.
#[dyno(index(name = "B", pk = ["a", "b", "c", "d", "e"]))]
// An attribute twice in one key.
#[dyno(index(name = "C", pk = ["tenant", "tenant"]))]
// `PK` is the table's partition key, a string.
#[dyno(index(name = "E", pk = ["PK:N"]))]
// A local index cannot have a multi-attribute key.
#[dyno(index(name = "D", local, sk = ["x", "y"]))]
struct T;

fn main() {}
