// Events on the jobs (core/v1 Events, as client-go's EventRecorder writes them), aggregated the way
// its EventCorrelator does: an event of the same object, type and reason as one recorded before is
// not a new Event but that one's `count` raised and its `lastTimestamp` and message brought up to
// date (one PATCH). A pass records at most one event of each reason, counting what it stands for
// (four refused creates: count 4), so a 1,000-pod plan writes one event, not 1,000.
import { isNotFound } from "./adapter.js";

/** Events of one object and reason kept for aggregation (client-go's LRU holds 4,096). */
const MAX_KEPT = 4096;
/** A message is cut here (the API server takes 1 KiB at most in a kubectl-friendly event). */
const MAX_MESSAGE = 1024;
const COMPONENT = "elasticjob-controller";

/** A time as Kubernetes writes it (and the core takes it): RFC 3339, whole seconds, UTC. */
export function rfc3339(date) {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

export class EventRecorder {
  /**
   * @param {object} options
   * @param {{create: Function, patch: Function}} options.adapter
   * @param {import("./log.js").Logger} options.log
   * @param {import("./metrics.js").Metrics} [options.metrics]
   * @param {() => Date} [options.clock]
   */
  constructor({ adapter, log, metrics, clock = () => new Date() }) {
    Object.assign(this, { adapter, log, metrics, clock });
    /** `uid/type/reason` -> {name, namespace, count} of the Event written */
    this.kept = new Map();
  }

  /**
   * Records an event on `obj` (the job): `type` Normal or Warning, `reason` UpperCamelCase,
   * `count` how many occurrences it stands for. Never rejects: a lost event is logged.
   */
  async record(obj, type, reason, message, count = 1) {
    const namespace = obj.metadata.namespace;
    const key = `${obj.metadata.uid}/${type}/${reason}`;
    const time = rfc3339(this.clock());
    const text = message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 3)}...` : message;
    const kept = this.kept.get(key);
    try {
      if (kept) {
        kept.count += count;
        this.kept.delete(key);
        this.kept.set(key, kept);
        try {
          await this.adapter.patch("Event", namespace, kept.name, { count: kept.count, lastTimestamp: time, message: text });
          this.metrics?.events.inc({ type, how: "counted" });
          return;
        } catch (e) {
          if (!isNotFound(e)) {
            throw e;
          }
          // Gone (events expire after an hour): a new one.
          this.kept.delete(key);
        }
      }
      const name = `${obj.metadata.name}.${this.clock().getTime().toString(16)}${Math.floor(Math.random() * 0xffff).toString(16)}`;
      const event = {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name, namespace },
        involvedObject: {
          apiVersion: obj.apiVersion,
          kind: obj.kind,
          name: obj.metadata.name,
          namespace,
          uid: obj.metadata.uid,
          resourceVersion: obj.metadata.resourceVersion,
        },
        reason,
        message: text,
        type,
        source: { component: COMPONENT },
        reportingComponent: COMPONENT,
        firstTimestamp: time,
        lastTimestamp: time,
        count,
      };
      await this.adapter.create("Event", event);
      this.metrics?.events.inc({ type, how: "created" });
      this.kept.set(key, { name, count });
      if (this.kept.size > MAX_KEPT) {
        this.kept.delete(this.kept.keys().next().value);
      }
    } catch (error) {
      this.log.warn("could not record the event", { object: `${namespace}/${obj.metadata.name}`, reason, error });
    }
  }

  /** Forgets the events of an object (it is gone). */
  forget(uid) {
    for (const key of this.kept.keys()) {
      if (key.startsWith(`${uid}/`)) {
        this.kept.delete(key);
      }
    }
  }
}
