// What the cluster tests of the controller share: polling until a condition holds, and
// `elasticjob controller` as a child process (so SIGKILL and leader election are real) with its JSON
// log lines, its free ports and its metrics.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

/** The `elasticjob` CLI of this package. */
export const BIN = fileURLToPath(new URL("../../bin/elasticjob.js", import.meta.url));
/** Child processes still running: {@link killAll} ends them at the end of a test file. */
const processes = new Set();

/** Kills every child process a test started and has not stopped. */
export function killAll() {
  for (const child of processes) {
    child.kill("SIGKILL");
  }
}

/** Polls `check` every 100 ms until it returns a truthy value; fails after `seconds` with `what`. */
export async function eventually(what, check, seconds = 30) {
  const deadline = Date.now() + seconds * 1000;
  let last;
  for (;;) {
    try {
      const value = await check();
      if (value) {
        return value;
      }
      last = undefined;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      throw new Error(`${what}: not within ${seconds} s${last ? `: ${last.message}` : ""}`);
    }
    await sleep(100);
  }
}

/** `elasticjob controller` as a child process: its JSON log lines, its ports (free ones), its metrics. */
export class Controller {
  /** `kubeconfigPath`: the kubeconfig it talks to the cluster with (the controller's ServiceAccount's). */
  constructor(name, args, { kubeconfigPath }) {
    this.name = name;
    this.lines = [];
    this.waiters = [];
    this.stderr = "";
    this.child = spawn(process.execPath, [BIN, "controller", "--kubeconfig", kubeconfigPath, ...args, "--metrics-port", "0", "--health-port", "0"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    processes.add(this.child);
    this.child.stderr.on("data", (d) => {
      this.stderr += d;
    });
    this.exited = new Promise((resolve) => {
      this.child.on("exit", (code, signal) => {
        processes.delete(this.child);
        for (const waiter of this.waiters.splice(0)) {
          waiter.fail(`exited (${signal ?? code})`);
        }
        resolve({ code, signal });
      });
    });
    createInterface({ input: this.child.stdout }).on("line", (text) => {
      let line;
      try {
        line = JSON.parse(text);
      } catch {
        line = { msg: text, notJson: true };
      }
      this.lines.push(line);
      for (const waiter of [...this.waiters]) {
        if (waiter.match(line)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    });
  }

  /** The first log line that matches, seen or to come. */
  line(what, match, seconds = 30) {
    const seen = this.lines.find(match);
    if (seen) {
      return Promise.resolve(seen);
    }
    return new Promise((resolve, reject) => {
      const fail = (why) => {
        clearTimeout(timer);
        reject(new Error(`${this.name}: no log line ${what}: ${why}\nstderr: ${this.stderr}\nlast lines:\n${this.lines.slice(-8).map((l) => JSON.stringify(l)).join("\n")}`));
      };
      const timer = setTimeout(() => fail(`not within ${seconds} s`), seconds * 1000);
      this.waiters.push({
        match,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
        fail,
      });
    });
  }

  /** Resolves once /readyz answers 200 (the caches are filled). */
  async ready() {
    this.ports = await this.line("serving", (l) => l.msg === "serving");
    await eventually(`${this.name} ready`, async () => (await fetch(`http://127.0.0.1:${this.ports.healthPort}/readyz`)).status === 200);
    return this;
  }

  /** The sum of a metric's samples whose labels include `labels`. */
  async metric(name, labels = {}) {
    const text = await (await fetch(`http://127.0.0.1:${this.ports.metricsPort}/metrics`)).text();
    return sumOf(text, name, labels);
  }

  /** Log lines of actions carried out. */
  actions(action) {
    return this.lines.filter((l) => l.action !== undefined && (action === undefined || l.action === action));
  }

  identity() {
    return this.lines.find((l) => l.msg === "starting")?.identity;
  }

  stop(signal = "SIGTERM") {
    this.child.kill(signal);
    return this.exited;
  }
}

/** The sum of the samples of `name` in a Prometheus text exposition whose labels include `labels`. */
export function sumOf(text, name, labels) {
  let sum = 0;
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) {
      continue;
    }
    const have = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, k, v]) => [k, v]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) {
      sum += Number(m[3]);
    }
  }
  return sum;
}
