// `elasticjob status NAME` (and `kubectl elasticjob status NAME`): what a job is doing, read from
// the cluster through the kubeconfig as kubectl reads it. What is shown is the core's `jobView`
// (which pods and plans are the job's, how they count, what each plan changed); this file only
// fetches the objects and lays the view out.
import { ElasticJobError, jobView } from "../node.js";
import { EXIT, InputError, UsageError } from "./errors.js";
import { cell, lines as textLines } from "./output.js";

/** How many of the job's events are shown, the latest last. */
const EVENTS = 10;

export default {
  name: "status",
  usage: "status NAME [-n NAMESPACE] [--kubeconfig PATH] [--context NAME] [-w]",
  about: "what a job in the cluster is doing: phase, conditions, pods, scale plans, events",
  help: `Prints the job's phase and conditions; per replica type the pods it wants and how many are
pending, running, succeeded and failed; its scale plans, oldest first, with their phase and what
each changed; and its last ${EVENTS} events.

Options:
  -n, --namespace NS   the job's namespace (default: the context's, else \`default\`)
  --kubeconfig PATH    the kubeconfig (default: $KUBECONFIG, else ~/.kube/config)
  --context NAME       the kubeconfig context (default: its current context)
  -w, --watch          print again whenever the job, its plans, pods or events change (until
                       interrupted)`,
  options: {
    namespace: { type: "string", short: "n" },
    kubeconfig: { type: "string" },
    context: { type: "string" },
    watch: { type: "boolean", short: "w" },
  },
  positionals: [1, 1],
  async run([name], values, io) {
    const cluster = await connect(values);
    const read = () => snapshot(cluster, name);
    try {
      let text = layout(await read());
      io.stdout.write(text);
      if (!values.watch) {
        return EXIT.ok;
      }
      return await watch(cluster, io, async () => {
        const next = layout(await read());
        if (next !== text) {
          text = next;
          io.stdout.write(`\n${text}`);
        }
      });
    } finally {
      cluster.adapter.close();
    }
  },
};

/** The kubeconfig, context and namespace as kubectl chooses them, and a client for them. */
async function connect(values) {
  // Loaded here: the Kubernetes client takes about a second to load, which the other commands skip.
  const k8s = await import("@kubernetes/client-node");
  const { KubeAdapter } = await import("../controller/adapter.js");
  const kc = new k8s.KubeConfig();
  try {
    if (values.kubeconfig !== undefined) {
      kc.loadFromFile(values.kubeconfig);
    } else {
      kc.loadFromDefault();
    }
  } catch (e) {
    throw new UsageError(`cannot read the kubeconfig ${values.kubeconfig ?? process.env.KUBECONFIG ?? "~/.kube/config"}: ${e.message}`);
  }
  if (values.context !== undefined) {
    if (kc.getContextObject(values.context) === null) {
      throw new UsageError(`no context \`${values.context}\` in the kubeconfig`);
    }
    kc.setCurrentContext(values.context);
  }
  if (!kc.getCurrentCluster()) {
    throw new UsageError("the kubeconfig has no current context with a cluster: give --kubeconfig or --context");
  }
  const namespace = values.namespace || kc.getContextObject(kc.getCurrentContext())?.namespace || "default";
  const adapter = new KubeAdapter(kc);
  await adapter.connect();
  return { k8s, kc, adapter, namespace };
}

/** The job, its namespace's scale plans and pods, and the job's events, read now; then the core's view. */
async function snapshot({ adapter, namespace }, name) {
  let job;
  try {
    job = await adapter.get("ElasticJob", namespace, name);
  } catch (e) {
    if (e.status === 404) {
      throw new InputError([`elasticjob ${namespace}/${name}: not found`]);
    }
    throw new InputError([`elasticjob ${namespace}/${name}: ${e.message}`]);
  }
  const [plans, pods, events] = await Promise.all([
    adapter.list("ScalePlan", { namespace }),
    adapter.list("Pod", { namespace }),
    adapter.request("GET", `/api/v1/namespaces/${encodeURIComponent(namespace)}/events`, {
      query: { fieldSelector: `involvedObject.uid=${job.metadata.uid}` },
      verb: "list",
      resource: "events",
    }),
  ]);
  try {
    return { view: jobView(job, plans, pods), events: events.items ?? [] };
  } catch (e) {
    if (!(e instanceof ElasticJobError)) {
      throw e;
    }
    throw new InputError(e.errors.map((p) => `elasticjob ${namespace}/${name}: ${p.path ? `${p.path}: ` : ""}${p.message}`));
  }
}

/** Redraws on every change of the namespace's jobs, plans, pods and events, until SIGINT or SIGTERM. */
function watch({ k8s, kc, namespace }, io, redraw) {
  return new Promise((resolve) => {
    const watcher = new k8s.Watch(kc);
    const requests = [];
    let pending = Promise.resolve();
    let timer;
    const changed = () => {
      clearTimeout(timer);
      // A burst of changes (a plan's pods) is drawn once.
      timer = setTimeout(() => {
        pending = pending.then(redraw).catch((e) => io.stderr.write(`${textLines(e.message)}\n`));
      }, 200);
    };
    const paths = [
      `/apis/elastic.iml.github.io/v1alpha1/namespaces/${namespace}/elasticjobs`,
      `/apis/elastic.iml.github.io/v1alpha1/namespaces/${namespace}/scaleplans`,
      `/api/v1/namespaces/${namespace}/pods`,
      `/api/v1/namespaces/${namespace}/events`,
    ];
    const stop = () => {
      clearTimeout(timer);
      for (const r of requests) {
        r.then((c) => c.abort()).catch(() => {});
      }
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      pending.finally(() => resolve(EXIT.ok));
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    for (const path of paths) {
      // Each watch starts from now (no resourceVersion: the server sends what exists, then changes).
      requests.push(watcher.watch(path, { allowWatchBookmarks: false }, changed, (e) => e && io.stderr.write(`watch ${cell(path)}: ${textLines(e.message)}\n`)));
    }
  });
}

/**
 * The view as text: a header, then one table per part. Every value read from the cluster (names,
 * reasons, messages, event text: what anyone who may write an object or an event chose) goes
 * through `cell`, so it cannot reach the terminal as a control sequence.
 */
export function layout({ view, events }) {
  const lines = [
    `Name:        ${cell(view.name)}`,
    `Namespace:   ${cell(view.namespace ?? "default")}`,
    `Phase:       ${cell(view.phase ?? "-")}${view.suspended ? " (suspended)" : ""}`,
    `Scale plan:  ${cell(view.scalePlan ?? "-")}`,
    "",
    "Conditions:",
    ...indent(table(["TYPE", "STATUS", "REASON", "MESSAGE"], view.conditions.map((c) => [c.type, c.status, c.reason, c.message]))),
    "",
    "Replicas:",
    ...indent(
      table(
        ["TYPE", "WANTED", "PENDING", "RUNNING", "SUCCEEDED", "FAILED"],
        view.replicas.map((r) => [r.replicaType, r.wanted ?? "-", r.pending, r.running, r.succeeded, r.failed]),
      ),
    ),
    "",
    "Scale plans (oldest first):",
    ...(view.scalePlans.length === 0
      ? ["  <none>"]
      : view.scalePlans.flatMap((p) => [`  ${cell(p.name)}  ${cell(p.phase ?? "-")}`, ...(p.changes.length === 0 ? ["    (no change)"] : p.changes.map((c) => `    ${cell(c)}`))])),
    "",
    `Events (last ${EVENTS}):`,
    ...indent(table(["LAST SEEN", "TYPE", "REASON", "MESSAGE"], lastEvents(events).map((e) => [age(e), e.type, e.reason, e.message]))),
  ];
  return `${lines.join("\n")}\n`;
}

function lastEvents(events) {
  const at = (e) => Date.parse(e.lastTimestamp ?? e.eventTime ?? e.metadata?.creationTimestamp ?? 0) || 0;
  return [...events].sort((a, b) => at(a) - at(b)).slice(-EVENTS);
}

/** How long ago, as kubectl writes ages: 45s, 3m, 5h, 2d. */
function age(event, now = Date.now()) {
  const at = Date.parse(event.lastTimestamp ?? event.eventTime ?? event.metadata?.creationTimestamp ?? "");
  if (Number.isNaN(at)) {
    return "-";
  }
  const s = Math.max(0, Math.round((now - at) / 1000));
  return s < 120 ? `${s}s` : s < 7200 ? `${Math.floor(s / 60)}m` : s < 172800 ? `${Math.floor(s / 3600)}h` : `${Math.floor(s / 86400)}d`;
}

function table(header, rows) {
  if (rows.length === 0) {
    return ["<none>"];
  }
  const cells = rows.map((r) => r.map((c) => cell(c ?? "")));
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i].length)));
  return [header, ...cells].map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join("  "));
}

function indent(lines) {
  return lines.map((l) => `  ${l}`);
}
