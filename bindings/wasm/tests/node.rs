//! The bindings under Node: `cargo test -p elasticjob-wasm --target wasm32-unknown-unknown --test node`
//! with `wasm-bindgen-test-runner` as the runner (`make test-npm` sets it).
#![cfg(all(target_arch = "wasm32", target_os = "unknown"))]

mod api;
