include!("common/shop.rs");

fn main() {
    let _ = Order::query("u1").order_date().ge("2024-01-01").order_id().eq("o1");
}
