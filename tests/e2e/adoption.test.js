// Only what the job owns, on the real API server: a pod no one controls that is exactly one the job
// makes is adopted (its owner reference set by the controller, as the ServiceAccount of
// deploy/rbac.yaml, with the pod's uid as precondition), and one that only carries the job's labels
// is left alone: not counted, given no service, not stopped when the job finishes.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { collection, expectStatus, objectPath, request } from "./kube.js";
import * as kubelet from "./kubelet.js";
import { Controller, JOB_API, MASTER_IMAGE, admin, createJob, eventually, get, getJob, masterName, masterRunning, namespace, newJob, podsOf, servicesIn, useCluster } from "./scenario.js";

useCluster();

describe("a job adopts its orphans and nothing else", () => {
  let ns;
  let controller;
  let job;
  const JOB = "adopt";
  const podPath = (name) => objectPath({ apiVersion: "v1", kind: "Pod", metadata: { name, namespace: ns } });

  before(async () => {
    ns = await namespace("ctl-adopt");
    controller = new Controller("adopt", ["--namespace", ns, "--master-image", MASTER_IMAGE]);
    await controller.ready();
    await createJob(newJob(ns, JOB));
    job = await masterRunning(ns, JOB);
  });

  after(async () => {
    const { code } = await controller.stop();
    assert.equal(code, 0, "SIGTERM: exit 0");
  });

  it("the master, its owner reference removed, is adopted again: the same pod, not a new one", async () => {
    const before = expectStatus(await request(admin, "GET", podPath(masterName(JOB))), [200], "master");
    const orphaned = expectStatus(
      await request(admin, "PATCH", podPath(masterName(JOB)), { body: { metadata: { ownerReferences: null } }, contentType: "application/merge-patch+json" }),
      [200],
      "orphan the master",
    );
    assert.equal(orphaned.metadata.ownerReferences, undefined);
    const adopted = await eventually("the master adopted", async () => {
      const pod = expectStatus(await request(admin, "GET", podPath(masterName(JOB))), [200], "master");
      return pod.metadata.ownerReferences?.length === 1 && pod;
    });
    assert.equal(adopted.metadata.uid, before.metadata.uid, "the same pod");
    assert.deepEqual(adopted.metadata.ownerReferences, [
      { apiVersion: JOB_API, kind: "ElasticJob", name: JOB, uid: job.metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
    const masters = (await podsOf(ns, JOB)).filter((p) => p.metadata.name === masterName(JOB));
    assert.equal(masters.length, 1);
    const adoptions = controller.actions("adoptPod");
    assert.ok(adoptions.some((a) => a.name === masterName(JOB) && a.outcome === "done"), JSON.stringify(adoptions));
    await eventually("an Adopted event on the job", async () =>
      (await get(collection("v1", "Event", ns))).items.find((e) => e.involvedObject.uid === job.metadata.uid && e.reason === "Adopted"),
    );
  });

  it("a pod with the job's labels under another name is never the job's: no owner, no service, not stopped", async () => {
    const labels = {
      app: "dlrover",
      "elasticjob.dlrover/name": JOB,
      "elasticjob.dlrover/replica-type": "worker",
      "elasticjob.dlrover/replica-index": "7",
      "elasticjob.dlrover/rank-index": "7",
    };
    const lookalike = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "lookalike", namespace: ns, labels },
      spec: { restartPolicy: "Never", containers: [{ name: "main", image: "tf:2" }] },
    };
    expectStatus(await request(admin, "POST", collection("v1", "Pod", ns), { body: lookalike }), [201], "the lookalike");
    await kubelet.running(admin, ns, "lookalike");
    // The job finishes: its master Succeeded. A finished job stops its running pods: not this one.
    await kubelet.succeed(admin, ns, masterName(JOB));
    await eventually("the job Succeeded", async () => (await getJob(ns, JOB)).status?.phase === "Succeeded");
    // Passes after the finish have run (the status written is one); the lookalike is as it was.
    const pod = expectStatus(await request(admin, "GET", podPath("lookalike")), [200], "the lookalike");
    assert.equal(pod.metadata.ownerReferences, undefined, "not adopted");
    assert.equal(pod.metadata.deletionTimestamp, undefined, "not stopped");
    assert.ok(!(await servicesIn(ns)).some((s) => s.metadata.name === `${JOB}-edljob-worker-7`), "no service for it");
    assert.ok(!controller.actions("adoptPod").some((a) => a.name === "lookalike"));
    // Counted are the job's own workers alone (the finished job stopped them): the lookalike runs on.
    const workers = (await getJob(ns, JOB)).status.status.replicaStatuses?.worker ?? {};
    assert.equal(workers.active ?? 0, 0, "not counted");
  });
});
