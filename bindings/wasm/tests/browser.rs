//! The bindings in headless Chromium: `cargo test -p elasticjob-wasm --target wasm32-unknown-unknown
//! --test browser` with `wasm-bindgen-test-runner` as the runner, `CHROMEDRIVER` set and
//! `webdriver.json` (read from this crate's folder) naming the browser (`make test-npm` does this).
#![cfg(all(target_arch = "wasm32", target_os = "unknown"))]

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod api;
