//! TF_CONFIG of every role: it parses, the task's index exists in its job's list, there is at most
//! one chief, and no job list is null. (The same strings are read back by TensorFlow's own
//! `TFConfigClusterResolver` in `make test-consumers`.)
// A test crate: its helpers outside #[test] functions may unwrap, as the tests do
// (the workspace lints deny it in shipped code; clippy.toml allows it in #[test] functions).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing, clippy::unreachable)]

mod common;

use elasticjob::{Object, Options, ReplicaType, parse, render, tfconfig::TfConfig};
use serde_json::Value;

fn check(tf_config: &str, expect_type: ReplicaType, expect_index: u32) {
    let raw: Value = serde_json::from_str(tf_config).unwrap_or_else(|e| panic!("{tf_config}: {e}"));
    let cluster = raw["cluster"].as_object().expect("cluster");
    for (job, list) in cluster {
        assert!(list.is_array(), "{job} is {list} in {tf_config}");
        assert!(list.as_array().unwrap().iter().all(|a| a.as_str().is_some_and(|s| s.contains(':'))), "{tf_config}");
    }
    assert!(cluster["ps"].is_array() && cluster["chief"].is_array(), "ps and chief must be lists: {tf_config}");
    assert!(cluster["chief"].as_array().unwrap().len() <= 1, "two chiefs: {tf_config}");
    let config: TfConfig = serde_json::from_str(tf_config).unwrap();
    assert_eq!((config.task.type_, config.task.index), (expect_type, expect_index));
    let list = match expect_type {
        ReplicaType::Worker => &config.cluster.worker,
        ReplicaType::Ps => &config.cluster.ps,
        ReplicaType::Chief => &config.cluster.chief,
        ReplicaType::Evaluator => &config.cluster.evaluator,
        ReplicaType::DlroverMaster => unreachable!(),
    };
    assert!((expect_index as usize) < list.len(), "index {expect_index} missing from {tf_config}");
    assert!(config.cluster.chief.iter().all(|c| c.contains("-edljob-chief-0:")));
}

#[test]
fn every_role_of_every_job() {
    let jobs = [
        common::job("all", Some(3), Some(5), Some(1), Some(1)),
        common::job("nochief", Some(2), Some(4), None, None),
        common::job("onlyps", Some(1), Some(0), None, None),
        common::job("noworker", Some(1), Some(0), Some(1), None),
    ];
    for job in &jobs {
        let list = render(job, None, &Options::default()).unwrap();
        let mut seen = 0;
        for item in &list.items {
            let Object::Pod(pod) = item else { continue };
            let Some((t, rank)) = common::type_and_rank(pod) else { continue };
            if t == ReplicaType::DlroverMaster {
                continue;
            }
            let rank = rank as u32;
            let env = pod.spec.as_ref().unwrap().containers[0].env.as_ref().unwrap();
            let tf = env.iter().find(|e| e.name == "TF_CONFIG").and_then(|e| e.value.as_deref()).unwrap();
            check(tf, t, rank);
            // The core's own accessor gives the same bytes as the pod's env.
            assert_eq!(elasticjob::tf_config(job, t, rank, None).unwrap(), tf);
            seen += 1;
        }
        assert!(seen > 0);
    }
}

#[test]
fn the_chief_is_listed_when_the_job_or_dlrovers_master_has_one() {
    let with = common::job("a", Some(1), Some(2), Some(1), None);
    let c: TfConfig =
        serde_json::from_str(&elasticjob::tf_config(&with, ReplicaType::Worker, 1, None).unwrap()).unwrap();
    assert_eq!(c.cluster.chief, ["a-edljob-chief-0:3333"]);
    // Without a chief, the master runs a worker as the chief (worker 1 of 2 is then worker 0).
    let without = common::job("b", Some(1), Some(2), None, None);
    let c: TfConfig =
        serde_json::from_str(&elasticjob::tf_config(&without, ReplicaType::Worker, 0, None).unwrap()).unwrap();
    assert_eq!(
        (c.cluster.chief, c.cluster.worker),
        (vec!["b-edljob-chief-0:3333".to_owned()], vec!["b-edljob-worker-0:3333".to_owned()])
    );
    // No worker to make it of (0 workers, which the master keeps when it does not scale them): none.
    let mut none = common::job("c", Some(1), Some(0), None, None);
    if let Some(w) = none.spec.replica_specs.get_mut(&ReplicaType::Worker) {
        w.auto_scale = Some(false);
    }
    assert!(elasticjob::tf_config(&none, ReplicaType::Ps, 0, None).unwrap().contains(r#""chief":[]"#));
}

#[test]
fn roles_see_what_they_need() {
    let job = common::job("r", Some(2), Some(4), Some(1), Some(1));
    let get = |t, i| -> TfConfig { serde_json::from_str(&elasticjob::tf_config(&job, t, i, None).unwrap()).unwrap() };
    assert_eq!(get(ReplicaType::Ps, 1).cluster.worker.len(), 4, "a PS sees every worker");
    assert_eq!(get(ReplicaType::Chief, 0).cluster.worker.len(), 4, "the chief sees every worker");
    assert_eq!(
        get(ReplicaType::Worker, 2).cluster.worker,
        ["r-edljob-worker-0:3333", "r-edljob-worker-1:3333", "r-edljob-worker-2:3333"]
    );
    let evaluator = get(ReplicaType::Evaluator, 0);
    assert_eq!(evaluator.cluster.evaluator, ["r-edljob-evaluator-0:3333"]);
    assert!(evaluator.cluster.worker.is_empty());
    assert_eq!(evaluator.cluster.ps, ["r-edljob-ps-0:2222", "r-edljob-ps-1:2222"]);
}

#[test]
fn tasks_that_cannot_be_listed_are_errors() {
    let job = common::job("e", Some(2), Some(2), Some(1), Some(1));
    for (t, index, path) in [
        (ReplicaType::Ps, 2, "spec.psHosts"),
        (ReplicaType::Chief, 1, "task.chief"),
        (ReplicaType::Evaluator, 1, "task.evaluator"),
        (ReplicaType::DlroverMaster, 0, "task.type"),
    ] {
        let err = elasticjob::tf_config(&job, t, index, None).unwrap_err();
        assert_eq!(err.problems()[0].path, path, "{t} {index}");
    }
    let allreduce = parse::job({
        let mut v = serde_json::to_value(common::job("ar", Some(1), Some(2), None, None)).unwrap();
        v["spec"]["distributionStrategy"] = "AllreduceStrategy".into();
        v["spec"]["replicaSpecs"].as_object_mut().unwrap().remove("ps");
        v
    })
    .unwrap();
    assert_eq!(
        elasticjob::tf_config(&allreduce, ReplicaType::Worker, 0, None).unwrap_err().problems()[0].path,
        "spec.distributionStrategy"
    );
}
