include!("common/shop.rs");

fn main() {
    let _ = Order::gsi1("SHIPPED");
}
