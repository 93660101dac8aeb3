// `elasticjob/controller`: the ElasticJob controller, the only part of elasticjob that talks to a
// cluster. It carries out the core's plans against the API server. A job key's path, each module
// once:
//
//   informer.js (list + watch: ElasticJobs, ScalePlans, the jobs' pods and services, with a gang
//   scheduler their PodGroups; each plan, pod, service and PodGroup also into the core's store) --change--> queue.js (a work queue keyed by job, with
//   per-job backoff) --> runner.js (workers: one pass per job at a time) --> reconciler.js (one
//   pass: the core's controllerPass decides the plan) --> executor.js (phases in order, each in its
//   mode) --> handlers.js (each action kind) --> adapter.js (every call to the API server)
//
// This module is the manager beside them (controller-runtime's Manager): it builds them, serves
// the endpoints (serve.js, metrics.js), holds the leader Lease (leader.js) and starts and stops the
// runner as it leads. log.js writes the JSON log lines.
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { constants } from "../node.js";
import { ApiError, KINDS, KubeAdapter, loadKubeConfig, podNamespace } from "./adapter.js";
import { DEFAULTS } from "./defaults.js";
import { Informer } from "./informer.js";
import { LeaderElector } from "./leader.js";
import { Logger } from "./log.js";
import { Metrics } from "./metrics.js";
import { WorkQueue } from "./queue.js";
import { Reconciler, jobKeyOf } from "./reconciler.js";
import { Runner } from "./runner.js";
import { serve } from "./serve.js";

export { DEFAULTS } from "./defaults.js";

/** The `--gang-scheduler-name` that means Volcano (training-operator's); any other names scheduler-plugins' scheduler. */
const VOLCANO = "volcano";
export { LOG_LEVELS, Logger } from "./log.js";
export { WorkQueue } from "./queue.js";

/** The options given over the defaults; the Lease's namespace is the pod's when none is given. */
function resolve(options) {
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  return { ...DEFAULTS, ...given, leaseNamespace: given.leaseNamespace ?? podNamespace() ?? DEFAULTS.leaseNamespace };
}

/** The controller: its caches, its workers while it acts, its endpoints and its Lease. */
export class Controller {
  constructor(options = {}) {
    this.o = resolve(options);
    this.log = this.o.logger ?? new Logger(this.o.logStream ?? process.stdout, { level: this.o.logLevel });
    this.metrics = new Metrics();
    this.identity = this.o.identity ?? `${hostname()}_${randomUUID()}`;
    this.acting = false;
    this.stopping = false;
    this.done = new Promise((resolve) => {
      this.finish = resolve;
    });
  }

  /**
   * Starts the endpoints and the caches, then (when leading, or without leader election) the
   * workers. Resolves once the endpoints listen; `ready` resolves once the caches are filled, and
   * `done` once the controller has stopped (`stop()`, a lost lease, or a fatal error).
   */
  async start() {
    const { o, log, metrics } = this;
    const kc = loadKubeConfig(o.kubeconfig);
    const onRequest = ({ verb, resource, code, seconds }) => {
      metrics.requests.inc({ verb, resource, code });
      if (seconds !== undefined) {
        metrics.requestDuration.observe({ verb }, seconds);
      }
    };
    const rateLimit = { qps: o.kubeApiQps, burst: o.kubeApiBurst };
    // Every write of a pass is fenced by the lease: none goes out once the renew deadline passed.
    const mayWrite = () => !this.elector || this.elector.holds();
    this.adapter = new KubeAdapter(kc, { onRequest, ...rateLimit, fieldManager: o.fieldManager, mayWrite });
    await this.adapter.connect();
    // A client of its own for the leader election (as controller-runtime's has): the lease's calls
    // neither wait behind a large plan's in the rate limit nor share its connections.
    this.leaseAdapter = o.leaderElect ? new KubeAdapter(kc, { onRequest, ...rateLimit }) : undefined;
    await this.leaseAdapter?.connect();
    this.podGroups = await this.podGroupKind();
    log.info("starting", {
      server: this.adapter.serverUrl,
      namespace: o.namespace ?? "(all)",
      masterImage: o.masterImage,
      masterServiceAccount: o.masterServiceAccount,
      allowUserMasters: o.allowUserMasters,
      workers: o.workers,
      resyncSeconds: o.resyncSeconds,
      kubeApiQps: o.kubeApiQps,
      kubeApiBurst: o.kubeApiBurst,
      maxPodCreates: o.maxPodCreates,
      kueue: o.kueue,
      kueueWorkloadSlices: o.kueueWorkloadSlices,
      gangSchedulerName: o.gangSchedulerName,
      podGroups: this.podGroups ? KINDS[this.podGroups].apiVersion : undefined,
      leaderElect: o.leaderElect,
      identity: this.identity,
      fieldManager: o.fieldManager,
    });
    this.queue = new WorkQueue({ observer: metrics.workQueue("elasticjob", () => this.queue) });
    this.caches = this.informers();
    this.reconciler = new Reconciler({
      adapter: this.adapter,
      caches: this.caches,
      masterImage: o.masterImage,
      masterServiceAccount: o.masterServiceAccount,
      allowUserMasters: o.allowUserMasters,
      log,
      metrics,
      isStopping: () => this.stopping,
      maxPodCreates: o.maxPodCreates,
      kueue: o.kueue,
      kueueWorkloadSlices: o.kueueWorkloadSlices,
      gangSchedulerName: o.gangSchedulerName,
    });
    this.runner = new Runner({
      queue: this.queue,
      reconcile: (key) => this.reconciler.reconcile(key),
      keys: () => [...this.caches.jobs.jobKeys(), ...this.caches.plans.jobKeys()],
      workers: o.workers,
      resyncSeconds: o.resyncSeconds,
      metrics,
      log,
    });
    this.elector = o.leaderElect
      ? new LeaderElector({
          adapter: this.leaseAdapter,
          namespace: o.leaseNamespace,
          name: o.leaseName,
          identity: this.identity,
          leaseDurationSeconds: o.leaseDurationSeconds,
          renewDeadlineSeconds: o.renewDeadlineSeconds,
          retryPeriodSeconds: o.retryPeriodSeconds,
          log,
        })
      : undefined;
    this.endpoints = await this.serve();
    this.healthPort = this.endpoints.healthPort;
    this.metricsPort = this.endpoints.metricsPort;
    log.info("serving", { healthPort: this.healthPort, metricsPort: this.metricsPort });
    this.ready = Promise.all(Object.values(this.caches).map((c) => c.start())).then(() => {
      if (!this.stopping) {
        log.info("caches synced", Object.fromEntries(Object.entries(this.caches).map(([k, c]) => [k, c.jobKeys().length])));
      }
    });
    this.lead().catch((e) => {
      log.error("the controller failed", { error: e });
      this.stop(1);
    });
    return this;
  }

  /**
   * The PodGroups the controller watches (their entry of the adapter's KINDS), or undefined: with
   * `--gang-scheduler-name volcano` Volcano's, with another name scheduler-plugins' (either must be
   * served: the controller cannot start without it); without the flag Volcano's when the API server
   * serves them and this controller may list them (a job whose replicas say `BatchScheduler:
   * volcano` gets Volcano's gang with no flag), asked once here; else none, which is no error.
   */
  async podGroupKind() {
    const { o, log, adapter } = this;
    const scope = o.namespace ? { namespace: o.namespace } : {};
    if (o.gangSchedulerName !== undefined) {
      const kind = o.gangSchedulerName === VOLCANO ? "VolcanoPodGroup" : "SchedulerPluginsPodGroup";
      if (!(await adapter.serves(kind))) {
        const { apiVersion } = KINDS[kind];
        throw new Error(`--gang-scheduler-name ${o.gangSchedulerName}: the API server serves no PodGroups of ${apiVersion} (install the gang scheduler's PodGroup CustomResourceDefinition; docs/controller.md)`);
      }
      return kind;
    }
    if (!(await adapter.serves("VolcanoPodGroup"))) {
      return undefined;
    }
    try {
      await adapter.list("VolcanoPodGroup", { ...scope, limit: 1, pages: 1 });
    } catch (e) {
      if (e instanceof ApiError && e.status === 403) {
        log.warn("the API server serves Volcano's PodGroups, but this controller may not list them: they are not watched, and a job whose replicas say BatchScheduler: volcano cannot get its PodGroup (docs/install.md: the chart's volcanoPodGroups)", { error: e });
        return undefined;
      }
      throw e;
    }
    return "VolcanoPodGroup";
  }

  /** The caches of the kinds a pass reads, each change brought to the reconciler and its job enqueued. */
  informers() {
    const { o, log, metrics } = this;
    const scope = o.namespace ? { namespace: o.namespace } : {};
    const informer = (kind, labelSelector, resource = kind) =>
      new Informer(this.adapter.listWatch(resource, { ...scope, labelSelector }), {
        kind,
        jobKeyOf,
        onObject: (type, obj) => this.reconciler.keep(kind, type, obj),
        onChange: (key, obj, type) => {
          this.reconciler.observed(key, kind, type, obj);
          if (this.acting && !this.stopping) {
            this.queue.add(key);
          }
        },
        log,
        onRestart: () => metrics.watchRestarts.inc({ kind }),
      });
    const { jobKind, scalePlanKind, labels } = constants();
    const caches = {
      jobs: informer(jobKind),
      plans: informer(scalePlanKind),
      // The pods of every job, by the job-name label each of them carries.
      pods: informer("Pod", labels.jobName),
      // The services the controller makes, by the same label: one deleted brings its job's pass.
      services: informer("Service", labels.jobName),
    };
    if (this.podGroups) {
      // The jobs' PodGroups (of the one group watched), by the same label: the core reads a job's
      // from the store, and a change of one (its phase, as the gang scheduler sets it) brings its pass.
      caches.podGroups = informer("PodGroup", labels.jobName, this.podGroups);
      caches.podGroups.apiVersion = KINDS[this.podGroups].apiVersion;
    }
    if (!o.kueue) {
      return caches;
    }
    // With Kueue: the jobs' Workloads (the same label), and every ResourceFlavor (cluster-scoped, of
    // no job: a change of one brings the pass of every job that has a Workload).
    caches.workloads = informer("Workload", labels.jobName);
    caches.flavors = new Informer(this.adapter.listWatch("ResourceFlavor", {}), {
      kind: "ResourceFlavor",
      jobKeyOf: () => undefined,
      onObject: (type, obj) => {
        this.reconciler.keep("ResourceFlavor", type, obj);
        if (this.acting && !this.stopping) {
          for (const key of caches.workloads.jobKeys()) {
            this.queue.add(key);
          }
        }
      },
      onChange: () => {},
      log,
      onRestart: () => metrics.watchRestarts.inc({ kind: "ResourceFlavor" }),
    });
    return caches;
  }

  serve() {
    const { o } = this;
    const synced = () => Object.values(this.caches).every((c) => c.synced);
    return serve({
      healthPort: o.healthPort,
      metricsPort: o.metricsPort,
      host: o.host,
      healthy: () => ({ ok: true, detail: "ok" }),
      ready: () =>
        this.stopping
          ? { ok: false, detail: "stopping" }
          : synced()
            ? { ok: true, detail: this.elector && !this.acting ? "ok (standby: waiting for the leader lease)" : "ok" }
            : { ok: false, detail: "caches not synced yet" },
      metrics: () => {
        this.metrics.queueDepth.set(this.queue.length);
        this.metrics.queueDelayed.set(this.queue.delayedCount);
        this.metrics.leader.set(this.acting ? 1 : 0);
        return this.metrics.text();
      },
    });
  }

  /** Once the caches are filled: acts, at once without leader election, else while it holds the Lease. */
  async lead() {
    await this.ready;
    if (this.stopping) {
      return;
    }
    if (this.elector && (!(await this.elector.acquire()) || this.stopping)) {
      return;
    }
    this.acting = true;
    this.metrics.leader.set(1);
    this.runner.start();
    this.log.info("acting", { jobs: this.caches.jobs.jobKeys().length });
    if (!this.elector) {
      return;
    }
    const { lost } = await this.elector.keepRenewing();
    if (lost && !this.stopping) {
      // Another instance may take over soon: no call of this one may land after that, so every
      // call under way is cut now, and the controller exits, as client-go's does.
      this.stopping = true;
      this.adapter.abortAll(new Error("no longer the leader"));
      await this.stop(1, true);
    }
  }

  /** Finishes the actions under way, releases the lease, closes the caches and the endpoints. */
  async stop(code = 0, lostLease = false) {
    if (this.stopping && !lostLease) {
      return this.done;
    }
    this.stopping = true;
    this.log.info("stopping: finishing the actions under way", { inFlight: this.queue?.processing.size ?? 0 });
    await this.runner?.stop();
    this.acting = false;
    // Nothing of a pass is under way now; a list still under way (a stop before the caches were
    // filled) is cut, so the process has nothing left to wait for.
    this.adapter?.abortAll(new Error("the controller is stopping"));
    await this.elector?.stop();
    await Promise.all(Object.values(this.caches ?? {}).map((c) => c.stop()));
    await this.endpoints?.close();
    this.adapter?.close();
    this.leaseAdapter?.close();
    this.log.info("stopped", { code });
    this.finish({ code });
    return this.done;
  }
}

/** Starts a controller (`Controller.start`) and resolves to it. */
export function startController(options = {}) {
  return new Controller(options).start();
}
