//! Shared by the integration tests: the golden-case runner (the same dispatch the npm parity test
//! uses), fixtures, and a simulated cluster that carries plans out.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod cluster;

use std::path::{Path, PathBuf};

// Not every test crate that includes this module uses them.
#[allow(unused_imports)]
pub use cluster::{apply, type_and_rank, unique};
use elasticjob::podspec::Pod;
use elasticjob::{ElasticJob, Options, Plan, ReplicaType, parse};
use serde::Deserialize;
use serde_json::{Value, json};

/// Reads a YAML file (one document) into JSON.
pub fn yaml_file(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    yaml(&text)
}

pub fn yaml(text: &str) -> Value {
    Value::deserialize(serde_yaml_ng::Deserializer::from_str(text)).unwrap()
}

pub fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// Whether a case is one of Kueue's: an operation of the queue, or a pass given Kueue's state.
pub fn is_kueue_case(input: &Value) -> bool {
    matches!(input["op"].as_str(), Some("workload" | "suspendWhenQueued" | "admittedJob"))
        || input.get("queue").is_some()
}

/// Runs one golden case: `input` names the operation (`op`) and holds its inputs. The result is
/// the pretty JSON (fields in the order the core writes them) of what the operation returns, or
/// of `{"error": <ErrorReport>}`, with a final newline.
pub fn run_case(input: &Value) -> String {
    #[derive(serde::Serialize)]
    struct Failure {
        error: elasticjob::ErrorReport,
    }
    let mut out = match dispatch(input) {
        Ok(text) => text,
        Err(e) => serde_json::to_string_pretty(&Failure { error: e.report() }).unwrap(),
    };
    out.push('\n');
    out
}

fn dispatch(input: &Value) -> elasticjob::Result<String> {
    let field = |k: &str| input.get(k).cloned();
    let op = input["op"].as_str().expect("op");
    let options: Options = match field("options") {
        Some(v) => parse::from_value(v)?.0,
        None => Options::default(),
    };
    let job = || parse::job(field("job").unwrap_or(Value::Null));
    let plan = || field("scalePlan").map(|v| parse::scale_plan(v).map_err(|e| e.prefixed("scalePlan"))).transpose();
    let pods = || parse::pods(field("pods").unwrap_or(json!([])));
    let now = || parse::time(input["now"].as_str().unwrap_or("2026-01-01T00:00:00Z"));
    let replica_type =
        || ReplicaType::parse(input["replicaType"].as_str().expect("replicaType")).expect("replica type");
    Ok(match op {
        "render" => value(&elasticjob::render(&job()?, plan()?.as_ref(), &options)?),
        "initialScalePlan" => value(&elasticjob::initial_scale_plan(&job()?)),
        "fromTFJob" => value(&elasticjob::convert::from_tf_job(field("tfJob").unwrap_or(Value::Null))?),
        "validate" => {
            job()?;
            value(&json!({ "valid": true }))
        }
        "validateScalePlan" => {
            plan()?;
            value(&json!({ "valid": true }))
        }
        "tfConfig" => {
            let index = input["index"].as_u64().expect("index") as u32;
            value(&elasticjob::tf_config(&job()?, replica_type(), index, plan()?.as_ref())?)
        }
        "reconcile" => value(&elasticjob::reconcile(&job()?, plan()?.as_ref(), &pods()?, &now()?, &options)?),
        "reconcilePods" => {
            let plan = plan()?.expect("scalePlan");
            value(&elasticjob::reconcile_pods(&job()?, replica_type(), &plan, &pods()?, &options)?)
        }
        "handleFaultPods" => value(&elasticjob::handle_fault_pods(&job()?, replica_type(), &pods()?, &options)?),
        "stopRunningPods" => value(&elasticjob::stop_running_pods(&job()?, replica_type(), &pods()?)?),
        "syncJobState" => value(&elasticjob::sync_job_state(&job()?, replica_type(), &pods()?, &now()?)?),
        "controllerPass" => {
            let job = field("job").map(parse::job).transpose()?;
            let plans = parse::scale_plans(field("scalePlans").unwrap_or(json!([])))?;
            let services = parse::services(field("services").unwrap_or(json!([])))?;
            // `podGroup` (the gang cases): the job's PodGroup as observed.
            let pod_group = field("podGroup").map(parse::pod_group).transpose()?;
            // `queue` (the Kueue cases): {workload, resourceFlavors, priority}, each optional.
            let Some(queue) = field("queue") else {
                let gates = elasticjob::Gates { queue: None, pod_group: pod_group.as_ref() };
                let pods = pods()?;
                return Ok(value(&elasticjob::controller_pass_queued(
                    job.as_ref(),
                    &plans,
                    &pods,
                    &services,
                    gates,
                    &now()?,
                    &options,
                )?));
            };
            let workload = queue.get("workload").cloned().map(parse::workload).transpose()?;
            let flavors = parse::resource_flavors(queue.get("resourceFlavors").cloned().unwrap_or(json!([])))?;
            let priority = queue.get("priority").and_then(Value::as_i64).map(|p| p as i32);
            let slices = queue.get("slices").cloned().map(parse::workloads).transpose()?.unwrap_or_default();
            let state =
                elasticjob::QueueState { workload: workload.as_ref(), slices: &slices, flavors: &flavors, priority };
            let pods = pods()?;
            value(&elasticjob::controller_pass_queued(
                job.as_ref(),
                &plans,
                &pods,
                &services,
                elasticjob::Gates { queue: Some(&state), pod_group: pod_group.as_ref() },
                &now()?,
                &options,
            )?)
        }
        "workload" => {
            let priority = input.get("priority").and_then(Value::as_i64).map(|p| p as i32);
            value(&elasticjob::queue::workload(&job()?, &options, priority)?)
        }
        "suspendWhenQueued" => value(&elasticjob::queue::suspend_when_queued(&job()?)),
        "admittedJob" => {
            let workload = parse::workload(field("workload").unwrap_or(Value::Null))?;
            let flavors = parse::resource_flavors(field("resourceFlavors").unwrap_or(json!([])))?;
            value(&elasticjob::queue::admitted_job(&job()?, &workload, &flavors, &options)?)
        }
        "reconcileScalePlan" => {
            let job = field("job").map(parse::job).transpose()?;
            let plan = plan()?.expect("scalePlan");
            value(&elasticjob::reconcile_scale_plan(&plan, job.as_ref(), &now()?)?)
        }
        other => panic!("unknown op {other}"),
    })
}

fn value<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string_pretty(v).unwrap()
}

/// Applies the job status a plan sets.
pub fn apply_status(job: &mut ElasticJob, plan: &Plan) {
    if let Some(status) = plan.job_status() {
        job.status = Some(status.clone());
    }
}

/// An observed pod of a job.
pub fn pod(job: &str, t: ReplicaType, id: i32, rank: i32, phase: &str) -> Pod {
    serde_json::from_value(json!({
        "metadata": {
            "name": format!("{job}-edljob-{t}-{id}"),
            "labels": {
                "app": "dlrover",
                "elasticjob.dlrover/name": job,
                "elasticjob.dlrover/replica-type": t.as_str(),
                "elasticjob.dlrover/replica-index": id.to_string(),
                "elasticjob.dlrover/rank-index": rank.to_string(),
                "restart-count": "3",
            }
        },
        "spec": {"containers": [{"name": "main", "image": "tf:2"}]},
        "status": {"phase": phase}
    }))
    .unwrap()
}

/// A job with the given replica counts (types with `None` left out).
pub fn job(name: &str, ps: Option<i32>, worker: Option<i32>, chief: Option<i32>, evaluator: Option<i32>) -> ElasticJob {
    let mut specs = serde_json::Map::new();
    for (t, n) in [("ps", ps), ("worker", worker), ("chief", chief), ("evaluator", evaluator)] {
        if let Some(n) = n {
            specs.insert(
                t.into(),
                json!({"replicas": n, "restartCount": 2, "template": {"spec": {"containers": [
                    {"name": "main", "image": "tf:2", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}
                ]}}}),
            );
        }
    }
    parse::job(json!({
        "apiVersion": "elastic.iml.github.io/v1alpha1",
        "kind": "ElasticJob",
        "metadata": {"name": name, "namespace": "ns", "uid": "0b6c2e0e-1111-2222-3333-444455556666"},
        "spec": {"distributionStrategy": "ParameterServerStrategy", "replicaSpecs": specs}
    }))
    .unwrap()
}
