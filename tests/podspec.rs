//! The core's own `Pod`, `Service`, `ObjectMeta`, `PodTemplateSpec`, `PodSpec`, `Container`,
//! `EphemeralContainer` and `EnvVar` (`src/podspec/`) read and write what k8s-openapi's do: every
//! pod, service and template of the golden cases, and values made to reach each rule (a `null`
//! where a list or metadata is required, unknown fields, a wrong `apiVersion` or `kind`, a wrong
//! type at each level), read through the core's reader into both types, give the same error and
//! path, the same unknown fields, and the same written bytes. A time is read as the API server reads
//! one (`tests/times.rs`), not as jiff does: where the core refuses one, k8s-openapi must refuse it
//! at the same path, in its own words.

// The workspace lints deny expect in shipped code; clippy.toml allows it in #[test] functions only.
#![allow(clippy::expect_used)]
#![recursion_limit = "256"]

use std::fs;
use std::path::Path;

use elasticjob::parse::from_value;
use k8s_openapi::api::core::v1 as theirs;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use elasticjob::podspec as ours;

/// The words of the core's error for a time.
const TIME_WORDS: &str = "expected an RFC 3339 time";

/// What reading `value` as `T` gives: the written JSON text and the unknown fields' problems, or
/// the error.
fn outcome<T: DeserializeOwned + Serialize>(value: &Value) -> Result<(String, String), String> {
    match from_value::<T>(value.clone()) {
        Ok((read, unknown)) => Ok((serde_json::to_string(&read).map_err(|e| e.to_string())?, format!("{unknown:?}"))),
        Err(e) => Err(format!("{:?}", e.problems())),
    }
}

/// Reads `value` as both pairs of types and asserts they agree; returns whether it was read.
fn same(kind: &str, value: &Value) -> bool {
    let (a, b) = match kind {
        "Pod" => (outcome::<ours::Pod>(value), outcome::<theirs::Pod>(value)),
        "PodTemplateSpec" => (outcome::<ours::PodTemplateSpec>(value), outcome::<theirs::PodTemplateSpec>(value)),
        "Container" => (outcome::<ours::Container>(value), outcome::<theirs::Container>(value)),
        "EphemeralContainer" => {
            (outcome::<ours::EphemeralContainer>(value), outcome::<theirs::EphemeralContainer>(value))
        }
        "Service" => (outcome::<ours::Service>(value), outcome::<theirs::Service>(value)),
        _ => (outcome::<ours::PodSpec>(value), outcome::<theirs::PodSpec>(value)),
    };
    // The problems up to their message: a time's error is the core's words, not jiff's.
    let words =
        |e: &String| if e.contains(TIME_WORDS) { e.split(", message:").next().map(str::to_owned) } else { None };
    match (&a, &b) {
        (Err(ours), Err(theirs)) if words(ours).is_some() => {
            assert_eq!(words(ours), theirs.split(", message:").next().map(str::to_owned), "{kind} {value}");
        }
        _ => assert_eq!(a, b, "{kind} {value}"),
    }
    a.is_ok()
}

/// Every object under `value` that is a pod (`kind: Pod`) or a template (the value of a
/// `template` key holding a `spec`), with its kind.
fn pods_and_templates<'v>(value: &'v Value, found: &mut Vec<(&'static str, &'v Value)>) {
    match value {
        Value::Object(map) => {
            match map.get("kind").and_then(Value::as_str) {
                Some("Pod") => found.push(("Pod", value)),
                Some("Service") => found.push(("Service", value)),
                _ => {}
            }
            for (key, child) in map {
                if key == "template" && child.get("spec").is_some() {
                    found.push(("PodTemplateSpec", child));
                    if let Some(spec) = child.get("spec") {
                        found.push(("PodSpec", spec));
                    }
                }
                pods_and_templates(child, found);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| pods_and_templates(item, found)),
        _ => {}
    }
}

/// The inputs and outputs of every golden case, as JSON.
fn golden_values() -> Vec<Value> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut values = Vec::new();
    let mut cases: Vec<_> = fs::read_dir(&dir).expect("tests/golden").flatten().map(|e| e.path()).collect();
    cases.sort();
    for case in cases {
        let mut files: Vec<_> = fs::read_dir(&case).expect("a golden case").flatten().map(|e| e.path()).collect();
        files.sort();
        for file in files {
            let text = fs::read_to_string(&file).expect("a golden file");
            match file.extension().and_then(|e| e.to_str()) {
                Some("json") => values.push(serde_json::from_str(&text).expect("golden JSON")),
                Some("yaml") => {
                    for doc in serde_yaml_ng::Deserializer::from_str(&text) {
                        values.push(serde::Deserialize::deserialize(doc).expect("golden YAML"));
                    }
                }
                _ => {}
            }
        }
    }
    values
}

#[test]
fn the_golden_cases_pods_and_templates_read_and_write_the_same() {
    let values = golden_values();
    let mut found = Vec::new();
    for value in &values {
        pods_and_templates(value, &mut found);
    }
    let read = found.iter().filter(|(kind, value)| same(kind, value)).count();
    for kind in ["Pod", "Service", "PodTemplateSpec", "PodSpec"] {
        assert!(found.iter().filter(|(k, _)| *k == kind).count() >= 20, "too few {kind}s in the golden cases");
    }
    assert!(read * 10 >= found.len() * 9, "most should read: {read} of {}", found.len());
}

/// A spec with every field of `PodSpec` set, as the API spells it.
fn every_field() -> Value {
    json!({
        "activeDeadlineSeconds": 30, "affinity": {"nodeAffinity": {}}, "automountServiceAccountToken": false,
        "containers": [{"name": "main", "image": "tf:2"}], "dnsConfig": {"nameservers": ["1.1.1.1"]},
        "dnsPolicy": "None", "enableServiceLinks": false,
        "ephemeralContainers": [{"name": "debug", "image": "busybox"}],
        "hostAliases": [{"ip": "10.0.0.1", "hostnames": ["a"]}], "hostIPC": false, "hostNetwork": false,
        "hostPID": false, "hostUsers": true, "hostname": "h", "hostnameOverride": "o",
        "imagePullSecrets": [{"name": "pull"}], "initContainers": [{"name": "init", "image": "busybox"}],
        "nodeName": "n", "nodeSelector": {"disk": "ssd"}, "os": {"name": "linux"}, "overhead": {"cpu": "250m"},
        "preemptionPolicy": "Never", "priority": 7, "priorityClassName": "high",
        "readinessGates": [{"conditionType": "Ready"}], "resourceClaims": [{"name": "gpu"}],
        "resources": {"limits": {"cpu": "1"}}, "restartPolicy": "Never", "runtimeClassName": "kata",
        "schedulerName": "volcano", "schedulingGates": [{"name": "gate"}], "schedulingGroup": {"podGroupName": "g"},
        "securityContext": {"runAsNonRoot": true}, "serviceAccount": "sa", "serviceAccountName": "sa",
        "setHostnameAsFQDN": true, "shareProcessNamespace": false, "subdomain": "s",
        "terminationGracePeriodSeconds": 5, "tolerations": [{"key": "k", "operator": "Exists"}],
        "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}],
        "volumes": [{"name": "tmp", "emptyDir": {}}, {"name": "cfg", "configMap": {"name": "c", "defaultMode": 420}}]
    })
}

#[test]
fn every_field_and_every_rule_reads_and_writes_the_same() {
    let spec = every_field();
    let fields = spec.as_object().map_or(0, |m| m.len());
    assert_eq!(fields, 42, "PodSpec has 42 fields in Kubernetes 1.36");
    assert!(same("PodSpec", &spec));
    // Each field alone, each as null, and each of the wrong type.
    for (key, field) in spec.as_object().into_iter().flatten() {
        assert!(same("PodSpec", &json!({ key: field })), "{key}");
        same("PodSpec", &json!({ key: null }));
        assert!(!same("PodSpec", &json!({ key: "x" })) || field.is_string(), "{key}");
        assert!(!same("PodSpec", &json!({ key: [{"a": "b"}] })) || field.is_array(), "{key}");
    }
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec,
        "status": {"phase": "Running", "podIP": "10.0.0.2"}});
    assert!(same("Pod", &pod));
    for value in [
        json!({}),
        json!({"containers": null}),
        json!({"containers": null, "volumes": null}),
        json!({"containers": [], "madeUp": 1, "hostIpc": true}),
        json!({"containers": {}}),
        json!({"containers": [{"name": 3}]}),
        json!({"containers": [{"name": "a", "ports": [{"containerPort": "80"}]}]}),
        json!({"priority": 3_000_000_000_i64}),
        json!({"priority": 1.5}),
        json!({"volumes": [{"emptyDir": {}}]}),
        json!({"volumes": [{"name": "v", "hostPath": {"path": 1}}]}),
        json!([]),
        json!("spec"),
        json!(null),
    ] {
        same("PodSpec", &value);
        same("PodTemplateSpec", &json!({"spec": value}));
        same("PodTemplateSpec", &json!({"metadata": value}));
        same("Pod", &json!({"spec": value}));
    }
    for value in [
        json!({}),
        json!({"metadata": null}),
        json!({"metadata": null, "spec": null, "status": null}),
        json!({"apiVersion": "v2", "kind": "Pod"}),
        json!({"apiVersion": "v1", "kind": "Service"}),
        json!({"apiVersion": 1}),
        json!({"kind": null}),
        json!({"metadata": {"name": "p", "creationTimestamp": "yesterday"}}),
        json!({"metadata": {"creationTimestamp": "2026-01-02T03:04:05.5+01:00", "deletionTimestamp": null}}),
        json!({"metadata": {"managedFields": [{"manager": "m", "time": "2026-01-02T03:04:05Z", "fieldsV1": {"f:a": {}}}]}}),
        json!({"metadata": {"managedFields": [{"time": 5}]}}),
        json!({"metadata": {"ownerReferences": [{"apiVersion": "v1", "kind": "K", "name": "n", "uid": "u"}], "x": 1}}),
        json!({"status": {"conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-02T03:04:05Z"}]}}),
        json!({"status": {"containerStatuses": [{"name": "main", "state": {"running": {"startedAt": "x"}}}]}}),
        json!({"metadata": {}, "unknown": {"deep": [1]}}),
        json!({"status": {"phase": 1}}),
        json!(["Pod"]),
    ] {
        same("Pod", &value);
    }
    for value in [json!({}), json!({"metadata": null, "spec": null}), json!({"spec": {}, "extra": 1}), json!(5)] {
        same("PodTemplateSpec", &value);
    }
    for value in [
        json!({}),
        json!({"apiVersion": "v1", "kind": "Pod"}),
        json!({"metadata": {"name": "s", "labels": {"a": "b"}}, "spec": {"ports": [{"port": 2222}], "clusterIP": "None"}}),
        json!({"status": {"conditions": [{"type": "T", "status": "True", "lastTransitionTime": "2026-01-02T03:04:05Z",
            "reason": "R", "message": "m"}], "loadBalancer": {"ingress": [{"ip": "1.2.3.4"}]}}}),
        json!({"status": {"conditions": [{"lastTransitionTime": null}]}}),
        json!({"spec": {"ports": [{"port": "80"}]}}),
        json!({"metadata": null, "spec": null, "status": null}),
    ] {
        same("Service", &value);
    }
}

/// A container with every field of `EphemeralContainer` (`Container`'s and `targetContainerName`).
fn every_container_field() -> Value {
    json!({
        "args": ["--a"], "command": ["python"],
        "env": [{"name": "A", "value": "1"}, {"name": "P", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
        "envFrom": [{"configMapRef": {"name": "c"}, "prefix": "P_"}], "image": "tf:2", "imagePullPolicy": "Always",
        "lifecycle": {"preStop": {"sleep": {"seconds": 5}}, "postStart": {"httpGet": {"port": "http", "host": "h"}}},
        "livenessProbe": {"tcpSocket": {"port": 2222}, "periodSeconds": 3}, "name": "main",
        "ports": [{"containerPort": 2222, "name": "tf"}], "readinessProbe": {"exec": {"command": ["true"]}},
        "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"}],
        "resources": {"requests": {"cpu": "1"}}, "restartPolicy": "Always",
        "restartPolicyRules": [{"action": "Restart", "exitCodes": {"operator": "In", "values": [42]}}],
        "securityContext": {"privileged": false}, "startupProbe": {"grpc": {"port": 9000}}, "stdin": false,
        "stdinOnce": false, "targetContainerName": "main", "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File", "tty": false, "volumeDevices": [{"name": "d", "devicePath": "/dev/x"}],
        "volumeMounts": [{"name": "tmp", "mountPath": "/tmp"}], "workingDir": "/w"
    })
}

#[test]
fn containers_read_and_write_the_same() {
    let full = every_container_field();
    assert_eq!(full.as_object().map_or(0, |m| m.len()), 26, "EphemeralContainer has 26 fields in Kubernetes 1.36");
    for kind in ["Container", "EphemeralContainer"] {
        assert!(same(kind, &full));
        for (key, field) in full.as_object().into_iter().flatten() {
            assert!(same(kind, &json!({ key: field })), "{key}");
            same(kind, &json!({ key: null }));
            // A container has no `targetContainerName`: any value of it is an unknown field.
            let known = kind == "EphemeralContainer" || key != "targetContainerName";
            assert!(!same(kind, &json!({ key: "x" })) || field.is_string() || !known, "{key}");
            assert!(!same(kind, &json!({ key: [{"a": "b"}] })) || field.is_array() || !known, "{key}");
        }
        for value in
            [json!({}), json!({"name": null}), json!({"name": 1}), json!([]), json!("c"), json!({"ports": [{}]})]
        {
            same(kind, &value);
        }
    }
    let spec = json!({"containers": [full.clone()], "initContainers": [full.clone()], "ephemeralContainers": [full]});
    assert!(same("PodSpec", &spec));
    for value in [
        json!({"name": "A", "value": "1"}),
        json!({"name": "A", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}, "other": 1}}),
        json!({"name": null, "value": null, "valueFrom": null}),
        json!({"valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "1m"}}}),
        json!({"valueFrom": {"fieldRef": {}}}),
        json!({"valueFrom": "metadata.name"}),
        json!({"name": ["A"]}),
        json!([]),
    ] {
        same("EnvVar", &value);
    }
    assert!(same("PodSpec", &spec));
}
