//! A Kubeflow `TFJob` (`kubeflow.org/v1`, training-operator v1.9) as the equivalent `ElasticJob`,
//! with a note, at its path in the TFJob, for everything that has no equivalent or behaves
//! differently ([`from_tf_job`]).
//!
//! Every default and mapping follows training-operator v1.9.4's code: the types of
//! `pkg/apis/kubeflow.org/v1/tensorflow_types.go` and `common_types.go`, the defaults of
//! `tensorflow_defaults.go` (`SetDefaults_TFJob`), the admission rules of
//! `pkg/webhooks/tensorflow/tfjob_webhook.go` and the controller of `pkg/controller.v1/tensorflow/`
//! with `pkg/core/pod.go`. Every default Kubeflow applies is written out (`replicas: 1`,
//! `restartPolicy: Never`, `cleanPodPolicy: None`), so that DLRover's master, which reads an
//! absent count as 0, reads the job Kubeflow ran; the `tensorflow` container goes first, where
//! the master reads requests; what the master does instead of a replica's restart policy, and
//! what it plans where the container asks for other resources, is a note; a TFJob the master
//! cannot run (no PS or no Worker) is refused.
//!
//! The result is checked by every rule [`parse::job`] checks a job with, so it is a valid
//! ElasticJob or the conversion is an error; a problem of the ElasticJob is reported at the
//! TFJob's path it comes from.

use std::collections::BTreeMap;

use crate::podspec::ObjectMeta;
use crate::podspec::PodTemplateSpec;
use serde::Serialize;
use serde_json::Value;

use crate::api::{
    self, CleanPodPolicy, DistributionStrategy, ElasticJob, ElasticJobSpec, ReplicaSpec, ReplicaType, RestartPolicy,
    RunPolicy, SchedulingPolicy, TypeMap,
};
use crate::error::{self, Code, Error, Problem, Result, into_result};
use crate::fields::deserialize_defaults;
use crate::quantity::{self, Amount};
use crate::{job, naming, parse, validate};

/// The `apiVersion` of a TFJob this module converts.
pub const TF_JOB_API_VERSION: &str = "kubeflow.org/v1";

/// What a conversion gives: the ElasticJob and the notes about it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Conversion {
    /// The equivalent ElasticJob; it validates.
    pub elastic_job: ElasticJob,
    /// What has no equivalent or behaves differently, sorted by path.
    pub notes: Vec<Note>,
}

/// One thing a person should know about a conversion: where it is in the TFJob and what the
/// ElasticJob does instead.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Note {
    /// The field path in the TFJob, e.g. `spec.runPolicy.schedulingPolicy`.
    pub path: String,
    /// What happens to it.
    pub message: String,
}

/// A TFJob as `kubeflow.org/v1` has it (`tensorflow_types.go`); `status` is read and dropped.
/// Read by `deserialize_defaults!` (below) with the keys beside the fields; the JSON Schema
/// derived in tests, from the same names as serde would read, holds them.
#[derive(Default)]
#[cfg_attr(all(test, feature = "schema"), derive(schemars::JsonSchema), serde(rename_all = "camelCase", default))]
struct TfJob {
    api_version: Option<String>,
    kind: Option<String>,
    metadata: ObjectMeta,
    spec: TfJobSpec,
    #[cfg_attr(all(test, feature = "schema"), serde(rename = "status"))]
    _status: Option<Value>,
}

#[derive(Default)]
#[cfg_attr(all(test, feature = "schema"), derive(schemars::JsonSchema), serde(rename_all = "camelCase", default))]
struct TfJobSpec {
    run_policy: Option<TfRunPolicy>,
    success_policy: Option<String>,
    tf_replica_specs: Option<BTreeMap<String, TfReplicaSpec>>,
    enable_dynamic_worker: Option<bool>,
}

/// Kubeflow's `RunPolicy` (`common_types.go`).
#[derive(Default)]
#[cfg_attr(all(test, feature = "schema"), derive(schemars::JsonSchema), serde(rename_all = "camelCase", default))]
struct TfRunPolicy {
    clean_pod_policy: Option<CleanPodPolicy>,
    ttl_seconds_after_finished: Option<i32>,
    active_deadline_seconds: Option<i64>,
    backoff_limit: Option<i32>,
    scheduling_policy: Option<SchedulingPolicy>,
    suspend: Option<bool>,
    managed_by: Option<String>,
}

/// Kubeflow's `ReplicaSpec` (`common_types.go`): its restart policies are the ElasticJob's.
#[derive(Default)]
#[cfg_attr(all(test, feature = "schema"), derive(schemars::JsonSchema), serde(rename_all = "camelCase", default))]
struct TfReplicaSpec {
    replicas: Option<i32>,
    template: PodTemplateSpec,
    restart_policy: Option<RestartPolicy>,
}

deserialize_defaults! {
    test tf_job_keys_are_the_read_ones;
    TfJob { api_version "apiVersion", kind "kind", metadata "metadata", spec "spec", _status "status", }
    TfJobSpec {
        run_policy "runPolicy", success_policy "successPolicy", tf_replica_specs "tfReplicaSpecs",
        enable_dynamic_worker "enableDynamicWorker",
    }
    TfRunPolicy {
        clean_pod_policy "cleanPodPolicy", ttl_seconds_after_finished "ttlSecondsAfterFinished",
        active_deadline_seconds "activeDeadlineSeconds", backoff_limit "backoffLimit",
        scheduling_policy "schedulingPolicy", suspend "suspend", managed_by "managedBy",
    }
    TfReplicaSpec { replicas "replicas", template "template", restart_policy "restartPolicy", }
}

/// The TFJob replica types (`tensorflow_types.go`) and what each becomes. `Master` is TensorFlow's
/// older name for the chief (`IsChiefOrMaster`).
const TYPES: [(&str, ReplicaType); 5] = [
    ("PS", ReplicaType::Ps),
    ("Worker", ReplicaType::Worker),
    ("Chief", ReplicaType::Chief),
    ("Master", ReplicaType::Chief),
    ("Evaluator", ReplicaType::Evaluator),
];

/// The ElasticJob a Kubeflow TFJob (JSON, as read from YAML or JSON) becomes, and the notes about
/// it.
///
/// # Errors
/// [`Error::Parse`] when the input is not an object; [`Error::Invalid`] with every problem at its
/// path in the TFJob: a field of the wrong type, an unknown field, a replica type TFJob does not
/// have, both `Chief` and `Master`, or what the ElasticJob cannot hold (a job name longer than 37
/// characters, a second chief).
pub fn from_tf_job(value: Value) -> Result<Conversion> {
    let tf: TfJob = parse::checked(value, tf_job_rules)?;
    let mut notes = Vec::new();
    let mut keys = TypeMap::new();
    let spec = &tf.spec;
    let run_policy = spec.run_policy.as_ref();
    let backoff_limit = run_policy.and_then(|r| r.backoff_limit);
    let mut replica_specs = TypeMap::new();
    for (key, replica) in spec.tf_replica_specs.iter().flatten() {
        let Some((name, replica_type)) = replica_type(key) else { continue };
        let path = format!("spec.tfReplicaSpecs.{key}");
        keys.insert(replica_type, key.clone());
        if name == "Master" {
            notes.push(note(
                &path,
                "`Master` becomes `chief`, TensorFlow's newer name for it: the task's TF_CONFIG type is `chief`, not `master`",
            ));
        }
        replica_specs.insert(replica_type, replica_spec(replica, replica_type, &path, backoff_limit, &mut notes));
    }
    let has = |t| replica_specs.contains_key(&t);
    if has(ReplicaType::Ps) && has(ReplicaType::Worker) && !has(ReplicaType::Chief) {
        notes.push(note(
            "spec.tfReplicaSpecs",
            "no `Chief`: Kubeflow's worker 0 acts as the chief with TF_CONFIG type `worker`; DLRover's master runs one worker as the chief (TF_CONFIG type `chief`)",
        ));
    }
    if let Some(policy) = spec.success_policy.as_deref().filter(|p| !p.is_empty()) {
        notes.push(note(
            "spec.successPolicy",
            &format!("`{policy}` is not carried: an ElasticJob has no success policy; it finishes when DLRover's master does, the master deciding from its tasks"),
        ));
    }
    if spec.enable_dynamic_worker == Some(true) {
        notes.push(note(
            "spec.enableDynamicWorker",
            "not carried: Kubeflow gives each task a sparse TF_CONFIG (itself, and for a worker the parameter servers: `genTFConfigJSONStr`) so that workers can come and go; DLRover's master scales the workers itself with ScalePlans, and each task's TF_CONFIG lists the cluster of the plan in force",
        ));
    }
    let run_policy = run_policy_of(run_policy, &mut notes);
    let elastic_job = ElasticJob {
        api_version: Some(api::API_VERSION.to_owned()),
        kind: Some(api::KIND_ELASTIC_JOB.to_owned()),
        metadata: metadata(&tf.metadata, &mut notes),
        spec: ElasticJobSpec {
            distribution_strategy: Some(DistributionStrategy::ParameterServerStrategy),
            replica_specs,
            suspend: spec.run_policy.as_ref().and_then(|r| r.suspend),
            run_policy: Some(run_policy),
            ..ElasticJobSpec::default()
        },
        status: None,
    };
    // Checked as parse::job checks a job read from JSON (its shape is the type's already):
    // serialising it to a JSON value to read it back would compile every Kubernetes type's
    // serialiser once more into the npm package's WebAssembly (46 KB gzipped).
    into_result(validate::validate_job(&elastic_job)).map_err(|e| in_tf_job(e, &keys))?;
    planned_resources(&elastic_job, &keys, &mut notes);
    error::sort_by(&mut notes, |a, b| a.path.cmp(&b.path));
    Ok(Conversion { elastic_job, notes })
}

/// The TFJob's own rules: its type, its replica types (matched case-insensitively, as
/// `setTypeNameToCamelCase` in `defaulting_utils.go` does), at most one of `Chief` and `Master`
/// (`tfjob_webhook.go`), and a success policy Kubeflow knows.
fn tf_job_rules(tf: &TfJob) -> Vec<Problem> {
    let mut p = Vec::new();
    if tf.api_version.as_deref() != Some(TF_JOB_API_VERSION) {
        let given = tf.api_version.as_deref().map_or_else(|| "none".to_owned(), |v| format!("`{v}`"));
        p.push(Problem::new(
            "apiVersion",
            Code::InvalidValue,
            format!("a TFJob's apiVersion is `{TF_JOB_API_VERSION}`, not {given}"),
        ));
    }
    if tf.kind.as_deref() != Some(api::KIND_TF_JOB) {
        let given = tf.kind.as_deref().map_or_else(|| "none".to_owned(), |k| format!("`{k}`"));
        p.push(Problem::new("kind", Code::InvalidValue, format!("`convert` reads a `TFJob`, not {given}")));
    }
    let specs = tf.spec.tf_replica_specs.as_ref();
    if specs.is_none_or(BTreeMap::is_empty) {
        p.push(Problem::new("spec.tfReplicaSpecs", Code::Required, "a TFJob needs at least one replica type"));
    }
    // Each type given (its name), with the key that gave it last, in the names' order: at most
    // four, a list rather than one more type of tree.
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for key in specs.into_iter().flat_map(BTreeMap::keys) {
        let path = format!("spec.tfReplicaSpecs.{key}");
        let Some((name, _)) = replica_type(key) else {
            p.push(Problem::new(
                path,
                Code::InvalidValue,
                format!("`{key}` is not a TFJob replica type: use PS, Worker, Chief, Master or Evaluator"),
            ));
            continue;
        };
        webhook_containers(&mut p, &path, tf.spec.tf_replica_specs.as_ref().and_then(|s| s.get(key)));
        let chief = if name == "Master" { "Chief" } else { name };
        let given = match seen.binary_search_by(|(t, _)| (*t).cmp(chief)) {
            Ok(at) => seen.get_mut(at).map(|(_, was)| std::mem::replace(was, key)),
            Err(at) => {
                seen.insert(at, (chief, key));
                None
            }
        };
        if let Some(first) = given {
            let message = if chief == "Chief" && !first.eq_ignore_ascii_case(key) {
                format!("`{first}` and `{key}` are both the chief (Master is its older name); keep one")
            } else {
                format!("`{first}` and `{key}` are the same replica type; keep one")
            };
            p.push(Problem::new(path, Code::Duplicate, message));
        }
    }
    // DLRover's master runs parameter-server jobs only, and stops without a PS or a worker spec
    // (`KeyError`, `DistributedJobManager.__init__`): no pod would ever be made.
    let missing: Vec<&str> = ["PS", "Worker"].into_iter().filter(|t| !seen.iter().any(|(s, _)| s == t)).collect();
    if !seen.is_empty() && !missing.is_empty() {
        let types: Vec<String> = seen.iter().map(|(t, _)| format!("`{t}`")).collect();
        p.push(Problem::new(
            "spec.tfReplicaSpecs",
            Code::Required,
            format!(
                "no {}: a TFJob of {} does not run on DLRover's master, which runs parameter-server jobs (ParameterServerStrategy) and needs `PS` and `Worker` replicas; without them it stops at start with `KeyError: '{}'` and makes no pod. A MultiWorkerMirroredStrategy or single-replica TFJob has no ElasticJob equivalent: keep it on Kubeflow's training-operator, or give it `PS` and `Worker` replicas if it trains with ParameterServerStrategy",
                missing.iter().map(|t| format!("`{t}`")).collect::<Vec<_>>().join(" and "),
                types.join(", "),
                if missing.contains(&"PS") { "ps" } else { "worker" },
            ),
        ));
    }
    if let Some(policy) = tf.spec.success_policy.as_deref().filter(|s| !s.is_empty() && *s != "AllWorkers") {
        p.push(Problem::new(
            "spec.successPolicy",
            Code::InvalidValue,
            format!("`{policy}` is not a TFJob success policy: use `AllWorkers`, or leave it out"),
        ));
    }
    p
}

/// What Kubeflow's webhook requires of a replica's containers (`validateTFReplicaSpecs`,
/// `pkg/webhooks/tensorflow/tfjob_webhook.go`): at least one, each with an image, one named
/// `tensorflow` (the container Kubeflow configures).
fn webhook_containers(p: &mut Vec<Problem>, path: &str, replica: Option<&TfReplicaSpec>) {
    let containers =
        replica.and_then(|r| r.template.spec.as_ref()).map(|s| s.containers.as_slice()).unwrap_or_default();
    let at = format!("{path}.template.spec.containers");
    if containers.is_empty() {
        return; // The ElasticJob's own rule says it, at this path.
    }
    for (i, c) in containers.iter().enumerate() {
        if c.image.as_deref().is_none_or(str::is_empty) {
            p.push(Problem::new(
                format!("{at}[{i}].image"),
                Code::Required,
                "the container has no image; Kubeflow's webhook refuses it, and so does convert",
            ));
        }
    }
    if !containers.iter().any(|c| c.name == TENSORFLOW) {
        p.push(Problem::new(
            at,
            Code::Required,
            format!("no container named `{TENSORFLOW}`: Kubeflow's webhook requires one (it is the container Kubeflow gives TF_CONFIG); name the training container `{TENSORFLOW}`"),
        ));
    }
}

/// The container Kubeflow configures (`TFJobDefaultContainerName`).
const TENSORFLOW: &str = "tensorflow";

/// The TFJob replica type a key names, case-insensitively, and what it becomes.
fn replica_type(key: &str) -> Option<(&'static str, ReplicaType)> {
    TYPES.into_iter().find(|(name, _)| name.eq_ignore_ascii_case(key))
}

fn note(path: &str, message: &str) -> Note {
    Note { path: path.to_owned(), message: message.to_owned() }
}

/// The most relaunches DLRover 0.6.1's master allows a pod whatever `restartCount` says
/// (`_MAX_POD_RELAUNCH_COUNT`, `dlrover/python/master/node/dist_job_manager.py`).
const MASTER_MAX_RELAUNCHES: i32 = 5;

/// What DLRover 0.6.1's master does when a task pod fails, whatever the replica's restartPolicy
/// (it reads none): the exit code of the first container decides (`_get_pod_exit_reason`,
/// `master/watcher/k8s_watcher.py`; `_should_relaunch`, `master/node/dist_job_manager.py`).
const MASTER_RELAUNCHES: &str = "DLRover's master reads no replica's restartPolicy; it relaunches a failed pod as a new pod at the same rank by the first container's exit code: 137 or 143 (killed) always, an out-of-memory one (247, OOMKilled) with more memory, 1 and 134 never (unless the worker template's restartPolicy is `Always`), any other code while the rank's relaunches are below restartCount (the worker's for chief, workers and evaluator, the PS's for parameter servers; 3 when absent, at most 5)";

/// One replica spec. Kubeflow's defaults written out (`SetDefaults_TFJob`: replicas 1, restart
/// policy `Never`), the `tensorflow` container first (DLRover's master reads the first
/// container's requests, and the core gives the first TF_CONFIG), and a `restartCount` that makes
/// DLRover's master relaunch as near Kubeflow's policy as its rules allow (`MASTER_RELAUNCHES`):
/// 0 for `Never`, else the job's `backoffLimit` up to 5.
fn replica_spec(
    tf: &TfReplicaSpec,
    replica_type: ReplicaType,
    path: &str,
    backoff_limit: Option<i32>,
    notes: &mut Vec<Note>,
) -> ReplicaSpec {
    let mut template = tf.template.clone();
    if let Some(pod_policy) = template.spec.as_mut().and_then(|s| s.restart_policy.take()) {
        notes.push(note(
            &format!("{path}.template.spec.restartPolicy"),
            &format!("`{pod_policy}` is dropped, as Kubeflow replaces it with the replica's restartPolicy: an ElasticJob's pods run with `Never` and DLRover's master relaunches a failed pod as a new one"),
        ));
    }
    if let Some(spec) = template.spec.as_mut() {
        if let Some(at) = spec.containers.iter().position(|c| c.name == TENSORFLOW).filter(|at| *at > 0) {
            let tensorflow = spec.containers.remove(at);
            spec.containers.insert(0, tensorflow);
            notes.push(note(
                &format!("{path}.template.spec.containers[{at}]"),
                "the `tensorflow` container is put first: Kubeflow configures the container of that name, DLRover's master reads the first container's requests and the pod's TF_CONFIG, DLRover env and planned resources go on the first",
            ));
        }
    }
    tfjob_ports(&template, naming::service_port(replica_type), path, notes);
    let replicas = tf.replicas.unwrap_or_else(|| {
        notes.push(note(
            &format!("{path}.replicas"),
            "written as 1, Kubeflow's default (`SetDefaults_TFJob`); DLRover's master reads an absent count as 0",
        ));
        1
    });
    let policy = tf.restart_policy.unwrap_or_else(|| {
        notes.push(note(
            &format!("{path}.restartPolicy"),
            "written as `Never`, Kubeflow's default for a TFJob (`TFJobDefaultRestartPolicy`)",
        ));
        RestartPolicy::Never
    });
    let (restart_count, why) = match policy {
        RestartPolicy::Never => (0, "restartCount 0, so that only a killed pod is relaunched".to_owned()),
        _ => match backoff_limit.filter(|l| *l >= 0) {
            Some(limit) if limit < MASTER_MAX_RELAUNCHES => {
                (limit, format!("restartCount {limit}, the job's runPolicy.backoffLimit"))
            }
            _ => (MASTER_MAX_RELAUNCHES, format!("restartCount {MASTER_MAX_RELAUNCHES}, the most the master allows")),
        },
    };
    let whose = if matches!(replica_type, ReplicaType::Chief | ReplicaType::Evaluator) {
        " (the master applies the worker's to this replica)"
    } else {
        ""
    };
    notes.push(note(
        &format!("{path}.restartPolicy"),
        &format!("`{policy:?}` is kept but not what decides: {MASTER_RELAUNCHES}; written with {why}{whose}"),
    ));
    ReplicaSpec {
        replicas: Some(replicas),
        template,
        restart_policy: Some(policy),
        restart_count: Some(restart_count),
        ..ReplicaSpec::default()
    }
}

/// A note where DLRover 0.6.1's master will not plan what the `tensorflow` container asks for:
/// it reads only the first container's requests and its resource optimizer replaces some
/// (`job::master_first_plan`), and each pod gets the plan's resource as request and limit. Said
/// for a container that requests nothing (what the master plans instead), and for one whose
/// requests or limits differ from the plan (the difference).
fn planned_resources(job: &ElasticJob, keys: &TypeMap<String>, notes: &mut Vec<Note>) {
    let plan = job::master_first_plan(job);
    for (replica_type, key) in keys {
        let (Some(group), Some(spec)) = (plan.get(replica_type), job.declared_replica_spec(*replica_type)) else {
            continue;
        };
        let planned = group.resource();
        let container = spec.template.spec.as_ref().and_then(|s| s.containers.first());
        let resources = container.and_then(|c| c.resources.as_ref());
        let requests = resources.and_then(|r| r.requests.as_ref()).filter(|r| !r.is_empty());
        let limits = resources.and_then(|r| r.limits.as_ref());
        let shown = |list: &api::ResourceList| -> String {
            list.iter().map(|(k, q)| format!("{k} {}", quantity::canonical(&q.0))).collect::<Vec<_>>().join(", ")
        };
        let differs = |given: Option<&api::ResourceList>| {
            given.into_iter().flatten().any(|(k, q)| {
                let plan = planned.get(k).and_then(|p| Amount::parse(&p.0).ok());
                plan.is_some_and(|p| Amount::parse(&q.0).ok() != Some(p))
            })
        };
        let path = format!("spec.tfReplicaSpecs.{key}.template.spec.containers");
        let what = format!(
            "DLRover 0.6.1's master plans each {replica_type} pod {} (it reads the first container's requests, and its resource optimizer gives an auto-scaled PS or worker its own CPUs: see docs/testing.md), and the pod gets that as request and limit",
            shown(&planned)
        );
        let message = match requests {
            None => Some(format!(
                "the `{TENSORFLOW}` container requests nothing: {what}; give it requests, and `autoScale: false` on PS and Worker to keep them"
            )),
            Some(r) if differs(Some(r)) || differs(limits) => {
                let limit =
                    limits.filter(|l| !l.is_empty()).map(|l| format!(" and limits {}", shown(l))).unwrap_or_default();
                Some(format!("the `{TENSORFLOW}` container requests {}{limit}: {what}", shown(r)))
            }
            Some(_) => None,
        };
        if let Some(message) = message {
            notes.push(note(&path, &message));
        }
    }
}

/// A note on a container port named `tfjob-port` (`TFJobDefaultPortName`) other than `port`:
/// Kubeflow's TF_CONFIG lists it (`tensorflow/util.go`, `GetPortFromTFJob`); an ElasticJob's lists
/// DLRover's port of the replica type.
fn tfjob_ports(template: &PodTemplateSpec, port: i32, path: &str, notes: &mut Vec<Note>) {
    let containers = template.spec.iter().flat_map(|s| s.containers.iter().enumerate());
    for (i, container) in containers {
        for (j, declared) in container.ports.iter().flatten().enumerate() {
            let declared_port = declared.get("containerPort").and_then(serde_json::Value::as_i64).unwrap_or_default();
            if declared.get("name").and_then(serde_json::Value::as_str) == Some("tfjob-port")
                && declared_port != i64::from(port)
            {
                notes.push(note(
                    &format!("{path}.template.spec.containers[{i}].ports[{j}]"),
                    &format!(
                        "kept, but TF_CONFIG lists this task at port {port}, DLRover's, not {declared_port}: the task must listen where TF_CONFIG says"
                    ),
                ));
            }
        }
    }
}

/// The run policy: its five common fields carried (`schedulingPolicy` as Kubeflow reads it: only
/// when the controller runs a gang scheduler), `cleanPodPolicy` written as `None` when absent
/// (`SetDefaults_TFJob`), `suspend` moved to `spec.suspend`, and what has no equivalent noted.
fn run_policy_of(tf: Option<&TfRunPolicy>, notes: &mut Vec<Note>) -> RunPolicy {
    let tf_default = TfRunPolicy::default();
    let tf = tf.unwrap_or(&tf_default);
    let clean_pod_policy = tf.clean_pod_policy.unwrap_or_else(|| {
        notes.push(note(
            "spec.runPolicy.cleanPodPolicy",
            "written as `None`, Kubeflow's default for a TFJob (`SetDefaults_TFJob`): a finished job's pods are kept; an ElasticJob without it stops them (`Running`)",
        ));
        CleanPodPolicy::None
    });
    if tf.backoff_limit.is_some() {
        notes.push(note(
            "spec.runPolicy.backoffLimit",
            "counts the task pods that failed (each relaunched as a new pod), where Kubeflow counts container restarts",
        ));
    }
    if let Some(manager) = &tf.managed_by {
        notes.push(note(
            "spec.runPolicy.managedBy",
            &format!("`{manager}` is not carried: an ElasticJob is always run by the elasticjob controller"),
        ));
    }
    RunPolicy {
        clean_pod_policy: Some(clean_pod_policy),
        ttl_seconds_after_finished: tf.ttl_seconds_after_finished,
        active_deadline_seconds: tf.active_deadline_seconds,
        backoff_limit: tf.backoff_limit,
        scheduling_policy: tf.scheduling_policy.clone(),
    }
}

/// The metadata a person writes: name, namespace, labels and annotations. What the API server
/// writes (uid, resourceVersion, managedFields, ...) is dropped; what ties the TFJob to other
/// objects is dropped with a note.
fn metadata(tf: &ObjectMeta, notes: &mut Vec<Note>) -> ObjectMeta {
    let mut annotations = tf.annotations.clone();
    if annotations.as_mut().and_then(|a| a.remove(naming::LAST_APPLIED_ANNOTATION)).is_some() {
        notes.push(note(
            &format!("metadata.annotations.{}", naming::LAST_APPLIED_ANNOTATION),
            "dropped: it is the TFJob as kubectl applied it; apply the ElasticJob to write its own",
        ));
    }
    let tied = [
        ("generateName", tf.generate_name.is_some()),
        ("ownerReferences", tf.owner_references.as_ref().is_some_and(|o| !o.is_empty())),
        ("finalizers", tf.finalizers.as_ref().is_some_and(|f| !f.is_empty())),
    ];
    for (field, _) in tied.into_iter().filter(|(_, given)| *given) {
        notes.push(note(&format!("metadata.{field}"), "not carried: it belongs to the TFJob"));
    }
    ObjectMeta {
        name: tf.name.clone(),
        namespace: tf.namespace.clone(),
        labels: tf.labels.clone().filter(|l| !l.is_empty()),
        annotations: annotations.filter(|a| !a.is_empty()),
        ..ObjectMeta::default()
    }
}

/// The ElasticJob's problems at the TFJob's paths: `spec.replicaSpecs.chief` at
/// `spec.tfReplicaSpecs.Master` when the chief came from there, `spec.suspend` at
/// `spec.runPolicy.suspend`.
fn in_tf_job(error: Error, keys: &TypeMap<String>) -> Error {
    let path = |p: &str| -> String {
        if let Some(rest) = p.strip_prefix("spec.replicaSpecs.") {
            let (ty, tail) = rest.find(['.', '[']).map_or((rest, ""), |at| rest.split_at(at));
            if let Some(key) = ReplicaType::parse(ty).and_then(|t| keys.get(&t)) {
                return format!("spec.tfReplicaSpecs.{key}{tail}");
            }
        }
        if p == "spec.suspend" { "spec.runPolicy.suspend".to_owned() } else { p.to_owned() }
    };
    let fix = |mut problem: Problem| {
        problem.path = path(&problem.path);
        problem
    };
    match error {
        Error::Parse(p) => Error::Parse(fix(p)),
        Error::Invalid(ps) => {
            let mut ps: Vec<Problem> = ps.into_iter().map(fix).collect();
            error::sort_by(&mut ps, Ord::cmp);
            Error::Invalid(ps)
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn container() -> Value {
        json!({"spec": {"containers": [{"name": "tensorflow", "image": "tf:2"}]}})
    }

    fn tf_job(specs: Value) -> Value {
        json!({"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": {"name": "j"}, "spec": {"tfReplicaSpecs": specs}})
    }

    fn problems(value: Value) -> Vec<(String, Code)> {
        match from_tf_job(value) {
            Ok(_) => Vec::new(),
            Err(e) => e.problems().iter().map(|p| (p.path.clone(), p.code)).collect(),
        }
    }

    #[test]
    fn defaults_that_differ_are_written_out() {
        let c = from_tf_job(tf_job(json!({"PS": {"restartPolicy": "Never", "template": container()},
            "Worker": {"template": container()}})))
        .unwrap();
        let spec = &c.elastic_job.spec;
        let worker = spec.replica_specs.get(&ReplicaType::Worker).unwrap();
        assert_eq!((worker.replicas, worker.restart_policy), (Some(1), Some(RestartPolicy::Never)));
        // Never: only a killed pod is relaunched by DLRover's master.
        assert_eq!(worker.restart_count, Some(0));
        assert_eq!(spec.run_policy.as_ref().and_then(|r| r.clean_pod_policy), Some(CleanPodPolicy::None));
        assert_eq!(spec.distribution_strategy, Some(DistributionStrategy::ParameterServerStrategy));
        let paths: Vec<&str> = c.notes.iter().map(|n| n.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "spec.runPolicy.cleanPodPolicy",
                "spec.tfReplicaSpecs",
                "spec.tfReplicaSpecs.PS.replicas",
                "spec.tfReplicaSpecs.PS.restartPolicy",
                "spec.tfReplicaSpecs.PS.template.spec.containers",
                "spec.tfReplicaSpecs.Worker.replicas",
                "spec.tfReplicaSpecs.Worker.restartPolicy",
                "spec.tfReplicaSpecs.Worker.restartPolicy",
                "spec.tfReplicaSpecs.Worker.template.spec.containers",
            ]
        );
        // What the master plans for a container that requests nothing.
        let worker_note = c.notes.iter().find(|n| n.path == "spec.tfReplicaSpecs.Worker.template.spec.containers");
        assert!(
            worker_note
                .is_some_and(|n| n.message.contains("requests nothing") && n.message.contains("cpu 16, memory 0"))
        );
    }

    #[test]
    fn a_relaunching_policy_gets_the_backoff_limit_or_no_limit() {
        let mut job = tf_job(
            json!({"PS": {"template": container()}, "Worker": {"restartPolicy": "OnFailure", "template": container()}}),
        );
        let c = from_tf_job(job.clone()).unwrap();
        // Without a backoffLimit, the most DLRover's master allows.
        assert_eq!(c.elastic_job.spec.replica_specs.get(&ReplicaType::Worker).unwrap().restart_count, Some(5));
        job["spec"]["runPolicy"] = json!({"backoffLimit": 2});
        let c = from_tf_job(job).unwrap();
        assert_eq!(c.elastic_job.spec.replica_specs.get(&ReplicaType::Worker).unwrap().restart_count, Some(2));
        assert_eq!(c.elastic_job.spec.run_policy.and_then(|r| r.backoff_limit), Some(2));
    }

    #[test]
    fn replica_types_match_in_any_case_and_master_is_the_chief() {
        let c = from_tf_job(tf_job(json!({"master": {"template": container()}, "ps": {"template": container()},
                "WORKER": {"template": container()}})))
        .unwrap();
        let types: Vec<ReplicaType> = c.elastic_job.spec.replica_specs.keys().copied().collect();
        assert_eq!(types, [ReplicaType::Ps, ReplicaType::Chief, ReplicaType::Worker]);
        assert!(c.notes.iter().any(|n| n.path == "spec.tfReplicaSpecs.master" && n.message.contains("`chief`")));
    }

    #[test]
    fn chief_and_master_together_are_refused_at_their_path() {
        let job = tf_job(json!({"Chief": {"template": container()}, "Master": {"template": container()},
            "PS": {"template": container()}, "Worker": {"template": container()}}));
        assert_eq!(problems(job), [("spec.tfReplicaSpecs.Master".to_owned(), Code::Duplicate)]);
    }

    #[test]
    fn what_is_not_a_tf_job_is_refused_with_paths() {
        assert_eq!(problems(json!([])).len(), 1);
        assert_eq!(
            problems(json!({"apiVersion": "kubeflow.org/v2", "kind": "PyTorchJob", "metadata": {"name": "j"},
                "spec": {"tfReplicaSpecs": {"Launcher": {"template": container()}}, "foo": 1}})),
            [
                ("apiVersion".to_owned(), Code::InvalidValue),
                ("kind".to_owned(), Code::InvalidValue),
                ("spec.foo".to_owned(), Code::UnknownField),
                ("spec.tfReplicaSpecs.Launcher".to_owned(), Code::InvalidValue),
            ]
        );
        assert_eq!(
            problems(tf_job(
                json!({"PS": {"template": container()}, "Worker": {"restartPolicy": "Sometimes", "replicas": "2", "template": container()}})
            )),
            [
                ("spec.tfReplicaSpecs.Worker.replicas".to_owned(), Code::InvalidType),
                ("spec.tfReplicaSpecs.Worker.restartPolicy".to_owned(), Code::InvalidValue),
            ]
        );
        assert_eq!(problems(tf_job(json!({}))), [("spec.tfReplicaSpecs".to_owned(), Code::Required)]);
    }

    #[test]
    fn what_the_elastic_job_cannot_hold_is_at_the_tf_job_path() {
        let mut job =
            tf_job(json!({"Master": {"replicas": 2, "template": container()}, "PS": {"template": container()},
            "Worker": {"template": {}}}));
        job["metadata"]["name"] = json!("a".repeat(40));
        job["spec"]["runPolicy"] = json!({"activeDeadlineSeconds": 0});
        let found = problems(job);
        let paths: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            paths,
            [
                "metadata.name",
                "spec.runPolicy.activeDeadlineSeconds",
                "spec.tfReplicaSpecs.Master.replicas",
                "spec.tfReplicaSpecs.Worker.template.spec.containers"
            ]
        );
    }

    #[test]
    fn workers_only_and_single_replica_tf_jobs_are_refused_with_why() {
        for (specs, missing) in [
            (json!({"Worker": {"replicas": 4, "template": container()}}), "no `PS`"),
            (json!({"Chief": {"template": container()}}), "no `PS` and `Worker`"),
            (json!({"PS": {"template": container()}, "Master": {"template": container()}}), "no `Worker`"),
        ] {
            let e = from_tf_job(tf_job(specs)).err();
            let found: Vec<(String, Code, String)> =
                e.iter().flat_map(|e| e.problems()).map(|p| (p.path.clone(), p.code, p.message.clone())).collect();
            let [(path, code, message)] = found.as_slice() else { panic!("one problem: {found:?}") };
            assert_eq!((path.as_str(), *code), ("spec.tfReplicaSpecs", Code::Required));
            assert!(
                message.starts_with(missing) && message.contains("KeyError") && message.contains("keep it on Kubeflow"),
                "{message}"
            );
        }
    }

    #[test]
    fn the_tensorflow_container_goes_first_and_one_is_required() {
        let two = json!({"spec": {"containers": [{"name": "log-agent", "image": "fluent-bit:3"},
            {"name": "tensorflow", "image": "tf:2", "resources": {"requests": {"cpu": "2", "memory": "4Gi"}}}]}});
        let c = from_tf_job(tf_job(json!({"PS": {"replicas": 1, "template": container()},
            "Worker": {"replicas": 2, "template": two}})))
        .unwrap();
        let worker = c.elastic_job.spec.replica_specs.get(&ReplicaType::Worker).unwrap();
        let names: Vec<&str> =
            worker.template.spec.iter().flat_map(|s| &s.containers).map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["tensorflow", "log-agent"]);
        assert!(c.notes.iter().any(|n| n.path == "spec.tfReplicaSpecs.Worker.template.spec.containers[1]"));
        let without = json!({"spec": {"containers": [{"name": "main", "image": "tf:2"}, {"name": "sidecar"}]}});
        assert_eq!(
            problems(tf_job(json!({"PS": {"template": container()}, "Worker": {"template": without}}))),
            [
                ("spec.tfReplicaSpecs.Worker.template.spec.containers".to_owned(), Code::Required),
                ("spec.tfReplicaSpecs.Worker.template.spec.containers[1].image".to_owned(), Code::Required),
            ]
        );
    }

    #[test]
    fn parse_job_names_a_tf_job() {
        let e = parse::job(tf_job(json!({"Worker": {"template": container()}}))).err();
        let problem = e.as_ref().and_then(|e| e.problems().first().cloned());
        assert_eq!(problem.map(|p| (p.path, p.code)), Some(("kind".to_owned(), Code::TfJob)));
        assert!(!parse::is_tf_job(&json!({"apiVersion": "kubeflow.org.evil/v1", "kind": "TFJob"})));
    }
}
