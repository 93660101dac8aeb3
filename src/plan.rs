//! What the core decides, as data: actions carrying whole objects, in ordered phases, for a host
//! (the Node controller, a Rust caller, a test) to carry out phase by phase. The actions of one
//! phase are independent of each other, so a host may carry them out in any order or all at once;
//! a phase starts only once the one before it is done, and a failure in one phase leaves the later
//! ones to the next pass.

use std::collections::BTreeMap;

use crate::podspec::{OwnerReference, Pod, Service, Time};
use serde::{Deserialize, Serialize};

use crate::api::{ElasticJobStatus, ReplicaType, ScalePlanStatus};
use crate::error::Problem;
use crate::observed::{ObservedPod, ObservedService};
use crate::podgroup::PodGroup;
use crate::reader;
use crate::workload::{Workload, WorkloadCondition};

/// One thing to do to the cluster. Each carries its [`Cause`], machine-readable, beside a `reason`
/// for people; one worth telling on the job (a relaunch, a plan taken up) carries the [`Event`] a
/// host records once it is done.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "action", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Action {
    /// Make the job the controller of a pod no one controls that is exactly one the job would make
    /// (its name and labels): Kubernetes' adoption, as a ReplicaSet adopts its orphans. The host
    /// adds `owner` to the pod's owner references with the pod's `uid` as a precondition, and only
    /// while the job it read again has the owner's uid and is not being deleted.
    AdoptPod {
        /// The pod's namespace (the job's), when the job names one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        namespace: Option<String>,
        /// The pod's name.
        name: String,
        /// The pod's uid: a pod of that name made since is not this one.
        uid: String,
        /// The controller owner reference to the job.
        owner: OwnerReference,
        /// Why, for logs and events.
        reason: String,
        /// Why, for programs.
        cause: Cause,
        /// What to tell on the job once the pod is the job's.
        event: Event,
    },
    /// Create this pod. A pod of that name already existing is not an error: skip it.
    CreatePod {
        /// The whole pod.
        pod: Box<Pod>,
        /// Why, for logs and events.
        reason: String,
        /// Why, for programs.
        cause: Cause,
        /// What to tell on the job once the pod is made.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        event: Option<Event>,
    },
    /// Create this service, or update the existing one of that name to match it.
    CreateOrUpdateService {
        /// The whole service.
        service: Box<Service>,
        /// Why, for logs and events.
        reason: String,
        /// Why, for programs.
        cause: Cause,
    },
    /// Delete this pod with a grace period of 0 seconds (the operator stops pods at once, as
    /// upstream does). A pod already gone is not an error.
    DeletePod {
        /// The pod's namespace (the job's), when the job names one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        namespace: Option<String>,
        /// The pod's name.
        name: String,
        /// Why, for logs and events.
        reason: String,
        /// Why, for programs.
        cause: Cause,
    },
    /// Delete this service: the address of a rank a scale-down removed. A service already gone is
    /// not an error.
    DeleteService {
        /// The service's namespace (the job's), when the job names one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        namespace: Option<String>,
        /// The service's name.
        name: String,
        /// Why, for logs and events.
        reason: String,
        /// Why, for programs.
        cause: Cause,
    },
    /// Replace the job's status subresource with this one.
    SetJobStatus {
        /// The whole new status.
        status: ElasticJobStatus,
        /// Why, for programs.
        cause: Cause,
        /// What to tell on the job once the status is written.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        event: Option<Event>,
    },
    /// Replace a scale plan's status subresource with this one.
    SetScalePlanStatus {
        /// The scale plan's namespace, when it names one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        namespace: Option<String>,
        /// The scale plan's name.
        name: String,
        /// The whole new status.
        status: ScalePlanStatus,
        /// Why, for programs.
        cause: Cause,
    },
    /// Create this Kueue Workload, or replace the spec of the existing one of that name (planned
    /// only while Kueue holds no quota for it, when its spec may change).
    CreateOrUpdateWorkload {
        /// The whole Workload.
        workload: Box<Workload>,
        /// Why, for logs and events.
        reason: String,
        /// Why, for programs.
        cause: Cause,
    },
    /// Lower the counts of a Workload's pod sets in place: the Workload as the cluster has it, at
    /// `resourceVersion`, with each named pod set's `count` set to the one given and nothing else
    /// changed (an update; a conflict leaves it to the next pass). Kueue frees the difference at
    /// once. Planned only for an admitted Workload under Kueue's `ElasticJobsViaWorkloadSlices`
    /// gate, and only lower.
    SetWorkloadCounts {
        /// The Workload's namespace, when it names one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        namespace: Option<String>,
        /// The Workload's name.
        name: String,
        /// The resource version read, for the update's precondition.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        resource_version: Option<String>,
        /// The new count of each pod set named.
        counts: BTreeMap<String, i32>,
        /// Why, for logs and events.
        reason: String,
        /// Why, for programs.
        cause: Cause,
    },
    /// Create this PodGroup (a gang scheduler's: its `apiVersion` says which) when it carries no
    /// `resourceVersion`; with one (the PodGroup as the core read it, its spec the new one), update
    /// it whole at that resourceVersion (a PUT: a field the spec no longer has goes; a conflict
    /// means it changed since, and the job is planned again). Planned before any pod of the job,
    /// and again when the job changes what its gang needs.
    CreateOrUpdatePodGroup {
        /// The whole PodGroup.
        pod_group: Box<PodGroup>,
        /// Why, for logs and events.
        reason: String,
        /// Why, for programs.
        cause: Cause,
    },
    /// Delete the job's PodGroup: the job has finished or is suspended. One already gone is not an
    /// error.
    DeletePodGroup {
        /// The PodGroup's namespace (the job's), when the job names one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        namespace: Option<String>,
        /// The PodGroup's name (the job's).
        name: String,
        /// Its `apiVersion`, which says whose PodGroup it is.
        api_version: String,
        /// Why, for logs and events.
        reason: String,
        /// Why, for programs.
        cause: Cause,
    },
    /// Set the job's `spec.suspend` (a merge patch of the job): a queued job is suspended until
    /// its Workload is admitted, and again when Kueue evicts it.
    SetJobSuspend {
        /// The new value.
        suspend: bool,
        /// Why, for logs and events.
        reason: String,
        /// Why, for programs.
        cause: Cause,
    },
    /// Merge-patch a Workload's status subresource: `conditions` replaced by these (the whole
    /// list), and `admission` removed when `clearAdmission`, at `resourceVersion` (a conflict
    /// leaves it to the next pass).
    SetWorkloadStatus {
        /// The Workload's namespace, when it names one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        namespace: Option<String>,
        /// The Workload's name.
        name: String,
        /// The resource version read, for the patch's precondition.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        resource_version: Option<String>,
        /// Every condition the Workload is to have.
        conditions: Vec<WorkloadCondition>,
        /// Whether the admission goes (the quota is released).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        clear_admission: bool,
        /// Why, for logs and events.
        reason: String,
        /// Why, for programs.
        cause: Cause,
    },
    /// Delete the job itself (its pods and services go with it, through their owner references):
    /// its `spec.runPolicy.ttlSecondsAfterFinished` has passed. A job already gone is not an error.
    DeleteJob {
        /// The job's namespace, when it names one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        namespace: Option<String>,
        /// The job's name.
        name: String,
        /// Why, for logs and events.
        reason: String,
        /// Why, for programs.
        cause: Cause,
    },
    /// Record an event on the job.
    RecordEvent {
        /// `Normal` or `Warning`.
        #[serde(rename = "type")]
        type_: String,
        /// The event's reason, UpperCamelCase.
        reason: String,
        /// A sentence for people.
        message: String,
        /// Why, for programs.
        cause: Cause,
    },
}

/// Why the core planned an action, for programs (a host's metrics and events, a test): the
/// machine-readable half of its `reason`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum Cause {
    /// A pod no one controlled, named and labelled as the job's: the job takes it.
    Adoption,
    /// The job's master pod or its service: the job has none.
    Master,
    /// A task pod and its service at a rank a plan's `replicas` adds.
    ScaleUp,
    /// A task pod and its service at a rank a plan's `replicas` removes.
    ScaleDown,
    /// A task pod (and its service) at a rank whose newest pod failed or is going away: DLRover's
    /// master relaunches it through its plan's `createPods`.
    Relaunch,
    /// A task pod beside a live one at its rank (a `migratePods` entry, or a `createPods` entry
    /// for a rank that runs), and the old pod deleted once its replacement runs.
    Migration,
    /// A task pod at a fresh rank, or one deleted, as a plan's `createPods` or `removePods` lists it.
    Planned,
    /// The service of a live pod, made again: it was missing.
    MissingAddress,
    /// The service of a rank the job no longer runs.
    UnusedAddress,
    /// A running pod stopped: the job finished or is suspended.
    Stop,
    /// A status written: the job's or a plan's state as the pass leaves it.
    Status,
    /// A queued job's place in Kueue: its Workload, its suspension as the admission says, the
    /// Workload's status, a plan beyond what was admitted.
    Queue,
    /// A gang-scheduled job's PodGroup: made before its pods, kept to its plan, deleted once the
    /// job has finished.
    Gang,
    /// The job's `spec.runPolicy.activeDeadlineSeconds` has passed: the job fails and its running
    /// pods are stopped.
    Deadline,
    /// The job's failed task pods reached its `spec.runPolicy.backoffLimit`: the job fails and its
    /// running pods are stopped.
    BackoffLimit,
    /// A finished pod of a finished job deleted, as its `spec.runPolicy.cleanPodPolicy: All` says.
    Cleanup,
    /// The job deleted: its `spec.runPolicy.ttlSecondsAfterFinished` has passed.
    Ttl,
}

/// What to tell on the job (a Kubernetes Event of its) once an action is done.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Event {
    /// `Normal` or `Warning`.
    #[serde(rename = "type")]
    pub type_: String,
    /// The event's reason, such as `Relaunched`.
    pub reason: String,
    /// Its message.
    pub message: String,
}

impl Event {
    /// A `Normal` event.
    pub fn normal(reason: &str, message: String) -> Event {
        Event { type_: "Normal".to_owned(), reason: reason.to_owned(), message }
    }

    /// A `Warning` event.
    pub fn warning(reason: &str, message: String) -> Event {
        Event { type_: "Warning".to_owned(), reason: reason.to_owned(), message }
    }
}

/// Which phase of a plan an action belongs to; phases run in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum PhaseKind {
    /// The job's orphans adopted first: the rest of the plan counts them as the job's.
    Adopt,
    /// A queued job's Workload and its `spec.suspend`, and a gang-scheduled job's PodGroup, first:
    /// a job is started only once its unsuspend is written, and stopped with its suspend; a task
    /// pod is made only once its PodGroup exists.
    Queue,
    /// Then services: a pod whose service is missing would have no address, while a service
    /// without its pod is made whole by the next pass.
    Services,
    /// Then the pods to create.
    CreatePods,
    /// Then the pods and services to delete.
    Deletions,
    /// Then the status writes: a plan is marked done only once its pods are made.
    Status,
    /// Last the job itself, deleted once its `ttlSecondsAfterFinished` has passed: after its
    /// status is written, so nothing is written to a job that is gone.
    DeleteJob,
}

/// How a host carries out the actions of a phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum PhaseMode {
    /// In batches of 1, 2, 4, ... actions, each batch at once, stopping after the first batch with
    /// a failure (client-go's `slowStartBatch`): a quota or a webhook that refuses every create
    /// costs a few calls, not thousands.
    SlowStart,
    /// All at once.
    Parallel,
}

impl PhaseKind {
    /// How the phase's actions are carried out: creations in slow start (as Kubernetes' Job and
    /// ReplicaSet controllers create), deletions and status writes at once.
    pub fn mode(self) -> PhaseMode {
        match self {
            PhaseKind::Services | PhaseKind::CreatePods => PhaseMode::SlowStart,
            PhaseKind::Adopt | PhaseKind::Queue | PhaseKind::Deletions | PhaseKind::Status | PhaseKind::DeleteJob => {
                PhaseMode::Parallel
            }
        }
    }
}

impl Action {
    /// The phase the action runs in.
    pub fn phase(&self) -> PhaseKind {
        match self {
            Action::AdoptPod { .. } => PhaseKind::Adopt,
            Action::CreateOrUpdateWorkload { .. }
            | Action::SetJobSuspend { .. }
            | Action::CreateOrUpdatePodGroup { .. } => PhaseKind::Queue,
            Action::CreateOrUpdateService { .. } => PhaseKind::Services,
            Action::CreatePod { .. } => PhaseKind::CreatePods,
            Action::DeletePod { .. } | Action::DeleteService { .. } | Action::DeletePodGroup { .. } => {
                PhaseKind::Deletions
            }
            Action::SetJobStatus { .. }
            | Action::SetScalePlanStatus { .. }
            | Action::SetWorkloadStatus { .. }
            | Action::SetWorkloadCounts { .. }
            | Action::RecordEvent { .. } => PhaseKind::Status,
            Action::DeleteJob { .. } => PhaseKind::DeleteJob,
        }
    }

    /// Why the action was planned.
    pub fn cause(&self) -> Cause {
        match self {
            Action::AdoptPod { cause, .. }
            | Action::CreatePod { cause, .. }
            | Action::CreateOrUpdateService { cause, .. }
            | Action::DeletePod { cause, .. }
            | Action::DeleteService { cause, .. }
            | Action::SetJobStatus { cause, .. }
            | Action::SetScalePlanStatus { cause, .. }
            | Action::CreateOrUpdateWorkload { cause, .. }
            | Action::SetJobSuspend { cause, .. }
            | Action::SetWorkloadStatus { cause, .. }
            | Action::SetWorkloadCounts { cause, .. }
            | Action::CreateOrUpdatePodGroup { cause, .. }
            | Action::DeletePodGroup { cause, .. }
            | Action::DeleteJob { cause, .. }
            | Action::RecordEvent { cause, .. } => *cause,
        }
    }
}

/// One phase of a plan: independent actions a host may carry out together.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Phase {
    /// Which phase this is.
    pub phase: PhaseKind,
    /// How its actions are carried out.
    pub mode: PhaseMode,
    /// Its actions, none of which depends on another.
    pub actions: Vec<Action>,
}

/// A plan: its actions in ordered phases (only the phases that have actions). Carrying it out phase
/// by phase and planning again from what results creates and deletes nothing more.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Plan {
    /// The phases, in the order to carry them out.
    pub phases: Vec<Phase>,
    /// How many actions a cap on the pods one pass creates ([`crate::Options`]'s
    /// `maxPodCreates`) left for the next pass, which plans them again from what the cluster then
    /// shows: a host passes again at once. Absent when none were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left: Option<usize>,
    /// When the job next needs a pass though nothing in the cluster changes: the moment its
    /// `spec.runPolicy.activeDeadlineSeconds` passes (a job that runs) or its
    /// `ttlSecondsAfterFinished` does (a finished one). A host brings the job back then (a work
    /// queue's `AddAfter`) rather than polling. Absent when no such moment is ahead.
    #[serde(rename = "requeueAt", default, skip_serializing_if = "Option::is_none")]
    pub requeue_at: Option<Time>,
}

impl Plan {
    /// A plan of these actions, each in its phase; the order of the actions of one phase is kept.
    pub fn from_actions(actions: impl IntoIterator<Item = Action>) -> Plan {
        let (mut adopt, mut queue, mut services, mut create_pods, mut deletions, mut status, mut delete_job) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for action in actions {
            match action.phase() {
                PhaseKind::Adopt => adopt.push(action),
                PhaseKind::Queue => queue.push(action),
                PhaseKind::Services => services.push(action),
                PhaseKind::CreatePods => create_pods.push(action),
                PhaseKind::Deletions => deletions.push(action),
                PhaseKind::Status => status.push(action),
                PhaseKind::DeleteJob => delete_job.push(action),
            }
        }
        let phases = [
            (PhaseKind::Adopt, adopt),
            (PhaseKind::Queue, queue),
            (PhaseKind::Services, services),
            (PhaseKind::CreatePods, create_pods),
            (PhaseKind::Deletions, deletions),
            (PhaseKind::Status, status),
            (PhaseKind::DeleteJob, delete_job),
        ];
        let phases = phases.into_iter().filter(|(_, actions)| !actions.is_empty());
        Plan {
            phases: phases.map(|(phase, actions)| Phase { phase, mode: phase.mode(), actions }).collect(),
            left: None,
            requeue_at: None,
        }
    }

    /// The plan with `requeue_at` as the moment the job next needs a pass.
    #[must_use]
    pub fn requeued_at(mut self, requeue_at: Option<Time>) -> Plan {
        self.requeue_at = requeue_at;
        self
    }

    /// The plan within a cap of `max` pod creations, for a pass that must not run for minutes
    /// without looking at the cluster (the ReplicaSet controller's `burstReplicas`): its first
    /// `max` pods, the services only the pods left out would be selected by left out with them,
    /// and every phase after the pods left for the next pass ([`Plan::left`] counts what is).
    #[must_use]
    pub fn capped(self, max: usize) -> Plan {
        let pods: Vec<&Pod> = self.created_pods().collect();
        if pods.len() <= max {
            return self;
        }
        let (kept, dropped) = pods.split_at(max);
        let selects = |service: &Service, pod: &Pod| {
            let selector = service.spec.as_ref().and_then(|s| s.selector.as_ref());
            let labels = pod.metadata.labels.as_ref();
            selector
                .is_some_and(|sel| !sel.is_empty() && sel.iter().all(|(k, v)| labels.and_then(|l| l.get(k)) == Some(v)))
        };
        // Which actions leave, phase by phase: the pods past the cap, the services only they are
        // selected by, and every phase after the pods'.
        let mut leaving: Vec<Vec<bool>> = Vec::with_capacity(self.phases.len());
        let mut cut = false;
        for phase in &self.phases {
            let leaves = |action: &Action| {
                cut || match action {
                    Action::CreatePod { pod, .. } => dropped.iter().any(|p| std::ptr::eq(*p, pod.as_ref())),
                    Action::CreateOrUpdateService { service, .. } => {
                        dropped.iter().any(|p| selects(service, p)) && !kept.iter().any(|p| selects(service, p))
                    }
                    _ => false,
                }
            };
            leaving.push(phase.actions.iter().map(leaves).collect());
            cut |= phase.phase == PhaseKind::CreatePods;
        }
        let left = leaving.iter().flatten().filter(|leaves| **leaves).count();
        let phases = self.phases.into_iter().zip(leaving).filter_map(|(phase, leaving)| {
            let actions: Vec<Action> =
                phase.actions.into_iter().zip(leaving).filter(|(_, leaves)| !leaves).map(|(a, _)| a).collect();
            (!actions.is_empty()).then_some(Phase { phase: phase.phase, mode: phase.mode, actions })
        });
        Plan { phases: phases.collect(), left: Some(left), requeue_at: self.requeue_at }
    }

    /// Whether the plan does nothing.
    pub fn is_empty(&self) -> bool {
        self.phases.iter().all(|p| p.actions.is_empty())
    }

    /// Every action, phase by phase.
    pub fn actions(&self) -> impl Iterator<Item = &Action> {
        self.phases.iter().flat_map(|p| p.actions.iter())
    }

    /// The pods the plan creates, in order.
    pub fn created_pods(&self) -> impl Iterator<Item = &Pod> {
        self.actions().filter_map(|a| match a {
            Action::CreatePod { pod, .. } => Some(pod.as_ref()),
            _ => None,
        })
    }

    /// The names of the pods the plan deletes, in order.
    pub fn deleted_pods(&self) -> impl Iterator<Item = &str> {
        self.actions().filter_map(|a| match a {
            Action::DeletePod { name, .. } => Some(name.as_str()),
            _ => None,
        })
    }

    /// The job status the plan sets, if it sets one.
    pub fn job_status(&self) -> Option<&ElasticJobStatus> {
        self.actions()
            .filter_map(|a| match a {
                Action::SetJobStatus { status, .. } => Some(status),
                _ => None,
            })
            .last()
    }
}

/// An object of a rendered job.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum Object {
    /// A pod.
    Pod(Box<Pod>),
    /// A service.
    Service(Box<Service>),
    /// The PodGroup of a gang-scheduled job.
    PodGroup(Box<PodGroup>),
}

/// Read by its `kind`, through the same reader as every other input (an untagged enum would try
/// each type in turn and compile every Kubernetes type's reader a second time), and only as far as
/// [`summary`](crate::summary) reads it: through the narrow readers of observed pods and services.
impl<'de> Deserialize<'de> for Object {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let value = serde_json::Value::deserialize(deserializer)?;
        let kind = value.get("kind").and_then(serde_json::Value::as_str).map(str::to_owned);
        match kind.as_deref() {
            Some("Pod") => read_item::<ObservedPod, D::Error>(value).map(|p| Object::Pod(Box::new(p.into()))),
            Some("Service") => {
                read_item::<ObservedService, D::Error>(value).map(|s| Object::Service(Box::new(s.into())))
            }
            Some("PodGroup") => read_item::<PodGroup, D::Error>(value).map(|g| Object::PodGroup(Box::new(g))),
            other => Err(D::Error::custom(format!(
                "an item of kind {other:?}: a rendered List holds only Pods, Services and a PodGroup"
            ))),
        }
    }
}

/// An item of a List through the core's reader, its problem worded as every other one is.
fn read_item<T: serde::de::DeserializeOwned, E: serde::de::Error>(value: serde_json::Value) -> Result<T, E> {
    let outcome = reader::read(value);
    outcome.result.map_err(|e| E::custom(Problem::new(outcome.error_path, e.code, e.message)))
}

/// Every object a job will have, as a Kubernetes `List` (`apiVersion: v1`, `kind: List`) that
/// `kubectl apply -f -` takes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct List {
    /// Always `v1`.
    pub api_version: String,
    /// Always `List`.
    pub kind: String,
    /// The objects: the PodGroup of a gang-scheduled job, the master pod and service, then each
    /// task type's pods and services.
    pub items: Vec<Object>,
}

impl List {
    /// A list of these objects.
    pub fn new(items: Vec<Object>) -> List {
        List { api_version: "v1".to_owned(), kind: "List".to_owned(), items }
    }
}

/// One row of a rendered job's summary: what a person checks before applying it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SummaryRow {
    /// `Pod` or `Service`.
    pub kind: String,
    /// The object name.
    pub name: String,
    /// The replica type, when the object has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replica_type: Option<ReplicaType>,
    /// The rank, when the object has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<i32>,
    /// The first container's CPU request of a pod.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<String>,
    /// The first container's memory request of a pod.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    /// The port a service listens on, and the port of its type's service for a pod.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
    /// The TF_CONFIG task of a pod, as `type:index`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(name: &str, rank: &str) -> Action {
        let pod: Pod = serde_json::from_value(serde_json::json!({"metadata": {"name": name,
            "labels": {"elasticjob.dlrover/replica-type": "worker", "elasticjob.dlrover/rank-index": rank}}}))
        .unwrap();
        Action::CreatePod { pod: Box::new(pod), reason: String::new(), cause: Cause::ScaleUp, event: None }
    }

    fn service(name: &str, rank: Option<&str>) -> Action {
        let selector = rank.map(
            |r| serde_json::json!({"elasticjob.dlrover/replica-type": "worker", "elasticjob.dlrover/rank-index": r}),
        );
        let service: Service =
            serde_json::from_value(serde_json::json!({"metadata": {"name": name}, "spec": {"selector": selector}}))
                .unwrap();
        Action::CreateOrUpdateService { service: Box::new(service), reason: String::new(), cause: Cause::ScaleUp }
    }

    fn names(plan: &Plan) -> Vec<String> {
        plan.actions()
            .map(|a| match a {
                Action::CreatePod { pod, .. } => pod.metadata.name.clone().unwrap_or_default(),
                Action::CreateOrUpdateService { service, .. } => service.metadata.name.clone().unwrap_or_default(),
                Action::SetScalePlanStatus { name, .. } => name.clone(),
                _ => String::new(),
            })
            .collect()
    }

    #[test]
    fn a_capped_plan_keeps_its_first_pods_and_their_services_and_leaves_the_rest() {
        let mut actions: Vec<Action> = (0..10).map(|i| service(&format!("s{i}"), Some(&i.to_string()))).collect();
        actions.push(service("master", None));
        actions.extend((0..10).map(|i| pod(&format!("p{i}"), &i.to_string())));
        actions.push(Action::SetScalePlanStatus {
            namespace: None,
            name: "plan".into(),
            status: ScalePlanStatus::default(),
            cause: Cause::Status,
        });
        let plan = Plan::from_actions(actions);
        assert_eq!(plan.clone().capped(10), plan, "within the cap: the plan as it is");
        let capped = plan.capped(4);
        // The services of the 4 pods and the one that serves no pod of the plan; the plan's status waits.
        assert_eq!(names(&capped), ["s0", "s1", "s2", "s3", "master", "p0", "p1", "p2", "p3"]);
        assert_eq!(capped.left, Some(13));
        assert_eq!(
            capped.phases.iter().map(|p| p.mode).collect::<Vec<_>>(),
            [PhaseMode::SlowStart, PhaseMode::SlowStart]
        );
    }

    #[test]
    fn a_rendered_list_reads_back_by_kind() {
        let text = r#"{"apiVersion":"v1","kind":"List","items":[
            {"apiVersion":"v1","kind":"Service","metadata":{"name":"s"}},
            {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}]}"#;
        let list: List = serde_json::from_str(text).unwrap();
        assert!(matches!(list.items.as_slice(), [Object::Service(s), Object::Pod(p)]
            if s.metadata.name.as_deref() == Some("s") && p.metadata.name.as_deref() == Some("p")));
        let bad = r#"{"apiVersion":"v1","kind":"List","items":[{"kind":"ConfigMap"}]}"#;
        assert!(
            serde_json::from_str::<List>(bad).unwrap_err().to_string().contains("only Pods, Services and a PodGroup")
        );
    }
}
