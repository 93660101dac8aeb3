// Compiled by `tsc --noEmit` (test/types.test.js): the package's declarations type real uses, refuse
// misuse, and no function takes or returns `any`.
import * as elasticjob from "elasticjob";
import {
  ElasticJobError,
  reconcile,
  render,
  renderItem,
  renderSummary,
  summary,
  tfConfig,
  validate,
  type Container,
  type ElasticJob,
  type List,
  type Object as RenderedObject,
  type Plan,
  type PriorityClassRef,
  type Problem,
  type ResourceFlavor,
  type ScalePlan,
  type Services,
  type SummaryRow,
  type Validation,
  type Workload,
} from "elasticjob";
import * as cli from "elasticjob/cli";
import { EXIT, main, type Io } from "elasticjob/cli";
import * as controller from "elasticjob/controller";
import { DEFAULTS, Logger, WorkQueue, startController, type Controller, type ControllerOptions, type Ended } from "elasticjob/controller";

type IsAny<T> = 0 extends 1 & T ? true : false;
type NoAnyIn<F> = F extends (...args: infer A) => infer R
  ? [IsAny<R>, ...{ [K in keyof A]-?: IsAny<A[K]> }][number] extends false
    ? true
    : false
  : true;
type Assert<T extends true> = T;
// Every export: no parameter and no result is `any`.
export type EveryExportIsTyped = Assert<{ [K in keyof typeof elasticjob]: NoAnyIn<(typeof elasticjob)[K]> }[keyof typeof elasticjob]>;
export type EveryCliExportIsTyped = Assert<{ [K in keyof typeof cli]: NoAnyIn<(typeof cli)[K]> }[keyof typeof cli]>;
export type EveryControllerExportIsTyped = Assert<{ [K in keyof typeof controller]: NoAnyIn<(typeof controller)[K]> }[keyof typeof controller]>;
export type ErrorsAreTyped = Assert<IsAny<ElasticJobError["errors"]> extends false ? true : false>;

const job: ElasticJob = {
  apiVersion: "elastic.iml.github.io/v1alpha1",
  kind: "ElasticJob",
  metadata: { name: "mnist", labels: { team: "ads" } },
  spec: {
    distributionStrategy: "ParameterServerStrategy",
    replicaSpecs: {
      ps: { replicas: 1, template: { spec: { containers: [{ name: "main", image: "tf:2", ports: [{ containerPort: 2222 }] }] } } },
      worker: { replicas: 2, restartPolicy: "ExitCode", template: { spec: { containers: [{ name: "main", image: "tf:2" }] } } },
    },
    runPolicy: { cleanPodPolicy: "All", activeDeadlineSeconds: 86_400, backoffLimit: 3, ttlSecondsAfterFinished: 600 },
  },
};

const list: List = render(job);
const names: (string | undefined)[] = list.items.map((o) => o.metadata?.name);
const rows: SummaryRow[] = summary(list);
const preview: SummaryRow[] = renderSummary(job, null, { masterImage: "registry.example.com/dlrover:1" });
const port: number | null | undefined = preview[1]?.port;
const item: RenderedObject = renderItem(job, 3);
void port;
void item;
const config: string = tfConfig(job, "worker", 0);
const plan: ScalePlan = elasticjob.initialScalePlan(job);
const next: Plan = reconcile(job, plan, [], "2026-01-01T00:00:00Z");
for (const phase of next.phases) {
  const kind: "adopt" | "queue" | "services" | "createPods" | "deletions" | "status" | "deleteJob" = phase.phase;
  void kind;
  for (const action of phase.actions) {
    if (action.action === "createPod") {
      const pod: string | undefined = action.pod.metadata.name;
      void pod;
    } else if (action.action === "deleteService") {
      const service: string = action.name;
      void service;
    } else if (action.action === "deleteJob") {
      const deleted: string = action.name;
      void deleted;
    }
  }
}
const requeueAt: string | null | undefined = next.requeueAt;
void requeueAt;
const services: Services = [{ metadata: { name: "mnist-edljob-worker-0" }, spec: { ports: [{ port: 3333 }] } }];
const pass: Plan = elasticjob.controllerPass(null, [plan], { items: [] }, services, new Date());
const labels: string = elasticjob.constants().labels.jobName;
const planKey: string | undefined = elasticjob.jobKey(plan);
void [pass, labels, planKey];
const answer: Validation = validate(JSON.parse("{}") as unknown);
const problems: Problem[] = answer.valid ? [] : (answer.error?.errors ?? []);
const container: Container = elasticjob.insertTfConfigToEnv({ name: "main" }, { ps: ["ps-0:2222"] }, "ps", 0);

// Kueue: the Workload of a queued job, its defaulting and its admission, the queued pass.
const queued: ElasticJob = { ...job, metadata: { ...job.metadata, labels: { "kueue.x-k8s.io/queue-name": "training" } } };
const workload: Workload | null = elasticjob.workload(queued, null, 1000);
const suspended: ElasticJob | null = elasticjob.suspendWhenQueued(queued);
const classRef: PriorityClassRef | null = elasticjob.priorityClass(queued);
const flavors: ResourceFlavor[] = [{ metadata: { name: "reserved" }, spec: { nodeLabels: { pool: "reserved" } } }];
const admitted: ElasticJob | null = workload && elasticjob.admittedJob(queued, workload, flavors);
const queuedPass: Plan = elasticjob.controllerPass(queued, [], [], [], new Date(), null, { workload, resourceFlavors: { items: flavors }, priority: 1000 });
void [suspended, classRef, admitted, queuedPass];

// A refused job: its Refused condition from the problems of the error the pass threw.
const refusal: Plan = elasticjob.refusedJob(job.status, [{ path: "spec.distributionStrategy", code: "invalid_value", message: "no" }], new Date());
void refusal;
// @ts-expect-error the priority is a number
elasticjob.workload(queued, null, "1000");

try {
  render(job);
} catch (e) {
  if (e instanceof ElasticJobError) {
    const code: string = e.code;
    const paths: string[] = e.errors.map((p) => p.path);
    void [code, paths];
  }
}

// @ts-expect-error replicas is a number
render({ ...job, spec: { replicaSpecs: { worker: { replicas: "2" } } } });
// @ts-expect-error not a replica type
tfConfig(job, "workers", 0);
// @ts-expect-error a misspelt field
render({ metadata: { nmae: "mnist" } });
// @ts-expect-error not a cleanPodPolicy
render({ ...job, spec: { ...job.spec, runPolicy: { cleanPodPolicy: "Finished" } } });
// @ts-expect-error the time is a string
reconcile(job, null, [], 1767225600);
// @ts-expect-error the observed services come before the time
elasticjob.controllerPass(null, [], [], new Date());

// The CLI as a function: in-memory outputs, standard input as text or a stream of chunks.
const written: string[] = [];
const io: Io = { stdin: "kind: ElasticJob\n", stdout: { write: (text: string) => written.push(text) }, stderr: { write: () => true } };
const status: Promise<number> = main(["validate", "-"], io);
const usage: 2 = EXIT.usage;
async function* chunks(): AsyncGenerator<Uint8Array> {
  yield new TextEncoder().encode("kind: ScalePlan\n");
}
void main(["render", "job.yaml"], { ...io, stdin: chunks(), cwd: "/jobs", readFile: async (file) => file });
// @ts-expect-error stderr is required
void main(["render", "-"], { stdout: io.stdout });
// @ts-expect-error arguments are strings
void main(["tf-config", "job.yaml", "--index", 0], io);
// @ts-expect-error readFile gives the text
void main(["render", "job.yaml"], { ...io, readFile: (file: string) => file.length });

// The controller: options checked, a running controller stopped, the work queue.
const options: ControllerOptions = { namespace: "training", leaderElect: true, metricsPort: 0, healthPort: 0, logLevel: "debug", kueue: true };
async function runController(): Promise<0 | 1> {
  const running: Controller = await startController({ ...options, logger: new Logger(io.stdout).child({ component: "controller" }) });
  await running.ready;
  const ended: Ended = await running.stop();
  return ended.code;
}
// @ts-expect-error not a log level
void startController({ logLevel: "loud" });
// @ts-expect-error ports are numbers
void startController({ metricsPort: "8080" });
const queue = new WorkQueue({ baseDelayMs: 10 });
queue.add("training/mnist");
const key: Promise<string | undefined> = queue.get();
const lease: number = DEFAULTS.leaseDurationSeconds;

void [names, rows, config, problems, container, status, usage, runController, key, lease];
