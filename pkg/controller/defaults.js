// The defaults of the controller's options (client-go's for leader election, controller-runtime's
// ports), apart from the controller so the CLI's help does not load the Kubernetes client.
export const DEFAULTS = Object.freeze({
  metricsPort: 8080,
  healthPort: 8081,
  workers: 4,
  // controller-runtime's SyncPeriod: the watches trigger every pass; the resync only catches what
  // a bug or a lost event left, so it need not cost a pass over every job each minute.
  resyncSeconds: 36_000,
  // Calls a second to the API server, and the burst above that (kube-controller-manager's
  // --kube-api-qps and --kube-api-burst; docs/controller.md says why these values).
  kubeApiQps: 200,
  kubeApiBurst: 400,
  // Pods one pass creates at most (the ReplicaSet controller's burstReplicas).
  maxPodCreates: 500,
  // Kueue: off, nothing of it is watched or written; on, a job labelled kueue.x-k8s.io/queue-name
  // waits for its Workload's admission (docs/kueue.md).
  kueue: false,
  leaderElect: false,
  leaseName: "elasticjob-controller",
  leaseNamespace: "elasticjob-system",
  leaseDurationSeconds: 15,
  renewDeadlineSeconds: 10,
  retryPeriodSeconds: 2,
  logLevel: "info",
  // The field manager of every write (metadata.managedFields tells who wrote what): replicas given
  // names of their own can be told apart there.
  fieldManager: "elasticjob-controller",
});

/**
 * The problem with leader election timings, or undefined: a leader must give up (renew deadline)
 * before another may take over (lease duration), and try more than once before (retry period), as
 * client-go's NewLeaderElector requires.
 */
export function leaseTimingsProblem(leaseDurationSeconds, renewDeadlineSeconds, retryPeriodSeconds) {
  if (!(retryPeriodSeconds > 0)) {
    return `the retry period (${retryPeriodSeconds} s) must be above 0`;
  }
  if (!(leaseDurationSeconds > renewDeadlineSeconds && renewDeadlineSeconds > retryPeriodSeconds)) {
    return `the lease duration (${leaseDurationSeconds} s) must exceed the renew deadline (${renewDeadlineSeconds} s), which must exceed the retry period (${retryPeriodSeconds} s)`;
  }
  return undefined;
}
