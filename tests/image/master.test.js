// The job master's image that `make master-image` wrote (deploy/master.Dockerfile, the OCI archive
// under target/image), run with podman as a kubelet runs a job's master pod, against the real API
// server of tests/cluster: the pod the core renders for examples/elasticjob.yaml (its image, the
// core's default, and its command, `python -m dlrover.python.master.main --platform k8s --namespace
// NS --job_name JOB --port 50001`, the port a free one of this host), on the host network (where the
// test API server listens), with what the pod gets: the namespace's default ServiceAccount's token,
// CA and namespace mounted where the Kubernetes client's in-cluster config reads them,
// KUBERNETES_SERVICE_HOST and _PORT, the downward API's POD_IP, the image's user. No controller
// runs: every object the test finds besides the job is the master's own write. DLRover's master
// 0.6.1 at its start in ScalePlan mode creates its service `elasticjob-<job>-dlrover-master` (port
// 50001 to its --port) and writes its ScalePlans `<job>-scaleplan-<n>` (tests/e2e/dlrover.test.js
// runs the same master as a process through the whole of a job).
//
// It runs as the masters' ServiceAccount with the Role of charts/elasticjob/files/master-rules.yaml,
// and every rule of that Role is used: the cluster's API server logs every request of a
// ServiceAccount (`cluster run --audit`, AUDIT_LOG), and the master's are held to the rules. To
// reach each call the master makes, a pod of the job that Succeeded is there at its start (it
// deletes it), and the master is started a second time (it finds its service, and patches it).
//
// Run by `make test-image` (mk/image.mk, mk/master-image.mk), which sets MASTER_IMAGE (NAME:TAG),
// MASTER_IMAGE_ARCHIVE, MASTER_IMAGE_DLROVER_VERSION, AUDIT_LOG and CONTAINERS_CONF.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import * as api from "elasticjob";
import { parse } from "yaml";
import { adminConfig, collection, eventually, expectStatus, freshNamespace, objectPath, request } from "../e2e/kube.js";
import { SERVICE_ACCOUNT_DIR, freePort, loadArchive, run, serviceAccountMount } from "./podman.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const IMAGE = process.env.MASTER_IMAGE;
const ARCHIVE = process.env.MASTER_IMAGE_ARCHIVE;
/** mk/master-image.mk's DLRover version, the one tests/e2e/dlrover-requirements.txt pins. */
const DLROVER_VERSION = process.env.MASTER_IMAGE_DLROVER_VERSION;
/** The API server's audit log (`cluster run --audit`): every request of a ServiceAccount. */
const AUDIT_LOG = process.env.AUDIT_LOG;
const QUALIFIED = `docker.io/library/${IMAGE}`;
const JOB_API = "elastic.iml.github.io/v1alpha1";
const work = mkdtempSync(join(tmpdir(), "elasticjob-master-image-"));
const admin = adminConfig();
const example = () => parse(readFileSync(join(ROOT, "examples/elasticjob.yaml"), "utf8"));
/** The master pod the core renders for a job, with its defaults or `options`. */
const masterPod = (job, options) => api.render(job, null, options).items.find((o) => o.kind === "Pod" && o.metadata.labels?.["elasticjob.dlrover/replica-type"] === "dlrover-master");
/** The ServiceAccount the chart makes for the masters in each of its jobNamespaces. */
const MASTER_ACCOUNT = "elasticjob-dlrover-master";
/** The rules of the Role the chart binds to it (charts/elasticjob/files/master-rules.yaml). */
const MASTER_RULES = parse(readFileSync(join(ROOT, "charts/elasticjob/files/master-rules.yaml"), "utf8"));

before(() => {
  assert.ok(IMAGE && ARCHIVE && DLROVER_VERSION && AUDIT_LOG && process.env.CONTAINERS_CONF, "run with `make test-image` (MASTER_IMAGE, MASTER_IMAGE_ARCHIVE, MASTER_IMAGE_DLROVER_VERSION, AUDIT_LOG and CONTAINERS_CONF)");
});
after(() => rmSync(work, { recursive: true, force: true }));

describe("the OCI archive of make master-image", () => {
  it("is the core's default master image, a version tag pulled IfNotPresent", () => {
    assert.equal(IMAGE, `elasticjob-dlrover-master:${DLROVER_VERSION}`);
    assert.match(readFileSync(join(ROOT, "tests/e2e/dlrover-requirements.txt"), "utf8"), new RegExp(`^dlrover\\[k8s\\]==${DLROVER_VERSION.replaceAll(".", "\\.")}$`, "m"));
    const [main] = masterPod(example()).spec.containers;
    assert.deepEqual([main.image, main.imagePullPolicy], [IMAGE, "IfNotPresent"]);
    assert.ok(ARCHIVE.endsWith(`/${IMAGE.replace(":", "-")}.tar`), ARCHIVE);
  });

  it("loads with podman load; runs as 65532 Debian 12's Python 3.11 with the pinned DLRover and protobuf", () => {
    for (const [transport, config] of Object.entries(loadArchive(ARCHIVE, QUALIFIED))) {
      assert.equal(config.config.User, "65532:65532", transport);
      assert.equal(config.config.Entrypoint, undefined, `${transport}: the pod's command is the whole argv`);
    }
    const versions = run("podman", [
      "run", "--rm", "--network", "none", QUALIFIED, "python", "-c",
      "import os, sys, importlib.metadata as m; print(os.getuid(), sys.version.split()[0], m.version('dlrover'), m.version('protobuf'), open('/etc/debian_version').read().strip())",
    ]).trim().split(" ");
    assert.equal(versions[0], "65532");
    assert.match(versions[1], /^3\.11\./);
    assert.deepEqual(versions.slice(2, 4), [DLROVER_VERSION, "4.25.3"]);
    assert.match(versions[4], /^12\./, "Debian 12");
  });
});

/** The API server's audit events of a user (AUDIT_LOG: one JSON object a line, once answered). */
function auditEvents(user) {
  return readFileSync(AUDIT_LOG, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)).filter((e) => e.user?.username === user && e.stage !== "RequestReceived");
}

/** The calls of a user the API server allowed, as `group/resource[/subresource]:verb`. */
function calls(user) {
  return new Set(
    auditEvents(user)
      .filter((e) => e.objectRef && (e.responseStatus?.code ?? 200) < 400)
      .map((e) => `${e.objectRef.apiGroup ?? ""}/${e.objectRef.resource}${e.objectRef.subresource ? `/${e.objectRef.subresource}` : ""}:${e.verb}`),
  );
}

/** The calls of a user the API server refused (403). */
const refused = (user) => auditEvents(user).filter((e) => e.responseStatus?.code === 403).map((e) => `${e.verb} ${e.requestURI}`);

describe("the image run as a job's master pod", () => {
  const name = `elasticjob-master-image-test-${randomBytes(3).toString("hex")}`;
  let container;

  after(() => {
    if (container && container.exitCode === null) {
      execFileSync("podman", ["rm", "--force", "--time", "0", name], { stdio: "ignore" });
    }
  });

  it("with the core's command and in-cluster credentials, DLRover's master creates its service and writes its ScalePlans", async (t) => {
    const ns = await freshNamespace(admin, t, "master-image");
    const job = example();
    job.metadata.namespace = ns;
    const stored = expectStatus(await request(admin, "POST", collection(JOB_API, "ElasticJob", ns), { body: job }), [201], "the job");
    assert.equal(masterPod(stored).spec.serviceAccountName, undefined, "without the option, the master pod runs as its namespace's default ServiceAccount");
    // As the chart installs it with jobNamespaces: the controller's --master-service-account.
    const pod = masterPod(stored, { masterServiceAccount: MASTER_ACCOUNT });
    assert.equal(pod.spec.serviceAccountName, MASTER_ACCOUNT);
    const [main] = pod.spec.containers;
    // Pod Security restricted (issue 46): run below as a kubelet applies it, every capability dropped,
    // no privilege escalation, the root file system read-only with nothing writable but the pod's
    // emptyDir on /tmp, where DLRover's master writes its training events (a tmpfs below: podman's
    // --read-only alone would put tmpfs on /tmp, /var/tmp and /run too; a kubelet mounts none);
    // runAsNonRoot holds for the image's numeric USER 65532 (the test above).
    assert.deepEqual(pod.spec.securityContext, { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
    assert.deepEqual(main.securityContext, { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] }, readOnlyRootFilesystem: true });
    assert.deepEqual([pod.spec.volumes, main.volumeMounts], [[{ name: "tmp", emptyDir: {} }], [{ name: "tmp", mountPath: "/tmp" }]], "the one writable place: /tmp");
    assert.deepEqual(main.command.slice(0, 9), ["python", "-m", "dlrover.python.master.main", "--platform", "k8s", "--namespace", ns, "--job_name", job.metadata.name]);

    // The ServiceAccount, Role and RoleBinding the chart makes in each of its jobNamespaces, the Role's
    // rules the chart's file: what DLRover's master reads and writes in its namespace.
    const account = { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: MASTER_ACCOUNT, namespace: ns } };
    const role = { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name: MASTER_ACCOUNT, namespace: ns }, rules: MASTER_RULES };
    const binding = {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: MASTER_ACCOUNT, namespace: ns },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: MASTER_ACCOUNT },
      subjects: [{ kind: "ServiceAccount", name: MASTER_ACCOUNT, namespace: ns }],
    };
    for (const obj of [account, role, binding]) {
      expectStatus(await request(admin, "POST", collection(obj.apiVersion, obj.kind, ns), { body: obj }), [201], `${obj.kind} ${obj.metadata.name}`);
    }

    // What the kubelet mounts of the ServiceAccount.
    const secrets = join(work, "serviceaccount");
    const server = await serviceAccountMount(admin, { namespace: ns, name: MASTER_ACCOUNT }, secrets);

    // The pod's command, its --port a free port of this host (the container shares its network);
    // its environment, the downward API's fields as a kubelet fills them.
    const port = await freePort();
    const command = [...main.command];
    command[command.indexOf("--port") + 1] = String(port);
    const downward = { "status.podIP": "127.0.0.1", "metadata.name": pod.metadata.name, "metadata.namespace": ns };
    const env = (main.env ?? []).map((e) => `${e.name}=${e.value ?? downward[e.valueFrom?.fieldRef?.fieldPath]}`);
    assert.ok(!env.some((e) => e.endsWith("=undefined")), env.join(" "));

    // A pod of the job that Succeeded (a task pod as the core makes it, at an id and rank no plan
    // asks for): DLRover's master deletes such a pod when it lists the job's pods.
    const done = api.render(stored).items.find((o) => o.kind === "Pod" && o.metadata.labels?.["elasticjob.dlrover/replica-type"] !== "dlrover-master");
    done.metadata.name = `${job.metadata.name}-edljob-${done.metadata.labels["elasticjob.dlrover/replica-type"]}-99`;
    Object.assign(done.metadata.labels, { "elasticjob.dlrover/replica-index": "99", "elasticjob.dlrover/rank-index": "99" });
    const made = expectStatus(await request(admin, "POST", collection("v1", "Pod", ns), { body: done }), [201], "a pod of the job");
    expectStatus(await request(admin, "PATCH", `${objectPath(made)}/status`, { body: { status: { phase: "Succeeded" } }, contentType: "application/merge-patch+json" }), [200], "the pod Succeeded");

    const lines = [];
    const start = () => {
      container = spawn(
        "podman",
        [
          "run", "--rm", "--name", name, "--hostname", pod.metadata.name, "--network", "host",
          "--cap-drop", "ALL", "--security-opt", "no-new-privileges", // podman's default seccomp profile, as RuntimeDefault
          "--read-only", "--read-only-tmpfs=false", "--tmpfs", "/tmp:rw,mode=1777", // the emptyDir on /tmp
          "--env", `KUBERNETES_SERVICE_HOST=${server.hostname}`, "--env", `KUBERNETES_SERVICE_PORT=${server.port}`,
          ...env.flatMap((e) => ["--env", e]),
          "--volume", `${secrets}:${SERVICE_ACCOUNT_DIR}:ro`,
          QUALIFIED, ...command,
        ],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      for (const stream of [container.stdout, container.stderr]) {
        createInterface({ input: stream }).on("line", (l) => lines.push(l));
      }
    };
    start();
    const log = () => lines.slice(-30).join("\n");
    t.diagnostic(`the master: podman run ${QUALIFIED} ${command.join(" ")}`);

    // Its service, made by the master (no controller runs): port 50001 to its --port.
    const serviceName = `elasticjob-${job.metadata.name}-dlrover-master`;
    const service = await eventually(`the master's service ${serviceName}`, async () => {
      const answer = await request(admin, "GET", `/api/v1/namespaces/${ns}/services/${serviceName}`);
      return answer.status === 200 && answer.body;
    }, 90).catch((e) => assert.fail(`${e.message}\nthe master's log:\n${log()}`));
    assert.deepEqual(service.spec.ports.map((p) => [p.name, p.port, p.targetPort]), [["grpc", 50001, port]]);
    assert.deepEqual(service.spec.selector, { "elasticjob.dlrover/name": job.metadata.name, "elasticjob.dlrover/replica-type": "dlrover-master" });
    assert.deepEqual(service.metadata.ownerReferences.map((o) => [o.kind, o.name, o.uid]), [["ElasticJob", job.metadata.name, stored.metadata.uid]]);

    // Its ScalePlans, named and owned as 0.6.1 writes them.
    const plan = await eventually("a ScalePlan of the master", async () => {
      const answer = expectStatus(await request(admin, "GET", collection(JOB_API, "ScalePlan", ns)), [200], "scale plans");
      return answer.items[0];
    }, 90).catch((e) => assert.fail(`${e.message}\nthe master's log:\n${log()}`));
    assert.match(plan.metadata.name, new RegExp(`^${job.metadata.name}-scaleplan-\\d+$`));
    assert.deepEqual(plan.metadata.labels, { "scale-type": "auto" });
    assert.deepEqual(plan.metadata.ownerReferences.map((o) => [o.name, o.uid]), [[job.metadata.name, stored.metadata.uid]]);
    assert.equal(container.exitCode, null, `the master runs\n${log()}`);
    assert.ok(!lines.some((l) => /\(403\)|Forbidden/.test(l)), `the master was refused nothing:\n${lines.filter((l) => /\(403\)|Forbidden/.test(l)).join("\n")}`);
    t.diagnostic(`service ${serviceName} -> ${port}; plan ${plan.metadata.name}: ${JSON.stringify(plan.spec)}`);
    expectStatus(await request(admin, "GET", objectPath(stored)), [200], "the job");
    await eventually("the Succeeded pod deleted by the master", async () => (await request(admin, "GET", objectPath(made))).status === 404, 60)
      .catch((e) => assert.fail(`${e.message}\nthe master's log:\n${log()}`));

    // The master started again, as after a restart of its pod: it finds its service, and patches it.
    const user = `system:serviceaccount:${ns}:${MASTER_ACCOUNT}`;
    execFileSync("podman", ["rm", "--force", "--time", "0", name], { stdio: "ignore" });
    await new Promise((resolve) => (container.exitCode === null ? container.on("exit", resolve) : resolve()));
    start();
    await eventually("the master's service patched by its second start", () => calls(user).has("/services:patch"), 90)
      .catch((e) => assert.fail(`${e.message}\nthe master's log:\n${log()}`));
    assert.equal(container.exitCode, null, `the master runs again\n${log()}`);

    // Every rule of the Role used by a call the master made, and every call it made allowed. The
    // rule on the job's finalizers is the one the API server's OwnerReferencesPermissionEnforcement
    // admission checks for an owner reference with blockOwnerDeletion, which the master's service
    // and ScalePlans carry: their creation allowed is that rule used.
    const granted = MASTER_RULES.flatMap((r) => r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => `${g}/${res}:${v}`))));
    const checkedByAdmission = "elastic.iml.github.io/elasticjobs/finalizers:update";
    const unused = () => granted.filter((g) => g !== checkedByAdmission && !calls(user).has(g));
    await eventually("every rule used", () => unused().length === 0, 60)
      .catch((e) => assert.fail(`${e.message}: ${unused().join(", ")} not used; the master's calls: ${[...calls(user)].sort().join(", ")}\nthe master's log:\n${log()}`));
    const used = calls(user);
    assert.ok(used.has("/services:create") && used.has("elastic.iml.github.io/scaleplans:create"), "the service and ScalePlans created");
    assert.ok([...service.metadata.ownerReferences, ...plan.metadata.ownerReferences].every((o) => o.blockOwnerDeletion === true), "owner references that admission checks");
    assert.deepEqual(refused(user), [], "no call of the master refused");
    assert.deepEqual([...used].filter((c) => !granted.includes(c)), [], "no call beyond the Role");
    t.diagnostic(`the master's calls (audit log): ${[...used].sort().join(", ")}`);
  });
});
