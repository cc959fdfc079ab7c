use dyno_core::{Entity, Table};

#[derive(Table)]
#[dyno(name = "Shop", pk = "PK", sk = "SK")]
struct Shop;

#[derive(Entity)]
#[dyno(table = Shop, pk = "USER#{user_id}", sk = "COMMENT#{id}")]
struct Comment {
    user_id: String,
    #[dyno(generated)]
    id: String,
}

fn main() {}
