// A sort-key field named like a query method (`count`): its accessor would hide `count()`.
use dyno_core::{Entity, Table};

#[derive(Table)]
#[dyno(name = "Shop", pk = "PK", sk = "SK")]
struct Shop;

#[derive(Entity)]
#[dyno(table = Shop, pk = "PAGE#{page_id}", sk = "COUNT#{count}")]
struct Tally {
    page_id: String,
    count: u32,
}

fn main() {}
