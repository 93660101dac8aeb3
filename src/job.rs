//! Facts derived from a job alone: the replica spec and template a type's pods are made from (a
//! chief without its own spec uses the worker's), the resource a template gives, the job's first
//! scale plan, and its namespace.

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::podspec::ObjectMeta;
use crate::podspec::PodTemplateSpec;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use crate::api::{
    self, CleanPodPolicy, ElasticJob, ReplicaResourceSpec, ReplicaSpec, ReplicaType, ResourceList, RunPolicy,
    ScalePlan, ScaleSpec, TypeMap,
};
use crate::error::{Code, Error, Result};
use crate::podgroup::{self, Gang};
use crate::quantity::Amount;
use crate::{naming, pod};

/// The replica spec a type's pods are made from: its own, or the worker's for a chief (upstream
/// runs a chief from the worker template when the job gives none).
pub fn effective_replica_spec(job: &ElasticJob, replica_type: ReplicaType) -> Option<&ReplicaSpec> {
    job.declared_replica_spec(replica_type).or_else(|| match replica_type {
        ReplicaType::Chief => job.declared_replica_spec(ReplicaType::Worker),
        _ => None,
    })
}

/// The template a task type's pods are made from ([`effective_replica_spec`]).
///
/// # Errors
/// [`Code::Required`] at `spec.replicaSpecs.<type>` when the job has no spec for the type (nor,
/// for a chief, a worker spec).
pub fn task_template(job: &ElasticJob, replica_type: ReplicaType) -> Result<&PodTemplateSpec> {
    effective_replica_spec(job, replica_type).map(|s| &s.template).ok_or_else(|| {
        Error::invalid(
            format!("spec.replicaSpecs.{replica_type}"),
            Code::Required,
            format!("the plan asks for {replica_type} pods but the job has no `{replica_type}` replica spec to make them from"),
        )
    })
}

/// The relaunch budget of a fresh pod of the type ([`effective_replica_spec`]'s `restartCount`, else 0).
pub fn restart_count(job: &ElasticJob, replica_type: ReplicaType) -> i32 {
    effective_replica_spec(job, replica_type).map_or(0, ReplicaSpec::restart_count)
}

/// The resource of a type's pods as its template gives it: the first container's requests, else
/// its limits. Empty when the job cannot make pods of the type.
pub fn template_resource(job: &ElasticJob, replica_type: ReplicaType) -> ResourceList {
    let Ok(template) = task_template(job, replica_type) else { return ResourceList::new() };
    template.spec.as_ref().and_then(|s| s.containers.first()).map(pod::container_resource).unwrap_or_default()
}

/// Which pods the job deletes once it has finished: its `spec.runPolicy.cleanPodPolicy`, else
/// `Running`, as DLRover's operator stops a finished job's running pods (Kubeflow's default for a
/// TFJob is `None`; DLRover's behaviour is kept for a job that says nothing).
pub fn clean_pod_policy(job: &ElasticJob) -> CleanPodPolicy {
    run_policy(job).and_then(|r| r.clean_pod_policy).unwrap_or(CleanPodPolicy::Running)
}

/// The job's `spec.runPolicy`, when it gives one.
pub fn run_policy(job: &ElasticJob) -> Option<&RunPolicy> {
    job.spec.run_policy.as_ref()
}

/// The gang scheduler of the job's pods: the one the controller names (`configured`, its
/// `--gang-scheduler-name`), else Volcano when a replica says `BatchScheduler: volcano` (DLRover's
/// key), else none: the pods go to the scheduler their templates name.
pub fn gang(job: &ElasticJob, configured: Option<&str>) -> Option<Gang> {
    if let Some(name) = configured.filter(|n| !n.is_empty()) {
        return Some(Gang::named(name));
    }
    let volcano = job.spec.replica_specs.values().any(|s| s.batch_scheduler.as_deref() == Some(podgroup::VOLCANO));
    volcano.then_some(Gang::Volcano)
}

/// The job's namespace, `None` when it names none (a manifest not applied yet).
pub fn namespace(job: &ElasticJob) -> Option<&str> {
    job.metadata.namespace.as_deref().filter(|n| !n.is_empty())
}

/// The first scale plan of a job (for previews, and for a job whose master has not planned yet),
/// as DLRover 0.6.1's master writes it in its ScalePlan mode ([`master_first_plan`]): each task
/// type's replicas and resource, and `psHosts` from the PS addresses `0..replicas`. It is named
/// `<job>-initial`; the master's own is `<job>-scaleplan-<n>` and lists each PS as
/// `<service>.<namespace>.svc:2222`.
pub fn initial_scale_plan(job: &ElasticJob) -> ScalePlan {
    let specs = master_first_plan(job)
        .into_iter()
        .map(|(t, g)| (t, ReplicaResourceSpec { replicas: g.count, resource: g.resource() }))
        .collect();
    first_plan(job, specs)
}

/// The first plan as DLRover 0.6.1's master writes it for a job in a namespace: the
/// [`initial_scale_plan`] with each PS address in the master's form
/// `<service>.<namespace>.svc:2222` (`K8sElasticJob.get_node_service_addr` in
/// `dlrover/python/scheduler/kubernetes.py`, which `_create_initial_scale_plan` lists as
/// `psHosts`). The controller starts a new job's task pods from it, so their `TF_CONFIG`s are the
/// ones the master's own first plan would give them. Without a namespace, the initial plan.
pub fn master_scale_plan(job: &ElasticJob) -> ScalePlan {
    let mut plan = initial_scale_plan(job);
    if let Some(ns) = namespace(job) {
        for host in &mut plan.spec.ps_hosts {
            if let Some((service, port)) = naming::service_of_address(host) {
                *host = format!("{service}.{ns}.svc:{port}");
            }
        }
    }
    plan
}

/// The plan `<job>-initial` of the job with these targets, listing the PS addresses of its `ps`.
fn first_plan(job: &ElasticJob, specs: TypeMap<ReplicaResourceSpec>) -> ScalePlan {
    let name = job.name();
    let ps = specs.get(&ReplicaType::Ps).map_or(0, |s| i64::from(s.replicas));
    ScalePlan {
        api_version: Some(api::API_VERSION.to_owned()),
        kind: Some(api::KIND_SCALE_PLAN.to_owned()),
        metadata: ObjectMeta {
            name: Some(format!("{name}-initial")),
            namespace: namespace(job).map(str::to_owned),
            labels: Some(BTreeMap::from([(naming::LABEL_SCALE_PLAN_JOB.to_owned(), name.to_owned())])),
            ..ObjectMeta::default()
        },
        spec: ScaleSpec {
            owner_job: Some(name.to_owned()),
            replica_resource_specs: specs,
            ps_hosts: naming::task_hosts(name, ReplicaType::Ps, ps, naming::PS_SERVICE_PORT),
            ..ScaleSpec::default()
        },
        status: None,
    }
}

/// A CPU amount as DLRover's master holds it: a whole number where its resource optimizer chose
/// it (written `16`), else the job's request rounded to a tenth (`convert_cpu_to_decimal`, written
/// as Python writes a float: `2.0`, `0.5`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MasterCpu {
    /// A whole number of cores the optimizer chose.
    Whole(i64),
    /// A request, rounded to a tenth of a core.
    Tenths(f64),
}

impl MasterCpu {
    fn value(self) -> f64 {
        match self {
            MasterCpu::Whole(n) => n as f64,
            MasterCpu::Tenths(x) => x,
        }
    }
}

impl std::fmt::Display for MasterCpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MasterCpu::Whole(n) => write!(f, "{n}"),
            MasterCpu::Tenths(x) => write_tenths(f, *x),
        }
    }
}

/// One replica type as DLRover's master plans it: how many, and each one's CPU, memory (MiB) and
/// GPU (`nvidia.com/*` resource name and count).
#[derive(Clone, Debug, PartialEq)]
pub struct MasterGroup {
    /// The replicas.
    pub count: i32,
    /// The CPU of each.
    pub cpu: MasterCpu,
    /// The memory of each, in MiB.
    pub memory_mi: i64,
    /// The GPU resource and count of each, when its request names one.
    pub gpu: Option<(String, i64)>,
}

impl MasterGroup {
    /// The resource as the master writes it in a ScalePlan (`ContainerResourceSpec.to_dict`):
    /// `cpu`, `memory` in `Mi`, and the GPU when there is one.
    pub fn resource(&self) -> ResourceList {
        let mut r = ResourceList::new();
        r.insert("cpu".to_owned(), Quantity(self.cpu.to_string()));
        r.insert("memory".to_owned(), Quantity(format!("{}Mi", self.memory_mi)));
        if let Some((name, n)) = &self.gpu {
            r.insert(name.clone(), Quantity(n.to_string()));
        }
        r
    }
}

/// How DLRover 0.6.1's master reads one replica spec (`K8sJobArgs.initilize`,
/// `dlrover/python/scheduler/kubernetes.py`): `int(spec.get("replicas", 0))`, so an absent count
/// is 0; the first container's `requests` only (limits are not read): `cpu` rounded to a tenth,
/// `memory` in whole MiB, each 0 when not requested; the GPU from a request whose name contains
/// `nvidia.com` (the master takes the last in the manifest's order, the core the last by name:
/// they differ only for a container requesting two such resources).
pub fn master_reading(spec: &ReplicaSpec) -> MasterGroup {
    let requests = spec
        .template
        .spec
        .as_ref()
        .and_then(|s| s.containers.first())
        .and_then(|c| c.resources.as_ref())
        .and_then(|r| r.requests.as_ref());
    let amount = |name: &str| requests.and_then(|r| r.get(name)).and_then(|q| Amount::parse(&q.0).ok());
    let cpu = amount("cpu").map_or(0.0, |a| tenths(a.nanos() as f64 / 1e9));
    let memory_mi =
        amount("memory").map_or(0, |a| i64::try_from(a.nanos() / (1_000_000_000 << 20)).unwrap_or(i64::MAX));
    let gpu = requests
        .into_iter()
        .flatten()
        .rfind(|(name, _)| name.contains("nvidia.com"))
        .map(|(name, q)| (name.clone(), q.0.trim().parse::<i64>().unwrap_or(0)));
    MasterGroup { count: spec.replicas(), cpu: MasterCpu::Tenths(cpu), memory_mi, gpu }
}

/// Python's `round(x, 1)`: the nearest tenth of the exact binary value, ties to even, as the
/// double nearest to it: what `format!("{x:.1}").parse()` gives, computed on the bits. Printing
/// and parsing compiled Rust's exact float printer and its parser, with their tables, into both
/// WebAssembly modules for this one line (15 KB of each gzipped module).
fn tenths(x: f64) -> f64 {
    let Some(t) = tenths_of(x) else { return x };
    let nearest = if t < 1 << 53 {
        // Both exact, so the one division rounds once, as a parser does.
        t as f64 / 10.0
    } else {
        // t / 10 = q + rem / 10 with 2^49 <= q < 2^52: the doubles there are 2^-k apart (k = 52 -
        // the bits of q after its first); count in those steps, rounding ties to the even one.
        let (q, rem) = (t / 10, t % 10);
        let k = (q.leading_zeros() + 52).saturating_sub(127);
        let steps = rem << k;
        let (up, left) = (steps / 10, steps % 10);
        let m = (q << k) + up;
        let m = if left > 5 || (left == 5 && m % 2 == 1) { m + 1 } else { m };
        m as f64 / (1u64 << k) as f64
    };
    if x.is_sign_negative() { -nearest } else { nearest }
}

/// `x` written as `format!("{x:.1}")` writes it (the nearest tenth, ties to even, the sign of a
/// negative value kept), without Rust's exact float printer (see [`tenths`]).
fn write_tenths(f: &mut std::fmt::Formatter<'_>, x: f64) -> std::fmt::Result {
    let sign = if x.is_sign_negative() { "-" } else { "" };
    match tenths_of(x) {
        Some(t) => write!(f, "{sign}{}.{}", t / 10, t % 10),
        None if x.is_finite() => {
            f.write_str(sign)?;
            write_whole(f, x.abs())?;
            f.write_str(".0")
        }
        // As Rust writes them, without its float printer.
        None if x.is_nan() => f.write_str("NaN"),
        None => write!(f, "{sign}inf"),
    }
}

/// Every digit of a whole, finite `x` of 2^52 or more (m * 2^e, e >= 0), in limbs of nine digits.
fn write_whole(f: &mut std::fmt::Formatter<'_>, x: f64) -> std::fmt::Result {
    const LIMB: u64 = 1_000_000_000;
    let bits = x.to_bits();
    let m = (bits & ((1 << 52) - 1)) | 1 << 52;
    let mut limbs = vec![m % LIMB, m / LIMB % LIMB, m / LIMB / LIMB];
    for _ in 0..((bits >> 52) & 0x7ff).saturating_sub(1075) {
        let mut carry = 0;
        for limb in &mut limbs {
            let v = *limb * 2 + carry;
            (*limb, carry) = (v % LIMB, v / LIMB);
        }
        if carry > 0 {
            limbs.push(carry);
        }
    }
    let mut digits = limbs.iter().rev().skip_while(|l| **l == 0);
    if let Some(top) = digits.next() {
        write!(f, "{top}")?;
    }
    digits.try_for_each(|limb| write!(f, "{limb:09}"))
}

/// The number of tenths nearest to |x| (ties to even) when |x| < 2^52, from the exact binary value
/// m * 2^e; `None` for a larger value (a whole number) or one that is not finite.
fn tenths_of(x: f64) -> Option<u128> {
    let bits = x.abs().to_bits();
    let exponent = (bits >> 52) & 0x7ff;
    let fraction = u128::from(bits & ((1 << 52) - 1));
    if exponent >= 1075 {
        return None;
    }
    let (m, shift) = if exponent == 0 { (fraction, 1074) } else { (fraction | 1 << 52, 1075 - exponent) };
    // 10 * m * 2^-shift, below 2^57 * 2^-shift.
    let n = 10 * m;
    if shift >= 64 {
        return Some(0);
    }
    let (whole, rest, half) = (n >> shift, n & ((1 << shift) - 1), 1u128 << (shift - 1));
    Some(if rest > half || (rest == half && whole % 2 == 1) { whole + 1 } else { whole })
}

/// The resource limits DLRover's master assumes when the job gives none (`DefaultResourceLimits`,
/// `dlrover/python/common/constants.py`): 100 CPUs.
const MASTER_DEFAULT_CPU_LIMIT: f64 = 100.0;
/// The per-node CPU its local optimizer caps a first plan at (`_MAX_INITIAL_NODE_CPU`).
const MASTER_MAX_INITIAL_CPU: i64 = 16;
/// `NodeResourceLimit.MIN_VALID_CPU` and `MIN_VALID_MEMORY` (MiB): a PS or evaluator request
/// below them is replaced.
const MASTER_MIN_VALID_CPU: f64 = 2.0;
const MASTER_MIN_VALID_MEMORY_MI: i64 = 1024;

/// Each task type of DLRover 0.6.1's first ScalePlan for the job, as its master computes it in
/// its ScalePlan mode (`DistributedJobManager.start`, `dlrover/python/master/node/dist_job_manager.py`):
///
/// 1. each replica spec read as [`master_reading`] reads it;
/// 2. for a `ParameterServerStrategy` job, its resource optimizer's first plan
///    (`PSJobResourceOptimizer._init_job_resource_by_optimizer`, `master/resource/job.py`): in
///    `optimizeMode` `single-job` (the default) and `cluster` without a reachable Brain,
///    `PSLocalOptimizer._generate_job_create_resource` plans one PS and one worker of
///    `min(ceil(resourceLimits.cpu / 5), 16)` CPUs (16 with the default 100) and 0 memory (its
///    8192 is divided by 2^20 in `convert_memory_to_mb`); in `manual`,
///    `ResourcePlan.new_default_plan`: 2 workers and 1 PS of 1 CPU and 8000 MiB. Where the type's
///    `autoScale` is not false, workers take (`_check_ignore_original_worker_resource`) the job's
///    count when above 0, else the plan's, the plan's CPU (the job's only when the plan's is 0)
///    and the job's memory when the plan's is 0; parameter servers take
///    (`_check_ignore_original_ps_resource`) the job's count when above 0, else the plan's, the
///    job's memory when at least 1024 MiB and the job's CPU when at least 2, else the plan's. An
///    evaluator below 2 CPUs or 1024 MiB takes the worker's (`init_job_resource`); a job with no
///    chief (or 0) and at least one worker gets a chief with the worker's CPU and memory, not its
///    GPU, and one worker fewer (`JobResource.adjust_worker_for_estimator`);
/// 3. an `AllreduceStrategy` job's counts and resources as read.
///
/// Every type the job declares is in the plan, with 0 replicas too.
pub fn master_first_plan(job: &ElasticJob) -> TypeMap<MasterGroup> {
    let mut groups: TypeMap<MasterGroup> = ReplicaType::TASKS
        .into_iter()
        .filter_map(|t| job.declared_replica_spec(t).map(|s| (t, master_reading(s))))
        .collect();
    if job.strategy() != api::DistributionStrategy::ParameterServerStrategy {
        return groups;
    }
    let auto = |t| job.declared_replica_spec(t).is_some_and(|s| s.auto_scale != Some(false));
    let (worker_plan, ps_plan) = if job.spec.optimize_mode == Some(api::OptimizeMode::Manual) {
        ((2, MasterCpu::Whole(1), 8000), (1, MasterCpu::Whole(1), 8000))
    } else {
        let limit = job.spec.resource_limits.get("cpu").and_then(|q| Amount::parse(&q.0).ok());
        let limit = limit.map_or(MASTER_DEFAULT_CPU_LIMIT, |a| tenths(a.nanos() as f64 / 1e9));
        let cpu = ((limit / 5.0).ceil() as i64).min(MASTER_MAX_INITIAL_CPU);
        ((1, MasterCpu::Whole(cpu), 0), (1, MasterCpu::Whole(cpu), 0))
    };
    let update = |g: &mut MasterGroup, (count, cpu, memory): (i32, MasterCpu, i64)| {
        if count > 0 {
            g.count = count;
        }
        if cpu.value() > 0.0 {
            g.cpu = cpu;
        }
        if memory > 0 {
            g.memory_mi = memory;
        }
    };
    if auto(ReplicaType::Worker) {
        if let Some(w) = groups.get_mut(&ReplicaType::Worker) {
            let (count, cpu, memory) = worker_plan;
            let count = if w.count > 0 { w.count } else { count };
            let cpu = if cpu.value() == 0.0 { w.cpu } else { cpu };
            let memory = if memory == 0 { w.memory_mi } else { memory };
            update(w, (count, cpu, memory));
        }
    }
    if auto(ReplicaType::Ps) {
        if let Some(ps) = groups.get_mut(&ReplicaType::Ps) {
            let (count, cpu, memory) = ps_plan;
            let count = if ps.count > 0 { ps.count } else { count };
            let memory = if ps.memory_mi >= MASTER_MIN_VALID_MEMORY_MI { ps.memory_mi } else { memory };
            let cpu = if ps.cpu.value() >= MASTER_MIN_VALID_CPU { ps.cpu } else { cpu };
            update(ps, (count, cpu, memory));
        }
    }
    let worker = groups.get(&ReplicaType::Worker).cloned();
    if let (Some(e), Some(w)) = (groups.get_mut(&ReplicaType::Evaluator), &worker) {
        if e.cpu.value() < MASTER_MIN_VALID_CPU {
            e.cpu = w.cpu;
        }
        if e.memory_mi < MASTER_MIN_VALID_MEMORY_MI {
            e.memory_mi = w.memory_mi;
        }
    }
    let has_chief = groups.get(&ReplicaType::Chief).is_some_and(|c| c.count > 0);
    if let (false, Some(w)) = (has_chief, worker.filter(|w| w.count > 0)) {
        let chief = groups.entry(ReplicaType::Chief).or_insert(MasterGroup {
            count: 0,
            cpu: MasterCpu::Whole(0),
            memory_mi: 0,
            gpu: None,
        });
        chief.count = 1;
        chief.cpu = w.cpu;
        chief.memory_mi = w.memory_mi;
        if let Some(worker) = groups.get_mut(&ReplicaType::Worker) {
            worker.count -= 1;
        }
    }
    groups
}

/// Whether a scale plan is the job's: it names the job ([`naming::plan_job`]: its `spec.ownerJob`,
/// else upstream's `elasticjob-name` label) or has an owner reference with the job's uid, and it is
/// in the job's namespace when both name one.
pub fn is_plan_of(job: &ElasticJob, plan: &ScalePlan) -> bool {
    let plan_namespace = plan.metadata.namespace.as_deref().filter(|n| !n.is_empty());
    let same_namespace = plan_namespace.is_none() || namespace(job).is_none() || plan_namespace == namespace(job);
    let uid = job.metadata.uid.as_deref().filter(|u| !u.is_empty());
    let owners = || plan.metadata.owner_references.iter().flatten();
    let owned = uid.is_some_and(|uid| owners().any(|r| r.uid == uid));
    // A plan an earlier job of the same name owned (its uid another) is that job's, not this one's.
    let an_earlier_jobs = uid.is_some_and(|uid| {
        owners().any(|r| r.kind.eq_ignore_ascii_case(api::KIND_ELASTIC_JOB) && r.name == job.name() && r.uid != uid)
    });
    same_namespace && !an_earlier_jobs && (naming::plan_job(plan) == Some(job.name()) || owned)
}

/// The given plan, or the job's first plan ([`initial_scale_plan`]).
pub fn plan_or_initial<'p>(job: &ElasticJob, scale_plan: Option<&'p ScalePlan>) -> Cow<'p, ScalePlan> {
    scale_plan.map_or_else(|| Cow::Owned(initial_scale_plan(job)), Cow::Borrowed)
}

/// `scale_plan`, or without one the first plan as the master writes it ([`master_scale_plan`]):
/// the plan a pass lays new task pods out by.
pub fn plan_or_masters_first<'p>(job: &ElasticJob, scale_plan: Option<&'p ScalePlan>) -> Cow<'p, ScalePlan> {
    scale_plan.map_or_else(|| Cow::Owned(master_scale_plan(job)), Cow::Borrowed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Doubles around every kind of boundary of [`tenths`] and [`write_tenths`]: ties, the
    /// powers of two, the smallest and largest, and a sweep of pseudo-random bit patterns.
    fn tenths_cases() -> Vec<f64> {
        let mut cases = vec![
            0.0,
            -0.0,
            0.05,
            0.15,
            0.25,
            0.35,
            0.45,
            1.25,
            2.5,
            1e-9,
            5e-324,
            f64::MIN_POSITIVE,
            1e15,
            1e30,
            1e300,
        ];
        cases.extend([f64::MAX, f64::INFINITY, f64::NEG_INFINITY, f64::NAN]);
        for e in -80..130 {
            let p = 2f64.powi(e);
            cases.extend([p, p * 0.75, p * 1.25, p - p * f64::EPSILON, p + p * f64::EPSILON, p + 0.05]);
        }
        for k in 0..4000u64 {
            cases.push(k as f64 / 20.0);
            cases.push(k as f64 * 1e-3);
            cases.push((k * 1_000_003) as f64 * 1e-9);
        }
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..100_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            cases.push(f64::from_bits(state));
            cases.push(f64::from_bits((state >> 12) | 0x4000_0000_0000_0000) * 1e3);
        }
        for i in 0..100_000u64 {
            // From 2^52 down to 2^49, where the count of tenths passes 2^53; and the last steps.
            cases.push(f64::from_bits(0x4330_0000_0000_0000 - i * 135_107_988_821));
            cases.push(f64::from_bits(0x4330_0000_0000_0000 - i));
        }
        cases
    }

    #[test]
    fn tenths_are_what_printing_and_parsing_give() {
        for x in tenths_cases() {
            let printed = format!("{x:.1}");
            assert_eq!(format!("{}", MasterCpu::Tenths(x)), printed, "{x:e}");
            if x.is_finite() {
                let parsed: f64 = printed.parse().unwrap();
                assert_eq!(tenths(x).to_bits(), parsed.to_bits(), "{x:e}");
            }
        }
    }

    fn job(value: serde_json::Value) -> ElasticJob {
        serde_json::from_value(value).unwrap_or_default()
    }

    #[test]
    fn a_chief_without_a_spec_uses_the_worker_spec() {
        let j = job(serde_json::json!({"metadata": {"name": "j"}, "spec": {"replicaSpecs": {
            "worker": {"replicas": 3, "restartCount": 2, "template": {"spec": {"containers": [
                {"name": "main", "resources": {"limits": {"cpu": "2"}}}]}}}}}}));
        assert_eq!(restart_count(&j, ReplicaType::Chief), 2);
        assert!(task_template(&j, ReplicaType::Chief).is_ok());
        assert_eq!(template_resource(&j, ReplicaType::Chief).get("cpu").map(|q| q.0.as_str()), Some("2"));
        let err = task_template(&j, ReplicaType::Ps).err();
        assert_eq!(
            err.as_ref().and_then(|e| e.problems().first()).map(|p| (p.path.as_str(), p.code)),
            Some(("spec.replicaSpecs.ps", Code::Required))
        );
        assert_eq!(restart_count(&j, ReplicaType::Evaluator), 0);
    }

    #[test]
    fn first_plan_takes_replicas_resources_and_ps_hosts() {
        let j = job(serde_json::json!({"metadata": {"name": "j", "namespace": ""}, "spec": {"replicaSpecs": {
            "ps": {"replicas": 2, "template": {"spec": {"containers": [
                {"name": "main", "resources": {"requests": {"memory": "1Gi"}}}]}}},
            "worker": {"template": {}}}}}));
        let plan = initial_scale_plan(&j);
        assert_eq!(namespace(&j), None);
        assert_eq!(plan.metadata.name.as_deref(), Some("j-initial"));
        assert_eq!(plan.spec.ps_hosts, ["j-edljob-ps-0:2222", "j-edljob-ps-1:2222"]);
        let ps = plan.spec.replica_resource_specs.get(&ReplicaType::Ps);
        assert_eq!(ps.map(|s| s.replicas), Some(2));
        assert_eq!(ps.and_then(|s| s.resource.get("memory")).map(|q| q.0.as_str()), Some("1024Mi"));
        // Absent, the master reads 0 workers; its optimizer plans one, which becomes the chief.
        assert_eq!(plan.spec.replica_resource_specs.get(&ReplicaType::Worker).map(|s| s.replicas), Some(0));
        assert_eq!(plan.spec.replica_resource_specs.get(&ReplicaType::Chief).map(|s| s.replicas), Some(1));
        assert!(matches!(plan_or_initial(&j, None), Cow::Owned(_)));
        assert!(matches!(plan_or_initial(&j, Some(&plan)), Cow::Borrowed(_)));
    }
}
