// Every shell line of the code blocks of README.md and docs/*.md, run as written from the root of
// this clone, page by page (README.md first), with the npm registry unreachable: each line's exit
// status is checked, and where the page shows a line's output, that output. How a page says what the
// test does with a line, in words a reader needs anyway (docs/testing.md has the rules):
//
// - a ```sh block's lines are commands (a line ending in `\` goes on on the next; `#` lines are
//   comments), each run with bash from the repository root; it must exit 0, or N when its comment
//   says `exits N`;
// - a line whose comment says `until Ctrl-C` runs until its block ends: it is started, must print
//   its first line (and, where its comment names an http:// address, the http://127.0.0.1:PORT/
//   address it prints must answer 200) and still run while the block's later lines run; then it
//   gets SIGINT, as Ctrl-C sends it, and must end by it;
// - a line whose comment says `not run by make test-docs: REASON` is not run, and must give REASON;
// - a ```text (or bare ```) block right after a ```sh block is what that block's last line prints
//   (standard output and error); one after `<!-- docs-test: the text of FILE -->` is FILE; one after
//   `<!-- docs-test: not output -->` is no output (a listing); any other is an error of the page.
//
// Each page that talks to a cluster gets a fresh test cluster (tests/cluster, with deploy/crds/ and
// two KWOK nodes) whose admin kubeconfig is the page's ~/.kube/config (HOME is a folder of the page's;
// the toolchains keep their own homes). PATH has first the global npm prefix of this test (where the
// README's `npm install --global ./pkg` links `elasticjob` and `kubectl-elasticjob`), then the kubectl
// and Helm of tests/tools, as a user has them on PATH. npm is offline and its registry
// http://127.0.0.1:9/, where nothing listens: a command that would fall back to the registry fails.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { plan } from "./pages.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CLUSTER_BIN = process.env.CLUSTER_BIN;
const TOOLS = process.env.TOOLS ?? join(ROOT, ".tools");
const CRDS = join(ROOT, "deploy/crds");
const ALL_PAGES = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).sort().map((f) => `docs/${f}`)];
/** DOCS_PAGES="docs/npm.md README.md" runs only those (`make test-docs DOCS_PAGES=...`). */
const PAGES = process.env.DOCS_PAGES ? process.env.DOCS_PAGES.split(/\s+/).filter(Boolean) : ALL_PAGES;
/** Pages whose lines talk to a cluster: a fresh one each. */
const CLUSTER_LINE = /\b(kubectl|helm|elasticjob controller)\b/;
const COMMAND_SECONDS = 600;
/** The least time a line that runs until Ctrl-C runs before it gets it. */
const MIN_RUN_MS = 5000;

const work = mkdtempSync(join(tmpdir(), "elasticjob-docs-"));
const prefix = join(work, "npm-global");
after(() => rmSync(work, { recursive: true, force: true }));

/** The homes of the toolchains, kept when HOME is the page's (cargo, rustup, Go, npm's cache). */
const TOOLCHAIN_HOMES = {
  CARGO_HOME: process.env.CARGO_HOME ?? join(process.env.HOME, ".cargo"),
  RUSTUP_HOME: process.env.RUSTUP_HOME ?? join(process.env.HOME, ".rustup"),
  GOPATH: execFileSync("go", ["env", "GOPATH"], { encoding: "utf8" }).trim(),
  GOCACHE: execFileSync("go", ["env", "GOCACHE"], { encoding: "utf8" }).trim(),
  GOMODCACHE: execFileSync("go", ["env", "GOMODCACHE"], { encoding: "utf8" }).trim(),
  npm_config_cache: execFileSync("npm", ["config", "get", "cache"], { encoding: "utf8" }).trim(),
};

/** The environment of a page's lines: a user's shell in the clone, offline for npm. */
function pageEnv(home) {
  const env = { ...process.env, ...TOOLCHAIN_HOMES };
  for (const name of ["KUBECONFIG", "MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES", "NODE_TEST_CONTEXT", "NODE_OPTIONS"]) {
    delete env[name];
  }
  return {
    ...env,
    HOME: home,
    PATH: [join(prefix, "bin"), join(TOOLS, "kubectl"), join(TOOLS, "helm"), process.env.PATH].join(delimiter),
    npm_config_prefix: prefix,
    npm_config_registry: "http://127.0.0.1:9/",
    npm_config_offline: "true",
  };
}

/** The text as compared: lines without trailing blanks, no trailing empty lines. */
const normal = (text) => text.split("\n").map((l) => l.trimEnd()).join("\n").replace(/\n+$/, "");

/** Runs a line with bash in its own process group; `{status, signal, output}` (stdout and stderr as they came). */
function start(command, env) {
  const child = spawn("bash", ["-c", command], { cwd: ROOT, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const result = { output: "", child, started: Date.now() };
  child.stdout.on("data", (d) => (result.output += d));
  child.stderr.on("data", (d) => (result.output += d));
  result.done = new Promise((resolve) => child.on("close", (status, signal) => resolve({ status, signal })));
  return result;
}

async function runLine(command, env, seconds = COMMAND_SECONDS) {
  const line = start(command, env);
  const timer = setTimeout(() => process.kill(-line.child.pid, "SIGKILL"), seconds * 1000);
  const end = await line.done;
  clearTimeout(timer);
  return { ...end, output: line.output };
}

/** The files at the root of the clone, to remove what a page's lines left there (`> install.yaml`). */
const rootFiles = () => new Set(readdirSync(ROOT));

describe("every shell line of README.md and docs/*.md", () => {
  const ran = [];
  const skipped = [];

  for (const page of PAGES) {
    it(`${page}: every line runs as written`, async (t) => {
      const text = readFileSync(join(ROOT, page), "utf8");
      const { steps, errors } = plan(page, text);
      assert.deepEqual(errors, [], `${page}: blocks the test cannot check`);
      if (steps.length === 0) {
        return;
      }
      const home = join(work, page.replace(/\W/g, "-"));
      mkdirSync(join(home, ".kube"), { recursive: true });
      const cluster = join(work, `cluster-${page.replace(/\W/g, "-")}`);
      const needsCluster = steps.some((s) => s.kind !== "skip" && s.command && CLUSTER_LINE.test(s.command));
      if (needsCluster) {
        assert.ok(CLUSTER_BIN, "run with `make test-docs` (CLUSTER_BIN names the test cluster)");
        clusterUp(cluster, t);
        copyFileSync(join(cluster, "kubeconfig"), join(home, ".kube", "config"));
      }
      const before = rootFiles();
      const env = pageEnv(home);
      const running = [];
      try {
        for (const step of steps) {
          // Ctrl-C for the lines of the blocks before this one: a line runs until its block ends.
          while (running.length > 0 && running[0].step.block < step.block) {
            const { step: started, line } = running.shift();
            await stopLine(started, line);
          }
          if (step.kind === "skip") {
            skipped.push(`${step.at}: ${step.reason}`);
            t.diagnostic(`not run: ${step.command.split("\n")[0].replace(/\s+#.*$/, "")} (${step.reason})`);
          } else if (step.kind === "file") {
            assert.equal(normal(step.shown), normal(readFileSync(join(ROOT, step.file), "utf8")), `${step.at}: the page shows ${step.file} as it is`);
          } else if (step.kind === "run") {
            const started = Date.now();
            const end = await runLine(step.command, env);
            ran.push(step.command);
            t.diagnostic(`${step.at} (${((Date.now() - started) / 1000).toFixed(1)} s): ${step.command.split("\n")[0]}`);
            const others = running.map(({ step: r, line }) => `\n--- ${r.at}, \`${r.command}\` (running until Ctrl-C), printed:\n${line.output}`).join("");
            assert.equal(end.status, step.status, `${step.at}: \`${step.command}\` exited ${end.status ?? end.signal}, not ${step.status}:\n${end.output}${others}`);
            if (step.shown !== undefined) {
              assert.equal(normal(end.output), normal(step.shown), `${step.at}: \`${step.command}\` printed what the page shows`);
            }
          } else {
            running.push({ step, line: await startLine(step, env) });
            ran.push(step.command);
          }
          for (const { step: r, line } of running) {
            assert.equal(line.child.exitCode, null, `${r.at}: \`${r.command}\` ended before Ctrl-C (exit ${line.child.exitCode}):\n${line.output}`);
          }
        }
      } finally {
        while (running.length > 0) {
          const { step, line } = running.shift();
          await stopLine(step, line);
        }
        for (const file of rootFiles()) {
          if (!before.has(file)) {
            rmSync(join(ROOT, file), { recursive: true, force: true });
          }
        }
        if (needsCluster) {
          execFileSync(CLUSTER_BIN, ["down", "--dir", cluster], { stdio: ["ignore", "ignore", "inherit"] });
        }
      }
    });
  }

  it("runs the pages' lines, and leaves out only lines that say why", { skip: PAGES !== ALL_PAGES && "DOCS_PAGES names some pages" }, () => {
    assert.ok(ran.length >= 40, `${ran.length} lines run`);
    // 14: the two `kubectl wait` lines of migrate-from-tfjob.md need a job that DLRover's master
    // ends, which no docs page runs yet.
    assert.ok(skipped.length <= 14, `lines not run:\n${skipped.join("\n")}`);
    // No line asks npx for a package: npx would fall back to the registry for one not installed.
    for (const command of ran) {
      assert.doesNotMatch(command, /\bnpx\b|\bnpm exec\b/, command);
    }
  });
});

/** Starts a line that runs until Ctrl-C and waits until it has printed (and serves what it says it serves). */
async function startLine(step, env) {
  const line = start(step.command, env);
  const deadline = Date.now() + 120_000;
  while (line.output.trim() === "" && line.child.exitCode === null && Date.now() < deadline) {
    await sleep(100);
  }
  assert.equal(line.child.exitCode, null, `${step.at}: \`${step.command}\` ended at once:\n${line.output}`);
  assert.notEqual(line.output.trim(), "", `${step.at}: \`${step.command}\` printed nothing in 120 s`);
  // A line that says it serves a page (its comment names an http:// address) serves the one it prints.
  if (/#.*http:\/\//.test(step.command)) {
    const printed = () => /http:\/\/127\.0\.0\.1:\d+\/\S*/.exec(line.output)?.[0];
    while (!printed() && line.child.exitCode === null && Date.now() < deadline) {
      await sleep(100);
    }
    const address = printed();
    assert.ok(address, `${step.at}: \`${step.command}\` printed no http://127.0.0.1:PORT/ address:\n${line.output}`);
    const answer = await fetch(address);
    assert.equal(answer.status, 200, `${step.at}: ${address}`);
  }
  return line;
}

/**
 * Ctrl-C: SIGINT to the line's process group, once it has run for MIN_RUN_MS (as a person reads what
 * it printed first); it must end by it (exit 0, or the signal's end).
 */
async function stopLine(step, line) {
  await sleep(Math.max(0, line.started + MIN_RUN_MS - Date.now()));
  if (line.child.exitCode === null && line.child.signalCode === null) {
    process.kill(-line.child.pid, "SIGINT");
  }
  const timer = setTimeout(() => process.kill(-line.child.pid, "SIGKILL"), 30_000);
  const end = await line.done;
  clearTimeout(timer);
  const byCtrlC = end.status === 0 || end.status === 130 || end.signal === "SIGINT";
  assert.ok(byCtrlC, `${step.at}: \`${step.command}\` ended by Ctrl-C (exit ${end.status ?? end.signal}):\n${line.output}`);
}

/**
 * A fresh test cluster in `dir`. Started once more if its control plane exits at once: seen once on
 * this shared machine, with nothing in its log (a port taken between the pick and the listen).
 */
function clusterUp(dir, t) {
  const up = () => execFileSync(CLUSTER_BIN, ["up", "--dir", dir, "--crds", CRDS, "--nodes", "2"], { stdio: ["ignore", "ignore", "inherit"] });
  try {
    up();
  } catch (e) {
    t.diagnostic(`cluster up failed (${e.status}); once more`);
    execFileSync(CLUSTER_BIN, ["down", "--dir", dir], { stdio: "ignore" });
    up();
  }
}

