// `make bench-controller` (part of `make bench`, never of `make test`): `elasticjob controller`
// against the test cluster of tests/cluster (its real API server, scheduler and KWOK's fake nodes;
// run inside `cluster run`), as a child process with
// the admin kubeconfig, each figure at the default client rate limit and with it off
// (`--kube-api-qps 0`). Prints figures; asserts nothing. With BENCH_JSON=FILE the figures are also
// written to FILE.
// - 20 jobs x (1 PS + 10 workers): from the jobs written to every pod and service created and to
//   every pod Running, the cluster's fake nodes (KWOK) running the pods and the bench playing
//   DLRover's master (each job's first plan, in the real master's shape, once the job is Running:
//   the pods are made with the job, so it changes nothing), as the cluster tests do; beside a bare
//   client making the same objects (the cluster's own time for them);
// - the 1,000-worker job's first plan (made with the job, its master last): from the job written to
//   every pod and service created (the controller's log lines), beside a bare client creating the
//   same task objects (the core's render) with 32 calls at once and no limit: the API server's own
//   time, the floor;
// - API calls per created pod (the controller's request counter over the 1,000-worker job);
// - the controller's peak RSS (VmHWM) with 10,000 pods of jobs in its caches;
// - with KUBEFLOW_OPERATOR=BIN and KUBEFLOW_SRC=DIR (benches/kubeflow/operator.sh builds them, as
//   `make bench-controller` does): Kubeflow training-operator v1.9.4 on the same cluster, the same
//   20 jobs written as TFJobs (`--controller-threads=4 --kube-api-qps=1000`, benches/node/kubeflow.js), from
//   the TFJobs written to every pod and service created.
// The 20 jobs run BENCH_RUNS times (default 3), ours and Kubeflow's in turn; the figures are the
// medians. BENCH_ONLY=twenty runs only ours (BENCH_ARGS: more controller flags), BENCH_ONLY=race ours
// and Kubeflow's, each run printed; BENCH_LOG=FILE keeps the 20-job run's controller log, and
// BENCH_TRACE=FILE the bench's times of each job (written, seen Running, its plan written);
// BENCH_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=DIR`) go to the controller's node.
// Usage (inside `cluster run`): node benches/node/controller.js
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import * as api from "elasticjob";
import { adminConfig, collection, deleteNamespace, eventually, expectStatus, freshNamespace, metricSum, request } from "../../tests/e2e/kube.js";
import { container, firstPlan, psJob } from "../../tests/e2e/jobs.js";
import { kubeflowFromEnv, startKubeflow, tfJob } from "./kubeflow.js";

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
const createPlan = (ns, job) => ok(request(admin, "POST", collection(JOB_API, "ScalePlan", ns), { body: firstPlan(job) }), [201], "plan");
const list = async (apiVersion, kind, ns) => (await ok(request(admin, "GET", collection(apiVersion, kind, ns)), [200], "list")).items;

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

/** Whether `pods` are `count` pods, every one Running (the fake nodes run a pod once it is bound). */
const allRunning = (pods, count) => pods.length === count && pods.every((p) => p.status?.phase === "Running");

/** 20 jobs of 1 PS + 10 workers: jobs written -> every pod and service created, every pod Running. */
async function twentyJobs(ns, args) {
  const JOBS = 20;
  const WORKERS = 10;
  const controller = new Controller(ns, args);
  await controller.ready();
  const names = Array.from({ length: JOBS }, (_, i) => `job-${i}`);
  const started = Date.now();
  // The bench's own times of each job (BENCH_TRACE): written, seen Running, its plan written.
  const trace = Object.fromEntries(names.map((n) => [n, {}]));
  const jobs = new Map(
    await Promise.all(
      names.map(async (n) => {
        const job = await createJob(newJob(ns, n, WORKERS));
        trace[n].written = Date.now();
        return [n, job];
      }),
    ),
  );
  const planned = new Set();
  await until(async () => {
    const all = await list(JOB_API, "ElasticJob", ns);
    const ready = all.filter((j) => j.status?.phase === "Running" && !planned.has(j.metadata.name));
    const seen = Date.now();
    await Promise.all(
      ready.map(async (j) => {
        planned.add(j.metadata.name);
        trace[j.metadata.name].running = seen;
        await createPlan(ns, jobs.get(j.metadata.name));
        trace[j.metadata.name].planned = Date.now();
      }),
    );
    const [pods, services] = await Promise.all([list("v1", "Pod", ns), list("v1", "Service", ns)]);
    return allRunning(pods, JOBS * (WORKERS + 2)) && services.length === JOBS * (WORKERS + 2);
  });
  const runningSeconds = (Date.now() - started) / 1000;
  await sleep(300);
  if (process.env.BENCH_LOG) {
    writeFileSync(process.env.BENCH_LOG, controller.lines.map((l) => JSON.stringify(l)).join("\n"));
  }
  if (process.env.BENCH_TRACE) {
    writeFileSync(process.env.BENCH_TRACE, JSON.stringify({ started, jobs: trace }));
  }
  const seconds = (controller.lastCreate() - started) / 1000;
  await controller.stop();
  return { seconds, runningSeconds, objects: JOBS * (WORKERS + 2) * 2 };
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
  const written = Date.now();
  await createJob(newJob(ns, "big", WORKERS));
  // Its PS, a chief made of one worker, 999 workers and the master, each with its service.
  const objects = 2 * (WORKERS + 2);
  await until(async () => (await list("v1", "Pod", ns)).length + (await list("v1", "Service", ns)).length === objects);
  await sleep(500);
  const seconds = (controller.lastCreate() - written) / 1000;
  const calls = (await controller.metric("elasticjob_controller_api_requests_total")) - callsBefore;
  const pods = (await list("v1", "Pod", ns)).length;
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
 * The floor of the 20 jobs: their task pods and services (the core's render of each job's first
 * plan, 440 objects) and their masters' (40), made by a bare client 8 at once, to every pod
 * Running; with `headless`, each service `clusterIP: None` as Kubeflow's are (no cluster IP to
 * allocate), to tell what the objects themselves cost the cluster.
 */
async function twentyFloor(ns, headless) {
  const items = [];
  for (let j = 0; j < 20; j += 1) {
    const job = newJob(ns, `job-${j}`, 10);
    for (const obj of api.render(job, api.initialScalePlan(job)).items.filter((o) => o.kind === "Pod" || o.kind === "Service")) {
      items.push(headless && obj.kind === "Service" ? { ...obj, spec: { ...obj.spec, type: "ClusterIP", clusterIP: "None" } } : obj);
    }
  }
  const started = Date.now();
  await createAll(ns, items, 8);
  const created = (Date.now() - started) / 1000;
  await until(async () => allRunning(await list("v1", "Pod", ns), items.filter((o) => o.kind === "Pod").length));
  return { seconds: created, runningSeconds: (Date.now() - started) / 1000, objects: items.length };
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
    const started = Date.now();
    await Promise.all(
      Array.from({ length: JOBS }, (_, i) => {
        const body = tfJob(ns, `job-${i}`, { ps: 1, workers: WORKERS, container: TASK });
        return ok(request(admin, "POST", `/apis/kubeflow.org/v1/namespaces/${ns}/tfjobs`, { body }), [201], "TFJob");
      }),
    );
    let seconds;
    await until(async () => {
      const [pods, services] = await Promise.all([list("v1", "Pod", ns), list("v1", "Service", ns)]);
      if (pods.length === JOBS * (WORKERS + 1) && services.length === JOBS * (WORKERS + 1)) {
        seconds ??= (Date.now() - started) / 1000;
      }
      return seconds !== undefined && allRunning(pods, JOBS * (WORKERS + 1));
    });
    return { seconds, runningSeconds: (Date.now() - started) / 1000, objects: JOBS * (WORKERS + 1) * 2 };
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
      console.log(`20 jobs x (1 PS + 10 workers) ${extra.join(" ")}: jobs written -> ${ours.objects} pods and services created: ${ours.seconds.toFixed(2)} s; every pod Running: ${ours.runningSeconds.toFixed(2)} s`);
      if (kubeflow) {
        const kf = await inNamespace("bench-kf", (ns) => kubeflowTwentyJobs(ns, kubeflow));
        console.log(`Kubeflow training-operator v1.9.4, the same as TFJobs: written -> ${kf.objects} pods and services created: ${kf.seconds.toFixed(2)} s; every pod Running: ${kf.runningSeconds.toFixed(2)} s`);
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
    if (kubeflow) {
      race.kubeflow.push(await inNamespace("bench-kf", (ns) => kubeflowTwentyJobs(ns, kubeflow)));
    }
  }
  for (const headless of [false, true]) {
    const floor20 = await inNamespace("bench-20-floor", (ns) => twentyFloor(ns, headless));
    figures[headless ? "twentyFloorHeadless" : "twentyFloor"] = floor20;
    console.log(`bare client, the 20 jobs' ${floor20.objects} pods and services${headless ? " (services headless)" : ""}, 8 at once: created ${floor20.seconds.toFixed(2)} s; every pod Running ${floor20.runningSeconds.toFixed(2)} s`);
  }
  const median = (xs) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)];
  const side = (rs) => rs.length && { seconds: median(rs.map((r) => r.seconds)), runningSeconds: median(rs.map((r) => r.runningSeconds)), runs: rs.length };
  const ours = side(race.ours);
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
