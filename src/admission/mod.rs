//! Admission review: what the Kubewarden policy (`bindings/policy/`) decides, as pure functions.
//!
//! The policy is a thin waPC binding over this module, so the CLI, the preview page and the
//! admission webhook refuse a job with the same problems and the same messages.
//!
//! - [`review`] decides on one admission request: an `ElasticJob` CREATE or UPDATE gets the
//!   core's full validation ([`crate::parse::job`]), a `ScalePlan` CREATE or UPDATE the plan's own
//!   validation ([`crate::parse::scale_plan`]), and both the cluster's [`Settings`] checks. DELETE and
//!   other kinds are accepted.
//! - [`review_payload`] does the same for the bytes Kubewarden passes to a policy's `validate`,
//!   `{"request": <AdmissionRequest>, "settings": {...}}`; a payload it cannot read is rejected with
//!   the cause, never a panic.
//! - [`mutation_payload`] gives, for an accepted `ElasticJob` CREATE that Kueue queues (labelled
//!   `kueue.x-k8s.io/queue-name`) and that is not suspended, the job with `spec.suspend: true`.
//! - [`Settings::from_slice`] reads and checks the settings Kubewarden passes to
//!   `validate_settings`.
//!
//! A rejection carries an [`Error`]; its message lists every problem as `PATH: MESSAGE`, joined
//! by `; `, with paths inside the reviewed object (`spec.replicaSpecs.worker.replicas`).
//!
//! ```
//! use elasticjob::admission::review_payload;
//!
//! let payload = serde_json::json!({
//!     "settings": {"maxReplicasPerType": 4},
//!     "request": {
//!         "operation": "CREATE",
//!         "kind": {"group": "elastic.iml.github.io", "version": "v1alpha1", "kind": "ElasticJob"},
//!         "object": {
//!             "apiVersion": "elastic.iml.github.io/v1alpha1",
//!             "kind": "ElasticJob",
//!             "metadata": {"name": "mnist"},
//!             "spec": {
//!                 "distributionStrategy": "ParameterServerStrategy",
//!                 "replicaSpecs": {
//!                     "ps": {"replicas": 1, "template": {"spec": {"containers": [{"name": "main", "image": "tf:2"}]}}},
//!                     "worker": {"replicas": 8,
//!                         "template": {"spec": {"containers": [{"name": "main", "image": "tf:2"}]}}}}
//!             }
//!         }
//!     }
//! });
//! let verdict = review_payload(payload.to_string().as_bytes());
//! assert_eq!(verdict.code(), Some(400));
//! assert_eq!(
//!     verdict.message().as_deref(),
//!     Some("spec.replicaSpecs.worker.replicas: 8 worker replicas is more than the 4 per type this cluster allows (policy setting maxReplicasPerType)")
//! );
//! ```

mod pod_security;
mod review;
mod rules;
mod settings;

pub use pod_security::PodSecurityLevel;
pub use review::{
    AdmissionRequest, CODE_BAD_SETTINGS, CODE_INVALID, GroupVersionKind, Verdict, mutation_payload, review,
    review_payload,
};
pub use settings::Settings;

use crate::error::{Code, Error, Problem, Result};

/// The bytes of a payload as text.
fn utf8<'a>(bytes: &'a [u8], what: &str) -> Result<&'a str> {
    std::str::from_utf8(bytes)
        .map_err(|e| Error::Parse(Problem::new("", Code::Syntax, format!("{what} is not UTF-8 text: {e}"))))
}
