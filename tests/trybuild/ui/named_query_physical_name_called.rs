// Once the query on GSI1 is named, `Order::gsi1(..)` is an error naming the query.
use dyno_core::{Entity, Table};

#[derive(Table)]
#[dyno(name = "Shop", pk = "PK", sk = "SK")]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
struct Shop;

#[derive(Entity)]
#[dyno(table = Shop, pk = "USER#{user_id}", sk = "ORDER#{order_id}")]
#[dyno(index(GSI1, pk = "STATUS#{status}", sk = "{order_id}", query = "by_status"))]
struct Order {
    user_id: String,
    order_id: String,
    status: String,
}

fn main() {
    let _ = Order::gsi1("SHIPPED");
}
