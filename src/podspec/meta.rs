//! The core's own `ObjectMeta`, `Service` and the objects' statuses: the same JSON as
//! k8s-openapi's, with every time a [`Time`] (read and written as the API server does) rather than
//! k8s-openapi's, which would bring jiff's parser, formatter and messages into the WebAssembly.
//! A managed-fields entry and a pod's and a service's status, which the core only carries or
//! looks at the surface of, are held as checked JSON (`checked.rs`); an owner reference is read
//! against the table there too, and held as k8s-openapi's fields.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::ServiceSpec;
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::ser::SerializeStruct;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Field, Key, Keys, ManagedFieldsEntry, OwnerReference, PodSpec, PodStatus, ServiceStatus, Time};

mirror! {
    /// An object's metadata, as the API's `io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`
    /// (Kubernetes 1.36) has it.
    ObjectMeta, MetaKey {
        annotations "annotations": Option<BTreeMap<String, String>>,
        creation_timestamp "creationTimestamp": Option<Time>,
        deletion_grace_period_seconds "deletionGracePeriodSeconds": Option<i64>,
        deletion_timestamp "deletionTimestamp": Option<Time>,
        finalizers "finalizers": Option<Vec<String>>,
        generate_name "generateName": Option<String>,
        generation "generation": Option<i64>,
        labels "labels": Option<BTreeMap<String, String>>,
        managed_fields "managedFields": Option<Vec<ManagedFieldsEntry>>,
        name "name": Option<String>,
        namespace "namespace": Option<String>,
        owner_references "ownerReferences": Option<Vec<OwnerReference>>,
        resource_version "resourceVersion": Option<String>,
        self_link "selfLink": Option<String>,
        uid "uid": Option<String>,
    }
}

/// An object of the core API with a spec and a status, read and written as k8s-openapi's: its
/// `apiVersion` and `kind` written, and refused when they are not `v1` and the kind's own; a
/// missing or `null` `metadata` read as empty.
macro_rules! object {
    ($(#[$doc:meta])* $name:ident, $keys:ident, $kind:literal { spec: $spec:ty, status: $status:ty }) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct $name {
            /// The object's metadata.
            pub metadata: ObjectMeta,
            /// What the object is to be.
            pub spec: Option<$spec>,
            /// What the cluster reports of it.
            pub status: Option<$status>,
        }

        /// The keys of the object.
        #[derive(Deserialize)]
        #[serde(field_identifier, rename_all = "camelCase")]
        enum $keys {
            ApiVersion,
            Kind,
            Metadata,
            Spec,
            Status,
            #[serde(other)]
            Other,
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<$name, D::Error> {
                struct ObjectVisitor;

                impl<'de> Visitor<'de> for ObjectVisitor {
                    type Value = $name;

                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str($kind)
                    }

                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<$name, A::Error> {
                        let mut object = $name::default();
                        while let Some(key) = map.next_key::<$keys>()? {
                            match key {
                                $keys::ApiVersion => super::type_tag(map.next_value()?, "v1")?,
                                $keys::Kind => super::type_tag(map.next_value()?, $kind)?,
                                $keys::Metadata => {
                                    object.metadata = map.next_value::<Option<ObjectMeta>>()?.unwrap_or_default();
                                }
                                $keys::Spec => object.spec = map.next_value()?,
                                $keys::Status => object.status = map.next_value()?,
                                $keys::Other => {
                                    map.next_value::<IgnoredAny>()?;
                                }
                            }
                        }
                        Ok(object)
                    }
                }

                let keys = &["apiVersion", "kind", "metadata", "spec", "status"];
                deserializer.deserialize_struct($kind, keys, ObjectVisitor)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let fields = 3 + usize::from(self.spec.is_some()) + usize::from(self.status.is_some());
                let mut state = serializer.serialize_struct($kind, fields)?;
                state.serialize_field("apiVersion", "v1")?;
                state.serialize_field("kind", $kind)?;
                state.serialize_field("metadata", &self.metadata)?;
                if let Some(spec) = &self.spec {
                    state.serialize_field("spec", spec)?;
                }
                if let Some(status) = &self.status {
                    state.serialize_field("status", status)?;
                }
                state.end()
            }
        }
    };
}

object! {
    /// A pod: its metadata, spec and status.
    Pod, PodKey, "Pod" { spec: PodSpec, status: PodStatus }
}

object! {
    /// A service: its metadata, spec and status.
    Service, ServiceKey, "Service" { spec: ServiceSpec, status: ServiceStatus }
}
