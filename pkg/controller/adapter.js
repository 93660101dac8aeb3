// The only module of the controller that talks to the API server. The rest sees plain objects in
// the wire format and these calls: list-and-watch caches (client-node's ListWatch: a list, then a
// watch from its resourceVersion, listing again after 410 Gone), create, server-side apply, delete,
// replace, get, and the status subresource written with the resourceVersion that was read.
//
// @kubernetes/client-node gives the configuration (kubeconfig or in-cluster, every auth method,
// TLS) and the watch. Requests and lists are JSON in and out, not client-node's typed models: a
// model drops the fields it does not know (a pod template field newer than the client would be
// lost on create) and turns timestamps into Dates, while the core reads and writes the wire format.
// Every request is counted and timed (`onRequest`), for the metrics and the API-call figures, and
// waits for a token of the client's rate limit (ratelimit.js; the watches' requests too). Cached
// objects lose their managedFields on the way in (controller-runtime's TransformStripManagedFields):
// the controller never reads them, and they are often the larger part of an object.
import { setMaxListeners } from "node:events";
import { setTimeout as delay } from "node:timers/promises";
import { existsSync, readFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import { homedir } from "node:os";
import { join } from "node:path";
import * as k8s from "@kubernetes/client-node";
import { constants } from "../node.js";
import { TokenBucket } from "./ratelimit.js";

/** The field manager of the controller's server-side applies. */
export const FIELD_MANAGER = "elasticjob-controller";
const USER_AGENT = "elasticjob-controller";
/** A request that gets no answer in this time fails (and its reconcile is retried). */
const REQUEST_TIMEOUT_MS = 30_000;
/**
 * Tries of a request the API server answered 429, or 5xx, with a whole number of seconds in
 * `Retry-After` (API Priority and Fairness' rejections carry one): client-go's `checkWait` and
 * `maxRetries: 10` (k8s.io/client-go rest/with_retry.go, rest/request.go), each retry after the
 * seconds the server asked and a token of the rate limit.
 */
const MAX_RETRIES = 10;
/** Items a list page holds; a larger collection is listed in pages. */
const LIST_PAGE = 500;
const IN_CLUSTER_NAMESPACE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

const { apiGroup, apiVersion: jobVersion, jobKind, scalePlanKind } = constants();
const JOB_API = `${apiGroup}/${jobVersion}`;

/** The kinds the controller touches: where each lives. */
export const KINDS = {
  [jobKind]: { apiVersion: JOB_API, plural: `${jobKind.toLowerCase()}s` },
  [scalePlanKind]: { apiVersion: JOB_API, plural: `${scalePlanKind.toLowerCase()}s` },
  Pod: { apiVersion: "v1", plural: "pods" },
  Service: { apiVersion: "v1", plural: "services" },
  Event: { apiVersion: "v1", plural: "events" },
  Lease: { apiVersion: "coordination.k8s.io/v1", plural: "leases" },
  // Kueue's (with `--kueue` only), and the priority classes a queued job's Workload names.
  Workload: { apiVersion: "kueue.x-k8s.io/v1beta2", plural: "workloads" },
  ResourceFlavor: { apiVersion: "kueue.x-k8s.io/v1beta2", plural: "resourceflavors" },
  WorkloadPriorityClass: { apiVersion: "kueue.x-k8s.io/v1beta2", plural: "workloadpriorityclasses" },
  PriorityClass: { apiVersion: "scheduling.k8s.io/v1", plural: "priorityclasses" },
  // The gang schedulers' PodGroups (kind PodGroup in both groups; `--gang-scheduler-name`).
  VolcanoPodGroup: { apiVersion: "scheduling.volcano.sh/v1beta1", kind: "PodGroup", plural: "podgroups" },
  SchedulerPluginsPodGroup: { apiVersion: "scheduling.x-k8s.io/v1alpha1", kind: "PodGroup", plural: "podgroups" },
};

/** The entry of KINDS of a PodGroup of that apiVersion (the core names which in its actions), or undefined. */
export const podGroupKind = (apiVersion) => Object.keys(KINDS).find((k) => KINDS[k].kind === "PodGroup" && KINDS[k].apiVersion === apiVersion);

/** An answer of the API server other than success: `status` (HTTP) and `reason` (the Status reason). */
export class ApiError extends Error {
  /** `retryAfterSeconds`: the server's word that the request may be sent again after that long (retryAfter). */
  constructor(what, status, body, retryAfterSeconds) {
    const detail = typeof body === "object" && body !== null ? body.message : String(body ?? "").slice(0, 300);
    super(`${what}: HTTP ${status}${detail ? `: ${detail}` : ""}`);
    this.name = "ApiError";
    this.status = status;
    this.reason = (typeof body === "object" && body?.reason) || "";
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/**
 * The seconds an answer asks the client to wait before sending its request again: a 429 (Priority
 * and Fairness) or any 5xx with a whole number of seconds in `Retry-After`, as client-go's
 * `checkWait` and `retryAfterSeconds` read it; else undefined (an HTTP date is not read, as there).
 */
export function retryAfter(res) {
  const header = res.headers?.["retry-after"];
  if ((res.statusCode === 429 || res.statusCode >= 500) && typeof header === "string" && /^[0-9]{1,9}$/.test(header.trim())) {
    return Number(header.trim());
  }
  return undefined;
}

/**
 * A request that got no answer from the API server: the connection was refused or reset, it timed
 * out, or it was cut short (`cause`). Like an ApiError, the cluster's trouble, not a bug here.
 */
export class RequestError extends Error {
  constructor(what, cause) {
    super(`${what}: ${cause?.message ?? String(cause)}`, { cause });
    this.name = "RequestError";
    this.aborted = cause?.name === "AbortError";
  }
}

/** What a failure is: `api` (the API server refused, or could not be reached) or `internal` (a bug of this controller). */
export const failureKind = (e) => (e instanceof ApiError || e instanceof RequestError ? "api" : "internal");

/** The object exists already (a create). */
export const isAlreadyExists = (e) => e instanceof ApiError && e.status === 409 && e.reason === "AlreadyExists";
/** The object changed since it was read (a write with a stale resourceVersion). */
export const isConflict = (e) => e instanceof ApiError && e.status === 409 && e.reason !== "AlreadyExists";
/** The object is gone. */
export const isNotFound = (e) => e instanceof ApiError && e.status === 404;

/**
 * The cluster configuration, as controller-runtime looks for it: `path` (--kubeconfig), else
 * $KUBECONFIG, else the pod's ServiceAccount (in a cluster), else ~/.kube/config.
 */
export function loadKubeConfig(path) {
  const kc = new k8s.KubeConfig();
  const home = join(homedir(), ".kube", "config");
  if (path) {
    kc.loadFromFile(path);
  } else if (process.env.KUBECONFIG) {
    kc.loadFromDefault();
  } else if (process.env.KUBERNETES_SERVICE_HOST) {
    kc.loadFromCluster();
  } else if (existsSync(home)) {
    kc.loadFromFile(home);
  } else {
    throw new Error("no cluster to talk to: pass --kubeconfig PATH, set KUBECONFIG, or run in a pod of the cluster");
  }
  if (!kc.getCurrentCluster()) {
    throw new Error(`${path ?? process.env.KUBECONFIG ?? home}: no current context with a cluster`);
  }
  return kc;
}

/** The namespace of the pod the controller runs in, when it runs in one. */
export function podNamespace() {
  return existsSync(IN_CLUSTER_NAMESPACE) ? readFileSync(IN_CLUSTER_NAMESPACE, "utf8").trim() : undefined;
}

/** The collection URL path of a kind, in `namespace` or across all namespaces. */
export function collectionPath(kind, namespace) {
  const { apiVersion, plural } = KINDS[kind];
  const base = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return namespace ? `${base}/namespaces/${encodeURIComponent(namespace)}/${plural}` : `${base}/${plural}`;
}

function objectPath(kind, namespace, name) {
  return `${collectionPath(kind, namespace)}/${encodeURIComponent(name)}`;
}

/** The object without its managedFields (a cached object's). */
export function stripManagedFields(obj) {
  if (obj?.metadata?.managedFields !== undefined) {
    const { managedFields: _, ...metadata } = obj.metadata;
    return { ...obj, metadata };
  }
  return obj;
}

/** A write refused before it was sent, counted as such. */
function count0(adapter, verb, resource) {
  adapter.onRequest({ verb, resource, code: "fenced" });
}

export class KubeAdapter {
  /**
   * @param {k8s.KubeConfig} kc
   * @param {object} [options]
   * @param {(call: {verb: string, resource: string, code: string, seconds?: number}) => void} [options.onRequest]
   * @param {number} [options.qps] requests a second at most, over every call (0: no limit)
   * @param {number} [options.burst] requests at once above `qps` after a quiet time
   * @param {string} [options.fieldManager] the field manager of every write (managedFields)
   * @param {() => boolean} [options.mayWrite] asked right before each write goes out: false fails it
   *   without sending (a leader whose renew deadline passed, its timers not yet run: a process that
   *   was stopped and continued)
   * @param {(ms: number, signal: AbortSignal) => Promise<void>} [options.sleep] waits out a
   *   server's Retry-After (the timers' by default; a test gives its own clock's)
   */
  constructor(kc, { onRequest = () => {}, qps = 0, burst = 1, fieldManager = FIELD_MANAGER, mayWrite = () => true, sleep = (ms, signal) => delay(ms, undefined, { signal }) } = {}) {
    this.kc = kc;
    this.sleep = sleep;
    this.onRequest = onRequest;
    this.fieldManager = fieldManager;
    /** Asked right before each write is sent; false refuses it (a leader past its renew deadline). */
    this.mayWrite = mayWrite;
    this.server = kc.getCurrentCluster().server.replace(/\/+$/, "");
    this.agent = undefined;
    this.limiter = new TokenBucket({ qps, burst });
    /** Aborts every request under way (`abortAll`). */
    this.aborter = new AbortController();
    // Every request under way listens to it.
    setMaxListeners(0, this.aborter.signal);
  }

  /**
   * Cuts every request under way and refuses new ones (with `reason`): a leader that lost its
   * lease must not have a write land after another instance took over.
   */
  abortAll(reason) {
    this.aborter.abort(reason);
    this.agent?.destroy();
  }

  /** The cluster's URL. */
  get serverUrl() {
    return this.server;
  }

  /**
   * One connection pool for every request (client-node makes an agent per request, which would
   * open a TLS connection per call). Behind a proxy, client-node's proxy agent is kept.
   */
  async connect() {
    const cluster = this.kc.getCurrentCluster();
    if (cluster.proxyUrl) {
      return;
    }
    const tls = {};
    await this.kc.applyToHTTPSOptions(tls);
    const { ca, cert, key, pfx, passphrase, rejectUnauthorized, servername } = tls;
    this.agent = this.server.startsWith("http:")
      ? new http.Agent({ keepAlive: true, maxSockets: 32 })
      : new https.Agent({ keepAlive: true, maxSockets: 32, ca, cert, key, pfx, passphrase, rejectUnauthorized, servername });
  }

  /** Closes the idle connections. */
  close() {
    this.agent?.destroy();
  }

  /**
   * One request: resolves to the answer's JSON, rejects with an ApiError for an HTTP error status
   * (or the network's error). An answer that asks for a retry (a 429 or 5xx with `Retry-After`
   * seconds) is waited out and sent again, up to MAX_RETRIES times, as client-go does; a write
   * asks `mayWrite` again before each try. `verb` and `resource` name it for the count (each try
   * counted); `signal` cuts it short (in its waits too).
   */
  async request(method, path, options) {
    const signal = options.signal ? AbortSignal.any([options.signal, this.aborter.signal]) : this.aborter.signal;
    for (let retries = 0; ; retries += 1) {
      try {
        return await this.send(method, path, options, signal);
      } catch (e) {
        if (e.retryAfterSeconds === undefined || retries === MAX_RETRIES) {
          throw e;
        }
        try {
          await this.sleep(e.retryAfterSeconds * 1000, signal);
        } catch (cut) {
          throw new RequestError(`${options.verb} ${path}`, cut);
        }
      }
    }
  }

  /** One try of a request (request() says what it resolves to and when it tries again). */
  async send(method, path, { query, body, contentType = "application/json", verb, resource }, signal) {
    try {
      await this.limiter.take(signal);
    } catch (e) {
      throw new RequestError(`${verb} ${path}`, e);
    }
    const url = new URL(this.server + path);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined) {
        url.searchParams.set(key, String(value));
      }
    }
    const options = { method, headers: { accept: "application/json", "user-agent": USER_AGENT }, timeout: REQUEST_TIMEOUT_MS, signal };
    await this.kc.applyToHTTPSOptions(options);
    if (this.agent) {
      options.agent = this.agent;
    }
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    if (payload) {
      options.headers["content-type"] = contentType;
      options.headers["content-length"] = payload.length;
    }
    const what = `${verb} ${path}`;
    // The last moment before the write leaves: whatever waited (the rate limit, a pass's earlier
    // calls, a process stopped and continued) is behind it.
    if (method !== "GET" && !this.mayWrite()) {
      count0(this, verb, resource);
      throw new RequestError(what, new Error("not sent: this instance no longer holds the leader lease"));
    }
    const client = url.protocol === "http:" ? http : https;
    const started = performance.now();
    const count = (code) => this.onRequest({ verb, resource, code, seconds: (performance.now() - started) / 1000 });
    let answer;
    try {
      answer = await new Promise((resolve, reject) => {
        const req = client.request(url, options, (res) => {
          const chunks = [];
          res.on("data", (c) => chunks.push(c));
          res.on("error", reject);
          res.on("end", () => resolve({ status: res.statusCode, retryAfter: retryAfter(res), text: Buffer.concat(chunks).toString("utf8") }));
        });
        req.on("timeout", () => req.destroy(new Error(`${what}: no answer in ${REQUEST_TIMEOUT_MS / 1000} s`)));
        req.on("error", reject);
        req.end(payload);
      });
    } catch (e) {
      count("error");
      throw new RequestError(what, e);
    }
    count(String(answer.status));
    let parsed = answer.text;
    try {
      parsed = answer.text === "" ? undefined : JSON.parse(answer.text);
    } catch {
      // Not JSON (a proxy's error page): the text goes into the error.
    }
    if (answer.status < 200 || answer.status > 299) {
      throw new ApiError(what, answer.status, parsed, answer.retryAfter);
    }
    return parsed;
  }

  /**
   * Every object of a kind (in `namespace`, else in all), page by page: `{items, metadata}`, each
   * item with its apiVersion and kind (a list's items come without them).
   */
  async list(kind, { namespace, labelSelector, limit = LIST_PAGE, pages = Infinity } = {}) {
    const { apiVersion, kind: objectKind = kind } = KINDS[kind];
    const items = [];
    let first;
    let token;
    do {
      const page = await this.request("GET", collectionPath(kind, namespace), {
        query: { labelSelector, limit, continue: token },
        verb: "list",
        resource: KINDS[kind].plural,
      });
      first ??= page;
      pages -= 1;
      for (const item of page.items ?? []) {
        items.push(stripManagedFields({ apiVersion, kind: objectKind, ...item }));
      }
      token = page.metadata?.continue || undefined;
    } while (token && pages > 0);
    return { metadata: { resourceVersion: first.metadata?.resourceVersion }, items };
  }

  /**
   * A cache of a kind, kept by a list and then a watch (client-node's ListWatch, not started).
   * `onWatch` is called at each (re)connection of its watch, for the count.
   */
  listWatch(kind, { namespace, labelSelector } = {}) {
    const watch = new k8s.Watch(this.kc);
    // Each watch request waits for its token too, and its objects lose their managedFields.
    const throttled = {
      watch: async (path, query, callback, done) => {
        await this.limiter.take(this.aborter.signal);
        return watch.watch(path, query, (phase, obj, raw) => callback(phase, phase === "ERROR" ? obj : stripManagedFields(obj), raw), done);
      },
    };
    const informer = new k8s.ListWatch(
      collectionPath(kind, namespace),
      throttled,
      () => this.list(kind, { namespace, labelSelector }),
      false,
      labelSelector,
    );
    informer.on(k8s.CONNECT, () => this.onRequest({ verb: "watch", resource: KINDS[kind].plural, code: "connect" }));
    return informer;
  }

  /**
   * Whether the API server serves the kind (discovery of its group version: a CustomResource-
   * Definition installed and established). A group it does not serve is no error: false.
   */
  async serves(kind) {
    const { apiVersion, plural } = KINDS[kind];
    const path = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    try {
      const resources = await this.request("GET", path, { verb: "discover", resource: plural });
      return (resources?.resources ?? []).some((r) => r.name === plural);
    } catch (e) {
      if (isNotFound(e)) {
        return false;
      }
      throw e;
    }
  }

  /** The object, read from the API server (`signal` cuts the request short). */
  get(kind, namespace, name, { signal } = {}) {
    return this.request("GET", objectPath(kind, namespace, name), { verb: "get", resource: KINDS[kind].plural, signal });
  }

  /**
   * Creates the object (in its namespace) as the controller's field manager, as every other
   * write, so that its managedFields name the replica that made it; rejects with AlreadyExists
   * when it exists.
   */
  create(kind, obj, { signal } = {}) {
    return this.request("POST", collectionPath(kind, obj.metadata.namespace), {
      body: obj,
      query: { fieldManager: this.fieldManager },
      verb: "create",
      resource: KINDS[kind].plural,
      signal,
    });
  }

  /**
   * Server-side apply with the controller's field manager: creates the object or brings the
   * fields the controller owns to `obj`, in one call, whoever else changed it.
   */
  apply(kind, obj) {
    return this.request("PATCH", objectPath(kind, obj.metadata.namespace, obj.metadata.name), {
      body: obj,
      query: { fieldManager: this.fieldManager, force: "true" },
      contentType: "application/apply-patch+yaml",
      verb: "apply",
      resource: KINDS[kind].plural,
    });
  }

  /** A JSON merge patch of the object. */
  patch(kind, namespace, name, body) {
    return this.request("PATCH", objectPath(kind, namespace, name), {
      body,
      query: { fieldManager: this.fieldManager },
      contentType: "application/merge-patch+json",
      verb: "patch",
      resource: KINDS[kind].plural,
    });
  }

  /**
   * Adds `owner` to the object's owner references, only if its uid is still `uid` (else Conflict):
   * a strategic merge patch, which merges owner references by uid (a merge patch would replace the
   * list), as Kubernetes' controller-ref manager adopts.
   */
  adopt(kind, namespace, name, uid, owner) {
    return this.request("PATCH", objectPath(kind, namespace, name), {
      body: { metadata: { ownerReferences: [owner], uid } },
      query: { fieldManager: this.fieldManager },
      contentType: "application/strategic-merge-patch+json",
      verb: "patch",
      resource: KINDS[kind].plural,
    });
  }

  /** A JSON merge patch of the status subresource (a `metadata.resourceVersion` in it is a precondition). */
  patchStatus(kind, namespace, name, body) {
    return this.request("PATCH", `${objectPath(kind, namespace, name)}/status`, {
      body,
      query: { fieldManager: this.fieldManager },
      contentType: "application/merge-patch+json",
      verb: "patch",
      resource: `${KINDS[kind].plural}/status`,
    });
  }

  /**
   * Replaces the object; its metadata.resourceVersion must be the one stored (else Conflict). With
   * `dryRun`, a server-side dry run: admitted and validated (webhooks too), not stored.
   */
  replace(kind, obj, { signal, dryRun = false } = {}) {
    return this.request("PUT", objectPath(kind, obj.metadata.namespace, obj.metadata.name), {
      body: obj,
      query: dryRun ? { fieldManager: this.fieldManager, dryRun: "All" } : { fieldManager: this.fieldManager },
      verb: "update",
      resource: KINDS[kind].plural,
      signal,
    });
  }

  /**
   * Replaces the status subresource: `obj` as read (its resourceVersion) with the new status.
   * Rejects with Conflict when the object changed since it was read.
   */
  replaceStatus(kind, obj) {
    return this.request("PUT", `${objectPath(kind, obj.metadata.namespace, obj.metadata.name)}/status`, {
      body: obj,
      query: { fieldManager: this.fieldManager },
      verb: "update",
      resource: `${KINDS[kind].plural}/status`,
    });
  }

  /**
   * Deletes the object with the grace period given (0: at once); with `uid`, only that object (a
   * newer one of the same name is left alone: Conflict). Rejects with NotFound when gone.
   */
  delete(kind, namespace, name, { gracePeriodSeconds, uid } = {}) {
    const options = { apiVersion: "v1", kind: "DeleteOptions", gracePeriodSeconds, preconditions: uid ? { uid } : undefined };
    return this.request("DELETE", objectPath(kind, namespace, name), { body: options, verb: "delete", resource: KINDS[kind].plural });
  }
}
