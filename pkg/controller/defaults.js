// The defaults of the controller's options (client-go's for leader election, controller-runtime's
// ports), apart from the controller so the CLI's help does not load the Kubernetes client.
export const DEFAULTS = Object.freeze({
  metricsPort: 8080,
  healthPort: 8081,
  workers: 4,
  resyncSeconds: 30,
  leaderElect: false,
  leaseName: "elasticjob-controller",
  leaseNamespace: "elasticjob-system",
  leaseDurationSeconds: 15,
  renewDeadlineSeconds: 10,
  retryPeriodSeconds: 2,
  logLevel: "info",
});
