// The controller's RBAC (deploy/rbac.yaml, deploy/rbac-kueue.yaml, rendered from the chart) against
// what its code sends: the real controller (its caches, leader election with Kueue on: acquire,
// renew, release) and then every action kind of handlers.js, the event recorder's create and count,
// and the reconciler's reads, through the real adapter to a recording API server of the test's own.
// Each request is turned into the attributes RBAC decides on, as the API server's RequestInfo does
// (HTTP method, path and `watch` to group, resource, subresource, verb, namespace, name); a create
// with an owner reference that blocks its owner's deletion asks `update` of the owner's
// `finalizers` too, as the OwnerReferencesPermissionEnforcement admission plugin does. The test
// fails on a rule (group, resource, verb) that no request exercises, and on a request no rule
// grants. tests/e2e/rbac.test.js checks the same rules on a real API server.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import * as k8s from "@kubernetes/client-node";
import { render } from "elasticjob";
import { parseAllDocuments } from "yaml";
import { KINDS, KubeAdapter } from "../controller/adapter.js";
import { EventRecorder } from "../controller/events.js";
import { HANDLERS, getOrGone } from "../controller/handlers.js";
import { Controller } from "../controller/index.js";
import { Logger } from "../controller/log.js";
import { job as fixtureJob } from "./fixtures.js";

const quiet = process.env.RBAC_DEBUG ? new Logger(process.stderr, { level: "debug" }) : new Logger({ write: () => true }, { level: "error" });
const LEASE_NAMESPACE = "elasticjob-system";
const LEASE_NAME = "elasticjob-controller";
const NS = "training";

/** RBAC's attributes of a request, as the API server's RequestInfoFactory reads them. */
function attributesOf(method, url) {
  const parts = url.pathname.split("/").filter(Boolean);
  const [group, rest] = parts[0] === "api" ? ["", parts.slice(2)] : [parts[1], parts.slice(3)];
  let namespace;
  let path = rest;
  if (path[0] === "namespaces" && path.length > 2) {
    namespace = path[1];
    path = path.slice(2);
  }
  const [resource, name, subresource] = path;
  if (resource === undefined) {
    // Discovery (`/apis/GROUP/VERSION`): a non-resource URL, which every authenticated user may
    // read (the system:discovery ClusterRole); tests/e2e/rbac.test.js asks the real API server.
    return { nonResource: url.pathname, verb: method.toLowerCase() };
  }
  const watch = ["true", "1"].includes(url.searchParams.get("watch"));
  const verb = {
    GET: name ? "get" : watch ? "watch" : "list",
    POST: "create",
    PUT: "update",
    PATCH: "patch",
    DELETE: name ? "delete" : "deletecollection",
  }[method];
  return { group, resource: subresource ? `${resource}/${subresource}` : resource, verb, namespace, name };
}

/**
 * An API server that keeps what is written (by path), answers as Kubernetes does (404, 409
 * AlreadyExists, an apply creates), lists nothing, holds watches open, and records every request's
 * RBAC attributes.
 */
async function recordingServer({ served = [] } = {}) {
  const store = new Map();
  const seen = [];
  /** The writes that set owner references: their namespace and references. */
  const owning = [];
  let version = 10;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url, "http://localhost");
      const attributes = attributesOf(req.method, url);
      seen.push(attributes);
      const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
      if (body?.metadata?.ownerReferences && ["POST", "PUT", "PATCH"].includes(req.method)) {
        owning.push({ namespace: attributes.namespace, ownerReferences: body.metadata.ownerReferences });
      }
      const send = (status, obj) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(obj));
      const missing = () => send(404, { kind: "Status", reason: "NotFound", message: "not found" });
      const key = url.pathname.replace(/\/status$/, "");
      const stored = (obj) => {
        version += 1;
        const kept = { ...obj, metadata: { ...obj.metadata, uid: obj.metadata?.uid ?? `uid-${version}`, resourceVersion: String(version) } };
        store.set(key, kept);
        return kept;
      };
      if (attributes.nonResource) {
        const apiVersion = url.pathname.replace(/^\/apis?\//, "");
        const kind = Object.values(KINDS).find((k) => k.apiVersion === apiVersion && served.includes(apiVersion));
        return kind ? send(200, { kind: "APIResourceList", groupVersion: apiVersion, resources: [{ name: kind.plural, namespaced: true, kind: kind.kind }] }) : missing();
      }
      if (attributes.verb === "watch") {
        res.writeHead(200, { "content-type": "application/json" }).flushHeaders();
        return;
      }
      if (attributes.verb === "list") {
        return send(200, { kind: "List", metadata: { resourceVersion: String(version) }, items: [] });
      }
      if (req.method === "POST") {
        const path = `${url.pathname}/${body.metadata.name}`;
        if (store.has(path)) {
          return send(409, { kind: "Status", reason: "AlreadyExists", message: "exists" });
        }
        version += 1;
        const made = { ...body, metadata: { ...body.metadata, uid: `uid-${version}`, resourceVersion: String(version) } };
        store.set(path, made);
        return send(201, made);
      }
      const there = store.get(key);
      if (req.method === "GET") {
        return there ? send(200, there) : missing();
      }
      if (req.method === "DELETE") {
        return store.delete(key) ? send(200, { kind: "Status", status: "Success" }) : missing();
      }
      if (req.method === "PUT") {
        return there ? send(200, stored(body)) : missing();
      }
      const apply = req.headers["content-type"] === "application/apply-patch+yaml";
      if (!there && !apply) {
        return missing();
      }
      return send(200, stored({ ...there, ...body, metadata: { ...there?.metadata, ...body.metadata } }));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "c", server: url, skipTLSVerify: true }],
    users: [{ name: "u" }],
    contexts: [{ name: "x", cluster: "c", user: "u" }],
    currentContext: "x",
  });
  const close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  /** Puts an object where a create would. */
  const put = (kind, obj) => {
    const path = `/${KINDS[kind].apiVersion.includes("/") ? "apis" : "api"}/${KINDS[kind].apiVersion}/namespaces/${obj.metadata.namespace}/${KINDS[kind].plural}/${obj.metadata.name}`;
    store.set(path, obj);
  };
  return { kc, seen, owning, close, put };
}

/**
 * What the OwnerReferencesPermissionEnforcement admission plugin asks of a write that sets owner
 * references (a create, an adoption): update of each blocking owner's finalizers.
 */
function admissionOf(seen, owning) {
  const asked = [];
  for (const { namespace, ownerReferences } of owning) {
    for (const ref of ownerReferences) {
      if (ref.blockOwnerDeletion) {
        const group = ref.apiVersion.includes("/") ? ref.apiVersion.split("/")[0] : "";
        const plural = Object.values(KINDS).find((k) => k.apiVersion === ref.apiVersion && k.plural === `${ref.kind.toLowerCase()}s`)?.plural;
        assert.ok(plural, `the owner kind ${ref.kind} is one the adapter knows`);
        asked.push({ group, resource: `${plural}/finalizers`, verb: "update", namespace, name: ref.name });
      }
    }
  }
  return [...seen, ...asked];
}

/** Every rule of a rendered RBAC file: `{namespace (a Role's), rule}`. */
function rulesOf(path) {
  const docs = parseAllDocuments(readFileSync(new URL(`../../${path}`, import.meta.url), "utf8"))
    .map((d) => d.toJS())
    .filter((o) => o && (o.kind === "ClusterRole" || o.kind === "Role"));
  return docs.flatMap((role) => role.rules.map((rule) => ({ role: `${role.kind}/${role.metadata.name}`, namespace: role.kind === "Role" ? role.metadata.namespace : undefined, rule })));
}

/** Whether the rule grants the request, as RBAC decides (a rule with resourceNames grants only requests that name one). */
function grants({ namespace, rule }, r) {
  return (
    (namespace === undefined || namespace === r.namespace) &&
    rule.apiGroups.includes(r.group) &&
    rule.resources.includes(r.resource) &&
    rule.verbs.includes(r.verb) &&
    (!rule.resourceNames?.length || (r.name !== undefined && rule.resourceNames.includes(r.name)))
  );
}


const key = (r) => `${r.verb} ${r.group}/${r.resource}${r.name && r.resource === "leases" ? ` ${r.name}` : ""}`;

test("the rendered RBAC grants exactly what the controller's code sends (deploy/rbac.yaml, deploy/rbac-kueue.yaml, deploy/rbac-gang.yaml)", async (t) => {
  const api = await recordingServer({ served: [KINDS.VolcanoPodGroup.apiVersion, KINDS.SchedulerPluginsPodGroup.apiVersion] });
  // Closed whatever happens: a server left listening after a failed assertion keeps the test
  // process from ending (a second close is a no-op).
  t.after(() => api.close());
  const dir = mkdtempSync(join(tmpdir(), "elasticjob-rbac-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const kubeconfig = join(dir, "kubeconfig");
  writeFileSync(kubeconfig, api.kc.exportConfig());

  // 1. The controller itself, with Kueue, scheduler-plugins' gang and leader election
  // (deploy/controller.yaml's Lease): its caches list and watch, it takes the Lease (read, not
  // found, created), renews it, and releases it.
  const controller = await new Controller({
    kubeconfig,
    healthPort: 0,
    metricsPort: 0,
    host: "127.0.0.1",
    kueue: true,
    gangSchedulerName: "scheduler-plugins-scheduler",
    leaderElect: true,
    leaseName: LEASE_NAME,
    leaseNamespace: LEASE_NAMESPACE,
    leaseDurationSeconds: 3,
    renewDeadlineSeconds: 2,
    retryPeriodSeconds: 0.2,
    logger: quiet,
  }).start();
  await controller.ready;
  const started = Date.now();
  while (!api.seen.some((r) => r.resource === "leases" && r.verb === "update") && Date.now() - started < 10_000) {
    await sleep(50);
  }
  await controller.stop();
  const releases = api.seen.filter((r) => r.resource === "leases" && r.verb === "update").length;
  assert.ok(releases >= 2, "renewed and released");
  // Without --gang-scheduler-name, on a cluster that serves Volcano's PodGroups: asked once whether
  // it may list them, then watched (a job whose replicas say BatchScheduler: volcano).
  const volcano = await new Controller({ kubeconfig, healthPort: 0, metricsPort: 0, host: "127.0.0.1", logger: quiet }).start();
  await volcano.ready;
  await volcano.stop();
  for (const group of ["scheduling.x-k8s.io", "scheduling.volcano.sh"]) {
    assert.ok(api.seen.some((r) => r.group === group && r.resource === "podgroups" && r.verb === "watch"), `${group}'s PodGroups watched`);
  }

  // 2. Every action kind the core plans, each through its handler and the real adapter, with the
  // branches that call more: a service or Workload of that name there already (read, then applied
  // or replaced), a create that finds the object made.
  const adapter = new KubeAdapter(api.kc);
  await adapter.connect();
  t.after(() => adapter.close());
  const job = { ...fixtureJob(), metadata: { ...fixtureJob().metadata, name: "mnist", namespace: NS, uid: "u-1", resourceVersion: "7" } };
  const plan = { apiVersion: job.apiVersion, kind: "ScalePlan", metadata: { name: "mnist-plan", namespace: NS, uid: "u-2", resourceVersion: "8" } };
  api.put("ElasticJob", job);
  api.put("ScalePlan", plan);
  const { items } = render(job);
  const pod = items.find((o) => o.kind === "Pod");
  const service = items.find((o) => o.kind === "Service");
  const owner = pod.metadata.ownerReferences;
  const workload = { apiVersion: KINDS.Workload.apiVersion, kind: "Workload", metadata: { name: "job-mnist", namespace: NS, ownerReferences: owner }, spec: { queueName: "q", podSets: [] } };
  const podGroup = (kind) => ({ apiVersion: KINDS[kind].apiVersion, kind: "PodGroup", metadata: { name: "mnist", namespace: NS, ownerReferences: owner }, spec: { minMember: 3 } });
  const told = [];
  const emptyCache = { get: () => undefined };
  const pass = {
    key: `${NS}/mnist`,
    adapter,
    job,
    plans: [plan],
    pods: [pod],
    services: [service],
    caches: { jobs: emptyCache, plans: emptyCache, workloads: emptyCache },
    fresh: { job: undefined, plans: new Map() },
    done: { created: new Map(), deleted: new Set(), services: new Map(), deletedServices: new Set() },
    tell: (...event) => told.push(event),
  };
  const actions = {
    // Made, then made again as a restarted controller does: there already.
    createPod: [{ pod }, { pod }],
    // An orphan exactly like one the job makes: the job read again, then the pod patched.
    adoptPod: [{ name: pod.metadata.name, uid: "uid-orphan", owner: owner[0] }],
    // Made, then made again: there already, controlled by the job, applied over.
    createOrUpdateService: [{ service }, { service }],
    deletePod: [{ name: pod.metadata.name }],
    deleteService: [{ name: service.metadata.name }],
    setJobStatus: [{ status: { phase: "Running" } }],
    setScalePlanStatus: [{ name: plan.metadata.name, status: { phase: "Succeeded" } }],
    // Each gang scheduler's: made, then made again (read, the job controls it: updated whole at the resourceVersion read);
    // deleted once the job has finished (read, then deleted with its uid as a precondition).
    createOrUpdatePodGroup: ["SchedulerPluginsPodGroup", "VolcanoPodGroup"].flatMap((kind) => [{ podGroup: podGroup(kind) }, { podGroup: podGroup(kind) }]),
    deletePodGroup: ["SchedulerPluginsPodGroup", "VolcanoPodGroup"].map((kind) => ({ namespace: NS, name: "mnist", apiVersion: KINDS[kind].apiVersion })),
    // Made, then its spec replaced.
    createOrUpdateWorkload: [{ workload }, { workload }],
    setJobSuspend: [{ suspend: false }],
    setWorkloadStatus: [{ name: workload.metadata.name, conditions: [] }],
    // Read, then updated with a pod set's count lowered.
    setWorkloadCounts: [{ name: workload.metadata.name, counts: { worker: 1 } }],
    recordEvent: [{ type: "Normal", reason: "Created", message: "made" }],
    // Its TTL after finishing passed.
    deleteJob: [{ name: "mnist" }],
  };
  assert.deepEqual(Object.keys(HANDLERS).sort(), Object.keys(actions).sort(), "every action kind of handlers.js is driven here");
  for (const [kind, list] of Object.entries(actions)) {
    for (const a of list) {
      const expected = {};
      await HANDLERS[kind].perform(pass, { action: kind, ...a }, expected);
    }
  }
  // The events a pass tells: recorded, then counted into the one recorded (events.js).
  const recorder = new EventRecorder({ adapter, log: quiet });
  for (const [type, reason, message] of [...told, ...told]) {
    await recorder.record(job, type, reason, message);
  }
  // The reconciler's reads (reconciler.js): a job or plan again after its status write conflicts,
  // the priority class a queued job's Workload names (cluster-scoped).
  for (const [kind, namespace, name] of [["ElasticJob", NS, "mnist"], ["ScalePlan", NS, plan.metadata.name], ["PriorityClass", undefined, "high"], ["WorkloadPriorityClass", undefined, "high"]]) {
    await getOrGone(adapter, kind, namespace, name);
  }
  await api.close();

  const requests = admissionOf(api.seen.filter((r) => !r.nonResource), api.owning);
  assert.ok(api.seen.some((r) => r.nonResource === "/apis/scheduling.volcano.sh/v1beta1"), "Volcano's PodGroups discovered");
  const rules = [...rulesOf("deploy/rbac.yaml"), ...rulesOf("deploy/rbac-kueue.yaml"), ...rulesOf("deploy/rbac-gang.yaml")];
  const refused = [...new Set(requests.filter((r) => !rules.some((rule) => grants(rule, r))).map(key))].sort();
  assert.deepEqual(refused, [], "requests the controller sends that no rule grants");
  const unused = [];
  for (const rule of rules) {
    for (const group of rule.rule.apiGroups) {
      for (const resource of rule.rule.resources) {
        for (const verb of rule.rule.verbs) {
          const narrowed = { ...rule, rule: { ...rule.rule, apiGroups: [group], resources: [resource], verbs: [verb] } };
          if (!requests.some((r) => grants(narrowed, r))) {
            unused.push(`${rule.role}: ${verb} ${group}/${resource}${rule.rule.resourceNames ? ` ${rule.rule.resourceNames}` : ""}`);
          }
        }
      }
    }
  }
  assert.deepEqual(unused, [], "rules no request of the controller exercises");
  // The Lease alone: every other one of the cluster is out of reach but for a create.
  assert.ok(!rules.some((rule) => grants(rule, { group: "coordination.k8s.io", resource: "leases", verb: "update", namespace: "kube-system", name: "kube-scheduler" })));
});
