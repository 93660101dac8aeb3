// The JSON text of each job the controller hands to the core, written once per version of it: the
// caches replace an object when it changes and never change one in place, so a pass over an
// unchanged job writes nothing again. (The jobs' plans, pods and services are in the core's store,
// read once as they change.)
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
