include!("common/shop.rs");

fn main() {
    let _ = Order::query("u1").filter(Product::STOCK.gt(1u32));
}
