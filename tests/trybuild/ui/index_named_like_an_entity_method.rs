// An index named `Get` would generate `Order::get(..)`, hiding `EntityExt::get`.
use dyno_core::{Entity, Table};

#[derive(Table)]
#[dyno(name = "Shop", pk = "PK", sk = "SK")]
#[dyno(index(name = "Get", pk = "GETPK", sk = "GETSK"))]
struct Shop;

#[derive(Entity)]
#[dyno(table = Shop, pk = "ORDER#{id}", sk = "ORDER")]
#[dyno(index(Get, pk = "ALL", sk = "{id}"))]
struct Order {
    id: String,
}

fn main() {}
