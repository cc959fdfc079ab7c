// `Entity::upsert(key, ..)` takes every field a created item needs: leaving one out (here
// `warehouse`, `total` and `name`) does not compile.
include!("common/shop.rs");

fn main() {
    let _ = Order::upsert(Order::key("u1", "2024-01-01", "o1"), Status::Pending, "eu");
}
