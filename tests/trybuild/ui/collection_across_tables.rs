use dyno_core::{Collection, Entity, Table};

#[derive(Table)]
#[dyno(name = "Shop", pk = "PK", sk = "SK")]
struct Shop;

#[derive(Table)]
#[dyno(name = "Audit", pk = "PK", sk = "SK")]
struct Audit;

#[derive(Debug, Entity)]
#[dyno(table = Shop, pk = "USER#{user_id}", sk = "PROFILE")]
struct User {
    user_id: String,
}

#[derive(Debug, Entity)]
#[dyno(table = Audit, pk = "USER#{user_id}", sk = "EVENT#{seq}")]
struct Event {
    user_id: String,
    seq: u64,
}

#[derive(Debug, Collection)]
enum UserItem {
    User(User),
    Event(Event),
}

fn main() {}
