/work/wt-fidelity/tests/engine-bench/target/release/deps/pin_project_lite-70fc3157c5b5f266.d: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pin-project-lite-0.2.18/src/lib.rs

/work/wt-fidelity/tests/engine-bench/target/release/deps/libpin_project_lite-70fc3157c5b5f266.rlib: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pin-project-lite-0.2.18/src/lib.rs

/work/wt-fidelity/tests/engine-bench/target/release/deps/libpin_project_lite-70fc3157c5b5f266.rmeta: /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pin-project-lite-0.2.18/src/lib.rs

/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/pin-project-lite-0.2.18/src/lib.rs:
