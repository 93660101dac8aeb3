//! The job's services, kept level-triggered from the services observed (the rules are in
//! [`crate::reconcile::controller_pass`]'s docs): the service of every live task pod and of the
//! live master is made again when it is missing, and a task service the job owns is deleted once
//! its rank has no pod and is at or above its type's target count.

use std::collections::BTreeMap;

use crate::podspec::Service;

use super::Planner;
use crate::api::{ElasticJob, ReplicaType, ScalePlan};
use crate::plan::{Action, Cause};
use crate::sorted::Names;
use crate::{job, naming, pod, service, template};

/// The services one pass observed, as the planner reads them.
pub(crate) struct ObservedServices<'a> {
    /// The names of the services in the job's namespace, whoever owns them: a name that is taken is
    /// not made again, so a service the job does not own is never overwritten.
    names: Names<'a>,
    /// The task services the job owns, in input order, with the type and rank they serve.
    owned: Vec<(ReplicaType, i32, &'a Service)>,
    /// The address a `createPods` entry of the job's plans gave a pod, by pod name: its service is
    /// named after it.
    addresses: BTreeMap<String, String>,
}

impl<'a> ObservedServices<'a> {
    /// What the planner needs of `services`, and of the `createPods` entries of the job's `plans`
    /// (later plans over earlier ones).
    pub(crate) fn new(
        job: &ElasticJob,
        services: &'a [Service],
        plans: impl IntoIterator<Item = &'a ScalePlan>,
    ) -> Self {
        let mut names = Vec::new();
        let mut owned = Vec::new();
        for s in services.iter().filter(|s| service::in_namespace_of(s, job)) {
            names.push(service::name(s));
            if let Some((replica_type, rank)) = service::owned_task_rank(s, job) {
                owned.push((replica_type, rank, s));
            }
        }
        let mut addresses = BTreeMap::new();
        for entry in plans.into_iter().flat_map(|p| &p.spec.create_pods).filter(|m| !m.service.is_empty()) {
            if let Some(name) = entry.pod_name(job.name()) {
                addresses.insert(name, entry.service.clone());
            }
        }
        ObservedServices { names: Names::of(names), owned, addresses }
    }
}

impl<'a> Planner<'a> {
    /// This pass keeps the job's services from `observed` ([`Planner::keep_services`]).
    pub(crate) fn observe_services(&mut self, observed: ObservedServices<'a>) {
        self.observed_services = Some(observed);
    }

    /// Makes the missing service of every Running or Pending task pod of the job and of its master,
    /// and deletes each task service the job owns whose rank has no pod (none that is not being
    /// deleted, and none this plan creates) and is at or above its type's target count (a type
    /// without one keeps its services). Services this plan already makes or deletes are left as
    /// they are. Nothing without observed services (a pass that was given none).
    pub(super) fn keep_services(&mut self) {
        let Some(observed) = self.observed_services.take() else { return };
        let mut held = self.created.clone();
        let mut missing = Vec::new();
        let mut master_runs = false;
        for (&replica_type, pods) in &self.pods {
            for &p in pods {
                if pod::is_terminating(p) || self.deleted.contains(pod::name(p)) {
                    continue;
                }
                if replica_type == ReplicaType::DlroverMaster {
                    master_runs |= pod::is_stoppable(p);
                    continue;
                }
                let Some(rank) = pod::pod_rank(p) else { continue };
                held.entry(replica_type).or_default().insert(rank);
                if pod::is_stoppable(p) {
                    let address = observed.addresses.get(pod::name(p)).map(String::as_str);
                    let name = template::task_service_name_at(self.job, replica_type, rank, address);
                    if !observed.names.contains(name.as_str()) && self.services.insert(name) {
                        missing.push((replica_type, rank, address, pod::name(p)));
                    }
                }
            }
        }
        for (replica_type, rank, address, pod_name) in missing {
            self.actions.push(Action::CreateOrUpdateService {
                service: Box::new(template::task_service_at(self.job, replica_type, rank, address)),
                reason: format!("the address of {replica_type} rank {rank} is missing: {pod_name} runs there"),
                cause: Cause::MissingAddress,
            });
        }
        let master = naming::master_name(self.job.name());
        if master_runs && !observed.names.contains(master.as_str()) && self.services.insert(master) {
            self.actions.push(Action::CreateOrUpdateService {
                service: Box::new(template::master_service(self.job)),
                reason: "the address of the job master is missing: the master runs".to_owned(),
                cause: Cause::MissingAddress,
            });
        }
        for (replica_type, rank, s) in observed.owned {
            let Some(target) = self.target(replica_type).filter(|n| rank >= *n) else { continue };
            let name = service::name(s);
            if held.get(&replica_type).is_some_and(|r| r.contains(&rank)) || self.services.contains(name) {
                continue;
            }
            if self.deleted_services.insert(name.to_owned()) {
                let namespace = s.metadata.namespace.clone().filter(|n| !n.is_empty());
                self.actions.push(Action::DeleteService {
                    namespace: namespace.or_else(|| job::namespace(self.job).map(str::to_owned)),
                    name: name.to_owned(),
                    reason: format!("{replica_type} rank {rank} has no pod and is not among the {target} the job runs"),
                    cause: Cause::UnusedAddress,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::podspec::{OwnerReference, Time};

    use super::super::controller_pass;
    use super::super::tests::job;
    use super::*;
    use crate::api::{ElasticJobStatus, JobConditionType, ScalePlan};
    use crate::plan::Plan;
    use crate::template::Options;

    /// Job `j` (one PS, two workers), running, with a uid.
    fn running() -> ElasticJob {
        let mut j = job();
        j.metadata.uid = Some("u".into());
        j.status = Some(ElasticJobStatus { phase: Some(JobConditionType::Running), ..Default::default() });
        j
    }

    /// A pod of job `j` as the planner made it, controlled by the job of [`running`].
    fn task(t: ReplicaType, id: i32, rank: i32, phase: &str) -> crate::podspec::Pod {
        let mut pod = super::super::tests::task(t, id, rank, phase);
        pod.metadata.owner_references = template::owner_reference(&running()).map(|o| vec![o]);
        pod
    }

    fn master() -> crate::podspec::Pod {
        let mut m = task(ReplicaType::DlroverMaster, 0, 0, "Running");
        m.metadata.name = Some(naming::master_name("j"));
        m
    }

    /// The master, the PS and both workers, running.
    fn pods() -> Vec<crate::podspec::Pod> {
        vec![
            master(),
            task(ReplicaType::Ps, 0, 0, "Running"),
            task(ReplicaType::Worker, 0, 0, "Running"),
            task(ReplicaType::Worker, 1, 1, "Running"),
        ]
    }

    /// The services the core made for them: each rank's and the master's, owned by the job.
    fn services(j: &ElasticJob, ranks: &[(ReplicaType, i32)]) -> Vec<Service> {
        let mut all: Vec<Service> = ranks.iter().map(|&(t, r)| template::task_service_at(j, t, r, None)).collect();
        all.push(template::master_service(j));
        all
    }

    const ALL: [(ReplicaType, i32); 3] = [(ReplicaType::Ps, 0), (ReplicaType::Worker, 0), (ReplicaType::Worker, 1)];

    fn pass(j: &ElasticJob, pods: &[crate::podspec::Pod], services: &[Service]) -> Plan {
        let now = Time::UNIX_EPOCH;
        controller_pass(
            super::super::Observed { job: Some(j), plans: &[], pods, services },
            super::super::Gates::default(),
            &now,
            &Options::default(),
        )
        .unwrap_or_default()
    }

    fn service_actions(plan: &Plan) -> Vec<(String, String)> {
        plan.actions()
            .filter_map(|a| match a {
                Action::CreateOrUpdateService { service, .. } => Some(("create".into(), service::name(service).into())),
                Action::DeleteService { name, .. } => Some(("delete".into(), name.clone())),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn with_every_service_there_no_service_is_touched() {
        let j = running();
        assert_eq!(service_actions(&pass(&j, &pods(), &services(&j, &ALL))), []);
    }

    #[test]
    fn a_missing_service_is_made_again_as_it_was_made() {
        let j = running();
        let mut observed = services(&j, &[(ReplicaType::Ps, 0), (ReplicaType::Worker, 1)]);
        observed.retain(|s| service::name(s) != naming::master_name("j"));
        let plan = pass(&j, &pods(), &observed);
        assert_eq!(
            service_actions(&plan),
            [("create".into(), "j-edljob-worker-0".into()), ("create".into(), naming::master_name("j"))]
        );
        let made: Vec<&Service> = plan
            .actions()
            .filter_map(|a| match a {
                Action::CreateOrUpdateService { service, .. } => Some(service.as_ref()),
                _ => None,
            })
            .collect();
        let worker = template::task_service_at(&j, ReplicaType::Worker, 0, None);
        assert_eq!(made, [&worker, &template::master_service(&j)], "the same selector, port and owner");
        assert!(plan.created_pods().next().is_none() && plan.deleted_pods().next().is_none());
    }

    #[test]
    fn a_service_of_a_rank_beyond_the_target_without_a_pod_is_deleted_and_a_foreign_one_is_kept() {
        // Three workers: DLRover's master runs one as the chief and plans workers 0 and 1.
        let mut j = running();
        if let Some(w) = j.spec.replica_specs.get_mut(&ReplicaType::Worker) {
            w.replicas = Some(3);
        }
        let mut observed =
            services(&j, &[ALL.as_slice(), &[(ReplicaType::Worker, 2), (ReplicaType::Worker, 3)]].concat());
        // worker-3: the job's labels, but another job (an earlier one of the same name) controls it.
        if let Some(s) = observed.iter_mut().find(|s| service::name(s) == "j-edljob-worker-3") {
            s.metadata.owner_references =
                Some(vec![OwnerReference { uid: "old".into(), controller: Some(true), ..Default::default() }]);
        }
        // A rank within the target keeps its service while its pod is away (its relaunch comes).
        let without_worker_1: Vec<_> =
            pods().into_iter().filter(|p| p.metadata.name.as_deref() != Some("j-edljob-worker-1")).collect();
        let plan = pass(&j, &without_worker_1, &observed);
        assert_eq!(service_actions(&plan), [("delete".into(), "j-edljob-worker-2".into())]);
        let Some(Action::DeleteService { namespace, reason, .. }) =
            plan.actions().find(|a| matches!(a, Action::DeleteService { .. }))
        else {
            panic!("{plan:?}")
        };
        assert_eq!(
            (namespace.as_deref(), reason.as_str()),
            (Some("ns"), "worker rank 2 has no pod and is not among the 2 the job runs")
        );
        // With a pod there, even one that failed, the rank keeps its service.
        let mut with_pod = pods();
        with_pod.push(task(ReplicaType::Worker, 2, 2, "Failed"));
        assert_eq!(service_actions(&pass(&j, &with_pod, &observed)), []);
    }

    #[test]
    fn pods_that_do_not_run_get_no_service_and_a_job_that_does_not_run_keeps_none() {
        let j = running();
        let mut observed = services(&j, &ALL);
        observed.retain(|s| service::name(s) != "j-edljob-worker-1");
        let mut failed = pods();
        if let Some(p) = failed.iter_mut().find(|p| p.metadata.name.as_deref() == Some("j-edljob-worker-1")) {
            *p = task(ReplicaType::Worker, 1, 1, "Failed");
        }
        assert_eq!(service_actions(&pass(&j, &failed, &observed)), [], "a failed pod waits for its relaunch");
        let mut suspended = running();
        suspended.spec.suspend = Some(true);
        let plan = pass(&suspended, &pods(), &observed);
        assert_eq!(service_actions(&plan), [], "a suspended job only stops its pods");
        let mut finished = running();
        finished.status = Some(ElasticJobStatus { phase: Some(JobConditionType::Succeeded), ..Default::default() });
        assert_eq!(service_actions(&pass(&finished, &pods(), &[])), []);
    }

    #[test]
    fn a_scale_down_deletes_each_service_once_and_a_plan_entry_names_its_pods_service() {
        let mut j = running();
        let mut plan = ScalePlan::default();
        plan.metadata.name = Some("j-scaleplan-1".into());
        plan.metadata.labels = Some([(naming::LABEL_SCALE_TYPE.to_owned(), naming::SCALE_TYPE_AUTO.to_owned())].into());
        plan.spec.owner_job = Some("j".into());
        plan.spec
            .replica_resource_specs
            .insert(ReplicaType::Worker, crate::api::ReplicaResourceSpec { replicas: 1, ..Default::default() });
        plan.status =
            Some(crate::api::ScalePlanStatus { phase: Some(JobConditionType::Pending), ..Default::default() });
        if let Some(s) = j.status.as_mut() {
            s.scale_plan = plan.metadata.name.clone();
        }
        let now = Time::UNIX_EPOCH;
        let observed = services(&j, &ALL);
        let Ok(out) = controller_pass(
            super::super::Observed { job: Some(&j), plans: &[plan], pods: &pods(), services: &observed },
            super::super::Gates::default(),
            &now,
            &Options::default(),
        ) else {
            panic!("refused")
        };
        assert_eq!(service_actions(&out), [("delete".into(), "j-edljob-worker-1".into())]);
        assert_eq!(out.deleted_pods().collect::<Vec<_>>(), ["j-edljob-worker-1"]);

        // A pod a plan's createPods entry gave its own address has its service named after it.
        let mut relaunch = ScalePlan::default();
        relaunch.spec.create_pods.push(crate::api::PodMeta {
            name: "j-edljob-worker-1".into(),
            service: "j-worker-one.ns.svc:3333".into(),
            ..Default::default()
        });
        let observed = ObservedServices::new(&j, &[], [&relaunch]);
        assert_eq!(observed.addresses.get("j-edljob-worker-1").map(String::as_str), Some("j-worker-one.ns.svc:3333"));
        assert_eq!(
            template::task_service_name_at(&j, ReplicaType::Worker, 1, Some("j-worker-one.ns.svc:3333")),
            "j-worker-one"
        );
    }
}
