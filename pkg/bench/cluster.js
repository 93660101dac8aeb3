// The scale run (`make bench-cluster`, part of `make bench`): `elasticjob controller` on the test
// cluster (tests/cluster/: the real scheduler and controller manager, KWOK's fake nodes) with
// jobs of 1 PS and 100 workers, first 10 of them (about 1,000 pods), then 100 (about 10,000 pods
// and services), this script playing DLRover's master (each job's first ScalePlan once the job is
// Running). For each size it prints, and writes to $BENCH_JSON: the time from the first job
// written to every pod Running, the controller's peak RSS and CPU seconds, and its API calls a
// pod. Figures only; nothing is asserted.
//
//   cluster run --nodes 50 --node-cpu 256 --node-memory 1Ti --node-pods 300 -- node bench/cluster.js
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import * as k8s from "@kubernetes/client-node";
import * as api from "elasticjob";
import { adminConfig, collection, eventually, expectStatus, freshNamespace, request } from "../test/cluster/kube.js";

const BIN = fileURLToPath(new URL("../bin/elasticjob.js", import.meta.url));
const JOB_API = "elastic.iml.github.io/v1alpha1";
const WORKERS = Number(process.env.SCALE_WORKERS ?? 100);
const SIZES = (process.env.SCALE_JOBS ?? "10,100").split(",").map(Number);
/** Jobs and plans written at once. */
const WRITERS = 20;
const admin = adminConfig();

const TEMPLATE = {
  spec: {
    restartPolicy: "Never",
    containers: [{ name: "main", image: "tf:2", command: ["python", "-m", "deepctr.train"], resources: { requests: { cpu: "1", memory: "1Gi" } } }],
  },
};

function newJob(ns, name) {
  return {
    apiVersion: JOB_API,
    kind: "ElasticJob",
    metadata: { name, namespace: ns },
    spec: {
      distributionStrategy: "ParameterServerStrategy",
      replicaSpecs: { ps: { replicas: 1, restartCount: 2, template: TEMPLATE }, worker: { replicas: WORKERS, restartCount: 2, template: TEMPLATE } },
    },
  };
}

/** The master's first plan, in DLRover 0.6.1's shape. */
function firstPlan(ns, job) {
  return {
    apiVersion: JOB_API,
    kind: "ScalePlan",
    metadata: {
      name: `${job.metadata.name}-scaleplan-0`,
      namespace: ns,
      labels: { "scale-type": "auto" },
      ownerReferences: [{ apiVersion: JOB_API, kind: "elasticjob", name: job.metadata.name, uid: job.metadata.uid, blockOwnerDeletion: true }],
    },
    spec: { ownerJob: job.metadata.name, replicaResourceSpecs: api.initialScalePlan(job).spec.replicaResourceSpecs, createPods: [], removePods: [], psHosts: [`${job.metadata.name}-edljob-ps-0.${ns}.svc:2222`] },
  };
}

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
    createInterface({ input: child.stdout }).on("line", (text) => {
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

/** A metric's sum over its samples. */
async function metric(ports, name) {
  const text = await (await fetch(`http://127.0.0.1:${ports.metricsPort}/metrics`)).text();
  let sum = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) {
      sum += Number(line.slice(line.lastIndexOf(" ") + 1));
    }
  }
  return sum;
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

/** Counts the namespace's pods by phase from a watch. */
async function watchPods(ns) {
  const phases = new Map();
  const req = await new k8s.Watch(admin).watch(
    `/api/v1/namespaces/${ns}/pods`,
    {},
    (type, pod) => {
      if (type === "DELETED") {
        phases.delete(pod.metadata.uid);
      } else {
        phases.set(pod.metadata.uid, pod.status?.phase);
      }
    },
    () => {},
  );
  return {
    running: () => [...phases.values()].filter((p) => p === "Running").length,
    total: () => phases.size,
    stop: () => req.abort(),
  };
}

async function run(jobs) {
  const ns = await freshNamespace(admin, { after: () => {} }, `scale-${jobs}`);
  const controller = await startController(ns);
  process.stderr.write("  controller ready\n");
  const pods = await watchPods(ns);
  process.stderr.write("  watching pods\n");
  const names = Array.from({ length: jobs }, (_, i) => `scale-${String(i).padStart(3, "0")}`);
  const expected = jobs * (WORKERS + 2);
  const stored = new Map();
  const planned = new Set();
  const started = Date.now();
  await pool(names, WRITERS, async (name) => {
    const body = newJob(ns, name);
    stored.set(name, expectStatus(await request(admin, "POST", collection(JOB_API, "ElasticJob", ns), { body }), [201], `job ${name}`));
  });
  // The master: each job's first plan once the job is Running (its master pod runs).
  let last = 0;
  for (;;) {
    const list = expectStatus(await request(admin, "GET", collection(JOB_API, "ElasticJob", ns)), [200], "jobs").items;
    const ready = list.filter((j) => j.status?.phase === "Running" && !planned.has(j.metadata.name));
    for (const j of ready) {
      planned.add(j.metadata.name);
    }
    await pool(ready, WRITERS, async (j) => {
      const plan = firstPlan(ns, stored.get(j.metadata.name));
      expectStatus(await request(admin, "POST", collection(JOB_API, "ScalePlan", ns), { body: plan }), [201], `plan ${plan.metadata.name}`);
    });
    const running = pods.running();
    if (running >= expected) {
      break;
    }
    if (Date.now() - last > 10000) {
      last = Date.now();
      process.stderr.write(`  ${((Date.now() - started) / 1000).toFixed(0)} s: ${planned.size} of ${jobs} plans written, ${running} of ${expected} pods Running (${pods.total()} made)\n`);
    }
    if (Date.now() - started > 30 * 60 * 1000) {
      throw new Error(`not all Running in 30 min: ${running} of ${expected}`);
    }
    await sleep(500);
  }
  const seconds = (Date.now() - started) / 1000;
  const calls = await metric(controller.ports, "elasticjob_controller_api_requests_total");
  const { peakRss, cpuSeconds } = usage(controller.child.pid);
  pods.stop();
  controller.child.kill("SIGTERM");
  await controller.exited;
  const result = { jobs, pods: expected, seconds, peakRssMB: peakRss / 1e6, cpuSeconds, apiCalls: calls, apiCallsPerPod: calls / expected };
  console.log(
    `${jobs} jobs, ${expected} pods: all Running ${seconds.toFixed(1)} s after the first job was written; controller peak RSS ${result.peakRssMB.toFixed(0)} MB, ${cpuSeconds.toFixed(1)} s of CPU; ${calls} API calls, ${result.apiCallsPerPod.toFixed(2)} a pod`,
  );
  // Empty the namespace before the next size (the namespace controller deletes every pod).
  expectStatus(await request(admin, "DELETE", `/api/v1/namespaces/${ns}`), [200], `delete ${ns}`);
  const deleting = Date.now();
  await eventually(`namespace ${ns} gone`, async () => (await request(admin, "GET", `/api/v1/namespaces/${ns}`)).status === 404, 900);
  process.stderr.write(`  namespace ${ns} deleted in ${((Date.now() - deleting) / 1000).toFixed(1)} s\n`);
  return result;
}

const results = [];
for (const jobs of SIZES) {
  process.stderr.write(`scale run: ${jobs} jobs x (1 PS + ${WORKERS} workers) and their masters\n`);
  results.push(await run(jobs));
}
if (results.length === 2) {
  const [a, b] = results;
  const x = (k) => (b[k] / a[k]).toFixed(1);
  console.log(`from ${a.pods} to ${b.pods} pods (x${(b.pods / a.pods).toFixed(1)}): time x${x("seconds")}, peak RSS x${x("peakRssMB")}, CPU x${x("cpuSeconds")}, API calls a pod x${x("apiCallsPerPod")}`);
}
if (process.env.BENCH_JSON) {
  writeFileSync(process.env.BENCH_JSON, JSON.stringify({ workers: WORKERS, runs: results }, null, 2));
}
