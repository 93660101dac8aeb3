// `elasticjob plan`: the controller's pass over a job, its ScalePlans, its pods and its services, as
// JSON: the same function `elasticjob controller` runs (`controllerPass`), on objects from files.
import { controllerPass } from "../node.js";
import { EXIT } from "./errors.js";
import { Inputs } from "./input.js";
import { toJson } from "./output.js";

export default {
  name: "plan",
  usage: "plan FILE... [--scale-plan FILE] [--pods FILE] [--services FILE] [--gang-scheduler-name NAME] [--now RFC3339]",
  about: "the controller's pass over a job, its ScalePlans, its pods and its services, as JSON",
  help: `Prints the plan of the pass \`elasticjob controller\` makes over a job: which of its ScalePlans
it takes up, which pods are the job's, and what to create, delete and write, in phases (services,
pod creations, deletions, status writes), as JSON.

The FILEs hold one ElasticJob (with its status), any number of its ScalePlans, pods and
services, and its PodGroup if it has a gang scheduler, as documents of their own, in Lists as
\`kubectl get elasticjobs,scaleplans,pods,services -o yaml\` prints a namespace's, in an API server's list
responses (a PodList) or in top-level JSON arrays (what jq writes); give as many FILEs as you like,
as kubectl takes -f. An object without a kind is of its list's kind (PodList: Pod), else of the
option that names its FILE. The pass sees what the FILEs hold: a running job whose services are
not given has its pods' services made again.

Options:
  --scale-plan FILE   one more FILE (of ScalePlans: those without a kind are ScalePlans)
  --pods FILE         one more FILE (of pods: those without a kind are pods)
  --services FILE     one more FILE (of services: those without a kind are services)
  --gang-scheduler-name NAME
                      the pass of a controller run with it: the job's PodGroup and its pods on
                      that gang scheduler (\`volcano\`, or scheduler-plugins' scheduler's name)
  --now RFC3339       the time of the pass, e.g. 2026-01-02T03:04:05Z (default: now)`,
  options: {
    "scale-plan": { type: "string" },
    pods: { type: "string" },
    services: { type: "string" },
    "gang-scheduler-name": { type: "string" },
    now: { type: "string" },
  },
  positionals: [1, Infinity],
  async run(files, options, io, context) {
    const inputs = new Inputs(io, context);
    const flagged = [
      { file: options["scale-plan"], kind: "ScalePlan" },
      { file: options.pods, kind: "Pod" },
      { file: options.services, kind: "Service" },
    ].filter((f) => f.file !== undefined);
    const { job, plans, pods, services, podGroup } = await inputs.objects([...files, ...flagged]);
    const gang = options["gang-scheduler-name"];
    const coreOptions = gang === undefined ? null : { gangSchedulerName: gang };
    const now = options.now ?? new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace(".000Z", "Z");
    const values = (documents) => documents.map((d) => d.value);
    const plan = inputs.call(() =>
      controllerPass(job.value, values(plans), values(pods), values(services), now, coreOptions, null, podGroup?.value ?? null),
    );
    io.stdout.write(toJson(plan));
    return EXIT.ok;
  },
};
