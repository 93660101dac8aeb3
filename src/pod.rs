//! What an observed pod says about itself, read from its labels, spec and status: its replica
//! type, id and rank, its relaunch counts, its phase and whether it is alive, its resource, and the
//! `TF_CONFIG` it was given.
//!
//! Every rule here is the one the planner, the preview and the tests use; none is written twice.

use crate::podspec::{Container, Pod};

use crate::api::{ReplicaType, ResourceList};
use crate::naming;
use crate::quantity::Amount;

/// The value of one of the pod's labels.
pub fn label<'p>(pod: &'p Pod, key: &str) -> Option<&'p str> {
    pod.metadata.labels.as_ref()?.get(key).map(String::as_str)
}

/// The pod's name (empty when it has none).
pub fn name(pod: &Pod) -> &str {
    pod.metadata.name.as_deref().unwrap_or_default()
}

/// The replica type a pod's label names.
pub fn pod_type(pod: &Pod) -> Option<ReplicaType> {
    label(pod, naming::LABEL_REPLICA_TYPE).and_then(ReplicaType::parse)
}

/// The pod id its `replica-index` label holds.
pub fn pod_id(pod: &Pod) -> Option<i32> {
    label(pod, naming::LABEL_REPLICA_INDEX)?.parse().ok()
}

/// The rank its `rank-index` label holds.
pub fn pod_rank(pod: &Pod) -> Option<i32> {
    label(pod, naming::LABEL_RANK_INDEX)?.parse().ok()
}

/// The relaunches its `restart-count` label says are left for its rank: `None` without the
/// label, 0 for a value that is not a number (a budget nobody can read is no budget).
pub fn restarts_left(pod: &Pod) -> Option<i32> {
    label(pod, naming::LABEL_RESTART_COUNT).map(|v| v.parse().unwrap_or(0))
}

/// How often its rank has been relaunched, by its `relaunch-count` label: `None` without the label,
/// 0 for a value that is not a number.
pub fn relaunch_count(pod: &Pod) -> Option<i32> {
    label(pod, naming::LABEL_RELAUNCH_COUNT).map(|v| v.parse().unwrap_or(0))
}

/// The pod phase; `Pending` for a pod without one. The API server gives every pod it stores a
/// phase, `Pending` when it is created (`PrepareForCreate` in `pkg/registry/core/pod/strategy.go`),
/// so a pod without one is one this controller has just made (its own object, when the create found
/// the name taken): a pod that is there, not yet started.
pub fn pod_phase(pod: &Pod) -> &str {
    pod.status.as_ref().and_then(|s| s.phase()).unwrap_or("Pending")
}

/// Whether the pod is being deleted.
pub fn is_terminating(pod: &Pod) -> bool {
    pod.metadata.deletion_timestamp.is_some()
}

/// Whether a disruption ended the pod: its condition `DisruptionTarget` is true, as Kubernetes
/// sets it on a pod it preempts, evicts, or deletes with its node.
pub fn is_disrupted(pod: &Pod) -> bool {
    pod.status.as_ref().is_some_and(|s| s.has_condition("DisruptionTarget", "True"))
}

/// Whether the pod is alive: Running, Pending or Succeeded, and not being deleted.
pub fn is_alive(pod: &Pod) -> bool {
    !is_terminating(pod) && matches!(pod_phase(pod), "Running" | "Pending" | "Succeeded")
}

/// Whether stopping the pod means deleting it: Running or Pending, and not being deleted.
pub fn is_stoppable(pod: &Pod) -> bool {
    !is_terminating(pod) && matches!(pod_phase(pod), "Running" | "Pending")
}

/// A container's resource: its requests, else its limits (the rule for templates and pods alike).
pub fn container_resource(container: &Container) -> ResourceList {
    let resources = container.resources.as_ref();
    resources
        .and_then(|r| r.requests.clone().filter(|m| !m.is_empty()).or_else(|| r.limits.clone()))
        .unwrap_or_default()
}

/// The pod's first (training) container.
pub fn main_container(pod: &Pod) -> Option<&Container> {
    pod.spec.as_ref()?.containers.first()
}

/// The first container's resource ([`container_resource`]).
pub fn resource(pod: &Pod) -> ResourceList {
    main_container(pod).map(container_resource).unwrap_or_default()
}

/// Whether every resource of `target` equals the pod's (as quantities: `1Gi` equals `1024Mi`).
pub fn has_resource(pod: &Pod, target: &ResourceList) -> bool {
    let current = resource(pod);
    target.iter().all(|(name, want)| {
        let have = current.get(name).and_then(|q| Amount::parse(&q.0).ok());
        have.is_some() && have == Amount::parse(&want.0).ok()
    })
}

/// The `TF_CONFIG` value the pod's first container was given, as written.
pub fn tf_config(pod: &Pod) -> Option<&str> {
    let env = main_container(pod)?.env.as_ref()?;
    env.iter().find(|e| e.name == naming::ENV_TF_CONFIG)?.value.as_deref()
}

#[cfg(test)]
mod tests {
    use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

    use super::*;

    fn pod(value: serde_json::Value) -> Pod {
        serde_json::from_value(value).unwrap_or_default()
    }

    fn worker(phase: &str) -> Pod {
        pod(serde_json::json!({
            "metadata": {"name": "j-edljob-worker-4", "labels": {
                "elasticjob.dlrover/replica-type": "worker",
                "elasticjob.dlrover/replica-index": "4",
                "elasticjob.dlrover/rank-index": "1",
                "restart-count": "2", "elasticjob.dlrover/relaunch-count": "3"}},
            "spec": {"containers": [{"name": "main", "resources": {
                "requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "2Gi"}},
                "env": [{"name": "A", "value": "1"}, {"name": "TF_CONFIG", "value": "{}"}]}]},
            "status": {"phase": phase}
        }))
    }

    #[test]
    fn identity_from_labels() {
        let p = worker("Running");
        assert_eq!(name(&p), "j-edljob-worker-4");
        assert_eq!(pod_type(&p), Some(ReplicaType::Worker));
        assert_eq!((pod_id(&p), pod_rank(&p), restarts_left(&p)), (Some(4), Some(1), Some(2)));
        assert_eq!((relaunch_count(&p), relaunch_count(&Pod::default())), (Some(3), None));
        let bare = Pod::default();
        assert_eq!((pod_type(&bare), pod_id(&bare), pod_rank(&bare), restarts_left(&bare)), (None, None, None, None));
        let mut garbled = worker("Running");
        if let Some(labels) = garbled.metadata.labels.as_mut() {
            labels.insert("restart-count".into(), "many".into());
            labels.insert("elasticjob.dlrover/rank-index".into(), "-x".into());
        }
        assert_eq!((pod_rank(&garbled), restarts_left(&garbled)), (None, Some(0)));
    }

    #[test]
    fn phases() {
        for (phase, alive, stoppable) in [
            ("Running", true, true),
            ("Pending", true, true),
            ("Succeeded", true, false),
            ("Failed", false, false),
            ("Unknown", false, false),
        ] {
            let p = worker(phase);
            assert_eq!((is_alive(&p), is_stoppable(&p)), (alive, stoppable), "{phase}");
        }
        let mut deleting = worker("Running");
        deleting.metadata.deletion_timestamp = Some(crate::podspec::Time::UNIX_EPOCH);
        assert!(is_terminating(&deleting) && !is_alive(&deleting) && !is_stoppable(&deleting));
    }

    #[test]
    fn resource_is_requests_else_limits() {
        let p = worker("Running");
        assert_eq!(resource(&p).get("memory").map(|q| q.0.as_str()), Some("1Gi"));
        let limits_only = pod(serde_json::json!({"spec": {"containers": [{"name": "m",
            "resources": {"requests": {}, "limits": {"memory": "3Gi"}}}]}}));
        assert_eq!(resource(&limits_only).get("memory").map(|q| q.0.as_str()), Some("3Gi"));
        let want: ResourceList = [("memory".to_owned(), Quantity("1024Mi".into()))].into();
        assert!(has_resource(&p, &want));
        assert!(!has_resource(&limits_only, &want));
    }

    #[test]
    fn tf_config_is_the_first_containers_env() {
        assert_eq!(tf_config(&worker("Running")), Some("{}"));
        assert_eq!(tf_config(&Pod::default()), None);
    }
}
