//! A gang-scheduled job's PodGroup: the one object that makes a gang scheduler (Volcano, or
//! scheduler-plugins' coscheduling) place the job's task pods all together or not at all.
//!
//! **Who is in the gang.** The task pods: every PS, the chief, the evaluator and the workers of
//! the job's current plan (its first plan until DLRover's master writes one), or
//! `schedulingPolicy.minAvailable` of them. The job master is not: it runs on the gang scheduler
//! but outside the group, because it is the master that writes the plans from which the task
//! pods are made. A gang that counted the master would hold it until the task pods existed, and
//! they are only made once it runs: neither would ever start. A parameter-server job makes no
//! progress without every PS (each holds a shard of the variables) and its chief (which drives
//! the training loop); its workers are what the plan asks for, so the group follows the newest
//! plan: a scale-up is placed whole, a scale-down lowers the minimum.
//!
//! **What it needs.** `minResources` is what the first `minMember` members request together (PS
//! first, then the chief, the evaluator and the workers), each pod as Kubernetes counts it: the
//! sum of its containers' requests (a limit where no request is given), or its largest init
//! container's where that is more; the plan's resource set over the first container's requests
//! when the plan gives one, as the pod is made.
//!
//! **Conflicts** are refused with their path ([`check`]): a replica saying `BatchScheduler:
//! volcano` under a controller whose gang scheduler is another, a template naming a scheduler
//! other than the gang's, a gang scheduler name that is not a name.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, PodTemplateSpec};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::api::{ElasticJob, ReplicaType, ResourceList, ScalePlan, SchedulingPolicy};
use crate::error::{Code, Problem};
use crate::podgroup::{self, Gang, KIND_POD_GROUP, PodGroup, PodGroupSpec};
use crate::quantity::Amount;
use crate::template::{self, Options};
use crate::{job, naming};

/// Volcano's queue of a PodGroup whose job names none (training-operator's default).
pub const DEFAULT_QUEUE: &str = "default";

/// The members of the gang in the order they are counted into `minResources`.
const MEMBERS: [ReplicaType; 4] = [ReplicaType::Ps, ReplicaType::Chief, ReplicaType::Evaluator, ReplicaType::Worker];

/// The conflicts between a job and the controller's gang scheduler, each at its path.
pub fn check(job: &ElasticJob, options: &Options) -> Vec<Problem> {
    let mut p = Vec::new();
    if let Some(name) = options.gang_scheduler_name.as_deref() {
        if !naming::is_dns1123_subdomain(name) {
            p.push(Problem::new(
                "options.gangSchedulerName",
                Code::InvalidName,
                format!("{name:?} is not a scheduler name: `volcano`, or the name scheduler-plugins' scheduler runs under (a DNS-1123 subdomain)"),
            ));
            return p;
        }
    }
    let Some(gang) = template::gang(job, options) else { return p };
    for (replica_type, spec) in &job.spec.replica_specs {
        let path = format!("spec.replicaSpecs.{replica_type}");
        if spec.batch_scheduler.as_deref() == Some(podgroup::VOLCANO) && gang != Gang::Volcano {
            p.push(Problem::new(
                format!("{path}.BatchScheduler"),
                Code::Mismatch,
                format!(
                    "the job asks for Volcano's gang, but the controller's gang scheduler is `{}` (--gang-scheduler-name); leave BatchScheduler out or run the controller with volcano",
                    gang.scheduler_name()
                ),
            ));
        }
        // The master is outside the gang: it may run on a scheduler of its own.
        let named = spec.template.spec.as_ref().and_then(|s| s.scheduler_name.as_deref()).filter(|n| !n.is_empty());
        let member = *replica_type != ReplicaType::DlroverMaster;
        if let Some(named) = named.filter(|n| member && *n != gang.scheduler_name()) {
            p.push(Problem::new(
                format!("{path}.template.spec.schedulerName"),
                Code::Mismatch,
                format!(
                    "`{named}` is not the job's gang scheduler `{}`: a pod of another scheduler would never join the gang; leave schedulerName out",
                    gang.scheduler_name()
                ),
            ));
        }
    }
    p
}

/// The PodGroup the job needs under `plan` (its current plan, else its first), or `None` when the
/// job has no gang scheduler. Call it on a job [`check`] and [`crate::validate`] found no problem in.
pub fn pod_group(job: &ElasticJob, plan: &ScalePlan, options: &Options) -> Option<PodGroup> {
    let gang = template::gang(job, options)?;
    let policy = job.spec.run_policy.as_ref().and_then(|r| r.scheduling_policy.clone()).unwrap_or_default();
    let members: Vec<(ReplicaType, i32)> = MEMBERS.into_iter().map(|t| (t, count(job, plan, t))).collect();
    let total = members.iter().fold(0i32, |n, (_, c)| n.saturating_add(*c));
    // Never above the members the plan asks for: a plan that scales below `minAvailable` would
    // otherwise leave every pod it makes waiting for members that never come.
    let min_member = policy.min_available.map_or(total, |n| n.min(total));
    let min_resources = match &policy.min_resources {
        Some(given) => given.iter().map(|(k, q)| (k.clone(), Quantity(crate::quantity::canonical(&q.0)))).collect(),
        None => requests_of(job, plan, &members, min_member),
    };
    let SchedulingPolicy { queue, priority_class, schedule_timeout_seconds, .. } = policy;
    let spec = match gang {
        Gang::Volcano => PodGroupSpec {
            min_member,
            queue: Some(queue.unwrap_or_else(|| DEFAULT_QUEUE.to_owned())),
            priority_class_name: priority_class,
            min_resources: Some(min_resources),
            schedule_timeout_seconds: None,
        },
        Gang::SchedulerPlugins(_) => PodGroupSpec {
            min_member,
            queue: None,
            priority_class_name: None,
            min_resources: Some(min_resources),
            schedule_timeout_seconds,
        },
    };
    let labels = BTreeMap::from([(naming::LABEL_JOB_NAME.to_owned(), job.name().to_owned())]);
    Some(PodGroup {
        api_version: Some(gang.api_version().to_owned()),
        kind: Some(KIND_POD_GROUP.to_owned()),
        metadata: ObjectMeta {
            name: Some(job.name().to_owned()),
            namespace: job::namespace(job).map(str::to_owned),
            labels: Some(labels),
            owner_references: template::owner_reference(job).map(|o| vec![o]),
            ..ObjectMeta::default()
        },
        spec,
        status: None,
    })
}

/// Whether the observed PodGroup already has the spec `want` asks for (quantities by value).
pub fn is_current(observed: &PodGroup, want: &PodGroup) -> bool {
    let (a, b) = (&observed.spec, &want.spec);
    let same_resources = match (&a.min_resources, &b.min_resources) {
        (Some(x), Some(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, q)| {
                    let want = y.get(k).and_then(|w| Amount::parse(&w.0).ok());
                    want.is_some() && Amount::parse(&q.0).ok() == want
                })
        }
        (x, y) => x.as_ref().is_none_or(BTreeMap::is_empty) && y.as_ref().is_none_or(BTreeMap::is_empty),
    };
    observed.api_version == want.api_version
        && a.min_member == b.min_member
        && a.queue == b.queue
        && a.priority_class_name == b.priority_class_name
        && a.schedule_timeout_seconds == b.schedule_timeout_seconds
        && same_resources
}

/// Reason of the job's `GangPending` condition while its Volcano PodGroup is being made.
pub const REASON_CREATING: &str = "PodGroupCreating";
/// Reason of the job's `GangPending` condition while Volcano has not admitted its PodGroup.
pub const REASON_PENDING: &str = "PodGroupPending";

/// Why the job's task pods wait for Volcano, as a condition's reason and message (its PodGroup
/// not there yet, or still `Pending`: Volcano has not admitted the gang to its queue), or `None`
/// when they need not: scheduler-plugins places pods as they come, and holds each at its Permit
/// stage until its whole gang can be bound.
pub fn waits_for(
    job: &ElasticJob,
    options: &Options,
    observed: Option<&PodGroup>,
    want: &PodGroup,
) -> Option<(&'static str, String)> {
    if template::gang(job, options)? != Gang::Volcano {
        return None;
    }
    let name = job.name();
    let queue = want.spec.queue.as_deref().unwrap_or(DEFAULT_QUEUE);
    let members = want.spec.min_member;
    match observed.map(PodGroup::phase) {
        None => Some((
            REASON_CREATING,
            format!("PodGroup {name} is being created: no task pod is made until Volcano admits the gang"),
        )),
        Some("" | podgroup::PHASE_PENDING) => Some((
            REASON_PENDING,
            format!(
                "PodGroup {name} is Pending: Volcano has not admitted the gang of {members} task pods to queue {queue} yet; no task pod is made until it does"
            ),
        )),
        Some(_) => None,
    }
}

/// The pods of the type the plan asks for: its `replicas` in the plan, else the spec's.
fn count(job: &ElasticJob, plan: &ScalePlan, replica_type: ReplicaType) -> i32 {
    let planned = plan.spec.replica_resource_specs.get(&replica_type).map(|r| r.replicas);
    let declared = || job.declared_replica_spec(replica_type).map(crate::api::ReplicaSpec::replicas);
    planned.or_else(declared).unwrap_or(0).max(0)
}

/// What the first `min_member` members request together.
fn requests_of(job: &ElasticJob, plan: &ScalePlan, members: &[(ReplicaType, i32)], min_member: i32) -> ResourceList {
    let mut totals: BTreeMap<String, Amount> = BTreeMap::new();
    let mut left = min_member;
    for &(replica_type, n) in members {
        let taken = n.min(left);
        left -= taken;
        let Ok(template) = job::task_template(job, replica_type) else { continue };
        let resource = plan.spec.replica_resource_specs.get(&replica_type).map(|r| &r.resource);
        for (name, each) in pod_requests(template, resource.filter(|r| !r.is_empty())) {
            let total = totals.entry(name).or_insert(Amount::ZERO);
            *total = each.checked_mul(i64::from(taken)).and_then(|x| total.checked_add(x)).unwrap_or(Amount::MAX);
        }
    }
    totals.into_iter().filter(|(_, a)| *a != Amount::ZERO).map(|(k, a)| (k, Quantity(a.to_string()))).collect()
}

/// What one pod made from `template` requests, as the scheduler counts it: its containers' sum (a
/// limit where no request is given; the first container's resource replaced by `first` when
/// given), or its largest init container where that is more.
fn pod_requests(template: &PodTemplateSpec, first: Option<&ResourceList>) -> BTreeMap<String, Amount> {
    let Some(spec) = &template.spec else { return BTreeMap::new() };
    let mut sum: BTreeMap<String, Amount> = BTreeMap::new();
    for (i, container) in spec.containers.iter().enumerate() {
        // The plan's resource is set over the first container's own (template::task_template
        // keeps what the plan does not name, such as a GPU).
        let mut resource = requests(container);
        if let Some(given) = first.filter(|_| i == 0) {
            resource.extend(given.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        for (name, q) in &resource {
            let Ok(amount) = Amount::parse(&q.0) else { continue };
            let total = sum.entry(name.clone()).or_insert(Amount::ZERO);
            *total = total.checked_add(amount).unwrap_or(Amount::MAX);
        }
    }
    for init in spec.init_containers.iter().flatten() {
        for (name, q) in &requests(init) {
            let Ok(amount) = Amount::parse(&q.0) else { continue };
            let total = sum.entry(name.clone()).or_insert(Amount::ZERO);
            *total = (*total).max(amount);
        }
    }
    sum
}

/// A container's requests, with its limit for a resource it requests nothing of (Kubernetes
/// defaults such a request to the limit).
fn requests(container: &Container) -> ResourceList {
    let resources = container.resources.as_ref();
    let mut out = resources.and_then(|r| r.requests.clone()).unwrap_or_default();
    for (name, q) in resources.and_then(|r| r.limits.as_ref()).into_iter().flatten() {
        out.entry(name.clone()).or_insert_with(|| q.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(extra: serde_json::Value) -> ElasticJob {
        let mut j = serde_json::json!({
            "metadata": {"name": "j", "namespace": "ns", "uid": "u"},
            "spec": {"distributionStrategy": "ParameterServerStrategy", "replicaSpecs": {
                "ps": {"replicas": 2, "template": {"spec": {"containers": [
                    {"name": "main", "image": "tf", "resources": {"requests": {"cpu": "2", "memory": "1Gi"}}}]}}},
                "worker": {"replicas": 3, "template": {"spec": {"containers": [
                    {"name": "main", "image": "tf", "resources": {"limits": {"cpu": "1", "nvidia.com/gpu": "1"}}}]}}}}}
        });
        if let (Some(spec), serde_json::Value::Object(extra)) = (j.get_mut("spec"), extra) {
            for (k, v) in extra {
                spec[k] = v;
            }
        }
        serde_json::from_value(j).unwrap_or_default()
    }

    fn plugins() -> Options {
        Options { gang_scheduler_name: Some("coscheduling".into()), ..Options::default() }
    }

    #[test]
    fn no_gang_scheduler_no_pod_group() {
        let j = job(serde_json::json!({}));
        assert_eq!(pod_group(&j, &job::initial_scale_plan(&j), &Options::default()), None);
    }

    #[test]
    fn the_gang_is_every_task_pod_and_what_they_request() {
        let j = job(serde_json::json!({}));
        let Some(group) = pod_group(&j, &job::initial_scale_plan(&j), &plugins()) else { panic!("no group") };
        assert_eq!(group.api_version.as_deref(), Some(podgroup::SCHEDULER_PLUGINS_API_VERSION));
        assert_eq!(group.spec.min_member, 5);
        let resources = group.spec.min_resources.unwrap_or_default();
        let got: Vec<(&str, &str)> = resources.iter().map(|(k, q)| (k.as_str(), q.0.as_str())).collect();
        // DLRover's master plans 16 CPUs and 0 memory for the workers (their template requests
        // nothing), one of them the chief; their GPU limit counts as its request.
        assert_eq!(got, [("cpu", "52"), ("memory", "2Gi"), ("nvidia.com/gpu", "3")]);
    }

    #[test]
    fn min_available_takes_the_ps_first_and_never_exceeds_the_plan() {
        let j = job(serde_json::json!({"runPolicy": {"schedulingPolicy": {"minAvailable": 3}}}));
        let plan = job::initial_scale_plan(&j);
        let Some(group) = pod_group(&j, &plan, &plugins()) else { panic!("no group") };
        assert_eq!(group.spec.min_member, 3);
        let cpu = group.spec.min_resources.and_then(|r| r.get("cpu").cloned());
        // The two PS (2 CPUs each) and the chief the master makes of a worker (16).
        assert_eq!(cpu.map(|q| q.0), Some("20".to_owned()));
        let mut smaller = plan.clone();
        if let Some(w) = smaller.spec.replica_resource_specs.get_mut(&ReplicaType::Worker) {
            w.replicas = 0;
        }
        if let Some(p) = smaller.spec.replica_resource_specs.get_mut(&ReplicaType::Ps) {
            p.replicas = 1;
        }
        // One PS and the chief.
        assert_eq!(pod_group(&j, &smaller, &plugins()).map(|g| g.spec.min_member), Some(2));
    }

    #[test]
    fn a_pod_group_is_current_by_value() {
        let j = job(serde_json::json!({}));
        let Some(want) = pod_group(&j, &job::initial_scale_plan(&j), &plugins()) else { panic!("no group") };
        let mut observed = want.clone();
        if let Some(r) = observed.spec.min_resources.as_mut() {
            r.insert("memory".into(), Quantity("2048Mi".into()));
        }
        assert!(is_current(&observed, &want));
        observed.spec.min_member = 4;
        assert!(!is_current(&observed, &want));
    }

    #[test]
    fn only_volcano_holds_pods_back_until_its_group_leaves_pending() {
        let j = job(serde_json::json!({}));
        let volcano = Options { gang_scheduler_name: Some("volcano".into()), ..Options::default() };
        let Some(want) = pod_group(&j, &job::initial_scale_plan(&j), &volcano) else { panic!("no group") };
        assert_eq!(waits_for(&j, &volcano, None, &want).map(|w| w.0), Some(REASON_CREATING));
        let mut observed = want.clone();
        assert_eq!(waits_for(&j, &volcano, Some(&observed), &want).map(|w| w.0), Some(REASON_PENDING));
        observed.status = Some(podgroup::PodGroupStatus { phase: Some("Inqueue".into()) });
        assert_eq!(waits_for(&j, &volcano, Some(&observed), &want), None);
        assert_eq!(waits_for(&j, &plugins(), None, &want), None);
    }

    #[test]
    fn a_bad_scheduler_name_is_refused() {
        let j = job(serde_json::json!({}));
        let options = Options { gang_scheduler_name: Some("Not A Name".into()), ..Options::default() };
        let paths: Vec<String> = check(&j, &options).into_iter().map(|p| p.path).collect();
        assert_eq!(paths, ["options.gangSchedulerName"]);
    }
}
