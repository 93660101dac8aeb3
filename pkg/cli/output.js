// What the commands print: YAML, JSON, the summary table, and a problem as one line. Text that comes
// from a file or a cluster object (names, messages, event text) reaches a terminal only through
// `cell` or `lines`: its control characters are shown as `\xNN`, so nothing a user writes into an
// object can move the cursor, retitle the window or rewrite what an admin reads.
import { Document, visit } from "yaml";

// C0 controls, DEL and C1 controls (which some terminals act on in UTF-8 too).
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
const CONTROL_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g;
const C1 = /[\u0080-\u009f]/;
const hex = (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`;

/** One value for one line or table cell: every control character (newline and tab too) as `\xNN`. */
export function cell(value) {
  return String(value).replace(CONTROL, hex);
}

/** Text of one or more lines: every control character but the newline as `\xNN`. */
export function lines(text) {
  return String(text).replace(CONTROL_BUT_NEWLINE, hex);
}

/**
 * YAML that YAML 1.1 readers (kubectl) read back the same: strings such as `yes`, `on` or `0777`
 * are quoted. The writer escapes C0 controls but not C1 ones, which YAML does not count printable
 * either: a string holding one is double-quoted, where `\xNN` is its escape.
 */
export function toYaml(value) {
  const doc = new Document(value, { version: "1.1" });
  let c1 = false;
  visit(doc, {
    Scalar(_, node) {
      if (typeof node.value === "string" && C1.test(node.value)) {
        node.type = "QUOTE_DOUBLE";
        c1 = true;
      }
    },
  });
  const text = doc.toString({ lineWidth: 0, directives: false });
  return c1 ? text.replace(/[\u0080-\u009f]/g, hex) : text;
}

/**
 * JSON text for a terminal: JSON writers (JSON.stringify, the core's serde_json) escape C0 controls
 * but write C1 ones as they are; here those are `\u0080`..`\u009f` escapes, the same JSON value.
 */
export function jsonText(text) {
  return text.replace(/[\u0080-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** Indented JSON and a newline, for a terminal (`jsonText`). */
export function toJson(value) {
  return `${jsonText(JSON.stringify(value, null, 2))}\n`;
}

/** The rows of the core's `summary` as a table with a header, one line a row. */
export function table(rows) {
  const header = ["KIND", "NAME", "TYPE", "RANK", "CPU", "MEMORY", "TF_CONFIG TASK"];
  const cells = rows.map((r) => [r.kind, r.name, r.replicaType, r.rank, r.cpu, r.memory, r.task].map((c) => (c === undefined ? "-" : cell(c))));
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i].length)));
  return [header, ...cells].map((r) => `${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join("  ")}\n`).join("");
}

/** `FILE: PATH: MESSAGE`, or `FILE: MESSAGE` for a problem of the whole input. */
export function problemLine(file, problem) {
  return problem.path === "" ? `${cell(file)}: ${cell(problem.message)}` : `${cell(file)}: ${cell(problem.path)}: ${cell(problem.message)}`;
}
