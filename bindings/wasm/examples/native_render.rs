//! The native side of `make bench-npm`: reads a job (JSON) and prints, as one JSON line, the median
//! milliseconds of the core's `render`, of `render` plus `serde_json::to_string`, and of
//! `render_json` (the work the npm package's `render` and `renderJson` do before handing the text
//! to JavaScript: the same bytes as `render` plus `serde_json::to_string`).
//!
//! ```sh
//! cargo run --release -p elasticjob-wasm --example native_render -- job.json
//! ```

use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use elasticjob::{Options, parse, render, render_json};

const RUNS: usize = 30;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: native_render JOB.json");
        return ExitCode::from(2);
    };
    let job = match std::fs::read_to_string(&path)
        .map_err(|e| e.to_string())
        .and_then(|text| serde_json::from_str(&text).map_err(|e| e.to_string()))
        .and_then(|value| parse::job(value).map_err(|e| e.to_string()))
    {
        Ok(job) => job,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let options = Options::default();
    let Ok(list) = render(&job, None, &options) else {
        eprintln!("{path}: the job does not render");
        return ExitCode::FAILURE;
    };
    let bytes = serde_json::to_string(&list).map(|s| s.len()).unwrap_or_default();
    let render_ms = median_ms(|| drop(black_box(render(black_box(&job), None, &options))));
    let both_ms = median_ms(|| {
        let list = render(black_box(&job), None, &options);
        drop(black_box(list.map(|l| serde_json::to_string(&l))));
    });
    let json_ms = median_ms(|| drop(black_box(render_json(black_box(&job), None, &options, false))));
    println!(
        r#"{{"objects":{},"bytes":{bytes},"renderMs":{render_ms:.3},"renderAndSerializeMs":{both_ms:.3},"renderJsonMs":{json_ms:.3}}}"#,
        list.items.len()
    );
    ExitCode::SUCCESS
}

/// The median wall time of `RUNS` runs after one warm-up run.
fn median_ms(mut f: impl FnMut()) -> f64 {
    f();
    let mut times: Vec<f64> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times.get(RUNS / 2).copied().unwrap_or_default()
}
