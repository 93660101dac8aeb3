//! A queued job's Workload slices (issue 49): under Kueue's `ElasticJobsViaWorkloadSlices`
//! gate a job annotated `kueue.x-k8s.io/elastic-job: "true"` grows beyond its admission by a new
//! Workload that replaces the admitted one ([`new_slice`]); which of the job's Workloads the pass
//! runs by ([`pick`]). What the pass writes of them is [`super::kueue::Gate`]'s.

use std::collections::BTreeMap;

use crate::podspec::ObjectMeta;

use crate::api::{ElasticJob, ReplicaType, ScalePlan};
use crate::workload::{
    ADMITTED, ANNOTATION_ELASTIC_JOB, ANNOTATION_REPLACEMENT_FOR, ANNOTATION_SLICE_NAME, EVICTED, FINISHED,
    KIND_WORKLOAD, REASON_SLICE_REPLACED, WORKLOAD_API_VERSION, Workload,
};
use crate::{queue, sorted};

/// The job's slices picked for the pass (see [`pick`]).
pub(super) struct Picked<'w> {
    /// The slice whose admission the job runs by (or waits for, held).
    pub(super) current: Option<&'w Workload>,
    /// A newer slice waiting for quota.
    pub(super) pending: Option<&'w Workload>,
    /// Unfinished slices to finish: older than one holding quota, or beside the pending one.
    pub(super) stale: Vec<&'w Workload>,
    /// Kueue finished `current` as replaced by `pending` and has not admitted `pending` yet.
    pub(super) replacing: bool,
}

/// The job's slices (oldest first) as the pass takes them: the newest unfinished slice holding
/// quota is current, a newer unfinished one pending (Kueue finishes the one it replaces when it
/// admits it: `replaceWorkloadSlice` in `pkg/scheduler/scheduler.go`), the others unfinished
/// are stale. With no slice holding quota: a newest slice that never held quota, replacing one
/// Kueue finished as `WorkloadSliceReplaced`, is pending, the finished one current (Kueue 0.17.0
/// writes the finish before the admission); one replacing an unfinished slice is pending beside it; else the newest
/// unfinished is current, held as any Workload waiting for admission (a slice that held quota once,
/// evicted and released, too); with every slice finished,
/// the newest.
pub(super) fn pick<'w>(mine: &[&'w Workload]) -> Picked<'w> {
    let unfinished: Vec<&Workload> = mine.iter().copied().filter(|w| !w.is_true(FINISHED)).collect();
    let others = |keep: &[Option<&Workload>]| -> Vec<&'w Workload> {
        unfinished.iter().copied().filter(|w| !keep.iter().flatten().any(|k| std::ptr::eq(*k, *w))).collect()
    };
    if let Some(at) = unfinished.iter().rposition(|w| w.has_quota()) {
        let current = unfinished.get(at).copied();
        let pending = unfinished.get(at.saturating_add(1)..).and_then(<[_]>::last).copied();
        return Picked { current, pending, stale: others(&[current, pending]), replacing: false };
    }
    let Some(newest) = unfinished.last().copied() else {
        return Picked { current: mine.last().copied(), pending: None, stale: Vec::new(), replacing: false };
    };
    let replaced = newest.annotation(ANNOTATION_REPLACEMENT_FOR).and_then(|key| {
        mine.iter()
            .copied()
            .find(|w| !std::ptr::eq(*w, newest) && key.rsplit_once('/').map(|(_, n)| n) == w.metadata.name.as_deref())
    });
    match replaced {
        Some(old) if old.is_true(FINISHED) => {
            let by_kueue = old.condition(FINISHED).is_some_and(|c| c.reason == REASON_SLICE_REPLACED);
            // Only a slice that never held quota: one admitted, then evicted and released, has
            // `Admitted` (false, `NoReservation`) and `Evicted`, and waits as any Workload.
            let never_admitted = newest.condition(ADMITTED).is_none() && newest.condition(EVICTED).is_none();
            if by_kueue && never_admitted {
                let pending = Some(newest);
                Picked { current: Some(old), pending, stale: others(&[pending]), replacing: true }
            } else {
                let current = Some(newest);
                Picked { current, pending: None, stale: others(&[current]), replacing: false }
            }
        }
        Some(old) => {
            let (current, pending) = (Some(old), Some(newest));
            Picked { current, pending, stale: others(&[current, pending]), replacing: false }
        }
        None => {
            let current = Some(newest);
            Picked { current, pending: None, stale: others(&[current]), replacing: false }
        }
    }
}

/// Whether a job opts in to Kueue's Workload slices: annotated `kueue.x-k8s.io/elastic-job:
/// "true"` (`workloadslicing.Enabled` in `pkg/workloadslicing/workloadslicing.go`).
pub(super) fn opts_in(job: &ElasticJob) -> bool {
    job.metadata.annotations.as_ref().and_then(|a| a.get(ANNOTATION_ELASTIC_JOB)).map(String::as_str) == Some("true")
}

/// A Workload's slice number among the job's ([`queue::slice_number`]).
pub(super) fn slice_of(job: &ElasticJob, w: &Workload) -> u32 {
    w.metadata.name.as_deref().and_then(|n| queue::slice_number(job, n)).unwrap_or(1)
}

/// The task types whose pods a pod set counts, the first its own: a chief made from the worker's
/// template (the job declares none) is in the worker pod set. `None` for the master's and an
/// unknown name.
pub(super) fn pod_set_types(job: &ElasticJob, name: &str) -> Option<&'static [ReplicaType]> {
    let own_chief = job.declared_replica_spec(ReplicaType::Chief).is_some();
    match ReplicaType::parse(name)? {
        ReplicaType::DlroverMaster => None,
        ReplicaType::Worker if !own_chief => Some(&[ReplicaType::Worker, ReplicaType::Chief]),
        ReplicaType::Worker => Some(&[ReplicaType::Worker]),
        ReplicaType::Ps => Some(&[ReplicaType::Ps]),
        ReplicaType::Chief => Some(&[ReplicaType::Chief]),
        ReplicaType::Evaluator => Some(&[ReplicaType::Evaluator]),
    }
}

/// The pod-set counts a plan asks of the slice `w`: each task pod set the plan names, its
/// `replicas` (a chief made from the worker's template counts in the worker pod set), never
/// below the slice's own count; pod sets the plan does not name keep theirs.
pub(super) fn grown_counts(job: &ElasticJob, w: &Workload, plan: &ScalePlan) -> BTreeMap<String, i32> {
    let own_chief = job.declared_replica_spec(ReplicaType::Chief).is_some();
    let specs = &plan.spec.replica_resource_specs;
    let mut counts = BTreeMap::new();
    for set in &w.spec.pod_sets {
        let Some(types) = pod_set_types(job, &set.name) else { continue };
        let named: Vec<i32> = types
            .iter()
            .filter_map(|t| {
                specs
                    .get(t)
                    .map(|s| if *t == ReplicaType::Chief && !own_chief { s.replicas.min(1) } else { s.replicas })
            })
            .collect();
        if named.is_empty() {
            continue;
        }
        let wanted = named.iter().fold(0_i32, |n, m| n.saturating_add(*m)).max(0);
        counts.insert(set.name.clone(), wanted.max(set.count));
    }
    counts
}

/// The `n`-th slice of the job, replacing `w`: `w`'s spec as stored (pod sets in their order with
/// their templates, `queueName`, `priorityClassRef` and the stored `priority`: a higher one could
/// have Kueue preempt `w` for its own successor) with the counts raised, owned as `w`, labelled
/// with the job's name, and annotated as Kueue's job integrations annotate a slice
/// (`prepareWorkloadSlice` in `pkg/controller/jobframework/reconciler.go`).
pub(super) fn new_slice(job: &ElasticJob, w: &Workload, counts: &BTreeMap<String, i32>, n: u32) -> Workload {
    let mut spec = w.spec.clone();
    for set in &mut spec.pod_sets {
        if let Some(c) = counts.get(&set.name) {
            set.count = set.count.max(*c);
        }
    }
    let namespace = w.metadata.namespace.clone().filter(|n| !n.is_empty());
    let replaces =
        format!("{}/{}", namespace.as_deref().unwrap_or_default(), w.metadata.name.as_deref().unwrap_or_default());
    Workload {
        api_version: Some(WORKLOAD_API_VERSION.to_owned()),
        kind: Some(KIND_WORKLOAD.to_owned()),
        metadata: ObjectMeta {
            name: Some(queue::slice_name(job, n)),
            namespace,
            labels: Some(sorted::one(crate::naming::LABEL_JOB_NAME.to_owned(), job.name().to_owned())),
            annotations: Some(sorted::map([
                (ANNOTATION_REPLACEMENT_FOR.to_owned(), replaces),
                (ANNOTATION_ELASTIC_JOB.to_owned(), "true".to_owned()),
                (ANNOTATION_SLICE_NAME.to_owned(), queue::workload_name(job)),
            ])),
            owner_references: w.metadata.owner_references.clone(),
            ..Default::default()
        },
        spec,
        status: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job() -> ElasticJob {
        serde_json::from_value(serde_json::json!({"metadata": {"name": "j", "namespace": "ns"}})).unwrap_or_default()
    }

    fn slice(name: &str, conditions: &[(&str, &str, &str)], replaces: Option<&str>) -> Workload {
        let conditions: Vec<_> =
            conditions.iter().map(|(t, s, r)| serde_json::json!({"type": t, "status": s, "reason": r})).collect();
        let annotations = replaces.map(|r| serde_json::json!({ANNOTATION_REPLACEMENT_FOR: format!("ns/{r}")}));
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": name, "namespace": "ns", "annotations": annotations},
            "status": {"conditions": conditions}
        }))
        .unwrap_or_default()
    }

    #[test]
    fn slice_names_are_the_first_workloads_with_a_number() {
        let j = job();
        assert_eq!(queue::slice_number(&j, "elasticjob-j"), Some(1));
        assert_eq!(queue::slice_number(&j, &queue::slice_name(&j, 3)), Some(3));
        // Never another job's Workload: job `j-2`'s is `elasticjob-j-2`.
        assert_eq!(queue::slice_name(&j, 2), "elasticjob-j.2");
        for other in [
            "elasticjob-j.1",
            "elasticjob-j.02",
            "elasticjob-j.x",
            "elasticjob-j.",
            "elasticjob-j-2",
            "elasticjob-jj.2",
        ] {
            assert_eq!(queue::slice_number(&j, other), None, "{other}");
        }
    }

    #[test]
    fn the_pass_runs_by_the_newest_slice_holding_quota() {
        let reserved = ("QuotaReserved", "True", "QuotaReserved");
        let pending = ("QuotaReserved", "False", "Pending");
        let replaced = ("Finished", "True", REASON_SLICE_REPLACED);
        let name = |w: Option<&Workload>| w.and_then(|w| w.metadata.name.clone());
        // Admitted A, B waiting for quota.
        let (a, b) =
            (slice("elasticjob-j", &[reserved], None), slice("elasticjob-j.2", &[pending], Some("elasticjob-j")));
        let picked = pick(&[&a, &b]);
        assert_eq!(
            (name(picked.current), name(picked.pending)),
            (Some("elasticjob-j".into()), Some("elasticjob-j.2".into()))
        );
        assert!(picked.stale.is_empty() && !picked.replacing);
        // Kueue finished A for B and has not admitted B yet: A's admission stands.
        let a_done = slice("elasticjob-j", &[reserved, replaced], None);
        let picked = pick(&[&a_done, &b]);
        assert_eq!(name(picked.current), Some("elasticjob-j".into()));
        assert!(picked.replacing);
        // B holds quota and A is not finished (gate off, or Kueue's finish failed): A is stale.
        let b_in = slice("elasticjob-j.2", &[reserved], Some("elasticjob-j"));
        let picked = pick(&[&a, &b_in]);
        assert_eq!(name(picked.current), Some("elasticjob-j.2".into()));
        assert_eq!(picked.stale.iter().map(|w| name(Some(w))).collect::<Vec<_>>(), [Some("elasticjob-j".into())]);
        // Admitted once, then evicted and released: it waits as any Workload, the job held; the
        // old slice's admission does not stand for it.
        let b_released = slice(
            "elasticjob-j.2",
            &[pending, ("Admitted", "False", "NoReservation"), ("Evicted", "True", "Preempted")],
            Some("elasticjob-j"),
        );
        let picked = pick(&[&a_done, &b_released]);
        assert_eq!((name(picked.current), picked.replacing), (Some("elasticjob-j.2".into()), false));
        // A slice replacing one finished otherwise (the job's own OutOfSync) is an ordinary Workload.
        let a_out = slice("elasticjob-j", &[("Finished", "True", "OutOfSync")], None);
        let picked = pick(&[&a_out, &b]);
        assert_eq!((name(picked.current), picked.replacing), (Some("elasticjob-j.2".into()), false));
    }
}
