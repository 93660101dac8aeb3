// `make bench-npm`: `render` of a job with 1,000 workers, 50 PS, a chief and an evaluator (the job of
// the core's benches/core.rs) through the package in Node, next to the same job rendered natively
// by NATIVE (bindings/wasm/examples/native_render.rs, which also times the core's `render_json`,
// the function under `renderJson`); `renderJson` (the same objects as JSON text,
// what the CLI's `-o json` writes) and `renderSummary` (the rows only) beside it. Prints figures;
// asserts nothing. With BENCH_JSON=FILE (as `make bench` sets it) the figures are also written to
// FILE.
// Usage: node benches/node/render.js NATIVE
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { render, renderJson, renderSummary } from "elasticjob";
import { bigJob } from "./job.js";

const RUNS = 30;
const GOAL = 1.2;

const job = bigJob();

function medianMs(f) {
  f();
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    f();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[RUNS >> 1];
}

const native = process.argv[2];
if (!native) {
  console.error("usage: node benches/node/render.js NATIVE");
  process.exit(2);
}
const list = render(job);
const wasmMs = medianMs(() => render(job));
const jsonMs = medianMs(() => renderJson(job));
const summaryMs = medianMs(() => renderSummary(job));
const dir = mkdtempSync(join(tmpdir(), "elasticjob-bench-"));
const path = join(dir, "job.json");
writeFileSync(path, JSON.stringify(job));
const n = JSON.parse(execFileSync(native, [path], { encoding: "utf8" }));
rmSync(dir, { recursive: true });

const f = (ms) => `${ms.toFixed(1).padStart(8)} ms`;
const x = (ms, base) => `${(ms / base).toFixed(2)}x`;
console.log(`job: 1,000 workers, 50 PS, 1 chief, 1 evaluator -> ${list.items.length} objects, ${n.bytes.toLocaleString("en-US")} bytes of JSON`);
console.log(`median of ${RUNS} runs, Node ${process.version}:`);
console.log(`  npm package render (JS object in, JS objects out)  ${f(wasmMs)}  ${x(wasmMs, n.renderAndSerializeMs)} native render + serialize`);
console.log(`  npm package renderJson (JS object in, JSON text out) ${f(jsonMs)}  ${x(jsonMs, n.renderAndSerializeMs)} native render + serialize (goal: at most ${GOAL}x)`);
console.log(`  npm package renderSummary (the rows only)           ${f(summaryMs)}  ${x(summaryMs, n.renderMs)} native render`);
console.log(`  native render                                       ${f(n.renderMs)}`);
console.log(`  native render + serde_json::to_string               ${f(n.renderAndSerializeMs)}`);
console.log(`  native render_json (the same bytes)                 ${f(n.renderJsonMs)}  renderJson ${x(jsonMs, n.renderJsonMs)} it`);
if (process.env.BENCH_JSON) {
  const figures = { renderMs: wasmMs, renderJsonMs: jsonMs, renderSummaryMs: summaryMs, nativeRenderMs: n.renderMs, nativeRenderAndSerializeMs: n.renderAndSerializeMs, nativeRenderJsonMs: n.renderJsonMs, objects: list.items.length, bytes: n.bytes };
  writeFileSync(process.env.BENCH_JSON, JSON.stringify(figures, null, 2));
}
