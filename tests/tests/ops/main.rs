//! Typed and untyped operations on every backend: CRUD, queries, the batch engine, DynamoStore
//! over the SDK, multi-attribute index keys, typed nested updates and conditions. One test
//! binary; each module was its own binary before (test names keep the module as their prefix,
//! e.g. `ops_crud::`).

mod batch;
mod dynamo_store;
mod forge;
mod key_groups;
mod multi_attribute_keys;
mod named_queries;
mod nested_updates;
mod ops_crud;
mod ops_query;
mod partition_limits;
mod stamps_and_returns;
mod upserts;
