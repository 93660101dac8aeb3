// The scale run (`make bench-cluster`, part of `make bench`): `elasticjob controller` on the test
// cluster (tests/cluster/: the real scheduler and controller manager, KWOK's fake nodes) with
// jobs of 1 PS and 100 workers, first 10 of them (about 1,000 pods), then 100 (about 10,000 pods
// and services), this script playing DLRover's master (each job's first ScalePlan once the job is
// Running, tests/e2e/jobs.js). With KUBEFLOW_OPERATOR and KUBEFLOW_SRC (benches/kubeflow/operator.sh,
// as `make bench-cluster` gives them), Kubeflow's training-operator v1.9.4 then runs the same jobs
// as TFJobs on the same cluster (benches/node/kubeflow.js). For each size and each controller it prints,
// and writes to $BENCH_JSON: the time from the first job written to every pod Running, the
// controller's peak RSS and CPU seconds, and its API calls a pod; then how each grows from 1,000
// to 10,000 pods. Figures only; nothing is asserted. SCALE_JOBS (default 10,100) and
// SCALE_WORKERS (100) change the sizes; SCALE_LOG=FILE keeps our controller's log lines.
//
//   cluster run --nodes 50 --node-cpu 256 --node-memory 1Ti --node-pods 300 -- node benches/node/cluster.js
import { spawn } from "node:child_process";
import { createWriteStream, readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { adminConfig, collection, deleteNamespace, eventually, expectStatus, freshNamespace, metricSum, request } from "../../tests/e2e/kube.js";
import { container, masterPlan, psJob } from "../../tests/e2e/jobs.js";
import { kubeflowApiCalls, kubeflowFromEnv, startKubeflow, tfJob } from "./kubeflow.js";
import { watchObjects } from "./watch.js";

const BIN = fileURLToPath(new URL("../../pkg/bin/elasticjob.js", import.meta.url));
const JOB_API = "elastic.iml.github.io/v1alpha1";
const WORKERS = Number(process.env.SCALE_WORKERS ?? 100);
const SIZES = (process.env.SCALE_JOBS ?? "10,100").split(",").map(Number);
/** Jobs and plans written at once. */
const WRITERS = 20;
const admin = adminConfig();

const TASK = container({ cpu: "1", memory: "1Gi" });

/** Runs `work` over `items`, `n` at a time. */
async function pool(items, n, work) {
  const queue = [...items];
  await Promise.all(Array.from({ length: n }, async () => {
    while (queue.length) {
      await work(queue.shift());
    }
  }));
}

/** The controller as a child process, with the admin kubeconfig; its ports from its "serving" line. */
async function startController(ns) {
  const child = spawn(process.execPath, [BIN, "controller", "--kubeconfig", process.env.KUBECONFIG, "--namespace", ns, "--metrics-port", "0", "--health-port", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const ports = await new Promise((resolve, reject) => {
    child.on("exit", (code) => reject(new Error(`the controller exited (${code})`)));
    const log = process.env.SCALE_LOG ? createWriteStream(process.env.SCALE_LOG) : undefined;
    createInterface({ input: child.stdout }).on("line", (text) => {
      log?.write(`${text}\n`);
      try {
        const line = JSON.parse(text);
        if (line.msg === "serving") {
          resolve(line);
        }
      } catch {
        // not JSON
      }
    });
  });
  await eventually("controller ready", async () => (await fetch(`http://127.0.0.1:${ports.healthPort}/readyz`)).status === 200);
  return { child, ports, exited: new Promise((resolve) => child.on("exit", resolve)) };
}

/** Peak RSS (VmHWM, bytes) and CPU seconds (user + system) of a process, from /proc. */
function usage(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const hwm = Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)[1]) * 1024;
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime, fields 14 and 15 of stat (11 and 12 after the command), in clock ticks of 1/100 s.
  return { peakRss: hwm, cpuSeconds: (Number(fields[11]) + Number(fields[12])) / 100 };
}

/** Counts the namespace's pods by phase, from a watch (watch.js). */
async function watchPods(ns) {
  const { objects, stop } = await watchObjects(admin, ns, "Pod");
  return {
    running: () => [...objects.values()].filter((p) => p.phase === "Running").length,
    total: () => objects.size,
    stop,
  };
}

/**
 * Waits until `expected` pods of the namespace run, calling `step` (the master's part) every half
 * second; prints progress every 10 s. Resolves to the seconds since `started`.
 */
async function allRunning(pods, expected, started, step = async () => "") {
  let last = 0;
  for (;;) {
    const said = await step();
    const running = pods.running();
    if (running >= expected) {
      return (Date.now() - started) / 1000;
    }
    if (Date.now() - last > 10000) {
      last = Date.now();
      process.stderr.write(`  ${((Date.now() - started) / 1000).toFixed(0)} s: ${said}${running} of ${expected} pods Running (${pods.total()} made)\n`);
    }
    if (Date.now() - started > 30 * 60 * 1000) {
      throw new Error(`not all Running in 30 min: ${running} of ${expected}`);
    }
    await sleep(500);
  }
}

/** Deletes the namespace (the namespace controller deletes every pod) and waits until it is gone. */
async function empty(ns) {
  process.stderr.write(`  namespace ${ns} deleted in ${(await deleteNamespace(admin, ns)).toFixed(1)} s\n`);
}

const names = (jobs) => Array.from({ length: jobs }, (_, i) => `scale-${String(i).padStart(3, "0")}`);

function report(who, { jobs, pods, seconds, peakRssMB, cpuSeconds, apiCalls, apiCallsPerPod }) {
  console.log(
    `${who}: ${jobs} jobs, ${pods} pods: all Running ${seconds.toFixed(1)} s after the first job was written; peak RSS ${peakRssMB.toFixed(0)} MB, ${cpuSeconds.toFixed(1)} s of CPU; ${apiCalls} API calls, ${apiCallsPerPod.toFixed(2)} a pod`,
  );
}

/** Ours: the jobs, their masters (the controller's), and each master's empty plan once its job runs. */
async function run(jobs) {
  const ns = await freshNamespace(admin, { after: () => {} }, `scale-${jobs}`);
  const controller = await startController(ns);
  const pods = await watchPods(ns);
  const expected = jobs * (WORKERS + 2);
  const stored = new Map();
  const planned = new Set();
  const started = Date.now();
  await pool(names(jobs), WRITERS, async (name) => {
    const body = psJob(ns, name, { workers: WORKERS, task: TASK });
    stored.set(name, expectStatus(await request(admin, "POST", collection(JOB_API, "ElasticJob", ns), { body }), [201], `job ${name}`));
  });
  // The master: its empty plan once the job is Running (its master pod runs); the pods are the job's
  // first plan already (DistributedJobManager.start, PSTrainingAutoScaler.monitor_pending_node_at_begining).
  const seconds = await allRunning(pods, expected, started, async () => {
    const list = expectStatus(await request(admin, "GET", collection(JOB_API, "ElasticJob", ns)), [200], "jobs").items;
    const ready = list.filter((j) => j.status?.phase === "Running" && !planned.has(j.metadata.name));
    for (const j of ready) {
      planned.add(j.metadata.name);
    }
    await pool(ready, WRITERS, async (j) => {
      const plan = masterPlan(stored.get(j.metadata.name), 0, {});
      expectStatus(await request(admin, "POST", collection(JOB_API, "ScalePlan", ns), { body: plan }), [201], `plan ${plan.metadata.name}`);
    });
    return `${planned.size} of ${jobs} plans written, `;
  });
  const calls = await metricSum(controller.ports.metricsPort, "elasticjob_controller_api_requests_total");
  const { peakRss, cpuSeconds } = usage(controller.child.pid);
  pods.stop();
  controller.child.kill("SIGTERM");
  await controller.exited;
  const result = { jobs, pods: expected, seconds, peakRssMB: peakRss / 1e6, cpuSeconds, apiCalls: calls, apiCallsPerPod: calls / expected };
  report("elasticjob controller", result);
  await empty(ns);
  return result;
}

/** Kubeflow's operator on the same jobs as TFJobs (1 PS + the workers each, no master). */
async function runKubeflow(kubeflow, jobs) {
  const ns = await freshNamespace(admin, { after: () => {} }, `scale-kf-${jobs}`);
  const operator = await startKubeflow(kubeflow, ns);
  const pods = await watchPods(ns);
  const expected = jobs * (WORKERS + 1);
  const started = Date.now();
  try {
    await pool(names(jobs), WRITERS, async (name) => {
      const body = tfJob(ns, name, { ps: 1, workers: WORKERS, container: TASK });
      expectStatus(await request(admin, "POST", `/apis/kubeflow.org/v1/namespaces/${ns}/tfjobs`, { body }), [201], `TFJob ${name}`);
    });
    const seconds = await allRunning(pods, expected, started);
    const calls = await kubeflowApiCalls(operator);
    const { peakRss, cpuSeconds } = usage(operator.child.pid);
    const result = { jobs, pods: expected, seconds, peakRssMB: peakRss / 1e6, cpuSeconds, apiCalls: calls, apiCallsPerPod: calls / expected };
    report("Kubeflow training-operator v1.9.4", result);
    return result;
  } finally {
    pods.stop();
    await operator.stop();
    await empty(ns);
  }
}

function growth(label, [a, b]) {
  const x = (k) => (b[k] / a[k]).toFixed(1);
  console.log(`${label}, from ${a.pods} to ${b.pods} pods (x${(b.pods / a.pods).toFixed(1)}): time x${x("seconds")}, peak RSS x${x("peakRssMB")}, CPU x${x("cpuSeconds")}, API calls a pod x${x("apiCallsPerPod")}`);
}

const kubeflow = kubeflowFromEnv();
const results = [];
const peers = [];
for (const jobs of SIZES) {
  process.stderr.write(`scale run: ${jobs} jobs x (1 PS + ${WORKERS} workers) and their masters\n`);
  results.push(await run(jobs));
  if (kubeflow) {
    process.stderr.write(`scale run, Kubeflow's operator: ${jobs} TFJobs x (1 PS + ${WORKERS} workers)\n`);
    peers.push(await runKubeflow(kubeflow, jobs));
  }
}
if (results.length === 2) {
  growth("elasticjob controller", results);
  if (peers.length === 2) {
    growth("Kubeflow's operator", peers);
  }
}
if (process.env.BENCH_JSON) {
  writeFileSync(process.env.BENCH_JSON, JSON.stringify({ workers: WORKERS, runs: results, kubeflow: peers }, null, 2));
}
