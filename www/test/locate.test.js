// Field paths of the core's problems to places in the YAML or JSON text (src/locate.js).
import assert from "node:assert/strict";
import { test } from "node:test";
import { LineCounter, parseDocument } from "yaml";
import { locate } from "../src/locate.js";

/** Where `path` is marked in `text`: "line:col text-marked" (or "line:col ... (inexact)"). */
function marked(text, path, options) {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  const { from, to, exact } = locate(doc, text, path, options);
  const { line, col } = lines.linePos(from);
  return `${line}:${col} ${text.slice(from, to)}${exact ? "" : " (inexact)"}`;
}

const JOB = `apiVersion: elastic.iml.github.io/v1alpha1
kind: ElasticJob
metadata:
  name: Deep_CTR
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: "{}"
    pending_timeout: 10; rm -rf /
spec:
  replicaSpecs:
    Worker:
      replicas: -2
      template:
        spec:
          containers:
            - name: main
              resources: {requests: {memory: 2 GB}}
          volumes: []
`;

test("a scalar is marked whole", () => {
  assert.equal(marked(JOB, "metadata.name"), "4:9 Deep_CTR");
  assert.equal(marked(JOB, "spec.replicaSpecs.worker.replicas"), "11:17 -2");
});

test("keys with dots are matched whole, longest first", () => {
  assert.equal(marked(JOB, "metadata.annotations.kubectl.kubernetes.io/last-applied-configuration"), '6:55 "{}"');
  assert.equal(marked(JOB, "metadata.annotations.pending_timeout"), "7:22 10; rm -rf /");
});

test("list items and flow mappings", () => {
  assert.equal(marked(JOB, "spec.replicaSpecs.worker.template.spec.containers[0].name"), "15:21 main");
  assert.equal(marked(JOB, "spec.replicaSpecs.worker.template.spec.containers[0].resources.requests.memory"), "16:46 2 GB");
});

test("a map or a list is marked by its key, an empty one whole", () => {
  assert.equal(marked(JOB, "spec.replicaSpecs.worker.template.spec.containers"), "14:11 containers");
  assert.equal(marked(JOB, "spec.replicaSpecs.worker.template.spec.volumes"), "17:20 []");
  // A list item that is a map: its first line, from its first key.
  assert.equal(marked(JOB, "spec.replicaSpecs.worker.template.spec.containers[0]"), "15:15 name: main");
});

test("an unknown field can be marked by its key", () => {
  assert.equal(marked(JOB, "spec.replicaSpecs.worker.replicas", { key: true }), "11:7 replicas");
});

test("a missing field: the deepest part that exists, or the first line", () => {
  assert.equal(marked(JOB, "spec.replicaSpecs.worker.restartCount"), "10:5 Worker (inexact)");
  assert.equal(marked(JOB, "spec.replicaSpecs.worker.template.spec.containers[3].image"), "14:11 containers (inexact)");
  assert.equal(marked(JOB, "status.phase"), "1:1 apiVersion: elastic.iml.github.io/v1alpha1 (inexact)");
});

test("JSON text", () => {
  const json = JSON.stringify({ metadata: { name: "x".repeat(40) }, spec: { replicaSpecs: { ps: { replicas: "3" } } } }, null, 2);
  assert.equal(marked(json, "metadata.name"), `3:13 "${"x".repeat(40)}"`);
  assert.equal(marked(json, "spec.replicaSpecs.ps.replicas"), '8:21 "3"');
  assert.equal(marked(json, "spec.replicaSpecs.ps"), '7:7 "ps"');
});
