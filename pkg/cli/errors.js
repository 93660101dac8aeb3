// The exit statuses of the `elasticjob` command, and the two errors that end a command early.

/** Exit statuses: success, invalid input (a parse error, a problem the core reports), wrong usage. */
export const EXIT = Object.freeze({ ok: 0, invalid: 1, usage: 2 });

/** Wrong usage (an unknown option, a missing argument, a file that cannot be read): exit 2. */
export class UsageError extends Error {}

/** Input the command cannot use, already worded for people (one line per problem): exit 1. */
export class InputError extends Error {
  constructor(lines) {
    super(lines.join("\n"));
    this.lines = lines;
  }
}
