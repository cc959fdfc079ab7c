include!("common/shop.rs");

#[derive(dyno_core::Projection)]
#[dyno(entity = Order)]
struct OrderSummary {
    order_id: String,
    totl: u64,
}

fn main() {}
