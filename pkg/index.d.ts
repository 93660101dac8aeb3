// The types of the package entry (both node.js and browser.js): the functions over values and the
// error class (api.d.ts), `text` (the same functions over JSON text), and every type of the core,
// generated from its JSON Schemas.
export * from "./api.js";
export type * from "./dist/types.js";
