// What the image tests (tests/image/*.test.js) share: a program's output or a failed assertion, an
// OCI archive loaded with podman and its config read as skopeo reads it, a ServiceAccount mounted
// as a kubelet mounts it, a free port of this host.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { serviceAccountToken } from "../e2e/kube.js";

/** Where client libraries' in-cluster config reads the ServiceAccount (as a kubelet mounts it). */
export const SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

/** The standard output of a program, or a failed assertion with its exit status and output. */
export function run(program, args, options = {}) {
  try {
    return execFileSync(program, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 16 << 20, ...options });
  } catch (e) {
    assert.fail(`${program} ${args.join(" ")}: exit ${e.status}\n${e.stdout}${e.stderr}`);
  }
}

/**
 * The archive loaded afresh with podman load as `qualified` (docker.io/library/NAME:TAG); resolves
 * to its image config as skopeo reads it as an OCI archive and as a Docker archive (what docker
 * load reads), keyed by transport.
 */
export function loadArchive(archive, qualified) {
  run("podman", ["rmi", "--force", "--ignore", qualified]);
  assert.match(run("podman", ["load", "--input", archive]), new RegExp(`^Loaded image: ${qualified.replaceAll(".", "\\.")}$`, "m"));
  const configs = {};
  for (const transport of ["oci-archive", "docker-archive"]) {
    configs[transport] = JSON.parse(run("skopeo", ["inspect", "--config", `${transport}:${archive}`]));
    assert.equal(configs[transport].os, "linux", transport);
  }
  return configs;
}

/**
 * The ServiceAccount `{namespace, name}`'s token (TokenRequest), the cluster's CA and the namespace
 * written into `dir` (readable by any uid, as a kubelet's projected volume), for
 * `--volume DIR:SERVICE_ACCOUNT_DIR:ro`; resolves to the API server's URL, for
 * KUBERNETES_SERVICE_HOST and _PORT.
 */
export async function serviceAccountMount(admin, { namespace, name }, dir) {
  const cluster = admin.getCurrentCluster();
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "token"), await serviceAccountToken(admin, { namespace, name }));
  writeFileSync(join(dir, "ca.crt"), cluster.caData ? Buffer.from(cluster.caData, "base64").toString("utf8") : readFileSync(cluster.caFile, "utf8"));
  writeFileSync(join(dir, "namespace"), namespace);
  chmodSync(join(dir, ".."), 0o755);
  for (const file of ["token", "ca.crt", "namespace"]) {
    chmodSync(join(dir, file), 0o644);
  }
  return new URL(cluster.server);
}

/** A TCP port free on this host now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}
