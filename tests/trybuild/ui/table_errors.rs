use dyno_core::Table;

#[derive(Table)]
#[dyno(pk = "PK", sk = "SK")]
struct NoName;

#[derive(Table)]
#[dyno(name = "Shop", pk = "PK", sk = "SK")]
#[dyno(index(name = "LSI1", local, pk = "PK2", sk = "LSI1SK"))]
#[dyno(index(name = "GSI1", sk = "GSI1SK"))]
#[dyno(index(name = "GSI1", pk = "X", sk = "Y", keys_only, include("a")))]
#[dyno(index(name = "by-day", pk = "DAYPK"))]
#[dyno(index(name = "ByDay", pk = "DAYPK2"))]
struct Shop;

fn main() {}
