//! `TF_CONFIG`: the TensorFlow cluster spec each pod of a parameter-server job gets.
//!
//! The dense form is the one TensorFlow reads, with a fixed field order:
//! `{"cluster":{"worker":[..],"ps":[..],"chief":[..],"evaluator":[..]},"task":{"type":"worker","index":1}}`.
//! `worker` and `evaluator` are left out when empty; `ps` and `chief` are `[]` when empty, never
//! `null` (TensorFlow refuses `null`). The sparse form keys task lists by index; it converts to the
//! dense form by sorted index, and a missing index is an error rather than an empty address.
//!
//! What each pod sees:
//! - `ps`: the scale plan's `psHosts`, or the PS addresses `0..replicas` when it lists none;
//! - `chief`: `<job>-edljob-chief-0:3333`, only when the job has a chief;
//! - a PS or the chief sees every worker `0..N`, N the plan's worker replicas (else the job
//!   status's active + pending + succeeded workers); a worker of rank r sees workers `0..=r`;
//! - an evaluator sees itself at its rank;
//! - `task` is `{type, index: rank}`.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, EnvVar};
use serde::{Deserialize, Serialize, Serializer};

use crate::api::{ElasticJob, ReplicaType, ScalePlan};
use crate::error::{Code, Error, Result};
use crate::naming;

/// The task a pod runs: its type and its index (rank) in that type's list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TaskSpec {
    /// `worker`, `ps`, `chief` or `evaluator`.
    #[serde(rename = "type")]
    pub type_: ReplicaType,
    /// The rank of the task.
    pub index: u32,
}

/// The dense TensorFlow cluster spec: job name to the list of task addresses.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ClusterSpec {
    /// Worker addresses by index; left out of the JSON when empty.
    #[serde(default)]
    pub worker: Vec<String>,
    /// PS addresses by index; `[]` when empty.
    #[serde(default)]
    pub ps: Vec<String>,
    /// Chief addresses (at most one); `[]` when empty.
    #[serde(default)]
    pub chief: Vec<String>,
    /// Evaluator addresses; left out of the JSON when empty.
    #[serde(default)]
    pub evaluator: Vec<String>,
}

impl Serialize for ClusterSpec {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        ClusterRef { worker: &self.worker, ps: &self.ps, chief: &self.chief, evaluator: &self.evaluator }
            .serialize(serializer)
    }
}

/// The sparse cluster spec: task lists keyed by index, so a server can be configured without
/// knowing every other task.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SparseClusterSpec {
    /// Worker addresses by index.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub worker: BTreeMap<u32, String>,
    /// PS addresses, dense.
    #[serde(default)]
    pub ps: Vec<String>,
    /// Chief addresses by index.
    #[serde(default)]
    pub chief: BTreeMap<u32, String>,
    /// Evaluator addresses by index.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub evaluator: BTreeMap<u32, String>,
}

/// The dense `TF_CONFIG` value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TfConfig {
    /// The cluster.
    pub cluster: ClusterSpec,
    /// This pod's task.
    pub task: TaskSpec,
}

/// The sparse form of [`TfConfig`], as upstream names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SparseTfConfig {
    /// The cluster, keyed by index.
    #[serde(rename = "sparseCluster")]
    pub cluster: SparseClusterSpec,
    /// This pod's task.
    pub task: TaskSpec,
}

/// The one serialisation of a dense cluster, borrowed, so rendering many pods copies no address.
#[derive(Serialize)]
struct ClusterRef<'a> {
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    worker: &'a [String],
    ps: &'a [String],
    chief: &'a [String],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    evaluator: &'a [String],
}

#[derive(Serialize)]
struct TfConfigRef<'a> {
    cluster: ClusterRef<'a>,
    task: TaskSpec,
}

impl TfConfigRef<'_> {
    fn to_json(&self) -> String {
        // Serialising strings and integers into memory cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

impl TfConfig {
    /// The exact `TF_CONFIG` string.
    pub fn to_json(&self) -> String {
        let c = &self.cluster;
        TfConfigRef {
            cluster: ClusterRef { worker: &c.worker, ps: &c.ps, chief: &c.chief, evaluator: &c.evaluator },
            task: self.task,
        }
        .to_json()
    }
}

impl SparseClusterSpec {
    /// The dense cluster: each keyed list in index order.
    ///
    /// # Errors
    /// [`Code::TfConfigHole`] at `sparseCluster.<job>` when a list misses an index below its
    /// highest one: TensorFlow needs every index from 0, and an empty address would hang it.
    pub fn to_dense(&self) -> Result<ClusterSpec> {
        Ok(ClusterSpec {
            worker: dense(&self.worker, "worker")?,
            ps: self.ps.clone(),
            chief: dense(&self.chief, "chief")?,
            evaluator: dense(&self.evaluator, "evaluator")?,
        })
    }
}

fn dense(tasks: &BTreeMap<u32, String>, job: &str) -> Result<Vec<String>> {
    let mut out = Vec::with_capacity(tasks.len());
    for (expected, (index, address)) in (0u32..).zip(tasks) {
        if *index != expected {
            return Err(Error::invalid(
                format!("sparseCluster.{job}"),
                Code::TfConfigHole,
                format!(
                    "{job} index {expected} is missing but index {index} is set: TensorFlow needs every {job} index from 0 to {index}"
                ),
            ));
        }
        out.push(address.clone());
    }
    Ok(out)
}

/// Converts a sparse cluster and sets `TF_CONFIG` on a container, replacing an existing one.
///
/// # Errors
/// [`Code::TfConfigHole`] when the sparse cluster misses an index (see
/// [`SparseClusterSpec::to_dense`]); the container is then left unchanged.
pub fn insert_tf_config_to_env(
    container: &mut Container,
    cluster: &SparseClusterSpec,
    task_type: ReplicaType,
    rank: u32,
) -> Result<()> {
    let config = TfConfig { cluster: cluster.to_dense()?, task: TaskSpec { type_: task_type, index: rank } };
    set_env(container, naming::ENV_TF_CONFIG, config.to_json());
    Ok(())
}

/// Sets a plain env var on a container: replaces the first of that name and drops any later one
/// (Kubernetes runs a container with the last of several vars of a name), or appends.
pub(crate) fn set_env(container: &mut Container, name: &str, value: String) {
    let env = container.env.get_or_insert_with(Vec::new);
    let var = EnvVar { name: name.to_owned(), value: Some(value), value_from: None };
    let Some(first) = env.iter().position(|e| e.name == name) else { return env.push(var) };
    let mut index = 0;
    env.retain(|e| {
        index += 1;
        e.name != name || index - 1 == first
    });
    if let Some(existing) = env.get_mut(first) {
        *existing = var;
    }
}

/// Everything needed to write the `TF_CONFIG` of any pod of a job under one scale plan.
#[derive(Clone, Debug)]
pub(crate) struct ClusterLayout {
    job: String,
    ps: Vec<String>,
    chief: Vec<String>,
    /// Worker addresses `0..N`, N the worker count every PS and the chief sees.
    workers: Vec<String>,
}

impl ClusterLayout {
    /// The layout of `job` under `plan` (see the module docs for the rules).
    pub fn new(job: &ElasticJob, plan: &ScalePlan) -> ClusterLayout {
        Self::with_live_chief(job, plan, false)
    }

    /// The layout of `job` under `plan` when the cluster is known to run a chief (`live_chief`):
    /// then the chief is listed unless the plan sets the chief's count itself. A plan that names no
    /// type, such as the relaunch plan DLRover's master writes (one `createPods` entry), leaves the
    /// cluster as it is, and the master's first plan may have made a chief the spec does not have.
    pub(crate) fn with_live_chief(job: &ElasticJob, plan: &ScalePlan, live_chief: bool) -> ClusterLayout {
        let name = job.name();
        let planned = |t: ReplicaType| plan.spec.replica_resource_specs.get(&t).map(|s| i64::from(s.replicas));
        let ps = if plan.spec.ps_hosts.is_empty() {
            let count = planned(ReplicaType::Ps)
                .or_else(|| job.declared_replica_spec(ReplicaType::Ps).map(|s| i64::from(s.replicas())))
                .unwrap_or(0);
            naming::task_hosts(name, ReplicaType::Ps, count, naming::PS_SERVICE_PORT)
        } else {
            plan.spec.ps_hosts.clone()
        };
        let has_chief = match planned(ReplicaType::Chief) {
            Some(count) => count > 0,
            None => live_chief || job.declared_replica_spec(ReplicaType::Chief).is_some_and(|s| s.replicas() > 0),
        } || plan.spec.create_pods.iter().any(|p| p.replica_type() == Some(ReplicaType::Chief));
        let chief = if has_chief { vec![naming::task_address(name, ReplicaType::Chief, 0)] } else { Vec::new() };
        let workers = planned(ReplicaType::Worker).unwrap_or_else(|| {
            job.status
                .as_ref()
                .and_then(|s| s.common())
                .and_then(|s| s.replica_statuses.get(&ReplicaType::Worker))
                .map_or(0, |s| i64::from(s.active) + i64::from(s.pending) + i64::from(s.succeeded))
        });
        let workers = naming::task_hosts(name, ReplicaType::Worker, workers, naming::WORKER_SERVICE_PORT);
        ClusterLayout { job: name.to_owned(), ps, chief, workers }
    }

    /// How many addresses the `TF_CONFIG` of a task lists: what it costs to write.
    pub fn host_count(&self, task_type: ReplicaType, rank: u32) -> u64 {
        let rank = u64::from(rank);
        let shared = (self.ps.len() + self.chief.len()) as u64;
        match task_type {
            ReplicaType::Worker => shared + rank + 1,
            ReplicaType::Ps => shared + self.workers.len() as u64,
            ReplicaType::Chief => self.ps.len() as u64 + 1 + self.workers.len() as u64,
            ReplicaType::Evaluator => shared + 1,
            ReplicaType::DlroverMaster => 0,
        }
    }

    /// The `TF_CONFIG` of the task `task_type` at `rank`.
    ///
    /// # Errors
    /// - [`Code::InvalidValue`] for the master, which is not a TensorFlow task;
    /// - [`Code::TfConfigHole`] for a chief or evaluator rank above 0 (TensorFlow allows one) and
    ///   for a PS rank with no address in the plan's `psHosts`.
    pub fn tf_config(&self, task_type: ReplicaType, rank: u32) -> Result<String> {
        self.tf_config_at(task_type, rank, None)
    }

    /// The `TF_CONFIG` of a task whose own address is `address` rather than its rank's
    /// (`<job>-edljob-<type>-<rank>:<port>`): a chief or evaluator that a scale plan's `createPods`
    /// entry gave its own `service` lists itself there, as upstream does. Other tasks are listed by
    /// the plan's addresses whatever their own is.
    ///
    /// # Errors
    /// As [`ClusterLayout::tf_config`].
    pub fn tf_config_at(&self, task_type: ReplicaType, rank: u32, address: Option<&str>) -> Result<String> {
        let task = TaskSpec { type_: task_type, index: rank };
        let own = || address.map_or_else(|| naming::task_address(&self.job, task_type, i64::from(rank)), str::to_owned);
        let single = |what: &str| {
            Error::invalid(
                format!("task.{what}"),
                Code::TfConfigHole,
                format!("{what} rank {rank} cannot be listed: TensorFlow allows one {what}, at index 0"),
            )
        };
        let write = |worker: &[String], chief: &[String], evaluator: &[String]| {
            TfConfigRef { cluster: ClusterRef { worker, ps: &self.ps, chief, evaluator }, task }.to_json()
        };
        Ok(match task_type {
            ReplicaType::DlroverMaster => {
                return Err(Error::invalid(
                    "task.type",
                    Code::InvalidValue,
                    "the dlrover-master is not a TensorFlow task and gets no TF_CONFIG",
                ));
            }
            ReplicaType::Ps => {
                if rank as usize >= self.ps.len() {
                    return Err(Error::invalid(
                        "spec.psHosts",
                        Code::TfConfigHole,
                        format!(
                            "ps rank {rank} has no address: the plan lists {} PS host(s), so TensorFlow could not find this server",
                            self.ps.len()
                        ),
                    ));
                }
                write(&self.workers, &self.chief, &[])
            }
            ReplicaType::Chief => {
                if rank > 0 {
                    return Err(single("chief"));
                }
                write(&self.workers, &[own()], &[])
            }
            ReplicaType::Worker => match self.workers.get(..=rank as usize) {
                Some(seen) => write(seen, &self.chief, &[]),
                None => {
                    let seen = naming::task_hosts(
                        &self.job,
                        ReplicaType::Worker,
                        i64::from(rank) + 1,
                        naming::WORKER_SERVICE_PORT,
                    );
                    write(&seen, &self.chief, &[])
                }
            },
            ReplicaType::Evaluator => {
                if rank > 0 {
                    return Err(single("evaluator"));
                }
                write(&[], &self.chief, &[own()])
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_form_never_has_null_lists() {
        let config = TfConfig {
            cluster: ClusterSpec { worker: vec!["w:1".into()], ..ClusterSpec::default() },
            task: TaskSpec { type_: ReplicaType::Worker, index: 0 },
        };
        assert_eq!(
            config.to_json(),
            r#"{"cluster":{"worker":["w:1"],"ps":[],"chief":[]},"task":{"type":"worker","index":0}}"#
        );
    }

    #[test]
    fn sparse_holes_are_errors() {
        let mut sparse = SparseClusterSpec::default();
        sparse.worker.insert(0, "w0:1".into());
        sparse.worker.insert(2, "w2:1".into());
        let err = sparse.to_dense().err().map(|e| e.problems().to_vec());
        assert_eq!(
            err.as_ref().and_then(|p| p.first()).map(|p| (p.path.as_str(), p.code)),
            Some(("sparseCluster.worker", Code::TfConfigHole))
        );
    }

    #[test]
    fn sparse_converts_by_sorted_index() {
        let mut sparse = SparseClusterSpec::default();
        for i in (0..12).rev() {
            sparse.worker.insert(i, format!("w{i}:1"));
        }
        let dense = sparse.to_dense().map(|d| d.worker).unwrap_or_default();
        assert_eq!(dense.len(), 12);
        assert_eq!(dense.get(10).map(String::as_str), Some("w10:1"));
    }

    #[test]
    fn insert_leaves_one_tf_config() {
        // Found by the tf_config fuzz target: a second TF_CONFIG further down the list was kept,
        // and Kubernetes runs the container with the last one.
        let var = |name: &str, value: &str| EnvVar { name: name.into(), value: Some(value.into()), value_from: None };
        let mut c = Container {
            env: Some(vec![var("TF_CONFIG", "a"), var("A", "1"), var("TF_CONFIG", "b"), var("B", "2")]),
            ..Container::default()
        };
        let mut sparse = SparseClusterSpec::default();
        sparse.chief.insert(0, "c:3333".into());
        assert!(insert_tf_config_to_env(&mut c, &sparse, ReplicaType::Chief, 0).is_ok());
        let env: Vec<(String, Option<String>)> =
            c.env.unwrap_or_default().into_iter().map(|e| (e.name, e.value)).collect();
        let config = r#"{"cluster":{"ps":[],"chief":["c:3333"]},"task":{"type":"chief","index":0}}"#;
        assert_eq!(
            env,
            [("TF_CONFIG".into(), Some(config.into())), ("A".into(), Some("1".into())), ("B".into(), Some("2".into()))]
        );
    }

    #[test]
    fn insert_replaces_existing_tf_config() {
        let mut c = Container::default();
        set_env(&mut c, naming::ENV_TF_CONFIG, "old".into());
        let mut sparse = SparseClusterSpec::default();
        sparse.chief.insert(0, "c:3333".into());
        assert!(insert_tf_config_to_env(&mut c, &sparse, ReplicaType::Chief, 0).is_ok());
        let env = c.env.unwrap_or_default();
        assert_eq!(env.len(), 1);
        assert_eq!(
            env.first().and_then(|e| e.value.as_deref()),
            Some(r#"{"cluster":{"ps":[],"chief":["c:3333"]},"task":{"type":"chief","index":0}}"#)
        );
    }
}
