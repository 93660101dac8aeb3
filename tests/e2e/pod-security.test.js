// The policy's `podSecurity` against Kubernetes' own PodSecurity admission on the real API server:
// every case of tests/fixtures/pod-security/cases.json (which tests/admission.rs holds the policy
// to, field for field) is a pod sent as a server-side dry run into a namespace labelled
// `pod-security.kubernetes.io/enforce=<its level>`. The server refuses exactly the cases the
// policy refuses at that level, and admits the rest.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { adminConfig, collection, expectStatus, request } from "./kube.js";

const admin = adminConfig();
const doc = JSON.parse(readFileSync(new URL("../fixtures/pod-security/cases.json", import.meta.url), "utf8"));

/** The merge of cases.json: objects key by key, arrays element by element, null removes a key. */
function merged(base, patch) {
  if (Array.isArray(base) && Array.isArray(patch)) {
    const out = [...base];
    patch.forEach((v, i) => {
      out[i] = i < base.length ? merged(base[i], v) : v;
    });
    return out;
  }
  if (base && patch && typeof base === "object" && typeof patch === "object" && !Array.isArray(base) && !Array.isArray(patch)) {
    const out = { ...base };
    for (const [k, v] of Object.entries(patch)) {
      if (v === null) {
        delete out[k];
      } else {
        out[k] = k in base ? merged(base[k], v) : v;
      }
    }
    return out;
  }
  return patch;
}

async function labelledNamespace(t, level) {
  const name = `pss-${level}-${Date.now().toString(36)}`;
  const labels = { "pod-security.kubernetes.io/enforce": level, "pod-security.kubernetes.io/enforce-version": "latest" };
  expectStatus(await request(admin, "POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name, labels } } }), [201], `namespace ${name}`);
  t.after(() => request(admin, "DELETE", `/api/v1/namespaces/${name}`));
  return name;
}

test("each Pod Security case: the API server's PodSecurity admission refuses it exactly when the policy does", async (t) => {
  const namespaces = { baseline: await labelledNamespace(t, "baseline"), restricted: await labelledNamespace(t, "restricted") };
  const disagree = [];
  const invalid = [];
  let compared = 0;
  for (const [i, c] of doc.cases.entries()) {
    const template = merged(structuredClone(doc.bases[c.base]), c.template);
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { ...template.metadata, name: `case-${i}` }, spec: template.spec };
    const answer = await request(admin, "POST", collection("v1", "Pod", namespaces[c.level]), { body: pod, query: { dryRun: "All" } });
    if (answer.status === 422) {
      // Not a pod the API server takes at all (cases.json's `about` names these kinds): nothing to compare.
      invalid.push(`${c.name}: ${answer.body?.message}`);
      continue;
    }
    const byServer = answer.status === 403 && /violates PodSecurity/.test(answer.body?.message ?? "");
    assert.ok(byServer || answer.status === 201, `${c.name}: HTTP ${answer.status} ${answer.body?.message ?? ""}`);
    const byPolicy = c.refused.length > 0;
    compared += 1;
    if (byServer !== byPolicy) {
      disagree.push(`${c.name} (${c.level}): the server ${byServer ? "refuses" : "admits"} it (${answer.body?.message ?? "created"}), the policy ${byPolicy ? `refuses ${c.refused.join(", ")}` : "admits it"}`);
    }
  }
  t.diagnostic(`${compared} cases compared; not pods: ${invalid.length} (${invalid.map((l) => l.split(":")[0]).join("; ")})`);
  assert.deepEqual(disagree, [], "cases where the policy and PodSecurity admission disagree");
  // Both levels, both verdicts, and nearly every case a pod the server could judge.
  assert.ok(compared >= doc.cases.length - 8, `only ${compared} of ${doc.cases.length} compared; not pods: ${invalid.join("; ")}`);
  for (const level of ["baseline", "restricted"]) {
    assert.ok(doc.cases.some((c) => c.level === level && c.refused.length > 0));
    assert.ok(doc.cases.some((c) => c.level === level && c.refused.length === 0));
  }
});
