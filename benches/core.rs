//! Benchmarks of the core, printing figures (nothing is asserted):
//! - `render`: every object of a job with 1,000 workers, 50 PS, a chief and an evaluator;
//! - `serialize`: the same output only serialised with serde_json, the floor of the work;
//! - `reconcile/N`: one controller pass over a running job of N pods (10 to 10,000), all running;
//! - `render_workers/N`: render of the job with N workers (10, 100, 1,000), 50 PS, a chief and an
//!   evaluator: the scaling curves;
//! - `read_10k_pods`: reading 10,000 pods from JSON values (with paths and unknown fields), as a
//!   controller does before each pass.
//!
//! `cargo bench --bench core` (part of `make bench`); the last lines print the ratio
//! render/serialize and the curves. With `BENCH_JSON=FILE` the figures are also written to FILE.
// A benchmark crate: its helpers outside #[test] functions may unwrap, as the tests do
// (the workspace lints deny it in shipped code; clippy.toml allows it in #[test] functions).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion};
use elasticjob::podspec::Pod;
use elasticjob::{ElasticJob, Options, parse, reconcile, render};
use serde_json::json;

fn big_job() -> ElasticJob {
    job_with(1000, 50)
}

/// The benchmark job with `workers` workers and `ps` PS, a chief and an evaluator.
fn job_with(workers: i32, ps: i32) -> ElasticJob {
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
            "replicaSpecs": {"ps": spec(ps, "4", "16Gi"), "worker": spec(workers, "2", "4Gi"),
                             "chief": spec(1, "2", "4Gi"), "evaluator": spec(1, "2", "4Gi")}
        }
    }))
    .expect("the benchmark job is valid")
}

/// A running job of `total` pods, all running: the master, a chief, an evaluator, one PS for each 20
/// pods and workers for the rest.
fn observed(total: usize) -> (ElasticJob, Vec<Pod>) {
    let ps = (total / 20).max(1);
    let workers = total - ps - 3;
    let mut job = job_with(workers as i32, ps as i32);
    job.status =
        Some(serde_json::from_value(json!({"phase": "Running", "startTime": "2026-01-01T00:00:00Z"})).unwrap());
    let pod = |t: &str, id: usize| -> Pod {
        serde_json::from_value(json!({
            "metadata": {"name": format!("deepctr-edljob-{t}-{id}"), "namespace": "ads", "labels": {
                "app": "dlrover", "elasticjob.dlrover/name": "deepctr", "elasticjob.dlrover/replica-type": t,
                "elasticjob.dlrover/replica-index": id.to_string(), "elasticjob.dlrover/rank-index": id.to_string(),
                "restart-count": "2"}},
            "spec": {"containers": [{"name": "main", "image": "registry.example.com/ads/deepctr:2.1",
                      "resources": {"requests": {"cpu": "2", "memory": "4Gi"}}}]},
            "status": {"phase": "Running", "podIP": "10.0.0.1"}
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
    pods.extend((0..ps).map(|r| pod("ps", r)));
    pods.push(pod("chief", 0));
    pods.push(pod("evaluator", 0));
    pods.extend((0..workers).map(|r| pod("worker", r)));
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

const PODS: [usize; 4] = [10, 100, 1_000, 10_000];
const WORKERS: [i32; 3] = [10, 100, 1_000];

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
    let now = parse::time("2026-01-01T01:00:00Z").unwrap();
    let mut reconcile_curve = Vec::new();
    let mut group = c.benchmark_group("reconcile");
    for total in PODS {
        let (running, pods) = observed(total);
        let actions = reconcile(&running, None, &pods, &now, &options).unwrap().actions().count();
        group.bench_with_input(BenchmarkId::from_parameter(total), &total, |b, _| {
            b.iter(|| reconcile(black_box(&running), None, black_box(&pods), &now, &options).unwrap())
        });
        reconcile_curve.push((total, actions));
    }
    group.finish();
    let mut render_curve = Vec::new();
    let mut group = c.benchmark_group("render_workers");
    for workers in WORKERS {
        let job = job_with(workers, 50);
        let list = render(&job, None, &options).unwrap();
        render_curve.push((workers, list.items.len(), serde_json::to_vec(&list).unwrap().len()));
        group.bench_with_input(BenchmarkId::from_parameter(workers), &workers, |b, _| {
            b.iter(|| render(black_box(&job), None, &options).unwrap())
        });
    }
    group.finish();
    let (_, pods) = observed(10_000);
    let pods_json = serde_json::to_value(&pods).unwrap();
    c.bench_function("read_10k_pods", |b| {
        b.iter_batched(|| pods_json.clone(), |v| parse::pods(v).unwrap(), criterion::BatchSize::LargeInput)
    });
    c.final_summary();

    let ms = |name: &str| median_ns(name).map(|ns| ns / 1e6);
    println!();
    println!("job: 1,000 workers, 50 PS, 1 chief, 1 evaluator -> {} objects, {bytes} bytes of JSON", list.items.len());
    for name in ["render", "serialize", "render_and_serialize", "read_10k_pods"] {
        if let Some(ms) = ms(name) {
            println!("{name:<22} median {ms:>10.3} ms");
        }
    }
    if let (Some(r), Some(s)) = (median_ns("render"), median_ns("serialize")) {
        println!("ratio render/serialize: {:.2} (goal: at most 2)", r / s);
    }
    println!("reconcile, a running job of N pods (time grows with N: linear):");
    let mut reconcile_json = Vec::new();
    for (total, actions) in &reconcile_curve {
        let t = ms(&format!("reconcile/{total}"));
        println!("  {total:>6} pods: {:>9.3} ms, {actions} actions", t.unwrap_or(f64::NAN));
        reconcile_json.push(json!({"pods": total, "ms": t, "actions": actions}));
    }
    println!("render, N workers, 50 PS (output grows with N^2: worker r lists r + 1 workers):");
    let mut render_json = Vec::new();
    for (workers, objects, bytes) in &render_curve {
        let t = ms(&format!("render_workers/{workers}"));
        println!("  {workers:>6} workers: {:>9.3} ms, {objects} objects, {bytes} bytes", t.unwrap_or(f64::NAN));
        render_json.push(json!({"workers": workers, "ms": t, "objects": objects, "bytes": bytes}));
    }
    if let Ok(path) = std::env::var("BENCH_JSON") {
        let figures = json!({
            "job": {"objects": list.items.len(), "bytes": bytes},
            "render": ms("render"), "serialize": ms("serialize"), "renderAndSerialize": ms("render_and_serialize"),
            "read10kPods": ms("read_10k_pods"), "reconcile": reconcile_json, "renderWorkers": render_json,
        });
        std::fs::write(path, serde_json::to_string_pretty(&figures).unwrap()).unwrap();
    }
}
