//! The bodies of the fuzz targets, one module each, and what they share. Each target reads its
//! input from libFuzzer's bytes (with `arbitrary` where the input has a structure) and checks the
//! invariants with `assert!`: a failed one is a crash, as a panic is.
//!
//! The fuzz targets in `fuzz_targets/` call these; `tests/fuzz_regressions.rs` of the core includes
//! this file and replays every seed (`fuzz/seeds/<target>/`) and every crash found
//! (`fuzz/regressions/<target>/`) through the same checks under `cargo test`.

pub mod check;
pub mod job;
pub mod json;
pub mod policy;
pub mod reader;
pub mod reconcile;
pub mod tf_config;

/// A target's body: checks one input.
pub type Target = fn(&[u8]);

/// The targets by name, as `fuzz/seeds/` and `fuzz/regressions/` name their folders.
pub const TARGETS: [(&str, Target); 5] = [
    ("job", job::run),
    ("reconcile", reconcile::run),
    ("tf_config", tf_config::run),
    ("policy", |data| {
        policy::run(data);
    }),
    ("reader", reader::run),
];
