// The token bucket (controller/ratelimit.js) on a clock of the test's own, and the work queue's
// retries with the bucket shared by every key (client-go's DefaultControllerRateLimiter).
import assert from "node:assert/strict";
import { test } from "node:test";
import { WorkQueue } from "../controller/queue.js";
import { TokenBucket } from "../controller/ratelimit.js";

test("the bucket lets a burst through at once, then one call every 1/qps seconds, in the order they came", () => {
  let now = 0;
  const bucket = new TokenBucket({ qps: 10, burst: 3, now: () => now });
  assert.deepEqual([1, 2, 3].map(() => bucket.reserve()), [0, 0, 0], "the burst");
  assert.deepEqual([4, 5, 6].map(() => Math.round(bucket.reserve())), [100, 200, 300], "then 10 a second, each waiting its turn");
  now = 1000;
  // A second later: 10 tokens made, 3 owed, the bucket holds at most 3.
  assert.deepEqual([1, 2, 3, 4].map(() => Math.round(bucket.reserve())), [0, 0, 0, 100]);
});

test("qps 0 is no limit; a wait cut short gives its token back; a bad setting is refused", async () => {
  const off = new TokenBucket({ qps: 0, burst: 1 });
  assert.equal(off.limited, false);
  assert.deepEqual(Array.from({ length: 1000 }, () => off.reserve()).filter((w) => w > 0), []);
  // On a clock that stands still: the next token is 1 s away, and 2 s had the cut wait kept its own.
  const bucket = new TokenBucket({ qps: 1, burst: 1, now: () => 0 });
  await bucket.take();
  const aborter = new AbortController();
  const waiting = bucket.take(aborter.signal);
  aborter.abort(new Error("no longer the leader"));
  await assert.rejects(waiting, /no longer the leader/);
  assert.equal(bucket.reserve(), 1000, "the token of the cut wait was given back");
  assert.throws(() => new TokenBucket({ qps: -1, burst: 1 }), /qps >= 0/);
  assert.throws(() => new TokenBucket({ qps: 5, burst: 0 }), /burst of at least 1/);
});

test("retries wait the longer of the key's own backoff and the shared bucket: 200 keys failing at once do not all retry at once", () => {
  let now = 0;
  const queue = new WorkQueue({ baseDelayMs: 5, maxDelayMs: 60_000, retryBucket: new TokenBucket({ qps: 10, burst: 100, now: () => now }) });
  const delays = Array.from({ length: 200 }, (_, i) => queue.addRateLimited(`ns/job-${i}`));
  assert.deepEqual(delays.slice(0, 100), Array(100).fill(5), "the burst of 100 waits only its own backoff");
  assert.equal(Math.round(delays[100]), 100);
  assert.equal(Math.round(delays[199]), 10_000, "the 200th waits its turn at 10 a second");
  // One key failing again and again: its own backoff, doubling.
  now = 60_000;
  assert.deepEqual([1, 2, 3, 4].map(() => queue.addRateLimited("ns/job-0")), [10, 20, 40, 80]);
  queue.shutDown();
});
