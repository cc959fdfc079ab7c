include!("common/shop.rs");

fn main() {
    let _ = Order::key(42u32, "2024-01-01", "o1");
}
