// Jobs and DLRover master plans shared by the cluster scenarios (scenario.js) and the controller's
// benchmarks (benches/node/controller.js, benches/node/cluster.js). `masterPlan` is a ScalePlan in the shape the
// real master (0.6.1) writes it, which dlrover.test.js checks against the real one: named
// `<job>-scaleplan-<i>`, labelled only `scale-type: auto`, owned by the job as kind `elasticjob`
// (lower case, no `controller`), every list of the spec present.
const JOB_API = "elastic.iml.github.io/v1alpha1";

/** The container of every task: `requests` as given. */
export const container = (requests) => ({ name: "main", image: "tf:2", command: ["python", "-m", "deepctr.train"], resources: { requests } });

/**
 * A ParameterServerStrategy job of `ps` PS and `workers` workers, each task `task` (a container),
 * the workers' spec with `worker`'s fields over it; with `chief` or `evaluator`, one of each too.
 */
export function psJob(ns, name, { ps = 1, workers, task, worker = {}, chief = false, evaluator = false }) {
  const template = { spec: { restartPolicy: "Never", containers: [task] } };
  const one = (wanted) => (wanted ? { replicas: 1, restartCount: 2, template } : undefined);
  return {
    apiVersion: JOB_API,
    kind: "ElasticJob",
    metadata: { name, namespace: ns },
    spec: {
      distributionStrategy: "ParameterServerStrategy",
      replicaSpecs: {
        ps: { replicas: ps, restartCount: 2, template },
        worker: { replicas: workers, restartCount: 2, ...worker, template },
        ...(chief ? { chief: one(chief) } : {}),
        ...(evaluator ? { evaluator: one(evaluator) } : {}),
      },
    },
  };
}

/** The master's plan number `index` for the stored job `job`, its spec `spec` over empty lists. */
export function masterPlan(job, index, spec) {
  const { name, namespace, uid } = job.metadata;
  return {
    apiVersion: JOB_API,
    kind: "ScalePlan",
    metadata: {
      name: `${name}-scaleplan-${index}`,
      namespace,
      labels: { "scale-type": "auto" },
      ownerReferences: [{ apiVersion: JOB_API, blockOwnerDeletion: true, kind: "elasticjob", name, uid }],
    },
    spec: { ownerJob: name, replicaResourceSpecs: {}, createPods: [], removePods: [], psHosts: [], ...spec },
  };
}

/** A resource as the master writes it: cpu as a decimal (`str(float)`), memory in Mi. */
export function masterResource({ cpu, memory }) {
  const cores = cpu.endsWith("m") ? Number(cpu.slice(0, -1)) / 1000 : Number(cpu);
  const mi = memory.endsWith("Gi") ? Number(memory.slice(0, -2)) * 1024 : Number(memory.slice(0, -2));
  return { cpu: Number.isInteger(cores) ? cores.toFixed(1) : String(cores), memory: `${mi}Mi` };
}

/** The PS addresses as the master writes them: `<service>.<namespace>.svc:2222`. */
export function masterPsHosts(job, count) {
  return Array.from({ length: count }, (_, r) => `${job.metadata.name}-edljob-ps-${r}.${job.metadata.namespace}.svc:2222`);
}

/**
 * The spec of the master's first plan for `job`: every type's replicas and resource as the spec
 * has them, except that a PS job without a chief gets one of its workers as chief (`chief: 1`,
 * `worker: replicas - 1`), as the real master's first plan does; and the PS addresses.
 */
export function firstPlanSpec(job) {
  const specs = job.spec.replicaSpecs;
  // The master reads a request the template does not make as 0 (K8sElasticJob in its scheduler/kubernetes.py).
  const resource = (type) => {
    const requests = specs[type].template.spec.containers[0].resources?.requests ?? {};
    return masterResource({ cpu: requests.cpu ?? "0", memory: requests.memory ?? "0Mi" });
  };
  const replicaResourceSpecs = Object.fromEntries(Object.entries(specs).map(([type, s]) => [type, { replicas: s.replicas ?? 1, resource: resource(type) }]));
  if (!specs.chief && replicaResourceSpecs.worker?.replicas > 0) {
    replicaResourceSpecs.chief = { replicas: 1, resource: resource("worker") };
    replicaResourceSpecs.worker.replicas -= 1;
  }
  return { replicaResourceSpecs, psHosts: masterPsHosts(job, specs.ps?.replicas ?? 0) };
}

/** The master's first plan for the stored job `job`. */
export const firstPlan = (job) => masterPlan(job, 0, firstPlanSpec(job));
