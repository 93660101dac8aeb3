// `elasticjob controller`: runs the ElasticJob controller (elasticjob/controller) until SIGTERM or
// SIGINT, which let the action under way finish, release the leader lease and exit 0.
import { DEFAULTS, leaseTimingsProblem } from "../controller/defaults.js";
import { LOG_LEVELS, Logger } from "../controller/log.js";
import { EXIT, InputError, UsageError } from "./errors.js";

const SECONDS = {
  "leader-elect-lease-duration": "leaseDurationSeconds",
  "leader-elect-renew-deadline": "renewDeadlineSeconds",
  "leader-elect-retry-period": "retryPeriodSeconds",
  resync: "resyncSeconds",
};

export default {
  name: "controller",
  usage: "controller [--namespace NS] [--master-image IMAGE] [--master-service-account NAME] [--allow-user-masters] [--kubeconfig PATH] [--kueue [--kueue-workload-slices]] [--gang-scheduler-name NAME] [--leader-elect] [--metrics-port N] [--health-port N]",
  about: "run the ElasticJob controller against a cluster (until SIGTERM)",
  help: `Runs the ElasticJob controller: it watches ElasticJobs, ScalePlans and the jobs' pods, and
carries out the plans of the elasticjob core (the job master, the task pods and services of each
ScalePlan that DLRover's master writes, its relaunches among them, suspend, the job and plan
status, with a gang scheduler the job's PodGroup). Logs are JSON lines on standard
output. SIGTERM or SIGINT finishes the action under way, releases the leader lease and exits 0.

Options:
  --namespace NS          watch only this namespace (default: every namespace)
  --master-image IMAGE    the image of the default job master (a job without a dlrover-master
                          replica spec; default: elasticjob-dlrover-master:0.6.1, make master-image)
  --master-service-account NAME
                          the ServiceAccount of the job master's pod when its template names none
                          (default: the namespace's default; docs/install.md has the Role it needs).
                          Only the master made from --master-image runs as it, with none of the
                          job's envs; a job whose task template names it, or the chart's
                          elasticjob-dlrover-master, is refused (docs/security.md)
  --allow-user-masters    a dlrover-master template of the job's own (its image, command, env,
                          mounts, containers) runs as that account too, with the job's envs, as
                          upstream: whoever may create a job then has the account's rights
  --kubeconfig PATH       the cluster to talk to (default: $KUBECONFIG, else the pod's
                          ServiceAccount when run in a cluster, else ~/.kube/config)
  --kueue                 run with Kueue: a job labelled kueue.x-k8s.io/queue-name gets a Workload
                          and stays suspended until Kueue admits it (watches Workloads and
                          ResourceFlavors; without it nothing of Kueue is watched)
  --kueue-workload-slices Kueue runs with its ElasticJobsViaWorkloadSlices feature gate (with
                          --kueue; checked with Kueue's webhook by a dry run): a queued job
                          annotated kueue.x-k8s.io/elastic-job grows by Workload slices and gives
                          the quota of a scale-down back (docs/kueue.md)
  --gang-scheduler-name NAME
                          gang scheduling of every job, as training-operator's flag: \`volcano\`
                          (Volcano's PodGroups), or the name of scheduler-plugins' scheduler
                          (its Coscheduling PodGroups); the job's PodGroup is made before its
                          pods, which carry that scheduler's name. Without it a job whose replicas
                          say BatchScheduler: volcano still gets Volcano's when the cluster serves
                          its PodGroups (docs/controller.md)
  --leader-elect          act only while holding the leader Lease (for several replicas)
  --leader-elect-namespace NS   the Lease's namespace (default: the pod's, else ${DEFAULTS.leaseNamespace})
  --leader-elect-name NAME      the Lease's name (default: ${DEFAULTS.leaseName})
  --leader-elect-lease-duration SECONDS   how long a silent leader keeps the lease (default: ${DEFAULTS.leaseDurationSeconds})
  --leader-elect-renew-deadline SECONDS   how long the leader tries to renew before it gives up (default: ${DEFAULTS.renewDeadlineSeconds})
  --leader-elect-retry-period SECONDS     time between tries (default: ${DEFAULTS.retryPeriodSeconds})
  --metrics-port N        Prometheus /metrics (default: ${DEFAULTS.metricsPort}; 0: a free port)
  --health-port N         /healthz and /readyz (default: ${DEFAULTS.healthPort}; 0: a free port)
  --workers N             jobs reconciled at once (default: ${DEFAULTS.workers}; one pass per job at a time)
  --resync SECONDS        every job is reconciled at least this often (default: ${DEFAULTS.resyncSeconds};
                          the watches bring a pass at every change, the resync only what they missed)
  --kube-api-qps N        calls a second to the API server at most, every call counted (default:
                          ${DEFAULTS.kubeApiQps}; 0: no limit)
  --kube-api-burst N      calls at once above that after a quiet time (default: ${DEFAULTS.kubeApiBurst})
  --field-manager NAME    the field manager of every write, in managedFields (default:
                          ${DEFAULTS.fieldManager}; one per replica tells them apart)
  --log-level LEVEL       ${LOG_LEVELS.join(", ")} (default: ${DEFAULTS.logLevel})

Exit status: 0 once stopped by SIGTERM or SIGINT; 1 when it cannot start, or when it lost the
leader lease (another instance leads now); 2 for wrong usage.`,
  options: {
    namespace: { type: "string" },
    "master-image": { type: "string" },
    "master-service-account": { type: "string" },
    "allow-user-masters": { type: "boolean" },
    kubeconfig: { type: "string" },
    kueue: { type: "boolean" },
    "kueue-workload-slices": { type: "boolean" },
    "gang-scheduler-name": { type: "string" },
    "leader-elect": { type: "boolean" },
    "leader-elect-namespace": { type: "string" },
    "leader-elect-name": { type: "string" },
    "leader-elect-lease-duration": { type: "string" },
    "leader-elect-renew-deadline": { type: "string" },
    "leader-elect-retry-period": { type: "string" },
    "metrics-port": { type: "string" },
    "health-port": { type: "string" },
    workers: { type: "string" },
    resync: { type: "string" },
    "kube-api-qps": { type: "string" },
    "kube-api-burst": { type: "string" },
    "log-level": { type: "string" },
    "field-manager": { type: "string" },
  },
  positionals: [0, 0],
  async run(_positionals, values, io) {
    const options = {
      namespace: values.namespace,
      masterImage: values["master-image"],
      masterServiceAccount: values["master-service-account"],
      allowUserMasters: values["allow-user-masters"] ?? false,
      kubeconfig: values.kubeconfig,
      kueue: values.kueue ?? false,
      kueueWorkloadSlices: values["kueue-workload-slices"] ?? false,
      gangSchedulerName: values["gang-scheduler-name"],
      leaderElect: values["leader-elect"] ?? false,
      leaseNamespace: values["leader-elect-namespace"],
      leaseName: values["leader-elect-name"],
      metricsPort: port(values, "metrics-port"),
      healthPort: port(values, "health-port"),
      workers: whole(values, "workers", 1),
      kubeApiQps: rate(values, "kube-api-qps"),
      kubeApiBurst: whole(values, "kube-api-burst", 1),
      logLevel: values["log-level"],
      fieldManager: values["field-manager"],
    };
    for (const [flag, key] of Object.entries(SECONDS)) {
      options[key] = seconds(values, flag);
    }
    if (options.logLevel !== undefined && !LOG_LEVELS.includes(options.logLevel)) {
      throw new UsageError(`--log-level takes one of ${LOG_LEVELS.join(", ")}, not \`${options.logLevel}\``);
    }
    for (const flag of ["namespace", "master-image", "master-service-account", "gang-scheduler-name", "kubeconfig", "leader-elect-namespace", "leader-elect-name", "field-manager"]) {
      if (values[flag] === "") {
        throw new UsageError(`--${flag} is empty`);
      }
    }
    const lease = [options.leaseDurationSeconds ?? DEFAULTS.leaseDurationSeconds, options.renewDeadlineSeconds ?? DEFAULTS.renewDeadlineSeconds, options.retryPeriodSeconds ?? DEFAULTS.retryPeriodSeconds];
    const problem = options.leaderElect ? leaseTimingsProblem(...lease) : undefined;
    if (problem) {
      throw new UsageError(problem);
    }

    // Loaded here: the Kubernetes client takes about a second to load, which the other commands skip.
    const { startController } = await import("../controller/index.js");
    let controller;
    try {
      controller = await startController({ ...options, logger: new Logger(io.stdout, { level: options.logLevel ?? DEFAULTS.logLevel }) });
    } catch (e) {
      throw new InputError([`elasticjob controller: cannot start: ${e.message}`]);
    }
    let signals = 0;
    const onSignal = (signal) => {
      signals += 1;
      if (signals > 1) {
        // A second signal: stop now, without waiting for the action under way.
        process.exit(EXIT.invalid);
      }
      io.stderr.write(`elasticjob controller: ${signal}: finishing the action under way, then exiting\n`);
      controller.stop();
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
    try {
      const { code } = await controller.done;
      return code === 0 ? EXIT.ok : EXIT.invalid;
    } finally {
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
    }
  },
};

function whole(values, flag, min) {
  const text = values[flag];
  if (text === undefined) {
    return undefined;
  }
  if (!/^[0-9]+$/.test(text) || Number(text) < min) {
    throw new UsageError(`--${flag} takes a whole number${min > 0 ? ` from ${min}` : ""}, not \`${text}\``);
  }
  return Number(text);
}

function port(values, flag) {
  const value = whole(values, flag, 0);
  if (value !== undefined && value > 65535) {
    throw new UsageError(`--${flag} takes a port from 0 to 65535, not \`${values[flag]}\``);
  }
  return value;
}

function rate(values, flag) {
  const text = values[flag];
  if (text === undefined) {
    return undefined;
  }
  if (!/^[0-9]+(\.[0-9]+)?$/.test(text)) {
    throw new UsageError(`--${flag} takes a number of calls a second (0: no limit), not \`${text}\``);
  }
  return Number(text);
}

function seconds(values, flag) {
  const text = values[flag];
  if (text === undefined) {
    return undefined;
  }
  if (!/^[0-9]+(\.[0-9]+)?$/.test(text) || Number(text) <= 0) {
    throw new UsageError(`--${flag} takes a number of seconds above 0, not \`${text}\``);
  }
  return Number(text);
}
