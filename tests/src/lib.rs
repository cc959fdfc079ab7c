//! Shared test harness: backends, fault injection, e-commerce fixtures.

pub mod backend;
pub mod cached;
pub mod ecommerce;
pub mod fault;
pub mod hand;
pub mod model;
pub mod proxy;
