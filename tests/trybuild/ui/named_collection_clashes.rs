// A collection's query named like a method every collection has, and one not an identifier.
use dyno_core::{Collection, Entity, Table};

#[derive(Table)]
#[dyno(name = "Shop", pk = "PK", sk = "SK")]
struct Shop;

#[derive(Entity)]
#[dyno(table = Shop, pk = "USER#{user_id}", sk = "PROFILE")]
struct User {
    user_id: String,
}

#[derive(Entity)]
#[dyno(table = Shop, pk = "USER#{user_id}", sk = "ORDER#{order_id}")]
struct Order {
    user_id: String,
    order_id: String,
}

#[derive(Collection)]
#[dyno(query = "from_item")]
enum UserItem {
    User(User),
    Order(Order),
}

#[derive(Collection)]
#[dyno(query = "user orders")]
enum UserOrders {
    User(User),
    Order(Order),
}

fn main() {}
