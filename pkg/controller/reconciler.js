// One reconcile pass of one job: read the observed state from the caches, let the core plan, carry
// the plan out. Nothing here decides what a job needs; it decides only how to talk to the cluster
// safely:
// - which ScalePlan to hand the scale-plan controller (`reconcileScalePlan`): the job's plans
//   labelled `scale-type: auto` one at a time, oldest first, and a new one only once the plan the
//   job carries out (its `status.scalePlan`) has finished, so no plan is skipped;
// - the pods given to the core are the job's by label (`elasticjob.dlrover/name`, set on every
//   pod the core makes, the job's name) and not another job's by owner
//   reference (an earlier job of the same name whose pods the garbage collector has not yet
//   removed);
// - a create that finds the object exists, and a delete that finds it gone, are successes;
// - each task pod's service is carried out before the pods of the plan: the core plans a service
//   only with its pod, so a controller killed between a pod and its service would leave the pod
//   without an address forever, while a service without its pod is made whole by the next pass
//   (which plans the pod and its service again);
// - a status is written with the resourceVersion read; a conflict reads the object again and
//   plans again, with what this pass already did;
// - after writing, the next pass of the job waits until the caches have seen the writes
//   (expectations.js).
import { ElasticJobError, reconcile as planJob, reconcileScalePlan } from "../node.js";
import { isAlreadyExists, isConflict, isNotFound } from "./adapter.js";
import { Expectations } from "./expectations.js";

const LABEL_JOB = "elasticjob.dlrover/name";
const LABEL_PLAN_JOB = "elasticjob-name";
const LABEL_SCALE_TYPE = "scale-type";
const MAX_CONFLICT_RETRIES = 3;
/** Plan phases that still move their job: not yet taken up by it. */
const WAITING_PLAN_PHASES = new Set([undefined, "Created", "Pending"]);
/** Plan phases of a plan the job is carrying out. */
const ACTIVE_PLAN_PHASES = new Set(["Pending", "Scaling"]);

/** The job key (`namespace/name`) each kind of object belongs to. */
export const jobKeyOf = {
  ElasticJob: (o) => `${o.metadata.namespace}/${o.metadata.name}`,
  ScalePlan: (o) => {
    const job = o.spec?.ownerJob || o.metadata.labels?.[LABEL_PLAN_JOB];
    return job ? `${o.metadata.namespace}/${job}` : undefined;
  },
  Pod: (o) => {
    const job = o.metadata.labels?.[LABEL_JOB];
    return job ? `${o.metadata.namespace}/${job}` : undefined;
  },
};

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

/** The time of a pass, as the core takes it: RFC 3339, whole seconds, UTC. */
function rfc3339(date) {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

function byAge(a, b) {
  const ta = a.metadata.creationTimestamp ?? "";
  const tb = b.metadata.creationTimestamp ?? "";
  return ta < tb ? -1 : ta > tb ? 1 : a.metadata.name < b.metadata.name ? -1 : 1;
}

export class Reconciler {
  /**
   * @param {object} options
   * @param {import("./adapter.js").KubeAdapter} options.adapter
   * @param {{jobs: import("./informer.js").Informer, plans: import("./informer.js").Informer, pods: import("./informer.js").Informer}} options.caches
   * @param {string} [options.masterImage]
   * @param {import("./log.js").Logger} options.log
   * @param {import("./metrics.js").Metrics} options.metrics
   * @param {() => boolean} options.isStopping
   * @param {() => Date} [options.clock]
   * @param {number} [options.expectationTimeoutMs] how long a pass waits for the caches to show the last one's writes
   */
  constructor({ adapter, caches, masterImage, log, metrics, isStopping, clock = () => new Date(), expectationTimeoutMs }) {
    Object.assign(this, { adapter, caches, log, metrics, isStopping, clock });
    this.options = masterImage ? { masterImage } : undefined;
    this.expectations = new Expectations({ caches, timeoutMs: expectationTimeoutMs });
    /** job key -> the last refusal logged, so a refused job is not reported at every resync */
    this.refusals = new Map();
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
    const done = { created: new Map(), deleted: new Set() };
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
      if (plan.actions.length === 0) {
        if (!state.job) {
          this.forget(key);
        }
        return { result: "success" };
      }
      try {
        await this.carryOut(key, state, plan, fresh, done);
        return { result: "success" };
      } catch (e) {
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

  /** The job, its scale plans and its pods, from the caches with `fresh` and `done` laid over. */
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
    plans.sort(byAge);
    const uid = job?.metadata?.uid;
    const pods = this.caches.pods
      .ofJob(key)
      .filter((p) => !done.deleted.has(p.metadata.name))
      .filter((p) => {
        const owner = (p.metadata.ownerReferences ?? []).find((r) => r.controller);
        return !owner || owner.uid === uid;
      });
    for (const [podName, pod] of done.created) {
      if (!pods.some((p) => p.metadata.name === podName)) {
        pods.push(pod);
      }
    }
    return { key, namespace, name, job, plans, pods, now: rfc3339(this.clock()) };
  }

  /** The plan of this pass: the scale-plan controller's when it has one, else the job controller's. */
  decide(state) {
    const { job, plans, pods, now } = state;
    const auto = plans.filter((p) => p.metadata.labels?.[LABEL_SCALE_TYPE] === "auto" && !p.metadata.deletionTimestamp);
    if (!job) {
      // Plans whose job does not exist (yet) are only marked Created.
      for (const plan of auto.filter((p) => p.status?.phase === undefined)) {
        const planned = reconcileScalePlan(plan, null, now);
        if (planned.actions.length > 0) {
          return planned;
        }
      }
      return { actions: [] };
    }
    if (job.metadata.deletionTimestamp) {
      return { actions: [] };
    }
    const current = job.status?.scalePlan ? plans.find((p) => p.metadata.name === job.status.scalePlan) : undefined;
    if (!ACTIVE_PLAN_PHASES.has(current?.status?.phase)) {
      const next = auto.find((p) => WAITING_PLAN_PHASES.has(p.status?.phase));
      if (next) {
        const planned = reconcileScalePlan(next, job, now);
        if (planned.actions.length > 0) {
          return planned;
        }
      }
    }
    return planJob(job, current ?? null, pods, now, this.options);
  }

  /** An event of a cache: the object of a job was added, changed or deleted. */
  observed(key, kind, type, obj) {
    this.expectations.observed(key, kind, type, obj);
  }

  /** Carries the plan out, the services first (see the top of this file), the rest in order. */
  async carryOut(key, state, plan, fresh, done) {
    const services = plan.actions.filter((a) => a.action === "createOrUpdateService");
    const others = plan.actions.filter((a) => a.action !== "createOrUpdateService");
    for (const action of [...services, ...others]) {
      if (this.isStopping()) {
        throw new Stopped();
      }
      const outcome = await this.carry(state, action, fresh, done);
      this.metrics.actions.inc({ action: action.action, outcome });
      this.log.info(action.action, { job: key, action: action.action, ...describe(action), outcome });
      if (outcome === "gone" && (action.action === "setJobStatus" || action.action === "setScalePlanStatus")) {
        // The object was deleted meanwhile: the rest of this plan is for an object that is no more.
        return;
      }
    }
  }

  /** Carries out one action; resolves to its outcome: done, exists (create) or gone (delete, status). */
  async carry(state, action, fresh, done) {
    switch (action.action) {
      case "createPod": {
        const name = action.pod.metadata.name;
        const expected = this.expectations.pod(state.key, name, true);
        try {
          const created = await this.adapter.create("Pod", action.pod);
          expected.uid = created.metadata.uid;
          done.created.set(name, created);
          return "done";
        } catch (e) {
          if (!isAlreadyExists(e)) {
            this.expectations.drop(state.key, expected);
            throw e;
          }
          done.created.set(name, action.pod);
          return "exists";
        }
      }
      case "createOrUpdateService":
        await this.adapter.apply("Service", action.service);
        return "done";
      case "deletePod": {
        const namespace = action.namespace ?? state.namespace;
        const uid = state.pods.find((p) => p.metadata.name === action.name)?.metadata?.uid;
        const expected = this.expectations.pod(state.key, action.name, false, uid);
        let outcome = "done";
        try {
          await this.adapter.delete("Pod", namespace, action.name, { gracePeriodSeconds: action.gracePeriodSeconds, uid });
        } catch (e) {
          // Gone, or replaced by another pod of the same name (the uid precondition failed).
          if (!isNotFound(e) && !isConflict(e)) {
            this.expectations.drop(state.key, expected);
            throw e;
          }
          outcome = "gone";
        }
        done.deleted.add(action.name);
        done.created.delete(action.name);
        return outcome;
      }
      case "setJobStatus":
        return this.writeStatus("ElasticJob", state.job, action.status, state, fresh);
      case "setScalePlanStatus": {
        const plan = state.plans.find((p) => p.metadata.name === action.name);
        if (!plan) {
          return "gone";
        }
        return this.writeStatus("ScalePlan", plan, action.status, state, fresh);
      }
      default:
        throw new Error(`the core planned an action this controller does not know: ${action.action}`);
    }
  }

  async writeStatus(kind, obj, status, state, fresh) {
    const cache = kind === "ElasticJob" ? this.caches.jobs : this.caches.plans;
    const cached = cache.get(state.namespace, obj.metadata.name);
    const stale = [obj.metadata.resourceVersion, cached?.metadata?.resourceVersion].filter(Boolean);
    const expected = this.expectations.newer(state.key, kind, obj.metadata.name, stale);
    let written;
    try {
      written = await this.adapter.replaceStatus(kind, { ...obj, status });
    } catch (e) {
      this.expectations.drop(state.key, expected);
      if (isNotFound(e)) {
        return "gone";
      }
      if (isConflict(e)) {
        this.metrics.actions.inc({ action: kind === "ElasticJob" ? "setJobStatus" : "setScalePlanStatus", outcome: "conflict" });
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
    const time = this.clock();
    const event = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name: `${state.name}.${time.getTime().toString(16)}${Math.floor(Math.random() * 0xffff).toString(16)}`, namespace: state.namespace },
      involvedObject: {
        apiVersion: state.job.apiVersion,
        kind: state.job.kind,
        name: state.name,
        namespace: state.namespace,
        uid: state.job.metadata.uid,
        resourceVersion: state.job.metadata.resourceVersion,
      },
      reason: "InvalidJob",
      message: `cannot be planned: ${problems}`.slice(0, 1024),
      type: "Warning",
      source: { component: "elasticjob-controller" },
      firstTimestamp: rfc3339(time),
      lastTimestamp: rfc3339(time),
      count: 1,
    };
    try {
      await this.adapter.create("Event", event);
    } catch (error) {
      this.log.warn("could not record the event", { job: key, error });
    }
  }
}

/** What a log line says of an action besides its kind. */
function describe(action) {
  switch (action.action) {
    case "createPod":
      return { name: action.pod.metadata.name, reason: action.reason };
    case "createOrUpdateService":
      return { name: action.service.metadata.name, reason: action.reason };
    case "deletePod":
      return { name: action.name, reason: action.reason };
    case "setJobStatus":
      return { phase: action.status.phase, scalePlan: action.status.scalePlan };
    case "setScalePlanStatus":
      return { name: action.name, phase: action.status.phase };
    default:
      return {};
  }
}
