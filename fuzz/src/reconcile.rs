//! (b) A valid job, arbitrary observed pods and an arbitrary scale plan, built from the bytes with
//! `arbitrary` (so the fuzzer reaches the planner rather than the JSON reader), through every
//! controller operation.
//!
//! Checked: the same input gives the same bytes; every error says where; whatever `validate`
//! accepts every operation plans (`what_validates_can_be_planned`); a plan carried out and planned
//! again creates and deletes nothing; carrying it out leaves unique names and at most one live pod
//! per type and rank (but a pod the plan's `createPods` or `migratePods` names, which runs beside
//! the pod it replaces: `check_unique` of tests/properties.rs); the job controller, pass after
//! pass on an otherwise unchanging cluster, reaches a plan that does nothing within a few passes;
//! the controller's pass gives the same bytes from a store as from lists, and plans what
//! `validate` accepts.

use arbitrary::{Arbitrary, Unstructured};
use elasticjob::podspec::Pod;
use elasticjob::store::{Overlay, Store};
use elasticjob::{Action, ElasticJob, Options, Plan, ReplicaType, ScalePlan, parse, validate};
use serde_json::{Value, json};

use super::check::{self, Root};

#[path = "../../tests/common/cluster.rs"]
mod cluster;

use cluster::apply;

const JOB: &str = "fuzz";
const TYPES: [ReplicaType; 5] =
    [ReplicaType::Ps, ReplicaType::Chief, ReplicaType::Worker, ReplicaType::Evaluator, ReplicaType::DlroverMaster];
const PHASES: [&str; 6] = ["Pending", "Running", "Succeeded", "Failed", "Unknown", ""];
const POLICIES: [&str; 4] = ["Never", "OnFailure", "Always", "ExitCode"];
const JOB_PHASES: [&str; 8] =
    ["Created", "Pending", "Running", "Scaling", "Restarting", "Succeeded", "Failed", "Suspended"];
const PLAN_PHASES: [&str; 4] = ["Created", "Pending", "Scaling", "Succeeded"];
/// How many passes the job controller may take to settle (`job_reconcile_converges` in
/// tests/properties.rs allows four; a scale plan and relaunches may each need one more).
const MAX_PASSES: usize = 6;

/// The input, as `arbitrary` builds it from the bytes; every number is folded into a small range
/// around the bounds that matter (a count of -1 or 2 chiefs is kept, to be refused).
#[derive(Arbitrary, Debug)]
pub struct Input {
    counts: [Option<u8>; 4],
    restart_count: u8,
    policy: Option<u8>,
    allreduce: bool,
    memory_limit_gi: Option<u8>,
    suspend: Option<bool>,
    phase: Option<u8>,
    pods: Vec<PodInput>,
    plan: Option<PlanInput>,
}

#[derive(Arbitrary, Debug)]
struct PodInput {
    replica_type: u8,
    id: u8,
    rank: u8,
    phase: u8,
    restarts: u8,
    deleting: bool,
    exit_code: Option<u8>,
    oom: bool,
    memory_gi: Option<u8>,
    other_job: bool,
}

#[derive(Arbitrary, Debug)]
struct PlanInput {
    counts: Vec<(u8, u8, Option<u8>)>,
    creates: Vec<(u8, u8, u8, bool)>,
    removes: Vec<(u8, u8)>,
    migrates: Vec<(u8, u8, u8)>,
    ps_hosts: Option<u8>,
    other_owner: bool,
    /// The job's `status.scalePlan` names the plan, so `reconcile` carries it out.
    current: bool,
    phase: Option<u8>,
}

fn pick<T: Copy>(list: &[T], i: u8) -> T {
    list[usize::from(i) % list.len()]
}

fn count(n: u8) -> i32 {
    i32::from(n % 12) - 1
}

impl Input {
    fn job(&self) -> Value {
        let mut specs = serde_json::Map::new();
        for (t, n) in TYPES.iter().zip(self.counts) {
            let Some(n) = n else { continue };
            let mut spec = json!({"replicas": count(n), "restartCount": i32::from(self.restart_count % 4), "template": {"spec": {"containers": [
                {"name": "main", "image": "tf:2", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}
            ]}}});
            if let Some(p) = self.policy {
                spec["restartPolicy"] = json!(pick(&POLICIES, p));
            }
            specs.insert(t.to_string(), spec);
        }
        let mut job = json!({
            "apiVersion": "elastic.iml.github.io/v1alpha1", "kind": "ElasticJob",
            "metadata": {"name": JOB, "namespace": "ns", "uid": "00000000-0000-4000-8000-000000000001"},
            "spec": {
                "distributionStrategy": if self.allreduce { "AllreduceStrategy" } else { "ParameterServerStrategy" },
                "replicaSpecs": specs
            }
        });
        if let Some(gi) = self.memory_limit_gi {
            job["spec"]["resourceLimits"] = json!({"memory": format!("{}Gi", gi % 64)});
        }
        if let Some(s) = self.suspend {
            job["spec"]["suspend"] = json!(s);
        }
        if let Some(p) = self.phase {
            let mut status = json!({"phase": pick(&JOB_PHASES, p), "status": {
                "conditions": [{"type": "Created", "status": "True", "reason": "JobCreated"}], "replicaStatuses": {}}});
            if self.plan.as_ref().is_some_and(|p| p.current) {
                status["scalePlan"] = json!("fuzz-plan");
            }
            job["status"] = status;
        }
        job
    }

    fn pods(&self) -> Vec<Pod> {
        self.pods.iter().filter_map(PodInput::pod).collect()
    }
}

/// The name of the task pod of type `t` and id `id`, as the operator names them.
fn pod_name(t: ReplicaType, id: i64) -> String {
    format!("{JOB}-edljob-{t}-{id}")
}

impl PodInput {
    fn pod(&self) -> Option<Pod> {
        let t = pick(&TYPES, self.replica_type);
        let id = i32::from(self.id % 16);
        let rank = i32::from(self.rank % 10) - 1;
        let name = if t == ReplicaType::DlroverMaster {
            format!("elasticjob-{JOB}-dlrover-master")
        } else {
            pod_name(t, id.into())
        };
        let mut p = json!({
            "metadata": {"name": name, "labels": {
                "app": "dlrover",
                "elasticjob.dlrover/name": if self.other_job { "other" } else { JOB },
                "elasticjob.dlrover/replica-type": t.as_str(),
                "elasticjob.dlrover/replica-index": id.to_string(),
                "elasticjob.dlrover/rank-index": rank.to_string(),
                "restart-count": (i32::from(self.restarts % 5) - 1).to_string(),
            }},
            "spec": {"containers": [{"name": "main", "image": "tf:2"}]},
        });
        if let Some(gi) = self.memory_gi {
            p["spec"]["containers"][0]["resources"] = json!({"limits": {"memory": format!("{}Gi", gi % 8)}});
        }
        let phase = pick(&PHASES, self.phase);
        if !phase.is_empty() {
            p["status"] = json!({"phase": phase});
        }
        if let (Some(code), "Failed") = (self.exit_code, phase) {
            let mut terminated = json!({"exitCode": pick(&[0, 1, 2, 127, 128, 137, 143, 255], code)});
            if self.oom {
                terminated["reason"] = json!("OOMKilled");
            }
            p["status"]["containerStatuses"] = json!([{"name": "main", "image": "tf:2", "imageID": "", "ready": false,
                "restartCount": 0, "state": {"terminated": terminated}}]);
        }
        if self.deleting {
            p["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:00:00Z");
        }
        parse::pods(json!([p])).ok()?.pop()
    }
}

impl PlanInput {
    fn plan(&self) -> Value {
        let specs: serde_json::Map<String, Value> = self
            .counts
            .iter()
            .map(|&(t, n, memory)| {
                let mut spec = json!({"replicas": count(n), "resource": {"cpu": "1"}});
                if let Some(gi) = memory {
                    spec["resource"]["memory"] = json!(format!("{}Gi", gi % 8));
                }
                (pick(&TYPES, t).to_string(), spec)
            })
            .collect();
        let creates: Vec<Value> = self
            .creates
            .iter()
            .map(|&(t, id, rank, own_service)| {
                let t = pick(&TYPES, t);
                let id = 20 + i32::from(id % 10);
                let name = pod_name(t, id.into());
                let mut entry = json!({"name": name, "id": id, "type": t, "rankIndex": i32::from(rank % 10)});
                if own_service {
                    entry["service"] = json!(format!("{name}:{}", if t == ReplicaType::Ps { 2222 } else { 3333 }));
                }
                entry
            })
            .collect();
        let removes: Vec<Value> = self
            .removes
            .iter()
            .map(|&(t, id)| {
                let t = pick(&TYPES, t);
                json!({"name": pod_name(t, i64::from(id % 16)), "id": id % 16, "type": t})
            })
            .collect();
        let migrates: Vec<Value> = self
            .migrates
            .iter()
            .map(|&(t, id, gi)| {
                json!({"name": pod_name(pick(&TYPES, t), i64::from(id % 16)), "resource": {"memory": format!("{}Gi", 1 + gi % 4)}})
            })
            .collect();
        let mut plan = json!({
            "apiVersion": "elastic.iml.github.io/v1alpha1", "kind": "ScalePlan",
            "metadata": {"name": "fuzz-plan", "namespace": "ns", "labels": {"elasticjob-name": JOB, "scale-type": "auto"}},
            "spec": {"ownerJob": if self.other_owner { "other" } else { JOB }, "replicaResourceSpecs": specs,
                "createPods": creates, "removePods": removes, "migratePods": migrates}
        });
        if let Some(n) = self.ps_hosts {
            plan["spec"]["psHosts"] =
                json!((0..n % 5).map(|i| format!("{JOB}-edljob-ps-{i}:2222")).collect::<Vec<_>>());
        }
        if let Some(p) = self.phase {
            plan["status"] = json!({"phase": pick(&PLAN_PHASES, p)});
        }
        plan
    }
}

/// The target.
pub fn run(data: &[u8]) {
    let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) else { return };
    check_input(&input);
}

/// Every check on one input.
pub fn check_input(input: &Input) {
    let job = match parse::job(input.job()) {
        Ok(job) => job,
        Err(e) => return check::error(&e, Root::Document),
    };
    let plan = match input.plan.as_ref().map(|p| parse::scale_plan(p.plan())).transpose() {
        Ok(plan) => plan,
        Err(e) => return check::error(&e, Root::Document),
    };
    let pods = input.pods();
    let options = Options::default();
    let Ok(now) = parse::time("2026-01-01T01:00:00Z") else { return };
    let valid = validate::check_job_and_plan(&job, plan.as_ref());
    if let Err(e) = &valid {
        check::error(e, Root::Document);
    }

    // One pass of the controller, twice: the same bytes.
    let first = check::deterministic("reconcile", || elasticjob::reconcile(&job, plan.as_ref(), &pods, &now, &options));
    if let Err(e) = &first {
        check::error(e, Root::Document);
    }
    if let (Ok(()), Err(e)) = (&valid, &first) {
        panic!("reconcile refused a valid job and plan: {e}");
    }

    // Each type's operations.
    for t in ReplicaType::ALL {
        let faults =
            check::deterministic("handle_fault_pods", || elasticjob::handle_fault_pods(&job, t, &pods, &options));
        let stop = elasticjob::stop_running_pods(&job, t, &pods);
        let sync = elasticjob::sync_job_state(&job, t, &pods, &now);
        for (op, result) in [("handle_fault_pods", faults), ("stop_running_pods", stop), ("sync_job_state", sync)] {
            match result {
                Err(e) if valid.is_ok() => panic!("{op}({t}) refused a valid job: {e}"),
                Err(e) => check::error(&e, Root::Document),
                Ok(_) => {}
            }
        }
        if let Some(plan) = &plan {
            let result =
                check::deterministic("reconcile_pods", || elasticjob::reconcile_pods(&job, t, plan, &pods, &options));
            match result {
                Err(e) if valid.is_ok() => panic!("reconcile_pods({t}) refused a valid job and plan: {e}"),
                Err(e) => check::error(&e, Root::Document),
                Ok(_) => {}
            }
        }
    }
    if let Some(plan) = &plan {
        match elasticjob::reconcile_scale_plan(plan, Some(&job), &now) {
            Err(e) if valid.is_ok() => panic!("reconcile_scale_plan refused a valid job and plan: {e}"),
            Err(e) => check::error(&e, Root::Document),
            Ok(_) => {}
        }
    }
    controller_pass(&job, input, &pods, &now, valid.is_ok());
    if valid.is_err() {
        return;
    }
    if let Some(plan) = &plan {
        converges(&job, plan, &pods);
    }
    settles(&job, plan.as_ref(), &pods, &now);
}

/// The controller's pass (what `elasticjob controller` runs) over the job, its plan and the pods:
/// the same bytes twice, and from the objects kept in a store as from the job's objects given as
/// lists (the store keeps each under the job it finds it of; the lists hold the ones it kept under
/// this job); every error says where; a valid job and plan are planned.
fn controller_pass(job: &ElasticJob, input: &Input, pods: &[Pod], now: &elasticjob::Time, valid: bool) {
    let options = Options::default();
    let key = elasticjob::job_key(&input.job()).unwrap_or_default();
    let mut store = Store::new();
    let mut plans = Vec::new();
    if let Some(plan) = input.plan.as_ref().map(PlanInput::plan) {
        if store.put("ScalePlan", plan.clone()).as_deref() == Some(key.as_str()) {
            match parse::scale_plan(plan) {
                Ok(plan) => plans.push(plan),
                Err(e) => return check::error(&e, Root::Document),
            }
        }
    }
    // In the job's namespace, as a cluster lists them (the store keeps a pod under the job of its
    // namespace and name label).
    let of_job: Vec<Pod> = pods
        .iter()
        .cloned()
        .map(|mut p| {
            p.metadata.namespace = Some("ns".to_owned());
            p
        })
        .filter(|p| store.put("Pod", serde_json::to_value(p).unwrap_or_default()).as_deref() == Some(key.as_str()))
        .collect();
    let listed = check::deterministic("controller_pass", || {
        elasticjob::controller_pass(Some(job), &plans, &of_job, &[], now, &options)
    });
    // A store keeps one object a name, as a cluster does: lists of two pods named alike are not
    // what it holds.
    let mut names = std::collections::BTreeSet::new();
    if of_job.iter().all(|p| names.insert(p.metadata.name.as_deref())) {
        let stored = store.controller_pass(&key, Some(job), &Overlay::default(), now, &options);
        assert!(
            check::result_bytes(&listed) == check::result_bytes(&stored),
            "the store's pass and the pass of the lists differ: {listed:?} against {stored:?}"
        );
    }
    match listed {
        Err(e) if valid => panic!("controller_pass refused a valid job and plan: {e}"),
        Err(e) => check::error(&e, Root::Document),
        Ok(_) => {}
    }
}

/// The plan of every task type's `reconcile_pods`.
fn reconcile_all(job: &ElasticJob, plan: &ScalePlan, pods: &[Pod]) -> Plan {
    let mut actions = Vec::new();
    for t in ReplicaType::TASKS {
        match elasticjob::reconcile_pods(job, t, plan, pods, &Options::default()) {
            Ok(p) => actions.extend(p.actions().cloned()),
            Err(e) => panic!("reconcile_pods({t}) refused a valid job and plan: {e}"),
        }
    }
    Plan::from_actions(actions)
}

/// A plan carried out and planned again creates and deletes nothing, for pods a cluster can hold:
/// no two with one name. (Of two pods named alike, a delete by that name removes both, where the
/// plan meant one.)
fn converges(job: &ElasticJob, plan: &ScalePlan, observed: &[Pod]) {
    let mut names = std::collections::BTreeSet::new();
    if !observed.iter().all(|p| names.insert(p.metadata.name.as_deref())) {
        return;
    }
    let first = reconcile_all(job, plan, observed);
    let mut pods = observed.to_vec();
    apply(&mut pods, &first);
    if cluster::unique(observed, None, JOB).is_ok() {
        if let Err(why) = cluster::unique(&pods, Some(plan), JOB) {
            panic!("after the plan was carried out: {why}");
        }
    }
    let second = reconcile_all(job, plan, &pods);
    let again: Vec<String> = second
        .created_pods()
        .filter_map(|p| p.metadata.name.clone())
        .chain(second.deleted_pods().map(str::to_owned))
        .collect();
    assert!(again.is_empty(), "planned again after the plan was carried out, it acts on {again:?}");
}

/// The job controller reaches a plan that does nothing within [`MAX_PASSES`] passes.
fn settles(job: &ElasticJob, plan: Option<&ScalePlan>, observed: &[Pod], now: &elasticjob::Time) {
    let mut job = job.clone();
    let mut plan = plan.cloned();
    let mut pods = observed.to_vec();
    for _ in 0..MAX_PASSES {
        let pass = match elasticjob::reconcile(&job, plan.as_ref(), &pods, now, &Options::default()) {
            Ok(pass) => pass,
            Err(e) => panic!("reconcile refused what it planned itself: {e}"),
        };
        if pass.is_empty() {
            return;
        }
        apply(&mut pods, &pass);
        if let Some(status) = pass.job_status() {
            job.status = Some(status.clone());
        }
        let statuses = pass.actions().filter_map(|a| match a {
            Action::SetScalePlanStatus { status, .. } => Some(status),
            _ => None,
        });
        if let (Some(status), Some(plan)) = (statuses.last(), plan.as_mut()) {
            plan.status = Some(status.clone());
        }
    }
    panic!("the job controller did not settle within {MAX_PASSES} passes");
}
