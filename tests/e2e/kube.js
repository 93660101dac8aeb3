// What the tests against the real API server share: the kubeconfig `make cluster-up` writes, a raw
// request helper that returns the server's JSON as it is (the typed client would turn timestamps
// into Dates and drop fields its models lack, and these tests compare what the server stored with
// what was sent), polling, throw-away namespaces, the repository's manifests and ServiceAccount tokens.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import https from "node:https";
import { isAbsolute } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import * as k8s from "@kubernetes/client-node";
import { parseAllDocuments } from "yaml";

/** The admin kubeconfig of the test cluster ($KUBECONFIG, set by `cluster run` and `cluster-up`). */
export function adminConfig() {
  if (!process.env.KUBECONFIG) {
    throw new Error("KUBECONFIG is not set: run these tests with `make test-cluster` (or after `make cluster-up`)");
  }
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(process.env.KUBECONFIG);
  return kc;
}

/** A kubeconfig for the same server that authenticates with a bearer token (a ServiceAccount's). */
export function tokenConfig(admin, name, token) {
  const cluster = admin.getCurrentCluster();
  const kc = new k8s.KubeConfig();
  kc.loadFromOptions({
    clusters: [cluster],
    users: [{ name, token }],
    contexts: [{ name, cluster: cluster.name, user: name }],
    currentContext: name,
  });
  return kc;
}

/**
 * One request; resolves to `{status, body}` with the body parsed from JSON (never rejects on an
 * HTTP error status, so a test can assert a refusal). `query` values are strings.
 */
export async function request(kc, method, path, { body, query, contentType = "application/json" } = {}) {
  const cluster = kc.getCurrentCluster();
  const url = new URL(path, cluster.server);
  for (const [key, value] of Object.entries(query ?? {})) {
    url.searchParams.set(key, value);
  }
  const options = { method, headers: { accept: "application/json" } };
  await kc.applyToHTTPSOptions(options);
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  if (payload) {
    options.headers["content-type"] = contentType;
    options.headers["content-length"] = payload.length;
  }
  return new Promise((resolve, reject) => {
    const req = https.request(url, options, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let parsed = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // Not JSON (a plain-text error): keep the text.
        }
        resolve({ status: res.statusCode, body: parsed });
      });
    });
    req.on("error", reject);
    req.end(payload);
  });
}

const RESOURCES = {
  "v1/Pod": "pods",
  "v1/Service": "services",
  "v1/ServiceAccount": "serviceaccounts",
  "v1/Secret": "secrets",
  "v1/ConfigMap": "configmaps",
  "v1/Event": "events",
  "v1/ResourceQuota": "resourcequotas",
  "elastic.iml.github.io/v1alpha1/ElasticJob": "elasticjobs",
  "elastic.iml.github.io/v1alpha1/ScalePlan": "scaleplans",
  "coordination.k8s.io/v1/Lease": "leases",
  "apps/v1/Deployment": "deployments",
  "rbac.authorization.k8s.io/v1/ClusterRole": "clusterroles",
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": "clusterrolebindings",
  "rbac.authorization.k8s.io/v1/Role": "roles",
  "rbac.authorization.k8s.io/v1/RoleBinding": "rolebindings",
  "scheduling.k8s.io/v1/PriorityClass": "priorityclasses",
  "kueue.x-k8s.io/v1beta2/Workload": "workloads",
  "kueue.x-k8s.io/v1beta2/ResourceFlavor": "resourceflavors",
  "kueue.x-k8s.io/v1beta2/ClusterQueue": "clusterqueues",
  "kueue.x-k8s.io/v1beta2/LocalQueue": "localqueues",
  "scheduling.volcano.sh/v1beta1/PodGroup": "podgroups",
  "scheduling.x-k8s.io/v1alpha1/PodGroup": "podgroups",
  "apiextensions.k8s.io/v1/CustomResourceDefinition": "customresourcedefinitions",
};
const CLUSTER_SCOPED = { "v1/Namespace": "namespaces", "v1/Node": "nodes", ...RESOURCES };
/** The kinds of no namespace besides Namespace and the `Cluster...` ones. */
const CLUSTER_KINDS = new Set(["Node", "PriorityClass", "ResourceFlavor", "CustomResourceDefinition"]);

/** The collection URL of an object's kind in `namespace` (or cluster-wide for Namespace and RBAC cluster kinds). */
export function collection(apiVersion, kind, namespace) {
  const key = `${apiVersion}/${kind}`;
  const plural = CLUSTER_SCOPED[key];
  if (!plural) {
    throw new Error(`no resource for ${key}`);
  }
  const base = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const clusterScoped = kind === "Namespace" || kind.startsWith("Cluster") || CLUSTER_KINDS.has(kind);
  return clusterScoped || !namespace ? `${base}/${plural}` : `${base}/namespaces/${namespace}/${plural}`;
}

/** The URL of one object. */
export function objectPath(obj, namespace = obj.metadata?.namespace) {
  return `${collection(obj.apiVersion, obj.kind, namespace)}/${encodeURIComponent(obj.metadata.name)}`;
}

/** A dry-run create (`dryRun=All`, unknown fields refused): `{status, body}`. */
export function dryRunCreate(kc, obj) {
  return request(kc, "POST", collection(obj.apiVersion, obj.kind, obj.metadata?.namespace), {
    body: obj,
    query: { dryRun: "All", fieldValidation: "Strict" },
  });
}

/** Fails with the server's answer unless the status is one of `ok`. */
export function expectStatus(answer, ok, what) {
  if (!ok.includes(answer.status)) {
    throw new Error(`${what}: HTTP ${answer.status}: ${shorten(typeof answer.body === "string" ? answer.body : answer.body?.message ?? JSON.stringify(answer.body))}`);
  }
  return answer.body;
}

/** A server message without the object it may quote in full (a refused patch quotes the whole object). */
function shorten(message) {
  return message.length <= 600 ? message : `${message.slice(0, 150)} [...] ${message.slice(-400)}`;
}

/**
 * A fresh namespace, once the controller manager has made its `default` ServiceAccount (the
 * ServiceAccount admission plugin refuses pods without one). The namespace is deleted when `t`
 * ends (the namespace controller empties it).
 */
export async function freshNamespace(kc, t, prefix) {
  const name = `${prefix}-${randomBytes(3).toString("hex")}`;
  expectStatus(await request(kc, "POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name } } }), [201], `namespace ${name}`);
  t.after(() => request(kc, "DELETE", `/api/v1/namespaces/${name}`));
  await eventually(`serviceaccount ${name}/default`, async () => (await request(kc, "GET", `${collection("v1", "ServiceAccount", name)}/default`)).status === 200);
  return name;
}

/**
 * Deletes namespace `name` and waits until it is gone (the namespace controller has deleted
 * everything in it); resolves to the seconds that took.
 */
export async function deleteNamespace(kc, name, seconds = 900) {
  const started = Date.now();
  expectStatus(await request(kc, "DELETE", `/api/v1/namespaces/${name}`), [200, 404], `delete namespace ${name}`);
  await eventually(`namespace ${name} gone`, async () => (await request(kc, "GET", `/api/v1/namespaces/${name}`)).status === 404, seconds);
  return (Date.now() - started) / 1000;
}

/**
 * Polls `check` every 100 ms until it returns a truthy value; fails after `seconds` with `what` and
 * what was seen last: the error the last check threw, else what `saw()` (when given) describes of
 * the state the check read, else the last value. A test's generous wait says, when it expires,
 * what it waited for and what it saw instead.
 */
export async function eventually(what, check, seconds = 30, { saw } = {}) {
  const deadline = Date.now() + seconds * 1000;
  let last;
  let value;
  let checks = 0;
  for (;;) {
    try {
      checks += 1;
      value = await check();
      if (value) {
        return value;
      }
      last = undefined;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      let seen = last ? last.message : `the check returned ${JSON.stringify(value) ?? "undefined"}`;
      if (!last && saw) {
        try {
          seen = String(await saw());
        } catch (e) {
          seen = `(what was seen could not be read: ${e.message})`;
        }
      }
      throw new Error(`${what}: not within ${seconds} s (${checks} checks); last seen: ${seen}`);
    }
    await sleep(100);
  }
}

/**
 * Where `stored` differs from `sent`: every field of `sent` must be in `stored` with the same
 * value (the server may add fields: defaults, uid, timestamps). Lists compare element by element.
 * Returns `{path, sent, stored}` for each difference (`stored` undefined: dropped); empty when
 * nothing was lost or changed.
 */
export function lostOrChanged(sent, stored, path = "") {
  const differs = [{ path, sent, stored }];
  if (Array.isArray(sent)) {
    if (!Array.isArray(stored) || stored.length !== sent.length) {
      return differs;
    }
    return sent.flatMap((item, i) => lostOrChanged(item, stored[i], `${path}[${i}]`));
  }
  if (sent !== null && typeof sent === "object") {
    if (stored === null || typeof stored !== "object" || Array.isArray(stored)) {
      return differs;
    }
    return Object.entries(sent).flatMap(([key, value]) => {
      const at = path ? `${path}.${key}` : key;
      // A null field is the field left out.
      return key in stored ? lostOrChanged(value, stored[key], at) : value === null ? [] : [{ path: at, sent: value, stored: undefined }];
    });
  }
  return sent === stored ? [] : differs;
}

/** A quantity of a resource list: `...resources.requests.cpu`, a scale plan's `resource.memory`. */
export function isQuantityPath(path) {
  return /(^|\.)(resources\.(limits|requests|claims)|resource|resourceLimits|overhead)\.[^.[\]]+$/.test(path);
}

/** `path: sent -> stored` lines. */
export function describe(differences) {
  return differences.map((d) => `${d.path}: ${JSON.stringify(d.sent)} -> ${d.stored === undefined ? "dropped" : JSON.stringify(d.stored)}`);
}

/** The controller's identity (deploy/rbac.yaml). */
export const CONTROLLER_SA = { namespace: "elasticjob-system", name: "elasticjob-controller" };

/**
 * Where RBAC grants `user` (in `groups`) other than what it needs: a SubjectAccessReview of every
 * verb of `verbs` on every resource of `resources` (`group/resource[/subresource]`, in namespace
 * `training` unless `clusterScoped` has it), each compared with `needed` (resource -> verbs).
 * Returns one line per difference; empty when it is granted exactly what it needs.
 */
export async function wrongGrants(kc, { user, groups }, needed, resources, verbs, clusterScoped = new Set()) {
  const wrong = [];
  for (const resource of resources) {
    const [group, name, subresource] = resource.split("/");
    for (const verb of verbs) {
      const review = await request(kc, "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
        body: {
          apiVersion: "authorization.k8s.io/v1",
          kind: "SubjectAccessReview",
          spec: { user, groups, resourceAttributes: { group, resource: name, subresource: subresource ?? "", verb, namespace: clusterScoped.has(resource) ? "" : "training" } },
        },
      });
      const allowed = expectStatus(review, [201], "SubjectAccessReview").status.allowed === true;
      if (allowed !== (needed[resource] ?? []).includes(verb)) {
        wrong.push(`${verb} ${resource}: ${allowed ? "allowed, not needed" : "needed, refused"}`);
      }
    }
  }
  return wrong;
}

/**
 * Grants the controller's ServiceAccount the Lease `name` in its namespace, beside the one of
 * deploy/rbac.yaml (which grants its own Lease alone, by name): a test's controllers elect on a Lease
 * of the test's own. Resolves to the grant's removal.
 */
export async function grantLease(kc, name) {
  const { namespace } = CONTROLLER_SA;
  const meta = { name: `elasticjob-test-lease-${name}`, namespace };
  const role = {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "Role",
    metadata: meta,
    rules: [{ apiGroups: ["coordination.k8s.io"], resources: ["leases"], resourceNames: [name], verbs: ["get", "update"] }],
  };
  const binding = {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: meta,
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: meta.name },
    subjects: [{ kind: "ServiceAccount", ...CONTROLLER_SA }],
  };
  for (const obj of [role, binding]) {
    const answer = await request(kc, "PATCH", objectPath(obj), { body: obj, query: { fieldManager: "elasticjob-test", force: "true" }, contentType: "application/apply-patch+yaml" });
    expectStatus(answer, [200, 201], `apply ${obj.kind} ${meta.name}`);
  }
  return async () => {
    for (const obj of [binding, role]) {
      await request(kc, "DELETE", objectPath(obj));
    }
  };
}

/**
 * The objects of a manifest file of the repository (`deploy/rbac.yaml`; or an absolute path, one
 * under .tools/), parsed; a document of comments alone (a generated file's header) is none.
 */
export function manifests(path) {
  return parseAllDocuments(readFileSync(isAbsolute(path) ? path : new URL(`../../${path}`, import.meta.url), "utf8"))
    .map((d) => d.toJS())
    .filter((o) => o != null);
}

/** Applies a manifest file as admin (server-side apply: the same on every run); resolves to its objects. */
export async function applyManifests(kc, path) {
  const docs = manifests(path);
  for (const obj of docs) {
    const answer = await request(kc, "PATCH", objectPath(obj), {
      body: obj,
      query: { fieldManager: "elasticjob-test", force: "true", fieldValidation: "Strict" },
      contentType: "application/apply-patch+yaml",
    });
    expectStatus(answer, [200, 201], `apply ${obj.kind} ${obj.metadata.name}`);
  }
  return docs;
}

/** A token of a ServiceAccount from the TokenRequest API. */
export async function serviceAccountToken(kc, { namespace, name }, expirationSeconds = 3600) {
  const answer = await request(kc, "POST", `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
    body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds } },
  });
  return expectStatus(answer, [201], `TokenRequest for ${namespace}/${name}`).status.token;
}

/** The sum of the samples of `name` in a Prometheus text exposition whose labels include `labels`. */
export function sumOf(text, name, labels) {
  let sum = 0;
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) {
      continue;
    }
    const have = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, k, v]) => [k, v]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) {
      sum += Number(m[3]);
    }
  }
  return sum;
}

/** The sum of metric `name`'s samples with `labels` on the Prometheus endpoint at 127.0.0.1:`port`. */
export async function metricSum(port, name, labels = {}) {
  return sumOf(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text(), name, labels);
}
