//! Kueue's resources as the core reads and writes them: the `kueue.x-k8s.io/v1beta2` `Workload`
//! (the version Kueue 0.17 stores; it serves v1beta1 too, through its conversion webhook) and the
//! `ResourceFlavor` an admission names. Only the fields the core uses are typed; a Workload read
//! from the cluster may have more (`status.resourceRequests`, `schedulingStats`, ...), which the
//! core never writes back: it writes a Workload's spec whole, and its status by a merge patch of
//! `conditions` and `admission` only.
//!
//! Types only: this module imports nothing from the rest of the crate.

use std::collections::BTreeMap;

use crate::podspec::{ObjectMeta, PodTemplateSpec, Time, Toleration};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use serde::Serialize;

use crate::fields::deserialize_defaults;

/// The `apiVersion` of the Workloads the core plans.
pub const WORKLOAD_API_VERSION: &str = "kueue.x-k8s.io/v1beta2";
/// The kind of a Workload.
pub const KIND_WORKLOAD: &str = "Workload";
/// The label that puts a job in a Kueue LocalQueue (of the job's namespace).
pub const LABEL_QUEUE_NAME: &str = "kueue.x-k8s.io/queue-name";
/// The label naming a job's `WorkloadPriorityClass` (Kueue's own priority classes).
pub const LABEL_PRIORITY_CLASS: &str = "kueue.x-k8s.io/priority-class";
/// Kueue's annotation of a job whose Workload may change size (`EnabledAnnotationKey` in
/// `pkg/workloadslicing/workloadslicing.go`), `"true"`: a queued ElasticJob with it gives the quota
/// of a scale-down back (see [`crate::Options::kueue_workload_slices`]).
pub const ANNOTATION_ELASTIC_JOB: &str = "kueue.x-k8s.io/elastic-job";
/// Kueue's annotation of a Workload slice naming the slice it replaces, `<namespace>/<name>`
/// (`WorkloadSliceReplacementFor` in `pkg/workloadslicing/workloadslicing.go`): once the new
/// slice is admitted for the growth alone, Kueue finishes the old one.
pub const ANNOTATION_REPLACEMENT_FOR: &str = "kueue.x-k8s.io/workload-slice-replacement-for";
/// Kueue's annotation of a Workload slice naming its chain: the first slice's name
/// (`WorkloadSliceNameAnnotation` in `apis/kueue/v1beta2/topology_types.go`).
pub const ANNOTATION_SLICE_NAME: &str = "kueue.x-k8s.io/workload-slice-name";
/// The reason of the `Finished` condition Kueue sets on a slice its successor replaced
/// (`WorkloadSliceReplaced` in `apis/kueue/v1beta2/workload_types.go`).
pub const REASON_SLICE_REPLACED: &str = "WorkloadSliceReplaced";
/// The reason of the `Finished` condition of a slice out of step with its job
/// (`WorkloadFinishedReasonOutOfSync`), as `workloadslicing.EnsureWorkloadSlices` sets it.
pub const REASON_OUT_OF_SYNC: &str = "OutOfSync";
/// The label Kueue's job integrations put on the pods of an admitted pod set: its name.
pub const LABEL_POD_SET: &str = "kueue.x-k8s.io/podset";

/// The Workload conditions the core reads or writes.
pub const QUOTA_RESERVED: &str = "QuotaReserved";
/// All the admission checks are ready and the quota is reserved: the job may run.
pub const ADMITTED: &str = "Admitted";
/// Kueue took the admission back (preempted, deactivated, ...): the job must stop.
pub const EVICTED: &str = "Evicted";
/// The job has ended: Kueue releases the quota at once.
pub const FINISHED: &str = "Finished";
/// Set beside a released quota: whether Kueue queues the Workload again.
pub const REQUEUED: &str = "Requeued";

/// A Kueue `Workload`: what a job asks of a queue, and what Kueue gave it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Workload {
    /// `kueue.x-k8s.io/v1beta2`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// `Workload`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Standard object metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// What the job asks for.
    #[serde(default)]
    pub spec: WorkloadSpec,
    /// What Kueue decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<WorkloadStatus>,
}

/// The desired state of a [`Workload`].
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct WorkloadSpec {
    /// One set of alike pods a replica type, at most 8; immutable while quota is reserved.
    #[serde(default)]
    pub pod_sets: Vec<PodSet>,
    /// The LocalQueue, in the Workload's namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_name: Option<String>,
    /// The priority class the priority comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority_class_ref: Option<PriorityClassRef>,
    /// The class's value; required with `priorityClassRef`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
    /// False evicts an admitted Workload and keeps it from being admitted (Kueue defaults it to
    /// true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active: Option<bool>,
}

/// The pods of one replica type.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PodSet {
    /// The replica type (`dlrover-master`, `ps`, `chief`, `worker`, `evaluator`).
    #[serde(default)]
    pub name: String,
    /// The pod every replica of the type is made from, resources as the pods get them.
    #[serde(default)]
    pub template: PodTemplateSpec,
    /// How many pods.
    #[serde(default)]
    pub count: i32,
}

/// A reference to a priority class: `scheduling.k8s.io`'s `PriorityClass` or Kueue's
/// `WorkloadPriorityClass`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PriorityClassRef {
    /// `scheduling.k8s.io` or `kueue.x-k8s.io`.
    #[serde(default)]
    pub group: String,
    /// `PriorityClass` or `WorkloadPriorityClass`.
    #[serde(default)]
    pub kind: String,
    /// The class's name.
    #[serde(default)]
    pub name: String,
}

/// What Kueue decided about a [`Workload`].
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct WorkloadStatus {
    /// `QuotaReserved`, `Admitted`, `Evicted`, `Finished`, `Requeued`, ...
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<WorkloadCondition>,
    /// Where and with what the Workload was admitted; present while quota is reserved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admission: Option<Admission>,
    /// The admission checks and what each adds to the pods.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub admission_checks: Vec<AdmissionCheckState>,
}

/// A condition of a Workload (`metav1.Condition`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct WorkloadCondition {
    /// The condition type.
    #[serde(rename = "type", default)]
    pub type_: String,
    /// `True`, `False` or `Unknown`.
    #[serde(default)]
    pub status: String,
    /// A CamelCase reason.
    #[serde(default)]
    pub reason: String,
    /// A sentence for people.
    #[serde(default)]
    pub message: String,
    /// When the status last changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<Time>,
    /// The Workload generation the condition was set for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

/// The admission of a Workload.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Admission {
    /// The ClusterQueue that admitted it.
    #[serde(default)]
    pub cluster_queue: String,
    /// One a pod set, in the pod sets' order.
    #[serde(default)]
    pub pod_set_assignments: Vec<PodSetAssignment>,
}

/// What one pod set was admitted with.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PodSetAssignment {
    /// The pod set.
    #[serde(default)]
    pub name: String,
    /// Resource name to the ResourceFlavor it is taken from.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub flavors: BTreeMap<String, String>,
    /// The quota taken, by resource.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub resource_usage: BTreeMap<String, Quantity>,
    /// How many pods were admitted (the pod set's count unless partially admitted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<i32>,
}

/// The state of one admission check.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct AdmissionCheckState {
    /// The AdmissionCheck.
    #[serde(default)]
    pub name: String,
    /// `Pending`, `Ready`, `Retry` or `Rejected`.
    #[serde(default)]
    pub state: String,
    /// What the check adds to each pod set's pods.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pod_set_updates: Vec<PodSetUpdate>,
}

/// What an admission check adds to one pod set's pods.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PodSetUpdate {
    /// The pod set.
    #[serde(default)]
    pub name: String,
    /// Labels added.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// Annotations added.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
    /// Node selector entries added.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub node_selector: BTreeMap<String, String>,
    /// Tolerations added.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tolerations: Vec<Toleration>,
}

/// A Kueue `ResourceFlavor`: the nodes a flavour's quota stands for.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ResourceFlavor {
    /// `kueue.x-k8s.io/v1beta2`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// `ResourceFlavor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Standard object metadata; the flavour's name.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// Its nodes.
    #[serde(default)]
    pub spec: ResourceFlavorSpec,
}

/// The nodes of a [`ResourceFlavor`].
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ResourceFlavorSpec {
    /// The labels of its nodes: added to the node selector of the pods admitted on it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub node_labels: BTreeMap<String, String>,
    /// Added to the tolerations of the pods admitted on it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tolerations: Vec<Toleration>,
}

deserialize_defaults! {
    test workload_keys_are_the_written_ones;
    Workload { api_version "apiVersion", kind "kind", metadata "metadata", spec "spec", status "status", }
    WorkloadSpec {
        pod_sets "podSets", queue_name "queueName", priority_class_ref "priorityClassRef", priority "priority",
        active "active",
    }
    PodSet { name "name", template "template", count "count", }
    PriorityClassRef { group "group", kind "kind", name "name", }
    WorkloadStatus { conditions "conditions", admission "admission", admission_checks "admissionChecks", }
    WorkloadCondition {
        type_ "type", status "status", reason "reason", message "message",
        last_transition_time "lastTransitionTime", observed_generation "observedGeneration",
    }
    Admission { cluster_queue "clusterQueue", pod_set_assignments "podSetAssignments", }
    PodSetAssignment { name "name", flavors "flavors", resource_usage "resourceUsage", count "count", }
    AdmissionCheckState { name "name", state "state", pod_set_updates "podSetUpdates", }
    PodSetUpdate {
        name "name", labels "labels", annotations "annotations", node_selector "nodeSelector",
        tolerations "tolerations",
    }
    ResourceFlavor { api_version "apiVersion", kind "kind", metadata "metadata", spec "spec", }
    ResourceFlavorSpec { node_labels "nodeLabels", tolerations "tolerations", }
}

impl Workload {
    /// The condition of this type, if Kueue or the controller set one.
    pub fn condition(&self, type_: &str) -> Option<&WorkloadCondition> {
        self.status.as_ref()?.conditions.iter().find(|c| c.type_ == type_)
    }

    /// Whether the condition of this type is `True`.
    pub fn is_true(&self, type_: &str) -> bool {
        self.condition(type_).is_some_and(|c| c.status == "True")
    }

    /// The value of an annotation.
    pub fn annotation(&self, key: &str) -> Option<&str> {
        self.metadata.annotations.as_ref()?.get(key).map(String::as_str)
    }

    /// Whether Kueue holds quota for it (`QuotaReserved` true).
    pub fn has_quota(&self) -> bool {
        self.is_true(QUOTA_RESERVED)
    }

    /// Whether the job may run: admitted, with an admission, not evicted, active.
    pub fn is_admitted(&self) -> bool {
        self.is_true(ADMITTED) && self.status.as_ref().is_some_and(|s| s.admission.is_some()) && !self.is_evicted()
    }

    /// Whether Kueue took the admission back, or the Workload was deactivated.
    pub fn is_evicted(&self) -> bool {
        self.is_true(EVICTED) || self.spec.active == Some(false)
    }
}
