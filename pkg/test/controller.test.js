// The controller's parts without a cluster: the work queue (dedup, one pass per job at a time,
// per-job exponential backoff), a cache kept by the adapter's list and watch against a scripted API
// server (410 Gone lists again; a reset connection watches again from the last resourceVersion), a
// reconcile pass whose status write conflicts (read again, plan again, nothing done twice), a job's
// waiting plans carried out in one pass, a deleted service made again once, and the command line. Everything against a real API server is in tests/e2e/controller.test.js.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import * as k8s from "@kubernetes/client-node";
import * as api from "elasticjob";
import { render } from "elasticjob";
import { main } from "elasticjob/cli";
import { DEFAULTS, WorkQueue } from "elasticjob/controller";
import { ApiError, KubeAdapter } from "../controller/adapter.js";
import { HANDLERS, WriteConflict } from "../controller/handlers.js";
import { Controller } from "../controller/index.js";
import { Informer } from "../controller/informer.js";
import { Logger } from "../controller/log.js";
import { Metrics } from "../controller/metrics.js";
import { Reconciler } from "../controller/reconciler.js";
import { goldenCases, job as fixtureJob } from "./fixtures.js";

const quiet = new Logger({ write: () => true }, { level: "error" });

/** A kubeconfig of the test's own API server (a listening http.Server of 127.0.0.1). */
function kubeConfigOf(server) {
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "c", server: `http://127.0.0.1:${server.address().port}`, skipTLSVerify: true }],
    users: [{ name: "u" }],
    contexts: [{ name: "x", cluster: "c", user: "u" }],
    currentContext: "x",
  });
  return kc;
}

test("the work queue hands a key out once however often it is added, and not while it is processed", async () => {
  const queue = new WorkQueue();
  queue.add("ns/a");
  queue.add("ns/b");
  queue.add("ns/a");
  assert.equal(queue.length, 2);
  assert.equal(await queue.get(), "ns/a");
  queue.add("ns/a"); // changed while processed: comes back once done
  assert.equal(await queue.get(), "ns/b");
  let next;
  queue.get().then((key) => {
    next = key;
  });
  await sleep(5);
  assert.equal(next, undefined, "ns/a is still being processed");
  queue.done("ns/a");
  await sleep(0);
  assert.equal(next, "ns/a");
  queue.done("ns/b");
  queue.done("ns/a");
  assert.equal(queue.length, 0);
  const waiting = queue.get();
  queue.shutDown();
  assert.equal(await waiting, undefined, "shut down: workers get no more keys");
});

test("a failing key comes back after a delay that doubles with each failure, from the base again once it succeeds", async (t) => {
  // The queue's timers and clock are the test's: it moves them (no wall time, no race with a loaded machine).
  t.mock.timers.enable({ apis: ["setTimeout", "Date"] });
  const queue = new WorkQueue({ baseDelayMs: 20, maxDelayMs: 100 });
  assert.deepEqual([1, 2, 3, 4, 5].map((n) => queue.backoff(n)), [20, 40, 80, 100, 100]);
  assert.equal(queue.addRateLimited("ns/a"), 20);
  assert.equal(queue.addRateLimited("ns/a"), 40);
  assert.equal(queue.failuresOf("ns/a"), 2);
  assert.equal(queue.length, 0, "not before its delay");
  t.mock.timers.tick(19);
  assert.equal(queue.length, 0, "not 1 ms before the earlier of the two delays");
  t.mock.timers.tick(1);
  assert.equal(queue.length, 1, "at the earlier of the two delays");
  assert.equal(await queue.get(), "ns/a");
  t.mock.timers.tick(40);
  assert.equal(queue.length, 0, "the later delay brings it back no second time");
  queue.done("ns/a");
  queue.forget("ns/a");
  assert.equal(queue.addRateLimited("ns/a"), 20);
  queue.shutDown();
});

/**
 * A scripted API server for pods: each request takes the next answer of `script` for its kind
 * (list or watch); a watch answer is a list of events written one by one, then the connection is
 * closed, reset, or left open.
 */
function scriptedServer(script) {
  const requests = [];
  const open = new Set();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://localhost");
    const kind = url.searchParams.get("watch") === "true" ? "watch" : "list";
    requests.push({ kind, resourceVersion: url.searchParams.get("resourceVersion") ?? undefined });
    const answer = script[kind].shift();
    if (answer === undefined) {
      res.writeHead(500).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    if (kind === "list") {
      res.end(JSON.stringify({ kind: "PodList", apiVersion: "v1", metadata: { resourceVersion: answer.resourceVersion }, items: answer.items }));
      return;
    }
    for (const event of answer.events) {
      res.write(`${JSON.stringify(event)}\n`);
    }
    if (answer.then === "close") {
      res.end();
    } else if (answer.then === "reset") {
      setTimeout(() => req.socket.resetAndDestroy(), 20);
    } else {
      open.add(res);
    }
  });
  return {
    requests,
    start: () => new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server.address().port))),
    stop: () => {
      for (const res of open) {
        res.end();
      }
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

const pod = (name, resourceVersion) => ({
  metadata: { name, namespace: "ns", resourceVersion, labels: { "elasticjob.dlrover/name": "mnist" } },
});

test("the cache lists again after 410 Gone, and watches again from its last resourceVersion after a reset connection", async () => {
  const server = scriptedServer({
    list: [
      { resourceVersion: "10", items: [pod("a", "5"), pod("b", "6")] },
      { resourceVersion: "20", items: [pod("a", "11"), pod("c", "19")] },
    ],
    watch: [
      {
        events: [
          { type: "MODIFIED", object: { apiVersion: "v1", kind: "Pod", ...pod("a", "11") } },
          { type: "ERROR", object: { kind: "Status", apiVersion: "v1", status: "Failure", reason: "Expired", code: 410, message: "too old resource version" } },
        ],
        then: "close",
      },
      { events: [{ type: "ADDED", object: { apiVersion: "v1", kind: "Pod", ...pod("d", "21") } }], then: "reset" },
      { events: [], then: "open" },
    ],
  });
  const port = await server.start();
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "scripted", server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: "nobody" }],
    contexts: [{ name: "scripted", cluster: "scripted", user: "nobody" }],
    currentContext: "scripted",
  });
  const calls = [];
  const adapter = new KubeAdapter(kc, { onRequest: (call) => calls.push(`${call.verb} ${call.resource}`) });
  await adapter.connect();
  const changed = [];
  let restarts = 0;
  const informer = new Informer(adapter.listWatch("Pod", { namespace: "ns", labelSelector: "elasticjob.dlrover/name" }), {
    kind: "Pod",
    jobKeyOf: (o) => `ns/${o.metadata.labels["elasticjob.dlrover/name"]}/${o.metadata.name}`,
    onChange: (key) => changed.push(key.split("/")[2]),
    log: quiet,
    onRestart: () => {
      restarts += 1;
    },
  });
  await informer.start();
  const names = () => informer.ofJob("ns/mnist/a").length + informer.ofJob("ns/mnist/b").length + informer.ofJob("ns/mnist/c").length + informer.ofJob("ns/mnist/d").length;
  // Wait for the last watch, opened after the reset.
  for (let i = 0; i < 100 && server.requests.length < 5; i += 1) {
    await sleep(20);
  }
  await informer.stop();
  await server.stop();
  adapter.close();
  assert.deepEqual(server.requests, [
    { kind: "list", resourceVersion: undefined },
    { kind: "watch", resourceVersion: "10" },
    { kind: "list", resourceVersion: undefined }, // 410 Gone: listed again
    { kind: "watch", resourceVersion: "20" },
    { kind: "watch", resourceVersion: "21" }, // reset: watched again from the last event, no list
  ]);
  assert.equal(restarts, 1, "the reset restarted the watch once (410 is handled by the list)");
  // a, b listed; a modified; relist: b gone, c new; then d added.
  assert.deepEqual(changed, ["a", "b", "a", "b", "c", "d"]);
  assert.equal(informer.get("ns", "b"), undefined);
  assert.equal(informer.get("ns", "a").metadata.resourceVersion, "11");
  assert.equal(informer.get("ns", "c").apiVersion, "v1", "list items get their apiVersion and kind");
  assert.equal(names(), 3);
  // Counted for the metrics: a watch when its connection is opened (before the list it may need).
  assert.deepEqual(calls.sort(), ["list pods", "list pods", "watch pods", "watch pods", "watch pods"]);
});

/** Caches as the reconciler reads them, over fixed objects. */
function fixedCache(objects) {
  return {
    get: (namespace, name) => objects.find((o) => o.metadata.namespace === namespace && o.metadata.name === name),
    ofJob: () => objects,
  };
}

/**
 * A reconciler over `adapter` whose caches hold `job` and `objects` (`{plans, pods, services}`),
 * its clock at 2026-03-01T10:00:00Z; the core's store is fed the cached objects, as the caches'
 * events feed it.
 */
function reconcilerOf(adapter, job, { plans = [], pods = [], services = [], options = {} } = {}) {
  const reconciler = new Reconciler({
    ...options,
    adapter,
    caches: { jobs: fixedCache([job]), plans: fixedCache(plans), pods: fixedCache(pods), services: fixedCache(services) },
    log: quiet,
    metrics: new Metrics(),
    isStopping: () => false,
    clock: () => new Date("2026-03-01T10:00:00Z"),
  });
  for (const [kind, objects] of [["ScalePlan", plans], ["Pod", pods], ["Service", services]]) {
    for (const obj of objects) {
      reconciler.keep(kind, "add", obj);
    }
  }
  return reconciler;
}

test("--kueue-workload-slices is checked, not trusted: a dry run lowering a count of a Workload holding quota asks Kueue's webhook, and the core gets the option only while it says the gate is on", async () => {
  const job = { ...fixtureJob(), metadata: { name: "mnist", namespace: "training", uid: "u-1", labels: { "kueue.x-k8s.io/queue-name": "q" } } };
  const stored = api.workload(job);
  const held = { ...stored, metadata: { ...stored.metadata, resourceVersion: "5" }, status: { conditions: [{ type: "QuotaReserved", status: "True", reason: "QuotaReserved", message: "", lastTransitionTime: "2026-03-01T09:00:00Z" }] } };
  const probes = [];
  let answer;
  const adapter = {
    replace: async (kind, obj, { dryRun } = {}) => {
      probes.push({ kind, dryRun, counts: Object.fromEntries(obj.spec.podSets.map((s) => [s.name, s.count])), resourceVersion: obj.metadata.resourceVersion });
      if (answer) {
        throw answer;
      }
      return obj;
    },
  };
  const lines = [];
  const log = new Logger({ write: (line) => lines.push(JSON.parse(line)) }, { level: "info" });
  const reconcilerWith = (workloads) => {
    const r = reconcilerOf(adapter, job, { options: { kueue: true, kueueWorkloadSlices: true } });
    Object.assign(r, { log, caches: { ...r.caches, workloads: fixedCache(workloads) } });
    return r;
  };
  const pass = { key: "training/mnist" };

  // No Workload holding quota: nothing can tell, nothing is sent, the option stays off.
  const waiting = reconcilerWith([stored]);
  await waiting.probeSlicesGate(pass);
  assert.deepEqual(probes, []);
  assert.equal(waiting.slicesGate.on, undefined);

  // Accepted: on, asked once for a while; the dry run lowers the first pod set (the master, 1 -> 0) and nothing else, at the version read.
  const on = reconcilerWith([held]);
  await on.probeSlicesGate(pass);
  await on.probeSlicesGate(pass);
  const counts = Object.fromEntries(stored.spec.podSets.map((s) => [s.name, s.count]));
  assert.deepEqual(probes, [{ kind: "Workload", dryRun: true, counts: { ...counts, "dlrover-master": 0 }, resourceVersion: "5" }]);
  assert.equal(on.slicesGate.on, true);
  assert.match(on.slicesGate.options, /"kueueWorkloadSlices":true/);

  // Refused as immutable (Kueue's webhook with the gate off): off, with a warning that says what the option no longer does.
  probes.length = 0;
  answer = new ApiError("update", 403, { reason: "Forbidden", message: 'admission webhook "vworkload.kb.io" denied the request: spec.podSets[0]: Invalid value: {"name":"dlrover-master"}: field is immutable' });
  const off = reconcilerWith([held]);
  await off.probeSlicesGate(pass);
  assert.equal(off.slicesGate.on, false);
  assert.ok(lines.some((l) => l.level === "warn" && /ElasticJobsViaWorkloadSlices is off/.test(l.msg)), "warned");

  // Any other answer tells nothing: the last answer stays, and the next pass asks again.
  answer = new ApiError("update", 500, { message: "etcdserver: request timed out" });
  const unknown = reconcilerWith([held]);
  await unknown.probeSlicesGate(pass);
  await unknown.probeSlicesGate(pass);
  assert.equal(unknown.slicesGate.on, undefined);
  assert.equal(probes.length, 3);

  // Without the option, never asked.
  const plain = reconcilerOf(adapter, job, { options: { kueue: true } });
  await plain.probeSlicesGate(pass);
  assert.equal(probes.length, 3);
});

test("a status write that conflicts is read again and planned again, and what the pass did is not done again", async () => {
  const job = { ...fixtureJob(), metadata: { name: "mnist", namespace: "training", uid: "u-1", resourceVersion: "7" } };
  const newer = { ...job, metadata: { ...job.metadata, resourceVersion: "8", labels: { team: "ads" } } };
  const calls = [];
  let conflicts = 1;
  const adapter = {
    create: async (kind, obj) => {
      calls.push(`create ${kind} ${obj.metadata.name}`);
      return { ...obj, metadata: { ...obj.metadata, uid: `uid-${obj.metadata.name}`, resourceVersion: "9" } };
    },
    apply: async (kind, obj) => calls.push(`apply ${kind} ${obj.metadata.name}`),
    get: async (kind, namespace, name) => {
      calls.push(`get ${kind} ${name}`);
      return newer;
    },
    replaceStatus: async (kind, obj) => {
      calls.push(`status ${kind} ${obj.metadata.name} at ${obj.metadata.resourceVersion}`);
      if (conflicts-- > 0) {
        throw new ApiError("update", 409, { reason: "Conflict", message: "the object has been modified" });
      }
      return { ...obj, metadata: { ...obj.metadata, resourceVersion: "10" } };
    },
  };
  const reconciler = reconcilerOf(adapter, job);
  assert.deepEqual(await reconciler.reconcile("training/mnist"), { result: "success" });
  const made = ["mnist-edljob-ps-0", "mnist-edljob-chief-0", "mnist-edljob-worker-0", "elasticjob-mnist-dlrover-master"];
  assert.deepEqual(calls, [
    ...made.map((name) => `create Service ${name}`), // services first
    ...made.map((name) => `create Pod ${name}`), // the first plan's pods, the master last
    "status ElasticJob mnist at 7",
    "get ElasticJob mnist", // read again: the new version, planned again with what it made: nothing made twice
    "status ElasticJob mnist at 8",
  ]);
  // The caches still show version 7 and no master: the next pass waits for them.
  const next = await reconciler.reconcile("training/mnist");
  assert.equal(next.result, "deferred");
  assert.ok(next.requeueAfterMs > 0);
});

test("a job whose worker runs as the masters' ServiceAccount is refused before any object: its Refused condition and one Warning event say why, once", async () => {
  const job = structuredClone({ ...fixtureJob(), metadata: { name: "mnist", namespace: "training", uid: "u-1", resourceVersion: "7" } });
  job.spec.replicaSpecs.worker.template.spec.serviceAccountName = "elasticjob-dlrover-master";
  const calls = [];
  let written;
  const adapter = {
    create: async (kind, obj) => {
      calls.push(kind === "Event" ? `event ${obj.type} ${obj.reason}: ${obj.message}` : `create ${kind} ${obj.metadata.name}`);
      return { ...obj, metadata: { ...obj.metadata, uid: "x", resourceVersion: "9" } };
    },
    apply: async (kind, obj) => calls.push(`apply ${kind} ${obj.metadata.name}`),
    patch: async (kind, namespace, name) => calls.push(`patch ${kind} ${name}`),
    replaceStatus: async (kind, obj) => {
      calls.push(`status ${kind} ${obj.metadata.name}`);
      written = obj.status;
      return { ...obj, metadata: { ...obj.metadata, resourceVersion: "10" } };
    },
  };
  const options = { options: { masterServiceAccount: "ml-masters", gangSchedulerName: "volcano" } };
  const path = "spec.replicaSpecs.worker.template.spec.serviceAccountName";
  assert.deepEqual(await reconcilerOf(adapter, job, options).reconcile("training/mnist"), { result: "invalid" });
  assert.equal(calls.length, 2, calls.join("\n"));
  assert.equal(calls[0], "status ElasticJob mnist");
  assert.match(calls[1], new RegExp(`^event Warning InvalidJob: cannot be planned: ${path.replaceAll(".", "\\.")}: \`elasticjob-dlrover-master\` is the job masters' ServiceAccount`));
  const refused = written.status.conditions.find((c) => c.type === "Refused");
  assert.deepEqual([refused.status, refused.reason], ["True", "InvalidJob"]);
  assert.ok(refused.message.includes(path), refused.message);
  // The condition says so already: the next pass over the job as written writes and tells nothing.
  calls.length = 0;
  const stored = { ...job, status: written, metadata: { ...job.metadata, resourceVersion: "10" } };
  assert.deepEqual(await reconcilerOf(adapter, stored, options).reconcile("training/mnist"), { result: "invalid" });
  assert.deepEqual(calls, []);
});

test("a finished job comes back when its TTL passes, not before, and is deleted then (uid a precondition)", async () => {
  const { input } = goldenCases().find((c) => c.name === "run-policy-before-the-ttl-requeues");
  const calls = [];
  const adapter = {
    delete: async (kind, namespace, name, options) => calls.push(`delete ${kind} ${namespace}/${name} uid ${options.uid}`),
  };
  // Completed at 10:00 with a TTL of 600 s; the clock says 10:00: nothing to do for 10 minutes.
  const early = reconcilerOf(adapter, input.job, { pods: input.pods });
  assert.deepEqual(await early.reconcile("ml/mnist"), { result: "success", requeueAfterMs: 600_000 });
  assert.deepEqual(calls, []);
  const due = structuredClone(input.job);
  due.status.status.completionTime = "2026-03-01T09:50:00Z";
  const late = reconcilerOf(adapter, due, { pods: input.pods });
  assert.deepEqual(await late.reconcile("ml/mnist"), { result: "success" });
  assert.deepEqual(calls, [`delete ElasticJob ml/mnist uid ${input.job.metadata.uid}`]);
});

test("a service of the job's name that another object controls is not overwritten: the create is refused, with a Warning", async () => {
  const job = { ...fixtureJob(), metadata: { name: "mnist", namespace: "training", uid: "u-1", resourceVersion: "7" } };
  const calls = [];
  const adapter = {
    create: async (kind, obj) => {
      calls.push(`create ${kind} ${obj.metadata.name}`);
      if (kind === "Service") {
        throw new ApiError("create", 409, { reason: "AlreadyExists", message: "exists" });
      }
      if (kind === "Event") {
        calls.push(`event ${obj.type} ${obj.reason}`);
      }
      return { ...obj, metadata: { ...obj.metadata, uid: `uid-${obj.metadata.name}`, resourceVersion: "9" } };
    },
    apply: async (kind, obj) => calls.push(`apply ${kind} ${obj.metadata.name}`),
    get: async (kind, namespace, name) => {
      calls.push(`get ${kind} ${name}`);
      return { metadata: { name, namespace, ownerReferences: [{ apiVersion: "apps/v1", kind: "Deployment", name: "web", uid: "other", controller: true }] } };
    },
    replaceStatus: async (kind, obj) => ({ ...obj, metadata: { ...obj.metadata, resourceVersion: "10" } }),
    patch: async () => ({}),
  };
  const reconciler = reconcilerOf(adapter, job);
  await assert.rejects(reconciler.reconcile("training/mnist"), /exists and this job does not control it/);
  assert.ok(!calls.some((c) => c.startsWith("apply")), calls.join(", "));
  assert.ok(!calls.includes("create Pod elasticjob-mnist-dlrover-master"), "the master's pod waits for its address");
  assert.ok(calls.includes("event Warning FailedCreate"), calls.join(", "));
});

test("a PodGroup of the job's name is updated whole at the resourceVersion read, or deleted, only when the job controls it; a conflict requeues; one of another group in the cache is not it", async () => {
  const job = { ...fixtureJob(), metadata: { name: "mnist", namespace: "training", uid: "u-1", resourceVersion: "7" } };
  const owner = { apiVersion: job.apiVersion, kind: "ElasticJob", name: "mnist", uid: "u-1", controller: true, blockOwnerDeletion: true };
  const group = (apiVersion, ownerReferences, uid, resourceVersion = "40") => ({
    apiVersion,
    kind: "PodGroup",
    metadata: { name: "mnist", namespace: "training", uid, resourceVersion, ownerReferences },
    spec: { minMember: 3, priorityClassName: "high" },
    status: { phase: "Running" },
  });
  const VOLCANO = "scheduling.volcano.sh/v1beta1";
  const PLUGINS = "scheduling.x-k8s.io/v1alpha1";
  const run = async (action, there, cached = [], { conflict = false } = {}) => {
    const calls = [];
    const adapter = {
      create: async (kind, obj) => {
        calls.push(`create ${kind} ${obj.apiVersion}`);
        throw new ApiError("create", 409, { reason: "AlreadyExists", message: "exists" });
      },
      get: async (kind, namespace, name) => {
        calls.push(`get ${kind} ${name}`);
        if (!there) {
          throw new ApiError("get", 404, { reason: "NotFound", message: "not found" });
        }
        return there;
      },
      replace: async (kind, obj) => {
        calls.push(`replace ${kind} ${obj.metadata.name} at ${obj.metadata.resourceVersion} uid ${obj.metadata.uid} ${JSON.stringify(obj.spec)}`);
        if (conflict) {
          throw new ApiError("replace", 409, { reason: "Conflict", message: "the object has been modified" });
        }
        return obj;
      },
      patch: async (kind, namespace, name, body) => calls.push(`patch ${kind} ${name} ${JSON.stringify(body)}`),
      delete: async (kind, namespace, name, options) => calls.push(`delete ${kind} ${name} uid ${options.uid}`),
    };
    const cache = Object.assign(fixedCache(cached), { apiVersion: PLUGINS });
    const pass = { key: "training/mnist", adapter, job, caches: { podGroups: cache }, expectations: { presence: () => ({}), newer: () => ({}) } };
    const handler = HANDLERS[action.action];
    const expected = handler.expect(pass, action) ?? {};
    try {
      return { outcome: await handler.perform(pass, action, expected), calls };
    } catch (e) {
      return { error: e.message, conflict: e instanceof WriteConflict, calls };
    }
  };
  const wanted = { ...group(VOLCANO, [owner]), spec: { minMember: 4, queue: "research" } };
  delete wanted.metadata.resourceVersion;
  delete wanted.status;
  // The core's update: the PodGroup it read, at that resourceVersion, its whole spec (priorityClassName gone).
  const update = { ...wanted, metadata: { ...wanted.metadata, uid: "g-1", resourceVersion: "39" } };
  assert.deepEqual(await run({ action: "createOrUpdatePodGroup", podGroup: update }, group(VOLCANO, [owner], "g-1")), {
    outcome: "done",
    calls: ["get VolcanoPodGroup mnist", 'replace VolcanoPodGroup mnist at 39 uid g-1 {"minMember":4,"queue":"research"}'],
  });
  // Changed since the core read it: a WriteConflict, which requeues the job without a Warning event.
  const conflicted = await run({ action: "createOrUpdatePodGroup", podGroup: update }, group(VOLCANO, [owner], "g-1"), [], { conflict: true });
  assert.equal(conflicted.conflict, true, JSON.stringify(conflicted));
  // A create that finds one of the job's there (made since the caches were read): updated at the resourceVersion read.
  assert.deepEqual(await run({ action: "createOrUpdatePodGroup", podGroup: wanted }, group(VOLCANO, [owner], "g-1")), {
    outcome: "done",
    calls: ["create VolcanoPodGroup scheduling.volcano.sh/v1beta1", "get VolcanoPodGroup mnist", 'replace VolcanoPodGroup mnist at 40 uid g-1 {"minMember":4,"queue":"research"}'],
  });
  // Another's (an earlier job of that name, a user's): left as it is, the action refused.
  const foreign = group(VOLCANO, [{ ...owner, uid: "u-0" }], "g-0");
  const refused = await run({ action: "createOrUpdatePodGroup", podGroup: wanted }, foreign);
  assert.match(refused.error, /PodGroup mnist exists and this job does not control it/);
  assert.ok(!refused.calls.some((c) => c.startsWith("replace") || c.startsWith("patch")), refused.calls.join(", "));
  // The cache holds scheduler-plugins' PodGroup of that name: not the Volcano one the action names, which is read.
  const mixed = await run({ action: "createOrUpdatePodGroup", podGroup: update }, group(VOLCANO, [owner], "g-1"), [group(PLUGINS, [{ ...owner, uid: "u-0" }], "g-9")]);
  assert.equal(mixed.outcome, "done", JSON.stringify(mixed));
  // Deleted: the job's own with its uid a precondition; another's, or none, left alone.
  const deletion = { action: "deletePodGroup", namespace: "training", name: "mnist", apiVersion: VOLCANO };
  assert.deepEqual((await run(deletion, group(VOLCANO, [owner], "g-1"))).calls, ["get VolcanoPodGroup mnist", "delete VolcanoPodGroup mnist uid g-1"]);
  assert.deepEqual(await run(deletion, foreign), { outcome: "gone", calls: ["get VolcanoPodGroup mnist"] });
  assert.deepEqual(await run(deletion, undefined), { outcome: "gone", calls: ["get VolcanoPodGroup mnist"] });
  // From the cache when it holds the job's own (of the group it watches): no read.
  const cachedOwn = group(PLUGINS, [owner], "g-2");
  assert.deepEqual((await run({ ...deletion, apiVersion: PLUGINS }, undefined, [cachedOwn])).calls, ["delete SchedulerPluginsPodGroup mnist uid g-2"]);
  // A group the controller does not know: the action fails.
  assert.match((await run({ ...deletion, apiVersion: "scheduling.example.com/v1" }, undefined)).error, /a PodGroup of scheduling\.example\.com\/v1, which this controller does not know/);
});

test("a service deleted from a running job is made again once: the next pass waits for the cache to show it", async () => {
  const key = "training/mnist";
  const counts = { "dlrover-master": { active: 1 }, ps: { active: 1 }, chief: { active: 1 }, worker: { active: 1 } };
  // DLRover's master runs the first of the fixture's two workers as its chief: chief-0 and worker-0.
  const job = { ...fixtureJob(), status: { phase: "Running", status: { replicaStatuses: counts } } };
  // The job's objects as the controller made them; its pods run.
  const { items } = render(job);
  const pods = items.filter((o) => o.kind === "Pod").map((p) => ({ ...p, metadata: { ...p.metadata, uid: `uid-${p.metadata.name}` }, status: { phase: "Running" } }));
  const services = items.filter((o) => o.kind === "Service");
  assert.equal(services.length, 4);
  const gone = services.find((s) => s.metadata.name === "mnist-edljob-worker-0");
  const cached = services.filter((s) => s !== gone);
  // A service of the job's labels that no object controls is someone else's: left alone.
  cached.push({ ...gone, metadata: { ...gone.metadata, name: "mnist-edljob-worker-7", ownerReferences: undefined, labels: { ...gone.metadata.labels, "elasticjob.dlrover/rank-index": "7" } } });
  const calls = [];
  const adapter = {
    create: async (kind, obj) => {
      calls.push(`create ${kind} ${obj.metadata.name}`);
      return { ...obj, metadata: { ...obj.metadata, uid: "uid-new" } };
    },
    apply: async (kind, obj) => assert.fail(`apply ${kind} ${obj.metadata.name}`),
    delete: async (kind, ns, name) => assert.fail(`delete ${kind} ${name}`),
    replaceStatus: async (kind, obj) => assert.fail(`status ${kind} ${obj.metadata.name}`),
  };
  const reconciler = reconcilerOf(adapter, job, { pods, services: cached });
  assert.deepEqual(await reconciler.reconcile(key), { result: "success" });
  assert.deepEqual(calls, ["create Service mnist-edljob-worker-0"]);
  // The cache has not shown the new service yet: the next pass waits rather than make it again.
  const next = await reconciler.reconcile(key);
  assert.equal(next.result, "deferred");
  assert.ok(next.requeueAfterMs > 0);
  // The watch brings it: the pass has nothing left to do.
  const made = { ...gone, metadata: { ...gone.metadata, uid: "uid-new" } };
  cached.push(made);
  reconciler.keep("Service", "add", made);
  reconciler.observed(key, "Service", "add", made);
  assert.deepEqual(await reconciler.reconcile(key), { result: "success" });
  assert.deepEqual(calls, ["create Service mnist-edljob-worker-0"], "one call in all");
});

test("a job's waiting plans are carried out in one reconcile, oldest first: each plan's status written once, the job's once, one event naming the first and the last", async () => {
  const { input } = goldenCases().find((c) => c.name === "controller-pass-takes-the-plans-in-order");
  const calls = [];
  const adapter = {
    create: async (kind, obj) => {
      calls.push(kind === "Event" ? `Event ${obj.reason}: ${obj.message}` : `create ${kind} ${obj.metadata.name}`);
      return { ...obj, metadata: { ...obj.metadata, uid: `uid-${obj.metadata.name}` } };
    },
    replaceStatus: async (kind, obj) => {
      calls.push(`status ${kind} ${obj.metadata.name} ${obj.status.phase}${obj.status.scalePlan ? ` ${obj.status.scalePlan}` : ""}`);
      return { ...obj, metadata: { ...obj.metadata, resourceVersion: "10" } };
    },
    patch: async () => ({}),
  };
  const reconciler = reconcilerOf(adapter, input.job, { plans: input.scalePlans, pods: input.pods, services: input.services });
  assert.equal((await reconciler.reconcile("ml/mnist")).result, "success");
  const pods = calls.filter((c) => c.startsWith("create Pod")).sort();
  assert.deepEqual(pods, ["ps-0", "chief-0", "worker-0", "worker-1", "worker-2"].map((n) => `create Pod mnist-edljob-${n}`).sort());
  assert.deepEqual(
    calls.filter((c) => c.startsWith("status")),
    ["status ScalePlan mnist-scaleplan-0 Succeeded", "status ScalePlan mnist-scaleplan-1 Succeeded", "status ScalePlan mnist-scaleplan-2 Succeeded", "status ElasticJob mnist Running mnist-scaleplan-2"],
  );
  assert.deepEqual(
    calls.filter((c) => c.startsWith("Event ScalePlanTakenUp")),
    ["Event ScalePlanTakenUp: took up scale plans mnist-scaleplan-1 to mnist-scaleplan-2, 2 in all, oldest first"],
  );
});

test("events come from the core: a PS migration beside an old failed pod is no relaunch; a relaunch is one", async () => {
  const { input } = goldenCases().find((c) => c.name === "ps-migration-creates-pods-as-written");
  const job = { ...input.job, status: { ...input.job.status, scalePlan: undefined } };
  const ps = input.pods.find((p) => p.metadata.name === "mnist-edljob-ps-0");
  const psAt = (id, phase) => ({
    ...ps,
    metadata: { ...ps.metadata, name: `mnist-edljob-ps-${id}`, uid: `uid-ps-${id}`, labels: { ...ps.metadata.labels, "elasticjob.dlrover/replica-index": String(id) } },
    status: { phase },
  });
  // The master's plan makes ps-2 at rank 0.
  const entry = { ...input.scalePlan.spec.createPods[0], name: "mnist-edljob-ps-2", id: 2, service: "mnist-edljob-ps-2:2222" };
  const plan = { ...input.scalePlan, metadata: { ...input.scalePlan.metadata, uid: "uid-plan" }, spec: { ...input.scalePlan.spec, createPods: [entry], psHosts: ["mnist-edljob-ps-2:2222"] }, status: undefined };
  const others = input.pods.filter((p) => p.metadata.name !== "mnist-edljob-ps-0");
  const pass = async (pods) => {
    const events = [];
    const adapter = {
      create: async (kind, obj) => {
        if (kind === "Event") {
          events.push(obj.reason);
        }
        return { ...obj, metadata: { ...obj.metadata, uid: `uid-${obj.metadata.name}` } };
      },
      replaceStatus: async (kind, obj) => ({ ...obj, metadata: { ...obj.metadata, resourceVersion: "10" } }),
      patch: async () => ({}),
    };
    const reconciler = reconcilerOf(adapter, job, { plans: [plan], pods });
    assert.equal((await reconciler.reconcile("ml/mnist")).result, "success");
    const created = api.controllerPass(job, [plan], pods, [], "2026-03-01T10:00:00Z").phases.flatMap((p) => p.actions).find((a) => a.action === "createPod");
    return { events, cause: created.cause, event: created.event?.reason };
  };
  // ps-0 failed and was relaunched as ps-1, which runs: ps-2 beside it is a migration.
  const migration = await pass([...others, psAt(0, "Failed"), psAt(1, "Running")]);
  assert.deepEqual([migration.cause, migration.event], ["migration", undefined]);
  assert.ok(!migration.events.includes("Relaunched"), migration.events.join(", "));
  // ps-0 failed and nothing runs at its rank: ps-2 relaunches it.
  const relaunch = await pass([...others, psAt(0, "Failed")]);
  assert.deepEqual([relaunch.cause, relaunch.event], ["relaunch", "Relaunched"]);
  assert.ok(relaunch.events.includes("Relaunched"), relaunch.events.join(", "));
});

test("`elasticjob controller`: wrong usage exits 2, a cluster it cannot reach exits 1 with the reason", async () => {
  const io = () => {
    const out = { stdout: "", stderr: "" };
    return [out, { stdout: { write: (t) => (out.stdout += t) }, stderr: { write: (t) => (out.stderr += t) } }];
  };
  for (const [args, message] of [
    [["--workers", "0"], /--workers takes a whole number from 1/],
    [["--metrics-port", "70000"], /--metrics-port takes a port from 0 to 65535/],
    [["--resync", "soon"], /--resync takes a number of seconds/],
    [["--leader-elect", "--leader-elect-lease-duration", "5", "--leader-elect-renew-deadline", "10"], /must exceed the renew deadline/],
    [["--log-level", "loud"], /--log-level takes one of debug, info, warn, error/],
    [["--gang-scheduler-name", ""], /--gang-scheduler-name is empty/],
    [["extra"], /no argument expected, got extra/],
  ]) {
    const [out, streams] = io();
    assert.equal(await main(["controller", ...args], streams), 2, args.join(" "));
    assert.match(out.stderr, message);
  }
  const [out, streams] = io();
  assert.equal(await main(["controller", "--kubeconfig", "/nonexistent/kubeconfig"], streams), 1);
  assert.match(out.stderr, /cannot start: .*\/nonexistent\/kubeconfig/);
  assert.equal(DEFAULTS.leaseDurationSeconds, 15);
});

test("`elasticjob controller --gang-scheduler-name`: a cluster that serves no PodGroups of that scheduler's group stops the start (exit 1, the group named); without the flag, none is no error", async (t) => {
  // An API server that serves nothing beyond the core groups: every discovery of a group is 404,
  // every list empty, every watch held open.
  const seen = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://localhost");
    seen.push(url.pathname);
    if (/^\/apis\/[^/]+\/[^/]+$/.test(url.pathname)) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ kind: "Status", reason: "NotFound", message: "not found" }));
    } else if (url.searchParams.get("watch")) {
      res.writeHead(200, { "content-type": "application/json" }).flushHeaders();
    } else {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ kind: "List", metadata: { resourceVersion: "1" }, items: [] }));
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const kc = kubeConfigOf(server);
  const dir = mkdtempSync(`${tmpdir()}/elasticjob-gang-`);
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(`${dir}/kubeconfig`, kc.exportConfig());
  for (const [name, group] of [["volcano", "scheduling.volcano.sh/v1beta1"], ["scheduler-plugins-scheduler", "scheduling.x-k8s.io/v1alpha1"]]) {
    const out = { stdout: "", stderr: "" };
    const streams = { stdout: { write: (text) => (out.stdout += text) }, stderr: { write: (text) => (out.stderr += text) } };
    assert.equal(await main(["controller", "--kubeconfig", `${dir}/kubeconfig`, "--gang-scheduler-name", name, "--metrics-port", "0", "--health-port", "0"], streams), 1, name);
    assert.match(out.stderr, new RegExp(`cannot start: --gang-scheduler-name ${name}: the API server serves no PodGroups of ${group.replaceAll(".", "\\.")}`));
    assert.ok(seen.includes(`/apis/${group}`), `${group} asked`);
  }
  // Without the flag: Volcano's group asked once, not served, nothing of PodGroups watched.
  seen.length = 0;
  const controller = await new Controller({ kubeconfig: `${dir}/kubeconfig`, healthPort: 0, metricsPort: 0, host: "127.0.0.1", logger: quiet }).start();
  await controller.ready;
  await controller.stop();
  assert.deepEqual(seen.filter((p) => p.includes("scheduling")), ["/apis/scheduling.volcano.sh/v1beta1"]);
  assert.equal(controller.caches.podGroups, undefined);
});

test("a write the lease fence refuses is never sent, and fails as the cluster's trouble; reads still go; the field manager given is the one sent", async () => {
  const seen = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ metadata: { name: "a" } }));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const kc = kubeConfigOf(server);
  let holds = true;
  const calls = [];
  const adapter = new KubeAdapter(kc, { onRequest: (call) => calls.push(call.code), fieldManager: "replica-b", mayWrite: () => holds });
  await adapter.connect();
  const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "a", namespace: "ns" } };
  await adapter.create("Pod", pod);
  await adapter.patch("Pod", "ns", "a", { metadata: { labels: { x: "1" } } });
  holds = false;
  await assert.rejects(adapter.create("Pod", pod), (e) => e.name === "RequestError" && /no longer holds the leader lease/.test(e.message));
  await assert.rejects(adapter.delete("Pod", "ns", "a"), /no longer holds the leader lease/);
  await adapter.get("Pod", "ns", "a");
  adapter.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  assert.deepEqual(seen, ["POST /api/v1/namespaces/ns/pods?fieldManager=replica-b", "PATCH /api/v1/namespaces/ns/pods/a?fieldManager=replica-b", "GET /api/v1/namespaces/ns/pods/a"]);
  assert.deepEqual(calls, ["200", "200", "fenced", "fenced", "200"]);
});

test("an answer that asks for a retry (429 or 5xx with Retry-After seconds) is waited out and sent again, up to 10 times, as client-go does; without the header it fails at once", async () => {
  const seen = [];
  /** Per path: the answers to give in turn, [status, retryAfter] (the last one repeats). */
  const script = {
    "/api/v1/namespaces/ns/pods/throttled": [[429, "1"], [503, "2"], [200]],
    "/api/v1/namespaces/ns/pods/plain": [[429]],
    "/api/v1/namespaces/ns/pods/date": [[429, "Wed, 21 Oct 2015 07:28:00 GMT"]],
    "/api/v1/namespaces/ns/pods/forever": [[429, "1"]],
    "/api/v1/namespaces/ns/pods": [[429, "3"], [201]],
  };
  const server = http.createServer((req, res) => {
    const path = new URL(req.url, "http://localhost").pathname;
    seen.push(`${req.method} ${path}`);
    const answers = script[path];
    const [status, retryAfter] = answers.length > 1 ? answers.shift() : answers[0];
    res.writeHead(status, { "content-type": "application/json", ...(retryAfter ? { "retry-after": retryAfter } : {}) });
    res.end(JSON.stringify(status < 300 ? { metadata: { name: "a" } } : { kind: "Status", reason: status === 429 ? "TooManyRequests" : "ServiceUnavailable", message: "slow down" }));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const waits = [];
  const calls = [];
  let holds = true;
  // The server's waits on a clock of the test: recorded, not slept.
  const adapter = new KubeAdapter(kubeConfigOf(server), { onRequest: (call) => calls.push(call.code), sleep: async (ms) => waits.push(ms), mayWrite: () => holds });
  await adapter.connect();
  try {
    assert.deepEqual(await adapter.get("Pod", "ns", "throttled"), { metadata: { name: "a" } });
    assert.deepEqual([waits, calls], [[1000, 2000], ["429", "503", "200"]]);
    for (const name of ["plain", "date"]) {
      waits.length = 0;
      await assert.rejects(adapter.get("Pod", "ns", name), (e) => e.name === "ApiError" && e.status === 429, name);
      assert.deepEqual(waits, [], `${name}: no wait, no retry`);
    }
    waits.length = 0;
    seen.length = 0;
    await assert.rejects(adapter.get("Pod", "ns", "forever"), (e) => e.name === "ApiError" && e.status === 429 && /slow down/.test(e.message));
    assert.equal(seen.length, 11, "the first try and 10 retries");
    assert.deepEqual(waits, Array(10).fill(1000));
    // A write asks the lease fence again before its retry: a lease lost meanwhile sends nothing more.
    seen.length = 0;
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "a", namespace: "ns" } };
    adapter.sleep = async () => {
      holds = false;
    };
    await assert.rejects(adapter.create("Pod", pod), /no longer holds the leader lease/);
    assert.deepEqual(seen, ["POST /api/v1/namespaces/ns/pods"]);
  } finally {
    adapter.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
