//! Fault handling: failed task pods relaunched as the restart policy, the `restart-count` budget
//! and the OOM rule allow, and a missing master recreated (the rules are in [`crate::reconcile`]'s
//! docs, under `handle_fault_pods`).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use super::{NewId, Planner};
use crate::api::{ReplicaType, RestartPolicy};
use crate::error::Result;
use crate::quantity::Amount;
use crate::template::TaskMeta;
use crate::{job, naming, pod};

impl<'a> Planner<'a> {
    /// Relaunches the failed pods of one type that the restart policy and budget allow; for the
    /// master, recreates it when it is missing.
    pub(crate) fn handle_faults(&mut self, replica_type: ReplicaType) -> Result<()> {
        if replica_type == ReplicaType::DlroverMaster {
            return self.ensure_master();
        }
        if job::task_template(self.job, replica_type).is_err() {
            // Pods of a type the job no longer has: nothing to relaunch them from.
            return Ok(());
        }
        let mut by_rank: BTreeMap<i32, Vec<&'a Pod>> = BTreeMap::new();
        for p in self.of_type(replica_type) {
            if let Some(rank) = pod::pod_rank(p) {
                by_rank.entry(rank).or_default().push(p);
            }
        }
        // Fault handling never undoes a scale-down: ranks at or above the type's target stay down.
        let target = self.target(replica_type);
        for (rank, pods) in by_rank {
            if target.is_some_and(|n| rank >= n) {
                continue;
            }
            let alive = pods.iter().any(|p| pod::is_alive(p) && !self.deleted.contains(pod::name(p)));
            if alive || self.created.contains(&(replica_type, rank)) {
                continue;
            }
            let failed =
                pods.iter().copied().filter(|p| pod::is_failed(p)).max_by_key(|p| pod::pod_id(p).unwrap_or(-1));
            if let Some(failed) = failed {
                self.relaunch(replica_type, rank, failed)?;
            }
        }
        Ok(())
    }

    fn relaunch(&mut self, replica_type: ReplicaType, rank: i32, failed: &Pod) -> Result<()> {
        let name = pod::name(failed).to_owned();
        let budget = pod::restarts_left(failed).unwrap_or_else(|| job::restart_count(self.job, replica_type));
        if budget <= 0 {
            return Ok(());
        }
        let policy = job::effective_replica_spec(self.job, replica_type).and_then(|s| s.restart_policy);
        let code = pod::exit_code(failed);
        if !retries(policy.unwrap_or(RestartPolicy::OnFailure), code) {
            return Ok(());
        }
        let mut resource = pod::resource(failed);
        let mut why = match code {
            Some(c) => format!("{name} failed with exit code {c}"),
            None => format!("{name} failed"),
        };
        if pod::is_oom_killed(failed) {
            // The limit it was killed at, doubled; the request follows (both are set to it).
            let old = pod::memory_limit(failed);
            if let Some(new) = oom_memory(old, self.memory_headroom(failed)) {
                resource.insert("memory".to_owned(), Quantity(new.to_string()));
                why = format!(
                    "{name} was OOMKilled; memory limit {} -> {new}",
                    old.map(|m| m.to_string()).unwrap_or_default()
                );
            } else {
                why = format!("{name} was OOMKilled (it declares no memory to raise)");
            }
        }
        let tf_config = pod::tf_config(failed).map(str::to_owned);
        if tf_config.is_none() && !self.can_list(replica_type, rank) {
            // A pod this operator did not make (it has no TF_CONFIG) at a rank the job's plan has
            // no address for: no cluster spec lists it, so there is nothing to relaunch it into.
            return Ok(());
        }
        let id = self.alloc_id(replica_type, NewId::Replacement)?;
        let left = budget - 1;
        let meta = TaskMeta { id, rank, resource, restarts_left: left, service: None };
        let new_name = naming::task_pod_name(self.job.name(), replica_type, i64::from(id));
        let reason = format!("{why}: relaunched as {new_name} at rank {rank}, {left} relaunch(es) left");
        self.create_task(replica_type, meta, tf_config, reason)
    }

    /// What `resourceLimits.memory` leaves for `failed`'s relaunch after every other live task pod
    /// and every pod this plan creates.
    fn memory_headroom(&self, failed: &Pod) -> Option<Amount> {
        let limit = Amount::parse(&self.job.spec.resource_limits.get("memory")?.0).ok()?;
        let mut used = self.created_memory;
        for replica_type in ReplicaType::TASKS {
            for p in self.live(replica_type) {
                if pod::name(p) != pod::name(failed) {
                    used = used.checked_add(pod::memory(p).unwrap_or(Amount::ZERO))?;
                }
            }
        }
        Some(limit.checked_sub(used)?.max(Amount::ZERO))
    }
}

/// Whether the restart policy relaunches a pod that exited with `code`.
fn retries(policy: RestartPolicy, code: Option<i32>) -> bool {
    match policy {
        RestartPolicy::Never => false,
        RestartPolicy::Always | RestartPolicy::OnFailure => true,
        RestartPolicy::ExitCode => !matches!(code, Some(1..=127)),
    }
}

/// The memory a relaunched OOMKilled pod gets: double the limit it was killed at, capped by what
/// the job's `resourceLimits.memory` leaves after every other live pod's memory, and never less
/// than it had. Returns `None` when the pod declares no memory (nothing to double).
fn oom_memory(current: Option<Amount>, headroom: Option<Amount>) -> Option<Amount> {
    let current = current?;
    let doubled = current.checked_mul(2).unwrap_or(current);
    Some(match headroom {
        Some(room) => doubled.min(room).max(current),
        None => doubled,
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::{job, task};
    use super::*;
    use crate::template::Options;

    fn amount(s: &str) -> Option<Amount> {
        Amount::parse(s).ok()
    }

    #[test]
    fn restart_policies() {
        assert!(!retries(RestartPolicy::Never, Some(137)));
        assert!(retries(RestartPolicy::OnFailure, Some(1)));
        assert!(retries(RestartPolicy::Always, None));
        assert!(!retries(RestartPolicy::ExitCode, Some(1)));
        assert!(!retries(RestartPolicy::ExitCode, Some(127)));
        assert!(retries(RestartPolicy::ExitCode, Some(128)));
        assert!(retries(RestartPolicy::ExitCode, None));
    }

    #[test]
    fn oom_doubles_within_the_headroom() {
        assert_eq!(oom_memory(amount("1Gi"), None), amount("2Gi"));
        assert_eq!(oom_memory(amount("1Gi"), amount("1536Mi")), amount("1536Mi"));
        assert_eq!(oom_memory(amount("1Gi"), amount("0")), amount("1Gi"));
        assert_eq!(oom_memory(None, amount("1Gi")), None);
    }

    fn relaunched(pods: &[Pod]) -> Vec<String> {
        let j = job();
        let options = Options::default();
        let Ok(mut planner) = Planner::new(&j, &options, pods, &crate::job::initial_scale_plan(&j)) else {
            return Vec::new();
        };
        if planner.handle_faults(ReplicaType::Worker).is_err() {
            return Vec::new();
        }
        planner.finish().created_pods().map(|p| pod::name(p).to_owned()).collect()
    }

    #[test]
    fn the_newest_failed_pod_of_a_dead_rank_is_relaunched_once() {
        let pods = [
            task(ReplicaType::Worker, 0, 0, "Running"),
            task(ReplicaType::Worker, 1, 1, "Failed"),
            task(ReplicaType::Worker, 2, 1, "Failed"),
        ];
        assert_eq!(relaunched(&pods), ["j-edljob-worker-3"]);
        let alive_rank = [task(ReplicaType::Worker, 1, 1, "Failed"), task(ReplicaType::Worker, 2, 1, "Pending")];
        assert!(relaunched(&alive_rank).is_empty());
    }

    #[test]
    fn an_exhausted_budget_is_not_relaunched() {
        let mut spent = task(ReplicaType::Worker, 1, 1, "Failed");
        if let Some(labels) = spent.metadata.labels.as_mut() {
            labels.insert(naming::LABEL_RESTART_COUNT.into(), "0".into());
        }
        assert!(relaunched(&[spent]).is_empty());
    }
}
