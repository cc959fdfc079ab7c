include!("common/shop.rs");

#[derive(dyno_core::Projection)]
#[dyno(entity = Order)]
struct OrderSummary {
    order_id: String,
    total: String,
}

fn main() {}
