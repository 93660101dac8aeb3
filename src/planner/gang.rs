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
/// wait (Volcano), when they do. `finished`: the job has Succeeded or Failed.
pub(super) fn pod_group_pass(
    job: &ElasticJob,
    plan: &ScalePlan,
    options: &Options,
    observed: Option<&PodGroup>,
    finished: bool,
) -> (Vec<Action>, Option<(&'static str, String)>) {
    let Some(want) = gang::pod_group(job, plan, options) else { return (Vec::new(), None) };
    // Only the PodGroup of the job's own gang scheduler, named after the job, is the job's.
    let observed = observed.filter(|o| o.api_version == want.api_version && o.metadata.name == want.metadata.name);
    let name = job.name().to_owned();
    if finished {
        let Some(observed) = observed else { return (Vec::new(), None) };
        let delete = Action::DeletePodGroup {
            namespace: observed.metadata.namespace.clone().filter(|n| !n.is_empty()),
            name,
            api_version: want.api_version.clone().unwrap_or_default(),
            reason: format!("ElasticJob {} has finished: its gang holds nothing any more", job.name()),
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
