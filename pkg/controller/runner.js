// The workers of the controller (controller-runtime's and kube-runtime's runner): `workers` loops
// taking job keys from the work queue, one pass of a job at a time, each pass's result deciding
// what comes next (forgotten, back after a delay, back after a backoff), and a resync that enqueues
// every job now and then to catch what no event announced.
import { failureKind } from "./adapter.js";

export class Runner {
  /**
   * @param {object} options
   * @param {import("./queue.js").WorkQueue} options.queue
   * @param {(key: string) => Promise<{result: string, requeueAfterMs?: number}>} options.reconcile one pass of a job
   * @param {() => string[]} options.keys every job key the caches know, for the resync
   * @param {number} options.workers
   * @param {number} options.resyncSeconds
   * @param {import("./metrics.js").Metrics} options.metrics
   * @param {import("./log.js").Logger} options.log
   */
  constructor({ queue, reconcile, keys, workers, resyncSeconds, metrics, log }) {
    Object.assign(this, { queue, reconcile, keys, workers, resyncSeconds, metrics, log });
    this.running = [];
    this.resync = undefined;
  }

  /** Enqueues every job, starts the workers and the resync. */
  start() {
    this.enqueueAll();
    for (let i = 0; i < this.workers; i += 1) {
      this.running.push(this.work());
    }
    this.resync = setInterval(() => this.enqueueAll(), this.resyncSeconds * 1000);
  }

  /** Stops taking keys; resolves once every pass under way has ended. */
  async stop() {
    clearInterval(this.resync);
    this.queue.shutDown();
    await Promise.all(this.running);
  }

  enqueueAll() {
    for (const key of new Set(this.keys())) {
      this.queue.add(key);
    }
  }

  async work() {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) {
        return;
      }
      try {
        await this.once(key);
      } finally {
        this.queue.done(key);
      }
    }
  }

  /** One pass of `key`, and what its result means for the key. */
  async once(key) {
    const stopTimer = this.metrics.duration.startTimer();
    let outcome;
    try {
      outcome = await this.reconcile(key);
    } catch (e) {
      stopTimer();
      this.metrics.reconciles.inc({ result: "error" });
      // The cluster's trouble (an API call refused or unanswered), or a bug of this controller.
      const kind = failureKind(e);
      this.metrics.errors.inc({ kind });
      const retryInMs = this.queue.addRateLimited(key);
      this.log[kind === "api" ? "warn" : "error"]("reconcile failed; retrying", { job: key, error: e, failures: this.queue.failuresOf(key), retryInMs });
      return;
    }
    if (outcome.result === "stopped") {
      return;
    }
    this.metrics.reconciles.inc({ result: outcome.result });
    if (outcome.result !== "deferred") {
      stopTimer();
      this.queue.forget(key);
    }
    if (outcome.requeueAfterMs !== undefined) {
      this.queue.addAfter(key, outcome.requeueAfterMs);
    }
  }
}
