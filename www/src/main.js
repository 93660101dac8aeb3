// The page: the editor, the problem list, the object table and the selected object, the cluster
// view, the scale simulator, sharing and download. Everything that computes runs in two workers
// (worker.js); this thread only draws, so typing never waits for the core.
import "./style.css";
import sampleJob from "../../examples/elasticjob.yaml";
import samplePlan from "../../examples/scaleplan.yaml";
import allreduce from "../examples/allreduce.yaml";
import mistakes from "../examples/mistakes.yaml";
import psChiefEvaluator from "../examples/ps-chief-evaluator.yaml";
import queuedJob from "../../examples/kueue-job.yaml";
import tfJob from "../../examples/tfjob/run-policy.yaml";
import gangJob from "../../examples/gang-job.yaml";
import { createCluster, setTaskTypes } from "./cluster.js";
import { createEditor } from "./editor.js";
import { decodeState, encodeState } from "./share.js";
import { createSimulator } from "./simulator.js";
import { createTable } from "./table.js";

const EXAMPLES = {
  sample: { label: "Upstream sample, with its ScalePlan", text: `${sampleJob.trimEnd()}\n---\n${samplePlan}` },
  "ps-chief-evaluator": { label: "PS job with chief and evaluator", text: psChiefEvaluator },
  allreduce: { label: "Allreduce job", text: allreduce },
  queued: { label: "PS job queued by Kueue", text: queuedJob },
  gang: { label: "PS job gang-scheduled by Volcano", text: gangJob },
  mistakes: { label: "A job with mistakes", text: mistakes },
  tfjob: { label: "A Kubeflow TFJob, converted", text: tfJob },
};

const $ = (id) => document.getElementById(id);

// Two workers of one module: one analyses the text and answers about its objects, the other runs
// the scale simulator (seconds for a large job), so neither waits for the other. Each answers in
// the order it was asked.
function startWorker() {
  const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
  const calls = new Map();
  let callId = 0;
  const ready = new Promise((resolve, reject) => {
    worker.addEventListener("message", ({ data }) => {
      if (data.ready) {
        resolve(data.constants);
        return;
      }
      const call = calls.get(data.id);
      calls.delete(data.id);
      if (data.error) {
        call.reject(Object.assign(new Error(data.error.message), data.error));
      } else {
        call.resolve(data.result);
      }
    });
    worker.addEventListener("error", (event) => {
      event.preventDefault();
      reject(new Error(`a worker could not start: ${event.message ?? "see the browser console"}`));
    });
  });
  const call = async (op, args = {}) => {
    await ready;
    const id = ++callId;
    worker.postMessage({ id, op, args });
    return new Promise((resolve, reject) => calls.set(id, { resolve, reject }));
  };
  call.constants = ready;
  return call;
}
const call = startWorker();
// The core's names (from the worker, which loads the core): the task types the cluster view draws,
// and the master's type, which is not a task.
let constants = { taskTypes: [], masterType: undefined };
call.constants.then((c) => {
  constants = c;
  setTaskTypes(c.taskTypes);
});
const callSimulator = startWorker();

// What the page shows: the last valid analysis, and a shared state being restored.
const state = {
  generation: 0, // bumped by every analysis that gives rows
  result: null, // the last analysis with rows
  restoring: null, // a shared state waiting for its first analysis
};
let refreshTimer = 0; // see refreshDetailSoon

const editor = createEditor($("editor"), {
  label: "ElasticJob manifest, YAML or JSON; a ScalePlan may follow after ---",
  onChange: () => {
    $("example").value = exampleOf(editor.text());
    analyse();
  },
  onDrop: (file) => openFile(file),
});

const table = createTable($("table-scroll"), $("table"), {
  onSelect: (index) => {
    clearTimeout(refreshTimer);
    showDetail(index);
  },
});

const cluster = createCluster($("cluster"), $("cluster-caption"), {
  onPick: (type, rank) => {
    const index = state.result?.rows.findIndex((r) => r.kind === "Pod" && r.replicaType === type && r.rank === rank) ?? -1;
    if (index >= 0) {
      table.select(index);
    }
  },
});

const simulator = createSimulator($("simulator"), {
  simulate: (target) => callSimulator("simulate", { text: state.result.text, target }),
  onChange: () => saveSoon(),
});

// Analysis: at most one in flight; text typed meanwhile is analysed as soon as it returns.
let analysing = false;
let stale = false;
async function analyse() {
  busy(true);
  if (analysing) {
    stale = true;
    return;
  }
  analysing = true;
  stale = false;
  const text = editor.text();
  const sent = performance.now();
  try {
    let result = await call("analyse", { text });
    if (editor.text() === text) {
      editor.show(result.problems);
    }
    showProblems(result.problems, text);
    if (result.columns) {
      state.generation += 1;
      const { columns, ...rest } = result;
      result = { ...rest, rows: rowsOf(columns) };
      state.result = { ...result, text };
      showObjects(result, performance.now() - sent);
    } else {
      markStale(result.problems);
    }
  } catch (e) {
    showFatal(e);
  } finally {
    analysing = false;
    if (stale) {
      analyse();
    } else {
      busy(false);
      saveSoon();
    }
  }
}

/** Marks the problems and the objects as being brought up to date with the text, or not. */
function busy(yes) {
  for (const id of ["input", "objects"]) {
    $(id).setAttribute("aria-busy", String(yes));
  }
}

/** The worker's columns (one array per field) as row objects. */
function rowsOf(columns) {
  const keys = Object.keys(columns);
  return columns.kind.map((_, i) => {
    const row = {};
    for (const key of keys) {
      if (columns[key][i] !== null) {
        row[key] = columns[key][i];
      }
    }
    return row;
  });
}

function showProblems(problems, text) {
  const list = $("problems");
  const errors = problems.filter((p) => p.severity === "error").length;
  const warnings = problems.length - errors;
  $("problem-count").textContent =
    problems.length === 0 ? "none" : [errors && plural(errors, "error"), warnings && plural(warnings, "warning")].filter(Boolean).join(", ");
  list.replaceChildren(
    ...problems.map((p) => {
      const li = document.createElement("li");
      li.className = p.severity;
      const where = document.createElement(p.line ? "button" : "span");
      where.className = "where";
      where.textContent = p.line ? `${p.line}:${p.col}` : "–";
      if (p.line) {
        where.type = "button";
        where.setAttribute("aria-label", `line ${p.line}, column ${p.col}: go there`);
        where.addEventListener("click", () => editor.text() === text && editor.reveal(p.from, p.to));
      }
      const path = document.createElement("code");
      path.className = "path";
      path.textContent = p.path || p.code;
      const message = document.createElement("span");
      message.className = "message";
      message.textContent = p.message;
      li.append(where, path, message);
      return li;
    }),
  );
  list.hidden = problems.length === 0;
}

/** A new document (an example, a file, a link): nothing of the last one stays on screen. */
function replaceText(text) {
  state.result = null;
  state.generation += 1;
  table.setRows([]);
  cluster.setTasks([], "");
  clearDetail();
  simulator.clear();
  $("status").textContent = "Checking…";
  editor.setText(text);
}

function markStale(problems) {
  const objects = $("objects");
  const hasRows = state.result !== null;
  objects.classList.toggle("stale", hasRows);
  const errors = problems.filter((p) => p.severity === "error").length;
  $("status").textContent = hasRows
    ? `Showing the last valid job: fix ${plural(errors, "problem")} to update.`
    : `No objects yet: fix ${plural(errors, "problem")}.`;
}

function showObjects(result, ms) {
  $("objects").classList.remove("stale");
  showWorkload(result.queue);
  showConverted(result.converted);
  const count = (kind) => result.rows.filter((r) => r.kind === kind).length;
  const [pods, services, groups] = [count("Pod"), count("Service"), count("PodGroup")];
  const parts = [plural(pods, "pod"), plural(services, "service"), ...(groups > 0 ? [plural(groups, "PodGroup")] : [])];
  $("status").textContent =
    `${result.name}: ${plural(result.rows.length, "object")} (${parts.join(", ")})` +
    `${result.hasPlan ? " with its ScalePlan" : ""}${result.converted ? ", converted from a Kubeflow TFJob" : ""}, checked and rendered in ${Math.round(ms)} ms.`;
  const selected = table.setRows(result.rows);
  document.dispatchEvent(new CustomEvent("elasticjob:table", { detail: { name: result.name, rows: result.rows.length, workerMs: result.ms } }));
  // The rest can wait for the table to be painted.
  requestAnimationFrame(() => {
    cluster.setTasks(result.rows, result.name);
    simulator.setJob(state.result);
    const restoring = state.restoring;
    state.restoring = null;
    if (restoring) {
      simulator.restore(restoring.sim);
      if (restoring.sort?.key) {
        table.sortBy(restoring.sort.key, restoring.sort.descending);
      }
      if (restoring.selected && result.rows[restoring.selected.index]?.name === restoring.selected.name) {
        table.select(restoring.selected.index);
        return;
      }
    }
    if (selected >= 0) {
      refreshDetailSoon();
    } else {
      clearDetail();
    }
  });
}

/** The ElasticJob a pasted Kubeflow TFJob becomes (the worker's `converted`), or the section hidden for an ElasticJob. */
function showConverted(converted) {
  $("converted-section").hidden = converted === null;
  if (converted === null) {
    return;
  }
  $("converted-caption").textContent =
    `The text is a Kubeflow TFJob: the objects are those of this ElasticJob, what \`elasticjob convert\` makes of it. ` +
    (converted.notes === 0
      ? "Nothing differs."
      : `${converted.notes === 1 ? "The warning above says" : `The ${plural(converted.notes, "warning")} above say`} what has no equivalent or behaves differently.`);
  $("converted").textContent = converted.yaml;
}

/** The Workload a queued job gets (the worker's `queue`), or the section hidden for a job Kueue does not queue. */
function showWorkload(queue) {
  $("workload-section").hidden = queue === null;
  if (queue === null) {
    return;
  }
  $("workload-caption").textContent =
    `Queued in LocalQueue ${queue.queueName}: with the controller run with --kueue, the job stays suspended and gets no pod until Kueue admits this Workload, ` +
    `then runs on the flavour Kueue gives.` +
    (queue.priorityClass ? ` Its priority is the value of priority class ${queue.priorityClass}, which the controller reads from the cluster.` : "") +
    (queue.slices
      ? " It opts in to Kueue's Workload slices (kueue.x-k8s.io/elastic-job): with --kueue-workload-slices and Kueue's ElasticJobsViaWorkloadSlices gate, " +
        "a plan beyond the admission asks Kueue for a new Workload slice of the whole new size, and a plan below it gives the quota back."
      : " A plan beyond the admission is cut to it (the scale simulator below takes the job as admitted).");
  $("workload").textContent = queue.workload;
}

// While the job is being typed into, the selected object's detail is fetched again once typing
// pauses, not at every key (for a large job the worker renders everything to get one pod).
function refreshDetailSoon() {
  clearTimeout(refreshTimer);
  const generation = state.generation;
  refreshTimer = setTimeout(() => generation === state.generation && table.selected >= 0 && showDetail(table.selected), 250);
}

// The selected object's manifest and TF_CONFIG: at most one request in flight, the last wins.
let detailing = false;
let wanted = null;
async function showDetail(index) {
  wanted = { index, generation: state.generation };
  if (detailing) {
    return;
  }
  detailing = true;
  try {
    while (wanted) {
      const asked = wanted;
      wanted = null;
      let detail;
      try {
        detail = await call("detail", { index: asked.index });
      } catch (e) {
        if (asked.generation === state.generation) {
          showFatal(e);
        }
        continue;
      }
      if (asked.generation === state.generation && !wanted) {
        drawDetail(detail);
      }
    }
  } finally {
    detailing = false;
    saveSoon();
  }
}

function drawDetail(detail) {
  const row = state.result.rows[detail.index];
  $("detail").hidden = false;
  setText($("detail-title"), `${detail.kind} ${detail.name}`);
  setText($("manifest"), detail.manifest);
  const tf = $("tfconfig-block");
  tf.hidden = !detail.tfConfig;
  if (detail.tfConfig) {
    setText($("tfconfig"), JSON.stringify(detail.tfConfig, null, 2));
  }
  const rendezvous = $("rendezvous");
  rendezvous.hidden = detail.rendezvous === null;
  rendezvous.textContent = detail.rendezvous === null ? "" : `No TF_CONFIG: an ${state.result.strategy} pod gets RDZV_ENDPOINT, ${detail.rendezvous}.`;
  const isTask = row.kind === "Pod" && constants.taskTypes.some((t) => t.type === row.replicaType);
  if (isTask) {
    cluster.highlight(row.replicaType, row.rank, detail.tfConfig?.cluster ?? null, detail.rendezvous ? `${row.replicaType} ${row.rank} gets RDZV_ENDPOINT instead of TF_CONFIG.` : null);
  } else if (row.kind === "Service" && row.replicaType && row.replicaType !== constants.masterType) {
    cluster.highlight(row.replicaType, row.rank, null, `The service ${row.name} is the address of ${row.replicaType} ${row.rank}.`);
  } else {
    cluster.highlight(null, 0, null, `${row.name} is the DLRover master, not a TensorFlow task.`);
  }
}

/** Sets an element's text only when it changed: a pod's manifest can be 40 kB to lay out. */
function setText(element, text) {
  if (element.textContent !== text) {
    element.textContent = text;
  }
}

function clearDetail() {
  $("detail").hidden = true;
  cluster.highlight(null, 0, null);
}

// Copy buttons, with a note that says what happened.
for (const button of document.querySelectorAll("[data-copy]")) {
  button.addEventListener("click", () => copy($(button.dataset.copy).textContent, button.dataset.what));
}
async function copy(text, what) {
  try {
    await navigator.clipboard.writeText(text);
    toast(`${what} copied.`);
  } catch {
    toast(`Could not copy: the browser did not allow it.`);
  }
}

let toastTimer = 0;
function toast(message) {
  const t = $("toast");
  t.textContent = message;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    t.hidden = true;
  }, 2500);
}

function showFatal(e) {
  console.error(e);
  $("status").textContent = `Something went wrong: ${e.message}`;
}

// Examples, upload, drop.
const picker = $("example");
for (const [value, { label }] of Object.entries(EXAMPLES)) {
  picker.add(new Option(label, value));
}
picker.add(new Option("Your own job", ""));
picker.addEventListener("change", () => {
  if (picker.value) {
    replaceText(EXAMPLES[picker.value].text);
  }
});
function exampleOf(text) {
  return Object.entries(EXAMPLES).find(([, e]) => e.text === text)?.[0] ?? "";
}

$("upload").addEventListener("change", (event) => {
  const [file] = event.target.files;
  if (file) {
    openFile(file);
  }
  event.target.value = "";
});
async function openFile(file) {
  replaceText(await file.text());
  toast(`Opened ${file.name}.`);
}

// Download every object as one YAML List.
$("download").addEventListener("click", async () => {
  if (!state.result) {
    toast("Nothing to download: the job has problems.");
    return;
  }
  const { name, text } = await call("download");
  const url = URL.createObjectURL(new Blob([text], { type: "application/yaml" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = `${name}.objects.yaml`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
});

// Sharing: the whole state in the hash, kept up to date; the button copies the address.
let saveTimer = 0;
function saveSoon() {
  clearTimeout(saveTimer);
  saveTimer = setTimeout(save, 300);
}
async function save() {
  clearTimeout(saveTimer);
  if (state.restoring) {
    return;
  }
  const selected = table.selected >= 0 && state.result ? { index: table.selected, name: state.result.rows[table.selected]?.name } : null;
  const hash = await encodeState({ v: 1, text: editor.text(), selected, sort: table.sort, sim: simulator.state() });
  history.replaceState(null, "", hash);
}
$("share").addEventListener("click", async () => {
  await save();
  await copy(location.href, "Link");
});

// Theme: the system's, or the one chosen here (remembered in this browser).
const theme = $("theme");
theme.value = localStorage.getItem("elasticjob-theme") ?? "";
document.documentElement.dataset.theme = theme.value;
theme.addEventListener("change", () => {
  document.documentElement.dataset.theme = theme.value;
  localStorage.setItem("elasticjob-theme", theme.value);
});

function plural(n, noun) {
  return `${n.toLocaleString("en-US")} ${noun}${n === 1 ? "" : "s"}`;
}

// Start: a shared state from the address, else the upstream sample.
async function start() {
  let shared = null;
  try {
    shared = await decodeState(location.hash);
  } catch (e) {
    toast(`The link's state could not be read (${e.message}); showing the sample instead.`);
  }
  if (editor.text() !== "") {
    return; // the user was quicker
  }
  if (shared) {
    state.restoring = shared;
    replaceText(shared.text);
  } else {
    picker.value = "sample";
    replaceText(EXAMPLES.sample.text);
  }
}
start().catch(showFatal);
