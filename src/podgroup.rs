//! The gang schedulers' `PodGroup`, as the core writes and reads it: Volcano's
//! (`scheduling.volcano.sh/v1beta1`) and scheduler-plugins' coscheduling
//! (`scheduling.x-k8s.io/v1alpha1`). The two kinds share a name and the fields the core uses:
//! `minMember` and `minResources` in both, `queue`, `priorityClassName` and `minTaskMember` in
//! Volcano's, `scheduleTimeoutSeconds` in scheduler-plugins'. Of the status the core reads the
//! phase alone. The core writes a PodGroup's spec whole, as the schedulers' own controllers do (an
//! update at the resourceVersion read): a field it no longer sets goes.
//!
//! Types only: this module imports nothing from the rest of the crate.

use std::collections::BTreeMap;

use crate::podspec::ObjectMeta;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use serde::Serialize;

use crate::fields::deserialize_defaults;

/// The kind of a PodGroup, in both API groups.
pub const KIND_POD_GROUP: &str = "PodGroup";
/// Volcano's PodGroup `apiVersion`.
pub const VOLCANO_API_VERSION: &str = "scheduling.volcano.sh/v1beta1";
/// scheduler-plugins' PodGroup `apiVersion`.
pub const SCHEDULER_PLUGINS_API_VERSION: &str = "scheduling.x-k8s.io/v1alpha1";
/// The scheduler name that means Volcano (training-operator's `--gang-scheduler-name volcano`,
/// DLRover's `BatchScheduler: volcano`); Volcano's scheduler runs under that name.
pub const VOLCANO: &str = "volcano";
/// The annotation naming a pod's Volcano PodGroup (Volcano's `KubeGroupNameAnnotationKey`).
pub const VOLCANO_GROUP_ANNOTATION: &str = "scheduling.k8s.io/group-name";
/// The annotation naming a pod's task within its Volcano job (Volcano's `TaskSpecKey`): the
/// replica type, as training-operator sets it.
pub const VOLCANO_TASK_ANNOTATION: &str = "volcano.sh/task-spec";
/// The label naming a pod's scheduler-plugins PodGroup (scheduler-plugins' `PodGroupLabel`).
pub const SCHEDULER_PLUGINS_GROUP_LABEL: &str = "scheduling.x-k8s.io/pod-group";
/// The phase of a Volcano PodGroup its scheduler has not admitted yet: the queue has no room for
/// its `minResources`.
pub const PHASE_PENDING: &str = "Pending";

/// Which gang scheduler places a job's pods.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Gang {
    /// Volcano: the scheduler `volcano`, a `scheduling.volcano.sh/v1beta1` PodGroup named in each
    /// member pod's [`VOLCANO_GROUP_ANNOTATION`].
    Volcano,
    /// scheduler-plugins' coscheduling, run as the scheduler of this name: a
    /// `scheduling.x-k8s.io/v1alpha1` PodGroup named in each member pod's
    /// [`SCHEDULER_PLUGINS_GROUP_LABEL`].
    SchedulerPlugins(String),
}

impl Gang {
    /// The gang scheduler a scheduler name stands for: `volcano` is Volcano, any other name
    /// scheduler-plugins' scheduler of that name (as training-operator reads its
    /// `--gang-scheduler-name`).
    pub fn named(name: &str) -> Gang {
        if name == VOLCANO { Gang::Volcano } else { Gang::SchedulerPlugins(name.to_owned()) }
    }

    /// The `schedulerName` of the job's pods.
    pub fn scheduler_name(&self) -> &str {
        match self {
            Gang::Volcano => VOLCANO,
            Gang::SchedulerPlugins(name) => name,
        }
    }

    /// The `apiVersion` of its PodGroups.
    pub fn api_version(&self) -> &'static str {
        match self {
            Gang::Volcano => VOLCANO_API_VERSION,
            Gang::SchedulerPlugins(_) => SCHEDULER_PLUGINS_API_VERSION,
        }
    }
}

/// A gang scheduler's `PodGroup`: how many of a job's pods must be placed together.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PodGroup {
    /// [`VOLCANO_API_VERSION`] or [`SCHEDULER_PLUGINS_API_VERSION`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// `PodGroup`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Standard object metadata.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// What the gang needs.
    #[serde(default)]
    pub spec: PodGroupSpec,
    /// What the scheduler decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<PodGroupStatus>,
}

/// The spec of a [`PodGroup`], the fields of both kinds.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PodGroupSpec {
    /// The fewest member pods the scheduler places at once.
    #[serde(default)]
    pub min_member: i32,
    /// Volcano's queue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<String>,
    /// Volcano's priority class of the group.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority_class_name: Option<String>,
    /// What the `minMember` pods request together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_resources: Option<BTreeMap<String, Quantity>>,
    /// Volcano's fewest pods of each task (its `volcano.sh/task-spec`: the replica type) placed at
    /// once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_task_member: Option<BTreeMap<String, i32>>,
    /// scheduler-plugins': how long the group's pods wait for the rest at the Permit stage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule_timeout_seconds: Option<i32>,
}

/// The status of a [`PodGroup`]: the phase alone is read.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PodGroupStatus {
    /// Volcano's `Pending`, `Inqueue`, `Running`, `Unknown`, `Completed`; scheduler-plugins'
    /// `Pending`, `PreScheduling`, `Scheduling`, `Scheduled`, `Running`, `Finished`, `Failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
}

deserialize_defaults! {
    test pod_group_keys_are_the_written_ones;
    PodGroup { api_version "apiVersion", kind "kind", metadata "metadata", spec "spec", status "status", }
    PodGroupSpec {
        min_member "minMember", queue "queue", priority_class_name "priorityClassName", min_resources "minResources",
        min_task_member "minTaskMember", schedule_timeout_seconds "scheduleTimeoutSeconds",
    }
    PodGroupStatus { phase "phase", }
}

impl PodGroup {
    /// Its phase, empty when the scheduler has not written one.
    pub fn phase(&self) -> &str {
        self.status.as_ref().and_then(|s| s.phase.as_deref()).unwrap_or_default()
    }
}
