// Server-side truth: what the core produces, sent to a real kube-apiserver (the test cluster of
// `make cluster-up`, with the CRDs of deploy/crds) with `dryRun=All` and strict field validation.
// - every golden case: the pods and services it renders or plans, the ElasticJob and ScalePlan it
//   reads, the job and scale-plan statuses it writes (through the status subresource), the pods it
//   deletes; every example manifest and what it renders. Each must be accepted and come back with
//   nothing dropped or changed (no pruning by the CRD schemas, no quantity rewritten); a
//   gang-scheduled job's PodGroups against the gang schedulers' own CRDs (Volcano's and
//   scheduler-plugins', $PODGROUP_CRDS, installed first);
// - a table of jobs the core refuses for a name, a label or a quantity Kubernetes would refuse:
//   the API server must refuse what the job would create, naming the same thing.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { before, test } from "node:test";
import { parseAllDocuments } from "yaml";
import * as api from "elasticjob";
import { goldenCases, job as fixtureJob } from "../../pkg/test/fixtures.js";
import { adminConfig, applyManifests, collection, describe, dryRunCreate, eventually, expectStatus, freshNamespace, isQuantityPath, lostOrChanged, objectPath, request } from "./kube.js";

const kc = adminConfig();
const ROOT = new URL("../../", import.meta.url);

/** Every action of a golden output that is a plan, phase by phase. */
function actionsOf(output) {
  return (output?.phases ?? []).flatMap((p) => p.actions);
}

/** The pods, services and PodGroups of a golden output: a rendered List, or a plan's actions. */
function kubeObjects(output) {
  if (output?.kind === "List") {
    return output.items;
  }
  return actionsOf(output).flatMap((a) => [a.pod, a.service, a.podGroup].filter(Boolean));
}

// The gang schedulers' PodGroup CRDs (scheduler-plugins' from its module, Volcano's generated from
// its API module: tests/cluster/gang/), so the PodGroups the core writes meet the real schemas.
before(async () => {
  const crds = (process.env.PODGROUP_CRDS ?? "").split(/\s+/).filter(Boolean);
  assert.ok(crds.length === 2, "run with `make test-cluster` (PODGROUP_CRDS names the gang schedulers' PodGroup CRDs)");
  for (const path of crds) {
    await applyManifests(kc, path);
  }
  for (const group of ["scheduling.volcano.sh/v1beta1", "scheduling.x-k8s.io/v1alpha1"]) {
    await eventually(`${group} PodGroups served`, async () => {
      const answer = await request(kc, "GET", `/apis/${group}`);
      return answer.status === 200 && answer.body.resources?.some((r) => r.name === "podgroups");
    }, 60);
  }
});

/** The object with another namespace. */
function inNamespace(obj, namespace) {
  return { ...obj, metadata: { ...obj.metadata, namespace } };
}

/** What the server keeps of an object on create: not its status (a subresource), uid, resourceVersion. */
function createdPart(obj) {
  const { uid, resourceVersion, creationTimestamp, ...metadata } = obj.metadata;
  const { status, ...rest } = obj;
  return { ...rest, metadata };
}

/**
 * Quantities the API server wrote in another form than the core (`0.5` -> `500m`): the server
 * stores the canonical form, as DLRover's Go types write it. Tolerated by the tests above (the
 * value is the same), listed by the last test.
 */
const rewrittenQuantities = [];

/** Asserts the server kept every field of `sent` in `stored`; a quantity may only be rewritten. */
function assertKept(sent, stored, what, path = "") {
  const differences = lostOrChanged(sent, stored, path);
  const quantities = differences.filter((d) => isQuantityPath(d.path) && typeof d.stored === "string");
  rewrittenQuantities.push(...describe(quantities).map((line) => `${what}: ${line}`));
  assert.deepEqual(describe(differences.filter((d) => !quantities.includes(d))), [], `${what}: the server dropped or changed fields`);
}

/**
 * The stored pod without the tolerations the API server's DefaultTolerationSeconds admission plugin
 * adds to every pod that has none for those taints (`not-ready` and `unreachable`, NoExecute, 300 s):
 * a pod that carries tolerations of its own (a Kueue flavour's) has its list extended by them.
 */
function withoutDefaultTolerations(sent, stored) {
  const added = (t) => ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"].includes(t.key) && t.effect === "NoExecute" && t.tolerationSeconds === 300;
  if (stored?.kind !== "Pod" || !Array.isArray(sent.spec?.tolerations) || !Array.isArray(stored.spec?.tolerations)) {
    return stored;
  }
  const own = (t) => sent.spec.tolerations.some((s) => s.key === t.key && s.effect === t.effect);
  return { ...stored, spec: { ...stored.spec, tolerations: stored.spec.tolerations.filter((t) => !added(t) || own(t)) } };
}

/**
 * The stored pod without the ServiceAccount token the API server's ServiceAccount admission plugin
 * mounts into every pod that does not opt out (a projected volume `kube-api-access-<suffix>`,
 * mounted read-only at /var/run/secrets/kubernetes.io/serviceaccount in each container): a pod
 * that has volumes and mounts of its own has those lists extended by it.
 */
function withoutServiceAccountToken(stored) {
  const token = (name) => /^kube-api-access-[a-z0-9]+$/.test(name ?? "");
  if (stored?.kind !== "Pod" || !Array.isArray(stored.spec?.volumes)) {
    return stored;
  }
  const mounts = (c) => (Array.isArray(c.volumeMounts) ? { ...c, volumeMounts: c.volumeMounts.filter((m) => !token(m.name)) } : c);
  const spec = { ...stored.spec, volumes: stored.spec.volumes.filter((v) => !(token(v.name) && v.projected)) };
  for (const key of ["containers", "initContainers"]) {
    if (Array.isArray(spec[key])) spec[key] = spec[key].map(mounts);
  }
  return { ...stored, spec };
}

/** Dry-run creates `obj` and asserts the server accepts it and stores every field as sent. */
async function assertAccepted(obj, what) {
  const stored = expectStatus(await dryRunCreate(kc, obj), [201], what);
  assertKept(createdPart(obj), withoutServiceAccountToken(withoutDefaultTolerations(obj, stored)), what);
  return stored;
}

/** Creates a custom resource for real (the status subresource needs it), without its status. */
async function create(obj, what) {
  const body = createdPart(obj);
  const stored = expectStatus(await request(kc, "POST", collection(obj.apiVersion, obj.kind, obj.metadata.namespace), { body, query: { fieldValidation: "Strict" } }), [201], what);
  assertKept(body, stored, what);
  return stored;
}

/** A dry-run write of `status` through the status subresource; asserts nothing was pruned. */
async function assertStatusAccepted(obj, status, what) {
  const answer = await request(kc, "PATCH", `${objectPath(obj)}/status`, {
    body: { status },
    query: { dryRun: "All", fieldValidation: "Strict" },
    contentType: "application/merge-patch+json",
  });
  const stored = expectStatus(answer, [200], what);
  assertKept(status, stored.status, what, "status");
}

const cases = goldenCases();

test("there are golden cases with pods, services, statuses and custom resources to send", () => {
  const outputs = cases.map((c) => JSON.parse(c.expected));
  assert.ok(outputs.flatMap(kubeObjects).length >= 50, "fewer than 50 objects");
  for (const kind of ["setJobStatus", "setScalePlanStatus", "deletePod", "deleteService"]) {
    assert.ok(outputs.some((o) => actionsOf(o).some((a) => a.action === kind)), kind);
  }
});

cases.forEach((c, index) => {
  const output = JSON.parse(c.expected);
  if (output?.error) {
    // The failing case is the table's business below.
    return;
  }
  test(`golden ${c.name}: the API server accepts it all`, async (t) => {
    const ns = await freshNamespace(kc, t, `golden-${index}`);
    let sent = 0;
    const job = c.input.job ? inNamespace(c.input.job, ns) : null;
    // The case's plans, without owner references: the job they name is made anew here, with
    // another uid, and a garbage collector would take them for orphans.
    const plans = [c.input.scalePlan, ...(c.input.scalePlans ?? [])]
      .filter(Boolean)
      .map((p) => {
        const { ownerReferences, ...metadata } = p.metadata;
        return inNamespace({ ...p, metadata }, ns);
      });
    // The custom resources the case reads, created for real: their status is written below.
    for (const cr of [job, ...plans].filter(Boolean)) {
      await create(cr, `${cr.kind} ${cr.metadata.name}`);
      sent++;
    }
    // The ServiceAccounts its pods run as (the masters' account): the API server's ServiceAccount
    // admission refuses a pod whose account does not exist, dry run or not.
    const accounts = new Set(kubeObjects(output).filter((o) => o.kind === "Pod").map((o) => o.spec?.serviceAccountName).filter((a) => a && a !== "default"));
    for (const name of accounts) {
      await create({ apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace: ns } }, `ServiceAccount ${name}`);
    }
    // The ElasticJob `convert` makes of a TFJob.
    if (output?.elasticJob) {
      await assertAccepted(inNamespace(output.elasticJob, ns), `ElasticJob ${output.elasticJob.metadata.name}`);
      sent++;
    }
    // What the case renders or plans to create.
    for (const obj of kubeObjects(output)) {
      await assertAccepted(inNamespace(obj, ns), `${obj.kind} ${obj.metadata.name}`);
      sent++;
    }
    if (output?.kind === "ScalePlan") {
      await assertAccepted(inNamespace(output, ns), `ScalePlan ${output.metadata.name}`);
      sent++;
    }
    for (const action of actionsOf(output)) {
      if (action.action === "setJobStatus") {
        await assertStatusAccepted(job, action.status, `status of ElasticJob ${job.metadata.name}`);
        sent++;
      } else if (action.action === "setScalePlanStatus") {
        const plan = plans.find((p) => p.metadata.name === action.name);
        assert.ok(plan, `the status of ${action.name} is for one of the case's scale plans`);
        await assertStatusAccepted(plan, action.status, `status of ScalePlan ${action.name}`);
        sent++;
      } else if (action.action === "deletePod") {
        // The observed pod, created for real, then deleted with the plan's grace period (dry run).
        const observed = (c.input.pods ?? []).find((p) => p.metadata.name === action.name);
        assert.ok(observed, `the deleted pod ${action.name} is one of the case's pods`);
        const { status, ...pod } = inNamespace(observed, ns);
        expectStatus(await request(kc, "POST", collection("v1", "Pod", ns), { body: pod }), [201], `pod ${action.name}`);
        const answer = await request(kc, "DELETE", objectPath(pod), {
          query: { dryRun: "All", gracePeriodSeconds: "0" },
        });
        expectStatus(answer, [200], `delete pod ${action.name}`);
        sent++;
      }
    }
    assert.ok(sent > 0 || typeof output === "string", "nothing to send");
    t.diagnostic(`${sent} requests accepted`);
  });
});

/** The documents of a YAML file of the repository. */
function manifests(path) {
  return parseAllDocuments(readFileSync(new URL(path, ROOT), "utf8")).map((d) => d.toJS());
}

test("the examples and what they render are accepted", async (t) => {
  const ns = await freshNamespace(kc, t, "examples");
  const [job] = manifests("examples/elasticjob.yaml").map((o) => inNamespace(o, ns));
  const [plan] = manifests("examples/scaleplan.yaml").map((o) => inNamespace(o, ns));
  await assertAccepted(job, "examples/elasticjob.yaml");
  await assertAccepted(plan, "examples/scaleplan.yaml");
  const rendered = api.render(job, plan).items;
  for (const obj of [...rendered, ...api.render(job).items, api.initialScalePlan(job)]) {
    await assertAccepted(inNamespace(obj, ns), `${obj.kind} ${obj.metadata.name}`);
  }
  t.diagnostic(`${2 + rendered.length} objects`);
});

// DLRover's own manifests: its sample job and plan (examples/ holds them as they are upstream) and
// tests/cluster/dlrover/ (every field of its spec types set). What its CRD accepts, ours must accept
// and keep as sent.
test("DLRover's samples and a job and plan setting every upstream field are accepted", async (t) => {
  const ns = await freshNamespace(kc, t, "dlrover");
  const files = ["examples/elasticjob.yaml", "examples/scaleplan.yaml", "tests/cluster/dlrover/elasticjob-every-field.yaml", "tests/cluster/dlrover/scaleplan-every-field.yaml"];
  for (const file of files) {
    for (const obj of manifests(file)) {
      await assertAccepted(inNamespace(obj, ns), file);
    }
  }
});

test("an ElasticJob as DLRover stores it (spec.suspend, status.status...) reads back unchanged", async (t) => {
    const ns = await freshNamespace(kc, t, "dlrover-stored");
    const [stored] = manifests("tests/cluster/dlrover/elasticjob-stored.yaml").map((o) => inNamespace(o, ns));
    await create(stored, "ElasticJob as stored by DLRover");
    await assertStatusAccepted(stored, stored.status, "its status");
});

// ---------------------------------------------------------------------------------------------
// The core and the API server agree: a job (or scale plan) the core refuses for a name, a label or
// a quantity is one whose objects the API server refuses too.

/** The base job of the table: the fixture, with a name and an env var the rows replace. */
const BASE_NAME = "basejob";
function baseJob() {
  const job = fixtureJob();
  job.metadata.name = BASE_NAME;
  job.spec.envs = { TOKENENV: { name: "TOKENENV", value: "1" } };
  return job;
}

/**
 * What the job of a row would put in the cluster, from what the core renders for the base job: the
 * base objects with `from` replaced by `to` in their JSON (the core refuses to render the row's job
 * itself). So the objects carry the bad value exactly where the core would put it.
 */
function renderedWith(from, to, plan) {
  const text = JSON.stringify(api.render(baseJob(), plan).items);
  return JSON.parse(text.replaceAll(from, to));
}

/** A valid plan creating worker 3 of the base job. */
const basePlan = () => ({
  apiVersion: "elastic.iml.github.io/v1alpha1",
  kind: "ScalePlan",
  metadata: { name: "basejob-plan", labels: { "elasticjob-name": BASE_NAME, "scale-type": "auto" } },
  spec: { ownerJob: BASE_NAME, createPods: [{ name: `${BASE_NAME}-edljob-worker-3`, type: "worker", id: 3, rankIndex: 3, service: `${BASE_NAME}-edljob-worker-3:3333` }] },
});

const LONG = "a".repeat(64);
const rows = [
  // Names.
  { what: "upper case and `_` in the job name", job: (j) => (j.metadata.name = "Deep_CTR"), core: ["metadata.name", "invalid_name"], objects: () => [named(baseJob(), "Deep_CTR")], server: "metadata.name" },
  { what: "a `.` in the job name (a pod name may have one, a service name not)", job: (j) => (j.metadata.name = "deep.ctr"), core: ["metadata.name", "invalid_name"], objects: () => renderedWith(BASE_NAME, "deep.ctr"), server: "metadata.name" },
  { what: "a job name ending with `-`", job: (j) => (j.metadata.name = "deepctr-"), core: ["metadata.name", "invalid_name"], objects: () => [named(baseJob(), "deepctr-")], server: "metadata.name" },
  { what: "a job name starting with `-`", job: (j) => (j.metadata.name = "-deepctr"), core: ["metadata.name", "invalid_name"], objects: () => [named(baseJob(), "-deepctr")], server: "metadata.name" },
  { what: "a 38-character job name (the master service name gets 64)", job: (j) => (j.metadata.name = "d".repeat(38)), core: ["metadata.name", "invalid_name"], objects: () => renderedWith(BASE_NAME, "d".repeat(38)), server: "metadata.name" },
  { what: "a 254-character job name", job: (j) => (j.metadata.name = "d".repeat(254)), core: ["metadata.name", "invalid_name"], objects: () => [named(baseJob(), "d".repeat(254))], server: "metadata.name" },
  { what: "no job name", job: (j) => delete j.metadata.name, core: ["metadata.name", "required"], objects: () => [named(baseJob(), undefined)], server: "metadata.name" },
  { what: "an upper-case namespace", job: (j) => (j.metadata.namespace = "Training"), core: ["metadata.namespace", "invalid_name"], objects: () => [{ apiVersion: "v1", kind: "Namespace", metadata: { name: "Training" } }], server: "metadata.name" },
  { what: "an upper-case container name", job: (j) => (j.spec.replicaSpecs.ps.template.spec.containers[0].name = "Main"), core: ["spec.replicaSpecs.ps.template.spec.containers[0].name", "invalid_name"], objects: () => renderedWith('"name":"main"', '"name":"Main"'), server: "spec.containers[0].name" },
  { what: "a `.` in a container name", job: (j) => (j.spec.replicaSpecs.ps.template.spec.containers[0].name = "main.0"), core: ["spec.replicaSpecs.ps.template.spec.containers[0].name", "invalid_name"], objects: () => renderedWith('"name":"main"', '"name":"main.0"'), server: "spec.containers[0].name" },
  { what: "an env var named with `=`", job: (j) => (j.spec.envs = { "A=B": { name: "A=B", value: "1" } }), core: ["spec.envs.A=B", "invalid_name"], objects: () => renderedWith("TOKENENV", "A=B"), server: /env\[\d+\]\.name/ },
  { what: "a scale plan named with `_`", plan: (p) => (p.metadata.name = "Plan_1"), core: ["scalePlan.metadata.name", "invalid_name"], objects: () => [{ ...basePlan(), metadata: { ...basePlan().metadata, name: "Plan_1" } }], server: "metadata.name" },
  { what: "a scale plan creating a pod named with upper case", plan: (p) => (p.spec.createPods[0].name = "Basejob-edljob-worker-3"), core: ["scalePlan.spec.createPods[0].name", "invalid_name"], objects: () => renderedWith(`"${BASE_NAME}-edljob-worker-3"`, '"Basejob-edljob-worker-3"', basePlan()), server: "metadata.name" },
  // Quantities: the API server parses every quantity of a pod.
  { what: "a memory request of `2 GB`", job: (j) => (j.spec.replicaSpecs.ps.template.spec.containers[0].resources.requests.memory = "2 GB"), core: ["spec.replicaSpecs.ps.template.spec.containers[0].resources.requests.memory", "invalid_quantity"], objects: () => renderedWith('"2Gi"', '"2 GB"'), server: /quantities must match/ },
  { what: "a cpu request of `1.5.0`", job: (j) => (j.spec.replicaSpecs.ps.template.spec.containers[0].resources.requests.cpu = "1.5.0"), core: ["spec.replicaSpecs.ps.template.spec.containers[0].resources.requests.cpu", "invalid_quantity"], objects: () => renderedWith('"cpu":"1"', '"cpu":"1.5.0"'), server: /quantities must match/ },
  // Labels and annotations of the job: the API server checks them on the job itself (and on every
  // pod, which gets them). The core does not check them yet.
  { what: "a label key with a space", job: (j) => (j.metadata.labels = { "team name": "ads" }), core: ["metadata.labels", "invalid_name"], objects: () => [labelled(baseJob(), { "team name": "ads" })], server: "metadata.labels" },
  { what: "a label value of 64 characters", job: (j) => (j.metadata.labels = { team: LONG }), core: ["metadata.labels", "invalid_value"], objects: () => [labelled(baseJob(), { team: LONG })], server: "metadata.labels" },
  { what: "a label value with `/`", job: (j) => (j.metadata.labels = { team: "ads/ml" }), core: ["metadata.labels", "invalid_value"], objects: () => [labelled(baseJob(), { team: "ads/ml" })], server: "metadata.labels" },
  { what: "an upper-case label key prefix", job: (j) => (j.metadata.labels = { "Example.com/team": "ads" }), core: ["metadata.labels", "invalid_name"], objects: () => [labelled(baseJob(), { "Example.com/team": "ads" })], server: "metadata.labels" },
  { what: "an annotation key with a space", job: (j) => (j.metadata.annotations = { "owner team": "ads" }), core: ["metadata.annotations", "invalid_name"], objects: () => [{ ...baseJob(), metadata: { ...baseJob().metadata, annotations: { "owner team": "ads" } } }], server: "metadata.annotations" },
];

// Where the core is stricter than this API server, on purpose.
const stricter = [
  {
    what: "a job name starting with a digit",
    why: "its services (`1deepctr-edljob-ps-0`) need RelaxedServiceNameValidation, on by default from Kubernetes 1.36 only; a 1.35 API server refuses them",
    job: (j) => (j.metadata.name = "1deepctr"),
    core: ["metadata.name", "invalid_name"],
    objects: () => renderedWith(BASE_NAME, "1deepctr"),
  },
];

function named(job, name) {
  return { ...job, metadata: { ...job.metadata, name } };
}

function labelled(job, labels) {
  return { ...job, metadata: { ...job.metadata, labels } };
}

/** The problems of the row's job (or scale plan) by the core's `validate`. */
function coreProblems(row) {
  if (row.plan) {
    const plan = basePlan();
    row.plan(plan);
    const v = api.validateScalePlan(plan);
    return v.valid ? [] : v.error.errors;
  }
  const job = baseJob();
  row.job(job);
  const v = api.validate(job);
  return v.valid ? [] : v.error.errors;
}

/** The server's refusal of an answer: the fields its causes name and its message; null when it accepted. */
function refusal(answer) {
  if (answer.status < 400) {
    return null;
  }
  const body = typeof answer.body === "object" ? answer.body : { message: answer.body };
  return { status: answer.status, fields: (body.details?.causes ?? []).map((c) => c.field ?? ""), message: body.message ?? "" };
}

function names(refused, server) {
  return typeof server === "string" ? refused.fields.some((f) => f === server || f.startsWith(`${server}[`) || f.startsWith(`${server}.`)) : server.test(refused.message) || refused.fields.some((f) => server.test(f));
}

test("the table has at least 10 pairs the core and the API server both refuse today", () => {
  assert.ok(rows.length >= 10);
});

test("the base job and plan of the table are valid, and the API server accepts all they create", async (t) => {
  assert.deepEqual(coreProblems({ job: () => {} }), []);
  assert.deepEqual(coreProblems({ plan: () => {} }), []);
  const ns = await freshNamespace(kc, t, "table-base");
  for (const obj of [baseJob(), basePlan(), ...api.render(baseJob(), basePlan()).items]) {
    await assertAccepted(inNamespace(obj, ns), `${obj.kind} ${obj.metadata.name}`);
  }
  // The longest job name the core allows gives a master service name of exactly 63 characters.
  const longest = { ...baseJob(), metadata: { ...baseJob().metadata, name: "d".repeat(37) } };
  assert.equal(api.validate(longest).valid, true, "a 37-character name is valid");
  for (const obj of renderedWith(BASE_NAME, "d".repeat(37))) {
    await assertAccepted(inNamespace(obj, ns), `${obj.kind} ${obj.metadata.name}`);
  }
});

for (const row of rows) {
  test(`agree: ${row.what}`, async (t) => {
    const ns = await freshNamespace(kc, t, "table");
    // The API server refuses something the row's job would create, naming the same field.
    const answers = [];
    for (const obj of row.objects()) {
      const target = obj.kind === "Namespace" ? obj : inNamespace(obj, ns);
      answers.push({ obj, refused: refusal(await dryRunCreate(kc, target)) });
    }
    const refused = answers.filter((a) => a.refused);
    assert.ok(refused.length > 0, "the API server accepted every object");
    assert.ok(
      refused.some((a) => names(a.refused, row.server)),
      `no refusal names ${row.server}: ${JSON.stringify(refused.map((a) => a.refused))}`,
    );
    t.diagnostic(`API server: ${refused.map((a) => `${a.obj.kind} ${a.obj.metadata.name ?? "(no name)"}: ${a.refused.status} ${a.refused.message}`).join("; ").slice(0, 400)}`);

    // The core refuses the job at the same place.
    const [path, code] = row.core;
    const problems = coreProblems(row);
    const match = problems.find((p) => p.path === path || p.path.startsWith(`${path}.`));
    assert.ok(match, `the core does not refuse it at ${path}: ${JSON.stringify(problems)}`);
    assert.equal(match.code, code);
  });
}

for (const row of stricter) {
  test(`the core is stricter: ${row.what}`, async (t) => {
    const ns = await freshNamespace(kc, t, "stricter");
    for (const obj of row.objects()) {
      await assertAccepted(inNamespace(obj, ns), `${obj.kind} ${obj.metadata.name}`);
    }
    const [path, code] = row.core;
    assert.ok(coreProblems(row).some((p) => p.path === path && p.code === code), `the core accepts it: ${row.why}`);
    t.diagnostic(row.why);
  });
}

test("the core writes quantities in the API server's canonical form (as DLRover's Go types do)", () => {
  const distinct = [...new Set(rewrittenQuantities)];
  assert.equal(distinct.length, 0, `rewritten by the API server:\n${distinct.join("\n")}`);
});
