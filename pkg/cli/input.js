// The files of a command: read through the io given to `main` (`-` is its standard input), as YAML
// (several documents per file) or JSON, with the line and column of a syntax error; and the core's
// problems turned into lines naming the file each one is about. Objects come as people have them: a
// document of its own, a top-level array of them (what `jq` writes), or the `items` of a List
// (`kubectl get ... -o json`) or of an API server's list response (`PodList`, whose items carry no
// kind); an object without a kind is taken as its list's kind, else as the kind of the option that
// named its FILE (`--pods`, `--services`, `--scale-plan`).
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parseAllDocuments } from "yaml";
import { ElasticJobError, validate } from "../node.js";
import { InputError, UsageError } from "./errors.js";
import { cell, problemLine } from "./output.js";

const UNREADABLE = new Map([
  ["ENOENT", "no such file"],
  ["EACCES", "permission denied"],
  ["EISDIR", "a directory"],
]);

/** The core's argument names that come from an option rather than a file. */
const FLAGS = { replicaType: "--type", index: "--index", now: "--now", "options.gangSchedulerName": "--gang-scheduler-name" };

/** Whether the core takes `value` for a Kubeflow TFJob (its `tf_job` code). */
function isTfJob(value) {
  return validate(value).error?.errors.some((p) => p.code === "tf_job") ?? false;
}

/** The one line for a TFJob given where an ElasticJob belongs; `program` as the user runs it. */
export function tfJobLine(file, program = "elasticjob") {
  const word = /^[\w@%+=:,./-]+$/.test(file) ? file : `'${file.replaceAll("'", "'\\''")}'`;
  return `${cell(file)}: a Kubeflow TFJob, not an ElasticJob; \`${program} convert ${cell(word)}\` makes it an ElasticJob`;
}

/** The files of one command: each read once, standard input at most once. */
export class Inputs {
  constructor(io, { program = "elasticjob" } = {}) {
    this.io = io;
    this.program = program;
    this.stdinUsed = false;
    this.jobFile = undefined;
    this.scalePlanFile = undefined;
    this.podsFile = undefined;
    /** The file of each ScalePlan, pod and service given to `controllerPass`, by its index. */
    this.planFiles = [];
    this.podFiles = [];
    this.serviceFiles = [];
  }

  /**
   * The documents of a file that are not empty, as plain values; a document that is an array (a
   * top-level JSON array, a YAML sequence) is a list of documents, one per item.
   */
  async documents(file) {
    const text = await this.read(file);
    const json = parseJson(text, file);
    const values = [];
    if (json !== undefined) {
      values.push(json);
    } else {
      for (const document of parseAllDocuments(text, { prettyErrors: true, uniqueKeys: true })) {
        const error = document.errors[0];
        if (error !== undefined) {
          throw new InputError([syntaxLine(file, error)]);
        }
        values.push(document.toJS({ maxAliasCount: 100 }));
      }
    }
    return values.flatMap((v) => (Array.isArray(v) ? v : [v])).filter((v) => v !== null && v !== undefined).map((value) => ({ file, value }));
  }

  /**
   * The objects of a file, each `{file, value, kind}`: its documents, and the items of its Lists,
   * each of the kind it says, else of its list's kind (`PodList` items are pods), else `kind`.
   */
  async objectsOf(file, kind) {
    return (await this.documents(file)).flatMap(({ value }) => listed(value, kind).map((o) => ({ file, ...o })));
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

  /**
   * The one ElasticJob of `file`, and the ScalePlan of `file` or `planFile` if any (an object of
   * `planFile` without a kind is a ScalePlan).
   */
  async jobAndPlan(file, planFile) {
    const objects = await this.objectsOf(file, "ElasticJob");
    if (planFile !== undefined) {
      objects.push(...(await this.objectsOf(planFile, "ScalePlan")));
    }
    const jobs = objects.filter((o) => o.kind !== "ScalePlan");
    const plans = objects.filter((o) => o.kind === "ScalePlan");
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
   * the ScalePlans, pods and services. A file is a name, or `{file, kind}` for the FILE of an option
   * (`--pods FILE`: `{file, kind: "Pod"}`), whose objects without a kind are of that kind.
   */
  async objects(files) {
    const jobs = [];
    const plans = [];
    const pods = [];
    const services = [];
    const podGroups = [];
    const byKind = { ElasticJob: jobs, ScalePlan: plans, Pod: pods, Service: services, PodGroup: podGroups };
    const unknown = [];
    let tfJobs = 0;
    const names = files.map((f) => (typeof f === "string" ? f : f.file));
    for (const f of files) {
      const { file, kind } = typeof f === "string" ? { file: f } : f;
      for (const object of await this.objectsOf(file, kind)) {
        const list = byKind[object.kind];
        if (list !== undefined) {
          list.push({ file, value: object.value });
        } else if (isTfJob(object.value)) {
          tfJobs += 1;
          unknown.push(tfJobLine(file, this.program));
        } else if (object.kind === undefined) {
          unknown.push(`${file}: an object without a kind is not an ElasticJob, a ScalePlan, a Pod or a Service; give it a kind, or give the FILE as --pods FILE, --services FILE or --scale-plan FILE`);
        } else {
          unknown.push(`${file}: a ${object.kind} is not an ElasticJob, a ScalePlan, a Pod, a Service or a PodGroup`);
        }
      }
    }
    if (jobs.length !== 1 && !(jobs.length === 0 && tfJobs > 0)) {
      unknown.push(`${names.join(", ")}: ${jobs.length === 0 ? "no ElasticJob" : `${jobs.length} ElasticJobs; give the one job to plan`}`);
    }
    if (podGroups.length > 1) {
      unknown.push(`${podGroups.map((g) => g.file).join(", ")}: ${podGroups.length} PodGroups; give the job's one (named after it)`);
    }
    if (unknown.length > 0) {
      throw new InputError(unknown);
    }
    this.jobFile = jobs[0].file;
    this.podGroupFile = podGroups[0]?.file;
    this.planFiles = plans.map((p) => p.file);
    this.podFiles = pods.map((p) => p.file);
    this.serviceFiles = services.map((s) => s.file);
    return { job: jobs[0], plans, pods, services, podGroup: podGroups[0] };
  }

  /** Runs a core function; its problems become lines naming the file each argument came from. */
  call(f) {
    try {
      return f();
    } catch (e) {
      if (!(e instanceof ElasticJobError)) {
        throw e;
      }
      if (e.errors.some((p) => p.code === "tf_job")) {
        throw new InputError([tfJobLine(this.jobFile, this.program)]);
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
    if (/^podGroup\b/.test(path) && this.podGroupFile !== undefined) {
      return this.podGroupFile;
    }
    return this.jobFile;
  }
}

/**
 * A document as objects `{value, kind}`: the items of a List (`kind: List`, or an API server's
 * `PodList`, `ScalePlanList`, ...: an object with `items` whose kind is absent or ends in `List`),
 * else the document itself. Each is of the kind it says, else of its list's (`PodList`: `Pod`), else
 * `kind`.
 */
function listed(value, kind) {
  const isObject = typeof value === "object" && value !== null;
  const list = isObject && Array.isArray(value.items) && (value.kind === undefined || /List$/.test(value.kind));
  if (!list) {
    return [{ value, kind: (isObject ? value.kind : undefined) ?? kind }];
  }
  const itemKind = value.kind !== undefined && value.kind !== "List" ? value.kind.slice(0, -"List".length) : kind;
  return value.items.filter((v) => v !== null && v !== undefined).map((v) => ({ value: v, kind: (typeof v === "object" ? v.kind : undefined) ?? itemKind }));
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
