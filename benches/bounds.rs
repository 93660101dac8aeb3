//! The time and peak memory of each resource-bound case of tests/bounds/cases.rs (the tests assert
//! their answers; this prints what they cost). Each case runs in a process of its own, `RUNS`
//! times: the input is built first (not timed), the process's peak resident memory is reset
//! (`/proc/self/clear_refs`), then the entry point runs. Printed: the median time, the largest peak
//! resident memory during the run and the memory the process held before it (mostly the input).
//!
//! `cargo bench --bench bounds` (part of `make bench`); with `BENCH_JSON=FILE` the figures are also
//! written to FILE.
// A benchmark crate: its helpers may unwrap, as the tests do.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

#[path = "../tests/bounds/cases.rs"]
#[allow(dead_code)]
mod cases;

use std::process::Command;
use std::time::Instant;

use serde_json::{Value, json};

const RUNS: usize = 3;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(name) = args.iter().position(|a| a == "--case").and_then(|i| args.get(i + 1)) {
        return child(name);
    }
    let exe = std::env::current_exe().unwrap();
    let mut rows = Vec::new();
    println!("{:<24} {:>10} {:>10} {:>10}  answer", "case", "time", "peak", "before");
    for case in cases::all() {
        let mut runs: Vec<Value> = (0..RUNS)
            .map(|_| {
                let out = Command::new(&exe).args(["--case", case.name]).output().unwrap();
                assert!(out.status.success(), "{}: {}", case.name, String::from_utf8_lossy(&out.stderr));
                serde_json::from_slice(&out.stdout).unwrap()
            })
            .collect();
        runs.sort_by(|a, b| a["ms"].as_f64().unwrap().total_cmp(&b["ms"].as_f64().unwrap()));
        let median = runs[RUNS / 2].clone();
        let peak = runs.iter().filter_map(|r| r["peakMiB"].as_f64()).fold(0.0, f64::max);
        println!(
            "{:<24} {:>7.1} ms {:>6.1} MiB {:>6.1} MiB  {}",
            case.name,
            median["ms"].as_f64().unwrap(),
            peak,
            median["beforeMiB"].as_f64().unwrap(),
            median["answer"].as_str().unwrap()
        );
        rows.push(json!({"name": case.name, "input": case.input, "ms": median["ms"], "peakMiB": peak,
            "beforeMiB": median["beforeMiB"], "answer": median["answer"]}));
    }
    println!(
        "time: median of {RUNS} processes; peak: the largest resident memory during the run; before: what the process held before it (the input, mostly)"
    );
    if let Ok(path) = std::env::var("BENCH_JSON") {
        std::fs::write(&path, serde_json::to_string_pretty(&json!({"runs": RUNS, "cases": rows})).unwrap()).unwrap();
    }
}

/// Runs one case and prints its figures as one JSON line.
fn child(name: &str) {
    let run = (cases::find(name).prepare)();
    let before = status_kib("VmRSS");
    // Resets the peak resident memory (VmHWM) to the current one (Linux 4.0 and later).
    let reset = std::fs::write("/proc/self/clear_refs", "5").is_ok();
    let start = Instant::now();
    let (answer, left) = run();
    let ms = start.elapsed().as_secs_f64() * 1e3;
    let peak = if reset { status_kib("VmHWM") } else { None };
    drop(left);
    let mib = |kib: Option<f64>| kib.map(|k| k / 1024.0);
    println!("{}", json!({"ms": ms, "peakMiB": mib(peak), "beforeMiB": mib(before), "answer": answer.summary()}));
}

/// A field of /proc/self/status, in KiB.
fn status_kib(field: &str) -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
