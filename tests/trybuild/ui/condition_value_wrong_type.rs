include!("common/shop.rs");

fn main() {
    let _ = Order::STATUS.eq("SHIPPED");
}
