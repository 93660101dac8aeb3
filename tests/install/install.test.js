// Installing the controller as a platform engineer does, on the real API server of tests/cluster:
// the Helm chart (charts/elasticjob) rendered and sent to the server as a server-side dry run,
// installed and uninstalled with Helm, a wrong value refused with its path; deploy/install.yaml
// applied with a real kubectl; then a job watched with the kubectl plugin as a user does, through
// create -> running -> a relaunch -> succeeded, against a golden text. Helm and kubectl are the
// binaries of tests/tools ($HELM, $KUBECTL); the plugin is installed with the README's command.
//
// The test cluster runs here with no fake node (`--nodes 0`): the job's story must change only when
// the test says, so the test writes pod status itself (setPodStatus). It plays DLRover's master (0.6.1) too, writing its scale plans in
// the master's exact shape: its first plan, and the relaunch plan of a failed worker.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parse, parseAllDocuments } from "yaml";
import {
  adminConfig,
  collection,
  eventually,
  expectStatus,
  freshNamespace,
  manifests,
  objectPath,
  request,
  serviceAccountToken,
  tokenConfig,
} from "../e2e/kube.js";

const admin = adminConfig();
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CHART = join(ROOT, "charts/elasticjob");
const GOLDEN = fileURLToPath(new URL("./golden/status.txt", import.meta.url));
const HELM = process.env.HELM;
const KUBECTL = process.env.KUBECTL;
const JOB_API = "elastic.iml.github.io/v1alpha1";
const work = mkdtempSync(join(tmpdir(), "elasticjob-install-"));
/** The global npm prefix of these tests: `npm install --global` puts the plugin in its bin/. */
const prefix = join(work, "npm-global");
const env = { ...process.env, npm_config_prefix: prefix, PATH: [join(prefix, "bin"), process.env.PATH].join(delimiter) };
const processes = new Set();
const cleanups = [];

before(() => {
  assert.ok(HELM && KUBECTL, "run with `make test-install` (HELM and KUBECTL name the binaries of tests/tools)");
});

after(async () => {
  for (const child of processes) {
    child.kill("SIGKILL");
  }
  await Promise.all(cleanups.map((c) => c()));
  rmSync(work, { recursive: true, force: true });
});

/** Runs a program (no shell) from the repository root; resolves to {status, stdout, stderr}. */
function run(program, args, { input, cwd = ROOT } = {}) {
  const bin = { helm: HELM, kubectl: KUBECTL }[program] ?? program;
  try {
    const stdout = execFileSync(bin, args, { cwd, env, input, encoding: "utf8", stdio: ["pipe", "pipe", "pipe"], maxBuffer: 64 << 20 });
    return { status: 0, stdout, stderr: "" };
  } catch (e) {
    if (e.status === null || e.status === undefined) {
      throw e;
    }
    return { status: e.status, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Runs a program and fails with its output unless it exits 0; resolves to its standard output. */
function ok(program, args, options) {
  const answer = run(program, args, options);
  assert.equal(answer.status, 0, `${program} ${args.join(" ")}: exit ${answer.status}\n${answer.stdout}${answer.stderr}`);
  return answer.stdout;
}

const objects = (text) => parseAllDocuments(text).map((d) => d.toJS()).filter((o) => o);
const find = (list, kind, name) => list.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
const get = async (path, query) => expectStatus(await request(admin, "GET", path, { query }), [200], `GET ${path}`);
const exists = async (path) => (await request(admin, "GET", path)).status === 200;

describe("the Helm chart", () => {
  it("renders what deploy/rbac.yaml and deploy/controller.yaml run, and the server accepts it (server-side dry run)", async (t) => {
    const rendered = objects(ok("helm", ["template", "elasticjob", CHART, "--namespace", "elasticjob-system", "--include-crds"]));
    assert.deepEqual(rendered.map((o) => o.kind), ["CustomResourceDefinition", "CustomResourceDefinition", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Deployment"]);
    // The CRDs are deploy/crds/ (`make crds`), as they are.
    for (const file of ["elastic.iml.github.io_elasticjobs.yaml", "elastic.iml.github.io_scaleplans.yaml"]) {
      const [crd] = manifests(`deploy/crds/${file}`);
      assert.deepEqual(find(rendered, "CustomResourceDefinition", crd.metadata.name), crd);
    }
    const rbac = manifests("deploy/rbac.yaml");
    assert.deepEqual(find(rendered, "ClusterRole").rules, find(rbac, "ClusterRole").rules, "the rules of deploy/rbac.yaml");
    assert.deepEqual(find(rendered, "ClusterRoleBinding").subjects, find(rbac, "ClusterRoleBinding").subjects);
    // The leader Lease: a Role of the release namespace, that Lease alone (and a create).
    assert.deepEqual(find(rendered, "Role").rules, find(rbac, "Role").rules, "the Lease's rules of deploy/rbac.yaml");
    assert.equal(find(rendered, "Role").metadata.namespace, "elasticjob-system");
    assert.deepEqual(find(rbac, "Role").rules.find((r) => r.verbs.includes("update")).resourceNames, ["elasticjob-controller"]);
    assert.ok(!find(rbac, "ClusterRole").rules.some((r) => r.resources.includes("leases")), "no Lease cluster-wide");
    assert.equal(find(rbac, "Namespace").metadata.labels["pod-security.kubernetes.io/enforce"], "restricted");
    const [deployment] = manifests("deploy/controller.yaml");
    const chart = find(rendered, "Deployment");
    const [want] = deployment.spec.template.spec.containers;
    const [got] = chart.spec.template.spec.containers;
    for (const key of ["ports", "livenessProbe", "readinessProbe", "resources", "securityContext"]) {
      assert.deepEqual(got[key], want[key], key);
    }
    assert.deepEqual(want.args.filter((a) => !got.args.includes(a)), [], "every argument of deploy/controller.yaml");
    assert.equal(got.image, "elasticjob-controller:0.1.0");
    const pod = chart.spec.template.spec;
    for (const key of ["securityContext", "serviceAccountName", "terminationGracePeriodSeconds"]) {
      assert.deepEqual(pod[key], deployment.spec.template.spec[key], key);
    }
    assert.equal(chart.spec.replicas, deployment.spec.replicas);
    assert.deepEqual(chart.spec.template.metadata.annotations, deployment.spec.template.metadata.annotations);

    // The server's verdict on every object, in a namespace that exists (a dry run creates none).
    const ns = await freshNamespace(admin, t, "helm-dry");
    const text = ok("helm", ["template", "elasticjob", CHART, "--namespace", ns, "--include-crds"]);
    const out = ok("kubectl", ["apply", "--server-side", "--dry-run=server", "--field-manager=elasticjob-test", "-f", "-"], { input: text });
    assert.match(out, /deployment\.apps\/elasticjob-controller serverside-applied \(server dry run\)/);
  });

  it("limited to one namespace: a Role and RoleBinding there, the Lease's Role in the release namespace; accepted (dry run)", async (t) => {
    const ns = await freshNamespace(admin, t, "helm-watch");
    const text = ok("helm", ["template", "elasticjob", CHART, "--namespace", ns, "--set", `watchNamespace=${ns}`]);
    const rendered = objects(text);
    assert.deepEqual(rendered.map((o) => `${o.kind}/${o.metadata.name}`), [
      "ServiceAccount/elasticjob-controller",
      // Helm's install order: Roles, then RoleBindings.
      "Role/elasticjob-controller",
      "Role/elasticjob-controller-leader-election",
      "RoleBinding/elasticjob-controller",
      "RoleBinding/elasticjob-controller-leader-election",
      "Deployment/elasticjob-controller",
    ]);
    const rbac = manifests("deploy/rbac.yaml");
    assert.deepEqual(find(rendered, "Role", "elasticjob-controller").rules, find(rbac, "ClusterRole").rules);
    assert.deepEqual(find(rendered, "Role", "elasticjob-controller-leader-election").rules, find(rbac, "Role", "elasticjob-controller-leader-election").rules);
    assert.equal(find(rendered, "Role", "elasticjob-controller-leader-election").metadata.namespace, ns);
    assert.ok(find(rendered, "Deployment").spec.template.spec.containers[0].args.includes(`--namespace=${ns}`));
    ok("kubectl", ["apply", "--server-side", "--dry-run=server", "--field-manager=elasticjob-test", "-f", "-"], { input: text });
  });

  it("with jobNamespaces: in each, the job masters' ServiceAccount, the Role of files/master-rules.yaml and their binding; the controller runs masters as it; accepted (dry run)", async (t) => {
    const jobs = [await freshNamespace(admin, t, "helm-jobs"), await freshNamespace(admin, t, "helm-jobs")];
    const text = ok("helm", ["template", "elasticjob", CHART, "--namespace", "default", "--set", `jobNamespaces={${jobs.join(",")}}`]);
    const rendered = objects(text);
    const rules = parse(readFileSync(join(CHART, "files/master-rules.yaml"), "utf8"));
    for (const ns of jobs) {
      const here = rendered.filter((o) => o.metadata.namespace === ns);
      assert.deepEqual(here.map((o) => `${o.kind}/${o.metadata.name}`).sort(), ["Role", "RoleBinding", "ServiceAccount"].map((k) => `${k}/elasticjob-dlrover-master`));
      assert.deepEqual(find(here, "Role").rules, rules);
      assert.deepEqual(find(here, "RoleBinding").subjects, [{ kind: "ServiceAccount", name: "elasticjob-dlrover-master", namespace: ns }]);
    }
    const args = (values) => find(objects(ok("helm", ["template", "elasticjob", CHART, ...values])), "Deployment").spec.template.spec.containers[0].args;
    assert.ok(find(rendered, "Deployment").spec.template.spec.containers[0].args.includes("--master-service-account=elasticjob-dlrover-master"));
    assert.ok(args(["--set", "jobNamespaces={a}", "--set", "masterServiceAccount=trainer"]).includes("--master-service-account=trainer"));
    assert.ok(!args([]).some((a) => a.startsWith("--master-service-account")), "none by default: the namespace's default");
    // User-written masters run as the account only when the admin says so; the policy is told what the controller is.
    assert.ok(!find(rendered, "Deployment").spec.template.spec.containers[0].args.includes("--allow-user-masters"), "off by default");
    assert.ok(args(["--set", "allowUserMasters=true"]).includes("--allow-user-masters"));
    const policy = (values) => find(objects(ok("helm", ["template", "elasticjob", CHART, "--set", "kubewarden.enabled=true", ...values.flatMap((v) => ["--set", v])])), "ClusterAdmissionPolicy").spec.settings;
    assert.deepEqual(policy([]), {});
    assert.deepEqual(policy(["jobNamespaces={a}", "allowUserMasters=true", "masterImage=registry.example.com/m@sha256:" + "0".repeat(64), "kubewarden.settings.denyPrivileged=true"]), {
      denyPrivileged: true,
      masterServiceAccount: "elasticjob-dlrover-master",
      allowUserMasters: true,
      masterImage: "registry.example.com/m@sha256:" + "0".repeat(64),
    });
    ok("kubectl", ["apply", "--server-side", "--dry-run=server", "--field-manager=elasticjob-test", "-f", "-"], { input: text });
  });

  it("with kubewarden.enabled: the ClusterAdmissionPolicy of deploy/kubewarden/, its settings from values", () => {
    const [policy] = manifests("deploy/kubewarden/clusteradmissionpolicy.yaml");
    const values = join(work, "kubewarden.yaml");
    writeFileSync(values, JSON.stringify({ kubewarden: { enabled: true, settings: policy.spec.settings } }));
    const rendered = find(objects(ok("helm", ["template", "elasticjob", CHART, "-f", values])), "ClusterAdmissionPolicy");
    assert.deepEqual(rendered.spec, policy.spec);
    assert.deepEqual(rendered.metadata.annotations, policy.metadata.annotations);
    assert.equal(rendered.metadata.name, policy.metadata.name);
  });

  it("with kueue.enabled: --kueue, and the rules of deploy/rbac-kueue.yaml (a Role for the jobs' namespace when limited to one); accepted (dry run)", async (t) => {
    const [role, binding] = manifests("deploy/rbac-kueue.yaml");
    const all = objects(ok("helm", ["template", "elasticjob", CHART, "--namespace", "elasticjob-system", "--set", "kueue.enabled=true"]));
    assert.deepEqual(find(all, "ClusterRole", "elasticjob-controller-kueue").rules, role.rules, "the rules of deploy/rbac-kueue.yaml");
    assert.deepEqual(find(all, "ClusterRoleBinding", "elasticjob-controller-kueue").subjects, binding.subjects);
    assert.deepEqual(find(all, "ClusterRoleBinding", "elasticjob-controller-kueue").roleRef, binding.roleRef);
    assert.ok(find(all, "Deployment").spec.template.spec.containers[0].args.includes("--kueue"));
    assert.ok(!find(objects(ok("helm", ["template", "elasticjob", CHART])), "Deployment").spec.template.spec.containers[0].args.includes("--kueue"), "off by default");
    // Limited to one namespace: the namespaced rules in a Role there, the cluster-wide reads in the ClusterRole.
    const ns = await freshNamespace(admin, t, "helm-kueue");
    const text = ok("helm", ["template", "elasticjob", CHART, "--namespace", ns, "--set", "kueue.enabled=true", "--set", `watchNamespace=${ns}`]);
    const one = objects(text);
    const clusterWide = (r) => ["resourceflavors", "workloadpriorityclasses", "priorityclasses"].some((name) => r.resources.includes(name));
    assert.deepEqual(find(one, "Role", "elasticjob-controller-kueue").rules, role.rules.filter((r) => !clusterWide(r)));
    assert.equal(find(one, "Role", "elasticjob-controller-kueue").metadata.namespace, ns);
    assert.deepEqual(find(one, "ClusterRole", "elasticjob-controller-kueue").rules, role.rules.filter(clusterWide));
    ok("kubectl", ["apply", "--server-side", "--dry-run=server", "--field-manager=elasticjob-test", "-f", "-"], { input: text });
  });

  it("with gangSchedulerName: --gang-scheduler-name, and the PodGroup rules of deploy/rbac-gang.yaml for that scheduler's group alone (volcanoPodGroups: Volcano's without the flag; a Role when limited to one namespace); none by default; accepted (dry run)", async (t) => {
    const [role, binding] = manifests("deploy/rbac-gang.yaml");
    const [rule] = role.rules;
    assert.deepEqual(role.rules.length, 1);
    const only = (group) => [{ ...rule, apiGroups: [group] }];
    const render = (...values) => objects(ok("helm", ["template", "elasticjob", CHART, "--namespace", "elasticjob-system", ...values.flatMap((v) => ["--set", v])]));
    const argsOf = (rendered) => find(rendered, "Deployment").spec.template.spec.containers[0].args;
    for (const [values, groups, flag] of [
      [["gangSchedulerName=scheduler-plugins-scheduler"], ["scheduling.x-k8s.io"], "--gang-scheduler-name=scheduler-plugins-scheduler"],
      [["gangSchedulerName=volcano"], ["scheduling.volcano.sh"], "--gang-scheduler-name=volcano"],
      [["volcanoPodGroups=true"], ["scheduling.volcano.sh"], undefined],
      [["gangSchedulerName=volcano", "volcanoPodGroups=true"], ["scheduling.volcano.sh"], "--gang-scheduler-name=volcano"],
      [["gangSchedulerName=scheduler-plugins-scheduler", "volcanoPodGroups=true"], ["scheduling.x-k8s.io", "scheduling.volcano.sh"], "--gang-scheduler-name=scheduler-plugins-scheduler"],
    ]) {
      const rendered = render(...values);
      assert.deepEqual(find(rendered, "ClusterRole", "elasticjob-controller-gang").rules, [{ ...rule, apiGroups: groups }], values.join(" "));
      assert.deepEqual(find(rendered, "ClusterRoleBinding", "elasticjob-controller-gang").subjects, binding.subjects);
      assert.deepEqual(find(rendered, "ClusterRoleBinding", "elasticjob-controller-gang").roleRef, binding.roleRef);
      assert.deepEqual(argsOf(rendered).filter((a) => a.startsWith("--gang-scheduler-name")), flag ? [flag] : [], values.join(" "));
    }
    assert.deepEqual(rule.apiGroups, ["scheduling.x-k8s.io", "scheduling.volcano.sh"], "deploy/rbac-gang.yaml: both groups");
    const plain = render();
    assert.equal(find(plain, "ClusterRole", "elasticjob-controller-gang"), undefined, "no PodGroup rule by default");
    assert.ok(!plain.some((o) => JSON.stringify(o.rules ?? []).includes("podgroups")), "no PodGroup rule by default");
    assert.ok(!argsOf(plain).some((a) => a.startsWith("--gang-scheduler-name")), "no gang scheduler by default");
    // Limited to one namespace: a Role and RoleBinding there.
    const ns = await freshNamespace(admin, t, "helm-gang");
    const text = ok("helm", ["template", "elasticjob", CHART, "--namespace", ns, "--set", "gangSchedulerName=volcano", "--set", `watchNamespace=${ns}`]);
    const one = objects(text);
    assert.deepEqual(find(one, "Role", "elasticjob-controller-gang").rules, only("scheduling.volcano.sh"));
    assert.equal(find(one, "Role", "elasticjob-controller-gang").metadata.namespace, ns);
    assert.equal(find(one, "RoleBinding", "elasticjob-controller-gang").metadata.namespace, ns);
    assert.equal(find(one, "ClusterRole", "elasticjob-controller-gang"), undefined);
    ok("kubectl", ["apply", "--server-side", "--dry-run=server", "--field-manager=elasticjob-test", "-f", "-"], { input: text });
  });

  it("a wrong value is refused with its path, before anything is sent", () => {
    const bad = join(work, "bad-values.yaml");
    writeFileSync(bad, "replicas: two\nmetrics:\n  port: 80000\nkubewarden:\n  settings:\n    maxReplicas: 3\nimage:\n  pullPolicy: Sometimes\n  digest: latest\ngangSchedulerName: Volcano\nmasterServiceAccount: default\n");
    for (const command of [["template", "elasticjob", CHART, "-f", bad], ["install", "elasticjob", CHART, "--namespace", "elasticjob-bad", "-f", bad]]) {
      const answer = run("helm", command);
      assert.notEqual(answer.status, 0);
      for (const line of [
        "at '/replicas': got string, want integer",
        "at '/metrics/port': maximum: got 80,000, want 65,535",
        "at '/kubewarden/settings': additional properties 'maxReplicas' not allowed",
        "at '/image/pullPolicy': value must be one of 'Always', 'IfNotPresent', 'Never'",
        "at '/gangSchedulerName': 'Volcano' does not match pattern",
        "at '/masterServiceAccount'",
        "at '/image/digest'",
      ]) {
        assert.ok(answer.stderr.includes(line), `helm ${command[0]}: ${line}\n${answer.stderr}`);
      }
    }
  });

  it("helm install creates the release's objects; helm uninstall removes them", async () => {
    const out = ok("helm", ["install", "elasticjob", "charts/elasticjob", "--namespace", "elasticjob-system", "--create-namespace", "--set", "image.repository=registry.example.com/elasticjob/elasticjob-controller"]);
    assert.match(out, /STATUS: deployed/);
    const deployment = await get("/apis/apps/v1/namespaces/elasticjob-system/deployments/elasticjob-controller");
    assert.equal(deployment.spec.template.spec.containers[0].image, "registry.example.com/elasticjob/elasticjob-controller:0.1.0");
    // Pinned by digest (issue 46): repository@digest, the tag left out.
    const digest = `sha256:${"ab".repeat(32)}`;
    const pinned = find(objects(ok("helm", ["template", "elasticjob", CHART, "--set", "image.repository=registry.example.com/e/c", "--set", `image.digest=${digest}`])), "Deployment");
    assert.equal(pinned.spec.template.spec.containers[0].image, `registry.example.com/e/c@${digest}`);
    assert.equal(deployment.metadata.labels["app.kubernetes.io/managed-by"], "Helm");
    assert.ok(await exists("/apis/rbac.authorization.k8s.io/v1/clusterroles/elasticjob-controller"));
    assert.ok(await exists("/api/v1/namespaces/elasticjob-system/serviceaccounts/elasticjob-controller"));
    assert.match(ok("helm", ["list", "--namespace", "elasticjob-system"]), /^elasticjob\s+elasticjob-system\s+1\s/m);

    assert.match(ok("helm", ["uninstall", "elasticjob", "--namespace", "elasticjob-system"]), /release "elasticjob" uninstalled/);
    for (const path of [
      "/apis/apps/v1/namespaces/elasticjob-system/deployments/elasticjob-controller",
      "/apis/rbac.authorization.k8s.io/v1/clusterroles/elasticjob-controller",
      "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/elasticjob-controller",
      "/api/v1/namespaces/elasticjob-system/serviceaccounts/elasticjob-controller",
    ]) {
      // Without a garbage collector a deleted Deployment is gone at once (no finalizer is set).
      assert.equal(await exists(path), false, `${path} after uninstall`);
    }
    // Helm keeps CRDs (crds/ is installed once and never deleted): jobs outlive the release.
    assert.ok(await exists("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/elasticjobs.elastic.iml.github.io"));
  });
});

describe("deploy/install.yaml, then a job watched with `kubectl elasticjob status`", () => {
  let ns;
  let controller;

  before(async () => {
    ns = await freshNamespace(admin, { after: (c) => cleanups.push(c) }, "training");
  });

  after(async () => {
    if (controller) {
      controller.kill("SIGTERM");
      await new Promise((resolve) => controller.on("exit", resolve));
    }
  });

  it("kubectl apply --server-side -f deploy/install.yaml installs every object; applied again, nothing changes", async () => {
    const out = ok("kubectl", ["apply", "--server-side", "-f", "deploy/install.yaml"]);
    const installed = manifests("deploy/install.yaml");
    assert.equal(out.trim().split("\n").length, installed.length, out);
    for (const obj of installed.filter((o) => o.kind !== "CustomResourceDefinition")) {
      const path = obj.kind === "Deployment" ? `/apis/apps/v1/namespaces/${obj.metadata.namespace}/deployments/${obj.metadata.name}` : objectPath(obj);
      assert.ok(await exists(path), `${obj.kind} ${obj.metadata.name}`);
    }
    // Its namespace enforces Pod Security's restricted profile, which the controller's pods meet: a
    // pod of the Deployment's template is accepted there (dry run), one that runs as root is not.
    const space = installed.find((o) => o.kind === "Namespace").metadata.name;
    assert.equal((await get(`/api/v1/namespaces/${space}`)).metadata.labels["pod-security.kubernetes.io/enforce"], "restricted");
    const template = installed.find((o) => o.kind === "Deployment").spec.template;
    const podOf = (spec) => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "elasticjob-controller-psa", namespace: space }, spec });
    const dryRun = (spec) => request(admin, "POST", `/api/v1/namespaces/${space}/pods`, { body: podOf(spec), query: { dryRun: "All" } });
    expectStatus(await dryRun(template.spec), [201], "the controller's pod in a restricted namespace");
    const [container] = template.spec.containers;
    const root = await dryRun({ ...template.spec, securityContext: {}, containers: [{ ...container, securityContext: {} }] });
    assert.equal(root.status, 403, JSON.stringify(root.body));
    assert.match(root.body.message, /violates PodSecurity "restricted/);
    const again = ok("kubectl", ["apply", "--server-side", "-f", "deploy/install.yaml"]);
    assert.match(again, /deployment\.apps\/elasticjob-controller serverside-applied/);
    assert.equal(ok("kubectl", ["version", "--client", "-o", "json"]).includes('"gitVersion": "v1.37.2"'), true, "kubectl of the server's minor");
  });

  it("the controller, with the ServiceAccount install.yaml made, drives a job through a relaunch; `kubectl get` and `kubectl elasticjob status` tell it", async () => {
    // The controller of the Deployment (no kubelet runs its image here): the same program, with
    // the installed ServiceAccount's token, so install.yaml's RBAC is what it may do.
    const token = await serviceAccountToken(admin, { namespace: "elasticjob-system", name: "elasticjob-controller" });
    const kubeconfig = join(work, "controller.kubeconfig");
    writeFileSync(kubeconfig, tokenConfig(admin, "elasticjob-controller", token).exportConfig());
    controller = spawn(process.execPath, [join(ROOT, "pkg/bin/elasticjob.js"), "controller", "--kubeconfig", kubeconfig, "--namespace", ns, "--metrics-port", "0", "--health-port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
    processes.add(controller);
    controller.on("exit", () => processes.delete(controller));
    const lines = createInterface({ input: controller.stdout });
    await new Promise((resolve) => lines.on("line", (l) => l.includes('"serving"') && resolve()));

    // The plugin, installed with the README's command.
    ok("npm", ["install", "--global", "./pkg"]);
    const status = (...args) => ok("kubectl", ["elasticjob", "status", "mnist", "-n", ns, ...args]);

    const job = await createJob(ns);
    const master = "elasticjob-mnist-dlrover-master";
    await eventually("the master pod", () => pod(ns, master));
    await setPodStatus(ns, master, "Running");
    await eventually("the job Running", async () => (await getJob(ns)).status?.phase === "Running");
    const columns = ok("kubectl", ["get", "elasticjobs", "-n", ns]);
    assert.match(columns, /^NAME\s+PHASE\s+AGE\n/);
    assert.match(columns, /^mnist\s+Running\s+\d+s\n/m);

    // DLRover's master: its first plan (one worker becomes the chief of a PS job without one).
    await createPlan(ns, job, 0, {
      replicaResourceSpecs: { chief: { replicas: 1, resource: RESOURCE }, ps: { replicas: 1, resource: RESOURCE }, worker: { replicas: 1, resource: RESOURCE } },
      createPods: [],
      removePods: [],
    });
    await planSucceeded(ns, "mnist-scaleplan-0");
    for (const name of ["mnist-edljob-chief-0", "mnist-edljob-ps-0", "mnist-edljob-worker-0"]) {
      await eventually(name, () => pod(ns, name));
      await setPodStatus(ns, name, "Running");
    }
    await eventually("3 running tasks counted", async () => (await getJob(ns)).status.status.replicaStatuses.worker?.active === 1);

    // Worker 0 fails; the master relaunches it as a new pod at the same rank.
    await setPodStatus(ns, "mnist-edljob-worker-0", "Failed", 1);
    await eventually("the failure counted", async () => (await getJob(ns)).status.status.replicaStatuses.worker?.failed === 1);
    await createPlan(ns, job, 1, {
      replicaResourceSpecs: {},
      createPods: [{ name: "mnist-edljob-worker-1", type: "worker", id: 1, rankIndex: 0, service: `mnist-edljob-worker-0.${ns}.svc:3333`, resource: RESOURCE }],
      removePods: [],
    });
    await planSucceeded(ns, "mnist-scaleplan-1");
    await eventually("the relaunched worker", () => pod(ns, "mnist-edljob-worker-1"));

    // `--watch` redraws when the relaunched worker runs.
    const watching = watch(["elasticjob", "status", "mnist", "-n", ns, "--watch"]);
    await watching.frames(1);
    await setPodStatus(ns, "mnist-edljob-worker-1", "Running");
    const [first, second] = await watching.frames(2);
    watching.stop();
    assert.match(first, /^ {2}worker +\d+ +1 +0 +0 +1$/m, first);
    assert.match(second, /^ {2}worker +\d+ +0 +1 +0 +1$/m, second);

    // The master finishes: the job Succeeded.
    await setPodStatus(ns, master, "Succeeded");
    await eventually("the job Succeeded", async () => (await getJob(ns)).status.phase === "Succeeded");
    await eventually("its running pods stopped", async () => (await pods(ns)).every((p) => p.status.phase !== "Running" || p.metadata.deletionTimestamp));
    assert.match(ok("kubectl", ["get", "elasticjobs", "-n", ns]), /^mnist\s+Succeeded\s+\d+s\n/m);

    const text = normalise(status(), ns);
    if (process.env.UPDATE_GOLDEN) {
      writeFileSync(GOLDEN, text);
    }
    assert.equal(text, readFileSync(GOLDEN, "utf8"), "kubectl elasticjob status against tests/install/golden/status.txt (UPDATE_GOLDEN=1 rewrites it)");
    // --context and --kubeconfig as kubectl takes them; a missing job and context are clear errors.
    const context = admin.getCurrentContext();
    assert.equal(normalise(ok("kubectl", ["elasticjob", "status", "mnist", "-n", ns, "--kubeconfig", process.env.KUBECONFIG, "--context", context]), ns), text);
    const missing = run("kubectl", ["elasticjob", "status", "nope", "-n", ns]);
    assert.deepEqual([missing.status, missing.stderr], [1, `elasticjob ${ns}/nope: not found\n`]);
    const noContext = run("kubectl", ["elasticjob", "status", "mnist", "--context", "elsewhere"]);
    assert.equal(noContext.status, 2);
    assert.match(noContext.stderr, /no context `elsewhere` in the kubeconfig/);
  });

  it("the plugin's file commands take -f as kubectl does", () => {
    const summary = ok("kubectl", ["elasticjob", "render", "-f", "examples/elasticjob.yaml", "-o", "summary"]);
    assert.match(summary, /^KIND\s+NAME/);
    assert.equal(ok("kubectl", ["elasticjob", "validate", "-f", "examples/elasticjob.yaml"]), "examples/elasticjob.yaml: valid\n");
    const tf = JSON.parse(ok("kubectl", ["elasticjob", "tf-config", "-f", "examples/elasticjob.yaml", "--type", "worker", "--index", "0"]));
    assert.deepEqual(tf.task, { type: "worker", index: 0 });
    const usage = run("kubectl", ["elasticjob", "render"]);
    assert.equal(usage.status, 2);
    assert.match(usage.stderr, /^kubectl elasticjob: FILE is missing\nUsage: kubectl elasticjob render FILE/);
  });
});

const RESOURCE = { cpu: "1.0", memory: "1024Mi" };

const TEMPLATE = {
  spec: {
    restartPolicy: "Never",
    containers: [{ name: "main", image: "tf:2", command: ["python", "-m", "deepctr.train"], resources: { requests: { cpu: "500m", memory: "1Gi" } } }],
  },
};

async function createJob(ns) {
  const job = {
    apiVersion: JOB_API,
    kind: "ElasticJob",
    metadata: { name: "mnist", namespace: ns },
    spec: {
      distributionStrategy: "ParameterServerStrategy",
      replicaSpecs: {
        ps: { replicas: 1, restartCount: 2, template: TEMPLATE },
        // ExitCode: the controller relaunches none on exit code 1; DLRover's master decides.
        worker: { replicas: 2, restartCount: 2, restartPolicy: "ExitCode", template: TEMPLATE },
      },
    },
  };
  return expectStatus(await request(admin, "POST", collection(JOB_API, "ElasticJob", ns), { body: job }), [201], "job mnist");
}

const getJob = (ns) => get(objectPath({ apiVersion: JOB_API, kind: "ElasticJob", metadata: { name: "mnist", namespace: ns } }));
const pods = async (ns) => (await get(collection("v1", "Pod", ns))).items;
const pod = async (ns, name) => (await pods(ns)).find((p) => p.metadata.name === name);

/**
 * A ScalePlan exactly as DLRover's master 0.6.1 writes it: `<job>-scaleplan-<i>`, the one label
 * `scale-type: auto`, the job as owner (kind in lower case, as the master writes it), its PS hosts.
 */
async function createPlan(ns, job, i, spec) {
  const name = job.metadata.name;
  const plan = {
    apiVersion: JOB_API,
    kind: "ScalePlan",
    metadata: {
      name: `${name}-scaleplan-${i}`,
      namespace: ns,
      labels: { "scale-type": "auto" },
      ownerReferences: [{ apiVersion: JOB_API, kind: "elasticjob", name, uid: job.metadata.uid, blockOwnerDeletion: true }],
    },
    spec: { ownerJob: name, ...spec, psHosts: [`${name}-edljob-ps-0.${ns}.svc:2222`] },
  };
  return expectStatus(await request(admin, "POST", collection(JOB_API, "ScalePlan", ns), { body: plan }), [201], `scale plan ${plan.metadata.name}`);
}

function planSucceeded(ns, name) {
  return eventually(`scale plan ${name} Succeeded`, async () => {
    const plan = await get(objectPath({ apiVersion: JOB_API, kind: "ScalePlan", metadata: { name, namespace: ns } }));
    return plan.status?.phase === "Succeeded" && plan;
  });
}

/** The kubelet's part: the pod's phase, and for a failed pod its container's exit code. */
async function setPodStatus(ns, name, phase, exitCode) {
  const status = { phase };
  if (exitCode !== undefined) {
    status.containerStatuses = [{ name: "main", image: "tf:2", imageID: "", ready: false, restartCount: 0, state: { terminated: { exitCode, reason: "Error" } } }];
  }
  expectStatus(
    await request(admin, "PATCH", `/api/v1/namespaces/${ns}/pods/${name}/status`, { body: { status }, contentType: "application/merge-patch+json" }),
    [200],
    `pod ${name} ${phase}`,
  );
}

/** `kubectl ...` left running: the frames it printed (each starts with `Name:`), and a stop. */
function watch(args) {
  const child = spawn(KUBECTL, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  processes.add(child);
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const frames = () => out.split(/\n(?=Name:)/).filter((f) => f.startsWith("Name:") && f.includes("Events ("));
  return {
    frames: (n) => eventually(`${n} frames of kubectl ${args.join(" ")}${err ? `: ${err}` : ""}`, () => frames().length >= n && frames().slice(0, n)),
    stop: () => {
      child.kill("SIGINT");
      processes.delete(child);
    },
  };
}

/** The status text with what changes from run to run made fixed: the namespace, event ages. */
function normalise(text, ns) {
  // An age is at most 4 characters, under the 9 of LAST SEEN: the column keeps its width.
  return text.replaceAll(ns, "training").replace(/^ {2}\d+[smhd] +/gm, "  <age>      ");
}
