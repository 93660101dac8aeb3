//! Job conditions and phase.
//!
//! - a job with a true `Failed` condition never changes;
//! - setting a condition of the same type, status and reason is a no-op;
//! - the transition time is kept when the status did not change;
//! - `Running` and `Restarting` replace each other;
//! - `Succeeded`, `Failed` or `Suspended` turns `Running` to `False`;
//! - `phase` becomes the type last set true. Times come in as input.
//!
//! The conditions live in the common job status (`status.status.conditions`), the phase beside
//! it (`status.phase`), as DLRover's CRD has them.

use crate::podspec::Time;

use crate::api::{ConditionStatus, ElasticJobStatus, JobCondition, JobConditionType};

/// Reason of the `Created` condition.
pub const REASON_CREATED: &str = "JobCreated";
/// Reason of the `Pending` condition.
pub const REASON_PENDING: &str = "JobPending";
/// Reason of the `Running` condition.
pub const REASON_RUNNING: &str = "JobRunning";
/// Reason of the `Succeeded` condition.
pub const REASON_SUCCEEDED: &str = "JobSucceeded";
/// Reason of the `Failed` condition when the master pod gives none.
pub const REASON_FAILED: &str = "JobFailed";
/// Reason of the `Scaling` condition.
pub const REASON_SCALING: &str = "JobScaling";
/// Reason of the `Suspended` condition while `spec.suspend` is true.
pub const REASON_SUSPENDED: &str = "JobSuspended";
/// Reason of the `Suspended` condition turned false, and of the `Created` condition, when
/// `spec.suspend` goes back to false.
pub const REASON_RESUMED: &str = "JobResumed";
/// Reason of the `Failed` condition of a job active longer than its
/// `spec.runPolicy.activeDeadlineSeconds` (Kubernetes' Job's reason for it).
pub const REASON_DEADLINE_EXCEEDED: &str = "DeadlineExceeded";
/// Reason of the `Failed` condition of a job whose failed task pods reached its
/// `spec.runPolicy.backoffLimit` (Kubernetes' Job's reason for it).
pub const REASON_BACKOFF_LIMIT_EXCEEDED: &str = "BackoffLimitExceeded";

/// Reason of the `Refused` condition and of its Warning event: the core refuses the job.
pub const REASON_INVALID: &str = "InvalidJob";
/// Reason of the `Refused` condition turned false: a pass plans the job again.
pub const REASON_ACCEPTED: &str = "JobAccepted";

/// Whether the job has a true condition of this type.
pub fn has_condition(status: &ElasticJobStatus, type_: JobConditionType) -> bool {
    status.common().is_some_and(|s| s.conditions.iter().any(|c| c.type_ == type_ && c.status == ConditionStatus::True))
}

/// Sets a true condition of `type_` and moves the phase to it (upstream's `UpdateStatus`), at `now`.
/// Does nothing to a failed job.
pub fn update_status(
    status: &mut ElasticJobStatus,
    type_: JobConditionType,
    reason: &str,
    message: String,
    now: &Time,
) {
    if has_condition(status, JobConditionType::Failed) {
        return;
    }
    set_condition(status, condition(type_, ConditionStatus::True, reason, message, now));
    status.phase = Some(type_);
}

/// Sets a false condition of `type_` (a condition that stopped holding, such as `Suspended` on
/// resume), at `now`, leaving the phase alone. Does nothing to a failed job, or when no such
/// condition was ever set.
pub fn clear_condition(
    status: &mut ElasticJobStatus,
    type_: JobConditionType,
    reason: &str,
    message: String,
    now: &Time,
) {
    if status.common().is_some_and(|s| s.conditions.iter().any(|c| c.type_ == type_)) {
        set_condition(status, condition(type_, ConditionStatus::False, reason, message, now));
    }
}

fn condition(
    type_: JobConditionType,
    status: ConditionStatus,
    reason: &str,
    message: String,
    now: &Time,
) -> JobCondition {
    JobCondition {
        type_,
        status,
        reason: reason.to_owned(),
        message,
        last_update_time: Some(now.clone()),
        last_transition_time: Some(now.clone()),
    }
}

/// Adds or replaces a condition, by the rules of the module docs.
pub fn set_condition(status: &mut ElasticJobStatus, mut condition: JobCondition) {
    if has_condition(status, JobConditionType::Failed) {
        return;
    }
    let conditions = &mut status.common_mut().conditions;
    if let Some(current) = conditions.iter().find(|c| c.type_ == condition.type_) {
        if current.status == condition.status && current.reason == condition.reason {
            return;
        }
        if current.status == condition.status {
            condition.last_transition_time.clone_from(&current.last_transition_time);
        }
    }
    let new_type = condition.type_;
    conditions.retain(|c| {
        c.type_ != new_type
            && !(new_type == JobConditionType::Restarting && c.type_ == JobConditionType::Running)
            && !(new_type == JobConditionType::Running && c.type_ == JobConditionType::Restarting)
    });
    let stops =
        matches!(new_type, JobConditionType::Failed | JobConditionType::Succeeded | JobConditionType::Suspended);
    if stops && condition.status == ConditionStatus::True {
        for c in conditions.iter_mut() {
            if c.type_ == JobConditionType::Running {
                c.status = ConditionStatus::False;
            }
        }
    }
    conditions.push(condition);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Time {
        Time::parse(s).unwrap_or_default()
    }

    #[test]
    fn transitions() {
        let mut st = ElasticJobStatus::default();
        let t1 = at("2026-01-01T00:00:00Z");
        let t2 = at("2026-01-01T00:01:00Z");
        update_status(&mut st, JobConditionType::Running, REASON_RUNNING, "running".into(), &t1);
        update_status(&mut st, JobConditionType::Running, REASON_RUNNING, "running again".into(), &t2);
        let conditions = |st: &ElasticJobStatus| st.common().map(|s| s.conditions.clone()).unwrap_or_default();
        assert_eq!(conditions(&st).len(), 1);
        assert_eq!(conditions(&st).first().map(|c| c.message.clone()).as_deref(), Some("running"));
        update_status(&mut st, JobConditionType::Restarting, "JobRestarting", "restarting".into(), &t2);
        assert_eq!(conditions(&st).iter().map(|c| c.type_).collect::<Vec<_>>(), [JobConditionType::Restarting]);
        update_status(&mut st, JobConditionType::Running, REASON_RUNNING, "running".into(), &t2);
        update_status(&mut st, JobConditionType::Succeeded, REASON_SUCCEEDED, "done".into(), &t2);
        assert_eq!(st.phase, Some(JobConditionType::Succeeded));
        assert_eq!(conditions(&st).first().map(|c| c.status), Some(ConditionStatus::False));
        update_status(&mut st, JobConditionType::Failed, REASON_FAILED, "failed".into(), &t2);
        let frozen = st.clone();
        update_status(&mut st, JobConditionType::Running, REASON_RUNNING, "back".into(), &t2);
        assert_eq!(st, frozen);
    }

    #[test]
    fn transition_time_kept_when_status_unchanged() {
        let mut st = ElasticJobStatus::default();
        update_status(&mut st, JobConditionType::Pending, REASON_PENDING, "a".into(), &at("2026-01-01T00:00:00Z"));
        update_status(&mut st, JobConditionType::Pending, "OtherReason", "b".into(), &at("2026-01-01T00:05:00Z"));
        let c = st.common().and_then(|s| s.conditions.first().cloned());
        assert_eq!(c.as_ref().and_then(|c| c.last_transition_time.clone()), Some(at("2026-01-01T00:00:00Z")));
        assert_eq!(c.and_then(|c| c.last_update_time), Some(at("2026-01-01T00:05:00Z")));
    }

    #[test]
    fn suspend_stops_running_and_resume_clears_it() {
        let mut st = ElasticJobStatus::default();
        let t1 = at("2026-01-01T00:00:00Z");
        let t2 = at("2026-01-01T00:10:00Z");
        clear_condition(&mut st, JobConditionType::Suspended, REASON_RESUMED, "never suspended".into(), &t1);
        assert_eq!(st, ElasticJobStatus::default());
        update_status(&mut st, JobConditionType::Running, REASON_RUNNING, "running".into(), &t1);
        update_status(&mut st, JobConditionType::Suspended, REASON_SUSPENDED, "suspended".into(), &t1);
        assert_eq!(st.phase, Some(JobConditionType::Suspended));
        let running = |st: &ElasticJobStatus| {
            st.common()
                .and_then(|s| s.conditions.iter().find(|c| c.type_ == JobConditionType::Running).map(|c| c.status))
        };
        assert_eq!(running(&st), Some(ConditionStatus::False));
        clear_condition(&mut st, JobConditionType::Suspended, REASON_RESUMED, "resumed".into(), &t2);
        assert_eq!(st.phase, Some(JobConditionType::Suspended), "the phase moves with the next true condition");
        let suspended = st.common().and_then(|s| s.conditions.last().cloned());
        assert_eq!(
            suspended.as_ref().map(|c| (c.type_, c.status)),
            Some((JobConditionType::Suspended, ConditionStatus::False))
        );
        assert_eq!(suspended.and_then(|c| c.last_transition_time), Some(t2));
    }
}
