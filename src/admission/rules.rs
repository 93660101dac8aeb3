//! The cluster rules the settings switch on, over a job or a scale plan: each problem at its
//! field path inside the reviewed object.

use std::fmt::Write as _;

use crate::podspec::PodSpec;
use serde_json::Value;

use super::{Settings, pod_security};
use crate::api::{DistributionStrategy, ElasticJob, ReplicaType, ScalePlan};
use crate::error::{Code, Problem, join};
use crate::template::{self, Options};
use crate::workload::LABEL_QUEUE_NAME;
use crate::{podgroup, queue};

impl Settings {
    /// The settings checks of a job as created, each problem at its field path (empty when it
    /// passes). The core's own rules are [`crate::validate::validate_job`]'s.
    pub fn check_job(&self, job: &ElasticJob) -> Vec<Problem> {
        self.job_problems(job, None)
    }

    /// The settings checks of a job an UPDATE would store, `old` being the job as stored (the
    /// request's `oldObject`): those of [`Settings::check_job`], but `requireQueueName` judges the
    /// queue label against the stored one. The label may not be removed; it may not be changed
    /// (or added) while the updated job is not suspended, as Kueue's webhook refuses it; a job
    /// stored without it (from before the setting) may stay without it.
    pub fn check_job_update(&self, job: &ElasticJob, old: &Value) -> Vec<Problem> {
        self.job_problems(job, Some(old))
    }

    fn job_problems(&self, job: &ElasticJob, old: Option<&Value>) -> Vec<Problem> {
        let options = self.core_options();
        // The masters' account, whatever the other settings: the controller's own rule.
        let mut p = template::account_problems(job, &options);
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
            if let Some(level) = self.pod_security {
                pod_security::template(&mut p, &join(&path, "template"), &spec.template, level);
            }
            let Some(pod) = spec.template.spec.as_ref() else { continue };
            let pod_path = join(&path, "template.spec");
            if self.require_resource_limits {
                resource_limits(&mut p, &pod_path, pod);
            }
            if let Some(prefixes) = &self.allowed_image_registries {
                let master = (*replica_type == ReplicaType::DlroverMaster).then_some(options.master_image.as_str());
                images(&mut p, &pod_path, pod, master, prefixes);
            }
            // podSecurity checks the same fields, with the standard's messages.
            if self.deny_privileged && self.pod_security.is_none() {
                privileged(&mut p, &pod_path, pod);
            }
        }
        if let Some(prefixes) = &self.allowed_image_registries {
            default_master_image(&mut p, job, &options, prefixes);
        }
        if let Some(level) = self.pod_security {
            pod_security::job_annotations(&mut p, job.metadata.annotations.as_ref());
            // The operator's default master pod, for a job that gives no master template.
            if job.declared_replica_spec(ReplicaType::DlroverMaster).is_none() {
                let path = format!("spec.replicaSpecs.{}.template", ReplicaType::DlroverMaster);
                pod_security::template(&mut p, &path, &template::master_template(job, &options), level);
            }
        }
        if let Some(max) = self.max_total_replicas {
            // The task pods of DLRover's master's first plan.
            let counts: Vec<(ReplicaType, i64)> =
                crate::job::master_first_plan(job).into_iter().map(|(t, g)| (t, i64::from(g.count.max(0)))).collect();
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
        if self.require_queue_name {
            queue_label(&mut p, job, old);
        }
        if let Some(allowed) = &self.allowed_gang_schedulers {
            gang_schedulers(&mut p, job, allowed);
        }
        if let Some(allowed) = &self.allowed_queues {
            volcano_queue(&mut p, job, allowed);
        }
        if let Some(allowed) = &self.allowed_priority_classes {
            priority_classes(&mut p, job, allowed);
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

/// `allowedGangSchedulers`: a replica's `BatchScheduler: volcano` asks for Volcano; a scheduling
/// policy asks for a gang of whatever scheduler the controller runs, which an empty list refuses.
fn gang_schedulers(p: &mut Vec<Problem>, job: &ElasticJob, allowed: &[String]) {
    let policy = job.spec.run_policy.as_ref().and_then(|r| r.scheduling_policy.as_ref());
    for (replica_type, spec) in &job.spec.replica_specs {
        let path = format!("spec.replicaSpecs.{replica_type}");
        let batch = spec.batch_scheduler.as_deref().filter(|s| *s == podgroup::VOLCANO);
        // A template naming a scheduler: `volcano` is Volcano's gang (its pods would be Volcano's,
        // each in a group of its own, with no BatchScheduler said); with a scheduling policy, any
        // name but the default scheduler's is the gang's (the controller refuses a member of
        // another).
        let named = spec.template.spec.as_ref().and_then(|s| s.scheduler_name.as_deref());
        let named = named.filter(|n| !n.is_empty() && *n != DEFAULT_SCHEDULER);
        let named = named.filter(|n| *n == podgroup::VOLCANO || policy.is_some());
        let asks = [(format!("{path}.BatchScheduler"), batch), (format!("{path}.template.spec.schedulerName"), named)];
        for (at, asked) in asks {
            let Some(asked) = asked.filter(|a| !allowed.iter().any(|n| n == a)) else { continue };
            p.push(Problem::new(
                at,
                Code::InvalidValue,
                format!(
                    "`{asked}` is not a gang scheduler this cluster allows (allowed: {}; policy setting allowedGangSchedulers)",
                    allowed_list(allowed)
                ),
            ));
        }
    }
    if policy.is_some() && allowed.is_empty() {
        p.push(Problem::new(
            "spec.runPolicy.schedulingPolicy",
            Code::InvalidValue,
            "this cluster allows no gang scheduler: leave the scheduling policy out (policy setting allowedGangSchedulers)",
        ));
    }
}

/// A setting's list as a message shows it: each name quoted, or `none`.
fn allowed_list(allowed: &[String]) -> String {
    let names: Vec<&str> = allowed.iter().map(String::as_str).collect();
    if names.is_empty() { "none".to_owned() } else { quoted_list(&names, "and") }
}

/// The scheduler of a pod that names none.
const DEFAULT_SCHEDULER: &str = "default-scheduler";

/// `allowedQueues`: the Volcano queue of the job's gang, the one its scheduling policy names, or
/// `default` for a job whose replicas ask for Volcano and name none.
fn volcano_queue(p: &mut Vec<Problem>, job: &ElasticJob, allowed: &[String]) {
    let policy = job.spec.run_policy.as_ref().and_then(|r| r.scheduling_policy.as_ref());
    let named = policy.and_then(|s| s.queue.as_deref()).filter(|q| !q.is_empty());
    let volcano = job.spec.replica_specs.values().any(|s| s.batch_scheduler.as_deref() == Some(podgroup::VOLCANO));
    let queue = named.or_else(|| volcano.then_some(crate::gang::DEFAULT_QUEUE));
    if let Some(queue) = queue.filter(|q| !allowed.iter().any(|a| a == q)) {
        let path =
            if named.is_some() { "spec.runPolicy.schedulingPolicy.queue" } else { "spec.runPolicy.schedulingPolicy" };
        let listed = allowed_list(allowed);
        p.push(Problem::new(
            path,
            Code::InvalidValue,
            format!("the gang's queue `{queue}` is not one this cluster allows (allowed: {listed}; policy setting allowedQueues)"),
        ));
    }
}

/// `allowedPriorityClasses`: the gang's priority class and each pod template's.
fn priority_classes(p: &mut Vec<Problem>, job: &ElasticJob, allowed: &[String]) {
    let policy = job.spec.run_policy.as_ref().and_then(|r| r.scheduling_policy.as_ref());
    let gang = policy
        .and_then(|s| s.priority_class.as_deref())
        .map(|c| ("spec.runPolicy.schedulingPolicy.priorityClass".to_owned(), c));
    let pods = job.spec.replica_specs.iter().filter_map(|(t, s)| {
        let class = s.template.spec.as_ref().and_then(|s| s.priority_class_name.as_deref())?;
        Some((format!("spec.replicaSpecs.{t}.template.spec.priorityClassName"), class))
    });
    for (path, class) in gang.into_iter().chain(pods).filter(|(_, c)| !c.is_empty()) {
        if !allowed.iter().any(|a| a == class) {
            let listed = allowed_list(allowed);
            p.push(Problem::new(
                path,
                Code::InvalidValue,
                format!("`{class}` is not a priority class this cluster allows (allowed: {listed}; policy setting allowedPriorityClasses)"),
            ));
        }
    }
}

/// `requireQueueName`: the job's Kueue queue label, against the stored job's on UPDATE (`old`).
fn queue_label(p: &mut Vec<Problem>, job: &ElasticJob, old: Option<&Value>) {
    let path = join(&join("metadata", "labels"), LABEL_QUEUE_NAME);
    let queue = queue::queue_name(job);
    let stored = old.map(|old| {
        let label = old.get("metadata").and_then(|m| m.get("labels")).and_then(|l| l.get(LABEL_QUEUE_NAME));
        label.and_then(Value::as_str).filter(|q| !q.is_empty())
    });
    match (queue, stored) {
        (None, None) => p.push(Problem::new(
            path,
            Code::Required,
            format!("the job has no Kueue queue: label it `{LABEL_QUEUE_NAME}: <LocalQueue>` (policy setting requireQueueName)"),
        )),
        (None, Some(Some(was))) => p.push(Problem::new(
            path,
            Code::Required,
            format!("the job is queued in `{was}`, and every job must keep a Kueue queue (policy setting requireQueueName)"),
        )),
        (Some(queue), Some(was)) if was != Some(queue) && job.spec.suspend != Some(true) => {
            let was = was.map_or_else(|| "no queue".to_owned(), |w| format!("`{w}`"));
            p.push(Problem::new(
                path,
                Code::InvalidValue,
                format!(
                    "the queue of a job that is not suspended cannot change ({was} to `{queue}`): set `spec.suspend: true` in the same update, as Kueue requires (policy setting requireQueueName)"
                ),
            ));
        }
        // Created with a queue, kept, or moved while suspended; or stored without one and still
        // without one (a job from before the setting).
        _ => {}
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

/// The images of a template's containers and image volumes against the allowed prefixes. The master's first
/// container without an image runs the controller's master image (`master`, the setting
/// `masterImage` or the default), which is checked in its place.
fn images(p: &mut Vec<Problem>, pod_path: &str, pod: &PodSpec, master: Option<&str>, prefixes: &[String]) {
    for (i, c) in pod_security::views(pod).into_iter().enumerate() {
        let path = c.path;
        let given = c.image.filter(|i| !i.is_empty());
        // Any other missing image is the core's problem (`required`).
        let (image, what) = match (given, master) {
            (Some(image), _) => (image, String::new()),
            (None, Some(master)) if i == 0 => (master, DEFAULT_MASTER_IMAGE_NOTE.to_owned()),
            (None, _) => continue,
        };
        if !allowed_image(image, prefixes) {
            p.push(image_problem(format!("{pod_path}.{path}.image"), image, &what, prefixes));
        }
    }
    // An image volume's files come from an image the kubelet pulls like a container's.
    for (i, volume) in pod.volumes.iter().flatten().enumerate() {
        let reference =
            volume.get("image").and_then(|v| v.get("reference")).and_then(Value::as_str).filter(|r| !r.is_empty());
        if let Some(image) = reference.filter(|image| !allowed_image(image, prefixes)) {
            p.push(image_problem(format!("{pod_path}.volumes[{i}].image.reference"), image, "", prefixes));
        }
    }
}

/// Said of the controller's master image where the job gives none.
const DEFAULT_MASTER_IMAGE_NOTE: &str =
    " (the operator's default master image, run when the job gives the master none)";

/// A job without a `dlrover-master` template gets the operator's default master pod, whose image is
/// checked as if the job had given it.
fn default_master_image(p: &mut Vec<Problem>, job: &ElasticJob, options: &Options, prefixes: &[String]) {
    if job.declared_replica_spec(ReplicaType::DlroverMaster).is_some() {
        return;
    }
    let template = template::master_template(job, options);
    let images = template.spec.iter().flat_map(|s| &s.containers).filter_map(|c| c.image.as_deref());
    for (i, image) in images.enumerate() {
        if !allowed_image(image, prefixes) {
            let path = format!("spec.replicaSpecs.{}.template.spec.containers[{i}].image", ReplicaType::DlroverMaster);
            p.push(image_problem(path, image, DEFAULT_MASTER_IMAGE_NOTE, prefixes));
        }
    }
}

fn image_problem(path: String, image: &str, what: &str, prefixes: &[String]) -> Problem {
    let list: Vec<&str> = prefixes.iter().map(String::as_str).collect();
    Problem::new(
        path,
        Code::InvalidValue,
        format!(
            "`{image}`{what} is not from a registry this cluster allows: use an image starting with {} (policy setting allowedImageRegistries)",
            quoted_list(&list, "or")
        ),
    )
}

/// Whether an image, as written or fully qualified ([`qualified_image`]), is under one of the
/// prefixes ([`under_prefix`]).
fn allowed_image(image: &str, prefixes: &[String]) -> bool {
    let qualified = qualified_image(image);
    prefixes.iter().any(|prefix| under_prefix(image, prefix) || under_prefix(&qualified, prefix))
}

/// Whether an image reference is under a registry prefix, compared by host and path segments: the
/// prefix must end where a segment of the image ends. `registry.example.com` (with or without a
/// final `/`) covers `registry.example.com/x`, not `registry.example.com.evil.io/x` and not
/// `registry.example.com:5000/x` (a port is part of the host: write it in the prefix);
/// `registry.example.com/ml` covers `registry.example.com/ml/tf:2`, not
/// `registry.example.com/mlx/tf`. A prefix that names a whole repository
/// (`registry.example.com/ml/tf`) covers its tags and digests (`:2`, `@sha256:...`).
pub(crate) fn under_prefix(image: &str, prefix: &str) -> bool {
    let Some(rest) = image.strip_prefix(prefix) else { return false };
    if prefix.ends_with('/') || rest.is_empty() || rest.starts_with('/') {
        return true;
    }
    // After the host, `:` starts a port; after a path, a tag.
    prefix.contains('/') && (rest.starts_with(':') || rest.starts_with('@'))
}

/// An image reference as the container runtime resolves it: without a registry host (a first
/// component with `.` or `:`, or `localhost`) it comes from `docker.io`, and a one-component
/// name from `docker.io/library/`.
pub(crate) fn qualified_image(image: &str) -> String {
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
    for c in pod_security::views(pod) {
        if pod_security::flag(c.security, "privileged") == Some(true) {
            p.push(Problem::new(
                format!("{pod_path}.{}.securityContext.privileged", c.path),
                Code::InvalidValue,
                "privileged containers are not allowed in this cluster (policy setting denyPrivileged)",
            ));
        }
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

#[cfg(test)]
mod tests {
    use super::{qualified_image, under_prefix};

    #[test]
    fn prefixes_end_on_a_host_or_path_segment() {
        for (image, prefix, under) in [
            ("registry.example.com/x", "registry.example.com", true),
            ("registry.example.com/x", "registry.example.com/", true),
            ("registry.example.com.evil.io/x", "registry.example.com", false),
            ("registry.example.com.evil.io/x", "registry.example.com/", false),
            ("registry.example.com:5000/x", "registry.example.com", false),
            ("registry.example.com:5000/x", "registry.example.com/", false),
            ("registry.example.com:5000/x", "registry.example.com:5000", true),
            ("registry.example.com:5000/x", "registry.example.com:5000/", true),
            ("registry.example.com/ml/tf:2", "registry.example.com/ml", true),
            ("registry.example.com/ml/tf:2", "registry.example.com/ml/", true),
            ("registry.example.com/mlx/tf", "registry.example.com/ml", false),
            ("registry.example.com/mlx/tf", "registry.example.com/ml/", false),
            ("registry.example.com/ml/tf:2", "registry.example.com/ml/tf", true),
            ("registry.example.com/ml/tf@sha256:abc", "registry.example.com/ml/tf", true),
            ("registry.example.com/ml/tf-nightly:2", "registry.example.com/ml/tf", false),
            ("docker.io/library/tf:2", "docker.io", true),
            ("other.io/x", "registry.example.com", false),
        ] {
            assert_eq!(under_prefix(image, prefix), under, "{image} under {prefix}");
        }
    }

    #[test]
    fn images_are_qualified_like_the_runtime_does() {
        for (image, qualified) in [
            ("tf:2", "docker.io/library/tf:2"),
            ("easydl/tf-estimator:iris_dnn_v0", "docker.io/easydl/tf-estimator:iris_dnn_v0"),
            ("registry.example.com/ml/tf:2", "registry.example.com/ml/tf:2"),
            ("localhost:5000/tf", "localhost:5000/tf"),
            ("localhost/tf", "localhost/tf"),
            ("ghcr.io/org/tf@sha256:abc", "ghcr.io/org/tf@sha256:abc"),
        ] {
            assert_eq!(qualified_image(image), qualified, "{image}");
        }
    }
}

#[cfg(test)]
mod gang_settings_tests {
    use crate::admission::Settings;
    use crate::api::ElasticJob;

    fn job(policy: serde_json::Value, scheduler: Option<&str>, priority: Option<&str>) -> ElasticJob {
        let mut pod = serde_json::json!({"containers": [{"name": "main", "image": "tf"}]});
        if let Some(name) = scheduler {
            pod["schedulerName"] = name.into();
        }
        if let Some(class) = priority {
            pod["priorityClassName"] = class.into();
        }
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": "j"},
            "spec": {"distributionStrategy": "ParameterServerStrategy", "runPolicy": {"schedulingPolicy": policy},
                "replicaSpecs": {"worker": {"replicas": 1, "template": {"spec": pod}}}}
        }))
        .unwrap_or_default()
    }

    fn paths(settings: &Settings, job: &ElasticJob) -> Vec<String> {
        settings.check_job(job).into_iter().map(|p| p.path).collect()
    }

    #[test]
    fn queues_priority_classes_and_a_templates_scheduler_are_checked_against_the_settings() {
        let settings = Settings {
            allowed_queues: Some(vec!["research".into()]),
            allowed_priority_classes: Some(vec!["batch".into()]),
            allowed_gang_schedulers: Some(vec!["scheduler-plugins-scheduler".into()]),
            ..Settings::default()
        };
        let fine = job(serde_json::json!({"queue": "research", "priorityClass": "batch"}), None, Some("batch"));
        assert_eq!(paths(&settings, &fine), Vec::<String>::new());
        let wrong =
            job(serde_json::json!({"queue": "prod", "priorityClass": "urgent"}), Some("volcano"), Some("urgent"));
        assert_eq!(
            paths(&settings, &wrong),
            [
                "spec.replicaSpecs.worker.template.spec.schedulerName",
                "spec.runPolicy.schedulingPolicy.queue",
                "spec.runPolicy.schedulingPolicy.priorityClass",
                "spec.replicaSpecs.worker.template.spec.priorityClassName",
            ]
        );
        // Without a scheduling policy, a template naming a scheduler other than Volcano asks for no gang.
        let plain = job(serde_json::Value::Null, Some("my-scheduler"), None);
        assert_eq!(paths(&settings, &plain), Vec::<String>::new());
    }

    #[test]
    fn names_that_are_not_names_are_refused_in_the_settings() {
        let settings = Settings { allowed_queues: Some(vec!["Not A Queue".into()]), ..Settings::default() };
        let problems = settings.validate().err().map(|e| e.to_string()).unwrap_or_default();
        assert!(problems.contains("allowedQueues[0]"), "{problems}");
    }
}
