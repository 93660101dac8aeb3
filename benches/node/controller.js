// `make bench-controller` (part of `make bench`, never of `make test`): `elasticjob controller`
// against the test cluster of tests/cluster (its real API server, scheduler and KWOK's fake nodes;
// run inside `cluster run`), as a child process with
// the admin kubeconfig, each figure at the default client rate limit and with it off
// (`--kube-api-qps 0`). Prints figures; asserts nothing. With BENCH_JSON=FILE the figures are also
// written to FILE.
// - 20 jobs x (1 PS + 10 workers): from the jobs written to every pod and service created and to
//   every pod Running, the cluster's fake nodes (KWOK) running the pods and the bench playing
//   DLRover 0.6.1's master as it starts beside the pods made with its job (no first plan; its empty
//   plan once the job is Running), each job traced from watches (watch.js: when each object was
//   first seen, and first seen Running) with the CPU the controller and the cluster used; beside a
//   bare client making the same objects (the cluster's own time for them);
// - the 1,000-worker job's first plan (made with the job, its master last): from the job written to
//   every pod and service created (the controller's log lines), beside a bare client creating the
//   same task objects (the core's render) with 32 calls at once and no limit: the API server's own
//   time, the floor;
// - the 20 jobs' 240 services alone, one and 8 at once, as ClusterIP (ours) and headless
//   (Kubeflow's): what allocating their cluster IPs costs;
// - API calls per created pod (the controller's request counter over the 1,000-worker job);
// - the controller's peak RSS (VmHWM) with 10,000 pods of jobs in its caches;
// - with KUBEFLOW_OPERATOR=BIN and KUBEFLOW_SRC=DIR (benches/kubeflow/operator.sh builds them, as
//   `make bench-controller` does): Kubeflow training-operator v1.9.4 on the same cluster, the same
//   20 jobs written as TFJobs (`--controller-threads=4 --kube-api-qps=1000`, benches/node/kubeflow.js), from
//   the TFJobs written to every pod and service created.
// The 20 jobs run BENCH_RUNS times (default 3), ours and Kubeflow's in turn; the figures are the
// medians. BENCH_ONLY=twenty runs only ours (BENCH_ARGS: more controller flags), BENCH_ONLY=race ours
// and Kubeflow's, each run printed; BENCH_LOG=FILE keeps the 20-job run's controller log, and
// BENCH_TRACE=FILE its trace (FILE.kubeflow Kubeflow's);
// BENCH_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=DIR`) go to the controller's node.
// Usage (inside `cluster run`): node benches/node/controller.js
import { spawn } from "node:child_process";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import * as api from "elasticjob";
import { adminConfig, collection, deleteNamespace, eventually, expectStatus, freshNamespace, metricSum, request } from "../../tests/e2e/kube.js";
import { container, masterPlan, psJob } from "../../tests/e2e/jobs.js";
import { kubeflowFromEnv, startKubeflow, tfJob } from "./kubeflow.js";
import { watchObjects } from "./watch.js";

const BIN = fileURLToPath(new URL("../../pkg/bin/elasticjob.js", import.meta.url));
const JOB_API = "elastic.iml.github.io/v1alpha1";
const admin = adminConfig();
const KUBECONFIG = process.env.KUBECONFIG;
const cleanups = [];
const t = { after: (f) => cleanups.push(f) };

const TASK = container({ cpu: "100m", memory: "128Mi" });
const newJob = (ns, name, workers) => psJob(ns, name, { workers, task: TASK });

const ok = async (answer, codes, what) => expectStatus(await answer, codes, what);
const createJob = (job) => ok(request(admin, "POST", collection(JOB_API, "ElasticJob", job.metadata.namespace), { body: job }), [201], "job");
const createPlan = (ns, plan) => ok(request(admin, "POST", collection(JOB_API, "ScalePlan", ns), { body: plan }), [201], "plan");

/** `elasticjob controller` with its log lines and its metrics. */
class Controller {
  constructor(ns, args = []) {
    this.lines = [];
    this.child = spawn(process.execPath, [...(process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean), BIN, "controller", "--kubeconfig", KUBECONFIG, "--namespace", ns, "--metrics-port", "0", "--health-port", "0", ...args], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    this.exited = new Promise((resolve) => this.child.on("exit", resolve));
    createInterface({ input: this.child.stdout }).on("line", (text) => {
      try {
        this.lines.push(JSON.parse(text));
      } catch {
        // not a log line
      }
    });
  }

  async ready() {
    for (;;) {
      const serving = this.lines.find((l) => l.msg === "serving");
      if (serving) {
        this.ports = serving;
        const answer = await fetch(`http://127.0.0.1:${serving.healthPort}/readyz`).catch(() => undefined);
        if (answer?.status === 200) {
          return;
        }
      }
      await sleep(50);
    }
  }

  metric(name, labels = {}) {
    return metricSum(this.ports.metricsPort, name, labels);
  }


  /** Peak resident memory of the process, in bytes (Linux's VmHWM). */
  peakRss() {
    const kb = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${this.child.pid}/status`, "utf8"))?.[1];
    return Number(kb) * 1024;
  }

  /** The time (ms since the epoch) of the last created pod or service in the log. */
  lastCreate() {
    const created = this.lines.filter((l) => (l.action === "createPod" || l.action === "createOrUpdateService") && l.outcome !== undefined);
    return Math.max(...created.map((l) => Date.parse(l.time)));
  }

  async stop() {
    this.child.kill("SIGTERM");
    await this.exited;
  }
}

const median = (xs) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)];
const until = (check, seconds = 600) => eventually("the benchmark's wait", check, seconds);

/**
 * The API server's first write of a custom resource builds what serves it: about 2 s for the
 * ElasticJob's 200 KB schema on this machine, then 6 ms a write. A cluster has paid that long
 * before anyone writes a job, so the kind is written once, in a namespace no controller watches,
 * before any clock starts (startKubeflow does the same for the TFJob).
 */
const warm = () => inNamespace("bench-warm", (ns) => createJob(newJob(ns, "warm", 1)));

/**
 * `measure(ns)` in a fresh namespace, deleted with everything in it before the next figure: the
 * cluster's four nodes hold 1,000 pods, and one figure's pods must not leave the next one's Pending.
 */
async function inNamespace(prefix, measure) {
  const ns = await freshNamespace(admin, t, prefix);
  try {
    return await measure(ns);
  } finally {
    await deleteNamespace(admin, ns);
  }
}

/** CPU seconds (user + system) of each process, with its parent, from /proc (clock ticks of 1/100 s). */
function processes() {
  const all = new Map();
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      all.set(Number(pid), { parent: Number(fields[1]), cpu: (Number(fields[11]) + Number(fields[12])) / 100 });
    } catch {
      // gone since the listing
    }
  }
  return all;
}

/** The CPU seconds of `root` and every process under it (those that have exited are not counted). */
function treeCpu(all, root) {
  let sum = 0;
  for (const [pid, p] of all) {
    for (let at = pid; at > 1; at = all.get(at)?.parent ?? 0) {
      if (at === root) {
        sum += p.cpu;
        break;
      }
    }
  }
  return sum;
}

/** The `cluster run` process this bench runs under (the nearest ancestor of that name). */
function clusterPid() {
  for (let pid = process.ppid; pid > 1; ) {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "cluster") {
      return pid;
    }
    pid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  }
  throw new Error("not run under `cluster run`");
}

/**
 * From now, the CPU seconds of the controller (`pid`), of the cluster (every process under
 * `cluster run` but the bench's own: its API server, etcd, scheduler, controller manager and
 * KWOK) and of the bench: a function that gives `{controller, cluster, bench}` used since.
 */
function cpuMeter(pid) {
  const cluster = clusterPid();
  const read = () => {
    const all = processes();
    const controller = treeCpu(all, pid);
    const bench = treeCpu(all, process.pid) - controller;
    let ours = 0;
    for (let at = process.pid; at > 1 && at !== cluster; at = all.get(at)?.parent ?? 0) {
      ours = at;
    }
    return { controller, bench, cluster: treeCpu(all, cluster) - treeCpu(all, ours) };
  };
  const before = read();
  return () => {
    const now = read();
    return Object.fromEntries(Object.entries(now).map(([k, v]) => [k, v - before[k]]));
  };
}

/**
 * The requests the API server has served (its `apiserver_request_total`, every client's: the
 * controllers', the scheduler's, KWOK's, the controller manager's, the bench's), by `verb
 * resource[/subresource]`, watches left out.
 */
async function servedRequests() {
  const metrics = await request(admin, "GET", "/metrics");
  const served = new Map();
  for (const line of String(metrics.body).split("\n")) {
    const m = /^apiserver_request_total\{(.*)\} (\S+)$/.exec(line);
    if (!m) {
      continue;
    }
    const l = Object.fromEntries([...m[1].matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, k, v]) => [k, v]));
    if (l.verb === "WATCH") {
      continue;
    }
    const key = `${l.verb} ${l.resource}${l.subresource ? `/${l.subresource}` : ""}`;
    served.set(key, (served.get(key) ?? 0) + Number(m[2]));
  }
  return served;
}

/** From now, the requests the API server serves (`servedRequests`): a function that gives those served since, by kind, most first. */
async function requestMeter() {
  const before = await servedRequests();
  return async () => {
    const after = await servedRequests();
    return Object.fromEntries(
      [...after]
        .map(([k, n]) => [k, n - (before.get(k) ?? 0)])
        .filter(([, n]) => n > 0)
        .sort((a, b) => b[1] - a[1]),
    );
  };
}

/** One line of a run's figures: its times, the medians of its jobs' traces, the CPU it took. */
function describeRun(run) {
  const m = traceMedians(run.trace);
  const steps = Object.entries(m).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(", ");
  const served = Object.entries(run.served);
  const writes = served.filter(([k]) => !/^(GET|LIST) /.test(k)).reduce((n, [, c]) => n + c, 0);
  const top = served.slice(0, 16).map(([k, n]) => `${k} ${n}`).join(", ");
  return `every pod and service made ${run.seconds.toFixed(2)} s, every pod Running ${run.runningSeconds.toFixed(2)} s; a job's steps (medians, s): ${steps}; CPU s: controller ${run.cpu.controller.toFixed(2)}, cluster ${run.cpu.cluster.toFixed(2)}, bench ${run.cpu.bench.toFixed(2)}; the API server served ${writes} writes (${top})`;
}

/** The label that names a pod's or service's job: ours, and Kubeflow's (`training.kubeflow.org/job-name`). */
const JOB_LABEL = { ours: "elasticjob.dlrover/name", kubeflow: "training.kubeflow.org/job-name" };

/**
 * Watches `ns`'s pods and services (watch.js) until `pods` pods are Running and `services`
 * services made; resolves to the trace of the run: for each job (by `label`), the bench's times,
 * in seconds after `started`, of its first and last pod made, its last service made and its last
 * pod Running (the master pod's among them), with `times[job]` (written, and the played master's
 * steps) added. `step()` runs at every check (the played master).
 */
async function traced(watches, { started, pods, services, label, times, step = async () => {} }) {
  const [podWatch, serviceWatch] = watches;
  await until(async () => {
    await step();
    const ps = [...podWatch.objects.values()];
    return ps.length === pods && ps.every((p) => p.running !== undefined) && serviceWatch.objects.size === services;
  });
  const at = (ms) => (ms - started) / 1000;
  const jobs = {};
  const of = (entry) => (jobs[entry.labels[label]] ??= { pods: [], services: [] });
  for (const p of podWatch.objects.values()) {
    of(p).pods.push(p);
  }
  for (const s of serviceWatch.objects.values()) {
    of(s).services.push(s);
  }
  const trace = {};
  for (const [name, { pods: ps, services: ss }] of Object.entries(jobs)) {
    const made = ps.map((p) => p.added);
    trace[name] = {
      ...Object.fromEntries(Object.entries(times[name] ?? {}).map(([k, v]) => [k, at(v)])),
      firstPod: at(Math.min(...made)),
      lastPod: at(Math.max(...made)),
      lastService: at(Math.max(...ss.map((s) => s.added))),
      lastRunning: at(Math.max(...ps.map((p) => p.running))),
    };
  }
  const last = (key) => Math.max(...Object.values(trace).map((j) => j[key]));
  return { trace, seconds: Math.max(last("lastPod"), last("lastService")), runningSeconds: Math.max(last("lastRunning"), last("lastService")) };
}

/** The medians over a run's jobs of each time of its trace (seconds after the jobs were first written). */
function traceMedians(trace) {
  const keys = [...new Set(Object.values(trace).flatMap((j) => Object.keys(j)))];
  return Object.fromEntries(keys.map((k) => [k, median(Object.values(trace).map((j) => j[k]).filter((v) => v !== undefined))]));
}

/** `watchObjects` of the namespace's pods and services, stopped when `run` ends. */
async function watching(ns, run) {
  const watches = await Promise.all(["Pod", "Service"].map((kind) => watchObjects(admin, ns, kind)));
  try {
    return await run(watches);
  } finally {
    for (const w of watches) {
      w.stop();
    }
  }
}

/**
 * 20 jobs of 1 PS + 10 workers: jobs written -> every pod and service created, every pod Running.
 * The bench plays DLRover 0.6.1's master as it starts beside pods made with its job: it writes no
 * first plan (`DistributedJobManager.start` finds the pods, `_has_running_workers`) and, at once,
 * the empty plan `<job>-scaleplan-0` of its pending-node monitor
 * (`PSTrainingAutoScaler.monitor_pending_node_at_begining`), once the job is Running (its master
 * pod runs). BENCH_TRACE=FILE keeps the run's trace.
 */
async function twentyJobs(ns, args) {
  const JOBS = 20;
  const WORKERS = 10;
  const controller = new Controller(ns, args);
  await controller.ready();
  return watching(ns, async (watches) => {
    const jobWatch = await watchObjects(admin, ns, "ElasticJob", JOB_API);
    const names = Array.from({ length: JOBS }, (_, i) => `job-${i}`);
    const times = Object.fromEntries(names.map((n) => [n, {}]));
    const cpu = cpuMeter(controller.child.pid);
    const served = await requestMeter();
    const started = Date.now();
    const jobs = new Map(
      await Promise.all(
        names.map(async (n) => {
          const job = await createJob(newJob(ns, n, WORKERS));
          times[n].written = Date.now();
          return [n, job];
        }),
      ),
    );
    const planned = new Set();
    const master = async () => {
      const ready = [...jobWatch.objects.values()].filter((j) => j.running !== undefined && !planned.has(j.name));
      await Promise.all(
        ready.map(async (j) => {
          planned.add(j.name);
          times[j.name].jobRunning = j.running;
          await createPlan(ns, masterPlan(jobs.get(j.name), 0, {}));
          times[j.name].emptyPlan = Date.now();
        }),
      );
    };
    let result;
    try {
      result = await traced(watches, { started, pods: JOBS * (WORKERS + 2), services: JOBS * (WORKERS + 2), label: JOB_LABEL.ours, times, step: master });
      result.cpu = cpu();
      result.served = await served();
    } finally {
      jobWatch.stop();
    }
    await sleep(300);
    if (process.env.BENCH_LOG) {
      writeFileSync(process.env.BENCH_LOG, controller.lines.map((l) => JSON.stringify(l)).join("\n"));
    }
    if (process.env.BENCH_TRACE) {
      writeFileSync(process.env.BENCH_TRACE, JSON.stringify({ started, jobs: result.trace }));
    }
    await controller.stop();
    return { ...result, objects: JOBS * (WORKERS + 2) * 2 };
  });
}

/**
 * The 1,000-worker job's first plan, which the controller makes with the job (its master last):
 * job written -> every pod and service created; API calls a created pod (its master's and status
 * writes counted too).
 */
async function bigPlan(ns, args) {
  const WORKERS = 1000;
  const controller = new Controller(ns, args);
  await controller.ready();
  const callsBefore = await controller.metric("elasticjob_controller_api_requests_total");
  // Its PS, a chief made of one worker, 999 workers and the master, each with its service.
  const objects = 2 * (WORKERS + 2);
  const { seconds, calls, pods } = await watching(ns, async ([podWatch, serviceWatch]) => {
    const written = Date.now();
    await createJob(newJob(ns, "big", WORKERS));
    await until(async () => podWatch.objects.size + serviceWatch.objects.size === objects);
    await sleep(500);
    return {
      seconds: (controller.lastCreate() - written) / 1000,
      calls: (await controller.metric("elasticjob_controller_api_requests_total")) - callsBefore,
      pods: podWatch.objects.size,
    };
  });
  await controller.stop();
  return { seconds, callsPerPod: calls / pods, calls, pods };
}

/** Creates `objects` (core v1 kinds) in `ns` as a bare client does: `at` calls at once, no limit. */
async function createAll(ns, objects, at) {
  let next = 0;
  await Promise.all(
    Array.from({ length: at }, async () => {
      while (next < objects.length) {
        const obj = objects[next++];
        await ok(request(admin, "POST", collection("v1", obj.kind, ns), { body: obj }), [201], obj.metadata.name);
      }
    }),
  );
}

/** The same objects as the 1,000-worker plan, created by a bare client, 32 at once, no limit. */
async function floor(ns) {
  const job = newJob(ns, "big", 1000);
  const stored = await createJob(job);
  const items = api.render(stored, api.initialScalePlan(stored)).items.filter((o) => (o.kind === "Pod" || o.kind === "Service") && !o.metadata.name.includes("dlrover-master"));
  const started = Date.now();
  await createAll(ns, items, 32);
  return { seconds: (Date.now() - started) / 1000, objects: items.length };
}

/**
 * The objects of `kinds` the core renders for the 20 jobs' first plans in `ns` (their masters'
 * among them); with `headless`, each service `clusterIP: None`, as Kubeflow's are.
 */
function twentyJobsObjects(ns, kinds, headless) {
  const objects = [];
  for (let j = 0; j < 20; j += 1) {
    const job = newJob(ns, `job-${j}`, 10);
    for (const obj of api.render(job, api.initialScalePlan(job)).items.filter((o) => kinds.includes(o.kind))) {
      objects.push(headless && obj.kind === "Service" ? { ...obj, spec: { ...obj.spec, type: "ClusterIP", clusterIP: "None" } } : obj);
    }
  }
  return objects;
}

/**
 * The floor of the 20 jobs: their task pods and services (the core's render of each job's first
 * plan, 440 objects) and their masters' (40), made by a bare client 8 at once, to every pod
 * Running; with `headless`, each service `clusterIP: None` as Kubeflow's are (no cluster IP to
 * allocate), to tell what the objects themselves cost the cluster.
 */
async function twentyFloor(ns, headless) {
  const items = twentyJobsObjects(ns, ["Pod", "Service"], headless);
  const count = (kind) => items.filter((o) => o.kind === kind).length;
  return watching(ns, async (watches) => {
    const started = Date.now();
    await createAll(ns, items, 8);
    const run = await traced(watches, { started, pods: count("Pod"), services: count("Service"), label: JOB_LABEL.ours, times: {} });
    return { ...run, objects: items.length };
  });
}

/**
 * The 20 jobs' 240 services alone, made by a bare client `at` at once: ClusterIP (the spec's and
 * DLRover's `_create_service_obj`: a cluster IP allocated, an IPAddress object written with each)
 * or `headless` (Kubeflow's). Seconds to every one made.
 */
async function servicesAlone(ns, headless, at) {
  const services = twentyJobsObjects(ns, ["Service"], headless);
  const started = Date.now();
  await createAll(ns, services, at);
  return { seconds: (Date.now() - started) / 1000, services: services.length };
}

/** A namespace with 10,000 pods of jobs (labelled as the controller's), made by a bare client. */
async function tenThousandPods() {
  const PODS = 10_000;
  const ns = await freshNamespace(admin, t, "bench-rss");
  const pods = Array.from({ length: PODS }, (_, i) => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: `p-${i}`, namespace: ns, labels: { "elasticjob.dlrover/name": `absent-${i % 10}`, "elasticjob.dlrover/replica-type": "worker" } },
    spec: { restartPolicy: "Never", containers: [TASK] },
  }));
  await createAll(ns, pods, 32);
  return { ns, pods: PODS };
}

/** Peak RSS of the controller once its caches hold the namespace's pods. */
async function rss(ns, args) {
  const controller = new Controller(ns, args);
  await controller.ready();
  await sleep(2000);
  const peak = controller.peakRss();
  await controller.stop();
  return peak / 1e6;
}

/** Kubeflow's operator on the same 20 jobs as TFJobs: TFJobs written -> every pod and service created, every pod Running. */
async function kubeflowTwentyJobs(ns, kubeflow) {
  const JOBS = 20;
  const WORKERS = 10;
  const operator = await startKubeflow(kubeflow, ns);
  try {
    return await watching(ns, async (watches) => {
      const names = Array.from({ length: JOBS }, (_, i) => `job-${i}`);
      const times = Object.fromEntries(names.map((n) => [n, {}]));
      const cpu = cpuMeter(operator.child.pid);
      const served = await requestMeter();
      const started = Date.now();
      await Promise.all(
        names.map(async (n) => {
          const body = tfJob(ns, n, { ps: 1, workers: WORKERS, container: TASK });
          await ok(request(admin, "POST", `/apis/kubeflow.org/v1/namespaces/${ns}/tfjobs`, { body }), [201], "TFJob");
          times[n].written = Date.now();
        }),
      );
      const result = await traced(watches, { started, pods: JOBS * (WORKERS + 1), services: JOBS * (WORKERS + 1), label: JOB_LABEL.kubeflow, times });
      result.cpu = cpu();
      result.served = await served();
      if (process.env.BENCH_TRACE) {
        writeFileSync(`${process.env.BENCH_TRACE}.kubeflow`, JSON.stringify({ started, jobs: result.trace }));
      }
      return { ...result, objects: JOBS * (WORKERS + 1) * 2 };
    });
  } finally {
    await operator.stop();
  }
}

// BENCH_LIMITS=default runs only the default (for a controller without --kube-api-qps: the figures before it).
const LIMITS = Object.fromEntries(
  Object.entries({ default: [], off: ["--kube-api-qps", "0"] }).filter(([k]) => !process.env.BENCH_LIMITS || process.env.BENCH_LIMITS.split(",").includes(k)),
);
const figures = {};
try {
  await warm();
  const runs = Number(process.env.BENCH_RUNS ?? 3);
  const kubeflow = process.env.BENCH_ONLY === "twenty" ? undefined : kubeflowFromEnv();
  if (process.env.BENCH_ONLY === "twenty" || process.env.BENCH_ONLY === "race") {
    const extra = process.env.BENCH_ARGS ? process.env.BENCH_ARGS.split(" ") : [];
    for (let i = 0; i < runs; i += 1) {
      const ours = await inNamespace("bench-20", (ns) => twentyJobs(ns, extra));
      console.log(`20 jobs x (1 PS + 10 workers) ${extra.join(" ")}, ${ours.objects} pods and services: ${describeRun(ours)}`);
      if (kubeflow) {
        const kf = await inNamespace("bench-kf", (ns) => kubeflowTwentyJobs(ns, kubeflow));
        console.log(`Kubeflow training-operator v1.9.4, the same as TFJobs, ${kf.objects} pods and services: ${describeRun(kf)}`);
      }
    }
    process.exit(0);
  }
  const f = await inNamespace("bench-floor", floor);
  figures.floor = f;
  console.log(`bare client, the 1,000-worker plan's ${f.objects} pods and services, 32 at once: ${f.seconds.toFixed(2)} s (the floor)`);
  // Ours and Kubeflow's in turn (the machine's load drifts), the median of each.
  const race = { ours: [], kubeflow: [] };
  for (let i = 0; i < runs; i += 1) {
    race.ours.push(await inNamespace("bench-20", (ns) => twentyJobs(ns, LIMITS.default ?? [])));
    console.log(`20 jobs x (1 PS + 10 workers), run ${i + 1}: ${describeRun(race.ours.at(-1))}`);
    if (kubeflow) {
      race.kubeflow.push(await inNamespace("bench-kf", (ns) => kubeflowTwentyJobs(ns, kubeflow)));
      console.log(`Kubeflow training-operator v1.9.4, the same as TFJobs, run ${i + 1}: ${describeRun(race.kubeflow.at(-1))}`);
    }
  }
  for (const headless of [false, true]) {
    const floor20 = await inNamespace("bench-20-floor", (ns) => twentyFloor(ns, headless));
    figures[headless ? "twentyFloorHeadless" : "twentyFloor"] = { seconds: floor20.seconds, runningSeconds: floor20.runningSeconds, objects: floor20.objects };
    console.log(`bare client, the 20 jobs' ${floor20.objects} pods and services${headless ? " (services headless)" : ""}, 8 at once: created ${floor20.seconds.toFixed(2)} s; every pod Running ${floor20.runningSeconds.toFixed(2)} s`);
  }
  for (const at of [1, 8]) {
    const [clusterIp, headless] = [await inNamespace("bench-svc", (ns) => servicesAlone(ns, false, at)), await inNamespace("bench-svc", (ns) => servicesAlone(ns, true, at))];
    figures[`services${at}`] = { clusterIpSeconds: clusterIp.seconds, headlessSeconds: headless.seconds };
    console.log(`bare client, the 20 jobs' ${clusterIp.services} services alone, ${at} at once: ClusterIP ${clusterIp.seconds.toFixed(2)} s, headless ${headless.seconds.toFixed(2)} s`);
  }
  const side = (rs) =>
    rs.length && {
      seconds: median(rs.map((r) => r.seconds)),
      runningSeconds: median(rs.map((r) => r.runningSeconds)),
      cpu: Object.fromEntries(["controller", "cluster"].map((k) => [k, median(rs.map((r) => r.cpu[k]))])),
      runs: rs.length,
    };
  const ours = side(race.ours);
  figures.twentyJobsCpu = { ours: ours.cpu, kubeflow: race.kubeflow.length ? side(race.kubeflow).cpu : undefined };
  console.log(`20 jobs x (1 PS + 10 workers), jobs written -> every pod and service created: ${ours.seconds.toFixed(2)} s; every pod Running: ${ours.runningSeconds.toFixed(2)} s (medians of ${runs})`);
  if (kubeflow) {
    const kf = side(race.kubeflow);
    figures.kubeflowTwentyJobsSeconds = kf.seconds;
    figures.kubeflowTwentyJobsRunningSeconds = kf.runningSeconds;
    console.log(`Kubeflow training-operator v1.9.4, the same as TFJobs: every pod and service created: ${kf.seconds.toFixed(2)} s; every pod Running: ${kf.runningSeconds.toFixed(2)} s (medians of ${runs})`);
    console.log(`  ours: ${(ours.seconds / kf.seconds).toFixed(2)}x Kubeflow's time to every pod and service, ${(ours.runningSeconds / kf.runningSeconds).toFixed(2)}x to every pod Running`);
  }
  for (const [limit, args] of Object.entries(LIMITS)) {
    const twenty = limit === "default" ? ours : await inNamespace("bench-20", (ns) => twentyJobs(ns, args));
    const big = await inNamespace("bench-1k", (ns) => bigPlan(ns, args));
    figures[limit] = {
      twentyJobsSeconds: twenty.seconds,
      twentyJobsRunningSeconds: twenty.runningSeconds,
      bigPlanSeconds: big.seconds,
      bigPlanToFloor: big.seconds / f.seconds,
      callsPerPod: big.callsPerPod,
    };
    console.log(`rate limit ${limit}: 20 jobs x (1 PS + 10 workers), jobs written -> 480 pods and services created: ${twenty.seconds.toFixed(2)} s; every pod Running: ${twenty.runningSeconds.toFixed(2)} s`);
    console.log(
      `rate limit ${limit}: the 1,000-worker job's first plan, job written -> its pods and services created: ${big.seconds.toFixed(2)} s, ${(big.seconds / f.seconds).toFixed(2)}x the floor; ${big.callsPerPod.toFixed(2)} API calls a created pod (${big.calls} for ${big.pods})`,
    );
  }
  const cached = await tenThousandPods();
  for (const [limit, args] of Object.entries(LIMITS)) {
    figures[limit].peakRssMB = await rss(cached.ns, args);
    console.log(`rate limit ${limit}: controller peak RSS with ${cached.pods} pods cached: ${figures[limit].peakRssMB.toFixed(0)} MB`);
  }
  if (process.env.BENCH_JSON) {
    writeFileSync(process.env.BENCH_JSON, JSON.stringify(figures, null, 2));
  }
} finally {
  await Promise.all(cleanups.map((c) => c()));
}
