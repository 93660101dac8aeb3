// The public functions and the error class of the package, as the generated glue exports them
// (not its loaders). node.js and browser.js load the WebAssembly core, then re-export this.
export {
  ElasticJobError,
  handleFaultPods,
  initialScalePlan,
  insertTfConfigToEnv,
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
