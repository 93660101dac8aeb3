// The chaos soak's parts that need no cluster. Its fault schedule (benches/node/soak/schedule.js):
// every kind in each round, a kind that finds nothing gives its turn to the next and is tried again
// after the next injection, never twice in a row without one, and the tried and injected counts.
// Its evidence (soak/evidence.js): a violation's file holds the faults of its window, the lease's
// holders, its job's timeline and the controllers' lines for that job, and no other job's. When a
// fault took effect (soak/effect.js), from which convergence is counted, and the garbage
// collector's bound counted from the control plane serving again (soak/observer.js). The fault
// proxy of the network faults (tests/e2e/proxy.js).
import assert from "node:assert/strict";
import http from "node:http";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { tookEffect } from "../../benches/node/soak/effect.js";
import { writeEvidence } from "../../benches/node/soak/evidence.js";
import { nextId } from "../../benches/node/soak/master.js";
import { asked, mix, targetFromEnv } from "../../benches/node/soak/mix.js";
import { COLLECTED_PER_S, Observer, collectorQueues, deletionBoundMs } from "../../benches/node/soak/observer.js";
import { random } from "../../benches/node/soak/random.js";
import { Schedule } from "../../benches/node/soak/schedule.js";
import { faultProxy } from "../../tests/e2e/proxy.js";
import { ManualClock } from "./clock.js";

const KINDS = ["a", "b", "c", "d", "e"];

/** Runs `turns` turns; `can(kind, turn)` says whether the kind finds something. The kinds tried, in order. */
function drive(schedule, turns, can) {
  const tried = [];
  for (let turn = 0; turn < turns; turn++) {
    const kind = schedule.next();
    if (kind === undefined) {
      tried.push("(wait)");
      schedule.reset();
      continue;
    }
    tried.push(kind);
    if (can(kind, turn)) schedule.done(kind);
    else schedule.nothing(kind);
  }
  return tried;
}

test("when every kind acts, each round injects every kind once, in the seed's order", () => {
  const s = new Schedule(KINDS, random(7));
  const tried = drive(s, 15, () => true);
  for (let round = 0; round < 3; round++) {
    assert.deepEqual([...tried.slice(round * 5, round * 5 + 5)].sort(), KINDS);
  }
  assert.deepEqual(s.injected, { a: 3, b: 3, c: 3, d: 3, e: 3 });
  assert.deepEqual(s.tried, s.injected);
  assert.deepEqual(drive(new Schedule(KINDS, random(7)), 15, () => true), tried, "the same seed, the same order");
});

test("a kind that finds nothing gives its turn to the next and is tried again after the next injection", () => {
  const s = new Schedule(KINDS, random(3));
  // "c" finds something from turn 6 on.
  const tried = drive(s, 12, (kind, turn) => kind !== "c" || turn >= 6);
  const c = tried.map((k, i) => (k === "c" ? i : -1)).filter((i) => i >= 0);
  assert.ok(c.length >= 2, `c tried more than once: ${tried}`);
  for (let i = 1; i < tried.length; i++) {
    assert.ok(!(tried[i] === "c" && tried[i - 1] === "c"), `c twice in a row: ${tried}`);
  }
  // Between two tries of c while it finds nothing, exactly one other kind (which was injected).
  for (let j = 1; j < c.length && c[j] <= 6; j++) {
    assert.equal(c[j] - c[j - 1], 2, `c gave one turn: ${tried}`);
  }
  assert.equal(s.injected.c, c.filter((i) => i >= 6).length);
  assert.equal(s.tried.c, c.length);
  assert.equal(s.tried.c - s.injected.c, c.filter((i) => i < 6).length);
  assert.ok(!tried.includes("(wait)"));
});

test("a round whose last kind finds nothing goes on with the next round, at the same rate", () => {
  // The 30-minute run's stall: every kind but one injected in its round, the one left finds nothing
  // for a long time. The others keep coming; the one left is tried once after each injection.
  const s = new Schedule(KINDS, random(11));
  const tried = drive(s, 60, (kind, turn) => kind !== "e" || turn >= 50);
  const injectedBefore50 = tried.slice(0, 50).filter((k) => k !== "e").length;
  assert.ok(injectedBefore50 >= 24, `the others kept coming: ${tried.slice(0, 50)}`);
  for (const k of ["a", "b", "c", "d"]) assert.ok(s.injected[k] >= 6, `${k}: ${s.injected[k]}`);
  assert.equal(s.injected.e, tried.slice(50).filter((k) => k === "e").length);
  assert.equal(s.tried.e - s.injected.e, tried.slice(0, 50).filter((k) => k === "e").length);
  assert.deepEqual(s.never(), []);
});

test("when no kind finds anything the schedule says so, once each kind has tried", () => {
  const s = new Schedule(KINDS, random(5));
  const tried = drive(s, 6, () => false);
  assert.deepEqual(tried.slice(0, 5).sort(), KINDS);
  assert.equal(tried[5], "(wait)");
  assert.deepEqual(s.injected, { a: 0, b: 0, c: 0, d: 0, e: 0 });
  assert.deepEqual(s.tried, { a: 1, b: 1, c: 1, d: 1, e: 1 });
  assert.deepEqual(s.never(), KINDS);
});

test("a violation's evidence: its window's faults, the lease, its job's timeline and log lines, no other job's", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "soak-evidence-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const at = Date.parse("2026-01-01T10:00:00Z");
  const observer = {
    timelines: new Map([
      ["j1", [{ at: at - 20_000, event: "ADDED", kind: "Pod", name: "j1-edljob-worker-0", rv: "41", what: "Pending; rank 0 relaunch 0; node -" }]],
      ["j12", [{ at: at - 5_000, event: "ADDED", kind: "Pod", name: "j12-edljob-worker-0", rv: "57", what: "Running" }]],
    ]),
    leaseChanges: [
      { at: at - 3_600_000, identity: "old", rv: "1", acquireTime: "t0" },
      { at: at - 15_000, identity: "new", rv: "40", acquireTime: "t1" },
    ],
  };
  const faults = [
    { kind: "stall", from: at - 12_000, to: at - 6_000, note: "soak-a-1" },
    { kind: "kill-leader", from: at - 2_000, to: at - 2_000, effect: at - 1_000, note: "soak-b-1" },
    { kind: "relist", from: at - 3_600_000, to: at - 3_590_000, note: "long before" },
  ];
  const controllers = [
    {
      name: "soak-a-1",
      lines: [
        { time: new Date(at - 19_000).toISOString(), msg: "createPod", job: "soak/j1", name: "j1-edljob-worker-0" },
        { time: new Date(at - 18_000).toISOString(), msg: "createPod", job: "soak/j12", name: "j12-edljob-worker-0" },
        { time: new Date(at - 14_000).toISOString(), msg: "became the leader" },
      ],
    },
  ];
  const violations = [{ kind: "not-converged-30s", detail: "after stall: j1: worker 0/1 Running", jobs: ["j1"], at }];
  writeFileSync(join(dir, "07-two-live-pods.txt"), "an earlier run's\n");
  const [path] = writeEvidence(dir, { header: "seed 1", violations, observer, faults, controllers, namespace: "soak" });
  assert.equal(path, join(dir, "01-not-converged-30s.txt"));
  const text = readFileSync(path, "utf8");
  assert.match(text, /^violation not-converged-30s at 2026-01-01T10:00:00.000Z\nafter stall: j1: worker 0\/1 Running\nseed 1\n/);
  assert.match(text, /09:59:48.000 \.\. 09:59:54.000 stall: soak-a-1/);
  assert.match(text, /09:59:58.000 \.\. 09:59:58.000 \(took effect 09:59:59.000\) kill-leader: soak-b-1/);
  assert.match(text, /09:59:59.000 ---- fault kill-leader took effect ----/);
  assert.doesNotMatch(text, /fault stall took effect/, "a fault that took effect at its end has no line of its own");
  assert.doesNotMatch(text, /long before/);
  assert.match(text, /old \(acquired t0/, "the holder when the window began");
  assert.match(text, /new \(acquired t1, rv 40\)/);
  assert.match(text, /09:59:40.000 ADDED Pod j1-edljob-worker-0 rv 41 Pending; rank 0 relaunch 0; node -/);
  assert.match(text, /10:00:00.000 ---- the violation: not-converged-30s ----/);
  assert.match(text, /soak-a-1 .*"job":"soak\/j1"/);
  assert.doesNotMatch(text, /j12/, "another job's timeline and lines stay out");
  assert.match(text, /became the leader/);
  assert.deepEqual(readdirSync(dir), ["01-not-converged-30s.txt"], "an earlier run's files are gone");
});

/** An observer that watches nothing, on a clock the test moves: its lease changes, watches and pods are set by the test. */
function quietObserver() {
  const violations = [];
  const clock = new ManualClock();
  const observer = new Observer({ log: () => {}, clock });
  observer.violation = (kind, detail) => violations.push({ kind, detail });
  return { observer, violations, clock };
}
const lease = (identity, rv) => ({ metadata: { resourceVersion: rv }, spec: { holderIdentity: identity, acquireTime: new Date().toISOString() } });

test("a leader fault takes effect when another holder takes the lease, not at its end", async () => {
  const { observer, clock } = quietObserver();
  observer.onLease(lease("a", "1"));
  const from = clock.now();
  const fault = { kind: "kill-leader", from, to: from + 1 };
  clock.after(300, () => observer.onLease(lease("b", "2")));
  const effect = await tookEffect(fault, observer, { waitS: 5, electionS: 5 });
  assert.equal(effect.at, from + 300, "counted from the new holder");
  assert.equal(effect.checkFrom, effect.at);
  assert.match(effect.note, /^b took the lease$/);
  // A holder already there when the fault began is not its effect: none comes, and the clock
  // counts from the election's bound.
  const begun = clock.now();
  const again = await tookEffect({ kind: "stall", from: begun, to: begun + 50 }, observer, { waitS: 0.2, electionS: 0.1 });
  assert.match(again.note, /no new holder of the lease within 0.2 s/);
  assert.equal(again.at, begun + 100);
});

test("an election slower than the lease's bound counts against the controllers: the clock starts at the bound", async () => {
  const { observer, clock } = quietObserver();
  observer.onLease(lease("a", "1"));
  const from = clock.now();
  clock.after(400, () => observer.onLease(lease("c", "3")));
  const effect = await tookEffect({ kind: "kill-leader", from, to: from + 1 }, observer, { waitS: 5, electionS: 0.1 });
  assert.equal(effect.at, from + 100, "from the bound, not from the late holder");
  assert.equal(effect.checkFrom, from + 400);
  assert.equal(effect.note, "c took the lease, 0.3 s past the election's bound (counted from the bound)");
});

test("a restart counts from the API server serving again, checked once every watch of the observer has connected since", async () => {
  const { observer, clock } = quietObserver();
  const from = clock.now();
  observer.connections.push({ path: "pods", at: from - 5000 }, { path: "plans", at: from - 5000 });
  const to = from + 10;
  clock.after(100, () => (observer.connections[0].at = clock.now()));
  clock.after(300, () => (observer.connections[1].at = clock.now()));
  const effect = await tookEffect({ kind: "restart-apiserver", from, to }, observer, { waitS: 5 });
  assert.equal(effect.at, to);
  assert.equal(effect.checkFrom, from + 300, "the check waits for the last watch");
  assert.match(effect.note, /watches connected again/);
});

test("a deleted node's effect is checked once the observer no longer shows its pods; a pod failure at its end", async () => {
  const { observer, clock } = quietObserver();
  observer.pods.set("p", { metadata: { name: "p", uid: "u1" } });
  const from = clock.now();
  clock.after(200, () => observer.pods.delete("p"));
  const effect = await tookEffect({ kind: "delete-node", from, to: from, pods: ["u1"] }, observer, { waitS: 5 });
  assert.equal(effect.at, from);
  assert.equal(effect.checkFrom, from + 200, "checked from when the pod went");
  assert.deepEqual(await tookEffect({ kind: "pod-fail", from, to: from + 5 }, observer, { waitS: 5 }), { at: from + 5, checkFrom: from + 5, note: "" });
});

test("what a deleted job owned must be gone 60 s after the control plane serves again, not 60 s after a delete it could not act on", () => {
  const { observer, violations } = quietObserver();
  const left = { metadata: { name: "j1-edljob-worker-0", ownerReferences: [{ uid: "job-uid" }] } };
  observer.pods.set(left.metadata.name, left);
  observer.deleted.set("j1", { uid: "job-uid", at: observer.clock.now() - 70_000 });
  observer.controlPlaneBack = observer.clock.now() - 30_000;
  observer.checkDeleted();
  assert.deepEqual(violations, [], "a restart 30 s ago: 30 s left");
  observer.controlPlaneBack = observer.clock.now() - 61_000;
  observer.checkDeleted();
  assert.deepEqual(violations, [{ kind: "orphan-after-60s", detail: "job j1: j1-edljob-worker-0 (60 s after its deletion: 60 s + 0 objects of deleted jobs the collector had not deleted at 10 a second)" }]);
});

/** `n` pods of job `job` (uid `uid`) in the observer's cache. */
const ownedPods = (observer, job, uid, n) => {
  for (let i = 0; i < n; i++) observer.pods.set(`${job}-edljob-worker-${i}`, { metadata: { name: `${job}-edljob-worker-${i}`, uid: `${uid}-${i}`, ownerReferences: [{ uid }] } });
};
/** Moves the clock `seconds` in 2 s checks, the collector deleting `perS` of `job`'s pods a second. */
const collect = (observer, clock, job, perS, seconds) => {
  for (let t = 0; t < seconds; t += 2) {
    const mine = [...observer.pods.keys()].filter((n) => n.startsWith(`${job}-`)).slice(0, perS * 2);
    for (const n of mine) observer.pods.delete(n);
    clock.t += 2000;
    observer.checkDeleted();
  }
};

test("a deleted job's bound is 60 s plus the collector's queue before and of its own at 10 a second", () => {
  assert.equal(COLLECTED_PER_S, 10);
  assert.equal(deletionBoundMs(0), 60_000);
  assert.equal(deletionBoundMs(900), 150_000);
  const { observer, violations, clock } = quietObserver();
  // 900 objects at the collector's slowest allowed pace: the last goes at 90 s, past the old
  // 60 s, within its 150 s.
  ownedPods(observer, "j1", "uid1", 900);
  observer.onJob({ metadata: { name: "j1", uid: "uid1" } }, true);
  assert.equal(observer.deleted.get("j1").queued, 900);
  // A job deleted 10 s later waits behind what is left of j1's, then its own.
  collect(observer, clock, "j1", 10, 10);
  ownedPods(observer, "j2", "uid2", 50);
  observer.onJob({ metadata: { name: "j2", uid: "uid2" } }, true);
  assert.equal(observer.deleted.get("j2").queued, 850);
  collect(observer, clock, "j1", 10, 80);
  collect(observer, clock, "j2", 10, 60);
  assert.deepEqual(violations, []);
  assert.equal(observer.deleted.size, 1, "j1 checked at 150 s");
  collect(observer, clock, "j2", 10, 10);
  assert.deepEqual(violations, []);
  assert.equal(observer.deleted.size, 0, "j2 checked at 10 + 60 + 85 s");
});

test("a collector slower than 10 a second leaves a deleted job's objects past its bound", () => {
  const { observer, violations, clock } = quietObserver();
  ownedPods(observer, "j1", "uid1", 900);
  observer.onJob({ metadata: { name: "j1", uid: "uid1" } }, true);
  collect(observer, clock, "j1", 5, 150);
  assert.equal(violations.length, 1);
  assert.equal(violations[0].kind, "orphan-after-60s");
  assert.match(violations[0].detail, /^job j1: j1-edljob-worker-750, .* \(150 s after its deletion: 60 s \+ 900 objects of deleted jobs the collector had not deleted at 10 a second\)$/);
});

test("a collector that deletes nothing for 60 s while objects of deleted jobs wait is reported stalled, from the control plane's return", () => {
  const { observer, violations, clock } = quietObserver();
  ownedPods(observer, "j1", "uid1", 3000);
  observer.onJob({ metadata: { name: "j1", uid: "uid1" } }, true);
  observer.checkDeleted();
  collect(observer, clock, "j1", 1, 20);
  observer.controlPlaneBack = clock.now();
  collect(observer, clock, "j1", 0, 58);
  assert.deepEqual(violations, [], "58 s since the restart");
  collect(observer, clock, "j1", 0, 2);
  assert.equal(violations.length, 1);
  assert.equal(violations[0].kind, "collector-stalled-60s");
  assert.match(violations[0].detail, /^2980 objects of 1 deleted jobs waiting, none deleted for 60 s/);
  // Marking one for deletion is progress.
  const pod = observer.pods.get("j1-edljob-worker-100");
  observer.pods.set(pod.metadata.name, { metadata: { ...pod.metadata, deletionTimestamp: "now" } });
  collect(observer, clock, "j1", 0, 58);
  assert.equal(violations.length, 1);
});

test("the collector's queues are read from the workqueue metrics the API server's process serves", () => {
  const text = [
    "# HELP workqueue_depth [STABLE] Current depth of workqueue",
    'workqueue_depth{name="garbage_collector_attempt_to_delete"} 412',
    'workqueue_depth{name="garbage_collector_graph_changes"} 3',
    'workqueue_depth{name="node_lifecycle_controller"} 0',
    'workqueue_adds_total{name="garbage_collector_attempt_to_delete"} 9000',
    'workqueue_retries_total{name="garbage_collector_attempt_to_delete"} 12',
    'workqueue_work_duration_seconds_sum{name="garbage_collector_attempt_to_delete"} 450.5',
    'workqueue_work_duration_seconds_count{name="garbage_collector_attempt_to_delete"} 8588',
    'workqueue_work_duration_seconds_bucket{name="garbage_collector_attempt_to_delete",le="1"} 8000',
    'workqueue_longest_running_processor_seconds{name="garbage_collector_attempt_to_delete"} 0.25',
  ].join("\n");
  const q = collectorQueues(text);
  assert.deepEqual(q.attemptToDelete, { depth: 412, adds: 9000, retries: 12, done: 8588, workSeconds: 450.5, longestRunningS: 0.25 });
  assert.equal(q.graphChanges.depth, 3);
  assert.equal(collectorQueues("apiserver_request_total 1"), undefined, "no collector in that process");
});

test("the end's checks last until nothing of the deleted jobs is left, not a fixed 65 s", async () => {
  const clock = new ManualClock();
  const observer = new Observer({ log: () => {}, clock });
  ownedPods(observer, "j1", "uid1", 100);
  observer.onJob({ metadata: { name: "j1", uid: "uid1" } }, true);
  clock.after(20_000, () => observer.pods.clear());
  const from = clock.now();
  await observer.settle(5);
  assert.equal(clock.now() - from, 20_000);
  assert.deepEqual(observer.violations, []);
  // A stalled collector ends them: the run has failed, and says which checks it cut short.
  const lines = [];
  const stalled = new Observer({ log: (l) => lines.push(l), clock });
  ownedPods(stalled, "j1", "uid1", 100);
  stalled.onJob({ metadata: { name: "j1", uid: "uid1" } }, true);
  await stalled.settle(5);
  assert.deepEqual(stalled.violationsByKind(), { "collector-stalled-60s": 1 });
  assert.match(lines.at(-1), /the collector stalled: 1 deleted jobs' checks not made/);
});

test("what arrived after a fault took effect is owed from its arrival: a job made since, a plan written since (seed 5101)", () => {
  const { observer, clock } = quietObserver();
  const at = (ms) => new Date(clock.now() + ms).toISOString();
  const fault = clock.now();
  observer.lastFault = fault;
  const job = (name, uid, made) => observer.jobs.set(name, { metadata: { name, uid, creationTimestamp: made }, status: {} });
  const plan = (name, uid, made) => observer.plans.set(name, { metadata: { name, uid: `${name}-uid`, creationTimestamp: made, ownerReferences: [{ uid }] }, spec: { replicaResourceSpecs: {} }, status: {} });
  // Made before the fault, its plan written before it too: the fault's clock.
  job("old", "u-old", at(-600_000));
  plan("old-scaleplan-0", "u-old", at(-60_000));
  // Made 20 s after the fault's effect, its first plan written 5 s later.
  job("new", "u-new", at(20_000));
  plan("new-scaleplan-0", "u-new", at(25_000));
  // Made before, a plan written after the fault (a relaunch the master asked for since).
  job("busy", "u-busy", at(-600_000));
  plan("busy-scaleplan-3", "u-busy", at(10_000));
  const master = { metadata: { name: "elasticjob-busy-dlrover-master", uid: "m", labels: { "elasticjob.dlrover/name": "busy", "elasticjob.dlrover/replica-type": "dlrover-master" } }, status: { phase: "Running" }, spec: {} };
  observer.pods.set(master.metadata.name, master);
  clock.t += 31_000;
  const why = observer.unconverged();
  assert.ok(why.includes("old: plan old-scaleplan-0 not done"), why.join("; "));
  assert.equal(observer.clockOf("old"), fault);
  assert.equal(observer.clockOf("new"), fault + 25_000);
  assert.equal(observer.clockOf("busy"), fault + 10_000);
});

test("the played master gives each relaunch of a turn an id of its own, before the watches show the last one", () => {
  const pod = (job, type, id) => ({ metadata: { labels: { "elasticjob.dlrover/name": job, "elasticjob.dlrover/replica-type": type, "elasticjob.dlrover/replica-index": String(id) } } });
  const pods = [pod("j18", "worker", 0), pod("j18", "worker", 1), pod("j18", "worker", 2), pod("j18", "ps", 0), pod("j9", "worker", 7)];
  const state = { name: "j18" };
  // Two workers OOMKilled in one turn: the pods seen are the same for both.
  assert.deepEqual([nextId(state, "worker", pods), nextId(state, "worker", pods)], [3, 4]);
  assert.equal(nextId(state, "ps", pods), 1);
  assert.equal(nextId({ name: "j1" }, "worker", []), 0);
});

test("the real master's job is counted from when DLRover's master watches again after a restart; a played job from the fault's effect", async () => {
  const { observer, clock } = quietObserver();
  const now = clock.now();
  observer.faultEnded(now);
  observer.realMasterBack = now + 300;
  // real3 short of a worker until 350 ms on: 50 ms past its master's relist, within its bound.
  // The observer looks every 100 ms: last seen short at 300 ms, 0 s after its master's relist.
  observer.unconverged = () => (clock.now() < now + 350 ? ["real3: worker 1/2 Running"] : []);
  assert.equal(await observer.converged(0.2), 0);
  // A played job as slow is past its bound: the real master's relist is no excuse for it.
  observer.faultEnded(clock.now());
  const played = clock.now();
  observer.unconverged = () => (clock.now() < played + 350 ? ["j3: worker 1/2 Running"] : []);
  assert.equal(await observer.converged(0.2), undefined);
});

test("a rank that ended for good stays ended when its failed pod goes with its node: no relaunch is owed for it (seed 5505)", () => {
  const { observer } = quietObserver();
  const uid = "job-uid";
  const labels = (rank, id) => ({ "elasticjob.dlrover/name": "j3", "elasticjob.dlrover/replica-type": "worker", "elasticjob.dlrover/rank-index": String(rank), "elasticjob.dlrover/replica-index": String(id) });
  const pod = (rank, id, phase, reason) => ({
    metadata: { name: `j3-edljob-worker-${id}`, uid: `p${id}`, labels: labels(rank, id) },
    spec: {},
    status: { phase, containerStatuses: reason ? [{ state: { terminated: { reason } } }] : [] },
  });
  const master = { metadata: { name: "elasticjob-j3-dlrover-master", uid: "m", labels: { "elasticjob.dlrover/name": "j3", "elasticjob.dlrover/replica-type": "dlrover-master" } }, spec: {}, status: { phase: "Running" } };
  observer.jobs.set("j3", { metadata: { name: "j3", uid, creationTimestamp: new Date(observer.clock.now() - 60_000).toISOString() }, status: { phase: "Running" } });
  observer.plans.set("j3-scaleplan-2", { metadata: { name: "j3-scaleplan-2", ownerReferences: [{ uid }] }, spec: { replicaResourceSpecs: { worker: { replicas: 2 } } }, status: { phase: "Succeeded" } });
  const keep = (p) => {
    observer.pods.set(p.metadata.name, p);
    observer.onPod(p, false);
  };
  keep(master);
  // Rank 0 OOMKilled and relaunched as worker-3; rank 1 failed with exit 1: the master leaves it.
  keep(pod(0, 0, "Failed", "OOMKilled"));
  keep(pod(1, 1, "Failed", "Error"));
  keep(pod(0, 3, "Running"));
  assert.deepEqual(observer.unconverged(), []);
  // Their node is deleted: the failed pods go; rank 1 is still ended, nothing is owed for it.
  for (const name of ["j3-edljob-worker-0", "j3-edljob-worker-1"]) observer.pods.delete(name);
  assert.deepEqual(observer.unconverged(), []);
  // A newer pod at rank 1 (a scale-up that reuses the rank) is owed again once it is gone.
  keep(pod(1, 4, "Running"));
  assert.deepEqual(observer.unconverged(), []);
  observer.pods.delete("j3-edljob-worker-4");
  assert.deepEqual(observer.unconverged(), ["j3: worker 1/2 Running"]);
});

test("a pod the scheduler leaves unbound for want of room was made as asked: not the controllers' to mend, reported apart with the scheduler's reason (issue 50)", () => {
  const { observer } = quietObserver();
  const uid = "job-uid";
  const noRoom = "0/8 nodes are available: 8 Insufficient cpu. preemption: 0/8 nodes are available: 8 No preemption victims found for incoming pod.";
  const labels = (type, rank) => ({ "elasticjob.dlrover/name": "real4", "elasticjob.dlrover/replica-type": type, "elasticjob.dlrover/rank-index": String(rank), "elasticjob.dlrover/replica-index": String(rank) });
  const pod = (type, rank, status, nodeName) => ({ metadata: { name: `real4-edljob-${type}-${rank}`, uid: `${type}${rank}`, labels: labels(type, rank) }, spec: { nodeName }, status });
  const keep = (p) => {
    observer.pods.set(p.metadata.name, p);
    observer.onPod(p, false);
  };
  observer.jobs.set("real4", { metadata: { name: "real4", uid, creationTimestamp: new Date(observer.clock.now() - 60_000).toISOString() }, status: { phase: "Running" } });
  observer.plans.set("real4-scaleplan-0", { metadata: { name: "real4-scaleplan-0", ownerReferences: [{ uid }] }, spec: { replicaResourceSpecs: { worker: { replicas: 3 } } }, status: { phase: "Succeeded" } });
  keep({ metadata: { name: "elasticjob-real4-dlrover-master", uid: "m", labels: { "elasticjob.dlrover/name": "real4", "elasticjob.dlrover/replica-type": "dlrover-master" } }, spec: { nodeName: "n0" }, status: { phase: "Running" } });
  keep(pod("worker", 0, { phase: "Running" }, "n0"));
  // Made, but not yet looked at by the scheduler: the controllers' part is done, the rank is not.
  keep(pod("worker", 1, { phase: "Pending" }));
  keep(pod("worker", 2, { phase: "Pending", conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable", message: noRoom }] }));
  assert.deepEqual(observer.unconverged(), ["real4: worker 2/3 Running"]);
  // The scheduler has no room for it either: every pod the plan asks for is made.
  keep(pod("worker", 1, { phase: "Pending", conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable", message: noRoom }] }));
  assert.deepEqual(observer.unconverged(), []);
  assert.deepEqual(observer.unschedulableReport(), { pods: 2, jobs: ["real4"], reasons: { [noRoom]: 2 } });
  // A pod not scheduled for another reason (a gate, a scheduler that is not there) is no excuse.
  keep(pod("worker", 1, { phase: "Pending", conditions: [{ type: "PodScheduled", status: "False", reason: "SchedulingGated" }] }));
  assert.deepEqual(observer.unconverged(), ["real4: worker 2/3 Running"]);
  // A rank with no pod at all is owed, whatever the cluster's room.
  observer.pods.delete("real4-edljob-worker-1");
  assert.deepEqual(observer.unconverged(), ["real4: worker 2/3 Running"]);
});

test("the fault proxy: requests go on with their credentials; throttled, every second request that is no watch gets 429 with Retry-After and APF's plain text; an expired watch is cut and its next connection gets the 410 Expired event once", async (t) => {
  const seen = [];
  /** Watches held open by the fake API server. */
  const open = new Set();
  const upstream = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization}`);
    if (new URL(req.url, "http://x").searchParams.get("watch") === "true") {
      res.writeHead(200, { "content-type": "application/json" }).flushHeaders();
      open.add(res);
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ kind: "PodList", metadata: { resourceVersion: "7" }, items: [] }));
  });
  await new Promise((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const proxy = await faultProxy(`http://127.0.0.1:${upstream.address().port}`);
  t.after(async () => {
    await proxy.close();
    for (const res of open) res.destroy();
    upstream.closeAllConnections();
    await new Promise((resolve) => upstream.close(resolve));
  });
  const get = (path) =>
    new Promise((resolve, reject) => {
      const req = http.get(`${proxy.url}${path}`, { headers: { authorization: "Bearer replica-a" } }, (res) => {
        let text = "";
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode, retryAfter: res.headers["retry-after"], text }));
        res.on("error", reject);
      });
      req.on("error", reject);
    });
  const pods = "/api/v1/namespaces/soak/pods";
  assert.equal((await get(pods)).status, 200);
  assert.deepEqual(seen, [`GET ${pods} Bearer replica-a`], "sent on with the client's own credentials");

  proxy.throttle(1);
  const answers = [await get(pods), await get(pods), await get(pods), await get(pods)];
  proxy.throttle(undefined);
  assert.deepEqual(answers.map((a) => [a.status, a.retryAfter]), [[429, "1"], [200, undefined], [429, "1"], [200, undefined]]);
  assert.equal(answers[0].text, "Too many requests, please try again later.\n", "http.Error's text, as APF answers");
  assert.equal((await get(pods)).status, 200, "throttling ended");
  assert.equal(proxy.counts.throttled, 2);

  // A watch open through the proxy, then expired: cut, and its next connection gets 410 once.
  const cut = new Promise((resolve) => {
    const req = http.get(`${proxy.url}${pods}?watch=true&resourceVersion=7`, (res) => {
      res.on("data", () => {});
      res.on("error", () => resolve("cut"));
      res.on("close", () => resolve("cut"));
    });
    req.on("error", () => resolve("cut"));
  });
  // Until the watch has reached the API server (at most 400 turns of 5 ms; what is waited for is said).
  for (let i = 0; i < 400 && open.size === 0; i++) await new Promise((r) => setTimeout(r, 5));
  assert.equal(open.size, 1, "the watch reached the API server");
  assert.equal(proxy.expireWatches(), 1);
  assert.equal(await cut, "cut");
  const again = await get(`${pods}?watch=true&resourceVersion=7`);
  const event = JSON.parse(again.text.trim());
  assert.deepEqual([again.status, event.type, event.object.code, event.object.reason], [200, "ERROR", 410, "Expired"]);
  assert.match(event.object.message, /^too old resource version: 7 \(8\)$/);
  assert.equal(proxy.counts.expired, 1);
  // Listed again, then watched again: both go on.
  const before = seen.length;
  assert.equal((await get(pods)).status, 200);
  assert.equal(seen.length, before + 1);
});

test("SOAK_PODS sizes the soak's mix; unset, today's mix is kept", () => {
  assert.equal(targetFromEnv(undefined), undefined);
  assert.equal(targetFromEnv(""), undefined);
  assert.deepEqual(mix(undefined), { target: undefined, k: 1, sizes: [1, 2, 3, 4, 6, 8, 12, 16, 24, 40, 100], maxJobs: 8, arrivalS: [8, 20], lifetimeS: [60, 150] });
  const m = mix(targetFromEnv("5000"));
  assert.equal(m.k, 5);
  assert.deepEqual(m.lifetimeS, [600, 1200]);
  assert.deepEqual(m.sizes, [2, 4, 6, 8, 12, 16, 24, 32, 48, 80, 200]);
  assert.equal(m.backlog, 250);
  assert.equal(m.maxJobs, Infinity);
  assert.throws(() => mix(targetFromEnv("lots")), /SOAK_PODS: NaN/);
  assert.throws(() => mix(50), /100 or more/);
  // The pods a job asks: its master, its replicas, its workers as last scaled.
  const job = { spec: { replicaSpecs: { ps: { replicas: 2 }, worker: { replicas: 40 }, chief: { replicas: 1 } } } };
  assert.equal(asked({ job }), 44);
  assert.equal(asked({ job, workers: 7 }), 11);
});
