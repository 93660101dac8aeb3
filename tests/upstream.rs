//! The expectations of the upstream Go operator's own tests, for job `test-training` in namespace
//! `easydl`.
// A test crate: its helpers outside #[test] functions may unwrap, as the tests do
// (the workspace lints deny it in shipped code; clippy.toml allows it in #[test] functions).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use elasticjob::naming::{self, task_hosts};
use elasticjob::template::{TaskMeta, task_pod_from_template, task_service};
use elasticjob::{ReplicaType, parse};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use std::path::Path;

use serde_json::{Value, json};

fn test_training() -> elasticjob::ElasticJob {
    parse::job(json!({
        "apiVersion": "elastic.iml.github.io/v1alpha1",
        "kind": "ElasticJob",
        "metadata": {"name": "test-training", "namespace": "easydl"},
        "spec": {
            "distributionStrategy": "ParameterServerStrategy",
            "replicaSpecs": {
                "chief": {
                    "restartCount": 3,
                    "template": {"spec": {"containers": [{
                        "name": "main",
                        "image": "dlrover/elasticjob:iris_estimator",
                        "imagePullPolicy": "Always",
                        "command": ["/bin/bash", "-c", "python -m model_zoo.iris.dnn_estimator"]
                    }]}}
                }
            }
        }
    }))
    .unwrap()
}

#[test]
fn task_hosts_of_three_workers() {
    assert_eq!(
        task_hosts("test-training", ReplicaType::Worker, 3, 2222),
        [
            "test-training-edljob-worker-0:2222",
            "test-training-edljob-worker-1:2222",
            "test-training-edljob-worker-2:2222"
        ]
    );
}

#[test]
fn chief_pod_from_its_template() {
    let job = test_training();
    let resource = [("cpu", "1"), ("memory", "1Gi")].map(|(k, v)| (k.to_owned(), Quantity(v.to_owned()))).into();
    let meta = TaskMeta { id: 0, rank: 0, resource, restarts_left: 3, relaunches: 0, service: None };
    let pod = task_pod_from_template(&job, ReplicaType::Chief, &meta).unwrap();

    assert_eq!(pod.metadata.name.as_deref(), Some("test-training-edljob-chief-0"));
    let labels = pod.metadata.labels.as_ref().unwrap();
    assert_eq!(labels[naming::LABEL_RESTART_COUNT], "3");
    assert_eq!(labels[naming::LABEL_REPLICA_TYPE], "chief");
    let main = &pod.spec.as_ref().unwrap().containers[0];
    assert_eq!(main.resources.as_ref().unwrap().requests.as_ref().unwrap()["cpu"], Quantity("1".into()));
    let env = main.env.as_ref().unwrap();
    assert_eq!(env.len(), 6, "{env:?}");
    assert_eq!(env[0].name, "DLROVER_MASTER_ADDR");
    assert_eq!(env[0].value.as_deref(), Some("elasticjob-test-training-dlrover-master:50001"));

    let service = task_service(&job, ReplicaType::Chief, 0);
    let selector = service.spec.unwrap().selector.unwrap();
    assert_eq!(selector[naming::LABEL_REPLICA_TYPE], "chief");
    assert_eq!(selector[naming::LABEL_RANK_INDEX], "0");
}

/// Every key sorted, no spaces: two documents with the same content give the same bytes.
fn canonical(value: &Value) -> String {
    fn sort(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let sorted: std::collections::BTreeMap<&String, Value> =
                    map.iter().map(|(k, v)| (k, sort(v))).collect();
                Value::Object(sorted.into_iter().map(|(k, v)| (k.clone(), v)).collect())
            }
            Value::Array(items) => Value::Array(items.iter().map(sort).collect()),
            other => other.clone(),
        }
    }
    serde_json::to_string(&sort(value)).unwrap()
}

#[test]
fn objects_stored_by_dlrover_round_trip_unchanged() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dlrover");
    let stored =
        |name: &str| -> Value { serde_json::from_str(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap() };

    // A running job as DLRover's operator stores it, status included (`status.status.conditions`,
    // `replicaStatuses` with a `labelSelector`, `lastReconcileTime`): it validates, and writing it
    // back gives the same document, byte for byte once keys are sorted (their order is the
    // writer's, not data). Writing it again gives the same bytes as the first time.
    let job_json = stored("stored-elasticjob.json");
    let job = parse::job(job_json.clone()).unwrap();
    let written = serde_json::to_value(&job).unwrap();
    assert_eq!(canonical(&written), canonical(&job_json));
    let again = serde_json::to_string(&parse::job(written).unwrap()).unwrap();
    assert_eq!(again, serde_json::to_string(&job).unwrap());
    let status = job.status.as_ref().and_then(|s| s.common()).unwrap();
    assert_eq!(status.conditions.len(), 2);
    assert!(status.replica_statuses[&ReplicaType::Ps].label_selector.is_some());

    // A scale plan as DLRover's master writes it (Go leaves `rankIndex: 0` and empty ids out).
    let plan_json = stored("stored-scaleplan.json");
    let plan = parse::scale_plan(plan_json.clone()).unwrap();
    assert_eq!(canonical(&serde_json::to_value(&plan).unwrap()), canonical(&plan_json));
    assert!(elasticjob::validate::check_job_and_plan(&job, Some(&plan)).is_ok());
}
