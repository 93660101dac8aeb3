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

use std::cell::OnceCell;
use std::collections::BTreeMap;

use crate::podspec::Container;
use crate::podspec::EnvVar;
use serde::{Deserialize, Serialize, Serializer};

use crate::api::{ElasticJob, ReplicaType, ScalePlan};
use crate::error::{Code, Error, Result};
use crate::fields::deserialize_defaults;
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

deserialize_defaults! {
    test sparse_cluster_spec_keys_are_the_written_ones;
    SparseClusterSpec { worker "worker", ps "ps", chief "chief", evaluator "evaluator", }
}

impl Serialize for ClusterSpec {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        ClusterRef { worker: &self.worker, ps: &self.ps, chief: &self.chief, evaluator: &self.evaluator }
            .serialize(serializer)
    }
}

/// The sparse cluster spec: task lists keyed by index, so a server can be configured without
/// knowing every other task.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
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

impl TfConfig {
    /// The exact `TF_CONFIG` string: what serde_json writes of it.
    pub fn to_json(&self) -> String {
        let c = &self.cluster;
        let lists = [&c.worker, &c.ps, &c.chief, &c.evaluator].map(|list| Addresses::new(list));
        let mut out = String::new();
        write_config(&mut out, Form::Text, lists.each_ref().map(|list| list.all(Form::Text)), self.task);
        out
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

/// Where a `TF_CONFIG` text is written: as the env value itself (`Text`), or as it stands inside
/// a JSON string, escaped once more exactly as serde_json escapes it (`InString`). The second is
/// how a list of pods is written without escaping its megabytes of addresses byte by byte: the
/// 1,000-worker job's pods list half a million addresses, each of which is escaped once here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Form {
    Text,
    InString,
}

/// Addresses as a `TF_CONFIG` lists them (`"a:1","b:1"`), with where each address ends: a worker
/// of rank r lists the first r + 1 workers, a prefix of the same text. The [`Form::InString`] text
/// is made from it the first time it is asked for (a preview's; a controller's pass never asks).
#[derive(Clone, Debug, Default)]
struct Addresses {
    text: String,
    /// The length of the first `i + 1` addresses.
    ends: Vec<usize>,
    in_string: OnceCell<(String, Vec<usize>)>,
}

impl Addresses {
    fn new(addresses: &[String]) -> Addresses {
        let mut list = Addresses::default();
        for address in addresses {
            if !list.ends.is_empty() {
                list.text.push(',');
            }
            list.text.push_str(&json_string(address));
            list.ends.push(list.text.len());
        }
        list
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    /// The text and the ends of each address in `form`.
    fn form(&self, form: Form) -> (&str, &[usize]) {
        match form {
            Form::Text => (&self.text, &self.ends),
            Form::InString => {
                let (text, ends) = self.in_string.get_or_init(|| {
                    let (mut text, mut ends, mut start) = (String::new(), Vec::with_capacity(self.ends.len()), 0);
                    for &end in &self.ends {
                        // Each quoted address, its comma left out, escaped once more.
                        let quoted = self.text.get(start..end).map(|q| q.trim_start_matches(',')).unwrap_or_default();
                        if !ends.is_empty() {
                            text.push(',');
                        }
                        text.push_str(
                            json_string(quoted).get(1..).and_then(|s| s.strip_suffix('"')).unwrap_or_default(),
                        );
                        ends.push(text.len());
                        start = end;
                    }
                    (text, ends)
                });
                (text, ends)
            }
        }
    }

    /// The first `count` addresses (all of them when there are fewer).
    fn first(&self, count: usize, form: Form) -> &str {
        let (text, ends) = self.form(form);
        let end = match count.checked_sub(1) {
            None => 0,
            Some(last) => ends.get(last).or(ends.last()).copied().unwrap_or_default(),
        };
        text.get(..end).unwrap_or_default()
    }

    fn all(&self, form: Form) -> &str {
        self.first(self.len(), form)
    }
}

/// `value` as a JSON string literal, quotes included, exactly as serde_json writes it.
fn json_string(value: &str) -> String {
    // Serialising a string into memory cannot fail.
    serde_json::to_string(value).unwrap_or_default()
}

/// Writes one dense `TF_CONFIG` in `form`, the lists already in that form: the same bytes as
/// serde_json writes [`TfConfig`] (`worker` and `evaluator` left out when empty), so that
/// `Form::Text` equals [`TfConfig::to_json`] and `Form::InString` its escaped text.
fn write_config(out: &mut String, form: Form, lists: [&str; 4], task: TaskSpec) {
    let [worker, ps, chief, evaluator] = lists;
    // The literals hold no backslash and no control character: a quote is all there is to escape.
    let lit = |out: &mut String, text: &str| match form {
        Form::Text => out.push_str(text),
        Form::InString => {
            for c in text.chars() {
                if c == '"' {
                    out.push('\\');
                }
                out.push(c);
            }
        }
    };
    lit(out, r#"{"cluster":{"#);
    if !worker.is_empty() {
        lit(out, r#""worker":["#);
        out.push_str(worker);
        lit(out, "],");
    }
    lit(out, r#""ps":["#);
    out.push_str(ps);
    lit(out, r#"],"chief":["#);
    out.push_str(chief);
    lit(out, "]");
    if !evaluator.is_empty() {
        lit(out, r#","evaluator":["#);
        out.push_str(evaluator);
        lit(out, "]");
    }
    lit(out, r#"},"task":{"type":""#);
    lit(out, task.type_.as_str());
    lit(out, r#"","index":"#);
    out.push_str(&task.index.to_string());
    lit(out, "}}");
}

/// Everything needed to write the `TF_CONFIG` of any pod of a job under one scale plan.
#[derive(Clone, Debug)]
pub(crate) struct ClusterLayout {
    job: String,
    ps: Addresses,
    chief: Addresses,
    /// Worker addresses `0..N`, N the worker count every PS and the chief sees.
    workers: Addresses,
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
            Addresses::new(&naming::task_hosts(name, ReplicaType::Ps, count, naming::PS_SERVICE_PORT))
        } else {
            Addresses::new(&plan.spec.ps_hosts)
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
        ClusterLayout { job: name.to_owned(), ps, chief: Addresses::new(&chief), workers: Addresses::new(&workers) }
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
        let mut out = String::new();
        self.write_tf_config(&mut out, Form::Text, task_type, rank, address)?;
        Ok(out)
    }

    /// Whether the task `task_type` at `rank` can be given a `TF_CONFIG`.
    ///
    /// # Errors
    /// As [`ClusterLayout::tf_config`].
    pub(crate) fn check(&self, task_type: ReplicaType, rank: u32) -> Result<()> {
        let single = |what: &str| {
            Error::invalid(
                format!("task.{what}"),
                Code::TfConfigHole,
                format!("{what} rank {rank} cannot be listed: TensorFlow allows one {what}, at index 0"),
            )
        };
        match task_type {
            ReplicaType::DlroverMaster => Err(Error::invalid(
                "task.type",
                Code::InvalidValue,
                "the dlrover-master is not a TensorFlow task and gets no TF_CONFIG",
            )),
            ReplicaType::Ps if rank as usize >= self.ps.len() => Err(Error::invalid(
                "spec.psHosts",
                Code::TfConfigHole,
                format!(
                    "ps rank {rank} has no address: the plan lists {} PS host(s), so TensorFlow could not find this server",
                    self.ps.len()
                ),
            )),
            ReplicaType::Chief if rank > 0 => Err(single("chief")),
            ReplicaType::Evaluator if rank > 0 => Err(single("evaluator")),
            _ => Ok(()),
        }
    }

    /// Writes the `TF_CONFIG` of [`ClusterLayout::tf_config_at`] to `out`, in `form`.
    ///
    /// # Errors
    /// As [`ClusterLayout::tf_config`]; `out` is then left unchanged.
    pub(crate) fn write_tf_config(
        &self,
        out: &mut String,
        form: Form,
        task_type: ReplicaType,
        rank: u32,
        address: Option<&str>,
    ) -> Result<()> {
        self.check(task_type, rank)?;
        let task = TaskSpec { type_: task_type, index: rank };
        let own = || {
            let own =
                address.map_or_else(|| naming::task_address(&self.job, task_type, i64::from(rank)), str::to_owned);
            Addresses::new(&[own])
        };
        let (workers, ps, chief) = (self.workers.all(form), self.ps.all(form), self.chief.all(form));
        match task_type {
            ReplicaType::DlroverMaster => {}
            ReplicaType::Ps => write_config(out, form, [workers, ps, chief, ""], task),
            ReplicaType::Chief => write_config(out, form, [workers, ps, own().all(form), ""], task),
            ReplicaType::Worker if (rank as usize) < self.workers.len() => {
                let seen = self.workers.first((rank as usize).saturating_add(1), form);
                write_config(out, form, [seen, ps, chief, ""], task);
            }
            ReplicaType::Worker => {
                let count = i64::from(rank) + 1;
                let seen = naming::task_hosts(&self.job, ReplicaType::Worker, count, naming::WORKER_SERVICE_PORT);
                write_config(out, form, [Addresses::new(&seen).all(form), ps, chief, ""], task);
            }
            ReplicaType::Evaluator => write_config(out, form, ["", ps, chief, own().all(form)], task),
        }
        Ok(())
    }

    /// About how many bytes [`ClusterLayout::write_tf_config`] writes in `form` for this task: the
    /// room to make for it.
    pub(crate) fn size_hint(&self, form: Form, task_type: ReplicaType, rank: u32) -> usize {
        let shared = self.ps.all(form).len() + self.chief.all(form).len() + 100;
        match task_type {
            ReplicaType::Worker => {
                shared.saturating_add(self.workers.first((rank as usize).saturating_add(1), form).len())
            }
            ReplicaType::Ps | ReplicaType::Chief => shared.saturating_add(self.workers.all(form).len()),
            ReplicaType::Evaluator | ReplicaType::DlroverMaster => shared,
        }
    }
}

/// The `TF_CONFIG`s of pods made with a mark in place of their value, and how to write them into
/// the JSON text of those pods: each directly in [`Form::InString`], never as a string that
/// serde_json would escape byte by byte.
#[derive(Clone, Debug)]
pub(crate) struct Marked {
    layout: ClusterLayout,
    tasks: Vec<(TaskSpec, Option<String>)>,
}

/// How serde_json writes the first character of every mark: NUL, which it always escapes.
const MARK: &str = "\\u0000";

impl Marked {
    pub(crate) fn new(layout: ClusterLayout) -> Marked {
        Marked { layout, tasks: Vec::new() }
    }

    /// The value to give a pod in place of the `TF_CONFIG` of `task_type` at `rank` (`address`:
    /// its own, as [`ClusterLayout::tf_config_at`]): NUL and the task's number, which serde_json
    /// writes as `"\u0000<n>"`.
    ///
    /// # Errors
    /// As [`ClusterLayout::tf_config`].
    pub(crate) fn mark(&mut self, task_type: ReplicaType, rank: u32, address: Option<&str>) -> Result<String> {
        self.layout.check(task_type, rank)?;
        let n = self.tasks.len();
        self.tasks.push((TaskSpec { type_: task_type, index: rank }, address.map(str::to_owned)));
        Ok(format!("\0{n}"))
    }

    /// `text`, the JSON text of objects that hold every mark in the order they were made, with each
    /// mark's string replaced by its `TF_CONFIG` as a JSON string. `None` when `text` holds
    /// anything else written as a mark begins (a NUL in some value of the input): the caller then
    /// writes the values themselves.
    ///
    /// Why every match taken is a mark: the marks are in `text` once each and in order, as
    /// `"\u0000<n>"`; the k-th occurrence of `\u0000` must read `"\u0000<k>"`, and all of them
    /// must be the marks' count. Anything else holding `\u0000` adds an occurrence, so either some
    /// k-th one is not mark k or there are more than the marks: `None` either way.
    ///
    /// # Errors
    /// As [`ClusterLayout::tf_config`] (never for a task [`Marked::mark`] took).
    pub(crate) fn splice(&self, text: &str) -> Result<Option<String>> {
        let hint = (self.tasks.iter())
            .map(|(task, _)| self.layout.size_hint(Form::InString, task.type_, task.index))
            .fold(0, usize::saturating_add);
        let mut out = String::with_capacity(text.len().saturating_add(hint));
        let mut next = 0;
        let mut rest = text;
        while let Some(at) = rest.find(MARK) {
            let (Some(before), Some(after)) = (rest.get(..at), rest.get(at + MARK.len()..)) else { return Ok(None) };
            let digits = after.bytes().take_while(u8::is_ascii_digit).count();
            let number = after.get(..digits).and_then(|n| n.parse::<usize>().ok());
            let closed = after.get(digits..).is_some_and(|a| a.starts_with('"'));
            let Some((task, address)) =
                number.filter(|n| *n == next && closed && before.ends_with('"')).and_then(|n| self.tasks.get(n))
            else {
                return Ok(None);
            };
            out.push_str(before);
            self.layout.write_tf_config(&mut out, Form::InString, task.type_, task.index, address.as_deref())?;
            next += 1;
            rest = after.get(digits..).unwrap_or_default();
        }
        out.push_str(rest);
        Ok((next == self.tasks.len()).then_some(out))
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

    /// The hand-written TF_CONFIG is serde_json's, byte for byte, in both forms, whatever the
    /// addresses hold (a plan's `psHosts` is the user's text).
    #[test]
    fn written_configs_are_serde_jsons() {
        let hostile = ["a\"b:1", "c\\d:2", "e\nf\t\u{1}\u{1f}:3", "é\u{7f}ü:4", "\u{0}0"].map(str::to_owned);
        let workers: Vec<String> = (0..4).map(|i| format!("w-{i}.ns:2222")).collect();
        for (ps, chief) in [(&hostile[..], vec!["c:1".to_owned()]), (&[][..], vec![]), (&hostile[1..2], vec![])] {
            let layout = ClusterLayout {
                job: "j\"x".into(),
                ps: Addresses::new(ps),
                chief: Addresses::new(&chief),
                workers: Addresses::new(&workers),
            };
            let cases = [
                (ReplicaType::Worker, 0),
                (ReplicaType::Worker, 3),
                (ReplicaType::Worker, 6),
                (ReplicaType::Chief, 0),
                (ReplicaType::Evaluator, 0),
                (ReplicaType::Ps, 0),
            ];
            for (task_type, rank) in cases {
                let mut own = Vec::new();
                if task_type.is_singleton() {
                    own.push(format!("j\"x-edljob-{task_type}-0:{}", naming::service_port(task_type)));
                }
                let listed = |t: ReplicaType| if t == task_type { own.clone() } else { Vec::new() };
                let worker = match task_type {
                    ReplicaType::Evaluator => Vec::new(),
                    // A rank past the plan's workers lists the first rank + 1 by their own names.
                    ReplicaType::Worker => match workers.get(..=rank as usize) {
                        Some(seen) => seen.to_vec(),
                        None => naming::task_hosts("j\"x", ReplicaType::Worker, i64::from(rank) + 1, 3333),
                    },
                    _ => workers.clone(),
                };
                let expected = TfConfig {
                    cluster: ClusterSpec {
                        worker,
                        ps: ps.to_vec(),
                        chief: if task_type == ReplicaType::Chief { listed(ReplicaType::Chief) } else { chief.clone() },
                        evaluator: listed(ReplicaType::Evaluator),
                    },
                    task: TaskSpec { type_: task_type, index: rank },
                };
                let expected = serde_json::to_string(&expected).unwrap_or_default();
                if task_type == ReplicaType::Ps && ps.is_empty() {
                    assert!(layout.tf_config(task_type, rank).is_err());
                    continue;
                }
                assert_eq!(layout.tf_config(task_type, rank).ok().as_deref(), Some(expected.as_str()));
                let mut in_string = String::new();
                assert!(layout.write_tf_config(&mut in_string, Form::InString, task_type, rank, None).is_ok());
                assert_eq!(format!("\"{in_string}\""), json_string(&expected));
            }
        }
    }

    /// A mark is taken only where the text holds the marks alone, once each and in order.
    #[test]
    fn splice_takes_only_the_marks() {
        let layout = ClusterLayout {
            job: "j".into(),
            ps: Addresses::new(&["p:1".to_owned()]),
            chief: Addresses::default(),
            workers: Addresses::new(&["w:1".to_owned(), "w2:1".to_owned()]),
        };
        let mut marked = Marked::new(layout.clone());
        let marks: Vec<String> = [(ReplicaType::Worker, 0), (ReplicaType::Worker, 1)]
            .into_iter()
            .filter_map(|(t, r)| marked.mark(t, r, None).ok())
            .collect();
        let configs: Vec<String> =
            [0, 1].into_iter().filter_map(|r| layout.tf_config(ReplicaType::Worker, r).ok()).collect();
        let (m0, m1) = (marks.first().map_or("", String::as_str), marks.get(1).map_or("", String::as_str));
        let (c0, c1) = (configs.first().map_or("", String::as_str), configs.get(1).map_or("", String::as_str));
        let spliced =
            |values: &[&str]| marked.splice(&serde_json::to_string(values).unwrap_or_default()).ok().flatten();
        assert_eq!(spliced(&["x", m0, m1]), serde_json::to_string(&["x", c0, c1]).ok());
        for hostile in [
            vec![m0, m0, m1],
            vec![m1, m0],
            vec![m0],
            vec![m0, m1, "\u{0}2"],
            vec!["\u{0}", m0, m1],
            vec![m0, "a\u{0}1", m1],
        ] {
            assert_eq!(spliced(&hostile), None, "{hostile:?}");
        }
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
