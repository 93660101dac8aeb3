// The evidence of each violation, written beside the soak's figures so that a violation is read
// from the run that saw it, not by running its seed again: the violation, the faults active in its
// window, the lease's holders, its jobs' timelines as the observer's watches saw them (each pod,
// service, plan and job change with its time and resourceVersion) and the controllers' log lines
// for those jobs.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const t = (ms) => new Date(ms).toISOString().slice(11, 23);
// Before the first change of a job the observer saw, and after the violation: the window's margins.
const BEFORE_MS = 10_000;
const AFTER_MS = 5_000;
// A violation of no job (a bound of the controllers'): the window is the minute before it.
const ALONE_MS = 60_000;

/**
 * Writes `NN-kind.txt` for each violation into `dir`; returns the paths.
 * faults: [{kind, from, to, note}]; controllers: [{name, lines}] (the log lines, parsed).
 */
export function writeEvidence(dir, { header, violations, observer, faults, controllers, namespace }) {
  mkdirSync(dir, { recursive: true });
  // An earlier run of the same seed may have left more: its files would read as this run's.
  for (const name of readdirSync(dir)) if (/^\d\d-.*\.txt$/.test(name)) rmSync(join(dir, name));
  return violations.map((v, i) => {
    const timelines = v.jobs.map((job) => [job, observer.timelines.get(job) ?? []]);
    const first = Math.min(v.at - ALONE_MS, ...timelines.flatMap(([, line]) => line.slice(0, 1).map((e) => e.at - BEFORE_MS)));
    const window = { from: first, to: v.at + AFTER_MS };
    const out = [];
    out.push(`violation ${v.kind} at ${new Date(v.at).toISOString()}`);
    out.push(v.detail);
    out.push(header);
    out.push(`window ${new Date(window.from).toISOString()} .. ${new Date(window.to).toISOString()}${v.jobs.length ? `; jobs ${v.jobs.join(", ")}` : ""}`);
    out.push("", "== faults active in the window (start .. end, kind, what)");
    const active = faults.filter((f) => f.from <= window.to && (f.to ?? Infinity) >= window.from);
    const effect = (f) => (f.effect !== undefined && f.effect !== f.to ? ` (took effect ${t(f.effect)})` : "");
    out.push(...(active.length ? active.map((f) => `${t(f.from)} .. ${f.to ? t(f.to) : "(not ended)"}${effect(f)} ${f.kind}${f.note ? `: ${f.note}` : ""}`) : ["(none)"]));
    out.push("", "== the lease's holders (as the observer saw them change)");
    const holders = observer.leaseChanges.filter((c) => c.at <= window.to);
    const shown = holders.filter((c) => c.at >= window.from);
    const before = holders.filter((c) => c.at < window.from).at(-1);
    for (const c of [...(before ? [before] : []), ...shown]) out.push(`${t(c.at)} ${c.identity} (acquired ${c.acquireTime}, rv ${c.rv})`);
    for (const [job, line] of timelines) {
      out.push("", `== timeline of ${job} (the observer's watches: time, event, kind, name, resourceVersion, state)`);
      const shown = line.map((e) => ({ at: e.at, text: `${t(e.at)} ${e.event} ${e.kind} ${e.name} rv ${e.rv} ${e.what}` }));
      shown.push({ at: v.at, text: `${t(v.at)} ---- the violation: ${v.kind} ----` });
      for (const f of faults.filter((f) => f.from <= window.to && (f.to ?? Infinity) >= window.from)) {
        shown.push({ at: f.from, text: `${t(f.from)} ---- fault ${f.kind} begins ----` }, { at: f.to ?? f.from, text: `${t(f.to ?? f.from)} ---- fault ${f.kind} ends ----` });
        if (f.effect !== undefined && f.effect !== f.to) shown.push({ at: f.effect, text: `${t(f.effect)} ---- fault ${f.kind} took effect ----` });
      }
      shown.sort((a, b) => a.at - b.at);
      out.push(...(line.length ? shown.map((e) => e.text) : ["(nothing seen)"]));
    }
    for (const job of v.jobs) {
      out.push("", `== the controllers' log lines for ${job}`);
      const mention = new RegExp(`(^|[^\\w-])${job}([^\\w]|-edljob|$)`);
      const lines = controllers.flatMap((c) => c.lines.filter((l) => l.job === `${namespace}/${job}` || mention.test(JSON.stringify(l))).map((l) => ({ c: c.name, l })));
      lines.sort((a, b) => String(a.l.time).localeCompare(String(b.l.time)));
      out.push(...(lines.length ? lines.map(({ c, l }) => `${c} ${JSON.stringify(l)}`) : ["(none)"]));
    }
    out.push("", "== the controllers' leader and watch lines in the window");
    const leaderLines = controllers.flatMap((c) =>
      c.lines.filter((l) => /leader|lease|watch lost|starting|stopping|stopped|caches synced/.test(l.msg ?? "") && Date.parse(l.time) >= window.from && Date.parse(l.time) <= window.to).map((l) => ({ c: c.name, l })),
    );
    leaderLines.sort((a, b) => String(a.l.time).localeCompare(String(b.l.time)));
    out.push(...(leaderLines.length ? leaderLines.map(({ c, l }) => `${c} ${JSON.stringify(l)}`) : ["(none)"]));
    const path = join(dir, `${String(i + 1).padStart(2, "0")}-${v.kind}.txt`);
    writeFileSync(path, `${out.join("\n")}\n`);
    return path;
  });
}
