#!/usr/bin/env node
// The `elasticjob` command: render, validate, tf-config and plan, computed by the WebAssembly core
// of this package (the commands are cli/). It reads files and standard input, prints, and starts no
// other program. Exit status: 0 success, 1 invalid input, 2 wrong usage.
import { main } from "../cli/index.js";

process.stdout.on("error", (e) => {
  // `elasticjob render job.yaml | head`: the reader left; stop quietly.
  if (e.code === "EPIPE") {
    process.exit(process.exitCode ?? 0);
  }
  throw e;
});

const io = {
  // Read only when a FILE is `-`: the stream is not opened otherwise.
  get stdin() {
    return process.stdin;
  },
  stdout: process.stdout,
  stderr: process.stderr,
};

process.exitCode = await main(process.argv.slice(2), io);
