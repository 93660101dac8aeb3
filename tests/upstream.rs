//! The expectations of the upstream Go operator's own tests, for job `test-training` in namespace
//! `easydl`.
// A test crate: its helpers outside #[test] functions may unwrap, as the tests do
// (the workspace lints deny it in shipped code; clippy.toml allows it in #[test] functions).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use elasticjob::{LABEL_RANK_INDEX, LABEL_REPLICA_TYPE, LABEL_RESTART_COUNT, Object, Options, ReplicaType, parse};
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
                    "replicas": 1,
                    "restartCount": 3,
                    "template": {"spec": {"containers": [{
                        "name": "main",
                        "image": "dlrover/elasticjob:iris_estimator",
                        "imagePullPolicy": "Always",
                        "command": ["/bin/bash", "-c", "python -m model_zoo.iris.dnn_estimator"]
                    }]}}
                },
                // Upstream's job has a chief only; DLRover's master needs a PS and a worker spec.
                "ps": {"replicas": 1, "template": {"spec": {"containers": [{"name": "main", "image": "tf"}]}}},
                "worker": {"replicas": 0, "autoScale": false, "template": {"spec": {"containers": [{"name": "main", "image": "tf"}]}}}
            }
        }
    }))
    .unwrap()
}

#[test]
fn task_hosts_of_three_workers() {
    // Upstream names the task hosts `<job>-edljob-<type>-<rank>:<port>`; a PS lists every worker
    // (of the three, DLRover's master runs one as the chief).
    let job = parse::job(json!({
        "metadata": {"name": "test-training", "namespace": "easydl"},
        "spec": {"distributionStrategy": "ParameterServerStrategy", "replicaSpecs": {
            "ps": {"replicas": 1, "template": {"spec": {"containers": [{"name": "main", "image": "tf"}]}}},
            "worker": {"replicas": 3, "template": {"spec": {"containers": [{"name": "main", "image": "tf"}]}}}
        }}
    }))
    .unwrap();
    let ps: Value = serde_json::from_str(&elasticjob::tf_config(&job, ReplicaType::Ps, 0, None).unwrap()).unwrap();
    assert_eq!(
        ps["cluster"]["worker"],
        json!(["test-training-edljob-worker-0:3333", "test-training-edljob-worker-1:3333"])
    );
}

#[test]
fn chief_pod_from_its_template() {
    let mut job = test_training();
    let main = &mut job.spec.replica_specs.get_mut(&ReplicaType::Chief).unwrap().template;
    let requests = [("cpu", "1"), ("memory", "1Gi")].map(|(k, v)| (k.to_owned(), Quantity(v.to_owned()))).into();
    main.spec.as_mut().unwrap().containers[0].resources =
        Some(k8s_openapi::api::core::v1::ResourceRequirements { requests: Some(requests), ..Default::default() });
    let list = elasticjob::render(&job, None, &Options::default()).unwrap();
    let chief = Some("test-training-edljob-chief-0");
    let (mut pods, mut services) = (Vec::new(), Vec::new());
    for item in &list.items {
        match item {
            Object::Pod(p) if p.metadata.name.as_deref() == chief => pods.push(p),
            Object::Service(s) if s.metadata.name.as_deref() == chief => services.push(s),
            _ => {}
        }
    }
    let ([pod], [service]) = (&pods[..], &services[..]) else { panic!("one chief pod and service: {list:?}") };
    let labels = pod.metadata.labels.as_ref().unwrap();
    assert_eq!(labels[LABEL_RESTART_COUNT], "3");
    assert_eq!(labels[LABEL_REPLICA_TYPE], "chief");
    let main = &pod.spec.as_ref().unwrap().containers[0];
    assert_eq!(main.resources.as_ref().unwrap().requests.as_ref().unwrap()["cpu"], Quantity("1".into()));
    let env = main.env.as_ref().unwrap();
    let names: Vec<&str> = env.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names.first(), Some(&"DLROVER_MASTER_ADDR"), "{names:?}");
    assert_eq!(env[0].value.as_deref(), Some("elasticjob-test-training-dlrover-master:50001"));

    let selector = service.spec.as_ref().unwrap().selector.as_ref().unwrap();
    assert_eq!(selector[LABEL_REPLICA_TYPE], "chief");
    assert_eq!(selector[LABEL_RANK_INDEX], "0");
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
    assert!(status.replica_statuses.get(&ReplicaType::Ps).unwrap().label_selector.is_some());

    // A scale plan as DLRover's master writes it (Go leaves `rankIndex: 0` and empty ids out).
    let plan_json = stored("stored-scaleplan.json");
    let plan = parse::scale_plan(plan_json.clone()).unwrap();
    assert_eq!(canonical(&serde_json::to_value(&plan).unwrap()), canonical(&plan_json));
    assert!(elasticjob::validate::check_job_and_plan(&job, Some(&plan)).is_ok());
}
