//! The Kubewarden packaging agrees with the policy: `metadata.yml` (rules, mode, annotations),
//! the `ClusterAdmissionPolicy` example in `deploy/kubewarden/`, and the README's settings table.
// A test crate: its helpers outside #[test] functions may unwrap, as the tests do
// (the workspace lints deny it in shipped code; clippy.toml allows it in #[test] functions).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::path::Path;

use elasticjob::admission::{PodSecurityLevel, Settings};
use elasticjob::api::DistributionStrategy;
use serde_json::{Value, json};

fn yaml(path: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_yaml_ng::from_str(&text).unwrap()
}

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap()
}

/// Every setting, so a new one cannot be left out of the docs (this stops compiling).
fn every_setting() -> Vec<String> {
    let all = Settings {
        max_replicas_per_type: Some(1),
        max_total_replicas: Some(1),
        allowed_strategies: Some(vec![DistributionStrategy::AllreduceStrategy]),
        require_resource_limits: true,
        allowed_image_registries: Some(vec!["r/".to_owned()]),
        deny_privileged: true,
        pod_security: Some(PodSecurityLevel::Restricted),
        max_restart_count: Some(0),
        require_queue_name: true,
        allowed_gang_schedulers: Some(vec!["volcano".to_owned()]),
        allowed_queues: Some(vec!["default".to_owned()]),
        allowed_priority_classes: Some(vec!["batch".to_owned()]),
        master_service_account: Some("elasticjob-dlrover-master".to_owned()),
        allow_user_masters: true,
        master_image: Some("registry.example.com/m:1".to_owned()),
    };
    let value = serde_json::to_value(all).unwrap();
    value.as_object().unwrap().keys().cloned().collect()
}

fn rules() -> Value {
    json!([{
        "apiGroups": ["elastic.iml.github.io"],
        "apiVersions": ["v1alpha1"],
        "resources": ["elasticjobs", "scaleplans"],
        "operations": ["CREATE", "UPDATE"]
    }])
}

#[test]
fn metadata_is_complete() {
    let metadata = yaml("metadata.yml");
    assert_eq!(metadata["rules"], rules());
    // Mutating: a queued job created unsuspended is suspended (admission::mutation_payload).
    assert_eq!(metadata["mutating"], true);
    assert_eq!(metadata["executionMode"], "kubewarden-wapc");
    assert_eq!(metadata["contextAwareResources"], json!([]));
    assert_eq!(metadata["backgroundAudit"], true);
    let annotations = metadata["annotations"].as_object().unwrap();
    for key in [
        "title",
        "version",
        "description",
        "author",
        "url",
        "source",
        "license",
        "usage",
        "category",
        "severity",
        "ociUrl",
    ] {
        let key = format!("io.kubewarden.policy.{key}");
        let value = annotations.get(&key).and_then(Value::as_str).unwrap_or_default();
        assert!(!value.trim().is_empty(), "metadata.yml has no {key}");
    }
    assert_eq!(annotations["io.kubewarden.policy.version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(annotations["io.kubewarden.policy.license"], env!("CARGO_PKG_LICENSE"));
    let usage = annotations["io.kubewarden.policy.usage"].as_str().unwrap();
    for setting in every_setting() {
        assert!(usage.contains(&format!("`{setting}`")), "the usage annotation does not describe {setting}");
    }
}

#[test]
fn the_deploy_example_matches_the_metadata_and_its_settings_are_valid() {
    let metadata = yaml("metadata.yml");
    let policy = yaml("../../deploy/kubewarden/clusteradmissionpolicy.yaml");
    assert_eq!(policy["apiVersion"], "policies.kubewarden.io/v1");
    assert_eq!(policy["kind"], "ClusterAdmissionPolicy");
    let spec = &policy["spec"];
    assert_eq!(spec["rules"], metadata["rules"]);
    assert_eq!(spec["mutating"], metadata["mutating"]);
    let oci = metadata["annotations"]["io.kubewarden.policy.ociUrl"].as_str().unwrap();
    assert_eq!(spec["module"], format!("registry://{oci}:v{}", env!("CARGO_PKG_VERSION")));
    let settings = serde_json::to_vec(&spec["settings"]).unwrap();
    assert_eq!(elasticjob_policy::validate_settings(&settings).unwrap(), br#"{"valid":true,"message":null}"#);
}

#[test]
fn the_readme_documents_every_setting() {
    let readme = readme();
    for setting in every_setting() {
        assert!(
            readme.lines().any(|l| l.starts_with(&format!("| `{setting}`"))),
            "README.md's settings table has no row for {setting}"
        );
    }
}

/// The README's rejection example is the policy's answer, word for word.
#[test]
fn the_readme_rejection_example_is_real() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/elasticjob.yaml");
    let mut job: Value = serde_yaml_ng::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    job["spec"]["replicaSpecs"]["ps"]["replicas"] = json!(-1);
    job["spec"]["replicaSpecs"]["worker"]["template"]["spec"]["containers"] = json!([]);
    job["spec"]["replicaSpecs"]["worker"]["restartCont"] = json!(3);
    let payload = json!({
        "settings": {"maxRestartCount": 2},
        "request": {
            "operation": "CREATE",
            "kind": {"group": "elastic.iml.github.io", "version": "v1alpha1", "kind": "ElasticJob"},
            "object": job
        }
    });
    let answer: Value =
        serde_json::from_slice(&elasticjob_policy::validate(&serde_json::to_vec(&payload).unwrap()).unwrap()).unwrap();
    let message = answer["message"].as_str().unwrap();
    assert!(readme().lines().any(|l| l == message), "README.md does not show the answer:\n{message}");
}

/// Every JSON answer the README shows is the answer of a fixture.
#[test]
fn the_readme_answers_are_fixture_answers() {
    let mut answers = Vec::new();
    for kind in ["validate", "settings"] {
        for entry in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(kind)).unwrap()
        {
            let text = std::fs::read_to_string(entry.unwrap().path().join("response.json")).unwrap();
            answers.push(text.trim().to_owned());
        }
    }
    let readme = readme();
    let shown: Vec<&str> =
        readme.lines().filter(|l| l.starts_with("{\"valid\"") || l.starts_with("{\"accepted\"")).collect();
    assert!(shown.len() >= 4, "{shown:?}");
    for line in shown {
        assert!(answers.iter().any(|a| a == line), "README.md shows an answer no fixture gives:\n{line}");
    }
}
