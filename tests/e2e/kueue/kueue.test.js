// The scenarios with Kueue's real manager deciding (`make test-kueue`: a test cluster of its
// own started with `cluster run --kueue`, tests/cluster/kueue.go): `elasticjob controller --kueue`
// as a child process, with the ServiceAccount of deploy/rbac.yaml and deploy/rbac-kueue.yaml, so
// RBAC holds it to what it may do. Kueue admits, holds, preempts and releases; the controller
// creates each queued job's Workload, keeps the job suspended until Kueue admits it, runs it on the
// flavour Kueue gave, stops it when Kueue evicts it, and finishes the Workload when the job ends.
// The test plays the users (jobs), DLRover's master (the first ScalePlan) and the containers'
// ends (kubelet.js), as the other cluster scenarios do (scenario.js).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import * as api from "elasticjob";
import { CONTROLLER_SA, applyManifests, collection, dryRunCreate, expectStatus, freshNamespace, manifests, objectPath, request, wrongGrants } from "../kube.js";
import * as kubelet from "../kubelet.js";
import { psJob } from "../jobs.js";
import { Controller, admin, createJob, createPlan, eventually, firstPlanSpec, getJob, masterName, namespace, useCluster } from "../scenario.js";
import { KUEUE, QUEUE_LABEL, clusterQueue, condition, create, isTrue, livePods, workloadOf } from "./queues.js";

useCluster();

/** The node the flavour stands for: labelled `pool: reserved` and tainted, so only its pods go there. */
const NODE = "kwok-node-1";
const POOL = { key: "elasticjob.test/pool", value: "reserved" };
const TAINT = { key: "elasticjob.test/reserved", value: "true", effect: "NoSchedule" };
const TOLERATION = { key: TAINT.key, operator: "Equal", value: TAINT.value, effect: TAINT.effect };
const HIGH = "elasticjob-test-high";

const suffix = Math.random().toString(16).slice(2, 8);
const FLAVOR = `reserved-${suffix}`;
const CLUSTER_QUEUE = `team-${suffix}`;
const LOCAL_QUEUE = "training";

/** A job of 1 PS + 4 workers, 1 CPU and 1 GiB each (its master: the core's default, 1 CPU and 2 GiB). */
const TASK = { name: "main", image: "tf:2", command: ["python", "-m", "deepctr.train"], resources: { requests: { cpu: "1", memory: "1Gi" } } };
function job(ns, name, { queued = true, priorityClassName } = {}) {
  const j = psJob(ns, name, { ps: 1, workers: 4, task: TASK });
  if (queued) {
    j.metadata.labels = { [QUEUE_LABEL]: LOCAL_QUEUE };
  }
  if (priorityClassName) {
    for (const spec of Object.values(j.spec.replicaSpecs)) {
      spec.template = { ...spec.template, spec: { ...spec.template.spec, priorityClassName } };
    }
  }
  return j;
}


/** Waits until the job's Workload is admitted and the controller has unsuspended the job and started its master on the flavour's node. */
async function runsOnTheFlavour(ns, jobName) {
  await eventually(`${jobName}: Workload admitted`, async () => isTrue(await workloadOf(ns, jobName), "Admitted"), 60);
  const master = await kubelet.running(admin, ns, masterName(jobName), 60);
  assert.notEqual((await getJob(ns, jobName)).spec.suspend, true, `${jobName} unsuspended once admitted`);
  return master;
}

/** What the admission put on a pod: the flavour's node label and toleration, the pod-set label; and the node it runs on. */
function assertOnTheFlavour(pod, podSet) {
  assert.equal(pod.spec.nodeSelector?.[POOL.key], POOL.value, `${pod.metadata.name}: the flavour's node label`);
  assert.ok(pod.spec.tolerations?.some((t) => t.key === TAINT.key && t.effect === TAINT.effect), `${pod.metadata.name}: the flavour's toleration`);
  assert.equal(pod.metadata.labels["kueue.x-k8s.io/podset"], podSet, `${pod.metadata.name}: its pod set`);
  assert.equal(pod.spec.nodeName, NODE, `${pod.metadata.name}: scheduled onto the flavour's node`);
}

/** Waits until the job is held: suspended, no live pod, its Suspended condition saying why. */
async function held(ns, jobName, reason) {
  let last;
  try {
    return await eventually(`${jobName}: held (${reason})`, async () => {
      const j = await getJob(ns, jobName);
      const pods = (await livePods(ns, jobName)).map((p) => p.metadata.name);
      last = { suspend: j.spec.suspend, conditions: j.status?.status?.conditions, pods, workload: (await workloadOf(ns, jobName))?.status };
      const suspended = j.status?.status?.conditions?.find((c) => c.type === "Suspended" && c.status === "True");
      return j.spec.suspend === true && suspended?.reason === reason && pods.length === 0 && j;
    }, 60);
  } catch (e) {
    throw new Error(`${e.message}; last seen: ${JSON.stringify(last)}`);
  }
}

/** What deploy/rbac-kueue.yaml adds to deploy/rbac.yaml: `group/resource[/subresource]` -> verbs (pkg/test/rbac.test.js: the calls the controller sends). */
const KUEUE_NEEDED = {
  "elastic.iml.github.io/elasticjobs": ["get", "list", "watch", "delete", "patch"],
  "kueue.x-k8s.io/workloads": ["get", "list", "watch", "create", "update"],
  "kueue.x-k8s.io/workloads/status": ["patch"],
  "kueue.x-k8s.io/resourceflavors": ["list", "watch"],
  "kueue.x-k8s.io/workloadpriorityclasses": ["get"],
  "scheduling.k8s.io/priorityclasses": ["get"],
};
const VERBS = ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"];
const KUEUE_RESOURCES = [...Object.keys(KUEUE_NEEDED), "kueue.x-k8s.io/clusterqueues", "kueue.x-k8s.io/localqueues", "kueue.x-k8s.io/admissionchecks", "kueue.x-k8s.io/workloads/finalizers"];
const CLUSTER_SCOPED = new Set(["kueue.x-k8s.io/resourceflavors", "kueue.x-k8s.io/workloadpriorityclasses", "scheduling.k8s.io/priorityclasses", "kueue.x-k8s.io/clusterqueues", "kueue.x-k8s.io/admissionchecks"]);

it("with deploy/rbac-kueue.yaml the ServiceAccount is granted what the controller needs of Kueue, and nothing more (SubjectAccessReview of every verb)", async () => {
  await applyManifests(admin, "deploy/rbac-kueue.yaml");
  const { namespace: saNamespace, name } = CONTROLLER_SA;
  const subject = { user: `system:serviceaccount:${saNamespace}:${name}`, groups: ["system:serviceaccounts", `system:serviceaccounts:${saNamespace}`, "system:authenticated"] };
  assert.deepEqual(await wrongGrants(admin, subject, KUEUE_NEEDED, KUEUE_RESOURCES, VERBS, CLUSTER_SCOPED), []);
});

it("the docs' queues and queued job (examples/kueue-queues.yaml, examples/kueue-job.yaml) are accepted by the API server and Kueue's webhooks (dry run, strict)", async (t) => {
  const ns = await freshNamespace(admin, t, "kueue-examples");
  for (const file of ["examples/kueue-queues.yaml", "examples/kueue-job.yaml"]) {
    for (const obj of manifests(file)) {
      const placed = obj.metadata.namespace ? { ...obj, metadata: { ...obj.metadata, namespace: ns } } : obj;
      expectStatus(await dryRunCreate(admin, placed), [201], `${file}: ${obj.kind} ${obj.metadata.name}`);
    }
  }
});

describe("ElasticJobs queued by Kueue's real manager", () => {
  let ns;
  let controller;
  const started = Date.now();

  before(async () => {
    await applyManifests(admin, "deploy/rbac-kueue.yaml");
    ns = await namespace("kueue");
    // The flavour's node: labelled and tainted, so that only pods given the flavour's toleration run there.
    const node = expectStatus(await request(admin, "GET", `/api/v1/nodes/${NODE}`), [200], NODE);
    expectStatus(
      await request(admin, "PATCH", `/api/v1/nodes/${NODE}`, {
        body: { metadata: { labels: { [POOL.key]: POOL.value } }, spec: { taints: [...(node.spec.taints ?? []), TAINT] } },
        contentType: "application/merge-patch+json",
      }),
      [200],
      "label and taint the node",
    );
    // Quota for one job of 1 PS + 4 workers and its master: what its Workload asks, no more.
    const asks = api.workload(job(ns, "sizing"));
    const total = (resource, unit) =>
      asks.spec.podSets.reduce((sum, p) => sum + p.count * p.template.spec.containers.reduce((s, c) => s + quantity(c.resources.requests[resource] ?? "0", unit), 0), 0);
    const quota = { cpu: String(total("cpu", 1)), memory: `${total("memory", 2 ** 30)}Gi`, "ephemeral-storage": `${total("ephemeral-storage", 2 ** 30)}Gi` };
    assert.deepEqual(quota, { cpu: "6", memory: "7Gi", "ephemeral-storage": "2Gi" });
    await create({ apiVersion: KUEUE, kind: "ResourceFlavor", metadata: { name: FLAVOR }, spec: { nodeLabels: { [POOL.key]: POOL.value }, tolerations: [TOLERATION] } });
    await create(clusterQueue(CLUSTER_QUEUE, ns, FLAVOR, quota, { preemption: { withinClusterQueue: "LowerPriority" } }));
    await create({ apiVersion: KUEUE, kind: "LocalQueue", metadata: { name: LOCAL_QUEUE, namespace: ns }, spec: { clusterQueue: CLUSTER_QUEUE } });
    await create({ apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name: HIGH }, value: 1000 });
    controller = new Controller("kueue", ["--kueue", "--namespace", ns]);
    await controller.ready();
  });

  after(async () => {
    const { code } = await controller.stop();
    assert.equal(code, 0, "SIGTERM: exit 0");
    for (const path of [
      `${collection(KUEUE, "ClusterQueue")}/${CLUSTER_QUEUE}`,
      `${collection(KUEUE, "ResourceFlavor")}/${FLAVOR}`,
      `${collection("scheduling.k8s.io/v1", "PriorityClass")}/${HIGH}`,
    ]) {
      await request(admin, "DELETE", path);
    }
    await request(admin, "PATCH", `/api/v1/nodes/${NODE}`, { body: { metadata: { labels: { [POOL.key]: null } }, spec: { taints: null } }, contentType: "application/merge-patch+json" });
    console.log(`BENCH_JSON ${JSON.stringify({ name: "kueue scenarios", seconds: (Date.now() - started) / 1000 })}`);
  });

  it("a job without the queue label, with Kueue running, starts at once as before: no Workload, never suspended", async () => {
    await createJob(job(ns, "plain", { queued: false }));
    await kubelet.running(admin, ns, masterName("plain"));
    const stored = await getJob(ns, "plain");
    assert.notEqual(stored.spec.suspend, true);
    assert.equal(await workloadOf(ns, "plain"), undefined, "no Workload for a job without the label");
    assert.equal(controller.actions().filter((l) => l.job === `${ns}/plain` && l.cause === "queue").length, 0, "nothing of Kueue done for it");
    expectStatus(await request(admin, "DELETE", objectPath(stored)), [200], "delete the plain job");
  });

  it("a queued job gets its Workload, is suspended until Kueue admits it, and runs on the flavour's node with what the admission gave", async () => {
    const stored = await createJob(job(ns, "first"));
    const workload = await eventually("first: its Workload", () => workloadOf(ns, "first"));
    assert.deepEqual(workload.metadata.ownerReferences, [
      { apiVersion: stored.apiVersion, kind: "ElasticJob", name: "first", uid: stored.metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
    assert.deepEqual(workload.spec.podSets.map((p) => [p.name, p.count]), [["dlrover-master", 1], ["ps", 1], ["worker", 4]]);
    assert.equal(workload.spec.queueName, LOCAL_QUEUE);
    const master = await runsOnTheFlavour(ns, "first");
    assertOnTheFlavour(master, "dlrover-master");
    // DLRover's master writes the first plan: the task pods come on the flavour's node too.
    await createPlan(await getJob(ns, "first"), firstPlanSpec(stored));
    const tasks = await kubelet.allRunning(admin, ns, "elasticjob.dlrover/name=first,elasticjob.dlrover/replica-type!=dlrover-master", 5);
    for (const pod of tasks) {
      assertOnTheFlavour(pod, pod.metadata.labels["elasticjob.dlrover/replica-type"] === "ps" ? "ps" : "worker");
    }
  });

  it("a second job beyond the quota stays suspended with no pods until the first finishes; the first's Workload is Finished and the second runs", async () => {
    await createJob(job(ns, "second"));
    await held(ns, "second", "WorkloadNotAdmitted");
    const pending = await eventually("second: Kueue holds its Workload for quota", async () => {
      const w = await workloadOf(ns, "second");
      return condition(w, "QuotaReserved")?.reason === "Pending" && w;
    });
    assert.match(condition(pending, "QuotaReserved").message, /insufficient unused quota/);
    await sleep(1000);
    assert.deepEqual(await livePods(ns, "second"), [], "still no pod of the second");

    await kubelet.succeed(admin, ns, masterName("first"));
    const finished = await eventually("first: Workload Finished", async () => {
      const w = await workloadOf(ns, "first");
      return isTrue(w, "Finished") && w;
    });
    assert.equal(condition(finished, "Finished").reason, "Succeeded");
    assert.equal((await getJob(ns, "first")).status.phase, "Succeeded");
    assertOnTheFlavour(await runsOnTheFlavour(ns, "second"), "dlrover-master");
  });

  it("a higher-priority job preempts the running one: its pods go, it is suspended, and it runs again once the quota frees", async () => {
    await createJob(job(ns, "urgent", { priorityClassName: HIGH }));
    const urgent = await eventually("urgent: its Workload", () => workloadOf(ns, "urgent"));
    assert.deepEqual(urgent.spec.priorityClassRef, { group: "scheduling.k8s.io", kind: "PriorityClass", name: HIGH });
    assert.equal(urgent.spec.priority, 1000, "the class's value, read by the controller");
    const evicted = await held(ns, "second", "WorkloadEvicted");
    assert.match(evicted.status.status.conditions.find((c) => c.type === "Suspended").message, /Preempted|preempt/i);
    // The controller released the quota once the pods were gone: the urgent job runs.
    await runsOnTheFlavour(ns, "urgent");
    const released = await workloadOf(ns, "second");
    assert.equal(released.status.admission, undefined, "the preempted Workload's admission is removed");
    assert.ok(isTrue(released, "Requeued"), "and it is queued again");

    await kubelet.succeed(admin, ns, masterName("urgent"));
    await eventually("urgent: Workload Finished", async () => isTrue(await workloadOf(ns, "urgent"), "Finished"));
    assertOnTheFlavour(await runsOnTheFlavour(ns, "second"), "dlrover-master");
    // What the controller did for it: its master deleted, its Workload's quota released, then started again.
    const of = (action) => controller.actions(action).filter((l) => l.job === `${ns}/second`);
    assert.ok(of("deletePod").some((l) => l.name === masterName("second")), "the preempted job's master deleted");
    assert.ok(of("setWorkloadStatus").some((l) => l.clearAdmission === true), "its quota released by the controller");
    assert.deepEqual(of("setJobSuspend").map((l) => l.suspend), [true, false, true, false], "suspended, admitted, preempted, admitted again");
  });

  it("the controller's ServiceAccount was forbidden nothing", () => {
    const forbidden = controller.lines.filter((l) => /HTTP 403/.test(l.error?.message ?? ""));
    assert.deepEqual(forbidden.map((l) => `${l.msg}: ${l.error.message}`), []);
  });
});

/** A quantity (`1`, `500m`, `2Gi`, `1024Mi`) in `unit`s. */
function quantity(text, unit) {
  const m = /^([0-9.]+)(m|Ki|Mi|Gi|Ti)?$/.exec(text);
  if (!m) {
    throw new Error(`quantity ${text}`);
  }
  const scale = { m: 1e-3, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 }[m[2]] ?? 1;
  return (Number(m[1]) * scale) / unit;
}
