import autocannon from "autocannon";

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
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors, statuses };
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
