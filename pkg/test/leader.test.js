// Leader election (controller/leader.js) against a Lease store of the test's own that behaves as the
// API server's (a write must carry the resourceVersion stored, else 409 Conflict), with a switch
// that makes its requests hang, as a stalled connection does: a renewal is cut at the renew
// deadline, and the leader stops leading then, before any candidate may take over.
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { ApiError } from "../controller/adapter.js";
import { leaseTimingsProblem } from "../controller/defaults.js";
import { LeaderElector } from "../controller/leader.js";
import { Logger } from "../controller/log.js";

const quiet = new Logger({ write: () => true }, { level: "error" });

/** A Lease store; `hang` makes every request wait until its signal aborts (then it rejects). */
function leaseStore() {
  const store = { lease: undefined, version: 0, hang: false, aborted: 0, writes: [] };
  const answer = async (signal, fn) => {
    if (store.hang) {
      await new Promise((_, reject) => {
        signal?.addEventListener("abort", () => {
          store.aborted += 1;
          reject(signal.reason);
        });
      });
    }
    return structuredClone(fn());
  };
  const write = (lease) => {
    store.version += 1;
    store.lease = { ...structuredClone(lease), metadata: { ...lease.metadata, resourceVersion: String(store.version) } };
    store.writes.push({ at: Date.now(), holder: lease.spec.holderIdentity });
    return store.lease;
  };
  store.adapter = {
    get: (kind, ns, name, { signal } = {}) =>
      answer(signal, () => {
        if (!store.lease) {
          throw new ApiError("get", 404, { reason: "NotFound" });
        }
        return store.lease;
      }),
    create: (kind, lease, { signal } = {}) =>
      answer(signal, () => {
        if (store.lease) {
          throw new ApiError("create", 409, { reason: "AlreadyExists" });
        }
        return write(lease);
      }),
    replace: (kind, lease, { signal } = {}) =>
      answer(signal, () => {
        if (lease.metadata.resourceVersion !== store.lease?.metadata.resourceVersion) {
          throw new ApiError("update", 409, { reason: "Conflict" });
        }
        return write(lease);
      }),
  };
  return store;
}

const TIMINGS = { leaseDurationSeconds: 1.5, renewDeadlineSeconds: 1, retryPeriodSeconds: 0.2 };
const elector = (store, identity, now) => new LeaderElector({ adapter: store.adapter, namespace: "ns", name: "lease", identity, ...TIMINGS, log: quiet, now });

test("a renewal that hangs is cut at the renew deadline; the leader stops leading then, before the candidate can take the lease", async () => {
  const store = leaseStore();
  const a = elector(store, "a");
  assert.equal(await a.acquire(), true);
  const renewing = a.keepRenewing();
  await sleep(500);
  assert.ok(store.writes.length >= 2, "renewed every retry period");
  store.hang = true;
  const { lost } = await renewing;
  const lastRenewal = store.writes.at(-1).at;
  assert.equal(lost, true);
  assert.equal(a.leading, false);
  assert.ok(store.aborted >= 1, "the hung renewal was cut, not left to return later");
  // It stopped at the renew deadline counted from when its last renewal was sent, which is before
  // the store wrote it; the candidate measures the lease from when it saw that write, so the
  // leader stops within the lease's duration, whatever the timer's lateness on a loaded machine.
  assert.ok(a.renewedAt <= lastRenewal, "the deadline counts from the renewal's request");
  assert.ok(TIMINGS.renewDeadlineSeconds < TIMINGS.leaseDurationSeconds);

  store.hang = false;
  const b = elector(store, "b");
  assert.equal(await b.acquire(), true, "the candidate takes the lease once it expired");
  assert.equal(store.lease.spec.holderIdentity, "b");
  assert.equal(store.lease.spec.leaseTransitions, 1);
  await a.stop();
  await b.stop();
  assert.equal(store.lease.spec.holderIdentity, undefined, "b released it on stop; a (no longer leading) wrote nothing");
});

test("two candidates at once: one leads, the other waits; stopped, the leader releases the lease and the other takes it at its next try", async () => {
  const store = leaseStore();
  const [a, b] = [elector(store, "a"), elector(store, "b")];
  const first = await Promise.race([a.acquire().then(() => a), b.acquire().then(() => b)]);
  const second = first === a ? b : a;
  const renewing = first.keepRenewing();
  await sleep(300);
  assert.equal(store.lease.spec.holderIdentity, first.identity);
  assert.equal(second.leading, false);
  const since = Date.now();
  await first.stop();
  assert.deepEqual(await renewing, { lost: false });
  await sleep(TIMINGS.retryPeriodSeconds * 1000 * 1.2 + 100);
  assert.equal(store.lease.spec.holderIdentity, second.identity, `taken over ${Date.now() - since} ms after the release`);
  await second.stop();
});

test("lease duration > renew deadline > retry period > 0, checked in one place", () => {
  assert.equal(leaseTimingsProblem(15, 10, 2), undefined);
  assert.match(leaseTimingsProblem(10, 15, 2), /lease duration \(10 s\) must exceed the renew deadline \(15 s\)/);
  assert.match(leaseTimingsProblem(15, 2, 2), /which must exceed the retry period \(2 s\)/);
  assert.match(leaseTimingsProblem(15, 10, 0), /retry period \(0 s\) must be above 0/);
  assert.throws(() => new LeaderElector({ adapter: {}, namespace: "ns", name: "l", identity: "a", leaseDurationSeconds: 5, renewDeadlineSeconds: 10, retryPeriodSeconds: 2, log: quiet }), RangeError);
});

test("a leader whose renew deadline passed no longer holds the lease, though the timer that ends its leading has not run (a process stopped and continued)", async () => {
  const store = leaseStore();
  // The elector's clock, moved by the test: no timer runs while it moves, as in a process stopped
  // (SIGSTOP) whose timers have not run yet after SIGCONT.
  let now = Date.UTC(2026, 0, 1);
  const a = elector(store, "a", () => now);
  assert.equal(await a.acquire(), true);
  assert.equal(a.holds(), true, "just acquired");
  // No keepRenewing: nothing renews and no timer ends the leading.
  now += TIMINGS.renewDeadlineSeconds * 1000 - 1;
  assert.equal(a.holds(), true, "1 ms before the renew deadline");
  now += 1;
  assert.equal(a.leading, true, "the flag alone would still say leading");
  assert.equal(a.holds(), false, "at the renew deadline since the last renewal was sent");
});

test("stopped while its last renewal was written unseen (cut by the stop), the leader reads the lease again and releases it; one another holds it is left alone", async () => {
  const store = leaseStore();
  const lines = [];
  const log = new Logger({ write: (l) => lines.push(JSON.parse(l).msg) }, { level: "info" });
  const a = new LeaderElector({ adapter: store.adapter, namespace: "ns", name: "lease", identity: "a", ...TIMINGS, log });
  assert.equal(await a.acquire(), true);
  // The renewal the stop cut reached the store: the lease a saw is one version behind.
  store.version += 1;
  store.lease = { ...store.lease, metadata: { ...store.lease.metadata, resourceVersion: String(store.version) } };
  await a.stop();
  assert.equal(store.lease.spec.holderIdentity, undefined, "released");
  assert.ok(lines.includes("released the leader lease"), lines.join("; "));

  const b = new LeaderElector({ adapter: store.adapter, namespace: "ns", name: "lease", identity: "b", ...TIMINGS, log });
  assert.equal(await b.acquire(), true);
  // Another instance took the lease meanwhile (b's view is stale): b writes nothing over it.
  store.version += 1;
  store.lease = { ...store.lease, spec: { ...store.lease.spec, holderIdentity: "c" }, metadata: { ...store.lease.metadata, resourceVersion: String(store.version) } };
  const writes = store.writes.length;
  await b.stop();
  assert.equal(store.lease.spec.holderIdentity, "c");
  assert.equal(store.writes.length, writes, "no write over another's lease");
});
