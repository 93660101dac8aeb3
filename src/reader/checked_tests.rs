//! The table-driven reader of the parts of a pod spec held as JSON (`podspec::schema`, the
//! types of `podspec/checked.rs`) against k8s-openapi's compiled readers, through this reader: the
//! same error at the same path, the same unknown fields, the same JSON written, for every field of
//! every type the table has.

use k8s_openapi::api::core::v1 as theirs;
use k8s_openapi::apimachinery::pkg::apis::meta::v1 as meta;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::read;
use crate::podspec::schema::{Kind, Type};
use crate::podspec::{self as ours, PodSpec, Volume, table};

/// What reading `value` as `T` gives: the written JSON or the error's words, the error's path,
/// and the unknown fields.
fn outcome<T: DeserializeOwned + Serialize>(value: &Value) -> (Result<String, String>, String, Vec<String>) {
    let outcome = read::<T>(value.clone());
    let written = outcome.result.map(|v| serde_json::to_string(&v).unwrap_or_default()).map_err(|e| e.to_string());
    (written, outcome.error_path, outcome.unknown)
}

/// What a read gives: the written JSON or the error's words, the error's path, the unknown fields.
type Outcome = (Result<String, String>, String, Vec<String>);

/// Reads a value as the core's type and as k8s-openapi's.
fn both<Ours: DeserializeOwned + Serialize, Theirs: DeserializeOwned + Serialize>(value: &Value) -> (Outcome, Outcome) {
    (outcome::<Ours>(value), outcome::<Theirs>(value))
}

/// A part of a pod spec held as JSON: its table, its key in a pod spec (or in the spec's first
/// container), whether it is a list there, and its reading through both types.
struct Root {
    ty: &'static Type,
    key: &'static str,
    list: bool,
    in_container: bool,
    read: fn(&Value) -> (Outcome, Outcome),
}

const ROOTS: [Root; 28] = [
    Root { ty: &table::VOLUME, key: "volumes", list: true, in_container: false, read: both::<Volume, theirs::Volume> },
    Root {
        ty: &table::AFFINITY,
        key: "affinity",
        list: false,
        in_container: false,
        read: both::<ours::Affinity, theirs::Affinity>,
    },
    Root {
        ty: &table::HOST_ALIAS,
        key: "hostAliases",
        list: true,
        in_container: false,
        read: both::<ours::HostAlias, theirs::HostAlias>,
    },
    Root {
        ty: &table::POD_DNS_CONFIG,
        key: "dnsConfig",
        list: false,
        in_container: false,
        read: both::<ours::PodDNSConfig, theirs::PodDNSConfig>,
    },
    Root {
        ty: &table::POD_READINESS_GATE,
        key: "readinessGates",
        list: true,
        in_container: false,
        read: both::<ours::PodReadinessGate, theirs::PodReadinessGate>,
    },
    Root {
        ty: &table::POD_RESOURCE_CLAIM,
        key: "resourceClaims",
        list: true,
        in_container: false,
        read: both::<ours::PodResourceClaim, theirs::PodResourceClaim>,
    },
    Root {
        ty: &table::POD_SCHEDULING_GATE,
        key: "schedulingGates",
        list: true,
        in_container: false,
        read: both::<ours::PodSchedulingGate, theirs::PodSchedulingGate>,
    },
    Root {
        ty: &table::POD_SCHEDULING_GROUP,
        key: "schedulingGroup",
        list: false,
        in_container: false,
        read: both::<ours::PodSchedulingGroup, theirs::PodSchedulingGroup>,
    },
    Root {
        ty: &table::TOPOLOGY_SPREAD_CONSTRAINT,
        key: "topologySpreadConstraints",
        list: true,
        in_container: false,
        read: both::<ours::TopologySpreadConstraint, theirs::TopologySpreadConstraint>,
    },
    Root {
        ty: &table::CONTAINER_RESIZE_POLICY,
        key: "resizePolicy",
        list: true,
        in_container: true,
        read: both::<ours::ContainerResizePolicy, theirs::ContainerResizePolicy>,
    },
    Root {
        ty: &table::CONTAINER_RESTART_RULE,
        key: "restartPolicyRules",
        list: true,
        in_container: true,
        read: both::<ours::ContainerRestartRule, theirs::ContainerRestartRule>,
    },
    Root {
        ty: &table::ENV_FROM_SOURCE,
        key: "envFrom",
        list: true,
        in_container: true,
        read: both::<ours::EnvFromSource, theirs::EnvFromSource>,
    },
    Root {
        ty: &table::LIFECYCLE,
        key: "lifecycle",
        list: false,
        in_container: true,
        read: both::<ours::Lifecycle, theirs::Lifecycle>,
    },
    Root {
        ty: &table::PROBE,
        key: "livenessProbe",
        list: false,
        in_container: true,
        read: both::<ours::Probe, theirs::Probe>,
    },
    Root {
        ty: &table::VOLUME_DEVICE,
        key: "volumeDevices",
        list: true,
        in_container: true,
        read: both::<ours::VolumeDevice, theirs::VolumeDevice>,
    },
    Root {
        ty: &table::ENV_VAR_SOURCE,
        key: "valueFrom",
        list: false,
        in_container: true,
        read: both::<ours::EnvVarSource, theirs::EnvVarSource>,
    },
    Root {
        ty: &table::LOCAL_OBJECT_REFERENCE,
        key: "imagePullSecrets",
        list: true,
        in_container: false,
        read: both::<ours::LocalObjectReference, theirs::LocalObjectReference>,
    },
    Root {
        ty: &table::SECURITY_CONTEXT,
        key: "securityContext",
        list: false,
        in_container: true,
        read: both::<ours::SecurityContext, theirs::SecurityContext>,
    },
    Root {
        ty: &table::POD_SECURITY_CONTEXT,
        key: "securityContext",
        list: false,
        in_container: false,
        read: both::<ours::PodSecurityContext, theirs::PodSecurityContext>,
    },
    Root { ty: &table::POD_OS, key: "os", list: false, in_container: false, read: both::<ours::PodOS, theirs::PodOS> },
    Root {
        ty: &table::CONTAINER_PORT,
        key: "ports",
        list: true,
        in_container: true,
        read: both::<ours::ContainerPort, theirs::ContainerPort>,
    },
    Root {
        ty: &table::VOLUME_MOUNT,
        key: "volumeMounts",
        list: true,
        in_container: true,
        read: both::<ours::VolumeMount, theirs::VolumeMount>,
    },
    Root {
        ty: &table::TOLERATION,
        key: "tolerations",
        list: true,
        in_container: false,
        read: both::<ours::Toleration, theirs::Toleration>,
    },
    // Outside a pod spec: placed in a pod's (or a service's) metadata or status.
    Root {
        ty: &table::MANAGED_FIELDS_ENTRY,
        key: "managedFields",
        list: true,
        in_container: false,
        read: both::<ours::ManagedFieldsEntry, meta::ManagedFieldsEntry>,
    },
    Root {
        ty: &table::OWNER_REFERENCE,
        key: "ownerReferences",
        list: true,
        in_container: false,
        read: both::<ours::OwnerReference, meta::OwnerReference>,
    },
    Root {
        ty: &table::POD_STATUS,
        key: "status",
        list: false,
        in_container: false,
        read: both::<ours::PodStatus, theirs::PodStatus>,
    },
    Root {
        ty: &table::SERVICE_STATUS,
        key: "status",
        list: false,
        in_container: false,
        read: both::<ours::ServiceStatus, theirs::ServiceStatus>,
    },
    // Placed in a replica type's status of a job.
    Root {
        ty: &table::LABEL_SELECTOR,
        key: "labelSelector",
        list: false,
        in_container: false,
        read: both::<ours::LabelSelector, meta::LabelSelector>,
    },
];

/// A label selector placed where a replica type's status holds one (`api::ReplicaStatus`, of a layer
/// this one does not import): the core's or k8s-openapi's.
#[derive(serde::Deserialize, Serialize)]
struct Placed<S> {
    #[serde(rename = "labelSelector", default, skip_serializing_if = "Option::is_none")]
    label_selector: Option<S>,
}

/// The words of the core's error for a time, which reads a time as the API server does
/// (`podspec/time.rs`, held equal to apimachinery's by `tests/times.rs`) rather than as jiff does.
const TIME_WORDS: &str = "expected an RFC 3339 time";

/// Asserts the same outcome, but for the words of an error about a time: where the core refuses a
/// time, k8s-openapi must refuse it too, at the same path.
fn assert_same(ours: &Outcome, theirs: &Outcome, what: &dyn std::fmt::Display) {
    let mut theirs = theirs.clone();
    if let (Err(words), Err(their_words)) = (&ours.0, &mut theirs.0)
        && words.contains(TIME_WORDS)
    {
        their_words.clone_from(words);
    }
    assert_eq!(*ours, theirs, "{what}");
}

/// Reads `value` as the root's type through the table and through k8s-openapi, alone and inside a
/// pod spec (where the paths are longer), and asserts the same outcome; returns whether it read.
fn same(root: &Root, value: &Value) -> bool {
    let (ours, theirs) = (root.read)(value);
    assert_same(&ours, &theirs, &format_args!("{} {value}", root.ty.name));
    // An environment variable's source is placed in a variable of the container's environment.
    let (key, field) = match root.key {
        "valueFrom" => ("env", json!([{"name": "A", "value": "1"}, {"name": "E", "valueFrom": value}])),
        key if root.list => (key, json!([{"name": "first"}, value])),
        key => (key, value.clone()),
    };
    // A root outside a pod spec, in the object it belongs to (a label selector in a replica type's
    // status).
    let object = match root.ty.name {
        "ManagedFieldsEntry" | "OwnerReference" => Some(("Pod", json!({"metadata": {key: field}}))),
        "PodStatus" => Some(("Pod", json!({key: field}))),
        "ServiceStatus" => Some(("Service", json!({key: field}))),
        "LabelSelector" => Some(("ReplicaStatus", json!({key: field}))),
        _ => None,
    };
    if let Some((kind, object)) = object {
        let (placed, theirs_placed) = match kind {
            "Pod" => (outcome::<ours::Pod>(&object), outcome::<theirs::Pod>(&object)),
            "Service" => (outcome::<ours::Service>(&object), outcome::<theirs::Service>(&object)),
            _ => (outcome::<Placed<ours::LabelSelector>>(&object), outcome::<Placed<meta::LabelSelector>>(&object)),
        };
        assert_same(&placed, &theirs_placed, &object);
        return ours.0.is_ok();
    }
    let spec = if root.in_container {
        json!({"containers": [{"name": "main", key: field}], "ephemeralContainers": [{"name": "e", key: field}]})
    } else {
        json!({"containers": [], key: field})
    };
    assert_same(&outcome::<PodSpec>(&spec), &outcome::<theirs::PodSpec>(&spec), &spec);
    ours.0.is_ok()
}

/// A good value of a kind, with every field of an object set, down to `depth` objects.
fn full(kind: &Kind, depth: usize) -> Value {
    match kind {
        Kind::Str => json!("text"),
        Kind::Bool => json!(true),
        Kind::I32 => json!(420),
        Kind::I64 => json!(3_000_000_000_i64),
        Kind::Quantity => json!("250m"),
        Kind::Time => json!("2026-01-02T03:04:05.5+01:00"),
        Kind::FieldsV1 => json!({"f:metadata": {}}),
        Kind::IntOrString => json!(8080),
        Kind::Object(ty) if depth > 0 => full_object(ty, depth - 1),
        Kind::Object(_) => json!({}),
        Kind::Array(kind) => json!([full(kind, depth), full(kind, depth)]),
        Kind::Map(kind) => json!({"b": full(kind, depth), "a": full(kind, depth)}),
    }
}

fn full_object(ty: &Type, depth: usize) -> Value {
    Value::Object(ty.fields.iter().map(|f| (f.key.to_owned(), full(&f.kind, depth))).collect())
}

/// Every type the root reaches, once, with the path of keys that reaches it.
fn reachable(root: &Root) -> Vec<(Vec<&'static str>, &'static Type)> {
    let mut seen: Vec<(Vec<&'static str>, &'static Type)> = vec![(Vec::new(), root.ty)];
    let mut i = 0;
    while let Some((path, ty)) = seen.get(i).cloned() {
        for field in ty.fields {
            let mut kind = &field.kind;
            while let Kind::Array(k) | Kind::Map(k) = kind {
                kind = k;
            }
            if let Kind::Object(next) = kind
                && !seen.iter().any(|(_, t)| std::ptr::eq(*t, *next))
            {
                seen.push(([path.clone(), vec![field.key]].concat(), next));
            }
        }
        i += 1;
    }
    seen
}

/// `inner` placed at `path` under the root (arrays and maps on the way hold it once; a volume is
/// named `v`).
fn at(root: &Root, path: &[&'static str], inner: Value) -> Value {
    let mut value = inner;
    let mut ty: Vec<&'static Type> = vec![root.ty];
    for key in path {
        let Some(field) = ty.last().and_then(|t| t.fields.iter().find(|f| f.key == *key)) else { break };
        let mut kind = &field.kind;
        while let Kind::Array(k) | Kind::Map(k) = kind {
            kind = k;
        }
        if let Kind::Object(next) = kind {
            ty.push(next);
        }
    }
    // Wrap from the innermost key out.
    for (depth, key) in path.iter().enumerate().rev() {
        let field = ty.get(depth).and_then(|t| t.fields.iter().find(|f| f.key == *key));
        let wrapped = match field.map(|f| &f.kind) {
            Some(Kind::Array(_)) => json!([value]),
            Some(Kind::Map(_)) => json!({"k": value}),
            _ => value,
        };
        value = json!({ *key: wrapped });
    }
    if let Value::Object(map) = &mut value
        && std::ptr::eq(root.ty, &table::VOLUME)
    {
        map.entry("name").or_insert(json!("v"));
    }
    value
}

#[test]
fn every_type_and_field_reads_and_writes_as_k8s_openapis() {
    let mut types = 0;
    for root in &ROOTS {
        let reached = reachable(root);
        types += reached.len();
        let mut read = 0;
        for (path, ty) in &reached {
            read += usize::from(same(root, &at(root, path, full_object(ty, 2))));
            same(root, &at(root, path, json!({})));
            same(root, &at(root, path, json!({"unknownField": 1, "another": {"deep": null}})));
            same(root, &at(root, path, json!("a string where an object belongs")));
            same(root, &at(root, path, json!([])));
            for field in ty.fields {
                let key = field.key;
                same(root, &at(root, path, json!({ key: null })));
                same(root, &at(root, path, json!({ key: full(&field.kind, 1) })));
                for wrong in [
                    json!("x"),
                    json!(7),
                    json!(-1.5),
                    json!(true),
                    json!([1]),
                    json!({"a": 1}),
                    json!(4_000_000_000_u64),
                ] {
                    same(root, &at(root, path, json!({ key: wrong })));
                }
            }
        }
        assert_eq!(read, reached.len(), "every full object of {} reads", root.ty.name);
    }
    assert!(types > 100, "{types} types");
    // What the core relies on: a volume's name among the keys k8s-openapi writes, its sources set.
    let volume = &ROOTS[0];
    assert!(same(volume, &json!({"name": "tmp", "emptyDir": {"sizeLimit": "1Gi"}, "hostPath": {}})));
    assert!(same(
        volume,
        &json!({"name": "t", "emptyDir": null, "projected": {"sources": [{"serviceAccountToken": {}}]}})
    ));
}

#[test]
fn times_are_read_as_the_api_server_reads_them() {
    let claim = |time: &str| json!({"name": "v", "ephemeral": {"volumeClaimTemplate": {"metadata": {"creationTimestamp": time}, "spec": {}}}});
    // Written as k8s-openapi writes them: in UTC, whole seconds.
    for time in [
        "2026-01-02T03:04:05Z",
        "2026-01-02T03:04:05.999999999+01:00",
        "1970-01-01T00:00:00Z",
        "0099-03-01T00:00:00Z",
        "2024-02-29T23:59:59.5-00:00",
    ] {
        assert!(same(&ROOTS[0], &claim(time)), "{time}");
    }
    // Refused where the API server refuses them, at their path, though jiff reads them: a sign or six
    // digits in the year, a leap second, a space or a lowercase `t` for the `T`.
    for time in [
        "-000001-06-01T12:00:00Z",
        "+002026-01-02T03:04:05Z",
        "2024-12-31T23:59:60Z",
        "2026-01-02 03:04:05Z",
        "2026-01-02t03:04:05Z",
    ] {
        let (ours, theirs) = (ROOTS[0].read)(&claim(time));
        assert!(ours.0.is_err_and(|e| e.contains(TIME_WORDS)) && theirs.0.is_ok(), "{time}");
        assert_eq!(ours.1, "ephemeral.volumeClaimTemplate.metadata.creationTimestamp");
    }
}

#[test]
fn the_volume_says_its_name_and_sources() {
    let volume = read::<Volume>(json!({"name": "cfg", "configMap": {"name": "c"}, "secret": null}))
        .result
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(volume.name(), "cfg");
    assert_eq!(volume.sources().collect::<Vec<_>>(), ["configMap"]);
    assert_eq!(volume.get("configMap"), Some(&json!({"name": "c"})));
    assert_eq!(Volume::kinds().count(), 30);
}
