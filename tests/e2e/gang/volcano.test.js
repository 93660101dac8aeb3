// Gang scheduling with Volcano's PodGroups and no Volcano scheduler (issue 40): Volcano's PodGroup
// CRD (generated from Volcano's API module by tests/cluster/gang/volcano-crd.sh, $VOLCANO_CRD) is
// installed, and the test plays Volcano's scheduler: its enqueue action moves a PodGroup from
// Pending to Inqueue once the queue has room for its minResources (the PodGroup has no status
// subresource: the scheduler writes the object), and its allocate action binds the pods. The
// controller must make no task pod while the job's PodGroup is Pending, and make them once it is
// Inqueue (as training-operator does), and delete it once the job has finished. Twice: without --gang-scheduler-name, for a job whose
// replicas say `BatchScheduler: volcano` (the controller watches Volcano's PodGroups because the
// API server serves them), and with `--gang-scheduler-name volcano` for a plain job. The figure
// printed (t.diagnostic): volcano.inqueue, PodGroup Inqueue -> every task pod created (s).
import assert from "node:assert/strict";
import { before, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { applyManifests, collection, expectStatus, request } from "../kube.js";
import * as kubelet from "../kubelet.js";
import { Controller, MASTER_IMAGE, admin, createJob, eventually, getJob, masterName, namespace, podsOf, useCluster } from "../scenario.js";
import { TASKS, VOLCANO, gangJob, grantPodGroups, masterRuns, podGroupOf, tasksOf, writeFirstPlan } from "./gang.js";

useCluster();

/** How long the test watches that no task pod comes while the PodGroup is Pending. */
const HELD_MS = 3_000;

before(async () => {
  assert.ok(process.env.VOLCANO_CRD, "run with `make test-gang-scheduler` (VOLCANO_CRD names Volcano's PodGroup CRD, tests/cluster/gang/volcano-crd.sh)");
  await applyManifests(admin, process.env.VOLCANO_CRD);
  await eventually("Volcano's PodGroups served", async () => {
    const answer = await request(admin, "GET", `/apis/${VOLCANO}`);
    return answer.status === 200 && answer.body.resources?.some((r) => r.name === "podgroups");
  }, 60);
  await grantPodGroups();
});

/** Volcano's scheduler binds the pod (its allocate action): to the first KWOK node. */
async function bind(ns, name) {
  const body = { apiVersion: "v1", kind: "Binding", metadata: { name, namespace: ns }, target: { apiVersion: "v1", kind: "Node", name: "kwok-node-0" } };
  expectStatus(await request(admin, "POST", `/api/v1/namespaces/${ns}/pods/${name}/binding`, { body }), [201], `bind ${name}`);
}

/** Volcano's scheduler sets the PodGroup's phase (the object itself: no status subresource). */
async function setPhase(ns, jobName, phase) {
  const path = `${collection(VOLCANO, "PodGroup", ns)}/${jobName}`;
  expectStatus(await request(admin, "PATCH", path, { body: { status: { phase } }, contentType: "application/merge-patch+json" }), [200], `PodGroup ${jobName} ${phase}`);
}

for (const { title, flag, batchScheduler } of [
  { title: "without --gang-scheduler-name, a job whose replicas say BatchScheduler: volcano", flag: false, batchScheduler: "volcano" },
  { title: "with --gang-scheduler-name volcano, a plain job", flag: true, batchScheduler: undefined },
]) {
  it(`${title}: its Volcano PodGroup is made; no task pod while it is Pending; they come once Volcano's enqueue makes it Inqueue; it is deleted once the job has finished (figure volcano.inqueue)`, async (t) => {
    const ns = await namespace(flag ? "volcano-flag" : "volcano-batch");
    const controller = new Controller("volcano", ["--namespace", ns, "--master-image", MASTER_IMAGE, ...(flag ? ["--gang-scheduler-name", "volcano"] : [])]);
    await controller.ready();
    assert.equal((await controller.line("starting", (l) => l.msg === "starting")).podGroups, VOLCANO, "Volcano's PodGroups watched");
    const job = await createJob(gangJob(ns, "mnist", { batchScheduler }));
    // The master: Volcano's to place too (its schedulerName), outside the group.
    const master = await eventually("master pod", async () => (await podsOf(ns, "mnist")).find((p) => p.metadata.name === masterName("mnist")));
    assert.equal(master.spec.schedulerName, "volcano");
    assert.equal(master.metadata.annotations?.["scheduling.k8s.io/group-name"], undefined, "the master is not in the group");
    await bind(ns, master.metadata.name);
    await masterRuns(ns, "mnist");
    const group = await eventually("the job's PodGroup", () => podGroupOf(VOLCANO, ns, "mnist"));
    assert.equal(group.spec.minMember, TASKS, "minMember: the task pods of the plan");
    assert.equal(group.metadata.ownerReferences?.[0]?.uid, job.metadata.uid, "owned by the job");
    await setPhase(ns, "mnist", "Pending");
    await writeFirstPlan(job);
    for (const until = Date.now() + HELD_MS; Date.now() < until; await sleep(250)) {
      assert.deepEqual((await tasksOf(ns, "mnist")).map((p) => p.metadata.name), [], "no task pod while the PodGroup is Pending");
    }
    // The job says why it waits: its GangPending condition, with the PodGroup's phase.
    const waiting = await eventually("the job's GangPending condition", async () => {
      const condition = (await getJob(ns, "mnist")).status?.status?.conditions?.find((c) => c.type === "GangPending");
      return condition?.status === "True" && condition;
    });
    assert.equal(waiting.reason, "PodGroupPending");
    assert.match(waiting.message, /Pending/);
    const inqueue = Date.now();
    await setPhase(ns, "mnist", "Inqueue");
    const tasks = await eventually(`${TASKS} task pods`, async () => {
      const pods = await tasksOf(ns, "mnist");
      return pods.length === TASKS && pods;
    }, 30);
    await eventually("GangPending False once admitted", async () => (await getJob(ns, "mnist")).status?.status?.conditions?.find((c) => c.type === "GangPending")?.status === "False");
    t.diagnostic(`volcano.inqueue (${flag ? "--gang-scheduler-name volcano" : "BatchScheduler: volcano"}): PodGroup Inqueue -> every task pod created: ${((Date.now() - inqueue) / 1000).toFixed(2)} s`);
    for (const pod of tasks) {
      assert.equal(pod.spec.schedulerName, "volcano", pod.metadata.name);
      assert.equal(pod.metadata.annotations?.["scheduling.k8s.io/group-name"], "mnist", pod.metadata.name);
      assert.equal(pod.metadata.annotations?.["volcano.sh/task-spec"], pod.metadata.labels["elasticjob.dlrover/replica-type"], pod.metadata.name);
    }
    // The master ends well (DLRover's master exits 0 once training is done): the job has finished,
    // and its PodGroup is deleted (as training-operator deletes it).
    await kubelet.succeed(admin, ns, masterName("mnist"));
    await eventually("job Succeeded", async () => (await getJob(ns, "mnist")).status?.phase === "Succeeded");
    await eventually("its PodGroup deleted", async () => (await podGroupOf(VOLCANO, ns, "mnist")) === undefined);
    assert.ok(controller.actions("deletePodGroup").some((l) => l.outcome === "done"), "deletePodGroup carried out");
    // Made once, never patched: the stored PodGroup (Volcano's defaults, the phase the test set) reads
    // as the one the core wants; and no pass waited for a write the caches never showed.
    assert.equal(controller.actions("createOrUpdatePodGroup").length, 1, "one createOrUpdatePodGroup");
    assert.deepEqual(controller.lines.filter((l) => l.level === "warn").map((l) => l.msg), [], "no warning");
    assert.equal((await controller.stop()).code, 0);
  });
}
