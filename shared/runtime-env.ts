/**
 * Settings of Bun's own runtime that a process reads from its environment as it starts, before
 * any of our code runs: whatever starts the API or the worker passes them (`npm start`, the
 * `start:api` / `start:worker` scripts, the Dockerfile, the benchmarks). An operator's own value
 * in the environment wins over these.
 *
 * Bun's native allocator (mimalloc 3.5) hands memory back to the kernel in two ways: whole pages
 * left empty (after `MIMALLOC_PURGE_DELAY`, 100 ms in Bun), and, from its scavenger thread every
 * 100 ms, the free stretches inside pages still in use ("holes"). Under load the API faulted the
 * handed-back memory in again about once every two requests (0.5 minor faults a SQLite read,
 * against 0.02–0.04 for a bare server), and each hand-back is an `madvise` that interrupts the
 * other core to flush its TLB: 12% of the API's samples under the PostgreSQL PATCH load.
 *
 * - `MIMALLOC_PURGE_HOLES=0`: pages in use keep their free stretches for the next allocation.
 * - `MIMALLOC_PURGE_DELAY=1000`: a page left empty goes back after a second unused instead of
 *   100 ms, so a page emptied between two bursts of requests is there for the next one.
 *
 * Together: 0.05 faults a read instead of 0.5, as few as never handing memory back (-1), and
 * 21–30% less of the API's CPU per PostgreSQL PATCH; unlike -1, memory a burst used is still
 * given back a second after it ends, so resident memory follows the load instead of staying at
 * its peak (bench/RESULTS.md, issue #26's twentieth pass).
 */
export const RUNTIME_ENV: Readonly<Record<string, string>> = {
  MIMALLOC_PURGE_HOLES: "0",
  MIMALLOC_PURGE_DELAY: "1000",
};

/** `env` with the runtime settings it does not already set. */
export const withRuntimeEnv = <E extends Record<string, string | undefined>>(env: E): E & Record<string, string> => ({ ...RUNTIME_ENV, ...env }) as E & Record<string, string>;
