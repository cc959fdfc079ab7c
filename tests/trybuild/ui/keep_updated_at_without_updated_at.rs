use dyno_core::{Entity, Table};

#[derive(Table)]
#[dyno(name = "Shop", pk = "PK", sk = "SK")]
struct Shop;

#[derive(Entity)]
#[dyno(table = Shop, pk = "USER#{user_id}", sk = "PROFILE")]
struct User {
    user_id: String,
    name: String,
}

fn main() {
    // `User` has no `#[dyno(updated_at)]` field: there is nothing to keep.
    let _ = User::update(User::key("u1"))
        .set_name("ann".to_owned())
        .keep_updated_at();
}
