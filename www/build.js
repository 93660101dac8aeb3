// Builds the page into www/dist: esbuild bundles the page's modules (CodeMirror, yaml and ours)
// into main.js and worker.js, and the npm package's browser build (pkg/browser.js, api.js, json.js, text.js and
// dist/, made by `make npm`) is copied as it ships into dist/elasticjob/, which the worker imports.
// Usage: node build.js   (MINIFY=0 for readable output, to profile)
import { build } from "esbuild";
import { cpSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const out = here("dist/");
const pkg = here("../pkg/");

if (!existsSync(`${pkg}dist/elasticjob_wasm_bg.wasm`)) {
  console.error("www/build.js: pkg/dist is missing; run `make npm` first");
  process.exit(1);
}
rmSync(out, { recursive: true, force: true });
mkdirSync(out);

// The worker imports `elasticjob`; it stays a module of its own, the package's browser build.
const packageAsShipped = {
  name: "elasticjob-as-shipped",
  setup(b) {
    b.onResolve({ filter: /^elasticjob$/ }, () => ({ path: "./elasticjob/browser.js", external: true }));
  },
};

const started = performance.now();
await build({
  entryPoints: { main: here("src/main.js"), worker: here("src/worker.js") },
  outdir: out,
  bundle: true,
  format: "esm",
  target: ["chrome123", "firefox120", "safari17.5"], // light-dark(), CompressionStream("deflate-raw")
  minify: process.env.MINIFY !== "0",
  sourcemap: "linked",
  legalComments: "linked",
  loader: { ".yaml": "text" },
  plugins: [packageAsShipped],
  logLevel: "warning",
});
cpSync(here("index.html"), `${out}index.html`);
mkdirSync(`${out}elasticjob/dist`, { recursive: true });
for (const file of ["browser.js", "api.js", "json.js", "text.js"]) {
  cpSync(`${pkg}${file}`, `${out}elasticjob/${file}`);
}
for (const file of ["elasticjob_wasm.js", "elasticjob_wasm_bg.wasm", "snippets"]) {
  cpSync(`${pkg}dist/${file}`, `${out}elasticjob/dist/${file}`, { recursive: true });
}
console.log(`www/dist built in ${Math.round(performance.now() - started)} ms`);
