//! Multi-pass scenarios of the job controller, carried out against a simulated cluster.
// A test crate: its helpers outside #[test] functions may unwrap, as the tests do
// (the workspace lints deny it in shipped code; clippy.toml allows it in #[test] functions).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod common;

use elasticjob::validate::MAX_TF_CONFIG_HOSTS;
use elasticjob::{Action, JobConditionType, Options, ReplicaType, parse, reconcile};
use serde_json::json;

fn set_phase(pods: &mut [elasticjob::podspec::Pod], name: &str, phase: &str) {
    let pod = pods.iter_mut().find(|p| p.metadata.name.as_deref() == Some(name)).unwrap();
    pod.status = Some(serde_json::from_value(json!({"phase": phase})).unwrap());
}

#[test]
fn a_large_scale_up_is_created_over_several_passes() {
    let mut job = common::job("big", Some(1), Some(1), None, None);
    job.status = Some(serde_json::from_value(json!({"phase": "Scaling", "scalePlan": "big-1"})).unwrap());
    let mut plan = parse::scale_plan(json!({
        "metadata": {"name": "big-1"},
        "spec": {"ownerJob": "big", "replicaResourceSpecs": {"worker": {"replicas": 2500}}},
        "status": {"phase": "Pending"}
    }))
    .unwrap();
    let mut master = common::pod("big", ReplicaType::DlroverMaster, 0, 0, "Running");
    master.metadata.name = Some("elasticjob-big-dlrover-master".into());
    let mut pods = vec![
        master,
        common::pod("big", ReplicaType::Ps, 0, 0, "Running"),
        common::pod("big", ReplicaType::Worker, 0, 0, "Running"),
    ];
    let now = parse::time("2026-01-01T00:00:00Z").unwrap();
    let mut passes = 0;
    while plan.status.as_ref().unwrap().phase != Some(JobConditionType::Succeeded) {
        passes += 1;
        assert!(passes <= 3, "the plan is not done after 3 passes");
        let out = reconcile(&job, Some(&plan), &pods, &now, &Options::default()).unwrap();
        let hosts: usize = out
            .created_pods()
            .map(|p| elasticjob::pod_tf_config(p).unwrap())
            .map(|c| c.cluster.worker.len() + c.cluster.ps.len() + c.cluster.chief.len())
            .sum();
        assert!(hosts as u64 <= MAX_TF_CONFIG_HOSTS, "pass {passes} lists {hosts} addresses");
        common::apply(&mut pods, &out);
        common::apply_status(&mut job, &out);
        for action in out.actions() {
            if let Action::SetScalePlanStatus { status, .. } = action {
                plan.status = Some(status.clone());
            }
        }
    }
    assert!(passes >= 2);
    let workers: std::collections::BTreeSet<i32> = pods
        .iter()
        .filter_map(common::type_and_rank)
        .filter(|(t, _)| *t == ReplicaType::Worker)
        .map(|(_, rank)| rank)
        .collect();
    assert_eq!(workers, (0..2500).collect());
}

#[test]
fn a_migration_replaces_the_pod_then_removes_it() {
    let job = common::job("mig", Some(1), Some(1), None, None);
    let plan = parse::scale_plan(json!({
        "metadata": {"name": "mig-1"},
        "spec": {"ownerJob": "mig", "migratePods": [{"name": "mig-edljob-ps-0", "resource": {"cpu": "4", "memory": "8Gi"}}]}
    }))
    .unwrap();
    let mut pods = vec![common::pod("mig", ReplicaType::Ps, 0, 0, "Running")];
    let pass =
        |pods: &Vec<_>| elasticjob::reconcile_pods(&job, ReplicaType::Ps, &plan, pods, &Options::default()).unwrap();

    let first = pass(&pods);
    let created: Vec<_> = first.created_pods().collect();
    assert_eq!(created.len(), 1);
    let replacement = created[0].metadata.name.clone().unwrap();
    assert_eq!(replacement, "mig-edljob-ps-1");
    assert_eq!(common::type_and_rank(created[0]), Some((ReplicaType::Ps, 0)));
    common::apply(&mut pods, &first);

    assert!(pass(&pods).is_empty(), "the old pod stays until its replacement runs");
    set_phase(&mut pods, &replacement, "Running");
    let third = pass(&pods);
    assert_eq!(third.deleted_pods().collect::<Vec<_>>(), ["mig-edljob-ps-0"]);
    common::apply(&mut pods, &third);
    assert!(pass(&pods).is_empty());
}

/// A worker that fails again and again: the core never relaunches it by itself; each relaunch plan
/// DLRover's master writes (one `createPods` entry at the failed pod's rank, under the next pod id,
/// as `DistributedJobManager._relaunch_node` does) gives exactly one live pod at the rank, counting
/// one relaunch more each time.
#[test]
fn each_relaunch_plan_of_the_master_gives_one_pod_counting_its_relaunches() {
    let job = common::job("rb", Some(1), Some(2), None, None);
    let mut pods = vec![
        common::pod("rb", ReplicaType::Worker, 0, 0, "Running"),
        common::pod("rb", ReplicaType::Worker, 1, 1, "Failed"),
    ];
    let options = Options::default();
    let mut launched = Vec::new();
    for relaunch in 0..3 {
        let faults = elasticjob::handle_fault_pods(&job, ReplicaType::Worker, &pods, &options).unwrap();
        assert!(faults.is_empty(), "the core relaunches nothing by itself: {faults:?}");
        let id = 2 + relaunch;
        let plan = parse::scale_plan(json!({
            "metadata": {"name": format!("rb-scaleplan-{}", relaunch + 1), "labels": {"scale-type": "auto"}},
            "spec": {"ownerJob": "rb", "replicaResourceSpecs": {}, "removePods": [], "psHosts": ["rb-edljob-ps-0.default.svc:2222"],
                "createPods": [{"name": format!("rb-edljob-worker-{id}"), "type": "worker", "id": id, "rankIndex": 1,
                    "service": "rb-edljob-worker-1.default.svc:3333", "resource": {"cpu": "1.0", "memory": "1024Mi"}}]}
        }))
        .unwrap();
        let out = elasticjob::reconcile_pods(&job, ReplicaType::Worker, &plan, &pods, &options).unwrap();
        let created: Vec<_> = out.created_pods().collect();
        assert_eq!(created.len(), 1, "one pod for one relaunch: {out:?}");
        let labels = created[0].metadata.labels.clone().unwrap();
        launched.push((created[0].metadata.name.clone().unwrap(), labels["elasticjob.dlrover/relaunch-count"].clone()));
        common::apply(&mut pods, &out);
        assert!(elasticjob::reconcile_pods(&job, ReplicaType::Worker, &plan, &pods, &options).unwrap().is_empty());
        set_phase(&mut pods, &format!("rb-edljob-worker-{id}"), "Failed");
    }
    assert_eq!(
        launched,
        [("rb-edljob-worker-2", "1"), ("rb-edljob-worker-3", "2"), ("rb-edljob-worker-4", "3")]
            .map(|(n, c)| (n.to_owned(), c.to_owned()))
    );
}

/// Issue 46: a job the core refuses (here a worker running as the masters' ServiceAccount) gets
/// its `Refused` condition and one Warning event, nothing else; the same refusal again changes
/// nothing; once corrected, its pass makes its master and sets the condition false.
#[test]
fn a_refused_job_says_why_in_its_status_once_and_clears_it_when_corrected() {
    let mut job = common::job("acct", Some(1), Some(1), None, None);
    let worker = job.spec.replica_specs.get_mut(&ReplicaType::Worker).unwrap();
    worker.template.spec.as_mut().unwrap().service_account_name = Some("elasticjob-dlrover-master".into());
    let now = parse::time("2026-01-01T00:00:00Z").unwrap();
    let gates = elasticjob::Gates::default();
    let error =
        elasticjob::controller_pass_queued(Some(&job), &[], &[], &[], gates, &now, &Options::default()).unwrap_err();
    let refused = elasticjob::refused_job(job.status.as_ref(), &error, &now);
    let actions: Vec<&Action> = refused.actions().collect();
    let [Action::SetJobStatus { status, event: Some(event), .. }] = actions.as_slice() else { panic!("{actions:?}") };
    assert_eq!((event.type_.as_str(), event.reason.as_str()), ("Warning", "InvalidJob"));
    assert!(
        event.message.starts_with("cannot be planned: spec.replicaSpecs.worker.template.spec.serviceAccountName: ")
    );
    let condition = status.status.as_ref().unwrap().conditions.iter().find(|c| c.type_ == JobConditionType::Refused);
    let condition = condition.unwrap();
    assert_eq!((condition.reason.as_str(), &condition.message), ("InvalidJob", &event.message));
    assert_eq!(status.phase, None, "beside the phase, never as it");
    job.status = Some(status.clone());
    assert!(elasticjob::refused_job(job.status.as_ref(), &error, &now).is_empty(), "said once");
    // Corrected: planned again, its master made, the condition false.
    let worker = job.spec.replica_specs.get_mut(&ReplicaType::Worker).unwrap();
    worker.template.spec.as_mut().unwrap().service_account_name = None;
    let plan = elasticjob::controller_pass_queued(Some(&job), &[], &[], &[], gates, &now, &Options::default()).unwrap();
    assert!(plan.actions().any(|a| matches!(a, Action::CreatePod { .. })));
    let status = plan
        .actions()
        .find_map(|a| match a {
            Action::SetJobStatus { status, .. } => Some(status.clone()),
            _ => None,
        })
        .unwrap();
    let condition =
        status.status.unwrap().conditions.into_iter().find(|c| c.type_ == JobConditionType::Refused).unwrap();
    assert_eq!((condition.status, condition.reason.as_str()), (elasticjob::api::ConditionStatus::False, "JobAccepted"));
}

/// A new job given a plan it has not taken up (its status names none) makes the pods of its
/// master's first plan, each `TF_CONFIG` listing that plan's parameter servers: a plan lays the
/// tasks out only once the job names it, as in `controller_pass`.
#[test]
fn a_new_job_lays_its_pods_out_by_its_masters_first_plan_until_it_names_one() {
    let job = common::job("new", Some(3), Some(2), None, None);
    let plan = parse::scale_plan(json!({
        "metadata": {"name": "new-1"},
        "spec": {"ownerJob": "new", "replicaResourceSpecs": {"ps": {"replicas": 1}}}
    }))
    .unwrap();
    let now = parse::time("2026-01-01T00:00:00Z").unwrap();
    let out = reconcile(&job, Some(&plan), &[], &now, &Options::default()).unwrap();
    let ps_lists: Vec<usize> =
        out.created_pods().filter_map(elasticjob::pod_tf_config).map(|c| c.cluster.ps.len()).collect();
    let ps_pods =
        out.created_pods().filter(|p| common::type_and_rank(p).is_some_and(|(t, _)| t == ReplicaType::Ps)).count();
    assert_eq!(ps_pods, 3);
    assert!(!ps_lists.is_empty() && ps_lists.iter().all(|n| *n == 3), "{ps_lists:?}");
}

/// A pod that has Succeeded runs no more: a plan that migrates it gets it no replacement (which
/// would run its task again, and which a scale-down counting the finished ranks would stop, pass
/// after pass).
#[test]
fn a_finished_pod_is_not_migrated() {
    let job = common::job("done", Some(1), Some(2), None, None);
    let plan = parse::scale_plan(json!({
        "metadata": {"name": "done-1"},
        "spec": {"ownerJob": "done", "replicaResourceSpecs": {"worker": {"replicas": 2}},
                 "migratePods": [{"name": "done-edljob-worker-0", "resource": {"memory": "2Gi"}}]}
    }))
    .unwrap();
    let pods = vec![
        common::pod("done", ReplicaType::Ps, 0, 0, "Running"),
        common::pod("done", ReplicaType::Worker, 0, 0, "Succeeded"),
        common::pod("done", ReplicaType::Worker, 1, 1, "Running"),
    ];
    let out = elasticjob::reconcile_pods(&job, ReplicaType::Worker, &plan, &pods, &Options::default()).unwrap();
    assert!(out.is_empty(), "{out:?}");
    // Running, it is replaced.
    let mut pods = pods;
    set_phase(&mut pods, "done-edljob-worker-0", "Running");
    let out = elasticjob::reconcile_pods(&job, ReplicaType::Worker, &plan, &pods, &Options::default()).unwrap();
    assert_eq!(out.created_pods().count(), 1, "{out:?}");
}
