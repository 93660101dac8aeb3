// Gang scheduling with Volcano's PodGroups and no Volcano scheduler (issues 40 and 47): Volcano's
// PodGroup CRD (generated from Volcano's API module by tests/cluster/gang/volcano-crd.sh,
// $VOLCANO_CRD) is installed, and the test plays Volcano's scheduler: its enqueue action moves a
// PodGroup from Pending to Inqueue once the queue has room for its minResources (the PodGroup has
// no status subresource: the scheduler writes the object), and its allocate action binds the pods.
// The job's master is a member of its PodGroup (docs/gang.md): the PodGroup is made with it, for
// the master alone (minMember 1) with the gang's minResources; the master is bound only once the
// group is Inqueue; once the job runs the task pods are made, the PodGroup is updated to the task
// floor once the test has bound them, and it is deleted once the job has finished. Twice: without --gang-scheduler-name, for a
// job whose replicas say `BatchScheduler: volcano` (the controller watches Volcano's PodGroups
// because the API server serves them), and with `--gang-scheduler-name volcano` for a plain job.
// The figure printed (t.diagnostic): volcano.firstPlan, first plan written -> every task pod
// created (s).
import assert from "node:assert/strict";
import { before, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { applyManifests, collection, expectStatus, request } from "../kube.js";
import * as kubelet from "../kubelet.js";
import { Controller, MASTER_IMAGE, admin, createJob, eventually, getJob, masterName, namespace, podsOf, useCluster } from "../scenario.js";
import { TASKS, VOLCANO, gangJob, grantPodGroups, masterRuns, podGroupOf, tasksOf, writeFirstPlan } from "./gang.js";

useCluster();

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
async function bind(ns, name, node = "kwok-node-0") {
  const body = { apiVersion: "v1", kind: "Binding", metadata: { name, namespace: ns }, target: { apiVersion: "v1", kind: "Node", name: node } };
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
  it(`${title}: its Volcano PodGroup is made with its master, which waits while it is Pending; once Volcano enqueues it the master runs, the PodGroup goes to the task floor and the task pods come; it is deleted once the job has finished (figure volcano.firstPlan)`, async (t) => {
    const ns = await namespace(flag ? "volcano-flag" : "volcano-batch");
    const controller = new Controller("volcano", ["--namespace", ns, "--master-image", MASTER_IMAGE, ...(flag ? ["--gang-scheduler-name", "volcano"] : [])]);
    await controller.ready();
    assert.equal((await controller.line("starting", (l) => l.msg === "starting")).podGroups, VOLCANO, "Volcano's PodGroups watched");
    const job = await createJob(gangJob(ns, "mnist", { batchScheduler }));
    // The master: a member of the job's PodGroup, which is made for it alone with the gang's room.
    const master = await eventually("master pod", async () => (await podsOf(ns, "mnist")).find((p) => p.metadata.name === masterName("mnist")));
    assert.equal(master.spec.schedulerName, "volcano");
    assert.equal(master.metadata.annotations?.["scheduling.k8s.io/group-name"], "mnist", "the master is in the job's group");
    assert.equal(master.metadata.annotations?.["volcano.sh/task-spec"], "dlrover-master");
    const group = await eventually("the job's PodGroup", () => podGroupOf(VOLCANO, ns, "mnist"));
    assert.equal(group.spec.minMember, 1, "minMember: the master alone, until the job runs");
    assert.deepEqual(group.spec.minTaskMember, { "dlrover-master": 1 });
    // The gang's room: the master's 100m and the floor's 3 task pods of 1.5 CPU.
    assert.equal(group.spec.minResources?.cpu, "4600m", "minResources: the master and the task floor");
    assert.equal(group.metadata.ownerReferences?.[0]?.uid, job.metadata.uid, "owned by the job");
    // Not admitted yet: the master waits unbound, and the job says why.
    await setPhase(ns, "mnist", "Pending");
    const waiting = await eventually("the job's GangPending condition", async () => {
      const condition = (await getJob(ns, "mnist")).status?.status?.conditions?.find((c) => c.type === "GangPending");
      return condition?.status === "True" && condition;
    });
    assert.equal(waiting.reason, "PodGroupPending");
    assert.match(waiting.message, /Pending/);
    // Volcano enqueues the group and binds the master.
    await setPhase(ns, "mnist", "Inqueue");
    await bind(ns, master.metadata.name);
    await masterRuns(ns, "mnist");
    await eventually("job Running", async () => (await getJob(ns, "mnist")).status?.phase === "Running");
    const written = Date.now();
    await writeFirstPlan(job);
    const tasks = await eventually(`${TASKS} task pods`, async () => {
      const pods = await tasksOf(ns, "mnist");
      return pods.length === TASKS && pods;
    }, 30);
    t.diagnostic(`volcano.firstPlan (${flag ? "--gang-scheduler-name volcano" : "BatchScheduler: volcano"}): first plan written -> every task pod created: ${((Date.now() - written) / 1000).toFixed(2)} s`);
    // Until Volcano has bound the floor's task pods, minMember stays at the master alone: a group
    // raised above what is bound goes Pending (session.go's jobStatus) and loses its room.
    await sleep(1_000);
    assert.equal((await podGroupOf(VOLCANO, ns, "mnist")).spec.minMember, 1, "the master alone while the task pods are unbound");
    for (const [i, pod] of tasks.entries()) {
      await bind(ns, pod.metadata.name, `kwok-node-${i % 2}`);
    }
    const floor = await eventually("the PodGroup at the task floor once the floor is bound", async () => {
      const g = await podGroupOf(VOLCANO, ns, "mnist");
      return g?.spec.minMember === TASKS + 1 && g;
    });
    assert.deepEqual(floor.spec.minTaskMember, { ps: 1, chief: 1, worker: 1 }, "minTaskMember: the floor of each type");
    await eventually("GangPending False once admitted", async () => (await getJob(ns, "mnist")).status?.status?.conditions?.find((c) => c.type === "GangPending")?.status === "False");
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
    // The controller logs an action once its call has returned: the line may come after the change is seen.
    await eventually("deletePodGroup carried out (the controller's log line)", () => controller.actions("deletePodGroup").some((l) => l.outcome === "done"), 10);
    // Made, then updated once when the job ran: the stored PodGroup (Volcano's defaults, the phase
    // the test set) reads as the one the core wants; and no pass waited for a write the caches
    // never showed.
    assert.equal(controller.actions("createOrUpdatePodGroup").length, 2, "made, then updated once");
    assert.deepEqual(controller.lines.filter((l) => l.level === "warn").map((l) => l.msg), [], "no warning");
    assert.equal((await controller.stop()).code, 0);
  });
}
