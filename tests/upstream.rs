//! The expectations of the upstream Go operator's own tests, for job `test-training` in namespace
//! `easydl`.
// A test crate: its helpers outside #[test] functions may unwrap, as the tests do
// (the workspace lints deny it in shipped code; clippy.toml allows it in #[test] functions).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use elasticjob::naming::{self, task_hosts};
use elasticjob::template::{TaskMeta, task_pod_from_template, task_service};
use elasticjob::{ReplicaType, parse};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use serde_json::json;

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
    let meta = TaskMeta { id: 0, rank: 0, resource, restarts_left: 3 };
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
