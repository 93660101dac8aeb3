// Kueue's real manager with its ElasticJobsViaWorkloadSlices gate on (`make test-kueue`'s second
// cluster, KUEUE_WORKLOAD_SLICES=on; skipped on the first, whose gate is off), beside
// `elasticjob controller --kueue --kueue-workload-slices`: a queued job annotated
// `kueue.x-k8s.io/elastic-job: "true"` that DLRover's master scales down (the test plays its plan)
// lowers its admitted Workload's counts in place once the removed pods are gone, and Kueue gives
// the freed quota to the job waiting for it. Figures printed, nothing timed asserted.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { applyManifests, collection, request } from "../kube.js";
import * as kubelet from "../kubelet.js";
import { psJob } from "../jobs.js";
import { Controller, admin, createJob, createPlan, eventually, firstPlanSpec, getJob, masterName, namespace, planSucceeded, useCluster } from "../scenario.js";
import { KUEUE, QUEUE_LABEL, clusterQueue, condition, create, isTrue, livePods, workloadOf } from "./queues.js";

useCluster();

const ON = process.env.KUEUE_WORKLOAD_SLICES === "on";
const suffix = Math.random().toString(16).slice(2, 8);
const FLAVOR = `plain-${suffix}`;
const CLUSTER_QUEUE = `slices-${suffix}`;
const LOCAL_QUEUE = "elastic";
const TASK = { name: "main", image: "tf:2", command: ["python", "-m", "deepctr.train"], resources: { requests: { cpu: "1", memory: "1Gi" } } };

/** A queued job of 1 PS and `workers` workers, 1 CPU and 1 GiB each; its master the core's default (1 CPU, 2 GiB, 2 GiB of ephemeral storage). */
function job(ns, name, workers, { elastic = false } = {}) {
  const j = psJob(ns, name, { ps: 1, workers, task: TASK });
  j.metadata.labels = { [QUEUE_LABEL]: LOCAL_QUEUE };
  if (elastic) {
    j.metadata.annotations = { "kueue.x-k8s.io/elastic-job": "true" };
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
