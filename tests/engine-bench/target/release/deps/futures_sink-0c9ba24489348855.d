/work/wt-fidelity/tests/engine-bench/target/release/deps/futures_sink-0c9ba24489348855.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/futures-sink-0.3.34/src/lib.rs

/work/wt-fidelity/tests/engine-bench/target/release/deps/libfutures_sink-0c9ba24489348855.rlib: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/futures-sink-0.3.34/src/lib.rs

/work/wt-fidelity/tests/engine-bench/target/release/deps/libfutures_sink-0c9ba24489348855.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/futures-sink-0.3.34/src/lib.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/futures-sink-0.3.34/src/lib.rs:
