// The package's functions over JavaScript values (api.js): each writes its arguments as JSON text,
// calls the core, and reads the result back. Every type comes from the core's JSON Schemas
// (dist/types.d.ts); `text` holds the same functions over JSON text (dist/elasticjob_wasm.d.ts).
import type {
  Constants, Container, Conversion, ElasticJob, JobView, List, Object, Options, Plan, Pod, ReplicaType, ResourceFlavor, ScalePlan,
  PodGroup, PriorityClassRef, Problem, Service, SparseClusterSpec, SummaryRow, Validation, Workload,
} from "./dist/types.js";

export { ElasticJobError } from "./dist/elasticjob_wasm.js";
export * as text from "./text.js";

/** Observed pods: an array, or a `List` / `PodList` holding them in `items`. */
export type Pods = Pod[] | { items: Pod[] };

/** Observed services: an array, or a `List` / `ServiceList` holding them in `items`. */
export type Services = Service[] | { items: Service[] };

/** A job's scale plans: an array, or a `List` holding them in `items`. */
export type ScalePlans = ScalePlan[] | { items: ScalePlan[] };

/** Kueue's ResourceFlavors: an array, or a `List` holding them in `items`. */
export type ResourceFlavors = ResourceFlavor[] | { items: ResourceFlavor[] };

/**
 * What a host that runs with Kueue observed of it for one job, for `controllerPass`: the job's
 * Workload (`elasticjob-<job>`) as the cluster has it (absent when there is none yet), its later
 * Workload slices (`elasticjob-<job>.<n>`, made when it grows under Kueue's
 * ElasticJobsViaWorkloadSlices gate), the ResourceFlavors, and the value of the job's priority
 * class when it names one.
 */
export interface QueueState {
  workload?: Workload | null;
  slices?: Workload[] | null;
  resourceFlavors?: ResourceFlavors;
  priority?: number | null;
}

/**
 * Every object the job will have once `scalePlan` (by default its first plan) has run on an empty
 * cluster, as a Kubernetes `List` (the core's `render`). Throws an `ElasticJobError` when an
 * argument is malformed or invalid.
 */
export function render(job: ElasticJob, scalePlan?: ScalePlan | null, options?: Options | null): List;

/**
 * What `render` returns, as JSON text: for callers that write the objects out as they are (the
 * CLI's `-o json`), so that they are never built as JavaScript objects. Compact, or with `pretty`
 * as `JSON.stringify(list, null, 2)` writes it.
 */
export function renderJson(job: ElasticJob, scalePlan?: ScalePlan | null, options?: Options | null, pretty?: boolean): string;

/** The rows of `summary(render(job, scalePlan, options))`, without the objects being built. */
export function renderSummary(job: ElasticJob, scalePlan?: ScalePlan | null, options?: Options | null): SummaryRow[];

/** The object at `index` of `render(job, scalePlan, options).items`, without the others being built. */
export function renderItem(job: ElasticJob, index: number, scalePlan?: ScalePlan | null, options?: Options | null): Object;

/**
 * The ElasticJob a Kubeflow TFJob (`kubeflow.org/v1`) becomes, and a note `{path, message}` at
 * its path in the TFJob for each thing that has no equivalent or behaves differently (the core's
 * `convert::from_tf_job`). Throws an `ElasticJobError` with every problem at its path in the TFJob
 * when it does not convert.
 */
export function fromTFJob(tfJob: unknown): Conversion;

/** What `fromTFJob` returns, as JSON text; compact, or with `pretty` as `JSON.stringify(value, null, 2)` writes it. */
export function fromTFJobJson(tfJob: unknown, pretty?: boolean): string;

/** Whether `job` is a valid `ElasticJob`: `{valid: true}`, or `{valid: false, error}` with every problem. Never throws. */
export function validate(job: unknown): Validation;

/** Whether `scalePlan` is a valid `ScalePlan` on its own; paths start with `scalePlan`. Never throws. */
export function validateScalePlan(scalePlan: unknown): Validation;

/**
 * The `TF_CONFIG` string the pod of `replicaType` at rank `index` gets under `scalePlan` (by
 * default the job's first plan): exactly the env value (the core's `tf_config`).
 */
export function tfConfig(job: ElasticJob, replicaType: ReplicaType, index: number, scalePlan?: ScalePlan | null): string;

/** The first scale plan of a job (the core's `initial_scale_plan`). */
export function initialScalePlan(job: ElasticJob): ScalePlan;

/** One pass of the job controller at time `now` (an RFC 3339 string or a `Date`) (the core's `reconcile`). */
export function reconcile(job: ElasticJob, scalePlan: ScalePlan | null | undefined, pods: Pods, now: string | Date, options?: Options | null): Plan;

/** Creates, deletes and migrates the pods of one type to match the scale plan (the core's `reconcile_pods`). */
export function reconcilePods(job: ElasticJob, replicaType: ReplicaType, scalePlan: ScalePlan, pods: Pods, options?: Options | null): Plan;

/** Relaunches the failed pods of one type that the restart policy and budget allow (the core's `handle_fault_pods`). */
export function handleFaultPods(job: ElasticJob, replicaType: ReplicaType, pods: Pods, options?: Options | null): Plan;

/** Deletes every Running or Pending pod of one type (the core's `stop_running_pods`). */
export function stopRunningPods(job: ElasticJob, replicaType: ReplicaType, pods: Pods): Plan;

/** Counts one type's pods into the job status at time `now` (the core's `sync_job_state`). */
export function syncJobState(job: ElasticJob, replicaType: ReplicaType, pods: Pods, now: string | Date): Plan;

/**
 * One pass of the controller over one job at time `now` (the core's `controller_pass`): which of
 * the job's ScalePlans it takes up, which pods are the job's, the job's own pass and its services,
 * as a plan in phases. `job` is `null` when the job does not exist; `scalePlans` are the job's
 * plans, `pods` the pods with its name label, `services` the services with its name label. With
 * `queue` (a host that runs with Kueue), the core's `controller_pass_queued`: a job labelled
 * `kueue.x-k8s.io/queue-name` gets its Workload, waits suspended until Kueue admits it, runs on
 * what the admission gives, stops when evicted, and finishes its Workload; a job without the
 * label is planned as without `queue`. `podGroup` is the job's PodGroup as observed, for a job
 * with a gang scheduler (`options.gangSchedulerName`, or a replica's `BatchScheduler: volcano`):
 * the pass makes it before any pod and keeps it to the job's plan, and with Volcano makes no task
 * pod until the PodGroup has left `Pending`.
 */
export function controllerPass(
  job: ElasticJob | null | undefined,
  scalePlans: ScalePlans,
  pods: Pods,
  services: Services,
  now: string | Date,
  options?: Options | null,
  queue?: QueueState | null,
  podGroup?: PodGroup | null,
): Plan;

/**
 * The Kueue `Workload` (`kueue.x-k8s.io/v1beta2`) a job labelled `kueue.x-k8s.io/queue-name`
 * gets: one pod set a replica type, the master's first, each as the core renders its pods; `null`
 * for a job without the label. `priority` is the value of the job's priority class.
 */
export function workload(job: ElasticJob, options?: Options | null, priority?: number | null): Workload | null;

/**
 * The priority class whose value a queued job's Workload carries (its `kueue.x-k8s.io/priority-class`
 * label, else the first `priorityClassName` of its templates); `null` for a job without the queue
 * label or without a class. A host reads the class's `value` for `workload` and `controllerPass`.
 */
export function priorityClass(job: ElasticJob, options?: Options | null): PriorityClassRef | null;

/** The job with `spec.suspend: true` when it is queued and not suspended, else `null` (what the controller and the policy do at its creation). */
export function suspendWhenQueued(job: ElasticJob): ElasticJob | null;

/**
 * The job whose templates (the master's too) carry what the admission of `workload` adds: the
 * flavours' node labels and tolerations, the pod-set label, the admission checks' pod-set updates.
 */
export function admittedJob(job: ElasticJob, workload: Workload, resourceFlavors: ResourceFlavors, options?: Options | null): ElasticJob;

/**
 * The counts (pod set name to count) of a server-side dry run of an update of `workload` that asks
 * Kueue's webhook whether its manager runs with `ElasticJobsViaWorkloadSlices` (accepted: on;
 * refused as "field is immutable": off), or `null` when the Workload cannot tell (it holds no quota,
 * is finished, or has no pods).
 */
export function kueueGateProbe(workload: Workload): { [podSet: string]: number } | null;

/** One pass of the scale-plan controller; `job` is the plan's owner job, or `null` when it does not exist. */
export function reconcileScalePlan(scalePlan: ScalePlan, job: ElasticJob | null | undefined, now: string | Date): Plan;

/**
 * What the controller does with a job the core refused, whose status is `status`: its `Refused`
 * condition true with every problem of `errors` (an `ElasticJobError`'s), told in a Warning event
 * `InvalidJob`; a plan without phases when the condition says so already.
 */
export function refusedJob(status: ElasticJob["status"] | null | undefined, errors: Problem[], now: string | Date): Plan;

/** Sets `TF_CONFIG` on a container from a sparse cluster, replacing an existing one, and returns the container. */
export function insertTfConfigToEnv(container: Container, cluster: SparseClusterSpec, replicaType: ReplicaType, rank: number): Container;

/** One row per object of a rendered `List`: kind, name, replica type, rank, CPU and memory requests, `TF_CONFIG` task. */
export function summary(list: List): SummaryRow[];

/**
 * What `kubectl elasticjob status` shows of a job (the core's `view::job_view`): its phase and
 * conditions, per replica type the pods it wants and their counts by phase, and its scale plans
 * oldest first with what each changed.
 */
export function jobView(job: ElasticJob, scalePlans: ScalePlans, pods: Pods): JobView;

/** The names the operator shares with DLRover's master and its hosts: API group, version, kinds, label keys and values. */
export function constants(): Constants;

/** The job key (`namespace/name`) an object belongs to; `undefined` for an object of no job. */
export function jobKey(object: object): string | undefined;

/**
 * Whether the job controls `object` (its controller owner reference is the job): a host asks it of
 * the object in the way of a create (`409 AlreadyExists`) before it writes over it.
 */
export function jobControls(job: ElasticJob, object: object): boolean;
