// The soak's jobs and their masters. Each job comes from tests/e2e/jobs.js; its master is played
// as DLRover's 0.6.1 master writes plans (the first plan, scale up and down, a createPods relaunch
// with doubled memory after an OOMKill, the periodic empty plan), except one job at a time whose
// master is DLRover's real one, run from its master pod's own command line (as dlrover.test.js).
import { spawn } from "node:child_process";
import { mkdtempSync, openSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { collection, objectPath, request } from "../../../tests/e2e/kube.js";
import { container, firstPlan, masterPlan, masterResource, psJob } from "../../../tests/e2e/jobs.js";
import * as kubelet from "../../../tests/e2e/kubelet.js";
import { SIZES, asked, mix } from "./mix.js";

const JOB_API = "elastic.iml.github.io/v1alpha1";
const WRAPPER = fileURLToPath(new URL("../../../tests/e2e/dlrover_master.py", import.meta.url));
const L = (o, k) => o.metadata.labels?.[`elasticjob.dlrover/${k}`];

/**
 * The id of a new pod of the job's `type`, as DLRover's master gives one: above every id it has
 * seen (`pods`) and every id it gave before, so two relaunches of one turn never share an id,
 * whatever the watches show yet. (Taken from the pods alone, two workers OOMKilled at once got the
 * same new id: the second createPods named the first's pod, its rank was never relaunched, and a
 * 6-minute run's j18 stayed a worker short for 29 s, until it left.)
 */
export function nextId(state, type, pods) {
  const ids = [...pods].filter((p) => L(p, "name") === state.name && L(p, "replica-type") === type).map((p) => Number(L(p, "replica-index")));
  const id = Math.max(-1, ...ids, state.lastId?.[type] ?? -1) + 1;
  state.lastId = { ...state.lastId, [type]: id };
  return id;
}

export class Players {
  /** `mix`: soak/mix.js's, today's unless SOAK_PODS sizes it. */
  constructor({ kc, namespace, rand, observer, log, python, mix: m = mix(undefined) }) {
    Object.assign(this, { kc, namespace, rand, observer, log, python, mix: m });
    this.jobs = new Map();
    this.jobsStarted = 0;
    this.realJobs = 0;
    /** The name of the last job of the real master (its pods may outlive it). */
    this.lastReal = undefined;
    this.work = mkdtempSync(join(tmpdir(), "elasticjob-soak-"));
    this.children = new Set();
    /** When the jobs' loop last turned, and what it was doing (the soak's watchdog reads them). */
    this.tick = Date.now();
    this.doing = "starting";
  }

  async create(shape, real = false) {
    const name = `${real ? "real" : "j"}${this.jobsStarted}`;
    this.jobsStarted += 1;
    // The real master's job keeps today's sizes (its pods ask 16 CPU each: mk/cluster.mk).
    const workers = this.rand.pick(real ? SIZES : this.mix.sizes);
    const memory = `${this.rand.pick([1, 2])}Gi`;
    const task = container({ cpu: "500m", memory });
    const restartPolicy = this.rand.pick(["ExitCode", "OnFailure"]);
    const job = psJob(this.namespace, name, { ps: shape === "ps" ? this.rand.int(1, 2) : 1, workers, task, worker: { restartPolicy }, chief: shape === "chief", evaluator: shape === "evaluator" });
    const answer = await request(this.kc, "POST", collection(JOB_API, "ElasticJob", this.namespace), { body: job });
    if (answer.status !== 201) throw new Error(`job ${name}: HTTP ${answer.status}`);
    const state = { job: answer.body, name, index: 0, real, restartPolicy, lifetime: this.rand.int(...this.mix.lifetimeS) * 1000, born: Date.now(), relaunched: new Set() };
    this.jobs.set(name, state);
    this.log(`job ${name}: ${shape}, ${workers} workers (${restartPolicy})${real ? ", DLRover's real master" : ""}`);
    if (real) {
      this.lastReal = name;
      this.startReal(state);
    }
    return state;
  }

  async plan(state, spec) {
    const plan = masterPlan(state.job, state.index, spec);
    state.index += 1;
    const a = await request(this.kc, "POST", collection(JOB_API, "ScalePlan", this.namespace), { body: plan });
    return a.status === 201;
  }

  /** One step of a played master: its first plan once its pod runs, then now and then a change. */
  async step(state) {
    if (state.real || state.gone) return;
    const masterPod = [...this.observer.podsOf(state.name)].find((p) => L(p, "name") === state.name && L(p, "replica-type") === "dlrover-master" && p.status?.phase === "Running");
    if (!state.first) {
      if (masterPod) state.first = await this.plan(state, firstPlan(state.job));
      return;
    }
    // A relaunch for each worker the cluster OOMKilled: the failed pod's rank, new id, memory doubled.
    for (const pod of this.observer.podsOf(state.name)) {
      const oom = pod.status?.containerStatuses?.[0]?.state?.terminated?.reason === "OOMKilled";
      if (L(pod, "name") !== state.name || pod.status?.phase !== "Failed" || !oom || state.relaunched.has(pod.metadata.name)) continue;
      state.relaunched.add(pod.metadata.name);
      const type = L(pod, "replica-type");
      const rank = L(pod, "rank-index");
      const id = nextId(state, type, this.observer.podsOf(state.name));
      const { cpu, memory } = pod.spec.containers[0].resources.requests;
      const doubled = masterResource({ cpu, memory: memory.endsWith("Gi") ? `${Number(memory.slice(0, -2)) * 2}Gi` : `${Number(memory.slice(0, -2)) * 2}Mi` });
      const port = type === "ps" ? 2222 : 3333;
      const entry = { name: `${state.name}-edljob-${type}-${id}`, type, id, rankIndex: Number(rank), service: `${state.name}-edljob-${type}-${rank}.${this.namespace}.svc:${port}`, resource: doubled };
      await this.plan(state, { createPods: [entry] });
    }
    // A relaunch for each task pod deleted with its node, as the real master relaunches a node
    // whose pod went away: the same rank, a new id, the same resource.
    for (const pod of (state.lost ?? []).splice(0)) {
      const type = L(pod, "replica-type");
      const rank = L(pod, "rank-index");
      const id = nextId(state, type, [...this.observer.podsOf(state.name), pod]);
      const port = type === "ps" ? 2222 : 3333;
      const resource = masterResource(pod.spec.containers[0].resources.requests);
      await this.plan(state, { createPods: [{ name: `${state.name}-edljob-${type}-${id}`, type, id, rankIndex: Number(rank), service: `${state.name}-edljob-${type}-${rank}.${this.namespace}.svc:${port}`, resource }] });
    }
    const now = Date.now();
    if (now - (state.lastEmpty ?? state.born) > 60_000) {
      state.lastEmpty = now;
      await this.plan(state, {});
    }
  }

  /** A played job's workers to `n` (a scale up or down, as the master writes it). */
  async scale(state, n) {
    const spec = state.job.spec.replicaSpecs.worker;
    state.workers = n;
    return this.plan(state, { replicaResourceSpecs: { worker: { replicas: n, resource: masterResource(spec.template.spec.containers[0].resources.requests) } } });
  }

  /** Pods deleted with their node: each played job's master relaunches its task pods among them. */
  podsDeleted(pods) {
    // Live ones only: a pod that had ended (an OOMKill already relaunched) or was being deleted
    // is no node the master relaunches.
    const live = (p) => ["Pending", "Running"].includes(p.status?.phase) && !p.metadata.deletionTimestamp;
    for (const pod of pods.filter(live)) {
      const state = this.jobs.get(L(pod, "name"));
      if (state && !state.real && state.first && L(pod, "replica-type") !== "dlrover-master") (state.lost ??= []).push(pod);
    }
  }

  played() {
    return [...this.jobs.values()].filter((s) => !s.real && !s.gone && s.first);
  }

  async scaleSome() {
    const state = this.rand.pick(this.played());
    if (!state) return undefined;
    const n = this.rand.int(1, 12) * this.mix.k;
    await this.scale(state, n);
    return `${state.name} scaled to ${n} workers`;
  }

  /** Fails `n` running worker pods: exit 137 OOMKilled, or exit 1 for a job that relaunches on any failure. */
  async failPods(n) {
    // The played jobs' workers (the real master's relaunch of an OOMKill is its own business and
    // took over 30 s in the runs so far: its log is in the soak's folder).
    const played = (p) => this.jobs.get(L(p, "name")) && !this.jobs.get(L(p, "name")).gone && !this.jobs.get(L(p, "name")).real;
    const running = [...this.observer.pods.values()].filter((p) => L(p, "replica-type") === "worker" && kubelet.isRunning(p) && played(p));
    if (running.length === 0) return false;
    const failed = [];
    const errors = [];
    // The draws first, in the order of the pods; then the pods failed at once (one after another,
    // each waiting up to 10 s to be seen Failed, held a sized run's 15 for minutes).
    const chosen = this.rand.shuffle(running).slice(0, n).map((pod) => {
      const state = this.jobs.get(L(pod, "name"));
      const oom = state.restartPolicy === "ExitCode" || this.rand.next() < 0.5;
      return { pod, how: oom ? { exitCode: 137, reason: "OOMKilled" } : { exitCode: 1, reason: "Error" } };
    });
    await Promise.all(chosen.map(({ pod, how }) => {
      this.log(`  ${pod.metadata.name}: exit ${how.exitCode} ${how.reason}`);
      const what = `${pod.metadata.name} exit ${how.exitCode} ${how.reason}`;
      return kubelet.fail(this.kc, this.namespace, pod.metadata.name, how, 10).then(
        () => failed.push(what),
        (e) => {
          // Gone meanwhile (its job left): nothing to fail. Annotated but not seen Failed within
          // 10 s (a loaded KWOK): injected all the same. Not annotated: a failure.
          if (/HTTP 404|status 404|\b404\b/.test(e.message) || !this.observer.pods.has(pod.metadata.name)) return;
          if (/annotate pod/.test(e.message)) errors.push(`${pod.metadata.name}: ${e.message}`);
          else failed.push(`${what} (not seen Failed within 10 s)`);
        },
      );
    }));
    if (failed.length) return failed.join(", ");
    if (errors.length) throw new Error(errors.join("; "));
    return false;
  }

  /** A played job given a scale-up plan, deleted in the middle of it. */
  async deleteMidPlan() {
    const state = this.rand.pick(this.played());
    if (!state) return false;
    const n = this.rand.int(8, 30) * this.mix.k;
    if (!(await this.scale(state, n))) throw new Error(`the scale-up plan of ${state.name} was not created`);
    const ms = this.rand.int(50, 400);
    await new Promise((r) => setTimeout(r, ms));
    await this.remove(state);
    return `${state.name} scaled to ${n} workers, deleted ${ms} ms later`;
  }

  async remove(state) {
    state.gone = true;
    state.master?.kill("SIGKILL");
    // The job stays the loop's until the API server took the delete: one refused during a restart
    // (a 5xx, a connection refused) is tried again on the next turn, else the job would be left
    // with no master to relaunch its pods (a 6-minute run saw that).
    const a = await request(this.kc, "DELETE", objectPath({ apiVersion: JOB_API, kind: "ElasticJob", metadata: { name: state.name, namespace: this.namespace } }));
    if (![200, 202, 404].includes(a.status)) throw new Error(`delete job ${state.name}: HTTP ${a.status}`);
    this.jobs.delete(state.name);
  }

  /** DLRover's real master for the job, from its master pod's command line. */
  async startReal(state) {
    let pod;
    while (!pod && !state.gone) {
      pod = [...this.observer.podsOf(state.name)].find((p) => L(p, "name") === state.name && L(p, "replica-type") === "dlrover-master");
      await new Promise((r) => setTimeout(r, 200));
    }
    if (state.gone) return;
    const argv = pod.spec.containers[0].command.slice(3);
    argv[argv.indexOf("--port") + 1] = String(20000 + this.rand.int(0, 9999));
    const kubeconfig = join(this.work, "master.kubeconfig");
    writeFileSync(kubeconfig, this.kc.exportConfig());
    const env = { ...process.env, KUBECONFIG: kubeconfig, PYTHONUNBUFFERED: "1" };
    delete env.KUBERNETES_SERVICE_HOST;
    delete env.KUBERNETES_SERVICE_PORT;
    const out = openSync(join(this.work, `${state.name}-master.log`), "a");
    const child = spawn(this.python, [WRAPPER, ...argv], { cwd: this.work, env, stdio: ["ignore", out, out] });
    this.log(`  DLRover's master of ${state.name}: pid ${child.pid}, log ${join(this.work, `${state.name}-master.log`)}`);
    state.master = child;
    this.children.add(child);
    child.on("exit", (code, signal) => {
      this.children.delete(child);
      if (!state.gone && !this.stopping) {
        this.log(`real master of ${state.name} exited (${signal ?? code}); started again`);
        this.startReal(state);
      }
    });
  }

  /** Jobs arrive, their masters play, they leave at the end of their lifetime; while `going()`. */
  run(going) {
    const shapes = ["ps", "ps", "chief", "evaluator"];
    this.loop = (async () => {
      let nextArrival = 0;
      while (going() && !this.stopping) {
        const now = Date.now();
        this.tick = now;
        // One job of the real master at a time, counting the pods of the last one still going:
        // the soak's cluster has room for one (its 16-CPU pods; mk/cluster.mk's SOAK_NODES), and
        // a second made while the garbage collector deletes the first's pods left 72 of them
        // unschedulable (the 30-minute run of issue 50).
        if (this.python && ![...this.jobs.values()].some((s) => s.real) && !this.realPodsLeft()) {
          this.realJobs += 1;
          await this.create("ps", true).catch((e) => this.log(`real job: ${e.message}`));
        }
        // Today's mix: a job every 8 to 20 s, 8 at most. Sized (SOAK_PODS): one every 1 to 2 s
        // while the jobs ask fewer pods than the target.
        if (now >= nextArrival && this.jobs.size < this.mix.maxJobs && !(this.asked() >= this.mix.target) && !(this.behind() >= this.mix.backlog * (this.ramping ? 4 : 1))) {
          await this.create(this.rand.pick(shapes)).catch((e) => this.log(`job: ${e.message}`));
          nextArrival = now + this.rand.int(...this.mix.arrivalS) * 1000;
        }
        for (const state of [...this.jobs.values()]) {
          if (now - state.born > state.lifetime) {
            if (!state.gone) this.log(`job ${state.name} leaves`);
            await this.remove(state).catch((e) => this.log(`job ${state.name}: ${e.message}; tried again`));
            continue;
          }
          this.doing = `the master of ${state.name}`;
          await this.step(state).catch((e) => this.log(`master of ${state.name}: ${e.message}`));
        }
        await new Promise((r) => setTimeout(r, 500));
      }
    })();
  }

  /** Whether a pod of the last job of the real master is still there (its job deleted or not). */
  realPodsLeft() {
    return this.lastReal !== undefined && [...this.observer.podsOf(this.lastReal)].length > 0;
  }

  /** The pods the jobs ask for that are not Running yet (soak/mix.js's BACKLOG). */
  behind() {
    let running = 0;
    for (const name of this.jobs.keys()) {
      for (const p of this.observer.podsOf(name)) if (p.status?.phase === "Running" && !p.metadata.deletionTimestamp) running += 1;
    }
    return this.asked() - running;
  }

  /** The pods the jobs ask for now (soak/mix.js's asked), for the target of SOAK_PODS. */
  asked() {
    return [...this.jobs.values()].reduce((a, s) => a + asked(s), 0);
  }

  /** Ends the real masters at once (a run that stops). */
  kill() {
    this.stopping = true;
    for (const child of this.children) child.kill("SIGKILL");
  }

  async stop() {
    this.stopping = true;
    await this.loop;
    for (const state of [...this.jobs.values()]) {
      // The watchdog's: the loop turns while the jobs left are deleted (seed 5004's 5,000 pods at
      // 50 a second took over its 120 s, and it stopped the run).
      this.tick = Date.now();
      this.doing = `deleting the jobs left (${state.name})`;
      await this.remove(state).catch(() => {});
      // A sized mix's jobs leave at 50 pods a second, not all at once: the garbage collector
      // deletes each dependent in turn with kube-controller-manager's 20 workers
      // (--concurrent-gc-syncs), and each job's deletion check allows for the dependents queued
      // before its own (soak/observer.js's deletionBoundMs).
      if (this.mix.target) await new Promise((r) => setTimeout(r, asked(state) * 20));
    }
    for (const child of this.children) child.kill("SIGKILL");
  }
}
