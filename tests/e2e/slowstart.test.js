// Slow start against the real API server: a ResourceQuota on pods refuses every create after the
// third pod of a new job's first plan. The controller tries a few creates (batches of 1, 2, 4: the
// last refused), not the 40 of the plan, then one a retry while the refusal lasts; it records the
// refusal on the job as one Warning event, counted, not one event a call; the master, made after
// every pod of the first plan, waits for them; and once the quota is raised the controller carries
// the plan out to the end, the master last.
//
// The test cluster runs no resource quota controller, so the test plays it: it writes the quota's
// status (hard, and the pods already used) as that controller would; the API server's quota
// admission then counts each pod it admits into that status, and refuses the create that would
// exceed it (403 Forbidden, "exceeded quota").
import assert from "node:assert/strict";
import { it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { collection, expectStatus, request } from "./kube.js";
import {
  Controller,
  admin,
  createJob,
  createPlan,
  eventually,
  firstPlanSpec,
  get,
  label,
  masterRunning,
  namespace,
  newJob,
  planSucceeded,
  podsOf,
  useCluster,
} from "./scenario.js";

useCluster();

const QUOTA = "pods";

/** The quota with `pods` pods at most, and its status as the quota controller would write it. */
async function setQuota(ns, pods, used) {
  const path = `${collection("v1", "ResourceQuota", ns)}/${QUOTA}`;
  const spec = { hard: { pods: String(pods) } };
  const existing = await request(admin, "GET", path);
  if (existing.status === 404) {
    const quota = { apiVersion: "v1", kind: "ResourceQuota", metadata: { name: QUOTA, namespace: ns }, spec };
    expectStatus(await request(admin, "POST", collection("v1", "ResourceQuota", ns), { body: quota }), [201], "quota");
  } else {
    expectStatus(await request(admin, "PATCH", path, { body: { spec }, contentType: "application/merge-patch+json" }), [200], "quota spec");
  }
  const status = { hard: { pods: String(pods) }, used: { pods: String(used) } };
  expectStatus(await request(admin, "PATCH", `${path}/status`, { body: { status }, contentType: "application/merge-patch+json" }), [200], "quota status");
}

it("a quota refusing every create after the third: a few calls, one Warning event, and the first plan carried out, its master last, once the quota is raised", async (t) => {
  const ns = await namespace("ctl-slow");
  const WORKERS = 40;
  // 3 pods may be made.
  await setQuota(ns, 3, 0);
  const controller = new Controller("slow", ["--namespace", ns]);
  await controller.ready();
  const refusedCreates = () => controller.metric("elasticjob_controller_api_requests_total", { verb: "create", resource: "pods", code: "403" });
  const madeCreates = () => controller.metric("elasticjob_controller_api_requests_total", { verb: "create", resource: "pods", code: "201" });
  const stored = await createJob(newJob(ns, "quota", { workers: WORKERS }));
  // The master makes one worker the chief: its first plan, which the controller makes at once.
  const plannedWorkers = firstPlanSpec(stored).replicaResourceSpecs.worker.replicas;
  await controller.line("a refused create", (l) => l.msg === "createPod refused");
  // The first pass: batches of 1 and 2 made, the batch of 4 refused; then the retries, with backoff.
  const firstRefusal = Date.now();
  await sleep(3000);
  const refused = await refusedCreates();
  const made = await madeCreates();
  const retries = controller.lines.filter((l) => l.msg === "reconcile failed; retrying").length;
  assert.equal(made, 3, "three pods admitted");
  const pods = await podsOf(ns, "quota");
  assert.deepEqual(pods.map((p) => label(p, "replica-type")).sort(), ["chief", "ps", "worker"], "three task pods; the master waits for the rest");
  // 4 refused in the pass that met the quota, then one a retry (each retry's first batch of 1).
  assert.ok(refused <= 4 + retries, `${refused} refused creates after ${retries} retries`);
  assert.ok(refused < 12, `a few refused calls, not the ${WORKERS + 1 - 3} left of the plan: ${refused}`);

  // Every refusal of the job in one Warning event, counted.
  const warnings = await eventually("the Warning event", async () => {
    const events = (await get(collection("v1", "Event", ns))).items.filter((e) => e.type === "Warning" && e.involvedObject.name === "quota");
    return events.length > 0 && events;
  });
  assert.equal(warnings.length, 1, `one Warning event, not one a refused call: ${warnings.map((e) => `${e.reason}: ${e.message}`).join(" | ")}`);
  assert.equal(warnings[0].reason, "FailedCreate");
  assert.match(warnings[0].message, /exceeded quota/);

  // The refusal ends: the rest of the plan is carried out, and the master made.
  await setQuota(ns, 1000, 3);
  const raised = Date.now();
  await masterRunning(ns, "quota");
  const plan = await createPlan(stored, firstPlanSpec(stored));
  await planSucceeded(ns, plan.metadata.name, 90);
  const all = await podsOf(ns, "quota");
  assert.deepEqual(
    all.filter((p) => label(p, "replica-type") === "worker").map((p) => Number(label(p, "rank-index"))).sort((a, b) => a - b),
    Array.from({ length: plannedWorkers }, (_, r) => r),
  );
  const counted = (await get(collection("v1", "Event", ns))).items.find((e) => e.type === "Warning" && e.reason === "FailedCreate");
  t.diagnostic(
    `quota of 3 pods: ${refused} refused creates in the ${((raised - firstRefusal) / 1000).toFixed(1)} s the refusal lasted (${retries} retries), the Warning event counted ${counted.count} times; every pod and the master ${((Date.now() - raised) / 1000).toFixed(1)} s after the quota was raised`,
  );
  assert.equal((await controller.stop()).code, 0);
});
