// One reconcile pass of one job, the path of a job key from the work queue to the API calls:
// 1. wait until the caches show the job's last pass's writes (expectations.js);
// 2. observe: the job from its cache, its plans, pods, services and PodGroup in the core's store
//    (fed by the caches' events, each read once), with what this pass already wrote laid over;
// 3. decide: the core's one pass (`controllerPass`) gives the plan, in phases, each with its mode,
//    each action with its cause and, where it is worth telling, its event;
// 4. carry it out (executor.js), each action by the handler of its kind (handlers.js);
// 5. tell the events of what was done, one event a reason.
// A status write that conflicts reads the object again and goes back to 2. Nothing here decides
// what a job needs; it decides only how to talk to the cluster safely.
import { ElasticJobError, jobKey, text } from "../node.js";
import { EventRecorder, rfc3339 } from "./events.js";
import { carryOutPhases } from "./executor.js";
import { Expectations } from "./expectations.js";
import { ApiError } from "./adapter.js";
import { HANDLERS, StatusConflict, UNKNOWN, WriteConflict, getOrGone, withCounts } from "./handlers.js";
import { jsonOf } from "./texts.js";

const MAX_CONFLICT_RETRIES = 3;
/** The kinds whose objects the core's store keeps (a pass is given its job's JSON text). */
const STORED = new Set(["ScalePlan", "Pod", "Service", "Workload", "ResourceFlavor", "PodGroup"]);
/** How long a priority class's value read from the API server is used before it is read again. */
const PRIORITY_TTL_MS = 30_000;
/**
 * How long the answer of Kueue's webhook on ElasticJobsViaWorkloadSlices is used before it is asked
 * again: the gate changes only with a restart of Kueue's manager.
 */
const SLICES_GATE_TTL_MS = 10 * 60_000;
/** What Kueue's webhook answers an update of a pod set it holds immutable (`apivalidation.FieldImmutableErrorMsg`). */
const IMMUTABLE = "field is immutable";
/** The longest delay a timer takes (Node fires a longer one at once): a later moment is asked again then. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The job key (`namespace/name`) an object belongs to, by the core's rule (`undefined`: none). */
export const jobKeyOf = (obj) => jobKey(obj);

export class Reconciler {
  /**
   * @param {object} options
   * @param {import("./adapter.js").KubeAdapter} options.adapter
   * @param {{jobs: import("./informer.js").Informer, plans: import("./informer.js").Informer, pods: import("./informer.js").Informer, services: import("./informer.js").Informer}} options.caches
   * @param {string} [options.masterImage]
   * @param {string} [options.masterServiceAccount] the ServiceAccount of the job master's pod when its template names none
   * @param {boolean} [options.allowUserMasters] a dlrover-master template of the job's own runs as that account too (the core's `allowUserMasters`)
   * @param {import("./log.js").Logger} options.log
   * @param {import("./metrics.js").Metrics} options.metrics
   * @param {() => boolean} options.isStopping
   * @param {() => Date} [options.clock]
   * @param {number} [options.expectationTimeoutMs] how long a pass waits for the caches to show the last one's writes
   * @param {number} [options.maxPodCreates] pods one pass creates at most (the core leaves the rest for the next passes)
   * @param {boolean} [options.kueue] the passes of a controller that runs with Kueue (the core's queued pass, over the Workloads and ResourceFlavors in the store)
   * @param {boolean} [options.kueueWorkloadSlices] Kueue is said to run with ElasticJobsViaWorkloadSlices: once its webhook confirms it (`probeSlicesGate`), a scale-down lowers the Workload's counts and a plan beyond the admission grows it by a slice (the core's `kueueWorkloadSlices`)
   * @param {string} [options.gangSchedulerName] the gang scheduler of every job (`volcano`, else scheduler-plugins' of that name): the core gives each job its PodGroup
   */
  constructor({ adapter, caches, masterImage, masterServiceAccount, allowUserMasters, log, metrics, isStopping, clock = () => new Date(), expectationTimeoutMs, maxPodCreates, kueue = false, kueueWorkloadSlices = false, gangSchedulerName }) {
    Object.assign(this, { adapter, caches, log, metrics, isStopping, clock, kueue });
    /** `kind/name` of a priority class -> {value, until}: its value as last read. */
    this.priorities = new Map();
    const options = { masterImage, maxPodCreates, masterServiceAccount, allowUserMasters: allowUserMasters || undefined, gangSchedulerName };
    this.options = Object.values(options).some((v) => v !== undefined) ? JSON.stringify(options) : undefined;
    /**
     * Kueue's ElasticJobsViaWorkloadSlices, when the controller is told it is on: `on` as its
     * webhook last answered (undefined: not asked yet, or no answer), until `until`. The core gets
     * `kueueWorkloadSlices` only while the webhook says on: with the gate off, Kueue would take a
     * slice for a Workload of its whole size beside the old one.
     */
    this.slicesGate = kueue && kueueWorkloadSlices ? { on: undefined, until: 0, options: JSON.stringify({ ...options, kueueWorkloadSlices: true }) } : undefined;
    this.expectations = new Expectations({ caches, timeoutMs: expectationTimeoutMs });
    /** job key -> the last refusal logged, so a refused job is not reported at every resync */
    this.refusals = new Map();
    this.events = new EventRecorder({ adapter, log, metrics, clock });
    /** The jobs' plans, pods and services, each read by the core once as it changes. */
    this.store = new text.ObjectStore();
  }

  /** An event of a cache, whatever job its object is of: the core's store keeps the plans, pods, services and PodGroups (and Kueue's). */
  keep(kind, type, obj) {
    if (!STORED.has(kind)) {
      return;
    }
    if (type === "delete") {
      this.store.remove(kind, obj.metadata.namespace ?? "", obj.metadata.name);
    } else {
      this.store.put(kind, JSON.stringify(obj));
    }
  }

  /** An event of a cache: the object of a job was added, changed or deleted. */
  observed(key, kind, type, obj) {
    this.expectations.observed(key, kind, type, obj);
  }

  /**
   * One pass of the job `key`. Resolves to `{result, requeueAfterMs?}`: `success`, `deferred` (the
   * caches lag this controller's writes; try again later), `invalid` (the core refuses the job or a
   * plan: nothing to retry until they change) or `stopped` (the controller is stopping). Rejects
   * when an API call failed (the caller retries with backoff).
   */
  async reconcile(key) {
    const wait = this.expectations.pending(key, (unseen) =>
      this.log.warn("the caches have not shown this controller's last writes in time; planning anyway", { job: key, unseen }),
    );
    if (wait > 0) {
      return { result: "deferred", requeueAfterMs: wait };
    }
    const pass = this.pass(key);
    for (let attempt = 1; ; attempt += 1) {
      pass.observe();
      let plan;
      try {
        const queue = this.kueue ? await this.queueOf(pass) : undefined;
        await this.probeSlicesGate(pass);
        plan = this.decide(pass, queue);
      } catch (e) {
        if (e instanceof ElasticJobError) {
          await this.refused(pass, e);
          return { result: "invalid" };
        }
        throw e;
      }
      this.refusals.delete(key);
      if (plan.phases.length === 0) {
        if (!pass.job) {
          this.forget(key);
        }
        return this.succeeded(plan);
      }
      const { outcome, skipped, failure } = await this.carryOut(pass, plan);
      if (outcome === "stopped") {
        return { result: "stopped" };
      }
      if (outcome === "gone") {
        return { result: "success" };
      }
      if (outcome === "done") {
        if (plan.left === undefined) {
          return this.succeeded(plan);
        }
        // The rest of a large plan, in the next pass, once the caches show this one's writes.
        this.log.info("the pass reached its cap of pod creations; the rest comes in the next pass", { job: key, left: plan.left });
        return { result: "success", requeueAfterMs: 0 };
      }
      if (failure instanceof WriteConflict) {
        this.log.info("write conflict: the job is tried again with backoff, from what the caches then show", { job: key, kind: failure.kind, name: failure.name });
        throw failure;
      }
      if (!(failure instanceof StatusConflict) || attempt > MAX_CONFLICT_RETRIES) {
        this.log.warn("an action was refused: the rest of the plan waits for the retry", { job: key, skipped, error: failure });
        throw failure;
      }
      this.log.info("status conflict: reading it again and planning again", { job: key, kind: failure.kind, name: failure.name, attempt });
      const current = await getOrGone(this.adapter, failure.kind, failure.namespace, failure.name);
      if (!current) {
        return { result: "success" };
      }
      if (failure.kind === "ElasticJob") {
        pass.fresh.job = current;
      } else {
        pass.fresh.plans.set(failure.name, current);
      }
    }
  }

  /**
   * A pass whose plan is done: the job comes back at the moment the plan's `requeueAt` names (its
   * deadline or TTL, which no watch event brings), as the Job controller's `AddAfter`.
   */
  succeeded({ requeueAt }) {
    if (requeueAt === undefined) {
      return { result: "success" };
    }
    return { result: "success", requeueAfterMs: Math.min(MAX_TIMER_MS, Math.max(0, Date.parse(requeueAt) - this.clock().getTime())) };
  }

  /** A pass over the job `key`: what it observes, and what it has written so far. */
  pass(key) {
    const { adapter, caches, expectations, clock } = this;
    const pass = {
      key,
      adapter,
      caches,
      expectations,
      // Objects read again after a conflict, and what this pass made and deleted, over the caches.
      fresh: { job: undefined, plans: new Map() },
      done: { created: new Map(), deleted: new Set(), services: new Map(), deletedServices: new Set() },
      observe() {
        // The jobs' cache is keyed by job too: the job itself, with no key to take apart.
        pass.job = pass.fresh.job ?? caches.jobs.ofJob(key)[0];
        pass.plans = overlay(caches.plans.ofJob(key), pass.fresh.plans, new Set(), true);
        pass.pods = overlay(caches.pods.ofJob(key), pass.done.created, pass.done.deleted);
        pass.services = overlay(caches.services.ofJob(key), pass.done.services, pass.done.deletedServices);
        pass.now = rfc3339(clock());
      },
    };
    return pass;
  }

  /**
   * The plan of this pass: the core's one pass over the job (its JSON text, written once per
   * version of it) and its plans, pods and services (in the core's store), with what this pass
   * already wrote laid over.
   */
  decide(pass, queue) {
    const job = pass.job ? jsonOf(pass.job) : "null";
    const options = this.slicesGate?.on ? this.slicesGate.options : this.options;
    return JSON.parse(this.store.controllerPass(pass.key, job, overlayOf(pass), JSON.stringify(pass.now), options, queue));
  }

  /**
   * Asks Kueue's webhook whether its manager runs with ElasticJobsViaWorkloadSlices, when the
   * controller is told it does and the last answer is older than SLICES_GATE_TTL_MS: a server-side
   * dry run of an update lowering one count of a Workload of this job that holds quota (the core's
   * `kueueGateProbe`). Accepted: on. Refused as immutable: off, and the core plans as without the
   * option. Any other answer (no such Workload yet, a conflict, the API server away) leaves the
   * last answer as it is, asked again at the next pass.
   */
  async probeSlicesGate(pass) {
    const gate = this.slicesGate;
    if (!gate || gate.until > Date.now()) {
      return;
    }
    for (const workload of this.caches.workloads?.ofJob(pass.key) ?? []) {
      const counts = JSON.parse(text.kueueGateProbe(JSON.stringify(workload)));
      if (!counts) {
        continue;
      }
      let on;
      try {
        await this.adapter.replace("Workload", withCounts(workload, counts), { dryRun: true });
        on = true;
      } catch (e) {
        if (!(e instanceof ApiError) || !e.message.includes(IMMUTABLE)) {
          this.log.warn("Kueue's webhook was not asked about ElasticJobsViaWorkloadSlices; asked again at the next pass", { job: pass.key, workload: workload.metadata.name, error: e });
          return;
        }
        on = false;
      }
      if (on !== gate.on) {
        const fields = { workload: workload.metadata.name, counts };
        if (on) {
          this.log.info("Kueue's webhook accepts a lower count of an admitted Workload (a dry run): ElasticJobsViaWorkloadSlices is on; opted-in jobs grow by Workload slices and give quota back", fields);
        } else {
          this.log.warn("--kueue-workload-slices is set, but Kueue's webhook refuses a lower count of an admitted Workload (a dry run) as immutable: ElasticJobsViaWorkloadSlices is off, so plans beyond the admission are cut and Workloads keep their counts, as without the option", fields);
        }
      }
      Object.assign(gate, { on, until: Date.now() + SLICES_GATE_TTL_MS });
      return;
    }
  }

  /**
   * The Kueue state of a pass beside the store's Workloads and ResourceFlavors (JSON text): the
   * value of the priority class the core names for the job's Workload, read from the API server
   * (and kept a while), when it names one.
   */
  async queueOf(pass) {
    const ref = pass.job ? JSON.parse(text.priorityClass(jsonOf(pass.job), this.options)) : null;
    if (!ref) {
      return "{}";
    }
    const kind = ref.kind === "WorkloadPriorityClass" ? "WorkloadPriorityClass" : "PriorityClass";
    const id = `${kind}/${ref.name}`;
    let known = this.priorities.get(id);
    if (!known || known.until < Date.now()) {
      const priorityClass = await getOrGone(this.adapter, kind, undefined, ref.name);
      if (!priorityClass) {
        this.log.warn("the job's priority class does not exist: its Workload is made without a priority, which the API server refuses", { job: pass.key, kind, name: ref.name });
      }
      known = { value: priorityClass?.value, until: Date.now() + PRIORITY_TTL_MS };
      this.priorities.set(id, known);
    }
    return JSON.stringify({ priority: known.value ?? null });
  }

  /** Carries the plan out phase by phase, each action by its kind's handler; then tells what was done. */
  async carryOut(pass, plan) {
    // What this pass tells on the job: one event a reason, counted.
    const told = new Map();
    const tell = (type, reason, message) => {
      const entry = told.get(reason) ?? { type, messages: [] };
      entry.messages.push(message);
      told.set(reason, entry);
    };
    pass.tell = tell;
    const phases = plan.phases.map(({ mode, actions }) => ({ mode, steps: actions.map((a) => this.step(pass, a, tell)) }));
    try {
      return await carryOutPhases(phases, { stopping: this.isStopping });
    } finally {
      if (pass.job && !this.isStopping()) {
        for (const [reason, { type, messages }] of told) {
          const more = messages.length > 1 ? ` (and ${messages.length - 1} more of this pass)` : "";
          await this.events.record(pass.fresh.job ?? pass.job, type, reason, `${messages[0]}${more}`, messages.length);
        }
      }
    }
  }

  /** One action as the executor carries it out: its handler's calls, with the log line, the metric and the events. */
  step(pass, action, tell) {
    const handler = HANDLERS[action.action] ?? UNKNOWN;
    const { key } = pass;
    let expected;
    return {
      expect: () => {
        expected = handler.expect(pass, action);
      },
      unexpect: () => {
        if (expected) {
          this.expectations.drop(key, expected);
        }
      },
      ends: (outcome) => outcome === "gone" && handler.endsWhenGone === true,
      perform: async () => {
        let outcome;
        try {
          outcome = await handler.perform(pass, action, expected ?? {});
        } catch (e) {
          const conflict = e instanceof StatusConflict || e instanceof WriteConflict;
          this.metrics.actions.inc({ action: action.action, outcome: conflict ? "conflict" : "error" });
          if (conflict) {
            // Another writer's change since the caches were read (a scheduler's status on a
            // PodGroup, say): routine under optimistic concurrency, the job planned again from
            // fresher caches. Said at info, not as a refusal.
            this.log.info(`${action.action} conflict`, { job: key, conflict: action.action, ...handler.describe(action), error: e });
          } else {
            this.log.warn(`${action.action} refused`, { job: key, refused: action.action, ...handler.describe(action), error: e });
          }
          if (!conflict && !e.aborted && !this.isStopping()) {
            tell("Warning", handler.refused, `${action.action} ${handler.describe(action).name ?? ""}: ${e.message}`);
          }
          throw e;
        }
        this.metrics.actions.inc({ action: action.action, outcome });
        this.log.info(action.action, { job: key, action: action.action, ...handler.describe(action), outcome });
        if (outcome === "done" && action.event) {
          tell(action.event.type, action.event.reason, action.event.message);
        }
        return outcome;
      },
    };
  }

  /** Forgets what the controller knew of a job (it is gone, or another instance leads). */
  forget(key) {
    this.expectations.forget(key);
    this.refusals.delete(key);
  }

  /**
   * The core refused the job or a plan: logged once per problem, and the core's plan for a refused
   * job carried out (its `Refused` condition true with every problem, told in a Warning event
   * `InvalidJob`; nothing when the condition says so already). Nothing of the job is made.
   */
  async refused(pass, e) {
    this.metrics.errors.inc({ kind: "invalid" });
    const problems = e.errors.map((p) => `${p.path}: ${p.message}`).join("; ");
    if (this.refusals.get(pass.key) !== problems) {
      this.refusals.set(pass.key, problems);
      this.log.error("the job cannot be planned; it waits until it is changed", { job: pass.key, error: e });
    }
    if (pass.job) {
      const plan = JSON.parse(text.refusedJob(JSON.stringify(pass.job.status ?? null), JSON.stringify(e.errors), JSON.stringify(pass.now)));
      if (plan.phases.length > 0) {
        const { failure } = await this.carryOut(pass, plan);
        if (failure) {
          // Retried with backoff, the status read again.
          throw failure;
        }
      }
    }
  }
}

/**
 * What this pass's own writes changed, which the caches may not show yet, as the core's store lays
 * it over its objects for one pass (the JSON text of `{plans, pods, deletedPods, services,
 * deletedServices}`); `undefined` when nothing.
 */
function overlayOf({ fresh, done }) {
  if (fresh.plans.size + done.created.size + done.deleted.size + done.services.size + done.deletedServices.size === 0) {
    return undefined;
  }
  return JSON.stringify({
    plans: [...fresh.plans.values()],
    pods: [...done.created.values()],
    deletedPods: [...done.deleted],
    services: [...done.services.values()],
    deletedServices: [...done.deletedServices],
  });
}

/**
 * The cached objects of a job without those this pass deleted, and those it made or read again
 * (by name): a made one only where the cache lacks it, one read again (`replace`) in the place of
 * the cached one. The same rule as the core's store lays the overlay over its objects.
 */
function overlay(cached, made, deleted, replace = false) {
  const objects = cached.filter((o) => !deleted.has(o.metadata.name)).map((o) => (replace ? made.get(o.metadata.name) ?? o : o));
  const names = new Set(objects.map((o) => o.metadata.name));
  for (const [name, obj] of made) {
    if (!names.has(name)) {
      objects.push(obj);
    }
  }
  return objects;
}
