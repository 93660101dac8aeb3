//! The resource-bound cases, shared by tests/bounds.rs (which asserts each answer) and
//! benches/bounds.rs (which prints each one's time and peak memory). Each case builds its input
//! (not timed), then runs it through the entry point a host would call and returns the answer:
//! what was produced, or every problem with its path and code.

use std::any::Any;

use elasticjob::admission::{self, Verdict};
use elasticjob::podspec::Pod;
use elasticjob::validate::{MAX_OBSERVED_PODS, MAX_REPLICAS_PER_TYPE};
use elasticjob::{Options, Problem, ReplicaType, parse};
use serde_json::{Value, json};

/// What a case's entry point answered.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// It did its work: a line saying what it produced.
    Done(String),
    /// It refused, with every problem.
    Refused(Vec<Problem>),
}

impl Answer {
    /// The answer of a result: what `done` says it produced, or every problem of the error.
    pub fn of<T>(result: elasticjob::Result<T>, done: impl FnOnce(T) -> String) -> Answer {
        match result {
            Ok(value) => Answer::Done(done(value)),
            Err(e) => Answer::Refused(e.problems().to_vec()),
        }
    }

    /// `path: code` of each problem, or what was produced.
    pub fn summary(&self) -> String {
        match self {
            Answer::Done(what) => what.clone(),
            Answer::Refused(problems) => problems
                .iter()
                .map(|p| format!("`{}` at `{}`", p.code, shorten(&p.path)))
                .collect::<Vec<_>>()
                .join(", "),
        }
    }

    /// The path and code of each problem (empty when done).
    pub fn problems(&self) -> Vec<(String, elasticjob::Code)> {
        match self {
            Answer::Done(_) => Vec::new(),
            Answer::Refused(problems) => problems.iter().map(|p| (p.path.clone(), p.code)).collect(),
        }
    }
}

fn shorten(path: &str) -> String {
    if path.len() <= 64 {
        return path.to_owned();
    }
    let repeats = path.matches("[0]").count();
    match path.find("[0][0]") {
        Some(at) => format!("{}([0] x {repeats})", path.get(..at).unwrap_or_default()),
        None => path.to_owned(),
    }
}

/// The timed part of a case: it returns the answer, and what is left of the input for the caller
/// to free after the clock stops (an input the entry point takes by value is freed by it, inside).
pub type Run = Box<dyn FnOnce() -> (Answer, Box<dyn Any>)>;

/// One case: its name, what its input is, and how to build it; building returns the run.
pub struct Case {
    /// A short name (`labels_1m`).
    pub name: &'static str,
    /// The input and the entry point, for people.
    pub input: &'static str,
    /// Builds the input and returns the timed part.
    pub prepare: fn() -> Run,
}

/// Every case, in the order of the issue.
pub fn all() -> Vec<Case> {
    vec![
        Case {
            name: "document_4mib",
            input: "a 4 MiB job (a 4 MiB env value in the worker template, 2 workers, 1 PS) as JSON text: read, validated, rendered",
            prepare: || {
                let text = job_with(2, |j| {
                    j["spec"]["replicaSpecs"]["worker"]["template"]["spec"]["containers"][0]["env"] =
                        json!([{"name": "BIG", "value": "x".repeat(4 << 20)}]);
                })
                .to_string();
                Box::new(move || (render_text(&text), Box::new(text)))
            },
        },
        Case {
            name: "admission_4mib",
            input: "the same 4 MiB job in an admission payload: the policy's validate",
            prepare: || {
                let job = job_with(2, |j| {
                    j["spec"]["replicaSpecs"]["worker"]["template"]["spec"]["containers"][0]["env"] =
                        json!([{"name": "BIG", "value": "x".repeat(4 << 20)}]);
                });
                let payload = payload(job);
                Box::new(move || (verdict(&payload), Box::new(payload)))
            },
        },
        Case {
            name: "annotations_4mib",
            input: "a job with 4 MiB of annotations as JSON text: read and validated",
            prepare: || {
                let text =
                    job_with(2, |j| j["metadata"]["annotations"] = json!({"notes": "x".repeat(4 << 20)})).to_string();
                Box::new(move || (render_text(&text), Box::new(text)))
            },
        },
        Case {
            name: "nesting_10000_text",
            input: "a job with arrays nested 10,000 deep as JSON text: read",
            prepare: || {
                let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
                let text = format!(r#"{{"metadata": {{"name": "deep", "annotations": {{"a": {deep}}}}}}}"#);
                Box::new(move || (render_text(&text), Box::new(text)))
            },
        },
        Case {
            name: "nesting_10000_admission",
            input: "an admission payload whose object nests 10,000 deep: the policy's validate",
            prepare: || {
                let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
                let payload = format!(
                    r#"{{"request": {{"operation": "CREATE", "kind": {{"group": "elastic.iml.github.io", "version": "v1alpha1", "kind": "ElasticJob"}}, "object": {deep}}}}}"#
                )
                .into_bytes();
                Box::new(move || (verdict(&payload), Box::new(payload)))
            },
        },
        Case {
            name: "nesting_10000_value",
            input: "a job value (built in Rust, not text) nesting 10,000 deep in `managedFields[0].fieldsV1`: parse::job",
            prepare: || {
                let deep = (1..10_000).fold(json!([]), |v, _| Value::Array(vec![v]));
                // Put in place by hand: `json!` would copy it by serialising it, recursing as deep.
                let job = job_with(2, |j| {
                    j["metadata"]["managedFields"] = json!([{}]);
                    j["metadata"]["managedFields"][0]["fieldsV1"] = deep;
                });
                Box::new(move || (Answer::of(parse::job(job), |_| "read".into()), none()))
            },
        },
        Case {
            name: "workers_10000_validate",
            input: "a job with 10,000 workers (the most a type may have): parse::job",
            prepare: || {
                let job = job_with(MAX_REPLICAS_PER_TYPE, |_| ());
                Box::new(move || {
                    (
                        Answer::of(parse::job(job), |job| {
                            format!(
                                "valid, {} workers",
                                job.spec.replica_specs.get(&ReplicaType::Worker).unwrap().replicas()
                            )
                        }),
                        none(),
                    )
                })
            },
        },
        Case {
            name: "workers_10000_render",
            input: "the 10,000-worker job: render (its TF_CONFIGs would list 50 million addresses)",
            prepare: || {
                let job = parse::job(job_with(MAX_REPLICAS_PER_TYPE, |_| ())).expect("valid");
                Box::new(move || {
                    (
                        Answer::of(elasticjob::render(&job, None, &Options::default()), |list| {
                            format!("{} objects", list.items.len())
                        }),
                        Box::new(job),
                    )
                })
            },
        },
        Case {
            name: "workers_10000_reconcile",
            input: "the 10,000-worker job's first scale plan: reconcile_pods of the workers on an empty cluster",
            prepare: || {
                let job = parse::job(job_with(MAX_REPLICAS_PER_TYPE, |_| ())).expect("valid");
                Box::new(move || {
                    let plan = elasticjob::initial_scale_plan(&job);
                    let answer = Answer::of(
                        elasticjob::reconcile_pods(&job, ReplicaType::Worker, &plan, &[], &Options::default()),
                        |plan| {
                            format!(
                                "the first pass creates {} worker pods, the rest wait for later passes",
                                plan.created_pods().count()
                            )
                        },
                    );
                    (answer, Box::new(job))
                })
            },
        },
        Case {
            name: "workers_10001",
            input: "a job with 10,001 workers: parse::job",
            prepare: || {
                let job = job_with(MAX_REPLICAS_PER_TYPE + 1, |_| ());
                Box::new(move || (Answer::of(parse::job(job), |_| "valid".into()), none()))
            },
        },
        Case {
            name: "labels_1m",
            input: "a job with a million labels (about 14 MB of JSON): parse::job",
            prepare: || {
                let labels: serde_json::Map<String, Value> =
                    (0..1_000_000).map(|i| (format!("k{i}"), json!("v"))).collect();
                let job = job_with(2, |j| j["metadata"]["labels"] = Value::Object(labels));
                Box::new(move || (Answer::of(parse::job(job), |_| "valid".into()), none()))
            },
        },
        Case {
            name: "quantities",
            input: "`1e308` and `99999999999999999999Ei` as requests, limits and the job's resourceLimits: parse::job",
            prepare: || {
                let job = job_with(2, |j| {
                    j["spec"]["resourceLimits"] = json!({"cpu": "99999999999999999999Ei", "memory": "1e308"});
                    j["spec"]["replicaSpecs"]["worker"]["template"]["spec"]["containers"][0]["resources"] =
                        json!({"requests": {"cpu": "1e308"}, "limits": {"memory": "99999999999999999999Ei"}});
                });
                Box::new(move || (Answer::of(parse::job(job), |_| "valid".into()), none()))
            },
        },
        Case {
            name: "observed_100000",
            input: "a running 1,000-worker job with 100,000 observed pods (99,000 of them failed relaunches): reconcile",
            prepare: || {
                let (job, pods) = running(MAX_OBSERVED_PODS);
                Box::new(move || (reconcile(&job, &pods), Box::new((job, pods))))
            },
        },
        Case {
            name: "observed_100001",
            input: "the same job with 100,001 observed pods: reconcile",
            prepare: || {
                let (job, pods) = running(MAX_OBSERVED_PODS + 1);
                Box::new(move || (reconcile(&job, &pods), Box::new((job, pods))))
            },
        },
        Case {
            name: "observed_100001_json",
            input: "100,001 observed pods as a JSON `List`: parse::pods, before any pod is read",
            prepare: || {
                let (_, pods) = running(MAX_OBSERVED_PODS + 1);
                let list = json!({"apiVersion": "v1", "kind": "List", "items": pods});
                Box::new(move || (Answer::of(parse::pods(list), |pods| format!("{} pods", pods.len())), none()))
            },
        },
    ]
}

/// The case of this name.
pub fn find(name: &str) -> Case {
    all().into_iter().find(|c| c.name == name).unwrap_or_else(|| panic!("no bounds case {name}"))
}

/// Runs the case of this name.
pub fn answer(name: &str) -> Answer {
    (find(name).prepare)()().0
}

/// Nothing left to free: the entry point took the input.
fn none() -> Box<dyn Any> {
    Box::new(())
}

/// A job named `bounds` with one PS and `workers` workers, changed by `change`.
fn job_with(workers: i32, change: impl FnOnce(&mut Value)) -> Value {
    let spec = |n: i32| {
        json!({"replicas": n, "restartCount": 3, "template": {"spec": {"containers": [
        {"name": "main", "image": "tf:2", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}})
    };
    let mut job = json!({
        "apiVersion": "elastic.iml.github.io/v1alpha1", "kind": "ElasticJob",
        "metadata": {"name": "bounds", "namespace": "ns", "uid": "00000000-0000-4000-8000-000000000001"},
        "spec": {"distributionStrategy": "ParameterServerStrategy", "replicaSpecs": {"ps": spec(1), "worker": spec(workers)}}
    });
    change(&mut job);
    job
}

/// JSON text read, validated and rendered, as the CLI and the preview do.
fn render_text(text: &str) -> Answer {
    let run = || -> elasticjob::Result<String> {
        let (value, _) = parse::from_json::<Value>(text)?;
        let job = parse::job(value)?;
        let list = elasticjob::render(&job, None, &Options::default())?;
        let bytes = serde_json::to_vec(&list).map(|v| v.len()).unwrap_or_default();
        Ok(format!("{} objects, {:.1} MB of JSON", list.items.len(), bytes as f64 / 1e6))
    };
    Answer::of(run(), |done| done)
}

/// An admission payload for a CREATE of `job`.
fn payload(job: Value) -> Vec<u8> {
    json!({"request": {"operation": "CREATE", "object": job,
        "kind": {"group": "elastic.iml.github.io", "version": "v1alpha1", "kind": "ElasticJob"}}})
    .to_string()
    .into_bytes()
}

fn verdict(payload: &[u8]) -> Answer {
    match admission::review_payload(payload) {
        Verdict::Accepted => Answer::Done("accepted".into()),
        Verdict::Rejected { error, .. } => Answer::Refused(error.problems().to_vec()),
    }
}

fn reconcile(job: &elasticjob::ElasticJob, pods: &[Pod]) -> Answer {
    let now = parse::time("2026-01-01T01:00:00Z").expect("time");
    Answer::of(elasticjob::reconcile(job, None, pods, &now, &Options::default()), |plan| {
        format!("a plan of {} actions", plan.actions().count())
    })
}

/// A running job with 1,000 workers and one PS, and `total` observed pods: the master, every
/// replica running, and failed workers (relaunch history) for the rest.
fn running(total: usize) -> (elasticjob::ElasticJob, Vec<Pod>) {
    let mut job = parse::job(job_with(1000, |_| ())).expect("valid");
    job.status =
        Some(serde_json::from_value(json!({"phase": "Running", "startTime": "2026-01-01T00:00:00Z"})).expect("status"));
    let template: Pod = serde_json::from_value(json!({
        "metadata": {"namespace": "ns", "labels": {"app": "dlrover", "elasticjob.dlrover/name": "bounds", "restart-count": "2"}},
        "spec": {"containers": [{"name": "main", "image": "tf:2", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]},
        "status": {"phase": "Running"}
    }))
    .expect("pod");
    let pod = |t: ReplicaType, id: usize, rank: usize, phase: &str| {
        let mut p = template.clone();
        p.metadata.name = Some(format!("bounds-edljob-{t}-{id}"));
        let labels = p.metadata.labels.get_or_insert_with(Default::default);
        labels.insert("elasticjob.dlrover/replica-type".into(), t.to_string());
        labels.insert("elasticjob.dlrover/replica-index".into(), id.to_string());
        labels.insert("elasticjob.dlrover/rank-index".into(), rank.to_string());
        if p.status.is_some() {
            p.status = serde_json::from_value(serde_json::json!({"phase": phase})).ok();
        }
        p
    };
    let mut master = pod(ReplicaType::DlroverMaster, 0, 0, "Running");
    master.metadata.name = Some("elasticjob-bounds-dlrover-master".into());
    let mut pods = vec![master, pod(ReplicaType::Ps, 0, 0, "Running")];
    pods.extend((0..1000).map(|r| pod(ReplicaType::Worker, r, r, "Running")));
    let mut id = 1000;
    while pods.len() < total {
        pods.push(pod(ReplicaType::Worker, id, id % 1000, "Failed"));
        id += 1;
    }
    (job, pods)
}
