//! A queued job's pass (see [`crate::reconcile::controller_pass_queued`]): whether Kueue lets it
//! run, the job the pass plans for, its Workload kept in step, and what the pass writes back to
//! Kueue (Finished; the quota released after an eviction).

use std::collections::BTreeMap;

use crate::podspec::Pod;
use crate::podspec::Time;

use crate::api::{ConditionStatus, ElasticJob, JobCondition, JobConditionType, ReplicaType, ScalePlan, TypeMap};
use crate::error::Result;
use crate::plan::{Action, Cause};
use crate::pod;
use crate::queue::{self, QueueState};
use crate::status;
use crate::template::Options;
use crate::workload::{
    ADMITTED, EVICTED, FINISHED, QUOTA_RESERVED, REASON_OUT_OF_SYNC, REQUEUED, Workload, WorkloadCondition,
    WorkloadSpec,
};

use super::slices::{grown_counts, new_slice, opts_in, pick, pod_set_types, slice_of};

/// Reason of a queued job's `Suspended` condition while its Workload waits for admission.
pub(crate) const REASON_NOT_ADMITTED: &str = "WorkloadNotAdmitted";
/// Reason of a queued job's `Suspended` condition after Kueue evicted its Workload.
pub(crate) const REASON_EVICTED: &str = "WorkloadEvicted";
/// Reason of a queued job's `Suspended` condition while its Workload has `spec.active: false`.
pub(crate) const REASON_DEACTIVATED: &str = "WorkloadDeactivated";
/// Reason of the Warning event and of the `QuotaLimited` condition when a plan asks for more pods
/// than Kueue admitted.
pub(crate) const REASON_EXCEEDS_ADMISSION: &str = "ScalePlanExceedsAdmission";
/// Reason of the Normal event and of the `QuotaLimited` condition while a plan beyond the
/// admission waits for Kueue to admit the job's new Workload slice.
pub(crate) const REASON_WAITING_FOR_QUOTA: &str = "WaitingForQuota";
/// Reason of the `QuotaLimited` condition turned false.
pub(crate) const REASON_WITHIN_ADMISSION: &str = "WithinAdmission";

/// Why a queued job is held suspended.
pub(crate) struct Hold {
    pub(crate) reason: &'static str,
    pub(crate) message: String,
}

/// A queued job's state in one pass.
pub(crate) struct Gate {
    /// The job the pass plans for: suspended while held; with the admission in its templates and
    /// not suspended once admitted. The pass takes it.
    pub(crate) job: ElasticJob,
    /// Why the job is held, when it is.
    pub(crate) hold: Option<Hold>,
    /// The Workload and `spec.suspend` writes, first in the plan.
    pub(crate) actions: Vec<Action>,
    /// The job's Workload as observed.
    observed: Option<Workload>,
    /// How many pods of each type were admitted, when admitted.
    admitted: TypeMap<i32>,
    /// What the current plan asks beyond the admitted counts, one sentence a type.
    excess: Vec<String>,
    /// Whether Kueue runs with its `ElasticJobsViaWorkloadSlices` gate ([`Options`]).
    slices: bool,
    /// Whether the job grows by Workload slices: [`Gate::slices`] and the job annotated
    /// `kueue.x-k8s.io/elastic-job: "true"`.
    elastic: bool,
    /// The job's slice waiting for quota: newer than the admitted one, unfinished, without quota.
    pending: Option<Workload>,
    /// Whether Kueue has finished the admitted slice as replaced by `pending` and not yet admitted
    /// `pending` (its admission is written after the finish at Kueue 0.17.0): the old slice's
    /// admission stands, and nothing of either slice is written.
    replacing: bool,
    /// The highest slice number the job has used.
    last_slice: u32,
    /// Why Kueue can never admit the pending slice of the current plan's counts (its
    /// `QuotaReserved` message says `> maximum capacity`): the plan is cut as without slices, and
    /// the slice withdrawn.
    never_fits: Option<String>,
    /// The pod-set counts the current plan needs a new slice for, when it waits for one.
    grow_to: Option<BTreeMap<String, i32>>,
    /// Unfinished slices older than the one holding quota, or beside the pending one: finished.
    stale: Vec<Workload>,
    /// Whether the job has ended: no slice is asked for any more.
    ended: bool,
    /// Whether the pass carries a plan out ([`Gate::within_admission`]): no count is given back
    /// while one is in progress (it may be growing into a new slice's admission).
    carrying_out: bool,
}

impl Gate {
    /// The gate of a queued job: held unless its Workload is admitted (or the job has finished).
    pub(crate) fn new(job: &ElasticJob, queue: &QueueState<'_>, options: &Options) -> Result<Gate> {
        // Oldest first, by slice number (an insertion: a job has a few slices).
        let mut mine: Vec<&Workload> = Vec::new();
        for w in queue.workload.into_iter().chain(queue.slices).filter(|w| queue::is_jobs_workload(w, job)) {
            let n = slice_of(job, w);
            let at = mine.iter().position(|m| slice_of(job, m) > n).unwrap_or(mine.len());
            mine.insert(at, w);
        }
        let picked = pick(&mine);
        let observed = picked.current.cloned();
        let name = observed.as_ref().and_then(|w| w.metadata.name.clone()).unwrap_or_else(|| queue::workload_name(job));
        let finished = matches!(
            job.status.as_ref().and_then(|s| s.phase),
            Some(JobConditionType::Succeeded | JobConditionType::Failed)
        );
        let mut actions = Vec::new();
        if !finished {
            if let Some(mut desired) = queue::workload(job, options, queue.priority)? {
                match &observed {
                    None if queue.workload.is_none() && mine.is_empty() => {
                        actions.push(Action::CreateOrUpdateWorkload {
                            workload: Box::new(desired),
                            reason: format!("ElasticJob {} is queued in {}: its Workload", job.name(), queue_of(job)),
                            cause: Cause::Queue,
                        })
                    }
                    Some(w)
                        if !w.has_quota()
                            && w.metadata.name.as_deref() == Some(queue::workload_name(job).as_str())
                            && !same_request(&w.spec, &desired.spec) =>
                    {
                        desired.spec.active = w.spec.active;
                        desired.metadata.resource_version.clone_from(&w.metadata.resource_version);
                        actions.push(Action::CreateOrUpdateWorkload {
                            workload: Box::new(desired),
                            reason: format!(
                                "the job changed while Kueue holds no quota for it: Workload {name} follows"
                            ),
                            cause: Cause::Queue,
                        });
                    }
                    _ => {}
                }
            }
        }
        let admitted = observed.as_ref().filter(|w| w.is_admitted());
        let mut gated = match admitted {
            Some(w) if !finished => queue::admitted_job(job, w, queue.flavors, options)?,
            _ => job.clone(),
        };
        let hold = if finished || admitted.is_some() {
            None
        } else {
            Some(hold_of(job, &name, observed.as_ref(), queue.workload.is_some()))
        };
        let suspend = hold.is_some().then_some(true);
        if !finished && job.spec.suspend.unwrap_or(false) != suspend.unwrap_or(false) {
            let reason = match (&hold, admitted) {
                (Some(hold), _) => hold.message.clone(),
                (None, Some(w)) => format!("Kueue admitted Workload {name} in ClusterQueue {}", cluster_queue(w)),
                (None, None) => String::new(),
            };
            actions.push(Action::SetJobSuspend { suspend: suspend.unwrap_or(false), reason, cause: Cause::Queue });
        }
        if !finished {
            gated.spec.suspend = suspend;
        }
        let elastic = options.kueue_workload_slices && opts_in(job);
        Ok(Gate {
            job: gated,
            hold,
            actions,
            admitted: admitted.map(queue::admitted_counts).unwrap_or_default(),
            observed,
            excess: Vec::new(),
            slices: options.kueue_workload_slices,
            elastic,
            pending: picked.pending.cloned(),
            replacing: picked.replacing,
            last_slice: mine.last().map_or(1, |w| slice_of(job, w)),
            never_fits: None,
            grow_to: None,
            stale: picked.stale.into_iter().cloned().collect(),
            ended: finished,
            carrying_out: false,
        })
    }

    /// The plan within the admitted counts: each type's `replicas`, its `createPods` ranks and the
    /// PS addresses cut to what Kueue admitted; what is cut is kept for the Warning. A chief made
    /// from the worker's template shares the worker pod set's count.
    ///
    /// For a job that grows by Workload slices ([`Gate::elastic`]), a plan that asks more than
    /// the admitted slice holds waits for a new slice ([`Gate::waits_for_quota`]) unless `later`
    /// (another plan waits behind it: it is cut as without slices, and no slice is asked for).
    pub(crate) fn within_admission(&mut self, job: &ElasticJob, plan: &ScalePlan, later: bool) -> Option<ScalePlan> {
        // A job that has ended carries no plan out (its pass only counts its pods).
        if self.ended {
            return None;
        }
        self.carrying_out = true;
        if self.hold.is_some() || self.admitted.is_empty() {
            return None;
        }
        let base = self.observed.as_ref().filter(|w| {
            w.has_quota() && !w.is_evicted() && (self.replacing || !w.is_true(FINISHED)) && w.is_true(ADMITTED)
        });
        if let Some(w) = base.filter(|_| self.elastic && !later) {
            let counts = grown_counts(job, w, plan);
            if w.spec.pod_sets.iter().any(|set| counts.get(&set.name).is_some_and(|n| *n > set.count)) {
                // Kueue says the pending slice of these very counts can never fit: the plan is
                // cut as without slices, and says why.
                self.never_fits = self.pending.as_ref().filter(|p| same_counts(p, &counts)).and_then(|p| {
                    let c = p.condition(QUOTA_RESERVED).filter(|c| c.status == "False")?;
                    c.message.contains(NEVER_FITS).then(|| {
                        format!(
                            "Kueue can never admit Workload slice {} in its ClusterQueue ({}: {})",
                            p.metadata.name.as_deref().unwrap_or_default(),
                            c.reason,
                            c.message
                        )
                    })
                });
                if self.never_fits.is_none() {
                    self.grow_to = Some(counts);
                }
            }
        }
        let own_chief = job.declared_replica_spec(ReplicaType::Chief).is_some();
        let chief = plan.spec.replica_resource_specs.get(&ReplicaType::Chief).map_or(0, |s| s.replicas.min(1));
        let allowed = |t: ReplicaType| -> Option<i32> {
            match t {
                ReplicaType::Chief if !own_chief => self.admitted.get(&ReplicaType::Worker).map(|n| (*n).min(1)),
                ReplicaType::Worker if !own_chief => self.admitted.get(&t).map(|n| n.saturating_sub(chief).max(0)),
                t => self.admitted.get(&t).copied(),
            }
        };
        let mut capped = plan.clone();
        let plan_name = plan.metadata.name.as_deref().unwrap_or_default();
        for (t, spec) in &mut capped.spec.replica_resource_specs {
            let limit = allowed(*t).unwrap_or(0);
            if spec.replicas > limit {
                self.excess.push(format!(
                    "ScalePlan {plan_name} asks for {} {t} pods, Kueue admitted {limit}: {} wait",
                    spec.replicas,
                    spec.replicas - limit
                ));
                spec.replicas = limit;
            }
        }
        self.excess.extend(self.never_fits.clone());
        capped.spec.create_pods.retain(|m| m.replica_type().and_then(allowed).is_some_and(|n| m.rank_index < n));
        if let Some(n) = allowed(ReplicaType::Ps).and_then(|n| usize::try_from(n).ok()) {
            capped.spec.ps_hosts.truncate(n);
        }
        (capped != *plan).then_some(capped)
    }

    /// Whether the current plan waits for Kueue to admit a new Workload slice: it is carried out
    /// within the admission and stays in progress (`Scaling`) until the slice is admitted.
    pub(crate) fn waits_for_quota(&self) -> bool {
        self.grow_to.is_some()
    }

    /// What the pass writes to the job's slices other than the current one: each stale slice
    /// finished (`OutOfSync`); the new slice the current plan waits for, made (or the pending
    /// one's counts updated: it holds no quota, so Kueue lets them change); a pending slice no
    /// plan waits for any more (the plan fits, a later plan came, the job was evicted or held)
    /// withdrawn (`Finished`, `OutOfSync`). Nothing while Kueue is between finishing the old
    /// slice and admitting the new one ([`Gate::replacing`]), nor once the job has ended (its
    /// slices are finished with it).
    fn slice_actions(&self, job: &ElasticJob, ended: bool, now: &Time) -> Vec<Action> {
        let mut out = Vec::new();
        for w in &self.stale {
            let message = format!(
                "ElasticJob {}'s Workload {} is admitted in its place: this slice is out of step",
                job.name(),
                self.observed.as_ref().and_then(|o| o.metadata.name.as_deref()).unwrap_or_default()
            );
            let finished = condition(w, FINISHED, "True", REASON_OUT_OF_SYNC, message.clone(), now);
            out.push(workload_status(w, [finished], false, message));
        }
        if ended || self.replacing {
            return out;
        }
        match (&self.grow_to, &self.pending, &self.observed) {
            (Some(counts), None, Some(w)) => {
                let slice = new_slice(job, w, counts, self.last_slice.saturating_add(1));
                let asks = counts.iter().map(|(name, n)| format!("{name} {n}")).collect::<Vec<_>>().join(", ");
                out.push(Action::CreateOrUpdateWorkload {
                    reason: format!(
                        "ElasticJob {}'s plan asks more than Kueue admitted: Workload slice {} replaces {} ({asks})",
                        job.name(),
                        slice.metadata.name.as_deref().unwrap_or_default(),
                        w.metadata.name.as_deref().unwrap_or_default()
                    ),
                    workload: Box::new(slice),
                    cause: Cause::Queue,
                });
            }
            (Some(counts), Some(p), _) => {
                let mut updated = p.clone();
                updated.status = None;
                for set in &mut updated.spec.pod_sets {
                    if let Some(n) = counts.get(&set.name) {
                        set.count = *n;
                    }
                }
                if updated.spec != p.spec {
                    out.push(Action::CreateOrUpdateWorkload {
                        reason: format!(
                            "ElasticJob {}'s plan changed while its Workload slice {} waits for quota: its counts follow",
                            job.name(),
                            p.metadata.name.as_deref().unwrap_or_default()
                        ),
                        workload: Box::new(updated),
                        cause: Cause::Queue,
                    });
                }
            }
            (None, Some(p), _) => {
                let message = match &self.never_fits {
                    Some(never) => format!("{never}: it is withdrawn, and the plan cut to the admission"),
                    None => {
                        format!("no plan of ElasticJob {} waits for this slice any more: it is withdrawn", job.name())
                    }
                };
                let finished = condition(p, FINISHED, "True", REASON_OUT_OF_SYNC, message.clone(), now);
                out.push(workload_status(p, [finished], false, message));
            }
            _ => {}
        }
        out
    }

    /// The Workload's counts lowered to what the job's plans now ask (`targets`: each task type's
    /// replicas by the newest plan carried out that gives them), once the pods above them are gone,
    /// for a job that opts in with Kueue's own annotation `kueue.x-k8s.io/elastic-job: "true"` (a
    /// count given back cannot be raised again in place, so a job that may grow back within its
    /// admission keeps it):
    /// under Kueue's `ElasticJobsViaWorkloadSlices` gate an admitted Workload's counts may go down
    /// in place, and Kueue frees the difference at once (`WorkloadReconciler.Update`, its
    /// `ScaledDown` case, in `pkg/controller/core/workload_controller.go`), so a scale-down gives
    /// its quota back to the queue. A chief made from the worker's template is in the worker pod
    /// set. Without the gate the Workload keeps its counts until the job ends.
    fn give_back(&self, job: &ElasticJob, targets: &TypeMap<i32>, pods: &[Pod]) -> Option<Action> {
        if !self.slices || !opts_in(job) || self.carrying_out {
            return None;
        }
        let w = self.observed.as_ref().filter(|w| w.is_admitted() && !w.is_evicted() && !w.is_true(FINISHED))?;
        let mut counts = BTreeMap::new();
        for set in &w.spec.pod_sets {
            let Some(types) = pod_set_types(job, &set.name) else { continue };
            let Some(main) = types.first().and_then(|t| targets.get(t)) else { continue };
            let wanted =
                types.iter().skip(1).filter_map(|t| targets.get(t)).fold(*main, |n, m| n.saturating_add(*m)).max(0);
            let live = pods
                .iter()
                .filter(|p| is_active(p) && !pod::is_terminating(p))
                .filter(|p| pod::pod_type(p).is_some_and(|t| types.contains(&t)))
                .count();
            if wanted < set.count && usize::try_from(wanted).is_ok_and(|n| live <= n) {
                counts.insert(set.name.clone(), wanted);
            }
        }
        if counts.is_empty() {
            return None;
        }
        let lowered = counts.iter().map(|(name, n)| format!("{name} {n}")).collect::<Vec<_>>().join(", ");
        Some(Action::SetWorkloadCounts {
            namespace: w.metadata.namespace.clone().filter(|n| !n.is_empty()),
            name: w.metadata.name.clone().unwrap_or_default(),
            resource_version: w.metadata.resource_version.clone(),
            counts,
            reason: format!("ElasticJob {} was scaled down: its Workload gives the quota back ({lowered})", job.name()),
            cause: Cause::Queue,
        })
    }

    /// What the pass writes back, once the job's own actions are known: the Workload's `Finished`
    /// condition when the job has ended, its quota released once an evicted job's pods are gone,
    /// its counts lowered after a scale-down ([`Gate::give_back`]), and the job's `QuotaLimited`
    /// condition and Warning when a plan was cut.
    pub(crate) fn finish(
        mut self,
        job: &ElasticJob,
        pods: &[Pod],
        targets: &TypeMap<i32>,
        mut actions: Vec<Action>,
        now: &Time,
    ) -> Vec<Action> {
        let give_back = self.give_back(job, targets, pods);
        let mut all = std::mem::take(&mut self.actions);
        actions.extend(give_back);
        let status = actions
            .iter()
            .rev()
            .find_map(|a| match a {
                Action::SetJobStatus { status, .. } => Some(status.clone()),
                _ => None,
            })
            .or_else(|| job.status.clone());
        if let Some(w) = &self.observed {
            let ended = status
                .as_ref()
                .and_then(|s| s.phase)
                .filter(|p| matches!(p, JobConditionType::Succeeded | JobConditionType::Failed));
            if let Some(phase) = ended {
                let message = status
                    .as_ref()
                    .and_then(|s| s.common())
                    .and_then(|c| c.conditions.iter().rev().find(|c| c.type_ == phase))
                    .map(|c| c.message.clone())
                    .unwrap_or_default();
                // Every unfinished slice of the job: a pending one left would be admitted later,
                // whole, for a job that has ended.
                for w in std::iter::once(w).chain(&self.pending).filter(|w| !w.is_true(FINISHED)) {
                    let finished = condition(w, FINISHED, "True", phase.as_str(), message.clone(), now);
                    actions.push(workload_status(
                        w,
                        [finished],
                        false,
                        format!("ElasticJob {} has {}", job.name(), phase.as_str().to_ascii_lowercase()),
                    ));
                }
            } else if w.has_quota() && w.is_true(EVICTED) && !pods.iter().any(is_active) {
                let evicted = w.condition(EVICTED).cloned().unwrap_or_default();
                let requeued = matches!(evicted.reason.as_str(), "Preempted" | "NodeFailures");
                let mut changes = vec![
                    condition(
                        w,
                        REQUEUED,
                        if requeued { "True" } else { "False" },
                        &evicted.reason,
                        evicted.message.clone(),
                        now,
                    ),
                    condition(w, QUOTA_RESERVED, "False", "Pending", evicted.message.clone(), now),
                ];
                if w.is_true(ADMITTED) {
                    changes.push(condition(
                        w,
                        ADMITTED,
                        "False",
                        "NoReservation",
                        "The workload has no reservation".to_owned(),
                        now,
                    ));
                }
                let why = format!("the pods of evicted ElasticJob {} are gone: its quota is released", job.name());
                actions.push(workload_status(w, changes, true, why));
            }
        }
        let ended = status
            .as_ref()
            .and_then(|s| s.phase)
            .is_some_and(|p| matches!(p, JobConditionType::Succeeded | JobConditionType::Failed));
        actions.extend(self.slice_actions(job, ended, now));
        let waiting = self.grow_to.as_ref().map(|_| {
            let slice = self.pending.as_ref().and_then(|p| p.metadata.name.clone());
            let slice = slice.unwrap_or_else(|| queue::slice_name(job, self.last_slice.saturating_add(1)));
            let why = self
                .pending
                .as_ref()
                .and_then(|p| p.condition(QUOTA_RESERVED))
                .map(|c| format!(" ({QUOTA_RESERVED} {}, {}: {})", c.status, c.reason, c.message))
                .unwrap_or_default();
            format!("{}: Workload slice {slice} waits for Kueue's quota{why}", self.excess.join("; "))
        });
        // Turned false by a plan carried out within the admission, not by a pass without one
        // (the cut plan is done: what it asked beyond the admission still waits).
        let limited = self.carrying_out
            && status.as_ref().is_some_and(|s| status::has_condition(s, JobConditionType::QuotaLimited));
        if !self.excess.is_empty() || limited {
            let mut status = status.unwrap_or_default();
            let (state, reason, message) = match &waiting {
                Some(message) => (ConditionStatus::True, REASON_WAITING_FOR_QUOTA, message.clone()),
                None if self.excess.is_empty() => (ConditionStatus::False, REASON_WITHIN_ADMISSION, String::new()),
                None => (ConditionStatus::True, REASON_EXCEEDS_ADMISSION, self.excess.join("; ")),
            };
            status::set_condition(
                &mut status,
                JobCondition {
                    type_: JobConditionType::QuotaLimited,
                    status: state,
                    reason: reason.to_owned(),
                    message: message.clone(),
                    last_update_time: Some(now.clone()),
                    last_transition_time: Some(now.clone()),
                },
            );
            // What it waits for is told as it changes (Kueue's message, the counts asked), though
            // `set_condition` keeps a condition of the same status and reason as it was.
            if let Some(c) = status
                .common_mut()
                .conditions
                .iter_mut()
                .find(|c| c.type_ == JobConditionType::QuotaLimited && c.reason == reason && c.message != message)
            {
                c.message.clone_from(&message);
                c.last_update_time = Some(now.clone());
            }
            let said = |s: Option<&crate::api::ElasticJobStatus>| {
                s.and_then(|s| s.common())
                    .and_then(|c| c.conditions.iter().find(|c| c.type_ == JobConditionType::QuotaLimited))
                    .map(|c| (c.status, c.reason.clone(), c.message.clone()))
            };
            let told_before = said(job.status.as_ref()) == said(Some(&status));
            let changed = job.status.as_ref() != Some(&status);
            if changed {
                actions.retain(|a| !matches!(a, Action::SetJobStatus { .. }));
                actions.push(Action::SetJobStatus { status, cause: Cause::Queue, event: None });
            }
            if waiting.is_some() {
                // Told once a change of what it waits for, not at every pass while it waits.
                if !told_before {
                    actions.push(Action::RecordEvent {
                        type_: "Normal".to_owned(),
                        reason: REASON_WAITING_FOR_QUOTA.to_owned(),
                        message,
                        cause: Cause::Queue,
                    });
                }
            } else if !self.excess.is_empty() {
                actions.push(Action::RecordEvent {
                    type_: "Warning".to_owned(),
                    reason: REASON_EXCEEDS_ADMISSION.to_owned(),
                    message,
                    cause: Cause::Queue,
                });
            }
        }
        all.extend(actions);
        all
    }
}

/// What Kueue's flavour assigner says of a request beyond what its ClusterQueue (with what it may
/// borrow) holds at all: "... > maximum capacity (...)" (`fitsResourceQuota`, its no-fit case, in
/// `pkg/scheduler/flavorassigner/flavorassigner.go`). For a slice it compares the growth alone.
const NEVER_FITS: &str = "> maximum capacity";

/// Whether a Workload's pod sets have these counts (pod sets not named keep theirs).
fn same_counts(w: &Workload, counts: &BTreeMap<String, i32>) -> bool {
    w.spec.pod_sets.iter().all(|set| counts.get(&set.name).is_none_or(|n| *n == set.count))
}

/// Why a queued job without an admitted Workload is held.
fn hold_of(job: &ElasticJob, name: &str, observed: Option<&Workload>, another: bool) -> Hold {
    let job_name = job.name();
    match observed {
        Some(w) if w.spec.active == Some(false) => Hold {
            reason: REASON_DEACTIVATED,
            message: format!(
                "Workload {name} is deactivated (spec.active: false): ElasticJob {job_name} is suspended until it is active and admitted again"
            ),
        },
        Some(w) if w.is_evicted() => {
            let why = w.condition(EVICTED).map(|c| format!("{}: {}", c.reason, c.message)).unwrap_or_default();
            Hold {
                reason: REASON_EVICTED,
                message: format!(
                    "Kueue evicted Workload {name} ({why}): ElasticJob {job_name} is suspended until it is admitted again"
                ),
            }
        }
        Some(w) => {
            let why = w
                .condition(QUOTA_RESERVED)
                .map(|c| format!(" ({QUOTA_RESERVED} {}, {}: {})", c.status, c.reason, c.message))
                .unwrap_or_default();
            Hold {
                reason: REASON_NOT_ADMITTED,
                message: format!(
                    "ElasticJob {job_name} waits for Kueue to admit Workload {name} in LocalQueue {}{why}",
                    queue_of(job)
                ),
            }
        }
        None if another => Hold {
            reason: REASON_NOT_ADMITTED,
            message: format!(
                "ElasticJob {job_name} waits: Workload {name} belongs to another object (an earlier job of the same name, until it is collected)"
            ),
        },
        None => Hold {
            reason: REASON_NOT_ADMITTED,
            message: format!(
                "ElasticJob {job_name} waits for Kueue to admit its Workload {name} in LocalQueue {}",
                queue_of(job)
            ),
        },
    }
}

fn queue_of(job: &ElasticJob) -> &str {
    queue::queue_name(job).unwrap_or_default()
}

fn cluster_queue(w: &Workload) -> &str {
    w.status.as_ref().and_then(|s| s.admission.as_ref()).map_or("", |a| a.cluster_queue.as_str())
}

/// Whether two Workload specs ask Kueue for the same: the queue, the priority, and each pod set's
/// name, count and what Kueue admits it by (its containers' resources, node selector, affinity and
/// tolerations). Not the whole template: the API server may default fields of a stored one.
fn same_request(a: &WorkloadSpec, b: &WorkloadSpec) -> bool {
    let asks = |spec: &WorkloadSpec| -> Vec<_> {
        spec.pod_sets
            .iter()
            .map(|p| {
                let pod = p.template.spec.as_ref();
                let resources = |c: &[crate::podspec::Container]| -> Vec<_> {
                    c.iter().map(|c| c.resources.clone().unwrap_or_default()).collect()
                };
                (
                    p.name.clone(),
                    p.count,
                    pod.map(|s| resources(&s.containers)),
                    pod.and_then(|s| s.init_containers.as_deref()).map(resources),
                    pod.and_then(|s| s.node_selector.clone()).unwrap_or_default(),
                    pod.and_then(|s| s.affinity.clone()),
                    pod.and_then(|s| s.tolerations.clone()).unwrap_or_default(),
                )
            })
            .collect()
    };
    a.queue_name == b.queue_name
        && a.priority_class_ref == b.priority_class_ref
        && a.priority == b.priority
        && asks(a) == asks(b)
}

/// Whether a pod still holds what the admission gave: Running or Pending.
fn is_active(p: &Pod) -> bool {
    matches!(pod::pod_phase(p), "Running" | "Pending")
}

/// A condition of the Workload as Kueue sets one (`apimeta.SetStatusCondition`): the transition
/// time moves only when the status changes.
fn condition(w: &Workload, type_: &str, state: &str, reason: &str, message: String, now: &Time) -> WorkloadCondition {
    let old = w.condition(type_);
    let since = old.filter(|c| c.status == state).and_then(|c| c.last_transition_time.clone());
    WorkloadCondition {
        type_: type_.to_owned(),
        status: state.to_owned(),
        reason: reason.to_owned(),
        message,
        last_transition_time: Some(since.unwrap_or_else(|| now.clone())),
        observed_generation: w.metadata.generation,
    }
}

/// The status patch of a Workload: its conditions with `changes` set by type, in their order.
fn workload_status(
    w: &Workload,
    changes: impl IntoIterator<Item = WorkloadCondition>,
    clear_admission: bool,
    reason: String,
) -> Action {
    let mut conditions = w.status.as_ref().map(|s| s.conditions.clone()).unwrap_or_default();
    for change in changes {
        match conditions.iter_mut().find(|c| c.type_ == change.type_) {
            Some(c) => *c = change,
            None => conditions.push(change),
        }
    }
    Action::SetWorkloadStatus {
        namespace: w.metadata.namespace.clone().filter(|n| !n.is_empty()),
        name: w.metadata.name.clone().unwrap_or_default(),
        resource_version: w.metadata.resource_version.clone(),
        conditions,
        clear_admission,
        reason,
        cause: Cause::Queue,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{PodMeta, ReplicaResourceSpec};
    use crate::workload::PodSet;

    fn gate(admitted: &[(ReplicaType, i32)]) -> Gate {
        Gate {
            job: ElasticJob::default(),
            hold: None,
            actions: Vec::new(),
            observed: None,
            admitted: admitted.iter().copied().collect(),
            excess: Vec::new(),
            slices: false,
            elastic: false,
            pending: None,
            replacing: false,
            last_slice: 1,
            never_fits: None,
            grow_to: None,
            stale: Vec::new(),
            ended: false,
            carrying_out: false,
        }
    }

    fn plan(workers: i32, chief: Option<i32>) -> ScalePlan {
        let mut plan = ScalePlan::default();
        plan.metadata.name = Some("p".into());
        let specs = &mut plan.spec.replica_resource_specs;
        specs.insert(ReplicaType::Worker, ReplicaResourceSpec { replicas: workers, ..Default::default() });
        if let Some(n) = chief {
            specs.insert(ReplicaType::Chief, ReplicaResourceSpec { replicas: n, ..Default::default() });
        }
        plan.spec.create_pods.push(PodMeta { type_: Some(ReplicaType::Worker), rank_index: 5, ..Default::default() });
        plan
    }

    #[test]
    fn a_plan_is_cut_to_the_admitted_counts_and_a_chief_shares_the_workers() {
        let job = ElasticJob::default();
        let mut within = gate(&[(ReplicaType::Worker, 4)]);
        let Some(cut) = within.within_admission(&job, &plan(6, Some(1)), false) else { panic!("not cut") };
        let replicas = |t| cut.spec.replica_resource_specs.get(&t).map(|s| s.replicas);
        // The chief is made from the worker's template: it takes one of the 4.
        assert_eq!((replicas(ReplicaType::Chief), replicas(ReplicaType::Worker)), (Some(1), Some(3)));
        assert!(cut.spec.create_pods.is_empty(), "rank 5 is beyond what was admitted");
        assert_eq!(within.excess.len(), 1, "{:?}", within.excess);
        let mut roomy = gate(&[(ReplicaType::Worker, 8)]);
        assert!(roomy.within_admission(&job, &plan(6, None), false).is_none(), "6 workers and rank 5 fit in 8");
        let mut fits = gate(&[(ReplicaType::Worker, 8)]);
        let mut small = plan(6, None);
        small.spec.create_pods.clear();
        assert!(fits.within_admission(&job, &small, false).is_none() && fits.excess.is_empty());
    }

    #[test]
    fn a_scale_down_gives_back_only_under_the_gate_for_a_job_that_opts_in_once_its_pods_are_gone() {
        let job: ElasticJob = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "j", "namespace": "ns", "annotations": {"kueue.x-k8s.io/elastic-job": "true"}},
            "spec": {"replicaSpecs": {"ps": {"replicas": 1}, "worker": {"replicas": 4}}}
        }))
        .unwrap_or_default();
        let workload: Workload = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "elasticjob-j", "namespace": "ns", "resourceVersion": "7"},
            "spec": {"podSets": [{"name": "dlrover-master", "count": 1}, {"name": "ps", "count": 1}, {"name": "worker", "count": 4}]},
            "status": {"conditions": [{"type": "QuotaReserved", "status": "True"}, {"type": "Admitted", "status": "True"}],
                       "admission": {"clusterQueue": "q", "podSetAssignments": [{"name": "worker", "count": 4}]}}
        }))
        .unwrap_or_default();
        let mut on = gate(&[(ReplicaType::Worker, 4)]);
        on.observed = Some(workload);
        on.slices = true;
        let pod = |t: ReplicaType, id: i32| super::super::tests::task(t, id, id, "Running");
        let targets = TypeMap::from_iter([(ReplicaType::Ps, 1), (ReplicaType::Chief, 1), (ReplicaType::Worker, 1)]);
        let counts = |g: &Gate, job: &ElasticJob, pods: &[Pod]| match g.give_back(job, &targets, pods) {
            Some(Action::SetWorkloadCounts { counts, resource_version, .. }) => Some((counts, resource_version)),
            _ => None,
        };
        let gone = [pod(ReplicaType::Ps, 0), pod(ReplicaType::Chief, 0), pod(ReplicaType::Worker, 0)];
        // The chief and one worker: the worker pod set goes down to 2, at the version read.
        assert_eq!(counts(&on, &job, &gone), Some((BTreeMap::from([("worker".to_owned(), 2)]), Some("7".to_owned()))));
        // Not while a pod above the new count still runs.
        let more = [gone.as_slice(), &[pod(ReplicaType::Worker, 1), pod(ReplicaType::Worker, 2)]].concat();
        assert_eq!(counts(&on, &job, &more), None);
        // Not without the gate, nor for a job that does not opt in.
        on.slices = false;
        assert_eq!(counts(&on, &job, &gone), None);
        on.slices = true;
        let mut plain = job.clone();
        plain.metadata.annotations = None;
        assert_eq!(counts(&on, &plain, &gone), None);
    }

    #[test]
    fn a_count_lowered_in_place_bounds_what_was_admitted() {
        let workload: Workload = serde_json::from_value(serde_json::json!({
            "spec": {"podSets": [{"name": "worker", "count": 2}]},
            "status": {"admission": {"clusterQueue": "q", "podSetAssignments": [{"name": "worker", "count": 4}]}}
        }))
        .unwrap_or_default();
        assert_eq!(queue::admitted_counts(&workload), TypeMap::from_iter([(ReplicaType::Worker, 2)]));
    }

    #[test]
    fn a_stored_workload_asks_the_same_whatever_the_server_defaulted() {
        let container = |pull: Option<&str>| crate::podspec::Container {
            name: "main".into(),
            image_pull_policy: pull.map(str::to_owned),
            ..Default::default()
        };
        let spec = |pull: Option<&str>, count: i32| WorkloadSpec {
            pod_sets: vec![PodSet {
                name: "worker".into(),
                count,
                template: crate::podspec::PodTemplateSpec {
                    metadata: None,
                    spec: Some(crate::podspec::PodSpec { containers: vec![container(pull)], ..Default::default() }),
                },
            }],
            ..Default::default()
        };
        assert!(same_request(&spec(None, 4), &spec(Some("IfNotPresent"), 4)));
        assert!(!same_request(&spec(None, 4), &spec(None, 5)));
    }
}
