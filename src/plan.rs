//! What the core decides, as data: actions carrying whole objects, in ordered phases, for a host
//! (the Node controller, a Rust caller, a test) to carry out phase by phase. The actions of one
//! phase are independent of each other, so a host may carry them out in any order or all at once;
//! a phase starts only once the one before it is done, and a failure in one phase leaves the later
//! ones to the next pass.

use k8s_openapi::api::core::v1::{Pod, Service};
use serde::{Deserialize, Serialize};

use crate::api::{ElasticJobStatus, ReplicaType, ScalePlanStatus};
use crate::error::Problem;
use crate::reader;
use crate::workload::{Workload, WorkloadCondition};

/// One thing to do to the cluster.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "action", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Action {
    /// Create this pod. A pod of that name already existing is not an error: skip it.
    CreatePod {
        /// The whole pod.
        pod: Box<Pod>,
        /// Why, for logs and events.
        reason: String,
    },
    /// Create this service, or update the existing one of that name to match it.
    CreateOrUpdateService {
        /// The whole service.
        service: Box<Service>,
        /// Why, for logs and events.
        reason: String,
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
    },
    /// Replace the job's status subresource with this one.
    SetJobStatus {
        /// The whole new status.
        status: ElasticJobStatus,
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
    },
    /// Create this Kueue Workload, or replace the spec of the existing one of that name (planned
    /// only while Kueue holds no quota for it, when its spec may change).
    CreateOrUpdateWorkload {
        /// The whole Workload.
        workload: Box<Workload>,
        /// Why, for logs and events.
        reason: String,
    },
    /// Set the job's `spec.suspend` (a merge patch of the job): a queued job is suspended until
    /// its Workload is admitted, and again when Kueue evicts it.
    SetJobSuspend {
        /// The new value.
        suspend: bool,
        /// Why, for logs and events.
        reason: String,
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
    },
}

/// Which phase of a plan an action belongs to; phases run in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum PhaseKind {
    /// A queued job's Workload and its `spec.suspend` first: a job is started only once its
    /// unsuspend is written, and stopped with its suspend.
    Queue,
    /// Then services: a pod whose service is missing would have no address, while a service
    /// without its pod is made whole by the next pass.
    Services,
    /// Then the pods to create.
    CreatePods,
    /// Then the pods and services to delete.
    Deletions,
    /// Last the status writes: a plan is marked done only once its pods are made.
    Status,
}

impl Action {
    /// The phase the action runs in.
    pub fn phase(&self) -> PhaseKind {
        match self {
            Action::CreateOrUpdateWorkload { .. } | Action::SetJobSuspend { .. } => PhaseKind::Queue,
            Action::CreateOrUpdateService { .. } => PhaseKind::Services,
            Action::CreatePod { .. } => PhaseKind::CreatePods,
            Action::DeletePod { .. } | Action::DeleteService { .. } => PhaseKind::Deletions,
            Action::SetJobStatus { .. }
            | Action::SetScalePlanStatus { .. }
            | Action::SetWorkloadStatus { .. }
            | Action::RecordEvent { .. } => PhaseKind::Status,
        }
    }
}

/// One phase of a plan: independent actions a host may carry out together.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Phase {
    /// Which phase this is.
    pub phase: PhaseKind,
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
}

impl Plan {
    /// A plan of these actions, each in its phase; the order of the actions of one phase is kept.
    pub fn from_actions(actions: impl IntoIterator<Item = Action>) -> Plan {
        let (mut queue, mut services, mut create_pods, mut deletions, mut status) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for action in actions {
            match action.phase() {
                PhaseKind::Queue => queue.push(action),
                PhaseKind::Services => services.push(action),
                PhaseKind::CreatePods => create_pods.push(action),
                PhaseKind::Deletions => deletions.push(action),
                PhaseKind::Status => status.push(action),
            }
        }
        let phases = [
            (PhaseKind::Queue, queue),
            (PhaseKind::Services, services),
            (PhaseKind::CreatePods, create_pods),
            (PhaseKind::Deletions, deletions),
            (PhaseKind::Status, status),
        ];
        let phases = phases.into_iter().filter(|(_, actions)| !actions.is_empty());
        Plan { phases: phases.map(|(phase, actions)| Phase { phase, actions }).collect() }
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
                Action::SetJobStatus { status } => Some(status),
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
}

/// Read by its `kind`, through the same reader as every other input (an untagged enum would try
/// each type in turn and compile every Kubernetes type's reader a second time).
impl<'de> Deserialize<'de> for Object {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let value = serde_json::Value::deserialize(deserializer)?;
        let kind = value.get("kind").and_then(serde_json::Value::as_str).map(str::to_owned);
        match kind.as_deref() {
            Some("Pod") => read_item(value).map(Object::Pod),
            Some("Service") => read_item(value).map(Object::Service),
            other => Err(D::Error::custom(format!(
                "an item of kind {other:?}: a rendered List holds only Pods and Services"
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
    /// The objects: the master pod and service, then each task type's pods and services.
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

    #[test]
    fn a_rendered_list_reads_back_by_kind() {
        let text = r#"{"apiVersion":"v1","kind":"List","items":[
            {"apiVersion":"v1","kind":"Service","metadata":{"name":"s"}},
            {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}]}"#;
        let list: List = serde_json::from_str(text).unwrap();
        assert!(matches!(list.items.as_slice(), [Object::Service(s), Object::Pod(p)]
            if s.metadata.name.as_deref() == Some("s") && p.metadata.name.as_deref() == Some("p")));
        let bad = r#"{"apiVersion":"v1","kind":"List","items":[{"kind":"ConfigMap"}]}"#;
        assert!(serde_json::from_str::<List>(bad).unwrap_err().to_string().contains("only Pods and Services"));
    }
}
