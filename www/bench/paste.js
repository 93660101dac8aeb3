// `make bench-www`: the preview page in headless Chromium with the 1,000-worker job of the core's
// benchmark (pkg/bench/job.js). Prints, asserting nothing:
// - paste -> table: from the paste event in the editor to the frame after the table shows the
//   pasted job (performance.now in the page), median of RUNS pastes (each a new job name, so each
//   is a new analysis);
// - select -> TF_CONFIG: from the keypress that selects the last worker to its TF_CONFIG shown;
// - typing: the longest task of the page's main thread (from a Chromium trace) while a job name
//   is typed into that job, a key every 50 ms, and the longest gap between animation frames.
// Usage: node bench/paste.js
import { chromium } from "playwright-core";
import { stringify } from "yaml";
import { bigJob } from "../../pkg/bench/job.js";
import { serve } from "../serve.js";

const RUNS = 9;
const GOAL_MS = 150;
const FRAME_MS = 1000 / 60;
const FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

const { server, url } = await serve(0);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", headless: true, args: FLAGS }); // a fresh profile of its own
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await page.goto(url);
  await page.waitForFunction(() => document.getElementById("status").textContent.includes("elasticjob-sample"));

  /** Pastes `text` over the editor's text; resolves to the ms until the table shows `name`. */
  const paste = (text, name) =>
    page.evaluate(
      ({ text, name }) =>
        new Promise((resolve) => {
          const content = document.querySelector(".cm-content");
          content.focus();
          document.execCommand("selectAll");
          const data = new DataTransfer();
          data.setData("text/plain", text);
          const start = performance.now();
          document.addEventListener("elasticjob:table", function shown(event) {
            if (event.detail.name !== name) {
              return;
            }
            document.removeEventListener("elasticjob:table", shown);
            const inDom = performance.now() - start;
            requestAnimationFrame(() => setTimeout(() => resolve({ inDom, painted: performance.now() - start, rows: event.detail.rows, worker: event.detail.workerMs })));
          });
          content.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
        }),
      { text, name },
    );

  const times = [];
  let rows = 0;
  for (let i = 0; i <= RUNS; i++) {
    const name = `deepctr-${i}`;
    const result = await paste(stringify(bigJob(name)), name);
    rows = result.rows;
    if (i > 0) {
      times.push(result); // the first run warms the wasm module up
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const painted = times.map((t) => t.painted);
  console.log(`job: 1,000 workers, 50 PS, 1 chief, 1 evaluator -> ${rows.toLocaleString("en-US")} rows (${stringify(bigJob()).length.toLocaleString("en-US")} bytes of YAML pasted)`);
  console.log(`Chromium ${browser.version()}, median of ${RUNS} pastes:`);
  console.log(`  paste -> table painted   ${median(painted).toFixed(1).padStart(7)} ms  (min ${Math.min(...painted).toFixed(1)}, max ${Math.max(...painted).toFixed(1)}; goal: at most ${GOAL_MS} ms)`);
  console.log(`  paste -> rows in the DOM ${median(times.map((t) => t.inDom)).toFixed(1).padStart(7)} ms`);
  console.log(`  of which the worker      ${median(times.map((t) => t.worker)).toFixed(1).padStart(7)} ms  (read, validate, renderSummary)`);

  // Selecting the last worker: its manifest and TF_CONFIG (1,000 addresses) come from the worker.
  const selectMs = await page.evaluate(
    () =>
      new Promise((resolve) => {
        const table = document.getElementById("table");
        table.focus();
        const title = document.getElementById("detail-title");
        const start = performance.now();
        new MutationObserver((_, observer) => {
          if (title.textContent.endsWith("worker-999")) {
            observer.disconnect();
            requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - start)));
          }
        }).observe(title, { childList: true, characterData: true, subtree: true });
        // The rows are in the core's order: ..., worker-999's pod, its service, the evaluator's.
        table.dispatchEvent(new KeyboardEvent("keydown", { key: "End", bubbles: true }));
        for (let i = 0; i < 3; i++) {
          table.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowUp", bubbles: true }));
        }
      }),
  );
  console.log(`  select worker 999 -> its TF_CONFIG shown ${selectMs.toFixed(1).padStart(7)} ms`);

  // Typing into the big job's name, a key every 50 ms, traced.
  await page.evaluate(() => {
    window.__frames = [];
    const tick = (t) => {
      window.__frames.push(t);
      if (window.__frames.length < 100000) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  await page.click(".cm-content");
  await page.keyboard.press("Control+Home");
  for (let i = 0; i < 3; i++) {
    await page.keyboard.press("ArrowDown");
  }
  await page.keyboard.press("End"); // line 4, `  name: deepctr-9`
  await browser.startTracing(page, { categories: ["toplevel", "devtools.timeline", "disabled-by-default-devtools.timeline"] });
  const typed = "-typed-here";
  const typingStart = await page.evaluate(() => performance.now());
  await page.keyboard.type(typed, { delay: 50 });
  await page.waitForFunction((n) => document.getElementById("status").textContent.startsWith(n), `deepctr-${RUNS}${typed}:`);
  const trace = JSON.parse((await browser.stopTracing()).toString("utf8"));
  const frames = await page.evaluate((from) => window.__frames.filter((t) => t >= from), typingStart);
  const gaps = frames.slice(1).map((t, i) => t - frames[i]);

  const events = trace.traceEvents ?? trace;
  if (process.env.TRACE_OUT) {
    (await import("node:fs")).writeFileSync(process.env.TRACE_OUT, JSON.stringify(events));
  }
  const mains = new Set(events.filter((e) => e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain").map((e) => `${e.pid}:${e.tid}`));
  const tasks = events.filter((e) => e.name === "RunTask" && e.ph === "X" && mains.has(`${e.pid}:${e.tid}`)).map((e) => e.dur / 1000);
  const longest = Math.max(...tasks);
  console.log(`typing ${typed.length} keys into the name of that job, one every 50 ms:`);
  console.log(`  longest main-thread task ${longest.toFixed(1).padStart(7)} ms  (${tasks.filter((d) => d > FRAME_MS).length} of ${tasks.length} tasks over one frame, ${FRAME_MS.toFixed(1)} ms)`);
  console.log(`  longest gap between frames ${Math.max(...gaps).toFixed(1).padStart(5)} ms  (${gaps.length} frames)`);
  if (errors.length) {
    console.log(`page errors: ${errors.join("; ")}`);
    process.exitCode = 1;
  }
} finally {
  await browser.close();
  server.close();
}
