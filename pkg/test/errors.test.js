// What a caller catches: always an `ElasticJobError` (an `Error` with `name`, `code`, `errors`), each
// problem with the path of the field at fault, for wrong types, unknown fields, broken rules and
// values JSON cannot hold; never a string or a deserializer's own error.
import assert from "node:assert/strict";
import { test } from "node:test";
import * as api from "elasticjob";
import { job } from "./fixtures.js";

const NOW = "2026-01-02T03:04:05Z";

/** The error `f` throws, checked to have the package's shape; returns it. */
function thrown(f) {
  let error;
  try {
    f();
  } catch (e) {
    error = e;
  }
  assert.ok(error !== undefined, "no error thrown");
  assert.ok(error instanceof api.ElasticJobError, `not an ElasticJobError: ${error}`);
  assert.ok(error instanceof Error);
  assert.equal(error.name, "ElasticJobError");
  assert.ok(["parse_error", "invalid"].includes(error.code), error.code);
  assert.ok(Array.isArray(error.errors) && error.errors.length > 0);
  for (const p of error.errors) {
    assert.deepEqual(Object.keys(p), ["path", "code", "message"]);
    assert.equal(typeof p.message, "string");
  }
  assert.equal(typeof error.stack, "string");
  // The message lists every problem as `PATH: MESSAGE`.
  assert.equal(error.message, error.errors.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join("; "));
  return error;
}

const problems = (error) => error.errors.map((p) => [p.path, p.code]);

function withJob(change) {
  const j = job();
  change(j);
  return j;
}

test("a wrong type is reported at its path, and hides no other problem", () => {
  const e = thrown(() => api.render(withJob((j) => (j.spec.replicaSpecs.worker.replicas = "three"))));
  assert.equal(e.code, "invalid");
  assert.deepEqual(problems(e), [["spec.replicaSpecs.worker.replicas", "invalid_type"]]);
  assert.equal(e.errors[0].message, 'invalid type: string "three", expected i32');
  const many = thrown(() =>
    api.render(
      withJob((j) => {
        j.spec.distributionStrategy = "PS";
        j.metadata.name = "Bad_Name";
        j.spec.replicaSpecs.workers = { replicas: 1 };
      }),
    ),
  );
  assert.deepEqual(problems(many), [
    ["metadata.name", "invalid_name"],
    ["spec.distributionStrategy", "invalid_value"],
    ["spec.replicaSpecs.workers", "invalid_value"],
  ]);
});

test("unknown fields are all reported, with their paths", () => {
  const e = thrown(() =>
    api.render(
      withJob((j) => {
        j.metadata.nmae = "x";
        j.spec.replicaSpecs.worker.replica = 3;
        j.spec.replicaSpecs.worker.template.spec.containers[0].imag = "x";
      }),
    ),
  );
  assert.equal(e.code, "invalid");
  assert.deepEqual(problems(e), [
    ["metadata.nmae", "unknown_field"],
    ["spec.replicaSpecs.worker.replica", "unknown_field"],
    ["spec.replicaSpecs.worker.template.spec.containers[0].imag", "unknown_field"],
  ]);
});

test("broken rules are all reported at once", () => {
  const e = thrown(() =>
    api.render(
      withJob((j) => {
        j.metadata.name = "Deep_CTR";
        j.spec.replicaSpecs.worker.replicas = -2;
      }),
    ),
  );
  assert.equal(e.code, "invalid");
  assert.deepEqual(problems(e), [
    ["metadata.name", "invalid_name"],
    ["spec.replicaSpecs.worker.replicas", "out_of_range"],
  ]);
});

test("anything that is not a job is an ElasticJobError too", () => {
  // An array is not an object either (serde_json alone would read a struct from one).
  for (const value of [undefined, null, 42, "job", true, []]) {
    const e = thrown(() => api.render(value));
    assert.deepEqual(problems(e), [["", "invalid_type"]], String(value));
  }
  for (const [value, path] of [
    [new Map(), "metadata.labels"],
    [new Set(["a"]), "metadata.labels"],
    [Number.NaN, "metadata.generation"],
    [Number.POSITIVE_INFINITY, "metadata.generation"],
    [10n, "metadata.generation"],
    [() => 1, "metadata.labels"],
    [Symbol("s"), "metadata.labels"],
    [new Uint8Array(2), "metadata.labels"],
  ]) {
    const [parent, key] = [path.slice(0, path.lastIndexOf(".")), path.slice(path.lastIndexOf(".") + 1)];
    const j = job();
    parent.split(".").reduce((o, k) => o[k], j)[key] = value;
    const e = thrown(() => api.render(j));
    assert.equal(e.code, "parse_error");
    assert.deepEqual(problems(e), [[path, "invalid_type"]], String(value?.constructor?.name ?? typeof value));
  }
});

test("undefined properties are absent; Dates are their JSON time", () => {
  const j = job();
  j.status = undefined;
  j.metadata.labels = undefined;
  assert.deepEqual(api.render(j), api.render(job()));
  assert.deepEqual(api.reconcile(job(), undefined, [], new Date(NOW)), api.reconcile(job(), null, [], NOW));
});

test("a cycle is an error, not a crash", () => {
  const j = job();
  j.metadata.labels = { loop: j };
  const e = thrown(() => api.render(j));
  assert.equal(e.errors.length, 1);
  assert.match(e.errors[0].message, /nest deeper than 128 levels/);
});

test("paths in other arguments start with the argument's name", () => {
  assert.deepEqual(problems(thrown(() => api.render(job(), { spec: { psHosts: [5] } }))), [["scalePlan.spec.psHosts[0]", "invalid_type"]]);
  assert.deepEqual(problems(thrown(() => api.render(job(), { spec: { psHosts: ["nocolon"] } }))), [["scalePlan.spec.psHosts[0]", "invalid_address"]]);
  assert.deepEqual(problems(thrown(() => api.render(job(), null, { mastrImage: "x" }))), [["options.mastrImage", "unknown_field"]]);
  assert.deepEqual(problems(thrown(() => api.reconcile(job(), null, [{ status: { phase: 5 } }], NOW))), [["pods[0].status.phase", "invalid_type"]]);
  assert.deepEqual(problems(thrown(() => api.reconcile(job(), null, [], "yesterday"))), [["now", "invalid_value"]]);
  assert.deepEqual(problems(thrown(() => api.reconcile(job(), null, [], 5))), [["now", "invalid_type"]]);
  assert.deepEqual(problems(thrown(() => api.tfConfig(job(), "workers", 0))), [["replicaType", "invalid_value"]]);
  assert.deepEqual(problems(thrown(() => api.tfConfig(job(), "worker", -1))), [["index", "invalid_value"]]);
  assert.deepEqual(problems(thrown(() => api.tfConfig(job(), "worker", 1.5))), [["index", "invalid_type"]]);
  assert.deepEqual(problems(thrown(() => api.insertTfConfigToEnv({ name: "m", imag: "x" }, {}, "worker", 0))), [["container.imag", "unknown_field"]]);
  assert.deepEqual(problems(thrown(() => api.insertTfConfigToEnv({ name: "m" }, { worker: { 1: "w1:2222" } }, "worker", 1))), [["sparseCluster.worker", "tf_config_hole"]]);
  assert.deepEqual(problems(thrown(() => api.summary({ apiVersion: "v1", kind: "List" }))), [["list", "required"]]);
});

test("empty keys keep their place in paths, and hide no later problem", () => {
  // A value JSON cannot hold under two empty keys is at `.[0]` (the empty keys were dropped: `[0]`).
  const bad = api.validate({ "": { "": [10n] } });
  assert.equal(bad.valid, false);
  assert.deepEqual(bad.error.errors.map((p) => [p.path, p.code]), [[".[0]", "invalid_type"]]);
  assert.deepEqual(problems(thrown(() => api.render(job(), null, { "": { "": [10n] } }))), [["options..[0]", "invalid_type"]]);
  // The unknown empty key of the options is one problem; the wrong type after it is another (it
  // went unreported while a place at an empty key counted as the whole document). Under a prefix
  // a problem at a top-level empty key shows the prefix alone.
  const e = thrown(() => api.render(job(), null, { "": { "": [5] }, masterImage: 5 }));
  assert.deepEqual(problems(e), [
    ["options", "unknown_field"],
    ["options.masterImage", "invalid_type"],
  ]);
});

test("a required scale plan that is missing is an error at scalePlan", () => {
  assert.deepEqual(problems(thrown(() => api.reconcilePods(job(), "worker", undefined, []))), [["scalePlan", "invalid_type"]]);
});

test("an error in tfConfig for a task without TF_CONFIG", () => {
  const e = thrown(() => api.tfConfig(withJob((j) => (j.spec.distributionStrategy = "AllreduceStrategy")), "worker", 0));
  assert.deepEqual(problems(e), [["spec.distributionStrategy", "invalid_value"]]);
});
