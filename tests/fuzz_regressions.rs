//! The fuzz targets' checks (fuzz/src/, included here) on every checked-in seed
//! (`fuzz/seeds/<target>/`) and every input a fuzzer once crashed on (`fuzz/regressions/<target>/`,
//! each named after what it found), under `cargo test`: what the fuzzer found stays fixed without
//! running the fuzzer. `make fuzz` runs the fuzzer itself.
// A test crate: the checks assert, as the tests do.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

#[path = "../fuzz/src/lib.rs"]
#[allow(dead_code)]
mod fuzz;

use std::path::Path;

/// Runs each target's check on each file of `dir/<target>/`; returns how many ran.
fn replay(dir: &str) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz").join(dir);
    let mut ran = 0;
    for (target, check) in fuzz::TARGETS {
        let Ok(entries) = std::fs::read_dir(root.join(target)) else { continue };
        let mut files: Vec<_> = entries.map(|e| e.unwrap().path()).collect();
        files.sort();
        for file in files {
            let data = std::fs::read(&file).unwrap();
            let outcome = std::panic::catch_unwind(|| check(&data));
            assert!(outcome.is_ok(), "fuzz target {target} fails on {}", file.display());
            ran += 1;
        }
    }
    ran
}

#[test]
fn every_seed_passes_the_checks() {
    assert!(replay("seeds") >= fuzz::TARGETS.len(), "each target has seeds");
}

#[test]
fn every_crash_found_stays_fixed() {
    replay("regressions");
}
