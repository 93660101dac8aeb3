//! A gang-scheduled job's pass (see [`crate::gang`] for who is in the gang and why): its PodGroup
//! made before any pod and kept to what the current plan needs, deleted once the job has finished
//! (as training-operator deletes it: a finished gang holds nothing in Volcano's queue); and, with
//! Volcano, no task pod made while the PodGroup is not admitted, the job's `GangPending`
//! condition saying why.

use crate::podspec::Pod;
use crate::podspec::Time;

use super::Planner;
use crate::api::{ConditionStatus, ElasticJob, ElasticJobStatus, JobCondition, JobConditionType, ScalePlan};
use crate::gang;
use crate::plan::{Action, Cause};
use crate::podgroup::PodGroup;
use crate::status;
use crate::template::Options;

/// Reason of the `GangPending` condition turned false.
const REASON_ADMITTED: &str = "PodGroupAdmitted";
/// Reason of the `GangPending` condition turned false because the job finished or was suspended.
const REASON_ENDED: &str = "JobEnded";

/// The PodGroup actions of one pass over a job that is not being deleted, and why its pods wait
/// (Volcano), when they do. `finished`: the job has Succeeded or Failed. A finished or suspended
/// job (`spec.suspend`, a person's or Kueue's hold) has no PodGroup, as training-operator deletes
/// it then: a gang that runs no pod must not hold a scheduler's queue.
///
/// The PodGroup is written as the schedulers' own controllers write theirs (training-operator's
/// `SyncPodGroup`, Volcano's job controller): created whole, then updated whole at the
/// resourceVersion read, so a field the job no longer asks for goes. A PodGroup of the job's name
/// that the job does not control (no controller owner reference with its uid) is never written,
/// deleted or read for its phase, and no pod of the job is made to join it: the job's
/// `GangPending` condition says so.
pub(super) fn pod_group_pass(
    job: &ElasticJob,
    plan: &ScalePlan,
    options: &Options,
    observed: Option<&PodGroup>,
    pods: &[Pod],
    finished: bool,
) -> (Vec<Action>, Option<(&'static str, String)>) {
    let running = matches!(
        job.status.as_ref().and_then(|s| s.phase),
        Some(JobConditionType::Running | JobConditionType::Restarting | JobConditionType::Scaling)
    );
    let Some(gang_scheduler) = crate::template::gang(job, options) else { return (Vec::new(), None) };
    // Only the PodGroup of the job's own gang scheduler, named after the job, is the job's.
    let observed = observed.filter(|o| {
        o.api_version.as_deref() == Some(gang_scheduler.api_version()) && o.metadata.name.as_deref() == Some(job.name())
    });
    let at_floor = gang::at_floor(job, plan, observed.filter(|o| controls(job, o)), pods, running);
    let Some(mut want) = gang::pod_group(job, plan, options, at_floor) else { return (Vec::new(), None) };
    let name = job.name().to_owned();
    let suspended = job.spec.suspend == Some(true);
    if let Some(foreign) = observed.filter(|o| !controls(job, o)) {
        if finished || suspended {
            return (Vec::new(), None);
        }
        let owner = foreign
            .metadata
            .owner_references
            .iter()
            .flatten()
            .find(|r| r.controller == Some(true))
            .map_or_else(|| "no controller".to_owned(), |r| format!("{} {}", r.kind, r.name));
        let why = format!(
            "PodGroup {name} exists and ElasticJob {name} does not control it (its controller: {owner}): no pod of the job is made to join it; delete it or rename the job"
        );
        return (Vec::new(), Some((gang::REASON_NOT_CONTROLLED, why)));
    }
    // A Volcano PodGroup keeps the queue it was made in, as training-operator keeps it (Kubeflow's
    // CRD holds `schedulingPolicy.queue` immutable): a gang is not moved between queues under way.
    let made_in = observed.and_then(|o| o.spec.queue.clone()).filter(|q| !q.is_empty());
    if let (Some(queue), Some(_)) = (made_in, want.spec.queue.as_ref()) {
        want.spec.queue = Some(queue);
    }
    if finished || suspended {
        let Some(observed) = observed else { return (Vec::new(), None) };
        let why = if finished { "has finished" } else { "is suspended" };
        let delete = Action::DeletePodGroup {
            namespace: observed.metadata.namespace.clone().filter(|n| !n.is_empty()),
            name,
            api_version: want.api_version.clone().unwrap_or_default(),
            reason: format!("ElasticJob {} {why}: its gang holds nothing", job.name()),
            cause: Cause::Gang,
        };
        return (vec![delete], None);
    }
    let wait = gang::waits_for(job, options, observed, &want, running);
    let mut actions = Vec::new();
    match observed {
        None => {
            let reason = format!("the gang of ElasticJob {name}: minMember {}", want.spec.min_member);
            actions.push(Action::CreateOrUpdatePodGroup { pod_group: Box::new(want), reason, cause: Cause::Gang });
        }
        Some(o) if !gang::is_current(o, &want) => {
            // An update of the PodGroup read: its metadata kept (the controller writes the spec
            // over it), at its resourceVersion, so a write over a newer one is refused.
            let mut update = o.clone();
            update.spec = want.spec;
            update.status = None;
            let reason = format!("the gang of ElasticJob {name} follows the job: minMember {}", update.spec.min_member);
            actions.push(Action::CreateOrUpdatePodGroup { pod_group: Box::new(update), reason, cause: Cause::Gang });
        }
        Some(_) => {}
    }
    (actions, wait)
}

/// Whether the job controls the PodGroup (a controller owner reference with its uid). A job
/// without a uid (a manifest not applied yet, in a preview) owns nothing: every PodGroup of its
/// name counts as its own, as its pods do.
fn controls(job: &ElasticJob, group: &PodGroup) -> bool {
    let Some(owner) = crate::template::owner_reference(job) else { return true };
    group.metadata.owner_references.iter().flatten().any(|r| r.controller == Some(true) && r.uid == owner.uid)
}

impl Planner<'_> {
    /// The job's task pods wait for the gang scheduler for this reason: none is made in this pass.
    pub(crate) fn wait_for_gang(&mut self, why: Option<(&'static str, String)>) {
        self.gang_wait = why;
    }

    /// The `GangPending` condition: true with why the task pods wait, false once they need not
    /// (only on a job that had it). `ended`: the job has finished or is suspended, so nothing of
    /// it waits for a gang any more: a true condition turns false, saying so.
    pub(super) fn note_gang(&self, status: &mut ElasticJobStatus, ended: Option<&str>, now: &Time) {
        let had = status::has_condition(status, JobConditionType::GangPending);
        let (state, reason, message) = match (&self.gang_wait, ended) {
            (_, Some(_)) if !had => return,
            (_, Some(why)) => {
                // Directly: a failed job's conditions are otherwise left as they are.
                let conditions = status.common_mut().conditions.iter_mut();
                for c in
                    conditions.filter(|c| c.type_ == JobConditionType::GangPending && c.status == ConditionStatus::True)
                {
                    c.status = ConditionStatus::False;
                    REASON_ENDED.clone_into(&mut c.reason);
                    c.message = format!("ElasticJob {} {why}: no pod of it waits for a gang", self.job.name());
                    c.last_update_time = Some(now.clone());
                    c.last_transition_time = Some(now.clone());
                }
                return;
            }
            (Some((reason, why)), None) => (ConditionStatus::True, *reason, why.clone()),
            (None, None) if had => {
                let message = format!("the gang scheduler admitted the PodGroup of ElasticJob {}", self.job.name());
                (ConditionStatus::False, REASON_ADMITTED, message)
            }
            (None, None) => return,
        };
        status::set_condition(
            status,
            JobCondition {
                type_: JobConditionType::GangPending,
                status: state,
                reason: reason.to_owned(),
                message,
                last_update_time: Some(now.clone()),
                last_transition_time: Some(now.clone()),
            },
        );
    }

    /// Whether a PodGroup of the job's name that the job does not control holds every pod of the
    /// job back, its master's too (each would join that group).
    pub(crate) fn gang_not_controlled(&self) -> bool {
        self.gang_wait.as_ref().is_some_and(|(reason, _)| *reason == gang::REASON_NOT_CONTROLLED)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job;

    fn volcano_job(queue: &str) -> ElasticJob {
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": "j", "namespace": "ns", "uid": "u"},
            "spec": {"distributionStrategy": "ParameterServerStrategy",
                "runPolicy": {"schedulingPolicy": {"queue": queue}},
                "replicaSpecs": {"ps": {"replicas": 1, "BatchScheduler": "volcano",
                    "template": {"spec": {"containers": [{"name": "main", "image": "tf"}]}}}}}
        }))
        .unwrap_or_default()
    }

    /// A Volcano job in `queue`, its first plan, and its PodGroup as made before it runs.
    fn made(queue: &str) -> (ElasticJob, ScalePlan, PodGroup) {
        let job = volcano_job(queue);
        let plan = job::initial_scale_plan(&job);
        let group = gang::pod_group(&job, &plan, &Options::default(), false).unwrap_or_default();
        (job, plan, group)
    }

    #[test]
    fn a_volcano_gang_keeps_the_queue_it_was_made_in() {
        let options = Options::default();
        let (_, plan, mut observed) = made("research");
        observed.status = Some(crate::podgroup::PodGroupStatus { phase: Some("Running".into()) });
        // The job now names another queue: nothing to update, and nothing waits.
        let moved = volcano_job("production");
        let (actions, wait) = pod_group_pass(&moved, &plan, &options, Some(&observed), &[], false);
        assert!(actions.is_empty(), "{actions:?}");
        assert_eq!(wait, None);
        // A change the gang needs is still made, in the queue it was made in.
        observed.spec.min_member = 5;
        let (actions, _) = pod_group_pass(&moved, &plan, &options, Some(&observed), &[], false);
        let queues: Vec<Option<&str>> = updates(&actions).into_iter().map(|g| g.spec.queue.as_deref()).collect();
        assert_eq!(queues, [Some("research")]);
    }

    fn updates(actions: &[Action]) -> Vec<&PodGroup> {
        actions
            .iter()
            .filter_map(|a| match a {
                Action::CreateOrUpdatePodGroup { pod_group, .. } => Some(pod_group.as_ref()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_removed_field_goes_in_one_update_at_the_resource_version_read() {
        let options = Options::default();
        let (job, plan, mut observed) = made("research");
        observed.spec.priority_class_name = Some("high".into());
        observed.metadata.resource_version = Some("812".into());
        observed.metadata.uid = Some("g".into());
        let (actions, _) = pod_group_pass(&job, &plan, &options, Some(&observed), &[], false);
        let written = updates(&actions);
        assert_eq!(written.len(), 1, "{actions:?}");
        let Some(update) = written.first() else { return };
        assert_eq!(update.metadata.resource_version.as_deref(), Some("812"));
        assert_eq!(update.spec.priority_class_name, None);
        assert_eq!(update.status, None);
    }

    #[test]
    fn a_pod_group_another_controls_is_left_alone_and_holds_every_pod_back() {
        let options = Options::default();
        let (job, plan, mut foreign) = made("research");
        for r in foreign.metadata.owner_references.iter_mut().flatten() {
            r.uid = "another".into();
        }
        foreign.status = Some(crate::podgroup::PodGroupStatus { phase: Some("Running".into()) });
        let (actions, wait) = pod_group_pass(&job, &plan, &options, Some(&foreign), &[], false);
        assert!(actions.is_empty(), "{actions:?}");
        assert_eq!(wait.map(|w| w.0), Some(gang::REASON_NOT_CONTROLLED));
        // Nor deleted when the job finishes.
        let (actions, wait) = pod_group_pass(&job, &plan, &options, Some(&foreign), &[], true);
        assert!(actions.is_empty() && wait.is_none(), "{actions:?}");
    }
}
