// Kubeflow's run policy (`spec.runPolicy`, docs/controller.md) under `elasticjob controller` on the
// test cluster: a deadline that passes, a backoff limit reached by pods that fail through KWOK's
// stages, each `cleanPodPolicy` after a success and after a failure, and a TTL that deletes the job,
// after which the controller manager's real garbage collector removes what the job owned. The test
// plays DLRover's master (its ScalePlans, scenario.js) and ends containers through ./kubelet.js.
//
// Nothing here waits for a time to pass: every wait is on state the test reads (the job's status,
// the pods, the controller's log lines and metrics), with a generous timeout; the deadlines and TTLs
// are a few seconds, so the file runs in well under a minute. Each scenario asserts both what goes
// and what stays, so a policy that deleted too much or too little fails it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { collection, expectStatus, request } from "./kube.js";
import * as kubelet from "./kubelet.js";
import {
  Controller,
  JOB_API,
  MASTER_IMAGE,
  admin,
  createJob,
  createPlan,
  eventually,
  firstPlanSpec,
  get,
  getJob,
  getPlan,
  jobPath,
  masterName,
  masterPsHosts,
  masterResource,
  masterRunning,
  namespace,
  newJob,
  patchJobSpec,
  planSucceeded,
  podsOf,
  servicesIn,
  useCluster,
} from "./scenario.js";

useCluster();

const RESOURCE = masterResource({ cpu: "500m", memory: "1Gi" });

/** `elasticjob controller` on namespace `ns` alone, ready; stopped when the test `t` ends. */
async function controllerIn(t, ns, name) {
  const controller = new Controller(name, ["--namespace", ns, "--master-image", MASTER_IMAGE]);
  t.after(() => controller.stop());
  return controller.ready();
}

/** A job of 1 PS and 3 workers (the master's first plan makes one of them the chief) with `runPolicy`. */
const policyJob = (ns, name, runPolicy) => {
  const job = newJob(ns, name, { ps: 1, workers: 3 });
  job.spec.runPolicy = runPolicy;
  return job;
};

/**
 * Starts a job: its master Running, the master's first plan carried out, its 5 pods (master, PS 0,
 * chief 0, workers 0 and 1) Running. Resolves to the stored job.
 */
async function started(ns, name, runPolicy) {
  await createJob(policyJob(ns, name, runPolicy));
  const job = await masterRunning(ns, name);
  await planSucceeded(ns, (await createPlan(job, firstPlanSpec(job))).metadata.name);
  await kubelet.allRunning(admin, ns, `elasticjob.dlrover/name=${name}`, 5);
  return job;
}

/** The job's pods by name: `Running`, `Succeeded`, `Failed`, ... or `deleting`. */
async function podStates(ns, name) {
  const pods = await podsOf(ns, name);
  return Object.fromEntries(pods.map((p) => [p.metadata.name, p.metadata.deletionTimestamp ? "deleting" : p.status?.phase]).sort());
}

/** Waits until the job's pods are exactly `expected` (name -> phase); a pod not listed is gone. */
async function podsAre(ns, name, expected) {
  const want = JSON.stringify(Object.fromEntries(Object.entries(expected).sort()));
  let last;
  return eventually(`${name}: pods ${want}`, async () => {
    last = await podStates(ns, name);
    return JSON.stringify(last) === want;
  }).catch((e) => {
    throw new Error(`${e.message}; pods: ${JSON.stringify(last)}`);
  });
}

/** Waits until the job has finished in `phase`; resolves to it. */
function finished(ns, name, phase, seconds = 30) {
  return eventually(`${name}: job ${phase}`, async () => {
    const job = await getJob(ns, name);
    return job.status?.phase === phase && job;
  }, seconds);
}

/** The job's true `Failed` condition. */
const failedCondition = (job) => job.status.status.conditions.find((c) => c.type === "Failed" && c.status === "True");

/**
 * The pods the controller deleted for the job, by name, with the cause it logged, up to its log
 * line `until` (an action of a later phase of the same pass: the lines come in order), awaited.
 */
async function deletedBy(controller, ns, name, until) {
  await controller.line(JSON.stringify(until), (l) => l.job === `${ns}/${name}` && Object.entries(until).every(([k, v]) => l[k] === v));
  return Object.fromEntries(
    controller
      .actions("deletePod")
      .filter((l) => l.job === `${ns}/${name}`)
      .map((l) => [l.name, l.cause])
      .sort(),
  );
}

/** The pod's container exits with `exitCode` (kubelet.js's annotation, which KWOK's stages act on). */
async function exits(ns, pod, exitCode) {
  const annotations = { [kubelet.EXIT_CODE]: String(exitCode) };
  const answer = await request(admin, "PATCH", `${collection("v1", "Pod", ns)}/${pod}`, { body: { metadata: { annotations } }, contentType: "application/merge-patch+json" });
  expectStatus(answer, [200], `the container of ${pod} exits ${exitCode}`);
}

/** The seconds from the RFC 3339 time `from` to `to`. */
const secondsBetween = (from, to) => (Date.parse(to) - Date.parse(from)) / 1000;

/**
 * Waits until a job has been added to the controller's work queue since `adds` (a value of its
 * `workqueue_adds_total` read while it was idle, before a change), then until its queue is empty
 * and no pass is under way: the pass of that change has ended.
 */
async function passedAfter(controller, adds) {
  const metric = (name) => controller.metric(name, { name: "elasticjob" });
  await eventually(`${controller.name}: the change enqueued`, async () => (await metric("workqueue_adds_total")) > adds);
  await eventually(`${controller.name}: its passes done`, async () => (await metric("workqueue_depth")) === 0 && (await metric("workqueue_unfinished_work_seconds")) === 0);
}

/**
 * Waits until the controller's one job waits in its work queue for a later moment (a deadline or a
 * TTL: the plan's `requeueAt`), not for a watch event or a retry.
 */
function waitsInQueue(controller) {
  return eventually(`${controller.name}: the job waiting for its moment`, async () => (await controller.metric("elasticjob_controller_queue_delayed")) === 1);
}

describe("a deadline and a backoff limit fail a running job", () => {
  it("activeDeadlineSeconds passes: the job Failed (DeadlineExceeded), its running pods stopped even under cleanPodPolicy None, its failed pod kept", async (t) => {
    const ns = await namespace("rp-deadline");
    const starter = await controllerIn(t, ns, "deadline-start");
    // No deadline while the job starts, however slow the cluster is.
    const job = await started(ns, "late", { cleanPodPolicy: "None" });
    await kubelet.fail(admin, ns, "late-edljob-worker-1", { exitCode: 1 });
    await eventually("the failure counted", async () => (await getJob(ns, "late")).status.status.replicaStatuses.worker.failed === 1);
    // The deadline is set a few seconds ahead while no controller runs (the field may change on a
    // running job, as on Kubernetes' Job); a controller that starts then knows of no timer of the
    // last one's (nor of a pass it left waiting for its caches): its first pass must leave the job
    // waiting in its work queue for the deadline (the plan's requeueAt), which no watch event brings.
    assert.equal((await starter.stop()).code, 0);
    const startTime = (await getJob(ns, "late")).status.status.startTime;
    const deadline = Math.ceil(secondsBetween(startTime, new Date().toISOString())) + 5;
    await patchJobSpec(ns, "late", { runPolicy: { cleanPodPolicy: "None", activeDeadlineSeconds: deadline } });
    const controller = await controllerIn(t, ns, "deadline");
    await waitsInQueue(controller);
    assert.equal((await getJob(ns, "late")).status.phase, "Running", "not failed before its deadline");

    const failed = await finished(ns, "late", "Failed");
    const condition = failedCondition(failed);
    assert.equal(condition.reason, "DeadlineExceeded");
    assert.equal(condition.message, "Job late has failed because it was active longer than specified deadline");
    assert.equal(failed.status.status.startTime, startTime, "the start time the deadline counts from");
    assert.ok(secondsBetween(startTime, condition.lastTransitionTime) >= deadline, `failed at ${condition.lastTransitionTime}, the deadline ${deadline} s after ${startTime}`);
    assert.equal(failed.status.status.completionTime, condition.lastTransitionTime);
    // Its Running pods (the master's too) stopped; the failed worker stays under None.
    await podsAre(ns, "late", { "late-edljob-worker-1": "Failed" });
    const stopped = ["elasticjob-late-dlrover-master", "late-edljob-chief-0", "late-edljob-ps-0", "late-edljob-worker-0"];
    assert.deepEqual(await deletedBy(controller, ns, "late", { action: "setJobStatus", phase: "Failed" }), Object.fromEntries(stopped.map((n) => [n, "deadline"])));
    const event = await eventually("the Warning event", async () =>
      (await get(collection("v1", "Event", ns))).items.find((e) => e.involvedObject.uid === job.metadata.uid && e.reason === "DeadlineExceeded"),
    );
    assert.equal(event.type, "Warning");
    assert.equal(event.message, condition.message);
  });

  it("backoffLimit 2: one failed pod is not enough; the relaunched one failing too fails the job (BackoffLimitExceeded), and no relaunch follows", async (t) => {
    const ns = await namespace("rp-backoff");
    const controller = await controllerIn(t, ns, "backoff");
    const job = await started(ns, "flaky", { backoffLimit: 2 });

    // Worker 0 fails: one failure, under the limit; the master relaunches it at its rank.
    await kubelet.fail(admin, ns, "flaky-edljob-worker-0", { exitCode: 1 });
    await eventually("the failure counted", async () => (await getJob(ns, "flaky")).status.status.replicaStatuses.worker.failed === 1);
    assert.equal((await getJob(ns, "flaky")).status.phase, "Running", "one failure is under a limit of 2");
    const relaunch = await createPlan(job, {
      createPods: [{ name: "flaky-edljob-worker-3", type: "worker", id: 3, rankIndex: 0, service: `flaky-edljob-worker-0.${ns}.svc:3333`, resource: RESOURCE }],
      psHosts: masterPsHosts(job, 1),
    });
    await planSucceeded(ns, relaunch.metadata.name);
    await kubelet.running(admin, ns, "flaky-edljob-worker-3");

    // The relaunched pod fails too: 2 failed task pods reach the limit.
    await kubelet.fail(admin, ns, "flaky-edljob-worker-3", { exitCode: 1 });
    const failed = await finished(ns, "flaky", "Failed");
    const condition = failedCondition(failed);
    assert.equal(condition.reason, "BackoffLimitExceeded");
    assert.equal(condition.message, "Job flaky has failed because it has reached the specified backoff limit");
    assert.ok(failed.status.status.completionTime);
    // Its running pods stopped; the failed ones stay (cleanPodPolicy Running, the default).
    await podsAre(ns, "flaky", { "flaky-edljob-worker-0": "Failed", "flaky-edljob-worker-3": "Failed" });
    const stopped = ["elasticjob-flaky-dlrover-master", "flaky-edljob-chief-0", "flaky-edljob-ps-0", "flaky-edljob-worker-1"];
    assert.deepEqual(await deletedBy(controller, ns, "flaky", { action: "setJobStatus", phase: "Failed" }), Object.fromEntries(stopped.map((n) => [n, "backoffLimit"])));

    // A relaunch plan the master wrote as it went is not taken up: no pod more.
    await passedAfter(controller, 0);
    const adds = await controller.metric("workqueue_adds_total", { name: "elasticjob" });
    const late = await createPlan(job, {
      createPods: [{ name: "flaky-edljob-worker-4", type: "worker", id: 4, rankIndex: 0, service: `flaky-edljob-worker-0.${ns}.svc:3333`, resource: RESOURCE }],
      psHosts: masterPsHosts(job, 1),
    });
    await passedAfter(controller, adds);
    assert.equal((await getPlan(ns, late.metadata.name)).status, undefined, "the plan is not taken up");
    await podsAre(ns, "flaky", { "flaky-edljob-worker-0": "Failed", "flaky-edljob-worker-3": "Failed" });
    assert.equal(controller.actions("createPod").filter((l) => l.job === `${ns}/flaky`).length, 6, "the master and the 5 pods of the two plans, no more");
  });
});

// Each policy after a success (the master exits 0) and after a failure (the master exits 1, which
// fails the job): before the end, worker 0 has succeeded and worker 1 has failed, so the job has
// Running pods (PS 0, chief 0) and finished ones (worker 0, worker 1, then the master).
describe("cleanPodPolicy: a finished job deletes exactly the pods its policy names", () => {
  const POLICIES = {
    // Every pod stays: the finished job's logs and the running ones alike.
    None: { deleted: {}, kept: ["master", "ps", "chief", "worker0", "worker1"] },
    // Its Running (and Pending) pods go; the finished ones stay.
    Running: { deleted: { ps: "stop", chief: "stop" }, kept: ["master", "worker0", "worker1"] },
    // Every pod goes: running ones stopped, finished ones cleaned up.
    All: { deleted: { ps: "stop", chief: "stop", master: "cleanup", worker0: "cleanup", worker1: "cleanup" }, kept: [] },
  };

  for (const [policy, { deleted, kept }] of Object.entries(POLICIES)) {
    for (const [outcome, exitCode, phase] of [
      ["success", 0, "Succeeded"],
      ["failure", 1, "Failed"],
    ]) {
      it(`${policy} after ${outcome}: ${Object.keys(deleted).length ? `deletes ${Object.keys(deleted).join(", ")}` : "deletes nothing"}${kept.length ? `, keeps ${kept.join(", ")}` : ""}`, async (t) => {
        const ns = await namespace(`rp-${policy.toLowerCase()}-${outcome}`);
        const controller = await controllerIn(t, ns, `${policy}-${outcome}`);
        const name = `${policy.toLowerCase()}-${outcome}`;
        const job = await started(ns, name, { cleanPodPolicy: policy });
        const pods = {
          master: masterName(name),
          ps: `${name}-edljob-ps-0`,
          chief: `${name}-edljob-chief-0`,
          worker0: `${name}-edljob-worker-0`,
          worker1: `${name}-edljob-worker-1`,
        };
        await kubelet.succeed(admin, ns, pods.worker0);
        await kubelet.fail(admin, ns, pods.worker1, { exitCode: 1 });
        await eventually("worker 0 and 1 counted", async () => {
          const r = (await getJob(ns, name)).status.status.replicaStatuses.worker;
          return r.succeeded === 1 && r.failed === 1;
        });
        // The master's container exits (not awaited as a pod phase: under All the pod goes as
        // soon as the job sees it finished).
        await exits(ns, pods.master, exitCode);
        const done = await finished(ns, name, phase);
        assert.ok(done.status.status.completionTime);
        if (phase === "Failed") {
          assert.equal(failedCondition(done).reason, "JobFailed", "the master's failure, not a limit of the run policy");
        }
        // The pass that finished the job deleted before it wrote the status: what it deleted is
        // being deleted or gone, and the rest is as the cluster left it.
        const states = { master: phase, ps: "Running", chief: "Running", worker0: "Succeeded", worker1: "Failed" };
        await podsAre(ns, name, Object.fromEntries(kept.map((k) => [pods[k], states[k]])));
        assert.deepEqual(await deletedBy(controller, ns, name, { action: "setJobStatus", phase }), Object.fromEntries(Object.entries(deleted).map(([k, cause]) => [pods[k], cause])));

        if (policy === "None") {
          // A later pass keeps them too: the master's plan written after the end, which removes
          // worker 1, deletes that pod alone.
          await createPlan(job, { removePods: [{ name: pods.worker1, type: "worker", id: 1, rankIndex: 1 }] });
          await podsAre(ns, name, Object.fromEntries(kept.filter((k) => k !== "worker1").map((k) => [pods[k], states[k]])));
          assert.deepEqual(await deletedBy(controller, ns, name, { action: "deletePod", name: pods.worker1 }), { [pods.worker1]: "planned" });
        }
      });
    }
  }
});

it("ttlSecondsAfterFinished: the finished job is deleted once its TTL has passed, and the garbage collector removes every pod, service and scale plan it owned", async (t) => {
  const ns = await namespace("rp-ttl");
  const starter = await controllerIn(t, ns, "ttl-start");
  // cleanPodPolicy None: the finished job deletes no pod itself, so what goes, the collector removes.
  const job = await started(ns, "brief", { cleanPodPolicy: "None" });
  const uid = job.metadata.uid;
  const owned = async () => {
    const byOwner = (o) => o.metadata.ownerReferences?.some((r) => r.uid === uid);
    const names = (items) => items.filter(byOwner).map((o) => o.metadata.name).sort();
    return {
      pods: names((await get(collection("v1", "Pod", ns))).items),
      services: names(await servicesIn(ns)),
      plans: names((await get(collection(JOB_API, "ScalePlan", ns))).items),
    };
  };
  const before = await owned();
  assert.deepEqual([before.pods.length, before.services.length, before.plans.length], [5, 5, 1], JSON.stringify(before));
  await exits(ns, masterName("brief"), 0);
  const completed = (await finished(ns, "brief", "Succeeded")).status.status.completionTime;
  assert.ok(completed);

  // The TTL is set, a few seconds ahead, while no controller runs (as the deadline above): the
  // first pass of the controller that starts must leave the job waiting for it (the plan's
  // requeueAt), and the pass at that moment deletes the job.
  assert.equal((await starter.stop()).code, 0);
  const ttl = Math.ceil(secondsBetween(completed, new Date().toISOString())) + 5;
  await patchJobSpec(ns, "brief", { runPolicy: { cleanPodPolicy: "None", ttlSecondsAfterFinished: ttl } });
  const controller = await controllerIn(t, ns, "ttl");
  await waitsInQueue(controller);
  const deletion = await controller.line("deleteJob", (l) => l.action === "deleteJob" && l.job === `${ns}/brief`);
  assert.equal(deletion.cause, "ttl");
  assert.equal(deletion.outcome, "done");
  assert.ok(secondsBetween(completed, deletion.time) >= ttl, `deleted at ${deletion.time}, completed at ${completed}, TTL ${ttl} s`);
  await eventually("the job gone", async () => (await request(admin, "GET", jobPath(ns, "brief"))).status === 404);
  // The garbage collector, by the owner references: nothing of the job is left.
  const left = await eventually("nothing of the job left", async () => {
    const o = await owned();
    return o.pods.length + o.services.length + o.plans.length === 0 && o;
  }, 60).catch(async (e) => {
    throw new Error(`${e.message}; left: ${JSON.stringify(await owned())}`);
  });
  assert.deepEqual(left, { pods: [], services: [], plans: [] });
  for (const c of [starter, controller]) {
    assert.deepEqual(c.actions("deletePod").filter((l) => l.job === `${ns}/brief`), [], "the controller deleted no pod itself");
  }
  expectStatus(await request(admin, "GET", `/api/v1/namespaces/${ns}`), [200], "the namespace stays");
});
