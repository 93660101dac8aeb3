//! The objects the operator creates: task pods and their services, the job master pod and its
//! service, all owned by the job.
//!
//! A task pod is its replica's template (a chief without its own spec uses the worker's) with:
//! - metadata: name `<job>-edljob-<type>-<id>`, the job's namespace, the template's labels plus the
//!   job's (but Kueue's `queue-name` and `priority-class`, which would make Kueue queue the pod
//!   itself) plus the operator's (`app`, job name, replica type, replica index = id, rank index,
//!   `restart-count`, `relaunch-count`), the template's annotations plus the job's (never kubectl's
//!   last-applied copy), and a controller owner reference when the job has a uid;
//! - on its first container: each resource of the plan set as both request and limit (other
//!   resources of the template, such as GPUs, are kept), then after the template's own env the
//!   job's `envs`, then `DLROVER_MASTER_ADDR`, `WORKER_TYPE`, `WORKER_ID`, `WORKER_RANK`,
//!   `GRPC_ENABLE_FORK_SUPPORT=False`, `POD_NAME`, `WORKER_NUM` (workers only), and last
//!   `TF_CONFIG` or `RDZV_ENDPOINT`;
//! - `restartPolicy: Never` when the template sets none: DLRover's master, not the kubelet, decides
//!   relaunches, and a pod that restarts in place never reaches `Failed` for the master to see;
//! - every resource quantity in the form the API server stores (`0.5` is `500m`), so a pod reads
//!   back from the cluster as it was sent.

use std::collections::BTreeMap;

use crate::podspec::{
    Container, EnvVar, EnvVarSource, ObjectMeta, OwnerReference, Pod, PodSecurityContext, PodSpec, PodTemplateSpec,
    SecurityContext, Service, Volume, VolumeMount,
};
use k8s_openapi::api::core::v1::{ResourceRequirements, ServicePort, ServiceSpec};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde::{Deserialize, Serialize};

use crate::api::{self, DistributionStrategy, ElasticJob, OptimizeMode, ReplicaType, ResourceList, ScalePlan};
use crate::error::{Code, Error, Result, into_result};
use crate::podgroup::{self, Gang};
use crate::tfconfig::{ClusterLayout, Marked, set_env};
use crate::{job, naming, pod, quantity, sorted, workload};

mod account;

use account::named_account;
pub use account::{account_problems, is_master_account, is_own_master, master_account_problem};

/// Settings of the operator itself, the same for every job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Options {
    /// The image of the job master when the job gives no `dlrover-master` template with one.
    #[serde(default = "default_master_image")]
    pub master_image: String,
    /// The pods one controller pass creates at most ([`crate::controller_pass`]; the ReplicaSet
    /// controller's `burstReplicas`, 500, is a host's usual choice): a larger plan creates the
    /// first ones, with their services, and leaves the rest ([`crate::Plan::left`]) for the next
    /// pass, which plans it again from what the cluster then shows. None: no cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_pod_creates: Option<usize>,
    /// The ServiceAccount the job master's pod runs as when its template names none. DLRover's
    /// master reads and writes the job's pods, services, events and ScalePlans with it
    /// (docs/install.md has the Role it needs); None: the namespace's `default`, as upstream.
    /// Only the controller's own master gets it (a master from the controller's image that runs
    /// no code of the job's), unless [`Options::allow_user_masters`]; a task template that names
    /// it, or the chart's `elasticjob-dlrover-master`, is refused. Never `default`, which every
    /// pod of the namespace runs as.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub master_service_account: Option<String>,
    /// Whether a `dlrover-master` template the job writes itself (its own image, command, env,
    /// volumes, containers...) runs as the masters' ServiceAccount too, as upstream lets it, with
    /// the job's `envs`. False: only the master made from the controller's image does, without the
    /// job's `envs`; the admin trusts everyone who may create a job with the account's rights when
    /// this is true.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_user_masters: bool,
    /// The gang scheduler of every job's pods (training-operator's `--gang-scheduler-name`):
    /// `volcano`, or the name scheduler-plugins' scheduler runs under. Each job then gets a
    /// PodGroup and its pods that scheduler. None: only a job whose replicas say
    /// `BatchScheduler: volcano` gets a gang (Volcano's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gang_scheduler_name: Option<String>,
    /// Whether Kueue runs with its `ElasticJobsViaWorkloadSlices` gate (an admin says so: the
    /// controller's `--kueue-workload-slices`): a queued job whose plans have lowered a type below
    /// what its Workload asks gives the difference back by lowering the Workload's counts in place,
    /// which Kueue allows only under that gate (`validateImmutablePodSet` in
    /// `pkg/webhooks/workload_webhook.go`). False: the Workload keeps its counts until the job ends.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub kueue_workload_slices: bool,
}

fn default_master_image() -> String {
    naming::DEFAULT_MASTER_IMAGE.to_owned()
}

impl Default for Options {
    fn default() -> Self {
        Options {
            master_image: default_master_image(),
            max_pod_creates: None,
            master_service_account: None,
            allow_user_masters: false,
            gang_scheduler_name: None,
            kueue_workload_slices: false,
        }
    }
}

/// Who a task pod is.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TaskMeta {
    /// The pod id (`replica-index`), unique within its type for the job's lifetime.
    pub id: i32,
    /// The rank (`rank-index`), which names the service and the TF_CONFIG index.
    pub rank: i32,
    /// Set as request and limit on the first container; empty keeps the template's.
    pub resource: ResourceList,
    /// Relaunches left for this rank (`restart-count` label).
    pub restarts_left: i32,
    /// How often this rank has been relaunched (`relaunch-count` label, which DLRover's master
    /// counts its relaunches from).
    pub relaunches: i32,
    /// The address `host:port` a scale plan's `createPods` entry gave the pod: its service is named
    /// after the host, and a chief or evaluator lists itself there. `None`: the rank's own
    /// address, `<job>-edljob-<type>-<rank>:<port>`.
    pub service: Option<String>,
}

/// The job's gang scheduler under these options ([`job::gang`]).
pub fn gang(job: &ElasticJob, options: &Options) -> Option<Gang> {
    job::gang(job, options.gang_scheduler_name.as_deref())
}

/// Puts a pod of the job under its gang scheduler: the scheduler's name (when the template names
/// none; [`crate::validate`] refuses one that names another) and, for a member of the job's
/// PodGroup (`member` is its type: a task pod, and the master under Volcano), the annotations or
/// label that name the group.
fn join_gang(pod: &mut Pod, job: &ElasticJob, gang: Option<&Gang>, member: Option<ReplicaType>) {
    let Some(gang) = gang else { return };
    let spec = pod.spec.get_or_insert_with(Default::default);
    if spec.scheduler_name.as_deref().is_none_or(str::is_empty) {
        spec.scheduler_name = Some(gang.scheduler_name().to_owned());
    }
    let Some(replica_type) = member else { return };
    let group = job.name().to_owned();
    match gang {
        Gang::Volcano => {
            let annotations = pod.metadata.annotations.get_or_insert_with(BTreeMap::new);
            annotations.insert(podgroup::VOLCANO_GROUP_ANNOTATION.to_owned(), group);
            annotations.insert(podgroup::VOLCANO_TASK_ANNOTATION.to_owned(), replica_type.as_str().to_owned());
        }
        Gang::SchedulerPlugins(_) => {
            let labels = pod.metadata.labels.get_or_insert_with(BTreeMap::new);
            labels.insert(podgroup::SCHEDULER_PLUGINS_GROUP_LABEL.to_owned(), group);
        }
    }
}

/// The controller owner reference to the job, or `None` when the job has no uid yet (a manifest
/// not applied): the API server refuses an owner reference with an empty uid.
pub fn owner_reference(job: &ElasticJob) -> Option<OwnerReference> {
    let uid = job.metadata.uid.as_deref().filter(|u| !u.is_empty())?;
    Some(OwnerReference {
        api_version: api::API_VERSION.to_owned(),
        kind: api::KIND_ELASTIC_JOB.to_owned(),
        name: job.name().to_owned(),
        uid: uid.to_owned(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    })
}

/// A task pod as made from its template, before `TF_CONFIG` or `RDZV_ENDPOINT` is added
/// (upstream's `newTaskPod`).
///
/// # Errors
/// [`Code::Required`] when the job has no template for the type, [`Code::NoContainers`] when
/// the template has no container.
pub fn task_pod_from_template(job: &ElasticJob, replica_type: ReplicaType, meta: &TaskMeta) -> Result<Pod> {
    let template = job::task_template(job, replica_type)?;
    let name = job.name();
    let mut pod = pod_from_template(job, template, naming::task_pod_name(name, replica_type, i64::from(meta.id)), true);
    let labels = pod.metadata.labels.get_or_insert_with(BTreeMap::new);
    labels.insert(naming::LABEL_REPLICA_TYPE.to_owned(), replica_type.as_str().to_owned());
    labels.insert(naming::LABEL_REPLICA_INDEX.to_owned(), meta.id.to_string());
    labels.insert(naming::LABEL_RANK_INDEX.to_owned(), meta.rank.to_string());
    labels.insert(naming::LABEL_RESTART_COUNT.to_owned(), meta.restarts_left.to_string());
    labels.insert(naming::LABEL_RELAUNCH_COUNT.to_owned(), meta.relaunches.to_string());

    let container = first_container(&mut pod, replica_type)?;
    set_resources(container, &meta.resource);
    let env = container.env.get_or_insert_with(Vec::new);
    env.extend([
        plain_env(naming::ENV_MASTER_ADDR, naming::master_address(name)),
        plain_env(naming::ENV_WORKER_TYPE, replica_type.as_str().to_owned()),
        plain_env(naming::ENV_WORKER_ID, meta.id.to_string()),
        plain_env(naming::ENV_WORKER_RANK, meta.rank.to_string()),
        plain_env(naming::ENV_GRPC_ENABLE_FORK_SUPPORT, "False".to_owned()),
        field_env(naming::ENV_POD_NAME, "metadata.name"),
    ]);
    if replica_type == ReplicaType::Worker {
        let workers = job.declared_replica_spec(ReplicaType::Worker).map_or(0, api::ReplicaSpec::replicas);
        env.push(plain_env(naming::ENV_WORKER_NUM, workers.to_string()));
    }
    Ok(pod)
}

/// The service of a task pod ([`task_service_at`] with the address its `createPods` entry gave it).
pub fn task_pod_service(job: &ElasticJob, replica_type: ReplicaType, meta: &TaskMeta) -> Service {
    task_service_at(job, replica_type, meta.rank, meta.service.as_deref())
}

/// The service of the task at `rank`: ClusterIP, one port, selecting the pod of that type and rank,
/// so a relaunched pod (new id, same rank) keeps its address. It is the rank's own,
/// `<job>-edljob-<type>-<rank>:<port>`, or for a pod whose `createPods` entry gave it an `address`,
/// a service named after that address's host on its port (as upstream names it).
pub fn task_service_at(job: &ElasticJob, replica_type: ReplicaType, rank: i32, address: Option<&str>) -> Service {
    let (name, port) = task_endpoint(job, replica_type, rank, address);
    rank_service(job, replica_type, rank, name, port)
}

/// The name of the service [`task_service_at`] makes, without making it.
pub fn task_service_name_at(job: &ElasticJob, replica_type: ReplicaType, rank: i32, address: Option<&str>) -> String {
    task_endpoint(job, replica_type, rank, address).0
}

/// The name and port of a task's service: after the host and port of `address`, else the rank's.
fn task_endpoint(job: &ElasticJob, replica_type: ReplicaType, rank: i32, address: Option<&str>) -> (String, i32) {
    match address.and_then(naming::service_of_address) {
        Some((host, port)) => (host.to_owned(), i32::from(port)),
        None => {
            (naming::task_service_name(job.name(), replica_type, i64::from(rank)), naming::service_port(replica_type))
        }
    }
}

fn rank_service(job: &ElasticJob, replica_type: ReplicaType, rank: i32, name: String, port: i32) -> Service {
    let selector = sorted::map([
        (naming::LABEL_APP.to_owned(), naming::APP_NAME.to_owned()),
        (naming::LABEL_JOB_NAME.to_owned(), job.name().to_owned()),
        (naming::LABEL_RANK_INDEX.to_owned(), rank.to_string()),
        (naming::LABEL_REPLICA_TYPE.to_owned(), replica_type.as_str().to_owned()),
    ]);
    service(job, name, port, selector)
}

/// The job master pod: the job's `dlrover-master` template when it has one, else a default
/// (container `main`, the operator's master image, 1 CPU, 2Gi memory and 2Gi ephemeral storage,
/// `restartPolicy: Never`, and what Pod Security `restricted` asks: `runAsNonRoot`, the
/// `RuntimeDefault` seccomp profile, no privilege escalation, every capability dropped). A container with no command of its own runs the master as an argument
/// vector, never through a shell, in DLRover's ScalePlan mode (`--platform k8s`: the master writes
/// ScalePlans and this operator makes the pods; in `pyk8s` mode the master would create the pods
/// itself, a second writer of the same pods):
/// `python -m dlrover.python.master.main --platform k8s --namespace <ns> --job_name <job>
/// --port 50001`, plus `--<key> <value>` for the job annotations of
/// [`naming::MASTER_ARG_ANNOTATIONS`] (validated by [`crate::validate`]). A job without a
/// namespace (a preview) passes `$(POD_NAMESPACE)`, which Kubernetes expands from the downward API.
///
/// # Errors
/// [`Code::NoContainers`] when the job's master template has no container.
pub fn master_pod(job: &ElasticJob, options: &Options) -> Result<Pod> {
    into_result(account_problems(job, options))?;
    let name = job.name();
    let template = master_template(job, options);
    let named = template.spec.as_ref().and_then(named_account).map(|(_, account)| account.to_owned());
    // The masters' account: the one the template names when it is one (refused above unless the
    // master is the controller's own or user masters are allowed), else the options' for the
    // controller's own master (or any master, when allowed).
    let given = match (&named, &options.master_service_account) {
        (Some(_), _) => None,
        (None, Some(account)) if options.allow_user_masters || is_own_master(job, options).is_none() => {
            Some(account.clone())
        }
        (None, _) => None,
    };
    let runs_as_master_account = given.is_some() || named.as_deref().is_some_and(|a| is_master_account(a, options));
    // The job's `envs` are for the training processes: a master that runs as the masters' account
    // takes none (an environment such as PYTHONWARNINGS and BROWSER runs a command in a Python
    // process), unless the admin trusts user-written masters.
    let envs = options.allow_user_masters || !runs_as_master_account;
    let mut pod = pod_from_template(job, &template, naming::master_name(name), envs);
    let labels = pod.metadata.labels.get_or_insert_with(BTreeMap::new);
    labels.insert(naming::LABEL_REPLICA_TYPE.to_owned(), ReplicaType::DlroverMaster.as_str().to_owned());
    labels.insert(naming::LABEL_REPLICA_INDEX.to_owned(), "0".to_owned());
    if let (Some(account), Some(spec)) = (given, pod.spec.as_mut()) {
        spec.service_account_name = Some(account);
    }
    // On the gang scheduler; under Volcano a member of the job's PodGroup, so that the room Volcano
    // admits holds it; under scheduler-plugins outside it, placed ahead of the task pods, whose
    // group then counts what the nodes have left (docs/gang.md).
    let gang = gang(job, options);
    let member = matches!(gang, Some(Gang::Volcano)).then_some(ReplicaType::DlroverMaster);
    join_gang(&mut pod, job, gang.as_ref(), member);
    let namespace = job::namespace(job);
    let container = first_container(&mut pod, ReplicaType::DlroverMaster)?;
    if container.image.as_deref().is_none_or(str::is_empty) {
        container.image = Some(options.master_image.clone());
    }
    if container.command.as_ref().is_none_or(Vec::is_empty) && container.args.as_ref().is_none_or(Vec::is_empty) {
        container.command = Some(master_command(job, namespace));
    }
    let env = container.env.get_or_insert_with(Vec::new);
    env.push(field_env(naming::ENV_POD_IP, "status.podIP"));
    if namespace.is_none() {
        env.push(field_env(naming::ENV_POD_NAMESPACE, "metadata.namespace"));
    }
    if job.spec.optimize_mode == Some(OptimizeMode::Cluster) {
        let brain = job.spec.brain_service.clone().filter(|b| !b.is_empty());
        env.push(plain_env(
            naming::ENV_BRAIN_SERVICE_ADDR,
            brain.unwrap_or_else(|| naming::DEFAULT_BRAIN_SERVICE.to_owned()),
        ));
    }
    Ok(pod)
}

/// The template the master pod is made from: the job's `dlrover-master` template, else the default
/// one of [`master_pod`].
pub fn master_template(job: &ElasticJob, options: &Options) -> PodTemplateSpec {
    let given = job.declared_replica_spec(ReplicaType::DlroverMaster).map(|s| &s.template);
    given.cloned().unwrap_or_else(|| default_master_template(&options.master_image))
}

/// The pod every task of a type is made from, without what makes one pod itself (name, id, rank,
/// relaunch counts, the per-task environment and `TF_CONFIG`): the template with the job's labels,
/// annotations and `envs`, the operator's `app`, job-name and replica-type labels, `restartPolicy:
/// Never` when it sets none, and `resource` as both request and limit on its first container, as
/// the type's pods get it. What a Kueue pod set carries.
///
/// # Errors
/// As [`task_pod_from_template`].
pub fn task_template(job: &ElasticJob, replica_type: ReplicaType, resource: &ResourceList) -> Result<PodTemplateSpec> {
    let template = job::task_template(job, replica_type)?;
    let mut pod = pod_from_template(job, template, String::new(), true);
    let labels = pod.metadata.labels.get_or_insert_with(BTreeMap::new);
    labels.insert(naming::LABEL_REPLICA_TYPE.to_owned(), replica_type.as_str().to_owned());
    set_resources(first_container(&mut pod, replica_type)?, resource);
    Ok(pod_template(pod))
}

/// A pod's labels, annotations and spec as a template (no name, namespace or owner).
pub fn pod_template(pod: Pod) -> PodTemplateSpec {
    PodTemplateSpec {
        metadata: Some(ObjectMeta {
            labels: pod.metadata.labels,
            annotations: pod.metadata.annotations,
            ..ObjectMeta::default()
        }),
        spec: pod.spec,
    }
}

/// The argument vector the master runs.
pub fn master_command(job: &ElasticJob, namespace: Option<&str>) -> Vec<String> {
    let namespace = namespace.map_or_else(|| format!("$({})", naming::ENV_POD_NAMESPACE), str::to_owned);
    let mut argv: Vec<String> = [
        "python",
        "-m",
        "dlrover.python.master.main",
        "--platform",
        "k8s",
        "--namespace",
        &namespace,
        "--job_name",
        job.name(),
        "--port",
        &naming::MASTER_SERVICE_PORT.to_string(),
    ]
    .map(str::to_owned)
    .into();
    if let Some(annotations) = &job.metadata.annotations {
        for key in naming::MASTER_ARG_ANNOTATIONS {
            if let Some(value) = annotations.get(key) {
                argv.push(format!("--{key}"));
                argv.push(value.clone());
            }
        }
    }
    argv
}

/// The master's service, `elasticjob-<job>-dlrover-master:50001`, written as DLRover's master
/// writes it: the master creates or patches this service itself when it starts, so the two writers
/// must agree or the object would change back and forth. Labels and annotations `app` and the job
/// name, one port named `grpc` (50001, to the master's `--port`, which the default command sets to
/// 50001), selecting the job's `dlrover-master` pod by job name and replica type.
pub fn master_service(job: &ElasticJob) -> Service {
    let name = job.name();
    let labels = sorted::map([
        (naming::LABEL_APP.to_owned(), naming::APP_NAME.to_owned()),
        (naming::LABEL_JOB_NAME.to_owned(), name.to_owned()),
    ]);
    let selector = sorted::map([
        (naming::LABEL_JOB_NAME.to_owned(), name.to_owned()),
        (naming::LABEL_REPLICA_TYPE.to_owned(), ReplicaType::DlroverMaster.as_str().to_owned()),
    ]);
    let mut service = service(job, naming::master_name(name), naming::MASTER_SERVICE_PORT, selector);
    service.metadata.labels = Some(labels.clone());
    service.metadata.annotations = Some(labels);
    for port in service.spec.iter_mut().flat_map(|s| s.ports.iter_mut().flatten()) {
        port.name = Some(naming::MASTER_PORT_NAME.to_owned());
    }
    service
}

/// What the pods a [`PodFactory`] makes get as their `TF_CONFIG` value: the text itself, an empty
/// string, or a mark in its place (see [`Marked`]).
enum Values {
    Written,
    Empty,
    Marked(Box<Marked>),
}

/// Makes the complete task pods of one job under one scale plan: the template pod plus
/// `TF_CONFIG` (parameter-server strategy) or `RDZV_ENDPOINT` (all-reduce).
pub(crate) struct PodFactory<'a> {
    job: &'a ElasticJob,
    layout: ClusterLayout,
    /// Worker 0's pod IP, when a worker 0 is observed with one (all-reduce only).
    rdzv_ip: Option<String>,
    /// What a new pod's `TF_CONFIG` gets.
    values: Values,
    /// The job's gang scheduler, whose PodGroup every task pod joins.
    gang: Option<Gang>,
}

impl<'a> PodFactory<'a> {
    pub(crate) fn new(job: &'a ElasticJob, plan: &ScalePlan, pods: &[Pod], gang: Option<Gang>) -> Self {
        let rdzv_ip = pods
            .iter()
            .filter(|p| pod::pod_type(p) == Some(ReplicaType::Worker))
            .filter(|p| pod::pod_rank(p) == Some(0))
            .filter(|p| pod::is_alive(p))
            .filter_map(|p| p.status.as_ref()?.pod_ip().map(str::to_owned))
            .find(|ip| !ip.is_empty());
        // A chief pod of the job that is not going away: alive, or failed and waiting for its
        // relaunch (the cluster still has a chief rank).
        let live_chief = pods.iter().any(|p| {
            pod::label(p, naming::LABEL_JOB_NAME) == Some(job.name())
                && pod::pod_type(p) == Some(ReplicaType::Chief)
                && !pod::is_terminating(p)
        });
        let layout = ClusterLayout::with_live_chief(job, plan, live_chief);
        PodFactory { job, layout, rdzv_ip, values: Values::Written, gang }
    }

    /// Pods made from now on get an empty `TF_CONFIG`: for a summary, which shows a pod's task
    /// (its type and rank) but not the addresses, which are most of a large job's bytes.
    pub(crate) fn without_tf_config_values(&mut self) {
        self.values = Values::Empty;
    }

    /// Pods made from now on get a mark for their `TF_CONFIG`, which [`Marked::splice`] writes into
    /// the pods' JSON text: for a preview that writes that text.
    pub(crate) fn with_marked_tf_configs(&mut self) {
        self.values = Values::Marked(Box::new(Marked::new(self.layout.clone())));
    }

    /// The `TF_CONFIG`s marked so far, when the factory marks them.
    pub(crate) fn into_marked(self) -> Option<Marked> {
        match self.values {
            Values::Marked(marked) => Some(*marked),
            Values::Written | Values::Empty => None,
        }
    }

    /// How many addresses the TF_CONFIG of this task lists (0 for all-reduce jobs).
    pub(crate) fn tf_config_hosts(&self, replica_type: ReplicaType, rank: i32) -> u64 {
        match self.job.strategy() {
            DistributionStrategy::ParameterServerStrategy => {
                self.layout.host_count(replica_type, u32::try_from(rank).unwrap_or(0))
            }
            DistributionStrategy::AllreduceStrategy => 0,
        }
    }

    /// Whether a task of the type at `rank` can be given a `TF_CONFIG` under this factory's plan.
    pub(crate) fn can_list(&self, replica_type: ReplicaType, rank: i32) -> bool {
        task_rank(rank).and_then(|rank| self.layout.check(replica_type, rank)).is_ok()
    }

    /// A complete task pod. `tf_config` is the `TF_CONFIG` to give it (a relaunched pod keeps its
    /// predecessor's); `None` computes it from the plan.
    pub(crate) fn task_pod(
        &mut self,
        replica_type: ReplicaType,
        meta: &TaskMeta,
        tf_config: Option<String>,
    ) -> Result<Pod> {
        let mut pod = task_pod_from_template(self.job, replica_type, meta)?;
        join_gang(&mut pod, self.job, self.gang.as_ref(), Some(replica_type));
        let container = first_container(&mut pod, replica_type)?;
        match self.job.strategy() {
            DistributionStrategy::ParameterServerStrategy => {
                let rank = task_rank(meta.rank);
                let value = match (tf_config, &mut self.values) {
                    (Some(value), _) => value,
                    (None, Values::Empty) => String::new(),
                    (None, Values::Written) => {
                        self.layout.tf_config_at(replica_type, rank?, meta.service.as_deref())?
                    }
                    (None, Values::Marked(marked)) => marked.mark(replica_type, rank?, meta.service.as_deref())?,
                };
                set_env(container, naming::ENV_TF_CONFIG, value);
            }
            DistributionStrategy::AllreduceStrategy => {
                let env = container.env.get_or_insert_with(Vec::new);
                env.push(match &self.rdzv_ip {
                    Some(ip) if !(replica_type == ReplicaType::Worker && meta.rank == 0) => {
                        plain_env(naming::ENV_RDZV_ENDPOINT, ip.clone())
                    }
                    _ => field_env(naming::ENV_RDZV_ENDPOINT, "status.podIP"),
                });
            }
        }
        Ok(pod)
    }
}

/// A task's rank as `TF_CONFIG` indexes it.
fn task_rank(rank: i32) -> Result<u32> {
    u32::try_from(rank).map_err(|_| Error::invalid("rankIndex", Code::OutOfRange, format!("rank {rank} is negative")))
}

/// The template's pod with the job's identity: name, namespace, labels, annotations, owner, envs.
fn pod_from_template(job: &ElasticJob, template: &PodTemplateSpec, name: String, envs: bool) -> Pod {
    let tmeta = template.metadata.clone().unwrap_or_default();
    let mut labels = tmeta.labels.unwrap_or_default();
    // Not Kueue's queue labels: on a pod, Kueue's pod integration would queue the pod by itself.
    let queueing = [workload::LABEL_QUEUE_NAME, workload::LABEL_PRIORITY_CLASS];
    let job_labels = job.metadata.labels.iter().flatten().filter(|(k, _)| !queueing.contains(&k.as_str()));
    labels.extend(job_labels.map(|(k, v)| (k.clone(), v.clone())));
    labels.insert(naming::LABEL_APP.to_owned(), naming::APP_NAME.to_owned());
    labels.insert(naming::LABEL_JOB_NAME.to_owned(), job.name().to_owned());
    let mut annotations = tmeta.annotations.unwrap_or_default();
    annotations.extend(
        job.metadata
            .annotations
            .iter()
            .flatten()
            .filter(|(k, _)| k.as_str() != naming::LAST_APPLIED_ANNOTATION)
            .map(|(k, v)| (k.clone(), v.clone())),
    );
    let mut spec = template.spec.clone().unwrap_or_default();
    if spec.restart_policy.is_none() {
        spec.restart_policy = Some("Never".to_owned());
    }
    for container in &mut spec.containers {
        if let Some(resources) = &mut container.resources {
            canonical_quantities(resources);
        }
        // No empty `env` where the job adds none: the API server would drop it, and the pod read
        // back would differ from the one made.
        if !envs || job.spec.envs.is_empty() {
            continue;
        }
        let env = container.env.get_or_insert_with(Vec::new);
        for (key, var) in &job.spec.envs {
            let var_name = if var.name.is_empty() { key } else { &var.name };
            if !env.iter().any(|e| &e.name == var_name) {
                env.push(EnvVar { name: var_name.clone(), ..var.clone() });
            }
        }
    }
    Pod {
        metadata: ObjectMeta {
            name: Some(name),
            namespace: job::namespace(job).map(str::to_owned),
            labels: Some(labels),
            annotations: (!annotations.is_empty()).then_some(annotations),
            owner_references: owner_reference(job).map(|o| vec![o]),
            ..ObjectMeta::default()
        },
        spec: Some(spec),
        status: None,
    }
}

fn first_container(pod: &mut Pod, replica_type: ReplicaType) -> Result<&mut Container> {
    pod.spec.as_mut().and_then(|s| s.containers.first_mut()).ok_or_else(|| {
        Error::invalid(
            format!("spec.replicaSpecs.{replica_type}.template.spec.containers"),
            Code::NoContainers,
            "the pod template has no container; add at least one (the first runs the training process)",
        )
    })
}

fn set_resources(container: &mut Container, resource: &ResourceList) {
    if resource.is_empty() {
        return;
    }
    let resources = container.resources.get_or_insert_with(ResourceRequirements::default);
    let requests = resources.requests.get_or_insert_with(BTreeMap::new);
    requests.extend(resource.iter().map(|(k, v)| (k.clone(), v.clone())));
    let limits = resources.limits.get_or_insert_with(BTreeMap::new);
    limits.extend(resource.iter().map(|(k, v)| (k.clone(), v.clone())));
    canonical_quantities(resources);
}

/// Every quantity of a container's resources in the API server's form ([`quantity::canonical`]).
fn canonical_quantities(resources: &mut ResourceRequirements) {
    for list in [&mut resources.requests, &mut resources.limits].into_iter().flatten() {
        for q in list.values_mut() {
            q.0 = quantity::canonical(&q.0);
        }
    }
}

/// The default master's one writable place: an emptyDir on /tmp (within its ephemeral-storage),
/// as the volume and its mount.
pub(crate) fn master_tmp() -> (Volume, VolumeMount) {
    let name = "tmp".to_owned();
    (
        Volume::of(serde_json::json!({"emptyDir": {}, "name": &name})),
        VolumeMount::of(serde_json::json!({"mountPath": "/tmp", "name": name})),
    )
}

fn default_master_template(image: &str) -> PodTemplateSpec {
    let (tmp, tmp_mount) = master_tmp();
    let resource: ResourceList = sorted::map(
        [("cpu", "1"), ("ephemeral-storage", "2Gi"), ("memory", "2Gi")]
            .map(|(k, v)| (k.to_owned(), k8s_openapi::apimachinery::pkg::api::resource::Quantity(v.to_owned()))),
    );
    PodTemplateSpec {
        metadata: None,
        spec: Some(PodSpec {
            containers: vec![Container {
                name: "main".to_owned(),
                image: Some(image.to_owned()),
                image_pull_policy: Some("IfNotPresent".to_owned()),
                resources: Some(ResourceRequirements {
                    requests: Some(resource.clone()),
                    limits: Some(resource),
                    ..ResourceRequirements::default()
                }),
                // A read-only root: DLRover 0.6.1's master writes its training events under
                // /tmp/dlrover (`training_event/config.py`, `Config.init_logger`), on the volume
                // below, and nothing outside /tmp (make test-image runs it so).
                security_context: Some(SecurityContext::of(serde_json::json!({
                    "allowPrivilegeEscalation": false,
                    "capabilities": {"drop": ["ALL"]},
                    "readOnlyRootFilesystem": true,
                }))),
                volume_mounts: Some(vec![tmp_mount]),
                ..Container::default()
            }],
            volumes: Some(vec![tmp]),
            restart_policy: Some("Never".to_owned()),
            // Pod Security `restricted`: the image runs as a numeric non-root user
            // (deploy/master.Dockerfile's `USER 65532:65532`), which the kubelet checks; the
            // runtime's default seccomp profile.
            security_context: Some(PodSecurityContext::of(serde_json::json!({
                "runAsNonRoot": true,
                "seccompProfile": {"type": "RuntimeDefault"},
            }))),
            ..PodSpec::default()
        }),
    }
}

fn service(job: &ElasticJob, name: String, port: i32, selector: BTreeMap<String, String>) -> Service {
    Service {
        metadata: ObjectMeta {
            name: Some(name),
            namespace: job::namespace(job).map(str::to_owned),
            labels: Some(selector.clone()),
            owner_references: owner_reference(job).map(|o| vec![o]),
            ..ObjectMeta::default()
        },
        spec: Some(ServiceSpec {
            type_: Some("ClusterIP".to_owned()),
            selector: Some(selector),
            ports: Some(vec![ServicePort {
                port,
                target_port: Some(IntOrString::Int(port)),
                ..ServicePort::default()
            }]),
            ..ServiceSpec::default()
        }),
        status: None,
    }
}

fn plain_env(name: &str, value: String) -> EnvVar {
    EnvVar { name: name.to_owned(), value: Some(value), value_from: None }
}

fn field_env(name: &str, field_path: &str) -> EnvVar {
    EnvVar {
        name: name.to_owned(),
        value: None,
        value_from: Some(EnvVarSource::of(
            serde_json::json!({"fieldRef": {"apiVersion": "v1", "fieldPath": field_path}}),
        )),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn job(master: Option<serde_json::Value>) -> ElasticJob {
        let task = json!({"replicas": 1, "template": {"spec": {"containers": [{"name": "main", "image": "tf:2"}]}}});
        let mut specs = json!({"ps": task, "worker": task});
        if let (Some(master), Some(map)) = (master, specs.as_object_mut()) {
            map.insert("dlrover-master".to_owned(), master);
        }
        let value = json!({
            "apiVersion": "elastic.iml.github.io/v1alpha1", "kind": "ElasticJob",
            "metadata": {"name": "j", "namespace": "ns"},
            "spec": {"distributionStrategy": "ParameterServerStrategy", "replicaSpecs": specs},
        });
        serde_json::from_value(value).unwrap()
    }

    fn account(options: &Options, job: &ElasticJob) -> Result<Option<String>> {
        Ok(master_pod(job, options)?.spec.and_then(|s| s.service_account_name))
    }

    #[test]
    fn the_master_runs_as_the_service_account_the_options_name() {
        let options = Options { master_service_account: Some("dlrover-master".to_owned()), ..Options::default() };
        assert_eq!(account(&options, &job(None)).unwrap().as_deref(), Some("dlrover-master"));
        // Without the option, the namespace's default, as upstream.
        assert_eq!(account(&Options::default(), &job(None)).unwrap(), None);
    }

    #[test]
    fn a_master_template_that_names_its_service_account_keeps_it() {
        let master = json!({"template": {"spec": {"serviceAccountName": "own", "containers": [{"name": "main"}]}}});
        let options = Options { master_service_account: Some("dlrover-master".to_owned()), ..Options::default() };
        assert_eq!(account(&options, &job(Some(master))).unwrap().as_deref(), Some("own"));
    }

    #[test]
    fn a_service_account_option_that_is_no_name_is_refused_at_its_path() {
        let options = Options { master_service_account: Some("Bad\u{1b}[31m".to_owned()), ..Options::default() };
        let error = account(&options, &job(None)).unwrap_err();
        let problems: Vec<(&str, Code)> = error.problems().iter().map(|p| (p.path.as_str(), p.code)).collect();
        assert_eq!(problems, [("options.masterServiceAccount", Code::InvalidName)]);
        assert!(error.problems().iter().all(|p| !p.message.contains('\u{1b}')), "{error}");
    }
}
