// Gang scheduling with Volcano's real scheduler (issue 40), `make test-volcano`: a test cluster of
// its own started with `cluster run --volcano DIR --nodes 2 --node-cpu 8` runs Volcano v1.10.0's
// vc-scheduler and vc-controller-manager beside the default scheduler (tests/cluster/volcano.go),
// with Volcano's CRDs. Nothing of Volcano is played here: the test plays only DLRover's master (its
// first ScalePlan, as the other scenarios do) and the garbage collector (the job's pods and
// PodGroup deleted with it at once, as tests/e2e/gang/gang.js's deleteJob does for the pods).
//
// Two jobs whose replicas say `BatchScheduler: volcano`, each 1 PS and 2 workers of 4 CPUs (the
// first plan: a PS, a chief and a worker, minResources 12 CPUs) and a master of 100m, on two nodes
// of 8 CPUs: Volcano's enqueue admits a PodGroup when its minResources fit the idle CPUs times 1.2
// less what the admitted groups asked, so one job's gang fits, not two. The first job's PodGroup goes
// Inqueue and all its pods run; the second's stays Pending and the controller makes none of its
// task pods (its GangPending condition says why); once the first job is deleted, the second's
// PodGroup is admitted and its pods come and run. Both masters are Volcano's to place (their
// schedulerName) outside the job's group: Volcano's podgroup controller gives each a PodGroup of
// its own. The figures printed (t.diagnostic): each job's time from created to every pod Running.
import assert from "node:assert/strict";
import { before, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { collection, expectStatus, request } from "../kube.js";
import { psJob } from "../jobs.js";
import { Controller, MASTER_IMAGE, admin, createJob, eventually, getJob, masterName, namespace, useCluster } from "../scenario.js";
import { TASKS, VOLCANO, allRun, deleteJob, grantPodGroups, masterRuns, podGroupOf, tasksOf, writeFirstPlan } from "../gang/gang.js";

useCluster();

/** How long the test watches the second job held back: several of Volcano's 1 s cycles. */
const HELD_MS = 5_000;
const NODES = 2;
const NODE_CPU = 8;
const TASK_CPU = 4;

before(async () => {
  const nodes = (await request(admin, "GET", "/api/v1/nodes", { query: { labelSelector: "type=kwok" } })).body.items ?? [];
  assert.deepEqual(nodes.map((n) => n.status.allocatable.cpu), Array(NODES).fill(String(NODE_CPU)),
    "run with `make test-volcano` (cluster run --volcano DIR --nodes 2 --node-cpu 8)");
  await grantPodGroups();
});

/** A job of 1 PS and 2 workers of 4 CPUs whose replicas say `BatchScheduler: volcano`; its master asks for 100m. */
function volcanoJob(ns, name) {
  const task = { name: "main", image: "tf:2", command: ["python", "-m", "deepctr.train"], resources: { requests: { cpu: String(TASK_CPU), memory: "1Gi" } } };
  const job = psJob(ns, name, { ps: 1, workers: 2, task });
  const master = { name: "main", image: MASTER_IMAGE, resources: { requests: { cpu: "100m", memory: "256Mi" } } };
  job.spec.replicaSpecs["dlrover-master"] = { template: { spec: { restartPolicy: "Never", containers: [master] } } };
  for (const spec of Object.values(job.spec.replicaSpecs)) {
    spec.BatchScheduler = "volcano";
  }
  return job;
}

const phaseOf = async (ns, name) => (await podGroupOf(VOLCANO, ns, name))?.status?.phase;
const gangPending = async (ns, name) => (await getJob(ns, name)).status?.status?.conditions?.find((c) => c.type === "GangPending");

/** Creates the job, waits for its master to run (Volcano binds it) and writes its first plan; resolves to the stored job and when it was created (ms). */
async function start(ns, name) {
  const created = Date.now();
  const job = await createJob(volcanoJob(ns, name));
  await masterRuns(ns, name);
  const master = (await request(admin, "GET", `${collection("v1", "Pod", ns)}/${masterName(name)}`)).body;
  assert.equal(master.spec.schedulerName, "volcano", "the master is Volcano's");
  assert.match(master.metadata.annotations?.["scheduling.k8s.io/group-name"] ?? "", /^podgroup-/, "the master in a PodGroup of its own, made by Volcano's podgroup controller");
  const group = await eventually(`${name}'s PodGroup`, () => podGroupOf(VOLCANO, ns, name));
  assert.equal(group.spec.minMember, TASKS, "minMember: the task pods of the plan");
  assert.equal(group.spec.minResources?.cpu, String(TASKS * TASK_CPU), "minResources: what they request");
  await writeFirstPlan(job);
  return { job, created };
}

it("two jobs with BatchScheduler: volcano of which one fits: the first's PodGroup is admitted and its pods run; the second's stays Pending with none of its task pods made until the first is deleted, then its pods come and run (figures volcano.*)", async (t) => {
  const ns = await namespace("volcano-real");
  const controller = new Controller("volcano-real", ["--namespace", ns, "--master-image", MASTER_IMAGE]);
  await controller.ready();
  assert.equal((await controller.line("starting", (l) => l.msg === "starting")).podGroups, VOLCANO, "Volcano's PodGroups watched");

  const a = await start(ns, "first");
  const firstRuns = await allRun(ns, "first", a.created);
  assert.ok(["Inqueue", "Running"].includes(await phaseOf(ns, "first")), "the first job's PodGroup admitted");
  for (const pod of await tasksOf(ns, "first")) {
    assert.equal(pod.spec.schedulerName, "volcano", pod.metadata.name);
    assert.equal(pod.metadata.annotations?.["scheduling.k8s.io/group-name"], "first", pod.metadata.name);
  }
  t.diagnostic(`volcano.first: job created -> master and ${TASKS} task pods Running: ${firstRuns.toFixed(1)} s`);

  const b = await start(ns, "second");
  for (const until = Date.now() + HELD_MS; Date.now() < until; await sleep(250)) {
    assert.equal(await phaseOf(ns, "second"), "Pending", "the second job's PodGroup Pending while the first runs");
    assert.deepEqual((await tasksOf(ns, "second")).map((p) => p.metadata.name), [], "no task pod of the second job while its PodGroup is Pending");
  }
  const waiting = await eventually("the second job's GangPending condition", async () => {
    const condition = await gangPending(ns, "second");
    return condition?.status === "True" && condition;
  });
  assert.equal(waiting.reason, "PodGroupPending");
  const group = await podGroupOf(VOLCANO, ns, "second");
  const unschedulable = group.status?.conditions?.find((c) => c.type === "Unschedulable");
  assert.equal(unschedulable?.reason, "NotEnoughResources", "Volcano says why it waits");

  // The first job is deleted; its PodGroup goes with it, as the garbage collector would take it.
  const deleted = await deleteJob(ns, "first");
  expectStatus(await request(admin, "DELETE", `${collection(VOLCANO, "PodGroup", ns)}/first`), [200, 404], "delete the first job's PodGroup");
  const secondRuns = await allRun(ns, "second", b.created);
  await eventually("GangPending False once admitted", async () => (await gangPending(ns, "second"))?.status === "False");
  t.diagnostic(`volcano.second: job created -> master and ${TASKS} task pods Running: ${secondRuns.toFixed(1)} s (${((Date.now() - deleted) / 1000).toFixed(1)} s after the first job was deleted)`);
  assert.equal((await controller.stop()).code, 0);
});
