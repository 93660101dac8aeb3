// `elasticjob render`: every object the job will have, as a Kubernetes List.
import { render, renderJson, renderSummary } from "../node.js";
import { EXIT, UsageError } from "./errors.js";
import { Inputs } from "./input.js";
import { jsonText, table, toYaml } from "./output.js";

// Each format from the job and plan: JSON is written by the core as it is and the summary's rows
// come from it alone (the objects are never built in JavaScript); YAML is written from the objects.
const FORMATS = {
  yaml: (job, plan, options) => toYaml(render(job, plan, options)),
  json: (job, plan, options) => `${jsonText(renderJson(job, plan, options, true))}\n`,
  summary: (job, plan, options) => table(renderSummary(job, plan, options)),
};

export default {
  name: "render",
  usage: "render FILE [--scale-plan FILE] [--gang-scheduler-name NAME] [-o yaml|json|summary]",
  about: "every object the job will have, as a Kubernetes List",
  help: `Prints every object the job will have (the PodGroup of a gang-scheduled job, the master pod
and service, then each task's pod and service) as a Kubernetes List (apiVersion: v1, kind: List)
for \`kubectl apply -f -\`.

Options:
  --scale-plan FILE   the ScalePlan to render (default: a ScalePlan document in FILE, else the
                      job's first plan)
  --gang-scheduler-name NAME
                      as the controller run with it renders the job: its PodGroup first and
                      its pods on that gang scheduler (\`volcano\`, or scheduler-plugins'
                      scheduler's name); without it, only a job whose replicas say
                      BatchScheduler: volcano gets a gang (Volcano's)
  -o, --output FORMAT yaml (default), json, or summary: a table of kind, name, replica type,
                      rank, CPU and memory requests, and TF_CONFIG task (headed by a line
                      saying so when the job is suspended)`,
  options: {
    "scale-plan": { type: "string" },
    "gang-scheduler-name": { type: "string" },
    output: { type: "string", short: "o" },
  },
  positionals: [1, 1],
  async run([file], options, io, context) {
    const format = options.output ?? "yaml";
    if (!Object.hasOwn(FORMATS, format)) {
      throw new UsageError(`-o takes yaml, json or summary, not \`${format}\``);
    }
    const inputs = new Inputs(io, context);
    const { job, scalePlan } = await inputs.jobAndPlan(file, options["scale-plan"]);
    const gang = options["gang-scheduler-name"];
    const coreOptions = gang === undefined ? null : { gangSchedulerName: gang };
    const text = inputs.call(() => FORMATS[format](job.value, scalePlan?.value, coreOptions));
    if (format === "summary" && job.value?.spec?.suspend === true) {
      const name = job.value.metadata?.name;
      io.stdout.write(`job ${name} is suspended (spec.suspend: true): none of these runs until it is set to false\n`);
    }
    io.stdout.write(text);
    return EXIT.ok;
  },
};
