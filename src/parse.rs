//! Reading inputs from JSON (text or an already-parsed value) with the field path of every
//! problem; fields the schema does not know are all collected, so a typo such as `replica: 3` is
//! reported rather than silently ignored.
//!
//! [`job`], [`scale_plan`] and [`checked`] read and validate in one step and report every problem
//! together: a wrong type, an unknown enum value or an unknown replica type in one field does not
//! hide the problems of the others (the reader notes it, reads on with a stand-in value, and the
//! rules run on the rest). [`from_value`] stops at the first shape problem.
//! Observed pods ([`pods`]) and services ([`services`]) come from the cluster, which may be newer
//! than this crate's Kubernetes types, so their unknown fields are ignored.

use crate::podspec::Pod;
use crate::podspec::Service;
use crate::podspec::Time;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::api::{self, ElasticJob, ScalePlan};
use crate::error::{Code, Error, Problem, Result, Step, into_result};
use crate::observed::{ObservedPod, ObservedService};
use crate::podgroup::PodGroup;
use crate::workload::{ResourceFlavor, Workload};
use crate::{reader, validate};

/// Reads a `T` from a JSON value. Returns the value and a problem for every unknown field.
///
/// # Errors
/// [`Error::Parse`] with the path and cause of the first shape problem.
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<(T, Vec<Problem>)> {
    let outcome = reader::read(value);
    match outcome.result {
        Ok(value) => Ok((value, outcome.unknown.into_iter().map(unknown_field).collect())),
        Err(e) => Err(Error::Parse(Problem::new(outcome.error_path, e.code, e.message))),
    }
}

/// Reads a `T` from JSON text. Returns the value and a problem for every unknown field.
///
/// # Errors
/// [`Error::Parse`] with the path (and for syntax errors, line and column) of the first problem.
pub fn from_json<T: DeserializeOwned>(text: &str) -> Result<(T, Vec<Problem>)> {
    let value = serde_json::from_str(text).map_err(|e| Error::Parse(Problem::new("", Code::Syntax, e.to_string())))?;
    from_value(value)
}

/// Reads a `T` whose unknown fields are problems too, as [`job`] and [`scale_plan`] treat them.
///
/// # Errors
/// As [`checked`] with no rules.
pub fn strict<T: DeserializeOwned>(value: Value) -> Result<T> {
    checked(value, |_| Vec::new())
}

/// Reads a `T` and checks it with `rules`, reporting every problem at once: each shape problem
/// (the reader goes on past it), each unknown field, and each problem `rules` finds, except those
/// at or under a place the reader had to repair (they would be about its stand-in value).
///
/// # Errors
/// [`Error::Parse`] when the input is not a `T` at all (a list where an object belongs) or cannot
/// be read past its problems; else [`Error::Invalid`] with every problem.
pub fn checked<T: DeserializeOwned>(value: Value, rules: impl FnOnce(&T) -> Vec<Problem>) -> Result<T> {
    let read = reader::read_recovering::<T>(value);
    let problems = read.problems.into_iter().map(|(p, c, m)| Problem::new(p, c, m)).collect();
    let whole = read.repaired.iter().any(Vec::is_empty);
    let Some(value) = read.value.filter(|_| !whole) else { return Err(unreadable(problems)) };
    let found = rules(&value);
    all_problems(problems, read.unknown, &read.repaired, found).map(|()| value)
}

fn unknown_field(path: String) -> Problem {
    let field = path.rsplit(['.', '[']).next().unwrap_or_default().to_owned();
    Problem::new(path, Code::UnknownField, format!("`{field}` is not a field here; check its spelling and indentation"))
}

/// The error of an input that could not be read past its problems.
fn unreadable(problems: Vec<Problem>) -> Error {
    match <[Problem; 1]>::try_from(problems) {
        Ok([one]) => Error::Parse(one),
        Err(many) => Error::Invalid(many),
    }
}

/// The shape problems, the unknown fields, and the rule problems not at or under a repaired place.
fn all_problems(
    mut problems: Vec<Problem>,
    unknown: Vec<String>,
    repaired: &[Vec<Step>],
    rules: Vec<Problem>,
) -> Result<()> {
    problems.extend(unknown.into_iter().map(unknown_field));
    problems.extend(rules.into_iter().filter(|p| !repaired.iter().any(|r| reader::under(&p.path, r))));
    into_result(problems)
}

/// Reads and validates an `ElasticJob`: shape problems, unknown fields and every rule of
/// [`validate::validate_job`] are reported together ([`checked`]).
///
/// # Errors
/// [`Error::Parse`] when the input is not an object, or is a Kubeflow TFJob ([`Code::TfJob`] at
/// `kind`: `crate::convert::from_tf_job` makes it an ElasticJob), else [`Error::Invalid`] with
/// every problem.
pub fn job(value: Value) -> Result<ElasticJob> {
    if is_tf_job(&value) {
        return Err(Error::Parse(Problem::new(
            "kind",
            Code::TfJob,
            "this is a Kubeflow TFJob, not an ElasticJob; `elasticjob convert` makes it one",
        )));
    }
    checked(value, validate::validate_job)
}

/// Whether `value` is a Kubeflow TFJob: `kind: TFJob` with an `apiVersion` of the group
/// `kubeflow.org`.
pub fn is_tf_job(value: &Value) -> bool {
    let field = |name: &str| value.get(name).and_then(Value::as_str);
    field("kind") == Some(api::KIND_TF_JOB)
        && field("apiVersion").and_then(|v| v.split_once('/')).is_some_and(|(group, _)| group == api::KUBEFLOW_GROUP)
}

/// Reads and validates a `ScalePlan` on its own ([`validate::validate_scale_plan`]), as [`job`].
///
/// # Errors
/// [`Error::Parse`] when the input is not an object, else [`Error::Invalid`] with every problem.
pub fn scale_plan(value: Value) -> Result<ScalePlan> {
    checked(value, validate::validate_scale_plan)
}

/// Reads observed pods: a JSON array of pods, or a `v1` `List` / `PodList` with `items`.
///
/// # Errors
/// [`Error::Parse`] with the path (`pods[3].status.phase`) of the first shape problem, or
/// [`Error::Invalid`] when more than [`validate::MAX_OBSERVED_PODS`] are given.
pub fn pods(value: Value) -> Result<Vec<Pod>> {
    let pods: Vec<ObservedPod> = observed(value, "pods", validate::check_observed_pods)?;
    Ok(pods.into_iter().map(Pod::from).collect())
}

/// Reads observed services: a JSON array of services, or a `v1` `List` / `ServiceList` with
/// `items`. Like pods they come from the cluster, so their unknown fields are ignored.
///
/// # Errors
/// [`Error::Parse`] with the path (`services[1].spec.ports[0].port`) of the first shape problem,
/// or [`Error::Invalid`] when more than [`validate::MAX_OBSERVED_SERVICES`] are given.
pub fn services(value: Value) -> Result<Vec<Service>> {
    let services: Vec<ObservedService> = observed(value, "services", validate::check_observed_services)?;
    Ok(services.into_iter().map(Service::from).collect())
}

/// Reads objects observed in the cluster, an array or a `List` of them, with `root` in front of
/// every path; `bound` checks how many there are before any is read.
fn observed<T: DeserializeOwned>(value: Value, root: &str, bound: fn(usize) -> Result<()>) -> Result<Vec<T>> {
    let items = match value {
        Value::Object(mut list) => list.remove("items").unwrap_or(Value::Array(Vec::new())),
        other => other,
    };
    if let Value::Array(a) = &items {
        bound(a.len())?;
    }
    let (objects, _unknown): (Vec<T>, _) = from_value(items).map_err(|e| e.prefixed(root))?;
    Ok(objects)
}

/// Reads a Kueue Workload as observed (`kueue.x-k8s.io/v1beta2`; fields the core does not use are
/// ignored).
///
/// # Errors
/// A field of the wrong type, at its path under `workload`.
pub fn workload(value: Value) -> Result<Workload> {
    let (workload, _unknown) = from_value(value).map_err(|e| e.prefixed("workload"))?;
    Ok(workload)
}

/// Reads a list of Kueue Workloads as observed (a job's later slices).
///
/// # Errors
/// A field of the wrong type, at its path under `slices[i]`.
pub fn workloads(value: Value) -> Result<Vec<Workload>> {
    let (workloads, _unknown) = from_value(value).map_err(|e| e.prefixed("slices"))?;
    Ok(workloads)
}

/// Reads a gang scheduler's PodGroup as observed (Volcano's or scheduler-plugins'; fields the
/// core does not use are ignored).
///
/// # Errors
/// A field of the wrong type, at its path under `podGroup`.
pub fn pod_group(value: Value) -> Result<PodGroup> {
    let (pod_group, _unknown) = from_value(value).map_err(|e| e.prefixed("podGroup"))?;
    Ok(pod_group)
}

/// Reads the ResourceFlavors a host observed: a JSON array or a `List` with `items`.
///
/// # Errors
/// More than [`validate::MAX_OBSERVED_FLAVORS`], or a field of the wrong type, at its path under
/// `resourceFlavors`.
pub fn resource_flavors(value: Value) -> Result<Vec<ResourceFlavor>> {
    observed(value, "resourceFlavors", validate::check_observed_flavors)
}

/// Reads a job's scale plans: a JSON array, or a `List` with `items`. Each is read as
/// [`scale_plan`] reads one, but not checked: a plan long carried out is history, and
/// [`crate::controller_pass`] checks the plans it acts on.
///
/// # Errors
/// [`Error::Invalid`] with every shape problem and unknown field, at `scalePlans[i]...`.
pub fn scale_plans(value: Value) -> Result<Vec<ScalePlan>> {
    let items = match value {
        Value::Object(mut list) => list.remove("items").unwrap_or(Value::Array(Vec::new())),
        other => other,
    };
    let Value::Array(items) = items else {
        return Err(Error::Parse(Problem::new(
            "scalePlans",
            Code::InvalidType,
            "the scale plans are a JSON array, or a List with `items`",
        )));
    };
    validate::check_observed_pods(items.len()).map_err(|e| e.prefixed("scalePlans"))?;
    let mut plans = Vec::with_capacity(items.len());
    let mut problems = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        match strict::<ScalePlan>(item) {
            Ok(plan) => plans.push(plan),
            Err(e) => problems.extend(e.prefixed(&format!("scalePlans[{i}]")).problems().iter().cloned()),
        }
    }
    into_result(problems)?;
    Ok(plans)
}

/// Reads a time such as `2026-01-02T03:04:05Z` (RFC 3339).
///
/// # Errors
/// [`Error::Parse`] at `now` when the text is not an RFC 3339 time.
pub fn time(text: &str) -> Result<Time> {
    Time::parse(text).ok_or_else(|| {
        Error::Parse(Problem::new(
            "now",
            Code::InvalidValue,
            format!("`{text}` is not an RFC 3339 time such as 2026-01-02T03:04:05Z"),
        ))
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn path_code(e: &Error) -> Vec<(String, Code)> {
        e.problems().iter().map(|p| (p.path.clone(), p.code)).collect()
    }

    /// The value read, written back, or the error's path, code and message.
    type Read = Result<Value, (String, Code, String)>;

    /// What the reader makes of a value, and the unknown fields.
    fn outcome_of<T: DeserializeOwned + serde::Serialize>(value: Value) -> (Read, Vec<String>) {
        let outcome = reader::read::<T>(value);
        let result = match outcome.result {
            Ok(v) => Ok(serde_json::to_value(&v).unwrap()),
            Err(e) => Err((outcome.error_path, e.code, e.message)),
        };
        (result, outcome.unknown)
    }

    /// A job condition and a problem, whose fields serde requires, read as serde's derive reads
    /// them (`deserialize_defaults!`'s `required`): the same values, errors and unknown fields.
    #[test]
    fn required_fields_read_as_serdes_derive_reads_them() {
        use crate::api::JobCondition;

        // The same structs with serde's derive, of the same names (which its messages quote).
        mod derived {
            use crate::api::{ConditionStatus, JobConditionType};
            use crate::error::Code;
            use crate::podspec::Time;

            #[derive(serde::Deserialize, serde::Serialize)]
            #[serde(rename_all = "camelCase")]
            pub struct JobCondition {
                #[serde(rename = "type")]
                type_: JobConditionType,
                status: ConditionStatus,
                #[serde(default, skip_serializing_if = "String::is_empty")]
                reason: String,
                #[serde(default, skip_serializing_if = "String::is_empty")]
                message: String,
                #[serde(default, skip_serializing_if = "Option::is_none")]
                last_update_time: Option<Time>,
                #[serde(default, skip_serializing_if = "Option::is_none")]
                last_transition_time: Option<Time>,
            }

            #[derive(serde::Deserialize, serde::Serialize)]
            pub struct Problem {
                path: String,
                code: Code,
                message: String,
            }
        }

        let conditions = [
            json!({}),
            json!({"status": "True"}),
            json!({"type": "Running"}),
            json!({"reason": "r", "message": "m"}),
            json!({"type": "Running", "status": "True"}),
            json!({"type": "Running", "status": "True", "reason": "JobRunning", "message": "m",
                   "lastUpdateTime": "2026-01-02T03:04:05Z", "lastTransitionTime": "2026-01-02T03:04:05+01:00"}),
            json!({"type": "Bogus", "status": "True"}),
            json!({"type": null, "status": "True"}),
            json!({"type": "Running", "status": "True", "reason": null}),
            json!({"type": "Running", "status": "True", "lastUpdateTime": null}),
            json!({"type": "Running", "status": "True", "lastUpdateTime": "yesterday"}),
            json!({"type": "Running", "status": 1}),
            json!({"type": "Running", "status": "True", "extra": 1, "Type": "Failed"}),
            json!({"extra": 1, "status": "False"}),
            json!([]),
            json!(["Running", "True"]),
            json!("Running"),
            json!(null),
        ];
        for value in conditions {
            let derived = outcome_of::<derived::JobCondition>(value.clone());
            assert_eq!(outcome_of::<JobCondition>(value.clone()), derived, "{value}");
            // Inside a status, at the condition's place.
            let at =
                |path: &str| if path.is_empty() { "conditions[0]".to_owned() } else { format!("conditions[0].{path}") };
            let (read, unknown) = outcome_of::<crate::api::JobStatus>(json!({"conditions": [value]}));
            assert_eq!(unknown, derived.1.iter().map(|u| at(u)).collect::<Vec<_>>(), "{value}");
            assert_eq!(read.err().map(|e| e.0), derived.0.err().map(|e| at(&e.0)), "{value}");
        }
        let problems = [
            json!({}),
            json!({"path": "a", "code": "syntax"}),
            json!({"code": "syntax", "message": "m"}),
            json!({"path": "spec", "code": "required", "message": "m"}),
            json!({"path": "spec", "code": "nonsense", "message": "m"}),
            json!({"path": null, "code": "required", "message": "m"}),
            json!({"path": 1, "code": "required", "message": "m", "more": true}),
            json!([]),
            json!(7),
        ];
        for value in problems {
            assert_eq!(outcome_of::<Problem>(value.clone()), outcome_of::<derived::Problem>(value.clone()), "{value}");
        }
    }

    /// A key given twice in JSON text read straight by serde_json: the last is kept, as a
    /// `serde_json::Value` keeps it (serde's derive would refuse it; the core's readers read a
    /// `Value`, which holds a key once).
    #[test]
    fn a_key_given_twice_keeps_the_last() {
        let text = r#"{"type": "Running", "status": "True", "type": "Failed", "reason": "a", "reason": "b"}"#;
        let read = serde_json::from_str::<crate::api::JobCondition>(text).map(|c| serde_json::to_value(c).unwrap());
        let value: Value = serde_json::from_str(text).unwrap();
        assert_eq!(read.ok(), Some(value));
        let spec = r#"{"replicaSpecs": {"ps": {"replicas": 1}}, "replicaSpecs": {}}"#;
        let read = serde_json::from_str::<crate::api::ElasticJobSpec>(spec).map(|s| s.replica_specs.len());
        assert_eq!(read.ok(), Some(0));
    }

    /// Enums read by `deserialize_names!`, through the core's reader and serde_json's, as serde's
    /// derive reads them: the same values and the same errors, word for word.
    #[test]
    fn names_read_as_serdes_derive_reads_them() {
        mod derived {
            use serde::{Deserialize, Serialize};

            #[derive(Debug, Deserialize, Serialize)]
            pub enum DistributionStrategy {
                ParameterServerStrategy,
                AllreduceStrategy,
            }

            #[derive(Debug, Deserialize, Serialize)]
            pub enum RestartPolicy {
                Always,
                OnFailure,
                Never,
                ExitCode,
            }

            #[derive(Debug, Deserialize, Serialize)]
            pub enum OptimizeMode {
                #[serde(rename = "manual")]
                Manual,
                #[serde(rename = "single-job")]
                SingleJob,
                #[serde(rename = "cluster")]
                Cluster,
            }

            #[derive(Debug, Deserialize, Serialize)]
            pub enum CleanPodPolicy {
                All,
                Running,
                None,
            }

            #[derive(Debug, Deserialize, Serialize)]
            #[serde(rename_all = "snake_case")]
            pub enum Code {
                Syntax,
                InvalidType,
                InvalidValue,
                Required,
                UnknownField,
                InvalidName,
                OutOfRange,
                InvalidQuantity,
                InvalidAddress,
                Duplicate,
                Mismatch,
                NoContainers,
                ExceedsResourceLimits,
                TfConfigHole,
                TooLarge,
                TfJob,
                Forbidden,
            }
        }

        fn same<Ours, Derived>(values: &[Value])
        where
            Ours: DeserializeOwned + serde::Serialize + std::fmt::Debug,
            Derived: DeserializeOwned + serde::Serialize + std::fmt::Debug,
        {
            for value in values {
                assert_eq!(outcome_of::<Ours>(value.clone()), outcome_of::<Derived>(value.clone()), "{value}");
                let text = value.to_string();
                let ours = serde_json::from_str::<Ours>(&text).map(|v| serde_json::to_value(v).unwrap());
                let derived = serde_json::from_str::<Derived>(&text).map(|v| serde_json::to_value(v).unwrap());
                assert_eq!(ours.map_err(|e| e.to_string()), derived.map_err(|e| e.to_string()), "{text}");
                let ours = serde_json::from_value::<Ours>(value.clone()).map(|v| serde_json::to_value(v).unwrap());
                let derived =
                    serde_json::from_value::<Derived>(value.clone()).map(|v| serde_json::to_value(v).unwrap());
                assert_eq!(ours.map_err(|e| e.to_string()), derived.map_err(|e| e.to_string()), "{value}");
            }
            // A format that names a variant by its index (serde's own `u32` deserializer does).
            for index in 0..20 {
                let as_index = || serde::de::value::U32Deserializer::<serde::de::value::Error>::new(index);
                let ours = Ours::deserialize(as_index()).map(|v| serde_json::to_value(v).unwrap());
                let derived = Derived::deserialize(as_index()).map(|v| serde_json::to_value(v).unwrap());
                assert_eq!(ours.map_err(|e| e.to_string()), derived.map_err(|e| e.to_string()), "{index}");
            }
        }

        let others = [
            json!(""),
            json!("Nope"),
            json!(0),
            json!(1),
            json!(3),
            json!(17),
            json!(99),
            json!(-1),
            json!(1.5),
            json!(true),
            json!(null),
            json!([]),
            json!(["Always"]),
            json!({}),
            json!({"Nope": null}),
        ];
        let with = |names: &[&str]| -> Vec<Value> {
            let mut values: Vec<Value> = others.to_vec();
            for name in names {
                values.push(json!(name));
                values.push(json!(name.to_lowercase()));
                values.push(json!({ *name: null }));
                values.push(json!({ *name: 1 }));
                values.push(json!({ *name: null, "more": null }));
            }
            values
        };
        same::<crate::api::DistributionStrategy, derived::DistributionStrategy>(&with(&[
            "ParameterServerStrategy",
            "AllreduceStrategy",
        ]));
        same::<crate::api::RestartPolicy, derived::RestartPolicy>(&with(&["Always", "OnFailure", "Never", "ExitCode"]));
        same::<crate::api::OptimizeMode, derived::OptimizeMode>(&with(&["manual", "single-job", "cluster", "Manual"]));
        same::<crate::api::CleanPodPolicy, derived::CleanPodPolicy>(&with(&["All", "Running", "None"]));
        same::<Code, derived::Code>(&with(&["syntax", "tf_job", "forbidden", "TfJob"]));
    }

    #[test]
    fn wrong_type_has_its_path() {
        let v =
            serde_json::json!({"metadata": {"name": "a"}, "spec": {"replicaSpecs": {"worker": {"replicas": "three"}}}});
        let e = from_value::<ElasticJob>(v).err();
        assert_eq!(
            e.as_ref().map(path_code),
            Some(vec![("spec.replicaSpecs.worker.replicas".to_owned(), Code::InvalidType)])
        );
    }

    #[test]
    fn unknown_fields_are_all_reported() {
        let v = serde_json::json!({"metadata": {"name": "a", "nmae": 1}, "spec": {"replicaSpecs": {"worker": {"replica": 3,
            "template": {"spec": {"containers": [{"name": "m", "imag": "x"}]}}}}}});
        let (_, unknown) = from_value::<ElasticJob>(v).unwrap();
        let paths: Vec<&str> = unknown.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "metadata.nmae",
                "spec.replicaSpecs.worker.replica",
                "spec.replicaSpecs.worker.template.spec.containers[0].imag"
            ]
        );
    }

    #[test]
    fn syntax_errors_have_line_and_column() {
        let e = from_json::<ElasticJob>("{\"metadata\": {\"name\": }").err();
        let message =
            e.as_ref().map(|e| e.problems().first().map(|p| p.message.clone()).unwrap_or_default()).unwrap_or_default();
        assert!(message.contains("line 1 column"), "{message}");
        assert_eq!(e.as_ref().map(Error::code), Some("parse_error"));
    }
}
