//! Names, labels, ports and environment variable names the operator uses, and the functions that
//! derive object names and addresses from a job.

use crate::api::{PodMeta, ReplicaType};

/// The `app` label every pod carries.
pub const LABEL_APP: &str = "app";
/// The value of the `app` label.
pub const APP_NAME: &str = "dlrover";
/// The label holding the job name.
pub const LABEL_JOB_NAME: &str = "elasticjob.dlrover/name";
/// The label holding the replica type.
pub const LABEL_REPLICA_TYPE: &str = "elasticjob.dlrover/replica-type";
/// The label holding the pod id.
pub const LABEL_REPLICA_INDEX: &str = "elasticjob.dlrover/replica-index";
/// The label holding the rank, which names the pod's service.
pub const LABEL_RANK_INDEX: &str = "elasticjob.dlrover/rank-index";
/// The label holding how many relaunches the pod's rank has left (as upstream's Go operator wrote
/// it; DLRover's master keeps its own budget).
pub const LABEL_RESTART_COUNT: &str = "restart-count";
/// The label holding how often the pod's rank has been relaunched: `0` on a first launch, one
/// more than the failed pod's on a relaunch. DLRover's master reads it from every pod of the job
/// (an integer; a pod without it stops the master's pod watcher) and counts relaunches from it.
pub const LABEL_RELAUNCH_COUNT: &str = "elasticjob.dlrover/relaunch-count";
/// The scale-plan label whose value `auto` makes the operator act on the plan.
pub const LABEL_SCALE_TYPE: &str = "scale-type";
/// The value of [`LABEL_SCALE_TYPE`] for plans the operator carries out.
pub const SCALE_TYPE_AUTO: &str = "auto";
/// The scale-plan label holding the job name.
pub const LABEL_SCALE_PLAN_JOB: &str = "elasticjob-name";

/// The job a scale plan scales (see [`job_key`] for the same rule on JSON): its `spec.ownerJob`, else its `elasticjob-name` label (upstream's
/// plans carry the label; DLRover's master writes only `ownerJob`).
pub fn plan_job(plan: &crate::api::ScalePlan) -> Option<&str> {
    let label = || plan.metadata.labels.as_ref()?.get(LABEL_SCALE_PLAN_JOB).map(String::as_str);
    plan.spec.owner_job.as_deref().filter(|o| !o.is_empty()).or_else(label).filter(|o| !o.is_empty())
}

/// The port of a parameter server.
pub const PS_SERVICE_PORT: i32 = 2222;
/// The port of a worker, chief or evaluator.
pub const WORKER_SERVICE_PORT: i32 = 3333;
/// The port of the job master.
pub const MASTER_SERVICE_PORT: i32 = 50001;
/// The name of the master service's port, as DLRover's master names it.
pub const MASTER_PORT_NAME: &str = "grpc";

/// The TensorFlow cluster spec variable.
pub const ENV_TF_CONFIG: &str = "TF_CONFIG";
/// The job master address (`host:port`).
pub const ENV_MASTER_ADDR: &str = "DLROVER_MASTER_ADDR";
/// The replica type of the pod.
pub const ENV_WORKER_TYPE: &str = "WORKER_TYPE";
/// The pod id.
pub const ENV_WORKER_ID: &str = "WORKER_ID";
/// The pod rank.
pub const ENV_WORKER_RANK: &str = "WORKER_RANK";
/// The worker count, on workers only.
pub const ENV_WORKER_NUM: &str = "WORKER_NUM";
/// gRPC fork support, always `False`.
pub const ENV_GRPC_ENABLE_FORK_SUPPORT: &str = "GRPC_ENABLE_FORK_SUPPORT";
/// The pod's own name, from the downward API.
pub const ENV_POD_NAME: &str = "POD_NAME";
/// The pod's own IP, from the downward API (master only).
pub const ENV_POD_IP: &str = "POD_IP";
/// The pod's own namespace, from the downward API (master only, when the job names none).
pub const ENV_POD_NAMESPACE: &str = "POD_NAMESPACE";
/// The rendezvous endpoint of an all-reduce job.
pub const ENV_RDZV_ENDPOINT: &str = "RDZV_ENDPOINT";
/// The DLRover Brain address, on the master when `optimizeMode` is `cluster`.
pub const ENV_BRAIN_SERVICE_ADDR: &str = "DLROVER_BRAIN_SERVICE_ADDR";

/// The Brain address used when the job names none.
pub const DEFAULT_BRAIN_SERVICE: &str = "dlrover-brain.dlrover.svc.cluster.local:50001";
/// The job master's image when the job gives none and the host sets none (`--master-image`, the
/// chart's `masterImage`): DLRover's job master at the version the project tests with, as `make
/// master-image` builds it (`deploy/master.Dockerfile`), a version tag (never `latest`) pulled
/// `IfNotPresent`. The upstream operator's default, `registry.cn-hangzhou.aliyuncs.com/intell-ai/dlrover:latest`,
/// is a mutable third-party tag it pulls on every start.
pub const DEFAULT_MASTER_IMAGE: &str = "elasticjob-dlrover-master:0.6.1";
/// The name the chart gives the job masters' ServiceAccount in each of its `jobNamespaces`
/// (charts/elasticjob): a task pod may never run as it, nor a master the job wrote itself unless the
/// admin allows it ([`crate::Options::allow_user_masters`]), whatever account the options name.
pub const CHART_MASTER_SERVICE_ACCOUNT: &str = "elasticjob-dlrover-master";
/// The job annotations passed to the master as `--<key> <value>`, in this order.
pub const MASTER_ARG_ANNOTATIONS: [&str; 5] =
    ["pending_timeout", "pending_fail_strategy", "service_type", "pre_check_ops", "pre_check_bypass"];
/// The job annotation `kubectl apply` keeps its copy of the manifest in; never copied onto pods.
pub const LAST_APPLIED_ANNOTATION: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// The longest name Kubernetes accepts for a service (a DNS-1035 label).
pub const MAX_SERVICE_NAME_LEN: usize = 63;
/// The longest job name whose master service name, `elasticjob-<job>-dlrover-master`, still fits.
pub const MAX_JOB_NAME_LEN: usize = MAX_SERVICE_NAME_LEN - "elasticjob--dlrover-master".len();

/// The port the service of a replica type listens on.
pub fn service_port(replica_type: ReplicaType) -> i32 {
    match replica_type {
        ReplicaType::Ps => PS_SERVICE_PORT,
        ReplicaType::DlroverMaster => MASTER_SERVICE_PORT,
        ReplicaType::Worker | ReplicaType::Chief | ReplicaType::Evaluator => WORKER_SERVICE_PORT,
    }
}

/// The name of a task pod: `<job>-edljob-<type>-<id>`.
pub fn task_pod_name(job: &str, replica_type: ReplicaType, id: i64) -> String {
    format!("{job}-edljob-{replica_type}-{id}")
}

/// The replica type and id a task pod name `<job>-edljob-<type>-<id>` encodes.
pub fn parse_task_pod_name(name: &str) -> Option<(ReplicaType, i32)> {
    let (_, rest) = name.rsplit_once("-edljob-")?;
    let (replica_type, id) = rest.rsplit_once('-')?;
    if !id.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((ReplicaType::parse(replica_type)?, id.parse().ok()?))
}

impl PodMeta {
    /// The replica type: `type`, or the one the name `<job>-edljob-<type>-<id>` encodes (upstream's
    /// sample plan names its migrated pod without a type).
    pub fn replica_type(&self) -> Option<ReplicaType> {
        self.type_.or_else(|| parse_task_pod_name(&self.name).map(|(t, _)| t))
    }

    /// The name of the pod this entry is about in job `job`: its `name`, or
    /// `<job>-edljob-<type>-<id>` when it has none. `None` when it has neither a name nor a type
    /// and an id.
    pub fn pod_name(&self, job: &str) -> Option<String> {
        if !self.name.is_empty() {
            return Some(self.name.clone());
        }
        Some(task_pod_name(job, self.replica_type()?, i64::from(self.id?)))
    }

    /// The name of the service the entry's `service` address names (the first label of its host);
    /// `None` when it gives no address, or one that is not `host:port`.
    pub fn service_name(&self) -> Option<&str> {
        service_of_address(&self.service).map(|(name, _)| name)
    }
}

/// The name of the service of a task rank: `<job>-edljob-<type>-<rank>`.
pub fn task_service_name(job: &str, replica_type: ReplicaType, rank: i64) -> String {
    format!("{job}-edljob-{replica_type}-{rank}")
}

/// The address of a task rank: `<job>-edljob-<type>-<rank>:<port>`, stable across relaunches.
pub fn task_address(job: &str, replica_type: ReplicaType, rank: i64) -> String {
    format!("{job}-edljob-{replica_type}-{rank}:{}", service_port(replica_type))
}

/// The addresses of ranks `0..count` of a type on a given port, as upstream's `newTaskHosts`.
pub fn task_hosts(job: &str, replica_type: ReplicaType, count: i64, port: i32) -> Vec<String> {
    (0..count.max(0)).map(|rank| format!("{job}-edljob-{replica_type}-{rank}:{port}")).collect()
}

/// The name of the master pod and of its service: `elasticjob-<job>-dlrover-master`.
pub fn master_name(job: &str) -> String {
    format!("elasticjob-{job}-dlrover-master")
}

/// The master address every task pod gets: `elasticjob-<job>-dlrover-master:50001`.
pub fn master_address(job: &str) -> String {
    format!("{}:{MASTER_SERVICE_PORT}", master_name(job))
}

/// The name of the service behind an address `host:port`: the first label of its host
/// (`mnist-edljob-ps-1` for `mnist-edljob-ps-1.training.svc:2222`), and its port.
pub fn service_of_address(address: &str) -> Option<(&str, u16)> {
    let (host, port) = parse_host_port(address).ok()?;
    Some((host.split('.').next()?, port))
}

/// Whether `s` is a DNS-1035 label: lower-case letters, digits and `-`, starting with a letter,
/// ending with a letter or digit, at most 63 characters.
pub fn is_dns1035_label(s: &str) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(first), Some(last)) => {
            b.len() <= MAX_SERVICE_NAME_LEN
                && first.is_ascii_lowercase()
                && (last.is_ascii_lowercase() || last.is_ascii_digit())
                && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        }
        _ => false,
    }
}

/// Whether `s` is a DNS-1123 label: like DNS-1035 but may start with a digit.
pub fn is_dns1123_label(s: &str) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(first), Some(last)) => {
            b.len() <= MAX_SERVICE_NAME_LEN
                && (first.is_ascii_lowercase() || first.is_ascii_digit())
                && (last.is_ascii_lowercase() || last.is_ascii_digit())
                && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        }
        _ => false,
    }
}

/// Whether `s` is a DNS-1123 subdomain (dot-separated labels, at most 253 characters): the rule
/// for pod names and host names.
pub fn is_dns1123_subdomain(s: &str) -> bool {
    s.len() <= 253 && s.split('.').all(is_dns1123_label)
}

/// The longest label value, and the longest name part of a qualified name.
pub const MAX_LABEL_LEN: usize = 63;
/// The longest prefix of a qualified name (a DNS-1123 subdomain).
pub const MAX_PREFIX_LEN: usize = 253;
/// The most bytes all annotations of one object may hold together, keys and values.
pub const MAX_ANNOTATIONS_BYTES: usize = 256 * 1024;
/// The most bytes all labels of a job or a replica template may hold together, keys and values.
/// The API server bounds labels only by the size of the object (etcd stores at most 1.5 MiB); the
/// core copies them onto every pod and service the job makes, so it holds them to the annotations'
/// bound.
pub const MAX_LABELS_BYTES: usize = MAX_ANNOTATIONS_BYTES;

/// Whether `s` is the name part of a qualified name, or a non-empty label value: at most 63
/// letters, digits, `-`, `_` and `.`, starting and ending with a letter or digit.
fn is_label_word(s: &str) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(first), Some(last)) => {
            b.len() <= MAX_LABEL_LEN
                && first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

/// Checks a label or annotation key as the API server does: `[prefix/]name`, the prefix a DNS-1123
/// subdomain of at most 253 characters, the name at most 63 letters, digits, `-`, `_` and `.`,
/// starting and ending with a letter or digit. The API server checks an annotation key in lower
/// case, so `annotation` allows upper-case letters in its prefix.
///
/// # Errors
/// A sentence saying what is wrong, for the caller to put in a problem.
pub fn check_qualified_name(key: &str, annotation: bool) -> Result<(), String> {
    let word = "at most 63 letters, digits, `-`, `_` and `.`, starting and ending with a letter or digit";
    let (prefix, name) = match key.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if let Some(prefix) = prefix {
        let lower = if annotation { prefix.to_ascii_lowercase() } else { prefix.to_owned() };
        if prefix.is_empty() || prefix.len() > MAX_PREFIX_LEN || !is_dns1123_subdomain(&lower) {
            return Err(format!(
                "`{key}`: the prefix before `/` must be a DNS subdomain such as `example.com` (lower-case letters, digits, `-` and `.`, at most 253)"
            ));
        }
        if name.contains('/') {
            return Err(format!("`{key}` has more than one `/`: a key is `[prefix/]name`"));
        }
    }
    if name.is_empty() {
        return Err(format!("`{key}` has an empty name: the name is {word}"));
    }
    if !is_label_word(name) {
        return Err(format!("`{key}`: the name `{name}` must be {word}"));
    }
    Ok(())
}

/// Checks a label value as the API server does: empty, or at most 63 letters, digits, `-`, `_` and
/// `.`, starting and ending with a letter or digit.
///
/// # Errors
/// A sentence saying what is wrong.
pub fn check_label_value(value: &str) -> Result<(), String> {
    if value.is_empty() || is_label_word(value) {
        return Ok(());
    }
    if value.len() > MAX_LABEL_LEN {
        return Err(format!("the value has {} characters; a label value has at most {MAX_LABEL_LEN}", value.len()));
    }
    Err(format!(
        "`{value}` is not a label value: use letters, digits, `-`, `_` and `.`, starting and ending with a letter or digit"
    ))
}

/// Splits and checks a `host:port` address: the host a DNS-1123 subdomain or an IPv4 address,
/// the port 1-65535.
///
/// # Errors
/// A sentence saying what is wrong, for the caller to put in a problem.
pub fn parse_host_port(address: &str) -> Result<(&str, u16), String> {
    let Some((host, port)) = address.rsplit_once(':') else {
        return Err(format!("`{address}` is not `host:port`: the port is missing"));
    };
    if host.is_empty() {
        return Err(format!("`{address}` is not `host:port`: the host is empty"));
    }
    if !is_dns1123_subdomain(host) && host.parse::<std::net::Ipv4Addr>().is_err() {
        return Err(format!(
            "`{address}` is not `host:port`: `{host}` is neither a DNS name (lower-case letters, digits, `-` and `.`) nor an IPv4 address"
        ));
    }
    match port.parse::<u16>() {
        Ok(p) if p > 0 && !port.starts_with('+') => Ok((host, p)),
        _ => Err(format!("`{address}` is not `host:port`: the port `{port}` is not a number from 1 to 65535")),
    }
}

/// The names the operator shares with DLRover's master and with its hosts: the API group, version
/// and kinds, and the label keys and values, so a host (the controller, the CLI, the browser page)
/// keeps no copy of its own.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Constants {
    /// `elastic.iml.github.io`.
    pub api_group: &'static str,
    /// `v1alpha1`.
    pub api_version: &'static str,
    /// `ElasticJob`.
    pub job_kind: &'static str,
    /// `ScalePlan`.
    pub scale_plan_kind: &'static str,
    /// The label keys.
    pub labels: LabelKeys,
    /// The value of the `scale-type` label of the plans the operator carries out.
    pub scale_type_auto: &'static str,
    /// Every replica type, in planning order.
    pub replica_types: [ReplicaType; 5],
    /// The replica type of the job's master (`dlrover-master`), which is not a TensorFlow task.
    pub master_type: ReplicaType,
    /// The TensorFlow task types, in planning order, with what a page calls them.
    pub task_types: Vec<TaskType>,
}

/// A TensorFlow task type of [`Constants`], as a page names it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TaskType {
    /// The type (`ps`, `chief`, `worker`, `evaluator`).
    #[serde(rename = "type")]
    pub replica_type: ReplicaType,
    /// One task of it, for people: `PS`, `chief`, `worker`, `evaluator`.
    pub one: &'static str,
    /// Several: `PS`, `workers`.
    pub many: &'static str,
    /// Whether a job has at most one of it (TensorFlow refuses a cluster with two).
    pub single: bool,
}

/// The label keys of [`Constants`].
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct LabelKeys {
    /// `app`, on every pod and service.
    pub app: &'static str,
    /// The job name, on every pod and service.
    pub job_name: &'static str,
    /// The replica type.
    pub replica_type: &'static str,
    /// The pod id.
    pub replica_index: &'static str,
    /// The rank.
    pub rank_index: &'static str,
    /// Relaunches left (upstream's).
    pub restart_count: &'static str,
    /// Relaunches made (DLRover's master reads it).
    pub relaunch_count: &'static str,
    /// A scale plan's type (`auto`).
    pub scale_type: &'static str,
    /// A scale plan's job, as upstream labels it.
    pub scale_plan_job: &'static str,
}

/// The names of [`Constants`].
pub fn constants() -> Constants {
    let (group, version) = crate::api::API_VERSION.split_once('/').unwrap_or((crate::api::API_VERSION, ""));
    Constants {
        api_group: group,
        api_version: version,
        job_kind: crate::api::KIND_ELASTIC_JOB,
        scale_plan_kind: crate::api::KIND_SCALE_PLAN,
        labels: LabelKeys {
            app: LABEL_APP,
            job_name: LABEL_JOB_NAME,
            replica_type: LABEL_REPLICA_TYPE,
            replica_index: LABEL_REPLICA_INDEX,
            rank_index: LABEL_RANK_INDEX,
            restart_count: LABEL_RESTART_COUNT,
            relaunch_count: LABEL_RELAUNCH_COUNT,
            scale_type: LABEL_SCALE_TYPE,
            scale_plan_job: LABEL_SCALE_PLAN_JOB,
        },
        scale_type_auto: SCALE_TYPE_AUTO,
        replica_types: ReplicaType::ALL,
        master_type: ReplicaType::DlroverMaster,
        task_types: ReplicaType::TASKS
            .into_iter()
            .map(|t| {
                let (one, many) = match t {
                    ReplicaType::Ps => ("PS", "PS"),
                    ReplicaType::Worker => ("worker", "workers"),
                    other => (other.as_str(), other.as_str()),
                };
                TaskType { replica_type: t, one, many, single: t.is_singleton() }
            })
            .collect(),
    }
}

/// The only fields [`job_key`] reads, as paths: a host may hand it an object with these alone (a
/// watch event's whole pod need not cross into WebAssembly for its key).
pub const JOB_KEY_FIELDS: [&[&str]; 5] =
    [&["kind"], &["metadata", "name"], &["metadata", "namespace"], &["metadata", "labels"], &["spec", "ownerJob"]];

/// The job an object belongs to, as `namespace/name` (the namespace empty when it names none): an
/// ElasticJob's own, a ScalePlan's job (its `spec.ownerJob`, else its `elasticjob-name` label), a
/// pod's, service's, Kueue Workload's or PodGroup's job-name label. `None` for an object of no job. `object` is the object as
/// JSON (a host's cache entry), read by its `kind`; it reads [`JOB_KEY_FIELDS`] only.
pub fn job_key(object: &serde_json::Value) -> Option<String> {
    let metadata = object.get("metadata")?;
    let field = |v: &serde_json::Value, k: &str| v.get(k).and_then(serde_json::Value::as_str).map(str::to_owned);
    let namespace = field(metadata, "namespace").unwrap_or_default();
    let job = match object.get("kind").and_then(serde_json::Value::as_str)? {
        crate::api::KIND_ELASTIC_JOB => field(metadata, "name"),
        crate::api::KIND_SCALE_PLAN => object
            .get("spec")
            .and_then(|s| field(s, "ownerJob"))
            .filter(|o| !o.is_empty())
            .or_else(|| metadata.get("labels").and_then(|l| field(l, LABEL_SCALE_PLAN_JOB))),
        "Pod" | "Service" | crate::workload::KIND_WORKLOAD | crate::podgroup::KIND_POD_GROUP => {
            metadata.get("labels").and_then(|l| field(l, LABEL_JOB_NAME))
        }
        _ => None,
    }?;
    (!job.is_empty()).then(|| format!("{namespace}/{job}"))
}

/// [`job_key`] of an object given as the values at its [`JOB_KEY_FIELDS`] (a host that reads those
/// alone from its object).
pub fn job_key_of_fields<'a>(fields: impl IntoIterator<Item = (&'a [&'a str], serde_json::Value)>) -> Option<String> {
    fn insert(object: &mut serde_json::Map<String, serde_json::Value>, path: &[&str], value: serde_json::Value) {
        match path {
            [last] => {
                object.insert((*last).to_owned(), value);
            }
            [first, rest @ ..] => {
                let entry = object.entry((*first).to_owned()).or_insert_with(|| serde_json::json!({}));
                if let serde_json::Value::Object(inner) = entry {
                    insert(inner, rest, value);
                }
            }
            [] => {}
        }
    }
    let mut object = serde_json::Map::new();
    for (path, value) in fields {
        insert(&mut object, path, value);
    }
    job_key(&serde_json::Value::Object(object))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_key_reads_its_fields_alone() {
        let objects = [
            serde_json::json!({"kind": "ElasticJob", "metadata": {"name": "j", "namespace": "ml", "uid": "u"}, "spec": {"replicaSpecs": {}}}),
            serde_json::json!({"kind": "ScalePlan", "metadata": {"name": "p", "namespace": "ml"}, "spec": {"ownerJob": "j", "psHosts": ["a"]}}),
            serde_json::json!({"kind": "ScalePlan", "metadata": {"name": "p", "labels": {LABEL_SCALE_PLAN_JOB: "k"}}, "spec": {}}),
            serde_json::json!({"kind": "Pod", "metadata": {"name": "x", "namespace": "ml", "labels": {LABEL_JOB_NAME: "j"}}, "spec": {"containers": [{"name": "main"}]}, "status": {"phase": "Running"}}),
            serde_json::json!({"kind": "Service", "metadata": {"labels": {LABEL_JOB_NAME: "j"}}, "spec": {"ports": []}}),
            serde_json::json!({"kind": "ConfigMap", "metadata": {"name": "c"}}),
        ];
        for object in &objects {
            let fields = JOB_KEY_FIELDS
                .into_iter()
                .filter_map(|path| Some((path, path.iter().try_fold(object, |v, k| v.get(k))?.clone())));
            assert_eq!(job_key_of_fields(fields), job_key(object), "{object}");
        }
        assert_eq!(job_key(&objects[3]).as_deref(), Some("ml/j"));
    }

    #[test]
    fn upstream_task_hosts() {
        assert_eq!(
            task_hosts("test-training", ReplicaType::Worker, 3, 2222),
            [
                "test-training-edljob-worker-0:2222",
                "test-training-edljob-worker-1:2222",
                "test-training-edljob-worker-2:2222"
            ]
        );
    }

    #[test]
    fn job_name_bound_follows_master_service() {
        let name = "a".repeat(MAX_JOB_NAME_LEN);
        assert_eq!(master_name(&name).len(), MAX_SERVICE_NAME_LEN);
        assert!(is_dns1035_label(&master_name(&name)));
        assert!(!is_dns1035_label(&master_name(&format!("{name}a"))));
    }

    #[test]
    fn pod_names_parse() {
        assert_eq!(parse_task_pod_name("a-edljob-ps-0"), Some((ReplicaType::Ps, 0)));
        assert_eq!(parse_task_pod_name("a-edljob-x-edljob-dlrover-master-12"), Some((ReplicaType::DlroverMaster, 12)));
        assert_eq!(parse_task_pod_name("a-edljob-ps-x"), None);
        assert_eq!(parse_task_pod_name("a-edljob-ps-+1"), None);
        assert_eq!(parse_task_pod_name("a-ps-1"), None);
    }

    #[test]
    fn label_keys_and_values() {
        for ok in ["app", "a.b_c-d", "example.com/x", "k8s.io/A_b", &"x".repeat(63)] {
            assert_eq!(check_qualified_name(ok, false), Ok(()), "{ok}");
        }
        for bad in ["", "bad key", "-a", "a-", "/a", "a/", "a/b/c", "Example.com/x", &"x".repeat(64)] {
            assert!(check_qualified_name(bad, false).is_err(), "{bad}");
        }
        assert_eq!(check_qualified_name("Example.com/x", true), Ok(()));
        for ok in ["", "v1", "a.b-c_d", &"v".repeat(63)] {
            assert_eq!(check_label_value(ok), Ok(()), "{ok}");
        }
        for bad in ["a b", "-v", "v-", "ü", &"v".repeat(64)] {
            assert!(check_label_value(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn service_of_an_address() {
        assert_eq!(service_of_address("a-ps-1.ns.svc:2222"), Some(("a-ps-1", 2222)));
        assert_eq!(service_of_address("a-ps-1"), None);
    }

    #[test]
    fn addresses() {
        assert_eq!(parse_host_port("a-ps-0:2222"), Ok(("a-ps-0", 2222)));
        assert_eq!(parse_host_port("10.0.0.1:80"), Ok(("10.0.0.1", 80)));
        assert!(parse_host_port("a-ps-0").is_err());
        assert!(parse_host_port("a-ps-0:0").is_err());
        assert!(parse_host_port("a-ps-0:+80").is_err());
        assert!(parse_host_port("A_B:80").is_err());
        assert!(parse_host_port(":80").is_err());
    }
}
