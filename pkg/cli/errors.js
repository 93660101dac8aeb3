// The exit statuses of the `elasticjob` command, and the two errors that end a command early.
import { lines as terminalLines } from "./output.js";

/** Exit statuses: success, invalid input (a parse error, a problem the core reports), wrong usage. */
export const EXIT = Object.freeze({ ok: 0, invalid: 1, usage: 2 });

/** Wrong usage (an unknown option, a missing argument, a file that cannot be read): exit 2. */
export class UsageError extends Error {}

/**
 * Input the command cannot use, already worded for people (one line per problem; a syntax error
 * adds the lines it quotes): exit 1. They quote files and cluster objects, so their control
 * characters but the newline are escaped.
 */
export class InputError extends Error {
  constructor(lines) {
    const safe = lines.map(terminalLines);
    super(safe.join("\n"));
    this.lines = safe;
  }
}
