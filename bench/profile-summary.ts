/**
 * `bun bench/profile-summary.ts <file.cpuprofile> [top]`: self time per function (and per
 * file), and inclusive time of the service's own functions, from a profile written by
 * `bun --cpu-prof`. Idle time is left out of the shares.
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
