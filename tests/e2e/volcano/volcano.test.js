// Gang scheduling with Volcano's real scheduler (issues 40 and 47), `make test-volcano`: a test
// cluster of its own started with `cluster run --volcano DIR --nodes 2 --node-cpu 8` runs Volcano
// v1.10.0's vc-scheduler and vc-controller-manager beside the default scheduler
// (tests/cluster/volcano.go), with Volcano's CRDs. Nothing of Volcano is played here: the test plays
// only DLRover's master (its ScalePlans, as the other scenarios do), the kubelet's verdicts (KWOK
// runs the pods; a pod failed or a master ended is the test's word) and the garbage collector (a
// deleted job's pods and PodGroup deleted with it at once, as tests/e2e/gang/gang.js's deleteJob
// does for the pods).
//
// Each job's master is the operator's default one (1 CPU, 2Gi, 2Gi of ephemeral storage) and a
// member of its job's PodGroup (docs/gang.md): Volcano binds it only once it admitted the gang, whose
// minResources count it. The scenarios of issue 47, each a test printing its figures
// (t.diagnostic):
//   (a) volcano.a.*   two jobs of a master and three 4-CPU task pods created at once on two nodes of
//                     8 CPUs: one runs whole within 30 s; the other has no pod bound, its PodGroup
//                     Pending, and runs whole once the first is deleted
//   (b) volcano.b.*   a running job scaled from 2 to 4 workers by a plan and back to 2: the pods
//                     that ran never stop, the added ones bind, the PodGroup never Pending
//   (c) volcano.c.*   a failed worker relaunched by the master's plan binds under the gang
//   (d) volcano.d.*   suspended: no PodGroup of the job, nothing of it in the queue; resumed: it runs
//   (e) volcano.e.*   a template asking for a GPU in limits alone: minResources count the GPUs
//   (f) volcano.f.*   a priorityClass removed from the job: the PodGroup updated in one pass
//   (g) volcano.g.*   a failed job kept: no PodGroup of it, no podgroup-<uid> of its master
import assert from "node:assert/strict";
import { before, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { collection, expectStatus, request } from "../kube.js";
import * as kubelet from "../kubelet.js";
import { psJob } from "../jobs.js";
import { Controller, MASTER_IMAGE, admin, createJob, createPlan, eventually, getJob, masterName, masterPsHosts, masterResource, namespace, patchJobSpec, planSucceeded, podsOf, useCluster } from "../scenario.js";
import { VOLCANO, allRun, deleteJob, grantPodGroups, podGroupOf, tasksOf, writeFirstPlan } from "../gang/gang.js";

useCluster();

/** How long the test watches a job held back: several of Volcano's 1 s cycles. */
const HELD_MS = 5_000;
const NODES = 2;
const NODE_CPU = 8;
/** The task pods of the master's first plan for `volcanoJob` (a PS, a chief and a worker). */
const TASKS = 3;

before(async () => {
  const nodes = (await request(admin, "GET", "/api/v1/nodes", { query: { labelSelector: "type=kwok" } })).body.items ?? [];
  assert.deepEqual(nodes.map((n) => n.status.allocatable.cpu), Array(NODES).fill(String(NODE_CPU)),
    "run with `make test-volcano` (cluster run --volcano DIR --nodes 2 --node-cpu 8)");
  await grantPodGroups();
});

/**
 * A job of 1 PS and `workers` workers of `cpu` CPUs whose replicas say `BatchScheduler: volcano`;
 * its master the operator's default one (1 CPU). `limits` go to the workers' container.
 */
function volcanoJob(ns, name, { cpu = "4", workers = 2, limits, schedulingPolicy } = {}) {
  const task = { name: "main", image: "tf:2", command: ["python", "-m", "deepctr.train"], resources: { requests: { cpu, memory: "1Gi" } } };
  const job = psJob(ns, name, { ps: 1, workers, task });
  if (limits) {
    // The workers' own template (psJob gives every replica the same one).
    job.spec.replicaSpecs.worker.template = structuredClone(job.spec.replicaSpecs.worker.template);
    job.spec.replicaSpecs.worker.template.spec.containers[0].resources.limits = limits;
  }
  for (const spec of Object.values(job.spec.replicaSpecs)) {
    spec.BatchScheduler = "volcano";
  }
  if (schedulingPolicy) {
    job.spec.runPolicy = { ...job.spec.runPolicy, schedulingPolicy };
  }
  return job;
}

const phaseOf = async (ns, name) => (await podGroupOf(VOLCANO, ns, name))?.status?.phase;
const gangPending = async (ns, name) => (await getJob(ns, name)).status?.status?.conditions?.find((c) => c.type === "GangPending");
const seconds = (since) => ((Date.now() - since) / 1000).toFixed(1);

/** The PodGroups of the namespace, by name: the jobs' and any Volcano's podgroup controller made. */
const podGroupsIn = async (ns) => (expectStatus(await request(admin, "GET", collection(VOLCANO, "PodGroup", ns)), [200], "PodGroups").items ?? []).map((g) => g.metadata.name).sort();

/** The CPU Volcano counts allocated in the `default` queue (its status), or undefined when none. */
const allocatedCpu = async () => expectStatus(await request(admin, "GET", `/apis/${VOLCANO}/queues/default`), [200], "Queue default").status?.allocated?.cpu;

/** The job's pods bound to a node, the master's too. */
const boundPods = async (ns, name) => (await podsOf(ns, name)).filter((p) => p.spec.nodeName).map((p) => p.metadata.name);

/** A controller of the namespace (Volcano's PodGroups watched: the API server serves them). */
async function controllerOf(ns, name) {
  const controller = await new Controller(name, ["--namespace", ns, "--master-image", MASTER_IMAGE]).ready();
  assert.equal((await controller.line("starting", (l) => l.msg === "starting")).podGroups, VOLCANO, "Volcano's PodGroups watched");
  return controller;
}

/** Waits until the job's master runs (Volcano bound it: its group admitted), then writes the master's first plan. */
async function firstPlanOnceTheMasterRuns(ns, job, wait = 60) {
  await kubelet.running(admin, ns, masterName(job.metadata.name), wait);
  return writeFirstPlan(job);
}

/** Checks that every controller write of a PodGroup was carried out and nothing was warned. */
function noRefusal(controller) {
  // Whole lines on failure: what was refused and why.
  assert.deepEqual(controller.actions("createOrUpdatePodGroup").filter((l) => l.outcome !== "done"), [], "every PodGroup write done");
  assert.deepEqual(controller.lines.filter((l) => l.level === "warn"), [], "no warning");
}

/**
 * A namespace `label` with its controller, and job `name` (`volcanoJob`'s options) made there and
 * run whole: its master, its first plan written once the master runs, its `tasks` task pods.
 */
async function runningJob(label, name, options, tasks = TASKS) {
  const ns = await namespace(label);
  const controller = await controllerOf(ns, label);
  const created = Date.now();
  const job = await createJob(volcanoJob(ns, name, options));
  await firstPlanOnceTheMasterRuns(ns, job);
  await allRun(ns, name, created, 60, tasks);
  await atFloor(ns, name, tasks);
  return { ns, controller, job };
}

/**
 * Waits until the job's PodGroup is at its floor, raised from the master alone once Volcano bound
 * the floor's task pods: minMember the `floor` task pods and the master, minTaskMember by type.
 */
async function atFloor(ns, name, floor) {
  return eventually(`${name}'s PodGroup at its floor (minMember ${floor} + the master) once its task pods are bound`, async () => {
    const group = await podGroupOf(VOLCANO, ns, name);
    return group?.spec.minMember === floor + 1 && !("dlrover-master" in (group.spec.minTaskMember ?? {})) && group;
  });
}

/**
 * The end of a scenario: nothing refused, the job deleted, the controller stopped; the job deleted
 * even when something was refused, so that the next scenario has the cluster's room.
 */
async function finish(controller, ns, name) {
  let stopped;
  try {
    noRefusal(controller);
  } finally {
    await deleteJob(ns, name);
    stopped = await controller.stop();
  }
  assert.equal(stopped.code, 0);
}

it("(a) two jobs of a 1-CPU master and three 4-CPU task pods created at once on two nodes of 8 CPUs: one runs whole within 30 s, the other has no pod bound until the first is deleted, then runs whole (figures volcano.a.*)", async (t) => {
  const ns = await namespace("volcano-a");
  const controller = await controllerOf(ns, "volcano-a");
  const created = Date.now();
  const jobs = await Promise.all(["a", "b"].map((name) => createJob(volcanoJob(ns, name))));
  for (const job of jobs) {
    const group = await eventually(`${job.metadata.name}'s PodGroup`, () => podGroupOf(VOLCANO, ns, job.metadata.name));
    // The gang's room: the master's 1 CPU and the floor's 3 task pods of 4.
    assert.equal(group.spec.minResources?.cpu, "13", "minResources: the master and the task floor");
    assert.equal(group.spec.minMember, 1, "the master alone until the job runs");
  }
  // Volcano admits one gang: its master is bound, and DLRover's master writes the first plan.
  const first = await eventually("one job's master Running", async () => {
    for (const job of jobs) {
      const master = (await podsOf(ns, job.metadata.name)).find((p) => p.metadata.name === masterName(job.metadata.name));
      if (master && kubelet.isRunning(master)) {
        return job;
      }
    }
    return undefined;
  }, 30);
  const second = jobs.find((j) => j !== first);
  const [one, other] = [first.metadata.name, second.metadata.name];
  await writeFirstPlan(first);
  const firstRuns = await allRun(ns, one, created, 30);
  t.diagnostic(`volcano.a.first: jobs created -> ${one}'s master and ${TASKS} task pods Running: ${firstRuns.toFixed(1)} s`);
  assert.ok(firstRuns <= 30, `${one} runs whole within 30 s`);
  await atFloor(ns, one, TASKS);
  for (const until = Date.now() + HELD_MS; Date.now() < until; await sleep(250)) {
    assert.deepEqual(await boundPods(ns, other), [], `no pod of ${other} bound, its master neither, while ${one} runs`);
    assert.equal(await phaseOf(ns, other), "Pending", `${other}'s PodGroup Pending`);
  }
  const waiting = await gangPending(ns, other);
  assert.equal(waiting?.reason, "PodGroupPending", `${other}'s GangPending condition says why`);
  assert.deepEqual(await podGroupsIn(ns), ["a", "b"], "no PodGroup but the jobs': no podgroup-<uid> of a master");

  const deleted = await deleteJob(ns, one);
  expectStatus(await request(admin, "DELETE", `${collection(VOLCANO, "PodGroup", ns)}/${one}`), [200, 404], `delete ${one}'s PodGroup`);
  await firstPlanOnceTheMasterRuns(ns, second);
  const secondRuns = await allRun(ns, other, deleted, 60);
  t.diagnostic(`volcano.a.second: ${one} deleted -> ${other}'s master and ${TASKS} task pods Running: ${secondRuns.toFixed(1)} s`);
  await eventually(`${other}'s GangPending false once admitted`, async () => (await gangPending(ns, other))?.status === "False");
  await finish(controller, ns, other);
});

it("(b) a running job scaled from 2 to 4 workers by a plan and back to 2: the pods that ran never stop, the added ones bind, the PodGroup is never Pending (figures volcano.b.*)", async (t) => {
  // 1 PS and 3 workers of 1 CPU: the first plan is a PS, a chief and 2 workers.
  const { ns, controller, job } = await runningJob("volcano-b", "elastic", { cpu: "1", workers: 3 }, 4);
  const ran = new Map((await tasksOf(ns, "elastic")).map((p) => [p.metadata.name, p.metadata.uid]));
  const floor = (await podGroupOf(VOLCANO, ns, "elastic")).spec.minMember;
  const resource = masterResource({ cpu: "1", memory: "1Gi" });
  const planFor = (workers) => ({ replicaResourceSpecs: { ps: { replicas: 1, resource }, chief: { replicas: 1, resource }, worker: { replicas: workers, resource } }, psHosts: masterPsHosts(job, 1) });
  let watching = true;
  const watched = (async () => {
    const seen = [];
    while (watching) {
      const live = new Map((await tasksOf(ns, "elastic")).map((p) => [p.metadata.name, p]));
      for (const [name, uid] of ran) {
        const pod = live.get(name);
        if (!pod || pod.metadata.uid !== uid || !kubelet.isRunning(pod)) {
          seen.push(`${name} stopped`);
        }
      }
      const phase = await phaseOf(ns, "elastic");
      if (phase === "Pending") {
        seen.push("PodGroup Pending");
      }
      await sleep(200);
    }
    return seen;
  })();
  const up = Date.now();
  await planSucceeded(ns, (await createPlan(job, planFor(4))).metadata.name, 60);
  const scaledUp = await allRun(ns, "elastic", up, 60, 6);
  t.diagnostic(`volcano.b.up: plan of 4 workers written -> every pod Running: ${scaledUp.toFixed(1)} s`);
  const down = Date.now();
  await planSucceeded(ns, (await createPlan(job, planFor(2))).metadata.name, 60);
  await eventually("back to 2 workers", async () => (await tasksOf(ns, "elastic")).length === 4, 60);
  t.diagnostic(`volcano.b.down: plan of 2 workers written -> back to 2 workers: ${seconds(down)} s`);
  watching = false;
  assert.deepEqual(await watched, [], "the pods that ran never stopped, and the PodGroup was never Pending");
  assert.equal((await podGroupOf(VOLCANO, ns, "elastic")).spec.minMember, floor, "the floor stays at the first plan's workers, whatever the plan adds");
  await finish(controller, ns, "elastic");
});

it("(c) a failed worker relaunched by the master's plan binds under the gang (figure volcano.c.relaunch)", async (t) => {
  const { ns, controller, job } = await runningJob("volcano-c", "relaunch", { cpu: "1", workers: 3 }, 4);
  const workers = (await tasksOf(ns, "relaunch")).filter((p) => p.metadata.labels["elasticjob.dlrover/replica-type"] === "worker");
  const gone = workers[0];
  const rank = Number(gone.metadata.labels["elasticjob.dlrover/rank-index"]);
  const id = 1 + Math.max(...workers.map((p) => Number(p.metadata.labels["elasticjob.dlrover/replica-index"])));
  await kubelet.fail(admin, ns, gone.metadata.name, { exitCode: 1 });
  const failed = Date.now();
  // DLRover's master relaunches the rank: a plan whose createPods entry takes it, with a new id.
  const resource = masterResource({ cpu: "1", memory: "1Gi" });
  const name = `relaunch-edljob-worker-${id}`;
  const plan = await createPlan(job, {
    createPods: [{ name, type: "worker", id, rankIndex: rank, service: `relaunch-edljob-worker-${rank}.${ns}.svc:3333`, resource }],
    psHosts: masterPsHosts(job, 1),
  });
  await planSucceeded(ns, plan.metadata.name, 60);
  await kubelet.running(admin, ns, name, 60);
  t.diagnostic(`volcano.c.relaunch: worker failed -> its relaunch Running: ${seconds(failed)} s`);
  assert.notEqual(await phaseOf(ns, "relaunch"), "Pending", "the PodGroup not sent Pending by the relaunch");
  await finish(controller, ns, "relaunch");
});

it("(d) suspended: no PodGroup of the job and none of its pods, so nothing of it in the queue; resumed: its PodGroup again and it runs (figures volcano.d.*)", async (t) => {
  const { ns, controller, job } = await runningJob("volcano-d", "pausing", { cpu: "1" });
  // Volcano's count of the queue's allocated room (its session's close: the Running pods of its
  // groups), while the job runs: its master's 1 CPU and its 3 task pods' 1 CPU each.
  const running = await eventually("the default queue's allocated CPU: the job's 4", async () => (await allocatedCpu()) === "4" && "4", 30);
  const suspended = Date.now();
  await patchJobSpec(ns, "pausing", { suspend: true });
  await eventually("no PodGroup and no pod while suspended", async () => (await podGroupsIn(ns)).length === 0 && (await podsOf(ns, "pausing")).every((p) => p.metadata.deletionTimestamp || !["Pending", "Running"].includes(p.status?.phase)), 60);
  t.diagnostic(`volcano.d.suspend: suspended -> no PodGroup, no live pod: ${seconds(suspended)} s`);
  for (const until = Date.now() + HELD_MS; Date.now() < until; await sleep(500)) {
    assert.deepEqual(await podGroupsIn(ns), [], "nothing of the suspended job reserves room in the queue");
  }
  assert.notEqual((await gangPending(ns, "pausing"))?.status, "True", "GangPending not true on a suspended job");
  // Nothing else runs on the cluster in this test: the queue's allocated room goes back to none.
  await eventually("the default queue's allocated CPU back to 0 while suspended", async () => ["0", undefined].includes(await allocatedCpu()), 30);
  t.diagnostic(`volcano.d.queue: the default queue's allocated CPU: ${running} while the job runs, ${(await allocatedCpu()) ?? "0"} while it is suspended`);
  const resumed = Date.now();
  await patchJobSpec(ns, "pausing", { suspend: false });
  await firstPlanOnceTheMasterRuns(ns, job);
  const again = await allRun(ns, "pausing", resumed, 60);
  t.diagnostic(`volcano.d.resume: resumed -> every pod Running: ${again.toFixed(1)} s`);
  await finish(controller, ns, "pausing");
});

it("(e) a template asking for a GPU in limits alone: the PodGroup's minResources count the GPUs of the task floor (figure volcano.e.minResources)", async (t) => {
  const ns = await namespace("volcano-e");
  const controller = await controllerOf(ns, "volcano-e");
  await createJob(volcanoJob(ns, "gpu", { cpu: "1", limits: { "nvidia.com/gpu": "1" } }));
  const group = await eventually("the GPU job's PodGroup", () => podGroupOf(VOLCANO, ns, "gpu"));
  t.diagnostic(`volcano.e.minResources: ${JSON.stringify(group.spec.minResources)}`);
  // The floor's chief and worker (DLRover's master runs the first of the spec's 2 workers as the
  // chief, from the workers' template), each a GPU by its limit; the PS none.
  assert.equal(group.spec.minResources?.["nvidia.com/gpu"], "2", "the GPUs counted");
  // No node has a GPU: Volcano admits nothing of it, and binds neither its master nor any pod.
  for (const until = Date.now() + HELD_MS; Date.now() < until; await sleep(500)) {
    assert.deepEqual(await boundPods(ns, "gpu"), [], "no pod of a gang without GPU room bound");
  }
  await finish(controller, ns, "gpu");
});

it("(f) a priorityClass removed from the job: the PodGroup updated in one pass, without it (figure volcano.f.update)", async (t) => {
  const klass = { apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name: `elasticjob-volcano-f-${Date.now()}` }, value: 1000 };
  expectStatus(await request(admin, "POST", "/apis/scheduling.k8s.io/v1/priorityclasses", { body: klass }), [201], "PriorityClass");
  const { ns, controller } = await runningJob("volcano-f", "ranked", { cpu: "1", schedulingPolicy: { priorityClass: klass.metadata.name } });
  assert.equal((await podGroupOf(VOLCANO, ns, "ranked")).spec.priorityClassName, klass.metadata.name);
  const writes = controller.actions("createOrUpdatePodGroup").length;
  const removed = Date.now();
  await patchJobSpec(ns, "ranked", { runPolicy: { schedulingPolicy: { priorityClass: null } } });
  await eventually("the PodGroup without priorityClassName", async () => (await podGroupOf(VOLCANO, ns, "ranked"))?.spec.priorityClassName === undefined, 10);
  t.diagnostic(`volcano.f.update: priorityClass removed -> PodGroup without it: ${seconds(removed)} s`);
  // The controller logs an action once its call has returned: the line may come after the change is seen.
  await eventually("the controller's log line of the update", () => controller.actions("createOrUpdatePodGroup").length > writes, 10);
  assert.equal(controller.actions("createOrUpdatePodGroup").length, writes + 1, "one update");
  await finish(controller, ns, "ranked");
  expectStatus(await request(admin, "DELETE", `/apis/scheduling.k8s.io/v1/priorityclasses/${klass.metadata.name}`), [200, 404], "delete PriorityClass");
});

it("(g) a failed job kept for inspection: no PodGroup of it, no podgroup-<uid> of its master, nothing reserved (figure volcano.g.released)", async (t) => {
  const { ns, controller } = await runningJob("volcano-g", "broken", { cpu: "1" });
  // DLRover's master gives up: the job fails, and is kept.
  await kubelet.fail(admin, ns, masterName("broken"), { exitCode: 1 });
  const failed = Date.now();
  await eventually("job Failed", async () => (await getJob(ns, "broken")).status?.phase === "Failed", 30);
  await eventually("no PodGroup left", async () => (await podGroupsIn(ns)).length === 0, 30);
  t.diagnostic(`volcano.g.released: master failed -> no PodGroup of the job: ${seconds(failed)} s`);
  for (const until = Date.now() + HELD_MS; Date.now() < until; await sleep(500)) {
    assert.deepEqual(await podGroupsIn(ns), [], "no PodGroup reserves anything for the failed job");
  }
  assert.notEqual((await gangPending(ns, "broken"))?.status, "True", "GangPending not true on a finished job");
  await finish(controller, ns, "broken");
});
