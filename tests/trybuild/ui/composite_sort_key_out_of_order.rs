include!("common/shop.rs");

fn main() {
    let _ = Order::query("u1").order_id().eq("o1");
}
