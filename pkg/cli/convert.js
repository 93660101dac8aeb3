// `elasticjob convert`: Kubeflow TFJobs as the ElasticJobs they become (the core's fromTFJob), the
// notes of each on standard error as `FILE: PATH: MESSAGE`, paths in the TFJob.
import { ElasticJobError, fromTFJob } from "../node.js";
import { EXIT, InputError, UsageError } from "./errors.js";
import { Inputs } from "./input.js";
import { problemLine, toJson, toYaml } from "./output.js";

export default {
  name: "convert",
  usage: "convert FILE [-o yaml|json]",
  about: "a Kubeflow TFJob as the equivalent ElasticJob",
  help: `Prints the ElasticJob each Kubeflow TFJob (kubeflow.org/v1) of FILE becomes: tfReplicaSpecs
as replicaSpecs, restart policies mapped, runPolicy carried, Kubeflow's defaults written out where
an ElasticJob's differ (restartPolicy Never, cleanPodPolicy None). What has no equivalent or
behaves differently is printed on standard error, one \`FILE: PATH: MESSAGE\` line each, PATH in
the TFJob; with several TFJobs in FILE, FILE is followed by the TFJob's name. Nothing is printed
on standard output when a TFJob does not convert (exit 1). docs/migrate-from-tfjob.md has every
field.

Options:
  -o, --output FORMAT yaml (default: one document per TFJob, as many as FILE holds) or json (the
                      ElasticJob, or a v1 List of them for several TFJobs)`,
  options: { output: { type: "string", short: "o" } },
  positionals: [1, 1],
  async run([file], options, io, context) {
    const format = options.output ?? "yaml";
    if (format !== "yaml" && format !== "json") {
      throw new UsageError(`-o takes yaml or json, not \`${format}\``);
    }
    const objects = await new Inputs(io, context).objectsOf(file);
    if (objects.length === 0) {
      throw new InputError([`${file}: no TFJob in the file`]);
    }
    const jobs = [];
    const notes = [];
    const problems = [];
    for (const [i, object] of objects.entries()) {
      const name = object.value?.metadata?.name;
      const where = objects.length === 1 ? file : `${file} (${typeof name === "string" ? name : `document ${i + 1}`})`;
      try {
        const conversion = fromTFJob(object.value);
        jobs.push(conversion.elasticJob);
        notes.push(...conversion.notes.map((n) => problemLine(where, n)));
      } catch (e) {
        if (!(e instanceof ElasticJobError)) {
          throw e;
        }
        problems.push(...e.errors.map((p) => problemLine(where, p)));
      }
    }
    if (problems.length > 0) {
      throw new InputError(problems);
    }
    for (const line of notes) {
      io.stderr.write(`${line}\n`);
    }
    if (format === "json") {
      io.stdout.write(toJson(jobs.length === 1 ? jobs[0] : { apiVersion: "v1", kind: "List", items: jobs }));
    } else {
      io.stdout.write(jobs.map(toYaml).join("---\n"));
    }
    return EXIT.ok;
  },
};
