// DLRover's real job master (the `dlrover` package, 0.6.1, from PyPI) drives `elasticjob controller`
// on the real API server of the test cluster. The controller makes the job's master pod; the test
// runs that pod's own command line as a local process (the master reaches the API server through a
// kubeconfig when KUBERNETES_SERVICE_* are unset). The cluster's scheduler and KWOK's nodes run
// the pods (nodeName, hostIP, podIP, container state); the test only says how a container ends. Everything the
// master writes (its ScalePlans, its service) and reads (the pods' labels and requests) is the real
// thing. Needs DLROVER_PYTHON: the python of a venv with `dlrover[k8s]==0.6.1` (`make test-cluster`
// installs it).
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import * as api from "elasticjob";
import { collection, expectStatus, objectPath, request } from "./kube.js";
import * as kubelet from "./kubelet.js";
import { Controller, admin, eventually, namespace, useCluster } from "./scenario.js";

const PYTHON = process.env.DLROVER_PYTHON;
const WRAPPER = fileURLToPath(new URL("./dlrover_master.py", import.meta.url));
const JOB_API = "elastic.iml.github.io/v1alpha1";
const JOB = "ranking";
const WORKERS = 3;
const work = mkdtempSync(join(tmpdir(), "elasticjob-dlrover-"));
const children = new Set();

useCluster();
after(() => {
  for (const child of children) {
    child.kill("SIGKILL");
  }
  rmSync(work, { recursive: true, force: true });
});

const get = async (path, query) => expectStatus(await request(admin, "GET", path, { query }), [200], `GET ${path}`);
const label = (pod, key) => pod.metadata.labels?.[`elasticjob.dlrover/${key}`];
const isLive = (pod) => ["Pending", "Running"].includes(pod.status?.phase) && !pod.metadata.deletionTimestamp;
const tfConfigOf = (pod) => pod.spec.containers[0].env?.find((e) => e.name === "TF_CONFIG")?.value;
const masterName = `elasticjob-${JOB}-dlrover-master`;

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** DLRover's master as a local process: its log lines, and the lines to come. */
class Master {
  constructor(argv, env) {
    this.lines = [];
    this.child = spawn(PYTHON, [WRAPPER, ...argv], { cwd: work, env, stdio: ["ignore", "pipe", "pipe"] });
    children.add(this.child);
    for (const stream of [this.child.stdout, this.child.stderr]) {
      createInterface({ input: stream }).on("line", (line) => this.lines.push(line));
    }
    this.exited = new Promise((resolve) => this.child.on("exit", (code, signal) => resolve({ code, signal })));
    this.exited.then(() => children.delete(this.child));
  }

  has(pattern) {
    return this.lines.some((l) => pattern.test(l));
  }

  tail(n = 20) {
    return this.lines.slice(-n).join("\n");
  }
}

describe("DLRover's real master (dlrover 0.6.1, ScalePlan mode) drives the controller", { skip: !PYTHON && "DLROVER_PYTHON is not set" }, () => {
  let ns;
  let controller;
  let master;
  let job;
  let firstPlan;
  let masterPort;
  /** Every sample of the live pods: no type and rank may be held twice. */
  const samples = [];
  let sampling;

  const podsOf = async () => (await get(collection("v1", "Pod", ns), { labelSelector: `elasticjob.dlrover/name=${JOB}` })).items;
  const plans = async () => (await get(collection(JOB_API, "ScalePlan", ns))).items.sort((a, b) => Number(a.metadata.name.split("-").pop()) - Number(b.metadata.name.split("-").pop()));
  const getJob = () => get(objectPath({ apiVersion: JOB_API, kind: "ElasticJob", metadata: { name: JOB, namespace: ns } }));
  const services = async () => (await get(collection("v1", "Service", ns))).items;
  const tasks = (pods) => pods.filter((p) => label(p, "replica-type") !== "dlrover-master");
  const step = (t, what) => t.diagnostic(`${new Date().toISOString()} ${what}`);

  before(async () => {
    ns = await namespace("dlrover");
    controller = new Controller("dlrover", ["--namespace", ns]);
    await controller.ready();
    sampling = setInterval(async () => {
      try {
        const live = tasks(await podsOf()).filter(isLive);
        samples.push(live.map((p) => `${label(p, "replica-type")}-${label(p, "rank-index")}`));
      } catch {
        // The namespace is going away at the end.
      }
    }, 100);
  });

  after(async () => {
    clearInterval(sampling);
    if (controller) {
      assert.equal((await controller.stop()).code, 0);
    }
  });

  it("the controller makes the job's task pods, then its master pod, which runs the master in ScalePlan mode", async (t) => {
    const spec = (replicas) => ({
      replicas,
      restartCount: 3,
      template: { spec: { restartPolicy: "Never", containers: [{ name: "main", image: "tf:2", command: ["python", "-m", "deepctr.train"], resources: { requests: { cpu: "1", memory: "1Gi" } } }] } },
    });
    job = expectStatus(
      await request(admin, "POST", collection(JOB_API, "ElasticJob", ns), {
        body: { apiVersion: JOB_API, kind: "ElasticJob", metadata: { name: JOB, namespace: ns }, spec: { distributionStrategy: "ParameterServerStrategy", replicaSpecs: { ps: spec(1), worker: spec(WORKERS) } } },
      }),
      [201],
      "the job",
    );
    const pod = await eventually("the master pod", async () => (await podsOf()).find((p) => p.metadata.name === masterName));
    // Made after every task pod of the first plan: the master finds them all at its start.
    const made = (p) => Date.parse(p.metadata.creationTimestamp);
    const early = tasks(await podsOf());
    step(t, `task pods made before the master: ${early.map((p) => p.metadata.name).join(", ")}`);
    assert.equal(early.length, 1 + WORKERS, "the first plan's pods: 1 PS, a chief and the other workers");
    assert.ok(early.every((p) => made(p) <= made(pod)), "each task pod made no later than the master");
    const command = pod.spec.containers[0].command;
    step(t, `master pod ${pod.metadata.name}: ${command.join(" ")}`);
    assert.deepEqual(command.slice(0, 3), ["python", "-m", "dlrover.python.master.main"]);
    assert.deepEqual(command.slice(3, 9), ["--platform", "k8s", "--namespace", ns, "--job_name", JOB]);
    // Its own command line, on a free port (50001 may be taken on this machine).
    masterPort = await freePort();
    const argv = command.slice(3);
    argv[argv.indexOf("--port") + 1] = String(masterPort);
    const kubeconfig = join(work, "master.kubeconfig");
    writeFileSync(kubeconfig, admin.exportConfig());
    const env = { ...process.env, KUBECONFIG: kubeconfig, PYTHONUNBUFFERED: "1" };
    delete env.KUBERNETES_SERVICE_HOST;
    delete env.KUBERNETES_SERVICE_PORT;
    master = new Master(argv, env);
    await kubelet.running(admin, ns, pod.metadata.name);
    step(t, `the master runs as pid ${master.child.pid} on port ${masterPort}; its pod is Running`);
  });

  it("the master takes them as its own: it writes no first plan (DistributedJobManager.start, _has_running_workers)", async (t) => {
    await eventually("the master's start", () => master.has(/The (recovered|newly) master/), 60).catch((e) => assert.fail(`${e.message}\nthe master's log:\n${master.tail()}`));
    assert.ok(master.has(/The recovered master skips launching workers at beginning/), `the master found the task pods:\n${master.tail()}`);
    // Its empty plans (written every 60 s until its autoscaler starts) change nothing and are done at once.
    for (const plan of await plans()) {
      assert.deepEqual([Object.keys(plan.spec.replicaResourceSpecs ?? {}).length, (plan.spec.createPods ?? []).length], [0, 0], `${plan.metadata.name} plans nothing`);
      await eventually(`empty plan ${plan.metadata.name} done`, async () => (await get(objectPath(plan))).status?.phase === "Succeeded");
    }
  });

  it("the live task pods are exactly the first plan the master's own code computes: the labels it reads, TF_CONFIGs listing its psHosts", async (t) => {
    // The plan the master would have written, from its own code on the stored job (master_first_plan.py).
    const stored = await getJob();
    const file = join(work, `${JOB}.json`);
    writeFileSync(file, JSON.stringify(stored));
    const out = execFileSync(PYTHON, [fileURLToPath(new URL("./master_first_plan.py", import.meta.url)), file], { encoding: "utf8", timeout: 120_000 });
    firstPlan = { apiVersion: JOB_API, kind: "ScalePlan", metadata: { name: `${JOB}-scaleplan-0`, namespace: ns }, spec: JSON.parse(out)[JOB] };
    step(t, `the master's first plan: ${JSON.stringify(firstPlan.spec)}`);
    const counts = Object.fromEntries(Object.entries(firstPlan.spec.replicaResourceSpecs).map(([type, s]) => [type, s.replicas]));
    assert.deepEqual(counts, { chief: 1, ps: 1, worker: WORKERS - 1 });
    assert.deepEqual(firstPlan.spec.psHosts, [`${JOB}-edljob-ps-0.${ns}.svc:2222`]);
    const live = tasks(await podsOf()).filter(isLive);
    step(t, `task pods: ${live.map((p) => p.metadata.name).join(", ")}`);
    assert.deepEqual(live.map((p) => `${label(p, "replica-type")}-${label(p, "rank-index")}`).sort(), ["chief-0", "ps-0", ...Array.from({ length: WORKERS - 1 }, (_, r) => `worker-${r}`)].sort());
    const names = new Map((await services()).map((s) => [s.metadata.name, s]));
    for (const pod of live) {
      for (const key of ["replica-type", "replica-index", "rank-index", "relaunch-count"]) {
        assert.ok(label(pod, key) !== undefined, `${pod.metadata.name} has elasticjob.dlrover/${key}`);
      }
      assert.equal(label(pod, "relaunch-count"), "0", `${pod.metadata.name}: a first launch`);
      assert.equal(label(pod, "replica-index"), label(pod, "rank-index"), `${pod.metadata.name}: the id the master gives a first launch`);
      const { requests } = pod.spec.containers[0].resources;
      const planned = firstPlan.spec.replicaResourceSpecs[label(pod, "replica-type")].resource;
      assert.deepEqual({ cpu: Number(requests.cpu), memory: requests.memory }, { cpu: Number(planned.cpu), memory: planned.memory === "1024Mi" ? "1Gi" : planned.memory });
      assert.deepEqual(JSON.parse(tfConfigOf(pod)).cluster.ps, firstPlan.spec.psHosts, `${pod.metadata.name} lists the plan's psHosts`);
      assert.equal(tfConfigOf(pod), api.tfConfig(stored, label(pod, "replica-type"), Number(label(pod, "rank-index")), firstPlan), pod.metadata.name);
    }
    for (const host of firstPlan.spec.psHosts) {
      const [name, port] = [host.split(".")[0], Number(host.split(":").pop())];
      assert.ok(names.get(name)?.spec.ports.some((p) => p.port === port), `psHosts ${host} names service ${name} on port ${port}`);
    }
  });

  it("the pods Running (on KWOK's nodes): the master sees each go to Running, and the job is Running", async (t) => {
    for (const pod of tasks(await podsOf())) {
      await kubelet.running(admin, ns, pod.metadata.name);
    }
    // The master takes each pod's phase from its pod watch, and from a list every 60 s: an update
    // its watch misses comes with that list. A pod KWOK runs within milliseconds may be Running the
    // first time the master sees it (`Initial to Running`), else it logs `Pending to Running`.
    for (const pod of tasks(await podsOf())) {
      await eventually(`the master's log: ${pod.metadata.name} to Running`, () => master.has(new RegExp(`${pod.metadata.name} status change: (Pending|Initial) to Running`)), 90).catch((e) =>
        assert.fail(`${e.message}\nthe master's log:\n${master.tail()}`),
      );
    }
    assert.ok(!master.has(/KeyError/), `the master read every pod:\n${master.lines.filter((l) => /KeyError/.test(l)).join("\n")}`);
    step(t, "the master logged every task pod going to Running");
    await eventually("the job Running", async () => (await getJob()).status?.phase === "Running");
  });

  it("worker 1 killed with exit code 137: one relaunch plan from the master, one live replacement at its rank", async (t) => {
    const before = (await plans()).length;
    const worker1 = (await podsOf()).find((p) => label(p, "replica-type") === "worker" && label(p, "rank-index") === "1" && isLive(p));
    await kubelet.fail(admin, ns, worker1.metadata.name, { exitCode: 137, reason: "Error" });
    step(t, `${worker1.metadata.name} failed with exit code 137`);
    const relaunch = await eventually("the master's relaunch plan", async () => (await plans()).slice(before).find((p) => (p.spec.createPods ?? []).length > 0), 60).catch((e) =>
      assert.fail(`${e.message}\nthe master's log:\n${master.tail()}`),
    );
    step(t, `relaunch plan ${relaunch.metadata.name}: ${JSON.stringify(relaunch.spec)}`);
    assert.deepEqual(relaunch.spec.replicaResourceSpecs, {});
    assert.equal(relaunch.spec.createPods.length, 1);
    const [entry] = relaunch.spec.createPods;
    assert.deepEqual([entry.type, entry.rankIndex, entry.service], ["worker", 1, `${JOB}-edljob-worker-1.${ns}.svc:3333`]);
    const replacement = await eventually("the replacement at rank 1", async () =>
      (await podsOf()).find((p) => label(p, "replica-type") === "worker" && label(p, "rank-index") === "1" && isLive(p)),
    );
    assert.equal(replacement.metadata.name, entry.name, "named as the plan's entry");
    assert.equal(label(replacement, "replica-index"), String(entry.id));
    assert.equal(Number(label(replacement, "relaunch-count")), Number(label(worker1, "relaunch-count")) + 1, "one relaunch more");
    assert.equal(tfConfigOf(replacement), tfConfigOf(worker1), "the same rank, the same cluster");
    await kubelet.running(admin, ns, replacement.metadata.name);
    await eventually(`the master's log: ${replacement.metadata.name} to Running`, () => master.has(new RegExp(`${replacement.metadata.name} status change: (Pending|Initial) to Running`)), 90);
    // A few more seconds: no second pod at the rank, from the master or the core.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const rank1 = (await podsOf()).filter((p) => label(p, "replica-type") === "worker" && label(p, "rank-index") === "1" && isLive(p));
    assert.deepEqual(rank1.map((p) => p.metadata.name), [entry.name], "exactly one live pod at rank 1");
    step(t, `${entry.name} replaces ${worker1.metadata.name} at rank 1 with relaunch-count ${label(replacement, "relaunch-count")}`);
  });

  // DLRover 0.6.1 decides by the exit code (`_get_pod_exit_reason`, k8s_watcher.py) and
  // `_should_relaunch` (dist_job_manager.py): 1 is a fatal error (NodeExitReason.FATAL_ERROR, which
  // it logs as "Error"), never relaunched; 2 ("UnknownError") is relaunched
  // while the rank's relaunches are below restartCount (3 here). Worker id 0 is critical in a PS job
  // (`get_critical_worker_index`): exit 1 there would end the job, so the fatal error is given to
  // rank 1's replacement (id 2), and exit 2 to rank 0. The master handles pod events one at a time in
  // order (`_monitor_nodes`), so once rank 0's relaunch plan is written, rank 1's failure was wholly
  // handled: no plan for it by then is no plan for it at all.
  it("exit code 1 (a fatal error) is not relaunched, exit code 2 is: the master's rules, not the replica's restartPolicy", async (t) => {
    const before = (await plans()).length;
    const liveAt = async (rank) => (await podsOf()).find((p) => label(p, "replica-type") === "worker" && label(p, "rank-index") === String(rank) && isLive(p));
    const fatal = await liveAt(1);
    await kubelet.fail(admin, ns, fatal.metadata.name, { exitCode: 1, reason: "Error" });
    await eventually(`the master's log: ${fatal.metadata.name} Failed, a fatal error`, () => master.has(new RegExp(`${fatal.metadata.name} status change: \\w+ to Failed .*Exit reason is Error\\b`)), 90).catch((e) =>
      assert.fail(`${e.message}\nthe master's log:\n${master.tail()}`),
    );
    step(t, `${fatal.metadata.name} (relaunch-count ${label(fatal, "relaunch-count")}) failed with exit code 1`);
    const retried = await liveAt(0);
    await kubelet.fail(admin, ns, retried.metadata.name, { exitCode: 2, reason: "Error" });
    step(t, `${retried.metadata.name} failed with exit code 2`);
    const relaunch = await eventually("the master's relaunch plan for rank 0", async () => (await plans()).slice(before).find((p) => (p.spec.createPods ?? []).length > 0), 60).catch((e) =>
      assert.fail(`${e.message}\nthe master's log:\n${master.tail()}`),
    );
    const created = (await plans()).slice(before).flatMap((p) => (p.spec.createPods ?? []).map((c) => `${c.type}-${c.rankIndex}`));
    assert.deepEqual(created, ["worker-0"], "one relaunch, rank 0's; none for the fatal error");
    step(t, `relaunch plan ${relaunch.metadata.name}: ${JSON.stringify(relaunch.spec.createPods)}`);
    const replacement = await eventually("the replacement at rank 0", () => liveAt(0));
    assert.equal(replacement.metadata.name, relaunch.spec.createPods[0].name);
    await kubelet.running(admin, ns, replacement.metadata.name);
    assert.equal(await liveAt(1), undefined, "rank 1 stays ended");
    const job = await getJob();
    assert.equal(job.status?.phase, "Running", "a non-critical worker's fatal error does not end the job");
  });

  it("no type and rank was held twice at any sample; the master's service settled", async (t) => {
    const twice = samples.filter((s) => new Set(s).size !== s.length);
    assert.deepEqual(twice, [], `samples with a rank held twice (of ${samples.length})`);
    const service = (await services()).find((s) => s.metadata.name === masterName);
    assert.deepEqual(service.spec.selector, { "elasticjob.dlrover/name": JOB, "elasticjob.dlrover/replica-type": "dlrover-master" });
    assert.deepEqual(service.spec.ports.map((p) => [p.name, p.port, p.targetPort]), [["grpc", 50001, masterPort]]);
    const version = service.metadata.resourceVersion;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    assert.equal((await services()).find((s) => s.metadata.name === masterName).metadata.resourceVersion, version, "the master's service does not change back and forth");
    step(t, `${samples.length} samples; service ${masterName} at resourceVersion ${version}`);
  });

  it("the master stopped and its pod Succeeded: the job Succeeded, its running pods deleted", async (t) => {
    master.child.kill("SIGTERM");
    const { code, signal } = await master.exited;
    step(t, `the master (pid ${master.child.pid}) stopped: ${signal ?? code}`);
    await kubelet.succeed(admin, ns, masterName);
    const done = await eventually("the job Succeeded", async () => {
      const j = await getJob();
      return j.status?.phase === "Succeeded" && j;
    });
    assert.ok(done.status.status.completionTime);
    await eventually("no running task pod", async () => tasks(await podsOf()).filter(isLive).length === 0);
  });
});
