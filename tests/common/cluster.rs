//! A cluster that carries plans out, and what must hold of its pods: used by the tests (through
//! tests/common) and by the fuzz targets (fuzz/src/reconcile.rs includes this file).

use std::collections::BTreeSet;

use elasticjob::{Action, Plan, ReplicaType, ScalePlan, naming, pod};
use k8s_openapi::api::core::v1::{Pod, PodStatus};

/// Carries a plan out phase by phase, as the controller does: created pods appear in phase
/// Pending, deleted pods vanish (this cluster keeps no services).
pub fn apply(pods: &mut Vec<Pod>, plan: &Plan) {
    for action in plan.actions() {
        match action {
            Action::CreatePod { pod, .. } => {
                let name = pod.metadata.name.clone();
                if !pods.iter().any(|p| p.metadata.name == name) {
                    let mut pod = pod.as_ref().clone();
                    pod.status = Some(PodStatus { phase: Some("Pending".into()), ..PodStatus::default() });
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
        if pod::label(p, naming::LABEL_JOB_NAME) != Some(job) {
            continue;
        }
        if let (Some(t), Some(r)) = (pod::pod_type(p), pod::pod_rank(p)) {
            let by_plan = listed.contains(pod::name(p));
            if t != ReplicaType::DlroverMaster && pod::is_alive(p) && !by_plan && !ranks.insert((t, r)) {
                return Err(format!("two live {t} pods at rank {r}"));
            }
        }
    }
    Ok(())
}
