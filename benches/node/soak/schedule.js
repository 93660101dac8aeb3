// The soak's fault schedule: which kind comes next, and how many of each were tried and injected.
// Every kind in turn, in rounds the seed shuffles, so every kind comes in a short run. A kind that
// finds nothing to act on (no running worker to fail, no node with pods, no played job) gives its
// turn to the next kind of the round and keeps its place at the head: it is tried again after the
// next injection, and never twice in a row without one (the 30-minute run that tried pod-fail every
// 2 s for 20 minutes, none injected, had nothing else left in its round).
export class Schedule {
  constructor(kinds, rand) {
    this.kinds = kinds;
    this.rand = rand;
    this.queue = [];
    /** Kinds that found nothing since the last injection: not offered again until one is injected. */
    this.idle = new Set();
    this.tried = Object.fromEntries(kinds.map((k) => [k, 0]));
    this.injected = Object.fromEntries(kinds.map((k) => [k, 0]));
  }

  /** The next kind to try; undefined when every kind found nothing since the last injection. */
  next() {
    if (this.queue.length === 0) this.queue = this.rand.shuffle([...this.kinds]);
    let kind = this.queue.find((k) => !this.idle.has(k));
    if (kind === undefined) {
      // The round's kinds left all found nothing: the next round's come after them.
      const fresh = this.rand.shuffle(this.kinds.filter((k) => !this.queue.includes(k)));
      this.queue.push(...fresh);
      kind = fresh.find((k) => !this.idle.has(k));
    }
    return kind;
  }

  /** `kind` was tried and found nothing to act on. */
  nothing(kind) {
    this.tried[kind] += 1;
    this.idle.add(kind);
  }

  /** `kind` was injected: it leaves the round, and the kinds that found nothing may try again. */
  done(kind) {
    this.tried[kind] += 1;
    this.injected[kind] += 1;
    this.queue.splice(this.queue.indexOf(kind), 1);
    this.idle.clear();
  }

  /** Every kind found nothing since the last injection: all may try again (after a wait). */
  reset() {
    this.idle.clear();
  }

  /** The kinds never injected. */
  never() {
    return this.kinds.filter((k) => this.injected[k] === 0);
  }
}
