include!("common/shop.rs");

fn main() {
    let _ = Order::update(Order::key("u1", "2024-01-01", "o1")).append_name("x");
}
