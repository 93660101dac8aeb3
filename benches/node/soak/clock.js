// The soak's clock: what time it is and how to wait, in one object, so that the logic that reads
// time (when a fault took effect, how long a job took to converge, a deleted job's 60 s) runs on
// the wall clock in a soak and on a clock the test moves in its unit tests (pkg/test/clock.js).
// Node's timers count from the event loop's cached time, which can be behind Date.now(): a 300 ms
// timer may fire when Date.now() has moved 299 ms, so no test holds a timer to the wall clock.
import { setTimeout as sleep } from "node:timers/promises";

/** The wall clock: milliseconds since the epoch, and a wait of `ms`. */
export const wallClock = Object.freeze({
  now: () => Date.now(),
  sleep: (ms) => sleep(ms),
});
