//! MemoryStore's fidelity to DynamoDB: the conformance scenarios on every backend, the
//! differential run against dynoxide, the reference model and UpdateTable. One test binary; each
//! module was its own binary before (test names keep the module as their prefix, e.g.
//! `conformance::`).

mod conformance;
mod differential;
mod memory_model;
mod metering;
mod transaction_capacity;
mod update_table;
