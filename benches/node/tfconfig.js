// The core's TF_CONFIG for every task of a job of 1 PS + N workers (N = 10, 100, 1,000), through the
// npm package: `tfConfig` once a task, and `render` (every pod with its TF_CONFIG, and the services)
// once, beside Kubeflow training-operator v1.9.4's `genTFConfigJSONStr` for every task of the same
// TFJob (figures given as JSON by benches/kubeflow/tfconfig.sh). Prints figures; asserts nothing.
// Usage: node benches/node/tfconfig.js '{"10": MS, "100": MS, "1000": MS}'
import { writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { initialScalePlan, render, tfConfig } from "elasticjob";

const kubeflow = JSON.parse(process.argv[2] ?? "{}");
const TEMPLATE = { spec: { restartPolicy: "Never", containers: [{ name: "main", image: "tf:2" }] } };

function job(workers) {
  return {
    apiVersion: "elastic.iml.github.io/v1alpha1",
    kind: "ElasticJob",
    metadata: { name: "bench", namespace: "ads", uid: "u-1" },
    spec: {
      distributionStrategy: "ParameterServerStrategy",
      replicaSpecs: { ps: { replicas: 1, template: TEMPLATE }, worker: { replicas: workers, template: TEMPLATE } },
    },
  };
}

/** Median milliseconds of `f` over runs that take about a second in all (at least 5). */
function medianMs(f) {
  f();
  const times = [];
  const until = performance.now() + 1000;
  while (times.length < 5 || (performance.now() < until && times.length < 200)) {
    const start = performance.now();
    f();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[times.length >> 1];
}

const figures = {};
for (const n of [10, 100, 1000]) {
  const j = job(n);
  const plan = initialScalePlan(j);
  const everyTask = medianMs(() => {
    tfConfig(j, "ps", 0, plan);
    for (let r = 0; r < n; r += 1) {
      tfConfig(j, "worker", r, plan);
    }
  });
  const rendered = medianMs(() => render(j, plan));
  const theirs = kubeflow[String(n)];
  figures[n] = { tfConfigEveryTaskMs: everyTask, renderMs: rendered, kubeflowEveryTaskMs: theirs };
  const ratio = (ours) => (theirs ? `${(ours / theirs).toFixed(2)}x Kubeflow's` : "");
  console.log(
    `1 PS + ${n} workers: Kubeflow genTFConfigJSONStr every task ${theirs?.toFixed(3) ?? "n/a"} ms; core tfConfig every task ${everyTask.toFixed(3)} ms (${ratio(everyTask)}); core render (every pod and service) ${rendered.toFixed(3)} ms (${ratio(rendered)})`,
  );
}
if (process.env.BENCH_JSON) {
  writeFileSync(process.env.BENCH_JSON, JSON.stringify(figures, null, 2));
}
