//! The core's own `Pod`, `PodTemplateSpec`, `PodSpec`, `Container`, `EphemeralContainer` and
//! `EnvVar`, and `ObjectMeta`, `Service` and `Time` (`meta.rs`, `time.rs`): the same JSON in and out
//! as k8s-openapi's (`api::core::v1`), field for field, with the other types of a pod k8s-openapi's
//! or held as checked JSON (`checked.rs`). A time is the exception: it is read as the API server
//! reads one, which k8s-openapi's jiff-based `Time` does not (`time.rs`).
//!
//! Why a copy: a pod spec's readers are most of the WebAssembly modules' bytes
//! (docs/benchmarks.md, "Where the modules' bytes go"), and k8s-openapi's `PodSpec` fixes the type
//! of every field. With the spec the core's own, the parts of it the core never looks into (the
//! thirty sources of a `Volume`, affinity, topology spread and the like: `checked.rs`) are held as
//! JSON read against the API's schema (`schema.rs`, `table.rs`) rather than by compiled code.
//!
//! What stays as k8s-openapi has it, so that a job, a plan and a pod read and write the same bytes
//! as before (`tests/podspec.rs` reads and writes the same values through both):
//! - the fields, their JSON names and the order they are written in;
//! - a missing or `null` required field (`containers`, a pod's `metadata`, a container's or a
//!   variable's `name`) read as empty and written, `null` for any other field read as unset, and an
//!   unset field not written;
//! - a pod's and a service's `apiVersion` and `kind` written, and refused when they are not `v1`
//!   and their kind;
//! - the words a shape error uses for each type (`expected PodSpec`).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::ResourceRequirements;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

mod checked;
#[cfg(all(test, feature = "schema"))]
mod generate;
pub(crate) mod schema;
#[rustfmt::skip]
pub(crate) mod table;
mod time;

pub use checked::{
    Affinity, ContainerPort, ContainerResizePolicy, ContainerRestartRule, EnvFromSource, EnvVarSource, HostAlias,
    LabelSelector, Lifecycle, LocalObjectReference, ManagedFieldsEntry, OwnerReference, PodDNSConfig, PodOS,
    PodReadinessGate, PodResourceClaim, PodSchedulingGate, PodSchedulingGroup, PodSecurityContext, PodStatus, Probe,
    SecurityContext, ServiceStatus, Toleration, TopologySpreadConstraint, Volume, VolumeDevice, VolumeMount,
};
pub use time::{Time, TimeError};

/// A pod's template: the metadata and spec of the pods made from it.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(expecting = "PodTemplateSpec")]
pub struct PodTemplateSpec {
    /// The metadata of the pods made from the template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<ObjectMeta>,
    /// The spec of the pods made from the template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec: Option<PodSpec>,
}

/// A struct of the API, field by field: the name, the JSON key, the type (the fields are
/// documented in the API reference), read and written as k8s-openapi reads and writes it.
macro_rules! mirror {
    ($(#[$doc:meta])* $name:ident, $keys:ident { $($field:ident $key:literal: $type:ty,)* }) => {
        $(#[$doc])*
        #[allow(missing_docs)]
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct $name {
            $(pub $field: $type,)*
        }

        /// The keys of the struct.
        #[allow(non_camel_case_types)]
        enum $keys {
            $($field,)*
            Other,
        }

        impl Keys for $keys {
            fn of(key: &str) -> $keys {
                match key {
                    $($key => $keys::$field,)*
                    _ => $keys::Other,
                }
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<$name, D::Error> {
                struct StructVisitor;

                impl<'de> Visitor<'de> for StructVisitor {
                    type Value = $name;

                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str(stringify!($name))
                    }

                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<$name, A::Error> {
                        let mut value = $name::default();
                        while let Some(Key(key)) = map.next_key::<Key<$keys>>()? {
                            match key {
                                $($keys::$field => value.$field.read(&mut map)?,)*
                                $keys::Other => {
                                    map.next_value::<IgnoredAny>()?;
                                }
                            }
                        }
                        Ok(value)
                    }
                }

                deserializer.deserialize_struct(stringify!($name), &[$($key),*], StructVisitor)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let fields = 0 $(+ usize::from(self.$field.is_set()))*;
                let mut state = serializer.serialize_struct(stringify!($name), fields)?;
                $(if self.$field.is_set() {
                    state.serialize_field($key, &self.$field)?;
                })*
                state.end()
            }
        }
    };
}

mirror! {
    /// A pod's spec, as the API's `io.k8s.api.core.v1.PodSpec` (Kubernetes 1.36) has it.
    PodSpec, SpecKey {
        active_deadline_seconds "activeDeadlineSeconds": Option<i64>,
        affinity "affinity": Option<Affinity>,
        automount_service_account_token "automountServiceAccountToken": Option<bool>,
        containers "containers": Vec<Container>,
        dns_config "dnsConfig": Option<PodDNSConfig>,
        dns_policy "dnsPolicy": Option<String>,
        enable_service_links "enableServiceLinks": Option<bool>,
        ephemeral_containers "ephemeralContainers": Option<Vec<EphemeralContainer>>,
        host_aliases "hostAliases": Option<Vec<HostAlias>>,
        host_ipc "hostIPC": Option<bool>,
        host_network "hostNetwork": Option<bool>,
        host_pid "hostPID": Option<bool>,
        host_users "hostUsers": Option<bool>,
        hostname "hostname": Option<String>,
        hostname_override "hostnameOverride": Option<String>,
        image_pull_secrets "imagePullSecrets": Option<Vec<LocalObjectReference>>,
        init_containers "initContainers": Option<Vec<Container>>,
        node_name "nodeName": Option<String>,
        node_selector "nodeSelector": Option<BTreeMap<String, String>>,
        os "os": Option<PodOS>,
        overhead "overhead": Option<BTreeMap<String, Quantity>>,
        preemption_policy "preemptionPolicy": Option<String>,
        priority "priority": Option<i32>,
        priority_class_name "priorityClassName": Option<String>,
        readiness_gates "readinessGates": Option<Vec<PodReadinessGate>>,
        resource_claims "resourceClaims": Option<Vec<PodResourceClaim>>,
        resources "resources": Option<ResourceRequirements>,
        restart_policy "restartPolicy": Option<String>,
        runtime_class_name "runtimeClassName": Option<String>,
        scheduler_name "schedulerName": Option<String>,
        scheduling_gates "schedulingGates": Option<Vec<PodSchedulingGate>>,
        scheduling_group "schedulingGroup": Option<PodSchedulingGroup>,
        security_context "securityContext": Option<PodSecurityContext>,
        service_account "serviceAccount": Option<String>,
        service_account_name "serviceAccountName": Option<String>,
        set_hostname_as_fqdn "setHostnameAsFQDN": Option<bool>,
        share_process_namespace "shareProcessNamespace": Option<bool>,
        subdomain "subdomain": Option<String>,
        termination_grace_period_seconds "terminationGracePeriodSeconds": Option<i64>,
        tolerations "tolerations": Option<Vec<Toleration>>,
        topology_spread_constraints "topologySpreadConstraints": Option<Vec<TopologySpreadConstraint>>,
        volumes "volumes": Option<Vec<Volume>>,
    }
}

/// A container of the API, mirrored with its fields in the API's order, `$extra` after `stdinOnce`
/// (an ephemeral container's `targetContainerName`).
macro_rules! container {
    ($(#[$doc:meta])* $name:ident, $keys:ident { $($extra:tt)* }) => {
        mirror! {
            $(#[$doc])*
            $name, $keys {
                args "args": Option<Vec<String>>,
                command "command": Option<Vec<String>>,
                env "env": Option<Vec<EnvVar>>,
                env_from "envFrom": Option<Vec<EnvFromSource>>,
                image "image": Option<String>,
                image_pull_policy "imagePullPolicy": Option<String>,
                lifecycle "lifecycle": Option<Lifecycle>,
                liveness_probe "livenessProbe": Option<Probe>,
                name "name": String,
                ports "ports": Option<Vec<ContainerPort>>,
                readiness_probe "readinessProbe": Option<Probe>,
                resize_policy "resizePolicy": Option<Vec<ContainerResizePolicy>>,
                resources "resources": Option<ResourceRequirements>,
                restart_policy "restartPolicy": Option<String>,
                restart_policy_rules "restartPolicyRules": Option<Vec<ContainerRestartRule>>,
                security_context "securityContext": Option<SecurityContext>,
                startup_probe "startupProbe": Option<Probe>,
                stdin "stdin": Option<bool>,
                stdin_once "stdinOnce": Option<bool>,
                $($extra)*
                termination_message_path "terminationMessagePath": Option<String>,
                termination_message_policy "terminationMessagePolicy": Option<String>,
                tty "tty": Option<bool>,
                volume_devices "volumeDevices": Option<Vec<VolumeDevice>>,
                volume_mounts "volumeMounts": Option<Vec<VolumeMount>>,
                working_dir "workingDir": Option<String>,
            }
        }
    };
}

mod meta;
pub use meta::{ObjectMeta, Pod, Service};

mirror! {
    /// A variable of a container's environment, as the API's `io.k8s.api.core.v1.EnvVar`
    /// (Kubernetes 1.36) has it.
    EnvVar, EnvVarKey {
        name "name": String,
        value "value": Option<String>,
        value_from "valueFrom": Option<EnvVarSource>,
    }
}

container! {
    /// A container, as the API's `io.k8s.api.core.v1.Container` (Kubernetes 1.36) has it.
    Container, ContainerKey {}
}

container! {
    /// An ephemeral container, as the API's `io.k8s.api.core.v1.EphemeralContainer` (Kubernetes
    /// 1.36) has it.
    EphemeralContainer, EphemeralKey { target_container_name "targetContainerName": Option<String>, }
}

/// A field of a mirrored struct, read and written as k8s-openapi does: an optional field read with
/// `null` as unset and written only when set; a required string or list read with `null` or
/// nothing as empty, and always written.
trait Field: Sized {
    /// Reads the field's value in place: not inlined, so that a struct's reader is one call a
    /// field and each type of field is read by one function.
    fn read<'de, A: MapAccess<'de>>(&mut self, map: &mut A) -> Result<(), A::Error>;
    fn is_set(&self) -> bool;
}

impl<T: for<'de> Deserialize<'de>> Field for Option<T> {
    #[inline(never)]
    fn read<'de, A: MapAccess<'de>>(&mut self, map: &mut A) -> Result<(), A::Error> {
        *self = map.next_value()?;
        Ok(())
    }

    fn is_set(&self) -> bool {
        self.is_some()
    }
}

impl Field for String {
    #[inline(never)]
    fn read<'de, A: MapAccess<'de>>(&mut self, map: &mut A) -> Result<(), A::Error> {
        *self = map.next_value::<Option<String>>()?.unwrap_or_default();
        Ok(())
    }

    fn is_set(&self) -> bool {
        true
    }
}

impl<T: for<'de> Deserialize<'de>> Field for Vec<T> {
    #[inline(never)]
    fn read<'de, A: MapAccess<'de>>(&mut self, map: &mut A) -> Result<(), A::Error> {
        *self = map.next_value::<Option<Vec<T>>>()?.unwrap_or_default();
        Ok(())
    }

    fn is_set(&self) -> bool {
        true
    }
}

/// The keys of a mirrored struct.
trait Keys {
    /// The field a key names, or `Other`.
    fn of(key: &str) -> Self;
}

/// A key of a struct, read as k8s-openapi reads one: from a string only.
struct Key<K>(K);

impl<'de, K: Keys> Deserialize<'de> for Key<K> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor<K>(std::marker::PhantomData<K>);

        impl<K: Keys> Visitor<'_> for KeyVisitor<K> {
            type Value = Key<K>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("field identifier")
            }

            fn visit_str<E: de::Error>(self, key: &str) -> Result<Self::Value, E> {
                Ok(Key(K::of(key)))
            }
        }

        deserializer.deserialize_identifier(KeyVisitor(std::marker::PhantomData))
    }
}

/// An `apiVersion` or `kind` that must be `want`, refused as k8s-openapi's readers refuse one.
pub(crate) fn type_tag<E: de::Error>(found: String, want: &'static str) -> Result<(), E> {
    if found == want { Ok(()) } else { Err(E::invalid_value(de::Unexpected::Str(&found), &want)) }
}

/// The JSON Schemas of the copies are k8s-openapi's, as their JSON is.
#[cfg(feature = "schema")]
mod json_schema {
    use std::borrow::Cow;

    use schemars::{JsonSchema, Schema, SchemaGenerator};

    macro_rules! same_schema {
        ($($ours:ident => $theirs:ty),*) => {$(
            impl JsonSchema for super::$ours {
                fn schema_name() -> Cow<'static, str> {
                    <$theirs>::schema_name()
                }

                fn schema_id() -> Cow<'static, str> {
                    <$theirs>::schema_id()
                }

                fn json_schema(generator: &mut SchemaGenerator) -> Schema {
                    <$theirs>::json_schema(generator)
                }
            }
        )*};
    }

    same_schema!(
        Time => k8s_openapi::apimachinery::pkg::apis::meta::v1::Time,
        ObjectMeta => k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
        ManagedFieldsEntry => k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry,
        LabelSelector => k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector,
        OwnerReference => k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference,
        Service => k8s_openapi::api::core::v1::Service,
        ServiceStatus => k8s_openapi::api::core::v1::ServiceStatus,
        PodStatus => k8s_openapi::api::core::v1::PodStatus,
        SecurityContext => k8s_openapi::api::core::v1::SecurityContext,
        PodOS => k8s_openapi::api::core::v1::PodOS,
        Toleration => k8s_openapi::api::core::v1::Toleration,
        ContainerPort => k8s_openapi::api::core::v1::ContainerPort,
        VolumeMount => k8s_openapi::api::core::v1::VolumeMount,
        PodSecurityContext => k8s_openapi::api::core::v1::PodSecurityContext,
        Pod => k8s_openapi::api::core::v1::Pod,
        PodSpec => k8s_openapi::api::core::v1::PodSpec,
        PodTemplateSpec => k8s_openapi::api::core::v1::PodTemplateSpec,
        Container => k8s_openapi::api::core::v1::Container,
        EnvVar => k8s_openapi::api::core::v1::EnvVar,
        EnvVarSource => k8s_openapi::api::core::v1::EnvVarSource,
        LocalObjectReference => k8s_openapi::api::core::v1::LocalObjectReference,
        EphemeralContainer => k8s_openapi::api::core::v1::EphemeralContainer,
        ContainerResizePolicy => k8s_openapi::api::core::v1::ContainerResizePolicy,
        ContainerRestartRule => k8s_openapi::api::core::v1::ContainerRestartRule,
        EnvFromSource => k8s_openapi::api::core::v1::EnvFromSource,
        Lifecycle => k8s_openapi::api::core::v1::Lifecycle,
        Probe => k8s_openapi::api::core::v1::Probe,
        VolumeDevice => k8s_openapi::api::core::v1::VolumeDevice,
        Volume => k8s_openapi::api::core::v1::Volume,
        Affinity => k8s_openapi::api::core::v1::Affinity,
        HostAlias => k8s_openapi::api::core::v1::HostAlias,
        PodDNSConfig => k8s_openapi::api::core::v1::PodDNSConfig,
        PodReadinessGate => k8s_openapi::api::core::v1::PodReadinessGate,
        PodResourceClaim => k8s_openapi::api::core::v1::PodResourceClaim,
        PodSchedulingGate => k8s_openapi::api::core::v1::PodSchedulingGate,
        PodSchedulingGroup => k8s_openapi::api::core::v1::PodSchedulingGroup,
        TopologySpreadConstraint => k8s_openapi::api::core::v1::TopologySpreadConstraint
    );
}
