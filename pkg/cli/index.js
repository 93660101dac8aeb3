// The `elasticjob` command as a function: `main(argv, io)` runs one command line against the given
// standard input and outputs and resolves to its exit status. This module holds the command table,
// the parsing of arguments and the usage texts; each command is a module of its own (render.js,
// validate.js, tf-config.js, plan.js, controller.js), reading is input.js and formatting output.js. bin/elasticjob.js
// calls it with the process's streams.
//
// A command is `{name, usage, about, help, options, positionals: [min, max], run}`, where `options`
// are node:util parseArgs options and `run(positionals, values, io)` resolves to an exit status or
// throws a UsageError (exit 2) or an InputError (exit 1).
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import controller from "./controller.js";
import { EXIT, InputError, UsageError } from "./errors.js";
import plan from "./plan.js";
import render from "./render.js";
import tfConfig from "./tf-config.js";
import validate from "./validate.js";

export { EXIT };

const COMMANDS = new Map([render, validate, tfConfig, plan, controller].map((c) => [c.name, c]));

const INPUT = `FILE is YAML (an ElasticJob and a ScalePlan may share a file as two documents) or JSON;
\`-\` reads standard input.`;

const USAGE = `Usage: elasticjob COMMAND [OPTIONS]

Plans for elastic TensorFlow parameter-server jobs on Kubernetes (DLRover ElasticJob), computed by
the elasticjob core compiled to WebAssembly.

Commands:
${[...COMMANDS.values()].map((c) => `  ${c.usage}\n      ${c.about}`).join("\n")}

${INPUT}
Run \`elasticjob COMMAND --help\` for the options of a command.
Exit status: 0 success, 1 invalid input, 2 wrong usage.`;

/**
 * Runs one command line (`argv` without the program name) with the standard input and outputs of
 * `io` (`{stdin?, stdout, stderr, cwd?, readFile?}`, see cli/index.d.ts); resolves to the exit
 * status. Errors other than wrong usage and invalid input are bugs and reject.
 */
export async function main(argv, io) {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr.write(`${USAGE}\n`);
    return EXIT.usage;
  }
  if (name === "--help" || name === "-h" || name === "help") {
    const command = COMMANDS.get(rest[0]);
    if (rest.length > 0 && command === undefined) {
      return usageError(io, `unknown command \`${rest[0]}\``);
    }
    io.stdout.write(`${command ? commandHelp(command) : USAGE}\n`);
    return EXIT.ok;
  }
  if (name === "--version" || name === "-V") {
    const pkg = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8"));
    io.stdout.write(`${pkg.version}\n`);
    return EXIT.ok;
  }
  const command = COMMANDS.get(name);
  if (command === undefined) {
    return usageError(io, `unknown command \`${name}\``);
  }
  try {
    const { values, positionals } = parseCommand(command, rest);
    if (values.help) {
      io.stdout.write(`${commandHelp(command)}\n`);
      return EXIT.ok;
    }
    return await command.run(positionals, values, io);
  } catch (e) {
    if (e instanceof UsageError) {
      return usageError(io, e.message, command);
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
    throw new UsageError(max === 0 ? `no argument expected, got ${parsed.positionals.join(" ")}` : `one FILE expected, got ${count}: ${parsed.positionals.join(" ")}`);
  }
  return parsed;
}

function commandHelp(command) {
  // FILE is explained to the commands that read one.
  return `Usage: elasticjob ${command.usage}\n\n${command.help}${command.positionals[1] > 0 ? `\n\n${INPUT}` : ""}`;
}

function usageError(io, message, command) {
  const usage = command ? `Usage: elasticjob ${command.usage}` : "Usage: elasticjob COMMAND [OPTIONS]";
  io.stderr.write(`elasticjob: ${message}\n${usage}\nRun \`elasticjob ${command ? `${command.name} ` : ""}--help\` for more.\n`);
  return EXIT.usage;
}
