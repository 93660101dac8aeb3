// The controller image that `make image` wrote (deploy/Dockerfile, the OCI archive under target/image),
// run with podman as a kubelet runs the pod of deploy/controller.yaml, against the real API server
// of tests/cluster: the archive loaded as podman, skopeo and docker read it; then the container on
// the host network (where the test API server listens) with only what a pod gets: the
// ServiceAccount's token, CA and namespace mounted where client-node's in-cluster config reads them,
// KUBERNETES_SERVICE_HOST and _PORT, the Deployment's arguments, uid 65532, a read-only root
// filesystem (no tmpfs either), no capabilities, no new privileges. It writes a job and sees the
// controller in the image make its master pod and service, then stops it with SIGTERM (`podman
// stop`, as a kubelet stops a pod) and sees it release its leader lease and exit 0.
//
// Run by `make test-image` (mk/image.mk), which sets IMAGE (NAME:TAG), IMAGE_ARCHIVE,
// IMAGE_NODE_VERSION (the Node the image's base carries) and CONTAINERS_CONF (runc, cgroupfs, no
// default ulimits: what podman needs on this machine).
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { parse, parseAllDocuments } from "yaml";
import { job as fixtureJob } from "../../pkg/test/fixtures.js";
import { CONTROLLER_SA, adminConfig, applyManifests, collection, eventually, expectStatus, freshNamespace, request } from "../e2e/kube.js";
import { SERVICE_ACCOUNT_DIR, freePort, loadArchive, run, serviceAccountMount } from "./podman.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const IMAGE = process.env.IMAGE;
const ARCHIVE = process.env.IMAGE_ARCHIVE;
/** mk/image.mk's pinned Node, e.g. 24.22.3: the image's, not the Node running this test. */
const NODE_VERSION = process.env.IMAGE_NODE_VERSION;
/** What a kubelet pulls for `image: NAME:TAG`, and what the archive names. */
const QUALIFIED = `docker.io/library/${IMAGE}`;
const work = mkdtempSync(join(tmpdir(), "elasticjob-image-"));
const admin = adminConfig();
const read = (path) => readFileSync(join(ROOT, path), "utf8");

before(() => {
  assert.ok(IMAGE && ARCHIVE && NODE_VERSION && process.env.CONTAINERS_CONF, "run with `make test-image` (IMAGE, IMAGE_ARCHIVE, IMAGE_NODE_VERSION and CONTAINERS_CONF)");
});
after(() => rmSync(work, { recursive: true, force: true }));

describe("the OCI archive of make image", () => {
  it("is the image the chart, deploy/install.yaml and deploy/controller.yaml name", () => {
    const chart = parse(read("charts/elasticjob/Chart.yaml"));
    const values = parse(read("charts/elasticjob/values.yaml"));
    assert.equal(`${values.image.repository}:${values.image.tag || chart.appVersion}`, IMAGE);
    for (const file of ["deploy/install.yaml", "deploy/controller.yaml"]) {
      const deployment = parseAllDocuments(read(file)).map((d) => d.toJS()).find((o) => o?.kind === "Deployment");
      assert.equal(deployment.spec.template.spec.containers[0].image, IMAGE, file);
    }
    assert.ok(ARCHIVE.endsWith(`/${IMAGE.replace(":", "-")}.tar`), ARCHIVE);
  });

  it("loads with podman load, and skopeo reads it as an OCI archive and as a Docker archive (what docker load reads)", () => {
    for (const [transport, config] of Object.entries(loadArchive(ARCHIVE, QUALIFIED))) {
      assert.equal(config.config.User, "65532:65532", transport);
      assert.deepEqual(config.config.Entrypoint, ["elasticjob", "controller"], transport);
    }
    const manifest = JSON.parse(execFileSync("tar", ["-xOf", ARCHIVE, "manifest.json"], { encoding: "utf8" }));
    assert.deepEqual(manifest[0].RepoTags, [IMAGE], "the tag docker load gives it");
    // The image runs the pinned Node, a long-term support release, and the package's CLI.
    const [version, lts] = run("podman", ["run", "--rm", "--network", "none", "--entrypoint", "node", QUALIFIED, "-p", "`${process.version} ${process.release.lts}`"]).trim().split(" ");
    assert.equal(version, `v${NODE_VERSION}`, "mk/image.mk's IMAGE_NODE_VERSION");
    assert.notEqual(lts, "undefined", `Node ${version} is not a long-term support release`);
    assert.equal(run("podman", ["run", "--rm", "--network", "none", QUALIFIED, "--help"]).split("\n")[0].startsWith("Usage: elasticjob controller "), true);
  });
});

describe("the image run as deploy/controller.yaml's pod", () => {
  const name = `elasticjob-image-test-${randomBytes(3).toString("hex")}`;
  let container;
  const lines = [];

  after(() => {
    if (container && container.exitCode === null) {
      execFileSync("podman", ["rm", "--force", "--time", "0", name], { stdio: "ignore" });
    }
  });

  it("reads its in-cluster credentials, runs as 65532 with a read-only root and no capabilities, makes a job's master pod and service, and releases its lease on SIGTERM", async (t) => {
    // The ServiceAccount and RBAC of deploy/rbac.yaml, and what the kubelet mounts of them.
    await applyManifests(admin, "deploy/rbac.yaml");
    const secrets = join(work, "serviceaccount");
    const server = await serviceAccountMount(admin, CONTROLLER_SA, secrets);

    // The Deployment's arguments, its two ports free ones of this host (the container shares its network).
    const deployment = parseAllDocuments(read("deploy/controller.yaml")).map((d) => d.toJS()).find((o) => o?.kind === "Deployment");
    const [spec] = deployment.spec.template.spec.containers;
    const [metricsPort, healthPort] = [await freePort(), await freePort()];
    const args = spec.args.map((a) => a.replace(/^--metrics-port=\d+$/, `--metrics-port=${metricsPort}`).replace(/^--health-port=\d+$/, `--health-port=${healthPort}`));
    assert.deepEqual(spec.args.map((a) => a.replace(/=\d+$/, "")), [
      "--leader-elect",
      `--leader-elect-name=elasticjob-controller`,
      `--leader-elect-namespace=${CONTROLLER_SA.namespace}`,
      "--metrics-port",
      "--health-port",
      "--log-level=info",
    ]);
    const pod = deployment.spec.template.spec.securityContext;
    assert.deepEqual([pod.runAsUser, pod.runAsGroup, spec.securityContext.readOnlyRootFilesystem, spec.securityContext.capabilities.drop], [65532, 65532, true, ["ALL"]]);

    container = spawn(
      "podman",
      [
        "run", "--rm", "--name", name, "--hostname", name, "--network", "host",
        "--user", `${pod.runAsUser}:${pod.runAsGroup}`, "--read-only", "--read-only-tmpfs=false",
        "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
        "--env", `KUBERNETES_SERVICE_HOST=${server.hostname}`, "--env", `KUBERNETES_SERVICE_PORT=${server.port}`,
        "--volume", `${secrets}:${SERVICE_ACCOUNT_DIR}:ro`,
        QUALIFIED, ...args,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const exited = new Promise((resolve) => container.on("exit", (code, signal) => resolve({ code, signal })));
    let stderr = "";
    container.stderr.on("data", (d) => (stderr += d));
    createInterface({ input: container.stdout }).on("line", (l) => lines.push(l));
    const logged = (msg) => lines.map((l) => JSON.parse(l)).find((l) => l.msg === msg);
    const waitFor = (msg, seconds = 60) => eventually(`the controller logs "${msg}"${stderr ? `; stderr: ${stderr}` : ""}\n${lines.join("\n")}`, () => logged(msg), seconds);

    const serving = await waitFor("serving");
    assert.deepEqual([serving.healthPort, serving.metricsPort], [healthPort, metricsPort]);
    await eventually("/readyz answers 200 (the caches are filled)", async () => (await fetch(`http://127.0.0.1:${healthPort}/readyz`)).status === 200);
    const lease = () => request(admin, "GET", `/apis/coordination.k8s.io/v1/namespaces/${CONTROLLER_SA.namespace}/leases/elasticjob-controller`);
    const held = await eventually("the lease held by the container", async () => {
      const answer = await lease();
      return answer.status === 200 && answer.body.spec.holderIdentity?.startsWith(`${name}_`) && answer.body;
    });
    t.diagnostic(`lease holder ${held.spec.holderIdentity}`);

    // What the process is: uid and gid 65532, no capability, no new privileges; the root read-only.
    const status = Object.fromEntries(run("podman", ["exec", name, "cat", "/proc/1/status"]).split("\n").map((l) => l.split(/:\s+/)));
    assert.equal(status.Uid, "65532\t65532\t65532\t65532");
    assert.equal(status.Gid, "65532\t65532\t65532\t65532");
    for (const set of ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"]) {
      assert.equal(status[set], "0000000000000000", set);
    }
    assert.equal(status.NoNewPrivs, "1");
    const write = spawnResult("podman", ["exec", name, "node", "-e", "for (const p of ['/x', '/tmp/x', '/usr/local/lib/node_modules/elasticjob/x']) { try { require('fs').writeFileSync(p, ''); console.log(p, 'written') } catch (e) { console.log(p, e.code) } }"]);
    assert.deepEqual(write.trim().split("\n"), ["/x EROFS", "/tmp/x EROFS", "/usr/local/lib/node_modules/elasticjob/x EROFS"]);

    // A job: its master pod and service, made by the controller in the image.
    const ns = await freshNamespace(admin, t, "image");
    const job = { ...fixtureJob(), metadata: { name: "mnist", namespace: ns } };
    expectStatus(await request(admin, "POST", collection(job.apiVersion, "ElasticJob", ns), { body: job }), [201], "job mnist");
    const master = "elasticjob-mnist-dlrover-master";
    const made = await eventually("the master pod and service", async () => {
      const [p, s] = await Promise.all([request(admin, "GET", `/api/v1/namespaces/${ns}/pods/${master}`), request(admin, "GET", `/api/v1/namespaces/${ns}/services/${master}`)]);
      return p.status === 200 && s.status === 200 && { pod: p.body, service: s.body };
    });
    assert.equal(made.pod.metadata.ownerReferences[0].name, "mnist");
    assert.equal(made.service.metadata.ownerReferences[0].name, "mnist");

    // SIGTERM, as a kubelet stops the pod: the lease released, exit 0.
    run("podman", ["stop", "--time", String(deployment.spec.template.spec.terminationGracePeriodSeconds), name]);
    const end = await exited;
    assert.deepEqual(end, { code: 0, signal: null }, `${stderr}\n${lines.join("\n")}`);
    assert.ok(logged("released the leader lease"), lines.join("\n"));
    const released = (await lease()).body.spec;
    assert.equal(released.holderIdentity ?? "", "");
    assert.equal(released.leaseDurationSeconds, 1);
  });
});

/** The standard output of a program that may exit non-zero. */
function spawnResult(program, args) {
  try {
    return execFileSync(program, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    return e.stdout;
  }
}
