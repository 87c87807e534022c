/**
 * `bun bench/profile-summary.ts <file.cpuprofile> [top]`: self time per function (and per
 * file), and inclusive time of the service's own functions, from a profile written by
 * `bun --cpu-prof`. Idle time is left out of the shares.
 *
 * It also lists the stalls: stretches of back-to-back samples (no wait between them) longer
 * than 2 ms, during which the event loop answered nothing else. Each is named after the
 * outermost function of the service's own that ran longest in it, which tells a tail made
 * of one long task (a flush, a commit) from one made of many requests queued back to back.
 */
import { readFileSync } from "node:fs";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
const [file, topArg] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file!, "utf8")) as { nodes: Node[]; samples: number[]; timeDeltas: number[] };
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parentOf = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
const label = (node: Node) =>
  `${node.callFrame.functionName || "(anonymous)"}  ${node.callFrame.url.replace(/^.*node_modules\//, "~/").replace(/^.*\/work\/main\//, "")}:${node.callFrame.lineNumber + 1}`;
/** Native frames have no source: name them after the nearest caller that has one. */
const viaCaller = new Map<string, number>();
const self = new Map<string, number>();
const perFile = new Map<string, number>();
const inclusive = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const node = byId.get(id)!;
  const { functionName, url, lineNumber } = node.callFrame;
  if (functionName === "(idle)" || functionName === "(program)") return;
  const dt = profile.timeDeltas[i] ?? 0;
  total += dt;
  const short = url.replace(/^.*node_modules\//, "~/").replace(/^.*\/work\/main\//, "");
  const key = `${functionName || "(anonymous)"}  ${short}:${lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + dt);
  const f = short.split(":")[0] || "(native)";
  perFile.set(f, (perFile.get(f) ?? 0) + dt);
  if (!url) {
    let caller = parentOf.get(id);
    while (caller !== undefined && !byId.get(caller)!.callFrame.url) caller = parentOf.get(caller);
    const name = `${functionName || "(anonymous)"} <- ${caller === undefined ? "(root)" : label(byId.get(caller)!)}`;
    viaCaller.set(name, (viaCaller.get(name) ?? 0) + dt);
  }
  // Inclusive time of the project's own functions: each counted once per sample, however deep.
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
    const frame = byId.get(at)!;
    const url = frame.callFrame.url;
    if (url.includes("node_modules") || !/\/(api|shared)\//.test(url)) continue;
    const name = label(frame);
    if (seen.has(name)) continue;
    seen.add(name);
    inclusive.set(name, (inclusive.get(name) ?? 0) + dt);
  }
});
// ---- stalls: busy stretches without an idle sample --------------------------------------
/** The outermost frame of the service's own code on a sample's stack, else its root frame. */
function outermostOwn(id: number): string {
  let found: string | undefined;
  let root = "(native)";
  for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
    const frame = byId.get(at)!;
    if (frame.callFrame.functionName === "(root)") break;
    root = label(frame);
    if (!frame.callFrame.url.includes("node_modules") && /\/(api|shared)\//.test(frame.callFrame.url)) found = label(frame);
  }
  return found ?? root;
}
const STALL_MS = 2;
// The profiler samples only while JavaScript or native code runs: a gap between two samples
// longer than the sampling interval is time the loop spent waiting. The interval is the
// common short gap (the 10th percentile); up to twice it still counts as one busy stretch.
const sortedDeltas = [...profile.timeDeltas].sort((a, b) => a - b);
const interval = sortedDeltas[Math.floor(sortedDeltas.length * 0.1)] ?? 1000;
const stalls: { ms: number; by: string }[] = [];
let stretch = { ms: 0, parts: new Map<string, number>() };
const endStretch = () => {
  if (stretch.ms / 1000 > STALL_MS) {
    const by = [...stretch.parts].sort((a, b) => b[1] - a[1])[0]![0];
    stalls.push({ ms: stretch.ms / 1000, by });
  }
  stretch = { ms: 0, parts: new Map() };
};
profile.samples.forEach((id, i) => {
  const name = byId.get(id)!.callFrame.functionName;
  const gap = profile.timeDeltas[i] ?? 0;
  if (gap > 2 * interval) endStretch();
  if (name === "(idle)" || name === "(program)") return endStretch();
  stretch.ms += Math.min(gap, interval);
  const by = outermostOwn(id);
  stretch.parts.set(by, (stretch.parts.get(by) ?? 0) + Math.min(gap, interval));
});
endStretch();

const top = Number(topArg ?? 30);
const show = (map: Map<string, number>, n: number) =>
  [...map].sort((a, b) => b[1] - a[1]).slice(0, n).forEach(([k, v]) => console.log(`${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`));
console.log(`busy time: ${(total / 1e6).toFixed(2)} s\n-- by function --`);
show(self, top);
console.log("-- native time by nearest caller with source --");
show(viaCaller, 15);
console.log("-- inclusive (with callees), the service's own functions --");
show(inclusive, 25);
console.log("-- by file --");
show(perFile, 15);
const stallsBy = new Map<string, { n: number; ms: number; max: number }>();
for (const s of stalls) {
  const e = stallsBy.get(s.by) ?? { n: 0, ms: 0, max: 0 };
  stallsBy.set(s.by, { n: e.n + 1, ms: e.ms + s.ms, max: Math.max(e.max, s.ms) });
}
console.log(`-- stalls: busy stretches over ${STALL_MS} ms without a wait (${stalls.length}, over ${(total / 1e6).toFixed(1)} s busy) --`);
[...stallsBy]
  .sort((a, b) => b[1].ms - a[1].ms)
  .slice(0, 15)
  .forEach(([by, e]) => console.log(`${String(e.n).padStart(5)} × avg ${(e.ms / e.n).toFixed(1).padStart(5)} ms, max ${e.max.toFixed(1).padStart(5)} ms  ${by}`));
