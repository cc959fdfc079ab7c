#![warn(missing_docs, unreachable_pub)]
#![doc = include_str!("../README.md")]

mod builder;
mod clock;
mod flight;
mod follower;
#[cfg(any(doc, doctest))]
#[doc = include_str!("guide.md")]
pub mod guide {}
mod key;
mod metrics;
mod schema;
mod store;
mod stripes;
mod typed;

pub use crate::builder::CachedStoreBuilder;
pub use crate::clock::{Clock, ManualClock, SystemClock};
pub use crate::follower::{Follower, FollowerMetrics, FollowerOptions, OnApplied};
pub use crate::metrics::{CacheMetrics, Evictions, TierMetrics};
pub use crate::schema::Image;
pub use crate::store::{CachedStore, WithTtl};
