//! Facts derived from a job alone: the replica spec and template a type's pods are made from (a
//! chief without its own spec uses the worker's), the resource a template gives, the job's first
//! scale plan, and its namespace.

use std::borrow::Cow;
use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::PodTemplateSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use crate::api::{
    self, CleanPodPolicy, ElasticJob, ReplicaResourceSpec, ReplicaSpec, ReplicaType, ResourceList, RunPolicy,
    ScalePlan, ScaleSpec,
};
use crate::error::{Code, Error, Result};
use crate::podgroup::{self, Gang};
use crate::{naming, pod};

/// The replica spec a type's pods are made from: its own, or the worker's for a chief (upstream
/// runs a chief from the worker template when the job gives none).
pub fn effective_replica_spec(job: &ElasticJob, replica_type: ReplicaType) -> Option<&ReplicaSpec> {
    job.declared_replica_spec(replica_type).or_else(|| match replica_type {
        ReplicaType::Chief => job.declared_replica_spec(ReplicaType::Worker),
        _ => None,
    })
}

/// The template a task type's pods are made from ([`effective_replica_spec`]).
///
/// # Errors
/// [`Code::Required`] at `spec.replicaSpecs.<type>` when the job has no spec for the type (nor,
/// for a chief, a worker spec).
pub fn task_template(job: &ElasticJob, replica_type: ReplicaType) -> Result<&PodTemplateSpec> {
    effective_replica_spec(job, replica_type).map(|s| &s.template).ok_or_else(|| {
        Error::invalid(
            format!("spec.replicaSpecs.{replica_type}"),
            Code::Required,
            format!("the plan asks for {replica_type} pods but the job has no `{replica_type}` replica spec to make them from"),
        )
    })
}

/// The relaunch budget of a fresh pod of the type ([`effective_replica_spec`]'s `restartCount`, else 0).
pub fn restart_count(job: &ElasticJob, replica_type: ReplicaType) -> i32 {
    effective_replica_spec(job, replica_type).map_or(0, ReplicaSpec::restart_count)
}

/// The resource of a type's pods as its template gives it: the first container's requests, else
/// its limits. Empty when the job cannot make pods of the type.
pub fn template_resource(job: &ElasticJob, replica_type: ReplicaType) -> ResourceList {
    let Ok(template) = task_template(job, replica_type) else { return ResourceList::new() };
    template.spec.as_ref().and_then(|s| s.containers.first()).map(pod::container_resource).unwrap_or_default()
}

/// Which pods the job deletes once it has finished: its `spec.runPolicy.cleanPodPolicy`, else
/// `Running`, as DLRover's operator stops a finished job's running pods (Kubeflow's default for a
/// TFJob is `None`; DLRover's behaviour is kept for a job that says nothing).
pub fn clean_pod_policy(job: &ElasticJob) -> CleanPodPolicy {
    run_policy(job).and_then(|r| r.clean_pod_policy).unwrap_or(CleanPodPolicy::Running)
}

/// The job's `spec.runPolicy`, when it gives one.
pub fn run_policy(job: &ElasticJob) -> Option<&RunPolicy> {
    job.spec.run_policy.as_ref()
}

/// The gang scheduler of the job's pods: the one the controller names (`configured`, its
/// `--gang-scheduler-name`), else Volcano when a replica says `BatchScheduler: volcano` (DLRover's
/// key), else none: the pods go to the scheduler their templates name.
pub fn gang(job: &ElasticJob, configured: Option<&str>) -> Option<Gang> {
    if let Some(name) = configured.filter(|n| !n.is_empty()) {
        return Some(Gang::named(name));
    }
    let volcano = job.spec.replica_specs.values().any(|s| s.batch_scheduler.as_deref() == Some(podgroup::VOLCANO));
    volcano.then_some(Gang::Volcano)
}

/// The job's namespace, `None` when it names none (a manifest not applied yet).
pub fn namespace(job: &ElasticJob) -> Option<&str> {
    job.metadata.namespace.as_deref().filter(|n| !n.is_empty())
}

/// The first scale plan of a job (for previews, and for a job whose master has not planned yet):
/// each task type's `replicas`, a resource from its template's first container (requests, else
/// limits), and `psHosts` from the PS addresses `0..replicas`. It is named `<job>-initial`.
pub fn initial_scale_plan(job: &ElasticJob) -> ScalePlan {
    let name = job.name();
    let mut specs = BTreeMap::new();
    for replica_type in ReplicaType::TASKS {
        if let Some(spec) = job.declared_replica_spec(replica_type) {
            let resource = template_resource(job, replica_type);
            specs.insert(replica_type, ReplicaResourceSpec { replicas: spec.replicas(), resource });
        }
    }
    let ps = job.declared_replica_spec(ReplicaType::Ps).map_or(0, |s| i64::from(s.replicas()));
    ScalePlan {
        api_version: Some(api::API_VERSION.to_owned()),
        kind: Some(api::KIND_SCALE_PLAN.to_owned()),
        metadata: ObjectMeta {
            name: Some(format!("{name}-initial")),
            namespace: namespace(job).map(str::to_owned),
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

/// Whether a scale plan is the job's: it names the job ([`naming::plan_job`]: its `spec.ownerJob`,
/// else upstream's `elasticjob-name` label) or has an owner reference with the job's uid, and it is
/// in the job's namespace when both name one.
pub fn is_plan_of(job: &ElasticJob, plan: &ScalePlan) -> bool {
    let plan_namespace = plan.metadata.namespace.as_deref().filter(|n| !n.is_empty());
    let same_namespace = plan_namespace.is_none() || namespace(job).is_none() || plan_namespace == namespace(job);
    let uid = job.metadata.uid.as_deref().filter(|u| !u.is_empty());
    let owners = || plan.metadata.owner_references.iter().flatten();
    let owned = uid.is_some_and(|uid| owners().any(|r| r.uid == uid));
    // A plan an earlier job of the same name owned (its uid another) is that job's, not this one's.
    let an_earlier_jobs = uid.is_some_and(|uid| {
        owners().any(|r| r.kind.eq_ignore_ascii_case(api::KIND_ELASTIC_JOB) && r.name == job.name() && r.uid != uid)
    });
    same_namespace && !an_earlier_jobs && (naming::plan_job(plan) == Some(job.name()) || owned)
}

/// The given plan, or the job's first plan ([`initial_scale_plan`]).
pub fn plan_or_initial<'p>(job: &ElasticJob, scale_plan: Option<&'p ScalePlan>) -> Cow<'p, ScalePlan> {
    scale_plan.map_or_else(|| Cow::Owned(initial_scale_plan(job)), Cow::Borrowed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(value: serde_json::Value) -> ElasticJob {
        serde_json::from_value(value).unwrap_or_default()
    }

    #[test]
    fn a_chief_without_a_spec_uses_the_worker_spec() {
        let j = job(serde_json::json!({"metadata": {"name": "j"}, "spec": {"replicaSpecs": {
            "worker": {"replicas": 3, "restartCount": 2, "template": {"spec": {"containers": [
                {"name": "main", "resources": {"limits": {"cpu": "2"}}}]}}}}}}));
        assert_eq!(restart_count(&j, ReplicaType::Chief), 2);
        assert!(task_template(&j, ReplicaType::Chief).is_ok());
        assert_eq!(template_resource(&j, ReplicaType::Chief).get("cpu").map(|q| q.0.as_str()), Some("2"));
        let err = task_template(&j, ReplicaType::Ps).err();
        assert_eq!(
            err.as_ref().and_then(|e| e.problems().first()).map(|p| (p.path.as_str(), p.code)),
            Some(("spec.replicaSpecs.ps", Code::Required))
        );
        assert_eq!(restart_count(&j, ReplicaType::Evaluator), 0);
    }

    #[test]
    fn first_plan_takes_replicas_resources_and_ps_hosts() {
        let j = job(serde_json::json!({"metadata": {"name": "j", "namespace": ""}, "spec": {"replicaSpecs": {
            "ps": {"replicas": 2, "template": {"spec": {"containers": [
                {"name": "main", "resources": {"requests": {"memory": "1Gi"}}}]}}},
            "worker": {"template": {}}}}}));
        let plan = initial_scale_plan(&j);
        assert_eq!(namespace(&j), None);
        assert_eq!(plan.metadata.name.as_deref(), Some("j-initial"));
        assert_eq!(plan.spec.ps_hosts, ["j-edljob-ps-0:2222", "j-edljob-ps-1:2222"]);
        let ps = plan.spec.replica_resource_specs.get(&ReplicaType::Ps);
        assert_eq!(ps.map(|s| s.replicas), Some(2));
        assert_eq!(ps.and_then(|s| s.resource.get("memory")).map(|q| q.0.as_str()), Some("1Gi"));
        assert_eq!(plan.spec.replica_resource_specs.get(&ReplicaType::Worker).map(|s| s.replicas), Some(1));
        assert!(matches!(plan_or_initial(&j, None), Cow::Owned(_)));
        assert!(matches!(plan_or_initial(&j, Some(&plan)), Cow::Borrowed(_)));
    }
}
