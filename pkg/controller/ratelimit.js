// A token bucket, as golang.org/x/time/rate's Limiter that client-go throttles with: `qps` tokens a
// second fill a bucket of `burst`; each call takes one, and waits when the bucket is empty. Calls
// reserve their tokens in order (the bucket may go below zero: each waits its turn), so a burst of
// calls is spread at `qps` without a thundering herd. `qps` 0 (or Infinity) is no limit.
//
// The controller uses two: one over every call to the API server (the client's `--kube-api-qps` and
// `--kube-api-burst`, kube-controller-manager's names), and one over the retries of the work queue
// (queue.js, with client-go's overall 10 qps, burst 100).

export class TokenBucket {
  /**
   * @param {{qps: number, burst: number, now?: () => number}} options `now` in milliseconds (tests)
   */
  constructor({ qps, burst, now = () => performance.now() }) {
    if (!(qps >= 0) || !(burst >= 1 || qps === 0 || qps === Infinity)) {
      throw new RangeError(`a rate limit needs qps >= 0 and a burst of at least 1, got qps ${qps}, burst ${burst}`);
    }
    this.qps = qps;
    this.burst = burst;
    this.now = now;
    this.tokens = burst;
    this.at = now();
  }

  /** Whether the bucket limits anything. */
  get limited() {
    return this.qps > 0 && this.qps !== Infinity;
  }

  /** Takes a token; returns the milliseconds to wait before using it (0: at once). */
  reserve() {
    if (!this.limited) {
      return 0;
    }
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) * this.qps) / 1000);
    this.at = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.qps;
  }

  /** Gives back a token reserved and not used (its wait was cut short). */
  cancel() {
    if (this.limited) {
      this.tokens = Math.min(this.burst, this.tokens + 1);
    }
  }

  /**
   * Resolves once a token is this caller's; rejects with the signal's reason when `signal` aborts
   * first (the token is given back).
   * @param {AbortSignal} [signal]
   */
  take(signal) {
    signal?.throwIfAborted();
    const wait = this.reserve();
    if (wait === 0) {
      return Promise.resolve(0);
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        this.cancel();
        reject(signal.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve(wait);
      }, wait);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}
