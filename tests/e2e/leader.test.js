// Leadership that cannot overlap, against the real API server: the leader talks to it through a TCP
// proxy of the test's own, which the test stalls in the middle of a plan (every byte held, no
// connection closed: a hung network, not a refused one). The leader's renewal hangs; at its renew
// deadline it must stop acting and cut every call under way; the standby takes the lease once it has
// not changed for the lease duration and finishes the plan. The proxy is then let go, delivering
// whatever it held: from both controllers' logs, no action of the old leader is later than the new
// leader's first, and no pod is made twice.
import assert from "node:assert/strict";
import { it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { CONTROLLER_SA, grantLease, request, tokenConfig } from "./kube.js";
import { stallableProxy as stallableProxyTo } from "./proxy.js";
import {
  Controller,
  admin,
  cleanups,
  createJob,
  createPlan,
  firstPlanSpec,
  label,
  masterRunning,
  namespace,
  newJob,
  planSucceeded,
  podsOf,
  token,
  useCluster,
  writeKubeconfig,
} from "./scenario.js";

useCluster();

/** The proxy of proxy.js to the cluster's API server, closed at the end. */
async function stallableProxy() {
  const proxy = await stallableProxyTo(admin.getCurrentCluster().server);
  cleanups.push(() => proxy.close());
  return proxy;
}

it("the leader's network stalls in the middle of a plan: it stops at its renew deadline, and none of its actions is later than the new leader's first", async (t) => {
  const ns = await namespace("ctl-stall");
  const LEASE = { duration: 4, renew: 2.5, retry: 0.5 };
  const WORKERS = 80;
  const leaseName = `elasticjob-test-${ns}`;
  cleanups.push(() => request(admin, "DELETE", `/apis/coordination.k8s.io/v1/namespaces/${CONTROLLER_SA.namespace}/leases/${leaseName}`));
  cleanups.push(await grantLease(admin, leaseName));
  const args = [
    "--namespace",
    ns,
    "--leader-elect",
    "--leader-elect-namespace",
    CONTROLLER_SA.namespace,
    "--leader-elect-name",
    leaseName,
    "--leader-elect-lease-duration",
    String(LEASE.duration),
    "--leader-elect-renew-deadline",
    String(LEASE.renew),
    "--leader-elect-retry-period",
    String(LEASE.retry),
  ];
  const proxy = await stallableProxy();
  const kc = tokenConfig(admin, CONTROLLER_SA.name, token);
  kc.clusters = [{ ...admin.getCurrentCluster(), server: `https://127.0.0.1:${proxy.port}`, name: kc.getCurrentCluster().name }];
  // The old leader creates slowly (20 calls a second), so the stall finds it in the middle of the plan.
  const old = new Controller("old", [...args, "--kube-api-qps", "20", "--kube-api-burst", "1"], { kubeconfigPath: writeKubeconfig("stalled", kc) });
  await old.line("became the leader", (l) => l.msg === "became the leader");
  const next = new Controller("next", args);
  await next.line("the lease is held by another", (l) => l.msg === "the lease is held by another instance");
  await Promise.all([old.ready(), next.ready()]);

  const stored = await createJob(newJob(ns, "stall", { workers: WORKERS }));
  await masterRunning(ns, "stall");
  const plan = await createPlan(stored, firstPlanSpec(stored));
  // The master made one worker the chief.
  const plannedWorkers = firstPlanSpec(stored).replicaResourceSpecs.worker.replicas;
  await old.line("a worker pod of the plan", (l) => l.action === "createPod" && l.name.includes("-worker-"));
  proxy.stall();
  const stalledAt = Date.now();
  const lost = await old.line("no longer the leader", (l) => l.msg.startsWith("could not renew the leader lease"), LEASE.duration + 10);
  await next.line("became the leader", (l) => l.msg === "became the leader", LEASE.duration + 10);
  const takenAt = Date.now();
  const firstOfNext = await next.line("the new leader's first action", (l) => l.action !== undefined, 30);
  // Whatever the proxy still holds of the old leader's goes through now.
  proxy.resume();
  const { code } = await old.exited;
  assert.equal(code, 1, "the old leader exits 1 once it lost the lease");
  await planSucceeded(ns, plan.metadata.name, 90);
  await sleep(500);

  const at = (line) => Date.parse(line.time);
  const oldActions = old.actions();
  const lastOfOld = oldActions.reduce((a, b) => (at(b) > at(a) ? b : a));
  assert.ok(at(lastOfOld) <= at(lost), `no action after the old leader gave up: ${JSON.stringify(lastOfOld)}`);
  assert.ok(
    at(lastOfOld) < at(firstOfNext),
    `the old leader's last action (${lastOfOld.time} ${lastOfOld.action} ${lastOfOld.name}) is before the new leader's first (${firstOfNext.time} ${firstOfNext.action} ${firstOfNext.name})`,
  );
  const workers = (await podsOf(ns, "stall")).filter((p) => label(p, "replica-type") === "worker");
  assert.deepEqual(
    workers.map((p) => Number(label(p, "rank-index"))).sort((a, b) => a - b),
    Array.from({ length: plannedWorkers }, (_, r) => r),
    "each rank once: no pod made twice, none lost",
  );
  const byOld = old.actions("createPod").filter((l) => l.outcome === "done" && l.name.includes("-worker-")).length;
  const byNext = next.actions("createPod").filter((l) => l.outcome === "done" && l.name.includes("-worker-")).length;
  t.diagnostic(
    `stalled after ${byOld} worker pods of ${WORKERS}; the old leader gave up ${at(lost) - stalledAt} ms after the stall (renew deadline ${LEASE.renew} s), the new leader took over ${takenAt - stalledAt} ms after it and made the other ${byNext}; the old leader's last action ${at(firstOfNext) - at(lastOfOld)} ms before the new leader's first`,
  );
  assert.equal((await next.stop()).code, 0);
});
