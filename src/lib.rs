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
//! - [`validate`]: every check, every problem at once, each with a field path and a stable code;
//! - [`convert::from_tf_job`]: a Kubeflow TFJob as the equivalent ElasticJob, with notes.
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
//! // The master pod and service, one PS, the chief and one worker with a service each: DLRover's
//! // master runs one of the two workers as the chief.
//! assert_eq!(list.items.len(), 8);
//! assert_eq!(
//!     elasticjob::tf_config(&job, elasticjob::ReplicaType::Worker, 0, None)?,
//!     r#"{"cluster":{"worker":["mnist-edljob-worker-0:3333"],"ps":["mnist-edljob-ps-0:2222"],"chief":["mnist-edljob-chief-0:3333"]},"task":{"type":"worker","index":0}}"#
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
//! | 10 | [`store`] | a host's store of the objects it observes, read once, for passes that read none again |
//! | 9 | [`mod@reconcile`] | the public controller operations and the state-machine docs |
//! | 8 | `render`, [`admission`], [`view`] | previews ([`render()`], [`tf_config()`], [`summary()`]); the admission review; a job's state for people |
//! | 7 | `planner`, [`convert`] | the planner: scaling, the job's lifecycle, the job's services, the controller's pass; a Kubeflow TFJob as an ElasticJob |
//! | 6 | [`parse`], [`queue`], [`gang`] | reading inputs with field paths, then validating them; a queued job's Kueue Workload and what its admission adds; a gang-scheduled job's PodGroup |
//! | 5 | [`validate`], `template` | every check and every bound; the pods and services the operator makes ([`Options`]) |
//! | 4 | `job` | facts derived from a job: effective replica spec and template, first scale plan |
//! | 3 | `pod`, `service`, [`tfconfig`] | what a pod and a service say about themselves; the TensorFlow cluster spec |
//! | 2 | `naming`, `status`, `plan` | names, labels and ports; conditions and phase; the plan as data ([`Plan`], [`List`]) |
//! | 1 | [`api`], `reader`, `observed`, [`workload`], [`podgroup`], `sorted` | the resources' types; the one path-tracking reader; the narrow readers of observed pods and services; Kueue's Workload and ResourceFlavor; the gang schedulers' PodGroup; sorted maps and sets built without `collect`'s sort, and sets of names as sorted lists |
//! | 0 | [`error`], `quantity`, [`json`], [`podspec`], `fields`, `replica` | the error type; Kubernetes quantities; the JSON text the hosts write; the reader of the core's own structs whose fields all have defaults; the replica types and the map keyed by them; the core's own `Pod`, `Service`, `ObjectMeta`, `PodTemplateSpec`, `PodSpec`, `Container` and `EnvVar`, with the parts the core only carries read against the API's schema, and times as the API server reads and writes them |
//!
//! Modules without a link are the crate's own; what a user needs of them is at the crate root.
#![warn(missing_docs)]

// The public surface: the modules a user reads (the resources' types, the errors, reading and
// checking inputs, the controller operations, TF_CONFIG, the admission review) and, below, the
// functions and types of every operation at the crate root. The rest is the crate's own
// machinery, as kube-runtime keeps its controller's: names, labels and pods, the job's derived
// facts, statuses, the pods and services made from templates, the planner, the reader.
pub mod admission;
pub mod api;
pub mod convert;
pub mod error;
mod fields;
pub mod gang;
mod job;
pub mod json;
mod naming;
mod observed;
pub mod parse;
mod plan;
mod planner;
mod pod;
pub mod podgroup;
pub mod podspec;
mod quantity;
pub mod queue;
mod reader;
pub mod reconcile;
mod render;
mod replica;
mod service;
mod sorted;
mod status;
pub mod store;
mod template;
pub mod tfconfig;
pub mod validate;
pub mod view;
pub mod workload;

pub use api::{ElasticJob, JobConditionType, ReplicaType, ScalePlan};
pub use error::{Code, Error, ErrorReport, Problem, Result};
pub use job::{MasterCpu, MasterGroup, initial_scale_plan, master_first_plan, master_reading};
/// The same names as one value, and the job an object belongs to, for hosts that keep no copy.
pub use naming::{Constants, JOB_KEY_FIELDS, LabelKeys, TaskType, constants, job_key, job_key_of_fields};
/// The labels the operator puts on the objects it makes and reads on those it is given: a host
/// selects a job's pods by [`LABEL_JOB_NAME`], and carries out the ScalePlans labelled
/// [`LABEL_SCALE_TYPE`]` = `[`SCALE_TYPE_AUTO`].
pub use naming::{
    LABEL_JOB_NAME, LABEL_RANK_INDEX, LABEL_RELAUNCH_COUNT, LABEL_REPLICA_INDEX, LABEL_REPLICA_TYPE,
    LABEL_RESTART_COUNT, LABEL_SCALE_PLAN_JOB, LABEL_SCALE_TYPE, SCALE_TYPE_AUTO,
};
pub use plan::{Action, Cause, Event, List, Object, Phase, PhaseKind, PhaseMode, Plan, SummaryRow};
pub use planner::Gates;
pub use podgroup::PodGroup;
pub use podspec::Time;
pub use queue::QueueState;
pub use reconcile::{
    controller_pass, controller_pass_queued, handle_fault_pods, reconcile, reconcile_pods, reconcile_scale_plan,
    refused_job, stop_running_pods, sync_job_state,
};
pub use render::{pod_tf_config, render, render_json, render_summary, summary, tf_config};
pub use service::job_controls;
pub use template::Options;
pub use tfconfig::insert_tf_config_to_env;
pub use workload::{ResourceFlavor, Workload};

/// The Rust snippets of README.md run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The Rust snippets of docs/rust.md, the crate's guide, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/rust.md")]
pub struct GuideDoctests;
