include!("common/shop.rs");

fn main() {
    let _ = Order::order_id_eq("o1");
}
