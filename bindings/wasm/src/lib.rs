//! # elasticjob-wasm
//!
//! The wasm-bindgen layer of the npm package `elasticjob` (built into `pkg/`): one function per
//! operation of the [`elasticjob`] core, named in camelCase. Each one reads its arguments from
//! plain JavaScript values ([`json::from_js`], then the core's [`elasticjob::parse`] functions,
//! which report wrong types and unknown fields with their path), calls the core, and returns the
//! result as plain objects (serialised by serde_json and read back with `JSON.parse`, so keys keep
//! the core's field order). Nothing here decides anything.
//!
//! A failure is thrown as an [`ElasticJobError`], a JavaScript `Error` subclass with `name`,
//! `code` and `errors: [{path, code, message}]` ([`elasticjob::Error::report`]). Paths inside an
//! argument other than the job start with the argument's name: `scalePlan.spec.psHosts[0]`,
//! `pods[3].status.phase`, `options.masterImage`.
//!
//! The TypeScript types named in the signatures come from the core's JSON Schemas
//! (`examples/schema.rs`, the `schema` feature), generated into `types.d.ts` next to the glue.

pub mod json;

use elasticjob::api::{ElasticJob, ScalePlan};
use elasticjob::tfconfig::SparseClusterSpec;

use elasticjob::{Code, Error, ErrorReport, List, Options, Problem, Result, parse};
use k8s_openapi::api::core::v1::{Container, Pod};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
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

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
import type {
  Constants, Container, ElasticJob, JobView, List, Object, Options, Plan, Pod, Problem, ReplicaType,
  ScalePlan, Service, SparseClusterSpec, SummaryRow, Validation,
} from "./types.js";

/** Observed pods: an array, or a `List` / `PodList` holding them in `items`. */
export type Pods = Pod[] | { items: Pod[] };

/** Observed services: an array, or a `List` / `ServiceList` holding them in `items`. */
export type Services = Service[] | { items: Service[] };

/** A job's scale plans: an array, or a `List` holding them in `items`. */
export type ScalePlans = ScalePlan[] | { items: ScalePlan[] };

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
"#;

/// Every object the job will have once `scalePlan` (by default its first plan) has run on an empty
/// cluster, as a Kubernetes `List` (the core's `render`).
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed or invalid.
#[wasm_bindgen(unchecked_return_type = "List")]
pub fn render(
    #[wasm_bindgen(unchecked_param_type = "ElasticJob")] job: JsValue,
    #[wasm_bindgen(js_name = scalePlan, unchecked_optional_param_type = "ScalePlan | null")] scale_plan: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Options | null")] options: JsValue,
) -> Result<JsValue, JsValue> {
    output(render_list(&job, &scale_plan, &options))
}

/// What `render` returns, as JSON text: for callers that write the objects out as they are (the
/// CLI's `-o json`), so that they are never built as JavaScript objects (for a large job, parsing
/// them is most of what `render` costs in JavaScript: the 1,000-worker job's are 22.8 MB of JSON).
/// Compact, or with `pretty` as `JSON.stringify(list, null, 2)` writes it.
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed or invalid, as `render`.
#[wasm_bindgen(js_name = renderJson)]
pub fn render_json(
    #[wasm_bindgen(unchecked_param_type = "ElasticJob")] job: JsValue,
    #[wasm_bindgen(js_name = scalePlan, unchecked_optional_param_type = "ScalePlan | null")] scale_plan: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Options | null")] options: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "boolean")] pretty: JsValue,
) -> Result<String, JsValue> {
    let list = render_list(&job, &scale_plan, &options).map_err(throw)?;
    json::to_text(&list, pretty.is_truthy()).map_err(|e| js_sys::Error::new(&e.to_string()).into())
}

/// Whether `job` is a valid `ElasticJob`: `{valid: true}`, or `{valid: false, error}` with every
/// problem (what `render` would throw).
///
/// # Errors
/// Never for any JSON value; only if the result cannot be returned.
#[wasm_bindgen(unchecked_return_type = "Validation")]
pub fn validate(#[wasm_bindgen(unchecked_param_type = "unknown")] job: JsValue) -> Result<JsValue, JsValue> {
    to_js(&Validation::of(read_job(&job)))
}

/// Whether `scalePlan` is a valid `ScalePlan` on its own; paths start with `scalePlan`.
///
/// # Errors
/// Never for any JSON value; only if the result cannot be returned.
#[wasm_bindgen(js_name = validateScalePlan, unchecked_return_type = "Validation")]
pub fn validate_scale_plan(
    #[wasm_bindgen(js_name = scalePlan, unchecked_param_type = "unknown")] scale_plan: JsValue,
) -> Result<JsValue, JsValue> {
    to_js(&Validation::of(required(&scale_plan, "scalePlan", parse::scale_plan)))
}

/// The `TF_CONFIG` string the pod of `replicaType` at rank `index` gets under `scalePlan` (by
/// default the job's first plan): exactly the env value (the core's `tf_config`).
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed or invalid, or the task has no
/// `TF_CONFIG`.
#[wasm_bindgen(js_name = tfConfig)]
pub fn tf_config(
    #[wasm_bindgen(unchecked_param_type = "ElasticJob")] job: JsValue,
    #[wasm_bindgen(js_name = replicaType, unchecked_param_type = "ReplicaType")] replica_type: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] index: JsValue,
    #[wasm_bindgen(js_name = scalePlan, unchecked_optional_param_type = "ScalePlan | null")] scale_plan: JsValue,
) -> Result<String, JsValue> {
    let run = || {
        let job = read_job(&job)?;
        elasticjob::tf_config(
            &job,
            read(&replica_type, "replicaType")?,
            read(&index, "index")?,
            read_scale_plan(&scale_plan)?.as_ref(),
        )
    };
    run().map_err(throw)
}

/// The first scale plan of a job (the core's `initial_scale_plan`).
///
/// # Errors
/// An `ElasticJobError` when the job is malformed or invalid.
#[wasm_bindgen(js_name = initialScalePlan, unchecked_return_type = "ScalePlan")]
pub fn initial_scale_plan(
    #[wasm_bindgen(unchecked_param_type = "ElasticJob")] job: JsValue,
) -> Result<JsValue, JsValue> {
    output(read_job(&job).map(|job| elasticjob::initial_scale_plan(&job)))
}

/// One pass of the job controller at time `now` (an RFC 3339 string or a `Date`) (the core's
/// `reconcile`).
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed or invalid.
#[wasm_bindgen(unchecked_return_type = "Plan")]
pub fn reconcile(
    #[wasm_bindgen(unchecked_param_type = "ElasticJob")] job: JsValue,
    #[wasm_bindgen(js_name = scalePlan, unchecked_param_type = "ScalePlan | null | undefined")] scale_plan: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Pods")] pods: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string | Date")] now: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Options | null")] options: JsValue,
) -> Result<JsValue, JsValue> {
    output(read_job(&job).and_then(|job| {
        let plan = read_scale_plan(&scale_plan)?;
        elasticjob::reconcile(&job, plan.as_ref(), &read_pods(&pods)?, &read_time(&now)?, &read_options(&options)?)
    }))
}

/// Creates, deletes and migrates the pods of one type to match the scale plan
/// (the core's `reconcile_pods`).
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed or invalid.
#[wasm_bindgen(js_name = reconcilePods, unchecked_return_type = "Plan")]
pub fn reconcile_pods(
    #[wasm_bindgen(unchecked_param_type = "ElasticJob")] job: JsValue,
    #[wasm_bindgen(js_name = replicaType, unchecked_param_type = "ReplicaType")] replica_type: JsValue,
    #[wasm_bindgen(js_name = scalePlan, unchecked_param_type = "ScalePlan")] scale_plan: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Pods")] pods: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Options | null")] options: JsValue,
) -> Result<JsValue, JsValue> {
    output(read_job(&job).and_then(|job| {
        let replica_type = read(&replica_type, "replicaType")?;
        let plan = required(&scale_plan, "scalePlan", parse::scale_plan)?;
        elasticjob::reconcile_pods(&job, replica_type, &plan, &read_pods(&pods)?, &read_options(&options)?)
    }))
}

/// Relaunches the failed pods of one type that the restart policy and budget allow
/// (the core's `handle_fault_pods`).
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed or invalid.
#[wasm_bindgen(js_name = handleFaultPods, unchecked_return_type = "Plan")]
pub fn handle_fault_pods(
    #[wasm_bindgen(unchecked_param_type = "ElasticJob")] job: JsValue,
    #[wasm_bindgen(js_name = replicaType, unchecked_param_type = "ReplicaType")] replica_type: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Pods")] pods: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Options | null")] options: JsValue,
) -> Result<JsValue, JsValue> {
    output(read_job(&job).and_then(|job| {
        let replica_type = read(&replica_type, "replicaType")?;
        elasticjob::handle_fault_pods(&job, replica_type, &read_pods(&pods)?, &read_options(&options)?)
    }))
}

/// Deletes every Running or Pending pod of one type (the core's `stop_running_pods`).
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed or invalid.
#[wasm_bindgen(js_name = stopRunningPods, unchecked_return_type = "Plan")]
pub fn stop_running_pods(
    #[wasm_bindgen(unchecked_param_type = "ElasticJob")] job: JsValue,
    #[wasm_bindgen(js_name = replicaType, unchecked_param_type = "ReplicaType")] replica_type: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Pods")] pods: JsValue,
) -> Result<JsValue, JsValue> {
    output(
        read_job(&job).and_then(|job| {
            elasticjob::stop_running_pods(&job, read(&replica_type, "replicaType")?, &read_pods(&pods)?)
        }),
    )
}

/// Counts one type's pods into the job status at time `now` (the core's `sync_job_state`).
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed or invalid.
#[wasm_bindgen(js_name = syncJobState, unchecked_return_type = "Plan")]
pub fn sync_job_state(
    #[wasm_bindgen(unchecked_param_type = "ElasticJob")] job: JsValue,
    #[wasm_bindgen(js_name = replicaType, unchecked_param_type = "ReplicaType")] replica_type: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Pods")] pods: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string | Date")] now: JsValue,
) -> Result<JsValue, JsValue> {
    output(read_job(&job).and_then(|job| {
        let replica_type = read(&replica_type, "replicaType")?;
        elasticjob::sync_job_state(&job, replica_type, &read_pods(&pods)?, &read_time(&now)?)
    }))
}

/// One pass of the controller over one job at time `now` (the core's `controller_pass`): which of
/// the job's ScalePlans it takes up, which pods are the job's, the job's own pass and its
/// services, as a plan in phases. `job` is `null` when the job does not exist; `scalePlans` are
/// the job's plans, `pods` the pods with its name label, `services` the services with its name
/// label (in its namespace).
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed or invalid.
#[wasm_bindgen(js_name = controllerPass, unchecked_return_type = "Plan")]
pub fn controller_pass(
    #[wasm_bindgen(unchecked_param_type = "ElasticJob | null | undefined")] job: JsValue,
    #[wasm_bindgen(js_name = scalePlans, unchecked_param_type = "ScalePlans")] scale_plans: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Pods")] pods: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Services")] services: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string | Date")] now: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Options | null")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let run = || {
        let job = if job.is_null() || job.is_undefined() { None } else { Some(read_job(&job)?) };
        let plans = parse::scale_plans(value(&scale_plans, "scalePlans")?)?;
        elasticjob::controller_pass(
            job.as_ref(),
            &plans,
            &read_pods(&pods)?,
            &parse::services(value(&services, "services")?)?,
            &read_time(&now)?,
            &read_options(&options)?,
        )
    };
    output(run())
}

/// The names the operator shares with DLRover's master and its hosts: the API group, version and
/// kinds, the label keys and values (the core's `naming::constants`).
///
/// # Errors
/// None in practice: the constants always serialise.
#[wasm_bindgen(unchecked_return_type = "Constants")]
pub fn constants() -> Result<JsValue, JsValue> {
    to_js(&elasticjob::constants())
}

/// The job key (`namespace/name`) an object belongs to: an ElasticJob's own, a ScalePlan's owner
/// job, a pod's or service's job label; `undefined` for an object of no job (the core's
/// `naming::job_key`).
///
/// # Errors
/// An `ElasticJobError` when the object cannot be read as JSON.
#[wasm_bindgen(js_name = jobKey, unchecked_return_type = "string | undefined")]
pub fn job_key(#[wasm_bindgen(unchecked_param_type = "object")] object: JsValue) -> Result<JsValue, JsValue> {
    // Only the fields the key is read from cross into WebAssembly, not a watch event's whole pod.
    let mut fields = Vec::new();
    for path in elasticjob::JOB_KEY_FIELDS {
        let at = path.iter().fold(object.clone(), |at, key| {
            if at.is_object() {
                js_sys::Reflect::get(&at, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
            } else {
                JsValue::UNDEFINED
            }
        });
        if !at.is_undefined() {
            fields.push((path, value(&at, &format!("object.{}", path.join("."))).map_err(throw)?));
        }
    }
    Ok(elasticjob::job_key_of_fields(fields).map_or(JsValue::UNDEFINED, |k| JsValue::from_str(&k)))
}

/// One pass of the scale-plan controller; `job` is the plan's owner job, or `null` when it does
/// not exist (the core's `reconcile_scale_plan`).
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed or invalid.
#[wasm_bindgen(js_name = reconcileScalePlan, unchecked_return_type = "Plan")]
pub fn reconcile_scale_plan(
    #[wasm_bindgen(js_name = scalePlan, unchecked_param_type = "ScalePlan")] scale_plan: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ElasticJob | null | undefined")] job: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string | Date")] now: JsValue,
) -> Result<JsValue, JsValue> {
    let run = || {
        let plan = required(&scale_plan, "scalePlan", parse::scale_plan)?;
        let job = if job.is_null() || job.is_undefined() { None } else { Some(read_job(&job)?) };
        elasticjob::reconcile_scale_plan(&plan, job.as_ref(), &read_time(&now)?)
    };
    output(run())
}

/// Sets `TF_CONFIG` on a container from a sparse cluster, replacing an existing one, and returns
/// the container (the core's `insert_tf_config_to_env`).
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed, or the cluster misses an index.
#[wasm_bindgen(js_name = insertTfConfigToEnv, unchecked_return_type = "Container")]
pub fn insert_tf_config_to_env(
    #[wasm_bindgen(unchecked_param_type = "Container")] container: JsValue,
    #[wasm_bindgen(unchecked_param_type = "SparseClusterSpec")] cluster: JsValue,
    #[wasm_bindgen(js_name = replicaType, unchecked_param_type = "ReplicaType")] replica_type: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] rank: JsValue,
) -> Result<JsValue, JsValue> {
    let run = || {
        let mut container: Container = read_strict(&container, "container")?;
        let cluster: SparseClusterSpec = read_strict(&cluster, "cluster")?;
        elasticjob::insert_tf_config_to_env(
            &mut container,
            &cluster,
            read(&replica_type, "replicaType")?,
            read(&rank, "rank")?,
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
#[wasm_bindgen(unchecked_return_type = "SummaryRow[]")]
pub fn summary(#[wasm_bindgen(unchecked_param_type = "List")] list: JsValue) -> Result<JsValue, JsValue> {
    output(read_strict::<List>(&list, "list").map(|list| elasticjob::summary(&list)))
}

/// The rows of `summary(render(job, scalePlan, options))`, without the objects themselves crossing
/// into JavaScript: for a previewer's table of a large
/// job (the 1,000-worker job renders 22.8 MB of JSON, its rows 0.2 MB).
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed or invalid.
#[wasm_bindgen(js_name = renderSummary, unchecked_return_type = "SummaryRow[]")]
pub fn render_summary(
    #[wasm_bindgen(unchecked_param_type = "ElasticJob")] job: JsValue,
    #[wasm_bindgen(js_name = scalePlan, unchecked_optional_param_type = "ScalePlan | null")] scale_plan: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Options | null")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let run = || {
        let job = read_job(&job)?;
        elasticjob::render_summary(&job, read_scale_plan(&scale_plan)?.as_ref(), &read_options(&options)?)
    };
    output(run())
}

/// The object at `index` of `render(job, scalePlan, options).items` (the row of the same index of
/// `renderSummary`), without the others crossing into JavaScript.
///
/// # Errors
/// An `ElasticJobError` when an argument is malformed or invalid, or `index` is past the last
/// object (`out_of_range` at `index`).
#[wasm_bindgen(js_name = renderItem, unchecked_return_type = "Object")]
pub fn render_item(
    #[wasm_bindgen(unchecked_param_type = "ElasticJob")] job: JsValue,
    #[wasm_bindgen(unchecked_param_type = "number")] index: JsValue,
    #[wasm_bindgen(js_name = scalePlan, unchecked_optional_param_type = "ScalePlan | null")] scale_plan: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "Options | null")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let run = || {
        let list = render_list(&job, &scale_plan, &options)?;
        let index: u32 = read(&index, "index")?;
        let count = list.items.len();
        list.items.into_iter().nth(index as usize).ok_or_else(|| {
            let message = format!("the job renders {count} objects, so the last index is {}", count.saturating_sub(1));
            Error::Invalid(vec![Problem::new("index", Code::OutOfRange, message)])
        })
    };
    output(run())
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

/// What `kubectl elasticjob status` shows of a job (the core's `view::job_view`): its phase and
/// conditions, per replica type the pods it wants and their counts by phase, and its scale plans
/// oldest first with what each changed. `job` and the plans are read as stored, without the core's
/// rules (a job the controller refuses is shown too); `scalePlans` is an array or a `List` of them, and plans of
/// other jobs among them, like pods of other jobs among `pods`, are left out.
///
/// # Errors
/// An `ElasticJobError` when an argument does not have the shape of its type or has a field it
/// does not know.
#[wasm_bindgen(js_name = jobView, unchecked_return_type = "JobView")]
pub fn job_view(
    #[wasm_bindgen(unchecked_param_type = "ElasticJob")] job: JsValue,
    #[wasm_bindgen(js_name = scalePlans, unchecked_param_type = "ScalePlans")] scale_plans: JsValue,
    #[wasm_bindgen(unchecked_param_type = "Pods")] pods: JsValue,
) -> Result<JsValue, JsValue> {
    // The readers the other functions use (`parse::strict`: shapes and unknown fields, not the
    // rules), so no second copy of the job's and the plan's readers is built into the wasm.
    let read_all = || {
        let job = parse::strict::<ElasticJob>(value(&job, "")?)?;
        let plans = parse::scale_plans(value(&scale_plans, "scalePlans")?)?;
        elasticjob::view::job_view(&job, &plans, &read_pods(&pods)?)
    };
    output(read_all())
}

/// Reads a JavaScript value as JSON, with `root` in front of the path of a refusal.
fn value(value: &JsValue, root: &str) -> Result<Value> {
    json::from_js(value).map_err(|e| if root.is_empty() { e } else { e.prefixed(root) })
}

fn read_job(job: &JsValue) -> Result<ElasticJob> {
    parse::job(value(job, "")?)
}

fn render_list(job: &JsValue, scale_plan: &JsValue, options: &JsValue) -> Result<List> {
    let job = read_job(job)?;
    elasticjob::render(&job, read_scale_plan(scale_plan)?.as_ref(), &read_options(options)?)
}

/// Reads a required argument with a core reader; paths start with `root`.
fn required<T>(arg: &JsValue, root: &str, reader: fn(Value) -> Result<T>) -> Result<T> {
    reader(value(arg, root)?).map_err(|e| e.prefixed(root))
}

fn read_scale_plan(scale_plan: &JsValue) -> Result<Option<ScalePlan>> {
    if scale_plan.is_null() || scale_plan.is_undefined() {
        return Ok(None);
    }
    required(scale_plan, "scalePlan", parse::scale_plan).map(Some)
}

fn read_options(options: &JsValue) -> Result<Options> {
    if options.is_null() || options.is_undefined() {
        return Ok(Options::default());
    }
    read_strict(options, "options")
}

fn read_pods(pods: &JsValue) -> Result<Vec<Pod>> {
    parse::pods(value(pods, "pods")?)
}

fn read_time(now: &JsValue) -> Result<Time> {
    parse::time(&read::<String>(now, "now")?)
}

/// Reads a value of any type; shape problems start with `root`, unknown fields are ignored
/// (the types read here have none).
fn read<T: DeserializeOwned>(arg: &JsValue, root: &str) -> Result<T> {
    required(arg, root, |v| parse::from_value(v).map(|(v, _)| v))
}

/// Reads a value whose unknown fields are problems, like the core's readers of jobs and plans.
fn read_strict<T: DeserializeOwned>(arg: &JsValue, root: &str) -> Result<T> {
    required(arg, root, parse::strict)
}

/// Returns a result as plain objects, or throws its error.
fn output<T: Serialize>(result: Result<T>) -> Result<JsValue, JsValue> {
    to_js(&result.map_err(throw)?)
}

/// Plain objects through JSON text: maps become objects (never `Map`s), keys keep the order the
/// core writes them, and one `JSON.parse` is faster than building the objects one by one.
fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsValue> {
    let text = json::to_text(value, false).map_err(|e| js_sys::Error::new(&e.to_string()))?;
    js_sys::JSON::parse(&text)
}

/// The core's error as an [`ElasticJobError`].
fn throw(error: Error) -> JsValue {
    let report = error.report();
    let errors = to_js(&report.errors).unwrap_or(JsValue::NULL);
    ElasticJobError::new(&report.message, &report.code, &errors).into()
}
