include!("common/shop.rs");

fn main() {
    let _ = Order::query("u1").order_id_eq("o1");
}
