// What the caches must show of a job before it is planned again: the writes of its last pass, as
// client-go's controllers keep "expectations". Planning from a cache that lags one's own writes
// would create pods that exist and write statuses that conflict.
//
// An expectation is made before its write (the watch event may come before the write's answer),
// given up when the write fails, and met by the informer's event for the object, or by the cache
// already showing it (a create that found the pod, a delete that found it gone). Unmet, it is given
// up after a timeout: the pass plans anyway. Pods and services are expected present or gone (the
// core makes a service again when it sees it missing, so a pass must not plan from a cache that has
// not shown a service just made); job and plan statuses at a newer resourceVersion. With Kueue, a
// Workload is expected present once made, and at a newer resourceVersion once written; with a gang
// scheduler, a PodGroup likewise, and gone once deleted.

/** The cache of each kind, by the name the caches are given under. */
const CACHES = { Pod: "pods", Service: "services", ElasticJob: "jobs", ScalePlan: "plans", Workload: "workloads", PodGroup: "podGroups" };

export class Expectations {
  /**
   * @param {object} options
   * @param {{pods: {get(namespace: string, name: string): object | undefined}, services: {get: Function}, jobs: {get: Function}, plans: {get: Function}}} options.caches
   * @param {number} [options.timeoutMs]
   * @param {() => number} [options.now] the clock the timeout is read on (ms); a test gives one it moves
   */
  constructor({ caches, timeoutMs = 30_000, now = () => Date.now() }) {
    this.caches = caches;
    this.timeoutMs = timeoutMs;
    this.now = now;
    /** job key -> {deadline, entries: Map(`${kind}/${name}` -> entry)} */
    this.byJob = new Map();
  }

  /** Expects the object (Pod, Service) to show up (`present`) or go; `uid`, when known, names the very object. */
  presence(key, kind, namespace, name, present, uid) {
    return this.add(key, { kind, namespace, name, present, uid });
  }

  /** Expects the object (ElasticJob, ScalePlan) at a resourceVersion other than those in `stale`. */
  newer(key, kind, namespace, name, stale) {
    const entry = this.entries(key).get(`${kind}/${name}`);
    if (entry?.stale) {
      for (const version of stale) {
        entry.stale.add(version);
      }
      return entry;
    }
    return this.add(key, { kind, namespace, name, stale: new Set(stale) });
  }

  add(key, entry) {
    const job = this.job(key);
    job.deadline = this.now() + this.timeoutMs;
    job.entries.set(`${entry.kind}/${entry.name}`, entry);
    return entry;
  }

  /** The write failed: nothing to wait for. */
  drop(key, entry) {
    const entries = this.byJob.get(key)?.entries;
    if (entries?.get(`${entry.kind}/${entry.name}`) === entry) {
      entries.delete(`${entry.kind}/${entry.name}`);
    }
  }

  /** An informer event (`add`, `update`, `delete`) of an object of the job. */
  observed(key, kind, type, obj) {
    const entries = this.byJob.get(key)?.entries;
    const id = `${kind}/${obj.metadata.name}`;
    const entry = entries?.get(id);
    if (entry && this.meets(entry, type === "delete" ? undefined : obj, type)) {
      entries.delete(id);
    }
  }

  /** Whether the object (undefined: absent) meets the entry; `event` when it comes from a watch event. */
  meets(entry, obj, event) {
    if (entry.stale !== undefined) {
      return obj !== undefined && !entry.stale.has(obj.metadata.resourceVersion);
    }
    const same = obj !== undefined && (entry.uid === undefined || obj.metadata.uid === entry.uid);
    if (entry.present) {
      // Created and already deleted again: nothing is pending either.
      return same || event === "delete";
    }
    return !same || obj.metadata.deletionTimestamp !== undefined;
  }

  /**
   * Milliseconds to wait before the job is planned again: 0 when the caches show every write of
   * its last pass (or the wait has timed out; `onTimeout` is called then).
   */
  pending(key, onTimeout = () => {}) {
    const job = this.byJob.get(key);
    if (!job) {
      return 0;
    }
    for (const [id, entry] of job.entries) {
      if (this.meets(entry, this.caches[CACHES[entry.kind]].get(entry.namespace, entry.name))) {
        job.entries.delete(id);
      }
    }
    if (job.entries.size === 0) {
      this.byJob.delete(key);
      return 0;
    }
    const left = job.deadline - this.now();
    if (left <= 0) {
      onTimeout([...job.entries.keys()]);
      this.byJob.delete(key);
      return 0;
    }
    return left;
  }

  forget(key) {
    this.byJob.delete(key);
  }

  job(key) {
    let job = this.byJob.get(key);
    if (!job) {
      job = { deadline: 0, entries: new Map() };
      this.byJob.set(key, job);
    }
    return job;
  }

  entries(key) {
    return this.byJob.get(key)?.entries ?? new Map();
  }
}
