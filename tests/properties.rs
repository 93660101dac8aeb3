//! What must always hold, over generated jobs, plans and clusters:
//! carrying a plan out and planning again creates and deletes nothing; names are unique and no two
//! live task pods share a type and rank (but a pod a plan's createPods makes beside the one it
//! replaces); whatever validates can be planned; the same input gives the same bytes; no input
//! panics; every TFJob that converts gives an ElasticJob that reads back and validates.
// A test crate: its helpers outside #[test] functions may unwrap, as the tests do
// (the workspace lints deny it in shipped code; clippy.toml allows it in #[test] functions).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

mod common;

use std::collections::BTreeSet;

use elasticjob::podspec::Pod;
use elasticjob::{Options, Plan, ReplicaType, ScalePlan, parse, reconcile};
use proptest::prelude::*;
use serde_json::{Value, json};

const JOB: &str = "prop";

fn job_json(counts: [Option<i32>; 4], restart_count: i32, policy: Option<&'static str>, allreduce: bool) -> Value {
    let mut specs = serde_json::Map::new();
    for (t, n) in ["ps", "chief", "worker", "evaluator"].into_iter().zip(counts) {
        if let Some(n) = n {
            let mut spec = json!({"replicas": n, "restartCount": restart_count, "template": {"spec": {"containers": [
                {"name": "main", "image": "tf:2", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}
            ]}}});
            if let Some(p) = policy {
                spec["restartPolicy"] = json!(p);
            }
            specs.insert(t.into(), spec);
        }
    }
    if specs.is_empty() {
        specs.insert(
            "worker".into(),
            json!({"replicas": 1, "template": {"spec": {"containers": [{"name": "main", "image": "tf:2"}]}}}),
        );
    }
    json!({
        "apiVersion": "elastic.iml.github.io/v1alpha1", "kind": "ElasticJob",
        "metadata": {"name": JOB, "namespace": "ns", "uid": "00000000-0000-4000-8000-000000000001"},
        "spec": {
            "distributionStrategy": if allreduce { "AllreduceStrategy" } else { "ParameterServerStrategy" },
            "resourceLimits": {"memory": "64Gi"},
            "replicaSpecs": specs
        }
    })
}

fn arb_job() -> impl Strategy<Value = Value> {
    (
        proptest::option::of(0..4i32),
        proptest::option::of(0..=1i32),
        proptest::option::of(0..7i32),
        proptest::option::of(0..=1i32),
        0..3i32,
        proptest::option::of(prop_oneof![Just("Never"), Just("OnFailure"), Just("Always"), Just("ExitCode")]),
        any::<bool>(),
    )
        .prop_map(|(ps, chief, worker, evaluator, rc, policy, allreduce)| {
            // DLRover's master needs a worker spec, and a PS one for a parameter-server job.
            let ps = if allreduce { ps } else { ps.or(Some(0)) };
            job_json([ps, chief, worker.or(Some(0)), evaluator], rc, policy, allreduce)
        })
}

const PHASES: [&str; 5] = ["Pending", "Running", "Succeeded", "Failed", "Unknown"];

/// Observed pods: per task type some pods with distinct ids, at most one alive pod per rank.
fn arb_pods() -> impl Strategy<Value = Vec<Pod>> {
    let one = (
        0..4usize,
        0..8i32,
        0..5usize,
        0..3i32,
        any::<bool>(),
        proptest::option::of(prop_oneof![Just(1), Just(137), Just(143)]),
        any::<bool>(),
    );
    (proptest::collection::vec(one, 0..14), proptest::option::of(0..4usize)).prop_map(|(specs, master)| {
        let mut pods = Vec::new();
        let mut alive = BTreeSet::new();
        for (id, (t, rank, phase, restarts, deleting, exit, oom)) in specs.into_iter().enumerate() {
            let t = ReplicaType::TASKS[t];
            let rank = if t.is_singleton() { 0 } else { rank };
            let phase = PHASES[phase];
            let is_alive = matches!(phase, "Pending" | "Running" | "Succeeded") && !deleting;
            if is_alive && !alive.insert((t, rank)) {
                continue;
            }
            let mut pod = common::pod(JOB, t, id as i32, rank, phase);
            pod.metadata.labels.as_mut().unwrap().insert("restart-count".into(), restarts.to_string());
            if deleting {
                pod.metadata.deletion_timestamp = Some(parse::time("2026-01-01T00:00:00Z").unwrap());
            }
            if let (Some(code), "Failed") = (exit, phase) {
                let reason = if oom { ",\"reason\":\"OOMKilled\"" } else { "" };
                pod.status = Some(serde_json::from_str(&format!(
                    r#"{{"phase":"Failed","containerStatuses":[{{"name":"main","image":"tf:2","imageID":"","ready":false,"restartCount":0,"state":{{"terminated":{{"exitCode":{code}{reason}}}}}}}]}}"#
                )).unwrap());
            }
            pods.push(pod);
        }
        if let Some(phase) = master {
            let mut m = common::pod(JOB, ReplicaType::DlroverMaster, 0, 0, PHASES[phase]);
            m.metadata.name = Some(format!("elasticjob-{JOB}-dlrover-master"));
            pods.push(m);
        }
        pods
    })
}

/// The name of the task pod of type `t` and id `id`, as the operator names them.
fn pod_name(t: ReplicaType, id: i32) -> String {
    format!("{JOB}-edljob-{t}-{id}")
}

fn arb_plan() -> impl Strategy<Value = Value> {
    let counts = proptest::collection::btree_map(0..4usize, 0..7i32, 0..4);
    let creates = proptest::collection::vec((0..4usize, 20..30i32, 0..9i32, any::<bool>()), 0..3);
    let removes = proptest::collection::vec((0..4usize, 0..14i32), 0..3);
    let migrates = proptest::collection::vec((0..4usize, 0..14i32), 0..2);
    let ps_hosts = proptest::option::of(0..4usize);
    (counts, creates, removes, migrates, ps_hosts).prop_map(|(counts, creates, removes, migrates, ps_hosts)| {
        let types = ReplicaType::TASKS;
        let specs: serde_json::Map<String, Value> = counts
            .into_iter()
            .map(|(t, n)| {
                let t = types[t];
                (t.to_string(), json!({"replicas": if t.is_singleton() { n.min(1) } else { n }, "resource": {"cpu": "1", "memory": "1Gi"}}))
            })
            .collect();
        let mut seen = BTreeSet::new();
        let creates: Vec<Value> = creates
            .into_iter()
            .filter_map(|(t, id, rank, own_service)| {
                let t = types[t];
                let rank = if t.is_singleton() { 0 } else { rank };
                let name = pod_name(t, id);
                let mut entry = json!({"name": name, "id": id, "type": t, "rankIndex": rank});
                if own_service {
                    entry["service"] = json!(format!("{name}:{}", if t == ReplicaType::Ps { 2222 } else { 3333 }));
                }
                seen.insert((t, rank)).then_some(entry)
            })
            .collect();
        let created: BTreeSet<String> = creates.iter().map(|c| c["name"].as_str().unwrap().to_owned()).collect();
        let removes: Vec<Value> = removes
            .into_iter()
            .map(|(t, id)| (types[t], id))
            .filter(|(t, id)| !created.contains(&pod_name(*t, *id)))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .map(|(t, id)| json!({"name": pod_name(t, id), "id": id, "type": t}))
            .collect();
        let migrates: Vec<Value> = migrates
            .into_iter()
            .map(|(t, id)| (types[t], id))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .map(|(t, id)| json!({"name": pod_name(t, id), "resource": {"memory": "2Gi"}}))
            .collect();
        let mut plan = json!({
            "apiVersion": "elastic.iml.github.io/v1alpha1", "kind": "ScalePlan",
            "metadata": {"name": "prop-plan", "namespace": "ns"},
            "spec": {"ownerJob": JOB, "replicaResourceSpecs": specs, "createPods": creates, "removePods": removes,
                "migratePods": migrates}
        });
        if let Some(n) = ps_hosts {
            plan["spec"]["psHosts"] = json!((0..n).map(|i| format!("prop-ps-{i}:2222")).collect::<Vec<_>>());
        }
        plan
    })
}

/// The plan of every task type's `reconcile_pods`, or `None` when the inputs are refused.
fn reconcile_all(job: &elasticjob::ElasticJob, plan: &ScalePlan, pods: &[Pod]) -> Option<Plan> {
    let mut actions = Vec::new();
    for t in ReplicaType::TASKS {
        actions.extend(elasticjob::reconcile_pods(job, t, plan, pods, &Options::default()).ok()?.actions().cloned());
    }
    Some(Plan::from_actions(actions))
}

fn creates_or_deletes(plan: &Plan) -> Vec<String> {
    plan.created_pods().filter_map(|p| p.metadata.name.clone()).chain(plan.deleted_pods().map(str::to_owned)).collect()
}

/// Pod names are unique, and no two live task pods share a type and rank, but where one of them is
/// a pod the plan's `createPods` or `migratePods` names (`common::unique`). (`arb_pods` makes at most
/// one live pod per rank to begin with.)
/// Carries the job controller's plans out pass after pass, at 2026-01-01T00:00:00Z on an
/// otherwise unchanging cluster, until a plan does nothing or deletes the job: within 4 passes.
fn passes_to_a_fixed_point(job: &mut elasticjob::ElasticJob, mut pods: Vec<Pod>) -> Result<(), TestCaseError> {
    let now = parse::time("2026-01-01T00:00:00Z").unwrap();
    let mut passes = Vec::new();
    loop {
        let plan = reconcile(job, None, &pods, &now, &Options::default()).unwrap();
        if plan.is_empty() || plan.actions().any(|a| matches!(a, elasticjob::Action::DeleteJob { .. })) {
            return Ok(());
        }
        passes.push(plan);
        prop_assert!(passes.len() <= 4, "no fixed point after 4 passes: {:#?}", passes);
        let last = passes.last().unwrap();
        common::apply(&mut pods, last);
        common::apply_status(job, last);
        check_unique(&pods, None)?;
    }
}

fn check_unique(pods: &[Pod], plan: Option<&ScalePlan>) -> Result<(), TestCaseError> {
    common::unique(pods, plan, JOB).map_err(TestCaseError::fail)
}

proptest! {

    #[test]
    fn reconcile_pods_converges(job in arb_job(), plan in arb_plan(), mut pods in arb_pods()) {
        let Ok(job) = parse::job(job) else { return Ok(()) };
        let Ok(plan) = parse::scale_plan(plan) else { return Ok(()) };
        let Some(first) = reconcile_all(&job, &plan, &pods) else { return Ok(()) };
        let services: Vec<_> = first.actions().filter_map(|a| match a {
            elasticjob::Action::CreateOrUpdateService { service, .. } => service.metadata.name.clone(),
            _ => None,
        }).collect();
        prop_assert_eq!(services.iter().collect::<BTreeSet<_>>().len(), services.len(), "a service twice in one plan");
        common::apply(&mut pods, &first);
        check_unique(&pods, Some(&plan))?;
        let second = reconcile_all(&job, &plan, &pods).expect("the second pass is refused");
        prop_assert_eq!(creates_or_deletes(&second), Vec::<String>::new());
    }

    /// The job controller is level-triggered: each pass may move the phase on (Created, Pending,
    /// Running, Succeeded), and the next pass acts in the new phase. Carried out pass after pass
    /// on an otherwise unchanging cluster it reaches a plan that does nothing, within a few passes.
    #[test]
    fn job_reconcile_converges(job in arb_job(), pods in arb_pods(), phase in 0..7usize) {
        let phases = [None, Some("Created"), Some("Pending"), Some("Running"), Some("Restarting"), Some("Succeeded"), Some("Failed")];
        let mut job = job;
        if let Some(p) = phases[phase] {
            job["status"] = json!({"phase": p, "status": {
                "conditions": [{"type": "Created", "status": "True", "reason": "JobCreated"}], "replicaStatuses": {}}});
        }
        let mut job = parse::job(job).unwrap();
        passes_to_a_fixed_point(&mut job, pods)?;
    }

    /// With a run policy the job controller reaches a fixed point within a few passes too (a
    /// deadline or backoff limit fails the job and stops its pods once; a finished job deletes
    /// what its cleanPodPolicy names once), or deletes the job (its TTL passed), after which there
    /// is no job to plan for. `cleanPodPolicy: Running` plans the bytes of no run policy.
    #[test]
    fn a_run_policy_converges(
        job in arb_job(), pods in arb_pods(), phase in 0..7usize,
        clean in 0..4usize, deadline in 0..3usize, backoff in 0..4usize, ttl in 0..3usize,
    ) {
        let phases = [None, Some("Created"), Some("Pending"), Some("Running"), Some("Restarting"), Some("Succeeded"), Some("Failed")];
        let mut job = job;
        if let Some(p) = phases[phase] {
            job["status"] = json!({"phase": p, "status": {
                "conditions": [{"type": "Created", "status": "True", "reason": "JobCreated"}], "replicaStatuses": {},
                "startTime": "2025-12-31T23:30:00Z", "completionTime": "2025-12-31T23:50:00Z"}});
        }
        let now = parse::time("2026-01-01T00:00:00Z").unwrap();
        let options = Options::default();
        let plain = parse::job(job.clone()).unwrap();
        job["spec"]["runPolicy"] = json!({"cleanPodPolicy": "Running"});
        let running = parse::job(job.clone()).unwrap();
        prop_assert_eq!(
            reconcile(&plain, None, &pods, &now, &options).unwrap(),
            reconcile(&running, None, &pods, &now, &options).unwrap()
        );
        let mut policy = serde_json::Map::new();
        if let Some(c) = [None, Some("All"), Some("Running"), Some("None")][clean] {
            policy.insert("cleanPodPolicy".into(), json!(c));
        }
        // 60 s has passed since the start time, a day has not.
        if let Some(d) = [None, Some(60), Some(86_400)][deadline] {
            policy.insert("activeDeadlineSeconds".into(), json!(d));
        }
        if let Some(b) = [None, Some(0), Some(1), Some(5)][backoff] {
            policy.insert("backoffLimit".into(), json!(b));
        }
        if let Some(t) = [None, Some(0), Some(3_600)][ttl] {
            policy.insert("ttlSecondsAfterFinished".into(), json!(t));
        }
        job["spec"]["runPolicy"] = Value::Object(policy);
        passes_to_a_fixed_point(&mut parse::job(job).unwrap(), pods)?;
    }

    /// Whatever `validate` accepts can be planned: for a valid job and plan and the pods such a
    /// job can have, every operation returns a plan (every check planning would fail on is a
    /// `validate` error first, so nothing `validate` accepts makes an operation fail).
    #[test]
    fn what_validates_can_be_planned(job in arb_job(), plan in arb_plan(), pods in arb_pods(), phase in 0..4usize) {
        let Ok(mut job) = parse::job(job) else { return Ok(()) };
        let Ok(mut plan) = parse::scale_plan(plan) else { return Ok(()) };
        if elasticjob::validate::check_job_and_plan(&job, Some(&plan)).is_err() {
            return Ok(());
        }
        // The job carries the plan out in any phase a plan meets it in.
        let phases = ["Running", "Scaling", "Restarting", "Pending"];
        job.status = Some(serde_json::from_value(json!({"phase": phases[phase], "scalePlan": "prop-plan"})).unwrap());
        plan.status = Some(serde_json::from_value(json!({"phase": "Pending"})).unwrap());
        let now = parse::time("2026-01-01T00:00:00Z").unwrap();
        let options = Options::default();
        let result = reconcile(&job, Some(&plan), &pods, &now, &options);
        prop_assert!(result.is_ok(), "reconcile refused a valid job and plan: {:?}", result.err());
        for t in ReplicaType::ALL {
            let pods_result = elasticjob::reconcile_pods(&job, t, &plan, &pods, &options);
            prop_assert!(pods_result.is_ok(), "reconcile_pods({t}) refused: {:?}", pods_result.err());
            let faults = elasticjob::handle_fault_pods(&job, t, &pods, &options);
            prop_assert!(faults.is_ok(), "handle_fault_pods({t}) refused: {:?}", faults.err());
        }
        let scale = elasticjob::reconcile_scale_plan(&plan, Some(&job), &now);
        prop_assert!(scale.is_ok(), "reconcile_scale_plan refused: {:?}", scale.err());
        let rendered = elasticjob::render(&job, Some(&plan), &options);
        prop_assert!(rendered.is_ok(), "render refused: {:?}", rendered.err());
    }

    #[test]
    fn same_input_same_bytes(job in arb_job(), plan in arb_plan(), pods in arb_pods()) {
        let Ok(job) = parse::job(job) else { return Ok(()) };
        let plan = parse::scale_plan(plan).ok();
        let now = parse::time("2026-01-01T00:00:00Z").unwrap();
        let run = || {
            let render = elasticjob::render(&job, plan.as_ref(), &Options::default()).map_err(|e| e.report());
            let rec = reconcile(&job, plan.as_ref(), &pods, &now, &Options::default()).map_err(|e| e.report());
            serde_json::to_vec(&(render, rec)).unwrap()
        };
        prop_assert_eq!(run(), run());
    }

    #[test]
    fn rendered_names_are_unique(job in arb_job(), plan in proptest::option::of(arb_plan())) {
        let Ok(job) = parse::job(job) else { return Ok(()) };
        let plan = plan.and_then(|p| parse::scale_plan(p).ok());
        let Ok(list) = elasticjob::render(&job, plan.as_ref(), &Options::default()) else { return Ok(()) };
        let mut names = BTreeSet::new();
        for item in &list.items {
            let (kind, name) = match item {
                elasticjob::Object::Pod(p) => ("Pod", p.metadata.name.clone()),
                elasticjob::Object::Service(s) => ("Service", s.metadata.name.clone()),
                elasticjob::Object::PodGroup(g) => ("PodGroup", g.metadata.name.clone()),
            };
            prop_assert!(names.insert((kind, name.clone())), "two {kind}s named {name:?}");
        }
    }
}

/// Arbitrary JSON, and valid jobs with one subtree replaced by arbitrary JSON.
fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "[a-zA-Z0-9_.:/ -]{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("worker"),
            Just("ps"),
            Just("chief"),
            Just("100m"),
            Just("1Gi"),
            Just("-1"),
            Just("1e40"),
            Just("a:1")
        ]
        .prop_map(|s| Value::String(s.into())),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::btree_map(
                prop_oneof![
                    Just("replicas".to_owned()),
                    Just("template".to_owned()),
                    Just("worker".to_owned()),
                    "[a-z]{1,8}"
                ],
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn mutate(doc: &mut Value, path: &[usize], with: Value) {
    let Some((first, rest)) = path.split_first() else {
        *doc = with;
        return;
    };
    match doc {
        Value::Object(map) if !map.is_empty() => {
            let key = map.keys().nth(first % map.len()).unwrap().clone();
            mutate(map.get_mut(&key).unwrap(), rest, with);
        }
        Value::Array(items) if !items.is_empty() => {
            let n = items.len();
            mutate(&mut items[first % n], rest, with);
        }
        _ => *doc = with,
    }
}

proptest! {

    #[test]
    fn no_input_panics(job in arb_job(), path in proptest::collection::vec(any::<usize>(), 0..8), junk in arb_json(), plan in arb_plan(), raw in arb_json()) {
        let mut job = job;
        mutate(&mut job, &path, junk.clone());
        let now = parse::time("2026-01-01T00:00:00Z").unwrap();
        for candidate in [job, raw] {
            let _ = parse::from_json::<elasticjob::ElasticJob>(&candidate.to_string());
            let Ok(job) = parse::job(candidate) else { continue };
            let plan = parse::scale_plan(plan.clone()).ok();
            let _ = elasticjob::render(&job, plan.as_ref(), &Options::default());
            let _ = reconcile(&job, plan.as_ref(), &[], &now, &Options::default());
            for t in ReplicaType::ALL {
                for index in 0..3 {
                    let _ = elasticjob::tf_config(&job, t, index, plan.as_ref());
                }
            }
        }
        let _ = parse::pods(junk.clone());
        let mut bad_plan = plan;
        mutate(&mut bad_plan, &path, junk);
        let _ = parse::scale_plan(bad_plan);
    }
}

/// The TFJobs of `examples/tfjob/`, read once.
fn tf_jobs() -> &'static [Value] {
    static TF_JOBS: std::sync::OnceLock<Vec<Value>> = std::sync::OnceLock::new();
    TF_JOBS.get_or_init(|| {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/tfjob");
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
            .collect();
        files.sort();
        files.iter().map(|f| serde_yaml_ng::from_str(&std::fs::read_to_string(f).unwrap()).unwrap()).collect()
    })
}

proptest! {
    #[test]
    fn every_tf_job_that_converts_gives_a_valid_elastic_job(
        example in 0..4usize,
        path in proptest::collection::vec(any::<usize>(), 0..8),
        junk in arb_json(),
    ) {
        let mut tf_job = tf_jobs()[example].clone();
        mutate(&mut tf_job, &path, junk);
        if let Ok(conversion) = elasticjob::convert::from_tf_job(tf_job) {
            let text = serde_json::to_string(&conversion.elastic_job).unwrap();
            let read = parse::job(serde_json::from_str(&text).unwrap());
            prop_assert!(read.is_ok(), "{text}: {read:?}");
            prop_assert!(conversion.notes.iter().all(|n| !n.path.is_empty() && !n.message.is_empty()));
        }
    }
}
