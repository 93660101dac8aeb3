// `elasticjob plan`: one pass of the job controller, as JSON.
import { reconcile } from "../node.js";
import { EXIT, UsageError } from "./errors.js";
import { Inputs } from "./input.js";
import { toJson } from "./output.js";

export default {
  name: "plan",
  usage: "plan FILE [--scale-plan FILE] --pods FILE [--now RFC3339]",
  about: "one pass of the job controller, as JSON",
  help: `Prints the plan of one pass of the job controller over the job (with its status) in FILE, the
ScalePlan and the observed pods, as JSON: the actions to carry out, in order.

Options:
  --scale-plan FILE   the job's ScalePlan (default: a ScalePlan document in FILE, else none: the
                      job's first plan)
  --pods FILE         the observed pods: a list of pods, a List (\`kubectl get pods -o yaml\`),
                      or one pod per document
  --now RFC3339       the time of the pass, e.g. 2026-01-02T03:04:05Z (default: now)`,
  options: { "scale-plan": { type: "string" }, pods: { type: "string" }, now: { type: "string" } },
  positionals: [1, 1],
  async run([file], options, io) {
    if (options.pods === undefined) {
      throw new UsageError("--pods FILE is missing");
    }
    const inputs = new Inputs(io);
    const { job, scalePlan } = await inputs.jobAndPlan(file, options["scale-plan"]);
    const documents = await inputs.documents(options.pods);
    inputs.podsFile = options.pods;
    // One document holds the list (or a List); several documents are one pod each.
    const pods = documents.length === 1 ? documents[0].value : documents.map((d) => d.value);
    const now = options.now ?? new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace(".000Z", "Z");
    const plan = inputs.call(() => reconcile(job.value, scalePlan?.value, pods, now));
    io.stdout.write(toJson(plan));
    return EXIT.ok;
  },
};
