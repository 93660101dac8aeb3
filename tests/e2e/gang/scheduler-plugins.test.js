// Gang scheduling with a real gang scheduler (issue 40): scheduler-plugins' kube-scheduler with the
// Coscheduling plugin (`cluster run --gang`, tests/cluster/gang.go) beside the default scheduler, on
// two KWOK nodes of 4 CPUs that hold one of the two jobs (gang.js: 3 task pods of 1.5 CPU each),
// not both. `elasticjob controller --gang-scheduler-name scheduler-plugins-scheduler` runs as a
// child process with the ServiceAccount of deploy/rbac.yaml and deploy/rbac-gang.yaml, so RBAC
// holds it to what it may do; the test plays the users (jobs) and DLRover's master (the first
// ScalePlan), KWOK the kubelet.
//
// With the gang, one job has every task pod Running and the other none bound, and the other runs
// whole once the first is deleted; without it, the default scheduler binds part of a job (the
// nodes hold 4 task pods of the 6, so one job at least is partly bound, holding its CPUs for
// nothing). The figures printed (t.diagnostic), which docs/gang.md quotes:
//   gang.alone / default.alone       one job on empty nodes: job created -> every pod Running (s)
//   gang.scaleUp                     its plan of one more worker written -> every pod Running (s)
//   gang.contended.first             of two jobs created at once, the one the gang scheduler
//                                    placed: job created -> every pod Running (s)
//   gang.contended.second            the other, once the first is deleted: its pods gone -> every
//                                    pod Running (s), and job created -> every pod Running (s)
//   default.contended.split          task pods bound per job with both there (of 3 each)
//   default.contended.second         the job left once the other is deleted: its pods gone ->
//                                    every pod Running (s)
import assert from "node:assert/strict";
import { before, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { CONTROLLER_SA, expectStatus, request, wrongGrants } from "../kube.js";
import { Controller, MASTER_IMAGE, admin, createJob, createPlan, eventually, masterPsHosts, masterResource, namespace, useCluster } from "../scenario.js";
import { GANG_SCHEDULER, SCHEDULER_PLUGINS, TASKS, VOLCANO, allRun, bound, deleteJob, firstToRun, gangJob, grantPodGroups, masterRuns, podGroupOf, tasksOf, writeFirstPlan } from "./gang.js";

useCluster();

before(async () => {
  await grantPodGroups();
  // What tests/cluster/gang/gang_test.go left is gone: the nodes are empty of task pods.
  await eventually("nodes free of earlier pods", async () => {
    const pods = expectStatus(await request(admin, "GET", "/api/v1/pods", { query: { fieldSelector: "spec.nodeName!=" } }), [200], "bound pods").items;
    return pods.filter((p) => !p.metadata.namespace.startsWith("kube-")).length === 0;
  }, 60);
});

/** How long the job that lost is watched with no pod of it bound, once the winner runs. */
const QUIET_MS = 5_000;

/** A controller of the namespace, with the gang scheduler or without. */
async function controllerOf(ns, gang) {
  const args = ["--namespace", ns, "--master-image", MASTER_IMAGE, ...(gang ? ["--gang-scheduler-name", GANG_SCHEDULER] : [])];
  return new Controller(gang ? "gang" : "default", args).ready();
}

/** Creates the jobs at once, waits until their masters run, and writes their first plans at once; resolves to the stored jobs and the moment they were created. */
async function start(ns, names) {
  const created = Date.now();
  const jobs = await Promise.all(names.map((name) => createJob(gangJob(ns, name))));
  await Promise.all(names.map((name) => masterRuns(ns, name)));
  await Promise.all(jobs.map((job) => writeFirstPlan(job)));
  return { jobs, created };
}

it("deploy/rbac-gang.yaml grants the ServiceAccount exactly the PodGroup verbs the controller uses, of both groups; discovering a group is every user's (SubjectAccessReview)", async () => {
  const { namespace: saNamespace, name } = CONTROLLER_SA;
  const subject = { user: `system:serviceaccount:${saNamespace}:${name}`, groups: ["system:serviceaccounts", `system:serviceaccounts:${saNamespace}`, "system:authenticated"] };
  const verbs = ["get", "list", "watch", "create", "update", "delete"];
  const needed = { "scheduling.x-k8s.io/podgroups": verbs, "scheduling.volcano.sh/podgroups": verbs };
  const resources = [...Object.keys(needed), "scheduling.x-k8s.io/podgroups/status", "scheduling.volcano.sh/podgroups/status", "scheduling.volcano.sh/queues", "scheduling.x-k8s.io/elasticquotas"];
  const all = ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"];
  assert.deepEqual(await wrongGrants(admin, subject, needed, resources, all, new Set(["scheduling.volcano.sh/queues"])), []);
  for (const group of [SCHEDULER_PLUGINS, VOLCANO]) {
    const review = await request(admin, "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
      body: { apiVersion: "authorization.k8s.io/v1", kind: "SubjectAccessReview", spec: { ...subject, nonResourceAttributes: { path: `/apis/${group}`, verb: "get" } } },
    });
    assert.equal(expectStatus(review, [201], "SubjectAccessReview").status.allowed, true, `GET /apis/${group}`);
  }
});

it("one job alone on empty nodes, with the gang and without: every pod Running; with it, the PodGroup (minMember: the task floor) with every task pod in it, the master on the gang scheduler outside it, and a worker added above the first plan's joining it without a change of the floor (figures gang.alone, default.alone, gang.scaleUp)", async (t) => {
  for (const gang of [false, true]) {
    const ns = await namespace(gang ? "gang-alone" : "default-alone");
    const controller = await controllerOf(ns, gang);
    const { jobs, created } = await start(ns, ["solo"]);
    const seconds = await allRun(ns, "solo", created);
    t.diagnostic(`${gang ? "gang" : "default"}.alone: job created -> every pod Running: ${seconds.toFixed(1)} s`);
    const tasks = await tasksOf(ns, "solo");
    assert.equal(tasks.length, TASKS);
    const master = (await request(admin, "GET", `/api/v1/namespaces/${ns}/pods/elasticjob-solo-dlrover-master`)).body;
    if (gang) {
      const group = await podGroupOf(SCHEDULER_PLUGINS, ns, "solo");
      assert.ok(group, "the job's PodGroup");
      // The task floor: the PS, the chief and the worker of the first plan (the spec's workers
      // being 2); the master is bound ahead of the group, outside it.
      assert.equal(group.spec.minMember, TASKS, "minMember: the task floor");
      assert.equal(group.metadata.labels["elasticjob.dlrover/name"], "solo");
      assert.equal(group.metadata.ownerReferences?.[0]?.controller, true, "owned by the job");
      for (const pod of tasks) {
        assert.equal(pod.spec.schedulerName, GANG_SCHEDULER, pod.metadata.name);
        assert.equal(pod.metadata.labels["scheduling.x-k8s.io/pod-group"], "solo", pod.metadata.name);
      }
      assert.equal(master.spec.schedulerName, GANG_SCHEDULER, "the master: the gang scheduler's name");
      assert.equal(master.metadata.labels["scheduling.x-k8s.io/pod-group"], undefined, "the master: in no group");
      // Made once, with the floor, before the master: the PodGroup the API server stored (its
      // defaults) reads as the one the core wants, when the job runs too.
      assert.equal(controller.actions("createOrUpdatePodGroup").length, 1, "made once");
      // DLRover's master scales the workers up by one, to the spec's 2 beside the chief it made of
      // the first: a worker above the first plan's, so the floor stays (minMember as it was, the
      // PodGroup not written again) and the new worker joins the running gang as room allows.
      const resource = masterResource({ cpu: "1500m", memory: "1Gi" });
      const written = Date.now();
      await createPlan(jobs[0], { replicaResourceSpecs: { ps: { replicas: 1, resource }, chief: { replicas: 1, resource }, worker: { replicas: 2, resource } }, psHosts: masterPsHosts(jobs[0], 1) });
      const scaled = await allRun(ns, "solo", written, 60, TASKS + 1);
      t.diagnostic(`gang.scaleUp: plan of one more worker written -> every pod Running: ${scaled.toFixed(1)} s`);
      assert.equal((await podGroupOf(SCHEDULER_PLUGINS, ns, "solo")).spec.minMember, TASKS, "a worker above the first plan's is elastic: the floor stays");
      assert.equal(controller.actions("createOrUpdatePodGroup").length, 1, "the PodGroup not written for the scale-up");
      assert.ok(controller.actions("createOrUpdatePodGroup").every((l) => l.outcome === "done"), "every write done, none refused");
    } else {
      assert.equal(await podGroupOf(SCHEDULER_PLUGINS, ns, "solo"), undefined, "no PodGroup without a gang scheduler");
      assert.ok([...tasks, master].every((p) => p.spec.schedulerName === "default-scheduler"));
    }
    // Its CPUs free again for the next case.
    await deleteJob(ns, "solo");
    assert.equal((await controller.stop()).code, 0);
  }
});

it("two jobs of which one fits, with the gang: one has every task pod Running and the other none bound; once the first is deleted, the other runs whole (figures gang.contended.*)", async (t) => {
  const ns = await namespace("gang-two");
  const controller = await controllerOf(ns, true);
  const { created } = await start(ns, ["a", "b"]);
  const first = await firstToRun(ns, ["a", "b"]);
  const second = first === "a" ? "b" : "a";
  const firstSeconds = (Date.now() - created) / 1000;
  t.diagnostic(`gang.contended.first: job created -> every pod Running: ${firstSeconds.toFixed(1)} s (job ${first})`);
  // Its task pods are made as the first's are (nothing holds them back), and wait unbound.
  await eventually(`${second}: its ${TASKS} task pods made`, async () => (await tasksOf(ns, second)).length === TASKS);
  for (const until = Date.now() + QUIET_MS; Date.now() < until; await sleep(250)) {
    const other = await bound(ns, second);
    assert.equal(other.bound, 0, `${second}: no task pod bound while ${first} runs (${JSON.stringify(other)})`);
  }
  const deleted = await deleteJob(ns, first);
  const afterDeletion = await allRun(ns, second, deleted, 120);
  t.diagnostic(`gang.contended.second: ${first}'s pods gone -> ${second}'s every pod Running: ${afterDeletion.toFixed(1)} s (job created -> every pod Running: ${((Date.now() - created) / 1000).toFixed(1)} s)`);
  await eventually(`${first}'s PodGroup gone with it`, async () => (await podGroupOf(SCHEDULER_PLUGINS, ns, first)) === undefined, 60);
  await deleteJob(ns, second);
  assert.equal((await controller.stop()).code, 0);
});

it("two jobs of which one fits, without the gang: the default scheduler binds part of a job, which holds its CPUs for nothing; once the other is deleted, it runs whole (figures default.contended.*)", async (t) => {
  const ns = await namespace("default-two");
  const controller = await controllerOf(ns, false);
  await start(ns, ["a", "b"]);
  // The nodes hold 4 of the 6 task pods: once 4 are bound, nothing more is.
  const split = await eventually("4 task pods bound", async () => {
    const counts = await Promise.all(["a", "b"].map((name) => bound(ns, name)));
    return counts[0].of === TASKS && counts[1].of === TASKS && counts[0].bound + counts[1].bound === 4 && counts;
  }, 60);
  t.diagnostic(`default.contended.split: task pods bound: a ${split[0].bound} of ${TASKS}, b ${split[1].bound} of ${TASKS}`);
  const partly = split.filter((c) => c.bound > 0 && c.bound < TASKS).length;
  assert.ok(partly >= 1, `a job partly bound: ${JSON.stringify(split)}`);
  // The job with more bound is deleted; the other gets the nodes.
  const [gone, left] = split[0].bound >= split[1].bound ? ["a", "b"] : ["b", "a"];
  const deleted = await deleteJob(ns, gone);
  const afterDeletion = await allRun(ns, left, deleted, 120);
  t.diagnostic(`default.contended.second: ${gone}'s pods gone -> ${left}'s every pod Running: ${afterDeletion.toFixed(1)} s`);
  await deleteJob(ns, left);
  assert.equal((await controller.stop()).code, 0);
});
