// The types of `elasticjob/controller` (Node only): the ElasticJob controller that carries out the
// core's plans against a cluster, and the parts an embedder may reuse.

/** Where log lines go: `process.stdout`, or anything that takes text. */
export interface Writer {
  write(text: string): unknown;
}

export type LogLevel = "debug" | "info" | "warn" | "error";

/** The log levels, lowest first. */
export declare const LOG_LEVELS: readonly LogLevel[];

/** JSON log lines, `{time, level, msg, ...fields}`, one a line. */
export declare class Logger {
  constructor(out: Writer, options?: { level?: LogLevel; fields?: Record<string, unknown>; clock?: () => Date });
  /** A logger that adds `fields` to every line. */
  child(fields: Record<string, unknown>): Logger;
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export interface ControllerOptions {
  /** The kubeconfig file; default: $KUBECONFIG, else the pod's ServiceAccount in a cluster, else ~/.kube/config. */
  kubeconfig?: string;
  /** Watch only this namespace; default: every namespace. */
  namespace?: string;
  /** The image of the default job master (a job without a `dlrover-master` replica spec). */
  masterImage?: string;
  /** The ServiceAccount of the job master's pod when its template names none; default: the namespace's `default`. */
  masterServiceAccount?: string;
  /** A dlrover-master template of the job's own (its image, command, env, mounts, containers) runs as masterServiceAccount too, with the job's envs; default: only the master made from masterImage does. */
  allowUserMasters?: boolean;
  /** Act only while holding the leader Lease. */
  leaderElect?: boolean;
  /** The Lease's namespace; default: the pod's, else `elasticjob-system`. */
  leaseNamespace?: string;
  /** The Lease's name; default `elasticjob-controller`. */
  leaseName?: string;
  /** How long a leader that stopped renewing keeps the lease; default 15. */
  leaseDurationSeconds?: number;
  /** How long the leader tries to renew before it stops leading; default 10. */
  renewDeadlineSeconds?: number;
  /** Time between tries; default 2. */
  retryPeriodSeconds?: number;
  /** Prometheus /metrics; default 8080; 0 takes a free port. */
  metricsPort?: number;
  /** /healthz and /readyz; default 8081; 0 takes a free port. */
  healthPort?: number;
  /** The address the endpoints listen on; default: every address. */
  host?: string;
  /** Jobs reconciled at once (one pass per job at a time); default 4. */
  workers?: number;
  /** Every job is reconciled at least this often; default 36,000 (10 hours: the watches bring every pass a change needs). */
  resyncSeconds?: number;
  /** Calls a second to the API server at most, every call counted (kube-controller-manager's --kube-api-qps); default 200; 0: no limit. */
  kubeApiQps?: number;
  /** Calls at once above `kubeApiQps` after a quiet time (--kube-api-burst); default 400. */
  kubeApiBurst?: number;
  /** Pods one pass creates at most (the rest in the next passes); default 500. */
  maxPodCreates?: number;
  /**
   * Run with Kueue: watch the jobs' Workloads and the ResourceFlavors, and queue a job labelled
   * `kueue.x-k8s.io/queue-name` (docs/kueue.md); default false (nothing of Kueue is watched).
   */
  kueue?: boolean;
  /**
   * With `kueue`: Kueue runs with its `ElasticJobsViaWorkloadSlices` feature gate, so a queued job
   * scaled down lowers its admitted Workload's counts in place and gives the quota back
   * (docs/kueue.md); default false (the Workload keeps its counts until the job ends).
   */
  kueueWorkloadSlices?: boolean;
  /**
   * Gang scheduling of every job (training-operator's `--gang-scheduler-name`): `volcano` (Volcano's
   * PodGroups), or the name of scheduler-plugins' scheduler (its Coscheduling PodGroups); the
   * PodGroups of that group are watched, and must be served. Default: none; a job whose replicas say
   * `BatchScheduler: volcano` still gets Volcano's when the API server serves its PodGroups.
   */
  gangSchedulerName?: string;
  /** The field manager of every write (in managedFields); default `elasticjob-controller`. */
  fieldManager?: string;
  /** This instance's name in the Lease; default `<hostname>_<uuid>`. */
  identity?: string;
  /** Default `info`. */
  logLevel?: LogLevel;
  /** Where the log lines go; default: standard output. */
  logStream?: Writer;
  /** A logger to use instead of `logLevel` and `logStream`. */
  logger?: Logger;
}

/** The defaults of the options. */
export declare const DEFAULTS: Readonly<{
  metricsPort: number;
  healthPort: number;
  workers: number;
  resyncSeconds: number;
  kubeApiQps: number;
  kubeApiBurst: number;
  maxPodCreates: number;
  leaderElect: boolean;
  leaseName: string;
  leaseNamespace: string;
  leaseDurationSeconds: number;
  renewDeadlineSeconds: number;
  retryPeriodSeconds: number;
  logLevel: LogLevel;
  fieldManager: string;
}>;

/** How a controller ended: 0 when stopped, 1 when it lost the leader lease or failed. */
export interface Ended {
  code: 0 | 1;
}

/** The controller: its caches, its workers while it acts, its endpoints and its Lease. */
export declare class Controller {
  constructor(options?: ControllerOptions);
  /**
   * Starts the endpoints and the caches, then (when leading, or without leader election) the
   * workers. Resolves once the endpoints listen; rejects when the cluster configuration cannot be
   * read or a port is taken.
   */
  start(): Promise<Controller>;
  /** Its name in the leader Lease. */
  readonly identity: string;
  /** The ports its endpoints listen on (once started). */
  readonly healthPort: number;
  readonly metricsPort: number;
  /** Resolves once its caches are filled (once started). */
  readonly ready: Promise<void>;
  /** Resolves once it has stopped. */
  readonly done: Promise<Ended>;
  /** Whether it acts (leads, or runs without leader election). */
  readonly acting: boolean;
  /** Finishes the actions under way, releases the lease, closes its endpoints. */
  stop(): Promise<Ended>;
}

/** `new Controller(options).start()`. */
export declare function startController(options?: ControllerOptions): Promise<Controller>;

/**
 * A work queue keyed by string, as client-go's: a key waits at most once, is not handed out while
 * processed, and comes back after a backoff that doubles with each failure.
 */
export declare class WorkQueue {
  constructor(options?: { baseDelayMs?: number; maxDelayMs?: number });
  /** Keys waiting to be handed out. */
  readonly length: number;
  /** Keys waiting for their delay. */
  readonly delayedCount: number;
  add(key: string): void;
  addAfter(key: string, ms: number): void;
  /** Adds the key after its backoff; returns the delay in milliseconds. */
  addRateLimited(key: string): number;
  backoff(failures: number): number;
  failuresOf(key: string): number;
  forget(key: string): void;
  /** The next key, or undefined once shut down. */
  get(): Promise<string | undefined>;
  done(key: string): void;
  shutDown(): void;
}
