// The soak's observer: watches of its own (admin's, not the controllers') on the soak's pods,
// services, jobs and plans and on the lease, and the invariants checked from what they show.
import * as k8s from "@kubernetes/client-node";
import { collection, request } from "../../../tests/e2e/kube.js";
import { wallClock } from "./clock.js";

const JOB_API = "elastic.iml.github.io/v1alpha1";
const L = (o, k) => o.metadata.labels?.[`elasticjob.dlrover/${k}`];
const live = (p) => ["Pending", "Running"].includes(p.status?.phase) && !p.metadata.deletionTimestamp;
/** A pod that ended with a failure the master leaves ended: Failed, but not OOMKilled (relaunched). */
const endedForGood = (p) => p.status?.phase === "Failed" && p.status?.containerStatuses?.[0]?.state?.terminated?.reason !== "OOMKilled";
/**
 * The scheduler's reason a live pod is not bound (its PodScheduled condition False with reason
 * `Unschedulable`: no node has room or fits), else undefined. Such a pod was made: what it waits
 * for is room, not a controller.
 */
export const unschedulable = (p) => {
  if (p.status?.phase !== "Pending" || p.spec?.nodeName || p.metadata.deletionTimestamp) return undefined;
  const c = (p.status?.conditions ?? []).find((x) => x.type === "PodScheduled" && x.status === "False" && x.reason === "Unschedulable");
  return c && (c.message || c.reason);
};
const PHASE_ORDER = { "": 0, Created: 1, Pending: 2, Running: 3, Scaling: 3, Restarting: 3, Succeeded: 4, Failed: 4 };
const PLAN_ORDER = { "": 0, Created: 1, Pending: 2, Scaling: 3, Succeeded: 4, Failed: 4 };
const RSS_BOUND_MB = 500;
const SOCKET_BOUND = 200;

/**
 * The pace of kube-controller-manager's garbage collector the deletion check allows: its 20
 * workers (--concurrent-gc-syncs, ConcurrentGCSyncs in pkg/controller/garbagecollector/config/
 * v1alpha1/defaults.go) take the dependents of a deleted owner from one FIFO queue
 * (processGraphChanges enqueues them all when it sees the owner's deletion), and each does two
 * requests a dependent in turn (attemptToDeleteItem: getObject, then deleteObject; the owner's
 * lookup is the absentOwnerCache's after the first). At the 1 s Kubernetes' API call latency SLO
 * allows a call (p99, single-object calls; kubernetes/community sig-scalability/slos/slos.md):
 * 20 / 2 = 10 dependents a second. docs/controller.md's "The deletion check's bound".
 */
export const COLLECTED_PER_S = 10;
/** What the check allows a deleted job whose dependents are first in the collector's queue. */
const DELETION_BOUND_MS = 60_000;

/**
 * When what a deleted job owned must be gone: 60 s from its deletion, plus the time the collector
 * takes, at COLLECTED_PER_S, for the dependents queued before its own and its own (`queued`: the
 * objects of deleted jobs it had not yet deleted when the deletion was seen).
 */
export const deletionBoundMs = (queued) => DELETION_BOUND_MS + Math.ceil((queued * 1000) / COLLECTED_PER_S);

/**
 * The garbage collector's queues from the API server's /metrics: the test cluster runs the
 * controller manager in the API server's process, so its workqueue metrics (k8s.io/client-go
 * util/workqueue, names garbage_collector_graph_changes and garbage_collector_attempt_to_delete,
 * pkg/controller/garbagecollector) are served there. Counters restart with the control plane.
 */
export function collectorQueues(text) {
  const v = {};
  for (const line of String(text).split("\n")) {
    const m = /^workqueue_(\w+)\{name="garbage_collector_(graph_changes|attempt_to_delete)"\} (\S+)$/.exec(line);
    if (m) v[`${m[2]}.${m[1]}`] = Number(m[3]);
  }
  const q = (name) => ({
    depth: v[`${name}.depth`],
    adds: v[`${name}.adds_total`],
    retries: v[`${name}.retries_total`],
    done: v[`${name}.work_duration_seconds_count`],
    workSeconds: v[`${name}.work_duration_seconds_sum`],
    longestRunningS: v[`${name}.longest_running_processor_seconds`],
  });
  return v["attempt_to_delete.depth"] === undefined ? undefined : { graphChanges: q("graph_changes"), attemptToDelete: q("attempt_to_delete") };
}

export class Observer {
  /** `clock`: now() and sleep(ms), the wall clock's unless a test gives one it moves itself. */
  constructor({ kc, namespace, leaseNamespace, leaseName, log, clock = wallClock }) {
    Object.assign(this, { kc, namespace, leaseNamespace, leaseName, log, clock });
    this.pods = new Map();
    /**
     * The names of each job's pods, as onPod saw them: job -> Set of names (podsOf reads them back
     * through `pods`, so a pod gone from it is gone from here too). At 5,000 pods a scan of every
     * pod for each pod event or each job took the observer a core.
     */
    this.byJob = new Map();
    /**
     * The ranks whose pod ended with a failure the master leaves ended (exit 1, not an OOMKill):
     * `job/type/rank` -> that pod's id. Kept past the pod: a failed pod removed with its node (or
     * by the garbage collector) leaves its rank ended, and no relaunch is owed for it.
     */
    this.endedRanks = new Map();
    this.services = new Map();
    this.jobs = new Map();
    this.plans = new Map();
    this.created = new Set();
    this.violations = [];
    this.seen = new Set();
    /** The lease's holders in turn: {identity, from} (acquireTime, ms). */
    this.tenures = [];
    this.managers = new Map();
    this.deleted = new Map();
    /** The uid of every job deleted in the run (their objects are the collector's work). */
    this.deletedUids = new Set();
    /**
     * The collector's progress: the uids of the objects of deleted jobs it had not deleted at the
     * last check, and when it last deleted one (or had none to delete).
     */
    this.collector = { waiting: new Set(), progress: 0 };
    /** The collector's queues as /metrics showed them (soak.js samples them): [{at, ...collectorQueues}]. */
    this.collectorSamples = [];
    this.phases = new Map();
    this.informers = [];
    /** Each job's timeline as the watches showed it: job name -> [{at, event, kind, name, rv, what}]. */
    this.timelines = new Map();
    /** The lease's changes of holder: [{at, identity}]. */
    this.leaseChanges = [];
    /** Each watch and when it last connected: [{path, at}]. */
    this.connections = [];
    /** When the control plane last served again after a restart (its garbage collector with it). */
    this.controlPlaneBack = 0;
    /** When DLRover's real master watches its pods again after the last restart (clockOf). */
    this.realMasterBack = 0;
    /**
     * The pods the scheduler left unbound for want of room, reported apart from the controllers'
     * convergence: pod name -> {job, at (first seen so), reason (the scheduler's message)}.
     */
    this.unschedulable = new Map();
    /** Each job not converged at the last look, and since when what it is owed arrived (unconverged). */
    this.owedSince = new Map();
  }

  /** A violation, with the jobs it concerns (their timelines go into its evidence). */
  violation(kind, detail, jobs = []) {
    const key = `${kind} ${detail}`;
    if (!this.seen.has(key)) {
      this.seen.add(key);
      this.violations.push({ kind, detail, jobs: [...new Set(jobs)], at: this.clock.now() });
      this.log(`VIOLATION ${kind}: ${detail}`);
    }
  }

  /** One change an informer delivered, into its job's timeline (one entry a resourceVersion). */
  record(event, obj, kind) {
    const job = jobOf(obj, kind);
    if (!job) return;
    const line = this.timelines.get(job) ?? [];
    const rv = obj.metadata.resourceVersion;
    if (event !== "DELETED" && line.some((e) => e.rv === rv && e.name === obj.metadata.name && e.kind === kind)) return;
    line.push({ at: this.clock.now(), event, kind, name: obj.metadata.name, rv, what: describe(obj, kind) });
    this.timelines.set(job, line);
  }

  violationsByKind() {
    const out = {};
    for (const v of this.violations) out[v.kind] = (out[v.kind] ?? 0) + 1;
    return out;
  }

  replica(identity, fieldManager) {
    this.managers.set(fieldManager, identity);
  }

  identityOf(fieldManager) {
    return this.managers.get(fieldManager);
  }

  holder() {
    return this.tenures.at(-1)?.identity;
  }

  async start() {
    const ns = this.namespace;
    // `kind`: a list's items carry none.
    const watch = (path, map, onChange, kind) => {
      const list = async () => {
        const a = await request(this.kc, "GET", path);
        if (a.status !== 200) throw new Error(`list ${path}: ${a.status}`);
        return a.body;
      };
      // When its watch last connected (the API server answered it): a restart cuts every watch,
      // and what the caches show is the cluster's again only once each has connected since.
      const w = new k8s.Watch(this.kc);
      const connection = { path, at: 0 };
      this.connections.push(connection);
      const connect = w.watch.bind(w);
      w.watch = async (...args) => {
        const request = await connect(...args);
        connection.at = this.clock.now();
        return request;
      };
      const informer = new k8s.ListWatch(path, w, list, false);
      const put = (event) => (o) => {
        if (kind) this.record(event, o, kind);
        map?.set(o.metadata.name, o);
        onChange?.(o, false);
      };
      informer.on(k8s.ADD, put("ADDED"));
      informer.on(k8s.UPDATE, put("MODIFIED"));
      informer.on(k8s.DELETE, (o) => {
        if (kind) this.record("DELETED", o, kind);
        map?.delete(o.metadata.name);
        onChange?.(o, true);
      });
      informer.on(k8s.ERROR, () => setTimeout(() => !this.stopped && informer.start().catch(() => {}), 1000));
      this.informers.push(informer);
      return informer.start();
    };
    await Promise.all([
      watch(collection("v1", "Pod", ns), this.pods, (p, gone) => this.onPod(p, gone), "Pod"),
      watch(collection("v1", "Service", ns), this.services, (s) => this.written(s), "Service"),
      watch(collection(JOB_API, "ElasticJob", ns), this.jobs, (j, gone) => this.onJob(j, gone), "ElasticJob"),
      watch(collection(JOB_API, "ScalePlan", ns), this.plans, (p) => this.onPlan(p), "ScalePlan"),
      watch(`/apis/coordination.k8s.io/v1/namespaces/${this.leaseNamespace}/leases`, undefined, (l) => l.metadata.name === this.leaseName && this.onLease(l)),
    ]);
    this.checker = setInterval(() => this.checkDeleted(), 2000);
  }

  stop() {
    this.stopped = true;
    clearInterval(this.checker);
    for (const i of this.informers) i.stop();
  }

  onLease(lease) {
    const identity = lease.spec?.holderIdentity;
    if (identity && identity !== this.holder()) {
      this.tenures.push({ identity, from: Date.parse(lease.spec.acquireTime) });
      this.leaseChanges.push({ at: this.clock.now(), identity, rv: lease.metadata.resourceVersion, acquireTime: lease.spec.acquireTime });
    }
  }

  /** No write by a replica once another held the lease: each managedFields entry's time against the tenures. */
  written(obj) {
    for (const entry of obj.metadata.managedFields ?? []) {
      const identity = this.managers.get(entry.manager);
      if (!identity || !entry.time) continue;
      const at = Date.parse(entry.time);
      const mine = this.tenures.map((t, i) => [t, this.tenures[i + 1]]).filter(([t]) => t.identity === identity);
      // The time is in whole seconds, cut down: the write was at `at` or up to 1 s later. A
      // violation only when it was surely after the next holder took the lease.
      const inside = mine.some(([t, next]) => at + 1000 >= t.from && (!next || at < next.from));
      if (mine.length && !inside) {
        const job = jobOf(obj, obj.kind);
        this.violation("write-after-lost-lease", `${entry.manager} wrote ${obj.kind ?? ""} ${obj.metadata.name} at ${entry.time} outside its tenures`, job ? [job] : []);
      }
    }
  }

  /** The pods of `job` now: those of `pods` that onPod saw with its name label. */
  *podsOf(job) {
    for (const name of this.byJob.get(job) ?? []) {
      const p = this.pods.get(name);
      if (p && L(p, "name") === job) yield p;
    }
  }

  /** The live pods now (Pending or Running, not being deleted): the soak's size. */
  livePods() {
    let n = 0;
    for (const p of this.pods.values()) if (live(p)) n += 1;
    return n;
  }

  onPod(pod, gone) {
    this.created.add(pod.metadata.uid);
    this.written(pod);
    const job = L(pod, "name");
    if (gone) {
      this.byJob.get(job)?.delete(pod.metadata.name);
      if (this.byJob.get(job)?.size === 0) this.byJob.delete(job);
      return;
    }
    if (job) {
      if (!this.byJob.has(job)) this.byJob.set(job, new Set());
      this.byJob.get(job).add(pod.metadata.name);
    }
    const reason = unschedulable(pod);
    if (reason && !this.unschedulable.has(pod.metadata.name)) {
      this.unschedulable.set(pod.metadata.name, { job: L(pod, "name"), at: this.clock.now(), reason });
      this.log(`unschedulable: ${pod.metadata.name}: ${reason}`);
    }
    const type = L(pod, "replica-type");
    if (job && type && type !== "dlrover-master") {
      // A newer pod at the rank (a scale-up that reuses it) makes the rank owed again.
      const key = `${job}/${type}/${L(pod, "rank-index")}`;
      const id = Number(L(pod, "replica-index"));
      if (endedForGood(pod)) this.endedRanks.set(key, id);
      else if (id > (this.endedRanks.get(key) ?? Infinity)) this.endedRanks.delete(key);
    }
    if (!job || !type || !live(pod)) return;
    const rank = type === "dlrover-master" ? "0" : L(pod, "rank-index");
    const twins = [...this.podsOf(job)].filter((p) => p !== pod && live(p) && L(p, "name") === job && L(p, "replica-type") === type && (type === "dlrover-master" ? "0" : L(p, "rank-index")) === rank);
    if (twins.length) {
      this.violation("two-live-pods", `${job} ${type}-${rank}: ${pod.metadata.name} and ${twins.map((p) => p.metadata.name).join(", ")}`, [job]);
    }
    const count = L(pod, "relaunch-count");
    const same = [...this.podsOf(job)].filter((p) => p.metadata.name !== pod.metadata.name && L(p, "name") === job && L(p, "replica-type") === type && L(p, "rank-index") === rank && L(p, "relaunch-count") === count && type !== "dlrover-master");
    if (same.length && count !== "0") {
      this.violation("relaunched-twice", `${job} ${type}-${rank} relaunch ${count}: ${pod.metadata.name} and ${same.map((p) => p.metadata.name).join(", ")}`, [job]);
    }
  }

  onJob(job, gone) {
    this.written(job);
    const name = job.metadata.name;
    if (gone || job.metadata.deletionTimestamp) {
      if (!this.deleted.has(name) && !this.deletedUids.has(job.metadata.uid)) {
        this.deletedUids.add(job.metadata.uid);
        // Its dependents join the collector's queue behind those of the jobs deleted before it.
        this.deleted.set(name, { uid: job.metadata.uid, at: this.clock.now(), queued: this.waitingForCollector().length });
      }
      return;
    }
    const phase = job.status?.phase ?? "";
    const before = this.phases.get(`job/${name}`);
    if (before !== undefined && PHASE_ORDER[phase] < PHASE_ORDER[before]) {
      this.violation("phase-backwards", `job ${name}: ${before} -> ${phase}`, [name]);
    }
    this.phases.set(`job/${name}`, phase);
    const conditions = job.status?.status?.conditions ?? job.status?.conditions ?? [];
    const had = this.phases.get(`conditions/${name}`) ?? [];
    const types = conditions.map((c) => c.type);
    for (const t of had) {
      if (!types.includes(t)) this.violation("condition-lost", `job ${name}: ${t} gone`, [name]);
    }
    this.phases.set(`conditions/${name}`, types);
  }

  onPlan(plan) {
    this.written(plan);
    const key = `plan/${plan.metadata.name}/${plan.metadata.uid}`;
    const phase = plan.status?.phase ?? "";
    const before = this.phases.get(key);
    if (before !== undefined && PLAN_ORDER[phase] < PLAN_ORDER[before]) {
      const job = jobOf(plan, "ScalePlan");
      this.violation("phase-backwards", `plan ${plan.metadata.name}: ${before} -> ${phase}`, job ? [job] : []);
    }
    this.phases.set(key, phase);
  }

  /** The objects of deleted jobs the garbage collector has not deleted yet (no deletionTimestamp). */
  waitingForCollector() {
    const owned = (o) => !o.metadata.deletionTimestamp && (o.metadata.ownerReferences ?? []).some((r) => this.deletedUids.has(r.uid));
    return [...this.pods.values(), ...this.services.values(), ...this.plans.values()].filter(owned);
  }

  /**
   * Nothing of a deleted job is left once its bound (deletionBoundMs) has passed: no pod, service
   * or plan of its uid. And the collector never stands still: while objects of deleted jobs wait,
   * it deletes one within 60 s (at its slowest pace the check allows it deletes 10 a second), so a
   * collector that stopped (seed 5003) is reported as such, not as orphans minutes later.
   */
  checkDeleted() {
    const now = this.clock.now();
    // The garbage collector runs in the control plane: while a restart has it down, and until
    // it serves again, nothing of a deleted job can go (counted from then, not from the delete).
    const since = (at) => now - Math.max(at, this.controlPlaneBack);
    const waiting = this.waitingForCollector();
    const ids = new Set(waiting.map((o) => o.metadata.uid));
    // Its clock starts when something begins to wait, and again at each object it deletes.
    const before = this.collector.waiting;
    if (waiting.length === 0 || before.size === 0 || [...before].some((uid) => !ids.has(uid))) this.collector.progress = now;
    this.collector.waiting = ids;
    if (since(this.collector.progress) >= DELETION_BOUND_MS) {
      const jobs = [...this.deleted].filter(([, d]) => waiting.some((o) => (o.metadata.ownerReferences ?? []).some((r) => r.uid === d.uid))).map(([name]) => name);
      const last = this.collectorSamples.at(-1);
      const queues = last
        ? `; its queues at ${new Date(last.at).toISOString()}: graph changes ${last.graphChanges.depth}, attempt to delete ${last.attemptToDelete.depth} (${last.attemptToDelete.adds} added, ${last.attemptToDelete.done} done, ${last.attemptToDelete.retries} retried, a worker busy ${last.attemptToDelete.longestRunningS} s)`
        : "";
      this.violation("collector-stalled-60s", `${waiting.length} objects of ${jobs.length} deleted jobs waiting, none deleted for ${Math.round(since(this.collector.progress) / 1000)} s (since ${new Date(this.collector.progress).toISOString()})${queues}`, jobs.slice(0, 10));
      this.collector.progress = now;
    }
    for (const [name, { uid, at, queued = 0 }] of this.deleted) {
      const bound = deletionBoundMs(queued);
      if (since(at) < bound) continue;
      const owned = (o) => (o.metadata.ownerReferences ?? []).some((r) => r.uid === uid);
      const left = [...this.pods.values(), ...this.services.values(), ...this.plans.values()].filter(owned);
      if (left.length) {
        const why = `${bound / 1000} s after its deletion: 60 s + ${queued} objects of deleted jobs the collector had not deleted at ${COLLECTED_PER_S} a second`;
        this.violation("orphan-after-60s", `job ${name}: ${left.map((o) => o.metadata.name).join(", ")} (${why})`, [name]);
      }
      this.deleted.delete(name);
    }
  }

  bounds(samples) {
    for (const s of samples) {
      if (s.rss > RSS_BOUND_MB) this.violation("rss-unbounded", `${s.name}: ${s.rss.toFixed(0)} MB > ${RSS_BOUND_MB}`);
      if (s.fds > SOCKET_BOUND) this.violation("open-connections-unbounded", `${s.name}: ${s.fds} sockets > ${SOCKET_BOUND}`);
    }
  }

  /** Convergence is counted from `at`: when the last fault took effect (soak/effect.js). */
  faultEnded(at) {
    this.lastFault = at;
  }

  /** The first change of the lease's holder the watches showed after `since` (ms), if any. */
  holderSince(since) {
    return this.leaseChanges.find((c) => c.at > since);
  }

  /** Whether every watch has connected at or after `since` (ms). */
  watchingSince(since) {
    return this.connections.length > 0 && this.connections.every((c) => c.at >= since);
  }

  /** Polls `check` every 50 ms for at most `seconds`: its first truthy value, else undefined. */
  async until(check, seconds) {
    const deadline = this.clock.now() + seconds * 1000;
    for (;;) {
      const value = check();
      if (value || this.clock.now() > deadline) return value || undefined;
      await this.clock.sleep(50);
    }
  }

  /** What each job's newest plans ask: type -> replicas (the newest plan that names the type). */
  desired(job, all = this.plans.values()) {
    const plans = [...all]
      .filter((p) => (p.metadata.ownerReferences ?? []).some((r) => r.uid === job.metadata.uid))
      .sort((a, b) => Number(a.metadata.name.split("-").pop()) - Number(b.metadata.name.split("-").pop()));
    const want = {};
    for (const p of plans) {
      for (const [type, s] of Object.entries(p.spec.replicaResourceSpecs ?? {})) want[type] = s.replicas;
    }
    return { want, plans };
  }

  /**
   * Why each job is not converged now: what the controllers owe it, every task of its newest plans
   * made and Running, each rank once, every plan done. A pod the scheduler leaves unbound for want
   * of room was made as asked: it counts as delivered here and is reported apart
   * (`this.unschedulable`, with the scheduler's reason).
   */
  unconverged() {
    const why = [];
    /** job -> when the oldest of what it is not converged to arrived (clockOf). */
    this.owedSince = new Map();
    const owed = (name, at) => Number.isFinite(at) && this.owedSince.set(name, Math.min(this.owedSince.get(name) ?? Infinity, at));
    // Running, or made and waiting for room the cluster does not have.
    const delivered = (p) => p.status.phase === "Running" || unschedulable(p) !== undefined;
    // Every pod and plan by its job, once: a scan of all of them for each job, and of a job's pods
    // for each rank, took a core at 5,000 pods (this runs every 100 ms while a fault is mended).
    const podsBy = new Map();
    for (const p of this.pods.values()) {
      const j = L(p, "name");
      if (j !== undefined) (podsBy.get(j) ?? podsBy.set(j, []).get(j)).push(p);
    }
    const plansBy = new Map();
    for (const p of this.plans.values()) {
      for (const uid of new Set((p.metadata.ownerReferences ?? []).map((r) => r.uid))) (plansBy.get(uid) ?? plansBy.set(uid, []).get(uid)).push(p);
    }
    for (const job of this.jobs.values()) {
      const name = job.metadata.name;
      if (job.metadata.deletionTimestamp || ["Succeeded", "Failed"].includes(job.status?.phase)) continue;
      const { want, plans } = this.desired(job, plansBy.get(job.metadata.uid) ?? []);
      const all = podsBy.get(name) ?? [];
      const pods = all.filter(live);
      const young = this.clock.now() - Date.parse(job.metadata.creationTimestamp) < 30_000;
      const made = Date.parse(job.metadata.creationTimestamp);
      if (!pods.some((p) => L(p, "replica-type") === "dlrover-master" && delivered(p)) && !young) {
        why.push(`${name}: master not Running`);
        owed(name, made);
      }
      // A job's first plan comes once its master runs (the master's to write): not yet, not a fault.
      if (plans.length === 0) continue;
      for (const [type, n] of Object.entries(want)) {
        // The newest pod of each rank (the highest id; the first seen of equals).
        const newestOf = new Map();
        for (const p of all) {
          if (L(p, "replica-type") !== type) continue;
          const r = Number(L(p, "rank-index"));
          const cur = newestOf.get(r);
          if (!cur || Number(L(p, "replica-index")) > Number(L(cur, "replica-index"))) newestOf.set(r, p);
        }
        // A rank whose newest pod ended with exit 1 (a failure the master's and the restart
        // policy's rules may leave ended) is not asked for; an OOMKill is relaunched, so it is.
        // So is one whose such pod is gone since (deleted with its node) with none newer.
        const ended = new Set();
        for (let r = 0; r < n; r++) {
          const newest = newestOf.get(r);
          const endedId = this.endedRanks.get(`${name}/${type}/${r}`);
          const gone = endedId !== undefined && newest === undefined;
          if ((newest && endedForGood(newest)) || gone) ended.add(r);
        }
        const ranks = pods.filter((p) => L(p, "replica-type") === type && delivered(p)).map((p) => Number(L(p, "rank-index")));
        const ok = ranks.length === n - ended.size && ranks.every((r) => r < n && !ended.has(r)) && new Set(ranks).size === ranks.length;
        if (!ok) {
          why.push(`${name}: ${type} ${ranks.length}/${n} Running`);
          owed(name, made);
        }
      }
      const pending = plans.filter((p) => p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed");
      if (pending.length) {
        why.push(`${name}: plan ${pending.map((p) => p.metadata.name).join(",")} not done`);
        owed(name, Math.min(...pending.map((p) => Date.parse(p.metadata.creationTimestamp))));
      }
    }
    return why;
  }

  /** The pods of the jobs not converged, for the log: name, phase, rank, relaunch count, node. */
  podsOfUnconverged() {
    const names = new Set(this.unconverged().map((w) => w.split(":")[0]));
    return [...this.pods.values()]
      .filter((p) => names.has(L(p, "name")))
      .map((p) => `${p.metadata.name} ${p.status?.phase}${p.metadata.deletionTimestamp ? " (deleting)" : ""} rank ${L(p, "rank-index")} relaunch ${L(p, "relaunch-count")} ${p.status?.containerStatuses?.[0]?.state?.terminated?.reason ?? ""} ${p.spec.nodeName ?? "(unbound)"}`);
  }

  /**
   * When a job's convergence is counted from: when the last fault took effect; for the job of
   * DLRover's real master (named real*), not before that master watches its pods again after a
   * restart of the control plane. DLRover 0.6.1's master (dist_job_manager.py, _monitor_nodes)
   * sleeps 30 s and then 5 s after its pod watch fails, and only then lists its pods again: a
   * pod of its job deleted meanwhile is relaunched by it 35 s after the restart at the earliest
   * (seen: 35 s after the old control plane was killed, and the controller created the relaunched
   * pod 60 ms after the master asked). What the controller does for that job is checked from then.
   */
  clockOf(job) {
    const from = job.startsWith("real") ? Math.max(this.lastFault, this.realMasterBack) : this.lastFault;
    // What arrived after the fault took effect (a job made since, a plan written since) is owed
    // from its arrival, not from the fault: at the sized mix jobs arrive every 1 to 2 s, and seed
    // 5101 counted jobs made 12 s before the check against the fault's 30 s.
    return Math.max(from, this.owedSince.get(job) ?? 0);
  }

  /**
   * Seconds until every job is converged, each counted from its own clock (clockOf); undefined
   * once a job is still not converged `limit` seconds after its clock started.
   */
  async converged(limit) {
    /** job -> when it was last seen not converged. */
    const seen = new Map();
    for (;;) {
      const now = this.clock.now();
      const jobs = [...new Set(this.unconverged().map((w) => w.split(":")[0]))];
      if (jobs.length === 0) {
        return Math.max(0, ...[...seen].map(([job, at]) => (at - this.clockOf(job)) / 1000));
      }
      if (jobs.some((job) => now - this.clockOf(job) > limit * 1000)) return undefined;
      for (const job of jobs) seen.set(job, now);
      await this.clock.sleep(100);
    }
  }

  /**
   * The run's end, once its last jobs are deleted: checks every 2 s until nothing of a deleted job
   * is left (then every pending check passes: what it checks is gone), each job's bound has passed
   * (checked), or the collector was reported stalled (a run that has failed: the checks it cut
   * short are logged). At least `minSeconds`, so the last deletions are seen first.
   */
  async settle(minSeconds) {
    const begun = this.clock.now();
    const stalls = () => this.violations.filter((v) => v.kind === "collector-stalled-60s").length;
    const stalled = stalls();
    for (;;) {
      this.checkDeleted();
      const pending = [...this.deleted.values()];
      const left = pending.some(({ uid }) => [...this.pods.values(), ...this.services.values(), ...this.plans.values()].some((o) => (o.metadata.ownerReferences ?? []).some((r) => r.uid === uid)));
      if (this.clock.now() - begun >= minSeconds * 1000 && (!left || stalls() > stalled)) {
        if (left) this.log(`the collector stalled: ${pending.length} deleted jobs' checks not made`);
        this.deleted.clear();
        return;
      }
      await this.clock.sleep(2000);
    }
  }

  podsCreated() {
    return this.created.size;
  }

  /** The pods left unbound for want of room, for the figures: how many, and each reason's count. */
  unschedulableReport() {
    const reasons = {};
    for (const { reason } of this.unschedulable.values()) reasons[reason] = (reasons[reason] ?? 0) + 1;
    return { pods: this.unschedulable.size, jobs: [...new Set([...this.unschedulable.values()].map((u) => u.job))].sort(), reasons };
  }
}

/** The job an object is of: its name label, else its owner (a plan is owned as kind `elasticjob`). */
function jobOf(obj, kind) {
  if (kind === "ElasticJob") return obj.metadata.name;
  return L(obj, "name") ?? (obj.metadata.ownerReferences ?? []).find((r) => r.kind.toLowerCase() === "elasticjob")?.name;
}

/** What a timeline entry says of an object: its phase and what decides the invariants. */
function describe(o, kind) {
  const parts = [];
  const phase = o.status?.phase;
  if (phase) parts.push(phase);
  if (kind === "Pod") {
    parts.push(`rank ${L(o, "rank-index") ?? "-"} relaunch ${L(o, "relaunch-count") ?? "-"}`);
    parts.push(`node ${o.spec?.nodeName ?? "-"}`);
    const requests = o.spec?.containers?.[0]?.resources?.requests;
    if (requests) parts.push(`requests ${Object.entries(requests).map(([k, v]) => `${k}=${v}`).join(",")}`);
    // The scheduler's word on a pod it could not place (PodScheduled False: why, node by node).
    const scheduled = (o.status?.conditions ?? []).find((c) => c.type === "PodScheduled" && c.status === "False");
    if (scheduled) parts.push(`not scheduled: ${scheduled.reason ?? ""} ${scheduled.message ?? ""}`.trim());
    const term = o.status?.containerStatuses?.[0]?.state?.terminated;
    if (term) parts.push(`exit ${term.exitCode} ${term.reason ?? ""}`.trim());
  }
  if (kind === "ScalePlan") {
    const specs = Object.entries(o.spec?.replicaResourceSpecs ?? {}).map(([t, r]) => `${t}=${r.replicas}`);
    const creates = (o.spec?.createPods ?? []).map((p) => p.name);
    if (specs.length) parts.push(`replicas ${specs.join(",")}`);
    if (creates.length) parts.push(`createPods ${creates.join(",")}`);
  }
  if (kind === "ElasticJob") {
    const conditions = (o.status?.conditions ?? []).map((c) => `${c.type}=${c.status}`);
    if (conditions.length) parts.push(`conditions ${conditions.join(",")}`);
  }
  if (o.metadata.deletionTimestamp) parts.push(`deleting since ${o.metadata.deletionTimestamp}`);
  const managers = [...new Set((o.metadata.managedFields ?? []).filter((m) => m.manager.startsWith("soak-")).map((m) => `${m.manager}@${m.time}`))];
  if (managers.length) parts.push(`written by ${managers.join(",")}`);
  return parts.join("; ");
}
