// Kueue's real manager with its ElasticJobsViaWorkloadSlices gate on (`make test-kueue`'s second
// cluster, KUEUE_WORKLOAD_SLICES=on), beside `elasticjob controller --kueue --kueue-workload-slices`:
// a queued job annotated `kueue.x-k8s.io/elastic-job: "true"` that DLRover's master scales down
// (the test plays its plan) lowers its admitted Workload's counts in place once the removed pods
// are gone, and Kueue gives the freed quota to the job waiting for it; one that its master scales
// up beyond its admission grows by a new Workload slice that Kueue admits for the growth alone,
// then gives quota back from it. On the first cluster (the gate off) the controller is given the
// option all the same: it asks Kueue's webhook (a dry run lowering a count of the admitted
// Workload), finds the gate off, and cuts the same scale-up to the admission as before. Figures
// printed, nothing timed asserted.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { applyManifests, collection, request } from "../kube.js";
import * as kubelet from "../kubelet.js";
import { psJob } from "../jobs.js";
import { Controller, admin, createJob, createPlan, eventually, firstPlanSpec, get, getJob, getPlan, masterName, namespace, planSucceeded, useCluster } from "../scenario.js";
import { KUEUE, QUEUE_LABEL, clusterQueue, condition, create, isTrue, livePods, workloadOf } from "./queues.js";

const secondsSince = (t) => ((Date.now() - t) / 1000).toFixed(2);
/** A condition of an ElasticJob (DLRover keeps them under `status.status`). */
const jobCondition = (job, type) => job?.status?.status?.conditions?.find((c) => c.type === type);
/** The job's task pods of the worker pod set: its chief (made of the worker's template) and its workers. */
const WORKERS = (jobName) => `elasticjob.dlrover/name=${jobName},elasticjob.dlrover/replica-type in (chief,worker)`;

useCluster();

const ON = process.env.KUEUE_WORKLOAD_SLICES === "on";
const suffix = Math.random().toString(16).slice(2, 8);
const FLAVOR = `plain-${suffix}`;
const CLUSTER_QUEUE = `slices-${suffix}`;
const LOCAL_QUEUE = "elastic";
const TASK = { name: "main", image: "tf:2", command: ["python", "-m", "deepctr.train"], resources: { requests: { cpu: "1", memory: "1Gi" } } };

/** A queued job of 1 PS and `workers` workers, 1 CPU and 1 GiB each; its master the core's default (1 CPU, 2 GiB, 2 GiB of ephemeral storage). */
function job(ns, name, workers, { elastic = false, priorityClassName } = {}) {
  const j = psJob(ns, name, { ps: 1, workers, task: TASK });
  j.metadata.labels = { [QUEUE_LABEL]: LOCAL_QUEUE };
  if (elastic) {
    j.metadata.annotations = { "kueue.x-k8s.io/elastic-job": "true" };
  }
  if (priorityClassName) {
    for (const spec of Object.values(j.spec.replicaSpecs)) {
      spec.template = { ...spec.template, spec: { ...spec.template.spec, priorityClassName } };
    }
  }
  return j;
}

describe("a scale-down gives its quota back under Kueue's ElasticJobsViaWorkloadSlices gate", { skip: !ON && "Kueue's gate is off on this cluster (KUEUE_WORKLOAD_SLICES=on runs it)" }, () => {
  let ns;
  let controller;

  before(async () => {
    await applyManifests(admin, "deploy/rbac-kueue.yaml");
    ns = await namespace("slices");
    // Room for the big job (its master, 1 PS, 4 workers: 6 CPU, 7 GiB, 2 GiB of ephemeral storage)
    // and not for the small one beside it (its master, 1 PS, 1 worker: 3 CPU, 4 GiB, 2 GiB) until
    // the big one gives 2 workers back.
    const quota = { cpu: "7", memory: "9Gi", "ephemeral-storage": "4Gi" };
    await create({ apiVersion: KUEUE, kind: "ResourceFlavor", metadata: { name: FLAVOR } });
    await create(clusterQueue(CLUSTER_QUEUE, ns, FLAVOR, quota));
    await create({ apiVersion: KUEUE, kind: "LocalQueue", metadata: { name: LOCAL_QUEUE, namespace: ns }, spec: { clusterQueue: CLUSTER_QUEUE } });
    controller = new Controller("slices", ["--kueue", "--kueue-workload-slices", "--namespace", ns]);
    await controller.ready();
  });

  after(async () => {
    if (controller) {
      assert.equal((await controller.stop()).code, 0, "SIGTERM: exit 0");
    }
    for (const path of [`${collection(KUEUE, "ClusterQueue")}/${CLUSTER_QUEUE}`, `${collection(KUEUE, "ResourceFlavor")}/${FLAVOR}`]) {
      await request(admin, "DELETE", path);
    }
  });

  it("a job admitted for 4 workers, scaled to 1 by its master's plan, lowers its Workload to what it runs; the job waiting for that quota is admitted", async (t) => {
    const big = await createJob(job(ns, "big", 4, { elastic: true }));
    await eventually("big: Workload admitted", async () => isTrue(await workloadOf(ns, "big"), "Admitted"), 60);
    // Its first plan's pods with its master: the PS, a chief made of one worker, 3 workers.
    await kubelet.allRunning(admin, ns, "elasticjob.dlrover/name=big,elasticjob.dlrover/replica-type!=dlrover-master", 5);
    await kubelet.running(admin, ns, masterName("big"));

    await createJob(job(ns, "small", 1));
    const waiting = await eventually("small: Kueue holds its Workload for quota", async () => {
      const w = await workloadOf(ns, "small");
      return condition(w, "QuotaReserved")?.reason === "Pending" && w;
    });
    assert.match(condition(waiting, "QuotaReserved").message, /insufficient unused quota/);

    // DLRover's master scales the big job down to its chief and 1 worker.
    const spec = firstPlanSpec(big);
    spec.replicaResourceSpecs.worker.replicas = 1;
    const written = Date.now();
    const plan = await createPlan(await getJob(ns, "big"), spec);
    await planSucceeded(ns, plan.metadata.name);
    const lowered = await eventually("big: its Workload's worker pod set lowered to 2", async () => {
      const w = await workloadOf(ns, "big");
      return w.spec.podSets.find((p) => p.name === "worker")?.count === 2 && w;
    });
    const loweredAt = Date.now();
    // Only the count moved: the admission keeps what was admitted (it is immutable), and the
    // Workload is still admitted; the other pod sets are as they were.
    assert.deepEqual(lowered.spec.podSets.map((p) => [p.name, p.count]), [["dlrover-master", 1], ["ps", 1], ["worker", 2]]);
    assert.ok(isTrue(lowered, "Admitted"), "still admitted");
    assert.equal(lowered.status.admission.podSetAssignments.find((a) => a.name === "worker").count, 4);
    assert.deepEqual((await livePods(ns, "big")).map((p) => p.metadata.name).sort(), ["big-edljob-chief-0", "big-edljob-ps-0", "big-edljob-worker-0", masterName("big")].sort());
    const given = controller.actions("setWorkloadCounts").filter((a) => a.job === `${ns}/big`);
    assert.deepEqual(given.map((a) => a.counts), [{ worker: 2 }], "one write, counts only");

    await eventually("small: admitted into the quota given back", async () => isTrue(await workloadOf(ns, "small"), "Admitted"), 60);
    await kubelet.running(admin, ns, masterName("small"));
    assert.notEqual((await getJob(ns, "small")).spec.suspend, true);
    t.diagnostic(
      `plan written -> Workload lowered: ${((loweredAt - written) / 1000).toFixed(2)} s; -> the waiting job's master Running: ${((Date.now() - written) / 1000).toFixed(2)} s`,
    );
  });
});

/**
 * A namespace with a ClusterQueue of its own (one flavour; 7 CPUs, 9 GiB, 4 GiB of ephemeral
 * storage: the grown job of 4 workers, 6 CPUs and 7 GiB, fits, and the small job, 3 CPUs and
 * 4 GiB, fits beside it only once it is back to 2) and a controller with `args`.
 */
function grownQueue(prefix, args, spec = {}) {
  const flavor = `${prefix}-${suffix}`;
  const queue = { ns: undefined, controller: undefined };
  before(async () => {
    await applyManifests(admin, "deploy/rbac-kueue.yaml");
    queue.ns = await namespace(prefix);
    await create({ apiVersion: KUEUE, kind: "ResourceFlavor", metadata: { name: flavor } });
    await create(clusterQueue(flavor, queue.ns, flavor, { cpu: "7", memory: "9Gi", "ephemeral-storage": "4Gi" }, spec));
    await create({ apiVersion: KUEUE, kind: "LocalQueue", metadata: { name: LOCAL_QUEUE, namespace: queue.ns }, spec: { clusterQueue: flavor } });
    queue.controller = new Controller(prefix, ["--kueue", ...args, "--namespace", queue.ns]);
    await queue.controller.ready();
  });
  after(async () => {
    if (queue.controller) {
      assert.equal((await queue.controller.stop()).code, 0, "SIGTERM: exit 0");
    }
    for (const path of [`${collection(KUEUE, "ClusterQueue")}/${flavor}`, `${collection(KUEUE, "ResourceFlavor")}/${flavor}`]) {
      await request(admin, "DELETE", path);
    }
  });
  return queue;
}

/** The job `big` admitted with 2 workers (its chief and 1 worker) and running; resolves to the stored job. */
async function admittedWithTwo(ns) {
  await createJob(job(ns, "big", 2, { elastic: true }));
  await eventually("big: Workload admitted", async () => isTrue(await workloadOf(ns, "big"), "Admitted"), 60);
  await kubelet.allRunning(admin, ns, WORKERS("big"), 2);
  await kubelet.running(admin, ns, masterName("big"));
  return getJob(ns, "big");
}

/** DLRover's master's plan (played) for the worker pod set at `n`: its chief and `n - 1` workers. */
const workersPlan = async (ns, n) => {
  const spec = firstPlanSpec(await getJob(ns, "big"));
  spec.replicaResourceSpecs.worker.replicas = n - 1;
  return createPlan(await getJob(ns, "big"), spec);
};

describe("a plan beyond the admission grows the job by a Workload slice under Kueue's gate", { skip: !ON && "Kueue's gate is off on this cluster (KUEUE_WORKLOAD_SLICES=on runs it)" }, () => {
  const queue = grownQueue("grow", ["--kueue-workload-slices"]);

  it("admitted with 2 workers in a queue with room for 4, the master's plan of 4 runs 4 once Kueue admits the new slice; a plan of 2 then gives the quota to a second job", async (t) => {
    const { ns, controller } = queue;
    await admittedWithTwo(ns);
    const asked = await controller.line("the gate found on", (l) => l.level === "info" && /ElasticJobsViaWorkloadSlices is on/.test(l.msg));
    assert.equal(asked.workload, "elasticjob-big");
    const written = Date.now();
    const plan = await workersPlan(ns, 4);
    const slice = await eventually("big: its slice elasticjob-big.2 admitted", async () => {
      const w = await workloadOf(ns, "big.2");
      return isTrue(w, "Admitted") && w;
    }, 60);
    const admittedAt = Date.now();
    await kubelet.allRunning(admin, ns, WORKERS("big"), 4);
    const fourth = Date.now();
    await planSucceeded(ns, plan.metadata.name);
    // The slice as Kueue's job integrations write one, admitted for the whole new size on the old
    // slice's flavour; the old slice finished by Kueue as replaced, holding nothing any more.
    assert.equal(slice.metadata.annotations["kueue.x-k8s.io/workload-slice-replacement-for"], `${ns}/elasticjob-big`);
    assert.equal(slice.metadata.annotations["kueue.x-k8s.io/workload-slice-name"], "elasticjob-big");
    assert.deepEqual(slice.spec.podSets.map((p) => [p.name, p.count]), [["dlrover-master", 1], ["ps", 1], ["worker", 4]]);
    const old = await workloadOf(ns, "big");
    assert.equal(condition(old, "Finished")?.reason, "WorkloadSliceReplaced");
    const flavors = (w) => w.status.admission.podSetAssignments.map((a) => [a.name, a.count, a.flavors.cpu]);
    assert.deepEqual(flavors(slice), flavors(old).map(([name, count, flavor]) => [name, name === "worker" ? 4 : count, flavor]));
    assert.equal(controller.actions("createOrUpdateWorkload").filter((a) => a.name === "elasticjob-big.2").length, 1, "one slice written");
    assert.deepEqual((await livePods(ns, "big")).map((p) => p.metadata.name).sort(),
      ["big-edljob-chief-0", "big-edljob-ps-0", "big-edljob-worker-0", "big-edljob-worker-1", "big-edljob-worker-2", masterName("big")].sort());
    // While the slice waited the job said so; the plan carried out within the new admission
    // turned it false.
    const limited = jobCondition(await getJob(ns, "big"), "QuotaLimited");
    assert.deepEqual([limited?.status, limited?.reason], ["False", "WithinAdmission"]);
    t.diagnostic(`plan of 4 written -> slice admitted: ${((admittedAt - written) / 1000).toFixed(2)} s; -> the 4th worker Running: ${((fourth - written) / 1000).toFixed(2)} s`);

    await createJob(job(ns, "small", 1));
    await eventually("small: Kueue holds its Workload for quota", async () => condition(await workloadOf(ns, "small"), "QuotaReserved")?.reason === "Pending");
    const down = Date.now();
    await planSucceeded(ns, (await workersPlan(ns, 2)).metadata.name);
    await eventually("big: its slice's worker pod set lowered to 2", async () => (await workloadOf(ns, "big.2")).spec.podSets.find((p) => p.name === "worker")?.count === 2);
    await eventually("small: admitted into the quota given back", async () => isTrue(await workloadOf(ns, "small"), "Admitted"), 60);
    await kubelet.running(admin, ns, masterName("small"));
    t.diagnostic(`plan of 2 written -> the second job's master Running: ${secondsSince(down)} s`);

    // The quota is the small job's now: a plan of 4 again makes the slice elasticjob-big.3, which
    // waits; the running pods go on, no pod beyond the admission is made, the plan stays Scaling
    // and the job says what it waits for, with Kueue's message.
    const again = await workersPlan(ns, 4);
    const waiting = await eventually("big: QuotaLimited, waiting for the slice elasticjob-big.3", async () => {
      const c = jobCondition(await getJob(ns, "big"), "QuotaLimited");
      return c?.reason === "WaitingForQuota" && /Pending: .*insufficient unused quota/.test(c.message) && c;
    }, 30, { saw: async () => JSON.stringify([jobCondition(await getJob(ns, "big"), "QuotaLimited"), (await workloadOf(ns, "big.3"))?.status?.conditions]) });
    assert.match(waiting.message, /Workload slice elasticjob-big\.3 waits for Kueue's quota/);
    const pending = await workloadOf(ns, "big.3");
    assert.equal(pending.metadata.annotations["kueue.x-k8s.io/workload-slice-replacement-for"], `${ns}/elasticjob-big.2`);
    assert.equal((await getPlan(ns, again.metadata.name)).status.phase, "Scaling");
    assert.deepEqual((await livePods(ns, "big")).map((p) => p.metadata.name).sort(), ["big-edljob-chief-0", "big-edljob-ps-0", "big-edljob-worker-0", masterName("big")].sort());
    const told = (await get(collection("v1", "Event", ns))).items.filter((e) => e.involvedObject.name === "big" && e.reason === "WaitingForQuota");
    assert.ok(told.length >= 1 && told.every((e) => e.type === "Normal"), "told by a Normal event");
    assert.ok(isTrue(await workloadOf(ns, "big.2"), "Admitted"), "the admitted slice is left as it is");
    // Every write as the controller's ServiceAccount (deploy/rbac.yaml, deploy/rbac-kueue.yaml).
    assert.deepEqual(controller.lines.filter((l) => /HTTP 403/.test(l.error?.message ?? "")).map((l) => l.msg), []);
  });
});

describe("a plan whose slice can never fit the queue under Kueue's gate", { skip: !ON && "Kueue's gate is off on this cluster (KUEUE_WORKLOAD_SLICES=on runs it)" }, () => {
  const queue = grownQueue("never", ["--kueue-workload-slices"]);

  it("admitted with 2 workers, the master's plan of 12 (a growth beyond the whole queue) is cut to the admission and says why; the slice is withdrawn", async () => {
    const { ns } = queue;
    await admittedWithTwo(ns);
    const plan = await workersPlan(ns, 12);
    const limited = await eventually("big: QuotaLimited, never", async () => {
      const c = jobCondition(await getJob(ns, "big"), "QuotaLimited");
      return c?.reason === "ScalePlanExceedsAdmission" && /can never admit/.test(c.message) && c;
    }, 30, { saw: async () => JSON.stringify([jobCondition(await getJob(ns, "big"), "QuotaLimited"), (await workloadOf(ns, "big.2"))?.status?.conditions]) });
    assert.match(limited.message, /asks for 11 worker pods, Kueue admitted 1: 10 wait; Kueue can never admit Workload slice elasticjob-big\.2 .*> maximum capacity/);
    await planSucceeded(ns, plan.metadata.name);
    const withdrawn = await eventually("big: the slice withdrawn", async () => {
      const w = await workloadOf(ns, "big.2");
      return isTrue(w, "Finished") && w;
    });
    assert.equal(condition(withdrawn, "Finished").reason, "OutOfSync");
    assert.ok(isTrue(await workloadOf(ns, "big"), "Admitted") && !isTrue(await workloadOf(ns, "big"), "Finished"), "the admitted slice is left as it is");
    assert.deepEqual((await livePods(ns, "big")).map((p) => p.metadata.name).sort(), ["big-edljob-chief-0", "big-edljob-ps-0", "big-edljob-worker-0", masterName("big")].sort());
  });
});

describe("a preemption of a grown job under Kueue's gate", { skip: !ON && "Kueue's gate is off on this cluster (KUEUE_WORKLOAD_SLICES=on runs it)" }, () => {
  const HIGH = `slices-high-${suffix}`;
  const queue = grownQueue("preempt", ["--kueue-workload-slices"], { preemption: { withinClusterQueue: "LowerPriority" } });
  before(async () => create({ apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name: HIGH }, value: 1000 }));
  after(async () => request(admin, "DELETE", `${collection("scheduling.k8s.io/v1", "PriorityClass")}/${HIGH}`));

  it("grown to 4 and preempted, the job is suspended whole with one Workload queued, its grown slice; it runs again at that size once the quota frees", async (t) => {
    const { ns, controller } = queue;
    await admittedWithTwo(ns);
    await workersPlan(ns, 4);
    await eventually("big: its slice elasticjob-big.2 admitted", async () => isTrue(await workloadOf(ns, "big.2"), "Admitted"), 60);
    await kubelet.allRunning(admin, ns, WORKERS("big"), 4);

    // A job of higher priority needing 4 CPUs of the 1 left: Kueue evicts the grown slice whole.
    const preempted = Date.now();
    await createJob(job(ns, "vip", 2, { priorityClassName: HIGH }));
    await eventually("big: suspended, no pod left", async () => {
      const j = await getJob(ns, "big");
      return j.spec.suspend === true && jobCondition(j, "Suspended")?.reason === "WorkloadEvicted" && (await livePods(ns, "big")).length === 0;
    }, 60);
    await eventually("vip: admitted", async () => isTrue(await workloadOf(ns, "vip"), "Admitted"), 60);
    await kubelet.running(admin, ns, masterName("vip"));
    const vipRunning = Date.now();
    // No half-made state: the first slice finished as replaced, the grown slice evicted and its
    // quota released (queued again, for 4 workers), no third slice, no pod of the job.
    const first = await workloadOf(ns, "big");
    const grown = await workloadOf(ns, "big.2");
    assert.equal(condition(first, "Finished")?.reason, "WorkloadSliceReplaced");
    assert.equal(condition(grown, "Evicted")?.reason, "Preempted");
    assert.ok(!isTrue(grown, "Finished") && !isTrue(grown, "QuotaReserved") && grown.status.admission === undefined, "queued again, holding nothing");
    assert.ok(isTrue(grown, "Requeued"));
    assert.equal(grown.spec.podSets.find((p) => p.name === "worker").count, 4);
    assert.equal(await workloadOf(ns, "big.3"), undefined);

    // The quota frees: the grown slice is admitted whole and the job runs again.
    await kubelet.succeed(admin, ns, masterName("vip"));
    await eventually("vip: Workload Finished", async () => isTrue(await workloadOf(ns, "vip"), "Finished"));
    const again = await eventually("big: its slice admitted again", async () => {
      const w = await workloadOf(ns, "big.2");
      return isTrue(w, "Admitted") && w;
    }, 60);
    assert.equal(again.status.admission.podSetAssignments.find((a) => a.name === "worker").count, 4);
    await kubelet.running(admin, ns, masterName("big"));
    assert.notEqual((await getJob(ns, "big")).spec.suspend, true);
    const of = (action) => controller.actions(action).filter((l) => l.job === `${ns}/big`);
    assert.deepEqual(of("setJobSuspend").map((l) => l.suspend), [true, false, true, false], "suspended at creation, admitted, preempted, admitted again");
    assert.deepEqual(of("createOrUpdateWorkload").map((l) => l.name), ["elasticjob-big", "elasticjob-big.2"], "no other slice written");
    t.diagnostic(`the higher-priority job created -> the grown job's pods gone and its master Running: ${((vipRunning - preempted) / 1000).toFixed(2)} s`);
  });
});

describe("with Kueue's gate off, a controller told it is on (--kueue-workload-slices) asks Kueue's webhook, finds it off, and cuts a plan beyond the admission as before", { skip: ON && "the gate is on on this cluster" }, () => {
  const queue = grownQueue("cut", ["--kueue-workload-slices"]);

  it("admitted with 2 workers, the master's plan of 4 runs 2 and says why; no slice is written", async () => {
    const { ns } = queue;
    await admittedWithTwo(ns);
    const warned = await queue.controller.line("the gate found off", (l) => l.level === "warn" && /ElasticJobsViaWorkloadSlices is off/.test(l.msg));
    assert.equal(warned.workload, "elasticjob-big");
    const plan = await workersPlan(ns, 4);
    await planSucceeded(ns, plan.metadata.name);
    const limited = await eventually("big: QuotaLimited", async () => {
      const c = jobCondition(await getJob(ns, "big"), "QuotaLimited");
      return c?.status === "True" && c;
    });
    assert.equal(limited.reason, "ScalePlanExceedsAdmission");
    assert.match(limited.message, /asks for 3 worker pods, Kueue admitted 1: 2 wait/);
    assert.equal(await workloadOf(ns, "big.2"), undefined);
    assert.deepEqual((await livePods(ns, "big")).map((p) => p.metadata.name).sort(), ["big-edljob-chief-0", "big-edljob-ps-0", "big-edljob-worker-0", masterName("big")].sort());
  });
});
