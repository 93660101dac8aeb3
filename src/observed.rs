//! The readers of pods and services observed in the cluster: only the fields the core decides on,
//! read into Kubernetes' types with every other field left at its default.
//!
//! Of an observed pod the core reads its metadata (name, namespace, uid, labels, owner
//! references, deletion timestamp), the node it is bound to (a Volcano gang's floor), its phase,
//! reason (a failed master's is the job's), IP and the type and status of its conditions
//! (`DisruptionTarget`), and of its containers the names, resources and env (`TF_CONFIG`); of a
//! service its metadata and its ports and selector. Reading them through k8s-openapi's full `Pod`
//! and `Service` compiled a reader of every field Kubernetes has (volumes, probes, conditions,
//! container statuses) into the WebAssembly; these narrow types read the same fields at the same
//! paths, the same way (`deserialize_defaults!`, its test holding their keys to k8s-openapi's):
//! apiVersion and kind checked when given, a missing or null field its default, unknown fields
//! ignored.

use std::collections::BTreeMap;

use crate::fields::deserialize_defaults;
use crate::podspec::{Container, EnvVar, ObjectMeta, Pod, PodSpec, PodStatus, Service};
use k8s_openapi::api::core::v1::{ResourceRequirements, ServicePort, ServiceSpec};
use serde::{Deserialize, Deserializer};
use serde_json::{Value, json};

/// An observed pod, as far as the core reads one.
pub(crate) struct ObservedPod {
    _api_version: ApiVersionV1,
    _kind: KindPod,
    metadata: Option<ObjectMeta>,
    spec: Option<ObservedPodSpec>,
    status: Option<ObservedPodStatus>,
}

struct ObservedPodSpec {
    containers: Option<Vec<ObservedContainer>>,
    node_name: Option<String>,
}

struct ObservedContainer {
    name: Option<String>,
    env: Option<Vec<EnvVar>>,
    resources: Option<ResourceRequirements>,
}

struct ObservedPodStatus {
    phase: Option<String>,
    reason: Option<String>,
    pod_ip: Option<String>,
    conditions: Option<Vec<ObservedPodCondition>>,
}

struct ObservedPodCondition {
    type_: Option<String>,
    status: Option<String>,
}

/// An observed service, as far as the core reads one.
pub(crate) struct ObservedService {
    _api_version: ApiVersionV1,
    _kind: KindService,
    metadata: Option<ObjectMeta>,
    spec: Option<ObservedServiceSpec>,
}

struct ObservedServiceSpec {
    ports: Option<Vec<ServicePort>>,
    selector: Option<BTreeMap<String, String>>,
}

deserialize_defaults! {
    test observed_keys_are_the_api_ones;
    ObservedPod in Pod { _api_version "apiVersion", _kind "kind", metadata "metadata", spec "spec", status "status", }
    ObservedPodSpec in PodSpec { containers "containers", node_name "nodeName", }
    ObservedContainer in Container { name "name", env "env", resources "resources", }
    ObservedPodStatus in k8s_openapi::api::core::v1::PodStatus {
        phase "phase", reason "reason", pod_ip "podIP", conditions "conditions",
    }
    ObservedPodCondition in k8s_openapi::api::core::v1::PodCondition { type_ "type", status "status", }
    ObservedService in Service { _api_version "apiVersion", _kind "kind", metadata "metadata", spec "spec", }
    ObservedServiceSpec in ServiceSpec { ports "ports", selector "selector", }
}

impl From<ObservedPod> for Pod {
    fn from(pod: ObservedPod) -> Pod {
        Pod {
            metadata: pod.metadata.unwrap_or_default(),
            spec: pod.spec.map(|s| PodSpec {
                containers: s
                    .containers
                    .unwrap_or_default()
                    .into_iter()
                    .map(|c| Container {
                        name: c.name.unwrap_or_default(),
                        env: c.env,
                        resources: c.resources,
                        ..Container::default()
                    })
                    .collect(),
                node_name: s.node_name,
                ..PodSpec::default()
            }),
            status: pod.status.map(|s| {
                let conditions = s.conditions.map(|cs| {
                    let condition = |c: ObservedPodCondition| {
                        json!({"status": c.status.unwrap_or_default(), "type": c.type_.unwrap_or_default()})
                    };
                    cs.into_iter().map(condition).collect::<Vec<_>>()
                });
                // The JSON k8s-openapi writes: the fields in the order of their keys, unset ones left out.
                let fields = [("conditions", conditions.map(Value::from)), ("phase", s.phase.map(Value::from))];
                let more = [("podIP", s.pod_ip.map(Value::from)), ("reason", s.reason.map(Value::from))];
                let set = fields.into_iter().chain(more).filter_map(|(k, v)| Some((k.to_owned(), v?)));
                // Inserted rather than collected: `collect` compiles a sort and a bulk build of its own
                // (src/sorted.rs).
                let mut status = serde_json::Map::new();
                status.extend(set);
                PodStatus::of(Value::Object(status))
            }),
        }
    }
}

impl From<ObservedService> for Service {
    fn from(service: ObservedService) -> Service {
        Service {
            metadata: service.metadata.unwrap_or_default(),
            spec: service.spec.map(|s| ServiceSpec { ports: s.ports, selector: s.selector, ..ServiceSpec::default() }),
            status: None,
        }
    }
}

/// A type tag that, when given, must be one value, as k8s-openapi's readers of `Pod` and `Service`
/// check their `apiVersion` (`v1`) and `kind`.
macro_rules! type_tags {
    ($($name:ident $want:literal,)*) => {$(
        #[derive(Default)]
        struct $name;

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<$name, D::Error> {
                crate::podspec::type_tag(String::deserialize(deserializer)?, $want).map(|()| $name)
            }
        }
    )*};
}

type_tags! {
    ApiVersionV1 "v1",
    KindPod "Pod",
    KindService "Service",
}
