// `elasticjob tf-config`: the TF_CONFIG of one task.
import { tfConfig } from "../node.js";
import { EXIT, UsageError } from "./errors.js";
import { Inputs } from "./input.js";

export default {
  name: "tf-config",
  usage: "tf-config FILE --type TYPE --index N [--scale-plan FILE]",
  about: "the TF_CONFIG of one task",
  help: `Prints the TF_CONFIG JSON of one task: exactly the env value its pod gets.

Options:
  --type TYPE         ps, worker, chief or evaluator
  --index N           the task's rank
  --scale-plan FILE   the ScalePlan in force (default: a ScalePlan document in FILE, else the
                      job's first plan)`,
  options: { type: { type: "string" }, index: { type: "string" }, "scale-plan": { type: "string" } },
  positionals: [1, 1],
  async run([file], options, io, context) {
    if (options.type === undefined) {
      throw new UsageError("--type TYPE is missing");
    }
    if (options.index === undefined) {
      throw new UsageError("--index N is missing");
    }
    if (!/^[0-9]+$/.test(options.index)) {
      throw new UsageError(`--index takes a whole number, not \`${options.index}\``);
    }
    const inputs = new Inputs(io, context);
    const { job, scalePlan } = await inputs.jobAndPlan(file, options["scale-plan"]);
    const value = inputs.call(() => tfConfig(job.value, options.type, Number(options.index), scalePlan?.value));
    io.stdout.write(`${value}\n`);
    return EXIT.ok;
  },
};
