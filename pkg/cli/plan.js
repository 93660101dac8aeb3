// `elasticjob plan`: the controller's pass over a job, its ScalePlans, its pods and its services, as
// JSON: the same function `elasticjob controller` runs (`controllerPass`), on objects from files.
import { controllerPass } from "../node.js";
import { EXIT } from "./errors.js";
import { Inputs } from "./input.js";
import { toJson } from "./output.js";

export default {
  name: "plan",
  usage: "plan FILE... [--scale-plan FILE] [--pods FILE] [--services FILE] [--now RFC3339]",
  about: "the controller's pass over a job, its ScalePlans, its pods and its services, as JSON",
  help: `Prints the plan of the pass \`elasticjob controller\` makes over a job: which of its ScalePlans
it takes up, which pods are the job's, and what to create, delete and write, in phases (services,
pod creations, deletions, status writes), as JSON.

The FILEs hold one ElasticJob (with its status) and any number of its ScalePlans, pods and
services, as documents of their own or in Lists, as
\`kubectl get elasticjob/NAME,scaleplans,pods,services -o yaml\` prints them; give as many FILEs as
you like, as kubectl takes -f. The pass sees what the FILEs hold: a running job whose services are
not given has its pods' services made again.

Options:
  --scale-plan FILE   one more FILE (of ScalePlans)
  --pods FILE         one more FILE (of pods)
  --services FILE     one more FILE (of services)
  --now RFC3339       the time of the pass, e.g. 2026-01-02T03:04:05Z (default: now)`,
  options: { "scale-plan": { type: "string" }, pods: { type: "string" }, services: { type: "string" }, now: { type: "string" } },
  positionals: [1, Infinity],
  async run(files, options, io) {
    const inputs = new Inputs(io);
    const extra = [options["scale-plan"], options.pods, options.services].filter((f) => f !== undefined);
    const { job, plans, pods, services } = await inputs.objects([...files, ...extra]);
    const now = options.now ?? new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace(".000Z", "Z");
    const values = (documents) => documents.map((d) => d.value);
    const plan = inputs.call(() => controllerPass(job.value, values(plans), values(pods), values(services), now));
    io.stdout.write(toJson(plan));
    return EXIT.ok;
  },
};
