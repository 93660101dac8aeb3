// The TypeScript declarations: `tsc --noEmit` over a program using the package (test/types), and no
// `any` in the public surface.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const PKG = fileURLToPath(new URL("../", import.meta.url));
// The workspace root's node_modules (npm hoists the workspaces' dependencies there).
const TSC = join(dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin/tsc");

/** Declarations without comments and string literals, where `any` could only be a type. */
function code(path) {
  return readFileSync(new URL(path, new URL("../", import.meta.url)), "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/\/\/.*$/gm, "")
    .replace(/"(?:[^"\\]|\\.)*"/g, '""');
}

test("tsc --noEmit: the declarations type a real program and refuse misuse", () => {
  try {
    execFileSync(process.execPath, [TSC, "--project", "test/types/tsconfig.json"], { cwd: PKG, encoding: "utf8", stdio: "pipe" });
  } catch (e) {
    assert.fail(`tsc failed:\n${e.stdout}${e.stderr}`);
  }
});

test("no `any` in the types, the error class or the functions' signatures", () => {
  assert.doesNotMatch(code("dist/types.d.ts"), /\bany\b/);
  assert.doesNotMatch(code("index.d.ts"), /\bany\b/);
  assert.doesNotMatch(code("api.d.ts"), /\bany\b/);
  assert.doesNotMatch(code("text.d.ts"), /\bany\b/);
  assert.doesNotMatch(code("cli/index.d.ts"), /\bany\b/);
  assert.doesNotMatch(code("controller/index.d.ts"), /\bany\b/);
  // The glue also declares its loader's internals (`InitOutput`), which the package does not export.
  const glue = code("dist/elasticjob_wasm.d.ts");
  const api = glue.slice(0, glue.indexOf("export type InitInput"));
  assert.match(api, /export function render\(/);
  assert.match(api, /export declare class ElasticJobError/);
  assert.doesNotMatch(api, /\bany\b/);
  assert.doesNotMatch(readFileSync(new URL("../index.d.ts", import.meta.url), "utf8"), /InitOutput|initSync/);
});
