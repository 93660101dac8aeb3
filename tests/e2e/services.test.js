// The services of a running job under `elasticjob controller` on the real API server (as the
// ServiceAccount of deploy/rbac.yaml, on KWOK's nodes; what the scenarios share is in scenario.js):
// a worker's service deleted by someone is made again, the same, and nothing else is; a service the
// job owns at a rank it no longer runs is deleted; one with the job's labels that it does not own is
// left alone; one of a task's name that no object controls is never applied over.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import * as kubelet from "./kubelet.js";
import { collection, expectStatus, objectPath, request } from "./kube.js";
import {
  Controller,
  MASTER_IMAGE,
  admin,
  createJob,
  createPlan,
  eventually,
  firstPlanSpec,
  get,
  getJob,
  isLive,
  masterRunning,
  namespace,
  newJob,
  planSucceeded,
  podsOf,
  servicesIn,
  useCluster,
} from "./scenario.js";

useCluster();

/** What a service is, but for what the server keeps of its own (uid, versions, cluster IPs). */
const shape = (s) => ({ name: s.metadata.name, labels: s.metadata.labels, owners: s.metadata.ownerReferences, selector: s.spec.selector, ports: s.spec.ports, type: s.spec.type });

describe("a running job's services under the controller", () => {
  let ns;
  let controller;
  let job;
  const JOB = "svc";
  // The live pods: the master, the PS, the chief and two workers (ids are ranks on a first launch).
  const LIVE = ["elasticjob-svc-dlrover-master", "svc-edljob-chief-0", "svc-edljob-ps-0", "svc-edljob-worker-0", "svc-edljob-worker-1"];

  before(async () => {
    ns = await namespace("ctl-svc");
    controller = new Controller("services", ["--namespace", ns, "--master-image", MASTER_IMAGE]);
    await controller.ready();
    await createJob(newJob(ns, JOB, { ps: 1, workers: 3 }));
    job = await masterRunning(ns, JOB);
    const plan = await createPlan(job, firstPlanSpec(job));
    await planSucceeded(ns, plan.metadata.name);
    // The master, the PS, the chief and two workers, all running, and counted so.
    await kubelet.allRunning(admin, ns, `elasticjob.dlrover/name=${JOB}`, 5);
    await eventually("the pods counted Running", async () => {
      const j = await getJob(ns, JOB);
      const counts = j.status?.status?.replicaStatuses ?? {};
      return counts.worker?.active === 2 && counts.chief?.active === 1 && counts.ps?.active === 1 && j;
    });
    // The passes the pods' events brought are done.
    await sleep(1000);
  });

  after(async () => {
    const { code } = await controller.stop();
    assert.equal(code, 0, "SIGTERM: exit 0");
  });

  it("a worker's service deleted with the API is made again within seconds, the same; nothing else is made again", async (t) => {
    const before = await servicesIn(ns);
    const names = before.map((s) => s.metadata.name).sort();
    assert.deepEqual(names, LIVE, "each live pod's service (named as the rank; the master's as its pod)");
    const gone = before.find((s) => s.metadata.name === "svc-edljob-worker-1");
    const actionsBefore = controller.actions().length;
    const since = Date.now();
    expectStatus(await request(admin, "DELETE", objectPath({ apiVersion: "v1", kind: "Service", metadata: gone.metadata })), [200], "DELETE the worker's service");
    const made = await eventually("the service made again", async () => {
      const s = (await servicesIn(ns)).find((x) => x.metadata.name === gone.metadata.name);
      return s && s.metadata.uid !== gone.metadata.uid && s;
    }, 10);
    const took = Date.now() - since;
    assert.ok(took < 5000, `made again in ${took} ms`);
    t.diagnostic(`deleted -> made again in ${took} ms`);
    assert.deepEqual(shape(made), shape(gone), "the same name, labels, owner, selector and ports");
    // Let any pass the watch events bring run, then count what the controller did.
    await sleep(1500);
    const after = await servicesIn(ns);
    assert.deepEqual(after.map((s) => s.metadata.name).sort(), names);
    for (const s of after.filter((x) => x.metadata.name !== gone.metadata.name)) {
      const was = before.find((x) => x.metadata.name === s.metadata.name);
      assert.equal(s.metadata.uid, was.metadata.uid, `${s.metadata.name} was not made again`);
      assert.equal(s.metadata.resourceVersion, was.metadata.resourceVersion, `${s.metadata.name} was not written`);
    }
    const actions = controller.actions().slice(actionsBefore).map((l) => `${l.action} ${l.name ?? ""}`.trim());
    assert.deepEqual(actions, [`createOrUpdateService ${gone.metadata.name}`], "one call: no pod, no other service, no status");
    assert.deepEqual((await podsOf(ns, JOB)).filter(isLive).map((p) => p.metadata.name).sort(), LIVE, "the pods are left as they are");
  });

  it("a service the job owns at a rank it does not run is deleted; one with its labels it does not own is kept", async () => {
    const template = (await servicesIn(ns)).find((s) => s.metadata.name === "svc-edljob-worker-1");
    const at = (rank, ownerReferences) => ({
      apiVersion: "v1",
      kind: "Service",
      metadata: {
        name: `svc-edljob-worker-${rank}`,
        namespace: ns,
        labels: { ...template.metadata.labels, "elasticjob.dlrover/rank-index": String(rank) },
        ...(ownerReferences ? { ownerReferences } : {}),
      },
      spec: { type: "ClusterIP", selector: { ...template.spec.selector, "elasticjob.dlrover/rank-index": String(rank) }, ports: [{ port: 3333, targetPort: 3333 }] },
    });
    // Rank 5: the job's, as a scale-down that did not finish would leave it; rank 6: someone else's.
    const stale = at(5, template.metadata.ownerReferences);
    const foreign = at(6, undefined);
    for (const s of [foreign, stale]) {
      expectStatus(await request(admin, "POST", collection("v1", "Service", ns), { body: s }), [201], `create ${s.metadata.name}`);
    }
    await eventually("the job's stale service deleted", async () => !(await servicesIn(ns)).some((s) => s.metadata.name === stale.metadata.name), 10);
    await controller.line("deleteService of rank 5", (l) => l.action === "deleteService" && l.name === stale.metadata.name);
    await sleep(1000);
    const names = (await servicesIn(ns)).map((s) => s.metadata.name);
    assert.ok(names.includes(foreign.metadata.name), "a service the job does not own is never deleted");
    assert.ok(names.includes("svc-edljob-worker-1"), "the ranks the job runs keep theirs");
    assert.ok(!controller.actions("deleteService").some((l) => l.name === foreign.metadata.name));
    // The pods of the job are as they were.
    assert.deepEqual((await podsOf(ns, JOB)).filter(isLive).map((p) => p.metadata.name).sort(), LIVE);
  });

  it("a service of a task's name that no object controls is not applied over: the create is refused with a Warning, and the pod that needs it waits", async () => {
    // Someone's service where worker 2's address goes: no owner, no job label (so not in the
    // controller's cache: only the create's 409 shows it). The core says the job does not control it.
    const mine = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "svc-edljob-worker-2", namespace: ns, labels: { team: "ads" } },
      spec: { type: "ClusterIP", selector: { team: "ads" }, ports: [{ port: 9999, targetPort: 9999 }] },
    };
    const made = expectStatus(await request(admin, "POST", collection("v1", "Service", ns), { body: mine }), [201], "create someone's service");
    // The master scales the workers from 2 to 3: worker 2's service and pod.
    const current = await getJob(ns, JOB);
    const spec = firstPlanSpec(current);
    spec.replicaResourceSpecs.worker.replicas += 1;
    await createPlan(current, spec);
    const warning = await eventually("a Warning FailedCreate on the job naming the service", async () => {
      const events = (await get(collection("v1", "Event", ns))).items;
      return events.find((e) => e.involvedObject.name === JOB && e.type === "Warning" && e.reason === "FailedCreate" && e.message.includes("svc-edljob-worker-2"));
    }, 20);
    assert.match(warning.message, /does not control it/);
    await sleep(1500);
    const there = (await servicesIn(ns)).find((x) => x.metadata.name === mine.metadata.name);
    assert.equal(there.metadata.uid, made.metadata.uid, "the same service");
    assert.equal(there.metadata.resourceVersion, made.metadata.resourceVersion, "not written");
    assert.deepEqual(there.spec.ports.map((p) => p.port), [9999]);
    assert.ok(!(await podsOf(ns, JOB)).some((p) => p.metadata.name === "svc-edljob-worker-2"), "the pod that needs the address is not made");
    assert.ok(!controller.actions("createOrUpdateService").some((l) => l.name === mine.metadata.name && l.outcome === "done"));
  });
});
