//! Job conditions and phase.
//!
//! - a job with a true `Failed` condition never changes;
//! - setting a condition of the same type, status and reason is a no-op;
//! - the transition time is kept when the status did not change;
//! - `Running` and `Restarting` replace each other;
//! - `Succeeded` or `Failed` turns `Running` to `False`;
//! - `phase` becomes the type last set. Times come in as input.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

use crate::api::{ConditionStatus, ElasticJobStatus, JobCondition, JobConditionType};

/// Reason of the `Created` condition.
pub const REASON_CREATED: &str = "JobCreated";
/// Reason of the `Pending` condition.
pub const REASON_PENDING: &str = "JobPending";
/// Reason of the `Running` condition.
pub const REASON_RUNNING: &str = "JobRunning";
/// Reason of the `Restarting` condition.
pub const REASON_RESTARTING: &str = "JobRestarting";
/// Reason of the `Succeeded` condition.
pub const REASON_SUCCEEDED: &str = "JobSucceeded";
/// Reason of the `Failed` condition when the master pod gives none.
pub const REASON_FAILED: &str = "JobFailed";
/// Reason of the `Scaling` condition.
pub const REASON_SCALING: &str = "JobScaling";

/// Whether the job has a true condition of this type.
pub fn has_condition(status: &ElasticJobStatus, type_: JobConditionType) -> bool {
    status.conditions.iter().any(|c| c.type_ == type_ && c.status == ConditionStatus::True)
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
    set_condition(
        status,
        JobCondition {
            type_,
            status: ConditionStatus::True,
            reason: reason.to_owned(),
            message,
            last_update_time: Some(now.clone()),
            last_transition_time: Some(now.clone()),
        },
    );
    status.phase = Some(type_);
}

/// Adds or replaces a condition, by the rules of the module docs.
pub fn set_condition(status: &mut ElasticJobStatus, mut condition: JobCondition) {
    if has_condition(status, JobConditionType::Failed) {
        return;
    }
    if let Some(current) = status.conditions.iter().find(|c| c.type_ == condition.type_) {
        if current.status == condition.status && current.reason == condition.reason {
            return;
        }
        if current.status == condition.status {
            condition.last_transition_time.clone_from(&current.last_transition_time);
        }
    }
    let new_type = condition.type_;
    status.conditions.retain(|c| {
        c.type_ != new_type
            && !(new_type == JobConditionType::Restarting && c.type_ == JobConditionType::Running)
            && !(new_type == JobConditionType::Running && c.type_ == JobConditionType::Restarting)
    });
    if matches!(new_type, JobConditionType::Failed | JobConditionType::Succeeded) {
        for c in &mut status.conditions {
            if c.type_ == JobConditionType::Running {
                c.status = ConditionStatus::False;
            }
        }
    }
    status.conditions.push(condition);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Time {
        Time(s.parse().unwrap_or_default())
    }

    #[test]
    fn transitions() {
        let mut st = ElasticJobStatus::default();
        let t1 = at("2026-01-01T00:00:00Z");
        let t2 = at("2026-01-01T00:01:00Z");
        update_status(&mut st, JobConditionType::Running, REASON_RUNNING, "running".into(), &t1);
        update_status(&mut st, JobConditionType::Running, REASON_RUNNING, "running again".into(), &t2);
        assert_eq!(st.conditions.len(), 1);
        assert_eq!(st.conditions.first().map(|c| c.message.as_str()), Some("running"));
        update_status(&mut st, JobConditionType::Restarting, REASON_RESTARTING, "restarting".into(), &t2);
        assert_eq!(st.conditions.iter().map(|c| c.type_).collect::<Vec<_>>(), [JobConditionType::Restarting]);
        update_status(&mut st, JobConditionType::Running, REASON_RUNNING, "running".into(), &t2);
        update_status(&mut st, JobConditionType::Succeeded, REASON_SUCCEEDED, "done".into(), &t2);
        assert_eq!(st.phase, Some(JobConditionType::Succeeded));
        assert_eq!(st.conditions.first().map(|c| c.status), Some(ConditionStatus::False));
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
        let c = st.conditions.first().cloned();
        assert_eq!(c.as_ref().and_then(|c| c.last_transition_time.clone()), Some(at("2026-01-01T00:00:00Z")));
        assert_eq!(c.and_then(|c| c.last_update_time), Some(at("2026-01-01T00:05:00Z")));
    }
}
