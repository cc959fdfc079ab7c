use dyno_core::{Entity, Table};

#[derive(Table)]
#[dyno(name = "Shop", pk = "PK", sk = "SK")]
struct Shop;

fn three() -> String {
    "3".to_owned()
}

#[derive(Entity)]
#[dyno(table = Shop, pk = "USER#{user_id}", sk = "PROFILE")]
struct User {
    user_id: String,
    #[dyno(default = three)]
    priority: u8,
}

fn main() {}
