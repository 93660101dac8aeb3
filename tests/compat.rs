//! The public paths of 0.1 that moved in 0.2 still work, as deprecated aliases of the new ones,
//! and give the same answers.
#![allow(deprecated)]

use elasticjob::{Options, ReplicaType, parse};
use serde_json::json;

fn job() -> elasticjob::Result<elasticjob::ElasticJob> {
    parse::job(json!({
        "metadata": {"name": "mnist"},
        "spec": {"distributionStrategy": "ParameterServerStrategy", "replicaSpecs": {
            "ps": {"replicas": 1, "template": {"spec": {"containers": [{"name": "main", "image": "tf:2"}]}}},
            "worker": {"replicas": 2, "template": {"spec": {"containers": [{"name": "main", "image": "tf:2"}]}}}}}
    }))
}

#[test]
fn moved_functions_answer_as_their_new_homes() {
    let job = job().unwrap();
    let options = Options::default();
    assert_eq!(elasticjob::reconcile::render(&job, None, &options), elasticjob::render(&job, None, &options));
    assert_eq!(elasticjob::render::initial_scale_plan(&job), elasticjob::initial_scale_plan(&job));
    assert_eq!(
        elasticjob::template::task_template(&job, ReplicaType::Chief).ok(),
        elasticjob::job::task_template(&job, ReplicaType::Chief).ok()
    );
    let list = elasticjob::render(&job, None, &options).unwrap();
    let pod = list
        .items
        .iter()
        .find_map(|o| match o {
            elasticjob::Object::Pod(p) if elasticjob::pod::pod_type(p) == Some(ReplicaType::Worker) => Some(p),
            _ => None,
        })
        .unwrap();
    assert_eq!(elasticjob::reconcile::pod_type(pod), Some(ReplicaType::Worker));
    assert_eq!(elasticjob::reconcile::pod_id(pod), elasticjob::pod::pod_id(pod));
    assert_eq!(elasticjob::reconcile::pod_rank(pod), elasticjob::pod::pod_rank(pod));
    assert_eq!(elasticjob::reconcile::pod_phase(pod), elasticjob::pod::pod_phase(pod));
    assert_eq!(elasticjob::reconcile::is_alive(pod), elasticjob::pod::is_alive(pod));
    assert_eq!(elasticjob::reconcile::is_terminating(pod), elasticjob::pod::is_terminating(pod));
    let config: elasticjob::tfconfig::TFConfig =
        serde_json::from_str(elasticjob::pod::tf_config(pod).unwrap()).unwrap();
    assert_eq!(config.task.type_, ReplicaType::Worker);
}

#[test]
fn prefix_is_error_prefixed() {
    let error = parse::scale_plan(json!({"spec": {"psHosts": ["nope"]}})).unwrap_err();
    assert_eq!(parse::prefix(error.clone(), "scalePlan"), error.clone().prefixed("scalePlan"));
    assert_eq!(error.prefixed("scalePlan").problems()[0].path, "scalePlan.spec.psHosts[0]");
}
