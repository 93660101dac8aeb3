// What both commands of the package (`elasticjob`, `kubectl-elasticjob`) do as a process: the CLI's
// `main` over the process's standard streams, quiet when the reader of standard output leaves.
import { main } from "./index.js";

/** Runs `main` with the process's arguments and streams, and sets its exit status. */
export async function runProcess(options) {
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
  process.exitCode = await main(process.argv.slice(2), io, options);
}
