// `elasticjob validate`: every ElasticJob and ScalePlan document of each file checked.
import { validate, validateScalePlan } from "../node.js";
import { EXIT, InputError } from "./errors.js";
import { Inputs, tfJobLine } from "./input.js";
import { cell, problemLine } from "./output.js";

export default {
  name: "validate",
  usage: "validate FILE...",
  about: "check ElasticJobs and ScalePlans",
  help: `Checks every ElasticJob and ScalePlan of each FILE (its documents, the items of a top-level
array or of a List). Prints \`FILE: valid\`, or one
\`FILE: PATH: MESSAGE\` line per problem (a syntax error: \`FILE:LINE:COLUMN: MESSAGE\`).
Exits 1 when any FILE is invalid.`,
  options: {},
  positionals: [1, Infinity],
  async run(files, _options, io, context) {
    const inputs = new Inputs(io, context);
    let invalid = false;
    for (const file of files) {
      const lines = await problems(inputs, file);
      invalid ||= lines.length > 0;
      io.stdout.write(lines.length === 0 ? `${cell(file)}: valid\n` : `${lines.join("\n")}\n`);
    }
    return invalid ? EXIT.invalid : EXIT.ok;
  },
};

/** The lines of every problem of one file: none when it is valid. */
async function problems(inputs, file) {
  try {
    const objects = await inputs.objectsOf(file);
    if (objects.length === 0) {
      return [`${cell(file)}: no ElasticJob or ScalePlan in the file`];
    }
    return objects.flatMap((object) => {
      const check = object.kind === "ScalePlan" ? validateScalePlan : validate;
      const result = check(object.value);
      if (!result.valid && result.error.errors.some((p) => p.code === "tf_job")) {
        return [tfJobLine(file, inputs.program)];
      }
      return result.valid ? [] : result.error.errors.map((p) => problemLine(file, p));
    });
  } catch (e) {
    if (!(e instanceof InputError)) {
      throw e;
    }
    return e.lines;
  }
}
