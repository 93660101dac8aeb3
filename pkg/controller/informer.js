// A cache of one kind kept by the adapter's list-and-watch, indexed by job, that calls back on every
// change. client-node's ListWatch lists again after 410 Gone (an expired resourceVersion) by
// itself; on any other loss of its watch (a reset connection, the server gone, a failed list) it
// stops and reports an error, and this restarts it after a backoff: from the last resourceVersion
// seen, or with a new list when there is none.

const RESTART_BASE_MS = 500;
const RESTART_MAX_MS = 30_000;

export class Informer {
  /**
   * @param {object} listWatch the adapter's ListWatch (not started)
   * @param {object} options
   * @param {string} options.kind for the logs
   * @param {(obj: object) => string | undefined} options.jobKeyOf the `namespace/job` an object belongs to
   * @param {(key: string, obj: object, type: "add" | "update" | "delete") => void} options.onChange called for each added, changed or deleted object, with its job key
   * @param {{warn: Function, info: Function}} options.log
   * @param {() => void} [options.onRestart] called at each restart after an error
   * @param {(type: "add" | "update" | "delete", obj: object) => void} [options.onObject] called first for every event, whatever job the object is of (or none)
   */
  constructor(listWatch, { kind, jobKeyOf, onChange, log, onRestart = () => {}, onObject = () => {} }) {
    this.listWatch = listWatch;
    this.kind = kind;
    this.jobKeyOf = jobKeyOf;
    this.log = log;
    this.onRestart = onRestart;
    /** job key -> Map(name -> object) */
    this.byJob = new Map();
    /** `namespace/name` -> job key, to move an object whose key changed */
    this.keyOf = new Map();
    this.synced = false;
    this.stopped = true;
    this.failures = 0;
    this.timer = undefined;
    this.syncWaiters = [];
    const changed = (type) => (obj) => {
      this.failures = 0;
      onObject(type, obj);
      this.index(obj);
      const key = this.jobKeyOf(obj);
      if (key) {
        onChange(key, obj, type);
      }
    };
    listWatch.on("add", changed("add"));
    listWatch.on("update", changed("update"));
    listWatch.on("delete", (obj) => {
      onObject("delete", obj);
      const key = this.unindex(obj);
      if (key) {
        onChange(key, obj, "delete");
      }
    });
    listWatch.on("error", (e) => this.restart(e));
  }

  /** Starts listing and watching; resolves once the first list is in the cache. */
  start() {
    this.stopped = false;
    this.run();
    return this.waitForSync();
  }

  run() {
    this.listWatch.start().then(
      () => this.markSynced(),
      (e) => this.restart(e),
    );
  }

  markSynced() {
    // start() resolves after the list and once the watch is open; an error in between leaves the
    // cache unsynced and restarts.
    if (this.stopped || this.listWatch.latestResourceVersion() === "") {
      return;
    }
    this.synced = true;
    for (const resolve of this.syncWaiters.splice(0)) {
      resolve();
    }
  }

  waitForSync() {
    return this.synced ? Promise.resolve() : new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  restart(e) {
    if (this.stopped || this.timer) {
      return;
    }
    this.failures += 1;
    const delay = Math.min(RESTART_MAX_MS, RESTART_BASE_MS * 2 ** Math.min(this.failures - 1, 10));
    this.log.warn("watch lost; listing and watching again", { kind: this.kind, error: e, retryInMs: delay });
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.stopped) {
        this.onRestart();
        this.run();
      }
    }, delay);
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const resolve of this.syncWaiters.splice(0)) {
      resolve();
    }
    return this.listWatch.stop();
  }

  index(obj) {
    const id = `${obj.metadata.namespace ?? ""}/${obj.metadata.name}`;
    const key = this.jobKeyOf(obj);
    const before = this.keyOf.get(id);
    if (before !== undefined && before !== key) {
      this.remove(before, obj.metadata.name);
    }
    if (key === undefined) {
      this.keyOf.delete(id);
      return;
    }
    this.keyOf.set(id, key);
    let objects = this.byJob.get(key);
    if (!objects) {
      objects = new Map();
      this.byJob.set(key, objects);
    }
    objects.set(obj.metadata.name, obj);
  }

  unindex(obj) {
    const id = `${obj.metadata.namespace ?? ""}/${obj.metadata.name}`;
    const key = this.keyOf.get(id) ?? this.jobKeyOf(obj);
    this.keyOf.delete(id);
    if (key !== undefined) {
      this.remove(key, obj.metadata.name);
    }
    return key;
  }

  remove(key, name) {
    const objects = this.byJob.get(key);
    objects?.delete(name);
    if (objects?.size === 0) {
      this.byJob.delete(key);
    }
  }

  /** The cached objects that belong to the job `namespace/name`. */
  ofJob(key) {
    return [...(this.byJob.get(key)?.values() ?? [])];
  }

  /** The cached object, or undefined. */
  get(namespace, name) {
    return this.listWatch.get(name, namespace);
  }

  /** Every job key with an object in the cache. */
  jobKeys() {
    return [...this.byJob.keys()];
  }
}
