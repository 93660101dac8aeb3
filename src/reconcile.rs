//! The four TaskManager operations, as pure functions of (job, scale plan, observed pods, now),
//! and the job-level state machine that runs them over every replica type in a fixed order.
//!
//! Pods are told apart by their labels: the job name, the replica type, the pod id
//! (`replica-index`) and the rank (`rank-index`). A pod is *alive* when its phase is Running,
//! Pending or Succeeded and it is not being deleted.
//!
//! # `reconcile_pods`
//! With a `replicaResourceSpecs` entry for the type, the type is scaled to `replicas` live ranks:
//! ranks, not pods, are counted, so a pod and its migration replacement count once. Pods named in
//! the plan's `removePods` and ranks of its `createPods` are not counted: `replicas` is the number
//! of the type's other pods. Scaling up creates ranks from the lowest free one with ids from the
//! highest id seen + 1 (on a first launch id = rank, as upstream); scaling down deletes the
//! Running and Pending pods of the highest ranks (upstream deletes the highest ids, which after a
//! relaunch would leave a hole in the ranks every worker lists). Then each `createPods` entry is
//! created unless a pod of that name exists or a live pod holds its rank, and each `removePods`
//! entry is deleted. Each `migratePods` entry whose pod does not yet have its new resource gets a
//! replacement with a new id, the same rank and the new resource; the old pod is deleted once the
//! replacement runs. A pod the plan both creates and migrates is created with the new resource.
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

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

use crate::api::{
    ElasticJob, ElasticJobStatus, JobConditionType, PodMeta, ReplicaType, ResourceList, RestartPolicy, ScalePlan,
    ScalePlanStatus,
};
use crate::error::{Code, Error, Result};
use crate::naming;
use crate::plan::{Action, List, Object, Plan};
use crate::quantity::Amount;
use crate::status::{self, update_status};
use crate::template::{self, Options, PodFactory, TaskMeta};
use crate::validate::{self, MAX_OBSERVED_PODS, MAX_TF_CONFIG_HOSTS};

/// Creates, deletes and migrates the pods of one type so the job matches the scale plan
/// (upstream's `ReconcilePods`; see the module docs). For the master type: creates the master
/// pod and service when the job has no master pod.
///
/// # Errors
/// [`Error::Invalid`] when the job, the plan or the pods are invalid, or the plan would exceed
/// the core's bounds; no plan is returned then.
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
/// [`Error::Invalid`] when the job or the pods are invalid.
pub fn handle_fault_pods(job: &ElasticJob, replica_type: ReplicaType, pods: &[Pod], options: &Options) -> Result<Plan> {
    validate::check_job(job)?;
    let layout_plan = plan_or_initial(job, None);
    let mut planner = Planner::new(job, options, pods, &layout_plan)?;
    planner.handle_faults(replica_type)?;
    Ok(planner.finish())
}

/// Deletes every Running or Pending pod of one type with grace period 0 (upstream's
/// `StopRunningPods`).
///
/// # Errors
/// [`Error::Invalid`] when the job or the pods are invalid.
pub fn stop_running_pods(job: &ElasticJob, replica_type: ReplicaType, pods: &[Pod]) -> Result<Plan> {
    validate::check_job(job)?;
    let layout_plan = ScalePlan::default();
    let options = Options::default();
    let mut planner = Planner::new(job, &options, pods, &layout_plan)?;
    planner.stop(replica_type, "the job has finished: its running pods are stopped");
    Ok(planner.finish())
}

/// Counts one type's pods into the job status, and for the master moves the job's phase (upstream's
/// `SyncJobState`). The plan sets the job status when it changed, and is empty otherwise.
///
/// # Errors
/// [`Error::Invalid`] when the job or the pods are invalid.
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

/// One pass of the job controller (spec §5), by `status.phase`:
/// - none or `Created`: initialise the status (Created condition, start time), create the master,
///   sync;
/// - `Pending`: sync;
/// - `Scaling`, `Running` (or `Restarting`): when `scale_plan` is the job's `status.scalePlan`
///   and its phase is `Pending` or `Scaling`, run it: mark it `Scaling`, reconcile every task type,
///   and mark it `Succeeded` with a finish time once every pod it asks for is created (a plan
///   whose pods' TF_CONFIGs exceed [`MAX_TF_CONFIG_HOSTS`] takes several passes, and stays
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
/// [`Error::Invalid`] when the job, the plan or the pods are invalid; no plan is returned then.
pub fn reconcile(
    job: &ElasticJob,
    scale_plan: Option<&ScalePlan>,
    pods: &[Pod],
    now: &Time,
    options: &Options,
) -> Result<Plan> {
    validate::check_job_and_plan(job, scale_plan)?;
    let layout_plan = plan_or_initial(job, scale_plan);
    let mut planner = Planner::new(job, options, pods, &layout_plan)?;
    let before = job.status.clone().unwrap_or_default();
    let mut status = before.clone();
    match status.phase {
        None | Some(JobConditionType::Created) => {
            if status.conditions.is_empty() {
                status.replica_statuses.entry(ReplicaType::DlroverMaster).or_default();
                let message = format!("ElasticJob {} is created.", job.name());
                update_status(&mut status, JobConditionType::Created, status::REASON_CREATED, message, now);
            }
            if status.start_time.is_none() {
                status.start_time = Some(now.clone());
            }
            planner.ensure_master()?;
            planner.sync_all(&mut status, now);
        }
        Some(JobConditionType::Pending) => planner.sync_all(&mut status, now),
        Some(JobConditionType::Running | JobConditionType::Restarting | JobConditionType::Scaling) => {
            // A finished master finishes the job in this pass: creating pods would only create
            // pods to stop.
            if !planner.master_finished() {
                if let Some(plan) = scale_plan.filter(|p| is_active(p, &status)) {
                    planner.execute(plan, now)?;
                }
                if status.phase != Some(JobConditionType::Scaling) {
                    for replica_type in ReplicaType::ALL {
                        planner.handle_faults(replica_type)?;
                    }
                }
            }
            planner.sync_all(&mut status, now);
        }
        Some(JobConditionType::Succeeded | JobConditionType::Failed) => planner.sync_all(&mut status, now),
    }
    // A finished job stops its running pods in the same pass that finds it finished (upstream
    // waits for the next pass).
    if matches!(status.phase, Some(JobConditionType::Succeeded | JobConditionType::Failed)) {
        for replica_type in ReplicaType::ALL {
            planner.stop(replica_type, "the job has finished: its running pods are stopped");
        }
    }
    planner.set_job_status(&before, status);
    Ok(planner.finish())
}

/// One pass of the scale-plan controller: a plan labelled `scale-type: auto` moves its owner job to
/// `Scaling`. The plan's phase goes from none to `Created` (with a create time) to `Pending`; the job
/// gets `status.scalePlan`, the `initial` count of each type the plan names (when still 0), and a
/// Scaling condition. Plans without the label, and plans past `Pending`, give an empty plan.
/// `job` is `None` when the owner job does not exist.
///
/// # Errors
/// [`Error::Invalid`] when the plan (or the job) is invalid.
pub fn reconcile_scale_plan(scale_plan: &ScalePlan, job: Option<&ElasticJob>, now: &Time) -> Result<Plan> {
    match job {
        Some(job) => validate::check_job_and_plan(job, Some(scale_plan))?,
        None => crate::error::into_result(validate::validate_scale_plan(scale_plan))?,
    }
    let mut actions = Vec::new();
    let auto = scale_plan.metadata.labels.as_ref().and_then(|l| l.get(naming::LABEL_SCALE_TYPE)).map(String::as_str)
        == Some(naming::SCALE_TYPE_AUTO);
    if !auto {
        return Ok(Plan { actions });
    }
    let before = scale_plan.status.clone().unwrap_or_default();
    let mut plan_status = before.clone();
    if plan_status.phase.is_none() {
        plan_status.phase = Some(JobConditionType::Created);
        plan_status.create_time = Some(now.clone());
    }
    let phase = plan_status.phase;
    if let (Some(job), Some(JobConditionType::Created | JobConditionType::Pending)) = (job, phase) {
        let job_before = job.status.clone().unwrap_or_default();
        let mut status = job_before.clone();
        status.scale_plan = scale_plan.metadata.name.clone();
        for (replica_type, target) in &scale_plan.spec.replica_resource_specs {
            let entry = status.replica_statuses.entry(*replica_type).or_default();
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
            actions.push(Action::SetJobStatus { status });
        }
    } else if plan_status != before {
        actions.push(plan_status_action(scale_plan, plan_status));
    }
    Ok(Plan { actions })
}

/// Every object the job will have once `scale_plan` (by default its first plan,
/// [`crate::render::initial_scale_plan`]) has run on an empty cluster: the master pod and service,
/// then each task type's pods and services.
///
/// # Errors
/// [`Error::Invalid`] when the job or the plan is invalid or too large.
pub fn render(job: &ElasticJob, scale_plan: Option<&ScalePlan>, options: &Options) -> Result<List> {
    validate::check_job_and_plan(job, scale_plan)?;
    let plan = plan_or_initial(job, scale_plan);
    let mut planner = Planner::new(job, options, &[], &plan)?;
    planner.ensure_master()?;
    for replica_type in ReplicaType::TASKS {
        planner.reconcile_type(replica_type, &plan)?;
    }
    if planner.deferred {
        let path = if scale_plan.is_some() { "scalePlan.spec.replicaResourceSpecs" } else { "spec.replicaSpecs" };
        return Err(Error::invalid(
            path,
            Code::TooLarge,
            format!(
                "the TF_CONFIGs of these pods would list more than {MAX_TF_CONFIG_HOSTS} addresses (a worker of rank r lists r + 1 workers), more than a preview renders; the operator creates such a job over several passes"
            ),
        ));
    }
    let items = planner
        .finish()
        .actions
        .into_iter()
        .filter_map(|a| match a {
            Action::CreatePod { pod, .. } => Some(Object::Pod(pod)),
            Action::CreateOrUpdateService { service, .. } => Some(Object::Service(service)),
            _ => None,
        })
        .collect();
    Ok(List::new(items))
}

/// The given plan, or the job's first plan.
pub(crate) fn plan_or_initial<'p>(job: &ElasticJob, scale_plan: Option<&'p ScalePlan>) -> Cow<'p, ScalePlan> {
    scale_plan.map_or_else(|| Cow::Owned(crate::render::initial_scale_plan(job)), Cow::Borrowed)
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

/// The replica type a pod's label names.
pub fn pod_type(pod: &Pod) -> Option<ReplicaType> {
    label(pod, naming::LABEL_REPLICA_TYPE).and_then(ReplicaType::parse)
}

/// The pod id its `replica-index` label holds.
pub fn pod_id(pod: &Pod) -> Option<i32> {
    label(pod, naming::LABEL_REPLICA_INDEX)?.parse().ok()
}

/// The rank its `rank-index` label holds.
pub fn pod_rank(pod: &Pod) -> Option<i32> {
    label(pod, naming::LABEL_RANK_INDEX)?.parse().ok()
}

/// The pod phase.
pub fn pod_phase(pod: &Pod) -> Option<&str> {
    pod.status.as_ref()?.phase.as_deref()
}

/// Whether the pod is being deleted.
pub fn is_terminating(pod: &Pod) -> bool {
    pod.metadata.deletion_timestamp.is_some()
}

/// Whether the pod is alive: Running, Pending or Succeeded, and not being deleted.
pub fn is_alive(pod: &Pod) -> bool {
    !is_terminating(pod) && matches!(pod_phase(pod), Some("Running" | "Pending" | "Succeeded"))
}

fn is_stoppable(pod: &Pod) -> bool {
    !is_terminating(pod) && matches!(pod_phase(pod), Some("Running" | "Pending"))
}

fn label<'p>(pod: &'p Pod, key: &str) -> Option<&'p str> {
    pod.metadata.labels.as_ref()?.get(key).map(String::as_str)
}

fn pod_name(pod: &Pod) -> &str {
    pod.metadata.name.as_deref().unwrap_or_default()
}

fn plan_status_action(plan: &ScalePlan, status: ScalePlanStatus) -> Action {
    Action::SetScalePlanStatus {
        namespace: plan.metadata.namespace.clone().filter(|n| !n.is_empty()),
        name: plan.metadata.name.clone().unwrap_or_default(),
        status,
    }
}

/// The first container's resource: its requests, else its limits.
fn pod_resource(pod: &Pod) -> ResourceList {
    let resources = pod.spec.as_ref().and_then(|s| s.containers.first()).and_then(|c| c.resources.as_ref());
    resources
        .and_then(|r| r.requests.clone().filter(|m| !m.is_empty()).or_else(|| r.limits.clone()))
        .unwrap_or_default()
}

/// Whether every resource of `target` equals the pod's (as quantities: `1Gi` equals `1024Mi`).
fn has_resource(pod: &Pod, target: &ResourceList) -> bool {
    let current = pod_resource(pod);
    target.iter().all(|(name, want)| {
        let have = current.get(name).and_then(|q| Amount::parse(&q.0).ok());
        have.is_some() && have == Amount::parse(&want.0).ok()
    })
}

fn memory_of(pod: &Pod) -> Option<Amount> {
    pod_resource(pod).get("memory").and_then(|q| Amount::parse(&q.0).ok())
}

/// The exit code of the pod's main (first) container, from its current or last terminated state.
fn exit_code(pod: &Pod) -> Option<i32> {
    let main = pod.spec.as_ref().and_then(|s| s.containers.first()).map(|c| c.name.as_str());
    let statuses = pod.status.as_ref()?.container_statuses.as_ref()?;
    let terminated = |c: &k8s_openapi::api::core::v1::ContainerStatus| {
        c.state
            .as_ref()
            .and_then(|s| s.terminated.as_ref())
            .or_else(|| c.last_state.as_ref().and_then(|s| s.terminated.as_ref()))
            .map(|t| t.exit_code)
    };
    statuses
        .iter()
        .find(|c| Some(c.name.as_str()) == main)
        .and_then(terminated)
        .or_else(|| statuses.iter().filter_map(terminated).find(|code| *code != 0))
}

fn is_oom_killed(pod: &Pod) -> bool {
    let Some(status) = &pod.status else { return false };
    status.reason.as_deref() == Some("OOMKilled")
        || status.container_statuses.iter().flatten().any(|c| {
            [c.state.as_ref(), c.last_state.as_ref()]
                .into_iter()
                .flatten()
                .filter_map(|s| s.terminated.as_ref())
                .any(|t| t.reason.as_deref() == Some("OOMKilled"))
        })
}

fn tf_config_of(pod: &Pod) -> Option<String> {
    let env = pod.spec.as_ref()?.containers.first()?.env.as_ref()?;
    env.iter().find(|e| e.name == naming::ENV_TF_CONFIG)?.value.clone()
}

/// The state of one planning pass: the observed pods of the job and what this plan already did.
struct Planner<'a> {
    job: &'a ElasticJob,
    options: &'a Options,
    factory: PodFactory<'a>,
    /// The job's pods by type (by the job-name label), in input order.
    pods: BTreeMap<ReplicaType, Vec<&'a Pod>>,
    /// Every observed pod name, the job's or not: a new pod must not take one.
    names: BTreeSet<&'a str>,
    /// Names the scale plan lists to create or remove: a new id must not take one, or the next
    /// pass would act on the new pod. (A pod the plan migrates but that does not exist yet may be
    /// created under its name, with its new resource.)
    reserved: BTreeSet<String>,
    actions: Vec<Action>,
    deleted: BTreeSet<String>,
    /// Pods created by this plan: (type, rank) and name.
    created: BTreeSet<(ReplicaType, i32)>,
    created_names: BTreeSet<String>,
    created_memory: Amount,
    services: BTreeSet<String>,
    next_ids: BTreeMap<ReplicaType, i64>,
    /// Addresses listed by the TF_CONFIGs of the pods created so far.
    tf_hosts: u64,
    /// Whether some pods were left for the next pass to keep within [`MAX_TF_CONFIG_HOSTS`].
    deferred: bool,
}

impl<'a> Planner<'a> {
    fn new(job: &'a ElasticJob, options: &'a Options, pods: &'a [Pod], layout_plan: &ScalePlan) -> Result<Self> {
        if pods.len() > MAX_OBSERVED_PODS {
            return Err(Error::invalid(
                "pods",
                Code::TooLarge,
                format!("{} pods were passed in; the core plans with at most {MAX_OBSERVED_PODS}", pods.len()),
            ));
        }
        let name = job.name();
        let mut by_type: BTreeMap<ReplicaType, Vec<&Pod>> = BTreeMap::new();
        let mut next_ids: BTreeMap<ReplicaType, i64> = BTreeMap::new();
        for pod in pods {
            if label(pod, naming::LABEL_JOB_NAME) != Some(name) {
                continue;
            }
            let replica_type = pod_type(pod)
                .or_else(|| (pod_name(pod) == naming::master_name(name)).then_some(ReplicaType::DlroverMaster));
            let Some(replica_type) = replica_type else { continue };
            by_type.entry(replica_type).or_default().push(pod);
            if let Some(id) = pod_id(pod) {
                let next = next_ids.entry(replica_type).or_default();
                *next = (*next).max(i64::from(id) + 1);
            }
        }
        Ok(Planner {
            job,
            options,
            factory: PodFactory::new(job, layout_plan, pods),
            pods: by_type,
            names: pods.iter().map(pod_name).collect(),
            reserved: [&layout_plan.spec.create_pods, &layout_plan.spec.remove_pods]
                .into_iter()
                .flatten()
                .filter_map(|m| {
                    let t = m.replica_type()?;
                    Some(if m.name.is_empty() {
                        naming::task_pod_name(name, t, i64::from(m.id))
                    } else {
                        m.name.clone()
                    })
                })
                .collect(),
            actions: Vec::new(),
            deleted: BTreeSet::new(),
            created: BTreeSet::new(),
            created_names: BTreeSet::new(),
            created_memory: Amount::ZERO,
            services: BTreeSet::new(),
            next_ids,
            tf_hosts: 0,
            deferred: false,
        })
    }

    fn finish(self) -> Plan {
        Plan { actions: self.actions }
    }

    fn of_type(&self, replica_type: ReplicaType) -> &[&'a Pod] {
        self.pods.get(&replica_type).map(Vec::as_slice).unwrap_or_default()
    }

    /// Alive and not deleted by this plan.
    fn live(&self, replica_type: ReplicaType) -> impl Iterator<Item = &'a Pod> + '_ {
        self.of_type(replica_type).iter().copied().filter(|p| is_alive(p) && !self.deleted.contains(pod_name(p)))
    }

    fn exists(&self, name: &str) -> bool {
        self.names.contains(name) || self.created_names.contains(name)
    }

    fn alloc_id(&mut self, replica_type: ReplicaType) -> Result<i32> {
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
            if !self.exists(&name) && !self.reserved.contains(&name) {
                return Ok(id);
            }
        }
    }

    fn restart_count(&self, replica_type: ReplicaType) -> i32 {
        let spec = self.job.replica_spec(replica_type).or_else(|| match replica_type {
            ReplicaType::Chief => self.job.replica_spec(ReplicaType::Worker),
            _ => None,
        });
        spec.map_or(0, crate::api::ReplicaSpec::restart_count)
    }

    fn create_task(
        &mut self,
        replica_type: ReplicaType,
        meta: TaskMeta,
        tf_config: Option<String>,
        reason: String,
    ) -> Result<()> {
        let hosts = self.tf_hosts.saturating_add(self.factory.tf_config_hosts(replica_type, meta.rank));
        if hosts > MAX_TF_CONFIG_HOSTS || self.deferred {
            // Past this plan's memory bound: the rest waits for the next pass.
            self.deferred = true;
            return Ok(());
        }
        self.tf_hosts = hosts;
        let pod = self.factory.task_pod(replica_type, &meta, tf_config)?;
        if let Some(memory) = meta.resource.get("memory").and_then(|q| Amount::parse(&q.0).ok()) {
            self.created_memory = self.created_memory.checked_add(memory).unwrap_or(self.created_memory);
        }
        let name = pod_name(&pod).to_owned();
        self.created.insert((replica_type, meta.rank));
        self.created_names.insert(name);
        self.actions.push(Action::CreatePod { pod: Box::new(pod), reason });
        let service = template::task_service(self.job, replica_type, meta.rank);
        let service_name = service.metadata.name.clone().unwrap_or_default();
        if self.services.insert(service_name) {
            self.actions.push(Action::CreateOrUpdateService {
                service: Box::new(service),
                reason: format!("the address of {replica_type} rank {}", meta.rank),
            });
        }
        Ok(())
    }

    fn delete(&mut self, pod: &Pod, reason: String) {
        let name = pod_name(pod).to_owned();
        if self.deleted.insert(name.clone()) {
            self.actions.push(Action::DeletePod {
                namespace: pod
                    .metadata
                    .namespace
                    .clone()
                    .or_else(|| self.job.metadata.namespace.clone())
                    .filter(|n| !n.is_empty()),
                name,
                grace_period_seconds: 0,
                reason,
            });
        }
    }

    fn ensure_master(&mut self) -> Result<()> {
        if !self.of_type(ReplicaType::DlroverMaster).is_empty() {
            return Ok(());
        }
        let name = naming::master_name(self.job.name());
        if self.exists(&name) {
            return Ok(());
        }
        let pod = template::master_pod(self.job, self.options)?;
        self.created_names.insert(name);
        self.actions.push(Action::CreatePod { pod: Box::new(pod), reason: "the job has no master pod".to_owned() });
        self.actions.push(Action::CreateOrUpdateService {
            service: Box::new(template::master_service(self.job)),
            reason: "the address of the job master".to_owned(),
        });
        Ok(())
    }

    fn reconcile_type(&mut self, replica_type: ReplicaType, plan: &ScalePlan) -> Result<()> {
        let job = self.job.name();
        let spec = &plan.spec;
        let mine = |m: &&PodMeta| m.replica_type() == Some(replica_type);
        let meta_name = |m: &PodMeta| {
            if m.name.is_empty() { naming::task_pod_name(job, replica_type, i64::from(m.id)) } else { m.name.clone() }
        };
        let removed: BTreeSet<String> = spec.remove_pods.iter().filter(mine).map(meta_name).collect();
        let create_ranks: BTreeSet<i32> = spec.create_pods.iter().filter(mine).map(|m| m.rank_index).collect();
        let migrate_to: BTreeMap<String, &ResourceList> =
            spec.migrate_pods.iter().filter(mine).map(|m| (m.name.clone(), &m.resource)).collect();
        let target = spec.replica_resource_specs.get(&replica_type);

        // Live ranks, not counting pods the plan removes.
        let mut ranks: BTreeMap<i32, Vec<&'a Pod>> = BTreeMap::new();
        for pod in self.live(replica_type) {
            if removed.contains(pod_name(pod)) {
                continue;
            }
            if let Some(rank) = pod_rank(pod) {
                ranks.entry(rank).or_default().push(pod);
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
                        ranks.get(rank).into_iter().flatten().copied().filter(|p| is_stoppable(p)).collect();
                    if stoppable.is_empty() {
                        continue;
                    }
                    for pod in stoppable {
                        self.delete(pod, format!("scale {replica_type} down to {want}: rank {rank} is removed"));
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
                    let meta = TaskMeta { id, rank, resource, restarts_left: self.restart_count(replica_type) };
                    self.create_task(replica_type, meta, None, format!("scale {replica_type} up to {want}"))?;
                }
            }
        }
        for meta in spec.create_pods.iter().filter(mine) {
            let name = meta_name(meta);
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
                restarts_left: self.restart_count(replica_type),
            };
            self.create_task(replica_type, task, None, "listed in the plan's createPods".to_owned())?;
        }
        for name in &removed {
            let pod = self.of_type(replica_type).iter().copied().find(|p| pod_name(p) == name && !is_terminating(p));
            if let Some(pod) = pod {
                self.delete(pod, "listed in the plan's removePods".to_owned());
            }
        }
        for (name, resource) in migrate_to {
            self.migrate(replica_type, &name, resource)?;
        }
        Ok(())
    }

    fn migrate(&mut self, replica_type: ReplicaType, name: &str, resource: &ResourceList) -> Result<()> {
        let Some(old) = self.live(replica_type).find(|p| pod_name(p) == name) else { return Ok(()) };
        if has_resource(old, resource) {
            return Ok(());
        }
        let Some(rank) = pod_rank(old) else { return Ok(()) };
        let replacement = self
            .live(replica_type)
            .find(|p| pod_name(p) != name && pod_rank(p) == Some(rank) && has_resource(p, resource));
        match replacement {
            None if !self.created.contains(&(replica_type, rank)) => {
                let id = self.alloc_id(replica_type)?;
                let restarts_left = label(old, naming::LABEL_RESTART_COUNT)
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| self.restart_count(replica_type));
                let mut new_resource = pod_resource(old);
                new_resource.extend(resource.iter().map(|(k, v)| (k.clone(), v.clone())));
                let meta = TaskMeta { id, rank, resource: new_resource, restarts_left };
                self.create_task(replica_type, meta, tf_config_of(old), format!("migrate {name} to a new resource"))?;
            }
            Some(new) if pod_phase(new) == Some("Running") => {
                let reason = format!("migrated: its replacement {} runs", pod_name(new));
                self.delete(old, reason);
            }
            _ => {}
        }
        Ok(())
    }

    fn handle_faults(&mut self, replica_type: ReplicaType) -> Result<()> {
        if replica_type == ReplicaType::DlroverMaster {
            return self.ensure_master();
        }
        if template::task_template(self.job, replica_type).is_err() {
            // Pods of a type the job no longer has: nothing to relaunch them from.
            return Ok(());
        }
        let mut by_rank: BTreeMap<i32, Vec<&'a Pod>> = BTreeMap::new();
        for pod in self.of_type(replica_type) {
            if let Some(rank) = pod_rank(pod) {
                by_rank.entry(rank).or_default().push(pod);
            }
        }
        for (rank, pods) in by_rank {
            let alive = pods.iter().any(|p| is_alive(p) && !self.deleted.contains(pod_name(p)));
            if alive || self.created.contains(&(replica_type, rank)) {
                continue;
            }
            let failed = pods
                .iter()
                .copied()
                .filter(|p| !is_terminating(p) && pod_phase(p) == Some("Failed"))
                .max_by_key(|p| pod_id(p).unwrap_or(-1));
            if let Some(failed) = failed {
                self.relaunch(replica_type, rank, failed)?;
            }
        }
        Ok(())
    }

    fn relaunch(&mut self, replica_type: ReplicaType, rank: i32, failed: &Pod) -> Result<()> {
        let name = pod_name(failed).to_owned();
        let budget = match label(failed, naming::LABEL_RESTART_COUNT) {
            None => self.restart_count(replica_type),
            Some(v) => v.parse::<i32>().unwrap_or(0),
        };
        if budget <= 0 {
            return Ok(());
        }
        let spec = self.job.replica_spec(replica_type).or_else(|| self.job.replica_spec(ReplicaType::Worker));
        let policy = spec.and_then(|s| s.restart_policy).unwrap_or(RestartPolicy::OnFailure);
        let code = exit_code(failed);
        let retry = match policy {
            RestartPolicy::Never => false,
            RestartPolicy::Always | RestartPolicy::OnFailure => true,
            RestartPolicy::ExitCode => !matches!(code, Some(1..=127)),
        };
        if !retry {
            return Ok(());
        }
        let mut resource = pod_resource(failed);
        let mut why = match code {
            Some(c) => format!("{name} failed with exit code {c}"),
            None => format!("{name} failed"),
        };
        if is_oom_killed(failed) {
            let old = memory_of(failed);
            if let Some(new) = template::oom_memory(old, self.memory_headroom(failed)) {
                resource.insert("memory".to_owned(), Quantity(new.to_string()));
                why =
                    format!("{name} was OOMKilled; memory {} -> {new}", old.map(|m| m.to_string()).unwrap_or_default());
            } else {
                why = format!("{name} was OOMKilled (it declares no memory to raise)");
            }
        }
        let tf_config = tf_config_of(failed);
        if tf_config.is_none()
            && self.job.strategy() == crate::api::DistributionStrategy::ParameterServerStrategy
            && self.factory.tf_config(replica_type, rank).is_err()
        {
            // A pod this operator did not make (it has no TF_CONFIG) at a rank the job's plan has
            // no address for: no cluster spec lists it, so there is nothing to relaunch it into.
            return Ok(());
        }
        let id = self.alloc_id(replica_type)?;
        let left = budget - 1;
        let meta = TaskMeta { id, rank, resource, restarts_left: left };
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
            for pod in self.live(replica_type) {
                if pod_name(pod) != pod_name(failed) {
                    used = used.checked_add(memory_of(pod).unwrap_or(Amount::ZERO))?;
                }
            }
        }
        Some(limit.checked_sub(used)?.max(Amount::ZERO))
    }

    /// Whether the master pod has Succeeded or Failed, which ends the job.
    fn master_finished(&self) -> bool {
        self.of_type(ReplicaType::DlroverMaster)
            .last()
            .is_some_and(|m| matches!(pod_phase(m), Some("Succeeded" | "Failed")))
    }

    fn stop(&mut self, replica_type: ReplicaType, reason: &str) {
        let pods: Vec<&Pod> = self.of_type(replica_type).iter().copied().filter(|p| is_stoppable(p)).collect();
        for pod in pods {
            self.delete(pod, reason.to_owned());
        }
    }

    fn sync_all(&self, status: &mut ElasticJobStatus, now: &Time) {
        for replica_type in ReplicaType::ALL {
            self.sync(status, replica_type, now);
        }
    }

    fn sync(&self, status: &mut ElasticJobStatus, replica_type: ReplicaType, now: &Time) {
        let pods = self.of_type(replica_type);
        let tracked = replica_type == ReplicaType::DlroverMaster
            || self.job.replica_spec(replica_type).is_some()
            || !pods.is_empty()
            || status.replica_statuses.contains_key(&replica_type);
        if tracked {
            let counts = status.replica_statuses.entry(replica_type).or_default();
            let count = |phase: &str| {
                i32::try_from(pods.iter().filter(|p| pod_phase(p) == Some(phase)).count()).unwrap_or(i32::MAX)
            };
            counts.pending = count("Pending");
            counts.active = count("Running");
            counts.succeeded = count("Succeeded");
            counts.failed = count("Failed");
        }
        if replica_type != ReplicaType::DlroverMaster {
            return;
        }
        let Some(master) = pods.last() else { return };
        let job = match self.job.metadata.namespace.as_deref().filter(|n| !n.is_empty()) {
            Some(ns) => format!("{ns}/{}", self.job.name()),
            None => self.job.name().to_owned(),
        };
        match pod_phase(master) {
            Some("Succeeded") => {
                if status.completion_time.is_none() {
                    status.completion_time = Some(now.clone());
                }
                let message = format!("job({job}) successfully completed");
                update_status(status, JobConditionType::Succeeded, status::REASON_SUCCEEDED, message, now);
            }
            Some("Failed") => {
                if status.completion_time.is_none() {
                    status.completion_time = Some(now.clone());
                }
                let reason = master.status.as_ref().and_then(|s| s.reason.clone()).filter(|r| !r.is_empty());
                let reason = reason.unwrap_or_else(|| status::REASON_FAILED.to_owned());
                update_status(status, JobConditionType::Failed, &reason, format!("job({job}) has failed"), now);
            }
            Some("Pending") if pod_id(master).unwrap_or(0) == 0 => {
                update_status(
                    status,
                    JobConditionType::Pending,
                    status::REASON_PENDING,
                    format!("job({job}) is pending."),
                    now,
                );
            }
            Some("Running") if status.phase != Some(JobConditionType::Running) => {
                update_status(
                    status,
                    JobConditionType::Running,
                    status::REASON_RUNNING,
                    format!("job({job}) is running."),
                    now,
                );
            }
            _ => {}
        }
    }

    fn set_job_status(&mut self, before: &ElasticJobStatus, status: ElasticJobStatus) {
        if &status != before {
            self.actions.push(Action::SetJobStatus { status });
        }
    }

    /// Carries out a scale plan: `Scaling`, every task type, then `Succeeded` unless pods were left
    /// for the next pass.
    fn execute(&mut self, plan: &ScalePlan, now: &Time) -> Result<()> {
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
