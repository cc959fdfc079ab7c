use dyno_core::{Entity, Table};

#[derive(Table)]
#[dyno(name = "Shop", pk = "PK", sk = "SK")]
struct Shop;

#[derive(Entity)]
#[dyno(table = Shop, pk = "USER#{user_id}", sk = "PROFILE")]
struct User {
    user_id: String,
    #[dyno(default = "viewer")]
    role: String,
}

fn main() {}
