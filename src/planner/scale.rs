//! Scaling: one type's pods against a scale plan (`replicaResourceSpecs`, `createPods`,
//! `removePods`, `migratePods`; the rules are in [`crate::reconcile`]'s docs, under
//! `reconcile_pods`), and carrying a whole plan out.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

use super::{Planner, plan_status_action};
use crate::api::{JobConditionType, PodMeta, ReplicaType, ResourceList, ScalePlan};
use crate::error::Result;
use crate::template::TaskMeta;
use crate::{job, naming, pod};

impl<'a> Planner<'a> {
    /// Creates, deletes and migrates the pods of one task type so the job matches `plan`.
    pub(crate) fn reconcile_type(&mut self, replica_type: ReplicaType, plan: &ScalePlan) -> Result<()> {
        let job = self.job.name();
        let spec = &plan.spec;
        let mine = |m: &&PodMeta| m.replica_type() == Some(replica_type);
        let removed: BTreeSet<String> = spec.remove_pods.iter().filter(mine).filter_map(|m| m.pod_name(job)).collect();
        let create_ranks: BTreeSet<i32> = spec.create_pods.iter().filter(mine).map(|m| m.rank_index).collect();
        let migrate_to: BTreeMap<String, &ResourceList> =
            spec.migrate_pods.iter().filter(mine).map(|m| (m.name.clone(), &m.resource)).collect();
        let target = spec.replica_resource_specs.get(&replica_type);

        // Live ranks, not counting pods the plan removes.
        let mut ranks: BTreeMap<i32, Vec<&'a Pod>> = BTreeMap::new();
        for p in self.live(replica_type) {
            if removed.contains(pod::name(p)) {
                continue;
            }
            if let Some(rank) = pod::pod_rank(p) {
                ranks.entry(rank).or_default().push(p);
            }
        }
        if let Some(target) = target {
            let counted: Vec<i32> = ranks.keys().copied().filter(|r| !create_ranks.contains(r)).collect();
            let want = usize::try_from(target.replicas).unwrap_or(0);
            if want < counted.len() {
                let mut excess = counted.len() - want;
                for rank in counted.iter().rev() {
                    if excess == 0 {
                        break;
                    }
                    let stoppable: Vec<&Pod> =
                        ranks.get(rank).into_iter().flatten().copied().filter(|p| pod::is_stoppable(p)).collect();
                    if stoppable.is_empty() {
                        continue;
                    }
                    for p in stoppable {
                        self.delete(p, format!("scale {replica_type} down to {want}: rank {rank} is removed"));
                    }
                    excess -= 1;
                }
            } else if want > counted.len() {
                let held: BTreeSet<i32> = ranks.keys().copied().chain(create_ranks.iter().copied()).collect();
                let free: Vec<i32> = (0..).filter(|r| !held.contains(r)).take(want - counted.len()).collect();
                for rank in free {
                    if self.deferred {
                        break;
                    }
                    let id = self.alloc_id(replica_type)?;
                    let name = naming::task_pod_name(job, replica_type, i64::from(id));
                    let resource = migrate_to.get(&name).copied().unwrap_or(&target.resource).clone();
                    let restarts_left = job::restart_count(self.job, replica_type);
                    let meta = TaskMeta { id, rank, resource, restarts_left };
                    self.create_task(replica_type, meta, None, format!("scale {replica_type} up to {want}"))?;
                }
            }
        }
        for meta in spec.create_pods.iter().filter(mine) {
            let Some(name) = meta.pod_name(job) else { continue };
            if self.exists(&name)
                || ranks.contains_key(&meta.rank_index)
                || self.created.contains(&(replica_type, meta.rank_index))
            {
                continue;
            }
            let resource = if meta.resource.is_empty() {
                target.map(|t| t.resource.clone()).unwrap_or_default()
            } else {
                meta.resource.clone()
            };
            let next = self.next_ids.entry(replica_type).or_default();
            *next = (*next).max(i64::from(meta.id) + 1);
            let task = TaskMeta {
                id: meta.id,
                rank: meta.rank_index,
                resource,
                restarts_left: job::restart_count(self.job, replica_type),
            };
            self.create_task(replica_type, task, None, "listed in the plan's createPods".to_owned())?;
        }
        for name in &removed {
            let found =
                self.of_type(replica_type).iter().copied().find(|p| pod::name(p) == name && !pod::is_terminating(p));
            if let Some(p) = found {
                self.delete(p, "listed in the plan's removePods".to_owned());
            }
        }
        for (name, resource) in migrate_to {
            self.migrate(replica_type, &name, resource)?;
        }
        Ok(())
    }

    /// Replaces the live pod `name` by one with the same rank and `resource`, then deletes it once
    /// the replacement runs.
    fn migrate(&mut self, replica_type: ReplicaType, name: &str, resource: &ResourceList) -> Result<()> {
        let Some(old) = self.live(replica_type).find(|p| pod::name(p) == name) else { return Ok(()) };
        if pod::has_resource(old, resource) {
            return Ok(());
        }
        let Some(rank) = pod::pod_rank(old) else { return Ok(()) };
        let replacement = self
            .live(replica_type)
            .find(|p| pod::name(p) != name && pod::pod_rank(p) == Some(rank) && pod::has_resource(p, resource));
        match replacement {
            None if !self.created.contains(&(replica_type, rank)) => {
                let id = self.alloc_id(replica_type)?;
                let restarts_left =
                    pod::restarts_left(old).unwrap_or_else(|| job::restart_count(self.job, replica_type));
                let mut new_resource = pod::resource(old);
                new_resource.extend(resource.iter().map(|(k, v)| (k.clone(), v.clone())));
                let meta = TaskMeta { id, rank, resource: new_resource, restarts_left };
                let tf_config = pod::tf_config(old).map(str::to_owned);
                self.create_task(replica_type, meta, tf_config, format!("migrate {name} to a new resource"))?;
            }
            Some(new) if pod::pod_phase(new) == Some("Running") => {
                let reason = format!("migrated: its replacement {} runs", pod::name(new));
                self.delete(old, reason);
            }
            _ => {}
        }
        Ok(())
    }

    /// Carries out a scale plan: `Scaling`, every task type, then `Succeeded` unless pods were left
    /// for the next pass.
    pub(super) fn execute(&mut self, plan: &ScalePlan, now: &Time) -> Result<()> {
        let before = plan.status.clone().unwrap_or_default();
        let mut status = before.clone();
        status.phase = Some(JobConditionType::Scaling);
        if status != before {
            self.actions.push(plan_status_action(plan, status.clone()));
        }
        for replica_type in ReplicaType::TASKS {
            self.reconcile_type(replica_type, plan)?;
        }
        if !self.deferred {
            status.phase = Some(JobConditionType::Succeeded);
            status.finish_time = Some(now.clone());
            self.actions.push(plan_status_action(plan, status));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{job, task};
    use super::*;
    use crate::api::ReplicaResourceSpec;
    use crate::plan::Action;
    use crate::template::Options;

    fn plan(workers: i32) -> ScalePlan {
        let mut plan = ScalePlan::default();
        plan.spec
            .replica_resource_specs
            .insert(ReplicaType::Worker, ReplicaResourceSpec { replicas: workers, ..Default::default() });
        plan
    }

    fn run(pods: &[Pod], plan: &ScalePlan) -> (Vec<String>, Vec<String>) {
        let j = job();
        let options = Options::default();
        let Ok(mut planner) = Planner::new(&j, &options, pods, plan) else { return Default::default() };
        if planner.reconcile_type(ReplicaType::Worker, plan).is_err() {
            return Default::default();
        }
        let plan = planner.finish();
        let created = plan.created_pods().map(|p| pod::name(p).to_owned()).collect();
        (created, plan.deleted_pods().map(str::to_owned).collect())
    }

    #[test]
    fn scale_up_fills_the_lowest_free_ranks_with_new_ids() {
        let pods = [task(ReplicaType::Worker, 0, 0, "Running"), task(ReplicaType::Worker, 5, 2, "Running")];
        let (created, deleted) = run(&pods, &plan(4));
        assert_eq!(created, ["j-edljob-worker-6", "j-edljob-worker-7"]);
        assert!(deleted.is_empty());
    }

    #[test]
    fn scale_down_removes_the_highest_ranks() {
        let pods = [
            task(ReplicaType::Worker, 0, 0, "Running"),
            task(ReplicaType::Worker, 1, 1, "Pending"),
            task(ReplicaType::Worker, 2, 2, "Running"),
        ];
        let (created, deleted) = run(&pods, &plan(1));
        assert!(created.is_empty());
        assert_eq!(deleted, ["j-edljob-worker-2", "j-edljob-worker-1"]);
    }

    #[test]
    fn a_migration_waits_for_its_replacement_to_run() {
        let mut p = plan(1);
        let resource: ResourceList =
            [("memory".to_owned(), k8s_openapi::apimachinery::pkg::api::resource::Quantity("2Gi".into()))].into();
        p.spec.migrate_pods.push(PodMeta { name: "j-edljob-worker-0".into(), resource, ..Default::default() });
        let old = task(ReplicaType::Worker, 0, 0, "Running");
        let (created, deleted) = run(std::slice::from_ref(&old), &p);
        assert_eq!((created.as_slice(), deleted.as_slice()), (&["j-edljob-worker-1".to_owned()][..], &[][..]));
        let mut new = task(ReplicaType::Worker, 1, 0, "Running");
        if let Some(c) = new.spec.as_mut().and_then(|s| s.containers.first_mut()) {
            c.resources = serde_json::from_value(serde_json::json!({"requests": {"memory": "2Gi"}})).ok();
        }
        let (created, deleted) = run(&[old, new], &p);
        assert_eq!((created.as_slice(), deleted.as_slice()), (&[][..], &["j-edljob-worker-0".to_owned()][..]));
    }

    #[test]
    fn executing_a_plan_marks_it_scaling_then_succeeded() {
        let j = job();
        let options = Options::default();
        let mut p = plan(2);
        p.metadata.name = Some("p".into());
        let Ok(mut planner) = Planner::new(&j, &options, &[], &p) else { panic!("planner") };
        let now = Time(jiff::Timestamp::UNIX_EPOCH);
        assert!(planner.execute(&p, &now).is_ok());
        let phases: Vec<_> = planner
            .finish()
            .actions
            .iter()
            .filter_map(|a| match a {
                Action::SetScalePlanStatus { status, .. } => status.phase,
                _ => None,
            })
            .collect();
        assert_eq!(phases, [JobConditionType::Scaling, JobConditionType::Succeeded]);
    }
}
