// `elasticjob/controller`: the ElasticJob controller, the only part of elasticjob that talks to a
// cluster. It carries out the core's plans against the API server:
//
//   caches (list + watch: ElasticJobs, ScalePlans, the jobs' pods) --change--> work queue keyed by
//   job --one pass per job at a time--> reconciler (core: controllerPass) --plan-->
//   adapter (create, apply, delete, status with the resourceVersion read)
//
// adapter.js holds every call to the API server, informer.js the caches, queue.js the work queue
// (per-job exponential backoff), reconciler.js one pass, leader.js the Lease election, metrics.js and
// serve.js the Prometheus metrics and the health endpoints, log.js the JSON log lines.
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { constants } from "../node.js";
import { KubeAdapter, loadKubeConfig, podNamespace } from "./adapter.js";
import { DEFAULTS } from "./defaults.js";
import { Informer } from "./informer.js";
import { LeaderElector } from "./leader.js";
import { Logger } from "./log.js";
import { Metrics } from "./metrics.js";
import { WorkQueue } from "./queue.js";
import { Reconciler, Stopped, jobKeyOf } from "./reconciler.js";
import { serve } from "./serve.js";

export { DEFAULTS } from "./defaults.js";
export { LOG_LEVELS, Logger } from "./log.js";
export { WorkQueue } from "./queue.js";

/**
 * Starts the controller: its endpoints, its caches, then (when leading, or without leader election)
 * its workers. Resolves once the endpoints listen; `ready` resolves once the caches are filled, and
 * `done` once the controller has stopped (`stop()`, a lost lease, or a fatal error).
 */
export async function startController(options = {}) {
  const o = { ...DEFAULTS, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) };
  const log = o.logger ?? new Logger(o.logStream ?? process.stdout, { level: o.logLevel });
  const metrics = new Metrics();
  const kc = loadKubeConfig(o.kubeconfig);
  const onRequest = ({ verb, resource, code, seconds }) => {
    metrics.requests.inc({ verb, resource, code });
    if (seconds !== undefined) {
      metrics.requestDuration.observe({ verb }, seconds);
    }
  };
  const rateLimit = { qps: o.kubeApiQps, burst: o.kubeApiBurst };
  const adapter = new KubeAdapter(kc, { onRequest, ...rateLimit });
  await adapter.connect();
  // A client of its own for the leader election (as controller-runtime's has): the lease's calls
  // neither wait behind a large plan's in the rate limit nor share its connections.
  const leaseAdapter = o.leaderElect ? new KubeAdapter(kc, { onRequest, ...rateLimit }) : undefined;
  await leaseAdapter?.connect();
  const identity = o.identity ?? `${hostname()}_${randomUUID()}`;
  const scope = o.namespace ? { namespace: o.namespace } : {};
  log.info("starting", {
    server: adapter.serverUrl,
    namespace: o.namespace ?? "(all)",
    masterImage: o.masterImage,
    workers: o.workers,
    resyncSeconds: o.resyncSeconds,
    kubeApiQps: o.kubeApiQps,
    kubeApiBurst: o.kubeApiBurst,
    maxPodCreates: o.maxPodCreates,
    leaderElect: o.leaderElect,
    identity,
  });

  let queue;
  queue = new WorkQueue({ observer: metrics.workQueue("elasticjob", () => queue) });
  let acting = !o.leaderElect;
  let stopping = false;
  const enqueue = (key) => {
    if (acting && !stopping) {
      queue.add(key);
    }
  };
  const informer = (kind, labelSelector) =>
    new Informer(adapter.listWatch(kind, { ...scope, labelSelector }), {
      kind,
      jobKeyOf,
      onChange: (key, obj, type) => {
        reconciler.observed(key, kind, type, obj);
        enqueue(key);
      },
      log,
      onRestart: () => metrics.watchRestarts.inc({ kind }),
      onObject: (type, obj) => reconciler.keep(kind, type, obj),
    });
  const caches = {
    jobs: informer("ElasticJob"),
    plans: informer("ScalePlan"),
    // The pods of every job, by the job-name label each of them carries.
    pods: informer("Pod", constants().labels.jobName),
    // The services the controller makes, by the same label: one deleted brings its job's pass.
    services: informer("Service", constants().labels.jobName),
  };
  const allSynced = () => Object.values(caches).every((c) => c.synced);
  // The caches call it back (observed) once they run, after this line.
  const reconciler = new Reconciler({ adapter, caches, masterImage: o.masterImage, log, metrics, isStopping: () => stopping, maxPodCreates: o.maxPodCreates });
  const elector = o.leaderElect
    ? new LeaderElector({
        adapter: leaseAdapter,
        namespace: options.leaseNamespace ?? podNamespace() ?? DEFAULTS.leaseNamespace,
        name: o.leaseName,
        identity,
        leaseDurationSeconds: o.leaseDurationSeconds,
        renewDeadlineSeconds: o.renewDeadlineSeconds,
        retryPeriodSeconds: o.retryPeriodSeconds,
        log,
      })
    : undefined;

  const endpoints = await serve({
    healthPort: o.healthPort,
    metricsPort: o.metricsPort,
    host: o.host,
    healthy: () => ({ ok: true, detail: "ok" }),
    ready: () =>
      stopping
        ? { ok: false, detail: "stopping" }
        : allSynced()
          ? { ok: true, detail: elector && !acting ? "ok (standby: waiting for the leader lease)" : "ok" }
          : { ok: false, detail: "caches not synced yet" },
    metrics: () => {
      metrics.queueDepth.set(queue.length);
      metrics.queueDelayed.set(queue.delayedCount);
      metrics.leader.set(acting ? 1 : 0);
      return metrics.text();
    },
  });
  log.info("serving", { healthPort: endpoints.healthPort, metricsPort: endpoints.metricsPort });

  let finish;
  const done = new Promise((resolve) => {
    finish = resolve;
  });
  const workers = [];
  let resync;

  async function work() {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) {
        return;
      }
      const stopTimer = metrics.duration.startTimer();
      try {
        const outcome = await reconciler.reconcile(key);
        metrics.reconciles.inc({ result: outcome.result });
        if (outcome.result !== "deferred") {
          stopTimer();
          queue.forget(key);
        }
        if (outcome.requeueAfterMs !== undefined) {
          queue.addAfter(key, outcome.requeueAfterMs);
        }
      } catch (e) {
        if (!(e instanceof Stopped)) {
          stopTimer();
          metrics.reconciles.inc({ result: "error" });
          // An API call that failed is the cluster's trouble; anything else is a bug of this controller.
          const kind = e.status !== undefined || e.code?.startsWith?.("E") ? "api" : "internal";
          metrics.errors.inc({ kind });
          const retryInMs = queue.addRateLimited(key);
          log[kind === "api" ? "warn" : "error"]("reconcile failed; retrying", { job: key, error: e, failures: queue.failuresOf(key), retryInMs });
        }
      } finally {
        queue.done(key);
      }
    }
  }

  function enqueueAll() {
    for (const key of new Set([...caches.jobs.jobKeys(), ...caches.plans.jobKeys()])) {
      queue.add(key);
    }
  }

  function act() {
    acting = true;
    metrics.leader.set(1);
    enqueueAll();
    for (let i = 0; i < o.workers; i += 1) {
      workers.push(work());
    }
    // A periodic pass over every job catches what no event announced.
    resync = setInterval(enqueueAll, o.resyncSeconds * 1000);
    log.info("acting", { jobs: caches.jobs.jobKeys().length });
  }

  async function stop(code = 0, lostLease = false) {
    if (stopping && !lostLease) {
      return done;
    }
    stopping = true;
    log.info("stopping: finishing the actions under way", { inFlight: queue.processing.size });
    clearInterval(resync);
    queue.shutDown();
    await Promise.all(workers);
    acting = false;
    await elector?.stop();
    await Promise.all(Object.values(caches).map((c) => c.stop()));
    await endpoints.close();
    adapter.close();
    leaseAdapter?.close();
    log.info("stopped", { code });
    finish({ code });
    return done;
  }

  const ready = Promise.all(Object.values(caches).map((c) => c.start())).then(() => {
    if (!stopping) {
      log.info("caches synced", Object.fromEntries(Object.entries(caches).map(([k, c]) => [k, c.jobKeys().length])));
    }
  });

  (async () => {
    await ready;
    if (stopping) {
      return;
    }
    if (!elector) {
      act();
      return;
    }
    if (!(await elector.acquire()) || stopping) {
      return;
    }
    act();
    const { lost } = await elector.keepRenewing();
    if (lost && !stopping) {
      // Another instance may take over soon: no call of this one may land after that, so every
      // call under way is cut now, and the controller exits, as client-go's does.
      stopping = true;
      adapter.abortAll(new Error("no longer the leader"));
      await stop(1, true);
    }
  })().catch((e) => {
    log.error("the controller failed", { error: e });
    stop(1);
  });

  return {
    identity,
    healthPort: endpoints.healthPort,
    metricsPort: endpoints.metricsPort,
    ready,
    done,
    stop: () => stop(0),
    /** Whether this instance acts (leads, or runs without leader election). */
    get acting() {
      return acting;
    },
  };
}
