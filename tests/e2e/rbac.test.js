// deploy/rbac.yaml against a real API server (RBAC authorization, the OwnerReferencesPermission-
// Enforcement admission plugin): acting as the controller's ServiceAccount, with a token from the
// TokenRequest API, the test does everything the controller does, and is refused the rest.
import assert from "node:assert/strict";
import { before, test } from "node:test";
import * as api from "elasticjob";
import { job as fixtureJob } from "../../pkg/test/fixtures.js";
import {
  CONTROLLER_SA,
  adminConfig,
  applyManifests,
  collection,
  expectStatus,
  freshNamespace,
  manifests,
  objectPath,
  request,
  serviceAccountToken,
  tokenConfig,
  wrongGrants,
} from "./kube.js";

const admin = adminConfig();
const { namespace: SA_NAMESPACE, name: SA_NAME } = CONTROLLER_SA;
const SA_USER = `system:serviceaccount:${SA_NAMESPACE}:${SA_NAME}`;
const SA_GROUPS = ["system:serviceaccounts", `system:serviceaccounts:${SA_NAMESPACE}`, "system:authenticated"];

/**
 * What the controller needs: `group/resource[/subresource]` -> verbs, the ClusterRole of
 * deploy/rbac.yaml (pkg/test/rbac.test.js holds its rules to the calls the controller's code sends).
 * Everything else is refused, a Lease too: the controller's own is granted by a Role of its namespace
 * (the Lease's test below).
 */
const NEEDED = {};
for (const rule of manifests("deploy/rbac.yaml").find((o) => o.kind === "ClusterRole").rules) {
  for (const group of rule.apiGroups) {
    for (const resource of rule.resources) {
      NEEDED[`${group}/${resource}`] = [...(NEEDED[`${group}/${resource}`] ?? []), ...rule.verbs];
    }
  }
}
const LEASE = { namespace: SA_NAMESPACE, name: "elasticjob-controller" };
const VERBS = ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"];
/** Resources the matrix asks about: the needed ones and their neighbours. */
const RESOURCES = [
  ...Object.keys(NEEDED),
  "coordination.k8s.io/leases",
  "elastic.iml.github.io/scaleplans/finalizers",
  "/pods/status",
  "/pods/log",
  "/pods/exec",
  "/pods/eviction",
  "/services/status",
  "/endpoints",
  "discovery.k8s.io/endpointslices",
  "events.k8s.io/events",
  "/secrets",
  "/configmaps",
  "/serviceaccounts",
  "/serviceaccounts/token",
  "/namespaces",
  "/nodes",
  "apps/deployments",
  "batch/jobs",
  "rbac.authorization.k8s.io/clusterroles",
  "rbac.authorization.k8s.io/clusterrolebindings",
  "apiextensions.k8s.io/customresourcedefinitions",
  // The gang schedulers' PodGroups: deploy/rbac-gang.yaml's alone (tests/e2e/gang/), none by default.
  "scheduling.x-k8s.io/podgroups",
  "scheduling.volcano.sh/podgroups",
];
const CLUSTER_SCOPED = new Set(["/namespaces", "/nodes", "rbac.authorization.k8s.io/clusterroles", "rbac.authorization.k8s.io/clusterrolebindings", "apiextensions.k8s.io/customresourcedefinitions"]);

let sa;

before(async () => {
  await applyManifests(admin, "deploy/rbac.yaml");
  sa = tokenConfig(admin, SA_NAME, await serviceAccountToken(admin, CONTROLLER_SA, 600));
});

test("the token authenticates as the controller's ServiceAccount", async () => {
  const review = await request(sa, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", {
    body: { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" },
  });
  const user = expectStatus(review, [201], "SelfSubjectReview").status.userInfo;
  assert.equal(user.username, SA_USER);
  assert.deepEqual([...user.groups].sort(), [...SA_GROUPS].sort());
});

test("the ServiceAccount is granted exactly what the controller needs (SubjectAccessReview of every verb)", async () => {
  assert.deepEqual(await wrongGrants(admin, { user: SA_USER, groups: SA_GROUPS }, NEEDED, RESOURCES, VERBS, CLUSTER_SCOPED), []);
});

test("the Lease: its own, by name, in its namespace (a create, which RBAC cannot limit by name, there only); no other (SubjectAccessReview)", async () => {
  const allowed = async (verb, namespace, name) => {
    const review = await request(admin, "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
      body: {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec: { user: SA_USER, groups: SA_GROUPS, resourceAttributes: { group: "coordination.k8s.io", resource: "leases", verb, namespace, name } },
      },
    });
    return expectStatus(review, [201], "SubjectAccessReview").status.allowed === true;
  };
  const cases = [
    ...VERBS.map((verb) => [verb, LEASE.namespace, LEASE.name, ["get", "update", "create"].includes(verb)]),
    ["create", LEASE.namespace, undefined, true],
    ["get", LEASE.namespace, "another-controller", false],
    ["update", LEASE.namespace, "another-controller", false],
    ["list", LEASE.namespace, undefined, false],
    ["get", "kube-system", "kube-scheduler", false],
    ["update", "kube-system", "kube-controller-manager", false],
    ["update", "kube-node-lease", "node-1", false],
    ["create", "kube-system", undefined, false],
  ];
  const wrong = [];
  for (const [verb, namespace, name, want] of cases) {
    if ((await allowed(verb, namespace, name)) !== want) {
      wrong.push(`${verb} leases ${namespace}/${name ?? ""}: ${want ? "needed, refused" : "allowed, not needed"}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test("as the ServiceAccount: everything the controller does", async (t) => {
  const ns = await freshNamespace(admin, t, "rbac");
  // A user's job and scale plan (created by admin, as a user would).
  const job = { ...fixtureJob(), metadata: { name: "mnist", namespace: ns } };
  const created = expectStatus(await request(admin, "POST", collection(job.apiVersion, job.kind, ns), { body: job }), [201], "job");
  const plan = { ...api.initialScalePlan(job), metadata: { ...api.initialScalePlan(job).metadata, namespace: ns } };
  expectStatus(await request(admin, "POST", collection(plan.apiVersion, plan.kind, ns), { body: plan }), [201], "scale plan");
  const ok = async (what, method, path, options, statuses = [200]) => expectStatus(await request(sa, method, path, options), statuses, `${what} as ${SA_NAME}`);

  // Watch jobs and plans in every namespace.
  for (const plural of ["elasticjobs", "scaleplans"]) {
    const all = `/apis/elastic.iml.github.io/v1alpha1/${plural}`;
    await ok(`list ${plural}`, "GET", all);
    await ok(`watch ${plural}`, "GET", all, { query: { watch: "true", timeoutSeconds: "1" } });
  }
  const read = await ok("get the job", "GET", objectPath(created));
  await ok("get the scale plan", "GET", objectPath(plan));
  // Status: replaced with the resourceVersion read.
  const status = { conditions: [{ type: "Created", status: "True", reason: "JobCreated", message: "ElasticJob mnist is created." }], phase: "Created" };
  await ok("update the job status", "PUT", `${objectPath(created)}/status`, { body: { ...read, status } });
  const readPlan = await ok("get the scale plan again", "GET", objectPath(plan));
  await ok("update the plan status", "PUT", `${objectPath(plan)}/status`, { body: { ...readPlan, status: { phase: "Pending", createTime: "2026-03-01T10:00:00Z" } } });

  // The pods and services the core renders for the stored job, owned by it (blockOwnerDeletion).
  const objects = api.render(read).items;
  assert.ok(objects.every((o) => o.metadata.ownerReferences?.[0]?.blockOwnerDeletion === true), "the rendered objects are owned by the job");
  for (const obj of objects) {
    await ok(`create ${obj.kind} ${obj.metadata.name}`, "POST", collection(obj.apiVersion, obj.kind, ns), { body: obj }, [201]);
  }
  const again = objects.find((o) => o.kind === "Pod");
  const exists = await request(sa, "POST", collection(again.apiVersion, again.kind, ns), { body: again });
  assert.equal(exists.status, 409, `a pod created again: ${JSON.stringify(exists.body)}`);
  assert.equal(exists.body.reason, "AlreadyExists");
  await ok("list pods", "GET", collection("v1", "Pod", ns), { query: { labelSelector: "elasticjob.dlrover/name=mnist" } });
  await ok("watch pods", "GET", collection("v1", "Pod"), { query: { watch: "true", timeoutSeconds: "1", labelSelector: "app=dlrover" } });
  const pod = objects.find((o) => o.kind === "Pod");
  const stored = expectStatus(await request(admin, "GET", objectPath({ ...pod, metadata: { ...pod.metadata, namespace: ns } })), [200], "the pod");
  // Adoption: the job's controller reference added, the pod's uid a precondition (a strategic merge patch).
  await ok("adopt a pod", "PATCH", objectPath(stored), {
    body: { metadata: { ownerReferences: pod.metadata.ownerReferences, uid: stored.metadata.uid } },
    contentType: "application/strategic-merge-patch+json",
  });
  await ok("delete a pod now", "DELETE", objectPath({ ...pod, metadata: { ...pod.metadata, namespace: ns } }), { query: { gracePeriodSeconds: "0" } });
  const service = objects.find((o) => o.kind === "Service");
  const servicePath = objectPath({ ...service, metadata: { ...service.metadata, namespace: ns } });
  await ok("get a service", "GET", servicePath);
  await ok("apply a service", "PATCH", servicePath, { body: service, query: { fieldManager: "elasticjob-controller", force: "true" }, contentType: "application/apply-patch+yaml" });
  await ok("delete a service (the rank a scale-down removed)", "DELETE", servicePath);

  // Leader election on its Lease, in its namespace: created, read, renewed, released.
  const lease = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: LEASE, spec: { holderIdentity: "test", leaseDurationSeconds: 15 } };
  await request(admin, "DELETE", objectPath(lease));
  t.after(() => request(admin, "DELETE", objectPath(lease)));
  await ok("create the lease", "POST", collection("coordination.k8s.io/v1", "Lease", SA_NAMESPACE), { body: lease }, [201]);
  const storedLease = await ok("get the lease", "GET", objectPath(lease));
  const renewed = await ok("renew the lease", "PUT", objectPath(lease), { body: { ...storedLease, spec: { ...storedLease.spec, renewTime: "2026-03-01T10:00:00.000000Z" } } });
  await ok("release the lease", "PUT", objectPath(lease), { body: { ...renewed, spec: { ...renewed.spec, holderIdentity: undefined, leaseDurationSeconds: 1 } } });

  // An event about the job.
  const event = {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: "mnist.created", namespace: ns },
    involvedObject: { apiVersion: job.apiVersion, kind: job.kind, name: "mnist", namespace: ns, uid: read.metadata.uid },
    reason: "PodsCreated",
    message: "created the master pod and service",
    type: "Normal",
    source: { component: "elasticjob-controller" },
  };
  await ok("create an event", "POST", collection("v1", "Event", ns), { body: event }, [201]);
  await ok("patch an event", "PATCH", objectPath(event), { body: { count: 2 }, contentType: "application/merge-patch+json" });
  // A finished job deleted once its runPolicy.ttlSecondsAfterFinished has passed.
  await ok("delete the job", "DELETE", objectPath(created), { body: { apiVersion: "v1", kind: "DeleteOptions", preconditions: { uid: created.metadata.uid } } });
});

test("as the ServiceAccount: anything else is forbidden", async (t) => {
  const space = await freshNamespace(admin, t, "rbac-deny");
  const secret = { apiVersion: "v1", kind: "Secret", metadata: { name: "db-password", namespace: space }, stringData: { password: "x" } };
  expectStatus(await request(admin, "POST", collection("v1", "Secret", space), { body: secret }), [201], "secret");
  const job = { ...fixtureJob(), metadata: { name: "mnist", namespace: space } };
  const storedJob = expectStatus(await request(admin, "POST", collection(job.apiVersion, job.kind, space), { body: job }), [201], "job");
  const objects = api.render(storedJob).items;
  const pod = objects.find((o) => o.kind === "Pod");
  const service = objects.find((o) => o.kind === "Service");
  for (const obj of [pod, service]) {
    expectStatus(await request(admin, "POST", collection(obj.apiVersion, obj.kind, space), { body: obj }), [201], `${obj.kind} ${obj.metadata.name}`);
  }
  const at = (obj) => objectPath({ ...obj, metadata: { ...obj.metadata, namespace: space } });
  const deployment = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "miner", namespace: space },
    spec: { selector: { matchLabels: { app: "miner" } }, template: { metadata: { labels: { app: "miner" } }, spec: { containers: [{ name: "main", image: "miner:1" }] } } },
  };
  const attempts = [
    ["delete a Secret", "DELETE", objectPath(secret)],
    ["read a Secret", "GET", objectPath(secret)],
    ["list Secrets", "GET", collection("v1", "Secret", space)],
    ["create a Deployment", "POST", collection("apps/v1", "Deployment", space), { body: deployment }],
    ["change a job's spec", "PATCH", objectPath(storedJob), { body: { spec: { replicaSpecs: { worker: { replicas: 9 } } } }, contentType: "application/merge-patch+json" }],
    ["create a ScalePlan", "POST", collection("elastic.iml.github.io/v1alpha1", "ScalePlan", space), { body: api.initialScalePlan(job) }],
    ["write a pod's status", "PATCH", `${at(pod)}/status`, { body: { status: { phase: "Running" } }, contentType: "application/merge-patch+json" }],
    ["create a Namespace", "POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "mine" } } }],
    ["delete a Lease", "DELETE", `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-apiserver`],
    ["read the scheduler's Lease", "GET", `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler`],
    ["take over the scheduler's Lease", "PUT", `/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kube-scheduler`, { body: { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "kube-scheduler", namespace: "kube-system" }, spec: { holderIdentity: "x" } } }],
    ["create a Lease elsewhere", "POST", `/apis/coordination.k8s.io/v1/namespaces/${space}/leases`, { body: { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "mine", namespace: space }, spec: {} } }],
    ["update a service (applied, never replaced)", "PUT", at(service), { body: service }],
    ["patch a job's status (replaced, never patched)", "PATCH", `${objectPath(storedJob)}/status`, { body: { status: { phase: "Pending" } }, contentType: "application/merge-patch+json" }],
    ["bind itself to cluster-admin", "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", { body: { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRoleBinding", metadata: { name: "mine" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "cluster-admin" }, subjects: [{ kind: "ServiceAccount", name: SA_NAME, namespace: SA_NAMESPACE }] } }],
  ];
  for (const [what, method, path, options] of attempts) {
    const answer = await request(sa, method, path, options);
    assert.equal(answer.status, 403, `${what}: HTTP ${answer.status} ${answer.body?.message ?? ""}`);
    assert.equal(answer.body.reason, "Forbidden", what);
  }
  // And the secret is still there.
  expectStatus(await request(admin, "GET", objectPath(secret)), [200], "the secret");
});

test("without the finalizers grant, the owner references the controller writes are refused", async (t) => {
  // The ClusterRole minus elasticjobs/finalizers, bound to a second ServiceAccount.
  const space = await freshNamespace(admin, t, "rbac-owner");
  const name = "no-finalizers";
  const role = manifests("deploy/rbac.yaml").find((o) => o.kind === "ClusterRole");
  const reduced = { ...role, metadata: { name: `elasticjob-test-${name}` }, rules: role.rules.filter((r) => !r.resources.includes("elasticjobs/finalizers")) };
  assert.equal(reduced.rules.length, role.rules.length - 1);
  const binding = {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: { name, namespace: space },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: reduced.metadata.name },
    subjects: [{ kind: "ServiceAccount", name, namespace: space }],
  };
  const rolePath = `/apis/rbac.authorization.k8s.io/v1/clusterroles/${reduced.metadata.name}`;
  expectStatus(await request(admin, "PATCH", rolePath, { body: reduced, query: { fieldManager: "elasticjob-test", force: "true" }, contentType: "application/apply-patch+yaml" }), [200, 201], "reduced role");
  t.after(() => request(admin, "DELETE", rolePath));
  expectStatus(await request(admin, "POST", collection("v1", "ServiceAccount", space), { body: { apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace: space } } }), [201], "service account");
  expectStatus(await request(admin, "POST", `/apis/rbac.authorization.k8s.io/v1/namespaces/${space}/rolebindings`, { body: binding }), [201], "binding");
  const other = tokenConfig(admin, name, await serviceAccountToken(admin, { namespace: space, name }, 600));

  const job = { ...fixtureJob(), metadata: { name: "mnist", namespace: space } };
  const storedJob = expectStatus(await request(admin, "POST", collection(job.apiVersion, job.kind, space), { body: job }), [201], "job");
  const pod = api.render(storedJob).items.find((o) => o.kind === "Pod");
  const answer = await request(other, "POST", collection("v1", "Pod", space), { body: pod });
  assert.equal(answer.status, 403, JSON.stringify(answer.body));
  assert.match(answer.body.message, /blockOwnerDeletion|finalizers/);
});
