// What the scenarios of the controller against the real API server share (controller.test.js,
// slowstart.test.js, leader.test.js): `elasticjob controller` as a child process (so SIGKILL and
// leader election are real) with the ServiceAccount of deploy/rbac.yaml (a TokenRequest token),
// so RBAC holds it to what it may do; and what the tests do as admin: users' jobs, DLRover's
// master (the ScalePlans, `scale-type: auto`, the task pods come from, in the exact shape the real
// one, 0.6.1, writes them: dlrover.test.js runs the real one), and the kubelet (pod status).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { container, firstPlanSpec, masterPlan, masterPsHosts, masterResource, psJob } from "./jobs.js";
import * as kubelet from "./kubelet.js";
import { CONTROLLER_SA, adminConfig, applyManifests, collection, eventually, expectStatus, freshNamespace, metricSum, objectPath, request, serviceAccountToken, tokenConfig } from "./kube.js";

export const admin = adminConfig();
export const BIN = fileURLToPath(new URL("../../pkg/bin/elasticjob.js", import.meta.url));
export const MASTER_IMAGE = "registry.example.com/dlrover/master:test";
export const JOB_API = "elastic.iml.github.io/v1alpha1";
export const work = mkdtempSync(join(tmpdir(), "elasticjob-controller-"));
/** The ServiceAccount's token, and a kubeconfig with it (set by the `before` of `useCluster`). */
export let token;
export let kubeconfig;
/** Controller processes still running, and namespaces to delete, at the end. */
export const processes = new Set();
export const cleanups = [];

/** The test file's `before` and `after`: the RBAC and token of the controller; every process and namespace gone at the end. */
export function useCluster() {
  before(async () => {
    await applyManifests(admin, "deploy/rbac.yaml");
    token = await serviceAccountToken(admin, CONTROLLER_SA);
    kubeconfig = writeKubeconfig("controller", tokenConfig(admin, CONTROLLER_SA.name, token));
  });

  after(async () => {
    for (const child of processes) {
      child.kill("SIGKILL");
    }
    await Promise.all(cleanups.map((cleanup) => cleanup()));
    rmSync(work, { recursive: true, force: true });
  });
}

export function writeKubeconfig(name, kc) {
  const path = join(work, `${name}.kubeconfig`);
  writeFileSync(path, kc.exportConfig());
  return path;
}

/** A fresh namespace, deleted at the end. */
export function namespace(prefix) {
  return freshNamespace(admin, { after: (cleanup) => cleanups.push(cleanup) }, prefix);
}

/** Polls until a check holds (kube.js's). */
export { eventually, firstPlanSpec, masterPsHosts, masterResource };

/** `elasticjob controller` as a child process: its JSON log lines, its ports (free ones), its metrics. */
export class Controller {
  constructor(name, args, { kubeconfigPath = kubeconfig } = {}) {
    this.name = name;
    this.lines = [];
    this.waiters = [];
    this.stderr = "";
    this.child = spawn(process.execPath, [BIN, "controller", "--kubeconfig", kubeconfigPath, ...args, "--metrics-port", "0", "--health-port", "0"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    processes.add(this.child);
    this.child.stderr.on("data", (d) => {
      this.stderr += d;
    });
    const lines = createInterface({ input: this.child.stdout });
    // Exited once the process has ended and every line it wrote has been read (the exit event
    // can come before the last lines of its stdout).
    const read = new Promise((resolve) => lines.on("close", resolve));
    this.exited = new Promise((resolve) => {
      this.child.on("exit", (code, signal) => {
        processes.delete(this.child);
        read.then(() => {
          for (const waiter of this.waiters.splice(0)) {
            waiter.fail(`exited (${signal ?? code})`);
          }
          resolve({ code, signal });
        });
      });
    });
    lines.on("line", (text) => {
      let line;
      try {
        line = JSON.parse(text);
      } catch {
        line = { msg: text, notJson: true };
      }
      this.lines.push(line);
      for (const waiter of [...this.waiters]) {
        if (waiter.match(line)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    });
  }

  /** The first log line that matches, seen or to come. */
  line(what, match, seconds = 30) {
    const seen = this.lines.find(match);
    if (seen) {
      return Promise.resolve(seen);
    }
    return new Promise((resolve, reject) => {
      const fail = (why) => {
        clearTimeout(timer);
        reject(new Error(`${this.name}: no log line ${what}: ${why}\nstderr: ${this.stderr}\nlast lines:\n${this.lines.slice(-8).map((l) => JSON.stringify(l)).join("\n")}`));
      };
      const timer = setTimeout(() => fail(`not within ${seconds} s`), seconds * 1000);
      this.waiters.push({
        match,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
        fail,
      });
    });
  }

  /** Resolves once /readyz answers 200 (the caches are filled). */
  async ready() {
    this.ports = await this.line("serving", (l) => l.msg === "serving");
    await eventually(`${this.name} ready`, async () => (await fetch(`http://127.0.0.1:${this.ports.healthPort}/readyz`)).status === 200);
    return this;
  }

  /** The sum of a metric's samples whose labels include `labels`. */
  metric(name, labels = {}) {
    return metricSum(this.ports.metricsPort, name, labels);
  }

  /** Log lines of actions carried out. */
  actions(action) {
    return this.lines.filter((l) => l.action !== undefined && (action === undefined || l.action === action));
  }

  identity() {
    return this.lines.find((l) => l.msg === "starting")?.identity;
  }

  stop(signal = "SIGTERM") {
    this.child.kill(signal);
    return this.exited;
  }
}


// What the test does as admin: users' jobs, DLRover's master (scale plans), the kubelet (pod status).

export const get = async (path, query) => expectStatus(await request(admin, "GET", path, { query }), [200], `GET ${path}`);
export const jobPath = (ns, name) => objectPath({ apiVersion: JOB_API, kind: "ElasticJob", metadata: { name, namespace: ns } });
export const planPath = (ns, name) => objectPath({ apiVersion: JOB_API, kind: "ScalePlan", metadata: { name, namespace: ns } });
export const getJob = (ns, name) => get(jobPath(ns, name));
export const getPlan = (ns, name) => get(planPath(ns, name));

export async function createJob(job) {
  return expectStatus(await request(admin, "POST", collection(JOB_API, "ElasticJob", job.metadata.namespace), { body: job }), [201], `job ${job.metadata.name}`);
}

export async function patchJobSpec(ns, name, spec) {
  return expectStatus(
    await request(admin, "PATCH", jobPath(ns, name), { body: { spec }, contentType: "application/merge-patch+json" }),
    [200],
    `patch job ${name}`,
  );
}

/** The index of each job's next plan, as DLRover's master counts them. */
const planIndex = new Map();

/**
 * A ScalePlan exactly as DLRover's master (0.6.1, `ElasticJobScaler`) writes it: named
 * `<job>-scaleplan-<i>`, its only label `scale-type: auto`, an owner reference of kind `elasticjob`
 * (lower case, no `controller`), and every list of the spec present. `job` is the stored job.
 */
export async function createPlan(job, spec) {
  const key = `${job.metadata.namespace}/${job.metadata.name}`;
  const index = planIndex.get(key) ?? 0;
  planIndex.set(key, index + 1);
  const plan = masterPlan(job, index, spec);
  return expectStatus(await request(admin, "POST", collection(JOB_API, "ScalePlan", plan.metadata.namespace), { body: plan }), [201], `scale plan ${plan.metadata.name}`);
}

/** The pods of a job, by the job-name label. */
export async function podsOf(ns, jobName) {
  return (await get(collection("v1", "Pod", ns), { labelSelector: `elasticjob.dlrover/name=${jobName}` })).items;
}

export async function servicesIn(ns) {
  return (await get(collection("v1", "Service", ns))).items;
}

export const label = (pod, key) => pod.metadata.labels?.[`elasticjob.dlrover/${key}`];
export const isLive = (pod) => ["Pending", "Running"].includes(pod.status?.phase) && !pod.metadata.deletionTimestamp;
export const tfConfigOf = (pod) => pod.spec.containers[0].env?.find((e) => e.name === "TF_CONFIG")?.value;
export const masterName = (jobName) => `elasticjob-${jobName}-dlrover-master`;

/** Waits for the job's master pod and until the cluster runs it, then until the job is Running. */
export async function masterRunning(ns, jobName) {
  const pods = async () => (await podsOf(ns, jobName)).map((p) => `${p.metadata.name} ${p.status?.phase ?? "(no phase)"}${p.metadata.deletionTimestamp ? " (deleting)" : ""}`).join(", ") || "no pod of the job";
  await eventually(`${jobName}: master pod`, async () => (await podsOf(ns, jobName)).find((p) => p.metadata.name === masterName(jobName) && isLive(p)), 30, { saw: pods });
  await kubelet.running(admin, ns, masterName(jobName));
  let job;
  return eventually(
    `${jobName}: job Running`,
    async () => {
      job = await getJob(ns, jobName);
      return job.status?.phase === "Running" && job;
    },
    30,
    { saw: () => `job phase ${job?.status?.phase ?? "(none)"}, conditions ${JSON.stringify(job?.status?.conditions ?? [])}` },
  );
}

/** Waits until the plan has been carried out. */
export function planSucceeded(ns, planName, seconds = 30) {
  let plan;
  return eventually(
    `scale plan ${planName} Succeeded`,
    async () => {
      plan = await getPlan(ns, planName);
      return plan.status?.phase === "Succeeded" && plan;
    },
    seconds,
    { saw: () => `plan status ${JSON.stringify(plan?.status ?? null)}` },
  );
}

export const TEMPLATE = { spec: { restartPolicy: "Never", containers: [container({ cpu: "500m", memory: "1Gi" })] } };

export const newJob = (ns, name, { ps = 1, workers = 2 } = {}) => psJob(ns, name, { ps, workers, task: TEMPLATE.spec.containers[0], worker: { restartPolicy: "ExitCode" } });

