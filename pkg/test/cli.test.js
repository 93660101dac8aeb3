// The `elasticjob` command as a user runs it: outputs checked against the core's golden cases,
// YAML and JSON input, standard input, syntax errors with line and column, exit statuses, --help.
// Command lines run in this process through `main(argv, io)` of elasticjob/cli; the last tests start
// bin/elasticjob.js as a program (exit status, standard input, a reader that leaves early).
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { parse, parseAllDocuments, stringify } from "yaml";
import * as api from "elasticjob";
import { main } from "elasticjob/cli";
import { cell } from "../cli/output.js";
import { layout } from "../cli/status.js";
import { Logger } from "../controller/log.js";

const CLI = fileURLToPath(new URL("../bin/elasticjob.js", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const EXAMPLE = join(ROOT, "examples/elasticjob.yaml");
const EXAMPLE_PLAN = join(ROOT, "examples/scaleplan.yaml");
const golden = (name) => ({
  input: parse(readFileSync(join(ROOT, "tests/golden", name, "input.yaml"), "utf8")),
  output: readFileSync(join(ROOT, "tests/golden", name, "output.json"), "utf8"),
});
const dir = mkdtempSync(join(tmpdir(), "elasticjob-cli-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs a command line in this process, `input` as standard input: `{status, stdout, stderr}`. */
async function run(args, input = "", options = undefined) {
  const stdout = [];
  const stderr = [];
  const write = (chunks) => ({ write: (text) => chunks.push(text) });
  const status = await main(args, { stdin: input, stdout: write(stdout), stderr: write(stderr), cwd: ROOT }, options);
  return { status, stdout: stdout.join(""), stderr: stderr.join("") };
}

/** Runs bin/elasticjob.js as a program (no shell): `{status, stdout, stderr}`. */
function spawnCli(args, input) {
  const r = spawnSync(process.execPath, [CLI, ...args], { input, encoding: "utf8", cwd: ROOT });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function file(name, text) {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

test("render prints YAML that reads back as the List the package renders", async () => {
  const r = await run(["render", EXAMPLE]);
  assert.equal(r.status, 0, r.stderr);
  const job = parse(readFileSync(EXAMPLE, "utf8"));
  assert.deepEqual(parse(r.stdout), api.render(job));
  // YAML 1.1 readers (kubectl) read it back the same.
  assert.deepEqual(parse(r.stdout, { version: "1.1" }), api.render(job));
  assert.match(r.stdout, /^apiVersion: v1\nkind: List\nitems:\n/);
});

test("render -o json of the golden render cases is their output.json", async () => {
  for (const name of ["render-every-replica-type", "render-sample-with-scale-plan", "render-allreduce"]) {
    const { input, output } = golden(name);
    // The job and its ScalePlan as two documents of one file.
    const docs = [input.job, input.scalePlan].filter((d) => d !== undefined);
    const path = file(`${name}.yaml`, docs.map((d) => stringify(d)).join("---\n"));
    const r = await run(["render", path, "-o", "json"]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, output, name);
  }
});

test("render --scale-plan takes the plan from its own file", async () => {
  const together = await run(["render", EXAMPLE, "--scale-plan", EXAMPLE_PLAN, "-o", "json"]);
  const job = parse(readFileSync(EXAMPLE, "utf8"));
  const plan = parse(readFileSync(EXAMPLE_PLAN, "utf8"));
  assert.equal(together.status, 0, together.stderr);
  assert.deepEqual(JSON.parse(together.stdout), api.render(job, plan));
});

test("render -o summary is a table of every object", async () => {
  const r = await run(["render", EXAMPLE, "--scale-plan", EXAMPLE_PLAN, "-o", "summary"]);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trimEnd().split("\n");
  assert.match(lines[0], /^KIND +NAME +TYPE +RANK +CPU +MEMORY +TF_CONFIG TASK$/);
  assert.equal(lines.length, 1 + 8);
  assert.match(lines[3], /^Pod +elasticjob-sample-edljob-ps-0 +ps +0 +2 +512Mi +ps:0$/);
  assert.match(lines[5], /^Pod +elasticjob-sample-edljob-worker-0 +worker +0 +500m +256Mi +worker:0$/);
  assert.match(lines[2], /^Service +elasticjob-elasticjob-sample-dlrover-master +dlrover-master +- +- +- +-$/);
});

test("render -o summary of a suspended job says so first", async () => {
  const job = parse(readFileSync(EXAMPLE, "utf8"));
  job.spec.suspend = true;
  const r = await run(["render", "-", "-o", "summary"], JSON.stringify(job));
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trimEnd().split("\n");
  assert.equal(lines[0], "job elasticjob-sample is suspended (spec.suspend: true): none of these runs until it is set to false");
  assert.match(lines[1], /^KIND +NAME/);
  // What it runs once resumed: the same objects as the job that is not suspended.
  const running = await run(["render", EXAMPLE, "-o", "summary"]);
  assert.equal(lines.slice(1).join("\n"), running.stdout.trimEnd());
});

test("`-` reads standard input, JSON as well as YAML", async () => {
  const job = parse(readFileSync(EXAMPLE, "utf8"));
  const fromYaml = await run(["render", "-", "-o", "json"], readFileSync(EXAMPLE, "utf8"));
  const fromJson = await run(["render", "-", "-o", "json"], JSON.stringify(job, null, "\t"));
  assert.equal(fromYaml.status, 0, fromYaml.stderr);
  assert.equal(fromJson.stdout, fromYaml.stdout);
  assert.equal((await run(["render", "-", "--scale-plan", "-"], "")).status, 2);
});

test("tf-config prints exactly the TF_CONFIG the golden cases expect", async () => {
  for (const name of ["tf-config-worker-rank-2", "tf-config-ps-with-plan-hosts"]) {
    const { input, output } = golden(name);
    const job = file(`${name}-job.json`, JSON.stringify(input.job));
    const args = ["tf-config", job, "--type", input.replicaType, "--index", String(input.index)];
    if (input.scalePlan !== undefined) {
      args.push("--scale-plan", file(`${name}-plan.yaml`, stringify(input.scalePlan)));
    }
    const r = await run(args);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `${JSON.parse(output)}\n`, name);
  }
});

/**
 * The services the controller made for these pods, as `kubectl get services -o yaml` lists them
 * (their names are the spec's: `<job>-edljob-<type>-<rank>`, the master's named as its pod).
 */
function servicesOf(pods) {
  const { labels } = api.constants();
  const items = pods.map(({ metadata: { name, namespace, labels: l } }) => {
    const master = l[labels.replicaType] === "dlrover-master";
    return { apiVersion: "v1", kind: "Service", metadata: { name: master ? name : `${l[labels.jobName]}-edljob-${l[labels.replicaType]}-${l[labels.rankIndex]}`, namespace } };
  });
  return { apiVersion: "v1", kind: "List", items };
}

test("plan prints the plan of every golden reconcile case", async () => {
  const names = ["job-created-starts-master", "job-pending-to-running", "job-scaling-runs-pending-plan", "master-failed-fails-job", "master-succeeded-finishes-job"];
  for (const name of names) {
    const { input, output } = golden(name);
    assert.equal(input.op, "reconcile");
    const job = file(`${name}-job.yaml`, stringify(input.job));
    // The observed pods as `kubectl get pods -o yaml` prints them: a List; and their services.
    const pods = file(`${name}-pods.yaml`, stringify({ apiVersion: "v1", kind: "List", items: input.pods ?? [] }));
    const services = file(`${name}-services.yaml`, stringify(servicesOf(input.pods ?? [])));
    const args = ["plan", job, "--pods", pods, "--services", services, "--now", input.now];
    if (input.scalePlan !== undefined) {
      args.push("--scale-plan", file(`${name}-plan.yaml`, stringify(input.scalePlan)));
    }
    const r = await run(args);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, output, name);
  }
});

test("plan takes the job, its ScalePlans, its pods and its services from any number of files (the controller's pass)", async () => {
  const { input, output } = golden("controller-pass-takes-the-plans-in-order");
  assert.equal(input.op, "controllerPass");
  const job = file("pass-job.yaml", stringify(input.job));
  const [first, ...others] = input.scalePlans;
  const plans = [file("pass-plan-a.yaml", stringify(first)), file("pass-plans.yaml", stringify({ apiVersion: "v1", kind: "List", items: others }))];
  const pods = file("pass-pods.yaml", [...input.pods, ...input.services].map((o) => stringify(o)).join("---\n"));
  const r = await run(["plan", job, ...plans, pods, "--now", input.now]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, output);
  // A problem names the file of the plan it is in.
  const bad = file("pass-bad-plan.yaml", stringify({ ...first, spec: { ...first.spec, psHosts: ["no-port"] } }));
  const refused = await run(["plan", job, bad, "--now", input.now]);
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, new RegExp(`^${bad.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: scalePlans\\[0\\]\\.spec\\.psHosts\\[0\\]: `, "m"));
});

test("plan takes the job's services too: a missing one is made again, one of a rank scaled away deleted", async () => {
  const { input, output } = golden("controller-pass-keeps-the-jobs-services");
  assert.equal(input.op, "controllerPass");
  const all = file("keep-all.yaml", [input.job, ...input.scalePlans, ...input.pods].map((o) => stringify(o)).join("---\n"));
  const services = file("keep-services.yaml", stringify({ apiVersion: "v1", kind: "List", items: input.services }));
  const r = await run(["plan", all, services, "--now", input.now]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, output);
  const actions = JSON.parse(r.stdout).phases.flatMap((p) => p.actions).map((a) => `${a.action} ${a.service?.metadata.name ?? a.name}`);
  assert.deepEqual(actions, ["createOrUpdateService mnist-edljob-worker-0", "deleteService mnist-edljob-worker-2"]);
  // A problem in a service names its file.
  const bad = file("keep-bad-services.yaml", stringify({ ...input.services[0], spec: { ports: [{ port: "grpc" }] } }));
  const refused = await run(["plan", all, "--services", bad, "--now", input.now]);
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, new RegExp(`^${bad.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: services\\[0\\]\\.spec\\.ports\\[0\\]\\.port: `, "m"));
});

test("render and plan take --gang-scheduler-name, and plan the job's PodGroup from its file: the golden gang cases", async () => {
  const rendered = golden("render-gang-scheduler-plugins");
  const path = file("gang-render.yaml", stringify(rendered.input.job));
  const r = await run(["render", path, "--gang-scheduler-name", rendered.input.options.gangSchedulerName, "-o", "json"]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, rendered.output);
  for (const name of ["gang-follows-the-plan", "volcano-pending-gang-keeps-its-pods-back", "volcano-admitted-gang-makes-its-pods"]) {
    const { input, output } = golden(name);
    const all = file(`${name}.yaml`, [input.job, ...input.scalePlans, ...input.pods, input.podGroup].map((o) => stringify(o)).join("---\n"));
    const gang = input.options?.gangSchedulerName;
    const args = ["plan", all, "--now", input.now, ...(gang ? ["--gang-scheduler-name", gang] : [])];
    const passed = await run(args);
    assert.equal(passed.status, 0, passed.stderr);
    assert.equal(passed.stdout, output, name);
  }
  // A bad scheduler name is wrong usage of the flag, not a problem of a file.
  const bad = await run(["render", path, "--gang-scheduler-name", "Not A Name"]);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /^elasticjob: --gang-scheduler-name: "Not A Name" is not a scheduler name/);
  // Two PodGroups: the job has one.
  const { input } = golden("gang-follows-the-plan");
  const two = file("two-groups.yaml", [input.job, input.podGroup, input.podGroup].map((o) => stringify(o)).join("---\n"));
  const refused = await run(["plan", two, "--now", input.now]);
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /2 PodGroups; give the job's one/);
});

test("plan reads one pod (and one service) per document too", async () => {
  const { input, output } = golden("job-scaling-runs-pending-plan");
  const both = file("scaling.yaml", `${stringify(input.job)}---\n${stringify(input.scalePlan)}`);
  const pods = file("pods-docs.yaml", [...input.pods, ...servicesOf(input.pods).items].map((o) => stringify(o)).join("---\n"));
  const r = await run(["plan", both, "--pods", pods, "--now", input.now]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, output);
});

/** The object without `kind` and `apiVersion`, as an item of an API server's list response. */
const bare = ({ kind: _kind, apiVersion: _apiVersion, ...rest }) => rest;

test("plan takes pods, services and plans as people have them: jq arrays without kinds under --pods, --services, --scale-plan", async () => {
  const { input, output } = golden("job-scaling-runs-pending-plan");
  const job = file("people-job.json", JSON.stringify(input.job));
  // `kubectl get pods -o json | jq '[.items[] | del(.kind, .apiVersion)]'`, and the same of services and plans.
  const pods = file("people-pods.json", JSON.stringify(input.pods.map(bare)));
  const services = file("people-services.json", JSON.stringify(servicesOf(input.pods).items.map(bare)));
  const plans = file("people-plans.json", JSON.stringify([bare(input.scalePlan)]));
  const r = await run(["plan", job, "--pods", pods, "--services", services, "--scale-plan", plans, "--now", input.now]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, output);
  // The same arrays as standard input (`... | jq .items | elasticjob plan job.json --pods -`).
  const piped = await run(["plan", job, "--pods", "-", "--services", services, "--scale-plan", plans, "--now", input.now], JSON.stringify(input.pods.map(bare)));
  assert.equal(piped.status, 0, piped.stderr);
  assert.equal(piped.stdout, output);
  // Without the option that names it, an object without a kind is refused, saying what to do.
  const refused = await run(["plan", job, pods, "--now", input.now]);
  assert.equal(refused.status, 1);
  assert.equal(
    refused.stderr.split("\n")[0],
    `${pods}: an object without a kind is not an ElasticJob, a ScalePlan, a Pod or a Service; give it a kind, or give the FILE as --pods FILE, --services FILE or --scale-plan FILE`,
  );
  // A problem in a kind-less pod still names its file.
  const badPods = file("people-bad-pods.json", JSON.stringify([{ ...bare(input.pods[0]), status: { phase: 7 } }]));
  const bad = await run(["plan", job, "--pods", badPods, "--scale-plan", plans, "--now", input.now]);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, new RegExp(`^${badPods.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: pods\\[0\\]\\.status\\.phase: `, "m"));
});

test("plan takes an API server's list responses (PodList, ServiceList, ScalePlanList: items without kinds) in any FILE", async () => {
  const { input, output } = golden("job-scaling-runs-pending-plan");
  // `kubectl get --raw /api/v1/namespaces/NS/pods`: the list's kind names its items' kind.
  const response = (kind, apiVersion, items) => ({ kind, apiVersion, metadata: { resourceVersion: "4711" }, items: items.map(bare) });
  const job = file("raw-job.yaml", stringify(input.job));
  const pods = file("raw-pods.json", JSON.stringify(response("PodList", "v1", input.pods)));
  const services = file("raw-services.json", JSON.stringify(response("ServiceList", "v1", servicesOf(input.pods).items)));
  const plans = file("raw-plans.json", JSON.stringify(response("ScalePlanList", "elastic.iml.github.io/v1alpha1", [input.scalePlan])));
  const r = await run(["plan", job, pods, services, plans, "--now", input.now]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, output);
  // `kubectl get elasticjobs,scaleplans,pods,services -o json`: one List, its items with kinds.
  const all = { apiVersion: "v1", kind: "List", metadata: { resourceVersion: "" }, items: [input.job, input.scalePlan, ...input.pods, ...servicesOf(input.pods).items] };
  const list = await run(["plan", "-", "--now", input.now], JSON.stringify(all));
  assert.equal(list.status, 0, list.stderr);
  assert.equal(list.stdout, output);
  // A top-level array of objects with kinds (jq '[.items[]]') in a FILE of its own.
  const array = await run(["plan", file("raw-all.json", JSON.stringify(all.items)), "--now", input.now]);
  assert.equal(array.status, 0, array.stderr);
  assert.equal(array.stdout, output);
});

test("render, tf-config and validate read top-level arrays and Lists too; a --scale-plan FILE's object without a kind is its ScalePlan", async () => {
  const job = parse(readFileSync(EXAMPLE, "utf8"));
  const plan = parse(readFileSync(EXAMPLE_PLAN, "utf8"));
  const want = JSON.stringify(api.render(job, plan));
  const both = file("array-both.json", JSON.stringify([job, plan]));
  const fromArray = await run(["render", both, "-o", "json"]);
  assert.equal(fromArray.status, 0, fromArray.stderr);
  assert.equal(JSON.stringify(JSON.parse(fromArray.stdout)), want);
  const kindless = await run(["render", EXAMPLE, "--scale-plan", file("kindless-plan.json", JSON.stringify(bare(plan))), "-o", "json"]);
  assert.equal(kindless.status, 0, kindless.stderr);
  assert.equal(JSON.stringify(JSON.parse(kindless.stdout)), want);
  const planList = file("plan-list.json", JSON.stringify({ kind: "ScalePlanList", apiVersion: plan.apiVersion, metadata: {}, items: [bare(plan)] }));
  const fromList = await run(["tf-config", EXAMPLE, "--scale-plan", planList, "--type", "worker", "--index", "0"]);
  assert.equal(fromList.status, 0, fromList.stderr);
  assert.equal(fromList.stdout, `${api.tfConfig(job, "worker", 0, plan)}\n`);
  // validate checks each item: a ScalePlan as a ScalePlan, the job as a job.
  const badPlan = { ...plan, spec: { ...plan.spec, psHosts: ["no-port"] } };
  const checked = await run(["validate", both, file("array-bad.json", JSON.stringify([job, badPlan]))]);
  assert.equal(checked.status, 1);
  const expected = api.validateScalePlan(badPlan).error.errors.map((p) => `${join(dir, "array-bad.json")}: ${p.path}: ${p.message}`);
  assert.deepEqual(checked.stdout.trimEnd().split("\n"), [`${both}: valid`, ...expected]);
  // An empty array holds nothing to check.
  const empty = await run(["validate", file("array-empty.json", "[]")]);
  assert.deepEqual([empty.status, empty.stdout], [1, `${join(dir, "array-empty.json")}: no ElasticJob or ScalePlan in the file\n`]);
});

test("validate prints FILE: valid, or FILE: PATH: MESSAGE per problem", async () => {
  const { input, output } = golden("invalid-job-reports-every-problem");
  const bad = file("bad-job.yaml", stringify(input.job));
  const r = await run(["validate", EXAMPLE, EXAMPLE_PLAN, bad]);
  assert.equal(r.status, 1);
  const expected = JSON.parse(output).error.errors.map((p) => `${bad}: ${p.path}: ${p.message}`);
  assert.deepEqual(r.stdout.trimEnd().split("\n"), [`${EXAMPLE}: valid`, `${EXAMPLE_PLAN}: valid`, ...expected]);

  const good = await run(["validate", EXAMPLE, EXAMPLE_PLAN]);
  assert.equal(good.status, 0);
  assert.equal(good.stdout, `${EXAMPLE}: valid\n${EXAMPLE_PLAN}: valid\n`);
});

test("validate checks a ScalePlan document as a ScalePlan", async () => {
  const plan = { apiVersion: "elastic.iml.github.io/v1alpha1", kind: "ScalePlan", metadata: { name: "p" }, spec: { psHosts: ["no-port"] } };
  const path = file("bad-plan.yaml", `${readFileSync(EXAMPLE, "utf8")}---\n${stringify(plan)}`);
  const r = await run(["validate", path]);
  assert.equal(r.status, 1);
  const expected = api.validateScalePlan(plan).error.errors.map((p) => `${path}: ${p.path}: ${p.message}`);
  assert.ok(expected.length > 0);
  assert.deepEqual(r.stdout.trimEnd().split("\n"), expected);
});

test("syntax errors give the file, line and column", async () => {
  const yaml = await run(["validate", "-"], "kind: ElasticJob\nmetadata:\n  name: a\n  name: b\n");
  assert.equal(yaml.status, 1);
  assert.match(yaml.stdout, /^-:4:3: Map keys must be unique\n/);

  const json = file("bad.json", '{\n  "metadata": {"name": "a"},\n  "spec": [1 2]\n}\n');
  const r = await run(["render", json]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, new RegExp(`^${json}:3:14: Expected ',' or '\\]' after array element\n`));

  const nested = await run(["render", "-"], "a: b: c\n");
  assert.equal(nested.status, 1);
  assert.match(nested.stderr, /^-:1:4: /);
});

test("a problem of the input is exit 1 and names its file and path", async () => {
  const job = parse(readFileSync(EXAMPLE, "utf8"));
  job.spec.replicaSpecs.worker.replicas = "three";
  const r = await run(["render", file("three.yaml", stringify(job))]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /three\.yaml: spec\.replicaSpecs\.worker\.replicas: invalid type: string "three"/);
  assert.equal(r.stdout, "");

  const plan = file("bad-hosts.yaml", stringify({ kind: "ScalePlan", metadata: { name: "p" }, spec: { psHosts: [5] } }));
  const p = await run(["render", EXAMPLE, "--scale-plan", plan]);
  assert.equal(p.status, 1);
  assert.match(p.stderr, new RegExp(`^${plan}: scalePlan\\.spec\\.psHosts\\[0\\]: invalid type`));
});

// What a terminal acts on: C0 controls but the newline, DEL, and C1 controls.
const CONTROL_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

test("control characters from a file or an object reach the terminal as \\xNN, never as they are", async () => {
  // A name the core refuses, quoted in its message: an escape sequence that would clear the screen.
  const job = parse(readFileSync(EXAMPLE, "utf8"));
  job.metadata.name = "a\u001b[2J\u009b31m";
  const bad = file("escape-\u0007.json", JSON.stringify(job));
  for (const args of [["validate", bad], ["render", bad], ["render", "-f", bad, "-o", "summary"]]) {
    const r = await run(args);
    assert.equal(r.status, 1, args.join(" "));
    const out = r.stdout + r.stderr;
    assert.doesNotMatch(out, CONTROL_BUT_NEWLINE, args.join(" "));
    assert.match(out, /escape-\\x07\.json: metadata\.name: `a\\x1b\[2J\\x9b31m`/, args.join(" "));
  }
  // An annotation copied onto every pod: JSON escapes it (C1 too), YAML quotes and escapes it.
  const ok = parse(readFileSync(EXAMPLE, "utf8"));
  ok.metadata.annotations = { note: "x\u001b]0;owned\u0007\u009by" };
  for (const format of ["json", "yaml"]) {
    const r = await run(["render", "-", "-o", format], JSON.stringify(ok));
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stdout, CONTROL_BUT_NEWLINE, format);
    const objects = format === "json" ? JSON.parse(r.stdout).items : parseAllDocuments(r.stdout).flatMap((d) => d.toJS().items ?? [d.toJS()]);
    assert.ok(objects.some((o) => o.metadata.annotations?.note === ok.metadata.annotations.note), `${format} reads back the same value`);
  }
  // Unknown commands and options are quoted back escaped as well.
  const usage = await run(["\u001b[2Jrender"]);
  assert.equal(usage.status, 2);
  assert.doesNotMatch(usage.stderr, CONTROL_BUT_NEWLINE);
});

test("bidirectional and zero-width characters reach the terminal escaped in every kind of line: a problem, a table cell, status text, YAML, JSON, a controller log line (issue 46)", async () => {
  // "Trojan Source": an override that shows `nimda` as `admin`, an isolate, zero-width ones, a BOM, line separators.
  const hidden = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200b\u200c\u200d\u200e\u200f\ufeff\u2028\u2029";
  const INVISIBLE = /[\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/;
  assert.equal(cell(`a${hidden}b`), "a\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u200b\\u200c\\u200d\\u200e\\u200f\\ufeff\\u2028\\u2029b");
  const job = parse(readFileSync(EXAMPLE, "utf8"));
  job.metadata.name = "a\u202enimda";
  const bad = file("bidi.json", JSON.stringify(job));
  for (const args of [["validate", bad], ["render", bad], ["render", "-f", bad, "-o", "summary"]]) {
    const r = await run(args);
    assert.equal(r.status, 1, args.join(" "));
    assert.doesNotMatch(r.stdout + r.stderr, INVISIBLE, args.join(" "));
    assert.match(r.stdout + r.stderr, /metadata\.name: `a\\u202enimda`/, args.join(" "));
  }
  const ok = parse(readFileSync(EXAMPLE, "utf8"));
  ok.metadata.annotations = { note: `x${hidden}y` };
  for (const format of ["json", "yaml", "summary"]) {
    const r = await run(["render", "-", "-o", format], JSON.stringify(ok));
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stdout, INVISIBLE, format);
    if (format !== "summary") {
      const objects = format === "json" ? JSON.parse(r.stdout).items : parseAllDocuments(r.stdout).flatMap((d) => d.toJS().items ?? [d.toJS()]);
      assert.ok(objects.some((o) => o.metadata.annotations?.note === ok.metadata.annotations.note), `${format} reads back the same value`);
    }
  }
  const view = { name: "j", namespace: "ml", phase: "Running", suspended: false, conditions: [{ type: "Running", status: "True", reason: "R", message: `m${hidden}` }], replicas: [], scalePlans: [] };
  assert.doesNotMatch(layout({ view, events: [{ type: "Warning", reason: `r${hidden}`, message: hidden, lastTimestamp: new Date().toISOString() }] }), INVISIBLE);
  let logged = "";
  new Logger({ write: (t) => (logged += t) }).error(`msg${hidden}`, { job: `ml/j${hidden}` });
  assert.doesNotMatch(logged, INVISIBLE);
  assert.deepEqual([JSON.parse(logged).msg, JSON.parse(logged).job], [`msg${hidden}`, `ml/j${hidden}`], "the same JSON values");
});

test("status shows event and condition text escaped: anyone who may write an Event cannot write to the admin's terminal", () => {
  const hostile = "done\u001b]0;pwned\u0007\r\u009b2K\ttab\nnext";
  const view = {
    name: "j",
    namespace: "ml",
    phase: "Running",
    suspended: false,
    scalePlan: "j-scaleplan-0",
    conditions: [{ type: "Running", status: "True", reason: "JobRunning", message: hostile }],
    replicas: [],
    scalePlans: [{ name: "j-scaleplan-0", phase: "Succeeded", changes: [hostile] }],
  };
  const text = layout({ view, events: [{ type: "Warning", reason: "R\u001b[31m", message: hostile, lastTimestamp: new Date().toISOString() }] });
  assert.doesNotMatch(text, CONTROL_BUT_NEWLINE);
  assert.equal(text.split("\n").filter((l) => l.includes("done")).length, 3, "a message stays on its line");
  assert.ok(text.includes("done\\x1b]0;pwned\\x07\\x0d\\x9b2K\\x09tab\\x0anext"), text);
  assert.ok(text.includes("R\\x1b[31m"), text);
});

test("wrong usage is exit 2 with the usage", async () => {
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
    ["plan"],
    ["plan", EXAMPLE, "--scale-plan", EXAMPLE_PLAN, "--pods", EXAMPLE_PLAN, "--now", "yesterday"],
    ["validate"],
    ["status"],
    ["status", "a", "b"],
    ["status", "mnist", "--kubeconfig", join(dir, "missing.kubeconfig")],
    ["render", "-f"],
  ];
  for (const args of cases) {
    const r = await run(args);
    assert.equal(r.status, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, /Usage: elasticjob /, args.join(" "));
    assert.equal(r.stdout, "", args.join(" "));
  }
  assert.match((await run(["tf-config", EXAMPLE, "--type", "workers", "--index", "0"])).stderr, /--type: unknown variant `workers`/);
});

test("FILEs also as -f FILE / --filename FILE, as kubectl takes them; the kubectl plugin names itself", async () => {
  const positional = await run(["render", EXAMPLE, "-o", "summary"]);
  assert.deepEqual(await run(["render", "-f", EXAMPLE, "-o", "summary"]), positional);
  assert.equal((await run(["validate", "--filename", EXAMPLE, "-f", EXAMPLE_PLAN])).stdout, `${EXAMPLE}: valid\n${EXAMPLE_PLAN}: valid\n`);
  const { main } = await import("elasticjob/cli");
  let err = "";
  const status = await main(["status"], { stdout: { write: () => {} }, stderr: { write: (t) => (err += t) } }, { program: "kubectl elasticjob" });
  assert.equal(status, 2);
  assert.equal(err, "kubectl elasticjob: NAME is missing\nUsage: kubectl elasticjob status NAME [-n NAMESPACE] [--kubeconfig PATH] [--context NAME] [-w]\nRun `kubectl elasticjob status --help` for more.\n");
  assert.match((await run(["status", "mnist", "-f", EXAMPLE])).stderr, /Unknown option '-f'/, "status reads no FILE");
});

test("--help on every command", async () => {
  for (const command of ["render", "validate", "tf-config", "plan", "status"]) {
    for (const args of [[command, "--help"], [command, "-h"], ["help", command]]) {
      const r = await run(args);
      assert.equal(r.status, 0, args.join(" "));
      assert.match(r.stdout, new RegExp(`^Usage: elasticjob ${command} `), args.join(" "));
    }
  }
  const top = await run(["--help"]);
  assert.equal(top.status, 0);
  for (const command of ["render", "validate", "tf-config", "plan"]) {
    assert.match(top.stdout, new RegExp(`\n  ${command} `));
  }
  const version = await run(["--version"]);
  assert.equal(version.stdout, `${JSON.parse(readFileSync(join(ROOT, "pkg/package.json"), "utf8")).version}\n`);
});

test("the demo example renders, and its YAML has one document", async () => {
  const r = await run(["render", EXAMPLE]);
  assert.equal(parseAllDocuments(r.stdout).length, 1);
});

test("main reads `-` from bytes or a stream, and relative FILEs from cwd or readFile", async () => {
  const text = readFileSync(EXAMPLE, "utf8");
  const expected = (await run(["render", EXAMPLE, "-o", "json"])).stdout;
  const chunks = (async function* () {
    yield text.slice(0, 10);
    yield Buffer.from(text.slice(10));
  })();
  for (const stdin of [Buffer.from(text), chunks]) {
    const stdout = [];
    const status = await main(["render", "-", "-o", "json"], { stdin, stdout: { write: (t) => stdout.push(t) }, stderr: { write: assert.fail } });
    assert.equal(status, 0);
    assert.equal(stdout.join(""), expected);
  }
  assert.equal((await run(["render", "examples/elasticjob.yaml", "-o", "json"])).stdout, expected);

  const files = { "job.yaml": text };
  const stdout = [];
  const stderr = [];
  const io = { stdout: { write: (t) => stdout.push(t) }, stderr: { write: (t) => stderr.push(t) }, readFile: async (f) => files[f] ?? readFileSync(join(dir, "none", f)) };
  assert.equal(await main(["validate", "job.yaml"], io), 0);
  assert.equal(stdout.join(""), "job.yaml: valid\n");
  // No file of that name, and no standard input given: wrong usage.
  assert.equal(await main(["validate", "other.yaml"], io), 2);
  assert.equal(await main(["validate", "-"], io), 2);
  assert.match(stderr.join(""), /^elasticjob: cannot read other\.yaml: no such file\n[^]*\nelasticjob: cannot read standard input: none was given\n/);
});

// bin/elasticjob.js as a program.

test("the program reads standard input for `-` and prints what main prints", async () => {
  const text = readFileSync(EXAMPLE, "utf8");
  const r = spawnCli(["render", "-", "-o", "summary"], text);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, "");
  assert.equal(r.stdout, (await run(["render", "-", "-o", "summary"], text)).stdout);
});

test("the program's exit status: 1 for invalid input, 2 for wrong usage", () => {
  const invalid = spawnCli(["validate", "-"], "kind: ElasticJob\nmetadata:\n  name: a\n  name: b\n");
  assert.equal(invalid.status, 1);
  assert.match(invalid.stdout, /^-:4:3: Map keys must be unique\n/);
  const usage = spawnCli(["render", EXAMPLE, "--bogus"]);
  assert.equal(usage.status, 2);
  assert.match(usage.stderr, /^elasticjob: Unknown option '--bogus'[^]*\nUsage: elasticjob render /);
});

test("the program stops quietly when its reader leaves early (`elasticjob render | head`)", async () => {
  const job = parse(readFileSync(EXAMPLE, "utf8"));
  job.spec.replicaSpecs.worker.replicas = 100; // about 500 KB of JSON: more than a pipe holds
  delete job.spec.resourceLimits; // the example's 6 CPUs hold 2 workers, not 100
  const path = file("hundred-workers.json", JSON.stringify(job));
  const child = spawn(process.execPath, [CLI, "render", path, "-o", "json"], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (text) => {
    stderr += text;
  });
  // Read the first chunk, then close the pipe as `head` does.
  const first = await new Promise((resolve) => child.stdout.once("data", resolve));
  child.stdout.destroy();
  const [status, signal] = await new Promise((resolve) => child.on("close", (...r) => resolve(r)));
  assert.match(first.toString(), /^\{\n {2}"apiVersion": "v1",\n {2}"kind": "List",/);
  assert.equal(stderr, "");
  assert.deepEqual([status, signal], [0, null]);
});

const TFJOBS = join(ROOT, "examples/tfjob");
const converted = (name) => JSON.parse(readFileSync(join(TFJOBS, `${name}.converted.json`), "utf8"));

test("convert prints the ElasticJob of each TFJob of examples/tfjob/ and its notes on stderr as FILE: PATH: MESSAGE", async () => {
  for (const name of ["ps-workers", "chief", "evaluator", "run-policy"]) {
    const path = join(TFJOBS, `${name}.yaml`);
    const { elasticJob, notes } = converted(name);
    const r = await run(["convert", path]);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(parse(r.stdout, { version: "1.1" }), elasticJob);
    assert.equal(r.stderr, notes.map((n) => `${path}: ${n.path}: ${n.message}\n`).join(""));
    const json = await run(["convert", "-o", "json", path]);
    assert.equal(json.stdout, `${JSON.stringify(elasticJob, null, 2)}\n`);
  }
  assert.equal((await run(["convert", join(TFJOBS, "chief.yaml"), "-o", "table"])).status, 2);
});

test("convert of several TFJobs (stdin, `-`) prints one YAML document each and names each TFJob in its notes", async () => {
  const text = ["ps-workers", "chief"].map((n) => readFileSync(join(TFJOBS, `${n}.yaml`), "utf8")).join("---\n");
  const r = await run(["convert", "-"], text);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(parseAllDocuments(r.stdout).map((d) => d.toJS()), [converted("ps-workers").elasticJob, converted("chief").elasticJob]);
  assert.match(r.stderr, /^- \(mnist\): spec\.runPolicy\.cleanPodPolicy: /m);
  assert.match(r.stderr, /^- \(census\): spec\.runPolicy\.backoffLimit: /m);
  const list = await run(["convert", "-", "-o", "json"], text);
  assert.deepEqual(JSON.parse(list.stdout).items.map((j) => j.metadata.name), ["mnist", "census"]);
});

test("convert of a TFJob that does not convert prints every problem at its TFJob path and no ElasticJob; its text reaches the terminal escaped", async () => {
  const tfJob = parse(readFileSync(join(TFJOBS, "evaluator.yaml"), "utf8"));
  tfJob.spec.tfReplicaSpecs.Chief = tfJob.spec.tfReplicaSpecs.Master;
  tfJob.spec.tfReplicaSpecs["\u001b[2Jx"] = tfJob.spec.tfReplicaSpecs.PS;
  const r = await run(["convert", "-"], JSON.stringify(tfJob));
  assert.equal(r.status, 1);
  assert.equal(r.stdout, "");
  assert.deepEqual(r.stderr.trim().split("\n").map((l) => l.split(": ").slice(0, 2).join(": ")), [
    "-: spec.tfReplicaSpecs.\\x1b[2Jx",
    "-: spec.tfReplicaSpecs.Master",
  ]);
  const managed = parse(readFileSync(join(TFJOBS, "chief.yaml"), "utf8"));
  managed.spec.runPolicy.managedBy = "kueue\u001b]0;owned\u0007";
  const noted = await run(["convert", "-"], JSON.stringify(managed));
  assert.equal(noted.status, 0);
  assert.match(noted.stderr, /managedBy: `kueue\\x1b\]0;owned\\x07` is not carried/);
  assert.doesNotMatch(noted.stderr, /\u001b/);
});

test("every other command handed a TFJob says in one line that it is one and how to convert it", async () => {
  const path = join(TFJOBS, "ps-workers.yaml");
  const line = `${path}: a Kubeflow TFJob, not an ElasticJob; \`elasticjob convert ${path}\` makes it an ElasticJob\n`;
  for (const args of [["render", path], ["validate", path], ["tf-config", path, "--type", "worker", "--index", "0"], ["plan", path, "--now", "2026-01-02T03:04:05Z"]]) {
    const r = await run(args);
    assert.equal(r.status, 1, args.join(" "));
    assert.equal(args[0] === "validate" ? r.stdout : r.stderr, line, args.join(" "));
  }
  const spaced = file("my tfjob.yaml", readFileSync(path, "utf8"));
  assert.match((await run(["render", spaced])).stderr, new RegExp(`elasticjob convert '${spaced.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}'`));
  // As the kubectl plugin, the line names the command the user runs.
  const plugin = { program: "kubectl elasticjob" };
  const pluginLine = line.replace("`elasticjob convert", "`kubectl elasticjob convert");
  assert.equal((await run(["render", path], "", plugin)).stderr, pluginLine);
  assert.equal((await run(["validate", path], "", plugin)).stdout, pluginLine);
});
