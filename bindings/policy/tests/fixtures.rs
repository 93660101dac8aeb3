//! Every fixture through the policy's functions, natively: the answer must be `response.json`
//! byte for byte. `tests/wapc_host.rs` runs the same fixtures through the built .wasm.
//! `UPDATE_FIXTURES=1 cargo test -p elasticjob-policy --test fixtures` rewrites the answers
//! (review the diff).
// A test crate: its helpers outside #[test] functions may unwrap, as the tests do
// (the workspace lints deny it in shipped code; clippy.toml allows it in #[test] functions).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod common;

use std::path::Path;

use serde_json::Value;

fn answer(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes).unwrap()
}

/// The output the native, Node and browser runners give for a golden case (tests/golden/CASE).
fn golden_output(case: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden").join(case).join("output.json");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn validate_answers_match_the_fixtures() {
    for case in common::validate_cases() {
        let bytes = elasticjob_policy::validate(&case.payload).unwrap();
        case.check(&bytes, true);
        let answer = answer(&bytes);
        assert_eq!(answer["accepted"], Value::Bool(case.name.starts_with("accept-")), "{}: {answer}", case.name);
        if case.name.starts_with("reject-") {
            let code = if case.name == "reject-invalid-settings" { 500 } else { 400 };
            assert_eq!(answer["code"], code, "{}", case.name);
            assert!(!answer["message"].as_str().unwrap_or_default().is_empty(), "{}", case.name);
        } else {
            assert_eq!(answer["message"], Value::Null, "{}", case.name);
        }
    }
}

#[test]
fn validate_settings_answers_match_the_fixtures() {
    for case in common::settings_cases() {
        let bytes = elasticjob_policy::validate_settings(&case.payload).unwrap();
        case.check(&bytes, true);
        let answer = answer(&bytes);
        assert_eq!(answer["valid"], Value::Bool(case.name.starts_with("valid-")), "{}: {answer}", case.name);
    }
}

/// The fixtures the issue asks for are all there: a missing folder fails here, not silently.
#[test]
fn every_kind_of_case_has_a_fixture() {
    let names: Vec<String> = common::validate_cases().into_iter().map(|c| c.name).collect();
    for name in [
        "accept-upstream-sample-job",
        "accept-five-replica-types",
        "accept-update-five-replica-types",
        "accept-upstream-sample-plan",
        "accept-delete",
        "accept-other-kind",
        "reject-max-replicas-per-type",
        "reject-max-total-replicas",
        "reject-allowed-strategies",
        "reject-require-resource-limits",
        "reject-allowed-image-registries",
        "reject-deny-privileged",
        "reject-max-restart-count",
        "reject-require-queue-name",
        "reject-allowed-queues-and-priority-classes",
        "accept-pod-security-baseline",
        "reject-pod-security-baseline",
        "accept-pod-security-restricted",
        "reject-pod-security-restricted",
        "reject-require-queue-name-update",
        "accept-require-queue-name-update-suspended",
        "reject-several-settings",
        "reject-malformed-job",
        "reject-invalid-job",
        "reject-bad-scale-plan",
        "reject-malformed-scale-plan",
        "reject-scale-plan-settings",
        "reject-garbage-json",
        "reject-request-without-kind",
        "reject-create-without-object",
        "reject-invalid-settings",
        "accept-allowed-gang-schedulers",
        "reject-allowed-gang-schedulers",
        "reject-no-gang-scheduler",
        "reject-gang-scheduling-policy",
        "reject-task-template-runs-as-the-masters-account",
        "reject-task-template-runs-as-the-master-service-account",
        "reject-user-master-runs-as-the-masters-account",
        "accept-user-master-runs-as-the-masters-account-when-allowed",
        "accept-own-master-runs-as-the-masters-account",
        "accept-image-volume-restricted",
        "reject-image-volume-registry",
        "accept-default-master-restricted",
    ] {
        assert!(names.iter().any(|n| n == name), "no fixture {name}");
    }
    let settings: Vec<String> = common::settings_cases().into_iter().map(|c| c.name).collect();
    assert!(settings.iter().filter(|n| n.starts_with("valid-")).count() >= 2, "{settings:?}");
    assert!(settings.iter().filter(|n| n.starts_with("invalid-")).count() >= 8, "{settings:?}");
}

/// The sample fixtures hold the upstream examples (`examples/`), as the API server stores them.
#[test]
fn sample_fixtures_are_the_upstream_examples() {
    for (case, example) in
        [("accept-upstream-sample-job", "elasticjob.yaml"), ("accept-upstream-sample-plan", "scaleplan.yaml")]
    {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(example);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut expected: Value = serde_yaml_ng::from_str(&text).unwrap();
        expected["metadata"]["namespace"] = "training".into();
        let request: Value = serde_json::from_slice(
            &std::fs::read(common::fixtures_dir().join("validate").join(case).join("request.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(request["object"], expected, "{case} no longer holds examples/{example}");
    }
}

/// The policy's mutation of a queued job is the core's `suspend_when_queued`: its mutated object,
/// read as a job and written as the core writes one, is the bytes of the golden case the Node,
/// browser and native runners give (tests/golden/suspend-when-queued).
#[test]
fn the_mutation_of_a_queued_job_is_the_golden_case() {
    let case = common::validate_case("accept-queued-job-is-suspended");
    let answer = answer(&elasticjob_policy::validate(&case.payload).unwrap());
    assert_eq!(answer["accepted"], Value::Bool(true));
    let mutated = answer["mutated_object"].clone();
    assert_eq!(mutated["spec"]["suspend"], Value::Bool(true), "{mutated}");
    let job = elasticjob::parse::job(mutated).unwrap();
    assert_eq!(format!("{}\n", serde_json::to_string_pretty(&job).unwrap()), golden_output("suspend-when-queued"));
    // A job already suspended, and one without the label, are accepted as they are.
    let plain = String::from_utf8(case.payload.clone()).unwrap().replace("kueue.x-k8s.io/queue-name", "team");
    let answer = self::answer(&elasticjob_policy::validate(plain.as_bytes()).unwrap());
    assert_eq!((answer["accepted"].clone(), answer["mutated_object"].clone()), (Value::Bool(true), Value::Null));
}

/// The policy refuses a job whose scheduling policy is wrong with the core's own words: its message
/// is the error of the golden case the native, Node and browser runners give for the same job
/// (tests/golden/gang-scheduling-policy-problems).
#[test]
fn the_refusal_of_a_bad_scheduling_policy_is_the_golden_case() {
    let case = common::validate_case("reject-gang-scheduling-policy");
    let answer = answer(&elasticjob_policy::validate(&case.payload).unwrap());
    assert_eq!(answer["accepted"], Value::Bool(false));
    let expected: Value = serde_json::from_str(&golden_output("gang-scheduling-policy-problems")).unwrap();
    assert_eq!(answer["message"], expected["error"]["message"]);
}
