// `npm pack`, then the tarball installed into a fresh project, the way users get it: imported from
// ESM and CommonJS, its types compiled by tsc (Node and bundler resolution), its CLI run with npx.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

const PKG = fileURLToPath(new URL("../", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
// The workspace root's node_modules (npm hoists the workspaces' dependencies there).
const TSC = join(dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin/tsc");
const NPM_FLAGS = ["--no-audit", "--no-fund", "--loglevel=error", "--prefer-offline"];

const work = mkdtempSync(join(tmpdir(), "elasticjob-pack-"));
const project = join(work, "consumer");
// The tarball and the project with its node_modules: about 80 MB each run.
after(() => rmSync(work, { recursive: true, force: true }));

function run(command, args, cwd) {
  try {
    return execFileSync(command, args, { cwd, encoding: "utf8", stdio: "pipe" });
  } catch (e) {
    assert.fail(`${command} ${args.join(" ")} failed:\n${e.stdout}${e.stderr}`);
  }
}

let packed;

test("npm pack ships the package and nothing else", (t) => {
  [packed] = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", work, "--loglevel=error"], PKG));
  const files = packed.files.map((f) => f.path).sort();
  // The glue's modules (bindings/wasm/js/), in a folder named by wasm-bindgen's hash.
  const snippets = files.filter((f) => /^dist\/snippets\/[^/]+\/js\/[a-z]+\.js$/.test(f));
  assert.deepEqual(snippets.map((f) => f.split("/").pop()), ["errors.js", "text.js"], "the error class and the text reader are shipped");
  assert.deepEqual(
    files.filter((f) => !snippets.includes(f)),
    [
      "README.md",
      "api.d.ts",
      "api.js",
      "bin/elasticjob.js",
      "bin/kubectl-elasticjob.js",
      "browser.js",
      "cli/controller.js",
      "cli/convert.js",
      "cli/errors.js",
      "cli/index.d.ts",
      "cli/index.js",
      "cli/input.js",
      "cli/output.js",
      "cli/plan.js",
      "cli/process.js",
      "cli/render.js",
      "cli/status.js",
      "cli/tf-config.js",
      "cli/validate.js",
      "controller/adapter.js",
      "controller/defaults.js",
      "controller/events.js",
      "controller/executor.js",
      "controller/expectations.js",
      "controller/handlers.js",
      "controller/index.d.ts",
      "controller/index.js",
      "controller/informer.js",
      "controller/leader.js",
      "controller/log.js",
      "controller/metrics.js",
      "controller/queue.js",
      "controller/ratelimit.js",
      "controller/reconciler.js",
      "controller/runner.js",
      "controller/serve.js",
      "controller/texts.js",
      "dist/elasticjob_wasm.d.ts",
      "dist/elasticjob_wasm.js",
      "dist/elasticjob_wasm_bg.wasm",
      "dist/types.d.ts",
      "index.d.ts",
      "json.js",
      "node.js",
      "package.json",
      "text.d.ts",
      "text.js",
    ],
  );
  t.diagnostic(`tarball ${packed.filename}: ${packed.size} bytes, ${packed.unpackedSize} bytes unpacked, ${packed.entryCount} files`);
});

test("installed into a fresh project, it imports from ESM and CommonJS", () => {
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  run("npm", ["install", ...NPM_FLAGS, join(work, packed.filename)], project);
  writeFileSync(
    join(project, "main.js"),
    `import { render, validate, ElasticJobError } from "elasticjob";
import { readFileSync } from "node:fs";
import { parse } from "yaml";
const job = parse(readFileSync(process.argv[2], "utf8"));
const list = render(job);
let error;
try { render({ metadata: { name: 5 } }); } catch (e) { error = e; }
console.log(JSON.stringify({ kinds: list.items.map((o) => o.kind), valid: validate(job).valid,
  error: error instanceof ElasticJobError && error instanceof Error ? error.errors[0].path : String(error) }));
`,
  );
  const esm = JSON.parse(run(process.execPath, ["main.js", join(ROOT, "examples/elasticjob.yaml")], project));
  // The master, the PS and the chief DLRover's master makes of the example's one worker.
  assert.deepEqual(esm, { kinds: ["Pod", "Service", "Pod", "Service", "Pod", "Service"], valid: true, error: "metadata.name" });

  writeFileSync(
    join(project, "cli.js"),
    `import { main } from "elasticjob/cli";
let out = "";
const status = await main(["tf-config", process.argv[2], "--type", "ps", "--index", "0"], { stdout: { write: (t) => (out += t) }, stderr: process.stderr });
console.log(JSON.stringify({ status, task: JSON.parse(out).task }));
`,
  );
  const cli = JSON.parse(run(process.execPath, ["cli.js", join(ROOT, "examples/elasticjob.yaml")], project));
  assert.deepEqual(cli, { status: 0, task: { type: "ps", index: 0 } });

  writeFileSync(join(project, "controller.js"), `import { startController, WorkQueue } from "elasticjob/controller";\nconsole.log(typeof startController, typeof WorkQueue);\n`);
  assert.equal(run(process.execPath, ["controller.js"], project), "function function\n");

  writeFileSync(join(project, "main.cjs"), `const { tfConfig } = require("elasticjob");\nconsole.log(typeof tfConfig);\n`);
  assert.equal(run(process.execPath, ["main.cjs"], project), "function\n");
});

test("its types compile in the fresh project, with Node and with bundler resolution", () => {
  writeFileSync(
    join(project, "main.ts"),
    `import { render, ElasticJobError, type ElasticJob, type List } from "elasticjob";
import { main, type Io } from "elasticjob/cli";
import { startController, type ControllerOptions } from "elasticjob/controller";
const job: ElasticJob = { metadata: { name: "mnist" }, spec: { distributionStrategy: "ParameterServerStrategy",
  replicaSpecs: { worker: { replicas: 2, template: { spec: { containers: [{ name: "main", image: "tf:2" }] } } } } } };
const list: List = render(job);
try { render(job); } catch (e) { if (e instanceof ElasticJobError) { const paths: string[] = e.errors.map((p) => p.path); void paths; } }
// @ts-expect-error replicas is a number
render({ spec: { replicaSpecs: { worker: { replicas: "2" } } } });
const io: Io = { stdin: "", stdout: { write: (text: string) => text.length }, stderr: { write: () => true } };
const status: Promise<number> = main(["validate", "-"], io);
const options: ControllerOptions = { namespace: "training", leaderElect: true };
const started = startController(options).then((c) => c.stop());
export { list, status, started };
`,
  );
  const options = { target: "es2022", strict: true, noEmit: true, skipLibCheck: false, types: [] };
  writeFileSync(join(project, "tsconfig.node.json"), JSON.stringify({ compilerOptions: { ...options, module: "nodenext", moduleResolution: "nodenext" }, files: ["main.ts"] }));
  writeFileSync(join(project, "tsconfig.bundler.json"), JSON.stringify({ compilerOptions: { ...options, module: "esnext", moduleResolution: "bundler" }, files: ["main.ts"] }));
  run(process.execPath, [TSC, "--project", "tsconfig.node.json"], project);
  run(process.execPath, [TSC, "--project", "tsconfig.bundler.json"], project);
});

test("npx elasticjob runs the CLI of the installed package", () => {
  const version = JSON.parse(readFileSync(join(PKG, "package.json"), "utf8")).version;
  assert.equal(run("npx", ["--no-install", "elasticjob", "--version"], project), `${version}\n`);
  const summary = run("npx", ["--no-install", "elasticjob", "render", join(ROOT, "examples/elasticjob.yaml"), "-o", "summary"], project);
  assert.match(summary, /^KIND +NAME +TYPE +RANK +CPU +MEMORY +TF_CONFIG TASK\n/);
  assert.match(summary, /\nPod +elasticjob-sample-edljob-ps-0 +ps +0 /);
  assert.match(run("npx", ["--no-install", "elasticjob", "controller", "--help"], project), /^Usage: elasticjob controller /);
});
