// A clock the test moves: now() reads it, sleep(ms) moves it by ms and runs, in order, what the
// test scheduled for that span (after). Time passes only when the code under test waits, so a test
// of time-dependent logic gives the same answer on an idle machine and a loaded one, and runs in
// no wall time. The wall clock's counterpart: benches/node/soak/clock.js.

export class ManualClock {
  /** @param {number} [start] ms since the epoch */
  constructor(start = Date.UTC(2026, 0, 1)) {
    this.t = start;
    /** [{at, seq, fn}], run in order of `at`, then of scheduling. */
    this.timers = [];
    this.seq = 0;
  }

  now() {
    return this.t;
  }

  /** Runs `fn` when the clock has moved `ms` from now. */
  after(ms, fn) {
    this.timers.push({ at: this.t + ms, seq: this.seq++, fn });
    this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
  }

  /** Moves the clock by `ms`, running each scheduled function at its own time on the way. */
  async sleep(ms) {
    const until = this.t + ms;
    while (this.timers.length > 0 && this.timers[0].at <= until) {
      const [timer] = this.timers.splice(0, 1);
      this.t = timer.at;
      timer.fn();
    }
    this.t = until;
    // Let the other promises of the test run, as a real wait would.
    await Promise.resolve();
  }
}
