include!("common/shop.rs");

fn main() {
    let _ = Order::update(Order::key("u1", "2024-01-01", "o1")).add_total(1u64).set_if_absent_status(Status::Pending);
}
