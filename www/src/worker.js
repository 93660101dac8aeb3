// The page's Web Worker (two run this module: one analyses the text and answers about its objects,
// the other runs the scale simulator, which for a large job takes seconds): everything that is
// more than drawing. It reads the editor's text (YAML or JSON, an ElasticJob, or a Kubeflow TFJob
// it converts, and optionally a ScalePlan), validates it with the elasticjob package's browser build, maps every problem to its
// place in the text, and answers with the rows of the object table. The objects stay here: a
// pod's manifest and TF_CONFIG are sent when it is selected, all of them only for the download.
// The 1,000-worker job renders 22.8 MB of JSON, which is why the table comes from
// `renderSummary`, whose objects never leave the wasm module.
import * as core from "elasticjob";
import { LineCounter, parseAllDocuments, parse as parseYaml, stringify } from "yaml";
import { locate } from "./locate.js";

const MASTER_TYPE = core.constants().masterType;

/** The last valid job `analyse` read, for the requests about it that follow. */
let current = null;

const ops = { analyse, detail, simulate, download };

self.onmessage = ({ data }) => {
  const { id, op, args } = data;
  let reply;
  try {
    reply = { id, result: ops[op](args) };
  } catch (e) {
    reply = { id, error: { name: e.name, code: e.code, message: e.message, errors: e.errors } };
  }
  self.postMessage(reply);
};
// The names the page shares with the core (replica types among them), once, before any answer.
self.postMessage({ ready: true, constants: core.constants() });

/** Reads `text`: every problem with its place, and the object table when the job is valid. */
function analyse({ text }) {
  const started = performance.now();
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const problems = [];
  const at = (from, to) => ({ from, to, ...lines.linePos(from) });
  const list = Array.isArray(docs) ? docs : [docs];
  for (const doc of list) {
    for (const e of doc.errors) {
      problems.push({ severity: "error", code: "syntax", path: "", message: e.message, ...at(e.pos[0], e.pos[1]) });
    }
    for (const w of doc.warnings) {
      problems.push({ severity: "warning", code: "syntax", path: "", message: w.message, ...at(w.pos[0], w.pos[1]) });
    }
  }
  if (problems.some((p) => p.severity === "error")) {
    return finish({ problems, columns: null }, started);
  }
  const { jobDoc, planDoc, extras } = split(list);
  for (const extra of extras) {
    const [from] = extra.range;
    problems.push({
      severity: "warning",
      code: "ignored",
      path: "",
      message: "only one ElasticJob and one ScalePlan are read; this document is ignored",
      ...at(from, from),
    });
  }
  if (!jobDoc) {
    problems.push({ severity: "error", code: "required", path: "", message: "no ElasticJob: type or paste one, drop a file, or pick an example" });
    return finish({ problems, columns: null }, started);
  }
  let job = jobDoc.toJS({ maxAliasCount: 100 });
  const plan = planDoc ? planDoc.toJS({ maxAliasCount: 100 }) : null;
  const place = (path, code) => {
    const [doc, local] = path.startsWith("scalePlan.") && planDoc ? [planDoc, path.slice("scalePlan.".length)] : [jobDoc, path];
    const { from, to, depth } = locate(doc, text, local, { key: code === "unknown_field" });
    // A path that is not in the text at all (`task.type`) gets no marker, unless the field is
    // missing: then its document's first line is marked.
    return depth > 0 || code === "required" ? at(from, to) : {};
  };
  const report = (error) => {
    for (const p of error.errors) {
      problems.push({ severity: "error", code: p.code, path: p.path, message: p.message, ...place(p.path, p.code) });
    }
  };
  // A Kubeflow TFJob (as the core tells one: its tf_job code) is shown as the ElasticJob it becomes
  // (the core's fromTFJob): its notes are warnings at their places in the TFJob, and what follows
  // reads the ElasticJob.
  let converted = null;
  let checked = core.validate(job);
  if (isTfJob(checked)) {
    try {
      const conversion = core.fromTFJob(job);
      job = conversion.elasticJob;
      converted = { yaml: stringify(job), notes: conversion.notes.length };
      for (const n of conversion.notes) {
        problems.push({ severity: "warning", code: "converted", path: n.path, message: n.message, ...place(n.path, "converted") });
      }
    } catch (e) {
      if (!(e instanceof core.ElasticJobError)) {
        throw e;
      }
      report(e);
      return finish({ problems, columns: null }, started);
    }
    checked = core.validate(job);
  }
  if (!checked.valid) {
    report(checked.error);
  }
  if (plan) {
    const planChecked = core.validateScalePlan(plan);
    if (!planChecked.valid) {
      report(planChecked.error);
    }
  }
  // On a problem, what follows (detail, simulate, download) keeps using the last valid job, which
  // the page keeps showing.
  if (problems.some((p) => p.severity === "error")) {
    return finish({ problems, columns: null }, started);
  }
  let rows;
  try {
    rows = core.renderSummary(job, plan);
  } catch (e) {
    if (!(e instanceof core.ElasticJobError)) {
      throw e;
    }
    report(e);
    return finish({ problems, columns: null }, started);
  }
  const initial = core.initialScalePlan(job);
  const base = plan ?? initial;
  current = { text, job, plan, base, observed: null, observedServices: null, services: null, podGroup: null };
  return finish(
    {
      problems,
      columns: columns(rows),
      name: job.metadata.name,
      strategy: job.spec.distributionStrategy,
      hasPlan: plan !== null,
      types: tasks(job, base, initial),
      basePlan: stringify(base),
      queue: queued(job),
      converted,
    },
    started,
  );
}

/**
 * For a job Kueue queues (labelled `kueue.x-k8s.io/queue-name`): the Workload the controller would
 * create for it (the core's `workload`), as YAML, and the priority class whose value the cluster
 * gives (the page cannot read it, so a Workload that names one is shown without its `priority`);
 * `null` for any other job.
 */
function queued(job) {
  const workload = core.workload(job);
  if (workload === null) {
    return null;
  }
  return {
    workload: stringify(workload),
    queueName: workload.spec.queueName,
    priorityClass: core.priorityClass(job)?.name ?? null,
    slices: optsIntoSlices(job),
  };
}

/** Whether a job opts in to Kueue's Workload slices (Kueue's own annotation, as the core reads it). */
function optsIntoSlices(job) {
  return job.metadata.annotations?.["kueue.x-k8s.io/elastic-job"] === "true";
}

/**
 * A queued job as Kueue admitted it, for the scale simulator: its Workload (the core's
 * `workload`) with quota reserved and admitted at the counts it asks, every resource on one
 * ResourceFlavor with no node labels, and the job as the core runs it under that admission (its
 * `admittedJob`), the pass that of a controller run with --kueue-workload-slices. `null` for a
 * job Kueue does not queue.
 */
function admittedState(job) {
  const workload = core.workload(job);
  if (workload === null) {
    return null;
  }
  const flavor = { apiVersion: "kueue.x-k8s.io/v1beta2", kind: "ResourceFlavor", metadata: { name: "preview-flavor" }, spec: {} };
  const at = "1970-01-01T00:00:00Z";
  workload.status = {
    conditions: [
      { type: "QuotaReserved", status: "True", reason: "QuotaReserved", message: "Quota reserved (the preview takes the job as admitted)", lastTransitionTime: at },
      { type: "Admitted", status: "True", reason: "Admitted", message: "The workload is admitted", lastTransitionTime: at },
    ],
    admission: {
      clusterQueue: "preview",
      podSetAssignments: workload.spec.podSets.map((set) => {
        const requests = new Set(set.template.spec.containers.flatMap((c) => Object.keys(c.resources?.requests ?? {})));
        return { name: set.name, count: set.count, flavors: Object.fromEntries([...requests].map((r) => [r, flavor.metadata.name])) };
      }),
    },
  };
  const resourceFlavors = [flavor];
  return {
    job: core.admittedJob(job, workload, resourceFlavors),
    queue: { workload, resourceFlavors },
    // The core grows only a job that opts in; any other it cuts to the admission, as without.
    options: { kueueWorkloadSlices: true },
  };
}

/**
 * The table's rows as one array per column: a structured clone of 2,106 row objects costs the
 * page's main thread several milliseconds to read, seven arrays a fraction of one.
 */
function columns(rows) {
  const keys = ["kind", "name", "replicaType", "rank", "cpu", "memory", "port"];
  return Object.fromEntries(keys.map((k) => [k, rows.map((r) => r[k] ?? null)]));
}

/** Whether the core's validation (`core.validate`) took the value for a Kubeflow TFJob (its tf_job code). */
function isTfJob(checked) {
  return !checked.valid && checked.error.errors.some((p) => p.code === "tf_job");
}

/** The ElasticJob of a document's value: itself, or the one a Kubeflow TFJob becomes. */
function elasticJobOf(value) {
  return isTfJob(core.validate(value)) ? core.fromTFJob(value).elasticJob : value;
}

/** The ElasticJob and the ScalePlan among parsed documents, and the others. */
function split(docs) {
  const filled = docs.filter((d) => d.contents !== null);
  const planDoc = filled.find((d) => d.get("kind") === "ScalePlan") ?? null;
  const jobDoc = filled.find((d) => d !== planDoc) ?? null;
  return { jobDoc, planDoc, extras: filled.filter((d) => d !== planDoc && d !== jobDoc) };
}

/**
 * The job of `text`, a text whose analysis was valid: the current one, or read again (the page
 * runs simulations in a second worker, which is sent only the text).
 */
function jobOf(text) {
  if (current?.text !== text) {
    const { jobDoc, planDoc } = split(parseAllDocuments(text, { uniqueKeys: true }));
    const job = elasticJobOf(jobDoc.toJS({ maxAliasCount: 100 }));
    const plan = planDoc ? planDoc.toJS({ maxAliasCount: 100 }) : null;
    current = { text, job, plan, base: plan ?? core.initialScalePlan(job), observed: null, observedServices: null, services: null, podGroup: null };
  }
  return current;
}

/** The simulator's starting values: each task type's replicas and resource in the current plan. */
function tasks(job, base, initial) {
  const specs = (plan) => plan?.spec?.replicaResourceSpecs ?? {};
  return Object.keys(job.spec.replicaSpecs ?? {})
    .map((t) => t.toLowerCase())
    .filter((t) => t !== MASTER_TYPE)
    .map((type) => {
      const spec = specs(base)[type] ?? specs(initial)[type] ?? {};
      return { type, replicas: spec.replicas ?? 0, cpu: String(spec.resource?.cpu ?? ""), memory: String(spec.resource?.memory ?? "") };
    });
}

/**
 * A plan's pod and service actions as the lines of a diff, in the plan's order: `create` and
 * `delete`, and `update` for a service the job already has; and the job's own deletion (its TTL).
 */
function diffEntries(actions, services, jobName) {
  return actions.flatMap((a) => {
    switch (a.action) {
      case "createPod":
        return [{ op: "create", kind: "Pod", name: a.pod.metadata.name, reason: a.reason }];
      case "createOrUpdateService": {
        const name = a.service.metadata.name;
        return [{ op: services.has(name) ? "update" : "create", kind: "Service", name, reason: a.reason }];
      }
      case "deletePod":
        return [{ op: "delete", kind: "Pod", name: a.name, reason: a.reason }];
      case "deleteService":
        return [{ op: "delete", kind: "Service", name: a.name, reason: a.reason }];
      case "deleteJob":
        return [{ op: "delete", kind: "ElasticJob", name: a.name, reason: a.reason }];
      case "createOrUpdatePodGroup":
        // The job's PodGroup is observed (as rendered): the plan changes what its gang needs.
        return [{ op: "update", kind: "PodGroup", name: a.podGroup.metadata.name, reason: a.reason }];
      case "deletePodGroup":
        return [{ op: "delete", kind: "PodGroup", name: a.name, reason: a.reason }];
      case "createOrUpdateWorkload":
        // A queued job's new Workload slice: the plan beyond the admission waits for Kueue.
        return [{ op: "create", kind: "Workload", name: a.workload.metadata.name, reason: a.reason }];
      case "recordEvent":
        // What the plan cannot have yet under Kueue: cut to the admission, or waiting for quota.
        return ["ScalePlanExceedsAdmission", "WaitingForQuota"].includes(a.reason) ? [{ op: "wait", kind: "ElasticJob", name: jobName, reason: a.message }] : [];
      default:
        return [];
    }
  });
}

function finish(result, started) {
  result.problems.sort((a, b) => (a.from ?? Infinity) - (b.from ?? Infinity));
  result.ms = performance.now() - started;
  return result;
}

/** The object at `index` of the rendered list: its manifest, and a pod's TF_CONFIG. */
function detail({ index }) {
  const { job, plan } = need();
  const object = core.renderItem(job, index, plan);
  const env = object.kind === "Pod" ? (object.spec.containers[0]?.env ?? []) : [];
  const value = (name) => env.find((e) => e.name === name)?.value ?? null;
  const tfConfig = value("TF_CONFIG");
  const rendezvous = env.find((e) => e.name === "RDZV_ENDPOINT");
  const from = rendezvous?.valueFrom?.fieldRef?.fieldPath;
  return {
    index,
    kind: object.kind,
    name: object.metadata.name,
    manifest: stringify(object, { lineWidth: 0 }),
    tfConfig: tfConfig === null ? null : JSON.parse(tfConfig),
    rendezvous: rendezvous ? (rendezvous.value ?? (from ? `set from the pod's ${from}` : JSON.stringify(rendezvous.valueFrom))) : null,
  };
}

/**
 * What the controller would do to the objects of the job in `text` to reach a target scale plan:
 * the core's one pass (`controllerPass`) over the job as it runs, its pods (as rendered) taken as
 * Running and its services as rendered, with the target plan taken up as its current plan.
 * `target` is `{values: {type: {replicas, cpu, memory}}}` (applied to the job's plan) or
 * `{text}` (a ScalePlan written in YAML or JSON).
 */
function simulate({ text, target, withPass = false }) {
  const state = jobOf(text);
  let plan;
  if (target.text !== undefined) {
    try {
      plan = parseYaml(target.text, { prettyErrors: false, uniqueKeys: true });
    } catch (e) {
      return { problems: [{ path: "scalePlan", code: "syntax", message: e.message }], entries: [] };
    }
  } else {
    plan = structuredClone(state.base);
    plan.spec ??= {};
    plan.spec.replicaResourceSpecs ??= {};
    for (const [type, v] of Object.entries(target.values)) {
      const resource = {};
      if (v.cpu !== "") resource.cpu = v.cpu;
      if (v.memory !== "") resource.memory = v.memory;
      plan.spec.replicaResourceSpecs[type] = { replicas: Number(v.replicas), resource };
    }
    // With another PS count the plan's PS addresses no longer hold: without them, the core gives
    // the PS the addresses of their ranks.
    if (target.values.ps !== undefined && Number(target.values.ps.replicas) !== plan.spec.psHosts?.length) {
      delete plan.spec.psHosts;
    }
  }
  const checked = core.validateScalePlan(plan);
  if (!checked.valid) {
    return { problems: checked.error.errors, entries: [], plan: stringify(plan) };
  }
  if (!state.observed) {
    // A queued job runs once Kueue admits it: the pass is the one of a controller run with
    // --kueue and --kueue-workload-slices.
    state.admitted = admittedState(state.job);
    const { items } = core.render(state.admitted?.job ?? state.job, state.plan);
    state.observed = items.filter((o) => o.kind === "Pod").map((pod) => ({ ...pod, status: { phase: "Running" } }));
    state.observedServices = items.filter((o) => o.kind === "Service");
    state.services = new Set(state.observedServices.map((o) => o.metadata.name));
    // A gang-scheduled job's PodGroup, as its scheduler has admitted it: the job runs.
    const group = items.find((o) => o.kind === "PodGroup");
    state.podGroup = group ? { ...group, status: { phase: "Running" } } : null;
  }
  // The job runs and carries the target plan out: the pass the controller would make.
  const { labels, scaleTypeAuto } = core.constants();
  const name = plan.metadata?.name ?? `${state.job.metadata.name}-preview`;
  const taken = {
    ...plan,
    metadata: { ...plan.metadata, name, labels: { ...plan.metadata?.labels, [labels.scaleType]: scaleTypeAuto } },
    spec: { ...plan.spec, ownerJob: state.job.metadata.name },
    status: { phase: "Pending" },
  };
  const running = { ...(state.admitted?.job ?? state.job), status: { phase: "Running", scalePlan: name } };
  const input = { job: running, scalePlans: [taken], pods: state.observed, services: state.observedServices, now: "1970-01-01T00:00:00Z" };
  if (state.podGroup) {
    input.podGroup = state.podGroup;
  }
  if (state.admitted) {
    input.options = state.admitted.options;
    input.queue = state.admitted.queue;
  }
  let pass;
  try {
    pass = core.controllerPass(input.job, input.scalePlans, input.pods, input.services, input.now, input.options ?? null, input.queue ?? null, input.podGroup);
  } catch (e) {
    if (!(e instanceof core.ElasticJobError)) {
      throw e;
    }
    return { problems: e.errors, entries: [], plan: stringify(plan) };
  }
  const entries = diffEntries(pass.phases.flatMap((p) => p.actions), state.services, state.job.metadata.name);
  // `withPass`: the pass's input and its whole plan too, to compare with the other hosts'.
  return { problems: [], entries, plan: stringify(plan), ...(withPass ? { pass: { input, plan: pass } } : {}) };
}

/** Every object as one YAML `List`, for `kubectl apply -f -`. */
function download() {
  const { job, plan } = need();
  return { name: job.metadata.name, text: stringify(core.render(job, plan), { lineWidth: 0 }) };
}

function need() {
  if (!current) {
    throw new Error("no valid job yet");
  }
  return current;
}
