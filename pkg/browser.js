// The package entry for browsers and bundlers: the WebAssembly core is fetched from next to this
// file (`new URL(..., import.meta.url)`, which bundlers follow) and instantiated with top-level
// await before any function is used.
import init from "./dist/elasticjob_wasm.js";

await init({ module_or_path: new URL("./dist/elasticjob_wasm_bg.wasm", import.meta.url) });

export * from "./api.js";
