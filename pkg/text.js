// The package's functions over JSON text (`import { text } from "elasticjob"`): every argument is
// the JSON text of a value and every result is JSON text (`tfConfig`: the TF_CONFIG value
// itself), exactly what the object functions pass to the core and get back. For hosts that hold
// text already: a controller that keeps each cached object's text, a tool that reads files. The
// WebAssembly core must be loaded first (the package entry does that).
export {
  admittedJob,
  constants,
  controllerPass,
  fromTFJob,
  handleFaultPods,
  initialScalePlan,
  insertTfConfigToEnv,
  jobControls,
  jobKey,
  jobKeyFields,
  jobView,
  kueueGateProbe,
  ObjectStore,
  priorityClass,
  reconcile,
  reconcilePods,
  reconcileScalePlan,
  refusedJob,
  render,
  renderItem,
  renderSummary,
  stopRunningPods,
  summary,
  suspendWhenQueued,
  syncJobState,
  tfConfig,
  validate,
  validateScalePlan,
  workload,
} from "./dist/elasticjob_wasm.js";
