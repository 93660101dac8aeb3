//! wasm-bindgen bindings of the elasticjob core (to be written).
