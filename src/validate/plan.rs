//! The checks of a scale plan: on its own (what an admission policy sees when a plan arrives), and
//! against the job it scales.

use std::collections::{BTreeMap, BTreeSet};

use super::{
    MAX_LIST_LEN, MAX_REPLICAS_PER_TYPE, job_name, labels_and_annotations, plan_fits_job, replica_count, resource_list,
    type_meta,
};
use crate::api::{self, ElasticJob, PodMeta, ReplicaType, ScalePlan};
use crate::error::{Code, Problem, join};
use crate::naming;
use crate::sorted::Names;

/// Checks what a scale plan says on its own, without its job: what an admission policy can check
/// when the plan arrives. With `spec.ownerJob` set, pod names are checked against it.
pub fn validate_scale_plan(plan: &ScalePlan) -> Vec<Problem> {
    let mut p = Vec::new();
    type_meta(&mut p, plan.api_version.as_deref(), plan.kind.as_deref(), api::KIND_SCALE_PLAN);
    if let Some(name) = plan.metadata.name.as_deref().filter(|n| !n.is_empty()) {
        if !naming::is_dns1123_subdomain(name) {
            p.push(Problem::new(
                "metadata.name",
                Code::InvalidName,
                format!("`{name}` is not an object name: use lower-case letters, digits, `-` and `.`"),
            ));
        }
    }
    labels_and_annotations(&mut p, "metadata", &plan.metadata);
    let mut owner = plan.spec.owner_job.as_deref().filter(|o| !o.is_empty());
    if let Some(name) = owner {
        let before = p.len();
        job_name(&mut p, "spec.ownerJob", name);
        if p.len() > before {
            // Pod names cannot be checked against a name that is itself wrong.
            owner = None;
        }
    }
    let spec = &plan.spec;
    for (replica_type, target) in &spec.replica_resource_specs {
        let path = format!("spec.replicaResourceSpecs.{replica_type}");
        if *replica_type == ReplicaType::DlroverMaster {
            p.push(master_not_planned(path));
            continue;
        }
        replica_count(&mut p, &join(&path, "replicas"), *replica_type, target.replicas);
        resource_list(&mut p, &join(&path, "resource"), &target.resource);
    }
    for (list, len) in [
        ("spec.createPods", spec.create_pods.len()),
        ("spec.removePods", spec.remove_pods.len()),
        ("spec.migratePods", spec.migrate_pods.len()),
        ("spec.psHosts", spec.ps_hosts.len()),
    ] {
        if len > MAX_LIST_LEN {
            p.push(Problem::new(list, Code::TooLarge, format!("{len} entries; a plan lists at most {MAX_LIST_LEN}")));
            return p;
        }
    }
    pod_metas(&mut p, "spec.createPods", &spec.create_pods, owner, PodList::Create);
    pod_metas(&mut p, "spec.removePods", &spec.remove_pods, owner, PodList::Remove);
    pod_metas(&mut p, "spec.migratePods", &spec.migrate_pods, owner, PodList::Migrate);
    unique(&mut p, "spec.createPods", &spec.create_pods, |m| (!m.name.is_empty()).then(|| m.name.clone()), "name");
    unique(
        &mut p,
        "spec.createPods",
        &spec.create_pods,
        // One text a (type, rank), a tree of the type the names' is: a type's name has no `/`.
        |m| Some(format!("{}/{}", m.replica_type().map_or("", ReplicaType::as_str), m.rank_index)),
        "type and rankIndex",
    );
    unique(&mut p, "spec.removePods", &spec.remove_pods, |m| (!m.name.is_empty()).then(|| m.name.clone()), "name");
    unique(&mut p, "spec.migratePods", &spec.migrate_pods, |m| (!m.name.is_empty()).then(|| m.name.clone()), "name");
    let removed = Names::of(spec.remove_pods.iter().map(|m| m.name.as_str()).filter(|n| !n.is_empty()));
    for (i, meta) in spec.create_pods.iter().enumerate() {
        if removed.contains(meta.name.as_str()) {
            p.push(Problem::new(
                format!("spec.createPods[{i}].name"),
                Code::Duplicate,
                format!("`{}` is in both createPods and removePods; a pod is either created or removed", meta.name),
            ));
        }
    }
    let mut seen = BTreeSet::new();
    for (i, host) in spec.ps_hosts.iter().enumerate() {
        let path = format!("spec.psHosts[{i}]");
        if let Err(why) = naming::parse_host_port(host) {
            p.push(Problem::new(path, Code::InvalidAddress, why));
        } else if !seen.insert(host.clone()) {
            p.push(Problem::new(
                path,
                Code::Duplicate,
                format!("`{host}` is listed twice; each PS has its own address"),
            ));
        }
    }
    created_ranks(&mut p, plan);
    if !spec.ps_hosts.is_empty() {
        ps_addresses(&mut p, plan, spec.ps_hosts.len(), "its spec.psHosts lists");
    }
    if let Some(ps) = spec.replica_resource_specs.get(&ReplicaType::Ps) {
        if !spec.ps_hosts.is_empty() && spec.ps_hosts.len() != usize::try_from(ps.replicas).unwrap_or(0) {
            p.push(Problem::new(
                "spec.psHosts",
                Code::Mismatch,
                format!(
                    "the plan lists {} PS host(s) but asks for {} PS replica(s); list one address per PS",
                    spec.ps_hosts.len(),
                    ps.replicas
                ),
            ));
        }
    }
    p
}

/// Checks a scale plan against the job it scales: its own checks, plus that it names this job,
/// that the job has a template for every type it creates, and that the pods fit the job's
/// `resourceLimits` and the core's `TF_CONFIG` bound.
pub fn validate_plan_for_job(job: &ElasticJob, plan: &ScalePlan) -> Vec<Problem> {
    let mut p = validate_scale_plan(plan);
    let name = job.name();
    match plan.spec.owner_job.as_deref().filter(|o| !o.is_empty()) {
        Some(owner) if owner != name => p.push(Problem::new(
            "spec.ownerJob",
            Code::Mismatch,
            format!("the plan scales job `{owner}`, not `{name}`"),
        )),
        Some(_) => {}
        None => {
            for (list, metas) in [
                ("spec.createPods", &plan.spec.create_pods),
                ("spec.removePods", &plan.spec.remove_pods),
                ("spec.migratePods", &plan.spec.migrate_pods),
            ] {
                for (i, meta) in metas.iter().enumerate() {
                    pod_name_matches(&mut p, &format!("{list}[{i}]"), meta, name);
                }
            }
            for (i, meta) in plan.spec.create_pods.iter().enumerate() {
                if meta.service_name().is_some_and(naming::is_dns1035_label) {
                    service_is_own(&mut p, &format!("spec.createPods[{i}]"), meta, name);
                }
            }
        }
    }
    // What the plan alone could not say: with no psHosts, the PS addresses come from the counts.
    if plan.spec.ps_hosts.is_empty() {
        let planned = plan.spec.replica_resource_specs.get(&ReplicaType::Ps).map(|s| s.replicas);
        let spec_replicas = job.declared_replica_spec(ReplicaType::Ps).map(api::ReplicaSpec::replicas);
        let count = usize::try_from(planned.or(spec_replicas).unwrap_or(0)).unwrap_or(0);
        ps_addresses(
            &mut p,
            plan,
            count,
            "with no spec.psHosts, the PS addresses are those of its PS replicas, and there are",
        );
    }
    if p.is_empty() {
        plan_fits_job(&mut p, job, plan, "spec.replicaResourceSpecs");
    }
    p
}

/// A `createPods` entry of a type the plan gives a target (`replicaResourceSpecs`) must have a
/// rank below it: the target counts the pods the plan creates, and fault handling relaunches only
/// the ranks below it.
fn created_ranks(p: &mut Vec<Problem>, plan: &ScalePlan) {
    for (i, meta) in plan.spec.create_pods.iter().enumerate() {
        let Some(t) = meta.replica_type() else { continue };
        let Some(n) = plan.spec.replica_resource_specs.get(&t).map(|s| s.replicas) else { continue };
        if meta.rank_index >= n && meta.rank_index >= 0 && n >= 0 {
            let ranks = if n == 0 { "so no rank".to_owned() } else { format!("ranks 0 to {}", n - 1) };
            p.push(Problem::new(
                format!("spec.createPods[{i}].rankIndex"),
                Code::OutOfRange,
                format!(
                    "{t} rank {} is past spec.replicaResourceSpecs.{t}.replicas: the plan asks for {n} {t} replica(s) in all, {ranks}",
                    meta.rank_index
                ),
            ));
        }
    }
}

/// Every PS a `createPods` entry makes needs an address at its rank: the TF_CONFIG of every pod
/// lists the PS addresses by rank.
fn ps_addresses(p: &mut Vec<Problem>, plan: &ScalePlan, count: usize, where_: &str) {
    for (i, meta) in plan.spec.create_pods.iter().enumerate() {
        if meta.replica_type() != Some(ReplicaType::Ps) {
            continue;
        }
        if usize::try_from(meta.rank_index).is_ok_and(|r| r >= count) {
            p.push(Problem::new(
                format!("spec.createPods[{i}].rankIndex"),
                Code::TfConfigHole,
                format!(
                    "ps rank {} has no address: {where_} {count}; list its address in spec.psHosts",
                    meta.rank_index
                ),
            ));
        }
    }
}

fn master_not_planned(path: String) -> Problem {
    Problem::new(path, Code::InvalidValue, "the dlrover-master is not scaled by a plan; the operator keeps exactly one")
}

/// Which list of a scale plan an entry is in: what it must say depends on it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum PodList {
    /// A pod to make: its type, id and rank say who it is; a name, when given, must agree.
    Create,
    /// A pod to delete: named, or given by type and id.
    Remove,
    /// A pod to replace: named, with the resource it moves to.
    Migrate,
}

fn pod_metas(p: &mut Vec<Problem>, list: &str, metas: &[PodMeta], owner: Option<&str>, kind: PodList) {
    for (i, meta) in metas.iter().enumerate() {
        let path = format!("{list}[{i}]");
        let named = naming::parse_task_pod_name(&meta.name);
        if let (Some(given), Some((named, _))) = (meta.type_, named) {
            if given != named {
                p.push(Problem::new(
                    join(&path, "type"),
                    Code::Mismatch,
                    format!("the pod is a {given} but its name `{}` says {named}", meta.name),
                ));
            }
        }
        match meta.replica_type() {
            None => p.push(Problem::new(
                join(&path, "type"),
                Code::Required,
                "say which replica type the pod is: `ps`, `worker`, `chief` or `evaluator` (or name it `<job>-edljob-<type>-<id>`)",
            )),
            Some(ReplicaType::DlroverMaster) => p.push(master_not_planned(join(&path, "type"))),
            Some(t) => {
                if t.is_singleton() && meta.rank_index > 0 {
                    p.push(Problem::new(
                        join(&path, "rankIndex"),
                        Code::OutOfRange,
                        format!("a job has one {t}, at rank 0; rank {} cannot exist", meta.rank_index),
                    ));
                }
            }
        }
        match meta.id {
            Some(id) if id < 0 => {
                p.push(Problem::new(join(&path, "id"), Code::OutOfRange, format!("pod id {id} is negative")));
            }
            Some(id) => {
                if let Some((_, named_id)) = named.filter(|(_, n)| *n != id) {
                    p.push(Problem::new(
                        join(&path, "name"),
                        Code::Mismatch,
                        format!("the pod is named `{}`, which says id {named_id}, but its id is {id}", meta.name),
                    ));
                }
            }
            None if kind == PodList::Create && !meta.name.is_empty() => p.push(Problem::new(
                join(&path, "id"),
                Code::Required,
                format!(
                    "give the id of pod `{}` too (its `replica-index`), so the name can be checked against it",
                    meta.name
                ),
            )),
            None if kind == PodList::Create => p.push(Problem::new(
                join(&path, "id"),
                Code::Required,
                "give the pod's id (its `replica-index`); the pod is named `<job>-edljob-<type>-<id>` after it",
            )),
            None if kind == PodList::Remove && meta.name.is_empty() => p.push(Problem::new(
                join(&path, "name"),
                Code::Required,
                "name the pod to remove, or give its type and id",
            )),
            None => {}
        }
        if meta.rank_index < 0 {
            p.push(Problem::new(
                join(&path, "rankIndex"),
                Code::OutOfRange,
                format!("rank {} is negative", meta.rank_index),
            ));
        } else if meta.rank_index >= MAX_REPLICAS_PER_TYPE {
            p.push(Problem::new(
                join(&path, "rankIndex"),
                Code::OutOfRange,
                format!("rank {} is past the {MAX_REPLICAS_PER_TYPE} replicas a type may have", meta.rank_index),
            ));
        }
        if !meta.name.is_empty() && !naming::is_dns1123_subdomain(&meta.name) {
            p.push(Problem::new(
                join(&path, "name"),
                Code::InvalidName,
                format!("`{}` is not a pod name: use lower-case letters, digits, `-` and `.`", meta.name),
            ));
        } else if let Some(owner) = owner {
            pod_name_matches(p, &path, meta, owner);
        }
        if !meta.service.is_empty() {
            match naming::service_of_address(&meta.service) {
                None => {
                    let why = naming::parse_host_port(&meta.service).err().unwrap_or_default();
                    p.push(Problem::new(join(&path, "service"), Code::InvalidAddress, why));
                }
                Some((name, _)) if kind == PodList::Create && !naming::is_dns1035_label(name) => {
                    p.push(Problem::new(
                        join(&path, "service"),
                        Code::InvalidName,
                        format!("the pod's service is named after the host, and `{name}` cannot name a service: use lower-case letters, digits and `-`, starting with a letter, at most 63"),
                    ));
                }
                Some(_) if kind == PodList::Create => {
                    if let Some(owner) = owner {
                        service_is_own(p, &path, meta, owner);
                    }
                }
                Some(_) => {}
            }
        }
        resource_list(p, &join(&path, "resource"), &meta.resource);
        if kind == PodList::Migrate {
            if meta.name.is_empty() {
                p.push(Problem::new(join(&path, "name"), Code::Required, "name the pod to migrate"));
            }
            if meta.resource.is_empty() {
                p.push(Problem::new(join(&path, "resource"), Code::Required, "give the resource the pod migrates to"));
            }
        }
    }
}

/// The name of an entry that gives one must be the name its job, type and id give.
fn pod_name_matches(p: &mut Vec<Problem>, path: &str, meta: &PodMeta, job: &str) {
    let (Some(t), Some(id)) = (meta.type_, meta.id) else { return };
    let named = naming::parse_task_pod_name(&meta.name);
    if meta.name.is_empty()
        || t == ReplicaType::DlroverMaster
        || id < 0
        || named.is_some_and(|(n, i)| n != t || i != id)
    {
        // Empty, or already reported as a type or id mismatch.
        return;
    }
    let expected = naming::task_pod_name(job, t, i64::from(id));
    if meta.name != expected {
        p.push(Problem::new(
            join(path, "name"),
            Code::Mismatch,
            format!("pod {id} of {t} in job `{job}` is named `{expected}`, not `{}`", meta.name),
        ));
    }
}

/// The service a `createPods` entry names must be one of its own job and type, in the form DLRover's
/// master 0.6.1 writes it: `<job>-edljob-<type>-<n>.<namespace>.svc:<port>`, where `n` is the rank
/// for a worker and the pod id for a PS (its `get_node_service_addr` is given either). The service
/// is made after the host, so any other name would let a plan take a service that belongs to
/// another job, or to another type of this one.
fn service_is_own(p: &mut Vec<Problem>, path: &str, meta: &PodMeta, job: &str) {
    let (Some(t), Some(host)) = (meta.replica_type(), meta.service_name()) else { return };
    if t == ReplicaType::DlroverMaster {
        // Already reported: a plan does not make the master.
        return;
    }
    let prefix = format!("{job}-edljob-{t}-");
    let own = host.strip_prefix(&prefix).is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    if !own {
        p.push(Problem::new(
            join(path, "service"),
            Code::Mismatch,
            format!(
                "`{host}` is not a service of this {t}: a plan names only its own job's services, `{prefix}<n>` (the rank, or the pod's id)"
            ),
        ));
    }
}

fn unique(p: &mut Vec<Problem>, list: &str, metas: &[PodMeta], key: impl Fn(&PodMeta) -> Option<String>, what: &str) {
    let mut seen = BTreeMap::new();
    for (i, meta) in metas.iter().enumerate() {
        if let Some(k) = key(meta) {
            if let Some(first) = seen.insert(k, i) {
                p.push(Problem::new(
                    format!("{list}[{i}]"),
                    Code::Duplicate,
                    format!("this pod has the same {what} as {list}[{first}]"),
                ));
            }
        }
    }
}
