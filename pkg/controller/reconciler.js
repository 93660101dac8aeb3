// One reconcile pass of one job: read the observed state from the caches, let the core decide the
// pass (`controllerPass`: which ScalePlan is taken up, which pods are the job's, what to create,
// delete and write, which of its services to make again or delete), carry the plan out phase by
// phase. Nothing here decides what a job needs; it
// decides only how to talk to the cluster safely:
// - a create that finds the object exists, and a delete that finds it gone, are successes;
// - the plan's phases run in order (services, pod creations, deletions, status writes): creations
//   in slow-start batches, the rest at once; a failure ends the pass, so a plan is marked done only
//   once its pods are made;
// - a status is written with the resourceVersion read; a conflict reads the object again and
//   plans again, with what this pass already did;
// - after writing, the next pass of the job waits until the caches have seen the writes
//   (expectations.js).
import { ElasticJobError, constants, jobKey, text } from "../node.js";
import { isAlreadyExists, isConflict, isNotFound } from "./adapter.js";
import { EventRecorder, rfc3339 } from "./events.js";
import { Incomplete, PHASE_MODES, carryOutPhases } from "./executor.js";
import { Expectations } from "./expectations.js";
import { jsonOf } from "./texts.js";

const { labels: LABELS } = constants();
/** The reason of the Warning event of a refused action, as Kubernetes' controllers name theirs. */
const REFUSED_REASONS = {
  createPod: "FailedCreate",
  createOrUpdateService: "FailedCreate",
  deletePod: "FailedDelete",
  deleteService: "FailedDelete",
  setJobStatus: "FailedUpdateStatus",
  setScalePlanStatus: "FailedUpdateStatus",
};
const MAX_CONFLICT_RETRIES = 3;
/** The kinds the core's store keeps; a pass is given its job's JSON text. */
const STORED = new Set(["ScalePlan", "Pod", "Service"]);

/** The job key (`namespace/name`) an object belongs to, by the core's rule (`undefined`: none). */
export const jobKeyOf = (obj) => jobKey(obj);

/** The controller is stopping: the pass ends before its next action. */
export class Stopped extends Error {
  constructor() {
    super("the controller is stopping");
    this.name = "Stopped";
  }
}

/** A status write found the object changed since it was read. */
class StatusConflict extends Error {
  constructor(kind, name, cause) {
    super(cause.message);
    this.name = "StatusConflict";
    Object.assign(this, { kind, name, status: cause.status, reason: cause.reason });
  }
}


export class Reconciler {
  /**
   * @param {object} options
   * @param {import("./adapter.js").KubeAdapter} options.adapter
   * @param {{jobs: import("./informer.js").Informer, plans: import("./informer.js").Informer, pods: import("./informer.js").Informer, services: import("./informer.js").Informer}} options.caches
   * @param {string} [options.masterImage]
   * @param {import("./log.js").Logger} options.log
   * @param {import("./metrics.js").Metrics} options.metrics
   * @param {() => boolean} options.isStopping
   * @param {() => Date} [options.clock]
   * @param {number} [options.expectationTimeoutMs] how long a pass waits for the caches to show the last one's writes
   * @param {number} [options.maxPodCreates] pods one pass creates at most (the rest in the next passes)
   */
  constructor({ adapter, caches, masterImage, log, metrics, isStopping, clock = () => new Date(), expectationTimeoutMs, maxPodCreates }) {
    Object.assign(this, { adapter, caches, log, metrics, isStopping, clock, maxPodCreates });
    this.options = masterImage ? JSON.stringify({ masterImage }) : undefined;
    this.expectations = new Expectations({ caches, timeoutMs: expectationTimeoutMs });
    /** job key -> the last refusal logged, so a refused job is not reported at every resync */
    this.refusals = new Map();
    this.events = new EventRecorder({ adapter, log, metrics, clock });
    /** The jobs' plans, pods and services, each read by the core once as it changes (the caches' events feed it). */
    this.store = new text.ObjectStore();
  }

  /** An event of a cache, whatever job its object is of: the core's store keeps the plans, pods and services. */
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

  /**
   * One pass of the job `namespace/name`. Resolves to `{result, requeueAfterMs?}`: `success`,
   * `deferred` (the caches lag this controller's writes; try again later) or `invalid` (the core
   * refuses the job or a plan: nothing to retry until they change). Rejects when an API call
   * failed (the caller retries with backoff) or with Stopped.
   */
  async reconcile(key) {
    const wait = this.expectations.pending(key, (unseen) =>
      this.log.warn("the caches have not shown this controller's last writes in time; planning anyway", { job: key, unseen }),
    );
    if (wait > 0) {
      return { result: "deferred", requeueAfterMs: wait };
    }
    // Objects read again after a conflict, and what this pass did, over the caches.
    const fresh = { job: undefined, plans: new Map() };
    const done = { created: new Map(), deleted: new Set(), services: new Map(), deletedServices: new Set() };
    for (let attempt = 1; ; attempt += 1) {
      const state = this.observe(key, fresh, done);
      let plan;
      try {
        plan = this.decide(state);
      } catch (e) {
        if (e instanceof ElasticJobError) {
          await this.refused(key, state, e);
          return { result: "invalid" };
        }
        throw e;
      }
      this.refusals.delete(key);
      if (plan.phases.length === 0) {
        if (!state.job) {
          this.forget(key);
        }
        return { result: "success" };
      }
      try {
        await this.carryOut(key, state, plan, fresh, done);
        return { result: "success" };
      } catch (thrown) {
        const e = thrown instanceof Incomplete && thrown.cause ? thrown.cause : thrown;
        if (thrown instanceof Incomplete && thrown.why !== "failed") {
          if (thrown.why === "capped") {
            // The rest of a large plan, in the next pass, once the caches show this one's writes.
            this.log.info("the pass reached its cap of pod creations; the rest comes in the next pass", { job: key, left: thrown.skipped });
            return { result: "success", requeueAfterMs: 0 };
          }
          return { result: "success" };
        }
        if (thrown instanceof Incomplete && !(e instanceof StatusConflict)) {
          this.log.warn("an action was refused: the rest of the plan waits for the retry", { job: key, skipped: thrown.skipped, error: e });
        }
        if (!(e instanceof StatusConflict) || attempt > MAX_CONFLICT_RETRIES) {
          throw e;
        }
        this.log.info("status conflict: reading it again and planning again", { job: key, kind: e.kind, name: e.name, attempt });
        try {
          const current = await this.adapter.get(e.kind, state.namespace, e.name);
          if (e.kind === "ElasticJob") {
            fresh.job = current;
          } else {
            fresh.plans.set(e.name, current);
          }
        } catch (readError) {
          if (isNotFound(readError)) {
            return { result: "success" };
          }
          throw readError;
        }
      }
    }
  }

  /** The job, its scale plans, its pods and its services, from the caches with `fresh` and `done` laid over. */
  observe(key, fresh, done) {
    const slash = key.indexOf("/");
    const namespace = key.slice(0, slash);
    const name = key.slice(slash + 1);
    const job = fresh.job ?? this.caches.jobs.get(namespace, name);
    const plans = this.caches.plans.ofJob(key).map((p) => fresh.plans.get(p.metadata.name) ?? p);
    for (const [planName, plan] of fresh.plans) {
      if (!plans.some((p) => p.metadata.name === planName)) {
        plans.push(plan);
      }
    }
    const pods = overlay(this.caches.pods.ofJob(key), done.created, done.deleted);
    const services = overlay(this.caches.services.ofJob(key), done.services, done.deletedServices);
    return { key, namespace, name, job, plans, pods, services, fresh, done, now: rfc3339(this.clock()) };
  }

  /**
   * The plan of this pass: the core's one pass over the job, its plans, its pods and its services,
   * handed over as the JSON text each object was given once (texts.js).
   */
  decide(state) {
    const job = state.job ? jsonOf(state.job) : "null";
    return JSON.parse(this.store.controllerPass(state.key, job, overlayOf(state.fresh, state.done), JSON.stringify(state.now), this.options));
  }

  /** An event of a cache: the object of a job was added, changed or deleted. */
  observed(key, kind, type, obj) {
    this.expectations.observed(key, kind, type, obj);
  }

  /**
   * Carries the plan out phase by phase (executor.js): the services, then the pod creations, in
   * slow-start batches; then the deletions and the status writes, each phase at once.
   */
  async carryOut(key, state, plan, fresh, done) {
    const phases = plan.phases.map(({ phase, actions }) => ({ mode: MODES[phase], actions }));
    // What this pass tells on the job: one event a reason, counted.
    const told = new Map();
    const tell = (type, reason, message) => {
      const entry = told.get(reason) ?? { type, messages: [] };
      entry.messages.push(message);
      told.set(reason, entry);
    };
    try {
      await carryOutPhases(phases, {
        expect: (action) => this.expect(state, action),
        perform: async (action, expected) => {
          let outcome;
          try {
            outcome = await this.carry(state, action, expected, fresh, done);
          } catch (e) {
            const conflict = e instanceof StatusConflict;
            this.metrics.actions.inc({ action: action.action, outcome: conflict ? "conflict" : "error" });
            this.log.warn(`${action.action} refused`, { job: key, refused: action.action, ...describe(action), error: e });
            if (!conflict && !(e.name === "AbortError" || this.isStopping())) {
              tell("Warning", REFUSED_REASONS[action.action], `${action.action} ${describe(action).name ?? ""}: ${e.message}`);
            }
            throw e;
          }
          this.metrics.actions.inc({ action: action.action, outcome });
          this.log.info(action.action, { job: key, action: action.action, ...describe(action), outcome });
          if (outcome === "done") {
            this.taken(state, action, tell);
          }
          return outcome;
        },
        unexpect: (action, expected) => {
          if (expected) {
            this.expectations.drop(state.key, expected);
          }
        },
        isPodCreate: (action) => action.action === "createPod",
        // A service is there for the pods its selector picks (Kubernetes' rule, not the core's).
        serves: (action, podCreate) => action.action === "createOrUpdateService" && selects(action.service, podCreate.pod),
        // The job or plan was deleted meanwhile: the rest of this plan is for an object that is no more.
        endsPass: (outcome, action) => outcome === "gone" && (action.action === "setJobStatus" || action.action === "setScalePlanStatus"),
        beforeBatch: () => {
          if (this.isStopping()) {
            throw new Stopped();
          }
        },
        maxPodCreates: this.maxPodCreates,
      });
    } finally {
      if (state.job && !this.isStopping()) {
        for (const [reason, { type, messages }] of told) {
          const more = messages.length > 1 ? ` (and ${messages.length - 1} more of this pass)` : "";
          await this.events.record(fresh.job ?? state.job, type, reason, `${messages[0]}${more}`, messages.length);
        }
      }
    }
  }

  /** What a carried-out action tells on the job: a plan taken up, a pod relaunched. */
  taken(state, action, tell) {
    const job = state.job;
    if (action.action === "setJobStatus" && action.status.scalePlan && action.status.scalePlan !== job?.status?.scalePlan) {
      tell("Normal", "ScalePlanTakenUp", `took up scale plan ${action.status.scalePlan}`);
    }
    if (action.action === "createPod") {
      // A relaunch: a pod for a rank whose pod of that type failed (the core's labels).
      const labels = action.pod.metadata.labels ?? {};
      const failed = state.pods.some(
        (p) =>
          p.status?.phase === "Failed" &&
          p.metadata.labels?.[LABELS.replicaType] === labels[LABELS.replicaType] &&
          p.metadata.labels?.[LABELS.rankIndex] === labels[LABELS.rankIndex],
      );
      if (failed) {
        tell("Normal", "Relaunched", action.reason ?? `relaunched as ${action.pod.metadata.name}`);
      }
    }
  }

  /** The expectation of an action, raised before its phase starts (undefined: nothing to wait for). */
  expect(state, action) {
    switch (action.action) {
      case "createPod":
        return this.expectations.presence(state.key, "Pod", action.pod.metadata.name, true);
      case "createOrUpdateService":
        return this.expectations.presence(state.key, "Service", action.service.metadata.name, true);
      case "deletePod": {
        const uid = state.pods.find((p) => p.metadata.name === action.name)?.metadata?.uid;
        return this.expectations.presence(state.key, "Pod", action.name, false, uid);
      }
      case "deleteService": {
        const uid = state.services.find((s) => s.metadata.name === action.name)?.metadata?.uid;
        return this.expectations.presence(state.key, "Service", action.name, false, uid);
      }
      case "setJobStatus":
        return this.expectNewer(state, "ElasticJob", state.job);
      case "setScalePlanStatus": {
        const plan = state.plans.find((p) => p.metadata.name === action.name);
        return plan ? this.expectNewer(state, "ScalePlan", plan) : undefined;
      }
      default:
        return undefined;
    }
  }

  /** Expects the object at a resourceVersion newer than the one read and the one cached. */
  expectNewer(state, kind, obj) {
    const cache = kind === "ElasticJob" ? this.caches.jobs : this.caches.plans;
    const cached = cache.get(state.namespace, obj.metadata.name);
    const stale = [obj.metadata.resourceVersion, cached?.metadata?.resourceVersion].filter(Boolean);
    return this.expectations.newer(state.key, kind, obj.metadata.name, stale);
  }

  /**
   * Carries out one action (its expectation raised); resolves to its outcome: done, exists (create)
   * or gone (delete, status). A failure rejects; the executor lowers the expectation.
   */
  async carry(state, action, expected, fresh, done) {
    switch (action.action) {
      case "createPod": {
        const name = action.pod.metadata.name;
        try {
          const created = await this.adapter.create("Pod", action.pod);
          expected.uid = created.metadata.uid;
          done.created.set(name, created);
          return "done";
        } catch (e) {
          if (!isAlreadyExists(e)) {
            throw e;
          }
          done.created.set(name, action.pod);
          return "exists";
        }
      }
      case "createOrUpdateService": {
        // A create, which costs the API server a fifth of an apply (no managed fields to merge);
        // only a service that is there already is applied over.
        let made;
        try {
          made = await this.adapter.create("Service", action.service);
        } catch (e) {
          if (!isAlreadyExists(e)) {
            throw e;
          }
          // The caches hold only services with the job's label: one of that name that another
          // object controls is not the job's to overwrite (as the core never touches one it sees).
          const { namespace, name } = action.service.metadata;
          // The core says whether the job controls it (as it never touches a service it sees that
          // the job does not control).
          const there = await this.adapter.get("Service", namespace ?? state.namespace, name);
          if (!text.jobControls(jsonOf(state.job), JSON.stringify(there))) {
            throw new Error(`service ${name} exists and this job does not control it: it is left as it is`);
          }
          made = await this.adapter.apply("Service", action.service);
        }
        expected.uid = made?.metadata?.uid;
        done.services.set(action.service.metadata.name, made?.metadata ? made : action.service);
        done.deletedServices.delete(action.service.metadata.name);
        return "done";
      }
      case "deletePod": {
        const namespace = action.namespace ?? state.namespace;
        let outcome = "done";
        try {
          await this.adapter.delete("Pod", namespace, action.name, { gracePeriodSeconds: 0, uid: expected.uid });
        } catch (e) {
          // Gone, or replaced by another pod of the same name (the uid precondition failed).
          if (!isNotFound(e) && !isConflict(e)) {
            throw e;
          }
          outcome = "gone";
        }
        done.deleted.add(action.name);
        done.created.delete(action.name);
        return outcome;
      }
      case "deleteService": {
        let outcome = "done";
        try {
          await this.adapter.delete("Service", action.namespace ?? state.namespace, action.name, {});
        } catch (e) {
          if (!isNotFound(e)) {
            throw e;
          }
          outcome = "gone";
        }
        done.deletedServices.add(action.name);
        done.services.delete(action.name);
        return outcome;
      }
      case "setJobStatus":
        return this.writeStatus("ElasticJob", state.job, action.status, fresh);
      case "setScalePlanStatus": {
        const plan = state.plans.find((p) => p.metadata.name === action.name);
        if (!plan) {
          return "gone";
        }
        return this.writeStatus("ScalePlan", plan, action.status, fresh);
      }
      default:
        throw new Error(`the core planned an action this controller does not know: ${action.action}`);
    }
  }

  async writeStatus(kind, obj, status, fresh) {
    let written;
    try {
      written = await this.adapter.replaceStatus(kind, { ...obj, status });
    } catch (e) {
      if (isNotFound(e)) {
        return "gone";
      }
      if (isConflict(e)) {
        throw new StatusConflict(kind, obj.metadata.name, e);
      }
      throw e;
    }
    if (kind === "ElasticJob") {
      fresh.job = written;
    } else {
      fresh.plans.set(obj.metadata.name, written);
    }
    return "done";
  }

  /** Forgets what the controller knew of a job (it is gone, or another instance leads). */
  forget(key) {
    this.expectations.forget(key);
    this.refusals.delete(key);
  }

  /** The core refused the job or a plan: logged, and told on the job as a Warning event, once per problem. */
  async refused(key, state, e) {
    this.metrics.errors.inc({ kind: "invalid" });
    const problems = e.errors.map((p) => `${p.path}: ${p.message}`).join("; ");
    if (this.refusals.get(key) === problems) {
      return;
    }
    this.refusals.set(key, problems);
    this.log.error("the job cannot be planned; it waits until it is changed", { job: key, error: e });
    if (!state.job) {
      return;
    }
    await this.events.record(state.job, "Warning", "InvalidJob", `cannot be planned: ${problems}`);
  }
}

/** How each phase of the core's plan is carried out: creations in slow-start batches, the rest at once. */
const MODES = {
  services: PHASE_MODES.slowStart,
  createPods: PHASE_MODES.slowStart,
  deletions: PHASE_MODES.parallel,
  status: PHASE_MODES.parallel,
};


/**
 * What this pass's own writes changed, which the caches may not show yet, as the core's store lays
 * it over its objects for one pass (the JSON text of `{plans, pods, deletedPods, services,
 * deletedServices}`); `undefined` when nothing.
 */
function overlayOf(fresh, done) {
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

/** The cached objects of a job without those this pass deleted, and those it made that the cache lacks (by name). */
function overlay(cached, made, deleted) {
  const objects = cached.filter((o) => !deleted.has(o.metadata.name));
  const names = new Set(objects.map((o) => o.metadata.name));
  for (const [name, obj] of made) {
    if (!names.has(name)) {
      objects.push(obj);
    }
  }
  return objects;
}

/** Whether the service's selector picks the pod. */
function selects(service, pod) {
  const selector = Object.entries(service.spec?.selector ?? {});
  const labels = pod.metadata.labels ?? {};
  return selector.length > 0 && selector.every(([k, v]) => labels[k] === v);
}

/** What a log line says of an action besides its kind. */
function describe(action) {
  switch (action.action) {
    case "createPod":
      return { name: action.pod.metadata.name, reason: action.reason };
    case "createOrUpdateService":
      return { name: action.service.metadata.name, reason: action.reason };
    case "deletePod":
    case "deleteService":
      return { name: action.name, reason: action.reason };
    case "setJobStatus":
      return { phase: action.status.phase, scalePlan: action.status.scalePlan };
    case "setScalePlanStatus":
      return { name: action.name, phase: action.status.phase };
    default:
      return {};
  }
}
