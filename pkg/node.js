// The package entry for Node: the WebAssembly core is compiled and instantiated synchronously at
// import time (no top-level await, so `require("elasticjob")` works too).
import { readFileSync } from "node:fs";
import { initSync } from "./dist/elasticjob_wasm.js";

initSync({ module: readFileSync(new URL("./dist/elasticjob_wasm_bg.wasm", import.meta.url)) });

export * from "./api.js";
