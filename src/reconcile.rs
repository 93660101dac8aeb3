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
//! relaunch would leave a hole in the ranks every worker lists). A rank whose newest pod failed
//! counts as held: its relaunch is DLRover's master's, so a scale-up does not fill it. Then each
//! `createPods` entry is created as written (its name, id, rank and service) unless a pod of that
//! name exists, even beside a live pod at its rank (a PS migration), and each `removePods`
//! entry is deleted. Each `migratePods` entry whose pod is Running or Pending and does not yet
//! have its new resource gets a replacement with a new id, the same rank and the new resource (the
//! entry's values over the old pod's, so a migration to more memory keeps the cpu); the old pod is
//! deleted once the replacement runs. A pod that has Succeeded is not replaced: it runs no more. A pod the plan both creates and migrates is created with the new resource,
//! and so is a scale-up pod whose new id gives it a name `migratePods` lists. A migration's
//! replacement never takes such a name, or the next pass would migrate it again.
//!
//! New pods count their rank's relaunches in two labels: `relaunch-count` (which DLRover's master
//! reads from every pod and counts its relaunches from) and upstream's `restart-count` (the
//! relaunches left). A pod at a rank whose newest pod failed or is going away carries one relaunch
//! more and one left fewer; beside a live pod (a migration) the same counts; at a fresh rank `0`
//! and the replica's `restartCount`.
//!
//! # Who relaunches: `handle_fault_pods`
//! The master runs in DLRover's ScalePlan mode (`--platform k8s`), and while it runs it decides
//! every relaunch of a task pod: it reads the exit code, its relaunch budget (the replica's
//! `restartCount`), whether the node is critical, and raises the memory of an OOMKilled pod; then
//! it writes a ScalePlan whose `createPods` entry takes the failed pod's rank, which
//! `reconcile_pods` carries out as written. The core relaunches no task pod by itself, so a
//! failure ends with exactly one live pod at its rank. What stays the core's: a missing master
//! is recreated (its successor reads the job's pods when it starts, and relaunches what failed
//! meanwhile), and a finished master finishes the job. For task types `handle_fault_pods` plans
//! nothing, as upstream's `HandleFaultPods` did.
//!
//! Task pods come only from ScalePlans: the controller creates a job's master, and the master's
//! plans create every task pod. The master's first plan can differ from the spec (a PS job
//! without a chief gets one worker as its chief; `autoScale` rewrites resources), so pods made
//! from the spec first would only be replaced. [`crate::render`] still shows the job under its
//! first plan from the spec, for previews.
//!
//! # `stop_running_pods` and `sync_job_state`
//! Stopping deletes every Running or Pending pod of the type with grace period 0. Syncing counts the
//! type's pods by phase into `replicaStatuses`, keeping `initial`; for the master it also moves
//! the job to Succeeded, Failed (with the pod's reason), Pending (its first master pending, before the job ever ran) or Running.
//!
//! # The run policy: `spec.runPolicy`
//! Kubeflow's `RunPolicy` of training-operator v1.9, with its field names and types; a field
//! left out keeps DLRover's behaviour. While the job has not finished and is not suspended:
//! - `backoffLimit`: the job's task pods in phase Failed are counted (each is relaunched by
//!   DLRover's master as a new pod, where Kubeflow counts the container restarts of running pods;
//!   a failed master fails the job by itself, and a failed pod no longer observed no longer
//!   counts). A limit of 0 is reached by one failed pod, any other by as many as it says
//!   (Kubeflow's `PastBackoffLimit`). The job fails, reason `BackoffLimitExceeded`.
//! - `activeDeadlineSeconds`: from the moment `status.status.startTime` + the deadline (Kubeflow's
//!   `PastActiveDeadline`: at that moment too) the job fails, reason `DeadlineExceeded`. A resumed
//!   job's start time is the moment it is resumed.
//!
//! The backoff limit is checked first, as Kubeflow does; the `Failed` condition has Kubeflow's
//! message, the job a completion time, and the status write a Warning event; the job's Running
//! and Pending pods (the master's too) are stopped, whatever `cleanPodPolicy` says, for as long as
//! any is left. A master that finished the job in the same pass has the last word.
//!
//! Once the job has `Succeeded` or `Failed`, `cleanPodPolicy` says which pods are deleted, the
//! master's too: `All` every pod, `Running` the Running and Pending ones, `None` none. Without it,
//! `Running`, as DLRover's operator stops a finished job's running pods (Kubeflow's default for a
//! TFJob is `None`). A plan carried out while the master runs deletes what its `removePods` lists
//! whatever the policy, so DLRover's master's last plan, which removes every pod, still does; and
//! with `None`, a finished job still deletes what the `removePods` of its master's plans not
//! carried out yet list (the master wrote its last plan and exited before the job took it up).
//! `ttlSecondsAfterFinished`: from `status.status.completionTime` + the TTL on, the plan deletes
//! the job itself, in its last phase.
//!
//! A plan's `requeueAt` is the next such moment still ahead: the deadline of a job that runs,
//! the TTL of a finished one.

use crate::podspec::Pod;
use crate::podspec::Service;
use crate::podspec::Time;

use crate::api::{
    ConditionStatus, ElasticJob, ElasticJobStatus, JobCondition, JobConditionType, ReplicaType, ScalePlan,
};
use crate::error::{Error, Result, into_result};
use crate::job;
use crate::plan::{Action, Cause, Event, Plan};
use crate::planner::{self, Gates, Planner};
use crate::template::{self, Options};
use crate::{gang, status, validate};

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

/// Recreates a missing master (upstream's `HandleFaultPods`); for task types an empty plan:
/// DLRover's master decides their relaunches (see the module docs).
///
/// # Errors
/// [`crate::Error::Invalid`] when the job or the pods are invalid.
pub fn handle_fault_pods(job: &ElasticJob, replica_type: ReplicaType, pods: &[Pod], options: &Options) -> Result<Plan> {
    validate::check_job(job)?;
    let layout_plan = job::plan_or_masters_first(job, None);
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
///   `Scaling` until then); recreate a missing master (in `Scaling` too: a job leaves it only
///   once its master runs); then sync;
/// - `Succeeded` or `Failed`: sync and stop running pods.
///
/// Whenever the job ends this pass `Succeeded` or `Failed`, its Running and Pending pods are
/// stopped in the same pass.
///
/// With a `spec.runPolicy` (Kubeflow's, see the module docs), a job that has not finished fails in
/// the pass that finds a limit reached, and nothing is made for it; a finished one deletes the pods
/// its `cleanPodPolicy` names, and is deleted itself once its TTL has passed; the plan's
/// `requeueAt` says when the job next needs a pass.
///
/// Types go in the order of [`ReplicaType::ALL`]. The job status is set last, and only when it
/// changed, so planning again on an unchanged cluster gives an empty plan. The tasks are laid out
/// (the parameter servers each `TF_CONFIG` lists, the services kept, the names a plan reserves)
/// by `scale_plan` when the job's `status.scalePlan` names it, and by its master's first plan
/// otherwise.
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
    // The plan lays the tasks out only once the job has taken it up (it names it); until then the
    // pods a pass makes are its master's first plan's, as `controller_pass` lays them out.
    let named = job.status.as_ref().and_then(|s| s.scale_plan.as_deref());
    let taken_up = scale_plan.filter(|p| named.is_some_and(|n| p.metadata.name.as_deref() == Some(n)));
    let layout_plan = job::plan_or_masters_first(job, taken_up);
    let mut planner = Planner::new(job, options, pods, &layout_plan)?;
    planner.pass(scale_plan, now)?;
    Ok(planner.finish())
}

/// One pass of the controller over one job: every decision `elasticjob controller` makes, so the
/// controller, `elasticjob plan` and the browser preview give one answer. `plans` are the job's
/// ScalePlans, `pods` the pods and `services` the services with the job's name label (in its
/// namespace), as the cluster has them; `job` is `None` when the job does not exist (yet).
///
/// - **Which plan.** Plans labelled `scale-type: auto` (not being deleted, of this job by
///   `spec.ownerJob` or the `elasticjob-name` label) are taken up one after another, oldest first
///   (by creation time, then by the index in DLRover's `<job>-scaleplan-<i>` names, then by name),
///   none skipped: a new one only once the plan the job carries out (`status.scalePlan`) has
///   finished, and only while the job runs (Running, Restarting or Scaling, not suspended: a job
///   being created gets its master first, a finished one takes none up). Taking one up is
///   [`reconcile_scale_plan`]'s pass, and the plan taken up is carried out in the same call: the
///   job's own pass runs from the statuses that taking it up gives the job and the plan, and its
///   status writes replace those: one write for the job and one for the plan, not a pass that only
///   marks the plan taken up and a second, once that write has come back, that makes its pods. A
///   plan that asks for nothing (DLRover's master writes one every 60 s) is done at once, whatever
///   its place. Without a job, waiting plans are
///   only marked `Created`; a job being deleted gets an empty plan.
/// - **Every waiting plan in one call.** Once a plan is carried out, the next waiting one is taken
///   up in the same call, from the job, plans, pods and services as the writes so far leave them
///   (a pod made is `Pending`, one deleted is gone, though no new pod takes its name: the plan
///   makes its pods before it deletes any), as the next pass would take it up once those writes
///   came back through the watches: DLRover's master writes a relaunch plan for each pod it
///   lost, and a node that goes away with ten of a job's pods brings ten. The plan holds each
///   object's writes once (a service one plan deletes and a later one makes again is not deleted):
///   every plan's status and the job's as the last plan leaves them, the
///   job's telling every plan taken up (`took up scale plans <first> to <last>, <n> in all, oldest
///   first`). The chain stops, leaving the rest to the next call, at a plan not finished in its
///   pass (pods left for a later pass), at writes it does not lay over (an adoption, a PodGroup, a
///   Workload), once the pods made reach `maxPodCreates`, and for a job queued in Kueue, whose
///   plans are carried out within what Kueue admitted one a call. The pods of the whole chain
///   list at most [`validate::MAX_TF_CONFIG_HOSTS`] addresses in their `TF_CONFIG`s.
/// - **Which pods.** A pod is the job's unless another object is its controller (an earlier job of
///   the same name whose pods the garbage collector has not removed yet). A pod no one controls is
///   the job's, as upstream selected pods by label alone: it is counted, scaled and stopped like the
///   pods the operator made.
/// - **The job's pass** is [`reconcile`] with the job's current plan.
/// - **The job's services**, kept level-triggered from `services` in the same pass, while the job
///   runs (Running, Restarting or Scaling, not suspended, its master not finished) and takes no
///   plan up in this pass:
///   - every Running or Pending task pod of the job (not being deleted, nor deleted by this plan)
///     whose service is not among `services` gets it made again, named and built as when its pod
///     was made: the rank's own `<job>-edljob-<type>-<rank>`, or, for a pod a plan's `createPods`
///     entry gave an address, the service named after it; so does the running master, whose
///     service is `elasticjob-<job>-dlrover-master`. A service of that name the job does not own
///     counts as there: it is never overwritten.
///   - a task service the job owns (its controller owner reference is the job, by uid; for a job
///     without a uid, as in a preview, one no object controls; with the labels the operator puts
///     on the service of a rank) is deleted when its rank has no pod (none that is not being
///     deleted, and none this plan makes) and is at or above its type's target count (the
///     current plan's `replicas`, else the spec's; a type with neither keeps its services). A
///     scale-down deletes the services of the ranks it removes in its own pass, as before; each
///     service is deleted once.
///
///   Services another object owns, and the master's, are never deleted. Given no services, a
///   running job has the service of each of its running pods made again.
///
/// # Errors
/// [`crate::Error::Invalid`] when the job, a plan the pass would act on (the current one and every
/// waiting one, at `scalePlans[i]`, `i` its place in `plans`) or the pods are invalid, or more
/// than [`validate::MAX_OBSERVED_SERVICES`] services are given (at `services`); no plan is
/// returned then.
pub fn controller_pass(
    job: Option<&ElasticJob>,
    plans: &[ScalePlan],
    pods: &[Pod],
    services: &[Service],
    now: &Time,
    options: &Options,
) -> Result<Plan> {
    controller_pass_queued(job, plans, pods, services, Gates::default(), now, options)
}

/// [`controller_pass`] for a host that runs beside Kueue or a gang scheduler: `gates` is what it
/// observed of them for the job ([`Gates`]). Its `queue` is Kueue's state
/// ([`crate::QueueState`]: the job's Workload, the ResourceFlavors its admission names, the value
/// of the job's priority class); `None` is [`controller_pass`]'s: the queue label is not looked
/// at. For a job without the [`queue-name`](crate::workload::LABEL_QUEUE_NAME) label the plan is
/// [`controller_pass`]'s whatever `queue` says.
///
/// A job with a gang scheduler (`options.gangSchedulerName`, else Volcano for a job whose replicas
/// say `BatchScheduler: volcano`; [`crate::gang`] says who is in the gang and why) gets its
/// PodGroup ([`crate::gang::pod_group`]) made in the plan's first phase, before any pod, and
/// updated whole at the resourceVersion read when the job changes what the gang needs
/// (`gates.pod_group` is the PodGroup as observed); every pod of the job, its master too, goes to
/// that scheduler naming the group. With Volcano, no task pod is made while the PodGroup is
/// missing, and the job's `GangPending` condition says why its master waits while the group is
/// `Pending` before the job runs; it turns false once the pods come, or the job ends. A job that
/// has finished or is suspended deletes its PodGroup, as training-operator does; one of the job's
/// name it does not control is left alone and gets none of its pods. A job at odds with the gang scheduler is
/// refused ([`crate::gang::check`]).
///
/// A queued job runs only while its Workload is admitted (`Admitted` true, an admission, not
/// `Evicted`, not `spec.active: false`); otherwise it is planned as a job with `spec.suspend: true`
/// (its pods and master stopped, the `Suspended` condition saying why), and:
/// - its Workload ([`crate::queue::workload`]) is created when there is none, and its spec
///   replaced when the job changed while Kueue holds no quota for it (`spec.active` kept);
/// - its `spec.suspend` is set to true while it is held and to false once it is admitted (the
///   first phase of the plan, before any pod), and in the pass that admits it the job is planned as
///   resumed: its master is made, from the templates with what the admission adds
///   ([`crate::queue::admitted_job`]);
/// - an admitted job's current plan is carried out within the admitted counts: each type's
///   `replicas`, its `createPods` ranks and the PS addresses cut to them; what is cut is not made,
///   a Warning event (`ScalePlanExceedsAdmission`) says so and the job's `QuotaLimited`
///   condition is true until a plan fits;
/// - when the job has ended (`Succeeded` or `Failed`), the Workload's `Finished` condition is set
///   (reason `Succeeded` or `Failed`, the job's message), so Kueue releases the quota at once;
/// - when Kueue evicted the Workload and none of the job's pods is Running or Pending any more,
///   the quota is released as Kueue's job integrations release it: `QuotaReserved` false (reason
///   `Pending`, the eviction's message), `Admitted` false (`NoReservation`), `Requeued` (true after
///   `Preempted` or `NodeFailures`), the admission removed; Kueue then queues it again.
///
/// # Errors
/// As [`controller_pass`]; and an admission that names a ResourceFlavor not in `queue.flavors`, or
/// adds a label, annotation or node-selector key the template sets otherwise (at its path).
pub fn controller_pass_queued(
    job: Option<&ElasticJob>,
    plans: &[ScalePlan],
    pods: &[Pod],
    services: &[Service],
    gates: Gates<'_>,
    now: &Time,
    options: &Options,
) -> Result<Plan> {
    let mut problems = Vec::new();
    if let Some(job) = job {
        problems.extend(validate::validate_job(job));
        problems.extend(template::account_problems(job, options));
        problems.extend(gang::check(job, options));
    }
    if problems.is_empty() {
        let current = job.and_then(|j| j.status.as_ref()).and_then(|s| s.scale_plan.as_deref());
        for (i, plan) in plans.iter().enumerate() {
            let finished = matches!(
                plan.status.as_ref().and_then(|s| s.phase),
                Some(JobConditionType::Succeeded | JobConditionType::Failed)
            );
            // A plan the pass leaves alone (not `scale-type: auto`, being deleted, another job's) or
            // one long carried out is not checked: it cannot stop the job's pass.
            if !planner::takes_part(plan, job) || (finished && plan.metadata.name.as_deref() != current) {
                continue;
            }
            let checked = match job {
                Some(job) => validate::validate_plan_for_job(job, plan),
                None => validate::validate_scale_plan(plan),
            };
            let prefixed = into_result(checked).map_err(|e| e.prefixed(&format!("scalePlans[{i}]")));
            problems.extend(prefixed.err().map(|e| e.problems().to_vec()).unwrap_or_default());
        }
    }
    into_result(problems)?;
    let plan = planner::controller_pass(planner::Observed { job, plans, pods, services }, gates, now, options)?;
    Ok(match options.max_pod_creates {
        Some(max) => plan.capped(max),
        None => plan,
    })
}

/// What the controller does with a job the core refuses (`error`, from [`controller_pass_queued`]
/// or [`crate::store::Store::controller_pass`]), whose status is `status`: nothing of the job is
/// made, deleted or changed, and its `Refused` condition is set true (reason `InvalidJob`, the
/// message `cannot be planned: ` and every problem as `PATH: MESSAGE`), told once in a Warning
/// event of that reason. Empty when the condition already says so, and for a failed job, which
/// never changes again. The next pass that plans the job sets the condition false
/// (`JobAccepted`).
pub fn refused_job(status: Option<&ElasticJobStatus>, error: &Error, now: &Time) -> Plan {
    let before = status.cloned().unwrap_or_default();
    let message = format!("cannot be planned: {error}");
    let said = before.common().is_some_and(|s| {
        s.conditions
            .iter()
            .any(|c| c.type_ == JobConditionType::Refused && c.status == ConditionStatus::True && c.message == message)
    });
    if said || status::has_condition(&before, JobConditionType::Failed) {
        return Plan::default();
    }
    let mut after = before.clone();
    // Replaced whole, so that new problems replace the old ones' message.
    after.common_mut().conditions.retain(|c| c.type_ != JobConditionType::Refused);
    status::set_condition(
        &mut after,
        JobCondition {
            type_: JobConditionType::Refused,
            status: ConditionStatus::True,
            reason: status::REASON_INVALID.to_owned(),
            message: message.clone(),
            last_update_time: Some(now.clone()),
            last_transition_time: Some(now.clone()),
        },
    );
    Plan::from_actions([Action::SetJobStatus {
        status: after,
        cause: Cause::Status,
        event: Some(Event::warning(status::REASON_INVALID, message)),
    }])
}

/// One pass of the scale-plan controller: a plan labelled `scale-type: auto` moves its owner job to
/// `Scaling`. The plan's phase goes from none to `Created` (with a create time) to `Pending`; the job
/// gets `status.scalePlan`, the `initial` count of each type the plan names (when still 0), and a
/// Scaling condition. A plan that asks for nothing (DLRover's master writes one every 60 s until
/// its autoscaler starts) goes straight to `Succeeded` with a finish time, and the job is not
/// touched. Plans without the label, and plans past `Pending`, give an empty plan. `job` is `None`
/// when the owner job does not exist.
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
