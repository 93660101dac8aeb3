//! Size and speed of the built policy (`make bench-policy`): the .wasm raw and gzipped
//! (`gzip -9`), then in a waPC host like Kubewarden's (wasmtime through `wasmtime-provider` and
//! `wapc`): module compile time, instantiation time, and `validate` over 1,000 calls for the
//! upstream sample job and for a job with all 5 replica types and every setting on. Figures are
//! printed, never asserted; the native build's `validate` is printed alongside for comparison.
//! With `BENCH_JSON=FILE` (as `make bench` sets it) the figures are also written to FILE.
// A benchmark crate: its helpers outside #[test] functions may unwrap, as the tests do
// (the workspace lints deny it in shipped code; clippy.toml allows it in #[test] functions).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

#[path = "../../bindings/policy/tests/common/mod.rs"]
mod common;
#[path = "../../bindings/policy/tests/common/host.rs"]
mod host;

use std::process::Command;
use std::time::{Duration, Instant};

const CALLS: usize = 1_000;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let last = sorted.len().saturating_sub(1);
    let index = ((last as f64) * p).round() as usize;
    sorted[index.min(last)]
}

fn micros(d: Duration) -> String {
    format!("{:.1} µs", d.as_secs_f64() * 1e6)
}

fn millis(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

/// `gzip -9 -c FILE | wc -c`, without a shell.
fn gzip9_size(path: &std::path::Path) -> usize {
    let out = Command::new("gzip").args(["-9", "-c"]).arg(path).output().expect("gzip");
    assert!(out.status.success(), "gzip -9 failed: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout.len()
}

/// Times `f` `n` times; returns the sorted durations.
fn times(n: usize, mut f: impl FnMut()) -> Vec<Duration> {
    let mut all: Vec<Duration> = (0..n)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    all.sort();
    all
}

fn main() {
    // `cargo bench` passes `--bench`; there is nothing to filter.
    let path = common::wasm_path();
    let bytes = common::wasm_bytes();
    println!("policy: {}", path.display());
    let gzip = gzip9_size(&path);
    println!("size:                 {} bytes raw, {gzip} bytes gzip -9", bytes.len());

    // Compile: a new engine each time, as a policy-server starting up.
    let compiles = times(5, || {
        std::hint::black_box(host::compile(&bytes));
    });
    println!(
        "module compile:       median {} (min {}, max {}) over {} compiles (Cranelift)",
        millis(percentile(&compiles, 0.5)),
        millis(compiles[0]),
        millis(compiles[compiles.len() - 1]),
        compiles.len()
    );
    let (engine, module) = host::compile(&bytes);
    let pre = host::pre(&engine, &module);

    // Instantiate: a new store and instance from the linked module, then `wapc_init`.
    let instances = times(CALLS, || {
        drop(std::hint::black_box(host::instance(&pre)));
    });
    println!(
        "instantiation:        median {}, p99 {} over {CALLS} (store + instance + wapc_init)",
        micros(percentile(&instances, 0.5)),
        micros(percentile(&instances, 0.99))
    );

    let instance = host::instance(&pre);
    let mut validated = Vec::new();
    for (label, case) in [
        ("upstream sample job", "accept-upstream-sample-job"),
        ("5 replica types, every setting on", "accept-five-replica-types"),
    ] {
        let case = common::validate_case(case);
        // The answer is checked once, so the figures are for the right work.
        case.check(&host::call(&instance, "validate", &case.payload), false);
        // Warm up, then measure.
        for _ in 0..50 {
            std::hint::black_box(host::call(&instance, "validate", &case.payload));
        }
        let wasm = times(CALLS, || {
            std::hint::black_box(host::call(&instance, "validate", &case.payload));
        });
        let native = times(CALLS, || {
            std::hint::black_box(elasticjob_policy::validate(&case.payload).unwrap());
        });
        println!(
            "validate, {label} ({} byte payload): median {}, p99 {} over {CALLS} calls in the host (native build: median {}, p99 {})",
            case.payload.len(),
            micros(percentile(&wasm, 0.5)),
            micros(percentile(&wasm, 0.99)),
            micros(percentile(&native, 0.5)),
            micros(percentile(&native, 0.99))
        );
        let us = |d: Duration| d.as_secs_f64() * 1e6;
        validated.push(serde_json::json!({"label": label, "payloadBytes": case.payload.len(), "calls": CALLS,
            "medianUs": us(percentile(&wasm, 0.5)), "p99Us": us(percentile(&wasm, 0.99)),
            "nativeMedianUs": us(percentile(&native, 0.5))}));
    }
    if let Ok(out) = std::env::var("BENCH_JSON") {
        let figures = serde_json::json!({"rawBytes": bytes.len(), "gzipBytes": gzip,
            "compileMs": percentile(&compiles, 0.5).as_secs_f64() * 1e3,
            "instantiateUs": percentile(&instances, 0.5).as_secs_f64() * 1e6, "validate": validated});
        std::fs::write(out, serde_json::to_string_pretty(&figures).unwrap()).unwrap();
    }
}
