include!("common/shop.rs");

fn main() {
    let _ = Order::query("u1").order_date_ge("2024-01-01").order_id_eq("o1");
}
