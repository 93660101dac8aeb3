// Kubeflow's training-operator v1.9.4 as the benchmarks' peer (benches/node/controller.js on the bare API
// server, benches/node/cluster.js on the KWOK cluster): the binary and module directory that
// benches/kubeflow/operator.sh builds and prints (KUBEFLOW_OPERATOR, KUBEFLOW_SRC), started on the
// cluster of $KUBECONFIG for one namespace, and the benchmarks' jobs written as TFJobs.
//
// The operator starts its TFJob controller only once its cert rotator has filled the Secret
// kubeflow/training-operator-webhook-cert, which it then reads from a fixed folder under the system
// temp dir (its pkg/cert/cert.go); this module plays the kubelet there, writing the Secret's keys
// into that folder as a mounted secret volume would. The API server cannot reach the operator's
// webhook, so no webhook configuration is made.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { parse } from "yaml";
import { adminConfig, eventually, expectStatus, metricSum, request } from "../../tests/e2e/kube.js";

const admin = adminConfig();
/** Where the operator reads its webhook server's certificate (pkg/cert/cert.go's certDir). */
const CERT_DIR = "/tmp/k8s-webhook-server/serving-certs";
const SECRET = "/api/v1/namespaces/kubeflow/secrets/training-operator-webhook-cert";

/** The operator's binary and module directory, when the environment names them. */
export function kubeflowFromEnv() {
  const { KUBEFLOW_OPERATOR: operator, KUBEFLOW_SRC: src } = process.env;
  return operator && src ? { operator, src } : undefined;
}

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}


/** The TFJob CRD from the module, established; the kubeflow namespace and the webhook's Secret. */
async function install(src) {
  const crd = parse(readFileSync(join(src, "manifests/base/crds/kubeflow.org_tfjobs.yaml"), "utf8"));
  const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`;
  const apply = { body: crd, query: { fieldManager: "elasticjob-bench", force: "true" }, contentType: "application/apply-patch+yaml" };
  expectStatus(await request(admin, "PATCH", crdPath, apply), [200, 201], "TFJob CRD");
  await eventually("the TFJob CRD established", async () => {
    const stored = expectStatus(await request(admin, "GET", crdPath), [200], "CRD");
    return stored.status?.conditions?.some((c) => c.type === "Established" && c.status === "True");
  }, 60);
  // The API server's first write of a kind builds what serves it (seconds for a large schema): a
  // cluster has paid that before anyone writes a TFJob, so one is written before any clock starts.
  const ns = `bench-warm-tfjob-${process.pid}`;
  expectStatus(await request(admin, "POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } } }), [201], "namespace");
  const warm = { body: tfJob(ns, "warm", { ps: 1, workers: 1, container: { name: "tensorflow", image: "busybox" } }) };
  await eventually("a TFJob written", async () => (await request(admin, "POST", `/apis/kubeflow.org/v1/namespaces/${ns}/tfjobs`, warm)).status === 201, 60);
  expectStatus(await request(admin, "DELETE", `/api/v1/namespaces/${ns}`), [200], "namespace");
  if ((await request(admin, "GET", "/api/v1/namespaces/kubeflow")).status === 404) {
    const body = { apiVersion: "v1", kind: "Namespace", metadata: { name: "kubeflow" } };
    expectStatus(await request(admin, "POST", "/api/v1/namespaces", { body }), [201], "namespace kubeflow");
  }
  if ((await request(admin, "GET", SECRET)).status === 404) {
    const body = { apiVersion: "v1", kind: "Secret", metadata: { name: "training-operator-webhook-cert", namespace: "kubeflow" } };
    expectStatus(await request(admin, "POST", "/api/v1/namespaces/kubeflow/secrets", { body }), [201], "webhook cert secret");
  }
}

/**
 * Starts the operator for namespace `ns` (`--controller-threads=4 --kube-api-qps=1000`, its
 * metrics on a port of its own) once its TFJob controller runs. Resolves to `{ child, metricsPort,
 * stop }`.
 */
export async function startKubeflow({ operator, src }, ns) {
  await install(src);
  const metricsPort = await freePort();
  const args = [
    "--enable-scheme=tfjob",
    `--metrics-bind-address=127.0.0.1:${metricsPort}`,
    "--health-probe-bind-address=0",
    `--webhook-server-port=${await freePort()}`,
    "--controller-threads=4",
    "--kube-api-qps=1000",
    `--namespace=${ns}`,
  ];
  const child = spawn(operator, args, { env: { ...process.env }, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  const exited = new Promise((resolve) => child.on("exit", resolve));
  const stop = async () => {
    child.kill("SIGTERM");
    await exited;
  };
  try {
    const secret = await eventually("the operator's cert rotator filling its Secret", async () => {
      const answer = expectStatus(await request(admin, "GET", SECRET), [200], "secret");
      return answer.data?.["tls.crt"] && answer.data?.["tls.key"] && answer;
    }, 60);
    mkdirSync(CERT_DIR, { recursive: true });
    for (const [key, value] of Object.entries(secret.data)) {
      writeFileSync(join(CERT_DIR, key), Buffer.from(value, "base64"));
    }
    await eventually("the operator starting its TFJob controller", () => /Starting workers.*tfjob/i.test(log) || child.exitCode !== null, 60);
    if (child.exitCode !== null) {
      throw new Error(`exited ${child.exitCode}`);
    }
  } catch (e) {
    await stop();
    throw new Error(`Kubeflow's operator did not start: ${e.message}: ${log.slice(-3000)}`);
  }
  return { child, metricsPort, stop };
}

/** The operator's API calls so far (client-go's rest_client_requests_total, from its metrics). */
export const kubeflowApiCalls = ({ metricsPort }) => metricSum(metricsPort, "rest_client_requests_total");

/** A TFJob of `ps` PS and `workers` workers, each container as `container` (name `tensorflow`). */
export function tfJob(ns, name, { ps, workers, container }) {
  const replica = (replicas) => ({
    replicas,
    restartPolicy: "Never",
    template: { spec: { containers: [{ ...container, name: "tensorflow" }] } },
  });
  return { apiVersion: "kubeflow.org/v1", kind: "TFJob", metadata: { name, namespace: ns }, spec: { tfReplicaSpecs: { PS: replica(ps), Worker: replica(workers) } } };
}
