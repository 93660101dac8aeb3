// The size of the shipped WebAssembly, raw and gzip -9, before and after wasm-opt; fails past the
// budget. Usage: node scripts/size.js BEFORE.wasm SHIPPED.wasm BUDGET_GZIP_BYTES
import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";

// Issue 48's goal for the package's module.
const GOAL = 300_000;
const [before, shipped, budgetText] = process.argv.slice(2);
const budget = Number(budgetText);
if (!before || !shipped || !Number.isInteger(budget)) {
  console.error("usage: node scripts/size.js BEFORE.wasm SHIPPED.wasm BUDGET_GZIP_BYTES");
  process.exit(2);
}

const sizes = (path) => {
  // gzip itself (no shell): `gzip -9 -c -n FILE | wc -c`.
  const gzip = execFileSync("gzip", ["-9", "-c", "-n", path], { maxBuffer: 1 << 30 }).length;
  return { raw: readFileSync(path).length, gzip };
};
const n = (x) => x.toLocaleString("en-US");
const a = sizes(before);
const b = sizes(shipped);
console.log(`elasticjob_wasm_bg.wasm after wasm-bindgen:      ${n(a.raw)} bytes, ${n(a.gzip)} gzip -9`);
console.log(`after wasm-opt -Os -Os (shipped in the package): ${n(b.raw)} bytes, ${n(b.gzip)} gzip -9`);
console.log(`budget ${n(budget)} gzip bytes, goal ${n(GOAL)}: ${b.gzip <= GOAL ? "goal met" : b.gzip <= budget ? "within budget, above the goal" : "OVER BUDGET"}`);
if (b.gzip > budget) {
  console.error(`size check failed: the shipped wasm is ${n(b.gzip)} bytes gzipped, over the budget of ${n(budget)}`);
  process.exit(1);
}
