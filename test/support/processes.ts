import { spawn, type Subprocess } from "bun";
import { readdirSync, readFileSync } from "node:fs";

/** Starts one of the service's real entry points as a child process with the given environment. */
export function startProcess(entry: "api/main.ts" | "worker/main.ts", env: Record<string, string>): Subprocess<"ignore", "pipe", "inherit"> {
  return spawn([process.execPath, entry], {
    env: { ...process.env, LOG_LEVEL: "warn", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "inherit",
  });
}

/** Resolves with the exit code, or throws when the process is still running after `ms`. */
export async function exitWithin(child: Subprocess, ms: number): Promise<number> {
  const result = await Promise.race([child.exited, Bun.sleep(ms).then(() => "timeout" as const)]);
  if (result === "timeout") {
    child.kill("SIGKILL");
    throw new Error(`process still running ${ms} ms after the signal`);
  }
  return result;
}

/**
 * Collects a child's output until `pattern` appears; throws with everything read so far when
 * it has not appeared within `ms` (or the stream ended first).
 */
export async function readUntil(stream: ReadableStream<Uint8Array>, pattern: RegExp, ms: number, seen = { text: "" }): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  const deadline = Date.now() + ms;
  try {
    while (!pattern.test(seen.text)) {
      const left = deadline - Date.now();
      const next = await Promise.race([reader.read(), Bun.sleep(Math.max(left, 0)).then(() => "timeout" as const)]);
      if (next === "timeout") throw new Error(`no ${pattern} within ${ms} ms; output so far:\n${seen.text}`);
      if (next.done) throw new Error(`output ended before ${pattern}; output:\n${seen.text}`);
      seen.text += decoder.decode(next.value, { stream: true });
    }
    return seen.text;
  } finally {
    reader.releaseLock();
  }
}

/** The processes below `pid` (from /proc), deepest last. */
export function descendantsOf(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      parentOf.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  for (let frontier = [pid]; frontier.length > 0; ) {
    frontier = [...parentOf].filter(([, parent]) => frontier.includes(parent)).map(([child]) => child);
    found.push(...frontier);
  }
  return found;
}

/** Whether a process with this pid still exists. */
export const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
