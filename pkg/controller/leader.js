// Leader election on a coordination.k8s.io Lease, with the rules of client-go's leaderelection:
// - a candidate takes the lease when it has no holder, or when its record has not changed for
//   leaseDurationSeconds as measured on the candidate's own clock (from when it last saw the record
//   change: no trust in the holder's clock);
// - the leader renews every retry period and gives up leading the moment the renew deadline has
//   passed since its last renewal was sent: every renewal is cut at that deadline (as client-go
//   bounds it by a context timeout), so a request that hangs cannot keep it acting while a
//   candidate, which waits the longer lease duration, takes over;
// - on a clean stop the leader releases the lease (no holder, a 1 s duration), so the next candidate
//   takes over at its next try instead of after the lease time.
// Every write carries the resourceVersion read, so two candidates never both win.
import { setTimeout as sleep } from "node:timers/promises";
import { isConflict, isNotFound } from "./adapter.js";
import { leaseTimingsProblem } from "./defaults.js";

/** A Lease's MicroTime: RFC 3339 with microseconds. */
function microTime(date) {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

export class LeaderElector {
  /**
   * @param {object} options
   * @param {import("./adapter.js").KubeAdapter} options.adapter
   * @param {string} options.namespace the Lease's namespace
   * @param {string} options.name the Lease's name
   * @param {string} options.identity this candidate (holderIdentity)
   * @param {number} options.leaseDurationSeconds
   * @param {number} options.renewDeadlineSeconds
   * @param {number} options.retryPeriodSeconds
   * @param {import("./log.js").Logger} options.log
   * @param {() => number} [options.now] the clock the lease is measured on (ms); a test gives one it moves
   */
  constructor({ adapter, namespace, name, identity, leaseDurationSeconds, renewDeadlineSeconds, retryPeriodSeconds, log, now = () => Date.now() }) {
    const problem = leaseTimingsProblem(leaseDurationSeconds, renewDeadlineSeconds, retryPeriodSeconds);
    if (problem) {
      throw new RangeError(`leader election: ${problem}`);
    }
    Object.assign(this, { adapter, namespace, name, identity, leaseDurationSeconds, renewDeadlineSeconds, retryPeriodSeconds, now });
    this.log = log.child({ lease: `${namespace}/${name}`, identity });
    /** The Lease as last read or written. */
    this.lease = undefined;
    /** When (on this clock) the Lease was last seen to change. */
    this.observedAt = 0;
    this.leading = false;
    /** When (on this.now()) the request of the last renewal that succeeded was sent. */
    this.renewedAt = 0;
    this.abort = new AbortController();
  }

  /** Tries every retry period until this candidate leads (true), or until stopped (false). */
  async acquire() {
    this.log.info("waiting for the leader lease");
    let lastHolder;
    while (!this.abort.signal.aborted) {
      if (await this.tryAcquireOrRenew(this.bounded(this.renewDeadlineSeconds * 1000))) {
        this.leading = true;
        this.renewedAt = this.sentAt;
        this.log.info("became the leader", { leaseTransitions: this.lease.spec.leaseTransitions ?? 0 });
        return true;
      }
      const holder = this.lease?.spec?.holderIdentity;
      if (holder !== lastHolder) {
        this.log.info("the lease is held by another instance", { holder });
        lastHolder = holder;
      }
      if (!(await this.pause(this.retryPeriodSeconds * 1000 * (1 + Math.random() * 0.2)))) {
        return false;
      }
    }
    return false;
  }

  /**
   * Renews every retry period while leading. Resolves when stopped (after releasing the lease) or,
   * with `lost` true, the moment the renew deadline has passed since the last renewal was sent,
   * whatever request is under way (it is cut then).
   * @param {number} [acquiredAt] when (on this.now()) the request that won the lease was sent
   */
  keepRenewing(acquiredAt = this.sentAt) {
    const deadlineMs = this.renewDeadlineSeconds * 1000;
    this.renewedAt = acquiredAt ?? this.now();
    let timer;
    const lost = new Promise((resolve) => {
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          this.leading = false;
          this.renewal?.abort(new Error("the renew deadline passed"));
          this.log.error("could not renew the leader lease within the renew deadline: no longer the leader", {
            renewDeadlineSeconds: this.renewDeadlineSeconds,
            lastRenewal: new Date(this.renewedAt).toISOString(),
          });
          resolve({ lost: true });
        }, this.renewedAt + deadlineMs - this.now());
      };
      this.rearm = arm;
      arm();
    });
    const renewing = (async () => {
      while (this.leading && (await this.pause(this.retryPeriodSeconds * 1000))) {
        if (!this.leading) {
          break;
        }
        const sentAt = this.now();
        this.renewal = new AbortController();
        const signal = AbortSignal.any([this.renewal.signal, this.bounded(this.renewedAt + deadlineMs - sentAt)]);
        if ((await this.tryAcquireOrRenew(signal)) && this.leading) {
          this.renewedAt = sentAt;
          this.rearm();
        }
      }
      return { lost: false };
    })();
    return Promise.race([lost, renewing]).finally(() => clearTimeout(timer));
  }

  /**
   * Whether this instance may act now: it leads and its last renewal was sent less than the renew
   * deadline ago. Read on this clock at the moment of asking, not from the timer that ends the
   * leading: a process stopped (SIGSTOP) past its lease and continued runs whatever was ready
   * before that timer, and none of it may write, since another instance may lead by then.
   */
  holds() {
    return this.leading && this.now() < this.renewedAt + this.renewDeadlineSeconds * 1000;
  }

  /** A signal that aborts after `ms`, or when the elector is stopped. */
  bounded(ms) {
    return AbortSignal.any([this.abort.signal, AbortSignal.timeout(Math.max(1, ms))]);
  }

  /** Waits `ms`; false when stopped meanwhile. */
  async pause(ms) {
    try {
      await sleep(ms, undefined, { signal: this.abort.signal });
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Stops trying and renewing; releases the lease when leading. A renewal cut by the stop may have
   * been written all the same, so the lease this leader last saw is refused (409): it is read
   * again, and released if it is still this instance's.
   */
  async stop() {
    this.abort.abort();
    if (!this.leading) {
      return;
    }
    this.leading = false;
    let lease = this.lease;
    for (let attempt = 1; ; attempt += 1) {
      try {
        lease ??= await this.adapter.get("Lease", this.namespace, this.name);
        if ((lease.spec?.holderIdentity ?? "") !== this.identity) {
          this.log.info("the leader lease is another instance's already: nothing to release", { holder: lease.spec?.holderIdentity });
          return;
        }
        const now = microTime(new Date(this.now()));
        const spec = { ...lease.spec, holderIdentity: undefined, leaseDurationSeconds: 1, acquireTime: now, renewTime: now };
        await this.adapter.replace("Lease", { ...lease, spec });
        this.log.info("released the leader lease");
        return;
      } catch (e) {
        if (attempt < 3 && isConflict(e)) {
          lease = undefined;
          continue;
        }
        this.log.warn("could not release the leader lease; another instance takes over once it expires", { error: e });
        return;
      }
    }
  }

  /** One try: read the lease (or use the one this leader wrote last), then create, renew or take it. */
  async tryAcquireOrRenew(signal) {
    const now = new Date(this.now());
    this.sentAt = now.getTime();
    let lease = this.leading ? this.lease : undefined;
    if (!lease) {
      try {
        lease = await this.adapter.get("Lease", this.namespace, this.name, { signal });
      } catch (e) {
        if (!isNotFound(e)) {
          this.log.warn("could not read the leader lease", { error: e });
          return false;
        }
        return this.write("create", signal, {
          apiVersion: "coordination.k8s.io/v1",
          kind: "Lease",
          metadata: { name: this.name, namespace: this.namespace },
          spec: { ...this.spec({}, now), leaseTransitions: 0 },
        });
      }
      this.observe(lease);
    }
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? "";
    const duration = (spec.leaseDurationSeconds ?? this.leaseDurationSeconds) * 1000;
    if (holder !== "" && holder !== this.identity && this.now() < this.observedAt + duration) {
      return false;
    }
    const written = await this.write("replace", signal, { ...lease, spec: this.spec(spec, now) });
    if (!written && this.leading) {
      // The lease changed under this leader (or the write failed): read it again next time.
      this.lease = undefined;
    }
    return written;
  }

  /** The spec this candidate writes over `spec`: itself as holder, renewed now. */
  spec(spec, now) {
    const mine = spec.holderIdentity === this.identity;
    const transitions = spec.leaseTransitions ?? 0;
    return {
      ...spec,
      holderIdentity: this.identity,
      leaseDurationSeconds: this.leaseDurationSeconds,
      acquireTime: mine && spec.acquireTime ? spec.acquireTime : microTime(now),
      renewTime: microTime(now),
      leaseTransitions: mine ? transitions : transitions + 1,
    };
  }

  async write(how, signal, lease) {
    try {
      this.observe(how === "create" ? await this.adapter.create("Lease", lease, { signal }) : await this.adapter.replace("Lease", lease, { signal }));
      return true;
    } catch (e) {
      // A conflict is another candidate's write: it won this round.
      this.log.debug("could not write the leader lease", { error: e });
      return false;
    }
  }

  observe(lease) {
    if (lease.metadata?.resourceVersion !== this.lease?.metadata?.resourceVersion || this.observedAt === 0) {
      this.observedAt = this.now();
    }
    this.lease = lease;
  }
}
