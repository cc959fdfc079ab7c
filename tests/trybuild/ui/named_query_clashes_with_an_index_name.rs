// A query named like another index's query (`gsi2`), and one named like an entity method.
use dyno_core::{Entity, Table};

#[derive(Table)]
#[dyno(name = "Shop", pk = "PK", sk = "SK")]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
#[dyno(index(name = "GSI2", pk = "GSI2PK", sk = "GSI2SK"))]
#[dyno(index(name = "GSI3", pk = "GSI3PK", sk = "GSI3SK"))]
struct Shop;

#[derive(Entity)]
#[dyno(table = Shop, pk = "USER#{user_id}", sk = "ORDER#{order_id}")]
#[dyno(index(GSI1, pk = "STATUS#{status}", sk = "{order_id}", query = "gsi2"))]
#[dyno(index(GSI2, pk = "STATE#{status}", sk = "{order_id}"))]
#[dyno(index(GSI3, pk = "ALL", sk = "{order_id}", query = "get"))]
struct Order {
    user_id: String,
    order_id: String,
    status: String,
}

fn main() {}
