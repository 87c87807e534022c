import { spawn, type Subprocess } from "bun";

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
