//! A job's state as a person reads it (`kubectl elasticjob status`): its phase and conditions, per
//! replica type the pods it wants and how many are pending, running, succeeded and failed, and the
//! scale plans it carried out, oldest first, each with what it changed.
//!
//! Every rule here is the controller's own: the job's pods are the ones the planner plans with
//! (the job-name label, the type from the replica-type label or the master's name; of those, the
//! ones the job controls or would adopt, as the controller claims them), they are counted
//! by phase as the job status counts them, and "wanted" is the planner's target under the job's
//! current plan (the plan's `replicas` for the type, else the spec's and what the plan adds).

use crate::podspec::Pod;
use crate::podspec::Time;
use serde::{Deserialize, Serialize};

use crate::api::{ElasticJob, JobCondition, JobConditionType, ReplicaType, ResourceList, ScalePlan};
use crate::error::Result;
use crate::job;
use crate::planner::{self, Planner};
use crate::template::Options;

/// What `kubectl elasticjob status` shows of one job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct JobView {
    /// The job's name.
    pub name: String,
    /// The job's namespace, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// `status.phase`; none before the controller's first pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<JobConditionType>,
    /// The job's current scale plan (`status.scalePlan`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_plan: Option<String>,
    /// `spec.suspend`.
    pub suspended: bool,
    /// The job's conditions, in the order of its status.
    pub conditions: Vec<JobCondition>,
    /// One row per replica type the job has (the order of [`ReplicaType::ALL`]).
    pub replicas: Vec<ReplicaView>,
    /// The job's scale plans, oldest first.
    pub scale_plans: Vec<ScalePlanView>,
}

/// The pods of one replica type.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ReplicaView {
    /// The replica type.
    pub replica_type: ReplicaType,
    /// How many pods of the type the job wants under its current plan (the master: 1); none when
    /// neither the plan nor the spec gives a count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wanted: Option<i32>,
    /// Pods in phase Pending.
    pub pending: i32,
    /// Pods in phase Running.
    pub running: i32,
    /// Pods in phase Succeeded.
    pub succeeded: i32,
    /// Pods in phase Failed.
    pub failed: i32,
}

/// One scale plan of the job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ScalePlanView {
    /// The plan's name.
    pub name: String,
    /// `status.phase`; none before the scale-plan controller saw it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<JobConditionType>,
    /// `status.createTime`, else the object's creation time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create_time: Option<Time>,
    /// `status.finishTime`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_time: Option<Time>,
    /// What the plan changed against the plan before it (the first: against the job's spec), one
    /// line each: `worker: 2 -> 3`, `worker resource: cpu 1, memory 1Gi -> cpu 2, memory 1Gi`,
    /// `create worker rank 1 as mnist-edljob-worker-3`, `remove mnist-edljob-worker-2`,
    /// `migrate mnist-edljob-ps-0 to cpu 2`, `psHosts: a:2222, b:2222`.
    pub changes: Vec<String>,
}

/// What `kubectl elasticjob status` shows of `job`, from its scale plans and pods as read from the
/// cluster (plans and pods of other jobs may be given; they are left out).
///
/// # Errors
/// [`crate::Code::TooLarge`] when more pods are given than the core plans with.
pub fn job_view(job: &ElasticJob, scale_plans: &[ScalePlan], pods: &[Pod]) -> Result<JobView> {
    let status = job.status.clone().unwrap_or_default();
    // Oldest first, by name at the same time: each plan goes after the ones not later than it (a
    // job has tens of plans; an ordered insert keeps a sort's code out of the wasm).
    let mut plans: Vec<&ScalePlan> = Vec::new();
    for plan in scale_plans.iter().filter(|p| job::is_plan_of(job, p)) {
        let at = plans.iter().position(|q| planner::plan_order(q) > planner::plan_order(plan)).unwrap_or(plans.len());
        plans.insert(at, plan);
    }
    let current =
        status.scale_plan.as_deref().and_then(|n| plans.iter().position(|p| p.metadata.name.as_deref() == Some(n)));
    // The cluster the job has: its first plan, then every plan up to the current one laid over it.
    let mut layout = job::initial_scale_plan(job);
    for plan in plans.iter().take(current.map_or(0, |i| i + 1)) {
        layout = laid_over(layout, plan);
    }
    let options = Options::default();
    let (pods, _) = planner::claim_pods(job, pods);
    let planner = Planner::new(job, &options, &pods, &layout)?;
    let mut counted = status.clone();
    let mut replicas = Vec::new();
    for replica_type in ReplicaType::ALL {
        planner.count(&mut counted, replica_type);
        let Some(counts) = counted.common().and_then(|s| s.replica_statuses.get(&replica_type)) else { continue };
        let wanted = if replica_type == ReplicaType::DlroverMaster { Some(1) } else { planner.target(replica_type) };
        replicas.push(ReplicaView {
            replica_type,
            wanted,
            pending: counts.pending,
            running: counts.active,
            succeeded: counts.succeeded,
            failed: counts.failed,
        });
    }
    let mut before = job::initial_scale_plan(job);
    let mut views = Vec::new();
    for plan in plans {
        let after = laid_over(before.clone(), plan);
        views.push(ScalePlanView {
            name: plan.metadata.name.clone().unwrap_or_default(),
            phase: plan.status.as_ref().and_then(|s| s.phase),
            create_time: created(plan).cloned(),
            finish_time: plan.status.as_ref().and_then(|s| s.finish_time.clone()),
            changes: changes(job, &before, &after, plan),
        });
        before = after;
    }
    Ok(JobView {
        name: job.name().to_owned(),
        namespace: job::namespace(job).map(str::to_owned),
        phase: status.phase,
        scale_plan: status.scale_plan.clone(),
        suspended: job.spec.suspend == Some(true),
        conditions: status.common().map(|s| s.conditions.clone()).unwrap_or_default(),
        replicas,
        scale_plans: views,
    })
}

fn created(plan: &ScalePlan) -> Option<&Time> {
    plan.status.as_ref().and_then(|s| s.create_time.as_ref()).or(plan.metadata.creation_timestamp.as_ref())
}

/// The cluster a plan leaves: each type it names with its target and resource, the others as they
/// were, and its `psHosts` when it lists any. A plan that names no type, such as the relaunch plan
/// DLRover's master writes (one `createPods` entry), leaves every count as it was.
fn laid_over(mut cluster: ScalePlan, plan: &ScalePlan) -> ScalePlan {
    for (replica_type, spec) in &plan.spec.replica_resource_specs {
        cluster.spec.replica_resource_specs.insert(*replica_type, spec.clone());
    }
    if !plan.spec.ps_hosts.is_empty() {
        cluster.spec.ps_hosts.clone_from(&plan.spec.ps_hosts);
    }
    cluster.spec.create_pods.clone_from(&plan.spec.create_pods);
    cluster.spec.remove_pods.clone_from(&plan.spec.remove_pods);
    cluster.spec.migrate_pods.clone_from(&plan.spec.migrate_pods);
    cluster
}

/// The lines of what `plan` changed: the targets and resources of the cluster `before` it against
/// the cluster it leaves (`after`), then its own pods and PS addresses (see
/// [`ScalePlanView::changes`]).
fn changes(job: &ElasticJob, before: &ScalePlan, after: &ScalePlan, plan: &ScalePlan) -> Vec<String> {
    let mut lines = Vec::new();
    let targets = |p: &ScalePlan| -> Vec<Option<i32>> {
        let options = Options::default();
        let planner = Planner::new(job, &options, &[], p).ok();
        ReplicaType::TASKS.iter().map(|t| planner.as_ref().and_then(|pl| pl.target(*t))).collect()
    };
    for ((replica_type, was), now) in ReplicaType::TASKS.iter().zip(targets(before)).zip(targets(after)) {
        if was != now {
            lines.push(format!("{replica_type}: {} -> {}", was.unwrap_or(0), now.unwrap_or(0)));
        }
    }
    for (replica_type, spec) in &plan.spec.replica_resource_specs {
        let was = before.spec.replica_resource_specs.get(replica_type).map(|s| &s.resource);
        if !spec.resource.is_empty() && was != Some(&spec.resource) {
            let was = was.filter(|r| !r.is_empty()).map_or_else(|| "none".to_owned(), resource);
            lines.push(format!("{replica_type} resource: {was} -> {}", resource(&spec.resource)));
        }
    }
    for meta in &plan.spec.create_pods {
        let name = meta.pod_name(job.name()).unwrap_or_else(|| meta.name.clone());
        let kind = meta.replica_type().map_or_else(|| "a pod".to_owned(), |t| t.to_string());
        lines.push(format!("create {kind} rank {} as {name}", meta.rank_index));
    }
    for meta in &plan.spec.remove_pods {
        lines.push(format!("remove {}", meta.pod_name(job.name()).unwrap_or_else(|| meta.name.clone())));
    }
    for meta in &plan.spec.migrate_pods {
        lines.push(format!("migrate {} to {}", meta.name, resource(&meta.resource)));
    }
    if !plan.spec.ps_hosts.is_empty() && plan.spec.ps_hosts != before.spec.ps_hosts {
        lines.push(format!("psHosts: {}", plan.spec.ps_hosts.join(", ")));
    }
    lines
}

/// `cpu 1, memory 1Gi`: the quantities of a resource list by name.
fn resource(list: &ResourceList) -> String {
    list.iter().map(|(name, q)| format!("{name} {}", q.0)).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn job() -> ElasticJob {
        serde_json::from_value(json!({
            "metadata": {"name": "j", "namespace": "ns", "uid": "u1"},
            "spec": {"distributionStrategy": "ParameterServerStrategy", "replicaSpecs": {
                "ps": {"replicas": 1, "template": {"spec": {"containers": [{"name": "main", "image": "tf"}]}}},
                "worker": {"replicas": 2, "template": {"spec": {"containers": [
                    {"name": "main", "image": "tf", "resources": {"requests": {"cpu": "500m"}}}]}}}}},
            "status": {"phase": "Running", "scalePlan": "j-scaleplan-0", "status": {
                "conditions": [{"type": "Running", "status": "True", "reason": "JobRunning", "message": "m"}],
                "replicaStatuses": {"dlrover-master": {}}}}
        }))
        .unwrap_or_default()
    }

    /// A pod the controller made: controlled by job `j` (uid `u1`).
    fn pod(name: &str, job: &str, t: &str, id: i32, phase: &str) -> Pod {
        serde_json::from_value(json!({
            "metadata": {"name": name, "namespace": "ns",
                "ownerReferences": [{"apiVersion": "elastic.iml.github.io/v1alpha1", "kind": "ElasticJob", "name": "j",
                    "uid": "u1", "controller": true}],
                "labels": {
                "elasticjob.dlrover/name": job, "elasticjob.dlrover/replica-type": t,
                "elasticjob.dlrover/replica-index": id.to_string(), "elasticjob.dlrover/rank-index": "0"}},
            "status": {"phase": phase}
        }))
        .unwrap_or_default()
    }

    fn plan(name: &str, owner: &str, time: &str, spec: serde_json::Value) -> ScalePlan {
        serde_json::from_value(json!({
            "metadata": {"name": name, "namespace": "ns", "creationTimestamp": time},
            "spec": {"ownerJob": owner, "replicaResourceSpecs": {}, "createPods": [], "removePods": [], "psHosts": [], }
        }))
        .map(|mut p: ScalePlan| {
            let extra: ScalePlan = serde_json::from_value(json!({"spec": spec})).unwrap_or_default();
            p.spec.replica_resource_specs.extend(extra.spec.replica_resource_specs);
            p.spec.create_pods.extend(extra.spec.create_pods);
            p.spec.ps_hosts.extend(extra.spec.ps_hosts);
            p
        })
        .unwrap_or_default()
    }

    #[test]
    fn counts_the_jobs_pods_and_wants_the_current_plans_replicas() {
        let first = plan(
            "j-scaleplan-0",
            "j",
            "2026-01-01T00:00:00Z",
            json!({
                "replicaResourceSpecs": {"ps": {"replicas": 1}, "chief": {"replicas": 1}, "worker": {"replicas": 1, "resource": {"cpu": "1.0"}}},
            }),
        );
        let others = plan("k-scaleplan-0", "k", "2025-01-01T00:00:00Z", json!({}));
        let pods = [
            pod("elasticjob-j-dlrover-master", "j", "dlrover-master", 0, "Running"),
            pod("j-edljob-worker-0", "j", "worker", 0, "Running"),
            pod("j-edljob-worker-1", "j", "worker", 1, "Failed"),
            pod("j-edljob-ps-0", "j", "ps", 0, "Pending"),
            pod("k-edljob-worker-0", "k", "worker", 0, "Running"),
            // With the job's labels but no controller and not named as the job's: not the job's.
            {
                let mut lookalike = pod("lookalike", "j", "worker", 0, "Running");
                lookalike.metadata.owner_references = None;
                lookalike
            },
        ];
        let Ok(view) = job_view(&job(), &[others, first], &pods) else { panic!("a view") };
        let rows: Vec<_> =
            view.replicas.iter().map(|r| (r.replica_type, r.wanted, r.pending, r.running, r.failed)).collect();
        assert_eq!(
            rows,
            [
                (ReplicaType::DlroverMaster, Some(1), 0, 1, 0),
                (ReplicaType::Ps, Some(1), 1, 0, 0),
                (ReplicaType::Worker, Some(1), 0, 1, 1),
            ]
        );
        assert_eq!(view.scale_plans.len(), 1, "only the job's plans");
        let Some(only) = view.scale_plans.first() else { panic!("a plan") };
        // Before it, the first plan the master was expected to write (16 CPUs a worker, one made the chief).
        assert_eq!(only.changes, ["worker resource: cpu 16, memory 0Mi -> cpu 1.0"]);
        assert_eq!(view.conditions.len(), 1);
    }

    #[test]
    fn plans_go_oldest_first_and_say_what_they_changed_since_the_one_before() {
        let first = plan(
            "j-scaleplan-0",
            "j",
            "2026-01-01T00:00:00Z",
            json!({"replicaResourceSpecs": {"worker": {"replicas": 2}}}),
        );
        let relaunch = plan(
            "j-scaleplan-1",
            "j",
            "2026-01-01T00:01:00Z",
            json!({
                "createPods": [{"name": "j-edljob-worker-2", "type": "worker", "id": 2, "rankIndex": 1, "service": "s"}],
                "psHosts": ["j-edljob-ps-0.ns.svc:2222"],
            }),
        );
        let Ok(view) = job_view(&job(), &[relaunch, first], &[]) else { panic!("a view") };
        let names: Vec<_> = view.scale_plans.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["j-scaleplan-0", "j-scaleplan-1"]);
        let changes: Vec<_> = view.scale_plans.iter().map(|p| p.changes.clone()).collect();
        assert_eq!(
            changes,
            [
                vec!["worker: 1 -> 2".to_owned()],
                vec![
                    "create worker rank 1 as j-edljob-worker-2".to_owned(),
                    "psHosts: j-edljob-ps-0.ns.svc:2222".to_owned()
                ]
            ]
        );
    }
}
