// What the commands print: YAML, JSON, the summary table, and a problem as one line.
import { Document } from "yaml";

/**
 * YAML that YAML 1.1 readers (kubectl) read back the same: strings such as `yes`, `on` or `0777`
 * are quoted.
 */
export function toYaml(value) {
  return new Document(value, { version: "1.1" }).toString({ lineWidth: 0, directives: false });
}

/** Indented JSON and a newline. */
export function toJson(value) {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** The rows of the core's `summary` as a table with a header, one line a row. */
export function table(rows) {
  const header = ["KIND", "NAME", "TYPE", "RANK", "CPU", "MEMORY", "TF_CONFIG TASK"];
  const cells = rows.map((r) => [r.kind, r.name, r.replicaType, r.rank, r.cpu, r.memory, r.task].map((c) => (c === undefined ? "-" : String(c))));
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i].length)));
  return [header, ...cells].map((r) => `${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join("  ")}\n`).join("");
}

/** `FILE: PATH: MESSAGE`, or `FILE: MESSAGE` for a problem of the whole input. */
export function problemLine(file, problem) {
  return problem.path === "" ? `${file}: ${problem.message}` : `${file}: ${problem.path}: ${problem.message}`;
}
