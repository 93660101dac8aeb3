// When a fault took effect: the moment from which the soak counts the controller's convergence
// (at most 30 s). A fault's end is not that moment for every kind, and counting from it asked for
// more than Kubernetes promises, or for less:
// - kill-leader, stop-leader, stall: no controller acts until another instance holds the lease,
//   which client-go's rules (and the controller's) give it only once the lease has not changed for
//   its duration (4 s here) on the candidate's clock. A SIGKILL ends at once; its effect, no
//   leader, comes later. Counted from the fault's end, a job converged before the effect read 0 s
//   and a job the new leader had to mend had its 4 s of election inside its 30 s. Counted from the
//   first change of the lease's holder the observer's watch shows since the fault began, but no
//   later than the election's own bound after the fault began (the lease's duration and two retry
//   periods: 5 s here) or its end: an election slower than that is the controllers', and counts
//   against their 30 s.
// - partition: both instances cut off from the API server for longer than the lease, then the
//   connections dropped: none can renew or take the lease while it lasts (every write fails), so
//   the earliest a controller may act is when it ends; a candidate takes the lease once it has seen
//   it unchanged for its duration, which it has by then. Counted as the leader kinds, from the
//   first change of holder, with the election's bound counted from the partition's end.
// - api-latency, throttle, watch-expired: take effect by their end (the latency gone, no 429 more,
//   the watches listing again), as the others below.
// - restart-apiserver: from the API server serving again (the restart returns once /readyz
//   answers), the earliest anything in the cluster can act; but the observer's own watches were cut
//   by the restart, and until each has connected again its caches show the cluster as it was
//   before (a converged cluster, 0 s). The check waits for them; the clock counts from the restart's end.
// - delete-node: its pods are force-deleted before it ends; the check waits until the observer's
//   watch no longer shows them (else it reads the pods as still running, 0 s).
// - the others (pod-fail waits for the pods to be Failed, delete-job-mid-plan, refuse-creates,
//   relist) take effect by their end.
/** How long an effect is waited for; past it the clock counts from the fault's end, and the log says so. */
export const EFFECT_WAIT_S = 30;
const LEADER_KINDS = new Set(["kill-leader", "stop-leader", "stall", "partition"]);

/**
 * When `fault` ({kind, from, to, pods?}: ms; `pods`, the uids a delete-node removed) took effect,
 * as the observer shows it: `{at, checkFrom, note}`: the clock counts from `at`, the check begins
 * at `checkFrom` (once the observer's caches show the cluster since the effect), `note` says what
 * was waited for. `electionS`: the longest a new leader may take after a fault began (the lease's
 * duration and two retry periods).
 */
export async function tookEffect(fault, observer, { waitS = EFFECT_WAIT_S, electionS } = {}) {
  const { kind, from, to } = fault;
  if (LEADER_KINDS.has(kind)) {
    // No election can end inside a partition: its bound counts from the partition's end.
    const latest = kind === "partition" ? to + electionS * 1000 : Math.max(to, from + electionS * 1000);
    const change = await observer.until(() => observer.holderSince(from), waitS);
    if (!change) return { at: latest, checkFrom: observer.clock.now(), note: `no new holder of the lease within ${waitS} s: counted from the election's bound` };
    const at = Math.max(to, Math.min(change.at, latest));
    return { at, checkFrom: Math.max(at, change.at), note: `${change.identity} took the lease${change.at > latest ? `, ${((change.at - latest) / 1000).toFixed(1)} s past the election's bound (counted from the bound)` : ""}` };
  }
  if (kind === "restart-apiserver") {
    const back = await observer.until(() => observer.watchingSince(from), waitS);
    return { at: to, checkFrom: observer.clock.now(), note: back ? "the observer's watches connected again" : `the observer's watches not all back within ${waitS} s` };
  }
  if (kind === "delete-node" && fault.pods?.length) {
    const gone = await observer.until(() => {
      const uids = new Set([...observer.pods.values()].map((p) => p.metadata.uid));
      return fault.pods.every((uid) => !uids.has(uid));
    }, waitS);
    return { at: to, checkFrom: observer.clock.now(), note: gone ? "the observer saw its pods go" : `the observer still showed its pods ${waitS} s on` };
  }
  return { at: to, checkFrom: to, note: "" };
}
