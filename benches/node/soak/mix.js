// The soak's job mix, and its size knob SOAK_PODS (docs/controller.md's "The chaos soak", "At
// scale"). Without it, today's mix: up to 8 played jobs of 1 to 100 workers, one arriving every 8
// to 20 s, each living 60 to 150 s (some 100 to 400 live pods). With SOAK_PODS=T, played jobs
// arrive every 1 to 2 s while they ask fewer than T pods and fewer than BACKLOG of the pods they
// ask are not yet Running, with twice today's sizes (2 to 200 workers: the mix keeps its shape,
// many small jobs and a few large ones, and no one job is a burst of thousands of creates), and
// live 600 to 1,200 s, so the cluster holds about T live pods for most of the run at a churn the
// test cluster's garbage collector keeps up with (with lives of 240 to 480 s, seed 5003, the jobs
// leaving some 15 pods and 15 services a second, it collected nothing of the jobs deleted after its
// 7th minute: 7,572 objects of deleted jobs, none marked, 4 minutes on; docs/controller.md). The faults that act on a number of pods scale with k = round(T / 1,000)
// (pod-fail fails 1 to 3 x k workers, a scale to 1 to 12 x k, a scale-up mid-plan to 8 to 30 x k);
// delete-node scales by itself (a node holds about 1/nodes of the pods). The job of DLRover's
// real master keeps today's sizes: its first plan asks 16 CPU a pod (mk/cluster.mk).
export const SIZES = [1, 2, 3, 4, 6, 8, 12, 16, 24, 40, 100];

/**
 * A sized mix's arrivals wait while this many pods its jobs ask are not Running. The first trial
 * at 5,000 (seed 5001, on the two shared cores) offered jobs faster than the API server took their
 * pods: 2,763 made in 3 minutes, job masters made 57 s after their job, and every fault's 30 s
 * passed with creates still queued. Jobs arrive as the cluster takes them, as a real queue
 * (Kueue's admission) lets them in.
 */
export const BACKLOG = 250;

/** The mix for `target` live pods (undefined: today's). */
export function mix(target) {
  if (target === undefined) {
    return { target: undefined, k: 1, sizes: SIZES, maxJobs: 8, arrivalS: [8, 20], lifetimeS: [60, 150] };
  }
  if (!Number.isInteger(target) || target < 100) throw new Error(`SOAK_PODS: ${target}: a whole number of live pods, 100 or more`);
  const k = Math.max(1, Math.round(target / 1000));
  return { target, k, sizes: SIZES.map((s) => s * 2), maxJobs: Infinity, arrivalS: [1, 2], lifetimeS: [600, 1200], backlog: BACKLOG };
}

/** SOAK_PODS from the environment: undefined when unset or empty. */
export function targetFromEnv(value) {
  return value === undefined || value === "" ? undefined : Number(value);
}

/** The task pods a job asks for now (its replicas, its workers as last scaled, and its master). */
export function asked(state) {
  const specs = state.job.spec.replicaSpecs;
  return 1 + Object.entries(specs).reduce((a, [type, s]) => a + (type === "worker" && state.workers !== undefined ? state.workers : (s?.replicas ?? 0)), 0);
}
