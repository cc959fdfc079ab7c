// The model the update, query and projection cases share (included by each case, not a case
// itself): the Shop table with two GSIs, a KeyPart enum, an Order with a composite sort key and
// index keys, and a Product.

#[allow(unused_imports)]
use dyno_core::prelude::*;
use dyno_core::{Entity, KeyPart, Table};

#[derive(Table)]
#[dyno(name = "Shop", pk = "PK", sk = "SK")]
#[dyno(index(name = "GSI1", pk = "GSI1PK", sk = "GSI1SK"))]
#[dyno(index(name = "GSI2", pk = "GSI2PK", sk = "GSI2SK"))]
struct Shop;

#[derive(Debug, Clone, Copy, PartialEq, KeyPart)]
enum Status {
    Pending,
    Shipped,
}

#[derive(Debug, Entity)]
#[dyno(table = Shop, pk = "USER#{user_id}", sk = "ORDER#{order_date}#{order_id}")]
#[dyno(index(GSI1, pk = "STATUS#{status}", sk = "{order_date}"))]
#[dyno(index(GSI2, pk = "REGION#{region}#{warehouse}", sk = "{order_id}"))]
struct Order {
    user_id: String,
    order_id: String,
    order_date: String,
    status: Status,
    region: String,
    warehouse: String,
    total: u64,
    name: String,
    tags: Vec<String>,
    note: Option<String>,
}

#[derive(Debug, Entity)]
#[dyno(table = Shop, pk = "PRODUCT#{product_id}", sk = "PRODUCT")]
struct Product {
    product_id: String,
    stock: u32,
}
