// Carries out a plan given as ordered phases (`Action[][]`): each phase a set of independent
// actions, a phase started only once the one before it is wholly done. Within a phase the actions
// run at once, as Kubernetes' ReplicaSet and Job controllers carry out theirs:
// - creations in slow start (their `slowStartBatch`): batches of 1, 2, 4, 8, ... actions, each
//   batch in parallel, stopping after the first batch with a failure, so a quota or a webhook that
//   refuses every create costs a few calls, not thousands;
// - deletions and status writes all at once (the ReplicaSet controller deletes its surplus in
//   parallel, with no slow start);
// - a cap on the pods one pass creates: a larger phase is cut there, and the pass ends after it (the
//   next pass plans the rest from what the caches then show), so no pass runs for minutes without
//   looking at the cluster;
// - expectations raised for the whole phase before its first call (a watch event may come before the
//   call's answer), lowered for each action that failed or was skipped.
// What an action does, and what its expectation is, is the caller's (`expect`, `perform`); this
// module only decides when each runs. The client's rate limiter (ratelimit.js) bounds the calls per
// second across all of it.

/** How each phase runs its actions: in slow-start batches, or all at once. */
export const PHASE_MODES = Object.freeze({ slowStart: "slowStart", parallel: "parallel" });

/** The ReplicaSet controller's `burstReplicas`: the pods one pass of it creates or deletes at most. */
export const DEFAULT_MAX_POD_CREATES = 500;

/** The first batch of a slow start (client-go's `SlowStartInitialBatchSize`). */
const SLOW_START_INITIAL_BATCH = 1;

/** A pass was cut short: some of its actions were not tried. */
export class Incomplete extends Error {
  /**
   * @param {"failed" | "capped" | "gone"} why
   * @param {number} skipped actions not tried
   * @param {Error} [cause] the first failure, when one cut the pass
   */
  constructor(why, skipped, cause) {
    super(cause ? cause.message : `${skipped} action(s) left for the next pass (${why})`);
    this.name = "Incomplete";
    Object.assign(this, { why, skipped, cause });
    if (cause) {
      for (const key of ["status", "reason", "code"]) {
        if (cause[key] !== undefined) {
          this[key] = cause[key];
        }
      }
    }
  }
}

/**
 * Runs `run(item)` for `items` in batches of 1, 2, 4, ... (each batch at once; at most `limit` a
 * batch when given), stopping after the first batch in which one rejected. Resolves to
 * `{succeeded, failures, skipped}`: `failures` the errors of the batch that stopped (in item order),
 * `skipped` the items never started.
 * @template T
 * @param {T[]} items
 * @param {(item: T) => Promise<unknown>} run
 * @param {{initial?: number, before?: () => void}} [options] `before` is called before each batch (it may throw to stop)
 */
export async function slowStartBatch(items, run, { initial = SLOW_START_INITIAL_BATCH, before = () => {} } = {}) {
  let succeeded = 0;
  let next = 0;
  for (let size = Math.min(initial, items.length); next < items.length; size = Math.min(2 * size, items.length - next)) {
    before();
    const batch = items.slice(next, next + size);
    next += batch.length;
    const settled = await Promise.allSettled(batch.map((item) => run(item)));
    const failures = settled.filter((s) => s.status === "rejected").map((s) => s.reason);
    succeeded += settled.length - failures.length;
    if (failures.length > 0) {
      return { succeeded, failures, skipped: items.slice(next) };
    }
  }
  return { succeeded, failures: [], skipped: [] };
}

/**
 * The phases one pass carries out under the cap of `max` pod creations: the first `max` pod creations,
 * what only serves the pods left out dropped (`serves(action, podCreate)`: a pod's service), and the
 * phases after the cut one left for the next pass. `left` counts the actions left out.
 */
export function capPhases(phases, max, isPodCreate, serves) {
  let allowed = max;
  const dropped = new Set();
  let cut = -1;
  for (const [index, phase] of phases.entries()) {
    for (const action of phase.actions) {
      if (isPodCreate(action) && allowed-- <= 0) {
        dropped.add(action);
        cut = index;
      }
    }
    if (cut >= 0) {
      break;
    }
  }
  if (cut < 0) {
    return { phases, left: 0 };
  }
  const kept = phases
    .slice(0, cut + 1)
    .flatMap((p) => p.actions)
    .filter((a) => isPodCreate(a) && !dropped.has(a));
  const leftOutPods = [...dropped];
  let left = 0;
  const capped = phases.map((phase, index) => {
    if (index > cut) {
      left += phase.actions.length;
      return { ...phase, actions: [] };
    }
    const actions = phase.actions.filter((a) => {
      const leftOut = dropped.has(a) || (!isPodCreate(a) && leftOutPods.some((pod) => serves(a, pod)) && !kept.some((pod) => serves(a, pod)));
      left += leftOut ? 1 : 0;
      return !leftOut;
    });
    return { ...phase, actions };
  });
  return { phases: capped, left };
}

/**
 * Carries out `phases` in order. Resolves once every action is done; rejects with the first failure
 * of a phase (an Incomplete naming what was skipped, the failure as its `cause`), or with an
 * Incomplete `capped` when the pod cap left part of the plan for the next pass, or `gone` when
 * `perform` reported that the object a later phase is for no longer exists.
 *
 * @param {{mode: "slowStart" | "parallel", actions: object[]}[]} phases
 * @param {object} hooks
 * @param {(action: object) => object | undefined} hooks.expect raises the action's expectation (before any call of its phase); returns it
 * @param {(action: object, expectation: object | undefined) => Promise<string>} hooks.perform carries the action out; resolves to its outcome
 * @param {(action: object, expectation: object | undefined) => void} hooks.unexpect lowers the expectation of an action that failed or was skipped
 * @param {(action: object) => boolean} hooks.isPodCreate whether the action creates a pod (counted against the cap)
 * @param {(action: object, podCreate: object) => boolean} [hooks.serves] whether the action is there for that pod (left out with it)
 * @param {(outcome: string, action: object) => boolean} [hooks.endsPass] whether an outcome makes the rest of the plan moot
 * @param {() => void} [hooks.beforeBatch] called before each batch; throws to stop (the controller is stopping)
 * @param {number} [hooks.maxPodCreates] pods one pass creates at most
 */
export async function carryOutPhases(
  phases,
  { expect, perform, unexpect, isPodCreate, serves = () => false, endsPass = () => false, beforeBatch = () => {}, maxPodCreates = DEFAULT_MAX_POD_CREATES },
) {
  const { phases: pass, left } = capPhases(phases, maxPodCreates, isPodCreate, serves);
  for (const [index, phase] of pass.entries()) {
    const later = pass.slice(index + 1).reduce((n, p) => n + p.actions.length, 0) + left;
    const { actions } = phase;
    if (actions.length === 0) {
      continue;
    }
    const expected = new Map(actions.map((a) => [a, expect(a)]));
    const started = new Set();
    let ended = false;
    const run = async (action) => {
      started.add(action);
      let outcome;
      try {
        outcome = await perform(action, expected.get(action));
      } catch (e) {
        unexpect(action, expected.get(action));
        throw e;
      }
      if (endsPass(outcome, action)) {
        ended = true;
      }
      return outcome;
    };
    let result;
    try {
      result =
        phase.mode === PHASE_MODES.slowStart
          ? await slowStartBatch(actions, run, { before: beforeBatch })
          : (beforeBatch(), await allAtOnce(actions, run));
    } catch (e) {
      // Stopped before a batch: what was not started waits for nothing.
      for (const action of actions.filter((a) => !started.has(a))) {
        unexpect(action, expected.get(action));
      }
      throw e;
    }
    for (const action of result.skipped) {
      unexpect(action, expected.get(action));
    }
    if (result.failures.length > 0) {
      throw new Incomplete("failed", result.skipped.length + later, result.failures[0]);
    }
    if (ended) {
      throw new Incomplete("gone", later);
    }
  }
  if (left > 0) {
    throw new Incomplete("capped", left);
  }
}

async function allAtOnce(actions, run) {
  const settled = await Promise.allSettled(actions.map((a) => run(a)));
  const failures = settled.filter((s) => s.status === "rejected").map((s) => s.reason);
  return { succeeded: settled.length - failures.length, failures, skipped: [] };
}
