#!/usr/bin/env node
// The `elasticjob` command: render, validate, tf-config and plan, computed by the WebAssembly core
// of this package (the commands are cli/). It reads files and standard input, prints, and starts no
// other program. Exit status: 0 success, 1 invalid input, 2 wrong usage.
import { runProcess } from "../cli/process.js";

await runProcess();
