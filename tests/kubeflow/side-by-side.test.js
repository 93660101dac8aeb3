// Kubeflow's training-operator and this project side by side on the test cluster (`make
// test-kubeflow`): each TFJob of examples/tfjob/ runs as written under Kubeflow's operator (the
// binary and module benches/kubeflow/operator.sh builds, named by KUBEFLOW_OPERATOR and
// KUBEFLOW_SRC), and as the ElasticJob `elasticjob convert` makes of it under `elasticjob
// controller`, with the first plan DLRover 0.6.1's real master writes for that job
// (tests/e2e/master_first_plan.py runs the master's own code on the stored job, in the venv named
// by DLROVER_PYTHON), which must ask for as many pods of each type as Kubeflow's operator runs
// (a Master counted as the chief; a job without one: DLRover's chief is Kubeflow's first worker)
// and equal the plan the other tests play (jobs.js's firstPlanSpec). TensorFlow's
// TFConfigClusterResolver (resolve.py, in the consumers' venv named by PYTHON) then reads every
// task's TF_CONFIG from both sides, each ours from the pod's `tensorflow` container.
//
// The two are not the same text (other host names and ports), and by design not the same cluster:
// an ElasticJob follows DLRover's rules (docs/spec, "TF_CONFIG"), which `expectedOfDlrover` applies
// to what TensorFlow read from Kubeflow's. Every other difference fails the test:
// 0. Kubeflow's Master, TensorFlow's older name for the chief, is the ElasticJob's chief: its
//    TF_CONFIG is read with `master` named `chief` (as written, TensorFlow 2's multi_worker_util
//    refuses every task of such a cluster: `master` is not a task type it allows);
// 1. a TFJob without a Chief: DLRover's master makes its first worker the chief (chief 0, the
//    workers after it renumbered from 0), the one TensorFlow takes for the chief anyway
//    (multi_worker_util.is_chief: worker 0 when the cluster has no chief);
// 2. a worker of rank r sees the workers 0..=r (Kubeflow: all of them);
// 3. the evaluator is in no other task's cluster, and sees no worker (Kubeflow: it is in every
//    task's cluster, and sees every task).
// The task's type and index, every other job's task count, whether the task finds its own
// address and whether TensorFlow takes it for the chief must agree task by task. A TFJob with
// `enableDynamicWorker` runs under Kubeflow without it: `convert` does not carry it (it says so),
// and with it Kubeflow writes a sparse TF_CONFIG (each task itself, a worker the PS too) in which
// multi_worker_util finds no worker but 0.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import { kubeflowFromEnv, startKubeflow } from "../../benches/node/kubeflow.js";
import { collection, eventually, expectStatus, request } from "../e2e/kube.js";
import { BIN, Controller, MASTER_IMAGE, admin, createJob, createPlan, firstPlanSpec, masterName, masterRunning, namespace, podsOf, useCluster } from "../e2e/scenario.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const EXAMPLES = join(ROOT, "examples/tfjob");
const RESOLVE = fileURLToPath(new URL("resolve.py", import.meta.url));
const PYTHON = process.env.PYTHON ?? "python3";
const DLROVER_PYTHON = process.env.DLROVER_PYTHON;
const MASTER_FIRST_PLAN = join(ROOT, "tests/e2e/master_first_plan.py");
const KUBEFLOW = kubeflowFromEnv();
/** TF_CONFIG's task types, Kubeflow's replica types (its pods' replica-type label is lower case). */
const TYPE_LABEL = "training.kubeflow.org/replica-type";
const INDEX_LABEL = "training.kubeflow.org/replica-index";

const examples = readdirSync(EXAMPLES).filter((f) => /\.ya?ml$/.test(f)).sort();

/** The TFJobs of a file: every document whose kind is TFJob. */
function tfJobs(file) {
  return parseAllDocuments(readFileSync(join(EXAMPLES, file), "utf8")).map((d) => d.toJS()).filter((d) => d?.kind === "TFJob");
}

/** `elasticjob convert FILE` as a user runs it: the ElasticJobs it prints. */
function convert(file) {
  const out = execFileSync(process.execPath, [BIN, "convert", join(EXAMPLES, file)], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  return parseAllDocuments(out).map((d) => d.toJS()).filter(Boolean);
}

/** What TensorFlow makes of each TF_CONFIG (resolve.py). */
function resolveAll(configs) {
  return JSON.parse(execFileSync(PYTHON, [RESOLVE], { input: JSON.stringify(configs), encoding: "utf8", maxBuffer: 1 << 24 }));
}

/** The first plan DLRover's real master writes for the stored job (master_first_plan.py). */
function realMastersFirstPlan(job) {
  const dir = mkdtempSync(join(tmpdir(), "elasticjob-side-"));
  try {
    const file = join(dir, `${job.metadata.name}.json`);
    writeFileSync(file, JSON.stringify(job));
    const out = JSON.parse(execFileSync(DLROVER_PYTHON, [MASTER_FIRST_PLAN, file], { encoding: "utf8", maxBuffer: 1 << 24, timeout: 300_000 }));
    const plan = out[job.metadata.name];
    assert.ok(!plan.error, `${job.metadata.name}: DLRover's master stops on the job: ${plan.error}`);
    return plan;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A pod's containers' TF_CONFIGs, as [container name, value]. */
const tfConfigs = (pod) => pod.spec.containers.flatMap((c) => (c.env ?? []).filter((e) => e.name === "TF_CONFIG").map((e) => [c.name, e.value]));

/** How many of each type. */
const perType = (types) => types.reduce((m, t) => ({ ...m, [t]: (m[t] ?? 0) + 1 }), {});

/** A plan's replicas by type, the types it asks none of left out. */
const replicasOf = (plan) => Object.fromEntries(Object.entries(plan.replicaResourceSpecs).map(([type, s]) => [type, s.replicas]).filter(([, n]) => n > 0));

const key = ({ type, index }) => `${type}:${index}`;

/** Kubeflow's TF_CONFIG with `master` named `chief` (rule 0). */
function masterAsChief(value) {
  const config = JSON.parse(value);
  const { master, ...cluster } = config.cluster;
  if (master) {
    cluster.chief = master;
  }
  const type = config.task.type === "master" ? "chief" : config.task.type;
  return JSON.stringify({ ...config, cluster, task: { ...config.task, type } });
}
const sorted = (tasks) => [...tasks].sort((a, b) => key(a).localeCompare(key(b)));

/**
 * What TensorFlow should read from the ElasticJob's pods, given what it read from Kubeflow's
 * (`tasks`), by DLRover's three rules above.
 */
export function expectedOfDlrover(tasks) {
  const count = (type) => tasks.filter((t) => t.type === type).length;
  const promote = count("chief") === 0 && count("worker") > 0;
  const renamed = tasks.map((t) => {
    if (promote && t.type === "worker") {
      return t.index === 0 ? { ...t, type: "chief" } : { ...t, index: t.index - 1 };
    }
    return t;
  });
  const workers = promote ? count("worker") - 1 : count("worker");
  return renamed.map((t) => {
    const jobs = { ...t.jobs };
    if (promote) {
      jobs.chief = 1;
      jobs.worker = workers;
    }
    if (t.type === "evaluator") {
      delete jobs.worker;
    } else {
      delete jobs.evaluator;
    }
    if (t.type === "worker") {
      jobs.worker = t.index + 1;
    }
    for (const [job, n] of Object.entries(jobs)) {
      if (!n) {
        delete jobs[job];
      }
    }
    return { ...t, jobs };
  });
}

const skip = (!KUBEFLOW && "KUBEFLOW_OPERATOR and KUBEFLOW_SRC name Kubeflow's operator (make test-kubeflow)") || (!DLROVER_PYTHON && "DLROVER_PYTHON names DLRover 0.6.1's venv (make test-kubeflow)");

describe("Kubeflow's TFJob and the ElasticJob `elasticjob convert` makes of it, as TensorFlow reads their TF_CONFIGs", { skip }, () => {
  useCluster();
  let kfNs;
  let ourNs;
  let kubeflow;
  let controller;

  before(async () => {
    kfNs = await namespace("kubeflow-side");
    ourNs = await namespace("elastic-side");
    kubeflow = await startKubeflow(KUBEFLOW, kfNs);
    controller = new Controller("side-by-side", ["--namespace", ourNs, "--master-image", MASTER_IMAGE]);
    await controller.ready();
  });

  after(async () => {
    await kubeflow?.stop();
    await controller?.stop();
  });

  it("has TFJob examples: PS and workers, with a chief, with an evaluator", () => {
    const shapes = examples.flatMap(tfJobs).map((job) => Object.keys(job.spec.tfReplicaSpecs));
    assert.ok(shapes.some((types) => !types.includes("Chief")), "a TFJob without a Chief");
    assert.ok(shapes.some((types) => types.includes("Chief")), "a TFJob with a Chief");
    assert.ok(shapes.some((types) => types.includes("Evaluator")), "a TFJob with an Evaluator");
  });

  for (const file of examples) {
    it(`examples/tfjob/${file}: every task's TF_CONFIG, Kubeflow's and ours`, async (t) => {
      const jobs = tfJobs(file);
      const converted = convert(file);
      assert.equal(converted.length, jobs.length, "one ElasticJob for each TFJob");
      for (const [i, tfJob] of jobs.entries()) {
        const name = tfJob.metadata.name;
        const tasks = Object.values(tfJob.spec.tfReplicaSpecs).reduce((n, s) => n + (s.replicas ?? 1), 0);

        // Kubeflow's operator: every pod of the TFJob, with the TF_CONFIG it gives it.
        // As written, but for what the API server writes (an example may show a TFJob as read back).
        const { labels, annotations } = tfJob.metadata;
        const { enableDynamicWorker, ...spec } = tfJob.spec;
        if (enableDynamicWorker !== undefined) {
          t.diagnostic(`${name}: run under Kubeflow without enableDynamicWorker: ${enableDynamicWorker}`);
        }
        const body = { apiVersion: tfJob.apiVersion, kind: tfJob.kind, metadata: { name, namespace: kfNs, labels, annotations }, spec };
        expectStatus(await request(admin, "POST", `/apis/kubeflow.org/v1/namespaces/${kfNs}/tfjobs`, { body }), [201], `TFJob ${name}`);
        const kfPods = await eventually(`${name}: Kubeflow's ${tasks} pods`, async () => {
          const pods = expectStatus(await request(admin, "GET", collection("v1", "Pod", kfNs), { query: { labelSelector: `training.kubeflow.org/job-name=${name}` } }), [200], "pods").items;
          return pods.length === tasks && pods;
        }, 60);
        const kfConfigs = kfPods.map((p) => {
          const type = p.metadata.labels[TYPE_LABEL];
          const value = p.spec.containers.find((c) => c.name === "tensorflow")?.env?.find((e) => e.name === "TF_CONFIG")?.value;
          assert.ok(value, `${p.metadata.name}: a TF_CONFIG`);
          return { type: type === "master" ? "chief" : type, index: Number(p.metadata.labels[INDEX_LABEL]), value: masterAsChief(value) };
        });

        // Ours: the converted ElasticJob, its master Running, the first plan DLRover's real master
        // writes for the stored job carried out.
        const job = { ...converted[i], metadata: { ...converted[i].metadata, namespace: ourNs } };
        assert.equal(job.metadata.name, name);
        await createJob(job);
        const stored = await masterRunning(ourNs, name);
        const real = realMastersFirstPlan(stored);
        const planned = replicasOf(real);
        assert.deepEqual(replicasOf(firstPlanSpec(stored)), planned, `${name}: the plan the other tests play is the real master's`);
        // As many pods of each type as Kubeflow runs, by DLRover's rule 1 (its chief, Kubeflow's first worker).
        const kubeflows = perType(expectedOfDlrover(kfConfigs.map(({ type, index }) => ({ type, index, jobs: {} }))).map((c) => c.type));
        assert.deepEqual(planned, kubeflows, `${name}: DLRover's master asks for the pods Kubeflow runs, type by type`);
        t.diagnostic(`${name}: DLRover's master's first plan ${JSON.stringify(planned)}; Kubeflow's pods ${JSON.stringify(perType(kfConfigs.map((c) => c.type)))}`);
        await createPlan(stored, { replicaResourceSpecs: real.replicaResourceSpecs, psHosts: real.psHosts });
        const ourPods = await eventually(`${name}: our ${tasks} task pods`, async () => {
          const pods = (await podsOf(ourNs, name)).filter((p) => p.metadata.name !== masterName(name));
          return pods.length === tasks && pods;
        }, 60);
        // One TF_CONFIG a pod, in its `tensorflow` container, where Kubeflow's operator sets it.
        const ourConfigs = ourPods.map((p) => {
          const found = tfConfigs(p);
          assert.deepEqual(found.map(([c]) => c), ["tensorflow"], `${p.metadata.name}: TF_CONFIG in its tensorflow container alone`);
          return { value: found[0][1], pod: p.metadata.name };
        });
        const kfRead = resolveAll(kfConfigs.map((c) => c.value));
        // Kubeflow's pod labels and the resolver agree on every task.
        assert.deepEqual(kfRead.map(key).sort(), kfConfigs.map(key).sort(), "Kubeflow's TF_CONFIG names each pod's own task");
        const ourRead = resolveAll(ourConfigs.map((c) => c.value));
        assert.ok([...kfRead, ...ourRead].every((r) => r.address === true), "every task finds its own address");
        assert.deepEqual(sorted(ourRead), sorted(expectedOfDlrover(kfRead)), `${name}: TensorFlow reads ours as Kubeflow's, by DLRover's rules`);
        t.diagnostic(`${name}: ${tasks} tasks, ${kfRead.length} TF_CONFIGs of each side agree`);
      }
    });
  }
});
