// What the Kueue scenarios share: Kueue's API, the queue label, and reading a job's Workload.
import { collection, expectStatus, request } from "../kube.js";
import { admin, isLive, podsOf } from "../scenario.js";

export const KUEUE = "kueue.x-k8s.io/v1beta2";
export const QUEUE_LABEL = "kueue.x-k8s.io/queue-name";

export const create = async (obj, what = `${obj.kind} ${obj.metadata.name}`) =>
  expectStatus(await request(admin, "POST", collection(obj.apiVersion, obj.kind, obj.metadata.namespace), { body: obj }), [201], what);
export const workloadPath = (ns, jobName) => `${collection(KUEUE, "Workload", ns)}/elasticjob-${jobName}`;
export const workloadOf = async (ns, jobName) => {
  const answer = await request(admin, "GET", workloadPath(ns, jobName));
  return answer.status === 200 ? answer.body : undefined;
};
export const condition = (obj, type) => obj?.status?.conditions?.find((c) => c.type === type);
export const isTrue = (obj, type) => condition(obj, type)?.status === "True";
export const livePods = async (ns, jobName) => (await podsOf(ns, jobName)).filter(isLive);

/** A ClusterQueue for the namespace `ns` alone, with `quota` (resource -> nominal quota) of one flavour; `spec` adds to it. */
export const clusterQueue = (name, ns, flavor, quota, spec = {}) => ({
  apiVersion: KUEUE,
  kind: "ClusterQueue",
  metadata: { name },
  spec: {
    namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": ns } },
    ...spec,
    resourceGroups: [{ coveredResources: Object.keys(quota), flavors: [{ name: flavor, resources: Object.entries(quota).map(([name, nominalQuota]) => ({ name, nominalQuota })) }] }],
  },
});
