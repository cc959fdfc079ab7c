use dyno_core::{Entity, Table};

#[derive(Table)]
#[dyno(name = "Shop", pk = "PK", sk = "SK")]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
struct Shop;

#[derive(Entity)]
#[dyno(table = Shop, pk = "USER#{user_id}", sk = "{day}{seq}")]
struct Event {
    user_id: String,
    day: String,
    seq: u32,
}

fn main() {}