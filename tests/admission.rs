//! The admission policy's decisions (`elasticjob::admission`): settings, each settings check with
//! its exact path and code, ElasticJob and ScalePlan reviews, and payloads the policy cannot read.
//! The policy crate runs the same decisions natively and through the built .wasm.
// A test crate: its helpers outside #[test] functions may unwrap, as the tests do
// (the workspace lints deny it in shipped code; clippy.toml allows it in #[test] functions).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod common;

use std::path::Path;

use elasticjob::admission::{
    AdmissionRequest, CODE_BAD_SETTINGS, CODE_INVALID, GroupVersionKind, Settings, Verdict, review, review_payload,
};
use elasticjob::{Code, Error, parse};
use rstest::rstest;
use serde_json::{Value, json};

fn sample_job() -> Value {
    common::yaml_file(&Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/elasticjob.yaml"))
}

fn sample_plan() -> Value {
    common::yaml_file(&Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/scaleplan.yaml"))
}

/// A job that trips no check when every check is on with the settings of [`strict`].
fn good_job() -> Value {
    let template = |cpu: &str| {
        json!({"spec": {"containers": [{"name": "main", "image": "registry.example.com/ml/tf:2.13",
            "resources": {"requests": {"cpu": cpu, "memory": "2Gi"}, "limits": {"cpu": cpu, "memory": "2Gi"}}}]}})
    };
    json!({
        "apiVersion": "elastic.iml.github.io/v1alpha1",
        "kind": "ElasticJob",
        "metadata": {"name": "ctr", "namespace": "ml"},
        "spec": {
            "distributionStrategy": "ParameterServerStrategy",
            "replicaSpecs": {
                "dlrover-master": {"template": template("1")},
                "ps": {"replicas": 1, "restartCount": 3, "template": template("2")},
                "worker": {"replicas": 4, "restartCount": 3, "template": template("1")}
            }
        }
    })
}

fn strict() -> Settings {
    Settings::from_value(json!({
        "maxReplicasPerType": 4,
        "maxTotalReplicas": 6,
        "allowedStrategies": ["ParameterServerStrategy"],
        "requireResourceLimits": true,
        "allowedImageRegistries": ["registry.example.com/ml/"],
        "denyPrivileged": true,
        "maxRestartCount": 3
    }))
    .unwrap()
}

fn request(operation: &str, kind: &str, object: Value) -> AdmissionRequest {
    AdmissionRequest {
        operation: operation.to_owned(),
        kind: GroupVersionKind {
            group: "elastic.iml.github.io".to_owned(),
            version: "v1alpha1".to_owned(),
            kind: kind.to_owned(),
        },
        object,
        old_object: Value::Null,
    }
}

/// Sets the value at a JSON pointer (creating objects on the way).
fn with(mut doc: Value, pointer: &str, value: Value) -> Value {
    let mut target = &mut doc;
    let keys: Vec<&str> = pointer.split('/').skip(1).collect();
    let (last, parents) = keys.split_last().unwrap();
    for key in parents {
        target = match target {
            Value::Array(items) => &mut items[key.parse::<usize>().unwrap()],
            other => other.as_object_mut().unwrap().entry(key.to_string()).or_insert(json!({})),
        };
    }
    match target {
        Value::Array(items) => items[last.parse::<usize>().unwrap()] = value,
        other => {
            other.as_object_mut().unwrap().insert(last.to_string(), value);
        }
    }
    doc
}

fn rejected(verdict: &Verdict) -> Vec<(String, Code)> {
    match verdict {
        Verdict::Accepted => Vec::new(),
        Verdict::Rejected { error, .. } => error.problems().iter().map(|p| (p.path.clone(), p.code)).collect(),
    }
}

fn settings_problems(result: elasticjob::Result<Settings>) -> Vec<(String, Code)> {
    match result {
        Ok(_) => Vec::new(),
        Err(e) => e.problems().iter().map(|p| (p.path.clone(), p.code)).collect(),
    }
}

#[test]
fn the_sample_job_and_plan_pass_without_settings() {
    assert_eq!(review(request("CREATE", "ElasticJob", sample_job()), &Settings::default()), Verdict::Accepted);
    assert_eq!(review(request("UPDATE", "ScalePlan", sample_plan()), &Settings::default()), Verdict::Accepted);
}

#[test]
fn a_good_job_passes_every_check() {
    assert_eq!(review(request("CREATE", "ElasticJob", good_job()), &strict()), Verdict::Accepted);
    assert_eq!(review(request("UPDATE", "ElasticJob", good_job()), &strict()), Verdict::Accepted);
}

#[rstest]
#[case::replicas_per_type("/spec/replicaSpecs/worker/replicas", json!(5), "spec.replicaSpecs.worker.replicas", Code::OutOfRange)]
#[case::total_replicas("/spec/replicaSpecs/ps/replicas", json!(3), "spec.replicaSpecs", Code::OutOfRange)]
#[case::strategy("/spec/distributionStrategy", json!("AllreduceStrategy"), "spec.distributionStrategy", Code::InvalidValue)]
#[case::cpu_limit(
    "/spec/replicaSpecs/ps/template/spec/containers/0/resources/limits",
    json!({"memory": "2Gi"}),
    "spec.replicaSpecs.ps.template.spec.containers[0].resources.limits.cpu",
    Code::Required
)]
#[case::memory_limit(
    "/spec/replicaSpecs/worker/template/spec/containers/0/resources",
    json!({"limits": {"cpu": "1"}}),
    "spec.replicaSpecs.worker.template.spec.containers[0].resources.limits.memory",
    Code::Required
)]
#[case::image(
    "/spec/replicaSpecs/worker/template/spec/containers/0/image",
    json!("docker.io/ml/tf:2.13"),
    "spec.replicaSpecs.worker.template.spec.containers[0].image",
    Code::InvalidValue
)]
#[case::init_container_image(
    "/spec/replicaSpecs/ps/template/spec/initContainers",
    json!([{"name": "fetch", "image": "busybox"}]),
    "spec.replicaSpecs.ps.template.spec.initContainers[0].image",
    Code::InvalidValue
)]
#[case::privileged(
    "/spec/replicaSpecs/ps/template/spec/containers/0/securityContext",
    json!({"privileged": true}),
    "spec.replicaSpecs.ps.template.spec.containers[0].securityContext.privileged",
    Code::InvalidValue
)]
#[case::host_network("/spec/replicaSpecs/worker/template/spec/hostNetwork", json!(true), "spec.replicaSpecs.worker.template.spec.hostNetwork", Code::InvalidValue)]
#[case::host_pid("/spec/replicaSpecs/worker/template/spec/hostPID", json!(true), "spec.replicaSpecs.worker.template.spec.hostPID", Code::InvalidValue)]
#[case::host_ipc("/spec/replicaSpecs/worker/template/spec/hostIPC", json!(true), "spec.replicaSpecs.worker.template.spec.hostIPC", Code::InvalidValue)]
#[case::restart_count("/spec/replicaSpecs/ps/restartCount", json!(4), "spec.replicaSpecs.ps.restartCount", Code::OutOfRange)]
fn each_job_check_trips_alone(#[case] pointer: &str, #[case] value: Value, #[case] path: &str, #[case] code: Code) {
    let job = with(good_job(), pointer, value);
    let verdict = review(request("CREATE", "ElasticJob", job.clone()), &strict());
    assert_eq!(rejected(&verdict), [(path.to_owned(), code)]);
    assert_eq!(verdict.code(), Some(CODE_INVALID));
    // Every check is off unless set: the core alone accepts the job.
    assert_eq!(review(request("CREATE", "ElasticJob", job), &Settings::default()), Verdict::Accepted);
}

#[test]
fn settings_at_their_limit_pass() {
    // Exactly the maxima: 4 workers, 6 replicas in all, restartCount 3.
    let job = with(good_job(), "/spec/replicaSpecs/ps/replicas", json!(2));
    let job = with(job, "/spec/replicaSpecs/ps/template/spec/hostNetwork", json!(false));
    assert_eq!(review(request("CREATE", "ElasticJob", job), &strict()), Verdict::Accepted);
}

#[test]
fn replicas_count_as_dlrovers_master_plans_them() {
    // A chief without replicas: the master reads 0 and runs one of the 4 workers as the chief.
    let chief = json!({"template": {"spec": {"containers": [{"name": "main", "image": "registry.example.com/ml/tf:2.13",
        "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}]}}});
    let job = with(good_job(), "/spec/replicaSpecs/chief", chief);
    let settings = Settings { max_total_replicas: Some(4), ..strict() };
    assert_eq!(
        review(request("CREATE", "ElasticJob", job), &settings).message().as_deref(),
        Some(
            "spec.replicaSpecs: the job asks for 5 replicas in all (1 ps, 1 chief, 3 worker), more than the 4 this cluster allows (policy setting maxTotalReplicas)"
        )
    );
}

#[test]
fn messages_name_the_setting_and_what_is_allowed() {
    let job = with(good_job(), "/spec/distributionStrategy", json!("AllreduceStrategy"));
    let job = with(job, "/spec/replicaSpecs/worker/replicas", json!(5));
    let job = with(job, "/spec/replicaSpecs/ps/replicas", json!(2));
    let job = with(job, "/spec/replicaSpecs/ps/template/spec/containers/0/image", json!("tf:2"));
    let verdict = review(request("CREATE", "ElasticJob", job), &strict());
    assert_eq!(
        verdict.message().unwrap().split("; ").collect::<Vec<_>>(),
        [
            "spec.distributionStrategy: `AllreduceStrategy` is not a strategy this cluster allows: use `ParameterServerStrategy` (policy setting allowedStrategies)",
            "spec.replicaSpecs: the job asks for 7 replicas in all (2 ps, 5 worker), more than the 6 this cluster allows (policy setting maxTotalReplicas)",
            "spec.replicaSpecs.ps.template.spec.containers[0].image: `tf:2` is not from a registry this cluster allows: use an image starting with `registry.example.com/ml/` (policy setting allowedImageRegistries)",
            "spec.replicaSpecs.worker.replicas: 5 worker replicas is more than the 4 per type this cluster allows (policy setting maxReplicasPerType)",
        ]
    );
}

#[test]
fn core_problems_and_settings_problems_come_together_with_the_cli_messages() {
    let job = with(sample_job(), "/spec/replicaSpecs/ps/replicas", json!(-1));
    let job = with(job, "/spec/replicaSpecs/ps/restartCount", json!(9));
    let job = with(job, "/metadata/nmae", json!("typo"));
    let cli = parse::job(job.clone()).unwrap_err();
    assert_eq!(
        cli.problems().iter().map(|p| (p.path.as_str(), p.code)).collect::<Vec<_>>(),
        [("metadata.nmae", Code::UnknownField), ("spec.replicaSpecs.ps.replicas", Code::OutOfRange)]
    );
    let settings = Settings { max_restart_count: Some(3), ..Settings::default() };
    let Verdict::Rejected { code, error } = review(request("CREATE", "ElasticJob", job), &settings) else {
        panic!("accepted")
    };
    assert_eq!(code, 400);
    // The core's problems, with the CLI's exact messages, plus the setting's.
    let mut expected = cli.problems().to_vec();
    expected.push(elasticjob::Problem::new(
        "spec.replicaSpecs.ps.restartCount",
        Code::OutOfRange,
        "9 relaunches is more than the 3 this cluster allows (policy setting maxRestartCount)",
    ));
    expected.sort();
    assert_eq!(error.problems(), expected.as_slice());
    assert_eq!(
        error.to_string(),
        expected.iter().map(|p| format!("{}: {}", p.path, p.message)).collect::<Vec<_>>().join("; ")
    );
}

#[test]
fn a_malformed_job_is_rejected_with_its_path_and_cause() {
    let job = with(sample_job(), "/spec/replicaSpecs/worker/replicas", json!("three"));
    let verdict = review(request("CREATE", "ElasticJob", job.clone()), &Settings::default());
    assert_eq!(rejected(&verdict), [("spec.replicaSpecs.worker.replicas".to_owned(), Code::InvalidType)]);
    assert_eq!(verdict.message(), Some(parse::job(job.clone()).unwrap_err().to_string()));
    assert_eq!(
        verdict.message().as_deref(),
        Some("spec.replicaSpecs.worker.replicas: invalid type: string \"three\", expected i32")
    );
    // A wrong type hides nothing: the settings' problems come with it.
    let strict_verdict = review(request("CREATE", "ElasticJob", job), &strict());
    let found = rejected(&strict_verdict);
    assert!(found.contains(&("spec.replicaSpecs.worker.replicas".to_owned(), Code::InvalidType)), "{found:?}");
    assert!(
        found.contains(&(
            "spec.replicaSpecs.worker.template.spec.containers[0].resources.limits.cpu".to_owned(),
            Code::Required
        )),
        "{found:?}"
    );
}

#[test]
fn a_create_without_an_object_is_rejected() {
    let verdict = review(request("CREATE", "ElasticJob", Value::Null), &Settings::default());
    assert_eq!(rejected(&verdict), [("request.object".to_owned(), Code::Required)]);
}

#[test]
fn scale_plans_get_their_own_validation() {
    let plan = with(sample_plan(), "/spec/psHosts", json!(["ps-0"]));
    let plan = with(plan, "/spec/replicaResourceSpecs/worker/replicas", json!(-2));
    let verdict = review(request("CREATE", "ScalePlan", plan.clone()), &Settings::default());
    assert_eq!(
        rejected(&verdict),
        [
            ("spec.psHosts[0]".to_owned(), Code::InvalidAddress),
            ("spec.replicaResourceSpecs.worker.replicas".to_owned(), Code::OutOfRange),
        ]
    );
    assert_eq!(verdict.message(), Some(parse::scale_plan(plan).unwrap_err().to_string()));
}

#[test]
fn a_plan_with_its_owner_job_has_its_pod_names_checked() {
    let created = json!([{"name": "elasticjob-sample-edljob-worker-2", "id": 2, "type": "worker", "rankIndex": 1}]);
    let plan = with(sample_plan(), "/spec/createPods", created);
    assert_eq!(review(request("CREATE", "ScalePlan", plan.clone()), &Settings::default()), Verdict::Accepted);
    let other = with(plan.clone(), "/spec/ownerJob", json!("other"));
    let verdict = review(request("CREATE", "ScalePlan", other), &Settings::default());
    assert_eq!(rejected(&verdict), [("spec.createPods[0].name".to_owned(), Code::Mismatch)]);
    let plan = with(plan, "/spec/ownerJob", json!("elasticjob-sample"));
    assert_eq!(review(request("UPDATE", "ScalePlan", plan), &Settings::default()), Verdict::Accepted);
}

#[rstest]
#[case::target_per_type("/spec/replicaResourceSpecs/worker/replicas", json!(5), "spec.replicaResourceSpecs.worker.replicas")]
// A PS the plan creates without a PS target (a target would bound its rank by the core's rules).
#[case::created_rank("/spec", json!({"replicaResourceSpecs": {"worker": {"replicas": 2}}, "createPods": [{"name": "elasticjob-sample-edljob-ps-4", "id": 4, "type": "ps", "rankIndex": 4}]}), "spec.createPods[0].rankIndex")]
#[case::total("/spec/replicaResourceSpecs", json!({"ps": {"replicas": 3}, "worker": {"replicas": 4}}), "spec.replicaResourceSpecs")]
fn plan_checks_trip_alone(#[case] pointer: &str, #[case] value: Value, #[case] path: &str) {
    let settings = Settings { max_replicas_per_type: Some(4), max_total_replicas: Some(6), ..strict() };
    assert_eq!(review(request("CREATE", "ScalePlan", sample_plan()), &settings), Verdict::Accepted);
    let plan = with(sample_plan(), pointer, value);
    assert_eq!(
        rejected(&review(request("CREATE", "ScalePlan", plan), &settings)),
        [(path.to_owned(), Code::OutOfRange)]
    );
}

#[rstest]
#[case::delete("DELETE", "elastic.iml.github.io", "v1alpha1", "ElasticJob")]
#[case::connect("CONNECT", "elastic.iml.github.io", "v1alpha1", "ScalePlan")]
#[case::other_kind("CREATE", "", "v1", "Pod")]
#[case::other_group("CREATE", "example.com", "v1alpha1", "ElasticJob")]
#[case::other_version("UPDATE", "elastic.iml.github.io", "v1beta1", "ElasticJob")]
fn other_operations_and_kinds_are_accepted(
    #[case] operation: &str,
    #[case] group: &str,
    #[case] version: &str,
    #[case] kind: &str,
) {
    let mut r = request(operation, kind, json!({"spec": {"replicaSpecs": "not a map"}}));
    r.kind.group = group.to_owned();
    r.kind.version = version.to_owned();
    assert_eq!(review(r, &strict()), Verdict::Accepted);
}

#[test]
fn settings_default_to_no_checks() {
    assert_eq!(Settings::from_slice(b"{}").unwrap(), Settings::default());
    assert_eq!(Settings::from_slice(b"null").unwrap(), Settings::default());
    assert_eq!(Settings::from_slice(b"").unwrap(), Settings::default());
    assert_eq!(Settings::from_value(Value::Null).unwrap(), Settings::default());
    // And they read back what they write.
    let strict = strict();
    assert_eq!(Settings::from_value(serde_json::to_value(&strict).unwrap()).unwrap(), strict);
    assert_eq!(serde_json::to_value(Settings::default()).unwrap(), json!({}));
}

#[rstest]
#[case::unknown_field(json!({"maxReplicas": 3}), "maxReplicas", Code::UnknownField, "unknown field `maxReplicas`, expected one of `maxReplicasPerType`")]
#[case::wrong_type(json!({"maxTotalReplicas": "5"}), "maxTotalReplicas", Code::InvalidType, "invalid type: string \"5\"")]
#[case::negative(json!({"maxRestartCount": -1}), "maxRestartCount", Code::InvalidValue, "invalid value: integer `-1`")]
#[case::not_a_bool(json!({"denyPrivileged": "yes"}), "denyPrivileged", Code::InvalidType, "expected a boolean")]
#[case::unknown_strategy(json!({"allowedStrategies": ["Horovod"]}), "allowedStrategies[0]", Code::InvalidValue, "unknown variant `Horovod`")]
#[case::empty_strategies(json!({"allowedStrategies": []}), "allowedStrategies", Code::Required, "the list is empty, so no job could be admitted")]
#[case::empty_registries(json!({"allowedImageRegistries": []}), "allowedImageRegistries", Code::Required, "the list is empty, so no job could be admitted")]
#[case::empty_prefix(json!({"allowedImageRegistries": ["ok.io/", " "]}), "allowedImageRegistries[1]", Code::Required, "an empty prefix would allow every image")]
#[case::zero_per_type(json!({"maxReplicasPerType": 0}), "maxReplicasPerType", Code::OutOfRange, "0 would refuse every job")]
#[case::zero_total(json!({"maxTotalReplicas": 0}), "maxTotalReplicas", Code::OutOfRange, "0 would refuse every job")]
#[case::not_an_object(json!([1]), "", Code::InvalidType, "the settings are an array, not an object")]
fn bad_settings_name_the_field(#[case] settings: Value, #[case] path: &str, #[case] code: Code, #[case] message: &str) {
    let result = Settings::from_slice(settings.to_string().as_bytes());
    assert_eq!(settings_problems(result.clone()), [(path.to_owned(), code)]);
    let text = result.unwrap_err().to_string();
    assert!(text.contains(message), "{text}");
    // The message names the field, as `validate_settings` shows it.
    let field = settings.as_object().and_then(|o| o.keys().next().cloned()).unwrap_or_default();
    assert!(text.contains(&field), "{text} does not name {field}");
}

#[test]
fn settings_contradictions_are_all_reported() {
    let e = Settings::from_value(json!({"allowedStrategies": [], "allowedImageRegistries": [], "maxTotalReplicas": 0}))
        .unwrap_err();
    assert_eq!(
        e.problems().iter().map(|p| p.path.as_str()).collect::<Vec<_>>(),
        ["allowedImageRegistries", "allowedStrategies", "maxTotalReplicas"]
    );
    assert!(matches!(e, Error::Invalid(_)));
}

#[test]
fn settings_text_that_is_not_json_is_refused_with_its_position() {
    let e = Settings::from_slice(b"{\"denyPrivileged\": tru}").unwrap_err();
    assert_eq!(e.problems()[0].code, Code::Syntax);
    assert!(e.to_string().contains("line 1 column"), "{e}");
    let e = Settings::from_slice(&[0xff, 0xfe]).unwrap_err();
    assert!(e.to_string().starts_with("the settings is not UTF-8 text"), "{e}");
}

fn payload(settings: Value, request: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({"settings": settings, "request": request})).unwrap()
}

fn full_request(operation: &str, object: Value) -> Value {
    json!({
        "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
        "kind": {"group": "elastic.iml.github.io", "version": "v1alpha1", "kind": "ElasticJob"},
        "resource": {"group": "elastic.iml.github.io", "version": "v1alpha1", "resource": "elasticjobs"},
        "requestKind": {"group": "elastic.iml.github.io", "version": "v1alpha1", "kind": "ElasticJob"},
        "name": "elasticjob-sample",
        "namespace": "default",
        "operation": operation,
        "userInfo": {"username": "admin", "groups": ["system:authenticated"]},
        "object": object,
        "oldObject": null,
        "dryRun": false,
        "options": {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"}
    })
}

#[test]
fn payloads_carry_the_request_and_the_settings() {
    let ok = review_payload(&payload(json!({}), full_request("CREATE", sample_job())));
    assert_eq!(ok, Verdict::Accepted);
    let settings = json!({"allowedStrategies": ["AllreduceStrategy"]});
    let verdict = review_payload(&payload(settings, full_request("CREATE", sample_job())));
    assert_eq!(rejected(&verdict), [("spec.distributionStrategy".to_owned(), Code::InvalidValue)]);
    // Settings may be left out.
    let bytes = serde_json::to_vec(&json!({"request": full_request("DELETE", Value::Null)})).unwrap();
    assert_eq!(review_payload(&bytes), Verdict::Accepted);
}

#[rstest]
#[case::not_json(b"{\"settings\": {}, \"request\": nope}".to_vec(), "", "cannot read the validation payload: expected ident at line 1 column 30")]
#[case::truncated(b"{\"settings\": {}, \"request\": {\"operation\"".to_vec(), "", "cannot read the validation payload: EOF while parsing an object at line 1 column 40")]
#[case::empty(Vec::new(), "", "cannot read the validation payload: EOF while parsing a value at line 1 column 0")]
#[case::not_utf8(vec![b'{', 0xff, b'}'], "", "cannot read the validation payload: the validation payload is not UTF-8 text: invalid utf-8 sequence of 1 bytes from index 1")]
#[case::no_request(b"{\"settings\": {}}".to_vec(), "", "cannot read the validation payload: missing field `request`")]
#[case::request_not_an_object(b"{\"settings\": {}, \"request\": 42}".to_vec(), "request", "invalid type: integer `42`, expected struct AdmissionRequest")]
#[case::no_kind(b"{\"request\": {\"operation\": \"CREATE\", \"object\": {}}}".to_vec(), "request", "missing field `kind`")]
#[case::kind_not_an_object(b"{\"request\": {\"operation\": \"CREATE\", \"kind\": \"ElasticJob\"}}".to_vec(), "request.kind", "invalid type: string \"ElasticJob\", expected struct GroupVersionKind")]
fn unreadable_payloads_are_rejected_with_the_cause(#[case] bytes: Vec<u8>, #[case] path: &str, #[case] message: &str) {
    let verdict = review_payload(&bytes);
    assert_eq!(verdict.code(), Some(CODE_INVALID));
    let Verdict::Rejected { error, .. } = &verdict else { panic!("accepted") };
    assert_eq!(error.problems().len(), 1);
    assert_eq!(error.problems()[0].path, path);
    assert!(error.problems()[0].message.starts_with(message), "{}", error.problems()[0].message);
}

#[test]
fn bad_settings_in_a_payload_reject_as_the_policy_s_fault() {
    let verdict = review_payload(&payload(json!({"allowedStrategies": []}), full_request("CREATE", sample_job())));
    assert_eq!(verdict.code(), Some(CODE_BAD_SETTINGS));
    assert_eq!(rejected(&verdict), [("settings.allowedStrategies".to_owned(), Code::Required)]);
    let verdict = review_payload(&payload(json!({"denyPrivileges": true}), full_request("DELETE", Value::Null)));
    assert_eq!(verdict.code(), Some(CODE_BAD_SETTINGS));
    assert!(
        verdict.message().unwrap().starts_with("settings.denyPrivileges: unknown field `denyPrivileges`"),
        "{verdict:?}"
    );
}

#[rstest]
#[case::as_written("easydl/", true)]
#[case::qualified("docker.io/easydl/", true)]
#[case::library("docker.io/library/", false)]
#[case::other("registry.example.com/", false)]
fn registry_prefixes_match_the_image_as_written_or_qualified(#[case] prefix: &str, #[case] allowed: bool) {
    // The sample job has no master template: the operator's default master image is allowed too.
    let registries = vec![prefix.to_owned(), "docker.io/library/elasticjob-dlrover-master".to_owned()];
    let settings = Settings { allowed_image_registries: Some(registries), ..Settings::default() };
    let verdict = review(request("CREATE", "ElasticJob", sample_job()), &settings);
    assert_eq!(verdict.is_accepted(), allowed, "{verdict:?}");
    if !allowed {
        // Both templates use the image.
        assert_eq!(rejected(&verdict).len(), 2);
    }
}

/// Registry prefixes end on a host or path segment, with or without a final `/`: a registry's name
/// does not cover a longer host, another port or a longer path segment.
#[rstest]
#[case::host("registry.example.com", "registry.example.com/ml/tf:2", true)]
#[case::host_slash("registry.example.com/", "registry.example.com/ml/tf:2", true)]
#[case::longer_host("registry.example.com", "registry.example.com.evil.io/ml/tf:2", false)]
#[case::longer_host_slash("registry.example.com/", "registry.example.com.evil.io/ml/tf:2", false)]
#[case::port_not_written("registry.example.com", "registry.example.com:5000/ml/tf:2", false)]
#[case::port_written("registry.example.com:5000", "registry.example.com:5000/ml/tf:2", true)]
#[case::path("registry.example.com/ml", "registry.example.com/ml/tf:2", true)]
#[case::longer_path("registry.example.com/ml", "registry.example.com/mlx/tf:2", false)]
#[case::longer_path_slash("registry.example.com/ml/", "registry.example.com/mlx/tf:2", false)]
#[case::repository("registry.example.com/ml/tf", "registry.example.com/ml/tf:2", true)]
#[case::qualified("docker.io/library", "tf:2", true)]
#[case::qualified_longer("docker.io/lib", "tf:2", false)]
fn registry_prefixes_compare_by_host_and_path_segments(
    #[case] prefix: &str,
    #[case] image: &str,
    #[case] allowed: bool,
) {
    let settings = Settings { allowed_image_registries: Some(vec![prefix.to_owned()]), ..Settings::default() };
    let mut job = good_job();
    for replica_type in ["dlrover-master", "ps", "worker"] {
        job = with(job, &format!("/spec/replicaSpecs/{replica_type}/template/spec/containers/0/image"), json!(image));
    }
    let verdict = review(request("CREATE", "ElasticJob", job), &settings);
    assert_eq!(verdict.is_accepted(), allowed, "{prefix} {image}: {verdict:?}");
    if !allowed {
        assert_eq!(rejected(&verdict).len(), 3, "{verdict:?}");
    }
}

/// The master's image is checked like any other: the one its template gives, else the operator's
/// default master image, which the core fills in (a template without an image, or no template).
#[test]
fn the_master_image_is_checked_as_the_master_runs_it() {
    let settings =
        Settings { allowed_image_registries: Some(vec!["registry.example.com/ml".to_owned()]), ..Settings::default() };
    let path = "spec.replicaSpecs.dlrover-master.template.spec.containers[0].image";
    let given =
        with(good_job(), "/spec/replicaSpecs/dlrover-master/template/spec/containers/0/image", json!("evil.io/m"));
    let mut no_image = good_job();
    no_image["spec"]["replicaSpecs"]["dlrover-master"]["template"]["spec"]["containers"][0]
        .as_object_mut()
        .unwrap()
        .remove("image");
    let mut no_template = good_job();
    no_template["spec"]["replicaSpecs"].as_object_mut().unwrap().remove("dlrover-master");
    for job in [given, no_image.clone(), no_template.clone()] {
        let verdict = review(request("CREATE", "ElasticJob", job), &settings);
        assert_eq!(rejected(&verdict), [(path.to_owned(), Code::InvalidValue)], "{verdict:?}");
    }
    let verdict = review(request("CREATE", "ElasticJob", no_template.clone()), &settings);
    assert!(
        verdict.message().unwrap().starts_with(&format!(
            "{path}: `elasticjob-dlrover-master:0.6.1` (the operator's default master image, run when the job gives the master none) is not from a registry this cluster allows"
        )),
        "{verdict:?}"
    );
    // Allowing the default master image's registry admits both.
    let settings = Settings {
        allowed_image_registries: Some(vec![
            "registry.example.com/ml".to_owned(),
            "docker.io/library/elasticjob-dlrover-master".to_owned(),
        ]),
        ..Settings::default()
    };
    for job in [no_image, no_template] {
        assert_eq!(review(request("CREATE", "ElasticJob", job), &settings), Verdict::Accepted);
    }
}

fn queued(queue: Option<&str>, suspend: Option<bool>) -> Value {
    let mut job = good_job();
    if let Some(queue) = queue {
        job["metadata"]["labels"] = json!({"kueue.x-k8s.io/queue-name": queue});
    }
    if let Some(suspend) = suspend {
        job = with(job, "/spec/suspend", json!(suspend));
    }
    job
}

fn update(object: Value, old: Value) -> AdmissionRequest {
    AdmissionRequest { old_object: old, ..request("UPDATE", "ElasticJob", object) }
}

const QUEUE_LABEL_PATH: &str = "metadata.labels.kueue.x-k8s.io/queue-name";

/// `requireQueueName`: a job is created with Kueue's queue label, not empty.
#[rstest]
#[case::labelled(Some("team-a"), true)]
#[case::unlabelled(None, false)]
#[case::empty(Some(""), false)]
fn a_job_is_created_with_a_queue(#[case] queue: Option<&str>, #[case] allowed: bool) {
    let settings = Settings { require_queue_name: true, ..Settings::default() };
    let verdict = review(request("CREATE", "ElasticJob", queued(queue, None)), &settings);
    if allowed {
        assert_eq!(verdict, Verdict::Accepted);
    } else {
        assert_eq!(rejected(&verdict), [(QUEUE_LABEL_PATH.to_owned(), Code::Required)]);
        assert_eq!(
            verdict.message().unwrap(),
            format!(
                "{QUEUE_LABEL_PATH}: the job has no Kueue queue: label it `kueue.x-k8s.io/queue-name: <LocalQueue>` (policy setting requireQueueName)"
            )
        );
    }
    // Without the setting, a job without a queue is a plain job.
    assert!(review(request("CREATE", "ElasticJob", queued(queue, None)), &Settings::default()).is_accepted());
}

/// `requireQueueName` on UPDATE: the label is never removed, and changed (or added) only when the
/// updated job is suspended, as Kueue's webhook has it; a job stored without one may stay so.
#[rstest]
#[case::kept(Some("a"), None, Some("a"), None, None)]
#[case::kept_suspended(Some("a"), Some(true), Some("a"), Some(true), None)]
#[case::changed_running(Some("a"), None, Some("b"), None, Some(Code::InvalidValue))]
#[case::changed_unsuspending(Some("a"), Some(true), Some("b"), Some(false), Some(Code::InvalidValue))]
#[case::changed_while_suspending(Some("a"), None, Some("b"), Some(true), None)]
#[case::changed_suspended(Some("a"), Some(true), Some("b"), Some(true), None)]
#[case::removed(Some("a"), None, None, None, Some(Code::Required))]
#[case::removed_suspended(Some("a"), Some(true), None, Some(true), Some(Code::Required))]
#[case::emptied(Some("a"), None, Some(""), None, Some(Code::Required))]
#[case::added_running(None, None, Some("b"), None, Some(Code::InvalidValue))]
#[case::added_suspended(None, None, Some("b"), Some(true), None)]
#[case::never_had_one(None, None, None, None, None)]
fn an_update_keeps_the_queue_of_a_running_job(
    #[case] was: Option<&str>,
    #[case] was_suspended: Option<bool>,
    #[case] queue: Option<&str>,
    #[case] suspend: Option<bool>,
    #[case] refused: Option<Code>,
) {
    let settings = Settings { require_queue_name: true, ..Settings::default() };
    let (object, old) = (queued(queue, suspend), queued(was, was_suspended));
    let verdict = review(update(object.clone(), old.clone()), &settings);
    let expected: Vec<(String, Code)> = refused.map(|code| (QUEUE_LABEL_PATH.to_owned(), code)).into_iter().collect();
    assert_eq!(rejected(&verdict), expected, "{verdict:?}");
    // The payload Kubewarden passes carries the stored object as `oldObject`.
    let mut full = full_request("UPDATE", object.clone());
    full["oldObject"] = old;
    assert_eq!(review_payload(&payload(json!({"requireQueueName": true}), full)), verdict);
    // Without the setting, the queue is Kueue's business.
    assert!(review(update(object, queued(was, was_suspended)), &Settings::default()).is_accepted());
}

#[test]
fn a_queue_change_names_both_queues() {
    let settings = Settings { require_queue_name: true, ..Settings::default() };
    let verdict = review(update(queued(Some("b"), None), queued(Some("a"), None)), &settings);
    assert_eq!(
        verdict.message().unwrap(),
        format!(
            "{QUEUE_LABEL_PATH}: the queue of a job that is not suspended cannot change (`a` to `b`): set `spec.suspend: true` in the same update, as Kueue requires (policy setting requireQueueName)"
        )
    );
    // An UPDATE without the stored object is judged as a CREATE.
    let verdict = review(update(queued(None, None), Value::Null), &settings);
    assert_eq!(rejected(&verdict), [(QUEUE_LABEL_PATH.to_owned(), Code::Required)]);
}

/// Merges `patch` onto `base`: objects key by key, arrays element by element, `null` removes a
/// key (the merge of tests/fixtures/pod-security/cases.json).
fn merged(base: &mut Value, patch: &Value) {
    match (base, patch) {
        (Value::Object(base), Value::Object(patch)) => {
            for (key, value) in patch {
                if value.is_null() {
                    base.remove(key);
                } else {
                    merged(base.entry(key.clone()).or_insert(Value::Null), value);
                }
            }
        }
        (Value::Array(base), Value::Array(patch)) => {
            for (i, value) in patch.iter().enumerate() {
                match base.get_mut(i) {
                    Some(item) => merged(item, value),
                    None => base.push(value.clone()),
                }
            }
        }
        (base, patch) => *base = patch.clone(),
    }
}

fn pod_security_cases() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pod-security/cases.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A job whose every template is `template`, but the worker's (`worker`).
fn job_with_templates(template: &Value, worker: Value) -> Value {
    let mut job = good_job();
    for replica_type in ["dlrover-master", "ps"] {
        job["spec"]["replicaSpecs"][replica_type]["template"] = template.clone();
    }
    job["spec"]["replicaSpecs"]["worker"]["template"] = worker;
    job
}

/// `podSecurity`: every case of tests/fixtures/pod-security/cases.json as the worker template of a
/// job whose other templates meet `restricted`: the fields refused are the case's.
#[test]
fn pod_templates_meet_the_pod_security_standards() {
    let doc = pod_security_cases();
    let restricted = &doc["bases"]["restricted"];
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.len() >= 50, "{} cases", cases.len());
    for level in ["baseline", "restricted"] {
        assert!(cases.iter().any(|c| c["level"] == level && c["refused"] == json!([])), "no {level} case admitted");
        assert!(cases.iter().any(|c| c["level"] == level && c["refused"] != json!([])), "no {level} case refused");
    }
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let mut template = doc["bases"][case["base"].as_str().unwrap()].clone();
        merged(&mut template, &case["template"]);
        let settings = Settings::from_value(json!({"podSecurity": case["level"]})).unwrap();
        let verdict = review(request("CREATE", "ElasticJob", job_with_templates(restricted, template)), &settings);
        let mut paths: Vec<String> = rejected(&verdict).into_iter().map(|(path, _)| path).collect();
        paths.dedup();
        let expected: Vec<String> = case["refused"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| format!("spec.replicaSpecs.worker.template.{}", p.as_str().unwrap()))
            .collect();
        assert_eq!(paths, expected, "{name}: {verdict:?}");
    }
}

#[test]
fn pod_security_messages_name_the_level_and_the_rule() {
    let worker = json!({"spec": {"containers": [{"name": "main", "image": "registry.example.com/ml/tf:2",
        "securityContext": {"capabilities": {"add": ["SYS_ADMIN"]}}}]}});
    let job = job_with_templates(&json!({"spec": {"containers": [{"name": "main", "image": "x"}]}}), worker);
    let settings = Settings::from_value(json!({"podSecurity": "baseline"})).unwrap();
    let verdict = review(request("CREATE", "ElasticJob", job.clone()), &settings);
    assert_eq!(
        verdict.message().unwrap(),
        "spec.replicaSpecs.worker.template.spec.containers[0].securityContext.capabilities.add[0]: `SYS_ADMIN` is not a capability containers may add: add only AUDIT_WRITE, CHOWN, DAC_OVERRIDE, FOWNER, FSETID, KILL, MKNOD, NET_BIND_SERVICE, SETFCAP, SETGID, SETPCAP, SETUID, SYS_CHROOT (Pod Security baseline: capabilities; policy setting podSecurity)"
    );
    let settings = Settings::from_value(json!({"podSecurity": "restricted"})).unwrap();
    let message = review(request("CREATE", "ElasticJob", job), &settings).message().unwrap();
    assert!(message.contains("capabilities.add[0]: `SYS_ADMIN`: containers may add only `NET_BIND_SERVICE` (Pod Security restricted: capabilities; policy setting podSecurity)"), "{message}");
    // An unknown level is refused with the levels there are.
    let e = Settings::from_value(json!({"podSecurity": "privileged"})).unwrap_err();
    assert_eq!(e.to_string(), "podSecurity: unknown variant `privileged`, expected `baseline` or `restricted`");
}

/// The operator's default master pod, for a job without a master template, meets restricted (issue
/// 46, item 4), and a master template without its security context does not; the job's own
/// annotations are copied onto every pod, so AppArmor's count.
#[test]
fn pod_security_checks_the_default_master_and_the_job_annotations() {
    let doc = pod_security_cases();
    let restricted = doc["bases"]["restricted"].clone();
    let mut job = job_with_templates(&restricted, restricted.clone());
    job["spec"]["replicaSpecs"].as_object_mut().unwrap().remove("dlrover-master");
    let baseline = Settings::from_value(json!({"podSecurity": "baseline"})).unwrap();
    assert_eq!(review(request("CREATE", "ElasticJob", job.clone()), &baseline), Verdict::Accepted);
    let settings = Settings::from_value(json!({"podSecurity": "restricted"})).unwrap();
    assert_eq!(review(request("CREATE", "ElasticJob", job.clone()), &settings), Verdict::Accepted);
    // The master pod the core renders is the one checked: a master template without its security
    // context is refused where the default one is not.
    let bare = json!({"template": {"spec": {"containers": [{"name": "main"}]}}});
    let with_bare = with(job.clone(), "/spec/replicaSpecs/dlrover-master", bare);
    let paths: Vec<String> =
        rejected(&review(request("CREATE", "ElasticJob", with_bare), &settings)).into_iter().map(|(p, _)| p).collect();
    let master = "spec.replicaSpecs.dlrover-master.template.spec.containers[0].securityContext";
    assert_eq!(
        paths,
        ["allowPrivilegeEscalation", "capabilities.drop", "runAsNonRoot", "seccompProfile.type"]
            .map(|f| format!("{master}.{f}"))
    );
    job["metadata"]["annotations"] = json!({"container.apparmor.security.beta.kubernetes.io/main": "unconfined"});
    let verdict = review(request("CREATE", "ElasticJob", job), &baseline);
    assert_eq!(
        rejected(&verdict),
        [("metadata.annotations.container.apparmor.security.beta.kubernetes.io/main".to_owned(), Code::InvalidValue)]
    );
}

/// `podSecurity: baseline` includes `denyPrivileged`: with both, each field is refused once.
#[test]
fn deny_privileged_and_pod_security_refuse_a_field_once() {
    let job = with(good_job(), "/spec/replicaSpecs/ps/template/spec/hostPID", json!(true));
    let both = Settings::from_value(json!({"podSecurity": "baseline", "denyPrivileged": true})).unwrap();
    let verdict = review(request("CREATE", "ElasticJob", job.clone()), &both);
    assert_eq!(rejected(&verdict), [("spec.replicaSpecs.ps.template.spec.hostPID".to_owned(), Code::InvalidValue)]);
    assert!(
        verdict.message().unwrap().ends_with("(Pod Security baseline: host namespaces; policy setting podSecurity)")
    );
    let deny = Settings::from_value(json!({"denyPrivileged": true})).unwrap();
    assert_eq!(rejected(&review(request("CREATE", "ElasticJob", job), &deny)), rejected(&verdict));
}

/// `review_payload` reads the object straight from the payload text; `review` from a parsed
/// value. Both give the same verdict, problems and paths.
#[test]
fn payloads_and_parsed_requests_get_the_same_verdict() {
    let jobs = [
        sample_job(),
        good_job(),
        with(sample_job(), "/spec/replicaSpecs/worker/replicas", json!("three")),
        with(sample_job(), "/spec/replicaSpecs/worker/template/spec/containers/0/imag", json!("x")),
        with(sample_job(), "/metadata/name", json!("Bad_Name")),
        with(sample_job(), "/spec/replicaSpecs/workers", json!({})),
        with(good_job(), "/spec/replicaSpecs/ps/template/spec/hostPID", json!(true)),
        json!([1, 2]),
        json!("a job"),
    ];
    let plans = [
        sample_plan(),
        with(sample_plan(), "/spec/psHosts", json!(["a", "a:1", "a:1"])),
        with(sample_plan(), "/spec/migratePods/0/resource/cpu", json!({"n": 1})),
        with(sample_plan(), "/spec/createPods", json!([{"name": "x", "typ": "ps"}])),
    ];
    let cases = jobs.into_iter().map(|o| ("ElasticJob", o)).chain(plans.into_iter().map(|o| ("ScalePlan", o)));
    for (kind, object) in cases {
        for operation in ["CREATE", "UPDATE", "DELETE"] {
            let mut full = full_request(operation, object.clone());
            full["kind"]["kind"] = kind.into();
            let from_payload = review_payload(&payload(serde_json::to_value(strict()).unwrap(), full));
            let parsed = review(request(operation, kind, object.clone()), &strict());
            assert_eq!(from_payload, parsed, "{operation} {kind} {object}");
        }
    }
}

#[test]
fn deep_nesting_is_a_rejection_not_a_crash() {
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let in_settings = format!(r#"{{"settings": {{"x": {deep}}}, "request": {{"operation": "CREATE"}}}}"#);
    let verdict = review_payload(in_settings.as_bytes());
    assert_eq!(verdict.code(), Some(CODE_INVALID));
    assert!(verdict.message().unwrap().contains("recursion limit exceeded"), "{verdict:?}");
    let mut request = full_request("CREATE", sample_job());
    request["object"]["metadata"]["lables"] = json!("DEEP");
    let in_object = serde_json::to_string(&json!({"request": request})).unwrap().replace("\"DEEP\"", &deep);
    let verdict = review_payload(in_object.as_bytes());
    assert_eq!(rejected(&verdict), [(String::new(), Code::Syntax)]);
    assert!(verdict.message().unwrap().contains("recursion limit exceeded at line 1 column"), "{verdict:?}");
}
