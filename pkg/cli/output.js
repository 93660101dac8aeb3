// What the commands print: YAML, JSON, the summary table, and a problem as one line. Text that comes
// from a file or a cluster object (names, messages, event text) reaches a terminal only through
// `cell` or `lines`: its control characters are shown as `\xNN`, and the invisible characters that
// reorder or hide text as `\uNNNN`, so nothing a user writes into an object can move the cursor,
// retitle the window or make what an admin reads say other than it does.
import { Document, visit } from "yaml";

// Invisible characters that change how a line reads without showing: the bidirectional embeddings,
// overrides and isolates (U+202A..U+202E, U+2066..U+2069, the "Trojan Source" characters), the
// zero-width space, joiners and direction marks (U+200B..U+200F), the byte order mark (U+FEFF), and
// the line and paragraph separators (U+2028, U+2029), which some terminals and editors break lines at.
const INVISIBLE = "\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff";
// C0 controls, DEL and C1 controls (which some terminals act on in UTF-8 too), and the invisible ones.
const CONTROL = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${INVISIBLE}]`, "g");
const CONTROL_BUT_NEWLINE = new RegExp(`[\\u0000-\\u0009\\u000b-\\u001f\\u007f-\\u009f${INVISIBLE}]`, "g");
// What neither the YAML nor the JSON writer escapes: C1 controls and the invisible characters.
const UNESCAPED = new RegExp(`[\\u0080-\\u009f${INVISIBLE}]`, "g");
const code = (c, width) => c.charCodeAt(0).toString(16).padStart(width, "0");
const hex = (c) => (c.charCodeAt(0) > 0xff ? `\\u${code(c, 4)}` : `\\x${code(c, 2)}`);

/** One value for one line or table cell: every control character (newline and tab too) as `\xNN`, every invisible one as `\uNNNN`. */
export function cell(value) {
  return String(value).replace(CONTROL, hex);
}

/** Text of one or more lines: every control character but the newline as `\xNN`, every invisible one as `\uNNNN`. */
export function lines(text) {
  return String(text).replace(CONTROL_BUT_NEWLINE, hex);
}

/**
 * YAML that YAML 1.1 readers (kubectl) read back the same: strings such as `yes`, `on` or `0777`
 * are quoted. The writer escapes C0 controls but not C1 ones or the invisible ones, which YAML
 * does not count printable either (or, for U+2028 and U+2029, reads as line breaks): a string
 * holding one is double-quoted, where `\xNN` and `\uNNNN` are its escapes.
 */
export function toYaml(value) {
  const doc = new Document(value, { version: "1.1" });
  let unescaped = false;
  visit(doc, {
    Scalar(_, node) {
      if (typeof node.value === "string" && node.value.search(UNESCAPED) >= 0) {
        node.type = "QUOTE_DOUBLE";
        unescaped = true;
      }
    },
  });
  const text = doc.toString({ lineWidth: 0, directives: false });
  return unescaped ? text.replace(UNESCAPED, hex) : text;
}

/**
 * JSON text for a terminal: JSON writers (JSON.stringify, the core's serde_json) escape C0 controls
 * but write C1 ones and the invisible ones as they are; here those are `\uNNNN` escapes, the same
 * JSON value.
 */
export function jsonText(text) {
  return text.replace(UNESCAPED, (c) => `\\u${code(c, 4)}`);
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
