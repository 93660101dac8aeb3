// The package in headless Chromium, through its `browser` entry (top-level await, the wasm fetched
// next to the module): every golden case gives the bytes of its output.json there too, and errors
// are `ElasticJobError`s. Chromium is $CHROMIUM (default /usr/bin/chromium), driven by
// playwright-core; the package is served from 127.0.0.1.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { extname, join, normalize, sep } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { goldenCases } from "./fixtures.js";

const PKG = fileURLToPath(new URL("../", import.meta.url));
const TYPES = { ".js": "text/javascript", ".wasm": "application/wasm", ".json": "application/json", ".html": "text/html" };
const FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

let server;
let origin;
let context;
let page;
let profile;

before(async () => {
  server = createServer(async (request, response) => {
    const path = normalize(join(PKG, decodeURIComponent(new URL(request.url, "http://x").pathname)));
    if (!path.startsWith(PKG) || path.split(sep).includes("node_modules")) {
      response.writeHead(403).end();
      return;
    }
    try {
      const body = path === PKG ? "<!doctype html><title>elasticjob</title>" : await readFile(path);
      response.writeHead(200, { "content-type": TYPES[extname(path)] ?? "text/html" }).end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${server.address().port}`;
  profile = mkdtempSync(join(tmpdir(), "elasticjob-chromium-"));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: FLAGS,
  });
  page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e));
  await page.goto(`${origin}/`);
  assert.deepEqual(errors, []);
});

after(async () => {
  await context?.close();
  server?.close();
  if (profile) {
    rmSync(profile, { recursive: true, force: true });
  }
});

test("every golden case gives the bytes of output.json in Chromium", async () => {
  const cases = goldenCases();
  const outputs = await page.evaluate(async (inputs) => {
    const api = await import("/browser.js");
    const { runCase } = await import("/test/golden-dispatch.js");
    return inputs.map((input) => runCase(api, input));
  }, cases.map((c) => c.input));
  assert.equal(outputs.length, cases.length);
  cases.forEach((c, i) => assert.equal(outputs[i], c.expected, c.name));
});

test("errors in the browser are ElasticJobErrors with paths", async () => {
  const seen = await page.evaluate(async () => {
    const { render, ElasticJobError } = await import("/browser.js");
    try {
      render({ metadata: { name: "a", labels: new Map() } });
      return null;
    } catch (e) {
      return { ours: e instanceof ElasticJobError, error: e instanceof Error, name: e.name, code: e.code, errors: e.errors };
    }
  });
  assert.deepEqual(seen, {
    ours: true,
    error: true,
    name: "ElasticJobError",
    code: "parse_error",
    errors: [{ path: "metadata.labels", code: "invalid_type", message: "a Map is not JSON: pass a plain object or an array" }],
  });
});
