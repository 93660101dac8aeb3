// The types of `elasticjob/cli`: the `elasticjob` command as a function, for tests and embedders.

/** Where output goes: `process.stdout`, or anything that collects the text written to it. */
export interface Writer {
  write(text: string): unknown;
}

/** The standard input and outputs of one command line, and how its FILEs are read. */
export interface Io {
  /**
   * What `-` reads: the text itself, its UTF-8 bytes, or a stream of chunks (`process.stdin`).
   * Without it, `-` is wrong usage ("cannot read standard input").
   */
  stdin?: string | Uint8Array | AsyncIterable<string | Uint8Array>;
  stdout: Writer;
  stderr: Writer;
  /** The folder relative FILEs are read from (default: the process's working directory). */
  cwd?: string;
  /** Reads a FILE as written on the command line (default: from the file system, from `cwd`). */
  readFile?: (file: string) => string | Promise<string>;
}

/** The exit statuses: success, invalid input, wrong usage. */
export declare const EXIT: { readonly ok: 0; readonly invalid: 1; readonly usage: 2 };

/**
 * Runs one command line of `elasticjob` or `kubectl elasticjob` (`argv` without the program name, e.g.
 * `["render", "job.yaml", "-o", "json"]`) and resolves to its exit status. Rejects only on a bug.
 */
export declare function main(argv: readonly string[], io: Io, options?: MainOptions): Promise<number>;

/** How the command names itself in usage texts. */
export interface MainOptions {
  /** `elasticjob` (the default), or `kubectl elasticjob` for the kubectl plugin. */
  program?: string;
}
