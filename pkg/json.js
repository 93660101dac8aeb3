// JavaScript values as JSON text for the core, the way `JSON.stringify` writes them, but refusing
// what JSON cannot hold instead of dropping or mangling it silently, each refusal at its field
// path (the core writes the error, `notJson`):
// - a property whose value is `undefined` is left out (an optional field passed as `undefined` is
//   absent, not `null`); an `undefined` array item is `null`; `undefined` itself is `null`;
// - an object with a `toJSON` method (a `Date`) is what that method returns;
// - `NaN` and infinities, `bigint`, functions, symbols, `Map`, `Set`, typed arrays and
//   `ArrayBuffer`s are refused, as is nesting deeper than MAX_DEPTH (a cycle).
// The check walks the value once without keeping a path (a quarter of what `JSON.stringify` costs);
// only when it finds something does it walk again to name the place.
import { notJson } from "./dist/elasticjob_wasm.js";

/** How deep objects may nest, as serde_json's own limit for JSON text. */
export const MAX_DEPTH = 128;

/** A refusal on the way down; `path` is filled on the second walk. */
class Refused {
  constructor(message) {
    this.message = message;
  }
}

/**
 * The JSON text of `value`, an argument named `root` ("" for the job): throws the core's
 * ElasticJobError (`invalid_type` at `root` + the path) for a value JSON cannot hold.
 */
export function toJson(value, root) {
  try {
    check(value, 0, null);
  } catch (e) {
    if (!(e instanceof Refused)) {
      throw e;
    }
    const path = [];
    let found = e;
    try {
      check(value, 0, path);
    } catch (again) {
      found = again;
    }
    // The error is the core's, so its path and message read as every other problem's.
    throw notJson(root, JSON.stringify(path), found.message);
  }
  return value === undefined ? "null" : JSON.stringify(value);
}

/** `toJson` of an optional argument: `undefined` for `null` or `undefined`. */
export function optionalJson(value, root) {
  return value === null || value === undefined ? undefined : toJson(value, root);
}

/** Walks `value`; `path`, when given, is left at the refused value. */
function check(value, depth, path) {
  switch (typeof value) {
    case "string":
    case "boolean":
    case "undefined":
      return;
    case "number":
      if (!Number.isFinite(value)) {
        throw new Refused(`${value} is not a JSON number`);
      }
      return;
    case "bigint":
      throw new Refused("a bigint is not JSON: pass a number or a string");
    case "function":
      throw new Refused("a function is not JSON");
    case "symbol":
      throw new Refused("a symbol is not JSON");
    default:
      break;
  }
  if (value === null) {
    return;
  }
  if (depth >= MAX_DEPTH) {
    throw new Refused(`objects nest deeper than ${MAX_DEPTH} levels (is there a cycle?)`);
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      path?.push(i);
      check(value[i], depth + 1, path);
      path?.pop();
    }
    return;
  }
  if (value instanceof Map || value instanceof Set) {
    throw new Refused(`a ${value instanceof Map ? "Map" : "Set"} is not JSON: pass a plain object or an array`);
  }
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) {
    throw new Refused(`an instance of ${value.constructor?.name || "Object"} is not JSON`);
  }
  if (typeof value.toJSON === "function") {
    let replaced;
    try {
      replaced = value.toJSON();
    } catch (e) {
      throw new Refused(`its toJSON() threw: ${e?.message ?? String(e)}`);
    }
    check(replaced, depth + 1, path);
    return;
  }
  for (const key of Object.keys(value)) {
    const item = value[key];
    if (item === undefined) {
      continue;
    }
    path?.push(key);
    check(item, depth + 1, path);
    path?.pop();
  }
}
