//! Every waiting plan of a job in one call: once a pass has carried its plan out, the next waiting
//! plan is taken up from where that pass leaves the job, its plans, pods and services, as the
//! next pass would see them once the writes came back through the watches (see
//! [`crate::reconcile::controller_pass`], "Which plan").
//!
//! DLRover's master writes one relaunch plan for each pod it lost (0.6.1's
//! `DistributedJobManager._relaunch_node` in `dist_job_manager.py` scales one plan a node): a node
//! that goes away with ten of a job's pods brings ten plans. Taken up one a pass, each waits for the last one's writes to
//! come back, so the tenth pod was made tens of seconds after its plan on a busy cluster. Taken up
//! in one call, they cost one job status write and one write a plan.

use crate::podspec::Pod;
use crate::podspec::Service;
use crate::podspec::Time;

use super::lifecycle::{self, Earlier, TAKEN_UP};
use super::{Gates, Observed};
use crate::api::{ElasticJob, ScalePlan};
use crate::error::Result;
use crate::plan::{Action, Plan};
use crate::pod;
use crate::template::Options;

/// One pass of the controller over one job (see [`crate::reconcile::controller_pass`]): passes of
/// [`lifecycle::pass_once`], each from where the last one leaves the job, while each carries the
/// plan it took up out and another plan waits, in one plan.
///
/// A chained pass is left to the next call, which plans it from what the cluster then shows,
/// when the last one did something this cannot lay over its inputs (an adoption, a PodGroup or a
/// Workload), when the job is queued in Kueue (its plans are carried out within what Kueue
/// admitted, one a call: see [`lifecycle::Passed`]), once the pods made reach `maxPodCreates`,
/// and when the chained pass is refused (the next call tells why). The `TF_CONFIG` addresses that
/// the chained passes' pods list count against one budget, as one pass's do.
pub(crate) fn controller_pass(observed: Observed<'_>, gates: Gates<'_>, now: &Time, options: &Options) -> Result<Plan> {
    let first = lifecycle::pass_once(observed, gates, now, options, Earlier::default())?;
    let (Some(job), true) = (observed.job, first.more) else { return Ok(first.plan) };
    let mut world = World {
        job: job.clone(),
        plans: observed.plans.to_vec(),
        pods: observed.pods.to_vec(),
        services: observed.services.to_vec(),
        deleted: Vec::new(),
    };
    let (mut more, mut tf_hosts, mut made) = (first.more, first.tf_hosts, 0);
    let mut passes = vec![first.plan];
    while more && passes.len() <= observed.plans.len() {
        let Some(last) = passes.last() else { break };
        made += last.created_pods().count();
        if !world.lay_over(last) || options.max_pod_creates.is_some_and(|max| made >= max) {
            break;
        }
        let earlier = Earlier { tf_hosts, deleted: &world.deleted };
        let Ok(next) = lifecycle::pass_once(world.observed(), gates, now, options, earlier) else { break };
        (more, tf_hosts) = (next.more, next.tf_hosts);
        passes.push(next.plan);
    }
    Ok(merge(passes))
}

/// The job, its plans, pods and services as a pass's writes leave them, and the names of the pods
/// they deleted.
struct World {
    job: ElasticJob,
    plans: Vec<ScalePlan>,
    pods: Vec<Pod>,
    services: Vec<Service>,
    deleted: Vec<String>,
}

impl World {
    fn observed(&self) -> Observed<'_> {
        Observed { job: Some(&self.job), plans: &self.plans, pods: &self.pods, services: &self.services }
    }

    /// Lays `plan`'s writes over the objects, as the API server leaves them: a pod made is
    /// `Pending` (`podStrategy.PrepareForCreate`, Kubernetes v1.37.2 `pkg/registry/core/pod/strategy.go`;
    /// a pod without a phase reads as `Pending`), a pod deleted with a grace period of 0 and no
    /// finalizer is gone at once (`Store.updateForGracefulDeletionAndFinalizers`, k8s.io/apiserver
    /// v0.37.2 `pkg/registry/generic/registry/store.go`). False, with the objects part laid, when
    /// the plan does something else.
    fn lay_over(&mut self, plan: &Plan) -> bool {
        for action in plan.actions() {
            match action {
                Action::SetJobStatus { status, .. } => self.job.status = Some(status.clone()),
                Action::SetScalePlanStatus { name, status, .. } => {
                    let found = self.plans.iter_mut().find(|p| p.metadata.name.as_ref() == Some(name));
                    if let Some(p) = found {
                        p.status = Some(status.clone());
                    }
                }
                Action::CreatePod { pod, .. } => self.pods.push(pod.as_ref().clone()),
                Action::DeletePod { name, .. } => {
                    self.pods.retain(|p| pod::name(p) != name);
                    self.deleted.push(name.clone());
                }
                Action::CreateOrUpdateService { service, .. } => {
                    self.services.retain(|s| s.metadata.name != service.metadata.name);
                    self.services.push(service.as_ref().clone());
                }
                Action::DeleteService { name, .. } => {
                    self.services.retain(|s| s.metadata.name.as_ref() != Some(name));
                }
                Action::RecordEvent { .. } => {}
                _ => return false,
            }
        }
        true
    }
}

/// The passes' actions as one plan: each status written once, as the last pass leaves it, and the
/// job's telling every plan taken up.
fn merge(mut passes: Vec<Plan>) -> Plan {
    if passes.len() == 1
        && let Some(one) = passes.pop()
    {
        return one;
    }
    let requeue_at = passes.last().and_then(|p| p.requeue_at.clone());
    let (mut actions, mut plan_statuses, mut taken_up) = (Vec::new(), Vec::new(), Vec::new());
    let mut job_status = None;
    for action in passes.into_iter().flat_map(|p| p.phases).flat_map(|p| p.actions) {
        match &action {
            Action::SetJobStatus { status, event, .. } => {
                if event.as_ref().is_some_and(|e| e.reason == TAKEN_UP) {
                    taken_up.extend(status.scale_plan.clone());
                }
                job_status = Some(action);
            }
            Action::SetScalePlanStatus { name, .. } => {
                let same = |a: &&mut Action| matches!(a, Action::SetScalePlanStatus { name: n, .. } if n == name);
                match plan_statuses.iter_mut().find(same) {
                    Some(earlier) => *earlier = action,
                    None => plan_statuses.push(action),
                }
            }
            // A service a pass deletes and a later one makes again (a rank scaled away and back)
            // stays: the plan makes its services before it deletes any.
            Action::CreateOrUpdateService { service, .. } => {
                let name = service.metadata.name.as_ref();
                actions.retain(|a| !matches!(a, Action::DeleteService { name: gone, .. } if Some(gone) == name));
                actions.push(action);
            }
            _ => actions.push(action),
        }
    }
    if let (Some(Action::SetJobStatus { event: Some(told), .. }), [first, .., last]) =
        (job_status.as_mut(), taken_up.as_slice())
        && told.reason == TAKEN_UP
    {
        told.message = format!("took up scale plans {first} to {last}, {} in all, oldest first", taken_up.len());
    }
    actions.extend(plan_statuses);
    actions.extend(job_status);
    Plan::from_actions(actions).requeued_at(requeue_at)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{job, task};
    use super::*;
    use crate::api::{ElasticJobStatus, JobConditionType, PodMeta, ReplicaType};
    use crate::naming;

    fn at(s: &str) -> Time {
        Time::parse(s).unwrap_or(Time::UNIX_EPOCH)
    }

    fn master() -> Pod {
        let mut m = task(ReplicaType::DlroverMaster, 0, 0, "Running");
        m.metadata.name = Some(naming::master_name("j"));
        m
    }

    /// DLRover's relaunch plan `j-scaleplan-<i>`: worker `id` at `rank` in place of `old`.
    fn relaunch(i: u32, id: i32, rank: i32, old: i32) -> ScalePlan {
        let mut plan = ScalePlan::default();
        plan.metadata.name = Some(format!("j-scaleplan-{i}"));
        plan.metadata.creation_timestamp = Some(at("2026-01-01T00:00:00Z"));
        plan.metadata.labels = Some([(naming::LABEL_SCALE_TYPE.to_owned(), naming::SCALE_TYPE_AUTO.to_owned())].into());
        plan.spec.owner_job = Some("j".into());
        let worker = |id: i32, rank: i32| PodMeta {
            name: naming::task_pod_name("j", ReplicaType::Worker, id.into()),
            id: Some(id),
            type_: Some(ReplicaType::Worker),
            rank_index: rank,
            ..Default::default()
        };
        plan.spec.create_pods.push(worker(id, rank));
        plan.spec.remove_pods.push(worker(old, rank));
        plan
    }

    /// A job of 6 workers whose ranks 1, 3 and 4 were on a node that went away, and the master's
    /// three relaunch plans.
    fn node_lost() -> (ElasticJob, Vec<ScalePlan>, Vec<Pod>) {
        let mut j = job();
        j.status = Some(ElasticJobStatus { phase: Some(JobConditionType::Running), ..Default::default() });
        let mut pods = vec![master(), task(ReplicaType::Ps, 0, 0, "Running")];
        for rank in 0..6 {
            let phase = if [1, 3, 4].contains(&rank) { "Failed" } else { "Running" };
            pods.push(task(ReplicaType::Worker, rank, rank, phase));
        }
        let plans = vec![relaunch(2, 8, 3, 3), relaunch(1, 6, 1, 1), relaunch(3, 7, 4, 4)];
        (j, plans, pods)
    }

    fn world(j: &ElasticJob, plans: &[ScalePlan], pods: &[Pod]) -> World {
        World { job: j.clone(), plans: plans.to_vec(), pods: pods.to_vec(), services: Vec::new(), deleted: Vec::new() }
    }

    fn pass(w: &World, options: &Options) -> Plan {
        let now = at("2026-01-01T00:01:00Z");
        controller_pass(w.observed(), Gates::default(), &now, options).unwrap_or_default()
    }

    #[test]
    fn relaunch_plans_are_carried_out_in_one_call_as_in_one_pass_each() {
        let (j, plans, pods) = node_lost();
        let options = Options::default();
        let mut chained = world(&j, &plans, &pods);
        let plan = pass(&chained, &options);
        assert_eq!(
            plan.created_pods().map(pod::name).collect::<Vec<_>>(),
            ["j-edljob-worker-6", "j-edljob-worker-8", "j-edljob-worker-7"],
            "oldest plan first (its index)"
        );
        let writes = plan.actions().filter(|a| matches!(a, Action::SetJobStatus { .. })).count();
        assert_eq!(writes, 1);
        assert!(chained.lay_over(&plan));
        // A pass a plan, each from what the last one's writes left.
        let now = at("2026-01-01T00:01:00Z");
        let mut serial = world(&j, &plans, &pods);
        for _ in 0..plans.len() {
            let one = lifecycle::pass_once(serial.observed(), Gates::default(), &now, &options, Earlier::default())
                .map(|p| p.plan)
                .unwrap_or_default();
            assert_eq!(one.created_pods().count(), 1, "one plan a pass: {one:?}");
            assert!(serial.lay_over(&one));
        }
        assert_eq!(chained.pods, serial.pods, "the same pods, made the same");
        assert_eq!(chained.services, serial.services);
        assert_eq!(chained.plans, serial.plans, "every plan done");
        let status = |w: &World| {
            w.job.status.clone().map(|mut s| {
                s.common_mut().conditions.clear();
                s
            })
        };
        assert_eq!(status(&chained), status(&serial), "the job's status as the last pass leaves it");
        assert!(pass(&chained, &options).created_pods().next().is_none(), "nothing left to do");
    }

    #[test]
    fn a_rank_scaled_away_and_back_gets_a_new_pod_and_keeps_its_service() {
        let mut j = job();
        j.status = Some(ElasticJobStatus { phase: Some(JobConditionType::Running), ..Default::default() });
        let mut pods = vec![master(), task(ReplicaType::Ps, 0, 0, "Running")];
        pods.extend((0..4).map(|rank| task(ReplicaType::Worker, rank, rank, "Running")));
        let scale = |i: u32, workers: i32| {
            let mut plan = relaunch(i, 0, 0, 0);
            plan.spec.create_pods.clear();
            plan.spec.remove_pods.clear();
            let spec = crate::api::ReplicaResourceSpec { replicas: workers, ..Default::default() };
            plan.spec.replica_resource_specs.insert(ReplicaType::Worker, spec);
            plan
        };
        let plan = pass(&world(&j, &[scale(1, 2), scale(2, 4)], &pods), &Options::default());
        // The plan makes its pods before it deletes any: ranks 2 and 3 come back under new names.
        assert_eq!(plan.created_pods().map(pod::name).collect::<Vec<_>>(), ["j-edljob-worker-4", "j-edljob-worker-5"]);
        assert_eq!(plan.deleted_pods().collect::<Vec<_>>(), ["j-edljob-worker-3", "j-edljob-worker-2"]);
        let services: Vec<String> = plan
            .actions()
            .filter_map(|a| match a {
                Action::CreateOrUpdateService { service, .. } => service.metadata.name.clone().map(|n| format!("+{n}")),
                Action::DeleteService { name, .. } => Some(format!("-{name}")),
                _ => None,
            })
            .collect();
        assert!(!services.iter().any(|s| s.starts_with('-')), "no service deleted: {services:?}");
        for rank in [2, 3] {
            assert!(services.contains(&format!("+j-edljob-worker-{rank}")), "rank {rank}'s service made again");
        }
    }

    #[test]
    fn the_chain_stops_at_the_cap_of_pod_creations() {
        let (j, plans, pods) = node_lost();
        let options = Options { max_pod_creates: Some(2), ..Options::default() };
        let mut w = world(&j, &plans, &pods);
        let plan = pass(&w, &options);
        assert_eq!(plan.created_pods().count(), 2, "{plan:?}");
        assert!(w.lay_over(&plan));
        let done =
            w.plans.iter().filter(|p| p.status.as_ref().and_then(|s| s.phase) == Some(JobConditionType::Succeeded));
        assert_eq!(done.count(), 2, "the third plan waits for the next call");
        let plan = pass(&w, &options);
        assert_eq!(plan.created_pods().map(pod::name).collect::<Vec<_>>(), ["j-edljob-worker-7"]);
    }

    #[test]
    fn a_job_that_stops_running_takes_no_more_plans_up() {
        let (mut j, plans, mut pods) = node_lost();
        // Its master succeeded: the job finishes in this pass, and no plan is taken up.
        if let Some(m) = pods.first_mut() {
            *m = {
                let mut m = master();
                m.status = Some(crate::podspec::PodStatus::of(serde_json::json!({"phase": "Succeeded"})));
                m
            };
        }
        j.spec.suspend = None;
        let plan = pass(&world(&j, &plans, &pods), &Options::default());
        assert!(plan.created_pods().next().is_none(), "{plan:?}");
        assert_eq!(plan.job_status().and_then(|s| s.phase), Some(JobConditionType::Succeeded));
    }
}
