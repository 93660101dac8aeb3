// The files of a command: read through the io given to `main` (`-` is its standard input), as YAML
// (several documents per file) or JSON, with the line and column of a syntax error; and the core's
// problems turned into lines naming the file each one is about.
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parseAllDocuments } from "yaml";
import { ElasticJobError } from "../node.js";
import { InputError, UsageError } from "./errors.js";
import { problemLine } from "./output.js";

const UNREADABLE = new Map([
  ["ENOENT", "no such file"],
  ["EACCES", "permission denied"],
  ["EISDIR", "a directory"],
]);

/** The core's argument names that come from an option rather than a file. */
const FLAGS = { replicaType: "--type", index: "--index", now: "--now" };

/** The files of one command: each read once, standard input at most once. */
export class Inputs {
  constructor(io) {
    this.io = io;
    this.stdinUsed = false;
    this.jobFile = undefined;
    this.scalePlanFile = undefined;
    this.podsFile = undefined;
    /** The file of each ScalePlan, pod and service given to `controllerPass`, by its index. */
    this.planFiles = [];
    this.podFiles = [];
    this.serviceFiles = [];
  }

  /** The documents of a file that are not empty, as plain values. */
  async documents(file) {
    const text = await this.read(file);
    const json = parseJson(text, file);
    if (json !== undefined) {
      return json === null ? [] : [{ file, value: json }];
    }
    const documents = [];
    for (const document of parseAllDocuments(text, { prettyErrors: true, uniqueKeys: true })) {
      const error = document.errors[0];
      if (error !== undefined) {
        throw new InputError([syntaxLine(file, error)]);
      }
      const value = document.toJS({ maxAliasCount: 100 });
      if (value !== null && value !== undefined) {
        documents.push({ file, value });
      }
    }
    return documents;
  }

  async read(file) {
    if (file === "-") {
      if (this.stdinUsed) {
        throw new UsageError("`-` (standard input) can be given once");
      }
      this.stdinUsed = true;
    }
    try {
      return file === "-" ? await readStdin(this.io.stdin) : await this.readFile(file);
    } catch (e) {
      throw new UsageError(`cannot read ${file === "-" ? "standard input" : file}: ${UNREADABLE.get(e?.code) ?? e?.message ?? String(e)}`);
    }
  }

  readFile(file) {
    return this.io.readFile !== undefined ? this.io.readFile(file) : readFile(resolve(this.io.cwd ?? process.cwd(), file), "utf8");
  }

  /** The one ElasticJob of `file`, and the ScalePlan of `file` or `planFile` if any. */
  async jobAndPlan(file, planFile) {
    const documents = await this.documents(file);
    if (planFile !== undefined) {
      documents.push(...(await this.documents(planFile)));
    }
    const jobs = documents.filter((d) => !isScalePlan(d.value));
    const plans = documents.filter((d) => isScalePlan(d.value));
    if (jobs.length !== 1) {
      throw new InputError([`${file}: ${jobs.length === 0 ? "no ElasticJob" : `${jobs.length} ElasticJobs; give one`}`]);
    }
    if (plans.length > 1) {
      throw new InputError([`${plans.map((p) => p.file).join(", ")}: ${plans.length} ScalePlans; give one`]);
    }
    this.jobFile = jobs[0].file;
    this.scalePlanFile = plans[0]?.file;
    return { job: jobs[0], scalePlan: plans[0] };
  }

  /**
   * The objects of `files` for one controller pass, each with its file: exactly one ElasticJob, and
   * the ScalePlans, pods and services, as documents of their own or as the `items` of Lists.
   */
  async objects(files) {
    const jobs = [];
    const plans = [];
    const pods = [];
    const services = [];
    const byKind = { ElasticJob: jobs, ScalePlan: plans, Pod: pods, Service: services };
    const unknown = [];
    for (const file of files) {
      for (const document of await this.documents(file)) {
        const items = Array.isArray(document.value?.items) ? document.value.items : [document.value];
        for (const value of items) {
          const list = byKind[value?.kind];
          if (list === undefined) {
            unknown.push(`${file}: a ${value?.kind ?? "document without a kind"} is not an ElasticJob, a ScalePlan, a Pod or a Service`);
          } else {
            list.push({ file, value });
          }
        }
      }
    }
    if (jobs.length !== 1) {
      unknown.push(`${files.join(", ")}: ${jobs.length === 0 ? "no ElasticJob" : `${jobs.length} ElasticJobs; give the one job to plan`}`);
    }
    if (unknown.length > 0) {
      throw new InputError(unknown);
    }
    this.jobFile = jobs[0].file;
    this.planFiles = plans.map((p) => p.file);
    this.podFiles = pods.map((p) => p.file);
    this.serviceFiles = services.map((s) => s.file);
    return { job: jobs[0], plans, pods, services };
  }

  /** Runs a core function; its problems become lines naming the file each argument came from. */
  call(f) {
    try {
      return f();
    } catch (e) {
      if (!(e instanceof ElasticJobError)) {
        throw e;
      }
      const usage = e.errors.find((p) => Object.hasOwn(FLAGS, p.path));
      if (usage !== undefined) {
        throw new UsageError(`${FLAGS[usage.path]}: ${usage.message}`);
      }
      throw new InputError(e.errors.map((p) => problemLine(this.fileOf(p.path), p)));
    }
  }

  fileOf(path) {
    const listed = /^(scalePlans|pods|services)\[(\d+)\]/.exec(path);
    const files = { scalePlans: this.planFiles, pods: this.podFiles, services: this.serviceFiles };
    const file = listed && files[listed[1]][Number(listed[2])];
    if (file !== undefined && file !== null) {
      return file;
    }
    if (/^scalePlan\b/.test(path) && this.scalePlanFile !== undefined) {
      return this.scalePlanFile;
    }
    if (/^pods\b/.test(path) && this.podsFile !== undefined) {
      return this.podsFile;
    }
    return this.jobFile;
  }
}

export function isScalePlan(value) {
  return typeof value === "object" && value !== null && value.kind === "ScalePlan";
}

/** The whole of standard input as UTF-8 text: a string, bytes, or a stream of chunks. */
async function readStdin(stdin) {
  if (stdin === undefined) {
    throw new Error("none was given");
  }
  if (typeof stdin === "string") {
    return stdin;
  }
  if (stdin instanceof Uint8Array) {
    return Buffer.from(stdin.buffer, stdin.byteOffset, stdin.byteLength).toString("utf8");
  }
  const chunks = [];
  for await (const chunk of stdin) {
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * The value of a text that is JSON (it starts with `{` or `[`), or `undefined` for YAML. JSON is
 * read as JSON, so a syntax error is placed where JSON.parse stops.
 */
function parseJson(text, file) {
  if (!/^\s*[[{]/.test(text)) {
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    const at = /^(.*?)(?: in JSON)? at position (\d+)/.exec(e.message);
    if (at === null) {
      return undefined; // No position: let the YAML reader place the error.
    }
    const before = text.slice(0, Number(at[2]));
    const line = before.split("\n").length;
    const column = before.length - before.lastIndexOf("\n");
    throw new InputError([`${file}:${line}:${column}: ${at[1]}`, `  ${text.split("\n")[line - 1]}`, `  ${" ".repeat(column - 1)}^`]);
  }
}

/** `FILE:LINE:COLUMN: MESSAGE`, then the lines yaml quotes around the error. */
function syntaxLine(file, error) {
  const [first, ...context] = error.message.split("\n");
  const message = first.replace(/ at line \d+, column \d+:?$/, "");
  const at = error.linePos?.[0];
  const where = at ? `${file}:${at.line}:${at.col}` : file;
  const quoted = context.filter((l) => l.trim() !== "").map((l) => `  ${l}`);
  return [`${where}: ${message}`, ...quoted].join("\n");
}
