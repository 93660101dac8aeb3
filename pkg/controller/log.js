// Structured logs: one JSON object a line, `{time, level, msg, ...fields}`, the fields of a child
// logger (the job, the action) first after the message. Lines below the logger's level are dropped.
// A line quotes names and messages from cluster objects: it is written as the CLI writes JSON for a
// terminal (jsonText), C1 controls and the invisible characters that reorder text escaped.
import { jsonText } from "../cli/output.js";

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 };

/** The levels a logger takes, lowest first. */
export const LOG_LEVELS = Object.keys(LEVELS);

export class Logger {
  /**
   * @param {{write(text: string): unknown}} out where the lines go
   * @param {{level?: string, fields?: object, clock?: () => Date}} [options]
   */
  constructor(out, { level = "info", fields = {}, clock = () => new Date() } = {}) {
    if (!(level in LEVELS)) {
      throw new Error(`unknown log level \`${level}\`: one of ${LOG_LEVELS.join(", ")}`);
    }
    this.out = out;
    this.level = level;
    this.fields = fields;
    this.clock = clock;
  }

  /** A logger that adds `fields` to every line. */
  child(fields) {
    return new Logger(this.out, { level: this.level, fields: { ...this.fields, ...fields }, clock: this.clock });
  }

  debug(msg, fields) {
    this.write("debug", msg, fields);
  }

  info(msg, fields) {
    this.write("info", msg, fields);
  }

  warn(msg, fields) {
    this.write("warn", msg, fields);
  }

  error(msg, fields) {
    this.write("error", msg, fields);
  }

  write(level, msg, fields = {}) {
    if (LEVELS[level] < LEVELS[this.level]) {
      return;
    }
    const line = { time: this.clock().toISOString(), level, msg, ...this.fields };
    for (const [key, value] of Object.entries(fields)) {
      line[key] = value instanceof Error ? errorFields(value) : value;
    }
    this.out.write(`${jsonText(JSON.stringify(line))}\n`);
  }
}

/** What a log line says of an error: its message, and the code and problems it carries. */
function errorFields(e) {
  const fields = { message: e.message };
  for (const key of ["name", "code", "status", "reason"]) {
    if (e[key] !== undefined && !(key === "name" && e[key] === "Error")) {
      fields[key] = e[key];
    }
  }
  if (Array.isArray(e.errors)) {
    fields.errors = e.errors;
  }
  return fields;
}
