// The JSON text of each object the controller hands to the core, written once per object: the
// caches replace an object when it changes and never change one in place, so a pass over a job
// whose objects are unchanged writes none of them again, and what a pass costs to hand over grows
// with what changed, not with the job's size.
const texts = new WeakMap();

/** The JSON text of a cached object (or of one this controller made or read), written once. */
export function jsonOf(obj) {
  let text = texts.get(obj);
  if (text === undefined) {
    text = JSON.stringify(obj);
    texts.set(obj, text);
  }
  return text;
}

/** The JSON text of an array of such objects. */
export function jsonOfAll(objects) {
  return `[${objects.map(jsonOf).join(",")}]`;
}
