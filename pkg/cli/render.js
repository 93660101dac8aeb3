// `elasticjob render`: every object the job will have, as a Kubernetes List.
import { render, summary } from "../node.js";
import { EXIT, UsageError } from "./errors.js";
import { Inputs } from "./input.js";
import { table, toJson, toYaml } from "./output.js";

const FORMATS = { yaml: toYaml, json: toJson, summary: (list) => table(summary(list)) };

export default {
  name: "render",
  usage: "render FILE [--scale-plan FILE] [-o yaml|json|summary]",
  about: "every object the job will have, as a Kubernetes List",
  help: `Prints every object the job will have (the master pod and service, then each task's pod and
service) as a Kubernetes List (apiVersion: v1, kind: List) for \`kubectl apply -f -\`.

Options:
  --scale-plan FILE   the ScalePlan to render (default: a ScalePlan document in FILE, else the
                      job's first plan)
  -o, --output FORMAT yaml (default), json, or summary: a table of kind, name, replica type,
                      rank, CPU and memory requests, and TF_CONFIG task`,
  options: { "scale-plan": { type: "string" }, output: { type: "string", short: "o" } },
  positionals: [1, 1],
  async run([file], options, io) {
    const format = options.output ?? "yaml";
    if (!Object.hasOwn(FORMATS, format)) {
      throw new UsageError(`-o takes yaml, json or summary, not \`${format}\``);
    }
    const inputs = new Inputs(io);
    const { job, scalePlan } = await inputs.jobAndPlan(file, options["scale-plan"]);
    const list = inputs.call(() => render(job.value, scalePlan?.value));
    io.stdout.write(FORMATS[format](list));
    return EXIT.ok;
  },
};
