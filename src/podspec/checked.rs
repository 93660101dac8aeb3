//! The parts of objects the core holds as JSON rather than as k8s-openapi's types: a pod's volumes,
//! the fields it only carries from a template to its pods (affinity, topology spread, DNS, host
//! aliases, readiness and scheduling gates, resource claims, scheduling group, image pull secrets,
//! OS, tolerations), the parts of a container it only looks at the surface of (probes, lifecycle
//! handlers, the sources of its environment, resize and restart rules, devices, ports, mounts), the
//! security contexts the Pod Security rules read, a pod's and a service's status, an object's
//! managed fields and the label selector a job's status carries. Each is read against the API's
//! schema (`table.rs`, made from k8s-openapi's) and held as the JSON k8s-openapi would write for
//! it, so it is read and written as before, by one reader for all of them; what the core asks of
//! one, it asks of the JSON (`get`). An owner reference is read by the same reader and held as
//! k8s-openapi's fields.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::schema;
use super::table::{self, VOLUME};

/// What a volume adds to the methods every checked type has.
impl Volume {
    /// The volume's name.
    pub fn name(&self) -> &str {
        self.get("name").and_then(Value::as_str).unwrap_or_default()
    }

    /// The volume's sources, as their fields are spelled (`emptyDir`): every field but its name.
    pub fn sources(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str).filter(|key| *key != "name")
    }

    /// Every source a volume may have, as its field is spelled, in the API's order.
    pub fn kinds() -> impl Iterator<Item = &'static str> {
        VOLUME.fields.iter().map(|f| f.key).filter(|key| *key != "name")
    }
}

/// Types of the API held as the JSON k8s-openapi would write for them, read against the table.
macro_rules! checked {
    ($($(#[$doc:meta])* $name:ident => $table:ident,)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct $name(Map<String, Value>);

        impl $name {
            /// One of the JSON k8s-openapi would write for it (an object); the caller vouches
            /// that it is.
            #[allow(dead_code)]
            pub(crate) fn of(json: Value) -> $name {
                match json {
                    Value::Object(map) => $name(map),
                    _ => $name::default(),
                }
            }

            /// The value of one of its fields, as JSON.
            pub fn get(&self, key: &str) -> Option<&Value> {
                self.0.get(key)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<$name, D::Error> {
                schema::read(&table::$table, deserializer).map($name)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                self.0.serialize(serializer)
            }
        }
    )*};
}

checked! {
    /// A pod's node and pod affinity.
    Affinity => AFFINITY,
    /// How a container is resized.
    ContainerResizePolicy => CONTAINER_RESIZE_POLICY,
    /// When a container is restarted on its exit.
    ContainerRestartRule => CONTAINER_RESTART_RULE,
    /// Where a container's environment comes from in bulk.
    EnvFromSource => ENV_FROM_SOURCE,
    /// Where a variable of a container's environment takes its value from.
    EnvVarSource => ENV_VAR_SOURCE,
    /// A reference to an object of the pod's namespace (an image pull secret).
    LocalObjectReference => LOCAL_OBJECT_REFERENCE,
    /// What a container runs after it starts and before it stops.
    Lifecycle => LIFECYCLE,
    /// A container's liveness, readiness or startup probe.
    Probe => PROBE,
    /// A block device a container sees.
    VolumeDevice => VOLUME_DEVICE,
    /// An entry of a pod's `/etc/hosts`.
    HostAlias => HOST_ALIAS,
    /// A pod's DNS settings.
    PodDNSConfig => POD_DNS_CONFIG,
    /// A condition a pod's readiness waits for.
    PodReadinessGate => POD_READINESS_GATE,
    /// A resource claim a pod's containers may use.
    PodResourceClaim => POD_RESOURCE_CLAIM,
    /// A gate a pod's scheduling waits for.
    PodSchedulingGate => POD_SCHEDULING_GATE,
    /// The scheduling group a pod belongs to.
    PodSchedulingGroup => POD_SCHEDULING_GROUP,
    /// How a pod spreads across a topology.
    TopologySpreadConstraint => TOPOLOGY_SPREAD_CONSTRAINT,
    /// A pod's volume: its name and its source.
    Volume => VOLUME,
    /// An entry of an object's `managedFields`: which manager set which fields, and when.
    ManagedFieldsEntry => MANAGED_FIELDS_ENTRY,
    /// What a pod's node reports of it.
    PodStatus => POD_STATUS,
    /// A container's security settings.
    SecurityContext => SECURITY_CONTEXT,
    /// A pod's security settings, which its containers take unless they set their own.
    PodSecurityContext => POD_SECURITY_CONTEXT,
    /// The operating system a pod's containers need.
    PodOS => POD_OS,
    /// A taint of nodes a pod tolerates (Kueue's flavors add them).
    Toleration => TOLERATION,
    /// A port a container declares.
    ContainerPort => CONTAINER_PORT,
    /// A volume mounted in a container.
    VolumeMount => VOLUME_MOUNT,
    /// What the cluster reports of a service (its load balancer, its conditions).
    ServiceStatus => SERVICE_STATUS,
    /// A selector of objects by their labels (a replica type's pods in a job's status).
    LabelSelector => LABEL_SELECTOR,
}

/// An object that owns another (a job its pods, services, PodGroups, Workloads), read against the
/// table like the types above but held as k8s-openapi's fields rather than as JSON: the core makes
/// one for every object it renders, and four strings cost less to make than a map of six entries
/// (native render no slower).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[allow(missing_docs)]
pub struct OwnerReference {
    pub api_version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_owner_deletion: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controller: Option<bool>,
    pub kind: String,
    pub name: String,
    pub uid: String,
}

impl<'de> Deserialize<'de> for OwnerReference {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<OwnerReference, D::Error> {
        let mut json = schema::read(&table::OWNER_REFERENCE, deserializer)?;
        let mut text = |key: &str| match json.remove(key) {
            Some(Value::String(text)) => text,
            _ => String::new(),
        };
        let (api_version, kind, name, uid) = (text("apiVersion"), text("kind"), text("name"), text("uid"));
        Ok(OwnerReference {
            api_version,
            block_owner_deletion: json.get("blockOwnerDeletion").and_then(Value::as_bool),
            controller: json.get("controller").and_then(Value::as_bool),
            kind,
            name,
            uid,
        })
    }
}

/// What the core reads of a pod's status.
impl PodStatus {
    /// The pod's phase (`Running`).
    pub fn phase(&self) -> Option<&str> {
        self.get("phase").and_then(Value::as_str)
    }

    /// Why the pod is in its phase (a failed master's reason is its job's).
    pub fn reason(&self) -> Option<&str> {
        self.get("reason").and_then(Value::as_str)
    }

    /// The pod's IP address.
    pub fn pod_ip(&self) -> Option<&str> {
        self.get("podIP").and_then(Value::as_str)
    }

    /// Whether the pod has the condition `type_` with the status `status`.
    pub fn has_condition(&self, type_: &str, status: &str) -> bool {
        let conditions = self.get("conditions").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        let is = |c: &Value, key: &str, want: &str| c.get(key).and_then(Value::as_str) == Some(want);
        conditions.iter().any(|c| is(c, "type", type_) && is(c, "status", status))
    }
}
