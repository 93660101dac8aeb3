// The types of the package entry (both node.js and browser.js): the functions and the error class
// as the generated glue declares them, and every type of the core, generated from its JSON Schemas.
export {
  ElasticJobError,
  constants,
  controllerPass,
  handleFaultPods,
  initialScalePlan,
  insertTfConfigToEnv,
  jobKey,
  jobView,
  reconcile,
  reconcilePods,
  reconcileScalePlan,
  render,
  renderItem,
  renderJson,
  renderSummary,
  stopRunningPods,
  summary,
  syncJobState,
  tfConfig,
  validate,
  validateScalePlan,
} from "./dist/elasticjob_wasm.js";
export type { Pods, ScalePlans, Services } from "./dist/elasticjob_wasm.js";
export type * from "./dist/types.js";
