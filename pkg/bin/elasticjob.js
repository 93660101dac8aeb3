#!/usr/bin/env node
// The `elasticjob` command: render, validate, tf-config and plan, computed by the WebAssembly core
// of this package. It reads files (YAML, several documents per file, or JSON; `-` is standard
// input), calls the core and prints; it starts no other program.
//
// Exit status: 0 success, 1 invalid input (a parse error, a problem the core reports), 2 wrong usage
// (an unknown command or option, a missing argument, a file that cannot be read).
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { Document, parseAllDocuments } from "yaml";
import { ElasticJobError, reconcile, render, summary, tfConfig, validate, validateScalePlan } from "../node.js";

const INPUT = `FILE is YAML (an ElasticJob and a ScalePlan may share a file as two documents) or JSON;
\`-\` reads standard input.`;

const COMMANDS = {
  render: {
    usage: "render FILE [--scale-plan FILE] [-o yaml|json|summary]",
    about: "every object the job will have, as a Kubernetes List",
    help: `Prints every object the job will have (the master pod and service, then each task's pod and
service) as a Kubernetes List (apiVersion: v1, kind: List) for \`kubectl apply -f -\`.

Options:
  --scale-plan FILE   the ScalePlan to render (default: a ScalePlan document in FILE, else the
                      job's first plan)
  -o, --output FORMAT yaml (default), json, or summary: a table of kind, name, replica type,
                      rank, CPU and memory requests, and TF_CONFIG task`,
    options: { "scale-plan": { type: "string" }, output: { type: "string", short: "o" } },
    positionals: [1, 1],
    run: runRender,
  },
  validate: {
    usage: "validate FILE...",
    about: "check ElasticJobs and ScalePlans",
    help: `Checks every ElasticJob and ScalePlan document of each FILE. Prints \`FILE: valid\`, or one
\`FILE: PATH: MESSAGE\` line per problem (a syntax error: \`FILE:LINE:COLUMN: MESSAGE\`).
Exits 1 when any FILE is invalid.`,
    options: {},
    positionals: [1, Infinity],
    run: runValidate,
  },
  "tf-config": {
    usage: "tf-config FILE --type TYPE --index N [--scale-plan FILE]",
    about: "the TF_CONFIG of one task",
    help: `Prints the TF_CONFIG JSON of one task: exactly the env value its pod gets.

Options:
  --type TYPE         ps, worker, chief or evaluator
  --index N           the task's rank
  --scale-plan FILE   the ScalePlan in force (default: a ScalePlan document in FILE, else the
                      job's first plan)`,
    options: { type: { type: "string" }, index: { type: "string" }, "scale-plan": { type: "string" } },
    positionals: [1, 1],
    run: runTfConfig,
  },
  plan: {
    usage: "plan FILE [--scale-plan FILE] --pods FILE [--now RFC3339]",
    about: "one pass of the job controller, as JSON",
    help: `Prints the plan of one pass of the job controller over the job (with its status) in FILE, the
ScalePlan and the observed pods, as JSON: the actions to carry out, in order.

Options:
  --scale-plan FILE   the job's ScalePlan (default: a ScalePlan document in FILE, else none: the
                      job's first plan)
  --pods FILE         the observed pods: a list of pods, a List (\`kubectl get pods -o yaml\`),
                      or one pod per document
  --now RFC3339       the time of the pass, e.g. 2026-01-02T03:04:05Z (default: now)`,
    options: { "scale-plan": { type: "string" }, pods: { type: "string" }, now: { type: "string" } },
    positionals: [1, 1],
    run: runPlan,
  },
};

const USAGE = `Usage: elasticjob COMMAND [OPTIONS]

Plans for elastic TensorFlow parameter-server jobs on Kubernetes (DLRover ElasticJob), computed by
the elasticjob core compiled to WebAssembly.

Commands:
${Object.values(COMMANDS)
  .map((c) => `  ${c.usage}\n      ${c.about}`)
  .join("\n")}

${INPUT}
Run \`elasticjob COMMAND --help\` for the options of a command.
Exit status: 0 success, 1 invalid input, 2 wrong usage.`;

/** Wrong usage: exit 2. */
class UsageError extends Error {}

/** Input the command cannot use, already worded for people (one line per problem): exit 1. */
class InputError extends Error {
  constructor(lines) {
    super(lines.join("\n"));
    this.lines = lines;
  }
}

function main(argv) {
  const [name, ...rest] = argv;
  if (name === undefined) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  if (name === "--help" || name === "-h" || name === "help") {
    const command = lookup(rest[0]);
    if (rest.length > 0 && command === undefined) {
      return usageError(`unknown command \`${rest[0]}\``);
    }
    process.stdout.write(`${command ? commandHelp(command) : USAGE}\n`);
    return 0;
  }
  if (name === "--version" || name === "-V") {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    process.stdout.write(`${pkg.version}\n`);
    return 0;
  }
  const command = lookup(name);
  if (command === undefined) {
    return usageError(`unknown command \`${name}\``);
  }
  try {
    const { values, positionals } = parseCommand(command, rest);
    if (values.help) {
      process.stdout.write(`${commandHelp(command)}\n`);
      return 0;
    }
    return command.run(positionals, values);
  } catch (e) {
    if (e instanceof UsageError) {
      return usageError(e.message, command);
    }
    if (e instanceof InputError) {
      process.stderr.write(`${e.message}\n`);
      return 1;
    }
    throw e;
  }
}

function lookup(name) {
  return name !== undefined && Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
}

function parseCommand(command, args) {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { ...command.options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    // node:util reports unknown options and missing option values as TypeErrors with a code.
    if (typeof e?.code === "string" && e.code.startsWith("ERR_PARSE_ARGS")) {
      throw new UsageError(e.message);
    }
    throw e;
  }
  if (parsed.values.help) {
    return parsed;
  }
  const [min, max] = command.positionals;
  const count = parsed.positionals.length;
  if (count < min) {
    throw new UsageError("FILE is missing");
  }
  if (count > max) {
    throw new UsageError(`one FILE expected, got ${count}: ${parsed.positionals.join(" ")}`);
  }
  return parsed;
}

function commandHelp(command) {
  return `Usage: elasticjob ${command.usage}\n\n${command.help}\n\n${INPUT}`;
}

function usageError(message, command) {
  const usage = command ? `Usage: elasticjob ${command.usage}` : "Usage: elasticjob COMMAND [OPTIONS]";
  process.stderr.write(`elasticjob: ${message}\n${usage}\nRun \`elasticjob ${command ? `${commandName(command)} ` : ""}--help\` for more.\n`);
  return 2;
}

function commandName(command) {
  return Object.keys(COMMANDS).find((k) => COMMANDS[k] === command);
}

// ---------------------------------------------------------------------------------------------
// Commands

function runRender([file], options) {
  const format = options.output ?? "yaml";
  if (!["yaml", "json", "summary"].includes(format)) {
    throw new UsageError(`-o takes yaml, json or summary, not \`${format}\``);
  }
  const inputs = new Inputs();
  const { job, scalePlan } = inputs.jobAndPlan(file, options["scale-plan"]);
  const list = inputs.call(() => render(job.value, scalePlan?.value));
  if (format === "json") {
    process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
  } else if (format === "summary") {
    process.stdout.write(table(summary(list)));
  } else {
    process.stdout.write(toYaml(list));
  }
  return 0;
}

function runValidate(files) {
  const inputs = new Inputs();
  let invalid = false;
  for (const file of files) {
    let lines;
    try {
      const documents = inputs.documents(file);
      if (documents.length === 0) {
        lines = [`${file}: no ElasticJob or ScalePlan in the file`];
      } else {
        lines = documents.flatMap((document) => {
          const check = isScalePlan(document.value) ? validateScalePlan : validate;
          const result = check(document.value);
          return result.valid ? [] : result.error.errors.map((p) => problemLine(file, p));
        });
      }
    } catch (e) {
      if (!(e instanceof InputError)) {
        throw e;
      }
      lines = e.lines;
    }
    invalid ||= lines.length > 0;
    process.stdout.write(lines.length === 0 ? `${file}: valid\n` : `${lines.join("\n")}\n`);
  }
  return invalid ? 1 : 0;
}

function runTfConfig([file], options) {
  if (options.type === undefined) {
    throw new UsageError("--type TYPE is missing");
  }
  if (options.index === undefined) {
    throw new UsageError("--index N is missing");
  }
  if (!/^[0-9]+$/.test(options.index)) {
    throw new UsageError(`--index takes a whole number, not \`${options.index}\``);
  }
  const inputs = new Inputs();
  const { job, scalePlan } = inputs.jobAndPlan(file, options["scale-plan"]);
  const value = inputs.call(() => tfConfig(job.value, options.type, Number(options.index), scalePlan?.value));
  process.stdout.write(`${value}\n`);
  return 0;
}

function runPlan([file], options) {
  if (options.pods === undefined) {
    throw new UsageError("--pods FILE is missing");
  }
  const inputs = new Inputs();
  const { job, scalePlan } = inputs.jobAndPlan(file, options["scale-plan"]);
  const documents = inputs.documents(options.pods);
  inputs.podsFile = options.pods;
  // One document holds the list (or a List); several documents are one pod each.
  const pods = documents.length === 1 ? documents[0].value : documents.map((d) => d.value);
  const now = options.now ?? new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace(".000Z", "Z");
  const plan = inputs.call(() => reconcile(job.value, scalePlan?.value, pods, now));
  process.stdout.write(`${JSON.stringify(plan, null, 2)}\n`);
  return 0;
}

// ---------------------------------------------------------------------------------------------
// Input

/** The files of one command: each read once, standard input at most once. */
class Inputs {
  constructor() {
    this.stdinUsed = false;
    this.jobFile = undefined;
    this.scalePlanFile = undefined;
    this.podsFile = undefined;
  }

  /** The documents of a file that are not empty, as plain values. */
  documents(file) {
    const text = this.read(file);
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

  read(file) {
    if (file === "-") {
      if (this.stdinUsed) {
        throw new UsageError("`-` (standard input) can be given once");
      }
      this.stdinUsed = true;
    }
    try {
      return readFileSync(file === "-" ? 0 : file, "utf8");
    } catch (e) {
      const reason = { ENOENT: "no such file", EACCES: "permission denied", EISDIR: "a directory" }[e.code];
      throw new UsageError(`cannot read ${file === "-" ? "standard input" : file}: ${reason ?? e.message}`);
    }
  }

  /** The one ElasticJob of `file`, and the ScalePlan of `file` or `planFile` if any. */
  jobAndPlan(file, planFile) {
    const documents = this.documents(file);
    if (planFile !== undefined) {
      documents.push(...this.documents(planFile));
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

  /** Runs a core function; its problems become lines naming the file each argument came from. */
  call(f) {
    try {
      return f();
    } catch (e) {
      if (!(e instanceof ElasticJobError)) {
        throw e;
      }
      const flag = { replicaType: "--type", index: "--index", now: "--now" };
      const usage = e.errors.find((p) => Object.hasOwn(flag, p.path));
      if (usage !== undefined) {
        throw new UsageError(`${flag[usage.path]}: ${usage.message}`);
      }
      throw new InputError(e.errors.map((p) => problemLine(this.fileOf(p.path), p)));
    }
  }

  fileOf(path) {
    if (/^scalePlan\b/.test(path) && this.scalePlanFile !== undefined) {
      return this.scalePlanFile;
    }
    if (/^pods\b/.test(path) && this.podsFile !== undefined) {
      return this.podsFile;
    }
    return this.jobFile;
  }
}

function isScalePlan(value) {
  return typeof value === "object" && value !== null && value.kind === "ScalePlan";
}

function problemLine(file, problem) {
  return problem.path === "" ? `${file}: ${problem.message}` : `${file}: ${problem.path}: ${problem.message}`;
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

// ---------------------------------------------------------------------------------------------
// Output

/**
 * YAML that YAML 1.1 readers (kubectl) read back the same: strings such as `yes`, `on` or `0777`
 * are quoted.
 */
function toYaml(value) {
  return new Document(value, { version: "1.1" }).toString({ lineWidth: 0, directives: false });
}

function table(rows) {
  const header = ["KIND", "NAME", "TYPE", "RANK", "CPU", "MEMORY", "TF_CONFIG TASK"];
  const cells = rows.map((r) => [r.kind, r.name, r.replicaType, r.rank, r.cpu, r.memory, r.task].map((c) => (c === undefined ? "-" : String(c))));
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i].length)));
  return [header, ...cells].map((r) => `${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join("  ")}\n`).join("");
}

process.stdout.on("error", (e) => {
  // `elasticjob render job.yaml | head`: the reader left; stop quietly.
  if (e.code === "EPIPE") {
    process.exit(process.exitCode ?? 0);
  }
  throw e;
});

process.exitCode = main(process.argv.slice(2));
