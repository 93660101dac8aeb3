//! Kueue: the Workload a queued job gets, what its admission adds to the job's pods, and the
//! defaulting of `spec.suspend` for a queued job. A job is queued when it carries the label
//! [`LABEL_QUEUE_NAME`]; for any other job nothing here applies.
//!
//! The job's controller creates and owns its Workload itself, as Kueue's job integrations do
//! (`pkg/controller/jobframework` of Kueue 0.17), without linking Kueue's Go code:
//! - **the Workload** (`kueue.x-k8s.io/v1beta2`, named `elasticjob-<job>`, in the job's namespace,
//!   labelled with the job's name, the job its controller owner): one pod set a replica type in
//!   the planning order, the master's first (`dlrover-master`, then `ps`, `chief`, `worker`,
//!   `evaluator`, each that the job declares), `count` the type's `replicas` (the master's 1),
//!   `template` the pod the core makes of the type (resources as the pods get them, without what
//!   makes one pod itself: name, rank, `TF_CONFIG`), `queueName` from the label, and the priority class: the job's
//!   [`LABEL_PRIORITY_CLASS`] label (a `WorkloadPriorityClass`), else the first `priorityClassName`
//!   of the templates in that order (a `PriorityClass`), with the class's value as the host reads
//!   it (Kueue requires `priority` beside `priorityClassRef`);
//! - **the admission**: each pod set's pods get, as Kueue's `podset.Merge` gives them, the
//!   `nodeLabels` of every flavour its assignment names in their node selector, the flavours'
//!   `tolerations` (no duplicate), the label `kueue.x-k8s.io/podset: <pod set>`, and each
//!   admission check's `podSetUpdates` for the pod set (labels, annotations, node selector,
//!   tolerations). A key that the template or an earlier source sets to another value is a
//!   conflict, refused with its path, as Kueue refuses it. A chief made from the worker's template
//!   (the job declares none) gets the worker pod set's;
//! - **`spec.suspend`**: a queued job not suspended at creation is suspended
//!   ([`suspend_when_queued`]), as Kueue's webhooks do for the jobs they integrate.

use std::collections::BTreeMap;

use crate::podspec::{ObjectMeta, PodTemplateSpec, Toleration};

use crate::api::{ElasticJob, ReplicaSpec, ReplicaType, TypeMap};
use crate::error::{Code, Error, Result};
use crate::template::{self, Options};
use crate::workload::{
    FINISHED, KIND_WORKLOAD, LABEL_POD_SET, LABEL_PRIORITY_CLASS, LABEL_QUEUE_NAME, PodSet, PriorityClassRef,
    ResourceFlavor, WORKLOAD_API_VERSION, Workload, WorkloadSpec,
};
use crate::{job, naming, sorted};

/// What a host observed of Kueue for one job, for [`crate::controller_pass_queued`].
#[derive(Clone, Copy, Debug, Default)]
pub struct QueueState<'a> {
    /// The job's Workload (named [`workload_name`]) as the cluster has it; `None` when there is
    /// none (yet).
    pub workload: Option<&'a Workload>,
    /// The job's later Workload slices (named [`slice_name`]) as the cluster has them, in any
    /// order: made when the job grows beyond its admission under Kueue's
    /// `ElasticJobsViaWorkloadSlices` gate ([`crate::Options::kueue_workload_slices`]).
    pub slices: &'a [Workload],
    /// The ResourceFlavors its admission names (others do no harm).
    pub flavors: &'a [ResourceFlavor],
    /// The value of the job's priority class ([`priority_class`]) as the cluster has it, when the
    /// job names one.
    pub priority: Option<i32>,
}

/// The LocalQueue a job is queued in: its [`LABEL_QUEUE_NAME`] label, when set and not empty.
pub fn queue_name(job: &ElasticJob) -> Option<&str> {
    job.metadata.labels.as_ref()?.get(LABEL_QUEUE_NAME).map(String::as_str).filter(|q| !q.is_empty())
}

/// The name of a job's Workload: `elasticjob-<job>`.
pub fn workload_name(job: &ElasticJob) -> String {
    format!("elasticjob-{}", job.name())
}

/// The name of a job's `n`-th Workload slice: `elasticjob-<job>.<n>` (the first slice keeps
/// [`workload_name`]). A dot, which no job name has (a job's name is a DNS-1035 label), so that no
/// slice is ever another job's Workload: with a `-`, job `train`'s second slice would be
/// `elasticjob-train-2`, the Workload of job `train-2`.
pub fn slice_name(job: &ElasticJob, n: u32) -> String {
    format!("{}.{n}", workload_name(job))
}

/// Which of the job's Workload slices a name is: 1 for [`workload_name`], `n` for
/// [`slice_name`] (`n` at least 2); `None` for any other name.
pub fn slice_number(job: &ElasticJob, name: &str) -> Option<u32> {
    let first = workload_name(job);
    let rest = name.strip_prefix(first.as_str())?;
    if rest.is_empty() {
        return Some(1);
    }
    let digits = rest.strip_prefix('.').filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))?;
    digits.parse().ok().filter(|n| *n >= 2 && !digits.starts_with('0'))
}

/// The job with `spec.suspend: true` when it is queued and not suspended, else `None`: what the
/// admission policy and the controller do to a queued job at its creation (Kueue starts it by
/// unsuspending it once its Workload is admitted). `suspend: false` is overridden, as Kueue's
/// webhooks override it.
pub fn suspend_when_queued(job: &ElasticJob) -> Option<ElasticJob> {
    if queue_name(job).is_none() || job.spec.suspend == Some(true) {
        return None;
    }
    let mut suspended = job.clone();
    suspended.spec.suspend = Some(true);
    Some(suspended)
}

/// The replica types a job's Workload has a pod set for, in order: the master, then each task
/// type the job declares.
pub fn pod_set_types(job: &ElasticJob) -> Vec<ReplicaType> {
    ReplicaType::ALL
        .into_iter()
        .filter(|t| *t == ReplicaType::DlroverMaster || job.declared_replica_spec(*t).is_some())
        .collect()
}

/// The priority class of a queued job: its [`LABEL_PRIORITY_CLASS`] label (Kueue's
/// `WorkloadPriorityClass`), else the first `priorityClassName` of its templates in pod-set order
/// (a `PriorityClass`).
pub fn priority_class(job: &ElasticJob, options: &Options) -> Option<PriorityClassRef> {
    let label = job.metadata.labels.as_ref().and_then(|l| l.get(LABEL_PRIORITY_CLASS)).filter(|n| !n.is_empty());
    if let Some(name) = label {
        return Some(PriorityClassRef {
            group: "kueue.x-k8s.io".to_owned(),
            kind: "WorkloadPriorityClass".to_owned(),
            name: name.clone(),
        });
    }
    let templates = pod_set_types(job).into_iter().map(|t| match t {
        ReplicaType::DlroverMaster => Some(template::master_template(job, options)),
        t => job.declared_replica_spec(t).map(|s| s.template.clone()),
    });
    let name = templates.flatten().find_map(|t| t.spec?.priority_class_name.filter(|n| !n.is_empty()))?;
    Some(PriorityClassRef { group: "scheduling.k8s.io".to_owned(), kind: "PriorityClass".to_owned(), name })
}

/// The Workload of a queued job (see the module docs); `None` for a job without the queue label.
/// `priority` is the value of the job's priority class ([`priority_class`]), which the host reads
/// from the cluster; without it a Workload that names a class has no `priority`, which the API
/// server refuses.
///
/// # Errors
/// As [`crate::render()`]: a type without a template, a template without a container.
pub fn workload(job: &ElasticJob, options: &Options, priority: Option<i32>) -> Result<Option<Workload>> {
    let Some(queue) = queue_name(job) else { return Ok(None) };
    let mut pod_sets = Vec::new();
    for replica_type in pod_set_types(job) {
        let (template, count) = match replica_type {
            ReplicaType::DlroverMaster => (template::pod_template(template::master_pod(job, options)?), 1),
            t => {
                let count = job.declared_replica_spec(t).map_or(0, ReplicaSpec::replicas);
                (template::task_template(job, t, &job::template_resource(job, t))?, count)
            }
        };
        pod_sets.push(PodSet { name: replica_type.as_str().to_owned(), template, count });
    }
    let priority_class_ref = priority_class(job, options);
    Ok(Some(Workload {
        api_version: Some(WORKLOAD_API_VERSION.to_owned()),
        kind: Some(KIND_WORKLOAD.to_owned()),
        metadata: ObjectMeta {
            name: Some(workload_name(job)),
            namespace: job::namespace(job).map(str::to_owned),
            labels: Some(sorted::one(naming::LABEL_JOB_NAME.to_owned(), job.name().to_owned())),
            owner_references: template::owner_reference(job).map(|o| vec![o]),
            ..ObjectMeta::default()
        },
        spec: WorkloadSpec {
            pod_sets,
            queue_name: Some(queue.to_owned()),
            priority: priority.filter(|_| priority_class_ref.is_some()),
            priority_class_ref,
            active: None,
        },
        status: None,
    }))
}

/// Whether an observed Workload is this job's: named after it (its first slice, [`workload_name`],
/// or a later one, [`slice_name`]), in its namespace, and controlled by it (by uid; for a job
/// without a uid, by no other object).
pub fn is_jobs_workload(workload: &Workload, job: &ElasticJob) -> bool {
    let namespace = workload.metadata.namespace.as_deref().filter(|n| !n.is_empty());
    let controller = workload.metadata.owner_references.iter().flatten().find(|r| r.controller == Some(true));
    let uid = job.metadata.uid.as_deref().filter(|u| !u.is_empty());
    workload.metadata.name.as_deref().and_then(|n| slice_number(job, n)).is_some()
        && (namespace.is_none() || job::namespace(job).is_none() || namespace == job::namespace(job))
        && match (controller, uid) {
            (Some(owner), Some(uid)) => owner.uid == uid,
            (Some(_), None) => false,
            (None, _) => true,
        }
}

/// The counts of a server-side dry run (`dryRun=All`) of an update of `workload` that asks
/// Kueue's webhook whether its manager runs with `ElasticJobsViaWorkloadSlices`, which a
/// controller cannot read: the first pod set with pods, one pod fewer. While the Workload holds
/// quota, the webhook refuses any change of its pod sets as "field is immutable", except, with
/// the gate on, a count that goes down (`validateImmutablePodSets` and `validateImmutablePodSet`
/// in Kueue's `pkg/webhooks/workload_webhook.go`): accepted means on, refused means off. `None`
/// for a Workload that holds no quota or is finished (any change passes, so the answer would tell
/// nothing) and for one without pods.
pub fn gate_probe(workload: &Workload) -> Option<BTreeMap<String, i32>> {
    if !workload.has_quota() || workload.is_true(FINISHED) {
        return None;
    }
    let set = workload.spec.pod_sets.iter().find(|s| s.count > 0)?;
    Some(sorted::one(set.name.clone(), set.count - 1))
}

/// How many pods of each type the Workload was admitted for: each assignment's `count` (else its
/// pod set's), at most its pod set's count, which may have gone down in place since (the
/// admission is immutable; Kueue counts `min(admission count, spec count)` as
/// `totalRequestsFromAdmission` in `pkg/workload/workload.go` does). Empty without an admission.
pub fn admitted_counts(workload: &Workload) -> TypeMap<i32> {
    let Some(admission) = workload.status.as_ref().and_then(|s| s.admission.as_ref()) else {
        return TypeMap::new();
    };
    let pod_set_count =
        |name: &str| workload.spec.pod_sets.iter().find(|p| p.name == name).map_or(0, |p| p.count.max(0));
    admission
        .pod_set_assignments
        .iter()
        .filter_map(|a| {
            let spec = pod_set_count(&a.name);
            Some((ReplicaType::parse(&a.name)?, a.count.map_or(spec, |n| n.min(spec))))
        })
        .collect()
}

/// The job as its admitted pods are made: each admitted pod set's template (the master's too)
/// with what the admission adds (see the module docs). The job's pods, services and `TF_CONFIG`
/// are then rendered from it as from any job.
///
/// # Errors
/// [`Code::Required`] at `resourceFlavors` when the admission names a flavour not among
/// `flavors`; [`Code::Mismatch`] at the pod set's path when two sources give a label, an
/// annotation or a node-selector key two values.
pub fn admitted_job(
    job: &ElasticJob,
    workload: &Workload,
    flavors: &[ResourceFlavor],
    options: &Options,
) -> Result<ElasticJob> {
    let mut admitted = job.clone();
    let Some(status) = workload.status.as_ref() else { return Ok(admitted) };
    let Some(admission) = status.admission.as_ref() else { return Ok(admitted) };
    for (i, assignment) in admission.pod_set_assignments.iter().enumerate() {
        let Some(replica_type) = ReplicaType::parse(&assignment.name) else { continue };
        let path = format!("workload.status.admission.podSetAssignments[{i}]");
        let mut adds = Additions::default();
        adds.labels.insert(LABEL_POD_SET.to_owned(), assignment.name.clone());
        let mut seen: Vec<&str> = Vec::new();
        for flavor_name in assignment.flavors.values() {
            if seen.contains(&flavor_name.as_str()) {
                continue;
            }
            seen.push(flavor_name);
            let flavor =
                flavors.iter().find(|f| f.metadata.name.as_deref() == Some(flavor_name.as_str())).ok_or_else(|| {
                    Error::invalid(
                        "resourceFlavors",
                        Code::Required,
                        format!(
                            "the admission of pod set {} names ResourceFlavor {flavor_name}, which is not among the flavours given: give every flavour the admission names",
                            assignment.name
                        ),
                    )
                })?;
            adds.merge(&Additions::nodes(&flavor.spec.node_labels, &flavor.spec.tolerations), &path)?;
        }
        for (c, check) in status.admission_checks.iter().enumerate() {
            for update in check.pod_set_updates.iter().filter(|u| u.name == assignment.name) {
                let update_path = format!("workload.status.admissionChecks[{c}].podSetUpdates");
                let from = Additions {
                    labels: update.labels.clone(),
                    annotations: update.annotations.clone(),
                    node_selector: update.node_selector.clone(),
                    tolerations: update.tolerations.clone(),
                };
                adds.merge(&from, &update_path)?;
            }
        }
        let spec = match replica_type {
            ReplicaType::DlroverMaster => {
                let template = template::master_template(job, options);
                let spec = admitted.spec.replica_specs.entry(replica_type).or_default();
                spec.template = template;
                spec
            }
            t => match admitted.spec.replica_specs.get_mut(&t) {
                Some(spec) => spec,
                None => continue,
            },
        };
        adds.apply_to(&mut spec.template, &format!("spec.replicaSpecs.{replica_type}.template"))?;
    }
    Ok(admitted)
}

/// What an admission adds to a pod set's pods.
#[derive(Default)]
struct Additions {
    labels: BTreeMap<String, String>,
    annotations: BTreeMap<String, String>,
    node_selector: BTreeMap<String, String>,
    tolerations: Vec<Toleration>,
}

impl Additions {
    fn nodes(node_labels: &BTreeMap<String, String>, tolerations: &[Toleration]) -> Additions {
        Additions { node_selector: node_labels.clone(), tolerations: tolerations.to_vec(), ..Additions::default() }
    }

    /// Adds `other`'s entries; a key already set to another value is a conflict.
    fn merge(&mut self, other: &Additions, path: &str) -> Result<()> {
        merge_map(&mut self.labels, &other.labels, &format!("{path}.labels"))?;
        merge_map(&mut self.annotations, &other.annotations, &format!("{path}.annotations"))?;
        merge_map(&mut self.node_selector, &other.node_selector, &format!("{path}.nodeSelector"))?;
        for t in &other.tolerations {
            if !self.tolerations.contains(t) {
                self.tolerations.push(t.clone());
            }
        }
        Ok(())
    }

    fn apply_to(self, template: &mut PodTemplateSpec, path: &str) -> Result<()> {
        let meta = template.metadata.get_or_insert_with(ObjectMeta::default);
        merge_map(meta.labels.get_or_insert_with(BTreeMap::new), &self.labels, &format!("{path}.metadata.labels"))?;
        if !self.annotations.is_empty() {
            let annotations = meta.annotations.get_or_insert_with(BTreeMap::new);
            merge_map(annotations, &self.annotations, &format!("{path}.metadata.annotations"))?;
        }
        let spec = template.spec.get_or_insert_with(Default::default);
        if !self.node_selector.is_empty() {
            let selector = spec.node_selector.get_or_insert_with(BTreeMap::new);
            merge_map(selector, &self.node_selector, &format!("{path}.spec.nodeSelector"))?;
        }
        if !self.tolerations.is_empty() {
            let tolerations = spec.tolerations.get_or_insert_with(Vec::new);
            for t in self.tolerations {
                if !tolerations.contains(&t) {
                    tolerations.push(t);
                }
            }
        }
        Ok(())
    }
}

fn merge_map(into: &mut BTreeMap<String, String>, from: &BTreeMap<String, String>, path: &str) -> Result<()> {
    for (key, value) in from {
        match into.get(key) {
            Some(current) if current != value => {
                return Err(Error::invalid(
                    format!("{path}.{key}"),
                    Code::Mismatch,
                    format!(
                        "Kueue's admission sets `{key}` to `{value}`, but it is `{current}` already: the pod set's pods cannot have both (Kueue refuses such an admission too)"
                    ),
                ));
            }
            Some(_) => {}
            None => {
                into.insert(key.clone(), value.clone());
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{
        Admission, AdmissionCheckState, PodSetAssignment, PodSetUpdate, QUOTA_RESERVED, WorkloadCondition,
        WorkloadStatus,
    };

    fn job(labels: serde_json::Value) -> ElasticJob {
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": "j", "namespace": "ns", "uid": "u-1", "labels": labels},
            "spec": {"distributionStrategy": "ParameterServerStrategy", "replicaSpecs": {
                "worker": {"replicas": 4, "template": {"spec": {"priorityClassName": "high", "containers": [
                    {"name": "main", "image": "tf", "resources": {"requests": {"cpu": "1"}}}]}}},
                "ps": {"replicas": 1, "template": {"spec": {"nodeSelector": {"disk": "ssd"}, "containers": [
                    {"name": "main", "image": "tf", "resources": {"requests": {"cpu": "0.5"}}}]}}}}}
        }))
        .unwrap_or_default()
    }

    fn flavor(name: &str, labels: &[(&str, &str)]) -> ResourceFlavor {
        let mut f = ResourceFlavor::default();
        f.metadata.name = Some(name.to_owned());
        f.spec.node_labels = labels.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        f.spec.tolerations = vec![Toleration::of(serde_json::json!({"key": "pool", "operator": "Exists"}))];
        f
    }

    fn admitted(workload: &mut Workload, flavor: &str) {
        let assignments = workload
            .spec
            .pod_sets
            .iter()
            .map(|p| PodSetAssignment {
                name: p.name.clone(),
                flavors: BTreeMap::from([("cpu".to_owned(), flavor.to_owned())]),
                ..Default::default()
            })
            .collect();
        workload.status = Some(WorkloadStatus {
            admission: Some(Admission { cluster_queue: "cq".into(), pod_set_assignments: assignments }),
            ..Default::default()
        });
    }

    #[test]
    fn only_a_labelled_job_has_a_workload_and_is_suspended() {
        let plain = job(serde_json::json!({}));
        assert!(matches!(workload(&plain, &Options::default(), None), Ok(None)));
        assert!(suspend_when_queued(&plain).is_none());
        let queued = job(serde_json::json!({LABEL_QUEUE_NAME: "training"}));
        assert_eq!(suspend_when_queued(&queued).and_then(|j| j.spec.suspend), Some(true));
        let mut suspended = queued.clone();
        suspended.spec.suspend = Some(true);
        assert!(suspend_when_queued(&suspended).is_none(), "already suspended: nothing to change");
    }

    /// The gate is asked of a Workload only while it holds quota and is not finished: the first
    /// pod set with pods, one fewer.
    #[test]
    fn the_gate_probe_lowers_one_count_of_a_workload_holding_quota() {
        let queued = job(serde_json::json!({LABEL_QUEUE_NAME: "training"}));
        let Ok(Some(mut w)) = workload(&queued, &Options::default(), None) else { panic!("no workload") };
        assert_eq!(gate_probe(&w), None, "no quota: any change passes the webhook");
        let condition =
            |type_: &str| WorkloadCondition { type_: type_.into(), status: "True".into(), ..Default::default() };
        w.status = Some(WorkloadStatus { conditions: vec![condition(QUOTA_RESERVED)], ..Default::default() });
        assert_eq!(gate_probe(&w), Some(BTreeMap::from([("dlrover-master".to_owned(), 0)])));
        if let Some(master) = w.spec.pod_sets.first_mut() {
            master.count = 0;
        }
        assert_eq!(gate_probe(&w), Some(BTreeMap::from([("ps".to_owned(), 0)])), "the first pod set with pods");
        if let Some(status) = w.status.as_mut() {
            status.conditions.push(condition(FINISHED));
        }
        assert_eq!(gate_probe(&w), None, "finished");
    }

    #[test]
    fn the_workload_has_a_pod_set_a_type_master_first() {
        let queued = job(serde_json::json!({LABEL_QUEUE_NAME: "training"}));
        let Ok(Some(w)) = workload(&queued, &Options::default(), Some(1000)) else { panic!("no workload") };
        let sets: Vec<(&str, i32)> = w.spec.pod_sets.iter().map(|p| (p.name.as_str(), p.count)).collect();
        assert_eq!(sets, [("dlrover-master", 1), ("ps", 1), ("worker", 4)]);
        assert_eq!(w.spec.queue_name.as_deref(), Some("training"));
        assert_eq!(w.spec.priority_class_ref.as_ref().map(|r| r.name.as_str()), Some("high"));
        assert_eq!(w.spec.priority, Some(1000));
        assert_eq!(w.metadata.owner_references.as_ref().map(|o| o.len()), Some(1));
        assert!(is_jobs_workload(&w, &queued));
        // The PS asks for its cpu as request and limit, in the API server's form.
        let ps = w.spec.pod_sets.get(1).and_then(|p| p.template.spec.as_ref()).and_then(|s| s.containers.first());
        let limits = ps.and_then(|c| c.resources.as_ref()).and_then(|r| r.limits.as_ref());
        assert_eq!(limits.and_then(|l| l.get("cpu")).map(|q| q.0.as_str()), Some("500m"));
    }

    #[test]
    fn the_admission_adds_flavours_and_checks_and_refuses_conflicts() {
        let queued = job(serde_json::json!({LABEL_QUEUE_NAME: "training"}));
        let options = Options::default();
        let Ok(Some(mut w)) = workload(&queued, &options, None) else { panic!("no workload") };
        admitted(&mut w, "reserved");
        if let Some(status) = w.status.as_mut() {
            status.admission_checks.push(AdmissionCheckState {
                name: "prov".into(),
                state: "Ready".into(),
                pod_set_updates: vec![PodSetUpdate {
                    name: "worker".into(),
                    annotations: BTreeMap::from([("a".to_owned(), "b".to_owned())]),
                    ..Default::default()
                }],
            });
        }
        let flavors = [flavor("reserved", &[("pool", "reserved")])];
        let Ok(job) = admitted_job(&queued, &w, &flavors, &options) else { panic!("refused") };
        let worker = job.spec.replica_specs.get(&ReplicaType::Worker).map(|s| &s.template);
        let spec = worker.and_then(|t| t.spec.as_ref());
        assert_eq!(
            spec.and_then(|s| s.node_selector.as_ref()).and_then(|n| n.get("pool")).map(String::as_str),
            Some("reserved")
        );
        assert_eq!(spec.and_then(|s| s.tolerations.as_ref()).map(Vec::len), Some(1));
        let meta = worker.and_then(|t| t.metadata.as_ref());
        assert_eq!(meta.and_then(|m| m.annotations.as_ref()).and_then(|a| a.get("a")).map(String::as_str), Some("b"));
        assert_eq!(
            meta.and_then(|m| m.labels.as_ref()).and_then(|l| l.get(LABEL_POD_SET)).map(String::as_str),
            Some("worker")
        );
        assert!(
            job.spec.replica_specs.contains_key(&ReplicaType::DlroverMaster),
            "the master's template carries it too"
        );
        // The PS template selects disk=ssd already; a flavour saying disk=hdd is a conflict.
        let clash = [flavor("reserved", &[("disk", "hdd")])];
        let err = admitted_job(&queued, &w, &clash, &options).err();
        let problem = err.as_ref().and_then(|e| e.problems().first()).map(|p| (p.path.clone(), p.code));
        assert_eq!(problem, Some(("spec.replicaSpecs.ps.template.spec.nodeSelector.disk".to_owned(), Code::Mismatch)));
        let missing = admitted_job(&queued, &w, &[], &options).err();
        assert_eq!(missing.as_ref().and_then(|e| e.problems().first()).map(|p| p.code), Some(Code::Required));
    }
}
