// What the gang scheduling scenarios share (`make test-gang-scheduler`: a test cluster of its own
// started with `cluster run --gang DIR --nodes 2 --node-cpu 4`, scheduler-plugins' scheduler beside
// the default one): the jobs, the test playing DLRover's master (its first ScalePlan, as
// scenario.js's other scenarios do), the job's pods and PodGroup as the API server has them, and the
// ServiceAccount's PodGroup rules (deploy/rbac-gang.yaml) applied beside deploy/rbac.yaml.
import * as kubelet from "../kubelet.js";
import { psJob } from "../jobs.js";
import { applyManifests, collection, expectStatus, request } from "../kube.js";
import { MASTER_IMAGE, admin, createPlan, eventually, firstPlanSpec, jobPath, masterName, podsOf } from "../scenario.js";

export const VOLCANO = "scheduling.volcano.sh/v1beta1";
export const SCHEDULER_PLUGINS = "scheduling.x-k8s.io/v1alpha1";
/** The gang scheduler's profile on the test cluster (tests/cluster/gang.go). */
export const GANG_SCHEDULER = "scheduler-plugins-scheduler";

/**
 * A job of 1 PS and 2 workers of 1.5 CPU each: the master's first plan makes them a PS, a chief and
 * a worker, 3 task pods of 4.5 CPU. Its master asks for 100m (a `dlrover-master` template), so that
 * where the masters run does not change what fits: a node of 4 CPUs holds two tasks and the
 * masters, never three tasks. Two nodes hold 4 tasks: one job whole, not two.
 */
export function gangJob(ns, name, { batchScheduler } = {}) {
  const task = { name: "main", image: "tf:2", command: ["python", "-m", "deepctr.train"], resources: { requests: { cpu: "1500m", memory: "1Gi" } } };
  const job = psJob(ns, name, { ps: 1, workers: 2, task });
  const master = { name: "main", image: MASTER_IMAGE, resources: { requests: { cpu: "100m", memory: "256Mi" } } };
  job.spec.replicaSpecs["dlrover-master"] = { template: { spec: { restartPolicy: "Never", containers: [master] } } };
  if (batchScheduler) {
    for (const spec of Object.values(job.spec.replicaSpecs)) {
      spec.BatchScheduler = batchScheduler;
    }
  }
  return job;
}

/** The task pods of the master's first plan for `gangJob`. */
export const TASKS = 3;

/** The master's first plan for the stored job, as DLRover's master writes it (its own type not in it). */
export function writeFirstPlan(job) {
  const { "dlrover-master": _, ...tasks } = job.spec.replicaSpecs;
  return createPlan(job, firstPlanSpec({ ...job, spec: { ...job.spec, replicaSpecs: tasks } }));
}

const isTask = (pod) => pod.metadata.labels?.["elasticjob.dlrover/replica-type"] !== "dlrover-master";
const ended = (pod) => Boolean(pod.metadata.deletionTimestamp) || ["Succeeded", "Failed"].includes(pod.status?.phase);

/** The job's live task pods (neither ended nor being deleted). */
export async function tasksOf(ns, jobName) {
  return (await podsOf(ns, jobName)).filter((p) => isTask(p) && !ended(p));
}

/** How many of the job's live task pods are bound to a node, and how many there are. */
export async function bound(ns, jobName) {
  const tasks = await tasksOf(ns, jobName);
  return { bound: tasks.filter((p) => p.spec.nodeName).length, of: tasks.length };
}

/** Waits until the job's master pod runs (bound by whichever scheduler it names, and made Running by KWOK). */
export async function masterRuns(ns, jobName, seconds = 60) {
  await eventually(`${jobName}: master pod`, async () => (await podsOf(ns, jobName)).some((p) => p.metadata.name === masterName(jobName)), seconds);
  return kubelet.running(admin, ns, masterName(jobName), seconds);
}

/** Whether the master and every task pod of the job (`tasks` of them) run. */
async function runs(ns, jobName, tasks = TASKS) {
  const pods = (await podsOf(ns, jobName)).filter((p) => !ended(p));
  return pods.length === tasks + 1 && pods.every(kubelet.isRunning);
}

/** The job's pods as a line: each one's name, phase, node and scheduler. */
export async function podsLine(ns, jobName) {
  const pods = await podsOf(ns, jobName);
  return pods.map((p) => `${p.metadata.name} ${p.status?.phase}${p.metadata.deletionTimestamp ? " (deleted)" : ""} on ${p.spec.nodeName ?? "no node"} by ${p.spec.schedulerName}`).join("; ");
}

/** Waits until the master and every task pod of the job run; resolves to the seconds since `since` (ms). */
export async function allRun(ns, jobName, since, seconds = 90, tasks = TASKS) {
  try {
    await eventually(`${jobName}: master and ${tasks} task pods Running`, () => runs(ns, jobName, tasks), seconds);
  } catch (e) {
    throw new Error(`${e.message}; its pods: ${await podsLine(ns, jobName)}`);
  }
  return (Date.now() - since) / 1000;
}

/** Waits until one of the jobs has its master and every task pod Running; resolves to its name. */
export function firstToRun(ns, jobNames, seconds = 90) {
  return eventually(`one of ${jobNames.join(", ")}: every pod Running`, async () => {
    for (const name of jobNames) {
      if (await runs(ns, name)) {
        return name;
      }
    }
    return undefined;
  }, seconds);
}

/**
 * Deletes the job, and its pods at once as the garbage collector does (which on the test cluster
 * takes up to a minute to notice an ElasticJob gone); resolves once none of its pods is left, to
 * that moment.
 */
export async function deleteJob(ns, name) {
  expectStatus(await request(admin, "DELETE", jobPath(ns, name), { body: { apiVersion: "v1", kind: "DeleteOptions", propagationPolicy: "Background" } }), [200], `delete job ${name}`);
  expectStatus(await request(admin, "DELETE", collection("v1", "Pod", ns), { query: { labelSelector: `elasticjob.dlrover/name=${name}`, gracePeriodSeconds: "0" } }), [200], `delete ${name}'s pods`);
  await eventually(`${name}'s pods gone`, async () => (await podsOf(ns, name)).length === 0, 60);
  return Date.now();
}

/** The job's PodGroup of `apiVersion` (named after the job), or undefined. */
export async function podGroupOf(apiVersion, ns, jobName) {
  const answer = await request(admin, "GET", `${collection(apiVersion, "PodGroup", ns)}/${jobName}`);
  return answer.status === 200 ? answer.body : undefined;
}

/** The PodGroup rules of deploy/rbac-gang.yaml, beside those useCluster applies. */
export const grantPodGroups = () => applyManifests(admin, "deploy/rbac-gang.yaml");
