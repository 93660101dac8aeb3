//! A host's store of the objects it observes, read once when they change: the ScalePlans, pods and
//! services of every job, by job key, fed by the host's watches (each object added or changed is
//! [`Store::put`], each one deleted [`Store::remove`]d), so that a controller pass over a job
//! reads none of them again ([`Store::controller_pass`]). A pass over an unchanged job costs the
//! reading of the job alone; what a host hands over grows with what changed, not with the job's
//! size.
//!
//! The store keeps each job's objects in the order a host's cache keeps them (a new one last, a
//! changed one in its place, as a JavaScript `Map`), so a pass over the store gives the bytes
//! [`crate::controller_pass`] gives over the same objects in that order, errors included: an
//! object that cannot be read is kept as its problem, and a pass over its job fails as a pass over
//! the objects would, at its index (`pods[3].status.phase`).
//!
//! For a host that runs with Kueue, the store also keeps each job's Kueue `Workload` (by the job's
//! name label, as its pods) and every `ResourceFlavor`, and [`Store::controller_pass_queued`] is
//! [`crate::controller_pass_queued`] over them: the job's Workload (the one named after it) and
//! the flavours its admission names.
//!
//! For a host that runs gang schedulers, the store keeps each job's `PodGroup` (by the job's name
//! label) and every pass reads the one named after the job ([`crate::Gates::pod_group`]).

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::podspec::Pod;
use crate::podspec::Service;
use crate::podspec::Time;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::api::{ElasticJob, KIND_SCALE_PLAN, ScalePlan};
use crate::error::{Error, Result, into_result};
use crate::observed::{ObservedPod, ObservedService};
use crate::plan::Plan;
use crate::planner::Gates;
use crate::podgroup::{KIND_POD_GROUP, PodGroup};
use crate::queue::{self, QueueState};
use crate::template::Options;
use crate::workload::{KIND_WORKLOAD, ResourceFlavor, Workload};
use crate::{naming, parse, reconcile, validate};

/// The kind of a Kueue ResourceFlavor (cluster-scoped, of no job).
const KIND_RESOURCE_FLAVOR: &str = "ResourceFlavor";

/// The kinds a store keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    ScalePlan,
    Pod,
    Service,
    Workload,
    PodGroup,
}

impl Kind {
    fn of(kind: &str) -> Option<Kind> {
        match kind {
            KIND_SCALE_PLAN => Some(Kind::ScalePlan),
            "Pod" => Some(Kind::Pod),
            "Service" => Some(Kind::Service),
            KIND_WORKLOAD => Some(Kind::Workload),
            KIND_POD_GROUP => Some(Kind::PodGroup),
            _ => None,
        }
    }
}

/// The objects of one kind of one job, in the order they came, each read once.
struct Kept<T> {
    /// The objects read, in order; an object that could not be read holds a default in its place.
    items: Vec<T>,
    /// Their names, in the same order.
    names: Vec<String>,
    /// In the same order, the problem of each object that could not be read (few are).
    problems: Vec<Option<Error>>,
}

impl<T> Default for Kept<T> {
    fn default() -> Self {
        Kept { items: Vec::new(), names: Vec::new(), problems: Vec::new() }
    }
}

impl<T: Default> Kept<T> {
    /// Keeps `read` under `name`: in the place of the object of that name, else last.
    fn put(&mut self, name: String, read: Result<T>) {
        let (item, problem) = match read {
            Ok(item) => (item, None),
            Err(e) => (T::default(), Some(e)),
        };
        match self.names.iter().position(|n| *n == name) {
            Some(at) => {
                if let (Some(slot), Some(was)) = (self.items.get_mut(at), self.problems.get_mut(at)) {
                    *slot = item;
                    *was = problem;
                }
            }
            None => {
                self.names.push(name);
                self.items.push(item);
                self.problems.push(problem);
            }
        }
    }

    fn remove(&mut self, name: &str) {
        if let Some(at) = self.names.iter().position(|n| n == name) {
            self.names.remove(at);
            self.items.remove(at);
            self.problems.remove(at);
        }
    }

    /// The problem of the object of a name, if it could not be read.
    fn problem(&self, name: &str) -> Option<&Error> {
        let at = self.names.iter().position(|n| n == name)?;
        self.problems.get(at)?.as_ref()
    }

    fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

impl<T: Clone + Default> Kept<T> {
    /// The objects as a pass sees them, with what the host's own writes of this pass changed laid
    /// over (an object read again in the place of the one of its name, one made appended unless one
    /// of that name is there, one deleted left out): the kept ones themselves when nothing is laid
    /// over. As a pass's readers check their argument: first its length against `bound`, then the
    /// first problem (every one, with `all`) at `root[index]`.
    fn view(
        &self,
        root: &str,
        all: bool,
        over: &Overlaid<'_, T>,
        bound: impl Fn(usize) -> Result<()>,
    ) -> Result<Cow<'_, [T]>> {
        if over.fresh.is_empty() && over.made.is_empty() && over.gone.is_empty() {
            bound(self.items.len())?;
            check(self.problems.iter().map(Option::as_ref), root, all)?;
            return Ok(Cow::Borrowed(&self.items));
        }
        // (name, the object or its problem), in the order the pass sees them.
        let mut seen: Vec<(&str, std::result::Result<&T, &Error>)> = Vec::with_capacity(self.items.len());
        for ((name, item), problem) in self.names.iter().zip(&self.items).zip(&self.problems) {
            if over.gone.contains(name) {
                continue;
            }
            let entry = match (over.fresh.iter().find(|(n, _)| n == name), problem) {
                (Some((_, fresh)), _) => Ok(fresh),
                (None, Some(problem)) => Err(problem),
                (None, None) => Ok(item),
            };
            seen.push((name, entry));
        }
        for (name, item) in over.fresh.iter().chain(over.made) {
            if !seen.iter().any(|(n, _)| n == name) {
                seen.push((name, Ok(item)));
            }
        }
        bound(seen.len())?;
        check(seen.iter().map(|(_, entry)| entry.err()), root, all)?;
        Ok(Cow::Owned(seen.into_iter().filter_map(|(_, entry)| entry.ok().cloned()).collect()))
    }
}

/// The problems of objects in order (`None`: read), each at `root[index]`: the first as a parse
/// error, or every one with `all`.
fn check<'e>(problems: impl Iterator<Item = Option<&'e Error>>, root: &str, all: bool) -> Result<()> {
    let mut found = Vec::new();
    for (i, problem) in problems.enumerate() {
        let Some(e) = problem else { continue };
        let e = e.clone().prefixed(&format!("{root}[{i}]"));
        if !all {
            return Err(e);
        }
        found.extend(e.problems().iter().cloned());
    }
    into_result(found)
}

/// What a host's writes of this pass lay over one kind ([`Kept::view`]).
struct Overlaid<'o, T> {
    made: &'o [(String, T)],
    fresh: &'o [(String, T)],
    gone: &'o [String],
}

/// The objects of one job.
#[derive(Default)]
struct Objects {
    plans: Kept<ScalePlan>,
    pods: Kept<Pod>,
    services: Kept<Service>,
    workloads: Kept<Workload>,
    pod_groups: Kept<PodGroup>,
}

impl Objects {
    fn is_empty(&self) -> bool {
        self.plans.is_empty()
            && self.pods.is_empty()
            && self.services.is_empty()
            && self.workloads.is_empty()
            && self.pod_groups.is_empty()
    }
}

/// What the host's own writes of the pass under way changed, which its watches may not show yet
/// (as JSON: `{"plans": [...], "pods": [...], "deletedPods": [names], "services": [...],
/// "deletedServices": [names]}`, each optional): the plans it read again, the pods and services it
/// made, and those it deleted. Laid over the store for that one pass, never kept: the watches
/// bring what stays.
#[derive(Default)]
pub struct Overlay {
    plans: Vec<(String, ScalePlan)>,
    pods: Vec<(String, Pod)>,
    deleted_pods: Vec<String>,
    services: Vec<(String, Service)>,
    deleted_services: Vec<String>,
}

impl Overlay {
    /// Reads an overlay from JSON.
    ///
    /// # Errors
    /// [`Error::Parse`] at `overlay...` when a part does not have its shape.
    pub fn read(value: Value) -> Result<Overlay> {
        let Value::Object(mut parts) = value else {
            return Ok(Overlay::default());
        };
        let mut part = |key: &str| match parts.remove(key) {
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        };
        let (plans, pods, deleted_pods, services, deleted_services) =
            (part("plans"), part("pods"), part("deletedPods"), part("services"), part("deletedServices"));
        let names = |items: Vec<Value>| items.into_iter().filter_map(|v| v.as_str().map(str::to_owned)).collect();
        Ok(Overlay {
            plans: objects(plans, "overlay.plans", parse::strict::<ScalePlan>)?,
            pods: objects(pods, "overlay.pods", observed_pod)?,
            deleted_pods: names(deleted_pods),
            services: objects(services, "overlay.services", observed_service)?,
            deleted_services: names(deleted_services),
        })
    }
}

/// Reads `items` with `reader`, each with its name.
fn objects<T>(items: Vec<Value>, root: &str, reader: fn(Value) -> Result<T>) -> Result<Vec<(String, T)>> {
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let name = name_of(&item).to_owned();
        out.push((name, reader(item).map_err(|e| e.prefixed(&format!("{root}[{i}]")))?));
    }
    Ok(out)
}

/// Reads an object observed in the cluster: unknown fields ignored, the first shape problem.
fn observed<T: DeserializeOwned>(value: Value) -> Result<T> {
    parse::from_value(value).map(|(object, _unknown)| object)
}

/// Reads an observed pod through the narrow reader of [`crate::observed`].
fn observed_pod(value: Value) -> Result<Pod> {
    observed::<ObservedPod>(value).map(Pod::from)
}

/// Reads an observed service through the narrow reader of [`crate::observed`].
fn observed_service(value: Value) -> Result<Service> {
    observed::<ObservedService>(value).map(Service::from)
}

/// One text for an object's kind, namespace and name: the kind's number, the namespace's length,
/// then the namespace and the name, so that no two of them give the same text. (One tree of
/// strings, of the type the labels' are, rather than a tree of another type of key.)
fn object_id(kind: Kind, namespace: &str, name: &str) -> String {
    format!("{}{}/{namespace}/{name}", kind as u8, namespace.len())
}

fn name_of(object: &Value) -> &str {
    object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default()
}

fn namespace_of(object: &Value) -> &str {
    object.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or_default()
}

/// The ScalePlans, pods, services and Workloads a host observes, by job, and the ResourceFlavors
/// ([the module docs](self)).
#[derive(Default)]
pub struct Store {
    /// The objects of each job, by job key, in the keys' order: a list searched by halves, each
    /// job's objects boxed so that making room for a new job moves only pointers (a tree of them
    /// was 4 KB more of each module's code).
    jobs: Vec<(String, Box<Objects>)>,
    /// Every ResourceFlavor with its name, in the names' order (one that cannot be read is left
    /// out). A cluster has a few: a list, not a tree.
    flavors: Vec<(String, ResourceFlavor)>,
    /// The job key each object is kept under, by its [`object_id`].
    placed: BTreeMap<String, String>,
}

impl Store {
    /// An empty store.
    pub fn new() -> Store {
        Store::default()
    }

    /// Keeps an object added or changed, of `kind` (`ScalePlan`, `Pod`, `Service`, `Workload` or
    /// `PodGroup`, of either gang scheduler; as
    /// JSON, its `kind` field set to it: a list's items come without one), read now, under the job
    /// it belongs to ([`crate::job_key`]), in the place of the one of its name; one of no job, or of
    /// another kind, is not kept (and its earlier version, if one was kept, goes). Returns the job
    /// key it is kept under. A `ResourceFlavor` is kept by its name, for every job (`None`).
    pub fn put(&mut self, kind: &str, mut object: Value) -> Option<String> {
        let kind_name = kind;
        if kind == KIND_RESOURCE_FLAVOR {
            let name = name_of(&object).to_owned();
            self.keep_flavor(name, observed::<ResourceFlavor>(object).ok());
            return None;
        }
        let kind = Kind::of(kind)?;
        if let Value::Object(fields) = &mut object {
            fields.insert("kind".to_owned(), Value::String(kind_name.to_owned()));
        }
        let name = name_of(&object).to_owned();
        let id = object_id(kind, namespace_of(&object), &name);
        let key = naming::job_key(&object);
        if let Some(before) = self.placed.get(&id).filter(|k| Some(*k) != key.as_ref()).cloned() {
            self.forget(kind, &before, &name);
        }
        let Some(key) = key else {
            self.placed.remove(&id);
            return None;
        };
        self.placed.insert(id, key.clone());
        let at = self.job_at(&key).unwrap_or_else(|at| {
            self.jobs.insert(at, (key.clone(), Box::default()));
            at
        });
        let Some((_, objects)) = self.jobs.get_mut(at) else { return Some(key) };
        match kind {
            Kind::ScalePlan => objects.plans.put(name, parse::strict(object)),
            Kind::Pod => objects.pods.put(name, observed_pod(object)),
            Kind::Service => objects.services.put(name, observed_service(object)),
            Kind::Workload => objects.workloads.put(name, observed(object)),
            Kind::PodGroup => objects.pod_groups.put(name, observed(object)),
        }
        Some(key)
    }

    /// Where the objects of the job of `key` are, or where they would go.
    fn job_at(&self, key: &str) -> std::result::Result<usize, usize> {
        self.jobs.binary_search_by(|(kept, _)| kept.as_str().cmp(key))
    }

    /// Keeps the ResourceFlavor of a name in its place among the others, or forgets it (`None`).
    fn keep_flavor(&mut self, name: String, flavor: Option<ResourceFlavor>) {
        match (self.flavors.binary_search_by(|(kept, _)| kept.as_str().cmp(&name)), flavor) {
            (Ok(at), Some(flavor)) => {
                if let Some((_, kept)) = self.flavors.get_mut(at) {
                    *kept = flavor;
                }
            }
            (Err(at), Some(flavor)) => self.flavors.insert(at, (name, flavor)),
            (Ok(at), None) => {
                self.flavors.remove(at);
            }
            (Err(_), None) => {}
        }
    }

    /// Forgets a deleted object; returns the job key it was kept under.
    pub fn remove(&mut self, kind: &str, namespace: &str, name: &str) -> Option<String> {
        if kind == KIND_RESOURCE_FLAVOR {
            self.keep_flavor(name.to_owned(), None);
            return None;
        }
        let kind = Kind::of(kind)?;
        let key = self.placed.remove(&object_id(kind, namespace, name))?;
        self.forget(kind, &key, name);
        Some(key)
    }

    fn forget(&mut self, kind: Kind, key: &str, name: &str) {
        let Ok(at) = self.job_at(key) else { return };
        let Some((_, objects)) = self.jobs.get_mut(at) else { return };
        match kind {
            Kind::ScalePlan => objects.plans.remove(name),
            Kind::Pod => objects.pods.remove(name),
            Kind::Service => objects.services.remove(name),
            Kind::Workload => objects.workloads.remove(name),
            Kind::PodGroup => objects.pod_groups.remove(name),
        }
        if objects.is_empty() {
            self.jobs.remove(at);
        }
    }

    /// How many objects the store keeps, for a host's metrics.
    pub fn len(&self) -> usize {
        self.placed.len() + self.flavors.len()
    }

    /// Whether the store keeps nothing.
    pub fn is_empty(&self) -> bool {
        self.placed.is_empty() && self.flavors.is_empty()
    }

    /// [`crate::controller_pass`] over the job of `key` (`job`: `None` when it does not exist) and
    /// the objects kept for it, with `overlay` laid over them for this pass: the bytes a pass over
    /// the same objects, in the order they were put, gives.
    ///
    /// # Errors
    /// As [`crate::controller_pass`], and the problem of an object that could not be read, at its
    /// index (`scalePlans[i]`, `pods[i]`, `services[i]`).
    pub fn controller_pass(
        &self,
        key: &str,
        job: Option<&ElasticJob>,
        overlay: &Overlay,
        now: &Time,
        options: &Options,
    ) -> Result<Plan> {
        self.pass(key, job, overlay, None, now, options)
    }

    /// [`crate::controller_pass_queued`] over the job of `key` as [`Store::controller_pass`], with
    /// Kueue's state from the store: the job's Workload (the one of its name,
    /// [`queue::workload_name`], among those kept for it) and every ResourceFlavor kept, and
    /// `priority`, the value of the job's priority class as the host read it
    /// ([`queue::priority_class`]).
    ///
    /// # Errors
    /// As [`Store::controller_pass`], and the problem of the job's Workload when it could not be
    /// read (at `queue.workload`).
    pub fn controller_pass_queued(
        &self,
        key: &str,
        job: Option<&ElasticJob>,
        overlay: &Overlay,
        priority: Option<i32>,
        now: &Time,
        options: &Options,
    ) -> Result<Plan> {
        self.pass(key, job, overlay, Some(priority), now, options)
    }

    fn pass(
        &self,
        key: &str,
        job: Option<&ElasticJob>,
        overlay: &Overlay,
        queued: Option<Option<i32>>,
        now: &Time,
        options: &Options,
    ) -> Result<Plan> {
        let empty = Objects::default();
        let objects = self.job_at(key).ok().and_then(|at| self.jobs.get(at)).map_or(&empty, |(_, o)| o.as_ref());
        let plans =
            objects.plans.view("scalePlans", true, &Overlaid { made: &[], fresh: &overlay.plans, gone: &[] }, |n| {
                validate::check_observed_pods(n).map_err(|e| e.prefixed("scalePlans"))
            })?;
        let pods = objects.pods.view(
            "pods",
            false,
            &Overlaid { made: &overlay.pods, fresh: &[], gone: &overlay.deleted_pods },
            validate::check_observed_pods,
        )?;
        let services = objects.services.view(
            "services",
            false,
            &Overlaid { made: &overlay.services, fresh: &[], gone: &overlay.deleted_services },
            validate::check_observed_services,
        )?;
        // The job's PodGroup: the one named after it (a host watches one gang scheduler's PodGroups
        // per job; the core reads it only when its API group is the job's gang's).
        let at = job.and_then(|j| objects.pod_groups.names.iter().position(|n| n == j.name()));
        let pod_group = at.and_then(|i| objects.pod_groups.items.get(i));
        if let Some(problem) = job.and_then(|j| objects.pod_groups.problem(j.name())) {
            return Err(problem.clone().prefixed("podGroup"));
        }
        let Some(priority) = queued else {
            let gates = Gates { queue: None, pod_group };
            return reconcile::controller_pass_queued(job, &plans, &pods, &services, gates, now, options);
        };
        let name = job.map(queue::workload_name);
        let kept = &objects.workloads;
        let at = kept.names.iter().position(|n| Some(n) == name.as_ref());
        if let Some(problem) = name.as_ref().and_then(|n| kept.problem(n)) {
            return Err(problem.clone().prefixed("queue.workload"));
        }
        let flavors: Vec<ResourceFlavor> = self.flavors.iter().map(|(_, flavor)| flavor.clone()).collect();
        // The job's later slices: the Workloads kept for it named `<workload>.<n>`.
        let slices: Vec<Workload> = match job {
            Some(j) => kept
                .names
                .iter()
                .zip(&kept.items)
                .filter(|(n, _)| queue::slice_number(j, n).is_some_and(|k| k >= 2))
                .map(|(_, w)| w.clone())
                .collect(),
            None => Vec::new(),
        };
        let state =
            QueueState { workload: at.and_then(|i| kept.items.get(i)), slices: &slices, flavors: &flavors, priority };
        let gates = Gates { queue: Some(&state), pod_group };
        reconcile::controller_pass_queued(job, &plans, &pods, &services, gates, now, options)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const NOW: &str = "2026-03-01T10:00:00Z";

    fn job() -> ElasticJob {
        parse::job(json!({"apiVersion": "elastic.iml.github.io/v1alpha1", "kind": "ElasticJob",
            "metadata": {"name": "j", "namespace": "ns", "uid": "u"},
            "spec": {"distributionStrategy": "ParameterServerStrategy", "replicaSpecs": {
                "ps": {"replicas": 0, "autoScale": false, "template": {"spec": {"containers": [{"name": "main", "image": "tf:2"}]}}},
                "worker": {"replicas": 2, "template": {"spec": {"containers": [{"name": "main", "image": "tf:2"}]}}}}},
            "status": {"phase": "Running"}}))
        .unwrap()
    }

    fn pod(name: &str, rank: i32, phase: &str) -> Value {
        json!({"metadata": {"name": name, "namespace": "ns", "labels": {"app": "dlrover",
            "elasticjob.dlrover/name": "j", "elasticjob.dlrover/replica-type": "worker",
            "elasticjob.dlrover/replica-index": rank.to_string(), "elasticjob.dlrover/rank-index": rank.to_string()}},
            "status": {"phase": phase}})
    }

    /// The pass over the store, and the pass over the same objects given as a list.
    fn both(store: &Store, pods: Vec<Value>, overlay: &Overlay) -> (String, String) {
        let now = parse::time(NOW).unwrap();
        let over = store.controller_pass("ns/j", Some(&job()), overlay, &now, &Options::default());
        let listed = parse::pods(Value::Array(pods))
            .and_then(|pods| reconcile::controller_pass(Some(&job()), &[], &pods, &[], &now, &Options::default()));
        let text = |r: Result<Plan>| match r {
            Ok(plan) => serde_json::to_string(&plan).unwrap(),
            Err(e) => format!("{:?}", e.report()),
        };
        (text(over), text(listed))
    }

    #[test]
    fn a_pass_over_the_store_is_a_pass_over_its_objects_in_the_order_they_came() {
        let mut store = Store::new();
        assert_eq!(store.put("Pod", pod("j-edljob-worker-1", 1, "Running")).as_deref(), Some("ns/j"));
        store.put("Pod", pod("j-edljob-worker-0", 0, "Pending"));
        // A change keeps its place; an object of no job is not kept.
        store.put("Pod", pod("j-edljob-worker-1", 1, "Failed"));
        assert_eq!(store.put("Pod", json!({"metadata": {"name": "other", "namespace": "ns"}})), None);
        assert_eq!(store.put("ConfigMap", pod("x", 0, "Running")), None);
        assert_eq!(store.len(), 2);
        let (a, b) = both(
            &store,
            vec![pod("j-edljob-worker-1", 1, "Failed"), pod("j-edljob-worker-0", 0, "Pending")],
            &Overlay::default(),
        );
        assert_eq!(a, b);
        assert_eq!(store.remove("Pod", "ns", "j-edljob-worker-1").as_deref(), Some("ns/j"));
        assert_eq!(store.remove("Pod", "ns", "j-edljob-worker-1"), None);
        let (a, b) = both(&store, vec![pod("j-edljob-worker-0", 0, "Pending")], &Overlay::default());
        assert_eq!(a, b);
        // An object whose job changed moves to it.
        let mut moved = pod("j-edljob-worker-0", 0, "Pending");
        moved["metadata"]["labels"]["elasticjob.dlrover/name"] = json!("k");
        assert_eq!(store.put("Pod", moved).as_deref(), Some("ns/k"));
        let (a, b) = both(&store, vec![], &Overlay::default());
        assert_eq!(a, b);
        assert!(store.job_at("ns/j").is_err(), "an emptied job is forgotten");
    }

    /// Jobs put in any order are kept apart and found again; an emptied one goes, the others stay.
    #[test]
    fn each_jobs_objects_are_its_own() {
        let of_job = |job: &str, name: &str| {
            let mut p = pod(name, 0, "Running");
            p["metadata"]["labels"]["elasticjob.dlrover/name"] = json!(job);
            p
        };
        let mut store = Store::new();
        for job in ["m", "c", "x", "a", "q"] {
            for i in 0..3 {
                store.put("Pod", of_job(job, &format!("{job}-edljob-worker-{i}")));
            }
        }
        store.remove("Pod", "ns", "x-edljob-worker-1");
        let keys: Vec<&str> = store.jobs.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["ns/a", "ns/c", "ns/m", "ns/q", "ns/x"]);
        for (job, objects) in &store.jobs {
            let job = job.trim_start_matches("ns/");
            assert!(objects.pods.names.iter().all(|n| n.starts_with(&format!("{job}-edljob-"))), "{job}");
            assert_eq!(objects.pods.names.len(), if job == "x" { 2 } else { 3 });
        }
        for i in 0..3 {
            store.remove("Pod", "ns", &format!("c-edljob-worker-{i}"));
        }
        assert!(store.job_at("ns/c").is_err());
        assert_eq!(store.jobs.len(), 4);
        assert_eq!(store.len(), 11);
    }

    /// Objects are told apart by kind, namespace and name, whatever their names hold.
    #[test]
    fn no_two_objects_share_an_id() {
        let ids = [
            object_id(Kind::Pod, "a", "b/c"),
            object_id(Kind::Pod, "a/b", "c"),
            object_id(Kind::Service, "a", "b/c"),
            object_id(Kind::Pod, "1", "x"),
            object_id(Kind::Pod, "", "1/x"),
            object_id(Kind::Pod, "", "x"),
            object_id(Kind::Pod, "x", ""),
        ];
        let distinct: std::collections::BTreeSet<&String> = ids.iter().collect();
        assert_eq!(distinct.len(), ids.len(), "{ids:?}");
        let mut store = Store::new();
        let mut other = pod("j-edljob-worker-0", 0, "Running");
        other["metadata"]["namespace"] = json!("ns/j-edljob-worker-0");
        other["metadata"]["name"] = json!("x");
        let mut same_text = pod("j-edljob-worker-0", 0, "Running");
        same_text["metadata"]["name"] = json!("j-edljob-worker-0/x");
        store.put("Pod", other);
        store.put("Pod", same_text);
        store.put("Service", pod("j-edljob-worker-0", 0, "Running"));
        assert_eq!(store.len(), 3);
        assert_eq!(store.remove("Pod", "ns", "j-edljob-worker-0/x").as_deref(), Some("ns/j"));
        assert_eq!(store.remove("Pod", "ns", "j-edljob-worker-0/x"), None);
        assert_eq!(store.len(), 2);
    }

    #[test]
    fn flavors_are_kept_by_name_in_order_and_one_that_cannot_be_read_goes() {
        let flavor = |name: &str, zone: &str| {
            json!({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor",
                "metadata": {"name": name}, "spec": {"nodeLabels": {"zone": zone}}})
        };
        let zones = |store: &Store| -> Vec<(String, String)> {
            let zone = |f: &ResourceFlavor| f.spec.node_labels.get("zone").cloned().unwrap_or_default();
            store.flavors.iter().map(|(name, f)| (name.clone(), zone(f))).collect()
        };
        let mut store = Store::new();
        for (name, zone) in [("b", "1"), ("c", "2"), ("a", "3"), ("b", "4")] {
            assert_eq!(store.put(KIND_RESOURCE_FLAVOR, flavor(name, zone)), None);
        }
        let kept = |list: &[(&str, &str)]| list.iter().map(|(n, z)| (n.to_string(), z.to_string())).collect::<Vec<_>>();
        assert_eq!(zones(&store), kept(&[("a", "3"), ("b", "4"), ("c", "2")]));
        assert_eq!(store.len(), 3);
        let mut bad = flavor("b", "5");
        bad["spec"] = json!("none");
        store.put(KIND_RESOURCE_FLAVOR, bad);
        store.remove(KIND_RESOURCE_FLAVOR, "", "c");
        store.remove(KIND_RESOURCE_FLAVOR, "", "d");
        assert_eq!(zones(&store), kept(&[("a", "3")]));
    }

    #[test]
    fn an_object_that_cannot_be_read_fails_the_pass_at_its_index() {
        let mut store = Store::new();
        store.put("Pod", pod("j-edljob-worker-0", 0, "Running"));
        let mut bad = pod("j-edljob-worker-1", 1, "Running");
        bad["status"]["phase"] = json!(5);
        store.put("Pod", bad.clone());
        let (a, b) = both(&store, vec![pod("j-edljob-worker-0", 0, "Running"), bad], &Overlay::default());
        assert!(a.contains("pods[1].status.phase"), "{a}");
        assert_eq!(a, b);
        // Read again as it is now, it is read.
        store.put("Pod", pod("j-edljob-worker-1", 1, "Running"));
        let (a, b) = both(
            &store,
            vec![pod("j-edljob-worker-0", 0, "Running"), pod("j-edljob-worker-1", 1, "Running")],
            &Overlay::default(),
        );
        assert_eq!(a, b);
    }

    #[test]
    fn the_hosts_writes_of_a_pass_are_laid_over_for_that_pass_only() {
        let mut store = Store::new();
        store.put("Pod", pod("j-edljob-worker-0", 0, "Running"));
        store.put("Pod", pod("j-edljob-worker-1", 1, "Failed"));
        let overlay = Overlay::read(
            json!({"pods": [pod("j-edljob-worker-2", 1, "Pending"), pod("j-edljob-worker-0", 0, "Failed")],
            "deletedPods": ["j-edljob-worker-1"]}),
        )
        .unwrap();
        // As the controller lays its writes over its caches: the deleted one out, the made ones
        // appended unless one of that name is there.
        let (a, b) = both(
            &store,
            vec![pod("j-edljob-worker-0", 0, "Running"), pod("j-edljob-worker-2", 1, "Pending")],
            &overlay,
        );
        assert_eq!(a, b);
        let (a, b) = both(
            &store,
            vec![pod("j-edljob-worker-0", 0, "Running"), pod("j-edljob-worker-1", 1, "Failed")],
            &Overlay::default(),
        );
        assert_eq!(a, b, "nothing of the overlay is kept");
    }
}
