//! The reliability tests: bounded waits, faults over the wire, bad inputs, arithmetic
//! bounds, key agreement, lenient reads, soaks. One test binary; each module was its own binary
//! before (test names keep the module as their prefix, e.g. `reliability_inputs::`, as
//! docs/bad-inputs.md names them).

mod reliability;
mod reliability_arith;
mod reliability_idempotent;
mod reliability_inputs;
mod reliability_keys;
mod reliability_lenient;
mod reliability_soak;
mod reliability_wire;
