//! Benchmarks of the core, printing figures (nothing is asserted):
//! - `render`: every object of a job with 1,000 workers, 50 PS, a chief and an evaluator;
//! - `serialize`: the same output only serialised with serde_json, the floor of the work;
//! - `reconcile`: one controller pass over a running job with 10,000 observed pods;
//! - `read_10k_pods`: reading those pods from JSON values (with paths and unknown fields), as a
//!   controller does before each pass.
//!
//! `cargo bench --bench core` (or `make bench`); the last lines print the ratio render/serialize.
// A benchmark crate: its helpers outside #[test] functions may unwrap, as the tests do
// (the workspace lints deny it in shipped code; clippy.toml allows it in #[test] functions).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::hint::black_box;
use std::time::Duration;

use criterion::Criterion;
use elasticjob::{ElasticJob, Options, parse, reconcile, render};
use k8s_openapi::api::core::v1::Pod;
use serde_json::json;

fn big_job() -> ElasticJob {
    let spec = |n: i32, cpu: &str, mem: &str| {
        json!({"replicas": n, "restartCount": 3, "template": {"spec": {"restartPolicy": "Never", "containers": [{
            "name": "main", "image": "registry.example.com/ads/deepctr:2.1",
            "command": ["python", "-m", "deepctr.train"],
            "resources": {"requests": {"cpu": cpu, "memory": mem}}
        }]}}})
    };
    parse::job(json!({
        "apiVersion": "elastic.iml.github.io/v1alpha1", "kind": "ElasticJob",
        "metadata": {"name": "deepctr", "namespace": "ads", "uid": "6f0c3a52-8e1d-4b8e-9d0a-2f1e7c9b5a11",
                     "labels": {"team": "ads"}},
        "spec": {
            "distributionStrategy": "ParameterServerStrategy",
            "replicaSpecs": {"ps": spec(50, "4", "16Gi"), "worker": spec(1000, "2", "4Gi"),
                             "chief": spec(1, "2", "4Gi"), "evaluator": spec(1, "2", "4Gi")}
        }
    }))
    .expect("the benchmark job is valid")
}

/// A running job's cluster: the master, every replica running, and relaunch history (failed
/// workers whose ranks run again) up to `total` pods.
fn observed(total: usize) -> (ElasticJob, Vec<Pod>) {
    let mut job = big_job();
    job.status =
        Some(serde_json::from_value(json!({"phase": "Running", "startTime": "2026-01-01T00:00:00Z"})).unwrap());
    let pod = |t: &str, id: usize, rank: usize, phase: &str| -> Pod {
        serde_json::from_value(json!({
            "metadata": {"name": format!("deepctr-edljob-{t}-{id}"), "namespace": "ads", "labels": {
                "app": "dlrover", "elasticjob.dlrover/name": "deepctr", "elasticjob.dlrover/replica-type": t,
                "elasticjob.dlrover/replica-index": id.to_string(), "elasticjob.dlrover/rank-index": rank.to_string(),
                "restart-count": "2"}},
            "spec": {"containers": [{"name": "main", "image": "registry.example.com/ads/deepctr:2.1",
                      "resources": {"requests": {"cpu": "2", "memory": "4Gi"}}}]},
            "status": {"phase": phase, "podIP": "10.0.0.1"}
        }))
        .unwrap()
    };
    let mut pods: Vec<Pod> = vec![serde_json::from_value(json!({
        "metadata": {"name": "elasticjob-deepctr-dlrover-master", "namespace": "ads", "labels": {
            "app": "dlrover", "elasticjob.dlrover/name": "deepctr", "elasticjob.dlrover/replica-type": "dlrover-master",
            "elasticjob.dlrover/replica-index": "0"}},
        "status": {"phase": "Running"}
    }))
    .unwrap()];
    pods.extend((0..50).map(|r| pod("ps", r, r, "Running")));
    pods.push(pod("chief", 0, 0, "Running"));
    pods.push(pod("evaluator", 0, 0, "Running"));
    pods.extend((0..1000).map(|r| pod("worker", r, r, "Running")));
    let mut id = 1000;
    while pods.len() < total {
        pods.push(pod("worker", id, id % 1000, "Failed"));
        id += 1;
    }
    (job, pods)
}

fn median_ns(name: &str) -> Option<f64> {
    let path = format!("{}/criterion/{name}/new/estimates.json", target_dir());
    let text = std::fs::read_to_string(path).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    v["median"]["point_estimate"].as_f64()
}

fn target_dir() -> String {
    std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/target").to_owned())
}

fn main() {
    let mut c = Criterion::default().measurement_time(Duration::from_secs(8)).configure_from_args();
    let job = big_job();
    let options = Options::default();
    let list = render(&job, None, &options).unwrap();
    let bytes = serde_json::to_vec(&list).unwrap().len();

    c.bench_function("render", |b| b.iter(|| render(black_box(&job), None, &options).unwrap()));
    c.bench_function("serialize", |b| b.iter(|| serde_json::to_vec(black_box(&list)).unwrap()));
    c.bench_function("render_and_serialize", |b| {
        b.iter(|| serde_json::to_vec(&render(black_box(&job), None, &options).unwrap()).unwrap())
    });
    let (running, pods) = observed(10_000);
    let now = parse::time("2026-01-01T01:00:00Z").unwrap();
    let first = reconcile(&running, None, &pods, &now, &options).unwrap();
    c.bench_function("reconcile_10k_pods", |b| {
        b.iter(|| reconcile(black_box(&running), None, black_box(&pods), &now, &options).unwrap())
    });
    let pods_json = serde_json::to_value(&pods).unwrap();
    c.bench_function("read_10k_pods", |b| {
        b.iter_batched(|| pods_json.clone(), |v| parse::pods(v).unwrap(), criterion::BatchSize::LargeInput)
    });
    c.final_summary();

    println!();
    println!("job: 1,000 workers, 50 PS, 1 chief, 1 evaluator -> {} objects, {bytes} bytes of JSON", list.items.len());
    println!("reconcile: {} observed pods -> {} actions", pods.len(), first.actions.len());
    let figures = ["render", "serialize", "render_and_serialize", "reconcile_10k_pods", "read_10k_pods"]
        .map(|n| (n, median_ns(n)));
    for (name, ns) in figures {
        if let Some(ns) = ns {
            println!("{name:<22} median {:>10.3} ms", ns / 1e6);
        }
    }
    if let (Some(r), Some(s)) = (median_ns("render"), median_ns("serialize")) {
        println!("ratio render/serialize: {:.2} (goal: at most 2)", r / s);
    }
}
