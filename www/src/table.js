// The object table: every rendered object, sortable by any column, with only the rows in view in
// the DOM (a 1,000-worker job has 2,106 objects), and usable from the keyboard: the table is one
// tab stop, the arrow keys, Page Up/Down, Home and End move the active row and select it
// (announced with aria-activedescendant), as a click does.

const OVERSCAN = 8;

export const COLUMNS = [
  { key: "kind", label: "Kind" },
  { key: "name", label: "Name" },
  { key: "replicaType", label: "Type" },
  { key: "rank", label: "Rank", numeric: true },
  { key: "cpu", label: "CPU", numeric: true },
  { key: "memory", label: "Memory", numeric: true },
  { key: "port", label: "Port", numeric: true },
];

const collator = new Intl.Collator("en", { numeric: true });

/**
 * Builds the table inside `scroller` (a scrolling element holding `table`). `onSelect(index)`
 * gets the index of a selected row in the core's order (the index of `renderItem`).
 */
export function createTable(scroller, table, { onSelect }) {
  const head = table.querySelector("thead tr");
  const body = table.querySelector("tbody");
  let rows = [];
  let order = [];
  let sort = { key: null, descending: false };
  let active = -1; // position in `order`
  let selected = -1; // index in `rows`
  let frame = 0;
  let rowHeight = 28; // measured once rows are drawn
  let measured = false;

  for (const column of COLUMNS) {
    const th = document.createElement("th");
    th.scope = "col";
    th.setAttribute("role", "columnheader");
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = column.label;
    button.addEventListener("click", () => sortBy(column.key));
    th.append(button);
    th.dataset.key = column.key;
    head.append(th);
  }

  /** Sorts by `key`; without `descending`, a header's clicks go ascending, descending, unsorted. */
  function sortBy(key, descending) {
    if (descending === undefined) {
      sort = sort.key !== key ? { key, descending: false } : sort.descending ? { key: null, descending: false } : { key, descending: true };
    } else {
      sort = { key, descending };
    }
    const activeIndex = order[active];
    arrange();
    active = activeIndex === undefined ? -1 : order.indexOf(activeIndex);
    for (const th of head.children) {
      th.setAttribute("aria-sort", th.dataset.key === sort.key ? (sort.descending ? "descending" : "ascending") : "none");
    }
    if (active >= 0) {
      moveTo(active, { select: false }); // the active row stays in view
    } else {
      scroller.scrollTop = 0;
      draw();
    }
  }

  function arrange() {
    order = rows.map((_, i) => i);
    if (sort.key) {
      const { key, descending } = sort;
      const value = (i) => rows[i][key] ?? "";
      order.sort((a, b) => {
        const c = collator.compare(String(value(a)), String(value(b)));
        return (descending ? -c : c) || a - b;
      });
    }
  }

  function draw() {
    frame = 0;
    const total = order.length;
    table.setAttribute("aria-rowcount", String(total + 1));
    const top = Math.max(0, Math.floor(scroller.scrollTop / rowHeight) - OVERSCAN);
    const visible = Math.ceil(scroller.clientHeight / rowHeight) + 2 * OVERSCAN;
    const end = Math.min(total, top + visible);
    const fragment = document.createDocumentFragment();
    fragment.append(spacer(top * rowHeight));
    for (let position = top; position < end; position++) {
      fragment.append(line(position));
    }
    fragment.append(spacer((total - end) * rowHeight));
    body.replaceChildren(fragment);
    // The rows' real height (borders included), from the rows drawn: once, and again after a
    // resize (reading it forces a layout, which typing into a large job should not pay for).
    const drawn = measured ? [] : body.querySelectorAll("tr[data-index]");
    if (drawn.length > 1) {
      measured = true;
      const height = (drawn[drawn.length - 1].getBoundingClientRect().bottom - drawn[0].getBoundingClientRect().top) / drawn.length;
      if (Math.abs(height - rowHeight) > 0.01) {
        rowHeight = height;
        draw();
        return;
      }
    }
    const activeRow = active >= top && active < end ? body.querySelector(`#row-${order[active]}`) : null;
    if (activeRow) {
      table.setAttribute("aria-activedescendant", activeRow.id);
    } else {
      table.removeAttribute("aria-activedescendant");
    }
  }

  function spacer(height) {
    const tr = document.createElement("tr");
    tr.className = "spacer";
    tr.setAttribute("aria-hidden", "true");
    tr.style.height = `${height}px`;
    return tr;
  }

  function line(position) {
    const index = order[position];
    const row = rows[index];
    const tr = document.createElement("tr");
    tr.id = `row-${index}`;
    tr.dataset.index = String(index);
    tr.setAttribute("aria-rowindex", String(position + 2));
    tr.setAttribute("aria-selected", String(index === selected));
    if (position === active) {
      tr.classList.add("active");
    }
    for (const column of COLUMNS) {
      const td = document.createElement("td");
      const value = row[column.key];
      td.textContent = value === undefined || value === null ? "" : String(value);
      if (column.numeric) {
        td.className = "num";
      }
      if (column.key === "name") {
        td.title = td.textContent;
      }
      tr.append(td);
    }
    return tr;
  }

  function schedule() {
    frame ||= requestAnimationFrame(draw);
  }

  function moveTo(position, { select = true } = {}) {
    if (order.length === 0) {
      return;
    }
    active = Math.max(0, Math.min(order.length - 1, position));
    const y = active * rowHeight;
    const headHeight = table.tHead.offsetHeight;
    if (y < scroller.scrollTop) {
      scroller.scrollTop = y;
    } else if (y + rowHeight > scroller.scrollTop + scroller.clientHeight - headHeight) {
      scroller.scrollTop = y + rowHeight - scroller.clientHeight + headHeight;
    }
    if (select) {
      selected = order[active];
      onSelect(selected);
    }
    draw();
  }

  scroller.addEventListener("scroll", schedule, { passive: true });
  new ResizeObserver(() => {
    measured = false;
    schedule();
  }).observe(scroller);

  body.addEventListener("click", (event) => {
    const tr = event.target.closest("tr[data-index]");
    if (tr) {
      table.focus({ preventScroll: true });
      moveTo(order.indexOf(Number(tr.dataset.index)));
    }
  });

  table.addEventListener("keydown", (event) => {
    const page = Math.max(1, Math.floor(scroller.clientHeight / rowHeight) - 2);
    const moves = {
      ArrowDown: active + 1,
      ArrowUp: active - 1,
      PageDown: active + page,
      PageUp: active - page,
      Home: 0,
      End: order.length - 1,
    };
    if (event.key in moves) {
      event.preventDefault();
      moveTo(active < 0 && event.key.startsWith("Arrow") ? 0 : moves[event.key]);
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      moveTo(Math.max(active, 0));
    }
  });

  return {
    /**
     * Shows new rows; the selection stays on the object of the same kind and name, or else (the
     * job was renamed) of the same kind, type and rank.
     */
    setRows(next) {
      const old = rows[selected];
      rows = next;
      arrange();
      selected = -1;
      if (old) {
        selected = rows.findIndex((r) => r.kind === old.kind && r.name === old.name);
        if (selected < 0 && old.replicaType) {
          selected = rows.findIndex((r) => r.kind === old.kind && r.replicaType === old.replicaType && r.rank === old.rank);
        }
      }
      active = selected >= 0 ? order.indexOf(selected) : -1;
      draw();
      return selected;
    },
    /** Selects the row of index `index` (in the core's order) and scrolls it into view. */
    select(index) {
      moveTo(order.indexOf(index));
    },
    get selected() {
      return selected;
    },
    get sort() {
      return sort;
    },
    sortBy,
  };
}
