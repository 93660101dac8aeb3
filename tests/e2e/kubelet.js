// The kubelet's part in the cluster tests. The test cluster's fake nodes are KWOK's: the scheduler
// binds a pod, and kwok, by the stages of tests/cluster/stages.yaml, gives it its addresses and
// makes it Running. How a container ends is a test's to say: it annotates the pod, and the stage
// writes what a kubelet reports (the container terminated with that exit code and reason, the
// pod's phase). No test writes pod status itself.
import { eventually, expectStatus, request } from "./kube.js";

/** The annotations the stages act on (tests/cluster/stages.yaml). */
export const EXIT_CODE = "kwok.elasticjob.test/exit-code";
export const REASON = "kwok.elasticjob.test/reason";
export const MESSAGE = "kwok.elasticjob.test/message";
export const IGNORE_SIGTERM = "kwok.elasticjob.test/ignore-sigterm";

const podPath = (ns, name) => `/api/v1/namespaces/${ns}/pods/${encodeURIComponent(name)}`;

async function getPod(kc, ns, name) {
  const answer = await request(kc, "GET", podPath(ns, name));
  return answer.status === 200 ? answer.body : undefined;
}

/** Whether the cluster made the pod Running: bound to a node, with its addresses, its containers running. */
export function isRunning(pod) {
  return (
    pod?.status?.phase === "Running" &&
    !pod.metadata.deletionTimestamp &&
    Boolean(pod.spec.nodeName && pod.status.podIP && pod.status.hostIP) &&
    (pod.status.containerStatuses ?? []).every((c) => c.state?.running)
  );
}

/** Waits until the pod is Running as the cluster made it; resolves to the pod. */
export function running(kc, ns, name, seconds = 30) {
  return eventually(`pod ${name} Running`, async () => {
    const pod = await getPod(kc, ns, name);
    return isRunning(pod) && pod;
  }, seconds);
}

/**
 * Waits until the live pods `labelSelector` selects in `ns` (neither ended nor being deleted; at
 * least `count`) are all Running; resolves to them.
 */
export function allRunning(kc, ns, labelSelector, count, seconds = 60) {
  return eventually(`${count} pods (${labelSelector}) Running`, async () => {
    const answer = await request(kc, "GET", `/api/v1/namespaces/${ns}/pods`, { query: { labelSelector } });
    const ended = (p) => ["Succeeded", "Failed"].includes(p.status?.phase) || p.metadata.deletionTimestamp;
    const pods = expectStatus(answer, [200], `pods ${labelSelector}`).items.filter((p) => !ended(p));
    return pods.length >= count && pods.every(isRunning) && pods;
  }, seconds);
}

async function annotate(kc, ns, name, annotations) {
  expectStatus(
    await request(kc, "PATCH", podPath(ns, name), { body: { metadata: { annotations } }, contentType: "application/merge-patch+json" }),
    [200],
    `annotate pod ${name}`,
  );
}

/** Waits until the pod has ended in `phase`; resolves to it. */
function ended(kc, ns, name, phase, seconds) {
  return eventually(`pod ${name} ${phase}`, async () => {
    const pod = await getPod(kc, ns, name);
    return pod?.status?.phase === phase && pod;
  }, seconds);
}

/**
 * The pod's container exits with `exitCode` (not 0) and `reason` (e.g. 137, "OOMKilled"): once it
 * runs, the pod is Failed with that container state (restartPolicy Never). Resolves to the pod.
 */
export async function fail(kc, ns, name, { exitCode, reason = "Error", message = "" }, seconds = 30) {
  if (!Number.isInteger(exitCode) || exitCode === 0) {
    throw new Error(`fail(${name}): exitCode must be a non-zero integer, got ${exitCode}`);
  }
  await annotate(kc, ns, name, { [EXIT_CODE]: String(exitCode), [REASON]: reason, [MESSAGE]: message });
  return ended(kc, ns, name, "Failed", seconds);
}

/** The pod's container exits 0: once it runs, the pod is Succeeded. Resolves to the pod. */
export async function succeed(kc, ns, name, seconds = 30) {
  await annotate(kc, ns, name, { [EXIT_CODE]: "0" });
  return ended(kc, ns, name, "Succeeded", seconds);
}
