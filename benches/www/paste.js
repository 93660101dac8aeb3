// `make bench-www`: the preview page in headless Chromium with the 1,000-worker job of the core's
// benchmark (benches/node/job.js). Prints, asserting nothing:
// - paste -> table: from the paste event in the editor to the frame after the table shows the
//   pasted job (performance.now in the page), median of RUNS pastes (each a new job name, so each
//   is a new analysis);
// - select -> TF_CONFIG: from the keypress that selects the last worker to its TF_CONFIG shown;
// - the CPU time of the steps on that path (from a Chromium trace), what they take on a machine
//   of their own: the machine this runs on may be shared, and wall time counts the others' turns;
// - typing: the longest task of the page's main thread (from a trace: its CPU time and its wall
//   time) while a job name is typed into, a key every 50 ms, and the longest gap between
//   animation frames: in the upstream sample, and in the 1,000-worker job.
// With BENCH_JSON=FILE (as `make bench` sets it) the figures are also written to FILE.
// Usage: node benches/www/paste.js
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { chromium } from "playwright-core";
import { stringify } from "yaml";
import { bigJob } from "../node/job.js";
import { serve } from "../../www/serve.js";

const RUNS = 9;
const GOAL_MS = 150;
const FRAME_MS = 1000 / 60;
const FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

const figures = { runs: RUNS, typing: [] };
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

  /**
   * Types a suffix after the job name `name` on line 4 of the editor, a key every 50 ms, and prints
   * the longest task of the page's main thread meanwhile (from a trace) and the longest gap
   * between animation frames.
   */
  async function typing(name, what) {
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
    await page.keyboard.press("End"); // line 4, `  name: NAME`
    await browser.startTracing(page, { categories: ["toplevel", "devtools.timeline", "disabled-by-default-devtools.timeline"] });
    const typed = "-typed";
    const start = await page.evaluate(() => performance.now());
    await page.keyboard.type(typed, { delay: 50 });
    await page.waitForFunction((n) => document.getElementById("status").textContent.startsWith(n), `${name}${typed}:`);
    const trace = JSON.parse((await browser.stopTracing()).toString("utf8"));
    const frames = await page.evaluate((from) => window.__frames.filter((t) => t >= from), start);
    const gaps = frames.slice(1).map((t, i) => t - frames[i]);
    const events = trace.traceEvents ?? trace;
    if (process.env.TRACE_OUT) {
      (await import("node:fs")).writeFileSync(`${process.env.TRACE_OUT}-${what.replaceAll(" ", "-")}.json`, JSON.stringify(events));
    }
    const mains = new Set(events.filter((e) => e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain").map((e) => `${e.pid}:${e.tid}`));
    const tasks = events.filter((e) => e.name === "RunTask" && e.ph === "X" && mains.has(`${e.pid}:${e.tid}`));
    const wall = tasks.map((e) => e.dur / 1000);
    // The thread's own CPU time: on a shared machine a task's wall time includes the time the
    // system gave the CPU to other processes.
    const cpu = tasks.map((e) => (e.tdur ?? e.dur) / 1000);
    const over = (xs) => `${xs.filter((d) => d > FRAME_MS).length} of ${xs.length} over one frame, ${FRAME_MS.toFixed(1)} ms`;
    console.log(`typing ${typed.length} keys into the name of ${what}, one every 50 ms:`);
    console.log(`  longest main-thread task, CPU time  ${Math.max(...cpu).toFixed(1).padStart(6)} ms  (${over(cpu)})`);
    console.log(`  longest main-thread task, wall time ${Math.max(...wall).toFixed(1).padStart(6)} ms  (${over(wall)})`);
    console.log(`  longest gap between frames          ${Math.max(...gaps).toFixed(1).padStart(6)} ms  (${gaps.length} frames)`);
    figures.typing.push({ what, cpuMs: Math.max(...cpu), wallMs: Math.max(...wall), gapMs: Math.max(...gaps) });
  }

  console.log(`Chromium ${browser.version()}; load average ${loadavg().map((l) => l.toFixed(1)).join(" ")} on ${cpus().length} cores (times are wall-clock unless said to be CPU time)`);
  await typing("elasticjob-sample", "the upstream sample");

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
  console.log(`median of ${RUNS} pastes:`);
  console.log(`  paste -> table painted   ${median(painted).toFixed(1).padStart(7)} ms  (min ${Math.min(...painted).toFixed(1)}, max ${Math.max(...painted).toFixed(1)}; goal: at most ${GOAL_MS} ms)`);
  console.log(`  paste -> rows in the DOM ${median(times.map((t) => t.inDom)).toFixed(1).padStart(7)} ms`);
  console.log(`  of which the worker      ${median(times.map((t) => t.worker)).toFixed(1).padStart(7)} ms  (read, validate, renderSummary)`);
  Object.assign(figures, { pastePaintedMs: median(painted), inDomMs: median(times.map((t) => t.inDom)), workerMs: median(times.map((t) => t.worker)) });

  // The same pastes traced: the CPU time of each step on the way (the paste's task on the main
  // thread, the analysis in the worker, the main thread's task that takes its answer and builds
  // the table, the frame that paints it), which is what the path costs on a machine of its own.
  await browser.startTracing(page, { categories: ["toplevel", "devtools.timeline", "disabled-by-default-devtools.timeline"] });
  for (let i = 0; i < RUNS; i++) {
    const name = `deepctr-traced-${i}`;
    await paste(stringify(bigJob(name)), name);
  }
  const steps = pathCpu(JSON.parse((await browser.stopTracing()).toString("utf8")));
  console.log(`  CPU time on that path     ${median(steps.map((x) => x.total)).toFixed(1).padStart(6)} ms  (traced; of which the analysis in the worker ${median(steps.map((x) => x.worker)).toFixed(1)} ms)`);
  Object.assign(figures, { pathCpuMs: median(steps.map((x) => x.total)), workerCpuMs: median(steps.map((x) => x.worker)) });

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
  figures.selectMs = selectMs;

  await typing(`deepctr-traced-${RUNS - 1}`, "that job");
  if (errors.length) {
    console.log(`page errors: ${errors.join("; ")}`);
    process.exitCode = 1;
  }
  if (process.env.BENCH_JSON) {
    writeFileSync(process.env.BENCH_JSON, JSON.stringify(figures, null, 2));
  }
} finally {
  await browser.close();
  server.close();
}

/**
 * For each analysis in a trace of pastes: the CPU time (`tdur`) of the main thread's task that
 * handled the paste, of the worker's task that analysed it, of the main thread's task that took
 * the answer (and built the table), and of the next animation frame's task.
 */
function pathCpu(trace) {
  const events = trace.traceEvents ?? trace;
  const threads = (name) => new Set(events.filter((e) => e.ph === "M" && e.name === "thread_name" && e.args?.name === name).map((e) => `${e.pid}:${e.tid}`));
  const on = (set) => (e) => set.has(`${e.pid}:${e.tid}`);
  const main = on(threads("CrRendererMain"));
  const worker = on(threads("DedicatedWorker thread"));
  const tasks = events.filter((e) => e.name === "RunTask" && e.ph === "X").sort((a, b) => a.ts - b.ts);
  const inside = (task, test) => events.some((e) => main(e) && e.ph === "X" && e.ts >= task.ts && e.ts < task.ts + task.dur && test(e));
  const cpu = (e) => (e.tdur ?? e.dur) / 1000;
  const mainTasks = tasks.filter(main);
  return tasks
    .filter((e) => worker(e) && e.dur > 20_000)
    .map((analysis) => {
      const end = analysis.ts + analysis.dur;
      const pasted = mainTasks.filter((t) => t.ts < analysis.ts && inside(t, (e) => e.name === "EventDispatch" && e.args?.data?.type === "paste")).at(-1);
      const answered = mainTasks.find((t) => t.ts >= end && inside(t, (e) => e.name === "HandlePostMessage"));
      const painted = answered && mainTasks.find((t) => t.ts > answered.ts && inside(t, (e) => e.name === "FireAnimationFrame"));
      const parts = [pasted, analysis, answered, painted].filter(Boolean).map(cpu);
      return { worker: cpu(analysis), total: parts.reduce((a, b) => a + b, 0) };
    });
}
