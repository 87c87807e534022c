/**
 * Settings of Bun's own runtime that a process reads from its environment as it starts, before
 * any of our code runs: whatever starts the API or the worker passes them (`npm start`, the
 * `start:api` / `start:worker` scripts, the Dockerfile, the benchmarks). An operator's own value
 * in the environment wins over these.
 *
 * `MIMALLOC_PURGE_DELAY=-1`: Bun's native allocator (mimalloc) keeps the memory it frees for
 * reuse instead of handing it back to the kernel 10 ms later. With the default, the API gave
 * pages back and faulted them in again about once every two reads (0.5 minor faults a request
 * against 0.02), each hand-back an `madvise` that interrupts the other core to flush its TLB;
 * with it, the API's event loop spent 8–10 µs less a read and served 20–25% more reads
 * (bench/RESULTS.md, issue #26's thirteenth pass; delays of 250 and 1,000 ms did not help). The
 * price: the process's resident memory stays at its peak (about 40–50 MB more after the read
 * benchmark) rather than shrinking between bursts. A delay in milliseconds instead of -1 gives
 * memory back after that long unused.
 */
export const RUNTIME_ENV: Readonly<Record<string, string>> = {
  MIMALLOC_PURGE_DELAY: "-1",
};

/** `env` with the runtime settings it does not already set. */
export const withRuntimeEnv = <E extends Record<string, string | undefined>>(env: E): E & Record<string, string> => ({ ...RUNTIME_ENV, ...env }) as E & Record<string, string>;
