//! The decision on one admission request, or on the payload Kubewarden passes to `validate`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Settings, utf8};
use crate::api::{self, ElasticJob, ScalePlan};
use crate::error::{Code, Error, Problem};
use crate::{parse, queue, validate};

/// The HTTP code of a rejected request: the object (or the request itself) is wrong.
pub const CODE_INVALID: u16 = 400;

/// The HTTP code of a rejection caused by the policy's own settings, not by the request.
/// Kubewarden checks settings with `validate_settings` before it serves a policy, so this is only
/// seen when settings are passed to `validate` without that check (e.g. a hand-made payload).
pub const CODE_BAD_SETTINGS: u16 = 500;

/// The `kind` of an admission request: the group, version and kind of the object.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GroupVersionKind {
    /// The API group, empty for the core group.
    pub group: String,
    /// The API version, e.g. `v1alpha1`.
    pub version: String,
    /// The kind, e.g. `ElasticJob`.
    pub kind: String,
}

/// The fields of a Kubernetes `AdmissionRequest` the review reads; the others (`uid`,
/// `userInfo`, ...) are ignored.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AdmissionRequest {
    /// `CREATE`, `UPDATE`, `DELETE` or `CONNECT`.
    pub operation: String,
    /// What the object is.
    pub kind: GroupVersionKind,
    /// The object as it would be stored (`null` for DELETE).
    #[serde(default)]
    pub object: Value,
    /// On UPDATE, the object as it is stored (`null` otherwise). Only `requireQueueName` reads it
    /// (its labels and `spec.suspend`).
    #[serde(default, rename = "oldObject")]
    pub old_object: Value,
}

/// The decision on an admission request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The request may go on.
    Accepted,
    /// The request is refused.
    Rejected {
        /// The HTTP code: [`CODE_INVALID`] or [`CODE_BAD_SETTINGS`].
        code: u16,
        /// Every problem, with its field path and stable code.
        error: Error,
    },
}

impl Verdict {
    /// Whether the request may go on.
    pub fn is_accepted(&self) -> bool {
        matches!(self, Verdict::Accepted)
    }

    /// The HTTP code of a rejection.
    pub fn code(&self) -> Option<u16> {
        match self {
            Verdict::Accepted => None,
            Verdict::Rejected { code, .. } => Some(*code),
        }
    }

    /// The message of a rejection: every problem as `PATH: MESSAGE`, joined by `; ` (the
    /// [`Error`]'s display, as every other consumer shows it).
    pub fn message(&self) -> Option<String> {
        match self {
            Verdict::Accepted => None,
            Verdict::Rejected { error, .. } => Some(error.to_string()),
        }
    }

    fn invalid(error: Error) -> Verdict {
        Verdict::Rejected { code: CODE_INVALID, error }
    }
}

/// Decides on one admission request.
///
/// `ElasticJob` CREATE and UPDATE: every problem of [`parse::job`] (unknown fields and every rule
/// of [`validate::validate_job`]) and of [`Settings::check_job`]. `ScalePlan` CREATE and UPDATE:
/// every problem of [`parse::scale_plan`] ([`validate::validate_scale_plan`]: with `ownerJob` set,
/// the pod names are checked against it) and of [`Settings::check_scale_plan`]. Other operations
/// and other kinds are accepted. An object that cannot be read is rejected with the path and cause
/// of the first shape problem. Every rejection has code [`CODE_INVALID`].
pub fn review(request: AdmissionRequest, settings: &Settings) -> Verdict {
    let Some(subject) = reviewed(&request.operation, &request.kind) else { return Verdict::Accepted };
    if request.object.is_null() {
        return no_object(&request.operation);
    }
    match subject {
        Subject::Job => judge_job(request.object, stored(&request.operation, request.old_object), settings),
        Subject::Plan => judge_plan(request.object, settings),
    }
}

/// The stored object of an UPDATE, when the request carries one.
fn stored(operation: &str, old_object: Value) -> Option<Value> {
    Some(old_object).filter(|old| operation == "UPDATE" && old.is_object())
}

/// What is reviewed: an `ElasticJob` or a `ScalePlan` of this API version, on CREATE or UPDATE.
#[derive(Clone, Copy)]
enum Subject {
    Job,
    Plan,
}

fn reviewed(operation: &str, kind: &GroupVersionKind) -> Option<Subject> {
    if !matches!(operation, "CREATE" | "UPDATE") {
        return None;
    }
    let ours = kind.group == api::GROUP
        && api::API_VERSION.strip_prefix(api::GROUP).and_then(|v| v.strip_prefix('/')) == Some(kind.version.as_str());
    match kind.kind.as_str() {
        api::KIND_ELASTIC_JOB if ours => Some(Subject::Job),
        api::KIND_SCALE_PLAN if ours => Some(Subject::Plan),
        _ => None,
    }
}

fn no_object(operation: &str) -> Verdict {
    Verdict::invalid(Error::Parse(Problem::new(
        "request.object",
        Code::Required,
        format!("a {operation} request carries the object to review, and this one has none"),
    )))
}

/// The core's problems (shape, unknown fields, [`validate::validate_job`]) and the settings'
/// together ([`parse::checked`]); `old` is the stored job of an UPDATE.
fn judge_job(object: Value, old: Option<Value>, settings: &Settings) -> Verdict {
    let read = parse::checked(object, |job: &ElasticJob| {
        let mut problems = validate::validate_job(job);
        problems.extend(match &old {
            Some(old) => settings.check_job_update(job, old),
            None => settings.check_job(job),
        });
        problems
    });
    read.map_or_else(Verdict::invalid, |_| Verdict::Accepted)
}

/// The core's problems (shape, unknown fields, [`validate::validate_scale_plan`]) and the
/// settings'.
fn judge_plan(object: Value, settings: &Settings) -> Verdict {
    let read = parse::checked(object, |plan: &ScalePlan| {
        let mut problems = validate::validate_scale_plan(plan);
        problems.extend(settings.check_scale_plan(plan));
        problems
    });
    read.map_or_else(Verdict::invalid, |_| Verdict::Accepted)
}

/// The payload of Kubewarden's `validate` without its object, which is taken out before the rest
/// is read (most requests are decided on `operation` and `kind` alone). The type names show in
/// messages (`expected struct AdmissionRequest`).
mod payload {
    use serde::Deserialize;
    use serde_json::Value;

    use super::GroupVersionKind;

    #[derive(Deserialize)]
    pub(super) struct ValidationRequest {
        pub(super) request: AdmissionRequest,
        #[serde(default)]
        pub(super) settings: Value,
    }

    #[derive(Deserialize)]
    pub(super) struct AdmissionRequest {
        pub(super) operation: String,
        pub(super) kind: GroupVersionKind,
    }
}

/// Decides on the payload Kubewarden passes to a policy's `validate`:
/// `{"request": <AdmissionRequest>, "settings": {...}}`, as [`review`] does with the settings, with
/// the same problems and paths (inside the object).
///
/// Never fails: a payload that is not JSON or lacks a field of the request is rejected with code
/// [`CODE_INVALID`] and the cause (`request: missing field ...`); settings that
/// [`Settings::from_value`] refuses reject with [`CODE_BAD_SETTINGS`] and the problems under
/// `settings.`.
pub fn review_payload(payload: &[u8]) -> Verdict {
    let read = utf8(payload, "the validation payload").and_then(|text| {
        let (mut value, _) = parse::from_json::<Value>(text)?;
        let mut take =
            |field: &str| value.get_mut("request").and_then(|r| r.as_object_mut()).and_then(|r| r.remove(field));
        let (object, old_object) = (take("object"), take("oldObject"));
        let (envelope, _) = parse::from_value::<payload::ValidationRequest>(value)?;
        Ok((envelope, object.unwrap_or(Value::Null), old_object.unwrap_or(Value::Null)))
    });
    let (envelope, object, old_object) = match read {
        Ok(read) => read,
        Err(error) => return Verdict::invalid(error.in_context("cannot read the validation payload")),
    };
    let settings = match Settings::from_value(envelope.settings) {
        Ok(settings) => settings,
        Err(e) => return Verdict::Rejected { code: CODE_BAD_SETTINGS, error: e.prefixed("settings") },
    };
    let request = envelope.request;
    let Some(subject) = reviewed(&request.operation, &request.kind) else { return Verdict::Accepted };
    if object.is_null() {
        return no_object(&request.operation);
    }
    match subject {
        Subject::Job => judge_job(object, stored(&request.operation, old_object), &settings),
        Subject::Plan => judge_plan(object, &settings),
    }
}

/// The mutation of an accepted request, for a policy that mutates: the job of an `ElasticJob`
/// CREATE that carries Kueue's queue label and is not suspended, as the request has it (every
/// field as written) with `spec.suspend: true` ([`queue::suspend_when_queued`], what the
/// controller does too); `None` for any other request, and for a payload or a job that cannot be
/// read ([`review_payload`] rejects those). Kueue unsuspends the job once its Workload is admitted.
pub fn mutation_payload(payload: &[u8]) -> Option<Value> {
    let (mut value, _) = parse::from_json::<Value>(std::str::from_utf8(payload).ok()?).ok()?;
    let mut object = value.get_mut("request")?.as_object_mut()?.remove("object")?;
    let (envelope, _) = parse::from_value::<payload::ValidationRequest>(value).ok()?;
    let request = envelope.request;
    if request.operation != "CREATE" || !matches!(reviewed(&request.operation, &request.kind), Some(Subject::Job)) {
        return None;
    }
    let job = parse::job(object.clone()).ok()?;
    queue::suspend_when_queued(&job)?;
    object
        .as_object_mut()?
        .entry("spec")
        .or_insert_with(|| Value::Object(serde_json::Map::new()))
        .as_object_mut()?
        .insert("suspend".to_owned(), Value::Bool(true));
    Some(object)
}
