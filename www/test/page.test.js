// The preview page in headless Chromium (Debian's, $CHROMIUM, driven by playwright-core), served
// from 127.0.0.1 by serve.js, used as a person would: pick the sample, upload a file, select a
// worker, type a bad name, scale, share the link, download. Each state is saved as a screenshot
// in $SCREENSHOTS (default target/www-screenshots, git-ignored). No console error, no failed or
// outside request, at any point.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { deflateRawSync } from "node:zlib";
import { chromium } from "playwright-core";
import { parse, parseAllDocuments, stringify } from "yaml";
import { bigJob } from "../../benches/node/job.js";
import { main as cli } from "../../pkg/cli/index.js";
import { jobKey } from "../../pkg/node.js";
import { Reconciler } from "../../pkg/controller/reconciler.js";
import { serve } from "../serve.js";

const FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const SHOTS = process.env.SCREENSHOTS ?? fileURLToPath(new URL("../../target/www-screenshots/", import.meta.url));
const EXAMPLE = (name) => fileURLToPath(new URL(`../examples/${name}`, import.meta.url));

let server;
let origin;
const profiles = [];
const contexts = [];
const trouble = []; // console errors, page errors, failed and outside requests, of every page

before(async () => {
  ({ server, url: origin } = await serve(0));
  mkdirSync(SHOTS, { recursive: true });
});

after(async () => {
  for (const context of contexts) {
    await context.close();
  }
  server?.close();
  for (const profile of profiles) {
    rmSync(profile, { recursive: true, force: true });
  }
});

afterEach(() => {
  assert.deepEqual(trouble, [], "console errors or stray requests");
});

/** A page in a browser of its own (a fresh profile), watched for errors. */
async function freshPage({ width = 1400, height = 1000, colorScheme = "light" } = {}) {
  const profile = mkdtempSync(join(tmpdir(), "elasticjob-www-"));
  profiles.push(profile);
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: FLAGS,
    viewport: { width, height },
    colorScheme,
    acceptDownloads: true,
  });
  contexts.push(context);
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: origin.slice(0, -1) });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on("console", (m) => m.type() === "error" && trouble.push(`console: ${m.text()}`));
  page.on("pageerror", (e) => trouble.push(`page error: ${e.message}`));
  page.on("requestfailed", (r) => trouble.push(`request failed: ${r.url()}`));
  page.on("request", (r) => !r.url().startsWith(origin) && !r.url().startsWith("blob:") && !r.url().startsWith("data:") && trouble.push(`outside request: ${r.url()}`));
  return page;
}

async function shot(page, name) {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** The table as text: one array of cells per row shown. */
function tableRows(page) {
  return page.$$eval("#table tbody tr[data-index]", (trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
}

/** Waits until the status line names `name` (the analysis of that job has been shown). */
async function shown(page, text) {
  await page.waitForFunction((t) => document.getElementById("status").textContent.includes(t), text);
}

/** Waits until the analysis of the editor's text, as it is now, is on screen. */
async function settled(page) {
  await page.waitForSelector("#objects[aria-busy=false]");
}

/** Selects all of the editor's text and pastes `text` over it, as a user's Ctrl+V would. */
async function pasteText(page, text) {
  await page.evaluate((text) => {
    const content = document.querySelector(".cm-content");
    content.focus();
    document.execCommand("selectAll");
    const data = new DataTransfer();
    data.setData("text/plain", text);
    content.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
  }, text);
}

let page;

test("the sample: every object in the table, with kind, name, type, rank, cpu, memory and port", async () => {
  page = await freshPage();
  await page.goto(origin);
  await shown(page, "elasticjob-sample: 8 objects");
  await page.selectOption("#example", "allreduce");
  await shown(page, "resnet-allreduce");
  await page.selectOption("#example", "sample");
  await shown(page, "elasticjob-sample: 8 objects (4 pods, 4 services) with its ScalePlan");
  assert.deepEqual(await tableRows(page), [
    ["Pod", "elasticjob-elasticjob-sample-dlrover-master", "dlrover-master", "", "1", "2Gi", "50001"],
    ["Service", "elasticjob-elasticjob-sample-dlrover-master", "dlrover-master", "", "", "", "50001"],
    // The sample plan migrates ps-0 to 2 CPUs and 512Mi; a first launch starts it so.
    ["Pod", "elasticjob-sample-edljob-ps-0", "ps", "0", "2", "512Mi", "2222"],
    ["Service", "elasticjob-sample-edljob-ps-0", "ps", "0", "", "", "2222"],
    ["Pod", "elasticjob-sample-edljob-worker-0", "worker", "0", "500m", "256Mi", "3333"],
    ["Service", "elasticjob-sample-edljob-worker-0", "worker", "0", "", "", "3333"],
    ["Pod", "elasticjob-sample-edljob-worker-1", "worker", "1", "500m", "256Mi", "3333"],
    ["Service", "elasticjob-sample-edljob-worker-1", "worker", "1", "", "", "3333"],
  ]);
  assert.equal(await page.textContent("#problem-count"), "none");
  // Every control has a name a screen reader can say.
  const unnamed = await page.$$eval("button, input, select, textarea, [contenteditable=true], [role=grid]", (els) =>
    els
      .filter((el) => !(el.labels?.length > 0 || el.getAttribute("aria-label") || el.getAttribute("aria-labelledby") || el.textContent.trim()))
      .map((el) => el.outerHTML.slice(0, 80)),
  );
  assert.deepEqual(unnamed, []);
  // Sorting by a column, both ways.
  await page.click("#table th[data-key=name] button");
  assert.equal(await page.getAttribute("#table th[data-key=name]", "aria-sort"), "ascending");
  assert.equal((await tableRows(page))[0][1], "elasticjob-elasticjob-sample-dlrover-master");
  await page.click("#table th[data-key=name] button");
  assert.equal((await tableRows(page))[0][1], "elasticjob-sample-edljob-worker-1");
  await page.click("#table th[data-key=name] button");
  assert.equal(await page.getAttribute("#table th[data-key=name]", "aria-sort"), "none");
  assert.equal((await tableRows(page))[1][0], "Service");
  await page.click("#table th[data-key=kind] button");
  assert.deepEqual((await tableRows(page)).map((r) => r[0]), ["Pod", "Pod", "Pod", "Pod", "Service", "Service", "Service", "Service"]);
  await shot(page, "01-sample");
  await page.click("#table th[data-key=kind] button");
  await page.click("#table th[data-key=kind] button");
});

test("an uploaded JSON file: its pods", async () => {
  const job = parse(readFileSync(EXAMPLE("ps-chief-evaluator.yaml"), "utf8"));
  job.metadata.name = "uploaded";
  const dir = mkdtempSync(join(tmpdir(), "elasticjob-upload-"));
  const file = join(dir, "uploaded.json");
  writeFileSync(file, JSON.stringify(job, null, 2));
  await page.setInputFiles("#upload", file);
  await shown(page, "uploaded: 18 objects (9 pods, 9 services)");
  rmSync(dir, { recursive: true });
  const pods = (await tableRows(page)).filter((r) => r[0] === "Pod").map((r) => r.slice(1));
  assert.deepEqual(pods, [
    ["elasticjob-uploaded-dlrover-master", "dlrover-master", "", "1", "2Gi", "50001"],
    ["uploaded-edljob-ps-0", "ps", "0", "2", "8Gi", "2222"],
    ["uploaded-edljob-ps-1", "ps", "1", "2", "8Gi", "2222"],
    ["uploaded-edljob-chief-0", "chief", "0", "2", "4Gi", "3333"],
    ["uploaded-edljob-worker-0", "worker", "0", "2", "4Gi", "3333"],
    ["uploaded-edljob-worker-1", "worker", "1", "2", "4Gi", "3333"],
    ["uploaded-edljob-worker-2", "worker", "2", "2", "4Gi", "3333"],
    ["uploaded-edljob-worker-3", "worker", "3", "2", "4Gi", "3333"],
    ["uploaded-edljob-evaluator-0", "evaluator", "0", "2", "4Gi", "3333"],
  ]);
  assert.equal(await page.inputValue("#example"), "");
  // The cluster view: one node per task, grouped by type.
  assert.equal(await page.locator("#cluster .node").count(), 8);
  await shot(page, "02-upload");
});

test("a dropped file and pasted text replace the editor's text", async () => {
  await page.evaluate((text) => {
    const data = new DataTransfer();
    data.items.add(new File([text], "dropped.yaml", { type: "application/yaml" }));
    document.querySelector(".cm-content").dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
  }, readFileSync(EXAMPLE("allreduce.yaml"), "utf8"));
  await shown(page, "resnet-allreduce: 10 objects (5 pods, 5 services)");
  await page.waitForFunction(() => document.getElementById("toast").textContent === "Opened dropped.yaml.");
  assert.equal(await page.inputValue("#example"), "allreduce");
  await pasteText(page, readFileSync(EXAMPLE("ps-chief-evaluator.yaml"), "utf8").replace("name: deepctr", "name: uploaded"));
  await shown(page, "uploaded: 18 objects (9 pods, 9 services)");
});

test("selecting worker 1 shows its manifest and TF_CONFIG, and highlights whom it lists", async () => {
  // By keyboard: a click on worker 0, then two rows down (its service, then worker 1's pod).
  await page.click("#table tbody tr:has(td:text-is('uploaded-edljob-worker-0'))");
  await page.waitForFunction(() => document.getElementById("detail-title").textContent === "Pod uploaded-edljob-worker-0");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowDown");
  await page.waitForFunction(() => document.getElementById("detail-title").textContent === "Pod uploaded-edljob-worker-1");
  const tfConfig = JSON.parse(await page.textContent("#tfconfig"));
  assert.deepEqual(tfConfig, {
    cluster: {
      worker: ["uploaded-edljob-worker-0:3333", "uploaded-edljob-worker-1:3333"],
      ps: ["uploaded-edljob-ps-0:2222", "uploaded-edljob-ps-1:2222"],
      chief: ["uploaded-edljob-chief-0:3333"],
    },
    task: { type: "worker", index: 1 },
  });
  // Pretty-printed, and the manifest carries exactly that value.
  assert.match(await page.textContent("#tfconfig"), /^\{\n {2}"cluster": \{\n/);
  const manifest = parse(await page.textContent("#manifest"));
  assert.equal(manifest.kind, "Pod");
  assert.deepEqual(JSON.parse(manifest.spec.containers[0].env.find((e) => e.name === "TF_CONFIG").value), tfConfig);
  assert.equal(await page.getAttribute("#table", "aria-activedescendant"), "row-10");
  // The cluster view: worker 1 selected; workers 0, both PS and the chief known; the rest not.
  const classes = await page.$$eval("#cluster .node", (gs) => gs.map((g) => `${g.dataset.type}-${g.dataset.rank}:${g.classList.contains("self") ? "self" : g.classList.contains("known") ? "known" : "-"}`));
  assert.deepEqual(classes.sort(), ["chief-0:known", "evaluator-0:-", "ps-0:known", "ps-1:known", "worker-0:known", "worker-1:self", "worker-2:-", "worker-3:-"]);
  assert.equal(await page.textContent("#cluster-caption"), "worker 1's TF_CONFIG lists 2 PS (0–1), the chief and 2 workers (0–1).");
  assert.equal(await page.locator("#cluster .links line").count(), 4);
  // The copy button puts the TF_CONFIG on the clipboard.
  await page.click("button[data-copy=tfconfig]");
  await page.waitForFunction(() => document.getElementById("toast").textContent === "TF_CONFIG copied.");
  assert.deepEqual(JSON.parse(await page.evaluate(() => navigator.clipboard.readText())), tfConfig);
  await shot(page, "03-worker-1");
  // Picking a node in the cluster view selects that task in the table too.
  await page.click("#cluster .node[data-type=ps][data-rank='1']");
  await page.waitForFunction(() => document.getElementById("detail-title").textContent === "Pod uploaded-edljob-ps-1");
  assert.equal(await page.textContent("#cluster-caption"), "ps 1's TF_CONFIG lists 2 PS (0–1), the chief and 4 workers (0–3).");
});

test("a job name that is too long: a marker on its line, and the message", async () => {
  await page.selectOption("#example", "sample");
  await shown(page, "elasticjob-sample: 8 objects");
  const name = "elasticjob-sample-with-a-name-that-is-far-too-long";
  // Line 4 is `  name: elasticjob-sample`: go to its end, erase the name, type another.
  await page.click(".cm-content");
  await page.keyboard.press("Control+Home");
  for (let i = 0; i < 3; i++) {
    await page.keyboard.press("ArrowDown");
  }
  await page.keyboard.press("End");
  for (let i = 0; i < "elasticjob-sample".length; i++) {
    await page.keyboard.press("Backspace");
  }
  await page.keyboard.type(name, { delay: 5 });
  await settled(page);
  const problems = await page.$$eval("#problems li", (lis) => lis.map((li) => [li.querySelector(".where").textContent, li.querySelector(".path").textContent, li.querySelector(".message").textContent]));
  assert.deepEqual(problems, [
    ["4:9", "metadata.name", `\`${name}\` has ${name.length} characters; the master service \`elasticjob-<name>-dlrover-master\` must fit in 63, so use at most 37`],
  ]);
  assert.equal(await page.textContent("#problem-count"), "1 error");
  // The gutter marker sits on line 4, and the underline covers exactly the name.
  const marker = await page.locator(".cm-lint-marker-error").boundingBox();
  const line4 = await page.locator(".cm-lineNumbers .cm-gutterElement", { hasText: /^4$/ }).boundingBox();
  assert.ok(Math.abs(marker.y + marker.height / 2 - (line4.y + line4.height / 2)) < 3, `marker at y=${marker.y}, line 4 at y=${line4.y}`);
  assert.equal(await page.textContent(".cm-lintRange-error"), name);
  // The table keeps the last valid job, marked as such.
  assert.match(await page.textContent("#status"), /^Showing the last valid job: fix 1 problem to update\.$/);
  await shot(page, "04-name-too-long");
  // The problem's place is a button that takes the cursor there.
  await page.click("#problems .where");
  assert.equal(await page.evaluate(() => document.activeElement.classList.contains("cm-content")), true);
});

test("a YAML syntax error shows its line and column", async () => {
  await page.selectOption("#example", "sample");
  await shown(page, "elasticjob-sample: 8 objects");
  await page.click(".cm-content");
  await page.keyboard.press("Control+Home");
  for (let i = 0; i < 5; i++) {
    await page.keyboard.press("ArrowDown");
  }
  await page.keyboard.press("End");
  await page.keyboard.type(": [oops");
  await settled(page);
  const first = await page.$eval("#problems li", (li) => [li.querySelector(".where").textContent, li.querySelector(".message").textContent]);
  assert.equal(first[0], "6:25");
  assert.match(first[1], /Nested mappings are not allowed in compact mappings/);
  await shot(page, "05-syntax-error");
});

test("the job with mistakes: every problem at its line", async () => {
  await page.selectOption("#example", "mistakes");
  await page.waitForFunction(() => document.getElementById("problem-count").textContent === "7 errors");
  const problems = await page.$$eval("#problems li", (lis) => lis.map((li) => `${li.querySelector(".where").textContent} ${li.querySelector(".path").textContent}`));
  assert.deepEqual(problems, [
    "7:9 metadata.name",
    "9:22 metadata.annotations.pending_timeout",
    "17:23 spec.replicaSpecs.ps.template.spec.containers",
    "19:17 spec.replicaSpecs.chief.replicas",
    "26:17 spec.replicaSpecs.worker.replicas",
    "27:7 spec.replicaSpecs.worker.restartCont",
    "34:46 spec.replicaSpecs.worker.template.spec.containers[0].resources.requests.memory",
  ]);
  assert.equal(await page.locator(".cm-lint-marker-error").count(), 7);
  await shot(page, "06-mistakes");
});

test("one pass, three hosts: the simulator in the browser, the controller and `elasticjob plan` give the same plan", async () => {
  const sample = readFileSync(fileURLToPath(new URL("../../examples/elasticjob.yaml", import.meta.url)), "utf8");
  for (const values of [{ worker: { replicas: 4, cpu: "", memory: "" } }, { worker: { replicas: 1, cpu: "", memory: "" } }]) {
    // The simulator's own worker module, as the page runs it, asked for the pass's input too.
    const { pass } = await page.evaluate(
      ([text, target]) =>
        new Promise((resolve, reject) => {
          const worker = new Worker(new URL("worker.js", document.baseURI), { type: "module" });
          worker.onmessage = ({ data }) => {
            if (data.ready) {
              worker.postMessage({ id: 1, op: "analyse", args: { text } });
            } else if (data.id === 1) {
              worker.postMessage({ id: 2, op: "simulate", args: { text, target, withPass: true } });
            } else {
              worker.terminate();
              data.error ? reject(new Error(data.error.message)) : resolve(data.result);
            }
          };
        }),
      [sample, { values }],
    );
    const { job, scalePlans, pods, services, now } = pass.input;
    // The controller's pass over the same objects, as its reconciler decides it: the caches' events
    // feed its store, and the pass gives the job.
    const controller = new Reconciler({ adapter: undefined, caches: {}, log: undefined, metrics: undefined, isStopping: () => false });
    for (const [kind, objects] of [["ScalePlan", scalePlans], ["Pod", pods], ["Service", services]]) {
      for (const obj of objects) {
        controller.keep(kind, "add", obj);
      }
    }
    const decided = controller.decide({ ...controller.pass(jobKey(job)), job, now });
    // `elasticjob plan` over the same objects in files, as kubectl would print them.
    const dir = mkdtempSync(join(tmpdir(), "elasticjob-pass-"));
    const files = [
      ["job.yaml", job],
      ["plans.yaml", { apiVersion: "v1", kind: "List", items: scalePlans }],
      ["pods.yaml", { apiVersion: "v1", kind: "List", items: pods }],
      ["services.yaml", { apiVersion: "v1", kind: "List", items: services }],
    ].map(([name, value]) => {
      writeFileSync(join(dir, name), stringify(value));
      return join(dir, name);
    });
    let out = "";
    const io = { stdout: { write: (t) => (out += t) }, stderr: { write: (t) => assert.fail(t) }, cwd: dir };
    assert.equal(await cli(["plan", ...files, "--now", now], io), 0);
    rmSync(dir, { recursive: true, force: true });
    assert.ok(pass.plan.phases.length > 0, "the pass plans something");
    assert.deepEqual(decided, pass.plan, `the controller and the browser, workers -> ${values.worker.replicas}`);
    assert.deepEqual(JSON.parse(out), pass.plan, `elasticjob plan and the browser, workers -> ${values.worker.replicas}`);
  }
});

test("scale simulator: workers from 2 to 4 is two pods and two services to create, each with the core's reason", async () => {
  await page.selectOption("#example", "sample");
  await shown(page, "elasticjob-sample: 8 objects");
  await page.waitForFunction(() => document.getElementById("sim-summary").textContent.startsWith("No change yet"));
  assert.equal(await page.inputValue("#sim-worker-replicas"), "2");
  await page.fill("#sim-worker-replicas", "4");
  await page.waitForFunction(() => document.getElementById("sim-summary").textContent === "Create 2 pods and 2 services.");
  const diff = await page.$$eval("#sim-diff li", (lis) => lis.map((li) => [li.className, li.querySelector(".sign").textContent, li.querySelector("code").textContent, li.querySelector(".reason").textContent]));
  // In the plan's phases: the services first, then the pods.
  assert.deepEqual(diff, [
    ["create", "+", "Service/elasticjob-sample-edljob-worker-2", "the address of worker rank 2"],
    ["create", "+", "Service/elasticjob-sample-edljob-worker-3", "the address of worker rank 3"],
    ["create", "+", "Pod/elasticjob-sample-edljob-worker-2", "scale worker up to 4"],
    ["create", "+", "Pod/elasticjob-sample-edljob-worker-3", "scale worker up to 4"],
  ]);
  // The ScalePlan it makes is shown, and is the sample's with 4 workers.
  const plan = parse(await page.inputValue("#sim-plan"));
  assert.equal(plan.kind, "ScalePlan");
  assert.equal(plan.spec.replicaResourceSpecs.worker.replicas, 4);
  await shot(page, "07-scale-up");
  // Down to 1: the highest rank goes.
  await page.fill("#sim-worker-replicas", "1");
  await page.waitForFunction(() => document.getElementById("sim-summary").textContent === "Delete 1 pod and 1 service.");
  assert.deepEqual(await page.$$eval("#sim-diff li", (lis) => lis.map((li) => li.textContent)), [
    "− Pod/elasticjob-sample-edljob-worker-1 scale worker down to 1: rank 1 is removed",
    "− Service/elasticjob-sample-edljob-worker-1 scale worker down to 1: rank 1 is removed",
  ]);
  // A ScalePlan written by hand, with a mistake, then mended.
  await page.check("input[name=sim-mode][value=text]");
  await page.fill("#sim-plan", "apiVersion: elastic.iml.github.io/v1alpha1\nkind: ScalePlan\nmetadata: {name: p}\nspec:\n  replicaResourceSpecs:\n    worker: {replicas: -3}\n");
  await page.waitForFunction(() => document.getElementById("sim-summary").textContent === "The scale plan has problems:");
  assert.match(await page.textContent("#sim-problems"), /scalePlan\.spec\.replicaResourceSpecs\.worker\.replicas/);
  await page.fill("#sim-plan", "apiVersion: elastic.iml.github.io/v1alpha1\nkind: ScalePlan\nmetadata: {name: p}\nspec:\n  replicaResourceSpecs:\n    worker: {replicas: 3, resource: {cpu: '1', memory: 1Gi}}\n");
  await page.waitForFunction(() => document.getElementById("sim-summary").textContent === "Create 1 pod and 1 service.");
  // A job whose plan lists its PS addresses: with one more PS the list no longer holds, so the plan
  // leaves it out and the core gives each PS the address of its rank.
  await page.selectOption("#example", "ps-chief-evaluator");
  await shown(page, "deepctr: 18 objects");
  await page.waitForFunction(() => document.getElementById("sim-summary").textContent.startsWith("No change yet"));
  assert.equal(await page.isChecked("input[name=sim-mode][value=values]"), true);
  await page.fill("#sim-ps-replicas", "3");
  await page.waitForFunction(() => document.getElementById("sim-summary").textContent === "Create 1 pod and 1 service.");
  assert.equal(parse(await page.inputValue("#sim-plan")).spec.psHosts, undefined);
  assert.deepEqual(await page.$$eval("#sim-diff code", (codes) => codes.map((c) => c.textContent)), ["Service/deepctr-edljob-ps-2", "Pod/deepctr-edljob-ps-2"]);
  // Back to the sample, at 4 workers, for the shared link.
  await page.selectOption("#example", "sample");
  await shown(page, "elasticjob-sample: 8 objects");
  await page.waitForFunction(() => document.getElementById("sim-summary").textContent.startsWith("No change yet"));
  await page.fill("#sim-worker-replicas", "4");
  await page.waitForFunction(() => document.getElementById("sim-summary").textContent === "Create 2 pods and 2 services.");
});

test("the link gives a fresh page the same state", async () => {
  await page.click("#table tbody tr:has(td:text-is('elasticjob-sample-edljob-worker-1'))");
  await page.waitForFunction(() => document.getElementById("detail-title").textContent === "Pod elasticjob-sample-edljob-worker-1");
  await page.click("#share");
  await page.waitForFunction(() => document.getElementById("toast").textContent === "Link copied.");
  const link = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(link, page.url());
  assert.match(link, /^http:\/\/127\.0\.0\.1:\d+\/#s=[A-Za-z0-9_-]+$/);
  const before = {
    text: await page.evaluate(() => document.querySelector(".cm-content").innerText),
    rows: await tableRows(page),
    tf: await page.textContent("#tfconfig"),
    diff: await page.textContent("#sim-diff"),
  };

  const other = await freshPage();
  await other.goto(link);
  await shown(other, "elasticjob-sample: 8 objects");
  await other.waitForFunction(() => document.getElementById("detail-title").textContent === "Pod elasticjob-sample-edljob-worker-1");
  await other.waitForFunction(() => document.getElementById("sim-summary").textContent === "Create 2 pods and 2 services.");
  assert.equal(await other.evaluate(() => document.querySelector(".cm-content").innerText), before.text);
  assert.deepEqual(await tableRows(other), before.rows);
  assert.equal(await other.textContent("#tfconfig"), before.tf);
  assert.equal(await other.inputValue("#sim-worker-replicas"), "4");
  assert.equal(await other.textContent("#sim-diff"), before.diff);
  assert.equal(await other.inputValue("#example"), "sample");
  await shot(other, "08-shared-link");
});

test("a link that unpacks past the bound is refused with its reason, and the sample shown instead", async () => {
  // 64 MiB of one byte deflates to about 64 KiB: a short link, a large bomb.
  const bomb = deflateRawSync(Buffer.alloc(64 * 1024 * 1024, 0x20)).toString("base64url");
  const other = await freshPage();
  await other.goto(`${origin}#s=${bomb}`);
  await shown(other, "elasticjob-sample: 8 objects");
  await other.waitForFunction(() => document.getElementById("toast").textContent.startsWith("The link's state could not be read"));
  assert.equal(
    await other.textContent("#toast"),
    "The link's state could not be read (the link unpacks to more than 4.0 MiB, more than a shared state can be); showing the sample instead.",
  );
  assert.equal(await other.inputValue("#example"), "sample");
});

test("the page's server answers 400 to a path that is not percent-encoding, 404 to a missing file", async () => {
  for (const [path, status] of [["%", 400], ["%zz/index.html", 400], ["no-such-file.js", 404], ["", 200]]) {
    const response = await fetch(`${origin}${path}`);
    assert.equal(response.status, status, path);
    await response.arrayBuffer();
  }
});

test("download: the objects as YAML, ready for kubectl apply", async () => {
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#download")]);
  assert.equal(download.suggestedFilename(), "elasticjob-sample.objects.yaml");
  const text = readFileSync(await download.path(), "utf8");
  const docs = parseAllDocuments(text);
  assert.equal(docs.length, 1);
  assert.deepEqual(docs[0].errors, []);
  const list = docs[0].toJS();
  assert.equal(list.apiVersion, "v1");
  assert.equal(list.kind, "List");
  assert.deepEqual(
    list.items.map((o) => [o.kind, o.metadata.name]),
    (await tableRows(page)).map((r) => [r[0], r[1]]),
  );
  const worker1 = list.items.find((o) => o.kind === "Pod" && o.metadata.name === "elasticjob-sample-edljob-worker-1");
  assert.deepEqual(JSON.parse(worker1.spec.containers[0].env.find((e) => e.name === "TF_CONFIG").value), JSON.parse(await page.textContent("#tfconfig")));
});

test("an allreduce job: workers with RDZV_ENDPOINT instead of TF_CONFIG", async () => {
  await page.selectOption("#example", "allreduce");
  await shown(page, "resnet-allreduce: 10 objects");
  await page.click("#table tbody tr:has(td:text-is('resnet-allreduce-edljob-worker-2'))");
  await page.waitForFunction(() => document.getElementById("detail-title").textContent === "Pod resnet-allreduce-edljob-worker-2");
  assert.equal(await page.isHidden("#tfconfig-block"), true);
  assert.equal(await page.textContent("#rendezvous"), "No TF_CONFIG: an AllreduceStrategy pod gets RDZV_ENDPOINT, set from the pod's status.podIP.");
  await shot(page, "09-allreduce");
});

test("the 1,000-worker job of the benchmark: 2,106 rows, only those in view in the page", async () => {
  await pasteText(page, stringify(bigJob()));
  await shown(page, "deepctr: 2,106 objects (1,053 pods, 1,053 services)");
  assert.ok((await page.locator("#table tbody tr[data-index]").count()) < 60, "rows outside the view are not in the DOM");
  assert.equal(await page.getAttribute("#table", "aria-rowcount"), "2107");
  // End, then up past the evaluator's service and pod and worker 999's service.
  await page.focus("#table");
  await page.keyboard.press("End");
  await page.waitForFunction(() => document.getElementById("detail-title").textContent === "Service deepctr-edljob-evaluator-0");
  for (let i = 0; i < 3; i++) {
    await page.keyboard.press("ArrowUp");
  }
  await page.waitForFunction(() => document.getElementById("detail-title").textContent === "Pod deepctr-edljob-worker-999");
  const tfConfig = JSON.parse(await page.textContent("#tfconfig"));
  assert.equal(tfConfig.cluster.worker.length, 1000);
  assert.equal(tfConfig.cluster.ps.length, 50);
  assert.deepEqual(tfConfig.task, { type: "worker", index: 999 });
  assert.equal(await page.textContent("#cluster-caption"), "worker 999's TF_CONFIG lists 50 PS (0–49), the chief and 1000 workers (0–999).");
  assert.equal(await page.locator("#cluster .node").count(), 1052);
  assert.equal(await page.locator("#cluster .node.known").count(), 1050);
  // Sorting 2,106 rows by rank, descending: worker 999's pod and service come first.
  await page.click("#table th[data-key=rank] button");
  await page.click("#table th[data-key=rank] button");
  // The selected row stays in view; at the top are the highest ranks.
  assert.equal(await page.getAttribute("#table", "aria-activedescendant"), `row-${2106 - 4}`);
  await page.$eval("#table-scroll", (s) => {
    s.scrollTop = 0;
  });
  await page.waitForFunction(() => document.querySelector("#table tbody tr[data-index]").cells[1].textContent === "deepctr-edljob-worker-999");
  assert.deepEqual((await tableRows(page)).slice(0, 3).map((r) => r[1]), ["deepctr-edljob-worker-999", "deepctr-edljob-worker-999", "deepctr-edljob-worker-998"]);
  await shot(page, "10-thousand-workers");
  await page.click("#table th[data-key=rank] button");
});

test("a narrow window in the dark theme: readable, nothing wider than the window", async () => {
  const narrow = await freshPage({ width: 400, height: 900, colorScheme: "dark" });
  await narrow.goto(origin);
  await shown(narrow, "elasticjob-sample: 8 objects");
  await narrow.click("#table tbody tr:has(td:text-is('elasticjob-sample-edljob-worker-0'))");
  await narrow.waitForFunction(() => document.getElementById("detail-title").textContent === "Pod elasticjob-sample-edljob-worker-0");
  assert.equal(await narrow.evaluate(() => document.documentElement.scrollWidth), 400);
  const colors = await narrow.evaluate(() => [getComputedStyle(document.body).backgroundColor, getComputedStyle(document.body).color]);
  assert.deepEqual(colors, ["rgb(15, 19, 24)", "rgb(227, 231, 236)"]);
  await shot(narrow, "11-narrow-dark");
  // The theme picker overrides the system's.
  await narrow.selectOption("#theme", "light");
  assert.equal(await narrow.evaluate(() => getComputedStyle(document.body).backgroundColor), "rgb(247, 248, 250)");
});

test("a job Kueue queues: the page shows the Workload the controller would create for it, the same as the package's", async () => {
  const queued = await freshPage();
  await queued.goto(origin);
  await shown(queued, "elasticjob-sample: 8 objects");
  assert.equal(await queued.isVisible("#workload-section"), false, "no Workload for a job without the queue label");
  await queued.selectOption("#example", "queued");
  await shown(queued, "deepctr-queued");
  await queued.waitForSelector("#workload-section", { state: "visible" });
  const shownWorkload = parse(await queued.textContent("#workload"));
  const job = parse(readFileSync(fileURLToPath(new URL("../../examples/kueue-job.yaml", import.meta.url)), "utf8"));
  const { workload } = await import("../../pkg/node.js");
  assert.deepEqual(shownWorkload, workload(job));
  assert.equal(shownWorkload.kind, "Workload");
  assert.deepEqual(shownWorkload.spec.podSets.map((p) => [p.name, p.count]), [["dlrover-master", 1], ["ps", 1], ["worker", 4]]);
  assert.match(await queued.textContent("#workload-caption"), /LocalQueue training: .* suspended .* until Kueue admits/);
  await shot(queued, "12-kueue-workload");
  // Without the label the section goes again.
  await queued.selectOption("#example", "ps-chief-evaluator");
  await shown(queued, "deepctr:");
  assert.equal(await queued.isVisible("#workload-section"), false);
});

test("a queued job in the scale simulator: taken as admitted, a plan beyond the admission is cut to it, or asks Kueue for a Workload slice when the job opts in", async () => {
  const queued = await freshPage();
  await queued.goto(origin);
  await shown(queued, "elasticjob-sample: 8 objects");
  await queued.selectOption("#example", "queued");
  await shown(queued, "deepctr-queued");
  assert.match(await queued.textContent("#workload-caption"), /beyond the admission is cut to it/);
  const diffOf = () => queued.$$eval("#sim-diff li", (lis) => lis.map((li) => [li.className, li.querySelector("code").textContent, li.querySelector(".reason").textContent]));
  // Admitted for the chief and 3 workers in its worker pod set: 6 workers are cut to that.
  await queued.fill("#sim-worker-replicas", "6");
  await queued.waitForFunction(() => document.getElementById("sim-summary").textContent.includes("no pod beyond what Kueue admitted"));
  const cut = await diffOf();
  assert.deepEqual(cut.filter(([op]) => op !== "wait").map(([op, name]) => [op, name]), []);
  assert.deepEqual(cut.filter(([op]) => op === "wait").map(([, name]) => name), ["ElasticJob/deepctr-queued"]);
  assert.match(cut.at(-1)[2], /asks for 6 worker pods, Kueue admitted 3: 3 wait/);
  // The same job opting in to Workload slices: the plan asks Kueue for a slice of the new size.
  const job = readFileSync(fileURLToPath(new URL("../../examples/kueue-job.yaml", import.meta.url)), "utf8");
  await pasteText(queued, job.replace("  labels:\n", "  annotations:\n    kueue.x-k8s.io/elastic-job: \"true\"\n  labels:\n"));
  await queued.waitForFunction(() => document.getElementById("workload-caption").textContent.includes("Workload slices"));
  await queued.fill("#sim-worker-replicas", "6");
  await queued.waitForFunction(() => document.getElementById("sim-summary").textContent.includes("Workload slice of the new size"));
  const grown = await diffOf();
  assert.deepEqual(grown[0].slice(0, 2), ["create", "Workload/elasticjob-deepctr-queued.2"]);
  assert.match(grown[0][2], /plan asks more than Kueue admitted: Workload slice elasticjob-deepctr-queued\.2 replaces elasticjob-deepctr-queued \(ps 1, worker 7\)/);
  assert.match(grown.at(-1)[2], /Workload slice elasticjob-deepctr-queued\.2/);
  await shot(queued, "12b-kueue-slice");
});

test("a gang-scheduled job: the page lists its PodGroup first, the same as the package renders it, and a what-if scale-up updates it", async () => {
  const gang = await freshPage();
  await gang.goto(origin);
  await shown(gang, "elasticjob-sample: 8 objects");
  await gang.selectOption("#example", "gang");
  await shown(gang, "deepctr-gang: 13 objects (6 pods, 6 services, 1 PodGroup)");
  const job = parse(readFileSync(fileURLToPath(new URL("../../examples/gang-job.yaml", import.meta.url)), "utf8"));
  const { renderSummary } = await import("../../pkg/node.js");
  const [group] = renderSummary(job);
  // The PS, the chief DLRover's master makes of a worker and a worker, and the master, a member of
  // its job's gang (issue 47): 2 + 16 + 16 + 1 CPUs, 20Gi and the master's 2Gi.
  assert.deepEqual([group.kind, group.name, group.cpu, group.memory], ["PodGroup", "deepctr-gang", "35", "22Gi"]);
  const [first] = await tableRows(gang);
  assert.ok(first.includes("PodGroup") && first.includes("deepctr-gang"), `first row: ${first}`);
  // Down to no worker (the PS and the chief left): the gang can no longer be 3 task pods, so its PodGroup follows the
  // job: minMember the PS, the chief and the master.
  await gang.fill("#sim-worker-replicas", "0");
  await gang.waitForFunction(() => document.getElementById("sim-summary").textContent === "Delete 3 pods and 3 services; update the job's PodGroup (its gang follows the plan).");
  const diff = await gang.$$eval("#sim-diff li", (lis) => lis.map((li) => [li.className, li.querySelector("code").textContent, li.querySelector(".reason").textContent]));
  assert.deepEqual(diff[0], ["update", "PodGroup/deepctr-gang", "the gang of ElasticJob deepctr-gang follows the job: minMember 3"]);
});

test("a pasted Kubeflow TFJob: the page shows the ElasticJob it becomes beside its objects, and its notes as warnings in the TFJob", async () => {
  const tf = await freshPage();
  await tf.goto(origin);
  await shown(tf, "elasticjob-sample: 8 objects");
  assert.equal(await tf.isVisible("#converted-section"), false, "no conversion for an ElasticJob");
  const tfjobs = (name) => fileURLToPath(new URL(`../../examples/tfjob/${name}`, import.meta.url));
  await pasteText(tf, readFileSync(tfjobs("ps-workers.yaml"), "utf8"));
  await shown(tf, "mnist: 14 objects (7 pods, 7 services), converted from a Kubeflow TFJob");
  await tf.waitForSelector("#converted-section", { state: "visible" });
  const { elasticJob, notes } = JSON.parse(readFileSync(tfjobs("ps-workers.converted.json"), "utf8"));
  assert.deepEqual(parse(await tf.textContent("#converted")), elasticJob);
  const listed = await tf.$$eval("#problems li.warning", (lis) => lis.map((li) => li.textContent));
  assert.equal(listed.length, notes.length);
  for (const n of notes) {
    assert.ok(listed.some((l) => l.includes(n.path) && l.includes(n.message)), n.path);
  }
  assert.match(await tf.textContent("#converted-caption"), new RegExp(`Kubeflow TFJob: .* ${notes.length} warnings above`));
  await shot(tf, "13-tfjob-converted");
  // A TFJob that does not convert: its problems at their TFJob paths, no objects.
  await pasteText(tf, readFileSync(tfjobs("evaluator.yaml"), "utf8").replace("    Master:", "    Chief:\n      template: {spec: {containers: [{name: tensorflow, image: tf}]}}\n    Master:"));
  await tf.waitForFunction(() => [...document.querySelectorAll("#problems li.error")].some((li) => li.textContent.includes("spec.tfReplicaSpecs.Master")));
  // The example picker has one; an ElasticJob hides the section again.
  await tf.selectOption("#example", "tfjob");
  await shown(tf, "criteo:");
  await tf.selectOption("#example", "sample");
  await shown(tf, "elasticjob-sample: 8 objects");
  assert.equal(await tf.isVisible("#converted-section"), false);
});
