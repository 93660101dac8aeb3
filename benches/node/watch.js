// The objects of one kind in a namespace as a watch shows them, each with the bench's clock at the
// event that first showed it and at the one that first showed it Running (a pod's or a job's phase): a list, then a
// watch from its resourceVersion, listed and watched again whenever the watch ends (the API server
// ends watches after a while, and cuts off a client that falls behind). A benchmark that waits on
// these loads the API server with nothing but the watch, where polling lists of every pod would
// take its CPU from the controllers it measures, and it knows when each thing happened to within
// the event's delivery rather than a poll's period.
import * as k8s from "@kubernetes/client-node";
import { collection, expectStatus, request } from "../../tests/e2e/kube.js";

/**
 * Watches the `kind` objects of `ns` (of `apiVersion`, by default core v1's) for `admin`. Resolves,
 * once listed, to `{objects, stop}`: `objects` maps each live object's uid to `{name, labels,
 * phase, added, running}` (times in ms since the epoch; `phase` the object's `status.phase`, and
 * `running` unset until it is first seen `Running`).
 */
export async function watchObjects(admin, ns, kind, apiVersion = "v1") {
  const objects = new Map();
  let req;
  let stopped = false;
  const seen = (obj, now) => {
    const entry = objects.get(obj.metadata.uid) ?? { name: obj.metadata.name, added: now };
    entry.labels = obj.metadata.labels ?? {};
    entry.phase = obj.status?.phase;
    if (entry.phase === "Running") {
      entry.running ??= now;
    }
    objects.set(obj.metadata.uid, entry);
  };
  const listed = async () => {
    const live = new Set();
    let token;
    let resourceVersion;
    do {
      const query = token ? { limit: 500, continue: token } : { limit: 500 };
      const page = expectStatus(await request(admin, "GET", collection(apiVersion, kind, ns), { query }), [200], kind);
      resourceVersion ??= page.metadata.resourceVersion;
      const now = Date.now();
      for (const obj of page.items) {
        live.add(obj.metadata.uid);
        seen(obj, now);
      }
      token = page.metadata.continue || undefined;
    } while (token);
    for (const uid of objects.keys()) {
      if (!live.has(uid)) {
        objects.delete(uid);
      }
    }
    return resourceVersion;
  };
  const watch = async () => {
    const resourceVersion = await listed();
    req = await new k8s.Watch(admin).watch(
      collection(apiVersion, kind, ns),
      { resourceVersion, allowWatchBookmarks: true },
      (type, obj) => {
        if (type === "DELETED") {
          objects.delete(obj.metadata.uid);
        } else if (type !== "BOOKMARK") {
          seen(obj, Date.now());
        }
      },
      (err) => {
        if (!stopped) {
          process.stderr.write(`  the ${kind} watch ended (${err?.message ?? "closed"}): listing again\n`);
          watch().catch((e) => process.stderr.write(`  watching ${kind}s again failed: ${e.message}\n`));
        }
      },
    );
  };
  await watch();
  return {
    objects,
    stop: () => {
      stopped = true;
      req?.abort();
    },
  };
}
