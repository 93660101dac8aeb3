// The package's functions over JavaScript values: each writes its arguments as JSON text
// (json.js: `JSON.stringify`, refusing what JSON cannot hold at its path), calls the core's
// function of the same name over text (text.js), and reads the result with `JSON.parse`. V8 writes
// and reads JSON natively, far faster than the core could walk the objects property by property.
// node.js and browser.js load the WebAssembly core, then re-export this.
import { ElasticJobError } from "./dist/elasticjob_wasm.js";
import { optionalJson as opt, toJson as json } from "./json.js";
import * as text from "./text.js";

export { ElasticJobError, text };

const { parse } = JSON;

export function render(job, scalePlan, options) {
  return parse(text.render(json(job, ""), opt(scalePlan, "scalePlan"), opt(options, "options")));
}

export function renderJson(job, scalePlan, options, pretty) {
  return text.render(json(job, ""), opt(scalePlan, "scalePlan"), opt(options, "options"), Boolean(pretty));
}

export function renderSummary(job, scalePlan, options) {
  return parse(text.renderSummary(json(job, ""), opt(scalePlan, "scalePlan"), opt(options, "options")));
}

export function renderItem(job, index, scalePlan, options) {
  return parse(text.renderItem(json(job, ""), json(index, "index"), opt(scalePlan, "scalePlan"), opt(options, "options")));
}

export function validate(job) {
  return validation(() => text.validate(json(job, "")));
}

export function validateScalePlan(scalePlan) {
  return validation(() => text.validateScalePlan(json(scalePlan, "scalePlan")));
}

/** A validation never throws: a value JSON cannot hold is an invalid input too. */
function validation(run) {
  try {
    return parse(run());
  } catch (e) {
    if (!(e instanceof ElasticJobError)) {
      throw e;
    }
    return { valid: false, error: { code: e.code, message: e.message, errors: e.errors } };
  }
}

export function fromTFJob(tfJob) {
  return parse(text.fromTFJob(json(tfJob, "")));
}

export function fromTFJobJson(tfJob, pretty) {
  return text.fromTFJob(json(tfJob, ""), Boolean(pretty));
}

export function tfConfig(job, replicaType, index, scalePlan) {
  return text.tfConfig(json(job, ""), json(replicaType, "replicaType"), json(index, "index"), opt(scalePlan, "scalePlan"));
}

export function initialScalePlan(job) {
  return parse(text.initialScalePlan(json(job, "")));
}

export function reconcile(job, scalePlan, pods, now, options) {
  return parse(text.reconcile(json(job, ""), opt(scalePlan, "scalePlan"), json(pods, "pods"), json(now, "now"), opt(options, "options")));
}

export function reconcilePods(job, replicaType, scalePlan, pods, options) {
  return parse(
    text.reconcilePods(json(job, ""), json(replicaType, "replicaType"), json(scalePlan, "scalePlan"), json(pods, "pods"), opt(options, "options")),
  );
}

export function handleFaultPods(job, replicaType, pods, options) {
  return parse(text.handleFaultPods(json(job, ""), json(replicaType, "replicaType"), json(pods, "pods"), opt(options, "options")));
}

export function stopRunningPods(job, replicaType, pods) {
  return parse(text.stopRunningPods(json(job, ""), json(replicaType, "replicaType"), json(pods, "pods")));
}

export function syncJobState(job, replicaType, pods, now) {
  return parse(text.syncJobState(json(job, ""), json(replicaType, "replicaType"), json(pods, "pods"), json(now, "now")));
}

export function controllerPass(job, scalePlans, pods, services, now, options, queue, podGroup) {
  return parse(
    text.controllerPass(
      json(job, ""),
      json(scalePlans, "scalePlans"),
      json(pods, "pods"),
      json(services, "services"),
      json(now, "now"),
      opt(options, "options"),
      opt(queue, "queue"),
      opt(podGroup, "podGroup"),
    ),
  );
}

export function workload(job, options, priority) {
  return parse(text.workload(json(job, ""), opt(options, "options"), opt(priority, "priority")));
}

export function priorityClass(job, options) {
  return parse(text.priorityClass(json(job, ""), opt(options, "options")));
}

export function suspendWhenQueued(job) {
  return parse(text.suspendWhenQueued(json(job, "")));
}

export function admittedJob(job, workload, resourceFlavors, options) {
  return parse(text.admittedJob(json(job, ""), json(workload, "workload"), json(resourceFlavors ?? [], "resourceFlavors"), opt(options, "options")));
}

export function kueueGateProbe(workload) {
  return parse(text.kueueGateProbe(json(workload, "workload")));
}

export function reconcileScalePlan(scalePlan, job, now) {
  return parse(text.reconcileScalePlan(json(scalePlan, "scalePlan"), json(job, ""), json(now, "now")));
}

export function refusedJob(status, errors, now) {
  return parse(text.refusedJob(json(status ?? null, "status"), json(errors, "errors"), json(now, "now")));
}

export function insertTfConfigToEnv(container, cluster, replicaType, rank) {
  return parse(text.insertTfConfigToEnv(json(container, "container"), json(cluster, "cluster"), json(replicaType, "replicaType"), json(rank, "rank")));
}

export function summary(list) {
  return parse(text.summary(json(list, "list")));
}

export function jobView(job, scalePlans, pods) {
  return parse(text.jobView(json(job, ""), json(scalePlans, "scalePlans"), json(pods, "pods")));
}

let constantsValue;
export function constants() {
  constantsValue ??= text.constants();
  return parse(constantsValue);
}

// The fields the core reads for a job key, as paths: only those cross into WebAssembly, not a watch
// event's whole pod.
let keyFields;
export function jobKey(object) {
  keyFields ??= parse(text.jobKeyFields());
  const fields = {};
  for (const path of keyFields) {
    let at = object;
    for (const key of path) {
      at = at !== null && typeof at === "object" ? at[key] : undefined;
    }
    if (at !== undefined) {
      let into = fields;
      for (const key of path.slice(0, -1)) {
        into = into[key] ??= {};
      }
      into[path[path.length - 1]] = at;
    }
  }
  return text.jobKey(json(fields, "object"));
}

export function jobControls(job, object) {
  return text.jobControls(json(job, ""), json(object, "object"));
}
