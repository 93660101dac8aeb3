// The cluster view: one node per TensorFlow task (chief, PS, workers, evaluator), grouped by type.
// Selecting a task highlights every address its TF_CONFIG lists, and draws a line to each while
// there are few enough to follow, so a user sees that worker 3 knows workers 0..3, every PS and
// the chief, while a PS knows every worker.

const SVG = "http://www.w3.org/2000/svg";
// The TensorFlow task types and what they are called, from the core's constants() (setTaskTypes).
let taskTypes = [];
const PAD = 12;
const BIG = { w: 104, h: 30, gap: 8 };
const SMALL = { w: 10, h: 10, gap: 3 };
const MAX_LINES = 64;

/** Draws into `svg`; `onPick(type, rank)` runs when a node is clicked. */
export function createCluster(svg, caption, { onPick }) {
  let nodes = new Map(); // "type/rank" -> {g, x, y}
  let signature = "";
  let laidOut = null; // the arguments of the last layout, to lay out again at a new width
  let width = 0;
  let selection = null;
  let highlighted = "";
  const lines = document.createElementNS(SVG, "g");
  lines.setAttribute("class", "links");

  // Drawn at the size it is shown (text stays at the page's size); again when that changes.
  new ResizeObserver(() => {
    const next = Math.round(svg.clientWidth);
    if (laidOut && Math.abs(next - width) > 24) {
      const selected = selection;
      signature = "";
      api.setTasks(...laidOut);
      if (selected) {
        api.highlight(...selected);
      }
    }
  }).observe(svg);

  svg.addEventListener("pointerover", (event) => {
    const g = event.target.closest("[data-type]");
    if (g && laidOut) {
      const { type, rank } = g.dataset;
      const row = laidOut[0].find((r) => r.kind === "Service" && r.replicaType === type && String(r.rank) === rank);
      let title = g.querySelector("title");
      if (!title) {
        title = document.createElementNS(SVG, "title");
        g.prepend(title);
      }
      title.textContent = `${type} ${rank}${row ? `: ${row.name}:${row.port}` : ""}`;
    }
  });

  svg.addEventListener("click", (event) => {
    const g = event.target.closest("[data-type]");
    if (g) {
      onPick(g.dataset.type, Number(g.dataset.rank));
    }
  });

  const api = {
    /** Lays out the tasks of `rows` (the table rows); does nothing when they did not change. */
    setTasks(rows, jobName) {
      laidOut = [rows, jobName];
      svg.closest("section").hidden = !jobName; // before the width is read
      const tasks = rows.filter((r) => r.kind === "Pod" && taskTypes.some((t) => t.type === r.replicaType));
      // Names are not drawn (a node's tooltip is made when the pointer comes), so a new job name
      // alone, typed letter by letter, does not draw everything again.
      const next = `${jobName === "" ? "" : "job"}|${tasks.map((r) => `${r.replicaType}${r.rank}`).join(",")}`;
      if (next === signature) {
        return;
      }
      signature = next;
      selection = null;
      width = Math.round(svg.clientWidth) || 720;
      const WIDTH = width;
      nodes = new Map();
      const parts = [lines];
      lines.replaceChildren();
      let y = PAD;
      for (const { type, many } of taskTypes) {
        const ofType = tasks.filter((r) => r.replicaType === type).sort((a, b) => a.rank - b.rank);
        if (ofType.length === 0) {
          continue;
        }
        const label = text(PAD, y + 12, `${many} (${ofType.length})`, "group");
        parts.push(label);
        y += 22;
        const size = ofType.length <= 24 ? BIG : SMALL;
        const columns = Math.max(1, Math.floor((WIDTH - 2 * PAD + size.gap) / (size.w + size.gap)));
        ofType.forEach((row, i) => {
          const x = PAD + (i % columns) * (size.w + size.gap);
          const top = y + Math.floor(i / columns) * (size.h + size.gap);
          const g = document.createElementNS(SVG, "g");
          g.setAttribute("class", `node ${type}`);
          g.dataset.type = type;
          g.dataset.rank = String(row.rank);
          const rect = document.createElementNS(SVG, "rect");
          Object.entries({ x, y: top, width: size.w, height: size.h, rx: size === BIG ? 5 : 2 }).forEach(([k, v]) => rect.setAttribute(k, String(v)));
          g.append(rect);
          if (size === BIG) {
            g.append(text(x + size.w / 2, top + size.h / 2 + 4, `${type}-${row.rank}`, "label"));
          }
          parts.push(g);
          nodes.set(`${type}/${row.rank}`, { g, x: x + size.w / 2, y: top + size.h / 2 });
        });
        y += Math.ceil(ofType.length / columns) * (size.h + size.gap) + 14;
      }
      highlighted = "";
      svg.setAttribute("viewBox", `0 0 ${WIDTH} ${Math.max(y, 40)}`);
      svg.replaceChildren(...parts);
      svg.classList.remove("has-selection");
      caption.textContent = !jobName ? "" : tasks.length === 0 ? "This job has no TensorFlow tasks." : "Select a pod in the table or here to see whom its TF_CONFIG lists.";
    },

    /**
     * Highlights the task `type`/`rank` and the tasks its `cluster` (the TF_CONFIG's) lists;
     * `cluster` is null for a task without TF_CONFIG, `type` null to clear.
     */
    highlight(type, rank, cluster, why) {
      selection = [type, rank, cluster, why];
      // Typing into a job redraws its selected task's detail at every key: when whom it lists did
      // not change, the thousands of nodes are not touched.
      const key = `${type}/${rank}|${cluster ? Object.entries(cluster).map(([t, a]) => `${t}${a.length}`) : ""}|${why ?? ""}`;
      if (key === highlighted) {
        return;
      }
      highlighted = key;
      lines.replaceChildren();
      for (const g of svg.querySelectorAll(".self, .known")) {
        g.classList.remove("self", "known");
      }
      svg.classList.toggle("has-selection", type !== null && nodes.has(`${type}/${rank}`));
      if (type === null || !nodes.has(`${type}/${rank}`)) {
        caption.textContent = nodes.size === 0 ? "" : (why ?? "Select a pod in the table or here to see whom its TF_CONFIG lists.");
        return;
      }
      const self = nodes.get(`${type}/${rank}`);
      self.g.classList.add("self");
      if (!cluster) {
        caption.textContent = why ?? `${type} ${rank} has no TF_CONFIG.`;
        return;
      }
      const known = [];
      for (const [listed, addresses] of Object.entries(cluster)) {
        addresses.forEach((_, i) => {
          const node = nodes.get(`${listed}/${i}`);
          if (node && node !== self) {
            node.g.classList.add("known");
            known.push(node);
          }
        });
      }
      if (known.length <= MAX_LINES) {
        for (const node of known) {
          const line = document.createElementNS(SVG, "line");
          Object.entries({ x1: self.x, y1: self.y, x2: node.x, y2: node.y }).forEach(([k, v]) => line.setAttribute(k, String(v)));
          lines.append(line);
        }
      }
      caption.textContent = `${type} ${rank}'s TF_CONFIG lists ${describe(cluster)}.`;
    },
  };
  return api;
}

/** The TensorFlow task types of the core's `constants().taskTypes`, in its order: what the view draws and how it names them. */
export function setTaskTypes(types) {
  taskTypes = types;
}

/** "2 PS (0–1), the chief and 4 workers (0–3)" */
export function describe(cluster) {
  const parts = [];
  for (const { type, one, many, single } of taskTypes) {
    const n = cluster[type]?.length ?? 0;
    if (n === 0) {
      continue;
    }
    if (single) {
      parts.push(`the ${one}`);
    } else {
      parts.push(n === 1 ? `1 ${one} (0)` : `${n} ${many} (0–${n - 1})`);
    }
  }
  if (parts.length === 0) {
    return "no other task";
  }
  return parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`;
}

function text(x, y, content, className) {
  const t = document.createElementNS(SVG, "text");
  t.setAttribute("x", String(x));
  t.setAttribute("y", String(y));
  t.setAttribute("class", className);
  if (className === "label") {
    t.setAttribute("text-anchor", "middle");
  }
  t.textContent = content;
  return t;
}
