//! # elasticjob-wasm
//!
//! The wasm-bindgen layer of the npm package `elasticjob` (built into `pkg/`): one function per
//! operation of the [`elasticjob`] core, named in camelCase, over JSON text. Every argument is
//! the JSON text of a value and every result is JSON text, so nothing is walked property by
//! property across the boundary: a JavaScript engine writes and reads JSON natively, and serde_json
//! reads it here. Each function reads its arguments with the core's [`elasticjob::parse`]
//! functions (which report wrong types and unknown fields with their path), calls the core, and
//! writes the result with serde_json (so keys keep the core's field order). Nothing here decides
//! anything.
//!
//! The package's object API (`pkg/api.js`: objects in, objects out) is these functions with
//! `JSON.stringify` before and `JSON.parse` after, and a check that refuses what JSON cannot
//! hold (`NaN`, `bigint`, a `Map`, a cycle) at its path ([`not_json`] makes that error); hosts that
//! hold JSON text already (a controller that keeps each cached object's text) call these directly,
//! as the package's `text` namespace.
//!
//! A failure is thrown as an [`ElasticJobError`], a JavaScript `Error` subclass with `name`,
//! `code` and `errors: [{path, code, message}]` ([`elasticjob::Error::report`]). Paths inside an
//! argument other than the job start with the argument's name: `scalePlan.spec.psHosts[0]`,
//! `pods[3].status.phase`, `options.masterImage`. Text that is not JSON is a `syntax` problem at
//! the argument's name, with its line and column.

use elasticjob::api::{ElasticJob, ScalePlan};
use elasticjob::error::Step;
use elasticjob::tfconfig::SparseClusterSpec;

use elasticjob::Time;
use elasticjob::podspec::{Container, Pod};
use elasticjob::{Code, Error, ErrorReport, List, Options, Problem, Result, json, parse};
use js_sys::JsString;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/js/errors.js")]
extern "C" {
    /// The class of every error the package throws (`js/errors.js`).
    #[wasm_bindgen(extends = js_sys::Error)]
    pub type ElasticJobError;

    #[wasm_bindgen(constructor)]
    fn new(message: &str, code: &str, errors: &JsValue) -> ElasticJobError;

    // The glue re-exports the class, so the package exports the very class thrown here.
    // `reexport` on the type above would also declare it `unknown` in the generated .d.ts; on a
    // function import (a class is one) it honours `skip_typescript`, and the class is declared in
    // the custom section below instead. Never called.
    #[wasm_bindgen(js_name = ElasticJobError, reexport, skip_typescript)]
    #[allow(dead_code)]
    fn elastic_job_error_class();
}

#[wasm_bindgen(module = "/js/text.js")]
extern "C" {
    /// The JavaScript string of the UTF-8 `bytes`, a view of this module's memory (`js/text.js`).
    #[wasm_bindgen(js_name = text)]
    fn js_text(bytes: &[u8]) -> JsString;
}

/// `value` as the JavaScript string every function returns, made from this module's memory in
/// place: no copy, and for ASCII text (nearly every result) no UTF-8 decoding (`js/text.js`).
#[must_use]
pub fn text(value: &str) -> JsString {
    js_text(value.as_bytes())
}

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
import type { Problem } from "./types.js";

/**
 * What every function throws for input the core refuses: `code` is `parse_error` (the input does
 * not have the expected shape; one problem) or `invalid` (it breaks rules; every problem), and
 * `errors` lists each problem with its field path.
 */
export declare class ElasticJobError extends Error {
  readonly name: "ElasticJobError";
  readonly code: string;
  readonly errors: Problem[];
  constructor(message: string, code: string, errors: Problem[]);
}

/**
 * A store of the ScalePlans, pods and services a host observes, each read once as it changes: a
 * host's watches feed it (`put` for an object added or changed, `remove` for one deleted), and its
 * passes read none of them again. Its memory is the WebAssembly core's: `free()` gives it back.
 */
export class ObjectStore {
  constructor();
  /** Gives the store's memory back; the store cannot be used afterwards. */
  free(): void;
  /** Keeps an object of `kind` (`ScalePlan`, `Pod`, `Service`, `Workload`, `ResourceFlavor`) from its JSON text; returns its job's key, `undefined` for none (a ResourceFlavor is every job's). */
  put(kind: string, object: string): string | undefined;
  /** Forgets a deleted object; returns the key of the job it was kept under. */
  remove(kind: string, namespace: string, name: string): string | undefined;
  /** How many objects the store keeps. */
  readonly size: number;
  /**
   * `controllerPass` over the job of `key` (`job`: its JSON text, or `null`) and the objects kept for it, `overlay` laid over them for this pass.
   * With `queue` (JSON text: `{"priority": <the value of the job's priority class>}`, or `{}`), the pass of a host that runs with Kueue:
   * the job's Workload and the ResourceFlavors (kinds `Workload` and `ResourceFlavor`, kept as the others) are its Kueue state.
   */
  controllerPass(key: string, job: string, overlay: string | null | undefined, now: string, options?: string | null, queue?: string | null): string;
}
"#;

/// The JSON text of every object the job will have once `scalePlan` (by default its first plan)
/// has run on an empty cluster, as a Kubernetes `List` (the core's `render`); with `pretty`,
/// indented as `JSON.stringify(list, null, 2)` writes it.
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed or invalid.
#[wasm_bindgen]
pub fn render(
    job: &str,
    #[wasm_bindgen(js_name = scalePlan)] scale_plan: Option<String>,
    options: Option<String>,
    pretty: Option<bool>,
) -> Result<JsString, JsValue> {
    let list = render_text(job, scale_plan.as_deref(), options.as_deref(), pretty.unwrap_or(false));
    Ok(text(&list.map_err(throw)?))
}

/// The ElasticJob a Kubeflow TFJob becomes (the core's `convert::from_tf_job`):
/// `{"elasticJob": ..., "notes": [{path, message}]}`, each note at its path in the TFJob. Compact,
/// or with `pretty` as `JSON.stringify(value, null, 2)` writes it.
///
/// # Errors
/// An `ElasticJobError` when the text is not a TFJob that converts, every problem at its path in
/// the TFJob.
#[wasm_bindgen(js_name = fromTFJob)]
pub fn from_tf_job(#[wasm_bindgen(js_name = tfJob)] tf_job: &str, pretty: Option<bool>) -> Result<JsString, JsValue> {
    let conversion = value(tf_job, "").and_then(elasticjob::convert::from_tf_job).map_err(throw)?;
    written(&conversion, pretty.unwrap_or(false))
}

/// Whether `job` is a valid `ElasticJob`: `{"valid": true}`, or `{"valid": false, "error": ...}`
/// with every problem (what `render` would throw).
///
/// # Errors
/// Never for any text; only if the result cannot be written.
#[wasm_bindgen]
pub fn validate(job: &str) -> Result<JsString, JsValue> {
    output(Ok(Validation::of(read_job(job))))
}

/// Whether `scalePlan` is a valid `ScalePlan` on its own; paths start with `scalePlan`.
///
/// # Errors
/// Never for any text; only if the result cannot be written.
#[wasm_bindgen(js_name = validateScalePlan)]
pub fn validate_scale_plan(#[wasm_bindgen(js_name = scalePlan)] scale_plan: &str) -> Result<JsString, JsValue> {
    output(Ok(Validation::of(required(scale_plan, "scalePlan", parse::scale_plan))))
}

/// The `TF_CONFIG` string the pod of `replicaType` at rank `index` (both JSON text: `"worker"`,
/// `1`) gets under `scalePlan` (by default the job's first plan): exactly the env value (the
/// core's `tf_config`), not JSON-quoted.
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed or invalid, or the task has no
/// `TF_CONFIG`.
#[wasm_bindgen(js_name = tfConfig)]
pub fn tf_config(
    job: &str,
    #[wasm_bindgen(js_name = replicaType)] replica_type: &str,
    index: &str,
    #[wasm_bindgen(js_name = scalePlan)] scale_plan: Option<String>,
) -> Result<JsString, JsValue> {
    let run = || {
        let job = read_job(job)?;
        elasticjob::tf_config(
            &job,
            read(replica_type, "replicaType")?,
            read(index, "index")?,
            read_scale_plan(scale_plan.as_deref())?.as_ref(),
        )
    };
    run().map(|value| text(&value)).map_err(throw)
}

/// The first scale plan of a job (the core's `initial_scale_plan`).
///
/// # Errors
/// An `ElasticJobError` when the job is malformed or invalid.
#[wasm_bindgen(js_name = initialScalePlan)]
pub fn initial_scale_plan(job: &str) -> Result<JsString, JsValue> {
    output(read_job(job).map(|job| elasticjob::initial_scale_plan(&job)))
}

/// One pass of the job controller at time `now` (the JSON text of an RFC 3339 string) (the
/// core's `reconcile`); `scalePlan` may be `null`.
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed or invalid.
#[wasm_bindgen]
pub fn reconcile(
    job: &str,
    #[wasm_bindgen(js_name = scalePlan)] scale_plan: Option<String>,
    pods: &str,
    now: &str,
    options: Option<String>,
) -> Result<JsString, JsValue> {
    output(read_job(job).and_then(|job| {
        let plan = read_scale_plan(scale_plan.as_deref())?;
        elasticjob::reconcile(
            &job,
            plan.as_ref(),
            &read_pods(pods)?,
            &read_time(now)?,
            &read_options(options.as_deref())?,
        )
    }))
}

/// Creates, deletes and migrates the pods of one type to match the scale plan
/// (the core's `reconcile_pods`).
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed or invalid.
#[wasm_bindgen(js_name = reconcilePods)]
pub fn reconcile_pods(
    job: &str,
    #[wasm_bindgen(js_name = replicaType)] replica_type: &str,
    #[wasm_bindgen(js_name = scalePlan)] scale_plan: &str,
    pods: &str,
    options: Option<String>,
) -> Result<JsString, JsValue> {
    output(read_job(job).and_then(|job| {
        let replica_type = read(replica_type, "replicaType")?;
        let plan = required(scale_plan, "scalePlan", parse::scale_plan)?;
        elasticjob::reconcile_pods(&job, replica_type, &plan, &read_pods(pods)?, &read_options(options.as_deref())?)
    }))
}

/// Relaunches the failed pods of one type that the restart policy and budget allow
/// (the core's `handle_fault_pods`).
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed or invalid.
#[wasm_bindgen(js_name = handleFaultPods)]
pub fn handle_fault_pods(
    job: &str,
    #[wasm_bindgen(js_name = replicaType)] replica_type: &str,
    pods: &str,
    options: Option<String>,
) -> Result<JsString, JsValue> {
    output(read_job(job).and_then(|job| {
        let replica_type = read(replica_type, "replicaType")?;
        elasticjob::handle_fault_pods(&job, replica_type, &read_pods(pods)?, &read_options(options.as_deref())?)
    }))
}

/// Deletes every Running or Pending pod of one type (the core's `stop_running_pods`).
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed or invalid.
#[wasm_bindgen(js_name = stopRunningPods)]
pub fn stop_running_pods(
    job: &str,
    #[wasm_bindgen(js_name = replicaType)] replica_type: &str,
    pods: &str,
) -> Result<JsString, JsValue> {
    output(
        read_job(job)
            .and_then(|job| elasticjob::stop_running_pods(&job, read(replica_type, "replicaType")?, &read_pods(pods)?)),
    )
}

/// Counts one type's pods into the job status at time `now` (the core's `sync_job_state`).
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed or invalid.
#[wasm_bindgen(js_name = syncJobState)]
pub fn sync_job_state(
    job: &str,
    #[wasm_bindgen(js_name = replicaType)] replica_type: &str,
    pods: &str,
    now: &str,
) -> Result<JsString, JsValue> {
    output(read_job(job).and_then(|job| {
        let replica_type = read(replica_type, "replicaType")?;
        elasticjob::sync_job_state(&job, replica_type, &read_pods(pods)?, &read_time(now)?)
    }))
}

/// One pass of the controller over one job at time `now` (the core's `controller_pass`): which of
/// the job's ScalePlans it takes up, which pods are the job's, the job's own pass and its
/// services, as a plan in phases. `job` is `null` when the job does not exist; `scalePlans` are
/// the job's plans, `pods` the pods with its name label, `services` the services with its name
/// label (in its namespace), each an array or a `List`. With `queue` (a host that runs with
/// Kueue: `{workload, resourceFlavors, priority}`, each optional: the job's Workload as observed,
/// the ResourceFlavors, the value of the job's priority class), the core's
/// `controller_pass_queued`; without it (absent or `null`), nothing of Kueue. `podGroup` is the
/// job's PodGroup as observed (a gang scheduler's, named after the job), absent or `null` when
/// there is none.
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed or invalid.
#[wasm_bindgen(js_name = controllerPass)]
#[allow(clippy::too_many_arguments, reason = "the JavaScript function's positional arguments, each its JSON text")]
pub fn controller_pass(
    job: &str,
    #[wasm_bindgen(js_name = scalePlans)] scale_plans: &str,
    pods: &str,
    services: &str,
    now: &str,
    options: Option<String>,
    queue: Option<String>,
    #[wasm_bindgen(js_name = podGroup)] pod_group: Option<String>,
) -> Result<JsString, JsValue> {
    let run = || {
        let job = match value(job, "")? {
            Value::Null => None,
            job => Some(parse::job(job)?),
        };
        let plans = parse::scale_plans(value(scale_plans, "scalePlans")?)?;
        let pods = read_pods(pods)?;
        let services = parse::services(value(services, "services")?)?;
        let (now, options) = (read_time(now)?, read_options(options.as_deref())?);
        let pod_group = match pod_group.as_deref().map(|g| value(g, "podGroup")).transpose()? {
            None | Some(Value::Null) => None,
            Some(group) => Some(parse::pod_group(group)?),
        };
        let queue = match queue.as_deref().map(|q| value(q, "queue")).transpose()? {
            None | Some(Value::Null) => {
                let gates = elasticjob::Gates { queue: None, pod_group: pod_group.as_ref() };
                return elasticjob::controller_pass_queued(
                    job.as_ref(),
                    &plans,
                    &pods,
                    &services,
                    gates,
                    &now,
                    &options,
                );
            }
            Some(queue) => queue,
        };
        let workload = match queue.get("workload") {
            None | Some(Value::Null) => None,
            Some(w) => Some(parse::workload(w.clone()).map_err(|e| e.prefixed("queue"))?),
        };
        let flavors = queue.get("resourceFlavors").cloned().unwrap_or(Value::Array(Vec::new()));
        let flavors = parse::resource_flavors(flavors).map_err(|e| e.prefixed("queue"))?;
        let priority = read_priority(queue.get("priority"), "queue.priority")?;
        let slices = match queue.get("slices") {
            None | Some(Value::Null) => Vec::new(),
            Some(s) => parse::workloads(s.clone()).map_err(|e| e.prefixed("queue"))?,
        };
        let state =
            elasticjob::QueueState { workload: workload.as_ref(), slices: &slices, flavors: &flavors, priority };
        let gates = elasticjob::Gates { queue: Some(&state), pod_group: pod_group.as_ref() };
        elasticjob::controller_pass_queued(job.as_ref(), &plans, &pods, &services, gates, &now, &options)
    };
    output(run())
}

/// What the controller does with a job the core refused (the core's `refused_job`): `status` is
/// the job's status (JSON text, `null` for none), `errors` the problems of the `ElasticJobError`
/// `controllerPass` threw (its `errors`, JSON text). The plan: the job's `Refused` condition set
/// true with every problem, and a Warning event `InvalidJob`; no phase when the condition already
/// says so.
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed.
#[wasm_bindgen(js_name = refusedJob)]
pub fn refused_job(status: &str, errors: &str, now: &str) -> Result<JsString, JsValue> {
    let run = || {
        let status: Option<elasticjob::api::ElasticJobStatus> = read(status, "status")?;
        let problems: Vec<Problem> = read(errors, "errors")?;
        Ok(elasticjob::refused_job(status.as_ref(), &Error::Invalid(problems), &read_time(now)?))
    };
    output(run())
}

/// The Kueue `Workload` (`kueue.x-k8s.io/v1beta2`) the controller creates for a job labelled
/// `kueue.x-k8s.io/queue-name`, or `null` for a job without the label (the core's
/// `queue::workload`). `priority` (JSON text of a number, or absent) is the value of the job's
/// priority class, which the host reads from the cluster.
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed or the job is invalid.
#[wasm_bindgen]
pub fn workload(job: &str, options: Option<String>, priority: Option<String>) -> Result<JsString, JsValue> {
    let run = || {
        let job = read_job(job)?;
        let options = read_options(options.as_deref())?;
        let priority = match priority.as_deref().map(|p| value(p, "priority")).transpose()? {
            Some(p) => read_priority(Some(&p), "priority")?,
            None => None,
        };
        elasticjob::queue::workload(&job, &options, priority)
    };
    output(run())
}

/// The priority class (`{group, kind, name}`) whose value a queued job's Workload carries: the
/// job's `kueue.x-k8s.io/priority-class` label (a `WorkloadPriorityClass`), else the first
/// `priorityClassName` of its templates, master first (a `PriorityClass`); `null` for a job
/// without the queue label or without a class (the core's `queue::priority_class`). A host reads
/// that class's `value` and gives it to `workload` and `controllerPass`.
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed or the job is invalid.
#[wasm_bindgen(js_name = priorityClass)]
pub fn priority_class(job: &str, options: Option<String>) -> Result<JsString, JsValue> {
    let run = || {
        let job = read_job(job)?;
        let options = read_options(options.as_deref())?;
        Ok(elasticjob::queue::queue_name(&job).and_then(|_| elasticjob::queue::priority_class(&job, &options)))
    };
    output(run())
}

/// The job with `spec.suspend: true` when it is queued (labelled `kueue.x-k8s.io/queue-name`) and
/// not suspended, else `null`: what the admission policy and the controller do to a queued job at
/// its creation (the core's `queue::suspend_when_queued`).
///
/// # Errors
/// An `ElasticJobError` when the job is malformed or invalid.
#[wasm_bindgen(js_name = suspendWhenQueued)]
pub fn suspend_when_queued(job: &str) -> Result<JsString, JsValue> {
    output(read_job(job).map(|job| elasticjob::queue::suspend_when_queued(&job)))
}

/// The job whose templates (the master's too) carry what the admission of `workload` adds: each
/// flavour's node labels and tolerations (`resourceFlavors`: an array or a `List`), the pod-set
/// label, the admission checks' pod-set updates (the core's `queue::admitted_job`).
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed or invalid, the admission names a flavour
/// not given, or two sources give one key two values.
#[wasm_bindgen(js_name = admittedJob)]
pub fn admitted_job(
    job: &str,
    workload: &str,
    #[wasm_bindgen(js_name = resourceFlavors)] resource_flavors: &str,
    options: Option<String>,
) -> Result<JsString, JsValue> {
    let run = || {
        let job = read_job(job)?;
        let workload = parse::workload(value(workload, "workload")?)?;
        let flavors = parse::resource_flavors(value(resource_flavors, "resourceFlavors")?)?;
        elasticjob::queue::admitted_job(&job, &workload, &flavors, &read_options(options.as_deref())?)
    };
    output(run())
}

/// The counts (`{"<pod set>": count}`) of a server-side dry run of an update of `workload` that
/// asks Kueue's webhook whether its manager runs with `ElasticJobsViaWorkloadSlices` (accepted: on;
/// refused as "field is immutable": off), or `null` when the Workload cannot tell (the core's
/// `queue::gate_probe`).
///
/// # Errors
/// An `ElasticJobError` when the Workload is malformed.
#[wasm_bindgen(js_name = kueueGateProbe)]
pub fn kueue_gate_probe(workload: &str) -> Result<JsString, JsValue> {
    output(value(workload, "workload").and_then(parse::workload).map(|w| elasticjob::queue::gate_probe(&w)))
}

/// A priority value: a JSON integer of 32 bits, or `null`.
fn read_priority(priority: Option<&Value>, path: &str) -> Result<Option<i32>> {
    match priority {
        None | Some(Value::Null) => Ok(None),
        Some(p) => p.as_i64().and_then(|n| i32::try_from(n).ok()).map(Some).ok_or_else(|| {
            Error::Parse(Problem::new(
                path,
                Code::InvalidType,
                format!("`{p}` is not a priority: give the priority class's value, an integer of 32 bits"),
            ))
        }),
    }
}

/// The names the operator shares with DLRover's master and its hosts: the API group, version and
/// kinds, the label keys and values (the core's `naming::constants`).
///
/// # Errors
/// None in practice: the constants always serialise.
#[wasm_bindgen]
pub fn constants() -> Result<JsString, JsValue> {
    output(Ok(elasticjob::constants()))
}

/// The paths of the fields [`job_key`] reads of an object (the core's `JOB_KEY_FIELDS`), as JSON:
/// a host that holds objects gives it those fields alone, not a watch event's whole pod.
///
/// # Errors
/// None in practice.
#[wasm_bindgen(js_name = jobKeyFields)]
pub fn job_key_fields() -> Result<JsString, JsValue> {
    output(Ok(elasticjob::JOB_KEY_FIELDS))
}

/// The job key (`namespace/name`) an object belongs to: an ElasticJob's own, a ScalePlan's owner
/// job, a pod's or service's job label; `undefined` for an object of no job (the core's
/// `naming::job_key`). Only the [`job_key_fields`] of the object are read.
///
/// # Errors
/// An `ElasticJobError` when the text is not JSON.
#[wasm_bindgen(js_name = jobKey)]
pub fn job_key(object: &str) -> Result<Option<String>, JsValue> {
    Ok(elasticjob::job_key(&value(object, "object").map_err(throw)?))
}

/// Whether the job controls `object` (the JSON text of any object), the rule by which the core
/// keeps its hands off what is not the job's: a host asks it of the object in the way of a create
/// (`409 AlreadyExists`) before writing over it (the core's `job_controls`).
///
/// # Errors
/// An `ElasticJobError` when the job is malformed or invalid, or the object is not JSON.
#[wasm_bindgen(js_name = jobControls)]
pub fn job_controls(job: &str, object: &str) -> Result<bool, JsValue> {
    let run = || Ok(elasticjob::job_controls(&read_job(job)?, &value(object, "object")?));
    run().map_err(throw)
}

/// One pass of the scale-plan controller; `job` is the plan's owner job, or `null` when it does
/// not exist (the core's `reconcile_scale_plan`).
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed or invalid.
#[wasm_bindgen(js_name = reconcileScalePlan)]
pub fn reconcile_scale_plan(
    #[wasm_bindgen(js_name = scalePlan)] scale_plan: &str,
    job: &str,
    now: &str,
) -> Result<JsString, JsValue> {
    let run = || {
        let plan = required(scale_plan, "scalePlan", parse::scale_plan)?;
        let job = match value(job, "")? {
            Value::Null => None,
            job => Some(parse::job(job)?),
        };
        elasticjob::reconcile_scale_plan(&plan, job.as_ref(), &read_time(now)?)
    };
    output(run())
}

/// Sets `TF_CONFIG` on a container from a sparse cluster, replacing an existing one, and returns
/// the container (the core's `insert_tf_config_to_env`).
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed, or the cluster misses an index.
#[wasm_bindgen(js_name = insertTfConfigToEnv)]
pub fn insert_tf_config_to_env(
    container: &str,
    cluster: &str,
    #[wasm_bindgen(js_name = replicaType)] replica_type: &str,
    rank: &str,
) -> Result<JsString, JsValue> {
    let run = || {
        let mut container: Container = read_strict(container, "container")?;
        let cluster: SparseClusterSpec = read_strict(cluster, "cluster")?;
        elasticjob::insert_tf_config_to_env(
            &mut container,
            &cluster,
            read(replica_type, "replicaType")?,
            read(rank, "rank")?,
        )?;
        Ok(container)
    };
    output(run())
}

/// One row per object of a rendered `List`: kind, name, replica type, rank, CPU and memory
/// requests, `TF_CONFIG` task (the core's `summary`).
///
/// # Errors
/// An `ElasticJobError` when the list is malformed.
#[wasm_bindgen]
pub fn summary(list: &str) -> Result<JsString, JsValue> {
    output(read_strict::<List>(list, "list").map(|list| elasticjob::summary(&list)))
}

/// The rows of `summary(render(job, scalePlan, options))`, without the objects themselves being
/// written: for a previewer's table of a large job (the 1,000-worker job renders 22.8 MB of JSON,
/// its rows 0.2 MB).
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed or invalid.
#[wasm_bindgen(js_name = renderSummary)]
pub fn render_summary(
    job: &str,
    #[wasm_bindgen(js_name = scalePlan)] scale_plan: Option<String>,
    options: Option<String>,
) -> Result<JsString, JsValue> {
    let run = || {
        let job = read_job(job)?;
        elasticjob::render_summary(
            &job,
            read_scale_plan(scale_plan.as_deref())?.as_ref(),
            &read_options(options.as_deref())?,
        )
    };
    output(run())
}

/// The object at `index` (JSON text of a number) of `render(job, scalePlan, options).items` (the
/// row of the same index of `renderSummary`), without the others being written.
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed or invalid, or `index` is past the last
/// object (`out_of_range` at `index`).
#[wasm_bindgen(js_name = renderItem)]
pub fn render_item(
    job: &str,
    index: &str,
    #[wasm_bindgen(js_name = scalePlan)] scale_plan: Option<String>,
    options: Option<String>,
) -> Result<JsString, JsValue> {
    let run = || {
        let list = render_list(job, scale_plan.as_deref(), options.as_deref())?;
        let index: u32 = read(index, "index")?;
        let count = list.items.len();
        list.items.into_iter().nth(index as usize).ok_or_else(|| {
            let message = format!("the job renders {count} objects, so the last index is {}", count.saturating_sub(1));
            Error::Invalid(vec![Problem::new("index", Code::OutOfRange, message)])
        })
    };
    output(run())
}

/// What `kubectl elasticjob status` shows of a job (the core's `view::job_view`): its phase and
/// conditions, per replica type the pods it wants and their counts by phase, and its scale plans
/// oldest first with what each changed. `job` and the plans are read as stored, without the core's
/// rules (a job the controller refuses is shown too); `scalePlans` is an array or a `List` of them, and plans of
/// other jobs among them, like pods of other jobs among `pods`, are left out.
///
/// # Errors
/// An `ElasticJobError` when an argument does not have the shape of its type or has a field it
/// does not know.
#[wasm_bindgen(js_name = jobView)]
pub fn job_view(
    job: &str,
    #[wasm_bindgen(js_name = scalePlans)] scale_plans: &str,
    pods: &str,
) -> Result<JsString, JsValue> {
    // The readers the other functions use (`parse::strict`: shapes and unknown fields, not the
    // rules), so no second copy of the job's and the plan's readers is built into the wasm.
    let read_all = || {
        let job = parse::strict::<ElasticJob>(value(job, "")?)?;
        let plans = parse::scale_plans(value(scale_plans, "scalePlans")?)?;
        elasticjob::view::job_view(&job, &plans, &read_pods(pods)?)
    };
    output(read_all())
}

/// A store of the ScalePlans, pods and services a host observes, each read once as it changes
/// (the core's `store::Store`): a host's watches feed it (`put` for an object added or changed,
/// `remove` for one deleted), and its passes read none of them again (`controllerPass`).
///
/// Declared in the custom TypeScript section above, not by wasm-bindgen: its declaration of a class
/// names `Symbol.dispose`, which only TypeScript's `esnext` library knows.
#[wasm_bindgen(skip_typescript)]
#[derive(Default)]
pub struct ObjectStore(elasticjob::store::Store);

#[wasm_bindgen]
impl ObjectStore {
    /// An empty store.
    #[wasm_bindgen(constructor)]
    pub fn new() -> ObjectStore {
        ObjectStore::default()
    }

    /// Keeps an object added or changed, of `kind` (`ScalePlan`, `Pod` or `Service`), from its JSON
    /// text, under the job it belongs to; returns that job's key, or `undefined` for an object of
    /// no job (not kept).
    ///
    /// # Errors
    /// An `ElasticJobError` when the text is not JSON.
    pub fn put(&mut self, kind: &str, object: &str) -> Result<Option<String>, JsValue> {
        Ok(self.0.put(kind, value(object, "object").map_err(throw)?))
    }

    /// Forgets a deleted object; returns the key of the job it was kept under, if any.
    pub fn remove(&mut self, kind: &str, namespace: &str, name: &str) -> Option<String> {
        self.0.remove(kind, namespace, name)
    }

    /// How many objects the store keeps.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> usize {
        self.0.len()
    }

    /// `controllerPass` over the job of `key` (`job`: its JSON text, `null` when it does not exist)
    /// and the objects kept for it, with `overlay` (JSON: `{plans, pods, deletedPods, services,
    /// deletedServices}`, what the host's own writes of this pass changed) laid over them for this
    /// pass alone. With `queue` (JSON: `{"priority": n}` or `{}`), the pass of a host that runs
    /// with Kueue, over the job's Workload and the ResourceFlavors kept (the core's
    /// `Store::controller_pass_queued`).
    ///
    /// # Errors
    /// An `ElasticJobError` when an argument is malformed or invalid, or a kept object could not be
    /// read (at its index, as `controllerPass` reports it).
    #[wasm_bindgen(js_name = controllerPass)]
    pub fn controller_pass(
        &self,
        key: &str,
        job: &str,
        overlay: Option<String>,
        now: &str,
        options: Option<String>,
        queue: Option<String>,
    ) -> Result<JsString, JsValue> {
        let run = || {
            let job = match value(job, "")? {
                Value::Null => None,
                job => Some(parse::job(job)?),
            };
            let overlay = match overlay {
                Some(text) => elasticjob::store::Overlay::read(value(&text, "overlay")?)?,
                None => elasticjob::store::Overlay::default(),
            };
            let (now, options) = (read_time(now)?, read_options(options.as_deref())?);
            match queue.as_deref().map(|q| value(q, "queue")).transpose()? {
                None | Some(Value::Null) => self.0.controller_pass(key, job.as_ref(), &overlay, &now, &options),
                Some(queue) => {
                    let priority = read_priority(queue.get("priority"), "queue.priority")?;
                    self.0.controller_pass_queued(key, job.as_ref(), &overlay, priority, &now, &options)
                }
            }
        };
        output(run())
    }
}

/// The error of a JavaScript value that JSON cannot hold, found by the object API before it
/// writes an argument as JSON: `message` at the place `steps` (the JSON text of an array of keys
/// and indexes) inside the argument `root`, as the core writes every path. Returned, for the
/// caller to throw.
#[wasm_bindgen(js_name = notJson, unchecked_return_type = "ElasticJobError")]
pub fn not_json(root: &str, steps: &str, message: &str) -> JsValue {
    // Read as a `Value`, not a `Vec`: serde_json's reader of a `Vec` words a wrong type, which
    // compiles Rust's float printer (14 KB) into the module for a message no one sees.
    let steps = match serde_json::from_str(steps) {
        Ok(Value::Array(steps)) => steps,
        _ => Vec::new(),
    };
    let steps: Vec<Step> = steps
        .into_iter()
        .map(|s| match s {
            Value::Number(n) => Step::Index(n.as_u64().and_then(|i| usize::try_from(i).ok()).unwrap_or_default()),
            Value::String(k) => Step::Key(k),
            other => Step::Key(other.to_string()),
        })
        .collect();
    let error = Error::Parse(Problem::at(&steps, Code::InvalidType, message));
    throw(if root.is_empty() { error } else { error.prefixed(root) })
}

/// The answer of `validate` and `validateScalePlan`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Validation {
    /// Whether the input is valid.
    pub valid: bool,
    /// When it is not: every problem, as an `ElasticJobError` would carry them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorReport>,
}

impl Validation {
    /// The validation of a parse result.
    pub fn of<T>(result: Result<T>) -> Validation {
        match result {
            Ok(_) => Validation { valid: true, error: None },
            Err(e) => Validation { valid: false, error: Some(e.report()) },
        }
    }
}

/// Reads JSON text as a value, with `root` in front of the path of a problem: a syntax error is a
/// `syntax` problem at `root`, with its line and column.
fn value(text: &str, root: &str) -> Result<Value> {
    serde_json::from_str(text).map_err(|e| Error::Parse(Problem::new(root, Code::Syntax, e.to_string())))
}

fn read_job(job: &str) -> Result<ElasticJob> {
    parse::job(value(job, "")?)
}

fn render_list(job: &str, scale_plan: Option<&str>, options: Option<&str>) -> Result<List> {
    let job = read_job(job)?;
    elasticjob::render(&job, read_scale_plan(scale_plan)?.as_ref(), &read_options(options)?)
}

fn render_text(job: &str, scale_plan: Option<&str>, options: Option<&str>, pretty: bool) -> Result<String> {
    let job = read_job(job)?;
    elasticjob::render_json(&job, read_scale_plan(scale_plan)?.as_ref(), &read_options(options)?, pretty)
}

/// Reads a required argument with a core reader; paths start with `root`.
fn required<T>(arg: &str, root: &str, reader: fn(Value) -> Result<T>) -> Result<T> {
    reader(value(arg, root)?).map_err(|e| e.prefixed(root))
}

/// Reads an optional argument: absent or `null` is `None`.
fn optional<T>(arg: Option<&str>, root: &str, reader: fn(Value) -> Result<T>) -> Result<Option<T>> {
    match arg.map(|text| value(text, root)).transpose()? {
        None | Some(Value::Null) => Ok(None),
        Some(v) => reader(v).map(Some).map_err(|e| e.prefixed(root)),
    }
}

fn read_scale_plan(scale_plan: Option<&str>) -> Result<Option<ScalePlan>> {
    optional(scale_plan, "scalePlan", parse::scale_plan)
}

fn read_options(options: Option<&str>) -> Result<Options> {
    Ok(optional(options, "options", parse::strict::<Options>)?.unwrap_or_default())
}

fn read_pods(pods: &str) -> Result<Vec<Pod>> {
    parse::pods(value(pods, "pods")?)
}

fn read_time(now: &str) -> Result<Time> {
    parse::time(&read::<String>(now, "now")?)
}

/// Reads a value of any type; shape problems start with `root`, unknown fields are ignored
/// (the types read here have none).
fn read<T: DeserializeOwned>(arg: &str, root: &str) -> Result<T> {
    required(arg, root, |v| parse::from_value(v).map(|(v, _)| v))
}

/// Reads a value whose unknown fields are problems, like the core's readers of jobs and plans.
fn read_strict<T: DeserializeOwned>(arg: &str, root: &str) -> Result<T> {
    required(arg, root, parse::strict)
}

/// Writes a result as JSON text, or throws its error.
fn output<T: Serialize>(result: Result<T>) -> Result<JsString, JsValue> {
    written(&result.map_err(throw)?, false)
}

/// The JSON text of `value` (compact, or with `pretty` indented), as a JavaScript string.
fn written<T: Serialize>(value: &T, pretty: bool) -> Result<JsString, JsValue> {
    json::to_text(value, pretty).map(|value| text(&value)).map_err(|e| js_sys::Error::new(&e.to_string()).into())
}

/// The core's error as an [`ElasticJobError`].
fn throw(error: Error) -> JsValue {
    let report = error.report();
    let errors = json::to_text(&report.errors, false)
        .ok()
        .and_then(|text| js_sys::JSON::parse(&text).ok())
        .unwrap_or(JsValue::NULL);
    ElasticJobError::new(&report.message, &report.code, &errors).into()
}
