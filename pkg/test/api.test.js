// The package's API as a Node user imports it: every function, plain objects in the core's field
// order, `require()` as well as `import`, and nothing exported that the types do not declare.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { test } from "node:test";
import * as api from "elasticjob";
import { job } from "./fixtures.js";


const FUNCTIONS = [
  "admittedJob",
  "constants",
  "controllerPass",
  "fromTFJob",
  "fromTFJobJson",
  "handleFaultPods",
  "initialScalePlan",
  "insertTfConfigToEnv",
  "jobControls",
  "jobKey",
  "jobView",
  "kueueGateProbe",
  "priorityClass",
  "reconcile",
  "reconcilePods",
  "reconcileScalePlan",
  "refusedJob",
  "render",
  "renderItem",
  "renderJson",
  "renderSummary",
  "stopRunningPods",
  "summary",
  "suspendWhenQueued",
  "syncJobState",
  "tfConfig",
  "validate",
  "validateScalePlan",
  "workload",
];
// The same functions over JSON text (`render` with `pretty` is renderJson, `fromTFJob` with it fromTFJobJson), and the fields a job key is read from.
const TEXT_FUNCTIONS = [...FUNCTIONS.filter((f) => f !== "renderJson" && f !== "fromTFJobJson"), "jobKeyFields"].sort();

test("the package exports every function of the glue, over values and over text, and the error class, and nothing else", () => {
  assert.deepEqual(Object.keys(api).sort(), ["ElasticJobError", "text", ...FUNCTIONS].sort());
  assert.deepEqual(Object.keys(api.text).sort(), [...TEXT_FUNCTIONS, "ObjectStore"].sort());
  // The generated glue's exports, less its loaders and json.js's helper: a new binding must be exported too.
  const glue = readFileSync(new URL("../dist/elasticjob_wasm.js", import.meta.url), "utf8");
  const exported = [...glue.matchAll(/^export function (\w+)\(/gm)].map((m) => m[1]);
  assert.deepEqual(exported.filter((n) => n !== "initSync" && n !== "notJson").sort(), TEXT_FUNCTIONS);
  assert.deepEqual([...glue.matchAll(/^export class (\w+) /gm)].map((m) => m[1]), ["ObjectStore"]);
  const declared = readFileSync(new URL("../api.d.ts", import.meta.url), "utf8");
  for (const name of FUNCTIONS) {
    assert.match(declared, new RegExp(`export function ${name}\\(`), `api.d.ts does not declare ${name}`);
  }
  const declaredText = readFileSync(new URL("../text.d.ts", import.meta.url), "utf8");
  for (const name of [...TEXT_FUNCTIONS, "ObjectStore"]) {
    assert.match(declaredText, new RegExp(`\\b${name},`), `text.d.ts does not export ${name}`);
  }
});

test("the text functions take and give the JSON text the value functions write and read", () => {
  const j = job();
  assert.equal(api.text.render(JSON.stringify(j)), JSON.stringify(api.render(j)));
  assert.equal(api.renderJson(j), api.text.render(JSON.stringify(j)));
  assert.equal(api.text.tfConfig(JSON.stringify(j), '"worker"', "1"), api.tfConfig(j, "worker", 1));
  const e = thrownBy(() => api.text.render("{"));
  assert.equal(e.code, "parse_error");
  assert.deepEqual(e.errors.map((p) => [p.path, p.code]), [["", "syntax"]]);
  assert.deepEqual(thrownBy(() => api.text.render(JSON.stringify(j), "[1,")).errors.map((p) => [p.path, p.code]), [["scalePlan", "syntax"]]);
});

test("a store of the objects a host observes gives the pass over them, reading each once", () => {
  const j = { ...job(), metadata: { ...job().metadata, uid: "u-1" }, status: { phase: "Running" } };
  const { items } = api.render(j, null);
  const pods = items.filter((o) => o.kind === "Pod").map((p) => ({ ...p, status: { phase: "Running" } }));
  const services = items.filter((o) => o.kind === "Service").slice(1);
  const store = new api.text.ObjectStore();
  for (const p of pods) {
    assert.equal(store.put("Pod", JSON.stringify(p)), `${j.metadata.namespace}/${j.metadata.name}`);
  }
  for (const s of services) {
    store.put("Service", JSON.stringify(s));
  }
  assert.equal(store.size, pods.length + services.length);
  const now = "2026-03-01T10:00:00Z";
  const key = `${j.metadata.namespace}/${j.metadata.name}`;
  const pass = (overlay) => store.controllerPass(key, JSON.stringify(j), overlay, JSON.stringify(now));
  assert.equal(pass(), JSON.stringify(api.controllerPass(j, [], pods, services, now)));
  // The master's service is missing: the pass makes it; laid over as made, nothing is left to do.
  assert.equal(JSON.parse(pass()).phases[0].actions[0].action, "createOrUpdateService");
  assert.equal(pass(JSON.stringify({ services: [items[1]] })), JSON.stringify(api.controllerPass(j, [], pods, [...services, items[1]], now)));
  assert.equal(store.remove("Pod", j.metadata.namespace, pods[0].metadata.name), key);
  assert.equal(pass(), JSON.stringify(api.controllerPass(j, [], pods.slice(1), services, now)));
  store.free();
});

function thrownBy(f) {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof api.ElasticJobError, String(e));
    return e;
  }
  assert.fail("did not throw");
}

test("require() gives the same module", () => {
  const required = createRequire(import.meta.url)("elasticjob");
  assert.equal(required.render, api.render);
  assert.equal(required.ElasticJobError, api.ElasticJobError);
});

test("render: the master, one PS, the chief and a worker (DLRover's master runs one of the two workers as the chief), each with a service, as plain objects", () => {
  const list = api.render(job());
  assert.equal(list.apiVersion, "v1");
  assert.equal(list.kind, "List");
  assert.deepEqual(
    list.items.map((o) => `${o.kind}/${o.metadata.name}`),
    [
      "Pod/elasticjob-mnist-dlrover-master",
      "Service/elasticjob-mnist-dlrover-master",
      "Pod/mnist-edljob-ps-0",
      "Service/mnist-edljob-ps-0",
      "Pod/mnist-edljob-chief-0",
      "Service/mnist-edljob-chief-0",
      "Pod/mnist-edljob-worker-0",
      "Service/mnist-edljob-worker-0",
    ],
  );
  const ps = list.items[2];
  assert.equal(Object.getPrototypeOf(ps.metadata.labels), Object.prototype, "maps are plain objects");
  // As DLRover's master plans it: 16 CPUs (its optimizer's, for a request under 2), the memory requested.
  assert.deepEqual(ps.spec.containers[0].resources, { limits: { cpu: "16", memory: "2Gi" }, requests: { cpu: "16", memory: "2Gi" } });
  // Fields in the order Kubernetes objects are written, not sorted.
  assert.deepEqual(Object.keys(ps), ["apiVersion", "kind", "metadata", "spec"]);
  const env = Object.fromEntries(ps.spec.containers[0].env.map((e) => [e.name, e.value]));
  assert.equal(env.TF_CONFIG, api.tfConfig(job(), "ps", 0));
});

test("render with a scale plan and options", () => {
  const plan = api.initialScalePlan(job());
  plan.spec.replicaResourceSpecs.worker.replicas = 3;
  const list = api.render(job(), plan, { masterImage: "registry.example.com/dlrover:1" });
  assert.equal(list.items.filter((o) => o.kind === "Pod" && o.metadata.name.includes("worker")).length, 3);
  assert.equal(list.items[0].spec.containers[0].image, "registry.example.com/dlrover:1");
});

test("tfConfig: the TF_CONFIG a worker gets", () => {
  assert.deepEqual(JSON.parse(api.tfConfig(job(), "worker", 0)), {
    cluster: { worker: ["mnist-edljob-worker-0:3333"], ps: ["mnist-edljob-ps-0:2222"], chief: ["mnist-edljob-chief-0:3333"] },
    task: { type: "worker", index: 0 },
  });
});

test("initialScalePlan: replicas, resources and PS hosts of the job", () => {
  const plan = api.initialScalePlan(job());
  assert.equal(plan.kind, "ScalePlan");
  assert.equal(plan.metadata.name, "mnist-initial");
  assert.deepEqual(plan.spec.psHosts, ["mnist-edljob-ps-0:2222"]);
  assert.deepEqual(plan.spec.replicaResourceSpecs.ps, { replicas: 1, resource: { cpu: "16", memory: "2048Mi" } });
});

test("validate and validateScalePlan answer instead of throwing", () => {
  assert.deepEqual(api.validate(job()), { valid: true });
  const bad = job();
  bad.metadata.name = "Deep_CTR";
  const answer = api.validate(bad);
  assert.equal(answer.valid, false);
  assert.equal(answer.error.code, "invalid");
  assert.deepEqual(answer.error.errors.map((p) => [p.path, p.code]), [["metadata.name", "invalid_name"]]);
  assert.deepEqual(api.validate("not a job").error.errors.map((p) => p.code), ["invalid_type"]);
  assert.deepEqual(api.validateScalePlan(api.initialScalePlan(job())), { valid: true });
});

/** Every action of a plan, phase by phase. */
const actionsOf = (plan) => plan.phases.flatMap((p) => p.actions);

test("reconcile: a new job gets its first plan's pods, then its master, and a status, in phases: services, pods, status", () => {
  const plan = api.reconcile(job(), null, [], "2026-01-02T03:04:05Z");
  const objects = (p) => p.actions.map((a) => (a.pod ?? a.service).metadata.name);
  assert.deepEqual(
    plan.phases.map((p) => [p.phase, p.phase === "status" ? p.actions.map((a) => a.action) : objects(p)]),
    [
      ["services", ["mnist-edljob-ps-0", "mnist-edljob-chief-0", "mnist-edljob-worker-0", "elasticjob-mnist-dlrover-master"]],
      ["createPods", ["mnist-edljob-ps-0", "mnist-edljob-chief-0", "mnist-edljob-worker-0", "elasticjob-mnist-dlrover-master"]],
      ["status", ["setJobStatus"]],
    ],
  );
  const status = actionsOf(plan).at(-1).status;
  // DLRover's status shape: the common job status under `status`, beside `phase`.
  assert.equal(status.phase, "Created");
  assert.equal(status.status.startTime, "2026-01-02T03:04:05Z");
  assert.deepEqual(status.status.conditions.map((c) => [c.type, c.status]), [["Created", "True"]]);
  // Planning again with the same inputs gives the same plan.
  assert.deepEqual(api.reconcile(job(), null, [], "2026-01-02T03:04:05Z"), plan);
});

test("the per-type operations: reconcilePods, handleFaultPods, stopRunningPods, syncJobState", () => {
  const pods = api.render(job()).items.filter((o) => o.kind === "Pod").map((p) => ({ ...p, status: { phase: "Running" } }));
  const plan = api.initialScalePlan(job());
  plan.spec.replicaResourceSpecs.worker.replicas = 2;
  const up = api.reconcilePods(job(), "worker", plan, pods);
  assert.deepEqual(actionsOf(up).map((a) => `${a.action} ${a.pod?.metadata.name ?? a.service?.metadata.name}`), ["createOrUpdateService mnist-edljob-worker-1", "createPod mnist-edljob-worker-1"]);

  const failed = pods.map((p) => (p.metadata.name === "mnist-edljob-worker-0" ? { ...p, status: { phase: "Failed" } } : p));
  // DLRover's master decides relaunches (its plan's createPods entry): a failed task pod is left to it.
  assert.deepEqual(actionsOf(api.handleFaultPods(job(), "worker", failed)), []);
  const master = api.render(job()).items.find((o) => o.kind === "Pod" && o.metadata.name === "elasticjob-mnist-dlrover-master");
  const relaunch = api.handleFaultPods(job(), "dlrover-master", failed.filter((p) => p.metadata.name !== master.metadata.name));
  assert.deepEqual(actionsOf(relaunch).map((a) => `${a.action} ${a.pod?.metadata.name ?? a.service?.metadata.name}`), [
    "createOrUpdateService elasticjob-mnist-dlrover-master",
    "createPod elasticjob-mnist-dlrover-master",
  ]);

  const stop = api.stopRunningPods(job(), "worker", { items: pods });
  assert.deepEqual(actionsOf(stop).map((a) => a.name), ["mnist-edljob-worker-0"]);
  assert.ok(actionsOf(stop).every((a) => a.action === "deletePod" && !("gracePeriodSeconds" in a)));

  const sync = api.syncJobState(job(), "worker", failed, "2026-01-02T03:04:05Z");
  assert.deepEqual(actionsOf(sync)[0].status.status.replicaStatuses.worker, { failed: 1 });
});

test("controllerPass, constants and jobKey: the one pass, and the names and keys the hosts use", () => {
  const { labels, apiGroup, apiVersion, scaleTypeAuto } = api.constants();
  assert.equal(`${apiGroup}/${apiVersion}`, "elastic.iml.github.io/v1alpha1");
  assert.equal(labels.relaunchCount, "elasticjob.dlrover/relaunch-count");
  const plan = api.initialScalePlan(job());
  plan.metadata.labels = { [labels.scaleType]: scaleTypeAuto };
  assert.equal(api.jobKey({ ...plan, metadata: { ...plan.metadata, namespace: "ml" } }), "ml/mnist");
  assert.equal(api.jobKey({ kind: "Pod", metadata: { namespace: "ml", labels: { [labels.jobName]: "mnist" } } }), "ml/mnist");
  assert.equal(api.jobKey({ kind: "ConfigMap", metadata: { name: "x" } }), undefined);
  const running = { ...job(), status: { phase: "Running" } };
  const pass = api.controllerPass(running, [plan], [], [], "2026-01-02T03:04:05Z");
  // Taken up and carried out in the same pass: its pods and services (and the master, missing from
  // the pods observed, made again), then one status each.
  const actions = actionsOf(pass);
  assert.deepEqual(actions.slice(-2).map((a) => a.action), ["setScalePlanStatus", "setJobStatus"], "the plan is taken up");
  assert.equal(actions.at(-1).status.scalePlan, plan.metadata.name);
  assert.deepEqual(
    actions.filter((a) => a.action === "createPod").map((a) => a.pod.metadata.name).sort(),
    api.render(job(), plan).items.filter((o) => o.kind === "Pod").map((o) => o.metadata.name).sort(),
  );
  assert.deepEqual(actionsOf(api.controllerPass(null, { items: [plan] }, [], { items: [] }, "2026-01-02T03:04:05Z")).map((a) => a.status.phase), ["Created"]);
  assert.throws(() => api.controllerPass(running, [{ ...plan, spec: { psHosts: [5] } }], [], [], "2026-01-02T03:04:05Z"), (e) => e.errors[0].path === "scalePlans[0].spec.psHosts[0]");
  // Observed services are read as pods are: a shape problem has its path.
  assert.throws(
    () => api.controllerPass(running, [], [], [{ metadata: { name: "s" }, spec: { ports: [{ port: "http" }] } }], "2026-01-02T03:04:05Z"),
    (e) => e.code === "parse_error" && e.errors[0].path === "services[0].spec.ports[0].port",
  );
});

test("reconcileScalePlan: an auto plan moves its job to Scaling", () => {
  const plan = api.initialScalePlan(job());
  plan.metadata.labels["scale-type"] = "auto";
  const result = api.reconcileScalePlan(plan, job(), "2026-01-02T03:04:05Z");
  assert.deepEqual(actionsOf(result).map((a) => a.action), ["setScalePlanStatus", "setJobStatus"]);
  assert.equal(actionsOf(result)[1].status.phase, "Scaling");
  assert.deepEqual(actionsOf(api.reconcileScalePlan(plan, null, "2026-01-02T03:04:05Z")).map((a) => a.action), ["setScalePlanStatus"]);
});

test("insertTfConfigToEnv: a container with TF_CONFIG from a sparse cluster", () => {
  const container = api.insertTfConfigToEnv({ name: "main", image: "tf:2" }, { worker: { 0: "w0:2222" }, ps: ["ps0:2222"] }, "worker", 0);
  assert.deepEqual(container.env, [
    { name: "TF_CONFIG", value: '{"cluster":{"worker":["w0:2222"],"ps":["ps0:2222"],"chief":[]},"task":{"type":"worker","index":0}}' },
  ]);
});

test("summary: one row per rendered object", () => {
  const rows = api.summary(api.render(job()));
  assert.equal(rows.length, 8);
  assert.deepEqual(rows[2], { kind: "Pod", name: "mnist-edljob-ps-0", replicaType: "ps", rank: 0, cpu: "16", memory: "2Gi", port: 2222, task: "ps:0" });
  assert.deepEqual(rows[3], { kind: "Service", name: "mnist-edljob-ps-0", replicaType: "ps", rank: 0, port: 2222 });
});

test("renderSummary: the rows of summary(render()), with ports, without the objects", () => {
  const plan = api.initialScalePlan(job());
  plan.spec.replicaResourceSpecs.worker.replicas = 3;
  const rows = api.renderSummary(job(), plan);
  const list = api.render(job(), plan);
  const ports = (o) => (o.kind === "Service" ? o : list.items.find((s) => s.kind === "Service" && s.metadata.name === o.metadata.name)).spec.ports[0].port;
  assert.deepEqual(
    rows,
    api.summary(list).map((row, i) => ({ ...row, port: ports(list.items[i]) })),
  );
  assert.deepEqual(rows.map((r) => r.port), [50001, 50001, 2222, 2222, 3333, 3333, 3333, 3333, 3333, 3333, 3333, 3333]);
  assert.deepEqual(rows[3], { kind: "Service", name: "mnist-edljob-ps-0", replicaType: "ps", rank: 0, port: 2222 });
  // The same errors as render.
  const bad = job();
  bad.metadata.name = "Deep_CTR";
  assert.throws(() => api.renderSummary(bad), (e) => e instanceof api.ElasticJobError && e.errors[0].path === "metadata.name");
});

test("jobView: the job's pods counted by phase, wanted by its current plan, its plans oldest first with what they changed", () => {
  const j = { ...job(), status: { phase: "Running", scalePlan: "mnist-scaleplan-0" } };
  const plan = (name, time, spec) => ({ apiVersion: "elastic.iml.github.io/v1alpha1", kind: "ScalePlan", metadata: { name, namespace: j.metadata.namespace, creationTimestamp: time }, spec: { ownerJob: "mnist", ...spec } });
  // Pods the controller made: controlled by the job (one no one controls is not the job's unless it is exactly one it makes).
  const owner = { apiVersion: "elastic.iml.github.io/v1alpha1", kind: "ElasticJob", name: "mnist", uid: j.metadata.uid, controller: true };
  const pod = (name, type, phase) => ({ metadata: { name, ownerReferences: [owner], labels: { "elasticjob.dlrover/name": name.split("-")[0], "elasticjob.dlrover/replica-type": type } }, status: { phase } });
  const view = api.jobView(
    j,
    { items: [plan("mnist-scaleplan-1", "2026-01-01T00:01:00Z", { createPods: [{ name: "mnist-edljob-worker-9", type: "worker", id: 9, rankIndex: 0, service: "s" }] }), plan("mnist-scaleplan-0", "2026-01-01T00:00:00Z", { replicaResourceSpecs: { worker: { replicas: 3 } } })] },
    [pod("mnist-edljob-worker-0", "worker", "Running"), pod("mnist-edljob-worker-1", "worker", "Pending"), pod("other-edljob-worker-0", "worker", "Running")],
  );
  assert.equal(view.phase, "Running");
  assert.deepEqual(view.replicas.find((r) => r.replicaType === "worker"), { replicaType: "worker", wanted: 3, pending: 1, running: 1, succeeded: 0, failed: 0 });
  assert.deepEqual(view.scalePlans.map((p) => [p.name, p.changes]), [
    // After the first plan the core expects of DLRover's master: a chief and one worker.
    ["mnist-scaleplan-0", ["worker: 1 -> 3"]],
    // A plan that names no count (as DLRover's relaunch plan) changes none: the cluster stays as the plan before left it.
    ["mnist-scaleplan-1", ["create worker rank 0 as mnist-edljob-worker-9"]],
  ]);
  // A job the core's rules refuse is still shown; a wrong shape is refused with its path.
  const refused = { ...j, metadata: { ...j.metadata, name: "Deep_CTR" } };
  assert.equal(api.validate(refused).valid, false);
  assert.equal(api.jobView(refused, [], []).name, "Deep_CTR");
  assert.throws(() => api.jobView(j, [{ spec: { psHosts: 3 } }], []), (e) => e instanceof api.ElasticJobError && e.errors[0].path.startsWith("scalePlans[0].spec.psHosts"));
});

test("renderJson: the JSON text of render(), compact or as JSON.stringify(list, null, 2) writes it", () => {
  const plan = { spec: { replicaResourceSpecs: { worker: { replicas: 3 } } } };
  for (const [j, p] of [[job(), undefined], [job(), plan]]) {
    const list = api.render(j, p);
    assert.equal(api.renderJson(j, p), JSON.stringify(list));
    assert.equal(api.renderJson(j, p, null, true), JSON.stringify(list, null, 2));
  }
  // Text JSON escapes, empty objects and lists, and non-ASCII text, indented the same.
  const awkward = job();
  const main = awkward.spec.replicaSpecs.worker.template.spec.containers[0];
  main.args = ["{\"a\": [1, {}]}", "tab\there, \u0001, \\ and \"", "é ✓ 😀 \u2028", ""];
  main.env = [{ name: "EMPTY", value: "" }];
  awkward.spec.replicaSpecs.worker.template.metadata = { annotations: { "a/b": "{}[],:" } };
  const list = api.render(awkward);
  assert.equal(api.renderJson(awkward, null, null, true), JSON.stringify(list, null, 2));
  assert.equal(api.renderJson(awkward), JSON.stringify(list));
  const bad = job();
  bad.metadata.name = "Bad_Name";
  assert.throws(() => api.renderJson(bad), (e) => e instanceof api.ElasticJobError && e.errors[0].path === "metadata.name");
});

test("renderItem: one object of the rendered list, by its index", () => {
  const list = api.render(job());
  list.items.forEach((object, i) => assert.deepEqual(api.renderItem(job(), i), object));
  assert.deepEqual(api.renderItem(job(), 4, null, { masterImage: "x" }), list.items[4]);
  assert.throws(
    () => api.renderItem(job(), 8),
    (e) => e instanceof api.ElasticJobError && e.code === "invalid" && e.errors[0].path === "index" && e.errors[0].code === "out_of_range" && e.errors[0].message === "the job renders 8 objects, so the last index is 7",
  );
  assert.throws(() => api.renderItem(job(), -1), (e) => e instanceof api.ElasticJobError && e.code === "parse_error" && e.errors[0].path === "index");
});

test("inputs are not modified", () => {
  const input = job();
  const copy = structuredClone(input);
  api.render(input);
  api.reconcile(input, null, [], "2026-01-02T03:04:05Z");
  assert.deepEqual(input, copy);
});
