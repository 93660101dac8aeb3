//! Previews: every object a job will have ([`render()`]), the `TF_CONFIG` of any of its tasks
//! ([`tf_config`]), and a summary of rendered objects ([`summary`]).

use crate::podspec::Pod;

use crate::api::{self, ElasticJob, ReplicaType, ScalePlan};
use crate::error::{Code, Error, Result};
use crate::plan::{Action, List, Object, SummaryRow};
use crate::planner::Planner;
use crate::podgroup::{KIND_POD_GROUP, PodGroup};
use crate::template::Options;
use crate::tfconfig::{ClusterLayout, Marked, TfConfig};
use crate::validate::{self, MAX_TF_CONFIG_HOSTS};
use crate::{gang, job, json, naming, pod};

/// Every object the job will have once `scale_plan` (by default its first plan,
/// [`initial_scale_plan`](crate::initial_scale_plan)) has run on an empty cluster: the PodGroup of
/// a job with a gang scheduler ([`crate::gang`]), the master pod and service, then each task
/// type's pods and services.
///
/// # Errors
/// [`Error::Invalid`] when the job or the plan is invalid or too large.
pub fn render(job: &ElasticJob, scale_plan: Option<&ScalePlan>, options: &Options) -> Result<List> {
    rendered(job, scale_plan, options, TfConfigs::Written).map(|(list, _)| list)
}

/// The JSON text of [`render()`]'s list, compact as serde_json writes it, or with `pretty` as
/// [`json::to_text`] indents it: the same bytes as `json::to_text(&render(..)?, pretty)`, written
/// without escaping the pods' `TF_CONFIG`s byte by byte (they are most of a large job's bytes:
/// 22.8 MB of the 1,000-worker job's: each is written into the text already escaped, at a mark
/// left in its pod, see [`tfconfig`](crate::tfconfig)).
///
/// # Errors
/// As [`render()`].
pub fn render_json(
    job: &ElasticJob,
    scale_plan: Option<&ScalePlan>,
    options: &Options,
    pretty: bool,
) -> Result<String> {
    let (list, marked) = rendered(job, scale_plan, options, TfConfigs::Marked)?;
    let text = json::to_text(&list, pretty).map_err(unwritable)?;
    if let Some(marked) = marked {
        if let Some(text) = marked.splice(&text)? {
            return Ok(text);
        }
        // A value of the job holds what serde_json writes as a mark: the values themselves.
        return json::to_text(&render(job, scale_plan, options)?, pretty).map_err(unwritable);
    }
    Ok(text)
}

fn unwritable(e: serde_json::Error) -> Error {
    Error::invalid("", Code::InvalidValue, format!("the objects cannot be written as JSON: {e}"))
}

/// The rows of [`summary`] of [`render()`], without writing the addresses of any pod's
/// `TF_CONFIG` (a 1,000-worker job lists half a million of them): what a table of a job needs.
///
/// # Errors
/// As [`render()`].
pub fn render_summary(job: &ElasticJob, scale_plan: Option<&ScalePlan>, options: &Options) -> Result<Vec<SummaryRow>> {
    rendered(job, scale_plan, options, TfConfigs::Empty).map(|(list, _)| summary(&list))
}

/// What the rendered pods get as their `TF_CONFIG`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum TfConfigs {
    Written,
    Empty,
    Marked,
}

fn rendered(
    job: &ElasticJob,
    scale_plan: Option<&ScalePlan>,
    options: &Options,
    tf_configs: TfConfigs,
) -> Result<(List, Option<Marked>)> {
    validate::check_job_and_plan(job, scale_plan)?;
    let plan = job::plan_or_initial(job, scale_plan);
    // The group of the job as it runs: its master and every task pod rendered.
    let pod_group = gang::pod_group(job, &plan, options, true).map(|g| Object::PodGroup(Box::new(g)));
    let mut planner = Planner::new(job, options, &[], &plan)?;
    match tf_configs {
        TfConfigs::Written => {}
        TfConfigs::Empty => planner.without_tf_config_values(),
        TfConfigs::Marked => planner.with_marked_tf_configs(),
    }
    planner.ensure_master()?;
    for replica_type in ReplicaType::TASKS {
        planner.reconcile_type(replica_type, &plan)?;
    }
    if planner.deferred() {
        let path = if scale_plan.is_some() { "scalePlan.spec.replicaResourceSpecs" } else { "spec.replicaSpecs" };
        return Err(Error::invalid(
            path,
            Code::TooLarge,
            format!(
                "the TF_CONFIGs of these pods would list more than {MAX_TF_CONFIG_HOSTS} addresses (a worker of rank r lists r + 1 workers), more than a preview renders; the operator creates such a job over several passes"
            ),
        ));
    }
    let (actions, marked) = planner.into_actions_and_marks();
    let made = actions.into_iter().filter_map(|a| match a {
        Action::CreatePod { pod, .. } => Some(Object::Pod(pod)),
        Action::CreateOrUpdateService { service, .. } => Some(Object::Service(service)),
        _ => None,
    });
    let items = pod_group.into_iter().chain(made).collect();
    Ok((List::new(items), marked))
}

/// The `TF_CONFIG` string the pod of `replica_type` at rank `index` gets under `scale_plan` (by
/// default the job's first plan): exactly the env value.
///
/// # Errors
/// [`Error::Invalid`] when the job or plan is invalid, the job uses `AllreduceStrategy` (its pods
/// get `RDZV_ENDPOINT` instead), or the task cannot be listed: the master, which is not a
/// TensorFlow task (`invalid_value`), a chief or evaluator rank above 0 (TensorFlow allows one),
/// or a PS rank with no address in the plan's `psHosts` (`tf_config_hole`).
pub fn tf_config(
    job: &ElasticJob,
    replica_type: ReplicaType,
    index: u32,
    scale_plan: Option<&ScalePlan>,
) -> Result<String> {
    validate::check_job_and_plan(job, scale_plan)?;
    if job.strategy() == api::DistributionStrategy::AllreduceStrategy {
        return Err(Error::invalid(
            "spec.distributionStrategy",
            Code::InvalidValue,
            "an AllreduceStrategy job gets RDZV_ENDPOINT, not TF_CONFIG",
        ));
    }
    let plan = job::plan_or_initial(job, scale_plan);
    ClusterLayout::new(job, &plan).tf_config(replica_type, index)
}

/// The parsed `TF_CONFIG` of a rendered pod, if it has one.
pub fn pod_tf_config(p: &Pod) -> Option<TfConfig> {
    serde_json::from_str(pod::tf_config(p)?).ok()
}

/// One row per rendered object: kind, name, replica type, rank, the first container's CPU and
/// memory requests, the port it is reached on, and the `TF_CONFIG` task of a pod that has one.
///
/// The task is read from the pod's labels: the core writes every `TF_CONFIG` task as the pod's
/// type and rank, so a summary needs no pod's `TF_CONFIG` parsed (a 1,000-worker job lists half a
/// million addresses in them).
pub fn summary(list: &List) -> Vec<SummaryRow> {
    list.items
        .iter()
        .map(|item| match item {
            Object::Pod(pod) => {
                let labels = pod.metadata.labels.as_ref();
                let get = |k: &str| labels.and_then(|l| l.get(k));
                let requests = pod
                    .spec
                    .as_ref()
                    .and_then(|s| s.containers.first())
                    .and_then(|c| c.resources.as_ref())
                    .and_then(|r| r.requests.as_ref());
                let request = |k: &str| requests.and_then(|r| r.get(k)).map(|q| q.0.clone());
                let replica_type = get(naming::LABEL_REPLICA_TYPE).and_then(|t| ReplicaType::parse(t));
                let rank: Option<i32> = get(naming::LABEL_RANK_INDEX).and_then(|r| r.parse().ok());
                let task = match (pod::tf_config(pod), replica_type, rank) {
                    (Some(_), Some(t), Some(r)) => Some(format!("{t}:{r}")),
                    _ => None,
                };
                SummaryRow {
                    kind: "Pod".to_owned(),
                    name: pod.metadata.name.clone().unwrap_or_default(),
                    replica_type,
                    rank,
                    cpu: request("cpu"),
                    memory: request("memory"),
                    port: replica_type.map(naming::service_port),
                    task,
                }
            }
            Object::PodGroup(group) => SummaryRow {
                kind: KIND_POD_GROUP.to_owned(),
                name: group.metadata.name.clone().unwrap_or_default(),
                replica_type: None,
                rank: None,
                cpu: requested(group, "cpu"),
                memory: requested(group, "memory"),
                port: None,
                task: None,
            },
            Object::Service(service) => {
                let selector = service.spec.as_ref().and_then(|s| s.selector.as_ref());
                let get = |k: &str| selector.and_then(|l| l.get(k));
                let ports = service.spec.as_ref().and_then(|s| s.ports.as_ref());
                SummaryRow {
                    kind: "Service".to_owned(),
                    name: service.metadata.name.clone().unwrap_or_default(),
                    replica_type: get(naming::LABEL_REPLICA_TYPE).and_then(|t| ReplicaType::parse(t)),
                    rank: get(naming::LABEL_RANK_INDEX).and_then(|r| r.parse().ok()),
                    cpu: None,
                    memory: None,
                    port: ports.and_then(|p| p.first()).map(|p| p.port),
                    task: None,
                }
            }
        })
        .collect()
}

/// What a PodGroup's `minResources` holds of a resource.
fn requested(group: &PodGroup, resource: &str) -> Option<String> {
    group.spec.min_resources.as_ref()?.get(resource).map(|q| q.0.clone())
}
