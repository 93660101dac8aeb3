//! The four TaskManager operations, as pure functions of (job, scale plan, observed pods, now),
//! and the job-level state machine that runs them over every replica type in a fixed order.
//!
//! Each operation checks its input ([`crate::validate`]), hands it to the crate's planner, and
//! returns the plan; nothing is decided here. Pods are told apart by their labels
//! ([`LABEL_JOB_NAME`](crate::LABEL_JOB_NAME) and the others): the job name, the replica type,
//! the pod id (`replica-index`) and the rank (`rank-index`). A pod is *alive* when its phase is
//! Running, Pending or Succeeded and it is not being deleted.
//!
//! # `reconcile_pods`
//! With a `replicaResourceSpecs` entry for the type, the type is scaled to `replicas` live ranks:
//! ranks, not pods, are counted, so a pod and its migration replacement count once. `replicas` is
//! the total once the plan is carried out: the live ranks it keeps (not those of pods named in its
//! `removePods`) and the ranks its `createPods` entries fill. Scaling up creates ranks from the lowest free one with ids from the
//! highest id seen + 1 (on a first launch id = rank, as upstream); scaling down deletes the
//! Running and Pending pods of the highest ranks (upstream deletes the highest ids, which after a
//! relaunch would leave a hole in the ranks every worker lists). Then each `createPods` entry is
//! created unless a pod of that name exists or a live pod holds its rank, and each `removePods`
//! entry is deleted. Each `migratePods` entry whose pod does not yet have its new resource gets a
//! replacement with a new id, the same rank and the new resource (the entry's values over the old
//! pod's, so a migration to more memory keeps the cpu); the old pod is deleted once the
//! replacement runs. A pod the plan both creates and migrates is created with the new resource,
//! and so is a scale-up pod whose new id gives it a name `migratePods` lists. A replacement (of a
//! migrated or a failed pod) never takes such a name, or the next pass would migrate it again.
//!
//! # `handle_fault_pods`
//! The `restart-count` label holds the relaunches left for a rank. For each rank of the type with
//! no live pod, its newest Failed pod is relaunched with a new id and the same rank (and the same
//! `TF_CONFIG`) when the label is above 0 and the restart policy allows: `Never` does not,
//! `OnFailure` and `Always` (and no policy) do, `ExitCode` does for exit codes 128-255 and not for
//! 1-127. An OOMKilled pod comes back with double the memory, within what the job's
//! `resourceLimits.memory` leaves after its other live pods. A missing master is recreated.
//!
//! # `stop_running_pods` and `sync_job_state`
//! Stopping deletes every Running or Pending pod of the type with grace period 0. Syncing counts the
//! type's pods by phase into `replicaStatuses`, keeping `initial`; for the master it also moves
//! the job to Succeeded, Failed (with the pod's reason), Pending (first master pending) or Running.

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

use crate::api::{ElasticJob, ReplicaType, ScalePlan};
use crate::error::{Result, into_result};
use crate::job;
use crate::plan::Plan;
use crate::planner::{self, Planner};
use crate::template::Options;
use crate::validate;

/// Creates, deletes and migrates the pods of one type so the job matches the scale plan
/// (upstream's `ReconcilePods`; see the module docs). For the master type: creates the master
/// pod and service when the job has no master pod.
///
/// # Errors
/// [`crate::Error::Invalid`] when the job, the plan or the pods are invalid, or the plan would
/// exceed the core's bounds; no plan is returned then.
pub fn reconcile_pods(
    job: &ElasticJob,
    replica_type: ReplicaType,
    scale_plan: &ScalePlan,
    pods: &[Pod],
    options: &Options,
) -> Result<Plan> {
    validate::check_job_and_plan(job, Some(scale_plan))?;
    let mut planner = Planner::new(job, options, pods, scale_plan)?;
    if replica_type == ReplicaType::DlroverMaster {
        planner.ensure_master()?;
    } else {
        planner.reconcile_type(replica_type, scale_plan)?;
    }
    Ok(planner.finish())
}

/// Relaunches the failed pods of one type that the restart policy and budget allow, or recreates
/// a missing master (upstream's `HandleFaultPods`; see the module docs).
///
/// # Errors
/// [`crate::Error::Invalid`] when the job or the pods are invalid.
pub fn handle_fault_pods(job: &ElasticJob, replica_type: ReplicaType, pods: &[Pod], options: &Options) -> Result<Plan> {
    validate::check_job(job)?;
    let layout_plan = job::plan_or_initial(job, None);
    let mut planner = Planner::new(job, options, pods, &layout_plan)?;
    planner.handle_faults(replica_type)?;
    Ok(planner.finish())
}

/// Deletes every Running or Pending pod of one type with grace period 0 (upstream's
/// `StopRunningPods`).
///
/// # Errors
/// [`crate::Error::Invalid`] when the job or the pods are invalid.
pub fn stop_running_pods(job: &ElasticJob, replica_type: ReplicaType, pods: &[Pod]) -> Result<Plan> {
    validate::check_job(job)?;
    let layout_plan = ScalePlan::default();
    let options = Options::default();
    let mut planner = Planner::new(job, &options, pods, &layout_plan)?;
    planner.stop(replica_type, planner::STOP_REASON);
    Ok(planner.finish())
}

/// Counts one type's pods into the job status, and for the master moves the job's phase (upstream's
/// `SyncJobState`). The plan sets the job status when it changed, and is empty otherwise.
///
/// # Errors
/// [`crate::Error::Invalid`] when the job or the pods are invalid.
pub fn sync_job_state(job: &ElasticJob, replica_type: ReplicaType, pods: &[Pod], now: &Time) -> Result<Plan> {
    validate::check_job(job)?;
    let layout_plan = ScalePlan::default();
    let options = Options::default();
    let mut planner = Planner::new(job, &options, pods, &layout_plan)?;
    let before = job.status.clone().unwrap_or_default();
    let mut status = before.clone();
    planner.sync(&mut status, replica_type, now);
    planner.set_job_status(&before, status);
    Ok(planner.finish())
}

/// One pass of the job controller, a state machine on the job's `status.phase`:
/// - none or `Created`: initialise the status (Created condition, start time), create the master,
///   sync;
/// - `Pending`: sync;
/// - `Scaling`, `Running` (or `Restarting`): when `scale_plan` is the job's `status.scalePlan`
///   and its phase is `Pending` or `Scaling`, run it: mark it `Scaling`, reconcile every task type,
///   and mark it `Succeeded` with a finish time once every pod it asks for is created (a plan
///   whose pods' TF_CONFIGs exceed [`validate::MAX_TF_CONFIG_HOSTS`] takes several passes, and stays
///   `Scaling` until then); in `Running`, also handle the faults of every type; then sync;
/// - `Succeeded` or `Failed`: sync and stop running pods.
///
/// Whenever the job ends this pass `Succeeded` or `Failed`, its Running and Pending pods are
/// stopped in the same pass.
///
/// Types go in the order of [`ReplicaType::ALL`]. The job status is set last, and only when it
/// changed, so planning again on an unchanged cluster gives an empty plan.
///
/// # Errors
/// [`crate::Error::Invalid`] when the job, the plan or the pods are invalid; no plan is returned
/// then.
pub fn reconcile(
    job: &ElasticJob,
    scale_plan: Option<&ScalePlan>,
    pods: &[Pod],
    now: &Time,
    options: &Options,
) -> Result<Plan> {
    validate::check_job_and_plan(job, scale_plan)?;
    let layout_plan = job::plan_or_initial(job, scale_plan);
    let mut planner = Planner::new(job, options, pods, &layout_plan)?;
    planner.pass(scale_plan, now)?;
    Ok(planner.finish())
}

/// One pass of the scale-plan controller: a plan labelled `scale-type: auto` moves its owner job to
/// `Scaling`. The plan's phase goes from none to `Created` (with a create time) to `Pending`; the job
/// gets `status.scalePlan`, the `initial` count of each type the plan names (when still 0), and a
/// Scaling condition. Plans without the label, and plans past `Pending`, give an empty plan.
/// `job` is `None` when the owner job does not exist.
///
/// # Errors
/// [`crate::Error::Invalid`] when the plan (or the job) is invalid.
pub fn reconcile_scale_plan(scale_plan: &ScalePlan, job: Option<&ElasticJob>, now: &Time) -> Result<Plan> {
    match job {
        Some(job) => validate::check_job_and_plan(job, Some(scale_plan))?,
        None => into_result(validate::validate_scale_plan(scale_plan))?,
    }
    Ok(planner::scale_plan_pass(scale_plan, job, now))
}
