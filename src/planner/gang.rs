//! A gang-scheduled job's pass (see [`crate::gang`] for who is in the gang and why): its PodGroup
//! made before any pod and kept to what the current plan needs, deleted once the job has finished
//! (as training-operator deletes it: a finished gang holds nothing in Volcano's queue); and, with
//! Volcano, no task pod made while the PodGroup is not admitted, the job's `GangPending`
//! condition saying why.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

use super::Planner;
use crate::api::{ConditionStatus, ElasticJob, ElasticJobStatus, JobCondition, JobConditionType, ScalePlan};
use crate::gang;
use crate::plan::{Action, Cause};
use crate::podgroup::PodGroup;
use crate::status;
use crate::template::Options;

/// Reason of the `GangPending` condition turned false.
const REASON_ADMITTED: &str = "PodGroupAdmitted";

/// The PodGroup actions of one pass over a job that is not being deleted, and why its task pods
/// wait (Volcano), when they do. `finished`: the job has Succeeded or Failed. A finished or
/// suspended job (`spec.suspend`, a person's or Kueue's hold) has no PodGroup, as
/// training-operator deletes it then: a gang that runs no pod must not hold a scheduler's queue.
pub(super) fn pod_group_pass(
    job: &ElasticJob,
    plan: &ScalePlan,
    options: &Options,
    observed: Option<&PodGroup>,
    finished: bool,
) -> (Vec<Action>, Option<(&'static str, String)>) {
    let Some(mut want) = gang::pod_group(job, plan, options) else { return (Vec::new(), None) };
    // Only the PodGroup of the job's own gang scheduler, named after the job, is the job's.
    let observed = observed.filter(|o| o.api_version == want.api_version && o.metadata.name == want.metadata.name);
    // A Volcano PodGroup keeps the queue it was made in, as training-operator keeps it (Kubeflow's
    // CRD holds `schedulingPolicy.queue` immutable): a gang is not moved between queues under way.
    let made_in = observed.and_then(|o| o.spec.queue.clone()).filter(|q| !q.is_empty());
    if let (Some(queue), Some(_)) = (made_in, want.spec.queue.as_ref()) {
        want.spec.queue = Some(queue);
    }
    let name = job.name().to_owned();
    let suspended = job.spec.suspend == Some(true);
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
    let wait = gang::waits_for(job, options, observed, &want);
    let mut actions = Vec::new();
    if observed.is_none_or(|o| !gang::is_current(o, &want)) {
        let reason = match observed {
            None => format!("the gang of ElasticJob {name}: {} task pods placed together", want.spec.min_member),
            Some(_) => format!("the gang of ElasticJob {name} follows its plan: {} task pods", want.spec.min_member),
        };
        actions.push(Action::CreateOrUpdatePodGroup { pod_group: Box::new(want), reason, cause: Cause::Gang });
    }
    (actions, wait)
}

impl Planner<'_> {
    /// The job's task pods wait for the gang scheduler for this reason: none is made in this pass.
    pub(crate) fn wait_for_gang(&mut self, why: Option<(&'static str, String)>) {
        self.gang_wait = why;
    }

    /// The `GangPending` condition: true with why the task pods wait, false once they need not
    /// (only on a job that had it).
    pub(super) fn note_gang(&self, status: &mut ElasticJobStatus, now: &Time) {
        let (state, reason, message) = match &self.gang_wait {
            Some((reason, why)) => (ConditionStatus::True, *reason, why.clone()),
            None if status::has_condition(status, JobConditionType::GangPending) => {
                let message = format!("the gang scheduler admitted the PodGroup of ElasticJob {}", self.job.name());
                (ConditionStatus::False, REASON_ADMITTED, message)
            }
            None => return,
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

    #[test]
    fn a_volcano_gang_keeps_the_queue_it_was_made_in() {
        let options = Options::default();
        let made = volcano_job("research");
        let plan = job::initial_scale_plan(&made);
        let Some(mut observed) = gang::pod_group(&made, &plan, &options) else { panic!("no group") };
        observed.status = Some(crate::podgroup::PodGroupStatus { phase: Some("Running".into()) });
        // The job now names another queue: nothing to update, and nothing waits.
        let moved = volcano_job("production");
        let (actions, wait) = pod_group_pass(&moved, &plan, &options, Some(&observed), false);
        assert!(actions.is_empty(), "{actions:?}");
        assert_eq!(wait, None);
        // A change the gang needs is still made, in the queue it was made in.
        observed.spec.min_member = 5;
        let (actions, _) = pod_group_pass(&moved, &plan, &options, Some(&observed), false);
        let queues: Vec<Option<&str>> = actions
            .iter()
            .filter_map(|a| match a {
                Action::CreateOrUpdatePodGroup { pod_group, .. } => Some(pod_group.spec.queue.as_deref()),
                _ => None,
            })
            .collect();
        assert_eq!(queues, [Some("research")]);
    }
}
