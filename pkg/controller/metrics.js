// The controller's Prometheus metrics (prom-client), in a registry of their own so that two
// controllers in one process do not share counters. Served as text at /metrics.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

const PREFIX = "elasticjob_controller_";

export class Metrics {
  constructor() {
    this.registry = new Registry();
    const registers = [this.registry];
    // Process metrics under their usual names (process_cpu_seconds_total, nodejs_heap_size_used_bytes, ...).
    collectDefaultMetrics({ register: this.registry });
    this.reconciles = new Counter({
      name: `${PREFIX}reconciles_total`,
      help: "Reconcile passes by result: success, error (retried with backoff), invalid (the job or plan is refused by the core; not retried), deferred (the cache has not seen the last writes yet)",
      labelNames: ["result"],
      registers,
    });
    this.errors = new Counter({
      name: `${PREFIX}reconcile_errors_total`,
      help: "Reconcile passes that failed, by kind: api (an API call failed), invalid (the core refused the job or plan), internal",
      labelNames: ["kind"],
      registers,
    });
    this.duration = new Histogram({
      name: `${PREFIX}reconcile_duration_seconds`,
      help: "Time of one reconcile pass: reading the caches, planning, and carrying the plan out",
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.queueDepth = new Gauge({ name: `${PREFIX}queue_depth`, help: "Jobs waiting in the work queue", registers });
    this.queueDelayed = new Gauge({ name: `${PREFIX}queue_delayed`, help: "Jobs waiting for their backoff or requeue time", registers });
    this.actions = new Counter({
      name: `${PREFIX}actions_total`,
      help: "Plan actions carried out, by kind (adoptPod, createPod, createOrUpdateService, deletePod, deleteService, setJobStatus, setScalePlanStatus) and outcome (done, exists, gone, conflict, error)",
      labelNames: ["action", "outcome"],
      registers,
    });
    this.requests = new Counter({
      name: `${PREFIX}api_requests_total`,
      help: "Requests to the API server by verb, resource and HTTP status (connect: a watch opened; error: no answer)",
      labelNames: ["verb", "resource", "code"],
      registers,
    });
    this.requestDuration = new Histogram({
      name: `${PREFIX}api_request_duration_seconds`,
      help: "Time of a request to the API server (not of a watch), by verb",
      labelNames: ["verb"],
      buckets: [0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.watchRestarts = new Counter({
      name: `${PREFIX}watch_restarts_total`,
      help: "Watches restarted after an error, by kind",
      labelNames: ["kind"],
      registers,
    });
    this.events = new Counter({
      name: `${PREFIX}events_total`,
      help: "Events recorded on the jobs, by type (Normal, Warning) and how (created, or counted into an earlier one of the same reason and message)",
      labelNames: ["type", "how"],
      registers,
    });
    this.leader = new Gauge({ name: `${PREFIX}leader`, help: "1 while this instance holds the leader lease (or runs without leader election)", registers });
  }

  /**
   * client-go's work queue metrics, by their names and with the queue's `name` label (controller-
   * runtime names it after the controller): adds, depth, queue and work durations, retries,
   * unfinished work and the longest running processor. Returns the queue's observer (queue.js).
   */
  workQueue(name, queue) {
    const registers = [this.registry];
    const labelNames = ["name"];
    // controller-runtime's buckets: 10 ns to 1,000 s, ten to a step.
    const buckets = Array.from({ length: 12 }, (_, i) => 1e-8 * 10 ** i);
    const adds = new Counter({ name: "workqueue_adds_total", help: "Total number of adds handled by workqueue", labelNames, registers });
    const retries = new Counter({ name: "workqueue_retries_total", help: "Total number of retries handled by workqueue", labelNames, registers });
    const queueDuration = new Histogram({
      name: "workqueue_queue_duration_seconds",
      help: "How long in seconds an item stays in workqueue before being requested",
      labelNames,
      buckets,
      registers,
    });
    const workDuration = new Histogram({
      name: "workqueue_work_duration_seconds",
      help: "How long in seconds processing an item from workqueue takes",
      labelNames,
      buckets,
      registers,
    });
    new Gauge({
      name: "workqueue_depth",
      help: "Current depth of workqueue",
      labelNames,
      registers,
      collect() {
        this.set({ name }, queue().length);
      },
    });
    new Gauge({
      name: "workqueue_unfinished_work_seconds",
      help: "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads",
      labelNames,
      registers,
      collect() {
        this.set({ name }, queue().inProgress().total);
      },
    });
    new Gauge({
      name: "workqueue_longest_running_processor_seconds",
      help: "How many seconds has the longest running processor for workqueue been running",
      labelNames,
      registers,
      collect() {
        this.set({ name }, queue().inProgress().longest);
      },
    });
    return {
      added: () => adds.inc({ name }),
      retried: () => retries.inc({ name }),
      waited: (seconds) => queueDuration.observe({ name }, seconds),
      worked: (seconds) => workDuration.observe({ name }, seconds),
    };
  }

  /** The exposition text and its content type. */
  async text() {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
