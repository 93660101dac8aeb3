//! Renders an ElasticJob manifest (and an optional ScalePlan in the same or another file) the way
//! `make demo` shows it: a summary table, then every object as YAML for `kubectl apply -f -`.
//!
//! ```sh
//! cargo run --example render -- examples/elasticjob.yaml [examples/scaleplan.yaml]
//! ```

use std::process::ExitCode;

use elasticjob::{ElasticJob, Options, ScalePlan, parse, render, summary};
use serde::Deserialize;

fn main() -> ExitCode {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: render JOB.yaml [SCALEPLAN.yaml]");
        return ExitCode::from(2);
    }
    match run(&files) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::from(1)
        }
    }
}

fn run(files: &[String]) -> Result<(), String> {
    let mut job: Option<ElasticJob> = None;
    let mut plan: Option<ScalePlan> = None;
    for file in files {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
        for document in serde_yaml_ng::Deserializer::from_str(&text) {
            let value = serde_json::Value::deserialize(document).map_err(|e| format!("{file}: {e}"))?;
            let problems = |e: elasticjob::Error| {
                e.problems().iter().map(|p| format!("{file}: {p}")).collect::<Vec<_>>().join("\n")
            };
            match value.get("kind").and_then(|k| k.as_str()) {
                Some("ScalePlan") => plan = Some(parse::scale_plan(value).map_err(problems)?),
                _ => job = Some(parse::job(value).map_err(problems)?),
            }
        }
    }
    let job = job.ok_or("no ElasticJob in the input")?;
    let list = render(&job, plan.as_ref(), &Options::default()).map_err(|e| e.to_string())?;
    println!("{:<8} {:<44} {:<14} {:>4} {:>6} {:>8}  TF_CONFIG task", "KIND", "NAME", "TYPE", "RANK", "CPU", "MEMORY");
    for row in summary(&list) {
        let dash = || "-".to_owned();
        println!(
            "{:<8} {:<44} {:<14} {:>4} {:>6} {:>8}  {}",
            row.kind,
            row.name,
            row.replica_type.map_or_else(dash, |t| t.to_string()),
            row.rank.map_or_else(dash, |r| r.to_string()),
            row.cpu.unwrap_or_else(dash),
            row.memory.unwrap_or_else(dash),
            row.task.unwrap_or_else(dash),
        );
    }
    println!("---");
    print!("{}", serde_yaml_ng::to_string(&list).map_err(|e| e.to_string())?);
    Ok(())
}
