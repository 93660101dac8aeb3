// A work queue keyed by job (`namespace/name`), as client-go's rate-limited work queue:
// - a key waits in the queue at most once, however often it is added;
// - a key being processed is not handed out again; added meanwhile, it comes back once `done`;
// - `addRateLimited` delays a key by the larger of base * 2^(failures - 1) (up to a ceiling, until
//   `forget`) and the wait for a token of a bucket shared by every key (10 a second, a burst of 100):
//   client-go's DefaultControllerRateLimiter, so many jobs failing at once do not retry in a storm;
// - `addAfter` brings a key back later (the earliest of several requests wins);
// - what client-go's work queue metrics report (adds, depth, time waiting, time processing, retries,
//   unfinished work, longest running processor) is kept here and read by metrics.js.
import { TokenBucket } from "./ratelimit.js";

/** client-go's DefaultControllerRateLimiter's overall bucket. */
export const RETRY_BUCKET = Object.freeze({ qps: 10, burst: 100 });

export class WorkQueue {
  /**
   * @param {object} [options]
   * @param {number} [options.baseDelayMs]
   * @param {number} [options.maxDelayMs]
   * @param {TokenBucket} [options.retryBucket] shared by the retries of every key
   * @param {{added?: () => void, waited?: (seconds: number) => void, worked?: (seconds: number) => void, retried?: () => void}} [options.observer] for the metrics
   */
  constructor({ baseDelayMs = 200, maxDelayMs = 60_000, retryBucket = new TokenBucket(RETRY_BUCKET), observer = {} } = {}) {
    this.baseDelayMs = baseDelayMs;
    this.maxDelayMs = maxDelayMs;
    this.retryBucket = retryBucket;
    this.observer = observer;
    /** key -> when (performance.now()) it began to wait */
    this.waitingSince = new Map();
    /** key -> when its processing began */
    this.processingSince = new Map();
    /** Keys waiting, in the order they came. */
    this.waiting = [];
    /** Keys to hand out: waiting, or added while being processed. */
    this.dirty = new Set();
    this.processing = new Set();
    /** key -> {timer, at}: keys that come back later. */
    this.delayed = new Map();
    this.failures = new Map();
    /** Workers waiting for a key. */
    this.getters = [];
    this.shuttingDown = false;
  }

  /** Keys waiting to be handed out (not those being processed or delayed). */
  get length() {
    return this.waiting.length;
  }

  /** Keys that come back later. */
  get delayedCount() {
    return this.delayed.size;
  }

  add(key) {
    if (this.shuttingDown || this.dirty.has(key)) {
      return;
    }
    this.observer.added?.();
    this.dirty.add(key);
    this.waitingSince.set(key, performance.now());
    if (this.processing.has(key)) {
      return;
    }
    const getter = this.getters.shift();
    if (getter) {
      this.hand(key, getter);
    } else {
      this.waiting.push(key);
    }
  }

  /** Adds `key` after `ms` milliseconds (at once when `ms` <= 0). */
  addAfter(key, ms) {
    if (this.shuttingDown) {
      return;
    }
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const at = Date.now() + ms;
    const pending = this.delayed.get(key);
    if (pending && pending.at <= at) {
      return;
    }
    if (pending) {
      clearTimeout(pending.timer);
    }
    const timer = setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, ms);
    this.delayed.set(key, { timer, at });
  }

  /**
   * Adds `key` after its backoff, which doubles with each failure since the last `forget`, or after
   * the shared bucket's wait when that is longer. Returns the delay.
   */
  addRateLimited(key) {
    const failures = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, failures);
    this.observer.retried?.();
    const delay = Math.max(this.backoff(failures), this.retryBucket.reserve());
    this.addAfter(key, delay);
    return delay;
  }

  /** The delay after `failures` failures in a row. */
  backoff(failures) {
    return Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** Math.min(failures - 1, 30));
  }

  /** Failures of `key` since its last success. */
  failuresOf(key) {
    return this.failures.get(key) ?? 0;
  }

  /** The key succeeded: its next failure starts from the base delay. */
  forget(key) {
    this.failures.delete(key);
  }

  /** Resolves to the next key, or to undefined once the queue is shut down. */
  get() {
    if (this.shuttingDown) {
      return Promise.resolve(undefined);
    }
    const key = this.waiting.shift();
    if (key !== undefined) {
      this.start(key);
      return Promise.resolve(key);
    }
    return new Promise((resolve) => this.getters.push(resolve));
  }

  hand(key, getter) {
    this.start(key);
    getter(key);
  }

  start(key) {
    const now = performance.now();
    this.observer.waited?.((now - (this.waitingSince.get(key) ?? now)) / 1000);
    this.waitingSince.delete(key);
    this.dirty.delete(key);
    this.processing.add(key);
    this.processingSince.set(key, now);
  }

  /** Seconds of processing under way, in all (client-go's unfinished work) and the longest. */
  inProgress() {
    const now = performance.now();
    let total = 0;
    let longest = 0;
    for (const since of this.processingSince.values()) {
      total += (now - since) / 1000;
      longest = Math.max(longest, (now - since) / 1000);
    }
    return { total, longest };
  }

  /** The key's processing is over: if it was added meanwhile, it waits again. */
  done(key) {
    const since = this.processingSince.get(key);
    if (since !== undefined) {
      this.observer.worked?.((performance.now() - since) / 1000);
      this.processingSince.delete(key);
    }
    this.processing.delete(key);
    if (this.dirty.has(key) && !this.shuttingDown) {
      // Added while processed (counted then): it waits from then.
      const getter = this.getters.shift();
      if (getter) {
        this.hand(key, getter);
      } else {
        this.waiting.push(key);
      }
    }
  }

  /** No key is handed out any more; waiting workers get undefined. Delayed keys are dropped. */
  shutDown() {
    this.shuttingDown = true;
    for (const { timer } of this.delayed.values()) {
      clearTimeout(timer);
    }
    this.delayed.clear();
    for (const getter of this.getters.splice(0)) {
      getter(undefined);
    }
  }
}
