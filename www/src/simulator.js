// The scale simulator: a target given as replicas and resources per task type (applied to the
// job's current plan) or as a ScalePlan written out, and what the operator would do to get there,
// as a diff of pods and services to create and delete with the core's reason for each.

const DELAY = 150;

export function createSimulator(root, { simulate, onChange }) {
  const body = root.querySelector("#sim-values tbody");
  const textarea = root.querySelector("#sim-plan");
  const modes = [...root.querySelectorAll("input[name=sim-mode]")];
  const summary = root.querySelector("#sim-summary");
  const problems = root.querySelector("#sim-problems");
  const diff = root.querySelector("#sim-diff");
  let base = []; // [{type, replicas, cpu, memory}] of the current plan
  let basePlan = ""; // that plan, as YAML
  let signature = "";
  let jobName = null;
  let values = {};
  let mode = "values";
  let running = false;
  let again = false;
  let timer = 0;

  function drawForm() {
    body.replaceChildren(
      ...base.map(({ type }) => {
        const tr = document.createElement("tr");
        const th = document.createElement("th");
        th.scope = "row";
        th.textContent = type;
        tr.append(th);
        for (const [field, label, attributes] of [
          ["replicas", "replicas", { type: "number", min: "0", max: "10000", step: "1", inputMode: "numeric" }],
          ["cpu", "CPU", { type: "text", spellcheck: false, placeholder: "e.g. 2 or 500m" }],
          ["memory", "memory", { type: "text", spellcheck: false, placeholder: "e.g. 4Gi" }],
        ]) {
          const td = document.createElement("td");
          const id = `sim-${type}-${field}`;
          const lab = document.createElement("label");
          lab.htmlFor = id;
          lab.className = "visually-hidden";
          lab.textContent = `${type} ${label}`;
          const input = document.createElement("input");
          Object.assign(input, attributes, { id, value: String(values[type][field]), disabled: mode !== "values" });
          input.addEventListener("input", () => {
            values[type][field] = input.value;
            schedule();
          });
          td.append(lab, input);
          tr.append(td);
        }
        return tr;
      }),
    );
  }

  function setMode(next) {
    mode = next;
    for (const radio of modes) {
      radio.checked = radio.value === mode;
    }
    textarea.readOnly = mode !== "text";
    for (const input of body.querySelectorAll("input")) {
      input.disabled = mode !== "values";
    }
    root.classList.toggle("writing", mode === "text");
  }

  for (const radio of modes) {
    radio.addEventListener("change", () => {
      setMode(radio.value);
      schedule();
    });
  }
  textarea.addEventListener("input", () => mode === "text" && schedule());
  root.querySelector("#sim-reset").addEventListener("click", () => {
    values = fromBase();
    setMode("values");
    drawForm();
    schedule();
  });

  function unchanged() {
    return base.every(({ type, replicas, cpu, memory }) => {
      const v = values[type];
      return v.replicas.trim() === String(replicas) && v.cpu.trim() === cpu && v.memory.trim() === memory;
    });
  }

  function fromBase() {
    return Object.fromEntries(base.map(({ type, replicas, cpu, memory }) => [type, { replicas: String(replicas), cpu, memory }]));
  }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(run, DELAY);
    onChange();
  }

  async function run() {
    if (running) {
      again = true;
      return;
    }
    if (mode === "values" && unchanged()) {
      // Planning the current plan again does nothing; a large job need not be rendered to say so.
      textarea.value = basePlan;
      draw({ problems: [], entries: [] });
      summary.textContent = "No change yet: edit a value, or write a ScalePlan, to see what the operator would do.";
      return;
    }
    running = true;
    again = false;
    summary.textContent = "Planning…";
    try {
      const result = await simulate(mode === "text" ? { text: textarea.value } : { values });
      draw(result);
    } catch (e) {
      summary.textContent = `The simulation failed: ${e.message}`;
      problems.replaceChildren();
      diff.replaceChildren();
    } finally {
      running = false;
      if (again) {
        run();
      }
    }
  }

  function draw(result) {
    if (mode === "values" && result.plan !== undefined) {
      textarea.value = result.plan;
    }
    problems.replaceChildren(
      ...result.problems.map((p) => {
        const li = document.createElement("li");
        const path = document.createElement("code");
        path.textContent = p.path;
        li.append(path, ` ${p.message}`);
        return li;
      }),
    );
    const count = (op, kind) => result.entries.filter((e) => e.op === op && e.kind === kind).length;
    const creates = [[count("create", "Pod"), "pod"], [count("create", "Service"), "service"]].filter(([n]) => n > 0);
    const deletes = [[count("delete", "Pod"), "pod"], [count("delete", "Service"), "service"]].filter(([n]) => n > 0);
    if (result.problems.length > 0) {
      summary.textContent = "The scale plan has problems:";
    } else if (result.entries.length === 0) {
      summary.textContent = "Nothing to do: the job's pods already match this plan.";
    } else {
      const said = [];
      if (creates.length) said.push(`create ${creates.map(([n, noun]) => plural(n, noun)).join(" and ")}`);
      if (deletes.length) said.push(`delete ${deletes.map(([n, noun]) => plural(n, noun)).join(" and ")}`);
      const updates = count("update", "Service");
      if (updates) said.push(`keep ${plural(updates, "service")} (same address)`);
      if (count("update", "PodGroup")) said.push("update the job's PodGroup (its gang follows the plan)");
      if (count("create", "Workload")) said.push("ask Kueue for a Workload slice of the new size (the pods beyond the admission wait for it)");
      else if (count("wait", "ElasticJob")) said.push("make no pod beyond what Kueue admitted (the rest wait)");
      const text = said.join("; ");
      summary.textContent = `${text[0].toUpperCase()}${text.slice(1)}.`;
    }
    diff.replaceChildren(
      ...result.entries.map((e) => {
        const li = document.createElement("li");
        li.className = e.op;
        const sign = document.createElement("span");
        sign.className = "sign";
        sign.textContent = { create: "+", delete: "−", update: "~", wait: "…" }[e.op];
        sign.setAttribute("aria-label", e.op);
        const name = document.createElement("code");
        name.textContent = `${e.kind}/${e.name}`;
        const reason = document.createElement("span");
        reason.className = "reason";
        reason.textContent = e.reason;
        li.append(sign, " ", name, " ", reason);
        return li;
      }),
    );
  }

  return {
    /** A new analysis: new starting values when the job's types or plan changed, and a new run. */
    setJob(result) {
      const next = JSON.stringify([result.name, result.types, result.basePlan]);
      if (next !== signature) {
        // Another job: a ScalePlan written for the last one is not for this one.
        if (result.name !== jobName) {
          jobName = result.name;
          setMode("values");
        }
        signature = next;
        base = result.types;
        basePlan = result.basePlan;
        values = fromBase();
        drawForm();
        root.hidden = base.length === 0;
      }
      schedule();
    },
    /** No valid job: nothing to simulate. */
    clear() {
      clearTimeout(timer);
      signature = "";
      jobName = null;
      summary.textContent = "";
      problems.replaceChildren();
      diff.replaceChildren();
      base = [];
      root.hidden = true;
    },
    /** Puts back a shared state (see `state`). */
    restore(saved) {
      if (!saved) {
        return;
      }
      for (const [type, v] of Object.entries(saved.values ?? {})) {
        if (values[type]) {
          values[type] = { ...values[type], ...v };
        }
      }
      drawForm();
      if (saved.mode === "text") {
        textarea.value = saved.text ?? "";
      }
      setMode(saved.mode === "text" ? "text" : "values");
      schedule();
    },
    state() {
      return { mode, values, text: mode === "text" ? textarea.value : undefined };
    },
  };
}

function plural(n, noun) {
  return `${n.toLocaleString("en-US")} ${noun}${n === 1 ? "" : "s"}`;
}
