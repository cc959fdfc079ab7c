//! The derive macros' behaviour in a user's model: generated items, attributes, ownership of
//! shared keys and indexes, hygiene. One test binary; each module was its own binary before
//! (test names keep the module as their prefix, e.g. `derive_features::`).

mod derive_collection_props;
mod derive_collections;
mod derive_defaults;
mod derive_ecommerce;
mod derive_features;
mod derive_hygiene;
mod derive_items;
mod derive_ownership;
mod model;
