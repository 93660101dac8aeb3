// The executor of a phased plan (controller/executor.js), without a cluster: slow start stops after
// the first batch with a refusal, expectations are raised for a whole phase before its first call
// and lowered for what failed or was skipped, phases run in order, deletions at once, and a pass
// creates at most its cap of pods.
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { DEFAULT_MAX_POD_CREATES, Incomplete, PHASE_MODES, carryOutPhases, slowStartBatch } from "../controller/executor.js";

const pods = (n, from = 0) => Array.from({ length: n }, (_, i) => ({ action: "createPod", name: `p${from + i}` }));

/** Hooks that record every call, with `refuse(action)` deciding which calls fail. */
function recorder({ refuse = () => false, delayMs = 1 } = {}) {
  const log = [];
  const expected = new Set();
  let inFlight = 0;
  let peak = 0;
  return {
    log,
    expected,
    peak: () => peak,
    hooks: {
      expect: (a) => {
        expected.add(a.name);
        log.push(`expect ${a.name}`);
        return { name: a.name };
      },
      perform: async (a) => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        log.push(`start ${a.name}`);
        await sleep(delayMs);
        inFlight -= 1;
        if (refuse(a)) {
          throw Object.assign(new Error(`${a.name}: exceeded quota`), { status: 403, reason: "Forbidden" });
        }
        return "done";
      },
      unexpect: (a, e) => {
        assert.equal(e.name, a.name, "the expectation raised for that action");
        expected.delete(a.name);
        log.push(`unexpect ${a.name}`);
      },
      isPodCreate: (a) => a.action === "createPod",
    },
  };
}

test("slow start: batches of 1, 2, 4, 8, ... each at once, the last one what is left", async () => {
  const batches = [];
  let current = [];
  const result = await slowStartBatch(Array.from({ length: 20 }, (_, i) => i), async (i) => current.push(i), {
    before: () => {
      current = [];
      batches.push(current);
    },
  });
  assert.deepEqual(batches.map((b) => b.length), [1, 2, 4, 8, 5]);
  assert.deepEqual(result, { succeeded: 20, failures: [], skipped: [] });
});

test("a quota that refuses every create after the third: 7 calls of 1,000, the rest skipped, their expectations lowered", async () => {
  let created = 0;
  const r = recorder({ refuse: () => created++ >= 3 });
  const phases = [{ mode: PHASE_MODES.slowStart, actions: pods(1000) }];
  await assert.rejects(carryOutPhases(phases, { ...r.hooks, maxPodCreates: 1000 }), (e) => {
    assert.ok(e instanceof Incomplete);
    assert.equal(e.why, "failed");
    assert.equal(e.status, 403, "the refusal's status, for the retry's classification");
    assert.match(e.cause.message, /exceeded quota/);
    assert.equal(e.skipped, 993);
    return true;
  });
  const starts = r.log.filter((l) => l.startsWith("start "));
  // Batches 1, 2 and 4: the third batch has the refusals, and no fourth batch is tried.
  assert.equal(starts.length, 7);
  assert.equal(r.log.slice(0, 1000).every((l) => l.startsWith("expect ")), true, "every expectation raised before the first call");
  assert.deepEqual([...r.expected], ["p0", "p1", "p2"], "only the created pods are still expected");
});

test("phases run in order, each only once the one before is done; deletions all at once", async () => {
  const r = recorder({ delayMs: 5 });
  const phases = [
    { mode: PHASE_MODES.slowStart, actions: [{ action: "createOrUpdateService", name: "s0" }, { action: "createOrUpdateService", name: "s1" }] },
    { mode: PHASE_MODES.slowStart, actions: pods(3) },
    { mode: PHASE_MODES.parallel, actions: Array.from({ length: 6 }, (_, i) => ({ action: "deletePod", name: `d${i}` })) },
    { mode: PHASE_MODES.parallel, actions: [{ action: "setJobStatus", name: "job" }] },
  ];
  await carryOutPhases(phases, r.hooks);
  const order = r.log.filter((l) => l.startsWith("start ")).map((l) => l.slice(6));
  assert.deepEqual(order, ["s0", "s1", "p0", "p1", "p2", "d0", "d1", "d2", "d3", "d4", "d5", "job"]);
  assert.equal(r.peak(), 6, "the six deletions at once");
  // The expectations of a phase are raised before its calls, not before the phase before it is done.
  assert.ok(r.log.indexOf("expect p0") > r.log.indexOf("start s1"));
  assert.ok(r.log.indexOf("expect p2") < r.log.indexOf("start p0"));
});

test("a pass creates at most its cap of pods, and only their services; the rest of the plan (and what follows) is left for the next pass", async () => {
  const r = recorder();
  const services = Array.from({ length: 10 }, (_, i) => ({ action: "createOrUpdateService", name: `s${i}`, for: `p${i}` }));
  const phases = [
    { mode: PHASE_MODES.slowStart, actions: [...services, { action: "createOrUpdateService", name: "master" }] },
    { mode: PHASE_MODES.slowStart, actions: pods(10) },
    { mode: PHASE_MODES.parallel, actions: [{ action: "setScalePlanStatus", name: "plan" }] },
  ];
  const serves = (a, pod) => a.for === pod.name;
  await assert.rejects(carryOutPhases(phases, { ...r.hooks, serves, maxPodCreates: 4 }), (e) => e instanceof Incomplete && e.why === "capped" && e.skipped === 13);
  const started = r.log.filter((l) => l.startsWith("start ")).map((l) => l.slice(6));
  assert.deepEqual(started, ["s0", "s1", "s2", "s3", "master", "p0", "p1", "p2", "p3"], "the services of the 4 pods and the one that serves no pod of the plan");
  assert.equal(r.log.filter((l) => l.startsWith("expect ")).length, 9, "no expectation for what the cap left out");
  assert.equal(DEFAULT_MAX_POD_CREATES, 500);
});

test("an outcome that makes the rest moot (the job is gone) ends the pass after its phase; a stop before a batch lowers what was not started", async () => {
  const r = recorder();
  const gone = { ...r.hooks, perform: async (a) => (a.name === "job" ? "gone" : "done"), endsPass: (outcome) => outcome === "gone" };
  await assert.rejects(
    carryOutPhases([{ mode: PHASE_MODES.parallel, actions: [{ action: "setJobStatus", name: "job" }] }, { mode: PHASE_MODES.parallel, actions: pods(2) }], gone),
    (e) => e instanceof Incomplete && e.why === "gone" && e.skipped === 2,
  );
  let batches = 0;
  const stopping = new Error("stopping");
  await assert.rejects(
    carryOutPhases([{ mode: PHASE_MODES.slowStart, actions: pods(10) }], {
      ...r.hooks,
      beforeBatch: () => {
        batches += 1;
        if (batches === 3) {
          throw stopping;
        }
      },
    }),
    (e) => e === stopping,
  );
  // Batches 1 and 2 ran (3 pods); the other 7 were expected, then lowered.
  assert.deepEqual([...r.expected].filter((n) => n.startsWith("p")).sort(), ["p0", "p1", "p2"]);
});
