// The error every function of the package throws for input the core refuses. wasm-bindgen copies
// this module next to the generated glue, which constructs it and re-exports it, so
// `err instanceof ElasticJobError` holds for the class the package exports.
export class ElasticJobError extends Error {
  constructor(message, code, errors) {
    super(message);
    this.name = "ElasticJobError";
    // `parse_error` (the input has the wrong shape) or `invalid` (it breaks a rule).
    this.code = code;
    // Every problem: [{ path, code, message }].
    this.errors = errors;
  }
}
