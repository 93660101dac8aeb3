//! The job's life: the state machine one controller pass runs by `status.phase`, the scale-plan
//! controller, stopping pods, and counting pods into the job status (see [`crate::reconcile`]
//! for the rules).

use crate::podspec::Pod;
use crate::podspec::Time;

use super::kueue::Gate;
use super::{Gates, Observed, ObservedServices, Planner, gang, plan_status_action};
use crate::api::{ElasticJob, ElasticJobStatus, JobConditionType, ReplicaType, ScalePlan, TypeMap};
use crate::error::Result;
use crate::plan::{Action, Cause, Event, Plan};
use crate::queue;
use crate::status::{self, update_status};
use crate::template::Options;
use crate::{job, naming, pod, template, validate};

/// Why a finished job's pods are deleted.
pub(crate) const STOP_REASON: &str = "the job has finished: its running pods are stopped";
/// The reason of the event that tells a job took a plan up.
pub(super) const TAKEN_UP: &str = "ScalePlanTakenUp";
/// Why a suspended job's pods are deleted.
const SUSPEND_REASON: &str = "the job is suspended (spec.suspend): no pod runs until it is resumed";

impl<'a> Planner<'a> {
    /// One pass of the job state machine: from the status read, decide by its phase, and set the
    /// status last, only when it changed.
    pub(crate) fn pass(&mut self, scale_plan: Option<&ScalePlan>, now: &Time) -> Result<()> {
        let before = self.job.status.clone().unwrap_or_default();
        let mut status = before.clone();
        // Planned: a job refused before is not any more.
        let message = format!("ElasticJob {} can be planned again", self.job.name());
        status::clear_condition(&mut status, JobConditionType::Refused, status::REASON_ACCEPTED, message, now);
        let finished = matches!(status.phase, Some(JobConditionType::Succeeded | JobConditionType::Failed));
        if self.job.spec.suspend == Some(true) && !finished {
            self.suspend(&mut status, now);
            self.note_gang(&mut status, Some("is suspended"), now);
            self.set_job_status(&before, status);
            return Ok(());
        }
        if status.phase == Some(JobConditionType::Suspended) {
            self.resume(&mut status, now);
        }
        self.note_planned_removals(scale_plan);
        // A limit of the run policy reached: the job fails in this pass, and nothing is made for it.
        let limit = if finished { None } else { self.limit_reached(&status, now) };
        match limit {
            Some(limit) => {
                self.sync_all(&mut status, now);
                // Unless its master finished it in this pass.
                if !matches!(status.phase, Some(JobConditionType::Succeeded | JobConditionType::Failed)) {
                    self.fail_for(&mut status, limit, now);
                }
            }
            None => self.step(&mut status, scale_plan, now)?,
        }
        // A finished job deletes its pods as its cleanPodPolicy says (its running ones, without
        // one) in the same pass that finds it finished (upstream waits for the next pass), and
        // itself once its TTL has passed.
        if matches!(status.phase, Some(JobConditionType::Succeeded | JobConditionType::Failed)) {
            self.clean_up(&status);
            self.expire(&status, now);
        }
        let ended = matches!(status.phase, Some(JobConditionType::Succeeded | JobConditionType::Failed));
        self.note_gang(&mut status, ended.then_some("has finished"), now);
        self.requeue(&status, now);
        self.set_job_status(&before, status);
        Ok(())
    }

    /// The pass's step by the job's phase: initialise a new job, carry a running one's plan out and
    /// keep its master, and count the pods into the status.
    fn step(&mut self, status: &mut ElasticJobStatus, scale_plan: Option<&ScalePlan>, now: &Time) -> Result<()> {
        match status.phase {
            None | Some(JobConditionType::Created) => {
                if status.common().is_none_or(|s| s.conditions.is_empty()) {
                    status.common_mut().replica_statuses.entry(ReplicaType::DlroverMaster).or_default();
                    let message = format!("ElasticJob {} is created.", self.job.name());
                    update_status(status, JobConditionType::Created, status::REASON_CREATED, message, now);
                }
                let common = status.common_mut();
                if common.start_time.is_none() {
                    common.start_time = Some(now.clone());
                }
                self.start_tasks(status)?;
                // Made after every task pod of the first plan: a master that finds a task pod
                // Pending or Running at its start writes no first plan, so none may be left then.
                if !self.deferred {
                    self.ensure_master()?;
                }
                self.sync_all(status, now);
            }
            Some(JobConditionType::Pending) => {
                self.start_tasks(status)?;
                self.sync_all(status, now);
            }
            Some(JobConditionType::Running | JobConditionType::Restarting | JobConditionType::Scaling) => {
                // A finished master finishes the job in this pass: creating pods would only create
                // pods to stop.
                if !self.master_finished() {
                    if let Some(plan) = scale_plan.filter(|p| is_active(p, status)) {
                        self.execute(plan, now)?;
                    }
                    // A missing master is made again in every phase that runs, Scaling too: a job
                    // leaves Scaling only once its master runs, so one whose master went away
                    // while it scaled would wait for it for ever. Failed task pods wait for the
                    // master's relaunch plan (see `handle_faults`).
                    self.ensure_master()?;
                    self.keep_services();
                }
                self.sync_all(status, now);
            }
            Some(
                JobConditionType::Succeeded
                | JobConditionType::Failed
                | JobConditionType::Suspended
                | JobConditionType::QuotaLimited
                | JobConditionType::GangPending
                | JobConditionType::Refused,
            ) => {
                self.sync_all(status, now);
            }
        }
        Ok(())
    }

    /// `spec.suspend` is true: every Running or Pending pod goes (the master too), nothing is
    /// created, scale plans wait, and the phase is `Suspended`. The pods are still counted.
    fn suspend(&mut self, status: &mut ElasticJobStatus, now: &Time) {
        let (reason, message) = match &self.hold {
            Some(hold) => (hold.reason, hold.message.clone()),
            None => (status::REASON_SUSPENDED, format!("ElasticJob {} is suspended.", self.job.name())),
        };
        let why = self.hold.as_ref().map_or_else(|| SUSPEND_REASON.to_owned(), |h| h.message.clone());
        for replica_type in ReplicaType::ALL {
            self.stop(replica_type, &why);
        }
        for replica_type in ReplicaType::ALL {
            self.count(status, replica_type);
        }
        update_status(status, JobConditionType::Suspended, reason, message, now);
    }

    /// `spec.suspend` went back to false: the `Suspended` condition turns false and the job starts
    /// again as a created one (its master is made again, which plans its pods). A job with an
    /// `activeDeadlineSeconds` starts its time again (its start time is now), as Kubeflow's and
    /// Kubernetes' Job do: the time it was suspended does not count.
    fn resume(&mut self, status: &mut ElasticJobStatus, now: &Time) {
        let message = format!("ElasticJob {} is resumed.", self.job.name());
        status::clear_condition(status, JobConditionType::Suspended, status::REASON_RESUMED, message.clone(), now);
        update_status(status, JobConditionType::Created, status::REASON_RESUMED, message, now);
        if job::run_policy(self.job).is_some_and(|r| r.active_deadline_seconds.is_some()) {
            status.common_mut().start_time = Some(now.clone());
        }
    }

    /// A new job's task pods, made with its master rather than after it: the first plan DLRover's
    /// master would write ([`job::master_scale_plan`]), carried out while the master has not
    /// started (no master pod, or one still Pending) and no plan was taken up.
    ///
    /// DLRover 0.6.1's master takes them as its own: `DistributedJobManager.start` writes its
    /// first plan only when `_has_running_workers` finds no pod of the job Pending or Running, and
    /// `_process_list_nodes` reads the pods it finds by type and id into the nodes it made from
    /// the same job (`dist_job_manager.py`). So the pods are the ones it would have asked for, made
    /// without waiting for its process to start, and what it plans next (relaunches, scaling)
    /// follows as for its own. Nothing is made while a gang scheduler has not admitted the job
    /// (its pods wait as for the master's plan).
    fn start_tasks(&mut self, status: &mut ElasticJobStatus) -> Result<()> {
        let master_started = self.of_type(ReplicaType::DlroverMaster).iter().any(|m| pod::pod_phase(m) != "Pending");
        if master_started || status.scale_plan.is_some() || self.gang_wait.is_some() {
            return Ok(());
        }
        let plan = job::master_scale_plan(self.job);
        for replica_type in ReplicaType::TASKS {
            self.reconcile_type(replica_type, &plan)?;
        }
        for (replica_type, target) in &plan.spec.replica_resource_specs {
            let entry = status.common_mut().replica_statuses.entry(*replica_type).or_default();
            if entry.initial == 0 {
                entry.initial = target.replicas;
            }
        }
        Ok(())
    }

    /// Fault handling of one type: a missing master is recreated (a master that is gone cannot plan
    /// anything, and a new one reads the job's pods when it starts). Failed task pods are left to
    /// DLRover's master: running in ScalePlan mode it decides every relaunch (it reads the exit
    /// code, its relaunch budget from the replica's `restartCount` and whether the node is
    /// critical, and raises the memory of an OOMKilled pod) and writes a plan whose `createPods`
    /// entry takes the failed pod's rank. Relaunching here too would give the rank two pods.
    pub(crate) fn handle_faults(&mut self, replica_type: ReplicaType) -> Result<()> {
        if replica_type == ReplicaType::DlroverMaster { self.ensure_master() } else { Ok(()) }
    }

    /// Whether the master pod has Succeeded or Failed, which ends the job.
    fn master_finished(&self) -> bool {
        self.of_type(ReplicaType::DlroverMaster)
            .last()
            .is_some_and(|m| matches!(pod::pod_phase(m), "Succeeded" | "Failed"))
    }

    /// Deletes every Running or Pending pod of the type.
    pub(crate) fn stop(&mut self, replica_type: ReplicaType, reason: &str) {
        self.stop_for(replica_type, reason, Cause::Stop);
    }

    /// Deletes every Running or Pending pod of the type, for `cause`.
    pub(super) fn stop_for(&mut self, replica_type: ReplicaType, reason: &str, cause: Cause) {
        let pods: Vec<&Pod> = self.of_type(replica_type).iter().copied().filter(|p| pod::is_stoppable(p)).collect();
        for p in pods {
            self.delete(p, reason.to_owned(), cause);
        }
    }

    fn sync_all(&self, status: &mut ElasticJobStatus, now: &Time) {
        for replica_type in ReplicaType::ALL {
            self.sync(status, replica_type, now);
        }
    }

    /// Counts the type's pods into the status; for the master, moves the job's phase with the
    /// master pod's.
    pub(crate) fn sync(&self, status: &mut ElasticJobStatus, replica_type: ReplicaType, now: &Time) {
        self.count(status, replica_type);
        if replica_type == ReplicaType::DlroverMaster {
            self.follow_master(status, now);
        }
    }

    /// Counts the type's pods by phase into `replicaStatuses`, keeping `initial`.
    pub(crate) fn count(&self, status: &mut ElasticJobStatus, replica_type: ReplicaType) {
        let pods = self.of_type(replica_type);
        let tracked = replica_type == ReplicaType::DlroverMaster
            || self.job.declared_replica_spec(replica_type).is_some()
            || !pods.is_empty()
            || status.common().is_some_and(|s| s.replica_statuses.contains_key(&replica_type));
        if !tracked {
            return;
        }
        let count =
            |phase: &str| i32::try_from(pods.iter().filter(|p| pod::pod_phase(p) == phase).count()).unwrap_or(i32::MAX);
        let counts = status.common_mut().replica_statuses.entry(replica_type).or_default();
        counts.pending = count("Pending");
        counts.active = count("Running");
        counts.succeeded = count("Succeeded");
        counts.failed = count("Failed");
    }

    /// Moves the job to Succeeded, Failed (with the pod's reason), Pending (its first master
    /// pending, before the job ever ran) or Running by the master pod's phase.
    fn follow_master(&self, status: &mut ElasticJobStatus, now: &Time) {
        let Some(master) = self.of_type(ReplicaType::DlroverMaster).last() else { return };
        let job = match job::namespace(self.job) {
            Some(ns) => format!("{ns}/{}", self.job.name()),
            None => self.job.name().to_owned(),
        };
        match pod::pod_phase(master) {
            phase @ ("Succeeded" | "Failed") => {
                let common = status.common_mut();
                if common.completion_time.is_none() {
                    common.completion_time = Some(now.clone());
                }
                if phase == "Succeeded" {
                    let message = format!("job({job}) successfully completed");
                    update_status(status, JobConditionType::Succeeded, status::REASON_SUCCEEDED, message, now);
                } else {
                    let reason =
                        master.status.as_ref().and_then(|s| s.reason()).filter(|r| !r.is_empty()).map(str::to_owned);
                    let reason = reason.unwrap_or_else(|| status::REASON_FAILED.to_owned());
                    update_status(status, JobConditionType::Failed, &reason, format!("job({job}) has failed"), now);
                }
            }
            // Only before the job first ran: a master made again later (its pod has the same name and
            // id) leaves the job's phase where it is, since a phase never goes back.
            "Pending"
                if pod::pod_id(master).unwrap_or(0) == 0
                    && matches!(status.phase, None | Some(JobConditionType::Created | JobConditionType::Pending)) =>
            {
                let message = format!("job({job}) is pending.");
                update_status(status, JobConditionType::Pending, status::REASON_PENDING, message, now);
            }
            "Running" if status.phase != Some(JobConditionType::Running) => {
                let message = format!("job({job}) is running.");
                update_status(status, JobConditionType::Running, status::REASON_RUNNING, message, now);
            }
            _ => {}
        }
    }
}

/// One pass of the controller over one job (see [`crate::reconcile::controller_pass`], and
/// [`crate::reconcile::controller_pass_queued`] for `gates`), which takes up at most one plan (see
/// [`super::chain`] for the rest), after `earlier` passes of the same call; it gives what it did
/// ([`Passed`]).
pub(super) fn pass_once(
    observed: Observed<'_>,
    gates: Gates<'_>,
    now: &Time,
    options: &Options,
    earlier: Earlier<'_>,
) -> Result<Passed> {
    let Observed { job, plans, pods, services } = observed;
    let tf_hosts = earlier.tf_hosts;
    validate::check_observed_services(services.len())?;
    // Oldest first: each plan goes after the ones not later than it (a job has tens of plans; an
    // ordered insert keeps a sort's code out of the wasm).
    let mut waiting: Vec<&ScalePlan> = Vec::new();
    for plan in plans.iter().filter(|p| takes_part(p, job)) {
        let at = waiting.iter().position(|q| plan_order(q) > plan_order(plan)).unwrap_or(waiting.len());
        waiting.insert(at, plan);
    }
    let Some(job) = job else {
        // Plans whose job does not exist (yet) are only marked Created.
        let created = waiting.iter().filter(|p| p.status.as_ref().is_none_or(|s| s.phase.is_none()));
        let plan =
            Plan::from_actions(created.flat_map(|p| scale_plan_pass(p, None, now).phases).flat_map(|p| p.actions));
        return Ok(Passed { plan, tf_hosts, more: false });
    };
    if job.metadata.deletion_timestamp.is_some() {
        return Ok(Passed { plan: Plan::default(), tf_hosts, more: false });
    }
    // A queued job (with a host that tells Kueue's state) is planned as Kueue lets it run.
    let mut gate = match gates.queue {
        Some(queue) if queue::queue_name(job).is_some() => Some(Gate::new(job, queue, options)?),
        _ => None,
    };
    let original = job;
    let gated = gate.as_mut().map(|g| std::mem::take(&mut g.job));
    let job = gated.as_ref().unwrap_or(job);
    let status = job.status.clone().unwrap_or_default();
    let current = status
        .scale_plan
        .as_deref()
        .and_then(|name| waiting.iter().copied().find(|p| p.metadata.name.as_deref() == Some(name)));
    // Plans are taken up by a job that runs: a job still being created gets its master first (its
    // master writes its plans), and a finished or suspended job takes none up.
    let runs = matches!(
        status.phase,
        Some(JobConditionType::Running | JobConditionType::Restarting | JobConditionType::Scaling)
    ) && job.spec.suspend != Some(true);
    let mut actions = Vec::new();
    // The job and plan as the plan taken up in this pass leaves them (the statuses it writes).
    let mut taken_up: Option<(ElasticJob, ScalePlan)> = None;
    if runs && !current.is_some_and(|p| is_active(p, &status)) {
        // Oldest first, one at a time, none skipped; a plan that asks for nothing is done at once.
        for plan in waiting.iter().copied().filter(|p| is_waiting(p)) {
            if plan.spec.is_empty() || taken_up.is_none() {
                let pass = scale_plan_pass(plan, Some(job), now);
                if !plan.spec.is_empty() && !pass.is_empty() {
                    let (mut moved_job, mut moved_plan) = (job.clone(), plan.clone());
                    for action in pass.actions() {
                        match action {
                            Action::SetJobStatus { status, .. } => moved_job.status = Some(status.clone()),
                            Action::SetScalePlanStatus { status, .. } => moved_plan.status = Some(status.clone()),
                            _ => {}
                        }
                    }
                    taken_up = Some((moved_job, moved_plan));
                }
                actions.extend(pass.phases.into_iter().flat_map(|p| p.actions));
            }
        }
    }
    // The plan taken up is carried out in the same pass, from the statuses it moved the job and
    // the plan to (not one pass later, after its status writes come back through the watches).
    let (job, current) = match &taken_up {
        Some((job, plan)) => (job, Some(plan)),
        None => (job, current),
    };
    // An admitted job carries its plan out within what Kueue admitted.
    let status_now = job.status.clone().unwrap_or_default();
    let capped = match (gate.as_mut(), current) {
        (Some(gate), Some(plan)) if is_active(plan, &status_now) => {
            // A plan that asks for nothing (DLRover's master writes one every 60 s until its
            // autoscaler starts) is no later plan: it is done once the held one is.
            let later =
                waiting.iter().any(|p| is_waiting(p) && !p.spec.is_empty() && p.metadata.name != plan.metadata.name);
            gate.within_admission(original, plan, later)
        }
        _ => None,
    };
    let current = capped.as_ref().or(current);
    let name = current.and_then(|p| p.metadata.name.as_ref());
    let others_wait = waiting.iter().any(|p| is_waiting(p) && !p.spec.is_empty() && p.metadata.name.as_ref() != name);
    let (jobs_pods, adoptions) = claim_pods(job, pods);
    actions.extend(adoptions);
    // Without a plan taken up, the new task pods are the first plan's, as the master writes it.
    let layout_plan = job::plan_or_masters_first(job, current);
    let finished = matches!(status_now.phase, Some(JobConditionType::Succeeded | JobConditionType::Failed));
    let (gang_actions, gang_wait) =
        gang::pod_group_pass(job, &layout_plan, options, gates.pod_group, &jobs_pods, finished);
    actions.extend(gang_actions);
    let mut planner = Planner::new(job, options, &jobs_pods, &layout_plan)?;
    planner.wait_for_gang(gang_wait);
    planner.note_planned_removals(waiting.iter().copied());
    let targets = gate.is_some().then(|| planned_targets(original, &waiting));
    planner.observe_services(ObservedServices::new(job, services, waiting));
    planner.hold = gate.as_mut().and_then(|g| g.hold.take());
    planner.quota_wait = gate.as_ref().is_some_and(Gate::waits_for_quota);
    planner.tf_hosts = tf_hosts;
    planner.reserved.extend(earlier.deleted.iter().cloned());
    planner.pass(current, now)?;
    let tf_hosts = planner.tf_hosts;
    let passed = planner.finish();
    // Whether the next pass would take a plan up: this one carried the job's plan out, and one that
    // asks for something waits. A queued job's is carried out within its admission, one a call.
    let more = others_wait
        && gate.is_none()
        && passed.actions().any(|a| {
            matches!(a, Action::SetScalePlanStatus { name: done, status, .. }
                if Some(done) == name && status.phase == Some(JobConditionType::Succeeded))
        });
    let requeue_at = passed.requeue_at;
    for mut action in passed.phases.into_iter().flat_map(|p| p.actions) {
        // A status the job's pass writes was computed from the take-up's: it replaces that one, and
        // tells what the take-up told (the plan taken up).
        match &mut action {
            Action::SetJobStatus { event, .. } => {
                let told = actions.iter().find_map(|a| match a {
                    Action::SetJobStatus { event: Some(told), .. } => Some(told.clone()),
                    _ => None,
                });
                if event.is_none() {
                    *event = told;
                }
                actions.retain(|a| !matches!(a, Action::SetJobStatus { .. }));
            }
            Action::SetScalePlanStatus { name, .. } => {
                actions.retain(|a| !matches!(a, Action::SetScalePlanStatus { name: other, .. } if other == name));
            }
            _ => {}
        }
        actions.push(action);
    }
    if let Some(gate) = gate {
        actions = gate.finish(original, &jobs_pods, &targets.unwrap_or_default(), actions, now);
    }
    Ok(Passed { plan: Plan::from_actions(actions).requeued_at(requeue_at), tf_hosts, more })
}

/// What the earlier passes of the same call did, that a pass goes on from.
#[derive(Clone, Copy, Default)]
pub(super) struct Earlier<'a> {
    /// The `TF_CONFIG` addresses their pods list: this pass's pods may list up to
    /// [`crate::validate::MAX_TF_CONFIG_HOSTS`] less these.
    pub(super) tf_hosts: u64,
    /// The pods they deleted: gone, but a new pod takes none of their names, since the plan
    /// creates its pods before it deletes any.
    pub(super) deleted: &'a [String],
}

/// What one pass did.
pub(super) struct Passed {
    /// Its plan.
    pub(super) plan: Plan,
    /// The `TF_CONFIG` addresses listed by the pods made so far, this pass's and those before.
    pub(super) tf_hosts: u64,
    /// Whether it carried the job's plan out and another plan waits to be taken up.
    pub(super) more: bool,
}

/// Each task type's replicas by the newest of the job's plans carried out that gives them
/// (`plans` oldest first), else by the first plan its master writes.
fn planned_targets(job: &ElasticJob, plans: &[&ScalePlan]) -> TypeMap<i32> {
    let mut targets: TypeMap<i32> = job::master_first_plan(job).into_iter().map(|(t, g)| (t, g.count)).collect();
    let done = plans.iter().filter(|p| p.status.as_ref().and_then(|s| s.phase) == Some(JobConditionType::Succeeded));
    for plan in done {
        for (t, spec) in &plan.spec.replica_resource_specs {
            targets.insert(*t, spec.replicas);
        }
    }
    targets
}

/// Whether a plan takes part in its job's pass: labelled `scale-type: auto`, not being deleted, and
/// (with a job) the job's.
pub(crate) fn takes_part(plan: &ScalePlan, job: Option<&ElasticJob>) -> bool {
    let labels = plan.metadata.labels.as_ref();
    labels.and_then(|l| l.get(naming::LABEL_SCALE_TYPE)).map(String::as_str) == Some(naming::SCALE_TYPE_AUTO)
        && plan.metadata.deletion_timestamp.is_none()
        && job.is_none_or(|j| job::is_plan_of(j, plan))
}

/// Whether a plan has not been taken up by its job yet.
pub(super) fn is_waiting(plan: &ScalePlan) -> bool {
    matches!(
        plan.status.as_ref().and_then(|s| s.phase),
        None | Some(JobConditionType::Created | JobConditionType::Pending)
    )
}

/// The order plans are taken up in: by creation time, then by the index DLRover's master numbers
/// them with (`<job>-scaleplan-<i>`: several can be made within one second, and `-10` sorts before
/// `-9` by name), then by name.
pub(crate) fn plan_order(plan: &ScalePlan) -> (Option<&Time>, Option<u64>, &str) {
    let name = plan.metadata.name.as_deref().unwrap_or_default();
    let index = name.rsplit_once("-scaleplan-").and_then(|(_, i)| i.parse().ok());
    (plan.metadata.creation_timestamp.as_ref(), index, name)
}

/// The pods with the job's name label that are the job's, and the adoptions that make them so, by
/// the rule of Kubernetes' controller-ref manager (a ReplicaSet's claim on its pods): a pod the job
/// controls (by uid) is the job's; one another object controls is not (an earlier job of the same
/// name whose pods the garbage collector has not removed yet); one no one controls is adopted when
/// it is exactly a pod the job would make (its name, and the labels that name it) and neither is
/// being deleted, and left alone otherwise: never counted, scaled, stopped or given a service. A
/// job being deleted never gets here. A job without a uid (a manifest not applied yet, in a
/// preview) can own nothing, so it counts every pod of its name, as upstream selected pods.
pub(crate) fn claim_pods(job: &ElasticJob, pods: &[Pod]) -> (Vec<Pod>, Vec<Action>) {
    let Some(owner) = template::owner_reference(job) else { return (pods.to_vec(), Vec::new()) };
    let mut claimed = Vec::new();
    let mut adoptions = Vec::new();
    for pod in pods {
        let controller = pod.metadata.owner_references.iter().flatten().find(|r| r.controller == Some(true));
        match controller {
            Some(controller) if controller.uid == owner.uid => claimed.push(pod.clone()),
            Some(_) => {}
            None => {
                let Some(uid) = pod.metadata.uid.as_deref().filter(|u| !u.is_empty()) else { continue };
                if pod::is_terminating(pod) || !is_named_as_jobs(pod, job) {
                    continue;
                }
                let name = pod::name(pod).to_owned();
                adoptions.push(Action::AdoptPod {
                    namespace: job::namespace(job).map(str::to_owned),
                    uid: uid.to_owned(),
                    owner: owner.clone(),
                    reason: ADOPT_REASON.to_owned(),
                    cause: Cause::Adoption,
                    event: Event::normal(
                        "Adopted",
                        format!("pod {name} had no controller and is named and labelled as this job's: the job controls it now"),
                    ),
                    name,
                });
                claimed.push(pod.clone());
            }
        }
    }
    (claimed, adoptions)
}

/// Why an orphan is adopted.
const ADOPT_REASON: &str = "the pod has no controller and is exactly one this job makes (its name and labels)";

/// Whether a pod is named and labelled exactly as the job makes its pods: the master
/// `elasticjob-<job>-dlrover-master`, or a task `<job>-edljob-<type>-<id>` whose labels give that
/// type and id and a rank; with the labels `app: dlrover` and the job's name on both.
fn is_named_as_jobs(pod: &Pod, job: &ElasticJob) -> bool {
    if pod::label(pod, naming::LABEL_APP) != Some(naming::APP_NAME)
        || pod::label(pod, naming::LABEL_JOB_NAME) != Some(job.name())
    {
        return false;
    }
    match pod::pod_type(pod) {
        Some(ReplicaType::DlroverMaster) => pod::name(pod) == naming::master_name(job.name()),
        Some(t) => match (pod::pod_id(pod), pod::pod_rank(pod)) {
            (Some(id), Some(rank)) if id >= 0 && rank >= 0 => {
                pod::name(pod) == naming::task_pod_name(job.name(), t, i64::from(id))
            }
            _ => false,
        },
        None => false,
    }
}

/// Whether `plan` is the job's current scale plan and is still to be carried out.
fn is_active(plan: &ScalePlan, status: &ElasticJobStatus) -> bool {
    plan.metadata.name.is_some()
        && plan.metadata.name == status.scale_plan
        && matches!(
            plan.status.as_ref().and_then(|s| s.phase),
            Some(JobConditionType::Pending | JobConditionType::Scaling)
        )
}

/// One pass of the scale-plan controller (see [`crate::reconcile::reconcile_scale_plan`]).
pub(crate) fn scale_plan_pass(scale_plan: &ScalePlan, job: Option<&ElasticJob>, now: &Time) -> Plan {
    let mut actions = Vec::new();
    if !takes_part(scale_plan, None) {
        return Plan::from_actions(actions);
    }
    let before = scale_plan.status.clone().unwrap_or_default();
    let mut plan_status = before.clone();
    if plan_status.phase.is_none() {
        plan_status.phase = Some(JobConditionType::Created);
        plan_status.create_time = Some(now.clone());
    }
    let phase = plan_status.phase;
    if scale_plan.spec.is_empty() {
        // Nothing to carry out: done at once, and the job is not moved to Scaling and back.
        if matches!(phase, Some(JobConditionType::Created | JobConditionType::Pending)) {
            plan_status.phase = Some(JobConditionType::Succeeded);
            plan_status.finish_time = Some(now.clone());
        }
        if plan_status != before {
            actions.push(plan_status_action(scale_plan, plan_status));
        }
        return Plan::from_actions(actions);
    }
    // A suspended job is not moved: it would be moved back to Suspended on its next pass.
    let job = job.filter(|j| j.spec.suspend != Some(true));
    if let (Some(job), Some(JobConditionType::Created | JobConditionType::Pending)) = (job, phase) {
        let job_before = job.status.clone().unwrap_or_default();
        let mut status = job_before.clone();
        status.scale_plan = scale_plan.metadata.name.clone();
        for (replica_type, target) in &scale_plan.spec.replica_resource_specs {
            let entry = status.common_mut().replica_statuses.entry(*replica_type).or_default();
            if entry.initial == 0 {
                entry.initial = target.replicas;
            }
        }
        let message = format!(
            "ElasticJob {} is scaling by {} with status {}.",
            job.name(),
            scale_plan.metadata.name.as_deref().unwrap_or_default(),
            phase.map_or("", JobConditionType::as_str)
        );
        plan_status.phase = Some(JobConditionType::Pending);
        if plan_status != before {
            actions.push(plan_status_action(scale_plan, plan_status));
        }
        update_status(&mut status, JobConditionType::Scaling, status::REASON_SCALING, message, now);
        if status != job_before {
            // Telling on the job that it took a plan up, as it moves to it.
            let event = (status.scale_plan != job_before.scale_plan).then(|| {
                let name = status.scale_plan.as_deref().unwrap_or_default();
                Event::normal(TAKEN_UP, format!("took up scale plan {name}"))
            });
            actions.push(Action::SetJobStatus { status, cause: Cause::Status, event });
        }
    } else if plan_status != before {
        actions.push(plan_status_action(scale_plan, plan_status));
    }
    Plan::from_actions(actions)
}

#[cfg(test)]
mod tests {
    use super::super::controller_pass;
    use super::super::tests::{job, task};
    use super::*;
    use crate::template::Options;

    fn at(s: &str) -> Time {
        Time::parse(s).unwrap_or(Time::UNIX_EPOCH)
    }

    fn pass(j: &ElasticJob, pods: &[Pod]) -> Plan {
        let options = Options::default();
        let layout = crate::job::initial_scale_plan(j);
        let Ok(mut planner) = Planner::new(j, &options, pods, &layout) else { return Plan::default() };
        if planner.pass(None, &at("2026-01-01T00:00:00Z")).is_err() {
            return Plan::default();
        }
        planner.finish()
    }

    fn master(phase: &str) -> Pod {
        let mut m = task(ReplicaType::DlroverMaster, 0, 0, phase);
        m.metadata.name = Some(naming::master_name("j"));
        m
    }

    /// The controller's pass over the job, its plans and pods at `now`, with the default options.
    fn controller(j: Option<&ElasticJob>, plans: &[ScalePlan], pods: &[Pod], now: &Time) -> Plan {
        let observed = Observed { job: j, plans, pods, services: &[] };
        let Ok(plan) = controller_pass(observed, Gates::default(), now, &Options::default()) else { panic!("refused") };
        plan
    }

    fn created(plan: &Plan) -> Vec<String> {
        plan.created_pods().map(|p| pod::name(p).to_owned()).collect()
    }

    #[test]
    fn a_new_job_gets_the_pods_of_its_first_plan_and_then_its_master() {
        let plan = pass(&job(), &[]);
        // The master's first plan of 1 PS and 2 workers: one worker is its chief. The master last.
        assert_eq!(
            created(&plan),
            ["j-edljob-ps-0", "j-edljob-chief-0", "j-edljob-worker-0", &naming::master_name("j")]
        );
        let status = plan.job_status().cloned().unwrap_or_default();
        assert_eq!(status.phase, Some(JobConditionType::Created));
        assert_eq!(status.common().and_then(|s| s.start_time.clone()), Some(at("2026-01-01T00:00:00Z")));
        let initial = |t| status.common().and_then(|s| s.replica_statuses.get(&t)).map(|r| r.initial);
        assert_eq!(
            (initial(ReplicaType::Ps), initial(ReplicaType::Chief), initial(ReplicaType::Worker)),
            (Some(1), Some(1), Some(1))
        );
    }

    #[test]
    fn the_first_plans_pods_are_made_only_before_the_master_starts() {
        let mut j = job();
        j.status = Some(ElasticJobStatus { phase: Some(JobConditionType::Pending), ..Default::default() });
        let some = [master("Pending"), task(ReplicaType::Ps, 0, 0, "Pending")];
        // A pod of the first plan not made yet (its create failed) is made while the master waits.
        assert_eq!(created(&pass(&j, &some)), ["j-edljob-chief-0", "j-edljob-worker-0"]);
        // Once the master runs, what it finds is what it plans from: nothing more is made.
        let running = [master("Running"), task(ReplicaType::Ps, 0, 0, "Pending")];
        assert!(created(&pass(&j, &running)).is_empty());
        // Nor once a plan of the master's was taken up.
        j.status = Some(ElasticJobStatus {
            phase: Some(JobConditionType::Pending),
            scale_plan: Some("j-scaleplan-0".into()),
            ..Default::default()
        });
        assert!(created(&pass(&j, &some)).is_empty());
    }

    #[test]
    fn the_first_plans_pods_list_the_ps_as_the_master_writes_them() {
        let now = at("2026-01-01T00:00:00Z");
        let plan = controller(Some(&job()), &[], &[], &now);
        let tf_config = plan
            .created_pods()
            .find(|p| pod::name(p) == "j-edljob-worker-0")
            .and_then(|p| {
                p.spec.as_ref()?.containers.first()?.env.as_ref()?.iter().find(|e| e.name == "TF_CONFIG")?.value.clone()
            })
            .unwrap_or_default();
        assert!(tf_config.contains(r#""ps":["j-edljob-ps-0.ns.svc:2222"]"#), "{tf_config}");
    }

    #[test]
    fn a_succeeded_master_finishes_the_job_and_stops_its_pods() {
        let mut j = job();
        j.status = Some(ElasticJobStatus { phase: Some(JobConditionType::Running), ..Default::default() });
        let plan = pass(&j, &[master("Succeeded"), task(ReplicaType::Worker, 0, 0, "Running")]);
        assert_eq!(plan.deleted_pods().collect::<Vec<_>>(), ["j-edljob-worker-0"]);
        let status = plan.job_status().cloned().unwrap_or_default();
        assert_eq!(status.phase, Some(JobConditionType::Succeeded));
        assert_eq!(status.common().and_then(|s| s.completion_time.clone()), Some(at("2026-01-01T00:00:00Z")));
    }

    fn auto(plan: &mut ScalePlan) {
        plan.metadata.labels = Some([(naming::LABEL_SCALE_TYPE.to_owned(), naming::SCALE_TYPE_AUTO.to_owned())].into());
    }

    #[test]
    fn only_auto_plans_move_the_job() {
        let mut plan = ScalePlan::default();
        plan.metadata.name = Some("p".into());
        plan.spec.replica_resource_specs.insert(ReplicaType::Worker, Default::default());
        let now = at("2026-01-01T00:00:00Z");
        assert!(scale_plan_pass(&plan, Some(&job()), &now).is_empty());
        auto(&mut plan);
        let moved = scale_plan_pass(&plan, Some(&job()), &now);
        assert_eq!(moved.job_status().and_then(|s| s.scale_plan.as_deref()), Some("p"));
        assert_eq!(moved.job_status().and_then(|s| s.phase), Some(JobConditionType::Scaling));
    }

    #[test]
    fn an_empty_plan_is_done_at_once_and_the_job_stays() {
        let mut plan = ScalePlan::default();
        plan.metadata.name = Some("j-scaleplan-1".into());
        auto(&mut plan);
        let now = at("2026-01-01T00:00:00Z");
        let done = scale_plan_pass(&plan, Some(&job()), &now);
        assert!(done.job_status().is_none(), "the job is not moved: {done:?}");
        let Some(Action::SetScalePlanStatus { status, .. }) = done.actions().next() else { panic!("{done:?}") };
        assert_eq!(status.phase, Some(JobConditionType::Succeeded));
        assert_eq!((status.create_time.as_ref(), status.finish_time.as_ref()), (Some(&now), Some(&now)));
        plan.status = Some(status.clone());
        assert!(scale_plan_pass(&plan, Some(&job()), &now).is_empty(), "once done, nothing more");
    }

    #[test]
    fn a_scaling_job_whose_master_went_away_gets_it_again() {
        // Found by the chaos soak: the master's node was deleted while the job was Scaling; the
        // job leaves Scaling only once its master runs, so it waited for ever.
        let mut j = job();
        j.status = Some(ElasticJobStatus { phase: Some(JobConditionType::Scaling), ..Default::default() });
        let plan = pass(&j, &[task(ReplicaType::Worker, 0, 0, "Running")]);
        assert_eq!(
            plan.created_pods().map(|p| pod::name(p).to_owned()).collect::<Vec<_>>(),
            [naming::master_name("j")]
        );
    }

    #[test]
    fn a_master_made_again_leaves_a_job_that_ran_where_it_is() {
        // Found by the chaos soak: a job Running whose master was made again (same name, id 0)
        // went back to Pending while the new master was pending.
        for phase in [JobConditionType::Running, JobConditionType::Scaling] {
            let mut j = job();
            j.status = Some(ElasticJobStatus { phase: Some(phase), ..Default::default() });
            let plan = pass(&j, &[master("Pending"), task(ReplicaType::Worker, 0, 0, "Running")]);
            let after = plan.job_status().and_then(|s| s.phase).unwrap_or(phase);
            assert_eq!(after, phase, "{plan:?}");
        }
        // Before it first ran, a pending first master makes it Pending.
        let mut j = job();
        j.status = Some(ElasticJobStatus { phase: Some(JobConditionType::Created), ..Default::default() });
        let plan = pass(&j, &[master("Pending")]);
        assert_eq!(plan.job_status().and_then(|s| s.phase), Some(JobConditionType::Pending));
    }

    #[test]
    fn failed_task_pods_wait_for_the_masters_relaunch_plan() {
        let mut j = job();
        j.status = Some(ElasticJobStatus { phase: Some(JobConditionType::Running), ..Default::default() });
        let pods =
            [master("Running"), task(ReplicaType::Worker, 0, 0, "Running"), task(ReplicaType::Worker, 1, 1, "Failed")];
        let plan = pass(&j, &pods);
        assert_eq!(plan.created_pods().count(), 0, "no relaunch of its own: {plan:?}");
        assert_eq!(plan.deleted_pods().count(), 0);
        let counts =
            plan.job_status().and_then(|s| s.common()).and_then(|s| s.replica_statuses.get(&ReplicaType::Worker));
        assert_eq!(counts.map(|c| (c.active, c.failed)), Some((1, 1)));
    }

    fn named_plan(name: &str, created: &str, workers: Option<i32>) -> ScalePlan {
        let mut plan = ScalePlan::default();
        plan.metadata.name = Some(name.into());
        plan.metadata.creation_timestamp = Some(at(created));
        plan.spec.owner_job = Some("j".into());
        auto(&mut plan);
        if let Some(n) = workers {
            plan.spec
                .replica_resource_specs
                .insert(ReplicaType::Worker, crate::api::ReplicaResourceSpec { replicas: n, ..Default::default() });
        }
        plan
    }

    fn plan_statuses(plan: &Plan) -> Vec<(String, Option<JobConditionType>)> {
        plan.actions()
            .filter_map(|a| match a {
                Action::SetScalePlanStatus { name, status, .. } => Some((name.clone(), status.phase)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn the_pass_takes_up_the_plans_oldest_first_and_does_empty_ones_at_once() {
        let mut j = job();
        j.status = Some(ElasticJobStatus { phase: Some(JobConditionType::Running), ..Default::default() });
        let now = at("2026-01-01T00:01:00Z");
        // Made within one second: the master's index orders them (`-10` after `-9`).
        let plans = [
            named_plan("j-scaleplan-10", "2026-01-01T00:00:00Z", Some(3)),
            named_plan("j-scaleplan-9", "2026-01-01T00:00:00Z", None),
            named_plan("j-scaleplan-11", "2026-01-01T00:00:00Z", Some(4)),
        ];
        let plan = controller(Some(&j), &plans, &[master("Running")], &now);
        let succeeded = |name: &str| (name.to_owned(), Some(JobConditionType::Succeeded));
        assert_eq!(
            plan_statuses(&plan),
            [succeeded("j-scaleplan-9"), succeeded("j-scaleplan-10"), succeeded("j-scaleplan-11")],
            "each plan's status written once"
        );
        let status = plan.job_status();
        assert_eq!(status.and_then(|s| s.scale_plan.as_deref()), Some("j-scaleplan-11"), "the newest taken up last");
        assert_eq!(status.and_then(|s| s.phase), Some(JobConditionType::Running));
        // Plan 10 makes 3 workers, and plan 11, from where 10 left the job, the fourth.
        let workers: Vec<&str> = plan.created_pods().map(pod::name).filter(|n| n.contains("-worker-")).collect();
        assert_eq!(workers, ["j-edljob-worker-0", "j-edljob-worker-1", "j-edljob-worker-2", "j-edljob-worker-3"]);
        let writes: Vec<Option<&Event>> = plan
            .actions()
            .filter_map(|a| match a {
                Action::SetJobStatus { event, .. } => Some(event.as_ref()),
                _ => None,
            })
            .collect();
        let told = "took up scale plans j-scaleplan-10 to j-scaleplan-11, 2 in all, oldest first";
        assert_eq!(writes, [Some(&Event::normal(TAKEN_UP, told.to_owned()))], "one job status write");
    }

    #[test]
    fn pods_another_object_controls_are_not_the_jobs() {
        let mut j = job();
        j.metadata.uid = Some("new".into());
        j.status = Some(ElasticJobStatus { phase: Some(JobConditionType::Running), ..Default::default() });
        let mut stale = master("Running");
        stale.metadata.owner_references = Some(vec![crate::podspec::OwnerReference {
            uid: "old".into(),
            controller: Some(true),
            ..Default::default()
        }]);
        let now = at("2026-01-01T00:00:00Z");
        let plan = controller(Some(&j), &[], &[stale], &now);
        // The old job's master is not this job's: it gets its own.
        assert_eq!(
            plan.created_pods().map(|p| pod::name(p).to_owned()).collect::<Vec<_>>(),
            [naming::master_name("j")]
        );
        let owned = controller(Some(&j), &[], &[orphan(master("Running"))], &now);
        assert!(owned.created_pods().next().is_none(), "an orphan master named as the job's is adopted: {owned:?}");
    }

    /// A pod as the job makes it, with no controller and a uid of its own.
    fn orphan(mut pod: Pod) -> Pod {
        let name = pod::name(&pod).to_owned();
        pod.metadata.uid = Some(format!("uid-{name}"));
        pod.metadata.labels.get_or_insert_default().insert(naming::LABEL_APP.into(), naming::APP_NAME.into());
        pod
    }

    fn adopted(plan: &Plan) -> Vec<(String, String)> {
        plan.actions()
            .filter_map(|a| match a {
                Action::AdoptPod { name, uid, owner, .. }
                    if owner.uid == "job-uid" && owner.controller == Some(true) =>
                {
                    Some((name.clone(), uid.clone()))
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn an_orphan_named_and_labelled_as_the_jobs_is_adopted_and_counted() {
        let mut j = job();
        j.metadata.uid = Some("job-uid".into());
        j.status = Some(ElasticJobStatus { phase: Some(JobConditionType::Running), ..Default::default() });
        let now = at("2026-01-01T00:01:00Z");
        let pods = [orphan(master("Running")), orphan(task(ReplicaType::Worker, 1, 1, "Running"))];
        let plan = controller(Some(&j), &[], &pods, &now);
        assert_eq!(
            adopted(&plan),
            [
                (naming::master_name("j"), format!("uid-{}", naming::master_name("j"))),
                ("j-edljob-worker-1".to_owned(), "uid-j-edljob-worker-1".to_owned())
            ]
        );
        assert_eq!(plan.phases.first().map(|p| p.phase), Some(crate::plan::PhaseKind::Adopt), "adoptions first");
        let counts =
            plan.job_status().and_then(|s| s.common()).and_then(|s| s.replica_statuses.get(&ReplicaType::Worker));
        assert_eq!(counts.map(|c| c.active), Some(1), "counted as the job's in the pass that adopts it");
        assert!(plan.created_pods().next().is_none(), "{plan:?}");
    }

    #[test]
    fn an_orphan_not_exactly_the_jobs_is_left_alone() {
        let mut j = job();
        j.metadata.uid = Some("job-uid".into());
        j.status = Some(ElasticJobStatus { phase: Some(JobConditionType::Succeeded), ..Default::default() });
        let now = at("2026-01-01T00:01:00Z");
        let owned = |mut p: Pod| {
            p.metadata.owner_references = template::owner_reference(&j).map(|o| vec![o]);
            p
        };
        // Labelled as the job's worker 1 but named otherwise; named as worker 2 but labelled id 3;
        // without `app: dlrover`; without a uid; being deleted.
        let mut misnamed = orphan(task(ReplicaType::Worker, 1, 1, "Running"));
        misnamed.metadata.name = Some("imposter".into());
        let mut mislabelled = orphan(task(ReplicaType::Worker, 3, 3, "Running"));
        mislabelled.metadata.name = Some("j-edljob-worker-2".into());
        let mut unlabelled = task(ReplicaType::Worker, 4, 4, "Running");
        unlabelled.metadata.uid = Some("uid-4".into());
        let mut no_uid = orphan(task(ReplicaType::Worker, 5, 5, "Running"));
        no_uid.metadata.uid = None;
        let mut deleting = orphan(task(ReplicaType::Worker, 6, 6, "Running"));
        deleting.metadata.deletion_timestamp = Some(now.clone());
        let pods = [
            owned(master("Succeeded")),
            owned(task(ReplicaType::Worker, 0, 0, "Running")),
            misnamed,
            mislabelled,
            unlabelled,
            no_uid,
            deleting,
        ];
        let plan = controller(Some(&j), &[], &pods, &now);
        assert!(adopted(&plan).is_empty(), "{plan:?}");
        // The finished job stops its own running worker only: the others are not its pods.
        let deleted: Vec<&str> = plan.deleted_pods().collect();
        assert_eq!(deleted, ["j-edljob-worker-0"]);
    }
}
