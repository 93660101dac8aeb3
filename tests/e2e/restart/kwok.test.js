// The fake kubelet across `cluster restart-apiserver` (make test-cluster runs this file on a
// cluster of its own: the restart would cut every other test's connections). KWOK restarts with
// the control plane, as a kubelet restarts on its node: it must go on playing the nodes' pods at
// once, as a kubelet does (its node Lease's holder is its node's name, the same after a restart).
// A KWOK of a new identity each start waited out its former self's node Leases (40 s after their
// last renewal) before it played a node's pods again: a pod deleted after a restart stayed
// Terminating, and a pod created then stayed Pending, for up to 40 s (the chaos soak saw pods of a
// deleted job Terminating for 111 s, docs/controller.md).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { test } from "node:test";
import { promisify } from "node:util";
import { adminConfig, collection, eventually, expectStatus, freshNamespace, request } from "../kube.js";
import * as kubelet from "../kubelet.js";

const admin = adminConfig();
// "BIN --dir DIR": the cluster binary and its folder (mk/cluster.mk's test-cluster sets it).
const [BIN, ...DIR] = (process.env.RESTART_CLUSTER ?? "").split(" ");
// What KWOK takes, restarted, to play a pod: well under the 30 s a former self's Lease held it.
const PROMPT_S = 10;

const pod = (ns, name) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: ns },
  spec: { restartPolicy: "Never", containers: [{ name: "main", image: "tf:2", resources: { requests: { cpu: "100m", memory: "64Mi" } } }] },
});

test("after a restart of the control plane, KWOK plays the pods of every node at once: a deleted pod goes, a new one runs", { skip: !BIN && "RESTART_CLUSTER is not set (make test-cluster sets it)" }, async (t) => {
  const ns = await freshNamespace(admin, t, "restart");
  expectStatus(await request(admin, "POST", collection("v1", "Pod", ns), { body: pod(ns, "before") }), [201], "pod before");
  await kubelet.running(admin, ns, "before");
  // Every node's Lease renewed since it was made (KWOK renews every 10 s): held, not yet expired.
  const { stderr } = await promisify(execFile)(BIN, ["restart-apiserver", ...DIR], { timeout: 120_000 });
  t.diagnostic(stderr.trim());
  const restarted = Date.now();
  expectStatus(await request(admin, "DELETE", `/api/v1/namespaces/${ns}/pods/before`), [200], "delete the pod");
  expectStatus(await request(admin, "POST", collection("v1", "Pod", ns), { body: pod(ns, "after") }), [201], "pod after");
  await eventually("the deleted pod gone", async () => (await request(admin, "GET", `/api/v1/namespaces/${ns}/pods/before`)).status === 404, PROMPT_S);
  await kubelet.running(admin, ns, "after", PROMPT_S);
  const seconds = (Date.now() - restarted) / 1000;
  t.diagnostic(`deleted pod gone and new pod Running ${seconds.toFixed(1)} s after the restart`);
  assert.ok(seconds < PROMPT_S);
});
