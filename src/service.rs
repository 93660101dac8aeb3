//! What an observed service says about itself: its name, and whether it is one of a job's task
//! services, made by the operator as the address of a type and rank.
//!
//! Every rule here is the one the planner and the tests use; none is written twice.

use crate::podspec::Service;

use crate::api::{ElasticJob, ReplicaType};
use crate::naming;

/// The service's name (empty when it has none).
pub fn name(service: &Service) -> &str {
    service.metadata.name.as_deref().unwrap_or_default()
}

/// The value of one of the service's labels.
pub fn label<'s>(service: &'s Service, key: &str) -> Option<&'s str> {
    service.metadata.labels.as_ref()?.get(key).map(String::as_str)
}

/// Whether the service is in the job's namespace (a side that names none, as a preview's
/// manifests, matches any).
pub fn in_namespace_of(service: &Service, job: &ElasticJob) -> bool {
    let of = |ns: &Option<String>| ns.clone().filter(|n| !n.is_empty());
    match (of(&service.metadata.namespace), of(&job.metadata.namespace)) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    }
}

/// The task type and rank of a service the job owns, as the operator labels the service of a rank
/// (`app`, the job name, a task replica type, a rank); `None` for any other service: another job's,
/// the master's, one without those labels, or one the job does not own.
///
/// The job owns the service when the service's controller owner reference is the job, by uid. A
/// job without a uid (a manifest not applied, as in a preview) gets services without an owner
/// reference from the core, so for such a job a service no object controls is its own.
pub fn owned_task_rank(service: &Service, job: &ElasticJob) -> Option<(ReplicaType, i32)> {
    let controller = service.metadata.owner_references.iter().flatten().find(|r| r.controller == Some(true));
    let owned = controlled_by(controller.map(|r| r.uid.as_str()), job);
    let labelled = label(service, naming::LABEL_APP) == Some(naming::APP_NAME)
        && label(service, naming::LABEL_JOB_NAME) == Some(job.name());
    if !owned || !labelled || !in_namespace_of(service, job) {
        return None;
    }
    let replica_type = label(service, naming::LABEL_REPLICA_TYPE).and_then(ReplicaType::parse)?;
    let rank: i32 = label(service, naming::LABEL_RANK_INDEX)?.parse().ok()?;
    (replica_type != ReplicaType::DlroverMaster && rank >= 0).then_some((replica_type, rank))
}

/// Whether an object whose controller owner reference has uid `controller` (`None`: no controller)
/// is the job's: its controller is the job, by uid; for a job without a uid (a manifest not
/// applied, as in a preview), one no object controls.
fn controlled_by(controller: Option<&str>, job: &ElasticJob) -> bool {
    let uid = job.metadata.uid.as_deref().filter(|u| !u.is_empty());
    match (controller, uid) {
        (Some(owner), Some(uid)) => owner == uid,
        (None, None) => true,
        _ => false,
    }
}

/// Whether the job controls `object` (any Kubernetes object, as JSON), by the rule the planner
/// applies to the services it observes: its controller owner reference is the job, by uid. A
/// host asks this of an object it found in the way of one the plan creates (a create answered
/// `409 AlreadyExists`) before it writes over it: an object the job does not control, one with
/// no controller among them, is never written over.
pub fn job_controls(job: &ElasticJob, object: &serde_json::Value) -> bool {
    let references = object.pointer("/metadata/ownerReferences").and_then(serde_json::Value::as_array);
    let controller = references
        .into_iter()
        .flatten()
        .find(|r| r.get("controller").and_then(serde_json::Value::as_bool) == Some(true))
        .map(|r| r.get("uid").and_then(serde_json::Value::as_str).unwrap_or_default());
    controlled_by(controller, job)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(uid: Option<&str>) -> ElasticJob {
        let mut job = ElasticJob::default();
        job.metadata.name = Some("j".into());
        job.metadata.namespace = Some("ns".into());
        job.metadata.uid = uid.map(str::to_owned);
        job
    }

    fn service(value: serde_json::Value) -> Service {
        serde_json::from_value(value).unwrap_or_default()
    }

    fn rank_service(owner: Option<&str>) -> Service {
        let owners: Vec<serde_json::Value> = owner
            .map(|uid| {
                serde_json::json!({"apiVersion": "elastic.iml.github.io/v1alpha1", "kind": "ElasticJob",
                "name": "j", "uid": uid, "controller": true})
            })
            .into_iter()
            .collect();
        service(serde_json::json!({"metadata": {"name": "j-edljob-worker-2", "namespace": "ns",
            "ownerReferences": owners,
            "labels": {"app": "dlrover", "elasticjob.dlrover/name": "j",
                "elasticjob.dlrover/replica-type": "worker", "elasticjob.dlrover/rank-index": "2"}}}))
    }

    #[test]
    fn a_task_service_is_the_jobs_only_when_the_job_owns_it() {
        let owned = rank_service(Some("u1"));
        assert_eq!(name(&owned), "j-edljob-worker-2");
        assert_eq!(owned_task_rank(&owned, &job(Some("u1"))), Some((ReplicaType::Worker, 2)));
        assert_eq!(owned_task_rank(&owned, &job(Some("u2"))), None, "an earlier job's of the same name");
        assert_eq!(owned_task_rank(&rank_service(None), &job(Some("u1"))), None, "nobody's: not the job's");
        assert_eq!(owned_task_rank(&rank_service(None), &job(None)), Some((ReplicaType::Worker, 2)), "a preview's");
        assert_eq!(owned_task_rank(&owned, &job(None)), None);
        let mut elsewhere = rank_service(Some("u1"));
        elsewhere.metadata.namespace = Some("other".into());
        assert!(!in_namespace_of(&elsewhere, &job(Some("u1"))));
        assert_eq!(owned_task_rank(&elsewhere, &job(Some("u1"))), None);
        let mut master = rank_service(Some("u1"));
        if let Some(labels) = master.metadata.labels.as_mut() {
            labels.insert(naming::LABEL_REPLICA_TYPE.into(), "dlrover-master".into());
        }
        assert_eq!(owned_task_rank(&master, &job(Some("u1"))), None, "the master's is never a rank's");
    }

    #[test]
    fn an_object_in_the_way_is_written_over_only_when_the_job_controls_it() {
        let with = |refs: serde_json::Value| serde_json::json!({"metadata": {"name": "s", "ownerReferences": refs}});
        let job_ref = |controller: Option<bool>| {
            let mut r = serde_json::json!({"apiVersion": "elastic.iml.github.io/v1alpha1", "kind": "ElasticJob", "name": "j", "uid": "u1"});
            if let Some(c) = controller {
                r["controller"] = c.into();
            }
            r
        };
        assert!(job_controls(&job(Some("u1")), &with(serde_json::json!([job_ref(Some(true))]))));
        assert!(!job_controls(&job(Some("u2")), &with(serde_json::json!([job_ref(Some(true))]))), "an earlier job's");
        // DLRover's master names the job as an owner without `controller`: nobody controls it.
        assert!(!job_controls(&job(Some("u1")), &with(serde_json::json!([job_ref(None)]))));
        assert!(!job_controls(&job(Some("u1")), &with(serde_json::json!([job_ref(Some(false))]))));
        assert!(!job_controls(&job(Some("u1")), &serde_json::json!({"metadata": {"name": "s"}})), "nobody's");
        assert!(job_controls(&job(None), &serde_json::json!({"metadata": {"name": "s"}})), "a preview's");
        assert!(!job_controls(&job(None), &with(serde_json::json!([job_ref(Some(true))]))));
    }
}
