#!/usr/bin/env node
// The kubectl plugin: kubectl runs `kubectl-elasticjob` from PATH for `kubectl elasticjob ...`. The
// commands of `elasticjob` (cli/): render, validate and tf-config (FILEs also as -f FILE, as kubectl
// takes them), and status NAME, which reads the cluster through the kubeconfig, context and
// namespace as kubectl chooses them. Exit status: 0 success, 1 invalid input, 2 wrong usage.
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

process.exitCode = await main(process.argv.slice(2), io, { program: "kubectl elasticjob" });
