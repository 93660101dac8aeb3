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
 * Its PS and workers say `autoScale: false`, so that DLRover's master plans them as written (with
 * auto-scaling its optimizer gives each worker 16 CPUs: `firstPlanSpec`) and the test cluster's
 * nodes hold many such jobs at once.
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
        ps: { replicas: ps, restartCount: 2, autoScale: false, template },
        worker: { replicas: workers, restartCount: 2, autoScale: false, ...worker, template },
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
  return { cpu: pyFloat(tenths(quantity(cpu))), memory: `${Math.trunc(quantity(memory) / 2 ** 20)}Mi` };
}

const DECIMAL = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

/** A Kubernetes quantity as the nearest double, as Python's `float(parse_quantity(q))`. */
function quantity(q) {
  const text = String(q).trim();
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/.exec(text);
  if (!m) throw new Error(`${text} is not a quantity`);
  const [, number, suffix = ""] = m;
  if (suffix in BINARY) return Number(number) * 2 ** BINARY[suffix];
  return Number(/^[eE]/.test(suffix) ? `${number}${suffix}` : `${number}e${DECIMAL[suffix]}`);
}

/** Python's `round(x, 1)`: the nearest tenth of the double, an exact tie to the even tenth. */
function tenths(x) {
  if (Number.isInteger(x * 4) && Math.abs(x * 4) % 2 === 1) {
    const down = Math.floor(x * 10);
    return (down % 2 === 0 ? down : down + 1) / 10;
  }
  return Number(x.toFixed(1));
}

/** Python's `str()` of a float: `2.0`, `0.5`. */
const pyFloat = (x) => (Number.isInteger(x) ? `${x}.0` : String(x));

/** The PS addresses as the master writes them: `<service>.<namespace>.svc:2222`. */
export function masterPsHosts(job, count) {
  return Array.from({ length: count }, (_, r) => `${job.metadata.name}-edljob-ps-${r}.${job.metadata.namespace}.svc:2222`);
}

/**
 * How DLRover 0.6.1's master reads one replica spec (`K8sJobArgs.initilize`,
 * dlrover/python/scheduler/kubernetes.py): `int(spec.get("replicas", 0))`; the first container's
 * requests only, cpu rounded to a tenth, memory in whole Mi, each 0 when not requested; the GPU
 * from the last request whose name contains `nvidia.com`. `cpu` is `{ value, whole }`: a whole
 * number the optimizer chose is written `16`, a request as Python writes a float, `2.0`.
 */
function masterReading(spec) {
  const requests = spec.template?.spec?.containers?.[0]?.resources?.requests ?? {};
  const gpus = Object.entries(requests).filter(([name]) => name.includes("nvidia.com"));
  const gpu = gpus.length ? [gpus[gpus.length - 1][0], Number.parseInt(String(gpus[gpus.length - 1][1]), 10)] : undefined;
  return {
    count: spec.replicas ?? 0,
    cpu: { value: "cpu" in requests ? tenths(quantity(requests.cpu)) : 0, whole: false },
    memory: "memory" in requests ? Math.trunc(quantity(requests.memory) / 2 ** 20) : 0,
    gpu,
  };
}

/**
 * The spec of DLRover 0.6.1's master's first plan for `job`, computed as the master computes it in
 * its ScalePlan mode (`DistributedJobManager.start`; the core's `job::master_first_plan` says each
 * step with the function it comes from): each spec read as `masterReading` reads it; for a
 * ParameterServerStrategy job the resource optimizer's first plan (one PS and one worker of
 * min(ceil(resourceLimits.cpu / 5), 16) CPUs and 0 memory, or in `manual` mode 2 workers and a PS
 * of 1 CPU and 8000 Mi) laid over the PS and workers whose `autoScale` is not false; an evaluator
 * below 2 CPUs or 1024 Mi given the worker's; a chief made of one worker when the job has none.
 * `tests/e2e/played-master.test.js` holds it to the real master's plans of
 * tests/fixtures/master-reading/.
 */
export function firstPlanSpec(job) {
  const specs = job.spec.replicaSpecs;
  const groups = {};
  for (const type of ["ps", "chief", "worker", "evaluator"]) {
    if (specs[type]) groups[type] = masterReading(specs[type]);
  }
  if ((job.spec.distributionStrategy ?? "ParameterServerStrategy") === "ParameterServerStrategy") {
    const auto = (type) => specs[type] && specs[type].autoScale !== false && String(specs[type].autoScale ?? "true").toLowerCase() !== "false";
    let planned;
    if (job.spec.optimizeMode === "manual") {
      planned = { worker: { count: 2, cpu: { value: 1, whole: true }, memory: 8000 }, ps: { count: 1, cpu: { value: 1, whole: true }, memory: 8000 } };
    } else {
      const limit = job.spec.resourceLimits?.cpu === undefined ? 100 : tenths(quantity(job.spec.resourceLimits.cpu));
      const cpu = { value: Math.min(Math.ceil(limit / 5), 16), whole: true };
      planned = { worker: { count: 1, cpu, memory: 0 }, ps: { count: 1, cpu, memory: 0 } };
    }
    const update = (g, { count, cpu, memory }) => {
      if (count > 0) g.count = count;
      if (cpu.value > 0) g.cpu = cpu;
      if (memory > 0) g.memory = memory;
    };
    const w = groups.worker;
    if (w && auto("worker")) {
      const p = planned.worker;
      update(w, { count: w.count > 0 ? w.count : p.count, cpu: p.cpu.value === 0 ? w.cpu : p.cpu, memory: p.memory === 0 ? w.memory : p.memory });
    }
    const ps = groups.ps;
    if (ps && auto("ps")) {
      const p = planned.ps;
      update(ps, { count: ps.count > 0 ? ps.count : p.count, cpu: ps.cpu.value >= 2 ? ps.cpu : p.cpu, memory: ps.memory >= 1024 ? ps.memory : p.memory });
    }
    const e = groups.evaluator;
    if (e && w) {
      if (e.cpu.value < 2) e.cpu = w.cpu;
      if (e.memory < 1024) e.memory = w.memory;
    }
    if (!(groups.chief?.count > 0) && w?.count > 0) {
      groups.chief = { ...(groups.chief ?? { gpu: undefined }), count: 1, cpu: w.cpu, memory: w.memory };
      w.count -= 1;
    }
  }
  const resource = ({ cpu, memory, gpu }) => ({ cpu: cpu.whole ? String(cpu.value) : pyFloat(cpu.value), memory: `${memory}Mi`, ...(gpu ? { [gpu[0]]: String(gpu[1]) } : {}) });
  const replicaResourceSpecs = Object.fromEntries(Object.entries(groups).map(([type, g]) => [type, { replicas: g.count, resource: resource(g) }]));
  return { replicaResourceSpecs, psHosts: masterPsHosts(job, groups.ps?.count ?? 0) };
}

/** The master's first plan for the stored job `job`. */
export const firstPlan = (job) => masterPlan(job, 0, firstPlanSpec(job));
