// `make bench-pass` (part of `make bench`): what one controller pass costs through the package, at
// three sizes: a job of 1 PS + 10 workers that runs (the 20-job benchmark's jobs), a job whose
// master just wrote a plan of 1,000 workers (the pass creates them), and that job once all 1,000
// run (a pass over an unchanged job). The states come from the core itself: passes carried out in
// memory, each pod given what the API server and KWOK's kubelet add (uid, resourceVersion, node,
// defaults, a Running status), until the plan is done.
// Each figure is the CPU time of one pass (process.cpuUsage, median of runs of about a second),
// so that another process on the machine changes it less than wall time:
// - `values`: controllerPass over the objects (JSON.stringify, the core, JSON.parse), what a host
//   pays that holds objects only;
// - `store`: the pass as the controller makes it: the plans, pods and services in the core's store
//   (text.ObjectStore, each read once when its watch event came), the job's JSON text written once;
// - `read`: the same inputs with no job (`null`): every pod, plan and service is handed over and
//   nothing is decided, so this is what handing the inputs over (converting them) costs;
// - `event`: what one pod's watch event costs the controller (its text written, read into the store).
// ELASTICJOB_PKG=DIR measures another build of the package (an older one has no store, and only
// its `values` figures are printed). Prints figures; asserts nothing. BENCH_JSON=FILE: figures as JSON.
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { firstPlanSpec } from "../../tests/e2e/jobs.js";

const api = await import(process.env.ELASTICJOB_PKG ? pathToFileURL(`${process.env.ELASTICJOB_PKG}/node.js`).href : "elasticjob");
const NOW = "2026-03-01T12:00:00Z";
const JOB_API = "elastic.iml.github.io/v1alpha1";
const TEMPLATE = { spec: { restartPolicy: "Never", containers: [{ name: "main", image: "registry.example.com/ads/deepctr:2.1", command: ["python", "-m", "deepctr.train"], resources: { requests: { cpu: "1", memory: "1Gi" } } }] } };

function job(name, workers) {
  return {
    apiVersion: JOB_API,
    kind: "ElasticJob",
    metadata: { name, namespace: "ads", uid: `uid-${name}`, resourceVersion: "1", generation: 1, creationTimestamp: NOW },
    spec: {
      distributionStrategy: "ParameterServerStrategy",
      replicaSpecs: { ps: { replicas: 1, restartCount: 2, template: TEMPLATE }, worker: { replicas: workers, restartCount: 2, template: TEMPLATE } },
    },
  };
}

/** The master's first plan (in DLRover 0.6.1's shape), as the played master reads the job (`firstPlanSpec`). */
function firstPlan(j) {
  return {
    apiVersion: JOB_API,
    kind: "ScalePlan",
    metadata: { name: `${j.metadata.name}-scaleplan-0`, namespace: "ads", uid: `uid-${j.metadata.name}-plan`, resourceVersion: "2", labels: { "scale-type": "auto" }, ownerReferences: [{ apiVersion: JOB_API, blockOwnerDeletion: true, kind: "elasticjob", name: j.metadata.name, uid: j.metadata.uid }] },
    spec: { ownerJob: j.metadata.name, createPods: [], removePods: [], migratePods: [], ...firstPlanSpec(j) },
  };
}

let version = 10;
/** A pod as the API server stores it once KWOK runs it. */
function running(pod, i) {
  version += 1;
  const ip = `10.244.${(i >> 8) & 255}.${i & 255}`;
  const containers = pod.spec.containers.map((c) => ({ terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File", imagePullPolicy: "IfNotPresent", ...c }));
  return {
    ...pod,
    metadata: { ...pod.metadata, uid: `uid-${pod.metadata.name}`, resourceVersion: String(version), creationTimestamp: NOW },
    spec: { dnsPolicy: "ClusterFirst", enableServiceLinks: true, nodeName: `kwok-node-${i % 4}`, preemptionPolicy: "PreemptLowerPriority", priority: 0, schedulerName: "default-scheduler", securityContext: {}, serviceAccountName: "default", terminationGracePeriodSeconds: 30, tolerations: [{ effect: "NoExecute", key: "node.kubernetes.io/not-ready", operator: "Exists", tolerationSeconds: 300 }, { effect: "NoExecute", key: "node.kubernetes.io/unreachable", operator: "Exists", tolerationSeconds: 300 }], ...pod.spec, containers },
    status: {
      phase: "Running",
      conditions: ["Initialized", "Ready", "ContainersReady", "PodScheduled"].map((type) => ({ type, status: "True", lastProbeTime: null, lastTransitionTime: NOW })),
      hostIP: `172.18.0.${10 + (i % 4)}`,
      podIP: ip,
      podIPs: [{ ip }],
      startTime: NOW,
      containerStatuses: containers.map((c) => ({ name: c.name, image: c.image, imageID: "", containerID: `kwok://${pod.metadata.name}`, ready: true, restartCount: 0, started: true, state: { running: { startedAt: NOW } }, lastState: {} })),
      qosClass: "Guaranteed",
    },
  };
}

/** The state of a job once `passes` passes are carried out in memory (all of them: until nothing is left to do). */
function carryOut(state, passes = Infinity) {
  for (let n = 0; n < passes; n += 1) {
    const plan = api.controllerPass(state.job, state.plans, state.pods, state.services, NOW);
    if (plan.phases.length === 0) {
      return state;
    }
    for (const action of plan.phases.flatMap((p) => p.actions)) {
      switch (action.action) {
        case "createPod":
          state.pods.push(running(action.pod, state.pods.length));
          break;
        case "createOrUpdateService":
          state.services = state.services.filter((s) => s.metadata.name !== action.service.metadata.name);
          state.services.push({ ...action.service, metadata: { ...action.service.metadata, uid: `uid-${action.service.metadata.name}`, resourceVersion: String((version += 1)) }, spec: { clusterIP: "10.0.0.10", ...action.service.spec } });
          break;
        case "deletePod":
          state.pods = state.pods.filter((p) => p.metadata.name !== action.name);
          break;
        case "deleteService":
          state.services = state.services.filter((s) => s.metadata.name !== action.name);
          break;
        case "setJobStatus":
          state.job = { ...state.job, metadata: { ...state.job.metadata, resourceVersion: String((version += 1)) }, status: action.status };
          break;
        case "setScalePlanStatus":
          state.plans = state.plans.map((p) => (p.metadata.name === action.name ? { ...p, status: action.status } : p));
          break;
        default:
          throw new Error(`unknown action ${action.action}`);
      }
    }
  }
  return state;
}

/** A job of `workers` workers whose master runs and has written its first plan (not taken up yet). */
function planned(name, workers) {
  const state = carryOut({ job: job(name, workers), plans: [], pods: [], services: [] });
  state.plans = [firstPlan(state.job)];
  return state;
}

/** Median CPU milliseconds of `f` over runs of about a second (at least 5). */
function cpuMs(f) {
  f();
  const times = [];
  const until = performance.now() + 1000;
  while (times.length < 5 || (performance.now() < until && times.length < 500)) {
    const start = process.cpuUsage();
    f();
    const used = process.cpuUsage(start);
    times.push((used.user + used.system) / 1000);
  }
  return times.sort((a, b) => a - b)[times.length >> 1];
}

function measure(label, state) {
  const now = JSON.stringify(NOW);
  const byValues = cpuMs(() => api.controllerPass(state.job, state.plans, state.pods, state.services, NOW));
  const readValues = cpuMs(() => api.controllerPass(null, state.plans, state.pods, state.services, NOW));
  const figure = { pods: state.pods.length, services: state.services.length, valuesMs: byValues, readValuesMs: readValues };
  if (api.text?.ObjectStore) {
    // The controller's way: the plans, pods and services in the core's store (each read once, as
    // its watch event came), the job's JSON text written once.
    const store = new api.text.ObjectStore();
    for (const [kind, objects] of [["ScalePlan", state.plans], ["Pod", state.pods], ["Service", state.services]]) {
      for (const obj of objects) {
        store.put(kind, JSON.stringify(obj));
      }
    }
    const key = `${state.job.metadata.namespace}/${state.job.metadata.name}`;
    const jobText = JSON.stringify(state.job);
    figure.storeMs = cpuMs(() => JSON.parse(store.controllerPass(key, jobText, undefined, now)));
    figure.readStoreMs = cpuMs(() => JSON.parse(store.controllerPass(key, "null", undefined, now)));
    // What one watch event of a pod costs the controller: its text written and read into the store.
    const pod = state.pods[state.pods.length - 1];
    figure.eventMs = pod ? cpuMs(() => store.put("Pod", JSON.stringify(pod))) : undefined;
    store.free();
  }
  const plan = api.controllerPass(state.job, state.plans, state.pods, state.services, NOW);
  figure.actions = plan.phases.reduce((n, p) => n + p.actions.length, 0);
  const f = (ms) => (ms === undefined ? "-" : `${ms.toFixed(3)} ms`);
  console.log(`${label} (${figure.pods} pods, ${figure.services} services in; ${figure.actions} actions out):`);
  console.log(`  pass over values ${f(figure.valuesMs)}, from the store ${f(figure.storeMs)}`);
  console.log(`  handing the inputs over (no job, nothing decided): as values ${f(figure.readValuesMs)}, from the store ${f(figure.readStoreMs)}; one pod's watch event into the store ${f(figure.eventMs)}`);
  return figure;
}

console.log(`CPU time of one pass, median, Node ${process.version}${process.env.ELASTICJOB_PKG ? `, package ${process.env.ELASTICJOB_PKG}` : ""}`);
const small = carryOut(planned("small", 10));
const big = planned("big", 1000);
const bigRunning = carryOut(planned("big", 1000));
const figures = {
  running11: measure("1 PS + 10 workers, running", small),
  plan1000: measure("1,000 workers, the master's first plan just written", big),
  unchanged1000: measure("1,000 workers, running, unchanged", bigRunning),
};
if (process.env.BENCH_JSON) {
  writeFileSync(process.env.BENCH_JSON, JSON.stringify(figures, null, 2));
}
