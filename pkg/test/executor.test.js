// The executor of a phased plan (controller/executor.js), without a cluster: slow start stops after
// the first batch with a refusal, expectations are raised for a whole phase before its first call
// and lowered for what failed or was not started, phases run in order, deletions at once, and what
// happened comes back as an outcome (done, failed, gone, stopped), never as an exception.
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { carryOutPhases, slowStartBatch } from "../controller/executor.js";

/** Steps that record every call, with `refuse(name)` deciding which calls fail and `outcomeOf(name)` their outcome. */
function recorder({ refuse = () => false, delayMs = 1, outcomeOf = () => "done" } = {}) {
  const log = [];
  const expected = new Set();
  let inFlight = 0;
  let peak = 0;
  const step = (name) => ({
    expect: () => {
      expected.add(name);
      log.push(`expect ${name}`);
    },
    perform: async () => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      log.push(`start ${name}`);
      await sleep(delayMs);
      inFlight -= 1;
      if (refuse(name)) {
        throw Object.assign(new Error(`${name}: exceeded quota`), { status: 403 });
      }
      return outcomeOf(name);
    },
    unexpect: () => {
      expected.delete(name);
      log.push(`unexpect ${name}`);
    },
    ends: (outcome) => outcome === "gone",
  });
  const steps = (prefix, n) => Array.from({ length: n }, (_, i) => step(`${prefix}${i}`));
  return { log, expected, peak: () => peak, step, steps };
}

test("slow start: batches of 1, 2, 4, 8, ... each at once, the last one what is left", async () => {
  const batches = [];
  const result = await slowStartBatch(Array.from({ length: 20 }, (_, i) => i), async (i) => batches.at(-1).push(i), {
    stopping: () => {
      batches.push([]);
      return false;
    },
  });
  assert.deepEqual(batches.map((b) => b.length), [1, 2, 4, 8, 5]);
  assert.deepEqual(result, { succeeded: 20, failures: [], skipped: [] });
});

test("a quota that refuses every create after the third: 7 calls of 1,000, the rest skipped, their expectations lowered", async () => {
  let created = 0;
  const r = recorder({ refuse: () => created++ >= 3 });
  const result = await carryOutPhases([{ mode: "slowStart", steps: r.steps("p", 1000) }, { mode: "parallel", steps: r.steps("s", 1) }]);
  assert.equal(result.outcome, "failed");
  assert.match(result.failure.message, /p3: exceeded quota/, "the first failure in the plan's order");
  assert.equal(result.failure.status, 403, "the refusal itself, for the retry's classification");
  assert.equal(result.skipped, 994, "993 creates and the later phase's one");
  const starts = r.log.filter((l) => l.startsWith("start "));
  // Batches 1, 2 and 4: the third batch has the refusals, and no fourth batch is tried.
  assert.equal(starts.length, 7);
  assert.equal(r.log.slice(0, 1000).every((l) => l.startsWith("expect ")), true, "every expectation raised before the first call");
  assert.deepEqual([...r.expected], ["p0", "p1", "p2"], "only the created pods are still expected");
});

test("phases run in order, each only once the one before is done; deletions all at once", async () => {
  const r = recorder({ delayMs: 5 });
  const result = await carryOutPhases([
    { mode: "slowStart", steps: r.steps("s", 2) },
    { mode: "slowStart", steps: r.steps("p", 3) },
    { mode: "parallel", steps: r.steps("d", 6) },
    { mode: "parallel", steps: [r.step("job")] },
  ]);
  assert.deepEqual(result, { outcome: "done", skipped: 0 });
  const order = r.log.filter((l) => l.startsWith("start ")).map((l) => l.slice(6));
  assert.deepEqual(order, ["s0", "s1", "p0", "p1", "p2", "d0", "d1", "d2", "d3", "d4", "d5", "job"]);
  assert.equal(r.peak(), 6, "the six deletions at once");
  // The expectations of a phase are raised before its calls, not before the phase before it is done.
  assert.ok(r.log.indexOf("expect p0") > r.log.indexOf("start s1"));
  assert.ok(r.log.indexOf("expect p2") < r.log.indexOf("start p0"));
});

test("an outcome that makes the rest moot (the job is gone) ends the pass after its phase; a stop before a batch lowers what was not started", async () => {
  const r = recorder({ outcomeOf: (name) => (name === "job" ? "gone" : "done") });
  const gone = await carryOutPhases([{ mode: "parallel", steps: [r.step("job")] }, { mode: "parallel", steps: r.steps("p", 2) }]);
  assert.deepEqual(gone, { outcome: "gone", skipped: 2 });
  let batches = 0;
  const stopped = await carryOutPhases([{ mode: "slowStart", steps: r.steps("q", 10) }], { stopping: () => ++batches === 3 });
  assert.deepEqual(stopped, { outcome: "stopped", skipped: 7 });
  // Batches 1 and 2 ran (3 pods); the other 7 were expected, then lowered.
  assert.deepEqual([...r.expected].filter((n) => n.startsWith("q")).sort(), ["q0", "q1", "q2"]);
});
