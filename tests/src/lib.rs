//! Shared test harness: backends, fault injection, e-commerce fixtures.

pub mod cached;
pub mod fault;
pub mod model;
