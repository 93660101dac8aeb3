//! # elasticjob
//!
//! The decisions of a DLRover-style ElasticJob operator for elastic TensorFlow parameter-server
//! jobs on Kubernetes, as pure functions: objects in, plans out, time as an argument. The core
//! never talks to a cluster; hosts (a Node controller, a browser preview, a Kubewarden policy, a
//! Rust program) carry its plans out.
//!
//! - [`render()`]: every object a job will have, for previews;
//! - [`tf_config()`]: the `TF_CONFIG` of any task ([`tfconfig`]);
//! - [`reconcile()`]: one pass of the job state machine; [`reconcile_pods`],
//!   [`handle_fault_pods`], [`stop_running_pods`] and [`sync_job_state`] are its per-type steps;
//! - [`validate`]: every check, every problem at once, each with a field path and a stable code.
//!
//! ```
//! use elasticjob::{parse, render, Options};
//!
//! let job = parse::job(serde_json::json!({
//!     "apiVersion": "elastic.iml.github.io/v1alpha1",
//!     "kind": "ElasticJob",
//!     "metadata": {"name": "mnist", "namespace": "training"},
//!     "spec": {
//!         "distributionStrategy": "ParameterServerStrategy",
//!         "replicaSpecs": {
//!             "ps": {"replicas": 1, "template": {"spec": {"containers": [{"name": "main", "image": "tf:2"}]}}},
//!             "worker": {"replicas": 2, "template": {"spec": {"containers": [{"name": "main", "image": "tf:2"}]}}}
//!         }
//!     }
//! }))?;
//! let list = render(&job, None, &Options::default())?;
//! // The master pod and service, one PS and two workers with a service each.
//! assert_eq!(list.items.len(), 8);
//! assert_eq!(
//!     elasticjob::tf_config(&job, elasticjob::ReplicaType::Worker, 1, None)?,
//!     r#"{"cluster":{"worker":["mnist-edljob-worker-0:3333","mnist-edljob-worker-1:3333"],"ps":["mnist-edljob-ps-0:2222"],"chief":[]},"task":{"type":"worker","index":1}}"#
//! );
//! # Ok::<(), elasticjob::Error>(())
//! ```
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::unreachable,
        clippy::todo
    )
)]
#![warn(missing_docs)]

pub mod admission;
pub mod api;
pub mod error;
pub mod naming;
pub mod parse;
pub mod plan;
pub mod quantity;
mod reader;
pub mod reconcile;
pub mod render;
pub mod status;
pub mod template;
pub mod tfconfig;
pub mod validate;

pub use api::{ElasticJob, JobConditionType, ReplicaType, ScalePlan};
pub use error::{Code, Error, ErrorReport, Problem, Result};
pub use plan::{Action, List, Object, Plan, SummaryRow};
pub use reconcile::{
    handle_fault_pods, reconcile, reconcile_pods, reconcile_scale_plan, render, stop_running_pods, sync_job_state,
};
pub use render::{initial_scale_plan, summary, tf_config};
pub use template::Options;
pub use tfconfig::insert_tf_config_to_env;

/// The Rust snippets of README.md run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
