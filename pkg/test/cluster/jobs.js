// The jobs of the controller's benchmarks (bench/controller.js, bench/cluster.js) and the part of
// DLRover's master they play: each job's first ScalePlan, in the shape the real master (0.6.1)
// writes it (as pkg/test/cluster/scenario.js's createPlan, which dlrover.test.js checks against
// the real one): named `<job>-scaleplan-0`, labelled only `scale-type: auto`, owned by the job as
// kind `elasticjob`, every list of the spec present, the PS addresses as `<service>.<ns>.svc:2222`.
import * as api from "elasticjob";

const JOB_API = "elastic.iml.github.io/v1alpha1";

/** The container of every task: `requests` as given. */
export const container = (requests) => ({ name: "main", image: "tf:2", command: ["python", "-m", "deepctr.train"], resources: { requests } });

/** A ParameterServerStrategy job of `ps` PS and `workers` workers, each task `container`. */
export function psJob(ns, name, { ps = 1, workers, task }) {
  const template = { spec: { restartPolicy: "Never", containers: [task] } };
  return {
    apiVersion: JOB_API,
    kind: "ElasticJob",
    metadata: { name, namespace: ns },
    spec: {
      distributionStrategy: "ParameterServerStrategy",
      replicaSpecs: { ps: { replicas: ps, restartCount: 2, template }, worker: { replicas: workers, restartCount: 2, template } },
    },
  };
}

/** The master's first plan for the stored job `job`: the job's replicas, its PS addresses. */
export function firstPlan(job) {
  const { name, namespace, uid } = job.metadata;
  const { replicaResourceSpecs } = api.initialScalePlan(job).spec;
  const ps = replicaResourceSpecs.ps?.replicas ?? 0;
  return {
    apiVersion: JOB_API,
    kind: "ScalePlan",
    metadata: {
      name: `${name}-scaleplan-0`,
      namespace,
      labels: { "scale-type": "auto" },
      ownerReferences: [{ apiVersion: JOB_API, kind: "elasticjob", name, uid, blockOwnerDeletion: true }],
    },
    spec: {
      ownerJob: name,
      replicaResourceSpecs,
      createPods: [],
      removePods: [],
      psHosts: Array.from({ length: ps }, (_, r) => `${name}-edljob-ps-${r}.${namespace}.svc:2222`),
    },
  };
}
