//! The planner: the state of one planning pass over one job, and the bookkeeping every decision
//! shares (which pods exist, which this plan creates or deletes, which ids are taken, how many
//! `TF_CONFIG` addresses the new pods list).
//!
//! Each concern has its own file and adds its own methods to [`Planner`]:
//! - [`scale`]: a type's pods against a scale plan (`replicaResourceSpecs`, `createPods`,
//!   `removePods`, `migratePods`), and carrying a whole plan out;
//! - [`lifecycle`]: the job state machine and the scale-plan controller, recreating a missing
//!   master, stopping pods, and counting pods into the job status;
//! - [`services`]: the job's services against those observed: the missing ones made again, those
//!   of ranks that are gone deleted;
//! - [`run_policy`]: Kubeflow's run policy: the deadline and backoff limit that fail a job, the
//!   pods a finished job deletes, the job deleted after its TTL, and when it next needs a pass.
//!
//! Crate-private: the public operations in [`crate::reconcile`] and [`crate::render`] validate
//! their input, make a planner, ask it for one decision and return its plan.

mod chain;
mod gang;
mod kueue;
mod lifecycle;
mod run_policy;
mod scale;
mod services;
mod slices;

use std::collections::{BTreeMap, BTreeSet};

use crate::podspec::Pod;
use crate::podspec::Service;
use crate::podspec::Time;

pub(crate) use chain::controller_pass;
pub(crate) use lifecycle::{STOP_REASON, claim_pods, plan_order, scale_plan_pass, takes_part};
pub(crate) use services::ObservedServices;

use crate::api::{
    DistributionStrategy, ElasticJob, ElasticJobStatus, ReplicaSpec, ReplicaType, ScalePlan, ScalePlanStatus, TypeMap,
};
use crate::error::{Code, Error, Result, into_result};
use crate::plan::{Action, Cause, Event, Plan};
use crate::podgroup::PodGroup;
use crate::queue::QueueState;
use crate::sorted::Names;
use crate::template::{self, Options, PodFactory, TaskMeta};
use crate::tfconfig::Marked;
use crate::validate::{self, MAX_TF_CONFIG_HOSTS};
use crate::{job, naming, pod, sorted};

/// What a host observed of one job for a controller pass: the job (`None` when it does not exist
/// (yet)), its ScalePlans, pods and services.
#[derive(Clone, Copy)]
pub(crate) struct Observed<'a> {
    pub(crate) job: Option<&'a ElasticJob>,
    pub(crate) plans: &'a [ScalePlan],
    pub(crate) pods: &'a [Pod],
    pub(crate) services: &'a [Service],
}

/// What a host observed of the schedulers that gate a job's pods, for
/// [`crate::controller_pass_queued`]: Kueue's state, and the gang scheduler's PodGroup.
#[derive(Clone, Copy, Debug, Default)]
pub struct Gates<'a> {
    /// What the host observed of Kueue for the job, when it runs with Kueue; `None`: the
    /// `queue-name` label is not looked at.
    pub queue: Option<&'a QueueState<'a>>,
    /// The job's PodGroup (named after the job, of its gang scheduler's API group) as the cluster
    /// has it; `None` when there is none (yet), or the job has no gang scheduler.
    pub pod_group: Option<&'a PodGroup>,
}

/// What a new pod id is for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum NewId {
    /// A pod that fills a free rank. It may take a name the plan migrates: that pod does not
    /// exist, and the new one gets the resource the plan gives it.
    ScaleUp,
    /// The replacement of a migrated pod, which gets the migration's resource over the old pod's. Under a name the plan migrates it would be migrated again on the next pass.
    Replacement,
}

/// The state of one planning pass: the observed pods of the job and what this plan already did.
pub(crate) struct Planner<'a> {
    job: &'a ElasticJob,
    options: &'a Options,
    factory: PodFactory<'a>,
    /// The job's pods by type (by the job-name label), in input order.
    pods: TypeMap<Vec<&'a Pod>>,
    /// The job's newest pod (by id) at each type and rank: what a new pod there follows.
    newest: TypeMap<BTreeMap<i32, &'a Pod>>,
    /// Every observed pod name, the job's or not: a new pod must not take one.
    names: Names<'a>,
    /// Names the scale plan lists to create or remove: a new id must not take one, or the next
    /// pass would act on the new pod.
    reserved: BTreeSet<String>,
    /// Names the scale plan migrates: only a scale-up may take one (that pod does not exist yet
    /// and is created under its name, with its new resource); see [`NewId`].
    migrating: BTreeSet<String>,
    actions: Vec<Action>,
    deleted: BTreeSet<String>,
    /// Pods created by this plan: their ranks by type, and their names.
    created: TypeMap<BTreeSet<i32>>,
    created_names: BTreeSet<String>,
    /// Services this plan creates or updates, by name.
    services: BTreeSet<String>,
    /// Services this plan deletes, by name.
    deleted_services: BTreeSet<String>,
    /// The services observed, when the pass keeps them ([`Planner::observe_services`]).
    observed_services: Option<ObservedServices<'a>>,
    next_ids: TypeMap<i64>,
    /// Addresses listed by the TF_CONFIGs of the pods created so far.
    tf_hosts: u64,
    /// Whether some pods were left for the next pass to keep within [`MAX_TF_CONFIG_HOSTS`].
    deferred: bool,
    /// Whether the plan waits for Kueue to admit a new Workload slice: carried out within the
    /// admission, it stays in progress (`Scaling`) until the slice is admitted.
    pub(crate) quota_wait: bool,
    /// Each task type's target count: the plan's `replicas`, else the spec's.
    targets: TypeMap<i32>,
    /// Why a queued job is held suspended (Kueue has not admitted it, or evicted it): the reason
    /// and message of its `Suspended` condition and of its pods' deletion; `None` for
    /// `spec.suspend` set by a person.
    hold: Option<kueue::Hold>,
    /// Why the job's task pods wait for its gang scheduler (Volcano has not admitted its PodGroup):
    /// none is made in this pass, and the job's `GangPending` condition says why.
    gang_wait: Option<(&'static str, String)>,
    /// The cause of the job status this pass writes and what to tell once it is written, when not
    /// a plain status write (a run-policy limit that fails the job).
    status_write: Option<(Cause, Event)>,
    /// When the job next needs a pass (its deadline or TTL), as [`Plan::requeue_at`] says.
    requeue_at: Option<Time>,
    /// The pods the job's plans not carried out yet list in their `removePods`: a finished job
    /// whose `cleanPodPolicy` keeps its pods deletes these all the same (DLRover's master's last
    /// plan removes every pod).
    planned_removals: BTreeSet<String>,
}

impl<'a> Planner<'a> {
    /// A planner for `job` with `pods` observed; `layout_plan` is the plan whose cluster the new
    /// pods' `TF_CONFIG`s describe.
    ///
    /// # Errors
    /// [`Code::TooLarge`] when more pods are observed than the core plans with.
    pub(crate) fn new(
        job: &'a ElasticJob,
        options: &'a Options,
        pods: &'a [Pod],
        layout_plan: &ScalePlan,
    ) -> Result<Self> {
        validate::check_observed_pods(pods.len())?;
        let mut problems = template::account_problems(job, options);
        problems.extend(crate::gang::check(job, options));
        into_result(problems)?;
        let name = job.name();
        let mut by_type: TypeMap<Vec<&Pod>> = TypeMap::new();
        let mut next_ids: TypeMap<i64> = TypeMap::new();
        for p in pods {
            if pod::label(p, naming::LABEL_JOB_NAME) != Some(name) {
                continue;
            }
            let replica_type = pod::pod_type(p)
                .or_else(|| (pod::name(p) == naming::master_name(name)).then_some(ReplicaType::DlroverMaster));
            let Some(replica_type) = replica_type else { continue };
            by_type.entry(replica_type).or_default().push(p);
            if let Some(id) = pod::pod_id(p) {
                let next = next_ids.entry(replica_type).or_default();
                *next = (*next).max(i64::from(id) + 1);
            }
        }
        let newest = by_type.iter().map(|(t, pods)| (*t, newest_by_rank(pods.iter().copied()))).collect();
        Ok(Planner {
            job,
            options,
            factory: PodFactory::new(job, layout_plan, pods, template::gang(job, options)),
            pods: by_type,
            newest,
            names: Names::of(pods.iter().map(pod::name)),
            reserved: sorted::set(
                [&layout_plan.spec.create_pods, &layout_plan.spec.remove_pods]
                    .into_iter()
                    .flatten()
                    .filter_map(|m| m.pod_name(name)),
            ),
            migrating: sorted::set(layout_plan.spec.migrate_pods.iter().map(|m| m.name.clone())),
            actions: Vec::new(),
            deleted: BTreeSet::new(),
            created: TypeMap::new(),
            created_names: BTreeSet::new(),
            services: BTreeSet::new(),
            deleted_services: BTreeSet::new(),
            observed_services: None,
            next_ids,
            tf_hosts: 0,
            deferred: false,
            quota_wait: false,
            targets: ReplicaType::TASKS.into_iter().filter_map(|t| Some((t, target(job, layout_plan, t)?))).collect(),
            hold: None,
            gang_wait: None,
            status_write: None,
            requeue_at: None,
            planned_removals: BTreeSet::new(),
        })
    }

    /// The plan made so far, in its phases.
    pub(crate) fn finish(self) -> Plan {
        Plan::from_actions(self.actions).requeued_at(self.requeue_at)
    }

    /// The actions made so far in the order they were decided (each pod before its service), for
    /// a preview that lists objects rather than carrying them out, and the `TF_CONFIG`s marked in
    /// their pods when the planner marks them (see [`Planner::with_marked_tf_configs`]).
    pub(crate) fn into_actions_and_marks(self) -> (Vec<Action>, Option<Marked>) {
        (self.actions, self.factory.into_marked())
    }

    /// Pods this planner makes get a mark for their `TF_CONFIG` (see [`Marked`]).
    pub(crate) fn with_marked_tf_configs(&mut self) {
        self.factory.with_marked_tf_configs();
    }

    /// Pods this planner makes get an empty `TF_CONFIG` (see [`PodFactory`]).
    pub(crate) fn without_tf_config_values(&mut self) {
        self.factory.without_tf_config_values();
    }

    /// Whether some pods were left for a later pass to keep within [`MAX_TF_CONFIG_HOSTS`].
    pub(crate) fn deferred(&self) -> bool {
        self.deferred
    }

    /// The type's target count under this pass's plan, when the plan or the spec gives one.
    pub(crate) fn target(&self, replica_type: ReplicaType) -> Option<i32> {
        self.targets.get(&replica_type).copied()
    }

    fn of_type(&self, replica_type: ReplicaType) -> &[&'a Pod] {
        self.pods.get(&replica_type).map(Vec::as_slice).unwrap_or_default()
    }

    /// Alive and not deleted by this plan.
    fn live(&self, replica_type: ReplicaType) -> impl Iterator<Item = &'a Pod> + '_ {
        self.of_type(replica_type).iter().copied().filter(|p| pod::is_alive(p) && !self.deleted.contains(pod::name(p)))
    }

    fn exists(&self, name: &str) -> bool {
        self.names.contains(name) || self.created_names.contains(name)
    }

    /// A new pod id of the type: above every id seen, and naming no pod that exists or that the
    /// plan lists to create or remove, nor, unless `for_what` is a scale-up, one it migrates.
    fn alloc_id(&mut self, replica_type: ReplicaType, for_what: NewId) -> Result<i32> {
        let job = self.job.name();
        loop {
            let next = self.next_ids.entry(replica_type).or_default();
            let id = *next;
            *next += 1;
            let id = i32::try_from(id).map_err(|_| {
                Error::invalid(
                    "pods",
                    Code::OutOfRange,
                    format!("the {replica_type} pod ids have reached {}; no new id is left", i32::MAX),
                )
            })?;
            let name = naming::task_pod_name(job, replica_type, i64::from(id));
            let migrated = for_what == NewId::Replacement && self.migrating.contains(&name);
            if !self.exists(&name) && !self.reserved.contains(&name) && !migrated {
                return Ok(id);
            }
        }
    }

    /// The job's newest pod (by id) of a type at a rank.
    fn newest_at(&self, replica_type: ReplicaType, rank: i32) -> Option<&'a Pod> {
        self.newest.get(&replica_type).and_then(|ranks| ranks.get(&rank)).copied()
    }

    /// The `restart-count` and `relaunch-count` of a new pod at `rank`, from the newest observed pod
    /// (by id) of the type at that rank: when that one failed or is going away, one relaunch fewer
    /// left and one more made (the new pod relaunches it, as DLRover's master planned); when it is
    /// alive (a migration, a PS a plan runs anew beside the old one), the same counts; with none, a
    /// first launch: the replica's `restartCount` left and no relaunch yet.
    fn succession(&self, replica_type: ReplicaType, rank: i32) -> (i32, i32) {
        let Some(newest) = self.newest_at(replica_type, rank) else {
            return (job::restart_count(self.job, replica_type), 0);
        };
        let left = pod::restarts_left(newest).unwrap_or_else(|| job::restart_count(self.job, replica_type));
        let relaunches = pod::relaunch_count(newest).unwrap_or(0);
        if pod::is_alive(newest) {
            (left, relaunches)
        } else {
            (left.saturating_sub(1).max(0), relaunches.saturating_add(1))
        }
    }

    /// The ranks of the type whose newest pod (by id) has failed, the pods `removed` by the plan
    /// left out before the newest is chosen: a rank whose relaunched pod the plan removes is read
    /// as its older failed pod leaves it, the same while the removed pod is alive, terminating or
    /// gone, so the pass after this one plans nothing more for it.
    fn failed_ranks(
        &self,
        replica_type: ReplicaType,
        removed: &BTreeSet<String>,
    ) -> impl Iterator<Item = i32> + use<'a> {
        let kept = self.of_type(replica_type).iter().copied().filter(|p| !removed.contains(pod::name(p)));
        newest_by_rank(kept)
            .into_iter()
            .filter_map(|(rank, p)| (pod::pod_phase(p) == "Failed" && !pod::is_terminating(p)).then_some(rank))
    }

    /// Creates a task pod and its service, unless the pods of this plan already list as many
    /// `TF_CONFIG` addresses as one plan may: then it and every later pod wait for the next pass.
    fn create_task(
        &mut self,
        replica_type: ReplicaType,
        meta: TaskMeta,
        tf_config: Option<String>,
        reason: String,
        cause: Cause,
    ) -> Result<()> {
        let hosts = self.tf_hosts.saturating_add(self.factory.tf_config_hosts(replica_type, meta.rank));
        if hosts > MAX_TF_CONFIG_HOSTS || self.deferred || self.gang_wait.is_some() {
            self.deferred = true;
            return Ok(());
        }
        self.tf_hosts = hosts;
        // What the new pod follows at its rank: a pod that failed or is going away (a relaunch), one
        // alive (a migration), or none (the caller's cause).
        let follows = self.newest_at(replica_type, meta.rank);
        let (cause, event) = match follows {
            Some(old) if !pod::is_alive(old) => {
                let name = naming::task_pod_name(self.job.name(), replica_type, i64::from(meta.id));
                let message = format!("{replica_type} rank {}: {name} relaunches {}", meta.rank, pod::name(old));
                (Cause::Relaunch, Some(Event::normal("Relaunched", message)))
            }
            Some(_) => (Cause::Migration, None),
            None => (cause, None),
        };
        let new_pod = self.factory.task_pod(replica_type, &meta, tf_config)?;
        self.created.entry(replica_type).or_default().insert(meta.rank);
        self.created_names.insert(pod::name(&new_pod).to_owned());
        self.actions.push(Action::CreatePod { pod: Box::new(new_pod), reason, cause, event });
        let service = template::task_pod_service(self.job, replica_type, &meta);
        let service_name = service.metadata.name.clone().unwrap_or_default();
        if self.services.insert(service_name) {
            self.actions.push(Action::CreateOrUpdateService {
                service: Box::new(service),
                reason: format!("the address of {replica_type} rank {}", meta.rank),
                cause,
            });
        }
        Ok(())
    }

    fn delete(&mut self, p: &Pod, reason: String, cause: Cause) {
        let name = pod::name(p).to_owned();
        if self.deleted.insert(name.clone()) {
            let namespace = p.metadata.namespace.clone().or_else(|| job::namespace(self.job).map(str::to_owned));
            self.actions.push(Action::DeletePod {
                namespace: namespace.filter(|n| !n.is_empty()),
                name,
                reason,
                cause,
            });
        }
    }

    /// Deletes the service of a rank that is removed, so it does not outlive the rank until the job
    /// is deleted.
    fn delete_service(&mut self, replica_type: ReplicaType, rank: i32, reason: String, cause: Cause) {
        let name = naming::task_service_name(self.job.name(), replica_type, i64::from(rank));
        if self.deleted_services.insert(name.clone()) {
            let namespace = job::namespace(self.job).map(str::to_owned);
            self.actions.push(Action::DeleteService { namespace, name, reason, cause });
        }
    }

    /// Whether a new pod of the type at `rank` can be given a `TF_CONFIG` under this pass's plan
    /// (always, in an all-reduce job): a PS rank needs an address in the plan's `psHosts`.
    fn can_list(&self, replica_type: ReplicaType, rank: i32) -> bool {
        self.job.strategy() != DistributionStrategy::ParameterServerStrategy
            || self.factory.can_list(replica_type, rank)
    }

    /// Creates the master pod and service when the job has no master pod (and no PodGroup of the
    /// job's name that another controls would receive it).
    pub(crate) fn ensure_master(&mut self) -> Result<()> {
        if !self.of_type(ReplicaType::DlroverMaster).is_empty() || self.gang_not_controlled() {
            return Ok(());
        }
        let name = naming::master_name(self.job.name());
        if self.exists(&name) {
            return Ok(());
        }
        let master = template::master_pod(self.job, self.options)?;
        self.services.insert(name.clone());
        self.created_names.insert(name);
        let reason = "the job has no master pod".to_owned();
        self.actions.push(Action::CreatePod { pod: Box::new(master), reason, cause: Cause::Master, event: None });
        self.actions.push(Action::CreateOrUpdateService {
            service: Box::new(template::master_service(self.job)),
            reason: "the address of the job master".to_owned(),
            cause: Cause::Master,
        });
        Ok(())
    }

    /// Sets the job status when it differs from what was read.
    pub(crate) fn set_job_status(&mut self, before: &ElasticJobStatus, status: ElasticJobStatus) {
        if &status != before {
            let (cause, event) = match self.status_write.take() {
                Some((cause, event)) => (cause, Some(event)),
                None => (Cause::Status, None),
            };
            self.actions.push(Action::SetJobStatus { status, cause, event });
        }
    }
}

/// A task type's target count under a plan: the plan's `replicas` for it; else what the job has
/// and the plan adds: the spec's `replicas`, the ranks the plan's `createPods` fill and, for the
/// PS, the addresses its `psHosts` lists. `None` when nothing gives one.
fn target(job: &ElasticJob, plan: &ScalePlan, replica_type: ReplicaType) -> Option<i32> {
    if let Some(planned) = plan.spec.replica_resource_specs.get(&replica_type) {
        return Some(planned.replicas);
    }
    let spec = job.declared_replica_spec(replica_type).map(ReplicaSpec::replicas);
    let created = plan.spec.create_pods.iter().filter(|m| m.replica_type() == Some(replica_type));
    let created = created.map(|m| m.rank_index.saturating_add(1)).max();
    let hosts = (replica_type == ReplicaType::Ps && !plan.spec.ps_hosts.is_empty())
        .then(|| i32::try_from(plan.spec.ps_hosts.len()).unwrap_or(i32::MAX));
    [spec, created, hosts].into_iter().flatten().max()
}

/// The action that writes a scale plan's status.
fn plan_status_action(plan: &ScalePlan, status: ScalePlanStatus) -> Action {
    Action::SetScalePlanStatus {
        namespace: plan.metadata.namespace.clone().filter(|n| !n.is_empty()),
        name: plan.metadata.name.clone().unwrap_or_default(),
        status,
        cause: Cause::Status,
    }
}

/// The newest pod (by id) at each rank among `pods`: what a new pod at that rank follows.
fn newest_by_rank<'p>(pods: impl Iterator<Item = &'p Pod>) -> BTreeMap<i32, &'p Pod> {
    let mut newest: BTreeMap<i32, &Pod> = BTreeMap::new();
    for p in pods {
        if let Some(rank) = pod::pod_rank(p) {
            let at = newest.entry(rank).or_insert(p);
            if pod::pod_id(p) > pod::pod_id(at) {
                *at = p;
            }
        }
    }
    newest
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn job() -> ElasticJob {
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": "j", "namespace": "ns"},
            "spec": {"distributionStrategy": "ParameterServerStrategy", "replicaSpecs": {
                "ps": {"replicas": 1, "template": {"spec": {"containers": [{"name": "main", "image": "tf"}]}}},
                "worker": {"replicas": 2, "restartCount": 1, "template": {"spec": {"containers": [
                    {"name": "main", "image": "tf", "resources": {"requests": {"memory": "1Gi"}}}]}}}}}
        }))
        .unwrap_or_default()
    }

    /// A pod of job `j` as the planner made it, in `phase`.
    pub(super) fn task(t: ReplicaType, id: i32, rank: i32, phase: &str) -> Pod {
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": naming::task_pod_name("j", t, id.into()), "namespace": "ns", "labels": {
                "elasticjob.dlrover/name": "j", "elasticjob.dlrover/replica-type": t.as_str(),
                "elasticjob.dlrover/replica-index": id.to_string(),
                "elasticjob.dlrover/rank-index": rank.to_string(), "restart-count": "1"}},
            "spec": {"containers": [{"name": "main", "resources": {"requests": {"memory": "1Gi"}}}]},
            "status": {"phase": phase}
        }))
        .unwrap_or_default()
    }

    #[test]
    fn ids_skip_every_taken_name() {
        let j = job();
        let options = Options::default();
        let pods = [task(ReplicaType::Worker, 0, 0, "Running"), task(ReplicaType::Worker, 3, 1, "Running")];
        let mut plan = ScalePlan::default();
        plan.spec.remove_pods.push(crate::api::PodMeta {
            name: naming::task_pod_name("j", ReplicaType::Worker, 4),
            ..Default::default()
        });
        let Ok(mut planner) = Planner::new(&j, &options, &pods, &plan) else { panic!("planner") };
        assert_eq!(planner.alloc_id(ReplicaType::Worker, NewId::Replacement).ok(), Some(5));
        assert_eq!(planner.alloc_id(ReplicaType::Ps, NewId::Replacement).ok(), Some(0));
    }

    #[test]
    fn pods_of_other_jobs_are_not_the_jobs() {
        let j = job();
        let options = Options::default();
        let mut other = task(ReplicaType::Worker, 0, 0, "Running");
        if let Some(labels) = other.metadata.labels.as_mut() {
            labels.insert(naming::LABEL_JOB_NAME.into(), "k".into());
        }
        let pods = [other];
        let Ok(mut planner) = Planner::new(&j, &options, &pods, &ScalePlan::default()) else { panic!("planner") };
        assert_eq!(planner.live(ReplicaType::Worker).count(), 0);
        // Its name is taken all the same: a new pod must not reuse it.
        assert!(planner.exists("j-edljob-worker-0"));
        assert_eq!(planner.alloc_id(ReplicaType::Worker, NewId::Replacement).ok(), Some(1));
    }

    #[test]
    fn too_many_observed_pods_is_an_error() {
        let j = job();
        let options = Options::default();
        let pods = vec![Pod::default(); validate::MAX_OBSERVED_PODS + 1];
        let err = Planner::new(&j, &options, &pods, &ScalePlan::default()).err();
        assert_eq!(err.as_ref().and_then(|e| e.problems().first()).map(|p| p.code), Some(Code::TooLarge));
    }

    #[test]
    fn deletes_carry_the_namespace_and_happen_once() {
        let j = job();
        let options = Options::default();
        let pods = [task(ReplicaType::Worker, 0, 0, "Running")];
        let Ok(mut planner) = Planner::new(&j, &options, &pods, &ScalePlan::default()) else { panic!("planner") };
        let [p] = &pods;
        planner.delete(p, "a".into(), Cause::Stop);
        planner.delete(p, "b".into(), Cause::Stop);
        let plan = planner.finish();
        assert_eq!(plan.deleted_pods().collect::<Vec<_>>(), ["j-edljob-worker-0"]);
        assert!(matches!(plan.actions().next(), Some(Action::DeletePod { namespace: Some(ns), .. }) if ns == "ns"));
    }
}
