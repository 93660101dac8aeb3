//! A cluster that carries plans out, and what must hold of its pods: used by the tests (through
//! tests/common) and by the fuzz targets (fuzz/src/reconcile.rs includes this file).

use std::collections::BTreeSet;

use elasticjob::podspec::Pod;
use elasticjob::{Action, LABEL_JOB_NAME, LABEL_RANK_INDEX, LABEL_REPLICA_TYPE, Plan, ReplicaType, ScalePlan};

/// Carries a plan out phase by phase, as the controller does: created pods appear in phase
/// Pending, deleted pods vanish (this cluster keeps no services).
pub fn apply(pods: &mut Vec<Pod>, plan: &Plan) {
    for action in plan.actions() {
        match action {
            Action::CreatePod { pod, .. } => {
                let name = pod.metadata.name.clone();
                if !pods.iter().any(|p| p.metadata.name == name) {
                    let mut pod = pod.as_ref().clone();
                    pod.status = serde_json::from_value(serde_json::json!({"phase": "Pending"})).ok();
                    pods.push(pod);
                }
            }
            Action::DeletePod { name, .. } => pods.retain(|p| p.metadata.name.as_deref() != Some(name.as_str())),
            _ => {}
        }
    }
}

/// Pod names are unique, and no two live task pods of job `job` share a type and rank, but where
/// one of them is a pod the plan's `createPods` or `migratePods` names: a created pod is made as
/// written, beside the pod it replaces (a PS migration), and a migrated pod runs until its
/// replacement does.
pub fn unique(pods: &[Pod], plan: Option<&ScalePlan>, job: &str) -> Result<(), String> {
    let listed: BTreeSet<String> = plan
        .into_iter()
        .flat_map(|p| p.spec.create_pods.iter().chain(&p.spec.migrate_pods))
        .filter_map(|m| m.pod_name(job))
        .collect();
    let mut names = BTreeSet::new();
    let mut ranks = BTreeSet::new();
    for p in pods {
        if !names.insert(p.metadata.name.clone()) {
            return Err(format!("two pods named {:?}", p.metadata.name));
        }
        if label(p, LABEL_JOB_NAME) != Some(job) {
            continue;
        }
        if let Some((t, r)) = type_and_rank(p) {
            let by_plan = p.metadata.name.as_ref().is_some_and(|n| listed.contains(n));
            if t != ReplicaType::DlroverMaster && is_alive(p) && !by_plan && !ranks.insert((t, r)) {
                return Err(format!("two live {t} pods at rank {r}"));
            }
        }
    }
    Ok(())
}

/// A label of a pod.
pub fn label<'p>(p: &'p Pod, key: &str) -> Option<&'p str> {
    p.metadata.labels.as_ref()?.get(key).map(String::as_str)
}

/// The replica type and rank a pod's labels give it, as the operator labels its pods.
pub fn type_and_rank(p: &Pod) -> Option<(ReplicaType, i32)> {
    let t = ReplicaType::parse(label(p, LABEL_REPLICA_TYPE)?)?;
    Some((t, label(p, LABEL_RANK_INDEX)?.parse().ok()?))
}

/// Whether a pod is live: Running, Pending or Succeeded, and not being deleted (the pods a
/// rank may have only one of).
pub fn is_alive(p: &Pod) -> bool {
    let phase = p.status.as_ref().and_then(|s| s.phase());
    p.metadata.deletion_timestamp.is_none() && matches!(phase, Some("Running" | "Pending" | "Succeeded"))
}
