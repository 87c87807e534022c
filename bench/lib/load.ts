import autocannon from "autocannon";
import type { EventEmitter } from "node:events";

export interface LoadRequest {
  method: "GET" | "POST" | "PATCH";
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  statuses: Record<string, number>;
}

/**
 * A bounded autocannon run on loopback; `make(n)` builds the n-th request. With `rate`, the
 * connections together send that many requests a second instead of as many as they can.
 */
export async function runLoad(baseUrl: string, make: (n: number) => LoadRequest, seconds: number, connections = 32, rate?: number): Promise<LoadResult> {
  let n = 0;
  const samples: number[] = [];
  const run = autocannon({
    url: baseUrl,
    connections,
    duration: seconds,
    requests: [{ setupRequest: (request: object) => ({ ...request, ...make(n++) }) }],
    // autocannon's own correction takes 1 ms as every connection's interval (it divides 1 by
    // requests per second): it would invent samples. The correction is done below instead.
    ...(rate ? { overallRate: rate, ignoreCoordinatedOmission: true } : {}),
  });
  // The promise autocannon answers is also its event emitter (its typings omit that).
  if (rate) (run as unknown as EventEmitter).on("response", (_client: unknown, status: number, _bytes: number, ms: number) => status < 300 && samples.push(ms));
  const result = await run;
  const statuses = Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, stat]) => [code, (stat as { count: number }).count]),
  );
  const percentiles = rate ? steadyRatePercentiles(samples, (1000 * connections) / rate) : { p50: result.latency.p50, p99: result.latency.p99 };
  return { rps: result.requests.average, ...percentiles, non2xx: result.non2xx, errors: result.errors, statuses };
}

/**
 * Percentiles of a steady-rate run, corrected for coordinated omission the way HdrHistogram
 * does it: a connection waiting on a slow answer could not send the requests due meanwhile,
 * so a response that took k intervals also stands for the k-1 requests that would have
 * waited behind it (each interval less). Without this a stall shows up once, not as the many
 * requests a real client would have had waiting.
 */
export function steadyRatePercentiles(samples: number[], intervalMs: number): { p50: number; p99: number } {
  const all: number[] = [];
  for (const ms of samples) {
    all.push(ms);
    for (let missed = ms - intervalMs; missed > intervalMs; missed -= intervalMs) all.push(missed);
  }
  all.sort((a, b) => a - b);
  const at = (q: number) => all[Math.min(all.length - 1, Math.floor(all.length * q))] ?? 0;
  return { p50: at(0.5), p99: at(0.99) };
}

/** Sequential requests timed one by one: precise percentiles for one request at a time. */
export async function measureLatency(url: string, headers: (i: number) => Record<string, string>, count: number): Promise<{ p50: number; p99: number }> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const response = await fetch(url, { headers: headers(i) });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(count * 0.5)]!, p99: samples[Math.floor(count * 0.99)]! };
}
