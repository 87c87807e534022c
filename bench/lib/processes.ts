import { readdirSync, readFileSync } from "node:fs";
import { spawn, type Subprocess } from "bun";
import { withRuntimeEnv } from "../../shared/runtime-env.ts";

const children = new Set<Subprocess>();
// However the harness ends (an error included), it leaves no server running behind it.
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

/**
 * Every Bun process the benchmarks start, the bare servers included, runs with the runtime
 * settings the service is started with (shared/runtime-env.ts), so a ratio compares the code and
 * not the allocator's configuration; a value in the benchmark's own environment wins
 * (`MIMALLOC_PURGE_HOLES=1 MIMALLOC_PURGE_DELAY=100 bun bench/run.ts …` measures Bun's default).
 *
 * `profileDir` runs the script under `bun --cpu-prof`, writing a .cpuprofile there on exit;
 * BENCH_CPU_PROF_INTERVAL_US samples more often than every 1,000 µs (to see short stalls).
 */
export function startBun(script: string, env: Record<string, string>, profileDir?: string): Subprocess {
  const interval = process.env.BENCH_CPU_PROF_INTERVAL_US;
  const profile = profileDir ? ["--cpu-prof", "--cpu-prof-dir", profileDir, ...(interval ? [`--cpu-prof-interval=${interval}`] : [])] : [];
  const child = spawn([process.execPath, ...profile, script], { env: withRuntimeEnv({ ...process.env, ...env }), stdout: "ignore", stderr: "inherit" });
  children.add(child);
  void child.exited.then(() => children.delete(child));
  return child;
}

export async function waitForHttp(url: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await fetch(url).then((r) => r.status < 500, () => false)) return;
    await Bun.sleep(50);
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

/** Resident memory of a process in MB, from /proc. */
export function residentMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

const CLOCK_TICKS = Number(Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim()) || 100;

/** A process's command name and CPU seconds (user + system) from its /proc/<pid>/stat line (proc(5)). */
function parseStat(stat: string): { command: string; cpuSeconds: number } {
  // The command name may hold spaces: count fields from after it. utime and stime are
  // fields 14 and 15 of proc(5); the first field after ")" is field 3.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { command: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")), cpuSeconds: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS };
}

/** CPU time (user + system) a process has used so far, in seconds, from /proc (Linux). */
export function cpuSeconds(pid: number): number {
  return parseStat(readFileSync(`/proc/${pid}/stat`, "utf8")).cpuSeconds;
}

/**
 * CPU seconds of the process's main thread alone: a Bun server's event loop, which bounds its
 * rate whatever its other threads (a writer, JIT, GC helpers) do on the other core.
 */
export function mainThreadCpuSeconds(pid: number): number {
  return parseStat(readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8")).cpuSeconds;
}

/**
 * CPU seconds of every PostgreSQL server process on this machine (postmaster, backends,
 * WAL writer, checkpointer…): what the database spent on a load run, for the accounting
 * beside the API's own. Processes that ended during the run are not counted (none do: the
 * pools keep their connections).
 */
export function postgresCpuSeconds(): number {
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const { command, cpuSeconds } = parseStat(readFileSync(`/proc/${entry}/stat`, "utf8"));
      if (command === "postgres") total += cpuSeconds;
    } catch {
      // ended meanwhile
    }
  }
  return total;
}

export async function stop(child: Subprocess): Promise<void> {
  child.kill("SIGTERM");
  await Promise.race([child.exited, Bun.sleep(12_000)]);
  child.kill("SIGKILL");
}
