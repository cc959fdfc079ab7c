// A sort-key field named `lenient`: its accessor would hide the query method `lenient()`.
use dyno_core::{Entity, Table};

#[derive(Table)]
#[dyno(name = "Shop", pk = "PK", sk = "SK")]
struct Shop;

#[derive(Entity)]
#[dyno(table = Shop, pk = "PAGE#{page_id}", sk = "MODE#{lenient}")]
struct Page {
    page_id: String,
    lenient: bool,
}

fn main() {}
