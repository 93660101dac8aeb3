//! Previews: the first scale plan of a job, the `TF_CONFIG` of any of its tasks, and a summary of
//! rendered objects. [`crate::reconcile::render`] renders the objects themselves.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::api::{self, ElasticJob, ReplicaResourceSpec, ReplicaType, ScalePlan, ScaleSpec};
use crate::error::{Code, Error, Result};
use crate::naming;
use crate::plan::{List, Object, SummaryRow};
use crate::tfconfig::{ClusterLayout, TFConfig};
use crate::validate;

/// The first scale plan of a job (for previews, and for a job whose master has not planned yet):
/// each task type's `replicas`, a resource from its template's first container (requests, else
/// limits), and `psHosts` from the PS addresses `0..replicas`. It is named `<job>-initial`.
pub fn initial_scale_plan(job: &ElasticJob) -> ScalePlan {
    let name = job.name();
    let mut specs = BTreeMap::new();
    for replica_type in ReplicaType::TASKS {
        if let Some(spec) = job.replica_spec(replica_type) {
            let resource = validate::template_resource(job, replica_type);
            specs.insert(replica_type, ReplicaResourceSpec { replicas: spec.replicas(), resource });
        }
    }
    let ps = job.replica_spec(ReplicaType::Ps).map_or(0, |s| i64::from(s.replicas()));
    ScalePlan {
        api_version: Some(api::API_VERSION.to_owned()),
        kind: Some(api::KIND_SCALE_PLAN.to_owned()),
        metadata: ObjectMeta {
            name: Some(format!("{name}-initial")),
            namespace: job.metadata.namespace.clone().filter(|n| !n.is_empty()),
            labels: Some(BTreeMap::from([(naming::LABEL_SCALE_PLAN_JOB.to_owned(), name.to_owned())])),
            ..ObjectMeta::default()
        },
        spec: ScaleSpec {
            owner_job: Some(name.to_owned()),
            replica_resource_specs: specs,
            ps_hosts: naming::task_hosts(name, ReplicaType::Ps, ps, naming::PS_SERVICE_PORT),
            ..ScaleSpec::default()
        },
        status: None,
    }
}

/// The `TF_CONFIG` string the pod of `replica_type` at rank `index` gets under `scale_plan` (by
/// default the job's first plan): exactly the env value.
///
/// # Errors
/// [`Error::Invalid`] when the job or plan is invalid, the job uses `AllreduceStrategy` (its pods
/// get `RDZV_ENDPOINT` instead), or the task cannot be listed (see
/// [`ClusterLayout::tf_config`]).
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
    let plan = crate::reconcile::plan_or_initial(job, scale_plan);
    ClusterLayout::new(job, &plan).tf_config(replica_type, index)
}

/// The parsed `TF_CONFIG` of a rendered pod, if it has one.
pub fn pod_tf_config(pod: &k8s_openapi::api::core::v1::Pod) -> Option<TFConfig> {
    let env = pod.spec.as_ref()?.containers.first()?.env.as_ref()?;
    let value = env.iter().find(|e| e.name == naming::ENV_TF_CONFIG)?.value.as_deref()?;
    serde_json::from_str(value).ok()
}

/// One row per rendered object: kind, name, replica type, rank, the first container's CPU and
/// memory requests, and the `TF_CONFIG` task.
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
                SummaryRow {
                    kind: "Pod".to_owned(),
                    name: pod.metadata.name.clone().unwrap_or_default(),
                    replica_type: get(naming::LABEL_REPLICA_TYPE).and_then(|t| ReplicaType::parse(t)),
                    rank: get(naming::LABEL_RANK_INDEX).and_then(|r| r.parse().ok()),
                    cpu: request("cpu"),
                    memory: request("memory"),
                    task: pod_tf_config(pod).map(|c| format!("{}:{}", c.task.type_, c.task.index)),
                }
            }
            Object::Service(service) => {
                let selector = service.spec.as_ref().and_then(|s| s.selector.as_ref());
                let get = |k: &str| selector.and_then(|l| l.get(k));
                SummaryRow {
                    kind: "Service".to_owned(),
                    name: service.metadata.name.clone().unwrap_or_default(),
                    replica_type: get(naming::LABEL_REPLICA_TYPE).and_then(|t| ReplicaType::parse(t)),
                    rank: get(naming::LABEL_RANK_INDEX).and_then(|r| r.parse().ok()),
                    cpu: None,
                    memory: None,
                    task: None,
                }
            }
        })
        .collect()
}
