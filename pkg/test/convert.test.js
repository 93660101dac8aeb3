// fromTFJob in Node: each TFJob of examples/tfjob/ gives exactly the bytes of its
// NAME.converted.json, the JSON the Rust core returns natively (tests/convert.rs checks the same
// files), and a TFJob that does not convert throws every problem at its path in the TFJob.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import * as api from "elasticjob";
import { parse } from "yaml";

const dir = new URL("../../examples/tfjob/", import.meta.url);
const examples = readdirSync(dir).filter((f) => f.endsWith(".yaml")).sort();

test("every TFJob of examples/tfjob/ converts to the bytes of its fixture", () => {
  assert.ok(examples.length >= 4, "the examples of examples/tfjob/ were not found");
  for (const name of examples) {
    const tfJob = parse(readFileSync(new URL(name, dir), "utf8"));
    const expected = readFileSync(new URL(name.replace(/\.yaml$/, ".converted.json"), dir), "utf8");
    assert.equal(`${api.fromTFJobJson(tfJob, true)}\n`, expected, name);
    assert.equal(api.text.fromTFJob(JSON.stringify(tfJob)), JSON.stringify(JSON.parse(expected)), name);
    const { elasticJob, notes } = api.fromTFJob(tfJob);
    assert.deepEqual(api.validate(elasticJob), { valid: true }, name);
    assert.ok(notes.every((n) => Object.keys(n).join() === "path,message"), name);
  }
});

test("a TFJob that does not convert throws every problem at its TFJob path", () => {
  const container = { spec: { containers: [{ name: "tensorflow", image: "tf:2" }] } };
  const tfJob = {
    apiVersion: "kubeflow.org/v1",
    kind: "TFJob",
    metadata: { name: "j" },
    spec: { tfReplicaSpecs: { Chief: { template: container }, Master: { template: container }, Launcher: { template: container } } },
  };
  const e = captured(() => api.fromTFJob(tfJob));
  assert.ok(e instanceof api.ElasticJobError);
  assert.equal(e.code, "invalid");
  assert.deepEqual(
    e.errors.map((p) => [p.path, p.code]),
    [
      // No PS and no Worker: DLRover's master runs parameter-server jobs only.
      ["spec.tfReplicaSpecs", "required"],
      ["spec.tfReplicaSpecs.Launcher", "invalid_value"],
      ["spec.tfReplicaSpecs.Master", "duplicate"],
    ],
  );
  assert.throws(() => api.fromTFJob(undefined), (x) => x instanceof api.ElasticJobError);
});

test("validate and render name a TFJob with the code tf_job", () => {
  const tfJob = parse(readFileSync(new URL("ps-workers.yaml", dir), "utf8"));
  const result = api.validate(tfJob);
  assert.deepEqual(result.error.errors.map((p) => [p.path, p.code]), [["kind", "tf_job"]]);
  assert.throws(() => api.render(tfJob), (e) => e.code === "parse_error" && e.errors[0].code === "tf_job");
});

function captured(f) {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
}
