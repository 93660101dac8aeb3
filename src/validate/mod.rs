//! Every check the core makes before it plans, reporting every problem at once.
//!
//! Upstream leaves these unchecked; here each is a [`Problem`] with the field path, a stable
//! [`Code`] and a message a person can act on:
//! names Kubernetes would refuse (the job name bounds its service names), negative or absurd
//! replica counts (at most [`MAX_REPLICAS_PER_TYPE`]), more than one chief or evaluator, templates
//! without a container, unknown replica types (refused when read), malformed quantities, PS hosts
//! that are not `host:port`, duplicate pod names or ranks in a plan, master arguments that are not
//! of their documented form, plans longer than [`MAX_REPLICAS_PER_TYPE`] entries, and jobs whose
//! pods would exceed `resourceLimits`.

use std::collections::{BTreeMap, BTreeSet};

use crate::podspec::ObjectMeta;
use crate::podspec::PodTemplateSpec;

use crate::api::{self, DistributionStrategy, ElasticJob, ReplicaType, ResourceList, ScalePlan};
use crate::error::{Code, Error, Problem, Result, into_result, join};
use crate::job;
use crate::naming;
use crate::quantity::Amount;

mod plan;

pub use plan::{validate_plan_for_job, validate_scale_plan};

/// The most replicas of one type a job or plan may ask for.
pub const MAX_REPLICAS_PER_TYPE: i32 = 10_000;

/// The most addresses the `TF_CONFIG`s of the pods one plan creates may list together. A worker of
/// rank r lists r + 1 workers, so `TF_CONFIG`s grow with the square of the worker count; this
/// bound (about 70 MB of addresses, reached near 2,000 workers created at once) keeps the memory
/// of a plan bounded. The controller creates a larger job over several passes; a preview
/// ([`crate::render()`]) of one is refused.
pub const MAX_TF_CONFIG_HOSTS: u64 = 2_000_000;

/// The most entries of each list of a scale plan (`createPods`, `psHosts`, ...).
pub const MAX_LIST_LEN: usize = 4 * MAX_REPLICAS_PER_TYPE as usize;

/// The most pods a host may pass in as observed.
pub const MAX_OBSERVED_PODS: usize = 100_000;

/// The most services a host may pass in as observed: one a pod, and as many again.
pub const MAX_OBSERVED_SERVICES: usize = MAX_OBSERVED_PODS;

/// Checks how many pods a host passes in as observed.
///
/// # Errors
/// [`Code::TooLarge`] at `pods` when there are more than [`MAX_OBSERVED_PODS`].
pub fn check_observed_pods(count: usize) -> Result<()> {
    check_observed("pods", count, MAX_OBSERVED_PODS)
}

/// Checks how many services a host passes in as observed.
///
/// # Errors
/// [`Code::TooLarge`] at `services` when there are more than [`MAX_OBSERVED_SERVICES`].
pub fn check_observed_services(count: usize) -> Result<()> {
    check_observed("services", count, MAX_OBSERVED_SERVICES)
}

/// The most ResourceFlavors a host may pass in (a cluster has a handful).
pub const MAX_OBSERVED_FLAVORS: usize = 1_000;

/// Checks how many ResourceFlavors a host passes in.
///
/// # Errors
/// [`Code::TooLarge`] at `resourceFlavors` when there are more than [`MAX_OBSERVED_FLAVORS`].
pub fn check_observed_flavors(count: usize) -> Result<()> {
    check_observed("resourceFlavors", count, MAX_OBSERVED_FLAVORS)
}

fn check_observed(what: &str, count: usize, max: usize) -> Result<()> {
    if count > max {
        return Err(Error::invalid(
            what,
            Code::TooLarge,
            format!("{count} {what} were passed in; the core plans with at most {max}"),
        ));
    }
    Ok(())
}

/// Checks a job and returns every problem (empty when it is valid).
pub fn validate_job(job: &ElasticJob) -> Vec<Problem> {
    let mut p = Vec::new();
    type_meta(&mut p, job.api_version.as_deref(), job.kind.as_deref(), api::KIND_ELASTIC_JOB);
    match job.metadata.name.as_deref() {
        None | Some("") => p.push(Problem::new(
            "metadata.name",
            Code::Required,
            "the job has no name; give `metadata.name` (lower-case letters, digits and `-`)",
        )),
        Some(name) => job_name(&mut p, "metadata.name", name),
    }
    if let Some(ns) = job.metadata.namespace.as_deref().filter(|n| !n.is_empty()) {
        if !naming::is_dns1123_label(ns) {
            p.push(Problem::new(
                "metadata.namespace",
                Code::InvalidName,
                format!("`{ns}` is not a namespace name: use lower-case letters, digits and `-`, at most 63"),
            ));
        }
    }
    // The job's labels and annotations are copied onto every pod it makes.
    labels_and_annotations(&mut p, "metadata", &job.metadata);
    if job.spec.distribution_strategy.is_none() {
        p.push(Problem::new(
            "spec.distributionStrategy",
            Code::Required,
            "say how the job trains: `ParameterServerStrategy` or `AllreduceStrategy`",
        ));
    }
    if !ReplicaType::TASKS.iter().any(|t| job.spec.replica_specs.contains_key(t)) {
        p.push(Problem::new(
            "spec.replicaSpecs",
            Code::Required,
            "the job has no task replicas; give at least one of `ps`, `worker`, `chief`, `evaluator`",
        ));
    }
    master_can_run(&mut p, job);
    for (replica_type, spec) in &job.spec.replica_specs {
        let path = format!("spec.replicaSpecs.{replica_type}");
        replica_count(&mut p, &join(&path, "replicas"), *replica_type, spec.replicas());
        non_negative(&mut p, &join(&path, "restartCount"), spec.restart_count, "relaunches");
        non_negative(&mut p, &join(&path, "restartTimeout"), spec.restart_timeout, "seconds");
        if let Some(priority) = &spec.priority {
            if !valid_priority(priority) {
                p.push(Problem::new(
                    join(&path, "priority"),
                    Code::InvalidValue,
                    format!(
                        "`{priority}` is not a priority: use `high`, `low`, or a fraction from 0 to 1 such as `0.5`"
                    ),
                ));
            }
        }
        template(&mut p, &join(&path, "template"), &spec.template, *replica_type != ReplicaType::DlroverMaster);
    }
    resource_list(&mut p, "spec.resourceLimits", &job.spec.resource_limits);
    if let Some(brain) = job.spec.brain_service.as_deref().filter(|b| !b.is_empty()) {
        if let Err(why) = naming::parse_host_port(brain) {
            p.push(Problem::new("spec.brainService", Code::InvalidAddress, why));
        }
    }
    for (key, var) in &job.spec.envs {
        let path = format!("spec.envs.{key}");
        if key.is_empty() || key.contains('=') {
            p.push(Problem::new(path, Code::InvalidName, format!("`{key}` is not an environment variable name")));
        } else if !var.name.is_empty() && &var.name != key {
            p.push(Problem::new(
                join(&path, "name"),
                Code::Mismatch,
                format!("the variable is listed as `{key}` but named `{}`; use one name", var.name),
            ));
        }
    }
    master_arguments(&mut p, job);
    if let Some(policy) = &job.spec.run_policy {
        run_policy(&mut p, policy);
    }
    gang(&mut p, job);
    if p.is_empty() {
        // This needs a well-formed job: the pods a job starts with must fit its resourceLimits.
        let plan = job::initial_scale_plan(job);
        plan_fits_job(&mut p, job, &plan, "spec.replicaSpecs");
    }
    p
}

/// Checks a job, as a `Result`.
///
/// # Errors
/// [`crate::Error::Invalid`] with every problem of [`validate_job`].
pub fn check_job(job: &ElasticJob) -> Result<()> {
    into_result(validate_job(job))
}

/// Checks a job and a plan for it, as a `Result`.
///
/// # Errors
/// [`crate::Error::Invalid`] with every problem of [`validate_job`] and [`validate_plan_for_job`].
///
/// The plan's problems carry the prefix `scalePlan.`, so `metadata.name` says whose name it is.
pub fn check_job_and_plan(job: &ElasticJob, plan: Option<&ScalePlan>) -> Result<()> {
    let job_problems = validate_job(job);
    let plan_problems = match plan {
        Some(plan) if job_problems.is_empty() => validate_plan_for_job(job, plan),
        Some(plan) => validate_scale_plan(plan),
        None => Vec::new(),
    };
    let plan_result = into_result(plan_problems).map_err(|e| e.prefixed("scalePlan"));
    let mut all = job_problems;
    all.extend(plan_result.err().map(|e| e.problems().to_vec()).unwrap_or_default());
    into_result(all)
}

fn type_meta(p: &mut Vec<Problem>, api_version: Option<&str>, kind: Option<&str>, expected_kind: &str) {
    if let Some(v) = api_version.filter(|v| *v != api::API_VERSION) {
        p.push(Problem::new("apiVersion", Code::InvalidValue, format!("`{v}` is not `{}`", api::API_VERSION)));
    }
    if let Some(k) = kind.filter(|k| *k != expected_kind) {
        p.push(Problem::new("kind", Code::InvalidValue, format!("`{k}` is not `{expected_kind}`")));
    }
}

fn job_name(p: &mut Vec<Problem>, path: &str, name: &str) {
    if name.len() > naming::MAX_JOB_NAME_LEN {
        p.push(Problem::new(
            path,
            Code::InvalidName,
            format!(
                "`{name}` has {} characters; the master service `elasticjob-<name>-dlrover-master` must fit in 63, so use at most {}",
                name.len(),
                naming::MAX_JOB_NAME_LEN
            ),
        ));
    } else if !naming::is_dns1035_label(name) {
        p.push(Problem::new(
            path,
            Code::InvalidName,
            format!("`{name}` cannot name services: use lower-case letters, digits and `-`, starting with a letter and ending with a letter or digit"),
        ));
    }
}

/// The replica specs DLRover 0.6.1's master needs to start (`DistributedJobManager.__init__`,
/// `dlrover/python/master/node/dist_job_manager.py`): a `ParameterServerStrategy` job's `ps`
/// (`job_args.node_args[NodeType.PS]`) and `worker` (`node_group_resources[NodeType.WORKER]`), an
/// `AllreduceStrategy` job's `worker` (`AllreduceJobResourceOptimizer`). Without one the master
/// stops with a `KeyError` and no task pod is ever made. Said only of a job with task replicas
/// (one without has its own problem).
fn master_can_run(p: &mut Vec<Problem>, job: &ElasticJob) {
    if !ReplicaType::TASKS.iter().any(|t| job.spec.replica_specs.contains_key(t)) {
        return;
    }
    let (needed, why): (&[ReplicaType], &str) = match job.strategy() {
        DistributionStrategy::ParameterServerStrategy => (
            &[ReplicaType::Ps, ReplicaType::Worker],
            "DLRover's master runs parameter-server jobs: it needs `ps` and `worker` replica specs (0 replicas is allowed)",
        ),
        DistributionStrategy::AllreduceStrategy => (
            &[ReplicaType::Worker],
            "DLRover's master runs an all-reduce job's workers: it needs a `worker` replica spec",
        ),
    };
    for t in needed.iter().filter(|t| job.declared_replica_spec(**t).is_none()) {
        p.push(Problem::new(
            format!("spec.replicaSpecs.{t}"),
            Code::Required,
            format!("no `{t}` replica spec: {why}; without it the master stops at start with `KeyError: '{t}'` and makes no pod. Add a `{t}` replica spec"),
        ));
    }
}

fn replica_count(p: &mut Vec<Problem>, path: &str, replica_type: ReplicaType, n: i32) {
    if n < 0 {
        p.push(Problem::new(
            path,
            Code::OutOfRange,
            format!("{n} {replica_type} replicas: the count cannot be negative"),
        ));
    } else if replica_type.is_singleton() && n > 1 {
        p.push(Problem::new(
            path,
            Code::OutOfRange,
            format!("{n} {replica_type} replicas: a job has at most one {replica_type} (TensorFlow refuses a cluster with two)"),
        ));
    } else if n > MAX_REPLICAS_PER_TYPE {
        p.push(Problem::new(
            path,
            Code::OutOfRange,
            format!("{n} {replica_type} replicas is more than the {MAX_REPLICAS_PER_TYPE} a job may have per type"),
        ));
    }
}

/// The most seconds `spec.runPolicy.activeDeadlineSeconds` may give: the bound of the int32
/// `ttlSecondsAfterFinished` beside it, some 68 years.
pub const MAX_ACTIVE_DEADLINE_SECONDS: i64 = i32::MAX as i64;

/// `spec.runPolicy`: a deadline of at least one second (Kubeflow: "value must be positive
/// integer") and at most [`MAX_ACTIVE_DEADLINE_SECONDS`], a TTL and a backoff limit not negative.
fn run_policy(p: &mut Vec<Problem>, policy: &api::RunPolicy) {
    let path = "spec.runPolicy";
    match policy.active_deadline_seconds {
        Some(n) if n < 1 => p.push(Problem::new(
            join(path, "activeDeadlineSeconds"),
            Code::OutOfRange,
            format!("{n} seconds: the deadline must be at least 1 second; leave it out for none"),
        )),
        Some(n) if n > MAX_ACTIVE_DEADLINE_SECONDS => p.push(Problem::new(
            join(path, "activeDeadlineSeconds"),
            Code::OutOfRange,
            format!(
                "{n} seconds is more than the {MAX_ACTIVE_DEADLINE_SECONDS} (68 years) a deadline may be; leave it out for none"
            ),
        )),
        _ => {}
    }
    non_negative(p, &join(path, "ttlSecondsAfterFinished"), policy.ttl_seconds_after_finished, "seconds");
    non_negative(p, &join(path, "backoffLimit"), policy.backoff_limit, "failed pods");
}

/// `spec.runPolicy.schedulingPolicy`: a `minAvailable` from 1 to the job's task replicas, a
/// `minResources` of quantities, a queue and a priority class that are object names, a timeout of
/// at least one second; and the replicas' `BatchScheduler`: `default` or `volcano`, the same for
/// every task replica that names one (a gang is of the whole job).
fn gang(p: &mut Vec<Problem>, job: &ElasticJob) {
    let mut volcano = None;
    for (replica_type, spec) in &job.spec.replica_specs {
        let Some(value) = spec.batch_scheduler.as_deref() else { continue };
        let path = format!("spec.replicaSpecs.{replica_type}.BatchScheduler");
        match value {
            "default" | "" => {}
            crate::podgroup::VOLCANO => volcano = Some(path.clone()),
            other => {
                p.push(Problem::new(
                    path,
                    Code::InvalidValue,
                    format!("`{other}` is not a batch scheduler: use `default` or `volcano`"),
                ));
                continue;
            }
        }
        if let Some(volcano) = volcano.as_deref().filter(|_| matches!(value, "default" | "")) {
            p.push(Problem::new(
                path,
                Code::Mismatch,
                format!("`{volcano}` gives the job Volcano's gang, which places all its task pods; this replica cannot use the default scheduler"),
            ));
        }
    }
    let Some(policy) = job.spec.run_policy.as_ref().and_then(|r| r.scheduling_policy.as_ref()) else { return };
    let path = "spec.runPolicy.schedulingPolicy";
    if let Some(n) = policy.min_available {
        // The task pods of DLRover's master's first plan.
        let total = job::master_first_plan(job).values().fold(0i32, |n, g| n.saturating_add(g.count.max(0)));
        if n < 1 || n > total {
            p.push(Problem::new(
                join(path, "minAvailable"),
                Code::OutOfRange,
                format!("{n}: the gang's minimum must be from 1 to the job's {total} task replicas"),
            ));
        }
    }
    if let Some(resources) = &policy.min_resources {
        resource_list(p, &join(path, "minResources"), resources);
    }
    for (field, value) in [("queue", &policy.queue), ("priorityClass", &policy.priority_class)] {
        if let Some(name) = value.as_deref().filter(|n| !naming::is_dns1123_subdomain(n)) {
            p.push(Problem::new(
                join(path, field),
                Code::InvalidName,
                format!("{name:?} is not an object name: a DNS-1123 subdomain (lower-case letters, digits, '-' and '.', at most 253 characters)"),
            ));
        }
    }
    if let Some(n) = policy.schedule_timeout_seconds.filter(|n| *n < 1) {
        p.push(Problem::new(
            join(path, "scheduleTimeoutSeconds"),
            Code::OutOfRange,
            format!("{n} seconds: the timeout must be at least 1 second; leave it out for the scheduler's own"),
        ));
    }
}

fn non_negative(p: &mut Vec<Problem>, path: &str, n: Option<i32>, what: &str) {
    if let Some(n) = n.filter(|n| *n < 0) {
        p.push(Problem::new(path, Code::OutOfRange, format!("{n} {what}: the value cannot be negative")));
    }
}

fn valid_priority(s: &str) -> bool {
    let fraction = s.bytes().all(|c| c.is_ascii_digit() || c == b'.') && decimal_to_one(s);
    s == "high" || s == "low" || fraction
}

/// Whether `s`, digits and dots, is a decimal from 0 to 1 as Rust's float parser reads it
/// (`1.`, `.5`; `1.0000000000000001` is 1 once rounded to a double), without compiling that
/// parser and its tables into the modules: one dot at most, a digit somewhere, and below 1, or 1
/// with a fraction no more than half the gap to the next double (2^-53, which rounds to even, 1).
fn decimal_to_one(s: &str) -> bool {
    /// The digits of 2^-53 after the point.
    const HALF_GAP: &str = "00000000000000011102230246251565404236316680908203125";
    let (whole, fraction) = s.split_once('.').unwrap_or((s, ""));
    if fraction.contains('.') || (whole.is_empty() && fraction.is_empty()) {
        return false;
    }
    match whole.trim_start_matches('0') {
        "" => true,
        "1" => {
            let fraction = fraction.trim_end_matches('0').as_bytes();
            let gap = HALF_GAP.as_bytes();
            // Digit by digit, a missing digit being 0: the first that differs decides.
            let digit = |d: &[u8], i: usize| d.get(i).copied().unwrap_or(b'0');
            (0..fraction.len().max(gap.len()))
                .map(|i| digit(fraction, i).cmp(&digit(gap, i)))
                .find(|o| o.is_ne())
                .is_none_or(std::cmp::Ordering::is_lt)
        }
        _ => false,
    }
}

fn template(p: &mut Vec<Problem>, path: &str, template: &PodTemplateSpec, needs_image: bool) {
    if let Some(meta) = &template.metadata {
        labels_and_annotations(p, &join(path, "metadata"), meta);
    }
    let containers = template.spec.as_ref().map(|s| s.containers.as_slice()).unwrap_or_default();
    let cpath = join(path, "spec.containers");
    if containers.is_empty() {
        p.push(Problem::new(
            &cpath,
            Code::NoContainers,
            "the pod template has no container; add at least one (the first runs the training process)",
        ));
    }
    let mut names = BTreeSet::new();
    for (i, c) in containers.iter().enumerate() {
        let path = format!("{cpath}[{i}]");
        if c.name.is_empty() {
            p.push(Problem::new(join(&path, "name"), Code::Required, "every container needs a name"));
        } else if !naming::is_dns1123_label(&c.name) {
            p.push(Problem::new(
                join(&path, "name"),
                Code::InvalidName,
                format!("`{}` is not a container name: use lower-case letters, digits and `-`", c.name),
            ));
        } else if !names.insert(c.name.clone()) {
            p.push(Problem::new(
                join(&path, "name"),
                Code::Duplicate,
                format!("two containers are named `{}`", c.name),
            ));
        }
        if needs_image && c.image.as_deref().is_none_or(str::is_empty) {
            p.push(Problem::new(join(&path, "image"), Code::Required, "the container has no image"));
        }
        if let Some(r) = &c.resources {
            if let Some(requests) = &r.requests {
                resource_list(p, &join(&path, "resources.requests"), requests);
            }
            if let Some(limits) = &r.limits {
                resource_list(p, &join(&path, "resources.limits"), limits);
            }
        }
    }
}

/// Labels and annotation keys as the API server checks them (`path` is the object's `metadata`).
/// Labels or annotations past their bound are one problem, not one per key.
fn labels_and_annotations(p: &mut Vec<Problem>, path: &str, meta: &ObjectMeta) {
    let why = format!(
        "the core copies them onto every pod and service, and takes at most {} (256 KiB), as for annotations",
        naming::MAX_LABELS_BYTES
    );
    for (key, value) in within_bound(p, path, "labels", meta.labels.as_ref(), naming::MAX_LABELS_BYTES, &why) {
        let at = join(&join(path, "labels"), key);
        if let Err(why) = naming::check_qualified_name(key, false) {
            p.push(Problem::new(at, Code::InvalidName, format!("not a label key: {why}")));
        } else if let Err(why) = naming::check_label_value(value) {
            p.push(Problem::new(at, Code::InvalidValue, why));
        }
    }
    let why = format!("an object's annotations hold at most {} (256 KiB)", naming::MAX_ANNOTATIONS_BYTES);
    let annotations = meta.annotations.as_ref();
    for (key, _) in within_bound(p, path, "annotations", annotations, naming::MAX_ANNOTATIONS_BYTES, &why) {
        if let Err(why) = naming::check_qualified_name(key, true) {
            p.push(Problem::new(
                join(&join(path, "annotations"), key),
                Code::InvalidName,
                format!("not an annotation key: {why}"),
            ));
        }
    }
}

/// The entries of a label or annotation map; none, and one `too_large` problem saying `why`, when
/// their keys and values hold more than `max` bytes together.
fn within_bound<'m>(
    p: &mut Vec<Problem>,
    path: &str,
    field: &str,
    map: Option<&'m BTreeMap<String, String>>,
    max: usize,
    why: &str,
) -> impl Iterator<Item = (&'m String, &'m String)> + use<'m> {
    let bytes = map.into_iter().flatten().fold(0usize, |n, (k, v)| n.saturating_add(k.len()).saturating_add(v.len()));
    if bytes > max {
        p.push(Problem::new(join(path, field), Code::TooLarge, format!("the {field} hold {bytes} bytes; {why}")));
    }
    map.filter(|_| bytes <= max).into_iter().flatten()
}

fn resource_list(p: &mut Vec<Problem>, path: &str, list: &ResourceList) {
    for (name, q) in list {
        let path = join(path, name);
        match Amount::parse(&q.0) {
            Err(why) => p.push(Problem::new(path, Code::InvalidQuantity, why)),
            Ok(a) if a.is_negative() => {
                p.push(Problem::new(path, Code::OutOfRange, format!("`{}`: a resource cannot be negative", q.0)));
            }
            Ok(_) => {}
        }
    }
}

fn master_arguments(p: &mut Vec<Problem>, job: &ElasticJob) {
    let Some(annotations) = &job.metadata.annotations else { return };
    for key in naming::MASTER_ARG_ANNOTATIONS {
        let Some(value) = annotations.get(key) else { continue };
        let path = format!("metadata.annotations.{key}");
        let ok = match key {
            "pending_timeout" => value.parse::<u32>().is_ok() && !value.starts_with('+'),
            "pending_fail_strategy" => matches!(value.as_str(), "-1" | "0" | "1" | "2"),
            "service_type" => matches!(value.as_str(), "grpc" | "http"),
            "pre_check_bypass" => matches!(value.as_str(), "true" | "false" | "True" | "False" | "1" | "0"),
            _ => {
                // pre_check_ops: a Python list literal such as [('module', 'Class', 'y')].
                value.starts_with('[')
                    && value.ends_with(']')
                    && value.len() <= 4096
                    && !value.chars().any(char::is_control)
            }
        };
        if !ok {
            let form = match key {
                "pending_timeout" => "a whole number of seconds",
                "pending_fail_strategy" => "one of -1 (disabled), 0 (skip), 1 (necessary part), 2 (all)",
                "service_type" => "`grpc` or `http`",
                "pre_check_bypass" => "`true` or `false`",
                _ => "a list such as `[('module', 'Class', 'y')]` of at most 4096 characters on one line",
            };
            p.push(Problem::new(
                path,
                Code::InvalidValue,
                format!("`{value}` is passed to the master as --{key} and must be {form}"),
            ));
        }
    }
}

/// The pods of a plan (replicas of each type with their resource, plus created pods) must fit the
/// job's `resourceLimits`, and their `TF_CONFIG`s the core's bound.
/// `counts` is where the replica counts come from, for the paths: `spec.replicaSpecs` for a job's
/// initial plan, `spec.replicaResourceSpecs` for a scale plan.
fn plan_fits_job(p: &mut Vec<Problem>, job: &ElasticJob, plan: &ScalePlan, counts: &str) {
    for (replica_type, target) in &plan.spec.replica_resource_specs {
        if target.replicas > 0 && job::task_template(job, *replica_type).is_err() {
            p.push(Problem::new(
                format!("spec.replicaResourceSpecs.{replica_type}"),
                Code::Required,
                format!("the plan asks for {replica_type} pods but the job has no `{replica_type}` replica spec to make them from"),
            ));
        }
    }
    for (list, metas) in [("spec.createPods", &plan.spec.create_pods), ("spec.migratePods", &plan.spec.migrate_pods)] {
        for (i, meta) in metas.iter().enumerate() {
            if let Some(t) = meta.replica_type() {
                if job::task_template(job, t).is_err() {
                    p.push(Problem::new(
                        format!("{list}[{i}].type"),
                        Code::Required,
                        format!("the plan asks for a {t} pod but the job has no `{t}` replica spec to make it from"),
                    ));
                }
            }
        }
    }
    if !p.is_empty() {
        return;
    }
    // Resource totals against resourceLimits.
    let mut totals: BTreeMap<String, Amount> = BTreeMap::new();
    let mut add = |resource: &ResourceList, times: i64| {
        for (name, q) in resource {
            let Ok(each) = Amount::parse(&q.0) else { continue };
            let total = totals.entry(name.clone()).or_insert(Amount::ZERO);
            *total = each.checked_mul(times).and_then(|x| total.checked_add(x)).unwrap_or(Amount::MAX);
        }
    };
    for (replica_type, target) in &plan.spec.replica_resource_specs {
        let resource = if target.resource.is_empty() {
            job::template_resource(job, *replica_type)
        } else {
            target.resource.clone()
        };
        add(&resource, i64::from(target.replicas));
    }
    for meta in &plan.spec.create_pods {
        add(&meta.resource, 1);
    }
    for (name, limit) in &job.spec.resource_limits {
        let (Ok(limit_amount), Some(total)) = (Amount::parse(&limit.0), totals.get(name)) else { continue };
        if *total > limit_amount {
            let path =
                if counts == "spec.replicaSpecs" { format!("spec.resourceLimits.{name}") } else { counts.to_owned() };
            p.push(Problem::new(
                path,
                Code::ExceedsResourceLimits,
                format!("the replicas ask for {total} {name} in all, more than the job's limit of {}; raise the limit or lower replicas or resources", limit.0),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priorities_read_as_the_float_parser_reads_them() {
        let mut cases: Vec<String> = [
            "",
            ".",
            "..",
            "0",
            "1",
            "2",
            "1.",
            ".5",
            "0.5",
            "1.5",
            "00001",
            "1.0.0",
            "0.",
            "10",
            "01.000",
            "1.00000000000000011102230246251565404236316680908203125",
            "1.00000000000000011102230246251565404236316680908203126",
            "1.0000000000000001110223024625156540423631668090820312",
            "1.00000000000000011102230246251565404236316680908203124999",
            "1.000000000000000111022302462515654042363166809082031250000",
            "1.0000000000000001",
            "1.0000000000000002",
            "0.99999999999999999999",
            "9",
        ]
        .map(str::to_owned)
        .to_vec();
        cases.extend((0..2000).map(|i| format!("{}.{:03}", i / 1000, i % 1000)));
        for s in cases {
            let reference = s.parse::<f64>().is_ok_and(|f| (0.0..=1.0).contains(&f));
            assert_eq!(decimal_to_one(&s), reference, "{s:?}");
            assert_eq!(valid_priority(&s), reference, "{s:?}");
        }
    }
}
