//! A gang-scheduled job's PodGroup: the one object that makes a gang scheduler (Volcano, or
//! scheduler-plugins' coscheduling) place the job's pods all together or not at all
//! (docs/gang.md argues each choice with the schedulers' code).
//!
//! **Who is in the gang.** Under Volcano, every pod of the job, its master too: Volcano admits a
//! group by the room its `minResources` ask for, so a master outside it would take room no
//! admission counted. The master writes the plans from which the task pods are made, so until the
//! job runs the group asks for the master alone (`minMember` 1) with the whole gang's
//! `minResources`: the master is placed only once the gang is admitted. Once the job runs,
//! `minMember` is the task floor: `schedulingPolicy.minAvailable` task pods (PS first, then the
//! chief, the evaluator, the workers), or every PS, the chief, the evaluator and the workers of the
//! job's spec, never more of a type than the plan asks for; `minTaskMember` holds each type to its
//! floor. Under scheduler-plugins the group is the task pods alone: it admits nothing ahead of
//! placing, and its Permit stage wakes a group's waiting pods only when the group's first pod is
//! assigned, which a bound master would always be (docs/gang.md). Workers above the floor are
//! members that bind as room allows.
//!
//! **What it needs.** `minResources` is what the floor's task pods (and, under Volcano, the master)
//! request together, each pod as it is made and as Kubernetes counts it: the sum of its containers' and
//! sidecars' requests (a limit where no request is given, extended resources too), or an init
//! container's with the sidecars before it where that is more.
//!
//! **Conflicts** are refused with their path ([`check`]): a replica saying `BatchScheduler:
//! volcano` under a controller whose gang scheduler is another, a template naming a scheduler
//! other than the gang's, a gang scheduler name that is not a name.

use std::collections::BTreeMap;

use crate::podspec::ObjectMeta;
use crate::podspec::{Container, Pod, PodSpec};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use crate::api::{ElasticJob, ReplicaType, ResourceList, ScalePlan, SchedulingPolicy};
use crate::error::{Code, Problem};
use crate::podgroup::{self, Gang, KIND_POD_GROUP, PodGroup, PodGroupSpec};
use crate::quantity::Amount;
use crate::template::{self, Options};
use crate::{job, naming, sorted};

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
        // Every pod of the job is a member, its master too.
        let named = spec.template.spec.as_ref().and_then(|s| s.scheduler_name.as_deref()).filter(|n| !n.is_empty());
        if let Some(named) = named.filter(|n| *n != gang.scheduler_name()) {
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
/// job has no gang scheduler. `at_floor`: a Volcano gang's second stage ([`at_floor`]); before
/// it, `minMember` is the master alone, which is placed only where the whole gang fits. Call it on
/// a job [`check`] and [`crate::validate`] found no problem in.
pub fn pod_group(job: &ElasticJob, plan: &ScalePlan, options: &Options, at_floor: bool) -> Option<PodGroup> {
    let gang = template::gang(job, options)?;
    let policy = job.spec.run_policy.as_ref().and_then(|r| r.scheduling_policy.clone()).unwrap_or_default();
    let floor = floor(job, plan, policy.min_available);
    let tasks = floor.iter().fold(0i32, |n, (_, c)| n.saturating_add(*c));
    let min_resources = match &policy.min_resources {
        Some(given) => sorted::map(given.iter().map(|(k, q)| (k.clone(), Quantity(crate::quantity::canonical(&q.0))))),
        None => requests_of(job, plan, options, &floor, gang == Gang::Volcano),
    };
    let master = ReplicaType::DlroverMaster.as_str().to_owned();
    let SchedulingPolicy { queue, priority_class, schedule_timeout_seconds, .. } = policy;
    let spec = match gang {
        // The master is a member counted in minResources. Until the floor is bound it is the one
        // pod minMember asks for, and minTaskMember names it; then minMember is the task floor and
        // the master (Volcano's gang plugin takes pods back only from a group with more ready pods
        // than minMember, and the master is one of them), and minTaskMember the floor of each type,
        // which the master cannot stand in for (Volcano checks each task's minimum once minMember
        // reaches their sum).
        Gang::Volcano => PodGroupSpec {
            min_member: if at_floor { tasks.saturating_add(1) } else { 1 },
            queue: Some(queue.unwrap_or_else(|| DEFAULT_QUEUE.to_owned())),
            priority_class_name: priority_class,
            min_resources: Some(min_resources),
            min_task_member: Some(if at_floor {
                sorted::map(floor.iter().filter(|(_, n)| *n > 0).map(|(t, n)| (t.as_str().to_owned(), *n)))
            } else {
                sorted::one(master, 1)
            }),
            schedule_timeout_seconds: None,
        },
        // The task pods alone, from the start: the master, bound outside the group, has its room
        // taken before the group's is checked (coscheduling's CheckClusterResource counts what the
        // nodes have left), and the first task pod assigned wakes its waiting siblings.
        Gang::SchedulerPlugins(_) => PodGroupSpec {
            min_member: tasks.max(1),
            queue: None,
            priority_class_name: None,
            min_resources: Some(min_resources),
            min_task_member: None,
            schedule_timeout_seconds,
        },
    };
    let labels = sorted::one(naming::LABEL_JOB_NAME.to_owned(), job.name().to_owned());
    // The job's annotations, as training-operator gives them to the PodGroup it makes (Volcano's
    // `volcano.sh/preemptable` and the like), less kubectl's record of the job's own manifest.
    let annotations: BTreeMap<String, String> = sorted::map(
        job.metadata
            .annotations
            .iter()
            .flatten()
            .filter(|(k, _)| k.as_str() != LAST_APPLIED)
            .map(|(k, v)| (k.clone(), v.clone())),
    );
    Some(PodGroup {
        api_version: Some(gang.api_version().to_owned()),
        kind: Some(KIND_POD_GROUP.to_owned()),
        metadata: ObjectMeta {
            name: Some(job.name().to_owned()),
            namespace: job::namespace(job).map(str::to_owned),
            labels: Some(labels),
            annotations: Some(annotations).filter(|a| !a.is_empty()),
            owner_references: template::owner_reference(job).map(|o| vec![o]),
            ..ObjectMeta::default()
        },
        spec,
        status: None,
    })
}

/// kubectl's annotation of an applied object: the job's manifest, not the PodGroup's.
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// The gang's floor, by type in [`MEMBERS`] order: the first `min_available` of the pods the plan
/// asks for (PS first, then the chief, the evaluator, the workers), or, without it, every PS,
/// the chief, the evaluator and the workers of the job's first plan as DLRover's master reads
/// the spec (a chief-less job's first worker runs as its chief: [`crate::job::initial_scale_plan`]),
/// never more of a type than the plan asks for. Workers the plan adds above those bind as room
/// allows, and can be reclaimed.
fn floor(job: &ElasticJob, plan: &ScalePlan, min_available: Option<i32>) -> Vec<(ReplicaType, i32)> {
    let planned = MEMBERS.map(|t| (t, count(job, plan, t)));
    match min_available {
        Some(k) => {
            let mut left = k.max(0);
            planned
                .into_iter()
                .map(|(t, n)| {
                    let taken = n.min(left);
                    left -= taken;
                    (t, taken)
                })
                .collect()
        }
        None => {
            let first = crate::job::initial_scale_plan(job);
            planned
                .into_iter()
                .map(|(t, n)| (t, if t == ReplicaType::Worker { n.min(count(job, &first, t)) } else { n }))
                .collect()
        }
    }
}

/// Whether a Volcano gang is at its second stage, its `minMember` the task floor: the job runs,
/// and either its PodGroup is there already (`observed` names no master in `minTaskMember`) or
/// every pod of the floor is bound to a node. Until then `minMember` stays at the master alone:
/// Volcano gives a group whose allocated pods are fewer than its `minMember` the `Pending` phase
/// (`pkg/scheduler/framework/session.go`, `jobStatus`), and a `Pending` group's room is no longer
/// reserved (overcommit counts Inqueue and Running groups), so raising it while only the master
/// is bound would let another gang's master into the room of this one's task pods.
pub fn at_floor(job: &ElasticJob, plan: &ScalePlan, observed: Option<&PodGroup>, pods: &[Pod], running: bool) -> bool {
    if !running {
        return false;
    }
    let master = ReplicaType::DlroverMaster.as_str();
    if observed.and_then(|o| o.spec.min_task_member.as_ref()).is_some_and(|m| !m.is_empty() && !m.contains_key(master))
    {
        return true;
    }
    let policy = job.spec.run_policy.as_ref().and_then(|r| r.scheduling_policy.as_ref());
    floor(job, plan, policy.and_then(|p| p.min_available)).into_iter().all(|(replica_type, n)| {
        let bound = pods
            .iter()
            .filter(|p| crate::pod::is_alive(p) && crate::pod::pod_type(p) == Some(replica_type))
            .filter(|p| p.spec.as_ref().and_then(|s| s.node_name.as_deref()).is_some_and(|n| !n.is_empty()))
            .count();
        i32::try_from(bound).unwrap_or(i32::MAX) >= n
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
        && a.min_task_member.as_ref().filter(|m| !m.is_empty()) == b.min_task_member.as_ref().filter(|m| !m.is_empty())
        && same_resources
}

/// Reason of the job's `GangPending` condition while its Volcano PodGroup is being made.
pub const REASON_CREATING: &str = "PodGroupCreating";
/// Reason of the job's `GangPending` condition while Volcano has not admitted its PodGroup.
pub const REASON_PENDING: &str = "PodGroupPending";

/// Reason of the job's `GangPending` condition while a PodGroup of the job's name is not the job's.
pub const REASON_NOT_CONTROLLED: &str = "PodGroupNotControlled";

/// Why the job's task pods wait for Volcano, as a condition's reason and message, or `None` when
/// they need not. Its PodGroup not there yet: no pod would find its group. Still `Pending` before
/// the job runs: Volcano has not admitted the gang, and the master waits unbound with it. Once the
/// job runs, a `Pending` phase holds nothing back: it is the one Volcano gives a group whose
/// allocated pods are fewer than its minMember, as when this controller raises minMember from
/// the master alone to the task floor, and Volcano admits the group again when the pods are there;
/// holding the pods back would hold it `Pending` for ever. scheduler-plugins places pods as they
/// come, and holds each at its Permit stage until its whole gang can be bound.
pub fn waits_for(
    job: &ElasticJob,
    options: &Options,
    observed: Option<&PodGroup>,
    want: &PodGroup,
    running: bool,
) -> Option<(&'static str, String)> {
    if template::gang(job, options)? != Gang::Volcano {
        return None;
    }
    let name = job.name();
    let queue = want.spec.queue.as_deref().unwrap_or(DEFAULT_QUEUE);
    match observed.map(PodGroup::phase) {
        None => Some((
            REASON_CREATING,
            format!("PodGroup {name} is being created: no task pod is made until Volcano admits the gang"),
        )),
        Some("" | podgroup::PHASE_PENDING) if !running => Some((
            REASON_PENDING,
            format!(
                "PodGroup {name} is Pending: Volcano has not admitted the gang ({}) to queue {queue} yet; its master is placed once it does, its task pods once the master runs",
                describe(want)
            ),
        )),
        Some(_) => None,
    }
}

/// What a PodGroup's minResources say, for a message.
fn describe(group: &PodGroup) -> String {
    let resources = group.spec.min_resources.iter().flatten().map(|(k, q)| format!("{k} {}", q.0)).collect::<Vec<_>>();
    if resources.is_empty() { "no minResources".to_owned() } else { format!("minResources {}", resources.join(", ")) }
}

/// The pods of the type the plan asks for: its `replicas` in the plan, else the spec's.
fn count(job: &ElasticJob, plan: &ScalePlan, replica_type: ReplicaType) -> i32 {
    let planned = plan.spec.replica_resource_specs.get(&replica_type).map(|r| r.replicas);
    let declared = || job.declared_replica_spec(replica_type).map(crate::api::ReplicaSpec::replicas);
    planned.or_else(declared).unwrap_or(0).max(0)
}

/// What the gang's floor (and its master, when it is a member) request together, each pod as it is
/// made (the plan's resource set on its first container, the template's other resources kept).
fn requests_of(
    job: &ElasticJob,
    plan: &ScalePlan,
    options: &Options,
    floor: &[(ReplicaType, i32)],
    master: bool,
) -> ResourceList {
    let mut totals: BTreeMap<String, Amount> = BTreeMap::new();
    let mut add = |spec: Option<&PodSpec>, n: i32| {
        for (name, each) in spec.map(pod_requests).unwrap_or_default() {
            let total = totals.entry(name).or_insert(Amount::ZERO);
            *total = each.checked_mul(i64::from(n)).and_then(|x| total.checked_add(x)).unwrap_or(Amount::MAX);
        }
    };
    if let Some(Ok(pod)) = master.then(|| template::master_pod(job, options)) {
        add(pod.spec.as_ref(), 1);
    }
    for &(replica_type, n) in floor.iter().filter(|(_, n)| *n > 0) {
        let resource =
            plan.spec.replica_resource_specs.get(&replica_type).map(|r| r.resource.clone()).unwrap_or_default();
        let Ok(made) = template::task_template(job, replica_type, &resource) else { continue };
        add(made.spec.as_ref(), n);
    }
    sorted::map(totals.into_iter().filter(|(_, a)| *a != Amount::ZERO).map(|(k, a)| (k, Quantity(a.to_string()))))
}

/// What one pod requests, as Kubernetes counts it (its scheduler's and the kubelet's
/// `resourcehelper.PodRequests`): its containers' sum plus its restartable init containers'
/// (sidecars), or, where more, an init container's own with the sidecars started before it;
/// every resource counted, extended ones (`nvidia.com/gpu`) too, a limit standing in for a
/// resource a container requests nothing of.
fn pod_requests(spec: &PodSpec) -> BTreeMap<String, Amount> {
    fn add(into: &mut BTreeMap<String, Amount>, list: &ResourceList) {
        for (name, q) in list {
            let Ok(amount) = Amount::parse(&q.0) else { continue };
            let total = into.entry(name.clone()).or_insert(Amount::ZERO);
            *total = total.checked_add(amount).unwrap_or(Amount::MAX);
        }
    }
    let mut sum: BTreeMap<String, Amount> = BTreeMap::new();
    for container in &spec.containers {
        add(&mut sum, &requests(container));
    }
    let mut sidecars: BTreeMap<String, Amount> = BTreeMap::new();
    let mut init_max: BTreeMap<String, Amount> = BTreeMap::new();
    for init in spec.init_containers.iter().flatten() {
        if init.restart_policy.as_deref() == Some("Always") {
            add(&mut sum, &requests(init));
            add(&mut sidecars, &requests(init));
            continue;
        }
        let mut with = sidecars.clone();
        add(&mut with, &requests(init));
        for (name, amount) in with {
            let top = init_max.entry(name).or_insert(Amount::ZERO);
            *top = (*top).max(amount);
        }
    }
    for (name, amount) in init_max {
        let total = sum.entry(name).or_insert(Amount::ZERO);
        *total = (*total).max(amount);
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

    fn volcano() -> Options {
        Options { gang_scheduler_name: Some("volcano".into()), ..Options::default() }
    }

    fn resources(group: &PodGroup) -> Vec<(String, String)> {
        group.spec.min_resources.iter().flatten().map(|(k, q)| (k.clone(), q.0.clone())).collect()
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    fn with_workers(plan: &ScalePlan, n: i32) -> ScalePlan {
        let mut plan = plan.clone();
        if let Some(w) = plan.spec.replica_resource_specs.get_mut(&ReplicaType::Worker) {
            w.replicas = n;
        }
        plan
    }

    #[test]
    fn no_gang_scheduler_no_pod_group() {
        let j = job(serde_json::json!({}));
        assert_eq!(pod_group(&j, &job::initial_scale_plan(&j), &Options::default(), true), None);
    }

    #[test]
    fn the_gang_is_the_task_floor_and_under_volcano_the_master_and_what_they_request() {
        let j = job(serde_json::json!({}));
        let plan = job::initial_scale_plan(&j);
        let Some(group) = pod_group(&j, &plan, &plugins(), true) else { panic!("no group") };
        assert_eq!(group.api_version.as_deref(), Some(podgroup::SCHEDULER_PLUGINS_API_VERSION));
        // scheduler-plugins: the 5 task pods of DLRover's master's first plan (2 PS, the first of
        // the 3 workers as the chief, 2 workers), the master outside the group.
        assert_eq!(group.spec.min_member, 5);
        assert_eq!(group.spec.min_task_member, None);
        // The PS' requests, the chief and the workers at the 16 CPUs and 0 memory the master plans
        // for a template that asks for nothing, their GPU limits as their requests.
        let tasks_only = [("cpu", "52"), ("memory", "2Gi"), ("nvidia.com/gpu", "3")];
        assert_eq!(resources(&group), pairs(&tasks_only));
        // The same before the job runs: the group waits for its task pods.
        assert_eq!(pod_group(&j, &plan, &plugins(), false), Some(group));
        let Some(group) = pod_group(&j, &plan, &volcano(), true) else { panic!("no group") };
        // Volcano, the floor bound: the 5 task pods and the master, each type at its floor.
        assert_eq!(group.spec.min_member, 6);
        let tasks = BTreeMap::from([("chief".to_owned(), 1), ("ps".to_owned(), 2), ("worker".to_owned(), 2)]);
        assert_eq!(group.spec.min_task_member, Some(tasks));
        // Volcano: the default master (1 CPU, 2Gi, 2Gi of ephemeral storage) too.
        let want = [("cpu", "53"), ("ephemeral-storage", "2Gi"), ("memory", "4Gi"), ("nvidia.com/gpu", "3")];
        assert_eq!(resources(&group), pairs(&want));
        // Before the job runs its master is the one pod, placed only with the gang's room.
        let Some(first) = pod_group(&j, &plan, &volcano(), false) else { panic!("no group") };
        assert_eq!(first.spec.min_member, 1);
        assert_eq!(first.spec.min_task_member, Some(BTreeMap::from([("dlrover-master".to_owned(), 1)])));
        assert_eq!(resources(&first), pairs(&want));
    }

    #[test]
    fn a_volcano_gang_reaches_its_floor_once_the_floor_is_bound_and_stays_there() {
        let j = job(serde_json::json!({}));
        let plan = job::initial_scale_plan(&j);
        let pod = |replica_type: &str, id: i32, node: Option<&str>| -> Pod {
            serde_json::from_value(serde_json::json!({
                "metadata": {"name": format!("{replica_type}-{id}"), "labels": {naming::LABEL_REPLICA_TYPE: replica_type}},
                "spec": {"containers": [], "nodeName": node},
                "status": {"phase": "Pending"}
            }))
            .unwrap_or_default()
        };
        // The floor: 2 PS, the chief DLRover's master makes of the first worker, 2 workers.
        let mut pods = vec![pod("ps", 0, Some("n")), pod("ps", 1, Some("n")), pod("chief", 0, Some("n"))];
        pods.extend([pod("worker", 1, Some("n")), pod("worker", 2, None)]);
        // Before the job runs, and while a pod of the floor is unbound: the master alone.
        assert!(!at_floor(&j, &plan, None, &pods, false));
        assert!(!at_floor(&j, &plan, None, &pods, true));
        let Some(master_stage) = pod_group(&j, &plan, &volcano(), false) else { panic!("no group") };
        assert!(!at_floor(&j, &plan, Some(&master_stage), &pods, true));
        // Every pod of the floor bound: the floor.
        pods.push(pod("worker", 3, Some("m")));
        assert!(at_floor(&j, &plan, Some(&master_stage), &pods, true));
        // Once there, a pod of the floor gone (a relaunch) does not take it back to the master.
        let Some(floor_stage) = pod_group(&j, &plan, &volcano(), true) else { panic!("no group") };
        assert!(at_floor(&j, &plan, Some(&floor_stage), &[], true));
        assert!(!at_floor(&j, &plan, Some(&floor_stage), &[], false));
    }

    #[test]
    fn workers_above_the_spec_are_elastic_and_a_plan_below_it_lowers_the_floor() {
        let j = job(serde_json::json!({}));
        let plan = job::initial_scale_plan(&j);
        let spec =
            |p: &ScalePlan| pod_group(&j, p, &volcano(), true).map(|g| (g.spec.min_member, g.spec.min_task_member));
        let floor = |workers: i32| {
            BTreeMap::from([("chief".to_owned(), 1), ("ps".to_owned(), 2), ("worker".to_owned(), workers)])
        };
        // The first plan's 2 workers are the floor; 6 more bind as room allows.
        assert_eq!(spec(&with_workers(&plan, 8)), Some((6, Some(floor(2)))));
        assert_eq!(spec(&with_workers(&plan, 1)), Some((5, Some(floor(1)))));
    }

    #[test]
    fn a_plan_resource_keeps_the_templates_gpu_limit() {
        let j = job(serde_json::json!({}));
        let mut plan = job::initial_scale_plan(&j);
        if let Some(w) = plan.spec.replica_resource_specs.get_mut(&ReplicaType::Worker) {
            w.resource = BTreeMap::from([
                ("cpu".to_owned(), Quantity("2".into())),
                ("memory".to_owned(), Quantity("1Gi".into())),
            ]);
        }
        let Some(group) = pod_group(&j, &plan, &volcano(), true) else { panic!("no group") };
        // The master 1, the PS 2 + 2, the chief 16 (its own plan), the workers 2 + 2 CPUs.
        let want = [("cpu", "25"), ("ephemeral-storage", "2Gi"), ("memory", "6Gi"), ("nvidia.com/gpu", "3")];
        assert_eq!(resources(&group), pairs(&want));
    }

    #[test]
    fn a_pod_requests_its_sidecars_and_its_largest_init_container_as_kubernetes_counts() {
        let spec: PodSpec = serde_json::from_value(serde_json::json!({
            "containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}, "limits": {"example.com/fpga": "1"}}}],
            "initContainers": [
                {"name": "proxy", "restartPolicy": "Always", "resources": {"requests": {"cpu": "500m"}}},
                {"name": "load", "resources": {"requests": {"cpu": "2", "memory": "1Gi"}}}]
        }))
        .unwrap_or_default();
        let got: Vec<(String, String)> = pod_requests(&spec).into_iter().map(|(k, a)| (k, a.to_string())).collect();
        // 1 + 0.5 running, 2 + 0.5 while `load` runs.
        assert_eq!(got, pairs(&[("cpu", "2500m"), ("example.com/fpga", "1"), ("memory", "1Gi")]));
    }

    #[test]
    fn min_available_takes_the_ps_first_and_never_exceeds_the_plan() {
        let j = job(serde_json::json!({"runPolicy": {"schedulingPolicy": {"minAvailable": 3}}}));
        let plan = job::initial_scale_plan(&j);
        let Some(group) = pod_group(&j, &plan, &volcano(), true) else { panic!("no group") };
        // The master and the floor: the 2 PS, then the chief (DLRover's master's first worker).
        assert_eq!(group.spec.min_member, 4);
        let tasks = BTreeMap::from([("chief".to_owned(), 1), ("ps".to_owned(), 2)]);
        assert_eq!(group.spec.min_task_member, Some(tasks));
        let cpu = group.spec.min_resources.and_then(|r| r.get("cpu").cloned());
        assert_eq!(cpu.map(|q| q.0), Some("21".to_owned()));
        let mut smaller = with_workers(&plan, 0);
        if let Some(p) = smaller.spec.replica_resource_specs.get_mut(&ReplicaType::Ps) {
            p.replicas = 1;
        }
        // The master, one PS and the chief.
        assert_eq!(pod_group(&j, &smaller, &volcano(), true).map(|g| g.spec.min_member), Some(3));
    }

    #[test]
    fn the_jobs_annotations_go_to_its_pod_group_but_kubectls_record() {
        let mut j = job(serde_json::json!({}));
        j.metadata.annotations = Some(BTreeMap::from([
            ("volcano.sh/preemptable".to_owned(), "false".to_owned()),
            (LAST_APPLIED.to_owned(), "{}".to_owned()),
        ]));
        let Some(group) = pod_group(&j, &job::initial_scale_plan(&j), &volcano(), true) else { panic!("no group") };
        let keys: Vec<&str> = group.metadata.annotations.iter().flatten().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["volcano.sh/preemptable"]);
    }

    #[test]
    fn a_pod_group_is_current_by_value() {
        let j = job(serde_json::json!({}));
        let Some(want) = pod_group(&j, &job::initial_scale_plan(&j), &volcano(), true) else { panic!("no group") };
        let mut observed = want.clone();
        if let Some(r) = observed.spec.min_resources.as_mut() {
            r.insert("memory".into(), Quantity("4096Mi".into()));
        }
        assert!(is_current(&observed, &want));
        observed.spec.min_task_member = None;
        assert!(!is_current(&observed, &want));
        observed.spec.min_task_member.clone_from(&want.spec.min_task_member);
        observed.spec.priority_class_name = Some("high".into());
        assert!(!is_current(&observed, &want));
    }

    #[test]
    fn volcano_holds_task_pods_back_while_its_group_is_missing_or_pending_before_the_job_runs() {
        let j = job(serde_json::json!({}));
        let Some(want) = pod_group(&j, &job::initial_scale_plan(&j), &volcano(), false) else { panic!("no group") };
        assert_eq!(waits_for(&j, &volcano(), None, &want, false).map(|w| w.0), Some(REASON_CREATING));
        let mut observed = want.clone();
        assert_eq!(waits_for(&j, &volcano(), Some(&observed), &want, false).map(|w| w.0), Some(REASON_PENDING));
        // Pending once the job runs: Volcano's own phase for a group below its new minMember.
        assert_eq!(waits_for(&j, &volcano(), Some(&observed), &want, true), None);
        observed.status = Some(podgroup::PodGroupStatus { phase: Some("Inqueue".into()) });
        assert_eq!(waits_for(&j, &volcano(), Some(&observed), &want, false), None);
        assert_eq!(waits_for(&j, &plugins(), None, &want, false), None);
    }

    #[test]
    fn a_master_of_another_scheduler_is_refused_as_a_member_would_be() {
        let mut j = job(serde_json::json!({}));
        let master: crate::api::ReplicaSpec = serde_json::from_value(serde_json::json!({
            "template": {"spec": {"schedulerName": "default-scheduler", "containers": [{"name": "main", "image": "m"}]}}
        }))
        .unwrap_or_default();
        j.spec.replica_specs.insert(ReplicaType::DlroverMaster, master);
        let paths: Vec<String> = check(&j, &volcano()).into_iter().map(|p| p.path).collect();
        assert_eq!(paths, ["spec.replicaSpecs.dlrover-master.template.spec.schedulerName"]);
    }

    #[test]
    fn a_bad_scheduler_name_is_refused() {
        let j = job(serde_json::json!({}));
        let options = Options { gang_scheduler_name: Some("Not A Name".into()), ..Options::default() };
        let paths: Vec<String> = check(&j, &options).into_iter().map(|p| p.path).collect();
        assert_eq!(paths, ["options.gangSchedulerName"]);
    }
}
