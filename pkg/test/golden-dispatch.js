// The golden-case runner of the core (tests/common/mod.rs, `run_case`) in JavaScript, over the
// package's API: `input.op` names the operation, the other fields of `input` are its arguments.
// The result is pretty JSON with a final newline: what the operation returns, or
// `{"error": {code, message, errors}}`. Loaded by the Node test and, as is, by the browser test.

/** Runs one case with `api` (the package's exports); returns the JSON text. */
export function runCase(api, input) {
  let result;
  try {
    result = dispatch(api, input);
  } catch (e) {
    if (!(e instanceof api.ElasticJobError)) {
      throw e;
    }
    result = { error: { code: e.code, message: e.message, errors: e.errors } };
  }
  return `${JSON.stringify(result, null, 2)}\n`;
}

function dispatch(api, input) {
  const job = input.job ?? null;
  const pods = input.pods ?? [];
  const now = input.now ?? "2026-01-01T00:00:00Z";
  switch (input.op) {
    case "render":
      return api.render(job, input.scalePlan, input.options);
    case "initialScalePlan":
      return api.initialScalePlan(job);
    case "fromTFJob":
      return api.fromTFJob(input.tfJob ?? null);
    case "validate":
      return answer(api.validate(job));
    case "validateScalePlan":
      return answer(api.validateScalePlan(input.scalePlan));
    case "tfConfig":
      return api.tfConfig(job, input.replicaType, input.index, input.scalePlan);
    case "reconcile":
      return api.reconcile(job, input.scalePlan, pods, now, input.options);
    case "reconcilePods":
      return api.reconcilePods(job, input.replicaType, input.scalePlan, pods, input.options);
    case "handleFaultPods":
      return api.handleFaultPods(job, input.replicaType, pods, input.options);
    case "stopRunningPods":
      return api.stopRunningPods(job, input.replicaType, pods);
    case "syncJobState":
      return api.syncJobState(job, input.replicaType, pods, now);
    case "reconcileScalePlan":
      return api.reconcileScalePlan(input.scalePlan, input.job, now);
    case "controllerPass":
      return api.controllerPass(input.job ?? null, input.scalePlans ?? [], pods, input.services ?? [], now, input.options, input.queue, input.podGroup);
    case "workload":
      return api.workload(job, input.options, input.priority);
    case "suspendWhenQueued":
      return api.suspendWhenQueued(job);
    case "admittedJob":
      return api.admittedJob(job, input.workload ?? null, input.resourceFlavors ?? [], input.options);
    default:
      throw new Error(`unknown op ${input.op}`);
  }
}

/** `validate` answers `{valid: true}` or `{valid: false, error}`; the golden file holds `{valid: true}` or `{error}`. */
function answer(validation) {
  return validation.valid ? validation : { error: validation.error };
}
