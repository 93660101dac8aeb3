// Parity: every golden case of the core (tests/golden/<case>/input.yaml) run through the package
// in Node gives exactly the bytes of its output.json, which the core's own golden test produces
// natively.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as api from "elasticjob";
import { goldenCases } from "./fixtures.js";
import { runCase } from "./golden-dispatch.js";

const cases = goldenCases();

test("the golden cases are there", () => {
  assert.ok(cases.length >= 15, `only ${cases.length} golden cases`);
  assert.ok(cases.some((c) => c.expected.startsWith('{\n  "error"')), "no failing case");
});

for (const c of cases) {
  test(`golden: ${c.name}`, () => {
    assert.equal(runCase(api, c.input), c.expected);
  });
}

test("the same input gives the same bytes every time", () => {
  for (const c of cases) {
    assert.equal(runCase(api, c.input), runCase(api, structuredClone(c.input)), c.name);
  }
});
