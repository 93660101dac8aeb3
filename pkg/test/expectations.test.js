// What the caches must show before a job is planned again (controller/expectations.js): a created
// pod or service (that very one, by uid), a deleted one gone or terminating, a status at a newer version; met by
// a watch event or by the cache itself, given up when the write failed, and after a timeout.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Expectations } from "../controller/expectations.js";

const KEY = "ns/mnist";

/** Caches the test fills by hand. */
function caches() {
  const store = { Pod: new Map(), Service: new Map(), ElasticJob: new Map(), ScalePlan: new Map() };
  const cache = (kind) => ({ get: (ns, name) => store[kind].get(`${ns}/${name}`) });
  return { store, caches: { pods: cache("Pod"), services: cache("Service"), jobs: cache("ElasticJob"), plans: cache("ScalePlan") } };
}
const pod = (name, uid, extra = {}) => ({ metadata: { name, namespace: "ns", uid, ...extra } });

test("a created pod is expected until a watch event shows that very pod (its uid), or the cache does", () => {
  const { store, caches: c } = caches();
  const e = new Expectations({ caches: c });
  const a = e.presence(KEY, "Pod", "ns", "a", true);
  a.uid = "uid-a";
  e.presence(KEY, "Pod", "ns", "b", true);
  assert.ok(e.pending(KEY) > 0, "nothing seen yet");
  // An older pod of the same name (not yet collected) is not the one created.
  e.observed(KEY, "Pod", "update", pod("a", "uid-old"));
  store.Pod.set("ns/b", pod("b", "uid-b"));
  assert.ok(e.pending(KEY) > 0, "a: only the old pod seen; b: in the cache, met");
  assert.deepEqual([...e.byJob.get(KEY).entries.keys()], ["Pod/a"]);
  e.observed(KEY, "Pod", "add", pod("a", "uid-a"));
  assert.equal(e.pending(KEY), 0);
});

test("a deleted pod is expected gone: met by its delete event, a pod of another uid, or its deletionTimestamp", () => {
  const { store, caches: c } = caches();
  const e = new Expectations({ caches: c });
  for (const name of ["x", "y", "z"]) {
    store.Pod.set(`ns/${name}`, pod(name, `uid-${name}`));
    e.presence(KEY, "Pod", "ns", name, false, `uid-${name}`);
  }
  assert.ok(e.pending(KEY) > 0);
  e.observed(KEY, "Pod", "delete", pod("x", "uid-x"));
  store.Pod.set("ns/y", pod("y", "uid-y2"));
  store.Pod.set("ns/z", pod("z", "uid-z", { deletionTimestamp: "2026-03-01T10:00:00Z" }));
  assert.equal(e.pending(KEY), 0);
});

test("a service made is expected until the cache shows it, a service deleted until it is gone", () => {
  const { store, caches: c } = caches();
  const e = new Expectations({ caches: c });
  const made = e.presence(KEY, "Service", "ns", "mnist-edljob-worker-1", true);
  made.uid = "uid-s1";
  store.Service.set("ns/mnist-edljob-worker-2", pod("mnist-edljob-worker-2", "uid-s2"));
  e.presence(KEY, "Service", "ns", "mnist-edljob-worker-2", false, "uid-s2");
  assert.ok(e.pending(KEY) > 0, "neither shown yet");
  e.observed(KEY, "Service", "add", pod("mnist-edljob-worker-1", "uid-s1"));
  store.Service.delete("ns/mnist-edljob-worker-2");
  assert.equal(e.pending(KEY), 0);
});

test("a status write is expected at a version other than those read; a failed write is dropped; a later write adds its stale versions", () => {
  const { store, caches: c } = caches();
  const e = new Expectations({ caches: c });
  store.ElasticJob.set("ns/mnist", { metadata: { name: "mnist", resourceVersion: "7" } });
  const first = e.newer(KEY, "ElasticJob", "ns", "mnist", ["7"]);
  const again = e.newer(KEY, "ElasticJob", "ns", "mnist", ["8"]);
  assert.equal(again, first, "one expectation for the object");
  e.observed(KEY, "ElasticJob", "update", { metadata: { name: "mnist", resourceVersion: "8" } });
  assert.ok(e.pending(KEY) > 0, "version 8 was read by the second write: still stale");
  e.observed(KEY, "ElasticJob", "update", { metadata: { name: "mnist", resourceVersion: "9" } });
  assert.equal(e.pending(KEY), 0);
  const plan = e.newer(KEY, "ScalePlan", "ns", "plan-1", ["3"]);
  e.drop(KEY, plan);
  assert.equal(e.pending(KEY), 0, "the write failed: nothing to wait for");
});

test("unmet, an expectation is given up after its timeout (reported), and a forgotten job waits for nothing", () => {
  const { caches: c } = caches();
  let now = Date.UTC(2026, 0, 1);
  const e = new Expectations({ caches: c, timeoutMs: 50, now: () => now });
  e.presence(KEY, "Pod", "ns", "a", true);
  assert.equal(e.pending(KEY), 50);
  now += 49;
  assert.equal(e.pending(KEY), 1, "1 ms left");
  now += 1;
  let unseen;
  assert.equal(e.pending(KEY, (u) => (unseen = u)), 0);
  assert.deepEqual(unseen, ["Pod/a"]);
  e.presence(KEY, "Pod", "ns", "b", true);
  e.forget(KEY);
  assert.equal(e.pending(KEY), 0);
});
