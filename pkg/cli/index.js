// The `elasticjob` command as a function: `main(argv, io)` runs one command line against the given
// standard input and outputs and resolves to its exit status. This module holds the command table,
// the parsing of arguments and the usage texts; each command is a module of its own (render.js,
// validate.js, tf-config.js, plan.js, convert.js, status.js, controller.js), reading is input.js and formatting output.js.
// bin/elasticjob.js calls it with the process's streams; bin/kubectl-elasticjob.js (the kubectl
// plugin) calls it with `{program: "kubectl elasticjob"}` for its usage texts. A command that
// reads FILEs takes them as arguments or, as kubectl does, with -f/--filename.
//
// A command is `{name, usage, about, help, options, positionals: [min, max], run}`, where `options`
// are node:util parseArgs options and `run(positionals, values, io, {program})` resolves to an exit
// status or throws a UsageError (exit 2) or an InputError (exit 1); `program` is the command's name
// as the user typed it, for the lines that tell them what to run next.
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import controller from "./controller.js";
import convert from "./convert.js";
import { EXIT, InputError, UsageError } from "./errors.js";
import { cell } from "./output.js";
import plan from "./plan.js";
import render from "./render.js";
import status from "./status.js";
import tfConfig from "./tf-config.js";
import validate from "./validate.js";

export { EXIT };

const COMMANDS = new Map([render, validate, tfConfig, plan, convert, status, controller].map((c) => [c.name, c]));

const INPUT = `FILE is YAML (an ElasticJob and a ScalePlan may share a file as two documents) or JSON;
a top-level array is a list of documents, and a List (kubectl get -o json) or an API server's list
response holds one object per item. \`-\` reads standard input. It may also be given as -f FILE
(--filename), as kubectl takes it.`;

const usageText = (program) => `Usage: ${program} COMMAND [OPTIONS]

Plans for elastic TensorFlow parameter-server jobs on Kubernetes (DLRover ElasticJob), computed by
the elasticjob core compiled to WebAssembly.

Commands:
${[...COMMANDS.values()].map((c) => `  ${c.usage}\n      ${c.about}`).join("\n")}

${INPUT}
Run \`${program} COMMAND --help\` for the options of a command.
Exit status: 0 success, 1 invalid input, 2 wrong usage.`;

/**
 * Runs one command line (`argv` without the program name) with the standard input and outputs of
 * `io` (`{stdin?, stdout, stderr, cwd?, readFile?}`, see cli/index.d.ts); resolves to the exit
 * status. Errors other than wrong usage and invalid input are bugs and reject.
 */
export async function main(argv, io, { program = "elasticjob" } = {}) {
  const USAGE = usageText(program);
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr.write(`${USAGE}\n`);
    return EXIT.usage;
  }
  if (name === "--help" || name === "-h" || name === "help") {
    const command = COMMANDS.get(rest[0]);
    if (rest.length > 0 && command === undefined) {
      return usageError(io, program, `unknown command \`${rest[0]}\``);
    }
    io.stdout.write(`${command ? commandHelp(program, command) : USAGE}\n`);
    return EXIT.ok;
  }
  if (name === "--version" || name === "-V") {
    const pkg = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8"));
    io.stdout.write(`${pkg.version}\n`);
    return EXIT.ok;
  }
  const command = COMMANDS.get(name);
  if (command === undefined) {
    return usageError(io, program, `unknown command \`${name}\``);
  }
  try {
    const { values, positionals } = parseCommand(command, rest);
    if (values.help) {
      io.stdout.write(`${commandHelp(program, command)}\n`);
      return EXIT.ok;
    }
    return await command.run(positionals, values, io, { program });
  } catch (e) {
    if (e instanceof UsageError) {
      return usageError(io, program, e.message, command);
    }
    if (e instanceof InputError) {
      io.stderr.write(`${e.message}\n`);
      return EXIT.invalid;
    }
    throw e;
  }
}

function parseCommand(command, args) {
  let parsed;
  const files = command.usage.includes("FILE") ? { filename: { type: "string", short: "f", multiple: true } } : {};
  try {
    parsed = parseArgs({
      args,
      options: { ...command.options, ...files, help: { type: "boolean", short: "h" } },
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
  // -f FILE is a FILE argument (before the others).
  parsed.positionals.unshift(...(parsed.values.filename ?? []));
  delete parsed.values.filename;
  const [min, max] = command.positionals;
  const count = parsed.positionals.length;
  if (count < min) {
    throw new UsageError(command.name === "status" ? "NAME is missing" : "FILE is missing");
  }
  if (count > max) {
    throw new UsageError(max === 0 ? `no argument expected, got ${parsed.positionals.join(" ")}` : `one FILE expected, got ${count}: ${parsed.positionals.join(" ")}`);
  }
  return parsed;
}

function commandHelp(program, command) {
  // FILE is explained to the commands that read one.
  const reads = command.positionals[1] > 0 && command.usage.includes("FILE");
  return `Usage: ${program} ${command.usage}\n\n${command.help}${reads ? `\n\n${INPUT}` : ""}`;
}

function usageError(io, program, message, command) {
  const usage = command ? `Usage: ${program} ${command.usage}` : `Usage: ${program} COMMAND [OPTIONS]`;
  io.stderr.write(`${program}: ${cell(message)}\n${usage}\nRun \`${program} ${command ? `${command.name} ` : ""}--help\` for more.\n`);
  return EXIT.usage;
}
