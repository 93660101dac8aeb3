// `make bench` writes its figures here: `node benches/report.mjs machine OUT.json` notes the machine
// and its load before the benchmarks run; `node benches/report.mjs table DIR` reads what each
// benchmark wrote into DIR (core.json, bounds.json, npm.json, pass.json, policy.json, www.json, controller.json, kubeflow-tfconfig.json,
// cluster.json, soak.json, machine.json; benches/controller-before.json gives the controller's figures before
// issue 19, benches/pass-before.json a pass's before issue 25)
// and prints one Markdown table, the machine it ran on at the top; `node benches/report.mjs page
// DIR PAGE` writes that table into PAGE (docs/benchmarks.md) between its two markers, replacing
// what the last run wrote there and leaving the page's own text as it is.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem } from "node:os";
import { join } from "node:path";

const BEGIN = "<!-- make bench writes from here -->";
const END = "<!-- make bench writes up to here -->";

const [command, path, page] = process.argv.slice(2);
if (command === "machine" && path) {
  writeFileSync(path, JSON.stringify(machine(), null, 2));
} else if (command === "table" && path) {
  process.stdout.write(table(path));
} else if (command === "page" && path && page) {
  writeFileSync(page, intoPage(readFileSync(page, "utf8"), table(path), page));
} else {
  console.error("usage: node benches/report.mjs machine OUT.json | table DIR | page DIR PAGE.md");
  process.exit(2);
}

// The page's text with the table between its markers in place of what was there.
function intoPage(text, generated, name) {
  const begin = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (begin < 0 || end < begin) {
    console.error(`${name}: the markers \`${BEGIN}\` and \`${END}\` (in this order) are missing; the table is in target/bench.md`);
    process.exit(1);
  }
  return `${text.slice(0, begin + BEGIN.length)}\n${generated}${text.slice(end)}`;
}

function machine() {
  const cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
  const model = /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1] ?? cpus()[0]?.model ?? "unknown";
  const osRelease = existsSync("/etc/os-release") ? readFileSync("/etc/os-release", "utf8") : "";
  const os = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(osRelease)?.[1] ?? "Linux";
  const version = (cmd, args) => {
    try {
      return execFileSync(cmd, args, { encoding: "utf8" }).trim();
    } catch {
      return "absent";
    }
  };
  return {
    date: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    cores: cpus().length,
    cpu: model,
    memoryGiB: totalmem() / 2 ** 30,
    os: `${os}, Linux ${release()}`,
    rustc: version("rustc", ["--version"]),
    node: process.version,
    load: loadavg(),
  };
}

function table(dir) {
  const read = (name) => {
    const file = join(dir, `${name}.json`);
    return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : null;
  };
  const m = read("machine");
  const core = read("core");
  const bounds = read("bounds");
  const npm = read("npm");
  const pass = read("pass");
  // The pass's figures before the store (main at the commit it names, the same benchmark, checked in).
  const passBefore = JSON.parse(readFileSync(new URL("./pass-before.json", import.meta.url), "utf8"));
  const policy = read("policy");
  const www = read("www");
  const controller = read("controller");
  const kubeflowTfConfig = read("kubeflow-tfconfig");
  const cluster = read("cluster");
  const image = read("image");
  // The controller's figures before issue 19, measured once by the same benchmark (checked in).
  const before = JSON.parse(readFileSync(new URL("./controller-before.json", import.meta.url), "utf8"));
  const ms = (x, digits = 1) => (x == null ? "n/a" : `${x.toFixed(digits)} ms`);
  const us = (x) => (x == null ? "n/a" : `${x.toFixed(1)} µs`);
  const n = (x) => x.toLocaleString("en-US");
  const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
  const rows = [];
  const row = (what, figure, note = "") => rows.push(`| ${what} | ${figure} | ${note} |`);
  const section = (title) => rows.push(`| **${title}** | | |`);

  section("Core (native, criterion, median)");
  if (core) {
    row(`\`render\`: the 1,000-worker job (1,000 workers, 50 PS, chief, evaluator) to ${n(core.job.objects)} objects`, ms(core.render), `${mb(core.job.bytes)} of JSON once serialised`);
    row("`serialize`: the same objects to JSON only (the floor)", ms(core.serialize));
    row("ratio render / serialize", (core.render / core.serialize).toFixed(2), "goal: at most 2");
    row("render and serialize", ms(core.renderAndSerialize));
    const first = core.reconcile[0];
    for (const r of core.reconcile) {
      const growth = r === first ? "" : `${(r.ms / first.ms).toFixed(0)}x the time of ${n(first.pods)} pods for ${n(r.pods / first.pods)}x the pods`;
      row(`\`reconcile\`, a running job of ${n(r.pods)} pods`, ms(r.ms, 3), growth);
    }
    const w0 = core.renderWorkers[0];
    for (const r of core.renderWorkers) {
      const growth = r === w0 ? "" : `; ${(r.ms / w0.ms).toFixed(0)}x the time of ${n(w0.workers)} workers`;
      row(`\`render\`, ${n(r.workers)} workers and 50 PS`, ms(r.ms, 3), `${n(r.objects)} objects, ${mb(r.bytes)}${growth}`);
    }
    row("reading 10,000 observed pods from JSON values (paths, unknown fields)", ms(core.read10kPods));
  } else {
    row("core benchmarks", "not run");
  }

  section("npm package in Node (median of 30)");
  if (npm) {
    row("`render` (JS object in, JS objects out)", ms(npm.renderMs), `${(npm.renderMs / npm.nativeRenderAndSerializeMs).toFixed(2)}x native render + serialize`);
    if (npm.renderJsonMs != null) {
      const same = npm.nativeRenderJsonMs != null ? `; ${(npm.renderJsonMs / npm.nativeRenderJsonMs).toFixed(2)}x native \`render_json\` (${ms(npm.nativeRenderJsonMs)}), the same bytes` : "";
      row("`renderJson` (JS object in, JSON text out: what the CLI writes)", ms(npm.renderJsonMs), `${(npm.renderJsonMs / npm.nativeRenderAndSerializeMs).toFixed(2)}x native render + serialize (goal: at most 1.2x)${same}`);
    }
    if (npm.renderSummaryMs != null) {
      row("`renderSummary` (the rows only, as the preview's table)", ms(npm.renderSummaryMs), `${(npm.renderSummaryMs / npm.nativeRenderMs).toFixed(2)}x native render`);
    }
    row("native render + serialize (the same job, `native_render`)", ms(npm.nativeRenderAndSerializeMs), `render alone ${ms(npm.nativeRenderMs)}`);
  } else {
    row("npm benchmark", "not run");
  }

  section("One controller pass through the npm package (CPU time, median)");
  if (pass) {
    const was = (k, f) => (passBefore[k]?.[f] != null ? `before (${passBefore.commit}, objects walked across the boundary): ${ms(passBefore[k][f], 3)}` : "");
    for (const [k, what] of [
      ["running11", "1 PS + 10 workers, running"],
      ["plan1000", "1,000 workers, the master's first plan just written"],
      ["unchanged1000", "1,000 workers, running, unchanged"],
    ]) {
      const f = pass[k];
      row(`${what} (${n(f.pods)} pods, ${n(f.services)} services): the pass as the controller makes it (core's store)`, ms(f.storeMs, 3), was(k, "valuesMs"));
      row(`the same: handing the inputs over (no job, nothing decided)`, ms(f.readStoreMs, 3), `${was(k, "readValuesMs")}; goal: at most a tenth`);
      row(`the same over values (\`controllerPass\` with objects)`, ms(f.valuesMs, 3), `handing over ${ms(f.readValuesMs, 3)}; one pod's watch event into the store ${ms(f.eventMs, 3)}`);
    }
  } else {
    row("pass benchmark", "not run");
  }

  section("Admission policy in a waPC host (wasmtime, as Kubewarden's policy-server)");
  if (policy) {
    row("`elasticjob_policy.wasm` size", `${n(policy.gzipBytes)} bytes gzip -9`, `${n(policy.rawBytes)} bytes raw`);
    for (const v of policy.validate) {
      row(`\`validate\`, ${v.label} (${n(v.payloadBytes)} byte payload)`, `median ${us(v.medianUs)}, p99 ${us(v.p99Us)}`, `over ${n(v.calls)} calls; native build median ${us(v.nativeMedianUs)}`);
    }
    row("module compile (Cranelift) / instantiation", `${ms(policy.compileMs)} / ${us(policy.instantiateUs)}`, "medians");
  } else {
    row("policy benchmark", "not run");
  }

  section("Controller image (`make image`: deploy/Dockerfile with buildah, on the base from Debian's packages)");
  if (image) {
    row(`\`${image.image}\`, unpacked`, mb(image.bytes), `${image.layers} layers; base \`${image.base}\``);
    row("the same, compressed (its layers as gzip: what a registry stores and a node pulls)", mb(image.gzipBytes), `OCI archive ${mb(image.archiveBytes)}`);
    row("the package layer (the npm package and its production dependencies)", mb(image.appLayerBytes), `${mb(image.appLayerGzipBytes)} compressed`);
    row("build: buildah bud, podman save, the archive made Docker's too", ms(image.buildMs, 0), "the base made once before it (mmdebstrap), not counted");
  } else {
    row("image benchmark", "not run");
  }

  section("Browser preview in headless Chromium (1,000-worker job)");
  if (www) {
    row("paste -> table painted", ms(www.pastePaintedMs), `median of ${www.runs} pastes; goal: at most 150 ms`);
    row("CPU time on that path", ms(www.pathCpuMs), `of which the analysis in the worker ${ms(www.workerCpuMs)}`);
    row("select worker 999 -> its TF_CONFIG shown", ms(www.selectMs));
    for (const t of www.typing) {
      row(`typing into ${t.what}: longest main-thread task`, `${ms(t.cpuMs)} CPU`, `${ms(t.wallMs)} wall`);
    }
  } else {
    row("preview benchmark", "not run");
  }

  section("Controller on the test cluster of tests/cluster (4 KWOK nodes; one run each)");
  if (controller) {
    const s = (x) => (x == null ? "n/a" : `${x.toFixed(2)} s`);
    const was = before ? ` (before: ${before.commit}, on the cluster without nodes, ` : "";
    const then = (text) => (before ? `${was}${text})` : "");
    for (const [limit, f] of Object.entries(controller).filter(([k]) => k === "default" || k === "off")) {
      const label = limit === "default" ? "default rate limit (200/s, burst 400)" : "rate limit off";
      const kf = controller.kubeflowTwentyJobsSeconds;
      row(
        `20 jobs x (1 PS + 10 workers), jobs written -> every pod and service, ${label}`,
        s(f.twentyJobsSeconds),
        `${kf ? `${(f.twentyJobsSeconds / kf).toFixed(2)}x Kubeflow's ${s(kf)}; ` : ""}goal: at most 0.8x and 4 s${then(s(before?.twentyJobsSeconds))}`,
      );
      if (f.twentyJobsRunningSeconds != null) {
        const kfRunning = controller.kubeflowTwentyJobsRunningSeconds;
        const median = limit === "default" ? ", medians of 3 runs, ours and Kubeflow's in turn" : "";
        row(
          `the same 20 jobs, jobs written -> every pod Running, ${label}`,
          s(f.twentyJobsRunningSeconds),
          `${kfRunning ? `${(f.twentyJobsRunningSeconds / kfRunning).toFixed(2)}x Kubeflow's ${s(kfRunning)}; ` : ""}goal: at most 0.8x${median}`,
        );
      }
      if (limit === "default" && controller.twentyJobsCpu) {
        const { ours, kubeflow } = controller.twentyJobsCpu;
        row(
          "the same 20 jobs: CPU seconds of the controller / of the cluster over the run",
          `${s(ours.controller)} / ${s(ours.cluster)}`,
          `${kubeflow ? `Kubeflow's operator ${s(kubeflow.controller)} / ${s(kubeflow.cluster)}; ` : ""}medians; the machine has 2 cores`,
        );
      }
      if (limit === "default" && controller.twentyFloor) {
        const floor = controller.twentyFloor;
        const headless = controller.twentyFloorHeadless;
        row(
          "the same 20 jobs' 480 pods and services made by a bare client, 8 at once -> every pod Running",
          s(floor.runningSeconds),
          `the cluster's own time for these objects; with headless services (as Kubeflow's): ${s(headless?.runningSeconds)}`,
        );
      }
      row(
        `the 1,000-worker job's first plan, made with the job: job written -> every pod and service, ${label}`,
        s(f.bigPlanSeconds),
        `${f.bigPlanToFloor.toFixed(2)}x a bare client's ${s(controller.floor.seconds)}; goal: at most 15 s and 1.5x${then(`${s(before?.bigPlanSeconds)}, ${before?.bigPlanToFloor.toFixed(2)}x`)}`,
      );
      row(`API calls per created pod, ${label}`, f.callsPerPod.toFixed(2), `goal: at most 2.5${then(before?.callsPerPod.toFixed(2))}`);
      row(`peak RSS with 10,000 pods cached, ${label}`, `${f.peakRssMB.toFixed(0)} MB`, `goal: at most 250 MB${then(`${before?.peakRssMB} MB`)}`);
    }
  } else {
    row("controller benchmark", "not run");
  }
  section("Scale run on the KWOK cluster of tests/cluster (50 fake nodes; jobs of 1 PS + 100 workers; one run each)");
  if (cluster) {
    const peerOf = (r) => cluster.kubeflow?.find((k) => k.jobs === r.jobs);
    for (const r of cluster.runs) {
      const kf = peerOf(r);
      const versus = kf ? `Kubeflow's operator, the same jobs as TFJobs (${n(kf.pods)} pods, no master): ${kf.seconds.toFixed(1)} s; ours ${(r.seconds / kf.seconds).toFixed(2)}x` : "";
      row(`${n(r.jobs)} jobs, ${n(r.pods)} pods with their masters: first job written -> every pod Running`, `${r.seconds.toFixed(1)} s`, versus);
      row(`${n(r.jobs)} jobs: controller peak RSS / CPU`, `${r.peakRssMB.toFixed(0)} MB / ${r.cpuSeconds.toFixed(1)} s`, kf ? `Kubeflow's operator: ${kf.peakRssMB.toFixed(0)} MB / ${kf.cpuSeconds.toFixed(1)} s` : "");
      row(`${n(r.jobs)} jobs: API calls a pod`, r.apiCallsPerPod.toFixed(2), kf ? `${n(r.apiCalls)} calls; Kubeflow's operator: ${kf.apiCallsPerPod.toFixed(2)} (${n(kf.apiCalls)})` : `${n(r.apiCalls)} calls`);
    }
    if (cluster.runs.length === 2) {
      const [a, b] = cluster.runs;
      const x = (k) => `${(b[k] / a[k]).toFixed(1)}x`;
      const [ka, kb] = [peerOf(a), peerOf(b)];
      const kx = (k) => `${(kb[k] / ka[k]).toFixed(1)}x`;
      const peer = ka && kb ? `; Kubeflow's operator: time ${kx("seconds")}, peak RSS ${kx("peakRssMB")}, CPU ${kx("cpuSeconds")}, API calls a pod ${kx("apiCallsPerPod")}` : "";
      row(`growth from ${n(a.pods)} to ${n(b.pods)} pods (${(b.pods / a.pods).toFixed(1)}x)`, `time ${x("seconds")}`, `peak RSS ${x("peakRssMB")}, CPU ${x("cpuSeconds")}, API calls a pod ${x("apiCallsPerPod")}${peer}`);
    }
  } else {
    row("scale run", "not run");
  }
  if (kubeflowTfConfig) {
    for (const [n, f] of Object.entries(kubeflowTfConfig)) {
      row(
        `TF_CONFIG of every task, 1 PS + ${n} workers: core \`tfConfig\` a task / \`render\``,
        `${ms(f.tfConfigEveryTaskMs, 3)} / ${ms(f.renderMs, 3)}`,
        f.kubeflowEveryTaskMs ? `${(f.tfConfigEveryTaskMs / f.kubeflowEveryTaskMs).toFixed(2)}x / ${(f.renderMs / f.kubeflowEveryTaskMs).toFixed(2)}x Kubeflow's genTFConfigJSONStr ${ms(f.kubeflowEveryTaskMs, 3)}` : "",
      );
    }
  }

  const soak = read("soak");
  section("Chaos soak (make soak: two replicas with leader election, faults of thirteen kinds on a seeded schedule, an observer's invariants)");
  if (soak) {
    row(`${soak.minutes} min, seed ${soak.seed}: jobs / pods created`, `${n(soak.jobs)} / ${n(soak.podsCreated)}`, `${soak.realMasterJobs} driven by DLRover's real master`);
    // faultsTried: the tries of each kind, those that found nothing to act on included (older runs have none).
    const tried = soak.faultsTried ?? soak.faults;
    row("faults injected / tried", `${Object.values(soak.faults).reduce((a, b) => a + b, 0)} / ${Object.values(tried).reduce((a, b) => a + b, 0)}`, Object.entries(soak.faults).map(([k, v]) => `${k} ${v}${tried[k] !== v ? `/${tried[k]}` : ""}`).join(", "));
    const violations = Object.entries(soak.violations);
    row("invariant violations (goal: 0)", String(violations.reduce((a, [, v]) => a + v, 0)), violations.map(([k, v]) => `${k} ${v}`).join(", "));
    const c = soak.convergenceSeconds;
    row("fault's end -> converged: p50 / p99 / max", `${c.p50} / ${c.p99} / ${c.max} s`, `${c.count} faults`);
    row("API calls a pod; controller CPU; peak RSS", `${soak.apiCallsPerPod} / ${soak.controllerCpuSeconds} s / ${soak.controllerPeakRssMB} MB`, `over ${soak.incarnations} controller processes`);
    // scale: the live pods and the cost per 1,000 pods (older runs have none).
    const sc = soak.scale;
    if (sc) {
      row("live pods: peak / mean", `${n(sc.peakLivePods)} / ${n(sc.meanLivePods)}`, sc.targetLivePods ? `SOAK_PODS=${sc.targetLivePods} (faults x${sc.faultFactor ?? sc.jobSizeFactor})` : "today's mix (SOAK_PODS unset)");
      row("per 1,000 pods: API calls; CPU s (created / mean live); peak RSS MB (peak live)", `${sc.apiCallsPer1000PodsCreated}; ${sc.cpuSecondsPer1000PodsCreated} / ${sc.cpuSecondsPer1000MeanLivePods}; ${sc.peakRssMBPer1000PeakLivePods}`, `unschedulable pods: ${soak.unschedulable?.pods ?? 0}`);
    }
  } else {
    row("chaos soak", "not run");
  }

  section("Resource bounds (one process each; time: median of 3)");
  if (bounds) {
    for (const c of bounds.cases) {
      row(`${c.input} (\`${c.name}\`)`, `${ms(c.ms)}, peak ${c.peakMiB.toFixed(0)} MiB`, `${c.answer}; ${c.beforeMiB.toFixed(0)} MiB held before the run`);
    }
  } else {
    row("bounds benchmark", "not run");
  }

  const head = m
    ? [
        `Measured by \`make bench\` on ${m.date}: ${m.cores} cores (${m.cpu}), ${m.memoryGiB.toFixed(0)} GiB, ${m.os}; ${m.rustc}; Node ${m.node}.`,
        `Load average ${m.load.map((l) => l.toFixed(1)).join(", ")} (1, 5, 15 min) when the run began${m.load[0] > m.cores / 4 ? ": the machine was not idle, so wall times are upper bounds of what an idle one gives" : ""}.`,
        "",
      ]
    : [];
  return [...head, "| benchmark | figure | notes |", "|---|---|---|", ...rows, ""].join("\n");
}
