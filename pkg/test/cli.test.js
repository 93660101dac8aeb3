// The `elasticjob` command as a user runs it: outputs checked against the core's golden cases,
// YAML and JSON input, standard input, syntax errors with line and column, exit statuses, --help.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { parse, parseAllDocuments, stringify } from "yaml";
import * as api from "elasticjob";

const CLI = fileURLToPath(new URL("../bin/elasticjob.js", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const EXAMPLE = join(ROOT, "examples/elasticjob.yaml");
const EXAMPLE_PLAN = join(ROOT, "examples/scaleplan.yaml");
const golden = (name) => ({
  input: parse(readFileSync(join(ROOT, "tests/golden", name, "input.yaml"), "utf8")),
  output: readFileSync(join(ROOT, "tests/golden", name, "output.json"), "utf8"),
});
const dir = mkdtempSync(join(tmpdir(), "elasticjob-cli-"));

/** Runs the CLI (no shell): `{status, stdout, stderr}`. */
function run(args, input) {
  const r = spawnSync(process.execPath, [CLI, ...args], { input, encoding: "utf8", cwd: ROOT });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function file(name, text) {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

test("render prints YAML that reads back as the List the package renders", () => {
  const r = run(["render", EXAMPLE]);
  assert.equal(r.status, 0, r.stderr);
  const job = parse(readFileSync(EXAMPLE, "utf8"));
  assert.deepEqual(parse(r.stdout), api.render(job));
  // YAML 1.1 readers (kubectl) read it back the same.
  assert.deepEqual(parse(r.stdout, { version: "1.1" }), api.render(job));
  assert.match(r.stdout, /^apiVersion: v1\nkind: List\nitems:\n/);
});

test("render -o json of the golden render cases is their output.json", () => {
  for (const name of ["render-every-replica-type", "render-sample-with-scale-plan", "render-allreduce"]) {
    const { input, output } = golden(name);
    // The job and its ScalePlan as two documents of one file.
    const docs = [input.job, input.scalePlan].filter((d) => d !== undefined);
    const path = file(`${name}.yaml`, docs.map((d) => stringify(d)).join("---\n"));
    const r = run(["render", path, "-o", "json"]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, output, name);
  }
});

test("render --scale-plan takes the plan from its own file", () => {
  const together = run(["render", EXAMPLE, "--scale-plan", EXAMPLE_PLAN, "-o", "json"]);
  const job = parse(readFileSync(EXAMPLE, "utf8"));
  const plan = parse(readFileSync(EXAMPLE_PLAN, "utf8"));
  assert.equal(together.status, 0, together.stderr);
  assert.deepEqual(JSON.parse(together.stdout), api.render(job, plan));
});

test("render -o summary is a table of every object", () => {
  const r = run(["render", EXAMPLE, "--scale-plan", EXAMPLE_PLAN, "-o", "summary"]);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trimEnd().split("\n");
  assert.match(lines[0], /^KIND +NAME +TYPE +RANK +CPU +MEMORY +TF_CONFIG TASK$/);
  assert.equal(lines.length, 1 + 8);
  assert.match(lines[3], /^Pod +elasticjob-sample-edljob-ps-0 +ps +0 +2 +512Mi +ps:0$/);
  assert.match(lines[5], /^Pod +elasticjob-sample-edljob-worker-0 +worker +0 +0\.5 +256Mi +worker:0$/);
  assert.match(lines[2], /^Service +elasticjob-elasticjob-sample-dlrover-master +dlrover-master +- +- +- +-$/);
});

test("`-` reads standard input, JSON as well as YAML", () => {
  const job = parse(readFileSync(EXAMPLE, "utf8"));
  const fromYaml = run(["render", "-", "-o", "json"], readFileSync(EXAMPLE, "utf8"));
  const fromJson = run(["render", "-", "-o", "json"], JSON.stringify(job, null, "\t"));
  assert.equal(fromYaml.status, 0, fromYaml.stderr);
  assert.equal(fromJson.stdout, fromYaml.stdout);
  assert.equal(run(["render", "-", "--scale-plan", "-"], "").status, 2);
});

test("tf-config prints exactly the TF_CONFIG the golden cases expect", () => {
  for (const name of ["tf-config-worker-rank-2", "tf-config-ps-with-plan-hosts"]) {
    const { input, output } = golden(name);
    const job = file(`${name}-job.json`, JSON.stringify(input.job));
    const args = ["tf-config", job, "--type", input.replicaType, "--index", String(input.index)];
    if (input.scalePlan !== undefined) {
      args.push("--scale-plan", file(`${name}-plan.yaml`, stringify(input.scalePlan)));
    }
    const r = run(args);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `${JSON.parse(output)}\n`, name);
  }
});

test("plan prints the plan of every golden reconcile case", () => {
  const names = ["job-created-starts-master", "job-pending-to-running", "job-scaling-runs-pending-plan", "master-failed-fails-job", "master-succeeded-finishes-job"];
  for (const name of names) {
    const { input, output } = golden(name);
    assert.equal(input.op, "reconcile");
    const job = file(`${name}-job.yaml`, stringify(input.job));
    // The observed pods as `kubectl get pods -o yaml` prints them: a List.
    const pods = file(`${name}-pods.yaml`, stringify({ apiVersion: "v1", kind: "List", items: input.pods ?? [] }));
    const args = ["plan", job, "--pods", pods, "--now", input.now];
    if (input.scalePlan !== undefined) {
      args.push("--scale-plan", file(`${name}-plan.yaml`, stringify(input.scalePlan)));
    }
    const r = run(args);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, output, name);
  }
});

test("plan reads one pod per document too", () => {
  const { input, output } = golden("job-scaling-runs-pending-plan");
  const both = file("scaling.yaml", `${stringify(input.job)}---\n${stringify(input.scalePlan)}`);
  const pods = file("pods-docs.yaml", input.pods.map((p) => stringify(p)).join("---\n"));
  const r = run(["plan", both, "--pods", pods, "--now", input.now]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, output);
});

test("validate prints FILE: valid, or FILE: PATH: MESSAGE per problem", () => {
  const { input, output } = golden("invalid-job-reports-every-problem");
  const bad = file("bad-job.yaml", stringify(input.job));
  const r = run(["validate", EXAMPLE, EXAMPLE_PLAN, bad]);
  assert.equal(r.status, 1);
  const expected = JSON.parse(output).error.errors.map((p) => `${bad}: ${p.path}: ${p.message}`);
  assert.deepEqual(r.stdout.trimEnd().split("\n"), [`${EXAMPLE}: valid`, `${EXAMPLE_PLAN}: valid`, ...expected]);

  const good = run(["validate", EXAMPLE, EXAMPLE_PLAN]);
  assert.equal(good.status, 0);
  assert.equal(good.stdout, `${EXAMPLE}: valid\n${EXAMPLE_PLAN}: valid\n`);
});

test("validate checks a ScalePlan document as a ScalePlan", () => {
  const plan = { apiVersion: "elastic.iml.github.io/v1alpha1", kind: "ScalePlan", metadata: { name: "p" }, spec: { psHosts: ["no-port"] } };
  const path = file("bad-plan.yaml", `${readFileSync(EXAMPLE, "utf8")}---\n${stringify(plan)}`);
  const r = run(["validate", path]);
  assert.equal(r.status, 1);
  const expected = api.validateScalePlan(plan).error.errors.map((p) => `${path}: ${p.path}: ${p.message}`);
  assert.ok(expected.length > 0);
  assert.deepEqual(r.stdout.trimEnd().split("\n"), expected);
});

test("syntax errors give the file, line and column", () => {
  const yaml = run(["validate", "-"], "kind: ElasticJob\nmetadata:\n  name: a\n  name: b\n");
  assert.equal(yaml.status, 1);
  assert.match(yaml.stdout, /^-:4:3: Map keys must be unique\n/);

  const json = file("bad.json", '{\n  "metadata": {"name": "a"},\n  "spec": [1 2]\n}\n');
  const r = run(["render", json]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, new RegExp(`^${json}:3:14: Expected ',' or '\\]' after array element\n`));

  const nested = run(["render", "-"], "a: b: c\n");
  assert.equal(nested.status, 1);
  assert.match(nested.stderr, /^-:1:4: /);
});

test("a problem of the input is exit 1 and names its file and path", () => {
  const job = parse(readFileSync(EXAMPLE, "utf8"));
  job.spec.replicaSpecs.worker.replicas = "three";
  const r = run(["render", file("three.yaml", stringify(job))]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /three\.yaml: spec\.replicaSpecs\.worker\.replicas: invalid type: string "three"/);
  assert.equal(r.stdout, "");

  const plan = file("bad-hosts.yaml", stringify({ kind: "ScalePlan", metadata: { name: "p" }, spec: { psHosts: [5] } }));
  const p = run(["render", EXAMPLE, "--scale-plan", plan]);
  assert.equal(p.status, 1);
  assert.match(p.stderr, new RegExp(`^${plan}: scalePlan\\.spec\\.psHosts\\[0\\]: invalid type`));
});

test("wrong usage is exit 2 with the usage", () => {
  const cases = [
    [],
    ["frobnicate"],
    ["help", "toString"],
    ["render"],
    ["render", EXAMPLE, "--bogus"],
    ["render", EXAMPLE, "-o", "xml"],
    ["render", EXAMPLE, EXAMPLE],
    ["render", join(dir, "missing.yaml")],
    ["tf-config", EXAMPLE, "--index", "0"],
    ["tf-config", EXAMPLE, "--type", "ps"],
    ["tf-config", EXAMPLE, "--type", "ps", "--index", "-1"],
    ["tf-config", EXAMPLE, "--type", "workers", "--index", "0"],
    ["plan", EXAMPLE, "--scale-plan", EXAMPLE_PLAN],
    ["plan", EXAMPLE, "--scale-plan", EXAMPLE_PLAN, "--pods", EXAMPLE_PLAN, "--now", "yesterday"],
    ["validate"],
  ];
  for (const args of cases) {
    const r = run(args);
    assert.equal(r.status, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, /Usage: elasticjob /, args.join(" "));
    assert.equal(r.stdout, "", args.join(" "));
  }
  assert.match(run(["tf-config", EXAMPLE, "--type", "workers", "--index", "0"]).stderr, /--type: unknown variant `workers`/);
});

test("--help on every command", () => {
  for (const command of ["render", "validate", "tf-config", "plan"]) {
    for (const args of [[command, "--help"], [command, "-h"], ["help", command]]) {
      const r = run(args);
      assert.equal(r.status, 0, args.join(" "));
      assert.match(r.stdout, new RegExp(`^Usage: elasticjob ${command} `), args.join(" "));
    }
  }
  const top = run(["--help"]);
  assert.equal(top.status, 0);
  for (const command of ["render", "validate", "tf-config", "plan"]) {
    assert.match(top.stdout, new RegExp(`\n  ${command} `));
  }
  const version = run(["--version"]);
  assert.equal(version.stdout, `${JSON.parse(readFileSync(join(ROOT, "pkg/package.json"), "utf8")).version}\n`);
});

test("the demo example renders, and its YAML has one document", () => {
  const r = run(["render", EXAMPLE]);
  assert.equal(parseAllDocuments(r.stdout).length, 1);
});
