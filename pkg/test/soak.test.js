// The chaos soak's parts that need no cluster. Its fault schedule (benches/node/soak/schedule.js):
// every kind in each round, a kind that finds nothing gives its turn to the next and is tried again
// after the next injection, never twice in a row without one, and the tried and injected counts.
// Its evidence (soak/evidence.js): a violation's file holds the faults of its window, the lease's
// holders, its job's timeline and the controllers' lines for that job, and no other job's.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { writeEvidence } from "../../benches/node/soak/evidence.js";
import { random } from "../../benches/node/soak/random.js";
import { Schedule } from "../../benches/node/soak/schedule.js";

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
