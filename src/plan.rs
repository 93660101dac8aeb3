//! What the core decides, as data: an ordered list of actions carrying whole objects, for a host
//! (the Node controller, a Rust caller, a test) to carry out in order.

use k8s_openapi::api::core::v1::{Pod, Service};
use serde::{Deserialize, Serialize};

use crate::api::{ElasticJobStatus, ReplicaType, ScalePlanStatus};
use crate::error::Problem;
use crate::reader;

/// One thing to do to the cluster.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "action", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Action {
    /// Create this pod. A pod of that name already existing is not an error: skip it.
    CreatePod {
        /// The whole pod.
        pod: Box<Pod>,
        /// Why, for logs and events.
        reason: String,
    },
    /// Create this service, or update the existing one of that name to match it.
    CreateOrUpdateService {
        /// The whole service.
        service: Box<Service>,
        /// Why, for logs and events.
        reason: String,
    },
    /// Delete this pod with a grace period of 0 seconds. A pod already gone is not an error.
    DeletePod {
        /// The pod's namespace (the job's), when the job names one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        namespace: Option<String>,
        /// The pod's name.
        name: String,
        /// Always 0: the operator stops pods at once, as upstream does.
        grace_period_seconds: i64,
        /// Why, for logs and events.
        reason: String,
    },
    /// Replace the job's status subresource with this one.
    SetJobStatus {
        /// The whole new status.
        status: ElasticJobStatus,
    },
    /// Replace a scale plan's status subresource with this one.
    SetScalePlanStatus {
        /// The scale plan's namespace, when it names one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        namespace: Option<String>,
        /// The scale plan's name.
        name: String,
        /// The whole new status.
        status: ScalePlanStatus,
    },
}

/// An ordered plan. Carrying it out in order and planning again from what results creates and
/// deletes nothing more.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Plan {
    /// The actions, in the order to carry them out.
    pub actions: Vec<Action>,
}

impl Plan {
    /// Whether the plan does nothing.
    pub fn is_empty(&self) -> bool {
        self.actions.is_empty()
    }

    /// The pods the plan creates, in order.
    pub fn created_pods(&self) -> impl Iterator<Item = &Pod> {
        self.actions.iter().filter_map(|a| match a {
            Action::CreatePod { pod, .. } => Some(pod.as_ref()),
            _ => None,
        })
    }

    /// The names of the pods the plan deletes, in order.
    pub fn deleted_pods(&self) -> impl Iterator<Item = &str> {
        self.actions.iter().filter_map(|a| match a {
            Action::DeletePod { name, .. } => Some(name.as_str()),
            _ => None,
        })
    }

    /// The job status the plan sets, if it sets one.
    pub fn job_status(&self) -> Option<&ElasticJobStatus> {
        self.actions.iter().rev().find_map(|a| match a {
            Action::SetJobStatus { status } => Some(status),
            _ => None,
        })
    }
}

/// An object of a rendered job.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum Object {
    /// A pod.
    Pod(Box<Pod>),
    /// A service.
    Service(Box<Service>),
}

/// Read by its `kind`, through the same reader as every other input (an untagged enum would try
/// each type in turn and compile every Kubernetes type's reader a second time).
impl<'de> Deserialize<'de> for Object {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        let value = serde_json::Value::deserialize(deserializer)?;
        let kind = value.get("kind").and_then(serde_json::Value::as_str).map(str::to_owned);
        match kind.as_deref() {
            Some("Pod") => read_item(value).map(Object::Pod),
            Some("Service") => read_item(value).map(Object::Service),
            other => Err(D::Error::custom(format!(
                "an item of kind {other:?}: a rendered List holds only Pods and Services"
            ))),
        }
    }
}

/// An item of a List through the core's reader, its problem worded as every other one is.
fn read_item<T: serde::de::DeserializeOwned, E: serde::de::Error>(value: serde_json::Value) -> Result<T, E> {
    let outcome = reader::read(value);
    outcome.result.map_err(|e| E::custom(Problem::new(outcome.error_path, e.code, e.message)))
}

/// Every object a job will have, as a Kubernetes `List` (`apiVersion: v1`, `kind: List`) that
/// `kubectl apply -f -` takes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct List {
    /// Always `v1`.
    pub api_version: String,
    /// Always `List`.
    pub kind: String,
    /// The objects: the master pod and service, then each task type's pods and services.
    pub items: Vec<Object>,
}

impl List {
    /// A list of these objects.
    pub fn new(items: Vec<Object>) -> List {
        List { api_version: "v1".to_owned(), kind: "List".to_owned(), items }
    }
}

/// One row of a rendered job's summary: what a person checks before applying it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SummaryRow {
    /// `Pod` or `Service`.
    pub kind: String,
    /// The object name.
    pub name: String,
    /// The replica type, when the object has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replica_type: Option<ReplicaType>,
    /// The rank, when the object has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<i32>,
    /// The first container's CPU request of a pod.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<String>,
    /// The first container's memory request of a pod.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    /// The TF_CONFIG task of a pod, as `type:index`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rendered_list_reads_back_by_kind() {
        let text = r#"{"apiVersion":"v1","kind":"List","items":[
            {"apiVersion":"v1","kind":"Service","metadata":{"name":"s"}},
            {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}]}"#;
        let list: List = serde_json::from_str(text).unwrap();
        assert!(matches!(list.items.as_slice(), [Object::Service(s), Object::Pod(p)]
            if s.metadata.name.as_deref() == Some("s") && p.metadata.name.as_deref() == Some("p")));
        let bad = r#"{"apiVersion":"v1","kind":"List","items":[{"kind":"ConfigMap"}]}"#;
        assert!(serde_json::from_str::<List>(bad).unwrap_err().to_string().contains("only Pods and Services"));
    }
}
