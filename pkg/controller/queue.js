// A work queue keyed by job (`namespace/name`), as client-go's rate-limited work queue:
// - a key waits in the queue at most once, however often it is added;
// - a key being processed is not handed out again; added meanwhile, it comes back once `done`;
// - `addRateLimited` delays a key by base * 2^(failures - 1), up to a ceiling, until `forget`;
// - `addAfter` brings a key back later (the earliest of several requests wins).

export class WorkQueue {
  /** @param {{baseDelayMs?: number, maxDelayMs?: number}} [options] */
  constructor({ baseDelayMs = 200, maxDelayMs = 60_000 } = {}) {
    this.baseDelayMs = baseDelayMs;
    this.maxDelayMs = maxDelayMs;
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
    this.dirty.add(key);
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

  /** Adds `key` after its backoff, which doubles with each failure since the last `forget`. */
  addRateLimited(key) {
    const failures = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, failures);
    this.addAfter(key, this.backoff(failures));
    return this.backoff(failures);
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
      this.dirty.delete(key);
      this.processing.add(key);
      return Promise.resolve(key);
    }
    return new Promise((resolve) => this.getters.push(resolve));
  }

  hand(key, getter) {
    this.dirty.delete(key);
    this.processing.add(key);
    getter(key);
  }

  /** The key's processing is over: if it was added meanwhile, it waits again. */
  done(key) {
    this.processing.delete(key);
    if (this.dirty.has(key) && !this.shuttingDown) {
      this.dirty.delete(key);
      this.add(key);
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
