// Shared by the tests: a small job, and the core's golden cases.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { parse } from "yaml";

/** One PS (with requests) and two workers. */
export const job = () => ({
  apiVersion: "elastic.iml.github.io/v1alpha1",
  kind: "ElasticJob",
  metadata: { name: "mnist", namespace: "training", uid: "6f0c3a52-8e1d-4b8e-9d0a-2f1e7c9b5a11" },
  spec: {
    distributionStrategy: "ParameterServerStrategy",
    replicaSpecs: {
      ps: { replicas: 1, restartCount: 2, template: { spec: { containers: [{ name: "main", image: "tf:2", resources: { requests: { cpu: "1", memory: "2Gi" } } }] } } },
      worker: { replicas: 2, restartCount: 2, template: { spec: { containers: [{ name: "main", image: "tf:2" }] } } },
    },
  },
});

const GOLDEN = new URL("../../tests/golden/", import.meta.url);

/** Every case of tests/golden: its name, its parsed input.yaml, and its output.json as text. */
export function goldenCases() {
  return readdirSync(GOLDEN, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(new URL(`${d.name}/input.yaml`, GOLDEN)))
    .map((d) => ({
      name: d.name,
      input: parse(readFileSync(new URL(`${d.name}/input.yaml`, GOLDEN), "utf8")),
      expected: readFileSync(new URL(`${d.name}/output.json`, GOLDEN), "utf8"),
    }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

