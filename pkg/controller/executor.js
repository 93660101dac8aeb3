// Carries out a plan given as ordered phases, each a set of independent steps carried out in the
// phase's mode (the core says which), a phase started only once the one before it is wholly done:
// - `slowStart`: batches of 1, 2, 4, 8, ... steps, each batch in parallel, stopping after the first
//   batch with a failure (Kubernetes' `slowStartBatch`), so a quota or a webhook that refuses every
//   create costs a few calls, not thousands;
// - `parallel`: every step at once (the ReplicaSet controller deletes its surplus so).
// Each step's expectation is raised for its whole phase before the phase's first call (a watch event
// may come before the call's answer), and lowered for each step that failed or was not started.
// What a step does is its own (handlers.js); this module decides only when each runs. The client's
// rate limiter (ratelimit.js) bounds the calls per second across all of it.

/** The first batch of a slow start (client-go's `SlowStartInitialBatchSize`). */
const SLOW_START_INITIAL_BATCH = 1;

/**
 * Runs `run(item)` for `items` in batches of 1, 2, 4, ... (each batch at once), stopping after the
 * first batch in which one rejected, or before a batch once `stopping()`. Resolves to `{succeeded,
 * failures, skipped}`: `failures` the errors of the batch that stopped (in item order), `skipped`
 * the items never started.
 * @template T
 * @param {T[]} items
 * @param {(item: T) => Promise<unknown>} run
 * @param {{initial?: number, stopping?: () => boolean}} [options]
 */
export async function slowStartBatch(items, run, { initial = SLOW_START_INITIAL_BATCH, stopping = () => false } = {}) {
  let succeeded = 0;
  let next = 0;
  let failures = [];
  for (let size = Math.min(initial, items.length); next < items.length && failures.length === 0; size = Math.min(2 * size, items.length - next)) {
    if (stopping()) {
      break;
    }
    const batch = items.slice(next, next + size);
    next += batch.length;
    failures = rejections(await Promise.allSettled(batch.map((item) => run(item))));
    succeeded += batch.length - failures.length;
  }
  return { succeeded, failures, skipped: items.slice(next) };
}

/**
 * Carries out `phases` in order and resolves to what happened, never rejecting for a step's
 * failure: `{outcome, skipped, failure?}`, `outcome` one of
 * - `done`: every step was carried out;
 * - `failed`: a step failed (`failure`, the first one), and the rest of its phase (in slow start)
 *   and every later phase were not started;
 * - `gone`: a step found that the object the plan is for no longer exists (`step.ends(outcome)`),
 *   and the later phases were not started;
 * - `stopped`: `stopping()` held before a batch.
 * `skipped` counts the steps not started.
 *
 * @param {{mode: "slowStart" | "parallel", steps: Step[]}[]} phases
 * @param {{stopping?: () => boolean}} [options]
 *
 * @typedef {object} Step
 * @property {() => void} expect raises the step's expectation (before any call of its phase)
 * @property {() => Promise<string>} perform carries it out; resolves to its outcome
 * @property {() => void} unexpect lowers the expectation of a step that failed or was not started
 * @property {(outcome: string) => boolean} ends whether its outcome makes the rest of the plan moot
 */
export async function carryOutPhases(phases, { stopping = () => false } = {}) {
  for (const [index, { mode, steps }] of phases.entries()) {
    const later = phases.slice(index + 1).reduce((n, p) => n + p.steps.length, 0);
    for (const step of steps) {
      step.expect();
    }
    const started = new Set();
    const failures = [];
    let ended = false;
    const run = async (step) => {
      started.add(step);
      try {
        const outcome = await step.perform();
        ended ||= step.ends(outcome);
      } catch (e) {
        step.unexpect();
        failures.push({ step, e });
        throw e;
      }
    };
    if (mode === "slowStart") {
      await slowStartBatch(steps, run, { stopping });
    } else if (!stopping()) {
      await Promise.allSettled(steps.map(run));
    }
    const notStarted = steps.filter((s) => !started.has(s));
    for (const step of notStarted) {
      step.unexpect();
    }
    if (failures.length > 0) {
      // The first failure in the plan's order, as a log and a retry would name it.
      const first = failures.sort((a, b) => steps.indexOf(a.step) - steps.indexOf(b.step))[0];
      return { outcome: "failed", skipped: notStarted.length + later, failure: first.e };
    }
    if (notStarted.length > 0) {
      return { outcome: "stopped", skipped: notStarted.length + later };
    }
    if (ended) {
      return { outcome: "gone", skipped: later };
    }
  }
  return { outcome: "done", skipped: 0 };
}

function rejections(settled) {
  return settled.filter((s) => s.status === "rejected").map((s) => s.reason);
}
