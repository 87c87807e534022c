import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LoadRequest, LoadResult } from "./load.ts";

/** Requests built ahead and replayed in turn: enough to spread over every seeded key and record. */
const PREBUILT = 20_000;

const lua = (text: string) => JSON.stringify(text); // a JSON string is a valid Lua string literal for the text we send

/**
 * A bounded `wrk` run (a C load generator, outside this process, so its CPU is not the bench's)
 * on loopback, with the same requests as `runLoad`: the first 20,000 of `make(n)`, replayed in
 * turn. An `Idempotency-Key` gets a suffix per replay and per wrk thread, so every create
 * carries a key of its own. Each of wrk's `threads` replays the whole list from its start, so
 * requests whose order matters (visits to one record) need one thread. Needs `wrk` on the PATH
 * (Debian: `apt-get install wrk`).
 */
export async function runWrk(baseUrl: string, make: (n: number) => LoadRequest, seconds: number, connections = 32, threads = 2): Promise<LoadResult & { loadCpuSeconds: number }> {
  const dir = mkdtempSync(join(tmpdir(), "bench-wrk-"));
  try {
    const entries: string[] = [];
    for (let n = 0; n < PREBUILT; n++) {
      const { method, path, headers, body } = make(n);
      const { "idempotency-key": key, ...rest } = headers;
      const headerLines = Object.entries(rest).map(([name, value]) => `[${lua(name)}]=${lua(value)}`).join(",");
      entries.push(`{${lua(method)},${lua(path)},{${headerLines}},${body === undefined ? "nil" : lua(body)},${key === undefined ? "nil" : lua(key)}}`);
    }
    const script = join(dir, "requests.lua");
    writeFileSync(
      script,
      `local requests = {${entries.join(",\n")}}
local threads = 0
function setup(thread) threads = threads + 1; thread:set("tid", threads) end
local i = 0
function request()
  i = i + 1
  local r = requests[(i - 1) % #requests + 1]
  local headers = {}
  for k, v in pairs(r[3]) do headers[k] = v end
  if r[5] then headers["idempotency-key"] = r[5] .. "-" .. tid .. "-" .. math.floor((i - 1) / #requests) end
  return wrk.format(r[1], r[2], headers, r[4])
end
`,
    );
    const child = Bun.spawn(["wrk", `-t${threads}`, `-c${connections}`, `-d${seconds}s`, "--latency", "-s", script, baseUrl], { stdout: "pipe", stderr: "pipe" });
    const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
    if ((await child.exited) !== 0) throw new Error(`wrk failed: ${err || out}`);
    const usage = child.resourceUsage();
    const number = (pattern: RegExp) => Number(out.match(pattern)?.[1] ?? 0);
    const millis = (label: string) => {
      const m = out.match(new RegExp(`^\\s*${label}%\\s+([\\d.]+)(us|ms|s)\\s*$`, "m"));
      if (!m) return Number.NaN;
      const value = Number(m[1]);
      return m[2] === "us" ? value / 1000 : m[2] === "s" ? value * 1000 : value;
    };
    const requests = number(/(\d+) requests in/);
    const non2xx = number(/Non-2xx or 3xx responses: (\d+)/);
    const errors = [...out.matchAll(/(?:connect|read|write|timeout) (\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
    return {
      rps: number(/Requests\/sec:\s+([\d.]+)/),
      requests,
      p50: millis("50"),
      p99: millis("99"),
      non2xx,
      errors,
      statuses: non2xx ? { "non-2xx": non2xx } : {},
      loadCpuSeconds: usage ? (Number(usage.cpuTime.user) + Number(usage.cpuTime.system)) / 1e6 : 0,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
