//! The `elastic.iml.github.io/v1alpha1` resources, `ElasticJob` and `ScalePlan`, with the JSON
//! field names of the upstream Go types (including the capitalised `BatchScheduler`).
//!
//! Types only: this module imports nothing from the rest of the crate. What the core derives from
//! these types lives above it (the crate's `naming`, `pod` and `job` modules).

use std::collections::BTreeMap;

use crate::podspec::{EnvVar, LabelSelector, ObjectMeta, PodTemplateSpec, Time};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use serde::Serialize;

use crate::fields::{deserialize_defaults, deserialize_names};
pub use crate::replica::{ReplicaType, TypeEntry, TypeMap, TypeMapIntoIter, TypeMapIter, TypeMapIterMut};

/// The API group of both resources.
pub const GROUP: &str = "elastic.iml.github.io";
/// The `apiVersion` of both resources.
pub const API_VERSION: &str = "elastic.iml.github.io/v1alpha1";
/// The kind of a job.
pub const KIND_ELASTIC_JOB: &str = "ElasticJob";
/// The kind of a scale plan.
pub const KIND_SCALE_PLAN: &str = "ScalePlan";
/// The API group of Kubeflow's training jobs (training-operator v1.9).
pub const KUBEFLOW_GROUP: &str = "kubeflow.org";
/// The kind of a Kubeflow TFJob, which `convert::from_tf_job` makes an ElasticJob.
pub const KIND_TF_JOB: &str = "TFJob";

/// A Kubernetes resource list: resource name (`cpu`, `memory`, ...) to quantity.
pub type ResourceList = BTreeMap<String, Quantity>;

/// How the job distributes training.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum DistributionStrategy {
    /// TensorFlow parameter-server training: pods get `TF_CONFIG`.
    ParameterServerStrategy,
    /// Ring all-reduce: pods get `RDZV_ENDPOINT` instead of `TF_CONFIG`.
    AllreduceStrategy,
}

/// A replica's restart policy, as the job declares it (Kubeflow's values). DLRover 0.6.1's master
/// reads none: it relaunches a failed pod by its exit code within `restartCount`
/// (docs/migrate-from-tfjob.md, "Relaunches"); the core does not relaunch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum RestartPolicy {
    /// Relaunch whenever the pod fails (within `restartCount`).
    Always,
    /// Relaunch when the pod fails (within `restartCount`).
    OnFailure,
    /// Never relaunch.
    Never,
    /// Exit codes 1-127 are permanent (no relaunch); 128-255 are retryable.
    ExitCode,
}

/// Who tunes the job's resources.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum OptimizeMode {
    /// Resources come from the manifest only.
    #[serde(rename = "manual")]
    Manual,
    /// The job master tunes this job alone.
    #[serde(rename = "single-job")]
    SingleJob,
    /// The cluster-wide DLRover Brain tunes the job; the master gets its address.
    #[serde(rename = "cluster")]
    Cluster,
}

/// A job condition type, also used as the job phase and the scale-plan phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum JobConditionType {
    /// Accepted; pods not started yet.
    Created,
    /// Waiting for the master to be scheduled.
    Pending,
    /// The master runs.
    Running,
    /// Some pods failed and are being relaunched.
    Restarting,
    /// Finished successfully.
    Succeeded,
    /// Finished with a failure; a job with a true Failed condition never changes again.
    Failed,
    /// A scale plan is being carried out.
    Scaling,
    /// `spec.suspend` is true: no pod runs.
    Suspended,
    /// A queued job's current scale plan asks for more pods of a type than Kueue admitted: the
    /// rest are not made. Set beside the phase, never as it.
    QuotaLimited,
    /// The job's Volcano PodGroup has not been admitted (it is missing or `Pending`): no task pod
    /// is made until Volcano admits the whole gang. Set beside the phase, never as it.
    GangPending,
    /// The core refuses the job (an invalid field, a template that names the job masters'
    /// ServiceAccount, ...): nothing of it is made or changed until it is changed. Set beside the
    /// phase, never as it; false once a pass plans the job again.
    Refused,
}

impl JobConditionType {
    /// The upstream string.
    pub fn as_str(self) -> &'static str {
        match self {
            JobConditionType::Created => "Created",
            JobConditionType::Pending => "Pending",
            JobConditionType::Running => "Running",
            JobConditionType::Restarting => "Restarting",
            JobConditionType::Succeeded => "Succeeded",
            JobConditionType::Failed => "Failed",
            JobConditionType::Scaling => "Scaling",
            JobConditionType::Suspended => "Suspended",
            JobConditionType::QuotaLimited => "QuotaLimited",
            JobConditionType::GangPending => "GangPending",
            JobConditionType::Refused => "Refused",
        }
    }
}

/// The status of a condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum ConditionStatus {
    /// The condition holds.
    True,
    /// The condition does not hold.
    False,
    /// Not known.
    Unknown,
}

/// An `ElasticJob`: a training job whose replicas the DLRover master scales.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ElasticJob {
    /// `elastic.iml.github.io/v1alpha1` when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// `ElasticJob` when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Standard object metadata; `name` is required.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// What the job should run.
    #[serde(default)]
    pub spec: ElasticJobSpec,
    /// What the operator observed and decided so far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ElasticJobStatus>,
}

/// The desired state of an [`ElasticJob`].
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ElasticJobSpec {
    /// `ParameterServerStrategy` or `AllreduceStrategy`; required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distribution_strategy: Option<DistributionStrategy>,
    /// The ceiling for the whole job: resource name to quantity.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub resource_limits: BTreeMap<String, Quantity>,
    /// `manual`, `single-job` or `cluster`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optimize_mode: Option<OptimizeMode>,
    /// The DLRover Brain address (`host:port`), used when `optimizeMode` is `cluster`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub brain_service: Option<String>,
    /// Replica type to replica spec.
    #[serde(default)]
    pub replica_specs: TypeMap<ReplicaSpec>,
    /// Environment variables added to every container of every pod, by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub envs: BTreeMap<String, EnvVar>,
    /// While true, no pod of the job runs (DLRover's and Kubeflow's `suspend`); false or absent
    /// runs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    /// Kubeflow's run policy: a deadline, a backoff limit, which pods a finished job deletes, and
    /// when a finished job itself is deleted. Absent, the job runs as DLRover's operator runs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_policy: Option<RunPolicy>,
}

/// Kubeflow's `RunPolicy` (training-operator v1.9, `pkg/apis/kubeflow.org/v1/common_types.go`) for
/// an ElasticJob: the same field names and types. A field left out keeps DLRover's behaviour
/// (no deadline, no backoff limit, a finished job's running pods stopped, the job kept); `suspend`
/// is the job's `spec.suspend`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct RunPolicy {
    /// Which pods are deleted once the job has Succeeded or Failed: `All`, `Running` (Running
    /// and Pending ones) or `None`. Absent: `Running`, as DLRover's operator stops a finished
    /// job's running pods (Kubeflow defaults a TFJob's to `None`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clean_pod_policy: Option<CleanPodPolicy>,
    /// Seconds after the job's completion time at which the job itself is deleted (its pods and
    /// services go with it). Absent: never.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_seconds_after_finished: Option<i32>,
    /// Seconds from the job's start time after which a job that has not finished fails
    /// (`DeadlineExceeded`) and its running pods are stopped. Absent: no deadline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_deadline_seconds: Option<i64>,
    /// How many of the job's task pods may fail (each one DLRover's master relaunches as a new
    /// pod) before the job fails (`BackoffLimitExceeded`). Absent: no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff_limit: Option<i32>,
    /// How a gang scheduler places the job's task pods together (Kubeflow's `SchedulingPolicy`):
    /// read only when the job has a gang scheduler (the controller's `--gang-scheduler-name`, or a
    /// replica's `BatchScheduler: volcano`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduling_policy: Option<SchedulingPolicy>,
}

/// Kubeflow's `SchedulingPolicy` (training-operator v1.9): the same field names and meaning, so a
/// TFJob's block works unchanged. Every field is optional.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SchedulingPolicy {
    /// The PodGroup's `minMember`: the fewest task pods placed at once. Absent: every PS, the
    /// chief, the evaluator and the workers of the job's current plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_available: Option<i32>,
    /// Volcano's queue of the PodGroup. Absent: `default`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<String>,
    /// The PodGroup's `minResources`. Absent: what the `minMember` pods request together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_resources: Option<ResourceList>,
    /// Volcano's priority class of the PodGroup.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority_class: Option<String>,
    /// scheduler-plugins': how long the group's pods wait at the Permit stage for the rest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule_timeout_seconds: Option<i32>,
}

/// Which of a finished job's pods are deleted (Kubeflow's `CleanPodPolicy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum CleanPodPolicy {
    /// Every pod, whatever its phase, the master's too.
    All,
    /// The Running and Pending pods (a Pending pod would run once scheduled).
    Running,
    /// None: every pod is left as it is.
    None,
}

/// How many replicas of one type to run, and how.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ReplicaSpec {
    /// How many replicas. Absent, DLRover's master reads 0 and plans the type's count from its
    /// own optimizer: 1 parameter server, 1 worker, no chief and no evaluator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    /// The pod template of every replica.
    #[serde(default)]
    pub template: PodTemplateSpec,
    /// The replica's restart policy, as Kubeflow names them; DLRover's master does not read it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart_policy: Option<RestartPolicy>,
    /// How often DLRover's master may relaunch a failed pod of a rank, for an exit code it does not
    /// always or never relaunch: the worker's for chief, workers and evaluator; 3 when absent, at
    /// most 5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart_count: Option<i32>,
    /// Whether the master may scale this replica type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_scale: Option<bool>,
    /// Seconds to wait for a hanging replica.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart_timeout: Option<i32>,
    /// `high`, `low`, or a fraction such as `0.5` (that share of the replicas gets high priority).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<String>,
    /// The batch scheduler: `default`, or `volcano` for Volcano's gang (the key is capitalised
    /// upstream). One replica saying `volcano` gives the whole job Volcano's PodGroup.
    #[serde(rename = "BatchScheduler", default, skip_serializing_if = "Option::is_none")]
    pub batch_scheduler: Option<String>,
}

impl ReplicaSpec {
    /// The replica count as DLRover's master reads it: `replicas`, or 0 when absent
    /// (`K8sJobArgs.initilize`, `dlrover/python/scheduler/kubernetes.py`).
    pub fn replicas(&self) -> i32 {
        self.replicas.unwrap_or(0)
    }

    /// The relaunch budget of a fresh replica: `restartCount`, or 0 when absent.
    pub fn restart_count(&self) -> i32 {
        self.restart_count.unwrap_or(0)
    }
}

/// The observed state of an [`ElasticJob`], in the shape of DLRover's CRD: the common job status
/// of Kubeflow's operators under `status`, beside the job's `phase` and `scalePlan`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ElasticJobStatus {
    /// Conditions, pod counts and times.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<JobStatus>,
    /// The type of the newest condition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<JobConditionType>,
    /// The name of the scale plan being carried out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_plan: Option<String>,
}

impl ElasticJobStatus {
    /// The common job status, if any was written.
    pub fn common(&self) -> Option<&JobStatus> {
        self.status.as_ref()
    }

    /// The common job status, created empty when none was written.
    pub fn common_mut(&mut self) -> &mut JobStatus {
        self.status.get_or_insert_with(JobStatus::default)
    }
}

/// The common job status (Kubeflow's `JobStatus`). `conditions` and `replicaStatuses` are always
/// written, as DLRover's CRD requires them.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct JobStatus {
    /// Conditions, oldest first; the newest decides `phase`.
    #[serde(default)]
    pub conditions: Vec<JobCondition>,
    /// Pod counts by replica type.
    #[serde(default)]
    pub replica_statuses: TypeMap<ReplicaStatus>,
    /// When the operator first saw the job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_time: Option<Time>,
    /// When the job finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_time: Option<Time>,
    /// When the job was last reconciled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_reconcile_time: Option<Time>,
}

/// Pod counts of one replica type. Zero counts are left out of the JSON, as upstream does.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ReplicaStatus {
    /// Replicas at the start of the current scale plan.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub initial: i32,
    /// Pods in phase Pending.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pending: i32,
    /// Pods in phase Running.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub active: i32,
    /// Pods in phase Succeeded.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub succeeded: i32,
    /// Pods in phase Failed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub failed: i32,
    /// The selector of the type's pods, as upstream operators may write it; kept as read.
    #[serde(rename = "labelSelector", default, skip_serializing_if = "Option::is_none")]
    pub label_selector: Option<LabelSelector>,
}

fn is_zero(n: &i32) -> bool {
    *n == 0
}

/// A condition of a job at some time.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct JobCondition {
    /// The condition type.
    #[serde(rename = "type")]
    pub type_: JobConditionType,
    /// `True`, `False` or `Unknown`.
    pub status: ConditionStatus,
    /// A CamelCase reason, e.g. `JobRunning`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// A sentence for people.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// When the condition was last set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_update_time: Option<Time>,
    /// When the status last changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<Time>,
}

/// A `ScalePlan`: what the master wants the job to look like next.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ScalePlan {
    /// `elastic.iml.github.io/v1alpha1` when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// `ScalePlan` when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Standard object metadata. The label `scale-type: auto` makes the operator act on it.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// What to change.
    #[serde(default)]
    pub spec: ScaleSpec,
    /// How far the operator got.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ScalePlanStatus>,
}

/// The changes a [`ScalePlan`] asks for.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ScaleSpec {
    /// The name of the job to scale.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner_job: Option<String>,
    /// Replica type to target replica count and per-replica resource.
    #[serde(default, skip_serializing_if = "TypeMap::is_empty")]
    pub replica_resource_specs: TypeMap<ReplicaResourceSpec>,
    /// Pods to create.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub create_pods: Vec<PodMeta>,
    /// Pods to remove.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub remove_pods: Vec<PodMeta>,
    /// Pods to replace by a pod with the same rank and a new resource.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub migrate_pods: Vec<PodMeta>,
    /// The parameter-server addresses (`host:port`) every pod's TF_CONFIG lists.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ps_hosts: Vec<String>,
}

impl ScaleSpec {
    /// Whether the plan asks for nothing: no target, no pod to create, remove or migrate, no PS
    /// address. DLRover's master writes such a plan every 60 s until its autoscaler starts.
    pub fn is_empty(&self) -> bool {
        self.replica_resource_specs.is_empty()
            && self.create_pods.is_empty()
            && self.remove_pods.is_empty()
            && self.migrate_pods.is_empty()
            && self.ps_hosts.is_empty()
    }
}

/// The target of one replica type.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ReplicaResourceSpec {
    /// How many replicas (left out of the JSON when 0, as upstream writes it).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub replicas: i32,
    /// The resource of each replica.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub resource: ResourceList,
}

/// One pod of a plan.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PodMeta {
    /// The pod name, `<job>-edljob-<type>-<id>`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// The pod id (its `replica-index`). An entry that names its pod gives the id too, so the
    /// two can be checked against each other.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<i32>,
    /// The replica type.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub type_: Option<ReplicaType>,
    /// The rank (its `rank-index`), which fixes its service and TF_CONFIG index (left out of the
    /// JSON when 0, as upstream writes it).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rank_index: i32,
    /// The pod's service address, `host:port`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub service: String,
    /// The pod's resource.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub resource: ResourceList,
}

/// The progress of a [`ScalePlan`].
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ScalePlanStatus {
    /// When the operator acknowledged the plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create_time: Option<Time>,
    /// When the operator finished the plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_time: Option<Time>,
    /// `Created`, `Pending`, `Scaling`, `Succeeded`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<JobConditionType>,
}

deserialize_names! {
    test api_names_are_the_written_ones;
    DistributionStrategy { ParameterServerStrategy "ParameterServerStrategy", AllreduceStrategy "AllreduceStrategy", }
    RestartPolicy { Always "Always", OnFailure "OnFailure", Never "Never", ExitCode "ExitCode", }
    OptimizeMode { Manual "manual", SingleJob "single-job", Cluster "cluster", }
    JobConditionType {
        Created "Created", Pending "Pending", Running "Running", Restarting "Restarting", Succeeded "Succeeded",
        Failed "Failed", Scaling "Scaling", Suspended "Suspended", QuotaLimited "QuotaLimited",
        GangPending "GangPending", Refused "Refused",
    }
    ConditionStatus { True "True", False "False", Unknown "Unknown", }
    CleanPodPolicy { All "All", Running "Running", None "None", }
}

deserialize_defaults! {
    test api_keys_are_the_written_ones;
    ElasticJob { api_version "apiVersion", kind "kind", metadata "metadata", spec "spec", status "status", }
    ElasticJobSpec {
        distribution_strategy "distributionStrategy", resource_limits "resourceLimits", optimize_mode "optimizeMode",
        brain_service "brainService", replica_specs "replicaSpecs", envs "envs", suspend "suspend",
        run_policy "runPolicy",
    }
    RunPolicy {
        clean_pod_policy "cleanPodPolicy", ttl_seconds_after_finished "ttlSecondsAfterFinished",
        active_deadline_seconds "activeDeadlineSeconds", backoff_limit "backoffLimit",
        scheduling_policy "schedulingPolicy",
    }
    SchedulingPolicy {
        min_available "minAvailable", queue "queue", min_resources "minResources", priority_class "priorityClass",
        schedule_timeout_seconds "scheduleTimeoutSeconds",
    }
    ReplicaSpec {
        replicas "replicas", template "template", restart_policy "restartPolicy", restart_count "restartCount",
        auto_scale "autoScale", restart_timeout "restartTimeout", priority "priority",
        batch_scheduler "BatchScheduler",
    }
    ElasticJobStatus { status "status", phase "phase", scale_plan "scalePlan", }
    JobCondition {
        type_ "type" required JobConditionType::Created, status "status" required ConditionStatus::Unknown,
        reason "reason", message "message", last_update_time "lastUpdateTime",
        last_transition_time "lastTransitionTime",
    }
    JobStatus {
        conditions "conditions", replica_statuses "replicaStatuses", start_time "startTime",
        completion_time "completionTime", last_reconcile_time "lastReconcileTime",
    }
    ReplicaStatus {
        initial "initial", pending "pending", active "active", succeeded "succeeded", failed "failed",
        label_selector "labelSelector",
    }
    ScalePlan { api_version "apiVersion", kind "kind", metadata "metadata", spec "spec", status "status", }
    ScaleSpec {
        owner_job "ownerJob", replica_resource_specs "replicaResourceSpecs", create_pods "createPods",
        remove_pods "removePods", migrate_pods "migratePods", ps_hosts "psHosts",
    }
    ReplicaResourceSpec { replicas "replicas", resource "resource", }
    PodMeta {
        name "name", id "id", type_ "type", rank_index "rankIndex", service "service", resource "resource",
    }
    ScalePlanStatus { create_time "createTime", finish_time "finishTime", phase "phase", }
}

impl ElasticJob {
    /// The job name (empty when the manifest has none, which validation refuses).
    pub fn name(&self) -> &str {
        self.metadata.name.as_deref().unwrap_or_default()
    }

    /// The replica spec the job declares for a type, if any; no fallback (a chief's pods are made
    /// from the worker's spec when the job declares none, but that is not this spec).
    pub fn declared_replica_spec(&self, replica_type: ReplicaType) -> Option<&ReplicaSpec> {
        self.spec.replica_specs.get(&replica_type)
    }

    /// The strategy, `ParameterServerStrategy` when absent (validation requires it).
    pub fn strategy(&self) -> DistributionStrategy {
        self.spec.distribution_strategy.unwrap_or(DistributionStrategy::ParameterServerStrategy)
    }
}
