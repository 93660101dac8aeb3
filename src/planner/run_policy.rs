//! Kubeflow's run policy (`spec.runPolicy`): the deadline and the backoff limit that fail a job
//! that runs, the pods a finished job deletes (`cleanPodPolicy`), the job itself deleted once its
//! `ttlSecondsAfterFinished` has passed, and the moment the job next needs a pass (see
//! [`crate::reconcile`] for the rules).

use crate::podspec::{Pod, Time};

use super::Planner;
use super::lifecycle::STOP_REASON;
use crate::api::{
    CleanPodPolicy, ConditionStatus, ElasticJob, ElasticJobStatus, JobConditionType, ReplicaType, ScalePlan,
};
use crate::plan::{Action, Cause, Event};
use crate::status::{self, update_status};
use crate::{job, pod};

/// Why a finished pod of a job whose `cleanPodPolicy` is `All` is deleted.
const CLEANUP_REASON: &str = "the job has finished and its cleanPodPolicy is All: every pod is deleted";

/// Why a finished job whose `cleanPodPolicy` is `None` deletes a pod all the same.
const PLANNED_REMOVAL_REASON: &str = "listed in the removePods of a plan of the job's master";

/// A limit of the run policy that fails a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Limit {
    /// `activeDeadlineSeconds` after the start time has passed.
    Deadline,
    /// The failed task pods reached `backoffLimit`.
    Backoff,
}

impl Limit {
    /// The reason of the job's `Failed` condition.
    fn reason(self) -> &'static str {
        match self {
            Limit::Deadline => status::REASON_DEADLINE_EXCEEDED,
            Limit::Backoff => status::REASON_BACKOFF_LIMIT_EXCEEDED,
        }
    }

    fn cause(self) -> Cause {
        match self {
            Limit::Deadline => Cause::Deadline,
            Limit::Backoff => Cause::BackoffLimit,
        }
    }

    /// The message of the `Failed` condition, as Kubeflow's training-operator words it.
    fn message(self, job: &ElasticJob) -> String {
        let name = job.name();
        match self {
            Limit::Deadline => format!("Job {name} has failed because it was active longer than specified deadline"),
            Limit::Backoff => format!("Job {name} has failed because it has reached the specified backoff limit"),
        }
    }

    /// Why the job's running pods are stopped.
    fn stop_reason(self, job: &ElasticJob) -> String {
        let policy = job::run_policy(job);
        match self {
            Limit::Deadline => format!(
                "the job was active longer than its activeDeadlineSeconds ({} s): its running pods are stopped",
                policy.and_then(|r| r.active_deadline_seconds).unwrap_or_default()
            ),
            Limit::Backoff => format!(
                "the job's failed task pods reached its backoffLimit ({}): its running pods are stopped",
                policy.and_then(|r| r.backoff_limit).unwrap_or_default()
            ),
        }
    }

    /// The limit a job failed for, read from its true `Failed` condition.
    fn of(status: &ElasticJobStatus) -> Option<Limit> {
        let failed = status
            .common()?
            .conditions
            .iter()
            .find(|c| c.type_ == JobConditionType::Failed && c.status == ConditionStatus::True)?;
        [Limit::Deadline, Limit::Backoff].into_iter().find(|l| failed.reason == l.reason())
    }
}

impl Planner<'_> {
    /// The limit of the job's run policy reached at `now`, if any: the backoff limit first, then
    /// the deadline (Kubeflow's order).
    pub(super) fn limit_reached(&self, status: &ElasticJobStatus, now: &Time) -> Option<Limit> {
        let policy = job::run_policy(self.job)?;
        if let Some(limit) = policy.backoff_limit {
            // Kubeflow's `PastBackoffLimit`: a limit of 0 is reached by one failure, any other by
            // as many as it says. Its count (container restarts of running pods) is here the failed
            // task pods, each of which DLRover's master relaunches as a new pod, but for those a
            // disruption ended (`failed_task_pods`).
            let failed = self.failed_task_pods();
            let limit = usize::try_from(limit).unwrap_or(0);
            if (limit == 0 && failed > 0) || (limit > 0 && failed >= limit) {
                return Some(Limit::Backoff);
            }
        }
        deadline(self.job, status).filter(|due| now >= due).map(|_| Limit::Deadline)
    }

    /// The job's task pods in phase Failed (its master's failure fails the job by itself), but for
    /// those a disruption ended: a pod with the condition `DisruptionTarget` true was preempted,
    /// evicted, or deleted with its node (Kubernetes sets it then), which Kubeflow, counting
    /// container restarts, never counted, and which a Kubernetes Job's pod failure policy
    /// excludes with `onPodConditions: [{type: DisruptionTarget}]`.
    fn failed_task_pods(&self) -> usize {
        let failed = |p: &&&Pod| pod::pod_phase(p) == "Failed" && !pod::is_disrupted(p);
        ReplicaType::TASKS.into_iter().map(|t| self.of_type(t).iter().filter(failed).count()).sum()
    }

    /// Fails the job for `limit` at `now`: a completion time, the `Failed` condition with the
    /// limit's reason and Kubeflow's message, and a Warning event once it is written.
    pub(super) fn fail_for(&mut self, status: &mut ElasticJobStatus, limit: Limit, now: &Time) {
        let common = status.common_mut();
        if common.completion_time.is_none() {
            common.completion_time = Some(now.clone());
        }
        let message = limit.message(self.job);
        update_status(status, JobConditionType::Failed, limit.reason(), message.clone(), now);
        self.status_write = Some((limit.cause(), Event::warning(limit.reason(), message)));
    }

    /// Deletes the pods a finished job deletes: its Running and Pending ones unless its
    /// `cleanPodPolicy` is `None` (one failed by its run policy stops them all the same), and with
    /// `All` every other pod too, whatever its phase. With `None`, those a plan of its master not
    /// carried out yet lists in `removePods` go all the same.
    pub(super) fn clean_up(&mut self, status: &ElasticJobStatus) {
        let limit = Limit::of(status);
        let policy = job::clean_pod_policy(self.job);
        if policy != CleanPodPolicy::None || limit.is_some() {
            let (reason, cause) = match limit {
                Some(limit) => (limit.stop_reason(self.job), limit.cause()),
                None => (STOP_REASON.to_owned(), Cause::Stop),
            };
            for replica_type in ReplicaType::ALL {
                self.stop_for(replica_type, &reason, cause);
            }
        }
        if policy == CleanPodPolicy::None && limit.is_none() {
            // What the master's last plan removes goes all the same, though the job took it up
            // too late to carry it out (its master had finished).
            let listed: Vec<&Pod> = ReplicaType::ALL
                .into_iter()
                .flat_map(|t| self.of_type(t).iter().copied())
                .filter(|p| !pod::is_terminating(p) && self.planned_removals.contains(pod::name(p)))
                .collect();
            for p in listed {
                self.delete(p, PLANNED_REMOVAL_REASON.to_owned(), Cause::Planned);
            }
        }
        if policy == CleanPodPolicy::All {
            for replica_type in ReplicaType::ALL {
                let left: Vec<&Pod> =
                    self.of_type(replica_type).iter().copied().filter(|p| !pod::is_terminating(p)).collect();
                for p in left {
                    self.delete(p, CLEANUP_REASON.to_owned(), Cause::Cleanup);
                }
            }
        }
    }

    /// Notes the pods `plans` list in their `removePods`, those not carried out yet (not
    /// `Succeeded` or `Failed`).
    pub(super) fn note_planned_removals<'p>(&mut self, plans: impl IntoIterator<Item = &'p ScalePlan>) {
        let job = self.job.name();
        for plan in plans {
            let done = matches!(
                plan.status.as_ref().and_then(|s| s.phase),
                Some(JobConditionType::Succeeded | JobConditionType::Failed)
            );
            if !done {
                self.planned_removals.extend(plan.spec.remove_pods.iter().filter_map(|m| m.pod_name(job)));
            }
        }
    }

    /// Deletes the finished job once its `ttlSecondsAfterFinished` after its completion time has
    /// passed at `now`.
    pub(super) fn expire(&mut self, status: &ElasticJobStatus, now: &Time) {
        let Some(due) = ttl_due(self.job, status).filter(|due| now >= due) else { return };
        let ttl = job::run_policy(self.job).and_then(|r| r.ttl_seconds_after_finished).unwrap_or_default();
        let reason = format!("the job finished and its ttlSecondsAfterFinished ({ttl} s) passed at {due}");
        self.actions.push(Action::DeleteJob {
            namespace: job::namespace(self.job).map(str::to_owned),
            name: self.job.name().to_owned(),
            reason,
            cause: Cause::Ttl,
        });
    }

    /// Notes when the job next needs a pass, as this pass leaves its status: a job that runs at its
    /// deadline, a finished one at its TTL; nothing when that moment is not after `now`.
    pub(super) fn requeue(&mut self, status: &ElasticJobStatus, now: &Time) {
        let due = if is_finished(status) {
            ttl_due(self.job, status)
        } else if status.phase == Some(JobConditionType::Suspended) {
            None
        } else {
            deadline(self.job, status)
        };
        self.requeue_at = due.filter(|due| due > now);
    }
}

/// Whether the job has Succeeded or Failed.
fn is_finished(status: &ElasticJobStatus) -> bool {
    matches!(status.phase, Some(JobConditionType::Succeeded | JobConditionType::Failed))
}

/// The moment the job's `activeDeadlineSeconds` after its start time passes (Kubeflow's
/// `PastActiveDeadline`: the job is past it from that moment on); none without either, or past
/// the year 9999.
fn deadline(job: &ElasticJob, status: &ElasticJobStatus) -> Option<Time> {
    let seconds = job::run_policy(job)?.active_deadline_seconds?;
    let start = status.common()?.start_time.as_ref()?;
    start.checked_add_seconds(seconds)
}

/// The moment the finished job's `ttlSecondsAfterFinished` after its completion time passes; none
/// for a job that has not finished, or without either, and none while the job is suspended: its
/// TTL does not run then (Kubeflow's `CleanupJob`, `pkg/controller.v1/common/job.go`, returns
/// early for a suspended job), so it is kept until it is resumed.
fn ttl_due(job: &ElasticJob, status: &ElasticJobStatus) -> Option<Time> {
    if !is_finished(status) || job.spec.suspend == Some(true) {
        return None;
    }
    let seconds = job::run_policy(job)?.ttl_seconds_after_finished?;
    let completed = status.common()?.completion_time.as_ref()?;
    completed.checked_add_seconds(i64::from(seconds))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{job, task};
    use super::*;
    use crate::api::RunPolicy;
    use crate::naming;
    use crate::plan::{Phase, PhaseKind, Plan};
    use crate::template::Options;

    fn at(s: &str) -> Time {
        Time::parse(s).unwrap_or(Time::UNIX_EPOCH)
    }

    /// Job `j` with `policy`, in `phase`, started at 10:00 and, when finished, completed at 11:00.
    fn job_with(policy: RunPolicy, phase: JobConditionType) -> ElasticJob {
        let mut j = job();
        j.spec.run_policy = Some(policy);
        let mut status = ElasticJobStatus { phase: Some(phase), ..Default::default() };
        status.common_mut().start_time = Some(at("2026-01-01T10:00:00Z"));
        if is_finished(&status) {
            status.common_mut().completion_time = Some(at("2026-01-01T11:00:00Z"));
        }
        j.status = Some(status);
        j
    }

    fn pass(j: &ElasticJob, pods: &[Pod], now: &str) -> Plan {
        let options = Options::default();
        let layout = crate::job::initial_scale_plan(j);
        let Ok(mut planner) = Planner::new(j, &options, pods, &layout) else { return Plan::default() };
        if planner.pass(None, &at(now)).is_err() {
            return Plan::default();
        }
        planner.finish()
    }

    fn master(phase: &str) -> Pod {
        let mut m = task(ReplicaType::DlroverMaster, 0, 0, phase);
        m.metadata.name = Some(naming::master_name("j"));
        m
    }

    fn failed_condition(plan: &Plan) -> Option<(String, String)> {
        let status = plan.job_status()?;
        let c = status.common()?.conditions.iter().find(|c| c.type_ == JobConditionType::Failed)?;
        Some((c.reason.clone(), c.message.clone()))
    }

    fn deleted(plan: &Plan) -> Vec<(&str, Cause)> {
        plan.actions()
            .filter_map(|a| match a {
                Action::DeletePod { name, cause, .. } => Some((name.as_str(), *cause)),
                _ => None,
            })
            .collect()
    }

    /// Whether the plan only writes the job's status (the fixtures' counts), with no condition
    /// of this pass.
    fn only_counts(plan: &Plan) -> bool {
        plan.actions().all(|a| {
            matches!(a, Action::SetJobStatus { status, .. }
            if status.common().is_none_or(|s| s.conditions.iter().all(|c| c.type_ != JobConditionType::Failed)))
        })
    }

    fn deadline_of(seconds: i64) -> RunPolicy {
        RunPolicy { active_deadline_seconds: Some(seconds), ..Default::default() }
    }

    #[test]
    fn a_job_past_its_deadline_fails_and_its_running_pods_are_stopped() {
        let j = job_with(deadline_of(3600), JobConditionType::Running);
        let pods =
            [master("Running"), task(ReplicaType::Worker, 0, 0, "Running"), task(ReplicaType::Worker, 1, 1, "Failed")];
        let plan = pass(&j, &pods, "2026-01-01T11:00:00Z");
        assert_eq!(
            failed_condition(&plan),
            Some((
                "DeadlineExceeded".to_owned(),
                "Job j has failed because it was active longer than specified deadline".to_owned()
            ))
        );
        assert_eq!(
            deleted(&plan),
            [("elasticjob-j-dlrover-master", Cause::Deadline), ("j-edljob-worker-0", Cause::Deadline)]
        );
        let Some(Action::SetJobStatus { status, cause, event }) = plan.actions().last() else { panic!("{plan:?}") };
        assert_eq!(*cause, Cause::Deadline);
        assert_eq!(
            event.as_ref().map(|e| (e.type_.as_str(), e.reason.as_str())),
            Some(("Warning", "DeadlineExceeded"))
        );
        assert_eq!(status.common().and_then(|s| s.completion_time.clone()), Some(at("2026-01-01T11:00:00Z")));
        assert_eq!(plan.requeue_at, None, "a failed job without a TTL needs no look");
        // The failed job's next pass stops what is left, and changes nothing else.
        let mut failed = j.clone();
        failed.status = Some(status.clone());
        let again = pass(&failed, &pods, "2026-01-01T11:00:05Z");
        assert_eq!(deleted(&again), deleted(&plan));
        assert!(again.job_status().is_none(), "{again:?}");
    }

    #[test]
    fn before_its_deadline_nothing_happens_and_the_plan_says_when_to_look_again() {
        let j = job_with(deadline_of(3600), JobConditionType::Running);
        let pods = [master("Running"), task(ReplicaType::Worker, 0, 0, "Running")];
        let plan = pass(&j, &pods, "2026-01-01T10:59:59Z");
        assert!(only_counts(&plan), "{plan:?}");
        assert_eq!(plan.requeue_at, Some(at("2026-01-01T11:00:00Z")));
        // A new job's deadline counts from the start time this pass gives it.
        let mut new = job();
        new.spec.run_policy = Some(deadline_of(60));
        let created = pass(&new, &[], "2026-01-01T09:00:00Z");
        assert_eq!(created.requeue_at, Some(at("2026-01-01T09:01:00Z")));
        // A suspended job's time does not run; a resumed one's starts again.
        let mut suspended = job_with(deadline_of(60), JobConditionType::Suspended);
        suspended.spec.suspend = Some(true);
        assert_eq!(pass(&suspended, &[], "2026-01-01T12:00:00Z").requeue_at, None);
        suspended.spec.suspend = None;
        let resumed = pass(&suspended, &[], "2026-01-01T12:00:00Z");
        assert_eq!(failed_condition(&resumed), None, "{resumed:?}");
        assert_eq!(resumed.job_status().and_then(|s| s.common()?.start_time.clone()), Some(at("2026-01-01T12:00:00Z")));
        assert_eq!(resumed.requeue_at, Some(at("2026-01-01T12:01:00Z")));
    }

    #[test]
    fn failed_task_pods_reaching_the_backoff_limit_fail_the_job() {
        let backoff = |n| RunPolicy { backoff_limit: Some(n), ..Default::default() };
        let one_failed =
            [master("Running"), task(ReplicaType::Worker, 0, 0, "Running"), task(ReplicaType::Ps, 0, 0, "Failed")];
        let two_failed = [
            master("Running"),
            task(ReplicaType::Worker, 0, 0, "Failed"),
            task(ReplicaType::Worker, 1, 0, "Running"),
            task(ReplicaType::Ps, 0, 0, "Failed"),
        ];
        let reason = |limit, pods: &[Pod]| {
            failed_condition(&pass(&job_with(backoff(limit), JobConditionType::Running), pods, "2026-01-01T10:30:00Z"))
                .map(|(reason, _)| reason)
        };
        let exceeded = Some("BackoffLimitExceeded".to_owned());
        // Kubeflow's rule: 0 is reached by one failure, any other limit by as many.
        assert_eq!(reason(0, &one_failed), exceeded);
        assert_eq!(reason(1, &one_failed), exceeded);
        assert_eq!(reason(2, &one_failed), None);
        assert_eq!(reason(2, &two_failed), exceeded);
        assert_eq!(reason(3, &two_failed), None);
        // A failed master fails the job by itself; it is not a task pod that counts.
        let master_failed = [master("Failed")];
        let plan = pass(&job_with(backoff(0), JobConditionType::Running), &master_failed, "2026-01-01T10:30:00Z");
        assert_eq!(failed_condition(&plan).map(|(reason, _)| reason), Some("JobFailed".to_owned()));
        let stopped = pass(&job_with(backoff(2), JobConditionType::Running), &two_failed, "2026-01-01T10:30:00Z");
        assert_eq!(
            deleted(&stopped),
            [("elasticjob-j-dlrover-master", Cause::BackoffLimit), ("j-edljob-worker-1", Cause::BackoffLimit)]
        );
    }

    #[test]
    fn a_finished_job_deletes_the_pods_its_clean_pod_policy_names() {
        let pods = |master_phase| {
            [
                master(master_phase),
                task(ReplicaType::Ps, 0, 0, "Running"),
                task(ReplicaType::Worker, 0, 0, "Pending"),
                task(ReplicaType::Worker, 1, 1, "Succeeded"),
                task(ReplicaType::Worker, 2, 2, "Failed"),
            ]
        };
        let running = [("j-edljob-ps-0", Cause::Stop), ("j-edljob-worker-0", Cause::Stop)];
        let all = [
            ("j-edljob-ps-0", Cause::Stop),
            ("j-edljob-worker-0", Cause::Stop),
            ("elasticjob-j-dlrover-master", Cause::Cleanup),
            ("j-edljob-worker-1", Cause::Cleanup),
            ("j-edljob-worker-2", Cause::Cleanup),
        ];
        for master_phase in ["Succeeded", "Failed"] {
            for (policy, expected) in [
                (Some(CleanPodPolicy::All), &all[..]),
                (Some(CleanPodPolicy::Running), &running[..]),
                (Some(CleanPodPolicy::None), &[][..]),
                (None, &running[..]),
            ] {
                let j =
                    job_with(RunPolicy { clean_pod_policy: policy, ..Default::default() }, JobConditionType::Running);
                // The pass that finds the job finished, and a later one.
                let plan = pass(&j, &pods(master_phase), "2026-01-01T11:00:00Z");
                assert_eq!(deleted(&plan), expected, "{policy:?} after the master {master_phase}");
                let mut finished = j.clone();
                finished.status = plan.job_status().cloned();
                let later = pass(&finished, &pods(master_phase), "2026-01-01T11:00:05Z");
                assert_eq!(deleted(&later), expected, "{policy:?}, later, after the master {master_phase}");
            }
        }
        // A failed job's running pods stop even with None, when its run policy failed it.
        let policy = RunPolicy { clean_pod_policy: Some(CleanPodPolicy::None), ..deadline_of(60) };
        let plan = pass(&job_with(policy, JobConditionType::Running), &pods("Running"), "2026-01-01T11:00:00Z");
        assert_eq!(
            deleted(&plan),
            [
                ("elasticjob-j-dlrover-master", Cause::Deadline),
                ("j-edljob-ps-0", Cause::Deadline),
                ("j-edljob-worker-0", Cause::Deadline)
            ]
        );
    }

    #[test]
    fn a_finished_job_is_deleted_once_its_ttl_has_passed() {
        let policy = RunPolicy { ttl_seconds_after_finished: Some(600), ..Default::default() };
        let j = job_with(policy, JobConditionType::Succeeded);
        let pods = [master("Succeeded")];
        let before = pass(&j, &pods, "2026-01-01T11:09:59Z");
        assert!(only_counts(&before), "{before:?}");
        assert_eq!(before.requeue_at, Some(at("2026-01-01T11:10:00Z")));
        let due = pass(&j, &pods, "2026-01-01T11:10:00Z");
        let Some(Phase { phase: PhaseKind::DeleteJob, actions, .. }) = due.phases.last() else { panic!("{due:?}") };
        assert!(
            matches!(actions.as_slice(), [Action::DeleteJob { namespace: Some(ns), name, cause: Cause::Ttl, .. }] if ns == "ns" && name == "j"),
            "{actions:?}"
        );
        assert_eq!(due.requeue_at, None);
        // A job that finishes in this pass: its TTL counts from now, and the job is deleted last.
        let mut running = job_with(
            RunPolicy { ttl_seconds_after_finished: Some(0), ..Default::default() },
            JobConditionType::Running,
        );
        if let Some(status) = running.status.as_mut() {
            status.common_mut().completion_time = None;
        }
        let finishing = pass(&running, &pods, "2026-01-01T12:00:00Z");
        assert_eq!(
            finishing.phases.iter().map(|p| p.phase).collect::<Vec<_>>(),
            [PhaseKind::Status, PhaseKind::DeleteJob],
            "{finishing:?}"
        );
    }

    #[test]
    fn the_masters_plan_that_removes_every_pod_is_carried_out_whatever_the_policy() {
        use crate::api::{PodMeta, ScalePlan, ScalePlanStatus};
        let mut j = job_with(
            RunPolicy { clean_pod_policy: Some(CleanPodPolicy::None), ..Default::default() },
            JobConditionType::Running,
        );
        let mut plan = ScalePlan::default();
        plan.metadata.name = Some("j-scaleplan-3".into());
        plan.status = Some(ScalePlanStatus { phase: Some(JobConditionType::Pending), ..Default::default() });
        for (t, id) in [(ReplicaType::Ps, 0), (ReplicaType::Worker, 0)] {
            plan.spec.remove_pods.push(PodMeta {
                name: naming::task_pod_name("j", t, id),
                id: Some(id.try_into().unwrap_or_default()),
                type_: Some(t),
                ..Default::default()
            });
        }
        if let Some(status) = j.status.as_mut() {
            status.scale_plan = plan.metadata.name.clone();
        }
        let pods =
            [master("Running"), task(ReplicaType::Ps, 0, 0, "Running"), task(ReplicaType::Worker, 0, 0, "Running")];
        let options = Options::default();
        let Ok(mut planner) = Planner::new(&j, &options, &pods, &plan) else { panic!("planner") };
        assert!(planner.pass(Some(&plan), &at("2026-01-01T10:30:00Z")).is_ok());
        let done = planner.finish();
        let planned = [("j-edljob-ps-0", Cause::Planned), ("j-edljob-worker-0", Cause::Planned)];
        assert_eq!(deleted(&done), planned);
        // Its master finished before the job took the plan up: the job finishes, and what the
        // plan lists goes all the same.
        let mut pods = pods;
        pods[0] = master("Succeeded");
        let Ok(mut planner) = Planner::new(&j, &options, &pods, &plan) else { panic!("planner") };
        assert!(planner.pass(Some(&plan), &at("2026-01-01T10:30:00Z")).is_ok());
        let finished = planner.finish();
        assert_eq!(finished.job_status().and_then(|s| s.phase), Some(JobConditionType::Succeeded));
        assert_eq!(deleted(&finished), planned);
        // The job had finished when the plan came: the controller's pass takes no plan up, and
        // deletes what it lists.
        let mut succeeded = j.clone();
        succeeded.status = finished.job_status().cloned();
        plan.status = None;
        plan.metadata.labels = Some([(naming::LABEL_SCALE_TYPE.to_owned(), naming::SCALE_TYPE_AUTO.to_owned())].into());
        plan.spec.owner_job = Some("j".into());
        let now = at("2026-01-01T10:31:00Z");
        let Ok(pass) = super::super::controller_pass(
            super::super::Observed { job: Some(&succeeded), plans: &[plan], pods: &pods, services: &[] },
            super::super::Gates::default(),
            &now,
            &options,
        ) else {
            panic!("refused")
        };
        assert_eq!(deleted(&pass), planned);
        assert!(pass.actions().all(|a| !matches!(a, Action::SetScalePlanStatus { .. })), "{pass:?}");
    }
}
