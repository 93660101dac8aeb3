// The master the cluster tests play (`firstPlanSpec` of jobs.js) reads a job as DLRover 0.6.1's
// real master does: for every job of tests/fixtures/master-reading/ its first plan is the real
// master's, as tests/fixtures/master-reading.plans.json holds it (the output of the master's own
// code, tests/e2e/master_first_plan.py), type by type and PS by PS. tests/master_reading.rs holds
// the core's first plan to the same file. Needs no cluster: `node --test tests/e2e/played-master.test.js`.
// With DLROVER_PYTHON (the python of DLRover 0.6.1's venv, which `make test-cluster` sets), the real
// master's code runs again on the corpus here and must still give that file, so the recorded plans
// cannot drift from the master they stand for.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { firstPlanSpec } from "./jobs.js";

const fixtures = fileURLToPath(new URL("../fixtures/", import.meta.url));
const plans = JSON.parse(readFileSync(`${fixtures}master-reading.plans.json`, "utf8"));
const cases = readdirSync(`${fixtures}master-reading`).filter((f) => f.endsWith(".json")).sort();

test("the corpus and the real master's plans list the same jobs", () => {
  assert.ok(cases.length >= 10, "tests/fixtures/master-reading/ was not found");
  assert.deepEqual(cases.map((f) => f.slice(0, -".json".length)), Object.keys(plans).sort());
});

test("DLRover's real master, run again on the corpus, gives the recorded plans", { skip: !process.env.DLROVER_PYTHON && "DLROVER_PYTHON is not set (make test-cluster sets it)" }, () => {
  const script = fileURLToPath(new URL("./master_first_plan.py", import.meta.url));
  const files = cases.map((f) => `${fixtures}master-reading/${f}`);
  const out = execFileSync(process.env.DLROVER_PYTHON, [script, ...files], { encoding: "utf8", maxBuffer: 16 << 20, timeout: 600_000 });
  assert.deepEqual(JSON.parse(out), plans);
});

for (const file of cases) {
  const name = file.slice(0, -".json".length);
  const want = plans[name];
  test(`${file}: the played master's first plan is the real master's`, { skip: want?.error && `the real master stops on it: ${want.error}` }, () => {
    const job = JSON.parse(readFileSync(`${fixtures}master-reading/${file}`, "utf8"));
    assert.deepEqual(firstPlanSpec(job), want);
  });
}
