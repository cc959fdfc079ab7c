include!("common/shop.rs");

fn main() {
    // GSI2's partition is REGION#{region}#{warehouse}; the table's sort key is
    // ORDER#{order_date}#{order_id}: `order_id` comes after `order_date`.
    let _ = Order::query("u1").order_id().between("a", "b");
}
