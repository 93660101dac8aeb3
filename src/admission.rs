//! Admission review: what the Kubewarden policy (`policy/`) decides, as pure functions.
//!
//! The policy is a thin waPC binding over this module, so the CLI, the preview page and the
//! admission webhook refuse a job with the same problems and the same messages.
//!
//! - [`review`] decides on one admission request: an `ElasticJob` CREATE or UPDATE gets the
//!   core's full validation ([`parse::job`]), a `ScalePlan` CREATE or UPDATE the plan's own
//!   validation ([`parse::scale_plan`]), and both the cluster's [`Settings`] checks. DELETE and
//!   other kinds are accepted.
//! - [`review_payload`] does the same for the bytes Kubewarden passes to a policy's `validate`,
//!   `{"request": <AdmissionRequest>, "settings": {...}}`; a payload it cannot read is rejected with
//!   the cause, never a panic.
//! - [`Settings::from_slice`] reads and checks the settings Kubewarden passes to
//!   `validate_settings`.
//!
//! A rejection carries an [`Error`]; its message lists every problem as `PATH: MESSAGE`, joined
//! by `; `, with paths inside the reviewed object (`spec.replicaSpecs.worker.replicas`).
//!
//! ```
//! use elasticjob::admission::review_payload;
//!
//! let payload = serde_json::json!({
//!     "settings": {"maxReplicasPerType": 4},
//!     "request": {
//!         "operation": "CREATE",
//!         "kind": {"group": "elastic.iml.github.io", "version": "v1alpha1", "kind": "ElasticJob"},
//!         "object": {
//!             "apiVersion": "elastic.iml.github.io/v1alpha1",
//!             "kind": "ElasticJob",
//!             "metadata": {"name": "mnist"},
//!             "spec": {
//!                 "distributionStrategy": "ParameterServerStrategy",
//!                 "replicaSpecs": {"worker": {"replicas": 8,
//!                     "template": {"spec": {"containers": [{"name": "main", "image": "tf:2"}]}}}}
//!             }
//!         }
//!     }
//! });
//! let verdict = review_payload(payload.to_string().as_bytes());
//! assert_eq!(verdict.code(), Some(400));
//! assert_eq!(
//!     verdict.message().as_deref(),
//!     Some("spec.replicaSpecs.worker.replicas: 8 worker replicas is more than the 4 per type this cluster allows (policy setting maxReplicasPerType)")
//! );
//! ```

use std::fmt::Write as _;

use k8s_openapi::api::core::v1::{PodSpec, SecurityContext};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::api::{self, DistributionStrategy, ElasticJob, ReplicaType, ScalePlan};
use crate::error::{Code, Error, Problem, Result, into_result, join};
use crate::{parse, validate};

/// The HTTP code of a rejected request: the object (or the request itself) is wrong.
pub const CODE_INVALID: u16 = 400;

/// The HTTP code of a rejection caused by the policy's own settings, not by the request.
/// Kubewarden checks settings with `validate_settings` before it serves a policy, so this is only
/// seen when settings are passed to `validate` without that check (e.g. a hand-made payload).
pub const CODE_BAD_SETTINGS: u16 = 500;

/// The settings of the admission policy: cluster rules on top of the core's validation. Every
/// check is off unless its setting is given; `{}` checks nothing but the core's rules.
///
/// Unknown fields are refused (a typo must not silently switch a check off), and so are settings
/// that contradict themselves ([`Settings::validate`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct Settings {
    /// The most replicas of any one type a job, or a scale plan's target, may ask for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_replicas_per_type: Option<u32>,
    /// The most task replicas (ps, chief, worker, evaluator) a job may ask for in all; for a scale
    /// plan, the sum of the targets it lists. The operator's own master pod is not counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_total_replicas: Option<u32>,
    /// The distribution strategies a job may use; not empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_strategies: Option<Vec<DistributionStrategy>>,
    /// Every replica template's first container (the one that trains) must have a cpu and a
    /// memory limit.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub require_resource_limits: bool,
    /// Prefixes an image of any container of a replica template must start with, e.g.
    /// `registry.example.com/ml/`; not empty. An image is compared as written and fully qualified
    /// the way the container runtime pulls it (`tf:2` is `docker.io/library/tf:2`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_image_registries: Option<Vec<String>>,
    /// No replica template may run a privileged container or use the host's network, PID or IPC
    /// namespace.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub deny_privileged: bool,
    /// The highest `restartCount` a replica spec may give.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_restart_count: Option<u32>,
}

impl Settings {
    /// Reads settings from JSON text: the payload of Kubewarden's `validate_settings`. Empty text
    /// and `null` mean no settings.
    ///
    /// # Errors
    /// [`Error::Parse`] for text that is not JSON, a wrong type or an unknown field (with its
    /// path); [`Error::Invalid`] for contradictions ([`Settings::validate`]).
    pub fn from_slice(payload: &[u8]) -> Result<Settings> {
        let text = utf8(payload, "the settings")?;
        if text.trim().is_empty() {
            return Ok(Settings::default());
        }
        let (value, _) = parse::from_json::<Value>(text)?;
        Settings::from_value(value)
    }

    /// Reads settings from a JSON value; `null` means no settings.
    ///
    /// # Errors
    /// [`Error::Parse`] for a wrong type or an unknown field (with its path); [`Error::Invalid`]
    /// for contradictions ([`Settings::validate`]).
    pub fn from_value(value: Value) -> Result<Settings> {
        if value.is_null() {
            return Ok(Settings::default());
        }
        if !value.is_object() {
            // Said in the words of settings rather than serde's `expected struct Settings`.
            return Err(Error::Parse(Problem::new(
                "",
                Code::InvalidType,
                format!("the settings are {}, not an object of setting names and values", json_type(&value)),
            )));
        }
        let (settings, _): (Settings, _) = parse::from_value(value).map_err(|e| match e {
            Error::Parse(mut p) if p.message.starts_with("unknown field") => {
                p.code = Code::UnknownField;
                Error::Parse(p)
            }
            other => other,
        })?;
        settings.validate()?;
        Ok(settings)
    }

    /// Checks that the settings do not contradict themselves: an empty `allowedStrategies` or
    /// `allowedImageRegistries` would refuse every job, an empty registry prefix would allow
    /// every image, and a `maxReplicasPerType` or `maxTotalReplicas` of 0 would refuse every job
    /// that runs a pod.
    ///
    /// # Errors
    /// [`Error::Invalid`] with every problem, each at the setting's name.
    pub fn validate(&self) -> Result<()> {
        let mut p = Vec::new();
        for (name, max) in
            [("maxReplicasPerType", self.max_replicas_per_type), ("maxTotalReplicas", self.max_total_replicas)]
        {
            if max == Some(0) {
                p.push(Problem::new(
                    name,
                    Code::OutOfRange,
                    "0 would refuse every job that runs a pod: give at least 1, or leave the setting out for no limit",
                ));
            }
        }
        if self.allowed_strategies.as_ref().is_some_and(Vec::is_empty) {
            p.push(Problem::new(
                "allowedStrategies",
                Code::Required,
                "the list is empty, so no job could be admitted: list `ParameterServerStrategy`, `AllreduceStrategy` or both, or leave the setting out to allow both",
            ));
        }
        if let Some(prefixes) = &self.allowed_image_registries {
            if prefixes.is_empty() {
                p.push(Problem::new(
                    "allowedImageRegistries",
                    Code::Required,
                    "the list is empty, so no job could be admitted: list registry prefixes such as `registry.example.com/`, or leave the setting out to allow every image",
                ));
            }
            for (i, prefix) in prefixes.iter().enumerate() {
                if prefix.trim().is_empty() {
                    p.push(Problem::new(
                        format!("allowedImageRegistries[{i}]"),
                        Code::Required,
                        "an empty prefix would allow every image: give a registry such as `registry.example.com/`",
                    ));
                }
            }
        }
        into_result(p)
    }

    /// The settings checks of a job, each problem at its field path (empty when it passes).
    /// The core's own rules are [`validate::validate_job`]'s.
    pub fn check_job(&self, job: &ElasticJob) -> Vec<Problem> {
        let mut p = Vec::new();
        for (replica_type, spec) in &job.spec.replica_specs {
            let path = format!("spec.replicaSpecs.{replica_type}");
            if let Some(max) = self.max_replicas_per_type {
                let n = spec.replicas();
                if i64::from(n) > i64::from(max) {
                    p.push(Problem::new(
                        join(&path, "replicas"),
                        Code::OutOfRange,
                        format!("{n} {replica_type} replicas is more than the {max} per type this cluster allows (policy setting maxReplicasPerType)"),
                    ));
                }
            }
            if let (Some(max), Some(n)) = (self.max_restart_count, spec.restart_count) {
                if i64::from(n) > i64::from(max) {
                    p.push(Problem::new(
                        join(&path, "restartCount"),
                        Code::OutOfRange,
                        format!(
                            "{n} relaunches is more than the {max} this cluster allows (policy setting maxRestartCount)"
                        ),
                    ));
                }
            }
            let Some(pod) = spec.template.spec.as_ref() else { continue };
            let pod_path = join(&path, "template.spec");
            if self.require_resource_limits {
                resource_limits(&mut p, &pod_path, pod);
            }
            if let Some(prefixes) = &self.allowed_image_registries {
                images(&mut p, &pod_path, pod, prefixes);
            }
            if self.deny_privileged {
                privileged(&mut p, &pod_path, pod);
            }
        }
        if let Some(max) = self.max_total_replicas {
            let counts: Vec<(ReplicaType, i64)> = ReplicaType::TASKS
                .iter()
                .filter_map(|t| job.replica_spec(*t).map(|s| (*t, i64::from(s.replicas().max(0)))))
                .collect();
            total(&mut p, "spec.replicaSpecs", &counts, max, "the job asks for");
        }
        if let (Some(allowed), Some(strategy)) = (&self.allowed_strategies, job.spec.distribution_strategy) {
            if !allowed.contains(&strategy) {
                let list: Vec<&str> = allowed.iter().map(|s| strategy_name(*s)).collect();
                p.push(Problem::new(
                    "spec.distributionStrategy",
                    Code::InvalidValue,
                    format!(
                        "`{}` is not a strategy this cluster allows: use {} (policy setting allowedStrategies)",
                        strategy_name(strategy),
                        quoted_list(&list, "or")
                    ),
                ));
            }
        }
        p
    }

    /// The settings checks that apply to a scale plan on its own (empty when it passes):
    /// `maxReplicasPerType` on every target and on the rank of every pod it creates (a pod of rank
    /// r means r + 1 replicas of its type), and `maxTotalReplicas` on the sum of the targets it
    /// lists. A plan carries no strategy, image, security setting or restart count, and the
    /// resources it gives are added to the template's limits, never removing one; so the other
    /// settings are checked when the job is admitted.
    pub fn check_scale_plan(&self, plan: &ScalePlan) -> Vec<Problem> {
        let mut p = Vec::new();
        let spec = &plan.spec;
        if let Some(max) = self.max_replicas_per_type {
            for (replica_type, target) in &spec.replica_resource_specs {
                if i64::from(target.replicas) > i64::from(max) {
                    p.push(Problem::new(
                        format!("spec.replicaResourceSpecs.{replica_type}.replicas"),
                        Code::OutOfRange,
                        format!(
                            "{} {replica_type} replicas is more than the {max} per type this cluster allows (policy setting maxReplicasPerType)",
                            target.replicas
                        ),
                    ));
                }
            }
            for (i, meta) in spec.create_pods.iter().enumerate() {
                let Some(replica_type) = meta.replica_type() else { continue };
                if i64::from(meta.rank_index) >= i64::from(max) {
                    p.push(Problem::new(
                        format!("spec.createPods[{i}].rankIndex"),
                        Code::OutOfRange,
                        format!(
                            "a {replica_type} of rank {} means at least {} {replica_type} replicas, more than the {max} per type this cluster allows (policy setting maxReplicasPerType)",
                            meta.rank_index,
                            i64::from(meta.rank_index) + 1
                        ),
                    ));
                }
            }
        }
        if let Some(max) = self.max_total_replicas {
            let counts: Vec<(ReplicaType, i64)> = spec
                .replica_resource_specs
                .iter()
                .filter(|(t, _)| **t != ReplicaType::DlroverMaster)
                .map(|(t, target)| (*t, i64::from(target.replicas.max(0))))
                .collect();
            total(&mut p, "spec.replicaResourceSpecs", &counts, max, "the plan asks for");
        }
        p
    }
}

fn resource_limits(p: &mut Vec<Problem>, pod_path: &str, pod: &PodSpec) {
    // A template without a container is the core's problem (`no_containers`).
    let Some(container) = pod.containers.first() else { return };
    let limits = container.resources.as_ref().and_then(|r| r.limits.as_ref());
    for resource in ["cpu", "memory"] {
        if !limits.is_some_and(|l| l.contains_key(resource)) {
            p.push(Problem::new(
                format!("{pod_path}.containers[0].resources.limits.{resource}"),
                Code::Required,
                format!("the first container needs a {resource} limit in this cluster (policy setting requireResourceLimits)"),
            ));
        }
    }
}

/// The `kind` of an admission request: the group, version and kind of the object.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GroupVersionKind {
    /// The API group, empty for the core group.
    pub group: String,
    /// The API version, e.g. `v1alpha1`.
    pub version: String,
    /// The kind, e.g. `ElasticJob`.
    pub kind: String,
}

/// The fields of a Kubernetes `AdmissionRequest` the review reads; the others (`uid`,
/// `userInfo`, `oldObject`, ...) are ignored.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AdmissionRequest {
    /// `CREATE`, `UPDATE`, `DELETE` or `CONNECT`.
    pub operation: String,
    /// What the object is.
    pub kind: GroupVersionKind,
    /// The object as it would be stored (`null` for DELETE).
    #[serde(default)]
    pub object: Value,
}

/// The decision on an admission request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The request may go on.
    Accepted,
    /// The request is refused.
    Rejected {
        /// The HTTP code: [`CODE_INVALID`] or [`CODE_BAD_SETTINGS`].
        code: u16,
        /// Every problem, with its field path and stable code.
        error: Error,
    },
}

impl Verdict {
    /// Whether the request may go on.
    pub fn is_accepted(&self) -> bool {
        matches!(self, Verdict::Accepted)
    }

    /// The HTTP code of a rejection.
    pub fn code(&self) -> Option<u16> {
        match self {
            Verdict::Accepted => None,
            Verdict::Rejected { code, .. } => Some(*code),
        }
    }

    /// The message of a rejection: every problem as `PATH: MESSAGE`, joined by `; ` (the
    /// [`Error`]'s display, as every other consumer shows it).
    pub fn message(&self) -> Option<String> {
        match self {
            Verdict::Accepted => None,
            Verdict::Rejected { error, .. } => Some(error.to_string()),
        }
    }

    fn invalid(error: Error) -> Verdict {
        Verdict::Rejected { code: CODE_INVALID, error }
    }
}

/// Decides on one admission request.
///
/// `ElasticJob` CREATE and UPDATE: every problem of [`parse::job`] (unknown fields and every rule
/// of [`validate::validate_job`]) and of [`Settings::check_job`]. `ScalePlan` CREATE and UPDATE:
/// every problem of [`parse::scale_plan`] ([`validate::validate_scale_plan`]: with `ownerJob` set,
/// the pod names are checked against it) and of [`Settings::check_scale_plan`]. Other operations
/// and other kinds are accepted. An object that cannot be read is rejected with the path and cause
/// of the first shape problem. Every rejection has code [`CODE_INVALID`].
pub fn review(request: AdmissionRequest, settings: &Settings) -> Verdict {
    let Some(subject) = reviewed(&request.operation, &request.kind) else { return Verdict::Accepted };
    if request.object.is_null() {
        return no_object(&request.operation);
    }
    match subject {
        Subject::Job => judge_job(parse::from_value(request.object), settings),
        Subject::Plan => judge_plan(parse::from_value(request.object), settings),
    }
}

/// What is reviewed: an `ElasticJob` or a `ScalePlan` of this API version, on CREATE or UPDATE.
#[derive(Clone, Copy)]
enum Subject {
    Job,
    Plan,
}

fn reviewed(operation: &str, kind: &GroupVersionKind) -> Option<Subject> {
    if !matches!(operation, "CREATE" | "UPDATE") {
        return None;
    }
    let ours = kind.group == api::GROUP
        && api::API_VERSION.strip_prefix(api::GROUP).and_then(|v| v.strip_prefix('/')) == Some(kind.version.as_str());
    match kind.kind.as_str() {
        api::KIND_ELASTIC_JOB if ours => Some(Subject::Job),
        api::KIND_SCALE_PLAN if ours => Some(Subject::Plan),
        _ => None,
    }
}

fn no_object(operation: &str) -> Verdict {
    Verdict::invalid(Error::Parse(Problem::new(
        "request.object",
        Code::Required,
        format!("a {operation} request carries the object to review, and this one has none"),
    )))
}

/// The core's problems (unknown fields, [`validate::validate_job`]) and the settings' together.
fn judge_job(read: Result<(ElasticJob, Vec<Problem>)>, settings: &Settings) -> Verdict {
    let result = read.and_then(|(job, mut problems)| {
        problems.extend(validate::validate_job(&job));
        problems.extend(settings.check_job(&job));
        into_result(problems)
    });
    result.map_or_else(Verdict::invalid, |()| Verdict::Accepted)
}

/// The core's problems (unknown fields, [`validate::validate_scale_plan`]) and the settings'.
fn judge_plan(read: Result<(ScalePlan, Vec<Problem>)>, settings: &Settings) -> Verdict {
    let result = read.and_then(|(plan, mut problems)| {
        problems.extend(validate::validate_scale_plan(&plan));
        problems.extend(settings.check_scale_plan(&plan));
        into_result(problems)
    });
    result.map_or_else(Verdict::invalid, |()| Verdict::Accepted)
}

/// The payload of Kubewarden's `validate` without its object, which is taken out before the rest
/// is read (most requests are decided on `operation` and `kind` alone). The type names show in
/// messages (`expected struct AdmissionRequest`).
mod payload {
    use serde::Deserialize;
    use serde_json::Value;

    use super::GroupVersionKind;

    #[derive(Deserialize)]
    pub(super) struct ValidationRequest {
        pub(super) request: AdmissionRequest,
        #[serde(default)]
        pub(super) settings: Value,
    }

    #[derive(Deserialize)]
    pub(super) struct AdmissionRequest {
        pub(super) operation: String,
        pub(super) kind: GroupVersionKind,
    }
}

/// Decides on the payload Kubewarden passes to a policy's `validate`:
/// `{"request": <AdmissionRequest>, "settings": {...}}`, as [`review`] does with the settings, with
/// the same problems and paths (inside the object).
///
/// Never fails: a payload that is not JSON or lacks a field of the request is rejected with code
/// [`CODE_INVALID`] and the cause (`request: missing field ...`); settings that
/// [`Settings::from_value`] refuses reject with [`CODE_BAD_SETTINGS`] and the problems under
/// `settings.`.
pub fn review_payload(payload: &[u8]) -> Verdict {
    let read = utf8(payload, "the validation payload").and_then(|text| {
        let (mut value, _) = parse::from_json::<Value>(text)?;
        let object = value.get_mut("request").and_then(|r| r.as_object_mut()).and_then(|r| r.remove("object"));
        let (envelope, _) = parse::from_value::<payload::ValidationRequest>(value)?;
        Ok((envelope, object.unwrap_or(Value::Null)))
    });
    let (envelope, object) = match read {
        Ok(read) => read,
        Err(error) => return Verdict::invalid(in_context(error, "cannot read the validation payload")),
    };
    let settings = match Settings::from_value(envelope.settings) {
        Ok(settings) => settings,
        Err(e) => return Verdict::Rejected { code: CODE_BAD_SETTINGS, error: parse::prefix(e, "settings") },
    };
    let request = envelope.request;
    let Some(subject) = reviewed(&request.operation, &request.kind) else { return Verdict::Accepted };
    if object.is_null() {
        return no_object(&request.operation);
    }
    match subject {
        Subject::Job => judge_job(parse::from_value(object), &settings),
        Subject::Plan => judge_plan(parse::from_value(object), &settings),
    }
}

fn utf8<'a>(bytes: &'a [u8], what: &str) -> Result<&'a str> {
    std::str::from_utf8(bytes)
        .map_err(|e| Error::Parse(Problem::new("", Code::Syntax, format!("{what} is not UTF-8 text: {e}"))))
}

/// Puts `context` in front of a problem that has no path of its own (a syntax error).
fn in_context(error: Error, context: &str) -> Error {
    match error {
        Error::Parse(mut p) if p.path.is_empty() && !p.message.starts_with(context) => {
            p.message = format!("{context}: {}", p.message);
            Error::Parse(p)
        }
        other => other,
    }
}

fn total(p: &mut Vec<Problem>, path: &str, counts: &[(ReplicaType, i64)], max: u32, asks: &str) {
    let sum: i64 = counts.iter().map(|(_, n)| n).sum();
    if sum > i64::from(max) {
        let mut parts = String::new();
        for (i, (t, n)) in counts.iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            let _ = write!(parts, "{sep}{n} {t}");
        }
        p.push(Problem::new(
            path,
            Code::OutOfRange,
            format!("{asks} {sum} replicas in all ({parts}), more than the {max} this cluster allows (policy setting maxTotalReplicas)"),
        ));
    }
}

/// Every container of a pod template: its path (`containers[0]`) and its image and security
/// context.
fn containers(pod: &PodSpec) -> Vec<(String, Option<&str>, Option<&SecurityContext>)> {
    let mut all: Vec<(String, Option<&str>, Option<&SecurityContext>)> = Vec::new();
    for (i, c) in pod.containers.iter().enumerate() {
        all.push((format!("containers[{i}]"), c.image.as_deref(), c.security_context.as_ref()));
    }
    for (i, c) in pod.init_containers.iter().flatten().enumerate() {
        all.push((format!("initContainers[{i}]"), c.image.as_deref(), c.security_context.as_ref()));
    }
    for (i, c) in pod.ephemeral_containers.iter().flatten().enumerate() {
        all.push((format!("ephemeralContainers[{i}]"), c.image.as_deref(), c.security_context.as_ref()));
    }
    all
}

fn images(p: &mut Vec<Problem>, pod_path: &str, pod: &PodSpec, prefixes: &[String]) {
    for (path, image, _) in containers(pod) {
        // A missing image is the core's problem (`required`), or the operator's default master image.
        let Some(image) = image.filter(|i| !i.is_empty()) else { continue };
        let qualified = qualified_image(image);
        if !prefixes.iter().any(|prefix| image.starts_with(prefix.as_str()) || qualified.starts_with(prefix.as_str())) {
            let list: Vec<&str> = prefixes.iter().map(String::as_str).collect();
            p.push(Problem::new(
                format!("{pod_path}.{path}.image"),
                Code::InvalidValue,
                format!(
                    "`{image}` is not from a registry this cluster allows: use an image starting with {} (policy setting allowedImageRegistries)",
                    quoted_list(&list, "or")
                ),
            ));
        }
    }
}

/// An image reference as the container runtime resolves it: without a registry host (a first
/// component with `.` or `:`, or `localhost`) it comes from `docker.io`, and a one-component
/// name from `docker.io/library/`.
pub fn qualified_image(image: &str) -> String {
    match image.split_once('/') {
        Some((host, _)) if host.contains(['.', ':']) || host == "localhost" => image.to_owned(),
        Some(_) => format!("docker.io/{image}"),
        None => format!("docker.io/library/{image}"),
    }
}

fn privileged(p: &mut Vec<Problem>, pod_path: &str, pod: &PodSpec) {
    for (field, on, what) in [
        ("hostNetwork", pod.host_network, "the host's network"),
        ("hostPID", pod.host_pid, "the host's process IDs"),
        ("hostIPC", pod.host_ipc, "the host's IPC namespace"),
    ] {
        if on == Some(true) {
            p.push(Problem::new(
                join(pod_path, field),
                Code::InvalidValue,
                format!("pods may not use {what} in this cluster (policy setting denyPrivileged)"),
            ));
        }
    }
    for (path, _, security) in containers(pod) {
        if security.and_then(|s| s.privileged) == Some(true) {
            p.push(Problem::new(
                format!("{pod_path}.{path}.securityContext.privileged"),
                Code::InvalidValue,
                "privileged containers are not allowed in this cluster (policy setting denyPrivileged)",
            ));
        }
    }
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn strategy_name(strategy: DistributionStrategy) -> &'static str {
    match strategy {
        DistributionStrategy::ParameterServerStrategy => "ParameterServerStrategy",
        DistributionStrategy::AllreduceStrategy => "AllreduceStrategy",
    }
}

/// `` `a` ``, `` `a` or `b` ``, `` `a`, `b` or `c` ``.
fn quoted_list(items: &[&str], last: &str) -> String {
    let mut out = String::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(if i + 1 == items.len() { " " } else { ", " });
            if i + 1 == items.len() {
                out.push_str(last);
                out.push(' ');
            }
        }
        out.push('`');
        out.push_str(item);
        out.push('`');
    }
    out
}
