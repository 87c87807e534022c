import autocannon from "autocannon";

export interface LoadRequest {
  method: "GET" | "POST" | "PATCH";
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface LoadResult {
  rps: number;
  /** Requests answered in the run (any status). */
  requests: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  statuses: Record<string, number>;
}

/** A bounded autocannon run on loopback; `make(n)` builds the n-th request. */
export async function runLoad(baseUrl: string, make: (n: number) => LoadRequest, seconds: number, connections = 32): Promise<LoadResult> {
  let n = 0;
  const result = await autocannon({
    url: baseUrl,
    connections,
    duration: seconds,
    requests: [{ setupRequest: (request: object) => ({ ...request, ...make(n++) }) }],
  });
  const statuses = Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, stat]) => [code, (stat as { count: number }).count]),
  );
  return { rps: result.requests.average, requests: result.requests.total, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors, statuses };
}

/**
 * An open-loop run: request n is due at start + n / rate, and is sent then whether or not
 * earlier ones were answered; its latency counts from when it was due. autocannon's rate
 * option is no steady rate (each connection sends its quota for the second as fast as it can,
 * then waits for the next second), and its correction for coordinated omission takes every
 * interval as 1 ms; both would measure bursts, not a steady load.
 */
export async function runSteady(baseUrl: string, make: (n: number) => LoadRequest, seconds: number, rate: number): Promise<LoadResult> {
  const intervalMs = 1000 / rate;
  const samples: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  const end = started + seconds * 1000;
  let sent = 0;
  for (let now = started; now < end; now = performance.now()) {
    const due = Math.min(Math.floor((now - started) / intervalMs) + 1, Math.floor((seconds * 1000) / intervalMs));
    for (; sent < due; sent++) {
      const dueAt = started + sent * intervalMs;
      const { method, path, headers, body } = make(sent);
      const request: Promise<void> = fetch(baseUrl + path, { method, headers, body })
        .then(async (response) => {
          await response.arrayBuffer();
          statuses[response.status] = (statuses[response.status] ?? 0) + 1;
          if (response.status < 300) samples.push(performance.now() - dueAt);
        })
        .catch(() => void errors++)
        .finally(() => inFlight.delete(request));
      inFlight.add(request);
    }
    await Bun.sleep(1);
  }
  await Promise.all(inFlight);
  const non2xx = Object.entries(statuses).reduce((n, [code, count]) => (Number(code) >= 300 ? n + count : n), 0);
  return { rps: samples.length / seconds, requests: sent - errors, ...percentiles(samples), non2xx, errors, statuses };
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
  return percentiles(samples);
}

/** p50 and p99 of latencies in ms (sorts them in place). */
export function percentiles(samples: number[]): { p50: number; p99: number } {
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(samples.length * q))] ?? 0;
  return { p50: at(0.5), p99: at(0.99) };
}
