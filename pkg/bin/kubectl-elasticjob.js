#!/usr/bin/env node
// The kubectl plugin: kubectl runs `kubectl-elasticjob` from PATH for `kubectl elasticjob ...`. The
// commands of `elasticjob` (cli/): render, validate and tf-config (FILEs also as -f FILE, as kubectl
// takes them), and status NAME, which reads the cluster through the kubeconfig, context and
// namespace as kubectl chooses them. Exit status: 0 success, 1 invalid input, 2 wrong usage.
import { runProcess } from "../cli/process.js";

await runProcess({ program: "kubectl elasticjob" });
