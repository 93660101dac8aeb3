//! Scaling: one type's pods against a scale plan (`replicaResourceSpecs`, `createPods`,
//! `removePods`, `migratePods`; the rules are in [`crate::reconcile`]'s docs, under
//! `reconcile_pods`), and carrying a whole plan out.

use std::collections::{BTreeMap, BTreeSet};

use crate::podspec::Pod;
use crate::podspec::Time;

use super::{NewId, Planner, plan_status_action};
use crate::api::{JobConditionType, PodMeta, ReplicaType, ResourceList, ScalePlan};
use crate::error::Result;
use crate::plan::Cause;
use crate::template::TaskMeta;
use crate::{job, naming, pod, sorted};

impl<'a> Planner<'a> {
    /// Creates, deletes and migrates the pods of one task type so the job matches `plan`.
    pub(crate) fn reconcile_type(&mut self, replica_type: ReplicaType, plan: &ScalePlan) -> Result<()> {
        let job = self.job.name();
        let spec = &plan.spec;
        let mine = |m: &&PodMeta| m.replica_type() == Some(replica_type);
        let removed: BTreeSet<String> =
            sorted::set(spec.remove_pods.iter().filter(mine).filter_map(|m| m.pod_name(job)));
        let create_ranks: BTreeSet<i32> = sorted::set(spec.create_pods.iter().filter(mine).map(|m| m.rank_index));
        let migrate_to: BTreeMap<String, &ResourceList> =
            sorted::map(spec.migrate_pods.iter().filter(mine).map(|m| (m.name.clone(), &m.resource)));
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
            // `replicas` is the total once the plan is carried out: the live ranks it keeps, the
            // ranks its createPods entries fill, and the ranks below it whose pod failed: their
            // relaunch is DLRover's master's (a relaunch plan), so a scale-up does not fill them.
            let want = usize::try_from(target.replicas).unwrap_or(0);
            let failed =
                self.failed_ranks(replica_type, &removed).filter(|r| usize::try_from(*r).is_ok_and(|r| r < want));
            let total: BTreeSet<i32> =
                sorted::set(ranks.keys().copied().chain(create_ranks.iter().copied()).chain(failed));
            if want < total.len() {
                // Scale down from the highest ranks, never one the plan itself creates.
                let mut excess = total.len() - want;
                for (rank, pods) in ranks.iter().rev() {
                    if excess == 0 {
                        break;
                    }
                    let stoppable: Vec<&Pod> = pods.iter().copied().filter(|p| pod::is_stoppable(p)).collect();
                    if create_ranks.contains(rank) || stoppable.is_empty() {
                        continue;
                    }
                    let why = format!("scale {replica_type} down to {want}: rank {rank} is removed");
                    for p in stoppable {
                        self.delete(p, why.clone(), Cause::ScaleDown);
                    }
                    self.delete_service(replica_type, *rank, why, Cause::ScaleDown);
                    excess -= 1;
                }
            } else if want > total.len() {
                let free: Vec<i32> = (0..).filter(|r| !total.contains(r)).take(want - total.len()).collect();
                for rank in free {
                    if self.deferred {
                        break;
                    }
                    let id = self.alloc_id(replica_type, NewId::ScaleUp)?;
                    let name = naming::task_pod_name(job, replica_type, i64::from(id));
                    let resource = with_migration(target.resource.clone(), migrate_to.get(&name).copied());
                    let (restarts_left, relaunches) = self.succession(replica_type, rank);
                    let meta = TaskMeta { id, rank, resource, restarts_left, relaunches, service: None };
                    self.create_task(
                        replica_type,
                        meta,
                        None,
                        format!("scale {replica_type} up to {want}"),
                        Cause::ScaleUp,
                    )?;
                }
            }
        }
        // Each createPods entry as written: its name, id, rank and service address, even while
        // another pod holds its rank (a PS migration runs the new PS beside the old one).
        for meta in spec.create_pods.iter().filter(mine) {
            let (Some(name), Some(id)) = (meta.pod_name(job), meta.id) else { continue };
            if self.exists(&name) {
                continue;
            }
            let listed = if meta.resource.is_empty() {
                target.map(|t| t.resource.clone()).unwrap_or_default()
            } else {
                meta.resource.clone()
            };
            let resource = with_migration(listed, migrate_to.get(&name).copied());
            let next = self.next_ids.entry(replica_type).or_default();
            *next = (*next).max(i64::from(id) + 1);
            let (restarts_left, relaunches) = self.succession(replica_type, meta.rank_index);
            let task = TaskMeta {
                id,
                rank: meta.rank_index,
                resource,
                restarts_left,
                relaunches,
                service: (!meta.service.is_empty()).then(|| meta.service.clone()),
            };
            self.create_task(replica_type, task, None, "listed in the plan's createPods".to_owned(), Cause::Planned)?;
        }
        for name in &removed {
            let found =
                self.of_type(replica_type).iter().copied().find(|p| pod::name(p) == name && !pod::is_terminating(p));
            if let Some(p) = found {
                self.delete(p, "listed in the plan's removePods".to_owned(), Cause::Planned);
            }
        }
        for (name, resource) in migrate_to {
            self.migrate(replica_type, &name, resource, &create_ranks)?;
        }
        Ok(())
    }

    /// Replaces the pod `name`, Running or Pending, by one with the same rank and `resource`, then
    /// deletes it once the replacement runs. A rank the plan's `createPods` fills (`create_ranks`)
    /// has its replacement there (the plan removes the old pod when it means to), and a rank the
    /// plan scales away gets none. A pod that has Succeeded runs no more and is not replaced: its
    /// replacement would run its task again, and count as a rank the scale-down stops.
    fn migrate(
        &mut self,
        replica_type: ReplicaType,
        name: &str,
        resource: &ResourceList,
        create_ranks: &BTreeSet<i32>,
    ) -> Result<()> {
        let Some(old) = self.live(replica_type).find(|p| pod::name(p) == name && pod::is_stoppable(p)) else {
            return Ok(());
        };
        if pod::has_resource(old, resource) {
            return Ok(());
        }
        // A rank the plan fills through createPods has its replacement there; a rank at or above
        // the type's target is being scaled away, and a replacement would only be deleted again.
        let target = self.target(replica_type);
        let kept = |r: &i32| !create_ranks.contains(r) && target.is_none_or(|n| *r < n);
        let Some(rank) = pod::pod_rank(old).filter(kept) else { return Ok(()) };
        let replacement = self
            .live(replica_type)
            .find(|p| pod::name(p) != name && pod::pod_rank(p) == Some(rank) && pod::has_resource(p, resource));
        match replacement {
            None if !self.created.get(&replica_type).is_some_and(|r| r.contains(&rank)) => {
                let id = self.alloc_id(replica_type, NewId::Replacement)?;
                let restarts_left =
                    pod::restarts_left(old).unwrap_or_else(|| job::restart_count(self.job, replica_type));
                let relaunches = pod::relaunch_count(old).unwrap_or(0);
                let new_resource = with_migration(pod::resource(old), Some(resource));
                let meta = TaskMeta { id, rank, resource: new_resource, restarts_left, relaunches, service: None };
                let tf_config = pod::tf_config(old).map(str::to_owned);
                if tf_config.is_none() && !self.can_list(replica_type, rank) {
                    // A pod this operator did not make at a rank the plan has no address for.
                    return Ok(());
                }
                self.create_task(
                    replica_type,
                    meta,
                    tf_config,
                    format!("migrate {name} to a new resource"),
                    Cause::Migration,
                )?;
            }
            Some(new) if pod::pod_phase(new) == "Running" => {
                let reason = format!("migrated: its replacement {} runs", pod::name(new));
                self.delete(old, reason, Cause::Migration);
            }
            _ => {}
        }
        Ok(())
    }

    /// Carries out a scale plan: every task type, then the plan's status, written once: `Succeeded`
    /// with a finish time, or `Scaling` while pods are left for the next pass.
    pub(super) fn execute(&mut self, plan: &ScalePlan, now: &Time) -> Result<()> {
        let before = plan.status.clone().unwrap_or_default();
        for replica_type in ReplicaType::TASKS {
            self.reconcile_type(replica_type, plan)?;
        }
        // One write of the plan's status per pass: where this pass leaves it.
        let mut status = before.clone();
        if self.deferred || self.quota_wait {
            status.phase = Some(JobConditionType::Scaling);
        } else {
            status.phase = Some(JobConditionType::Succeeded);
            status.finish_time = Some(now.clone());
        }
        if status != before {
            self.actions.push(plan_status_action(plan, status));
        }
        Ok(())
    }
}

/// `resource` with what a `migratePods` entry gives in place of its own values: a migration to more
/// memory keeps the pod's cpu.
fn with_migration(mut resource: ResourceList, migration: Option<&ResourceList>) -> ResourceList {
    if let Some(migration) = migration {
        resource.extend(migration.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    resource
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

    fn memory(m: &str) -> ResourceList {
        [("memory".to_owned(), k8s_openapi::apimachinery::pkg::api::resource::Quantity(m.into()))].into()
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

    /// Found by the property test `reconcile_pods_converges` (its regression file keeps the case):
    /// a rank whose pod failed (worker-2) and was relaunched (worker-3), the relaunched pod removed
    /// by the plan. The rank is read as the failed pod leaves it before and after the removal, so
    /// the first pass fills ranks 0 to 2 and the next pass, the removed pod gone, plans nothing;
    /// the rank was free for the first pass and failed for the next, which then deleted rank 5.
    #[test]
    fn a_rank_whose_relaunched_pod_the_plan_removes_is_read_the_same_before_and_after() {
        let mut p = plan(5);
        p.spec.remove_pods.push(PodMeta {
            name: "j-edljob-worker-3".into(),
            id: Some(3),
            type_: Some(ReplicaType::Worker),
            ..Default::default()
        });
        let before = [
            task(ReplicaType::Worker, 2, 4, "Failed"),
            task(ReplicaType::Worker, 3, 4, "Pending"),
            task(ReplicaType::Worker, 4, 5, "Pending"),
        ];
        let (created, deleted) = run(&before, &p);
        assert_eq!(created, ["j-edljob-worker-5", "j-edljob-worker-6", "j-edljob-worker-7"]);
        assert_eq!(deleted, ["j-edljob-worker-3"]);
        let after = [
            task(ReplicaType::Worker, 2, 4, "Failed"),
            task(ReplicaType::Worker, 4, 5, "Pending"),
            task(ReplicaType::Worker, 5, 0, "Pending"),
            task(ReplicaType::Worker, 6, 1, "Pending"),
            task(ReplicaType::Worker, 7, 2, "Pending"),
        ];
        assert_eq!(run(&after, &p), (vec![], vec![]));
    }

    #[test]
    fn a_migration_waits_for_its_replacement_to_run() {
        let mut p = plan(1);
        let resource = memory("2Gi");
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
    fn a_replacement_takes_no_name_the_plan_migrates() {
        // worker-0 migrates to 2Gi; worker-1, which does not exist, to 4Gi. Had the replacement of
        // worker-0 been worker-1, with 2Gi, the next pass would migrate it again.
        let mut p = plan(1);
        for (name, m) in [("j-edljob-worker-0", "2Gi"), ("j-edljob-worker-1", "4Gi")] {
            p.spec.migrate_pods.push(PodMeta { name: name.into(), resource: memory(m), ..Default::default() });
        }
        let old = task(ReplicaType::Worker, 0, 0, "Running");
        let j = job();
        let options = Options::default();
        let Ok(mut planner) = Planner::new(&j, &options, std::slice::from_ref(&old), &p) else { panic!("planner") };
        assert!(planner.reconcile_type(ReplicaType::Worker, &p).is_ok());
        let created: Vec<_> = planner
            .finish()
            .created_pods()
            .map(|p| (pod::name(p).to_owned(), pod::pod_rank(p), pod::resource(p).get("memory").map(|q| q.0.clone())))
            .collect();
        assert_eq!(created, [("j-edljob-worker-2".to_owned(), Some(0), Some("2Gi".to_owned()))]);
    }

    #[test]
    fn a_pod_the_plan_creates_and_migrates_is_created_with_the_new_resource() {
        let mut p = plan(2);
        p.spec.create_pods.push(PodMeta {
            name: "j-edljob-worker-5".into(),
            id: Some(5),
            rank_index: 1,
            type_: Some(ReplicaType::Worker),
            resource: memory("1Gi"),
            ..Default::default()
        });
        p.spec.migrate_pods.push(PodMeta {
            name: "j-edljob-worker-5".into(),
            resource: memory("2Gi"),
            ..Default::default()
        });
        let j = job();
        let options = Options::default();
        let pods = [task(ReplicaType::Worker, 0, 0, "Running")];
        let Ok(mut planner) = Planner::new(&j, &options, &pods, &p) else { panic!("planner") };
        assert!(planner.reconcile_type(ReplicaType::Worker, &p).is_ok());
        let created: Vec<_> = planner
            .finish()
            .created_pods()
            .map(|p| (pod::name(p).to_owned(), pod::resource(p).get("memory").map(|q| q.0.clone())))
            .collect();
        assert_eq!(created, [("j-edljob-worker-5".to_owned(), Some("2Gi".to_owned()))]);
    }

    #[test]
    fn a_migration_brings_back_no_rank_the_plan_scales_away() {
        let mut p = plan(0);
        let resource = memory("2Gi");
        p.spec.migrate_pods.push(PodMeta { name: "j-edljob-worker-0".into(), resource, ..Default::default() });
        // A Succeeded pod cannot be stopped, so it stays; it gets no replacement either.
        let done = task(ReplicaType::Worker, 0, 0, "Succeeded");
        assert_eq!(run(&[done], &p), (Vec::new(), Vec::new()));
    }

    #[test]
    fn executing_a_plan_writes_its_status_once() {
        let j = job();
        let options = Options::default();
        let mut p = plan(2);
        p.metadata.name = Some("p".into());
        let Ok(mut planner) = Planner::new(&j, &options, &[], &p) else { panic!("planner") };
        let now = Time::UNIX_EPOCH;
        assert!(planner.execute(&p, &now).is_ok());
        let phases: Vec<_> = planner
            .finish()
            .actions()
            .filter_map(|a| match a {
                Action::SetScalePlanStatus { status, .. } => status.phase,
                _ => None,
            })
            .collect();
        assert_eq!(phases, [JobConditionType::Succeeded]);
    }

    /// The relaunch plan DLRover's master writes for a failed worker: one `createPods` entry at its
    /// rank, no target, the PS addresses as the master writes them.
    fn relaunch_plan(id: i32, rank: i32) -> ScalePlan {
        let mut plan = ScalePlan::default();
        plan.spec.create_pods.push(PodMeta {
            name: naming::task_pod_name("j", ReplicaType::Worker, id.into()),
            id: Some(id),
            type_: Some(ReplicaType::Worker),
            rank_index: rank,
            service: format!("j-edljob-worker-{rank}.ns.svc:3333"),
            resource: memory("1Gi"),
        });
        plan.spec.ps_hosts = vec!["j-edljob-ps-0.ns.svc:2222".into()];
        plan
    }

    fn created_label(plan: &crate::plan::Plan, key: &str) -> Vec<String> {
        plan.created_pods().filter_map(|p| pod::label(p, key).map(str::to_owned)).collect()
    }

    #[test]
    fn a_relaunch_counts_one_relaunch_more_and_lists_the_cluster_as_it_is() {
        let j = job();
        let options = Options::default();
        let mut failed = task(ReplicaType::Worker, 1, 1, "Failed");
        if let Some(labels) = failed.metadata.labels.as_mut() {
            labels.insert(naming::LABEL_RELAUNCH_COUNT.into(), "2".into());
        }
        // The master's first plan made a chief the spec does not have: it runs.
        let pods = [task(ReplicaType::Chief, 0, 0, "Running"), task(ReplicaType::Worker, 0, 0, "Running"), failed];
        let plan = relaunch_plan(3, 1);
        let Ok(mut planner) = Planner::new(&j, &options, &pods, &plan) else { panic!("planner") };
        assert!(planner.reconcile_type(ReplicaType::Worker, &plan).is_ok());
        let out = planner.finish();
        assert_eq!(out.created_pods().map(|p| pod::name(p).to_owned()).collect::<Vec<_>>(), ["j-edljob-worker-3"]);
        assert_eq!(created_label(&out, naming::LABEL_RELAUNCH_COUNT), ["3"]);
        assert_eq!(created_label(&out, naming::LABEL_RESTART_COUNT), ["0"]);
        assert_eq!(
            out.created_pods().filter_map(pod::tf_config).collect::<Vec<_>>(),
            [
                r#"{"cluster":{"worker":["j-edljob-worker-0:3333","j-edljob-worker-1:3333"],"ps":["j-edljob-ps-0.ns.svc:2222"],"chief":["j-edljob-chief-0:3333"]},"task":{"type":"worker","index":1}}"#
            ]
        );
    }

    #[test]
    fn a_first_launch_counts_no_relaunch_and_a_migration_keeps_the_count() {
        let (created, _) = run(&[], &plan(1));
        assert_eq!(created, ["j-edljob-worker-0"]);
        let j = job();
        let options = Options::default();
        let Ok(mut planner) = Planner::new(&j, &options, &[], &plan(1)) else { panic!("planner") };
        assert!(planner.reconcile_type(ReplicaType::Worker, &plan(1)).is_ok());
        let out = planner.finish();
        assert_eq!(created_label(&out, naming::LABEL_RELAUNCH_COUNT), ["0"]);
        assert_eq!(created_label(&out, naming::LABEL_RESTART_COUNT), ["1"], "the replica's restartCount");

        let mut old = task(ReplicaType::Worker, 0, 0, "Running");
        if let Some(labels) = old.metadata.labels.as_mut() {
            labels.insert(naming::LABEL_RELAUNCH_COUNT.into(), "4".into());
        }
        let mut migrate = ScalePlan::default();
        migrate.spec.migrate_pods.push(PodMeta {
            name: "j-edljob-worker-0".into(),
            resource: memory("2Gi"),
            ..Default::default()
        });
        let pods = [old];
        let Ok(mut planner) = Planner::new(&j, &options, &pods, &migrate) else { panic!("planner") };
        assert!(planner.reconcile_type(ReplicaType::Worker, &migrate).is_ok());
        assert_eq!(created_label(&planner.finish(), naming::LABEL_RELAUNCH_COUNT), ["4"], "a migration is no relaunch");
    }
}
