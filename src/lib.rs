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
//!
//! # Layers
//!
//! Each module imports only from layers below its own (`tests/layers.rs` reads `src/` and fails
//! on an import that points up or sideways, so no cycle can come back). Read from the top to
//! follow a call down; read from the bottom to learn the vocabulary first.
//!
//! | layer | modules | what they hold |
//! |---|---|---|
//! | 9 | [`mod@reconcile`] | the public controller operations and the state-machine docs |
//! | 8 | [`mod@render`], [`admission`], [`view`] | previews (`render`, `tf_config`, `summary`); the admission review; a job's state for people |
//! | 7 | `planner` | the crate-private planner: scaling, faults, the job's lifecycle |
//! | 6 | [`parse`] | reading inputs with field paths, then validating them |
//! | 5 | [`validate`], [`template`] | every check and every bound; the pods and services the operator makes |
//! | 4 | [`job`] | facts derived from a job: effective replica spec and template, first scale plan |
//! | 3 | [`pod`], [`tfconfig`] | what a pod says about itself; the TensorFlow cluster spec |
//! | 2 | [`naming`], [`status`], [`plan`] | names, labels and ports; conditions and phase; the plan as data |
//! | 1 | [`api`], `reader` | the resources' types; the one path-tracking reader |
//! | 0 | [`error`], [`quantity`] | the error type; Kubernetes quantities |
#![warn(missing_docs)]

pub mod admission;
pub mod api;
pub mod error;
pub mod job;
pub mod naming;
pub mod parse;
pub mod plan;
mod planner;
pub mod pod;
pub mod quantity;
mod reader;
pub mod reconcile;
pub mod render;
pub mod status;
pub mod template;
pub mod tfconfig;
pub mod validate;
pub mod view;

pub use api::{ElasticJob, JobConditionType, ReplicaType, ScalePlan};
pub use error::{Code, Error, ErrorReport, Problem, Result};
pub use job::initial_scale_plan;
pub use plan::{Action, List, Object, Plan, SummaryRow};
pub use reconcile::{
    handle_fault_pods, reconcile, reconcile_pods, reconcile_scale_plan, stop_running_pods, sync_job_state,
};
pub use render::{render, summary, tf_config};
pub use template::Options;
pub use tfconfig::insert_tf_config_to_env;

/// The Rust snippets of README.md run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
