// How the controller carries out each kind of action the core plans: one handler a kind, each
// saying what the caches must show afterwards (`expect`: the expectation raised before the call),
// how to carry it out against the API server (`perform`: resolves to its outcome, `done`, `exists`
// or `gone`; rejects only for a real failure), what names it in a log line (`describe`), and the
// reason of the Warning event a refusal of it gets (`refused`, as Kubernetes' controllers name
// theirs). A handler decides nothing the core decides: what to create, delete or write, and why, is
// the action's.
//
// `pass` is the pass under way (reconciler.js): the job's objects as observed (`job`, `plans`,
// `pods`, `services`), what the pass wrote (`done`: made and deleted objects; `fresh`: objects read
// again), the `adapter`, the `expectations`, the caches (with Kueue, the Workloads' too; with a
// gang scheduler, the PodGroups'), and
// `tell` (an event of the pass, told once it has ended).
import { text } from "../node.js";
import { isAlreadyExists, isConflict, isNotFound, podGroupKind } from "./adapter.js";
import { jsonOf } from "./texts.js";

/** A status write found the object changed since it was read: the pass reads it again and plans again. */
export class StatusConflict extends Error {
  constructor(kind, obj, cause) {
    super(cause.message, { cause });
    this.name = "StatusConflict";
    Object.assign(this, { kind, namespace: obj.metadata.namespace, name: obj.metadata.name, status: cause.status, reason: cause.reason });
  }
}

/**
 * An update of an object at the resourceVersion the core read found it changed since (409): the
 * pass ends and the job is tried again with backoff, planned from what the caches then show, as
 * the schedulers' own controllers requeue on a conflict. No Warning event: nothing is wrong.
 */
export class WriteConflict extends Error {
  constructor(kind, obj, cause) {
    super(cause.message, { cause });
    this.name = "WriteConflict";
    Object.assign(this, { kind, namespace: obj.metadata.namespace, name: obj.metadata.name, status: cause.status, reason: cause.reason });
  }
}

const namespaceOf = (action, pass) => action.namespace ?? pass.job?.metadata?.namespace;

/** Where an object of a plan lives: its namespace and name. */
const at = (obj) => [obj.metadata.namespace, obj.metadata.name];

export const HANDLERS = {
  adoptPod: {
    refused: "FailedAdopt",
    describe: (a) => ({ name: a.name, reason: a.reason, cause: a.cause }),
    // The next pass sees the pod the job's once its watch event arrives; until then it plans the
    // same adoption, which is a no-op patch.
    expect: () => undefined,
    async perform(pass, a) {
      // As Kubernetes' controllers recheck before they adopt: the job read again, not from the
      // cache (once a pass, for all its adoptions), is still the one of the owner reference and is
      // not being deleted. Otherwise the pass fails, and the next one plans from what the caches
      // then show.
      pass.adopterRead ??= getOrGone(pass.adapter, "ElasticJob", ...at(pass.job));
      const job = await pass.adopterRead;
      if (!job || job.metadata.uid !== a.owner.uid || job.metadata.deletionTimestamp) {
        throw new Error(`job ${pass.job.metadata.name} was deleted or made again since it was read: pod ${a.name} is not adopted`);
      }
      try {
        await pass.adapter.adopt("Pod", namespaceOf(a, pass), a.name, a.uid, a.owner);
      } catch (e) {
        // Gone, or another pod of that name now (the uid precondition): nothing to adopt.
        if (isNotFound(e) || isConflict(e)) {
          return "gone";
        }
        throw e;
      }
      return "done";
    },
  },

  createPod: {
    refused: "FailedCreate",
    describe: (a) => ({ name: a.pod.metadata.name, reason: a.reason, cause: a.cause }),
    expect: (pass, a) => pass.expectations.presence(pass.key, "Pod", ...at(a.pod), true),
    async perform(pass, a, expected) {
      const { outcome, object } = await createOrExists(pass.adapter, "Pod", a.pod);
      expected.uid = object?.metadata?.uid;
      pass.done.created.set(a.pod.metadata.name, object ?? a.pod);
      return outcome;
    },
  },

  createOrUpdateService: {
    refused: "FailedCreate",
    describe: (a) => ({ name: a.service.metadata.name, reason: a.reason, cause: a.cause }),
    expect: (pass, a) => pass.expectations.presence(pass.key, "Service", ...at(a.service), true),
    async perform(pass, a, expected) {
      // A create, which costs the API server a fifth of an apply (no managed fields to merge); a
      // service of that name is applied over only when the job controls it (the core says whether:
      // the caches hold only the services with the job's label, so the core has not seen it).
      let { object } = await createOrExists(pass.adapter, "Service", a.service);
      if (!object) {
        const there = await getOrGone(pass.adapter, "Service", ...at(a.service));
        if (there && !text.jobControls(jsonOf(pass.job), JSON.stringify(there))) {
          throw new Error(`service ${a.service.metadata.name} exists and this job does not control it: it is left as it is`);
        }
        object = await pass.adapter.apply("Service", a.service);
      }
      expected.uid = object?.metadata?.uid;
      pass.done.services.set(a.service.metadata.name, object?.metadata ? object : a.service);
      pass.done.deletedServices.delete(a.service.metadata.name);
      return "done";
    },
  },

  deletePod: {
    refused: "FailedDelete",
    describe: (a) => ({ name: a.name, reason: a.reason, cause: a.cause }),
    expect: (pass, a) => {
      const uid = pass.pods.find((p) => p.metadata.name === a.name)?.metadata?.uid;
      return pass.expectations.presence(pass.key, "Pod", namespaceOf(a, pass), a.name, false, uid);
    },
    async perform(pass, a, expected) {
      // The uid a precondition: a newer pod of the same name is not this one.
      const outcome = await deleteOrGone(pass.adapter, "Pod", namespaceOf(a, pass), a.name, { gracePeriodSeconds: 0, uid: expected.uid });
      pass.done.deleted.add(a.name);
      pass.done.created.delete(a.name);
      return outcome;
    },
  },

  deleteService: {
    refused: "FailedDelete",
    describe: (a) => ({ name: a.name, reason: a.reason, cause: a.cause }),
    expect: (pass, a) => {
      const uid = pass.services.find((s) => s.metadata.name === a.name)?.metadata?.uid;
      return pass.expectations.presence(pass.key, "Service", namespaceOf(a, pass), a.name, false, uid);
    },
    async perform(pass, a, expected) {
      // The uid a precondition, as for pods: a service made again since is not this one.
      const outcome = await deleteOrGone(pass.adapter, "Service", namespaceOf(a, pass), a.name, { uid: expected.uid });
      pass.done.deletedServices.add(a.name);
      pass.done.services.delete(a.name);
      return outcome;
    },
  },

  setJobStatus: {
    refused: "FailedUpdateStatus",
    // The job is gone: the rest of the plan is for an object that is no more.
    endsWhenGone: true,
    describe: (a) => ({ phase: a.status.phase, scalePlan: a.status.scalePlan, cause: a.cause }),
    expect: (pass) => expectNewer(pass, "ElasticJob", pass.job),
    perform: (pass, a) => writeStatus(pass, "ElasticJob", pass.job, a.status),
  },

  deleteJob: {
    refused: "FailedDelete",
    // The job is gone: nothing of the plan is left for it.
    endsWhenGone: true,
    describe: (a) => ({ name: a.name, reason: a.reason, cause: a.cause }),
    // Its watch brings the deletion, and the pass that finds no job forgets it.
    expect: () => undefined,
    // The uid a precondition: a job made again under its name is not this one.
    perform: (pass, a) => deleteOrGone(pass.adapter, "ElasticJob", namespaceOf(a, pass), a.name, { uid: pass.job?.metadata?.uid }),
  },

  setScalePlanStatus: {
    refused: "FailedUpdateStatus",
    endsWhenGone: true,
    describe: (a) => ({ name: a.name, phase: a.status.phase, cause: a.cause }),
    expect: (pass, a) => {
      const plan = pass.plans.find((p) => p.metadata.name === a.name);
      return plan ? expectNewer(pass, "ScalePlan", plan) : undefined;
    },
    perform(pass, a) {
      const plan = pass.plans.find((p) => p.metadata.name === a.name);
      return plan ? writeStatus(pass, "ScalePlan", plan, a.status) : "gone";
    },
  },
};

// Kueue's (the controller run with `--kueue`): the job's Workload, its `spec.suspend`, the
// Workload's status, and the events the core asks for.
Object.assign(HANDLERS, {
  createOrUpdateWorkload: {
    refused: "FailedCreate",
    describe: (a) => ({ name: a.workload.metadata.name, reason: a.reason, cause: a.cause }),
    expect(pass, a) {
      const observed = cachedWorkload(pass, ...at(a.workload));
      return observed && a.workload.metadata.resourceVersion !== undefined
        ? pass.expectations.newer(pass.key, "Workload", ...at(observed), [observed.metadata.resourceVersion])
        : pass.expectations.presence(pass.key, "Workload", ...at(a.workload), true);
    },
    async perform(pass, a, expected) {
      if (a.workload.metadata.resourceVersion === undefined) {
        const { outcome, object } = await createOrExists(pass.adapter, "Workload", a.workload);
        expected.uid = object?.metadata?.uid;
        if (outcome === "done") {
          return outcome;
        }
      }
      // The Workload the core read: its spec replaced by the core's, at the resourceVersion read (a
      // conflict fails the pass, which is tried again from the caches). One made by another object
      // is left alone.
      const there = cachedWorkload(pass, ...at(a.workload)) ?? (await getOrGone(pass.adapter, "Workload", ...at(a.workload)));
      if (!there) {
        return "gone";
      }
      if (!text.jobControls(jsonOf(pass.job), JSON.stringify(there))) {
        throw new Error(`Workload ${a.workload.metadata.name} exists and this job does not control it: it is left as it is`);
      }
      const resourceVersion = a.workload.metadata.resourceVersion ?? there.metadata.resourceVersion;
      await pass.adapter.replace("Workload", { ...there, metadata: { ...there.metadata, resourceVersion }, spec: a.workload.spec });
      return "done";
    },
  },

  setJobSuspend: {
    refused: "FailedUpdate",
    endsWhenGone: true,
    describe: (a) => ({ suspend: a.suspend, reason: a.reason, cause: a.cause }),
    expect: (pass) => expectNewer(pass, "ElasticJob", pass.job),
    async perform(pass, a) {
      let written;
      try {
        written = await pass.adapter.patch("ElasticJob", ...at(pass.job), { spec: { suspend: a.suspend } });
      } catch (e) {
        if (isNotFound(e)) {
          return "gone";
        }
        throw e;
      }
      // The status written later in this pass goes at the resourceVersion the patch gave.
      pass.job = written;
      pass.fresh.job = written;
      return "done";
    },
  },

  setWorkloadStatus: {
    refused: "FailedUpdateStatus",
    describe: (a) => ({ name: a.name, clearAdmission: a.clearAdmission ?? false, reason: a.reason, cause: a.cause }),
    expect(pass, a) {
      const observed = cachedWorkload(pass, namespaceOf(a, pass), a.name);
      return observed ? pass.expectations.newer(pass.key, "Workload", ...at(observed), [observed.metadata.resourceVersion]) : undefined;
    },
    async perform(pass, a) {
      const status = { conditions: a.conditions };
      if (a.clearAdmission) {
        status.admission = null;
      }
      const metadata = a.resourceVersion === undefined ? undefined : { resourceVersion: a.resourceVersion };
      return doneOrGone(pass.adapter.patchStatus("Workload", namespaceOf(a, pass), a.name, { metadata, status }));
    },
  },

  setWorkloadCounts: {
    refused: "FailedUpdate",
    describe: (a) => ({ name: a.name, counts: a.counts, reason: a.reason, cause: a.cause }),
    expect(pass, a) {
      const observed = cachedWorkload(pass, namespaceOf(a, pass), a.name);
      return observed ? pass.expectations.newer(pass.key, "Workload", ...at(observed), [observed.metadata.resourceVersion]) : undefined;
    },
    async perform(pass, a) {
      // The Workload as the cluster has it, each named pod set's count changed and nothing else
      // (Kueue's webhook compares the rest of each pod set whole), at the version the core read (a
      // conflict fails the pass, which is tried again from the caches).
      const there = cachedWorkload(pass, namespaceOf(a, pass), a.name) ?? (await getOrGone(pass.adapter, "Workload", namespaceOf(a, pass), a.name));
      if (!there) {
        return "gone";
      }
      const resourceVersion = a.resourceVersion ?? there.metadata.resourceVersion;
      return doneOrGone(pass.adapter.replace("Workload", withCounts({ ...there, metadata: { ...there.metadata, resourceVersion } }, a.counts)));
    },
  },

  recordEvent: {
    refused: "FailedEvent",
    describe: (a) => ({ type: a.type, eventReason: a.reason, cause: a.cause }),
    expect: () => undefined,
    async perform(pass, a) {
      pass.tell(a.type, a.reason, a.message);
      return "done";
    },
  },
});

/** The Workload with each named pod set's count changed and nothing else (Kueue's webhook compares the rest of each pod set whole). */
export const withCounts = (workload, counts) => ({
  ...workload,
  spec: { ...workload.spec, podSets: workload.spec.podSets.map((set) => (counts[set.name] === undefined ? set : { ...set, count: counts[set.name] })) },
});

// Gang scheduling (`--gang-scheduler-name`, or a job whose replicas say `BatchScheduler: volcano`):
// the job's PodGroup, of the group the core names (Volcano's or scheduler-plugins'), made before
// any of its pods, updated whole as the job changes what its gang needs, removed once the job has
// finished. As for services, the controller writes over or deletes a PodGroup only when the job
// controls it (its owner reference with the job's uid): one of that name made by another is left
// as it is.
Object.assign(HANDLERS, {
  createOrUpdatePodGroup: {
    refused: "FailedCreate",
    describe: (a) => ({ name: a.podGroup.metadata.name, apiVersion: a.podGroup.apiVersion, resourceVersion: a.podGroup.metadata.resourceVersion, reason: a.reason, cause: a.cause }),
    expect(pass, a) {
      if (!watched(pass, a.podGroup.apiVersion)) {
        return undefined;
      }
      const observed = cachedPodGroup(pass, a.podGroup.apiVersion, ...at(a.podGroup));
      return observed && a.podGroup.metadata.resourceVersion !== undefined
        ? pass.expectations.newer(pass.key, "PodGroup", ...at(observed), [observed.metadata.resourceVersion])
        : pass.expectations.presence(pass.key, "PodGroup", ...at(a.podGroup), true);
    },
    async perform(pass, a, expected) {
      const kind = podGroupKindOf(a.podGroup.apiVersion);
      // The core names the resourceVersion it read when it updates one: without one, it creates.
      let resourceVersion = a.podGroup.metadata.resourceVersion;
      let there;
      if (resourceVersion === undefined) {
        const { outcome, object } = await createOrExists(pass.adapter, kind, a.podGroup);
        if (outcome === "done") {
          expected.uid = object?.metadata?.uid;
          return outcome;
        }
        // Made since the caches were read (or not watched): the one there, at its resourceVersion.
        there = await getOrGone(pass.adapter, kind, ...at(a.podGroup));
        resourceVersion = there?.metadata?.resourceVersion;
      } else {
        there = cachedPodGroup(pass, a.podGroup.apiVersion, ...at(a.podGroup)) ?? (await getOrGone(pass.adapter, kind, ...at(a.podGroup)));
      }
      if (!there) {
        // Deleted since it was read: the next pass makes it again.
        return "gone";
      }
      if (!text.jobControls(jsonOf(pass.job), JSON.stringify(there))) {
        throw new Error(`PodGroup ${a.podGroup.metadata.name} exists and this job does not control it: it is left as it is`);
      }
      // One update (PUT) of the whole object with the core's whole spec, at the resourceVersion read,
      // as training-operator's SyncPodGroup and Volcano's job controller write theirs: a field the
      // core no longer sets goes (a merge patch cannot remove one). The status is the scheduler's.
      try {
        return await doneOrGone(pass.adapter.replace(kind, { ...there, metadata: { ...there.metadata, resourceVersion }, spec: a.podGroup.spec }));
      } catch (e) {
        throw isConflict(e) ? new WriteConflict(kind, a.podGroup, e) : e;
      }
    },
  },

  deletePodGroup: {
    refused: "FailedDelete",
    describe: (a) => ({ name: a.name, apiVersion: a.apiVersion, reason: a.reason, cause: a.cause }),
    expect(pass, a) {
      const observed = watched(pass, a.apiVersion) ? cachedPodGroup(pass, a.apiVersion, namespaceOf(a, pass), a.name) : undefined;
      return observed ? pass.expectations.presence(pass.key, "PodGroup", namespaceOf(a, pass), a.name, false, observed.metadata.uid) : undefined;
    },
    async perform(pass, a) {
      const kind = podGroupKindOf(a.apiVersion);
      const namespace = namespaceOf(a, pass);
      const there = cachedPodGroup(pass, a.apiVersion, namespace, a.name) ?? (await getOrGone(pass.adapter, kind, namespace, a.name));
      // Only the job's own, by its uid (a precondition of the delete): another's is left alone.
      if (!there || !pass.job || !text.jobControls(jsonOf(pass.job), JSON.stringify(there))) {
        return "gone";
      }
      return deleteOrGone(pass.adapter, kind, namespace, a.name, { uid: there.metadata.uid });
    },
  },
});

/** The entry of the adapter's KINDS of a PodGroup of that apiVersion; a group the controller does not know is a failure of the action. */
function podGroupKindOf(apiVersion) {
  const kind = podGroupKind(apiVersion);
  if (!kind) {
    throw new Error(`a PodGroup of ${apiVersion}, which this controller does not know`);
  }
  return kind;
}

/** Whether the controller watches the PodGroups of that apiVersion (the caches have them). */
const watched = (pass, apiVersion) => pass.caches.podGroups?.apiVersion === apiVersion;

/** The job's PodGroup of that name and group as the cache has it. */
function cachedPodGroup(pass, apiVersion, namespace, name) {
  const cached = pass.caches.podGroups?.get(namespace, name);
  return cached?.apiVersion === apiVersion ? cached : undefined;
}

/** The handler of an action the controller does not know: a bug of this controller, or a core newer than it. */
export const UNKNOWN = {
  refused: "FailedAction",
  describe: () => ({}),
  expect: () => undefined,
  perform: (pass, a) => Promise.reject(new Error(`the core planned an action this controller does not know: ${a.action}`)),
};

/** The Workload of that name as the cache has it. */
const cachedWorkload = (pass, namespace, name) => pass.caches.workloads?.get(namespace, name);

/** Expects the object at a resourceVersion newer than the one read and the one cached. */
function expectNewer(pass, kind, obj) {
  const cache = kind === "ElasticJob" ? pass.caches.jobs : pass.caches.plans;
  const cached = cache.get(...at(obj));
  const stale = [obj.metadata.resourceVersion, cached?.metadata?.resourceVersion].filter(Boolean);
  return pass.expectations.newer(pass.key, kind, ...at(obj), stale);
}

/** Writes a status with the resourceVersion read: `done`, `gone`, or a StatusConflict. */
async function writeStatus(pass, kind, obj, status) {
  let written;
  try {
    written = await replaceStatusOrGone(pass.adapter, kind, { ...obj, status });
  } catch (e) {
    throw isConflict(e) ? new StatusConflict(kind, obj, e) : e;
  }
  if (!written) {
    return "gone";
  }
  if (kind === "ElasticJob") {
    pass.fresh.job = written;
  } else {
    pass.fresh.plans.set(obj.metadata.name, written);
  }
  return "done";
}

// The calls of the handlers, with the answers that are outcomes rather than failures: a create that
// finds the object exists, a delete or a read that finds it gone.

/** Creates the object: `{outcome: "done", object}` (the one created), or `{outcome: "exists"}` when one of its name does. */
async function createOrExists(adapter, kind, obj) {
  try {
    return { outcome: "done", object: await adapter.create(kind, obj) };
  } catch (e) {
    if (isAlreadyExists(e)) {
      return { outcome: "exists" };
    }
    throw e;
  }
}

/** A write under way: `done`, or `gone` when the object is not there. */
async function doneOrGone(write) {
  try {
    await write;
    return "done";
  } catch (e) {
    if (isNotFound(e)) {
      return "gone";
    }
    throw e;
  }
}

/**
 * Deletes the object: `done`, or `gone` when it is not there (or, with a `uid` precondition, when
 * another object of its name is: that one is left alone).
 */
async function deleteOrGone(adapter, kind, namespace, name, options = {}) {
  try {
    await adapter.delete(kind, namespace, name, options);
    return "done";
  } catch (e) {
    if (isNotFound(e) || (options.uid !== undefined && isConflict(e))) {
      return "gone";
    }
    throw e;
  }
}

/** Reads the object, or `undefined` when it is not there. */
export async function getOrGone(adapter, kind, namespace, name) {
  try {
    return await adapter.get(kind, namespace, name);
  } catch (e) {
    if (isNotFound(e)) {
      return undefined;
    }
    throw e;
  }
}

/** Writes a status: the object written, or `undefined` when the object is gone; a conflict rejects. */
async function replaceStatusOrGone(adapter, kind, obj) {
  try {
    return await adapter.replaceStatus(kind, obj);
  } catch (e) {
    if (isNotFound(e)) {
      return undefined;
    }
    throw e;
  }
}
